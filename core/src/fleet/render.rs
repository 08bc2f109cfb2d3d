//! A fleet report for people and for Prometheus: a plain-text table for a terminal, Markdown,
//! and the Prometheus text exposition format as node_exporter's textfile collector reads it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::fleet::figures::{Figure, members};
use crate::fleet::merge::FleetNode;
use crate::fleet::report::{FleetReport, GroupReport, Outlier};

/// A figure for a table: whole numbers for large values, three significant-ish digits else.
pub fn number(x: f64) -> String {
    if !x.is_finite() {
        return "-".to_owned();
    }
    let a = x.abs();
    if a >= 1000.0 || (a >= 10.0 && x.fract() == 0.0) {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 || a == 0.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn outlier_detail(o: &Outlier) -> String {
    match (o.figure, o.value, o.low, o.high) {
        (Some(f), Some(v), Some(lo), Some(hi)) => format!(
            "{} {} outside {}..{} (median {})",
            number(v),
            f.unit(),
            number(lo),
            number(hi),
            o.median.map_or_else(|| "-".to_owned(), number)
        ),
        _ => match (o.level, o.finding) {
            (Some(l), Some(f)) => format!("{} {}", l.id(), f.id()),
            _ => String::new(),
        },
    }
}

fn gpu_text(gpu: Option<u32>) -> String {
    gpu.map_or_else(|| "-".to_owned(), |g| g.to_string())
}

/// Lays out rows as columns padded to their widest cell (counted in characters).
fn columns(rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = Vec::new();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            let w = c.chars().count();
            match widths.get_mut(i) {
                Some(x) => *x = (*x).max(w),
                None => widths.push(w),
            }
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            let w = widths.get(i).copied().unwrap_or(0);
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(c);
            if i + 1 < r.len() {
                line.extend(std::iter::repeat_n(
                    ' ',
                    w.saturating_sub(c.chars().count()),
                ));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn figure_rows(g: &GroupReport) -> Vec<Vec<String>> {
    let mut rows = vec![
        ["figure", "unit", "n", "P5", "P50", "P95", "band"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for s in &g.figures {
        rows.push(vec![
            s.figure.id().to_owned(),
            s.figure.unit().to_owned(),
            s.n.to_string(),
            number(s.p5),
            number(s.p50),
            number(s.p95),
            if s.judged {
                format!("{}..{}", number(s.low), number(s.high))
            } else {
                "not judged".to_owned()
            },
        ]);
    }
    rows
}

fn verdict_text(g: &GroupReport) -> String {
    g.verdicts
        .iter()
        .map(|v| {
            format!(
                "{} {} {} ×{}",
                v.kind.id(),
                v.level.id(),
                v.finding.id(),
                v.count
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn outlier_rows(r: &FleetReport) -> Vec<Vec<String>> {
    let mut rows = vec![
        ["node", "gpu", "group", "reason", "check", "detail"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for o in &r.outliers {
        rows.push(vec![
            o.node.clone(),
            gpu_text(o.gpu),
            o.group.clone(),
            o.reason.id().to_owned(),
            o.check().to_owned(),
            outlier_detail(o),
        ]);
    }
    rows
}

/// Escapes a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

fn markdown_table(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r.iter().map(|c| cell(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
        if i == 0 {
            let _ = writeln!(out, "|{}", "---|".repeat(r.len()));
        }
    }
    out
}

fn finding_rows(r: &FleetReport) -> Vec<Vec<String>> {
    let mut rows = vec![
        ["group", "verdict", "level", "finding", "nodes"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for f in &r.group_findings {
        rows.push(vec![
            f.group.clone(),
            f.verdict.id().to_owned(),
            f.level.id().to_owned(),
            f.finding.id().to_owned(),
            format!("{} of {}", f.nodes, f.of),
        ]);
    }
    rows
}

/// One piece of the report, laid out by [`report_table`] or [`report_markdown`].
enum Block {
    /// The fleet's summary line.
    Summary(String),
    /// A group's heading and its summary line.
    Group(String, String),
    /// A table: a header row, then rows.
    Table(Vec<Vec<String>>),
    /// A line of text after the group's table.
    Note(String),
    /// A section of the fleet: its title, then a table, or the words for none.
    Section(String, Result<Vec<Vec<String>>, &'static str>),
}

/// The report as blocks: the fleet, each group with its figures and verdict counts, the group
/// findings, then the outliers.
fn blocks(r: &FleetReport) -> Vec<Block> {
    let mut out = vec![Block::Summary(format!(
        "{} nodes in {} groups; {} with outliers; {} group findings",
        r.nodes,
        r.groups.len(),
        r.outlier_nodes,
        r.group_findings.len()
    ))];
    for g in &r.groups {
        out.push(Block::Group(
            g.id.clone(),
            format!(
                "{} nodes, {} GPUs, {} with outliers, {} group findings",
                g.nodes, g.gpus, g.outlier_nodes, g.findings
            ),
        ));
        if !g.figures.is_empty() {
            out.push(Block::Table(figure_rows(g)));
        }
        if !g.verdicts.is_empty() {
            out.push(Block::Note(format!("verdicts: {}", verdict_text(g))));
        }
    }
    let findings = if r.group_findings.is_empty() {
        Err("none")
    } else {
        Ok(finding_rows(r))
    };
    out.push(Block::Section(
        format!(
            "group findings: verdicts most of a group carries ({})",
            r.group_findings.len()
        ),
        findings,
    ));
    let outliers = if r.outliers.is_empty() {
        Err("none")
    } else {
        Ok(outlier_rows(r))
    };
    out.push(Block::Section(
        format!(
            "outliers: nodes that differ from their group ({})",
            r.outliers.len()
        ),
        outliers,
    ));
    out
}

/// The report as plain text for a terminal: per group its counts, figure spreads and verdict
/// counts, then the group findings and every outlier.
pub fn report_table(r: &FleetReport) -> String {
    let mut out = String::new();
    for b in blocks(r) {
        match b {
            Block::Summary(line) => {
                let _ = writeln!(out, "{line}");
            }
            Block::Group(id, line) => {
                let _ = writeln!(out, "\n{id}: {line}");
            }
            Block::Table(rows) => out.push_str(&columns(&rows)),
            Block::Note(line) => {
                let _ = writeln!(out, "{line}");
            }
            Block::Section(title, Ok(rows)) => {
                let _ = writeln!(out, "\n{title}:");
                out.push_str(&columns(&rows));
            }
            Block::Section(title, Err(none)) => {
                let _ = writeln!(out, "\n{title}: {none}");
            }
        }
    }
    out
}

/// `text` with its first letter in upper case (the texts here are ASCII).
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// The report as Markdown: a heading per group with its figure table and verdict counts, then
/// the group findings and the outlier table.
pub fn report_markdown(r: &FleetReport) -> String {
    let mut out = String::new();
    for b in blocks(r) {
        match b {
            Block::Summary(line) => {
                let _ = writeln!(out, "# Fleet report\n\n{line}.");
            }
            Block::Group(id, line) => {
                let _ = writeln!(out, "\n## {}\n\n{line}.\n", cell(&id));
            }
            Block::Table(rows) => out.push_str(&markdown_table(&rows)),
            Block::Note(line) => {
                let _ = writeln!(out, "\n{}.", cell(&capitalised(&line)));
            }
            Block::Section(title, rows) => {
                let _ = writeln!(out, "\n## {}\n", cell(&capitalised(&title)));
                match rows {
                    Ok(rows) => out.push_str(&markdown_table(&rows)),
                    Err(none) => {
                        let _ = writeln!(out, "{}.", capitalised(none));
                    }
                }
            }
        }
    }
    out
}

/// The Prometheus metric of a figure and the factor from the figure's unit to the metric's
/// base unit (bytes, bits, seconds, ratios).
pub fn metric_of(figure: Figure) -> (&'static str, f64) {
    match figure {
        Figure::GemmTflops => ("gpufare_gemm_tflops", 1.0),
        Figure::StepP99P50 => ("gpufare_gemm_step_p99_p50_ratio", 1.0),
        Figure::H2dGbS => ("gpufare_h2d_bytes_per_second", 1e9),
        Figure::PcieGen => ("gpufare_pcie_link_generation", 1.0),
        Figure::PcieWidthLanes => ("gpufare_pcie_link_width_lanes", 1.0),
        Figure::VisibleVramGib => ("gpufare_gpu_memory_visible_bytes", 1_073_741_824.0),
        Figure::UtilBeforeLoadP95Pct => ("gpufare_gpu_utilization_before_load_p95_ratio", 0.01),
        Figure::DiskReadMbS => ("gpufare_disk_read_bytes_per_second", 1e6),
        Figure::DiskWriteMbS => ("gpufare_disk_write_bytes_per_second", 1e6),
        Figure::DiskRandReadIops => ("gpufare_disk_random_read_iops", 1.0),
        Figure::DownloadMbitS => ("gpufare_network_download_bits_per_second", 1e6),
    }
}

fn help_of(figure: Figure) -> &'static str {
    match figure {
        Figure::GemmTflops => {
            "Achieved FP16 GEMM TFLOPS at the median step time (gpufare probe --bench)."
        }
        Figure::StepP99P50 => "GEMM step time P99 over P50 (gpufare probe --bench).",
        Figure::H2dGbS => "Pinned host-to-device copy bandwidth, bytes per second.",
        Figure::PcieGen => "Best PCIe generation the GPU and slot allow together.",
        Figure::PcieWidthLanes => "PCIe lanes the link runs with.",
        Figure::VisibleVramGib => "GPU memory NVML shows, bytes.",
        Figure::UtilBeforeLoadP95Pct => {
            "P95 of GPU utilisation before any load of gpufare's, ratio 0-1."
        }
        Figure::DiskReadMbS => "Sequential disk read (O_DIRECT, 1 MiB blocks), bytes per second.",
        Figure::DiskWriteMbS => "Sequential disk write (O_DIRECT, 1 MiB blocks), bytes per second.",
        Figure::DiskRandReadIops => "4 KiB random disk reads per second.",
        Figure::DownloadMbitS => "Best network download rate (iperf3 -R or HTTP), bits per second.",
    }
}

/// Escapes a label value: backslash, double quote and line feed.
fn label_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

fn labels(pairs: &[(&str, String)]) -> String {
    if pairs.is_empty() {
        return String::new();
    }
    let inner: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", label_value(v)))
        .collect();
    format!("{{{}}}", inner.join(","))
}

/// Metric families in the order written, each with its help text and samples.
#[derive(Default)]
struct Families {
    order: Vec<&'static str>,
    seen: std::collections::BTreeSet<String>,
    families: BTreeMap<&'static str, (&'static str, Vec<String>)>,
}

impl Families {
    fn sample(&mut self, name: &'static str, help: &'static str, labels: String, value: f64) {
        // A series appears once: the first sample of a name and label set is kept.
        if !self.seen.insert(format!("{name}{labels}")) {
            return;
        }
        let entry = self.families.entry(name).or_insert_with(|| {
            self.order.push(name);
            (help, Vec::new())
        });
        entry.1.push(format!("{name}{labels} {value}"));
    }

    fn write(self) -> String {
        let mut out = String::new();
        let mut families = self.families;
        for name in self.order {
            if let Some((help, samples)) = families.remove(name) {
                let _ = writeln!(out, "# HELP {name} {help}");
                let _ = writeln!(out, "# TYPE {name} gauge");
                for s in samples {
                    out.push_str(&s);
                    out.push('\n');
                }
            }
        }
        out
    }
}

/// The fleet's figures, verdicts and outliers in the Prometheus text exposition format, for
/// node_exporter's textfile collector (write it to `*.prom` in its directory). Every metric is a
/// gauge named `gpufare_…` in base units, each family with `# HELP` and `# TYPE`:
///
/// - `gpufare_fleet_nodes`, `gpufare_fleet_outlier_nodes` — no labels;
/// - `gpufare_group_nodes`, `gpufare_group_outlier_nodes` — `group`, `gpu_model`, `capacity`;
/// - `gpufare_group_finding_nodes` (nodes carrying a verdict most of the group carries) —
///   `group`, `kind`, `level`, `finding`;
/// - `gpufare_node_info` (always 1) — `host`, `source`, `group`, `gpu_model`, `capacity`;
/// - one gauge per figure (see [`metric_of`]) — `host`, `source`, `group`, and `gpu` for a
///   per-GPU figure;
/// - `gpufare_verdict_level` (0 ok, 1 info, 2 warn, 3 alert) — `host`, `source`, `group`, `gpu`
///   when about one GPU, `kind`, `finding`;
/// - `gpufare_outlier` (always 1) — `host`, `source`, `group`, `gpu` when about one GPU,
///   `check` (the figure or verdict kind), `reason` (`below_band`, `above_band`, `verdict`).
///
/// `host` is the node's host name, or its source when redacted; `source` keeps two profiles of
/// one host apart (two pods on one node).
pub fn prometheus_text(r: &FleetReport, nodes: &[FleetNode]) -> String {
    let mut f = Families::default();
    f.sample(
        "gpufare_fleet_nodes",
        "Nodes in the fleet report.",
        String::new(),
        r.nodes as f64,
    );
    f.sample(
        "gpufare_fleet_outlier_nodes",
        "Nodes with at least one outlier.",
        String::new(),
        r.outlier_nodes as f64,
    );
    let group_labels = |g: &GroupReport| {
        labels(&[
            ("group", g.id.clone()),
            ("gpu_model", g.gpu.clone()),
            ("capacity", g.capacity.id().to_owned()),
        ])
    };
    for g in &r.groups {
        f.sample(
            "gpufare_group_nodes",
            "Nodes in the group (GPU model and kind of capacity).",
            group_labels(g),
            g.nodes as f64,
        );
    }
    for g in &r.groups {
        f.sample(
            "gpufare_group_outlier_nodes",
            "Nodes of the group with at least one outlier.",
            group_labels(g),
            g.outlier_nodes as f64,
        );
    }
    for g in &r.group_findings {
        f.sample(
            "gpufare_group_finding_nodes",
            "Nodes of the group carrying a verdict that most of the group carries (a group finding, not an outlier).",
            labels(&[
                ("group", g.group.clone()),
                ("kind", g.verdict.id().to_owned()),
                ("level", g.level.id().to_owned()),
                ("finding", g.finding.id().to_owned()),
            ]),
            g.nodes as f64,
        );
    }
    let mut info = Vec::new();
    let mut figures: BTreeMap<Figure, Vec<(String, f64)>> = BTreeMap::new();
    let mut verdicts = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let host = n.label().to_owned();
        for m in members(i, &n.profile) {
            let group = m.key.id();
            let base = |gpu: Option<u32>| {
                let mut l = vec![
                    ("host", host.clone()),
                    ("source", n.source.clone()),
                    ("group", group.clone()),
                ];
                if let Some(g) = gpu {
                    l.push(("gpu", g.to_string()));
                }
                l
            };
            let mut l = base(None);
            l.push(("gpu_model", m.key.gpu.clone()));
            l.push(("capacity", m.key.capacity.id().to_owned()));
            info.push(labels(&l));
            for v in &m.values {
                let (_, scale) = metric_of(v.figure);
                figures
                    .entry(v.figure)
                    .or_default()
                    .push((labels(&base(v.gpu)), v.value * scale));
            }
            for v in &m.verdicts {
                let mut l = base(v.gpu);
                l.push(("kind", v.kind.id().to_owned()));
                l.push(("finding", v.finding.id().to_owned()));
                let level = crate::profile::verdict::Level::ALL
                    .iter()
                    .position(|x| *x == v.level)
                    .unwrap_or(0);
                verdicts.push((labels(&l), level as f64));
            }
        }
    }
    for l in info {
        f.sample(
            "gpufare_node_info",
            "A node of the fleet and its group; always 1.",
            l,
            1.0,
        );
    }
    for (figure, samples) in figures {
        let (name, _) = metric_of(figure);
        for (l, v) in samples {
            f.sample(name, help_of(figure), l, v);
        }
    }
    for (l, v) in verdicts {
        f.sample(
            "gpufare_verdict_level",
            "A verdict's level: 0 ok, 1 info, 2 warn, 3 alert.",
            l,
            v,
        );
    }
    for o in &r.outliers {
        let mut l = vec![
            ("host", o.node.clone()),
            ("source", o.source.clone()),
            ("group", o.group.clone()),
        ];
        if let Some(g) = o.gpu {
            l.push(("gpu", g.to_string()));
        }
        l.push(("check", o.check().to_owned()));
        l.push(("reason", o.reason.id().to_owned()));
        f.sample(
            "gpufare_outlier",
            "A figure outside its group's band or a verdict at the rules' level; always 1.",
            labels(&l),
            1.0,
        );
    }
    f.write()
}
