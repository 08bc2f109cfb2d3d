//! What the user can buy and how far each offer is from them: the markets and providers a task
//! allows, the round trip from the user's location, and data that would cross a border.
//!
//! The border rules name the law they follow and where its text is published. They flag; a
//! confidential or in-house task, whose data must not leave, is refused the offer instead.

use crate::offers::latency::{RoundTrip, RttBasis, round_trip};
use crate::offers::offer::Offer;
use crate::offers::places::{find_place, jurisdiction_of, market_of, place_of};
use crate::plan::reason::{Reason, RuleId};
use crate::task::document::{Sensitivity, TaskProfile};

/// A round trip at or above this is flagged as adding latency, ms (the catalog's tier-1 city
/// nodes are 10-15 ms from a user in the same region, its remote ones 35-45 ms).
pub const FAR_RTT_MS: f64 = 30.0;

/// A law on data leaving a jurisdiction: what it covers and where its text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferRule {
    /// The jurisdiction whose data it covers.
    pub home: &'static str,
    /// Where the data may go without the rule applying (adequacy decisions and the like).
    pub exempt: &'static [&'static str],
    /// Whether it covers only personal data (else also confidential business data).
    pub personal_only: bool,
    /// The rule, short.
    pub law: &'static str,
    /// The rule, short, as Chinese readers cite it.
    pub law_zh: &'static str,
    /// Where its text is published.
    pub source: &'static str,
}

/// The border rules gpufare knows, one per home jurisdiction.
pub const TRANSFER_RULES: &[TransferRule] = &[
    // PIPL art. 38: personal information sent outside the (mainland) PRC needs a security
    // assessment, a certification or the standard contract; the Data Security Law and the 2022
    // outbound-transfer assessment measures add "important data", which confidential business
    // data may be.
    TransferRule {
        home: "cn",
        exempt: &[],
        personal_only: false,
        law: "PIPL art. 38-40; Data Security Law art. 31",
        law_zh: "《个人信息保护法》第三十八至四十条、《数据安全法》第三十一条",
        source: "https://www.chinalawtranslate.com/en/Personal-Information-Protection-Law/",
    },
    // GDPR chapter V: personal data may leave the EU for a country with an adequacy decision
    // (the UK, Japan, South Korea, Canada, Switzerland among them), else only with safeguards.
    TransferRule {
        home: "eu",
        exempt: &["uk", "jp", "kr", "ca", "ch"],
        personal_only: true,
        law: "GDPR art. 44-46",
        law_zh: "欧盟《通用数据保护条例》第 44 至 46 条",
        source: "https://eur-lex.europa.eu/eli/reg/2016/679/oj",
    },
];

/// The round trip from the task's user to `offer`: measured by the probe to the offer's place,
/// else the published or distance-fitted figure from the task's location, else the catalog
/// row's own figure.
pub fn round_trip_to(task: &TaskProfile, offer: &Offer) -> RoundTrip {
    let place = place_of(offer);
    if let Some(m) = place.and_then(|p| task.reach.measured_to(&p.id)) {
        return RoundTrip {
            ms: m.rtt_ms,
            basis: RttBasis::Measured,
            note: m.target.clone(),
        };
    }
    let from = task.reach.location.as_deref().and_then(find_place);
    match (from, place) {
        (Some(from), Some(to)) => round_trip(from, to),
        _ => RoundTrip {
            ms: offer.region.rtt_ms,
            basis: RttBasis::Catalog,
            note: String::new(),
        },
    }
}

/// The vetoes and flags of where `offer` is sold and where it keeps the data, for `task`.
pub fn check(task: &TaskProfile, offer: &Offer) -> (Vec<Reason>, Vec<Reason>) {
    let mut vetoes = Vec::new();
    let mut flags = Vec::new();
    let reach = &task.reach;
    let market = market_of(offer);
    if !reach.markets.allows(market) {
        vetoes.push(
            Reason::new(RuleId::OutsideMarkets)
                .with("market", market.id())
                .with("allowed", reach.markets.id()),
        );
    }
    if !reach.allows_provider(&offer.provider) {
        vetoes.push(Reason::new(RuleId::ProviderExcluded).with("provider", &offer.provider));
    }
    if let Some((rule, to)) = border_crossed(task, offer) {
        let reason = |id| {
            Reason::new(id)
                .with("from", rule.home)
                .with("to", to)
                .with("law", rule.law)
                .with("law_zh", rule.law_zh)
                .with("source", rule.source)
        };
        if task.sensitivity >= Sensitivity::Confidential {
            vetoes.push(reason(RuleId::DataMustStayHome));
        } else {
            flags.push(reason(RuleId::DataLeavesJurisdiction));
        }
    }
    (vetoes, flags)
}

