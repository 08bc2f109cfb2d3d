//! Task presets: the scenarios of the reference article, as ready-made task profiles.
//!
//! Each preset is a starting point the user edits; its figures (work on a reference GPU, VRAM,
//! runs) are typical values, labelled as such on the site.

use rust_decimal::Decimal;

use crate::numbers::money::Currency;
use crate::task::document::{
    Bound, Checkpoint, DataParallel, LatencyTarget, Prototype, Sensitivity, Service, ServingSpec,
    TASK_FORMAT_VERSION, TaskKind, TaskProfile,
};
use crate::task::reach::Reach;

/// Preset ids, in the order the site lists them.
pub const PRESET_IDS: [&str; 10] = [
    "course_project",
    "sd_trial",
    "sd_batch",
    "sd_lora",
    "qlora_7b",
    "full_finetune_multi_gpu",
    "inference_api",
    "burst_rendering",
    "data_cleaning",
    "code_check",
];

fn base(
    name: &str,
    kind: TaskKind,
    work_hours: f64,
    reference_gpu: &str,
    vram_gib: f64,
) -> TaskProfile {
    TaskProfile {
        format_version: TASK_FORMAT_VERSION,
        name: name.to_owned(),
        kind,
        work_hours,
        reference_gpu: reference_gpu.to_owned(),
        bound: Bound::Compute,
        runs: 1,
        vram_gib,
        gpus: 1,
        scales_across_gpus: false,
        sensitivity: Sensitivity::Public,
        deadline_hours: None,
        deadline_penalty: None,
        deadline_hard: false,
        latency: None,
        checkpoint: None,
        interruptible: true,
        spot_policy: None,
        max_queue_hours: None,
        neighbour_load: None,
        value_of_time_per_hour: Decimal::from(30),
        budget: None,
        service: None,
        prototype: None,
        data_parallel: None,
        serving: None,
        storage_gb: 50.0,
        storage_months: 1.0,
        egress_gb: 5.0,
        data_read_gb: None,
        data_download_gb: None,
        currency: Currency::Cny,
        reach: Reach::default(),
    }
}

/// The preset with `id`, or `None` for an unknown id.
pub fn preset(id: &str) -> Option<TaskProfile> {
    let t = match id {
        "course_project" => TaskProfile {
            runs: 3,
            value_of_time_per_hour: Decimal::from(10),
            budget: Some(Decimal::from(60)),
            max_queue_hours: Some(2.0),
            storage_gb: 20.0,
            ..base(
                "Course project / Kaggle starter",
                TaskKind::Training,
                2.0,
                "RTX4090",
                10.0,
            )
        },
        "sd_trial" => TaskProfile {
            storage_gb: 20.0,
            ..base(
                "Stable Diffusion trial",
                TaskKind::ImageGeneration,
                1.0,
                "RTX4090",
                8.0,
            )
        },
        "sd_batch" => TaskProfile {
            deadline_hours: Some(48.0),
            deadline_penalty: Some(Decimal::from(500)),
            storage_gb: 200.0,
            egress_gb: 100.0,
            ..base(
                "Stable Diffusion batch generation",
                TaskKind::ImageGeneration,
                20.0,
                "RTX4090",
                14.0,
            )
        },
        "sd_lora" => TaskProfile {
            runs: 4,
            checkpoint: Some(Checkpoint {
                interval_hours: 0.25,
                restart_overhead_hours: 0.05,
                save_minutes: None,
            }),
            ..base(
                "Stable Diffusion LoRA training",
                TaskKind::SdLoraTraining,
                3.0,
                "RTX4090",
                12.0,
            )
        },
        "qlora_7b" => TaskProfile {
            runs: 3,
            checkpoint: Some(Checkpoint {
                interval_hours: 0.5,
                restart_overhead_hours: 0.1,
                save_minutes: None,
            }),
            prototype: Some(Prototype { hours: 8.0 }),
            storage_gb: 60.0,
            ..base(
                "7B QLoRA fine-tune",
                TaskKind::FineTuneQlora,
                6.0,
                "A100-80GB",
                14.0,
            )
        },
        "full_finetune_multi_gpu" => TaskProfile {
            gpus: 8,
            scales_across_gpus: true,
            // A 7B model's BF16 gradients all-reduced every step; 90,000 steps of about 2 s
            // each on an A100 (4,096 tokens per GPU per step).
            data_parallel: Some(DataParallel {
                params_b: 7.0,
                trainable_params_b: None,
                steps: 90_000,
                sharded: false,
                overlap: None,
                tensor_parallel: None,
                hidden: None,
                layers: None,
                tokens_per_step: None,
            }),
            deadline_hours: Some(120.0),
            deadline_penalty: Some(Decimal::from(20_000)),
            checkpoint: Some(Checkpoint {
                interval_hours: 1.0,
                restart_overhead_hours: 0.25,
                save_minutes: None,
            }),
            sensitivity: Sensitivity::Internal,
            value_of_time_per_hour: Decimal::from(200),
            storage_gb: 1000.0,
            storage_months: 2.0,
            egress_gb: 200.0,
            ..base(
                "Full fine-tune on 8 GPUs",
                TaskKind::FineTuneFull,
                400.0,
                "A100-80GB",
                70.0,
            )
        },
        "inference_api" => TaskProfile {
            bound: Bound::Memory,
            latency: Some(LatencyTarget {
                p99_ms: 300.0,
                base_ms: 120.0,
            }),
            service: Some(Service {
                hours_per_month: 730.0,
                months: 3.0,
            }),
            interruptible: false,
            sensitivity: Sensitivity::Internal,
            value_of_time_per_hour: Decimal::ZERO,
            storage_gb: 100.0,
            storage_months: 3.0,
            egress_gb: 300.0,
            // A steady, low-traffic API: one request every five seconds, around the clock.
            serving: Some(ServingSpec {
                model: "llama-3.1-8b".to_owned(),
                weights: None,
                gpus_per_replica: None,
                traffic: crate::task::traffic::steady_api(0.2),
            }),
            ..base(
                "Inference API with a P99 target",
                TaskKind::Inference,
                0.0,
                "A100-80GB",
                20.0,
            )
        },
        "burst_rendering" => TaskProfile {
            deadline_hours: Some(24.0),
            deadline_penalty: Some(Decimal::from(2_000)),
            checkpoint: Some(Checkpoint {
                interval_hours: 0.1,
                restart_overhead_hours: 0.02,
                save_minutes: None,
            }),
            storage_gb: 300.0,
            egress_gb: 150.0,
            ..base(
                "Burst rendering",
                TaskKind::Rendering,
                30.0,
                "RTX4090",
                16.0,
            )
        },
        "data_cleaning" => TaskProfile {
            checkpoint: Some(Checkpoint {
                interval_hours: 0.25,
                restart_overhead_hours: 0.05,
                save_minutes: None,
            }),
            value_of_time_per_hour: Decimal::from(15),
            storage_gb: 500.0,
            egress_gb: 20.0,
            ..base("Data cleaning batch", TaskKind::Batch, 10.0, "A10", 8.0)
        },
        "code_check" => TaskProfile {
            storage_gb: 10.0,
            egress_gb: 0.0,
            ..base(
                "Does my code run?",
                TaskKind::CodeCheck,
                0.3,
                "RTX4090",
                8.0,
            )
        },
        _ => return None,
    };
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid() {
        for id in PRESET_IDS {
            let t = preset(id).unwrap();
            t.validate().unwrap_or_else(|e| panic!("{id}: {e}"));
        }
        assert!(preset("nope").is_none());
    }
}
