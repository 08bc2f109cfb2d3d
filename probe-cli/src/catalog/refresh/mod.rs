//! `gpufare catalog refresh SOURCE... -o FILE`: fetches public, keyless price feeds and writes
//! one catalog in our JSON form. This module only fetches, reads saved copies and writes; every
//! mapping rule (which rows, which GPU, which date, which traps) lives in
//! `gpufare_core::offers::feeds` and `gpufare_core::offers::skypilot`.
//!
//! A source that fails (a network error, an HTTP error after the retries, a body over the cap,
//! cut short or not in the feed's format, no offer at all) fails the whole command with the URL
//! and the reason, and the output file is left as it was: it is written once, at the end,
//! atomically.

mod http;

use std::fs;
use std::io::{BufReader, Cursor, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use gpufare_core::offers::catalog::{
    CATALOG_FORMAT_VERSION, Catalog, CatalogError, catalog_to_json, parse_catalog_json,
};
use gpufare_core::offers::feeds::{
    DatedBy, FeedContext, FeedError, FeedImport, FeedReport, alibaba, aws, azure, day_only, gpuhunt,
};
use gpufare_core::offers::import::{OnClash, merge};
use gpufare_core::offers::skypilot::import_vms_csv_from;

use crate::flags::parse_size;
use crate::input::InputFileError;
use crate::output;

use http::{bytes, shown};

const REFRESH_EXAMPLES: &str = "\
Sources:
  azure               Azure Retail Prices API: pay-as-you-go, spot and 1- and 3-year reservations
                      (--region, default eastus)
  aws                 AWS Price List EC2 offer file: on-demand and standard reservations
                      (--region, default us-east-1; AWS has no keyless spot price feed)
  alibaba             Alibaba Cloud's international price file: pay-as-you-go, monthly, yearly
                      (--feed-version, default 2.0.421; --region keeps only those regions)
  skypilot:<cloud>    SkyPilot's catalogs/v8/<cloud>/vms.csv (aws, gcp, lambda, runpod, vast ...)
  gpuhunt:<provider>  dstack's gpuhunt catalog (aws, azure, gcp, lambdalabs, nebius, oci, runpod,
                      verda, cloudrift; --feed-version pins a version, default the latest)

Examples:
  gpufare catalog refresh azure aws -o cloud.json
  gpufare catalog refresh azure --region eastus --region westus2 -o azure.json
  gpufare catalog refresh gpuhunt:runpod skypilot:lambda -o gpu-clouds.json --report report.json
  gpufare catalog refresh aws --from-file index.json --as-of 2025-11-20 -o aws.json
  gpufare plan --task examples/sd_lora.json --catalog cloud.json";

/// `gpufare catalog refresh`.
#[derive(Debug, Args)]
#[command(after_help = REFRESH_EXAMPLES)]
pub struct RefreshArgs {
    /// Feeds to read: azure, aws, alibaba, skypilot:<cloud>, gpuhunt:<provider>.
    #[arg(required = true, value_name = "SOURCE")]
    pub sources: Vec<String>,

    /// Where to write the catalog (our JSON form); `-` is standard output. Written only when
    /// every source succeeded; an existing file is replaced atomically.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// A region to fetch (Azure, AWS) or to keep (the others); repeatable.
    #[arg(long = "region", value_name = "REGION")]
    pub regions: Vec<String>,

    /// Fetch from this address instead of the public one (a mirror, a test server): `URL` with
    /// one source, `SOURCE=URL` (repeatable) with several. Azure: the API endpoint (the query is
    /// appended); AWS: the offer file (`{region}` is replaced); Alibaba: the price file
    /// (`{version}` is replaced); SkyPilot: the vms.csv (`{cloud}` is replaced); gpuhunt: the
    /// base under which `<provider>/version` and `<provider>/<version>/catalog.zip` are.
    #[arg(long, value_name = "URL", conflicts_with = "from_file")]
    pub url: Vec<String>,

    /// Read a saved response instead of fetching; one source only. Repeat for Azure's pages
    /// (their NextPageLink is not followed). gpuhunt: the catalog.zip or the CSV in it.
    #[arg(long, value_name = "PATH")]
    pub from_file: Vec<PathBuf>,

