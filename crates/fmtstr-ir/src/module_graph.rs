//! The crate's modules import one another without a cycle.
//!
//! Input: this crate's source files. Output: a failing test naming every cycle, among the
//! modules (one per file) and among the top-level modules (each with its submodules). A module
//! depends on another when a `use` or a path in its code (`crate::x::f()`, `super::Parser`)
//! names something there; `mod x;` alone is no dependency, and names re-exported at the crate
//! root count as their defining module's. Comments, strings and the `#[cfg(test)]` module a
//! file ends with are left out: tests may reach anywhere.
//!
//! `cargo test --release -p fmtstr-ir --lib module_graph -- --nocapture` prints the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`parser::types`; `` for the crate root) to its source text.
type Sources = BTreeMap<String, String>;
type Graph = BTreeMap<String, BTreeSet<String>>;

fn read_sources(dir: &Path, prefix: &[String], out: &mut Sources) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        if path.is_dir() {
            let mut inner = prefix.to_vec();
            inner.push(stem);
            read_sources(&path, &inner, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let mut module = prefix.to_vec();
            if stem != "mod" && !(prefix.is_empty() && stem == "lib") {
                module.push(stem);
            }
            out.insert(module.join("::"), std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// The code of a file without comments, string and character literals (each left as a
/// space), and without its trailing test module.
fn code_of(text: &str) -> String {
    let text = match text.find("\n#[cfg(test)]\n") {
        Some(at) => &text[..at],
        None => text,
    };
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && is_raw_start(&chars, i) {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            i += 2 + hashes;
            while i < chars.len()
                && !(chars[i] == '"' && chars[i + 1..].iter().take(hashes).all(|&h| h == '#'))
            {
                i += 1;
            }
            i += 1 + hashes;
            out.push(' ');
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if c == '\'' && next == Some('\\') {
            // An escaped character literal: `'\n'`, `'\''`, `'\u{..}'`.
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push(' ');
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 3;
            out.push(' ');
        } else {
            // Anything else, a lifetime's `'` included.
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_raw_start(chars: &[char], i: usize) -> bool {
    let word_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
    !word_before && chars.get(i + 1 + hashes) == Some(&'"')
}

/// The paths a `use` tree names: `a::{b, c::{d}}` gives `a::b` and `a::c::d`.
fn use_paths(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or("").trim();
        if !path.is_empty() {
            out.push(format!("{prefix}{path}"));
        }
        return;
    };
    let head = format!("{prefix}{}", &tree[..open]);
    let body = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut depth = 0;
    let mut start = 0;
    for (k, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                use_paths(&body[start..k], &head, out);
                start = k + 1;
            }
            _ => {}
        }
    }
    use_paths(&body[start..], &head, out);
}

/// Every path in `code` that may name another module: `use` trees, and `crate::`, `super::`
/// and `self::` paths elsewhere.
fn paths_in(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let bytes = code.as_bytes();
    let starts_word = |at: usize| {
        at == 0
            || !(bytes[at - 1].is_ascii_alphanumeric()
                || bytes[at - 1] == b'_'
                || bytes[at - 1] == b':')
    };
    let mut at = 0;
    while let Some(k) = code[at..].find("use ") {
        let start = at + k;
        at = start + 4;
        if !starts_word(start) {
            continue;
        }
        let Some(end) = code[at..].find(';') else {
            break;
        };
        use_paths(&code[at..at + end], "", &mut paths);
        at += end;
    }
    for root in ["crate::", "super::", "self::"] {
        let mut at = 0;
        while let Some(k) = code[at..].find(root) {
            let start = at + k;
            let end = code[start..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |n| start + n);
            if starts_word(start) {
                paths.push(code[start..end].trim_end_matches(':').to_string());
            }
            at = end.max(start + 1);
        }
    }
    paths
}

/// The module a path from `module` names: the longest module its path starts with.
fn resolve(
    module: &str,
    path: &str,
    modules: &Sources,
    root_items: &BTreeMap<String, String>,
) -> Option<String> {
    let mut here: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    let mut segments = path.split("::").filter(|s| !s.is_empty()).peekable();
    let mut full: Vec<&str> = match segments.peek().copied() {
        Some("crate") => {
            segments.next();
            Vec::new()
        }
        Some("self") => {
            segments.next();
            here.clone()
        }
        Some("super") => {
            while segments.next_if_eq(&"super").is_some() {
                here.pop();
            }
            here.clone()
        }
        // A child module's name, as `pub use child::Item;` writes it.
        Some(first) if modules.contains_key(&[here.as_slice(), &[first]].concat().join("::")) => {
            here.clone()
        }
        _ => return None,
    };
    full.extend(segments);
    if full.is_empty() {
        return None;
    }
    let found = (1..=full.len())
        .rev()
        .map(|n| full[..n].join("::"))
        .find(|m| modules.contains_key(m));
    match found {
        Some(m) => Some(m),
        None => root_items.get(full[0]).cloned(),
    }
}

/// The modules each module depends on, the crate root left out (it declares them all).
fn module_graph(sources: &Sources) -> Graph {
    let mut root_items = BTreeMap::new();
    let no_items = BTreeMap::new();
    for path in paths_in(&code_of(&sources[""])) {
        if let Some(m) = resolve("", &path, sources, &no_items) {
            root_items.insert(path.rsplit("::").next().unwrap_or("").to_string(), m);
        }
    }
    let mut graph = Graph::new();
    for (module, text) in sources.iter().filter(|(m, _)| !m.is_empty()) {
        let deps = graph.entry(module.clone()).or_default();
        for path in paths_in(&code_of(text)) {
            if let Some(m) = resolve(module, &path, sources, &root_items) {
                if !m.is_empty() && m != *module {
                    deps.insert(m);
                }
            }
        }
    }
    graph
}

fn top_level(graph: &Graph) -> Graph {
    let top = |m: &str| m.split("::").next().unwrap_or("").to_string();
    let mut out = Graph::new();
    for (module, deps) in graph {
        let entry = out.entry(top(module)).or_default();
        entry.extend(deps.iter().map(|d| top(d)).filter(|d| *d != top(module)));
    }
    out
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let at = s.stack.iter().rposition(|&x| x == v).unwrap_or(0);
            let component: Vec<String> = s.stack.drain(at..).map(str::to_string).collect();
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    for c in &mut state.found {
        c.sort();
    }
    state.found
}

#[test]
fn modules_import_one_another_without_a_cycle() {
    let mut sources = Sources::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    read_sources(&dir, &[], &mut sources);
    let graph = module_graph(&sources);
    let top = top_level(&graph);
    for (module, deps) in &graph {
        println!(
            "{module} -> {}",
            deps.iter().cloned().collect::<Vec<_>>().join(" ")
        );
    }
    let (files, tops) = (cycles(&graph), cycles(&top));
    println!("cycles among modules: {files:?}\ncycles among top-level modules: {tops:?}");
    assert!(
        files.is_empty() && tops.is_empty(),
        "import cycles: {files:?}, top level: {tops:?}"
    );
}

#[test]
fn the_graph_sees_what_a_module_names() {
    let mut sources = Sources::new();
    for (m, text) in [
        ("", "mod a;\nmod b;\npub use b::Thing;"),
        (
            "a",
            "use crate::b::{self, x::{Y}};\n// use crate::c;\nfn f() { super::Thing; }",
        ),
        (
            "a::inner",
            "use super::f;\nconst S: &str = \"crate::c::z\";",
        ),
        ("b", "pub use x::Y;\nfn g() -> char { '\"' }"),
        (
            "b::x",
            "fn h() { crate::a::inner::k(); }\n#[cfg(test)]\nmod tests { use crate::c; }",
        ),
        ("c", ""),
    ] {
        sources.insert(m.to_string(), text.to_string());
    }
    let graph = module_graph(&sources);
    let deps = |m: &str| graph[m].iter().cloned().collect::<Vec<_>>().join(" ");
    assert_eq!(deps("a"), "b b::x");
    assert_eq!(deps("a::inner"), "a");
    assert_eq!(deps("b"), "b::x");
    assert_eq!(deps("b::x"), "a::inner");
    assert_eq!(cycles(&graph), vec![vec!["a", "a::inner", "b", "b::x"]]);
    assert_eq!(cycles(&top_level(&graph)), vec![vec!["a", "b"]]);
}
