//! The fleet report: nodes grouped by GPU model and kind of capacity, the spread of every
//! measured figure per group, the verdict counts, and the outliers.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::fleet::figures::{Capacity, Figure, GroupKey, Member, members};
use crate::fleet::merge::FleetNode;
use crate::fleet::rules::{MAD_SCALE, Rules};
use crate::numbers::stats::percentile;
use crate::profile::verdict::{Finding, Level, Verdict, VerdictKind};

/// The fleet report format this build writes.
pub const FLEET_REPORT_FORMAT_VERSION: u32 = 1;

/// A fleet report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FleetReport {
    /// Version of this document's format; always the first field.
    pub format_version: u32,
    /// Nodes in the fleet.
    pub nodes: usize,
    /// Nodes with at least one outlier.
    pub outlier_nodes: usize,
    /// The rules the outliers were found by.
    pub rules: Rules,
    /// One entry per GPU model and kind of capacity, ordered by identifier.
    pub groups: Vec<GroupReport>,
    /// Every outlier, ordered by group, node, GPU and figure or verdict.
    pub outliers: Vec<Outlier>,
    /// Verdicts most of a group's nodes carry, once per group: ordered by group, then kind,
    /// level and finding.
    #[serde(default)]
    pub group_findings: Vec<GroupFinding>,
}

/// A verdict that most of a group's nodes carry ([`Rules::group_share`]): a condition of the
/// group, stated once, rather than an outlier of each node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GroupFinding {
    /// The group's identifier.
    pub group: String,
    /// What the verdict is about.
    pub verdict: VerdictKind,
    /// Its level.
    pub level: Level,
    /// Its finding.
    pub finding: Finding,
    /// Nodes of the group that carry it.
    pub nodes: usize,
    /// Nodes in the group.
    pub of: usize,
}

/// One group of the fleet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GroupReport {
    /// The identifier, e.g. `H100-80GB/whole_card` or `A100-80GB/mig_1g.10gb`.
    pub id: String,
    /// The GPU model: the spec table's short name, or NVML's name for a model it does not know.
    pub gpu: String,
    /// The kind of capacity.
    pub capacity: Capacity,
    /// The MIG profile, for MIG capacity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mig_profile: Option<String>,
    /// Nodes in the group.
    pub nodes: usize,
    /// GPUs of those nodes in the group.
    pub gpus: usize,
    /// Nodes of the group with at least one outlier.
    pub outlier_nodes: usize,
    /// Verdicts most of the group's nodes carry (see [`FleetReport::group_findings`]).
    #[serde(default)]
    pub findings: usize,
    /// The spread of each figure some node measured, in [`Figure`] order.
    pub figures: Vec<Spread>,
    /// How many verdicts of each kind, level and finding the group's nodes carry.
    pub verdicts: Vec<VerdictCount>,
}

/// The spread of one figure over a group, and the band outside which a value is an outlier.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Spread {
    /// The figure.
    pub figure: Figure,
    /// Values measured (one per GPU for a per-GPU figure, one per node otherwise).
    pub n: usize,
    /// 5th percentile (nearest rank).
    pub p5: f64,
    /// Median (nearest rank).
    pub p50: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// Median absolute deviation from the median, unscaled.
    pub mad: f64,
    /// Lower edge of the band.
    pub low: f64,
    /// Upper edge of the band.
    pub high: f64,
    /// Whether values were judged against the band (enough values, figure not ignored).
    pub judged: bool,
}

/// How many verdicts of one kind, level and finding a group carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct VerdictCount {
    /// What the verdicts are about.
    pub kind: VerdictKind,
    /// Their level.
    pub level: Level,
    /// Their finding.
    pub finding: Finding,
    /// How many.
    pub count: usize,
}

/// Why a node is an outlier.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// A figure below its group's band.
    BelowBand,
    /// A figure above its group's band.
    AboveBand,
    /// A verdict at the rules' level or above.
    Verdict,
}

identifiers!(Reason {
    BelowBand => "below_band",
    AboveBand => "above_band",
    Verdict => "verdict",
});

