//! The top level: the loop over a module's entities, the data layout, globals and aliases,
//! and the checks once the whole module is read.
//!
//! Input: the tokens of the module's top level. Output: an item per entity, the global
//! records, and an error for anything used but never defined; functions, types and
//! metadata are read by their own files.

use super::tokens::{text, token_number};
use super::{PResult, Parser};
use crate::const_data::ConstKind;
use crate::datalayout::DataLayout;
use crate::inst::{Opcode, NONE, NO_TEXT};
use crate::lexer::{self, name_key, NameKey, Tok, Token};
use crate::md_data::MdKindData;
use crate::module::{
    AliasData, ArgData, FuncData, GlobalData, GlobalKindData, ItemData, ItemKind, ItemState,
    VarData,
};
use crate::types::{NamedBody, TypeId};
use crate::value::{FuncId, GlobalId, PackedOp, PackedValue, Value};

pub(super) const LINKAGE_WORDS: &[&[u8]] = &[
    b"private",
    b"internal",
    b"available_externally",
    b"linkonce",
    b"weak",
    b"common",
    b"appending",
    b"extern_weak",
    b"linkonce_odr",
    b"weak_odr",
    b"external",
    b"dso_local",
    b"dso_preemptable",
    b"default",
    b"hidden",
    b"protected",
    b"dllimport",
    b"dllexport",
    b"unnamed_addr",
    b"local_unnamed_addr",
    b"externally_initialized",
];

impl<'s> Parser<'s> {
    pub(super) fn module(&mut self) -> PResult<()> {
        loop {
            let start = self.tok.start;
            let kind = match self.tok.kind {
                Tok::Eof => break,
                Tok::Ident => match self.word() {
                    b"source_filename" => {
                        self.bump();
                        self.expect(Tok::Equal, "'='")?;
                        let s = self.expect(Tok::Str, "a string")?;
                        self.m.source_filename = text(s);
                        ItemKind::SourceFilename
                    }
                    b"target" => {
                        self.bump();
                        if self.eat_word(b"datalayout") {
                            self.expect(Tok::Equal, "'='")?;
                            let s = self.expect(Tok::Str, "a string")?;
                            self.datalayout(s)?;
                            ItemKind::DataLayout
                        } else if self.eat_word(b"triple") {
                            self.expect(Tok::Equal, "'='")?;
                            let s = self.expect(Tok::Str, "a string")?;
                            self.m.triple = text(s);
                            ItemKind::Triple
                        } else {
                            return self.expected("'datalayout' or 'triple'");
                        }
                    }
                    b"module" => {
                        self.bump();
                        self.expect_word("asm")?;
                        self.expect(Tok::Str, "a string")?;
                        ItemKind::ModuleAsm
                    }
                    b"define" => self.function(true)?,
                    b"declare" => self.function(false)?,
                    b"attributes" => {
                        self.bump();
                        self.expect(Tok::AttrGroupId, "an attribute group id")?;
                        self.expect(Tok::Equal, "'='")?;
                        if self.tok.kind != Tok::LBrace {
                            return self.expected("'{'");
                        }
                        self.skip_attr_group()?;
                        ItemKind::AttrGroup
                    }
                    b"uselistorder" | b"uselistorder_bb" => {
                        self.skip_line()?;
                        ItemKind::Other
                    }
                    _ => return self.expected("a top-level entity"),
                },
                Tok::LocalVar | Tok::LocalId => self.type_def()?,
                Tok::GlobalVar | Tok::GlobalId => self.global_def()?,
                Tok::ComdatVar => {
                    self.bump();
                    self.expect(Tok::Equal, "'='")?;
                    self.expect_word("comdat")?;
                    self.expect(Tok::Ident, "a comdat selection kind")?;
                    ItemKind::Comdat
                }
                Tok::MetadataVar => self.named_md()?,
                Tok::MetadataId => self.md_def()?,
                Tok::SummaryId => {
                    self.skip_summary_entry()?;
                    ItemKind::Other
                }
                _ => return self.expected("a top-level entity"),
            };
            let end = self.rest_of_line(self.prev_end);
            let index = self.m.items.len() as u32;
            match kind {
                ItemKind::Function(f) => {
                    self.m.funcs[f.index()].item = index;
                    let g = self.m.funcs[f.index()].global;
                    self.m.globals[g.index()].item = index;
                }
                ItemKind::Global(g) => self.m.globals[g.index()].item = index,
                _ => {}
            }
            // A filtered parse keeps a run of metadata definitions as one item: a module
            // with debug info has 150,000 of them, and an item each was a fifth of its
            // skeleton's memory. (`Module::remove_metadata` splits a run.)
            if self.md_unread && kind == ItemKind::Md {
                if let Some(run) = self.m.items.last_mut() {
                    if run.kind == ItemKind::Md && run.end == start {
                        run.end = end;
                        continue;
                    }
                }
            }
            self.m.items.push(ItemData {
                kind,
                start,
                end,
                state: ItemState::Source,
                text: None,
            });
            self.m.order.push(index);
        }
        self.finish()
    }

