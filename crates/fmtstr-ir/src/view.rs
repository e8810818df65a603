//! Read access: views of functions, blocks, instructions, calls and globals.
//!
//! Input: a module and an id. Output: a view ([`Function`], [`Block`], [`Inst`], [`Call`],
//! [`Global`], ...) that answers the passes' questions about it.
//!
//! A view is a module reference plus an id; it is `Copy` and costs nothing to make. Views show
//! the module as it is now: removed instructions are gone, replaced operands are replaced.

use std::borrow::Cow;

use crate::constant::Constant;

use crate::const_data::ConstKind;
use crate::inst::{Attr, CallData, InstFlags, Opcode, Predicate};
use crate::lexer::{name_key, Lexer, NameKey, Tok};
use crate::metadata::{DebugLoc, MdNode};
use crate::module::{text_of, GlobalKindData, Module};
use crate::types::TypeId;
use crate::value::{ArgId, BlockId, FuncId, GlobalId, InstId, Operand, PackedValue, Value};

/// A position in the module's text: line and column, both from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourcePos {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub column: u32,
}

/// What kind of global a global symbol is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalKind {
    /// `@g = global ...` / `constant ...`.
    Variable,
    /// `define` / `declare`.
    Function(FuncId),
    /// `@a = alias ...`.
    Alias,
    /// `@i = ifunc ...`.
    IFunc,
}

/// A global pointer resolved through constant expressions: `global` plus `offset` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalRef {
    /// The global the pointer points into.
    pub global: GlobalId,
    /// The byte offset from the global's start.
    pub offset: i64,
}

/// A global variable, function, alias or ifunc.
#[derive(Clone, Copy, Debug)]
pub struct Global<'m> {
    module: &'m Module,
    id: GlobalId,
}

impl<'m> Global<'m> {
    /// The id.
    pub fn id(&self) -> GlobalId {
        self.id
    }

    /// The decoded name without `@` (the decimal number of a numbered global).
    pub fn name(&self) -> &'m [u8] {
        &self.module.globals[self.id.index()].name
    }

    /// The name, lossily as a string.
    pub fn name_str(&self) -> Cow<'m, str> {
        String::from_utf8_lossy(self.name())
    }

    /// What kind of global it is.
    pub fn kind(&self) -> GlobalKind {
        match self.module.globals[self.id.index()].kind {
            GlobalKindData::Func(f) => GlobalKind::Function(f),
            GlobalKindData::Alias(_) => GlobalKind::Alias,
            GlobalKindData::IFunc => GlobalKind::IFunc,
            GlobalKindData::Var(_) | GlobalKindData::Undefined(_) => GlobalKind::Variable,
        }
    }

    /// The function, when it is one.
    pub fn as_function(&self) -> Option<FuncId> {
        match self.kind() {
            GlobalKind::Function(f) => Some(f),
            _ => None,
        }
    }

    /// The address space the global lives in.
    pub fn addrspace(&self) -> u32 {
        self.module.globals[self.id.index()].addrspace
    }

    /// The global as an operand: a pointer in its address space.
    pub fn operand(&self) -> Operand {
        Operand {
            ty: self.module.globals[self.id.index()].ptr_ty,
            value: Value::Global(self.id),
        }
    }

    fn var(&self) -> Option<&'m crate::module::VarData> {
        match self.module.globals[self.id.index()].kind {
            GlobalKindData::Var(i) => self.module.vars.get(i as usize),
            _ => None,
        }
    }

    /// The type of what a variable holds, a function's function type (`void` where a filtered
    /// parse kept its header as text), an alias's aliasee type.
    pub fn value_type(&self) -> TypeId {
        let m = self.module;
        match m.globals[self.id.index()].kind {
            GlobalKindData::Var(i) => m.vars.get(i as usize).map_or(TypeId::VOID, |v| v.value_ty),
            GlobalKindData::Func(f) => m.funcs[f.index()].fn_ty,
            GlobalKindData::Alias(i) => m
                .aliases
                .get(i as usize)
                .map_or(TypeId::VOID, |a| a.value_ty),
            GlobalKindData::IFunc | GlobalKindData::Undefined(_) => TypeId::VOID,
        }
    }

    /// A variable's initializer (none for `external` declarations).
    pub fn initializer(&self) -> Option<Operand> {
        self.var()?.init.map(|op| op.get())
    }

    /// Whether it is a `constant` variable.
    pub fn is_constant(&self) -> bool {
        self.var().is_some_and(|v| v.constant)
    }
}

