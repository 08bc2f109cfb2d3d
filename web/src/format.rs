//! Numbers as a person reads them, in the chosen language: money with its currency, hours and
//! percentages with their units.

use gpufare_core::Currency;
use gpufare_core::numbers::money::{Money, group_thousands};
use rust_decimal::Decimal;

use crate::vocab::Lang;

/// Money rounded to the minor unit with thousands separators and the currency.
pub fn money(lang: Lang, m: &Money) -> String {
    amount(lang, m.rounded(), m.currency)
}

/// A decimal amount in a currency.
pub fn amount(lang: Lang, value: Decimal, currency: Currency) -> String {
    let mut v = value.round_dp(2);
    v.rescale(2);
    let digits = group_thousands(&v.to_string());
    format!("{digits} {}", currency_name(lang, currency))
}

/// A currency's name as amounts show it: `CNY` / `元`, `USD` / `美元`.
pub fn currency_name(lang: Lang, currency: Currency) -> &'static str {
    match (lang, currency) {
        (Lang::En, c) => c.code(),
        (Lang::Zh, Currency::Cny) => "元",
        (Lang::Zh, Currency::Usd) => "美元",
    }
}

/// Hours with one decimal below 100 and none above, e.g. `7.5 h` / `7.5 小时`.
pub fn hours(lang: Lang, h: f64) -> String {
    with_hours(lang, hours_number(h))
}

/// The number of [`hours`] without its unit: `∞` for a job that never finishes.
pub fn hours_number(h: f64) -> String {
    if !h.is_finite() || h >= 9_999_999.0 {
        "∞".to_owned()
    } else if h >= 100.0 {
        group_thousands(&format!("{h:.0}"))
    } else {
        format!("{h:.1}")
    }
}

/// Hours with two decimals below 10 (short spells and gaps), one below 1,000, else as [`hours`].
pub fn hours_fine(lang: Lang, h: f64) -> String {
    if h.is_finite() && h < 10.0 {
        with_hours(lang, format!("{h:.2}"))
    } else if h.is_finite() && h < 1000.0 {
        with_hours(lang, format!("{h:.1}"))
    } else {
        hours(lang, h)
    }
}

fn with_hours(lang: Lang, n: String) -> String {
    match lang {
        Lang::En => format!("{n} h"),
        Lang::Zh => format!("{n} 小时"),
    }
}

/// A probability as a percentage, e.g. `12.5 %`.
pub fn percent(p: f64) -> String {
    format!("{:.1} %", p * 100.0)
}

/// A plain number with up to `digits` decimals and no trailing zeros.
pub fn number(x: f64, digits: usize) -> String {
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// Milliseconds with one decimal and the unit in `lang`.
pub fn millis(lang: Lang, ms: f64) -> String {
    match lang {
        Lang::En => format!("{ms:.1} ms"),
        Lang::Zh => format!("{ms:.1} 毫秒"),
    }
}

/// A wait before a start in the unit that reads best: seconds under a minute, minutes under an
/// hour, else hours (`42 s`, `12 min`, `2.1 h`; `42 秒`, `12 分钟`, `2.1 小时`). Core gives waits
/// in hours; a median of 0.0117 h is 42 s.
pub fn wait(lang: Lang, h: f64) -> String {
    if !h.is_finite() || h < 0.0 {
        return "—".to_owned();
    }
    let (value, unit) = wait_parts(lang, h);
    format!("{value} {unit}")
}

/// [`wait`] as its number and its unit.
pub fn wait_parts(lang: Lang, h: f64) -> (String, &'static str) {
    let s = h * 3600.0;
    let short = |x: f64| number(x, if x < 10.0 { 1 } else { 0 });
    if s < 59.5 {
        (short(s), crate::vocab::pick(lang, "s", "秒"))
    } else if s < 3570.0 {
        (short(s / 60.0), crate::vocab::pick(lang, "min", "分钟"))
    } else {
        (hours_number(h), crate::vocab::pick(lang, "h", "小时"))
    }
}
