//! The parallel parse of large modules against the sequential one: same text, same answers.
//!
//! Large modules are built from corpus modules (their functions copied under new names until
//! the module passes the parallel threshold), parsed with one thread and with four, and
//! compared through the public API: every function, parameter, block, instruction, operand,
//! type, constant and attachment must read the same, and both must print byte-identically.

mod common;

use std::fmt::Write as _;

use fmtstr_ir::{Constant, Module, Opcode, Operand, Position, TypeId, Value};

const TARGET: usize = 5 << 20;

/// A writer that takes `room` bytes, then fails as a full disk does.
struct FullAfter {
    room: usize,
}

impl std::io::Write for FullAfter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.room == 0 {
            return Err(std::io::ErrorKind::StorageFull.into());
        }
        let n = buf.len().min(self.room);
        self.room -= n;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The corpus module plus renamed copies of its definitions, past `TARGET` bytes.
fn grow(text: &[u8]) -> Vec<u8> {
    let module = Module::parse_with_threads("base.ll", text.to_vec(), 1).unwrap();
    let definitions: Vec<(String, Vec<u8>)> = module
        .functions()
        .filter(|f| !f.is_declaration())
        .map(|f| (f.name_str().into_owned(), f.source_text().to_vec()))
        .collect();
    let mut out = text.to_vec();
    let mut copy = 0;
    while out.len() < TARGET && !definitions.is_empty() {
        copy += 1;
        for (name, definition) in &definitions {
            let from = format!("@{name}(");
            let at = definition
                .windows(from.len())
                .position(|w| w == from.as_bytes())
                .unwrap();
            out.push(b'\n');
            out.extend_from_slice(&definition[..at]);
            out.extend_from_slice(format!("@{name}.copy{copy}(").as_bytes());
            out.extend_from_slice(&definition[at + from.len()..]);
        }
    }
    out
}

fn operand(m: &Module, op: Operand, out: &mut String) {
    write!(out, "{} ", m.types().display(op.ty)).unwrap();
    match op.value {
        Value::Inst(i) => {
            let inst = m.inst(i);
            let name = inst
                .name()
                .map(|n| String::from_utf8_lossy(&n).into_owned());
            write!(out, "inst({:?}@{:?})", name, inst.source_pos()).unwrap();
        }
        Value::Arg(a) => write!(out, "arg{}", m.arg(a).index()).unwrap(),
        Value::Block(b) => {
            let name = m
                .block(b)
                .name()
                .map(|n| String::from_utf8_lossy(&n).into_owned());
            let first = m
                .block(b)
                .instructions()
                .next()
                .and_then(|i| i.source_pos());
            write!(out, "block({name:?}, {first:?})").unwrap();
        }
        Value::Global(g) => write!(out, "@{}", m.global(g).name_str()).unwrap(),
        Value::Const(c) => constant(m, m.constant(c), out),
        Value::Metadata(md) => {
            let node = m.md_node(md);
            write!(out, "md({:?}, {:?})", node.number(), node.kind()).unwrap();
        }
    }
}

fn constant(m: &Module, c: Constant<'_>, out: &mut String) {
    match c {
        Constant::Struct(ops) | Constant::Array(ops) | Constant::Vector(ops) => {
            out.push('[');
            for op in ops {
                operand(m, op, out);
                out.push(',');
            }
            out.push(']');
        }
        Constant::Expr {
            opcode,
            ty,
            operands,
            inbounds,
        } => {
            let ty = ty.map(|t| m.types().display(t).to_string());
            write!(out, "{opcode:?} {ty:?} {inbounds} (").unwrap();
            for op in operands {
                operand(m, op, out);
                out.push(',');
            }
            out.push(')');
        }
        Constant::Splat(op) => operand(m, op, out),
        other => write!(out, "{other:?}").unwrap(),
    }
}

