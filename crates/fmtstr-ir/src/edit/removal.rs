//! Removing instructions.
//!
//! Input: instructions to remove. Output: the instructions marked removed (and the function
//! marked for renumbering where a numbered value goes); or an [`EditError`], with nothing
//! removed, while anything outside the set still uses one of them.

use super::invalid;
use crate::error::EditError;
use crate::inst::{InstData, InstFlags};
use crate::lexer::{Lexer, Tok};
use crate::module::{FuncState, Module};
use crate::types::TypeId;
use crate::value::{BlockId, FuncId, InstId, Operand, PackedValue, Value};

impl Module {
    /// Refuses to remove an opaque instruction, or one whose result text kept opaque may use.
    fn removable(&self, inst: InstId, d: &InstData) -> Result<(), EditError> {
        if d.flags.contains(InstFlags::OPAQUE) {
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
        let named = insts.iter().any(|i| {
            self.insts[i.index()]
                .flags
                .contains(InstFlags::NAMED_IN_TEXT)
        });
        let inst_tag = PackedValue::pack(Value::Inst(InstId(0))).0;
        let check = |user: InstId| -> Result<(), EditError> {
            let flags = self.insts[user.index()].flags;
            if flags.contains(InstFlags::REMOVED)
                || !named && !flags.intersects(InstFlags::NEW | InstFlags::OPS_EDITED)
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
        let any_new = insts
            .iter()
            .any(|i| self.insts[i.index()].flags.contains(InstFlags::NEW));
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
                if d.flags.contains(InstFlags::NEW) {
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
        if d.flags.contains(InstFlags::NEW) {
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
        if !d.flags.contains(InstFlags::NEW)
            && !self.funcs[f.index()].state.contains(FuncState::RENUMBER)
            // Asked first: usually answered without reading the source text.
            && self.implicit_number_follows(f, inst)
            && (d.flags.contains(InstFlags::IMPLICIT_NUM)
                || d.flags.contains(InstFlags::HAS_DEF) && self.def_is_numbered(&d))
        {
            self.funcs[f.index()].state.insert(FuncState::RENUMBER);
        }
        let (start, len) = self.inst_ops_range(inst);
        self.mark_ops_dead(start, len);
        self.insts[inst.index()].flags.insert(InstFlags::REMOVED);
        self.funcs[f.index()].state.insert(FuncState::BODY_EDITED);
    }

    /// Notes that no live instruction reads the `len` operand slots from `start`.
    pub(super) fn mark_ops_dead(&mut self, start: u32, len: u32) {
        let (start, end) = (start as usize, start as usize + len as usize);
        let words = end.div_ceil(64);
        if self.dead_ops.len() < words {
            self.dead_ops.resize(words, 0);
        }
        for k in start..end {
            self.dead_ops[k / 64] |= 1 << (k % 64);
        }
    }

    pub(super) fn op_is_dead(&self, k: usize) -> bool {
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
                    if flags.contains(InstFlags::IMPLICIT_NUM)
                        && !flags.intersects(InstFlags::REMOVED | InstFlags::NEW)
                    {
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
}
