//! Every refusal worded from its code, in the reader's language: typed numbers, fields out of
//! range, damaged files, catalog rows skipped, workloads the estimator does not model. English
//! keeps core's wording where the CLI prints the same thing; Chinese is worded here.

use gpufare_core::numbers::problem::{FieldError, JsonFault, JsonProblem, Problem};
use gpufare_core::numbers::text::{TextEncoding, TextError};
use gpufare_core::offers::catalog::{CatalogError, CsvProblem};
use gpufare_core::offers::queue_trace::QueueTraceError;
use gpufare_core::offers::skypilot::SkipReason;
use gpufare_core::offers::trace::TraceError;
use gpufare_core::plan::settings::{PlanError, ShareMismatch};
use gpufare_core::profile::document::{Foreign, ProfileError};
use gpufare_core::scenario::document::ScenarioError;
use gpufare_core::task::document::TaskError;
use gpufare_core::workload::types::{Unsupported, WorkloadError};
use gpufare_core::{BillingError, InputError};

use crate::vocab::{Label, Lang, t};

/// Words a refused number.
pub fn input_error(lang: Lang, err: &InputError) -> String {
    match (lang, err) {
        (Lang::En, InputError::Empty) => "Enter a number.".to_owned(),
        (Lang::En, InputError::NotANumber { input }) => {
            format!(
                "“{input}” is not a number; use digits and at most one decimal point, e.g. 2.5."
            )
        }
        (Lang::En, InputError::NotFinite { input }) => format!("“{input}” is not a finite number."),
        (Lang::En, InputError::Negative) => "Must not be negative.".to_owned(),
        (Lang::En, InputError::TooLarge { max }) => format!("Must be at most {max}."),
        (Lang::Zh, InputError::Empty) => "请输入一个数字。".to_owned(),
        (Lang::Zh, InputError::NotANumber { input }) => {
            format!("“{input}”不是数字；请只用数字和最多一个小数点，例如 2.5。")
        }
        (Lang::Zh, InputError::NotFinite { input }) => format!("“{input}”不是有限的数字。"),
        (Lang::Zh, InputError::Negative) => "不能为负数。".to_owned(),
        (Lang::Zh, InputError::TooLarge { max }) => format!("不能超过 {max}。"),
    }
}

/// Words a billing error (the field it belongs to is shown by placement).
pub fn billing_error(lang: Lang, err: &BillingError) -> String {
    input_error(lang, err.reason())
}

/// What is wrong with a value.
pub fn problem(lang: Lang, p: &Problem) -> String {
    if lang == Lang::En {
        return p.to_string();
    }
    match p {
        Problem::Required => "必须填写".to_owned(),
        Problem::OutOfRange { min, max } => format!("必须在 {min} 到 {max} 之间"),
        Problem::AboveZero { max } => format!("必须大于 0 且不超过 {max}"),
        Problem::Probability => "必须是 0 到 1 之间的概率（不含 1）".to_owned(),
        Problem::Positive => "必须是正数".to_owned(),
        Problem::NotANumber { value } => format!("“{value}”不是有效的数字"),
        Problem::NotFinite { value } => format!("“{value}”不是有限的数字"),
        Problem::NotOneOf { value, allowed } => format!("“{value}”不在可选值之中：{allowed}"),
        Problem::UnknownGpu { name } => format!("GPU“{name}”不在规格表中"),
        Problem::UnknownPlace { name } => format!("“{name}”不是已知地点"),
        Problem::NewerVersion { found, max } => {
            format!("格式版本 {found} 比本站支持的版本（最高 {max}）更新")
        }
        Problem::BelowOther { other, max } => {
            format!("不能低于{}，也不能超过 {max}", field(lang, other))
        }
        Problem::ReservedTerm => "预留实例需要 1 到 120 个月的期限".to_owned(),
        Problem::MeteredGranularity => "按量或竞价方案需要按秒、按分钟或按小时计费".to_owned(),
        Problem::DedicatedWhole => "独享方案必须租用整卡（份额为 1）".to_owned(),
        Problem::OneRateForm => "中断频率只能用一种形式填写：每小时、平均间隔或每月".to_owned(),
        Problem::RangeOrder => "范围必须包含中断频率：下限 ≤ 频率 ≤ 上限".to_owned(),
        Problem::FallbackNotFound { id } => format!("“{id}”不是目录中不可中断的方案"),
        Problem::NotADate { value } => {
            format!("“{value}”不是日期：请写成 YYYY-MM-DD；来源只给到月份时写 YYYY-MM")
        }
        Problem::UnknownField { suggestion } => match suggestion {
            Some(s) => format!("不是这种格式的字段（是否想写“{s}”？）"),
            None => "不是这种格式的字段".to_owned(),
        },
        Problem::RequiredWith { other } => format!("填写了{}时必须填写", field(lang, other)),
        Problem::EstimateEvidence => {
            "估算价格的证据必须是“估算”，且只有估算价格可以这样标注".to_owned()
        }
    }
}

