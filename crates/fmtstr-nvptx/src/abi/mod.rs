//! The PTX `.param` planner, matched against llc 19 and llc 22.
//!
//! Input: a module and a [`Config`] (whose [`Config::llc`] says whose llc). Output: a [`Plan`]
//! saying, for every function definition and every declaration llc emits, and for every call
//! site and atomic, what `llc-19 -march=nvptx64` (below; llc 22's differences follow) writes:
//!
//! - the `.param` declarations: `<func>_param_<N>` and `func_retval0` in the function's
//!   header, `param<N>` and `retval0` at call sites; `.param .align A .b8 name[SIZE]` for
//!   aggregates, vectors, `i128`, `half`, `bfloat` and byval parameters (SIZE the DataLayout
//!   alloc size, A the ABI alignment, raised to 16 for local functions whose address is not
//!   taken, which a call of another type than the function's takes), scalars as `.b32`/`.b64` (integers promoted to at least 32 bits) in device
//!   functions and as `.u8`/`.u16`/`.u32`/`.u64`/`.f32`/`.f64` in kernels;
//! - the value parts of each parameter, argument and return value (structs split at their
//!   field offsets, `i128` as two `i64`, 16-bit vector elements in pairs, `i8` in fours) and
//!   their v2/v4 grouping, as the `(offset, width, arity)` of every `ld.param`/`st.param`;
//!   scalar integer arguments and return values narrower than 32 bits move as 32 bits;
//! - for byval parameters the row of the byval decision table and how llc reads them: in
//!   place at the offsets the loads use, or from a local copy when the address escapes and
//!   the parameter is not a grid constant (which, with `opt_byval`, the struct-args pass makes
//!   it in kernels);
//! - the call envelope with its module-wide call-sequence number, and the `.callprototype`
//!   of indirect calls;
//! - the `atom` instruction of every `atomicrmw` and `cmpxchg` and of NVVM's atomic
//!   intrinsics ([`atomics`]); atomics on local memory are ordinary loads and stores.
//!
//! Sizes, offsets and alignments come from llc's own DataLayout for nvptx64
//! ([`crate::NVPTX64_DATA_LAYOUT`]: `i128` aligned to 16, 64-bit pointers), never from the
//! module's `target datalayout`, which llc replaces. Integers of widths PTX lacks (`i2`, `i19`,
//! `i48`) move widened to 32 or 64 bits and are loaded in the pieces the legalizer splits
//! them into; `<N x i1>` moves one byte per element. Symbols are named as llc names them
//! (local names cleaned of characters PTX lacks, with its collision counter; `__unnamed_N`),
//! aliases of functions are declared with their aliasee's signature, linkage gives
//! `.visible`, `.weak` or nothing (and nothing at all under OpenCL's `nvcl` triples, where
//! image and sampler parameters are `.texref`, `.surfref`, `.samplerref`), calls to
//! `__nvvm_reflect` vanish, blocks behind a branch on a constant are not selected, and a
//! `st.param` of values left undef or poison is dropped.
//!
//! Reads of a function's own parameters are planned as llc loads each part when the value
//! is used in full; llc then optimizes them like any load (drops unused ones, narrows one to
//! the bits used, joins neighbours into a vector), and [`crate::ptx::compare`] accepts
//! exactly those changes: every read must lie inside a planned one.
//!
//! Variadic functions: llc 19 expands `...` before instruction selection into a pointer to a
//! buffer of the arguments at natural alignment, passed as one more `.b64` parameter, when
//! the module's triple is nvptx or nvptx64 (its ExpandVariadics pass reads the module's
//! triple, not `-march`). The `<func>_vararg[]` parameter is the older lowering llc
//! uses otherwise: the variadic arguments of a call packed, unaligned, into one more
//! `.param` array (indirect variadic calls there are a finding).
//!
//! ## Where llc 22 differs from llc 19
//!
//! Measured with llc-22 on LLVM 19's and LLVM 22's own NVPTX tests, the samples, and random
//! aggregates; the LLVM change is named where one was found. With [`Llc::V22`]:
//!
//! - kernel pointer parameters are declared `.param .u64 .ptr [.global|.shared|.const|.local]
//!   .align N name` (N the `align` attribute, else 1) under every triple; llc 19 does so only
//!   under OpenCL's `nvcl` triples (llvm/llvm-project#114874);
//! - parameters, arguments and return values move through ordinary loads and stores in the
//!   parameter space (llvm/llvm-project#146930), so what legalization and the DAG combiner
//!   make of those is what the PTX shows:
//!   - a call's result is loaded from `retval0` only where something uses it, and its loads
//!     are optimized like those of a function's own parameters (left out, narrowed, joined);
//!     the check holds them to lie inside planned loads;
//!   - a part less aligned than its size (the declaration's alignment at its offset) moves in
//!     pieces of that alignment, for the function's own parameters too (a packed `<{ float
//!     }>` declared `alignstack(32)` is one `b32`, where llc 19 reads it byte by byte), and a
//!     scalar parameter of a local function is read at the 16-byte alignment it would have
//!     as an array;
//!   - vectors of 8- and 16-bit elements move in 32-bit words (`<4 x half>` is `v2.b32`, two
//!     bytes `v2.b8`), and 32 bits of them as one `b32` or as `v2.b16`/`v4.b8`, as llc's
//!     registers happen to hold them; the check compares such accesses by their 32-bit words;
//!   - consecutive constant stores of up to 32 bits each merge into one integer store of 16,
//!     32 or 64 bits where the first is aligned to it, again until nothing changes (a zero
//!     `<12 x i8>` return is `b64` and `b32`; `f32` and `f64` constants count as integers,
//!     `half` and `bfloat` ones merge only with their own type); so do the loads and stores of
//!     a parameter passed on whole (returned, or passed to a call) when that is its only use,
//!     loads of one memory type with the next (`<12 x i8>`'s first two words as one `b64`),
//!     and the merged load is planned as a read of the parameter too;
//!   - a stored `bitcast` in one store moves as the value it was cast from (a `<2 x float>`
//!     made from a `double` is `st.param.b64`), and a parameter read whole by one load and
//!     cast may be read as the cast's type;
//!   - a return value's `alignstack(N)` (which llc 19's reader rejects) is its declaration's
//!     alignment, and the caller's;
//!   - a byval call argument is copied in pieces llc chooses (two `i32` fields as one `b64`);
//!     the plan predicts no stores and the check requires them inside the declared array;
//! - values are split into the register types of the calling convention
//!   (llvm/llvm-project#154476, `ComputePTXValueVTs` on `getRegisterTypeForCallingConv`): a
//!   vector the target has no register for is halved until one fits (`<8 x half>` is four
//!   `<2 x half>`, `<16 x i8>` four `<4 x i8>`) or, with a length that is not a power of
//!   two, split into its elements (`<6 x half>` is six `half` and `<10 x half>` ten, where
//!   llc 19 makes pairs; `<3 x i8>` widens to one `<4 x i8>`); `<2 x i8>`, which crashes llc
//!   19, is one part of two bytes (`v2.b8`); an integer of a width PTX lacks is one part of
//!   the next register width (`i7` an `i16`, read at its own alignment: two bytes; `i17` an
//!   `i32`; `i48` an `i64`; `i96` two `i64` in a `.b128`), a vector of them is the one legal
//!   vector of as many wider elements (`<2 x i7>` a `<2 x i16>`, `<4 x i2>` a `<4 x i8>`) or
//!   elements of register width (`<8 x i2>` eight `i16`, written past its two bytes as llc 19
//!   writes `<N x i1>`); `fp128` is two `i64` in a `.align 16 .b8 [16]` array, as is every
//!   scalar of 128 bits or more;
//! - a call of a function whose type differs from the call's goes through a `.callprototype`
//!   (`mov.b64` of its address, then an indirect call; llvm/llvm-project#107644); for llc 19
//!   and 22 alike such a call takes the function's address, so its parameters keep their ABI
//!   alignment;
//! - `@llvm.global_ctors`/`@llvm.global_dtors` with entries become kernels `.weak .entry
//!   nvptx$device$init`/`nvptx$device$fini` without parameters at the end of the module,
//!   each calling the entries through one indirect `.callprototype ()_ ()` (ctor/dtor
//!   lowering always on, llvm/llvm-project#126544; llc 19 only with
//!   `-nvptx-lower-global-ctor-dtor`);
//! - the older vararg lowering (a module without an nvptx triple) declares the array of
//!   variadic arguments `.param .align 8 .b8 param<N>[SIZE]` before the fixed arguments and
//!   stores each part on its own at the next offset aligned to the part's type, a scalar
//!   integer narrower than 32 bits as 32 bits (llvm/llvm-project#127067; llc 19 packs them
//!   unaligned); there is no array without variadic arguments;
//! - an image or sampler parameter of a kernel is `.param .texref name` (`.surfref`,
//!   `.samplerref`) when an OpenCL kernel passes it to texture or surface instructions only
//!   (NVPTXReplaceImageHandles puts the symbol in the instruction), otherwise `.param .u64
//!   .ptr .texref name`, always so under CUDA, whose handles are loaded like any `.u64`
//!   (llvm/llvm-project#119730);
//! - atomics: `atomicrmw uinc_wrap`/`udec_wrap` on `i32` are `atom[.space].inc.u32`/`dec.u32`
//!   (llc 19 loops on `atom.cas`); the compare-and-swap of a `cmpxchg` or of the loop an
//!   `atomicrmw` expands into names its order and scope from sm_70 (`atom.acquire.gpu.cas.b32`:
//!   the success and failure orderings together, `monotonic` as `relaxed`, acquire with
//!   release as `acq_rel`, anything `seq_cst` as `acquire` after a `fence.sc`; `sys` without a
//!   `syncscope`, `cta` for `"block"`, `gpu` for `"device"`, `cluster`), its scope alone on
//!   sm_60, nothing below, and an 8- or 16-bit `cmpxchg` loops on relaxed ones
//!   (llvm/llvm-project#126159 and #140812); `usub_cond`, `usub_sat`, `fmaximum` and
//!   `fminimum` are loops too; atomics on the shared memory of a cluster (address space 7)
//!   are `atom.shared::cluster`; an alloca is in the local space, so an `atomicrmw` on it is a
//!   plain load and store and a `cmpxchg` `atom.local.cas`.
//!
//! Not measured, so findings under llc 22 (the plan for llc 19 stands):
//!
//! - a part less aligned than its size inside an aggregate aligned to 2 or more (a field of
//!   a packed struct): llc 19 moves it byte by byte, llc 22 splits it into pieces it may join
//!   with their neighbours;
//! - stores that llc 22's combiner may merge or not depending on the order it visits them:
//!   `half` or `bfloat` constants next to constants of another type, and stores of loaded
//!   values other than a parameter passed on whole (an aggregate `load`, a parameter used
//!   more than once, or its parts stored to memory);
//! - 128-bit atomics: llc 22 selects `atom.cas.b128` (sm_90, PTX 8.3) and otherwise rejects
//!   them ("unsupported cmpxchg") where llc 19 calls libatomic; a `syncscope` other than the
//!   four above;
//! - byval variadic arguments (copied in pieces of llc 22's choosing), vectors of 32-bit
//!   elements on sm_100 and later (registers of `<2 x float>`), an integer wider in registers
//!   than its place in an aggregate (`{ i7, i8 }`), and an image parameter of an OpenCL
//!   kernel used other than by texture and surface instructions.
//!
//! The planner never guesses: what it cannot predict (integers of widths PTX lacks inside
//! aggregates or wider than 64 bits, scalable vectors, `invoke`, unmeasured atomics, memory
//! intrinsics of run-time length next to calls, kernels returning values, indirect calls
//! under the older vararg lowering) is a [`Finding`] with the file's line and column, and
//! the function's plan leaves it out.

