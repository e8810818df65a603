//! NVPTX back end: `printf` becomes CUDA's `vprintf(fmt, buf)`.
//!
//! Input: the modelled calls of a module. Output: each call replaced by
//! `call i32 @vprintf(ptr fmt, ptr buf)`, whose result takes the place of printf's.
//!
//! ```text
//! %r = call i32 (ptr, ...) @printf(ptr @fmt, i32 %i, float %f)
//! ; becomes
//! entry:
//!   %vprintfBuffer.local = alloca [16 x i8], align 8
//!   ...
//!   %bufIndexed = getelementptr inbounds [16 x i8], ptr %vprintfBuffer.local, i64 0, i64 0
//!   store i32 %i, ptr %bufIndexed, align 4
//!   %fpext = fpext float %f to double
//!   %bufIndexed1 = getelementptr inbounds [16 x i8], ptr %vprintfBuffer.local, i64 0, i64 8
//!   store double %fpext, ptr %bufIndexed1, align 8
//!   %vprintf = call i32 @vprintf(ptr @fmt, ptr %vprintfBuffer.local)
//! ```
//!
//! - The arguments are promoted as C does ([`crate::promote::c_promotion`]) and packed in
//!   order, each at the next offset aligned to its ABI alignment in the module's DataLayout:
//!   what nvcc, cicc and clang do, and what the CUDA driver reads ([`Layout::Natural`]).
//! - One buffer per function, `%vprintfBuffer.local`, in the entry block, aligned for its
//!   widest argument (at least 8) and sized for the largest call, rounded up to its alignment
//!   (nvcc's local depot has the same size); every call of the function reuses it. The GEPs
//!   into it are named `bufIndexed`.
//! - Form 34 (and a form-40 call without arguments) passes a null buffer; form 85 forwards the
//!   caller's buffer. A format or buffer outside address space 0 is `addrspacecast` to generic.
//! - `declare i32 @vprintf(ptr, ptr)` is added once, when the first call needs it; `printf`'s
//!   declaration is removed once nothing uses it.
//! - More than 32 arguments is a warning: the driver prints at most 32.
//!
//! [`Layout::Slot32`] is the older slot layout instead: one 32-byte slot per argument, the value at
//! the slot's start. A value that does not fit the slot's 31 payload bytes (or a `byval`
//! struct) is passed indirectly: the slot holds a pointer to it, and bit 7 of the slot's tag
//! byte, its last byte (offset 31), is set. The worked example `("x=%d y=%f", i, f)`
//! gives a 64-byte buffer with the `double` at 32. It is not what the CUDA driver reads.

use fmtstr_ir::{EditError, FuncId, InstId, Module, Opcode, Operand, Position, TypeId};

use crate::diag::Diagnostic;
use crate::model::{Form, PrintfCall};
use crate::promote::{c_promotion, Promotion};

/// How the arguments are laid out in the buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// Natural alignment per the DataLayout: the CUDA driver's ABI.
    #[default]
    Natural,
    /// 32-byte slots (not the driver's ABI).
    Slot32,
}

/// The CUDA runtime's printf.
pub const VPRINTF: &str = "vprintf";
/// The buffer's name: the fingerprint of a vprintf-lowered function.
pub const BUFFER_NAME: &str = "vprintfBuffer.local";
/// The name of the GEPs into the buffer.
pub const GEP_NAME: &str = "bufIndexed";
/// The most arguments the CUDA driver prints.
pub const DRIVER_MAX_ARGS: usize = 32;
/// [`Layout::Slot32`]'s stride.
pub const SLOT: u64 = 32;
/// The offset of a slot's tag byte.
pub const SLOT_TAG: u64 = SLOT - 1;
/// The tag byte's indirect-operand flag.
pub const INDIRECT: u8 = 0x80;

/// What goes into one field of the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Payload {
    /// The (promoted) value.
    Value,
    /// A `byval(T)` pointer's `T`, loaded.
    Load,
    /// A `byval` pointer itself (slot32, indirect).
    Pointer,
    /// A pointer to a stack copy of a value too big for its slot (slot32, indirect).
    Spill,
}

#[derive(Clone, Copy, Debug)]
struct Field {
    arg: usize,
    promotion: Promotion,
    /// The type stored at `offset`.
    ty: TypeId,
    offset: u64,
    align: u64,
    payload: Payload,
}

/// Where each argument of every call goes: the calls' fields side by side in one list, so
/// that planning 100,000 calls allocates (and frees) one list rather than one per call.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    /// One per call, in the calls' order.
    pub layouts: Vec<CallLayout>,
    fields: Vec<Field>,
}

