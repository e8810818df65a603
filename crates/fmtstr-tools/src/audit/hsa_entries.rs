//! Audit of HSA code objects' `amdhsa.printf` entries (OpenCL and HIP on AMD).
//!
//! IDs are numbers 1, 2, ... per compiled module, so equal IDs in two files are normal and
//! only entries of one metadata note are compared with each other. What is checked:
//! - an entry that does not parse as `ID:N:SIZE1:...:SIZEk:FORMAT` (malformed);
//! - one ID with two strings (collision), or with one string and two size lists (conflict);
//! - sizes the format contradicts (arguments): N must be the format's argument count, every
//!   argument must have a size (LLVM 19 stores none past its count of conversion characters,
//!   so a `*` leaves the last arguments unstored), and each
//!   listed size must be one the writer (LLVM's AMDGPUPrintfRuntimeBinding) can give the
//!   conversion: 4 for `%c` and integers without `l ll j z t`, 8 with them; 4 or 8 for
//!   floats (a float stays 4 bytes for `%f`) and `%p`; a positive multiple of 4 for `%s` (a
//!   constant string is stored inline); for an OpenCL vector `%vN...` the vector's alloc
//!   size, with elements narrower than 4 bytes widened to 4 when the vector is not a multiple
//!   of 4 bytes.
//!
//! A table of HIP's buffered printf (`0:0:HASH,FORMAT`, see `fmtstr_elf::hsa`) names formats by
//! the low 64 bits of their MD5, and clang writes one entry per call, so one format printed
//! twice is listed twice, alike. What is checked there:
//! - an entry that does not parse as `0:0:HASH,FORMAT` (malformed);
//! - one hash with two different formats (collision): the runtime cannot tell their records
//!   apart;
//! - a hash that is not the MD5 of its format (id): the records of that call carry the hash of
//!   the format the compiler saw, so the runtime prints another format, or none; clang's
//!   placeholder entry for formats unknown at compile time is exempt;
//! - a format that does not parse (arguments).

use std::path::Path;

use fmtstr_elf::hsa::{BufferedEntry, HsaError, PrintfEntry, PrintfTable};
use fmtstr_format::{ArgSlot, Conversion, Format};
use fmtstr_meta::escape;

use super::{Finding, Kind, Location};

const TABLE: &str = "amdhsa.printf";

fn location(file: &Path, note: Option<u64>, index: usize, entry: Option<&PrintfEntry>) -> Location {
    Location {
        file: file.display().to_string(),
        note,
        table: Some(TABLE),
        index: Some(index),
        string: entry.map(|e| String::from_utf8_lossy(&e.format).into_owned()),
        argument_count: entry.map(|e| u64::from(e.argument_count)),
        mask: None,
        region: None,
    }
}

fn finding(kind: Kind, id: Option<u32>, message: String, locations: Vec<Location>) -> Finding {
    Finding {
        kind,
        id: id.map(u64::from),
        hex: None,
        message,
        locations,
    }
}

/// The findings of one note's `amdhsa.printf` array, of either kind.
pub(super) fn audit(
    file: &Path,
    note: Option<u64>,
    table: Result<PrintfTable, HsaError>,
) -> Vec<Finding> {
    let entries = match table {
        Ok(PrintfTable::Numbered(entries)) => entries,
        Ok(PrintfTable::Buffered(entries)) => return audit_buffered(file, note, &entries),
        Err(error) => {
            let index = error.index();
            let mut at = location(file, note, index.unwrap_or(0), None);
            at.index = index;
            let writer = match error {
                HsaError::BadHash { .. } => "clang's buffered printf (-mprintf-kind=buffered)",
                HsaError::MixedKinds { .. } => "LLVM",
                _ => "LLVM's AMDGPUPrintfRuntimeBinding",
            };
            return vec![finding(
                Kind::Malformed,
                None,
                format!("{error}; {writer} never writes that"),
                vec![at],
            )];
        }
    };
    let mut findings = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        if let Some(message) = check_sizes(entry) {
            findings.push(finding(
                Kind::Arguments,
                Some(entry.id),
                format!(
                    "{TABLE} ID {} (\"{}\"): {message}",
                    entry.id,
                    entry.escaped_format()
                ),
                vec![location(file, note, index, Some(entry))],
            ));
        }
        let Some(first) = entries[..index].iter().position(|e| e.id == entry.id) else {
            continue;
        };
        let earlier = &entries[first];
        // Report each disagreeing pair once: against the first entry with the ID.
        let kind = if earlier.format != entry.format {
            Kind::Collision
        } else if earlier.sizes != entry.sizes || earlier.argument_count != entry.argument_count {
            Kind::Conflict
        } else {
            continue;
        };
        findings.push(finding(
            kind,
            Some(entry.id),
            format!(
                "{TABLE} ID {} is given twice with {}: [{first}] \"{}\" and [{index}] \"{}\"",
                entry.id,
                if kind == Kind::Collision {
                    "different strings"
                } else {
                    "different argument sizes"
                },
                earlier.raw,
                entry.raw
            ),
            vec![
                location(file, note, first, Some(earlier)),
                location(file, note, index, Some(entry)),
            ],
        ));
    }
    findings
}

fn buffered_location(
    file: &Path,
    note: Option<u64>,
    index: usize,
    entry: &BufferedEntry,
) -> Location {
    Location {
        file: file.display().to_string(),
        note,
        table: Some(TABLE),
        index: Some(index),
        string: Some(String::from_utf8_lossy(&entry.format).into_owned()),
        argument_count: entry.argument_count.map(u64::from),
        mask: None,
        region: None,
    }
}

