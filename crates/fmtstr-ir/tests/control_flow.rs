//! Control-flow edits: splitting blocks, branches, phis and `guard` (an instruction behind a
//! branch). Judged by llvm-as of LLVM 19 and 22 (the verifier: dominance, phi predecessors,
//! numbering) and by the text: every untouched line is kept byte for byte.

mod common;

use fmtstr_ir::{
    EditError, GuardItem, GuardNames, InstId, Module, Opcode, Position, Predicate, TypeId,
};

const NAMES: GuardNames<'static> = GuardNames {
    then: "only",
    tail: "after",
    result: "r",
};

fn assert_llvm_as(text: &str) {
    for llvm_as in fmtstr_oracles::Llvm::ALL
        .into_iter()
        .filter_map(|llvm| fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmAs))
    {
        assert_eq!(common::llvm_as(&llvm_as, text.as_bytes()), None, "{text}");
    }
}

/// The `n`th call to `@name` in the module.
fn call_to(module: &Module, name: &str, n: usize) -> InstId {
    let callee = module.function_by_name(name).expect("callee");
    let callee = module
        .global(module.function(callee).global().id())
        .operand();
    module
        .functions()
        .flat_map(|f| f.instructions().collect::<Vec<_>>())
        .filter(|i| i.opcode() == Opcode::Call && i.operand(0) == Some(callee))
        .nth(n)
        .expect("the call")
        .id()
}

/// Every line of `before` is in `after`, in order, except those listed as rewritten.
fn assert_lines_kept(before: &str, after: &str, rewritten: &[&str]) {
    let mut out = after.lines();
    for line in before.lines() {
        if rewritten.contains(&line) {
            continue;
        }
        assert!(
            out.any(|l| l == line),
            "line {line:?} is not kept in order:\n{after}"
        );
    }
}

/// `%c = icmp eq i32 %x, 0` right before `inst`.
fn is_zero(module: &mut Module, inst: InstId, x: fmtstr_ir::Operand) -> fmtstr_ir::Operand {
    let zero = module.const_int(TypeId::I32, 0);
    let mut b = module.builder(Position::Before(inst)).unwrap();
    b.icmp(Predicate::EQ, x, zero, "c").unwrap()
}

const NAMED: &str = r#"declare void @use(i32)
declare i32 @side(i32)

define void @k(i32 %x) {
entry:
  %a = add i32 %x, 1
  call void @use(i32 %a)
  %b = add i32 %a, 2
  ret void
}
"#;

#[test]
fn guard_puts_a_void_call_behind_a_branch() {
    let mut module = Module::parse("k.ll", NAMED).unwrap();
    let call = call_to(&module, "use", 0);
    let x = module
        .function(module.function_by_name("k").unwrap())
        .param(0)
        .unwrap()
        .operand();
    let c = is_zero(&mut module, call, x);
    let guard = module.guard(call, c, NAMES, None).unwrap();
    assert_eq!(guard.result, None);
    let out = String::from_utf8(module.print()).unwrap();
    let want = r#"declare void @use(i32)
declare i32 @side(i32)

define void @k(i32 %x) {
entry:
  %a = add i32 %x, 1
  %c = icmp eq i32 %x, 0
  br i1 %c, label %only, label %after

only:
  call void @use(i32 %a)
  br label %after

after:
  %b = add i32 %a, 2
  ret void
}
"#;
    assert_eq!(out, want);
    assert_llvm_as(&out);
    // The views see the new blocks, with their instructions.
    let k = module.function(module.function_by_name("k").unwrap());
    let names: Vec<String> = k
        .blocks()
        .map(|b| String::from_utf8(b.name().unwrap()).unwrap())
        .collect();
    assert_eq!(names, ["entry", "only", "after"]);
    let only = k.blocks().nth(1).unwrap();
    assert_eq!(only.instructions().next().unwrap().id(), call);
    assert_eq!(module.inst(call).block(), guard.then);
}

const NUMBERED: &str = r#"declare i32 @side(i32)

