//! Atomic instructions: from an `atomicrmw`, `cmpxchg`, atomic load or store, or NVVM atomic
//! intrinsic call, its [`AtomicPlan`] (the mnemonic llc selects, or the libatomic call it
//! makes instead). The selection itself is the `atomics` module's; this part reads the
//! instruction: its type, its pointer's state space, whether llc expands it into a loop.

use super::*;

impl Planner<'_> {
    /// Whether `inst` calls `llvm.memcpy`, `llvm.memmove` or `llvm.memset` with a length
    /// that is not a constant, which NVPTXLowerAggrCopies turns into a loop guarded by a
    /// branch. Measured on LLVM's b52037.ll: with such a length llc numbers the function's
    /// call sequences in another order than its blocks' (constant lengths, 203 or 256, keep
    /// the order).
    pub(super) fn expands_into_loop(&self, inst: InstId) -> bool {
        let m = self.m;
        let Some(call) = m.inst(inst).as_call() else {
            return false;
        };
        let Some(callee) = call.called_function() else {
            return false;
        };
        let name = m.function(callee).name_str();
        if !["llvm.memcpy.", "llvm.memmove.", "llvm.memset."]
            .iter()
            .any(|p| name.starts_with(p))
        {
            return false;
        }
        match call.args().nth(2).map(|a| a.operand.value) {
            Some(Value::Const(c)) => m.int_value(c).is_none(),
            _ => true,
        }
    }

    /// A call to an NVVM atomic intrinsic: `None` when the call is something else, `Some(None)`
    /// (and a finding) when the planner has no measurement for the intrinsic.
    pub(super) fn intrinsic_atomic(
        &mut self,
        f: FuncId,
        inst: InstId,
    ) -> Option<Option<AtomicPlan>> {
        let m = self.m;
        let view = m.inst(inst);
        let call = view.as_call()?;
        let callee = call.called_function()?;
        let name = m.function(callee).name_str().into_owned();
        if !name.starts_with("llvm.nvvm.atomic.") {
            return None;
        }
        let pointer = call.args().next().map(|a| a.operand.ty);
        let space = match pointer.and_then(|t| m.types().ptr_addrspace(t)) {
            Some(1) => "global",
            Some(3) => "shared",
            _ => "",
        };
        let Some(mnemonic) = atomics::select_intrinsic(&name, space, &self.config) else {
            self.finding(
                f,
                Some(inst),
                format!("no measurement for the atomic intrinsic @{name}"),
            );
            return Some(None);
        };
        let pos = view.source_pos();
        Some(Some(AtomicPlan {
            line: pos.map_or(0, |p| p.line),
            column: pos.map_or(0, |p| p.column),
            operation: format!("call @{name}"),
            value_type: m.types().display(view.ty()).to_string(),
            space: if space.is_empty() { "generic" } else { space }.to_string(),
            lowering: AtomicLowering::Native,
            mnemonic: Some(mnemonic),
            libcall: None,
            note: None,
        }))
    }

    /// An atomic `load` or `store` wider than 64 bits: a call to `__atomic_load_16` or
    /// `__atomic_store_16` (measured); a finding for wider ones.
    pub(super) fn wide_atomic_access(&mut self, f: FuncId, inst: InstId) -> Option<AtomicPlan> {
        let m = self.m;
        let view = m.inst(inst);
        let text = String::from_utf8_lossy(view.text());
        if !text.split_whitespace().any(|w| w == "atomic") {
            return None;
        }
        let (ty, name, operation) = if view.opcode() == Opcode::Load {
            (view.ty(), "__atomic_load_16", "load atomic")
        } else {
            (view.operand(0)?.ty, "__atomic_store_16", "store atomic")
        };
        let bits = crate::target_layout().store_size(m.types(), ty).ok()? * 8;
        if bits <= 64 {
            return None;
        }
        if self.llc22() {
            self.finding(
                f,
                Some(inst),
                format!("llc 22 does not call libatomic for an atomic {bits}-bit {operation} as llc 19 does; not measured"),
            );
            return None;
        }
        if bits != 128 {
            self.finding(
                f,
                Some(inst),
                format!("no measurement for an atomic {bits}-bit {operation}"),
            );
            return None;
        }
        let call = self.libcall(name, inst);
        self.pending_calls.push(call);
        let pos = view.source_pos();
        Some(AtomicPlan {
            line: pos.map_or(0, |p| p.line),
            column: pos.map_or(0, |p| p.column),
            operation: operation.to_string(),
            value_type: m.types().display(ty).to_string(),
            space: "generic".into(),
            lowering: AtomicLowering::Libcall,
            mnemonic: None,
            libcall: Some(name.to_string()),
            note: None,
        })
    }

    pub(super) fn atomic(&mut self, f: FuncId, kernel: bool, inst: InstId) -> Option<AtomicPlan> {
        let m = self.m;
        let view = m.inst(inst);
        let text = String::from_utf8_lossy(view.text()).into_owned();
        let (operation, value_ty) = if view.opcode() == Opcode::CmpXchg {
            ("cmpxchg".to_string(), view.operand(1)?.ty)
        } else {
            let word = text
                .split_whitespace()
                .skip_while(|w| *w != "atomicrmw")
                .skip(1)
                .find(|w| *w != "volatile")
                .unwrap_or("")
                .to_string();
            (word, view.ty())
        };
        let pointer = view.operand(0)?;
        let mut number = pointer_space(m, kernel, pointer, 0);
        // llc 22 moves allocas to the local space before selection; llc 19 leaves them
        // generic.
        if number == 0 && self.llc22() && llc22::from_alloca(m, pointer, 0) {
            number = 5;
        }
        let space = match number {
            0 => "",
            1 => "global",
            3 => "shared",
            // The shared memory of the other blocks of a cluster, which LLVM 19 lacks.
            7 if self.llc22() => "shared::cluster",
            // NVPTXAtomicLower rewrites only `atomicrmw`: llc 22 selects a cmpxchg on local
            // memory as `atom.local.cas`.
            5 if self.llc22() && view.opcode() == Opcode::CmpXchg => "local",
            5 => {
                // NVPTXAtomicLower: an atomic on local memory (private to the thread) becomes
                // an ordinary load, operation and store.
                let pos = view.source_pos();
                return Some(AtomicPlan {
                    line: pos.map_or(0, |p| p.line),
                    column: pos.map_or(0, |p| p.column),
                    operation: if operation == "cmpxchg" {
                        operation
                    } else {
                        format!("atomicrmw {operation}")
                    },
                    value_type: m.types().display(value_ty).to_string(),
                    space: "local".into(),
                    lowering: AtomicLowering::Local,
                    mnemonic: None,
                    libcall: None,
                    note: None,
                });
            }
            other => {
                self.finding(
                    f,
                    Some(inst),
                    format!("an atomic in address space {other} is not planned"),
                );
                return None;
            }
        };
        let atomic_ty = match m.types().get(value_ty) {
            Type::Int { bits } => atomics::AtomicType::Int(bits),
            Type::Ptr { addrspace } => {
                atomics::AtomicType::Int(crate::target_layout().pointer(addrspace).size_bits)
            }
            Type::Half => atomics::AtomicType::Half,
            Type::BFloat => atomics::AtomicType::BFloat,
            Type::Float => atomics::AtomicType::Float,
            Type::Double => atomics::AtomicType::Double,
            Type::Vector { .. } => atomics::AtomicType::Vector(
                (crate::target_layout()
                    .store_size(m.types(), value_ty)
                    .unwrap_or(0)
                    * 8) as u32,
            ),
            _ => atomics::AtomicType::Int(0),
        };
        let op_key = if operation == "cmpxchg" {
            "cmpxchg"
        } else {
            operation.as_str()
        };
        if self.llc22() && matches!(atomic_ty, atomics::AtomicType::Int(bits) if bits > 64) {
            self.finding(f, Some(inst), "llc 22 lowers 128-bit atomics to `atom.cas.b128` (PTX 8.3 and sm_90) and rejects them below (\"unsupported cmpxchg\"), where llc 19 calls libatomic; not measured".to_string());
            return None;
        }
        let Some(selection) = atomics::select(op_key, atomic_ty, space, &self.config) else {
            self.finding(
                f,
                Some(inst),
                format!(
                    "no measurement for `{operation}` on `{}`",
                    m.types().display(value_ty)
                ),
            );
            return None;
        };
        let mut selection = selection;
        if self.llc22() && (op_key == "cmpxchg" || selection.lowering == AtomicLowering::CasLoop) {
            // A cmpxchg on a byte or a 16-bit word is a loop on the containing word.
            let partword = op_key == "cmpxchg" && selection.lowering == AtomicLowering::CasLoop;
            match llc22::cas_qualifiers(&text, partword, &self.config) {
                Ok(q) => {
                    selection.mnemonic = selection
                        .mnemonic
                        .map(|m| m.replacen("atom.", &format!("atom.{q}"), 1));
                }
                Err(why) => {
                    self.finding(f, Some(inst), why);
                    return None;
                }
            }
        }
        if let Some(name) = selection.libcall {
            // The runtime call is a call sequence of its own.
            let call = self.libcall(name, inst);
            self.pending_calls.push(call);
        }
        let pos = view.source_pos();
        Some(AtomicPlan {
            line: pos.map_or(0, |p| p.line),
            column: pos.map_or(0, |p| p.column),
            operation: if operation == "cmpxchg" {
                operation
            } else {
                format!("atomicrmw {operation}")
            },
            value_type: m.types().display(value_ty).to_string(),
            space: if space.is_empty() { "generic" } else { space }.to_string(),
            lowering: selection.lowering,
            mnemonic: selection.mnemonic,
            libcall: selection.libcall.map(str::to_string),
            note: selection.note,
        })
    }
}

