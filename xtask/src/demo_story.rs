//! The story `cargo xtask demo` tells first: what fmtstr is for, on the bundled samples in
//! `samples/demo`, one line per step.
//!
//! 1. two C files with printf calls (`shader_a.c`, `shader_b.c`, sharing one format string);
//! 2. `fmtstr lower --stage buffer` turns each printf into AMD printf-buffer stores and an
//!    `amdpal.format_strings` table;
//! 3. llc-19 makes two PAL objects;
//! 4. ld.lld-19 links them: one metadata note per object, which `fmtstr audit` calls unfolded;
//! 5. `fmtstr merge --in-place` folds the notes into one (llvm-readobj-19 counts them);
//! 6. `fmtstr audit` is clean;
//! 7. a third object whose table gives one of those IDs another string (as LLPC's
//!    per-build hashes can) is linked in: merge refuses, audit reports the collision;
//! 8. the same C, lowered with `--buffer-addrspace 1` for x86_64, runs on the host and fills a
//!    printf buffer;
//! 9. `fmtstr decode --elf` prints it, byte for byte what C's printf prints for the same calls.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};
use fmtstr_oracles::Tool;
use serde_json::json;

use crate::process;

const STEPS: usize = 9;

fn say(step: usize, text: &str) {
    println!("demo {step}/{STEPS}: {text}");
}

fn tool(tool: Tool) -> anyhow::Result<Command> {
    tool.command()
        .with_context(|| format!("{} is missing: run cargo xtask oracles", tool.file_name()))
}

fn fmtstr_run(fmtstr: &Path, args: &[&std::ffi::OsStr]) -> anyhow::Result<std::process::Output> {
    process::output(Command::new(fmtstr).args(args))
}

/// The metadata notes `llvm-readobj --notes` shows in a file.
fn llvm_note_count(file: &Path) -> anyhow::Result<usize> {
    let output = process::output(tool(Tool::LlvmReadobj)?.arg("--notes").arg(file))?;
    Ok(String::from_utf8_lossy(&output.stdout)
        .matches("NT_AMDGPU_METADATA")
        .count())
}

/// A section as `llvm-readelf -S --wide` lists it.
struct Section {
    name: String,
    nobits: bool,
    offset: usize,
    size: usize,
}

fn llvm_sections(file: &Path) -> anyhow::Result<Vec<Section>> {
    let output = process::output(tool(Tool::LlvmReadelf)?.args(["-S", "--wide"]).arg(file))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut sections = Vec::new();
    for line in text.lines() {
        let Some((number, rest)) = line
            .trim_start()
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
        else {
            continue;
        };
        if number.trim().parse::<usize>().is_err() {
            continue;
        }
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // Section 0 has no name.
        let (name, fields) = match fields.first() {
            Some(&"NULL") => ("", &fields[..]),
            _ => (fields[0], &fields[1..]),
        };
        let hex = |i: usize| {
            fields
                .get(i)
                .and_then(|f| usize::from_str_radix(f, 16).ok())
                .with_context(|| format!("llvm-readelf -S line `{line}`"))
        };
        sections.push(Section {
            name: name.to_owned(),
            nobits: fields[0] == "NOBITS",
            offset: hex(2)?,
            size: hex(3)?,
        });
    }
    Ok(sections)
}

