//! The thresholds of a fleet report, from a rules file (TOML or JSON). Every key is optional and
//! defaults to the value documented on its field; an unknown key is refused with its name, so a
//! misspelt threshold never silently falls back to the default.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::fleet::figures::Figure;
use crate::profile::verdict::{Level, VerdictKind};

/// The rules format this build reads.
pub const RULES_FORMAT_VERSION: u32 = 1;

/// How a fleet report finds its outliers.
///
/// A figure of a node is an outlier when it lies outside its group's band, median ± h, with
/// h = max(`mad_k` × 1.4826 × MAD, `min_relative_band` × |median|, the figure's minimum band).
/// A verdict is an outlier when its level is at least `verdict_level`, its kind is not in
/// `ignore_verdicts`, and fewer than `group_share` of its group's nodes carry it; a verdict most of
/// a group carries is a group finding instead, stated once with its count: a condition the nodes
/// share (the same slot, the same power cap) is not something that makes one of them stand out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Rules {
    /// Version of the rules format; 1 when left out.
    pub format_version: u32,
    /// How many robust standard deviations (MAD × 1.4826, which equals the standard deviation
    /// for normally distributed figures) a figure may lie from its group's median. Default 5:
    /// under a normal spread a healthy figure falls outside with probability 6 × 10⁻⁷, so a
    /// 10,000-node fleet with a dozen figures raises well under one false outlier, while a node
    /// that is really different (a narrower link, a throttled card) lies far beyond it.
    pub mad_k: f64,
    /// The band is never narrower than this share of the median. Default 0.05 (5 %): identical
    /// nodes spread by a percent or two from run to run (GEMM clocks, disk and network rates),
    /// and a fleet of identical nodes has a MAD near zero, which without this floor would flag
    /// that noise; a node 5 % or more off its peers is worth a look.
    pub min_relative_band: f64,
    /// A figure is judged only in groups where at least this many nodes measured it. Default 3:
    /// with two values there is no majority to say which one is odd.
    pub min_group_nodes: usize,
    /// Verdicts at this level or above make a node an outlier. Default `warn` (likely to cost
    /// time or money); `alert` keeps only what is likely to break a job.
    pub verdict_level: Level,
    /// Verdict kinds that never make an outlier. Default `["slice"]`: whether a GPU is a slice
    /// is what puts it in its group, not a fault of the node.
    pub ignore_verdicts: Vec<VerdictKind>,
    /// A verdict (kind, level and finding) that at least this share of a group's nodes carry is a
    /// group finding, not an outlier of each node, in groups of at least `min_group_nodes` nodes.
    /// Default 0.5: a condition most of the group shares says something about the group (its
    /// slots, its power caps, its cloud), while the node that differs is the one to look at.
    pub group_share: f64,
    /// Figures that are reported but never make an outlier. Default none.
    pub ignore_figures: Vec<Figure>,
    /// The smallest band half-width per figure, in the figure's unit, replacing the built-in
    /// ones ([`Figure::default_min_band`]: 5 points of utilisation before load, 0.05 of the
    /// step-time tail, half a PCIe generation or lane; 0 for the rest).
    pub min_band: BTreeMap<Figure, f64>,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            format_version: RULES_FORMAT_VERSION,
            mad_k: 5.0,
            min_relative_band: 0.05,
            min_group_nodes: 3,
            verdict_level: Level::Warn,
            ignore_verdicts: vec![VerdictKind::Slice],
            group_share: 0.5,
            ignore_figures: vec![],
            min_band: BTreeMap::new(),
        }
    }
}

/// The factor that turns a median absolute deviation into a standard deviation for normally
/// distributed values (1 / Φ⁻¹(3/4)).
pub const MAD_SCALE: f64 = 1.4826;

impl Rules {
    /// The smallest band half-width for `figure`: the rules' own, or the built-in one.
    pub fn min_band_for(&self, figure: Figure) -> f64 {
        self.min_band
            .get(&figure)
            .copied()
            .unwrap_or_else(|| figure.default_min_band())
    }

