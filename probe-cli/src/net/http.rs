//! HTTP download throughput: the same URL over several connections at once, bytes counted in
//! 250 ms windows, the first second dropped as warm-up (DNS, connect, TCP slow start), time to
//! connect and to the first response byte kept per connection (docs/sources.md §6.6).
//!
//! A plain HTTP/1.1 GET over `std::net` (`Connection: close`, identity encoding, up to 5
//! redirects). `https://` is not supported in this build — it would need a TLS library — and is
//! reported as such; measure an `http://` mirror of the same host instead.

use std::io::{self, Read, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use gpufare_core::numbers::stats::summarize;
use gpufare_core::profile::network::HttpResult;
use gpufare_core::profile::sampling::Series;

use super::{connect, describe, resolve, split_host_port};

/// Seconds dropped at the start as warm-up.
pub const WARMUP: Duration = Duration::from_secs(1);
/// Width of a throughput window.
pub const WINDOW: Duration = Duration::from_millis(250);
const MAX_REDIRECTS: usize = 5;
const MAX_HEADER: usize = 64 * 1024;

/// One download test.
#[derive(Debug, Clone)]
pub struct HttpPlan {
    pub url: String,
    pub connections: u32,
    /// Each connection stops after this long even if the body is not finished.
    pub max_duration: Duration,
}

/// A parsed `http://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    pub host: String,
    pub port: u16,
    pub path: String,
}

/// Parses an `http://HOST[:PORT]/PATH` URL.
pub fn parse_url(url: &str) -> Result<Url, String> {
    let url = url.trim();
    let rest = if let Some(rest) = url.strip_prefix("http://") {
        rest
    } else if url.starts_with("https://") {
        return Err(
            "https is not supported in this build (no TLS library); give an http:// URL".to_owned(),
        );
    } else {
        return Err(format!("{url:?} is not an http:// URL"));
    };
    let (authority, path) = match rest.find(['/', '?', '#']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let path = path.split('#').next().unwrap_or("/");
    let path = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    };
    if authority.contains('@') {
        return Err("URLs with credentials are not supported".to_owned());
    }
    let (host, port) = split_host_port(authority, Some(80))?;
    Ok(Url { host, port, path })
}

/// One connection's outcome.
#[derive(Debug, Default)]
struct Transfer {
    connect_ms: Option<f64>,
    ttfb_ms: Option<f64>,
    /// (time of the read, bytes) for every body read.
    reads: Vec<(Instant, u64)>,
    chunked: bool,
    truncated: bool,
}

/// Status code, headers and whatever body bytes arrived with them.
struct Head {
    status: u16,
    reason: String,
    headers: Vec<(String, String)>,
    rest: Vec<u8>,
}

fn header<'a>(head: &'a Head, name: &str) -> Option<&'a str> {
    head.headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn read_head(stream: &mut impl Read, first_byte: &mut Option<Instant>) -> Result<Head, String> {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream
            .read(&mut chunk)
            .map_err(|e| format!("reading the response: {}", describe(&e)))?;
        if n == 0 {
            return Err("the server closed the connection before a response".to_owned());
        }
        first_byte.get_or_insert_with(Instant::now);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let text = String::from_utf8_lossy(&buf[..end]).into_owned();
            let mut lines = text.split("\r\n");
            let status_line = lines.next().unwrap_or("");
            let mut parts = status_line.splitn(3, ' ');
            let version = parts.next().unwrap_or("");
            if !version.starts_with("HTTP/") {
                return Err(format!("not an HTTP response: {status_line:?}"));
            }
            let status: u16 = parts
                .next()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("bad status line {status_line:?}"))?;
            let reason = parts.next().unwrap_or("").to_owned();
            let headers = lines
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .collect();
            return Ok(Head {
                status,
                reason,
                headers,
                rest: buf[end + 4..].to_vec(),
            });
        }
        if buf.len() > MAX_HEADER {
            return Err("response headers larger than 64 KiB".to_owned());
        }
    }
}