/// A field of a task, an offer or the settings, by its name in the JSON form (nested with dots;
/// `offers[3].price` in a catalog). Unknown names are shown as they are.
pub fn field(lang: Lang, name: &str) -> String {
    // An hour of a traffic curve: `serving.traffic.rps_by_hour[7]`, or `rps_by_hour[7]` alone.
    if let Some(hour) = name
        .strip_prefix("serving.traffic.")
        .unwrap_or(name)
        .strip_prefix("rps_by_hour[")
        .and_then(|rest| rest.strip_suffix(']'))
        .and_then(|i| i.parse::<usize>().ok())
    {
        return t(lang, Label::TrafficHourField).replace("{n}", &hour.to_string());
    }
    let (prefix, leaf) = match name.rsplit_once("].") {
        Some((head, leaf)) => (format!("{head}]."), leaf),
        None => (String::new(), name),
    };
    let label = match leaf {
        "format_version" => Some(Label::FormatVersion),
        "work_hours" => Some(Label::WorkHours),
        "reference_gpu" => Some(Label::ReferenceGpu),
        "runs" => Some(Label::Runs),
        "vram_gib" => Some(Label::Vram),
        "gpus" => Some(Label::Gpus),
        "deadline_hours" => Some(Label::Deadline),
        "deadline_penalty" => Some(Label::Penalty),
        "value_of_time_per_hour" => Some(Label::ValueOfTime),
        "budget" => Some(Label::Budget),
        "latency.p99_ms" => Some(Label::LatencyTarget),
        "latency.base_ms" => Some(Label::LatencyBase),
        "checkpoint.interval_hours" => Some(Label::Checkpoint),
        "checkpoint.restart_overhead_hours" => Some(Label::Restart),
        "max_queue_hours" => Some(Label::MaxQueue),
        "service.hours_per_month" => Some(Label::ServiceHours),
        "service.months" => Some(Label::ServiceMonths),
        "prototype.hours" => Some(Label::Prototype),
        "storage_gb" => Some(Label::StorageGb),
        "storage_months" => Some(Label::StorageMonths),
        "egress_gb" => Some(Label::EgressGb),
        "data_read_gb" => Some(Label::DataReadGb),
        "data_download_gb" => Some(Label::DataDownloadGb),
        "cny_per_usd" => Some(Label::Rate),
        "trials" => Some(Label::Trials),
        "seed" => Some(Label::Seed),
        "today" => Some(Label::Today),
        "discounts.factor" => Some(Label::Discount),
        "provider" => Some(Label::Provider),
        "gpu" => Some(Label::Gpu),
        "tenancy" => Some(Label::Tenancy),
        "billing_mode" => Some(Label::Billing),
        "price" => Some(Label::Price),
        "currency" => Some(Label::Currency),
        "as_of" => Some(Label::AsOf),
        "region" | "region_name" | "region_class" => Some(Label::Region),
        "gpu_count" => Some(Label::GpuCount),
        "gpu_fraction" => Some(Label::GpuFraction),
        "granularity" => Some(Label::BillingGranularity),
        "minimum_minutes" => Some(Label::MinimumBilled),
        "interruption_per_month" => Some(Label::InterruptionPerMonth),
        "queue_wait_hours" => Some(Label::QueueWait),
        "queue_p0" => Some(Label::QueueP0),
        "queue_median_hours" => Some(Label::QueueMedianField),
        "queue_sigma" => Some(Label::QueueSigmaField),
        "queue_trace.name" => Some(Label::QueueTraceNameField),
        "queue_trace.starts" => Some(Label::QueueTraceStartsField),
        "queue_trace.unstarted" => Some(Label::QueueTraceUnstartedField),
        "queue_trace.waits_hours" => Some(Label::QueueTraceWaitsField),
        "queue_trace.fitted.p0" => Some(Label::QueueTraceP0Field),
        "queue_trace.fitted.median_hours" => Some(Label::QueueTraceMedianField),
        "queue_trace.fitted.sigma" => Some(Label::QueueTraceSigmaField),
        "neighbour_load" => Some(Label::NeighbourLoadField),
        "compute_capped" => Some(Label::ComputeCapped),
        "interconnect" => Some(Label::InterconnectField),
        "gpus_per_node" => Some(Label::GpusPerNodeField),
        "node_network_gbps" | "node_network_rdma" => Some(Label::NodeNetworkField),
        "data_parallel.params_b"
        | "data_parallel.trainable_params_b"
        | "data_parallel.steps"
        | "data_parallel.overlap"
        | "data_parallel.tensor_parallel"
        | "data_parallel.hidden"
        | "data_parallel.layers"
        | "data_parallel.tokens_per_step" => Some(Label::DataParallelField),
        "mig_profile" => Some(Label::MigProfile),
        "term_months" => Some(Label::TermMonths),
        "upfront" => Some(Label::Upfront),
        "storage_per_gb_month" => Some(Label::StoragePrice),
        "egress_per_gb" => Some(Label::EgressPrice),
        "system_disk_per_month" => Some(Label::SystemDiskPrice),
        "security" => Some(Label::SecurityControls),
        "slowdown.median" | "slowdown.p99" => Some(Label::Slowdown),
        "io.disk_read_mb_s" | "io.download_mbit_s" => Some(Label::IoMeasured),
        "checkpoint.save_minutes" => Some(Label::CheckpointSave),
        "spot_policy.preemptions" => Some(Label::FallbackAfter),
        "interruption_per_hour" => Some(Label::InterruptionPerHour),
        "mtbi_hours" => Some(Label::Mtbi),
        "interruption_low_per_hour" | "interruption_high_per_hour" => {
            Some(Label::InterruptionRange)
        }
        "capacity_gap_hours" => Some(Label::CapacityGap),
        "notice_seconds" => Some(Label::NoticeSeconds),
        "fallback" => Some(Label::FallbackOffer),
        "context_tokens" | "sequence_tokens" => Some(Label::EstTokens),
        "concurrency" | "micro_batch" => Some(Label::EstBatch),
        "training_tokens" => Some(Label::EstTrainTokens),
        "model" => Some(Label::EstModel),
        "expert_parallel" => Some(Label::EstExpertParallel),
        // A service's model and traffic (`serving.*`), and the columns of a traffic CSV.
        "serving.model" => Some(Label::ServingModel),
        "serving.weights" => Some(Label::ServingWeightsField),
        "serving.gpus_per_replica" => Some(Label::ServingGpusField),
        "serving.traffic.name" => Some(Label::TrafficNameField),
        "serving.traffic.rps_by_hour" | "rps_by_hour" => Some(Label::TrafficCurveField),
        "serving.traffic.prompt_tokens.mean" | "prompt_tokens.mean" => Some(Label::PromptMean),
        "serving.traffic.prompt_tokens.p90" | "prompt_tokens.p90" => Some(Label::PromptP90),
        "serving.traffic.output_tokens.mean" | "output_tokens.mean" => Some(Label::OutputMean),
        "serving.traffic.output_tokens.p90" | "output_tokens.p90" => Some(Label::OutputP90),
        "serving.traffic.targets.ttft_p99_ms" | "targets.ttft_p99_ms" => Some(Label::TtftTarget),
        "serving.traffic.targets.tpot_p99_ms" | "targets.tpot_p99_ms" => Some(Label::TpotTarget),
        "hour" => Some(Label::TrafficHourColumn),
        "rps" => Some(Label::TrafficRpsField),
        "columns" => Some(Label::TrafficColumnsField),
        "lines" => Some(Label::TrafficLinesField),
        "text" => Some(Label::TrafficTextField),
        _ => None,
    };
    match (label, lang) {
        (Some(l), Lang::En) => format!("{prefix}{}", t(lang, l)),
        (Some(l), Lang::Zh) => format!("{}{}", containers_zh(&prefix), t(lang, l)),
        (None, Lang::En) => name.to_owned(),
        // A key the vocabulary does not word is shown as code, exactly as the file spells it.
        (None, Lang::Zh) => format!("`{name}`"),
    }
}

