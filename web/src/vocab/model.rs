//! Names of the model's values in both languages: task kinds, sensitivity levels, tenancies,
//! billing modes, regions, recommendations, phases, fits, security controls, verdicts and their
//! findings, presets, workload components and assumptions.

use gpufare_core::Granularity;
use gpufare_core::numbers::text::TextEncoding;
use gpufare_core::offers::billing::BillingMode;
use gpufare_core::offers::interruption::{RateForm, TRACE_POOLED_GAP_HOURS};
use gpufare_core::offers::latency::RttBasis;
use gpufare_core::offers::offer::{PriceEvidence, RegionClass, SecurityControl};
use gpufare_core::offers::places::{Market, Markets, Place, jurisdiction_name};
use gpufare_core::offers::queue::{PoolKind, QueueSource, QueueTrace};
use gpufare_core::offers::tenancy::{LatencySource, LoadSource, SlowdownSource, Tenancy};
use gpufare_core::plan::assumption::Assumption;
use gpufare_core::plan::decision::Choice;
use gpufare_core::plan::feasibility::VramFit;
use gpufare_core::plan::hybrid::PhaseKind;
use gpufare_core::plan::option::STALE_PRICE_DAYS;
use gpufare_core::profile::verdict::{Finding, Level, VerdictKind};
use gpufare_core::task::document::{Sensitivity, TaskKind};
use gpufare_core::task::policy::Policy;
use gpufare_core::workload::llm::arch::{KvPrecision, LlmArch, LoraTargets, Precision};
use gpufare_core::workload::quick::QuickMethod;

use crate::vocab::{Label, Lang, pick, t};

/// The name of a task kind.
pub fn kind(lang: Lang, k: TaskKind) -> &'static str {
    let (en, zh) = match k {
        TaskKind::Training => ("training", "训练"),
        TaskKind::FineTuneFull => ("full fine-tune", "全参数微调"),
        TaskKind::FineTuneLora => ("LoRA fine-tune", "LoRA 微调"),
        TaskKind::FineTuneQlora => ("QLoRA fine-tune", "QLoRA 微调"),
        TaskKind::Inference => ("inference service", "推理服务"),
        TaskKind::ImageGeneration => ("image generation", "图像生成"),
        TaskKind::SdLoraTraining => ("SD LoRA training", "SD LoRA 训练"),
        TaskKind::Rendering => ("rendering", "渲染"),
        TaskKind::Batch => ("batch / data cleaning", "批处理 / 数据清洗"),
        TaskKind::CodeCheck => ("check the code runs", "验证代码能否跑通"),
    };
    pick(lang, en, zh)
}

/// The name of a sensitivity level.
pub fn sensitivity(lang: Lang, s: Sensitivity) -> &'static str {
    let (en, zh) = match s {
        Sensitivity::Public => ("public data", "公开数据"),
        Sensitivity::Internal => ("internal", "内部数据"),
        Sensitivity::Confidential => ("confidential", "机密数据"),
        Sensitivity::InHouse => ("must stay in-house", "不能出企业边界"),
    };
    pick(lang, en, zh)
}

/// The tail of an offer's title after its provider: " · 2×H100 · what".
pub fn offer_title(o: &gpufare_core::offers::offer::Offer, what: &str) -> String {
    format!(" · {}×{} · {what}", o.gpu_count, o.gpu)
}

/// An offer as the ranking names it: provider, GPUs, sharing and billing.
pub fn option_title(lang: Lang, o: &gpufare_core::plan::option::OptionResult) -> String {
    capacity_title(
        lang,
        &o.provider,
        o.gpu_count,
        &o.gpu,
        o.tenancy,
        o.billing_mode,
    )
}

/// A row of a plan's headline as [`option_title`] names an option.
pub fn headline_title(lang: Lang, r: &gpufare_core::plan::headline::HeadlineRow) -> String {
    capacity_title(
        lang,
        &r.provider,
        r.gpu_count,
        &r.gpu,
        r.tenancy,
        r.billing_mode,
    )
}

fn capacity_title(
    lang: Lang,
    provider: &str,
    gpu_count: u32,
    gpu: &str,
    t: Tenancy,
    b: BillingMode,
) -> String {
    format!(
        "{provider} · {gpu_count}×{gpu} · {} · {}",
        tenancy(lang, t),
        billing(lang, b)
    )
}

/// The name of a tenancy.
pub fn tenancy(lang: Lang, t: Tenancy) -> &'static str {
    let (en, zh) = match t {
        Tenancy::Dedicated => ("dedicated card", "独享整卡"),
        Tenancy::Mig => ("MIG slice", "MIG 切片"),
        Tenancy::Vgpu => ("vGPU", "vGPU"),
        Tenancy::TimeSliced => ("time-sliced", "时间片共享"),
        Tenancy::Mps => ("MPS share", "MPS 共享"),
        Tenancy::MemCappedContainer => ("memory-capped container", "显存限额容器"),
        Tenancy::MarketplaceHost => ("marketplace host", "算力市场主机"),
    };
    pick(lang, en, zh)
}

