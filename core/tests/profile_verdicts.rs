//! Verdicts on recorded-style profiles in `tests/profiles/` (built from documented public facts;
//! each file says so) and on a real version-1 profile from a machine without a driver.

use gpufare_core::profile::document::parse_profile;
use gpufare_core::profile::verdict::{Level, VerdictKind};
use gpufare_core::profile::verdicts::analyse;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// (file, contents, expected verdicts as (kind, level, finding), expected evidence snippets)
type Case = (
    &'static str,
    &'static str,
    &'static [(VerdictKind, Level, &'static str)],
    &'static [&'static str],
);

const CASES: &[Case] = &[
    (
        "dedicated H100",
        include_str!("../../tests/profiles/dedicated-h100.json"),
        &[
            (VerdictKind::Slice, Level::Ok, "whole_card"),
            (VerdictKind::NoisyNeighbour, Level::Ok, "quiet"),
            (VerdictKind::PcieDegraded, Level::Ok, "full_link"),
            (VerdictKind::PowerCapped, Level::Ok, "default_limit"),
            (VerdictKind::MemoryErrors, Level::Ok, "clean"),
            (VerdictKind::ThermalThrottling, Level::Ok, "cool"),
        ],
        &["ratio=1.000", "nominal_mib=81559"],
    ),
    (
        "MIG 1g.10gb",
        include_str!("../../tests/profiles/mig-a100-1g10gb.json"),
        &[
            (VerdictKind::Slice, Level::Warn, "mig_slice"),
            (VerdictKind::NoisyNeighbour, Level::Ok, "quiet"),
        ],
        &["mig_profile=1g.10gb", "ratio=0.119"],
    ),
    (
        "vGPU V100D-8C",
        include_str!("../../tests/profiles/vgpu-v100d-8c.json"),
        &[
            (VerdictKind::Slice, Level::Warn, "vgpu"),
            (VerdictKind::NoisyNeighbour, Level::Warn, "memory_in_use"),
        ],
        &[
            "virtualization_mode=vgpu",
            "name=GRID V100D-8C",
            "memory_used_max_mib=923",
        ],
    ),
    (
        "HAMi RTX 4090 with a neighbour",
        include_str!("../../tests/profiles/hami-4090-neighbours.json"),
        &[
            (VerdictKind::Slice, Level::Warn, "memory_capped"),
            (
                VerdictKind::NoisyNeighbour,
                Level::Warn,
                "foreign_processes",
            ),
        ],
        &[
            "markers=CUDA_DEVICE_MEMORY_LIMIT_0",
            "/usr/local/vgpu/libvgpu.so",
            "foreign_pids=2718281",
            "utilization_p50_pct=81",
            "utilization_p95_pct=97",
            "foreign_memory_mib=14336",
        ],
    ),
    (
        "power-capped A100 on Gen3 x8",
        include_str!("../../tests/profiles/capped-a100-pcie-gen3.json"),
        &[
            (VerdictKind::Slice, Level::Ok, "whole_card"),
            (VerdictKind::PowerCapped, Level::Warn, "limit_below_default"),
            (VerdictKind::PcieDegraded, Level::Warn, "slot_below_card"),
            (VerdictKind::Jitter, Level::Ok, "steady"),
            (VerdictKind::LowThroughput, Level::Ok, "near_nominal"),
        ],
        &[
            "limit_w=275",
            "default_limit_w=400",
            "width_max=8",
            "h2d_gbs=5.4",
            "expected_gbs=12",
        ],
    ),
    (
        "no driver (version 1)",
        include_str!("../../tests/profiles/v1-no-driver.json"),
        &[(VerdictKind::NoGpu, Level::Info, "no_gpu")],
        &["reason=no NVIDIA driver"],
    ),
];

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn verdicts_match_the_recorded_cases() {
    for (name, text, expected, evidence) in CASES {
        let profile = parse_profile(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let verdicts = analyse(&profile);
        for (kind, level, finding) in *expected {
            let v = verdicts
                .iter()
                .find(|v| v.kind == *kind)
                .unwrap_or_else(|| panic!("{name}: no {kind:?} verdict in {verdicts:#?}"));
            assert_eq!(
                (v.level, v.finding.id()),
                (*level, *finding),
                "{name}: {kind:?} {:?}",
                v.evidence
            );
        }
        let all: Vec<String> = verdicts
            .iter()
            .flat_map(|v| v.evidence.iter().map(|e| format!("{}={}", e.key, e.value)))
            .collect();
        for snippet in *evidence {
            assert!(
                all.iter().any(|e| e.contains(snippet)),
                "{name}: evidence lacks {snippet:?}: {all:?}"
            );
        }
    }
}
