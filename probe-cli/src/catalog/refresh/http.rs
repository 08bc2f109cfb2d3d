//! The HTTP side of `gpufare catalog refresh`: GET with timeouts, retries on 429 and 5xx with
//! exponential backoff (a `Retry-After` in seconds is honoured), responses capped in size and
//! checked for truncation, and a byte counter on standard error while a large body arrives.
//! Every error names the URL and what went wrong.

use std::io::{self, IsTerminal, Read};
use std::time::Duration;

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ureq::Agent;
use ureq::http::Response;

/// The first wait before a retry; it doubles with each retry.
const BACKOFF_START: Duration = Duration::from_millis(250);
/// The longest wait between two tries that gpufare chooses itself.
const BACKOFF_CAP: Duration = Duration::from_secs(8);
/// The longest `Retry-After` gpufare honours; a server asking for more is an error.
const RETRY_AFTER_CAP: Duration = Duration::from_secs(60);

/// A blocking HTTP client with the refresh command's rules.
pub struct Client {
    agent: Agent,
    retries: u32,
    progress: bool,
}

/// Reads a response body, failing once more than `cap` bytes arrive, or when the body ends
/// before the length the server announced.
pub struct CappedBody<R> {
    inner: R,
    url: String,
    cap: u64,
    expected: Option<u64>,
    read: u64,
    bar: ProgressBar,
}

impl<R: Read> Read for CappedBody<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf).map_err(|e| {
            self.bar.finish_and_clear();
            let what = match e.kind() {
                io::ErrorKind::UnexpectedEof => format!(
                    "the response was cut short after {} bytes{} ({e})",
                    self.read,
                    self.expected
                        .map(|n| format!(" of the {n} announced"))
                        .unwrap_or_default()
                ),
                _ if e.kind() == io::ErrorKind::TimedOut
                    || e.to_string().starts_with("timeout") =>
                {
                    format!("timed out waiting for more of the response (--timeout) ({e})")
                }
                _ => format!("reading the response failed: {e}"),
            };
            io::Error::new(e.kind(), format!("{}: {what}", self.url))
        })?;
        self.read += n as u64;
        self.bar.set_position(self.read);
        if self.read > self.cap {
            self.bar.finish_and_clear();
            return Err(io::Error::other(format!(
                "{}: the response is larger than the cap of {} (--max-bytes)",
                self.url,
                bytes(self.cap)
            )));
        }
        if n == 0 && !buf.is_empty() {
            self.bar.finish_and_clear();
            if let Some(expected) = self.expected
                && self.read < expected
            {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "{}: the response was cut short: {} of the {} bytes announced",
                        self.url, self.read, expected
                    ),
                ));
            }
        }
        Ok(n)
    }
}

/// An address for messages: a long query (Azure's filter names every GPU size) is cut short.
pub fn shown(url: &str) -> String {
    const MAX: usize = 160;
    if url.chars().count() <= MAX {
        return url.to_owned();
    }
    let cut: String = url.chars().take(MAX).collect();
    format!("{cut}…")
}

/// A size for people: `16 MiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if n >= size && n.is_multiple_of(size) {
            return format!("{} {unit}", n / size);
        }
    }
    format!("{n} bytes")
}

impl Client {
    /// A client whose connection, wait for the response and every read of the body each give
    /// up after `timeout`; `retries` more tries after a 429, a 5xx or a failed connection.
    pub fn new(timeout: Duration, retries: u32, progress: bool) -> Client {
        let agent: Agent = Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(timeout))
            .timeout_send_request(Some(timeout))
            .timeout_recv_response(Some(timeout))
            .timeout_per_read(Some(timeout))
            .user_agent(concat!("gpufare/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Client {
            agent,
            retries,
            progress: progress && io::stderr().is_terminal(),
        }
    }

