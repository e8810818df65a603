//! Data layout: LLVM 19's rules for type sizes, alignments and struct layouts.
//!
//! Input: a `target datalayout` string. Output: a [`DataLayout`] that answers sizes, alignments and
//! struct layouts, or a [`DataLayoutError`] naming the component it refuses.
//!
//! [`DataLayout::parse`] reads a `target datalayout` string; whatever the string omits takes
//! LLVM's defaults (`DataLayout.cpp`: i1/i8 align 1, i16 2, i32 4, i64 4 ABI / 8 preferred,
//! f16 2, f32 4, f64 8, f128 16, v64 8, v128 16, 64-bit pointers, aggregates 1 ABI / 8
//! preferred). The size rules are LLVM's too: a type's store size is its bit size rounded up to
//! bytes; its alloc size is the store size rounded up to its ABI alignment; struct fields are
//! placed at their ABI alignment (1 in packed structs) and the struct is padded to its
//! alignment; an alignment missing from the layout falls back the way LLVM's does (integers:
//! the next larger specified width, else the largest; floats and vectors: the power of two at
//! or above the store size). The `datalayout_oracle` test compares every rule with what
//! `opt-19` folds on the nvptx64, amdgcn and x86_64 layouts.

use std::fmt;

use thiserror::Error;

use crate::types::{Type, TypeId, Types};

/// An alignment specification for one bit width: ABI and preferred alignment in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Spec {
    bits: u32,
    abi: u64,
    pref: u64,
}

/// A pointer specification for one address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointerSpec {
    /// The address space.
    pub addrspace: u32,
    /// Size in bits.
    pub size_bits: u32,
    /// ABI alignment in bytes.
    pub abi_align: u64,
    /// Preferred alignment in bytes.
    pub pref_align: u64,
    /// The width of GEP indices in bits.
    pub index_bits: u32,
}

/// A parsed `target datalayout`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataLayout {
    text: String,
    big_endian: bool,
    ints: Vec<Spec>,
    floats: Vec<Spec>,
    vectors: Vec<Spec>,
    aggregate_abi: u64,
    aggregate_pref: u64,
    pointers: Vec<PointerSpec>,
    alloca_addrspace: u32,
    program_addrspace: u32,
    globals_addrspace: u32,
    stack_align: Option<u64>,
    native_ints: Vec<u32>,
}

/// Why a datalayout string was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("invalid datalayout component `{component}`: {reason}")]
pub struct DataLayoutError {
    /// The `-`-separated component at fault.
    pub component: String,
    /// What is wrong with it.
    pub reason: String,
}

/// Why a size or layout could not be computed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LayoutError {
    /// Opaque structs, `void`, `label`, `metadata`, `token` and function types have no size.
    #[error("type `{0}` has no size")]
    Unsized(String),
    /// Scalable vectors have no fixed size.
    #[error("type `{0}` is a scalable vector: its size is not a constant")]
    Scalable(String),
    /// A struct containing itself, or absurd nesting.
    #[error("type nesting is too deep (a struct that contains itself?)")]
    TooDeep,
    /// The size does not fit in 64 bits.
    #[error("size overflows 64 bits")]
    Overflow,
    /// A GEP index path that does not fit the type.
    #[error("index {index} is invalid for `{ty}`")]
    BadIndex {
        /// The offending index.
        index: i64,
        /// The type it was applied to.
        ty: String,
    },
}

const MAX_DEPTH: u32 = 256;

impl Default for DataLayout {
    fn default() -> Self {
        DataLayout {
            text: String::new(),
            big_endian: false,
            ints: vec![
                spec(1, 1, 1),
                spec(8, 1, 1),
                spec(16, 2, 2),
                spec(32, 4, 4),
                spec(64, 4, 8),
            ],
            floats: vec![
                spec(16, 2, 2),
                spec(32, 4, 4),
                spec(64, 8, 8),
                spec(128, 16, 16),
            ],
            vectors: vec![spec(64, 8, 8), spec(128, 16, 16)],
            aggregate_abi: 1,
            aggregate_pref: 8,
            pointers: vec![PointerSpec {
                addrspace: 0,
                size_bits: 64,
                abi_align: 8,
                pref_align: 8,
                index_bits: 64,
            }],
            alloca_addrspace: 0,
            program_addrspace: 0,
            globals_addrspace: 0,
            stack_align: None,
            native_ints: Vec::new(),
        }
    }
}

