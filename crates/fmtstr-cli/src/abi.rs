//! `fmtstr abi`: the PTX `.param` plan llc 22 (or, with `--llc 19`, llc 19) makes for a
//! module, and a check of it against the PTX llc wrote.

use std::path::{Path, PathBuf};

use anyhow::bail;
use fmtstr_ir::Module;
use fmtstr_nvptx::{abi, Llc};
use fmtstr_tools::abi as abi_text;

use crate::nvptx_config::NvptxArgs;
use crate::output::{print, print_json};
use crate::Outcome;

/// Print the PTX parameter plan that llc 22 or 19 (-march=nvptx64) makes for an LLVM IR module
///
/// llc 22's plan by default, llc 19's with --llc 19. The first line of the output (and "llc"
/// in the JSON's "config") names whose plan it is.
///
/// For every function definition, every declaration llc emits and every call site: the
/// .param declarations (<func>_param_<N>, func_retval0; param<N> and retval0 at call sites),
/// the value parts of each parameter, argument and return value with their offsets, every
/// ld.param/st.param as offset, width and vector arity (widths are shown as .bN whatever
/// llc's type letter), the call envelope with its call-sequence number, the .callprototype
/// of indirect calls, the byval decision-table row (K&&B&&G, K&&B&&!G, !K&&B, !B&&D,
/// !B&&!D), and the atom instruction of every atomicrmw and cmpxchg.
///
/// The plan describes the module as llc sees it after `fmtstr lower --pass struct-args`
/// with the same --no-opt-byval setting: byval aggregates read in place from the parameter
/// space, and kernel byval parameters whose address escapes made grid constants.
///
/// Sizes and alignments are those of llc's own nvptx64 DataLayout (i128 aligned to 16,
/// 64-bit pointers), whatever the module's `target datalayout` says: llc replaces it.
///
/// --check compares every declaration, call sequence and atomic exactly; llc may leave out,
/// narrow, or join into vectors the ld.param reads of a function's own parameters (it
/// optimizes them like any load), but never read outside a planned read.
///
/// llc 22 differs from llc 19 in kernel pointer parameters (`.ptr`, a state space and
/// `.align`), in the parts it splits values into (integers of widths PTX lacks, <2 x i8>,
/// vectors of lengths that are not powers of two) and how it moves them (split by the
/// declaration's alignment, consecutive constants merged into wider stores), in loading only
/// the used parts of a call's result, in moving 32 bits of 16- or 8-bit elements as one b32
/// or as a vector, in copying byval arguments in pieces of its own choosing, in calling a
/// function of another type through a .callprototype, in kernels for global constructors,
/// in the older vararg lowering, in OpenCL image parameters, and in atomics (atom.inc and
/// atom.dec, compare-and-swap with its order and scope); where its lowering is not measured
/// (packed fields at odd offsets, 128-bit atomics, byval variadic arguments, <2 x float> on
/// sm_100) the plan for llc 22 is a finding instead (the crate docs of fmtstr_nvptx::abi
/// list every rule). --check reads the PTX of either llc (tabs in declarations, calls on one
/// line or many). When llc ran with -mtriple, pass the same --triple.
///
/// Exit 1 when the planner cannot vouch for something (it says what, with file:line:column)
/// or, with --check, when the PTX differs from the plan. Checked against llc-19 and llc-22 on
/// LLVM 19's own NVPTX tests, and against llc-22 on LLVM 22's: every module agrees or is
/// reported as not vouched for.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr abi k.ll                                  the plan, one block per function
  fmtstr abi k.ll --json | jq '.functions[].params[].declaration'
  fmtstr abi k.ll --function k --function helper   only these functions
  fmtstr abi k.ll --sm 80                          atomics as sm_80 has them
  fmtstr abi k.ll --llc 19                         llc 19's plan (the default is llc 22's)

  Check llc against the plan (the struct-args pass first, with the same setting):
  fmtstr lower --pass struct-args k.ll -o k.sa.ll
  llc-22 -march=nvptx64 -mcpu=sm_90 k.sa.ll -o k.ptx
  fmtstr abi k.ll --check k.ptx                    exit 1 and the differences, if any
  llc-19 -march=nvptx64 -mcpu=sm_90 k.sa.ll -o k19.ptx
  fmtstr abi k.ll --llc 19 --check k19.ptx         the same for llc 19
  llc-22 -mtriple=nvptx64-nvidia-cuda ...          then pass --triple nvptx64-nvidia-cuda

  Reading the plan (the kernel of samples/abi/kinds.ll):
    .param .align 8 .b8 k_param_0[32]
        byval %S, row K&&B&&!G, read in place
        parts  f64@0 i8@8 i32@12 i32@16 i32@20 i32@24
        reads  ld.param.b64 [k_param_0+0]  ld.param.b8 [k_param_0+8]  ld.param.b32 [k_param_0+24]
  says: llc declares the 32-byte struct (DataLayout alloc size) aligned to 8, and loads only
  the three fields the kernel uses, at their offsets, straight from .param (no local copy).

