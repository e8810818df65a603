//! The format-string table of a module's calls, as `fmtstr lower --target amdgpu --stage buffer`
//! writes it for calls with the same argument types.

use fmtstr_format::{ArgType, ScalarType};
use fmtstr_meta::{Entry, FormatId, Mask, Table};

use crate::read::{ArgKind, Call};

/// Why a call has no table entry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// An argument the AMD printf protocol cannot carry.
    #[error(
        "argument {} (%{id}) of the DebugPrintf call at byte {offset} has type {what}, which \
         printf cannot print (it takes integers, floats, booleans, PhysicalStorageBuffer \
         pointers and vectors of them)",
        index + 1
    )]
    Unsupported {
        /// Byte offset of the call's `OpExtInst` in the file.
        offset: usize,
        /// The argument's position after the format, from 0 (messages count from 1).
        index: usize,
        /// The argument's operand id.
        id: u32,
        /// The argument's type as [`ArgKind::Unsupported`] describes it (`OpTypeStruct`,
        /// `OpTypeFloat 8`, a pointer's storage class...).
        what: String,
    },
    /// An argument whose type the reader did not find.
    #[error(
        "argument {} (%{id}) of the DebugPrintf call at byte {offset} has no type the reader \
         found (it is not a constant or an instruction result before the call)",
        index + 1
    )]
    Untyped {
        /// Byte offset of the call's `OpExtInst` in the file.
        offset: usize,
        /// The argument's position after the format, from 0 (messages count from 1).
        index: usize,
        /// The argument's operand id.
        id: u32,
    },
    /// A format that is not UTF-8 (PAL metadata strings are msgpack str).
    #[error(
        "the format of the DebugPrintf call at byte {offset} is not UTF-8: SPIR-V literal strings \
         must be, and format-string tables (msgpack str) need it"
    )]
    NotUtf8 {
        /// Byte offset of the call's `OpExtInst` in the file.
        offset: usize,
    },
}

/// Whether an argument occupies 64 bits in the printf buffer (its bit in `.64bit_arguments`):
/// 33- to 64-bit integers, doubles, 64-bit pointers, and vectors of 64-bit components.
pub fn is_wide(ty: ArgType) -> bool {
    let bits = |scalar: ScalarType| match scalar {
        ScalarType::Int(bits) => u32::from(bits),
        ScalarType::Half => 16,
        ScalarType::Float => 32,
        ScalarType::Double | ScalarType::Ptr => 64,
        ScalarType::X86Fp80 => 80,
        ScalarType::Fp128 => 128,
    };
    match ty {
        ArgType::Scalar(scalar)
        | ArgType::Vector {
            element: scalar, ..
        } => (33..=64).contains(&bits(scalar)),
    }
}

/// The argument types of a call, or why one cannot be printed.
pub fn argument_types(call: &Call) -> Result<Vec<ArgType>, LayoutError> {
    call.args
        .iter()
        .enumerate()
        .map(|(index, arg)| match &arg.kind {
            ArgKind::Value(ty) => Ok(*ty),
            ArgKind::Unsupported(what) => Err(LayoutError::Unsupported {
                offset: call.offset,
                index,
                id: arg.id,
                what: what.clone(),
            }),
            ArgKind::Unknown => Err(LayoutError::Untyped {
                offset: call.offset,
                index,
                id: arg.id,
            }),
        })
        .collect()
}

/// The table entry for one call: fmtstr's ID of the format, the argument count (a vector counts
/// once) and the 64-bit mask.
pub fn entry(call: &Call) -> Result<Entry<'static>, LayoutError> {
    let types = argument_types(call)?;
    let string = std::str::from_utf8(&call.format)
        .map_err(|_| LayoutError::NotUtf8 {
            offset: call.offset,
        })?
        .to_owned();
    let wide = types
        .iter()
        .enumerate()
        .filter(|(_, ty)| is_wide(**ty))
        .map(|(index, _)| index);
    Ok(Entry::new(
        FormatId::of(&call.format),
        string,
        types.len() as u64,
        Mask::for_arguments(types.len(), wide),
    ))
}

/// The table of a module's calls: one entry per distinct (format, argument count, mask), in the
/// order of first use. A format printed with two layouts gets two entries with one ID, which
/// `fmtstr audit` reports as a conflict (and `fmtstr lower` refuses).
pub fn table(calls: &[Call]) -> Result<Table<'static>, LayoutError> {
    let mut table = Table::new();
    let mut known = std::collections::HashSet::new();
    for call in calls {
        let entry = entry(call)?;
        let key = (
            call.format.clone(),
            entry.argument_count(),
            entry.mask().clone(),
        );
        if known.insert(key) {
            table.entries.push(entry);
        }
    }
    Ok(table)
}
