//! Shared by the integration tests: the corpus `cargo xtask corpus` builds, and `llvm-as`.

#![allow(dead_code)] // each test binary uses a different part

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Every `.ll` file under `target/corpus`. Missing corpus: a failure under `CI=true` (CI runs
/// `cargo xtask corpus` first), a skip elsewhere.
pub fn corpus() -> Option<Vec<PathBuf>> {
    let dir = fmtstr_oracles::workspace_root().join("target/corpus");
    let mut files = Vec::new();
    collect(&dir, &mut files);
    files.sort();
    if files.is_empty() {
        let message = format!(
            "no IR corpus in {}: run `cargo xtask corpus`",
            dir.display()
        );
        if fmtstr_oracles::in_ci() {
            panic!("{message} (CI=true: the corpus tests must not skip)");
        }
        eprintln!("skipping: {message}");
        return None;
    }
    Some(files)
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "ll") {
            files.push(path);
        }
    }
}

/// A short name for messages: `x86_64/control.O2.g.ll`.
pub fn short(path: &Path) -> String {
    let parent = path
        .parent()
        .and_then(Path::file_name)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{parent}/{name}")
}

/// Runs `llvm-as` on each text (in parallel); returns the failures with llvm-as's message.
pub fn llvm_as_failures(tool: &Path, texts: &[(String, Vec<u8>)]) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .max(2);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((name, text)) = texts.get(i) else {
                    break;
                };
                if let Some(error) = llvm_as(tool, text) {
                    failures.lock().unwrap().push(format!("{name}: {error}"));
                }
            });
        }
    });
    failures.into_inner().unwrap()
}