/// The name of a billing mode.
pub fn billing(lang: Lang, b: BillingMode) -> &'static str {
    let (en, zh) = match b {
        BillingMode::PayAsYouGo => ("pay-as-you-go", "按量付费"),
        BillingMode::Daily => ("daily", "包日"),
        BillingMode::Weekly => ("weekly", "包周"),
        BillingMode::Monthly => ("monthly", "包月"),
        BillingMode::Yearly => ("yearly", "包年"),
        BillingMode::Reserved => ("reserved", "预留实例"),
        BillingMode::Spot => ("spot", "竞价实例"),
    };
    pick(lang, en, zh)
}

/// The unit suffix of an offer's price.
pub fn price_unit(lang: Lang, b: BillingMode) -> &'static str {
    t(
        lang,
        match b {
            BillingMode::PayAsYouGo | BillingMode::Spot => Label::PerHour,
            BillingMode::Daily => Label::PerDay,
            BillingMode::Weekly => Label::PerWeek,
            BillingMode::Monthly | BillingMode::Reserved => Label::PerMonth,
            BillingMode::Yearly => Label::PerYear,
        },
    )
}

/// The name of a jurisdiction (a data-law area) from its code.
pub fn jurisdiction(lang: Lang, code: &str) -> String {
    let zh = match code {
        "cn" => "中国大陆",
        "hk" => "香港",
        "sg" => "新加坡",
        "jp" => "日本",
        "kr" => "韩国",
        "in" => "印度",
        "au" => "澳大利亚",
        "uk" => "英国",
        "eu" => "欧盟",
        "us" => "美国",
        "ca" => "加拿大",
        "br" => "巴西",
        "unknown" => "位置不明的主机",
        other => other,
    };
    match lang {
        Lang::En => jurisdiction_name(code).to_owned(),
        Lang::Zh => zh.to_owned(),
    }
}

/// A market an offer is sold in.
pub fn market(lang: Lang, m: Market) -> &'static str {
    let (en, zh) = match m {
        Market::MainlandChina => ("mainland China", "中国大陆"),
        Market::Elsewhere => ("outside mainland China", "中国大陆以外"),
    };
    pick(lang, en, zh)
}

/// The markets a task buys from.
pub fn markets(lang: Lang, m: Markets) -> &'static str {
    let (en, zh) = match m {
        Markets::Both => ("both markets", "两个市场都可以"),
        Markets::MainlandChina => ("mainland China only", "仅中国大陆"),
        Markets::Elsewhere => ("outside mainland China only", "仅中国大陆以外"),
    };
    pick(lang, en, zh)
}

/// Where a round-trip time comes from.
pub fn rtt_basis(lang: Lang, b: RttBasis) -> &'static str {
    let (en, zh) = match b {
        RttBasis::Measured => ("measured", "实测"),
        RttBasis::Published => ("published measurement", "公开测量"),
        RttBasis::Distance => ("estimated from distance", "按距离估算"),
        RttBasis::Catalog => ("catalog figure", "方案表数字"),
    };
    pick(lang, en, zh)
}

/// The name of a link GPUs exchange data over.
pub fn link(lang: Lang, l: gpufare_core::hardware::links::Link) -> &'static str {
    use gpufare_core::hardware::links::Link;
    let (en, zh) = match l {
        Link::Nvlink2 => ("NVLink 2", "NVLink 2"),
        Link::Nvlink3 => ("NVLink 3 with NVSwitch", "NVLink 3 加 NVSwitch"),
        Link::Nvlink4 => ("NVLink 4 with NVSwitch", "NVLink 4 加 NVSwitch"),
        Link::NvlinkCut => ("NVLink cut to 400 GB/s", "限速到 400 GB/s 的 NVLink"),
        Link::NvlinkBridge => ("an NVLink bridge", "NVLink 桥"),
        Link::PcieP2p => ("PCIe peer-to-peer", "PCIe 点对点"),
        Link::PcieHost => ("PCIe through host memory", "经主机内存中转的 PCIe"),
        Link::NetworkRdma => ("the node network with RDMA", "支持 RDMA 的节点网络"),
        Link::NetworkTcp => ("the node network over TCP", "走 TCP 的节点网络"),
    };
    pick(lang, en, zh)
}

/// The name of what links the GPUs of a node, as an offer states it.
pub fn interconnect(lang: Lang, i: gpufare_core::hardware::links::Interconnect) -> &'static str {
    use gpufare_core::hardware::links::Interconnect;
    let (en, zh) = match i {
        Interconnect::Nvlink => ("NVLink", "NVLink"),
        Interconnect::Pcie => ("PCIe only", "仅 PCIe"),
        Interconnect::None => ("no link between GPUs", "显卡之间无直连"),
    };
    pick(lang, en, zh)
}