    /// The date of a saved copy whose feed carries no date of its own (default: the day the file
    /// was last modified).
    #[arg(long, value_name = "YYYY-MM-DD", requires = "from_file")]
    pub as_of: Option<String>,

    /// The gpuhunt catalog version (`YYYYMMDD-N`; default: the latest) or the Alibaba price
    /// file version (default: 2.0.421).
    #[arg(long, value_name = "VERSION")]
    pub feed_version: Option<String>,

    /// Seconds to wait for a connection, for the response to begin, and for each read of its
    /// body.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = positive_seconds)]
    pub timeout: f64,

    /// Further tries after HTTP 429 or 5xx or a failed connection, waiting 0.25 s, 0.5 s, 1 s ...
    /// (at most 8 s), or what the server's Retry-After says (at most 60 s).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub retries: u32,

    /// The largest response accepted, bytes (suffix K, M or G). Defaults: Azure 16M a page, AWS
    /// 4G (read as it streams, keeping only GPU rows), Alibaba 256M, SkyPilot 128M, gpuhunt 64M
    /// zipped and 8 times that unzipped.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    pub max_bytes: Option<u64>,

    /// The most Azure pages followed per region (100 items a page).
    #[arg(long, value_name = "N", default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub max_pages: u32,

    /// Also write what each import read, skipped and flagged, as JSON.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!("{text:?} is not a number of seconds above 0")),
    }
}

/// A feed named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    Azure,
    Aws,
    Alibaba,
    SkyPilot(String),
    Gpuhunt(String),
}

impl Source {
    fn parse(text: &str) -> Result<Source> {
        let t = text.trim().to_ascii_lowercase();
        let named = |prefix: &str| -> Result<Option<String>> {
            let Some(rest) = t.strip_prefix(prefix) else {
                return Ok(None);
            };
            let ok = !rest.is_empty()
                && rest.len() <= 40
                && rest
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
            if ok {
                Ok(Some(rest.to_owned()))
            } else {
                Err(usage(format!(
                    "{text:?}: name the cloud or provider after the colon, e.g. {prefix}aws"
                )))
            }
        };
        Ok(match t.as_str() {
            "azure" => Source::Azure,
            "aws" => Source::Aws,
            "alibaba" | "aliyun" => Source::Alibaba,
            _ => {
                if let Some(cloud) = named("skypilot:")? {
                    Source::SkyPilot(cloud)
                } else if let Some(provider) = named("gpuhunt:")? {
                    Source::Gpuhunt(provider)
                } else {
                    return Err(usage(format!(
                        "unknown source {text:?}: use azure, aws, alibaba, skypilot:<cloud> or \
                         gpuhunt:<provider>"
                    )));
                }
            }
        })
    }

    fn name(&self) -> String {
        match self {
            Source::Azure => "azure".into(),
            Source::Aws => "aws".into(),
            Source::Alibaba => "alibaba".into(),
            Source::SkyPilot(c) => format!("skypilot:{c}"),
            Source::Gpuhunt(p) => format!("gpuhunt:{p}"),
        }
    }

    fn default_cap(&self) -> u64 {
        match self {
            Source::Azure => 16 << 20,
            Source::Aws => 4 << 30,
            Source::Alibaba => 256 << 20,
            Source::SkyPilot(_) => 128 << 20,
            Source::Gpuhunt(_) => 64 << 20,
        }
    }
}

/// Where SkyPilot's catalogs are published; `{cloud}` is the cloud.
const SKYPILOT_URL: &str = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/{cloud}/vms.csv";

fn usage(message: String) -> anyhow::Error {
    anyhow::Error::new(InputFileError(message))
}

/// What one run knows: the options, today's date, the HTTP client, the address to use instead
/// of the public one.
struct Run<'a> {
    args: &'a RefreshArgs,
    today: String,
    client: http::Client,
    cap: u64,
    url: Option<String>,
}

