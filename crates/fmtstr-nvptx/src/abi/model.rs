//! The plan: what llc 19 or llc 22 writes for parameters, return values, calls and atomics.
//!
//! Every type here serializes to the JSON of `fmtstr abi --json` (schemas/abi.schema.json).

use serde::Serialize;

use crate::parts::Access;

/// The plan of one module.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// The module's file name.
    pub file: String,
    /// The configuration the plan was made for.
    pub config: ConfigEcho,
    /// Definitions and the declarations llc emits, in module order.
    pub functions: Vec<FunctionPlan>,
    /// What the planner cannot vouch for, and uses of byval parameters that the struct-args
    /// pass refuses.
    pub findings: Vec<Finding>,
}

/// [`crate::Config`] as the plan reports it.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ConfigEcho {
    /// `opt-byval`: whether the struct-args pass reads byval parameters in place.
    pub opt_byval: bool,
    /// The SM version.
    pub sm: u32,
    /// Whose llc the plan describes: 19 or 22.
    pub llc: u32,
    /// The PTX ISA version the chosen llc writes for it.
    pub ptx_version: u32,
}

/// Something the planner could not predict, or a pass diagnostic.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// Line, from 1 (0 when it concerns no instruction).
    pub line: u32,
    /// Column, from 1 (0 when none).
    pub column: u32,
    /// The function, without `@`.
    pub function: String,
    /// What and why.
    pub message: String,
}

/// Whether a function is an `.entry` or a `.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FunctionKind {
    /// A kernel (`ptx_kernel`, or `!nvvm.annotations` `"kernel"`).
    Kernel,
    /// A device function.
    Device,
}

/// One function.
#[derive(Clone, Debug, Serialize)]
pub struct FunctionPlan {
    /// The IR name, without `@`.
    pub name: String,
    /// The PTX symbol (local symbols have `.` and other characters replaced by `_$_`).
    pub ptx_name: String,
    /// Kernel or device function.
    pub kind: FunctionKind,
    /// Whether it has a body here.
    pub definition: bool,
    /// Whether llc emits it (definitions always; declarations when something uses them).
    pub emitted: bool,
    /// The line of `define`/`declare`.
    pub line: u32,
    /// `.visible .entry`, `.weak .entry`, `.entry` (local, or OpenCL), `.visible .func`, `.weak .func`,
    /// `.func` or `.extern .func`.
    pub directive: String,
    /// The return value's declaration (`.param .b32 func_retval0`), none for `void`.
    pub return_declaration: Option<String>,
    /// The parameters, including the buffer pointer llc 19 adds for `...`.
    pub params: Vec<ParamPlan>,
    /// The return value's parts.
    pub return_parts: Vec<PartPlan>,
    /// The `st.param` stores to `func_retval0` at each `ret`.
    pub returns: Vec<ReturnPlan>,
    /// Every call site llc selects, in its order (reverse post order of the blocks;
    /// calls in unreachable blocks are never selected).
    pub calls: Vec<CallPlan>,
    /// Every `atomicrmw` and `cmpxchg`, in order.
    pub atomics: Vec<AtomicPlan>,
}

/// A value part: a primitive type at a byte offset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PartPlan {
    /// Byte offset.
    pub offset: u64,
    /// The machine value type (`i32`, `f64`, `v2f16`, `v4i8`).
    #[serde(rename = "type")]
    pub ty: String,
    /// The bits it occupies in memory (`i19` occupies 24).
    pub bits: u32,
}

/// One `ld.param` or `st.param`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct AccessPlan {
    /// Byte offset in the parameter.
    pub offset: u64,
    /// Element width in bits.
    pub bits: u32,
    /// Elements: 1, 2 (`.v2`) or 4 (`.v4`).
    pub vector: u32,
}

impl From<Access> for AccessPlan {
    fn from(a: Access) -> Self {
        AccessPlan {
            offset: a.offset,
            bits: a.bits,
            vector: a.arity,
        }
    }
}

/// How a formal parameter is read in the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadMode {
    /// An ordinary parameter: each part is loaded (when used).
    Value,
    /// A byval parameter read in place at the offsets its loads use.
    InPlace,
    /// A byval kernel parameter read in place whose address escapes (`cvta.param`).
    GridConstant,
    /// A byval parameter copied into local memory first (every part is read).
    LocalCopy,
}

/// The byval decision table, the row a parameter or argument takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Row {
    /// Kernel, byval, grid constant: read directly from the param space.
    #[serde(rename = "K&&B&&G")]
    KernelByvalGrid,
    /// Kernel, byval, not a grid constant: the lowered-arguments path.
    #[serde(rename = "K&&B&&!G")]
    KernelByval,
    /// Device-function byval (formal parameter or call argument): a copy through `.param`.
    #[serde(rename = "!K&&B")]
    DeviceByval,
    /// Not byval, direct callee: a direct call target.
    #[serde(rename = "!B&&D")]
    Direct,
    /// Not byval, indirect callee: a call through a prototype.
    #[serde(rename = "!B&&!D")]
    Indirect,
}