/// Where a request-level latency factor comes from.
pub fn latency_source(lang: Lang, s: LatencySource) -> &'static str {
    let (en, zh) = match s {
        LatencySource::Published => ("published measurement of the tail", "尾延迟的公开测量"),
        LatencySource::Assumed => ("assumed tail", "假设的尾延迟"),
        LatencySource::RunLevel => ("the run-level tail", "按运行级慢化的尾部"),
    };
    pick(lang, en, zh)
}

/// Where the neighbours' load an offer was priced with comes from.
pub fn load_source(lang: Lang, s: LoadSource) -> &'static str {
    t(
        lang,
        match s {
            LoadSource::Default => Label::LoadDefault,
            LoadSource::Offer => Label::LoadOffer,
            LoadSource::Task => Label::LoadTask,
            LoadSource::Measured => Label::LoadMeasured,
        },
    )
}

/// Where an offer's queue comes from; a measured trace is named with its starts.
pub fn queue_source(lang: Lang, s: QueueSource, trace: Option<&QueueTrace>) -> String {
    match (s, trace) {
        (QueueSource::None, _) => t(lang, Label::QueueNone).to_owned(),
        (QueueSource::Offer, _) => t(lang, Label::QueueFromOffer).to_owned(),
        (QueueSource::FromMean, _) => t(lang, Label::QueueFromMean).to_owned(),
        (QueueSource::PreemptionTrace, _) => t(lang, Label::QueueFromPreemption).to_owned(),
        (QueueSource::Trace, Some(q)) => match lang {
            Lang::En => format!("measured: {}, {} starts", q.name, q.starts),
            Lang::Zh => format!("实测：{}，{} 次启动", q.name, q.starts),
        },
        (QueueSource::Trace, None) => t(lang, Label::QueueFromTrace).to_owned(),
    }
}

/// A place's name.
pub fn place(lang: Lang, p: &Place) -> &str {
    match lang {
        Lang::En => &p.name_en,
        Lang::Zh => &p.name_zh,
    }
}

/// The name of a region class.
pub fn region_class(lang: Lang, c: RegionClass) -> &'static str {
    let (en, zh) = match c {
        RegionClass::Tier1 => ("tier-1 city", "一线城市节点"),
        RegionClass::Remote => ("remote region", "偏远地区节点"),
        RegionClass::Overseas => ("overseas", "海外"),
    };
    pick(lang, en, zh)
}

/// The name of a recommendation.
pub fn choice(lang: Lang, c: Choice) -> &'static str {
    let (en, zh) = match c {
        Choice::Shared => ("Shared compute", "共享算力"),
        Choice::Dedicated => ("Dedicated GPU", "独享显卡"),
        Choice::DedicatedOrPrivate => ("Dedicated or private deployment", "独享或私有化部署"),
        Choice::Hybrid => (
            "Hybrid: shared first, then dedicated",
            "混合：先共享，后独享",
        ),
        Choice::NoFeasibleOffer => ("No offer can run this task", "没有方案能运行该任务"),
    };
    pick(lang, en, zh)
}

/// The name of a hybrid phase.
pub fn phase(lang: Lang, p: PhaseKind) -> &'static str {
    let (en, zh) = match p {
        PhaseKind::Prototype => (
            "prototype and debug (shared, pay-as-you-go)",
            "原型与调试（共享，按量）",
        ),
        PhaseKind::Train => ("main work (dedicated)", "正式训练（独享）"),
        PhaseKind::Serve => ("serve (dedicated)", "推理服务（独享）"),
        PhaseKind::ColdStorage => ("cold data (object storage)", "冷数据归档（对象存储）"),
    };
    pick(lang, en, zh)
}

/// The badge text of a VRAM fit.
pub fn vram_fit(lang: Lang, f: VramFit) -> &'static str {
    let (en, zh) = match f {
        VramFit::Fits => ("fits", "够用"),
        VramFit::Tight => ("tight", "紧张"),
        VramFit::Oom => ("OOM", "显存不足"),
    };
    pick(lang, en, zh)
}

/// The mark of a price's evidence.
pub fn evidence(lang: Lang, e: PriceEvidence) -> &'static str {
    let (en, zh) = match e {
        PriceEvidence::Quote => ("quote", "报价"),
        PriceEvidence::Official => ("official", "官方"),
        PriceEvidence::Catalog => ("catalog", "目录"),
        PriceEvidence::Secondary => ("secondary", "二手报价"),
        PriceEvidence::Estimate => ("estimate", "估算"),
    };
    pick(lang, en, zh)
}

