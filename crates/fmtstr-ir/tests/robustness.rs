//! Robustness: hostile input gives an error (or a successful parse), never a panic or a hang.
//!
//! The property test mutates corpus files at the token level (delete, duplicate, swap,
//! truncate) and the byte level (insert, replace); every result must either parse, and then
//! print back byte-identically, or fail with a well-formed `file:line:column` error. The other
//! tests cover what random mutation rarely finds: absurd nesting, huge numbers, and the error
//! format itself.

mod common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use fmtstr_ir::Module;
use proptest::prelude::*;

fn corpus_texts() -> &'static [Vec<u8>] {
    static TEXTS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let files = common::corpus().unwrap_or_default();
        // Every third file keeps each case quick while covering all targets and levels.
        files
            .iter()
            .step_by(3)
            .map(|p| std::fs::read(p).unwrap())
            .collect()
    })
}

/// Token spans: runs of name characters, quoted strings, or single punctuation bytes.
fn tokens(text: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if b == b'"' {
            i += 1;
            while i < text.len() && text[i] != b'"' {
                i += 1;
            }
            i = (i + 1).min(text.len());
        } else if b.is_ascii_alphanumeric() || b"%@!#$._-".contains(&b) {
            i += 1;
            while i < text.len() && (text[i].is_ascii_alphanumeric() || b"._-$".contains(&text[i]))
            {
                i += 1;
            }
        } else {
            i += 1;
        }
        spans.push((start, i));
    }
    spans
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Truncate(usize),
    InsertByte(usize, u8),
    ReplaceByte(usize, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => any::<usize>().prop_map(Mutation::Delete),
        2 => any::<usize>().prop_map(Mutation::Duplicate),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::InsertByte(a, b)),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::ReplaceByte(a, b)),
    ]
}

fn apply(text: &[u8], mutation: &Mutation) -> Vec<u8> {
    let spans = tokens(text);
    if spans.is_empty() {
        return text.to_vec();
    }
    let pick = |i: usize| spans[i % spans.len()];
    let mut out = Vec::with_capacity(text.len() + 16);
    match *mutation {
        Mutation::Delete(i) => {
            let (s, e) = pick(i);
            out.extend_from_slice(&text[..s]);
            out.extend_from_slice(&text[e..]);
        }
        Mutation::Duplicate(i) => {
            let (s, e) = pick(i);
            out.extend_from_slice(&text[..e]);
            out.push(b' ');
            out.extend_from_slice(&text[s..]);
        }
        Mutation::Swap(a, b) => {
            let (mut x, mut y) = (pick(a), pick(b));
            if x.0 > y.0 {
                std::mem::swap(&mut x, &mut y);
            }
            if x.1 > y.0 {
                return text.to_vec();
            }
            out.extend_from_slice(&text[..x.0]);
            out.extend_from_slice(&text[y.0..y.1]);
            out.extend_from_slice(&text[x.1..y.0]);
            out.extend_from_slice(&text[x.0..x.1]);
            out.extend_from_slice(&text[y.1..]);
        }
        Mutation::Truncate(i) => {
            let (s, _) = pick(i);
            out.extend_from_slice(&text[..s]);
        }
        Mutation::InsertByte(at, byte) => {
            let at = at % (text.len() + 1);
            out.extend_from_slice(&text[..at]);
            out.push(byte);
            out.extend_from_slice(&text[at..]);
        }
        Mutation::ReplaceByte(at, byte) => {
            out.extend_from_slice(text);
            if !out.is_empty() {
                let at = at % out.len();
                out[at] = byte;
            }
        }
    }
    out
}