    /// GETs `url`, retrying as the rules say, and returns the successful response.
    fn open(&self, address: &str) -> Result<Response<ureq::Body>> {
        let url = shown(address);
        let mut attempt = 0u32;
        loop {
            let wait = match self.agent.get(address).call() {
                Ok(response) => {
                    let status = response.status();
                    if status.is_success() {
                        return Ok(response);
                    }
                    let code = status.as_u16();
                    let reason = status.canonical_reason().unwrap_or("");
                    let retryable = code == 429 || status.is_server_error();
                    if !retryable {
                        bail!("{url}: the server answered HTTP {code} {reason}");
                    }
                    if attempt >= self.retries {
                        bail!(
                            "{url}: the server answered HTTP {code} {reason} to each of {} tries",
                            attempt + 1
                        );
                    }
                    match retry_after(&response) {
                        Some(asked) if asked > RETRY_AFTER_CAP => bail!(
                            "{url}: the server answered HTTP {code} and asks to retry after {} s, \
                             longer than the {} s gpufare waits",
                            asked.as_secs(),
                            RETRY_AFTER_CAP.as_secs()
                        ),
                        Some(asked) => asked,
                        None => backoff(attempt),
                    }
                }
                Err(ureq::Error::Timeout(what)) => {
                    bail!("{url}: timed out ({what}); --timeout sets the limit")
                }
                Err(
                    e @ (ureq::Error::Io(_)
                    | ureq::Error::ConnectionFailed
                    | ureq::Error::HostNotFound),
                ) => {
                    if attempt >= self.retries {
                        bail!("{url}: {e} (after {} tries)", attempt + 1);
                    }
                    backoff(attempt)
                }
                Err(e) => bail!("{url}: {e}"),
            };
            std::thread::sleep(wait);
            attempt += 1;
        }
    }

    /// A streaming reader of `url`'s body, capped at `cap` bytes.
    pub fn reader(&self, address: &str, cap: u64) -> Result<CappedBody<impl Read + use<>>> {
        let response = self.open(address)?;
        let url = shown(address);
        let headers = response.headers();
        let announced: Option<u64> = headers
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok());
        // A compressed body is decoded on the way: the announced length is the compressed one.
        let plain = headers
            .get("content-encoding")
            .and_then(|v| v.to_str().ok())
            .is_none_or(|v| v.trim().is_empty() || v.trim().eq_ignore_ascii_case("identity"));
        let expected = announced.filter(|_| plain);
        if let Some(n) = expected
            && n > cap
        {
            bail!(
                "{url}: the response is {} long, larger than the cap of {} (--max-bytes)",
                bytes(n),
                bytes(cap)
            );
        }
        let bar = if self.progress {
            let bar = ProgressBar::with_draw_target(expected, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{msg} {bytes}/{total_bytes} {bytes_per_sec}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_message(url.chars().take(60).collect::<String>());
            bar
        } else {
            ProgressBar::hidden()
        };
        let inner = response.into_body().into_with_config().reader();
        Ok(CappedBody {
            inner,
            url: url.clone(),
            cap,
            expected,
            read: 0,
            bar,
        })
    }

    /// `url`'s whole body, at most `cap` bytes.
    pub fn get(&self, url: &str, cap: u64) -> Result<Vec<u8>> {
        let mut body = self.reader(url, cap)?;
        let mut out = Vec::new();
        body.read_to_end(&mut out)?;
        Ok(out)
    }

    /// `url`'s body as text.
    pub fn get_text(&self, url: &str, cap: u64) -> Result<String> {
        let bytes = self.get(url, cap)?;
        String::from_utf8(bytes).map_err(|e| {
            anyhow::anyhow!(
                "{}: the response is not UTF-8 text (byte {})",
                shown(url),
                e.utf8_error().valid_up_to()
            )
        })
    }
}

/// The wait before retry number `attempt + 1`.
fn backoff(attempt: u32) -> Duration {
    BACKOFF_START
        .saturating_mul(2u32.saturating_pow(attempt))
        .min(BACKOFF_CAP)
}

/// A `Retry-After` given in seconds (an HTTP date is not honoured: the backoff applies).
fn retry_after<B>(response: &Response<B>) -> Option<Duration> {
    let value = response.headers().get("retry-after")?.to_str().ok()?;
    let seconds: u64 = value.trim().parse().ok()?;
    Some(Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_its_cap() {
        assert_eq!(backoff(0), Duration::from_millis(250));
        assert_eq!(backoff(1), Duration::from_millis(500));
        assert_eq!(backoff(5), Duration::from_secs(8));
        assert_eq!(backoff(40), Duration::from_secs(8));
        assert_eq!(bytes(16 << 20), "16 MiB");
        assert_eq!(bytes(1000), "1000 bytes");
    }
}