/// Everything the API says about a module, as text with no ids in it.
fn dump(m: &Module) -> String {
    let mut out = String::new();
    // Globals come in order of first mention, which differs (a body mentions a function
    // before its declaration, and the parallel parse reads bodies last): sort by name.
    let mut globals: Vec<_> = m.globals().collect();
    globals.sort_by_key(|g| g.name().to_vec());
    for g in globals {
        write!(
            out,
            "global @{} {:?} ",
            g.name_str(),
            m.types().display(g.value_type()).to_string()
        )
        .unwrap();
        if let Some(init) = g.initializer() {
            operand(m, init, &mut out);
        }
        out.push('\n');
    }
    for f in m.functions() {
        writeln!(
            out,
            "fn @{} {}",
            f.name_str(),
            m.types().display(f.function_type())
        )
        .unwrap();
        for p in f.params() {
            writeln!(out, "  param {} {:?}", m.types().display(p.ty()), p.attrs()).unwrap();
        }
        for b in f.blocks() {
            writeln!(out, "  block {:?}", b.name()).unwrap();
            for i in b.instructions() {
                write!(
                    out,
                    "    {:?} {} {:?} {:?} {:?} {:?} {:?}:",
                    i.opcode(),
                    m.types().display(i.ty()),
                    i.name(),
                    i.alignment(),
                    i.predicate(),
                    i.element_type().map(|t| m.types().display(t).to_string()),
                    i.indices()
                )
                .unwrap();
                for op in i.operands() {
                    out.push(' ');
                    operand(m, op, &mut out);
                }
                if let Some(call) = i.as_call() {
                    write!(out, " call {}", m.types().display(call.function_type())).unwrap();
                    for arg in call.args() {
                        write!(out, " {:?}", arg.attrs).unwrap();
                    }
                }
                for (kind, node) in m.inst_metadata_all(i.id()) {
                    let node = m.md_node(node);
                    write!(
                        out,
                        " !{} {:?} {:?}",
                        String::from_utf8_lossy(kind),
                        node.number(),
                        node.kind()
                    )
                    .unwrap();
                }
                writeln!(out, " {:?}", i.debug_loc()).unwrap();
            }
        }
    }
    out
}