/// The `--url` of each source: `SOURCE=URL`, or a bare URL when one source is named.
fn urls_by_source(args: &RefreshArgs, sources: &[Source]) -> Result<Vec<Option<String>>> {
    let mut out = vec![None; sources.len()];
    for given in &args.url {
        let (index, url) = match given.split_once('=') {
            Some((name, url)) if Source::parse(name).is_ok() => {
                let wanted = Source::parse(name)?;
                let i = sources.iter().position(|s| *s == wanted).ok_or_else(|| {
                    usage(format!(
                        "--url {given:?} names a source that is not being refreshed"
                    ))
                })?;
                (i, url)
            }
            _ if sources.len() == 1 => (0, given.as_str()),
            _ => {
                return Err(usage(format!(
                    "--url {given:?}: with several sources, write SOURCE=URL"
                )));
            }
        };
        if out[index].replace(url.trim().to_owned()).is_some() {
            return Err(usage(format!("two --url for {}", sources[index].name())));
        }
    }
    Ok(out)
}

/// Runs `gpufare catalog refresh`.
pub fn run(args: &RefreshArgs) -> Result<()> {
    let sources = args
        .sources
        .iter()
        .map(|s| Source::parse(s))
        .collect::<Result<Vec<_>>>()?;
    if sources.len() > 1 && !args.from_file.is_empty() {
        return Err(usage(
            "--from-file applies to one source: name a single source with it".into(),
        ));
    }
    let urls = urls_by_source(args, &sources)?;
    if let Some(day) = &args.as_of
        && day_only(day).as_deref() != Some(day.trim())
    {
        return Err(usage(format!("--as-of {day:?} is not a day (YYYY-MM-DD)")));
    }
    // The fetch day is the UTC day: the feeds date themselves in UTC.
    let today = jiff::Timestamp::now()
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date()
        .to_string();
    let mut imports: Vec<FeedImport> = Vec::new();
    for (source, url) in sources.iter().zip(urls) {
        let run = Run {
            url,
            args,
            today: today.clone(),
            client: http::Client::new(
                Duration::from_secs_f64(args.timeout),
                args.retries,
                !args.quiet,
            ),
            cap: args.max_bytes.unwrap_or_else(|| source.default_cap()),
        };
        let got = match source {
            Source::Azure => run.azure(),
            Source::Aws => run.aws(),
            Source::Alibaba => run.alibaba().map(|i| vec![i]),
            Source::SkyPilot(cloud) => run.skypilot(cloud).map(|i| vec![i]),
            Source::Gpuhunt(provider) => run.gpuhunt(provider).map(|i| vec![i]),
        }
        .with_context(|| format!("refreshing {}", source.name()))?;
        for import in &got {
            if import.catalog.offers.is_empty() {
                bail!(
                    "{}: no offers ({} rows read, {} skipped){}",
                    import.report.source,
                    import.report.rows,
                    import.report.skipped_rows(),
                    first_reasons(&import.report)
                );
            }
        }
        imports.extend(got);
    }
    let mut all = Catalog {
        format_version: CATALOG_FORMAT_VERSION,
        offers: Vec::new(),
    };
    let mut clashes = Vec::new();
    for import in &imports {
        // The same offer from two sources: the source named first wins.
        clashes.extend(merge(&mut all, import.catalog.clone(), OnClash::Skip)?);
    }
    let mut text = catalog_to_json(&all);
    text.push('\n');
    // The file must read back as a catalog; this never fails unless the core is wrong.
    parse_catalog_json(&text).map_err(|e: CatalogError| {
        anyhow!("the refreshed catalog does not read back ({e}); nothing was written")
    })?;
    if !args.quiet {
        for import in &imports {
            eprint!("{}", summary(&import.report));
        }
        if !clashes.is_empty() {
            eprintln!(
                "gpufare: {} offers came from two sources; the first source named was kept: {}",
                clashes.len(),
                clashes.join(", ")
            );
        }
    }
    if let Some(path) = &args.report {
        let reports: Vec<&FeedReport> = imports.iter().map(|i| &i.report).collect();
        let mut json = serde_json::to_string_pretty(&reports)?;
        json.push('\n');
        output::write_text(path, &json)
            .with_context(|| format!("cannot write the report {}", path.display()))?;
    }
    output::write_text(&args.output, &text)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    if !args.quiet && args.output.as_os_str() != "-" {
        eprintln!(
            "gpufare: wrote {} offers to {}",
            all.offers.len(),
            args.output.display()
        );
    }
    Ok(())
}