    fn datalayout(&mut self, s: Token) -> PResult<()> {
        self.m.datalayout_text = text(s);
        let raw = self.text(s);
        let body = raw.get(1..raw.len().saturating_sub(1)).unwrap_or(&[]);
        let decoded = lexer::unescape(body);
        let string = String::from_utf8_lossy(&decoded);
        match DataLayout::parse(&string) {
            Ok(layout) => {
                self.m.layout = layout;
                Ok(())
            }
            Err(e) => self.error_at(s.start, e.to_string()),
        }
    }

    fn finish(&mut self) -> PResult<()> {
        self.declare_called_intrinsics();
        for g in &self.m.globals {
            if let GlobalKindData::Undefined(offset) = g.kind {
                let mut name = Vec::new();
                crate::types::write_name(b'@', &g.name, g.numbered, &mut name);
                return self.error_at(
                    offset,
                    format!(
                        "use of undefined value '{}'",
                        String::from_utf8_lossy(&name)
                    ),
                );
            }
        }
        for node in &self.m.md.nodes {
            if let MdKindData::Undefined(offset) = node.kind {
                return self.error_at(
                    offset,
                    format!("use of undefined metadata '!{}'", node.number),
                );
            }
        }
        let mut undefined: Vec<(u32, u32)> = self
            .type_mentions
            .iter()
            .map(|(&index, &offset)| (offset, index))
            .filter(|&(_, index)| self.m.types.named_body(index) == Some(&NamedBody::Undefined))
            .collect();
        undefined.sort_unstable();
        if let Some(&(offset, _)) = undefined.first() {
            return self.error_at(offset, "use of undefined type".into());
        }
        Ok(())
    }

    /// LLVM declares an intrinsic the module calls without declaring it (`call void
    /// @llvm.assume(i1 %c)`), with the function type of the call. The declaration has no
    /// text: the module prints as written.
    #[cold]
    fn declare_called_intrinsics(&mut self) {
        let undeclared = |g: &GlobalData| {
            matches!(g.kind, GlobalKindData::Undefined(_))
                && !g.numbered
                && g.name.starts_with(b"llvm.")
        };
        if !self.m.globals.iter().any(undeclared) {
            return;
        }
        for i in 0..self.m.insts.len() {
            let inst = &self.m.insts[i];
            if !matches!(inst.opcode, Opcode::Call | Opcode::Invoke | Opcode::CallBr)
                || inst.ops_len == 0
            {
                continue;
            }
            let Some(callee) = self.m.ops.get(inst.ops as usize) else {
                continue;
            };
            let Value::Global(g) = callee.value.unpack() else {
                continue;
            };
            if !undeclared(&self.m.globals[g.index()]) {
                continue;
            }
            let Some(call) = self.m.calls.get(inst.extra as usize) else {
                continue;
            };
            let fn_ty = call.fn_ty;
            let Some((_, params, _)) = self.m.types.function_parts(fn_ty) else {
                continue;
            };
            let params: Vec<TypeId> = params.to_vec();
            let fid = FuncId(self.m.funcs.len() as u32);
            let params_start = self.m.args.len() as u32;
            for ty in params {
                self.m.args.push(ArgData {
                    func: fid,
                    ty,
                    attrs: (self.m.attrs.len() as u32, 0),
                    name: NO_TEXT,
                    numbered: true,
                });
            }
            let params = (params_start, self.m.args.len() as u32 - params_start);
            let attrs = self.m.attrs.len() as u32;
            self.m
                .funcs
                .push(FuncData::declaration(g, fn_ty, params, attrs));
            let addrspace = self.m.layout.program_addrspace();
            let ptr_ty = self.m.types.ptr(addrspace);
            let global = &mut self.m.globals[g.index()];
            global.kind = GlobalKindData::Func(fid);
            global.addrspace = addrspace;
            global.ptr_ty = ptr_ty;
        }
    }

