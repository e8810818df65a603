//! Uses of values: who uses a value, and replacing its uses.
//!
//! Input: a value and what stands for it. Output: the instructions that use it (from an index
//! built on the first question), or its uses rewritten, copy on write, with the debug records'
//! text told of the replacement; or an [`EditError`] where a use may hide in text no parse
//! read.

use super::invalid;
use crate::error::EditError;
use crate::inst::InstFlags;
use crate::module::{FuncState, Module};
use crate::types::TypeId;
use crate::value::{FuncId, InstId, Operand, PackedOp, PackedValue, Value};

impl Module {
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
            !self.insts[i.index()].flags.contains(InstFlags::REMOVED)
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
            && self.insts.get(i.index()).is_some_and(|d| d.flags.contains(InstFlags::NEW)))
    }

    /// Records that `inst` uses `value`: in the function's user index where it exists, and
    /// as a source instruction a new one uses.
    pub(super) fn note_use(&mut self, f: FuncId, inst: InstId, value: PackedValue) {
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
            if self.insts[inst.index()].flags.contains(InstFlags::NEW) {
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

    pub(super) fn describe(&self, value: Value) -> String {
        let mut out = Vec::new();
        if let Some(op) = self.operand_of(value) {
            self.write_typed(None, op, &mut out);
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    pub(super) fn type_name(&self, ty: TypeId) -> String {
        self.types.display(ty).to_string()
    }

    /// Refuses an edit that must see every use of `value` where text kept opaque by a sparse
    /// parse ([`Module::parse_shards_where`]) may name it: a value of a function with opaque
    /// instructions, unless it is new or its line was one the parse was asked for.
    pub(super) fn uses_known(&self, value: Value) -> Result<(), EditError> {
        let known = match value {
            Value::Inst(i) => self
                .insts
                .get(i.index())
                .is_some_and(|d| d.flags.intersects(InstFlags::USES_PARSED | InstFlags::NEW)),
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
        if !d.flags.contains(InstFlags::NEW) {
            return invalid("only an instruction made by an edit can stand for another");
        }
        let Some(origin) = self.insts.get(old.index()) else {
            return invalid("no such instruction");
        };
        // A stand-in of a stand-in names the source instruction.
        let old = if origin.flags.contains(InstFlags::NEW) {
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
        data.state.insert(FuncState::BODY_EDITED);
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
            self.funcs[f.index()].state.insert(FuncState::BODY_EDITED);
        }
        Ok(count)
    }

    pub(super) fn rewrite_operands(&mut self, inst: InstId, old: Value, new: Operand) -> usize {
        let old = PackedValue::pack(old);
        let new = PackedOp::new(new);
        let d = self.insts[inst.index()];
        if !self.inst_ops(inst).iter().any(|op| op.value == old) {
            return 0;
        }
        let (start, len) = if d.flags.contains(InstFlags::NEW) {
            (d.ops, d.ops_len)
        } else if d.flags.contains(InstFlags::OPS_EDITED) {
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
            self.insts[inst.index()].flags.insert(InstFlags::OPS_EDITED);
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
}
