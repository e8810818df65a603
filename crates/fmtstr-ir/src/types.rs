//! LLVM types, interned per module.
//!
//! Input: the types the parser reads and the edits build. Output: interned [`TypeId`]s in a
//! [`Types`] table, and each type written as LLVM writes it.
//!
//! Every distinct type gets one [`TypeId`], so comparing types is comparing ids. Named structs
//! (`%struct.S = type { ... }`) are identified by name, like LLVM's identified structs; literal
//! structs (`{ i32, ptr }`) by their contents. Opaque pointers only: LLVM 19 has no other kind
//! (the parser still reads legacy `T*` spellings as `ptr`).

use std::{fmt, io};

use crate::hash::FxHashMap;
use crate::lexer::{escape_into, is_bare_name};

/// A handle to a type of one module. Equal types have equal ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub(crate) u32);

impl TypeId {
    /// `void`.
    pub const VOID: TypeId = TypeId(0);
    /// `i1`.
    pub const I1: TypeId = TypeId(1);
    /// `i8`.
    pub const I8: TypeId = TypeId(2);
    /// `i16`.
    pub const I16: TypeId = TypeId(3);
    /// `i32`.
    pub const I32: TypeId = TypeId(4);
    /// `i64`.
    pub const I64: TypeId = TypeId(5);
    /// `ptr` (address space 0).
    pub const PTR: TypeId = TypeId(6);
    /// `half`.
    pub const HALF: TypeId = TypeId(7);
    /// `float`.
    pub const FLOAT: TypeId = TypeId(8);
    /// `double`.
    pub const DOUBLE: TypeId = TypeId(9);
    /// `label`.
    pub const LABEL: TypeId = TypeId(10);
    /// `metadata`.
    pub const METADATA: TypeId = TypeId(11);
    /// `token`.
    pub const TOKEN: TypeId = TypeId(12);

