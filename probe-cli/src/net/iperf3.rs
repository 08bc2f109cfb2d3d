//! An iperf3-compatible TCP client that works against a stock `iperf3 -s`.
//!
//! Wire protocol (esnet/iperf `iperf_api.c`; docs/sources.md §6.6): a control connection
//! carries a 37-byte cookie (36 characters and a NUL), then one signed state byte per message
//! (`PARAM_EXCHANGE` 9, `CREATE_STREAMS` 10, `TEST_START` 1, `TEST_RUNNING` 2, `TEST_END` 4,
//! `EXCHANGE_RESULTS` 13, `DISPLAY_RESULTS` 14, `IPERF_DONE` 16; `ACCESS_DENIED` -1 when the
//! server is busy, `SERVER_ERROR` -2 followed by two big-endian i32), and JSON documents framed by
//! a 4-byte big-endian length. Boolean parameters are sent only when true (iperf3 3.12 reads
//! `"reverse": false` as reverse). Each data stream is another TCP connection that sends the same
//! cookie. The client ends the test: after `seconds` it sends `TEST_END`, the two sides exchange
//! per-stream results (stream ids 1, 3, 4, ...), and throughput is what the *receiver* counted —
//! the server for an upload, this client for a download. A retransmit count of -1 (u64::MAX on
//! the wire) means the side could not tell.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use gpufare_core::profile::network::{Direction, Iperf3Result};
use serde_json::{Value, json};

use super::{IO_TIMEOUT, connect, describe, resolve, split_host_port, tcp_retransmits};

/// iperf3's default port.
pub const DEFAULT_PORT: u16 = 5201;
const COOKIE_SIZE: usize = 37;
const BLOCK: usize = 128 * 1024;
/// Largest JSON document accepted from a server.
const MAX_JSON: usize = 1 << 20;

const TEST_START: i8 = 1;
const TEST_RUNNING: i8 = 2;
const TEST_END: i8 = 4;
const PARAM_EXCHANGE: i8 = 9;
const CREATE_STREAMS: i8 = 10;
const EXCHANGE_RESULTS: i8 = 13;
const DISPLAY_RESULTS: i8 = 14;
const IPERF_DONE: i8 = 16;
const ACCESS_DENIED: i8 = -1;
const SERVER_ERROR: i8 = -2;

/// One test.
#[derive(Debug, Clone)]
pub struct Iperf3Plan {
    /// `HOST[:PORT]`.
    pub server: String,
    pub streams: u32,
    pub seconds: u32,
    pub direction: Direction,
}

/// Runs one test; every failure ends up in the result's `error`.
pub fn run(plan: &Iperf3Plan) -> Iperf3Result {
    let mut result = Iperf3Result {
        server: plan.server.clone(),
        direction: plan.direction,
        streams: plan.streams,
        seconds: f64::from(plan.seconds),
        bytes: None,
        mbit_per_s: None,
        stream_mbit_per_s: vec![],
        retransmits: None,
        error: None,
    };
    if let Err(e) = test(plan, &mut result) {
        result.error = Some(e);
    }
    result
}

/// A 36-character cookie from iperf3's alphabet, NUL-terminated.
pub fn make_cookie(seed: u64) -> [u8; COOKIE_SIZE] {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut cookie = [0u8; COOKIE_SIZE];
    for c in cookie.iter_mut().take(COOKIE_SIZE - 1) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *c = ALPHABET[(x % 32) as usize];
    }
    cookie
}

fn seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
        ^ u64::from(std::process::id())
}

/// The parameters document, booleans only when true.
pub fn params(streams: u32, seconds: u32, reverse: bool) -> Value {
    let mut p = json!({
        "tcp": true,
        "omit": 0,
        "time": seconds,
        "num": 0,
        "blockcount": 0,
        "parallel": streams,
        "len": BLOCK,
        "client_version": "3.12",
    });
    if reverse {
        p["reverse"] = Value::Bool(true);
    }
    p
}

fn io_text(what: &str, e: &io::Error) -> String {
    format!("{what}: {}", describe(e))
}

