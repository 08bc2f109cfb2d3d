//! Flag values more than one command takes, parsed one way.

/// Parses a size above zero such as `512M`, `1G`, `1.5G`, `16MiB` or `1048576` (bytes, binary
/// units K, M, G and T), into bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (number, unit) = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or((t, ""), |i| t.split_at(i));
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size like 512M or 1G"))?;
    let scale: u64 = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => {
            return Err(format!(
                "{text:?}: unknown unit {unit:?} (use K, M, G or T)"
            ));
        }
    };
    let bytes = value * scale as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes >= u64::MAX as f64 {
        return Err(format!("{text:?} is not a size above 0"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_size("16M"), Ok(16 << 20));
        assert_eq!(parse_size("2048"), Ok(2048));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("G").is_err());
    }
}
