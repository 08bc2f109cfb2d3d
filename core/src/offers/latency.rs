//! Round-trip time between two places: the published measurement when `core/data/latency.csv`
//! has the pair, else a line in great-circle distance fitted to those measurements by
//! `core/data/derive_latency.py`.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::offers::places::{Place, find_place};

const LATENCY_CSV: &str = include_str!("../../data/latency.csv");

/// Round trip assumed at zero distance, ms (the fit's intercept; `derive_latency.py`).
pub const FIT_BASE_MS: f64 = 10.06;
/// Round trip added per 1000 km of great-circle distance, ms (the fit's slope).
pub const FIT_MS_PER_1000_KM: f64 = 15.964;
/// The mean Earth radius (IUGG), km.
const EARTH_RADIUS_KM: f64 = 6371.0088;

/// Where a round-trip time comes from, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttBasis {
    /// Measured from the user's location by the probe (`--rtt`, `--rtt-regions`).
    Measured,
    /// A published measurement between the two places (`core/data/latency.csv`).
    Published,
    /// Estimated from the great-circle distance by the fitted line.
    Distance,
    /// The catalog row's own figure (no user location, or an offer with no fixed place).
    Catalog,
}

identifiers!(RttBasis {
    Measured => "measured",
    Published => "published",
    Distance => "distance",
    Catalog => "catalog",
});

/// A round-trip time and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RoundTrip {
    /// Milliseconds.
    pub ms: f64,
    /// Where the figure comes from.
    pub basis: RttBasis,
    /// The published source's id, the measured endpoint, or the distance in km.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// One published measurement, the mean of both directions when both are published.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedPair {
    /// One place id.
    pub a: String,
    /// The other.
    pub b: String,
    /// Round trip, ms.
    pub ms: f64,
    /// The source id (see the file's header).
    pub source: String,
}

#[derive(Deserialize)]
struct Row {
    from: String,
    to: String,
    rtt_ms: f64,
    source: String,
}

/// Every published pair (each unordered pair once).
pub fn published_pairs() -> &'static [PublishedPair] {
    static PAIRS: OnceLock<Vec<PublishedPair>> = OnceLock::new();
    PAIRS.get_or_init(|| parse_pairs(LATENCY_CSV))
}

fn parse_pairs(text: &str) -> Vec<PublishedPair> {
    let mut sums: Vec<(String, String, f64, u32, String)> = Vec::new();
    let rows = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_reader(text.as_bytes())
        .into_deserialize::<Row>()
        .filter_map(Result::ok);
    for r in rows {
        let (a, b) = if r.from <= r.to {
            (r.from, r.to)
        } else {
            (r.to, r.from)
        };
        match sums.iter_mut().find(|s| s.0 == a && s.1 == b) {
            Some(s) => {
                s.2 += r.rtt_ms;
                s.3 += 1;
            }
            None => sums.push((a, b, r.rtt_ms, 1, r.source)),
        }
    }
    sums.into_iter()
        .map(|(a, b, sum, n, source)| PublishedPair {
            a,
            b,
            ms: sum / f64::from(n),
            source,
        })
        .collect()
}

/// Great-circle distance between two places, km (haversine).
pub fn great_circle_km(a: &Place, b: &Place) -> f64 {
    let rad = |d: f64| d.to_radians();
    let (lat1, lat2) = (rad(a.lat), rad(b.lat));
    let h = libm::pow(libm::sin((lat2 - lat1) / 2.0), 2.0)
        + libm::cos(lat1) * libm::cos(lat2) * libm::pow(libm::sin(rad(b.lon - a.lon) / 2.0), 2.0);
    2.0 * EARTH_RADIUS_KM * libm::asin(libm::sqrt(h).min(1.0))
}

/// The round trip the fitted line gives for `km` of great-circle distance, ms.
pub fn fitted_ms(km: f64) -> f64 {
    FIT_BASE_MS + FIT_MS_PER_1000_KM * km / 1000.0
}