fn download(url: &Url, deadline: Instant) -> Result<Transfer, String> {
    let mut url = url.clone();
    for _ in 0..=MAX_REDIRECTS {
        let mut t = Transfer::default();
        let addrs =
            resolve(&url.host, url.port, super::CONNECT_TIMEOUT).map_err(|e| e.to_string())?;
        let t0 = Instant::now();
        let mut stream = connect(&addrs)
            .map_err(|e| format!("connecting to {}:{}: {}", url.host, url.port, describe(&e)))?;
        t.connect_ms = Some(t0.elapsed().as_secs_f64() * 1e3);
        let host_header = if url.port == 80 {
            url.host.clone()
        } else if url.host.contains(':') {
            format!("[{}]:{}", url.host, url.port)
        } else {
            format!("{}:{}", url.host, url.port)
        };
        let request = format!(
            "GET {} HTTP/1.1\r\nHost: {host_header}\r\nUser-Agent: gpufare/{}\r\nAccept: */*\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n",
            url.path,
            env!("CARGO_PKG_VERSION")
        );
        let sent = Instant::now();
        stream
            .write_all(request.as_bytes())
            .map_err(|e| format!("sending the request: {}", describe(&e)))?;
        let mut first = None;
        let head = read_head(&mut stream, &mut first)?;
        t.ttfb_ms = first.map(|f| f.duration_since(sent).as_secs_f64() * 1e3);
        if (300..400).contains(&head.status) {
            let location = header(&head, "location")
                .ok_or_else(|| format!("HTTP {} without a Location", head.status))?;
            url = if location.starts_with('/') {
                Url {
                    path: location.to_owned(),
                    ..url
                }
            } else {
                parse_url(location).map_err(|e| format!("redirected to {location}: {e}"))?
            };
            continue;
        }
        if !(200..300).contains(&head.status) {
            return Err(format!("HTTP {} {}", head.status, head.reason));
        }
        t.chunked = header(&head, "transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        let length: Option<u64> = header(&head, "content-length").and_then(|v| v.parse().ok());
        let mut got = head.rest.len() as u64;
        if got > 0 {
            t.reads.push((Instant::now(), got));
        }
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            if length.is_some_and(|l| got >= l) {
                break;
            }
            if Instant::now() >= deadline {
                t.truncated = true;
                break;
            }
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    got += n as u64;
                    t.reads.push((Instant::now(), n as u64));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("reading the body: {}", describe(&e))),
            }
        }
        if let Some(l) = length
            && got < l
            && !t.truncated
        {
            return Err(format!("the body ended after {got} of {l} bytes"));
        }
        return Ok(t);
    }
    Err(format!("more than {MAX_REDIRECTS} redirects"))
}

