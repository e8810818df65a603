//! The printf buffer of HSA code objects written by OpenCL's printf (numbered records; HIP's
//! buffered printf, which names formats by hash, is the `hip` module).
//!
//! # Who writes what
//!
//! The writer is LLVM's AMDGPUPrintfRuntimeBinding pass (LLVM 19), which replaces each
//! `printf(fmt, args...)` by:
//!
//! ```text
//! %p = call ptr addrspace(1) @__printf_alloc(i32 SUM)   ; SUM = 4 + the argument sizes
//! if (%p != null) {
//!   store i32 ID, %p                                    ; the call's amdhsa.printf ID
//!   store ARG1, %p + 4                                  ; each argument at the running
//!   store ARG2, %p + 4 + SIZE1                          ; sum of the sizes before it
//!   ...
//! }
//! ```
//!
//! with the sizes recorded in the code object's `amdhsa.printf` entry `ID:N:SIZE1:...:FORMAT`
//! (see `fmtstr_elf::hsa`). What an argument's bytes are:
//! - integers of 4 or 8 bytes as they are (little-endian); narrower ones widened to 4 bytes,
//!   zero-extended for `%u %o %x %X` and sign-extended otherwise; vectors of narrow elements
//!   widened per element to `i32` lanes when the vector's size is not a multiple of 4;
//! - floating values as their IEEE bits; for `%f` a float constant, or a double that is an
//!   `fpext` of a float, is stored as the 4-byte float (so a 4-byte `%f`/`%e`/... payload is a
//!   float, an 8-byte one a double, a 2-byte one a half);
//! - `%s` of a constant string: the string's bytes and its NUL, zero-padded to a multiple of 4
//!   (an empty string is stored as the word 0xFFFFFF00, whose first byte is the NUL); of a
//!   string the compiler cannot see, the 4 bytes `???` and NUL;
//! - pointers for `%p` as their 4 or 8 bytes.
//!
//! `__printf_alloc` (ROCm device libraries, `ockl`) reserves the record in one buffer the
//! runtime passes in the implicit kernel arguments:
//!
//! ```text
//! offset 0: u32 used       bytes of records written after this 8-byte header (atomic add)
//! offset 4: u32 capacity   the bytes the runtime made available for records
//! offset 8: records, back to back, each 4-aligned: u32 ID, then the argument bytes
//! ```
//!
//! A call whose record does not fit gets a null pointer and writes nothing (printf returns
//! -1): nothing is lost silently in the middle of the buffer, only calls past the end.
//!
//! The reader is ROCm's runtime (rocclr `PrintfDbg::output`): it walks `used` bytes from offset
//! 8, looks each ID up in the code object's printf table and takes the record's length from
//! the sizes there (4 + their sum). fmtstr reads the same way and trusts nothing: an unknown
//! ID or a record running past `used` ends the walk (nothing says where a next record would
//! start); a `used` past the end of the file is reported as lost bytes.
//!
//! Where fmtstr and rocclr differ: rocclr prints a `%s` whose first byte is NUL (the empty
//! string) as `(null)`; fmtstr prints what C's printf prints for `""`, nothing.

use std::collections::HashMap;
use std::io::Write as _;

use fmtstr_format::{Arg, ArgClass, ArgSlot, Format, Spec};

use crate::vprintf::half_to_f64;

/// Bytes before the first record.
pub const HEADER_BYTES: usize = 8;

/// One `amdhsa.printf` entry, as the decoder needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HsaFormat {
    /// The call's ID.
    pub id: u32,
    /// Bytes each argument takes in the record.
    pub sizes: Vec<u32>,
    /// The format string (unescaped).
    pub format: Vec<u8>,
    /// Where the entry came from, for messages (`k.o amdhsa.printf[3]`).
    pub source: String,
}

impl HsaFormat {
    /// Bytes of one record: the ID and the arguments.
    pub fn record_len(&self) -> u64 {
        4 + self.sizes.iter().map(|s| u64::from(*s)).sum::<u64>()
    }
}

