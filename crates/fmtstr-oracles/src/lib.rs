//! Test support: where the real tools that judge fmtstr's output live.
//!
//! fmtstr's truth comes from real toolchains: LLVM 19 (`llvm-as`, `llc`, `opt`, `clang`,
//! `llvm-readobj`, ...) and NVIDIA's `nvcc` and `ptxas` from the PyPI wheels. `cargo xtask oracles`
//! installs them; this crate is the one place that knows where they end up, shared by the tests
//! and by xtask.
//!
//! A test asks with [`require`]: under `CI=true` a missing tool fails the test (an oracle test
//! must never pass by skipping in CI); elsewhere the test is skipped with the install command.
//!
//! ```no_run
//! use fmtstr_oracles::{require, Tool};
//! let Some(llc) = require(Tool::Llc) else { return };
//! ```
//!
//! The renderer's and the decoder's differential tests judge by glibc itself: [`glibc`] calls its
//! `snprintf` with typed C arguments.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

pub mod glibc;
pub mod spirv;

/// A real tool that judges fmtstr's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    Clang,
    Llc,
    Opt,
    LlvmAs,
    LlvmDis,
    LlvmReadobj,
    LlvmReadelf,
    LlvmObjcopy,
    Lld,
    Nvcc,
    Ptxas,
    /// Khronos' GLSL/HLSL to SPIR-V compiler (Debian's glslang-tools).
    GlslangValidator,
    /// SPIR-V Tools (Debian's spirv-tools): the validator, disassembler and optimizer.
    SpirvVal,
    SpirvDis,
    SpirvOpt,
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

    /// The directory the tool is looked up in.
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
    std::env::var_os("FMTSTR_LLVM_BINDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-19/bin"))
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
    std::env::var_os("FMTSTR_LLVM_SOURCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/llvm-source/llvm-toolchain-19"))
}

/// LLVM 19's test tree for a test that reads it: its root when unpacked; otherwise a failure
/// under `CI=true` and a skip (with the fetch command) elsewhere, as for a missing tool.
pub fn require_llvm_source() -> Option<PathBuf> {
    let dir = llvm_source_dir();
    if dir.join(".fmtstr-complete").is_file() {
        return Some(dir);
    }
    let message = format!(
        "LLVM 19's test tree not found at {}; fetch it with `cargo xtask llvm-source`",
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
    let message = format!(
        "oracle `{tool}` not found at {}; install the oracles with `{INSTALL_COMMAND}`",
        tool.path().display()
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
}
