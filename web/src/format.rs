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
