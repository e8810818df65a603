//! `fmtstr check`: clang -Wformat-style findings for a format against IR argument types.

use std::io::Write;

use anyhow::bail;
use fmtstr_format::Dialect;
use fmtstr_tools::check::{self, CheckOptions, CheckStyle};

use crate::output::print;
use crate::{diagnostics, Outcome};

/// Check FORMAT against the argument types of a printf call, as clang's -Wformat does.
///
/// Every finding is reported with its byte offset and a fix: argument count and
/// positions, integer width, class (integer, float, pointer), vector length, flags, precisions
/// and length modifiers that mean nothing with their conversion, invalid conversions, text
/// after an embedded NUL. Exit 1 when there are findings, 2 when the format cannot be parsed
/// at all (gpu dialect).
///
/// Dialects: `gpu` (the default) is clang's -Wformat plus warnings for what GPU printf cannot
/// print (%n, wide characters, positional arguments, %m, the ' flag, C23's %b and %wN, more than
/// 32 arguments for CUDA), with OpenCL vectors read as GPU runtimes print them (%v4f is float4).
/// `c` gives clang 19's verdicts for printf on x86_64 Linux exactly; `opencl` gives clang's
/// verdicts in OpenCL C. `vvl` is the Vulkan validation layers' debug printf: `%v2`..`%v4`
/// vectors, `l` only for 64-bit integers (`%lu %lx %ld`, VVL's `%ul`), every float width with
/// `%f`, only the `0` flag, no `%s`/`%c`, `*`, positions or other lengths (errors: VVL skips
/// such a call).
///
/// FORMAT may instead be a SPIR-V module (a file starting with the SPIR-V magic number, or a
/// name ending in .spv): then every NonSemantic.DebugPrintf call in it (debugPrintfEXT in GLSL,
/// printf in HLSL) is checked against its own argument types, in the `vvl` dialect unless
/// --dialect says otherwise, and each finding names the call's byte offset, source line,
/// function and entry points. Exit 1 when any call has findings; 2 when the module cannot be
/// read.
///
/// --format picks the output: text (clang-style diagnostics on stderr), json (one report on
/// stdout; --json says the same) or sarif (a SARIF 2.1.0 log on stdout, for GitHub code
/// scanning and other CI systems: a rule per finding kind that says what it means and how to
/// fix it, and each finding a result at its call's source line and column and instruction in a
/// SPIR-V module, or at its column in the format). The exit code is the same in every format.
///
/// Types use LLVM IR spellings: iN (i1 to i128), half, float, double, x86_fp80, fp128, ptr,
/// and vectors as vN<type> (v4f32 = <4 x float>, v2i64 = <2 x i64>). f16, f32 and f64 are
/// accepted for half, float and double. Narrow integers and floats are fine where C would
/// promote them. IR erases signedness, C's promotions and pointee types, so what clang sees
/// only in those (%hhd given a short, %s given an int *) is not found.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr check '%d %f\\n' --args i32,double         no findings, exit 0
  fmtstr check '%ld %s\\n' --args i32,ptr           width finding for %ld, exit 1
  fmtstr check '%v4hlf\\n' --args v2f32 --json      vector length finding as JSON
  fmtstr check --format sarif shader.spv > check.sarif   SARIF 2.1.0 for code scanning
  fmtstr check '%n %ls' --args ptr,ptr              GPU warnings: %n, a wide string
  fmtstr check --dialect c '%+p' --args ptr         clang's 'flag '+' results in undefined behavior'
  fmtstr check --dialect vvl '%v4f %lu' --args v4f32,i64   the Vulkan validation layers' grammar
  fmtstr check shader.spv                           every DebugPrintf call of a SPIR-V module (vvl)")]
pub struct Args {
    /// The format, read as a C string-literal body (`\n`, `\xHH`, ...) unless --raw; or a
    /// SPIR-V module whose DebugPrintf calls to check.
    #[arg(value_name = "FORMAT")]
    input: String,
    /// Comma-separated argument types, in call order (leave out for a call with none).
    #[arg(long, value_name = "TYPES", value_delimiter = ',')]
    args: Vec<String>,
    /// Take FORMAT's bytes literally instead of reading C escapes.
    #[arg(long)]
    raw: bool,
    /// How to print findings.
    #[arg(long, value_name = "OUTPUT", value_enum, default_value_t = Style::Text)]
    format: Style,
    /// The same as --format json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// Whose printf to check against: gpu (clang's -Wformat plus what GPU printf cannot print;
    /// the default for a format), c (clang 19's -Wformat for C on x86_64 Linux), opencl (clang
    /// 19's for OpenCL C) or vvl (the Vulkan validation layers; the default for SPIR-V).
    #[arg(long, value_parser = parse_dialect)]
    dialect: Option<Dialect>,
}

/// `--format`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// clang-style diagnostics on stderr.
    Text,
    /// One JSON report on stdout (schemas/check.schema.json; check-spirv.schema.json for a
    /// SPIR-V module).
    Json,
    /// A SARIF 2.1.0 log on stdout, for GitHub code scanning and other CI systems.
    Sarif,
}

fn parse_dialect(name: &str) -> Result<Dialect, String> {
    name.parse()
        .map_err(|error: fmtstr_format::UnknownDialect| error.to_string())
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let format = if args.json { Style::Json } else { args.format };
    let options = CheckOptions {
        args: args.args.clone(),
        dialect: args.dialect.map(|dialect| dialect.name().to_owned()),
        format: match format {
            Style::Text => CheckStyle::Text,
            Style::Json => CheckStyle::Json,
            Style::Sarif => CheckStyle::Sarif,
        },
    };
    let checked = if !args.raw && args.args.is_empty() && crate::spirv::names_module(&args.input) {
        let path = std::path::Path::new(&args.input);
        let bytes = fmtstr_fs::Input::read(path)?.into_bytes();
        check::check_module_bytes(
            &path.display().to_string(),
            &bytes,
            &options,
            fmtstr_tools::VERSION,
        )
    } else {
        let bytes = diagnostics::format_bytes(&args.input, args.raw)?;
        check::check_format_bytes(&bytes, &options, fmtstr_tools::VERSION)
    };
    if !checked.stdout.is_empty() {
        print(&checked.stdout)?;
    }
    let _ = diagnostics::stderr().write_all(checked.stderr.as_bytes());
    match checked.code {
        0 => Ok(Outcome::Clean),
        1 => Ok(Outcome::Findings),
        _ => bail!("{}", checked.error.unwrap_or_default()),
    }
}