fn spec(bits: u32, abi: u64, pref: u64) -> Spec {
    Spec { bits, abi, pref }
}

fn set_spec(list: &mut Vec<Spec>, new: Spec) {
    match list.binary_search_by_key(&new.bits, |s| s.bits) {
        Ok(i) => list[i] = new,
        Err(i) => list.insert(i, new),
    }
}

impl DataLayout {
    /// Parses a datalayout string (the text between the quotes of `target datalayout`).
    pub fn parse(text: &str) -> Result<DataLayout, DataLayoutError> {
        let mut dl = DataLayout {
            text: text.to_string(),
            ..DataLayout::default()
        };
        if text.is_empty() {
            return Ok(dl);
        }
        for component in text.split('-') {
            dl.component(component).map_err(|reason| DataLayoutError {
                component: component.to_string(),
                reason,
            })?;
        }
        Ok(dl)
    }

    /// One component of the string (`e`, `p1:64:64`, `i64:64`, ...). Long because it is one
    /// match with an arm per component letter of LangRef's grammar, so that the grammar reads
    /// in one place.
    fn component(&mut self, c: &str) -> Result<(), String> {
        let Some(first) = c.chars().next() else {
            return Err("empty component".into());
        };
        let rest = &c[first.len_utf8()..];
        match first {
            'e' if rest.is_empty() => self.big_endian = false,
            'E' if rest.is_empty() => self.big_endian = true,
            'm' => {
                if !rest.starts_with(':') || rest.len() < 2 {
                    return Err("expected m:<mangling>".into());
                }
            }
            'n' => {
                if rest.starts_with('i') {
                    // `ni:7:8:9`: non-integral address spaces; no effect on layout.
                    for part in rest.trim_start_matches('i').split(':').skip(1) {
                        number(part)?;
                    }
                } else {
                    self.native_ints = rest
                        .split(':')
                        .map(|p| number(p).map(|n| n as u32))
                        .collect::<Result<_, _>>()?;
                }
            }
            'S' => {
                let bits = number(rest)?;
                self.stack_align = if bits == 0 {
                    None
                } else {
                    Some(bytes_of(bits)?)
                };
            }
            'A' => self.alloca_addrspace = addrspace(rest)?,
            'P' => self.program_addrspace = addrspace(rest)?,
            'G' => self.globals_addrspace = addrspace(rest)?,
            'F' => {
                // Function pointer alignment: `Fi8` or `Fn32`; no effect on data layout.
                let mut chars = rest.chars();
                match chars.next() {
                    Some('i' | 'n') => {
                        number(chars.as_str())?;
                    }
                    _ => return Err("expected Fi<abi> or Fn<abi>".into()),
                }
            }
            'p' => {
                let mut parts = rest.split(':');
                // LLVM 22: `p[flags][n][(name)]`, flags `e` (external state) and `u` (unstable
                // representation), which only non-zero address spaces may carry.
                let spec = parts.next().unwrap_or("");
                let space = spec.trim_start_matches(['e', 'u']);
                let flagged = space.len() != spec.len();
                if let Some(flag) = space.chars().next().filter(char::is_ascii_alphabetic) {
                    return Err(format!("`{flag}` is not a pointer specification flag"));
                }
                let space = match space.split_once('(') {
                    Some((number, name)) if name.len() > 1 && name.ends_with(')') => number,
                    Some(_) => return Err("expected `(address space name)`".into()),
                    None => space,
                };
                let addrspace = if space.is_empty() {
                    0
                } else {
                    addrspace(space)?
                };
                if flagged && addrspace == 0 {
                    return Err("address space 0 cannot be unstable or have external state".into());
                }
                let size_bits = parts
                    .next()
                    .ok_or("expected p[n]:<size>:<abi>")
                    .and_then(|p| number(p).map_err(|_| "bad pointer size"))?;
                if size_bits == 0 || size_bits > u64::from(u32::MAX) {
                    return Err("pointer size must be non-zero".into());
                }
                let abi = bytes_of(number(parts.next().ok_or("expected an ABI alignment")?)?)?;
                let pref = match parts.next() {
                    Some(p) => bytes_of(number(p)?)?,
                    None => abi,
                };
                let index_bits = match parts.next() {
                    Some(p) => number(p)? as u32,
                    None => size_bits as u32,
                };
                // LLVM 19 ignores any further fields (old modules have
                // `f80:128:128:n8` where a `-` went missing).
                if pref < abi {
                    return Err("preferred alignment below ABI alignment".into());
                }
                let new = PointerSpec {
                    addrspace,
                    size_bits: size_bits as u32,
                    abi_align: abi,
                    pref_align: pref,
                    index_bits,
                };
                match self
                    .pointers
                    .binary_search_by_key(&addrspace, |p| p.addrspace)
                {
                    Ok(i) => self.pointers[i] = new,
                    Err(i) => self.pointers.insert(i, new),
                }
            }
            'i' | 'f' | 'v' | 'a' => {
                let mut parts = rest.split(':');
                let bits = match first {
                    'a' => {
                        let size = parts.next().unwrap_or("");
                        if !size.is_empty() && number(size)? != 0 {
                            return Err("aggregate size must be 0".into());
                        }
                        0
                    }
                    _ => {
                        let bits = number(parts.next().unwrap_or(""))?;
                        if bits == 0 || bits > 0xff_ffff {
                            return Err("bad bit width".into());
                        }
                        bits as u32
                    }
                };
                let abi_bits = number(parts.next().ok_or("expected an ABI alignment")?)?;
                if first != 'a' && abi_bits == 0 {
                    return Err("ABI alignment must be non-zero".into());
                }
                let abi = if abi_bits == 0 {
                    1
                } else {
                    bytes_of(abi_bits)?
                };
                let pref = match parts.next() {
                    Some(p) => bytes_of(number(p)?)?,
                    None => abi,
                };
                // LLVM 19 ignores any further fields (old modules have
                // `f80:128:128:n8` where a `-` went missing).
                if pref < abi {
                    return Err("preferred alignment below ABI alignment".into());
                }
                if first == 'i' && bits == 8 && abi != 1 {
                    return Err("i8 must be 8-bit aligned".into());
                }
                let new = spec(bits, abi, pref);
                match first {
                    'i' => set_spec(&mut self.ints, new),
                    'f' => set_spec(&mut self.floats, new),
                    'v' => set_spec(&mut self.vectors, new),
                    _ => {
                        self.aggregate_abi = abi;
                        self.aggregate_pref = pref;
                    }
                }
            }
            // `s<size>:<abi>:<pref>`, the stack object alignment of old modules: LLVM 19
            // still reads and ignores it.
            's' => {}
            _ => return Err("unknown specifier".into()),
        }
        Ok(())
    }

