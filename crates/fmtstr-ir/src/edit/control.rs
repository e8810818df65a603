//! Control-flow edits: new blocks, branches and phis.
//!
//! Input: the instruction to split a block before or to guard, and the blocks branches go to.
//! Output: new blocks, branches and phis in the function; or an [`EditError`] and no change.
//!
//! The printer writes a function's source instructions in source order, copying the text
//! between them; so an edit may change which block a source instruction is in, never the
//! order of source instructions. A split keeps it: the tail follows the head, and its label is
//! printed between them. New blocks are always named (`%fmtstr.only`, from a hint), never
//! numbered, so that numbered values and blocks keep their numbers.

use super::builder::{Builder, Position};
use super::invalid;
use crate::error::EditError;
use crate::inst::{InstFlags, Opcode, NONE};
use crate::module::{none_text, BlockData, FuncState, InstList, Module};
use crate::types::TypeId;
use crate::value::{BlockId, FuncId, InstId, Operand, Value};

/// The blocks and value of [`Module::guard`]: `head` ends in `br i1 cond, label %then, label
/// %tail`; `then` holds the guarded instruction and `br label %tail`; `tail` holds what
/// followed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The block the instruction was in, now ending in the conditional branch.
    pub head: BlockId,
    /// The block run only when the condition holds.
    pub then: BlockId,
    /// Where both paths meet.
    pub tail: BlockId,
    /// The phi standing for the instruction's result after the branch (where it was used).
    pub result: Option<Operand>,
}

/// One instruction of [`Module::guard_all`], with [`Module::guard`]'s arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuardItem<'a> {
    /// The instruction to put behind the branch.
    pub inst: InstId,
    /// The `i1` it runs under, computed before it.
    pub cond: Operand,
    /// The names of the new blocks and phi.
    pub names: GuardNames<'a>,
    /// Its result's value where it is skipped (needed when the result is used).
    pub otherwise: Option<Operand>,
}

/// The name hints of [`Module::guard`]'s new blocks and phi.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuardNames<'a> {
    /// The block holding the instruction.
    pub then: &'a str,
    /// The block after it.
    pub tail: &'a str,
    /// The phi of its result.
    pub result: &'a str,
}

impl Module {
    /// Splits `inst`'s block before `inst`, as LLVM's `splitBasicBlock` does: `inst` and what
    /// follows it (the terminator among them) move to a new block named from `hint`, placed
    /// right after; the old block ends in `br label %new`; the phis of the moved terminator's
    /// successors that named the old block as a predecessor name the new one. Returns the new
    /// block.
    ///
    /// Refused, changing nothing, before a phi or an exception-handling pad (they must stay at
    /// the top of their block) and in a block without a terminator.
    pub fn split_block_before(&mut self, inst: InstId, hint: &str) -> Result<BlockId, EditError> {
        let d = *self.live_inst(inst)?;
        if self.funcs[self.blocks[d.block as usize].func.index()].has_opaque {
            // The successors' phis, which name the old block, may be text kept opaque.
            return invalid("cannot split a block of a function parsed sparsely");
        }
        if matches!(
            d.opcode,
            Opcode::Phi
                | Opcode::LandingPad
                | Opcode::CatchPad
                | Opcode::CleanupPad
                | Opcode::CatchSwitch
        ) {
            return invalid(format!(
                "cannot split a block before a `{}`: it must stay at the top of its block",
                d.opcode.keyword()
            ));
        }
        let old = BlockId(d.block);
        let f = self.blocks[old.index()].func;
        let Some(terminator) = self.live_terminator(old) else {
            return invalid("cannot split a block that has no terminator");
        };
        let Some(at) = self.position_in_block(old, inst) else {
            return invalid("the instruction is not in its block");
        };
        let tail = self.block_inst_ids_mut(old).split_off(at);
        let new = self.new_block(f, old, hint, tail)?;
        // The first split of a block moves its source terminator; later ones move what
        // replaced it (a guard's branch), which no source comment names.
        self.new_blocks.moved_terminators.entry(old).or_insert(new);
        self.retarget_phis(terminator, old, new);
        self.builder(Position::End(old))?.br(new)?;
        Ok(new)
    }

