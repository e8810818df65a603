//! What has no source text, printed as LLVM prints it: values, constants, attributes,
//! function headers and instructions made by edits.
//!
//! Input: records (an instruction, a constant, a header) and the names now in force in their
//! function. Output: their text in LLVM's own spelling, so that a new instruction reads like
//! LLVM's output beside the source it joins.

use super::FnNames;
use crate::const_data::ConstKind;
use crate::inst::{Attr, CallData, InstData, InstFlags, Opcode};
use crate::lexer::{name_key, NameKey};
use crate::md_data::MdKindData;
use crate::module::{text_of, FuncState, Module};
use crate::types::{push_fmt, push_i64, push_u64, write_f64, write_name, TypeId};
use crate::value::{FuncId, InstId, Operand, Value};

impl Module {
    /// The type of a local or global value (constants carry theirs in the operand).
    pub(crate) fn value_type(&self, value: Value) -> Option<TypeId> {
        match value {
            Value::Inst(i) => self.insts.get(i.index()).map(|d| d.ty),
            Value::Arg(a) => self.args.get(a.index()).map(|d| d.ty),
            Value::Block(_) => Some(TypeId::LABEL),
            Value::Global(g) => self.globals.get(g.index()).map(|g| g.ptr_ty),
            Value::Const(_) => None,
            Value::Metadata(_) => Some(TypeId::METADATA),
        }
    }

    /// Writes `%name` / `%N` for a local value.
    pub(crate) fn write_local(&self, names: Option<&FnNames>, value: Value, out: &mut Vec<u8>) {
        let (raw, numbered): (&[u8], bool) = match value {
            Value::Inst(i) => {
                // Only instructions made by edits have new names.
                let new = self
                    .insts
                    .get(i.index())
                    .is_some_and(|d| d.flags.contains(InstFlags::NEW));
                if let Some((name, quoted)) = new.then(|| self.new_names.get_spelled(&i)).flatten()
                {
                    if quoted {
                        write_name(b'%', name, false, out);
                    } else {
                        out.push(b'%');
                        out.extend_from_slice(name);
                    }
                    return;
                }
                let d = &self.insts[i.index()];
                if d.flags.contains(InstFlags::HAS_DEF) {
                    self.def_token(d.start)
                } else {
                    (&[], true)
                }
            }
            Value::Arg(a) => {
                let d = &self.args[a.index()];
                let raw = text_of(&self.src, d.name);
                (raw, d.numbered || raw.is_empty())
            }
            Value::Block(b) => {
                if let Some(name) = self.new_block_name(b) {
                    write_name(b'%', name, false, out);
                    return;
                }
                let d = &self.blocks[b.index()];
                let raw = text_of(&self.src, d.label);
                (raw, d.numbered || raw.is_empty())
            }
            _ => (&[], false),
        };
        if numbered {
            if !raw.is_empty() && !self.renumbered(value) {
                // Nothing in the function was renumbered: the number is the one written.
                if let NameKey::Numbered(n) = name_key(raw, true) {
                    out.push(b'%');
                    push_u64(out, u64::from(n));
                    return;
                }
            }
            let number = names
                .and_then(|n| n.number(self, value))
                .or_else(|| self.source_number(value));
            match number {
                Some(n) => {
                    out.push(b'%');
                    push_u64(out, u64::from(n));
                }
                None => out.extend_from_slice(b"poison"),
            }
            return;
        }
        if let [b'%', first, ..] = raw {
            if *first != b'"' {
                // A bare name in the source is spelled as LLVM prints it.
                out.extend_from_slice(raw);
                return;
            }
        }
        match name_key(raw, false) {
            NameKey::Named(name) => write_name(b'%', &name, false, out),
            NameKey::Numbered(n) => {
                out.push(b'%');
                push_u64(out, u64::from(n));
            }
        }
    }

