//! Multi-GPU training priced from the links (issue 33, item 3): the same 8-GPU data-parallel
//! fine-tune on NVLink, on PCIe and across two nodes on 25 Gbit/s Ethernet takes three
//! different times, each with its communication share, and the link figures behind them are the
//! published nccl-tests bus bandwidths; the overlap default is fitted to a published pair of DDP
//! runs that differ only in the link.

use gpufare_core::hardware::gpu::find_gpu;
use gpufare_core::hardware::links::{
    Link, NVLINK3_SHARE, all_reduce_seconds, network_busbw, nvlink_busbw, pcie_busbw,
    pcie_host_busbw,
};
use gpufare_core::offers::csv::parse_catalog_csv;
use gpufare_core::plan::pipeline::plan;
use gpufare_core::plan::scaling::{DEFAULT_OVERLAP, exposed_seconds};
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::task::document::parse_task;

const HEADER: &str = "id,provider,region,region_class,gpu,gpu_count,tenancy,interconnect,gpus_per_node,node_network_gbps,node_network_rdma,vram_gib,billing_mode,price,currency,granularity,as_of,source";

/// The example task of the README (compiled in: core's tests do no file I/O).
const DDP_TASK: &str = include_str!("../../examples/ddp_8gpu.json");

fn catalog() -> String {
    [
        HEADER,
        "nvlink,P,r,tier1,A100-80GB,8,dedicated,nvlink,,,,80,pay_as_you_go,80,CNY,second,2026-12,test",
        "pcie,P,r,tier1,A100-80GB,8,dedicated,pcie,,,,80,pay_as_you_go,80,CNY,second,2026-12,test",
        "two-nodes,P,r,tier1,A100-80GB,8,dedicated,nvlink,4,25,,80,pay_as_you_go,80,CNY,second,2026-12,test",
    ]
    .join("\n")
}

fn task() -> gpufare_core::task::document::TaskProfile {
    parse_task(DDP_TASK).unwrap()
}

/// The defaults are the published figures: 8× A100 NVLink 3 all-reduce 230.22 GB/s (Azure
/// AI-benchmarking-guide, ND A100 v4 results) and 234.89 (stas00/ml-engineering nccl-tests
/// runs); 8× A100 PCIe Gen4 with peer-to-peer 8-21 GB/s (NVIDIA/nccl-tests#117 discussion);
/// 100 Gbit/s TCP sockets 4-6 GB/s of 12.5 (stas00/ml-engineering, network/); EDR InfiniBand
/// 12.2 GB/s of 12.5 (NVIDIA nccl-tests PERFORMANCE.md).
#[test]
fn link_defaults_reproduce_published_bus_bandwidths() {
    let a100 = find_gpu("A100-80GB").unwrap();
    let nv = nvlink_busbw(a100, 8).unwrap();
    assert_eq!(nv.link, Link::Nvlink3);
    assert!((nv.gb_s / 230.22 - 1.0).abs() < 0.02 && (nv.gb_s / 234.89 - 1.0).abs() < 0.03);
    let pcie = pcie_busbw(a100);
    assert!((8.0..=21.0).contains(&pcie.gb_s), "{pcie:?}");
    let tcp = network_busbw(100.0, false);
    assert!((4.0..=6.0).contains(&tcp.gb_s), "{tcp:?}");
    let ib = network_busbw(100.0, true);
    assert!((ib.gb_s / 12.2 - 1.0).abs() < 0.1, "{ib:?}");
    // nccl-tests: busbw = algbw × 2(n−1)/n, so 1 GB over 8 GPUs at 230 GB/s takes 7.61 ms.
    assert!((all_reduce_seconds(1e9, 8, 230.0) - 1.75 / 230.0).abs() < 1e-12);
}

