//! How llc 22 splits values into `.param` parts and moves them, where it differs from llc 19
//! ([`crate::parts`]).
//!
//! llc 22 (llvm/llvm-project#146930 and the changes before it) lowers parameters, call
//! arguments and return values to ordinary loads and stores in the parameter address space,
//! so what reaches the PTX is what type legalization and the DAG combiner make of them:
//!
//! - the parts of a value are its register types (`getRegisterTypeForCallingConv`): a
//!   vector type the target has no register for is split into halves until one fits
//!   (`<8 x half>` is four `<2 x half>`, `<8 x i8>` two `<4 x i8>`) or, when its length is not
//!   a power of two, into its elements (`<6 x half>` is six `half`, where llc 19 makes three
//!   pairs); `<3 x i8>` widens to one `<4 x i8>`, `<2 x i8>` is one part of two bytes; an
//!   integer of a width PTX lacks is one part of the next register width (`i7` an `i16`,
//!   `i17` an `i32`, `i48` an `i64`), `fp128` two `i64`;
//! - a load or store less aligned than its size (the declaration's alignment at the part's
//!   offset) is split into pieces of that alignment, and vectors of 8- and 16-bit elements
//!   move in 32-bit words (`<4 x half>` is `v2.b32`, two bytes `v2.b8`);
//! - consecutive stores of constants of up to 32 bits each are merged into one integer store
//!   of 16, 32 or 64 bits where the first is aligned to that size (the DAG combiner's store
//!   merging: a zero `<12 x i8>` return is `st.param.b64` and `st.param.b32`);
//! - a stored value that is a bitcast is stored as the value it was cast from (`double` as
//!   `<2 x float>`: `st.param.v2.b32`).

use fmtstr_ir::{Constant, Module, Opcode, Operand, Type, TypeId, Value};

use super::Planner;
use crate::parts::{self, common_align, vectorize, Access, Mvt, Part, Unsupported};

fn unsupported<T>(m: &Module, ty: TypeId, why: &str) -> Result<T, Unsupported> {
    Err(Unsupported(format!("`{}` {why}", m.types().display(ty))))
}

/// The register part of an integer of `bits` bits, and how many of them (llc 22 rounds a
/// width PTX lacks up to the next register: 16, 32 or 64 bits; wider than 64 is 64-bit
/// pieces).
fn int_parts(bits: u32) -> (Mvt, u64) {
    match bits {
        1 | 8 | 16 | 32 | 64 => (Mvt::Int(bits), 1),
        2..=15 => (Mvt::Int(16), 1),
        17..=31 => (Mvt::Int(32), 1),
        33..=63 => (Mvt::Int(64), 1),
        _ => (Mvt::Int(64), u64::from(bits.div_ceil(64))),
    }
}

/// llc 22's `ComputePTXValueVTs`: the parts of `ty` at `start`. `f32x2`: whether the target
/// has registers for `<2 x float>` (sm_100 and PTX 8.6), which the planner has not measured.
pub fn value_parts(m: &Module, ty: TypeId, f32x2: bool) -> Result<Vec<Part>, Unsupported> {
    let mut out = Vec::new();
    leaves(m, ty, 0, 0, f32x2, &mut out)?;
    Ok(out)
}