define i32 @k(i32 %0, i1 %1) {
  %3 = add i32 %0, 1
  %4 = call i32 @side(i32 %3)
  %5 = mul i32 %4, 3
  br i1 %1, label %6, label %8

6:                                                ; preds = %2
  %7 = add i32 %4, %5
  br label %8

8:                                                ; preds = %6, %2
  %9 = phi i32 [ %7, %6 ], [ %4, %2 ]
  ret i32 %9
}
"#;

#[test]
fn guard_on_numbered_values_with_a_used_result_and_phis_in_successors() {
    let mut module = Module::parse("k.ll", NUMBERED).unwrap();
    let call = call_to(&module, "side", 0);
    let x = module
        .function(module.function_by_name("k").unwrap())
        .param(0)
        .unwrap()
        .operand();
    let c = is_zero(&mut module, call, x);
    let zero = module.const_int(TypeId::I32, 0);
    let guard = module.guard(call, c, NAMES, Some(zero)).unwrap();
    assert!(guard.result.is_some());
    let out = String::from_utf8(module.print()).unwrap();
    assert_llvm_as(&out);
    // The numbers stay (new blocks and values are named); every use of %4 after the branch is
    // the phi; the successors' phis come from the tail now.
    assert!(out.contains("  br i1 %c, label %only, label %after\n\nonly:\n  %4 = call i32 @side(i32 %3)\n  br label %after\n\nafter:\n  %r = phi i32 [ %4, %only ], [ 0, %2 ]\n  %5 = mul i32 %r, 3\n"), "{out}");
    assert!(out.contains("  %7 = add i32 %r, %5\n"), "{out}");
    assert!(
        out.contains("  %9 = phi i32 [ %7, %6 ], [ %r, %after ]\n"),
        "{out}"
    );
    // The comments LLVM writes name the predecessors as they are now.
    let preds = |label: &str, preds: &str| format!("\n{label:<50}; preds = {preds}\n");
    assert!(out.contains(&preds("6:", "%after")), "{out}");
    assert!(out.contains(&preds("8:", "%6, %after")), "{out}");
    assert_lines_kept(
        NUMBERED,
        &out,
        &[
            "  %5 = mul i32 %4, 3",
            "  %7 = add i32 %4, %5",
            "  %9 = phi i32 [ %7, %6 ], [ %4, %2 ]",
            "6:                                                ; preds = %2",
            "8:                                                ; preds = %6, %2",
        ],
    );
}

const LOOP: &str = r#"declare void @use(i32)

define void @k(i32 %n) {
entry:
  br label %loop

loop:                                             ; preds = %loop, %entry
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  call void @use(i32 %i)
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop

exit:                                             ; preds = %loop
  ret void
}
"#;

#[test]
fn a_split_loop_block_takes_its_back_edge_with_it() {
    let mut module = Module::parse("k.ll", LOOP).unwrap();
    let call = call_to(&module, "use", 0);
    let tail = module.split_block_before(call, "body").unwrap();
    let out = String::from_utf8(module.print()).unwrap();
    assert_llvm_as(&out);
    // The back edge now comes from the tail, which holds the terminator.
    assert!(out.contains("  %i = phi i32 [ 0, %entry ], [ %next, %body ]\n  br label %body\n\nbody:\n  call void @use(i32 %i)\n"), "{out}");
    assert_eq!(
        module.inst(call).block(),
        tail,
        "the split instruction is in the tail"
    );
    let preds = |label: &str, preds: &str| format!("\n{label:<50}; preds = {preds}\n");
    assert!(out.contains(&preds("loop:", "%body, %entry")), "{out}");
    assert!(out.contains(&preds("exit:", "%body")), "{out}");
    assert_lines_kept(
        LOOP,
        &out,
        &[
            "loop:                                             ; preds = %loop, %entry",
            "exit:                                             ; preds = %loop",
            "  %i = phi i32 [ 0, %entry ], [ %next, %loop ]",
        ],
    );
    // Guarding inside the loop too: the hints are taken, so fresh names follow.
    let mut module = Module::parse("k.ll", LOOP).unwrap();
    let call = call_to(&module, "use", 0);
    let i = module.inst(call).operand(1).unwrap();
    let c = is_zero(&mut module, call, i);
    let names = GuardNames {
        then: "loop",
        tail: "entry",
        result: "i",
    };
    module.guard(call, c, names, None).unwrap();
    let out = String::from_utf8(module.print()).unwrap();
    assert_llvm_as(&out);
    assert!(out.contains("label %loop1, label %entry1"), "{out}");
}

