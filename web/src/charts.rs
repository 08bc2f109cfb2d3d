//! Charts drawn by the app as SVG (no chart library, no CDN): stacked cost bars, completion-time
//! ranges and break-even lines. Each has a text title for screen readers.

use gpufare_core::plan::breakeven::Point;
use gpufare_core::plan::option::OptionResult;
use leptos::prelude::*;
use rust_decimal::Decimal;

use crate::format;
use crate::vocab::{Label, Lang, t};

const WIDTH: f64 = 640.0;
const LABEL_W: f64 = 190.0;
const ROW_H: f64 = 26.0;
/// Colours of rent, storage, egress, time and risk (distinguishable, readable on white).
const COLOURS: [&str; 5] = ["#0b5d4b", "#3f7cac", "#8c6bb1", "#d08c00", "#b3261e"];
const PARTS: [Label; 5] = [
    Label::Rent,
    Label::Storage,
    Label::Egress,
    Label::TimeCost,
    Label::RiskCost,
];

fn to_f64(d: Decimal) -> f64 {
    f64::try_from(d).unwrap_or(0.0)
}

fn short_label(o: &OptionResult) -> String {
    let text = format!("{} {}×{}", o.provider, o.gpu_count, o.gpu);
    if text.chars().count() > 26 {
        text.chars().take(25).collect::<String>() + "…"
    } else {
        text
    }
}

/// Stacked horizontal bars: what each option's expected total is made of.
#[component]
pub fn CostBars(lang: Lang, options: Vec<OptionResult>) -> impl IntoView {
    let max = options
        .iter()
        .map(|o| to_f64(o.costs.total_expected.amount))
        .fold(0.0, f64::max)
        .max(1e-9);
    let height = ROW_H * options.len() as f64 + 58.0;
    let scale = (WIDTH - LABEL_W - 90.0) / max;
    let rows = options
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let y = 10.0 + i as f64 * ROW_H;
            let parts = [o.costs.rent, o.costs.storage, o.costs.egress, o.costs.time_cost, o.costs.risk_cost];
            let mut x = LABEL_W;
            let segments = parts
                .iter()
                .enumerate()
                .map(|(k, m)| {
                    let w = to_f64(m.amount) * scale;
                    let seg = view! {
                        <rect x=format!("{x:.1}") y=format!("{y:.1}") width=format!("{:.1}", w.max(0.0)) height=format!("{:.1}", ROW_H - 8.0) fill=COLOURS[k]>
                            <title>{format!("{}: {}", t(lang, PARTS[k]), format::money(lang, m))}</title>
                        </rect>
                    };
                    x += w;
                    seg
                })
                .collect_view();
            view! {
                <g>
                    <text x=format!("{:.1}", LABEL_W - 6.0) y=format!("{:.1}", y + ROW_H / 2.0) text-anchor="end" class="chart-label">{short_label(o)}</text>
                    {segments}
                    <text x=format!("{:.1}", x + 4.0) y=format!("{:.1}", y + ROW_H / 2.0) class="chart-value">{format::money(lang, &o.costs.total_expected)}</text>
                </g>
            }
        })
        .collect_view();
    let legend = PARTS
        .iter()
        .enumerate()
        .map(|(k, key)| {
            let x = 10.0 + k as f64 * 125.0;
            view! {
                <g>
                    <rect x=format!("{x:.1}") y=format!("{:.1}", height - 18.0) width="10" height="10" fill=COLOURS[k] />
                    <text x=format!("{:.1}", x + 14.0) y=format!("{:.1}", height - 9.0) class="chart-legend">{t(lang, *key)}</text>
                </g>
            }
        })
        .collect_view();
    view! {
        <svg class="chart" id="cost-chart" viewBox=format!("0 0 {WIDTH} {height:.0}") role="img" aria-labelledby="cost-chart-title">
            <title id="cost-chart-title">{t(lang, Label::Breakdown)}</title>
            {rows}
            <text x=format!("{LABEL_W:.1}") y=format!("{:.1}", height - 30.0) class="chart-label axis-title x-title">
                {options.first().map(|o| format!("{} ({})", t(lang, Label::Total), format::currency_name(lang, o.costs.total_expected.currency))).unwrap_or_default()}
            </text>
            {legend}
        </svg>
    }
}

