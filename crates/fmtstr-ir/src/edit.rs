//! Edits: the instruction builder and the module-level changes the lowering passes make.
//!
//! Every edit keeps the module printable: new instructions get fresh *named* results
//! (`%printf.buf`, `%printf.buf1`, ...), never numbers, so inserting one never disturbs the
//! `%N` sequence; removing a numbered value makes the printer renumber the function. Edits
//! that would leave a dangling reference (removing a used instruction or function) are refused
//! with an [`EditError`] and change nothing.

use crate::const_data::{ConstData, ConstKind};
use crate::error::EditError;
use crate::hash::FxHashSet;
use crate::inst::{
    Attr, CallData, InstData, Opcode, Predicate, GEP_INBOUNDS, HAS_DEF, IMPLICIT_NUM,
    NAMED_IN_TEXT, NEW, NONE, NO_TEXT, OPAQUE, OPS_EDITED, REMOVED, USES_PARSED,
};
use crate::lexer::{name_key, Lexer, NameKey, Tok};
use crate::md_data::{MdKindData, MdNodeData, MdOp};
use crate::module::{
    name_hash, ArgData, FuncData, GlobalData, GlobalKindData, ItemData, ItemKind, Module, VarData,
    BODY_EDITED, HEADER_EDITED, ITEM_NEW, ITEM_REMOVED, ITEM_SOURCE, RENUMBER,
};
use crate::types::{Type, TypeId};
use crate::value::{
    ArgId, BlockId, FuncId, GlobalId, InstId, MdId, Operand, PackedOp, PackedValue, Value,
};

pub(crate) mod control;

/// An operand of a new metadata node (see [`Module::add_metadata`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MdInput<'a> {
    /// `null`.
    Null,
    /// A reference to a node.
    Node(MdId),
    /// A typed constant or global (`i8 1`, `ptr @g`).
    Value(Operand),
    /// A string (`!"..."`).
    String(&'a [u8]),
}

/// Where a [`Builder`] inserts instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// Right before an instruction.
    Before(InstId),
    /// Right after an instruction.
    After(InstId),
    /// In the entry block, after its leading `alloca`s: where LLVM keeps stack slots.
    EntryAllocas(FuncId),
    /// At the end of a block (after its terminator: only for blocks being built).
    End(BlockId),
}

/// An `atomicrmw` operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // each is the LLVM keyword of the same name
pub enum RmwOp {
    Xchg,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
    FAdd,
    FSub,
    FMax,
    FMin,
}

/// An atomic memory ordering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // each is the LLVM keyword of the same name
pub enum Ordering {
    Unordered,
    Monotonic,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

/// Inserts instructions at a position, advancing past each one.
///
/// Made by [`Module::builder`]. Every method checks its operand types and returns an error
/// (inserting nothing) when they do not fit. The instructions take their place in the block
/// together when the builder is dropped (it borrows the module until then): `drop(b)` before
/// reading the module again.
#[derive(Debug)]
pub struct Builder<'m> {
    m: &'m mut Module,
    func: FuncId,
    block: BlockId,
    /// Where the next instruction goes in the block's list, the pending ones counted.
    index: usize,
    /// Instructions built but not yet in the block's list. They go in together (when the
    /// builder is dropped, or this is full): each insertion moves the rest of the block, so
    /// one per instruction made lowering a 1,000-instruction block quadratic.
    pending: [InstId; PENDING],
    pending_len: usize,
    attach: Vec<(u32, MdId)>,
    last: Option<InstId>,
}

const PENDING: usize = 16;

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        self.place_pending();
    }
}

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

fn invalid<T>(message: impl Into<String>) -> Result<T, EditError> {
    Err(EditError::Invalid(message.into()))
}

impl Module {
    fn live_inst(&self, inst: InstId) -> Result<&InstData, EditError> {
        match self.insts.get(inst.index()) {
            Some(d) if d.flags & REMOVED == 0 => Ok(d),
            _ => invalid("the instruction does not exist or was removed"),
        }
    }

