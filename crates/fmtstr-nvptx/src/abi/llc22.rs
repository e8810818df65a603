//! The planner's rules for llc 22 where they differ from llc 19's ([`crate::parts`] and the
//! rest of [`super`]); the crate docs of [`super`] list them with the LLVM changes behind them.
//!
//! llc 22 lowers parameters, call arguments and return values to ordinary loads and stores in
//! the parameter address space (llvm/llvm-project#146930), so what reaches the PTX is what
//! type legalization and the DAG combiner make of them: parts are the calling convention's
//! register types ([`value_parts`]), accesses less aligned than their size are split and
//! narrow elements move in 32-bit words ([`accesses`]), and consecutive stores of constants
//! or of a parameter's loads merge ([`merge_stores`]). Here too: its compare-and-swap
//! qualifiers ([`cas_qualifiers`]), the older vararg lowering, image parameters, and the
//! kernels it adds for global constructors.

use fmtstr_ir::{CallArg, Constant, FuncId, InstId, Module, Opcode, Operand, Type, TypeId, Value};

use super::{
    envelope, AccessPlan, ArgPlan, CallPlan, CalleeKind, CalleePlan, FunctionKind, FunctionPlan,
    PartPlan, Planner, Row,
};
use crate::annotations::Handle;
use crate::parts::{self, common_align, vectorize, Access, Mvt, Part, Unsupported};
use crate::Config;

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
                // Elements of a width PTX lacks: promoted to the one legal vector of as many
                // wider elements (`<2 x i7>` to `<2 x i16>`, `<4 x i2>` to `<4 x i8>`), else
                // split into elements of their register width (`<8 x i2>` is eight `i16`,
                // written past the vector's own size as llc 19 writes `<N x i1>`).
                Type::Int { bits } if bits < 64 => match (len, bits) {
                    (2, ..16) => (Mvt::V2I16, 1),
                    (4, ..8) => (Mvt::V4I8, 1),
                    _ => (int_parts(bits).0, u64::from(len)),
                },
                Type::Float => (Mvt::F32, u64::from(len)),
                Type::Double => (Mvt::F64, u64::from(len)),
                Type::Ptr { addrspace } => (
                    Mvt::Int(layout.pointer(addrspace).size_bits),
                    u64::from(len),
                ),
                _ => return unsupported(m, ty, "has an element type llc 22 is not measured with"),
            };
            let slot = layout.alloc_size(m.types(), ty).unwrap_or(0);
            if depth > 0 && mvt.store_size() * count > slot {
                return unsupported(
                    m,
                    ty,
                    "inside an aggregate: llc 22 moves it in registers wider than its place; not measured",
                );
            }
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

/// What a store holds, as the DAG combiner's store merging tells stores apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// A constant stored as an integer (an `f32` or `f64` one is made one, and so is a vector
    /// of 32 bits): merges with any other constant of its size.
    Constant,
    /// A constant of `half` or `bfloat` elements (one, or a pair in 32 bits), which stays
    /// floating-point: merges with constants of the same type.
    ConstantFp(Mvt),
    /// A load, from a `.param`, of these parts whose only use is the store: merges with
    /// loads of the same type from the next addresses.
    Load(Mvt, u32),
    /// Anything else: never merged.
    Other,
}

impl Held {
    fn constant(self) -> bool {
        matches!(self, Held::Constant | Held::ConstantFp(_))
    }
}

/// What each of `stores` (made of `list`) holds, given which parts are constants (`None`:
/// loads of a parameter passed on whole). A piece of a part split for its alignment is never
/// merged (only values aligned to 1 are split where the plan vouches: into single bytes).
pub fn held(stores: &[Access], list: &[Part], constant: Option<&[bool]>) -> Vec<Held> {
    stores
        .iter()
        .map(|a| {
            let size = u64::from(a.bits / 8).max(1) * u64::from(a.arity);
            let end = a.offset + size;
            let covered: Vec<usize> = (0..list.len())
                .filter(|&i| {
                    let p = list[i];
                    p.offset < end && a.offset < p.offset + p.mvt.store_size()
                })
                .collect();
            let Some(&first) = covered.first() else {
                return Held::Other;
            };
            if size < list[first].mvt.store_size() {
                return Held::Other;
            }
            // The memory type of the store: its element type and how many (two `i16` parts
            // and one `<2 x i16>` part are both `v2i16`; an `i1` moves as a byte).
            let (mvt, per) = match list[first].mvt {
                Mvt::Int(1) => (Mvt::Int(8), 1),
                Mvt::V2I8 => (Mvt::Int(8), 2),
                Mvt::V4I8 => (Mvt::Int(8), 4),
                Mvt::V2I16 => (Mvt::Int(16), 2),
                Mvt::V2F16 => (Mvt::F16, 2),
                Mvt::V2Bf16 => (Mvt::Bf16, 2),
                other => (other, 1),
            };
            let count = covered.len() as u32 * per;
            match constant {
                None => Held::Load(mvt, count),
                // Constant pairs of bytes (`v2.b8`) are never seen merged.
                Some(_) if a.arity > 1 => Held::Other,
                Some(c) if !covered.iter().all(|&i| c[i]) => Held::Other,
                Some(_) if matches!(mvt, Mvt::F16 | Mvt::Bf16) && a.arity == 1 => {
                    Held::ConstantFp(mvt)
                }
                // A constant moved in one word (a scalar, or 32 bits of bytes or halves) is
                // stored as an integer.
                Some(_) => Held::Constant,
            }
        })
        .collect()
}

