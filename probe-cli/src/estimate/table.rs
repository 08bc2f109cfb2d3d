//! `gpufare estimate` for the terminal: the estimate report and the presets as text tables.

use std::fmt::Write as _;

use gpufare_core::plan::feasibility::VramFit;
use gpufare_core::workload::llm::arch::LlmArch;
use gpufare_core::workload::report::{EstimateReport, Presets, WorkUnit};
use gpufare_core::workload::throughput::RunTime;

/// Formats a count with thousands separators and no decimals.
fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 { format!("-{out}") } else { out }
}

/// A parameter count as `6.74 B` or `40.0 M`.
fn count(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2} B", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.1} M", x / 1e6)
    } else {
        thousands(x)
    }
}

/// A number of hours with sensible precision.
fn hours(h: f64) -> String {
    if h >= 100.0 {
        thousands(h)
    } else if h >= 1.0 {
        format!("{h:.1}")
    } else {
        format!("{h:.2}")
    }
}

fn fit_word(f: VramFit) -> &'static str {
    match f {
        VramFit::Fits => "fits",
        VramFit::Tight => "tight",
        VramFit::Oom => "OOM",
    }
}

fn rate(t: &RunTime) -> String {
    if let Some(v) = t.tokens_per_second {
        format!("{} tokens/s", thousands(v))
    } else if let Some(v) = t.images_per_hour {
        format!("{} images/h", thousands(v))
    } else if let Some(v) = t.steps_per_hour {
        format!("{} steps/h", thousands(v))
    } else {
        String::new()
    }
}

/// The report as the terminal shows it.
pub fn report(r: &EstimateReport) -> String {
    let mut s = String::new();
    let m = r;
    let per = if m.gpus > 1 {
        format!("per GPU, {} GPUs", m.gpus)
    } else {
        "per GPU".to_owned()
    };
    let _ = writeln!(s, "Workload: {}", r.workload);
    let _ = writeln!(s, "VRAM need: {:.2} GiB {per}", m.vram_gib);
    let _ = writeln!(s);
    let _ = writeln!(s, "  {:<12} {:>9}", "component", "GiB");
    for (k, v) in m.breakdown.components() {
        let _ = writeln!(s, "  {k:<12} {v:>9.2}");
    }
    let _ = writeln!(s, "  {:<12} {:>9.2}", "total", m.vram_gib);
    let _ = writeln!(s);
    let active = if m.active_parameters < m.parameters {
        format!(", {} active per token", count(m.active_parameters))
    } else {
        String::new()
    };
    if m.trainable_parameters > 0.0 {
        let _ = writeln!(
            s,
            "Parameters: {}{active} (trainable {})",
            count(m.parameters),
            count(m.trainable_parameters)
        );
    } else {
        let _ = writeln!(s, "Parameters: {}{active}", count(m.parameters));
    }
    let _ = writeln!(s);
    let f = &r.fit;
    let _ = writeln!(
        s,
        "Fit against the {} catalog ({} offers): {} fit, {} tight, {} OOM{}",
        f.catalog,
        f.offers,
        f.fits,
        f.tight,
        f.oom,
        if f.too_few_gpus > 0 {
            format!(", {} with too few GPUs", f.too_few_gpus)
        } else {
            String::new()
        }
    );
    for (label, o) in [
        ("smallest slice", &f.smallest_slice),
        ("smallest dedicated", &f.smallest_dedicated),
    ] {
        match o {
            Some(o) => {
                let _ = writeln!(
                    s,
                    "  {label:<19} {:<36} {:<10} {:<21} {:>6.1} GiB  {}",
                    o.offer_id,
                    o.gpu,
                    o.tenancy.id(),
                    o.vram_gib,
                    fit_word(o.fit)
                );
            }
            None => {
                let _ = writeln!(s, "  {label:<19} none fits");
            }
        }
    }
    // When no single card holds it, the smallest machine that does, over all its GPUs.
    let one_card_fits = f
        .smallest_dedicated
        .as_ref()
        .is_some_and(|o| o.fit == VramFit::Fits);
    if !one_card_fits && m.gpus == 1 {
        match &f.smallest_machine {
            Some(mf) => {
                let o = &mf.offer;
                let _ = writeln!(
                    s,
                    "  {:<19} {:<36} {:<10} {:<21} {:>6.1} GiB  {} at {:.2} GiB per GPU over {} GPUs",
                    "smallest machine",
                    o.offer_id,
                    o.gpu,
                    o.tenancy.id(),
                    o.vram_gib,
                    fit_word(o.fit),
                    mf.need_gib,
                    mf.gpus
                );
            }
            None => {
                let _ = writeln!(s, "  {:<19} none holds it", "smallest machine");
            }
        }
    }
    if !r.run_time.is_empty() {
        let _ = writeln!(s);
        match r.work {
            Some(w) => {
                let _ = writeln!(s, "Run time for {} {}:", thousands(w.amount), unit(w.unit));
            }
            None => {
                let _ = writeln!(
                    s,
                    "Speed (give the work with --train-tokens, --generate-tokens, --images or --train-steps for hours):"
                );
            }
        }
        let _ = writeln!(
            s,
            "  {:<10} {:>9} {:>10} {:>18}  {:<7}  source",
            "gpu", "hours", "GPU-hours", "rate", "bound"
        );
        for t in &r.run_time {
            let bound = t.bound.id();
            let _ = writeln!(
                s,
                "  {:<10} {:>9} {:>10} {:>18}  {:<7}  {}",
                t.gpu,
                hours(t.hours),
                hours(t.gpu_hours),
                rate(t),
                bound,
                t.source
            );
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Task profile: vram_gib {:.2}, work_hours {} on {}, gpus {}",
        r.task.vram_gib,
        hours(r.task.work_hours),
        r.task.reference_gpu,
        r.task.gpus
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "Assumptions:");
    for a in &m.assumptions {
        let _ = writeln!(s, "  {} = {} ({})", a.id, a.value, a.source);
    }
    s
}

/// What the work is counted in, in words.
fn unit(u: WorkUnit) -> &'static str {
    match u {
        WorkUnit::TokensGenerated => "tokens generated",
        WorkUnit::TrainingTokens => "training tokens",
        WorkUnit::Images => "images",
        WorkUnit::TrainingSteps => "training steps",
    }
}

