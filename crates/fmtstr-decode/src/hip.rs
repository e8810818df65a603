//! The printf buffer of HIP's buffered printf (clang `-mprintf-kind=buffered`).
//!
//! # Who writes what
//!
//! clang lowers each `printf(fmt, args...)` of HIP device code itself (LLVM's
//! `AMDGPUEmitPrintf.cpp`, its buffered path; the same in LLVM 19 and 22) into:
//!
//! ```text
//! %p = call ptr addrspace(1) @__printf_alloc(i32 SIZE)  ; SIZE: the whole record, below
//! if (%p != null) {
//!   store i32 CONTROL, %p           ; SIZE << 2 | 2 (bit 1: the format is a constant)
//!   store i64 HASH, %p + 4          ; the format's hash, as its amdhsa.printf entry gives it
//!   store ARG1, %p + 12             ; then each argument, in order
//!   ...
//! }
//! ```
//!
//! - CONTROL: bit 0 says the stream (1 for stderr; printf always writes 0), bit 1 that the
//!   format is a compile-time constant named by its hash, bits 2-31 the record's size in bytes,
//!   the control dword included;
//! - HASH: the low 64 bits of the format's MD5 (`fmtstr_elf::hsa::format_hash`), which the
//!   code object's `amdhsa.printf` entry `0:0:HASH,FORMAT` maps back to the format;
//! - every argument that is not a `%s` string takes one 8-byte slot: integers narrower than 64
//!   bits zero-extended (the conversion's length modifier reads its width back, as `va_arg`
//!   would), `float` widened to `double`, pointers as their 8 bytes. Any other value is stored
//!   as it is, in its own size rounded up to 8: a `float2` vector as two floats in one slot, an
//!   `int4` or an `__int128` in 16 bytes (clang 19 warns with -Wformat; `%v` is refused in HIP).
//!   No reader can tell that from the format: fmtstr reads one slot per conversion, as rocclr
//!   does;
//! - a `%s` argument is its bytes, the NUL, and zeros up to a multiple of 8: a string constant
//!   is stored word by word, a string the compiler cannot see is copied by a strlen loop and a
//!   `memcpy` (the padding then is whatever the buffer held). A null pointer takes no bytes at
//!   all, so nothing in the record says it was there: the reader takes the next argument's bytes
//!   for it (rocclr does the same);
//! - a format that is not a compile-time constant (bit 1 clear) is stored in the record instead
//!   of the hash, as a `%s` string is, and the arguments follow it. clang cannot see its `%s`
//!   conversions then, so their arguments are stored as 8-byte pointers: no reader can print
//!   those strings (rocclr prints the pointer's bytes as text); fmtstr marks such a record.
//!
//! Every record is therefore 4 bytes more than a multiple of 8. `__printf_alloc` (ROCm device
//! libraries, `ockl`) is the one the OpenCL path uses, over the same buffer: an 8-byte header
//! `u32 used` (bytes of records after the header, advanced atomically), `u32 size`, then the
//! records back to back (see `crate::hsa`). A call whose record does not fit gets a null
//! pointer and writes nothing.
//!
//! # The reader
//!
//! ROCm's runtime (rocclr `PrintfDbg::output`, its HIP branch) walks `used` bytes from offset 8,
//! takes each record's size from its control dword, looks the hash up in a map built from the
//! `amdhsa.printf` entries, and prints with the host's printf, taking an 8-byte slot per
//! conversion and `strlen + 1` rounded up to 8 bytes per `%s`. fmtstr reads the same way and
//! trusts nothing: a control dword whose size cannot be a record's, a record past `used`, or a
//! hash in no table ends the walk with a marker line (each is a [`HsaProblem`] with
//! `stopped`); a record whose format needs more bytes than it holds is replaced by a marker
//! and the walk goes on (the control dword says where the next record starts).
//!
//! Where fmtstr and rocclr differ: rocclr turns `\n`, `\72` and the like *in the format's bytes*
//! into control characters (a leftover of the OpenCL entries, which escape them) and sizes a
//! `%s` by the characters it printed (wrong for `%.3s`); fmtstr prints what C's printf prints
//! for the format the program wrote, and sizes a `%s` by its NUL.

use std::collections::HashMap;
use std::io::Write as _;

use fmtstr_format::{Arg, ArgClass, ArgSlot, Format, Spec};

use crate::hsa::{records_end, HsaBufferError, HsaDecoded, HsaProblem, HEADER_BYTES};

/// Bit 1 of the control dword: the record names its format by hash.
pub const CONSTANT_FORMAT: u32 = 2;
/// Bit 0 of the control dword: the call printed to stderr.
pub const STDERR: u32 = 1;

