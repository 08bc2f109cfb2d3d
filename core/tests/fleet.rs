//! Fleets: merging the probe's profiles, the rules file, the report's outliers on a synthetic
//! fleet of 10,000 nodes made from the test profiles with seeded noise, and the Prometheus text.

use std::collections::{BTreeMap, BTreeSet};

use gpufare_core::fleet::{
    Capacity, Figure, FleetNode, Reason, Rules, fleet_factors, fleet_to_jsonl, merge, parse_fleet,
    parse_rules, prometheus_text, report, report_markdown, report_table,
};
use gpufare_core::numbers::rng::Stream;
use gpufare_core::numbers::stats::Summary;
use gpufare_core::profile::verdict::{Finding, Level, Verdict, VerdictKind};
use gpufare_core::profile::{
    Direction, DiskReport, DiskTest, GpuBenchmark, Iperf3Result, NetworkReport, Profile, Series,
    analyse, parse_profile,
};

const FIXTURES: [(&str, &str); 6] = [
    (
        "capped-a100-pcie-gen3.json",
        include_str!("../../tests/profiles/capped-a100-pcie-gen3.json"),
    ),
    (
        "dedicated-h100.json",
        include_str!("../../tests/profiles/dedicated-h100.json"),
    ),
    (
        "hami-4090-neighbours.json",
        include_str!("../../tests/profiles/hami-4090-neighbours.json"),
    ),
    (
        "mig-a100-1g10gb.json",
        include_str!("../../tests/profiles/mig-a100-1g10gb.json"),
    ),
    (
        "v1-no-driver.json",
        include_str!("../../tests/profiles/v1-no-driver.json"),
    ),
    (
        "vgpu-v100d-8c.json",
        include_str!("../../tests/profiles/vgpu-v100d-8c.json"),
    ),
];

fn input(name: &str, text: &str) -> (String, String) {
    (name.to_owned(), text.to_owned())
}

