//! Instruction opcodes, attributes and the per-instruction records.
//!
//! Input: the words of the text that name opcodes, predicates and attributes. Output: [`Opcode`],
//! [`Predicate`], [`Attr`], and the compact record each instruction keeps (`InstData`) with its
//! flags.

use crate::types::TypeId;

/// An instruction's opcode, as LLVM spells it (19's, and 22's `ptrtoaddr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
#[allow(missing_docs)] // each variant is the LLVM keyword of the same name
pub enum Opcode {
    Ret,
    Br,
    Switch,
    IndirectBr,
    Invoke,
    Resume,
    Unreachable,
    CleanupRet,
    CatchRet,
    CatchSwitch,
    CallBr,
    FNeg,
    Add,
    FAdd,
    Sub,
    FSub,
    Mul,
    FMul,
    UDiv,
    SDiv,
    FDiv,
    URem,
    SRem,
    FRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    Alloca,
    Load,
    Store,
    GetElementPtr,
    Fence,
    CmpXchg,
    AtomicRmw,
    Trunc,
    ZExt,
    SExt,
    FPToUI,
    FPToSI,
    UIToFP,
    SIToFP,
    FPTrunc,
    FPExt,
    PtrToInt,
    /// LLVM 22's `ptrtoaddr`: a pointer's address bits, without its provenance.
    PtrToAddr,
    IntToPtr,
    BitCast,
    AddrSpaceCast,
    CleanupPad,
    CatchPad,
    ICmp,
    FCmp,
    Phi,
    Call,
    Select,
    VAArg,
    ExtractElement,
    InsertElement,
    ShuffleVector,
    ExtractValue,
    InsertValue,
    LandingPad,
    Freeze,
}

const OPCODES: [(Opcode, &str); 66] = [
    (Opcode::Ret, "ret"),
    (Opcode::Br, "br"),
    (Opcode::Switch, "switch"),
    (Opcode::IndirectBr, "indirectbr"),
    (Opcode::Invoke, "invoke"),
    (Opcode::Resume, "resume"),
    (Opcode::Unreachable, "unreachable"),
    (Opcode::CleanupRet, "cleanupret"),
    (Opcode::CatchRet, "catchret"),
    (Opcode::CatchSwitch, "catchswitch"),
    (Opcode::CallBr, "callbr"),
    (Opcode::FNeg, "fneg"),
    (Opcode::Add, "add"),
    (Opcode::FAdd, "fadd"),
    (Opcode::Sub, "sub"),
    (Opcode::FSub, "fsub"),
    (Opcode::Mul, "mul"),
    (Opcode::FMul, "fmul"),
    (Opcode::UDiv, "udiv"),
    (Opcode::SDiv, "sdiv"),
    (Opcode::FDiv, "fdiv"),
    (Opcode::URem, "urem"),
    (Opcode::SRem, "srem"),
    (Opcode::FRem, "frem"),
    (Opcode::Shl, "shl"),
    (Opcode::LShr, "lshr"),
    (Opcode::AShr, "ashr"),
    (Opcode::And, "and"),
    (Opcode::Or, "or"),
    (Opcode::Xor, "xor"),
    (Opcode::Alloca, "alloca"),
    (Opcode::Load, "load"),
    (Opcode::Store, "store"),
    (Opcode::GetElementPtr, "getelementptr"),
    (Opcode::Fence, "fence"),
    (Opcode::CmpXchg, "cmpxchg"),
    (Opcode::AtomicRmw, "atomicrmw"),
    (Opcode::Trunc, "trunc"),
    (Opcode::ZExt, "zext"),
    (Opcode::SExt, "sext"),
    (Opcode::FPToUI, "fptoui"),
    (Opcode::FPToSI, "fptosi"),
    (Opcode::UIToFP, "uitofp"),
    (Opcode::SIToFP, "sitofp"),
    (Opcode::FPTrunc, "fptrunc"),
    (Opcode::FPExt, "fpext"),
    (Opcode::PtrToInt, "ptrtoint"),
    (Opcode::PtrToAddr, "ptrtoaddr"),
    (Opcode::IntToPtr, "inttoptr"),
    (Opcode::BitCast, "bitcast"),
    (Opcode::AddrSpaceCast, "addrspacecast"),
    (Opcode::CleanupPad, "cleanuppad"),
    (Opcode::CatchPad, "catchpad"),
    (Opcode::ICmp, "icmp"),
    (Opcode::FCmp, "fcmp"),
    (Opcode::Phi, "phi"),
    (Opcode::Call, "call"),
    (Opcode::Select, "select"),
    (Opcode::VAArg, "va_arg"),
    (Opcode::ExtractElement, "extractelement"),
    (Opcode::InsertElement, "insertelement"),
    (Opcode::ShuffleVector, "shufflevector"),
    (Opcode::ExtractValue, "extractvalue"),
    (Opcode::InsertValue, "insertvalue"),
    (Opcode::LandingPad, "landingpad"),
    (Opcode::Freeze, "freeze"),
];