/// One `amdhsa.printf` entry of HIP's buffered printf, as the decoder needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HipFormat {
    /// The hash the records carry.
    pub hash: u64,
    /// The format's bytes.
    pub format: Vec<u8>,
    /// Where the entry came from, for messages (`k.o amdhsa.printf[3]`).
    pub source: String,
}

/// Formats by hash, each parsed once.
#[derive(Debug, Default)]
pub struct HipFormats {
    by_hash: HashMap<u64, (HipFormat, Result<Format, String>)>,
    /// Hashes given twice with different formats: the first one is used.
    pub duplicates: Vec<(HipFormat, HipFormat)>,
}

impl HipFormats {
    /// Indexes the entries by hash, parsing each format once. A hash given again keeps its
    /// first entry; a different format under it is recorded in [`HipFormats::duplicates`].
    pub fn new(formats: impl IntoIterator<Item = HipFormat>) -> HipFormats {
        let mut table = HipFormats::default();
        for format in formats {
            if let Some((first, _)) = table.by_hash.get(&format.hash) {
                if first.format != format.format {
                    table.duplicates.push((first.clone(), format));
                }
                continue;
            }
            let parsed = Format::parse(&format.format).map_err(|e| e.to_string());
            table.by_hash.insert(format.hash, (format, parsed));
        }
        table
    }

    /// The entry a record's hash names (the first one given for it).
    pub fn get(&self, hash: u64) -> Option<&HipFormat> {
        self.by_hash.get(&hash).map(|(format, _)| format)
    }

    /// The number of distinct hashes known.
    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    /// Whether no entry was given (every constant-format record will stop the walk).
    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }
}

/// Decodes a whole buffer of HIP's buffered printf (header included).
pub fn decode(bytes: &[u8], formats: &HipFormats) -> Result<HsaDecoded, HsaBufferError> {
    let (mut decoded, end) = records_end(bytes)?;
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let mut at = HEADER_BYTES;
    while at < end {
        let mark = |decoded: &mut HsaDecoded, message: String, stopped: bool| {
            let problem = HsaProblem {
                offset: at,
                message,
                stopped,
            };
            let _ = writeln!(decoded.text, "<fmtstr: {problem}>");
            decoded.problems.push(problem);
        };
        if end - at < 4 {
            let message = format!(
                "{} bytes remain before `used` ends, too few for a record's 4-byte control dword; \
                 the header's `used` is wrong or the dump is cut",
                end - at
            );
            mark(&mut decoded, message, true);
            break;
        }
        let control = word(at);
        let size = (control >> 2) as usize;
        let constant = control & CONSTANT_FORMAT != 0;
        if size < 12 || size % 8 != 4 {
            let message = format!(
                "control dword {control:#010x} says the record takes {size} bytes, but every \
                 record of HIP's buffered printf takes 12 or more, 4 more than a multiple of 8 \
                 (SIZE << 2 | 2): this is not such a record (is the buffer from this kind of \
                 code object, and read from its start?); decoding stops"
            );
            mark(&mut decoded, message, true);
            break;
        }
        if size > end - at {
            let message = format!(
                "the record's control dword {control:#010x} says it takes {size} bytes but only \
                 {} remain before `used` ends; the record was cut or the control dword is wrong; \
                 decoding stops",
                end - at
            );
            mark(&mut decoded, message, true);
            break;
        }
        let body = &bytes[at + 4..at + size];
        let rendered = if constant {
            let hash = u64::from_le_bytes(body[..8].try_into().expect("8 bytes"));
            let Some((format, parsed)) = formats.by_hash.get(&hash) else {
                let message = format!(
                    "hash {hash:016x} is in no amdhsa.printf table given (give the code object \
                     the kernel ran with --elf); decoding stops"
                );
                mark(&mut decoded, message, true);
                break;
            };
            match parsed {
                Ok(parsed) => render(parsed, &body[8..], true, &mut decoded.text),
                Err(error) => Err(format!("its format does not parse: {error}")),
            }
            .map_err(|message| {
                format!(
                    "hash {hash:016x} ({} \"{}\"): {message}",
                    format.source,
                    fmtstr_meta::escape::escape(&format.format)
                )
            })
        } else {
            inline_format(body, &mut decoded.text)
                .map_err(|message| format!("a record with its format inline: {message}"))
        };
        decoded.records += 1;
        if let Err(message) = rendered {
            mark(&mut decoded, message, false);
        }
        at += size;
    }
    Ok(decoded)
}