/// Hugging Face Transformers, `docs/source/en/perf_hardware.md` (transformers 4.3, 2021): GPT-2
/// (124.4 M parameters, FP32) fine-tuned with DDP on 2× TITAN RTX (PCIe Gen3, two NVLink 2
/// links), 200 steps of 4 sequences per GPU: `train_runtime` 101.9003 s over NVLink, 131.4367 s
/// with `NCCL_P2P_DISABLE=1` (through host memory). The overlap that reproduces the pair is fitted
/// here: the compute per step follows from the NVLink run, the overlap from the other. The
/// slower run lost more than its whole all-reduce, so the fit is 0, the default; with it the
/// model gives the host run within 10 % (the bus bandwidth through host memory, half of PCIe Gen3
/// peer-to-peer, is itself an assumption).
#[test]
fn published_ddp_runs_fit_the_overlap() {
    let (steps, nvlink_s, host_s) = (200.0, 101.9003, 131.4367);
    let bytes = 124.4e6 * 4.0;
    // Two NVLink 2 links, 25 GB/s each way each (Turing whitepaper), at NVLink 3's share.
    let comm_nvlink = all_reduce_seconds(bytes, 2, NVLINK3_SHARE * 50.0);
    let gen3 = find_gpu("T4").unwrap();
    assert_eq!(gen3.pcie_gen, 3);
    let host = pcie_host_busbw(gen3);
    assert_eq!(host.link, Link::PcieHost);
    let comm_host = all_reduce_seconds(bytes, 2, host.gb_s);
    // Predicted host run for an overlap: the compute is what the NVLink run leaves.
    let predict = |overlap: f64| {
        let step = nvlink_s / steps;
        // compute + exposed(compute) = step; exposed falls as compute grows, so bisect.
        let (mut lo, mut hi) = (0.0, step);
        for _ in 0..60 {
            let c = (lo + hi) / 2.0;
            if c + exposed_seconds(comm_nvlink, c, overlap) > step {
                hi = c;
            } else {
                lo = c;
            }
        }
        steps * (lo + exposed_seconds(comm_host, lo, overlap))
    };
    let fitted = (0..=100)
        .map(|i| f64::from(i) / 100.0)
        .min_by(|a, b| {
            (predict(*a) - host_s)
                .abs()
                .total_cmp(&(predict(*b) - host_s).abs())
        })
        .unwrap();
    assert_eq!(fitted, DEFAULT_OVERLAP);
    let got = predict(DEFAULT_OVERLAP);
    assert!(
        (got / host_s - 1.0).abs() < 0.10,
        "{got:.1} s against {host_s} s"
    );
    // The old assumption, half the backward pass, would hide all of it: no difference at all.
    assert!((predict(0.5) - nvlink_s).abs() < 0.5);
}

#[test]
fn the_same_fine_tune_on_three_links_takes_three_times() {
    let cat = parse_catalog_csv(&catalog()).unwrap();
    let t = task();
    let mut settings = PlanSettings::for_task(&t);
    settings.trials = 200;
    let result = plan(&t, &cat, &settings).unwrap();
    let row = |id: &str| result.options.iter().find(|o| o.offer_id == id).unwrap();
    let (nv, pcie, net) = (row("nvlink"), row("pcie"), row("two-nodes"));
    let c = |o: &gpufare_core::plan::option::OptionResult| o.communication.unwrap();
    assert_eq!(c(nv).link, Link::Nvlink3);
    assert_eq!(c(pcie).link, Link::PcieP2p);
    assert_eq!(c(net).link, Link::NetworkTcp);
    assert_eq!(c(net).nodes, 2);
    // 7B parameters, BF16 gradients: 14 GB all-reduced over 8 GPUs each step.
    let bytes = 14e9;
    assert!((c(nv).comm_s_per_step - 1.75 * bytes / 230e9).abs() < 1e-9);
    assert!((c(net).comm_s_per_step - 1.75 * bytes / 1.25e9).abs() < 1e-6);
    // Each step computes 400 h × 3600 / (90,000 × 8) = 2 s and then waits for the exchange
    // (no overlap by default): NVLink's 0.11 s, PCIe's 1.63 s, 19.6 s over TCP.
    assert!((c(nv).compute_s_per_step - 2.0).abs() < 1e-9);
    assert!((c(nv).share - 0.1065 / 2.1065).abs() < 1e-3, "{:?}", c(nv));
    assert!((c(pcie).exposed_s_per_step - 1.75 * bytes / 15e9).abs() < 1e-9);
    assert!(c(pcie).share > 0.4 && c(pcie).share < 0.5, "{:?}", c(pcie));
    assert!(c(net).share > 0.9, "{:?}", c(net));
    // Three different times, in the links' order.
    let hours = |o: &gpufare_core::plan::option::OptionResult| o.running_hours_expected;
    assert!((hours(nv) - 52.66).abs() < 0.01, "{}", hours(nv));
    assert!(hours(nv) < hours(pcie) && hours(pcie) < hours(net));
    assert!((hours(pcie) / hours(nv) - c(nv).efficiency / c(pcie).efficiency).abs() < 1e-3);
}

