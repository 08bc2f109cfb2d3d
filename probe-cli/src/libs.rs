//! Where the NVIDIA libraries the probe loads at run time are: NVML (`libnvidia-ml.so.1`), the
//! CUDA driver (`libcuda.so.1`) and cuBLAS (`libcublas.so.N`).
//!
//! The dynamic loader is always asked first (it knows `LD_LIBRARY_PATH` and `/etc/ld.so.cache`).
//! Many rented machines put the driver's user-space files somewhere it does not look: the NVIDIA
//! container toolkit on some clouds mounts them under `/usr/local/nvidia/lib64`, the GPU operator
//! under `/run/nvidia/driver`, WSL 2 under `/usr/lib/wsl/lib`; and cuBLAS is often only present
//! inside a Python environment, in the `nvidia-cublas` wheel PyTorch depends on. This module lists
//! those places so the probe finds the libraries without help, and says where it looked when it
//! cannot. It only looks at file names; loading is the caller's (unsafe) business.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A library the probe may load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lib {
    /// NVIDIA Management Library: GPU facts and samples.
    Nvml,
    /// The CUDA driver API: contexts, memory, events.
    Cuda,
    /// cuBLAS: the benchmark's GEMM.
    Cublas,
}

impl Lib {
    /// File names to look for, preferred first.
    pub fn file_names(self) -> &'static [&'static str] {
        match self {
            Lib::Nvml => &["libnvidia-ml.so.1", "libnvidia-ml.so"],
            Lib::Cuda => &["libcuda.so.1", "libcuda.so"],
            // Newest first: a machine with several keeps the one its driver supports best.
            Lib::Cublas => &[
                "libcublas.so.13",
                "libcublas.so.12",
                "libcublas.so.11",
                "libcublas.so",
            ],
        }
    }

    /// The name the loader is asked for first, as users know it.
    pub fn display_name(self) -> &'static str {
        match self {
            Lib::Nvml => "libnvidia-ml.so.1",
            Lib::Cuda => "libcuda.so.1",
            Lib::Cublas => "libcublas.so",
        }
    }
}

/// Where to look: the environment and a root that fixed paths hang from (`/` on a real machine,
/// a temporary tree in tests).
pub struct Places<'a> {
    root: PathBuf,
    var: &'a dyn Fn(&str) -> Option<OsString>,
}

