//! Call sites: from a `call` instruction (or an instruction llc turns into a libatomic call),
//! the [`CallPlan`]: the callee as PTX names it, the arguments' and return value's
//! `.param` declarations and `st.param`/`ld.param` accesses, variadic arguments under either
//! lowering, and the `.extern .func` declarations llc emits for the libatomic functions called.

use super::*;

impl Planner<'_> {
    /// The older vararg lowering llc 19 uses when it does not expand `...` (the module's
    /// triple is not nvptx or nvptx64): the variadic arguments go into one more parameter,
    /// `.param .align 8 .b8 param<N>[SIZE]`, each part stored right after the previous one
    /// without alignment padding, integers narrower than 32 bits as 32 (measured: `i32, i64`
    /// puts the `i64` at byte 4). `None`, with a finding, for what is not measured.
    pub(super) fn packed_varargs(
        &mut self,
        f: FuncId,
        inst: InstId,
        indirect: bool,
        call_args: &[CallArg<'_>],
        fixed: usize,
    ) -> Option<ArgPlan> {
        let m = self.m;
        let rest = &call_args[fixed.min(call_args.len())..];
        if self.llc22() {
            return self.llc22_varargs(f, inst, rest, fixed);
        }
        let unmeasured = |why: &str| {
            format!(
                "llc 19 does not expand `...` here (the module's triple is not nvptx or nvptx64); its older lowering is not measured for {why}"
            )
        };
        if indirect || rest.is_empty() {
            let why = if indirect {
                "indirect calls"
            } else {
                "a call without variadic arguments"
            };
            self.finding(f, Some(inst), unmeasured(why));
            return None;
        }
        let mut offset = 0u64;
        let mut parts_out = Vec::new();
        let mut stores = Vec::new();
        for arg in rest {
            let ty = arg.operand.ty;
            let list = if arg.byval().is_some() {
                Err(parts::Unsupported(String::new()))
            } else {
                parts::value_parts(m, ty, 0)
            };
            let Ok(list) = list else {
                self.finding(f, Some(inst), unmeasured("this argument's type"));
                return None;
            };
            for p in list {
                let bits = match p.mvt {
                    parts::Mvt::Int(b) if b <= 64 => b.max(32).next_power_of_two(),
                    parts::Mvt::F32 => 32,
                    parts::Mvt::F64 => 64,
                    _ => {
                        self.finding(f, Some(inst), unmeasured("this argument's type"));
                        return None;
                    }
                };
                parts_out.push(PartPlan {
                    offset,
                    ty: p.mvt.name(),
                    bits,
                });
                stores.push(AccessPlan {
                    offset,
                    bits,
                    vector: 1,
                });
                offset += u64::from(bits / 8);
            }
        }
        let name = format!("param{fixed}");
        Some(ArgPlan {
            index: fixed,
            declaration: format!(".param .align 8 .b8 {name}[{offset}]"),
            name,
            byval: false,
            row: Row::Direct,
            parts: parts_out,
            stores,
        })
    }

    pub(super) fn call(&mut self, f: FuncId, inst: InstId) -> Option<CallPlan> {
        let m = self.m;
        let view = m.inst(inst);
        let call = view.as_call()?;
        let callee_op = call.callee();
        if is_inline_asm(m, callee_op) {
            return None;
        }
        let fn_ty = call.function_type();
        // The function called, whatever the call's type. A call whose type differs from its
        // callee's is still a direct `call.uni` of that symbol, moving the call's own types,
        // with argument alignments from the callee (getMaybeBitcastedCallee); only what
        // getCalledFunction decides (byval alignment) sees no function.
        let target = call.called_function();
        let direct = target.filter(|&c| m.function(c).function_type() == fn_ty);
        if let Some(c) = target {
            if !self.reaches_selection(f, inst, c) {
                return None;
            }
        }
        let (ret, params, vararg) = m
            .types()
            .function_parts(fn_ty)
            .map(|(r, p, v)| (r, p.to_vec(), v))
            .unwrap_or((TypeId::VOID, Vec::new(), false));
        let seq = self.seq;
        self.seq += 1;
        let pos = view.source_pos();
        // A call to an alias is a direct `call.uni` of the alias's symbol; everything else
        // about it llc decides as for an indirect call (getCalledFunction sees no function).
        let alias_callee = match callee_op.value {
            Value::Global(g) if m.global(g).kind() == GlobalKind::Alias => {
                Some(self.symbols.name(m, g))
            }
            _ => None,
        };
        let row = if target.is_some() || alias_callee.is_some() {
            Row::Direct
        } else {
            Row::Indirect
        };
        let call_args: Vec<CallArg<'_>> = call.args().collect();
        let mut args = Vec::new();
        let mut proto_params = Vec::new();
        for (i, arg) in call_args.iter().take(params.len()).enumerate() {
            let (plan, proto) = match arg.byval() {
                Some(ety) => self.byval_arg(f, inst, i, arg, ety, direct),
                None => self.value_arg(f, inst, i, arg, target, row),
            };
            proto_params.push(proto);
            args.push(plan);
        }
        let mut vararg_buffer = Vec::new();
        if vararg && !self.expands_varargs {
            if let Some(arg) =
                self.packed_varargs(f, inst, direct.is_none(), &call_args, params.len())
            {
                proto_params.push(".param .align 8 .b8 _[]".into());
                // llc 22 declares the array before the fixed arguments.
                let at = if self.llc22() { 0 } else { args.len() };
                args.insert(at, arg);
            }
        } else if vararg {
            let (arg, slots) = self.expanded_varargs(&call_args, params.len(), row);
            proto_params.push(".param .b64 _".into());
            args.push(arg);
            vararg_buffer = slots;
        }
        let (return_declaration, return_loads, proto_ret) = self.call_result(f, inst, ret, target);
        // llc 22 calls a function whose type differs from the call's through a
        // .callprototype, as an indirect call (shouldConvertToIndirectCall); llc 19 directly.
        let converted = self.llc22() && target.is_some() && direct.is_none();
        let callee = match (target.filter(|_| !converted), alias_callee) {
            (Some(c), _) => CalleePlan {
                kind: CalleeKind::Direct,
                name: Some(self.ptx_name(c)),
                prototype: None,
            },
            (None, Some(alias)) => CalleePlan {
                kind: CalleeKind::Direct,
                name: Some(alias),
                prototype: None,
            },
            (None, None) => CalleePlan {
                kind: CalleeKind::Indirect,
                name: None,
                prototype: Some(self.call_prototype(
                    seq,
                    ret,
                    &proto_ret,
                    &proto_params,
                    call.fn_attrs_text(),
                )),
            },
        };
        let envelope = envelope(seq, &callee, &args, &return_declaration, &return_loads);
        let note = (callee.kind == CalleeKind::Indirect).then(|| {
            "an indirect callee is not wrapped in a function marked \"nvptx-libcall-callee\"=\"true\": llc 19 calls through the .callprototype and gives that attribute only to runtime-library callees (such as __atomic_compare_exchange_16)".to_string()
        });
        Some(CallPlan {
            line: pos.map_or(0, |p| p.line),
            column: pos.map_or(0, |p| p.column),
            seq,
            callee,
            row,
            args,
            vararg_buffer,
            return_declaration,
            return_loads,
            envelope,
            note,
        })
    }

    /// Whether a call of `callee` reaches instruction selection as a call: intrinsics and
    /// `__nvvm_reflect` do not. A finding for a call of an `available_externally` function,
    /// which llc neither compiles nor declares.
    fn reaches_selection(&mut self, f: FuncId, inst: InstId, callee: FuncId) -> bool {
        let m = self.m;
        if m.function(callee).name_str().starts_with("llvm.") || is_reflect(m, callee) {
            return false;
        }
        if header_words(m, callee)
            .iter()
            .any(|w| w == "available_externally")
        {
            self.finding(
                f,
                Some(inst),
                format!(
                    "llc 19 emits neither a body nor a declaration for available_externally @{}, so ptxas rejects this call",
                    m.function(callee).name_str()
                ),
            );
        }
        true
    }

    /// Fixed argument `i`, passed byval as a `ety`: the argument's plan and its entry in a
    /// `.callprototype`. `direct` is the callee when the call's type is its own, whose
    /// optimized alignment the declaration takes.
    fn byval_arg(
        &mut self,
        f: FuncId,
        inst: InstId,
        i: usize,
        arg: &CallArg<'_>,
        ety: TypeId,
        direct: Option<FuncId>,
    ) -> (ArgPlan, String) {
        let pname = format!("param{i}");
        let initial = arg.align().unwrap_or_else(|| self.abi_align(ety));
        let align = match direct {
            Some(c) => initial.max(self.optimized_align(Some(c), ety)),
            None => initial,
        };
        let size = self.alloc_size(ety);
        let parts = self.parts(f, Some(inst), ety);
        self.check_store(f, Some(inst), &parts, align, "passing");
        let plan = ArgPlan {
            index: i,
            name: pname.clone(),
            declaration: format!(".param .align {align} .b8 {pname}[{size}]"),
            byval: true,
            row: Row::DeviceByval,
            // llc 22 copies a byval argument in pieces of its own choosing (two
            // `i32` fields as one b64 where the alignment allows): not predicted.
            stores: if self.llc22() {
                Vec::new()
            } else {
                access_plans(parts::accesses(&parts, align, 0))
            },
            parts: part_plans(&parts),
        };
        (plan, format!(".param .align {initial} .b8 _[{size}]"))
    }

    /// Fixed argument `i`, passed by value: the argument's plan and its entry in a
    /// `.callprototype`. `target` is the function called, whose attributes and annotations
    /// align an array argument.
    fn value_arg(
        &mut self,
        f: FuncId,
        inst: InstId,
        i: usize,
        arg: &CallArg<'_>,
        target: Option<FuncId>,
        row: Row,
    ) -> (ArgPlan, String) {
        let m = self.m;
        let pname = format!("param{i}");
        let ty = arg.operand.ty;
        let parts = self.parts(f, Some(inst), ty);
        let (declaration, proto, align) = if self.should_pass_as_array(ty) {
            // getArgumentAlignment: the callee's `alignstack(N)` when it has one.
            let align = match target {
                Some(c) => m
                    .function(c)
                    .param(i)
                    .and_then(|p| self.stack_align(p.attrs()))
                    .or_else(|| self.annotations.param_align(c, i))
                    .unwrap_or_else(|| self.optimized_align(Some(c), ty)),
                None => self.abi_align(ty),
            };
            let size = self.alloc_size(ty);
            (
                format!(".param .align {align} .b8 {pname}[{size}]"),
                format!(".param .align {align} .b8 _[{size}]"),
                align,
            )
        } else {
            let bits = self.scalar_bits(ty).unwrap_or(0);
            (
                format!(".param .b{bits} {pname}"),
                format!(".param .b{bits} _"),
                self.abi_align(ty),
            )
        };
        self.check_store(f, Some(inst), &parts, align, "passing");
        let widen = self.scalar_int_widening(ty);
        let stores = if self.llc22() {
            self.llc22_stores(f, Some(inst), Some(arg.operand), ty, &parts, align, widen)
        } else {
            self.defined_accesses(
                Some(arg.operand),
                ty,
                &parts,
                parts::accesses(&parts, align, widen),
            )
        };
        let plan = ArgPlan {
            index: i,
            name: pname,
            declaration,
            byval: false,
            row,
            stores: access_plans(stores),
            parts: part_plans(&parts),
        };
        (plan, proto)
    }

    /// Under llc's ExpandVariadics, the arguments after the `fixed` ones: the pointer
    /// argument to the buffer they are laid out in, and where each lies in the buffer
    /// (naturally aligned, one after the other).
    fn expanded_varargs(
        &self,
        call_args: &[CallArg<'_>],
        fixed: usize,
        row: Row,
    ) -> (ArgPlan, Vec<VarargSlot>) {
        let mut slots = Vec::new();
        let mut offset = 0u64;
        for arg in call_args.iter().skip(fixed) {
            let (ty, align) = match arg.byval() {
                Some(ety) => (ety, arg.align().unwrap_or_else(|| self.abi_align(ety))),
                None => (arg.operand.ty, self.abi_align(arg.operand.ty)),
            };
            offset = offset.div_ceil(align.max(1)) * align.max(1);
            let size = self.alloc_size(ty);
            slots.push(VarargSlot {
                index: arg.index,
                offset,
                size,
            });
            offset += size;
        }
        let pname = format!("param{fixed}");
        let plan = ArgPlan {
            index: fixed,
            name: pname.clone(),
            declaration: format!(".param .b64 {pname}"),
            byval: false,
            row,
            parts: vec![PartPlan {
                offset: 0,
                ty: "i64".into(),
                bits: 64,
            }],
            stores: vec![AccessPlan {
                offset: 0,
                bits: 64,
                vector: 1,
            }],
        };
        (plan, slots)
    }

    /// The result of call `inst` returning `ret`: the `retval0` declaration (none for
    /// void), the `ld.param` loads of it, and the return list of a `.callprototype`.
    fn call_result(
        &mut self,
        f: FuncId,
        inst: InstId,
        ret: TypeId,
        target: Option<FuncId>,
    ) -> (Option<String>, Vec<AccessPlan>, String) {
        if ret == TypeId::VOID {
            // llc writes `()_ (` for void and `(.param .b32 _) _ (` otherwise.
            return (None, Vec::new(), "()".to_string());
        }
        let m = self.m;
        // llc 22 loads a call's result from retval0 only when something uses it; llc 19
        // always does.
        let result_used = !self.llc22() || !m.uses(Value::Inst(inst)).is_empty();
        let parts = self.parts(f, Some(inst), ret);
        let widen = self.scalar_int_widening(ret);
        let (declaration, mut loads, proto) = if self.should_pass_as_array(ret) {
            let align = match target {
                Some(c) if self.llc22() => self
                    .stack_align(m.function(c).return_attrs())
                    .or_else(|| self.annotations.return_align(c))
                    .unwrap_or_else(|| self.optimized_align(Some(c), ret)),
                Some(c) => self
                    .annotations
                    .return_align(c)
                    .unwrap_or_else(|| self.optimized_align(Some(c), ret)),
                None => self.abi_align(ret),
            };
            let size = self.alloc_size(ret);
            (
                format!(".param .align {align} .b8 retval0[{size}]"),
                access_plans(self.result_loads(&parts, align, widen)),
                format!("(.param .align {align} .b8 _[{size}])"),
            )
        } else {
            let bits = self.scalar_bits(ret).unwrap_or(0);
            (
                format!(".param .b{bits} retval0"),
                access_plans(self.result_loads(&parts, self.abi_align(ret), widen)),
                format!("(.param .b{bits} _)"),
            )
        };
        if !result_used {
            loads.clear();
        }
        (Some(declaration), loads, proto)
    }

    /// The `.callprototype` line of indirect call number `seq`, from the return list
    /// `proto_ret` and the parameter entries; `.noreturn` where the call's attributes
    /// (`fn_attrs`) say it never returns.
    fn call_prototype(
        &self,
        seq: u32,
        ret: TypeId,
        proto_ret: &str,
        proto_params: &[String],
        fn_attrs: &[u8],
    ) -> String {
        format!(
            "prototype_{seq} : .callprototype {proto_ret}{}_ ({}){};",
            if ret == TypeId::VOID { "" } else { " " },
            proto_params.join(", "),
            // shouldEmitPTXNoReturn: a `noreturn` call returning void (PTX 6.4).
            if ret == TypeId::VOID
                && self.config.ptx_version() >= 64
                && call_fn_attrs(&self.attribute_groups, fn_attrs)
                    .split_whitespace()
                    .any(|w| w == "noreturn")
            {
                " .noreturn"
            } else {
                ""
            }
        )
    }

    /// The call sequence of a call to libatomic's `name` that llc makes for `inst`.
    pub(super) fn libcall(&mut self, name: &'static str, inst: InstId) -> CallPlan {
        self.libcalls.insert(name);
        let seq = self.seq;
        self.seq += 1;
        let (params, ret) = atomics::libcall_signature(name);
        let args: Vec<ArgPlan> = params
            .iter()
            .enumerate()
            .map(|(index, &v)| {
                let pname = format!("param{index}");
                let (declaration, parts, stores) = libcall_param(v, &pname);
                ArgPlan {
                    index,
                    name: pname,
                    declaration,
                    byval: false,
                    row: Row::Direct,
                    parts,
                    stores,
                }
            })
            .collect();
        let (return_declaration, return_loads) = match ret {
            Some(v) => {
                let (decl, _, loads) = libcall_param(v, "retval0");
                (Some(decl), loads)
            }
            None => (None, Vec::new()),
        };
        let callee = CalleePlan {
            kind: CalleeKind::Direct,
            name: Some(name.to_string()),
            prototype: None,
        };
        let envelope = envelope(seq, &callee, &args, &return_declaration, &return_loads);
        let pos = self.m.inst(inst).source_pos();
        CallPlan {
            line: pos.map_or(0, |p| p.line),
            column: pos.map_or(0, |p| p.column),
            seq,
            callee,
            row: Row::Direct,
            args,
            vararg_buffer: Vec::new(),
            return_declaration,
            return_loads,
            envelope,
            note: Some(format!(
                "llc 19 calls libatomic's {name} for this atomic (wider than any atom instruction)"
            )),
        }
    }
}

pub(super) fn libcall_param(
    value: atomics::LibcallValue,
    name: &str,
) -> (String, Vec<PartPlan>, Vec<AccessPlan>) {
    let part = |offset, ty: &str| PartPlan {
        offset,
        ty: ty.into(),
        bits: if ty == "i64" { 64 } else { 32 },
    };
    let one = |bits| AccessPlan {
        offset: 0,
        bits,
        vector: 1,
    };
    match value {
        atomics::LibcallValue::Pointer => (
            format!(".param .b64 {name}"),
            vec![part(0, "i64")],
            vec![one(64)],
        ),
        atomics::LibcallValue::Int => (
            format!(".param .b32 {name}"),
            vec![part(0, "i32")],
            vec![one(32)],
        ),
        atomics::LibcallValue::Wide => (
            format!(".param .align 16 .b8 {name}[16]"),
            vec![part(0, "i64"), part(8, "i64")],
            vec![AccessPlan {
                offset: 0,
                bits: 64,
                vector: 2,
            }],
        ),
    }
}

/// The `.extern .func` declaration llc emits for a libatomic function it calls.
pub(super) fn libcall_declaration(name: &str, nvcl: bool) -> FunctionPlan {
    let (params, ret) = atomics::libcall_signature(name);
    let (return_declaration, return_parts) = match ret {
        Some(v) => {
            let (decl, parts, _) = libcall_param(v, "func_retval0");
            (Some(decl), parts)
        }
        None => (None, Vec::new()),
    };
    FunctionPlan {
        name: name.to_string(),
        ptx_name: name.to_string(),
        kind: FunctionKind::Device,
        definition: false,
        emitted: true,
        line: 0,
        directive: if nvcl { ".func" } else { ".extern .func" }.to_string(),
        return_declaration,
        params: params
            .iter()
            .enumerate()
            .map(|(index, &v)| {
                let pname = format!("{name}_param_{index}");
                let (declaration, parts, _) = libcall_param(v, &pname);
                ParamPlan {
                    index,
                    name: pname,
                    ir_type: match v {
                        atomics::LibcallValue::Pointer => "ptr",
                        atomics::LibcallValue::Int => "i32",
                        atomics::LibcallValue::Wide => "i128",
                    }
                    .to_string(),
                    byval: None,
                    vararg_buffer: false,
                    declaration,
                    parts,
                    row: None,
                    read_mode: ReadMode::Value,
                    reads: None,
                }
            })
            .collect(),
        return_parts,
        returns: Vec::new(),
        calls: Vec::new(),
        atomics: Vec::new(),
    }
}

/// The attribute groups of a module (`attributes #0 = { noreturn }`): `#0` to its text.
pub(super) fn attribute_groups(m: &Module) -> HashMap<String, String> {
    let source = String::from_utf8_lossy(m.source());
    source
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("attributes ")?;
            let (id, body) = rest.split_once('=')?;
            let body = body.trim().strip_prefix('{')?;
            let body = body.rsplit_once('}').map_or(body, |(b, _)| b);
            Some((id.trim().to_string(), body.to_string()))
        })
        .collect()
}

/// The words of a call's function attributes, attribute groups (`#0`) resolved.
pub(super) fn call_fn_attrs(groups: &HashMap<String, String>, attrs: &[u8]) -> String {
    let attrs = String::from_utf8_lossy(attrs);
    let mut out = String::new();
    for word in attrs.split_whitespace() {
        out.push_str(word);
        out.push(' ');
        if let Some(group) = groups.get(word) {
            out.push_str(group);
            out.push(' ');
        }
    }
    out
}

/// Whether `callee` is inline assembly (`asm "..."`), which is no call in PTX.
fn is_inline_asm(m: &Module, callee: Operand) -> bool {
    match callee.value {
        Value::Const(c) => {
            matches!(m.constant(c), Constant::Other(text) if text.starts_with(b"asm"))
        }
        _ => false,
    }
}

/// `__nvvm_reflect` and `__nvvm_reflect_ocl`: llc's NVVMReflect pass replaces their calls with
/// constants before selection, so neither the calls nor a declaration reach the PTX.
pub(super) fn is_reflect(m: &Module, f: FuncId) -> bool {
    let func = m.function(f);
    func.is_declaration() && matches!(&*func.name_str(), "__nvvm_reflect" | "__nvvm_reflect_ocl")
}
