//! Text files as people save them. Procurement lives in Excel, and Excel on Chinese Windows
//! saves "CSV" in the system's code page (936, GBK), "Unicode text" in UTF-16 little-endian with
//! a byte-order mark (tab-separated; the catalog reader takes tabs too), and "CSV UTF-8" with a
//! UTF-8 byte-order mark; editors elsewhere save plain UTF-8. [`decode_text`] turns such a file's bytes into text and names the encoding it read.
//!
//! The rule, in order:
//!
//! 1. A zip archive or an OLE compound file is a workbook (`.xlsx`, `.xls`), not text: refused
//!    with a hint to save the sheet as CSV.
//! 2. A byte-order mark decides: `EF BB BF` UTF-8, `FF FE` UTF-16LE, `FE FF` UTF-16BE (the
//!    WHATWG Encoding Standard's BOM sniffing). The rest must then be valid in that encoding.
//! 3. Without one: valid UTF-8 is UTF-8 (ASCII included); anything else is decoded as GB18030,
//!    which contains GBK and GB2312, and must be valid GB18030.
//! 4. Decoded text holding a NUL character is refused: that is UTF-16 without a byte-order mark,
//!    or not a text file at all.
//!
//! Why not a statistical detector (chardetng): the files are catalogs and quotes, whose
//! encodings are few and known; a guess from byte frequencies can pick Big5 or Shift_JIS for a
//! short GBK file, while "valid UTF-8, else GB18030" is exact for every UTF-8 file (a GBK file
//! with Chinese text is almost never valid UTF-8: its lead bytes 0x81–0xFE would need UTF-8's
//! exact continuation pattern) and decodes every file Excel saves on a Chinese Windows. What it
//! cannot tell apart is a Big5 (Traditional Chinese) file, which mostly decodes as GB18030 into
//! the wrong characters; a GB18030 decode that hits an invalid sequence is refused instead of
//! replaced, so bad bytes are never silently turned into U+FFFD.
//!
//! Decoding is encoding_rs's, which implements the Encoding Standard (the decoders browsers use);
//! nothing here panics on any input.

use encoding_rs::{DecoderResult, Encoding, GB18030, UTF_16BE, UTF_16LE};
use thiserror::Error;

/// The UTF-8 byte-order mark as a character: spreadsheet programs (Excel in particular) read a
/// CSV file as UTF-8 when it starts with one, and as the system's code page otherwise.
pub const UTF8_BOM: char = '\u{FEFF}';

/// The encodings [`decode_text`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    /// UTF-8 without a byte-order mark (plain ASCII too).
    Utf8,
    /// UTF-8 with a byte-order mark (Excel's "CSV UTF-8").
    Utf8Bom,
    /// UTF-16 little-endian, with its byte-order mark (Excel's "Unicode text", tab-separated).
    Utf16Le,
    /// UTF-16 big-endian, with its byte-order mark.
    Utf16Be,
    /// GB18030, which contains GBK (code page 936) and GB2312: Excel's "CSV" on Chinese Windows.
    Gb18030,
}

impl TextEncoding {
    /// Every encoding, in declaration order.
    pub const ALL: [TextEncoding; 5] = [
        TextEncoding::Utf8,
        TextEncoding::Utf8Bom,
        TextEncoding::Utf16Le,
        TextEncoding::Utf16Be,
        TextEncoding::Gb18030,
    ];

    /// The encoding's name as people know it, e.g. `GB18030` or `UTF-8 with BOM` (English).
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Utf8Bom => "UTF-8 with BOM",
            TextEncoding::Utf16Le => "UTF-16LE",
            TextEncoding::Utf16Be => "UTF-16BE",
            TextEncoding::Gb18030 => "GB18030",
        }
    }
}

impl std::fmt::Display for TextEncoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A file's text and the encoding it was read in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text, without a byte-order mark.
    pub text: String,
    /// The encoding read.
    pub encoding: TextEncoding,
}