#[test]
fn an_unlabeled_entry_block_is_split_with_names_only() {
    let text = "declare void @use(i32)\n\ndefine void @k(i32 %0) {\n  %2 = add i32 %0, 1\n  call void @use(i32 %2)\n  %3 = add i32 %2, 1\n  call void @use(i32 %3)\n  ret void\n}\n";
    let mut module = Module::parse("k.ll", text).unwrap();
    // Two guards in one block: the second splits the first's tail.
    for n in 0..2 {
        let call = call_to(&module, "use", n);
        let v = module.inst(call).operand(1).unwrap();
        let c = is_zero(&mut module, call, v);
        module.guard(call, c, NAMES, None).unwrap();
    }
    let out = String::from_utf8(module.print()).unwrap();
    assert_llvm_as(&out);
    assert!(out.contains("label %only1, label %after1"), "{out}");
    assert_lines_kept(text, &out, &[]);
}

#[test]
fn refusals_change_nothing() {
    let mut module = Module::parse("k.ll", NUMBERED).unwrap();
    let call = call_to(&module, "side", 0);
    let x = module
        .function(module.function_by_name("k").unwrap())
        .param(0)
        .unwrap()
        .operand();
    // A used result needs its value on the skipped path, of its type.
    let c = is_zero(&mut module, call, x);
    let err = module.guard(call, c, NAMES, None).unwrap_err();
    assert!(
        matches!(err, EditError::Invalid(ref m) if m.contains("%4 is used")),
        "{err}"
    );
    let wide = module.const_int(TypeId::I64, 0);
    let err = module.guard(call, c, NAMES, Some(wide)).unwrap_err();
    assert!(matches!(err, EditError::TypeMismatch { .. }), "{err}");
    // The condition is an i1.
    let err = module.guard(call, x, NAMES, None).unwrap_err();
    assert!(matches!(err, EditError::TypeMismatch { .. }), "{err}");
    // Not before a phi; not a terminator.
    let k = module.function(module.function_by_name("k").unwrap());
    let phi = k
        .instructions()
        .find(|i| i.opcode() == Opcode::Phi)
        .unwrap()
        .id();
    let ret = k
        .instructions()
        .find(|i| i.opcode() == Opcode::Ret)
        .unwrap()
        .id();
    assert!(module.split_block_before(phi, "x").is_err());
    let t = module.const_int(TypeId::I1, 1);
    assert!(module.guard(ret, t, NAMES, None).is_err());
    // Only the icmp was added.
    let out = String::from_utf8(module.print()).unwrap();
    assert_eq!(out.lines().count(), NUMBERED.lines().count() + 1);
    assert_lines_kept(NUMBERED, &out, &[]);
}

