//! The sampling window: utilisation, memory, PCIe throughput, SM clock, power, temperature and
//! throttle reasons of every GPU at a fixed interval, kept raw and summarised.
//!
//! It runs before the probe creates any CUDA context, so any load it sees is somebody else's.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use gpufare_core::profile::sampling::{GpuSamples, SamplingWindow, Series};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::gpu::{GpuSource, SampleRow};

/// How to sample.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub duration: Duration,
    pub interval: Duration,
    pub progress: bool,
}

/// Samples every GPU of `source`; `own_pid` is excluded from the foreign processes.
pub fn run(source: &dyn GpuSource, window: Window, own_pid: u32) -> SamplingWindow {
    let count = source.count();
    let steps = (window.duration.as_millis() / window.interval.as_millis().max(1)).max(1) as u64;
    let bar = if window.progress {
        let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "sampling {count} GPU(s) [{bar:30}] {pos}/{len} samples, {elapsed_precise}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_message(count.to_string());
        bar
    } else {
        ProgressBar::hidden()
    };
    let mut rows: Vec<Vec<SampleRow>> = vec![Vec::new(); count as usize];
    let start = Instant::now();
    for step in 0..steps {
        for (i, gpu_rows) in rows.iter_mut().enumerate() {
            gpu_rows.push(source.sample(i as u32));
        }
        bar.inc(1);
        let next = window.interval * (step as u32 + 1);
        if let Some(wait) = next.checked_sub(start.elapsed()) {
            std::thread::sleep(wait);
        }
    }
    bar.finish_and_clear();
    SamplingWindow {
        duration_s: start.elapsed().as_secs_f64(),
        interval_ms: window.interval.as_millis() as u64,
        gpus: rows
            .iter()
            .enumerate()
            .map(|(i, r)| summarise(i as u32, r, own_pid))
            .collect(),
    }
}

/// Turns one GPU's rows into named series, throttle counts and foreign PIDs.
pub fn summarise(index: u32, rows: &[SampleRow], own_pid: u32) -> GpuSamples {
    let mut metrics = BTreeMap::new();
    let mut add = |name: &str, pick: fn(&SampleRow) -> Option<f64>| {
        let values: Vec<f64> = rows.iter().filter_map(pick).collect();
        if !values.is_empty() {
            metrics.insert(name.to_owned(), Series::new(values));
        }
    };
    add("utilization_gpu_pct", |r| r.utilization_gpu_pct);
    add("memory_used_mib", |r| r.memory_used_mib);
    add("pcie_rx_mbps", |r| r.pcie_rx_mbps);
    add("pcie_tx_mbps", |r| r.pcie_tx_mbps);
    add("sm_clock_mhz", |r| r.sm_clock_mhz);
    add("power_w", |r| r.power_w);
    add("temperature_c", |r| r.temperature_c);
    let mut throttle_counts = BTreeMap::new();
    for r in rows {
        for reason in &r.throttle_reasons {
            *throttle_counts.entry(reason.clone()).or_insert(0) += 1;
        }
    }
    let mut foreign_pids: Vec<u32> = rows
        .iter()
        .flat_map(|r| r.pids.iter().copied())
        .filter(|p| *p != own_pid)
        .collect();
    foreign_pids.sort_unstable();
    foreign_pids.dedup();
    GpuSamples {
        index,
        metrics,
        throttle_counts,
        foreign_pids,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Replays recorded readings: a neighbour starts a job halfway through the window.
    struct Recorded {
        calls: Cell<u32>,
    }

    impl GpuSource for Recorded {
        fn count(&self) -> u32 {
            1
        }
        fn sample(&self, _: u32) -> SampleRow {
            let n = self.calls.get();
            self.calls.set(n + 1);
            let busy = n >= 5;
            SampleRow {
                utilization_gpu_pct: Some(if busy { 90.0 } else { 0.0 }),
                memory_used_mib: Some(if busy { 6000.0 } else { 4.0 }),
                power_w: None,
                throttle_reasons: if busy {
                    vec!["sw_power_cap".into()]
                } else {
                    vec!["gpu_idle".into()]
                },
                pids: if busy { vec![4242, 7] } else { vec![7] },
                ..SampleRow::default()
            }
        }
    }

    #[test]
    fn a_window_keeps_raw_samples_and_finds_the_neighbour() {
        let source = Recorded {
            calls: Cell::new(0),
        };
        let w = run(
            &source,
            Window {
                duration: Duration::from_millis(50),
                interval: Duration::from_millis(5),
                progress: false,
            },
            7,
        );
        assert_eq!(w.gpus.len(), 1);
        let g = &w.gpus[0];
        let util = &g.metrics["utilization_gpu_pct"];
        assert_eq!(util.samples.len(), 10);
        assert_eq!(util.summary.unwrap().max, 90.0);
        assert!(
            !g.metrics.contains_key("power_w"),
            "a metric NVML never gave is left out"
        );
        assert_eq!(g.foreign_pids, [4242]);
        assert_eq!(g.throttle_counts["sw_power_cap"], 5);
        assert!(w.duration_s >= 0.04);
    }
}
