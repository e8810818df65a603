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

// One `Planner` does the planning; its methods are split by concern over the child modules
// (parameters and returns, call sites, atomics, the order llc meets blocks and functions in,
// the call envelope). Each child reads this module's names through `use super::*`, which is
// what lets them share the planner's private state without a path changing.
mod atomic_sites;
pub mod atomics;
mod calls;
mod llc22;
pub mod model;
mod order;
mod params;
mod render;
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
use calls::*;
use order::*;
use params::promote;
use render::*;
use symbols::Symbols;

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
}
