//! Every enum's file identifier (`id()`) is the name serde writes, and `from_id` reads it back,
//! so the site, the CLI and the JSON files name values the same way.

use gpufare_core::offers::billing::{BillingMode, Granularity};
use gpufare_core::offers::offer::{RegionClass, SecurityControl};
use gpufare_core::offers::tenancy::Tenancy;
use gpufare_core::plan::decision::Choice;
use gpufare_core::plan::feasibility::VramFit;
use gpufare_core::plan::hybrid::PhaseKind;
use gpufare_core::plan::reason::RuleId;
use gpufare_core::profile::verdict::{Level, VerdictKind};
use gpufare_core::task::document::{Bound, Sensitivity, TaskKind};
use serde::Serialize;

fn agree<T: Serialize + Copy + PartialEq + std::fmt::Debug>(
    all: &[T],
    id: fn(T) -> &'static str,
    from_id: fn(&str) -> Option<T>,
) {
    assert!(!all.is_empty());
    for &v in all {
        assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{}\"", id(v)));
        assert_eq!(from_id(id(v)), Some(v));
    }
    assert_eq!(from_id("no_such_identifier"), None);
}

#[test]
fn ids_are_the_serde_names() {
    agree(&Tenancy::ALL, Tenancy::id, Tenancy::from_id);
    agree(&BillingMode::ALL, BillingMode::id, BillingMode::from_id);
    agree(&Granularity::ALL, Granularity::id, Granularity::from_id);
    agree(&RegionClass::ALL, RegionClass::id, RegionClass::from_id);
    agree(
        &SecurityControl::ALL,
        SecurityControl::id,
        SecurityControl::from_id,
    );
    agree(&Choice::ALL, Choice::id, Choice::from_id);
    agree(&VramFit::ALL, VramFit::id, VramFit::from_id);
    agree(&PhaseKind::ALL, PhaseKind::id, PhaseKind::from_id);
    agree(&RuleId::ALL, RuleId::id, RuleId::from_id);
    agree(&VerdictKind::ALL, VerdictKind::id, VerdictKind::from_id);
    agree(&Level::ALL, Level::id, Level::from_id);
    agree(&TaskKind::ALL, TaskKind::id, TaskKind::from_id);
    agree(&Sensitivity::ALL, Sensitivity::id, Sensitivity::from_id);
    agree(&Bound::ALL, Bound::id, Bound::from_id);
}
