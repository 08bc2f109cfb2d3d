//! The JSON Schemas checked in under `public/schema/` must match the types exactly.
#![cfg(not(target_arch = "wasm32"))]
// Tests may read files; the library itself may not (core/clippy.toml).
#![allow(clippy::disallowed_methods)]

use gpufare_core::schema::{SCHEMAS, schema_json};

#[test]
fn checked_in_schemas_match_the_types() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../public/schema");
    for name in SCHEMAS {
        let path = dir.join(format!("{name}.schema.json"));
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        let generated = schema_json(name).unwrap();
        assert!(
            on_disk == generated,
            "{} is out of date with the types; run `cargo xtask schemas` and commit the result",
            path.display()
        );
        let value: serde_json::Value = serde_json::from_str(&generated).unwrap();
        assert_eq!(
            value["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert!(
            value["properties"]["format_version"].is_object(),
            "{name} has format_version"
        );
        // A rules file is written by hand and every key has a default, its version too.
        if name != "fleet-rules" {
            assert_eq!(
                value["required"][0], "format_version",
                "{name}: format_version is required first"
            );
        }
    }
}

#[test]
fn example_task_files_match_the_presets() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for id in gpufare_core::task::presets::PRESET_IDS {
        let path = dir.join(format!("{id}.json"));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let want = format!(
            "{}\n",
            serde_json::to_string_pretty(&gpufare_core::task::presets::preset(id).unwrap())
                .unwrap()
        );
        assert!(
            text == want,
            "{} is out of date; run `cargo xtask schemas`",
            path.display()
        );
        gpufare_core::task::document::parse_task(&text).unwrap();
    }
}
