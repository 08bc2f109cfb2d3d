//! The decision's reasons worded from their rule ids and parameters.

use gpufare_core::offers::latency::RttBasis;
use gpufare_core::offers::offer::{PriceEvidence, RegionClass, SecurityControl};
use gpufare_core::offers::places::{Market, Markets, find_place};
use gpufare_core::offers::tenancy::Tenancy;
use gpufare_core::plan::reason::{Reason, RuleId, Standing};

use crate::vocab::{Lang, model, pick};

/// A reason in words, with its parameters filled in. English is core's wording (the CLI's and the
/// exports'); Chinese is worded here from the same rule id and parameters.
pub fn reason(lang: Lang, r: &Reason) -> String {
    if lang == Lang::En {
        return r.english();
    }
    let text = chinese(r);
    let text = match r.params.get("offers") {
        Some(n) if r.rule.is_veto() => format!("{text}（{n} 个方案）"),
        _ => text,
    };
    match r.standing() {
        Some(Standing::Cheapest) => format!("{text}；按数字也是最便宜的"),
        Some(Standing::CostsMore(extra)) => {
            format!("{text}；按数字比最便宜的方案多花 {extra}")
        }
        None => text,
    }
}

fn chinese(r: &Reason) -> String {
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
        RuleId::SensitivityExcludesTenancy => {
            format!("机密数据：排除{}", tenancy_of(&p("tenancy")))
        }
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
            "十次启动中有一次要排队 {} 小时以上（P90），超过可接受的 {} 小时",
            p("queue_hours"),
            p("max_hours")
        ),
        RuleId::UnknownGpu => format!("GPU {} 不在规格表中", p("gpu")),
        RuleId::TensorParallelNeedsNvlink => format!(
            "{} 路张量并行需要这些 GPU 处于同一 NVLink 域；此方案每个 NVLink 域只有 {} 块 GPU",
            p("tensor_parallel"),
            p("nvlink_domain")
        ),
        RuleId::VramTight => format!("显存余量很小：{} / {} GiB", p("need_gib"), p("visible_gib")),
        RuleId::OomRiskNoIsolation => "时间片共享没有显存隔离：邻居可能导致 OOM".to_owned(),
        RuleId::MissingSecurityControls => format!("缺少安全措施：{}", controls_of(&p("missing"))),
        RuleId::PriceIsEstimate => format!("价格为估算（{}）", p("note")),
        RuleId::OverBudget => format!("期望总成本 {} 超出预算 {}", p("total"), p("budget")),
        RuleId::RemoteRegionLatency => {
            let basis = match RttBasis::from_id(&p("basis")) {
                Some(RttBasis::Measured) => format!("实测至 {}", p("note")),
                Some(RttBasis::Published) => format!("公开测量，{}", p("note")),
                Some(RttBasis::Distance) => format!("按距离 {} 估算", p("note")),
                _ => "方案表中的数字".to_owned(),
            };
            match find_place(&p("from")) {
                None => format!(
                    "{}增加约 {} 毫秒往返延迟（{basis}）",
                    RegionClass::from_id(&p("class"))
                        .map_or("", |c| model::region_class(Lang::Zh, c)),
                    p("rtt_ms")
                ),
                Some(from) => format!("距{}约 {} 毫秒往返（{basis}）", from.name_zh, p("rtt_ms")),
            }
        }
        RuleId::OutsideMarkets => format!(
            "在{}销售；该任务只在{}购买",
            Market::from_id(&p("market")).map_or("", |m| model::market(Lang::Zh, m)),
            match Markets::from_id(&p("allowed")) {
                Some(Markets::MainlandChina) => model::market(Lang::Zh, Market::MainlandChina),
                _ => model::market(Lang::Zh, Market::Elsewhere),
            }
        ),
        RuleId::ProviderExcluded => format!("任务排除了服务商 {}", p("provider")),
        RuleId::DataMustStayHome => format!(
            "机密数据将离开{}前往{}，受{}限制（{}）",
            model::jurisdiction(Lang::Zh, &p("from")),
            model::jurisdiction(Lang::Zh, &p("to")),
            p("law_zh"),
            p("source")
        ),
        RuleId::DataLeavesJurisdiction => format!(
            "个人数据将离开{}前往{}：属于{}规定的数据出境（{}）",
            model::jurisdiction(Lang::Zh, &p("from")),
            model::jurisdiction(Lang::Zh, &p("to")),
            p("law_zh"),
            p("source")
        ),
        RuleId::DiskBound => format!(
            "磁盘拖慢每次运行：按实测 {} MB/s 读完数据需 {} 小时，GPU 计算只需 {} 小时",
            p("mb_per_s"),
            p("read_hours"),
            p("compute_hours")
        ),
        RuleId::LongRepeatedTuning => format!(
            "运行 {} 次、每次 {} 小时：经验法则倾向稳定的独享显卡",
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
                RuleId::from_id(&p("rule")).map_or("", |r| rule_name(Lang::Zh, r))
            )
        }
        RuleId::HybridPhases => "先在共享算力上按量做原型，再在独享显卡上完成正式工作".to_owned(),
        RuleId::RiskFromTrace => format!(
            "中断数据来自所附轨迹 {}：{} 小时内被抢占 {} 次，每运行小时 {} 次",
            p("trace"),
            p("hours"),
            p("preemptions"),
            p("per_running_hour")
        ),
        RuleId::PriceCaveat => {
            let as_of = p("as_of");
            let age = r.params.get("age_days").map_or("?", String::as_str);
            let evidence = r
                .params
                .get("evidence")
                .and_then(|e| PriceEvidence::from_id(e))
                .map(|e| format!("，证据：{}", model::evidence(Lang::Zh, e)))
                .unwrap_or_default();
            match (
                r.params.contains_key("estimate"),
                r.params.get("stale_after_days"),
            ) {
                (true, Some(limit)) => format!(
                    "该价格为估算值，距今 {age} 天（{as_of}；超过 {limit} 天）：下单前请向服务商询价"
                ),
                (true, None) => format!(
                    "该价格为估算值（{as_of}{}）：下单前请向服务商询价",
                    r.params
                        .get("age_days")
                        .map(|a| format!("，距今 {a} 天"))
                        .unwrap_or_default()
                ),
                (false, limit) => format!(
                    "该价格距今 {age} 天（{as_of}{evidence}；超过 {} 天）：下单前请核实当前价格",
                    limit.map_or("?", String::as_str)
                ),
            }
        }
        RuleId::SpotPolicy => format!(
            "应对策略：{}；期望总成本 {}（一直留在该方案上为 {}，节省 {}）",
            policy_words(&p("policy"), &p("fallback")),
            p("total"),
            p("spot_only_total"),
            p("saving")
        ),
    }
}

