//! Money as an exact decimal amount tagged with its currency.
//!
//! Amounts are `rust_decimal::Decimal` (96-bit integer mantissa, scale up to 28), so 0.1 + 0.2 is
//! exactly 0.3 and a price of 0.526 USD/h times 1800 s is exactly 0.263 USD. Rounding happens once,
//! when a figure is shown or exported, half away from zero to the currency's minor unit.

use std::fmt;

use rust_decimal::{Decimal, RoundingStrategy};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A currency gpufare prices in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Currency {
    /// Chinese yuan (renminbi).
    #[serde(rename = "CNY")]
    Cny,
    /// US dollar.
    #[serde(rename = "USD")]
    Usd,
}

impl Currency {
    /// Every supported currency, in display order.
    pub const ALL: [Currency; 2] = [Currency::Cny, Currency::Usd];

    /// The ISO 4217 code, e.g. `CNY`.
    pub fn code(self) -> &'static str {
        match self {
            Currency::Cny => "CNY",
            Currency::Usd => "USD",
        }
    }

    /// The usual symbol: `¥` for yuan, `$` for dollars.
    pub fn symbol(self) -> &'static str {
        match self {
            Currency::Cny => "¥",
            Currency::Usd => "$",
        }
    }

    /// Decimal places of the minor unit (fen and cents: 2).
    pub fn minor_digits(self) -> u32 {
        2
    }

    /// Parses an ISO code, case-insensitively.
    pub fn from_code(code: &str) -> Option<Currency> {
        Currency::ALL
            .into_iter()
            .find(|c| c.code().eq_ignore_ascii_case(code.trim()))
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// An exact amount of money in one currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Money {
    /// The exact amount as a decimal string; never rounded by arithmetic.
    #[schemars(with = "String")]
    pub amount: Decimal,
    /// The currency the amount is in.
    pub currency: Currency,
}

impl Money {
    /// Wraps an exact amount.
    pub fn new(amount: Decimal, currency: Currency) -> Money {
        Money { amount, currency }
    }

    /// The amount rounded to the minor unit, as a plain number (exact below 2^53 cents), for
    /// documents that write money as numbers.
    pub fn number(&self) -> f64 {
        f64::try_from(self.rounded()).unwrap_or(0.0)
    }

    /// A plain number written by [`Money::number`], back as money (to the cent).
    pub fn from_number(x: f64, currency: Currency) -> Money {
        Money::billed(Decimal::from_f64_retain(x).unwrap_or_default(), currency)
    }

    /// Zero in the given currency.
    pub fn zero(currency: Currency) -> Money {
        Money::new(Decimal::ZERO, currency)
    }

    /// The amount rounded half away from zero to the currency's minor unit (what a bill shows).
    pub fn rounded(&self) -> Decimal {
        let digits = self.currency.minor_digits();
        short_round(self.amount, digits).unwrap_or_else(|| long_round(self.amount, digits))
    }

    /// An amount rounded to the minor unit of `currency`: a figure as a bill or budget shows it.
    pub fn billed(amount: Decimal, currency: Currency) -> Money {
        Money::new(Money::new(amount, currency).rounded(), currency)
    }

    /// The rounded amount as plain text with exactly the minor digits, e.g. `20036.31`.
    pub fn plain(&self) -> String {
        self.rounded().to_string()
    }

    /// The rounded amount with thousands separators and the currency code, e.g. `20,036.31 USD`.
    pub fn display(&self) -> String {
        format!(
            "{} {}",
            group_thousands(&self.plain()),
            self.currency.code()
        )
    }
}

/// [`Money::rounded`] the general way: `rust_decimal`'s rounding, then the scale set to `digits`.
fn long_round(amount: Decimal, digits: u32) -> Decimal {
    let mut r = amount.round_dp_with_strategy(digits, RoundingStrategy::MidpointAwayFromZero);
    r.rescale(digits);
    r
}

