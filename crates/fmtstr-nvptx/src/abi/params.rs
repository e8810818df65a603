//! A function's parameters and return value: from a definition or declaration and its types,
//! the `.param` declarations, the value parts each is split into, and the `ld.param` and
//! `st.param` accesses that read the parameters and write the return value (the
//! [`FunctionPlan`]'s signature half). Byval aggregates are read as the struct-args pass leaves
//! them, in place or from a local copy.

use super::*;
use crate::annotations::Handle;

impl Planner<'_> {
    pub(super) fn parts(&mut self, f: FuncId, at: Option<InstId>, ty: TypeId) -> Vec<Part> {
        match self.value_parts(ty) {
            Ok(p) => p,
            Err(parts::Unsupported(why)) => {
                self.finding(f, at, format!("no parameter plan: {why}"));
                Vec::new()
            }
        }
    }

    /// A finding when llc 19 cannot store these parts into `.param` space.
    pub(super) fn check_store(
        &mut self,
        f: FuncId,
        at: Option<InstId>,
        list: &[Part],
        align: u64,
        what: &str,
    ) {
        if self.llc22() {
            return;
        }
        if let Some(offset) = parts::store_crashes_llc(list, align) {
            self.finding(
                f,
                at,
                format!(
                    "llc 19 aborts {what} a <2 x i16> or <4 x i8> at byte {offset} of a value aligned to less than 4 (`Copy one register into another with a different width`)"
                ),
            );
        }
    }

    /// The accesses that store a value of `ty` given by `value`, less those llc drops: a
    /// `st.param` whose every value is undef or poison is removed (NVPTX's store-param
    /// combine), so parts left undef (`{ [5 x i32] }` with one field inserted) store nothing.
    pub(super) fn defined_accesses(
        &self,
        value: Option<Operand>,
        ty: TypeId,
        list: &[Part],
        accesses: Vec<parts::Access>,
    ) -> Vec<parts::Access> {
        let Some(mask) = value.and_then(|v| self.defined_parts(v, ty, 0)) else {
            return accesses;
        };
        if mask.len() != list.len() {
            return accesses;
        }
        accesses
            .into_iter()
            .filter(|a| {
                let end = a.offset + u64::from(a.bits / 8).max(1) * u64::from(a.arity);
                list.iter().zip(&mask).any(|(p, &defined)| {
                    defined && p.offset < end && a.offset < p.offset + p.mvt.store_size()
                })
            })
            .collect()
    }

    /// A parameter's `alignstack(N)`, which NVPTX reads as the parameter's alignment (as it
    /// reads an `!"align"` annotation, which comes second).
    pub(super) fn stack_align(&self, attrs: &[Attr]) -> Option<u64> {
        attrs.iter().find_map(|a| match a {
            Attr::Other(text) => std::str::from_utf8(self.m.text(*text))
                .ok()?
                .strip_prefix("alignstack(")?
                .strip_suffix(')')?
                .trim()
                .parse()
                .ok(),
            _ => None,
        })
    }

    pub(super) fn part_count(&self, ty: TypeId) -> Option<usize> {
        self.value_parts(ty).ok().map(|p| p.len())
    }

    /// The parts of `ty` as the planned llc splits it.
    pub(super) fn value_parts(&self, ty: TypeId) -> Result<Vec<Part>, parts::Unsupported> {
        if self.llc22() {
            let f32x2 = self.config.sm >= 100 && self.config.ptx_version() >= 86;
            llc22::value_parts(self.m, ty, f32x2)
        } else {
            parts::value_parts(self.m, ty, 0)
        }
    }

    /// The field types of the aggregate `ty` a constant of `len` operands fills; `None` when
    /// `ty` is not an aggregate of that many fields.
    pub(super) fn field_types(&self, ty: TypeId, len: usize) -> Option<Vec<TypeId>> {
        let fields: Vec<TypeId> = match self.m.types().get(ty) {
            Type::Struct(s) => s.fields.to_vec(),
            Type::Array { len, elem } => vec![elem; len as usize],
            _ => return None,
        };
        (fields.len() == len).then_some(fields)
    }

    /// Where an `insertvalue` at `indices` into a `ty` lands: its first part's index among
    /// `ty`'s parts, and the inserted value's type.
    pub(super) fn inserted_at(&self, ty: TypeId, indices: &[u32]) -> Option<(usize, TypeId)> {
        let mut start = 0usize;
        let mut sub = ty;
        for &index in indices {
            match self.m.types().get(sub) {
                Type::Struct(s) => {
                    for &field in s.fields.get(..index as usize)? {
                        start += self.part_count(field)?;
                    }
                    sub = *s.fields.get(index as usize)?;
                }
                Type::Array { elem, .. } => {
                    start += self.part_count(elem)? * index as usize;
                    sub = elem;
                }
                _ => return None,
            }
        }
        Some((start, sub))
    }

    /// For each part of `ty`, whether `value` defines it (false: undef or poison), followed
    /// through constant aggregates and `insertvalue` chains; `None` when unknown.
    pub(super) fn defined_parts(
        &self,
        value: Operand,
        ty: TypeId,
        depth: u32,
    ) -> Option<Vec<bool>> {
        self.part_mask(
            value,
            ty,
            depth,
            &|constant, count| match constant {
                Constant::Undef | Constant::Poison => Some(vec![false; count]),
                _ => Some(vec![true; count]),
            },
            true,
        )
    }

    /// For each part of `ty`, what `leaf` says of the constant that gives it, followed through
    /// constant structs and arrays and through `insertvalue` chains; `other` for every part of
    /// any other value; `None` when unknown (or nested past 64 levels).
    pub(super) fn part_mask(
        &self,
        value: Operand,
        ty: TypeId,
        depth: u32,
        leaf: &dyn Fn(&Constant, usize) -> Option<Vec<bool>>,
        other: bool,
    ) -> Option<Vec<bool>> {
        let m = self.m;
        let count = self.part_count(ty)?;
        if depth > 64 {
            return None;
        }
        match value.value {
            Value::Const(c) => match m.constant(c) {
                Constant::Struct(ops) | Constant::Array(ops) => {
                    let fields = self.field_types(ty, ops.len())?;
                    let mut out = Vec::with_capacity(count);
                    for (op, field) in ops.iter().zip(fields) {
                        out.extend(self.part_mask(*op, field, depth + 1, leaf, other)?);
                    }
                    Some(out)
                }
                constant => leaf(&constant, count),
            },
            Value::Inst(i) if m.inst(i).opcode() == Opcode::InsertValue => {
                let inst = m.inst(i);
                let mut mask = self.part_mask(inst.operand(0)?, ty, depth + 1, leaf, other)?;
                let (start, sub) = self.inserted_at(ty, inst.indices())?;
                let inserted = self.part_mask(inst.operand(1)?, sub, depth + 1, leaf, other)?;
                mask.get_mut(start..start + inserted.len())?
                    .copy_from_slice(&inserted);
                Some(mask)
            }
            _ => Some(vec![other; count]),
        }
    }

    pub(super) fn scalar_int_widening(&self, ty: TypeId) -> u32 {
        match self.m.types().get(ty) {
            Type::Int { bits } if bits < 32 => 32,
            Type::Int { bits } if bits < 64 && bits != 32 => 64,
            _ => 0,
        }
    }

    pub(super) fn function(&mut self, f: FuncId) -> FunctionPlan {
        let m = self.m;
        let func = m.function(f);
        let name = func.name_str().into_owned();
        let local = self.is_local(f);
        let ptx_name = self.ptx_name(f);
        if self.symbols.unsure.contains(&f) {
            self.finding(
                f,
                None,
                "llc names unnamed globals __unnamed_N in the order its printer first writes them, which the planner cannot be sure of in this module".into(),
            );
        }
        let kernel = self.annotations.is_kernel(m, f);
        let words = header_words(m, f);
        // llc compiles no body for `available_externally` and declares nothing for it.
        let external_copy = words.iter().any(|w| w == "available_externally");
        let definition = !func.is_declaration() && !external_copy;
        let directive = self.linkage_directive(&words, kernel, definition, local);
        let line = first_line(m, f);
        let emitted =
            definition || (!external_copy && self.mentioned.contains(&f) && !is_reflect(m, f));
        let mut params = self.param_plans(f, &ptx_name, kernel);
        let ret = self.return_value(f, kernel, definition);
        let body = if definition {
            self.body(f, kernel, &ret)
        } else {
            Body::default()
        };
        for &(_, index, access) in self.merged_reads.iter().filter(|r| r.0 == f) {
            if let Some(reads) = params.get_mut(index).and_then(|p| p.reads.as_mut()) {
                reads.push(AccessPlan::from(access));
            }
        }
        self.merged_reads.retain(|r| r.0 != f);
        if let (Some(at), false) = (body.expanded_copy, body.calls.is_empty()) {
            self.finding(
                f,
                Some(at),
                "llc expands this memory intrinsic, whose length is not a constant, into a loop before selection (NVPTXLowerAggrCopies), which can change the order in which it numbers the call sequences of this function".into(),
            );
        }
        FunctionPlan {
            name,
            ptx_name,
            kind: if kernel {
                FunctionKind::Kernel
            } else {
                FunctionKind::Device
            },
            definition,
            emitted,
            line,
            directive,
            return_declaration: ret.declaration,
            params,
            return_parts: part_plans(&ret.parts),
            returns: body.returns,
            calls: body.calls,
            atomics: body.atomics,
        }
    }

    /// The directive that opens the function in PTX, from its linkage (`words`, the
    /// `define` or `declare` line's words before the name).
    fn linkage_directive(
        &self,
        words: &[String],
        kernel: bool,
        definition: bool,
        local: bool,
    ) -> String {
        let weak = words.iter().any(|w| {
            matches!(
                w.as_str(),
                "weak" | "weak_odr" | "linkonce" | "linkonce_odr" | "common"
            )
        });
        // emitLinkageDirective (measured): local symbols have none, weak and linkonce ones
        // (kernels too: OpenMP's weak_odr kernels) `.weak`, the rest `.visible`; a declaration
        // is `.extern`, or `.weak` for extern_weak.
        let kind = if kernel { ".entry" } else { ".func" };
        let directive = if !definition {
            if words.iter().any(|w| w == "extern_weak") {
                ".weak .func".to_string()
            } else {
                ".extern .func".to_string()
            }
        } else if local {
            kind.to_string()
        } else if weak {
            format!(".weak {kind}")
        } else {
            format!(".visible {kind}")
        };
        if self.nvcl {
            directive
                .split_whitespace()
                .filter(|w| !matches!(*w, ".visible" | ".extern" | ".weak"))
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            directive
        }
    }

    /// The `.param` declarations of `f`'s parameters, in order, each with its parts and the
    /// reads llc makes of it; the variadic buffer last.
    fn param_plans(&mut self, f: FuncId, ptx_name: &str, kernel: bool) -> Vec<ParamPlan> {
        let m = self.m;
        let func = m.function(f);
        let (_, param_tys, vararg) = m
            .types()
            .function_parts(func.function_type())
            .map(|(r, p, v)| (r, p.to_vec(), v))
            .unwrap_or((TypeId::VOID, Vec::new(), false));
        let mut params = Vec::new();
        for (index, &ty) in param_tys.iter().enumerate() {
            let arg = func.param(index);
            let attrs = arg.map(|a| a.attrs()).unwrap_or(&[]);
            let pname = format!("{ptx_name}_param_{index}");
            let ir_type = m.types().display(ty).to_string();
            if let Some(ety) = arg.and_then(|a| a.byval()) {
                params.push(self.byval_param(f, index, &pname, ety, attrs, kernel, ir_type));
                continue;
            }
            if kernel {
                if let Some(handle) = self.annotations.handle(f, index) {
                    params.push(self.handle_param(f, index, handle, pname, ir_type));
                    continue;
                }
            }
            let parts = self.parts(f, None, ty);
            let (declaration, align) = self.param_declaration(f, index, ty, attrs, kernel, &pname);
            let used = arg.is_some_and(|a| !m.uses(Value::Arg(a.id())).is_empty());
            let reads = if !used {
                Vec::new()
            } else if self.llc22() {
                self.llc22_reads(f, index, ty, &parts, align)
            } else {
                let packed = matches!(m.types().get(ty), Type::Struct(s) if s.packed);
                access_plans(parts::accesses_at(
                    &parts,
                    align,
                    0,
                    parts::Site::Formal { packed },
                ))
            };
            params.push(ParamPlan {
                index,
                name: pname,
                ir_type,
                byval: None,
                vararg_buffer: false,
                declaration,
                reads: Some(reads),
                parts: part_plans(&parts),
                row: None,
                read_mode: ReadMode::Value,
            });
        }
        if vararg {
            params.push(self.vararg_param(ptx_name, param_tys.len()));
        }
        params
    }

    /// An image or sampler parameter of a kernel (OpenCL's `.texref`, `.samplerref`,
    /// `.surfref`), which holds no value parts.
    fn handle_param(
        &mut self,
        f: FuncId,
        index: usize,
        handle: Handle,
        pname: String,
        ir_type: String,
    ) -> ParamPlan {
        let (declaration, reads) = if self.llc22() {
            self.llc22_handle(f, index, handle, &pname)
        } else {
            if !self.nvcl {
                self.finding(
                    f,
                    None,
                    format!("parameter {index} is an image or sampler of a CUDA kernel (`.u64 .ptr .{}`), which the planner has not measured", handle.ptx_type()),
                );
            }
            (format!(".param .{} {pname}", handle.ptx_type()), None)
        };
        ParamPlan {
            index,
            name: pname,
            ir_type,
            byval: None,
            vararg_buffer: false,
            declaration,
            reads,
            parts: Vec::new(),
            row: None,
            read_mode: ReadMode::Value,
        }
    }

    /// The declaration of a parameter passed by value (not byval, not a handle), and the
    /// alignment its reads are grouped by.
    fn param_declaration(
        &self,
        f: FuncId,
        index: usize,
        ty: TypeId,
        attrs: &[Attr],
        kernel: bool,
        pname: &str,
    ) -> (String, u64) {
        if self.should_pass_as_array(ty) {
            let align = self
                .optimized_align(Some(f), ty)
                .max(self.stack_align(attrs).unwrap_or(1))
                .max(self.annotations.param_align(f, index).unwrap_or(1));
            (
                format!(".param .align {align} .b8 {pname}[{}]", self.alloc_size(ty)),
                align,
            )
        } else if kernel {
            let t = self.kernel_scalar(ty).unwrap_or_else(|| "b0".into());
            let pointer = self.kernel_pointer_qualifiers(ty, attrs);
            (format!(".param .{t} {pointer}{pname}"), self.abi_align(ty))
        } else {
            let bits = self.scalar_bits(ty).unwrap_or(0);
            // llc 22 loads a scalar at the alignment it would give an array parameter
            // (an `i7` of a local function at 16, so in one piece).
            let align = if self.llc22() {
                self.stack_align(attrs)
                    .or_else(|| self.annotations.param_align(f, index))
                    .unwrap_or_else(|| self.optimized_align(Some(f), ty))
            } else {
                self.abi_align(ty)
            };
            (format!(".param .b{bits} {pname}"), align)
        }
    }

    /// What a kernel's pointer parameter declares between its type and its name (`.ptr
    /// .global .align 16 `); empty for other parameters and where llc writes nothing.
    fn kernel_pointer_qualifiers(&self, ty: TypeId, attrs: &[Attr]) -> String {
        // llc 19 qualifies kernel pointer parameters under OpenCL's triples only;
        // llc 22 under every triple, and names the local space too.
        match self.m.types().get(ty) {
            Type::Ptr { addrspace } if self.nvcl || self.llc22() => {
                let space = match addrspace {
                    1 => ".global ",
                    3 => ".shared ",
                    4 => ".const ",
                    5 if self.llc22() => ".local ",
                    _ => "",
                };
                format!(
                    ".ptr {space}.align {} ",
                    param_align_attr(attrs).unwrap_or(1)
                )
            }
            _ => String::new(),
        }
    }

    /// The parameter that carries a variadic function's `...`, at `index` after the fixed
    /// ones: the older lowering's unsized array, or the pointer to the buffer llc's
    /// ExpandVariadics fills.
    fn vararg_param(&self, ptx_name: &str, index: usize) -> ParamPlan {
        if !self.expands_varargs {
            // The older lowering: an unsized array the callee walks with va_arg.
            return ParamPlan {
                index,
                name: format!("{ptx_name}_vararg"),
                ir_type: "...".into(),
                byval: None,
                vararg_buffer: true,
                declaration: format!(".param .align 8 .b8 {ptx_name}_vararg[]"),
                parts: Vec::new(),
                row: None,
                read_mode: ReadMode::Value,
                reads: None,
            };
        }
        let pname = format!("{ptx_name}_param_{index}");
        ParamPlan {
            index,
            name: pname.clone(),
            ir_type: "ptr".into(),
            byval: None,
            vararg_buffer: true,
            declaration: format!(".param .b64 {pname}"),
            parts: vec![PartPlan {
                offset: 0,
                ty: "i64".into(),
                bits: 64,
            }],
            row: None,
            read_mode: ReadMode::Value,
            reads: Some(vec![AccessPlan {
                offset: 0,
                bits: 64,
                vector: 1,
            }]),
        }
    }

    /// How `f` returns its value: the `func_retval0` declaration, the parts, and the
    /// alignments its stores follow. Findings for a kernel that returns a value and, in a
    /// definition, for stores llc 19 cannot make.
    fn return_value(&mut self, f: FuncId, kernel: bool, definition: bool) -> ReturnValue {
        let ty = self.m.function(f).return_type();
        let (declaration, parts, align) = if ty == TypeId::VOID {
            (None, Vec::new(), 1)
        } else {
            if kernel {
                self.finding(
                    f,
                    None,
                    "a kernel returns a value; PTX entries return nothing".into(),
                );
            }
            let parts = self.parts(f, None, ty);
            let (declaration, align) = self.return_declaration(f, ty);
            (Some(declaration), parts, align)
        };
        // LowerReturn checks scalar parts of aggregates against the type's ABI alignment.
        let check_align = if matches!(self.m.types().get(ty), Type::Struct(_) | Type::Array { .. })
        {
            self.abi_align(ty)
        } else {
            0
        };
        if definition {
            let check = if check_align > 0 { check_align } else { align };
            self.check_store(f, None, &parts, check, "returning");
        }
        ReturnValue {
            ty,
            declaration,
            parts,
            align,
            widen: self.scalar_int_widening(ty),
            check_align,
        }
    }

    /// The `func_retval0` declaration of a function returning `ty` (not void), and the
    /// alignment its stores are grouped by.
    fn return_declaration(&self, f: FuncId, ty: TypeId) -> (String, u64) {
        if !self.should_pass_as_array(ty) {
            let bits = self.scalar_bits(ty).unwrap_or(0);
            return (format!(".param .b{bits} func_retval0"), self.abi_align(ty));
        }
        let optimized = self.optimized_align(Some(f), ty);
        // An `!"align"` annotation of the return value (index 0) replaces the
        // alignment of the declaration (and of the caller's retval0, whose loads it
        // groups); the callee's stores are still grouped by the optimized alignment
        // (measured with llc 19 and llc 22).
        // llc 22 also reads `alignstack(N)` on the return value, which llc 19's IR
        // reader rejects.
        let declared = if self.llc22() {
            self.stack_align(self.m.function(f).return_attrs())
                .or_else(|| self.annotations.return_align(f))
                .unwrap_or(optimized)
        } else {
            self.annotations.return_align(f).unwrap_or(optimized)
        };
        (
            format!(
                ".param .align {declared} .b8 func_retval0[{}]",
                self.alloc_size(ty)
            ),
            optimized,
        )
    }

    /// The returns, calls and atomics of a definition's body, in the order instruction
    /// selection meets them, and the first memory intrinsic llc expands into a loop.
    fn body(&mut self, f: FuncId, kernel: bool, ret: &ReturnValue) -> Body {
        let m = self.m;
        let mut body = Body::default();
        // Instruction selection numbers call sequences block by block in reverse post
        // order; unreachable blocks are gone by then.
        for inst in reverse_post_order(m, f)
            .into_iter()
            .flat_map(|b| m.block(b).instructions())
        {
            match inst.opcode() {
                Opcode::Ret if ret.ty != TypeId::VOID => {
                    let plan = self.return_plan(f, inst.id(), ret);
                    body.returns.push(plan);
                }
                Opcode::Call => {
                    if body.expanded_copy.is_none() && self.expands_into_loop(inst.id()) {
                        body.expanded_copy = Some(inst.id());
                    }
                    if let Some(atomic) = self.intrinsic_atomic(f, inst.id()) {
                        body.atomics.extend(atomic);
                    } else if let Some(call) = self.call(f, inst.id()) {
                        body.calls.push(call);
                    }
                }
                Opcode::Invoke | Opcode::CallBr => self.finding(
                    f,
                    Some(inst.id()),
                    format!(
                        "`{}` is not planned (NVPTX has no exceptions); call sequence numbers after it may be off",
                        inst.opcode().keyword()
                    ),
                ),
                Opcode::AtomicRmw | Opcode::CmpXchg => {
                    if let Some(a) = self.atomic(f, kernel, inst.id()) {
                        body.atomics.push(a);
                    }
                    body.calls.append(&mut self.pending_calls);
                }
                Opcode::Load | Opcode::Store => {
                    if self.llc22() && inst.opcode() == Opcode::Store {
                        self.llc22_stored_parameter(f, inst.id());
                    }
                    if let Some(a) = self.wide_atomic_access(f, inst.id()) {
                        body.atomics.push(a);
                    }
                    body.calls.append(&mut self.pending_calls);
                }
                _ => {}
            }
        }
        body
    }

    /// The `st.param` stores of one `ret` of a value.
    fn return_plan(&mut self, f: FuncId, inst: InstId, ret: &ReturnValue) -> ReturnPlan {
        let view = self.m.inst(inst);
        let stores = if self.llc22() {
            self.llc22_stores(
                f,
                Some(inst),
                view.operand(0),
                ret.ty,
                &ret.parts,
                ret.align,
                ret.widen,
            )
        } else {
            self.defined_accesses(
                view.operand(0),
                ret.ty,
                &ret.parts,
                parts::accesses_at(
                    &ret.parts,
                    ret.align,
                    ret.widen,
                    parts::Site::Return {
                        type_align: ret.check_align,
                    },
                ),
            )
        };
        ReturnPlan {
            line: view.source_pos().map_or(0, |p| p.line),
            stores: access_plans(stores),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn byval_param(
        &mut self,
        f: FuncId,
        index: usize,
        pname: &str,
        ety: TypeId,
        attrs: &[Attr],
        kernel: bool,
        ir_type: String,
    ) -> ParamPlan {
        let attr_align = param_align_attr(attrs).unwrap_or(1);
        let align = attr_align.max(self.optimized_align(Some(f), ety));
        let parts = self.parts(f, None, ety);
        let declaration = format!(
            ".param .align {align} .b8 {pname}[{}]",
            self.alloc_size(ety)
        );
        let analysis = self.byval.get(&(f, index)).cloned();
        let escapes = analysis.as_ref().is_some_and(|a| !a.escapes.is_empty());
        let clean = analysis.as_ref().is_none_or(|a| a.problems.is_empty());
        let annotated = self.annotations.is_grid_constant(f, index);
        let grid = kernel
            && (annotated || (self.pass_runs && escapes && clean && self.config.has_cvta_param()));
        let row = if !kernel {
            Row::DeviceByval
        } else if grid {
            Row::KernelByvalGrid
        } else {
            Row::KernelByval
        };
        let read_mode = if !clean || (escapes && !grid) {
            ReadMode::LocalCopy
        } else if escapes {
            ReadMode::GridConstant
        } else {
            ReadMode::InPlace
        };
        let reads = match read_mode {
            // llc copies every byte, in pieces of its choosing.
            ReadMode::LocalCopy => None,
            _ => analysis.as_ref().and_then(|a| {
                let mut out = Vec::new();
                for r in &a.reads {
                    let offset = u64::try_from(r.offset?).ok()?;
                    let align = r.align.max(parts::common_align(align, offset));
                    out.extend(self.load_accesses(r.ty, offset, align)?);
                }
                // llc reads a place once: loads of the same bytes are one ld.param.
                out.sort();
                out.dedup();
                Some(out)
            }),
        };
        ParamPlan {
            index,
            name: pname.to_string(),
            ir_type,
            byval: Some(self.m.types().display(ety).to_string()),
            vararg_buffer: false,
            declaration,
            parts: part_plans(&parts),
            row: Some(row),
            read_mode,
            reads,
        }
    }

    /// The `ld.param` of an ordinary load of `ty` from the parameter space.
    pub(super) fn load_accesses(
        &self,
        ty: TypeId,
        offset: u64,
        align: u64,
    ) -> Option<Vec<AccessPlan>> {
        let m = self.m;
        let one = |bits: u32, n: u32| {
            let bytes = u64::from(bits / 8);
            if n == 1 && align < bytes {
                // A misaligned load is split into pieces of the alignment.
                let piece = align.max(1);
                return Some(
                    (0..bytes / piece)
                        .map(|k| AccessPlan {
                            offset: offset + k * piece,
                            bits: (piece * 8) as u32,
                            vector: 1,
                        })
                        .collect(),
                );
            }
            Some(vec![AccessPlan {
                offset,
                bits,
                vector: n,
            }])
        };
        match m.types().get(ty) {
            Type::Int { bits } if matches!(bits, 1 | 8 | 16 | 32 | 64) => one(bits.max(8), 1),
            Type::Half | Type::BFloat => one(16, 1),
            Type::Float => one(32, 1),
            Type::Double => one(64, 1),
            Type::Ptr { addrspace } => one(crate::target_layout().pointer(addrspace).size_bits, 1),
            Type::Vector { len, elem, .. } if len == 2 || len == 4 => {
                let bits = match m.types().get(elem) {
                    Type::Int {
                        bits: b @ (32 | 64),
                    } => b,
                    Type::Float => 32,
                    Type::Double => 64,
                    _ => return None,
                };
                let size = u64::from(len * bits / 8);
                if size > 16 || align < size {
                    return None;
                }
                one(bits, len)
            }
            _ => None,
        }
    }
}

/// How a function returns its value, as its `ret` instructions store it.
struct ReturnValue {
    /// The return type; void for none.
    ty: TypeId,
    /// `.param .b32 func_retval0` and the like; none for void.
    declaration: Option<String>,
    /// The value parts the stores write.
    parts: Vec<Part>,
    /// The alignment the stores are grouped by.
    align: u64,
    /// The bits a scalar integer narrower than 32 or 64 is widened to (0: not widened).
    widen: u32,
    /// For an aggregate, its ABI alignment, which LowerReturn checks scalar parts against;
    /// 0 otherwise.
    check_align: u64,
}

/// What instruction selection meets in a definition's body.
#[derive(Default)]
struct Body {
    returns: Vec<ReturnPlan>,
    calls: Vec<CallPlan>,
    atomics: Vec<AtomicPlan>,
    /// The first memory intrinsic llc expands into a loop, which can reorder the numbering
    /// of call sequences.
    expanded_copy: Option<InstId>,
}

/// `promoteScalarArgumentSize`.
pub(super) fn promote(bits: u32) -> u32 {
    if bits <= 32 {
        32
    } else if bits <= 64 {
        64
    } else if bits <= 128 {
        128
    } else {
        bits
    }
}
