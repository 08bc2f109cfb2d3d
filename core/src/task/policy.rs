//! What to do with interruptible capacity when it keeps going away: the policies a user can
//! choose for a spot or preemptible offer (priced in `plan::policy`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The most preemptions a fallback policy may wait for.
pub const MAX_FALLBACK_AFTER: u32 = 1000;

/// A policy for interruptible capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Policy {
    /// Stay on the interruptible offer whatever happens.
    SpotOnly,
    /// Move the rest of the job to the uninterruptible offer at the N-th preemption.
    FallbackAfter {
        /// Preemptions to accept before moving, at least 1.
        preemptions: u32,
    },
    /// Stay while the slack before the deadline covers the remaining work on the
    /// uninterruptible offer plus a restart; move when it no longer does (the greedy policy of
    /// *Can't Be Late*, NSDI 2024).
    DeadlineAware,
    /// Run everything on the uninterruptible offer.
    OnDemandOnly,
}

impl Policy {
    /// The policies priced when the task leaves the choice to gpufare, in order of preference
    /// on a near tie: the two that use one kind of capacity first, then the mixes.
    pub const CANDIDATES: [Policy; 6] = [
        Policy::SpotOnly,
        Policy::OnDemandOnly,
        Policy::FallbackAfter { preemptions: 1 },
        Policy::FallbackAfter { preemptions: 2 },
        Policy::FallbackAfter { preemptions: 4 },
        Policy::DeadlineAware,
    ];

    /// A stable identifier with the parameter: `spot_only`, `fallback_after_2`, ...
    pub fn id(&self) -> String {
        match self {
            Policy::SpotOnly => "spot_only".to_owned(),
            Policy::FallbackAfter { preemptions } => format!("fallback_after_{preemptions}"),
            Policy::DeadlineAware => "deadline_aware".to_owned(),
            Policy::OnDemandOnly => "on_demand_only".to_owned(),
        }
    }

    /// Parses an identifier written by [`Policy::id`].
    pub fn from_id(id: &str) -> Option<Policy> {
        match id {
            "spot_only" => Some(Policy::SpotOnly),
            "deadline_aware" => Some(Policy::DeadlineAware),
            "on_demand_only" => Some(Policy::OnDemandOnly),
            _ => id
                .strip_prefix("fallback_after_")
                .and_then(|n| n.parse().ok())
                .filter(|n| (1..=MAX_FALLBACK_AFTER).contains(n))
                .map(|preemptions| Policy::FallbackAfter { preemptions }),
        }
    }

    /// Whether the policy ever uses the uninterruptible offer.
    pub fn needs_fallback(&self) -> bool {
        !matches!(self, Policy::SpotOnly)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_serde_tags_the_kind() {
        for p in Policy::CANDIDATES {
            assert_eq!(Policy::from_id(&p.id()), Some(p));
        }
        assert_eq!(Policy::from_id("fallback_after_0"), None);
        assert_eq!(
            serde_json::to_string(&Policy::FallbackAfter { preemptions: 3 }).unwrap(),
            r#"{"kind":"fallback_after","preemptions":3}"#
        );
    }
}