impl Opcode {
    /// The LLVM keyword.
    pub fn keyword(self) -> &'static str {
        OPCODES[self as usize].1
    }

    /// The opcode for an LLVM keyword.
    pub fn from_keyword(word: &[u8]) -> Option<Opcode> {
        // A match on the bytes compiles to a length switch plus short compares, which is what
        // the per-instruction dispatch wants.
        Some(match word {
            b"ret" => Opcode::Ret,
            b"br" => Opcode::Br,
            b"switch" => Opcode::Switch,
            b"indirectbr" => Opcode::IndirectBr,
            b"invoke" => Opcode::Invoke,
            b"resume" => Opcode::Resume,
            b"unreachable" => Opcode::Unreachable,
            b"cleanupret" => Opcode::CleanupRet,
            b"catchret" => Opcode::CatchRet,
            b"catchswitch" => Opcode::CatchSwitch,
            b"callbr" => Opcode::CallBr,
            b"fneg" => Opcode::FNeg,
            b"add" => Opcode::Add,
            b"fadd" => Opcode::FAdd,
            b"sub" => Opcode::Sub,
            b"fsub" => Opcode::FSub,
            b"mul" => Opcode::Mul,
            b"fmul" => Opcode::FMul,
            b"udiv" => Opcode::UDiv,
            b"sdiv" => Opcode::SDiv,
            b"fdiv" => Opcode::FDiv,
            b"urem" => Opcode::URem,
            b"srem" => Opcode::SRem,
            b"frem" => Opcode::FRem,
            b"shl" => Opcode::Shl,
            b"lshr" => Opcode::LShr,
            b"ashr" => Opcode::AShr,
            b"and" => Opcode::And,
            b"or" => Opcode::Or,
            b"xor" => Opcode::Xor,
            b"alloca" => Opcode::Alloca,
            b"load" => Opcode::Load,
            b"store" => Opcode::Store,
            b"getelementptr" => Opcode::GetElementPtr,
            b"fence" => Opcode::Fence,
            b"cmpxchg" => Opcode::CmpXchg,
            b"atomicrmw" => Opcode::AtomicRmw,
            b"trunc" => Opcode::Trunc,
            b"zext" => Opcode::ZExt,
            b"sext" => Opcode::SExt,
            b"fptoui" => Opcode::FPToUI,
            b"fptosi" => Opcode::FPToSI,
            b"uitofp" => Opcode::UIToFP,
            b"sitofp" => Opcode::SIToFP,
            b"fptrunc" => Opcode::FPTrunc,
            b"fpext" => Opcode::FPExt,
            b"ptrtoint" => Opcode::PtrToInt,
            b"ptrtoaddr" => Opcode::PtrToAddr,
            b"inttoptr" => Opcode::IntToPtr,
            b"bitcast" => Opcode::BitCast,
            b"addrspacecast" => Opcode::AddrSpaceCast,
            b"cleanuppad" => Opcode::CleanupPad,
            b"catchpad" => Opcode::CatchPad,
            b"icmp" => Opcode::ICmp,
            b"fcmp" => Opcode::FCmp,
            b"phi" => Opcode::Phi,
            b"call" | b"tail" | b"musttail" | b"notail" => Opcode::Call,
            b"select" => Opcode::Select,
            b"va_arg" => Opcode::VAArg,
            b"extractelement" => Opcode::ExtractElement,
            b"insertelement" => Opcode::InsertElement,
            b"shufflevector" => Opcode::ShuffleVector,
            b"extractvalue" => Opcode::ExtractValue,
            b"insertvalue" => Opcode::InsertValue,
            b"landingpad" => Opcode::LandingPad,
            b"freeze" => Opcode::Freeze,
            _ => return None,
        })
    }

    /// Whether it ends a basic block.
    pub fn is_terminator(self) -> bool {
        (self as u8) <= (Opcode::CallBr as u8)
    }

    /// Whether it is a cast (`trunc` ... `addrspacecast`).
    pub fn is_cast(self) -> bool {
        (Opcode::Trunc as u8..=Opcode::AddrSpaceCast as u8).contains(&(self as u8))
    }

    /// Whether it is a two-operand arithmetic or bitwise operation.
    pub fn is_binary(self) -> bool {
        (Opcode::Add as u8..=Opcode::Xor as u8).contains(&(self as u8))
    }
}

