//! A plan priced in shares: the offers split between workers (the site's Web Workers, which
//! share no memory), each pricing its share on its own, the plan then put together from the
//! shares' options. Every option depends only on its own offer and the offer its policies fall
//! back to, so the plan is the one [`plan_with_traces`](super::plan_with_traces) gives, to the
//! bit, whatever the number of shares.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::offers::catalog::Catalog;
use crate::offers::trace::AttachedTrace;
use crate::plan::option::OptionResult;
use crate::plan::pipeline::{PlanResult, Prepared};
use crate::plan::settings::{MAX_SHARES, PlanError, PlanSettings, ShareMismatch};
use crate::task::document::TaskProfile;

/// Share `index` of `count` (numbered from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Share {
    /// Which share, from 0.
    pub index: u32,
    /// How many shares there are, 1 to [`MAX_SHARES`].
    pub count: u32,
}

impl Share {
    /// Checks that the share exists.
    pub fn validate(self) -> Result<(), PlanError> {
        if self.count == 0 || self.count > MAX_SHARES || self.index >= self.count {
            return Err(PlanError::Shares(ShareMismatch::NotAShare {
                index: self.index,
                count: self.count,
            }));
        }
        Ok(())
    }
}

/// One share's options, each with its offer's place in the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PricedShare {
    /// The options priced, in the order of their places.
    pub priced: Vec<Placed>,
}

/// An option and its offer's place in the catalog (from 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Placed {
    /// The offer's place in the catalog.
    pub place: usize,
    /// Its option, risk and policies included.
    pub option: OptionResult,
}

/// Prices `share` of the plan of `task` on `catalog`: the same checks as a whole plan, then
/// only the share's offers (and the offers their policies fall back to, which are not returned).
pub fn price_share(
    task: &TaskProfile,
    catalog: &Catalog,
    traces: &[AttachedTrace],
    settings: &PlanSettings,
    share: Share,
) -> Result<PricedShare, PlanError> {
    share.validate()?;
    let prepared = Prepared::new(task, catalog, traces, settings)?;
    let places = prepared.share_places(share.index as usize, share.count as usize);
    Ok(PricedShare {
        priced: prepared
            .price(&places)
            .into_iter()
            .map(|(place, option)| Placed { place, option })
            .collect(),
    })
}

/// The plan of `task` on `catalog` from the priced `shares`, which must between them price every
/// offer of the catalog exactly once (each share from [`price_share`] with the same inputs).
pub fn plan_from_shares(
    task: &TaskProfile,
    catalog: &Catalog,
    traces: &[AttachedTrace],
    settings: &PlanSettings,
    shares: Vec<PricedShare>,
) -> Result<PlanResult, PlanError> {
    let prepared = Prepared::new(task, catalog, traces, settings)?;
    let offers = catalog.offers.len();
    let mut slots: Vec<Option<OptionResult>> = catalog.offers.iter().map(|_| None).collect();
    let mismatch = |m| Err(PlanError::Shares(m));
    for Placed { place, option } in shares.into_iter().flat_map(|s| s.priced) {
        let Some(slot) = slots.get_mut(place) else {
            return mismatch(ShareMismatch::PastTheEnd { place, offers });
        };
        let expected = catalog.offers.get(place).map(|o| &o.id);
        if expected != Some(&option.offer_id) {
            return mismatch(ShareMismatch::OtherOffer {
                place,
                expected: expected.cloned().unwrap_or_default(),
                found: option.offer_id,
            });
        }
        if slot.replace(option).is_some() {
            return mismatch(ShareMismatch::Twice { place });
        }
    }
    let mut options = Vec::with_capacity(offers);
    for (place, slot) in slots.into_iter().enumerate() {
        let Some(option) = slot else {
            return mismatch(ShareMismatch::Missing { place });
        };
        options.push(option);
    }
    Ok(prepared.finish(options))
}