pub mod atomics;
mod llc22;
pub mod model;
mod symbols;

use std::collections::{HashMap, HashSet};

use fmtstr_ir::{
    Attr, BlockId, CallArg, Constant, FuncId, GlobalKind, InstId, Module, Opcode, Operand, Type,
    TypeId, Value,
};

pub use model::*;

use crate::annotations::Annotations;
use crate::parts::{self, Part};
use crate::struct_args::{self, ByvalParam};
use crate::{Config, Llc};
use symbols::Symbols;

/// The `NVPTXISD` numbers for the envelope nodes it names.
mod opcode {
    pub const DECLARE_RET_PARAM: u32 = 0x13D;
    pub const DECLARE_SCALAR_PARAM: u32 = 0x13E;
    pub const PARAM_CALL_START: u32 = 0x1FD;
    pub const PARAM_CALL_END: u32 = 0x1FE;
    pub const CALL_NON_REG_PROTOTYPE: u32 = 0x201;
    pub const CALL_NON_REG: u32 = 0x202;
    pub const CALL_SEQ_BEGIN: u32 = 0x203;
    pub const CALL_ARG: u32 = 0x204;
}

/// Plans `m` as `config.llc` compiles it after `struct_args::run(m, config)`.
pub fn plan(m: &Module, config: &Config) -> Plan {
    plan_for_triple(m, config, None)
}