#[test]
fn parallel_parse_equals_sequential_parse() {
    let Some(files) = common::corpus() else {
        return;
    };
    // A mix: debug info with records, named values, optimized code, all three targets.
    let picks = [
        "amdgcn/structs.O2.g.ll",
        "x86_64/varargs.O0.g.ll",
        "nvptx64/control.O3.opt3.ll",
        "x86_64/globals.O0.ll",
    ];
    let mut checked = 0;
    for pick in picks {
        let Some(path) = files.iter().find(|p| common::short(p) == pick) else {
            panic!("{pick} is missing from the corpus");
        };
        let big = grow(&std::fs::read(path).unwrap());
        assert!(big.len() >= TARGET);
        let sequential = Module::parse_with_threads("big.ll", big.clone(), 1).unwrap();
        let parallel = Module::parse_parallel_only("big.ll", big.clone(), 4)
            .unwrap_or_else(|| panic!("{pick}: the parallel parse fell back"));
        assert_eq!(
            parallel.print(),
            big,
            "{pick}: the parallel parse does not print back"
        );
        let (a, b) = (dump(&sequential), dump(&parallel));
        if let Some((x, y)) = a.lines().zip(b.lines()).find(|(x, y)| x != y) {
            panic!("{pick}: the parses differ:\n  sequential: {x}\n  parallel:   {y}");
        }
        assert_eq!(a.len(), b.len(), "{pick}: the parses differ in length");

        // The same edits print the same.
        let mut outputs = Vec::new();
        for mut m in [sequential, parallel] {
            let fs: Vec<_> = m
                .functions()
                .filter(|f| !f.is_declaration())
                .map(|f| f.id())
                .take(50)
                .collect();
            for f in fs {
                let mut b = m.builder(Position::EntryAllocas(f)).unwrap();
                let slot = b.alloca(TypeId::I64, 8, "slot").unwrap();
                drop(b);
                let zero = m.const_int(TypeId::I64, 0);
                m.builder(Position::EntryAllocas(f))
                    .unwrap()
                    .store(zero, slot, 8)
                    .unwrap();
            }
            outputs.push(m.print());
        }
        assert_eq!(outputs[0], outputs[1], "{pick}: edits print differently");

        // A large edited module prints in parts on several threads: they join up to the
        // sequential output, whatever the number of parts, with edits all over the module.
        let mut m = Module::parse_with_threads("big.ll", big.clone(), 1).unwrap();
        let fs: Vec<_> = m
            .functions()
            .filter(|f| !f.is_declaration())
            .map(|f| f.id())
            .collect();
        for (k, f) in fs.into_iter().enumerate() {
            let mut b = m.builder(Position::EntryAllocas(f)).unwrap();
            let slot = b.alloca(TypeId::I64, 8, "slot").unwrap();
            drop(b);
            let zero = m.const_int(TypeId::I64, k as i64);
            m.builder(Position::EntryAllocas(f))
                .unwrap()
                .store(zero, slot, 8)
                .unwrap();
            if k % 7 == 0 {
                let ty = m.function(f).function_type();
                m.declare_function(&format!("new.{k}"), ty).unwrap();
            }
        }
        let one = m.print_with_threads(1);
        assert_ne!(one, big, "{pick}: the edits show");
        for threads in [2, 3, 8] {
            assert!(
                m.print_with_threads(threads) == one,
                "{pick}: printing on {threads} threads differs from printing on one"
            );
        }
        // Writing prints the parts after the first without copying the source they keep.
        let mut written = Vec::new();
        m.write_to(&mut written).unwrap();
        assert!(written == one, "{pick}: writing differs from printing");
        // A write that fails part way (a full disk) ends the writing with its error, whatever
        // the printing threads were doing: nothing waits for a piece that will not be written.
        for limit in [0, 1 << 20, one.len() / 2, one.len() - 1] {
            let mut full = FullAfter { room: limit };
            let error = m.write_to(&mut full).unwrap_err();
            assert_eq!(
                error.kind(),
                std::io::ErrorKind::StorageFull,
                "{pick}: {limit}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, picks.len());
}

#[test]
fn parallel_errors_and_odd_layouts_fall_back_to_the_sequential_parse() {
    let Some(files) = common::corpus() else {
        return;
    };
    let path = files
        .iter()
        .find(|p| common::short(p) == "x86_64/control.O0.ll")
        .unwrap();
    let big = grow(&std::fs::read(path).unwrap());

    // An error deep in some body: the same error, whichever way.
    let text = String::from_utf8(big.clone()).unwrap();
    let at = text.len() * 2 / 3;
    let line = at + text[at..].find("\n  %").unwrap() + 1;
    let mut broken = text.clone();
    broken.insert_str(line + 2, "bogus ");
    let e1 = Module::parse_with_threads("b.ll", broken.clone(), 1).unwrap_err();
    assert!(Module::parse_parallel_only("b.ll", broken.clone().into_bytes(), 4).is_none());
    let e4 = Module::parse_with_threads("b.ll", broken, 4).unwrap_err();
    assert_eq!(e1, e4);

    // A closing brace that is not alone on its line: still parsed, still lossless.
    let odd = text.replacen("\n}\n", "\n  }\n", 3);
    assert!(Module::parse_parallel_only("o.ll", odd.clone().into_bytes(), 4).is_none());
    let m = Module::parse_with_threads("o.ll", odd.clone(), 4).unwrap();
    assert_eq!(m.print(), odd.as_bytes());
}

/// Inserts `%slot = alloca i64` and a store in every function whose body `m` holds.
fn edit_bodies(m: &mut Module) {
    let fs: Vec<_> = m
        .functions()
        .filter(|f| f.blocks().next().is_some())
        .map(|f| f.id())
        .collect();
    for f in fs {
        let mut b = m.builder(Position::EntryAllocas(f)).unwrap();
        let slot = b.alloca(TypeId::I64, 8, "slot").unwrap();
        drop(b);
        let seven = m.const_int(TypeId::I64, 7);
        m.builder(Position::EntryAllocas(f))
            .unwrap()
            .store(seven, slot, 8)
            .unwrap();
    }
}

#[test]
fn shards_print_what_the_whole_module_prints() {
    let Some(files) = common::corpus() else {
        return;
    };
    for pick in ["x86_64/varargs.O0.g.ll", "nvptx64/control.O3.opt3.ll"] {
        let Some(path) = files.iter().find(|p| common::short(p) == pick) else {
            panic!("{pick} is missing from the corpus");
        };
        let big = grow(&std::fs::read(path).unwrap());
        for threads in [2, 3] {
            let mut shards = Module::parse_shards("big.ll", big.clone(), threads).unwrap();
            assert_eq!(shards.len(), threads, "{pick}: not split");
            // Each shard holds only its own bodies, and together they hold them all.
            let bodies: usize = shards
                .iter()
                .map(|s| {
                    s.module
                        .functions()
                        .filter(|f| f.blocks().next().is_some())
                        .count()
                })
                .sum();
            let mut whole = Module::parse_with_threads("big.ll", big.clone(), 1).unwrap();
            let defined = whole.functions().filter(|f| !f.is_declaration()).count();
            assert_eq!(bodies, defined, "{pick}: the shards' bodies");

            let mut untouched = Vec::new();
            Module::write_shards(&shards, &mut untouched).unwrap();
            assert!(
                untouched == big,
                "{pick}: untouched shards do not print back"
            );

            for shard in &mut shards {
                edit_bodies(&mut shard.module);
            }
            edit_bodies(&mut whole);
            let mut printed = Vec::new();
            Module::write_shards(&shards, &mut printed).unwrap();
            let expected = whole.print_with_threads(1);
            assert_ne!(expected, big);
            assert!(
                printed == expected,
                "{pick}: {threads} edited shards print differently from the edited module"
            );
        }
    }
    // Small modules, and modules with blockaddress, come back whole.
    let small = Module::parse_shards("s.ll", "define void @f() {\n  ret void\n}\n", 2).unwrap();
    assert_eq!(small.len(), 1);
}

/// A sparse parse (`parse_shards_where`) keeps what the pass does not ask for as opaque
/// instructions, block by block as the whole parse reads them, numbered labels included, and
/// falls back to the whole parse only where it must.
#[test]
fn a_sparse_parse_keeps_the_other_lines_as_opaque_instructions_in_their_blocks() {
    let text = "declare i32 @printf(ptr, ...)\n\
                @s = constant [3 x i8] c\"%d\\00\"\n\
                define i32 @f(i32 %0, i1 %1) {\n  %3 = add i32 %0, 1\n  br i1 %1, label %4, label %7\n\n\
                4:                                                ; preds = %2\n  %5 = mul i32 %3, 3\n  \
                %6 = call i32 (ptr, ...) @printf(ptr @s, i32 %5)\n  br label %7\n\n\
                7:                                                ; preds = %4, %2\n  \
                %8 = phi i32 [ %3, %2 ], [ %6, %4 ]\n  %9 = sub i32 %8, 2\n  ret i32 %9\n}\n";
    let find = |t: &[u8]| memchr::memmem::find(t, b"printf");
    // Each block's name and instructions (opcode, opaque).
    type Blocks = Vec<(Option<Vec<u8>>, Vec<(Opcode, bool)>)>;
    let blocks = |m: &Module| -> Blocks {
        let f = m.function_by_name("f").unwrap();
        m.function(f)
            .blocks()
            .map(|b| {
                let insts = b
                    .instructions()
                    .map(|i| (i.opcode(), i.is_opaque()))
                    .collect();
                (b.name(), insts)
            })
            .collect()
    };
    let whole = Module::parse("f.ll", text).unwrap();
    let shards = Module::parse_shards_where("f.ll", text, 1, &find).unwrap();
    assert_eq!(shards.len(), 1);
    let sparse = blocks(&shards[0].module);
    let expected = blocks(&whole);
    let opcodes = |b: &Blocks| -> Vec<(Option<Vec<u8>>, Vec<Opcode>)> {
        b.iter()
            .map(|(name, insts)| (name.clone(), insts.iter().map(|i| i.0).collect()))
            .collect()
    };
    assert_eq!(opcodes(&sparse), opcodes(&expected));
    // The call and the phi that uses its result are parsed; the rest is kept, the lines after
    // each label too.
    let opaque: Vec<Vec<bool>> = sparse
        .iter()
        .map(|(_, insts)| insts.iter().map(|i| i.1).collect())
        .collect();
    assert_eq!(
        opaque,
        [
            vec![true, true],
            vec![true, false, true],
            vec![false, true, true]
        ]
    );
    let mut printed = Vec::new();
    Module::write_shards(&shards, &mut printed).unwrap();
    assert_eq!(printed, text.as_bytes());

    // A switch as LLVM prints it is kept whole, unless a line of its cases is to be parsed.
    let switch = |dest: &str| {
        format!(
            "define void @{dest}(i32 %0) {{\n  %2 = call i32 (ptr, ...) @printf(ptr @s)\n  \
             switch i32 %0, label %5 [\n    i32 0, label %3\n    i32 1, label %{dest}\n  ]\n\n\
             3:\n  br label %5\n\n{dest}:\n  br label %5\n\n5:\n  ret void\n}}\n"
        )
    };
    let text = format!(
        "declare i32 @printf(ptr, ...)\n@s = constant [3 x i8] c\"%d\\00\"\n{}{}",
        switch("exit"),
        switch("printf.exit")
    );
    let shards = Module::parse_shards_where("s.ll", text.as_str(), 1, &find).unwrap();
    let m = &shards[0].module;
    let switch_opaque = |name: &str| {
        let f = m.function_by_name(name).unwrap();
        let entry = m.function(f).blocks().next().unwrap();
        let term = entry.terminator().unwrap();
        assert_eq!(term.opcode(), Opcode::Switch);
        term.is_opaque()
    };
    assert!(switch_opaque("exit"));
    assert!(!switch_opaque("printf.exit"));
    let mut printed = Vec::new();
    Module::write_shards(&shards, &mut printed).unwrap();
    assert_eq!(printed, text.as_bytes());
}

/// A filtered parse reads the header of a function only where it parses the body or the
/// filter finds something in the header: the others are kept as text, and print as they were.
/// The headers it reads read as in the whole parse, whatever their shape.
#[test]
fn a_filtered_parse_reads_the_headers_of_the_bodies_it_parses() {
    let text = "declare i32 @printf(ptr, ...)\n\
                @s = constant [3 x i8] c\"%d\\00\"\n\
                ; Function Attrs: nounwind\n\
                define dso_local noundef i32 @prints(i32 noundef %x, ptr byval(i32) align 4 %p) #0 {\n  \
                %1 = call i32 (ptr, ...) @printf(ptr @s, i32 %x)\n  ret i32 %1\n}\n\n\
                define internal fastcc void @quiet(i64 %a) unnamed_addr #0 {\n  ret void\n}\n\n\
                define void @named_printf_but_quiet(i32 %y) {\n  ret void\n}\n\n\
                define i32 @\"quoted name\"(i32 %a,\n    i32 %b) {\n  \
                %1 = call i32 (ptr, ...) @printf(ptr @s, i32 %b)\n  ret i32 %1\n}\n\n\
                define { i32, i32 } @0(i32 %v) {\n  \
                %1 = call i32 (ptr, ...) @printf(ptr @s, i32 %v)\n  ret { i32, i32 } zeroinitializer\n}\n\n\
                define range(i32 0, 10) i32 @numbered_quiet() {\n  ret i32 0\n}\n\n\
                attributes #0 = { nounwind }\n";
    let find = |t: &[u8]| memchr::memmem::find(t, b"printf");
    let whole = Module::parse("h.ll", text).unwrap();
    let shards = Module::parse_shards_where("h.ll", text, 1, &find).unwrap();
    let m = &shards[0].module;
    let header = |m: &Module, name: &str| {
        common::describe_header(m, m.function(m.function_by_name(name).unwrap()))
    };
    // Bodies parsed (a header on two lines and a numbered function among them), and a
    // header the filter finds something in.
    for name in ["prints", "quoted name", "0", "named_printf_but_quiet"] {
        assert_eq!(header(m, name), header(&whole, name), "@{name}");
    }
    let prints = m.function(m.function_by_name("prints").unwrap());
    assert!(
        prints.has_fn_attr("nounwind"),
        "#0 is read for a header read late"
    );
    assert_eq!(prints.param(1).unwrap().byval(), Some(TypeId::I32));
    // Nothing asks for these: their headers stay text, and reading one is the pass's bug.
    for name in ["quiet", "numbered_quiet"] {
        let f = m.function_by_name(name).unwrap();
        assert!(m.function(f).entry().is_none());
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            m.function(f).function_type()
        }));
        assert!(read.is_err(), "@{name}'s header was read");
    }
    let mut printed = Vec::new();
    Module::write_shards(&shards, &mut printed).unwrap();
    assert_eq!(printed, text.as_bytes());
}