/// An integer or floating comparison predicate (`icmp eq`, `fcmp olt`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Predicate(pub(crate) u8);

const PREDICATES: [&str; 26] = [
    "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle", "false", "oeq", "ogt",
    "oge", "olt", "ole", "one", "ord", "ueq", "une", "uno", "true", "ugt", "uge", "ult", "ule",
];

impl Predicate {
    pub(crate) fn parse(word: &[u8], float: bool) -> Option<Predicate> {
        let range = if float { 10..26 } else { 0..10 };
        let index = PREDICATES[range.clone()]
            .iter()
            .position(|p| p.as_bytes() == word)?;
        Some(Predicate((range.start + index) as u8))
    }

    /// The keyword (`eq`, `slt`, `olt`, ...).
    pub fn keyword(self) -> &'static str {
        PREDICATES.get(self.0 as usize).copied().unwrap_or("eq")
    }

    /// `icmp eq`.
    pub const EQ: Predicate = Predicate(0);
    /// `icmp ne`.
    pub const NE: Predicate = Predicate(1);
    /// `icmp ugt`.
    pub const UGT: Predicate = Predicate(2);
    /// `icmp uge`.
    pub const UGE: Predicate = Predicate(3);
    /// `icmp ult`.
    pub const ULT: Predicate = Predicate(4);
    /// `icmp ule`.
    pub const ULE: Predicate = Predicate(5);
    /// `icmp slt`.
    pub const SLT: Predicate = Predicate(8);
}

/// A parameter or return attribute of a function or call.
///
/// Attributes no pass needs to understand are kept as their exact text ([`Attr::Other`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Attr {
    /// `zeroext`.
    ZeroExt,
    /// `signext`.
    SignExt,
    /// `inreg`.
    InReg,
    /// `noundef`.
    NoUndef,
    /// `nonnull`.
    NonNull,
    /// `noalias`.
    NoAlias,
    /// `nocapture`.
    NoCapture,
    /// `readonly`.
    ReadOnly,
    /// `writeonly`.
    WriteOnly,
    /// `readnone`.
    ReadNone,
    /// `returned`.
    Returned,
    /// `nest`.
    Nest,
    /// `immarg`.
    ImmArg,
    /// `align N`.
    Align(u64),
    /// `dereferenceable(N)`.
    Dereferenceable(u64),
    /// `dereferenceable_or_null(N)`.
    DereferenceableOrNull(u64),
    /// `byval(T)`.
    ByVal(TypeId),
    /// `byref(T)`.
    ByRef(TypeId),
    /// `sret(T)`.
    SRet(TypeId),
    /// `inalloca(T)`.
    InAlloca(TypeId),
    /// `preallocated(T)`.
    Preallocated(TypeId),
    /// `elementtype(T)`.
    ElementType(TypeId),
    /// Anything else, kept as its source text (`range(i32 0, 8)`, `"key"="value"`, ...).
    Other(Text),
}

/// A piece of a module's source text (see [`crate::Module::text`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Text {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// The `atomicrmw` operations by their keyword; an instruction's `aux` is the index here.
pub(crate) const RMW_OPS: [&str; 19] = [
    "xchg",
    "add",
    "sub",
    "and",
    "nand",
    "or",
    "xor",
    "max",
    "min",
    "umax",
    "umin",
    "fadd",
    "fsub",
    "fmax",
    "fmin",
    "uinc_wrap",
    "udec_wrap",
    "usub_cond",
    "usub_sat",
];