/// Completion time: a bar from P50 to P90 and a diamond at the expectation, per option.
#[component]
pub fn TimeRanges(lang: Lang, options: Vec<OptionResult>) -> impl IntoView {
    let max = options
        .iter()
        .map(|o| o.hours_p90.max(o.hours_expected))
        .fold(0.0, f64::max)
        .max(1e-9);
    let height = ROW_H * options.len() as f64 + 36.0;
    let scale = (WIDTH - LABEL_W - 110.0) / max;
    let rows = options
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let y = 10.0 + i as f64 * ROW_H + (ROW_H - 8.0) / 2.0;
            let (x50, x90, xe) = (LABEL_W + o.hours_p50 * scale, LABEL_W + o.hours_p90 * scale, LABEL_W + o.hours_expected * scale);
            view! {
                <g>
                    <text x=format!("{:.1}", LABEL_W - 6.0) y=format!("{y:.1}") dy="4" text-anchor="end" class="chart-label">{short_label(o)}</text>
                    <line x1=format!("{LABEL_W:.1}") x2=format!("{:.1}", WIDTH - 110.0) y1=format!("{y:.1}") y2=format!("{y:.1}") class="chart-grid" />
                    <rect x=format!("{x50:.1}") y=format!("{:.1}", y - 5.0) width=format!("{:.1}", (x90 - x50).max(2.0)) height="10" fill="#3f7cac">
                        <title>{format!("P50 {} – P90 {}", format::hours(lang, o.hours_p50), format::hours(lang, o.hours_p90))}</title>
                    </rect>
                    <path d=format!("M{xe:.1} {:.1} l5 5 l-5 5 l-5 -5 z", y - 5.0) fill="#1a1f24" />
                    <text x=format!("{:.1}", WIDTH - 104.0) y=format!("{y:.1}") dy="4" class="chart-value">
                        {format!("{} / {}", format::hours(lang, o.hours_expected), format::hours(lang, o.hours_p90))}
                    </text>
                </g>
            }
        })
        .collect_view();
    view! {
        <svg class="chart" id="time-chart" viewBox=format!("0 0 {WIDTH} {height:.0}") role="img" aria-labelledby="time-chart-title">
            <title id="time-chart-title">{t(lang, Label::TimeDistribution)}</title>
            {rows}
            <text x=format!("{LABEL_W:.1}") y=format!("{:.1}", height - 8.0) class="chart-label axis-title x-title">{t(lang, Label::ChartCompletion)}</text>
        </svg>
    }
}

