//! Top-level edits: declaring functions, adding and removing globals, and changing a
//! function's parameters.
//!
//! Input: a name and type to declare, a global to remove, new string or zeroed globals, a
//! parameter's new type or attributes. Output: the module's items and global records
//! changed, new items placed where LLVM would print them; or an [`EditError`] while anything
//! still names what would be removed.

use super::invalid;
use crate::const_data::ConstKind;
use crate::error::EditError;
use crate::hash::FxHashSet;
use crate::inst::{Attr, InstFlags, NONE, NO_TEXT};
use crate::lexer::{name_key, Lexer, NameKey, Tok};
use crate::module::{
    ArgData, FuncData, FuncState, GlobalData, GlobalKindData, ItemData, ItemKind, ItemState,
    Module, VarData,
};
use crate::types::TypeId;
use crate::value::{ArgId, FuncId, GlobalId, Operand, PackedOp, PackedValue, Value};

/// A function declaration nothing in its module uses ([`Module::unused_declaration`]).
#[derive(Debug)]
pub struct UnusedDeclaration<'m> {
    module: &'m mut Module,
    global: GlobalId,
}

impl UnusedDeclaration<'_> {
    /// Removes the declaration.
    pub fn remove(self) {
        self.module.remove_unused_global(self.global);
    }
}

impl Module {
    /// Declares `name` with a function type, or returns the function already declared or
    /// defined under that name with that type.
    pub fn declare_function(&mut self, name: &str, fn_ty: TypeId) -> Result<FuncId, EditError> {
        let Some((_, params, _)) = self.types.function_parts(fn_ty) else {
            return invalid(format!(
                "`{}` is not a function type",
                self.type_name(fn_ty)
            ));
        };
        let params = params.to_vec();
        if let Some(g) = self.global_by_name(name) {
            return match self.global(g).as_function() {
                Some(f) if self.funcs[f.index()].fn_ty == fn_ty => Ok(f),
                _ => Err(EditError::NameTaken {
                    name: format!("@{name}"),
                }),
            };
        }
        let f = FuncId(self.funcs.len() as u32);
        let g = self.new_global(
            name,
            GlobalKindData::Func(f),
            self.layout.program_addrspace(),
        );
        let params_start = self.args.len() as u32;
        for ty in &params {
            self.args.push(ArgData {
                func: f,
                ty: *ty,
                attrs: (0, 0),
                name: NO_TEXT,
                numbered: true,
            });
        }
        let item = self.push_item(ItemKind::Function(f), None);
        self.funcs.push(FuncData {
            item,
            ..FuncData::declaration(g, fn_ty, (params_start, params.len() as u32), 0)
        });
        self.globals[g.index()].item = item;
        // LLVM prints declarations after the definitions: after the last function.
        let last_function = self.order.iter().rposition(|&i| {
            matches!(self.items[i as usize].kind, ItemKind::Function(_)) && i != item
        });
        self.place_item(item, last_function);
        Ok(f)
    }

    fn new_global(&mut self, name: &str, kind: GlobalKindData, addrspace: u32) -> GlobalId {
        let g = GlobalId(self.globals.len() as u32);
        let ptr_ty = self.types.ptr(addrspace);
        self.globals.push(GlobalData {
            name: name.as_bytes().into(),
            numbered: false,
            kind,
            item: NONE,
            addrspace,
            ptr_ty,
            removed: false,
        });
        self.global_map.insert(name.as_bytes().into(), g);
        g
    }

    pub(super) fn push_item(&mut self, kind: ItemKind, text: Option<Vec<u8>>) -> u32 {
        let index = self.items.len() as u32;
        self.items.push(ItemData {
            kind,
            start: NONE,
            end: NONE,
            state: ItemState::New,
            text: text.map(Into::into),
        });
        index
    }

    /// Puts a new item after the item at `after` in print order (at the end when none).
    pub(super) fn place_item(&mut self, item: u32, after: Option<usize>) {
        match after {
            Some(pos) => self.order.insert(pos + 1, item),
            None => self.order.push(item),
        }
    }

