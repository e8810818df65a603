//! `fmtstr check`: clang -Wformat-style findings for a format against IR argument types.

use anyhow::{bail, Context};
use fmtstr_format::{check, ArgType, FindingKind, Format, ScalarType};
use serde::Serialize;

use crate::output::print_json;
use crate::{diagnostics, Outcome};

/// Check FORMAT against the types of the arguments a printf call passes, the way clang's
/// -Wformat does: argument count, integer width, class (integer, float, pointer) and vector
/// length. Exit 1 when there are findings.
///
/// Types use LLVM IR spellings: iN (i1 to i128), half, float, double, ptr, and vectors as
/// vN<type> (v4f32 = <4 x float>, v2i64 = <2 x i64>). f16, f32 and f64 are accepted for
/// half, float and double. Narrow integers and floats are fine where C would promote them.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr check '%d %f\\n' --args i32,double         no findings, exit 0
  fmtstr check '%ld %s\\n' --args i32,ptr           width finding for %ld, exit 1
  fmtstr check '%v4hlf\\n' --args v2f32 --json      vector length finding as JSON")]
pub struct Args {
    /// The format, read as a C string-literal body (`\n`, `\xHH`, ...) unless --raw.
    format: String,
    /// Comma-separated argument types, in call order (leave out for a call with none).
    #[arg(long, value_name = "TYPES", value_delimiter = ',')]
    args: Vec<String>,
    /// Take FORMAT's bytes literally instead of reading C escapes.
    #[arg(long)]
    raw: bool,
    /// Print the findings as JSON (schemas/check.schema.json).
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report {
    format: String,
    findings: Vec<JsonFinding>,
}

#[derive(Serialize)]
struct JsonFinding {
    kind: &'static str,
    /// Byte offset of the conversion in the format, when the finding has one.
    offset: Option<usize>,
    /// 0-based index of the argument, when the finding has one.
    argument: Option<usize>,
    message: String,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let bytes = diagnostics::format_bytes(&args.format, args.raw)?;
    let format = Format::parse(&bytes).map_err(|error| diagnostics::parse_error(&bytes, &error))?;
    let types = args
        .args
        .iter()
        .filter(|name| !name.trim().is_empty())
        .enumerate()
        .map(|(index, name)| {
            parse_ir_type(name.trim()).with_context(|| format!("in --args, type {}", index + 1))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let findings = check(&format, &types);
    if args.json {
        print_json(&Report {
            format: fmtstr_meta::escape::escape(&bytes),
            findings: findings
                .iter()
                .map(|finding| JsonFinding {
                    kind: match finding.kind {
                        FindingKind::TooFewArguments { .. } => "too-few-arguments",
                        FindingKind::TooManyArguments { .. } => "too-many-arguments",
                        FindingKind::Width { .. } => "width",
                        FindingKind::Class { .. } => "class",
                        FindingKind::VectorLength { .. } => "vector-length",
                    },
                    offset: finding.spec_offset,
                    argument: finding.arg_index,
                    message: finding.to_string(),
                })
                .collect(),
        })?;
    } else {
        for finding in &findings {
            diagnostics::print_finding(&bytes, finding);
        }
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
            "`{name}` is not a type; write iN (i1 to i128), half, float, double, ptr, or vN<type> \
             such as v4f32"
        ),
    }
}