#[test]
fn merging_the_fixtures_keeps_good_profiles_and_reports_the_rest() {
    let dedicated = FIXTURES[1].1;
    let capped = FIXTURES[0].1;
    let truncated = &capped[..capped.len() / 2];
    let newer = dedicated.replacen("\"format_version\": 2", "\"format_version\": 3", 1);
    assert_ne!(newer, dedicated);
    let compact = |text: &str| {
        serde_json::to_string(&serde_json::from_str::<serde_json::Value>(text).unwrap()).unwrap()
    };
    let jsonl = format!(
        "{}\n{{\"format_version\": 2, \"tool\":\n\n{}\n",
        compact(FIXTURES[3].1),
        compact(FIXTURES[5].1)
    );
    let mut inputs: Vec<(String, String)> =
        FIXTURES[..3].iter().map(|(n, t)| input(n, t)).collect();
    inputs.push(input("truncated.json", truncated));
    inputs.push(input("newer.json", &newer));
    inputs.extend(FIXTURES[3..].iter().map(|(n, t)| input(n, t)));
    inputs.push(input("copy-of-h100.json", dedicated));
    inputs.push(input("more.jsonl", &jsonl));
    inputs.push(input("empty.json", "\n"));
    let merged = merge(&inputs, false);

    let sources: Vec<&str> = merged.nodes.iter().map(|n| n.source.as_str()).collect();
    assert_eq!(
        sources,
        FIXTURES.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        "every fixture once, in input order"
    );
    let dups: Vec<(&str, &str)> = merged
        .duplicates
        .iter()
        .map(|d| (d.kept.as_str(), d.dropped.as_str()))
        .collect();
    assert_eq!(
        dups,
        [
            ("dedicated-h100.json", "copy-of-h100.json"),
            ("mig-a100-1g10gb.json", "more.jsonl:1"),
            ("vgpu-v100d-8c.json", "more.jsonl:4"),
        ]
    );
    let damaged: BTreeMap<&str, String> = merged
        .damaged
        .iter()
        .map(|d| (d.source.as_str(), d.reason()))
        .collect();
    // The typed parts the site words in its language: the line and the profile's own error.
    let jsonl = merged
        .damaged
        .iter()
        .find(|d| d.source == "more.jsonl")
        .unwrap();
    assert_eq!(jsonl.line, Some(2));
    assert!(matches!(
        jsonl.error,
        Some(gpufare_core::ProfileError::NotJson(_))
    ));
    let empty = merged
        .damaged
        .iter()
        .find(|d| d.source == "empty.json")
        .unwrap();
    assert_eq!((empty.line, &empty.error), (None, &None));
    assert_eq!(damaged.len(), 4, "{damaged:?}");
    assert!(
        damaged["truncated.json"].starts_with("not valid JSON"),
        "{damaged:?}"
    );
    assert!(
        damaged["newer.json"].contains("profile format version 3 is newer"),
        "{damaged:?}"
    );
    assert!(
        damaged["more.jsonl"].starts_with("line 2: not valid JSON"),
        "{damaged:?}"
    );
    assert!(damaged["empty.json"].contains("empty"), "{damaged:?}");

    // Written as JSON lines and read back: the same nodes.
    let text = fleet_to_jsonl(&merged.nodes);
    assert_eq!(text.lines().count(), merged.nodes.len());
    let back = parse_fleet("fleet.jsonl", &text);
    assert!(back.damaged.is_empty() && back.duplicates.is_empty());
    for (a, b) in back.nodes.iter().zip(&merged.nodes) {
        assert_eq!(a.profile, b.profile);
    }
    assert_eq!(back.nodes[2].source, "fleet.jsonl:3");

    // --redact: no host names, UUIDs or bus ids are left, and duplicates are still recognised.
    let mut with_ids: Profile = parse_profile(dedicated).unwrap();
    with_ids.gpus[0].uuid = Some("GPU-1234".into());
    with_ids.gpus[0].pci_bus_id = Some("00000000:19:00.0".into());
    let text = serde_json::to_string(&with_ids).unwrap();
    let redacted = merge(&[input("a.json", &text), input("b.json", &text)], true);
    assert_eq!(redacted.nodes.len(), 1);
    assert_eq!(redacted.duplicates.len(), 1);
    let p = &redacted.nodes[0].profile;
    assert_eq!(
        (
            p.host.hostname.as_deref(),
            p.gpus[0].uuid.as_deref(),
            p.gpus[0].pci_bus_id.as_deref()
        ),
        (None, None, None)
    );
    // A UUID tells two nodes apart even with one host name.
    let mut other = with_ids.clone();
    other.gpus[0].uuid = Some("GPU-5678".into());
    let two = merge(
        &[
            input("a.json", &text),
            input("c.json", &serde_json::to_string(&other).unwrap()),
        ],
        false,
    );
    assert_eq!(two.nodes.len(), 2);
}