/// A filtered parse keeps metadata definitions as text and reads their fields when asked: a
/// printf call's source location reads as in the whole parse (through the nodes its scope
/// names), a reference nothing follows is not checked, and a definition that goes on past
/// its line is parsed whole.
#[test]
fn a_filtered_parse_keeps_metadata_as_text_and_reads_it_when_asked() {
    let module = |extra: &str| {
        format!(
            "declare i32 @printf(ptr, ...)\n\
             @s = constant [3 x i8] c\"%d\\00\"\n\
             define void @f() !dbg !4 {{\n  \
             %1 = call i32 (ptr, ...) @printf(ptr @s, i32 1), !dbg !7\n  ret void\n}}\n\
             !llvm.dbg.cu = !{{!0}}\n\
             !0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: \"c, v1\", emissionKind: FullDebug)\n\
             !1 = !DIFile(filename: \"a.c\", directory: \"/src\")\n\
             !2 = !{{i32 2, !\"Debug Info Version\", i32 3}}\n\
             !4 = distinct !DISubprogram(name: \"f\", scope: !1, file: !1, line: 3, type: !5, unit: !0)\n\
             !5 = !DISubroutineType(types: !6)\n\
             !6 = !{{null}}\n\
             !7 = !DILocation(line: 4, column: 9, scope: !4)\n\
             !8 = !\"a string\"\n\
             {extra}"
        )
    };
    let find = |t: &[u8]| memchr::memmem::find(t, b"printf");
    let filtered = |text: &str| {
        let shards = Module::parse_shards_where("m.ll", text, 1, &find).unwrap();
        let mut printed = Vec::new();
        Module::write_shards(&shards, &mut printed).unwrap();
        assert_eq!(String::from_utf8(printed).unwrap(), text);
        shards.into_iter().next().unwrap().module
    };
    let call_location = |m: &Module| {
        let f = m.function_by_name("f").unwrap();
        let call = m.function(f).instructions().next().unwrap();
        call.debug_loc()
    };

    let text = module("");
    let (whole, kept) = (
        Module::parse("m.ll", text.as_str()).unwrap(),
        filtered(&text),
    );
    let location = call_location(&kept).expect("a location");
    assert_eq!((location.line, location.column), (4, 9));
    assert_eq!(location.file.as_deref(), Some("a.c"));
    assert_eq!(call_location(&whole), Some(location));
    let compile_unit = kept.md_numbered(0).unwrap();
    assert_eq!(compile_unit.field("producer"), Some(&b"\"c, v1\""[..]));
    assert_eq!(compile_unit.field_node("file").unwrap().number(), Some(1));
    assert_eq!(
        kept.md_numbered(8).unwrap().string().as_deref(),
        Some(&b"a string"[..])
    );

    // Removals split the run of definitions the filtered parse keeps as one item, and print
    // as the whole parse's do.
    let removed = |mut m: Module| {
        for number in [2, 8, 3] {
            let node = m.md_numbered(number).map(|n| n.id());
            let result = node.map(|node| m.remove_metadata(node).map_err(|e| e.to_string()));
            assert!(
                number == 3 || matches!(result, Some(Ok(()))),
                "!{number}: {result:?}"
            );
        }
        // Still used by !0's file: refused in both.
        let file = m.md_numbered(1).unwrap().id();
        assert!(m.remove_metadata(file).is_err());
        m.print()
    };
    assert_eq!(removed(kept.clone()), removed(whole.clone()));
    assert!(!String::from_utf8(removed(kept.clone()))
        .unwrap()
        .contains("!8 = "));

    // Not checked: a reference to a node no one defines.
    let text = module("!9 = !DILocation(line: 1, column: 1, scope: !99)\n");
    assert!(Module::parse("m.ll", text.as_str()).is_err());
    filtered(&text);

    // A definition whose first line looks whole: the next line is not a top-level item, so
    // the module is parsed whole, and the node reads as the whole parse reads it.
    let text =
        module("!9 = !DIGlobalVariableExpression(var: !6, expr: !DIExpression()\n, extra: 1)\n");
    let (whole, kept) = (
        Module::parse("m.ll", text.as_str()).unwrap(),
        filtered(&text),
    );
    let fields = |m: &Module| -> Vec<String> {
        m.md_numbered(9)
            .unwrap()
            .operands()
            .map(|op| format!("{op:?}"))
            .collect()
    };
    assert_eq!(fields(&kept), fields(&whole));
    assert_eq!(fields(&kept).len(), 3);
}