    /// The index of the type in its table (for diagnostics and maps).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a type is, as the module's [`Types`] table answers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type<'a> {
    /// `void`.
    Void,
    /// `half` (IEEE binary16).
    Half,
    /// `bfloat`.
    BFloat,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `x86_fp80`.
    X86Fp80,
    /// `fp128`.
    Fp128,
    /// `ppc_fp128`.
    PpcFp128,
    /// `x86_amx`.
    X86Amx,
    /// `x86_mmx`.
    X86Mmx,
    /// `label`.
    Label,
    /// `metadata`.
    Metadata,
    /// `token`.
    Token,
    /// `iN`.
    Int {
        /// N.
        bits: u32,
    },
    /// `ptr addrspace(N)`.
    Ptr {
        /// N (0 for plain `ptr`).
        addrspace: u32,
    },
    /// `<N x T>` or `<vscale x N x T>`.
    Vector {
        /// N.
        len: u32,
        /// T.
        elem: TypeId,
        /// Whether the length is a multiple of `vscale`.
        scalable: bool,
    },
    /// `[N x T]`.
    Array {
        /// N.
        len: u64,
        /// T.
        elem: TypeId,
    },
    /// A literal (`{ ... }`, `<{ ... }>`) or named (`%name`) struct.
    Struct(StructType<'a>),
    /// `R (P1, P2, ...)`.
    Function {
        /// The return type.
        ret: TypeId,
        /// The parameter types.
        params: &'a [TypeId],
        /// Whether it ends in `...`.
        vararg: bool,
    },
    /// `target("name", types..., ints...)`.
    TargetExt {
        /// The name, decoded.
        name: &'a [u8],
        /// The type parameters.
        types: &'a [TypeId],
        /// The integer parameters.
        ints: &'a [u32],
    },
}

/// A struct type's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StructType<'a> {
    /// The name of a named struct (decoded, without `%`); `None` for a literal struct.
    pub name: Option<&'a [u8]>,
    /// The field types (empty for an opaque struct).
    pub fields: &'a [TypeId],
    /// `<{ ... }>`: no padding between fields, alignment 1.
    pub packed: bool,
    /// `type opaque`, or a name used but never defined: it has no layout.
    pub opaque: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TypeData {
    Void,
    Half,
    BFloat,
    Float,
    Double,
    X86Fp80,
    Fp128,
    PpcFp128,
    X86Amx,
    X86Mmx,
    Label,
    Metadata,
    Token,
    Int(u32),
    Ptr(u32),
    Vector {
        len: u32,
        elem: TypeId,
        scalable: bool,
    },
    Array {
        len: u64,
        elem: TypeId,
    },
    Struct {
        fields: Box<[TypeId]>,
        packed: bool,
    },
    Named(u32),
    Function {
        ret: TypeId,
        params: Box<[TypeId]>,
        vararg: bool,
    },
    TargetExt {
        name: Box<[u8]>,
        types: Box<[TypeId]>,
        ints: Box<[u32]>,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct NamedType {
    /// The decoded name, or the decimal number of a numbered type (`%0 = type ...`).
    pub name: Box<[u8]>,
    pub numbered: bool,
    pub body: NamedBody,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NamedBody {
    /// Mentioned, not (yet) defined.
    Undefined,
    Opaque,
    Struct {
        fields: Box<[TypeId]>,
        packed: bool,
    },
    /// `%t = type [8 x i8]`: another name for a type that is not a struct (never itself an
    /// alias).
    Alias(TypeId),
}

/// The type table of one module.
#[derive(Clone, Debug)]
pub struct Types {
    data: Vec<TypeData>,
    /// Each type's spelling, made when it is interned (a type never changes its spelling:
    /// a named struct is written by name): printing a type is a copy.
    texts: Vec<Box<[u8]>>,
    map: FxHashMap<TypeData, TypeId>,
    composites: FxHashMap<u64, Vec<TypeId>>,
    named: Vec<NamedType>,
    /// Named structs by decoded name, and numbered ones (`%0 = type ...`) by number.
    named_map: FxHashMap<Box<[u8]>, u32>,
    numbered_map: FxHashMap<u32, u32>,
    named_ids: Vec<TypeId>,
}

impl Default for Types {
    fn default() -> Self {
        Self::new()
    }
}

impl Types {
    /// A table holding the common types at their fixed ids ([`TypeId::I32`], ...).
    pub fn new() -> Self {
        let mut types = Types {
            data: Vec::new(),
            texts: Vec::new(),
            map: FxHashMap::default(),
            composites: FxHashMap::default(),
            named: Vec::new(),
            named_map: FxHashMap::default(),
            numbered_map: FxHashMap::default(),
            named_ids: Vec::new(),
        };
        for data in [
            TypeData::Void,
            TypeData::Int(1),
            TypeData::Int(8),
            TypeData::Int(16),
            TypeData::Int(32),
            TypeData::Int(64),
            TypeData::Ptr(0),
            TypeData::Half,
            TypeData::Float,
            TypeData::Double,
            TypeData::Label,
            TypeData::Metadata,
            TypeData::Token,
        ] {
            types.intern(data);
        }
        types
    }

    pub(crate) fn intern(&mut self, data: TypeData) -> TypeId {
        match &data {
            TypeData::Struct { fields, packed } => {
                return self.struct_literal(&fields.clone(), *packed)
            }
            TypeData::Function {
                ret,
                params,
                vararg,
            } => return self.function(*ret, &params.clone(), *vararg),
            _ => {}
        }
        if let Some(&id) = self.map.get(&data) {
            return id;
        }
        let id = self.push(data.clone());
        self.map.insert(data, id);
        id
    }

    /// Adds a type (its parts are there already) and its spelling.
    fn push(&mut self, data: TypeData) -> TypeId {
        let id = TypeId(self.data.len() as u32);
        self.data.push(data);
        let mut text = Vec::new();
        self.write_depth(id, &mut text, 0);
        self.texts.push(text.into());
        id
    }

    pub(crate) fn data(&self, id: TypeId) -> &TypeData {
        // Ids only come from this table; a foreign id reads as void rather than panicking.
        self.data.get(id.index()).unwrap_or(&TypeData::Void)
    }

    /// How many types the table holds.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Never true: the common types are always there.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// What `id` is.
    pub fn get(&self, id: TypeId) -> Type<'_> {
        match self.data(id) {
            TypeData::Void => Type::Void,
            TypeData::Half => Type::Half,
            TypeData::BFloat => Type::BFloat,
            TypeData::Float => Type::Float,
            TypeData::Double => Type::Double,
            TypeData::X86Fp80 => Type::X86Fp80,
            TypeData::Fp128 => Type::Fp128,
            TypeData::PpcFp128 => Type::PpcFp128,
            TypeData::X86Amx => Type::X86Amx,
            TypeData::X86Mmx => Type::X86Mmx,
            TypeData::Label => Type::Label,
            TypeData::Metadata => Type::Metadata,
            TypeData::Token => Type::Token,
            &TypeData::Int(bits) => Type::Int { bits },
            &TypeData::Ptr(addrspace) => Type::Ptr { addrspace },
            &TypeData::Vector {
                len,
                elem,
                scalable,
            } => Type::Vector {
                len,
                elem,
                scalable,
            },
            &TypeData::Array { len, elem } => Type::Array { len, elem },
            TypeData::Struct { fields, packed } => Type::Struct(StructType {
                name: None,
                fields,
                packed: *packed,
                opaque: false,
            }),
            &TypeData::Named(index) => {
                let named = &self.named[index as usize];
                let (fields, packed, opaque): (&[TypeId], bool, bool) = match &named.body {
                    NamedBody::Struct { fields, packed } => (fields, *packed, false),
                    &NamedBody::Alias(target) => return self.get(self.resolve_alias(target)),
                    NamedBody::Opaque | NamedBody::Undefined => (&[], false, true),
                };
                Type::Struct(StructType {
                    name: Some(&named.name),
                    fields,
                    packed,
                    opaque,
                })
            }
            TypeData::Function {
                ret,
                params,
                vararg,
            } => Type::Function {
                ret: *ret,
                params,
                vararg: *vararg,
            },
            TypeData::TargetExt { name, types, ints } => Type::TargetExt { name, types, ints },
        }
    }

    /// `iN`.
    pub fn int(&mut self, bits: u32) -> TypeId {
        match bits {
            1 => TypeId::I1,
            8 => TypeId::I8,
            16 => TypeId::I16,
            32 => TypeId::I32,
            64 => TypeId::I64,
            _ => self.intern(TypeData::Int(bits)),
        }
    }

    /// `ptr addrspace(N)`.
    pub fn ptr(&mut self, addrspace: u32) -> TypeId {
        if addrspace == 0 {
            return TypeId::PTR;
        }
        self.intern(TypeData::Ptr(addrspace))
    }

    /// `[len x elem]`.
    pub fn array(&mut self, len: u64, elem: TypeId) -> TypeId {
        self.intern(TypeData::Array { len, elem })
    }

    /// `<len x elem>`.
    pub fn vector(&mut self, len: u32, elem: TypeId) -> TypeId {
        self.intern(TypeData::Vector {
            len,
            elem,
            scalable: false,
        })
    }

    /// `{ fields }` or, when packed, `<{ fields }>`.
    pub fn struct_literal(&mut self, fields: &[TypeId], packed: bool) -> TypeId {
        self.composite(0, TypeId::VOID, fields, packed)
    }

    /// `ret (params)` or `ret (params, ...)`.
    pub fn function(&mut self, ret: TypeId, params: &[TypeId], vararg: bool) -> TypeId {
        self.composite(1, ret, params, vararg)
    }

    /// Struct and function types are looked up by a hash of their parts, so that finding an
    /// existing one (every call instruction names a function type) allocates nothing.
    fn composite(&mut self, tag: u8, head: TypeId, items: &[TypeId], flag: bool) -> TypeId {
        use std::hash::Hasher;
        let mut hasher = crate::hash::FxHasher::default();
        hasher.write_u8(tag);
        hasher.write_u32(head.0);
        for item in items {
            hasher.write_u32(item.0);
        }
        hasher.write_u8(u8::from(flag));
        let hash = hasher.finish();
        let matches = |data: &TypeData| match data {
            TypeData::Struct { fields, packed } => {
                tag == 0 && **fields == *items && *packed == flag
            }
            TypeData::Function {
                ret,
                params,
                vararg,
            } => tag == 1 && *ret == head && **params == *items && *vararg == flag,
            _ => false,
        };
        if let Some(candidates) = self.composites.get(&hash) {
            if let Some(&id) = candidates
                .iter()
                .find(|&&id| matches(&self.data[id.index()]))
            {
                return id;
            }
        }
        let id = self.push(if tag == 0 {
            TypeData::Struct {
                fields: items.into(),
                packed: flag,
            }
        } else {
            TypeData::Function {
                ret: head,
                params: items.into(),
                vararg: flag,
            }
        });
        self.composites.entry(hash).or_default().push(id);
        id
    }

    /// The named struct `%name`, if the module mentions it.
    pub fn named(&self, name: &str) -> Option<TypeId> {
        self.named_map
            .get(name.as_bytes())
            .and_then(|&index| self.named_ids.get(index as usize).copied())
    }

    /// Every named struct, in the order the module first mentions them.
    pub fn named_structs(&self) -> impl Iterator<Item = TypeId> + '_ {
        self.named_ids.iter().copied()
    }

    /// The named type for a name, created (undefined) on first mention.
    pub(crate) fn named_ref(&mut self, numbered: bool, name: &[u8]) -> (TypeId, u32) {
        let number = if numbered {
            Some(crate::lexer::parse_u32(name).unwrap_or(u32::MAX))
        } else {
            None
        };
        let found = match number {
            Some(n) => self.numbered_map.get(&n),
            None => self.named_map.get(name),
        };
        if let Some(&index) = found {
            return (self.named_ids[index as usize], index);
        }
        let index = self.named.len() as u32;
        self.named.push(NamedType {
            name: name.into(),
            numbered,
            body: NamedBody::Undefined,
        });
        match number {
            Some(n) => self.numbered_map.insert(n, index),
            None => self.named_map.insert(name.into(), index),
        };
        let id = self.intern(TypeData::Named(index));
        self.named_ids.push(id);
        (id, index)
    }

    /// The type a chain of named non-struct types ends at (never itself such an alias).
    #[cold]
    fn resolve_alias(&self, mut id: TypeId) -> TypeId {
        // Cycles are refused when parsing; the bound keeps a hand-made table finite.
        for _ in 0..=self.named.len() {
            match self.data(id) {
                &TypeData::Named(index) => match self.named.get(index as usize).map(|n| &n.body) {
                    Some(&NamedBody::Alias(next)) => id = next,
                    _ => return id,
                },
                _ => return id,
            }
        }
        TypeId::VOID
    }

    pub(crate) fn named_body(&self, index: u32) -> Option<&NamedBody> {
        self.named.get(index as usize).map(|n| &n.body)
    }

    pub(crate) fn set_named_body(&mut self, index: u32, body: NamedBody) {
        if let Some(named) = self.named.get_mut(index as usize) {
            named.body = body;
        }
    }

    /// Whether `id` is `iN`; returns N.
    pub fn int_bits(&self, id: TypeId) -> Option<u32> {
        match self.data(id) {
            &TypeData::Int(bits) => Some(bits),
            _ => None,
        }
    }

    /// Whether `id` is a pointer; returns its address space.
    pub fn ptr_addrspace(&self, id: TypeId) -> Option<u32> {
        match self.data(id) {
            &TypeData::Ptr(addrspace) => Some(addrspace),
            _ => None,
        }
    }

    /// Whether `id` is a floating-point type.
    pub fn is_float(&self, id: TypeId) -> bool {
        matches!(
            self.data(id),
            TypeData::Half
                | TypeData::BFloat
                | TypeData::Float
                | TypeData::Double
                | TypeData::X86Fp80
                | TypeData::Fp128
                | TypeData::PpcFp128
        )
    }

    /// The element type of an array or vector.
    pub fn element(&self, id: TypeId) -> Option<TypeId> {
        match self.data(id) {
            &TypeData::Array { elem, .. } | &TypeData::Vector { elem, .. } => Some(elem),
            _ => None,
        }
    }

    /// Field `index` of a struct, element of an array or vector: what an `extractvalue` or
    /// GEP index selects.
    pub fn member(&self, id: TypeId, index: u64) -> Option<TypeId> {
        match self.get(id) {
            Type::Struct(s) => s.fields.get(usize::try_from(index).ok()?).copied(),
            Type::Array { elem, .. } | Type::Vector { elem, .. } => Some(elem),
            _ => None,
        }
    }

    /// The parts of a function type: return type, parameter types, whether varargs.
    pub fn function_parts(&self, id: TypeId) -> Option<(TypeId, &[TypeId], bool)> {
        match self.data(id) {
            TypeData::Function {
                ret,
                params,
                vararg,
            } => Some((*ret, params, *vararg)),
            _ => None,
        }
    }

    /// Displays a type as LLVM writes it.
    pub fn display(&self, id: TypeId) -> DisplayType<'_> {
        DisplayType { types: self, id }
    }

    /// Appends the LLVM spelling of `id` to `out`.
    pub(crate) fn write(&self, id: TypeId, out: &mut Vec<u8>) {
        match self.texts.get(id.index()) {
            Some(text) => out.extend_from_slice(text),
            None => self.write_depth(id, out, 0),
        }
    }

    fn write_depth(&self, id: TypeId, out: &mut Vec<u8>, depth: u32) {
        if depth > 512 {
            out.extend_from_slice(b"<too deep>");
            return;
        }
        let depth = depth + 1;
        let list = |items: &[TypeId], out: &mut Vec<u8>| {
            for (i, &item) in items.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                self.write_depth(item, out, depth);
            }
        };
        match self.data(id) {
            TypeData::Void => out.extend_from_slice(b"void"),
            TypeData::Half => out.extend_from_slice(b"half"),
            TypeData::BFloat => out.extend_from_slice(b"bfloat"),
            TypeData::Float => out.extend_from_slice(b"float"),
            TypeData::Double => out.extend_from_slice(b"double"),
            TypeData::X86Fp80 => out.extend_from_slice(b"x86_fp80"),
            TypeData::Fp128 => out.extend_from_slice(b"fp128"),
            TypeData::PpcFp128 => out.extend_from_slice(b"ppc_fp128"),
            TypeData::X86Amx => out.extend_from_slice(b"x86_amx"),
            TypeData::X86Mmx => out.extend_from_slice(b"x86_mmx"),
            TypeData::Label => out.extend_from_slice(b"label"),
            TypeData::Metadata => out.extend_from_slice(b"metadata"),
            TypeData::Token => out.extend_from_slice(b"token"),
            TypeData::Int(bits) => {
                out.push(b'i');
                push_u64(out, u64::from(*bits));
            }
            TypeData::Ptr(0) => out.extend_from_slice(b"ptr"),
            TypeData::Ptr(addrspace) => {
                push_fmt(out, format_args!("ptr addrspace({addrspace})"));
            }
            &TypeData::Vector {
                len,
                elem,
                scalable,
            } => {
                out.push(b'<');
                if scalable {
                    out.extend_from_slice(b"vscale x ");
                }
                push_fmt(out, format_args!("{len} x "));
                self.write_depth(elem, out, depth);
                out.push(b'>');
            }
            &TypeData::Array { len, elem } => {
                push_fmt(out, format_args!("[{len} x "));
                self.write_depth(elem, out, depth);
                out.push(b']');
            }
            TypeData::Struct { fields, packed } => {
                if *packed {
                    out.push(b'<');
                }
                if fields.is_empty() {
                    out.extend_from_slice(b"{}");
                } else {
                    out.extend_from_slice(b"{ ");
                    list(fields, out);
                    out.extend_from_slice(b" }");
                }
                if *packed {
                    out.push(b'>');
                }
            }
            &TypeData::Named(index) => {
                if let Some(named) = self.named.get(index as usize) {
                    write_local_name(&named.name, named.numbered, out);
                }
            }
            TypeData::Function {
                ret,
                params,
                vararg,
            } => {
                self.write_depth(*ret, out, depth);
                out.extend_from_slice(b" (");
                list(params, out);
                if *vararg {
                    if !params.is_empty() {
                        out.extend_from_slice(b", ");
                    }
                    out.extend_from_slice(b"...");
                }
                out.push(b')');
            }
            TypeData::TargetExt { name, types, ints } => {
                out.extend_from_slice(b"target(\"");
                escape_into(name, out);
                out.push(b'"');
                for &t in types.iter() {
                    out.extend_from_slice(b", ");
                    self.write_depth(t, out, depth);
                }
                for i in ints.iter() {
                    push_fmt(out, format_args!(", {i}"));
                }
                out.push(b')');
            }
        }
    }
}