/// Downloads the URL over the planned connections; failures end up in `error`.
pub fn run(plan: &HttpPlan) -> HttpResult {
    let mut result = HttpResult {
        url: plan.url.clone(),
        connections: plan.connections,
        bytes: 0,
        seconds: 0.0,
        warmup_s: 0.0,
        mbit_per_s: None,
        window_mbit_per_s: None,
        connect_ms: None,
        ttfb_ms: None,
        notes: vec![],
        error: None,
    };
    let url = match parse_url(&plan.url) {
        Ok(u) => u,
        Err(e) => {
            result.error = Some(e);
            return result;
        }
    };
    let start = Instant::now();
    let deadline = start + plan.max_duration;
    let outcomes: Mutex<Vec<Result<Transfer, String>>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..plan.connections.max(1) {
            let (url, outcomes) = (&url, &outcomes);
            s.spawn(move || {
                let r = download(url, deadline);
                if let Ok(mut o) = outcomes.lock() {
                    o.push(r);
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().unwrap_or_default();
    let errors: Vec<&String> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    let transfers: Vec<&Transfer> = outcomes.iter().filter_map(|o| o.as_ref().ok()).collect();
    if transfers.is_empty() {
        result.error = Some(
            errors
                .first()
                .map_or_else(|| "no connection finished".to_owned(), |e| (*e).clone()),
        );
        return result;
    }
    if !errors.is_empty() {
        result.notes.push(format!(
            "{} of {} connections failed: {}",
            errors.len(),
            outcomes.len(),
            errors[0]
        ));
    }
    if transfers.iter().any(|t| t.truncated) {
        result.notes.push(format!(
            "stopped after {} s before the body ended",
            plan.max_duration.as_secs_f64()
        ));
    }
    if transfers.iter().any(|t| t.chunked) {
        result
            .notes
            .push("chunked encoding: chunk headers are counted as body bytes".to_owned());
    }
    let connect: Vec<f64> = transfers.iter().filter_map(|t| t.connect_ms).collect();
    let ttfb: Vec<f64> = transfers.iter().filter_map(|t| t.ttfb_ms).collect();
    result.connect_ms = summarize(&connect);
    result.ttfb_ms = summarize(&ttfb);
    let reads: Vec<(Instant, u64)> = transfers
        .iter()
        .flat_map(|t| t.reads.iter().copied())
        .collect();
    result.bytes = reads.iter().map(|(_, b)| b).sum();
    let Some(last) = reads.iter().map(|(t, _)| *t).max() else {
        result.error = Some("the body was empty".to_owned());
        return result;
    };
    let total = last.duration_since(start);
    let warmup = if total >= WARMUP * 2 {
        WARMUP
    } else {
        result.notes.push(format!(
            "the transfer took {:.2} s: too short to drop a {} s warm-up, so it is included",
            total.as_secs_f64(),
            WARMUP.as_secs()
        ));
        Duration::ZERO
    };
    let from = start + warmup;
    let measured = last.duration_since(from).as_secs_f64();
    let counted: u64 = reads
        .iter()
        .filter(|(t, _)| *t > from || warmup.is_zero())
        .map(|(_, b)| b)
        .sum();
    result.warmup_s = warmup.as_secs_f64();
    result.seconds = measured;
    if measured > 0.0 {
        result.mbit_per_s = Some(counted as f64 * 8.0 / measured / 1e6);
    }
    let whole = (measured / WINDOW.as_secs_f64()).floor() as usize;
    if whole > 0 {
        let mut windows = vec![0u64; whole];
        for (t, b) in &reads {
            if *t <= from {
                continue;
            }
            let i = (t.duration_since(from).as_secs_f64() / WINDOW.as_secs_f64()) as usize;
            if let Some(w) = windows.get_mut(i) {
                *w += b;
            }
        }
        result.window_mbit_per_s = Some(Series::new(
            windows
                .iter()
                .map(|b| *b as f64 * 8.0 / WINDOW.as_secs_f64() / 1e6)
                .collect(),
        ));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_http_urls_and_refuses_the_rest() {
        assert_eq!(
            parse_url("http://127.0.0.1:8080/data/x.bin?x=1#f"),
            Ok(Url {
                host: "127.0.0.1".to_owned(),
                port: 8080,
                path: "/data/x.bin?x=1".to_owned()
            })
        );
        assert_eq!(
            parse_url("http://example.com"),
            Ok(Url {
                host: "example.com".to_owned(),
                port: 80,
                path: "/".to_owned()
            })
        );
        assert_eq!(parse_url("http://[::1]:81/a").map(|u| u.port), Ok(81));
        assert!(
            parse_url("https://huggingface.co/x")
                .unwrap_err()
                .contains("https is not supported")
        );
        assert!(parse_url("ftp://x/y").is_err());
        assert!(parse_url("http://user:pw@host/").is_err());
        assert!(parse_url("http://host:99999/").is_err());
    }
}