/// What a price's evidence means, for its mark's tooltip.
pub fn evidence_meaning(lang: Lang, e: PriceEvidence) -> &'static str {
    let (en, zh) = match e {
        PriceEvidence::Quote => ("a quote made to you", "给你的报价"),
        PriceEvidence::Official => (
            "the provider's own price page or price file",
            "服务商自己的价格页或价格文件",
        ),
        PriceEvidence::Catalog => (
            "a dated catalog built from providers' price APIs",
            "根据服务商价格接口整理的带日期目录",
        ),
        PriceEvidence::Secondary => ("a figure quoted by a third party", "第三方转述的价格"),
        PriceEvidence::Estimate => (
            "derived from a comparable price; no public figure",
            "由可比价格推算，没有公开数字",
        ),
    };
    pick(lang, en, zh)
}

/// A price's age with its unit: `187 days old` / `187 天前`.
pub fn price_age(lang: Lang, days: u32) -> String {
    match lang {
        Lang::En if days == 1 => "1 day old".to_owned(),
        Lang::En => format!("{days} days old"),
        Lang::Zh => format!("{days} 天前"),
    }
}

/// Why an age is marked: more than [`STALE_PRICE_DAYS`] days old.
pub fn stale_note(lang: Lang) -> String {
    match lang {
        Lang::En => format!("more than {STALE_PRICE_DAYS} days old: check the current price"),
        Lang::Zh => format!("超过 {STALE_PRICE_DAYS} 天：请核实当前价格"),
    }
}

/// Where a slowdown figure came from.
pub fn source(lang: Lang, s: SlowdownSource) -> &'static str {
    match s {
        SlowdownSource::Assumed => t(lang, Label::Assumed),
        SlowdownSource::Offer => pick(lang, "from the offer", "来自报价"),
        SlowdownSource::Measured => t(lang, Label::Measured),
    }
}

/// The name of a security control.
pub fn control(lang: Lang, c: SecurityControl) -> &'static str {
    let (en, zh) = match c {
        SecurityControl::Vpc => ("private network (VPC)", "独立 VPC"),
        SecurityControl::SecurityGroups => ("security groups", "安全组"),
        SecurityControl::EncryptedDisk => ("encrypted disks", "临时盘加密"),
        SecurityControl::CustomImageSsh => ("own image and SSH keys", "自定义镜像和 SSH 密钥"),
        SecurityControl::AuditLogs => ("audit logs", "审计日志"),
        SecurityControl::SnapshotPolicy => ("snapshot policy", "快照策略"),
        SecurityControl::VerifiedDeletion => ("verified deletion", "数据删除后不可恢复"),
        SecurityControl::PrivateDeployment => ("private deployment", "私有化部署"),
    };
    pick(lang, en, zh)
}

/// What a probe verdict is about.
pub fn verdict_kind(lang: Lang, k: VerdictKind) -> &'static str {
    let (en, zh) = match k {
        VerdictKind::NoGpu => ("GPU", "GPU"),
        VerdictKind::Slice => ("slice", "切分"),
        VerdictKind::NoisyNeighbour => ("neighbours", "邻居"),
        VerdictKind::PcieDegraded => ("PCIe link", "PCIe 链路"),
        VerdictKind::PowerCapped => ("power limit", "功耗上限"),
        VerdictKind::ThermalThrottling => ("temperature", "温度"),
        VerdictKind::MemoryErrors => ("memory errors", "显存错误"),
        VerdictKind::Jitter => ("jitter", "抖动"),
        VerdictKind::LowThroughput => ("throughput", "吞吐"),
        VerdictKind::Bottleneck => ("bottleneck", "瓶颈"),
    };
    pick(lang, en, zh)
}

/// A verdict's level.
pub fn verdict_level(lang: Lang, l: Level) -> &'static str {
    let (en, zh) = match l {
        Level::Ok => ("ok", "正常"),
        Level::Info => ("note", "提示"),
        Level::Warn => ("warning", "警告"),
        Level::Alert => ("alert", "严重"),
    };
    pick(lang, en, zh)
}