/// On two threads, a filtered parse finds the metadata after the last body on the second
/// while the first reads the headers: the module reads as on one thread (and as the whole
/// parse), through a run broken by tuples and one a header named first, and a redefinition
/// in the tail is refused with the same error.
#[test]
fn metadata_found_on_a_second_thread_reads_as_on_one() {
    let mut text = String::from(
        "declare i32 @printf(ptr, ...)\n\
         @s = constant [3 x i8] c\"%d\\00\"\n\
         define void @f() !dbg !0 {\n  \
         %1 = call i32 (ptr, ...) @printf(ptr @s, i32 1), !dbg !1\n  ret void\n}\n\
         !llvm.ident = !{!2}\n\
         !0 = distinct !DISubprogram(name: \"f\", scope: !3, file: !3, line: 3, unit: !4)\n\
         !1 = !DILocation(line: 4, column: 9, scope: !0)\n\
         !2 = !{!\"a compiler\"}\n\
         !3 = !DIFile(filename: \"a.c\", directory: \"/src\")\n\
         !4 = distinct !DICompileUnit(language: DW_LANG_C99, file: !3, emissionKind: FullDebug)\n",
    );
    // Over 4 MiB: a smaller filtered parse runs on one thread.
    for k in 5..110_000 {
        if k % 1000 == 0 {
            writeln!(text, "!{k} = !{{!0, null}}").unwrap();
        } else if k % 777 == 0 {
            writeln!(text, "!{k} = !\"string {k}\"").unwrap();
        } else {
            writeln!(text, "!{k} = !DILocation(line: {k}, column: 2, scope: !0)").unwrap();
        }
    }
    assert!(text.len() > 4 << 20);
    let find = |t: &[u8]| memchr::memmem::find(t, b"printf");
    let read = |text: &str, threads: usize| -> Result<(Vec<u8>, Vec<String>), String> {
        let shards =
            Module::parse_shards_where("m.ll", text, threads, &find).map_err(|e| e.to_string())?;
        let mut printed = Vec::new();
        Module::write_shards(&shards, &mut printed).unwrap();
        let m = &shards[0].module;
        let nodes = (0..110_000)
            .step_by(7)
            .chain([1000, 777, 2331, 109_999])
            .map(|n| common::describe_md(m, m.md_numbered(n).expect("defined")))
            .collect();
        Ok((printed, nodes))
    };
    let (one, two) = (read(&text, 1).unwrap(), read(&text, 2).unwrap());
    assert_eq!(one.0, text.as_bytes());
    assert!(one == two);
    let whole = Module::parse("m.ll", text.as_str()).unwrap();
    assert_eq!(
        common::describe_md(&whole, whole.md_numbered(109_999).unwrap()),
        two.1[two.1.len() - 1]
    );

    // `!20000` defined again at the end of the tail's last run.
    let twice = format!("{text}!20000 = !DILocation(line: 1, column: 1, scope: !0)\n");
    let (one, two) = (read(&twice, 1), read(&twice, 2));
    assert!(
        one.as_ref().is_err_and(|e| e.contains("redefinition")),
        "{one:?}"
    );
    assert_eq!(one.err(), two.err());
}

