//! `cargo xtask layers`: checks that each crate of the workspace imports only downward: the
//! model (`core/src`), the command-line tool (`probe-cli/src`) and the site (`web/src`).
//!
//! The layers are a crate's top-level modules in the order its root file (`lib.rs` or `main.rs`)
//! lists them in its doc comment (`//! 1. [`numbers`] — ...`): a module may use its own layer and
//! the layers listed before it, never one listed after it. Within the crate no two files may depend on each other
//! through any chain of imports (no circles), which also keeps a folder's `mod.rs` a facade its own
//! files never import.
//!
//! The check reads the source, not the compiler's view: every `use` item and every inline
//! `crate::…` path outside comments, resolved module by module, following `pub use` re-exports to
//! the file that defines the name. Each finding names the file and line of the import.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// One file of the crate: its module path and what it imports.
#[derive(Debug)]
struct Module {
    /// Path from the crate root, e.g. `plan/cost.rs`.
    file: String,
    /// Module path segments, e.g. `["plan", "cost"]`; empty for `lib.rs`.
    path: Vec<String>,
    /// Child modules declared with `mod`.
    children: BTreeSet<String>,
    /// Names re-exported with `pub use`, and the path each points at.
    reexports: BTreeMap<String, Vec<String>>,
    /// Every path this file names, with its 1-based line and the inline modules (`mod tests {`)
    /// it is written in.
    uses: Vec<(usize, Vec<String>, Vec<String>)>,
}

/// The crates checked: their source folder and its root file.
pub const CRATES: [(&str, &str); 3] = [
    ("core/src", "lib.rs"),
    ("probe-cli/src", "main.rs"),
    ("web/src", "main.rs"),
];

/// An import that breaks the rules, with the crate's source folder (e.g. `core/src`) it is in.
#[derive(Debug, PartialEq, Eq)]
pub struct Found {
    /// The crate's source folder as shown, e.g. `probe-cli/src`.
    pub src: String,
    /// Its root file, `lib.rs` or `main.rs`.
    pub root: String,
    /// What is wrong.
    pub finding: Finding,
}

/// What is wrong with an import.
#[derive(Debug, PartialEq, Eq)]
pub enum Finding {
    /// A file imports from a layer listed after its own.
    Upward {
        /// The importing file, relative to the crate's `src/`.
        file: String,
        /// 1-based line of the import.
        line: usize,
        /// The path as written, e.g. `crate::plan::VramFit`.
        path: String,
        /// The importing file's layer.
        from: String,
        /// The layer imported from.
        to: String,
    },
    /// A module imports a sibling: one listed on the same line of the root file's list.
    Sibling {
        /// The importing file, relative to the crate's `src/`.
        file: String,
        /// 1-based line of the import.
        line: usize,
        /// The path as written.
        path: String,
        /// The importing module.
        from: String,
        /// The sibling imported from.
        to: String,
    },
    /// Files that depend on each other in a circle; each step with the line that makes it.
    Circle {
        /// `(file, line, next file)` for every step of the circle.
        steps: Vec<(String, usize, String)>,
    },
    /// A top-level module that the root file does not list as a layer.
    Unlisted {
        /// The module's name.
        module: String,
    },
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (src, root) = (&self.src, &self.root);
        match &self.finding {
            Finding::Upward {
                file,
                line,
                path,
                from,
                to,
            } => write!(
                f,
                "{src}/{file}:{line}: `{path}` imports from layer `{to}`, which {root} lists after \
                 this file's layer `{from}`"
            ),
            Finding::Sibling {
                file,
                line,
                path,
                from,
                to,
            } => write!(
                f,
                "{src}/{file}:{line}: `{path}` imports from `{to}`, which {root} lists beside \
                 `{from}`: siblings never import each other (move what they share below them)"
            ),
            Finding::Circle { steps } => {
                writeln!(f, "an import circle:")?;
                for (file, line, next) in steps {
                    writeln!(f, "  {src}/{file}:{line} imports {src}/{next}")?;
                }
                Ok(())
            }
            Finding::Unlisted { module } => write!(
                f,
                "{src}/{root}: the module `{module}` is not in the numbered list of layers"
            ),
        }
    }
}