/// `offers[1].` or `gpus[0].mig_devices[2].` in Chinese: "第 2 个方案的", "GPU #0 的 MIG 实例 #2 的";
/// a container the vocabulary does not word stays as code.
fn containers_zh(prefix: &str) -> String {
    prefix
        .split_terminator("].")
        .map(|segment| {
            let (name, index) = segment.split_once('[').unwrap_or((segment, ""));
            let n = index.parse::<u64>().ok();
            match (name, n) {
                ("offers", Some(i)) => format!("第 {} 个方案的", i.saturating_add(1)),
                ("gpus", Some(i)) => format!("GPU #{i} 的"),
                ("mig_devices", Some(i)) => format!("MIG 实例 #{i} 的"),
                ("benchmarks", Some(i)) => format!("第 {} 项基准测试的", i.saturating_add(1)),
                _ => format!("`{segment}]`的"),
            }
        })
        .collect()
}

/// A field and what is wrong with it.
pub fn field_error(lang: Lang, e: &FieldError) -> String {
    match lang {
        Lang::En => format!("{}: {}", field(lang, &e.field), problem(lang, &e.problem)),
        Lang::Zh => format!("{}：{}", field(lang, &e.field), problem(lang, &e.problem)),
    }
}

/// Where and why a JSON document could not be read.
pub fn json_problem(lang: Lang, p: &JsonProblem) -> String {
    match lang {
        Lang::En => format!("line {}, column {}: {}", p.line, p.column, p.detail),
        Lang::Zh => {
            let what = match &p.fault {
                JsonFault::Syntax => "不是有效的 JSON".to_owned(),
                JsonFault::Truncated => "文件在中途结束，不完整".to_owned(),
                JsonFault::MissingField { name } => format!("缺少字段 {name}"),
                JsonFault::UnknownVariant { value } => format!("“{value}”不在可选值之中"),
                JsonFault::WrongType => "有一个值的类型不对".to_owned(),
                JsonFault::Other => "内容无法读取".to_owned(),
            };
            format!("第 {} 行第 {} 列：{what}", p.line, p.column)
        }
    }
}