/// The first few skip reasons, for an error message.
fn first_reasons(report: &FeedReport) -> String {
    let mut s = String::new();
    for skip in report.skipped.iter().take(5) {
        s.push_str(&format!(
            "\n  {} (x{}): {}",
            skip.item, skip.rows, skip.reason
        ));
    }
    for (why, n) in report.ignored.iter().take(5) {
        s.push_str(&format!("\n  left out by design: {why} (x{n})"));
    }
    s
}

/// Lines listed per kind in the summary on standard error (the report file has them all).
const SUMMARY_LINES: usize = 12;

/// What an import did, for people.
fn summary(r: &FeedReport) -> String {
    let ignored: usize = r.ignored.values().sum();
    let mut s = format!(
        "gpufare: {}: {} rows -> {} offers; {} skipped, {} left out by design, {} flagged; dated {} ({})\n  source: {}\n",
        r.feed,
        r.rows,
        r.offers,
        r.skipped_rows(),
        ignored,
        r.flagged.len(),
        r.as_of,
        r.dated_by.describe(),
        r.source
    );
    for skip in r.skipped.iter().take(SUMMARY_LINES) {
        s.push_str(&format!(
            "  skipped {} (x{}): {}\n",
            skip.item, skip.rows, skip.reason
        ));
    }
    if r.skipped.len() > SUMMARY_LINES {
        s.push_str(&format!(
            "  ... and {} more skipped (--report FILE lists all)\n",
            r.skipped.len() - SUMMARY_LINES
        ));
    }
    for f in r.flagged.iter().take(SUMMARY_LINES) {
        s.push_str(&format!("  flagged {}: {}\n", f.item, f.flag));
    }
    if r.flagged.len() > SUMMARY_LINES {
        s.push_str(&format!(
            "  ... and {} more flagged (--report FILE lists all)\n",
            r.flagged.len() - SUMMARY_LINES
        ));
    }
    for note in &r.notes {
        s.push_str(&format!("  note: {note}\n"));
    }
    s
}

/// A feed error with the address it came from.
fn at(url: &str, e: FeedError) -> anyhow::Error {
    anyhow!("{}: {e}", shown(url))
}

