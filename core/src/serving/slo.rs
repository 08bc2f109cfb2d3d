//! Replicas for each hour and the share of requests that meet their targets.
//!
//! An hour needs `⌈rps / (capacity × headroom)⌉` replicas, where the capacity is a replica's
//! requests per second at the largest batch meeting the targets (`Replica::capacity`) and the
//! headroom ([`DEFAULT_HEADROOM`], an assumption) keeps replicas below full load so that bursts
//! inside the hour and queueing do not push latencies past the targets. With fewer replicas
//! running than needed, the requests beyond what they complete at capacity miss their targets:
//! a share `max(0, 1 − running × capacity / rps)` of the hour's requests (requests above capacity
//! queue, and a queue that grows for the rest of the hour misses any latency target).

/// Share of a replica's capacity an hour's mean load may use: 0.8, an assumption (it absorbs
/// bursts within the hour; the Azure 2023 traces' 60-second P99 rate is 1.45-3.45x the hour's
/// mean, so short bursts are missed anyway).
pub const DEFAULT_HEADROOM: f64 = 0.8;
/// The most replicas a deployment may run.
pub const MAX_REPLICAS: u32 = 10_000;

/// Replicas needed for `rps` when one completes `capacity_rps` within the targets: 0 without
/// traffic, [`MAX_REPLICAS`] when no replica can meet the targets (`capacity_rps` 0).
pub fn replicas_needed(rps: f64, capacity_rps: f64, headroom: f64) -> u32 {
    if !(rps.is_finite() && rps > 0.0) {
        return 0;
    }
    let per_replica = capacity_rps * headroom.clamp(0.01, 1.0);
    if !(per_replica.is_finite() && per_replica > 0.0) {
        return MAX_REPLICAS;
    }
    let n = libm::ceil(rps / per_replica);
    if n >= f64::from(MAX_REPLICAS) {
        MAX_REPLICAS
    } else {
        n.max(0.0) as u32
    }
}

/// Share of `rps` that misses its targets with `running` replicas (a fraction allowed) that each
/// complete `capacity_rps` within them: `max(0, 1 − running × capacity / rps)`, 0 without traffic.
pub fn missed_share(rps: f64, running: f64, capacity_rps: f64) -> f64 {
    if !(rps.is_finite() && rps > 0.0) {
        return 0.0;
    }
    let served = (running.max(0.0) * capacity_rps.max(0.0)).min(rps);
    if served.is_finite() {
        (1.0 - served / rps).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Replicas needed in each hour of `rps_by_hour`.
pub fn replicas_by_hour(rps_by_hour: &[f64], capacity_rps: f64, headroom: f64) -> Vec<u32> {
    rps_by_hour
        .iter()
        .map(|r| replicas_needed(*r, capacity_rps, headroom))
        .collect()
}

/// Share of all requests meeting their targets when `running[h]` replicas run in hour `h`
/// (request-weighted over the hours; 1 without traffic).
pub fn attainment(rps_by_hour: &[f64], running: &[f64], capacity_rps: f64) -> f64 {
    let (mut total, mut missed) = (0.0, 0.0);
    for (rps, n) in rps_by_hour.iter().zip(running) {
        if rps.is_finite() && *rps > 0.0 {
            total += rps;
            missed += rps * missed_share(*rps, *n, capacity_rps);
        }
    }
    if total > 0.0 {
        1.0 - missed / total
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_rise_with_traffic_and_misses_with_too_few() {
        assert_eq!(replicas_needed(0.0, 10.0, 0.8), 0);
        assert_eq!(replicas_needed(8.0, 10.0, 0.8), 1);
        assert_eq!(replicas_needed(8.1, 10.0, 0.8), 2);
        assert_eq!(replicas_needed(1.0, 0.0, 0.8), MAX_REPLICAS);
        assert_eq!(replicas_needed(f64::MAX, 1e-300, 0.8), MAX_REPLICAS);
        assert_eq!(missed_share(20.0, 1.0, 10.0), 0.5);
        assert_eq!(missed_share(20.0, 3.0, 10.0), 0.0);
        let rps = [10.0, 30.0];
        assert_eq!(replicas_by_hour(&rps, 10.0, 1.0), vec![1, 3]);
        assert_eq!(attainment(&rps, &[1.0, 3.0], 10.0), 1.0);
        assert!((attainment(&rps, &[1.0, 2.0], 10.0) - 0.75).abs() < 1e-12);
        assert_eq!(attainment(&[0.0], &[0.0], 0.0), 1.0);
    }
}
