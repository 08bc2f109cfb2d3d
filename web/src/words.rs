//! The site's vocabulary in both languages: labels (`t`), names of the model's enums, and the
//! decision's reasons worded from their rule ids and parameters.

use gpufare_core::offers::billing::BillingMode;
use gpufare_core::offers::offer::{RegionClass, SecurityControl};
use gpufare_core::offers::tenancy::{SlowdownSource, Tenancy};
use gpufare_core::plan::decision::Choice;
use gpufare_core::plan::feasibility::VramFit;
use gpufare_core::plan::hybrid::PhaseKind;
use gpufare_core::plan::reason::{Reason, RuleId};
use gpufare_core::profile::verdict::{Level, VerdictKind};
use gpufare_core::task::document::{Sensitivity, TaskKind};

use crate::i18n::Lang;

/// Every label key with its English and Chinese text.
const LABELS: &[(&str, &str, &str)] = &[
    ("task", "Task", "任务"),
    ("preset", "Start from a scenario", "从典型场景开始"),
    (
        "preset_hint",
        "Figures are typical values; edit them to match your job.",
        "数值为典型值，请按你的任务修改。",
    ),
    ("kind", "Kind of work", "任务类型"),
    (
        "work_hours",
        "Work per run (hours on the reference GPU)",
        "每次运行的工作量（参考 GPU 上的小时数）",
    ),
    ("reference_gpu", "Reference GPU", "参考 GPU"),
    ("bound", "Limited by", "性能瓶颈"),
    (
        "bound_compute",
        "compute (training, images)",
        "算力（训练、出图）",
    ),
    (
        "bound_memory",
        "memory bandwidth (LLM decoding)",
        "显存带宽（大模型解码）",
    ),
    ("runs", "Runs (tuning rounds)", "运行次数（调参轮数）"),
    ("vram", "VRAM needed per GPU (GiB)", "每卡所需显存（GiB）"),
    ("gpus", "GPUs needed", "所需 GPU 数"),
    (
        "scales",
        "Work spreads over every GPU (DDP/FSDP)",
        "工作可分布到所有 GPU（DDP/FSDP）",
    ),
    (
        "deadline",
        "Deadline (hours from now, empty for none)",
        "截止时间（从现在起的小时数，留空表示没有）",
    ),
    (
        "penalty",
        "Cost of missing the deadline",
        "错过截止时间的损失",
    ),
    (
        "hard_deadline",
        "Hard deadline: exclude offers whose P90 misses it",
        "硬性截止：排除 P90 完成时间超期的方案",
    ),
    (
        "latency_target",
        "P99 latency target (ms, inference)",
        "P99 延迟目标（毫秒，推理）",
    ),
    (
        "latency_base",
        "Latency on a dedicated reference GPU (ms)",
        "在独享参考 GPU 上的延迟（毫秒）",
    ),
    ("service_hours", "Service hours per month", "每月服务小时数"),
    ("service_months", "Service months", "服务月数"),
    ("sensitivity", "Data sensitivity", "数据敏感度"),
    (
        "interruptible",
        "The job can be interrupted (spot allowed)",
        "任务可以被中断（允许竞价实例）",
    ),
    (
        "checkpoint",
        "Checkpoint every (hours of work, empty for none)",
        "检查点间隔（工作小时数，留空表示没有）",
    ),
    (
        "restart",
        "Restart overhead per interruption (hours)",
        "每次中断的重启开销（小时）",
    ),
    (
        "max_queue",
        "Longest acceptable queue wait (hours, empty for any)",
        "可接受的最长排队时间（小时，留空表示不限）",
    ),
    (
        "value_of_time",
        "Value of one hour of waiting",
        "每小时等待的价值",
    ),
    ("budget", "Budget (empty for none)", "预算（留空表示没有）"),
    (
        "prototype",
        "Prototype hours on shared capacity first (empty for none)",
        "先在共享算力上做原型的小时数（留空表示没有）",
    ),
    (
        "storage_gb",
        "Data kept on the provider (GB)",
        "存放在平台上的数据（GB）",
    ),
    ("storage_months", "Months the data is kept", "数据保存月数"),
    (
        "egress_gb",
        "Data downloaded out (GB)",
        "下载出平台的数据（GB）",
    ),
    (
        "data_read_gb",
        "Data read from disk per run (GB; used with a measured disk rate; empty for none)",
        "每次运行从磁盘读取的数据（GB；配合实测磁盘速率；留空表示不计）",
    ),
    (
        "data_download_gb",
        "Data downloaded before each run (GB; used with a measured download rate; empty for none)",
        "每次运行前需下载的数据（GB；配合实测下载速率；留空表示不计）",
    ),
    ("io_measured", "IO (measured)", "IO（实测）"),
    ("settings", "Currency and assumptions", "币种与假设"),
    ("currency", "Show money in", "金额币种"),
    (
        "rate",
        "Exchange rate (CNY per USD, assumption)",
        "汇率（每美元兑人民币，假设值）",
    ),
    ("seed", "Monte Carlo seed", "蒙特卡洛随机种子"),
    (
        "trials",
        "Monte Carlo trials per offer",
        "每个方案的蒙特卡洛试验次数",
    ),
    ("results", "Recommendation", "推荐"),
    ("ranking", "Ranked options", "方案排名"),
    ("infeasible", "Cannot run this task", "无法运行该任务的方案"),
    ("rank", "#", "#"),
    ("offer", "Offer", "方案"),
    ("total", "Expected total", "期望总成本"),
    ("total_p90", "P90 total", "P90 总成本"),
    ("hours_col", "Time (expected / P90)", "耗时（期望 / P90）"),
    ("vram_col", "VRAM", "显存"),
    ("breakdown", "What the total is made of", "总成本构成"),
    ("rent", "Rent", "租金"),
    ("storage", "Storage", "存储"),
    ("egress", "Egress", "流量"),
    ("time_cost", "Waiting time", "时间成本"),
    ("risk_cost", "Deadline risk", "截止风险"),
    (
        "time_distribution",
        "Completion time (P50–P90, expected ◆)",
        "完成时间（P50–P90，◆ 为期望）",
    ),
    (
        "hybrid",
        "Hybrid plan, phase by phase",
        "混合方案（分阶段）",
    ),
    ("phase", "Phase", "阶段"),
    ("cost", "Cost", "成本"),
    ("break_even", "Break-even", "盈亏平衡"),
    (
        "monthly_vs_payg",
        "Monthly beats pay-as-you-go above",
        "包月比按量更划算的用量",
    ),
    (
        "yearly_vs_monthly",
        "Yearly beats monthly above",
        "包年比包月更划算的时长",
    ),
    (
        "dedicated_vs_shared",
        "Dedicated beats shared from a work size of",
        "独享比共享更划算的工作量",
    ),
    ("hours_per_month", "hours per month", "小时/月"),
    ("months_per_year", "months per year", "个月/年"),
    (
        "never_in_range",
        "not within 64× this task",
        "在本任务 64 倍工作量以内不会出现",
    ),
    ("always", "any size", "任何工作量"),
    ("security", "Security checklist", "安全检查清单"),
    (
        "security_none",
        "Public data: no controls required.",
        "公开数据：无强制安全要求。",
    ),
    (
        "assumptions",
        "Assumptions behind these numbers",
        "这些数字背后的假设",
    ),
    ("offers", "Offers", "可选方案"),
    (
        "offers_hint",
        "Prices are dated snapshots; edit any price, add your own quotes.",
        "价格为带日期的快照；可修改任意价格或添加你自己的报价。",
    ),
    ("filter_text", "Search", "搜索"),
    ("filter_kind", "Sharing", "共享方式"),
    ("all", "all", "全部"),
    ("shared", "shared", "共享"),
    ("dedicated", "dedicated", "独享"),
    ("billing", "Billing", "计费方式"),
    ("region", "Region", "地域"),
    ("provider", "Provider", "服务商"),
    ("gpu", "GPU", "GPU"),
    ("tenancy", "Sharing", "共享方式"),
    ("price", "Price", "价格"),
    ("as_of", "Price date", "价格日期"),
    ("estimate", "estimate", "估算"),
    ("shown", "offers shown", "个方案"),
    (
        "discount",
        "Provider discount (0.85 = 15 % off)",
        "服务商折扣（0.85 即八五折）",
    ),
    ("add_offer", "Add your own quote", "添加自己的报价"),
    ("add", "Add", "添加"),
    ("remove", "Remove", "删除"),
    ("reset", "Reset", "重置"),
    ("share", "Copy share link", "复制分享链接"),
    ("share_copied", "Link copied", "链接已复制"),
    (
        "share_hint",
        "The link holds the whole scenario; it is never sent to a server.",
        "链接包含完整场景，不会发送到任何服务器。",
    ),
    (
        "link_bad",
        "The share link could not be read; showing the default scenario.",
        "无法读取分享链接，已显示默认场景。",
    ),
    (
        "plan_error",
        "The plan could not be computed",
        "无法计算方案",
    ),
    ("per_hour", "/h", "/小时"),
    ("per_day", "/day", "/天"),
    ("per_week", "/week", "/周"),
    ("per_month", "/month", "/月"),
    ("per_year", "/year", "/年"),
    ("upfront", "upfront", "预付"),
    ("none", "—", "—"),
    ("measured", "measured", "实测"),
    ("assumed", "assumed", "假设"),
    ("flags", "Warnings", "提示"),
    ("recommended", "Recommended offer", "推荐方案"),
    (
        "miss_prob",
        "Deadline miss probability",
        "错过截止时间的概率",
    ),
    ("quick_rent", "Quick rent check", "快速租金计算"),
    ("yes", "yes", "是"),
    ("no", "no", "否"),
    ("has", "offered", "已提供"),
    ("lacks", "missing", "缺失"),
    ("sort_by", "Sort by", "排序"),
    ("sort_price", "price per GPU-hour", "每 GPU 小时价格"),
    ("sort_provider", "provider", "服务商"),
    ("sort_vram", "VRAM", "显存"),
    ("sort_date", "price date", "价格日期"),
    ("export", "Export the budget", "导出预算"),
    ("print", "Print", "打印"),
    (
        "chunk_failed",
        "This part of the site could not be loaded. Check the connection and try again.",
        "网站的这一部分未能加载。请检查网络连接后重试。",
    ),
    (
        "estimator",
        "Estimate VRAM and work from a model",
        "根据模型估算显存和工作量",
    ),
    ("est_model", "Model", "模型"),
    ("est_method", "Method", "方式"),
    (
        "est_tokens",
        "Context / sequence length (tokens)",
        "上下文 / 序列长度（token）",
    ),
    (
        "est_batch",
        "Concurrent requests / micro-batch",
        "并发请求数 / 微批大小",
    ),
    ("est_train_tokens", "Tokens to train on", "训练 token 数"),
    ("est_vram", "of VRAM per GPU", "每卡显存"),
    (
        "est_apply",
        "Use these figures in the task",
        "将这些数值用于任务",
    ),
    ("print_top", "Options on paper:", "纸面列出的方案："),
    (
        "print_rest",
        "the CSV and JSON exports list them all.",
        "CSV 与 JSON 导出包含全部方案。",
    ),
    ("compare", "Machines side by side", "机器对比"),
    (
        "gpu_vram",
        "GPU and memory (visible / nominal)",
        "GPU 与显存（可见 / 标称）",
    ),
    ("pcie_link", "PCIe link", "PCIe 链路"),
    ("disk", "Disk", "磁盘"),
    ("network", "Network", "网络"),
    ("not_measured", "not measured", "未测量"),
    (
        "util_spread",
        "GPU utilisation before our load (box P50–P95, red tick P99)",
        "我方负载前的 GPU 利用率（方框 P50–P95，红线 P99）",
    ),
    ("machine", "Machine", "机器"),
    ("verdicts", "Verdicts and evidence", "结论与证据"),
    (
        "use_measured",
        "Use its measured figures in the plan",
        "在方案中使用实测数据",
    ),
    (
        "no_benchmark",
        "nothing to apply: no GPU benchmark, disk or network test for a known GPU",
        "无可应用的数据：没有已知 GPU 的基准、磁盘或网络测试",
    ),
    (
        "duplicate_profile",
        "this profile is already loaded",
        "该画像已加载",
    ),
    (
        "step_spread",
        "GEMM step time spread (box P50–P95, red tick P99)",
        "GEMM 单步耗时分布（方框 P50–P95，红线 P99）",
    ),
    (
        "import_catalog",
        "Import a catalog: our CSV or JSON, or a SkyPilot vms.csv",
        "导入价格表：本工具的 CSV 或 JSON，或 SkyPilot vms.csv",
    ),
    ("imported_offers", "offers imported", "个方案已导入"),
    (
        "id_taken",
        "an offer with this id already exists; skipped",
        "已有同 id 的方案，已跳过",
    ),
    (
        "export_catalog_csv",
        "Download the catalog (CSV)",
        "下载价格表（CSV）",
    ),
    (
        "export_catalog_json",
        "Download the catalog (JSON)",
        "下载价格表（JSON）",
    ),
];