/// A node that is not like its group, or whose verdict says something is wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Outlier {
    /// The node: its host name, or its source when it has none.
    pub node: String,
    /// Where its profile was read from.
    pub source: String,
    /// Its position in the fleet (0-based), to open its own view.
    pub index: usize,
    /// Its group's identifier.
    pub group: String,
    /// The GPU concerned, for a per-GPU figure or a verdict about one GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<u32>,
    /// Why.
    pub reason: Reason,
    /// The figure out of band.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<Figure>,
    /// The node's value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// The group's median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median: Option<f64>,
    /// Lower edge of the band.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    /// Upper edge of the band.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
    /// The verdict's kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<VerdictKind>,
    /// The verdict's level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// The verdict's finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<Finding>,
}

impl Outlier {
    /// What was checked: the figure's or the verdict kind's identifier.
    pub fn check(&self) -> &'static str {
        match (self.figure, self.verdict) {
            (Some(f), _) => f.id(),
            (None, Some(k)) => k.id(),
            (None, None) => "",
        }
    }
}

/// The band of a figure over `sorted` values: (median, MAD, low, high).
pub fn band(sorted: &[f64], figure: Figure, rules: &Rules) -> (f64, f64, f64, f64) {
    let median = percentile(sorted, 0.5);
    let mut deviations: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
    deviations.sort_by(f64::total_cmp);
    let mad = percentile(&deviations, 0.5);
    let half = (rules.mad_k * MAD_SCALE * mad)
        .max(rules.min_relative_band * median.abs())
        .max(rules.min_band_for(figure));
    (median, mad, median - half, median + half)
}

/// Every node's members, grouped: each group's key with its members.
pub(crate) fn grouped(nodes: &[FleetNode]) -> BTreeMap<GroupKey, Vec<Member>> {
    let mut groups: BTreeMap<GroupKey, Vec<Member>> = BTreeMap::new();
    for (i, n) in nodes.iter().enumerate() {
        for m in members(i, &n.profile) {
            groups.entry(m.key.clone()).or_default().push(m);
        }
    }
    groups
}

