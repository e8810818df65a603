//! Instructions: opcodes, operands, result types, and calls with their attributes.
//!
//! Input: the tokens of one instruction (a line, or several for a `switch` or a
//! `landingpad`). Output: its record and its operands in the module's arena; what no pass
//! reads (flags, operand bundles, function attributes) stays as source spans.

use super::functions::is_cconv;
use super::tokens::text;
use super::{PResult, Parser};
use crate::inst::{CallData, InstData, InstFlags, Opcode, Predicate, Text, NONE, NO_TEXT, RMW_OPS};
use crate::lexer::{name_key, NameKey, Tok};
use crate::types::{Type, TypeData, TypeId};
use crate::value::{BlockId, InstId, PackedOp, PackedValue, Value};

const FAST_MATH: &[&[u8]] = &[
    b"fast",
    b"nnan",
    b"ninf",
    b"nsz",
    b"arcp",
    b"contract",
    b"afn",
    b"reassoc",
];

/// The flags a cast may carry: integer ones and fast-math ones.
const CAST_FLAGS: &[&[u8]] = &[
    b"nuw",
    b"nsw",
    b"nneg",
    b"fast",
    b"nnan",
    b"ninf",
    b"nsz",
    b"arcp",
    b"contract",
    b"afn",
    b"reassoc",
];

impl<'s> Parser<'s> {
    pub(super) fn typed_value(&mut self) -> PResult<PackedOp> {
        let ty = self.parse_type()?;
        let value = self.parse_value(ty)?;
        Ok(PackedOp { ty, value })
    }

    pub(super) fn push_typed(&mut self) -> PResult<PackedOp> {
        let op = self.typed_value()?;
        self.scratch.push(op);
        Ok(op)
    }

    #[inline]
    fn push_value(&mut self, ty: TypeId) -> PResult<PackedOp> {
        let value = self.parse_value(ty)?;
        let op = PackedOp { ty, value };
        self.scratch.push(op);
        Ok(op)
    }

    /// Moves `scratch[mark..]` into the operand arena; returns (start, len).
    pub(super) fn flush(&mut self, mark: usize) -> PResult<(u32, u32)> {
        self.check_capacity(self.m.ops.len() + self.scratch.len(), "operands")?;
        let start = self.m.ops.len() as u32;
        let len = self.scratch.len().saturating_sub(mark) as u32;
        let ops = self.scratch.get(mark..).unwrap_or(&[]);
        if let [op] = ops {
            self.m.ops.push(*op);
        } else {
            self.m.ops.extend_from_slice(ops);
        }
        self.scratch.truncate(mark);
        Ok((start, len))
    }

    fn comma_then(&mut self, w: &[u8]) -> bool {
        if self.tok.kind != Tok::Comma {
            return false;
        }
        let next = self.peek();
        next.kind == Tok::Ident && self.text(next) == w
    }

    fn align_suffix(&mut self, inst: &mut InstData) -> PResult<()> {
        if self.comma_then(b"align") {
            self.bump();
            self.bump();
            let start = self.tok.start;
            let n = self.expect_u64("an alignment")?;
            if !n.is_power_of_two() || n > 1 << 32 {
                return self.error_at(start, "alignment is not a power of two".into());
            }
            inst.aux = n.trailing_zeros() as u8 + 1;
        }
        Ok(())
    }

    /// Skips fast-math flags. Most instructions have none and go on with a type (`i32`,
    /// `ptr`, `<`, ...): a first byte no flag starts with settles that without compares.
    #[inline]
    fn skip_fast_math(&mut self) {
        if self.tok.kind == Tok::Ident
            && matches!(
                self.text(self.tok).first(),
                Some(b'f' | b'n' | b'a' | b'c' | b'r')
            )
        {
            self.skip_words(FAST_MATH);
        }
    }

    /// Skips a cast's flags ([`CAST_FLAGS`]); as for fast-math flags, a first byte no flag
    /// starts with settles the usual case (a type) without compares.
    #[inline]
    fn skip_cast_flags(&mut self) {
        if self.tok.kind == Tok::Ident
            && matches!(
                self.text(self.tok).first(),
                Some(b'f' | b'n' | b'a' | b'c' | b'r')
            )
        {
            self.skip_words(CAST_FLAGS);
        }
    }