/// Writes `%name` as LLVM does: bare when it can be, quoted and escaped otherwise.
pub(crate) fn write_local_name(name: &[u8], numbered: bool, out: &mut Vec<u8>) {
    write_name(b'%', name, numbered, out);
}

/// Appends formatted text to `out` without an intermediate `String`.
#[inline]
pub(crate) fn push_fmt(out: &mut Vec<u8>, args: fmt::Arguments<'_>) {
    // Writing to a Vec cannot fail.
    let _ = io::Write::write_fmt(out, args);
}

/// Appends the decimal digits of `n` (what `format!("{n}")` gives, without the formatter).
#[inline]
pub(crate) fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    // One digit (most suffixes and small numbers) is one byte pushed.
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// [`push_u64`] for a signed value.
#[inline]
pub(crate) fn push_i64(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    push_u64(out, n.unsigned_abs());
}

/// Writes a double as LLVM does: `%e` with six digits when that reads back exactly, the
/// IEEE bits in hex otherwise. (With the other number writers: constants and the printer
/// both spell doubles.)
pub(crate) fn write_f64(v: f64, out: &mut Vec<u8>) {
    if v.is_finite() {
        let s = format!("{v:.6e}");
        if let Some((mantissa, exponent)) = s.split_once('e') {
            let exp: i32 = exponent.parse().unwrap_or(0);
            let text = format!(
                "{mantissa}e{}{:02}",
                if exp < 0 { '-' } else { '+' },
                exp.unsigned_abs()
            );
            if text.parse::<f64>().ok() == Some(v) {
                out.extend_from_slice(text.as_bytes());
                return;
            }
        }
    }
    push_fmt(out, format_args!("0x{:016X}", v.to_bits()));
}

