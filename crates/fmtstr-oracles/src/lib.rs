//! Test support: where the real tools that judge fmtstr's output live.
//!
//! fmtstr's truth comes from real toolchains: LLVM 19 (`llvm-as`, `llc`, `opt`, `clang`,
//! `llvm-readobj`, ...), LLVM 22 beside it for the IR grammar it added, and NVIDIA's `nvcc` and
//! `ptxas` from the PyPI wheels. `cargo xtask oracles` installs them; this crate is the one place
//! that knows where they end up, shared by the tests and by xtask.
//!
//! A test asks with [`require`]: under `CI=true` a missing tool fails the test (an oracle test
//! must never pass by skipping in CI); elsewhere the test is skipped with the install command.
//! [`require`] gives LLVM 19's tools; [`require_llvm`] names the release.
//!
//! ```no_run
//! use fmtstr_oracles::{require, require_llvm, Llvm, Tool};
//! let Some(llc) = require(Tool::Llc) else { return };
//! for llvm in Llvm::ALL {
//!     let Some(llvm_as) = require_llvm(llvm, Tool::LlvmAs) else { return };
//! }
//! ```
//!
//! The renderer's and the decoder's differential tests judge by glibc itself: [`glibc`] calls its
//! `snprintf` with typed C arguments. SARIF logs are judged by the SARIF schema and a SARIF
//! reader ([`sarif`]).

#![warn(missing_docs)]

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

pub mod glibc;
pub mod sarif;
pub mod spirv;

/// A real tool that judges fmtstr's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// LLVM's C, CUDA and HIP compiler: builds the modules and objects fmtstr lowers and reads.
    Clang,
    /// LLVM's code generator: compiles lowered IR to PTX or AMDGPU objects, so a lowering that
    /// it rejects fails.
    Llc,
    /// LLVM's optimizer: runs LLVM's own passes (AMDGPU's printf binding, -O levels) on test
    /// modules, to compare with or feed fmtstr's lowering.
    Opt,
    /// LLVM's assembler: whether the text fmtstr writes is IR that LLVM parses and verifies.
    LlvmAs,
    /// LLVM's disassembler: bitcode to text, which `fmtstr lower` and `fmtstr abi` read.
    LlvmDis,
    /// LLVM's object reader: the notes and sections of the ELF images fmtstr writes.
    LlvmReadobj,
    /// LLVM's `readelf`: the section table, to check a rewrite keeps other sections' bytes.
    LlvmReadelf,
    /// LLVM's `objcopy`: whether an image fmtstr rewrote is one it accepts and copies.
    LlvmObjcopy,
    /// LLVM's ELF linker (`ld.lld`): links AMDGPU objects into the images fmtstr folds.
    Lld,
    /// NVIDIA's CUDA compiler (from the wheels): CUDA's own printf, for parity with fmtstr's.
    Nvcc,
    /// NVIDIA's PTX assembler (from the wheels): whether the PTX a lowering yields assembles.
    Ptxas,
    /// Khronos' GLSL/HLSL to SPIR-V compiler (Debian's glslang-tools).
    GlslangValidator,
    /// SPIR-V Tools' validator (Debian's spirv-tools): whether a module is valid SPIR-V.
    SpirvVal,
    /// SPIR-V Tools' disassembler: a module as SPIR-V assembly text.
    SpirvDis,
    /// SPIR-V Tools' optimizer, which some sample recipes run after compiling.
    SpirvOpt,
    /// SPIR-V Tools' linker, which some sample recipes run to join modules.
    SpirvLink,
}

impl Tool {
    /// Every tool, in the order `cargo xtask oracles` reports them.
    pub const ALL: [Tool; 16] = [
        Tool::Clang,
        Tool::Llc,
        Tool::Opt,
        Tool::LlvmAs,
        Tool::LlvmDis,
        Tool::LlvmReadobj,
        Tool::LlvmReadelf,
        Tool::LlvmObjcopy,
        Tool::Lld,
        Tool::Nvcc,
        Tool::Ptxas,
        Tool::GlslangValidator,
        Tool::SpirvVal,
        Tool::SpirvDis,
        Tool::SpirvOpt,
        Tool::SpirvLink,
    ];