/// What sets an architecture apart, in a few words: experts, latent attention, sliding windows,
/// tied embeddings; `-` for a plain dense model with grouped-query attention.
fn features(a: &LlmArch) -> String {
    let mut parts = vec![];
    if let Some(m) = &a.moe {
        let shared = if m.shared_experts > 0 {
            format!(" + {} shared", m.shared_experts)
        } else {
            String::new()
        };
        let dense = if m.dense_layers > 0 {
            format!(
                ", {} dense layer{}",
                m.dense_layers,
                if m.dense_layers == 1 { "" } else { "s" }
            )
        } else {
            String::new()
        };
        parts.push(format!(
            "MoE {} of {} experts{shared} (ffn {}){dense}",
            m.experts_per_token, m.experts, m.expert_ffn
        ));
    }
    if let Some(m) = &a.mla {
        parts.push(format!(
            "MLA latent {} + rope {}",
            m.kv_lora_rank, m.qk_rope_head_dim
        ));
    }
    if let Some(w) = &a.sliding_window {
        let global = w.global_layers(a.layers);
        parts.push(format!(
            "window {} on {} of {} layers",
            w.window,
            a.layers - global,
            a.layers
        ));
    }
    if a.tied_embeddings {
        parts.push("tied embeddings".to_owned());
    }
    if parts.is_empty() {
        "-".to_owned()
    } else {
        parts.join("; ")
    }
}

/// The models and GPUs the estimator knows, as tables.
pub fn presets(list: &Presets) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "LLM presets (gpufare estimate llm --model ID)");
    let _ = writeln!(
        s,
        "  {:<16} {:>9} {:>9} {:>6} {:>6} {:>5} {:>8} {:>6} {:>7}  {:>14} {:>12}  features",
        "id",
        "params",
        "active",
        "layers",
        "hidden",
        "heads",
        "kv_heads",
        "ffn",
        "vocab",
        "KV fp16/token",
        "KV at 32K"
    );
    for p in &list.llm {
        let _ = writeln!(
            s,
            "  {:<16} {:>9} {:>9} {:>6} {:>6} {:>5} {:>8} {:>6} {:>7}  {:>10.1} KiB {:>8.2} GiB  {}",
            p.id,
            count(p.parameters),
            count(p.active_parameters),
            p.arch.layers,
            p.arch.hidden,
            p.arch.heads,
            p.arch.kv_heads,
            p.arch.ffn,
            p.arch.vocab,
            p.kv_cache_kib_per_token,
            p.kv_cache_gib_at_32k,
            features(&p.arch)
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "Diffusion models (gpufare estimate sd --model ID)");
    let _ = writeln!(
        s,
        "  {:<9} {:<24} {:>9} {:>10}  controlnets",
        "id", "name", "params", "native"
    );
    for m in &list.diffusion {
        let _ = writeln!(
            s,
            "  {:<9} {:<24} {:>9} {:>10}  {}",
            m.id,
            m.name,
            count(m.parameters),
            format!("{0}x{0}", m.native_px),
            if m.controlnets { "yes" } else { "no" }
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "GPUs (--gpu ID or all)");
    let _ = writeln!(
        s,
        "  {:<10} {:>8} {:>12} {:>11}",
        "id", "VRAM GB", "FP16 TFLOPS", "GB/s"
    );
    for g in &list.gpus {
        let _ = writeln!(
            s,
            "  {:<10} {:>8} {:>12} {:>11}",
            g.id, g.vram_gb, g.fp16_tflops, g.mem_bw_gbs
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(1234567.4), "1,234,567");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(count(6.738e9), "6.74 B");
        assert_eq!(count(41.9e6), "41.9 M");
        assert_eq!(hours(0.123), "0.12");
        assert_eq!(hours(12.34), "12.3");
        assert_eq!(hours(1234.0), "1,234");
    }
}
