//! The budget as an Excel workbook (`.xlsx`), in English or Simplified Chinese. Four sheets, each
//! a table with its header in the first row (frozen, with a filter):
//!
//! 1. **Ranking** (排名): every option in rank order — offer, provider, GPU, tenancy, billing,
//!    feasibility, hours, deadline risk, expected and P90 totals, policy, price date;
//! 2. **Cost breakdown** (费用明细): rent, storage, egress, time, risk and the totals per option;
//! 3. **Hybrid plan** (混合方案): the phases, their hours and cost, and the total;
//! 4. **Assumptions and sources** (假设、价格日期与来源): the settings (currency, exchange rate,
//!    seed, trials, the day ages count to, the price dates, the recommendation), every offer's
//!    price date, age, evidence, estimate note and source, and the model's assumptions.
//!
//! Numbers are numbers (never text): money in the budget's currency with a currency format and
//! the currency in the header, hours with two decimals, probabilities as percentages, yes/no as
//! booleans. Identifiers (offer ids, tenancy, billing mode, policy) are written as the CSV writes
//! them, so the sheets and [`crate::export::csv::budget_csv`] hold the same values.
//!
//! The bytes depend on the budget, the catalog and the language alone. rust_xlsxwriter notes the
//! current time as the document's creation time when a workbook is made; the builder always
//! replaces it with the budget's `today` (or 2000-01-01 without one), and its zip entries carry a
//! fixed date, so the same budget gives the same file everywhere.

use rust_xlsxwriter::{DocProperties, ExcelDateTime, Format, Workbook, Worksheet, XlsxError};
use thiserror::Error;

use crate::export::budget::Budget;
use crate::numbers::date::PriceDate;
use crate::numbers::money::Currency;
use crate::offers::catalog::Catalog;

/// The language of a workbook's sheet names, headers and labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SheetLanguage {
    /// English.
    #[default]
    En,
    /// Simplified Chinese.
    Zh,
}

impl SheetLanguage {
    /// Every language, in declaration order.
    pub const ALL: [SheetLanguage; 2] = [SheetLanguage::En, SheetLanguage::Zh];

    /// The language's tag as the CLI's `--lang` takes it: `en` or `zh`.
    pub fn id(self) -> &'static str {
        match self {
            SheetLanguage::En => "en",
            SheetLanguage::Zh => "zh",
        }
    }

    /// Parses a tag written by [`SheetLanguage::id`].
    pub fn from_id(id: &str) -> Option<SheetLanguage> {
        SheetLanguage::ALL.into_iter().find(|l| l.id() == id)
    }

    fn pick<'a>(self, en: &'a str, zh: &'a str) -> &'a str {
        match self {
            SheetLanguage::En => en,
            SheetLanguage::Zh => zh,
        }
    }
}

/// The sheet names in `lang`, in the workbook's order.
pub fn sheet_names(lang: SheetLanguage) -> [&'static str; 4] {
    match lang {
        SheetLanguage::En => [
            "Ranking",
            "Cost breakdown",
            "Hybrid plan",
            "Assumptions and sources",
        ],
        SheetLanguage::Zh => ["排名", "费用明细", "混合方案", "假设、价格日期与来源"],
    }
}

/// Why the workbook could not be built (the writer refused a value; no budget gpufare makes
/// comes near its limits).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("cannot build the workbook: {0}")]
pub struct WorkbookError(pub String);

impl From<XlsxError> for WorkbookError {
    fn from(e: XlsxError) -> Self {
        WorkbookError(e.to_string())
    }
}

/// The longest text a cell holds (Excel's limit); longer text is cut there.
const MAX_CELL_CHARS: usize = 32_767;

/// One cell's value and how it is shown.
enum Cell {
    Text(String),
    /// A whole number (rank, count, days).
    Whole(f64),
    /// Hours, two decimals.
    Hours(f64),
    /// Money in the budget's currency.
    Money(f64),
    /// A probability shown as a percentage.
    Share(f64),
    /// A plain number as given (exchange rate, seed).
    Number(f64),
    Bool(bool),
    Blank,
}

fn text(s: &str) -> Cell {
    if s.is_empty() {
        Cell::Blank
    } else {
        Cell::Text(s.to_owned())
    }
}

fn opt_text(s: Option<&str>) -> Cell {
    s.map_or(Cell::Blank, text)
}

/// The formats the cells use.
struct Formats {
    header: Format,
    title: Format,
    whole: Format,
    hours: Format,
    money: Format,
    share: Format,
}