fn leaves(
    m: &Module,
    ty: TypeId,
    start: u64,
    depth: u32,
    f32x2: bool,
    out: &mut Vec<Part>,
) -> Result<(), Unsupported> {
    if depth > 64 {
        return unsupported(m, ty, "is nested too deeply");
    }
    let layout = crate::target_layout();
    let push = |out: &mut Vec<Part>, mvt: Mvt, count: u64, at: u64| {
        for k in 0..count {
            out.push(Part {
                offset: at + k * mvt.store_size(),
                mvt,
            });
        }
    };
    match m.types().get(ty) {
        Type::Struct(s) => {
            if s.opaque {
                return unsupported(m, ty, "is opaque");
            }
            let sl = layout
                .struct_layout(m.types(), ty)
                .map_err(|e| Unsupported(e.to_string()))?;
            for (field, offset) in s.fields.iter().zip(&sl.offsets) {
                leaves(m, *field, start + offset, depth + 1, f32x2, out)?;
            }
        }
        Type::Array { len, elem } => {
            if len > 4096 {
                return unsupported(m, ty, "has more elements than the planner lists");
            }
            let size = layout
                .alloc_size(m.types(), elem)
                .map_err(|e| Unsupported(e.to_string()))?;
            for i in 0..len {
                leaves(m, elem, start + i * size, depth + 1, f32x2, out)?;
            }
        }
        Type::Int { bits } => {
            let (mvt, count) = int_parts(bits);
            // An integer whose register is wider than its slot (`i7` moved as 16 bits in a
            // byte of a struct) would overlap its neighbour: not measured.
            let slot = layout.alloc_size(m.types(), ty).unwrap_or(0);
            if depth > 0 && mvt.store_size() * count > slot {
                return unsupported(
                    m,
                    ty,
                    "inside an aggregate: llc 22 moves it in a register wider than its place; not measured",
                );
            }
            push(out, mvt, count, start);
        }
        Type::Vector {
            len,
            elem,
            scalable,
        } => {
            if scalable {
                return unsupported(m, ty, "is a scalable vector");
            }
            let (mvt, count) = match m.types().get(elem) {
                // NVPTX splits vectors of i1 into their elements, a byte each.
                Type::Int { bits: 1 } => (Mvt::Int(1), u64::from(len)),
                _ if len == 1 => return leaves(m, elem, start, depth + 1, f32x2, out),
                Type::Int { bits: 8 } => match len {
                    2 => (Mvt::V2I8, 1),
                    3 => (Mvt::V4I8, 1),
                    _ if len.is_power_of_two() => (Mvt::V4I8, u64::from(len / 4)),
                    _ => (Mvt::Int(8), u64::from(len)),
                },
                Type::Int { bits: 16 } | Type::Half | Type::BFloat => {
                    let (pair, one) = match m.types().get(elem) {
                        Type::Half => (Mvt::V2F16, Mvt::F16),
                        Type::BFloat => (Mvt::V2Bf16, Mvt::Bf16),
                        _ => (Mvt::V2I16, Mvt::Int(16)),
                    };
                    if len.is_power_of_two() {
                        (pair, u64::from(len / 2))
                    } else {
                        (one, u64::from(len))
                    }
                }
                Type::Int { bits: 32 } | Type::Float if f32x2 => {
                    return unsupported(
                        m,
                        ty,
                        "moves in 64-bit pairs under llc 22 on sm_100 and later; not measured",
                    )
                }
                Type::Int { bits: 32 } => (Mvt::Int(32), u64::from(len)),
                Type::Int { bits: 64 } => (Mvt::Int(64), u64::from(len)),
                Type::Float => (Mvt::F32, u64::from(len)),
                Type::Double => (Mvt::F64, u64::from(len)),
                Type::Ptr { addrspace } => (
                    Mvt::Int(layout.pointer(addrspace).size_bits),
                    u64::from(len),
                ),
                _ => return unsupported(m, ty, "has an element type llc 22 is not measured with"),
            };
            push(out, mvt, count, start);
        }
        Type::Half => out.push(Part {
            offset: start,
            mvt: Mvt::F16,
        }),
        Type::BFloat => out.push(Part {
            offset: start,
            mvt: Mvt::Bf16,
        }),
        Type::Float => out.push(Part {
            offset: start,
            mvt: Mvt::F32,
        }),
        Type::Double => out.push(Part {
            offset: start,
            mvt: Mvt::F64,
        }),
        // Softened to an `i128`.
        Type::Fp128 => push(out, Mvt::Int(64), 2, start),
        Type::Ptr { addrspace } => out.push(Part {
            offset: start,
            mvt: Mvt::Int(layout.pointer(addrspace).size_bits),
        }),
        Type::Void => {}
        _ => return unsupported(m, ty, "has no PTX parameter form"),
    }
    Ok(())
}

/// The width in bits of one element of a part, as it moves (an `i1` as a byte).
fn element_bits(mvt: Mvt) -> u32 {
    match mvt {
        Mvt::Int(1) => 8,
        other => (other.store_size() * 8) as u32,
    }
}

/// Whether a part is made of 8- or 16-bit elements (which llc 22 packs into 32-bit words).
fn narrow(mvt: Mvt) -> bool {
    element_bits(mvt) < 32
        || matches!(
            mvt,
            Mvt::V2F16 | Mvt::V2Bf16 | Mvt::V2I16 | Mvt::V4I8 | Mvt::V2I8
        )
}