/// Parses and checks the outcome: a lossless module, or a well-formed error. Never slow.
fn check(text: Vec<u8>) {
    let started = Instant::now();
    let result = Module::parse("mutated.ll", text.clone());
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "parsing took {:?}",
        started.elapsed()
    );
    match result {
        Ok(module) => assert_eq!(module.print(), text, "a module that parses must print back"),
        Err(e) => {
            assert!(
                e.line >= 1 && e.column >= 1 && e.offset <= text.len(),
                "{e:?}"
            );
            let shown = e.to_string();
            assert!(
                shown.starts_with(&format!("mutated.ll:{}:{}: error: ", e.line, e.column)),
                "{shown}"
            );
            assert!(shown.ends_with('^'), "{shown}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn mutated_corpus_files_never_panic(
        file in any::<usize>(),
        mutations in proptest::collection::vec(mutation(), 1..5),
    ) {
        let texts = corpus_texts();
        if texts.is_empty() {
            return Ok(());
        }
        let mut text = texts[file % texts.len()].clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        check(text);
    }

    #[test]
    fn the_parallel_parse_of_mutated_files_agrees_or_steps_aside(
        file in any::<usize>(),
        mutations in proptest::collection::vec(mutation(), 0..3),
    ) {
        let texts = corpus_texts();
        if texts.is_empty() {
            return Ok(());
        }
        let mut text = texts[file % texts.len()].clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        let sequential = Module::parse_with_threads("m.ll", text.clone(), 1);
        if let Some(parallel) = Module::parse_parallel_only("m.ll", text.clone(), 3) {
            let sequential = sequential.expect("the parallel parse accepted what the sequential one refuses");
            prop_assert_eq!(parallel.print(), sequential.print());
            prop_assert_eq!(parallel.functions().count(), sequential.functions().count());
            let count = |m: &Module| m.functions().map(|f| f.instructions().count()).sum::<usize>();
            prop_assert_eq!(count(&parallel), count(&sequential));
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check(bytes);
    }

    #[test]
    fn arbitrary_token_soup_never_panics(
        words in proptest::collection::vec(
            prop_oneof![
                Just("define"), Just("declare"), Just("i32"), Just("ptr"), Just("%1"), Just("%x"),
                Just("@g"), Just("="), Just(","), Just("("), Just(")"), Just("{"), Just("}"),
                Just("["), Just("]"), Just("<"), Just(">"), Just("!0"), Just("!{"), Just("!"),
                Just("call"), Just("ret"), Just("void"), Just("label"), Just("br"), Just("0:"),
                Just("global"), Just("constant"), Just("c\"a\\00\""), Just("\"s\""), Just("x"),
                Just("getelementptr"), Just("type"), Just("...") , Just("#0"), Just("\n"),
                Just("metadata"), Just("!DILocation("), Just("line:"), Just("1"), Just("-2.5"),
            ],
            0..80,
        )
    ) {
        check(words.join(" ").into_bytes());
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let cases = [
        format!(
            "@g = global {}i32{} zeroinitializer\n",
            "[1 x ".repeat(depth),
            "]".repeat(depth)
        ),
        format!(
            "@g = global {}i32{} zeroinitializer\n",
            "{ ".repeat(depth),
            " }".repeat(depth)
        ),
        format!("%t = type {}{}\n", "{ ".repeat(depth), " }".repeat(depth)),
        format!("!0 = {}{}\n", "!{".repeat(depth), "}".repeat(depth)),
        format!(
            "@g = global ptr {}@g{}\n",
            "getelementptr (i8, ptr ".repeat(depth),
            ", i64 1)".repeat(depth)
        ),
        format!(
            "@g = global {{ i32 }} {}i32 1{}\n",
            "{ ".repeat(depth),
            " }".repeat(depth)
        ),
    ];
    for text in cases {
        let e = Module::parse("deep.ll", text).expect_err("absurd nesting must be refused");
        assert!(e.message.contains("nesting"), "{e}");
    }
}

#[test]
fn huge_numbers_and_odd_tokens_are_errors() {
    for text in [
        "@g = global [99999999999999999999999 x i8] zeroinitializer\n",
        "@g = global i99999999 0\n",
        "define void @f() {\n  %99999999999 = add i32 1, 2\n  ret void\n}\n",
        "@g = global ptr addrspace(99999999999) null\n",
        "define void @f() {\n  %1 = alloca i32, align 3\n  ret void\n}\n",
        "!99999999999 = !{}\n",
        "@g = global i32 0, align 99999999999999999999\n",
        // A numbering gap is fine, one that would take a huge table is not.
        "define void @f() {\n  %16777216 = add i32 1, 2\n  ret void\n}\n",
        "^0 = module: (path: \"m.o\", hash: (0, 0, 0, 0, 0)\n",
        "^0 = gv: (guid: 1))\n",
        "%a = type [2 x %a]\n",
    ] {
        assert!(Module::parse("odd.ll", text).is_err(), "{text}");
    }
}

#[test]
fn errors_point_at_the_problem() {
    let text = "define i32 @f(i32 %x) {\n  %y = add i32 %x, %z\n  ret i32 %y\n}\n";
    let e = Module::parse("f.ll", text).unwrap_err();
    assert_eq!((e.line, e.column), (2, 20));
    assert_eq!(
        e.to_string(),
        "f.ll:2:20: error: use of undefined value '%z'\n  %y = add i32 %x, %z\n                   ^"
    );

    let e = Module::parse("g.ll", "@g = global i32 0\n@h = global i32 @g 1\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 20));
    assert!(
        e.message
            .starts_with("expected a top-level entity, found '1'"),
        "{e}"
    );

    let e = Module::parse("h.ll", "define void @f() {\n  ret void\n").unwrap_err();
    assert!(e.message.contains("expected '}'"), "{e}");

    let e = Module::parse(
        "n.ll",
        // Numbers may skip (LLVM 19 accepts `%2` first) but never go back, as llvm-as-19 says.
        "define void @f() {\n  %2 = add i32 1, 2\n  %1 = add i32 1, 2\n  ret void\n}\n",
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("instruction expected to be numbered '%3' or greater"),
        "{e}"
    );

    let e = Module::parse("s.ll", "@s = global [2 x i8] c\"ab\n").unwrap_err();
    assert!(e.message.contains("unterminated string"), "{e}");

    // Tabs keep the caret under the right character.
    let e = Module::parse("t.ll", "\t@g = global i32 oops\n").unwrap_err();
    assert!(
        e.to_string()
            .ends_with("\t@g = global i32 oops\n\t                ^"),
        "{e}"
    );
}