/// Runs the check on every crate of [`CRATES`] and fails with every finding.
pub fn run(root: &Path) -> Result<()> {
    let mut all = Vec::new();
    for (src, file) in CRATES {
        all.extend(check_crate(root, src, file)?);
    }
    if all.is_empty() {
        let names: Vec<&str> = CRATES.iter().map(|(src, _)| *src).collect();
        eprintln!(
            "==> layers: {} import only downward, with no circles",
            names.join(", ")
        );
        return Ok(());
    }
    for f in &all {
        eprintln!("{f}");
    }
    bail!("{} layer finding(s)", all.len())
}

/// Every finding in the crate whose sources are in `src` (relative to `root`), with root file
/// `file`.
pub fn check_crate(root: &Path, src: &str, file: &str) -> Result<Vec<Found>> {
    Ok(check(&root.join(src), file)?
        .into_iter()
        .map(|finding| Found {
            src: src.to_owned(),
            root: file.to_owned(),
            finding,
        })
        .collect())
}

/// Every finding for the crate whose sources are under `src`, with root file `root_file`.
pub fn check(src: &Path, root_file: &str) -> Result<Vec<Finding>> {
    let lib = std::fs::read_to_string(src.join(root_file))
        .with_context(|| format!("cannot read {}", src.join(root_file).display()))?;
    let layers = listed_layers(&lib);
    if layers.is_empty() {
        bail!(
            "{} lists no layers (`//! 1. [`name`] ...` lines)",
            src.join(root_file).display()
        );
    }
    let mut files = Vec::new();
    collect(src, src, &mut files)?;
    let modules: Vec<Module> = files
        .iter()
        .map(|f| parse_module(src, f))
        .collect::<Result<_>>()?;
    let by_path: BTreeMap<Vec<String>, usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.path.clone(), i))
        .collect();

    let mut findings = Vec::new();
    if let Some(&root) = by_path.get(&Vec::new()) {
        for child in &modules[root].children {
            if !layers.iter().any(|l| l.contains(child)) {
                findings.push(Finding::Unlisted {
                    module: child.clone(),
                });
            }
        }
    }
    let rank = |m: &Module| {
        m.path
            .first()
            .and_then(|top| layers.iter().position(|l| l.contains(top)))
    };
    // Edges between files, with the first line that makes each.
    let mut edges: BTreeMap<usize, BTreeMap<usize, usize>> = BTreeMap::new();
    for (i, m) in modules.iter().enumerate() {
        for (line, path, scope) in &m.uses {
            let Some(absolute) = absolute(m, scope, path) else {
                continue;
            };
            let Some(target) = resolve(&modules, &by_path, &absolute, 0) else {
                continue;
            };
            if target == i || modules[target].path.is_empty() {
                continue;
            }
            let top = |m: &Module| m.path.first().cloned().unwrap_or_default();
            if let (Some(from), Some(to)) = (rank(m), rank(&modules[target])) {
                let (mine, theirs) = (top(m), top(&modules[target]));
                if to > from {
                    findings.push(Finding::Upward {
                        file: m.file.clone(),
                        line: *line,
                        path: path.join("::"),
                        from: mine,
                        to: theirs,
                    });
                } else if to == from && mine != theirs {
                    findings.push(Finding::Sibling {
                        file: m.file.clone(),
                        line: *line,
                        path: path.join("::"),
                        from: mine,
                        to: theirs,
                    });
                }
            }
            edges.entry(i).or_default().entry(target).or_insert(*line);
        }
    }
    for circle in circles(modules.len(), &edges) {
        let steps = circle
            .iter()
            .enumerate()
            .map(|(k, &a)| {
                let b = circle[(k + 1) % circle.len()];
                (
                    modules[a].file.clone(),
                    edges[&a][&b],
                    modules[b].file.clone(),
                )
            })
            .collect();
        findings.push(Finding::Circle { steps });
    }
    Ok(findings)
}

