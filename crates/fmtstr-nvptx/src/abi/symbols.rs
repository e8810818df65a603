//! The PTX symbol of every function and alias, as llc 19 names them.
//!
//! Two passes change names on the way to PTX:
//!
//! - `NVPTXAssignValidGlobalNames` renames local symbols (`internal`, `private`): each
//!   character PTX does not allow becomes `_$_`, global variables first, then functions, in
//!   module order. A new name that is taken gets a number appended, from one counter for the
//!   whole module (`.function.` becomes `_$_function_$_2` when `_$_function_$_` exists and
//!   one renaming before it collided too); without an nvptx triple a `.` comes before the
//!   number.
//! - The mangler names unnamed globals (`@0`) `__unnamed_N`, N counting from 1 in the order
//!   the printer first writes them. Unnamed functions are numbered in module order when that
//!   is certainly the printer's order: no unnamed variable, and no unnamed function used
//!   anywhere (a use can make the printer write it earlier); otherwise the planner says so.

use std::collections::{HashMap, HashSet};

use fmtstr_ir::{FuncId, GlobalId, GlobalKind, Module};

/// A global's definition as its source line gives it.
struct Definition {
    name: String,
    local: bool,
    numbered: bool,
}

/// The PTX names of a module's globals.
pub(crate) struct Symbols {
    names: HashMap<GlobalId, String>,
    /// Unnamed functions whose number the planner cannot be sure of.
    pub unsure: HashSet<FuncId>,
}

/// `cleanUpName`.
fn clean(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '$' {
            out.push(c);
        } else {
            out.push_str("_$_");
        }
    }
    out
}

/// The `@name = ...` lines of a module (variables, aliases, ifuncs), in order.
fn definitions(source: &str) -> Vec<Definition> {
    let mut out = Vec::new();
    for line in source.lines() {
        let Some(rest) = line.strip_prefix('@') else {
            continue;
        };
        let (name, after, numbered) = if let Some(quoted) = rest.strip_prefix('"') {
            let Some(end) = quoted.find('"') else {
                continue;
            };
            (quoted[..end].to_string(), &quoted[end + 1..], false)
        } else {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '=')
                .unwrap_or(rest.len());
            let name = &rest[..end];
            (
                name.to_string(),
                &rest[end..],
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()),
            )
        };
        let Some(value) = after.trim_start().strip_prefix('=') else {
            continue;
        };
        let local = value
            .split_whitespace()
            .take(4)
            .any(|w| w == "internal" || w == "private");
        out.push(Definition {
            name,
            local,
            numbered,
        });
    }
    out
}

impl Symbols {
    pub(crate) fn new(
        m: &Module,
        is_local: impl Fn(FuncId) -> bool,
        mentioned: &HashSet<FuncId>,
        triple: Option<&str>,
    ) -> Symbols {
        let source = String::from_utf8_lossy(m.source());
        let defs = definitions(&source);
        let nvptx = triple.is_some_and(|t| {
            let arch = t.split('-').next().unwrap_or("");
            arch == "nvptx" || arch == "nvptx64"
        });
        let numbered_function = |f: FuncId| {
            let text = m.function(f).source_text();
            text.iter()
                .position(|&b| b == b'@')
                .and_then(|i| text.get(i + 1))
                .is_some_and(u8::is_ascii_digit)
        };
        let mut taken: HashSet<String> = m.globals().map(|g| g.name_str().into_owned()).collect();
        let mut names = HashMap::new();
        let mut counter = 0u32;
        let mut rename = |g: GlobalId, name: &str, names: &mut HashMap<GlobalId, String>| {
            let base = clean(name);
            if base == name {
                return;
            }
            taken.remove(name);
            let mut new = base.clone();
            while taken.contains(&new) {
                counter += 1;
                new = format!("{base}{}{counter}", if nvptx { "" } else { "." });
            }
            taken.insert(new.clone());
            names.insert(g, new);
        };
        let mut unnamed_variable = false;
        for d in &defs {
            let Some(g) = m.global_by_name(&d.name) else {
                continue;
            };
            if m.global(g).kind() != GlobalKind::Variable {
                continue;
            }
            unnamed_variable |= d.numbered;
            if d.local && !d.numbered {
                rename(g, &d.name, &mut names);
            }
        }
        let mut unnamed = Vec::new();
        for func in m.functions() {
            let f = func.id();
            let g = func.global().id();
            if numbered_function(f) {
                unnamed.push(f);
            } else if is_local(f) {
                rename(g, &func.name_str(), &mut names);
            }
        }
        let mut unsure = HashSet::new();
        let certain = !unnamed_variable && !unnamed.iter().any(|f| mentioned.contains(f));
        for (i, &f) in unnamed.iter().enumerate() {
            names.insert(m.function(f).global().id(), format!("__unnamed_{}", i + 1));
            if !certain {
                unsure.insert(f);
            }
        }
        Symbols { names, unsure }
    }

    /// The PTX symbol of global `g`.
    pub(crate) fn name(&self, m: &Module, g: GlobalId) -> String {
        self.names
            .get(&g)
            .cloned()
            .unwrap_or_else(|| m.global(g).name_str().into_owned())
    }
}