impl<'a> Places<'a> {
    /// Looks under `root` and reads variables through `var`.
    pub fn new(root: impl Into<PathBuf>, var: &'a dyn Fn(&str) -> Option<OsString>) -> Places<'a> {
        Places {
            root: root.into(),
            var,
        }
    }

    fn fixed(&self, path: &str) -> PathBuf {
        self.root.join(path.trim_start_matches('/'))
    }

    fn dir_var(&self, name: &str) -> Option<PathBuf> {
        (self.var)(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    }

    /// The directories searched for `lib` after the dynamic loader, in order, without
    /// duplicates. Directories that do not exist are included: the list is also what the probe
    /// reports as "where it looked".
    pub fn dirs(&self, lib: Lib) -> Vec<PathBuf> {
        let mut dirs = vec![
            self.fixed("/usr/local/nvidia/lib64"),
            self.fixed("/usr/local/nvidia/lib"),
            self.fixed("/usr/lib/x86_64-linux-gnu"),
            self.fixed("/usr/lib/aarch64-linux-gnu"),
            self.fixed("/usr/lib64"),
            self.fixed("/run/nvidia/driver/usr/lib/x86_64-linux-gnu"),
            self.fixed("/run/nvidia/driver/usr/lib64"),
            self.fixed("/usr/lib/wsl/lib"),
        ];
        if lib == Lib::Cublas {
            dirs = self.cublas_dirs(dirs);
        }
        let mut seen = Vec::with_capacity(dirs.len());
        for d in dirs {
            if !seen.contains(&d) {
                seen.push(d);
            }
        }
        seen
    }

    fn cublas_dirs(&self, driver_dirs: Vec<PathBuf>) -> Vec<PathBuf> {
        let mut dirs = Vec::new();
        for var in ["CUDA_HOME", "CUDA_PATH"] {
            if let Some(home) = self.dir_var(var) {
                dirs.push(home.join("lib64"));
                dirs.push(home.join("lib"));
            }
        }
        dirs.push(self.fixed("/usr/local/cuda/lib64"));
        dirs.push(self.fixed("/usr/local/cuda/targets/x86_64-linux/lib"));
        // Versioned toolkits, newest name last in the directory listing order we impose.
        let mut versioned: Vec<PathBuf> = sorted_children(&self.fixed("/usr/local"))
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("cuda-"))
            })
            .map(|p| p.join("lib64"))
            .collect();
        versioned.reverse();
        dirs.extend(versioned);
        // Python environments: the nvidia-cublas wheels (CUDA 12: nvidia/cublas/lib; CUDA 13:
        // nvidia/cu13/lib) and PyTorch's own lib folder.
        for prefix in self.python_prefixes() {
            for site in site_packages(&prefix) {
                dirs.push(site.join("nvidia/cublas/lib"));
                dirs.push(site.join("nvidia/cu13/lib"));
                dirs.push(site.join("nvidia/cu12/lib"));
                dirs.push(site.join("torch/lib"));
            }
        }
        if let Some(conda) = self.dir_var("CONDA_PREFIX") {
            dirs.push(conda.join("lib"));
        }
        dirs.extend(driver_dirs);
        dirs
    }

    /// Folders that hold `lib/python3.*`: the active virtual or conda environment, the user's
    /// own packages, the system's, and the usual conda install.
    fn python_prefixes(&self) -> Vec<PathBuf> {
        let mut prefixes = Vec::new();
        for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
            if let Some(p) = self.dir_var(var) {
                prefixes.push(p);
            }
        }
        if let Some(home) = self.dir_var("HOME") {
            prefixes.push(home.join(".local"));
        }
        for fixed in ["/usr/local", "/usr", "/opt/conda", "/opt/venv"] {
            prefixes.push(self.fixed(fixed));
        }
        prefixes
    }

    /// Every existing file for `lib`, in search order (directory first, then file name).
    pub fn find(&self, lib: Lib) -> Vec<PathBuf> {
        let mut found = Vec::new();
        for dir in self.dirs(lib) {
            for name in lib.file_names() {
                let path = dir.join(name);
                if path.is_file() && !found.contains(&path) {
                    found.push(path);
                }
            }
        }
        found
    }

    /// "where it looked", for a message: the dynamic loader, then the directories that exist
    /// (the ones that do not are counted, not named, to keep the line readable).
    pub fn looked(&self, lib: Lib) -> String {
        let dirs = self.dirs(lib);
        let (present, absent): (Vec<_>, Vec<_>) = dirs.iter().partition(|d| d.is_dir());
        let mut text = format!(
            "looked for {} through the dynamic loader (LD_LIBRARY_PATH, /etc/ld.so.cache)",
            lib.file_names().join(", ")
        );
        if !present.is_empty() {
            let names: Vec<String> = present.iter().map(|d| d.display().to_string()).collect();
            text.push_str(" and in ");
            text.push_str(&names.join(", "));
        }
        if !absent.is_empty() {
            text.push_str(&format!(
                " ({} other usual folders do not exist here)",
                absent.len()
            ));
        }
        text
    }
}

/// The real machine: `/` and the process environment.
pub fn system() -> Places<'static> {
    Places::new("/", &|name| std::env::var_os(name))
}

