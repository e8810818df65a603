//! `fmtstr check`: clang -Wformat-style findings for a format against IR argument types.

use anyhow::{bail, Context};
use fmtstr_format::{check_format, ArgType, Dialect, ScalarType, Severity};
use serde::Serialize;

use crate::output::print_json;
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

#[derive(Serialize)]
struct Report {
    format: String,
    dialect: &'static str,
    findings: Vec<JsonFinding>,
}

#[derive(Serialize)]
struct JsonFinding {
    kind: &'static str,
    severity: &'static str,
    /// Byte offset in the format of what the finding is about, when it has one.
    offset: Option<usize>,
    /// 0-based index of the argument, when the finding has one.
    argument: Option<usize>,
    message: String,
    fix: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let style = if args.json { Style::Json } else { args.format };
    if !args.raw && args.args.is_empty() && crate::spirv::names_module(&args.input) {
        let dialect = args.dialect.unwrap_or(Dialect::Vvl);
        return crate::spirv::check(std::path::Path::new(&args.input), dialect, style);
    }
    let dialect = args.dialect.unwrap_or(Dialect::Gpu);
    let bytes = diagnostics::format_bytes(&args.input, args.raw)?;
    let types = args
        .args
        .iter()
        .filter(|name| !name.trim().is_empty())
        .enumerate()
        .map(|(index, name)| {
            parse_ir_type(name.trim()).with_context(|| format!("in --args, type {}", index + 1))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let findings = check_format(&bytes, &types, dialect);
    if style == Style::Sarif {
        print_json(&fmtstr_tools::sarif::check_format(
            &bytes,
            &findings,
            env!("FMTSTR_VERSION"),
        ))?;
    } else if style == Style::Json {
        print_json(&Report {
            format: fmtstr_meta::escape::escape(&bytes),
            dialect: dialect.name(),
            findings: findings
                .iter()
                .map(|finding| JsonFinding {
                    kind: finding.kind.name(),
                    severity: match finding.severity {
                        Severity::Warning => "warning",
                        Severity::Error => "error",
                    },
                    offset: finding.offset,
                    argument: finding.arg_index,
                    message: finding.to_string(),
                    fix: finding.fix.clone(),
                })
                .collect(),
        })?;
    } else {
        for finding in &findings {
            diagnostics::print_finding(&bytes, finding);
        }
    }
    if let Some(error) = findings.iter().find(|f| f.severity == Severity::Error) {
        bail!(
            "the format cannot be parsed (byte {}): {}{}",
            error.offset.unwrap_or(0),
            error.message,
            error
                .fix
                .as_deref()
                .map(|fix| format!("; {fix}"))
                .unwrap_or_default()
        );
    }
    Ok(if findings.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

/// An IR type name: iN, half, float, double, ptr (with f16/f32/f64 as synonyms) or vN<type>.
fn parse_ir_type(name: &str) -> anyhow::Result<ArgType> {
    let scalar = |name: &str| -> Option<ScalarType> {
        match name {
            "half" | "f16" => Some(ScalarType::Half),
            "x86_fp80" => Some(ScalarType::X86Fp80),
            "fp128" => Some(ScalarType::Fp128),
            "float" | "f32" => Some(ScalarType::Float),
            "double" | "f64" => Some(ScalarType::Double),
            "ptr" => Some(ScalarType::Ptr),
            _ => {
                let bits: u16 = name.strip_prefix('i')?.parse().ok()?;
                (1..=128).contains(&bits).then_some(ScalarType::Int(bits))
            }
        }
    };
    let parsed = match name.strip_prefix('v') {
        Some(rest) => {
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            let len: Option<u16> = rest[..digits].parse().ok().filter(|len| *len > 0);
            let element = scalar(&rest[digits..]);
            len.zip(element)
                .map(|(len, element)| ArgType::Vector { len, element })
        }
        None => scalar(name).map(ArgType::Scalar),
    };
    match parsed {
        Some(parsed) => Ok(parsed),
        None => bail!(
            "`{name}` is not a type; write iN (i1 to i128), half, float, double, x86_fp80, fp128, \
             ptr, or vN<type> such as v4f32"
        ),
    }
}