/// A function.
#[derive(Clone, Copy, Debug)]
pub struct Function<'m> {
    module: &'m Module,
    id: FuncId,
}

impl<'m> Function<'m> {
    /// The id.
    pub fn id(&self) -> FuncId {
        self.id
    }

    fn data(&self) -> &'m crate::module::FuncData {
        &self.module.funcs[self.id.index()]
    }

    /// The record, for what its header says. A filtered parse keeps the headers of the
    /// functions whose bodies it does not parse as text ([`Module::parse_shards_where`]): its
    /// filter must find whatever the pass reads, so reading such a header is a bug in the pass.
    fn header(&self) -> &'m crate::module::FuncData {
        let data = self.data();
        assert!(
            !data.header_as_text,
            "@{}: its header was kept as text by a filtered parse, whose filter did not find it",
            self.name_str()
        );
        data
    }

    /// The function's global symbol.
    pub fn global(&self) -> Global<'m> {
        self.module.global(self.data().global)
    }

    /// The decoded name without `@`.
    pub fn name(&self) -> &'m [u8] {
        self.global().name()
    }

    /// The name, lossily as a string.
    pub fn name_str(&self) -> Cow<'m, str> {
        self.global().name_str()
    }

    /// Whether the function has the keyword attribute `keyword` (`sspstrong`, `nounwind`,
    /// ...): written after its parameter list, or in an attribute group (`#0`) named there.
    /// String attributes (`"key"="value"`) are not keywords.
    pub fn has_fn_attr(&self, keyword: &str) -> bool {
        self.first_fn_attr(&[keyword]).is_some()
    }

    /// The first of `keywords` the function has (see [`Function::has_fn_attr`]), reading its
    /// attributes once for all of them.
    pub fn first_fn_attr<'k>(&self, keywords: &[&'k str]) -> Option<&'k str> {
        let text = self.module.fn_suffix(self.header());
        let mut found: Option<usize> = None;
        let mut note = |word: &[u8]| {
            if let Some(k) = keywords.iter().position(|k| k.as_bytes() == word) {
                found = Some(found.map_or(k, |f| f.min(k)));
            }
        };
        scan_attr_words(text, |word| {
            if word.first() == Some(&b'#') {
                // A group's words were found once, for every function that names it.
                if let Some(group) = crate::lexer::parse_u32(&word[1..])
                    .and_then(|n| self.module.attr_group_entry(n))
                {
                    for &word in group.words.iter() {
                        note(self.module.text(word));
                    }
                }
            } else {
                note(word);
            }
        });
        found.map(|k| keywords[k])
    }

    /// Whether it is a `declare` (no body).
    pub fn is_declaration(&self) -> bool {
        !self.data().is_def
    }

    /// The function type.
    pub fn function_type(&self) -> TypeId {
        self.header().fn_ty
    }

    /// The return type.
    pub fn return_type(&self) -> TypeId {
        self.module
            .types
            .function_parts(self.header().fn_ty)
            .map_or(TypeId::VOID, |(ret, _, _)| ret)
    }

    /// Whether it takes `...`.
    pub fn is_vararg(&self) -> bool {
        self.module
            .types
            .function_parts(self.header().fn_ty)
            .is_some_and(|(_, _, vararg)| vararg)
    }

    /// The return attributes.
    pub fn return_attrs(&self) -> &'m [Attr] {
        self.module.attr_range(self.header().ret_attrs)
    }

    /// The calling convention as written (`ptx_kernel`, `amdgpu_cs`, `cc 10`), when not the
    /// default C convention.
    pub fn calling_conv(&self) -> Option<&'m str> {
        let text = self.module.text(self.header().cconv);
        std::str::from_utf8(text).ok().filter(|s| !s.is_empty())
    }

    /// The parameters.
    pub fn params(&self) -> impl Iterator<Item = Arg<'m>> + 'm {
        let (start, len) = self.header().params;
        let module = self.module;
        (start..start + len).map(move |i| Arg {
            module,
            id: ArgId(i),
        })
    }

    /// Parameter `index`.
    pub fn param(&self, index: usize) -> Option<Arg<'m>> {
        self.params().nth(index)
    }

    /// The basic blocks, in order (none for a declaration).
    pub fn blocks(&self) -> impl Iterator<Item = Block<'m>> + 'm {
        let module = self.module;
        self.data()
            .blocks
            .iter()
            .map(move |&id| Block { module, id })
    }

    /// The entry block.
    pub fn entry(&self) -> Option<Block<'m>> {
        self.blocks().next()
    }

    /// The function's source text, from `define`/`declare` to the end of its last line
    /// (empty for a function made by an edit).
    pub fn source_text(&self) -> &'m [u8] {
        match self.module.items.get(self.data().item as usize) {
            Some(item) if item.state != crate::module::ItemState::New => self
                .module
                .src
                .get(item.start as usize..item.end as usize)
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Every instruction, block by block.
    pub fn instructions(&self) -> impl Iterator<Item = Inst<'m>> + 'm {
        self.blocks().flat_map(|b| b.instructions())
    }
}

