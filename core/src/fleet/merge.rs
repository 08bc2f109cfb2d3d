//! Merging probe profiles into a fleet: one profile per node, read from single profile files or
//! JSON-lines fleet files, duplicates recognised, damaged documents reported and skipped, and the
//! probe's `--redact` applied on request.

use std::collections::BTreeMap;

use crate::profile::document::{Profile, ProfileError, parse_profile};

/// One node of a fleet: its profile and where it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetNode {
    /// Where the profile came from: the input's name for a single-profile file, `name:LINE`
    /// (1-based) for a line of a JSON-lines fleet file.
    pub source: String,
    /// The node's profile.
    pub profile: Profile,
}

impl FleetNode {
    /// How reports name the node: its host name, or its source when the host name was redacted
    /// or never recorded.
    pub fn label(&self) -> &str {
        self.profile
            .host
            .hostname
            .as_deref()
            .filter(|h| !h.is_empty())
            .unwrap_or(&self.source)
    }
}

/// An input (or a line of one) that is not a usable profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Damaged {
    /// The input's name.
    pub source: String,
    /// The line of a fleet file (JSON lines) that was damaged; `None` for a whole input.
    pub line: Option<usize>,
    /// Why: the input was empty, or the profile's own error (`None`: empty).
    pub error: Option<ProfileError>,
}

impl Damaged {
    /// Why, in English, e.g. `line 7: not valid JSON (line 1, column 80): EOF while parsing an
    /// object` (the CLI's wording; the site words `line` and `error` in its language).
    pub fn reason(&self) -> String {
        let why = match &self.error {
            Some(e) => e.to_string(),
            None => "empty: no profile in it".to_owned(),
        };
        match self.line {
            Some(n) => format!("line {n}: {why}"),
            None => why,
        }
    }
}

/// A profile dropped because an earlier one describes the same node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The source of the profile kept (the first one read).
    pub kept: String,
    /// The source of the profile dropped.
    pub dropped: String,
}

/// The outcome of a merge: the nodes kept, in input order, and what was left out and why.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Merged {
    /// One entry per distinct node, in the order first read.
    pub nodes: Vec<FleetNode>,
    /// Profiles of a node already read.
    pub duplicates: Vec<Duplicate>,
    /// Inputs and lines that could not be read as profiles.
    pub damaged: Vec<Damaged>,
}

/// What makes two profiles the same node: the host name and the set of GPU (and MIG) UUIDs, or
/// the GPU names when no UUID was recorded. A profile with neither host name nor UUID (redacted)
/// adds its creation time and the probe's process id, so only a copy of the same run matches.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Identity {
    host: Option<String>,
    gpus: Vec<String>,
    run: Option<(String, Option<u32>)>,
}

fn identity(p: &Profile) -> Identity {
    let mut uuids: Vec<String> = p
        .gpus
        .iter()
        .flat_map(|g| {
            g.uuid
                .iter()
                .chain(g.mig_devices.iter().filter_map(|m| m.uuid.as_ref()))
        })
        .cloned()
        .collect();
    uuids.sort();
    uuids.dedup();
    let host = p.host.hostname.clone().filter(|h| !h.is_empty());
    let anonymous = host.is_none() && uuids.is_empty();
    let gpus = if uuids.is_empty() {
        p.gpus.iter().map(|g| g.name.clone()).collect()
    } else {
        uuids
    };
    Identity {
        host,
        gpus,
        run: anonymous.then(|| (p.created_at.clone(), p.own_pid)),
    }
}

/// Drops what the probe's `--redact` drops: the host name, GPU and MIG UUIDs, PCI bus ids, and
/// UUIDs in visible-device variables.
pub fn redact(profile: &mut Profile) {
    profile.host.hostname = None;
    for g in &mut profile.gpus {
        g.uuid = None;
        g.pci_bus_id = None;
        for m in &mut g.mig_devices {
            m.uuid = None;
        }
    }
    profile.sharing_markers.redact();
}

/// Whether a line is a JSON object on its own (a line of a JSON-lines file, never a line of a
/// pretty-printed profile).
fn is_object_line(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('{')
        && t.ends_with('}')
        && serde_json::from_str::<serde_json::Value>(t).is_ok_and(|v| v.is_object())
}

/// Reads one input into `(source, profile or reason)` entries: the whole text as one profile, or,
/// when it is not one and at least one of its lines is a JSON object on its own, each non-empty
/// line as one profile.
fn read_input(name: &str, text: &str, out: &mut Vec<(String, Result<Profile, Damaged>)>) {
    if text.trim().is_empty() {
        out.push((
            name.to_owned(),
            Err(Damaged {
                source: name.to_owned(),
                line: None,
                error: None,
            }),
        ));
        return;
    }
    let whole = parse_profile(text);
    let lines = match &whole {
        Ok(_) => false,
        Err(_) => {
            text.lines().filter(|l| !l.trim().is_empty()).count() > 1
                && text.lines().any(is_object_line)
        }
    };
    if !lines {
        let entry = whole.map_err(|e| Damaged {
            source: name.to_owned(),
            line: None,
            error: Some(e),
        });
        out.push((name.to_owned(), entry));
        return;
    }
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let n = i + 1;
        let entry = parse_profile(line).map_err(|e| Damaged {
            source: name.to_owned(),
            line: Some(n),
            error: Some(e),
        });
        out.push((format!("{name}:{n}"), entry));
    }
}

/// Merges inputs — `(name, text)`, each text one profile (pretty or compact JSON) or a JSON-lines
/// fleet file — into one fleet. Duplicates (the same host name and set of GPU UUIDs, or of GPU
/// names when no UUID was recorded) keep the first one read. Damaged inputs and lines are
/// reported and the rest kept. With `redact`, every kept profile loses what the probe's
/// `--redact` drops, after duplicates were recognised by it.
pub fn merge(inputs: &[(String, String)], redact_nodes: bool) -> Merged {
    merge_texts(
        inputs.iter().map(|(n, t)| (n.as_str(), t.as_str())),
        redact_nodes,
    )
}

fn merge_texts<'a>(inputs: impl Iterator<Item = (&'a str, &'a str)>, redact_nodes: bool) -> Merged {
    let mut read = Vec::new();
    for (name, text) in inputs {
        read_input(name, text, &mut read);
    }
    let mut merged = Merged::default();
    let mut seen: BTreeMap<Identity, String> = BTreeMap::new();
    for (source, entry) in read {
        match entry {
            Err(d) => merged.damaged.push(d),
            Ok(mut profile) => {
                let id = identity(&profile);
                if let Some(kept) = seen.get(&id) {
                    merged.duplicates.push(Duplicate {
                        kept: kept.clone(),
                        dropped: source,
                    });
                    continue;
                }
                seen.insert(id, source.clone());
                if redact_nodes {
                    redact(&mut profile);
                }
                merged.nodes.push(FleetNode { source, profile });
            }
        }
    }
    merged
}

/// Reads a fleet file (JSON lines, one profile per line; a single profile is read too): damaged
/// lines are reported with their line number and the rest kept; duplicates are dropped as by
/// [`merge`].
pub fn parse_fleet(name: &str, text: &str) -> Merged {
    merge_texts(std::iter::once((name, text)), false)
}

/// Writes nodes as JSON lines: one compact profile per line, each line ending in a newline.
pub fn fleet_to_jsonl(nodes: &[FleetNode]) -> String {
    let mut out = String::new();
    for n in nodes {
        // Serialising these plain types cannot fail: no maps with non-string keys.
        if let Ok(line) = serde_json::to_string(&n.profile) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}
