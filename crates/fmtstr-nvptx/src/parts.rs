//! Value parts: how llc 19 splits an IR type into the pieces it moves through `.param` space.
//!
//! Input: an IR type and a byte offset. Output: the primitive parts (machine value types at
//! byte offsets) that NVPTX's `ComputePTXValueVTs` produces, and the v2/v4 grouping that
//! `VectorizePTXValueVTs` chooses for a given parameter alignment. Structs are split field by
//! field at their DataLayout offsets, arrays element by element, `i128` into two `i64`;
//! vectors of 16-bit elements go in pairs (`v2f16`, `v2bf16`, `v2i16`), vectors of `i8` in
//! fours (`v4i8`), other vectors element by element. A group is 2 or 4 consecutive parts of
//! one type, contiguous in memory, whose first offset is aligned to the access size (16, 8,
//! 4 or 2 bytes, largest first) and whose parameter is aligned at least as much.
//!
//! A part whose offset leaves it less aligned than its type wants (packed structs) is moved
//! one byte at a time, as llc's unaligned parameter lowering does.

use fmtstr_ir::{Module, Type, TypeId};

/// A machine value type that a `.param` part can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mvt {
    /// `i1`, `i8`, `i16`, `i32`, `i64`.
    Int(u32),
    /// `f16`.
    F16,
    /// `bf16`.
    Bf16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// Two `f16` moved as one 32-bit value.
    V2F16,
    /// Two `bf16` moved as one 32-bit value.
    V2Bf16,
    /// Two `i16` moved as one 32-bit value.
    V2I16,
    /// Four `i8` moved as one 32-bit value.
    V4I8,
    /// Two `i8` moved as a pair of bytes (llc 22; `<2 x i8>` crashes llc 19).
    V2I8,
}

impl Mvt {
    /// LLVM's name (`i32`, `f64`, `v2f16`).
    pub fn name(self) -> String {
        match self {
            Mvt::Int(bits) => format!("i{bits}"),
            Mvt::F16 => "f16".into(),
            Mvt::Bf16 => "bf16".into(),
            Mvt::F32 => "f32".into(),
            Mvt::F64 => "f64".into(),
            Mvt::V2F16 => "v2f16".into(),
            Mvt::V2Bf16 => "v2bf16".into(),
            Mvt::V2I16 => "v2i16".into(),
            Mvt::V4I8 => "v4i8".into(),
            Mvt::V2I8 => "v2i8".into(),
        }
    }

    /// Bytes the part occupies in memory (`i1` takes a byte).
    pub fn store_size(self) -> u64 {
        match self {
            Mvt::Int(bits) => u64::from(bits.div_ceil(8)),
            Mvt::F16 | Mvt::Bf16 | Mvt::V2I8 => 2,
            Mvt::F32 | Mvt::V2F16 | Mvt::V2Bf16 | Mvt::V2I16 | Mvt::V4I8 => 4,
            Mvt::F64 => 8,
        }
    }

    /// The alignment the type wants (its ABI alignment in the NVPTX DataLayout).
    pub fn abi_align(self) -> u64 {
        self.store_size()
    }
}

/// One part of a value: a machine value type at a byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Byte offset from the start of the value.
    pub offset: u64,
    /// The machine value type.
    pub mvt: Mvt,
}

/// One `ld.param`/`st.param`: `arity` parts of `bits` bits each, starting at `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Access {
    /// Byte offset in the parameter.
    pub offset: u64,
    /// Width of one element in bits (the `.b32` of `st.param.b32`).
    pub bits: u32,
    /// 1, 2 or 4 (`.v2`, `.v4`).
    pub arity: u32,
}

/// Why a type has no part list the planner can vouch for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

fn unsupported<T>(m: &Module, ty: TypeId, why: &str) -> Result<T, Unsupported> {
    Err(Unsupported(format!("`{}` {why}", m.types().display(ty))))
}

