//! `gpufare catalog refresh` against a loopback HTTP server that replays responses shaped like
//! each feed's documented format (`tests/fixtures/feeds/`): the right catalog, one that
//! `gpufare plan` prices, or a clear error naming the URL, and never a half-written file.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

mod common;
use common::{root, text};

fn fixture(name: &str) -> Vec<u8> {
    fs::read(root().join("tests/fixtures/feeds").join(name)).unwrap()
}

fn gpufare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("gpufare runs")
}

/// One answer of the test server.
#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Wait this long before answering.
    delay: Duration,
    /// Announce the whole body's length but send only this many bytes, then hang up.
    cut_at: Option<usize>,
    /// Send no Content-Length: the body ends when the connection closes.
    no_length: bool,
    /// Wait this long after sending what is sent, before hanging up.
    hold: Duration,
}

fn ok(body: impl Into<Vec<u8>>) -> Reply {
    Reply {
        status: 200,
        headers: vec![],
        body: body.into(),
        delay: Duration::ZERO,
        cut_at: None,
        no_length: false,
        hold: Duration::ZERO,
    }
}

fn status(code: u16) -> Reply {
    Reply {
        status: code,
        ..ok(format!("status {code}"))
    }
}

type Handler = dyn Fn(&str, usize) -> Reply + Send + Sync;

/// A loopback server: `handler(path and query, how many times this path was asked before)`.
struct Server {
    base: String,
    hits: Arc<Mutex<BTreeMap<String, usize>>>,
}

impl Server {
    fn start(handler: impl Fn(&str, usize) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let hits: Arc<Mutex<BTreeMap<String, usize>>> = Arc::default();
        let handler: Arc<Handler> = Arc::new(handler);
        let counts = hits.clone();
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let handler = handler.clone();
                let counts = counts.clone();
                thread::spawn(move || answer(stream, &*handler, &counts));
            }
        });
        Server { base, hits }
    }

    fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