fn sorted_children(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// `PREFIX/lib/python3.*/{site,dist}-packages` that exist, newest Python first.
fn site_packages(prefix: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pythons: Vec<PathBuf> = sorted_children(&prefix.join("lib"))
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("python3"))
        })
        .collect();
    // python3.12 before python3.9: compare the minor version as a number.
    pythons.sort_by_key(|p| {
        std::cmp::Reverse(
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix("python3."))
                .and_then(|m| m.parse::<u32>().ok())
                .unwrap_or(0),
        )
    });
    for py in pythons {
        for kind in ["site-packages", "dist-packages"] {
            let site = py.join(kind);
            if site.is_dir() {
                out.push(site);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn touch(root: &Path, rel: &str) -> PathBuf {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"not really a library").unwrap();
        path
    }

    fn env(pairs: &[(&str, &Path)]) -> HashMap<String, OsString> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.as_os_str().to_owned()))
            .collect()
    }

    #[test]
    fn the_container_toolkit_folder_is_found_without_ld_library_path() {
        let tree = tempfile::tempdir().unwrap();
        let nvml = touch(tree.path(), "usr/local/nvidia/lib64/libnvidia-ml.so.1");
        let cuda = touch(tree.path(), "usr/local/nvidia/lib64/libcuda.so.1");
        let vars = env(&[]);
        let var = |k: &str| vars.get(k).cloned();
        let places = Places::new(tree.path(), &var);
        assert_eq!(places.find(Lib::Nvml), vec![nvml]);
        assert_eq!(places.find(Lib::Cuda), vec![cuda]);
        assert!(places.find(Lib::Cublas).is_empty());
    }

    #[test]
    fn cublas_is_found_in_a_toolkit_then_a_virtual_environments_cuda_13_wheel_then_the_system() {
        let tree = tempfile::tempdir().unwrap();
        let venv = tree.path().join("home/u/venv");
        let wheel = touch(
            &venv,
            "lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13",
        );
        let older = touch(
            tree.path(),
            "usr/local/lib/python3.9/dist-packages/nvidia/cublas/lib/libcublas.so.12",
        );
        let toolkit = touch(tree.path(), "usr/local/cuda-12.4/lib64/libcublas.so.12");
        let vars = env(&[("VIRTUAL_ENV", &venv)]);
        let var = |k: &str| vars.get(k).cloned();
        let places = Places::new(tree.path(), &var);
        let found = places.find(Lib::Cublas);
        assert_eq!(found, vec![toolkit, wheel, older]);
    }

    #[test]
    fn cuda_home_comes_first_and_newer_pythons_before_older() {
        let tree = tempfile::tempdir().unwrap();
        let home = tree.path().join("opt/cuda");
        let mine = touch(&home, "lib64/libcublas.so.12");
        let new = touch(
            tree.path(),
            "usr/lib/python3.12/dist-packages/torch/lib/libcublas.so.12",
        );
        let old = touch(
            tree.path(),
            "usr/lib/python3.9/dist-packages/torch/lib/libcublas.so.12",
        );
        let vars = env(&[("CUDA_HOME", &home)]);
        let var = |k: &str| vars.get(k).cloned();
        let places = Places::new(tree.path(), &var);
        assert_eq!(places.find(Lib::Cublas), vec![mine, new, old]);
    }

    #[test]
    fn where_it_looked_names_the_folders_that_exist_and_counts_the_rest() {
        let tree = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tree.path().join("usr/lib64")).unwrap();
        let vars = env(&[]);
        let var = |k: &str| vars.get(k).cloned();
        let places = Places::new(tree.path(), &var);
        let text = places.looked(Lib::Nvml);
        assert!(text.contains("libnvidia-ml.so.1"), "{text}");
        assert!(text.contains("LD_LIBRARY_PATH"), "{text}");
        assert!(
            text.contains(&tree.path().join("usr/lib64").display().to_string()),
            "{text}"
        );
        assert!(!text.contains("nvidia/lib64"), "{text}");
        assert!(
            text.contains("other usual folders do not exist here"),
            "{text}"
        );
    }

    #[test]
    fn an_empty_variable_is_ignored() {
        let tree = tempfile::tempdir().unwrap();
        let vars: HashMap<String, OsString> = [("CUDA_HOME".to_owned(), OsString::new())]
            .into_iter()
            .collect();
        let var = |k: &str| vars.get(k).cloned();
        let places = Places::new(tree.path(), &var);
        assert!(
            places
                .dirs(Lib::Cublas)
                .iter()
                .all(|d| d.starts_with(tree.path()))
        );
    }
}
