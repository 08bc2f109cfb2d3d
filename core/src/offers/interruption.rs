//! How an offer's capacity is taken away: how often (in the form a user has the figure), how long
//! it stays away, how much warning comes first, and where those figures come from.
//!
//! Three forms of the rate are accepted, one per offer:
//!
//! - `interruption_per_hour`: preemptions per hour of *running* (what a trace measures);
//! - `mtbi_hours`: mean running hours between interruptions (the reciprocal);
//! - `interruption_per_month`: the probability of at least one interruption in a month of
//!   running, as provider advisories publish it (AWS Spot Instance Advisor bands), turned into a
//!   Poisson rate λ = -ln(1 - p) / 730.
//!
//! The monthly form cannot express more than about 0.05 per hour; public single-node traces show
//! GPU spot preempted 0.3 to 0.75 times per running hour, so the hourly forms accept up to 60 per
//! hour (one a minute).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::problem::{FieldError, Problem};
use crate::offers::billing::HOURS_PER_MONTH;

/// The highest rate accepted, per running hour (one interruption a minute).
pub const MAX_RATE_PER_HOUR: f64 = 60.0;

/// The longest capacity gap accepted, hours (a year).
pub const MAX_GAP_HOURS: f64 = 8_760.0;

/// The longest notice accepted, seconds (a day).
pub const MAX_NOTICE_SECONDS: f64 = 86_400.0;

/// The longest protection period accepted, hours (a week; defined-duration blocks were at most
/// six hours, Alibaba Cloud's protection period one hour).
pub const MAX_PROTECTION_HOURS: f64 = 168.0;

/// Preemptions per running hour pooled over the two public V100 spot traces of the *Can't Be
/// Late* dataset (AWS p3.2xlarge, us-east-1c and us-west-2b, April 2023): 85 preemptions in
/// 196.4 running hours. The default for a spot offer without better evidence.
pub const TRACE_POOLED_RATE_PER_HOUR: f64 = 0.433;

/// The better of those two zones (us-west-2b: 44 preemptions in 140.7 running hours).
pub const TRACE_BEST_RATE_PER_HOUR: f64 = 0.313;

/// The worse of those two zones (us-east-1c: 41 preemptions in 55.8 running hours).
pub const TRACE_WORST_RATE_PER_HOUR: f64 = 0.735;

/// Mean hours without an instance after a preemption, pooled over the same two traces.
pub const TRACE_POOLED_GAP_HOURS: f64 = 1.83;

/// The warning a provider documents before it takes a spot instance back, seconds: AWS two
/// minutes (EC2 spot instance interruption notices), GCP and Azure thirty seconds (Compute
/// Engine preemption process; Azure Scheduled Events for spot VMs). Others: none assumed.
pub fn documented_notice_seconds(provider: &str) -> f64 {
    match provider.trim().to_ascii_lowercase().as_str() {
        "aws" => 120.0,
        "gcp" | "google" | "google cloud" | "azure" => 30.0,
        _ => 0.0,
    }
}

/// What a spot offer is assumed to do without evidence of its own: the rate and gap pooled from
/// the public GPU traces, the range between their two zones, and the provider's documented
/// notice.
pub fn assumed_spot(provider: &str) -> Interruptions {
    Interruptions {
        interruption_per_hour: Some(TRACE_POOLED_RATE_PER_HOUR),
        interruption_low_per_hour: Some(TRACE_BEST_RATE_PER_HOUR),
        interruption_high_per_hour: Some(TRACE_WORST_RATE_PER_HOUR),
        capacity_gap_hours: Some(TRACE_POOLED_GAP_HOURS),
        notice_seconds: Some(documented_notice_seconds(provider)),
        interruption_source: Some(
            "assumed: rate and gap pooled from the public V100 spot traces (Wu et al., NSDI 2024), notice as documented by the provider"
                .to_owned(),
        ),
        ..Interruptions::default()
    }
}

/// Converts a monthly interruption probability to an hourly Poisson rate: -ln(1-p)/730.
pub fn hourly_rate(p_month: f64) -> f64 {
    if p_month <= 0.0 {
        0.0
    } else {
        -libm::log(1.0 - p_month) / HOURS_PER_MONTH
    }
}

/// Which form an offer's interruption rate was given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RateForm {
    /// Interruptions per running hour.
    PerHour,
    /// Mean running hours between interruptions.
    Mtbi,
    /// Probability of an interruption within a month of running.
    PerMonth,
}

identifiers!(RateForm {
    PerHour => "per_hour",
    Mtbi => "mtbi",
    PerMonth => "per_month",
});