/// Words a refused profile file.
pub fn profile_error(lang: Lang, err: &ProfileError) -> String {
    match (lang, err) {
        (Lang::En, ProfileError::NotJson(p)) => format!(
            "This file is not valid JSON (line {}, column {}: {}).",
            p.line, p.column, p.detail
        ),
        (Lang::En, ProfileError::Foreign(why)) => format!("This is not a gpufare profile: {why}."),
        (Lang::En, ProfileError::UnsupportedFormat { found, max }) => format!(
            "This profile uses format version {found}, newer than this site reads (up to {max}). Reload the site to get the latest version."
        ),
        (Lang::En, ProfileError::Invalid(p)) => format!(
            "This gpufare profile is damaged (line {}, column {}: {}).",
            p.line, p.column, p.detail
        ),
        (Lang::Zh, ProfileError::NotJson(p)) => {
            format!("该文件不是有效的 JSON（{}）。", json_problem(lang, p))
        }
        (Lang::Zh, ProfileError::Foreign(why)) => {
            let why = match why {
                Foreign::NotAnObject => "文档不是 JSON 对象".to_owned(),
                Foreign::NoFormatVersion => "缺少 format_version 字段".to_owned(),
                Foreign::VersionNotWhole { value } => {
                    format!("format_version 为 {value}，不是整数")
                }
                Foreign::OtherTool { name } => format!("它由“{name}”生成"),
                Foreign::VersionZero => "format_version 不能为 0".to_owned(),
            };
            format!("这不是 gpufare 画像文件：{why}。")
        }
        (Lang::Zh, ProfileError::UnsupportedFormat { found, max }) => format!(
            "该画像的格式版本为 {found}，比本站支持的版本（最高 {max}）更新。请刷新页面获取最新版本。"
        ),
        (Lang::Zh, ProfileError::Invalid(p)) => {
            format!("该 gpufare 画像文件已损坏（{}）。", json_problem(lang, p))
        }
        (Lang::En, ProfileError::OutOfRange(e)) => {
            format!(
                "This gpufare profile holds an impossible figure: field {}.",
                field_error(lang, e)
            )
        }
        (Lang::Zh, ProfileError::OutOfRange(e)) => {
            format!(
                "该 gpufare 画像文件含有不可能的数值：字段{}。",
                field_error(lang, e)
            )
        }
    }
}

/// Words a task refused.
pub fn task_error(lang: Lang, err: &TaskError) -> String {
    match (lang, err) {
        (Lang::En, TaskError::Field(e)) => format!("Task field {}", field_error(lang, e)),
        (Lang::Zh, TaskError::Field(e)) => format!("任务字段{}", field_error(lang, e)),
        (Lang::En, TaskError::Json(p)) => format!("Not a task ({}).", json_problem(lang, p)),
        (Lang::Zh, TaskError::Json(p)) => format!("不是任务文件（{}）。", json_problem(lang, p)),
    }
}

