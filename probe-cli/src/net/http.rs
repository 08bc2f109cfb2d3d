//! HTTP download throughput: the same URL over several connections at once, bytes counted in
//! 250 ms windows, the first second dropped as warm-up (DNS, connect, TCP slow start), time to
//! connect and to the first response byte kept per connection (docs/sources.md §6.6).
//!
//! A plain HTTP/1.1 GET over `std::net` (`Connection: close`, identity encoding, up to 5
//! redirects). `https://` is not supported in this build — it would need a TLS library — and is
//! reported as such; measure an `http://` mirror of the same host instead.
//!
//! The reply is checked, not believed: a `Content-Length` that is not a whole number, a body that
//! ends before its `Content-Length`, a malformed chunk size, a chunk longer than announced, or a
//! chunked body without its last chunk fails the measurement with what was wrong (no rate is
//! reported), as does any connection of the several failing. Only data bytes count (chunk framing
//! does not). Stopping at `--http-seconds` before the end is a deliberate cut, noted.

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
    /// The body had no length: its end was the connection closing, which cannot be checked.
    close_delimited: bool,
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
        let framing = framing(&head)?;
        t.close_delimited = matches!(framing, Framing::Close);
        read_body(&mut stream, framing, head.rest, deadline, &mut t)?;
        return Ok(t);
    }
    Err(format!("more than {MAX_REDIRECTS} redirects"))
}

/// How the end of a response body is known (RFC 9112 §6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// `Content-Length`: exactly this many bytes.
    Length(u64),
    /// `Transfer-Encoding: chunked`: until the last (zero-size) chunk and its trailer.
    Chunked,
    /// Neither: until the server closes the connection (an early close cannot be told apart).
    Close,
}

/// The body's framing from the headers; a malformed or unsupported one is an error.
fn framing(head: &Head) -> Result<Framing, String> {
    let encodings: Vec<String> = head
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("transfer-encoding"))
        .flat_map(|(_, v)| v.split(','))
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| !e.is_empty() && e != "identity")
        .collect();
    if !encodings.is_empty() {
        // Chunked overrides any Content-Length; we asked for no other coding.
        return if encodings == ["chunked"] {
            Ok(Framing::Chunked)
        } else {
            Err(format!(
                "unsupported Transfer-Encoding {:?} (only chunked is read)",
                encodings.join(", ")
            ))
        };
    }
    let mut length = None;
    for (_, value) in head
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("content-length"))
    {
        for v in value.split(',').map(str::trim) {
            let n = if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
                v.parse::<u64>().ok()
            } else {
                None
            };
            let Some(n) = n else {
                return Err(format!(
                    "invalid Content-Length {v:?} (not a whole number of bytes)"
                ));
            };
            if length.is_some_and(|l| l != n) {
                return Err(format!(
                    "conflicting Content-Length values {} and {n}",
                    length.unwrap_or(n)
                ));
            }
            length = Some(n);
        }
    }
    Ok(length.map_or(Framing::Close, Framing::Length))
}

/// Reads the body after the head (`first`: the body bytes that came with the head), counting
/// only body bytes (not chunk framing), until its end, the deadline (`truncated`), or an error:
/// a body shorter than its Content-Length, a malformed or unterminated chunked body.
fn read_body(
    stream: &mut impl Read,
    framing: Framing,
    first: Vec<u8>,
    deadline: Instant,
    t: &mut Transfer,
) -> Result<(), String> {
    let mut chunks = ChunkedDecoder::default();
    let mut got: u64 = 0;
    let mut pending = first;
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        if !pending.is_empty() {
            let body = match framing {
                Framing::Length(l) => (pending.len() as u64).min(l - got),
                Framing::Close => pending.len() as u64,
                Framing::Chunked => chunks.feed(&pending)?,
            };
            got += body;
            if body > 0 {
                t.reads.push((Instant::now(), body));
            }
            pending.clear();
        }
        let done = match framing {
            Framing::Length(l) => got >= l,
            Framing::Chunked => chunks.done(),
            Framing::Close => false,
        };
        if done {
            return Ok(());
        }
        if Instant::now() >= deadline {
            t.truncated = true;
            return Ok(());
        }
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => pending.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(format!(
                    "reading the body after {got} bytes: {}",
                    describe(&e)
                ));
            }
        }
    }
    // The server closed the connection.
    match framing {
        Framing::Close => Ok(()),
        Framing::Length(l) => Err(format!(
            "truncated body: the connection closed after {got} of the {l} bytes its \
             Content-Length announced"
        )),
        Framing::Chunked => Err(format!(
            "truncated chunked body: the connection closed after {got} bytes, {}",
            chunks.missing()
        )),
    }
}

/// Where a chunked body is (RFC 9112 §7.1).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum ChunkState {
    /// Reading a chunk-size line.
    #[default]
    Size,
    /// Inside a chunk: this many data bytes left.
    Data(u64),
    /// After a chunk's data: its CRLF.
    DataEnd,
    /// After the last chunk: trailer lines until an empty one.
    Trailer,
    /// The body is complete.
    Done,
}

/// A streaming decoder for `Transfer-Encoding: chunked` that counts data bytes.
#[derive(Debug, Default)]
struct ChunkedDecoder {
    state: ChunkState,
    line: Vec<u8>,
    /// The size of the chunk being read (for messages).
    size: u64,
}

/// Longest chunk-size or trailer line accepted.
const MAX_CHUNK_LINE: usize = 4096;

