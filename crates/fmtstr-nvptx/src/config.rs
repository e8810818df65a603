//! The one configuration value both halves of the crate read.
//!
//! The lockstep rule: the struct-argument pass and the consumer of its output (there
//! MemorySpaceOpt, here the `.param` planner) must agree on whether byval aggregates are read
//! in place from the parameter space. A mismatch still type-checks and fails far away (an
//! "invalid launch argument" at verification, or a plan that does not describe the PTX). So
//! the setting lives in exactly one place: a [`Config`] value that both
//! the struct-args pass (`struct_args::run`) and the planner (`abi::plan`) take. Neither
//! has a setting of its own, so there is no way to enable it for one and not the other.

/// How byval aggregates and the target are treated, for the pass and the planner alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// `opt-byval`: rewrite byval aggregate parameters into parameter-space reads
    /// (and, in kernels, address escapes into `grid_constant` parameters). When false the pass
    /// changes nothing and the planner predicts what llc does with the unlowered module: a
    /// local copy for every byval parameter whose address escapes.
    pub opt_byval: bool,
    /// The SM version llc compiles for (`-mcpu=sm_90` is 90). Decides which atomics are native
    /// and whether a kernel parameter's address can be taken in place (`cvta.param`, sm_70).
    pub sm: u32,
    /// Whose llc the plan describes: LLVM 19's or LLVM 22's (the rules that differ are listed
    /// in the `abi` module's docs). The struct-args pass is the same for both.
    pub llc: Llc,
}

/// The llc a plan describes. LLVM 22's is the default: it is the newest one fmtstr is
/// measured against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Llc {
    /// `llc-19` (LLVM 19).
    V19,
    /// `llc-22` (LLVM 22).
    #[default]
    V22,
}

impl Llc {
    /// Both, oldest first.
    pub const ALL: [Llc; 2] = [Llc::V19, Llc::V22];

    /// The LLVM major version: 19 or 22.
    pub fn major(self) -> u32 {
        match self {
            Llc::V19 => 19,
            Llc::V22 => 22,
        }
    }

    /// The llc of LLVM `major`, if it is one the planner knows.
    pub fn from_major(major: u32) -> Option<Llc> {
        match major {
            19 => Some(Llc::V19),
            22 => Some(Llc::V22),
            _ => None,
        }
    }
}

impl std::fmt::Display for Llc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "llc-{}", self.major())
    }
}

impl Default for Config {
    /// `opt_byval` on, sm_90, llc 22: what `llc-22 -march=nvptx64 -mcpu=sm_90` is judged
    /// against.
    fn default() -> Self {
        Config {
            opt_byval: true,
            sm: 90,
            llc: Llc::default(),
        }
    }
}

impl Config {
    /// The PTX ISA version llc emits by default for this SM (`.version`), which decides
    /// a few atomics together with the SM (NVPTX.td: the lowest version each SM needs).
    /// llc 19 and llc 22 agree up to sm_90; llc 22 knows the Blackwell SMs llc 19 does not
    /// (measured: `.version` of llc-22 -mcpu=sm_N).
    pub fn ptx_version(&self) -> u32 {
        if self.llc == Llc::V22 {
            match self.sm {
                100 | 101 => return 86,
                103 | 121 => return 88,
                110 => return 90,
                120 => return 87,
                _ => {}
            }
        }
        match self.sm {
            0..=52 => 32,
            53..=69 => 50,
            70..=71 => 60,
            72..=74 => 61,
            75..=79 => 63,
            80..=85 => 70,
            86 => 71,
            87 => 74,
            _ => 78,
        }
    }

    /// Whether PTX can take a kernel parameter's address in place (`cvta.param`: sm_70 and
    /// PTX 7.7). llc 19 writes `cvta.param` for any SM; below sm_70 ptxas rejects it.
    pub fn has_cvta_param(&self) -> bool {
        self.sm >= 70
    }
}

/// The DataLayout `llc -march=nvptx64` compiles with. llc replaces the module's own
/// `target datalayout` with its target's before anything else runs, so a module that says
/// `i128:64` or `p:32:32` is still laid out with `i128` aligned to 16 and 64-bit pointers:
/// the pass and the planner read sizes, offsets and alignments from this, never from the
/// module. (NVPTXTargetMachine's `computeDataLayout` for 64-bit pointers.)
pub const NVPTX64_DATA_LAYOUT: &str = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";

/// [`NVPTX64_DATA_LAYOUT`], parsed once.
pub fn target_layout() -> &'static fmtstr_ir::DataLayout {
    static LAYOUT: std::sync::OnceLock<fmtstr_ir::DataLayout> = std::sync::OnceLock::new();
    LAYOUT.get_or_init(|| {
        fmtstr_ir::DataLayout::parse(NVPTX64_DATA_LAYOUT)
            .unwrap_or_else(|_| fmtstr_ir::DataLayout::default())
    })
}