/// Words why a plan could not be made.
pub fn plan_error(lang: Lang, err: &PlanError) -> String {
    match (lang, err) {
        (_, PlanError::Task(e)) => task_error(lang, e),
        (Lang::En, PlanError::Offer { id, error }) => {
            format!("Offer {id}, {}", field_error(lang, error))
        }
        (Lang::Zh, PlanError::Offer { id, error }) => {
            format!("方案 {id} 的{}", field_error(lang, error))
        }
        (Lang::En, PlanError::Setting(e)) => format!("Setting {}", field_error(lang, e)),
        (Lang::Zh, PlanError::Setting(e)) => format!("设置项{}", field_error(lang, e)),
        (_, PlanError::Shares(m)) => share_mismatch(lang, m),
    }
}

/// Words why the shares of a plan priced apart (the plan workers') did not fit together.
fn share_mismatch(lang: Lang, m: &ShareMismatch) -> String {
    match (lang, m) {
        (Lang::En, ShareMismatch::NotAShare { index, count }) => {
            format!("Plan share {index} of {count} does not exist.")
        }
        (Lang::Zh, ShareMismatch::NotAShare { index, count }) => {
            format!("方案计算分片 {index}/{count} 不存在。")
        }
        (Lang::En, ShareMismatch::Missing { place }) => {
            format!(
                "Offer {} of the catalog was not priced by any plan share.",
                place + 1
            )
        }
        (Lang::Zh, ShareMismatch::Missing { place }) => {
            format!("目录中第 {} 个方案没有被任何分片计算。", place + 1)
        }
        (Lang::En, ShareMismatch::Twice { place }) => {
            format!("Offer {} of the catalog was priced twice.", place + 1)
        }
        (Lang::Zh, ShareMismatch::Twice { place }) => {
            format!("目录中第 {} 个方案被重复计算。", place + 1)
        }
        (Lang::En, ShareMismatch::PastTheEnd { place, offers }) => {
            format!(
                "Offer {} is past the end of the catalog ({offers} offers).",
                place + 1
            )
        }
        (Lang::Zh, ShareMismatch::PastTheEnd { place, offers }) => {
            format!("第 {} 个方案超出了目录范围（共 {offers} 个）。", place + 1)
        }
        (
            Lang::En,
            ShareMismatch::OtherOffer {
                place,
                expected,
                found,
            },
        ) => {
            format!(
                "Offer {} of the catalog is {expected}, but a plan share priced {found}.",
                place + 1
            )
        }
        (
            Lang::Zh,
            ShareMismatch::OtherOffer {
                place,
                expected,
                found,
            },
        ) => {
            format!(
                "目录中第 {} 个方案是 {expected}，分片计算的却是 {found}。",
                place + 1
            )
        }
    }
}

