//! Where the user is and what they can buy: their location (which every offer's round trip is
//! counted from), the markets and providers they can buy from, whether the data is personal,
//! and round trips the probe measured from where they are.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::problem::{FieldError, Problem};
use crate::offers::places::{Markets, find_place, place_of_region};

/// The most providers a task may list in either list, and the most measured round trips.
pub const MAX_LISTED: usize = 256;

/// A round trip the probe measured from the user's location to one place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MeasuredRtt {
    /// The place measured to (a place id, e.g. `shanghai`).
    pub place: String,
    /// The median round trip, milliseconds.
    #[schemars(range(min = 0, max = 10_000))]
    pub rtt_ms: f64,
    /// The endpoint timed, `host:port`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub target: String,
}

/// Where the user is and what they can buy. Every field is optional; the default is "anywhere,
/// any provider, no location".
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Reach {
    /// Where the user (or the service's users) are: a place id, e.g. `shanghai` or `frankfurt`
    /// (`gpufare places` lists them). Round trips are counted from here; absent: each catalog
    /// row's own figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The markets the user can buy from: `both` (the default), `mainland_china`, `elsewhere`.
    #[serde(default, skip_serializing_if = "is_both")]
    pub markets: Markets,
    /// Only these providers (as the catalog names them); empty: any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub providers_only: Vec<String>,
    /// Never these providers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub providers_excluded: Vec<String>,
    /// The data holds personal information of people where the user is: sending it to another
    /// jurisdiction is a cross-border transfer under that place's law.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub personal_data: bool,
    /// Round trips measured from the user's location (a probe profile's `--rtt-regions`); they
    /// replace the table's figures for offers at those places.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measured_rtt: Vec<MeasuredRtt>,
}

fn is_both(m: &Markets) -> bool {
    *m == Markets::Both
}

impl Reach {
    /// Whether `provider` may be bought from: listed (when there is a list) and not excluded.
    /// Names compare without regard to case or surrounding spaces.
    pub fn allows_provider(&self, provider: &str) -> bool {
        let same = |p: &String| p.trim().eq_ignore_ascii_case(provider.trim());
        (self.providers_only.is_empty() || self.providers_only.iter().any(same))
            && !self.providers_excluded.iter().any(same)
    }

    /// The measured round trip to `place`, if the probe gave one.
    pub fn measured_to(&self, place: &str) -> Option<&MeasuredRtt> {
        self.measured_rtt.iter().find(|m| m.place == place)
    }

    /// Checks the location and the measured places are in the place table and the lists are
    /// bounded; the error names the field.
    pub fn validate(&self) -> Result<(), FieldError> {
        if let Some(l) = &self.location
            && find_place(l).is_none()
        {
            return Err(FieldError::new(
                "location",
                Problem::UnknownPlace { name: l.clone() },
            ));
        }
        for (name, list) in [
            ("providers_only", &self.providers_only),
            ("providers_excluded", &self.providers_excluded),
        ] {
            if list.len() > MAX_LISTED {
                return Err(FieldError::new(
                    name,
                    Problem::OutOfRange {
                        min: 0.0,
                        max: MAX_LISTED as f64,
                    },
                ));
            }
        }
        if self.measured_rtt.len() > MAX_LISTED {
            return Err(FieldError::new(
                "measured_rtt",
                Problem::OutOfRange {
                    min: 0.0,
                    max: MAX_LISTED as f64,
                },
            ));
        }
        for m in &self.measured_rtt {
            if find_place(&m.place).is_none() {
                return Err(FieldError::new(
                    "measured_rtt.place",
                    Problem::UnknownPlace {
                        name: m.place.clone(),
                    },
                ));
            }
            if !(m.rtt_ms.is_finite() && (0.0..=10_000.0).contains(&m.rtt_ms)) {
                return Err(FieldError::new(
                    "measured_rtt.rtt_ms",
                    Problem::OutOfRange {
                        min: 0.0,
                        max: 10_000.0,
                    },
                ));
            }
        }
        Ok(())
    }
}

/// Provider names typed as a list: commas (ASCII or full-width), the Chinese enumeration comma,
/// semicolons or new lines separate them; blanks are dropped.
pub fn provider_list(text: &str) -> Vec<String> {
    text.split([',', '，', '、', '\n', ';', '；'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The place a probe's region label names (`aws us-east-1`, `alibaba cn-shanghai`: the last word
/// is the provider's region id), when the place table knows the region.
pub fn place_of_label(label: &str) -> Option<&'static str> {
    let region = label.split_whitespace().last()?;
    place_of_region(region).map(|p| p.id.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_lists_include_and_exclude() {
        let mut r = Reach::default();
        assert!(r.allows_provider("AWS"));
        r.providers_only = vec!["aws ".into(), "阿里云".into()];
        assert!(r.allows_provider("AWS") && r.allows_provider("阿里云"));
        assert!(!r.allows_provider("Azure"));
        r.providers_excluded = vec!["阿里云".into()];
        assert!(!r.allows_provider("阿里云"));
    }

    #[test]
    fn provider_lists_split_on_either_languages_commas() {
        assert_eq!(
            provider_list("AWS, 阿里云，腾讯云、 Azure\n"),
            vec!["AWS", "阿里云", "腾讯云", "Azure"]
        );
        assert!(provider_list(" , ，").is_empty());
    }

    #[test]
    fn unknown_places_are_refused_by_field() {
        let r = Reach {
            location: Some("atlantis".into()),
            ..Reach::default()
        };
        assert_eq!(r.validate().unwrap_err().field, "location");
        let r = Reach {
            measured_rtt: vec![MeasuredRtt {
                place: "shanghai".into(),
                rtt_ms: f64::NAN,
                target: String::new(),
            }],
            ..Reach::default()
        };
        assert_eq!(r.validate().unwrap_err().field, "measured_rtt.rtt_ms");
    }

    #[test]
    fn probe_labels_name_places() {
        assert_eq!(place_of_label("alibaba cn-shanghai"), Some("shanghai"));
        assert_eq!(place_of_label("aws us-east-1"), Some("virginia"));
        assert_eq!(place_of_label("aws ap-east-1"), Some("hong-kong"));
        assert_eq!(place_of_label("somewhere"), None);
    }
}