/// Formats by ID, each parsed once.
#[derive(Debug, Default)]
pub struct HsaFormats {
    by_id: HashMap<u32, (HsaFormat, Result<Format, String>)>,
    /// IDs given twice with different entries: the first one is used.
    pub duplicates: Vec<(HsaFormat, HsaFormat)>,
}

impl HsaFormats {
    /// Indexes the entries by ID, parsing each format once. An ID given again keeps its first
    /// entry; different sizes or a different format are recorded in [`HsaFormats::duplicates`].
    pub fn new(formats: impl IntoIterator<Item = HsaFormat>) -> HsaFormats {
        let mut table = HsaFormats::default();
        for format in formats {
            if let Some((first, _)) = table.by_id.get(&format.id) {
                if first.sizes != format.sizes || first.format != format.format {
                    table.duplicates.push((first.clone(), format));
                }
                continue;
            }
            let parsed = Format::parse(&format.format).map_err(|e| e.to_string());
            table.by_id.insert(format.id, (format, parsed));
        }
        table
    }

    /// The entry a record's ID names (the first one given for it).
    pub fn get(&self, id: u32) -> Option<&HsaFormat> {
        self.by_id.get(&id).map(|(format, _)| format)
    }

    /// The number of distinct IDs known.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether no entry was given (the first record will stop the walk).
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// Why a buffer cannot be read at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HsaBufferError {
    /// The buffer is shorter than the 8-byte header (`used`, capacity), so not even where the
    /// records end can be read.
    #[error(
        "is {len} bytes, shorter than the 8-byte header of an HSA printf buffer (u32 bytes \
         used, u32 capacity)"
    )]
    TooShort {
        /// The buffer's length in bytes.
        len: usize,
    },
}

/// Something the decoder met: where (byte offset in the buffer) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HsaProblem {
    /// Byte offset in the buffer of the record (0 for a problem with the header itself).
    pub offset: usize,
    /// What is wrong and what was done about it, one line without the offset.
    pub message: String,
    /// Whether decoding stopped here.
    pub stopped: bool,
}

impl std::fmt::Display for HsaProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.message)
    }
}

/// A decoded buffer: the text and what was found on the way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HsaDecoded {
    /// The printed text, with a `<fmtstr: ...>` marker line where a record could not be
    /// printed or the walk stopped.
    pub text: Vec<u8>,
    /// Records walked over, those replaced by a marker included (not one the walk stopped at).
    pub records: usize,
    /// Every problem, in buffer order; at most the last one has `stopped` set.
    pub problems: Vec<HsaProblem>,
    /// Bytes the header says were written but the file does not hold.
    pub lost: u64,
}

/// The 8-byte header both kinds of buffer share (`used`, capacity): where the records end,
/// and the bytes lost when `used` runs past the file (a problem of its own, not a stop).
pub(crate) fn records_end(bytes: &[u8]) -> Result<(HsaDecoded, usize), HsaBufferError> {
    if bytes.len() < HEADER_BYTES {
        return Err(HsaBufferError::TooShort { len: bytes.len() });
    }
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let used = u64::from(word(0));
    let available = (bytes.len() - HEADER_BYTES) as u64;
    let mut decoded = HsaDecoded::default();
    if used > available {
        decoded.lost = used - available;
        decoded.problems.push(HsaProblem {
            offset: 0,
            message: format!(
                "the header says {used} bytes of records were written but the buffer holds \
                 {available} after its header: {} bytes are missing (a truncated dump?)",
                used - available
            ),
            stopped: false,
        });
    }
    let end = HEADER_BYTES + used.min(available) as usize;
    Ok((decoded, end))
}