#[test]
fn bad_links_are_refused_by_field() {
    let one = |row: &str| {
        parse_catalog_csv(&format!("{HEADER}\n{row}\n"))
            .unwrap_err()
            .to_string()
    };
    assert!(
        one("x,P,r,tier1,RTX4090,8,dedicated,nvlink,,,,24,pay_as_you_go,8,CNY,second,2026-12,t")
            .contains("interconnect")
    );
    assert!(
        one(
            "x,P,r,tier1,A100-80GB,8,dedicated,nvlink,3,25,,80,pay_as_you_go,8,CNY,second,2026-12,t"
        )
        .contains("gpus_per_node")
    );
    assert!(
        one("x,P,r,tier1,A100-80GB,8,dedicated,nvlink,4,,,80,pay_as_you_go,8,CNY,second,2026-12,t")
            .contains("node_network_gbps")
    );
    assert!(
        one("x,P,r,tier1,A100-80GB,8,dedicated,copper,,,,80,pay_as_you_go,8,CNY,second,2026-12,t")
            .contains("interconnect")
    );
    assert!(
        one(
            "x,P,r,tier1,A100-80GB,8,time_sliced,nvlink,,,,80,pay_as_you_go,8,CNY,second,2026-12,t"
        )
        .contains("interconnect")
    );
    let bad_task = DDP_TASK.replace("\"steps\": 90000", "\"steps\": 0");
    assert!(
        parse_task(&bad_task)
            .unwrap_err()
            .to_string()
            .contains("data_parallel.steps")
    );
}

/// The site's field: a model size turns the link model on with stated steps, keeps what was given
/// beside it, and an empty field turns it off again.
#[test]
fn the_model_size_field_turns_the_link_model_on_and_off() {
    use gpufare_core::task::document::DEFAULT_DATA_PARALLEL_STEPS;
    let mut t = task();
    t.data_parallel = None;
    t.set_data_parallel_params(Some(7.0));
    let dp = t.data_parallel.unwrap();
    assert_eq!((dp.params_b, dp.steps), (7.0, DEFAULT_DATA_PARALLEL_STEPS));
    t.data_parallel.as_mut().unwrap().sharded = true;
    t.set_data_parallel_params(Some(13.0));
    assert!(t.data_parallel.unwrap().sharded);
    t.set_data_parallel_params(Some(0.0));
    assert_eq!(t.data_parallel, None);
}