/// Why a file's bytes are not text gpufare reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TextError {
    /// A spreadsheet workbook (a zip archive such as `.xlsx`, or an old `.xls`).
    #[error(
        "this is a spreadsheet workbook (.xlsx or .xls), not a text file: save the sheet as \
         \"CSV UTF-8\" (or CSV) and read that"
    )]
    Workbook,
    /// A byte-order mark names the encoding, but the bytes after it are not valid in it.
    #[error(
        "the file starts with a {encoding} byte-order mark but line {line} is not valid {encoding}"
    )]
    Malformed {
        /// The encoding its byte-order mark names.
        encoding: TextEncoding,
        /// 1-based line of the first invalid bytes.
        line: u64,
    },
    /// Neither valid UTF-8 nor valid GB18030 (and no byte-order mark).
    #[error(
        "the file is neither UTF-8 (byte 0x{utf8_byte:02X} on line {utf8_line} is not valid \
         there), UTF-16 with a byte-order mark, nor GB18030 (byte 0x{gb18030_byte:02X} on line \
         {gb18030_line} is not valid there): save it as \"CSV UTF-8\""
    )]
    Unknown {
        /// 1-based line of the first byte that is not UTF-8.
        utf8_line: u64,
        /// That byte.
        utf8_byte: u8,
        /// 1-based line of the first byte that is not GB18030.
        gb18030_line: u64,
        /// That byte.
        gb18030_byte: u8,
    },
    /// The decoded text holds NUL characters.
    #[error(
        "line {line} holds NUL characters: UTF-16 without a byte-order mark, or not a text \
         file; save it as \"CSV UTF-8\""
    )]
    Nul {
        /// 1-based line of the first NUL.
        line: u64,
    },
}

/// Decodes a text file's bytes by the rule in the module's documentation: the text (without a
/// byte-order mark) and the encoding read, or why the bytes are not text gpufare reads.
pub fn decode_text(bytes: &[u8]) -> Result<Decoded, TextError> {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1") {
        return Err(TextError::Workbook);
    }
    let decoded = match Encoding::for_bom(bytes) {
        Some((encoding, bom_length)) => {
            let ours = if encoding == UTF_16LE {
                TextEncoding::Utf16Le
            } else if encoding == UTF_16BE {
                TextEncoding::Utf16Be
            } else {
                TextEncoding::Utf8Bom
            };
            let rest = bytes.get(bom_length..).unwrap_or_default();
            let text = strict(encoding, rest).map_err(|bad| TextError::Malformed {
                encoding: ours,
                line: bad.line,
            })?;
            Decoded {
                text,
                encoding: ours,
            }
        }
        None => match std::str::from_utf8(bytes) {
            Ok(text) => Decoded {
                text: text.to_owned(),
                encoding: TextEncoding::Utf8,
            },
            Err(e) => {
                let at = e.valid_up_to();
                let text = strict(GB18030, bytes).map_err(|bad| TextError::Unknown {
                    utf8_line: line_at(bytes, at),
                    utf8_byte: bytes.get(at).copied().unwrap_or(0),
                    gb18030_line: bad.line,
                    gb18030_byte: bad.byte,
                })?;
                Decoded {
                    text,
                    encoding: TextEncoding::Gb18030,
                }
            }
        },
    };
    if let Some(at) = decoded.text.find('\0') {
        let before = decoded.text.as_bytes().get(..at).unwrap_or_default();
        return Err(TextError::Nul {
            line: line_at(before, before.len()),
        });
    }
    Ok(decoded)
}

/// Where a strict decode stopped.
struct Bad {
    /// 1-based line of the first invalid bytes.
    line: u64,
    /// The first invalid byte.
    byte: u8,
}

/// Decodes `bytes` in `encoding` (no byte-order mark handling), refusing any invalid sequence.
fn strict(encoding: &'static Encoding, bytes: &[u8]) -> Result<String, Bad> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let room = |decoder: &encoding_rs::Decoder, n: usize| {
        decoder
            .max_utf8_buffer_length_without_replacement(n)
            .unwrap_or(n)
    };
    let mut out = String::with_capacity(room(&decoder, bytes.len()));
    let mut pos = 0usize;
    loop {
        let rest = bytes.get(pos..).unwrap_or_default();
        let (result, read) = decoder.decode_to_string_without_replacement(rest, &mut out, true);
        match result {
            DecoderResult::InputEmpty => return Ok(out),
            DecoderResult::OutputFull => {
                pos = pos.saturating_add(read);
                let more = room(&decoder, bytes.len().saturating_sub(pos)).max(4);
                out.reserve(more);
            }
            DecoderResult::Malformed(bad_len, after) => {
                let end = pos.saturating_add(read);
                let at = end.saturating_sub(usize::from(bad_len) + usize::from(after));
                // The text decoded so far ends just before the bad bytes: its lines count them.
                let line = out
                    .bytes()
                    .filter(|&b| b == b'\n')
                    .count()
                    .saturating_add(1) as u64;
                return Err(Bad {
                    line,
                    byte: bytes.get(at).copied().unwrap_or(0),
                });
            }
        }
    }
}

