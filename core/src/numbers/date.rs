//! The date of a price: a day (`2025-11-03`) or a month (`2025-11`), never a range or a season,
//! and how old it is on a given day. The model has no clock: "today" always comes from the caller
//! (the site's browser, the command line's system date, a test's fixed day).

use std::fmt;

use jiff::civil::Date;

use crate::numbers::problem::Problem;

/// A price's date: a whole day, or a month when the source gives no day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PriceDate {
    /// The day; for a month, its first day.
    first_day: Date,
    /// Whether only the month is known.
    month_only: bool,
}

impl PriceDate {
    /// Reads `YYYY-MM-DD` or `YYYY-MM` (years 2000 to 2100); anything else is refused with
    /// [`Problem::NotADate`].
    pub fn parse(text: &str) -> Result<PriceDate, Problem> {
        let refuse = || Problem::NotADate {
            value: text.to_owned(),
        };
        let t = text.trim();
        let bytes = t.as_bytes();
        let digits = |range: std::ops::Range<usize>| {
            bytes
                .get(range.clone())
                .filter(|b| b.iter().all(u8::is_ascii_digit))
                .and_then(|_| t.get(range))
                .and_then(|s| s.parse::<i16>().ok())
        };
        let dash = |i: usize| bytes.get(i) == Some(&b'-');
        let (year, month) = match (digits(0..4), dash(4), digits(5..7)) {
            (Some(y), true, Some(m)) => (y, m),
            _ => return Err(refuse()),
        };
        if !(2000..=2100).contains(&year) {
            return Err(refuse());
        }
        let (day, month_only) = match bytes.len() {
            7 => (1, true),
            10 if dash(7) => (digits(8..10).ok_or_else(refuse)?, false),
            _ => return Err(refuse()),
        };
        let month = i8::try_from(month).map_err(|_| refuse())?;
        let day = i8::try_from(day).map_err(|_| refuse())?;
        let first_day = Date::new(year, month, day).map_err(|_| refuse())?;
        Ok(PriceDate {
            first_day,
            month_only,
        })
    }

    /// Whether only the month is known.
    pub fn month_only(&self) -> bool {
        self.month_only
    }

    /// Year, month and day as unsigned numbers (a month's first day when only the month is known).
    pub fn ymd(&self) -> (u16, u8, u8) {
        let d = self.first_day;
        // `parse` keeps years in 2000..=2100, so every part is positive.
        (
            d.year().unsigned_abs(),
            d.month().unsigned_abs(),
            d.day().unsigned_abs(),
        )
    }

    /// Whole days from this date to `today` (0 when it is today or later). A month counts from
    /// its first day: the oldest the price can be, so a stale price is never called fresh.
    pub fn age_days(&self, today: PriceDate) -> u32 {
        // Date minus date is a span in days (jiff's largest unit for civil dates).
        let days = (today.first_day - self.first_day).get_days();
        u32::try_from(days).unwrap_or(0)
    }

    /// Whether this date falls after `other` (a month is after a day only when it starts later).
    pub fn is_after(&self, other: PriceDate) -> bool {
        self.first_day > other.first_day
    }
}

impl fmt::Display for PriceDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.month_only {
            write!(
                f,
                "{:04}-{:02}",
                self.first_day.year(),
                self.first_day.month()
            )
        } else {
            write!(
                f,
                "{:04}-{:02}-{:02}",
                self.first_day.year(),
                self.first_day.month(),
                self.first_day.day()
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> PriceDate {
        PriceDate::parse(s).unwrap()
    }

    #[test]
    fn days_and_months_are_read_and_written_back() {
        assert_eq!(d("2025-11-03").to_string(), "2025-11-03");
        assert_eq!(d("2025-11").to_string(), "2025-11");
        assert!(d("2025-11").month_only());
        assert!(!d(" 2024-02-29 ").month_only());
    }

    #[test]
    fn ranges_seasons_and_impossible_days_are_refused() {
        for bad in [
            "2025-H2/2026",
            "2026",
            "2025-13",
            "2025-02-30",
            "2023-02-29",
            "25-11-03",
            "2025-1-3",
            "2025-11-03T00:00",
            "1999-12",
            "user",
            "",
            "２０２５-11",
        ] {
            assert_eq!(
                PriceDate::parse(bad),
                Err(Problem::NotADate {
                    value: bad.to_owned()
                }),
                "{bad}"
            );
        }
    }

    #[test]
    fn age_counts_whole_days_and_a_month_from_its_first_day() {
        let today = d("2026-12-05");
        assert_eq!(d("2026-12-05").age_days(today), 0);
        assert_eq!(d("2026-12-04").age_days(today), 1);
        assert_eq!(d("2025-12-05").age_days(today), 365);
        assert_eq!(d("2024-12-05").age_days(today), 730);
        assert_eq!(d("2026-06").age_days(today), 187);
        // A date after today is 0 days old, never negative.
        assert_eq!(d("2027-01").age_days(today), 0);
        assert!(d("2026-12").is_after(d("2026-11-30")));
        assert!(!d("2026-12").is_after(d("2026-12-01")));
    }
}
