//! The site's two languages, Simplified Chinese and English, and every sentence it shows.
//!
//! Core errors carry stable codes (`negative`, `newer_version`, ...); this module words them.

use gpufare_core::profile::document::ProfileError;
use gpufare_core::{BillingError, Granularity, InputError};

/// A language the site speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Zh,
}

impl Lang {
    /// The other language, for the toggle.
    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Zh,
            Lang::Zh => Lang::En,
        }
    }

    /// The BCP 47 tag for `<html lang>`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }

    /// All fixed sentences in this language.
    pub fn texts(self) -> &'static Texts {
        match self {
            Lang::En => &EN,
            Lang::Zh => &ZH,
        }
    }
}

/// Picks Chinese when the browser's preferred language is Chinese, English otherwise.
pub fn browser_lang() -> Lang {
    let preferred = web_sys::window()
        .and_then(|w| w.navigator().language())
        .unwrap_or_default();
    if preferred.to_ascii_lowercase().starts_with("zh") {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// Sets `<html lang>` so screen readers and fonts follow the chosen language.
pub fn set_document_lang(lang: Lang) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", lang.tag());
    }
}

/// Every fixed sentence of the site in one language.
pub struct Texts {
    pub tagline: &'static str,
    pub switch_language: &'static str,
    pub switch_language_label: &'static str,
    pub privacy: &'static str,
    pub rent_heading: &'static str,
    pub hours_label: &'static str,
    pub hours_hint: &'static str,
    pub price_label: &'static str,
    pub currency_label: &'static str,
    pub granularity_label: &'static str,
    pub minimum_label: &'static str,
    pub minimum_hint: &'static str,
    pub rent_label: &'static str,
    pub billed_label: &'static str,
    pub rent_unavailable: &'static str,
    pub profile_heading: &'static str,
    pub profile_label: &'static str,
    pub profile_hint: &'static str,
    pub profile_file: &'static str,
    pub cpu_model: &'static str,
    pub logical_cores: &'static str,
    pub ram: &'static str,
    pub os: &'static str,
    pub kernel: &'static str,
    pub probed_at: &'static str,
    pub gpus: &'static str,
    pub no_gpus: &'static str,
    pub driver: &'static str,
    pub file_too_large: &'static str,
    pub file_unreadable: &'static str,
}

static EN: Texts = Texts {
    tagline: "Shared or dedicated GPU: what it really costs",
    switch_language: "中文",
    switch_language_label: "切换到中文 (switch to Chinese)",
    privacy: "Everything is computed in your browser; nothing you type or upload leaves it.",
    rent_heading: "Pay-as-you-go rent",
    hours_label: "Run length (hours)",
    hours_hint: "Wall-clock hours the instance runs, e.g. 2.5",
    price_label: "Price per hour",
    currency_label: "Currency",
    granularity_label: "Billing granularity",
    minimum_label: "Minimum billed time (minutes)",
    minimum_hint: "The least a started run is charged, e.g. 1 for AWS",
    rent_label: "Rent",
    billed_label: "Billed time",
    rent_unavailable: "Fix the highlighted field to see the rent.",
    profile_heading: "Machine profile",
    profile_label: "Open a profile written by gpufare probe",
    profile_hint: "Run `gpufare probe -o profile.json` on the machine, then choose the file here.",
    profile_file: "File",
    cpu_model: "CPU model",
    logical_cores: "Logical cores",
    ram: "Memory",
    os: "Operating system",
    kernel: "Kernel",
    probed_at: "Probed at",
    gpus: "GPUs",
    no_gpus: "No GPU in this profile",
    driver: "Driver",
    file_too_large: "This file is larger than 16 MiB; a gpufare profile is much smaller.",
    file_unreadable: "The browser could not read this file.",
};

static ZH: Texts = Texts {
    tagline: "共享算力还是独享显卡：算清真实成本",
    switch_language: "English",
    switch_language_label: "Switch to English (切换到英文)",
    privacy: "所有计算都在你的浏览器中完成，你输入或上传的内容不会离开浏览器。",
    rent_heading: "按量付费租金",
    hours_label: "运行时长（小时）",
    hours_hint: "实例运行的小时数，例如 2.5",
    price_label: "每小时单价",
    currency_label: "币种",
    granularity_label: "计费粒度",
    minimum_label: "最低计费时长（分钟）",
    minimum_hint: "每次开机至少收费的时长，例如 AWS 为 1",
    rent_label: "租金",
    billed_label: "计费时长",
    rent_unavailable: "请先修正标红的输入项。",
    profile_heading: "机器画像",
    profile_label: "打开 gpufare probe 生成的画像文件",
    profile_hint: "在机器上运行 `gpufare probe -o profile.json`，然后在这里选择该文件。",
    profile_file: "文件",
    cpu_model: "CPU 型号",
    logical_cores: "逻辑核数",
    ram: "内存",
    os: "操作系统",
    kernel: "内核",
    probed_at: "采集时间",
    gpus: "GPU",
    no_gpus: "该画像中没有 GPU",
    driver: "驱动",
    file_too_large: "文件超过 16 MiB，不像是 gpufare 画像文件。",
    file_unreadable: "浏览器无法读取该文件。",
};

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
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

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

/// Words a refused profile file.
pub fn profile_error(lang: Lang, err: &ProfileError) -> String {
    match (lang, err) {
        (
            Lang::En,
            ProfileError::NotJson {
                line,
                column,
                message,
            },
        ) => {
            format!("This file is not valid JSON (line {line}, column {column}: {message}).")
        }
        (Lang::En, ProfileError::Foreign { why }) => {
            format!("This is not a gpufare profile: {why}.")
        }
        (Lang::En, ProfileError::UnsupportedFormat { found, max }) => format!(
            "This profile uses format version {found}, newer than this site reads (up to {max}). Reload the site to get the latest version."
        ),
        (
            Lang::En,
            ProfileError::Invalid {
                line,
                column,
                message,
            },
        ) => {
            format!("This gpufare profile is damaged (line {line}, column {column}: {message}).")
        }
        (
            Lang::Zh,
            ProfileError::NotJson {
                line,
                column,
                message,
            },
        ) => {
            format!("该文件不是有效的 JSON（第 {line} 行第 {column} 列：{message}）。")
        }
        (Lang::Zh, ProfileError::Foreign { why }) => format!("这不是 gpufare 画像文件：{why}。"),
        (Lang::Zh, ProfileError::UnsupportedFormat { found, max }) => format!(
            "该画像的格式版本为 {found}，比本站支持的版本（最高 {max}）更新。请刷新页面获取最新版本。"
        ),
        (
            Lang::Zh,
            ProfileError::Invalid {
                line,
                column,
                message,
            },
        ) => {
            format!("该 gpufare 画像文件已损坏（第 {line} 行第 {column} 列：{message}）。")
        }
    }
}