/// Round-trip time between two places: published when the table has the pair, else fitted.
pub fn round_trip(from: &Place, to: &Place) -> RoundTrip {
    let (a, b) = if from.id <= to.id {
        (&from.id, &to.id)
    } else {
        (&to.id, &from.id)
    };
    if let Some(p) = published_pairs().iter().find(|p| &p.a == a && &p.b == b) {
        return RoundTrip {
            ms: round1(p.ms),
            basis: RttBasis::Published,
            note: p.source.clone(),
        };
    }
    let km = great_circle_km(from, to);
    RoundTrip {
        ms: round1(fitted_ms(km)),
        basis: RttBasis::Distance,
        note: format!("{km:.0} km"),
    }
}

/// [`round_trip`] between two place ids, when both are known.
pub fn round_trip_between(from: &str, to: &str) -> Option<RoundTrip> {
    Some(round_trip(find_place(from)?, find_place(to)?))
}

fn round1(x: f64) -> f64 {
    libm::round(x * 10.0) / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::places::places;

    #[test]
    fn every_measurement_parses_and_names_known_places() {
        let lines = LATENCY_CSV
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count();
        let parsed = csv::ReaderBuilder::new()
            .comment(Some(b'#'))
            .from_reader(LATENCY_CSV.as_bytes())
            .into_deserialize::<Row>()
            .filter(Result::is_ok)
            .count();
        assert_eq!(parsed + 1, lines, "a measurement row did not parse");
        assert!(published_pairs().len() >= 60);
        for p in published_pairs() {
            assert!(
                find_place(&p.a).is_some() && find_place(&p.b).is_some(),
                "{p:?}"
            );
            assert!(p.ms > 0.0 && p.ms < 1000.0);
        }
    }

    /// The published figures the table rests on: IBM Cloud's January 2026 dashboard gives
    /// Frankfurt to Osaka 242 ms and Osaka to Frankfurt 241 ms; gpufare uses their mean.
    #[test]
    fn a_published_pair_is_used_as_published() {
        let rt = round_trip_between("osaka", "frankfurt").unwrap();
        assert_eq!(rt.ms, 241.5);
        assert_eq!(rt.basis, RttBasis::Published);
        assert_eq!(rt.note, "ibm-vpc-2026-01");
        let hk = round_trip_between("hong-kong", "virginia").unwrap();
        assert_eq!((hk.ms, hk.note.as_str()), (202.5, "cloudping-ap-east-1"));
    }

    /// Repeats `derive_latency.py`'s least-squares fit from the same files and checks the
    /// constants in this module are what it gives.
    #[test]
    fn the_fit_constants_are_what_the_published_pairs_give() {
        let points: Vec<(f64, f64)> = published_pairs()
            .iter()
            .map(|p| {
                let (a, b) = (find_place(&p.a).unwrap(), find_place(&p.b).unwrap());
                (great_circle_km(a, b), p.ms)
            })
            .collect();
        let n = points.len() as f64;
        let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
        let my = points.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let slope = sxy / sxx;
        let base = my - slope * mx;
        assert!((base - FIT_BASE_MS).abs() < 0.005, "{base}");
        assert!(
            (slope * 1000.0 - FIT_MS_PER_1000_KM).abs() < 0.0005,
            "{slope}"
        );
    }

    #[test]
    fn unpublished_pairs_grow_with_distance() {
        let sh_hz = round_trip_between("shanghai", "hangzhou").unwrap();
        let sh_bj = round_trip_between("shanghai", "beijing").unwrap();
        let sh_fra = round_trip_between("shanghai", "frankfurt").unwrap();
        assert_eq!(sh_hz.basis, RttBasis::Distance);
        assert!(sh_hz.ms < sh_bj.ms && sh_bj.ms < sh_fra.ms);
        assert!((sh_fra.ms - fitted_ms(8900.0)).abs() < 5.0, "{sh_fra:?}");
        // Symmetric, and a place is at the intercept from itself.
        assert_eq!(round_trip_between("beijing", "shanghai").unwrap(), sh_bj);
        assert_eq!(round_trip_between("shanghai", "shanghai").unwrap().ms, 10.1);
        assert!(places().iter().all(|p| great_circle_km(p, p) == 0.0));
    }
}