/// Two cost lines over x, crossing at the break-even point, with both axes titled: x in the
/// caller's unit, y the total in the plan's currency (its top value written inside the plot so
/// no width of number is cut off).
#[component]
pub fn BreakEvenChart(
    lang: Lang,
    id: &'static str,
    title: String,
    points: Vec<Point>,
    x_title: &'static str,
    a_label: String,
    b_label: String,
    log_x: bool,
) -> impl IntoView {
    let (w, h) = (WIDTH, 250.0);
    let (left, right, top, bottom) = (16.0, w - 16.0, 40.0, h - 46.0);
    let xs: Vec<f64> = points
        .iter()
        .map(|p| if log_x { p.x.max(1e-6).log10() } else { p.x })
        .collect();
    let (xmin, xmax) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let ymax = points
        .iter()
        .map(|p| to_f64(p.a.amount).max(to_f64(p.b.amount)))
        .fold(0.0, f64::max)
        .max(1e-9);
    let sx = |x: f64| left + (x - xmin) / (xmax - xmin).max(1e-9) * (right - left);
    let sy = |y: f64| bottom - y / ymax * (bottom - top);
    let path = |pick: fn(&Point) -> Decimal| {
        points
            .iter()
            .zip(&xs)
            .enumerate()
            .map(|(i, (p, &x))| {
                format!(
                    "{}{:.1} {:.1}",
                    if i == 0 { "M" } else { " L" },
                    sx(x),
                    sy(to_f64(pick(p)))
                )
            })
            .collect::<String>()
    };
    let currency = points.first().map(|p| p.a.currency);
    let first_x = points.first().map_or(0.0, |p| p.x);
    let last_x = points.last().map_or(0.0, |p| p.x);
    let y_title = match currency {
        Some(c) => format!(
            "{} ({})",
            t(lang, Label::ChartTotal),
            format::currency_name(lang, c)
        ),
        None => t(lang, Label::ChartTotal).to_owned(),
    };
    let label = title.clone();
    view! {
        <svg class="chart" id=id viewBox=format!("0 0 {w} {h}") role="img" aria-label=label>
            <title>{title}</title>
            <text x=format!("{}", left + 8.0) y="14" class="chart-legend legend-a">{a_label}</text>
            <text x=format!("{}", w / 2.0 + 8.0) y="14" class="chart-legend legend-b">{b_label}</text>
            <text x=format!("{left}") y="32" class="chart-label axis-title y-title">{y_title}</text>
            <line x1=format!("{left}") x2=format!("{right}") y1=format!("{bottom}") y2=format!("{bottom}") class="chart-axis" />
            <line x1=format!("{left}") x2=format!("{left}") y1=format!("{top}") y2=format!("{bottom}") class="chart-axis" />
            <text x=format!("{}", left + 4.0) y=format!("{}", top + 12.0) class="chart-label y-max">
                {currency.map(|c| format::amount(lang, crate::fields::d(ymax), c)).unwrap_or_default()}
            </text>
            <text x=format!("{left}") y=format!("{}", bottom + 16.0) class="chart-label">{format::number(first_x, 1)}</text>
            <text x=format!("{right}") y=format!("{}", bottom + 16.0) text-anchor="end" class="chart-label">{format::number(last_x, 1)}</text>
            <text x=format!("{}", (left + right) / 2.0) y=format!("{}", h - 8.0) text-anchor="middle" class="chart-label axis-title x-title">{x_title}</text>
            <path d=path(|p| p.a.amount) class="line-a" />
            <path d=path(|p| p.b.amount) class="line-b" />
        </svg>
    }
}

/// One line of [`CompletionCdf`]: wall-clock hours at core's `CDF_QUANTILES`.
#[derive(Debug, Clone, PartialEq)]
pub struct CdfSeries {
    /// Index into the policy colours (one colour per policy).
    pub colour: usize,
    /// What the line shows, for its tooltip.
    pub name: String,
    /// Drawn dashed (the model, where a replay is drawn solid beside it).
    pub dashed: bool,
    /// Hours at each quantile.
    pub hours: Vec<f64>,
}

/// Colours of the policies, in core's order of candidates (staying on the offer first, running
/// on-demand last).
const POLICY_COLOURS: [&str; 6] = [
    "#b3261e", "#d08c00", "#8c6bb1", "#3f7cac", "#0b5d4b", "#1a1f24",
];

/// The colour of the `k`-th policy of a risk report, in the chart and beside the table's rows.
pub fn policy_colour(k: usize) -> &'static str {
    POLICY_COLOURS[k % POLICY_COLOURS.len()]
}

/// Hours at or above this are a job that never finishes (core's horizon is 10 million hours).
const NEVER: f64 = 1_000_000.0;

/// A round step for about four ticks over `span`.
pub fn nice_step(span: f64) -> f64 {
    let raw = (span / 4.0).max(1e-9);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude)
}

/// The completion-time distribution under each policy: the share of runs finished (y) by each
/// wall-clock hour (x), one line per policy and source of figures (the trace's replay solid, the
/// model dashed beside it). Both axes titled with units, a legend of the policies.
#[component]
pub fn CompletionCdf(
    lang: Lang,
    series: Vec<CdfSeries>,
    names: Vec<String>,
    has_replay: bool,
) -> impl IntoView {
    let style_note = if has_replay {
        format!(
            "{} · {}",
            t(lang, Label::LegendReplay),
            t(lang, Label::LegendModel)
        )
    } else {
        t(lang, Label::LegendModelOnly).to_owned()
    };
    cdf_plot(
        lang,
        CdfPlot {
            id: "risk-cdf",
            title: t(lang, Label::ChartCdf).to_owned(),
            x_title: t(lang, Label::ChartCdfX).to_owned(),
            y_title: t(lang, Label::ChartCdfY).to_owned(),
            quantiles: &gpufare_core::plan::risk::CDF_QUANTILES,
            per_hour: 1.0,
            tip: format::hours,
        },
        &series,
        &names,
        style_note,
    )
}

