//! `cargo xtask layout`: the codebase's shape rules, checked (CI runs it).
//!
//! - No import cycle between the modules of a crate: a module (a file under `src/`) that names
//!   another through `crate::` or `super::` depends on it; test modules (after `#[cfg(test)]`)
//!   do not count. A cycle is reported with its modules.
//! - No source file of a crate over [`LONG`] lines unless its opening comment says why, with
//!   the words "long because".
//! - No function over [`LONG_FN`] lines (tests aside) unless the comment at its top, above it
//!   or first in its body, says why, with the words "long because".
//!
//! The reading is textual (paths in `use` lines and in code), which is what a reader sees; a
//! path in a doc comment counts too, so docs name sibling modules in words, not paths.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::bail;

/// Lines above which a file needs a written reason.
const LONG: usize = 1500;
/// Lines above which a function needs a written reason.
const LONG_FN: usize = 150;

pub fn run() -> anyhow::Result<()> {
    let findings = check(&crate::process::root().join("crates"))?;
    if findings.is_empty() {
        eprintln!("xtask layout: no import cycle, no unexplained long file or function");
        return Ok(());
    }
    for finding in &findings {
        eprintln!("{finding}");
    }
    bail!("{} layout finding(s)", findings.len())
}

/// Every finding under `crates`, one line each.
pub fn check(crates: &Path) -> anyhow::Result<Vec<String>> {
    let mut findings = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(crates)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    names.sort();
    for krate in names {
        let crate_name = krate
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let modules = modules(&krate.join("src"))?;
        let files = files(&krate.join("src"))?;
        for (name, text) in &modules {
            let lines = text.lines().count();
            let opening: String = text.lines().take(30).collect::<Vec<_>>().join("\n");
            if lines > LONG && !opening.contains("long because") {
                findings.push(format!(
                    "{crate_name}: {} has {lines} lines (over {LONG}) and no written reason \
                     (\"long because ...\" in its opening comment): split it by concern",
                    files.get(name).map_or("?", String::as_str)
                ));
            }
        }
        for (name, text) in &modules {
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (function, line, lines) in long_functions(code) {
                findings.push(format!(
                    "{crate_name}: {}:{line}: fn {function} has {lines} lines (over {LONG_FN}) \
                     and no written reason (\"long because ...\" in the comment at its top): \
                     split it into steps",
                    files.get(name).map_or("?", String::as_str)
                ));
            }
        }
        for cycle in cycles(&dependencies(&modules)) {
            findings.push(format!(
                "{crate_name}: import cycle between modules {}: move what they share into a \
                 module both can use",
                cycle.join(", ")
            ));
        }
    }
    Ok(findings)
}

/// Module path -> its file, relative to the crate (`src/abi/mod.rs`).
fn files(src: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(src)?;
                out.insert(module_name(relative), format!("src/{}", relative.display()));
            }
        }
    }
    Ok(out)
}

/// The functions of `code` over [`LONG_FN`] lines without a written reason: (name, first
/// line, lines). A function runs from its `fn` line to the first line after it that holds
/// only its closing brace at the `fn`'s indentation, which is how rustfmt lays them out.
fn long_functions(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let Some((indent, name)) = fn_start(lines[at]) else {
            at += 1;
            continue;
        };
        let close = format!("{indent}}}");
        let Some(end) = (at + 1..lines.len()).find(|&i| lines[i].trim_end() == close) else {
            break;
        };
        let count = end - at + 1;
        // The comments and attributes right above it, and the comments it opens with.
        let above = lines[..at]
            .iter()
            .rev()
            .take_while(|l| l.trim_start().starts_with("//") || l.trim_start().starts_with("#["));
        let within = lines[at + 1..end]
            .iter()
            .take_while(|l| l.trim_start().starts_with("//"));
        let explained = above
            .chain(within)
            .any(|l| l.to_ascii_lowercase().contains("long because"));
        if count > LONG_FN && !explained {
            found.push((name, at + 1, count));
        }
        at = end + 1;
    }
    found
}

/// The indentation and name of a function defined on this line (not a declaration).
fn fn_start(line: &str) -> Option<(&str, String)> {
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    let mut rest = trimmed;
    for qualifier in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
    ] {
        rest = rest.strip_prefix(qualifier).unwrap_or(rest);
    }
    rest = rest.strip_prefix("extern \"C\" ").unwrap_or(rest);
    let rest = rest.strip_prefix("fn ")?;
    if line.trim_end().ends_with(';') {
        return None;
    }
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some((indent, name))
}

/// `amdgpu/buffer.rs` -> `amdgpu::buffer`, `abi/mod.rs` -> `abi`.
fn module_name(relative: &Path) -> String {
    let name = relative
        .with_extension("")
        .to_string_lossy()
        .replace('/', "::");
    match name.strip_suffix("::mod") {
        Some(parent) => parent.to_owned(),
        None => name,
    }
}

/// Module path (`amdgpu::buffer`, `lib`) -> source text, for every file under `src`.
fn modules(src: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let name = module_name(path.strip_prefix(src)?);
            out.insert(name, std::fs::read_to_string(&path)?);
        }
    }
    Ok(out)
}