/// The report of a fleet under `rules`: linear in the nodes but for one sort per figure and
/// group.
pub fn report(nodes: &[FleetNode], rules: &Rules) -> FleetReport {
    let mut groups = Vec::new();
    let mut outliers = Vec::new();
    let mut group_findings = Vec::new();
    for (key, members) in grouped(nodes) {
        let id = key.id();
        let first = outliers.len();
        let label = |m: &Member| {
            nodes
                .get(m.node)
                .map(|n| (n.label().to_owned(), n.source.clone()))
                .unwrap_or_default()
        };
        // Values per figure: (value, member).
        let mut by_figure: BTreeMap<Figure, Vec<(f64, usize, Option<u32>)>> = BTreeMap::new();
        for (mi, m) in members.iter().enumerate() {
            for v in &m.values {
                by_figure
                    .entry(v.figure)
                    .or_default()
                    .push((v.value, mi, v.gpu));
            }
        }
        let mut spreads = Vec::new();
        for (figure, values) in by_figure {
            let mut sorted: Vec<f64> = values.iter().map(|v| v.0).collect();
            sorted.sort_by(f64::total_cmp);
            let (median, mad, low, high) = band(&sorted, figure, rules);
            let measured_by: BTreeSet<usize> = values.iter().map(|v| v.1).collect();
            let judged = measured_by.len() >= rules.min_group_nodes
                && !rules.ignore_figures.contains(&figure);
            spreads.push(Spread {
                figure,
                n: sorted.len(),
                p5: percentile(&sorted, 0.05),
                p50: median,
                p95: percentile(&sorted, 0.95),
                mad,
                low,
                high,
                judged,
            });
            if !judged {
                continue;
            }
            for &(value, mi, gpu) in &values {
                let reason = if value < low {
                    Reason::BelowBand
                } else if value > high {
                    Reason::AboveBand
                } else {
                    continue;
                };
                let Some(m) = members.get(mi) else { continue };
                let (node, source) = label(m);
                outliers.push(Outlier {
                    node,
                    source,
                    index: m.node,
                    group: id.clone(),
                    gpu,
                    reason,
                    figure: Some(figure),
                    value: Some(value),
                    median: Some(median),
                    low: Some(low),
                    high: Some(high),
                    verdict: None,
                    level: None,
                    finding: None,
                });
            }
        }
        let mut counts: BTreeMap<(VerdictKind, Level, Finding), usize> = BTreeMap::new();
        // The verdicts that would make an outlier, and how many of the group's nodes carry each.
        let judged = |v: &Verdict| {
            v.level >= rules.verdict_level && !rules.ignore_verdicts.contains(&v.kind)
        };
        let mut carriers: BTreeMap<(VerdictKind, Level, Finding), BTreeSet<usize>> =
            BTreeMap::new();
        for m in &members {
            for v in &m.verdicts {
                *counts.entry((v.kind, v.level, v.finding)).or_default() += 1;
                if judged(v) {
                    carriers
                        .entry((v.kind, v.level, v.finding))
                        .or_default()
                        .insert(m.node);
                }
            }
        }
        let group_nodes = members
            .iter()
            .map(|m| m.node)
            .collect::<BTreeSet<_>>()
            .len();
        let shared: BTreeSet<(VerdictKind, Level, Finding)> = carriers
            .iter()
            .filter(|(_, carrying)| {
                group_nodes >= rules.min_group_nodes
                    && carrying.len() as f64 >= rules.group_share * group_nodes as f64
            })
            .map(|(key, _)| *key)
            .collect();
        for &(verdict, level, finding) in &shared {
            group_findings.push(GroupFinding {
                group: id.clone(),
                verdict,
                level,
                finding,
                nodes: carriers
                    .get(&(verdict, level, finding))
                    .map_or(0, BTreeSet::len),
                of: group_nodes,
            });
        }
        for m in &members {
            let mut flagged = BTreeSet::new();
            for v in &m.verdicts {
                if !judged(v) || shared.contains(&(v.kind, v.level, v.finding)) {
                    continue;
                }
                if !flagged.insert((v.kind, v.gpu, v.finding)) {
                    continue;
                }
                let (node, source) = label(m);
                outliers.push(Outlier {
                    node,
                    source,
                    index: m.node,
                    group: id.clone(),
                    gpu: v.gpu,
                    reason: Reason::Verdict,
                    figure: None,
                    value: None,
                    median: None,
                    low: None,
                    high: None,
                    verdict: Some(v.kind),
                    level: Some(v.level),
                    finding: Some(v.finding),
                });
            }
        }
        if let Some(mine) = outliers.get_mut(first..) {
            mine.sort_by(|a, b| {
                (a.index, a.gpu, a.reason, a.figure, a.verdict, a.finding)
                    .cmp(&(b.index, b.gpu, b.reason, b.figure, b.verdict, b.finding))
            });
        }
        let outlier_nodes = outliers
            .get(first..)
            .unwrap_or_default()
            .iter()
            .map(|o| o.index)
            .collect::<BTreeSet<_>>()
            .len();
        groups.push(GroupReport {
            id,
            gpu: key.gpu.clone(),
            capacity: key.capacity,
            mig_profile: key.mig_profile.clone(),
            nodes: group_nodes,
            findings: shared.len(),
            gpus: members.iter().map(|m| m.gpus.len()).sum(),
            outlier_nodes,
            figures: spreads,
            verdicts: counts
                .into_iter()
                .map(|((kind, level, finding), count)| VerdictCount {
                    kind,
                    level,
                    finding,
                    count,
                })
                .collect(),
        });
    }
    let outlier_nodes = outliers
        .iter()
        .map(|o| o.index)
        .collect::<BTreeSet<_>>()
        .len();
    FleetReport {
        format_version: FLEET_REPORT_FORMAT_VERSION,
        nodes: nodes.len(),
        outlier_nodes,
        rules: rules.clone(),
        groups,
        outliers,
        group_findings,
    }
}