/// The layers in the order of the root file's numbered doc list: `//! 3. [`offers`] — ...`.
/// A line may name several modules before its dash (`//! 9. [`a`], [`b`] — ...`): siblings of one
/// layer, which may import the layers before them but never each other.
fn listed_layers(lib: &str) -> Vec<Vec<String>> {
    let mut layers = Vec::new();
    // The names of the item being read, until its dash (which may come on a later line).
    let mut open: Option<String> = None;
    for l in lib.lines() {
        let Some(rest) = l.strip_prefix("//!").map(str::trim_start) else {
            open = None;
            continue;
        };
        let numbered = rest
            .split_once(". ")
            .filter(|(n, _)| n.parse::<u32>().is_ok())
            .map(|(_, r)| r);
        let text = match (numbered, open.take()) {
            (Some(r), _) => r.to_owned(),
            (None, Some(names)) => format!("{names} {rest}"),
            (None, None) => continue,
        };
        match text.split_once(" — ") {
            Some((names, _)) => {
                let modules: Vec<String> = names
                    .split("[`")
                    .skip(1)
                    .filter_map(|n| Some(n.split_once("`]")?.0.to_owned()))
                    .collect();
                if !modules.is_empty() {
                    layers.push(modules);
                }
            }
            None => open = Some(text),
        }
    }
    layers
}

fn collect(src: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            collect(src, &p, out)?;
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p.strip_prefix(src).unwrap_or(&p).to_path_buf());
        }
    }
    Ok(())
}

fn parse_module(src: &Path, file: &Path) -> Result<Module> {
    let text = std::fs::read_to_string(src.join(file))
        .with_context(|| format!("cannot read {}", src.join(file).display()))?;
    let mut path: Vec<String> = file
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let root_file = path.len() == 1 && path.first().is_some_and(|f| f == "lib" || f == "main");
    if root_file || path.last().is_some_and(|last| last == "mod") {
        path.pop();
    }
    let code = strip_comments(&text);
    let mut module = Module {
        file: file.to_string_lossy().replace('\\', "/"),
        path,
        children: BTreeSet::new(),
        reexports: BTreeMap::new(),
        uses: Vec::new(),
    };
    let scopes = inline_scopes(&code);
    let scope_of = |line: usize| scopes.get(line - 1).cloned().unwrap_or_default();
    for (line, stmt, public) in use_statements(&code) {
        for p in expand(&stmt) {
            if public && let Some(name) = p.last() {
                let (target, alias) = match name.split_once(" as ") {
                    Some((t, a)) => (t.to_owned(), a.to_owned()),
                    None => (name.clone(), name.clone()),
                };
                if alias != "*" && alias != "self" {
                    let mut full = p.clone();
                    *full.last_mut().unwrap_or(&mut String::new()) = target;
                    module.reexports.insert(alias, full);
                }
            }
            let mut clean = p;
            if let Some(last) = clean.last_mut()
                && let Some((t, _)) = last.clone().split_once(" as ")
            {
                *last = t.to_owned();
            }
            module.uses.push((line, clean, scope_of(line)));
        }
    }
    for (i, l) in code.lines().enumerate() {
        let t = l.trim_start();
        if let Some(rest) = t
            .strip_prefix("pub mod ")
            .or_else(|| t.strip_prefix("mod "))
            .or_else(|| t.strip_prefix("pub(crate) mod "))
            && let Some(name) = rest.strip_suffix(';')
        {
            module.children.insert(name.trim().to_owned());
        }
        if !t.starts_with("use ") && !t.starts_with("pub use ") {
            for p in inline_paths(l) {
                module.uses.push((i + 1, p, scope_of(i + 1)));
            }
        }
    }
    Ok(module)
}

