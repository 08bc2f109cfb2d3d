//! The disk benchmark (`gpufare probe --disk-dir DIR`): the figures fio gives, measured the way
//! fio measures them, on the directory that will hold the data.
//!
//! A test file is created in the directory (registered with [`crate::interrupt`] first, so Ctrl-C
//! or any error removes it), allocated, and filled with random data (reading never-written extents
//! returns zeros without touching the device, and zeros can be deduplicated). Then, each
//! time-based with a ramp-up excluded (fio's `ramp_time`):
//!
//! * sequential write, 1 MiB blocks, queue depth 32, the closing fsync inside the timed part
//!   (fio's `end_fsync=1`);
//! * sequential read, 1 MiB blocks, queue depth 32;
//! * random read, 4 KiB blocks, queue depth 64.
//!
//! I/O bypasses the page cache with O_DIRECT and 4096-byte-aligned buffers, offsets and sizes.
//! Where O_DIRECT is refused (EINVAL: ramfs, tmpfs before Linux 6.6, some FUSE mounts) the test
//! falls back to buffered I/O with `POSIX_FADV_DONTNEED` before reads and says so. Requests are
//! queued with Linux AIO (`io_setup`/`io_submit`/`io_getevents` through `libc::syscall`), which
//! keeps a real queue depth like fio's `libaio` engine; a pool of blocking threads is the fallback
//! where AIO is refused. (A thread pool does not come within 10 % of fio on 1 MiB sequential
//! reads, so it is only the fallback.) io_uring is not used: container seccomp profiles often
//! block it.
//!
//! This file holds the benchmark itself: the plan, the patterns and their timing, both ways of
//! queueing requests, the report with its filesystem facts, and the removal of the test file.
//! Every `unsafe` system call and the aligned buffers live in `aio.rs`, the only file of the disk
//! code allowed `unsafe`; this one calls its safe wrappers.

#[cfg(target_os = "linux")]
mod aio;

use std::path::PathBuf;
use std::time::Duration;

#[cfg(not(target_os = "linux"))]
use anyhow::Result;
#[cfg(not(target_os = "linux"))]
use gpufare_core::profile::disk::DiskReport;

/// What to run.
#[derive(Debug, Clone)]
pub struct DiskPlan {
    /// The directory to test.
    pub dir: PathBuf,
    /// Test file size, bytes (rounded down to whole MiB).
    pub size_bytes: u64,
    /// Measured time of each pattern.
    pub duration: Duration,
    /// Ramp-up before each pattern's measurement.
    pub ramp: Duration,
    /// Progress lines on standard error.
    pub progress: bool,
}

/// Runs the benchmark; on systems other than Linux, an error saying it needs Linux.
#[cfg(not(target_os = "linux"))]
pub fn run(_plan: &DiskPlan) -> Result<DiskReport> {
    anyhow::bail!("--disk-dir: the disk benchmark needs Linux (O_DIRECT and Linux AIO)")
}

#[cfg(target_os = "linux")]
pub use linux::run;