/// The DAG combiner's store merging (`mergeConsecutiveStores`) over `stores` into a `.param`
/// aligned to `align`, each holding what `held` says; loads come from a `.param` aligned to
/// `load_align`. The store the combiner visits gathers the stores of its size on the same
/// chain that it can merge with: an integer constant every constant, a `half` or `bfloat`
/// constant only its own type, a vector constant or a load only its own type. Each run of
/// consecutive ones (32 bits or less) becomes one integer store of the widest legal size
/// (16, 32 or 64 bits) to which the first store (and its load) is aligned; what cannot start
/// a merge passes unchanged. The combiner runs until nothing changes, so merged stores merge
/// again (two bytes and a 16-bit word into 32 bits, two of those into 64). A visit whose
/// consecutive stores merge nowhere stops all merging on the chain, so where one kind would
/// fail and another succeed the outcome depends on which the combiner visits first: the
/// third value says so, as it does for `half` or `bfloat` constants next to constants of
/// another type (measured to merge with integers and wider neighbours, and also not to where
/// the alignment allowed). Returns the stores and the merged accesses (which the loads of a
/// merged run become too).
pub fn merge_stores(
    stores: &[Access],
    held: &[Held],
    align: u64,
    load_align: u64,
) -> (Vec<Access>, Vec<Access>, bool) {
    let bytes = |a: &Access| u64::from(a.bits / 8).max(1) * u64::from(a.arity);
    let gathers = |visitor: Held, other: Held| match visitor {
        Held::Constant => other.constant(),
        Held::Other => false,
        _ => other == visitor,
    };
    let mut current: Vec<(Access, Held)> =
        stores.iter().copied().zip(held.iter().copied()).collect();
    current.sort_by_key(|(a, _)| a.offset);
    let mut merged: Vec<Access> = Vec::new();
    let mut uncertain = false;
    loop {
        // Each kind of visit: the merges it makes, or whether it fails.
        let mut visits: Vec<(Held, u64)> = Vec::new();
        for (a, h) in &current {
            let key = (*h, bytes(a));
            if *h != Held::Other && key.1 * 8 * 2 <= 64 && !visits.contains(&key) {
                visits.push(key);
            }
        }
        // `half` and `bfloat` constants next to other constants merge in ways not measured
        // (with integers, with each other, with wider neighbours, and sometimes not where the
        // alignment allows).
        if current.windows(2).any(|w| {
            w[0].0.offset + bytes(&w[0].0) == w[1].0.offset
                && w[0].1.constant()
                && w[1].1.constant()
                && w[0].1 != w[1].1
                && (matches!(w[0].1, Held::ConstantFp(_)) || matches!(w[1].1, Held::ConstantFp(_)))
        }) {
            uncertain = true;
        }
        let mut success: Option<Vec<(usize, usize)>> = None;
        let mut failed = false;
        for &(visitor, width) in &visits {
            let members: Vec<usize> = (0..current.len())
                .filter(|&i| bytes(&current[i].0) == width && gathers(visitor, current[i].1))
                .collect();
            // The consecutive runs among them, and what merges in each.
            let mut merges: Vec<(usize, usize)> = Vec::new();
            let mut consecutive = false;
            let mut r = 0;
            while r < members.len() {
                let mut run = 1;
                while r + run < members.len()
                    && current[members[r + run]].0.offset
                        == current[members[r]].0.offset + width * run as u64
                {
                    run += 1;
                }
                consecutive |= run > 1;

                let mut k = 0;
                while k < run {
                    let at = current[members[r + k]].0;
                    let mut aligned = common_align(align, at.offset);
                    if matches!(visitor, Held::Load(..)) {
                        aligned = aligned.min(common_align(load_align, at.offset));
                    }
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
                        merges.push((members[r + k], take));
                    }
                    k += take;
                }
                r += run;
            }
            if !merges.is_empty() {
                success.get_or_insert(merges);
            } else if consecutive {
                failed = true;
            }
        }
        let Some(merges) = success else {
            break;
        };
        uncertain |= failed;
        let mut out: Vec<(Access, Held)> = Vec::new();
        let mut i = 0;
        while i < current.len() {
            let Some(&(_, take)) = merges.iter().find(|(at, _)| *at == i) else {
                out.push(current[i]);
                i += 1;
                continue;
            };
            let (at, kind) = current[i];
            let access = Access {
                offset: at.offset,
                bits: (bytes(&at) * take as u64 * 8) as u32,
                arity: 1,
            };
            let now = match kind {
                Held::Load(..) => Held::Load(Mvt::Int(access.bits), 1),
                _ => Held::Constant,
            };
            out.push((access, now));
            merged.push(access);
            // The members of a run are consecutive stores in offset order.
            i += 1;
            let end = access.offset + u64::from(access.bits / 8);
            while i < current.len() && current[i].0.offset < end {
                i += 1;
            }
        }
        current = out;
    }
    (
        current.into_iter().map(|(a, _)| a).collect(),
        merged,
        uncertain,
    )
}

