//! `--only CONDITION`: each call behind a branch on the thread's ids. Judged by llc-19 (nvptx64
//! sm_90, then ptxas: in the PTX every path from a function's entry to a vprintf call passes a
//! predicated branch whose predicate a `setp` computes from %tid/%ctaid; amdgcn gfx1100: the
//! PAL object compiles, and the assembly skips the buffer's atomic add under `s_cbranch_execz`)
//! and llvm-as-19.

mod common;

use common::{assert_llvm_as, assert_ptxas, clang_ir, llc_amdpal, llc_ptx, lower_ok, sample};
use fmtstr_ir::{Module, Opcode};
use fmtstr_lower::{Condition, Options, Prefix, Stage, Target};

fn with_only(target: Target, condition: &str) -> Options {
    let mut options = Options::new(target);
    options.only = Some(Condition::parse(condition).unwrap());
    options
}

/// A PTX basic block of one function (split at labels and after branches).
struct PtxBlock {
    lines: Vec<String>,
    label: Option<String>,
    /// Where flow goes next: labels, or `#next` for the following block.
    successors: Vec<String>,
    /// The predicate register of the `@%p bra` / `@!%p bra` it ends in.
    predicate: Option<String>,
    returns: bool,
}

impl PtxBlock {
    fn new(label: Option<String>) -> PtxBlock {
        PtxBlock {
            lines: Vec::new(),
            label,
            successors: Vec::new(),
            predicate: None,
            returns: false,
        }
    }

    fn calls_vprintf(&self) -> bool {
        self.lines.iter().any(|l| l == "vprintf,")
    }
}

/// The functions of a PTX file with their blocks, in order.
fn ptx_blocks(ptx: &str) -> Vec<(String, Vec<PtxBlock>)> {
    let mut functions = Vec::new();
    let mut lines = ptx.lines();
    while let Some(line) = lines.next() {
        if line.starts_with(".extern") {
            continue; // a declaration (vprintf's)
        }
        let Some(name) = line
            .split_whitespace()
            .skip_while(|w| *w != ".func" && *w != ".entry")
            .nth(1)
        else {
            continue;
        };
        // A .func with a return value is `.func (.param ...) name(`.
        let name = if name.starts_with('(') {
            line.rsplit(") ").next().unwrap_or(name)
        } else {
            name
        };
        let name = name.trim_end_matches('(').to_owned();
        // Up to the body's `{`, then to the `}` that closes it (alone on its line).
        for l in lines.by_ref() {
            if l == "{" {
                break;
            }
        }
        let mut blocks: Vec<PtxBlock> = Vec::new();
        let mut current = PtxBlock::new(None);
        for l in lines.by_ref() {
            if l == "}" {
                break;
            }
            let t = l.trim();
            // `$L__BB0_2:    // %fmtstr.after`
            let label = t
                .split_whitespace()
                .next()
                .and_then(|w| w.strip_suffix(':'))
                .filter(|w| w.starts_with("$L__"));
            if let Some(label) = label {
                let mut done =
                    std::mem::replace(&mut current, PtxBlock::new(Some(label.to_owned())));
                if !done.returns && done.successors.is_empty() {
                    done.successors.push("#next".to_owned());
                }
                blocks.push(done);
                continue;
            }
            current.lines.push(t.to_owned());
            let words: Vec<&str> = t.split_whitespace().collect();
            if words.first() == Some(&"ret;") {
                current.returns = true;
            }
            let Some(at) = words.iter().position(|w| w.starts_with("bra")) else {
                continue;
            };
            let target = words[at + 1].trim_end_matches(';').to_owned();
            let mut done = std::mem::replace(&mut current, PtxBlock::new(None));
            done.successors.push(target);
            if at > 0 && words[0].starts_with('@') {
                done.predicate = Some(
                    words[0]
                        .trim_start_matches("@!")
                        .trim_start_matches('@')
                        .to_owned(),
                );
                done.successors.push("#next".to_owned());
            }
            blocks.push(done);
        }
        blocks.push(current);
        functions.push((name, blocks));
    }
    functions
}

/// Whether the function can return without running `skipped` (every edge taken as possible).
fn returns_without(blocks: &[PtxBlock], skipped: usize) -> bool {
    let mut seen = vec![false; blocks.len()];
    let mut stack = vec![0];
    while let Some(i) = stack.pop() {
        if i >= blocks.len() || i == skipped || std::mem::replace(&mut seen[i], true) {
            continue;
        }
        if blocks[i].returns {
            return true;
        }
        for target in &blocks[i].successors {
            let next = if target == "#next" {
                Some(i + 1)
            } else {
                blocks
                    .iter()
                    .position(|b| b.label.as_deref() == Some(target))
            };
            stack.extend(next);
        }
    }
    false
}

