//! The instruction builder: new instructions at a position, their operand types checked.
//!
//! Input: a [`Position`] in a function and the operands of each instruction. Output: new
//! instructions with fresh names, placed in their block together when the [`Builder`] is
//! dropped; or an [`EditError`] (a type that does not fit) and nothing inserted.

use super::invalid;
use crate::error::EditError;
use crate::inst::{Attr, CallData, InstData, InstFlags, Opcode, Predicate, NONE, NO_TEXT};
use crate::module::{FuncState, Module};
use crate::types::{Type, TypeId};
use crate::value::{BlockId, FuncId, InstId, MdId, Operand, PackedOp, Value};

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
    pub(super) m: &'m mut Module,
    pub(super) func: FuncId,
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

impl Module {
    /// Makes room for about `insts` new instructions with `ops` operands in all, `calls` of
    /// them calls, before a pass adds them: one reallocation of each arena at most, and no
    /// capacity beyond what the pass asked for (a growing arena doubles).
    pub fn reserve_new(&mut self, insts: usize, ops: usize, calls: usize) {
        self.insts.reserve_exact(insts);
        self.ops.reserve_exact(ops);
        self.calls.reserve_exact(calls);
    }

    pub(super) fn live_inst(&self, inst: InstId) -> Result<&InstData, EditError> {
        match self.insts.get(inst.index()) {
            Some(d) if !d.flags.contains(InstFlags::REMOVED) => Ok(d),
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
                        d.opcode != Opcode::Alloca && !d.flags.contains(InstFlags::REMOVED)
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
    pub(super) fn position_in_block(&self, block: BlockId, inst: InstId) -> Option<usize> {
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

    pub(super) fn insert(
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
        data.flags = InstFlags::NEW;
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
        self.m.funcs[self.func.index()]
            .state
            .insert(FuncState::BODY_EDITED);
    }

    pub(super) fn blank(opcode: Opcode, ty: TypeId) -> InstData {
        InstData {
            opcode,
            flags: InstFlags::EMPTY,
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

    pub(super) fn result(&self, id: InstId) -> Operand {
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

    pub(super) fn same(&self, a: TypeId, b: TypeId) -> Result<(), EditError> {
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
            data.aux = InstData::AUX_GEP_INBOUNDS;
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