    /// The string this layout was parsed from.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the target is big-endian (`E`).
    pub fn is_big_endian(&self) -> bool {
        self.big_endian
    }

    /// The address space of `alloca` (`A<n>`; 5 on amdgcn).
    pub fn alloca_addrspace(&self) -> u32 {
        self.alloca_addrspace
    }

    /// The address space of functions (`P<n>`).
    pub fn program_addrspace(&self) -> u32 {
        self.program_addrspace
    }

    /// The default address space of globals (`G<n>`; 1 on amdgcn).
    pub fn globals_addrspace(&self) -> u32 {
        self.globals_addrspace
    }

    /// The natural stack alignment in bytes (`S<bits>`), when given.
    pub fn stack_align(&self) -> Option<u64> {
        self.stack_align
    }

    /// The pointer specification of an address space (address space 0's when it has none).
    pub fn pointer(&self, addrspace: u32) -> PointerSpec {
        match self
            .pointers
            .binary_search_by_key(&addrspace, |p| p.addrspace)
        {
            Ok(i) => self.pointers[i],
            Err(_) => {
                let zero = self
                    .pointers
                    .iter()
                    .find(|p| p.addrspace == 0)
                    .copied()
                    .unwrap_or(DataLayout::default().pointers[0]);
                PointerSpec { addrspace, ..zero }
            }
        }
    }

    fn int_align(&self, bits: u32) -> (u64, u64) {
        let i = self.ints.partition_point(|s| s.bits < bits);
        let s = self
            .ints
            .get(i)
            .or(self.ints.last())
            .copied()
            .unwrap_or(spec(bits, 1, 1));
        (s.abi, s.pref)
    }

    fn exact(list: &[Spec], bits: u64) -> Option<(u64, u64)> {
        list.iter()
            .find(|s| u64::from(s.bits) == bits)
            .map(|s| (s.abi, s.pref))
    }

    /// Size in bits (`getTypeSizeInBits`).
    pub fn size_in_bits(&self, types: &Types, ty: TypeId) -> Result<u64, LayoutError> {
        self.bits(types, ty, 0)
    }