/// A function parameter.
#[derive(Clone, Copy, Debug)]
pub struct Arg<'m> {
    module: &'m Module,
    id: ArgId,
}

impl<'m> Arg<'m> {
    /// The id.
    pub fn id(&self) -> ArgId {
        self.id
    }

    fn data(&self) -> &'m crate::module::ArgData {
        &self.module.args[self.id.index()]
    }

    /// The function it belongs to.
    pub fn function(&self) -> FuncId {
        self.data().func
    }

    /// Its position in the parameter list.
    pub fn index(&self) -> usize {
        let (start, _) = self.module.funcs[self.data().func.index()].params;
        (self.id.0 - start) as usize
    }

    /// The type.
    pub fn ty(&self) -> TypeId {
        self.data().ty
    }

    /// The parameter as an operand.
    pub fn operand(&self) -> Operand {
        Operand {
            ty: self.data().ty,
            value: Value::Arg(self.id),
        }
    }

    /// The attributes.
    pub fn attrs(&self) -> &'m [Attr] {
        self.module.attr_range(self.data().attrs)
    }

    /// `byval(T)`'s T.
    pub fn byval(&self) -> Option<TypeId> {
        attr_byval(self.attrs())
    }

    /// The decoded name, for a named parameter.
    pub fn name(&self) -> Option<Vec<u8>> {
        local_name(
            text_of(&self.module.src, self.data().name),
            self.data().numbered,
        )
    }
}

/// A basic block.
#[derive(Clone, Copy, Debug)]
pub struct Block<'m> {
    module: &'m Module,
    id: BlockId,
}

impl<'m> Block<'m> {
    /// The id.
    pub fn id(&self) -> BlockId {
        self.id
    }

    /// The function it belongs to.
    pub fn function(&self) -> FuncId {
        self.module.blocks[self.id.index()].func
    }

    /// The decoded label, for a named block.
    pub fn name(&self) -> Option<Vec<u8>> {
        if let Some(name) = self.module.new_block_name(self.id) {
            return Some(name.to_vec());
        }
        let data = &self.module.blocks[self.id.index()];
        local_name(text_of(&self.module.src, data.label), data.numbered)
    }

    /// The instructions, in order.
    pub fn instructions(&self) -> impl Iterator<Item = Inst<'m>> + 'm {
        let module = self.module;
        module
            .block_inst_ids(self.id)
            .iter()
            .filter(move |&&i| !module.insts[i.index()].flags.contains(InstFlags::REMOVED))
            .map(move |&id| Inst { module, id })
    }

    /// The last instruction.
    pub fn terminator(&self) -> Option<Inst<'m>> {
        self.instructions().last()
    }
}

/// An instruction.
#[derive(Clone, Copy, Debug)]
pub struct Inst<'m> {
    module: &'m Module,
    id: InstId,
}

impl<'m> Inst<'m> {
    /// The id.
    pub fn id(&self) -> InstId {
        self.id
    }

