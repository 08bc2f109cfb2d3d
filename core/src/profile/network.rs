//! The network section of a profile: iperf3 against a stock `iperf3 -s`, HTTP downloads and TCP
//! connect times to endpoints the user named.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::profile::sampling::Series;

/// Network measurements against endpoints the user named (or opted into).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct NetworkReport {
    /// iperf3 tests, one per server and direction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iperf3: Vec<Iperf3Result>,
    /// HTTP download throughput, one per URL.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub http: Vec<HttpResult>,
    /// TCP connect round-trip times, one per endpoint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rtt: Vec<RttResult>,
}

impl NetworkReport {
    /// Whether nothing was measured.
    pub fn is_empty(&self) -> bool {
        self.iperf3.is_empty() && self.http.is_empty() && self.rtt.is_empty()
    }
}

/// Which way data flowed in an iperf3 test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// This machine sends to the server.
    Upload,
    /// The server sends to this machine (`iperf3 -R`).
    Download,
}

/// One iperf3 test against a stock `iperf3 -s`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Iperf3Result {
    /// The server, `host:port`.
    pub server: String,
    /// Which way data flowed.
    pub direction: Direction,
    /// Parallel TCP streams.
    pub streams: u32,
    /// Seconds of data transfer asked for.
    pub seconds: f64,
    /// Bytes counted by the receiving side over all streams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Throughput counted by the receiver, Mbit/s (10^6 bits per second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbit_per_s: Option<f64>,
    /// Throughput of each stream, Mbit/s.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stream_mbit_per_s: Vec<f64>,
    /// TCP retransmits reported by the sender; absent when the sender could not tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retransmits: Option<u64>,
    /// Why the test failed, e.g. `server busy (ACCESS_DENIED)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// HTTP download throughput from one URL over several connections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HttpResult {
    /// The URL.
    pub url: String,
    /// Parallel connections, each downloading the URL.
    pub connections: u32,
    /// Body bytes received over all connections, warm-up included.
    pub bytes: u64,
    /// Seconds of the measured part (after the warm-up).
    pub seconds: f64,
    /// Seconds dropped at the start as warm-up (DNS, connect, TCP slow start).
    pub warmup_s: f64,
    /// Throughput after the warm-up, Mbit/s (10^6 bits per second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbit_per_s: Option<f64>,
    /// Throughput in each 250 ms window after the warm-up, Mbit/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_mbit_per_s: Option<Series>,
    /// Time to connect, per connection, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_ms: Option<crate::numbers::stats::Summary>,
    /// Time from sending the request to the first byte of the response, per connection,
    /// milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttfb_ms: Option<crate::numbers::stats::Summary>,
    /// Caveats, e.g. a transfer too short to drop a warm-up.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Why the download failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// TCP connect round-trip time to one endpoint (the SYN/SYN-ACK exchange; no ICMP).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RttResult {
    /// The endpoint, `host:port`.
    pub target: String,
    /// The region label of a built-in endpoint (`--rtt-regions`), e.g. `aws us-east-1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// The address connected to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Name resolution time, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns_ms: Option<f64>,
    /// Connection attempts.
    pub tries: u32,
    /// Connect time of each successful attempt, milliseconds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_ms: Vec<f64>,
    /// The fastest connect, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ms: Option<f64>,
    /// The median connect, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_ms: Option<f64>,
    /// Why attempts failed (the last error), e.g. `connection refused`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
