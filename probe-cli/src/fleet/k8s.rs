//! `gpufare fleet k8s`: Kubernetes manifests for the same run as `fleet slurm` — an Indexed Job
//! with one pod per GPU node, or a DaemonSet.
//!
//! The manifest is built as a JSON value and written as YAML by `serde_norway` (a maintained fork
//! of the archived `serde_yaml`): YAML because that is what people read and `kubectl apply -f`
//! takes, through a serde serializer so quoting and escaping are never done by hand.
//!
//! Each pod runs `gpufare probe`, writes the profile to a hidden name on the volume and renames
//! it into place (`<name>-<index>-<node>.json`, the Job's name defaulting to
//! `gpufare-fleet`), then prints the profile on standard
//! output, so `kubectl logs` of a pod is exactly its profile. The probe's own messages go to
//! standard error only when it fails.

use anyhow::Result;
use serde_json::{Value, json};

use super::args::K8sArgs;
use crate::output;

/// Label and node-selector key the NVIDIA GPU feature discovery sets on GPU nodes.
pub const GPU_PRODUCT_LABEL: &str = "nvidia.com/gpu.product";
/// The NVIDIA device plugin's extended resource.
pub const GPU_RESOURCE: &str = "nvidia.com/gpu";
/// Where the volume is mounted in the pod.
const MOUNT: &str = "/gpufare-out";

/// Runs `gpufare fleet k8s`.
pub fn run(args: &K8sArgs) -> Result<()> {
    output::write_text(&args.output, &manifest(args)?)
}

/// The manifest as YAML, with a comment on how to apply it and collect the results.
pub fn manifest(args: &K8sArgs) -> Result<String> {
    super::check_probe_args(&args.probe_args)?;
    check_names(args)?;
    let doc = if args.daemonset {
        daemonset(args)
    } else {
        job(args)
    };
    let yaml = serde_norway::to_string(&doc)?;
    let kind = if args.daemonset { "daemonset" } else { "job" };
    let ns = args
        .namespace
        .as_deref()
        .map(|n| format!(" -n {n}"))
        .unwrap_or_default();
    let collect = if args.daemonset {
        format!(
            "#   kubectl{ns} delete daemonset {name}   # once every node's profile is collected\n",
            name = args.name
        )
    } else {
        format!(
            "#   kubectl{ns} wait --for=condition=complete --timeout=30m job/{name}\n",
            name = args.name
        )
    };
    Ok(format!(
        "# Written by `gpufare fleet k8s`: runs `gpufare probe` on {what}.\n\
         #   kubectl apply -f {kind}.yaml\n{collect}\
         # Each pod writes {name}-INDEX-NODE.json to the volume and prints the profile to its log:\n\
         #   for p in $(kubectl{ns} get pods -l gpufare.dev/fleet={name} -o name); do\n\
         #     kubectl{ns} logs \"$p\" > \"${{p#pod/}}.json\"; done\n\
         #   gpufare fleet merge . -o fleet.jsonl\n{yaml}",
        what = if args.daemonset {
            "every matching GPU node (a DaemonSet)".to_owned()
        } else {
            format!("{} GPU nodes, one pod each (an Indexed Job)", args.nodes)
        },
        name = args.name,
    ))
}

/// A DNS-1123 label: at most 63 lower-case letters, digits and '-', starting and ending with a
/// letter or digit (Kubernetes' rule for namespaces, and for the Job and label names here).
pub fn is_dns_label(s: &str) -> bool {
    let ok = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    (1..=63).contains(&s.len())
        && s.chars().all(|c| ok(c) || c == '-')
        && s.starts_with(ok)
        && s.ends_with(ok)
}

/// A DNS-1123 subdomain: dot-separated DNS labels, at most 253 characters (claim names).
pub fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns_label)
}

/// A label value: empty, or at most 63 letters, digits, '-', '_' and '.', starting and ending
/// with a letter or digit.
pub fn is_label_value(s: &str) -> bool {
    let ok = |c: char| c.is_ascii_alphanumeric();
    s.is_empty()
        || (s.len() <= 63
            && s.chars().all(|c| ok(c) || matches!(c, '-' | '_' | '.'))
            && s.starts_with(ok)
            && s.ends_with(ok))
}

/// Refuses, naming the flag, a name Kubernetes would refuse in the manifest.
fn check_names(args: &K8sArgs) -> Result<()> {
    const LABEL: &str =
        "at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit";
    if !is_dns_label(&args.name) {
        anyhow::bail!("--name {:?}: a Kubernetes name is {LABEL}", args.name);
    }
    if let Some(ns) = &args.namespace
        && !is_dns_label(ns)
    {
        anyhow::bail!("--namespace {ns:?}: a namespace is {LABEL}");
    }
    if let Some(claim) = &args.pvc
        && !is_dns_subdomain(claim)
    {
        anyhow::bail!(
            "--pvc {claim:?}: a claim name is lower-case letters, digits, '-' and '.' ({LABEL}, between dots)"
        );
    }
    if let Some(product) = &args.gpu_product
        && !is_label_value(product)
    {
        anyhow::bail!(
            "--gpu-product {product:?}: a label value is at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
        );
    }
    if !args.host_path.starts_with('/') {
        anyhow::bail!("--host-path {:?}: must be an absolute path", args.host_path);
    }
    if args.image.trim().is_empty() || args.image.chars().any(char::is_whitespace) {
        anyhow::bail!("--image {:?}: an image reference has no spaces", args.image);
    }
    Ok(())
}

