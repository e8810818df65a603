//! `fmtstr hash`: the 48-bit ID of each format string.

use fmtstr_meta::{escape, FormatId};
use serde::Serialize;

use crate::output::{print, print_json};
use crate::Outcome;

/// Print the 48-bit format-string ID of each STRING.
///
/// The ID is the low 48 bits of XXH3-64 (seed 0) over the string's bytes without a trailing NUL,
/// with 0 mapped to 1. Output: the ID in hex, in decimal, and the string as a C literal.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Format strings, read as C string-literal bodies (`\n`, `\xHH`, ...) unless --raw.
    #[arg(required = true, value_name = "STRING")]
    strings: Vec<String>,
    /// Take each STRING's bytes literally instead of reading C escapes.
    #[arg(long)]
    raw: bool,
    /// Print a JSON array (schemas/hash.schema.json) instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Hashed {
    /// The string as a C literal body.
    string: String,
    id: u64,
    hex: String,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let mut hashed = Vec::with_capacity(args.strings.len());
    for string in &args.strings {
        let bytes = if args.raw {
            string.as_bytes().to_vec()
        } else {
            escape::unescape(string)
                .map_err(|error| anyhow::anyhow!("in STRING {string:?}: {error}"))?
        };
        let id = FormatId::of(&bytes);
        hashed.push(Hashed {
            string: escape::escape(&bytes),
            id: id.get(),
            hex: format!("{id:#}"),
        });
    }
    if args.json {
        print_json(&hashed)?;
    } else {
        let mut text = String::new();
        for entry in &hashed {
            text.push_str(&format!(
                "{}  {:>15}  \"{}\"\n",
                entry.hex, entry.id, entry.string
            ));
        }
        print(text)?;
    }
    Ok(Outcome::Clean)
}