/// Decodes a whole HSA printf buffer (header included).
pub fn decode(bytes: &[u8], formats: &HsaFormats) -> Result<HsaDecoded, HsaBufferError> {
    let (mut decoded, end) = records_end(bytes)?;
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let mut at = HEADER_BYTES;
    while at < end {
        let stop = |decoded: &mut HsaDecoded, message: String| {
            let problem = HsaProblem {
                offset: at,
                message,
                stopped: true,
            };
            let _ = writeln!(decoded.text, "<fmtstr: {problem}>");
            decoded.problems.push(problem);
        };
        if end - at < 4 {
            stop(
                &mut decoded,
                format!(
                    "{} bytes remain, too few for a record's 4-byte ID",
                    end - at
                ),
            );
            break;
        }
        let id = word(at);
        let Some((format, parsed)) = formats.by_id.get(&id) else {
            stop(
                &mut decoded,
                format!(
                    "ID {id} is in no amdhsa.printf table given (give the code object the \
                     kernel ran with --elf); without its sizes the record's length is unknown, \
                     so decoding stops"
                ),
            );
            break;
        };
        let len = format.record_len();
        if at as u64 + len > end as u64 {
            stop(
                &mut decoded,
                format!(
                    "the record of ID {id} ({}) takes {len} bytes but only {} remain",
                    format.source,
                    end - at
                ),
            );
            break;
        }
        let record = &bytes[at + 4..at + len as usize];
        decoded.records += 1;
        let rendered = match parsed {
            Ok(parsed) => render(parsed, format, record, &mut decoded.text),
            Err(error) => Err(format!("its format does not parse: {error}")),
        };
        if let Err(message) = rendered {
            let problem = HsaProblem {
                offset: at,
                message: format!("ID {id} ({}): {message}", format.source),
                stopped: false,
            };
            let _ = writeln!(decoded.text, "<fmtstr: {problem}>");
            decoded.problems.push(problem);
        }
        at += len as usize;
    }
    Ok(decoded)
}

/// Renders one record's arguments (`record`, after the ID) with `parsed`.
fn render(
    parsed: &Format,
    format: &HsaFormat,
    record: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let mut local: Vec<Arg<'_>> = Vec::with_capacity(format.sizes.len());
    let specs: Vec<&Spec> = parsed.specs().collect();
    let slots = parsed.arguments();
    if slots.len() > format.sizes.len() {
        return Err(format!(
            "the format takes {} arguments but the entry has sizes for {}: the compiler did not \
             store the others",
            slots.len(),
            format.sizes.len()
        ));
    }
    let mut offset = 0usize;
    for (index, (slot, &size)) in slots.iter().zip(&format.sizes).enumerate() {
        let size = size as usize;
        let field = &record[offset..offset + size];
        offset += size;
        match *slot {
            ArgSlot::Star { .. } => local.push(Arg::Int(sign_extend(field, true))),
            ArgSlot::Value { spec } => {
                let spec = specs[spec];
                if let Some(lanes) = spec.vector_len() {
                    let slots = if lanes == 3 { 4 } else { usize::from(lanes) };
                    let element = size / slots;
                    if element == 0 || element > 8 || element * slots != size {
                        return Err(format!(
                            "argument {} is a {lanes}-element vector in {size} bytes",
                            index + 1
                        ));
                    }
                    for lane in 0..usize::from(lanes) {
                        let bytes = &field[lane * element..(lane + 1) * element];
                        local.push(scalar(spec, bytes).map_err(|m| at_argument(index, &m))?);
                    }
                } else {
                    local.push(scalar(spec, field).map_err(|m| at_argument(index, &m))?);
                }
            }
        }
    }
    parsed.render(&local, out).map_err(|e| e.to_string())
}

fn at_argument(index: usize, message: &str) -> String {
    format!("argument {}: {message}", index + 1)
}

/// One value of `spec`'s class from its bytes.
fn scalar<'r>(spec: &Spec, bytes: &'r [u8]) -> Result<Arg<'r>, String> {
    Ok(match spec.class() {
        ArgClass::String => Arg::Str(bytes),
        ArgClass::Float => Arg::Float(match bytes.len() {
            2 => half_to_f64(u16::from_le_bytes([bytes[0], bytes[1]])),
            4 => f64::from(f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
            8 => f64::from_bits(sign_extend(bytes, false)),
            other => return Err(format!("a floating value of {other} bytes")),
        }),
        ArgClass::Pointer => Arg::Ptr(sign_extend(bytes, false)),
        ArgClass::Signed => Arg::Int(sign_extend(bytes, true)),
        ArgClass::Unsigned | ArgClass::Char => Arg::Int(sign_extend(bytes, false)),
    })
    .and_then(|arg| match (&arg, bytes.len()) {
        (Arg::Str(_), _) | (_, 1 | 2 | 4 | 8) => Ok(arg),
        (_, other) => Err(format!("a value of {other} bytes")),
    })
}