impl Plan {
    /// The fields of the call `layout` lays out.
    fn fields(&self, layout: &CallLayout) -> &[Field] {
        &self.fields[layout.fields.0 as usize..layout.fields.1 as usize]
    }
}

/// Where each argument of one call goes.
#[derive(Clone, Debug, Default)]
pub(crate) struct CallLayout {
    /// Its range of [`Plan`]'s fields.
    fields: (u32, u32),
    /// The first byte after the last field.
    end: u64,
    /// The largest field alignment.
    align: u64,
}

/// Checks that a `vprintf` the module already declares has the driver's type (an error at
/// `first`, the first call, otherwise).
pub(crate) fn check_declaration(
    module: &Module,
    first: &PrintfCall,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if let Some(f) = module.function_by_name(VPRINTF) {
        let ty = module.function(f).function_type();
        let types = module.types();
        if types.function_parts(ty) != Some((TypeId::I32, &[TypeId::PTR, TypeId::PTR][..], false)) {
            diagnostics.push(first.location(module).error(format!(
                "the module declares @{VPRINTF} with type {}; the CUDA driver's is i32 (ptr, ptr)",
                types.display(ty)
            )));
        }
    }
}

/// Declares `vprintf` (or finds the declaration there is).
pub(crate) fn declare_vprintf(module: &mut Module) -> Result<FuncId, EditError> {
    let ty = module
        .types_mut()
        .function(TypeId::I32, &[TypeId::PTR, TypeId::PTR], false);
    module.declare_function(VPRINTF, ty)
}

/// Checks the calls and lays out their buffers; errors and warnings go to `diagnostics`.
pub(crate) fn plan(
    module: &Module,
    calls: &[PrintfCall],
    layout: Layout,
    diagnostics: &mut Vec<Diagnostic>,
) -> Plan {
    let dl = module.data_layout();
    let types = module.types();
    let mut layouts = Vec::with_capacity(calls.len());
    let mut fields = Vec::with_capacity(calls.iter().map(|c| c.args.len()).sum());
    // Size and alignment by type: a module's printf arguments come in a handful of types.
    let mut sized_types: Vec<(TypeId, Option<(u64, u64)>)> = Vec::new();
    let mut size_and_align = |ty: TypeId| {
        if let Some(&(_, sized)) = sized_types.iter().find(|(t, _)| *t == ty) {
            return sized;
        }
        let sized = dl
            .alloc_size(types, ty)
            .and_then(|size| Ok((size, dl.abi_align(types, ty)?)))
            .ok();
        sized_types.push((ty, sized));
        sized
    };
    for call in calls {
        if call.args.len() > DRIVER_MAX_ARGS {
            diagnostics.push(call.location(module).warning(
                format!(
                    "the CUDA driver prints at most {DRIVER_MAX_ARGS} printf arguments; this \
                     call passes {}",
                    call.args.len()
                ),
                "-Wvprintf-limit",
            ));
        }
        let first = fields.len() as u32;
        let mut out = CallLayout {
            fields: (first, first),
            end: 0,
            align: 1,
        };
        for (index, arg) in call.args.iter().enumerate() {
            let promotion = c_promotion(module, arg);
            let (mut ty, mut payload) = match arg.byval {
                Some(t) if layout == Layout::Natural => (t, Payload::Load),
                Some(_) => (arg.operand.ty, Payload::Pointer),
                None => (promotion.result_type(arg.operand.ty), Payload::Value),
            };
            let (mut size, mut align) = match size_and_align(ty) {
                Some(sized) => sized,
                None => {
                    diagnostics.push(call.location(module).error(format!(
                        "argument {} has type {}, which printf cannot pass",
                        index + 1,
                        types.display(arg.operand.ty)
                    )));
                    continue;
                }
            };
            if layout == Layout::Slot32 && payload == Payload::Value && size > SLOT_TAG {
                payload = Payload::Spill;
                ty = TypeId::PTR;
                size = 8;
                align = dl.abi_align(types, TypeId::PTR).unwrap_or(8);
            }
            let offset = match layout {
                Layout::Natural => out.end.next_multiple_of(align),
                Layout::Slot32 => SLOT * index as u64,
            };
            fields.push(Field {
                arg: index,
                promotion,
                ty,
                offset,
                align,
                payload,
            });
            out.end = match layout {
                Layout::Natural => offset + size,
                Layout::Slot32 => offset + SLOT,
            };
            out.align = out.align.max(align);
        }
        out.fields.1 = fields.len() as u32;
        layouts.push(out);
    }
    refuse_stack_protectors(module, calls, &layouts, diagnostics);
    Plan { layouts, fields }
}