/// [`long_round`] for the amounts pricing makes (thousands per plan), with the same result
/// bit for bit: an amount already at `digits` places is kept as it is; a non-zero one with more
/// places has its mantissa divided once by the power of ten (in 64 bits where it fits), a
/// remainder of half or more rounding away from zero. `None` for the rest (zero, fewer places).
fn short_round(amount: Decimal, digits: u32) -> Option<Decimal> {
    let scale = amount.scale();
    if scale == digits {
        return Some(amount);
    }
    let drop = scale.checked_sub(digits).filter(|d| *d >= 1)?;
    let mantissa = amount.mantissa().unsigned_abs();
    if mantissa == 0 {
        return None;
    }
    // Below 2^96, and the quotient below 2^96 / 10: it fits the three 32-bit words.
    let q = match u64::try_from(mantissa) {
        Ok(m) if drop <= 19 => {
            let power = 10u64.pow(drop);
            let (q, r) = (m / power, m % power);
            u128::from(q + u64::from(r >= power / 2))
        }
        _ => {
            let power = 10u128.pow(drop);
            let (q, r) = (mantissa / power, mantissa % power);
            q + u128::from(r >= power / 2)
        }
    };
    Some(Decimal::from_parts(
        q as u32,
        (q >> 32) as u32,
        (q >> 64) as u32,
        amount.is_sign_negative(),
        digits,
    ))
}

/// Converts an exact amount from one currency to another at `cny_per_usd` yuan per US dollar.
///
/// The rate is the user's (an assumption every plan lists); the conversion is exact, and rounding
/// to cents happens where a figure is shown.
pub fn convert(amount: Decimal, from: Currency, to: Currency, cny_per_usd: Decimal) -> Decimal {
    match (from, to) {
        (Currency::Usd, Currency::Cny) => amount * cny_per_usd,
        // Validated settings keep the rate at 0.01 or more; a zero rate converts nothing.
        (Currency::Cny, Currency::Usd) => amount.checked_div(cny_per_usd).unwrap_or_default(),
        _ => amount,
    }
}

/// Inserts `,` between groups of three integer digits of a plain decimal string.
pub fn group_thousands(plain: &str) -> String {
    let (sign, rest) = match plain.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", plain),
    };
    let (int, frac) = match rest.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (rest, None),
    };
    let mut grouped = String::with_capacity(int.len() + int.len() / 3);
    for (i, ch) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// A float quantity as a decimal with 6 places (non-finite values become a huge sentinel).
///
/// The value is the float's exact binary value rounded half-to-even to 6 places. Most floats
/// take a short path with the same result: when `x x 10^6` is far enough from a midpoint that
/// the float product's own rounding cannot matter, its nearest integer is the answer, at scale
/// 6; a multiple of 1/64 is exact in 6 places and is written with as few as it needs. Zero,
/// huge values and near-midpoints take the exact path. Pricing converts hours this way many
/// thousands of times per plan; a unit test checks both paths agree bit for bit.
pub fn dec(x: f64) -> Decimal {
    // Positive zero (a deadline met, a subscription's disk): what the exact path gives.
    if x.to_bits() == 0 {
        return Decimal::ZERO;
    }
    if !x.is_finite() {
        return Decimal::from(1_000_000_000i64);
    }
    let x = x.clamp(-1e12, 1e12);
    let m = x * 1_000_000.0;
    let r = m.round_ties_even();
    let off_midpoint = ((m - r).abs() - 0.5).abs() > 1.0 / 1024.0;
    // Not a multiple of 1/64: the exact decimal of x has more than 6 places, so rounding keeps 6.
    let many_places = (x * 64.0).fract() != 0.0;
    if off_midpoint && many_places && m.abs() < 1e15 {
        return Decimal::new(r as i64, 6);
    }
    // A multiple of 1/64 (whole hours, halves): exact in 6 places, written in as few as it needs.
    if !many_places && m.abs() < 1e15 && x != 0.0 {
        return Decimal::new(m as i64, 6).normalize();
    }
    dec_exact(x)
}