fn read_state(control: &mut TcpStream, waiting_for: &str) -> Result<i8, String> {
    let mut b = [0u8; 1];
    control.read_exact(&mut b).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            format!("the server closed the connection while we waited for {waiting_for}")
        } else {
            io_text(&format!("waiting for {waiting_for}"), &e)
        }
    })?;
    let state = b[0] as i8;
    match state {
        ACCESS_DENIED => Err(
            "server busy (ACCESS_DENIED): it is running another test; try again later".to_owned(),
        ),
        SERVER_ERROR => {
            let mut codes = [0u8; 8];
            let detail = match control.read_exact(&mut codes) {
                Ok(()) => {
                    let i_errno = i32::from_be_bytes([codes[0], codes[1], codes[2], codes[3]]);
                    let errno = i32::from_be_bytes([codes[4], codes[5], codes[6], codes[7]]);
                    format!(" (iperf error {i_errno}, errno {errno})")
                }
                Err(_) => String::new(),
            };
            Err(format!("the server reported an error{detail}"))
        }
        _ => Ok(state),
    }
}

fn expect_state(control: &mut TcpStream, want: i8, name: &str) -> Result<(), String> {
    let got = read_state(control, name)?;
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "protocol error: expected {name} ({want}), got state {got}"
        ))
    }
}

fn send_state(control: &mut TcpStream, state: i8) -> Result<(), String> {
    control
        .write_all(&[state as u8])
        .map_err(|e| io_text("sending a state", &e))
}

fn send_json(control: &mut TcpStream, value: &Value) -> Result<(), String> {
    let text = value.to_string();
    let len = u32::try_from(text.len()).map_err(|_| "document too large".to_owned())?;
    let mut frame = len.to_be_bytes().to_vec();
    frame.extend_from_slice(text.as_bytes());
    control
        .write_all(&frame)
        .map_err(|e| io_text("sending JSON", &e))
}

fn read_json(control: &mut TcpStream) -> Result<Value, String> {
    let mut len = [0u8; 4];
    control
        .read_exact(&mut len)
        .map_err(|e| io_text("reading the server's results", &e))?;
    let len = u32::from_be_bytes(len) as usize;
    if len > MAX_JSON {
        return Err(format!(
            "the server sent a {len}-byte document; not iperf3?"
        ));
    }
    let mut buf = vec![0u8; len];
    control
        .read_exact(&mut buf)
        .map_err(|e| io_text("reading the server's results", &e))?;
    serde_json::from_slice(&buf).map_err(|e| format!("the server's results are not JSON: {e}"))
}

/// A receiver-side or unknown retransmit count arrives as -1, or as u64::MAX.
fn retransmits_of(v: &Value) -> Option<u64> {
    v.as_u64().filter(|r| *r != u64::MAX)
}

struct Streams {
    sockets: Vec<TcpStream>,
    /// Bytes moved per stream during the timed part.
    counted: Vec<AtomicU64>,
}