    pub(super) fn global_ref(&mut self, t: Token) -> PResult<GlobalId> {
        let numbered = t.kind == Tok::GlobalId;
        let key = name_key(self.text(t), numbered);
        let found = match &key {
            NameKey::Numbered(n) => self.m.global_numbered.get(n),
            NameKey::Named(name) => self.m.global_map.get(&**name),
        };
        if let Some(&id) = found {
            return Ok(id);
        }
        self.check_capacity(self.m.globals.len(), "globals")?;
        let id = GlobalId(self.m.globals.len() as u32);
        let name: Box<[u8]> = match &key {
            NameKey::Numbered(n) => n.to_string().into_bytes().into(),
            NameKey::Named(name) => (**name).into(),
        };
        match key {
            NameKey::Numbered(n) => {
                self.m.global_numbered.insert(n, id);
            }
            NameKey::Named(_) => {
                self.m.global_map.insert(name.clone(), id);
            }
        }
        self.m.globals.push(GlobalData {
            name,
            numbered,
            kind: GlobalKindData::Undefined(t.start),
            item: NONE,
            addrspace: 0,
            ptr_ty: TypeId::PTR,
            removed: false,
        });
        Ok(id)
    }

    /// `@"" = ...`: LLVM numbers an unnamed global like `@N`, with the next number.
    #[cold]
    fn unnamed_global(&mut self, t: Token) -> PResult<GlobalId> {
        let n = self.next_global_number;
        self.next_global_number = n.saturating_add(1);
        if let Some(&id) = self.m.global_numbered.get(&n) {
            return Ok(id);
        }
        self.check_capacity(self.m.globals.len(), "globals")?;
        let id = GlobalId(self.m.globals.len() as u32);
        self.m.global_numbered.insert(n, id);
        self.m.globals.push(GlobalData {
            name: n.to_string().into_bytes().into(),
            numbered: true,
            kind: GlobalKindData::Undefined(t.start),
            item: NONE,
            addrspace: 0,
            ptr_ty: TypeId::PTR,
            removed: false,
        });
        Ok(id)
    }

    pub(super) fn define_global(
        &mut self,
        t: Token,
        kind: GlobalKindData,
        addrspace: u32,
    ) -> PResult<GlobalId> {
        let id = match t.kind {
            Tok::GlobalId => {
                self.next_global_number = (token_number(self.text(t)) as u32).saturating_add(1);
                self.global_ref(t)?
            }
            Tok::GlobalVar if self.text(t) == b"@\"\"" => self.unnamed_global(t)?,
            _ => self.global_ref(t)?,
        };
        let ptr_ty = self.m.types.ptr(addrspace);
        let g = &mut self.m.globals[id.index()];
        if !matches!(g.kind, GlobalKindData::Undefined(_)) {
            return self.error_at(
                t.start,
                format!(
                    "redefinition of global '{}'",
                    String::from_utf8_lossy(self.text(t))
                ),
            );
        }
        g.kind = kind;
        g.addrspace = addrspace;
        g.ptr_ty = ptr_ty;
        Ok(id)
    }