/// The scalar and vector fields of `ty` at `start`, as (offset, store size): what a memory
/// store of the aggregate is split into.
fn memory_fields(m: &Module, ty: TypeId, start: u64, depth: u32, out: &mut Vec<(u64, u64)>) {
    let layout = crate::target_layout();
    if depth > 64 {
        return;
    }
    match m.types().get(ty) {
        Type::Struct(s) => {
            if let Ok(sl) = layout.struct_layout(m.types(), ty) {
                for (field, offset) in s.fields.iter().zip(&sl.offsets) {
                    memory_fields(m, *field, start + offset, depth + 1, out);
                }
            }
        }
        Type::Array { len, elem } => {
            let size = layout.alloc_size(m.types(), elem).unwrap_or(0);
            for i in 0..len.min(4096) {
                memory_fields(m, elem, start + i * size, depth + 1, out);
            }
        }
        _ => out.push((start, layout.store_size(m.types(), ty).unwrap_or(0))),
    }
}

/// Whether `op` is an `alloca`, or an address computed from one by `getelementptr` or casts.
pub fn from_alloca(m: &Module, op: Operand, depth: u32) -> bool {
    if depth > 32 {
        return false;
    }
    let Value::Inst(i) = op.value else {
        return false;
    };
    let inst = m.inst(i);
    match inst.opcode() {
        Opcode::Alloca => true,
        Opcode::GetElementPtr | Opcode::BitCast | Opcode::AddrSpaceCast => inst
            .operand(0)
            .is_some_and(|base| from_alloca(m, base, depth + 1)),
        _ => false,
    }
}

/// The qualifiers llc 22 writes after `atom.` in the compare-and-swap of a `cmpxchg` or of
/// the loop an `atomicrmw` expands into (measured on sm_50, sm_60, sm_70 and sm_90 for every
/// ordering and scope): from sm_70 the memory order and the scope (`acquire.gpu.`), on sm_60
/// the scope alone (`gpu.`), below nothing. The order is the success and failure orderings
/// together (an `atomicrmw`'s failure ordering is the strongest its ordering allows):
/// `monotonic` is `relaxed`, acquire with release `acq_rel`, and anything `seq_cst` is
/// `acquire` after a `fence.sc`. A `cmpxchg` of 8 or 16 bits is a loop of relaxed
/// compare-and-swaps on the containing word between fences (`partword`). The scope is `sys`
/// without a `syncscope` (or with `""`), `cta` for `"block"`, `gpu` for `"device"`, `cluster` for
/// `"cluster"`; other scopes are an `Err`.
pub fn cas_qualifiers(text: &str, partword: bool, config: &Config) -> Result<String, String> {
    let scope = match text.split_once("syncscope(\"") {
        None => "sys",
        Some((_, rest)) => match rest.split('"').next().unwrap_or("") {
            "" => "sys",
            "block" => "cta",
            "device" => "gpu",
            "cluster" => "cluster",
            other => {
                return Err(format!(
                    "llc 22's compare-and-swap at syncscope(\"{other}\") is not measured"
                ))
            }
        },
    };
    let orders: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| {
            matches!(
                *w,
                "unordered" | "monotonic" | "acquire" | "release" | "acq_rel" | "seq_cst"
            )
        })
        .collect();
    let (success, failure) = match orders[..] {
        [success, failure] => (success, failure),
        [order] => (
            order,
            match order {
                "release" => "monotonic",
                "acq_rel" => "acquire",
                other => other,
            },
        ),
        _ => return Err("the ordering of this atomic is not one llc 22 is measured with".into()),
    };
    if config.sm < 60 {
        return Ok(String::new());
    }
    if config.sm < 70 {
        return Ok(format!("{scope}."));
    }
    let rank = |o: &str| match o {
        "acquire" => 1,
        "release" => 2,
        "acq_rel" => 3,
        "seq_cst" => 4,
        _ => 0,
    };
    let order = if partword {
        "relaxed"
    } else {
        match (rank(success), rank(failure)) {
            (4, _) | (_, 4) => "acquire",
            (3, _) | (_, 3) | (1, 2) | (2, 1) => "acq_rel",
            (1, _) | (_, 1) => "acquire",
            (2, _) | (_, 2) => "release",
            _ => "relaxed",
        }
    };
    Ok(format!("{order}.{scope}."))
}