/// Bytes as a short human figure (`512 KiB`, `1.0 GiB`).
pub fn human_bytes(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b >= KIB * KIB * KIB {
        format!("{:.1} GiB", b / (KIB * KIB * KIB))
    } else if b >= KIB * KIB {
        format!("{:.0} MiB", b / (KIB * KIB))
    } else {
        format!("{:.0} KiB", b / KIB)
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::fs::{File, OpenOptions};
    use std::io::{self, Write};
    use std::os::unix::fs::{FileExt, OpenOptionsExt};
    use std::path::Path;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    use anyhow::{Context, Result, anyhow, bail};
    use gpufare_core::profile::disk::{DiskReport, DiskTest};
    use gpufare_core::profile::sampling::Series;

    use super::aio::{self, AlignedBuf, Queue, Request};
    use super::{DiskPlan, human_bytes};
    use crate::interrupt::{self, TempPath};
    use crate::limits;

    const SEQ_BLOCK: usize = 1 << 20;
    const SEQ_DEPTH: usize = 32;
    const RAND_BLOCK: usize = 4096;
    const RAND_DEPTH: usize = 64;

    /// An O_DIRECT-ready buffer of `len` bytes filled with random data.
    fn random_buf(len: usize, rng: &mut Rng) -> AlignedBuf {
        let mut buf = AlignedBuf::zeroed(len);
        for chunk in buf.as_mut_slice().chunks_mut(8) {
            let v = rng.next().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        buf
    }

    /// Writes the offset into the first bytes, so no two blocks of the file are equal.
    fn stamp(buf: &mut [u8], offset: u64) {
        buf[..8].copy_from_slice(&offset.to_le_bytes());
    }

    /// xorshift64*: fast, good enough for offsets and incompressible data.
    struct Rng(u64);

    impl Rng {
        fn seeded() -> Rng {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0x9E37_79B9_7F4A_7C15);
            Rng((nanos ^ (u64::from(std::process::id()) << 32)) | 1)
        }

        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            self.0 = x;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    // ---- jobs ----

    #[derive(Debug, Clone, Copy)]
    struct Job {
        write: bool,
        block: usize,
        depth: usize,
        random: bool,
        file_bytes: u64,
        ramp: Duration,
        /// None: one pass over the file (the fill), else time-based.
        duration: Option<Duration>,
        fsync_at_end: bool,
    }

    impl Job {
        fn blocks(&self) -> u64 {
            self.file_bytes / self.block as u64
        }
    }

    /// Completions after the ramp, as fio counts them.
    struct Recorder {
        ramp_end: Instant,
        bytes: u64,
        ios: u64,
        latencies_ns: Vec<u32>,
        windows: Vec<u64>,
        last: Option<Instant>,
    }

    impl Recorder {
        fn new(ramp_end: Instant) -> Recorder {
            Recorder {
                ramp_end,
                bytes: 0,
                ios: 0,
                latencies_ns: Vec::new(),
                windows: Vec::new(),
                last: None,
            }
        }

        fn complete(&mut self, submitted: Instant, done: Instant, bytes: u64) {
            if done < self.ramp_end {
                return;
            }
            self.bytes += bytes;
            self.ios += 1;
            let ns = done.duration_since(submitted).as_nanos();
            self.latencies_ns
                .push(u32::try_from(ns).unwrap_or(u32::MAX));
            let w = done.duration_since(self.ramp_end).as_secs() as usize;
            if self.windows.len() <= w {
                self.windows.resize(w + 1, 0);
            }
            self.windows[w] += bytes;
            self.last = Some(self.last.map_or(done, |l| l.max(done)));
        }

        fn finish(mut self, job: &Job, end: Option<Instant>) -> Outcome {
            let end = end.or(self.last).unwrap_or(self.ramp_end);
            let seconds = end.saturating_duration_since(self.ramp_end).as_secs_f64();
            // Only whole seconds inside the measured time make a window.
            let whole = job.duration.map_or(0, |d| d.as_secs() as usize);
            self.windows.truncate(whole);
            Outcome {
                bytes: self.bytes,
                ios: self.ios,
                seconds,
                latencies_ns: self.latencies_ns,
                windows: self.windows,
            }
        }
    }

    struct Outcome {
        bytes: u64,
        ios: u64,
        seconds: f64,
        latencies_ns: Vec<u32>,
        windows: Vec<u64>,
    }

    impl Outcome {
        fn into_test(self, job: &Job) -> DiskTest {
            let secs = self.seconds.max(1e-9);
            let latencies: Vec<f64> = self
                .latencies_ns
                .iter()
                .map(|&ns| f64::from(ns) / 1e6)
                .collect();
            let windows: Vec<f64> = self.windows.iter().map(|&b| b as f64 / 1e6).collect();
            DiskTest {
                block_bytes: job.block as u64,
                queue_depth: job.depth as u32,
                seconds: self.seconds,
                bytes: self.bytes,
                mb_per_s: self.bytes as f64 / secs / 1e6,
                iops: self.ios as f64 / secs,
                latency_ms: gpufare_core::numbers::stats::summarize(&latencies),
                window_mb_per_s: (!windows.is_empty()).then(|| Series::new(windows)),
            }
        }
    }

    /// Picks the next offset: sequential wraps around the file, random is uniform on blocks.
    struct Offsets {
        next: u64,
        rng: Rng,
    }

    impl Offsets {
        fn take(&mut self, job: &Job) -> u64 {
            let blocks = job.blocks().max(1);
            let index = if job.random {
                self.rng.next() % blocks
            } else {
                let i = self.next % blocks;
                self.next += 1;
                i
            };
            index * job.block as u64
        }
    }

    /// How requests were queued.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Engine {
        Aio,
        Threads,
    }

    impl Engine {
        fn name(self) -> &'static str {
            match self {
                Engine::Aio => "linux-aio",
                Engine::Threads => "threads",
            }
        }
    }

    fn io_error(job: &Job, res: i64) -> io::Error {
        if res < 0 {
            io::Error::from_raw_os_error(i32::try_from(-res).unwrap_or(libc::EIO))
        } else if job.write {
            // A short write on a regular file means the filesystem ran out of space.
            io::Error::from_raw_os_error(libc::ENOSPC)
        } else {
            io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("short read: {res} of {} bytes", job.block),
            )
        }
    }

    /// Runs a job with Linux AIO, keeping up to the job's queue depth of requests in flight.
    fn run_aio(file: &File, job: &Job, rng: &mut Rng) -> io::Result<Outcome> {
        let depth = job.depth.min(job.blocks().max(1) as usize).max(1);
        let bufs: Vec<AlignedBuf> = (0..depth).map(|_| random_buf(job.block, rng)).collect();
        let mut submitted = vec![Instant::now(); depth];
        // The queue owns the buffers; its drop waits for every request still using them.
        let mut aio = Queue::new(file, bufs)?;
        let mut offsets = Offsets {
            next: 0,
            rng: Rng(rng.next() | 1),
        };
        let start = Instant::now();
        let ramp_end = start + job.ramp;
        let end = job.duration.map(|d| ramp_end + d);
        let mut rec = Recorder::new(ramp_end);
        let mut issued = 0u64;
        let mut inflight = 0usize;
        let mut failure: Option<io::Error> = None;
        let mut ready: Vec<usize> = (0..depth).collect();
        let go_on = |issued: u64, failure: &Option<io::Error>| {
            failure.is_none()
                && !interrupt::interrupted()
                && match end {
                    Some(e) => Instant::now() < e,
                    None => issued < job.blocks(),
                }
        };
        loop {
            let mut requests: Vec<Request> = Vec::with_capacity(ready.len());
            for slot in ready.drain(..) {
                if !go_on(issued, &failure) {
                    break;
                }
                let offset = offsets.take(job);
                if job.write {
                    stamp(aio.buffer_mut(slot)?, offset);
                }
                submitted[slot] = Instant::now();
                requests.push(Request {
                    slot,
                    write: job.write,
                    offset,
                    len: job.block,
                });
                issued += 1;
            }
            let mut from = 0;
            while from < requests.len() {
                match aio.submit(&requests[from..]) {
                    Ok(0) => {
                        failure.get_or_insert_with(|| io::Error::other("io_submit took nothing"));
                        break;
                    }
                    Ok(n) => {
                        inflight += n;
                        from += n;
                    }
                    Err(e) => {
                        failure.get_or_insert(e);
                        break;
                    }
                }
            }
            if inflight == 0 {
                break;
            }
            let done = match aio.reap(Duration::from_millis(250)) {
                Ok(done) => done,
                Err(e) => {
                    // Cannot reap: the queue's drop waits for what is in flight.
                    return Err(e);
                }
            };
            let now = Instant::now();
            for c in done {
                inflight -= 1;
                if c.res != job.block as i64 {
                    failure.get_or_insert_with(|| io_error(job, c.res));
                    continue;
                }
                rec.complete(submitted[c.slot], now, job.block as u64);
                ready.push(c.slot);
            }
        }
        drop(aio);
        if let Some(e) = failure {
            return Err(e);
        }
        let fsync_end = if job.fsync_at_end {
            file.sync_all()?;
            Some(Instant::now())
        } else {
            None
        };
        Ok(rec.finish(job, fsync_end))
    }

    /// Runs a job on one blocking thread per request in flight (the fallback to AIO).
    fn run_threads(file: &File, job: &Job, rng: &mut Rng) -> io::Result<Outcome> {
        let depth = job.depth.min(job.blocks().max(1) as usize).max(1);
        let start = Instant::now();
        let ramp_end = start + job.ramp;
        let end = job.duration.map(|d| ramp_end + d);
        let counter = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let failure: Mutex<Option<io::Error>> = Mutex::new(None);
        let seeds: Vec<u64> = (0..depth).map(|_| rng.next() | 1).collect();
        let records: Vec<Vec<(Instant, Instant)>> = std::thread::scope(|s| {
            let handles: Vec<_> = seeds
                .iter()
                .map(|&seed| {
                    let (counter, stop, failure) = (&counter, &stop, &failure);
                    s.spawn(move || {
                        let mut rng = Rng(seed);
                        let mut buf = random_buf(job.block, &mut rng);
                        let mut local = Vec::new();
                        loop {
                            if stop.load(Ordering::Relaxed) || interrupt::interrupted() {
                                break;
                            }
                            let i = counter.fetch_add(1, Ordering::Relaxed);
                            match end {
                                Some(e) if Instant::now() >= e => break,
                                None if i >= job.blocks() => break,
                                _ => {}
                            }
                            let offset = if job.random {
                                (rng.next() % job.blocks().max(1)) * job.block as u64
                            } else {
                                (i % job.blocks().max(1)) * job.block as u64
                            };
                            let t0 = Instant::now();
                            let r = if job.write {
                                stamp(buf.as_mut_slice(), offset);
                                file.write_all_at(buf.as_mut_slice(), offset)
                            } else {
                                file.read_exact_at(buf.as_mut_slice(), offset)
                            };
                            if let Err(e) = r {
                                stop.store(true, Ordering::Relaxed);
                                if let Ok(mut f) = failure.lock() {
                                    f.get_or_insert(e);
                                }
                                break;
                            }
                            local.push((t0, Instant::now()));
                        }
                        local
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        if let Some(e) = failure.into_inner().ok().flatten() {
            return Err(e);
        }
        let mut rec = Recorder::new(ramp_end);
        for (t0, t1) in records.into_iter().flatten() {
            rec.complete(t0, t1, job.block as u64);
        }
        let fsync_end = if job.fsync_at_end {
            file.sync_all()?;
            Some(Instant::now())
        } else {
            None
        };
        Ok(rec.finish(job, fsync_end))
    }

    /// Runs a job on the engine, falling back to threads when AIO is refused.
    fn run_job(file: &File, job: &Job, engine: &mut Engine, rng: &mut Rng) -> io::Result<Outcome> {
        if *engine == Engine::Aio && !aio::available() {
            // io_setup refused (seccomp, or the host's aio-max-nr used up).
            *engine = Engine::Threads;
        }
        match engine {
            Engine::Aio => match run_aio(file, job, rng) {
                // A sandbox that accepts io_setup may still refuse the requests themselves
                // (gVisor's partial AIO, some seccomp profiles): the job is run again on threads.
                Err(e) if aio_refused(&e) => {
                    *engine = Engine::Threads;
                    run_threads(file, job, rng)
                }
                other => other,
            },
            Engine::Threads => run_threads(file, job, rng),
        }
    }

    /// An error that says Linux AIO itself is not available, rather than the disk failing.
    fn aio_refused(e: &io::Error) -> bool {
        matches!(
            e.raw_os_error(),
            Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) | Some(libc::EPERM)
        )
    }

    /// Opens the test file with O_DIRECT, or buffered where O_DIRECT is refused.
    fn open_test_file(path: &Path) -> io::Result<(File, bool)> {
        let open = |flags: i32| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(flags)
                .open(path)
        };
        match open(libc::O_DIRECT) {
            Ok(f) => Ok((f, true)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                // Some filesystems create the file before refusing the flag.
                let _ = std::fs::remove_file(path);
                open(0).map(|f| (f, false))
            }
            Err(e) => Err(e),
        }
    }

    fn say(plan: &DiskPlan, text: &str) {
        if plan.progress {
            let _ = writeln!(io::stderr(), "gpufare: disk: {text}");
        }
    }

    fn describe(e: io::Error, dir: &Path, size: u64, free: Option<u64>) -> anyhow::Error {
        match e.raw_os_error() {
            Some(libc::ENOSPC) | Some(libc::EDQUOT) => anyhow!(
                "--disk-dir {}: not enough free space for a {} test file ({} free): {e}; pass a smaller --disk-size",
                dir.display(),
                human_bytes(size),
                free.map_or_else(|| "unknown".to_owned(), human_bytes),
            ),
            _ => anyhow!("--disk-dir {}: {e}", dir.display()),
        }
    }

    /// Runs the benchmark; the test file is gone when this returns, whatever happened.
    pub fn run(plan: &DiskPlan) -> Result<DiskReport> {
        let _cooperate = interrupt::Cooperate::start();
        let dir = plan.dir.canonicalize().with_context(|| {
            format!(
                "--disk-dir {}: cannot open the directory",
                plan.dir.display()
            )
        })?;
        if !dir.is_dir() {
            bail!("--disk-dir {}: not a directory", plan.dir.display());
        }
        let size = plan.size_bytes / SEQ_BLOCK as u64 * SEQ_BLOCK as u64;
        if size == 0 {
            bail!("--disk-size must be at least 1 MiB");
        }
        let mounts = limits::parse_mountinfo(
            &std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default(),
        );
        let mount = limits::mount_of(&mounts, &dir).cloned();
        let (free, total) = aio::statvfs(&dir).unzip();
        let mut report = DiskReport {
            dir: dir.display().to_string(),
            filesystem: mount.as_ref().map(|m| m.fs_type.clone()),
            mount_point: mount.as_ref().map(|m| m.mount_point.clone()),
            mount_source: mount.as_ref().map(|m| m.source.clone()),
            free_bytes: free,
            total_bytes: total,
            file_size_bytes: size,
            direct_io: true,
            engine: Engine::Aio.name().to_owned(),
            seq_write: None,
            seq_read: None,
            rand_read: None,
            notes: vec![],
        };
        let fs = report.filesystem.clone().unwrap_or_default();
        if matches!(fs.as_str(), "tmpfs" | "ramfs") {
            report.notes.push(format!(
                "{fs} keeps files in memory: these figures are memory speed, not a disk's"
            ));
        }

        let name = format!(
            ".gpufare-disk-{}-{:x}.tmp",
            std::process::id(),
            Rng::seeded().next() & 0xffff_ffff
        );
        let temp = TempPath::register(dir.join(name));
        let (file, direct) = open_test_file(temp.path()).map_err(|e| {
            anyhow!(
                "--disk-dir {}: cannot create a test file: {e}",
                dir.display()
            )
        })?;
        if !direct {
            report.direct_io = false;
            report.notes.push(format!(
                "O_DIRECT refused by {} (EINVAL): buffered I/O with the closing fsync timed and \
                 POSIX_FADV_DONTNEED before reads; reads may still come from the page cache",
                if fs.is_empty() {
                    "this filesystem"
                } else {
                    &fs
                }
            ));
        }
        interrupt::check()?;
        match aio::fallocate(&file, size) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => {}
            Err(e) => return Err(describe(e, &dir, size, free)),
        }

        let mut rng = Rng::seeded();
        let mut engine = Engine::Aio;
        let base = Job {
            write: true,
            block: SEQ_BLOCK,
            depth: SEQ_DEPTH,
            random: false,
            file_bytes: size,
            ramp: Duration::ZERO,
            duration: None,
            fsync_at_end: true,
        };
        say(
            plan,
            &format!(
                "filling a {} test file in {} with random data",
                human_bytes(size),
                dir.display()
            ),
        );
        run_job(&file, &base, &mut engine, &mut rng).map_err(|e| describe(e, &dir, size, free))?;
        interrupt::check()?;

        let timed = |job: Job| Job {
            ramp: plan.ramp,
            duration: Some(plan.duration),
            ..job
        };
        let seconds = (plan.ramp + plan.duration).as_secs_f64();
        say(
            plan,
            &format!("sequential write, 1 MiB x {SEQ_DEPTH}, {seconds:.0} s"),
        );
        let write = timed(base);
        let out = run_job(&file, &write, &mut engine, &mut rng)
            .map_err(|e| describe(e, &dir, size, free))?;
        interrupt::check()?;
        report.seq_write = Some(out.into_test(&write));

        if !direct {
            file.sync_all().map_err(|e| describe(e, &dir, size, free))?;
            aio::drop_cache(&file);
        }
        say(
            plan,
            &format!("sequential read, 1 MiB x {SEQ_DEPTH}, {seconds:.0} s"),
        );
        let read = timed(Job {
            write: false,
            fsync_at_end: false,
            ..base
        });
        let out = run_job(&file, &read, &mut engine, &mut rng)
            .map_err(|e| describe(e, &dir, size, free))?;
        interrupt::check()?;
        report.seq_read = Some(out.into_test(&read));

        if !direct {
            aio::drop_cache(&file);
        }
        say(
            plan,
            &format!("random read, 4 KiB x {RAND_DEPTH}, {seconds:.0} s"),
        );
        let random = timed(Job {
            write: false,
            fsync_at_end: false,
            block: RAND_BLOCK,
            depth: RAND_DEPTH,
            random: true,
            ..base
        });
        let out = run_job(&file, &random, &mut engine, &mut rng)
            .map_err(|e| describe(e, &dir, size, free))?;
        interrupt::check()?;
        report.rand_read = Some(out.into_test(&random));

        report.engine = engine.name().to_owned();
        if engine == Engine::Threads {
            report.notes.push(
                "Linux AIO refused (io_setup or io_submit failed): one blocking request per thread; \
                 sequential figures may read low against fio's libaio"
                    .to_owned(),
            );
        } else if !direct {
            report.notes.push(
                "without O_DIRECT, Linux AIO runs each request synchronously: the queue depth \
                 is nominal"
                    .to_owned(),
            );
        }
        drop(file);
        drop(temp);
        Ok(report)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// One pass writes every block once, each stamped with its offset; a timed random read
        /// then completes requests with one latency each. Both engines.
        fn round_trip(engine: Engine) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("t.bin");
            let (file, _direct) = open_test_file(&path).unwrap();
            let size = 4u64 << 20;
            let mut rng = Rng::seeded();
            let fill = Job {
                write: true,
                block: SEQ_BLOCK,
                depth: 3,
                random: false,
                file_bytes: size,
                ramp: Duration::ZERO,
                duration: None,
                fsync_at_end: true,
            };
            let mut used = engine;
            let out = run_job(&file, &fill, &mut used, &mut rng).unwrap();
            assert_eq!(used, engine, "the engine asked for ran");
            assert_eq!((out.bytes, out.ios), (size, 4), "one pass over the file");
            assert_eq!(out.latencies_ns.len(), 4);
            let plain = File::open(&path).unwrap();
            let mut head = [0u8; 8];
            for block in 0..4u64 {
                plain.read_exact_at(&mut head, block << 20).unwrap();
                assert_eq!(u64::from_le_bytes(head), block << 20, "block {block}");
            }
            let random = Job {
                write: false,
                block: RAND_BLOCK,
                depth: 8,
                random: true,
                ramp: Duration::from_millis(50),
                duration: Some(Duration::from_millis(200)),
                fsync_at_end: false,
                ..fill
            };
            let out = run_job(&file, &random, &mut used, &mut rng).unwrap();
            assert!(out.ios > 0 && out.seconds > 0.0);
            assert_eq!(out.bytes, out.ios * RAND_BLOCK as u64);
            assert_eq!(out.latencies_ns.len() as u64, out.ios);
            assert!(out.windows.is_empty(), "no whole second was measured");
        }

        #[test]
        fn linux_aio_round_trip() {
            round_trip(Engine::Aio);
        }

        #[test]
        fn thread_pool_round_trip() {
            round_trip(Engine::Threads);
        }

        #[test]
        fn human_sizes() {
            assert_eq!(human_bytes(2 << 20), "2 MiB");
            assert_eq!(human_bytes(3 << 29), "1.5 GiB");
            assert_eq!(human_bytes(4096), "4 KiB");
        }
    }
}