impl Formats {
    fn new(currency: Currency) -> Formats {
        // Excel's currency formats with the locale of the currency's country (804 zh-CN, 409
        // en-US), so the symbol shows whatever the reader's own locale.
        let money = match currency {
            Currency::Cny => "[$¥-804]#,##0.00",
            Currency::Usd => "[$$-409]#,##0.00",
        };
        Formats {
            header: Format::new().set_bold().set_text_wrap(),
            title: Format::new().set_bold(),
            whole: Format::new().set_num_format("0"),
            hours: Format::new().set_num_format("#,##0.00"),
            money: Format::new().set_num_format(money),
            share: Format::new().set_num_format("0.0%"),
        }
    }
}

/// Writes a table's header at `row` and its rows below; returns the row after the last.
fn table(
    sheet: &mut Worksheet,
    f: &Formats,
    widths: &mut Vec<usize>,
    row: u32,
    header: &[&str],
    rows: Vec<Vec<Cell>>,
) -> Result<u32, WorkbookError> {
    for (c, h) in header.iter().enumerate() {
        let col = col_num(c)?;
        sheet.write_string_with_format(row, col, *h, &f.header)?;
        widen(widths, c, h);
    }
    let mut r = row;
    for cells in rows {
        r = r.saturating_add(1);
        for (c, cell) in cells.into_iter().enumerate() {
            let col = col_num(c)?;
            match cell {
                Cell::Text(s) => {
                    let s = cut(&s);
                    widen(widths, c, s);
                    sheet.write_string(r, col, s)?;
                }
                Cell::Whole(x) => number(sheet, r, col, x, &f.whole)?,
                Cell::Hours(x) => number(sheet, r, col, x, &f.hours)?,
                Cell::Money(x) => {
                    widen(widths, c, "¥ 000,000.00");
                    number(sheet, r, col, x, &f.money)?;
                }
                Cell::Share(x) => number(sheet, r, col, x, &f.share)?,
                Cell::Number(x) => {
                    if x.is_finite() {
                        sheet.write_number(r, col, x)?;
                    }
                }
                Cell::Bool(b) => {
                    sheet.write_boolean(r, col, b)?;
                }
                Cell::Blank => {}
            }
        }
    }
    Ok(r.saturating_add(1))
}

fn number(
    sheet: &mut Worksheet,
    row: u32,
    col: u16,
    x: f64,
    format: &Format,
) -> Result<(), WorkbookError> {
    // A budget holds only finite figures (`Budget::validate`); anything else is left blank.
    if x.is_finite() {
        sheet.write_number_with_format(row, col, x, format)?;
    }
    Ok(())
}

fn col_num(c: usize) -> Result<u16, WorkbookError> {
    u16::try_from(c).map_err(|_| WorkbookError("too many columns".to_owned()))
}

/// `s` cut to what a cell holds.
fn cut(s: &str) -> &str {
    match s.char_indices().nth(MAX_CELL_CHARS) {
        Some((at, _)) => s.get(..at).unwrap_or(s),
        None => s,
    }
}

/// Display width of `s` in character cells: CJK characters take two.
fn width_of(s: &str) -> usize {
    s.chars()
        .map(|c| if c as u32 >= 0x1100 { 2 } else { 1 })
        .sum()
}

fn widen(widths: &mut Vec<usize>, c: usize, s: &str) {
    if widths.len() <= c {
        widths.resize(c + 1, 0);
    }
    if let Some(w) = widths.get_mut(c) {
        *w = (*w).max(width_of(s));
    }
}

fn finish(sheet: &mut Worksheet, widths: &[usize]) -> Result<(), WorkbookError> {
    for (c, w) in widths.iter().enumerate() {
        let width = (*w as f64 + 2.0).clamp(6.0, 60.0);
        sheet.set_column_width(col_num(c)?, width)?;
    }
    Ok(())
}

/// A header cell with its unit: `Rent (CNY)`, `租金（CNY）`.
fn with_unit(lang: SheetLanguage, name: &str, unit: &str) -> String {
    match lang {
        SheetLanguage::En => format!("{name} ({unit})"),
        SheetLanguage::Zh => format!("{name}（{unit}）"),
    }
}