fn answer(mut stream: TcpStream, handler: &Handler, counts: &Mutex<BTreeMap<String, usize>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut request = Vec::new();
    let mut buf = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let head = text(&request);
    let target = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let path = target.split('?').next().unwrap_or("").to_owned();
    let seen = {
        let mut c = counts.lock().unwrap();
        let n = c.entry(path).or_insert(0);
        *n += 1;
        *n - 1
    };
    let reply = handler(&target, seen);
    thread::sleep(reply.delay);
    let mut out = format!("HTTP/1.1 {} X\r\nConnection: close\r\n", reply.status);
    if !reply.no_length {
        out.push_str(&format!("Content-Length: {}\r\n", reply.body.len()));
    }
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let body = match reply.cut_at {
        Some(n) => &reply.body[..n.min(reply.body.len())],
        None => &reply.body[..],
    };
    let _ = stream.write_all(out.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
    thread::sleep(reply.hold);
}

/// An Azure fixture page with its NextPageLink pointing at the test server.
fn azure_page(n: usize, base: &str) -> Vec<u8> {
    text(&fixture(&format!("azure-eastus-page{n}.json")))
        .replace(
            "https://prices.azure.com/api/retail/prices",
            &format!("{base}/azure"),
        )
        .into_bytes()
}

/// The page the query asks for (`$skip` 0, 100, 200).
fn azure_pages(target: &str, base: &str) -> Reply {
    let page = if target.contains("skip=200") {
        3
    } else if target.contains("skip=100") {
        2
    } else {
        1
    };
    ok(azure_page(page, base))
}

/// A single Azure page without a next page.
fn azure_single() -> Vec<u8> {
    let mut v: serde_json::Value =
        serde_json::from_slice(&fixture("azure-eastus-page1.json")).unwrap();
    v["NextPageLink"] = serde_json::Value::Null;
    serde_json::to_vec(&v).unwrap()
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpufare-refresh-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The refreshed catalog, read back.
fn catalog(path: &Path) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    assert_eq!(v["format_version"], 1);
    v
}

fn ids(v: &serde_json::Value) -> Vec<String> {
    v["offers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap().to_owned())
        .collect()
}

/// `gpufare plan` prices the sd_lora example against the catalog, with a feasible offer of it.
fn plans(path: &Path) {
    let out = gpufare(&[
        "plan",
        "--task",
        "examples/sd_lora.json",
        "--catalog",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--trials",
        "50",
    ]);
    assert!(out.status.success(), "plan: {}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let options = v["options"].as_array().unwrap();
    assert!(
        options.iter().any(|o| o["feasible"] == true),
        "no feasible offer in {}",
        path.display()
    );
}

/// Runs a refresh that must fail, with an existing output file that must stay as it was.
fn fails(dir: &Path, args: &[&str]) -> String {
    let target = dir.join("kept.json");
    fs::write(&target, "previous catalog\n").unwrap();
    let mut all = vec!["catalog", "refresh"];
    all.extend_from_slice(args);
    let t = target.to_str().unwrap().to_owned();
    all.extend_from_slice(&["-o", &t]);
    let out = gpufare(&all);
    assert!(!out.status.success(), "should fail: {args:?}");
    assert_eq!(
        fs::read_to_string(&target).unwrap(),
        "previous catalog\n",
        "the existing file was touched"
    );
    let leftovers: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".gpufare-"))
        .collect();
    assert!(leftovers.is_empty(), "a temporary file was left behind");
    text(&out.stderr)
}

#[test]
fn azure_follows_the_pages_and_the_catalog_prices() {
    // The handler rewrites NextPageLink to the server's own address, known once it listens.
    let holder: Arc<Mutex<String>> = Arc::default();
    let h = holder.clone();
    let server = Server::start(move |target, _| azure_pages(target, &h.lock().unwrap()));
    *holder.lock().unwrap() = server.base.clone();
    let dir = out_dir("azure");
    let path = dir.join("c.json");
    let report = dir.join("report.json");
    let url = format!("{}/azure", server.base);
    let out = gpufare(&[
        "catalog",
        "refresh",
        "azure",
        "--url",
        &url,
        "--region",
        "eastus",
        "--report",
        report.to_str().unwrap(),
        "-o",
        path.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(server.hits("/azure"), 3, "three pages");
    let v = catalog(&path);
    let ids = ids(&v);
    assert_eq!(ids.len(), 9, "{ids:?}");
    assert!(ids.contains(&"azure-standard-nc24ads-a100-v4-eastus-3y".to_owned()));
    for o in v["offers"].as_array().unwrap() {
        assert_eq!(o["price_evidence"], "official");
        assert_eq!(o["estimate"], false);
        assert!(o["source"].as_str().unwrap().starts_with(&url));
        assert_eq!(o["as_of"].as_str().unwrap().len(), 10);
    }
    assert!(err.contains("low-priority"), "{err}");
    assert!(err.contains("3 pages"), "{err}");
    let r: serde_json::Value = serde_json::from_slice(&fs::read(&report).unwrap()).unwrap();
    assert_eq!(r[0]["offers"], 9);
    assert_eq!(r[0]["dated_by"], "fetch_day");
    plans(&path);
}

#[test]
fn a_429_is_retried_after_the_wait_the_server_asks() {
    let server = Server::start(|_, seen| {
        if seen == 0 {
            Reply {
                headers: vec![("Retry-After".into(), "0".into())],
                ..status(429)
            }
        } else {
            ok(azure_single())
        }
    });
    let dir = out_dir("429");
    let path = dir.join("c.json");
    let out = gpufare(&[
        "catalog",
        "refresh",
        "azure",
        "--url",
        &format!("{}/azure", server.base),
        "-o",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(server.hits("/azure"), 2);
    assert!(!ids(&catalog(&path)).is_empty());
}

#[test]
fn a_server_error_after_the_retries_names_the_url_and_keeps_the_old_file() {
    let server = Server::start(|_, _| status(500));
    let dir = out_dir("500");
    let url = format!("{}/azure", server.base);
    let err = fails(&dir, &["azure", "--url", &url, "--retries", "2"]);
    assert_eq!(server.hits("/azure"), 3, "one try and two retries");
    assert!(err.contains(&url), "{err}");
    assert!(err.contains("HTTP 500"), "{err}");
    assert!(err.contains("3 tries"), "{err}");
    let other = Server::start(|_, _| status(404));
    let url = format!("{}/x/{{region}}/index.json", other.base);
    let err = fails(&dir, &["aws", "--url", &url]);
    assert_eq!(
        other.hits("/x/us-east-1/index.json"),
        1,
        "a 404 is not retried"
    );
    assert!(err.contains("HTTP 404"), "{err}");
}

#[test]
fn a_truncated_body_is_an_error() {
    let server = Server::start(|_, _| Reply {
        cut_at: Some(300),
        ..ok(azure_single())
    });
    let dir = out_dir("cut");
    let url = format!("{}/azure", server.base);
    let err = fails(&dir, &["azure", "--url", &url, "--retries", "0"]);
    assert!(
        err.contains(&url) && err.contains("cut short after 300 bytes"),
        "{err}"
    );
    // A gpuhunt CSV cut at a row boundary would still parse: the announced length catches it.
    let csv = fixture("gpuhunt-aws.csv");
    let cut = csv.iter().position(|b| *b == b'\n').unwrap() + 1;
    let sky = Server::start(move |_, _| Reply {
        cut_at: Some(cut),
        ..ok(csv.clone())
    });
    let url = format!("{}/vms.csv", sky.base);
    let err = fails(&dir, &["skypilot:aws", "--url", &url, "--retries", "0"]);
    assert!(err.contains(&url) && err.contains("cut short"), "{err}");
}

#[test]
fn malformed_json_is_an_error_with_its_position() {
    let server = Server::start(|_, _| ok("{\"Items\": [{\"armSkuName\": }"));
    let dir = out_dir("malformed");
    let url = format!("{}/azure", server.base);
    let err = fails(&dir, &["azure", "--url", &url]);
    assert!(
        err.contains(&url) && err.contains("not readable JSON"),
        "{err}"
    );
    let aws = Server::start(|_, _| ok("{\"offerCode\": \"AmazonEC2\", \"products\": {\"X\": "));
    let url = format!("{}/index.json", aws.base);
    let err = fails(&dir, &["aws", "--url", &url]);
    assert!(
        err.contains(&url) && err.contains("not readable JSON"),
        "{err}"
    );
}

#[test]
fn a_body_over_the_cap_is_refused_announced_or_not() {
    let server = Server::start(|target, _| {
        if target.starts_with("/stream") {
            Reply {
                no_length: true,
                ..ok(azure_single())
            }
        } else {
            ok(azure_single())
        }
    });
    let dir = out_dir("cap");
    for path in ["/announced", "/stream"] {
        let url = format!("{}{path}", server.base);
        let err = fails(&dir, &["azure", "--url", &url, "--max-bytes", "1K"]);
        assert!(err.contains("larger than the cap of 1 KiB"), "{err}");
        assert!(err.contains(&url), "{err}");
    }
}

#[test]
fn a_slow_server_times_out() {
    let server = Server::start(|_, _| Reply {
        delay: Duration::from_secs(5),
        ..ok(azure_single())
    });
    let dir = out_dir("slow");
    let url = format!("{}/azure", server.base);
    let err = fails(
        &dir,
        &["azure", "--url", &url, "--timeout", "0.3", "--retries", "0"],
    );
    assert!(err.contains("timed out"), "{err}");
    assert!(err.contains(&url), "{err}");
    // A body that stops coming halfway.
    let stalled = Server::start(|_, _| Reply {
        cut_at: Some(200),
        hold: Duration::from_secs(5),
        ..ok(azure_single())
    });
    let url = format!("{}/azure", stalled.base);
    let err = fails(
        &dir,
        &["azure", "--url", &url, "--timeout", "0.3", "--retries", "0"],
    );
    assert!(err.contains("timed out waiting for more"), "{err}");
    assert!(err.contains(&url), "{err}");
}

#[test]
fn aws_offer_file_streams_into_a_catalog() {
    let server = Server::start(|_, _| ok(fixture("aws-us-east-1-index.json")));
    let dir = out_dir("aws");
    let path = dir.join("c.json");
    let out = gpufare(&[
        "catalog",
        "refresh",
        "aws",
        "--url",
        &format!("{}/offers/{{region}}/index.json", server.base),
        "--region",
        "us-east-1",
        "-o",
        path.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(server.hits("/offers/us-east-1/index.json"), 1);
    let v = catalog(&path);
    assert_eq!(ids(&v).len(), 6, "{:?}", ids(&v));
    assert!(
        v["offers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["as_of"] == "2025-11-20")
    );
    assert!(
        err.contains("us-east-1-atl-2"),
        "the Local Zone is reported: {err}"
    );
    assert!(err.contains("no keyless spot"), "{err}");
    plans(&path);
}

#[test]
fn alibaba_price_file_into_a_catalog() {
    let server = Server::start(|_, _| ok(fixture("alibaba-instancePrice.json")));
    let dir = out_dir("alibaba");
    let path = dir.join("c.json");
    let out = gpufare(&[
        "catalog",
        "refresh",
        "alibaba",
        "--url",
        &format!("{}/ali/{{version}}/instancePrice.json", server.base),
        "--feed-version",
        "2.0.421",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(server.hits("/ali/2.0.421/instancePrice.json"), 1);
    let v = catalog(&path);
    assert_eq!(ids(&v).len(), 8);
    plans(&path);
}

#[test]
fn skypilot_vms_csv_into_a_catalog() {
    let server = Server::start(|_, _| ok(fixture("skypilot-aws-traps.csv")));
    let dir = out_dir("skypilot");
    let path = dir.join("c.json");
    let out = gpufare(&[
        "catalog",
        "refresh",
        "skypilot:aws",
        "--url",
        &format!("{}/catalogs/v8/{{cloud}}/vms.csv", server.base),
        "-o",
        path.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(server.hits("/catalogs/v8/aws/vms.csv"), 1);
    let v = catalog(&path);
    let p5 = v["offers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == "aws-p5-48xlarge-us-east-1-spot")
        .unwrap();
    assert_eq!(p5["price"], "17.63", "not the Local Zone's price");
    assert!(err.contains("use1-atl2-az1"), "{err}");
    assert!(err.contains("outlier"), "{err}");
    plans(&path);
}

/// A catalog.zip holding `name` with `body`, as gpuhunt publishes it.
fn zipped(name: &str, body: &[u8]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut w = zip::ZipWriter::new(&mut out);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        w.start_file(name, options).unwrap();
        w.write_all(body).unwrap();
        w.finish().unwrap();
    }
    out.into_inner()
}

#[test]
fn gpuhunt_catalog_zip_of_the_latest_version_into_a_catalog() {
    let zip = zipped("aws.csv", &fixture("gpuhunt-aws.csv"));
    let server = Server::start(move |target, _| match target {
        "/v3/aws/version" => ok("20251203-7\n"),
        "/v3/aws/20251203-7/catalog.zip" => ok(zip.clone()),
        _ => status(404),
    });
    let dir = out_dir("gpuhunt");
    let path = dir.join("c.json");
    let out = gpufare(&[
        "catalog",
        "refresh",
        "gpuhunt:aws",
        "--url",
        &format!("{}/v3", server.base),
        "-o",
        path.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    let v = catalog(&path);
    for o in v["offers"].as_array().unwrap() {
        assert_eq!(o["as_of"], "2025-12-03", "dated by the version");
        assert_eq!(o["price_evidence"], "catalog");
        assert!(
            o["source"]
                .as_str()
                .unwrap()
                .contains("/v3/aws/20251203-7/catalog.zip")
        );
    }
    plans(&path);
    // A version file that is not a version.
    let bad = Server::start(|target, _| match target {
        "/v3/aws/version" => ok("<html>"),
        _ => status(404),
    });
    let url = format!("{}/v3", bad.base);
    let err = fails(&dir, &["gpuhunt:aws", "--url", &url]);
    assert!(
        err.contains("/v3/aws/version") && err.contains("not a catalog version"),
        "{err}"
    );
    // A zip that is not one.
    let broken = Server::start(|target, _| match target {
        "/v3/aws/version" => ok("20251203-7"),
        _ => ok("PK not a zip"),
    });
    let url = format!("{}/v3", broken.base);
    let err = fails(&dir, &["gpuhunt:aws", "--url", &url]);
    assert!(err.contains("catalog.zip") && err.contains("zip"), "{err}");
}

#[test]
fn saved_responses_are_read_with_their_date() {
    let dir = out_dir("saved");
    let feeds = root().join("tests/fixtures/feeds");
    let f = |n: &str| feeds.join(n).to_str().unwrap().to_owned();
    let zip_path = dir.join("catalog.zip");
    fs::write(
        &zip_path,
        zipped("runpod.csv", &fixture("gpuhunt-runpod.csv")),
    )
    .unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "azure".into(),
                "--from-file".into(),
                f("azure-eastus-page1.json"),
                "--from-file".into(),
                f("azure-eastus-page2.json"),
                "--as-of".into(),
                "2026-11-30".into(),
            ],
            "2026-11-30",
        ),
        (
            vec![
                "aws".into(),
                "--from-file".into(),
                f("aws-us-east-1-index.json"),
            ],
            "2025-11-20",
        ),
        (
            vec![
                "alibaba".into(),
                "--from-file".into(),
                f("alibaba-instancePrice.json"),
                "--as-of".into(),
                "2026-11-29".into(),
            ],
            "2026-11-29",
        ),
        (
            vec![
                "skypilot:lambda".into(),
                "--from-file".into(),
                f("skypilot-lambda.csv"),
                "--as-of".into(),
                "2026-11-28".into(),
            ],
            "2026-11-28",
        ),
        (
            vec![
                "gpuhunt:runpod".into(),
                "--from-file".into(),
                zip_path.to_str().unwrap().to_owned(),
                "--feed-version".into(),
                "20251203-2".into(),
            ],
            "2025-12-03",
        ),
    ];
    for (i, (args, day)) in cases.iter().enumerate() {
        let path = dir.join(format!("c{i}.json"));
        let mut all = vec!["catalog", "refresh"];
        all.extend(args.iter().map(String::as_str));
        all.extend(["-o", path.to_str().unwrap()]);
        let out = gpufare(&all);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let v = catalog(&path);
        for o in v["offers"].as_array().unwrap() {
            assert_eq!(o["as_of"], *day, "{args:?}");
            assert!(
                o["source"].as_str().unwrap().starts_with("https://"),
                "{args:?}"
            );
        }
        plans(&path);
    }
    // Without --as-of a saved copy is dated by the day the file was written (today here).
    let path = dir.join("mtime.json");
    let out = gpufare(&[
        "catalog",
        "refresh",
        "alibaba",
        "--from-file",
        &f("alibaba-instancePrice.json"),
        "-o",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("the date given for the saved copy"));
}

#[test]
fn sources_merge_with_the_first_named_winning_and_bad_requests_are_usage_errors() {
    let dir = out_dir("merge");
    let sky = Server::start(|_, _| ok(fixture("skypilot-aws-traps.csv")));
    let zip = zipped("aws.csv", &fixture("gpuhunt-aws.csv"));
    let gh = Server::start(move |target, _| match target {
        "/v3/aws/version" => ok("20251203-7"),
        _ => ok(zip.clone()),
    });
    let sky_url = format!("{}/vms.csv", sky.base);
    let path = dir.join("both.json");
    let out = gpufare(&[
        "catalog",
        "refresh",
        "skypilot:aws",
        "gpuhunt:aws",
        "--url",
        &format!("skypilot:aws={sky_url}"),
        "--url",
        &format!("gpuhunt:aws={}/v3", gh.base),
        "-o",
        path.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("came from two sources"), "{err}");
    let v = catalog(&path);
    let g4dn = v["offers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == "aws-g4dn-xlarge-us-east-1")
        .unwrap();
    assert_eq!(
        g4dn["source"],
        sky_url.as_str(),
        "the source named first wins"
    );
    assert!(
        ids(&v).contains(&"aws-g5-xlarge-us-east-1".to_owned()),
        "offers of the second source are kept where the first has none"
    );
    // A bare --url with two sources, an unknown source, a bad region: usage errors (exit 2).
    for args in [
        vec!["azure", "aws", "--url", "http://127.0.0.1:9/x"],
        vec!["azure", "--url", "aws=http://127.0.0.1:9/x"],
        vec!["gcp"],
        vec![
            "azure",
            "--region",
            "east us",
            "--url",
            "http://127.0.0.1:9/x",
        ],
    ] {
        let t = dir.join("u.json");
        let mut all = vec!["catalog", "refresh"];
        all.extend(args.iter().copied());
        all.extend(["-o", t.to_str().unwrap()]);
        let out = gpufare(&all);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(!t.exists());
    }
    // A feed that gives no offer at all is an error, not an empty catalog.
    let tpu_only = "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,gpu_vendor\n\
                    v5litepod-1,us-central1,1.2,24,48.0,1,v5litepod-1,16.0,False,google\n";
    let empty = Server::start(move |target, _| match target {
        "/v3/gcp/version" => ok("20251203-1"),
        _ => ok(zipped("gcp.csv", tpu_only.as_bytes())),
    });
    let err = fails(
        &dir,
        &["gpuhunt:gcp", "--url", &format!("{}/v3", empty.base)],
    );
    assert!(err.contains("no offers") && err.contains("TPU"), "{err}");
}
