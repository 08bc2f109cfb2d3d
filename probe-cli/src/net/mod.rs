//! Network measurements, each only when asked for and only to endpoints the user named (or opted
//! into with `--rtt-regions`): an iperf3-compatible client, HTTP download throughput and TCP
//! connect round-trip times. Every connect, read and write has a timeout, and name resolution is
//! bounded too (it runs on a helper thread).

pub mod http;
pub mod iperf3;
pub mod rtt;

use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::mpsc;
use std::time::Duration;

use gpufare_core::profile::network::{Direction, NetworkReport};

/// Timeout for a connect, and for name resolution.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Timeout for one read or write on an established connection.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// What to measure.
#[derive(Debug, Clone, Default)]
pub struct NetworkPlan {
    /// iperf3 servers, `HOST[:PORT]` (default port 5201).
    pub iperf3: Vec<String>,
    /// Parallel streams per iperf3 test.
    pub iperf3_streams: u32,
    /// Seconds per iperf3 test (each direction).
    pub iperf3_seconds: u32,
    /// URLs to download.
    pub http: Vec<String>,
    /// Parallel connections per URL.
    pub http_connections: u32,
    /// Longest time spent on one URL.
    pub http_seconds: f64,
    /// `HOST:PORT` endpoints to time connects to, with an optional region label.
    pub rtt: Vec<(String, Option<String>)>,
    /// Connects per endpoint.
    pub rtt_tries: u32,
    /// Progress lines on standard error.
    pub progress: bool,
}

impl NetworkPlan {
    /// Whether anything is asked for.
    pub fn is_empty(&self) -> bool {
        self.iperf3.is_empty() && self.http.is_empty() && self.rtt.is_empty()
    }
}

fn say(plan: &NetworkPlan, text: &str) {
    if plan.progress {
        use std::io::Write;
        let _ = writeln!(io::stderr(), "gpufare: network: {text}");
    }
}

/// Runs everything the plan asks for. Failures are recorded per endpoint, never fatal.
pub fn run(plan: &NetworkPlan) -> NetworkReport {
    let mut report = NetworkReport::default();
    for server in &plan.iperf3 {
        for direction in [Direction::Upload, Direction::Download] {
            say(
                plan,
                &format!(
                    "iperf3 {server} {}, {} streams, {} s",
                    match direction {
                        Direction::Upload => "upload",
                        Direction::Download => "download (reverse)",
                    },
                    plan.iperf3_streams,
                    plan.iperf3_seconds
                ),
            );
            let test = iperf3::Iperf3Plan {
                server: server.clone(),
                streams: plan.iperf3_streams,
                seconds: plan.iperf3_seconds,
                direction,
            };
            report.iperf3.push(match direction {
                Direction::Upload => iperf3::run(&test),
                // The server may still be resetting after our upload test.
                Direction::Download => iperf3::run_after_own_test(&test, Duration::from_secs(3)),
            });
        }
    }
    for url in &plan.http {
        say(
            plan,
            &format!("HTTP {url}, {} connections", plan.http_connections),
        );
        report.http.push(http::run(&http::HttpPlan {
            url: url.clone(),
            connections: plan.http_connections,
            max_duration: Duration::from_secs_f64(plan.http_seconds),
        }));
    }
    for (target, region) in &plan.rtt {
        say(plan, &format!("TCP connect RTT to {target}"));
        report
            .rtt
            .push(rtt::run(target, region.as_deref(), plan.rtt_tries));
    }
    report
}