    /// Sets the value coming in over edge `edge` (0-based) of a phi built by an edit: a loop's
    /// back edge, whose value is made after the phi. Refused for a source instruction, for any
    /// other instruction than a phi, for an edge it lacks and for a value of another type.
    pub fn set_phi_value(
        &mut self,
        phi: InstId,
        edge: usize,
        value: Operand,
    ) -> Result<(), EditError> {
        let d = *self.live_inst(phi)?;
        if !d.flags.contains(InstFlags::NEW) || d.opcode != Opcode::Phi {
            return invalid("only a phi built by an edit can have an incoming value set");
        }
        if 2 * edge >= d.ops_len as usize {
            return invalid(format!("the phi has no incoming edge {edge}"));
        }
        if value.ty != d.ty {
            return Err(EditError::TypeMismatch {
                expected: self.type_name(d.ty),
                found: self.type_name(value.ty),
            });
        }
        let slot = d.ops as usize + 2 * edge;
        self.ops[slot] = crate::value::PackedOp::new(value);
        let f = self.blocks[d.block as usize].func;
        self.note_use(f, phi, self.ops[slot].value);
        Ok(())
    }

    /// Adds an empty block named from `hint` right after `after` (in print order). The caller
    /// fills it (a builder at [`Position::End`]) and must end it with a terminator.
    pub fn add_block(&mut self, after: BlockId, hint: &str) -> Result<BlockId, EditError> {
        let Some(data) = self.blocks.get(after.index()) else {
            return invalid("no such block");
        };
        let f = data.func;
        self.new_block(f, after, hint, Vec::new())
    }

    /// Puts `inst` behind a branch on `cond` (an `i1` computed before it), as LLVM's
    /// `SplitBlockAndInsertIfThen` does for one instruction:
    ///
    /// ```text
    /// head:  ...  br i1 %cond, label %then, label %tail
    /// then:  inst                      ; run only where %cond holds
    ///        br label %tail
    /// tail:  %r = phi T [ inst, %then ], [ otherwise, %head ]   ; where inst's result is used
    ///        ...                       ; what followed inst, its uses now %r
    /// ```
    ///
    /// `otherwise` is the result's value where `inst` is skipped; it is needed only when the
    /// result is used. Refused, changing nothing, for a terminator, a phi or a pad, a
    /// condition that is not `i1`, or a used result without `otherwise` of its type.
    pub fn guard(
        &mut self,
        inst: InstId,
        cond: Operand,
        names: GuardNames<'_>,
        otherwise: Option<Operand>,
    ) -> Result<Guard, EditError> {
        let d = *self.live_inst(inst)?;
        let users = self.other_users(inst, d.ty);
        self.guard_with_users(inst, cond, names, otherwise, users)
    }