/// A record whose format is stored in it (bit 1 clear): the format as a `%s` string, then the
/// arguments.
fn inline_format(body: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let (format, taken) = string(body).ok_or("the format's bytes have no NUL in the record")?;
    let parsed = Format::parse(format).map_err(|e| format!("its format does not parse: {e}"))?;
    render(&parsed, body.get(taken..).unwrap_or_default(), false, out)
}

/// A `%s` string at the start of `bytes`: its bytes before the NUL, and the bytes it takes
/// (the NUL included, rounded up to 8); `None` without a NUL.
fn string(bytes: &[u8]) -> Option<(&[u8], usize)> {
    let len = bytes.iter().position(|b| *b == 0)?;
    Some((&bytes[..len], (len + 1).div_ceil(8) * 8))
}

/// Renders the arguments `args` (the record after its hash or format) with `parsed`; a `%s`
/// argument is the string's bytes when `strings_inline` (the format was a constant), else the
/// pointer clang stored for it.
fn render(
    parsed: &Format,
    args: &[u8],
    strings_inline: bool,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let specs: Vec<&Spec> = parsed.specs().collect();
    let mut values: Vec<Arg<'_>> = Vec::with_capacity(specs.len());
    let mut offset = 0usize;
    for (index, slot) in parsed.arguments().iter().enumerate() {
        let rest = &args[offset.min(args.len())..];
        let spec = match *slot {
            ArgSlot::Star { .. } => None,
            ArgSlot::Value { spec } => Some(specs[spec]),
        };
        if let Some(lanes) = spec.and_then(|spec| spec.vector_len()) {
            return Err(format!(
                "argument {} is an OpenCL vector (%v{lanes}...), which HIP's buffered printf \
                 does not store per component",
                index + 1
            ));
        }
        let is_string = spec.is_some_and(|spec| spec.class() == ArgClass::String);
        if is_string && !strings_inline {
            let pointer = rest.get(..8).map_or_else(
                || "no pointer".to_owned(),
                |bytes| {
                    format!(
                        "{:#x}",
                        u64::from_le_bytes(bytes.try_into().expect("8 bytes"))
                    )
                },
            );
            return Err(format!(
                "argument {} is a %s of a format the compiler could not see, so clang stored the \
                 string's address ({pointer}), not its characters: it cannot be printed (give \
                 printf a constant format to have strings copied)",
                index + 1
            ));
        }
        if is_string {
            let Some((text, taken)) = string(rest) else {
                return Err(format!(
                    "argument {} (a %s string) has no NUL in the {} bytes left in the record",
                    index + 1,
                    rest.len()
                ));
            };
            values.push(Arg::Str(text));
            offset += taken;
            continue;
        }
        let Some(slot) = rest.get(..8) else {
            return Err(format!(
                "the format takes {} arguments but the record's {} bytes of arguments end at \
                 argument {}",
                parsed.argument_count(),
                args.len(),
                index + 1
            ));
        };
        let bits = u64::from_le_bytes(slot.try_into().expect("8 bytes"));
        values.push(match spec.map(|spec| spec.class()) {
            Some(ArgClass::Float) => Arg::Float(f64::from_bits(bits)),
            Some(ArgClass::Pointer) => Arg::Ptr(bits),
            _ => Arg::Int(bits),
        });
        offset += 8;
    }
    parsed.render(&values, out).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(hash: u64, text: &str) -> HipFormat {
        HipFormat {
            hash,
            format: text.as_bytes().to_vec(),
            source: format!("test[{hash:x}]"),
        }
    }

    /// A record: the control dword for its size, then `parts`.
    fn record(constant: bool, parts: &[&[u8]]) -> Vec<u8> {
        let body: Vec<u8> = parts.concat();
        let size = 4 + body.len() as u32;
        let mut out = (size << 2 | if constant { 2 } else { 0 })
            .to_le_bytes()
            .to_vec();
        out.extend_from_slice(&body);
        out
    }

    fn buffer(records: &[&[u8]]) -> Vec<u8> {
        let body: Vec<u8> = records.concat();
        let mut out = (body.len() as u32).to_le_bytes().to_vec();
        out.extend_from_slice(&4096u32.to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    fn slot(value: u64) -> [u8; 8] {
        value.to_le_bytes()
    }

    #[test]
    fn records_render_as_the_writer_stores_them() {
        let formats = HipFormats::new([
            format(7, "x=%d u=%hhu l=%ld f=%.2f s=%s|%5s|\n"),
            format(8, "none\n"),
        ]);
        let first = record(
            true,
            &[
                &slot(7),
                &slot(u64::from(-7i32 as u32)),
                &slot(0x1ff),
                &slot(-3i64 as u64),
                &slot(2.5f64.to_bits()),
                b"hello\0\0\0",
                b"ab\0\0\0\0\0\0",
            ],
        );
        let second = record(true, &[&slot(8)]);
        let third = record(
            false,
            &[b"t=%d %x\n\0\0\0\0\0\0\0\0", &slot(42), &slot(255)],
        );
        let decoded = decode(&buffer(&[&first, &second, &third]), &formats).expect("decodes");
        assert_eq!(
            String::from_utf8_lossy(&decoded.text),
            "x=-7 u=255 l=-3 f=2.50 s=hello|   ab|\nnone\nt=42 ff\n"
        );
        assert_eq!(decoded.records, 3);
        assert!(decoded.problems.is_empty(), "{:?}", decoded.problems);
    }

    #[test]
    fn random_buffers_never_panic() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(19);
        let formats = HipFormats::new([format(7, "%d %s %f %*d %c %p\n"), format(8, "%s%s%s")]);
        for _ in 0..20_000 {
            let len = rng.gen_range(0..96);
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            if bytes.len() >= 8 && rng.gen_bool(0.8) {
                let used = rng.gen_range(0..=bytes.len() as u32);
                bytes[0..4].copy_from_slice(&used.to_le_bytes());
            }
            if bytes.len() >= 20 && rng.gen_bool(0.5) {
                let size = (rng.gen_range(1..=(bytes.len() as u32 - 8) / 8) * 8 + 4)
                    .min(bytes.len() as u32 - 8);
                bytes[8..12].copy_from_slice(&(size << 2 | 2).to_le_bytes());
                bytes[12..20].copy_from_slice(&rng.gen_range(7u64..=8).to_le_bytes());
            }
            let _ = decode(&bytes, &formats);
        }
    }

    #[test]
    fn nothing_in_the_buffer_is_trusted() {
        let formats = HipFormats::new([format(7, "%d %d\n")]);
        assert!(decode(&[0; 7], &formats).is_err());
        // Unknown hash: stop.
        let unknown = record(true, &[&slot(9), &slot(1), &slot(2)]);
        let decoded = decode(&buffer(&[&unknown]), &formats).unwrap();
        assert!(decoded.problems[0].stopped);
        assert!(decoded.problems[0].message.contains("0000000000000009"));
        // A control dword that no record has: stop at its offset.
        let mut wrong = record(true, &[&slot(7), &slot(1), &slot(2)]);
        wrong[0] = 0x55;
        let decoded = decode(&buffer(&[&wrong]), &formats).unwrap();
        assert_eq!(decoded.problems[0].offset, 8);
        assert!(decoded.problems[0].message.contains("control dword"));
        // A record past `used`.
        let whole = record(true, &[&slot(7), &slot(1), &slot(2)]);
        let mut cut = buffer(&[&whole]);
        cut[0] -= 8;
        let decoded = decode(&cut, &formats).unwrap();
        assert!(decoded.problems[0].message.contains("only 20 remain"));
        // Too few arguments for the format: a marker, and the next record is read.
        let short = record(true, &[&slot(7), &slot(1)]);
        let decoded = decode(&buffer(&[&short, &whole]), &formats).unwrap();
        assert_eq!(decoded.records, 2);
        assert_eq!(decoded.problems.len(), 1);
        assert!(!decoded.problems[0].stopped);
        assert!(String::from_utf8_lossy(&decoded.text).ends_with("\n1 2\n"));
        // A %s without its NUL.
        let formats = HipFormats::new([format(5, "%s\n")]);
        let unterminated = record(true, &[&slot(5), b"abcdefgh"]);
        let decoded = decode(&buffer(&[&unterminated]), &formats).unwrap();
        assert!(decoded.problems[0].message.contains("no NUL"));
        // A %s of a format the compiler could not see: a pointer, not characters.
        let formats = HipFormats::new([]);
        let pointer = record(false, &[b"%d %s\n\0\0", &slot(1), &slot(0x7fff_0000)]);
        let decoded = decode(&buffer(&[&pointer, &pointer]), &formats).unwrap();
        assert_eq!(decoded.records, 2);
        assert!(
            decoded.problems[1].message.contains("0x7fff0000"),
            "{:?}",
            decoded.problems
        );
        // `used` beyond the file.
        let mut bytes = buffer(&[]);
        bytes[0..4].copy_from_slice(&1000u32.to_le_bytes());
        assert_eq!(decode(&bytes, &formats).unwrap().lost, 1000);
    }
}