fn buffered_finding(
    kind: Kind,
    entry: &BufferedEntry,
    message: String,
    locations: Vec<Location>,
) -> Finding {
    Finding {
        kind,
        id: Some(entry.hash),
        hex: Some(format!("{:#018x}", entry.hash)),
        message,
        locations,
    }
}

/// The findings of one note's table of HIP's buffered printf.
fn audit_buffered(file: &Path, note: Option<u64>, entries: &[BufferedEntry]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let at = || buffered_location(file, note, index, entry);
        if !entry.is_placeholder() && !entry.hash_matches() {
            findings.push(buffered_finding(
                Kind::Id,
                entry,
                format!(
                    "{TABLE}[{index}] \"{}\": its hash {:x} is not the low 64 bits of the MD5 of \
                     its format ({:x}), so the runtime will not find this format for the records \
                     of its call: rebuild the code object with clang -mprintf-kind=buffered, or \
                     restore the entry",
                    escape::escape(entry.raw.as_bytes()),
                    entry.hash,
                    fmtstr_elf::hsa::format_hash(&entry.format)
                ),
                vec![at()],
            ));
        }
        if entry.argument_count.is_none() && !entry.is_placeholder() {
            let error = Format::parse(&entry.format)
                .err()
                .map_or_else(String::new, |e| e.to_string());
            findings.push(buffered_finding(
                Kind::Arguments,
                entry,
                format!(
                    "{TABLE}[{index}] (hash {:x}, \"{}\"): the format string does not parse: \
                     {error}",
                    entry.hash,
                    entry.escaped_format()
                ),
                vec![at()],
            ));
        }
        let Some(first) = entries[..index]
            .iter()
            .position(|e| e.hash == entry.hash && e.format != entry.format)
        else {
            continue;
        };
        // Report each colliding entry once: against the first entry with the hash.
        if entries[first..index]
            .iter()
            .any(|e| e.hash == entry.hash && e.format == entry.format)
        {
            continue;
        }
        let earlier = &entries[first];
        findings.push(buffered_finding(
            Kind::Collision,
            entry,
            format!(
                "{TABLE} hash {:x} is given to two different formats: [{first}] \"{}\" and \
                 [{index}] \"{}\"; the runtime cannot tell their records apart: change one \
                 format, or rebuild if the table was edited",
                entry.hash,
                earlier.escaped_format(),
                entry.escaped_format()
            ),
            vec![
                buffered_location(file, note, first, earlier),
                buffered_location(file, note, index, entry),
            ],
        ));
    }
    findings
}

/// What the format says about the entry's argument count and sizes, if it disagrees.
fn check_sizes(entry: &PrintfEntry) -> Option<String> {
    let format = match Format::parse(&entry.format) {
        Ok(format) => format,
        Err(error) => return Some(format!("the format string does not parse: {error}")),
    };
    let mut problems = Vec::new();
    let needed = format.argument_count();
    if needed != entry.argument_count as usize {
        problems.push(format!(
            "N is {} but the format string takes {needed} argument{}",
            entry.argument_count,
            if needed == 1 { "" } else { "s" }
        ));
    }
    if entry.sizes.len() < needed {
        // LLVM counts conversion characters, not arguments: a '*' or an unrecognised
        // conversion leaves later arguments unstored, and the runtime cannot print the call.
        problems.push(format!(
            "the compiler stored {} of the format's {needed} arguments{}; the runtime cannot \
             print this call",
            entry.sizes.len(),
            if format.has_star() {
                " (LLVM's AMDGPUPrintfRuntimeBinding does not count '*' arguments)"
            } else {
                ""
            }
        ));
    }
    let specs: Vec<_> = format.specs().collect();
    for (position, (slot, size)) in format.arguments().iter().zip(&entry.sizes).enumerate() {
        let (allowed, what): (Vec<u32>, String) = match *slot {
            ArgSlot::Star { .. } => (vec![4], "a '*' (an int)".into()),
            ArgSlot::Value { spec } => {
                let spec = specs[spec];
                let text = escape::escape(&entry.format[spec.offset..spec.offset + spec.len]);
                if let Some(lanes) = spec.vector_len() {
                    let lanes = if lanes == 3 { 4 } else { u32::from(lanes) };
                    let natural = lanes * spec.c_width() / 8;
                    let size = if natural % 4 == 0 { natural } else { lanes * 4 };
                    (vec![size], format!("'{text}'"))
                } else if spec.conversion == Conversion::S {
                    if *size >= 4 && size % 4 == 0 {
                        continue;
                    }
                    problems.push(format!(
                        "argument {} ('{text}') takes {size} bytes; a string takes a positive \
                         multiple of 4",
                        position + 1
                    ));
                    continue;
                } else if spec.conversion.is_float() || spec.conversion == Conversion::P {
                    (vec![4, 8], format!("'{text}'"))
                } else {
                    (vec![spec.c_width().max(32) / 8], format!("'{text}'"))
                }
            }
        };
        if !allowed.contains(size) {
            let allowed: Vec<String> = allowed.iter().map(u32::to_string).collect();
            problems.push(format!(
                "argument {} ({what}) takes {size} bytes but the format makes it {}",
                position + 1,
                allowed.join(" or ")
            ));
        }
    }
    if problems.is_empty() {
        None
    } else {
        Some(problems.join("; "))
    }
}