/// A verdict's finding in words.
pub fn finding(lang: Lang, f: Finding) -> &'static str {
    let (en, zh) = match f {
        Finding::NoGpu => ("no NVIDIA GPU or driver", "没有 NVIDIA GPU 或驱动"),
        Finding::WholeCard => ("a whole card", "整卡"),
        Finding::MemoryCapped => ("memory capped below the card's", "显存被限制在整卡以下"),
        Finding::MigSlice => ("a MIG slice", "MIG 切片"),
        Finding::Vgpu => ("a vGPU", "vGPU"),
        Finding::SharingLayer => ("a GPU-sharing layer is present", "存在 GPU 共享层"),
        Finding::CudaLevelLimit => ("limited at the CUDA level", "在 CUDA 层被限制"),
        Finding::UnknownModel => ("a model not in the spec table", "规格表中没有此型号"),
        Finding::MoreMemoryThanNominal => ("more memory than its data sheet", "显存多于标称"),
        Finding::Quiet => ("quiet", "无干扰"),
        Finding::ForeignProcesses => ("other processes on the GPU", "GPU 上有其他进程"),
        Finding::BusyWhileIdle => ("busy before our load", "我方负载前已在忙"),
        Finding::MemoryInUse => ("memory in use by others", "显存被他人占用"),
        Finding::NotSampled => ("not sampled", "未采样"),
        Finding::FullLink => ("full link", "全速链路"),
        Finding::NarrowLink => ("fewer lanes than the card's", "通道数少于卡的能力"),
        Finding::SlotBelowCard => ("slot older than the card", "插槽代际低于显卡"),
        Finding::SlowHostToDevice => ("slow host-to-device copies", "主机到显卡拷贝慢"),
        Finding::DefaultLimit => ("default limit", "默认上限"),
        Finding::LimitBelowDefault => ("limit below the default", "上限低于默认值"),
        Finding::CappingObserved => ("capping seen while sampling", "采样期间出现限功耗"),
        Finding::Cool => ("cool", "温度正常"),
        Finding::Hot => ("hot", "温度偏高"),
        Finding::ThermalSlowdown => ("slowed down by heat", "因过热降频"),
        Finding::Clean => ("clean", "无错误"),
        Finding::UncorrectedErrors => ("uncorrected errors", "存在不可纠正错误"),
        Finding::RetiredPages => ("retired pages", "存在退役页"),
        Finding::Steady => ("steady", "稳定"),
        Finding::StepTimeSpread => ("step times spread out", "单步耗时波动大"),
        Finding::NearNominal => ("near its nominal speed", "接近标称速度"),
        Finding::BelowHalfOfNominal => ("below half its nominal speed", "不到标称速度的一半"),
        Finding::InputsAdequate => ("disk, network and CPU keep up", "磁盘、网络与 CPU 跟得上"),
        Finding::GpuBound => ("the GPU", "GPU"),
        Finding::CpuBound => ("the CPU", "CPU"),
        Finding::DiskBound => ("the disk", "磁盘"),
        Finding::NetworkBound => ("the network", "网络"),
        Finding::GpuUnderused => ("the GPU waits", "GPU 在等待"),
        Finding::FewCpuCores => ("few CPU cores per GPU", "每卡 CPU 核数少"),
        Finding::SlowDisk => ("a slow disk", "磁盘慢"),
        Finding::SlowNetwork => ("a slow network", "网络慢"),
        Finding::Undetermined => ("undetermined", "无法判断"),
        Finding::GpuMostlyBusy => ("the GPU busy most of the time", "GPU 大部分时间在忙"),
        Finding::Unrecognised => (
            "a finding this version does not know",
            "本版本无法识别的结论",
        ),
    };
    pick(lang, en, zh)
}

/// The name of a billing granularity.
pub fn granularity_name(lang: Lang, g: Granularity) -> &'static str {
    match (lang, g) {
        (Lang::En, Granularity::Second) => "per second",
        (Lang::En, Granularity::Minute) => "per minute",
        (Lang::En, Granularity::Hour) => "per started hour",
        (Lang::Zh, Granularity::Second) => "按秒",
        (Lang::Zh, Granularity::Minute) => "按分钟",
        (Lang::Zh, Granularity::Hour) => "按小时（不足一小时按一小时）",
    }
}

/// The display name of a task preset.
pub fn preset_name(lang: Lang, id: &str) -> &'static str {
    let (en, zh) = match id {
        "course_project" => (
            "Course project / Kaggle starter",
            "课程项目 / Kaggle 入门赛",
        ),
        "sd_trial" => ("Stable Diffusion: try prompts", "Stable Diffusion 尝鲜"),
        "sd_batch" => (
            "Stable Diffusion: batch generation",
            "Stable Diffusion 批量出图",
        ),
        "sd_lora" => (
            "Stable Diffusion: LoRA training",
            "Stable Diffusion LoRA 训练",
        ),
        "qlora_7b" => ("7B model QLoRA fine-tune", "7B 模型 QLoRA 微调"),
        "full_finetune_multi_gpu" => (
            "Full fine-tune on 8 GPUs (DDP/FSDP)",
            "8 卡全参数微调（DDP/FSDP）",
        ),
        "inference_api" => ("Inference API with a P99 target", "有 P99 目标的推理 API"),
        "burst_rendering" => ("Burst rendering", "突发渲染"),
        "data_cleaning" => ("Data cleaning batch", "数据清洗批处理"),
        "code_check" => ("Does my code run?", "验证代码能否跑通"),
        _ => ("Custom", "自定义"),
    };
    pick(lang, en, zh)
}

/// A quick estimator method.
pub fn quick_method(lang: Lang, m: QuickMethod) -> &'static str {
    let (en, zh) = match m {
        QuickMethod::InferenceBf16 => ("serve, 16-bit weights", "推理，16 位权重"),
        QuickMethod::InferenceFp8 => ("serve, 8-bit FP8 weights", "推理，8 位 FP8 权重"),
        QuickMethod::InferenceInt4 => ("serve, 4-bit weights", "推理，4 位权重"),
        QuickMethod::Qlora => ("QLoRA fine-tune (rank 16)", "QLoRA 微调（秩 16）"),
        QuickMethod::Lora => ("LoRA fine-tune (rank 16)", "LoRA 微调（秩 16）"),
        QuickMethod::Full => ("full fine-tune (AdamW)", "全参数微调（AdamW）"),
    };
    pick(lang, en, zh)
}

