//! A small static file server for `dist/`: GET and HEAD, correct MIME types (`.wasm` as
//! `application/wasm`), no directory escapes, one thread per connection, loopback only. Text and
//! wasm go out gzipped when the browser accepts it, as any web host would send them, so the
//! site's load times measured against this server count the bytes a visitor really downloads.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, SystemTime};

use flate2::Compression;
use flate2::write::GzEncoder;

use anyhow::{Context, Result};

/// Binds 127.0.0.1:`port` (0 picks a free port) and serves `dir` on a background thread.
pub fn spawn(dir: &Path, port: u16) -> Result<SocketAddr> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
    let addr = listener.local_addr()?;
    let dir = dir.to_path_buf();
    thread::spawn(move || accept_loop(&listener, &dir));
    Ok(addr)
}

/// Serves `dir` until the process is stopped, printing the URL first.
pub fn serve_forever(dir: &Path, port: u16) -> Result<()> {
    let listener = TcpListener::bind(("127.0.0.1", port)).with_context(|| {
        format!("cannot listen on 127.0.0.1:{port} (try --port 0 for a free one)")
    })?;
    let addr = listener.local_addr()?;
    println!(
        "gpufare site: http://{addr}/  (serving {}; Ctrl-C to stop)",
        dir.display()
    );
    accept_loop(&listener, dir);
    Ok(())
}

/// Gzipped bodies already made, by file, with the modification time they were made from.
type GzipCache = Arc<Mutex<HashMap<PathBuf, (SystemTime, Arc<Vec<u8>>)>>>;

fn accept_loop(listener: &TcpListener, dir: &Path) {
    let cache = GzipCache::default();
    for stream in listener.incoming().flatten() {
        let dir = dir.to_path_buf();
        let cache = Arc::clone(&cache);
        thread::spawn(move || {
            let _ = handle(stream, &dir, &cache);
        });
    }
}

fn handle(mut stream: TcpStream, dir: &Path, cache: &GzipCache) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Of the headers only Accept-Encoding changes the answer.
    let mut accepts_gzip = false;
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("accept-encoding")
        {
            accepts_gzip |= value
                .split(',')
                .any(|coding| coding.split(';').next().unwrap_or("").trim() == "gzip");
        }
        line.clear();
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            b"method not allowed\n",
            true,
            false,
        );
    }
    let with_body = method == "GET";
    let Some(path) = resolve(dir, target) else {
        return respond(
            &mut stream,
            "404 Not Found",
            "text/plain",
            b"not found\n",
            with_body,
            false,
        );
    };
    if accepts_gzip
        && compressible(&path)
        && let Some(gzipped) = gzipped(cache, &path)
    {
        return respond(
            &mut stream,
            "200 OK",
            mime(&path),
            &gzipped,
            with_body,
            true,
        );
    }
    match fs::read(&path) {
        Ok(body) => respond(&mut stream, "200 OK", mime(&path), &body, with_body, false),
        Err(_) => respond(
            &mut stream,
            "404 Not Found",
            "text/plain",
            b"not found\n",
            with_body,
            false,
        ),
    }
}

/// Maps a request target to a file under `dir`, refusing anything that climbs out of it.
fn resolve(dir: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let relative = Path::new(path.trim_start_matches('/'));
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let mut full = dir.join(relative);
    if full.is_dir() {
        full = full.join("index.html");
    }
    full.is_file().then_some(full)
}

fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        Some("webmanifest") => "application/manifest+json",
        Some("png") => "image/png",
        Some("csv") => "text/csv; charset=utf-8",
        Some("md") => "text/markdown; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Images are compressed already; everything else the site holds is text or wasm.
fn compressible(path: &Path) -> bool {
    !matches!(path.extension().and_then(|e| e.to_str()), Some("png"))
}

/// The file gzipped, made once per version of the file; `None` if it cannot be read.
fn gzipped(cache: &GzipCache, path: &Path) -> Option<Arc<Vec<u8>>> {
    let modified = fs::metadata(path).and_then(|m| m.modified()).ok()?;
    let cached = cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(path)
        .filter(|(made_from, _)| *made_from == modified)
        .map(|(_, body)| Arc::clone(body));
    if cached.is_some() {
        return cached;
    }
    let raw = fs::read(path).ok()?;
    let mut encoder = GzEncoder::new(Vec::with_capacity(raw.len() / 3), Compression::best());
    encoder.write_all(&raw).ok()?;
    let body = Arc::new(encoder.finish().ok()?);
    cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(path.to_path_buf(), (modified, Arc::clone(&body)));
    Some(body)
}

/// Writes one response; `gzip` says the body is gzipped (sent with `Content-Encoding: gzip`).
fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    with_body: bool,
    gzip: bool,
) -> std::io::Result<()> {
    let encoding = if gzip {
        "Content-Encoding: gzip\r\n"
    } else {
        ""
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{encoding}Vary: Accept-Encoding\r\nCache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if with_body {
        stream.write_all(body)?;
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::read::GzDecoder;
    use std::io::Read;

    /// Sends one GET and returns the head (lower-cased) and the body as they came.
    fn get(addr: SocketAddr, path: &str, accept_encoding: Option<&str>) -> (String, Vec<u8>) {
        let mut stream = TcpStream::connect(addr).unwrap();
        let extra = accept_encoding
            .map(|v| format!("Accept-Encoding: {v}\r\n"))
            .unwrap_or_default();
        write!(stream, "GET {path} HTTP/1.1\r\nHost: x\r\n{extra}\r\n").unwrap();
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).unwrap();
        let split = reply.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&reply[..split]).to_lowercase();
        (head, reply[split + 4..].to_vec())
    }

    #[test]
    fn sends_gzip_only_to_browsers_that_accept_it_and_never_for_images() {
        let dir = tempfile::tempdir().unwrap();
        let wasm: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        fs::write(dir.path().join("app.wasm"), &wasm).unwrap();
        fs::write(dir.path().join("shot.png"), b"\x89PNG not really").unwrap();
        let addr = spawn(dir.path(), 0).unwrap();

        let (head, body) = get(addr, "/app.wasm", Some("br;q=1.0, gzip;q=0.8"));
        assert!(head.contains("content-encoding: gzip"), "{head}");
        assert!(head.contains("content-type: application/wasm"), "{head}");
        assert!(body.len() < wasm.len() / 2, "{} bytes", body.len());
        let mut unzipped = Vec::new();
        GzDecoder::new(&body[..])
            .read_to_end(&mut unzipped)
            .unwrap();
        assert_eq!(unzipped, wasm);

        // Served again from the cache, the same bytes.
        assert_eq!(get(addr, "/app.wasm", Some("gzip")).1, body);

        for refused in [None, Some("br"), Some("gzipx, deflate")] {
            let (head, body) = get(addr, "/app.wasm", refused);
            assert!(!head.contains("content-encoding"), "{refused:?}: {head}");
            assert_eq!(body, wasm, "{refused:?}");
        }
        let (head, body) = get(addr, "/shot.png", Some("gzip"));
        assert!(!head.contains("content-encoding"), "{head}");
        assert_eq!(body, b"\x89PNG not really");
        assert!(
            get(addr, "/../etc/passwd", Some("gzip"))
                .0
                .starts_with("http/1.1 404")
        );
    }
}