    pub(super) fn skip_words(&mut self, words: &[&[u8]]) {
        while self.tok.kind == Tok::Ident && words.contains(&self.text(self.tok)) {
            self.bump();
        }
    }

    fn vector_like(&mut self, ty: TypeId, elem: TypeId) -> TypeId {
        match self.m.types.get(ty) {
            Type::Vector { len, scalable, .. } => self.m.types.intern(TypeData::Vector {
                len,
                elem,
                scalable,
            }),
            _ => elem,
        }
    }

    pub(super) fn instruction(&mut self, block: BlockId) -> PResult<InstId> {
        let start = self.tok.start;
        self.check_capacity(self.m.insts.len(), "instructions")?;
        let id = InstId(self.m.insts.len() as u32);
        let def = if matches!(self.tok.kind, Tok::LocalVar | Tok::LocalId) {
            let t = self.bump();
            self.expect(Tok::Equal, "'='")?;
            Some(t)
        } else {
            None
        };
        let op_tok = self.tok;
        let opcode = match self.tok.kind {
            Tok::Ident => Opcode::from_keyword(self.text(op_tok)),
            _ => None,
        };
        let Some(opcode) = opcode else {
            return self.expected("an instruction opcode");
        };
        let mut inst = InstData {
            opcode,
            flags: InstFlags::EMPTY,
            aux: 0,
            md_len: 0,
            ty: TypeId::VOID,
            ops: 0,
            ops_len: 0,
            start,
            end: 0,
            extra: NONE,
            block: block.0,
            md: self.m.md_attach.len() as u32,
        };
        let mark = self.scratch.len();
        self.inst_body(&mut inst)?;
        let (ops, len) = self.flush(mark)?;
        inst.ops = ops;
        inst.ops_len = len;
        // Metadata attachments: `, !kind !node`.
        while self.tok.kind == Tok::Comma && self.peek().kind == Tok::MetadataVar {
            self.bump();
            let kind_tok = self.bump();
            let kind = self
                .m
                .md
                .kind_id(self.text(kind_tok).get(1..).unwrap_or(&[]));
            let node = self.md_ref()?;
            if inst.md_len == u8::MAX {
                return self.error_at(kind_tok.start, "too many metadata attachments".into());
            }
            self.m.md_attach.push((kind, node));
            inst.md_len += 1;
        }
        inst.end = self.rest_of_line(self.prev_end);
        if let Some(d) = def {
            if inst.ty == TypeId::VOID {
                return self.error_at(
                    d.start,
                    "instructions returning void cannot have a name".into(),
                );
            }
            inst.flags.insert(InstFlags::HAS_DEF);
            self.define_local(d, Value::Inst(id))?;
        } else if inst.ty != TypeId::VOID {
            if self.sparse.is_some() {
                return self.whole_parse_needed("an implicitly numbered value");
            }
            inst.flags.insert(InstFlags::IMPLICIT_NUM);
            self.define_implicit(Value::Inst(id));
            if let Some(state) = self.f.as_mut() {
                state.implicit_numbers = true;
            }
        }
        if self.found_by_filter(start, self.prev_end, def)? {
            inst.flags.insert(InstFlags::USES_PARSED);
        }
        self.m.insts.push(inst);
        Ok(id)
    }

