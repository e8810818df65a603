//! Extraction: every printf call in a module, as a [`PrintfCall`], with its diagnostics.
//!
//! Input: a parsed module. Output: the calls to `printf` (and, when asked, to
//! `lgc.debug.printf`), in module order, each with its form, its resolved format string and its
//! variadic arguments; plus every error and `-Wformat` warning found on the way. The module is
//! not changed.
//!
//! - A module with calls but without `target datalayout` gets one error, at its first call.
//! - A call must be a `call` (not an `invoke`) returning `i32` or `void`.
//! - The form comes from `!printf.form !{i8 N}`, else from the argument count (34 or 40). Form
//!   34 takes no arguments and form 85 exactly one pointer, the caller's packed buffer.
//! - The format operand must resolve, directly or through constant `getelementptr`, `bitcast`
//!   and `addrspacecast` expressions, to a constant string global in address space 0 or 4.
//! - Each argument learns which conversion reads it (the class steers integer promotion), and
//!   the arguments are checked against the format like clang's `-Wformat` does.

use foldhash::HashMap;
use std::sync::Arc;

use fmtstr_format::{ArgClass, ArgType, CleanChecks, Dialect, FindingKind, Format, ScalarType};
use fmtstr_ir::{Attr, Constant, GlobalId, InstId, Module, Opcode, Type, TypeId, Value};

use crate::diag::{self, Diagnostic, Location};
use crate::model::{Argument, Callee, Extend, Form, FormatString, PrintfCall};

/// The name of the C function.
pub const PRINTF: &str = "printf";
pub use crate::model::LGC_DEBUG_PRINTF;

/// What extraction found.
#[derive(Debug, Default)]
pub struct Extraction {
    /// The calls that could be modelled, in module order.
    pub calls: Vec<PrintfCall>,
    /// Errors and warnings, in module order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Extraction {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Finds and models the calls to `printf`, and to `lgc.debug.printf` when `lgc` is set.
pub fn extract(module: &Module, lgc: bool) -> Extraction {
    let mut out = Extraction::default();
    let printf = module.global_by_name(PRINTF);
    let lgc_printf = if lgc {
        module.global_by_name(LGC_DEBUG_PRINTF)
    } else {
        None
    };
    let targets: Vec<GlobalId> = printf.into_iter().chain(lgc_printf).collect();
    if targets.is_empty() {
        return out;
    }
    // One pass: the calls, and which of their results something uses.
    let mut used: Vec<InstId> = Vec::new();
    let mut mine = IdSet::default();
    let found = module.calls_to_any(&targets);
    // The calls of one function at a time: printf's result is seldom used, and usually no
    // function text names one.
    for calls in found.chunk_by(|&a, &b| module.inst(a).function() == module.inst(b).function()) {
        if calls.iter().all(|&c| !module.inst(c).may_be_used()) {
            continue;
        }
        let function = module.function(module.inst(calls[0]).function());
        mine.reset(calls);
        for inst in function.instructions() {
            for op in inst.operands() {
                if let Value::Inst(id) = op.value {
                    if mine.contains(id) {
                        used.push(id);
                    }
                }
            }
        }
    }
    used.sort_unstable();
    if found.is_empty() {
        return out;
    }
    if module.data_layout().as_str().is_empty() {
        out.diagnostics
            .push(Location::of(module, found[0]).error(diag::NO_DATALAYOUT));
        return out;
    }
    let mut formats = Formats::default();
    out.calls.reserve_exact(found.len());
    for inst in found {
        match model_call(module, inst, lgc_printf, &mut formats, &mut out.diagnostics) {
            Some(mut call) => {
                call.result_used = used.binary_search(&inst).is_ok();
                out.calls.push(call);
            }
            None => continue,
        }
    }
    out
}

/// A set of instruction ids as a bitmap over their span: a function's calls, which every
/// operand of the function is tested against.
#[derive(Default)]
struct IdSet {
    low: usize,
    bits: Vec<u64>,
}

impl IdSet {
    fn reset(&mut self, ids: &[InstId]) {
        let low = ids.iter().map(|id| id.index()).min().unwrap_or(0);
        let high = ids.iter().map(|id| id.index()).max().unwrap_or(0);
        self.low = low;
        self.bits.clear();
        self.bits.resize((high - low) / 64 + 1, 0);
        for id in ids {
            let k = id.index() - low;
            self.bits[k / 64] |= 1 << (k % 64);
        }
    }

