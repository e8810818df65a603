//! `fmtstr decode --elf k.o BUFFER` for HSA code objects (OpenCL, HIP without hostcall): the
//! buffer of LLVM's AMDGPUPrintfRuntimeBinding records, named by the code object's
//! `amdhsa.printf` entries (the layout is described in `fmtstr_decode::hsa`).

use std::io::{self, Write};

use anyhow::{bail, Context};
use fmtstr_decode::hsa::{self as decode_hsa, HsaFormat, HsaFormats};
use fmtstr_elf::hsa;

use super::Args;
use crate::Outcome;

/// The `amdhsa.printf` formats of the --elf files, or `None` when none of them has any (then
/// the buffer is a PAL one). Mixing both kinds of code object is refused.
pub fn formats(args: &Args) -> anyhow::Result<Option<HsaFormats>> {
    let mut found = Vec::new();
    let mut pal = None;
    for path in &args.elf {
        let bytes = crate::elf::read(path)?;
        let (_, documents) = crate::elf::parse_linked(path, &bytes)?;
        for document in &documents {
            if document.format_strings().is_some() {
                pal = Some(path);
            }
            match hsa::printf_entries(document) {
                Some(Ok(entries)) => found.extend(entries.into_iter().enumerate().map(
                    |(index, entry)| HsaFormat {
                        id: entry.id,
                        sizes: entry.sizes,
                        format: entry.format,
                        source: format!("{} amdhsa.printf[{index}]", path.display()),
                    },
                )),
                Some(Err(error)) => bail!(
                    "{}: {error}; the entry is not what LLVM's AMDGPUPrintfRuntimeBinding writes",
                    path.display()
                ),
                None => {}
            }
        }
        if !found.is_empty() && pal.is_some() {
            bail!(
                "{}: the --elf files mix PAL code objects (amdpal.format_strings) and HSA code \
                 objects (amdhsa.printf); their buffers differ, so decode one kind at a time",
                path.display()
            );
        }
    }
    if found.is_empty() {
        return Ok(None);
    }
    if !args.strings.is_empty() || args.json || args.stats {
        bail!(
            "--strings, --json and --stats read PAL printf buffers; an HSA buffer (the --elf \
             files have amdhsa.printf) decodes to text only: drop them"
        );
    }
    Ok(Some(HsaFormats::new(found)))
}

/// Decodes BUFFER as an HSA printf buffer and prints the text.
pub fn run(args: &Args, formats: &HsaFormats) -> anyhow::Result<Outcome> {
    let name = args.buffer.display();
    for (first, second) in &formats.duplicates {
        eprintln!(
            "fmtstr: warning: ID {} is given twice: {} \"{}\" and {} \"{}\"; the first is used",
            first.id,
            first.source,
            fmtstr_meta::escape::escape(&first.format),
            second.source,
            fmtstr_meta::escape::escape(&second.format)
        );
    }
    let bytes = std::fs::read(&args.buffer).with_context(|| format!("cannot read {name}"))?;
    let decoded =
        decode_hsa::decode(&bytes, formats).map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
    let mut out = io::stdout().lock();
    match out.write_all(&decoded.text).and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => return Ok(Outcome::Clean),
        Err(error) => return Err(error).context("cannot write to stdout"),
    }
    for problem in &decoded.problems {
        eprintln!("fmtstr: warning: {name}: {problem}");
    }
    let warnings = decoded.problems.len() + formats.duplicates.len();
    Ok(if args.strict && warnings > 0 {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}
