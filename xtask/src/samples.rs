//! `cargo xtask samples`: regenerate the bundled samples from their sources with the real tools.
//!
//! `samples/pal/NAME.pal.json` holds a PAL metadata document in `fmtstr dump --all`'s JSON form.
//! It is encoded as msgpack into the `!amdgpu.pal.metadata.msgpack` line of `NAME.ll` (the line
//! after the `; PAL metadata:` marker), and `llc-19 -mtriple=amdgcn--amdpal -mcpu=gfx1100
//! -filetype=obj` turns `NAME.ll` into `NAME.elf`. `compute-linked.elf` is `compute.elf` linked
//! by `ld.lld-19 -shared`, a file with program headers and sections after its `.note`.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};
use fmtstr_oracles::Tool;

use crate::process;

/// The marker comment before the generated metadata line.
pub const MARKER: &str = "; PAL metadata: generated from";

/// The `.ll` text with its metadata line replaced by `blob`.
pub fn with_blob(ll: &str, blob: &[u8], path: &Path) -> anyhow::Result<String> {
    let mut lines: Vec<String> = ll.lines().map(str::to_owned).collect();
    let Some(marker) = lines.iter().position(|line| line.starts_with(MARKER)) else {
        bail!("{} has no `{MARKER} ...` line", path.display());
    };
    let Some(line) = lines.get_mut(marker + 1) else {
        bail!("{} ends right after its `{MARKER}` line", path.display());
    };
    let Some((name, _)) = line.split_once(" = ") else {
        bail!(
            "{}: the line after the marker is not `!N = !{{!\"...\"}}`",
            path.display()
        );
    };
    *line = format!("{name} = !{{!\"{}\"}}", escape_md(blob));
    let mut text = lines.join("\n");
    text.push('\n');
    Ok(text)
}

/// LLVM's spelling of bytes in a metadata string: printable ASCII except `"` and `\` as they
/// are, everything else as `\XX`.
fn escape_md(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    for &byte in bytes {
        if (0x20..0x7f).contains(&byte) && byte != b'"' && byte != b'\\' {
            text.push(char::from(byte));
        } else {
            text.push_str(&format!("\\{byte:02X}"));
        }
    }
    text
}

pub fn run() -> anyhow::Result<()> {
    let dir = process::root().join("samples/pal");
    let mut sources: Vec<_> = std::fs::read_dir(&dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.to_string_lossy().ends_with(".pal.json"))
        .collect();
    sources.sort();
    if Tool::Llc.command().is_none() {
        bail!("llc-19 is not installed: run `cargo xtask oracles` first");
    }
    for json_path in &sources {
        let file_name = json_path.file_name().unwrap_or_default().to_string_lossy();
        let name = file_name.trim_end_matches(".pal.json").to_owned();
        let text = std::fs::read_to_string(json_path)
            .with_context(|| format!("cannot read {}", json_path.display()))?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not JSON", json_path.display()))?;
        let value = fmtstr_meta::json::from_json(&json)
            .with_context(|| format!("{} is not a PAL document", json_path.display()))?;
        let mut blob = Vec::new();
        fmtstr_meta::msgpack::write_value(&mut blob, &value);

        let ll_path = dir.join(format!("{name}.ll"));
        let ll = std::fs::read_to_string(&ll_path).with_context(|| {
            format!(
                "cannot read {} (each NAME.pal.json needs a NAME.ll)",
                ll_path.display()
            )
        })?;
        let updated = with_blob(&ll, &blob, &ll_path)?;
        if updated != ll {
            std::fs::write(&ll_path, updated)?;
            eprintln!("updated {}", process::relative(&ll_path));
        }
        let elf_path = dir.join(format!("{name}.elf"));
        let mut llc = Tool::Llc.command().context("llc-19 is not installed")?;
        process::run(
            llc.args(["-mtriple=amdgcn--amdpal", "-mcpu=gfx1100", "-filetype=obj"])
                .arg(&ll_path)
                .arg("-o")
                .arg(&elf_path),
        )?;
    }
    let lld = Tool::Lld.path();
    process::run(
        Command::new(&lld)
            .arg("-shared")
            .arg(dir.join("compute.elf"))
            .arg("-o")
            .arg(dir.join("compute-linked.elf")),
    )
    .with_context(|| format!("cannot link with {}", lld.display()))?;
    eprintln!("samples/pal: {} sources regenerated", sources.len());
    Ok(())
}