#[test]
fn rules_refuse_an_unknown_key_by_name() {
    assert_eq!(parse_rules("rules.toml", "").unwrap(), Rules::default());
    assert_eq!(parse_rules("rules.json", "{}").unwrap(), Rules::default());
    let r = parse_rules(
        "rules.toml",
        "mad_k = 4\nmin_relative_band = 0.1\nverdict_level = \"alert\"\nignore_verdicts = [\"slice\", \"noisy_neighbour\"]\n[min_band]\ngemm_tflops = 2.5\n",
    )
    .unwrap();
    assert_eq!(r.mad_k, 4.0);
    assert_eq!(r.verdict_level, Level::Alert);
    assert_eq!(r.min_band_for(Figure::GemmTflops), 2.5);
    assert_eq!(r.min_band_for(Figure::UtilBeforeLoadP95Pct), 5.0);

    let e = parse_rules("rules.toml", "mad_k = 4\nmad_kk = 3\n").unwrap_err();
    assert!(e.to_string().contains("mad_kk"), "{e}");
    assert_eq!(e.unknown_key().as_deref(), Some("mad_kk"));
    let e = parse_rules("rules.json", r#"{"min_relative_band": 0.1, "k": 5}"#).unwrap_err();
    assert!(e.to_string().contains("unknown field `k`"), "{e}");
    assert_eq!(e.unknown_key().as_deref(), Some("k"));
    let e = parse_rules("r.toml", "[min_band]\ngemm_tflop = 1\n").unwrap_err();
    assert!(e.to_string().contains("gemm_tflop"), "{e}");

    let e = parse_rules("r.toml", "mad_k = -1\n").unwrap_err();
    assert!(e.to_string().contains("mad_k"), "{e}");
    let e = parse_rules("r.json", r#"{"format_version": 2}"#).unwrap_err();
    assert!(e.to_string().contains("newer"), "{e}");
    let e = parse_rules("r.toml", "mad_k = \"five\"\n").unwrap_err();
    assert!(e.to_string().contains("r.toml"), "{e}");
}

/// What was planted on a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Plant {
    Figure(Figure),
    Thermal,
}

/// The templates: each fixture with a benchmark, disk and network results and its verdicts
/// stored, so noise on the figures leaves its verdicts as they were.
fn templates() -> Vec<Profile> {
    FIXTURES
        .iter()
        .map(|(name, text)| {
            let mut p = parse_profile(text).unwrap();
            let summary = |p50: f64, p99: f64| Summary {
                n: 50,
                min: p50,
                p50,
                p95: p99,
                p99,
                max: p99,
                mean: p50,
                stddev: 0.0,
            };
            let tflops = match *name {
                "dedicated-h100.json" => Some(700.0),
                "hami-4090-neighbours.json" => Some(120.0),
                "mig-a100-1g10gb.json" => Some(33.0),
                "vgpu-v100d-8c.json" => Some(80.0),
                _ => None,
            };
            if let (Some(t), Some(g)) = (tflops, p.gpus.first()) {
                p.benchmarks.push(GpuBenchmark {
                    index: g.index,
                    h2d_gbs: Some(24.0),
                    gemm_size: Some(8192),
                    gemm_ms: Some(Series {
                        samples: vec![],
                        summary: Some(summary(1.5, 1.53)),
                    }),
                    achieved_tflops: Some(t),
                    cuda_total_bytes: None,
                    notes: vec![],
                });
            }
            let test = |mb: f64, iops: f64| DiskTest {
                block_bytes: 1 << 20,
                queue_depth: 32,
                seconds: 5.0,
                bytes: 1 << 30,
                mb_per_s: mb,
                iops,
                latency_ms: None,
                window_mb_per_s: None,
            };
            p.disk = Some(DiskReport {
                dir: "/data".into(),
                filesystem: Some("ext4".into()),
                mount_point: None,
                mount_source: None,
                free_bytes: None,
                total_bytes: None,
                file_size_bytes: 1 << 30,
                direct_io: true,
                engine: "linux-aio".into(),
                seq_write: Some(test(1500.0, 1500.0)),
                seq_read: Some(test(3000.0, 3000.0)),
                rand_read: Some(test(400.0, 100_000.0)),
                notes: vec![],
            });
            p.network = Some(NetworkReport {
                iperf3: vec![Iperf3Result {
                    server: "10.0.0.2:5201".into(),
                    direction: Direction::Download,
                    streams: 4,
                    seconds: 5.0,
                    bytes: None,
                    mbit_per_s: Some(9400.0),
                    stream_mbit_per_s: vec![],
                    retransmits: None,
                    error: None,
                }],
                http: vec![],
                rtt: vec![],
            });
            p.verdicts = analyse(&p);
            p
        })
        .collect()
}

fn scale(x: &mut f64, s: &mut Stream, sigma: f64) {
    *x *= 1.0 + sigma * s.normal_pair().0;
}

/// A fleet of `n` nodes from the templates in turn, with seeded noise of 0.7 % on every rate
/// (well inside the 5 % relative floor, as for identical nodes) and, with `plants`, five nodes
/// of each planted fault.
fn synthetic(n: usize, seed: u64, plants: bool) -> (Vec<FleetNode>, BTreeMap<usize, Plant>) {
    let templates = templates();
    let mut s = Stream::new(seed, "fleet-test");
    let mut nodes = Vec::with_capacity(n);
    for i in 0..n {
        let mut p = templates[i % templates.len()].clone();
        p.host.hostname = Some(format!("node-{i:05}"));
        for g in &mut p.gpus {
            g.uuid = Some(format!("GPU-{i:08x}-{}", g.index));
        }
        for b in &mut p.benchmarks {
            if let Some(t) = &mut b.achieved_tflops {
                scale(t, &mut s, 0.007);
            }
            if let Some(h) = &mut b.h2d_gbs {
                scale(h, &mut s, 0.007);
            }
            if let Some(sum) = b.gemm_ms.as_mut().and_then(|g| g.summary.as_mut()) {
                sum.p99 = sum.p50 * (1.02 + 0.003 * s.normal_pair().0.abs());
            }
        }
        if let Some(w) = &mut p.sampling {
            for g in &mut w.gpus {
                if let Some(sum) = g
                    .metrics
                    .get_mut("utilization_gpu_pct")
                    .and_then(|m| m.summary.as_mut())
                {
                    sum.p95 = (sum.p95 + 0.3 * s.normal_pair().0).max(0.0);
                }
            }
        }
        if let Some(d) = &mut p.disk {
            for t in [&mut d.seq_read, &mut d.seq_write, &mut d.rand_read]
                .into_iter()
                .flatten()
            {
                scale(&mut t.mb_per_s, &mut s, 0.007);
                scale(&mut t.iops, &mut s, 0.007);
            }
        }
        if let Some(r) = p
            .network
            .as_mut()
            .and_then(|n| n.iperf3.first_mut())
            .and_then(|r| r.mbit_per_s.as_mut())
        {
            scale(r, &mut s, 0.007);
        }
        nodes.push(FleetNode {
            source: format!("node-{i:05}.json"),
            profile: p,
        });
    }
    let mut planted = BTreeMap::new();
    if plants {
        let kinds = [
            Plant::Figure(Figure::GemmTflops),
            Plant::Figure(Figure::StepP99P50),
            Plant::Figure(Figure::H2dGbS),
            Plant::Figure(Figure::PcieWidthLanes),
            Plant::Figure(Figure::VisibleVramGib),
            Plant::Figure(Figure::UtilBeforeLoadP95Pct),
            Plant::Figure(Figure::DiskReadMbS),
            Plant::Figure(Figure::DiskWriteMbS),
            Plant::Figure(Figure::DiskRandReadIops),
            Plant::Figure(Figure::DownloadMbitS),
            Plant::Thermal,
        ];
        for kind in kinds {
            let mut done = 0;
            while done < 5 {
                let i = ((s.uniform() * n as f64) as usize).min(n - 1);
                if planted.contains_key(&i) {
                    continue;
                }
                let p = &mut nodes[i].profile;
                let applied = match kind {
                    Plant::Figure(Figure::GemmTflops) => p
                        .benchmarks
                        .first_mut()
                        .and_then(|b| b.achieved_tflops.as_mut())
                        .map(|t| *t *= 0.7)
                        .is_some(),
                    Plant::Figure(Figure::StepP99P50) => p
                        .benchmarks
                        .first_mut()
                        .and_then(|b| b.gemm_ms.as_mut())
                        .and_then(|g| g.summary.as_mut())
                        .map(|sum| sum.p99 = sum.p50 * 1.6)
                        .is_some(),
                    Plant::Figure(Figure::H2dGbS) => p
                        .benchmarks
                        .first_mut()
                        .and_then(|b| b.h2d_gbs.as_mut())
                        .map(|h| *h *= 0.5)
                        .is_some(),
                    Plant::Figure(Figure::PcieWidthLanes) => p
                        .gpus
                        .first_mut()
                        .and_then(|g| g.pcie.as_mut())
                        .and_then(|l| l.width_current.as_mut())
                        .map(|w| *w = 4)
                        .is_some(),
                    Plant::Figure(Figure::VisibleVramGib) => p
                        .gpus
                        .first_mut()
                        .and_then(|g| g.memory_total_bytes.as_mut())
                        .map(|m| *m /= 2)
                        .is_some(),
                    Plant::Figure(Figure::UtilBeforeLoadP95Pct) => p
                        .sampling
                        .as_mut()
                        .and_then(|w| w.gpus.first_mut())
                        .and_then(|g| g.metrics.get_mut("utilization_gpu_pct"))
                        .and_then(|m| m.summary.as_mut())
                        .filter(|sum| sum.p95 < 50.0)
                        .map(|sum| sum.p95 += 40.0)
                        .is_some(),
                    Plant::Figure(Figure::DiskReadMbS) => p
                        .disk
                        .as_mut()
                        .and_then(|d| d.seq_read.as_mut())
                        .map(|t| t.mb_per_s *= 0.3)
                        .is_some(),
                    Plant::Figure(Figure::DiskWriteMbS) => p
                        .disk
                        .as_mut()
                        .and_then(|d| d.seq_write.as_mut())
                        .map(|t| t.mb_per_s *= 0.5)
                        .is_some(),
                    Plant::Figure(Figure::DiskRandReadIops) => p
                        .disk
                        .as_mut()
                        .and_then(|d| d.rand_read.as_mut())
                        .map(|t| t.iops *= 0.6)
                        .is_some(),
                    Plant::Figure(Figure::DownloadMbitS) => p
                        .network
                        .as_mut()
                        .and_then(|n| n.iperf3.first_mut())
                        .and_then(|r| r.mbit_per_s.as_mut())
                        .map(|r| *r *= 0.25)
                        .is_some(),
                    Plant::Figure(_) => false,
                    Plant::Thermal => match p.gpus.first() {
                        Some(g) => {
                            p.verdicts.push(Verdict {
                                kind: VerdictKind::ThermalThrottling,
                                level: Level::Alert,
                                gpu: Some(g.index),
                                finding: Finding::ThermalSlowdown,
                                evidence: vec![],
                            });
                            true
                        }
                        None => false,
                    },
                };
                if applied {
                    planted.insert(i, kind);
                    done += 1;
                }
            }
        }
    }
    (nodes, planted)
}

/// The (kind, finding) of the verdicts at warning level or above that a template carries of
/// itself (a HAMi slice with a busy neighbour, a capped A100 in a Gen3 slot, ...), which every
/// node made from it rightly reports.
fn inherent(node: &FleetNode, rules: &Rules) -> BTreeSet<(VerdictKind, Finding)> {
    let templates = templates();
    let name = node
        .source
        .trim_start_matches("node-")
        .trim_end_matches(".json");
    let i: usize = name.parse().unwrap();
    templates[i % templates.len()]
        .verdicts
        .iter()
        .filter(|v| v.level >= rules.verdict_level && !rules.ignore_verdicts.contains(&v.kind))
        .map(|v| (v.kind, v.finding))
        .collect()
}

#[test]
fn every_planted_outlier_is_found_and_no_other_in_10000_nodes() {
    let rules = Rules::default();
    let (nodes, planted) = synthetic(10_000, 7, true);
    assert_eq!(planted.len(), 55);
    // Through the file format, as the CLI reads a merged fleet.
    let text = fleet_to_jsonl(&nodes);
    let merged = parse_fleet("fleet.jsonl", &text);
    assert!(merged.damaged.is_empty() && merged.duplicates.is_empty());
    assert_eq!(merged.nodes.len(), 10_000);
    let nodes: Vec<FleetNode> = merged
        .nodes
        .into_iter()
        .zip(&nodes)
        .map(|(m, n)| FleetNode {
            source: n.source.clone(),
            profile: m.profile,
        })
        .collect();
    let r = report(&nodes, &rules);
    assert_eq!(r.nodes, 10_000);
    let ids: Vec<&str> = r.groups.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "A100-80GB/whole_card",
            "A100-80GB/mig_1g.10gb",
            "GRID V100D-8C/vgpu",
            "H100-SXM/whole_card",
            "RTX4090/slice",
            "none/no_gpu",
        ],
        "{ids:?}"
    );
    for g in &r.groups {
        assert!((1666..=1667).contains(&g.nodes), "{}: {}", g.id, g.nodes);
    }
    let mig = r
        .groups
        .iter()
        .find(|g| g.capacity == Capacity::Mig)
        .unwrap();
    assert_eq!(mig.mig_profile.as_deref(), Some("1g.10gb"));

    for (&i, &plant) in &planted {
        let found = r.outliers.iter().any(|o| {
            o.index == i
                && match plant {
                    Plant::Figure(f) => o.figure == Some(f),
                    Plant::Thermal => o.verdict == Some(VerdictKind::ThermalThrottling),
                }
        });
        assert!(found, "planted {plant:?} on node {i} not found");
    }
    for o in &r.outliers {
        match o.reason {
            Reason::BelowBand | Reason::AboveBand => assert_eq!(
                planted.get(&o.index),
                o.figure.map(Plant::Figure).as_ref(),
                "a false outlier: {o:?}"
            ),
            Reason::Verdict => {
                let planted_here = planted.get(&o.index) == Some(&Plant::Thermal)
                    && o.verdict == Some(VerdictKind::ThermalThrottling);
                let own = inherent(&nodes[o.index], &rules)
                    .contains(&(o.verdict.unwrap(), o.finding.unwrap()));
                assert!(planted_here || own, "a false verdict outlier: {o:?}");
            }
        }
    }
    // Deterministic: the same fleet gives the same report, to the byte.
    assert_eq!(
        serde_json::to_string(&report(&nodes, &rules)).unwrap(),
        serde_json::to_string(&r).unwrap()
    );
    let table = report_table(&r);
    assert!(table.contains("H100-SXM/whole_card: 1667 nodes"), "{table}");
    let md = report_markdown(&r);
    assert!(md.contains("## Outliers") && md.contains("| node | gpu |"));

    // The group medians as the plan's factors.
    let factors = fleet_factors(&r);
    let h100 = factors.iter().find(|f| f.gpu == "H100-SXM").unwrap();
    assert!(!h100.shared && h100.tenancy.is_none());
    let s = h100.slowdown.unwrap();
    assert!(s.median > 1.0 && s.median < 1.1, "{s:?}");
    let mig = factors
        .iter()
        .find(|f| f.tenancy == Some(gpufare_core::offers::tenancy::Tenancy::Mig))
        .unwrap();
    assert!(mig.shared);
    for f in &factors {
        f.validate().unwrap();
        let download = f.io.unwrap().download_mbit_s.unwrap();
        assert!((download / 9400.0 - 1.0).abs() < 0.01, "{download}");
    }

    let families = check_prometheus(&prometheus_text(&r, &nodes), &r);
    for name in [
        "gpufare_gemm_tflops",
        "gpufare_h2d_bytes_per_second",
        "gpufare_disk_read_bytes_per_second",
        "gpufare_network_download_bits_per_second",
        "gpufare_verdict_level",
    ] {
        assert!(families.get(name).is_some_and(|n| *n > 0), "{name}");
    }
}