impl Run<'_> {
    /// The context of a fetch from `source` today.
    fn fetched(&self, source: &str, regions: Vec<String>) -> FeedContext {
        FeedContext {
            source: source.to_owned(),
            day: self.today.clone(),
            day_basis: DatedBy::FetchDay,
            regions,
        }
    }

    /// The context of a saved copy (`public` is the feed's public address).
    fn saved(&self, public: &str, path: &Path) -> Result<FeedContext> {
        let day = match &self.args.as_of {
            Some(d) => d.trim().to_owned(),
            None => {
                let modified = fs::metadata(path)
                    .and_then(|m| m.modified())
                    .with_context(|| format!("{}: cannot read its date", path.display()))?;
                jiff::Timestamp::try_from(modified)
                    .map_err(|e| anyhow!("{}: {e}", path.display()))?
                    .to_zoned(jiff::tz::TimeZone::UTC)
                    .date()
                    .to_string()
            }
        };
        Ok(FeedContext {
            source: format!("{public} (saved copy)"),
            day,
            day_basis: DatedBy::Given,
            regions: self.args.regions.clone(),
        })
    }

    /// A saved file's bytes, at most the cap.
    fn read_file(&self, path: &Path) -> Result<Vec<u8>> {
        let size = fs::metadata(path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .len();
        if size > self.cap {
            bail!(
                "{}: {} long, larger than the cap of {} (--max-bytes)",
                path.display(),
                bytes(size),
                bytes(self.cap)
            );
        }
        fs::read(path).with_context(|| format!("cannot read {}", path.display()))
    }

    fn read_text(&self, path: &Path) -> Result<String> {
        String::from_utf8(self.read_file(path)?)
            .map_err(|_| anyhow!("{}: not UTF-8 text", path.display()))
    }

    fn single_file(&self) -> Result<Option<&Path>> {
        match self.args.from_file.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one.as_path())),
            _ => Err(usage(
                "only Azure reads several saved files (one per page)".into(),
            )),
        }
    }

    fn azure(&self) -> Result<Vec<FeedImport>> {
        if !self.args.from_file.is_empty() {
            let mut items = Vec::new();
            let mut currency = None;
            let mut unfollowed = 0;
            for path in &self.args.from_file {
                let page = azure::parse_page(&self.read_text(path)?)
                    .map_err(|e| anyhow!("{}: {e}", path.display()))?;
                items.extend(page.items);
                currency = currency.or(page.currency);
                unfollowed += usize::from(page.next_page_link.is_some());
            }
            let ctx = self.saved(azure::API_URL, &self.args.from_file[0])?;
            let mut import = azure::import(&items, currency.as_deref(), &ctx)
                .map_err(|e| anyhow!("{}: {e}", self.args.from_file[0].display()))?;
            if unfollowed > 0 {
                import.report.notes.push(format!(
                    "{} saved pages name a next page that was not read (saved copies are read as given)",
                    unfollowed
                ));
            }
            return Ok(vec![import]);
        }
        let base = self.url.as_deref().unwrap_or(azure::API_URL);
        let regions = if self.args.regions.is_empty() {
            vec!["eastus".to_owned()]
        } else {
            self.args.regions.clone()
        };
        let mut out = Vec::new();
        for region in regions {
            let first = azure::page_url(base, &region).ok_or_else(|| {
                usage(format!(
                    "--region {region:?} is not an Azure region name (eastus, westus2 ...)"
                ))
            })?;
            let mut items = Vec::new();
            let mut currency = None;
            let mut next = Some(first);
            let mut pages = 0u32;
            while let Some(url) = next.take() {
                if pages == self.args.max_pages {
                    bail!(
                        "{}: more than {} pages for {region} (--max-pages)",
                        shown(&url),
                        self.args.max_pages
                    );
                }
                pages += 1;
                let text = self.client.get_text(&url, self.cap)?;
                let page = azure::parse_page(&text).map_err(|e| at(&url, e))?;
                items.extend(page.items);
                currency = currency.or(page.currency);
                if let Some(link) = page.next_page_link {
                    if !(link.starts_with("https://") || link.starts_with("http://")) {
                        bail!(
                            "{}: NextPageLink {:?} is not an http(s) address",
                            shown(&url),
                            shown(&link)
                        );
                    }
                    if link == url {
                        bail!("{}: NextPageLink points back at the same page", shown(&url));
                    }
                    next = Some(link);
                }
            }
            let source = format!(
                "{base} (serviceName 'Virtual Machines', armRegionName '{region}', GPU sizes)"
            );
            let ctx = self.fetched(&source, vec![region.clone()]);
            let mut import =
                azure::import(&items, currency.as_deref(), &ctx).map_err(|e| at(&source, e))?;
            import.report.feed = format!("azure {region}");
            import
                .report
                .notes
                .push(format!("{pages} pages of the API read"));
            out.push(import);
        }
        Ok(out)
    }

    fn aws(&self) -> Result<Vec<FeedImport>> {
        if let Some(path) = self.single_file()? {
            let ctx = self.saved(aws::OFFER_FILE_URL, path)?;
            let size = fs::metadata(path)
                .with_context(|| format!("cannot read {}", path.display()))?
                .len();
            if size > self.cap {
                bail!(
                    "{}: {} long, larger than the cap of {} (--max-bytes)",
                    path.display(),
                    bytes(size),
                    bytes(self.cap)
                );
            }
            let file =
                fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
            let import = read_aws(BufReader::with_capacity(1 << 20, file), &ctx)
                .map_err(|e| anyhow!("{}: {e}", path.display()))?;
            return Ok(vec![import]);
        }
        let template = self.url.as_deref().unwrap_or(aws::OFFER_FILE_URL);
        let regions = if self.args.regions.is_empty() {
            vec!["us-east-1".to_owned()]
        } else {
            self.args.regions.clone()
        };
        if regions.len() > 1 && !template.contains("{region}") {
            return Err(usage(
                "several --region need a --url holding {region}".into(),
            ));
        }
        let mut out = Vec::new();
        for region in regions {
            let url = aws::offer_file_url(template, &region).ok_or_else(|| {
                usage(format!(
                    "--region {region:?} is not an AWS region code (us-east-1 ...)"
                ))
            })?;
            let body = self.client.reader(&url, self.cap)?;
            let ctx = self.fetched(&url, vec![region.clone()]);
            let mut import =
                read_aws(BufReader::with_capacity(1 << 20, body), &ctx).map_err(|e| at(&url, e))?;
            import.report.feed = format!("aws {region}");
            out.push(import);
        }
        Ok(out)
    }

    fn alibaba(&self) -> Result<FeedImport> {
        let version = self
            .args
            .feed_version
            .as_deref()
            .unwrap_or(alibaba::DEFAULT_VERSION);
        let public =
            alibaba::price_file_url(alibaba::PRICE_FILE_URL, version).ok_or_else(|| {
                usage(format!(
                    "--feed-version {version:?} is not an Alibaba price file version (2.0.421 ...)"
                ))
            })?;
        if let Some(path) = self.single_file()? {
            let ctx = self.saved(&public, path)?;
            return alibaba::import(&self.read_text(path)?, &ctx)
                .map_err(|e| anyhow!("{}: {e}", path.display()));
        }
        let url = match &self.url {
            Some(u) => u.replace("{version}", version),
            None => public,
        };
        let text = self.client.get_text(&url, self.cap)?;
        let ctx = self.fetched(&url, self.args.regions.clone());
        alibaba::import(&text, &ctx).map_err(|e| at(&url, e))
    }

    fn skypilot(&self, cloud: &str) -> Result<FeedImport> {
        let public = SKYPILOT_URL.replace("{cloud}", cloud);
        let (text, ctx) = match self.single_file()? {
            Some(path) => (self.read_text(path)?, self.saved(&public, path)?),
            None => {
                let url = match &self.url {
                    Some(u) => u.replace("{cloud}", cloud),
                    None => public,
                };
                (
                    self.client.get_text(&url, self.cap)?,
                    self.fetched(&url, self.args.regions.clone()),
                )
            }
        };
        let provider = gpuhunt::provider_name(cloud);
        let (mut catalog, report) = import_vms_csv_from(&text, &provider, &ctx.day, &ctx.source)
            .map_err(|e| anyhow!("{}: {e}", ctx.source))?;
        let mut feed = report.to_feed_report(
            &format!("skypilot:{cloud}"),
            &ctx.source,
            &ctx.day,
            ctx.day_basis,
        );
        let before = catalog.offers.len();
        catalog.offers.retain(|o| ctx.wants_region(&o.region.id));
        if catalog.offers.len() < before {
            feed.ignored
                .insert("another region".into(), before - catalog.offers.len());
        }
        feed.offers = catalog.offers.len();
        Ok(FeedImport {
            catalog,
            report: feed,
        })
    }

    fn gpuhunt(&self, provider: &str) -> Result<FeedImport> {
        let base = self.url.as_deref().unwrap_or(gpuhunt::CATALOG_BASE);
        if let Some(path) = self.single_file()? {
            let version = self.args.feed_version.as_deref();
            let public =
                gpuhunt::catalog_url(gpuhunt::CATALOG_BASE, provider, version.unwrap_or("latest"))
                    .ok_or_else(|| usage(format!("{provider:?} is not a gpuhunt provider id")))?;
            let ctx = self.saved(&public, path)?;
            let data = self.read_file(path)?;
            let text = if data.starts_with(b"PK\x03\x04") {
                unzip_csv(&data, provider, self.cap.saturating_mul(8))
                    .map_err(|e| anyhow!("{}: {e}", path.display()))?
            } else {
                String::from_utf8(data)
                    .map_err(|_| anyhow!("{}: not UTF-8 text", path.display()))?
            };
            return gpuhunt::import(&text, provider, version, &ctx)
                .map_err(|e| anyhow!("{}: {e}", path.display()));
        }
        let version = match &self.args.feed_version {
            Some(v) => gpuhunt::parse_version(v).ok_or_else(|| {
                usage(format!(
                    "--feed-version {v:?} is not a gpuhunt version (YYYYMMDD-N)"
                ))
            })?,
            None => {
                let url = gpuhunt::version_url(base, provider)
                    .ok_or_else(|| usage(format!("{provider:?} is not a gpuhunt provider id")))?;
                let text = self.client.get_text(&url, 1 << 10)?;
                gpuhunt::parse_version(&text).ok_or_else(|| {
                    anyhow!(
                        "{url}: {:?} is not a catalog version (YYYYMMDD-N)",
                        text.chars().take(40).collect::<String>()
                    )
                })?
            }
        };
        let url = gpuhunt::catalog_url(base, provider, &version)
            .ok_or_else(|| usage(format!("{provider:?} is not a gpuhunt provider id")))?;
        let data = self.client.get(&url, self.cap)?;
        let text = unzip_csv(&data, provider, self.cap.saturating_mul(8))
            .map_err(|e| anyhow!("{url}: {e}"))?;
        let ctx = self.fetched(&url, self.args.regions.clone());
        gpuhunt::import(&text, provider, Some(&version), &ctx).map_err(|e| at(&url, e))
    }
}