#[test]
fn add_block_and_branches_build_a_diamond() {
    let mut module = Module::parse("k.ll", NAMED).unwrap();
    let call = call_to(&module, "use", 0);
    let x = module
        .function(module.function_by_name("k").unwrap())
        .param(0)
        .unwrap()
        .operand();
    let c = is_zero(&mut module, call, x);
    let join = module.split_block_before(call, "join").unwrap();
    let entry = module
        .function(module.function_by_name("k").unwrap())
        .entry()
        .unwrap()
        .id();
    let left = module.add_block(entry, "left").unwrap();
    let right = module.add_block(left, "right").unwrap();
    // entry: replace its jump to join by a branch on %c.
    let jump = module
        .function(module.function_by_name("k").unwrap())
        .entry()
        .unwrap()
        .terminator()
        .unwrap()
        .id();
    module.remove_inst(jump).unwrap();
    module
        .builder(Position::End(entry))
        .unwrap()
        .cond_br(c, left, right)
        .unwrap();
    let one = module.const_int(TypeId::I32, 1);
    let two = module.const_int(TypeId::I32, 2);
    module
        .builder(Position::End(left))
        .unwrap()
        .br(join)
        .unwrap();
    module
        .builder(Position::End(right))
        .unwrap()
        .br(join)
        .unwrap();
    let phi = module
        .builder(Position::Before(call))
        .unwrap()
        .phi(TypeId::I32, &[(one, left), (two, right)], "v")
        .unwrap();
    let out = String::from_utf8(module.print()).unwrap();
    assert_llvm_as(&out);
    assert!(out.contains("left:\n  br label %join\n\nright:\n  br label %join\n\njoin:\n  %v = phi i32 [ 1, %left ], [ 2, %right ]\n  call void @use(i32 %a)\n"), "{out}");
    assert_eq!(phi.ty, TypeId::I32);
    // A phi's values must have its type.
    let wide = module.const_int(TypeId::I64, 1);
    let err = module
        .builder(Position::Before(call))
        .unwrap()
        .phi(TypeId::I32, &[(wide, left)], "w")
        .unwrap_err();
    assert!(matches!(err, EditError::TypeMismatch { .. }));
}

const TWO_CALLS: &str = r#"declare void @use(i32)

define void @k(i32 %x, i1 %c) {
entry:
  call void @use(i32 1)
  call void @use(i32 2)
  br i1 %c, label %a, label %b

a:                                                ; preds = %entry
  br label %b

b:                                                ; preds = %a, %entry
  %p = phi i32 [ 1, %a ], [ 2, %entry ]
  ret void
}
"#;

#[test]
fn guards_made_last_call_first_keep_successor_phis_and_comments_right() {
    let preds = |label: &str, preds: &str| format!("\n{label:<50}; preds = {preds}\n");
    for order in [[1, 0], [0, 1]] {
        let mut module = Module::parse("k.ll", TWO_CALLS).unwrap();
        let calls = [call_to(&module, "use", 0), call_to(&module, "use", 1)];
        let x = module
            .function(module.function_by_name("k").unwrap())
            .param(0)
            .unwrap()
            .operand();
        for n in order {
            let c = is_zero(&mut module, calls[n], x);
            let (then, tail) = (format!("only.{n}"), format!("after.{n}"));
            let names = GuardNames {
                then: &then,
                tail: &tail,
                result: "r",
            };
            module.guard(calls[n], c, names, None).unwrap();
        }
        let out = String::from_utf8(module.print()).unwrap();
        assert_llvm_as(&out);
        // The source's terminator ends the second call's tail, whichever came first.
        assert!(
            out.contains("  %p = phi i32 [ 1, %a ], [ 2, %after.1 ]\n"),
            "{out}"
        );
        assert!(out.contains(&preds("a:", "%after.1")), "{out}");
        assert!(out.contains(&preds("b:", "%a, %after.1")), "{out}");
        assert!(
            out.contains("label %only.0, label %after.0\n\nonly.0:\n  call void @use(i32 1)\n"),
            "{out}"
        );
    }
}

const CHAIN: &str = r#"declare i32 @side(i32)

define i32 @k(i32 %0) {
  %2 = call i32 @side(i32 %0)
  %3 = call i32 @side(i32 %2)
  %4 = call i32 @side(i32 %3)
  %5 = add i32 %2, %4
  ret i32 %5
}
"#;