    /// How many instructions, initializers and aliases refer to a global.
    pub fn global_uses(&self, g: GlobalId) -> usize {
        let target = PackedValue::pack(Value::Global(g));
        let mut seen = FxHashSet::default();
        let mut count = 0;
        if self.live_operand_may_name(target) {
            count += self.instructions_naming(target, &mut seen);
        }
        for (i, global) in self.globals.iter().enumerate() {
            if global.removed || i == g.index() {
                continue;
            }
            let op = match global.kind {
                GlobalKindData::Var(v) => self.vars.get(v as usize).and_then(|v| v.init),
                GlobalKindData::Alias(a) => self.aliases.get(a as usize).map(|a| a.aliasee),
                _ => None,
            };
            if let Some(op) = op {
                if self.op_mentions(op, target, &mut seen, 0) {
                    count += 1;
                }
            }
        }
        count
    }

    /// Whether an operand slot that a live instruction may read names `target`, itself or
    /// through a constant: one pass over the operand arena in order, where counting walks
    /// every instruction of every function, block by block. `false` proves that no
    /// instruction uses `target` (a constant's own operands, which share the arena, only
    /// make it say `true`).
    fn live_operand_may_name(&self, target: PackedValue) -> bool {
        let mut seen = FxHashSet::default();
        self.ops.iter().enumerate().any(|(k, op)| {
            (op.value == target || self.may_be_expression(*op))
                && !self.op_is_dead(k)
                && self.op_mentions(*op, target, &mut seen, 0)
        })
    }

    /// Whether an operand is a constant that is not a literal: only such a constant, or the
    /// global itself, can name a global.
    fn may_be_expression(&self, op: PackedOp) -> bool {
        matches!(op.value.unpack(), Value::Const(c) if !self.const_data(c).kind.is_literal())
    }

    /// How many live instructions name `target` in their operands.
    fn instructions_naming(&self, target: PackedValue, seen: &mut FxHashSet<u32>) -> usize {
        let mut count = 0;
        for f in self.functions() {
            for &block in &self.funcs[f.id().index()].blocks {
                for &inst in self.block_inst_ids(block) {
                    // Removed instructions use nothing; opaque ones have no operands.
                    if !self.insts[inst.index()]
                        .flags
                        .intersects(InstFlags::REMOVED | InstFlags::OPAQUE)
                        && self.inst_ops(inst).iter().any(|op| {
                            (op.value == target || self.may_be_expression(*op))
                                && self.op_mentions(*op, target, seen, 0)
                        })
                    {
                        count += 1;
                    }
                }
            }
        }
        count
    }

    fn op_mentions(
        &self,
        op: PackedOp,
        target: PackedValue,
        seen: &mut FxHashSet<u32>,
        depth: u32,
    ) -> bool {
        if op.value == target {
            return true;
        }
        let Value::Const(c) = op.value.unpack() else {
            return false;
        };
        let data = self.const_data(c);
        if data.kind != ConstKind::Opaque && self.const_ops(c).is_empty() {
            // A literal (number, null, string...): nothing to remember.
            return false;
        }
        if depth > 64 || !seen.insert(c.0) {
            return false;
        }
        if data.kind == ConstKind::Opaque {
            // Text-only constants (blockaddress, dso_local_equivalent): look for the name.
            let g = &self.globals[(target.0 & crate::value::MAX_INDEX) as usize];
            let text = self
                .src
                .get(data.start as usize..data.end as usize)
                .unwrap_or(&[]);
            let mut lexer = Lexer::new(text);
            loop {
                let t = lexer.next_token();
                match t.kind {
                    Tok::Eof | Tok::Error => return false,
                    Tok::GlobalVar | Tok::GlobalId => {
                        let raw = &text[t.start as usize..t.end as usize];
                        let key = name_key(raw, t.kind == Tok::GlobalId);
                        let matches = match key {
                            NameKey::Named(n) => !g.numbered && *n == *g.name,
                            NameKey::Numbered(n) => {
                                g.numbered && n.to_string().as_bytes() == &*g.name
                            }
                        };
                        if matches {
                            return true;
                        }
                    }
                    _ => {}
                }
            }
        }
        let ops: Vec<PackedOp> = self.const_ops(c).to_vec();
        ops.into_iter()
            .any(|op| self.op_mentions(op, target, seen, depth + 1))
    }