    /// The executable's file name.
    pub fn file_name(self) -> &'static str {
        match self {
            Tool::Clang => "clang",
            Tool::Llc => "llc",
            Tool::Opt => "opt",
            Tool::LlvmAs => "llvm-as",
            Tool::LlvmDis => "llvm-dis",
            Tool::LlvmReadobj => "llvm-readobj",
            Tool::LlvmReadelf => "llvm-readelf",
            Tool::LlvmObjcopy => "llvm-objcopy",
            Tool::Lld => "ld.lld",
            Tool::Nvcc => "nvcc",
            Tool::Ptxas => "ptxas",
            Tool::GlslangValidator => "glslangValidator",
            Tool::SpirvVal => "spirv-val",
            Tool::SpirvDis => "spirv-dis",
            Tool::SpirvOpt => "spirv-opt",
            Tool::SpirvLink => "spirv-link",
        }
    }

    /// Whether the tool comes from NVIDIA's wheels rather than from LLVM 19.
    pub fn is_nvidia(self) -> bool {
        matches!(self, Tool::Nvcc | Tool::Ptxas)
    }

    /// Whether the tool is one of the SPIR-V tools (glslang-tools and spirv-tools).
    pub fn is_spirv(self) -> bool {
        matches!(
            self,
            Tool::GlslangValidator
                | Tool::SpirvVal
                | Tool::SpirvDis
                | Tool::SpirvOpt
                | Tool::SpirvLink
        )
    }

    /// Whether the tool is one of LLVM's (installed once per [`Llvm`] release).
    pub fn is_llvm(self) -> bool {
        !self.is_nvidia() && !self.is_spirv()
    }

    /// The directory the tool is looked up in (LLVM's tools: LLVM 19's).
    pub fn directory(self) -> PathBuf {
        if self.is_nvidia() {
            cuda_dir().join("nvidia/cu13/bin")
        } else if self.is_spirv() {
            spirv_bindir()
        } else {
            llvm_bindir()
        }
    }

    /// The path the tool has once installed (it may not exist).
    pub fn path(self) -> PathBuf {
        self.directory().join(self.file_name())
    }

    /// A command for the tool, when it is installed.
    pub fn command(self) -> Option<Command> {
        find(self).map(|path| {
            let mut command = Command::new(path);
            if self == Tool::Nvcc {
                // The wheels keep the CUDA headers beside the binaries; nvcc does not look there.
                command
                    .arg("-I")
                    .arg(cuda_dir().join("nvidia/cu13/include"));
            }
            command
        })
    }
}

/// An LLVM release fmtstr is judged by. LLVM 19 is the default of every function that does not
/// name one ([`require`], [`llvm_bindir`], [`Tool::path`], ...); LLVM 22 judges the IR grammar
/// LLVM added since (`ptrtoaddr`, calling conventions with a parameter, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Llvm {
    /// LLVM 19: the release every test and tool lookup uses unless it names another.
    V19,
    /// LLVM 22: the newer IR grammar (`ptrtoaddr`, calling conventions with a parameter, ...).
    V22,
}

impl Llvm {
    /// Every release, oldest first, in the order `cargo xtask oracles` installs and reports them.
    pub const ALL: [Llvm; 2] = [Llvm::V19, Llvm::V22];

    /// The release the functions without an [`Llvm`] argument use.
    pub const DEFAULT: Llvm = Llvm::V19;

    /// The major version: 19, 22.
    pub fn major(self) -> u32 {
        match self {
            Llvm::V19 => 19,
            Llvm::V22 => 22,
        }
    }

    /// The release with that major version.
    pub fn from_major(major: u32) -> Option<Llvm> {
        Llvm::ALL.into_iter().find(|llvm| llvm.major() == major)
    }

    /// The environment variable that overrides where its tools live.
    pub fn bindir_env(self) -> &'static str {
        match self {
            Llvm::V19 => "FMTSTR_LLVM_BINDIR",
            Llvm::V22 => "FMTSTR_LLVM22_BINDIR",
        }
    }

    /// The environment variable that overrides where its test tree is unpacked.
    pub fn source_env(self) -> &'static str {
        match self {
            Llvm::V19 => "FMTSTR_LLVM_SOURCE",
            Llvm::V22 => "FMTSTR_LLVM22_SOURCE",
        }
    }

    /// Debian's binary packages that install it: `llvm-22`, `clang-22`, `lld-22`.
    pub fn apt_packages(self) -> [String; 3] {
        let major = self.major();
        [
            format!("llvm-{major}"),
            format!("clang-{major}"),
            format!("lld-{major}"),
        ]
    }

    /// Debian's source package, whose test tree `cargo xtask llvm-source` unpacks:
    /// `llvm-toolchain-22`.
    pub fn source_package(self) -> String {
        format!("llvm-toolchain-{}", self.major())
    }
}

impl fmt::Display for Llvm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LLVM {}", self.major())
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.file_name())
    }
}

/// The command that installs every oracle.
pub const INSTALL_COMMAND: &str = "cargo xtask oracles";