    fn global_def(&mut self) -> PResult<ItemKind> {
        let name = self.bump();
        self.expect(Tok::Equal, "'='")?;
        let mut has_linkage = false;
        let mut declaration = false;
        let mut addrspace = None;
        loop {
            let w = self.word();
            match w {
                b"global" | b"constant" | b"alias" | b"ifunc" => break,
                b"addrspace" => addrspace = Some(self.addrspace()?),
                b"thread_local" => {
                    self.bump();
                    if self.tok.kind == Tok::LParen {
                        self.skip_group()?;
                    }
                }
                _ if LINKAGE_WORDS.contains(&w) => {
                    if matches!(
                        w,
                        b"private"
                            | b"internal"
                            | b"available_externally"
                            | b"linkonce"
                            | b"weak"
                            | b"common"
                            | b"appending"
                            | b"extern_weak"
                            | b"linkonce_odr"
                            | b"weak_odr"
                            | b"external"
                    ) {
                        has_linkage = true;
                        declaration = matches!(w, b"external" | b"extern_weak");
                    }
                    self.bump();
                }
                _ => return self.expected("'global', 'constant', 'alias' or 'ifunc'"),
            }
        }
        let kw = self.bump();
        let is_alias = matches!(self.text(kw), b"alias" | b"ifunc");
        let id = if is_alias {
            let value_ty = self.parse_type()?;
            self.expect(Tok::Comma, "','")?;
            let (ty, value) = if self.is_type_start() {
                let ty = self.parse_type()?;
                (ty, self.parse_value(ty)?)
            } else {
                self.untyped_aliasee()?
            };
            let index = self.m.aliases.len() as u32;
            self.m.aliases.push(AliasData {
                value_ty,
                aliasee: PackedOp { ty, value },
            });
            let kind = if self.text(kw) == b"alias" {
                GlobalKindData::Alias(index)
            } else {
                GlobalKindData::IFunc
            };
            let addrspace =
                addrspace.unwrap_or_else(|| self.m.types.ptr_addrspace(ty).unwrap_or(0));
            self.define_global(name, kind, addrspace)?
        } else {
            let constant = self.text(kw) == b"constant";
            let value_ty = self.parse_type()?;
            let init = if !has_linkage || !declaration {
                let value = self.parse_value(value_ty)?;
                Some(PackedOp {
                    ty: value_ty,
                    value,
                })
            } else {
                None
            };
            let index = self.m.vars.len() as u32;
            self.m.vars.push(VarData {
                value_ty,
                init,
                constant,
            });
            // LangRef: a variable written without `addrspace` is in 0 whatever the DataLayout's
            // `G` says (that default is for passes creating globals); llvm-as agrees.
            let addrspace = addrspace.unwrap_or(0);
            self.define_global(name, GlobalKindData::Var(index), addrspace)?
        };
        while self.tok.kind == Tok::Comma {
            self.bump();
            if self.tok.kind == Tok::MetadataVar {
                self.bump();
                self.md_ref()?;
                continue;
            }
            let attr = self.expect(Tok::Ident, "a global attribute")?;
            if self.text(attr) == b"align" {
                let start = self.tok.start;
                let n = self.expect_u64("an alignment")?;
                if !n.is_power_of_two() || n > 1 << 32 {
                    return self
                        .error_at(start, "alignment is not a power of two up to 2^32".into());
                }
                continue;
            }
            match self.tok.kind {
                Tok::Str | Tok::Int => {
                    self.bump();
                }
                Tok::LParen => self.skip_attr_parens()?,
                _ => {}
            }
        }
        if !self.newline_before_tok() {
            self.global_attributes()?;
        }
        Ok(ItemKind::Global(id))
    }

    /// What may follow a global's comma-separated fields on its line: attribute groups
    /// (`#0`), string attributes (`"key"="value"`) and keyword attributes, some with an
    /// argument (`align 16`, `code_model "small"`, `sanitize_address_dyninit`...): kept as text.
    fn global_attributes(&mut self) -> PResult<()> {
        while !self.newline_before_tok() {
            match self.tok.kind {
                Tok::AttrGroupId => {
                    self.bump();
                }
                Tok::Str => {
                    self.bump();
                    if self.eat(Tok::Equal) {
                        self.expect(Tok::Str, "a string")?;
                    }
                }
                Tok::Ident => {
                    self.bump();
                    match self.tok.kind {
                        Tok::LParen => self.skip_attr_parens()?,
                        Tok::Int | Tok::Str if !self.newline_before_tok() => {
                            self.bump();
                        }
                        _ => {}
                    }
                }
                Tok::Comma => {
                    self.bump();
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// An aliasee written as a constant expression without a type in front
    /// (`@b = alias i32, getelementptr (i32, ptr @a, i64 1)`): its type is the expression's.
    #[cold]
    fn untyped_aliasee(&mut self) -> PResult<(TypeId, PackedValue)> {
        let value = self.parse_value(TypeId::PTR)?;
        let mut ty = TypeId::PTR;
        if let Value::Const(c) = value.unpack() {
            if let Some(ConstKind::Expr { ty: to, .. }) =
                self.m.consts.get(c.index()).map(|c| &c.kind)
            {
                if self.m.types.ptr_addrspace(*to).is_some() {
                    ty = *to;
                }
            }
        }
        Ok((ty, value))
    }
}