/// The text with `//` comments, `/* */` comments and string literals blanked out (line breaks
/// kept, so line numbers stay right).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                    }
                    if prev == '*' && d == '/' {
                        break;
                    }
                    prev = d;
                }
            }
            // A raw string: r"..." or r#"..."# with any number of hashes.
            'r' if matches!(chars.peek(), Some('"' | '#'))
                && !out.ends_with(|x: char| x.is_alphanumeric() || x == '_') =>
            {
                let mut hashes = 0;
                while chars.peek() == Some(&'#') {
                    chars.next();
                    hashes += 1;
                }
                if chars.peek() != Some(&'"') {
                    out.push('r');
                    out.extend(std::iter::repeat_n('#', hashes));
                    continue;
                }
                chars.next();
                out.push_str("r\"");
                let mut run: Option<usize> = None;
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                    }
                    match (d, run) {
                        ('"', _) => run = Some(0),
                        ('#', Some(k)) => run = Some(k + 1),
                        _ => run = None,
                    }
                    if run == Some(hashes) {
                        break;
                    }
                }
                out.push('"');
            }
            '"' => {
                out.push('"');
                let mut escaped = false;
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                    }
                    if !escaped && d == '"' {
                        break;
                    }
                    escaped = !escaped && d == '\\';
                }
                out.push('"');
            }
            // A char literal of a quote would open a string above.
            '\'' if chars.peek() == Some(&'"') => {
                chars.next();
                out.push_str("' '");
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// For every line, the inline modules (`mod tests {`) it sits in, outermost first.
fn inline_scopes(code: &str) -> Vec<Vec<String>> {
    let mut depth: i64 = 0;
    let mut open: Vec<(String, i64)> = Vec::new();
    let mut out = Vec::new();
    for l in code.lines() {
        let t = l.trim_start();
        let declared = t
            .strip_prefix("pub mod ")
            .or_else(|| t.strip_prefix("mod "))
            .and_then(|rest| rest.split_once('{'))
            .map(|(name, _)| name.trim().to_owned());
        if let Some(name) = declared {
            open.push((name, depth));
        }
        out.push(open.iter().map(|(n, _)| n.clone()).collect());
        depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
        while open.last().is_some_and(|(_, d)| depth <= *d) {
            open.pop();
        }
    }
    out
}

/// Every `use` statement: its first line, its text after `use`, and whether it is `pub`.
fn use_statements(code: &str) -> Vec<(usize, String, bool)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String, bool)> = None;
    for (i, l) in code.lines().enumerate() {
        let t = l.trim();
        if current.is_none() {
            let (public, rest) = if let Some(r) = t.strip_prefix("pub use ") {
                (true, r)
            } else if let Some(r) = t.strip_prefix("pub(crate) use ") {
                (true, r)
            } else if let Some(r) = t.strip_prefix("use ") {
                (false, r)
            } else {
                continue;
            };
            current = Some((i + 1, String::new(), public));
            if let Some(c) = current.as_mut() {
                c.1.push_str(rest);
            }
        } else if let Some(c) = current.as_mut() {
            c.1.push(' ');
            c.1.push_str(t);
        }
        if current.as_ref().is_some_and(|c| c.1.ends_with(';'))
            && let Some((line, mut s, public)) = current.take()
        {
            s.pop();
            out.push((line, s, public));
        }
    }
    out
}

/// `a::{b, c::{d, e as f}}` as `[a, b]`, `[a, c, d]`, `[a, c, e as f]`.
fn expand(stmt: &str) -> Vec<Vec<String>> {
    fn split_top(s: &str) -> Vec<&str> {
        let (mut depth, mut start, mut parts) = (0, 0, Vec::new());
        for (i, ch) in s.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&s[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&s[start..]);
        parts
    }
    fn go(prefix: &[String], s: &str, out: &mut Vec<Vec<String>>) {
        let s = s.trim();
        if s.is_empty() {
            return;
        }
        if let Some(open) = s.find('{') {
            let head = s[..open].trim_end_matches("::");
            let mut p = prefix.to_vec();
            p.extend(
                head.split("::")
                    .filter(|x| !x.is_empty())
                    .map(|x| x.trim().to_owned()),
            );
            let inner = s[open + 1..].trim_end().trim_end_matches('}');
            for part in split_top(inner) {
                go(&p, part, out);
            }
        } else {
            let mut p = prefix.to_vec();
            p.extend(s.split("::").map(|x| x.trim().to_owned()));
            if p.last().is_some_and(|x| x == "self") {
                p.pop();
            }
            out.push(p);
        }
    }
    let mut out = Vec::new();
    go(&[], stmt, &mut out);
    out
}

