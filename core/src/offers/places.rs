//! Places: the cities a user can say they are in, where catalog regions sit, which market an
//! offer is sold in and whose data-protection law covers data kept there
//! (`core/data/places.csv`).

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::offers::offer::{Offer, RegionClass};

const PLACES_CSV: &str = include_str!("../../data/places.csv");

/// Where an offer is sold, as a buyer sees it: inside mainland China (paid in yuan, reached
/// without crossing the border, covered by its data law) or anywhere else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Market {
    /// Mainland China.
    MainlandChina,
    /// Outside mainland China (Hong Kong included).
    Elsewhere,
}

identifiers!(Market {
    MainlandChina => "mainland_china",
    Elsewhere => "elsewhere",
});

/// Which markets a task may buy from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum Markets {
    /// Both markets (the default).
    #[default]
    Both,
    /// Mainland China only.
    MainlandChina,
    /// Outside mainland China only.
    Elsewhere,
}

identifiers!(Markets {
    Both => "both",
    MainlandChina => "mainland_china",
    Elsewhere => "elsewhere",
});

impl Markets {
    /// Whether an offer sold in `market` may be bought.
    pub fn allows(self, market: Market) -> bool {
        match self {
            Markets::Both => true,
            Markets::MainlandChina => market == Market::MainlandChina,
            Markets::Elsewhere => market == Market::Elsewhere,
        }
    }
}

/// Whose data-protection law covers data kept at a place (a two-letter code; `eu` for the
/// European Union, `cn` for mainland China).
pub type Jurisdiction = String;

/// The English name of a jurisdiction code (the code itself when unknown).
pub fn jurisdiction_name(code: &str) -> &str {
    match code {
        "cn" => "mainland China",
        "hk" => "Hong Kong",
        "sg" => "Singapore",
        "jp" => "Japan",
        "kr" => "South Korea",
        "in" => "India",
        "au" => "Australia",
        "uk" => "the United Kingdom",
        "eu" => "the European Union",
        "us" => "the United States",
        "ca" => "Canada",
        "br" => "Brazil",
        "unknown" => "a host of unknown location",
        other => other,
    }
}

/// One place of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    /// Identifier, e.g. `shanghai`.
    pub id: String,
    /// English name.
    pub name_en: String,
    /// Chinese name.
    pub name_zh: String,
    /// Latitude, degrees.
    pub lat: f64,
    /// Longitude, degrees.
    pub lon: f64,
    /// Whose data law applies there.
    pub jurisdiction: Jurisdiction,
    /// Provider region ids located here.
    pub regions: Vec<String>,
    /// Whether the site offers it as the user's location.
    pub user: bool,
}

impl Place {
    /// The market an offer here is sold in.
    pub fn market(&self) -> Market {
        if self.jurisdiction == "cn" {
            Market::MainlandChina
        } else {
            Market::Elsewhere
        }
    }
}

#[derive(Deserialize)]
struct Row {
    id: String,
    name_en: String,
    name_zh: String,
    lat: f64,
    lon: f64,
    jurisdiction: String,
    regions: String,
    user: String,
}

/// Every place, in the table's order.
pub fn places() -> &'static [Place] {
    static PLACES: OnceLock<Vec<Place>> = OnceLock::new();
    PLACES.get_or_init(|| parse_places(PLACES_CSV))
}

/// Reads the place table; a row that does not parse is left out (a test checks none is).
fn parse_places(text: &str) -> Vec<Place> {
    csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_reader(text.as_bytes())
        .deserialize::<Row>()
        .filter_map(Result::ok)
        .map(|r| Place {
            id: r.id,
            name_en: r.name_en,
            name_zh: r.name_zh,
            lat: r.lat,
            lon: r.lon,
            jurisdiction: r.jurisdiction,
            regions: r.regions.split_whitespace().map(str::to_owned).collect(),
            user: r.user == "y",
        })
        .collect()
}

/// The place with identifier `id`.
pub fn find_place(id: &str) -> Option<&'static Place> {
    places().iter().find(|p| p.id == id)
}

/// The places the site offers as the user's location.
pub fn user_places() -> impl Iterator<Item = &'static Place> {
    places().iter().filter(|p| p.user)
}

/// The place a provider region id sits in, if the table knows it.
pub fn place_of_region(region_id: &str) -> Option<&'static Place> {
    places()
        .iter()
        .find(|p| p.regions.iter().any(|r| r == region_id))
}

/// The place `offer` runs in, if its region is in the table.
pub fn place_of(offer: &Offer) -> Option<&'static Place> {
    place_of_region(&offer.region.id)
}

/// The market `offer` is sold in: its place's, or else its region class's (a region outside
/// mainland China is `overseas`).
pub fn market_of(offer: &Offer) -> Market {
    match place_of(offer) {
        Some(p) => p.market(),
        None if offer.region.class == RegionClass::Overseas => Market::Elsewhere,
        None => Market::MainlandChina,
    }
}

/// Whose law covers data kept on `offer`: its place's; `cn` for a mainland region the table
/// does not place; unknown (`None`) for an overseas offer with no fixed place (a marketplace
/// host anywhere).
pub fn jurisdiction_of(offer: &Offer) -> Option<&'static str> {
    match place_of(offer) {
        Some(p) => Some(p.jurisdiction.as_str()),
        None if market_of(offer) == Market::MainlandChina => Some("cn"),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::default::default_catalog;

    #[test]
    fn every_row_of_the_table_parses() {
        let rows = PLACES_CSV
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count();
        assert_eq!(places().len() + 1, rows, "a place row did not parse");
        for p in places() {
            assert!((-90.0..=90.0).contains(&p.lat) && (-180.0..=180.0).contains(&p.lon));
            assert!(!p.name_zh.is_empty() && !p.name_en.is_empty(), "{}", p.id);
        }
    }

    #[test]
    fn ids_and_region_ids_are_unique() {
        let mut ids: Vec<&str> = places().iter().map(|p| p.id.as_str()).collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n);
        let mut regions: Vec<&str> = places()
            .iter()
            .flat_map(|p| p.regions.iter().map(String::as_str))
            .collect();
        let n = regions.len();
        regions.sort_unstable();
        regions.dedup();
        assert_eq!(regions.len(), n, "a region id is placed twice");
    }

    #[test]
    fn every_default_offer_with_a_fixed_place_is_placed_in_its_market() {
        for o in &default_catalog().offers {
            let market = market_of(o);
            assert_eq!(
                market == Market::Elsewhere,
                o.region.class == RegionClass::Overseas,
                "{} ({})",
                o.id,
                o.region.id
            );
            let anywhere = matches!(o.region.id.as_str(), "global" | "marketplace");
            assert_eq!(
                place_of(o).is_none(),
                anywhere,
                "{} ({})",
                o.id,
                o.region.id
            );
        }
    }

    #[test]
    fn markets_allow_what_they_name() {
        assert!(Markets::Both.allows(Market::Elsewhere));
        assert!(Markets::MainlandChina.allows(Market::MainlandChina));
        assert!(!Markets::MainlandChina.allows(Market::Elsewhere));
        assert!(!Markets::Elsewhere.allows(Market::MainlandChina));
        assert_eq!(find_place("hong-kong").unwrap().market(), Market::Elsewhere);
        assert_eq!(place_of_region("cn-shanghai").unwrap().id, "shanghai");
    }
}