/// The `ld.param`/`st.param` accesses of `parts` in a `.param` aligned to `align`, as llc 22
/// groups them (`VectorizePTXValueVTs`, as llc 19) and then legalizes each load or store:
/// one less aligned than its size is split into pieces of its alignment, and vectors of 8-
/// and 16-bit elements move in 32-bit words (two bytes as `v2.b8`). `widen`: a scalar integer
/// argument or result narrower than 32 bits moves as 32 bits (0: none).
pub fn accesses(parts: &[Part], align: u64, widen: u32) -> Vec<Access> {
    let mut out = Vec::new();
    for (start, n) in vectorize(parts, align) {
        let part = parts[start];
        let offset = part.offset;
        if widen > 0 && n == 1 && matches!(part.mvt, Mvt::Int(_)) {
            out.push(Access {
                offset,
                bits: widen.max(element_bits(part.mvt)),
                arity: 1,
            });
            continue;
        }
        let size = part.mvt.store_size();
        let here = common_align(align, offset);
        if n == 1 && here < size {
            for k in 0..size / here {
                out.push(Access {
                    offset: offset + k * here,
                    bits: (here * 8) as u32,
                    arity: 1,
                });
            }
            continue;
        }
        let total = size * n as u64 * 8;
        let one_scalar = n == 1
            && matches!(
                part.mvt,
                Mvt::Int(_) | Mvt::F16 | Mvt::Bf16 | Mvt::F32 | Mvt::F64
            );
        let (bits, arity) = if one_scalar {
            (element_bits(part.mvt), 1)
        } else if !narrow(part.mvt) {
            (element_bits(part.mvt), n as u32)
        } else if total < 32 {
            // Two bytes (`<2 x i8>`, two `i8` or `i1` parts).
            (8, (total / 8) as u32)
        } else {
            (32, (total / 32) as u32)
        };
        out.push(Access {
            offset,
            bits,
            arity,
        });
    }
    out
}

/// The DAG combiner's merging of consecutive constant stores (`tryStoreMergeOfConstants`),
/// over `stores` (in offset order) of which `constant` says which store constants, in a
/// `.param` aligned to `align`. A run of consecutive stores of one width (32 bits or less)
/// becomes one integer store of the widest legal size (16, 32 or 64 bits) to which the first
/// store is aligned; what cannot start a merge is skipped.
pub fn merge_constant_stores(stores: &[Access], constant: &[bool], align: u64) -> Vec<Access> {
    let mut order: Vec<usize> = (0..stores.len()).collect();
    order.sort_by_key(|&i| stores[i].offset);
    let bytes = |a: &Access| u64::from(a.bits / 8).max(1) * u64::from(a.arity);
    let mut out: Vec<Access> = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let first = stores[order[i]];
        let width = bytes(&first);
        // The run of consecutive constant stores of the same width from here.
        let mut run = 1;
        if constant[order[i]] && width * 8 * 2 <= 64 {
            while i + run < order.len() {
                let next = stores[order[i + run]];
                if !constant[order[i + run]]
                    || bytes(&next) != width
                    || next.offset != first.offset + width * run as u64
                {
                    break;
                }
                run += 1;
            }
        }
        if run < 2 {
            out.push(first);
            i += 1;
            continue;
        }
        // Merge the longest legal prefix; stores that cannot start one pass unchanged.
        let mut k = 0;
        while k < run {
            let at = stores[order[i + k]];
            let aligned = common_align(align, at.offset);
            let mut take = 1;
            for count in 2..=run - k {
                let size = width * count as u64;
                if size > 8 {
                    break;
                }
                if matches!(size, 2 | 4 | 8) && aligned >= size {
                    take = count;
                }
            }
            if take >= 2 {
                out.push(Access {
                    offset: at.offset,
                    bits: (width * take as u64 * 8) as u32,
                    arity: 1,
                });
            } else {
                out.push(at);
            }
            k += take;
        }
        i += run;
    }
    out
}