/// [`plan`] for llc run with `-mtriple=TRIPLE`, which replaces the module's `target triple`
/// (`None`: the module's own, as `-march` keeps it).
pub fn plan_for_triple(m: &Module, config: &Config, triple: Option<&str>) -> Plan {
    Planner::new(m, config, triple).run()
}

struct Planner<'m> {
    m: &'m Module,
    config: Config,
    annotations: Annotations,
    byval: HashMap<(FuncId, usize), ByvalParam>,
    /// Whether the struct-args pass rewrites this module (it refuses a module as a whole).
    pass_runs: bool,
    address_taken: HashSet<FuncId>,
    mentioned: HashSet<FuncId>,
    /// The PTX names of functions and aliases.
    symbols: Symbols,
    /// `#N` to the attributes of the group.
    attribute_groups: HashMap<String, String>,
    /// Whether llc 19 expands `...` into a buffer pointer: its ExpandVariadics pass reads the
    /// module's own `target triple` (not `-march`) and runs only for nvptx and nvptx64.
    expands_varargs: bool,
    /// Whether the module's triple names OpenCL's driver interface (`nvptx-unknown-nvcl`):
    /// llc then writes no linkage directives (`.visible`, `.extern`, `.weak`) and describes
    /// kernel pointer parameters with `.ptr` and their alignment.
    nvcl: bool,
    /// Calls an instruction other than `call` makes (libatomic), for its function's list.
    pending_calls: Vec<CallPlan>,
    /// The libatomic functions called, whose declarations llc emits.
    libcalls: std::collections::BTreeSet<&'static str>,
    seq: u32,
    findings: Vec<Finding>,
    /// Reads of parameters llc 22 merges with their neighbours, by function and index.
    merged_reads: Vec<(FuncId, usize, parts::Access)>,
}

fn part_plans(list: &[Part]) -> Vec<PartPlan> {
    list.iter()
        .map(|p| PartPlan {
            offset: p.offset,
            ty: p.mvt.name(),
            bits: (p.mvt.store_size() * 8) as u32,
        })
        .collect()
}

fn access_plans(list: Vec<parts::Access>) -> Vec<AccessPlan> {
    list.into_iter().map(AccessPlan::from).collect()
}

fn local_linkage(m: &Module, f: FuncId) -> bool {
    header_words(m, f)
        .iter()
        .any(|w| w == "internal" || w == "private")
}

