//! `fmtstr printf`: render a format with typed arguments exactly as C's printf would.

use std::ffi::OsString;

use anyhow::{bail, Context};
use fmtstr_format::{check, Arg, ArgSlot, Format};
use fmtstr_meta::escape;

use crate::{diagnostics, Outcome};
use fmtstr_format::typed_args::{self, Declared, TYPE_NAMES};

/// Render FORMAT with ARGs exactly as C's printf would (glibc's output, byte for byte).
///
/// Each ARG is TYPE:VALUE or a bare VALUE. TYPE is one of i8 i16 i32 i64 u8 u16 u32 u64 f32 f64
/// str ptr, or a vector vN<type> (N = 2, 3, 4, 8, 16) whose VALUE lists the components
/// separated by commas. Integers are decimal, 0x hex or 0b binary; floats are decimal, inf, nan,
/// -nan or hex floats (0x1.8p3). Arguments undergo C's default promotions (f32 becomes double).
/// A bare VALUE takes the type its conversion expects; for %c it is a character (`%c A`).
/// A '*' width or precision takes one i32 argument before the value.
///
/// A string (str:VALUE, or a bare VALUE for %s) is read like FORMAT, as a C string-literal body:
/// `str:caf\xe9` passes the byte 0xE9, `str:a\nb` a newline; --raw takes both literally. On
/// Unix an argument that is not UTF-8 is passed as the bytes it is.
///
/// Mismatches between the format and typed arguments are reported on stderr as warnings, like
/// clang's -Wformat; arguments the format cannot consume at all are an error.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  fmtstr printf 'x=%d y=%f\\n' i32:7 f32:1.5           x=7 y=1.500000
  fmtstr printf '[%-6.2e] [%#o] [%+.3d]\\n' 1234.5 8 7 [1.23e+03] [010] [+007]
  fmtstr printf '%.1a|%g|%G\\n' 1.96875 0.0001 1e-5      0x2.0p+0|0.0001|1E-05
  fmtstr printf '%v4hlf\\n' v4f32:1,2,3,4              1.000000,2.000000,3.000000,4.000000
  fmtstr printf '%*d|%-*s|\\n' 5 42 4 ab               '   42|ab  |'
  fmtstr printf '%s|%.3s\\n' 'str:caf\\xe9' 'caf\\xc3\\xa9'  caf<0xE9>|caf (bytes, as C prints them)")]
pub struct Args {
    /// The format, read as a C string-literal body (`\n`, `\t`, `\xHH`, ...) unless --raw.
    format: OsString,
    /// The arguments: TYPE:VALUE or a bare VALUE.
    #[arg(value_name = "ARG", allow_hyphen_values = true)]
    args: Vec<OsString>,
    /// Take FORMAT's and the string arguments' bytes literally instead of reading C escapes.
    #[arg(long)]
    raw: bool,
}

/// An argument's value, once its type is known: strings are bytes, the rest text.
enum Value {
    Bytes(Vec<u8>),
    Text(String),
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let format_text = diagnostics::os_bytes(&args.format, "FORMAT")?;
    let bytes = diagnostics::literal_bytes(format_text, args.raw).map_err(|error| {
        anyhow::anyhow!("in FORMAT: {error} (pass --raw to take the bytes literally)")
    })?;
    let format = Format::parse(&bytes).map_err(|error| diagnostics::parse_error(&bytes, &error))?;
    let specs: Vec<_> = format.specs().collect();
    let slots = format.arguments();

    let mut parsed = Vec::new();
    for (index, argument) in args.args.iter().enumerate() {
        let number = index + 1;
        let text = diagnostics::os_bytes(argument, &format!("argument {number}"))?;
        // How the argument is named in errors: its number and its text as typed (as a C
        // literal when it is not UTF-8).
        let shown = match std::str::from_utf8(text) {
            Ok(text) => text.to_owned(),
            Err(_) => escape::escape(text),
        };
        let named = || format!("argument {number} (`{shown}`)");
        let (declared, value) = typed_args::split(text);
        let slot = slots.get(index);
        let expected = slot.map(|slot| match *slot {
            ArgSlot::Star { .. } => (Declared::STAR, false),
            ArgSlot::Value { spec } => {
                let spec = specs[spec];
                (
                    Declared::expected_by(spec),
                    spec.class() == fmtstr_format::ArgClass::Char,
                )
            }
        });
        let (declared, bare_char) = match (declared, expected) {
            (Some(declared), _) => (declared, false),
            (None, Some((expected, is_char))) => (expected, is_char),
            (None, None) => bail!(
                "{} has no conversion to consume it and no TYPE: prefix; \
                 the format takes {} argument(s)",
                named(),
                slots.len()
            ),
        };
        let value = if declared.is_string() {
            Value::Bytes(
                diagnostics::literal_bytes(value, args.raw).map_err(|error| {
                    anyhow::anyhow!(
                        "in the value of {}: {error} (pass --raw to take the bytes literally)",
                        named()
                    )
                })?,
            )
        } else {
            match std::str::from_utf8(value) {
                Ok(value) => Value::Text(value.to_owned()),
                Err(_) => bail!(
                    "{} is not UTF-8 text; only a str value may hold other bytes (write \
                     them as \\xHH escapes, e.g. str:caf\\xe9)",
                    named()
                ),
            }
        };
        parsed.push((named(), declared, bare_char, value));
    }

    let mut values = Vec::new();
    let mut types = Vec::new();
    for (named, declared, bare_char, value) in &parsed {
        match value {
            Value::Bytes(bytes) => values.push(Arg::Str(bytes)),
            Value::Text(text) => typed_args::push_values(*declared, text, *bare_char, &mut values)
                .with_context(|| format!("in {named}; types are {TYPE_NAMES}"))?,
        }
        types.push(declared.arg_type());
    }

    for finding in check(&format, &types) {
        diagnostics::print_finding(&bytes, &finding);
    }
    let mut rendered = Vec::new();
    format
        .render(&values, &mut rendered)
        .map_err(|error| anyhow::anyhow!("cannot render FORMAT: {error}"))?;
    crate::output::print(rendered)?;
    Ok(Outcome::Clean)
}