/// Module -> the modules of the same crate it names (the crate root aside).
fn dependencies(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let known: BTreeSet<&str> = modules
        .keys()
        .map(String::as_str)
        .filter(|m| !matches!(*m, "lib" | "main"))
        .collect();
    let mut deps = BTreeMap::new();
    for (module, text) in modules {
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let mut used = BTreeSet::new();
        let parent = module.rsplit_once("::").map(|(p, _)| p);
        for (prefix, base) in [("crate::", None), ("super::", parent)] {
            for path in paths_after(code, prefix) {
                let parts: Vec<&str> = path.split("::").collect();
                let target = (1..=parts.len()).rev().find_map(|k| {
                    let candidate = match base {
                        Some(base) => format!("{base}::{}", parts[..k].join("::")),
                        None => parts[..k].join("::"),
                    };
                    known.contains(candidate.as_str()).then_some(candidate)
                });
                let target = target.or_else(|| {
                    // `super::item` from a child names its parent module.
                    base.filter(|b| known.contains(b)).map(str::to_owned)
                });
                if let Some(target) = target {
                    if &target != module && !module.starts_with(&format!("{target}::")) {
                        used.insert(target);
                    }
                }
            }
        }
        deps.insert(module.clone(), used);
    }
    deps
}

/// The `a::b::c` paths that follow each `prefix` in `text` (lowercase segments only).
fn paths_after<'t>(text: &'t str, prefix: &'t str) -> impl Iterator<Item = String> + 't {
    text.match_indices(prefix).filter_map(move |(at, _)| {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let rest = &text[at + prefix.len()..];
        let mut segments = Vec::new();
        for segment in rest.split("::") {
            let word: String = segment
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if word.is_empty() {
                break;
            }
            let whole = word.len() == segment.len();
            segments.push(word);
            if !whole {
                break;
            }
        }
        (!segments.is_empty()).then(|| segments.join("::"))
    })
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(deps: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'d> {
        deps: &'d BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'d str, usize>,
        low: BTreeMap<&'d str, usize>,
        stack: Vec<&'d str>,
        on_stack: BTreeSet<&'d str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'d>(state: &mut State<'d>, v: &'d str) {
        let next = state.index.len();
        state.index.insert(v, next);
        state.low.insert(v, next);
        state.stack.push(v);
        state.on_stack.insert(v);
        let deps = state.deps;
        for w in deps.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !state.index.contains_key(w) {
                visit(state, w);
                let low = state.low[v].min(state.low[w]);
                state.low.insert(v, low);
            } else if state.on_stack.contains(w) {
                let low = state.low[v].min(state.index[w]);
                state.low.insert(v, low);
            }
        }
        if state.low[v] == state.index[v] {
            let mut component = Vec::new();
            while let Some(w) = state.stack.pop() {
                state.on_stack.remove(w);
                component.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        deps,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in deps.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crate_of(files: &[(&str, &str)]) -> BTreeMap<String, String> {
        files
            .iter()
            .map(|(name, text)| ((*name).to_owned(), (*text).to_owned()))
            .collect()
    }

    #[test]
    fn a_cycle_through_crate_and_super_paths_is_found_and_tests_do_not_count() {
        let modules = crate_of(&[
            ("lib", "mod a; mod b;"),
            ("a", "use crate::b::Thing;"),
            ("b", "fn f() { crate::c::g() }"),
            (
                "c",
                "use super::a::X;\n#[cfg(test)]\nmod tests { use crate::b::Y; }",
            ),
            ("d", "use crate::a;\n#[cfg(test)]\nuse crate::d;"),
            ("e::f", "use super::g;"),
            ("e::g", "#[cfg(test)]\nmod tests { use super::f; }"),
        ]);
        let deps = dependencies(&modules);
        assert_eq!(deps["c"], BTreeSet::from(["a".to_owned()]));
        assert_eq!(deps["e::f"], BTreeSet::from(["e::g".to_owned()]));
        assert_eq!(
            cycles(&deps),
            vec![vec!["a".to_owned(), "b".to_owned(), "c".to_owned()]]
        );
    }

    #[test]
    fn long_functions_need_a_reason_above_or_first_inside() {
        let body = |n: usize| "    let x = 1;\n".repeat(n);
        let code = format!(
            "fn short() {{\n{}}}\n\
             pub(crate) fn long(a: u8) -> u8 {{\n{}}}\n\
             /// Long because the cases are one table.\n#[inline]\nfn explained() {{\n{}}}\n\
             impl T {{\n    fn inner() {{\n        // Long because: one state machine.\n{}    }}\n\
             \x20   pub fn method() {{\n{}    }}\n}}\n\
             fn declared();\n",
            body(10),
            body(LONG_FN),
            body(LONG_FN),
            body(LONG_FN),
            body(LONG_FN)
        );
        let found: Vec<(String, usize)> = long_functions(&code)
            .into_iter()
            .map(|(name, line, _)| (name, line))
            .collect();
        let method_line = code.lines().position(|l| l.contains("fn method")).unwrap() + 1;
        assert_eq!(
            found,
            vec![("long".to_owned(), 13), ("method".to_owned(), method_line)]
        );
    }

    #[test]
    fn the_repository_s_crates_have_no_cycles_and_no_unexplained_long_files() {
        let findings = check(&crate::process::root().join("crates")).unwrap();
        assert!(findings.is_empty(), "{}", findings.join("\n"));
    }
}