    fn data(&self) -> &'m crate::inst::InstData {
        &self.module.insts[self.id.index()]
    }

    /// The opcode.
    pub fn opcode(&self) -> Opcode {
        self.data().opcode
    }

    /// The result type (`void` when it has no result).
    pub fn ty(&self) -> TypeId {
        self.data().ty
    }

    /// The result as an operand, when it has one.
    pub fn result(&self) -> Option<Operand> {
        (self.data().ty != TypeId::VOID).then_some(Operand {
            ty: self.data().ty,
            value: Value::Inst(self.id),
        })
    }

    /// Whether anything may use the result. `false` is certain: no text of the body names
    /// it (the parser notes every name an operand, debug record or metadata spells) and no
    /// edit has touched the function. `true` proves nothing: look at the operands.
    pub fn may_be_used(&self) -> bool {
        let d = self.data();
        let Some(block) = self.module.blocks.get(d.block as usize) else {
            return true;
        };
        let function = &self.module.funcs[block.func.index()];
        // An edit marks its function (a new instruction's too), so `state` covers them.
        d.flags.contains(InstFlags::NAMED_IN_TEXT) || !function.state.is_empty()
    }

    /// The decoded result name, for a named result.
    pub fn name(&self) -> Option<Vec<u8>> {
        if let Some(name) = self.module.new_names.get(&self.id) {
            return Some(name.to_vec());
        }
        let data = self.data();
        if !data.flags.contains(InstFlags::HAS_DEF) {
            return None;
        }
        let mut lexer = Lexer::at(&self.module.src, data.start as usize);
        let t = lexer.next_token();
        local_name(
            self.module
                .src
                .get(t.start as usize..t.end as usize)
                .unwrap_or(&[]),
            t.kind == Tok::LocalId,
        )
    }

    /// The block it is in.
    pub fn block(&self) -> BlockId {
        BlockId(self.data().block)
    }

    /// The function it is in.
    pub fn function(&self) -> FuncId {
        self.module.blocks[self.data().block as usize].func
    }

    /// The operands, in LLVM's order for the opcode: for a call the callee then the arguments;
    /// for a store the value then the pointer; for a GEP the base then the indices; for a
    /// branch the condition then the targets; for a switch the condition, the default, then
    /// value/target pairs; for a phi value/block pairs.
    pub fn operands(&self) -> impl Iterator<Item = Operand> + 'm {
        self.module.inst_ops(self.id).iter().map(|op| op.get())
    }

    /// Operand `index`.
    pub fn operand(&self, index: usize) -> Option<Operand> {
        self.module.inst_ops(self.id).get(index).map(|op| op.get())
    }

    /// The call, for `call` and `invoke`.
    pub fn as_call(&self) -> Option<Call<'m>> {
        matches!(
            self.opcode(),
            Opcode::Call | Opcode::Invoke | Opcode::CallBr
        )
        .then_some(Call { inst: *self })
    }

    /// The metadata attached as `!kind` (`"dbg"`, `"printf.form"`).
    pub fn metadata(&self, kind: &str) -> Option<MdNode<'m>> {
        self.module.inst_metadata(self.id, kind)
    }

    /// The program source position from the `!dbg` location.
    pub fn debug_loc(&self) -> Option<DebugLoc> {
        self.module.debug_loc(self.id)
    }

    /// Where the instruction is in the module's text (none for new instructions).
    pub fn source_pos(&self) -> Option<SourcePos> {
        let data = self.data();
        if data.flags.contains(InstFlags::NEW) {
            let old = self.module.stand_ins.get(&self.id)?;
            return self.module.inst(*old).source_pos();
        }
        let (line, column) = self.module.line_col(data.start);
        Some(SourcePos { line, column })
    }

    /// The instruction's source text (empty for new instructions).
    pub fn text(&self) -> &'m [u8] {
        let data = self.data();
        if data.flags.contains(InstFlags::NEW) {
            return match self.module.stand_ins.get(&self.id) {
                Some(old) => self.module.inst(*old).text(),
                None => &[],
            };
        }
        let text = self
            .module
            .src
            .get(data.start as usize..data.end as usize)
            .unwrap_or(&[]);
        let trimmed = text
            .iter()
            .rposition(|&b| b != b'\n' && b != b'\r')
            .map_or(0, |i| i + 1);
        &text[..trimmed]
    }

    /// The alignment of a load, store, alloca or cmpxchg.
    pub fn alignment(&self) -> Option<u64> {
        let aux = self.data().aux;
        let has = matches!(
            self.opcode(),
            Opcode::Load | Opcode::Store | Opcode::Alloca | Opcode::CmpXchg
        );
        (has && aux > 0 && aux <= 64).then(|| 1u64 << (aux - 1))
    }

    /// The predicate of an `icmp` or `fcmp`.
    pub fn predicate(&self) -> Option<Predicate> {
        (matches!(self.opcode(), Opcode::ICmp | Opcode::FCmp) && !self.is_opaque())
            .then_some(Predicate(self.data().aux))
    }

    /// The source element type of a GEP, the allocated type of an alloca.
    pub fn element_type(&self) -> Option<TypeId> {
        (matches!(self.opcode(), Opcode::GetElementPtr | Opcode::Alloca) && !self.is_opaque())
            .then_some(TypeId(self.data().extra))
    }

    /// Whether a sparse parse ([`Module::parse_shards_where`]) kept it as text: its opcode,
    /// text and result name are known, but it has no operands and no type here.
    pub fn is_opaque(&self) -> bool {
        self.data().flags.contains(InstFlags::OPAQUE)
    }

    /// The constant indices of `extractvalue` / `insertvalue`.
    pub fn indices(&self) -> &'m [u32] {
        if matches!(self.opcode(), Opcode::ExtractValue | Opcode::InsertValue) {
            self.module.index_list(self.data().extra)
        } else {
            &[]
        }
    }
}