/// One formal parameter.
#[derive(Clone, Debug, Serialize)]
pub struct ParamPlan {
    /// Position, from 0.
    pub index: usize,
    /// The PTX name (`k_param_0`).
    pub name: String,
    /// The IR type as written (`ptr`, `%struct.S`, `<2 x float>`).
    pub ir_type: String,
    /// The byval type, for a byval parameter.
    pub byval: Option<String>,
    /// Whether llc 19 added it for a variadic function's argument buffer.
    pub vararg_buffer: bool,
    /// The declaration (`.param .align 8 .b8 k_param_0[32]`).
    pub declaration: String,
    /// The value parts (of the byval type, for byval).
    pub parts: Vec<PartPlan>,
    /// The decision-table row (byval parameters only).
    pub row: Option<Row>,
    /// How the body reads it.
    pub read_mode: ReadMode,
    /// The `ld.param` reads, when every part is used (in place: each distinct read the loads
    /// make, by offset); none when an address is computed at run time or llc copies.
    pub reads: Option<Vec<AccessPlan>>,
}

/// The `st.param` stores of one `ret`.
#[derive(Clone, Debug, Serialize)]
pub struct ReturnPlan {
    /// Line of the `ret`.
    pub line: u32,
    /// The stores to `func_retval0`.
    pub stores: Vec<AccessPlan>,
}

/// How a call finds its callee.
#[derive(Clone, Debug, Serialize)]
pub struct CalleePlan {
    /// `direct` (a function of the module) or `indirect` (a pointer).
    pub kind: CalleeKind,
    /// The PTX symbol of a direct callee.
    pub name: Option<String>,
    /// The `.callprototype` line of an indirect call.
    pub prototype: Option<String>,
}

/// Direct or indirect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CalleeKind {
    /// `call.uni f`.
    Direct,
    /// `call %rd, (...), prototype_N`.
    Indirect,
}

/// One argument at a call site.
#[derive(Clone, Debug, Serialize)]
pub struct ArgPlan {
    /// Position, from 0 (the buffer llc 19 builds for `...` comes last).
    pub index: usize,
    /// `param<N>`.
    pub name: String,
    /// `.param .b32 param0;` without the semicolon.
    pub declaration: String,
    /// Whether it is passed byval (copied from memory into `.param`).
    pub byval: bool,
    /// The decision-table row.
    pub row: Row,
    /// The value parts.
    pub parts: Vec<PartPlan>,
    /// The `st.param` stores.
    pub stores: Vec<AccessPlan>,
}

/// One slot of the buffer llc 19 builds for the variadic arguments of a call.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct VarargSlot {
    /// The argument's position in the call.
    pub index: usize,
    /// Byte offset in the buffer (natural alignment).
    pub offset: u64,
    /// Bytes.
    pub size: u64,
}

/// One step of the call envelope, with its opcode number and name in the ABI's description.
#[derive(Clone, Debug, Serialize)]
pub struct EnvelopeStep {
    /// The `NVPTXISD` number, where it gives one.
    pub opcode: Option<u32>,
    /// The node's name.
    pub name: &'static str,
    /// What it does here (PTX text where there is one).
    pub detail: String,
}

/// One call site.
#[derive(Clone, Debug, Serialize)]
pub struct CallPlan {
    /// Line of the call.
    pub line: u32,
    /// Column of the call.
    pub column: u32,
    /// The call-sequence number (`{ // callseq N, 0`): one counter for the whole module.
    pub seq: u32,
    /// The callee.
    pub callee: CalleePlan,
    /// The row for the callee (`!B&&D` direct, `!B&&!D` indirect).
    pub row: Row,
    /// The arguments.
    pub args: Vec<ArgPlan>,
    /// Where the variadic arguments go in the buffer llc 19 passes instead.
    pub vararg_buffer: Vec<VarargSlot>,
    /// `.param .b32 retval0` (none for `void`).
    pub return_declaration: Option<String>,
    /// The `ld.param` loads of the result from `retval0`.
    pub return_loads: Vec<AccessPlan>,
    /// The envelope, in the ABI's order.
    pub envelope: Vec<EnvelopeStep>,
    /// Where the ABI's description and llc 19 disagree about this call.
    pub note: Option<String>,
}

/// How an atomic is lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AtomicLowering {
    /// One atomic instruction.
    Native,
    /// A compare-and-swap loop (on the containing 32-bit word for 8- and 16-bit values).
    CasLoop,
    /// A call to a runtime function.
    Libcall,
    /// On local memory: an ordinary load, operation and store (no atomic instruction).
    Local,
}

/// One `atomicrmw` or `cmpxchg`.
#[derive(Clone, Debug, Serialize)]
pub struct AtomicPlan {
    /// Line.
    pub line: u32,
    /// Column.
    pub column: u32,
    /// `atomicrmw add`, `cmpxchg`, ...
    pub operation: String,
    /// The value type.
    pub value_type: String,
    /// `global`, `shared`, `local` or `generic`.
    pub space: String,
    /// How llc lowers it.
    pub lowering: AtomicLowering,
    /// The atomic instruction llc writes (`atom.global.add.u32`); none for a libcall.
    pub mnemonic: Option<String>,
    /// The runtime function of a libcall (its declaration is marked
    /// `"nvptx-libcall-callee"="true"`).
    pub libcall: Option<String>,
    /// Anything worth knowing (where the ABI's description and llc 19 disagree).
    pub note: Option<String>,
}