/// The attributes without a value, the ones clang writes most first: the parser tries them
/// in this order (`noundef` is on nearly every argument of clang's calls).
pub(crate) const FLAG_ATTRS: [(Attr, &str); 13] = [
    (Attr::NoUndef, "noundef"),
    (Attr::NonNull, "nonnull"),
    (Attr::ZeroExt, "zeroext"),
    (Attr::SignExt, "signext"),
    (Attr::NoCapture, "nocapture"),
    (Attr::NoAlias, "noalias"),
    (Attr::InReg, "inreg"),
    (Attr::ReadOnly, "readonly"),
    (Attr::WriteOnly, "writeonly"),
    (Attr::ReadNone, "readnone"),
    (Attr::Returned, "returned"),
    (Attr::Nest, "nest"),
    (Attr::ImmArg, "immarg"),
];

pub(crate) const TYPE_ATTRS: [&str; 6] = [
    "byval",
    "byref",
    "sret",
    "inalloca",
    "preallocated",
    "elementtype",
];

impl Attr {
    pub(crate) fn type_attr(index: usize, ty: TypeId) -> Attr {
        match index {
            0 => Attr::ByVal(ty),
            1 => Attr::ByRef(ty),
            2 => Attr::SRet(ty),
            3 => Attr::InAlloca(ty),
            4 => Attr::Preallocated(ty),
            _ => Attr::ElementType(ty),
        }
    }
}

pub(crate) const NONE: u32 = u32::MAX;

crate::flags::flag_set! {
    /// What an instruction's record says beyond its fields: how its text defines its value,
    /// what edits did to it, and how a sparse parse kept it. One byte of [`InstData`].
    pub(crate) struct InstFlags {
        /// The text starts with `%name =`.
        const HAS_DEF = 1;
        /// Non-void without `%N =`: takes a number silently.
        const IMPLICIT_NUM = 2;
        /// Made by an edit: printed from its fields.
        const NEW = 4;
        /// Removed by an edit: the views and the printer pass over it.
        const REMOVED = 8;
        /// Operands replaced: current list in `Module::edited_ops`.
        const OPS_EDITED = 16;
        /// Some text of the body names its value.
        const NAMED_IN_TEXT = 32;
        /// Kept as text by a sparse parse (see `Parser::opaque_lines`): no operands, no type.
        const OPAQUE = 64;
        /// In a sparse parse, parsed because the filter accepted its text: every line that
        /// names its value was parsed too, so its uses are all known.
        const USES_PARSED = 128;
    }
}

/// One instruction. 36 bytes: a 50 MB module holds over a million of these.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InstData {
    pub opcode: Opcode,
    pub flags: InstFlags,
    /// Per opcode: log2(align)+1 for memory operations, the predicate for compares, the
    /// operation for atomicrmw, GEP flags for new GEPs ([`InstData::AUX_GEP_INBOUNDS`]).
    pub aux: u8,
    pub md_len: u8,
    pub ty: TypeId,
    pub ops: u32,
    pub ops_len: u32,
    /// The instruction's text: first token to the end of its line (newline included).
    pub start: u32,
    pub end: u32,
    /// Per opcode: the call record (call, invoke, callbr), the source element type (GEP),
    /// the allocated type (alloca), the index list (extractvalue, insertvalue).
    pub extra: u32,
    pub block: u32,
    pub md: u32,
}

const _: () = assert!(size_of::<InstData>() == 36);

impl InstData {
    /// In `aux` of a GEP made by an edit: printed as `getelementptr inbounds`. (A parsed
    /// GEP keeps its flags in its text.)
    pub const AUX_GEP_INBOUNDS: u8 = 1;
}

/// The parts of a call that its operands do not hold.
#[derive(Clone, Debug)]
pub(crate) struct CallData {
    pub fn_ty: TypeId,
    /// One attribute range per argument, in `Module::attr_sets`.
    pub arg_attrs: u32,
    pub ret_attrs: (u32, u32),
    pub nargs: u32,
    /// Source text kept as is: calling convention, function attributes, operand bundles,
    /// `tail`/`musttail`, fast-math flags. `NONE` spans for new calls.
    pub cconv: Text,
    pub fn_attrs: Text,
    pub bundles: Text,
    pub tail: Text,
}

pub(crate) const NO_TEXT: Text = Text {
    start: NONE,
    end: NONE,
};

impl Text {
    pub(crate) fn is_none(self) -> bool {
        self.start == NONE
    }
}