/// Words why a scenario (a share link or a saved copy) could not be read.
pub fn scenario_error(lang: Lang, err: &ScenarioError) -> String {
    match (lang, err) {
        (Lang::En, ScenarioError::NotBase64) => "the link is damaged (not base64)".to_owned(),
        (Lang::Zh, ScenarioError::NotBase64) => "链接已损坏（不是 base64 编码）".to_owned(),
        (_, ScenarioError::Json(p)) => json_problem(lang, p),
        (_, ScenarioError::UnsupportedFormat { found, max }) => problem(
            lang,
            &Problem::NewerVersion {
                found: *found,
                max: *max,
            },
        ),
        (_, ScenarioError::Task(e)) => task_error(lang, e),
        (Lang::En, ScenarioError::Setting(e)) => format!("setting {}", field_error(lang, e)),
        (Lang::Zh, ScenarioError::Setting(e)) => format!("设置项{}", field_error(lang, e)),
        (Lang::En, ScenarioError::AddedOffer { id, error }) => {
            format!("added offer {id}, {}", field_error(lang, error))
        }
        (Lang::Zh, ScenarioError::AddedOffer { id, error }) => {
            format!("添加的方案 {id} 的{}", field_error(lang, error))
        }
        (Lang::En, ScenarioError::EditedPrice { id }) => {
            format!("the edited price of {id} is out of range")
        }
        (Lang::Zh, ScenarioError::EditedPrice { id }) => format!("方案 {id} 修改后的价格超出范围"),
        (Lang::En, ScenarioError::Trace { offer, error }) => {
            format!("the trace of {offer}: {}", trace_error(lang, error))
        }
        (Lang::Zh, ScenarioError::Trace { offer, error }) => {
            format!("方案 {offer} 的轨迹：{}", trace_error(lang, error))
        }
        (Lang::En, ScenarioError::QueueTrace { offer, error }) => {
            format!("the queue trace of {offer}, {}", field_error(lang, error))
        }
        (Lang::Zh, ScenarioError::QueueTrace { offer, error }) => {
            format!("方案 {offer} 的排队轨迹中{}", field_error(lang, error))
        }
        (Lang::En, ScenarioError::QueueTraceOffer { offer }) => {
            format!("a queue trace is attached to {offer}, which is not in the catalog")
        }
        (Lang::Zh, ScenarioError::QueueTraceOffer { offer }) => {
            format!("排队轨迹所附的方案 {offer} 不在目录中")
        }
        (Lang::En, ScenarioError::TooManyQueueTraces { found, max }) => {
            format!("{found} queue traces; at most {max} are read")
        }
        (Lang::Zh, ScenarioError::TooManyQueueTraces { found, max }) => {
            format!("排队轨迹有 {found} 条，最多读取 {max} 条")
        }
        (Lang::En, ScenarioError::Measured { gpu, error }) => {
            format!("measured figures for {gpu}, {}", field_error(lang, error))
        }
        (Lang::Zh, ScenarioError::Measured { gpu, error }) => {
            format!("{gpu} 的实测数据中{}", field_error(lang, error))
        }
    }
}

/// Words why a preemption trace could not be read.
pub fn trace_error(lang: Lang, err: &TraceError) -> String {
    if lang == Lang::En {
        return trace_error_en(err);
    }
    match err {
        TraceError::TooLarge { bytes, max } => {
            format!("文件有 {bytes} 字节，轨迹文件最多读取 {max} 字节")
        }
        TraceError::Json(p) => format!("不是轨迹文件（{}）", json_problem(lang, p)),
        TraceError::Empty => "轨迹中没有任何采样".to_owned(),
        TraceError::TooManyTicks { max } => format!("轨迹的采样超过 {max} 个"),
        TraceError::BadTick { value } => {
            format!("采样间隔 `gap_seconds` 为 {value}：必须大于 0 秒且不超过 86400 秒")
        }
        TraceError::BadCount { at, value } => {
            let at = match at.strip_prefix("line ") {
                Some(n) => format!("第 {n} 行"),
                None => format!("`{at}`"),
            };
            let value = value.trim_matches('"');
            format!("{at}：“{value}”不是实例数（实例数应为 0 或正整数）")
        }
        TraceError::BadTimestamp { line, value } => format!(
            "第 {line} 行：“{value}”不是时间戳（应为秒数，或 RFC 3339 格式，如 2023-04-22T10:00:00Z）"
        ),
        TraceError::NotIncreasing { line } => format!("第 {line} 行：时间戳必须递增"),
        TraceError::BadRow { line } => format!("第 {line} 行：应有两列，时间戳和实例数"),
        TraceError::TooLong { max } => format!("轨迹覆盖的时间超过 {max} 小时"),
        TraceError::NeverRunning => "轨迹中从未有实例运行（所有计数都是 0）".to_owned(),
    }
}

/// [`trace_error`] in English (worded here, not taken from core's messages, so that both
/// languages live in the vocabulary).
fn trace_error_en(err: &TraceError) -> String {
    match err {
        TraceError::TooLarge { bytes, max } => {
            format!("the file is {bytes} bytes; traces up to {max} bytes are read")
        }
        TraceError::Json(p) => format!(
            "not a trace (line {}, column {}): {}",
            p.line, p.column, p.detail
        ),
        TraceError::Empty => "the trace has no samples".to_owned(),
        TraceError::TooManyTicks { max } => format!("the trace has more than {max} samples"),
        TraceError::BadTick { value } => {
            format!("gap_seconds must be above 0 and at most 86400, not {value}")
        }
        TraceError::BadCount { at, value } => {
            format!("{at}: {value} is not a count of instances (a whole number from 0)")
        }
        TraceError::BadTimestamp { line, value } => format!(
            "line {line}: \"{value}\" is not a timestamp (seconds, or RFC 3339 like 2023-04-22T10:00:00Z)"
        ),
        TraceError::NotIncreasing { line } => format!("line {line}: the timestamps must increase"),
        TraceError::BadRow { line } => {
            format!("line {line}: expected two columns, a timestamp and a count")
        }
        TraceError::TooLong { max } => format!("the trace covers more than {max} hours"),
        TraceError::NeverRunning => {
            "no instance ever runs in this trace (every count is 0)".to_owned()
        }
    }
}