/// A call (or invoke) instruction.
#[derive(Clone, Copy, Debug)]
pub struct Call<'m> {
    inst: Inst<'m>,
}

/// One argument of a call.
#[derive(Clone, Copy, Debug)]
pub struct CallArg<'m> {
    /// Its position.
    pub index: usize,
    /// The typed value.
    pub operand: Operand,
    /// Its parameter attributes at the call site.
    pub attrs: &'m [Attr],
}

impl CallArg<'_> {
    /// Whether the attributes include `attr` (e.g. [`Attr::SignExt`]).
    pub fn has(&self, attr: Attr) -> bool {
        self.attrs.contains(&attr)
    }

    /// `byval(T)`'s T.
    pub fn byval(&self) -> Option<TypeId> {
        attr_byval(self.attrs)
    }

    /// `align N`.
    pub fn align(&self) -> Option<u64> {
        self.attrs.iter().find_map(|a| match a {
            Attr::Align(n) => Some(*n),
            _ => None,
        })
    }
}

impl<'m> Call<'m> {
    fn data(&self) -> &'m CallData {
        &self.inst.module.calls[self.inst.data().extra as usize]
    }

    /// The instruction.
    pub fn inst(&self) -> Inst<'m> {
        self.inst
    }

    /// The callee operand (a function, a pointer value, a constant expression or inline asm).
    pub fn callee(&self) -> Operand {
        self.inst.operand(0).unwrap_or(Operand {
            ty: TypeId::PTR,
            value: Value::Const(crate::const_data::C_NULL),
        })
    }

    /// The function called, when the callee is one directly.
    pub fn called_function(&self) -> Option<FuncId> {
        match self.callee().value {
            Value::Global(g) => self.inst.module.global(g).as_function(),
            _ => None,
        }
    }

    /// The call's function type (what LLVM prints after `call` for a varargs callee).
    pub fn function_type(&self) -> TypeId {
        self.data().fn_ty
    }

    /// The return attributes at the call site.
    pub fn return_attrs(&self) -> &'m [Attr] {
        self.inst.module.attr_range(self.data().ret_attrs)
    }

    /// How many arguments are passed.
    pub fn num_args(&self) -> usize {
        self.data().nargs as usize
    }

    /// Argument `index`.
    pub fn arg(&self, index: usize) -> Option<CallArg<'m>> {
        if index >= self.num_args() {
            return None;
        }
        let m = self.inst.module;
        let set = m
            .attr_sets
            .get(self.data().arg_attrs as usize + index)
            .copied()
            .unwrap_or((0, 0));
        Some(CallArg {
            index,
            operand: self.inst.operand(index + 1)?,
            attrs: m.attr_range(set),
        })
    }

    /// The arguments' operands, without their attributes: [`Call::args`] for a pass that
    /// reads only values.
    pub fn arg_operands(&self) -> impl ExactSizeIterator<Item = Operand> + 'm {
        self.arg_ops().iter().map(|op| op.get())
    }

    /// The arguments' packed operands: those after the callee, as many as the call passes.
    fn arg_ops(&self) -> &'m [crate::value::PackedOp] {
        let ops = self.inst.module.inst_ops(self.inst.id);
        let args = ops.get(1..).unwrap_or(&[]);
        &args[..self.num_args().min(args.len())]
    }

    /// The arguments.
    pub fn args(&self) -> impl Iterator<Item = CallArg<'m>> + 'm {
        // The record, operands and attribute sets are found once, not once per argument.
        let m = self.inst.module;
        let sets = m
            .attr_sets
            .get(self.data().arg_attrs as usize..)
            .unwrap_or(&[]);
        self.arg_ops()
            .iter()
            .enumerate()
            .map(move |(index, op)| CallArg {
                index,
                operand: op.get(),
                attrs: m.attr_range(sets.get(index).copied().unwrap_or((0, 0))),
            })
    }

    /// The function attributes as written (`#3`, `nounwind`), empty when there are none.
    pub fn fn_attrs_text(&self) -> &'m [u8] {
        self.inst.module.text(self.data().fn_attrs)
    }

    /// The operand bundles as written (`[ "deopt"(i32 1) ]`), empty when there are none.
    pub fn bundles_text(&self) -> &'m [u8] {
        self.inst.module.text(self.data().bundles)
    }

    /// The call site's calling convention as written (`fastcc`, `amdgpu_gfx`), when not C's.
    pub fn calling_conv(&self) -> Option<&'m str> {
        let text = self.inst.module.text(self.data().cconv);
        std::str::from_utf8(text).ok().filter(|s| !s.is_empty())
    }

    /// `tail`, `musttail` or `notail`, when the call is marked so.
    pub fn tail_kind(&self) -> Option<&'m str> {
        let text = self.inst.module.text(self.data().tail);
        std::str::from_utf8(text).ok().filter(|s| !s.is_empty())
    }
}