Exit codes:
  0  the plan (and, with --check, the PTX agrees with it)
  1  findings: something the planner cannot vouch for, or --check differences
  2  bad input or usage (file:line:column for IR errors)")]
pub struct Args {
    /// The module: LLVM assembly (.ll); `-` reads stdin.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Print the plan as JSON (schemas/abi.schema.json).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    nvptx: NvptxArgs,
    /// Only this function (by IR name, without @); repeat for more.
    #[arg(long, value_name = "NAME")]
    function: Vec<String>,
    /// Compare the plan with the PTX llc wrote for IN (after the struct-args pass with the
    /// same setting) and report every difference.
    #[arg(long, value_name = "PTX")]
    check: Option<PathBuf>,
    /// Whose llc the plan describes: LLVM 19's or LLVM 22's (they lower some parameters,
    /// return values, atomics and varargs differently; where 22's lowering is not measured
    /// the plan says so in a finding). The output's first line names it.
    #[arg(long, value_name = "MAJOR", default_value = "22", value_parser = ["19", "22"])]
    llc: String,
    /// The -mtriple llc was given, which replaces the module's `target triple` (it decides
    /// the OpenCL spellings and whether llc expands `...`); without it, the module's own.
    /// --check refuses (exit 2) PTX that shows another triple than the plan's.
    #[arg(long, value_name = "TRIPLE")]
    triple: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let (name, text) = read_input(&args.input)?;
    if text.starts_with(b"BC\xC0\xDE") || text.starts_with(b"\xDE\xC0\x17\x0B") {
        bail!("{name} is LLVM bitcode; disassemble it first: llvm-dis-19 {name} -o module.ll");
    }
    let module = Module::parse(&name, text).map_err(|error| anyhow::anyhow!("{error}"))?;
    let mut config = args.nvptx.config();
    config.llc = args
        .llc
        .parse()
        .ok()
        .and_then(Llc::from_major)
        .unwrap_or_default();
    let mut plan = abi::plan_for_triple(&module, &config, args.triple.as_deref());
    if !args.function.is_empty() {
        let missing: Vec<&String> = args
            .function
            .iter()
            .filter(|n| !plan.functions.iter().any(|f| &f.name == *n))
            .collect();
        if !missing.is_empty() {
            bail!(
                "{name} defines or emits no function named {} (names are IR names, without @)",
                missing
                    .iter()
                    .map(|n| format!("@{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        plan.functions.retain(|f| args.function.contains(&f.name));
        plan.findings
            .retain(|f| args.function.contains(&f.function));
    }
    let check = match &args.check {
        Some(path) => {
            let triple = args.triple.clone().or_else(|| module.target_triple());
            let bytes = fmtstr_fs::Input::read(path)?.into_bytes();
            Some(
                abi_text::check(
                    &plan,
                    &path.display().to_string(),
                    bytes,
                    !args.function.is_empty(),
                    triple.as_deref(),
                )
                .map_err(|message| anyhow::anyhow!(message))?,
            )
        }
        None => None,
    };
    let clean = plan.findings.is_empty() && check.as_ref().is_none_or(|c| c.differences.is_empty());
    if args.json {
        print_json(&abi_text::Report { plan: &plan, check })?;
    } else {
        print(abi_text::render(&plan, check.as_ref()))?;
    }
    Ok(if clean {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

fn read_input(path: &Path) -> anyhow::Result<(String, Vec<u8>)> {
    let bytes = fmtstr_fs::Input::read(path)?.into_bytes();
    Ok((fmtstr_fs::input::name_of(path), bytes))
}