/// Words why a queue trace could not be read: the line and the column where the file says so
/// (the file's name is put before it by the picker).
pub fn queue_trace_error(lang: Lang, err: &QueueTraceError) -> String {
    match (lang, err) {
        (Lang::En, QueueTraceError::TooLarge { bytes, max }) => {
            format!("the file is {bytes} bytes; queue traces up to {max} bytes are read")
        }
        (Lang::Zh, QueueTraceError::TooLarge { bytes, max }) => {
            format!("文件有 {bytes} 字节，排队轨迹最多读取 {max} 字节")
        }
        (Lang::En, QueueTraceError::TooManyRows { max }) => {
            format!("the file has more than {max} rows")
        }
        (Lang::Zh, QueueTraceError::TooManyRows { max }) => format!("文件超过 {max} 行"),
        (Lang::En, QueueTraceError::NoColumns) => "no column of waits (wait_s, wait_seconds, wait or queue_s) and no pair of creation and start times (created,started; created_at,started_at; submit_time,start_time; creation_time,scheduled_time) in the header".to_owned(),
        (Lang::Zh, QueueTraceError::NoColumns) => "表头中既没有等待时间列（`wait_s`、`wait_seconds`、`wait` 或 `queue_s`），也没有成对的创建与开始时间列（`created,started`、`created_at,started_at`、`submit_time,start_time`、`creation_time,scheduled_time`）".to_owned(),
        (
            Lang::En,
            QueueTraceError::BadValue {
                line,
                column,
                value,
                expected,
            },
        ) => format!("line {line}, column {column}: \"{value}\" is not {expected}"),
        (
            Lang::Zh,
            QueueTraceError::BadValue {
                line,
                column,
                value,
                expected,
            },
        ) => {
            // Core says what was expected in English: a number of seconds, or a timestamp.
            let what = if expected.contains("timestamp") {
                "时间戳（秒数，或 `RFC 3339` 格式，如 2023-04-22T10:00:00Z）"
            } else {
                "秒数"
            };
            format!("第 {line} 行，`{column}` 列：“{value}”不是{what}")
        }
        (Lang::En, QueueTraceError::Negative { line }) => {
            format!("line {line}: the wait is negative (a start before its creation)")
        }
        (Lang::Zh, QueueTraceError::Negative { line }) => {
            format!("第 {line} 行：等待时间为负（开始早于创建）")
        }
        (Lang::En, QueueTraceError::TooLong { line, max_hours }) => {
            format!("line {line}: a wait of more than {max_hours} hours")
        }
        (Lang::Zh, QueueTraceError::TooLong { line, max_hours }) => {
            format!("第 {line} 行：等待时间超过 {max_hours} 小时")
        }
        (Lang::En, QueueTraceError::BadRow { line }) => {
            format!("line {line}: the row cannot be read (an unclosed quote, or bytes that are not text)")
        }
        (Lang::Zh, QueueTraceError::BadRow { line }) => {
            format!("第 {line} 行：无法读取该行（引号未闭合，或含有不是文本的字节）")
        }
        (Lang::En, QueueTraceError::Empty) => {
            "the file holds no wait (no row, or no job that started)".to_owned()
        }
        (Lang::Zh, QueueTraceError::Empty) => {
            "文件中没有任何等待时间（没有数据行，或没有任务开始过）".to_owned()
        }
    }
}

/// Words why a catalog file could not be read.
pub fn catalog_error(lang: Lang, err: &CatalogError) -> String {
    if lang == Lang::En {
        return err.to_string();
    }
    match err {
        CatalogError::Csv { line, problem } => {
            let what = match problem {
                CsvProblem::MissingColumn { name } => format!("缺少列 {name}"),
                CsvProblem::NotSkyPilot => {
                    "不是 SkyPilot vms.csv：需要 InstanceType、Price 和 Region 列".to_owned()
                }
                CsvProblem::Unreadable { .. } => "这一行无法读取".to_owned(),
            };
            format!("第 {line} 行：{what}")
        }
        CatalogError::Field {
            line,
            field: name,
            problem: p,
        } => format!("第 {line} 行，{}：{}", field(lang, name), problem(lang, p)),
        CatalogError::Json(p) => json_problem(lang, p),
        CatalogError::UnsupportedFormat { found, max } => problem(
            lang,
            &Problem::NewerVersion {
                found: *found,
                max: *max,
            },
        ),
        CatalogError::DuplicateId { id } => format!("方案 id“{id}”出现了两次"),
        CatalogError::Encoding(e) => text_error(lang, e),
        CatalogError::Empty { skipped } => {
            format!("目录里没有任何方案（跳过了 {skipped} 行）")
        }
    }
}