    fn inst_body(&mut self, inst: &mut InstData) -> PResult<()> {
        use Opcode::*;
        let opcode = inst.opcode;
        if matches!(opcode, Call | Invoke | CallBr) {
            return self.call(inst);
        }
        self.bump();
        match opcode {
            Ret => {
                // `ret void ()* null` returns a (typed) pointer to a function type.
                if self.is_word(b"void") && self.peek().kind != Tok::LParen {
                    self.bump();
                } else {
                    self.push_typed()?;
                }
            }
            Br => self.br_operands()?,
            Switch => self.switch_operands()?,
            IndirectBr => self.indirectbr_operands()?,
            Unreachable => {}
            Resume => {
                self.push_typed()?;
            }
            FNeg => {
                self.skip_fast_math();
                inst.ty = self.push_typed()?.ty;
            }
            Add | Sub | Mul | Shl | UDiv | SDiv | LShr | AShr | URem | SRem | And | Or | Xor
            | FAdd | FSub | FMul | FDiv | FRem => {
                self.skip_words(&[b"nuw", b"nsw", b"exact", b"disjoint"]);
                self.skip_fast_math();
                let a = self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.push_value(a.ty)?;
                inst.ty = a.ty;
            }
            ICmp | FCmp => self.compare_operands(inst)?,
            Trunc | ZExt | SExt | FPToUI | FPToSI | UIToFP | SIToFP | FPTrunc | FPExt
            | PtrToInt | PtrToAddr | IntToPtr | BitCast | AddrSpaceCast => {
                // `trunc nuw nsw`, `zext nneg`, `uitofp nneg`; fast-math flags on `fptrunc` and
                // `fpext` (LLVM 20 on), in any order with the others (LLVM's own tests write
                // `uitofp nsz nneg`). The flags stay in the instruction's text.
                self.skip_cast_flags();
                self.push_typed()?;
                self.expect_word("to")?;
                inst.ty = self.parse_type()?;
            }
            Select => {
                self.skip_fast_math();
                self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                let a = self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.push_typed()?;
                inst.ty = a.ty;
            }
            VAArg => {
                self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                inst.ty = self.parse_type()?;
            }
            ExtractElement => {
                let v = self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.push_typed()?;
                inst.ty = self.m.types.element(v.ty).unwrap_or(TypeId::VOID);
            }
            InsertElement => {
                let v = self.push_typed()?;
                for _ in 0..2 {
                    self.expect(Tok::Comma, "','")?;
                    self.push_typed()?;
                }
                inst.ty = v.ty;
            }
            ShuffleVector => {
                let v = self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                let mask = self.push_typed()?;
                let elem = self.m.types.element(v.ty).unwrap_or(TypeId::VOID);
                inst.ty = self.vector_like(mask.ty, elem);
            }
            ExtractValue | InsertValue => self.aggregate_operands(inst)?,
            Phi => self.phi_operands(inst)?,
            Freeze => {
                inst.ty = self.push_typed()?.ty;
            }
            Alloca => self.alloca_operands(inst)?,
            Load => self.load_operands(inst)?,
            Store => self.store_operands(inst)?,
            Fence => {
                self.atomic_ordering(1)?;
            }
            CmpXchg => self.cmpxchg_operands(inst)?,
            AtomicRmw => self.atomicrmw_operands(inst)?,
            GetElementPtr => self.gep_operands(inst)?,
            LandingPad => self.landingpad_operands(inst)?,
            CleanupPad | CatchPad | CatchSwitch | CleanupRet | CatchRet => {
                // Exception handling: no pass reads it. Keep the text, but still record the
                // values it names so that renumbering and removal stay correct.
                if matches!(opcode, CleanupPad | CatchPad | CatchSwitch) {
                    inst.ty = TypeId::TOKEN;
                }
                self.opaque_operands()?;
            }
            Call | Invoke | CallBr => {}
        }
        Ok(())
    }

    /// The operands of `br`: a label, or a condition and two labels.
    fn br_operands(&mut self) -> PResult<()> {
        if self.is_word(b"label") {
            self.bump();
            self.push_value(TypeId::LABEL)?;
        } else {
            self.push_typed()?;
            for _ in 0..2 {
                self.expect(Tok::Comma, "','")?;
                self.expect_word("label")?;
                self.push_value(TypeId::LABEL)?;
            }
        }
        Ok(())
    }

    /// The operands of `switch`: the value, the default label, then each case's value and label.
    fn switch_operands(&mut self) -> PResult<()> {
        self.push_typed()?;
        self.expect(Tok::Comma, "','")?;
        self.expect_word("label")?;
        self.push_value(TypeId::LABEL)?;
        self.expect(Tok::LSquare, "'['")?;
        while self.tok.kind != Tok::RSquare {
            self.push_typed()?;
            self.expect(Tok::Comma, "','")?;
            self.expect_word("label")?;
            self.push_value(TypeId::LABEL)?;
        }
        self.bump();
        Ok(())
    }