/// The wait before a start: the share of starts begun (y) by each wait (x), in seconds, minutes
/// or hours as the longest wait drawn reads best. `hours` are core's waits at
/// `gpufare_core::offers::queue::QUEUE_CDF`; `note` says where the queue comes from.
#[component]
pub fn QueueCdf(lang: Lang, hours: Vec<f64>, name: String, note: String) -> impl IntoView {
    let longest = hours
        .iter()
        .copied()
        .filter(|h| h.is_finite())
        .fold(0.0, f64::max);
    // The axis's unit: the one its longest wait is written in, so that ticks read 0-60 s,
    // 0-50 min or 0-8 h.
    let (_, unit) = format::wait_parts(lang, longest);
    let per_hour = if unit == crate::vocab::pick(lang, "s", "秒") {
        3600.0
    } else if unit == crate::vocab::pick(lang, "min", "分钟") {
        60.0
    } else {
        1.0
    };
    let x_title = match lang {
        Lang::En => format!("{} ({unit})", t(lang, Label::QueueChartX)),
        Lang::Zh => format!("{}（{unit}）", t(lang, Label::QueueChartX)),
    };
    let series = [CdfSeries {
        colour: 3,
        name,
        dashed: false,
        hours,
    }];
    cdf_plot(
        lang,
        CdfPlot {
            id: "queue-cdf",
            title: t(lang, Label::QueueChart).to_owned(),
            x_title,
            y_title: t(lang, Label::QueueChartY).to_owned(),
            quantiles: &gpufare_core::offers::queue::QUEUE_CDF,
            per_hour,
            tip: format::wait,
        },
        &series,
        &[],
        note,
    )
}

/// What a distribution chart draws against: its id, titles, the probabilities its series are
/// given at, the x unit (units per hour) and how a tooltip writes a value in hours.
struct CdfPlot {
    id: &'static str,
    title: String,
    x_title: String,
    y_title: String,
    quantiles: &'static [f64],
    per_hour: f64,
    tip: fn(Lang, f64) -> String,
}

