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

use std::path::Path;

use fmtstr_elf::hsa::{HsaError, PrintfEntry};
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

/// The findings of one note's `amdhsa.printf` array.
pub(super) fn audit(
    file: &Path,
    note: Option<u64>,
    entries: Result<Vec<PrintfEntry>, HsaError>,
) -> Vec<Finding> {
    let entries = match entries {
        Ok(entries) => entries,
        Err(error) => {
            let index = match &error {
                HsaError::NotAnArray { .. } => None,
                HsaError::NotAString { index, .. }
                | HsaError::TooFewFields { index, .. }
                | HsaError::NotANumber { index, .. }
                | HsaError::TooManySizes { index, .. } => Some(*index),
            };
            let mut at = location(file, note, index.unwrap_or(0), None);
            at.index = index;
            return vec![finding(
                Kind::Malformed,
                None,
                format!("{error}; LLVM's AMDGPUPrintfRuntimeBinding never writes that"),
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