/// The vprintf calls of a function that every run reaches (none can be skipped).
fn unguarded_vprintf(blocks: &[PtxBlock]) -> usize {
    (0..blocks.len())
        .filter(|&b| blocks[b].calls_vprintf() && !returns_without(blocks, b))
        .count()
}

#[test]
fn nvptx_every_vprintf_sits_behind_a_branch_on_tid_and_ctaid() {
    let Some(ir) = clang_ir(&sample("printf.c"), "nvptx64-nvidia-cuda") else {
        return;
    };
    let condition = "thread.x==0 && block==0,0,0";
    let (out, lowered) = lower_ok("printf.c.ll", &ir, with_only(Target::nvptx(), condition));
    assert_eq!(lowered.calls, 9);
    assert_llvm_as("printf.c.ll", &out);
    assert_eq!(out.matches("br i1 %only").count(), 9, "{out}");
    // `int n = printf(...)`: the result used after the branch is a phi, 0 where skipped.
    assert!(
        out.contains(
            "%printf.result = phi i32 [ %vprintf2, %fmtstr.only.2 ], [ 0, %fmtstr.after.1 ]"
        ),
        "{out}"
    );
    let Some(ptx) = llc_ptx("printf.c.ll", &out) else {
        return;
    };
    assert_ptxas("printf.c.ll", &ptx);
    let functions = ptx_blocks(&ptx);
    assert_eq!(functions.len(), 3, "scalars, reuse, pointers");
    for (name, blocks) in &functions {
        let calls: usize = blocks
            .iter()
            .map(|b| b.lines.iter().filter(|l| *l == "vprintf,").count())
            .sum();
        assert!(calls > 0, "@{name} has no vprintf call");
        assert_eq!(
            unguarded_vprintf(blocks),
            0,
            "@{name}: a vprintf call runs on every path:\n{ptx}"
        );
        let guards: Vec<&String> = blocks.iter().filter_map(|b| b.predicate.as_ref()).collect();
        assert!(!guards.is_empty());
        // The predicates come from a setp on what was read from %tid.x and %ctaid.
        let body: Vec<&String> = blocks.iter().flat_map(|b| &b.lines).collect();
        for reg in ["%tid.x", "%ctaid.x", "%ctaid.y", "%ctaid.z"] {
            assert!(
                body.iter().any(|l| l.ends_with(&format!(", {reg};"))),
                "@{name} does not read {reg}"
            );
        }
        for p in guards {
            assert!(
                body.iter().any(|l| {
                    let words: Vec<&str> = l.split_whitespace().collect();
                    words.len() > 1 && words[0].starts_with("setp.") && words[1] == format!("{p},")
                }),
                "@{name}: no setp computes {p}"
            );
        }
    }
    // The check itself: without --only, every call is reached unguarded.
    let (plain, _) = lower_ok("printf.c.ll", &ir, Options::new(Target::nvptx()));
    let ptx = llc_ptx("printf.c.ll", &plain).unwrap();
    for (name, blocks) in &ptx_blocks(&ptx) {
        let calls = blocks.iter().filter(|b| b.calls_vprintf()).count();
        assert_eq!(
            unguarded_vprintf(blocks),
            calls,
            "@{name}: the PTX check finds a skippable call"
        );
    }
}

#[test]
fn nvptx_only_with_prefix_and_the_report() {
    let Some(ir) = clang_ir(&sample("printf.c"), "nvptx64-nvidia-cuda") else {
        return;
    };
    let mut options = with_only(Target::nvptx(), "thread.y<4 && block.z>=1 && thread!=1,2,3");
    options.prefix = Some(Prefix::parse("block,thread").unwrap());
    options.report = true;
    let (out, lowered) = lower_ok("printf.c.ll", &ir, options);
    assert_llvm_as("printf.c.ll", &out);
    // The prefix's reads and the condition's are separate calls; the prefixed vprintf is in
    // the branch.
    assert!(out.contains("icmp ult i32 %thread.y, 4"), "{out}");
    assert!(out.contains("icmp uge i32 %block.z, 1"), "{out}");
    assert!(out.contains("icmp ne i32 %thread.x, 1"), "{out}");
    assert!(out.contains("or i1 %only"), "{out}");
    // The report is unchanged by --only: the bytes one matching thread writes.
    assert_eq!(lowered.report[0].bytes, Some(40));
    let Some(ptx) = llc_ptx("printf.c.ll", &out) else {
        return;
    };
    assert_ptxas("printf.c.ll", &ptx);
    for (name, blocks) in &ptx_blocks(&ptx) {
        assert_eq!(unguarded_vprintf(blocks), 0, "@{name}:\n{ptx}");
    }
}