/// Paths written inline in code: `crate::a::b`, `super::c`.
fn inline_paths(line: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(pos) = line[from..].find(start) {
            let at = from + pos;
            let before = line[..at].chars().next_back();
            from = at + start.len();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let tail: String = line[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push(
                tail.split("::")
                    .filter(|x| !x.is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
    }
    out
}

/// A `use` path written in `module` (inside the inline modules `scope`) made absolute: the
/// segments after `crate`; `None` for other crates. A path that starts with one of the module's
/// own children is relative to the module.
fn absolute(module: &Module, scope: &[String], path: &[String]) -> Option<Vec<String>> {
    let first = path.first()?;
    let module_path: Vec<String> = module.path.iter().chain(scope).cloned().collect();
    if scope.is_empty() && module.children.contains(first) {
        return Some(module_path.iter().chain(path).cloned().collect());
    }
    match first.as_str() {
        "crate" => Some(path[1..].to_vec()),
        "self" => Some(module_path.iter().chain(&path[1..]).cloned().collect()),
        "super" => {
            let mut base = module_path;
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            Some(base)
        }
        _ => None,
    }
}

/// The file that defines what `path` names, following child modules and re-exports.
fn resolve(
    modules: &[Module],
    by_path: &BTreeMap<Vec<String>, usize>,
    path: &[String],
    depth: usize,
) -> Option<usize> {
    if depth > 16 {
        return None;
    }
    let mut current = *by_path.get(&Vec::new())?;
    for (k, seg) in path.iter().enumerate() {
        let m = &modules[current];
        if m.children.contains(seg) {
            let mut child = m.path.clone();
            child.push(seg.clone());
            current = *by_path.get(&child)?;
        } else if let Some(target) = m.reexports.get(seg) {
            let target = absolute(m, &[], target)?;
            let mut rest = target;
            rest.extend(path[k + 1..].iter().cloned());
            return resolve(modules, by_path, &rest, depth + 1).or(Some(current));
        } else {
            break;
        }
    }
    Some(current)
}

/// Every circle of the file graph (Tarjan's strongly connected components), each as a list of
/// files in order, starting from its first file.
fn circles(n: usize, edges: &BTreeMap<usize, BTreeMap<usize, usize>>) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a BTreeMap<usize, BTreeMap<usize, usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        let targets: Vec<usize> = s
            .edges
            .get(&v)
            .map(|e| e.keys().copied().collect())
            .unwrap_or_default();
        for w in targets {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    // Report each component as one circle through its files: a shortest path back to the start.
    s.out
        .into_iter()
        .map(|component| {
            let inside: BTreeSet<usize> = component.iter().copied().collect();
            let start = *inside.iter().next().unwrap_or(&0);
            shortest_cycle(start, &inside, edges).unwrap_or(component)
        })
        .collect()
}

/// The shortest circle from `start` back to itself inside `inside` (breadth first).
fn shortest_cycle(
    start: usize,
    inside: &BTreeSet<usize>,
    edges: &BTreeMap<usize, BTreeMap<usize, usize>>,
) -> Option<Vec<usize>> {
    let mut previous: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in edges.get(&v).map(|e| e.keys()).into_iter().flatten() {
            if !inside.contains(&w) {
                continue;
            }
            if w == start {
                let mut path = vec![v];
                let mut at = v;
                while at != start {
                    at = previous[&at];
                    path.push(at);
                }
                path.reverse();
                return Some(path);
            }
            if w != start && !previous.contains_key(&w) {
                previous.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small crate in a temporary directory: `files` are (path under src/, text).
    fn crate_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    const LIB: &str = "//! Layers:\n//! 1. [`low`] — below.\n//! 2. [`high`] — above.\n\npub mod high;\npub mod low;\n";

    #[test]
    fn every_crate_imports_only_downward() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for (src, file) in CRATES {
            let findings = check_crate(&root, src, file).unwrap();
            let text: Vec<String> = findings.iter().map(ToString::to_string).collect();
            assert!(findings.is_empty(), "{}", text.join("\n"));
        }
    }

    #[test]
    fn an_upward_import_is_named_with_its_file_and_line() {
        let dir = crate_with(&[
            ("lib.rs", LIB),
            ("low/mod.rs", "pub mod a;\n"),
            (
                "low/a.rs",
                "//! A.\n\nuse crate::high::b::Thing;\n\npub struct A;\n",
            ),
            ("high/mod.rs", "pub mod b;\n"),
            (
                "high/b.rs",
                "use crate::low::a::A;\n\npub struct Thing(A);\n",
            ),
        ]);
        let findings = check(dir.path(), "lib.rs").unwrap();
        assert_eq!(
            findings[0],
            Finding::Upward {
                file: "low/a.rs".into(),
                line: 3,
                path: "crate::high::b::Thing".into(),
                from: "low".into(),
                to: "high".into(),
            }
        );
        let shown = check_crate(dir.path(), ".", "lib.rs").unwrap();
        assert!(
            shown[0].to_string().starts_with("./low/a.rs:3: "),
            "{}",
            shown[0]
        );
        // The two files also import each other: a circle, reported with both lines.
        assert!(
            findings
                .iter()
                .any(|f| matches!(f, Finding::Circle { steps } if steps.len() == 2))
        );
    }

    #[test]
    fn inline_paths_and_re_exports_count_too() {
        let dir = crate_with(&[
            ("lib.rs", LIB),
            ("low/mod.rs", "pub mod a;\n"),
            (
                "low/a.rs",
                "// crate::high::b in a comment does not count\npub fn f() -> u32 {\n    let s = \"crate::high\";\n    crate::high::Thing::default().0\n}\n",
            ),
            ("high/mod.rs", "pub mod b;\n\npub use b::Thing;\n"),
            (
                "high/b.rs",
                "#[derive(Default)]\npub struct Thing(pub u32);\n",
            ),
        ]);
        let findings = check(dir.path(), "lib.rs").unwrap();
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(matches!(&findings[0], Finding::Upward { line: 4, .. }));
    }

    #[test]
    fn a_circle_inside_one_layer_is_found() {
        let dir = crate_with(&[
            ("lib.rs", LIB),
            ("low/mod.rs", "pub mod a;\npub mod b;\n"),
            ("low/a.rs", "use super::b::B;\npub struct A;\n"),
            (
                "low/b.rs",
                "use crate::low::{\n    a::A,\n};\npub struct B;\n",
            ),
            ("high/mod.rs", ""),
        ]);
        let findings = check(dir.path(), "lib.rs").unwrap();
        assert_eq!(
            findings,
            [Finding::Circle {
                steps: vec![
                    ("low/a.rs".into(), 1, "low/b.rs".into()),
                    ("low/b.rs".into(), 1, "low/a.rs".into()),
                ]
            }]
        );
    }

    #[test]
    fn a_module_missing_from_the_list_is_reported() {
        let dir = crate_with(&[
            (
                "lib.rs",
                "//! 1. [`low`] — below.\n\npub mod low;\npub mod extra;\n",
            ),
            ("low/mod.rs", ""),
            ("extra.rs", ""),
        ]);
        assert_eq!(
            check(dir.path(), "lib.rs").unwrap(),
            [Finding::Unlisted {
                module: "extra".into()
            }]
        );
    }

    #[test]
    fn siblings_of_one_layer_never_import_each_other() {
        let dir = crate_with(&[
            (
                "main.rs",
                "//! 1. [`low`] — shared.\n//! 2. [`a`], [`b`] — panels.\n\nmod a;\nmod b;\nmod low;\n",
            ),
            ("low.rs", "pub fn f() {}\n"),
            ("a.rs", "use crate::low::f;\nuse crate::b::g;\n"),
            ("b.rs", "pub fn g() { crate::low::f() }\n"),
        ]);
        assert_eq!(
            check(dir.path(), "main.rs").unwrap(),
            [Finding::Sibling {
                file: "a.rs".into(),
                line: 2,
                path: "crate::b::g".into(),
                from: "a".into(),
                to: "b".into(),
            }]
        );
    }

    #[test]
    fn use_trees_expand() {
        assert_eq!(
            expand("crate::a::{b, c::{d, e as f}, self}"),
            vec![
                vec!["crate", "a", "b"],
                vec!["crate", "a", "c", "d"],
                vec!["crate", "a", "c", "e as f"],
                vec!["crate", "a"],
            ]
        );
    }
}