impl Planner<'_> {
    /// The stores llc 22 makes of `value` (of type `ty`, split into `list`) into a `.param`
    /// aligned to `align`: as [`accesses`] plans them, a bitcast stored as the value
    /// it was cast from, stores of undef dropped, and consecutive stores of constants merged.
    pub(super) fn llc22_stores(
        &self,
        value: Option<Operand>,
        ty: TypeId,
        list: &[Part],
        align: u64,
        widen: u32,
    ) -> Vec<Access> {
        let mut stores = accesses(list, align, widen);
        // DAGCombiner stores `bitcast X` as X when one store holds the whole value (an
        // integer widened to 32 bits is stored extended, not as the bitcast).
        let source = value
            .and_then(|v| self.bitcast_source(v))
            .filter(|_| widen == 0);
        if let (Some(source), [_]) = (source, &stores[..]) {
            if let Ok(source_parts) = self.value_parts(source) {
                let moved = accesses(&source_parts, align, 0);
                if moved.len() == 1 {
                    stores = moved;
                }
            }
        }
        let stores = self.defined_accesses(value, ty, list, stores);
        let Some(mask) = value.and_then(|v| self.constant_parts(v, ty, 0)) else {
            return stores;
        };
        if mask.len() != list.len() {
            return stores;
        }
        let constant: Vec<bool> = stores
            .iter()
            .map(|a| {
                let end = a.offset + u64::from(a.bits / 8).max(1) * u64::from(a.arity);
                list.iter()
                    .zip(&mask)
                    .filter(|(p, _)| p.offset < end && a.offset < p.offset + p.mvt.store_size())
                    .all(|(_, &c)| c)
            })
            .collect();
        merge_constant_stores(&stores, &constant, align)
    }

    /// The loads of a call's result.
    pub(super) fn result_loads(&self, list: &[Part], align: u64, widen: u32) -> Vec<Access> {
        if self.llc22() {
            accesses(list, align, widen)
        } else {
            parts::accesses(list, align, widen)
        }
    }

    /// The type of the operand of a `bitcast` instruction, which llc 22 stores in its place.
    fn bitcast_source(&self, value: Operand) -> Option<TypeId> {
        let Value::Inst(i) = value.value else {
            return None;
        };
        let inst = self.m.inst(i);
        if inst.opcode() != Opcode::BitCast {
            return None;
        }
        Some(inst.operand(0)?.ty)
    }

    /// For each part of `ty`, whether `value` gives it a constant the DAG sees as one (an
    /// integer, a floating-point literal, null, zero, undef, or aggregates and vectors of
    /// those; not the address of a global), through `insertvalue` chains; `None` when unknown.
    fn constant_parts(&self, value: Operand, ty: TypeId, depth: u32) -> Option<Vec<bool>> {
        let m = self.m;
        let count = self.part_count(ty)?;
        if depth > 64 {
            return None;
        }
        let simple = |op: &Operand| {
            matches!(op.value, Value::Const(c) if matches!(
                m.constant(c),
                Constant::Int(_)
                    | Constant::Float(_)
                    | Constant::Null
                    | Constant::Undef
                    | Constant::Poison
                    | Constant::ZeroInitializer
            ))
        };
        match value.value {
            Value::Const(c) => match m.constant(c) {
                Constant::Int(_)
                | Constant::Float(_)
                | Constant::Null
                | Constant::Undef
                | Constant::Poison
                | Constant::ZeroInitializer
                | Constant::Bytes(_) => Some(vec![true; count]),
                Constant::Vector(ops) => Some(vec![ops.iter().all(simple); count]),
                Constant::Splat(op) => Some(vec![simple(&op); count]),
                Constant::Struct(ops) | Constant::Array(ops) => {
                    let fields: Vec<TypeId> = match m.types().get(ty) {
                        Type::Struct(s) => s.fields.to_vec(),
                        Type::Array { len, elem } => vec![elem; len as usize],
                        _ => return None,
                    };
                    if fields.len() != ops.len() {
                        return None;
                    }
                    let mut out = Vec::with_capacity(count);
                    for (op, field) in ops.iter().zip(fields) {
                        out.extend(self.constant_parts(*op, field, depth + 1)?);
                    }
                    Some(out)
                }
                _ => Some(vec![false; count]),
            },
            Value::Inst(i) if m.inst(i).opcode() == Opcode::InsertValue => {
                let inst = m.inst(i);
                let mut mask = self.constant_parts(inst.operand(0)?, ty, depth + 1)?;
                let mut start = 0usize;
                let mut sub = ty;
                for &index in inst.indices() {
                    match m.types().get(sub) {
                        Type::Struct(s) => {
                            for &field in s.fields.get(..index as usize)? {
                                start += self.part_count(field)?;
                            }
                            sub = *s.fields.get(index as usize)?;
                        }
                        Type::Array { elem, .. } => {
                            start += self.part_count(elem)? * index as usize;
                            sub = elem;
                        }
                        _ => return None,
                    }
                }
                let inserted = self.constant_parts(inst.operand(1)?, sub, depth + 1)?;
                mask.get_mut(start..start + inserted.len())?
                    .copy_from_slice(&inserted);
                Some(mask)
            }
            _ => Some(vec![false; count]),
        }
    }
}