/// The machine value type of a scalar type, as `TargetLowering::getValueType` gives it.
fn scalar_mvt(m: &Module, ty: TypeId) -> Result<Mvt, Unsupported> {
    Ok(match m.types().get(ty) {
        Type::Int { bits } if matches!(bits, 1 | 8 | 16 | 32 | 64) => Mvt::Int(bits),
        Type::Int { .. } => return unsupported(m, ty, "is not an integer width PTX has"),
        Type::Half => Mvt::F16,
        Type::BFloat => Mvt::Bf16,
        Type::Float => Mvt::F32,
        Type::Double => Mvt::F64,
        Type::Ptr { addrspace } => Mvt::Int(crate::target_layout().pointer(addrspace).size_bits),
        _ => return unsupported(m, ty, "has no PTX parameter form"),
    })
}

/// `ComputePTXValueVTs`: the parts of `ty` placed at `start`.
pub fn value_parts(m: &Module, ty: TypeId, start: u64) -> Result<Vec<Part>, Unsupported> {
    // A scalar integer of a width PTX lacks (`i2`, `i19`, `i48`) is one part of that width;
    // inside an aggregate or a vector the planner has no measurement for it.
    if let Type::Int { bits } = m.types().get(ty) {
        if bits <= 64 && !matches!(bits, 1 | 8 | 16 | 32 | 64) {
            return Ok(vec![Part {
                offset: start,
                mvt: Mvt::Int(bits),
            }]);
        }
    }
    let mut out = Vec::new();
    ptx_parts(m, ty, start, &mut out, 0)?;
    Ok(out)
}

fn ptx_parts(
    m: &Module,
    ty: TypeId,
    start: u64,
    out: &mut Vec<Part>,
    depth: u32,
) -> Result<(), Unsupported> {
    if depth > 64 {
        return unsupported(m, ty, "is nested too deeply");
    }
    match m.types().get(ty) {
        Type::Int { bits: 128 } => {
            out.push(Part {
                offset: start,
                mvt: Mvt::Int(64),
            });
            out.push(Part {
                offset: start + 8,
                mvt: Mvt::Int(64),
            });
            Ok(())
        }
        Type::Struct(s) => {
            if s.opaque {
                return unsupported(m, ty, "is opaque");
            }
            let layout = crate::target_layout()
                .struct_layout(m.types(), ty)
                .map_err(|e| Unsupported(e.to_string()))?;
            for (field, offset) in s.fields.iter().zip(&layout.offsets) {
                ptx_parts(m, *field, start + offset, out, depth + 1)?;
            }
            Ok(())
        }
        _ => generic_parts(m, ty, start, out, depth),
    }
}

/// `ComputeValueVTs` followed by NVPTX's splitting of vector types.
fn generic_parts(
    m: &Module,
    ty: TypeId,
    start: u64,
    out: &mut Vec<Part>,
    depth: u32,
) -> Result<(), Unsupported> {
    if depth > 64 {
        return unsupported(m, ty, "is nested too deeply");
    }
    match m.types().get(ty) {
        Type::Array { len, elem } => {
            let size = crate::target_layout()
                .alloc_size(m.types(), elem)
                .map_err(|e| Unsupported(e.to_string()))?;
            if len > 4096 {
                return unsupported(m, ty, "has more elements than the planner lists");
            }
            for i in 0..len {
                generic_parts(m, elem, start + i * size, out, depth + 1)?;
            }
            Ok(())
        }
        Type::Struct(s) => {
            if s.opaque {
                return unsupported(m, ty, "is opaque");
            }
            let layout = crate::target_layout()
                .struct_layout(m.types(), ty)
                .map_err(|e| Unsupported(e.to_string()))?;
            for (field, offset) in s.fields.iter().zip(&layout.offsets) {
                generic_parts(m, *field, start + offset, out, depth + 1)?;
            }
            Ok(())
        }
        Type::Vector {
            len,
            elem,
            scalable,
        } => {
            if scalable {
                return unsupported(m, ty, "is a scalable vector");
            }
            let elem_mvt = scalar_mvt(m, elem)?;
            let (mvt, count) = match elem_mvt {
                // Measured: llc 19 moves each `i1` element as a byte of its own at offset k
                // (past the declared size, which is the vector's alloc size: `<4 x i1>` is
                // `[1]` and written at bytes 0 to 3), grouped like `i8` parts.
                Mvt::Int(1) => (Mvt::Int(1), len),
                Mvt::F16 if len % 2 == 0 => (Mvt::V2F16, len / 2),
                Mvt::Bf16 if len % 2 == 0 => (Mvt::V2Bf16, len / 2),
                Mvt::Int(16) if len % 2 == 0 => (Mvt::V2I16, len / 2),
                Mvt::Int(8) if len % 4 == 0 || len == 3 => (Mvt::V4I8, len.div_ceil(4)),
                Mvt::Int(8) if len == 2 => {
                    return unsupported(m, ty, "crashes llc 19 as a parameter or return value")
                }
                other => (other, len),
            };
            for j in 0..u64::from(count) {
                out.push(Part {
                    offset: start + j * mvt.store_size(),
                    mvt,
                });
            }
            Ok(())
        }
        Type::Void => Ok(()),
        // Measured: llc 19 crashes (EVT::getExtendedSizeInBits) passing, receiving or
        // returning an aggregate with an i128 inside an array.
        Type::Int { bits: 128 } => unsupported(m, ty, "inside an array crashes llc 19"),
        _ => {
            out.push(Part {
                offset: start,
                mvt: scalar_mvt(m, ty)?,
            });
            Ok(())
        }
    }
}