/// Splits `HOST[:PORT]`, `[v6]:PORT` or a bare IPv6 address; `default_port` when none is given.
pub fn split_host_port(text: &str, default_port: Option<u16>) -> Result<(String, u16), String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty address".to_owned());
    }
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok((addr.ip().to_string(), addr.port()));
    }
    if let Ok(ip) = text.parse::<IpAddr>() {
        return default_port
            .map(|p| (ip.to_string(), p))
            .ok_or_else(|| format!("{text:?} has no port (HOST:PORT)"));
    }
    if let Some(rest) = text.strip_prefix('[') {
        let (host, port) = rest
            .split_once("]:")
            .ok_or_else(|| format!("{text:?} is not [ADDRESS]:PORT"))?;
        let port = port
            .parse()
            .map_err(|_| format!("{port:?} is not a port number"))?;
        return Ok((host.to_owned(), port));
    }
    match text.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && !host.contains(':') => {
            let port: u16 = port
                .parse()
                .map_err(|_| format!("{port:?} is not a port number (1-65535)"))?;
            if port == 0 {
                return Err("port 0 is not a port to connect to".to_owned());
            }
            Ok((host.to_owned(), port))
        }
        Some(_) => Err(format!("{text:?} is not HOST:PORT")),
        None => default_port
            .map(|p| (text.to_owned(), p))
            .ok_or_else(|| format!("{text:?} has no port (HOST:PORT)")),
    }
}

/// Resolves a host name with a bounded wait (the system resolver has no timeout of its own).
pub fn resolve(host: &str, port: u16, timeout: Duration) -> io::Result<Vec<SocketAddr>> {
    let (tx, rx) = mpsc::channel();
    let name = (host.to_owned(), port);
    std::thread::spawn(move || {
        let _ = tx.send(name.to_socket_addrs().map(Iterator::collect::<Vec<_>>));
    });
    match rx.recv_timeout(timeout) {
        Ok(Ok(addrs)) if !addrs.is_empty() => Ok(addrs),
        Ok(Ok(_)) => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{host} has no address"),
        )),
        Ok(Err(e)) => Err(io::Error::new(
            e.kind(),
            format!("cannot resolve {host}: {e}"),
        )),
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("resolving {host} took longer than {} s", timeout.as_secs()),
        )),
    }
}

/// Connects to the first address that answers, each within the connect timeout.
pub fn connect(addrs: &[SocketAddr]) -> io::Result<std::net::TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
    for a in addrs {
        match std::net::TcpStream::connect_timeout(a, CONNECT_TIMEOUT) {
            Ok(s) => {
                s.set_read_timeout(Some(IO_TIMEOUT))?;
                s.set_write_timeout(Some(IO_TIMEOUT))?;
                return Ok(s);
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Describes a connect or I/O error in plain words.
pub fn describe(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::ConnectionRefused => "connection refused (nothing listens there)".to_owned(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => format!("timed out ({e})"),
        _ => e.to_string(),
    }
}

/// TCP retransmits of a socket so far (Linux `TCP_INFO.tcpi_total_retrans`).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn tcp_retransmits(stream: &std::net::TcpStream) -> Option<u64> {
    use std::os::fd::AsRawFd;
    // SAFETY: tcp_info is plain old data; zeroed is a valid value.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: info and len are valid out-pointers of the sizes given, for the call.
    let r = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    (r == 0).then_some(u64::from(info.tcpi_total_retrans))
}

/// TCP retransmits are read through Linux's TCP_INFO only.
#[cfg(not(target_os = "linux"))]
pub fn tcp_retransmits(_: &std::net::TcpStream) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_hosts_and_ports() {
        assert_eq!(
            split_host_port("example.com", Some(5201)),
            Ok(("example.com".to_owned(), 5201))
        );
        assert_eq!(
            split_host_port("example.com:80", None),
            Ok(("example.com".to_owned(), 80))
        );
        assert_eq!(
            split_host_port("127.0.0.1:9", None),
            Ok(("127.0.0.1".to_owned(), 9))
        );
        assert_eq!(
            split_host_port("::1", Some(5201)),
            Ok(("::1".to_owned(), 5201))
        );
        assert_eq!(
            split_host_port("[::1]:8080", None),
            Ok(("::1".to_owned(), 8080))
        );
        assert!(split_host_port("example.com", None).is_err());
        assert!(split_host_port("example.com:http", None).is_err());
        assert!(split_host_port("example.com:0", None).is_err());
        assert!(split_host_port("example.com:70000", None).is_err());
        assert!(split_host_port("", Some(1)).is_err());
    }
}
