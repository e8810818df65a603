//! Dialects: which printf the checker judges a format against.
//!
//! One checker serves every dialect; a dialect is a set of [`Rules`] that switch parts of the
//! grammar and of the argument matching on or off. Adding a dialect means one more [`Dialect`]
//! variant and its `Rules`.

use std::fmt;
use std::str::FromStr;

/// Which printf a format is checked against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// ISO C and glibc on LP64 Linux, judged exactly like clang 19's `-Wformat`: a finding
    /// wherever clang warns on a printf call, silence where clang is silent.
    C,
    /// OpenCL C's printf, judged exactly like clang 19's `-Wformat` in OpenCL mode: the vector
    /// modifier `%vN` and `hl`, and clang's own reading of them (`%v4f` expects `double4`).
    OpenCl,
    /// GPU printf (CUDA's vprintf, AMD's printf buffer, OpenCL): everything [`Dialect::C`]
    /// finds, OpenCL vectors read the way GPU runtimes print them (`%v4f` is `float4`), plus
    /// warnings for what GPU printf cannot print (`%n`, wide characters, positional arguments,
    /// `%m`, the `'` flag, C23's `%b`, more than 32 arguments for CUDA). A conversion that
    /// cannot be parsed at all is an error.
    #[default]
    Gpu,
    /// The Vulkan validation layers' debug printf (what `debugPrintfEXT` and HLSL's `printf` in
    /// SPIR-V print through): `%[0][width][.precision][vN]specifier`, specifiers
    /// `d i o u x X a A e E f F g G p`, `%v2`..`%v4` vectors printed with ", ", `l` only for
    /// 64-bit integers (`%lu %lx %ld`, and VVL's own `%ul` for `%lx`), floats of 16, 32 and 64
    /// bits all with `%f` (not `%lf`), 8- and 16-bit integers and booleans with the 32-bit
    /// specifiers. No `%s` or `%c`, no `-`, `+`, space, `#` or `'` flags, no `*`, no `h`, `hh`,
    /// `ll`, `j`, `z`, `t` or `L`, no positions: what VVL rejects (it skips the call) is an
    /// error, what it prints oddly a warning. Read from VVL's docs/debug_printf.md and its
    /// instrumentation pass's format check (DEBUG-PRINTF-FORMATTING).
    Vvl,
}

impl Dialect {
    /// Every dialect, in the order `--help` lists them.
    pub const ALL: [Dialect; 4] = [Dialect::C, Dialect::OpenCl, Dialect::Gpu, Dialect::Vvl];

    /// The dialect's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::C => "c",
            Dialect::OpenCl => "opencl",
            Dialect::Gpu => "gpu",
            Dialect::Vvl => "vvl",
        }
    }

    /// The switches the checker reads.
    pub(crate) fn rules(self) -> Rules {
        let clang = Rules {
            vectors: false,
            opencl_lengths: false,
            clang_vector_types: false,
            c23_width_lengths: false,
            long_double_is_double: false,
            gpu_findings: false,
            max_arguments: None,
            unparseable_is_error: false,
            vvl: false,
        };
        match self {
            Dialect::C => clang,
            Dialect::OpenCl => Rules {
                vectors: true,
                opencl_lengths: true,
                clang_vector_types: true,
                ..clang
            },
            Dialect::Gpu => Rules {
                vectors: true,
                opencl_lengths: false,
                clang_vector_types: false,
                c23_width_lengths: true,
                long_double_is_double: true,
                gpu_findings: true,
                max_arguments: Some(CUDA_MAX_ARGUMENTS),
                unparseable_is_error: true,
                vvl: false,
            },
            Dialect::Vvl => Rules {
                vectors: true,
                long_double_is_double: true,
                unparseable_is_error: true,
                vvl: true,
                ..clang
            },
        }
    }
}

/// The most arguments CUDA's printf prints; the driver drops the rest.
pub const CUDA_MAX_ARGUMENTS: usize = 32;

/// What a dialect switches on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rules {
    /// OpenCL's vector modifier `%vN` (and `hl` inside it) is part of the grammar.
    pub vectors: bool,
    /// OpenCL C's length rules: `h`, `hl` and `l` apply to floating conversions only in a vector.
    pub opencl_lengths: bool,
    /// clang's reading of vector specs: a float vector without a length is `double`, `hh`
    /// integer vectors and `%vNs`/`%vNp` are not checked.
    pub clang_vector_types: bool,
    /// C23's exact-width lengths `wN` and `wfN` (else `w` is Microsoft's wide length, as in clang).
    pub c23_width_lengths: bool,
    /// `long double` is `double` (as on NVPTX and AMDGPU), so `%Lf` takes a `double`.
    pub long_double_is_double: bool,
    /// Warn about what GPU printf cannot print.
    pub gpu_findings: bool,
    /// Warn when a call passes more arguments than this.
    pub max_arguments: Option<usize>,
    /// An invalid or incomplete conversion is an error rather than a warning.
    pub unparseable_is_error: bool,
    /// The Vulkan validation layers' grammar and argument rules ([`Dialect::Vvl`]).
    pub vvl: bool,
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dialect name that is not one of [`Dialect::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown dialect `{0}`; expected one of c, opencl, gpu, vvl")]
pub struct UnknownDialect(pub String);

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Dialect, UnknownDialect> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| UnknownDialect(s.to_string()))
    }
}
