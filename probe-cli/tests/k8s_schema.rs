//! The Kubernetes manifests `gpufare fleet k8s` writes, checked against Kubernetes itself: no
//! API server can be started here, so every variant (Job and DaemonSet; hostPath and PVC; with
//! and without a GPU product, which switches between a node selector and a node affinity; with
//! and without a namespace; tolerations always) goes through `kubernetes-validate --strict`
//! (PyPI, the official OpenAPI schemas) for the oldest Kubernetes it knows, one in the middle
//! and the newest. What a schema cannot say (the allowed values of `completionMode`,
//! `restartPolicy`, toleration operators and effects, `imagePullPolicy`, hostPath types, node
//! selector operators; name and label syntax) is checked here. A misspelled field, a wrong type
//! and a bad value are each shown to fail their check.
//!
//! `cargo xtask test` installs kubernetes-validate 1.37.0 into `target/python`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_norway::Value;

mod common;
use common::{gpufare, text};

/// Oldest, middle and newest versions kubernetes-validate 1.37.0 carries schemas for.
const VERSIONS: [&str; 3] = ["1.25.0", "1.31.0", "1.37.0"];

fn python_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/python");
    assert!(
        dir.join("kubernetes_validate").is_dir(),
        "kubernetes-validate is not installed in {}; run `cargo xtask test`, which installs it",
        dir.display()
    );
    dir
}

/// `kubernetes-validate --strict` for `version` on `files`.
fn validate(version: &str, files: &[PathBuf]) -> Output {
    Command::new("python3")
        .args([
            "-m",
            "kubernetes_validate",
            "--strict",
            "--no-warn",
            "-k",
            version,
        ])
        .args(files)
        .env("PYTHONPATH", python_dir())
        .output()
        .expect("python3 runs")
}

/// Every variant the command can write: (file stem, flags).
fn variants() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for daemonset in [false, true] {
        for pvc in [None, Some("fleet-results")] {
            for product in [None, Some("NVIDIA-H100-80GB-HBM3")] {
                let mut args: Vec<String> =
                    ["--image", "registry.example/gpufare:0.1", "--nodes", "4"]
                        .map(str::to_owned)
                        .to_vec();
                let mut stem = String::from(if daemonset { "daemonset" } else { "job" });
                if daemonset {
                    args.push("--daemonset".into());
                }
                match pvc {
                    Some(claim) => {
                        args.extend(["--pvc".into(), claim.into()]);
                        stem.push_str("-pvc");
                    }
                    None => stem.push_str("-hostpath"),
                }
                if let Some(p) = product {
                    args.extend(["--gpu-product".into(), p.into()]);
                    stem.push_str("-selector");
                } else {
                    stem.push_str("-affinity");
                }
                // Half of them in a namespace, with two GPUs a pod and probe flags.
                if pvc.is_some() == product.is_some() {
                    args.extend(
                        ["--namespace", "gpu-tests", "--gpus", "2", "--", "--bench"]
                            .map(str::to_owned),
                    );
                    stem.push_str("-ns");
                }
                out.push((stem, args));
            }
        }
    }
    out
}