#[test]
fn guard_all_equals_guarding_one_by_one_with_results_feeding_each_other() {
    let guarded = |all: bool| -> String {
        let mut module = Module::parse("k.ll", CHAIN).unwrap();
        let calls: Vec<InstId> = (0..3).map(|n| call_to(&module, "side", n)).collect();
        let x = module
            .function(module.function_by_name("k").unwrap())
            .param(0)
            .unwrap()
            .operand();
        let conds: Vec<_> = calls.iter().map(|&c| is_zero(&mut module, c, x)).collect();
        let zero = module.const_int(TypeId::I32, 0);
        let names: Vec<(String, String)> = (0..3)
            .map(|n| (format!("only.{n}"), format!("after.{n}")))
            .collect();
        let items: Vec<GuardItem> = (0..3)
            .map(|n| GuardItem {
                inst: calls[n],
                cond: conds[n],
                names: GuardNames {
                    then: &names[n].0,
                    tail: &names[n].1,
                    result: "r",
                },
                otherwise: Some(zero),
            })
            .collect();
        if all {
            let guards = module.guard_all(&items).unwrap();
            assert_eq!(guards.len(), 3);
            assert!(guards.iter().all(|g| g.result.is_some()));
        } else {
            for item in &items {
                module
                    .guard(item.inst, item.cond, item.names, item.otherwise)
                    .unwrap();
            }
        }
        String::from_utf8(module.print()).unwrap()
    };
    let one_by_one = guarded(false);
    let all = guarded(true);
    assert_llvm_as(&all);
    // guard_all makes the phis last call first: %r is the last call's. Each result reaches
    // its users through its phi: the next call, and the add.
    assert!(all.contains("  %3 = call i32 @side(i32 %r2)\n"), "{all}");
    assert!(all.contains("  %4 = call i32 @side(i32 %r1)\n"), "{all}");
    assert!(all.contains("  %5 = add i32 %r2, %r\n"), "{all}");
    assert!(
        all.contains("  %r2 = phi i32 [ %2, %only.0 ], [ 0, %1 ]\n"),
        "{all}"
    );
    assert_lines_kept(
        CHAIN,
        &all,
        &[
            "  %3 = call i32 @side(i32 %2)",
            "  %4 = call i32 @side(i32 %3)",
            "  %5 = add i32 %2, %4",
        ],
    );
    // Otherwise the same text as guarding one by one (first call first).
    let renamed = |text: &str, names: [&str; 3]| -> String {
        text.replace("%r2", names[2])
            .replace("%r1", names[1])
            .replace("%r", names[0])
    };
    assert_eq!(
        renamed(&all, ["%phi.2", "%phi.1", "%phi.0"]),
        renamed(&one_by_one, ["%phi.0", "%phi.1", "%phi.2"])
    );
}

#[test]
fn a_large_module_prints_the_same_on_one_thread_and_several() {
    // Over 4 MiB, the printer prints edited modules in parallel parts.
    let mut text = String::from("declare void @use(i32)\n");
    let mut n = 0;
    while text.len() < 5 << 20 {
        text.push_str(&format!(
            "\ndefine void @f{n}(i32 %0) {{\n  %2 = add i32 %0, {n}\n  call void @use(i32 %2)\n  call void @use(i32 %0)\n  ret void\n}}\n"
        ));
        n += 1;
    }
    let mut module = Module::parse("big.ll", text.as_str()).unwrap();
    let calls: Vec<InstId> = module.calls_to("use").into_iter().step_by(97).collect();
    let mut items = Vec::new();
    for &call in &calls {
        let v = module.inst(call).operand(1).unwrap();
        items.push((call, is_zero(&mut module, call, v)));
    }
    let items: Vec<GuardItem> = items
        .into_iter()
        .map(|(inst, cond)| GuardItem {
            inst,
            cond,
            names: NAMES,
            otherwise: None,
        })
        .collect();
    module.guard_all(&items).unwrap();
    let one = module.print_with_threads(1);
    assert_eq!(module.print_with_threads(4), one);
    let out = String::from_utf8(one).unwrap();
    assert_eq!(out.matches("\nonly:\n").count(), calls.len());
    assert_lines_kept(&text, &out, &[]);
    assert_llvm_as(&out);
}