#[test]
fn a_noise_only_fleet_has_no_figure_outlier() {
    let rules = Rules::default();
    let (nodes, planted) = synthetic(10_000, 11, false);
    assert!(planted.is_empty());
    let r = report(&nodes, &rules);
    let figures: Vec<_> = r.outliers.iter().filter(|o| o.figure.is_some()).collect();
    assert!(figures.is_empty(), "{figures:?}");
    for o in &r.outliers {
        assert!(
            inherent(&nodes[o.index], &rules).contains(&(o.verdict.unwrap(), o.finding.unwrap())),
            "{o:?}"
        );
    }
    // With verdicts judged from `alert` on, the noise-only fleet has no outlier at all.
    let quiet = Rules {
        verdict_level: Level::Alert,
        ..Rules::default()
    };
    let r = report(&nodes, &quiet);
    assert!(r.outliers.is_empty(), "{:?}", r.outliers.first());
    assert_eq!(r.outlier_nodes, 0);
}

/// Parses Prometheus text line by line: metric names and label names are valid, every sample's
/// family has `# HELP` and `# TYPE` before it, no series repeats, every value is a number.
fn check_prometheus(text: &str, r: &gpufare_core::fleet::FleetReport) -> BTreeMap<String, usize> {
    fn is_name(s: &str) -> bool {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    }
    let mut help = BTreeSet::new();
    let mut typed = BTreeSet::new();
    let mut series = BTreeSet::new();
    let mut per_name: BTreeMap<String, usize> = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, doc) = rest.split_once(' ').unwrap();
            assert!(is_name(name) && !doc.is_empty(), "{line}");
            assert!(help.insert(name.to_owned()), "HELP twice: {line}");
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap();
            assert_eq!(kind, "gauge", "{line}");
            assert!(help.contains(name), "TYPE before HELP: {line}");
            assert!(typed.insert(name.to_owned()), "TYPE twice: {line}");
            continue;
        }
        assert!(!line.starts_with('#') && !line.is_empty(), "{line:?}");
        let (name_labels, value) = line.rsplit_once(' ').unwrap();
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("{line}"));
        assert!(value.is_finite(), "{line}");
        let name = name_labels.split('{').next().unwrap();
        assert!(is_name(name) && name.starts_with("gpufare_"), "{line}");
        assert!(typed.contains(name), "sample before its HELP/TYPE: {line}");
        if let Some(labels) = name_labels.strip_prefix(name)
            && !labels.is_empty()
        {
            let inner = labels.strip_prefix('{').unwrap().strip_suffix('}').unwrap();
            let mut rest = inner;
            while !rest.is_empty() {
                let (key, after) = rest.split_once("=\"").unwrap();
                assert!(is_name(key) && !key.starts_with("__"), "{line}");
                // The value ends at the first quote not escaped by a backslash.
                let mut end = None;
                let mut escaped = false;
                for (i, c) in after.char_indices() {
                    match c {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => {
                            end = Some(i);
                            break;
                        }
                        _ => escaped = false,
                    }
                }
                let end = end.unwrap_or_else(|| panic!("unterminated label: {line}"));
                rest = &after[end + 1..];
                rest = rest.strip_prefix(',').unwrap_or(rest);
            }
        }
        assert!(
            series.insert(name_labels.to_owned()),
            "series twice: {line}"
        );
        *per_name.entry(name.to_owned()).or_default() += 1;
    }
    let count = |name: &str| per_name.get(name).copied().unwrap_or(0);
    assert_eq!(count("gpufare_fleet_nodes"), 1);
    assert_eq!(count("gpufare_node_info"), r.nodes);
    assert_eq!(count("gpufare_outlier"), r.outliers.len());
    assert_eq!(count("gpufare_group_nodes"), r.groups.len());
    per_name
}