    /// [`Module::guard`] for many instructions, in the order they come in their blocks: the
    /// users of their results are found in one scan per function (for an instruction made
    /// by an edit, [`Module::guard`] scans its function each time), and they are guarded from
    /// the last back, so that each split moves only what lies before the next one's branch:
    /// linear in a function's size however many of its instructions are guarded. Stops at
    /// the first refusal (the items before it in the reverse order stay guarded).
    pub fn guard_all(&mut self, items: &[GuardItem<'_>]) -> Result<Vec<Guard>, EditError> {
        let mut wanted: crate::hash::FxHashMap<InstId, Vec<InstId>> = Default::default();
        let mut funcs: Vec<FuncId> = Vec::new();
        for item in items {
            let d = *self.live_inst(item.inst)?;
            if d.ty != TypeId::VOID {
                wanted.insert(item.inst, Vec::new());
                let f = self.blocks[d.block as usize].func;
                if !funcs.contains(&f) {
                    funcs.push(f);
                }
            }
        }
        for f in funcs {
            for &block in &self.funcs[f.index()].blocks {
                for &user in self.block_inst_ids(block) {
                    if self.insts[user.index()].flags.contains(InstFlags::REMOVED) {
                        continue;
                    }
                    for op in self.inst_ops(user) {
                        if let Value::Inst(used) = op.value.unpack() {
                            if used != user {
                                if let Some(list) = wanted.get_mut(&used) {
                                    if list.last() != Some(&user) {
                                        list.push(user);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let mut guards = Vec::with_capacity(items.len());
        for item in items.iter().rev() {
            let users = wanted.get(&item.inst).cloned().unwrap_or_default();
            guards.push(self.guard_with_users(
                item.inst,
                item.cond,
                item.names,
                item.otherwise,
                users,
            )?);
        }
        guards.reverse();
        Ok(guards)
    }

    /// [`Module::guard`] with the users of `inst`'s result known.
    fn guard_with_users(
        &mut self,
        inst: InstId,
        cond: Operand,
        names: GuardNames<'_>,
        otherwise: Option<Operand>,
        users: Vec<InstId>,
    ) -> Result<Guard, EditError> {
        let d = *self.live_inst(inst)?;
        if d.opcode.is_terminator() {
            return invalid("a terminator cannot be put behind a branch");
        }
        if cond.ty != TypeId::I1 {
            return Err(EditError::TypeMismatch {
                expected: "i1".into(),
                found: self.type_name(cond.ty),
            });
        }
        let otherwise = match otherwise {
            _ if users.is_empty() => None,
            Some(value) if value.ty == d.ty => Some(value),
            Some(value) => {
                return Err(EditError::TypeMismatch {
                    expected: self.type_name(d.ty),
                    found: self.type_name(value.ty),
                })
            }
            None => {
                return invalid(format!(
                    "{} is used: give the value it has where it is skipped",
                    self.describe(Value::Inst(inst))
                ))
            }
        };
        let head = BlockId(d.block);
        let then = self.split_block_before(inst, names.then)?;
        let Some(next) = self
            .block_inst_ids(then)
            .iter()
            .copied()
            .skip_while(|&i| i != inst)
            .skip(1)
            .find(|&i| !self.insts[i.index()].flags.contains(InstFlags::REMOVED))
        else {
            return invalid("the instruction is last in its block");
        };
        let tail = self.split_block_before(next, names.tail)?;
        // The head's `br label %then` becomes the conditional branch.
        if let Some(jump) = self.live_terminator(head) {
            self.remove_inst(jump)?;
        }
        self.builder(Position::End(head))?
            .cond_br(cond, then, tail)?;
        let mut result = None;
        if let Some(otherwise) = otherwise {
            let value = Operand {
                ty: d.ty,
                value: Value::Inst(inst),
            };
            let phi = self.builder(Position::Before(next))?.phi(
                d.ty,
                &[(value, then), (otherwise, head)],
                names.result,
            )?;
            for user in users {
                self.replace_uses_in(user, Value::Inst(inst), phi)?;
            }
            result = Some(phi);
        }
        Ok(Guard {
            head,
            then,
            tail,
            result,
        })
    }

    /// The last live instruction of `block`, when it is a terminator.
    fn live_terminator(&self, block: BlockId) -> Option<InstId> {
        self.block_inst_ids(block)
            .iter()
            .rev()
            .copied()
            .find(|&i| !self.insts[i.index()].flags.contains(InstFlags::REMOVED))
            .filter(|&i| self.insts[i.index()].opcode.is_terminator())
    }

    /// A new block of `f` named `hint` (or, when taken, `hint1`, `hint2`, ...), holding
    /// `insts`, placed after `after`.
    fn new_block(
        &mut self,
        f: FuncId,
        after: BlockId,
        hint: &str,
        insts: Vec<InstId>,
    ) -> Result<BlockId, EditError> {
        if self.blocks.len() >= crate::value::MAX_INDEX as usize {
            return invalid("too many blocks");
        }
        let id = BlockId(self.blocks.len() as u32);
        for &inst in &insts {
            self.insts[inst.index()].block = id.0;
        }
        self.blocks.push(BlockData {
            func: f,
            label: none_text(),
            numbered: false,
            line_end: NONE,
            insts: InstList::Owned(insts),
        });
        let start = self.exact_or_fresh_name(f, if hint.is_empty() { "bb" } else { hint });
        let name = self.new_names.take_pending(start);
        self.new_blocks.names.insert(id, name);
        let data = &mut self.funcs[f.index()];
        let at = data
            .blocks
            .iter()
            .position(|&b| b == after)
            .map_or(data.blocks.len(), |p| p + 1);
        data.blocks.insert(at, id);
        data.state.insert(FuncState::BODY_EDITED);
        Ok(id)
    }

    /// In the successors of `terminator`, the leading phis' incoming block `from` becomes `to`.
    fn retarget_phis(&mut self, terminator: InstId, from: BlockId, to: BlockId) {
        let mut successors: Vec<BlockId> = self
            .inst_ops(terminator)
            .iter()
            .filter_map(|op| match op.value.unpack() {
                Value::Block(b) => Some(b),
                _ => None,
            })
            .collect();
        successors.sort_unstable();
        successors.dedup();
        let label = Operand {
            ty: TypeId::LABEL,
            value: Value::Block(to),
        };
        for successor in successors {
            let phis: Vec<InstId> = self
                .block_inst_ids(successor)
                .iter()
                .copied()
                .filter(|&i| !self.insts[i.index()].flags.contains(InstFlags::REMOVED))
                .take_while(|&i| self.insts[i.index()].opcode == Opcode::Phi)
                .collect();
            for phi in phis {
                if self.rewrite_operands(phi, Value::Block(from), label) > 0 {
                    let f = self.blocks[successor.index()].func;
                    self.funcs[f.index()].state.insert(FuncState::BODY_EDITED);
                }
            }
        }
    }

    fn block_in(&self, block: BlockId, f: FuncId) -> Result<Operand, EditError> {
        match self.blocks.get(block.index()) {
            Some(data) if data.func == f => Ok(Operand {
                ty: TypeId::LABEL,
                value: Value::Block(block),
            }),
            _ => invalid("the block is not in the function being edited"),
        }
    }
}

impl Builder<'_> {
    /// `br label %target`.
    pub fn br(&mut self, target: BlockId) -> Result<InstId, EditError> {
        let target = self.m.block_in(target, self.func)?;
        self.insert(Self::blank(Opcode::Br, TypeId::VOID), [target], "")
    }

    /// `br i1 %cond, label %then, label %otherwise`.
    pub fn cond_br(
        &mut self,
        cond: Operand,
        then: BlockId,
        otherwise: BlockId,
    ) -> Result<InstId, EditError> {
        self.same(TypeId::I1, cond.ty)?;
        let then = self.m.block_in(then, self.func)?;
        let otherwise = self.m.block_in(otherwise, self.func)?;
        self.insert(
            Self::blank(Opcode::Br, TypeId::VOID),
            [cond, then, otherwise],
            "",
        )
    }

    /// `%name = phi T [ v, %block ], ...`: each value of type `ty`, each block a predecessor
    /// (the verifier's to judge). Build it at the top of its block.
    pub fn phi(
        &mut self,
        ty: TypeId,
        incoming: &[(Operand, BlockId)],
        name: &str,
    ) -> Result<Operand, EditError> {
        let mut ops = Vec::with_capacity(2 * incoming.len());
        for &(value, block) in incoming {
            self.same(ty, value.ty)?;
            ops.push(value);
            ops.push(self.m.block_in(block, self.func)?);
        }
        let id = self.insert(Self::blank(Opcode::Phi, ty), ops, name)?;
        Ok(self.result(id))
    }
}