fn write_variants(dir: &Path) -> Vec<PathBuf> {
    variants()
        .into_iter()
        .map(|(stem, args)| {
            let file = dir.join(format!("{stem}.yaml"));
            let out = gpufare()
                .args(["fleet", "k8s", "-o"])
                .arg(&file)
                .args(&args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{stem}: {}", text(&out.stderr));
            file
        })
        .collect()
}

fn is_dns_label(s: &str) -> bool {
    let ok = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    (1..=63).contains(&s.len())
        && s.chars().all(|c| ok(c) || c == '-')
        && s.starts_with(ok)
        && s.ends_with(ok)
}

fn is_label_name(s: &str) -> bool {
    // [prefix/]name: a DNS subdomain prefix, a name of at most 63 alphanumerics, '-', '_', '.'.
    let (prefix, name) = s.rsplit_once('/').map_or((None, s), |(p, n)| (Some(p), n));
    let ok = |c: char| c.is_ascii_alphanumeric();
    prefix.is_none_or(|p| p.len() <= 253 && p.split('.').all(is_dns_label))
        && (1..=63).contains(&name.len())
        && name.chars().all(|c| ok(c) || matches!(c, '-' | '_' | '.'))
        && name.starts_with(ok)
        && name.ends_with(ok)
}

fn is_label_value(s: &str) -> bool {
    s.is_empty() || is_label_name(s) && !s.contains('/')
}

fn one_of(problems: &mut Vec<String>, at: &str, v: &Value, allowed: &[&str]) {
    match v.as_str() {
        Some(s) if allowed.contains(&s) => {}
        _ => problems.push(format!("{at} = {v:?}, not one of {allowed:?}")),
    }
}

/// The values a schema leaves open, checked by hand: what is wrong, as a list.
fn value_problems(doc: &Value) -> Vec<String> {
    let mut p = Vec::new();
    let kind = doc["kind"].as_str().unwrap_or_default();
    let meta = &doc["metadata"];
    if !meta["name"].as_str().is_some_and(is_dns_label) {
        p.push(format!(
            "metadata.name {:?} is not a DNS-1123 label",
            meta["name"]
        ));
    }
    if let Some(ns) = meta.get("namespace")
        && !ns.as_str().is_some_and(is_dns_label)
    {
        p.push(format!("metadata.namespace {ns:?} is not a DNS-1123 label"));
    }
    let spec = &doc["spec"];
    let template = &spec["template"];
    for labels in [&meta["labels"], &template["metadata"]["labels"]] {
        for (k, v) in labels.as_mapping().into_iter().flatten() {
            let (k, v) = (
                k.as_str().unwrap_or_default(),
                v.as_str().unwrap_or("\u{0}"),
            );
            if !is_label_name(k) || !is_label_value(v) {
                p.push(format!("label {k:?}: {v:?} is not label syntax"));
            }
        }
    }
    let pod = &template["spec"];
    match kind {
        "Job" => {
            one_of(
                &mut p,
                "spec.completionMode",
                &spec["completionMode"],
                &["NonIndexed", "Indexed"],
            );
            one_of(
                &mut p,
                "restartPolicy",
                &pod["restartPolicy"],
                &["OnFailure", "Never"],
            );
        }
        "DaemonSet" => one_of(&mut p, "restartPolicy", &pod["restartPolicy"], &["Always"]),
        other => p.push(format!("kind {other:?} is neither a Job nor a DaemonSet")),
    }
    for t in pod["tolerations"].as_sequence().into_iter().flatten() {
        one_of(
            &mut p,
            "toleration operator",
            &t["operator"],
            &["Exists", "Equal"],
        );
        one_of(
            &mut p,
            "toleration effect",
            &t["effect"],
            &["NoSchedule", "PreferNoSchedule", "NoExecute"],
        );
    }
    for c in pod["containers"].as_sequence().into_iter().flatten() {
        one_of(
            &mut p,
            "imagePullPolicy",
            &c["imagePullPolicy"],
            &["Always", "IfNotPresent", "Never"],
        );
        if !c["name"].as_str().is_some_and(is_dns_label) {
            p.push(format!("container name {:?}", c["name"]));
        }
    }
    for v in pod["volumes"].as_sequence().into_iter().flatten() {
        if let Some(h) = v.get("hostPath") {
            one_of(
                &mut p,
                "hostPath.type",
                &h["type"],
                &[
                    "",
                    "DirectoryOrCreate",
                    "Directory",
                    "FileOrCreate",
                    "File",
                    "Socket",
                    "CharDevice",
                    "BlockDevice",
                ],
            );
        }
    }
    let terms = &pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        ["nodeSelectorTerms"];
    for term in terms.as_sequence().into_iter().flatten() {
        for e in term["matchExpressions"].as_sequence().into_iter().flatten() {
            one_of(
                &mut p,
                "node selector operator",
                &e["operator"],
                &["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"],
            );
        }
    }
    for (k, v) in pod["nodeSelector"].as_mapping().into_iter().flatten() {
        if !k.as_str().is_some_and(is_label_name) || !v.as_str().is_some_and(is_label_value) {
            p.push(format!("nodeSelector {k:?}: {v:?}"));
        }
    }
    p
}

fn read(file: &Path) -> Value {
    serde_norway::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

#[test]
fn every_manifest_variant_passes_the_kubernetes_schemas_of_three_versions() {
    let dir = tempfile::tempdir().unwrap();
    let files = write_variants(dir.path());
    assert_eq!(files.len(), 8);
    for version in VERSIONS {
        let out = validate(version, &files);
        assert!(
            out.status.success(),
            "Kubernetes {version}:\n{}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
    }
    for file in &files {
        let doc = read(file);
        assert_eq!(
            value_problems(&doc),
            Vec::<String>::new(),
            "{}",
            file.display()
        );
    }
}

#[test]
fn a_broken_manifest_fails_each_check() {
    let dir = tempfile::tempdir().unwrap();
    let job = write_variants(dir.path()).remove(0);
    let yaml = std::fs::read_to_string(&job).unwrap();
    let broken = |name: &str, from: &str, to: &str| {
        assert!(yaml.contains(from), "{from} in the manifest");
        let file = dir.path().join(name);
        std::fs::write(&file, yaml.replacen(from, to, 1)).unwrap();
        file
    };
    // The schemas: a misspelled field and a wrong type, refused by every version.
    let misspelled = broken("misspelled.yaml", "completionMode:", "completionMod:");
    let wrong_type = broken("wrong-type.yaml", "completions: 4", "completions: four");
    for version in VERSIONS {
        for file in [&misspelled, &wrong_type] {
            let out = validate(version, std::slice::from_ref(file));
            assert!(
                !out.status.success(),
                "Kubernetes {version} accepted {}",
                file.display()
            );
        }
    }
    // The values: a bad enum and a bad name, refused by the checks above.
    for (name, from, to, named) in [
        (
            "bad-enum.yaml",
            "restartPolicy: Never",
            "restartPolicy: Sometimes",
            "restartPolicy",
        ),
        (
            "bad-mode.yaml",
            "completionMode: Indexed",
            "completionMode: indexed",
            "completionMode",
        ),
        (
            "bad-name.yaml",
            "name: gpufare-fleet",
            "name: GPU_Fleet",
            "metadata.name",
        ),
    ] {
        let problems = value_problems(&read(&broken(name, from, to)));
        assert!(
            problems.iter().any(|p| p.contains(named)),
            "{name}: {problems:?}"
        );
    }
}

#[test]
fn names_kubernetes_would_refuse_are_refused_naming_the_flag() {
    for (flag, value) in [
        ("--name", "GPU_Fleet"),
        ("--namespace", "Bad NS"),
        ("--pvc", "Results!"),
        ("--gpu-product", "bad product!"),
        ("--host-path", "relative/dir"),
    ] {
        let out = gpufare()
            .args(["fleet", "k8s", "--image", "i", flag, value])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{flag} {value} accepted");
        let err = text(&out.stderr);
        assert!(err.contains(flag), "{flag}: {err}");
        assert!(out.stdout.is_empty(), "{flag}: nothing is written");
    }
}
