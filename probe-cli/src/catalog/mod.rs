//! `gpufare catalog`: list, validate and convert catalog files, and refresh one from public
//! price feeds (`refresh`).

pub mod refresh;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Subcommand;
use gpufare_core::offers::catalog::catalog_to_json;
use gpufare_core::offers::csv::catalog_to_csv;

use refresh::RefreshArgs;

use crate::input::{InputFileError, load_catalogs, read_catalog};
use crate::output;

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// List the offers of catalogs (the default catalog when none is named).
    List {
        /// Catalog files.
        files: Vec<PathBuf>,
    },
    /// Check catalog files and report every problem with its line and field; each file's line
    /// names the encoding it was read in (UTF-8, UTF-16 or GB18030).
    Validate {
        /// Catalog files.
        files: Vec<PathBuf>,
    },
    /// Convert a catalog (ours or SkyPilot's vms.csv) to our CSV or JSON.
    Convert {
        /// The catalog to read.
        input: PathBuf,
        /// The format to write.
        #[arg(long, value_enum)]
        to: CatalogFormat,
        /// Where to write; `-` is standard output.
        #[arg(short, long, value_name = "FILE", default_value = "-")]
        output: PathBuf,
    },
    /// Fetch public, keyless price feeds (Azure, AWS, Alibaba Cloud, SkyPilot's and gpuhunt's
    /// catalogs) and write one catalog, every row dated and sourced.
    Refresh(RefreshArgs),
}

/// Runs `gpufare catalog ...`.
pub fn run(command: CatalogCommand) -> Result<()> {
    match command {
        CatalogCommand::List { files } => run_catalog(CatalogAction::List { catalogs: files }),
        CatalogCommand::Validate { files } => {
            run_catalog(CatalogAction::Validate { catalogs: files })
        }
        CatalogCommand::Convert { input, to, output } => {
            run_catalog(CatalogAction::Convert { input, to, output })
        }
        CatalogCommand::Refresh(args) => refresh::run(&args),
    }
}

/// `gpufare catalog list|validate|convert`.
pub enum CatalogAction {
    List {
        catalogs: Vec<PathBuf>,
    },
    Validate {
        catalogs: Vec<PathBuf>,
    },
    Convert {
        input: PathBuf,
        to: CatalogFormat,
        output: PathBuf,
    },
}

/// Our catalog file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CatalogFormat {
    /// Our CSV.
    Csv,
    /// Our JSON.
    Json,
}

/// Runs `gpufare catalog ...`.
pub fn run_catalog(action: CatalogAction) -> Result<()> {
    match action {
        CatalogAction::List { catalogs } => {
            let c = load_catalogs(&catalogs)?;
            let mut s = String::new();
            for o in &c.offers {
                let _ = writeln!(
                    s,
                    "{:<36} {:<10} {:>2}x{:<10} {:<22} {:<14} {:>12} {} {}{}",
                    o.id,
                    o.provider,
                    o.gpu_count,
                    o.gpu,
                    o.tenancy.id(),
                    o.billing_mode.id(),
                    o.price,
                    o.currency,
                    o.as_of,
                    if o.estimate { " (estimate)" } else { "" }
                );
            }
            let _ = writeln!(s, "{} offers", c.offers.len());
            output::write_text(Path::new("-"), &s)
        }
        CatalogAction::Validate { catalogs } => {
            if catalogs.is_empty() {
                anyhow::bail!(InputFileError(
                    "name at least one catalog file to validate".to_owned()
                ));
            }
            for p in &catalogs {
                let (c, encoding, note) = read_catalog(p)?;
                println!(
                    "{}: {encoding}, ok, {} offers{}",
                    p.display(),
                    c.offers.len(),
                    note.map(|n| format!("\n{n}")).unwrap_or_default()
                );
            }
            Ok(())
        }
        CatalogAction::Convert {
            input,
            to,
            output: out,
        } => {
            let (c, _, note) = read_catalog(&input)?;
            if let Some(n) = note {
                eprintln!("gpufare: {n}");
            }
            let text = match to {
                CatalogFormat::Csv => catalog_to_csv(&c),
                CatalogFormat::Json => {
                    let mut t = catalog_to_json(&c);
                    t.push('\n');
                    t
                }
            };
            output::write_text(&out, &text)
                .with_context(|| format!("cannot write {}", out.display()))
        }
    }
}