    /// Store size in bytes: the bit size rounded up to whole bytes.
    pub fn store_size(&self, types: &Types, ty: TypeId) -> Result<u64, LayoutError> {
        Ok(self.bits(types, ty, 0)?.div_ceil(8))
    }

    /// Alloc size in bytes: the distance between consecutive array elements of the type.
    pub fn alloc_size(&self, types: &Types, ty: TypeId) -> Result<u64, LayoutError> {
        self.alloc(types, ty, 0)
    }

    /// ABI alignment in bytes.
    pub fn abi_align(&self, types: &Types, ty: TypeId) -> Result<u64, LayoutError> {
        Ok(self.align(types, ty, 0)?.0)
    }

    /// Preferred alignment in bytes.
    pub fn pref_align(&self, types: &Types, ty: TypeId) -> Result<u64, LayoutError> {
        Ok(self.align(types, ty, 0)?.1)
    }

    /// The layout of a struct type: field offsets, size and alignment.
    pub fn struct_layout(&self, types: &Types, ty: TypeId) -> Result<StructLayout, LayoutError> {
        self.layout_of(types, ty, 0)
    }

    /// Folds a GEP index path into a byte offset, as `getelementptr T, ptr null, idx...` does:
    /// the first index steps over whole `T`s, each further index selects a struct field (by
    /// number) or an array or vector element. Returns the offset and the type it points at.
    pub fn offset_of(
        &self,
        types: &Types,
        ty: TypeId,
        indices: &[i64],
    ) -> Result<(i64, TypeId), LayoutError> {
        let Some((&first, rest)) = indices.split_first() else {
            return Ok((0, ty));
        };
        let overflow = |_| LayoutError::Overflow;
        let size = i64::try_from(self.alloc_size(types, ty)?).map_err(overflow)?;
        let mut offset = first.checked_mul(size).ok_or(LayoutError::Overflow)?;
        let mut current = ty;
        for &index in rest {
            let bad = || LayoutError::BadIndex {
                index,
                ty: types.display(current).to_string(),
            };
            match types.get(current) {
                Type::Struct(s) => {
                    let field = usize::try_from(index).map_err(|_| bad())?;
                    if field >= s.fields.len() {
                        return Err(bad());
                    }
                    let layout = self.struct_layout(types, current)?;
                    let field_offset = i64::try_from(layout.offsets[field]).map_err(overflow)?;
                    offset = offset
                        .checked_add(field_offset)
                        .ok_or(LayoutError::Overflow)?;
                    current = s.fields[field];
                }
                Type::Array { elem, .. } | Type::Vector { elem, .. } => {
                    let elem_size =
                        i64::try_from(self.alloc_size(types, elem)?).map_err(overflow)?;
                    offset = index
                        .checked_mul(elem_size)
                        .and_then(|o| o.checked_add(offset))
                        .ok_or(LayoutError::Overflow)?;
                    current = elem;
                }
                _ => return Err(bad()),
            }
        }
        Ok((offset, current))
    }

    fn unsized_error(types: &Types, ty: TypeId) -> LayoutError {
        LayoutError::Unsized(types.display(ty).to_string())
    }

    fn bits(&self, types: &Types, ty: TypeId, depth: u32) -> Result<u64, LayoutError> {
        if depth > MAX_DEPTH {
            return Err(LayoutError::TooDeep);
        }
        Ok(match types.get(ty) {
            Type::Label => u64::from(self.pointer(0).size_bits),
            Type::Ptr { addrspace } => u64::from(self.pointer(addrspace).size_bits),
            Type::Int { bits } => u64::from(bits),
            Type::Half | Type::BFloat => 16,
            Type::Float => 32,
            Type::Double | Type::X86Mmx => 64,
            Type::X86Fp80 => 80,
            Type::Fp128 | Type::PpcFp128 => 128,
            Type::X86Amx => 8192,
            Type::Array { len, elem } => self
                .alloc(types, elem, depth + 1)?
                .checked_mul(len)
                .and_then(|b| b.checked_mul(8))
                .ok_or(LayoutError::Overflow)?,
            Type::Vector { scalable: true, .. } => {
                return Err(LayoutError::Scalable(types.display(ty).to_string()))
            }
            Type::Vector { len, elem, .. } => self
                .bits(types, elem, depth + 1)?
                .checked_mul(u64::from(len))
                .ok_or(LayoutError::Overflow)?,
            Type::Struct(_) => self
                .layout_of(types, ty, depth + 1)?
                .size
                .checked_mul(8)
                .ok_or(LayoutError::Overflow)?,
            Type::TargetExt { .. }
            | Type::Void
            | Type::Metadata
            | Type::Token
            | Type::Function { .. } => return Err(Self::unsized_error(types, ty)),
        })
    }

