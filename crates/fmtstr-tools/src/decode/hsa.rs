//! `fmtstr decode --elf k.o BUFFER` for HSA code objects: the buffer of LLVM's
//! AMDGPUPrintfRuntimeBinding records (OpenCL), named by the code object's numbered
//! `amdhsa.printf` entries (the layout is described in `fmtstr_decode::hsa`), or the buffer of
//! HIP's buffered printf (clang `-mprintf-kind=buffered`), whose records name their format by
//! hash (`fmtstr_decode::hip`).

use std::io::Write;

use fmtstr_decode::hip::{self as decode_hip, HipFormat, HipFormats};
use fmtstr_decode::hsa::{self as decode_hsa, HsaDecoded, HsaFormat, HsaFormats};
use fmtstr_elf::hsa::{self, PrintfTable};

use super::{Options, Output, Summary};
use crate::{Error, Source};

/// The formats of the code objects, by the kind of their printf.
#[derive(Debug)]
pub enum Tables {
    /// Numbered entries (OpenCL).
    Numbered(HsaFormats),
    /// HIP's buffered printf.
    Buffered(HipFormats),
}

/// The `amdhsa.printf` formats of the ELF images, or `None` when none of them has any (then
/// the buffer is a PAL one). Mixing PAL and HSA code objects, or the two kinds of
/// `amdhsa.printf`, is refused.
pub fn formats(
    elfs: &[Source<'_>],
    strings: &[Source<'_>],
    options: &Options,
) -> Result<Option<Tables>, Error> {
    let mut numbered = Vec::new();
    let mut buffered = Vec::new();
    let mut pal = None;
    let mut kinds: [Option<String>; 2] = [None, None];
    let mut printless = None;
    for path in elfs {
        let bytes = path.read()?;
        let (_, documents) = crate::parse_linked(path, &bytes)?;
        for document in &documents {
            if document.format_strings().is_some() {
                pal = Some(path);
            }
            let source = |index: usize| format!("{} amdhsa.printf[{index}]", path.name());
            let table = hsa::printf_table(document);
            if table.is_none() && hsa::is_code_object(document) {
                printless = Some(path);
            }
            match table {
                Some(Ok(PrintfTable::Numbered(entries))) => {
                    kinds[0] = Some(path.name());
                    numbered.extend(entries.into_iter().enumerate().map(|(index, entry)| {
                        HsaFormat {
                            id: entry.id,
                            sizes: entry.sizes,
                            format: entry.format,
                            source: source(index),
                        }
                    }));
                }
                Some(Ok(PrintfTable::Buffered(entries))) => {
                    kinds[1] = Some(path.name());
                    buffered.extend(entries.into_iter().enumerate().map(|(index, entry)| {
                        HipFormat {
                            hash: entry.hash,
                            format: entry.format,
                            source: source(index),
                        }
                    }));
                }
                Some(Err(error)) => {
                    return Err(Error::input(format!(
                        "{}: {error}; the entry is not what LLVM writes (OpenCL's \
                         AMDGPUPrintfRuntimeBinding, or clang -mprintf-kind=buffered for HIP)",
                        path.name()
                    )))
                }
                None => {}
            }
        }
        if (kinds[0].is_some() || kinds[1].is_some()) && pal.is_some() {
            return Err(Error::input(format!(
                "{}: the --elf files mix PAL code objects (amdpal.format_strings) and HSA code \
                 objects (amdhsa.printf); their buffers differ, so decode one kind at a time",
                path.name()
            )));
        }
        if let [Some(first), Some(second)] = &kinds {
            return Err(Error::input(format!(
                "the --elf files mix OpenCL's numbered printf ({first}: `ID:N:SIZES:FORMAT` \
                 entries) and HIP's buffered printf ({second}: `0:0:HASH,FORMAT`); one buffer \
                 is written by one of them, so give the code objects of one kind"
            )));
        }
    }
    if kinds[0].is_none() && kinds[1].is_none() {
        if let (Some(path), None) = (printless, pal) {
            return Err(Error::input(format!(
                "{}: an HSA code object without amdhsa.printf names no printf buffer's records: \
                 HIP's default printf (-mprintf-kind=hostcall) is printed by the runtime as the \
                 kernel runs, and leaves nothing to decode; build with -mprintf-kind=buffered \
                 (or give the code object that has the table)",
                path.name()
            )));
        }
        return Ok(None);
    }
    if !strings.is_empty() || options.output != Output::Text {
        return Err(Error::input(
            "--strings, --json and --stats read PAL printf buffers; an HSA buffer (the --elf \
             files have amdhsa.printf) decodes to text only: drop them",
        ));
    }
    Ok(Some(if kinds[1].is_some() {
        Tables::Buffered(HipFormats::new(buffered))
    } else {
        Tables::Numbered(HsaFormats::new(numbered))
    }))
}

/// Decodes the buffer as the tables' kind of HSA printf buffer and writes the text.
pub fn run(
    buffer: &Source<'_>,
    tables: &Tables,
    out: &mut dyn Write,
    warnings: &mut dyn Write,
) -> Result<Summary, Error> {
    match tables {
        Tables::Numbered(formats) => run_numbered(buffer, formats, out, warnings),
        Tables::Buffered(formats) => run_buffered(buffer, formats, out, warnings),
    }
}

/// A buffer of HIP's buffered printf. A problem that stops the walk (a control dword no record
/// has, a record past `used`, a hash in no table) is an error (exit 2) after the text before it
/// is written; a buffer that holds records of which none was printed is one too.
fn run_buffered(
    buffer: &Source<'_>,
    formats: &HipFormats,
    out: &mut dyn Write,
    warnings: &mut dyn Write,
) -> Result<Summary, Error> {
    let name = buffer.name();
    for (first, second) in &formats.duplicates {
        writeln!(
            warnings,
            "fmtstr: warning: hash {:016x} is given to two formats: {} \"{}\" and {} \"{}\"; the \
             first is used",
            first.hash,
            first.source,
            fmtstr_meta::escape::escape(&first.format),
            second.source,
            fmtstr_meta::escape::escape(&second.format)
        )
        .map_err(Error::Write)?;
    }
    let bytes = buffer.read()?;
    let decoded = decode_hip::decode(&bytes, formats)
        .map_err(|error| Error::input(format!("{name}: {error}")))?;
    let stop = decoded.problems.iter().find(|p| p.stopped).cloned();
    let mut summary = write_decoded(&name, &decoded, stop.as_ref(), out, warnings)?;
    summary.warnings += formats.duplicates.len() as u64;
    let failed = decoded
        .problems
        .iter()
        .filter(|p| !p.stopped && p.offset >= decode_hsa::HEADER_BYTES)
        .count();
    if stop.is_none() && decoded.records > 0 && failed == decoded.records {
        return Err(Error::input(format!(
            "{name}: none of its {} records could be printed (each is marked in the text and \
             warned about above): the formats of the --elf code objects do not fit them",
            decoded.records
        )));
    }
    if let Some(stop) = stop {
        let printed = if decoded.records == 0 {
            "nothing was printed"
        } else {
            "the records before it were printed"
        };
        return Err(Error::input(format!(
            "{name}: {stop} ({printed}; it is a buffer of HIP's buffered printf, read with the \
             amdhsa.printf tables of the --elf code objects)"
        )));
    }
    Ok(summary)
}

/// Writes the text and every problem but `skip` as a warning.
fn write_decoded(
    name: &str,
    decoded: &HsaDecoded,
    skip: Option<&decode_hsa::HsaProblem>,
    out: &mut dyn Write,
    warnings: &mut dyn Write,
) -> Result<Summary, Error> {
    out.write_all(&decoded.text)
        .and_then(|()| out.flush())
        .map_err(Error::Write)?;
    let mut count = 0;
    for problem in &decoded.problems {
        if Some(problem) == skip {
            continue;
        }
        count += 1;
        writeln!(warnings, "fmtstr: warning: {name}: {problem}").map_err(Error::Write)?;
    }
    warnings.flush().map_err(Error::Write)?;
    Ok(Summary { warnings: count })
}

/// A buffer of OpenCL's numbered printf records.
fn run_numbered(
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
