//! Types and named type definitions (`%T = type { ... }`).
//!
//! Input: the tokens of a type. Output: its interned [`TypeId`] (typed pointers read as
//! opaque ones); a named type mentioned before its definition is noted for the end-of-module
//! check.

use super::{PResult, Parser};
use crate::lexer::{self, name_key, parse_u32, NameKey, Tok, Token};
use crate::module::ItemKind;
use crate::types::{NamedBody, TypeData, TypeId};

impl<'s> Parser<'s> {
    pub(super) fn is_type_start(&self) -> bool {
        match self.tok.kind {
            Tok::LocalVar | Tok::LocalId | Tok::LBrace | Tok::Less | Tok::LSquare => true,
            Tok::Ident => {
                let w = self.text(self.tok);
                matches!(
                    w,
                    b"void"
                        | b"half"
                        | b"bfloat"
                        | b"float"
                        | b"double"
                        | b"x86_fp80"
                        | b"fp128"
                        | b"ppc_fp128"
                        | b"x86_amx"
                        | b"x86_mmx"
                        | b"label"
                        | b"metadata"
                        | b"token"
                        | b"ptr"
                        | b"target"
                ) || int_type_bits(w).is_some()
            }
            _ => false,
        }
    }

    pub(super) fn addrspace(&mut self) -> PResult<u32> {
        self.expect_word("addrspace")?;
        self.expect(Tok::LParen, "'('")?;
        let n = self.expect_u32("an address space")?;
        if n >= 1 << 24 {
            return self.error_at(self.prev_end, "address space out of range".into());
        }
        self.expect(Tok::RParen, "')'")?;
        Ok(n)
    }

    fn named_type_ref(&mut self, t: Token) -> TypeId {
        let numbered = t.kind == Tok::LocalId;
        let key = name_key(self.text(t), numbered);
        let (id, index) = match key {
            NameKey::Numbered(n) => self.m.types.named_ref(true, n.to_string().as_bytes()),
            NameKey::Named(name) => self.m.types.named_ref(false, &name),
        };
        match self.m.types.named_body(index) {
            Some(NamedBody::Undefined) => {
                self.type_mentions.entry(index).or_insert(t.start);
            }
            // `%t = type [8 x i8]` names the array type itself.
            Some(&NamedBody::Alias(target)) => return target,
            _ => {}
        }
        id
    }

    pub(crate) fn parse_type(&mut self) -> PResult<TypeId> {
        // The common case first: `iN` or `ptr` with nothing after it.
        if self.tok.kind == Tok::Ident {
            let w = self.text(self.tok);
            let simple = match w {
                b"ptr" => Some(TypeId::PTR),
                b"i32" => Some(TypeId::I32),
                b"i64" => Some(TypeId::I64),
                b"i8" => Some(TypeId::I8),
                b"i1" => Some(TypeId::I1),
                [b'i', b'0'..=b'9', ..] => int_type_bits(w).map(|bits| self.m.types.int(bits)),
                _ => None,
            };
            if let Some(mut ty) = simple {
                self.bump();
                if !matches!(self.tok.kind, Tok::Star | Tok::LParen | Tok::Ident) {
                    return Ok(ty);
                }
                if ty == TypeId::PTR && self.is_word(b"addrspace") {
                    let n = self.addrspace()?;
                    ty = self.m.types.ptr(n);
                }
                return self.type_suffix(ty);
            }
        }
        self.enter()?;
        let t = self.tok;
        let ty = match t.kind {
            Tok::Ident => {
                let w = self.text(t);
                self.bump();
                match w {
                    b"void" => TypeId::VOID,
                    b"ptr" => {
                        if self.is_word(b"addrspace") {
                            let n = self.addrspace()?;
                            self.m.types.ptr(n)
                        } else {
                            TypeId::PTR
                        }
                    }
                    b"half" => TypeId::HALF,
                    b"bfloat" => self.m.types.intern(TypeData::BFloat),
                    b"float" => TypeId::FLOAT,
                    b"double" => TypeId::DOUBLE,
                    b"x86_fp80" => self.m.types.intern(TypeData::X86Fp80),
                    b"fp128" => self.m.types.intern(TypeData::Fp128),
                    b"ppc_fp128" => self.m.types.intern(TypeData::PpcFp128),
                    b"x86_amx" => self.m.types.intern(TypeData::X86Amx),
                    b"x86_mmx" => self.m.types.intern(TypeData::X86Mmx),
                    b"label" => TypeId::LABEL,
                    b"metadata" => TypeId::METADATA,
                    b"token" => TypeId::TOKEN,
                    b"target" => self.target_type()?,
                    _ => match int_type_bits(w) {
                        Some(bits) => self.m.types.int(bits),
                        None => {
                            return self.error_at(
                                t.start,
                                format!("expected type, found '{}'", String::from_utf8_lossy(w)),
                            )
                        }
                    },
                }
            }
            Tok::LocalVar | Tok::LocalId => {
                self.bump();
                self.named_type_ref(t)
            }
            Tok::LBrace => {
                let fields = self.struct_fields()?;
                self.m.types.struct_literal(&fields, false)
            }
            Tok::Less => {
                if self.peek().kind == Tok::LBrace {
                    self.bump();
                    let fields = self.struct_fields()?;
                    self.expect(Tok::Greater, "'>'")?;
                    self.m.types.struct_literal(&fields, true)
                } else {
                    self.bump();
                    let scalable = self.eat_word(b"vscale");
                    if scalable {
                        self.expect_word("x")?;
                    }
                    let len = self.expect_u32("a vector length")?;
                    self.expect_word("x")?;
                    let elem = self.parse_type()?;
                    self.expect(Tok::Greater, "'>'")?;
                    self.m.types.intern(TypeData::Vector {
                        len,
                        elem,
                        scalable,
                    })
                }
            }
            Tok::LSquare => {
                self.bump();
                let len = self.expect_u64("an array length")?;
                self.expect_word("x")?;
                let elem = self.parse_type()?;
                self.expect(Tok::RSquare, "']'")?;
                self.m.types.array(len, elem)
            }
            _ => return self.expected("type"),
        };
        let ty = self.type_suffix(ty)?;
        self.leave();
        Ok(ty)
    }