    fn contains(&self, id: InstId) -> bool {
        let k = id.index().wrapping_sub(self.low);
        self.bits
            .get(k / 64)
            .is_some_and(|w| w & (1 << (k % 64)) != 0)
    }
}

/// Models one call; `None` after pushing an error.
fn model_call<'m>(
    module: &'m Module,
    inst: InstId,
    lgc_printf: Option<GlobalId>,
    formats: &mut Formats<'m>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<PrintfCall> {
    let view = module.inst(inst);
    let call = view.as_call()?;
    // The arguments' views go in a buffer the calls share (most calls allocate nothing).
    let mut args = std::mem::take(&mut formats.args);
    args.clear();
    args.extend(call.args());
    let modelled = model_args(module, inst, view, &args, lgc_printf, formats, diagnostics);
    formats.args = args;
    modelled
}

/// [`model_call`] given the call's arguments.
fn model_args<'m>(
    module: &'m Module,
    inst: InstId,
    view: fmtstr_ir::Inst<'m>,
    args: &[fmtstr_ir::CallArg<'m>],
    lgc_printf: Option<GlobalId>,
    formats: &mut Formats<'m>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<PrintfCall> {
    // Diagnostics are rare: where the call is gets worked out only for one.
    let location = || Location::of(module, inst);
    let call = view.as_call()?;
    let is_lgc = matches!(call.callee().value, Value::Global(g) if Some(g) == lgc_printf);
    check_instruction(module, view, &location, diagnostics)?;
    let (callee, fixed) = callee_of(module, args, is_lgc, &location, diagnostics)?;
    let variadic = &args[fixed..];
    let form = form_of(view, variadic, &location, diagnostics)?;
    let ResolvedFormat {
        format,
        seen: seen_at,
        parse_error,
    } = resolve_format(
        module,
        args[fixed - 1].operand,
        is_lgc,
        formats,
        &location,
        diagnostics,
    )?;
    let prepacked = form_operands(module, form, variadic, is_lgc, &location, diagnostics)?;

    let mut arguments = Vec::new();
    let mut checker_found = false;
    if form != Form::PrePacked {
        arguments = model_variadic(variadic, &formats.seen[seen_at].0.classes);
        checker_found =
            check_against_format(module, formats, seen_at, &arguments, &location, diagnostics);
    }
    if let (Some(error), false) = (parse_error, checker_found) {
        diagnostics.push(
            location()
                .warning(format!("invalid format string: {error}"), "-Wformat")
                .with_note(diag::format_excerpt(&format.bytes, error.offset)),
        );
    }

    Some(PrintfCall {
        inst,
        function: view.function(),
        callee,
        form,
        format,
        args: arguments,
        prepacked,
        result_used: false,
    })
}

