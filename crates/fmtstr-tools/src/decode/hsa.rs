//! `fmtstr decode --elf k.o BUFFER` for HSA code objects (OpenCL, HIP without hostcall): the
//! buffer of LLVM's AMDGPUPrintfRuntimeBinding records, named by the code object's
//! `amdhsa.printf` entries (the layout is described in `fmtstr_decode::hsa`).

use std::io::Write;

use fmtstr_decode::hsa::{self as decode_hsa, HsaFormat, HsaFormats};
use fmtstr_elf::hsa;

use super::{Options, Output, Summary};
use crate::{Error, Source};

/// The `amdhsa.printf` formats of the ELF images, or `None` when none of them has any (then
/// the buffer is a PAL one). Mixing both kinds of code object is refused.
pub fn formats(
    elfs: &[Source<'_>],
    strings: &[Source<'_>],
    options: &Options,
) -> Result<Option<HsaFormats>, Error> {
    let mut found = Vec::new();
    let mut pal = None;
    for path in elfs {
        let bytes = path.read()?;
        let (_, documents) = crate::parse_linked(path, &bytes)?;
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
                        source: format!("{} amdhsa.printf[{index}]", path.name()),
                    },
                )),
                Some(Err(error)) => {
                    return Err(Error::input(format!(
                        "{}: {error}; the entry is not what LLVM's AMDGPUPrintfRuntimeBinding \
                         writes",
                        path.name()
                    )))
                }
                None => {}
            }
        }
        if !found.is_empty() && pal.is_some() {
            return Err(Error::input(format!(
                "{}: the --elf files mix PAL code objects (amdpal.format_strings) and HSA code \
                 objects (amdhsa.printf); their buffers differ, so decode one kind at a time",
                path.name()
            )));
        }
    }
    if found.is_empty() {
        return Ok(None);
    }
    if !strings.is_empty() || options.output != Output::Text {
        return Err(Error::input(
            "--strings, --json and --stats read PAL printf buffers; an HSA buffer (the --elf \
             files have amdhsa.printf) decodes to text only: drop them",
        ));
    }
    Ok(Some(HsaFormats::new(found)))
}

/// Decodes the buffer as an HSA printf buffer and writes the text.
pub fn run(
    buffer: &Source<'_>,
    formats: &HsaFormats,
    out: &mut dyn Write,
    warnings: &mut dyn Write,
) -> Result<Summary, Error> {
    let name = buffer.name();
    for (first, second) in &formats.duplicates {
        writeln!(
            warnings,
            "fmtstr: warning: ID {} is given twice: {} \"{}\" and {} \"{}\"; the first is used",
            first.id,
            first.source,
            fmtstr_meta::escape::escape(&first.format),
            second.source,
            fmtstr_meta::escape::escape(&second.format)
        )
        .map_err(Error::Write)?;
    }
    let bytes = buffer.read()?;
    let decoded = decode_hsa::decode(&bytes, formats)
        .map_err(|error| Error::input(format!("{name}: {error}")))?;
    out.write_all(&decoded.text)
        .and_then(|()| out.flush())
        .map_err(Error::Write)?;
    for problem in &decoded.problems {
        writeln!(warnings, "fmtstr: warning: {name}: {problem}").map_err(Error::Write)?;
    }
    warnings.flush().map_err(Error::Write)?;
    Ok(Summary {
        warnings: (decoded.problems.len() + formats.duplicates.len()) as u64,
    })
}