    /// Removes those of `globals` that no live instruction, initializer or alias refers to
    /// (itself or through constants; a global's own initializer does not count), and returns
    /// how many went. One pass over the module answers for all of them, where
    /// [`Module::remove_global`] scans it for each: dropping the thousand format strings of a
    /// lowered module took seconds that way.
    pub fn remove_unused_globals(&mut self, globals: &[GlobalId]) -> Result<usize, EditError> {
        let mut targets: Vec<u32> = Vec::with_capacity(globals.len());
        for &g in globals {
            match self.globals.get(g.index()) {
                None => return invalid("no such global"),
                Some(data) if data.removed => {}
                Some(_) => targets.push(PackedValue::pack(Value::Global(g)).0),
            }
        }
        targets.sort_unstable();
        targets.dedup();
        if targets.is_empty() {
            return Ok(0);
        }
        let mut used = FxHashSet::default();
        let mut seen = FxHashSet::default();
        for f in self.functions() {
            for &block in &self.funcs[f.id().index()].blocks {
                for &inst in self.block_inst_ids(block) {
                    // Removed instructions use nothing; opaque ones have no operands.
                    if !self.insts[inst.index()]
                        .flags
                        .intersects(InstFlags::REMOVED | InstFlags::OPAQUE)
                    {
                        for &op in self.inst_ops(inst) {
                            self.targets_named(op, &targets, &mut used, &mut seen, 0);
                        }
                    }
                }
            }
        }
        for (i, global) in self.globals.iter().enumerate() {
            let op = match global.kind {
                _ if global.removed => None,
                GlobalKindData::Var(v) => self.vars.get(v as usize).and_then(|v| v.init),
                GlobalKindData::Alias(a) => self.aliases.get(a as usize).map(|a| a.aliasee),
                _ => None,
            };
            if let Some(op) = op {
                // Apart from the instructions' walk: a constant seen here, where the global's
                // own name does not count, must still count when an instruction names it.
                let mut here = FxHashSet::default();
                self.targets_named(op, &targets, &mut here, &mut FxHashSet::default(), 0);
                let own = PackedValue::pack(Value::Global(GlobalId(i as u32))).0;
                used.extend(here.into_iter().filter(|&t| t != own));
            }
        }
        let mut removed = 0;
        for target in targets {
            if let (false, Value::Global(g)) =
                (used.contains(&target), PackedValue(target).unpack())
            {
                self.remove_unused_global(g);
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Adds to `found` each of `targets` (packed globals, sorted) that `op` names, itself or
    /// through constants, as [`Module::op_mentions`] asks for one.
    fn targets_named(
        &self,
        op: PackedOp,
        targets: &[u32],
        found: &mut FxHashSet<u32>,
        seen: &mut FxHashSet<u32>,
        depth: u32,
    ) {
        if targets.binary_search(&op.value.0).is_ok() {
            found.insert(op.value.0);
            return;
        }
        let Value::Const(c) = op.value.unpack() else {
            return;
        };
        let kind = self.const_data(c).kind;
        if kind != ConstKind::Opaque && self.const_ops(c).is_empty() || depth > 64 {
            return;
        }
        if kind == ConstKind::Opaque {
            // Text-only constants (blockaddress, dso_local_equivalent) are rare: each target
            // is looked for in the text.
            for &target in targets {
                if !found.contains(&target)
                    && self.op_mentions(op, PackedValue(target), &mut FxHashSet::default(), depth)
                {
                    found.insert(target);
                }
            }
            return;
        }
        if !seen.insert(c.0) {
            return;
        }
        for k in 0..self.const_ops(c).len() {
            let op = self.const_ops(c)[k];
            self.targets_named(op, targets, found, seen, depth + 1);
        }
    }

    /// Removes a function (declaration or definition). Refused while anything refers to it.
    pub fn remove_function(&mut self, f: FuncId) -> Result<(), EditError> {
        let Some(data) = self.funcs.get(f.index()) else {
            return invalid("no such function");
        };
        self.remove_global(data.global)
    }

    /// Removes a global variable, function, alias or ifunc. Refused while anything refers to
    /// it (instructions, initializers, aliases).
    pub fn remove_global(&mut self, g: GlobalId) -> Result<(), EditError> {
        let Some(global) = self.globals.get(g.index()) else {
            return invalid("no such global");
        };
        if global.removed {
            return invalid("the global was already removed");
        }
        let uses = self.global_uses(g);
        if uses > 0 {
            return Err(EditError::StillUsed {
                what: format!("@{}", self.global(g).name_str()),
                uses,
            });
        }
        self.remove_unused_global(g);
        Ok(())
    }

    /// The declaration of the function `name` when nothing in the module uses it; `None` for
    /// a definition, a declaration something uses, or no such function. The answer holds the
    /// module, so that nothing can come to use the declaration before
    /// [`UnusedDeclaration::remove`]. A module parsed in shards ([`Module::parse_shards`])
    /// asks every shard, each on its own thread, and removes the declaration from all of them
    /// only when every one found it unused: only a shard's own instructions can use it, and
    /// the declaration is every shard's.
    pub fn unused_declaration(&mut self, name: &str) -> Option<UnusedDeclaration<'_>> {
        let f = self.function_by_name(name)?;
        let global = self.function(f).global().id();
        (self.function(f).is_declaration() && self.global_uses(global) == 0).then_some(
            UnusedDeclaration {
                module: self,
                global,
            },
        )
    }

    /// Removes a global nothing uses (the caller counted).
    fn remove_unused_global(&mut self, g: GlobalId) {
        let item = self.globals[g.index()].item;
        self.globals[g.index()].removed = true;
        let name = self.globals[g.index()].name.clone();
        if self.global_map.get(&name) == Some(&g) {
            self.global_map.remove(&name);
        }
        self.remove_item(item);
    }

    pub(super) fn remove_item(&mut self, item: u32) {
        if let Some(it) = self.items.get_mut(item as usize) {
            if it.state == ItemState::New {
                self.order.retain(|&i| i != item);
            } else {
                it.state = ItemState::Removed;
            }
        }
    }

    /// Changes a parameter's type (the function header is printed anew). The uses of the
    /// parameter in the body are the caller's to fix, as are the calls to the function.
    pub fn set_param_type(&mut self, param: ArgId, ty: TypeId) -> Result<(), EditError> {
        self.uses_known(Value::Arg(param))?;
        let Some(arg) = self.args.get_mut(param.index()) else {
            return invalid("no such parameter");
        };
        arg.ty = ty;
        let f = arg.func;
        let data = &self.funcs[f.index()];
        let (start, len) = data.params;
        let (ret, _, vararg) = self
            .types
            .function_parts(data.fn_ty)
            .map(|(r, p, v)| (r, p.to_vec(), v))
            .unwrap_or((TypeId::VOID, Vec::new(), false));
        let params: Vec<TypeId> = (start..start + len)
            .map(|i| self.args[i as usize].ty)
            .collect();
        let fn_ty = self.types.function(ret, &params, vararg);
        let data = &mut self.funcs[f.index()];
        data.fn_ty = fn_ty;
        data.state.insert(FuncState::HEADER_EDITED);
        Ok(())
    }

    /// Replaces a parameter's attributes (`byval(T)`, `align N`, `noundef`, ...).
    pub fn set_param_attrs(&mut self, param: ArgId, attrs: &[Attr]) -> Result<(), EditError> {
        if param.index() >= self.args.len() {
            return invalid("no such parameter");
        }
        let start = self.attrs.len() as u32;
        self.attrs.extend_from_slice(attrs);
        let arg = &mut self.args[param.index()];
        arg.attrs = (start, attrs.len() as u32);
        let f = arg.func;
        self.funcs[f.index()].state.insert(FuncState::HEADER_EDITED);
        Ok(())
    }

    /// Adds `@name = private unnamed_addr [addrspace(N)] constant [len x i8] c"...", align 1`
    /// (`bytes` should end in NUL for a C string). A taken name gets a numeric suffix.
    pub fn add_string_global(&mut self, name: &str, bytes: &[u8], addrspace: u32) -> GlobalId {
        let mut candidate = name.to_string();
        let mut k = 1;
        while self.global_map.contains_key(candidate.as_bytes()) {
            candidate = format!("{name}.{k}");
            k += 1;
        }
        let ty = self.types.array(bytes.len() as u64, TypeId::I8);
        self.byte_strings.push(bytes.into());
        let init = self.new_const(ConstKind::NewBytes(self.byte_strings.len() as u32 - 1));
        let var = self.vars.len() as u32;
        self.vars.push(VarData {
            value_ty: ty,
            init: Some(PackedOp::new(Operand {
                ty,
                value: Value::Const(init),
            })),
            constant: true,
        });
        let g = self.new_global(&candidate, GlobalKindData::Var(var), addrspace);
        let mut text = Vec::new();
        crate::types::write_name(b'@', candidate.as_bytes(), false, &mut text);
        text.extend_from_slice(b" = private unnamed_addr ");
        if addrspace != 0 {
            text.extend_from_slice(format!("addrspace({addrspace}) ").as_bytes());
        }
        text.extend_from_slice(b"constant ");
        self.types.write(ty, &mut text);
        text.extend_from_slice(b" c\"");
        crate::lexer::escape_into(bytes, &mut text);
        text.extend_from_slice(b"\", align 1\n");
        self.place_new_global(g, text);
        g
    }

    /// Adds `@name = [addrspace(N)] global T zeroinitializer, align A`: counters that a host
    /// finds by their name (to read or reset them). A global of that name already in the
    /// module is returned as it is (a module lowered twice keeps one).
    pub fn add_zeroed_global(
        &mut self,
        name: &str,
        ty: TypeId,
        align: u32,
        addrspace: u32,
    ) -> GlobalId {
        if let Some(&g) = self.global_map.get(name.as_bytes()) {
            return g;
        }
        let zero = self.const_zero(ty);
        let var = self.vars.len() as u32;
        self.vars.push(VarData {
            value_ty: ty,
            init: Some(PackedOp::new(zero)),
            constant: false,
        });
        let g = self.new_global(name, GlobalKindData::Var(var), addrspace);
        let mut text = Vec::new();
        crate::types::write_name(b'@', name.as_bytes(), false, &mut text);
        text.extend_from_slice(b" = ");
        if addrspace != 0 {
            text.extend_from_slice(format!("addrspace({addrspace}) ").as_bytes());
        }
        text.extend_from_slice(b"global ");
        self.types.write(ty, &mut text);
        text.extend_from_slice(format!(" zeroinitializer, align {align}\n").as_bytes());
        self.place_new_global(g, text);
        g
    }

    /// Puts a new global's line after the last global variable, else before the first
    /// function.
    fn place_new_global(&mut self, g: GlobalId, text: Vec<u8>) {
        let item = self.push_item(ItemKind::Global(g), Some(text));
        self.globals[g.index()].item = item;
        // Edits add no other global item: the last global placed stays the last while it
        // is where it was put.
        let after = match self.last_new_string {
            Some((at, last)) if self.order.get(at) == Some(&last) => Some(at),
            _ => self.order.iter().rposition(|&i| {
                matches!(self.items[i as usize].kind, ItemKind::Global(_)) && i != item
            }),
        };
        let after = after.or_else(|| {
            self.order
                .iter()
                .position(|&i| matches!(self.items[i as usize].kind, ItemKind::Function(_)))
                .and_then(|p| p.checked_sub(1))
        });
        self.place_item(item, after);
        let at = after.map_or(self.order.len() - 1, |p| p + 1);
        self.last_new_string = Some((at, item));
    }
}