/// Tensor parallelism against Megatron-LM's model-parallel weak scaling (Shoeybi et al. 2019,
/// arXiv:1909.08053, section 5.1 and Figure 5): GPT-2 models of 1.2, 2.5, 4.2 and 8.3 billion
/// parameters (hidden 1536/1920/2304/3072, layers 40/54/64/72) on 1, 2, 4 and 8 V100s of a
/// DGX-2H, batch 8 of 1,024 tokens, keep 100 / 96 / 82 / 77 % of the single GPU's 39 TFLOPS.
/// The model: each GPU computes 6 x parameters x tokens / GPUs at 39 TFLOPS, plus four
/// all-reduces of the activations per layer over NVLink 2 (nothing hidden). Measured: +0.5 %,
/// +11.5 %, +11.4 % (the model misses the smaller matrix products' lower efficiency), within ±15 %.
#[test]
fn tensor_parallelism_follows_megatron_weak_scaling() {
    use gpufare_core::plan::scaling::communication;
    use gpufare_core::task::document::DataParallel;
    let row = "v100,P,r,tier1,V100-32GB,8,dedicated,nvlink,,,,32,pay_as_you_go,20,CNY,second,2026-12,test";
    let catalog = parse_catalog_csv(&format!("{HEADER}\n{row}")).unwrap();
    let v100 = &catalog.offers[0];
    for (gpus, params_b, hidden, layers, published) in [
        (2_u32, 2.5, 1920_u32, 54_u32, 0.96),
        (4, 4.2, 2304, 64, 0.82),
        (8, 8.3, 3072, 72, 0.77),
    ] {
        let tokens = 8.0 * 1024.0;
        let compute_s = 6.0 * params_b * 1e9 * tokens / (f64::from(gpus) * 39e12);
        let dp = DataParallel {
            params_b,
            trainable_params_b: None,
            steps: 1,
            sharded: false,
            overlap: None,
            tensor_parallel: Some(gpus),
            hidden: Some(hidden),
            layers: Some(layers),
            tokens_per_step: Some(tokens),
        };
        let c = communication(&dp, v100, gpus, compute_s * f64::from(gpus) / 3600.0).unwrap();
        assert_eq!(c.tensor_parallel, gpus);
        assert!((c.compute_s_per_step - compute_s).abs() < 1e-9, "{c:?}");
        let deviation = c.efficiency / published - 1.0;
        println!(
            "{params_b}B on {gpus} V100s: model {:.1} % of linear, Megatron-LM {:.0} % ({:+.1} %)",
            c.efficiency * 100.0,
            published * 100.0,
            deviation * 100.0
        );
        assert!(
            deviation.abs() <= 0.15,
            "{params_b}B on {gpus}: {:.3} against {published}",
            c.efficiency
        );
    }
}

/// A tensor-parallel group must divide the GPUs and comes with the model's shape and tokens;
/// an offer without an NVLink domain of that size is infeasible, naming the rule.
#[test]
fn tensor_parallel_inputs_are_checked_and_need_nvlink() {
    let task: serde_json::Value = serde_json::from_str(DDP_TASK).unwrap();
    let dp = |extra: serde_json::Value| {
        let mut t = task.clone();
        for (k, v) in extra.as_object().unwrap() {
            t["data_parallel"][k] = v.clone();
        }
        parse_task(&t.to_string())
    };
    let e = dp(serde_json::json!({"tensor_parallel": 3})).unwrap_err();
    assert!(
        e.to_string().contains("data_parallel.tensor_parallel"),
        "{e}"
    );
    let e = dp(serde_json::json!({"tensor_parallel": 4})).unwrap_err();
    assert!(e.to_string().contains("data_parallel.hidden"), "{e}");
    let e =
        dp(serde_json::json!({"tensor_parallel": 4, "hidden": 4096, "layers": 32})).unwrap_err();
    assert!(
        e.to_string().contains("data_parallel.tokens_per_step"),
        "{e}"
    );
    let ok = dp(serde_json::json!({"tensor_parallel": 4, "hidden": 4096, "layers": 32, "tokens_per_step": 1048576.0})).unwrap();
    assert_eq!(
        serde_json::to_value(&ok).unwrap()["data_parallel"]["tensor_parallel"],
        4
    );
    let catalog = parse_catalog_csv(&catalog()).unwrap();
    let result = plan(&ok, &catalog, &PlanSettings::default()).unwrap();
    let option = |id: &str| result.options.iter().find(|o| o.offer_id == id).unwrap();
    assert!(option("nvlink").feasible);
    assert_eq!(option("nvlink").communication.unwrap().tensor_parallel, 4);
    assert!(option("nvlink").communication.unwrap().tensor_s_per_step > 0.0);
    // Two nodes of 4 NVLink-joined GPUs hold groups of 4; PCIe holds none.
    assert!(option("two-nodes").feasible);
    let pcie = option("pcie");
    assert!(!pcie.feasible);
    let rules: Vec<String> = pcie
        .reasons
        .iter()
        .map(|r| {
            serde_json::to_value(r.rule)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(rules, ["tensor_parallel_needs_nvlink"]);
}
