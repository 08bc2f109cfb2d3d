//! Network measurements against real servers on loopback only: Debian's `iperf3 -s` (started
//! here; the test fails when /usr/bin/iperf3 is missing — `cargo xtask test` installs it), a local
//! HTTP server thread, and local TCP listeners. Nothing leaves 127.0.0.1.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gpufare_core::profile::document::parse_profile;
use gpufare_core::profile::network::{Direction, NetworkReport};

const IPERF3: &str = "/usr/bin/iperf3";

fn gpufare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(args)
        .output()
        .expect("gpufare runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `gpufare probe --no-gpu --duration 0 --quiet ARGS -o -` and reads its network section.
fn probe(args: &[&str]) -> (Output, Option<NetworkReport>) {
    let mut all = vec!["probe", "--no-gpu", "--duration", "0", "--quiet", "-o", "-"];
    all.extend_from_slice(args);
    let out = gpufare(&all);
    let network = parse_profile(&String::from_utf8_lossy(&out.stdout))
        .ok()
        .and_then(|p| p.network);
    (out, network)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A stock `iperf3 -s` on a loopback port, logging one JSON document per test; killed on drop.
struct IperfServer {
    child: Child,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl IperfServer {
    fn start() -> IperfServer {
        assert!(
            Path::new(IPERF3).exists(),
            "{IPERF3} is missing: install it with `apt-get install -y iperf3` (cargo xtask test does)"
        );
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("server.json");
        let port = free_port();
        let child = Command::new(IPERF3)
            .args([
                "-s",
                "-B",
                "127.0.0.1",
                "-p",
                &port.to_string(),
                "-J",
                "--logfile",
            ])
            .arg(&log)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("iperf3 -s starts");
        // Listening once the port cannot be bound any more (no probe connection to confuse it).
        let start = Instant::now();
        while TcpListener::bind(("127.0.0.1", port)).is_ok() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "iperf3 -s did not listen"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        IperfServer {
            child,
            port,
            log,
            _dir: dir,
        }
    }

    fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The server's JSON reports so far, one per test.
    fn reports(&self) -> Vec<serde_json::Value> {
        let text = fs::read_to_string(&self.log).unwrap_or_default();
        serde_json::Deserializer::from_str(&text)
            .into_iter::<serde_json::Value>()
            .filter_map(Result::ok)
            .collect()
    }
}

impl Drop for IperfServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn iperf3_client_works_against_a_stock_server_both_ways() {
    let server = IperfServer::start();
    let (out, network) = probe(&[
        "--iperf3",
        &server.address(),
        "--iperf3-seconds",
        "1",
        "--iperf3-streams",
        "2",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let n = network.unwrap();
    assert_eq!(n.iperf3.len(), 2);
    let (up, down) = (&n.iperf3[0], &n.iperf3[1]);
    assert_eq!(
        (up.direction, down.direction),
        (Direction::Upload, Direction::Download)
    );
    for r in [up, down] {
        assert_eq!(r.error, None, "{r:?}");
        assert_eq!(r.streams, 2);
        assert_eq!(r.stream_mbit_per_s.len(), 2, "{r:?}");
        assert!(r.bytes.unwrap() > 0 && r.mbit_per_s.unwrap() > 0.0, "{r:?}");
    }
    // The server's own accounts of the two tests agree with ours.
    let reports = server.reports();
    assert_eq!(reports.len(), 2, "{reports:?}");
    let received = reports[0]["end"]["sum_received"]["bytes"].as_u64().unwrap();
    assert_eq!(
        up.bytes,
        Some(received),
        "upload: the receiver's (server's) count"
    );
    assert_eq!(reports[0]["start"]["test_start"]["num_streams"], 2);
    assert_eq!(reports[1]["start"]["test_start"]["reverse"], 1);
    let sent = reports[1]["end"]["sum_sent"]["bytes"].as_u64().unwrap();
    let got = down.bytes.unwrap();
    assert!(
        got <= sent && got * 2 > sent,
        "download: we received {got} of the {sent} bytes the server sent"
    );
}

#[test]
fn a_busy_iperf3_server_is_reported_as_busy() {
    let server = IperfServer::start();
    // Another client runs a test on the server: cookie, parameters, one stream, TEST_RUNNING.
    // (While a client is still in the parameter exchange the server serves nobody else.)
    let cookie = b"abcdefghijklmnopqrstuvwxyz234567abcd\0";
    let mut other = TcpStream::connect(server.address()).unwrap();
    other
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let state = |s: &mut TcpStream| {
        let mut b = [0u8; 1];
        s.read_exact(&mut b).unwrap();
        b[0] as i8
    };
    other.write_all(cookie).unwrap();
    assert_eq!(state(&mut other), 9, "PARAM_EXCHANGE");
    let params = br#"{"tcp":true,"omit":0,"time":60,"num":0,"blockcount":0,"parallel":1,"len":131072,"client_version":"3.12"}"#;
    other
        .write_all(&(params.len() as u32).to_be_bytes())
        .unwrap();
    other.write_all(params).unwrap();
    assert_eq!(state(&mut other), 10, "CREATE_STREAMS");
    let mut stream = TcpStream::connect(server.address()).unwrap();
    stream.write_all(cookie).unwrap();
    assert_eq!(state(&mut other), 1, "TEST_START");
    assert_eq!(state(&mut other), 2, "TEST_RUNNING");

    let (out, network) = probe(&["--iperf3", &server.address(), "--iperf3-seconds", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let n = network.unwrap();
    assert_eq!(n.iperf3.len(), 2);
    for r in &n.iperf3 {
        let e = r.error.as_deref().unwrap_or("");
        assert!(e.contains("server busy (ACCESS_DENIED)"), "{r:?}");
        assert_eq!(r.bytes, None);
    }
    assert!(stderr(&out).contains("server busy"), "{}", stderr(&out));
    drop((other, stream));
}

#[test]
fn an_unreachable_host_fails_each_measurement_with_its_reason() {
    let closed = free_port();
    let target = format!("127.0.0.1:{closed}");
    let url = format!("http://127.0.0.1:{closed}/x");
    let (out, network) = probe(&["--iperf3", &target, "--rtt", &target, "--http", &url]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let n = network.unwrap();
    for e in n
        .iperf3
        .iter()
        .map(|r| &r.error)
        .chain(n.http.iter().map(|r| &r.error))
        .chain(n.rtt.iter().map(|r| &r.error))
    {
        assert!(
            e.as_deref().unwrap_or("").contains("connection refused"),
            "{e:?}"
        );
    }
    assert_eq!(n.rtt[0].samples_ms, Vec::<f64>::new());
    assert_eq!(n.rtt[0].tries, 5);
}

#[test]
fn bad_network_flags_are_usage_errors() {
    for args in [
        vec!["--iperf3", "host:port"],
        vec!["--rtt", "example.com"],
        vec!["--rtt", "example.com:0"],
        vec!["--http", "ftp://example.com/x"],
        vec!["--http", "https://example.com/x"],
        vec!["--iperf3-streams", "0"],
    ] {
        let mut all = vec!["probe"];
        all.extend(args.iter());
        let out = gpufare(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(args[0]), "{args:?}: {}", stderr(&out));
    }
    let out = gpufare(&["probe", "--http", "https://example.com/x"]);
    assert!(stderr(&out).contains("https is not supported in this build"));
}

/// A small HTTP server on loopback: `/data` is `size` bytes, `/moved` redirects there, anything
/// else is 404. Records the request lines it saw.
struct HttpServer {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
}

impl HttpServer {
    fn start(size: usize) -> HttpServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let seen = seen.clone();
                std::thread::spawn(move || serve(stream, size, &seen));
            }
        });
        HttpServer { port, requests }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

fn serve(mut stream: TcpStream, size: usize, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        head.push(line.trim_end().to_owned());
    }
    let request = head.join("\n");
    seen.lock().unwrap().push(request.clone());
    let path = head.first().and_then(|l| l.split(' ').nth(1)).unwrap_or("");
    match path {
        "/data" => {
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n"
            );
            let chunk = vec![7u8; 64 * 1024];
            let mut left = size;
            while left > 0 {
                let n = left.min(chunk.len());
                if stream.write_all(&chunk[..n]).is_err() {
                    return;
                }
                left -= n;
            }
        }
        "/moved" => {
            let _ = write!(
                stream,
                "HTTP/1.1 302 Found\r\nLocation: /data\r\nContent-Length: 0\r\n\r\n"
            );
        }
        _ => {
            let _ = write!(
                stream,
                "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
            );
        }
    }
}

#[test]
fn http_download_counts_every_byte_over_several_connections() {
    let size = 16 << 20;
    let server = HttpServer::start(size);
    let (out, network) = probe(&["--http", &server.url("/moved"), "--http-connections", "3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let n = network.unwrap();
    let h = &n.http[0];
    assert_eq!(h.error, None, "{h:?}");
    assert_eq!(h.connections, 3);
    assert_eq!(
        h.bytes,
        3 * size as u64,
        "every connection downloads the body"
    );
    assert!(h.mbit_per_s.unwrap() > 0.0, "{h:?}");
    let ttfb = h.ttfb_ms.unwrap();
    assert_eq!(ttfb.n, 3);
    assert!(ttfb.min > 0.0);
    assert_eq!(h.connect_ms.unwrap().n, 3);
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 6, "3 redirected + 3 followed: {requests:?}");
    assert_eq!(
        requests
            .iter()
            .filter(|r| r.starts_with("GET /data HTTP/1.1"))
            .count(),
        3
    );
    let host = format!("Host: 127.0.0.1:{}", server.port);
    assert!(requests.iter().all(|r| r.contains(&host)), "{requests:?}");
}

#[test]
fn an_http_error_status_is_a_failure_with_its_status() {
    let server = HttpServer::start(1024);
    let (out, network) = probe(&["--http", &server.url("/missing")]);
    assert_eq!(out.status.code(), Some(1));
    let h = &network.unwrap().http[0];
    assert_eq!(h.error.as_deref(), Some("HTTP 404 Not Found"));
    assert!(
        stderr(&out).contains("/missing: HTTP 404 Not Found"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn rtt_to_a_local_listener_has_min_and_median() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let target = listener.local_addr().unwrap().to_string();
    let (out, network) = probe(&["--rtt", &target, "--rtt-tries", "4"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r = &network.unwrap().rtt[0];
    assert_eq!(r.error, None);
    assert_eq!((r.tries, r.samples_ms.len()), (4, 4));
    assert_eq!(r.address.as_deref(), Some(target.as_str()));
    assert_eq!(r.region, None);
    let (min, median) = (r.min_ms.unwrap(), r.median_ms.unwrap());
    assert!(min > 0.0 && min <= median, "{r:?}");
    assert!(r.dns_ms.is_some());
    drop(listener);
}

#[test]
fn no_network_flag_means_no_network_section() {
    let (out, network) = probe(&[]);
    assert!(out.status.success());
    assert!(network.is_none());
}

/// A loopback server that answers every request with the same raw bytes, then closes the
/// connection.
struct RawServer {
    port: u16,
}

impl RawServer {
    fn start(reply: &[u8]) -> RawServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let reply = reply.to_vec();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let reply = reply.clone();
                std::thread::spawn(move || {
                    // Read the request head, then answer.
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                            break;
                        }
                    }
                    let _ = stream.write_all(&reply);
                    let _ = stream.shutdown(std::net::Shutdown::Both);
                });
            }
        });
        RawServer { port }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/file.bin", self.port)
    }
}

#[test]
fn malformed_http_replies_fail_clearly_instead_of_reporting_a_rate() {
    let body = "x".repeat(1000);
    let cases: Vec<(String, String, &str)> = vec![
        (
            "negative Content-Length".to_owned(),
            format!("HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n{body}"),
            "invalid Content-Length \"-5\"",
        ),
        (
            "non-numeric Content-Length".to_owned(),
            format!("HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n{body}"),
            "invalid Content-Length \"12abc\"",
        ),
        (
            "conflicting Content-Length".to_owned(),
            format!("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nContent-Length: 10\r\n\r\n{body}"),
            "conflicting Content-Length",
        ),
        (
            "Content-Length longer than the body".to_owned(),
            format!("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n{body}"),
            "after 1000 of the 1000000 bytes",
        ),
        (
            "malformed chunk size".to_owned(),
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\nabc\r\n0\r\n\r\n"
                .to_owned(),
            "malformed chunk size \"zz\"",
        ),
        (
            "chunk longer than its size".to_owned(),
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n"
                .to_owned(),
            "a chunk of 3 bytes is followed by more data",
        ),
        (
            "chunked body without its last chunk".to_owned(),
            format!("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n{body}\r\n"),
            "before its last (zero-size) chunk",
        ),
        (
            "chunked body cut in a chunk".to_owned(),
            format!(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n{body}"
            ),
            "in the middle of a chunk",
        ),
        (
            "unsupported transfer coding".to_owned(),
            format!("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n{body}"),
            "unsupported Transfer-Encoding",
        ),
    ];
    for (what, reply, reason) in cases {
        let server = RawServer::start(reply.as_bytes());
        let url = server.url();
        let (out, network) = probe(&["--http", &url, "--http-connections", "2"]);
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
        let h = &network.expect("the profile is still written").http[0];
        assert_eq!(
            h.mbit_per_s, None,
            "{what}: no rate from a bad reply: {h:?}"
        );
        let error = h.error.as_deref().unwrap_or("");
        assert!(error.contains(reason), "{what}: {error}");
        // The message on standard error names the URL and what was wrong.
        let err = stderr(&out);
        assert!(
            err.contains(&format!("HTTP {url}: ")) && err.contains(reason),
            "{what}: {err}"
        );
    }
}

#[test]
fn well_formed_chunked_and_length_replies_count_only_the_data() {
    let data = "y".repeat(3000);
    let chunked = format!(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n{a}\r\n7D0;name=v\r\n{b}\r\n0\r\nX-Check: 1\r\n\r\n",
        a = &data[..1000],
        b = &data[1000..]
    );
    let length = format!("HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\n{data}");
    for reply in [chunked, length] {
        let server = RawServer::start(reply.as_bytes());
        let (out, network) = probe(&["--http", &server.url(), "--http-connections", "2"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let h = &network.unwrap().http[0];
        assert_eq!(h.error, None, "{h:?}");
        assert_eq!(h.bytes, 2 * 3000, "data bytes only: {h:?}");
    }
}