    /// Checks the thresholds are usable; the error names the key.
    pub fn validate(&self) -> Result<(), RulesError> {
        let bad = |key: &str, problem: &str| {
            Err(RulesError::Invalid {
                key: key.to_owned(),
                problem: problem.to_owned(),
            })
        };
        if self.format_version == 0 {
            return bad("format_version", "0 does not exist");
        }
        if self.format_version > RULES_FORMAT_VERSION {
            return Err(RulesError::NewerFormat {
                found: self.format_version,
            });
        }
        if !(self.mad_k.is_finite() && self.mad_k > 0.0 && self.mad_k <= 1000.0) {
            return bad("mad_k", "must be a number above 0 and at most 1000");
        }
        if !(self.min_relative_band.is_finite()
            && self.min_relative_band >= 0.0
            && self.min_relative_band <= 100.0)
        {
            return bad("min_relative_band", "must be a number from 0 to 100");
        }
        if !(self.group_share.is_finite() && self.group_share > 0.0 && self.group_share <= 1.0) {
            return bad("group_share", "must be a share above 0 and at most 1");
        }
        for (figure, band) in &self.min_band {
            if !(band.is_finite() && *band >= 0.0) {
                return bad(
                    &format!("min_band.{}", figure.id()),
                    "must be a number of at least 0",
                );
            }
        }
        Ok(())
    }
}

/// Why a rules file was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RulesError {
    /// Not JSON, or JSON with an unknown key or a mistyped value.
    #[error("{name}: not valid rules JSON: {detail}")]
    Json {
        /// The file's name.
        name: String,
        /// What the reader said, with the position; an unknown key is named.
        detail: String,
    },
    /// Not TOML, or TOML with an unknown key or a mistyped value.
    #[error("{name}: not valid rules TOML: {detail}")]
    Toml {
        /// The file's name.
        name: String,
        /// What the reader said, with the position; an unknown key is named.
        detail: String,
    },
    /// A value out of range.
    #[error("rules: {key} {problem}")]
    Invalid {
        /// The key, e.g. `mad_k` or `min_band.gemm_tflops`.
        key: String,
        /// What is wrong with it.
        problem: String,
    },
    /// Written for a newer gpufare.
    #[error(
        "rules format version {found} is newer than this gpufare supports (up to {RULES_FORMAT_VERSION}); update gpufare"
    )]
    NewerFormat {
        /// The version in the file.
        found: u32,
    },
}

impl RulesError {
    /// The unknown key the reader named, when that is why the file was refused.
    pub fn unknown_key(&self) -> Option<String> {
        let detail = match self {
            RulesError::Json { detail, .. } | RulesError::Toml { detail, .. } => detail,
            _ => return None,
        };
        let rest = detail
            .split_once("unknown field `")
            .or_else(|| detail.split_once("unknown variant `"))?
            .1;
        Some(rest.split_once('`')?.0.to_owned())
    }
}

/// Reads rules from a file's text: JSON when the name ends in `.json` or the text starts with
/// `{`, TOML otherwise. Every key is optional; an unknown key is refused, named.
pub fn parse_rules(name: &str, text: &str) -> Result<Rules, RulesError> {
    let json = name.to_ascii_lowercase().ends_with(".json")
        || (!name.to_ascii_lowercase().ends_with(".toml") && text.trim_start().starts_with('{'));
    let rules: Rules = if json {
        serde_json::from_str(text).map_err(|e| RulesError::Json {
            name: name.to_owned(),
            detail: e.to_string(),
        })?
    } else {
        toml::from_str(text).map_err(|e| RulesError::Toml {
            name: name.to_owned(),
            detail: e.to_string().trim_end().replace('\n', " "),
        })?
    };
    rules.validate()?;
    Ok(rules)
}