/// Why a file's bytes are not text the site reads (its encoding).
pub fn text_error(lang: Lang, err: &TextError) -> String {
    if lang == Lang::En {
        return err.to_string();
    }
    let name = |e: TextEncoding| crate::vocab::model::encoding(lang, e);
    match err {
        TextError::Workbook => "这是电子表格工作簿（.xlsx 或 .xls），不是文本文件：请在 Excel \
                               中另存为“CSV UTF-8”后再导入"
            .to_owned(),
        TextError::Malformed { encoding, line } => format!(
            "文件以 {} 的字节顺序标记开头，但第 {line} 行不是有效的 {}",
            name(*encoding),
            name(*encoding)
        ),
        TextError::Unknown {
            utf8_line,
            utf8_byte,
            gb18030_line,
            gb18030_byte,
        } => format!(
            "文件既不是 UTF-8（第 {utf8_line} 行的字节 0x{utf8_byte:02X} 无效），也不是带字节顺序\
             标记的 UTF-16，也不是 GB18030（第 {gb18030_line} 行的字节 0x{gb18030_byte:02X} 无效）：\
             请另存为“CSV UTF-8”"
        ),
        TextError::Nul { line } => format!(
            "第 {line} 行含有空字符：可能是没有字节顺序标记的 UTF-16，或者不是文本文件；请另存为\
             “CSV UTF-8”"
        ),
    }
}

/// Why a SkyPilot row was left out.
pub fn skip_reason(lang: Lang, r: &SkipReason) -> String {
    if lang == Lang::En {
        return r.to_string();
    }
    match r {
        SkipReason::Unreadable { .. } => "这一行无法读取".to_owned(),
        SkipReason::NoAccelerator => "没有加速卡（这是主机行，GPU 另行计价）".to_owned(),
        SkipReason::UnknownGpu { name } => format!("GPU“{name}”不在规格表中"),
        SkipReason::NoPrice { value } => format!("没有可用的按需价格（“{value}”）"),
        SkipReason::SpotNotOffered => "竞价价格为 0：不提供竞价".to_owned(),
        SkipReason::SpotNoDiscount => "竞价价格不低于按需价格的 95%：没有实际折扣".to_owned(),
        SkipReason::SpotNotANumber { value } => format!("竞价价格“{value}”不是数字"),
    }
}

/// A skipped row of an imported file: its line, its instance and why.
pub fn skipped_row(lang: Lang, line: u64, instance: &str, reason: &SkipReason) -> String {
    match lang {
        Lang::En => format!("line {line} {instance}: {}", skip_reason(lang, reason)),
        Lang::Zh => format!("第 {line} 行 {instance}：{}", skip_reason(lang, reason)),
    }
}

/// Words a workload the estimator refused.
pub fn workload_error(lang: Lang, err: &WorkloadError) -> String {
    if lang == Lang::En {
        return err.to_string();
    }
    let name = field(lang, err.field());
    match err {
        WorkloadError::OutOfRange {
            min, max, value, ..
        } => format!("{name}：必须在 {min} 到 {max} 之间，现在是 {value}"),
        WorkloadError::Unknown {
            name: given, known, ..
        } => {
            format!("{name}：未知的“{given}”；可选：{known}")
        }
        WorkloadError::Unsupported { reason, .. } => {
            let why = match reason {
                Unsupported::NotMultipleOf8 => "必须是 8 的倍数（VAE 按 8 倍下采样）",
                Unsupported::NotMultipleOf16 => "Flux 要求是 16 的倍数",
                Unsupported::FluxControlNet => "Flux 的 ControlNet 各版本大小差别太大，无法建模",
                Unsupported::FullFineTuneQuantized => {
                    "全参数微调需要 16 位或 32 位权重；量化权重请用 LoRA（QLoRA）"
                }
                Unsupported::ExpertParallelDense => "专家并行需要混合专家模型",
            };
            format!("{name}：{why}")
        }
    }
}