#[test]
fn a_numbered_block_is_split_and_its_numbers_stay() {
    // Block %6 holds %7, used by the phi of %8: guard %7 itself (any instruction can be).
    let mut module = Module::parse("k.ll", NUMBERED).unwrap();
    let k = module.function(module.function_by_name("k").unwrap());
    let add = k
        .instructions()
        .filter(|i| i.opcode() == Opcode::Add)
        .nth(1)
        .unwrap()
        .id();
    let x = k.param(0).unwrap().operand();
    let c = is_zero(&mut module, add, x);
    let seven = module.const_int(TypeId::I32, 7);
    let guard = module.guard(add, c, NAMES, Some(seven)).unwrap();
    let out = String::from_utf8(module.print()).unwrap();
    assert_llvm_as(&out);
    let preds = |label: &str, preds: &str| format!("\n{label:<50}; preds = {preds}\n");
    assert!(out.contains(&preds("6:", "%2")), "{out}");
    assert!(out.contains("\n  %c = icmp eq i32 %0, 0\n  br i1 %c, label %only, label %after\n\nonly:\n  %7 = add i32 %4, %5\n  br label %after\n\nafter:\n  %r = phi i32 [ %7, %only ], [ 7, %6 ]\n  br label %8\n"), "{out}");
    assert!(out.contains(&preds("8:", "%after, %2")), "{out}");
    assert!(
        out.contains("  %9 = phi i32 [ %r, %after ], [ %4, %2 ]\n"),
        "{out}"
    );
    assert_eq!(
        module
            .function(module.function_by_name("k").unwrap())
            .blocks()
            .count(),
        3 + 2
    );
    assert_ne!(guard.head, guard.tail);
}

/// A loop whose back-edge value is made after its phi: `set_phi_value` fills it in; it refuses
/// source instructions, other opcodes, missing edges and other types, changing nothing.
#[test]
fn a_loop_phi_gets_its_back_edge_value_afterwards() {
    let mut module = Module::parse("k.ll", NAMED).unwrap();
    let call = call_to(&module, "use", 0);
    let k = module.function_by_name("k").unwrap();
    let entry = module.function(k).entry().unwrap().id();
    let head = module.split_block_before(call, "loop").unwrap();
    let tail = module.split_block_before(call, "done").unwrap();
    let jump = module.block(head).terminator().unwrap().id();
    module.remove_inst(jump).unwrap();
    let zero = module.const_int(TypeId::I32, 0);
    let one = module.const_int(TypeId::I32, 1);
    let ten = module.const_int(TypeId::I32, 10);
    let mut b = module.builder(Position::End(head)).unwrap();
    let i = b
        .phi(TypeId::I32, &[(zero, entry), (zero, head)], "i")
        .unwrap();
    let next = b.binary(Opcode::Add, i, one, "next").unwrap();
    let more = b.icmp(Predicate::ULT, next, ten, "more").unwrap();
    b.cond_br(more, head, tail).unwrap();
    drop(b);
    let fmtstr_ir::Value::Inst(phi) = i.value else {
        panic!("a phi is an instruction")
    };
    let before = String::from_utf8(module.print()).unwrap();
    // Refusals: an edge the phi lacks, a value of another type, a source instruction.
    let wide = module.const_int(TypeId::I64, 1);
    assert!(module.set_phi_value(phi, 2, next).is_err());
    assert!(module.set_phi_value(phi, 1, wide).is_err());
    assert!(module.set_phi_value(call, 0, next).is_err());
    assert_eq!(String::from_utf8(module.print()).unwrap(), before);
    module.set_phi_value(phi, 1, next).unwrap();
    let out = String::from_utf8(module.print()).unwrap();
    assert_llvm_as(&out);
    assert!(
        out.contains(
            "loop:\n  %i = phi i32 [ 0, %entry ], [ %next, %loop ]\n  %next = add i32 %i, 1\n"
        ),
        "{out}"
    );
}