/// The label for `key` in `lang` (the key itself if unknown, which a test forbids).
pub fn t(lang: Lang, key: &str) -> &'static str {
    match LABELS.iter().find(|(k, _, _)| *k == key) {
        Some((_, en, zh)) => match lang {
            Lang::En => en,
            Lang::Zh => zh,
        },
        None => "??",
    }
}

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

/// Every task kind in display order.
pub const KINDS: [TaskKind; 10] = [
    TaskKind::Training,
    TaskKind::FineTuneFull,
    TaskKind::FineTuneLora,
    TaskKind::FineTuneQlora,
    TaskKind::Inference,
    TaskKind::ImageGeneration,
    TaskKind::SdLoraTraining,
    TaskKind::Rendering,
    TaskKind::Batch,
    TaskKind::CodeCheck,
];

/// Every sensitivity level, least first.
pub const SENSITIVITIES: [Sensitivity; 4] = [
    Sensitivity::Public,
    Sensitivity::Internal,
    Sensitivity::Confidential,
    Sensitivity::InHouse,
];

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
            BillingMode::PayAsYouGo | BillingMode::Spot => "per_hour",
            BillingMode::Daily => "per_day",
            BillingMode::Weekly => "per_week",
            BillingMode::Monthly | BillingMode::Reserved => "per_month",
            BillingMode::Yearly => "per_year",
        },
    )
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