/// The precision a served model's weights are stored and read in.
pub fn weight_precision(lang: Lang, p: Precision) -> &'static str {
    let (en, zh) = match p {
        Precision::Fp32 => ("32-bit (fp32)", "32 位（fp32）"),
        Precision::Bf16 => ("16-bit (bf16/fp16)", "16 位（bf16/fp16）"),
        Precision::Fp8 => ("8-bit float (fp8)", "8 位浮点（fp8）"),
        Precision::Int8 => ("8-bit integer (int8)", "8 位整数（int8）"),
        Precision::Int4 => ("4-bit integer (int4)", "4 位整数（int4）"),
        Precision::Nf4 => ("4-bit NormalFloat (nf4)", "4 位正态浮点（nf4）"),
    };
    pick(lang, en, zh)
}

/// A KV cache precision.
pub fn kv_precision(lang: Lang, kv: KvPrecision) -> &'static str {
    let (en, zh) = match kv {
        KvPrecision::Fp16 => ("16-bit (fp16/bf16)", "16 位（fp16/bf16）"),
        KvPrecision::Fp8 => ("8-bit (fp8)", "8 位（fp8）"),
        KvPrecision::Int4 => ("4-bit (q4_0)", "4 位（q4_0）"),
    };
    pick(lang, en, zh)
}

/// Where LoRA adapters go.
pub fn lora_targets(lang: Lang, targets: LoraTargets) -> &'static str {
    let (en, zh) = match targets {
        LoraTargets::All => (
            "every linear layer (attention and MLP, every expert)",
            "所有线性层（注意力与前馈层，含每个专家）",
        ),
        LoraTargets::Attention => ("attention only", "仅注意力层"),
        LoraTargets::Mlp => ("MLP only (every expert)", "仅前馈层（含每个专家）"),
        LoraTargets::Qv => ("q and v projections only", "仅 q、v 投影"),
    };
    pick(lang, en, zh)
}

/// A parameter count in billions, e.g. `46.7 B`.
fn billions(x: f64) -> String {
    format!("{:.1} B", x / 1e9)
}

/// A model's parameters: the total and, for a mixture of experts, those active per token.
pub fn parameter_count(lang: Lang, total: f64, active: f64) -> String {
    match (lang, active < total) {
        (Lang::En, false) => format!("{} parameters", billions(total)),
        (Lang::En, true) => format!(
            "{} parameters, {} active per token",
            billions(total),
            billions(active)
        ),
        (Lang::Zh, false) => format!("参数 {}", billions(total)),
        (Lang::Zh, true) => format!(
            "参数 {}，每个 token 激活 {}",
            billions(total),
            billions(active)
        ),
    }
}

/// What sets an architecture apart, worded: experts, latent attention, sliding windows, tied
/// embeddings; empty for a plain dense model.
pub fn arch_features(lang: Lang, a: &LlmArch) -> String {
    let mut parts: Vec<String> = vec![];
    if let Some(m) = &a.moe {
        let shared = match (lang, m.shared_experts) {
            (_, 0) => String::new(),
            (Lang::En, n) => format!(" + {n} shared"),
            (Lang::Zh, n) => format!(" + {n} 个共享专家"),
        };
        let dense = match (lang, m.dense_layers) {
            (_, 0) => String::new(),
            (Lang::En, n) => format!("; first {n} layers dense"),
            (Lang::Zh, n) => format!("；前 {n} 层为稠密层"),
        };
        parts.push(match lang {
            Lang::En => format!(
                "mixture of experts: {} of {} experts per token{shared}, all held in memory{dense}",
                m.experts_per_token, m.experts
            ),
            Lang::Zh => format!(
                "混合专家：每个 token 经过 {} / {} 个专家{shared}，全部专家常驻显存{dense}",
                m.experts_per_token, m.experts
            ),
        });
    }
    if let Some(m) = &a.mla {
        parts.push(match lang {
            Lang::En => format!(
                "latent attention (MLA): caches {} + {} values per layer and token",
                m.kv_lora_rank, m.qk_rope_head_dim
            ),
            Lang::Zh => format!(
                "多头潜在注意力：每层每个 token 缓存 {} + {} 个值",
                m.kv_lora_rank, m.qk_rope_head_dim
            ),
        });
    }
    if let Some(w) = &a.sliding_window {
        let local = a.layers - w.global_layers(a.layers);
        parts.push(match lang {
            Lang::En => format!(
                "sliding window of {} tokens on {local} of {} layers",
                w.window, a.layers
            ),
            Lang::Zh => format!(
                "滑动窗口 {} token，{} 层中 {local} 层为局部注意力",
                w.window, a.layers
            ),
        });
    }
    if a.tied_embeddings {
        parts.push(pick(lang, "tied embeddings", "输入输出嵌入共享").to_owned());
    }
    parts.join(pick(lang, "; ", "；"))
}