/// The budget as an `.xlsx` workbook with sheet names and headers in `lang`; `catalog` is the
/// one the budget was priced against (for each offer's estimate note).
pub fn budget_xlsx(
    b: &Budget,
    catalog: &Catalog,
    lang: SheetLanguage,
) -> Result<Vec<u8>, WorkbookError> {
    let l = lang;
    let f = Formats::new(b.currency);
    let cur = b.currency.code();
    let money = |en: &str, zh: &str| with_unit(l, l.pick(en, zh), cur);
    let hours = |en: &str, zh: &str| with_unit(l, l.pick(en, zh), l.pick("h", "小时"));
    let [ranking, breakdown, hybrid, sources] = sheet_names(l);
    let mut book = Workbook::new();

    // 1. The ranking.
    {
        let header = [
            l.pick("Rank", "排名").to_owned(),
            l.pick("Offer", "方案").to_owned(),
            l.pick("Provider", "服务商").to_owned(),
            "GPU".to_owned(),
            l.pick("GPUs", "GPU 数").to_owned(),
            l.pick("Tenancy", "租用方式").to_owned(),
            l.pick("Billing", "计费方式").to_owned(),
            l.pick("Region class", "地域类别").to_owned(),
            l.pick("Feasible", "可行").to_owned(),
            l.pick("VRAM fit", "显存是否够用").to_owned(),
            hours("Expected hours", "预计耗时"),
            hours("P90 hours", "P90 耗时"),
            with_unit(
                l,
                l.pick("Deadline miss probability", "错过截止时间的概率"),
                "%",
            ),
            money("Expected total", "预计总成本"),
            money("P90 total", "P90 总成本"),
            l.pick("Spot policy", "竞价策略").to_owned(),
            l.pick("Price date", "价格日期").to_owned(),
        ];
        let rows = b
            .options
            .iter()
            .map(|r| {
                vec![
                    Cell::Whole(r.rank as f64),
                    text(&r.offer_id),
                    text(&r.provider),
                    text(&r.gpu),
                    Cell::Whole(f64::from(r.gpu_count)),
                    text(&r.tenancy),
                    text(&r.billing_mode),
                    text(&r.region_class),
                    Cell::Bool(r.feasible),
                    text(&r.vram_fit),
                    Cell::Hours(r.hours_expected),
                    Cell::Hours(r.hours_p90),
                    r.deadline_miss_probability.map_or(Cell::Blank, Cell::Share),
                    Cell::Money(r.total_expected),
                    Cell::Money(r.total_p90),
                    opt_text(r.policy.as_deref()),
                    text(&r.price_as_of),
                ]
            })
            .collect();
        table_sheet(&mut book, ranking, &f, &header, rows, true)?;
    }

    // 2. The cost breakdown.
    {
        let header = [
            l.pick("Rank", "排名").to_owned(),
            l.pick("Offer", "方案").to_owned(),
            money("Rent", "租金"),
            money("Storage", "存储"),
            money("Egress", "流量"),
            money("Time cost", "时间成本"),
            money("Risk cost", "风险成本"),
            money("Expected total", "预计总成本"),
            money("P90 total", "P90 总成本"),
        ];
        let rows = b
            .options
            .iter()
            .map(|r| {
                vec![
                    Cell::Whole(r.rank as f64),
                    text(&r.offer_id),
                    Cell::Money(r.rent),
                    Cell::Money(r.storage),
                    Cell::Money(r.egress),
                    Cell::Money(r.time_cost),
                    Cell::Money(r.risk_cost),
                    Cell::Money(r.total_expected),
                    Cell::Money(r.total_p90),
                ]
            })
            .collect();
        table_sheet(&mut book, breakdown, &f, &header, rows, true)?;
    }

    // 3. The hybrid plan.
    {
        let header = [
            l.pick("Phase", "阶段").to_owned(),
            l.pick("Offer", "方案").to_owned(),
            hours("Hours", "时长"),
            l.pick("Spot policy", "竞价策略").to_owned(),
            money("Cost", "费用"),
        ];
        let mut rows: Vec<Vec<Cell>> = b
            .hybrid
            .iter()
            .map(|p| {
                vec![
                    text(&p.phase),
                    opt_text(p.offer_id.as_deref()),
                    Cell::Hours(p.hours),
                    opt_text(p.policy.as_deref()),
                    Cell::Money(p.cost),
                ]
            })
            .collect();
        if let Some(total) = b.hybrid_total {
            rows.push(vec![
                text(l.pick("Total", "合计")),
                Cell::Blank,
                Cell::Blank,
                Cell::Blank,
                Cell::Money(total),
            ]);
        }
        if rows.is_empty() {
            rows.push(vec![text(
                l.pick("No hybrid plan for this task.", "此任务没有混合方案。"),
            )]);
        }
        table_sheet(&mut book, hybrid, &f, &header, rows, false)?;
    }

    // 4. Assumptions, price dates and sources.
    {
        let sheet = book.add_worksheet();
        sheet.set_name(sources)?;
        let mut widths = Vec::new();
        let recommendation = match &b.decision.recommended_offer {
            Some(o) => format!("{} {o}", b.decision.choice),
            None => b.decision.choice.clone(),
        };
        let basis = vec![
            vec![text(l.pick("Task", "任务")), text(&b.task.name)],
            vec![text(l.pick("Currency", "币种")), text(cur)],
            vec![
                text(l.pick("Yuan per US dollar", "美元兑人民币汇率")),
                Cell::Number(b.cny_per_usd),
            ],
            vec![
                text(l.pick("Monte Carlo seed", "蒙特卡洛随机种子")),
                Cell::Number(b.seed as f64),
            ],
            vec![
                text(l.pick("Trials per offer", "每个方案的模拟次数")),
                Cell::Whole(f64::from(b.trials)),
            ],
            vec![
                text(l.pick("Price ages counted to", "价格天数计算截至")),
                opt_text(b.today.as_deref()),
            ],
            vec![
                text(l.pick("Price dates", "价格日期")),
                text(&b.price_dates.join(", ")),
            ],
            vec![
                text(l.pick("Recommendation", "推荐")),
                text(&recommendation),
            ],
        ];
        let mut row = table(
            sheet,
            &f,
            &mut widths,
            0,
            &[l.pick("Basis", "依据"), l.pick("Value", "取值")],
            basis,
        )?;
        row = row.saturating_add(1);
        sheet.write_string_with_format(
            row,
            0,
            l.pick("Price of each offer", "各方案的价格"),
            &f.title,
        )?;
        let by_id = catalog.by_id();
        let note = |id: &str| by_id.get(id).and_then(|o| o.estimate_note.clone());
        let prices = b
            .options
            .iter()
            .map(|r| {
                vec![
                    Cell::Whole(r.rank as f64),
                    text(&r.offer_id),
                    text(&r.provider),
                    text(&r.price_as_of),
                    r.price_age_days
                        .map_or(Cell::Blank, |d| Cell::Whole(f64::from(d))),
                    opt_text(r.price_evidence.as_deref()),
                    Cell::Bool(r.price_is_estimate),
                    opt_text(note(&r.offer_id).as_deref()),
                    text(&r.price_source),
                ]
            })
            .collect();
        let age = with_unit(l, l.pick("Price age", "价格天数"), l.pick("days", "天"));
        row = table(
            sheet,
            &f,
            &mut widths,
            row.saturating_add(1),
            &[
                l.pick("Rank", "排名"),
                l.pick("Offer", "方案"),
                l.pick("Provider", "服务商"),
                l.pick("Price date", "价格日期"),
                &age,
                l.pick("Evidence", "价格依据"),
                l.pick("Estimate", "估算"),
                l.pick("Estimate note", "估算说明"),
                l.pick("Source", "来源"),
            ],
            prices,
        )?;
        row = row.saturating_add(1);
        sheet.write_string_with_format(row, 0, l.pick("Assumptions", "假设"), &f.title)?;
        let assumptions = b
            .assumptions
            .iter()
            .map(|a| vec![text(&a.id), text(&a.value), text(&a.source)])
            .collect();
        table(
            sheet,
            &f,
            &mut widths,
            row.saturating_add(1),
            &[
                l.pick("Assumption", "假设项"),
                l.pick("Value", "取值"),
                l.pick("Source", "来源"),
            ],
            assumptions,
        )?;
        finish(sheet, &widths)?;
    }

    let (year, month, day) = b
        .today
        .as_deref()
        .and_then(|t| PriceDate::parse(t).ok())
        .map_or((2000, 1, 1), |d| d.ymd());
    let created = ExcelDateTime::from_ymd(year, month, day)
        .or_else(|_| ExcelDateTime::from_ymd(2000, 1, 1))?;
    let title = match b.task.name.as_str() {
        "" => l.pick("gpufare budget", "gpufare 预算").to_owned(),
        name => format!("{}{name}", l.pick("gpufare budget: ", "gpufare 预算：")),
    };
    book.set_properties(
        &DocProperties::new()
            .set_title(title)
            .set_author("gpufare")
            .set_creation_datetime(&created),
    );
    Ok(book.save_to_buffer()?)
}

/// A sheet named `name` holding one table from its first row, the header frozen; with `filter`,
/// an autofilter over the table when it has rows.
fn table_sheet(
    book: &mut Workbook,
    name: &str,
    f: &Formats,
    header: &[String],
    rows: Vec<Vec<Cell>>,
    filter: bool,
) -> Result<(), WorkbookError> {
    let sheet = book.add_worksheet();
    sheet.set_name(name)?;
    let mut widths = Vec::new();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let end = table(sheet, f, &mut widths, 0, &header, rows)?;
    sheet.set_freeze_panes(1, 0)?;
    if filter && end > 1 {
        let last = col_num(header.len().saturating_sub(1))?;
        sheet.autofilter(0, 0, end.saturating_sub(1), last)?;
    }
    finish(sheet, &widths)
}