/// The rule a task's data would fall under on `offer`, and where the data would go (`unknown`
/// for a host anywhere), when it would leave the jurisdiction of the user's location.
fn border_crossed(
    task: &TaskProfile,
    offer: &Offer,
) -> Option<(&'static TransferRule, &'static str)> {
    let confidential = task.sensitivity >= Sensitivity::Confidential;
    if !task.reach.personal_data && !confidential {
        return None;
    }
    let home = find_place(task.reach.location.as_deref()?)?;
    let rule = TRANSFER_RULES
        .iter()
        .find(|r| r.home == home.jurisdiction)?;
    if rule.personal_only && !task.reach.personal_data {
        return None;
    }
    match jurisdiction_of(offer) {
        Some(j) if j == rule.home || rule.exempt.contains(&j) => None,
        Some(j) => Some((rule, j)),
        None => Some((rule, "unknown")),
    }
}

/// The flag for a round trip at or above [`FAR_RTT_MS`], with where the figure comes from.
pub fn far_flag(task: &TaskProfile, offer: &Offer, rt: &RoundTrip) -> Option<Reason> {
    (rt.ms >= FAR_RTT_MS).then(|| {
        Reason::new(RuleId::RemoteRegionLatency)
            .with("class", offer.region.class.id())
            .with("rtt_ms", format!("{:.1}", rt.ms))
            .with("basis", rt.basis.id())
            .with("from", task.reach.location.clone().unwrap_or_default())
            .with("note", &rt.note)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::default::default_catalog;
    use crate::offers::places::Markets;
    use crate::task::presets::preset;
    use crate::task::reach::MeasuredRtt;

    fn offer(region: &str) -> Offer {
        default_catalog()
            .offers
            .iter()
            .find(|o| o.region.id == region)
            .cloned()
            .unwrap()
    }

    #[test]
    fn a_mainland_only_task_vetoes_overseas_offers() {
        let mut t = preset("qlora_7b").unwrap();
        t.reach.markets = Markets::MainlandChina;
        let (v, _) = check(&t, &offer("us-east-1"));
        assert_eq!(v[0].rule, RuleId::OutsideMarkets);
        assert_eq!(v[0].params["market"], "elsewhere");
        assert!(check(&t, &offer("cn-shanghai")).0.is_empty());
    }

    #[test]
    fn the_round_trip_follows_the_location_and_a_measurement_beats_it() {
        let mut t = preset("inference_api").unwrap();
        let bj = offer("cn-beijing");
        assert_eq!(round_trip_to(&t, &bj).basis, RttBasis::Catalog);
        t.reach.location = Some("shanghai".into());
        let from_sh = round_trip_to(&t, &bj);
        t.reach.location = Some("frankfurt".into());
        let from_fra = round_trip_to(&t, &bj);
        assert_eq!(from_sh.basis, RttBasis::Distance);
        assert!(from_fra.ms > from_sh.ms + 100.0, "{from_sh:?} {from_fra:?}");
        t.reach.measured_rtt = vec![MeasuredRtt {
            place: "beijing".into(),
            rtt_ms: 41.5,
            target: "ecs.cn-beijing.aliyuncs.com:443".into(),
        }];
        let measured = round_trip_to(&t, &bj);
        assert_eq!((measured.ms, measured.basis), (41.5, RttBasis::Measured));
    }

    #[test]
    fn personal_data_leaving_mainland_china_is_flagged_and_refused_when_confidential() {
        let mut t = preset("qlora_7b").unwrap();
        t.reach.location = Some("shanghai".into());
        let us = offer("us-east-1");
        assert!(check(&t, &us).1.is_empty(), "no personal data, no flag");
        t.reach.personal_data = true;
        let (v, f) = check(&t, &us);
        assert!(v.is_empty());
        assert_eq!(f[0].rule, RuleId::DataLeavesJurisdiction);
        assert_eq!(f[0].params["from"], "cn");
        assert_eq!(f[0].params["to"], "us");
        assert!(f[0].params["law"].starts_with("PIPL art. 38"));
        assert!(check(&t, &offer("cn-beijing")).1.is_empty(), "stays home");
        t.sensitivity = Sensitivity::InHouse;
        assert_eq!(check(&t, &us).0[0].rule, RuleId::DataMustStayHome);
    }

    #[test]
    fn eu_personal_data_may_go_where_an_adequacy_decision_allows() {
        let mut t = preset("qlora_7b").unwrap();
        t.reach.location = Some("frankfurt".into());
        t.reach.personal_data = true;
        assert!(
            check(&t, &offer("ap-northeast-1")).1.is_empty(),
            "Japan: adequacy"
        );
        assert_eq!(
            check(&t, &offer("us-east-1")).1[0].rule,
            RuleId::DataLeavesJurisdiction
        );
        assert_eq!(
            check(&t, &offer("marketplace")).1[0].params["to"],
            "unknown"
        );
    }
}