/// A policy for interruptible capacity, in Chinese, from its id and the fallback offer.
pub fn policy_words(id: &str, fallback: &str) -> String {
    match id {
        "spot_only" => "始终留在可中断方案上".to_owned(),
        "deadline_aware" => {
            format!("截止时间前的余量够用时留在可中断方案上，不够时改用 {fallback}")
        }
        "on_demand_only" => format!("全程在 {fallback} 上运行"),
        other => match other.strip_prefix("fallback_after_") {
            Some(n) => format!("被抢占 {n} 次后改用 {fallback}"),
            None => format!("`{other}`"),
        },
    }
}

fn choice_word(id: &str) -> &'static str {
    match id {
        "shared" => "共享算力",
        _ => "独享显卡",
    }
}

/// A tenancy named by its id, in Chinese.
fn tenancy_of(id: &str) -> &'static str {
    Tenancy::from_id(id).map_or("", |t| model::tenancy(Lang::Zh, t))
}

/// Security controls named by their comma-separated ids, in Chinese.
fn controls_of(ids: &str) -> String {
    ids.split(", ")
        .filter_map(SecurityControl::from_id)
        .map(|c| model::control(Lang::Zh, c))
        .collect::<Vec<_>>()
        .join("、")
}

/// A rule's short name, for saying which rule chose an offer.
pub fn rule_name(lang: Lang, r: RuleId) -> &'static str {
    let (en, zh) = match r {
        RuleId::HybridPhases => ("the hybrid plan", "混合方案"),
        RuleId::DataInHouse => ("data stays in-house", "数据不出企业边界"),
        RuleId::PreferenceWithinMargin => {
            ("the preference within the margin", "在差价范围内按偏好选择")
        }
        RuleId::LongRepeatedTuning => ("long repeated tuning", "长时间反复调参"),
        RuleId::HardDeadline => ("the deadline", "截止时间"),
        RuleId::ProductionInferenceLatency => ("the latency target", "延迟目标"),
        RuleId::MultiGpuDedicated => ("multi-GPU training", "多卡训练"),
        RuleId::CodeCheckSharedFirst => ("checking the code runs", "验证代码能否跑通"),
        RuleId::TightBudgetCanQueue => ("a tight budget", "预算紧张"),
        _ => ("a rule", "一条规则"),
    };
    pick(lang, en, zh)
}
