//! Values and constants.
//!
//! Input: the tokens of a value of a known type. Output: a packed value: a local, a global,
//! or a constant record (small integers shared, the fixed constants by their ids).

use super::{PResult, Parser, SMALL_MAX, SMALL_MIN};
use crate::const_data::{self, ConstData, ConstKind};
use crate::inst::{Opcode, NONE};
use crate::lexer::{self, Tok, Token};
use crate::types::TypeId;
use crate::value::{ConstId, PackedValue, Value};

pub(super) const VALUE_WORDS: &[&[u8]] = &[
    b"null",
    b"undef",
    b"poison",
    b"true",
    b"false",
    b"zeroinitializer",
    b"none",
    b"getelementptr",
    b"blockaddress",
    b"dso_local_equivalent",
    b"no_cfi",
    b"ptrauth",
    b"asm",
    b"splat",
    b"trunc",
    b"zext",
    b"sext",
    b"fptrunc",
    b"fpext",
    b"fptoui",
    b"fptosi",
    b"uitofp",
    b"sitofp",
    b"ptrtoint",
    b"inttoptr",
    b"bitcast",
    b"addrspacecast",
    b"add",
    b"sub",
    b"mul",
    b"shl",
    b"xor",
    b"and",
    b"or",
    b"lshr",
    b"ashr",
    b"icmp",
    b"fcmp",
    b"select",
    b"extractelement",
    b"insertelement",
    b"shufflevector",
];

impl<'s> Parser<'s> {
    fn new_const(&mut self, kind: ConstKind, start: u32) -> PResult<PackedValue> {
        self.check_capacity(self.m.consts.len(), "constants")?;
        let id = ConstId(self.m.consts.len() as u32);
        self.m.consts.push(ConstData {
            kind,
            start,
            end: self.prev_end,
        });
        Ok(PackedValue::pack(Value::Const(id)))
    }