impl Planner<'_> {
    /// The stores llc 22 makes of `value` (of type `ty`, split into `list`) into a `.param`
    /// aligned to `align`: as [`accesses`] plans them, a bitcast stored as the value
    /// it was cast from, stores of undef dropped, and consecutive stores of constants merged.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn llc22_stores(
        &mut self,
        f: FuncId,
        at: Option<InstId>,
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
        // Pieces of a part less aligned than its size are joined only where they hold
        // constants or loaded values.
        if let Some(v) = value {
            let constant = self
                .constant_parts(v, ty, 0)
                .is_some_and(|c| c.contains(&true));
            let loaded = self
                .loaded_parts(v, ty, false, 0)
                .is_some_and(|l| l.contains(&true))
                || matches!(v.value, Value::Arg(_));
            if constant || loaded {
                self.llc22_packed(f, at, ty, align);
            }
        }
        if let Some(stores) =
            value.and_then(|v| self.passed_through(f, at, v, list, align, &stores))
        {
            return stores;
        }
        if let Some(loaded) = value.and_then(|v| self.loaded_parts(v, ty, false, 0)) {
            self.load_merge_risk(f, at, ty, &stores, list, &loaded, align);
        }
        let Some(mask) = value.and_then(|v| self.constant_parts(v, ty, 0)) else {
            return stores;
        };
        if mask.len() != list.len() {
            return stores;
        }
        let (stores, _, uncertain) =
            merge_stores(&stores, &held(&stores, list, Some(&mask)), align, align);
        if uncertain {
            self.finding(f, at, "llc 22 may merge these constant stores or not, as its combiner happens to visit them (a failed attempt stops it); not measured".to_string());
        }
        stores
    }

    /// The stores of a parameter of the function passed on whole (returned, or passed to a
    /// call) when that is its only use: llc 22 merges consecutive stores of its loads
    /// (`<12 x i8>`'s first two words move as one `b64`), and the merged loads are planned
    /// as reads of the parameter too. `None` when `value` is something else.
    fn passed_through(
        &mut self,
        f: FuncId,
        at: Option<InstId>,
        value: Operand,
        list: &[Part],
        align: u64,
        stores: &[Access],
    ) -> Option<Vec<Access>> {
        let m = self.m;
        let Value::Arg(a) = value.value else {
            return None;
        };
        let arg = m.arg(a);
        let uses = m.uses(Value::Arg(a));
        let [user] = uses[..] else {
            return None;
        };
        if m.inst(user)
            .operands()
            .filter(|op| op.value == value.value)
            .count()
            != 1
            || arg.byval().is_some()
            || !self.should_pass_as_array(value.ty)
        {
            return None;
        }
        let (owner, index) = (arg.function(), arg.index());
        let attrs = arg.attrs();
        let load_align = self
            .optimized_align(Some(owner), value.ty)
            .max(self.stack_align(attrs).unwrap_or(1))
            .max(self.annotations.param_align(owner, index).unwrap_or(1));
        // The loads must move the same pieces as the stores.
        if accesses(list, load_align, 0) != stores {
            return None;
        }
        let (stores, merged, uncertain) =
            merge_stores(stores, &held(stores, list, None), align, load_align);
        if uncertain {
            self.finding(f, at, "llc 22 may merge these stores of a parameter's loads or not, as its combiner happens to visit them (a failed attempt stops it); not measured".to_string());
        }
        self.merged_reads
            .extend(merged.into_iter().map(|access| (owner, index, access)));
        Some(stores)
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
        let leaf = |constant: &Constant, count: usize| match constant {
            Constant::Int(_)
            | Constant::Float(_)
            | Constant::Null
            | Constant::Undef
            | Constant::Poison
            | Constant::ZeroInitializer
            | Constant::Bytes(_) => Some(vec![true; count]),
            Constant::Vector(ops) => Some(vec![ops.iter().all(simple); count]),
            Constant::Splat(op) => Some(vec![simple(op); count]),
            _ => Some(vec![false; count]),
        };
        self.part_mask(value, ty, depth, &leaf, false)
    }

    /// For each part of `ty`, whether `value` gives it a value llc loads next to where it
    /// stores it, for that store only: a parameter's (its `ld.param`), a `load`'s (not with
    /// `params_only`), each used once, through `insertvalue` and `extractvalue`; `None` when
    /// unknown.
    pub(super) fn loaded_parts(
        &self,
        value: Operand,
        ty: TypeId,
        params_only: bool,
        depth: u32,
    ) -> Option<Vec<bool>> {
        let m = self.m;
        let count = self.part_count(ty)?;
        if depth > 64 {
            return None;
        }
        // A load used more than once is not merged (measured with a parameter passed on to
        // a call and returned).
        let once = m.uses(value.value).len() == 1;
        let Value::Inst(i) = value.value else {
            return Some(vec![matches!(value.value, Value::Arg(_)) && once; count]);
        };
        let inst = m.inst(i);
        match inst.opcode() {
            // A volatile or atomic load is never merged.
            Opcode::Load => {
                let text = String::from_utf8_lossy(inst.text()).into_owned();
                let simple = !text
                    .split_whitespace()
                    .any(|w| w == "volatile" || w == "atomic");
                Some(vec![!params_only && once && simple; count])
            }
            Opcode::ExtractValue => {
                let whole = inst.operand(0).is_some_and(|agg| {
                    self.loaded_parts(agg, agg.ty, params_only, depth + 1)
                        .is_some_and(|l| l.iter().all(|&x| x))
                });
                Some(vec![whole; count])
            }
            Opcode::InsertValue => {
                let mut mask = self.loaded_parts(inst.operand(0)?, ty, params_only, depth + 1)?;
                let (start, sub) = self.inserted_at(ty, inst.indices())?;
                let inserted = self.loaded_parts(inst.operand(1)?, sub, params_only, depth + 1)?;
                mask.get_mut(start..start + inserted.len())?
                    .copy_from_slice(&inserted);
                Some(mask)
            }
            _ => Some(vec![false; count]),
        }
    }

    /// A finding when `stores` of loaded values (in a `.param` or memory aligned to `align`)
    /// hold two neighbours of one size that the DAG combiner could merge into one wider load
    /// and store (`tryStoreMergeOfLoads`): outside a parameter passed on whole, where it is
    /// modelled, whether it does depends on where the loads come from; not measured.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn load_merge_risk(
        &mut self,
        f: FuncId,
        at: Option<InstId>,
        ty: TypeId,
        stores: &[Access],
        list: &[Part],
        loaded: &[bool],
        align: u64,
    ) {
        let mut sorted = stores.to_vec();
        sorted.sort();
        let bytes = |a: &Access| u64::from(a.bits / 8).max(1);
        // A store of whole loaded parts.
        let whole = |a: &Access| {
            let end = a.offset + bytes(a) * u64::from(a.arity);
            let covered: Vec<usize> = (0..list.len())
                .filter(|&i| {
                    list[i].offset < end && a.offset < list[i].offset + list[i].mvt.store_size()
                })
                .collect();
            !covered.is_empty()
                && covered.iter().all(|&i| {
                    loaded.get(i).copied().unwrap_or(false)
                        && list[i].offset >= a.offset
                        && list[i].offset + list[i].mvt.store_size() <= end
                })
        };
        let pair = sorted.windows(2).find(|w| {
            let (a, b) = (w[0], w[1]);
            let width = bytes(&a) * u64::from(a.arity);
            width <= 4
                && bytes(&b) * u64::from(b.arity) == width
                && a.offset + width == b.offset
                && whole(&a)
                && whole(&b)
                && common_align(align, a.offset) >= 2 * width
        });
        if let Some(w) = pair {
            let why = format!(
                "llc 22 may merge the stores of loaded values at bytes {} and {} of `{}` into one wider load and store; not measured",
                w[0].offset,
                w[1].offset,
                self.m.types().display(ty)
            );
            self.finding(f, at, why);
        }
    }

    /// A parameter's parts stored to memory by one `store` of an aggregate: llc 22 may merge
    /// neighbouring stores and so the loads of the parameter (a finding, as for `.param`
    /// stores of loaded values).
    pub(super) fn llc22_stored_parameter(&mut self, f: FuncId, inst: InstId) {
        let m = self.m;
        let view = m.inst(inst);
        let Some(value) = view.operand(0) else {
            return;
        };
        if !matches!(
            m.types().get(value.ty),
            Type::Struct(_) | Type::Array { .. }
        ) {
            return;
        }
        let Some(loaded) = self.loaded_parts(value, value.ty, true, 0) else {
            return;
        };
        let text = String::from_utf8_lossy(view.text()).into_owned();
        // Volatile and atomic stores are never merged.
        if text
            .split_whitespace()
            .any(|w| w == "volatile" || w == "atomic")
        {
            return;
        }
        let align = text
            .split(", align ")
            .nth(1)
            .and_then(|a| a.trim().parse().ok())
            .unwrap_or_else(|| self.abi_align(value.ty));
        let Ok(list) = self.value_parts(value.ty) else {
            return;
        };
        // A memory store of an aggregate stores each field on its own, a vector whole.
        let mut fields = Vec::new();
        memory_fields(m, value.ty, 0, 0, &mut fields);
        let stores: Vec<Access> = fields
            .into_iter()
            .map(|(offset, size)| Access {
                offset,
                bits: (size * 8) as u32,
                arity: 1,
            })
            .collect();
        self.load_merge_risk(f, Some(inst), value.ty, &stores, &list, &loaded, align);
    }

    /// The reads of parameter `index` of `f` (of type `ty`, split into `list`, declared
    /// aligned to `align`): as [`accesses`] plans them, and where one load reads it whole
    /// and a `bitcast` uses it, a load of the cast's type too (DAGCombiner folds `bitcast
    /// (load)`). A finding where it reaches a store with parts llc 22 may join.
    pub(super) fn llc22_reads(
        &mut self,
        f: FuncId,
        index: usize,
        ty: TypeId,
        list: &[Part],
        align: u64,
    ) -> Vec<AccessPlan> {
        let m = self.m;
        let arg = m.function(f).param(index);
        if arg.is_some_and(|a| self.llc22_stored(Value::Arg(a.id()), 0)) {
            self.llc22_packed(f, None, ty, align);
        }
        let mut reads = accesses(list, align, 0);
        if reads.len() == 1 {
            let casts: Vec<TypeId> = arg
                .map(|a| m.uses(Value::Arg(a.id())))
                .unwrap_or_default()
                .into_iter()
                .map(|u| m.inst(u))
                .filter(|u| u.opcode() == Opcode::BitCast)
                .map(|u| u.ty())
                .collect();
            for cast in casts {
                if let Ok(cast_parts) = self.value_parts(cast) {
                    let moved = accesses(&cast_parts, align, 0);
                    if moved.len() == 1 && !reads.contains(&moved[0]) {
                        reads.extend(moved);
                    }
                }
            }
        }
        reads.into_iter().map(AccessPlan::from).collect()
    }

    /// Whether `value` reaches a store (returned, passed to a call, stored to memory without
    /// `volatile`) whole or through `insertvalue`, where llc 22 may merge its loads.
    pub(super) fn llc22_stored(&self, value: Value, depth: u32) -> bool {
        let m = self.m;
        if depth > 16 {
            return false;
        }
        m.uses(value).into_iter().any(|u| {
            let inst = m.inst(u);
            match inst.opcode() {
                Opcode::Ret | Opcode::Call => true,
                Opcode::Store => {
                    inst.operand(0).is_some_and(|v| v.value == value)
                        && !String::from_utf8_lossy(inst.text())
                            .split_whitespace()
                            .any(|w| w == "volatile")
                }
                Opcode::InsertValue => self.llc22_stored(Value::Inst(u), depth + 1),
                _ => false,
            }
        })
    }

    /// A finding when a part of `ty` in a `.param` aligned to `align` (2 or more) lies less
    /// aligned than its size (a field of a packed struct): llc 19 moves it byte by byte, llc
    /// 22 splits it into pieces of its alignment and may join those with their neighbours
    /// into wider loads and stores where the values allow, unmeasured. A value aligned to 1
    /// moves byte by byte under both.
    pub(super) fn llc22_packed(&mut self, f: FuncId, at: Option<InstId>, ty: TypeId, align: u64) {
        if align < 2 {
            return;
        }
        // A vector on its own wider in registers than in memory (`<4 x i3>`, two bytes, as
        // `<4 x i8>`) is stored in pieces that nothing joins.
        if !matches!(self.m.types().get(ty), Type::Struct(_) | Type::Array { .. }) {
            return;
        }
        let Ok(list) = self.value_parts(ty) else {
            return;
        };
        if let Some(p) = list
            .iter()
            .find(|p| common_align(align, p.offset) < p.mvt.store_size())
        {
            let why = format!(
                "llc 22 splits the `{}` at byte {} of `{}` (less aligned there than its size) into pieces it may join with their neighbours, where llc 19 moves it byte by byte; not measured",
                p.mvt.name(),
                p.offset,
                self.m.types().display(ty)
            );
            self.finding(f, at, why);
        }
    }

    /// The array of variadic arguments llc 22 passes when it does not expand `...` (the
    /// module's triple is not nvptx or nvptx64; measured): `.param .align 8 .b8 param<N>[SIZE]`,
    /// declared before the fixed arguments, each part of each argument stored on its own (no
    /// vectors) at the next offset aligned to the part's type, a scalar integer narrower than
    /// 32 bits as 32 bits (aligned as itself); consecutive constants of one argument merge as
    /// elsewhere (its stores are aligned as the argument). No array without variadic
    /// arguments; byval ones are a finding.
    pub(super) fn llc22_varargs(
        &mut self,
        f: FuncId,
        inst: InstId,
        rest: &[CallArg<'_>],
        fixed: usize,
    ) -> Option<ArgPlan> {
        if rest.is_empty() {
            return None;
        }
        let callee = self
            .m
            .inst(inst)
            .as_call()
            .and_then(|c| c.called_function());
        let mut offset = 0u64;
        let mut parts_out = Vec::new();
        let mut stores = Vec::new();
        for arg in rest {
            let ty = arg.operand.ty;
            if arg.byval().is_some() {
                self.finding(
                    f,
                    Some(inst),
                    "llc 22 copies a byval variadic argument into its array in pieces of its own choosing; not measured".to_string(),
                );
                return None;
            }
            let list = self.parts(f, Some(inst), ty);
            if list.is_empty() {
                return None;
            }
            let extend = self.scalar_int_widening(ty) == 32;
            let constant = self
                .constant_parts(arg.operand, ty, 0)
                .filter(|c| c.len() == list.len())
                .unwrap_or_else(|| vec![false; list.len()]);
            let (mut own, mut kinds) = (Vec::new(), Vec::new());
            for (p, constant) in list.iter().zip(constant) {
                let size = p.mvt.store_size();
                offset = offset.div_ceil(p.mvt.abi_align()) * p.mvt.abi_align();
                let bits = if extend { 32 } else { (size * 8).max(8) as u32 };
                parts_out.push(PartPlan {
                    offset,
                    ty: p.mvt.name(),
                    bits,
                });
                let access = accesses(&[Part { offset, mvt: p.mvt }], 8, 0);
                let access = if extend {
                    vec![Access {
                        offset,
                        bits: 32,
                        arity: 1,
                    }]
                } else {
                    access
                };
                for a in access {
                    own.push(a);
                    kinds.push(match p.mvt {
                        _ if !constant || a.arity > 1 => Held::Other,
                        Mvt::F16 | Mvt::Bf16 => Held::ConstantFp(p.mvt),
                        _ => Held::Constant,
                    });
                }
                offset += if extend { 4 } else { size };
            }
            // Each argument's stores are aligned as the argument itself (not as the array),
            // so only the parts of one argument can merge.
            let align = self.optimized_align(callee, ty);
            let (own, _, uncertain) = merge_stores(&own, &kinds, align, align);
            if uncertain {
                self.finding(f, Some(inst), "llc 22 may merge these constant stores or not, as its combiner happens to visit them (a failed attempt stops it); not measured".to_string());
            }
            stores.extend(own);
        }
        let name = format!("param{fixed}");
        Some(ArgPlan {
            index: fixed,
            declaration: format!(".param .align 8 .b8 {name}[{offset}]"),
            name,
            byval: false,
            row: Row::Direct,
            parts: parts_out,
            stores: stores.into_iter().map(AccessPlan::from).collect(),
        })
    }

    /// An image or sampler parameter of a kernel under llc 22 (measured): `.param .texref
    /// name` (or `.surfref`, `.samplerref`) when the kernel passes it to texture or surface
    /// instructions under OpenCL's driver interface (NVPTXReplaceImageHandles puts the symbol
    /// in the instruction and drops the load); `.param .u64 .ptr .texref name` when nothing
    /// uses it there, and always under CUDA's, whose handles are loaded like any `.u64`. Other
    /// uses are a finding. Returns the declaration and the planned reads.
    pub(super) fn llc22_handle(
        &mut self,
        f: FuncId,
        index: usize,
        handle: Handle,
        pname: &str,
    ) -> (String, Option<Vec<AccessPlan>>) {
        let m = self.m;
        let kind = handle.ptx_type();
        let uses = m
            .function(f)
            .param(index)
            .map(|a| m.uses(Value::Arg(a.id())))
            .unwrap_or_default();
        let pointer = format!(".param .u64 .ptr .{kind} {pname}");
        if !self.nvcl {
            let reads = if uses.is_empty() {
                Vec::new()
            } else {
                vec![AccessPlan {
                    offset: 0,
                    bits: 64,
                    vector: 1,
                }]
            };
            return (pointer, Some(reads));
        }
        let by_image_instructions = uses.iter().all(|&u| {
            m.inst(u)
                .as_call()
                .and_then(|c| c.called_function())
                .is_some_and(|c| {
                    let name = m.function(c).name_str();
                    ["tex.", "tld4.", "suld.", "sust.", "txq.", "suq."]
                        .iter()
                        .any(|p| name.starts_with(&format!("llvm.nvvm.{p}")))
                })
        });
        if uses.is_empty() {
            (pointer, Some(Vec::new()))
        } else if by_image_instructions {
            (format!(".param .{kind} {pname}"), Some(Vec::new()))
        } else {
            self.finding(
                f,
                None,
                format!("parameter {index} is an image or sampler of an OpenCL kernel used other than by texture and surface instructions, whose declaration under llc 22 is not measured"),
            );
            (pointer, None)
        }
    }

    /// The kernels llc 22 adds for `@llvm.global_ctors` and `@llvm.global_dtors`
    /// (NVPTXCtorDtorLowering, always on; llc 19 runs it only with
    /// `-nvptx-lower-global-ctor-dtor`, an option llc 22 no longer has): for a non-empty
    /// array, a `.weak .entry` `nvptx$device$init` (`nvptx$device$fini`) without parameters
    /// at the end of the module, which calls each entry through one indirect call in a loop
    /// (`.callprototype ()_ ()`, numbered after every other call).
    pub(super) fn ctors_and_dtors(&mut self) -> Vec<FunctionPlan> {
        let m = self.m;
        let mut out = Vec::new();
        for (array, kernel) in [
            ("llvm.global_ctors", "nvptx$device$init"),
            ("llvm.global_dtors", "nvptx$device$fini"),
        ] {
            let entries = m
                .global_by_name(array)
                .and_then(|g| m.global(g).initializer())
                .is_some_and(|init| {
                    matches!(init.value, Value::Const(c) if matches!(m.constant(c), Constant::Array(ops) if !ops.is_empty()))
                });
            if !entries {
                continue;
            }
            let seq = self.seq;
            self.seq += 1;
            let callee = CalleePlan {
                kind: CalleeKind::Indirect,
                name: None,
                prototype: Some(format!("prototype_{seq} : .callprototype ()_ ();")),
            };
            let call = CallPlan {
                line: 0,
                column: 0,
                seq,
                envelope: envelope(seq, &callee, &[], &None, &[]),
                callee,
                row: Row::Indirect,
                args: Vec::new(),
                vararg_buffer: Vec::new(),
                return_declaration: None,
                return_loads: Vec::new(),
                note: None,
            };
            out.push(FunctionPlan {
                name: kernel.to_string(),
                ptx_name: kernel.to_string(),
                kind: FunctionKind::Kernel,
                definition: true,
                emitted: true,
                line: 0,
                directive: if self.nvcl { ".entry" } else { ".weak .entry" }.to_string(),
                return_declaration: None,
                params: Vec::new(),
                return_parts: Vec::new(),
                returns: Vec::new(),
                calls: vec![call],
                atomics: Vec::new(),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Llc;

    fn parts_of(ty: &str) -> Vec<(u64, String)> {
        let m = Module::parse("t.ll", format!("declare void @f({ty})\n")).unwrap();
        let f = m.functions().next().unwrap();
        let (_, params, _) = m.types().function_parts(f.function_type()).unwrap();
        value_parts(&m, params[0], false)
            .unwrap()
            .into_iter()
            .map(|p| (p.offset, p.mvt.name()))
            .collect()
    }

    fn names(list: &[(u64, &str)]) -> Vec<(u64, String)> {
        list.iter().map(|(o, n)| (*o, n.to_string())).collect()
    }

    #[test]
    fn vectors_split_into_register_types() {
        // A length that is not a power of two: elements, where llc 19 pairs them.
        assert_eq!(parts_of("<6 x half>").len(), 6);
        assert_eq!(
            parts_of("<8 x half>"),
            names(&[(0, "v2f16"), (4, "v2f16"), (8, "v2f16"), (12, "v2f16")])
        );
        assert_eq!(parts_of("<2 x i8>"), names(&[(0, "v2i8")]));
        assert_eq!(parts_of("<3 x i8>"), names(&[(0, "v4i8")]));
        assert_eq!(parts_of("<2 x i7>"), names(&[(0, "v2i16")]));
        assert_eq!(parts_of("i7"), names(&[(0, "i16")]));
        assert_eq!(parts_of("i48"), names(&[(0, "i64")]));
        assert_eq!(parts_of("fp128"), names(&[(0, "i64"), (8, "i64")]));
    }

    #[test]
    fn accesses_pack_narrow_elements_and_split_by_alignment() {
        let part = |offset, mvt| Part { offset, mvt };
        let at = |offset, bits, arity| Access {
            offset,
            bits,
            arity,
        };
        // <4 x half> in one 8-byte access: two 32-bit words.
        let halves: Vec<Part> = (0..4).map(|k| part(2 * k, Mvt::F16)).collect();
        assert_eq!(accesses(&halves, 8, 0), [at(0, 32, 2)]);
        // Two bytes as a pair.
        assert_eq!(accesses(&[part(0, Mvt::V2I8)], 2, 0), [at(0, 8, 2)]);
        // An i16 part (an `i7`) aligned to 1: two bytes.
        assert_eq!(
            accesses(&[part(0, Mvt::Int(16))], 1, 0),
            [at(0, 8, 1), at(1, 8, 1)]
        );
    }

    #[test]
    fn constant_stores_merge_where_aligned() {
        let word = |offset| Access {
            offset,
            bits: 32,
            arity: 1,
        };
        // A zero <12 x i8> return aligned to 16: b64 at 0, b32 at 8.
        let stores = [word(0), word(4), word(8)];
        let (out, _, uncertain) = merge_stores(&stores, &[Held::Constant; 3], 16, 16);
        assert_eq!(
            out,
            [
                Access {
                    offset: 0,
                    bits: 64,
                    arity: 1
                },
                word(8)
            ]
        );
        assert!(!uncertain);
        // Aligned to 4 only: nothing merges.
        let (out, _, _) = merge_stores(&stores, &[Held::Constant; 3], 4, 4);
        assert_eq!(out, stores);
    }

    #[test]
    fn compare_and_swap_names_order_and_scope() {
        let config = |sm| Config {
            sm,
            llc: Llc::V22,
            ..Config::default()
        };
        let q = |text: &str, partword, sm| cas_qualifiers(text, partword, &config(sm)).unwrap();
        assert_eq!(
            q(
                "cmpxchg ptr %p, i32 0, i32 1 monotonic monotonic",
                false,
                90
            ),
            "relaxed.sys."
        );
        assert_eq!(
            q(
                "cmpxchg ptr %p, i32 0, i32 1 syncscope(\"block\") release acquire",
                false,
                90
            ),
            "acq_rel.cta."
        );
        assert_eq!(
            q("atomicrmw nand ptr %p, i32 1 seq_cst", false, 70),
            "acquire.sys."
        );
        assert_eq!(
            q("atomicrmw nand ptr %p, i32 1 release", false, 70),
            "release.sys."
        );
        assert_eq!(
            q("cmpxchg ptr %p, i8 0, i8 1 seq_cst seq_cst", true, 90),
            "relaxed.sys."
        );
        assert_eq!(
            q(
                "cmpxchg ptr %p, i32 0, i32 1 syncscope(\"device\") acquire acquire",
                false,
                60
            ),
            "gpu."
        );
        assert_eq!(
            q("cmpxchg ptr %p, i32 0, i32 1 acquire acquire", false, 50),
            ""
        );
        assert!(cas_qualifiers(
            "cmpxchg ptr %p, i32 0, i32 1 syncscope(\"singlethread\") monotonic monotonic",
            false,
            &config(90)
        )
        .is_err());
    }
}