/// `VectorizePTXValueVTs`: for each part, how many parts the access starting there covers
/// (1, 2 or 4), in order; the parts an access covers are skipped.
pub fn vectorize(parts: &[Part], param_align: u64) -> Vec<(usize, usize)> {
    let mut groups = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let mut n = 1;
        for access in [16u64, 8, 4, 2] {
            let k = can_merge(parts, i, access, param_align);
            if k > 1 {
                n = k;
                break;
            }
        }
        groups.push((i, n));
        i += n;
    }
    groups
}

fn can_merge(parts: &[Part], i: usize, access: u64, param_align: u64) -> usize {
    if param_align < access || parts[i].offset % access != 0 {
        return 1;
    }
    let elt = parts[i].mvt;
    let size = elt.store_size();
    if size >= access {
        return 1;
    }
    let n = (access / size) as usize;
    if access != size * n as u64 || i + n > parts.len() || (n != 2 && n != 4) {
        return 1;
    }
    for j in i + 1..i + n {
        if parts[j].mvt != elt || parts[j].offset - parts[j - 1].offset != size {
            return 1;
        }
    }
    n
}

/// The largest power of two dividing both `align` and `offset`.
pub fn common_align(align: u64, offset: u64) -> u64 {
    let a = align.max(1);
    if offset == 0 {
        a
    } else {
        a.min(1 << offset.trailing_zeros())
    }
}

/// Measured: llc 19 aborts (`Copy one register into another with a different width`) when
/// it stores a `v2i16` or `v4i8` part (a `<2 x i16>` or `<4 x i8>` in a packed struct) with
/// less than 4-byte alignment into `.param` space: call arguments (byval too) and return
/// values. Loading one is fine. Returns the offending part's offset.
pub fn store_crashes_llc(parts: &[Part], param_align: u64) -> Option<u64> {
    parts
        .iter()
        .find(|p| {
            matches!(p.mvt, Mvt::V2I16 | Mvt::V4I8) && common_align(param_align, p.offset) < 4
        })
        .map(|p| p.offset)
}

/// Where an access happens: each place checks alignment its own way (measured).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// `ld.param` of a formal parameter in the function's body. A part is assumed aligned to
    /// its own ABI alignment as far as its offset allows; a less aligned part is read in
    /// pieces of that alignment. A packed struct parameter is read byte by byte, groups
    /// included. A group of four `i8` or two 16-bit values is read as one 32-bit value
    /// (`ld.param.u32`), a group of four `bfloat` as two.
    Formal {
        /// Whether the parameter's type is a packed struct.
        packed: bool,
    },
    /// `st.param` of a call argument or `ld.param` of a call result: a part less aligned
    /// than its type wants, given the declaration's alignment, moves one byte at a time.
    Call,
    /// `st.param` of a return value: as [`Site::Call`], but against the return type's ABI
    /// alignment (`type_align`), and only for aggregates (`type_align` 0: no check).
    Return {
        /// The ABI alignment of the returned aggregate, or 0.
        type_align: u64,
    },
}