/// [`dec`] the long way: the float's exact value, rounded.
fn dec_exact(x: f64) -> Decimal {
    Decimal::from_f64_retain(x).unwrap_or_default().round_dp(6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_path_of_dec_matches_the_exact_one_bit_for_bit() {
        let same = |x: f64| {
            let (a, b) = (dec(x), dec_exact(x.clamp(-1e12, 1e12)));
            assert_eq!(
                (a.serialize(), a.scale()),
                (b.serialize(), b.scale()),
                "{x:e}: {a} vs {b}"
            );
        };
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for i in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            // Hours, prices and probabilities over many magnitudes, both signs.
            let magnitude = 10f64.powi((i % 19) - 8);
            let x = (unit - 0.25) * magnitude;
            same(x);
            // Values just around 6-place midpoints and round numbers.
            let k = (state % 10_000_000) as f64;
            same((k + 0.5) / 1_000_000.0);
            same(k / 1_000_000.0);
            same(k / 64.0);
        }
        for x in [
            0.0,
            -0.0,
            1.0,
            0.1,
            0.5,
            1e-7,
            5e-7,
            1e12,
            -1e12,
            123_456.789_012_5,
            2.000_000_5,
        ] {
            same(x);
        }
    }
    #[test]
    fn the_short_rounding_to_cents_matches_the_general_one_bit_for_bit() {
        let same = |x: Decimal| {
            for digits in [0, 2, 4] {
                let (a, b) = (
                    Money::new(x, Currency::Usd).rounded(),
                    long_round(x, digits),
                );
                let a = if digits == 2 {
                    a
                } else {
                    short_round(x, digits).unwrap_or(b)
                };
                assert_eq!(
                    (a.serialize(), a.scale()),
                    (b.serialize(), b.scale()),
                    "{x} to {digits}: {a} vs {b}"
                );
            }
        };
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in 0..200_000u32 {
            let (a, b) = (next(), next());
            let scale = (a % 29) as u32;
            // Mantissas of every width: small, near 2^64, and 96-bit.
            let lo = b as u32;
            let mid = match i % 4 {
                0 => 0,
                1 => (b >> 32) as u32,
                2 => u32::MAX,
                _ => (a >> 40) as u32,
            };
            let hi = if i % 7 == 0 { (a >> 8) as u32 } else { 0 };
            let negative = a & (1 << 62) != 0;
            same(Decimal::from_parts(lo, mid, hi, negative, scale));
            // Exact midpoints and their neighbours at every drop of places.
            let drop = 1 + (a % 19) as u32;
            if drop + 2 <= 28 {
                let p = 10u64.pow(drop);
                let base = (b % (u64::MAX / p / 2).max(1)) * p;
                for m in [
                    base + p / 2 - 1,
                    base + p / 2,
                    base + p / 2 + 1,
                    base,
                    base + p - 1,
                ] {
                    let d = Decimal::from_parts(m as u32, (m >> 32) as u32, 0, negative, drop + 2);
                    same(d);
                }
            }
        }
        for x in [
            Decimal::ZERO,
            Decimal::from_parts(0, 0, 0, true, 5),
            Decimal::from_parts(5, 0, 0, true, 3),
            Decimal::from_parts(u32::MAX, u32::MAX, 0, false, 21),
            Decimal::MAX,
            Decimal::MIN,
        ] {
            same(x);
        }
    }

    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn rounds_half_away_from_zero_to_cents() {
        assert_eq!(Money::new(d("0.125"), Currency::Usd).plain(), "0.13");
        assert_eq!(Money::new(d("0.124999"), Currency::Usd).plain(), "0.12");
        assert_eq!(Money::new(d("5"), Currency::Cny).plain(), "5.00");
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(group_thousands("20036.31"), "20,036.31");
        assert_eq!(group_thousands("999.00"), "999.00");
        assert_eq!(group_thousands("1000"), "1,000");
        assert_eq!(group_thousands("-1234567.5"), "-1,234,567.5");
        assert_eq!(
            Money::new(d("1234567.891"), Currency::Usd).display(),
            "1,234,567.89 USD"
        );
    }

    #[test]
    fn currency_codes_round_trip() {
        for c in Currency::ALL {
            assert_eq!(Currency::from_code(c.code()), Some(c));
        }
        assert_eq!(Currency::from_code(" usd "), Some(Currency::Usd));
        assert_eq!(Currency::from_code("EUR"), None);
    }
}