    fn alloc(&self, types: &Types, ty: TypeId, depth: u32) -> Result<u64, LayoutError> {
        let store = self.bits(types, ty, depth)?.div_ceil(8);
        let (abi, _) = self.align(types, ty, depth)?;
        store
            .checked_next_multiple_of(abi)
            .ok_or(LayoutError::Overflow)
    }

    /// (ABI, preferred) alignment.
    fn align(&self, types: &Types, ty: TypeId, depth: u32) -> Result<(u64, u64), LayoutError> {
        if depth > MAX_DEPTH {
            return Err(LayoutError::TooDeep);
        }
        Ok(match types.get(ty) {
            Type::Label => {
                let p = self.pointer(0);
                (p.abi_align, p.pref_align)
            }
            Type::Ptr { addrspace } => {
                let p = self.pointer(addrspace);
                (p.abi_align, p.pref_align)
            }
            Type::Array { elem, .. } => self.align(types, elem, depth + 1)?,
            Type::Struct(s) => {
                if s.opaque {
                    return Err(Self::unsized_error(types, ty));
                }
                let layout = self.layout_of(types, ty, depth + 1)?;
                if s.packed {
                    (1, self.aggregate_pref.max(layout.align))
                } else {
                    (
                        self.aggregate_abi.max(layout.align),
                        self.aggregate_pref.max(layout.align),
                    )
                }
            }
            Type::Int { bits } => self.int_align(bits),
            Type::Half
            | Type::BFloat
            | Type::Float
            | Type::Double
            | Type::X86Fp80
            | Type::Fp128
            | Type::PpcFp128 => {
                let bits = self.bits(types, ty, depth)?;
                Self::exact(&self.floats, bits).unwrap_or_else(|| {
                    let natural = (bits / 8).next_power_of_two();
                    (natural, natural)
                })
            }
            Type::X86Mmx | Type::Vector { .. } => {
                let bits = self.bits(types, ty, depth)?;
                Self::exact(&self.vectors, bits).unwrap_or_else(|| {
                    let natural = bits.div_ceil(8).next_power_of_two();
                    (natural, natural)
                })
            }
            Type::X86Amx => (64, 64),
            Type::TargetExt { .. }
            | Type::Void
            | Type::Metadata
            | Type::Token
            | Type::Function { .. } => return Err(Self::unsized_error(types, ty)),
        })
    }

    fn layout_of(
        &self,
        types: &Types,
        ty: TypeId,
        depth: u32,
    ) -> Result<StructLayout, LayoutError> {
        if depth > MAX_DEPTH {
            return Err(LayoutError::TooDeep);
        }
        let Type::Struct(s) = types.get(ty) else {
            return Err(LayoutError::BadIndex {
                index: 0,
                ty: types.display(ty).to_string(),
            });
        };
        if s.opaque {
            return Err(Self::unsized_error(types, ty));
        }
        let mut size: u64 = 0;
        let mut align: u64 = 1;
        let mut offsets = Vec::with_capacity(s.fields.len());
        for &field in s.fields {
            let field_align = if s.packed {
                1
            } else {
                self.align(types, field, depth + 1)?.0
            };
            size = size
                .checked_next_multiple_of(field_align)
                .ok_or(LayoutError::Overflow)?;
            align = align.max(field_align);
            offsets.push(size);
            size = size
                .checked_add(self.alloc(types, field, depth + 1)?)
                .ok_or(LayoutError::Overflow)?;
        }
        size = size
            .checked_next_multiple_of(align)
            .ok_or(LayoutError::Overflow)?;
        Ok(StructLayout {
            size,
            align,
            offsets,
        })
    }
}

impl fmt::Display for DataLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Where a struct's fields lie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructLayout {
    /// Alloc size in bytes, tail padding included.
    pub size: u64,
    /// The alignment the fields require (1 for packed structs); the struct's ABI alignment is
    /// this or the layout's aggregate alignment, whichever is larger.
    pub align: u64,
    /// Byte offset of each field.
    pub offsets: Vec<u64>,
}