/// Up to 8 little-endian bytes as a u64, sign- or zero-extended.
fn sign_extend(bytes: &[u8], signed: bool) -> u64 {
    let len = bytes.len().min(8);
    let mut raw = [0u8; 8];
    raw[..len].copy_from_slice(&bytes[..len]);
    let value = u64::from_le_bytes(raw);
    if signed && len > 0 && len < 8 && bytes[len - 1] & 0x80 != 0 {
        value | (u64::MAX << (len * 8))
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(id: u32, sizes: &[u32], text: &str) -> HsaFormat {
        HsaFormat {
            id,
            sizes: sizes.to_vec(),
            format: text.as_bytes().to_vec(),
            source: format!("test[{id}]"),
        }
    }

    fn buffer(records: &[&[u8]]) -> Vec<u8> {
        let body: Vec<u8> = records.concat();
        let mut out = (body.len() as u32).to_le_bytes().to_vec();
        out.extend_from_slice(&1024u32.to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn records_render_as_their_sizes_say() {
        let formats = HsaFormats::new([
            format(1, &[4, 4, 8, 8], "x=%d f=%f l=%ld s=%s|\n"),
            format(2, &[16], "v=%v4d\n"),
        ]);
        let mut first = 1u32.to_le_bytes().to_vec();
        first.extend_from_slice(&(-7i32).to_le_bytes());
        first.extend_from_slice(&2.5f32.to_le_bytes());
        first.extend_from_slice(&(-3i64).to_le_bytes());
        first.extend_from_slice(b"hi!\0\0\0\0\0");
        let mut second = 2u32.to_le_bytes().to_vec();
        for lane in [1i32, -2, 3, 4] {
            second.extend_from_slice(&lane.to_le_bytes());
        }
        let decoded = decode(&buffer(&[&first, &second]), &formats).expect("decodes");
        assert_eq!(
            String::from_utf8_lossy(&decoded.text),
            "x=-7 f=2.500000 l=-3 s=hi!|\nv=1,-2,3,4\n"
        );
        assert_eq!(decoded.records, 2);
        assert!(decoded.problems.is_empty());
    }

    #[test]
    fn nothing_in_the_buffer_is_trusted() {
        let formats = HsaFormats::new([format(1, &[4], "%d\n")]);
        assert!(decode(&[1, 2, 3], &formats).is_err());
        // Unknown ID: stop with a marker.
        let decoded = decode(&buffer(&[&9u32.to_le_bytes()]), &formats).unwrap();
        assert!(decoded.problems[0].stopped);
        assert!(String::from_utf8_lossy(&decoded.text).contains("ID 9"));
        // A record past the end.
        let decoded = decode(&buffer(&[&1u32.to_le_bytes()]), &formats).unwrap();
        assert!(decoded.problems[0].message.contains("takes 8 bytes"));
        // `used` beyond the file.
        let mut bytes = buffer(&[]);
        bytes[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let decoded = decode(&bytes, &formats).unwrap();
        assert_eq!(decoded.lost, u64::from(u32::MAX));
        // A format with sizes for fewer arguments than it takes.
        let short = HsaFormats::new([format(1, &[4], "%d %d\n")]);
        let mut record = 1u32.to_le_bytes().to_vec();
        record.extend_from_slice(&5u32.to_le_bytes());
        let decoded = decode(&buffer(&[&record, &record]), &short).unwrap();
        assert_eq!(decoded.records, 2);
        assert_eq!(decoded.problems.len(), 2);
        assert!(!decoded.problems[0].stopped);
    }
}