    /// Whether the function that defines a local value was renumbered.
    fn renumbered(&self, value: Value) -> bool {
        let f = match value {
            Value::Inst(i) => self
                .insts
                .get(i.index())
                .and_then(|d| self.blocks.get(d.block as usize))
                .map(|b| b.func),
            Value::Arg(a) => self.args.get(a.index()).map(|d| d.func),
            Value::Block(b) => self.blocks.get(b.index()).map(|d| d.func),
            _ => None,
        };
        f.and_then(|f| self.funcs.get(f.index()))
            .is_none_or(|d| d.state.contains(FuncState::RENUMBER))
    }

    /// The number a numbered value has when nothing was renumbered.
    fn source_number(&self, value: Value) -> Option<u32> {
        let f = match value {
            Value::Inst(i) => {
                self.blocks
                    .get(self.insts.get(i.index())?.block as usize)?
                    .func
            }
            Value::Arg(a) => {
                // Parameters come first: a numbered one's number is one past the previous
                // numbered one's, or as written (numbers may skip: `%0, %10`).
                let f = self.args.get(a.index())?.func;
                let (start, _) = self.funcs[f.index()].params;
                let mut next = 0u32;
                for i in start..=a.0 {
                    let arg = &self.args[i as usize];
                    if !(arg.numbered || arg.name.is_none()) {
                        continue;
                    }
                    if let NameKey::Numbered(n) = name_key(text_of(&self.src, arg.name), true) {
                        if !arg.name.is_none() {
                            next = next.max(n);
                        }
                    }
                    if i == a.0 {
                        return Some(next);
                    }
                    next += 1;
                }
                return None;
            }
            Value::Block(b) => self.blocks.get(b.index())?.func,
            _ => return None,
        };
        self.fn_names(f).number(self, value)
    }

    /// Writes a value without its type.
    pub(crate) fn write_value(&self, names: Option<&FnNames>, op: Operand, out: &mut Vec<u8>) {
        match op.value {
            Value::Inst(i) if self.insts[i.index()].flags.contains(InstFlags::REMOVED) => {
                out.extend_from_slice(b"poison")
            }
            Value::Inst(_) | Value::Arg(_) | Value::Block(_) => {
                self.write_local(names, op.value, out)
            }
            Value::Global(g) => {
                let data = &self.globals[g.index()];
                write_name(b'@', &data.name, data.numbered, out);
            }
            Value::Const(c) => self.write_const(names, op.ty, c, out),
            Value::Metadata(md) => {
                let node = self.md_data(md);
                if let Some(node) =
                    node.filter(|n| n.number == crate::inst::NONE && n.kind == MdKindData::Value)
                {
                    if let Some(crate::md_data::MdOp::Value(inner)) =
                        self.md.ops.get(node.ops as usize)
                    {
                        self.write_typed(names, inner.get(), out);
                    }
                } else {
                    self.write_md_ref(md, out);
                }
            }
        }
    }

    /// Writes `type value`.
    pub(crate) fn write_typed(&self, names: Option<&FnNames>, op: Operand, out: &mut Vec<u8>) {
        self.types.write(op.ty, out);
        out.push(b' ');
        self.write_value(names, op, out);
    }