/// The attributes that ask for a stack protector.
pub const STACK_PROTECTOR_ATTRS: [&str; 3] = ["sspreq", "sspstrong", "ssp"];

/// A function that gets a vprintf buffer must not ask for a stack protector: llc-19 would
/// guard the buffer with one, which NVPTX does not have (`LLVM ERROR: Undefined external
/// symbol ""`). fmtstr refuses such a function, once, at its first call that needs the buffer,
/// rather than change attributes the module's author chose.
fn refuse_stack_protectors(
    module: &Module,
    calls: &[PrintfCall],
    layouts: &[CallLayout],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut last = None;
    for (call, layout) in calls.iter().zip(layouts) {
        if call.form != Form::Varargs || layout.has_no_fields() || last == Some(call.function) {
            continue;
        }
        last = Some(call.function);
        let function = module.function(call.function);
        if let Some(attr) = function.first_fn_attr(&STACK_PROTECTOR_ATTRS) {
            diagnostics.push(call.location(module).error(format!(
                "@{} has `{attr}`: NVPTX has no stack protector, and llc-19 cannot compile \
                 one around the stack buffer vprintf needs here; compile the source without \
                 it (clang: -fno-stack-protector) or remove `{attr}` from the function",
                function.name_str()
            )));
        }
    }
}

/// Rewrites the calls as planned (`printf`'s declaration stays: whether anything still uses
/// it is the caller's question). The calls are in module order.
pub(crate) fn apply(
    module: &mut Module,
    calls: &[PrintfCall],
    plan: &Plan,
) -> Result<(), EditError> {
    let layouts = &plan.layouts;
    let fields: usize = layouts
        .iter()
        .map(|l| (l.fields.1 - l.fields.0) as usize)
        .sum();
    module.reserve_new(
        2 * fields + 2 * calls.len(),
        5 * fields + 4 * calls.len(),
        calls.len(),
    );
    let mut vprintf = None;
    let mut scratch = Scratch::default();
    let mut start = 0;
    while start < calls.len() {
        let function = calls[start].function;
        let end = start
            + calls[start..]
                .iter()
                .take_while(|c| c.function == function)
                .count();
        lower_function(
            module,
            function,
            &calls[start..end],
            &layouts[start..end],
            plan,
            &mut vprintf,
            &mut scratch,
        )?;
        start = end;
    }
    Ok(())
}

/// Lists [`lower_function`] fills and empties, kept from one function to the next.
#[derive(Default)]
struct Scratch {
    /// A call's variadic operands.
    current: Vec<Operand>,
    /// The old calls, with the results that take their place.
    replaced: Vec<(InstId, Option<Operand>)>,
    /// The old calls nothing uses.
    unused: Vec<InstId>,
}