fn test(plan: &Iperf3Plan, result: &mut Iperf3Result) -> Result<(), String> {
    let (host, port) =
        split_host_port(&plan.server, Some(DEFAULT_PORT)).map_err(|e| format!("--iperf3 {e}"))?;
    let addrs = resolve(&host, port, super::CONNECT_TIMEOUT).map_err(|e| e.to_string())?;
    let mut control =
        connect(&addrs).map_err(|e| io_text(&format!("connecting to {host}:{port}"), &e))?;
    let peer = control
        .peer_addr()
        .map_err(|e| io_text("reading the peer address", &e))?;
    let _ = control.set_nodelay(true);
    let cookie = make_cookie(seed());
    control
        .write_all(&cookie)
        .map_err(|e| io_text("sending the cookie", &e))?;
    expect_state(&mut control, PARAM_EXCHANGE, "PARAM_EXCHANGE")?;
    let reverse = plan.direction == Direction::Download;
    send_json(&mut control, &params(plan.streams, plan.seconds, reverse))?;
    expect_state(&mut control, CREATE_STREAMS, "CREATE_STREAMS")?;
    let mut streams = Streams {
        sockets: Vec::new(),
        counted: Vec::new(),
    };
    for i in 0..plan.streams {
        let mut s =
            connect(&[peer]).map_err(|e| io_text(&format!("opening data stream {}", i + 1), &e))?;
        s.write_all(&cookie)
            .map_err(|e| io_text("sending the stream cookie", &e))?;
        // Short reads let a receiving stream notice the end of the test quickly.
        let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
        streams.sockets.push(s);
        streams.counted.push(AtomicU64::new(0));
    }
    expect_state(&mut control, TEST_START, "TEST_START")?;
    expect_state(&mut control, TEST_RUNNING, "TEST_RUNNING")?;

    let duration = Duration::from_secs(u64::from(plan.seconds));
    let start = Instant::now();
    let deadline = start + duration;
    let done = AtomicBool::new(false);
    let active = AtomicUsize::new(streams.sockets.len());
    let failure = std::sync::Mutex::new(None::<String>);
    let exchange = std::thread::scope(|scope| {
        for (i, s) in streams.sockets.iter().enumerate() {
            let counted = &streams.counted[i];
            let (done, failure, active) = (&done, &failure, &active);
            scope.spawn(move || {
                let outcome = if reverse {
                    receive(s, counted, deadline, done)
                } else {
                    send(s, counted, deadline)
                };
                if let Err(e) = outcome
                    && let Ok(mut f) = failure.lock()
                {
                    f.get_or_insert(io_text(&format!("data stream {}", i + 1), &e));
                }
                active.fetch_sub(1, Ordering::SeqCst);
            });
        }
        // The control connection stays quiet while data flows; the client ends the test.
        let wait = deadline.saturating_duration_since(Instant::now());
        std::thread::sleep(wait);
        let elapsed = start.elapsed().as_secs_f64();
        if !reverse {
            // Senders stop at the deadline by themselves; wait for them before TEST_END.
            while active.load(Ordering::SeqCst) > 0 {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let r = finish(&mut control, plan, &streams, elapsed);
        // Receivers keep draining until the exchange is over, so a server blocked on a full
        // socket can still read TEST_END.
        done.store(true, Ordering::SeqCst);
        r.map(|v| (v, elapsed))
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let (server, elapsed) = exchange?;
    let server_streams = server
        .get("streams")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let stream_bytes: Vec<u64> = if reverse {
        streams
            .counted
            .iter()
            .map(|c| c.load(Ordering::SeqCst))
            .collect()
    } else {
        server_streams
            .iter()
            .filter_map(|s| s.get("bytes").and_then(Value::as_u64))
            .collect()
    };
    if stream_bytes.is_empty() {
        return Err("the server's results list no streams".to_owned());
    }
    let seconds = if reverse {
        elapsed
    } else {
        // The server's own clock for what it received, when it says.
        server_streams
            .iter()
            .filter_map(|s| {
                let a = s.get("start_time")?.as_f64()?;
                let b = s.get("end_time")?.as_f64()?;
                (b > a).then_some(b - a)
            })
            .reduce(f64::max)
            .unwrap_or(elapsed)
    };
    let total: u64 = stream_bytes.iter().sum();
    result.bytes = Some(total);
    result.mbit_per_s = Some(total as f64 * 8.0 / seconds.max(1e-9) / 1e6);
    result.stream_mbit_per_s = stream_bytes
        .iter()
        .map(|b| *b as f64 * 8.0 / seconds.max(1e-9) / 1e6)
        .collect();
    result.retransmits = if reverse {
        let sender_knows = server.get("sender_has_retransmits").and_then(Value::as_i64) == Some(1);
        let counts: Option<Vec<u64>> = server_streams
            .iter()
            .map(|s| s.get("retransmits").and_then(retransmits_of))
            .collect();
        counts.filter(|_| sender_knows).map(|c| c.iter().sum())
    } else {
        streams
            .sockets
            .iter()
            .map(tcp_retransmits)
            .collect::<Option<Vec<u64>>>()
            .map(|c| c.iter().sum())
    };
    Ok(())
}

fn send(mut s: &TcpStream, counted: &AtomicU64, deadline: Instant) -> io::Result<()> {
    let mut block = vec![0u8; BLOCK];
    let mut x = seed() | 1;
    for chunk in block.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
    }
    while Instant::now() < deadline {
        s.write_all(&block)?;
        counted.fetch_add(BLOCK as u64, Ordering::Relaxed);
    }
    Ok(())
}

fn receive(
    mut s: &TcpStream,
    counted: &AtomicU64,
    deadline: Instant,
    done: &AtomicBool,
) -> io::Result<()> {
    let mut buf = vec![0u8; BLOCK];
    let mut idle = Duration::ZERO;
    while !done.load(Ordering::SeqCst) {
        match s.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                idle = Duration::ZERO;
                if Instant::now() < deadline {
                    counted.fetch_add(n as u64, Ordering::Relaxed);
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                idle += Duration::from_millis(200);
                if idle >= IO_TIMEOUT && Instant::now() < deadline {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "no data from the server",
                    ));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if Instant::now() >= deadline => {
                // A reset after the test ended is the server closing up.
                let _ = e;
                return Ok(());
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// TEST_END, then the results exchange; returns the server's results.
fn finish(
    control: &mut TcpStream,
    plan: &Iperf3Plan,
    streams: &Streams,
    elapsed: f64,
) -> Result<Value, String> {
    let _ = control.set_read_timeout(Some(IO_TIMEOUT + Duration::from_secs(5)));
    send_state(control, TEST_END)?;
    expect_state(control, EXCHANGE_RESULTS, "EXCHANGE_RESULTS")?;
    let sender = plan.direction == Direction::Upload;
    let ours: Vec<Value> = streams
        .counted
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let retransmits = if sender {
                streams
                    .sockets
                    .get(i)
                    .and_then(tcp_retransmits)
                    .map_or(-1, |r| r as i64)
            } else {
                -1
            };
            json!({
                // iperf3 numbers streams 1, 3, 4, 5, ...
                "id": if i == 0 { 1 } else { i as u64 + 2 },
                "bytes": c.load(Ordering::SeqCst),
                "retransmits": retransmits,
                "jitter": 0,
                "errors": 0,
                "packets": 0,
                "start_time": 0,
                "end_time": elapsed,
            })
        })
        .collect();
    let has_retransmits = sender && streams.sockets.first().and_then(tcp_retransmits).is_some();
    send_json(
        control,
        &json!({
            "cpu_util_total": 0,
            "cpu_util_user": 0,
            "cpu_util_system": 0,
            "sender_has_retransmits": if has_retransmits { 1 } else if sender { 0 } else { -1 },
            "streams": ours,
        }),
    )?;
    let server = read_json(control)?;
    expect_state(control, DISPLAY_RESULTS, "DISPLAY_RESULTS")?;
    send_state(control, IPERF_DONE)?;
    // Wait (briefly) for the server to close the control connection: it has then finished this
    // test, and the next one is not refused while it cleans up.
    let _ = control.set_read_timeout(Some(Duration::from_secs(2)));
    let mut sink = [0u8; 64];
    while matches!(control.read(&mut sink), Ok(n) if n > 0) {}
    Ok(server)
}

/// Runs one test, retrying for up to `window` while the server refuses or is busy — for a test
/// right after our own previous one, while the server re-opens its listening socket.
pub fn run_after_own_test(plan: &Iperf3Plan, window: Duration) -> Iperf3Result {
    let until = Instant::now() + window;
    loop {
        let r = run(plan);
        let retry = r
            .error
            .as_deref()
            .is_some_and(|e| e.contains("connection refused") || e.contains("ACCESS_DENIED"));
        if !retry || Instant::now() >= until {
            return r;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_use_iperf3s_alphabet_and_end_in_nul() {
        let c = make_cookie(42);
        assert_eq!(c.len(), 37);
        assert_eq!(c[36], 0);
        assert!(
            c[..36]
                .iter()
                .all(|b| b"abcdefghijklmnopqrstuvwxyz234567".contains(b))
        );
        assert_ne!(make_cookie(42)[..36], make_cookie(43)[..36]);
    }

    #[test]
    fn booleans_are_sent_only_when_true() {
        let up = params(4, 5, false);
        assert!(up.get("reverse").is_none(), "{up}");
        assert_eq!(up["parallel"], 4);
        assert_eq!(up["time"], 5);
        assert_eq!(params(1, 1, true)["reverse"], true);
    }

    #[test]
    fn minus_one_retransmits_mean_unknown() {
        assert_eq!(retransmits_of(&json!(18446744073709551615u64)), None);
        assert_eq!(retransmits_of(&json!(-1)), None);
        assert_eq!(retransmits_of(&json!(7)), Some(7));
    }
}