/// Where a slowdown figure came from.
pub fn source(lang: Lang, s: SlowdownSource) -> &'static str {
    match s {
        SlowdownSource::Assumed => t(lang, "assumed"),
        SlowdownSource::Offer => pick(lang, "from the offer", "来自报价"),
        SlowdownSource::Measured => t(lang, "measured"),
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

/// A reason in words, with its parameters filled in.
pub fn reason(lang: Lang, r: &Reason) -> String {
    if lang == Lang::En {
        return r.english();
    }
    let p = |k: &str| r.params.get(k).cloned().unwrap_or_default();
    match r.rule {
        RuleId::VramOom => format!(
            "需要 {} GiB 显存，但该方案只有 {} GiB",
            p("need_gib"),
            p("visible_gib")
        ),
        RuleId::TooFewGpus => format!("需要 {} 张 GPU，该方案只有 {} 张", p("need"), p("have")),
        RuleId::SlicesCannotCombine => "GPU 切片无法组合成一个多卡任务".to_owned(),
        RuleId::SensitivityRequiresDedicated => "数据不能出企业边界：排除共享算力".to_owned(),
        RuleId::SensitivityExcludesTenancy => format!("机密数据：排除 {}", p("tenancy")),
        RuleId::DeadlineP90Missed => format!(
            "P90 完成时间 {} 小时，超过 {} 小时的截止时间",
            p("p90_hours"),
            p("deadline_hours")
        ),
        RuleId::LatencySloMissed => {
            format!(
                "P99 延迟 {} 毫秒（含 {} 毫秒网络往返），超过 {} 毫秒的目标",
                p("p99_ms"),
                p("rtt_ms"),
                p("target_ms")
            )
        }
        RuleId::InterruptionsNotTolerated => "任务不能被中断，而这是竞价实例".to_owned(),
        RuleId::NeverFinishes => "中断比工作完成得更快；请加检查点".to_owned(),
        RuleId::QueueTooLong => format!(
            "预计排队 {} 小时，超过可接受的 {} 小时",
            p("queue_hours"),
            p("max_hours")
        ),
        RuleId::UnknownGpu => format!("GPU {} 不在规格表中", p("gpu")),
        RuleId::VramTight => format!("显存余量很小：{} / {} GiB", p("need_gib"), p("visible_gib")),
        RuleId::OomRiskNoIsolation => "时间片共享没有显存隔离：邻居可能导致 OOM".to_owned(),
        RuleId::MissingSecurityControls => format!("缺少安全措施：{}", p("missing")),
        RuleId::PriceIsEstimate => format!("价格为估算（{}）", p("note")),
        RuleId::OverBudget => format!("期望总成本 {} 超出预算 {}", p("total"), p("budget")),
        RuleId::RemoteRegionLatency => {
            format!("{} 地域增加约 {} 毫秒往返延迟", p("class"), p("rtt_ms"))
        }
        RuleId::DiskBound => format!(
            "磁盘拖慢每次运行：按实测 {} MB/s 读完数据需 {} 小时，GPU 计算只需 {} 小时",
            p("mb_per_s"),
            p("read_hours"),
            p("compute_hours")
        ),
        RuleId::LongRepeatedTuning => format!(
            "运行 {} 次、每次 {} 小时：稳定的独享显卡更划算",
            p("runs"),
            p("work_hours")
        ),
        RuleId::HardDeadline => format!("{} 小时的截止时间：优先独享", p("deadline_hours")),
        RuleId::CodeCheckSharedFirst => "只是验证代码能否跑通：先用便宜的共享算力".to_owned(),
        RuleId::DataInHouse => "数据不能出企业边界：使用独享机器或私有化部署".to_owned(),
        RuleId::TightBudgetCanQueue => format!("预算 {} 很紧且可以排队：选择共享算力", p("budget")),
        RuleId::ProductionInferenceLatency => {
            format!(
                "有 {} 毫秒 P99 目标的生产推理：独享或预留实例并配自动扩缩容",
                p("target_ms")
            )
        }
        RuleId::MultiGpuDedicated => format!("{} 卡训练需要整机独享", p("gpus")),
        RuleId::VramBeyondSlices => format!("{} GiB 超出 8–16 GB 共享切片的能力", p("need_gib")),
        RuleId::CheapestTotal => format!("{} 的期望总成本最低：{}", p("offer"), p("total")),
        RuleId::PreferenceWithinMargin => {
            format!(
                "{} 最多只贵 {}%，因此按规则优先选择{}",
                p("offer"),
                p("margin_pct"),
                choice_word(&p("choice"))
            )
        }
        RuleId::PreferenceOutweighed => {
            format!(
                "规则倾向{}，但其最佳方案要贵 {}%",
                choice_word(&p("choice")),
                p("extra_pct")
            )
        }
        RuleId::NoFeasibleOffer => format!("{} 个方案都无法运行该任务，原因见下", p("offers")),
        RuleId::PremiumOverCheapest => {
            let risk = match (r.params.get("miss_pct"), r.params.get("cheapest_miss_pct")) {
                (Some(a), Some(b)) => format!("，错过截止时间的概率 {a}% 对 {b}%"),
                _ => String::new(),
            };
            format!(
                "{} 比最便宜的 {} 贵 {}（{}%）；换来的是：P90 耗时 {} 小时对 {} 小时，P90 总成本 {} 对 {}{risk}（规则：{}）",
                p("offer"),
                p("cheapest"),
                p("extra"),
                p("extra_pct"),
                p("p90_hours"),
                p("cheapest_p90_hours"),
                p("p90_total"),
                p("cheapest_p90_total"),
                p("rule")
            )
        }
        RuleId::HybridPhases => "先在共享算力上按量做原型，再在独享显卡上完成正式工作".to_owned(),
    }
}

fn choice_word(id: &str) -> &'static str {
    match id {
        "shared" => "共享算力",
        _ => "独享显卡",
    }
}