/// An offer's interruption figures, as written in its catalog row (every field optional; an offer
/// without any rate is never interrupted).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Interruptions {
    /// Probability of an interruption within a month of running, in [0, 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption_per_month: Option<f64>,
    /// Interruptions per hour of running, 0 to 60.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 60))]
    pub interruption_per_hour: Option<f64>,
    /// Mean running hours between interruptions, above 1/60.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtbi_hours: Option<f64>,
    /// The lowest rate the evidence supports, per running hour (shown next to the central one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption_low_per_hour: Option<f64>,
    /// The highest rate the evidence supports, per running hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption_high_per_hour: Option<f64>,
    /// Mean hours without an instance after a preemption (lost capacity: not billed, but the
    /// clock runs), 0 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_gap_hours: Option<f64>,
    /// Warning before a preemption, seconds (AWS 120, GCP and Azure 30, many marketplaces 0);
    /// 0 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice_seconds: Option<f64>,
    /// Hours after each start in which the provider promises never to reclaim the instance
    /// (Alibaba Cloud's preemptible instances: 1 hour by default; "defined duration" blocks):
    /// 0 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protection_hours: Option<f64>,
    /// Where the rate, gap and notice come from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption_source: Option<String>,
    /// A preemption trace for this offer: a file path, resolved by the command-line tool next to
    /// the catalog file (the site attaches traces with a file picker instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// The id of the uninterruptible offer to fall back to; when absent, the cheapest
    /// pay-as-you-go offer of the same provider, GPU, count and tenancy (same region first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

impl Interruptions {
    /// The form the rate was given in, if any.
    pub fn form(&self) -> Option<RateForm> {
        if self.interruption_per_hour.is_some() {
            Some(RateForm::PerHour)
        } else if self.mtbi_hours.is_some() {
            Some(RateForm::Mtbi)
        } else if self.interruption_per_month.is_some() {
            Some(RateForm::PerMonth)
        } else {
            None
        }
    }

    /// Interruptions per running hour, whichever form was given (0 when none).
    pub fn rate_per_hour(&self) -> f64 {
        match self.form() {
            Some(RateForm::PerHour) => self.interruption_per_hour.unwrap_or(0.0),
            Some(RateForm::Mtbi) => self.mtbi_hours.map_or(0.0, |m| 1.0 / m),
            Some(RateForm::PerMonth) => hourly_rate(self.interruption_per_month.unwrap_or(0.0)),
            None => 0.0,
        }
    }

    /// Whether the offer is ever interrupted.
    pub fn interrupts(&self) -> bool {
        self.rate_per_hour() > 0.0
    }

    /// The range of rates the evidence supports, per running hour, when one is given.
    pub fn range(&self) -> Option<(f64, f64)> {
        match (
            self.interruption_low_per_hour,
            self.interruption_high_per_hour,
        ) {
            (None, None) => None,
            (low, high) => {
                let rate = self.rate_per_hour();
                Some((low.unwrap_or(rate), high.unwrap_or(rate)))
            }
        }
    }

    /// Mean hours without an instance after a preemption.
    pub fn gap_hours(&self) -> f64 {
        self.capacity_gap_hours.unwrap_or(0.0)
    }

    /// The notice before a preemption, hours.
    pub fn notice_hours(&self) -> f64 {
        self.notice_seconds.unwrap_or(0.0) / 3600.0
    }

    /// Hours after each start during which the instance is never reclaimed.
    pub fn protection(&self) -> f64 {
        self.protection_hours.unwrap_or(0.0)
    }

    /// Sets the rate in one form, clearing the others (so exactly one is ever given).
    pub fn set_rate(&mut self, form: RateForm, value: Option<f64>) {
        self.interruption_per_hour = None;
        self.mtbi_hours = None;
        self.interruption_per_month = None;
        match form {
            RateForm::PerHour => self.interruption_per_hour = value,
            RateForm::Mtbi => self.mtbi_hours = value,
            RateForm::PerMonth => self.interruption_per_month = value,
        }
    }