fn metadata(args: &K8sArgs) -> Value {
    let mut m = json!({
        "name": args.name,
        "labels": labels(args),
    });
    if let Some(ns) = &args.namespace {
        m["namespace"] = json!(ns);
    }
    m
}

fn labels(args: &K8sArgs) -> Value {
    json!({
        "app.kubernetes.io/name": "gpufare-fleet",
        "gpufare.dev/fleet": args.name,
    })
}

/// The shell command of the container.
fn command(args: &K8sArgs) -> String {
    let probe = super::probe_words(&args.probe_args);
    let id = if args.daemonset {
        "$NODE_NAME".to_owned()
    } else {
        "$JOB_COMPLETION_INDEX-$NODE_NAME".to_owned()
    };
    let mut s = format!(
        "set -u\n\
         name=\"{fleet}-{id}.json\"\n\
         tmp=\"{MOUNT}/.$name.partial\"\n\
         gpufare probe {probe}-o \"$tmp\" 2>/tmp/gpufare-probe.err\n\
         status=$?\n\
         if [ \"$status\" -ne 0 ]; then\n\
         \x20 cat /tmp/gpufare-probe.err >&2; rm -f \"$tmp\"\n\
         \x20 echo \"gpufare fleet: gpufare probe failed on $NODE_NAME (status $status)\" >&2\n\
         \x20 exit \"$status\"\n\
         fi\n\
         mv -f \"$tmp\" \"{MOUNT}/$name\" || exit 1\n\
         cat \"{MOUNT}/$name\"\n",
        fleet = args.name,
        probe = probe.iter().map(|a| format!("{a} ")).collect::<String>(),
    );
    if args.daemonset {
        // A DaemonSet's pods must keep running (restartPolicy Always): sleep once the profile
        // is written, until the DaemonSet is deleted.
        s.push_str("exec sleep infinity\n");
    }
    s
}

fn pod_spec(args: &K8sArgs) -> Value {
    let mut spec = json!({
        "restartPolicy": if args.daemonset { "Always" } else { "Never" },
        "tolerations": [
            {"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}
        ],
        "containers": [{
            "name": "gpufare",
            "image": args.image,
            "imagePullPolicy": "IfNotPresent",
            "command": ["/bin/sh", "-c", command(args)],
            "env": [
                {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}
            ],
            "resources": {"limits": {GPU_RESOURCE: args.gpus}},
            "volumeMounts": [{"name": "gpufare-out", "mountPath": MOUNT}],
        }],
        "volumes": [volume(args)],
    });
    match &args.gpu_product {
        Some(product) => spec["nodeSelector"] = json!({GPU_PRODUCT_LABEL: product}),
        None => {
            spec["affinity"] = json!({"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": GPU_PRODUCT_LABEL, "operator": "Exists"}]}
                ]}
            }});
        }
    }
    if !args.daemonset {
        // At most one pod of this fleet per node (a DaemonSet has that by construction).
        spec["affinity"]["podAntiAffinity"] = json!({
            "requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"gpufare.dev/fleet": args.name}},
                "topologyKey": "kubernetes.io/hostname",
            }]
        });
    }
    spec
}

fn volume(args: &K8sArgs) -> Value {
    match &args.pvc {
        Some(claim) => {
            json!({"name": "gpufare-out", "persistentVolumeClaim": {"claimName": claim}})
        }
        None => json!({
            "name": "gpufare-out",
            "hostPath": {"path": args.host_path, "type": "DirectoryOrCreate"},
        }),
    }
}

fn job(args: &K8sArgs) -> Value {
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata(args),
        "spec": {
            "completionMode": "Indexed",
            "completions": args.nodes,
            "parallelism": args.nodes,
            // A failed pod is retried (perhaps on another node) a few times in all, and the Job
            // is kept a day so its pods' logs can be read.
            "backoffLimit": args.nodes.min(6),
            "ttlSecondsAfterFinished": 86_400,
            "template": {
                "metadata": {"labels": labels(args)},
                "spec": pod_spec(args),
            },
        },
    })
}

fn daemonset(args: &K8sArgs) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": metadata(args),
        "spec": {
            "selector": {"matchLabels": {"gpufare.dev/fleet": args.name}},
            "template": {
                "metadata": {"labels": labels(args)},
                "spec": pod_spec(args),
            },
        },
    })
}
