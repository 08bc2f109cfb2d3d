//! Share links: a scenario as URL-safe base64 JSON in the page's fragment (`#s=...`), which
//! browsers never send to a server.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::offers::catalog::Catalog;
use crate::scenario::document::{Scenario, ScenarioError, parse_scenario};

/// Encodes a scenario for a share link (URL-safe base64 of compact JSON).
pub fn encode_share(scenario: &Scenario) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_string(scenario).unwrap_or_default())
}

/// Decodes a share link's payload.
pub fn decode_share(payload: &str) -> Result<Scenario, ScenarioError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(payload.trim().trim_end_matches('='))
        .map_err(|_| ScenarioError::NotBase64)?;
    let text = String::from_utf8(bytes).map_err(|_| ScenarioError::NotBase64)?;
    parse_scenario(&text)
}

/// Decodes a share link's payload and checks it against the base catalog it will be priced
/// with (see [`Scenario::validate_offers`]).
pub fn decode_share_for(payload: &str, base: &Catalog) -> Result<Scenario, ScenarioError> {
    let scenario = decode_share(payload)?;
    scenario.validate_offers(base)?;
    Ok(scenario)
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;

    use super::*;
    use crate::task::presets::preset;

    #[test]
    fn share_links_round_trip() {
        let mut s = Scenario::new(preset("qlora_7b").unwrap(), Some("qlora_7b"));
        s.edits
            .prices
            .insert("autodl-4090-payg".to_owned(), Decimal::new(155, 2));
        let link = encode_share(&s);
        assert!(
            link.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
        assert_eq!(decode_share(&link).unwrap(), s);
        assert_eq!(decode_share("%%%"), Err(ScenarioError::NotBase64));
        assert!(matches!(
            decode_share(&URL_SAFE_NO_PAD.encode("{\"format_version\":9}")),
            Err(ScenarioError::UnsupportedFormat { found: 9, .. })
        ));
    }
}