/// A part of the VRAM breakdown (the keys of `Breakdown::components`).
pub fn memory_part(lang: Lang, key: &str) -> &'static str {
    let (en, zh) = match key {
        "weights" => ("weights", "权重"),
        "gradients" => ("gradients", "梯度"),
        "optimizer" => ("optimizer state", "优化器状态"),
        "activations" => ("activations", "激活值"),
        "kv_cache" => ("KV cache", "KV 缓存"),
        "overhead" => ("CUDA context and buffers", "CUDA 上下文与缓冲区"),
        _ => ("other", "其他"),
    };
    pick(lang, en, zh)
}

/// An assumption of the plan, worded: its name, its value and where it comes from. Ids this site
/// does not know are shown as they are.
pub fn assumption(lang: Lang, a: &Assumption) -> (String, String, String) {
    let words = |name: Label, source: Label| {
        (
            t(lang, name).to_owned(),
            a.value.clone(),
            t(lang, source).to_owned(),
        )
    };
    match a.id.as_str() {
        "hours_per_month" => words(
            Label::AssumptionHoursPerMonth,
            Label::AssumptionHoursPerMonthSource,
        ),
        "cny_per_usd" => words(Label::AssumptionRate, Label::AssumptionRateSource),
        "multi_gpu_efficiency" => words(Label::AssumptionMultiGpu, Label::AssumptionMultiGpuSource),
        "multi_gpu_links" => (
            pick(lang, "Multi-GPU exchange", "多卡通信").to_owned(),
            match lang {
                Lang::En => format!("{} of the backward pass hides each step's BF16 exchange", a.value),
                Lang::Zh => format!("反向传播的 {} 可以掩盖每步的 BF16 通信", a.value),
            },
            pick(
                lang,
                "all-reduce bus bandwidths of public nccl-tests runs per link (NVLink, PCIe, node network); no overlap unless the task gives one, as published DDP runs with and without NVLink show",
                "按链路（显卡直连、PCIe、节点网络）取公开测得的全归约总线带宽；除非任务给出，否则不假设通信被掩盖（公开的有无显卡直连的数据并行对比实测如此）",
            )
            .to_owned(),
        ),
        // Core's values for these two are prose; they are worded here instead.
        "interruption_rate" => (
            t(lang, Label::AssumptionInterruption).to_owned(),
            t(lang, Label::AssumptionInterruptionValue).to_owned(),
            t(lang, Label::AssumptionInterruptionSource).to_owned(),
        ),
        "capacity_gap" => {
            let g = TRACE_POOLED_GAP_HOURS;
            let pooled = match lang {
                Lang::En => format!(" (spot rows: {g} h pooled from the same traces)"),
                Lang::Zh => format!("（竞价实例行：同样这些轨迹汇总得出的 {g} 小时）"),
            };
            (
                t(lang, Label::AssumptionGap).to_owned(),
                t(lang, Label::AssumptionGapValue).to_owned(),
                format!("{}{pooled}", t(lang, Label::AssumptionGapSource)),
            )
        }
        "cold_storage_per_gb_month" => words(
            Label::AssumptionColdStorage,
            Label::AssumptionColdStorageSource,
        ),
        "neighbour_load" => (
            pick(lang, "Neighbours' load", "邻居负载").to_owned(),
            pick(
                lang,
                "1 (always busy) unless measured or given",
                "1（邻居一直在忙），除非有实测或给定的值",
            )
            .to_owned(),
            pick(
                lang,
                "work-conserving sharing fitted to Tally's 12 A100 pairs (ASPLOS 2025); a probe profile's GPU utilisation before our load measures it",
                "按 2025 年一篇公开论文在 A100 上测得的 12 组任务配对拟合的“用剩归你”式共享；探针档案里我们加负载之前的 GPU 利用率就是它的实测值",
            )
            .to_owned(),
        ),
        id if id.starts_with("queue.") => {
            let shapes: Vec<String> = id
                .trim_start_matches("queue.")
                .split('+')
                .filter_map(PoolKind::from_id)
                .map(|kind| {
                    let what = match kind {
                        PoolKind::Fractional => pick(lang, "part of one GPU", "单卡的一部分"),
                        PoolKind::Whole => pick(lang, "one whole GPU", "一整张卡"),
                        PoolKind::Multi => pick(lang, "several GPUs", "多张卡"),
                    };
                    let (p0, median, sigma) = kind.default_queue();
                    let secs = median * 3600.0;
                    match lang {
                        Lang::En => format!(
                            "{what}: {p0} at once, else median {secs:.0} s, σ {sigma}"
                        ),
                        Lang::Zh => format!(
                            "{what}：{p0} 立即开始，其余中位数 {secs:.0} 秒，σ {sigma}"
                        ),
                    }
                })
                .collect();
            (
                pick(lang, "Queue shapes (log-normal)", "排队形态（对数正态）").to_owned(),
                shapes.join(pick(lang, "; ", "；")),
                pick(
                    lang,
                    "fitted to the waits of Alibaba's 2023 GPU-sharing cluster (alibaba/clusterdata, openb); spreads a row's mean wait; a queue trace replaces it",
                    "按阿里巴巴公开的 2023 年 GPU 共享集群轨迹中的等待时间拟合；用来展开目录行给出的平均等待；附上排队轨迹后以轨迹为准",
                )
                .to_owned(),
            )
        }
        id => match id.strip_prefix("slowdown.").and_then(Tenancy::from_id) {
            Some(tenancy) => {
                let s = tenancy.default_slowdown();
                (
                    format!(
                        "{} {}",
                        t(lang, Label::AssumptionSlowdown),
                        self::tenancy(lang, tenancy)
                    ),
                    format!(
                        "{} ×{:.2}, P99 ×{:.2}",
                        t(lang, Label::Median),
                        s.median,
                        s.p99
                    ),
                    t(lang, Label::AssumptionSlowdownSource).to_owned(),
                )
            }
            None => (id.to_owned(), a.value.clone(), a.source.clone()),
        },
    }
}