    /// `*`, `addrspace(N)*` and function parameter lists after a type.
    fn type_suffix(&mut self, mut ty: TypeId) -> PResult<TypeId> {
        loop {
            let addrspace_star = self.tok.kind == Tok::Ident
                && self.is_word(b"addrspace")
                && self.peek().kind == Tok::LParen;
            match self.tok.kind {
                // Typed pointers (`i8*`, `i8 addrspace(1)*`) are read as opaque pointers.
                Tok::Star => {
                    self.bump();
                    ty = TypeId::PTR;
                }
                Tok::Ident if addrspace_star => {
                    let n = self.addrspace()?;
                    self.expect(Tok::Star, "'*'")?;
                    ty = self.m.types.ptr(n);
                }
                Tok::LParen => {
                    self.bump();
                    let mut params = std::mem::take(&mut self.param_scratch);
                    params.clear();
                    let mut vararg = false;
                    if self.tok.kind != Tok::RParen {
                        loop {
                            if self.eat(Tok::DotDotDot) {
                                vararg = true;
                                break;
                            }
                            params.push(self.parse_type()?);
                            if !self.eat(Tok::Comma) {
                                break;
                            }
                        }
                    }
                    self.expect(Tok::RParen, "')'")?;
                    ty = self.m.types.function(ty, &params, vararg);
                    self.param_scratch = params;
                }
                _ => break,
            }
        }
        Ok(ty)
    }

    fn struct_fields(&mut self) -> PResult<Vec<TypeId>> {
        self.expect(Tok::LBrace, "'{'")?;
        let mut fields = Vec::new();
        if self.tok.kind != Tok::RBrace {
            loop {
                fields.push(self.parse_type()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RBrace, "'}'")?;
        Ok(fields)
    }

    fn target_type(&mut self) -> PResult<TypeId> {
        self.expect(Tok::LParen, "'('")?;
        let name = self.expect(Tok::Str, "a target type name")?;
        let raw = self.text(name);
        let name = lexer::unescape(raw.get(1..raw.len().saturating_sub(1)).unwrap_or(&[]));
        let mut types = Vec::new();
        let mut ints = Vec::new();
        while self.eat(Tok::Comma) {
            if self.tok.kind == Tok::Int {
                ints.push(self.expect_u32("an integer parameter")?);
            } else {
                if !ints.is_empty() {
                    return self.expected("an integer parameter");
                }
                types.push(self.parse_type()?);
            }
        }
        self.expect(Tok::RParen, "')'")?;
        Ok(self.m.types.intern(TypeData::TargetExt {
            name: name.into(),
            types: types.into(),
            ints: ints.into(),
        }))
    }

    pub(super) fn type_def(&mut self) -> PResult<ItemKind> {
        let t = self.bump();
        self.expect(Tok::Equal, "'='")?;
        self.expect_word("type")?;
        let numbered = t.kind == Tok::LocalId;
        let (_, index) = match name_key(self.text(t), numbered) {
            NameKey::Numbered(n) => self.m.types.named_ref(true, n.to_string().as_bytes()),
            NameKey::Named(name) => self.m.types.named_ref(false, &name),
        };
        if self.m.types.named_body(index) != Some(&NamedBody::Undefined) {
            return self.error_at(t.start, "redefinition of type".into());
        }
        let body = if self.eat_word(b"opaque") {
            NamedBody::Opaque
        } else if self.tok.kind == Tok::LBrace {
            NamedBody::Struct {
                fields: self.struct_fields()?.into(),
                packed: false,
            }
        } else if self.tok.kind == Tok::Less && self.peek().kind == Tok::LBrace {
            self.bump();
            let fields = self.struct_fields()?;
            self.expect(Tok::Greater, "'>'")?;
            NamedBody::Struct {
                fields: fields.into(),
                packed: true,
            }
        } else {
            self.non_struct_type_def(index)?
        };
        self.m.types.set_named_body(index, body);
        Ok(ItemKind::TypeDef)
    }

    /// `%t = type i32`: a name for a type that is not a struct; LLVM reads every mention of
    /// `%t` as the type itself.
    #[cold]
    fn non_struct_type_def(&mut self, index: u32) -> PResult<NamedBody> {
        if !self.is_type_start() {
            return self.expected("a type, 'opaque' or a struct body");
        }
        if let Some(&offset) = self.type_mentions.get(&index) {
            // As in LLVM: only a struct can be used before its definition.
            return self.error_at(offset, "forward reference to a non-struct type".into());
        }
        let target = self.parse_type()?;
        if let Some(&offset) = self.type_mentions.get(&index) {
            // `%a = type [2 x %a]`: only a struct may contain itself.
            return self.error_at(offset, "forward reference to a non-struct type".into());
        }
        // `%b` in `%a = type %b` already reads as what `%b` names (never an alias itself).
        Ok(NamedBody::Alias(target))
    }
}

fn int_type_bits(word: &[u8]) -> Option<u32> {
    let digits = word.strip_prefix(b"i")?;
    let bits = parse_u32(digits)?;
    (1..=(1 << 23)).contains(&bits).then_some(bits)
}
