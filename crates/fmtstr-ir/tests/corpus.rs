//! The corpus (`cargo xtask corpus`: clang-19 and opt-19 output for nvptx64, amdgcn and
//! x86_64 at -O0/-O2/-O3, with and without -g, and clang++-19 output of C++ with exceptions,
//! templates and debug info) judged three ways:
//!
//! 1. every file prints back byte-identical;
//! 2. after no-op edits that force the edit printer everywhere (every parameter re-typed to
//!    its own type, so every header is printed from its fields; every local value replaced by
//!    itself, so every instruction naming one is printed through the renaming path), the
//!    output is still byte-identical, and `llvm-as-19` accepts it;
//! 3. after real edits in every function (a new named alloca, store and call in the entry
//!    block, a cloned instruction replacing a numbered one, which renumbers the rest of the
//!    function), `llvm-as-19` accepts the output, and fmtstr-ir reads it back.

mod common;

use fmtstr_ir::{
    Attr, EditError, FuncId, InstId, Module, Opcode, Operand, Position, TypeId, Value,
};

fn first_difference(a: &[u8], b: &[u8]) -> String {
    let at = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let line = a[..at].iter().filter(|&&c| c == b'\n').count() + 1;
    let show = |t: &[u8]| {
        let start = t[..at.min(t.len())]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let end = t[start..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(t.len(), |i| start + i);
        String::from_utf8_lossy(&t[start..end]).into_owned()
    };
    format!(
        "line {line}:\n  expected: {}\n  printed:  {}",
        show(a),
        show(b)
    )
}

/// rustc's `--emit=llvm-ir` (its LLVM is newer than 19: `captures(...)`, `samesign`, `trunc
/// nuw`, ...) in `target/corpus-rust`: every module prints back byte-identical, whether or not
/// llvm-as-19 reads it.
#[test]
fn rustc_modules_round_trip_byte_identical() {
    let dir = fmtstr_oracles::workspace_root().join("target/corpus-rust");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "ll"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    if files.is_empty() {
        let message = format!(
            "no rustc modules in {}: run `cargo xtask corpus`",
            dir.display()
        );
        assert!(
            !fmtstr_oracles::in_ci(),
            "{message} (CI=true: must not skip)"
        );
        eprintln!("skipping: {message}");
        return;
    }
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read(path).unwrap();
        match Module::parse(&common::short(path), text.clone()) {
            Ok(module) if module.print() == text => {}
            Ok(module) => failures.push(format!(
                "{}: {}",
                common::short(path),
                first_difference(&text, &module.print())
            )),
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rustc modules fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!("{} rustc modules round-trip", files.len());
}

#[test]
fn every_corpus_file_round_trips_byte_identical() {
    let Some(files) = common::corpus() else {
        return;
    };
    let mut failures = Vec::new();
    let mut bytes = 0;
    for path in &files {
        let text = std::fs::read(path).unwrap();
        bytes += text.len();
        match Module::parse(&common::short(path), text.clone()) {
            Ok(module) => {
                let printed = module.print();
                if printed != text {
                    failures.push(format!(
                        "{}: {}",
                        common::short(path),
                        first_difference(&text, &printed)
                    ));
                }
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    for target in ["nvptx64", "amdgcn", "x86_64", "cpp-x86_64", "cpp-nvptx64"] {
        assert!(
            files.iter().any(|f| common::short(f).starts_with(target)),
            "the corpus has no {target} files"
        );
    }
    eprintln!("{} files, {bytes} bytes round-trip", files.len());
}

/// No-op edits that route every header and every value name through the edit printer.
fn force_reprint(module: &mut Module) {
    let functions: Vec<FuncId> = module.functions().map(|f| f.id()).collect();
    for f in functions {
        let params: Vec<(fmtstr_ir::ArgId, TypeId)> = module
            .function(f)
            .params()
            .map(|p| (p.id(), p.ty()))
            .collect();
        let results: Vec<Operand> = module
            .function(f)
            .instructions()
            .filter_map(|i| i.result())
            .collect();
        for (param, ty) in &params {
            module.set_param_type(*param, *ty).unwrap();
            let op = module.arg(*param).operand();
            if !module.function(f).is_declaration() {
                module.replace_all_uses(op.value, op).unwrap();
            }
        }
        for op in results {
            module.replace_all_uses(op.value, op).unwrap();
        }
    }
}

#[test]
fn forced_reprint_is_identical_and_llvm_as_accepts_it() {
    let Some(files) = common::corpus() else {
        return;
    };
    let Some(llvm_as) = fmtstr_oracles::require(fmtstr_oracles::Tool::LlvmAs) else {
        return;
    };
    let mut failures = Vec::new();
    let mut outputs = Vec::new();
    for path in &files {
        let text = std::fs::read(path).unwrap();
        let mut module = Module::parse(&common::short(path), text.clone()).unwrap();
        force_reprint(&mut module);
        let printed = module.print();
        if printed != text {
            failures.push(format!(
                "{}: {}",
                common::short(path),
                first_difference(&text, &printed)
            ));
        }
        outputs.push((common::short(path), printed));
    }
    assert!(
        failures.is_empty(),
        "forced re-printing changed text:\n{}",
        failures.join("\n")
    );
    let rejected = common::llvm_as_failures(&llvm_as, &outputs);
    assert!(
        rejected.is_empty(),
        "llvm-as rejects:\n{}",
        rejected.join("\n")
    );
}

/// Builds a copy of `inst` right before it, when the builder can: the copy's result is named.
fn clone_before(module: &mut Module, inst: InstId) -> Result<Option<Operand>, EditError> {
    let view = module.inst(inst);
    let opcode = view.opcode();
    let ty = view.ty();
    let ops: Vec<Operand> = view.operands().collect();
    let align = view.alignment().unwrap_or(0);
    let element = view.element_type();
    let predicate = view.predicate();
    let volatile_or_atomic = {
        let text = view.text();
        text.windows(8).any(|w| w == b"volatile") || text.windows(6).any(|w| w == b"atomic")
    };
    let mut b = module.builder(Position::Before(inst))?;
    let copy = match opcode {
        Opcode::Alloca if ops.is_empty() => {
            Some(b.alloca(element.unwrap(), align, "fmtstr.copy")?)
        }
        Opcode::Load if !volatile_or_atomic => Some(b.load(ty, ops[0], align, "fmtstr.copy")?),
        Opcode::GetElementPtr if ty == ops[0].ty => {
            Some(b.gep(element.unwrap(), ops[0], &ops[1..], false, "fmtstr.copy")?)
        }
        _ if opcode.is_binary() => Some(b.binary(opcode, ops[0], ops[1], "fmtstr.copy")?),
        _ if opcode.is_cast() => Some(b.cast(opcode, ops[0], ty, "fmtstr.copy")?),
        Opcode::ICmp if ty == TypeId::I1 => {
            Some(b.icmp(predicate.unwrap(), ops[0], ops[1], "fmtstr.copy")?)
        }
        _ => None,
    };
    Ok(copy)
}

/// Real edits in every defined function; returns how many functions were renumbered.
fn edit(module: &mut Module) -> usize {
    let alloca_space = module.data_layout().alloca_addrspace();
    let slot_ptr = module.types_mut().ptr(alloca_space);
    let probe_ty = module
        .types_mut()
        .function(TypeId::VOID, &[slot_ptr, TypeId::I32], false);
    let probe = module.declare_function("fmtstr.probe", probe_ty).unwrap();
    let functions: Vec<FuncId> = module
        .functions()
        .filter(|f| !f.is_declaration() && f.id() != probe)
        .map(|f| f.id())
        .collect();
    let mut renumbered = 0;
    for f in functions {
        // 1. New named instructions in the entry block, with the location of the first
        //    instruction that has one.
        let located = module
            .function(f)
            .instructions()
            .find(|i| i.metadata("dbg").is_some())
            .map(|i| i.id());
        let seven = module.const_int(TypeId::I32, 7);
        let mut b = module.builder(Position::EntryAllocas(f)).unwrap();
        if let Some(at) = located {
            b.debug_loc_from(at);
        }
        let slot = b.alloca(TypeId::I32, 4, "fmtstr.slot").unwrap();
        b.store(seven, slot, 4).unwrap();
        b.call(probe, &[(slot, &[]), (seven, &[Attr::NoUndef])], "")
            .unwrap();
        drop(b);

        // 2. Replace the first clonable numbered instruction by a named copy: everything
        //    numbered after it shifts down by one.
        let candidates: Vec<InstId> = module
            .function(f)
            .instructions()
            .filter(|i| i.result().is_some() && i.name().is_none() && i.source_pos().is_some())
            .map(|i| i.id())
            .collect();
        for inst in candidates {
            if let Some(copy) = clone_before(module, inst).unwrap() {
                module.replace_inst(inst, copy).unwrap();
                renumbered += 1;
                break;
            }
        }

        // 3. Print the header from its fields.
        if let Some(p) = module.function(f).param(0) {
            let (id, ty) = (p.id(), p.ty());
            module.set_param_type(id, ty).unwrap();
        }
    }
    renumbered
}

#[test]
fn real_edits_renumber_and_llvm_as_accepts_them() {
    let Some(files) = common::corpus() else {
        return;
    };
    let Some(llvm_as) = fmtstr_oracles::require(fmtstr_oracles::Tool::LlvmAs) else {
        return;
    };
    let mut outputs = Vec::new();
    let mut renumbered = 0;
    for path in &files {
        let text = std::fs::read(path).unwrap();
        let mut module = Module::parse(&common::short(path), text).unwrap();
        renumbered += edit(&mut module);
        let printed = module.print();
        let again = Module::parse("edited", printed.clone()).unwrap_or_else(|e| {
            panic!(
                "{}: the edited module does not parse:\n{e}",
                common::short(path)
            )
        });
        assert_eq!(again.print(), printed);
        // The new instructions are there, with fresh names.
        let calls = again.calls_to("fmtstr.probe");
        assert!(!calls.is_empty(), "{}: no probe calls", common::short(path));
        let first = again.inst(calls[0]);
        let slot = first.as_call().unwrap().arg(0).unwrap().operand;
        let Value::Inst(slot) = slot.value else {
            panic!("the slot is not an instruction")
        };
        assert_eq!(
            again.inst(slot).name().as_deref(),
            Some(&b"fmtstr.slot"[..])
        );
        outputs.push((common::short(path), printed));
    }
    assert!(
        renumbered > files.len(),
        "only {renumbered} functions renumbered in {} files",
        files.len()
    );
    let rejected = common::llvm_as_failures(&llvm_as, &outputs);
    assert!(
        rejected.is_empty(),
        "llvm-as rejects {} of {} edited files:\n{}",
        rejected.len(),
        outputs.len(),
        rejected.join("\n")
    );
}

#[test]
fn metadata_removal_on_real_modules_and_llvm_as_accepts_it() {
    let Some(files) = common::corpus() else {
        return;
    };
    let Some(llvm_as) = fmtstr_oracles::require(fmtstr_oracles::Tool::LlvmAs) else {
        return;
    };
    let mut outputs = Vec::new();
    let (mut removed, mut refused) = (0, 0);
    for path in &files {
        let name = common::short(path);
        let text = std::fs::read(path).unwrap();
        let mut module = Module::parse(&name, text).unwrap();
        // A node still named by `!llvm.ident` is refused; once the named metadata goes, its
        // nodes go too.
        let ident: Vec<_> = module.named_metadata("llvm.ident").unwrap_or(&[]).to_vec();
        let numbers: Vec<u32> = ident
            .iter()
            .filter_map(|&n| module.md_node(n).number())
            .collect();
        assert!(!numbers.is_empty(), "{name}: no numbered !llvm.ident node");
        assert!(
            matches!(
                module.remove_metadata(ident[0]),
                Err(EditError::StillUsed { .. })
            ),
            "{name}: a node named by !llvm.ident was removed"
        );
        refused += 1;
        assert!(module.remove_named_metadata("llvm.ident"));
        for &node in &ident {
            module.remove_metadata(node).unwrap();
            removed += 1;
        }
        // A node a debug location refers to stays.
        let located = module
            .functions()
            .flat_map(|f| f.instructions().collect::<Vec<_>>())
            .find_map(|i| i.metadata("dbg").map(|m| m.id()));
        if let Some(node) = located {
            assert!(
                matches!(
                    module.remove_metadata(node),
                    Err(EditError::StillUsed { .. })
                ),
                "{name}: a !dbg location was removed"
            );
            refused += 1;
        }
        let printed = module.print();
        let again = Module::parse("removed", printed.clone()).unwrap();
        for n in numbers {
            assert!(
                again.md_numbered(n).is_none(),
                "{name}: !{n} is still there"
            );
        }
        outputs.push((name, printed));
    }
    assert!(removed >= files.len() && refused > files.len());
    let rejected = common::llvm_as_failures(&llvm_as, &outputs);
    assert!(
        rejected.is_empty(),
        "llvm-as rejects {} of {} files after metadata removal:\n{}",
        rejected.len(),
        outputs.len(),
        rejected.join("\n")
    );
}
