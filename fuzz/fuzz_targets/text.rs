//! A text file's bytes in any encoding: decoded by core's rule (byte-order mark, else UTF-8, else
//! GB18030), then read as a catalog. Checks what the rule promises: UTF-8 is chosen exactly for
//! valid UTF-8 and gives the bytes back, GB18030 only for bytes that are not UTF-8, and no
//! decoded text holds a NUL; and that reading never panics.
#![no_main]

use gpufare_core::numbers::text::{TextEncoding, decode_text};
use gpufare_core::offers::import::read_catalog_file;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match decode_text(data) {
        Ok(decoded) => {
            assert!(!decoded.text.contains('\0'), "decoded text holds a NUL");
            match decoded.encoding {
                TextEncoding::Utf8 => assert_eq!(decoded.text.as_bytes(), data),
                TextEncoding::Utf8Bom => assert_eq!(decoded.text.as_bytes(), &data[3..]),
                TextEncoding::Gb18030 => {
                    assert!(
                        std::str::from_utf8(data).is_err(),
                        "valid UTF-8 read as GB18030"
                    );
                }
                TextEncoding::Utf16Le | TextEncoding::Utf16Be => {
                    assert!(data.starts_with(b"\xFF\xFE") || data.starts_with(b"\xFE\xFF"));
                }
            }
        }
        Err(e) => {
            let said = e.to_string();
            assert!(!said.is_empty());
        }
    }
    let _ = read_catalog_file("quotes.csv", data, "2026-12-05");
});