fn header_words(m: &Module, f: FuncId) -> Vec<String> {
    let text = m.function(f).source_text();
    let end = text.iter().position(|&b| b == b'@').unwrap_or(text.len());
    String::from_utf8_lossy(&text[..end])
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn param_align_attr(attrs: &[Attr]) -> Option<u64> {
    attrs.iter().find_map(|a| match a {
        Attr::Align(n) => Some(*n),
        _ => None,
    })
}

impl<'m> Planner<'m> {
    fn new(m: &'m Module, config: &Config, triple: Option<&str>) -> Planner<'m> {
        let triple = triple.map(str::to_string).or_else(|| m.target_triple());
        let annotations = Annotations::read(m);
        let analysed = struct_args::analyze(m, &annotations);
        let pass_runs = config.opt_byval
            && analysed.iter().all(|p| {
                p.problems.is_empty()
                    && (p.escapes.is_empty()
                        || !annotations.is_kernel(m, p.func)
                        || config.has_cvta_param()
                        || annotations.is_grid_constant(p.func, p.index))
            });
        let mut findings = Vec::new();
        if config.opt_byval && !pass_runs {
            let mut scratch = m.clone();
            if let Err(error) = struct_args::run(&mut scratch, config) {
                for d in error.diagnostics() {
                    findings.push(Finding {
                        line: d.line,
                        column: d.column,
                        function: d.function.clone(),
                        message: format!(
                            "struct-args refuses the module, so llc sees it unlowered: {}",
                            d.message
                        ),
                    });
                }
            }
        }
        let byval = analysed
            .into_iter()
            .map(|p| ((p.func, p.index), p))
            .collect();
        let (mentioned, address_taken) = function_uses(m);
        let symbols = Symbols::new(m, |f| local_linkage(m, f), &mentioned, triple.as_deref());
        Planner {
            symbols,
            attribute_groups: attribute_groups(m),
            m,
            config: *config,
            annotations,
            byval,
            pass_runs,
            address_taken,
            mentioned,
            expands_varargs: triple.as_deref().is_some_and(|t| {
                let arch = t.split('-').next().unwrap_or("");
                arch == "nvptx" || arch == "nvptx64"
            }),
            nvcl: triple
                .as_deref()
                .is_some_and(|t| t.split('-').nth(2).is_some_and(|os| os.starts_with("nvcl"))),
            pending_calls: Vec::new(),
            libcalls: std::collections::BTreeSet::new(),
            seq: 0,
            findings,
            merged_reads: Vec::new(),
        }
    }

    fn run(mut self) -> Plan {
        let m = self.m;
        let mut functions = Vec::new();
        for func in m.functions() {
            let name = func.name_str();
            if func.is_declaration() && name.starts_with("llvm.") {
                continue;
            }
            functions.push(self.function(func.id()));
        }
        self.aliases(&mut functions);
        if self.llc22() {
            functions.extend(self.ctors_and_dtors());
        }
        for name in std::mem::take(&mut self.libcalls) {
            functions.push(libcall_declaration(name, self.nvcl));
        }
        Plan {
            file: m.file_name().to_string(),
            config: ConfigEcho {
                opt_byval: self.config.opt_byval,
                sm: self.config.sm,
                llc: self.config.llc.major(),
                ptx_version: self.config.ptx_version(),
            },
            functions,
            findings: self.findings,
        }
    }

    /// Aliases of functions: llc declares each with the aliasee's directive, return value and
    /// parameters (named after the aliasee: `foo_param_0`), then `.alias b, a;`.
    fn aliases(&mut self, functions: &mut Vec<FunctionPlan>) {
        let m = self.m;
        for global in m.globals() {
            if global.kind() != GlobalKind::Alias {
                continue;
            }
            let Some(target) = m
                .resolve_global(global.operand())
                .filter(|r| r.offset == 0)
                .and_then(|r| m.global(r.global).as_function())
            else {
                continue;
            };
            let name = global.name_str().into_owned();
            let Some(plan) = functions
                .iter()
                .find(|p| p.name == *m.function(target).name_str())
            else {
                continue;
            };
            let mut alias = plan.clone();
            if self.config.ptx_version() < 63 {
                self.finding(
                    target,
                    None,
                    format!(
                        "llc 19 refuses the alias @{name} (`.alias requires PTX version >= 6.3`): sm_{} gets PTX {}.{}",
                        self.config.sm,
                        self.config.ptx_version() / 10,
                        self.config.ptx_version() % 10
                    ),
                );
            }
            if alias.kind == FunctionKind::Kernel {
                self.finding(
                    target,
                    None,
                    format!("@{name} aliases a kernel, whose alias declaration the planner has not measured"),
                );
            }
            alias.ptx_name = self.symbols.name(m, global.id());
            alias.name = name;
            alias.definition = false;
            alias.emitted = true;
            alias.returns.clear();
            alias.calls.clear();
            alias.atomics.clear();
            for p in &mut alias.params {
                p.reads = None;
            }
            functions.push(alias);
        }
    }

    fn finding(&mut self, f: FuncId, inst: Option<InstId>, message: String) {
        // Without an instruction, the finding is about the function: its `define` line.
        let (line, column) = match inst.and_then(|i| self.m.inst(i).source_pos()) {
            Some(p) => (p.line, p.column),
            None => match first_line(self.m, f) {
                0 => (0, 0),
                line => (line, 1),
            },
        };
        let finding = Finding {
            line,
            column,
            function: self.m.function(f).name_str().into_owned(),
            message,
        };
        // One finding per place and reason (a parameter and the return value of one type).
        if !self.findings.iter().any(|x| {
            (x.line, x.column, &x.function, &x.message)
                == (
                    finding.line,
                    finding.column,
                    &finding.function,
                    &finding.message,
                )
        }) {
            self.findings.push(finding);
        }
    }

    fn is_local(&self, f: FuncId) -> bool {
        local_linkage(self.m, f)
    }

    fn ptx_name(&self, f: FuncId) -> String {
        self.symbols.name(self.m, self.m.function(f).global().id())
    }

    fn abi_align(&self, ty: TypeId) -> u64 {
        crate::target_layout()
            .abi_align(self.m.types(), ty)
            .unwrap_or(1)
    }

    fn alloc_size(&self, ty: TypeId) -> u64 {
        crate::target_layout()
            .alloc_size(self.m.types(), ty)
            .unwrap_or(0)
    }

    /// `getFunctionParamOptimizedAlign`: the ABI alignment, at least 16 for a local function
    /// whose address is not taken (llc may then choose the alignment itself).
    fn optimized_align(&self, f: Option<FuncId>, ty: TypeId) -> u64 {
        let abi = self.abi_align(ty).min(128);
        match f {
            Some(f) if self.is_local(f) && !self.address_taken.contains(&f) => abi.max(16),
            _ => abi,
        }
    }

    fn should_pass_as_array(&self, ty: TypeId) -> bool {
        // llc 22 passes every scalar of 128 bits or more as an array (`fp128`, `i256`).
        if self.llc22()
            && matches!(
                self.m.types().get(ty),
                Type::Fp128 | Type::Int { bits: 129.. }
            )
        {
            return true;
        }
        matches!(
            self.m.types().get(ty),
            Type::Struct(_)
                | Type::Array { .. }
                | Type::Vector { .. }
                | Type::Int { bits: 128 }
                | Type::Half
                | Type::BFloat
        )
    }

    /// The `.b<N>` width of a scalar in a device function's signature or at a call site.
    fn scalar_bits(&self, ty: TypeId) -> Option<u32> {
        match self.m.types().get(ty) {
            Type::Int { bits } => Some(promote(bits)),
            Type::Ptr { addrspace } => Some(crate::target_layout().pointer(addrspace).size_bits),
            Type::Float => Some(32),
            Type::Double => Some(64),
            _ => None,
        }
    }

    fn kernel_scalar(&self, ty: TypeId) -> Option<String> {
        Some(match self.m.types().get(ty) {
            Type::Int { bits: 1 } => "u8".into(),
            Type::Int { bits } if bits <= 64 => format!("u{bits}"),
            Type::Ptr { addrspace } => {
                format!("u{}", crate::target_layout().pointer(addrspace).size_bits)
            }
            Type::Float => "f32".into(),
            Type::Double => "f64".into(),
            _ => return None,
        })
    }

    /// Whether the plan describes llc 22.
    fn llc22(&self) -> bool {
        self.config.llc == Llc::V22
    }

    fn parts(&mut self, f: FuncId, at: Option<InstId>, ty: TypeId) -> Vec<Part> {
        match self.value_parts(ty) {
            Ok(p) => p,
            Err(parts::Unsupported(why)) => {
                self.finding(f, at, format!("no parameter plan: {why}"));
                Vec::new()
            }
        }
    }

    /// A finding when llc 19 cannot store these parts into `.param` space.
    fn check_store(
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
    fn defined_accesses(
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
    fn stack_align(&self, attrs: &[Attr]) -> Option<u64> {
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

    fn part_count(&self, ty: TypeId) -> Option<usize> {
        self.value_parts(ty).ok().map(|p| p.len())
    }

    /// The parts of `ty` as the planned llc splits it.
    fn value_parts(&self, ty: TypeId) -> Result<Vec<Part>, parts::Unsupported> {
        if self.llc22() {
            let f32x2 = self.config.sm >= 100 && self.config.ptx_version() >= 86;
            llc22::value_parts(self.m, ty, f32x2)
        } else {
            parts::value_parts(self.m, ty, 0)
        }
    }

    /// For each part of `ty`, whether `value` defines it (false: undef or poison), followed
    /// through constant aggregates and `insertvalue` chains; `None` when unknown.
    fn defined_parts(&self, value: Operand, ty: TypeId, depth: u32) -> Option<Vec<bool>> {
        let m = self.m;
        let count = self.part_count(ty)?;
        if depth > 64 {
            return None;
        }
        match value.value {
            Value::Const(c) => match m.constant(c) {
                Constant::Undef | Constant::Poison => Some(vec![false; count]),
                Constant::Struct(ops) | Constant::Array(ops) => {
                    let fields: Vec<TypeId> = match m.types().get(ty) {
                        Type::Struct(s) => s.fields.to_vec(),
                        Type::Array { len, elem } => vec![elem; len as usize],
                        _ => return None,
                    };
                    if fields.len() != ops.len() {
                        return None;
                    }
                    let mut out = Vec::with_capacity(count);
                    for (op, field) in ops.iter().zip(fields) {
                        out.extend(self.defined_parts(*op, field, depth + 1)?);
                    }
                    Some(out)
                }
                _ => Some(vec![true; count]),
            },
            Value::Inst(i) if m.inst(i).opcode() == Opcode::InsertValue => {
                let inst = m.inst(i);
                let mut mask = self.defined_parts(inst.operand(0)?, ty, depth + 1)?;
                let mut start = 0usize;
                let mut sub = ty;
                for &index in inst.indices() {
                    match m.types().get(sub) {
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
                let inserted = self.defined_parts(inst.operand(1)?, sub, depth + 1)?;
                mask.get_mut(start..start + inserted.len())?
                    .copy_from_slice(&inserted);
                Some(mask)
            }
            _ => Some(vec![true; count]),
        }
    }

    /// The older vararg lowering llc 19 uses when it does not expand `...` (the module's
    /// triple is not nvptx or nvptx64): the variadic arguments go into one more parameter,
    /// `.param .align 8 .b8 param<N>[SIZE]`, each part stored right after the previous one
    /// without alignment padding, integers narrower than 32 bits as 32 (measured: `i32, i64`
    /// puts the `i64` at byte 4). `None`, with a finding, for what is not measured.
    fn packed_varargs(
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

    fn scalar_int_widening(&self, ty: TypeId) -> u32 {
        match self.m.types().get(ty) {
            Type::Int { bits } if bits < 32 => 32,
            Type::Int { bits } if bits < 64 && bits != 32 => 64,
            _ => 0,
        }
    }

    fn function(&mut self, f: FuncId) -> FunctionPlan {
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
        let directive = if self.nvcl {
            directive
                .split_whitespace()
                .filter(|w| !matches!(*w, ".visible" | ".extern" | ".weak"))
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            directive
        };
        let line = first_line(m, f);
        let emitted =
            definition || (!external_copy && self.mentioned.contains(&f) && !is_reflect(m, f));

        // Parameters.
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
                    params.push(ParamPlan {
                        index,
                        name: pname.clone(),
                        ir_type,
                        byval: None,
                        vararg_buffer: false,
                        declaration,
                        reads,
                        parts: Vec::new(),
                        row: None,
                        read_mode: ReadMode::Value,
                    });
                    continue;
                }
            }
            let parts = self.parts(f, None, ty);
            let (declaration, align) = if self.should_pass_as_array(ty) {
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
                // llc 19 qualifies kernel pointer parameters under OpenCL's triples only;
                // llc 22 under every triple, and names the local space too.
                let pointer = match m.types().get(ty) {
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
                };
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
            };
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
        if vararg && !self.expands_varargs {
            // The older lowering: an unsized array the callee walks with va_arg.
            params.push(ParamPlan {
                index: param_tys.len(),
                name: format!("{ptx_name}_vararg"),
                ir_type: "...".into(),
                byval: None,
                vararg_buffer: true,
                declaration: format!(".param .align 8 .b8 {ptx_name}_vararg[]"),
                parts: Vec::new(),
                row: None,
                read_mode: ReadMode::Value,
                reads: None,
            });
        } else if vararg {
            let index = param_tys.len();
            let pname = format!("{ptx_name}_param_{index}");
            params.push(ParamPlan {
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
            });
        }

        // The return value.
        let ret = func.return_type();
        let (return_declaration, return_parts, ret_align) = if ret == TypeId::VOID {
            (None, Vec::new(), 1)
        } else {
            if kernel {
                self.finding(
                    f,
                    None,
                    "a kernel returns a value; PTX entries return nothing".into(),
                );
            }
            let parts = self.parts(f, None, ret);
            if self.should_pass_as_array(ret) {
                let optimized = self.optimized_align(Some(f), ret);
                // An `!"align"` annotation of the return value (index 0) replaces the
                // alignment of the declaration (and of the caller's retval0, whose loads it
                // groups); the callee's stores are still grouped by the optimized alignment
                // (measured with llc 19 and llc 22).
                // llc 22 also reads `alignstack(N)` on the return value, which llc 19's IR
                // reader rejects.
                let declared = if self.llc22() {
                    self.stack_align(func.return_attrs())
                        .or_else(|| self.annotations.return_align(f))
                        .unwrap_or(optimized)
                } else {
                    self.annotations.return_align(f).unwrap_or(optimized)
                };
                let align = optimized;
                (
                    Some(format!(
                        ".param .align {declared} .b8 func_retval0[{}]",
                        self.alloc_size(ret)
                    )),
                    parts,
                    align,
                )
            } else {
                let bits = self.scalar_bits(ret).unwrap_or(0);
                (
                    Some(format!(".param .b{bits} func_retval0")),
                    parts,
                    self.abi_align(ret),
                )
            }
        };
        let widen_ret = self.scalar_int_widening(ret);
        // LowerReturn checks scalar parts of aggregates against the type's ABI alignment.
        let ret_check_align = if matches!(m.types().get(ret), Type::Struct(_) | Type::Array { .. })
        {
            self.abi_align(ret)
        } else {
            0
        };
        if definition {
            let check = if ret_check_align > 0 {
                ret_check_align
            } else {
                ret_align
            };
            self.check_store(f, None, &return_parts, check, "returning");
        }

        let mut returns = Vec::new();
        let mut calls = Vec::new();
        let mut atomics = Vec::new();
        let mut expanded_copy = None;
        if definition {
            // Instruction selection numbers call sequences block by block in reverse post
            // order; unreachable blocks are gone by then.
            for inst in reverse_post_order(m, f)
                .into_iter()
                .flat_map(|b| m.block(b).instructions())
            {
                match inst.opcode() {
                    Opcode::Ret if ret != TypeId::VOID && self.llc22() => returns.push(ReturnPlan {
                        line: inst.source_pos().map_or(0, |p| p.line),
                        stores: access_plans(self.llc22_stores(
                            f,
                            Some(inst.id()),
                            inst.operand(0),
                            ret,
                            &return_parts,
                            ret_align,
                            widen_ret,
                        )),
                    }),
                    Opcode::Ret if ret != TypeId::VOID => returns.push(ReturnPlan {
                        line: inst.source_pos().map_or(0, |p| p.line),
                        stores: access_plans(self.defined_accesses(
                            inst.operand(0),
                            ret,
                            &return_parts,
                            parts::accesses_at(
                                &return_parts,
                                ret_align,
                                widen_ret,
                                parts::Site::Return {
                                    type_align: ret_check_align,
                                },
                            ),
                        )),
                    }),
                    Opcode::Call => {
                        if expanded_copy.is_none() && self.expands_into_loop(inst.id()) {
                            expanded_copy = Some(inst.id());
                        }
                        if let Some(atomic) = self.intrinsic_atomic(f, inst.id()) {
                            atomics.extend(atomic);
                        } else if let Some(call) = self.call(f, inst.id()) {
                            calls.push(call);
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
                            atomics.push(a);
                        }
                        calls.append(&mut self.pending_calls);
                    }
                    Opcode::Load | Opcode::Store => {
                        if self.llc22() && inst.opcode() == Opcode::Store {
                            self.llc22_stored_parameter(f, inst.id());
                        }
                        if let Some(a) = self.wide_atomic_access(f, inst.id()) {
                            atomics.push(a);
                        }
                        calls.append(&mut self.pending_calls);
                    }
                    _ => {}
                }
            }
        }

        for &(_, index, access) in self.merged_reads.iter().filter(|r| r.0 == f) {
            if let Some(reads) = params.get_mut(index).and_then(|p| p.reads.as_mut()) {
                reads.push(AccessPlan::from(access));
            }
        }
        self.merged_reads.retain(|r| r.0 != f);
        if let (Some(at), false) = (expanded_copy, calls.is_empty()) {
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
            return_declaration,
            params,
            return_parts: part_plans(&return_parts),
            returns,
            calls,
            atomics,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn byval_param(
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
    fn load_accesses(&self, ty: TypeId, offset: u64, align: u64) -> Option<Vec<AccessPlan>> {
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

    fn call(&mut self, f: FuncId, inst: InstId) -> Option<CallPlan> {
        let m = self.m;
        let view = m.inst(inst);
        let call = view.as_call()?;
        let callee_op = call.callee();
        if let Value::Const(c) = callee_op.value {
            if let Constant::Other(text) = m.constant(c) {
                if text.starts_with(b"asm") {
                    return None;
                }
            }
        }
        let fn_ty = call.function_type();
        // The function called, whatever the call's type. A call whose type differs from its
        // callee's is still a direct `call.uni` of that symbol, moving the call's own types,
        // with argument alignments from the callee (getMaybeBitcastedCallee); only what
        // getCalledFunction decides (byval alignment) sees no function.
        let target = call.called_function();
        let direct = target.filter(|&c| m.function(c).function_type() == fn_ty);
        if let Some(c) = target {
            if m.function(c).name_str().starts_with("llvm.") || is_reflect(m, c) {
                return None;
            }
            if header_words(m, c)
                .iter()
                .any(|w| w == "available_externally")
            {
                self.finding(
                    f,
                    Some(inst),
                    format!(
                        "llc 19 emits neither a body nor a declaration for available_externally @{}, so ptxas rejects this call",
                        m.function(c).name_str()
                    ),
                );
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
            let pname = format!("param{i}");
            if let Some(ety) = arg.byval() {
                let initial = arg.align().unwrap_or_else(|| self.abi_align(ety));
                let align = match direct {
                    Some(c) => initial.max(self.optimized_align(Some(c), ety)),
                    None => initial,
                };
                let size = self.alloc_size(ety);
                let parts = self.parts(f, Some(inst), ety);
                self.check_store(f, Some(inst), &parts, align, "passing");
                proto_params.push(format!(".param .align {initial} .b8 _[{size}]"));
                args.push(ArgPlan {
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
                });
                continue;
            }
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
            proto_params.push(proto);
            self.check_store(f, Some(inst), &parts, align, "passing");
            let widen = self.scalar_int_widening(ty);
            args.push(ArgPlan {
                index: i,
                name: pname,
                declaration,
                byval: false,
                row,
                stores: access_plans(if self.llc22() {
                    self.llc22_stores(f, Some(inst), Some(arg.operand), ty, &parts, align, widen)
                } else {
                    self.defined_accesses(
                        Some(arg.operand),
                        ty,
                        &parts,
                        parts::accesses(&parts, align, widen),
                    )
                }),
                parts: part_plans(&parts),
            });
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
            let i = params.len();
            let pname = format!("param{i}");
            let mut offset = 0u64;
            for arg in call_args.iter().skip(params.len()) {
                let (ty, align) = match arg.byval() {
                    Some(ety) => (ety, arg.align().unwrap_or_else(|| self.abi_align(ety))),
                    None => (arg.operand.ty, self.abi_align(arg.operand.ty)),
                };
                offset = offset.div_ceil(align.max(1)) * align.max(1);
                let size = self.alloc_size(ty);
                vararg_buffer.push(VarargSlot {
                    index: arg.index,
                    offset,
                    size,
                });
                offset += size;
            }
            proto_params.push(".param .b64 _".into());
            args.push(ArgPlan {
                index: i,
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
            });
        }
        // The result.
        // llc 22 loads a call's result from retval0 only when something uses it; llc 19
        // always does.
        let result_used = !self.llc22() || !m.uses(Value::Inst(inst)).is_empty();
        let (return_declaration, mut return_loads, proto_ret) = if ret == TypeId::VOID {
            (None, Vec::new(), "()".to_string())
            // llc writes `()_ (` for void and `(.param .b32 _) _ (` otherwise.
        } else {
            let parts = self.parts(f, Some(inst), ret);
            let widen = self.scalar_int_widening(ret);
            if self.should_pass_as_array(ret) {
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
                    Some(format!(".param .align {align} .b8 retval0[{size}]")),
                    access_plans(self.result_loads(&parts, align, widen)),
                    format!("(.param .align {align} .b8 _[{size}])"),
                )
            } else {
                let bits = self.scalar_bits(ret).unwrap_or(0);
                (
                    Some(format!(".param .b{bits} retval0")),
                    access_plans(self.result_loads(&parts, self.abi_align(ret), widen)),
                    format!("(.param .b{bits} _)"),
                )
            }
        };
        if !result_used {
            return_loads.clear();
        }
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
                prototype: Some(format!(
                    "prototype_{seq} : .callprototype {proto_ret}{}_ ({}){};",
                    if ret == TypeId::VOID { "" } else { " " },
                    proto_params.join(", "),
                    // shouldEmitPTXNoReturn: a `noreturn` call returning void (PTX 6.4).
                    if ret == TypeId::VOID
                        && self.config.ptx_version() >= 64
                        && call_fn_attrs(&self.attribute_groups, call.fn_attrs_text())
                            .split_whitespace()
                            .any(|w| w == "noreturn")
                    {
                        " .noreturn"
                    } else {
                        ""
                    }
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

    /// Whether `inst` calls `llvm.memcpy`, `llvm.memmove` or `llvm.memset` with a length
    /// that is not a constant, which NVPTXLowerAggrCopies turns into a loop guarded by a
    /// branch. Measured on LLVM's b52037.ll: with such a length llc numbers the function's
    /// call sequences in another order than its blocks' (constant lengths, 203 or 256, keep
    /// the order).
    fn expands_into_loop(&self, inst: InstId) -> bool {
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
    fn intrinsic_atomic(&mut self, f: FuncId, inst: InstId) -> Option<Option<AtomicPlan>> {
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

    /// The call sequence of a call to libatomic's `name` that llc makes for `inst`.
    fn libcall(&mut self, name: &'static str, inst: InstId) -> CallPlan {
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

    /// An atomic `load` or `store` wider than 64 bits: a call to `__atomic_load_16` or
    /// `__atomic_store_16` (measured); a finding for wider ones.
    fn wide_atomic_access(&mut self, f: FuncId, inst: InstId) -> Option<AtomicPlan> {
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

    fn atomic(&mut self, f: FuncId, kernel: bool, inst: InstId) -> Option<AtomicPlan> {
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

fn libcall_param(
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
fn libcall_declaration(name: &str, nvcl: bool) -> FunctionPlan {
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

/// The blocks of a definition reachable from its entry, in reverse post order (successors
/// in the order the terminator names them), as `ReversePostOrderTraversal` gives them.
fn reverse_post_order(m: &Module, f: FuncId) -> Vec<BlockId> {
    let func = m.function(f);
    let Some(entry) = func.entry() else {
        return Vec::new();
    };
    let successors = |b: BlockId| -> Vec<BlockId> {
        m.block(b)
            .terminator()
            .map(|t| {
                let targets: Vec<BlockId> = t
                    .operands()
                    .filter_map(|op| match op.value {
                        Value::Block(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                // `br i1 true, ...`: llc folds a branch on a constant before selection, and
                // the block it no longer reaches is gone.
                let constant = match t.operand(0) {
                    Some(Operand {
                        value: Value::Const(c),
                        ..
                    }) if t.opcode() == Opcode::Br && targets.len() == 2 => m.int_value(c),
                    _ => None,
                };
                match constant {
                    Some(0) => vec![targets[1]],
                    Some(_) => vec![targets[0]],
                    None => targets,
                }
            })
            .unwrap_or_default()
    };
    let mut seen = HashSet::new();
    let mut post = Vec::new();
    // (block, its successors, next successor to visit)
    let mut stack = vec![(entry.id(), successors(entry.id()), 0usize)];
    seen.insert(entry.id());
    while let Some((block, succ, next)) = stack.last_mut() {
        if let Some(&s) = succ.get(*next) {
            *next += 1;
            if seen.insert(s) {
                let list = successors(s);
                stack.push((s, list, 0));
            }
        } else {
            post.push(*block);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// `__nvvm_reflect` and `__nvvm_reflect_ocl`: llc's NVVMReflect pass replaces their calls with
/// constants before selection, so neither the calls nor a declaration reach the PTX.
fn is_reflect(m: &Module, f: FuncId) -> bool {
    let func = m.function(f);
    func.is_declaration() && matches!(&*func.name_str(), "__nvvm_reflect" | "__nvvm_reflect_ocl")
}

/// The attribute groups of a module (`attributes #0 = { noreturn }`): `#0` to its text.
fn attribute_groups(m: &Module) -> HashMap<String, String> {
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
fn call_fn_attrs(groups: &HashMap<String, String>, attrs: &[u8]) -> String {
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

/// `promoteScalarArgumentSize`.
fn promote(bits: u32) -> u32 {
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

fn first_line(m: &Module, f: FuncId) -> u32 {
    let text = m.function(f).source_text();
    if text.is_empty() {
        return 0;
    }
    let src = m.source();
    let start = text.as_ptr() as usize - src.as_ptr() as usize;
    1 + src[..start.min(src.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u32
}

/// Which functions are mentioned at all (so llc emits their declarations), and which have
/// their address taken (mentioned other than as the callee of a call): one pass over every
/// instruction operand and global initializer, through constant expressions.
fn function_uses(m: &Module) -> (HashSet<FuncId>, HashSet<FuncId>) {
    fn walk(m: &Module, op: Operand, out: &mut HashSet<FuncId>, depth: u32) {
        match op.value {
            Value::Global(g) => {
                if let Some(f) = m.global(g).as_function() {
                    out.insert(f);
                }
            }
            Value::Const(c) if depth < 16 => {
                let operands = match m.constant(c) {
                    Constant::Expr { operands, .. }
                    | Constant::Struct(operands)
                    | Constant::Array(operands)
                    | Constant::Vector(operands) => operands,
                    Constant::Splat(op) => vec![op],
                    _ => Vec::new(),
                };
                for op in operands {
                    walk(m, op, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    let mut mentioned = HashSet::new();
    let mut taken = HashSet::new();
    for func in m.functions() {
        for inst in func.instructions() {
            let callee = inst.as_call().and_then(|c| c.called_function());
            for (i, op) in inst.operands().enumerate() {
                if i == 0
                    && callee.is_some()
                    && op.value
                        == Value::Global(m.function(callee.unwrap_or(func.id())).global().id())
                {
                    mentioned.extend(callee);
                    // A call of another type than the function's takes its address
                    // (Function::hasAddressTaken; measured with llc 19 and llc 22).
                    let same_type = inst.as_call().is_some_and(|c| {
                        callee.is_some_and(|f| m.function(f).function_type() == c.function_type())
                    });
                    if same_type {
                        continue;
                    }
                }
                walk(m, op, &mut taken, 0);
            }
        }
    }
    for g in m.globals() {
        if let Some(init) = g.initializer() {
            walk(m, init, &mut taken, 0);
        }
    }
    mentioned.extend(taken.iter().copied());
    (mentioned, taken)
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

fn envelope(
    seq: u32,
    callee: &CalleePlan,
    args: &[ArgPlan],
    ret: &Option<String>,
    loads: &[AccessPlan],
) -> Vec<EnvelopeStep> {
    let mut steps = vec![EnvelopeStep {
        opcode: Some(opcode::CALL_SEQ_BEGIN),
        name: "CallSeqBegin",
        detail: format!("{{ // callseq {seq}, 0"),
    }];
    if let Some(decl) = ret {
        steps.push(EnvelopeStep {
            opcode: Some(opcode::DECLARE_RET_PARAM),
            name: "DeclareRetParam",
            detail: format!("{decl};"),
        });
    }
    steps.push(EnvelopeStep {
        opcode: Some(opcode::PARAM_CALL_START),
        name: "ParamCallStart",
        detail: String::new(),
    });
    for arg in args {
        let scalar = !arg.declaration.contains(".align");
        steps.push(EnvelopeStep {
            opcode: Some(if scalar {
                opcode::DECLARE_SCALAR_PARAM
            } else {
                opcode::CALL_ARG
            }),
            name: if scalar {
                "DeclareScalarParam"
            } else {
                "DeclareParam"
            },
            detail: format!("{};", arg.declaration),
        });
        for s in &arg.stores {
            steps.push(EnvelopeStep {
                opcode: Some(opcode::CALL_ARG),
                name: "StoreParam",
                detail: format!("st.param{} [{}+{}]", width_suffix(s), arg.name, s.offset),
            });
        }
    }
    steps.push(match callee.kind {
        CalleeKind::Direct => EnvelopeStep {
            opcode: Some(opcode::CALL_NON_REG),
            name: "CallNonReg",
            detail: format!("call.uni {}", callee.name.as_deref().unwrap_or("")),
        },
        CalleeKind::Indirect => EnvelopeStep {
            opcode: Some(opcode::CALL_NON_REG_PROTOTYPE),
            name: "CallNonRegPrototype",
            detail: callee.prototype.clone().unwrap_or_default(),
        },
    });
    for l in loads {
        steps.push(EnvelopeStep {
            opcode: None,
            name: "LoadParam",
            detail: format!("ld.param{} [retval0+{}]", width_suffix(l), l.offset),
        });
    }
    steps.push(EnvelopeStep {
        opcode: Some(opcode::PARAM_CALL_END),
        name: "ParamCallEnd",
        detail: format!("}} // callseq {seq}"),
    });
    steps
}

fn width_suffix(a: &AccessPlan) -> String {
    if a.vector > 1 {
        format!(".v{}.b{}", a.vector, a.bits)
    } else {
        format!(".b{}", a.bits)
    }
}