/// Reads an AWS offer file as it streams.
fn read_aws(reader: impl Read, ctx: &FeedContext) -> std::result::Result<FeedImport, FeedError> {
    let mut de = serde_json::Deserializer::from_reader(reader);
    let file = aws::read_offer_file(&mut de, ctx)?;
    de.end()?;
    aws::import(file, ctx)
}

/// The provider's CSV inside a gpuhunt catalog.zip (`<provider>.csv`, or its only CSV), at most
/// `cap` bytes unzipped.
fn unzip_csv(data: &[u8], provider: &str, cap: u64) -> Result<String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(data))
        .map_err(|e| anyhow!("not a readable zip archive: {e}"))?;
    let wanted = format!("{provider}.csv");
    let name = if archive.index_for_name(&wanted).is_some() {
        wanted
    } else {
        let csvs: Vec<String> = archive
            .file_names()
            .filter_map(Result::ok)
            .filter(|n| n.ends_with(".csv"))
            .map(|n| n.into_owned())
            .collect();
        match csvs.as_slice() {
            [one] => one.clone(),
            _ => bail!(
                "the archive holds no {wanted} (it has {} CSV files)",
                csvs.len()
            ),
        }
    };
    let entry = archive
        .by_name(&name)
        .map_err(|e| anyhow!("cannot open {name} in the archive: {e}"))?;
    if entry.size() > cap {
        bail!(
            "{name} unzips to {}, more than the cap of {}",
            bytes(entry.size()),
            bytes(cap)
        );
    }
    let mut text = String::new();
    entry
        .take(cap + 1)
        .read_to_string(&mut text)
        .map_err(|e| anyhow!("cannot unzip {name}: {e}"))?;
    if text.len() as u64 > cap {
        bail!("{name} unzips to more than the cap of {}", bytes(cap));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_and_sizes_are_read_or_refused() {
        assert_eq!(Source::parse("Azure").unwrap(), Source::Azure);
        assert_eq!(
            Source::parse("gpuhunt:runpod").unwrap(),
            Source::Gpuhunt("runpod".into())
        );
        assert_eq!(
            Source::parse("skypilot:aws").unwrap(),
            Source::SkyPilot("aws".into())
        );
        assert!(Source::parse("skypilot:").is_err());
        assert!(Source::parse("gpuhunt:../x").is_err());
        assert!(Source::parse("gcp").is_err());
        assert_eq!(parse_size("16M"), Ok(16 << 20));
        assert_eq!(parse_size("2048"), Ok(2048));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12Q").is_err());
        assert!(positive_seconds("0").is_err());
        assert_eq!(positive_seconds("0.5"), Ok(0.5));
    }
}
