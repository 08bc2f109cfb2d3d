//! TCP connect round-trip time: resolve once (timed apart), then time several connects — one
//! SYN/SYN-ACK each, so no raw sockets or ICMP are needed — and report the minimum and median
//! (the method of tools such as awsping; see docs/sources.md §6.6).
//!
//! [`REGIONS`] is a built-in list of cloud regional API endpoints, contacted only with
//! `--rtt-regions`.

use std::net::TcpStream;
use std::time::{Duration, Instant};

use gpufare_core::numbers::stats::summarize;
use gpufare_core::profile::network::RttResult;

use super::{CONNECT_TIMEOUT, describe, resolve, split_host_port};

/// Regional endpoints (region label, `host:port`) of providers in the catalog: the public
/// regional API hosts that tools such as awsping time (`ec2.<region>.amazonaws.com`) and the
/// equivalent regional ECS endpoints of Alibaba Cloud. Only contacted with `--rtt-regions`.
pub const REGIONS: &[(&str, &str)] = &[
    ("aws us-east-1", "ec2.us-east-1.amazonaws.com:443"),
    ("aws us-west-2", "ec2.us-west-2.amazonaws.com:443"),
    ("aws eu-central-1", "ec2.eu-central-1.amazonaws.com:443"),
    ("aws ap-northeast-1", "ec2.ap-northeast-1.amazonaws.com:443"),
    ("aws ap-southeast-1", "ec2.ap-southeast-1.amazonaws.com:443"),
    ("aws ap-east-1", "ec2.ap-east-1.amazonaws.com:443"),
    ("alibaba cn-beijing", "ecs.cn-beijing.aliyuncs.com:443"),
    ("alibaba cn-shanghai", "ecs.cn-shanghai.aliyuncs.com:443"),
    ("alibaba cn-hangzhou", "ecs.cn-hangzhou.aliyuncs.com:443"),
    ("alibaba cn-shenzhen", "ecs.cn-shenzhen.aliyuncs.com:443"),
];

/// Pause between connects, so a burst of SYNs does not look like a flood.
const GAP: Duration = Duration::from_millis(50);

/// Times `tries` connects to `target` (`HOST:PORT`); failures end up in `error`.
pub fn run(target: &str, region: Option<&str>, tries: u32) -> RttResult {
    let mut result = RttResult {
        target: target.to_owned(),
        region: region.map(str::to_owned),
        address: None,
        dns_ms: None,
        tries: 0,
        samples_ms: vec![],
        min_ms: None,
        median_ms: None,
        error: None,
    };
    let (host, port) = match split_host_port(target, None) {
        Ok(hp) => hp,
        Err(e) => {
            result.error = Some(format!("--rtt {e}"));
            return result;
        }
    };
    let t0 = Instant::now();
    let addrs = match resolve(&host, port, CONNECT_TIMEOUT) {
        Ok(a) => a,
        Err(e) => {
            result.error = Some(e.to_string());
            return result;
        }
    };
    result.dns_ms = Some(t0.elapsed().as_secs_f64() * 1e3);
    let addr = addrs[0];
    result.address = Some(addr.to_string());
    let mut last_error = None;
    for i in 0..tries {
        if i > 0 {
            std::thread::sleep(GAP);
        }
        result.tries += 1;
        let t = Instant::now();
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(stream) => {
                result.samples_ms.push(t.elapsed().as_secs_f64() * 1e3);
                drop(stream);
            }
            Err(e) => last_error = Some(describe(&e)),
        }
    }
    if let Some(s) = summarize(&result.samples_ms) {
        result.min_ms = Some(s.min);
        result.median_ms = Some(s.p50);
    }
    if let Some(e) = last_error {
        let failed = result.tries as usize - result.samples_ms.len();
        result.error = Some(if result.samples_ms.is_empty() {
            e
        } else {
            format!("{failed} of {} connects failed: {e}", result.tries)
        });
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_region_endpoint_has_a_port() {
        for (label, target) in REGIONS {
            assert!(split_host_port(target, None).is_ok(), "{label}: {target}");
        }
    }
}