    fn int_const(&mut self, t: Token) -> PResult<PackedValue> {
        let text = self.text(t);
        let (negative, digits) = match text.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, text),
        };
        if !digits.is_empty() && digits.len() <= 18 && digits.iter().all(u8::is_ascii_digit) {
            let magnitude = digits
                .iter()
                .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
            let v = if negative { -magnitude } else { magnitude };
            return self.int_value_const(v, t.start);
        }
        let Some(v) = const_data::parse_int(self.text(t)) else {
            return self.new_const(ConstKind::BigInt, t.start);
        };
        let Ok(v) = i64::try_from(v) else {
            return self.new_const(ConstKind::BigInt, t.start);
        };
        self.int_value_const(v, t.start)
    }

    fn int_value_const(&mut self, v: i64, start: u32) -> PResult<PackedValue> {
        if (SMALL_MIN..=SMALL_MAX).contains(&v) {
            let slot = (v - SMALL_MIN) as usize;
            if self.small_ints[slot] == NONE {
                let id = self.m.consts.len() as u32;
                self.m.consts.push(ConstData {
                    kind: ConstKind::Int(v),
                    start: NONE,
                    end: NONE,
                });
                self.small_ints[slot] = id;
            }
            return Ok(PackedValue::pack(Value::Const(ConstId(
                self.small_ints[slot],
            ))));
        }
        self.new_const(ConstKind::Int(v), start)
    }

    pub(crate) fn parse_value(&mut self, ty: TypeId) -> PResult<PackedValue> {
        // The common cases, without the nesting bookkeeping.
        match self.tok.kind {
            Tok::LocalVar | Tok::LocalId => {
                let t = self.bump();
                return self.local_ref(t);
            }
            Tok::Int => {
                let t = self.bump();
                return self.int_const(t);
            }
            _ => {}
        }
        if ty == TypeId::METADATA {
            let id = self.md_value()?;
            return Ok(PackedValue::pack(Value::Metadata(id)));
        }
        self.enter()?;
        let t = self.tok;
        let value = match t.kind {
            Tok::LocalVar | Tok::LocalId => {
                self.bump();
                self.local_ref(t)?
            }
            Tok::GlobalVar | Tok::GlobalId => {
                self.bump();
                PackedValue::pack(Value::Global(self.global_ref(t)?))
            }
            Tok::Int => {
                self.bump();
                self.int_const(t)?
            }
            Tok::Float => {
                self.bump();
                self.new_const(ConstKind::FloatText, t.start)?
            }
            Tok::CStr => {
                self.bump();
                self.new_const(ConstKind::CString, t.start)?
            }
            Tok::LBrace => {
                let (ops, len) = self.const_list(Tok::LBrace, Tok::RBrace, "'}'")?;
                self.new_const(
                    ConstKind::Struct {
                        ops,
                        len,
                        packed: false,
                    },
                    t.start,
                )?
            }
            Tok::Less => {
                if self.peek().kind == Tok::LBrace {
                    self.bump();
                    let (ops, len) = self.const_list(Tok::LBrace, Tok::RBrace, "'}'")?;
                    self.expect(Tok::Greater, "'>'")?;
                    self.new_const(
                        ConstKind::Struct {
                            ops,
                            len,
                            packed: true,
                        },
                        t.start,
                    )?
                } else {
                    let (ops, len) = self.const_list(Tok::Less, Tok::Greater, "'>'")?;
                    self.new_const(ConstKind::Vector { ops, len }, t.start)?
                }
            }
            Tok::LSquare => {
                let (ops, len) = self.const_list(Tok::LSquare, Tok::RSquare, "']'")?;
                self.new_const(ConstKind::Array { ops, len }, t.start)?
            }
            Tok::Ident => self.keyword_value(t)?,
            _ => return self.expected("a value"),
        };
        self.leave();
        Ok(value)
    }

    fn const_list(&mut self, open: Tok, close: Tok, what: &str) -> PResult<(u32, u32)> {
        self.expect(open, "a bracket")?;
        let mark = self.scratch.len();
        if self.tok.kind != close {
            loop {
                self.push_typed()?;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(close, what)?;
        self.flush(mark)
    }

    fn keyword_value(&mut self, t: Token) -> PResult<PackedValue> {
        let w = self.text(t);
        let fixed = match w {
            b"true" => Some(const_data::C_TRUE),
            b"false" => Some(const_data::C_FALSE),
            b"null" => Some(const_data::C_NULL),
            b"undef" => Some(const_data::C_UNDEF),
            b"poison" => Some(const_data::C_POISON),
            b"zeroinitializer" => Some(const_data::C_ZERO),
            b"none" => Some(const_data::C_NONE),
            _ => None,
        };
        if let Some(id) = fixed {
            self.bump();
            return Ok(PackedValue::pack(Value::Const(id)));
        }
        if lexer::is_hex_int(w) {
            self.bump();
            return self.int_const(t);
        }
        self.bump();
        match w {
            b"getelementptr" => {
                let mut inbounds = false;
                loop {
                    match self.word() {
                        b"inbounds" => {
                            inbounds = true;
                            self.bump();
                        }
                        b"nuw" | b"nusw" => {
                            self.bump();
                        }
                        b"inrange" => {
                            self.bump();
                            if self.tok.kind != Tok::LParen {
                                return self.expected("'('");
                            }
                            self.skip_group()?;
                        }
                        _ => break,
                    }
                }
                self.expect(Tok::LParen, "'('")?;
                let source = self.parse_type()?;
                let mark = self.scratch.len();
                while self.eat(Tok::Comma) {
                    self.eat_word(b"inrange");
                    self.push_typed()?;
                }
                self.expect(Tok::RParen, "')'")?;
                let (ops, len) = self.flush(mark)?;
                self.new_const(
                    ConstKind::Expr {
                        opcode: Opcode::GetElementPtr,
                        ty: source,
                        ops,
                        len,
                        inbounds,
                    },
                    t.start,
                )
            }
            b"trunc" | b"zext" | b"sext" | b"fptrunc" | b"fpext" | b"fptoui" | b"fptosi"
            | b"uitofp" | b"sitofp" | b"ptrtoint" | b"ptrtoaddr" | b"inttoptr" | b"bitcast"
            | b"addrspacecast" => {
                let opcode = Opcode::from_keyword(w).unwrap_or(Opcode::BitCast);
                self.expect(Tok::LParen, "'('")?;
                let mark = self.scratch.len();
                self.push_typed()?;
                self.expect_word("to")?;
                let to = self.parse_type()?;
                self.expect(Tok::RParen, "')'")?;
                let (ops, len) = self.flush(mark)?;
                self.new_const(
                    ConstKind::Expr {
                        opcode,
                        ty: to,
                        ops,
                        len,
                        inbounds: false,
                    },
                    t.start,
                )
            }
            b"add" | b"sub" | b"mul" | b"shl" | b"xor" | b"and" | b"or" | b"lshr" | b"ashr"
            | b"icmp" | b"fcmp" | b"select" | b"extractelement" | b"insertelement"
            | b"shufflevector" => {
                let opcode = Opcode::from_keyword(w).unwrap_or(Opcode::Add);
                // Flags and predicates (`nuw`, `eq`) stay in the text.
                while self.tok.kind == Tok::Ident {
                    self.bump();
                }
                let (ops, len) = self.const_list(Tok::LParen, Tok::RParen, "')'")?;
                self.new_const(
                    ConstKind::Expr {
                        opcode,
                        ty: TypeId::VOID,
                        ops,
                        len,
                        inbounds: false,
                    },
                    t.start,
                )
            }
            b"splat" => {
                self.expect(Tok::LParen, "'('")?;
                let mark = self.scratch.len();
                self.push_typed()?;
                self.expect(Tok::RParen, "')'")?;
                let (ops, _) = self.flush(mark)?;
                self.new_const(ConstKind::Splat(ops), t.start)
            }
            b"blockaddress" | b"ptrauth" => {
                if self.tok.kind != Tok::LParen {
                    return self.expected("'('");
                }
                self.skip_group()?;
                self.new_const(ConstKind::Opaque, t.start)
            }
            b"dso_local_equivalent" | b"no_cfi" => {
                if !matches!(self.tok.kind, Tok::GlobalVar | Tok::GlobalId) {
                    return self.expected("a global");
                }
                let g = self.bump();
                self.global_ref(g)?;
                self.new_const(ConstKind::Opaque, t.start)
            }
            b"asm" => {
                self.skip_words(&[b"sideeffect", b"alignstack", b"inteldialect", b"unwind"]);
                self.expect(Tok::Str, "an assembly string")?;
                self.expect(Tok::Comma, "','")?;
                self.expect(Tok::Str, "a constraint string")?;
                self.new_const(ConstKind::Opaque, t.start)
            }
            _ => self.error_at(
                t.start,
                format!("expected a value, found '{}'", String::from_utf8_lossy(w)),
            ),
        }
    }
}