/// `llvm-as` on one text: None when accepted, else its stderr.
pub fn llvm_as(llvm_as: &Path, text: &[u8]) -> Option<String> {
    use std::io::Write;
    let mut child = Command::new(llvm_as)
        .args(["-", "-o", "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start llvm-as");
    let mut stdin = child.stdin.take().expect("stdin");
    let text = text.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&text);
    });
    let output = child.wait_with_output().expect("llvm-as");
    let _ = writer.join();
    if output.status.success() {
        None
    } else {
        Some(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// Whether the parser's byte scanner for metadata definitions and its token parser read
/// `text` the same: the same nodes, ids and operands, or the same error. `Err` holds both
/// readings for a message.
pub fn metadata_readings_agree(name: &str, text: &[u8]) -> Result<(), String> {
    let read = |module: Result<fmtstr_ir::Module, fmtstr_ir::ParseError>| match module {
        Ok(module) => Ok(module.metadata_record()),
        Err(error) => Err(error.to_string()),
    };
    let scanned = read(fmtstr_ir::Module::parse_with_threads(
        name,
        text.to_vec(),
        1,
    ));
    let by_tokens = read(fmtstr_ir::Module::parse_metadata_by_tokens(
        name,
        text.to_vec(),
    ));
    if scanned == by_tokens {
        Ok(())
    } else {
        Err(format!("scanned: {scanned:?}\nby tokens: {by_tokens:?}"))
    }
}

/// Whether a sparse parse of `text` (a pass asking for the lines that name `call`) prints it
/// back byte for byte and reads what it parses as the whole parse `whole` does: each of its
/// instructions has the opcode the whole parse gives the instruction at that position, and a
/// parsed one the same operands (by type and by what they name). `Err` says where not.
/// The numbers of the `!N = ` definitions that start a line.
fn defined_metadata_numbers(text: &[u8]) -> Vec<u32> {
    text.split(|&b| b == b'\n')
        .filter_map(|line| {
            let digits = line.strip_prefix(b"!")?;
            let n = digits.iter().take_while(|b| b.is_ascii_digit()).count();
            if n == 0 || !digits[n..].starts_with(b" = ") {
                return None;
            }
            std::str::from_utf8(&digits[..n]).ok()?.parse().ok()
        })
        .collect()
}

/// A metadata node as both parses can read it: kind, distinct, string, and operands (nodes
/// by number, fields as text).
/// What a function's header says, in terms two parses of one module share: its type, return
/// attributes, calling convention, each parameter (type, attributes, `byval` type, name) and
/// whether it has `nounwind`.
pub fn describe_header(m: &fmtstr_ir::Module, f: fmtstr_ir::Function<'_>) -> String {
    let params: Vec<String> = f
        .params()
        .map(|p| {
            let byval = p.byval().map(|t| m.types().display(t).to_string());
            let attrs = p.attrs().len();
            let ty = m.types().display(p.ty());
            format!("{ty} {attrs} attributes byval {byval:?} {:?}", p.name())
        })
        .collect();
    format!(
        "{} {} {:?} {:?} nounwind {}",
        m.types().display(f.function_type()),
        f.return_attrs().len(),
        f.calling_conv(),
        params,
        f.has_fn_attr("nounwind")
    )
}

pub fn describe_md(m: &fmtstr_ir::Module, node: fmtstr_ir::MdNode<'_>) -> String {
    use fmtstr_ir::MdOperand;
    let operands: Vec<String> = node
        .operands()
        .map(|op| match op {
            MdOperand::Null => "null".to_owned(),
            MdOperand::Node(id) => match m.md_node(id).number() {
                Some(n) => format!("!{n}"),
                None => "inline".to_owned(),
            },
            MdOperand::Value(_) => "value".to_owned(),
            MdOperand::Field(key, value) => format!(
                "{}: {}",
                String::from_utf8_lossy(key),
                String::from_utf8_lossy(value)
            ),
        })
        .collect();
    let kind = match node.kind() {
        fmtstr_ir::MdNodeKind::Specialized(name) => format!("!{}", String::from_utf8_lossy(name)),
        other => format!("{other:?}"),
    };
    format!(
        "{kind} distinct {} string {:?} ({})",
        node.is_distinct(),
        node.string(),
        operands.join(", ")
    )
}

pub fn sparse_reading_agrees(
    name: &str,
    text: &[u8],
    whole: &fmtstr_ir::Module,
) -> Result<(), String> {
    use fmtstr_ir::{Module, Value};
    let find_call = |t: &[u8]| memchr::memmem::find(t, b"call");
    let shards = Module::parse_shards_where(name, text.to_vec(), 1, &find_call)
        .map_err(|e| format!("the sparse parse refused it: {e}"))?;
    let mut printed = Vec::new();
    Module::write_shards(&shards, &mut printed).map_err(|e| e.to_string())?;
    if printed != text {
        return Err("the sparse parse prints differently".into());
    }
    // What an instruction reads as, in terms both parses share: source positions, names, types.
    let describe = |m: &Module, inst: fmtstr_ir::Inst<'_>, operands: bool| -> String {
        let mut out = format!("{:?}", inst.opcode());
        for op in inst.operands().filter(|_| operands) {
            let what = match op.value {
                Value::Inst(i) => format!("{:?}", m.inst(i).source_pos()),
                Value::Arg(a) => format!("arg {}", m.arg(a).index()),
                Value::Global(g) => format!("@{}", m.global(g).name_str()),
                Value::Block(b) => format!("block {:?}", m.block(b).name()),
                // Nested constants' ids differ between parses: the kind is enough.
                Value::Const(c) => {
                    let shown = format!("{:?}", m.constant(c));
                    shown
                        .split(['(', ' ', '{'])
                        .next()
                        .unwrap_or_default()
                        .to_owned()
                }
                Value::Metadata(_) => "metadata".into(),
            };
            out.push_str(&format!(" {} {what}", m.types().display(op.ty)));
        }
        out
    };
    let mut expected = std::collections::BTreeMap::new();
    for f in whole.functions() {
        for inst in f.instructions() {
            expected.insert(
                inst.source_pos(),
                (describe(whole, inst, false), describe(whole, inst, true)),
            );
        }
    }
    // Every numbered metadata node reads the same, kept as text or parsed.
    let skeleton = &shards[0].module;
    for number in defined_metadata_numbers(text) {
        let (Some(want), Some(got)) = (whole.md_numbered(number), skeleton.md_numbered(number))
        else {
            continue;
        };
        let (want, got) = (describe_md(whole, want), describe_md(skeleton, got));
        if got != want {
            return Err(format!("!{number}: read as {got}, not {want}"));
        }
    }
    let debug_locs: std::collections::BTreeMap<_, _> = whole
        .functions()
        .flat_map(|f| f.instructions().collect::<Vec<_>>())
        .map(|inst| (inst.source_pos(), inst.debug_loc()))
        .collect();
    // A parsed body's function reads its header as the whole parse does (the filtered parse
    // keeps the headers of the others as text, unread).
    let headers: std::collections::BTreeMap<Vec<u8>, String> = whole
        .functions()
        .map(|f| (f.name().to_vec(), describe_header(whole, f)))
        .collect();
    for shard in &shards {
        let m = &shard.module;
        for f in m.functions().filter(|f| f.entry().is_some()) {
            let got = describe_header(m, f);
            if headers.get(f.name()) != Some(&got) {
                return Err(format!("@{}: its header reads as {got}", f.name_str()));
            }
        }
    }
    for shard in &shards {
        let m = &shard.module;
        for f in m.functions() {
            for inst in f.instructions() {
                if !inst.is_opaque()
                    && debug_locs.get(&inst.source_pos()) != Some(&inst.debug_loc())
                {
                    return Err(format!(
                        "{:?}: its !dbg location reads as {:?}",
                        inst.source_pos(),
                        inst.debug_loc()
                    ));
                }
                let Some((opcode, parsed)) = expected.get(&inst.source_pos()) else {
                    return Err(format!(
                        "{:?}: no instruction there in the whole parse",
                        inst.source_pos()
                    ));
                };
                let got = describe(m, inst, !inst.is_opaque());
                let want = if inst.is_opaque() { opcode } else { parsed };
                if got != *want {
                    return Err(format!(
                        "{:?}: read as {got}, not {want}",
                        inst.source_pos()
                    ));
                }
            }
        }
    }
    Ok(())
}