/// Format strings in a file's one table, as `fmtstr dump --json` reads them.
fn string_count(fmtstr: &Path, file: &Path) -> anyhow::Result<Vec<String>> {
    let output = fmtstr_run(fmtstr, &["dump".as_ref(), "--json".as_ref(), file.as_ref()])?;
    let dumped: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    Ok(dumped
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|note| {
            note["format_strings"][".strings"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|entry| entry[".string"].as_str().map(str::to_owned))
        .collect())
}

pub fn run(fmtstr: &Path, scratch: &Path) -> anyhow::Result<()> {
    let samples = process::root().join("samples/demo");
    let at = |name: &str| scratch.join(name);
    let shaders = ["shader_a", "shader_b"];

    say(
        1,
        "samples/demo/shader_a.c and shader_b.c: GPU code that calls printf (one format string \
         is in both)",
    );
    let mut objects: Vec<PathBuf> = Vec::new();
    let mut host_modules: Vec<PathBuf> = Vec::new();
    let mut per_shader = Vec::new();
    for shader in shaders {
        let source = samples.join(format!("{shader}.c"));
        // C -> AMDGPU IR with raw printf calls (clang would lower printf itself otherwise).
        let gpu_ir = at(&format!("{shader}.amdpal.ll"));
        process::output(
            tool(Tool::Clang)?
                .args([
                    "--target=amdgcn-amd-amdpal",
                    "-mcpu=gfx1100",
                    "-x",
                    "c",
                    "-O1",
                ])
                .args(["-fno-builtin-printf", "-S", "-emit-llvm", "-o"])
                .arg(&gpu_ir)
                .arg(&source),
        )?;
        let lowered = at(&format!("{shader}.buffer.ll"));
        fmtstr_run(
            fmtstr,
            &[
                "lower".as_ref(),
                "--target".as_ref(),
                "amdgpu".as_ref(),
                "--stage".as_ref(),
                "buffer".as_ref(),
                gpu_ir.as_ref(),
                "-o".as_ref(),
                lowered.as_ref(),
            ],
        )?;
        let object = at(&format!("{shader}.o"));
        process::output(
            tool(Tool::Llc)?
                .args([
                    "-mtriple=amdgcn--amdpal",
                    "-mcpu=gfx1100",
                    "-filetype=obj",
                    "-o",
                ])
                .arg(&object)
                .arg(&lowered),
        )?;
        per_shader.push(string_count(fmtstr, &object)?.len());
        objects.push(object);

        // The same C for the host (x86_64), lowered to the same protocol in global memory.
        let host_ir = at(&format!("{shader}.x86_64.ll"));
        process::output(
            tool(Tool::Clang)?
                .args([
                    "-x",
                    "c",
                    "-O1",
                    "-fno-builtin-printf",
                    "-S",
                    "-emit-llvm",
                    "-o",
                ])
                .arg(&host_ir)
                .arg(&source),
        )?;
        let host_lowered = at(&format!("{shader}.x86_64.buffer.ll"));
        fmtstr_run(
            fmtstr,
            &[
                "lower".as_ref(),
                "--target".as_ref(),
                "amdgpu".as_ref(),
                "--stage".as_ref(),
                "buffer".as_ref(),
                "--buffer-addrspace".as_ref(),
                "1".as_ref(),
                host_ir.as_ref(),
                "-o".as_ref(),
                host_lowered.as_ref(),
            ],
        )?;
        host_modules.push(host_lowered);
    }
    say(
        2,
        &format!(
            "fmtstr lower --stage buffer: each printf becomes stores into AMD's printf buffer, \
             and each format string an entry of amdpal.format_strings ({} + {})",
            per_shader[0], per_shader[1]
        ),
    );
    say(
        3,
        "llc-19 -mtriple=amdgcn--amdpal: two PAL objects, target/demo/shader_a.o and shader_b.o",
    );

    let pipeline = at("pipeline.o");
    process::output(
        tool(Tool::Lld)?
            .arg("-r")
            .args(&objects)
            .arg("-o")
            .arg(&pipeline),
    )?;
    let notes = llvm_note_count(&pipeline)?;
    let audit = Command::new(fmtstr).arg("audit").arg(&pipeline).output()?;
    if notes != 2 || audit.status.code() != Some(1) {
        bail!("expected 2 metadata notes and an audit finding, got {notes} notes and {audit:?}");
    }
    say(
        4,
        &format!(
            "ld.lld-19 -r shader_a.o shader_b.o -o pipeline.o: {notes} metadata notes, one per \
             object; fmtstr audit calls it \"unfolded\" (PAL reads one note)"
        ),
    );

    let linked = std::fs::read(&pipeline)?;
    let sections_before = llvm_sections(&pipeline)?;
    fmtstr_run(
        fmtstr,
        &["merge".as_ref(), pipeline.as_ref(), "--in-place".as_ref()],
    )?;
    let folded = std::fs::read(&pipeline)?;
    let sections_after = llvm_sections(&pipeline)?;
    for (before, after) in sections_before.iter().zip(&sections_after) {
        let bytes = |file: &[u8], section: &Section| {
            file.get(section.offset..section.offset + section.size)
                .map(<[u8]>::to_vec)
        };
        if before.name != ".note"
            && !before.nobits
            && bytes(&linked, before) != bytes(&folded, after)
        {
            bail!("the fold changed section {} of pipeline.o", before.name);
        }
    }
    let strings = string_count(fmtstr, &pipeline)?;
    let notes = llvm_note_count(&pipeline)?;
    if notes != 1 {
        bail!("llvm-readobj-19 sees {notes} metadata notes after the fold");
    }
    say(
        5,
        &format!(
            "fmtstr merge pipeline.o --in-place: llvm-readobj-19 sees {notes} note with {} \
             format strings (the shared one once); every other section kept its bytes",
            strings.len()
        ),
    );
    fmtstr_run(fmtstr, &["audit".as_ref(), pipeline.as_ref()])?;
    say(6, "fmtstr audit pipeline.o: clean");

    // A third object: shader B's table plus an entry that reuses shader A's first ID.
    let victim = &strings[0];
    let id = fmtstr_meta::FormatId::of(victim.as_bytes());
    let impostor = "depth is %d, not what shader A meant\n";
    let table = at("impostor.json");
    std::fs::write(
        &table,
        serde_json::to_vec_pretty(&json!({
            ".version": 1,
            ".strings": [{
                ".index": id.get(),
                ".string": impostor,
                ".argument_count": 1,
                ".64bit_arguments": [0],
            }],
        }))?,
    )?;
    let third = at("shader_c.o");
    fmtstr_run(
        fmtstr,
        &[
            "embed".as_ref(),
            "--strings".as_ref(),
            table.as_ref(),
            objects[1].as_ref(),
            "-o".as_ref(),
            third.as_ref(),
        ],
    )?;
    let clashing = at("clashing.o");
    process::output(
        tool(Tool::Lld)?
            .arg("-r")
            .arg(&objects[0])
            .arg(&third)
            .arg("-o")
            .arg(&clashing),
    )?;
    let clashing_bytes = std::fs::read(&clashing)?;
    let merge = Command::new(fmtstr)
        .args([
            "merge".as_ref(),
            clashing.as_os_str(),
            "--in-place".as_ref(),
        ])
        .output()?;
    if std::fs::read(&clashing)? != clashing_bytes {
        bail!("merge changed clashing.o although it refused to fold it");
    }
    let audit = Command::new(fmtstr).arg("audit").arg(&clashing).output()?;
    let audit_text = String::from_utf8_lossy(&audit.stdout);
    if merge.status.code() != Some(1) || !audit_text.contains("collision") {
        bail!(
            "the collision was not caught: merge {:?}, audit:\n{audit_text}",
            merge.status
        );
    }
    say(
        7,
        &format!(
            "a third object gives ID {id:#} another string (\"depth is %d, ...\"): merge \
             refuses to fold (exit 1, nothing written) and audit reports the collision"
        ),
    );

    // The host run: the harness provides the buffer and saves it.
    let harness = samples.join("host.c");
    let lowered_binary = at("shaders-lowered");
    process::output(
        tool(Tool::Clang)?
            .args(["-O1", "-w", "-DFMTSTR_BUFFER", "-o"])
            .arg(&lowered_binary)
            .arg(&harness)
            .args(&host_modules),
    )?;
    let buffer = at("printf.bin");
    process::output(Command::new(&lowered_binary).arg(&buffer))?;
    let buffer_len = std::fs::metadata(&buffer)?.len();
    say(
        8,
        &format!(
            "the same C lowered with --buffer-addrspace 1 and run on the host (x86_64): a \
             {buffer_len}-byte printf buffer, target/demo/printf.bin"
        ),
    );

    let printf_binary = at("shaders-printf");
    process::output(
        tool(Tool::Clang)?
            .args(["-O1", "-w", "-o"])
            .arg(&printf_binary)
            .arg(&harness)
            .args(shaders.map(|s| samples.join(format!("{s}.c")))),
    )?;
    let expected = process::output(&mut Command::new(&printf_binary))?.stdout;
    let decoded = fmtstr_run(
        fmtstr,
        &[
            "decode".as_ref(),
            "--strict".as_ref(),
            buffer.as_ref(),
            "--elf".as_ref(),
            pipeline.as_ref(),
        ],
    )?
    .stdout;
    if decoded != expected {
        bail!(
            "fmtstr decode printed\n{}\nbut C's printf printed\n{}",
            String::from_utf8_lossy(&decoded),
            String::from_utf8_lossy(&expected)
        );
    }
    say(
        9,
        &format!(
            "fmtstr decode printf.bin --elf pipeline.o: {} lines, byte for byte what C's printf \
             prints:",
            decoded
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .count()
        ),
    );
    for line in String::from_utf8_lossy(&decoded).lines() {
        println!("    {line}");
    }
    Ok(())
}