    /// Checks ranges and that the rate is given in one form only; the error names the field.
    pub fn validate(&self) -> Result<(), FieldError> {
        let fail = |field: &str, problem: Problem| Err(FieldError::new(field, problem));
        let given = [
            self.interruption_per_hour.is_some(),
            self.mtbi_hours.is_some(),
            self.interruption_per_month.is_some(),
        ];
        if given.iter().filter(|g| **g).count() > 1 {
            let field = if self.interruption_per_hour.is_some() {
                "interruption_per_hour"
            } else {
                "mtbi_hours"
            };
            return fail(field, Problem::OneRateForm);
        }
        if let Some(p) = self.interruption_per_month
            && !(0.0..1.0).contains(&p)
        {
            return fail("interruption_per_month", Problem::Probability);
        }
        let rate_range = Problem::OutOfRange {
            min: 0.0,
            max: MAX_RATE_PER_HOUR,
        };
        for (field, value) in [
            ("interruption_per_hour", self.interruption_per_hour),
            ("interruption_low_per_hour", self.interruption_low_per_hour),
            (
                "interruption_high_per_hour",
                self.interruption_high_per_hour,
            ),
        ] {
            if let Some(v) = value
                && !(v.is_finite() && (0.0..=MAX_RATE_PER_HOUR).contains(&v))
            {
                return fail(field, rate_range.clone());
            }
        }
        if let Some(m) = self.mtbi_hours
            && !(m.is_finite() && (1.0 / MAX_RATE_PER_HOUR..=1e6).contains(&m))
        {
            return fail(
                "mtbi_hours",
                Problem::OutOfRange {
                    min: 1.0 / MAX_RATE_PER_HOUR,
                    max: 1e6,
                },
            );
        }
        if let Some((low, high)) = self.range() {
            let rate = self.rate_per_hour();
            // A tolerance for rates converted from another form.
            let slack = 1e-9 * rate.max(1.0);
            if low > rate + slack {
                return fail("interruption_low_per_hour", Problem::RangeOrder);
            }
            if high + slack < rate {
                return fail("interruption_high_per_hour", Problem::RangeOrder);
            }
        }
        if let Some(g) = self.capacity_gap_hours
            && !(g.is_finite() && (0.0..=MAX_GAP_HOURS).contains(&g))
        {
            return fail(
                "capacity_gap_hours",
                Problem::OutOfRange {
                    min: 0.0,
                    max: MAX_GAP_HOURS,
                },
            );
        }
        if let Some(n) = self.notice_seconds
            && !(n.is_finite() && (0.0..=MAX_NOTICE_SECONDS).contains(&n))
        {
            return fail(
                "notice_seconds",
                Problem::OutOfRange {
                    min: 0.0,
                    max: MAX_NOTICE_SECONDS,
                },
            );
        }
        if let Some(p) = self.protection_hours
            && !(p.is_finite() && (0.0..=MAX_PROTECTION_HOURS).contains(&p))
        {
            return fail(
                "protection_hours",
                Problem::OutOfRange {
                    min: 0.0,
                    max: MAX_PROTECTION_HOURS,
                },
            );
        }
        for (field, text) in [("trace", &self.trace), ("fallback", &self.fallback)] {
            if text.as_deref().is_some_and(|t| t.trim().is_empty()) {
                return fail(field, Problem::Required);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_gives_the_same_rate() {
        let per_hour = Interruptions {
            interruption_per_hour: Some(0.5),
            ..Interruptions::default()
        };
        let mtbi = Interruptions {
            mtbi_hours: Some(2.0),
            ..Interruptions::default()
        };
        // The largest monthly probability below 1.
        let per_month = Interruptions {
            interruption_per_month: Some(1.0 - f64::EPSILON / 2.0),
            ..Interruptions::default()
        };
        assert_eq!(per_hour.rate_per_hour(), 0.5);
        assert_eq!(mtbi.rate_per_hour(), 0.5);
        // The monthly form saturates at about 0.05 per hour.
        assert!(per_month.validate().is_ok());
        assert!((per_month.rate_per_hour() - 0.0503).abs() < 1e-3);
        assert_eq!(Interruptions::default().rate_per_hour(), 0.0);
        assert!(!Interruptions::default().interrupts());
    }

    #[test]
    fn rates_up_to_one_a_minute_are_accepted_and_forms_do_not_mix() {
        let mut i = Interruptions::default();
        i.set_rate(RateForm::PerHour, Some(6.0));
        assert!(i.validate().is_ok());
        i.set_rate(RateForm::PerHour, Some(61.0));
        assert_eq!(i.validate().unwrap_err().field, "interruption_per_hour");
        i.set_rate(RateForm::Mtbi, Some(0.01));
        assert_eq!(i.validate().unwrap_err().field, "mtbi_hours");
        i.interruption_per_hour = Some(1.0);
        i.mtbi_hours = Some(1.0);
        assert_eq!(i.validate().unwrap_err().problem, Problem::OneRateForm);
        i.set_rate(RateForm::PerMonth, Some(1.0));
        assert_eq!(i.validate().unwrap_err().problem, Problem::Probability);
    }

    #[test]
    fn the_range_must_hold_the_rate() {
        let i = Interruptions {
            interruption_per_hour: Some(0.3),
            interruption_low_per_hour: Some(0.4),
            ..Interruptions::default()
        };
        assert_eq!(i.validate().unwrap_err().field, "interruption_low_per_hour");
        let i = Interruptions {
            interruption_per_hour: Some(0.3),
            interruption_low_per_hour: Some(0.0005),
            interruption_high_per_hour: Some(0.75),
            capacity_gap_hours: Some(0.84),
            notice_seconds: Some(120.0),
            ..Interruptions::default()
        };
        assert!(i.validate().is_ok());
        assert_eq!(i.range(), Some((0.0005, 0.75)));
        assert!((i.notice_hours() - 1.0 / 30.0).abs() < 1e-12);
        let bad_gap = Interruptions {
            capacity_gap_hours: Some(-1.0),
            ..i.clone()
        };
        assert_eq!(bad_gap.validate().unwrap_err().field, "capacity_gap_hours");
        let bad_notice = Interruptions {
            notice_seconds: Some(f64::NAN),
            ..i
        };
        assert_eq!(bad_notice.validate().unwrap_err().field, "notice_seconds");
    }
}