    /// A builder inserting at `at`.
    pub fn builder(&mut self, at: Position) -> Result<Builder<'_>, EditError> {
        let (block, index) = match at {
            Position::Before(i) | Position::After(i) => {
                let block = BlockId(self.live_inst(i)?.block);
                let Some(pos) = self.position_in_block(block, i) else {
                    return invalid("the instruction is not in its block");
                };
                (
                    block,
                    if matches!(at, Position::After(_)) {
                        pos + 1
                    } else {
                        pos
                    },
                )
            }
            Position::EntryAllocas(f) => {
                let Some(&entry) = self.funcs.get(f.index()).and_then(|d| d.blocks.first()) else {
                    return invalid("the function has no body");
                };
                let insts = self.block_inst_ids(entry);
                let pos = insts
                    .iter()
                    .position(|&i| {
                        let d = &self.insts[i.index()];
                        d.opcode != Opcode::Alloca && d.flags & REMOVED == 0
                    })
                    .unwrap_or(insts.len());
                (entry, pos)
            }
            Position::End(b) => match self.blocks.get(b.index()) {
                Some(_) => (b, self.block_inst_ids(b).len()),
                None => return invalid("no such block"),
            },
        };
        let func = self.blocks[block.index()].func;
        Ok(Builder {
            m: self,
            func,
            block,
            index,
            pending: [InstId(0); PENDING],
            pending_len: 0,
            attach: Vec::new(),
            last: None,
        })
    }

    /// Where `inst` is in `block`'s list: searched from where the last builder in the function
    /// inserted (edits go forward through a block), then back from there.
    fn position_in_block(&self, block: BlockId, inst: InstId) -> Option<usize> {
        let list = self.block_inst_ids(block);
        let f = self.blocks[block.index()].func;
        let hint = match self.funcs[f.index()].names.as_ref().and_then(|i| i.cursor) {
            Some((b, at)) if b == block => at.min(list.len()),
            _ => 0,
        };
        // Edits that go backwards through a block find theirs just before the hint.
        list[hint..]
            .iter()
            .position(|&x| x == inst)
            .map(|p| hint + p)
            .or_else(|| list[..hint].iter().rposition(|&x| x == inst))
    }

    /// Names the new instruction `id` of `f` with a fresh local name based on `hint`.
    ///
    /// The candidates are `hint`, `hint1`, `hint2`, ... (`hint.1`, ... when the hint ends in a
    /// digit): the first one not taken. Each hint remembers how far its candidates are taken,
    /// so a name costs O(1). A candidate can clash with another hint's candidate or with a
    /// source name; the names are gathered into a set only once one could (see
    /// [`Module::fresh_name`]), and the source names only once a hint appears in the
    /// function's text (or the text has escapes, which could spell it): a pass that names its
    /// values `bufIndexed` in functions that never say `bufIndexed` never reads their names.
    /// Each candidate is written straight into the name table.
    fn name_new_inst(&mut self, f: FuncId, id: InstId, hint: &str) {
        let (start, bare) = self.fresh_name(f, hint);
        self.new_names.finish(id, start, bare);
    }

    /// Writes a fresh local name of `f` based on `hint` (see [`Module::name_new_inst`]) at the
    /// end of the new-name arena, and returns where it starts there: the caller gives it to an
    /// instruction (`finish`) or takes it for a block (`take_pending`); and whether the name
    /// is bare.
    ///
    /// While no name can clash, a name is just the hint's next candidate: the names given out
    /// are only hints' candidates, no two hints can share a candidate (where one is a prefix
    /// of the other, the rest is not only digits and dots), and no source name may start
    /// with a hint. The set of names is built only once one of those stops holding.
    fn fresh_name(&mut self, f: FuncId, hint: &str) -> (usize, bool) {
        // Most names: a hint seen before, while no name can clash. (A hint of digits only is
        // never found as it is: it is kept with its `v`.)
        if let Some(index) = self.funcs[f.index()].names.as_deref_mut() {
            if index.names.is_none() {
                if let Some(slot) = index.hint_slot(hint.as_bytes()) {
                    let (_, _, k, bare) = index.next_suffix[slot];
                    index.next_suffix[slot].2 = k + 1;
                    let start = self.new_names.begin();
                    let bytes = self.new_names.bytes_mut();
                    bytes.extend_from_slice(hint.as_bytes());
                    push_suffix(bytes, k);
                    return (start, bare);
                }
            }
        }
        // A name of digits only would read back as a number.
        let prefix: &[u8] = if hint.bytes().all(|b| b.is_ascii_digit()) {
            b"v"
        } else {
            b""
        };
        let start = self.new_names.begin();
        self.new_names.push_bytes(prefix);
        self.new_names.push_bytes(hint.as_bytes());
        let base_len = prefix.len() + hint.len();
        let index = self.funcs[f.index()].names.as_deref();
        let base = self.new_names.pending(start);
        let slot = index.and_then(|i| i.hint_slot(base));
        if slot.is_none() {
            let sources_named = index.is_some_and(|i| i.sources_named);
            let unchecked = index.is_none_or(|i| i.names.is_none());
            let overlaps = index.is_some_and(|i| i.hint_overlaps(base));
            let source_may_clash = !sources_named && self.source_may_name(f, base);
            if source_may_clash {
                self.collect_source_names(f);
            } else if unchecked && overlaps {
                self.name_set(f);
            }
        }
        let Module {
            funcs, new_names, ..
        } = self;
        let index = funcs[f.index()]
            .names
            .get_or_insert_with(crate::module::FuncIndex::with_room);
        let slot = slot.unwrap_or_else(|| index.add_hint(&new_names.pending(start)[..base_len]));
        let (_, _, mut k, bare) = index.next_suffix[slot];
        loop {
            new_names.truncate(start + base_len);
            push_suffix(new_names.bytes_mut(), k);
            // Unchecked, the candidate is free; checked, the set says.
            let free = match index.names.as_mut() {
                None => true,
                Some(names) => names.insert(name_hash(new_names.pending(start))),
            };
            if free {
                break;
            }
            k += 1;
        }
        // Names are never freed, so every candidate up to `k` stays taken.
        index.next_suffix[slot].2 = k + 1;
        (start, bare)
    }

    /// The set of `f`'s local names, built from the names given out so far when there is
    /// none yet (see [`Module::fresh_name`]).
    fn name_set(&mut self, f: FuncId) -> &mut FxHashSet<u64> {
        let index = self.func_index(f);
        let crate::module::FuncIndex {
            names,
            hints,
            next_suffix,
            ..
        } = index;
        names.get_or_insert_with(|| {
            let mut set = FxHashSet::default();
            let mut name = Vec::new();
            for &(from, to, next, _) in next_suffix.iter() {
                for k in 0..next {
                    name.clear();
                    name.extend_from_slice(&hints[from as usize..to as usize]);
                    push_suffix(&mut name, k);
                    set.insert(name_hash(&name));
                }
            }
            set
        })
    }

    /// Adds the source's local names of `f` to its name index (once).
    fn collect_source_names(&mut self, f: FuncId) {
        let mut set = std::mem::take(self.name_set(f));
        self.for_each_def(f, |raw, numbered, _, _| {
            if let NameKey::Named(name) = name_key(raw, numbered) {
                if !raw.is_empty() {
                    set.insert(name_hash(&name));
                }
            }
        });
        let index = self.func_index(f);
        index.names = Some(set);
        index.sources_named = true;
    }

    /// Like [`Module::fresh_name`], for a name that is usually unique already (`bb.17`): the
    /// name itself when no local of `f` has it, else a fresh one from it. Unlike a hint, it
    /// is not remembered, so that thousands of distinct names cost no list of hints.
    fn exact_or_fresh_name(&mut self, f: FuncId, name: &str) -> usize {
        if name.is_empty() || name.bytes().all(|b| b.is_ascii_digit()) {
            return self.fresh_name(f, name).0;
        }
        if !self.funcs[f.index()]
            .names
            .as_ref()
            .is_some_and(|i| i.sources_named)
        {
            self.collect_source_names(f);
        }
        if self.name_set(f).insert(name_hash(name.as_bytes())) {
            let start = self.new_names.begin();
            self.new_names.push_bytes(name.as_bytes());
            return start;
        }
        self.fresh_name(f, name).0
    }

    /// Whether a source name of `f` could start with `base`: the function names locals, and
    /// its text holds `base` or an escape (`\\`) that could spell it.
    fn source_may_name(&self, f: FuncId, base: &[u8]) -> bool {
        if self.funcs[f.index()].only_numbered_locals {
            return false;
        }
        let item = self.funcs[f.index()].item as usize;
        let Some(text) = self
            .items
            .get(item)
            .and_then(|it| self.src.get(it.start as usize..it.end as usize))
        else {
            return true;
        };
        memchr::memmem::find(text, base).is_some() || memchr::memchr(b'\\', text).is_some()
    }

    fn func_index(&mut self, f: FuncId) -> &mut crate::module::FuncIndex {
        self.funcs[f.index()]
            .names
            .get_or_insert_with(crate::module::FuncIndex::with_room)
    }

    /// The live instructions using a local value (each once, in no particular order), from
    /// the function's user index: O(log function + uses) rather than O(function) per query.
    fn users_of(&mut self, value: Value) -> Vec<InstId> {
        let Some(f) = self.owner(value) else {
            return Vec::new();
        };
        let packed = PackedValue::pack(value);
        let new = self.is_new_inst(value);
        let index = self.func_index(f);
        let missing = if new {
            index.new_users.is_none()
        } else {
            index.users.is_none()
        };
        if missing {
            let built = self.user_index(f, new);
            let index = self.func_index(f);
            let slot = if new {
                &mut index.new_users
            } else {
                &mut index.users
            };
            *slot = Some(built);
        }
        let mut found: Vec<InstId> = self.funcs[f.index()]
            .names
            .as_ref()
            .and_then(|i| if new { &i.new_users } else { &i.users }.as_ref())
            .map(|u| u.candidates(packed.0).collect())
            .unwrap_or_default();
        found.sort_unstable();
        found.dedup();
        found.retain(|&i| {
            self.insts[i.index()].flags & REMOVED == 0
                && self.inst_ops(i).iter().any(|op| op.value == packed)
        });
        found
    }

    /// The (value, user) pairs of `f`'s local values: the new instructions' results if
    /// `new`, else the source values (parameters included).
    fn user_index(&self, f: FuncId, new: bool) -> crate::module::UserIndex {
        let mut sorted: Vec<u64> = Vec::new();
        for &block in &self.funcs[f.index()].blocks {
            for &inst in self.block_inst_ids(block) {
                for op in self.inst_ops(inst) {
                    let v = op.value.unpack();
                    if v.is_local() && self.is_new_inst(v) == new {
                        sorted.push(crate::module::use_key(op.value.0, inst));
                    }
                }
            }
        }
        sorted.sort_unstable();
        sorted.dedup();
        crate::module::UserIndex {
            sorted,
            extra: Vec::new(),
        }
    }

    fn is_new_inst(&self, value: Value) -> bool {
        // A parsed instruction (most operands) is told by its id, without a read of the arena
        // where it lies far from the new ones.
        matches!(value, Value::Inst(i) if i.0 >= self.first_new_inst
            && self.insts.get(i.index()).is_some_and(|d| d.flags & NEW != 0))
    }

    /// Records that `inst` uses `value`: in the function's user index where it exists, and
    /// as a source instruction a new one uses.
    fn note_use(&mut self, f: FuncId, inst: InstId, value: PackedValue) {
        let value_ = value.unpack();
        if !value_.is_local() {
            return;
        }
        if self.is_new_inst(value_) {
            if let Some(users) = self.funcs[f.index()]
                .names
                .as_mut()
                .and_then(|i| i.new_users.as_mut())
            {
                users.note(value.0, inst);
            }
            return;
        }
        if let Value::Inst(used) = value_ {
            if self.insts[inst.index()].flags & NEW != 0 {
                self.func_index(f).used_by_new.push(used.0);
            }
        }
        if let Some(users) = self.funcs[f.index()]
            .names
            .as_mut()
            .and_then(|i| i.users.as_mut())
        {
            users.note(value.0, inst);
        }
    }

    fn describe(&self, value: Value) -> String {
        let mut out = Vec::new();
        if let Some(op) = self.operand_of(value) {
            self.write_typed(None, op, &mut out);
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    fn type_name(&self, ty: TypeId) -> String {
        self.types.display(ty).to_string()
    }

    /// Refuses an edit that must see every use of `value` where text kept opaque by a sparse
    /// parse ([`Module::parse_shards_where`]) may name it: a value of a function with opaque
    /// instructions, unless it is new or its line was one the parse was asked for.
    fn uses_known(&self, value: Value) -> Result<(), EditError> {
        let known = match value {
            Value::Inst(i) => self
                .insts
                .get(i.index())
                .is_some_and(|d| d.flags & (USES_PARSED | NEW) != 0),
            _ => false,
        };
        match self.owner(value) {
            Some(f) if !known && self.funcs[f.index()].has_opaque => invalid(
                "the function was parsed sparsely: text kept unparsed may use the value \
                 (parse the module whole to edit it)",
            ),
            _ => Ok(()),
        }
    }

    /// Makes `new` (made by an edit) stand for `old` (a source instruction it replaces) in
    /// what is said about it: its [`crate::Inst::source_pos`] and [`crate::Inst::text`] are
    /// `old`'s, so that diagnostics and reports about a rewritten call name the line it came
    /// from. Printing is not affected.
    pub fn stand_in(&mut self, new: InstId, old: InstId) -> Result<(), EditError> {
        let d = *self.live_inst(new)?;
        if d.flags & NEW == 0 {
            return invalid("only an instruction made by an edit can stand for another");
        }
        let Some(origin) = self.insts.get(old.index()) else {
            return invalid("no such instruction");
        };
        // A stand-in of a stand-in names the source instruction.
        let old = if origin.flags & NEW != 0 {
            self.stand_ins.get(&old).copied().unwrap_or(old)
        } else {
            old
        };
        self.stand_ins.insert(new, old);
        Ok(())
    }

    /// Replaces every use of a local value (instruction result or parameter) in its function
    /// with `new`, debug records included. Returns how many instructions changed.
    pub fn replace_all_uses(&mut self, old: Value, new: Operand) -> Result<usize, EditError> {
        let Some(f) = self
            .owner(old)
            .filter(|_| matches!(old, Value::Inst(_) | Value::Arg(_)))
        else {
            return invalid("only instruction results and parameters can be replaced");
        };
        self.uses_known(old)?;
        let ty = self.value_type(old).unwrap_or(TypeId::VOID);
        if ty != new.ty {
            return Err(EditError::TypeMismatch {
                expected: self.type_name(ty),
                found: self.type_name(new.ty),
            });
        }
        let users = self.users_of(old);
        for &inst in &users {
            self.rewrite_operands(inst, old, new);
        }
        // Debug records are text: log the replacement for the printer.
        let data = &mut self.funcs[f.index()];
        data.record_subst.record(old, new.value);
        data.state |= BODY_EDITED;
        Ok(users.len())
    }

    /// Replaces the uses of `old` in one instruction. Returns how many operands changed.
    pub fn replace_uses_in(
        &mut self,
        inst: InstId,
        old: Value,
        new: Operand,
    ) -> Result<usize, EditError> {
        self.live_inst(inst)?;
        if !matches!(old, Value::Inst(_) | Value::Arg(_)) {
            return invalid("only instruction results and parameters can be replaced");
        }
        let ty = self.value_type(old).unwrap_or(TypeId::VOID);
        if ty != new.ty {
            return Err(EditError::TypeMismatch {
                expected: self.type_name(ty),
                found: self.type_name(new.ty),
            });
        }
        let count = self.rewrite_operands(inst, old, new);
        if count > 0 {
            let f = self.blocks[self.insts[inst.index()].block as usize].func;
            self.funcs[f.index()].state |= BODY_EDITED;
        }
        Ok(count)
    }

    fn rewrite_operands(&mut self, inst: InstId, old: Value, new: Operand) -> usize {
        let old = PackedValue::pack(old);
        let new = PackedOp::new(new);
        let d = self.insts[inst.index()];
        if !self.inst_ops(inst).iter().any(|op| op.value == old) {
            return 0;
        }
        let (start, len) = if d.flags & NEW != 0 {
            (d.ops, d.ops_len)
        } else if d.flags & OPS_EDITED != 0 {
            self.edited_ops
                .get(&inst)
                .copied()
                .unwrap_or((d.ops, d.ops_len))
        } else {
            // Copy on write: the source operands stay, for the printer to compare against.
            self.mark_ops_dead(d.ops, d.ops_len);
            let start = self.ops.len() as u32;
            let copy: Vec<PackedOp> = self.inst_ops(inst).to_vec();
            self.ops.extend(copy);
            self.edited_ops.insert(inst, (start, d.ops_len));
            self.insts[inst.index()].flags |= OPS_EDITED;
            let f = self.blocks[d.block as usize].func;
            self.func_index(f).ops_edited = true;
            (start, d.ops_len)
        };
        let mut count = 0;
        for op in &mut self.ops[start as usize..(start + len) as usize] {
            if op.value == old {
                *op = new;
                count += 1;
            }
        }
        if count > 0 {
            let f = self.blocks[d.block as usize].func;
            self.note_use(f, inst, new.value);
        }
        count
    }

    /// The live instructions other than `inst` that use its result (of type `ty`). Without a
    /// result nothing can use it: no need to look (for a new instruction that look is a scan
    /// of its function).
    pub(crate) fn other_users(&mut self, inst: InstId, ty: TypeId) -> Vec<InstId> {
        if ty == TypeId::VOID {
            return Vec::new();
        }
        self.users_of(Value::Inst(inst))
            .into_iter()
            .filter(|&u| u != inst)
            .collect()
    }

    /// Refuses to remove an opaque instruction, or one whose result text kept opaque may use.
    fn removable(&self, inst: InstId, d: &InstData) -> Result<(), EditError> {
        if d.flags & OPAQUE != 0 {
            return invalid("the instruction was kept as text by a sparse parse");
        }
        if d.ty == TypeId::VOID {
            return Ok(());
        }
        self.uses_known(Value::Inst(inst))
    }

    /// Removes an instruction. Refused while other instructions use its result.
    pub fn remove_inst(&mut self, inst: InstId) -> Result<(), EditError> {
        let d = *self.live_inst(inst)?;
        self.removable(inst, &d)?;
        let users = self.other_users(inst, d.ty);
        if !users.is_empty() {
            return Err(EditError::StillUsed {
                what: self.describe(Value::Inst(inst)),
                uses: users.len(),
            });
        }
        self.mark_removed(inst, d);
        Ok(())
    }

    /// Removes several instructions at once. Refused, and nothing removed, while an
    /// instruction outside the set uses one of them. One scan of their functions answers
    /// that, where [`Module::remove_inst`] for each would index every use in them.
    pub fn remove_insts(&mut self, insts: &[InstId]) -> Result<(), EditError> {
        let mut funcs: Vec<FuncId> = Vec::new();
        for &inst in insts {
            let d = *self.live_inst(inst)?;
            self.removable(inst, &d)?;
            let f = self.blocks[d.block as usize].func;
            if !funcs.contains(&f) {
                funcs.push(f);
            }
        }
        // The set as a bitmap over the span of its ids (one function's, usually), or as a
        // sorted list where that span is wide.
        let (Some(lo), Some(hi)) = (
            insts.iter().map(|i| i.0).min(),
            insts.iter().map(|i| i.0).max(),
        ) else {
            return Ok(());
        };
        let span = (hi - lo) as usize + 1;
        let dense = span <= 64 * insts.len() + 4096;
        let mut member = vec![false; if dense { span } else { 0 }];
        let mut sorted: Vec<u32> = Vec::new();
        if dense {
            for &inst in insts {
                member[(inst.0 - lo) as usize] = true;
            }
        } else {
            sorted = insts.iter().map(|i| i.0).collect();
            sorted.sort_unstable();
        }
        let is_member = |id: u32| {
            id >= lo
                && id <= hi
                && if dense {
                    member[(id - lo) as usize]
                } else {
                    sorted.binary_search(&id).is_ok()
                }
        };
        // Source text names every value a source operand uses: where the text names none of
        // the set, only the operands edits made can use them.
        let named = insts
            .iter()
            .any(|i| self.insts[i.index()].flags & NAMED_IN_TEXT != 0);
        let inst_tag = PackedValue::pack(Value::Inst(InstId(0))).0;
        let check = |user: InstId| -> Result<(), EditError> {
            let flags = self.insts[user.index()].flags;
            if flags & REMOVED != 0
                || !named && flags & (NEW | OPS_EDITED) == 0
                || is_member(user.0)
            {
                return Ok(());
            }
            let used = self.inst_ops(user).iter().find(|op| {
                op.value.0 & !crate::value::MAX_INDEX == inst_tag
                    && is_member(op.value.0 & crate::value::MAX_INDEX)
            });
            match used {
                Some(op) => Err(EditError::StillUsed {
                    what: self.describe(op.value.unpack()),
                    uses: 1,
                }),
                None => Ok(()),
            }
        };
        let any_new = insts.iter().any(|i| self.insts[i.index()].flags & NEW != 0);
        for f in funcs {
            // Unnamed in the text, with no source operand rewritten, and none of them new:
            // only the function's new instructions can use them, and each source value those
            // use was noted. When none is in the set, there is nothing to scan.
            let unused = !named
                && !any_new
                && self.funcs[f.index()]
                    .names
                    .as_deref()
                    .is_none_or(|i| !i.ops_edited && !i.used_by_new.iter().any(|&v| is_member(v)));
            if unused {
                continue;
            }
            for &block in &self.funcs[f.index()].blocks {
                for &user in self.block_inst_ids(block) {
                    check(user)?;
                }
            }
        }
        if any_new {
            // New instructions leave their blocks' lists in one pass per block: a search and a
            // shift for each would be quadratic in a long block (`--prefix` makes a new call
            // for each printf call; the lowering removes them all at once).
            let mut new_ids: Vec<u32> = Vec::new();
            let mut blocks: Vec<u32> = Vec::new();
            for &inst in insts {
                let d = &self.insts[inst.index()];
                if d.flags & NEW != 0 {
                    new_ids.push(inst.0);
                    blocks.push(d.block);
                }
            }
            new_ids.sort_unstable();
            blocks.sort_unstable();
            blocks.dedup();
            for block in blocks {
                self.block_inst_ids_mut(BlockId(block))
                    .retain(|i| new_ids.binary_search(&i.0).is_err());
            }
        }
        for &inst in insts {
            let d = *self.live_inst(inst)?;
            self.mark_unlinked_removed(inst, d);
        }
        Ok(())
    }

    fn mark_removed(&mut self, inst: InstId, d: InstData) {
        if d.flags & NEW != 0 {
            // Found from where the last builder inserted: what an edit takes back is usually
            // what it just added (a block's new terminator) or built in front of (a call
            // `--prefix` made, which the AMD lowering replaces).
            if let Some(at) = self.position_in_block(BlockId(d.block), inst) {
                self.block_inst_ids_mut(BlockId(d.block)).remove(at);
            }
        }
        self.mark_unlinked_removed(inst, d);
    }

    /// [`Module::mark_removed`] once a new instruction is out of its block's list (a source
    /// instruction stays there, for the printer to skip its text).
    fn mark_unlinked_removed(&mut self, inst: InstId, d: InstData) {
        let block = d.block as usize;
        let f = self.blocks[block].func;
        if d.flags & NEW == 0
            && self.funcs[f.index()].state & RENUMBER == 0
            // Asked first: usually answered without reading the source text.
            && self.implicit_number_follows(f, inst)
            && (d.flags & IMPLICIT_NUM != 0
                || d.flags & HAS_DEF != 0 && self.def_is_numbered(&d))
        {
            self.funcs[f.index()].state |= RENUMBER;
        }
        let (start, len) = self.inst_ops_range(inst);
        self.mark_ops_dead(start, len);
        self.insts[inst.index()].flags |= REMOVED;
        self.funcs[f.index()].state |= BODY_EDITED;
    }

    /// Notes that no live instruction reads the `len` operand slots from `start`.
    fn mark_ops_dead(&mut self, start: u32, len: u32) {
        let (start, end) = (start as usize, start as usize + len as usize);
        let words = end.div_ceil(64);
        if self.dead_ops.len() < words {
            self.dead_ops.resize(words, 0);
        }
        for k in start..end {
            self.dead_ops[k / 64] |= 1 << (k % 64);
        }
    }

    fn op_is_dead(&self, k: usize) -> bool {
        self.dead_ops
            .get(k / 64)
            .is_some_and(|w| w >> (k % 64) & 1 != 0)
    }

    /// Whether a value after `inst` in `f` takes its number silently (an instruction without
    /// `%N =`, a block without a label): only such a value would read back with another
    /// number once `inst`'s is gone. LLVM reads explicit numbers with gaps (`%24` then
    /// `%26`), so removing a numbered value renumbers nothing else unless one follows: the
    /// rest of the function keeps its text, as the source spelled it.
    fn implicit_number_follows(&self, f: FuncId, inst: InstId) -> bool {
        // Most functions (all of clang's) number every value explicitly, as the parser says:
        // one look each, without reading the function's blocks.
        self.funcs[f.index()].implicit_numbers && self.implicit_number_after(f, inst)
    }

    fn implicit_number_after(&self, f: FuncId, inst: InstId) -> bool {
        let mut after = false;
        for (k, &block) in self.funcs[f.index()].blocks.iter().enumerate() {
            // (A block made by an edit has no label in the text, but a name.)
            if after
                && k > 0
                && self.blocks[block.index()].label.is_none()
                && self.new_block_name(block).is_none()
            {
                return true;
            }
            for &i in self.block_inst_ids(block) {
                if after {
                    let flags = self.insts[i.index()].flags;
                    if flags & IMPLICIT_NUM != 0 && flags & (REMOVED | NEW) == 0 {
                        return true;
                    }
                } else if i == inst {
                    after = true;
                }
            }
        }
        false
    }

    fn def_is_numbered(&self, d: &InstData) -> bool {
        let mut lexer = Lexer::at(&self.src, d.start as usize);
        lexer.next_token().kind == Tok::LocalId
    }

    /// Replaces every use of `old`'s result with `new`, then removes `old`.
    pub fn replace_inst(&mut self, old: InstId, new: Operand) -> Result<(), EditError> {
        self.replace_all_uses(Value::Inst(old), new)?;
        self.remove_inst(old)
    }

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
            global: g,
            item,
            fn_ty,
            ret_attrs: (0, 0),
            params: (params_start, params.len() as u32),
            prefix: NO_TEXT,
            cconv: NO_TEXT,
            suffix: NO_TEXT,
            suffix_copy: NONE,
            is_def: false,
            body_start: NONE,
            header_end: NONE,
            close: NONE,
            blocks: Vec::new(),
            only_numbered_locals: false,
            implicit_numbers: false,
            has_opaque: false,
            state: 0,
            record_subst: Default::default(),
            names: None,
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

    fn push_item(&mut self, kind: ItemKind, text: Option<Vec<u8>>) -> u32 {
        let index = self.items.len() as u32;
        self.items.push(ItemData {
            kind,
            start: NONE,
            end: NONE,
            state: ITEM_NEW,
            text: text.map(Into::into),
        });
        index
    }

    /// Puts a new item after the item at `after` in print order (at the end when none).
    fn place_item(&mut self, item: u32, after: Option<usize>) {
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
                    if self.insts[inst.index()].flags & (REMOVED | OPAQUE) == 0
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
                    if self.insts[inst.index()].flags & (REMOVED | OPAQUE) == 0 {
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

    fn remove_item(&mut self, item: u32) {
        if let Some(it) = self.items.get_mut(item as usize) {
            if it.state == ITEM_NEW {
                self.order.retain(|&i| i != item);
            } else {
                it.state = ITEM_REMOVED;
            }
        }
    }

    /// Adds a numbered metadata node `!N = !{...}` (N one past the highest number in use) at
    /// the end of the module, and returns it.
    pub fn add_metadata(&mut self, operands: &[MdInput<'_>]) -> MdId {
        let mut ops = Vec::with_capacity(operands.len());
        for input in operands {
            ops.push(match *input {
                MdInput::Null => MdOp::Null,
                MdInput::Node(id) => MdOp::Node(id),
                MdInput::Value(op) => MdOp::Value(PackedOp::new(op)),
                MdInput::String(bytes) => {
                    self.byte_strings.push(bytes.into());
                    let index = self.byte_strings.len() as u32 - 1;
                    let id = MdId(self.md.nodes.len() as u32);
                    self.md
                        .nodes
                        .push(MdNodeData::new(MdKindData::NewString(index)));
                    MdOp::Node(id)
                }
            });
        }
        let start = self.md.ops.len() as u32;
        self.md.ops.extend(ops);
        let number = self.md.next_number;
        self.md.next_number = number.saturating_add(1);
        let id = MdId(self.md.nodes.len() as u32);
        self.md.nodes.push(MdNodeData {
            ops: start,
            len: operands.len() as u32,
            number,
            ..MdNodeData::new(MdKindData::Tuple)
        });
        self.md.by_number.insert(number, id);
        let mut text = format!("!{number} = ").into_bytes();
        self.write_md_node(id, &mut text);
        text.push(b'\n');
        let item = self.push_item(ItemKind::Md, Some(text));
        self.place_item(item, None);
        id
    }

    /// Adds `!name = !{!a, !b, ...}` at the end of the module.
    pub fn add_named_metadata(&mut self, name: &str, nodes: &[MdId]) -> Result<(), EditError> {
        if self.named_metadata(name).is_some() {
            return Err(EditError::NameTaken {
                name: format!("!{name}"),
            });
        }
        let mut text = Vec::new();
        crate::types::write_name(b'!', name.as_bytes(), false, &mut text);
        text.extend_from_slice(b" = !{");
        for (i, &node) in nodes.iter().enumerate() {
            if i > 0 {
                text.extend_from_slice(b", ");
            }
            self.write_md_ref(node, &mut text);
        }
        text.extend_from_slice(b"}\n");
        let item = self.push_item(ItemKind::NamedMd, Some(text));
        self.place_item(item, None);
        self.md
            .named
            .push((name.as_bytes().into(), nodes.to_vec(), item));
        Ok(())
    }

    /// Removes a named metadata (`!llvm.ident = ...`). Returns whether there was one.
    pub fn remove_named_metadata(&mut self, name: &str) -> bool {
        let Some(index) = self
            .md
            .named
            .iter()
            .position(|(n, _, _)| &**n == name.as_bytes())
        else {
            return false;
        };
        let (_, _, item) = self.md.named.remove(index);
        self.remove_item(item);
        true
    }

    /// Removes a numbered metadata node `!N = ...`, parsed or made by
    /// [`Module::add_metadata`]. Refused with [`EditError::StillUsed`] while anything the
    /// module prints still refers to `!N`: other nodes, named metadata, instruction
    /// attachments (`!dbg !N`, `!prof !N`, on source or new instructions), `metadata !N`
    /// operands, debug records, global and function attachments. What is kept as written
    /// (source instructions, nodes, globals, function headers) is searched for the `!N`
    /// token, so references in removed instructions and items no longer count; the search is
    /// one pass over the module's text.
    ///
    /// Nothing is renumbered: the other nodes keep their numbers (LLVM accepts gaps in
    /// metadata numbering), and [`Module::add_metadata`] does not reuse `N`. Afterwards
    /// [`Module::md_numbered`] no longer finds `N`; the removed node must not be given to
    /// later edits (it would print as a dangling `!N`).
    pub fn remove_metadata(&mut self, node: MdId) -> Result<(), EditError> {
        let Some(data) = self.md_data(node) else {
            return invalid("no such metadata node");
        };
        let number = data.number;
        if number == NONE || self.md.by_number.get(&number) != Some(&node) {
            return invalid("only a numbered metadata node still in the module can be removed");
        }
        // The item that defines it: a source node by its text (a run of them in a filtered
        // parse, split here), a new one by its number.
        let prefix = format!("!{number} = ");
        let item = self.order.iter().copied().find(|&i| {
            let it = &self.items[i as usize];
            it.kind == ItemKind::Md
                && match &it.text {
                    Some(text) => data.text.is_none() && text.starts_with(prefix.as_bytes()),
                    None => {
                        it.state != ITEM_REMOVED
                            && (it.start..it.end).contains(&data.text.start)
                            && !data.text.is_none()
                    }
                }
        });
        let item = item.map(|run| self.split_md_run(run, data.text));
        let Some(item) = item else {
            return invalid(format!("!{number} is referenced but not defined"));
        };
        let uses = self.metadata_uses(node, item);
        if uses > 0 {
            return Err(EditError::StillUsed {
                what: format!("!{number}"),
                uses,
            });
        }
        self.md.by_number.remove(&number);
        self.remove_item(item);
        Ok(())
    }

    /// The item of the definition whose node text is `text`, split out of the run of
    /// definitions `run` holds (see `Parser::module`): the run before it and the run after it
    /// become items of their own, in order.
    fn split_md_run(&mut self, run: u32, text: crate::inst::Text) -> u32 {
        let it = &self.items[run as usize];
        let (start, end) = (it.start, it.end);
        let own_end = crate::lexer::rest_of_line(&self.src, text.end).min(end);
        if start == text.start && own_end == end {
            return run;
        }
        let mut parts = Vec::with_capacity(3);
        if start < text.start {
            parts.push((start, text.start));
        }
        parts.push((text.start, own_end));
        if own_end < end {
            parts.push((own_end, end));
        }
        let Some(at) = self.order.iter().position(|&i| i == run) else {
            return run;
        };
        let mut own = run;
        let mut indices = Vec::with_capacity(parts.len());
        for (k, &(from, to)) in parts.iter().enumerate() {
            let index = if k == 0 {
                run
            } else {
                self.items.push(ItemData {
                    kind: ItemKind::Md,
                    start: from,
                    end: to,
                    state: ITEM_SOURCE,
                    text: None,
                });
                self.items.len() as u32 - 1
            };
            let item = &mut self.items[index as usize];
            (item.start, item.end) = (from, to);
            if from == text.start {
                own = index;
            }
            indices.push(index);
        }
        self.order.splice(at..at + 1, indices);
        own
    }

    /// How many references to the numbered `node` (defined by item `own`) the module prints.
    fn metadata_uses(&self, node: MdId, own: u32) -> usize {
        let number = self.md_data(node).map_or(NONE, |n| n.number);
        let mut uses = 0;
        for &i in &self.order {
            let it = &self.items[i as usize];
            if i == own || it.state == ITEM_REMOVED {
                continue;
            }
            match (it.kind, &it.text) {
                // Declared by an edit: a header without metadata.
                (ItemKind::Function(_), _) if it.state == ITEM_NEW => {}
                (ItemKind::Function(f), _) => {
                    // The source text minus removed instructions (their debug records stay),
                    // and the attachments and operands of new instructions.
                    let data = &self.funcs[f.index()];
                    let mut from = it.start as usize;
                    let edited = if data.state & BODY_EDITED != 0 {
                        &data.blocks[..]
                    } else {
                        &[]
                    };
                    for &block in edited {
                        for &inst in self.block_inst_ids(block) {
                            let d = &self.insts[inst.index()];
                            if d.flags & NEW != 0 {
                                if d.flags & REMOVED == 0 {
                                    uses += self.new_inst_md_uses(inst, node);
                                }
                            } else if d.flags & REMOVED != 0 {
                                uses += md_mentions(&self.src, from, d.start as usize, number);
                                from = d.end as usize;
                            }
                        }
                    }
                    uses += md_mentions(&self.src, from, it.end as usize, number);
                }
                (_, Some(text)) => uses += md_mentions(text, 0, text.len(), number),
                (_, None) => {
                    uses += md_mentions(&self.src, it.start as usize, it.end as usize, number)
                }
            }
        }
        uses
    }

    /// How many attachments and operands of a new instruction refer to `node`.
    fn new_inst_md_uses(&self, inst: InstId, node: MdId) -> usize {
        let d = &self.insts[inst.index()];
        let attached = self
            .md_attach
            .get(d.md as usize..d.md as usize + d.md_len as usize)
            .unwrap_or(&[])
            .iter()
            .filter(|&&(_, m)| self.md_refers(m, node, 0))
            .count();
        let operands = self
            .inst_ops(inst)
            .iter()
            .filter(
                |op| matches!(op.value.unpack(), Value::Metadata(m) if self.md_refers(m, node, 0)),
            )
            .count();
        attached + operands
    }

    /// Whether metadata `m` is the numbered `node` or an inline node mentioning it (a numbered
    /// node's own references are found in its text).
    fn md_refers(&self, m: MdId, node: MdId, depth: u32) -> bool {
        if m == node {
            return true;
        }
        let Some(data) = self.md_data(m) else {
            return false;
        };
        if data.number != NONE || depth > 64 {
            return false;
        }
        let number = self.md_data(node).map_or(NONE, |n| n.number);
        let ops = self
            .md
            .ops
            .get(data.ops as usize..(data.ops as usize).saturating_add(data.len as usize))
            .unwrap_or(&[]);
        ops.iter().any(|op| match *op {
            MdOp::Null => false,
            MdOp::Node(n) => self.md_refers(n, node, depth + 1),
            MdOp::Value(v) => {
                matches!(v.value.unpack(), Value::Metadata(n) if self.md_refers(n, node, depth + 1))
            }
            MdOp::Field(_, value) => {
                md_mentions(&self.src, value.start as usize, value.end as usize, number) > 0
            }
        })
    }

    /// Attaches `!kind !node` to an instruction made by an edit (source instructions keep
    /// their attachments as written).
    pub fn set_metadata(&mut self, inst: InstId, kind: &str, node: MdId) -> Result<(), EditError> {
        let d = *self.live_inst(inst)?;
        if d.flags & NEW == 0 {
            return invalid("metadata can only be attached to instructions made by edits");
        }
        let kind = self.md.kind_id(kind.as_bytes());
        let mut list: Vec<(u32, MdId)> = self
            .md_attach
            .get(d.md as usize..d.md as usize + d.md_len as usize)
            .unwrap_or(&[])
            .iter()
            .copied()
            .filter(|&(k, _)| k != kind)
            .collect();
        list.push((kind, node));
        if list.len() > usize::from(u8::MAX) {
            return invalid("too many metadata attachments");
        }
        let data = &mut self.insts[inst.index()];
        data.md = self.md_attach.len() as u32;
        data.md_len = list.len() as u8;
        self.md_attach.extend(list);
        Ok(())
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
        data.state |= HEADER_EDITED;
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
        self.funcs[f.index()].state |= HEADER_EDITED;
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

    fn new_const(&mut self, kind: ConstKind) -> crate::value::ConstId {
        let id = crate::value::ConstId(self.consts.len() as u32);
        self.consts.push(ConstData {
            kind,
            start: NONE,
            end: NONE,
        });
        id
    }

    /// An integer constant of type `ty`.
    pub fn const_int(&mut self, ty: TypeId, value: i64) -> Operand {
        let c = match self.new_ints.get(value) {
            Some(c) => c,
            None => {
                let c = self.new_const(ConstKind::Int(value));
                self.new_ints.insert(value, c);
                c
            }
        };
        Operand {
            ty,
            value: Value::Const(c),
        }
    }

    /// A floating constant of type `ty` (printed as LLVM prints doubles).
    pub fn const_f64(&mut self, ty: TypeId, value: f64) -> Operand {
        let c = self.new_const(ConstKind::F64(value.to_bits()));
        Operand {
            ty,
            value: Value::Const(c),
        }
    }

    /// `null` of a pointer type.
    pub fn const_null(&self, ty: TypeId) -> Operand {
        Operand {
            ty,
            value: Value::Const(crate::const_data::C_NULL),
        }
    }

    /// `zeroinitializer` of any type.
    pub fn const_zero(&self, ty: TypeId) -> Operand {
        Operand {
            ty,
            value: Value::Const(crate::const_data::C_ZERO),
        }
    }

    /// `poison` of any type.
    pub fn const_poison(&self, ty: TypeId) -> Operand {
        Operand {
            ty,
            value: Value::Const(crate::const_data::C_POISON),
        }
    }
}

impl<'m> Builder<'m> {
    /// The module being edited.
    pub fn module(&self) -> &Module {
        self.m
    }

    /// The type table (to make types while building).
    pub fn types_mut(&mut self) -> &mut crate::types::Types {
        &mut self.m.types
    }

    /// The function being edited.
    pub fn function(&self) -> FuncId {
        self.func
    }

    /// The instruction inserted last.
    pub fn last(&self) -> Option<InstId> {
        self.last
    }

    /// Attaches `!kind !node` to every instruction built from now on.
    pub fn attach(&mut self, kind: &str, node: MdId) -> &mut Self {
        let kind = self.m.md.kind_id(kind.as_bytes());
        self.attach.retain(|&(k, _)| k != kind);
        self.attach.push((kind, node));
        self
    }

    /// An integer constant of type `ty` (see [`Module::const_int`]).
    pub fn const_int(&mut self, ty: TypeId, value: i64) -> Operand {
        self.m.const_int(ty, value)
    }

    /// Gives every instruction built from now on the `!dbg` location of `inst` (a no-op when
    /// it has none): diagnostics and debuggers then point at the original call.
    pub fn debug_loc_from(&mut self, inst: InstId) -> &mut Self {
        if let Some(&kind) = self.m.md.kind_map.get(&b"dbg"[..]) {
            self.attach.retain(|&(k, _)| k != kind);
            // The node itself is not read: a location kept as text stays so.
            if let Some(node) = self.m.inst_attachment(inst, kind) {
                self.attach.push((kind, node));
            }
        }
        self
    }

    fn insert(
        &mut self,
        mut data: InstData,
        ops: impl IntoIterator<Item = Operand>,
        name: &str,
    ) -> Result<InstId, EditError> {
        if self.m.insts.len() >= crate::value::MAX_INDEX as usize {
            return invalid("too many instructions");
        }
        let id = InstId(self.m.insts.len() as u32);
        let first = self.m.ops.len();
        self.m.ops.extend(ops.into_iter().map(PackedOp::new));
        data.ops = first as u32;
        data.ops_len = (self.m.ops.len() - first) as u32;
        data.md = self.m.md_attach.len() as u32;
        data.md_len = self.attach.len() as u8;
        self.m.md_attach.extend_from_slice(&self.attach);
        data.flags = NEW;
        data.start = NONE;
        data.end = NONE;
        data.block = self.block.0;
        self.m.insts.push(data);
        self.m.first_new_inst = self.m.first_new_inst.min(id.0);
        if data.ty != TypeId::VOID {
            self.m.name_new_inst(self.func, id, name);
        }
        for k in first..self.m.ops.len() {
            let value = self.m.ops[k].value;
            // Constants and globals (most operands here) are nobody's local.
            if value.is_local() {
                self.m.note_use(self.func, id, value);
            }
        }
        if self.pending_len == PENDING {
            self.place_pending();
        }
        self.pending[self.pending_len] = id;
        self.pending_len += 1;
        self.index += 1;
        self.last = Some(id);
        Ok(id)
    }

    /// Puts the pending instructions into the block's list, where they were built.
    fn place_pending(&mut self) {
        if self.pending_len == 0 {
            return;
        }
        let pending = &self.pending[..self.pending_len];
        let insts = self.m.block_inst_ids_mut(self.block);
        let at = (self.index - pending.len()).min(insts.len());
        // Appended, then rotated into place: a splice's general machinery costs more than
        // moving the block's tail.
        insts.extend_from_slice(pending);
        insts[at..].rotate_right(pending.len());
        self.pending_len = 0;
        // Said once per batch rather than per instruction: nothing reads them while the
        // builder holds the module.
        self.m.func_index(self.func).cursor = Some((self.block, self.index));
        self.m.funcs[self.func.index()].state |= BODY_EDITED;
    }

    fn blank(opcode: Opcode, ty: TypeId) -> InstData {
        InstData {
            opcode,
            flags: 0,
            aux: 0,
            md_len: 0,
            ty,
            ops: 0,
            ops_len: 0,
            start: NONE,
            end: NONE,
            extra: NONE,
            block: 0,
            md: 0,
        }
    }

    fn result(&self, id: InstId) -> Operand {
        Operand {
            ty: self.m.insts[id.index()].ty,
            value: Value::Inst(id),
        }
    }

    fn align_code(align: u64) -> Result<u8, EditError> {
        if align == 0 {
            return Ok(0);
        }
        if !align.is_power_of_two() || align > 1 << 32 {
            return invalid(format!("alignment {align} is not a power of two"));
        }
        Ok(align.trailing_zeros() as u8 + 1)
    }

    fn want_ptr(&self, op: Operand) -> Result<u32, EditError> {
        match self.m.types.ptr_addrspace(op.ty) {
            Some(a) => Ok(a),
            None => Err(EditError::TypeMismatch {
                expected: "ptr".into(),
                found: self.m.type_name(op.ty),
            }),
        }
    }

    fn same(&self, a: TypeId, b: TypeId) -> Result<(), EditError> {
        if a == b {
            Ok(())
        } else {
            Err(EditError::TypeMismatch {
                expected: self.m.type_name(a),
                found: self.m.type_name(b),
            })
        }
    }

    /// `%name = alloca T, align A` in the data layout's alloca address space.
    pub fn alloca(&mut self, ty: TypeId, align: u64, name: &str) -> Result<Operand, EditError> {
        if self.m.layout.alloc_size(&self.m.types, ty).is_err() {
            return invalid(format!("cannot allocate `{}`", self.m.type_name(ty)));
        }
        let addrspace = self.m.layout.alloca_addrspace();
        let ptr = self.m.types.ptr(addrspace);
        let mut data = Self::blank(Opcode::Alloca, ptr);
        data.extra = ty.0;
        data.aux = Self::align_code(align)?;
        let id = self.insert(data, [], name)?;
        Ok(self.result(id))
    }

    /// `%name = load T, ptr %p, align A`.
    pub fn load(
        &mut self,
        ty: TypeId,
        ptr: Operand,
        align: u64,
        name: &str,
    ) -> Result<Operand, EditError> {
        self.want_ptr(ptr)?;
        let mut data = Self::blank(Opcode::Load, ty);
        data.aux = Self::align_code(align)?;
        let id = self.insert(data, [ptr], name)?;
        Ok(self.result(id))
    }

    /// `store T %v, ptr %p, align A`.
    pub fn store(&mut self, value: Operand, ptr: Operand, align: u64) -> Result<InstId, EditError> {
        self.want_ptr(ptr)?;
        let mut data = Self::blank(Opcode::Store, TypeId::VOID);
        data.aux = Self::align_code(align)?;
        self.insert(data, [value, ptr], "")
    }

    /// `%name = getelementptr [inbounds] T, ptr %base, indices...`.
    pub fn gep(
        &mut self,
        source: TypeId,
        base: Operand,
        indices: &[Operand],
        inbounds: bool,
        name: &str,
    ) -> Result<Operand, EditError> {
        let addrspace = self.want_ptr(base)?;
        for index in indices {
            if self.m.types.int_bits(index.ty).is_none() {
                return Err(EditError::TypeMismatch {
                    expected: "an integer index".into(),
                    found: self.m.type_name(index.ty),
                });
            }
        }
        let ty = self.m.types.ptr(addrspace);
        let mut data = Self::blank(Opcode::GetElementPtr, ty);
        data.extra = source.0;
        if inbounds {
            data.aux = GEP_INBOUNDS;
        }
        let ops = std::iter::once(base).chain(indices.iter().copied());
        let id = self.insert(data, ops, name)?;
        Ok(self.result(id))
    }

    /// `getelementptr inbounds T, ptr %base, i32 0, i32 field`: the address of a struct field.
    pub fn struct_gep(
        &mut self,
        source: TypeId,
        base: Operand,
        field: u32,
        name: &str,
    ) -> Result<Operand, EditError> {
        match self.m.types.get(source) {
            Type::Struct(s) if (field as usize) < s.fields.len() => {}
            _ => {
                return invalid(format!(
                    "`{}` has no field {field}",
                    self.m.type_name(source)
                ))
            }
        }
        let zero = self.m.const_int(TypeId::I32, 0);
        let index = self.m.const_int(TypeId::I32, i64::from(field));
        self.gep(source, base, &[zero, index], true, name)
    }

    /// A call to a function, with per-argument attributes. Returns the call instruction.
    pub fn call(
        &mut self,
        callee: FuncId,
        args: &[(Operand, &[Attr])],
        name: &str,
    ) -> Result<InstId, EditError> {
        let Some(f) = self.m.funcs.get(callee.index()) else {
            return invalid("no such function");
        };
        let fn_ty = f.fn_ty;
        let operand = self.m.global(f.global).operand();
        self.call_indirect(fn_ty, operand, args, name)
    }

    /// A call through any callee operand with an explicit function type.
    pub fn call_indirect(
        &mut self,
        fn_ty: TypeId,
        callee: Operand,
        args: &[(Operand, &[Attr])],
        name: &str,
    ) -> Result<InstId, EditError> {
        let Some((ret, params, vararg)) = self.m.types.function_parts(fn_ty) else {
            return invalid(format!(
                "`{}` is not a function type",
                self.m.type_name(fn_ty)
            ));
        };
        if args.len() < params.len() || !vararg && args.len() != params.len() {
            return invalid(format!(
                "`{}` takes {} argument(s), {} given",
                self.m.type_name(fn_ty),
                params.len(),
                args.len()
            ));
        }
        let mismatch = params
            .iter()
            .zip(args)
            .find(|(param, (arg, _))| **param != arg.ty)
            .map(|(param, (arg, _))| (*param, arg.ty));
        if let Some((param, arg)) = mismatch {
            self.same(param, arg)?;
        }
        let mut data = Self::blank(Opcode::Call, ret);
        let arg_attrs = self.m.attr_sets.len() as u32;
        for (_, attrs) in args {
            let start = self.m.attrs.len() as u32;
            self.m.attrs.extend_from_slice(attrs);
            self.m.attr_sets.push((start, attrs.len() as u32));
        }
        data.extra = self.m.calls.len() as u32;
        self.m.calls.push(CallData {
            fn_ty,
            arg_attrs,
            ret_attrs: (0, 0),
            nargs: args.len() as u32,
            cconv: NO_TEXT,
            fn_attrs: NO_TEXT,
            bundles: NO_TEXT,
            tail: NO_TEXT,
        });
        let ops = std::iter::once(callee).chain(args.iter().map(|(op, _)| *op));
        self.insert(data, ops, name)
    }

    /// A cast (`zext`, `sext`, `fpext`, `bitcast`, `addrspacecast`, `ptrtoint`, ...).
    pub fn cast(
        &mut self,
        opcode: Opcode,
        value: Operand,
        to: TypeId,
        name: &str,
    ) -> Result<Operand, EditError> {
        if !opcode.is_cast() {
            return invalid(format!("`{}` is not a cast", opcode.keyword()));
        }
        let id = self.insert(Self::blank(opcode, to), [value], name)?;
        Ok(self.result(id))
    }

    /// A two-operand arithmetic or bitwise operation.
    pub fn binary(
        &mut self,
        opcode: Opcode,
        a: Operand,
        b: Operand,
        name: &str,
    ) -> Result<Operand, EditError> {
        if !opcode.is_binary() {
            return invalid(format!("`{}` is not a binary operation", opcode.keyword()));
        }
        self.same(a.ty, b.ty)?;
        let id = self.insert(Self::blank(opcode, a.ty), [a, b], name)?;
        Ok(self.result(id))
    }

    /// `icmp pred T a, b`.
    pub fn icmp(
        &mut self,
        pred: Predicate,
        a: Operand,
        b: Operand,
        name: &str,
    ) -> Result<Operand, EditError> {
        self.same(a.ty, b.ty)?;
        if pred.0 >= 10 {
            return invalid("not an integer predicate");
        }
        let mut data = Self::blank(Opcode::ICmp, TypeId::I1);
        data.aux = pred.0;
        let id = self.insert(data, [a, b], name)?;
        Ok(self.result(id))
    }

    /// `select i1 c, T a, T b`.
    pub fn select(
        &mut self,
        cond: Operand,
        a: Operand,
        b: Operand,
        name: &str,
    ) -> Result<Operand, EditError> {
        self.same(TypeId::I1, cond.ty)?;
        self.same(a.ty, b.ty)?;
        let id = self.insert(Self::blank(Opcode::Select, a.ty), [cond, a, b], name)?;
        Ok(self.result(id))
    }

    /// `atomicrmw op ptr %p, T v ordering`.
    pub fn atomic_rmw(
        &mut self,
        op: RmwOp,
        ptr: Operand,
        value: Operand,
        ordering: Ordering,
        name: &str,
    ) -> Result<Operand, EditError> {
        self.want_ptr(ptr)?;
        let mut data = Self::blank(Opcode::AtomicRmw, value.ty);
        data.aux = op as u8;
        data.extra = ordering as u32;
        let id = self.insert(data, [ptr, value], name)?;
        Ok(self.result(id))
    }

    /// `extractvalue T agg, indices...`.
    pub fn extract_value(
        &mut self,
        agg: Operand,
        indices: &[u32],
        name: &str,
    ) -> Result<Operand, EditError> {
        let mut ty = agg.ty;
        for &i in indices {
            ty = match self.m.types.member(ty, u64::from(i)) {
                Some(t) => t,
                None => return invalid(format!("index {i} is out of range")),
            };
        }
        let mut data = Self::blank(Opcode::ExtractValue, ty);
        data.extra = self.m.index_lists.len() as u32;
        self.m.index_lists.push(indices.len() as u32);
        self.m.index_lists.extend_from_slice(indices);
        let id = self.insert(data, [agg], name)?;
        Ok(self.result(id))
    }

    /// `ret void` or `ret T v`.
    pub fn ret(&mut self, value: Option<Operand>) -> Result<InstId, EditError> {
        self.insert(Self::blank(Opcode::Ret, TypeId::VOID), value, "")
    }
}

/// How many `!number` tokens the tokens of `text` starting in `[from, to)` hold (strings and
/// comments do not count).
fn md_mentions(text: &[u8], from: usize, to: usize, number: u32) -> usize {
    let mut lexer = Lexer::at(text, from);
    let mut count = 0;
    loop {
        let t = lexer.next_token();
        if t.kind == Tok::Eof || t.start as usize >= to {
            return count;
        }
        if t.kind == Tok::MetadataId
            && crate::lexer::parse_u32(
                text.get(t.start as usize + 1..t.end as usize)
                    .unwrap_or(&[]),
            ) == Some(number)
        {
            count += 1;
        }
    }
}

/// Appends the suffix of a name hint's candidate `k` to the hint at the end of `out`: none
/// for 0, else `k`, after a `.` when the hint ends in a digit (`bb1.1`, not `bb11`).
fn push_suffix(out: &mut Vec<u8>, k: u64) {
    if k == 0 {
        return;
    }
    if out.last().is_some_and(u8::is_ascii_digit) {
        out.push(b'.');
    }
    crate::types::push_u64(out, k);
}