/// The workspace root (this crate lives in `crates/fmtstr-oracles`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Where LLVM 19's tools live: `$FMTSTR_LLVM_BINDIR`, else Debian's `/usr/lib/llvm-19/bin`.
pub fn llvm_bindir() -> PathBuf {
    llvm_bindir_of(Llvm::V19)
}

/// Where a release's tools live: its [`Llvm::bindir_env`] (`$FMTSTR_LLVM_BINDIR` for 19,
/// `$FMTSTR_LLVM22_BINDIR` for 22), else Debian's `/usr/lib/llvm-N/bin`.
pub fn llvm_bindir_of(llvm: Llvm) -> PathBuf {
    std::env::var_os(llvm.bindir_env())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(format!("/usr/lib/llvm-{}/bin", llvm.major())))
}

/// The path an LLVM tool of that release has once installed (it may not exist).
///
/// # Panics
///
/// When `tool` is not one of LLVM's (see [`Tool::is_llvm`]).
pub fn llvm_tool_path(llvm: Llvm, tool: Tool) -> PathBuf {
    assert!(tool.is_llvm(), "{tool} is not one of LLVM's tools");
    llvm_bindir_of(llvm).join(tool.file_name())
}

/// The LLVM tool's path when that release is installed.
///
/// # Panics
///
/// When `tool` is not one of LLVM's.
pub fn find_llvm(llvm: Llvm, tool: Tool) -> Option<PathBuf> {
    let path = llvm_tool_path(llvm, tool);
    path.is_file().then_some(path)
}

/// The LLVM tool's path for an oracle test, as [`require`] but for the named release: when the
/// tool is missing this panics under `CI=true` and otherwise prints how to install it and
/// returns `None`. `require_llvm(Llvm::V19, tool)` is `require(tool)`.
///
/// # Panics
///
/// Under `CI=true` when the tool is missing, and when `tool` is not one of LLVM's.
pub fn require_llvm(llvm: Llvm, tool: Tool) -> Option<PathBuf> {
    find_llvm(llvm, tool).or_else(|| missing_at(tool, &llvm_tool_path(llvm, tool), in_ci()))
}

/// A command for the LLVM tool of that release (see [`require_llvm`] for what happens when it
/// is missing).
pub fn require_llvm_command(llvm: Llvm, tool: Tool) -> Option<Command> {
    require_llvm(llvm, tool).map(Command::new)
}

/// Where glslang-tools and spirv-tools live: `$FMTSTR_SPIRV_BINDIR`, else Debian's `/usr/bin`.
pub fn spirv_bindir() -> PathBuf {
    std::env::var_os("FMTSTR_SPIRV_BINDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin"))
}

/// Where the NVIDIA wheels are installed: `$FMTSTR_CUDA_DIR`, else `target/oracles/cuda`.
pub fn cuda_dir() -> PathBuf {
    std::env::var_os("FMTSTR_CUDA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/oracles/cuda"))
}

/// Where LLVM 19's own test tree is unpacked (the directory holding `llvm/test` and
/// `clang/test/Sema`): `$FMTSTR_LLVM_SOURCE`, else `target/llvm-source/llvm-toolchain-19`.
/// `cargo xtask llvm-source` fetches it from Debian's source package of the installed release.
pub fn llvm_source_dir() -> PathBuf {
    llvm_source_dir_of(Llvm::V19)
}

/// Where a release's test tree is unpacked: its [`Llvm::source_env`] (`$FMTSTR_LLVM_SOURCE`,
/// `$FMTSTR_LLVM22_SOURCE`), else `target/llvm-source/llvm-toolchain-N`.
pub fn llvm_source_dir_of(llvm: Llvm) -> PathBuf {
    std::env::var_os(llvm.source_env())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            workspace_root()
                .join("target/llvm-source")
                .join(llvm.source_package())
        })
}

/// Where `cargo xtask corpus --llvm-tests` keeps a release's llvm-as verdicts on its test
/// modules: `target/corpus-llvm/verdicts.tsv` for 19, `target/corpus-llvm/verdicts-22.tsv`
/// for 22.
pub fn llvm_verdicts_file(llvm: Llvm) -> PathBuf {
    let name = match llvm {
        Llvm::V19 => "verdicts.tsv".to_owned(),
        other => format!("verdicts-{}.tsv", other.major()),
    };
    workspace_root().join("target/corpus-llvm").join(name)
}

/// LLVM 19's test tree for a test that reads it: its root when unpacked; otherwise a failure
/// under `CI=true` and a skip (with the fetch command) elsewhere, as for a missing tool.
pub fn require_llvm_source() -> Option<PathBuf> {
    require_llvm_source_of(Llvm::V19)
}