fn pick(lang: Lang, en: &'static str, zh: &'static str) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
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

/// A verdict's finding in words; unknown identifiers (from a newer probe) are shown as they are.
pub fn finding(lang: Lang, id: &str) -> String {
    const FINDINGS: &[(&str, &str, &str)] = &[
        (
            "no_gpu",
            "no NVIDIA GPU or driver",
            "没有 NVIDIA GPU 或驱动",
        ),
        ("whole_card", "a whole card", "整卡"),
        (
            "memory_capped",
            "memory capped below the card's",
            "显存被限制在整卡以下",
        ),
        ("mig_slice", "a MIG slice", "MIG 切片"),
        ("vgpu", "a vGPU", "vGPU"),
        (
            "sharing_layer",
            "a GPU-sharing layer is present",
            "存在 GPU 共享层",
        ),
        (
            "cuda_level_limit",
            "limited at the CUDA level",
            "在 CUDA 层被限制",
        ),
        (
            "unknown_model",
            "a model not in the spec table",
            "规格表中没有此型号",
        ),
        (
            "more_memory_than_nominal",
            "more memory than its data sheet",
            "显存多于标称",
        ),
        ("quiet", "quiet", "无干扰"),
        (
            "foreign_processes",
            "other processes on the GPU",
            "GPU 上有其他进程",
        ),
        (
            "busy_while_idle",
            "busy before our load",
            "我方负载前已在忙",
        ),
        ("memory_in_use", "memory in use by others", "显存被他人占用"),
        ("not_sampled", "not sampled", "未采样"),
        ("full_link", "full link", "全速链路"),
        (
            "narrow_link",
            "fewer lanes than the card's",
            "通道数少于卡的能力",
        ),
        (
            "slot_below_card",
            "slot older than the card",
            "插槽代际低于显卡",
        ),
        (
            "slow_host_to_device",
            "slow host-to-device copies",
            "主机到显卡拷贝慢",
        ),
        ("default_limit", "default limit", "默认上限"),
        (
            "limit_below_default",
            "limit below the default",
            "上限低于默认值",
        ),
        (
            "capping_observed",
            "capping seen while sampling",
            "采样期间出现限功耗",
        ),
        ("cool", "cool", "温度正常"),
        ("hot", "hot", "温度偏高"),
        ("thermal_slowdown", "slowed down by heat", "因过热降频"),
        ("clean", "clean", "无错误"),
        (
            "uncorrected_errors",
            "uncorrected errors",
            "存在不可纠正错误",
        ),
        ("retired_pages", "retired pages", "存在退役页"),
        ("steady", "steady", "稳定"),
        (
            "step_time_spread",
            "step times spread out",
            "单步耗时波动大",
        ),
        ("near_nominal", "near its nominal speed", "接近标称速度"),
        (
            "below_half_of_nominal",
            "below half its nominal speed",
            "不到标称速度的一半",
        ),
        (
            "inputs_adequate",
            "disk, network and CPU keep up",
            "磁盘、网络与 CPU 跟得上",
        ),
        ("gpu_bound", "the GPU", "GPU"),
        ("cpu_bound", "the CPU", "CPU"),
        ("disk_bound", "the disk", "磁盘"),
        ("network_bound", "the network", "网络"),
        ("gpu_underused", "the GPU waits", "GPU 在等待"),
        ("few_cpu_cores", "few CPU cores per GPU", "每卡 CPU 核数少"),
        ("slow_disk", "a slow disk", "磁盘慢"),
        ("slow_network", "a slow network", "网络慢"),
        ("undetermined", "undetermined", "无法判断"),
    ];
    match FINDINGS.iter().find(|(k, _, _)| *k == id) {
        Some((_, en, zh)) => pick(lang, en, zh).to_owned(),
        None => id.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_unique_and_complete() {
        let mut keys: Vec<&str> = LABELS.iter().map(|(k, _, _)| *k).collect();
        keys.sort_unstable();
        let before = keys.len();
        keys.dedup();
        assert_eq!(before, keys.len(), "duplicate label keys");
        assert!(
            LABELS
                .iter()
                .all(|(_, en, zh)| !en.is_empty() && !zh.is_empty())
        );
        assert_eq!(t(Lang::Zh, "no-such-key"), "??");
    }
}