/// A module with a `blockaddress(` anywhere comes back as one shard (renumbering one shard's
/// function would have to patch another shard's text), also where the two threads that look
/// for it see one half of it each; without one, the same module is split.
#[test]
fn a_blockaddress_anywhere_keeps_the_module_whole() {
    let body = |k: usize| {
        format!("define i32 @f{k}(i32 %x) {{\n  %y = add i32 %x, {k}\n  ret i32 %y\n}}\n\n")
    };
    let mut text = String::new();
    let mut k = 0;
    while text.len() < 5 << 20 {
        text.push_str(&body(k));
        k += 1;
    }
    let plain = Module::parse_shards("plain.ll", text.clone().into_bytes(), 2).unwrap();
    assert_eq!(
        plain.len(),
        2,
        "a large module without blockaddress is split"
    );
    let target = "define ptr @target() {\nentry:\n  br label %bb\n\nbb:\n  ret ptr blockaddress(@target, %bb)\n}\n\n";
    let find = |b: &[u8]| memchr::memmem::find(b, b"add");
    for at in [0, text.len() / 2, text.len()] {
        let at = text[..at].rfind("\ndefine").map_or(0, |n| n + 1);
        let mut with = text.clone();
        with.insert_str(at, target);
        let whole = Module::parse_shards("ba.ll", with.clone().into_bytes(), 2).unwrap();
        assert_eq!(whole.len(), 1, "blockaddress at {at}: split");
        let filtered = Module::parse_shards_where("ba.ll", with.into_bytes(), 2, &find).unwrap();
        assert_eq!(
            filtered.len(),
            1,
            "blockaddress at {at}: a filtered parse split"
        );
    }
    // A comment line whose `blockaddress(` the halves' boundary (half the length, plus one)
    // cuts after its sixth byte.
    let line_start = text[..text.len() / 2 - 200].rfind('\n').unwrap() + 1;
    let cut = (0..2000)
        .map(|pad| {
            let line = format!("; {}blockaddress(\n", "x".repeat(pad));
            let mut cut = text.clone();
            cut.insert_str(line_start, &line);
            (cut, line_start + 2 + pad)
        })
        .find(|(cut, needle)| cut.len() / 2 + 1 == needle + 6)
        .map(|(cut, _)| cut)
        .expect("a padding that puts the boundary inside the word");
    let found = Module::parse_shards("cut.ll", cut.into_bytes(), 2).unwrap();
    assert_eq!(
        found.len(),
        1,
        "blockaddress across the halves' boundary: split"
    );
}