pub(crate) fn write_name(sigil: u8, name: &[u8], numbered: bool, out: &mut Vec<u8>) {
    out.push(sigil);
    if numbered || is_bare_name(name) {
        out.extend_from_slice(name);
    } else {
        out.push(b'"');
        escape_into(name, out);
        out.push(b'"');
    }
}

/// [`Types::display`]: a type as LLVM writes it.
#[derive(Clone, Copy, Debug)]
pub struct DisplayType<'a> {
    types: &'a Types,
    id: TypeId,
}

impl fmt::Display for DisplayType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::new();
        self.types.write(self.id, &mut out);
        f.write_str(&String::from_utf8_lossy(&out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every power of ten, one below it and one above, and the extremes, as `format!` writes
    /// them, after text already in the buffer.
    #[test]
    fn numbers_print_as_format_prints_them() {
        let mut values = vec![0, 1, 9, u64::MAX, u64::MAX - 1];
        let mut power = 1u64;
        while let Some(next) = power.checked_mul(10) {
            power = next;
            values.extend([power - 1, power, power + 1]);
        }
        for n in values {
            let mut out = b"x=".to_vec();
            push_u64(&mut out, n);
            assert_eq!(out, format!("x={n}").into_bytes(), "{n}");
        }
    }

    #[test]
    fn fixed_ids_and_printing() {
        let mut types = Types::new();
        assert_eq!(types.int(32), TypeId::I32);
        assert_eq!(types.ptr(0), TypeId::PTR);
        let p5 = types.ptr(5);
        let arr = types.array(4, TypeId::I32);
        let vec = types.vector(4, TypeId::FLOAT);
        let s = types.struct_literal(&[TypeId::I8, arr, p5], false);
        let packed = types.struct_literal(&[TypeId::I8, TypeId::I32], true);
        let empty = types.struct_literal(&[], false);
        let f = types.function(TypeId::I32, &[TypeId::PTR], true);
        let (named, index) = types.named_ref(false, b"struct.a b");
        types.set_named_body(
            index,
            NamedBody::Struct {
                fields: Box::new([vec]),
                packed: false,
            },
        );
        let show = |id| types.display(id).to_string();
        assert_eq!(show(s), "{ i8, [4 x i32], ptr addrspace(5) }");
        assert_eq!(show(packed), "<{ i8, i32 }>");
        assert_eq!(show(empty), "{}");
        assert_eq!(show(f), "i32 (ptr, ...)");
        assert_eq!(show(named), "%\"struct.a b\"");
        assert_eq!(types.struct_literal(&[TypeId::I8, arr, p5], false), s);
        assert_eq!(types.named("struct.a b"), Some(named));
        match types.get(named) {
            Type::Struct(st) => {
                assert_eq!(st.fields, &[vec]);
                assert!(!st.opaque);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn doubles_print_like_llvm() {
        let show = |v: f64| {
            let mut out = Vec::new();
            write_f64(v, &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(show(1.0), "1.000000e+00");
        assert_eq!(show(-2.5e-10), "-2.500000e-10");
        assert_eq!(show(0.1), "1.000000e-01");
        assert_eq!(show(1.0 / 3.0), "0x3FD5555555555555");
        assert_eq!(show(f64::INFINITY), "0x7FF0000000000000");
    }
}
