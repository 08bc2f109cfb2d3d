//! The disk section of a profile: what the filesystem is, and how fast it reads and writes with
//! the page cache out of the way (O_DIRECT).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::profile::sampling::Series;

/// The disk benchmark on one directory: what the filesystem is, and how fast it reads and writes
/// with the page cache out of the way (O_DIRECT).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DiskReport {
    /// The directory tested.
    pub dir: String,
    /// Filesystem type of the mount holding it, e.g. `ext4`, `xfs`, `tmpfs`, `overlay`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filesystem: Option<String>,
    /// The mount point holding the directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_point: Option<String>,
    /// The mounted device or source, e.g. `/dev/nvme0n1p1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_source: Option<String>,
    /// Free space for an unprivileged writer before the test, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_bytes: Option<u64>,
    /// Size of the filesystem, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<u64>,
    /// Size of the test file, bytes (filled with random data before anything is timed).
    pub file_size_bytes: u64,
    /// Whether the I/O bypassed the page cache (O_DIRECT). When false, `notes` says why and the
    /// figures may include memory speed.
    pub direct_io: bool,
    /// How requests were queued: `linux-aio` (real queue depth) or `threads` (one blocking request
    /// per thread).
    pub engine: String,
    /// Sequential write, 1 MiB blocks; the closing fsync is inside the timed part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq_write: Option<DiskTest>,
    /// Sequential read, 1 MiB blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq_read: Option<DiskTest>,
    /// Random read, 4 KiB blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rand_read: Option<DiskTest>,
    /// Fallbacks taken and caveats, e.g. O_DIRECT refused on tmpfs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One timed disk pattern (after its ramp-up, like fio's `ramp_time`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DiskTest {
    /// Bytes per request.
    pub block_bytes: u64,
    /// Requests kept in flight.
    pub queue_depth: u32,
    /// Seconds measured (the ramp-up excluded; the closing fsync of a write included).
    pub seconds: f64,
    /// Bytes completed in the measured time.
    pub bytes: u64,
    /// Throughput, MB/s (10^6 bytes per second; fio's `MB/s`, not `MiB/s`).
    pub mb_per_s: f64,
    /// Requests completed per second.
    pub iops: f64,
    /// Completion latency of each request, milliseconds (fio's `clat`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<crate::numbers::stats::Summary>,
    /// Throughput of each measured second, MB/s: the spread over time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_mb_per_s: Option<Series>,
}