/// The `ld.param`/`st.param` accesses that move `parts` of a parameter aligned to
/// `param_align` at a call site. `widen` is the width integer scalars are widened to (32
/// for scalar integer arguments and return values narrower than 32 bits, which PTX
/// promotes; 0 for none).
pub fn accesses(parts: &[Part], param_align: u64, widen: u32) -> Vec<Access> {
    accesses_at(parts, param_align, widen, Site::Call)
}

fn pieces(out: &mut Vec<Access>, part: Part, size: u64) {
    let size = size.max(1);
    for k in 0..part.mvt.store_size() / size {
        out.push(Access {
            offset: part.offset + k * size,
            bits: (size * 8) as u32,
            arity: 1,
        });
    }
}

/// The accesses of an integer of a width PTX lacks. Stored (an argument, a return value) it
/// moves widened to 32 or 64 bits. Loaded, LLVM's legalizer first rounds the width up to whole
/// bytes (`i19` to `i24`) and then splits a width that is not a power of two into a power of
/// two and the rest, lowest bytes first: `i24` is `u16` at 0 and `u8` at 2, `i48` `u32` and
/// `u16`, `i56` `u32`, `u16`, `u8` (measured with llc 19).
fn odd_width_accesses(out: &mut Vec<Access>, offset: u64, bits: u32, widen: u32, site: Site) {
    if !matches!(site, Site::Formal { .. }) {
        out.push(Access {
            offset,
            bits: widen.max(bits.next_power_of_two()).max(8),
            arity: 1,
        });
        return;
    }
    let mut bytes = u64::from(bits.div_ceil(8));
    let mut at = offset;
    while bytes > 0 {
        let piece = 1u64 << (63 - bytes.leading_zeros());
        out.push(Access {
            offset: at,
            bits: (piece * 8) as u32,
            arity: 1,
        });
        at += piece;
        bytes -= piece;
    }
}

/// [`accesses`] at a given [`Site`].
pub fn accesses_at(parts: &[Part], param_align: u64, widen: u32, site: Site) -> Vec<Access> {
    let mut out = Vec::new();
    for (start, n) in vectorize(parts, param_align) {
        let part = parts[start];
        if let Mvt::Int(bits) = part.mvt {
            if !matches!(bits, 1 | 8 | 16 | 32 | 64) {
                odd_width_accesses(&mut out, part.offset, bits, widen, site);
                continue;
            }
        }
        if site == (Site::Formal { packed: true }) {
            // A packed struct parameter is read as if aligned to 1: byte by byte.
            for p in &parts[start..start + n] {
                pieces(&mut out, *p, 1);
            }
            continue;
        }
        if site == (Site::Formal { packed: false }) && n == 4 && part.mvt == Mvt::Bf16 {
            // Four bfloat are read as two 32-bit halves (four half are one `.v4.b16`).
            for k in 0..2 {
                out.push(Access {
                    offset: part.offset + 4 * k,
                    bits: 32,
                    arity: 1,
                });
            }
            continue;
        }
        if n == 1 {
            let size = part.mvt.store_size();
            match site {
                Site::Formal { packed } => {
                    let align = if packed {
                        1
                    } else {
                        common_align(part.mvt.abi_align(), part.offset)
                    };
                    if align < size {
                        pieces(&mut out, part, align);
                        continue;
                    }
                }
                Site::Call => {
                    if common_align(param_align, part.offset) < part.mvt.abi_align() {
                        pieces(&mut out, part, 1);
                        continue;
                    }
                }
                Site::Return { type_align } => {
                    if type_align > 0
                        && common_align(type_align, part.offset) < part.mvt.abi_align()
                    {
                        pieces(&mut out, part, 1);
                        continue;
                    }
                }
            }
        }
        let mut bits = (part.mvt.store_size() * 8) as u32;
        if n == 1 && widen > bits && matches!(part.mvt, Mvt::Int(_)) {
            bits = widen;
        }
        let mut arity = n as u32;
        if matches!(site, Site::Formal { .. })
            && ((arity == 4 && bits == 8) || (arity == 2 && bits == 16))
        {
            // Loaded as v4i8 / v2i16 / v2f16, which live in one 32-bit register.
            bits = 32;
            arity = 1;
        }
        out.push(Access {
            offset: part.offset,
            bits,
            arity,
        });
    }
    out
}