/// The name of the block each instruction with `opcode` (or a call to `callee`) is in.
fn blocks_of(text: &str, opcode: Opcode, callee: Option<&str>) -> Vec<String> {
    let module = Module::parse("out.ll", text).unwrap();
    let target = callee
        .and_then(|name| module.function_by_name(name))
        .map(|f| module.global(module.function(f).global().id()).operand());
    let mut found = Vec::new();
    for function in module.functions() {
        for block in function.blocks() {
            for inst in block.instructions() {
                let wanted =
                    inst.opcode() == opcode && (target.is_none() || inst.operand(0) == target);
                if wanted {
                    found.push(String::from_utf8(block.name().unwrap_or_default()).unwrap());
                }
            }
        }
    }
    found
}

#[test]
fn amd_buffer_space_is_taken_only_inside_the_branch() {
    let Some(ir) = clang_ir(&sample("printf.c"), "amdgcn-amd-amdpal") else {
        return;
    };
    let (out, lowered) = lower_ok(
        "printf.c.ll",
        &ir,
        with_only(
            Target::amdgpu(Stage::Buffer),
            "local.x==0 && workgroup!=1,0,0",
        ),
    );
    assert_eq!(lowered.calls, 9);
    assert_llvm_as("printf.c.ll", &out);
    assert!(out.contains("call i32 @llvm.amdgcn.workitem.id.x()"));
    assert!(out.contains("call i32 @llvm.amdgcn.workgroup.id.z()"));
    // Every atomic add on bufferOffset and every store of an entry is in a guarded block.
    let atomics = blocks_of(&out, Opcode::AtomicRmw, None);
    assert_eq!(atomics.len(), 9);
    assert!(
        atomics.iter().all(|b| b.starts_with("fmtstr.only")),
        "{atomics:?}"
    );
    let stores = blocks_of(&out, Opcode::Store, None);
    assert!(
        stores.iter().all(|b| b.starts_with("fmtstr.only")),
        "{stores:?}"
    );
    // The buffer itself is fetched once per function, in its entry block, by every thread.
    assert!(blocks_of(&out, Opcode::Call, Some("lgc.load.buffer.desc"))
        .iter()
        .all(String::is_empty));
    // The PAL object compiles; in the assembly every function jumps over its first atomic
    // add where no lane matches (s_cbranch_execz after s_and_saveexec); without --only no
    // branch precedes it.
    if llc_amdpal("printf.c.ll", &out, false).is_none() {
        return;
    }
    let asm = String::from_utf8(llc_amdpal("printf.c.ll", &out, true).unwrap()).unwrap();
    let (plain, _) = lower_ok(
        "printf.c.ll",
        &ir,
        Options::new(Target::amdgpu(Stage::Buffer)),
    );
    let plain_asm = String::from_utf8(llc_amdpal("printf.c.ll", &plain, true).unwrap()).unwrap();
    for (text, guarded) in [(&asm, true), (&plain_asm, false)] {
        let functions: Vec<&str> = text.split("; -- Begin function").skip(1).collect();
        assert_eq!(functions.len(), 3);
        for f in functions {
            let first_atomic = f.find("buffer_atomic_add_u64").expect("an atomic add");
            let before = &f[..first_atomic];
            let skips = before.contains("s_cbranch_execz")
                && before.contains("s_and_saveexec_b32")
                && before.contains("0x3ff");
            assert_eq!(skips, guarded, "{f}");
        }
    }
}

#[test]
fn amd_lgc_forms_are_guarded_and_read_back() {
    let Some(ir) = clang_ir(&sample("printf.c"), "amdgcn-amd-amdpal") else {
        return;
    };
    // Stage lgc: the lgc.debug.printf calls sit in the branch, for LLPC to lower there.
    let (lgc, _) = lower_ok(
        "printf.c.ll",
        &ir,
        with_only(Target::amdgpu(Stage::Lgc), "workgroup.y==2"),
    );
    assert_llvm_as("printf.c.ll", &lgc);
    let calls = blocks_of(&lgc, Opcode::Call, Some("lgc.debug.printf"));
    assert_eq!(calls.len(), 9);
    assert!(
        calls.iter().all(|b| b.starts_with("fmtstr.only")),
        "{calls:?}"
    );
    // Stage buffer reads LLPC's lgc.debug.printf (today's form) and guards it as printf.
    let llpc = common::sample_text("llpc-today.ll");
    let (out, lowered) = lower_ok(
        "llpc-today.ll",
        &llpc,
        with_only(Target::amdgpu(Stage::Buffer), "local.x<=3"),
    );
    assert!(lowered.calls > 0);
    assert_llvm_as("llpc-today.ll", &out);
    let atomics = blocks_of(&out, Opcode::AtomicRmw, None);
    assert_eq!(atomics.len(), lowered.calls);
    assert!(
        atomics.iter().all(|b| b.starts_with("fmtstr.only")),
        "{atomics:?}"
    );
    assert!(out.contains("icmp ule i32 %local.x, 3"), "{out}");
    // Not compiled by llc: llc-19 crashes (SI Fix SGPR copies) on a compute shader that reads
    // an id intrinsic and calls the external descriptor load, with or without --only (see the
    // sample's note); printf.c's functions above are compiled.
}