/// A release's test tree, as [`require_llvm_source`] does for LLVM 19.
pub fn require_llvm_source_of(llvm: Llvm) -> Option<PathBuf> {
    let dir = llvm_source_dir_of(llvm);
    if dir.join(".fmtstr-complete").is_file() {
        return Some(dir);
    }
    let fetch = match llvm {
        Llvm::V19 => "cargo xtask llvm-source".to_owned(),
        other => format!("cargo xtask llvm-source --llvm {}", other.major()),
    };
    let message = format!(
        "{llvm}'s test tree not found at {}; fetch it with `{fetch}`",
        dir.display()
    );
    if in_ci() {
        panic!("{message} (CI=true: an oracle test must not skip)");
    }
    eprintln!("skipping: {message}");
    None
}

/// The tool's path when it is installed.
pub fn find(tool: Tool) -> Option<PathBuf> {
    let path = tool.path();
    path.is_file().then_some(path)
}

/// Whether this run is CI, where a missing oracle is a failure rather than a skip.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value == "true" || value == "1")
}

/// The tool's path for an oracle test. When the tool is missing this panics under `CI=true` and
/// otherwise prints how to install it and returns `None`, so that the test can return early.
pub fn require(tool: Tool) -> Option<PathBuf> {
    find(tool).or_else(|| missing(tool, in_ci()))
}

/// What a test gets for a missing tool: a failure in CI, a skip with the install command
/// elsewhere.
fn missing(tool: Tool, ci: bool) -> Option<PathBuf> {
    missing_at(tool, &tool.path(), ci)
}

fn missing_at(tool: Tool, path: &Path, ci: bool) -> Option<PathBuf> {
    let message = format!(
        "oracle `{tool}` not found at {}; install the oracles with `{INSTALL_COMMAND}`",
        path.display()
    );
    if ci {
        panic!("{message} (CI=true: an oracle test must not skip)");
    }
    eprintln!("skipping: {message}");
    None
}

/// A command for the tool (see [`require`] for what happens when it is missing).
pub fn require_command(tool: Tool) -> Option<Command> {
    require(tool)?;
    tool.command()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "CI=true: an oracle test must not skip")]
    fn a_missing_tool_fails_in_ci() {
        missing(Tool::Llc, true);
    }

    #[test]
    fn a_missing_tool_skips_outside_ci() {
        assert_eq!(missing(Tool::Ptxas, false), None);
    }

    #[test]
    fn tools_live_where_the_installer_puts_them() {
        assert!(Tool::Nvcc.path().ends_with("nvidia/cu13/bin/nvcc"));
        assert!(Tool::Llc.path().ends_with("llc"));
        assert!(Tool::SpirvDis.path().ends_with("spirv-dis"));
        assert!(workspace_root().join("Cargo.toml").is_file());
    }

    #[test]
    fn each_llvm_release_has_its_own_place() {
        assert_eq!(Llvm::ALL.map(Llvm::major), [19, 22]);
        assert_eq!(Llvm::from_major(22), Some(Llvm::V22));
        assert_eq!(Llvm::from_major(20), None);
        assert_eq!(Llvm::V22.to_string(), "LLVM 22");
        assert_eq!(Llvm::V22.apt_packages(), ["llvm-22", "clang-22", "lld-22"]);
        assert_eq!(Llvm::V22.source_package(), "llvm-toolchain-22");
        // The overrides are read per release; without them Debian's directories are used.
        for llvm in Llvm::ALL {
            if std::env::var_os(llvm.bindir_env()).is_none() {
                let expected = format!("/usr/lib/llvm-{}/bin/llvm-as", llvm.major());
                assert_eq!(llvm_tool_path(llvm, Tool::LlvmAs), PathBuf::from(expected));
            }
        }
        assert_eq!(llvm_tool_path(Llvm::V19, Tool::Llc), Tool::Llc.path());
        assert_ne!(llvm_verdicts_file(Llvm::V19), llvm_verdicts_file(Llvm::V22));
        assert!(
            llvm_source_dir_of(Llvm::V22).ends_with("llvm-toolchain-22")
                || std::env::var_os(Llvm::V22.source_env()).is_some()
        );
    }

    #[test]
    #[should_panic(expected = "not one of LLVM's tools")]
    fn an_llvm_release_has_no_nvidia_tools() {
        llvm_tool_path(Llvm::V22, Tool::Ptxas);
    }

    #[test]
    #[should_panic(expected = "CI=true: an oracle test must not skip")]
    fn a_missing_llvm_22_tool_fails_in_ci() {
        missing_at(Tool::LlvmAs, Path::new("/nonexistent/llvm-as"), true);
    }
}