    /// The operands of `indirectbr`: the address and the labels it may go to.
    fn indirectbr_operands(&mut self) -> PResult<()> {
        self.push_typed()?;
        self.expect(Tok::Comma, "','")?;
        self.expect(Tok::LSquare, "'['")?;
        if self.tok.kind != Tok::RSquare {
            loop {
                self.expect_word("label")?;
                self.push_value(TypeId::LABEL)?;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RSquare, "']'")?;
        Ok(())
    }

    /// The predicate and operands of `icmp` and `fcmp`; the result is `i1`, or a vector of `i1`.
    fn compare_operands(&mut self, inst: &mut InstData) -> PResult<()> {
        let opcode = inst.opcode;
        self.skip_words(&[b"samesign"]);
        self.skip_fast_math();
        let p = self.expect(Tok::Ident, "a comparison predicate")?;
        match Predicate::parse(self.text(p), opcode == Opcode::FCmp) {
            Some(pred) => inst.aux = pred.0,
            None => return self.error_at(p.start, "expected a comparison predicate".into()),
        }
        let a = self.push_typed()?;
        self.expect(Tok::Comma, "','")?;
        self.push_value(a.ty)?;
        inst.ty = self.vector_like(a.ty, TypeId::I1);
        Ok(())
    }

    /// The operands and index list of `extractvalue` and `insertvalue`, and the result type the
    /// indices lead to.
    fn aggregate_operands(&mut self, inst: &mut InstData) -> PResult<()> {
        let opcode = inst.opcode;
        let agg = self.push_typed()?;
        self.expect(Tok::Comma, "','")?;
        if opcode == Opcode::InsertValue {
            self.push_typed()?;
            self.expect(Tok::Comma, "','")?;
        }
        let list_start = self.m.index_lists.len();
        self.m.index_lists.push(0);
        let mut ty = agg.ty;
        loop {
            let index = self.expect_u32("an index")?;
            self.m.index_lists.push(index);
            ty = self
                .m
                .types
                .member(ty, u64::from(index))
                .unwrap_or(TypeId::VOID);
            if !(self.tok.kind == Tok::Comma && self.peek().kind == Tok::Int) {
                break;
            }
            self.bump();
        }
        let count = (self.m.index_lists.len() - list_start - 1) as u32;
        self.m.index_lists[list_start] = count;
        inst.extra = list_start as u32;
        inst.ty = if opcode == Opcode::ExtractValue {
            ty
        } else {
            agg.ty
        };
        Ok(())
    }

    /// The type and incoming (value, label) pairs of a `phi`.
    fn phi_operands(&mut self, inst: &mut InstData) -> PResult<()> {
        self.skip_fast_math();
        let ty = self.parse_type()?;
        inst.ty = ty;
        // A phi may have no incoming values at all (in an unreachable block).
        while self.tok.kind == Tok::LSquare {
            self.bump();
            self.push_value(ty)?;
            self.expect(Tok::Comma, "','")?;
            self.push_value(TypeId::LABEL)?;
            self.expect(Tok::RSquare, "']'")?;
            if !(self.tok.kind == Tok::Comma && self.peek().kind == Tok::LSquare) {
                break;
            }
            self.bump();
        }
        Ok(())
    }

    /// The allocated type, count, alignment and address space of an `alloca`.
    fn alloca_operands(&mut self, inst: &mut InstData) -> PResult<()> {
        self.skip_words(&[b"inalloca", b"swifterror"]);
        let ty = self.parse_type()?;
        inst.extra = ty.0;
        let mut addrspace = self.m.layout.alloca_addrspace();
        if self.tok.kind == Tok::Comma
            && !matches!(self.peek().kind, Tok::MetadataVar)
            && !self.comma_then(b"align")
            && !self.comma_then(b"addrspace")
        {
            self.bump();
            self.push_typed()?;
        }
        self.align_suffix(inst)?;
        if self.comma_then(b"addrspace") {
            self.bump();
            addrspace = self.addrspace()?;
        }
        inst.ty = self.m.types.ptr(addrspace);
        Ok(())
    }

    /// The operands of `load`, atomic or not.
    fn load_operands(&mut self, inst: &mut InstData) -> PResult<()> {
        let atomic = self.eat_word(b"atomic");
        self.eat_word(b"volatile");
        inst.ty = self.parse_type()?;
        self.expect(Tok::Comma, "','")?;
        self.push_typed()?;
        if atomic {
            self.atomic_ordering(1)?;
        }
        self.align_suffix(inst)?;
        Ok(())
    }

    /// The operands of `store`, atomic or not.
    fn store_operands(&mut self, inst: &mut InstData) -> PResult<()> {
        let atomic = self.eat_word(b"atomic");
        self.eat_word(b"volatile");
        self.push_typed()?;
        self.expect(Tok::Comma, "','")?;
        self.push_typed()?;
        if atomic {
            self.atomic_ordering(1)?;
        }
        self.align_suffix(inst)?;
        Ok(())
    }

    /// The operands and orderings of `cmpxchg`; the result is `{ T, i1 }`.
    fn cmpxchg_operands(&mut self, inst: &mut InstData) -> PResult<()> {
        self.eat_word(b"weak");
        self.eat_word(b"volatile");
        self.push_typed()?;
        self.expect(Tok::Comma, "','")?;
        let cmp = self.push_typed()?;
        self.expect(Tok::Comma, "','")?;
        self.push_typed()?;
        self.atomic_ordering(2)?;
        self.align_suffix(inst)?;
        inst.ty = self.m.types.struct_literal(&[cmp.ty, TypeId::I1], false);
        Ok(())
    }

    /// The operation, operands and ordering of `atomicrmw`.
    fn atomicrmw_operands(&mut self, inst: &mut InstData) -> PResult<()> {
        self.eat_word(b"volatile");
        let op = self.expect(Tok::Ident, "an atomicrmw operation")?;
        inst.aux = RMW_OPS
            .iter()
            .position(|w| w.as_bytes() == self.text(op))
            .map_or(u8::MAX, |i| i as u8);
        self.push_typed()?;
        self.expect(Tok::Comma, "','")?;
        inst.ty = self.push_typed()?.ty;
        self.atomic_ordering(1)?;
        let op = inst.aux;
        self.align_suffix(inst)?;
        inst.aux = op;
        Ok(())
    }

    /// The source type, base and indices of `getelementptr`; a vector index makes the result a
    /// vector of pointers.
    fn gep_operands(&mut self, inst: &mut InstData) -> PResult<()> {
        self.skip_words(&[b"inbounds", b"nuw", b"nusw"]);
        let source = self.parse_type()?;
        inst.extra = source.0;
        self.expect(Tok::Comma, "','")?;
        let base = self.push_typed()?;
        let mut ty = base.ty;
        while self.tok.kind == Tok::Comma && self.peek().kind != Tok::MetadataVar {
            self.bump();
            let index = self.push_typed()?;
            if let Type::Vector { len, scalable, .. } = self.m.types.get(index.ty) {
                if self.m.types.ptr_addrspace(ty).is_some() {
                    ty = self.m.types.intern(TypeData::Vector {
                        len,
                        elem: ty,
                        scalable,
                    });
                }
            }
        }
        inst.ty = ty;
        Ok(())
    }

    /// `landingpad T [cleanup] (catch|filter <ty> <value>)*`: LLVM writes each clause on a line of
    /// its own, so the clauses are parsed, not skipped to the end of the line.
    fn landingpad_operands(&mut self, inst: &mut InstData) -> PResult<()> {
        inst.ty = self.parse_type()?;
        self.eat_word(b"cleanup");
        while matches!(self.word(), b"catch" | b"filter") {
            self.bump();
            self.push_typed()?;
        }
        Ok(())
    }

    /// The rest of an exception-handling instruction: the local and global names it holds
    /// become operands.
    fn opaque_operands(&mut self) -> PResult<()> {
        let mut depth: u32 = 0;
        loop {
            // The end of the input inside brackets: nothing more can close them.
            if self.tok.kind == Tok::Eof && depth > 0 {
                return self.expected("a closing bracket");
            }
            if depth == 0
                && (self.newline_before_tok()
                    || self.tok.kind == Tok::Eof
                    || self.tok.kind == Tok::Comma && self.peek().kind == Tok::MetadataVar)
            {
                return Ok(());
            }
            let t = self.tok;
            match t.kind {
                Tok::LParen | Tok::LBrace | Tok::LSquare => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RSquare => {
                    if depth == 0 {
                        return self.expected("a matching opening bracket");
                    }
                    depth -= 1;
                }
                Tok::LocalVar | Tok::LocalId => {
                    let is_type = match name_key(self.text(t), t.kind == Tok::LocalId) {
                        NameKey::Named(name) => self
                            .m
                            .types
                            .named(std::str::from_utf8(&name).unwrap_or(""))
                            .is_some(),
                        NameKey::Numbered(_) => false,
                    };
                    if !is_type {
                        self.bump();
                        let value = self.local_ref(t)?;
                        self.scratch.push(PackedOp {
                            ty: TypeId::LABEL,
                            value,
                        });
                        continue;
                    }
                }
                Tok::GlobalVar | Tok::GlobalId => {
                    // A use like any other (a catchpad's type info): a global it names must
                    // not be removed as unused.
                    let g = self.global_ref(t)?;
                    self.scratch.push(PackedOp {
                        ty: TypeId::PTR,
                        value: PackedValue::pack(Value::Global(g)),
                    });
                }
                Tok::Error => return self.expected("a token"),
                _ => {}
            }
            self.bump();
        }
    }

    /// `[syncscope("x")] ordering...`.
    fn atomic_ordering(&mut self, count: usize) -> PResult<()> {
        if self.eat_word(b"syncscope") {
            self.expect(Tok::LParen, "'('")?;
            self.expect(Tok::Str, "a sync scope")?;
            self.expect(Tok::RParen, "')'")?;
        }
        for _ in 0..count {
            if !matches!(
                self.word(),
                b"unordered" | b"monotonic" | b"acquire" | b"release" | b"acq_rel" | b"seq_cst"
            ) {
                return self.expected("an atomic ordering");
            }
            self.bump();
        }
        Ok(())
    }

    fn call(&mut self, inst: &mut InstData) -> PResult<()> {
        let first = self.bump();
        let mut tail = NO_TEXT;
        if inst.opcode == Opcode::Call && self.text(first) != b"call" {
            tail = text(first);
            self.expect_word("call")?;
        }
        self.skip_fast_math();
        let mut cconv = NO_TEXT;
        if is_cconv(self.word()) {
            cconv = self.calling_conv()?;
        }
        let ret_attrs_start = self.m.attrs.len() as u32;
        while !self.is_type_start() && !self.is_word(b"addrspace") {
            if !self.parse_one_attr()? {
                return self.expected("a type");
            }
        }
        let ret_attrs = (ret_attrs_start, self.m.attrs.len() as u32 - ret_attrs_start);
        let mut callee_ty = TypeId::PTR;
        if self.is_word(b"addrspace") {
            let n = self.addrspace()?;
            callee_ty = self.m.types.ptr(n);
        }
        let ty = self.parse_type()?;
        self.push_value(callee_ty)?;
        self.expect(Tok::LParen, "'('")?;
        self.call_attrs.clear();
        self.call_types.clear();
        if self.tok.kind != Tok::RParen {
            loop {
                if self.eat(Tok::DotDotDot) {
                    break;
                }
                let aty = self.parse_type()?;
                let attrs = if aty == TypeId::METADATA {
                    if matches!(self.tok.kind, Tok::LocalVar | Tok::LocalId) {
                        // `metadata %T* %x`: a named type, then the value.
                        self.metadata_typed_local()?;
                    } else {
                        self.push_value(aty)?;
                    }
                    (self.m.attrs.len() as u32, 0)
                } else {
                    let attrs = self.parse_attrs()?;
                    self.push_value(aty)?;
                    attrs
                };
                self.call_attrs.push(attrs);
                self.call_types.push(aty);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "')'")?;
        let fn_attrs = self.call_fn_attrs()?;
        let mut bundles = NO_TEXT;
        if self.tok.kind == Tok::LSquare {
            let start = self.tok.start;
            self.bundles()?;
            bundles = Text {
                start,
                end: self.prev_end,
            };
        }
        let fn_ty = match self.m.types.function_parts(ty) {
            Some(_) => ty,
            None => self.m.types.function(ty, &self.call_types, false),
        };
        inst.ty = self
            .m
            .types
            .function_parts(fn_ty)
            .map_or(ty, |(ret, _, _)| ret);
        self.call_labels(inst.opcode)?;
        let arg_attrs = self.m.attr_sets.len() as u32;
        self.m.attr_sets.extend_from_slice(&self.call_attrs);
        let nargs = self.call_types.len() as u32;
        self.check_capacity(self.m.calls.len(), "calls")?;
        inst.extra = self.m.calls.len() as u32;
        self.m.calls.push(CallData {
            fn_ty,
            arg_attrs,
            ret_attrs,
            nargs,
            cconv,
            fn_attrs,
            bundles,
            tail,
        });
        Ok(())
    }

    /// The function attributes after a call's arguments: group ids, strings and keywords up to
    /// the next instruction (an opcode), `to` of an invoke, or anything else; LLVM writes them
    /// on the call's line, hand-written modules also on the next (`#4` alone on a line). Kept
    /// as text.
    fn call_fn_attrs(&mut self) -> PResult<Text> {
        let attrs_start = self.tok.start;
        let mut fn_attrs = NO_TEXT;
        loop {
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
                Tok::Ident if self.is_fn_attr_word() => {
                    self.bump();
                    if self.tok.kind == Tok::LParen {
                        self.skip_attr_parens()?;
                    }
                }
                _ => break,
            }
            fn_attrs = Text {
                start: attrs_start,
                end: self.prev_end,
            };
        }
        Ok(fn_attrs)
    }

    /// The labels an `invoke` or a `callbr` goes to, after its call.
    fn call_labels(&mut self, opcode: Opcode) -> PResult<()> {
        match opcode {
            Opcode::Invoke => {
                self.expect_word("to")?;
                self.expect_word("label")?;
                self.push_value(TypeId::LABEL)?;
                self.expect_word("unwind")?;
                self.expect_word("label")?;
                self.push_value(TypeId::LABEL)?;
            }
            Opcode::CallBr => {
                self.expect_word("to")?;
                self.expect_word("label")?;
                self.push_value(TypeId::LABEL)?;
                self.expect(Tok::LSquare, "'['")?;
                if self.tok.kind != Tok::RSquare {
                    loop {
                        self.expect_word("label")?;
                        self.push_value(TypeId::LABEL)?;
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RSquare, "']'")?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether the current word is a function attribute after a call's arguments: not the
    /// opcode of the next instruction, nor `to` of an invoke.
    fn is_fn_attr_word(&self) -> bool {
        let w = self.word();
        w != b"to" && w != b"uselistorder" && Opcode::from_keyword(w).is_none()
    }

    /// A metadata call argument that starts with a named type (`metadata %struct.A* %x`).
    #[cold]
    fn metadata_typed_local(&mut self) -> PResult<()> {
        let id = self.md_value()?;
        self.scratch.push(PackedOp {
            ty: TypeId::METADATA,
            value: PackedValue::pack(Value::Metadata(id)),
        });
        Ok(())
    }

    /// `[ "tag"(ty val, ...), ... ]`: values inside are operands of nobody, but locals in
    /// them must resolve and be renamed with the rest.
    fn bundles(&mut self) -> PResult<()> {
        self.expect(Tok::LSquare, "'['")?;
        if self.tok.kind != Tok::RSquare {
            loop {
                self.expect(Tok::Str, "an operand bundle tag")?;
                self.expect(Tok::LParen, "'('")?;
                if self.tok.kind != Tok::RParen {
                    loop {
                        let mark = self.scratch.len();
                        self.push_typed()?;
                        self.scratch.truncate(mark);
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RParen, "')'")?;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RSquare, "']'")?;
        Ok(())
    }

    pub(super) fn debug_record(&mut self) -> PResult<()> {
        self.bump();
        self.expect(Tok::LParen, "'('")?;
        if self.tok.kind != Tok::RParen {
            loop {
                if self.is_type_start() {
                    let mark = self.scratch.len();
                    self.push_typed()?;
                    self.scratch.truncate(mark);
                } else {
                    self.md_ref()?;
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "')'")?;
        Ok(())
    }
}