fn lower_function(
    module: &mut Module,
    function: FuncId,
    calls: &[PrintfCall],
    layouts: &[CallLayout],
    plan: &Plan,
    vprintf: &mut Option<FuncId>,
    scratch: &mut Scratch,
) -> Result<(), EditError> {
    let Scratch {
        current,
        replaced,
        unused,
    } = scratch;
    // The one buffer: aligned for the widest field (at least 8), sized for the largest call.
    let needs_buffer =
        |(c, l): &(&PrintfCall, &CallLayout)| c.form == Form::Varargs && !l.has_no_fields();
    let align = calls
        .iter()
        .zip(layouts)
        .filter(needs_buffer)
        .map(|(_, l)| l.align)
        .fold(8, u64::max);
    let size = calls
        .iter()
        .zip(layouts)
        .filter(needs_buffer)
        .map(|(_, l)| l.end.next_multiple_of(align))
        .max();
    let buffer = match size {
        Some(size) => {
            let ty = module.types_mut().array(size, TypeId::I8);
            let buffer =
                module
                    .builder(Position::EntryAllocas(function))?
                    .alloca(ty, align, BUFFER_NAME)?;
            Some((buffer, ty))
        }
        None => None,
    };
    let zero = module.const_int(TypeId::I64, 0);
    let flag = module.const_int(TypeId::I8, i64::from(INDIRECT as i8));
    let null = module.const_null(TypeId::PTR);
    replaced.clear();
    for (call, layout) in calls.iter().zip(layouts) {
        let fields = plan.fields(layout);
        let callee = match *vprintf {
            Some(f) => f,
            None => {
                let f = declare_vprintf(module)?;
                *vprintf = Some(f);
                f
            }
        };
        // Each spilled field's stack slot and alignment (slot32 only: none in the natural
        // layout, which then allocates nothing here).
        let spilling = fields.iter().any(|f| f.payload == Payload::Spill);
        let spills: Vec<Option<(Operand, u64)>> = fields
            .iter()
            .filter(|_| spilling)
            .map(|field| -> Result<Option<(Operand, u64)>, EditError> {
                if field.payload != Payload::Spill {
                    return Ok(None);
                }
                let value_ty = field.promotion.result_type(call.args[field.arg].operand.ty);
                let align = module
                    .data_layout()
                    .abi_align(module.types(), value_ty)
                    .unwrap_or(8);
                let slot = module.builder(Position::EntryAllocas(function))?.alloca(
                    value_ty,
                    align,
                    "vprintfIndirect",
                )?;
                Ok(Some((slot, align)))
            })
            .collect::<Result<_, _>>()?;
        call.current_variadic(module, current);
        let mut b = module.builder(Position::Before(call.inst))?;
        b.debug_loc_from(call.inst);
        let fmt = generic(&mut b, call.format.operand, "fmt")?;
        let buf = match (call.form, buffer) {
            (Form::PrePacked, _) => {
                let packed = current
                    .first()
                    .copied()
                    .ok_or_else(|| EditError::Invalid("form 85 without a buffer operand".into()))?;
                generic(&mut b, packed, "buf")?
            }
            (Form::Varargs, Some((buffer, array))) if !fields.is_empty() => {
                for (k, field) in fields.iter().enumerate() {
                    let spill = spills.get(k).copied().flatten();
                    let operand = current[field.arg];
                    let value = match field.payload {
                        Payload::Value => field.promotion.apply(&mut b, operand)?,
                        Payload::Load => b.load(field.ty, operand, field.align, "byval")?,
                        Payload::Pointer => operand,
                        Payload::Spill => {
                            let value = field.promotion.apply(&mut b, operand)?;
                            let (slot, align) = spill
                                .ok_or_else(|| EditError::Invalid("missing spill slot".into()))?;
                            b.store(value, slot, align)?;
                            slot
                        }
                    };
                    let at = b.const_int(TypeId::I64, field.offset as i64);
                    let ptr = b.gep(array, buffer, &[zero, at], true, GEP_NAME)?;
                    b.store(value, ptr, field.align)?;
                    if matches!(field.payload, Payload::Pointer | Payload::Spill) {
                        let tag_at = b.const_int(TypeId::I64, (field.offset + SLOT_TAG) as i64);
                        let ptr = b.gep(array, buffer, &[zero, tag_at], true, GEP_NAME)?;
                        b.store(flag, ptr, 1)?;
                    }
                }
                buffer
            }
            _ => null,
        };
        let new = b.call(callee, &[(fmt, &[]), (buf, &[])], "vprintf")?;
        drop(b);
        let old = module.inst(call.inst);
        let result = if call.result_used && old.ty() == TypeId::I32 {
            let result = module
                .inst(new)
                .result()
                .ok_or_else(|| EditError::Invalid("vprintf's call has no result".into()))?;
            Some(result)
        } else {
            None
        };
        replaced.push((call.inst, result));
    }
    // The old calls go last, all at once once their results are replaced: one scan of the
    // function checks them, where removing each would look up each in its block.
    unused.clear();
    for &(old, result) in replaced.iter() {
        if let Some(result) = result {
            module.replace_all_uses(fmtstr_ir::Value::Inst(old), result)?;
        }
        unused.push(old);
    }
    module.remove_insts(unused)
}

/// The pointer as a generic (`addrspace(0)`) one.
fn generic(
    b: &mut fmtstr_ir::Builder<'_>,
    pointer: Operand,
    hint: &'static str,
) -> Result<Operand, EditError> {
    match b.module().types().ptr_addrspace(pointer.ty) {
        Some(0) | None => Ok(pointer),
        Some(_) => b.cast(Opcode::AddrSpaceCast, pointer, TypeId::PTR, hint),
    }
}

impl CallLayout {
    /// Whether the call passes nothing in a buffer.
    fn has_no_fields(&self) -> bool {
        self.fields.0 == self.fields.1
    }

    /// The bytes of this call's `vprintf` argument buffer: its fields, rounded up to their
    /// largest alignment (the size of the struct clang passes; 0 without arguments). What
    /// `--report` gives per call.
    pub(crate) fn payload_bytes(&self) -> u64 {
        self.end.next_multiple_of(self.align.max(1))
    }
}