    fn write_const(
        &self,
        names: Option<&FnNames>,
        ty: TypeId,
        c: crate::value::ConstId,
        out: &mut Vec<u8>,
    ) {
        let data = self.const_data(c);
        if data.start != crate::inst::NONE {
            if data.kind == ConstKind::Opaque {
                if let Some(text) = self.renumbered_blockaddress(data.start, data.end, None) {
                    out.extend_from_slice(&text);
                    return;
                }
            }
            out.extend_from_slice(
                self.src
                    .get(data.start as usize..data.end as usize)
                    .unwrap_or(&[]),
            );
            return;
        }
        let list = |out: &mut Vec<u8>, ops: &[crate::value::PackedOp]| {
            for (i, op) in ops.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                self.write_typed(names, op.get(), out);
            }
        };
        match data.kind {
            ConstKind::Int(v) => {
                if ty == TypeId::I1 {
                    out.extend_from_slice(if v != 0 { b"true" } else { b"false" });
                } else {
                    push_i64(out, v);
                }
            }
            ConstKind::F64(bits) => write_f64(f64::from_bits(bits), out),
            ConstKind::Null => out.extend_from_slice(b"null"),
            ConstKind::Undef => out.extend_from_slice(b"undef"),
            ConstKind::Poison => out.extend_from_slice(b"poison"),
            ConstKind::Zero => out.extend_from_slice(b"zeroinitializer"),
            ConstKind::NoneToken => out.extend_from_slice(b"none"),
            ConstKind::Struct { packed, .. } => {
                let ops = self.const_ops(c);
                out.extend_from_slice(if packed { b"<{ " } else { b"{ " });
                list(out, ops);
                out.extend_from_slice(if packed { b" }>" } else { b" }" });
            }
            ConstKind::Array { .. } => {
                out.push(b'[');
                list(out, self.const_ops(c));
                out.push(b']');
            }
            ConstKind::Vector { .. } => {
                out.push(b'<');
                list(out, self.const_ops(c));
                out.push(b'>');
            }
            ConstKind::Expr {
                opcode,
                ty: expr_ty,
                inbounds,
                ..
            } => {
                let ops = self.const_ops(c);
                out.extend_from_slice(opcode.keyword().as_bytes());
                if opcode == Opcode::GetElementPtr {
                    if inbounds {
                        out.extend_from_slice(b" inbounds");
                    }
                    out.extend_from_slice(b" (");
                    self.types.write(expr_ty, out);
                    for op in ops {
                        out.extend_from_slice(b", ");
                        self.write_typed(names, op.get(), out);
                    }
                    out.push(b')');
                } else if opcode.is_cast() {
                    out.extend_from_slice(b" (");
                    if let Some(op) = ops.first() {
                        self.write_typed(names, op.get(), out);
                    }
                    out.extend_from_slice(b" to ");
                    self.types.write(expr_ty, out);
                    out.push(b')');
                } else {
                    out.extend_from_slice(b" (");
                    list(out, ops);
                    out.push(b')');
                }
            }
            ConstKind::Splat(_) => {
                out.extend_from_slice(b"splat (");
                list(out, self.const_ops(c));
                out.push(b')');
            }
            ConstKind::NewBytes(i) => {
                out.extend_from_slice(b"c\"");
                crate::lexer::escape_into(
                    self.byte_strings.get(i as usize).map_or(&[][..], |b| b),
                    out,
                );
                out.push(b'"');
            }
            ConstKind::BigInt | ConstKind::FloatText | ConstKind::CString | ConstKind::Opaque => {
                out.extend_from_slice(b"poison")
            }
        }
    }

    fn write_attrs(&self, attrs: &[Attr], out: &mut Vec<u8>) {
        for attr in attrs {
            self.write_attr(*attr, out);
            out.push(b' ');
        }
    }

    /// Writes one attribute as LLVM does.
    pub(crate) fn write_attr(&self, attr: Attr, out: &mut Vec<u8>) {
        let typed = |name: &str, ty: TypeId, out: &mut Vec<u8>| {
            out.extend_from_slice(name.as_bytes());
            out.push(b'(');
            self.types.write(ty, out);
            out.push(b')');
        };
        match attr {
            Attr::Align(n) => push_fmt(out, format_args!("align {n}")),
            Attr::Dereferenceable(n) => push_fmt(out, format_args!("dereferenceable({n})")),
            Attr::DereferenceableOrNull(n) => {
                push_fmt(out, format_args!("dereferenceable_or_null({n})"))
            }
            Attr::ByVal(t) => typed("byval", t, out),
            Attr::ByRef(t) => typed("byref", t, out),
            Attr::SRet(t) => typed("sret", t, out),
            Attr::InAlloca(t) => typed("inalloca", t, out),
            Attr::Preallocated(t) => typed("preallocated", t, out),
            Attr::ElementType(t) => typed("elementtype", t, out),
            Attr::Other(text) => out.extend_from_slice(self.text(text)),
            flag => {
                if let Some((_, name)) = crate::inst::FLAG_ATTRS.iter().find(|(a, _)| *a == flag) {
                    out.extend_from_slice(name.as_bytes());
                }
            }
        }
    }

    /// Writes a function's header as LLVM does: `define ... {` or `declare ...`.
    pub(crate) fn write_header(&self, f: FuncId, out: &mut Vec<u8>) {
        let data = &self.funcs[f.index()];
        out.extend_from_slice(if data.is_def { b"define " } else { b"declare " });
        let prefix = self.text(data.prefix);
        if !prefix.is_empty() {
            out.extend_from_slice(prefix);
            out.push(b' ');
        } else {
            if !data.cconv.is_none() {
                out.extend_from_slice(self.text(data.cconv));
                out.push(b' ');
            }
            self.write_attrs(self.attr_range(data.ret_attrs), out);
        }
        let (ret, _, vararg) =
            self.types
                .function_parts(data.fn_ty)
                .unwrap_or((TypeId::VOID, &[], false));
        self.types.write(ret, out);
        out.push(b' ');
        let g = &self.globals[data.global.index()];
        write_name(b'@', &g.name, g.numbered, out);
        out.push(b'(');
        let (start, len) = data.params;
        for i in start..start + len {
            if i > start {
                out.extend_from_slice(b", ");
            }
            let arg = &self.args[i as usize];
            self.types.write(arg.ty, out);
            for attr in self.attr_range(arg.attrs) {
                out.push(b' ');
                self.write_attr(*attr, out);
            }
            if data.is_def {
                out.push(b' ');
                self.write_local(None, Value::Arg(crate::value::ArgId(i)), out);
            } else if !arg.name.is_none() {
                out.push(b' ');
                out.extend_from_slice(self.text(arg.name));
            }
        }
        if vararg {
            if len > 0 {
                out.extend_from_slice(b", ");
            }
            out.extend_from_slice(b"...");
        }
        out.push(b')');
        let suffix = self.text(data.suffix);
        if !suffix.is_empty() {
            out.push(b' ');
            out.extend_from_slice(suffix);
        }
        if data.is_def {
            out.extend_from_slice(b" {");
        }
    }

    /// Writes an instruction made by an edit (or any instruction, from its fields).
    pub(crate) fn write_inst(&self, names: Option<&FnNames>, inst: InstId, out: &mut Vec<u8>) {
        let d: InstData = self.insts[inst.index()];
        // Most instructions have a few operands: unpack those on the stack.
        let packed = self.inst_ops(inst);
        let mut small = [Operand {
            ty: TypeId::VOID,
            value: Value::Const(crate::value::ConstId(0)),
        }; 8];
        let heap: Vec<Operand>;
        let ops: &[Operand] = if packed.len() <= small.len() {
            for (slot, op) in small.iter_mut().zip(packed) {
                *slot = op.get();
            }
            &small[..packed.len()]
        } else {
            heap = packed.iter().map(|o| o.get()).collect();
            &heap
        };
        let typed = |i: usize, out: &mut Vec<u8>| {
            if let Some(&op) = ops.get(i) {
                self.write_typed(names, op, out);
            }
        };
        let value = |i: usize, out: &mut Vec<u8>| {
            if let Some(&op) = ops.get(i) {
                self.write_value(names, op, out);
            }
        };
        if d.ty != TypeId::VOID {
            self.write_local(names, Value::Inst(inst), out);
            out.extend_from_slice(b" = ");
        }
        let opcode = d.opcode;
        match opcode {
            Opcode::Call => {
                let Some(call) = self.calls.get(d.extra as usize) else {
                    return;
                };
                self.write_call(names, call, ops, out);
            }
            Opcode::Alloca => self.write_alloca(names, &d, ops, out),
            Opcode::Load => {
                out.extend_from_slice(b"load ");
                self.types.write(d.ty, out);
                out.extend_from_slice(b", ");
                typed(0, out);
                write_align(d.aux, out);
            }
            Opcode::Store => {
                out.extend_from_slice(b"store ");
                typed(0, out);
                out.extend_from_slice(b", ");
                typed(1, out);
                write_align(d.aux, out);
            }
            Opcode::GetElementPtr => {
                out.extend_from_slice(b"getelementptr ");
                if d.aux & InstData::AUX_GEP_INBOUNDS != 0 {
                    out.extend_from_slice(b"inbounds ");
                }
                self.types.write(TypeId(d.extra), out);
                for i in 0..ops.len() {
                    out.extend_from_slice(b", ");
                    typed(i, out);
                }
            }
            Opcode::Ret => {
                out.extend_from_slice(b"ret ");
                if ops.is_empty() {
                    out.extend_from_slice(b"void");
                } else {
                    typed(0, out);
                }
            }
            Opcode::Br => {
                out.extend_from_slice(b"br ");
                for i in 0..ops.len() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    typed(i, out);
                }
            }
            Opcode::ICmp | Opcode::FCmp => {
                out.extend_from_slice(opcode.keyword().as_bytes());
                out.push(b' ');
                out.extend_from_slice(crate::inst::Predicate(d.aux).keyword().as_bytes());
                out.push(b' ');
                typed(0, out);
                out.extend_from_slice(b", ");
                value(1, out);
            }
            Opcode::AtomicRmw => self.write_atomic_rmw(names, &d, ops, out),
            Opcode::ExtractValue | Opcode::InsertValue => {
                out.extend_from_slice(opcode.keyword().as_bytes());
                out.push(b' ');
                for i in 0..ops.len() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    typed(i, out);
                }
                for index in self.index_list(d.extra) {
                    push_fmt(out, format_args!(", {index}"));
                }
            }
            Opcode::Phi => self.write_phi(names, &d, ops, out),
            _ if opcode.is_cast() => {
                out.extend_from_slice(opcode.keyword().as_bytes());
                out.push(b' ');
                typed(0, out);
                out.extend_from_slice(b" to ");
                self.types.write(d.ty, out);
            }
            _ if opcode.is_binary() => {
                out.extend_from_slice(opcode.keyword().as_bytes());
                out.push(b' ');
                typed(0, out);
                out.extend_from_slice(b", ");
                value(1, out);
            }
            _ => {
                // select, freeze, fneg, extractelement, insertelement, shufflevector, va_arg,
                // unreachable, resume: keyword then typed operands.
                out.extend_from_slice(opcode.keyword().as_bytes());
                for i in 0..ops.len() {
                    out.extend_from_slice(if i == 0 { b" " } else { b", " });
                    typed(i, out);
                }
                if opcode == Opcode::VAArg {
                    out.extend_from_slice(b", ");
                    self.types.write(d.ty, out);
                }
            }
        }
        self.write_attachments(names, &d, out);
    }

    /// A `call` from its record: the short form of its function type (the return type)
    /// unless the callee is varargs, each argument with its attributes.
    fn write_call(
        &self,
        names: Option<&FnNames>,
        call: &CallData,
        ops: &[Operand],
        out: &mut Vec<u8>,
    ) {
        if !call.tail.is_none() {
            out.extend_from_slice(self.text(call.tail));
            out.push(b' ');
        }
        out.extend_from_slice(b"call ");
        if !call.cconv.is_none() {
            out.extend_from_slice(self.text(call.cconv));
            out.push(b' ');
        }
        self.write_attrs(self.attr_range(call.ret_attrs), out);
        let (ret, _, vararg) =
            self.types
                .function_parts(call.fn_ty)
                .unwrap_or((TypeId::VOID, &[], false));
        // The short form names only the return type, unless the callee is varargs.
        self.types.write(if vararg { call.fn_ty } else { ret }, out);
        out.push(b' ');
        if let Some(&op) = ops.first() {
            self.write_value(names, op, out);
        }
        out.push(b'(');
        for i in 0..call.nargs as usize {
            if i > 0 {
                out.extend_from_slice(b", ");
            }
            let Some(&op) = ops.get(i + 1) else { break };
            self.types.write(op.ty, out);
            out.push(b' ');
            let set = self
                .attr_sets
                .get(call.arg_attrs as usize + i)
                .copied()
                .unwrap_or((0, 0));
            self.write_attrs(self.attr_range(set), out);
            self.write_value(names, op, out);
        }
        out.push(b')');
        if !call.fn_attrs.is_none() {
            out.push(b' ');
            out.extend_from_slice(self.text(call.fn_attrs));
        }
        if !call.bundles.is_none() {
            out.push(b' ');
            out.extend_from_slice(self.text(call.bundles));
        }
    }

    /// `alloca T[, count][, align N][, addrspace(N)]`.
    fn write_alloca(
        &self,
        names: Option<&FnNames>,
        d: &InstData,
        ops: &[Operand],
        out: &mut Vec<u8>,
    ) {
        out.extend_from_slice(b"alloca ");
        self.types.write(TypeId(d.extra), out);
        if !ops.is_empty() {
            out.extend_from_slice(b", ");
            self.write_operand(names, ops, 0, out);
        }
        write_align(d.aux, out);
        if let Some(addrspace) = self.types.ptr_addrspace(d.ty) {
            if addrspace != 0 {
                push_fmt(out, format_args!(", addrspace({addrspace})"));
            }
        }
    }

    /// `atomicrmw OP ptr, value ORDERING`.
    fn write_atomic_rmw(
        &self,
        names: Option<&FnNames>,
        d: &InstData,
        ops: &[Operand],
        out: &mut Vec<u8>,
    ) {
        out.extend_from_slice(b"atomicrmw ");
        out.extend_from_slice(
            crate::inst::RMW_OPS
                .get(d.aux as usize)
                .unwrap_or(&"add")
                .as_bytes(),
        );
        out.push(b' ');
        self.write_operand(names, ops, 0, out);
        out.extend_from_slice(b", ");
        self.write_operand(names, ops, 1, out);
        out.push(b' ');
        out.extend_from_slice(
            ORDERINGS
                .get(d.extra as usize)
                .unwrap_or(&"seq_cst")
                .as_bytes(),
        );
    }

    /// `phi T [ value, label ], ...`.
    fn write_phi(&self, names: Option<&FnNames>, d: &InstData, ops: &[Operand], out: &mut Vec<u8>) {
        out.extend_from_slice(b"phi ");
        self.types.write(d.ty, out);
        for (i, pair) in ops.chunks(2).enumerate() {
            out.extend_from_slice(if i == 0 { b" [ " } else { b", [ " });
            if let [v, b] = pair {
                self.write_value(names, *v, out);
                out.extend_from_slice(b", ");
                self.write_value(names, *b, out);
            }
            out.extend_from_slice(b" ]");
        }
    }

    /// The metadata attachments of an instruction written from its fields: `, !kind !node`.
    fn write_attachments(&self, names: Option<&FnNames>, d: &InstData, out: &mut Vec<u8>) {
        let attachments = self
            .md_attach
            .get(d.md as usize..d.md as usize + d.md_len as usize)
            .unwrap_or(&[]);
        for &(kind, md) in attachments {
            out.extend_from_slice(b", !");
            out.extend_from_slice(self.md.kinds.get(kind as usize).map_or(&[][..], |k| k));
            out.push(b' ');
            self.write_value(
                names,
                Operand {
                    ty: TypeId::METADATA,
                    value: Value::Metadata(md),
                },
                out,
            );
        }
    }

    /// Operand `i`, typed, where there is one: what `write_inst`'s `typed` does, for the
    /// helpers that write one kind of instruction.
    fn write_operand(&self, names: Option<&FnNames>, ops: &[Operand], i: usize, out: &mut Vec<u8>) {
        if let Some(&op) = ops.get(i) {
            self.write_typed(names, op, out);
        }
    }

    pub(crate) fn index_list(&self, at: u32) -> &[u32] {
        let at = at as usize;
        let count = self.index_lists.get(at).copied().unwrap_or(0) as usize;
        self.index_lists.get(at + 1..at + 1 + count).unwrap_or(&[])
    }
}

/// Atomic orderings, in the order `Ordering` lists them.
pub(crate) const ORDERINGS: [&str; 6] = [
    "unordered",
    "monotonic",
    "acquire",
    "release",
    "acq_rel",
    "seq_cst",
];

fn write_align(aux: u8, out: &mut Vec<u8>) {
    if aux > 0 && aux <= 64 {
        out.extend_from_slice(b", align ");
        push_u64(out, 1u64 << (aux - 1));
    }
}