/// A policy for interruptible capacity, in a few words.
pub fn policy(lang: Lang, p: &Policy) -> String {
    match (lang, p) {
        (Lang::En, Policy::SpotOnly) => "stay on the offer".to_owned(),
        (Lang::En, Policy::FallbackAfter { preemptions: 1 }) => {
            "move to on-demand at the first preemption".to_owned()
        }
        (Lang::En, Policy::FallbackAfter { preemptions }) => {
            format!("move to on-demand after {preemptions} preemptions")
        }
        (Lang::En, Policy::DeadlineAware) => "deadline-aware".to_owned(),
        (Lang::En, Policy::OnDemandOnly) => "on-demand only".to_owned(),
        (Lang::Zh, Policy::SpotOnly) => "始终留在该方案上".to_owned(),
        (Lang::Zh, Policy::FallbackAfter { preemptions }) => {
            format!("被抢占 {preemptions} 次后改用按需")
        }
        (Lang::Zh, Policy::DeadlineAware) => "截止时间感知".to_owned(),
        (Lang::Zh, Policy::OnDemandOnly) => "全程按需".to_owned(),
    }
}

/// How an offer gave its interruption rate.
pub fn rate_form(lang: Lang, f: RateForm) -> &'static str {
    t(
        lang,
        match f {
            RateForm::PerHour => Label::FormPerHour,
            RateForm::Mtbi => Label::FormMtbi,
            RateForm::PerMonth => Label::FormPerMonth,
        },
    )
}

/// The name of the encoding a file was read in (the byte-order mark worded in the language).
pub fn encoding(lang: Lang, e: TextEncoding) -> &'static str {
    match e {
        TextEncoding::Utf8Bom => pick(lang, "UTF-8 with BOM", "UTF-8（带 BOM）"),
        other => other.name(),
    }
}

/// What an import report adds about the encoding read: ` (read as GB18030)`, `（编码：GB18030）`.
pub fn read_as(lang: Lang, e: TextEncoding) -> String {
    match lang {
        Lang::En => format!(" (read as {})", encoding(lang, e)),
        Lang::Zh => format!("（编码：{}）", encoding(lang, e)),
    }
}

/// The name of a way to deploy a service.
pub fn deployment_kind(
    lang: Lang,
    k: gpufare_core::serving::deploy::DeploymentKind,
) -> &'static str {
    use gpufare_core::serving::deploy::DeploymentKind;
    let (en, zh) = match k {
        DeploymentKind::FixedFleet => ("fixed fleet for the peak", "按峰值固定部署"),
        DeploymentKind::Autoscaling => ("autoscaling, pay-as-you-go", "按量付费、随流量扩缩"),
        DeploymentKind::ReservedBase => (
            "committed base with pay-as-you-go bursts",
            "包期保底加按量弹性",
        ),
        DeploymentKind::SharedPool => (
            "shared pool, billed per busy GPU-hour",
            "共享资源池，按忙碌的 GPU 小时计费",
        ),
    };
    pick(lang, en, zh)
}

/// The name of a traffic shape: a preset of `gpufare_core::task::traffic`, or a curve of the
/// user's own (any other name).
pub fn traffic_shape(lang: Lang, id: &str) -> &'static str {
    let (en, zh) = match id {
        "steady_api" => ("steady API", "平稳的接口流量"),
        "office_hours" => ("office hours", "工作时间高峰"),
        "bursty_demo" => ("bursty demo", "突发的演示流量"),
        _ => ("a curve of your own", "自定义曲线"),
    };
    pick(lang, en, zh)
}