impl StructLayout {
    /// The field containing byte `offset`, as LLVM's `getElementContainingOffset`.
    pub fn field_at(&self, offset: u64) -> Option<usize> {
        if offset >= self.size {
            return None;
        }
        Some(
            self.offsets
                .partition_point(|&o| o <= offset)
                .saturating_sub(1),
        )
    }
}

fn number(text: &str) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{text}` is not a number"));
    }
    text.parse::<u64>()
        .map_err(|_| format!("`{text}` is too large"))
}

fn addrspace(text: &str) -> Result<u32, String> {
    let n = number(text)?;
    u32::try_from(n)
        .ok()
        .filter(|&n| n < (1 << 24))
        .ok_or_else(|| "address space out of range".to_string())
}

/// Bits to bytes, for alignments: a power of two multiple of 8.
fn bytes_of(bits: u64) -> Result<u64, String> {
    if bits == 0 || bits % 8 != 0 || !(bits / 8).is_power_of_two() || bits > (1 << 32) {
        return Err(format!("{bits} is not a power-of-two number of bytes"));
    }
    Ok(bits / 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    const X86_64: &str =
        "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128";
    const AMDGCN: &str = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9";

    #[test]
    fn parses_real_layouts() {
        let x86 = DataLayout::parse(X86_64).unwrap();
        assert_eq!(x86.pointer(270).size_bits, 32);
        assert_eq!(x86.stack_align(), Some(16));
        let amd = DataLayout::parse(AMDGCN).unwrap();
        assert_eq!(amd.alloca_addrspace(), 5);
        assert_eq!(amd.globals_addrspace(), 1);
        assert_eq!(amd.pointer(7).size_bits, 160);
        assert_eq!(amd.pointer(7).abi_align, 32);
        assert_eq!(amd.pointer(7).index_bits, 32);
        assert_eq!(amd.pointer(42).size_bits, 64);
        // LLVM 22's pointer flags and address space names (verdicts of llvm-as-22).
        let flagged = DataLayout::parse("pe1:64:64:64:32-pu2(x):32:32-p3(global):64:64").unwrap();
        assert_eq!(flagged.pointer(1).index_bits, 32);
        assert_eq!(flagged.pointer(2).size_bits, 32);
        assert_eq!(flagged.pointer(3).size_bits, 64);
        for bad in ["pe:64:64", "px1:64:64", "p1():64:64"] {
            assert!(DataLayout::parse(bad).is_err(), "{bad}");
        }
        for bad in ["i8:16", "p:0:8", "x", "i32:3", "a1:8", "i:8"] {
            assert!(DataLayout::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn struct_rules() {
        let mut types = Types::new();
        let x86 = DataLayout::parse(X86_64).unwrap();
        let arr = types.array(4, TypeId::I32);
        // A worked example: { double, i8, [4 x i32] } is 32 bytes, fields 0, 8, 12.
        let s = types.struct_literal(&[TypeId::DOUBLE, TypeId::I8, arr], false);
        let layout = x86.struct_layout(&types, s).unwrap();
        assert_eq!(layout.offsets, vec![0, 8, 12]);
        assert_eq!(layout.size, 32);
        assert_eq!(x86.offset_of(&types, s, &[0, 2, 3]).unwrap().0, 24);
        assert_eq!(x86.offset_of(&types, s, &[1]).unwrap().0, 32);
        let packed = types.struct_literal(&[TypeId::I8, TypeId::I32], true);
        assert_eq!(x86.alloc_size(&types, packed).unwrap(), 5);
        assert_eq!(x86.abi_align(&types, packed).unwrap(), 1);
        let fp80 = types.intern(crate::types::TypeData::X86Fp80);
        assert_eq!(x86.alloc_size(&types, fp80).unwrap(), 16);
        let v3 = types.vector(3, TypeId::I32);
        assert_eq!(x86.alloc_size(&types, v3).unwrap(), 16);
        let default = DataLayout::default();
        assert_eq!(default.abi_align(&types, TypeId::I64).unwrap(), 4);
        let i128 = types.int(128);
        assert_eq!(default.abi_align(&types, i128).unwrap(), 4);
        assert_eq!(x86.abi_align(&types, i128).unwrap(), 16);
        assert_eq!(layout.field_at(13), Some(2));
        assert_eq!(layout.field_at(9), Some(1));
    }
}