/// The state space llc infers for an atomic's pointer: 1 global, 3 shared, 0 generic.
fn pointer_space(m: &Module, kernel: bool, op: Operand, depth: u32) -> u32 {
    if let Some(a) = m.types().ptr_addrspace(op.ty) {
        if a != 0 {
            return a;
        }
    }
    if depth > 32 {
        return 0;
    }
    match op.value {
        Value::Inst(i) => {
            let inst = m.inst(i);
            match inst.opcode() {
                Opcode::GetElementPtr | Opcode::BitCast | Opcode::AddrSpaceCast => inst
                    .operand(0)
                    .map_or(0, |base| pointer_space(m, kernel, base, depth + 1)),
                _ => 0,
            }
        }
        Value::Arg(a) => {
            let arg = m.arg(a);
            // NVPTXLowerArgs: a kernel's pointer parameters point to global memory (CUDA).
            if kernel && arg.byval().is_none() {
                1
            } else {
                0
            }
        }
        Value::Global(g) => match m.global(g).as_function() {
            Some(_) => 0,
            // Globals in the generic space are moved to the global space by llc.
            None => 1,
        },
        Value::Const(c) => match m.constant(c) {
            Constant::Expr {
                opcode: Opcode::GetElementPtr | Opcode::BitCast | Opcode::AddrSpaceCast,
                operands,
                ..
            } => operands
                .first()
                .map_or(0, |&base| pointer_space(m, kernel, base, depth + 1)),
            _ => 0,
        },
        _ => 0,
    }
}