/// Whether the call can be rewritten: a `call` (not a terminator such as `invoke`) returning
/// `i32` or `void`. `None` after pushing an error.
fn check_instruction(
    module: &Module,
    view: fmtstr_ir::Inst<'_>,
    location: &dyn Fn() -> Location,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<()> {
    if view.opcode() != Opcode::Call {
        diagnostics.push(location().error(format!(
            "printf reached through `{}` cannot be lowered: the rewrite replaces a call, not a \
             terminator; call it with `call`",
            view.opcode().keyword()
        )));
        return None;
    }
    let ret = view.ty();
    if ret != TypeId::VOID && ret != TypeId::I32 {
        diagnostics.push(location().error(format!(
            "this printf call returns {}; printf returns i32",
            module.types().display(ret)
        )));
        return None;
    }
    Some(())
}

/// The callee, and how many operands come before the variadic arguments (the format, and an
/// older-form `lgc.debug.printf`'s buffer before it). `None` after pushing an error when the
/// call has fewer operands.
fn callee_of(
    module: &Module,
    args: &[fmtstr_ir::CallArg<'_>],
    is_lgc: bool,
    location: &dyn Fn() -> Location,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(Callee, usize)> {
    let buffer_first = is_lgc && lgc_buffer_first(module, args);
    let fixed = if buffer_first { 2 } else { 1 };
    if args.len() < fixed {
        diagnostics.push(location().error(if is_lgc {
            LGC_OPERANDS
        } else {
            diag::NOT_A_STRING_LITERAL
        }));
        return None;
    }
    let callee = if is_lgc {
        Callee::LgcDebugPrintf {
            buffer: buffer_first.then_some(args[0].operand),
        }
    } else {
        Callee::Printf
    };
    Some((callee, fixed))
}

/// The call's form: its `!printf.form` tag, else inferred from whether it passes arguments.
/// `None` after pushing an error for a tag that is not an `i8` of a known form.
fn form_of(
    view: fmtstr_ir::Inst<'_>,
    variadic: &[fmtstr_ir::CallArg<'_>],
    location: &dyn Fn() -> Location,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Form> {
    let Some(node) = view.metadata("printf.form") else {
        return Some(if variadic.is_empty() {
            Form::Bare
        } else {
            Form::Varargs
        });
    };
    let Some(tag) = node.int_operand(0) else {
        diagnostics.push(location().error(format!(
            "{} (`!printf.form` must be `!{{i8 N}}` with N one of 34, 40, 85)",
            diag::unsupported_form("?")
        )));
        return None;
    };
    // An i8 tag written negative is the byte it stands for.
    let tag = if (-128..0).contains(&tag) {
        tag + 256
    } else {
        tag
    };
    let form = Form::from_tag(tag);
    if form.is_none() {
        diagnostics.push(location().error(diag::unsupported_form(tag)));
    }
    form
}

/// Whether the variadic operands fit the form: none for form 34, exactly one pointer for form
/// 85 (never for `lgc.debug.printf`). Gives form 85's buffer operand; `None` after pushing an
/// error.
fn form_operands(
    module: &Module,
    form: Form,
    variadic: &[fmtstr_ir::CallArg<'_>],
    is_lgc: bool,
    location: &dyn Fn() -> Location,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Option<fmtstr_ir::Operand>> {
    match form {
        Form::Bare if !variadic.is_empty() => {
            diagnostics.push(location().error(format!(
                "printf form 34 (bare format) takes no arguments, but the call passes {}",
                variadic.len()
            )));
            None
        }
        Form::PrePacked => {
            let is_ptr = variadic.len() == 1
                && module
                    .types()
                    .ptr_addrspace(variadic[0].operand.ty)
                    .is_some();
            if !is_ptr || is_lgc {
                diagnostics.push(location().error(format!(
                    "printf form 85 (pre-packed buffer) takes exactly one pointer after the \
                     format string, but the call passes {}",
                    describe_args(module, variadic.iter().map(|a| a.operand.ty))
                )));
                return None;
            }
            Some(Some(variadic[0].operand))
        }
        _ => Some(None),
    }
}

/// Each variadic argument with the class of the conversion that reads it (`classes`, by
/// position) and how it widens: as its `signext`/`zeroext` attribute says, else zero for an
/// unsigned conversion and sign for anything else.
fn model_variadic(variadic: &[fmtstr_ir::CallArg<'_>], classes: &[ArgClass]) -> Vec<Argument> {
    let mut arguments = Vec::with_capacity(variadic.len());
    for (index, arg) in variadic.iter().enumerate() {
        let class = classes.get(index).copied();
        let extend = if arg.has(Attr::SignExt) {
            Extend::Sign
        } else if arg.has(Attr::ZeroExt) || class == Some(ArgClass::Unsigned) {
            Extend::Zero
        } else {
            Extend::Sign
        };
        arguments.push(Argument {
            operand: arg.operand,
            class,
            extend,
            byval: arg.byval(),
        });
    }
    arguments
}

/// Checks the arguments' types against the format (`-Wformat`), unless one has a type the
/// checker does not know or the pair was found clean before. Whether the checker said
/// anything: its findings then replace the format's parse error.
fn check_against_format(
    module: &Module,
    formats: &mut Formats<'_>,
    seen_at: usize,
    arguments: &[Argument],
    location: &dyn Fn() -> Location,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let mut checker_found = false;
    // The same format with the same argument types checks the same: a clean pair is
    // remembered, so that a format printed from many places is checked once.
    let mut types = std::mem::take(&mut formats.types);
    types.clear();
    let typed = arguments
        .iter()
        .all(|a| match formats.arg_type(module, a.operand.ty) {
            Some(ty) => {
                types.push(ty);
                true
            }
            None => false,
        });
    if typed {
        let Formats { seen, checks, .. } = &mut *formats;
        let (parsed, clean) = &mut seen[seen_at];
        // A remembered pair is clean: the checker has nothing to say about it.
        if !clean.iter().any(|c| **c == *types) {
            let found =
                check_arguments(checks, &parsed.as_written(), &types, location, diagnostics);
            // The checker's findings name what the renderer's grammar refuses, in its own
            // words; the parse error is said only when the checker has nothing to say.
            checker_found = found;
            if !found {
                clean.push(types.as_slice().into());
            }
        }
    }
    formats.types = types;
    checker_found
}

/// The operands `lgc.debug.printf` takes, for an error.
const LGC_OPERANDS: &str = "lgc.debug.printf takes a format string and its arguments: \
    `(ptr @fmt, args...)` (LLPC since mid 2024), or a buffer first: `(ptr addrspace(7) %buf, \
    ptr addrspace(4) @fmt, args...)` (before); @fmt a global holding the string";

/// The error for an `lgc.debug.printf` format that is not a string global.
const LGC_NOT_A_STRING: &str = "the format of lgc.debug.printf must be a global variable \
    holding the string (`[n x i8] c\"...\"`, with or without a NUL), as LLPC reads it; this \
    operand is not one";

/// Whether an `lgc.debug.printf` call has the older form, a buffer before the format: its first
/// operand is a buffer fat pointer (`ptr addrspace(7)`, `poison` included), or it is some other
/// pointer that is not a string global while the second operand is one. Anything else is read
/// as today's form, whose first operand must then be the format.
fn lgc_buffer_first(module: &Module, args: &[fmtstr_ir::CallArg<'_>]) -> bool {
    let Some(first) = args.first() else {
        return false;
    };
    let types = module.types();
    let Some(addrspace) = types.ptr_addrspace(first.operand.ty) else {
        return false;
    };
    if addrspace == crate::model::FAT_POINTER_ADDRSPACE {
        return true;
    }
    let is_string_global = |operand: fmtstr_ir::Operand| {
        module.resolve_global(operand).is_some_and(|target| {
            matches!(module.global(target.global).addrspace(), 0 | 4)
                && module.global(target.global).as_function().is_none()
        })
    };
    !is_string_global(first.operand)
        && args
            .get(1)
            .is_some_and(|second| is_string_global(second.operand))
}

/// The bytes of a global's initializer when it is a byte array: a `constant`, or (for LLPC's
/// forms) a plain `global` too. `None` for anything else.
fn initializer_bytes(module: &Module, global: GlobalId, plain_too: bool) -> Option<Vec<u8>> {
    if let Some(bytes) = module.global_bytes(global) {
        return Some(bytes);
    }
    if !plain_too {
        return None;
    }
    let init = module.global(global).initializer()?;
    let Value::Const(c) = init.value else {
        return None;
    };
    match module.constant(c) {
        Constant::Bytes(bytes) => Some(bytes),
        Constant::Array(elements) => elements
            .iter()
            .map(|e| match e.value {
                Value::Const(c) if e.ty == TypeId::I8 => module.int_value(c).map(|v| v as u8),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// The format string a pointer operand points at: from its offset into the global up to the
/// first NUL, or to the end of the array when there is none (LLPC's older form writes
/// `[n x i8]` without one). `lgc` also takes plain `global` variables, as LLPC does.
fn format_bytes_at(module: &Module, operand: fmtstr_ir::Operand, lgc: bool) -> Option<Vec<u8>> {
    if !lgc {
        return module.c_string_at(operand);
    }
    let target = module.resolve_global(operand)?;
    let bytes = initializer_bytes(module, target.global, true)?;
    let rest = bytes.get(usize::try_from(target.offset).ok()?..)?;
    Some(fmtstr_format::before_nul(rest).to_vec())
}

/// What follows a format's first NUL in its global, from that NUL to the last non-NUL byte,
/// when there is such text (printf never prints it); `len` is the format's length.
fn text_after_nul(module: &Module, target: fmtstr_ir::GlobalRef, len: usize) -> Option<Vec<u8>> {
    // Usually the array ends with the format's NUL: nothing to read again.
    let global = module.global(target.global);
    if let Type::Array { len: array, .. } = module.types().get(global.value_type()) {
        let room = array.saturating_sub(u64::try_from(target.offset).ok()?);
        if room <= len as u64 + 1 {
            return None;
        }
    }
    let bytes = initializer_bytes(module, target.global, true)?;
    let rest = bytes.get(usize::try_from(target.offset).ok()?..)?;
    let after = rest.get(len..)?;
    let end = after.iter().rposition(|&b| b != 0)?;
    Some(after[..=end].to_vec())
}

/// Format strings seen so far, by where they point: each is read and parsed once.
#[derive(Default)]
struct Formats<'m> {
    /// Each format read so far, with the argument type lists the checker found nothing wrong
    /// with.
    seen: Vec<(Parsed, Vec<Box<[ArgType]>>)>,
    /// Where a format at the start of its global is in `seen`, plus one (0: not read yet),
    /// by global: most formats are, and a vector's slot is found without hashing and grows
    /// in one piece.
    at_start: Vec<u32>,
    /// Where the other formats are in `seen`.
    inside: HashMap<(GlobalId, i64), u32>,
    /// The argument types of the call being modelled (reused: most calls only look up).
    types: Vec<ArgType>,
    /// The arguments of the call being modelled (reused).
    args: Vec<fmtstr_ir::CallArg<'m>>,
    /// The checker's view of each IR type met so far: a module's printf arguments come in a
    /// handful of types.
    arg_types: Vec<(TypeId, Option<ArgType>)>,
    /// The checks that found nothing, by the shape of their formats.
    checks: CleanChecks,
}

impl Formats<'_> {
    /// [`arg_type`], remembered.
    fn arg_type(&mut self, module: &Module, ty: TypeId) -> Option<ArgType> {
        if let Some(&(_, known)) = self.arg_types.iter().find(|(t, _)| *t == ty) {
            return known;
        }
        let found = arg_type(module, ty);
        self.arg_types.push((ty, found));
        found
    }
}

/// A format string's bytes and what parsing them gave.
struct Parsed {
    bytes: Arc<[u8]>,
    /// Text after the format's first NUL, with that NUL: never printed.
    hidden: Option<Box<[u8]>>,
    /// Why the renderer's grammar refuses the format, if it does.
    parse_error: Option<fmtstr_format::ParseError>,
    /// What each argument the format consumes reads, in order (`*` reads an int). Kept as
    /// the parse made it: a boxed slice would be copied to its exact size.
    classes: Vec<ArgClass>,
}

impl Parsed {
    /// The format's bytes including any text after its first NUL: what the checker reads (it
    /// warns about that text as clang does, and then stops, as clang does).
    fn as_written(&self) -> std::borrow::Cow<'_, [u8]> {
        match &self.hidden {
            Some(hidden) => [&self.bytes[..], &hidden[..]].concat().into(),
            None => self.bytes[..].into(),
        }
    }
}

/// A call's format string, resolved and parsed.
struct ResolvedFormat {
    format: FormatString,
    /// Where it is in [`Formats::seen`].
    seen: usize,
    /// Why the renderer's grammar refuses the format, if it does.
    parse_error: Option<fmtstr_format::ParseError>,
}

/// Resolves the format operand to a constant string global in address space 0 or 4.
fn resolve_format(
    module: &Module,
    operand: fmtstr_ir::Operand,
    lgc: bool,
    formats: &mut Formats,
    location: &dyn Fn() -> Location,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<ResolvedFormat> {
    let not_a_string = if lgc {
        LGC_NOT_A_STRING
    } else {
        diag::NOT_A_STRING_LITERAL
    };
    let Some(target) = module.resolve_global(operand) else {
        diagnostics.push(location().error(not_a_string));
        return None;
    };
    let addrspace = module.global(target.global).addrspace();
    if addrspace != 0 && addrspace != 4 {
        diagnostics.push(
            location()
                .error(diag::NOT_CONSTANT_ADDRSPACE)
                .with_note(format!(
                    "  note: @{} is in addrspace({addrspace}); format strings must be constant \
                     globals in address space 0 or 4",
                    module.global(target.global).name_str()
                )),
        );
        return None;
    }
    let known = match target.offset {
        0 => formats
            .at_start
            .get(target.global.index())
            .and_then(|&k| k.checked_sub(1)),
        _ => formats.inside.get(&(target.global, target.offset)).copied(),
    };
    let seen = match known {
        Some(k) => k as usize,
        None => {
            let Some(bytes) = format_bytes_at(module, operand, lgc) else {
                diagnostics.push(location().error(not_a_string));
                return None;
            };
            let (classes, parse_error) = match Format::argument_classes(&bytes) {
                Ok(classes) => (classes, None),
                Err(error) => (Vec::new(), Some(error)),
            };
            let hidden = text_after_nul(module, target, bytes.len()).map(Box::from);
            let parsed = Parsed {
                parse_error,
                bytes: bytes.into(),
                hidden,
                classes,
            };
            let k = formats.seen.len() as u32;
            formats.seen.push((parsed, Vec::new()));
            match target.offset {
                0 => {
                    let g = target.global.index();
                    if formats.at_start.len() <= g {
                        formats.at_start.resize(g + 1, 0);
                    }
                    formats.at_start[g] = k + 1;
                }
                offset => {
                    formats.inside.insert((target.global, offset), k);
                }
            }
            k as usize
        }
    };
    let parsed = &formats.seen[seen].0;
    Some(ResolvedFormat {
        seen,
        format: FormatString {
            operand,
            global: target.global,
            offset: target.offset,
            addrspace,
            bytes: parsed.bytes.clone(),
        },
        parse_error: parsed.parse_error.clone(),
    })
}

/// clang's `-Wformat` on the IR argument types, with the GPU dialect's own warnings; whether it
/// found anything. Every finding is a `-Wformat` warning (`--Werror` makes them errors).
fn check_arguments(
    checks: &mut CleanChecks,
    format: &[u8],
    types: &[ArgType],
    location: &dyn Fn() -> Location,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let findings = checks.check(format, types, Dialect::Gpu);
    let found = !findings.is_empty();
    for finding in findings {
        let message = match (finding.kind, finding.arg_index) {
            (FindingKind::TooFewArguments { .. } | FindingKind::TooManyArguments { .. }, _)
            | (_, None) => finding.message.clone(),
            (_, Some(index)) => format!("argument {}: {}", index + 1, finding.message),
        };
        let mut warning = location().warning(message, "-Wformat");
        if let Some(offset) = finding.offset {
            warning = warning.with_note(diag::format_excerpt(format, offset));
        }
        if let Some(fix) = finding.fix {
            warning = warning.with_note(format!("  fix: {fix}"));
        }
        diagnostics.push(warning);
    }
    found
}

/// The checker's view of an IR type (`None` for types printf cannot take).
pub fn arg_type(module: &Module, ty: TypeId) -> Option<ArgType> {
    let types = module.types();
    let scalar = |ty: Type| -> Option<ScalarType> {
        Some(match ty {
            Type::Int { bits } => ScalarType::Int(u16::try_from(bits).ok()?),
            Type::Half | Type::BFloat => ScalarType::Half,
            Type::Float => ScalarType::Float,
            Type::Double => ScalarType::Double,
            Type::X86Fp80 => ScalarType::X86Fp80,
            Type::Fp128 | Type::PpcFp128 => ScalarType::Fp128,
            Type::Ptr { .. } => ScalarType::Ptr,
            _ => return None,
        })
    };
    match types.get(ty) {
        Type::Vector {
            len,
            elem,
            scalable: false,
        } => Some(ArgType::Vector {
            len: u16::try_from(len).ok()?,
            element: scalar(types.get(elem))?,
        }),
        // The type is read once: most arguments are scalars.
        other => scalar(other).map(ArgType::Scalar),
    }
}

fn describe_args(module: &Module, types: impl Iterator<Item = TypeId>) -> String {
    let names: Vec<String> = types
        .map(|t| module.types().display(t).to_string())
        .collect();
    match names.len() {
        0 => "none".to_owned(),
        _ => format!("({})", names.join(", ")),
    }
}