#[test]
fn prometheus_text_escapes_label_values() {
    let mut p = parse_profile(FIXTURES[1].1).unwrap();
    p.host.hostname = Some("odd \"host\"\\\nname".into());
    let nodes = vec![FleetNode {
        source: "x.json".into(),
        profile: p,
    }];
    let r = report(&nodes, &Rules::default());
    let text = prometheus_text(&r, &nodes);
    assert!(text.contains(r#"host="odd \"host\"\\\nname""#), "{text}");
    check_prometheus(&text, &r);
}

/// Issue 35, item 5: a condition most of a group shares is one group finding with its count, and
/// the nodes that stand out from their group are the only outliers. A 1,000-node fleet whose cards
/// all sit in a PCIe Gen3 slot with a lowered power limit (the capped A100 fixture), one node
/// whose GEMM runs at half speed and three nodes with a thermal alert of their own.
#[test]
fn a_condition_the_whole_group_shares_is_one_finding_and_the_odd_nodes_the_outliers() {
    let mut template = templates().into_iter().next().unwrap();
    let gpu = template.gpus.first().unwrap().index;
    template.benchmarks.push(GpuBenchmark {
        index: gpu,
        h2d_gbs: Some(11.0),
        gemm_size: Some(8192),
        gemm_ms: None,
        achieved_tflops: Some(180.0),
        cuda_total_bytes: None,
        notes: vec![],
    });
    template.verdicts = analyse(&template);
    let rules = Rules::default();
    // What every node of this fleet carries: the slot and the power cap, at least.
    let shared: BTreeSet<(VerdictKind, Level, Finding)> = template
        .verdicts
        .iter()
        .filter(|v| v.level >= rules.verdict_level && !rules.ignore_verdicts.contains(&v.kind))
        .map(|v| (v.kind, v.level, v.finding))
        .collect();
    let kinds: BTreeSet<VerdictKind> = shared.iter().map(|s| s.0).collect();
    assert!(kinds.len() >= 2, "the fixture's own warnings: {shared:?}");

    let mut s = Stream::new(35, "shared-condition");
    let (slow, hot) = (421, [7, 500, 993]);
    let nodes: Vec<FleetNode> = (0..1000)
        .map(|i| {
            let mut p = template.clone();
            p.host.hostname = Some(format!("node-{i:05}"));
            for g in &mut p.gpus {
                g.uuid = Some(format!("GPU-{i:08x}-{}", g.index));
            }
            if let Some(t) = p
                .benchmarks
                .first_mut()
                .and_then(|b| b.achieved_tflops.as_mut())
            {
                scale(t, &mut s, 0.007);
                if i == slow {
                    *t *= 0.5;
                }
            }
            if hot.contains(&i) {
                p.verdicts.push(Verdict {
                    kind: VerdictKind::ThermalThrottling,
                    level: Level::Alert,
                    gpu: Some(gpu),
                    finding: Finding::ThermalSlowdown,
                    evidence: vec![],
                });
            }
            FleetNode {
                source: format!("node-{i:05}.json"),
                profile: p,
            }
        })
        .collect();
    let r = report(&nodes, &rules);

    // Each shared warning once, with its count.
    let found: BTreeSet<(VerdictKind, Level, Finding)> = r
        .group_findings
        .iter()
        .map(|f| (f.verdict, f.level, f.finding))
        .collect();
    assert_eq!(found, shared);
    for f in &r.group_findings {
        assert_eq!((f.nodes, f.of), (1000, 1000), "{f:?}");
    }
    // The outliers: the slow node by its GEMM figure, the hot ones by their own alert.
    let mut outliers: Vec<(usize, Reason, &str)> = r
        .outliers
        .iter()
        .map(|o| (o.index, o.reason, o.check()))
        .collect();
    outliers.sort_unstable();
    let mut expected = vec![
        (slow, Reason::BelowBand, Figure::GemmTflops.id()),
        (hot[0], Reason::Verdict, VerdictKind::ThermalThrottling.id()),
        (hot[1], Reason::Verdict, VerdictKind::ThermalThrottling.id()),
        (hot[2], Reason::Verdict, VerdictKind::ThermalThrottling.id()),
    ];
    expected.sort_unstable();
    assert_eq!(outliers, expected);
    assert_eq!(r.outlier_nodes, 4);
    assert_eq!(
        r.groups.first().map(|g| (g.outlier_nodes, g.findings)),
        Some((4, shared.len()))
    );

    // The table says so in a few lines, not a thousand.
    let table = report_table(&r);
    assert!(table.contains("4 with outliers"), "{table}");
    assert!(table.contains("1000 of 1000"), "{table}");
    assert!(table.lines().count() < 60, "{table}");
    let md = report_markdown(&r);
    assert!(md.contains("## Group findings"), "{md}");

    // A shared condition in a group too small to have a majority stays with each node.
    let few = report(&nodes[..2], &rules);
    assert!(few.group_findings.is_empty());
    assert_eq!(few.outlier_nodes, 2);
}