impl ChunkedDecoder {
    fn done(&self) -> bool {
        self.state == ChunkState::Done
    }

    /// What an unexpected end of the body left missing.
    fn missing(&self) -> &'static str {
        match self.state {
            ChunkState::Size | ChunkState::DataEnd => "before its last (zero-size) chunk",
            ChunkState::Data(_) => "in the middle of a chunk",
            ChunkState::Trailer => "before the empty line that ends the last chunk",
            ChunkState::Done => "after its end",
        }
    }

    /// Takes the next bytes of the body; returns how many of them are data.
    fn feed(&mut self, mut bytes: &[u8]) -> Result<u64, String> {
        let mut data = 0;
        while !bytes.is_empty() && self.state != ChunkState::Done {
            if let ChunkState::Data(left) = self.state {
                let take = (bytes.len() as u64).min(left);
                data += take;
                bytes = &bytes[take as usize..];
                self.state = if take == left {
                    ChunkState::DataEnd
                } else {
                    ChunkState::Data(left - take)
                };
                continue;
            }
            let Some(end) = bytes.iter().position(|&b| b == b'\n') else {
                self.line.extend_from_slice(bytes);
                self.check_line_length()?;
                return Ok(data);
            };
            self.line.extend_from_slice(&bytes[..end]);
            bytes = &bytes[end + 1..];
            self.check_line_length()?;
            if self.line.last() == Some(&b'\r') {
                self.line.pop();
            }
            let line = std::mem::take(&mut self.line);
            self.end_line(&line)?;
        }
        Ok(data)
    }

    fn check_line_length(&self) -> Result<(), String> {
        if self.line.len() > MAX_CHUNK_LINE {
            return Err(format!(
                "malformed chunked body: a chunk-size or trailer line longer than {MAX_CHUNK_LINE} bytes"
            ));
        }
        Ok(())
    }

    fn end_line(&mut self, line: &[u8]) -> Result<(), String> {
        match self.state {
            ChunkState::Size => {
                let text = String::from_utf8_lossy(line);
                let size_part = text
                    .split(';')
                    .next()
                    .unwrap_or("")
                    .trim_end_matches([' ', '\t']);
                let size = if !size_part.is_empty()
                    && size_part.len() <= 16
                    && size_part.bytes().all(|b| b.is_ascii_hexdigit())
                {
                    u64::from_str_radix(size_part, 16).ok()
                } else {
                    None
                };
                let Some(size) = size else {
                    return Err(format!(
                        "malformed chunk size {text:?} (a chunk must start with its size in hexadecimal)"
                    ));
                };
                self.size = size;
                self.state = if size == 0 {
                    ChunkState::Trailer
                } else {
                    ChunkState::Data(size)
                };
            }
            ChunkState::DataEnd => {
                if !line.is_empty() {
                    return Err(format!(
                        "malformed chunked body: a chunk of {} bytes is followed by more data \
                         instead of CRLF",
                        self.size
                    ));
                }
                self.state = ChunkState::Size;
            }
            ChunkState::Trailer => {
                if line.is_empty() {
                    self.state = ChunkState::Done;
                }
            }
            ChunkState::Data(_) | ChunkState::Done => {}
        }
        Ok(())
    }
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
        // A rate from fewer connections than asked, or from a reply that was malformed or cut
        // short, is not the rate that was asked for: the measurement fails.
        result.error = Some(format!(
            "{} of {} connections failed: {}",
            errors.len(),
            outcomes.len(),
            errors[0]
        ));
        return result;
    }
    if transfers.iter().any(|t| t.truncated) {
        result.notes.push(format!(
            "stopped after {} s before the body ended",
            plan.max_duration.as_secs_f64()
        ));
    }
    if transfers.iter().any(|t| t.close_delimited) {
        result.notes.push(
            "the server sent no Content-Length and no chunked encoding: a body cut short by a \
             closed connection could not be detected"
                .to_owned(),
        );
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

    #[test]
    fn the_chunked_decoder_counts_data_across_any_split_and_refuses_bad_framing() {
        let body = b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n";
        for split in 0..body.len() {
            let mut d = ChunkedDecoder::default();
            let n = d.feed(&body[..split]).unwrap() + d.feed(&body[split..]).unwrap();
            assert_eq!(n, 11, "split at {split}");
            assert!(d.done());
        }
        let mut d = ChunkedDecoder::default();
        assert!(
            d.feed(b"zz\r\n")
                .unwrap_err()
                .contains("malformed chunk size")
        );
        let mut d = ChunkedDecoder::default();
        assert!(
            d.feed(b"-5\r\n")
                .unwrap_err()
                .contains("malformed chunk size")
        );
        let mut d = ChunkedDecoder::default();
        assert!(
            d.feed(b"3\r\nhello\r\n")
                .unwrap_err()
                .contains("chunk of 3 bytes")
        );
        let mut d = ChunkedDecoder::default();
        assert!(d.feed(&[b'1'; 5000]).is_err(), "an endless size line");
        let mut d = ChunkedDecoder::default();
        assert!(
            d.feed(b"11111111111111111\r\n").is_err(),
            "a size past 64 bits"
        );
        let mut d = ChunkedDecoder::default();
        assert_eq!(d.feed(b"5\r\nhello\r\n").unwrap(), 5);
        assert!(!d.done());
        assert!(d.missing().contains("last"));
    }
}
