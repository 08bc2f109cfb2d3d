//! A small static file server for `dist/`: GET and HEAD, correct MIME types (`.wasm` as
//! `application/wasm`), no directory escapes, one thread per connection, loopback only.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::thread;
use std::time::Duration;

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

fn accept_loop(listener: &TcpListener, dir: &Path) {
    for stream in listener.incoming().flatten() {
        let dir = dir.to_path_buf();
        thread::spawn(move || {
            let _ = handle(stream, &dir);
        });
    }
}

fn handle(mut stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers; nothing in them changes the answer.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
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
        );
    }
    let Some(path) = resolve(dir, target) else {
        return respond(
            &mut stream,
            "404 Not Found",
            "text/plain",
            b"not found\n",
            method == "GET",
        );
    };
    match fs::read(&path) {
        Ok(body) => respond(&mut stream, "200 OK", mime(&path), &body, method == "GET"),
        Err(_) => respond(
            &mut stream,
            "404 Not Found",
            "text/plain",
            b"not found\n",
            method == "GET",
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

fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    with_body: bool,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if with_body {
        stream.write_all(body)?;
    }
    stream.flush()
}