/// A distribution chart: the share (y) reached by each x, one line per series, both axes
/// titled, a legend of `names` (coloured as the series' `colour` indexes) and a note under it.
fn cdf_plot(
    lang: Lang,
    plot: CdfPlot,
    series: &[CdfSeries],
    names: &[String],
    style_note: String,
) -> impl IntoView + use<> {
    let CdfPlot {
        id,
        title,
        x_title,
        y_title,
        quantiles,
        per_hour,
        tip,
    } = plot;
    let legend_rows = names.len();
    let (left, right, top, bottom) = (52.0, WIDTH - 16.0, 40.0, 230.0);
    let height = bottom + 46.0 + legend_rows as f64 * 18.0 + 22.0;
    let finite = |h: f64| h.is_finite() && h < NEVER;
    let xmax_data = series
        .iter()
        .flat_map(|s| s.hours.iter().copied())
        .filter(|h| finite(*h))
        .fold(0.0, f64::max)
        .max(1e-6)
        * per_hour;
    let step = nice_step(xmax_data);
    let xmax = (xmax_data / step).ceil() * step;
    let sx = |h: f64| left + (h * per_hour).min(xmax) / xmax * (right - left);
    let sy = |q: f64| bottom - q * (bottom - top);
    let grid_y = [0.0, 0.25, 0.5, 0.75, 1.0]
        .into_iter()
        .map(|q| {
            view! {
                <line x1=format!("{left}") x2=format!("{right}") y1=format!("{:.1}", sy(q)) y2=format!("{:.1}", sy(q)) class="chart-grid" />
                <text x=format!("{}", left - 6.0) y=format!("{:.1}", sy(q) + 4.0) text-anchor="end" class="chart-label">{format!("{:.0} %", q * 100.0)}</text>
            }
        })
        .collect_view();
    let ticks = (0i32..)
        .map(|i| f64::from(i) * step)
        .take_while(|x| *x <= xmax + step / 1000.0)
        .map(|x| {
            let at = left + x / xmax * (right - left);
            view! {
                <line x1=format!("{at:.1}") x2=format!("{at:.1}") y1=format!("{bottom}") y2=format!("{}", bottom + 4.0) class="chart-axis" />
                <text x=format!("{at:.1}") y=format!("{}", bottom + 16.0) text-anchor="middle" class="chart-label">{format::number(x, 1)}</text>
            }
        })
        .collect_view();
    let lines = series
        .iter()
        .filter_map(|s| {
            let points: Vec<(f64, f64)> = s
                .hours
                .iter()
                .zip(quantiles)
                .filter(|(h, _)| finite(**h))
                .map(|(h, q)| (sx(*h), sy(*q)))
                .collect();
            let (_, last_y) = *points.last()?;
            let mut d = points
                .iter()
                .enumerate()
                .map(|(i, (x, y))| format!("{}{x:.1} {y:.1}", if i == 0 { "M" } else { " L" }))
                .collect::<String>();
            // Runs that never finish: the line stays at the share finished to the plot's edge.
            if points.len() < s.hours.len() {
                d.push_str(&format!(" L{right:.1} {last_y:.1}"));
            }
            let at = |q: f64| {
                quantiles
                    .iter()
                    .position(|x| (x - q).abs() < 1e-9)
                    .and_then(|i| s.hours.get(i))
                    .map(|h| tip(lang, *h))
                    .unwrap_or_default()
            };
            let line_tip = format!("{}: P50 {}, P90 {}", s.name, at(0.5), at(0.9));
            Some(view! {
                <path
                    d=d
                    fill="none"
                    stroke=policy_colour(s.colour)
                    stroke-width="2.2"
                    stroke-dasharray=if s.dashed { "6 4" } else { "none" }
                    class=if s.dashed { "cdf-line model" } else { "cdf-line" }
                >
                    <title>{line_tip}</title>
                </path>
            })
        })
        .collect_view();
    let legend_top = bottom + 50.0;
    let legend = names
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let x = left;
            let y = legend_top + k as f64 * 18.0;
            view! {
                <line x1=format!("{x:.1}") x2=format!("{:.1}", x + 22.0) y1=format!("{:.1}", y - 4.0) y2=format!("{:.1}", y - 4.0)
                    stroke=policy_colour(k) stroke-width="3" />
                <text x=format!("{:.1}", x + 28.0) y=format!("{y:.1}") class="chart-legend">{name.clone()}</text>
            }
        })
        .collect_view();
    let title_id = format!("{id}-title");
    let labelled_by = title_id.clone();
    view! {
        <svg class="chart" id=id viewBox=format!("0 0 {WIDTH} {height:.0}") role="img" aria-labelledby=labelled_by>
            <title id=title_id>{title}</title>
            <text x=format!("{}", left - 40.0) y="24" class="chart-label axis-title y-title">{y_title}</text>
            {grid_y}
            <line x1=format!("{left}") x2=format!("{right}") y1=format!("{bottom}") y2=format!("{bottom}") class="chart-axis" />
            <line x1=format!("{left}") x2=format!("{left}") y1=format!("{top}") y2=format!("{bottom}") class="chart-axis" />
            {ticks}
            <text x=format!("{}", (left + right) / 2.0) y=format!("{}", bottom + 34.0) text-anchor="middle" class="chart-label axis-title x-title">{x_title}</text>
            {lines}
            {legend}
            <text x=format!("{left}") y=format!("{:.1}", legend_top + legend_rows as f64 * 18.0 + 4.0) class="chart-legend style-note">{style_note}</text>
        </svg>
    }
}