fn attr_byval(attrs: &[Attr]) -> Option<TypeId> {
    attrs.iter().find_map(|a| match a {
        Attr::ByVal(t) => Some(*t),
        _ => None,
    })
}

fn local_name(raw: &[u8], numbered: bool) -> Option<Vec<u8>> {
    if raw.is_empty() || numbered {
        return None;
    }
    match name_key(raw, false) {
        NameKey::Named(name) => Some(name.into_owned()),
        NameKey::Numbered(_) => None,
    }
}

impl Module {
    /// A view of a global.
    pub fn global(&self, id: GlobalId) -> Global<'_> {
        Global { module: self, id }
    }

    /// Every global symbol (variables, functions, aliases, ifuncs), in order of first mention.
    pub fn globals(&self) -> impl Iterator<Item = Global<'_>> + '_ {
        (0..self.globals.len() as u32)
            .filter(|&i| !self.globals[i as usize].removed)
            .map(|i| self.global(GlobalId(i)))
    }

    /// The global named `name` (without `@`; numbered globals by their decimal number).
    pub fn global_by_name(&self, name: &str) -> Option<GlobalId> {
        let found = match self.global_map.get(name.as_bytes()) {
            Some(&g) => Some(g),
            None => crate::lexer::parse_u32(name.as_bytes())
                .and_then(|n| self.global_numbered.get(&n).copied()),
        };
        found.filter(|g| !self.globals[g.index()].removed)
    }

    /// A view of a function.
    pub fn function(&self, id: FuncId) -> Function<'_> {
        Function { module: self, id }
    }

    /// The text between the braces of `attributes #n = { ... }`, when the module has it.
    pub fn attr_group(&self, n: u32) -> Option<&[u8]> {
        self.attr_group_entry(n).map(|group| self.text(group.body))
    }

    /// `attributes #n`'s entry in the table of groups, built on the first question.
    fn attr_group_entry(&self, n: u32) -> Option<&crate::module::AttrGroup> {
        let groups = self.attr_groups.get_or_init(|| {
            let mut groups: Vec<crate::module::AttrGroup> = self
                .items
                .iter()
                .filter(|item| {
                    matches!(item.kind, crate::module::ItemKind::AttrGroup)
                        && item.state != crate::module::ItemState::New
                })
                .filter_map(|item| {
                    let text = self.src.get(item.start as usize..item.end as usize)?;
                    let hash = memchr::memchr(b'#', text)?;
                    let digits = text[hash + 1..]
                        .iter()
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                    let n = crate::lexer::parse_u32(&text[hash + 1..hash + 1 + digits])?;
                    let open = memchr::memchr(b'{', text)?;
                    let close = memchr::memrchr(b'}', text)?;
                    (open < close).then(|| {
                        let body = &text[open + 1..close];
                        let body_start = item.start + open as u32 + 1;
                        let mut words = Vec::new();
                        scan_attr_words(body, |word| {
                            let start = body_start
                                + (word.as_ptr() as usize - body.as_ptr() as usize) as u32;
                            words.push(crate::inst::Text {
                                start,
                                end: start + word.len() as u32,
                            });
                        });
                        crate::module::AttrGroup {
                            n,
                            body: crate::inst::Text {
                                start: body_start,
                                end: item.start + close as u32,
                            },
                            words: words.into_boxed_slice(),
                        }
                    })
                })
                .collect();
            groups.sort_by_key(|group| group.n);
            groups
        });
        let at = groups.binary_search_by_key(&n, |group| group.n).ok()?;
        groups.get(at)
    }

    /// Every function, declarations included, in module order.
    pub fn functions(&self) -> impl Iterator<Item = Function<'_>> + '_ {
        (0..self.funcs.len() as u32)
            .filter(|&i| !self.globals[self.funcs[i as usize].global.index()].removed)
            .map(|i| self.function(FuncId(i)))
    }

    /// The function named `name` (without `@`).
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.global(self.global_by_name(name)?).as_function()
    }

    /// A view of an instruction.
    pub fn inst(&self, id: InstId) -> Inst<'_> {
        Inst { module: self, id }
    }

    /// A view of a block.
    pub fn block(&self, id: BlockId) -> Block<'_> {
        Block { module: self, id }
    }

    /// A view of a parameter.
    pub fn arg(&self, id: ArgId) -> Arg<'_> {
        Arg { module: self, id }
    }

    /// Every call (and invoke) whose callee is the function named `name`, in module order.
    pub fn calls_to(&self, name: &str) -> Vec<InstId> {
        match self.global_by_name(name) {
            Some(g) => self.calls_to_any(&[g]),
            None => Vec::new(),
        }
    }

    /// Every call, invoke and callbr whose callee is one of `callees`, in module order.
    ///
    /// One pass over the instructions that reads only their opcodes and first operands:
    /// finding a pass's few calls among a large module's instructions should cost little
    /// more than touching each once.
    pub fn calls_to_any(&self, callees: &[GlobalId]) -> Vec<InstId> {
        let wanted: Vec<PackedValue> = callees
            .iter()
            .map(|&g| PackedValue::pack(Value::Global(g)))
            .collect();
        let mut found = Vec::new();
        for f in self.functions() {
            for &block in &f.data().blocks {
                for &id in self.block_inst_ids(block) {
                    let data = &self.insts[id.index()];
                    if !data.flags.contains(InstFlags::REMOVED)
                        && matches!(data.opcode, Opcode::Call | Opcode::Invoke | Opcode::CallBr)
                        && self
                            .inst_ops(id)
                            .first()
                            .is_some_and(|callee| wanted.contains(&callee.value))
                    {
                        found.push(id);
                    }
                }
            }
        }
        found
    }

    /// A local or global value with its type (constants carry their type in their operand).
    pub fn operand_of(&self, value: Value) -> Option<Operand> {
        Some(Operand {
            ty: self.value_type(value)?,
            value,
        })
    }

    /// The instructions that use a local value (instruction result, parameter or block).
    pub fn uses(&self, value: Value) -> Vec<InstId> {
        let Some(f) = self.owner(value) else {
            return Vec::new();
        };
        self.function(f)
            .instructions()
            .filter(|i| i.operands().any(|op| op.value == value))
            .map(|i| i.id())
            .collect()
    }

    /// The function a local value belongs to.
    pub(crate) fn owner(&self, value: Value) -> Option<FuncId> {
        match value {
            Value::Inst(i) => Some(
                self.blocks
                    .get(self.insts.get(i.index())?.block as usize)?
                    .func,
            ),
            Value::Arg(a) => Some(self.args.get(a.index())?.func),
            Value::Block(b) => Some(self.blocks.get(b.index())?.func),
            _ => None,
        }
    }

    /// Follows a pointer through constant `getelementptr`, `bitcast` and `addrspacecast`
    /// expressions (and aliases) to the global it points into, adding up the GEP offsets with
    /// the module's data layout.
    pub fn resolve_global(&self, op: Operand) -> Option<GlobalRef> {
        let mut current = op;
        let mut offset: i64 = 0;
        for _ in 0..64 {
            match current.value {
                Value::Global(g) => match self.globals[g.index()].kind {
                    GlobalKindData::Alias(i) => {
                        current = self.aliases.get(i as usize)?.aliasee.get()
                    }
                    _ => return Some(GlobalRef { global: g, offset }),
                },
                Value::Const(c) => match self.constant(c) {
                    Constant::Expr {
                        opcode: Opcode::BitCast | Opcode::AddrSpaceCast,
                        operands,
                        ..
                    } => current = *operands.first()?,
                    Constant::Expr {
                        opcode: Opcode::GetElementPtr,
                        ty: Some(source),
                        operands,
                        ..
                    } => {
                        let (base, indices) = operands.split_first()?;
                        let mut path = Vec::with_capacity(indices.len());
                        for index in indices {
                            let Value::Const(c) = index.value else {
                                return None;
                            };
                            let v = match self.constant(c) {
                                Constant::Int(v) => v,
                                Constant::ZeroInitializer | Constant::Null => 0,
                                _ => return None,
                            };
                            path.push(i64::try_from(v).ok()?);
                        }
                        let (delta, _) = self.layout.offset_of(&self.types, source, &path).ok()?;
                        offset = offset.checked_add(delta)?;
                        current = *base;
                    }
                    _ => return None,
                },
                _ => return None,
            }
        }
        None
    }

    /// The bytes of a constant global's initializer, when it is a byte array (`c"..."`,
    /// `[N x i8] [...]`, or `zeroinitializer`), NUL included.
    pub fn global_bytes(&self, g: GlobalId) -> Option<Vec<u8>> {
        let global = self.global(g);
        if !global.is_constant() {
            return None;
        }
        let init = global.initializer()?;
        let Value::Const(c) = init.value else {
            return None;
        };
        match self.const_data(c).kind {
            ConstKind::CString | ConstKind::NewBytes(_) => match self.constant(c) {
                Constant::Bytes(bytes) => Some(bytes),
                _ => None,
            },
            ConstKind::Zero => {
                let size = self.layout.alloc_size(&self.types, init.ty).ok()?;
                Some(vec![0; usize::try_from(size).ok()?.min(1 << 20)])
            }
            ConstKind::Array { .. } => match self.constant(c) {
                Constant::Array(elems) => elems
                    .iter()
                    .map(|e| match e.value {
                        Value::Const(c) if e.ty == TypeId::I8 => self.int_value(c).map(|v| v as u8),
                        _ => None,
                    })
                    .collect(),
                _ => None,
            },
            _ => None,
        }
    }

    /// The NUL-terminated string a pointer operand points at (resolved with
    /// [`Module::resolve_global`]), without the NUL; `None` when it is not a constant string.
    pub fn c_string_at(&self, op: Operand) -> Option<Vec<u8>> {
        let target = self.resolve_global(op)?;
        let mut bytes = self.global_bytes(target.global)?;
        let start = usize::try_from(target.offset).ok()?;
        let end = start + bytes.get(start..)?.iter().position(|&b| b == 0)?;
        // The initializer's own bytes, cut to the string: most strings start the global.
        bytes.truncate(end);
        bytes.drain(..start);
        Some(bytes)
    }
}

/// Calls `word` with each keyword (`nounwind`, `memory`) and group reference (`#3`) of an
/// attribute list's text, skipping quoted strings and parenthesized arguments.
fn scan_attr_words(text: &[u8], mut word: impl FnMut(&[u8])) {
    let mut i = 0;
    let mut depth = 0u32;
    while i < text.len() {
        match text[i] {
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    i += 1 + usize::from(text[i] == b'\\');
                }
                i += 1;
            }
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'#' | b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let start = i;
                i += 1;
                while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                    i += 1;
                }
                if depth == 0 {
                    word(&text[start..i]);
                }
            }
            _ => i += 1,
        }
    }
}