/// The 1-based line of byte `at` in ASCII-compatible `bytes` (a newline is always 0x0A there).
fn line_at(bytes: &[u8], at: usize) -> u64 {
    let before = bytes.get(..at).unwrap_or(bytes);
    before
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        .saturating_add(1) as u64
}

/// `text` with a leading UTF-8 byte-order mark (as a character) removed: for readers given
/// text that another decoder left it in.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix(UTF8_BOM).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "id,provider,price\nq1,阿里云,12.5\nq2,优云智算,3\n";

    fn gb18030(text: &str) -> Vec<u8> {
        let (bytes, _, unmappable) = GB18030.encode(text);
        assert!(!unmappable);
        bytes.into_owned()
    }

    fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
        let mut out = if big_endian {
            vec![0xFE, 0xFF]
        } else {
            vec![0xFF, 0xFE]
        };
        for unit in text.encode_utf16() {
            let pair = if big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            };
            out.extend(pair);
        }
        out
    }

    #[test]
    fn each_encoding_reads_back_the_same_text_and_is_named() {
        let mut bom = "\u{FEFF}".as_bytes().to_vec();
        bom.extend(CSV.as_bytes());
        let cases = [
            (CSV.as_bytes().to_vec(), TextEncoding::Utf8),
            (bom, TextEncoding::Utf8Bom),
            (utf16(CSV, false), TextEncoding::Utf16Le),
            (utf16(CSV, true), TextEncoding::Utf16Be),
            (gb18030(CSV), TextEncoding::Gb18030),
        ];
        for (bytes, encoding) in cases {
            let d = decode_text(&bytes).unwrap();
            assert_eq!(d.encoding, encoding);
            assert_eq!(d.text, CSV, "{encoding}");
        }
        // GBK is not UTF-8: the GB18030 bytes really differ from the UTF-8 ones.
        assert!(std::str::from_utf8(&gb18030(CSV)).is_err());
        assert_eq!(decode_text(b"").unwrap().encoding, TextEncoding::Utf8);
        assert_eq!(TextEncoding::Gb18030.to_string(), "GB18030");
    }

    #[test]
    fn a_file_in_neither_encoding_is_refused_with_its_line() {
        // Latin-1 "café" followed by a comma: 0xE9 0x2C is neither UTF-8 nor GB18030.
        let err = decode_text(b"id,name\nq1,caf\xE9,2\n").unwrap_err();
        assert_eq!(
            err,
            TextError::Unknown {
                utf8_line: 2,
                utf8_byte: 0xE9,
                gb18030_line: 2,
                gb18030_byte: 0xE9,
            }
        );
        assert!(err.to_string().contains("line 2"), "{err}");
        // A UTF-8 BOM followed by bytes that are not UTF-8.
        let err = decode_text(b"\xEF\xBB\xBFa\nb\n\xFF\n").unwrap_err();
        assert_eq!(
            err,
            TextError::Malformed {
                encoding: TextEncoding::Utf8Bom,
                line: 3
            }
        );
        // UTF-16 with an unpaired surrogate, and with an odd byte at the end.
        let mut lone = utf16("a\nb\n", false);
        lone.extend([0x00, 0xD8, b'x', 0x00]);
        assert!(matches!(
            decode_text(&lone),
            Err(TextError::Malformed {
                encoding: TextEncoding::Utf16Le,
                line: 3
            })
        ));
        let mut odd = utf16("a", true);
        odd.push(0x41);
        assert!(matches!(
            decode_text(&odd),
            Err(TextError::Malformed { .. })
        ));
    }

    #[test]
    fn workbooks_and_utf16_without_a_bom_are_named() {
        assert_eq!(
            decode_text(b"PK\x03\x04\x14\x00rest"),
            Err(TextError::Workbook)
        );
        assert_eq!(
            decode_text(b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\x00\x00"),
            Err(TextError::Workbook)
        );
        let no_bom: Vec<u8> = utf16("id,x\n1,2\n", false).split_off(2);
        assert_eq!(decode_text(&no_bom), Err(TextError::Nul { line: 1 }));
    }

    #[test]
    fn a_bom_left_in_text_is_removed() {
        assert_eq!(without_bom("\u{FEFF}id,x"), "id,x");
        assert_eq!(without_bom("id,x"), "id,x");
    }
}
