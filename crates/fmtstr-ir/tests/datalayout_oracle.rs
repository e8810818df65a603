//! DataLayout against LLVM: sizes, alignments and field offsets of a few hundred generated
//! types, on the nvptx64, amdgcn and x86_64 layouts, compared with what `opt-19 -O2` folds.
//!
//! Each query is a function `ret i64 ptrtoint (ptr getelementptr (T, ptr null, idx...) to
//! i64)`: with `idx = 1` the fold is T's alloc size, `{ i1, T }` field 1 is T's ABI alignment,
//! struct field and array element paths are offsets. fmtstr-ir parses the generated module,
//! computes every GEP offset with `DataLayout::offset_of` from the parsed constant, and parses
//! opt's output to read the folded numbers back. Zero differences allowed.

use std::fmt::Write as _;
use std::process::Command;

use fmtstr_ir::{Constant, Module, Opcode, Type, TypeId, Value};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const LAYOUTS: [(&str, &str, &str); 3] = [
    (
        "nvptx64",
        "e-i64:64-i128:128-v16:16-v32:32-n16:32:64",
        "nvptx64-nvidia-cuda",
    ),
    (
        "amdgcn",
        "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9",
        "amdgcn-amd-amdpal",
    ),
    (
        "x86_64",
        "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128",
        "x86_64-unknown-linux-gnu",
    ),
];

const TYPES: usize = 300;

struct Generator {
    rng: SmallRng,
    named: Vec<String>,
    definitions: String,
}

impl Generator {
    fn scalar(&mut self) -> String {
        match self.rng.gen_range(0..3) {
            0 => [
                "i1", "i8", "i16", "i32", "i64", "i128", "i7", "i24", "i33", "i48", "i96",
            ][self.rng.gen_range(0..11)]
            .to_string(),
            1 => [
                "half",
                "bfloat",
                "float",
                "double",
                "x86_fp80",
                "fp128",
                "ppc_fp128",
            ][self.rng.gen_range(0..7)]
            .to_string(),
            _ => match self.rng.gen_range(0..10) {
                0 => "ptr".to_string(),
                n => format!("ptr addrspace({})", [1, 2, 3, 4, 5, 7, 8, 9, 270][n - 1]),
            },
        }
    }

    fn ty(&mut self, depth: u32) -> String {
        let pick = if depth >= 3 {
            0
        } else {
            self.rng.gen_range(0..10)
        };
        match pick {
            0..=2 => self.scalar(),
            3 => {
                let elem = self.scalar();
                let len = [1, 2, 3, 4, 5, 8, 16][self.rng.gen_range(0..7)];
                format!("<{len} x {elem}>")
            }
            4 | 5 => {
                let elem = self.ty(depth + 1);
                format!("[{} x {elem}]", self.rng.gen_range(0..5))
            }
            6..=8 => {
                let n = self.rng.gen_range(0..5);
                let fields: Vec<String> = (0..n).map(|_| self.ty(depth + 1)).collect();
                let body = if fields.is_empty() {
                    "{}".to_string()
                } else {
                    format!("{{ {} }}", fields.join(", "))
                };
                let packed = self.rng.gen_bool(0.25);
                let text = if packed { format!("<{body}>") } else { body };
                if self.rng.gen_bool(0.3) {
                    let name = format!("%s{}", self.named.len());
                    writeln!(self.definitions, "{name} = type {text}").unwrap();
                    self.named.push(name.clone());
                    name
                } else {
                    text
                }
            }
            _ if !self.named.is_empty() => {
                let i = self.rng.gen_range(0..self.named.len());
                self.named[i].clone()
            }
            _ => self.scalar(),
        }
    }
}

/// The module text for one layout: named types, then one function per query.
fn generate(layout: &str, triple: &str, seed: u64) -> String {
    let mut g = Generator {
        rng: SmallRng::seed_from_u64(seed),
        named: Vec::new(),
        definitions: String::new(),
    };
    let mut functions = String::new();
    let mut count = 0;
    let mut query = |functions: &mut String, source: &str, indices: &str| {
        writeln!(
            functions,
            "define i64 @q{count}() {{\n  ret i64 ptrtoint (ptr getelementptr ({source}, ptr null{indices}) to i64)\n}}\n"
        )
        .unwrap();
        count += 1;
    };
    for _ in 0..TYPES {
        let ty = g.ty(0);
        query(&mut functions, &ty, ", i64 1");
        query(&mut functions, &format!("{{ i1, {ty} }}"), ", i64 0, i32 1");
        query(
            &mut functions,
            &format!("<{{ i8, {ty} }}>"),
            ", i64 0, i32 1",
        );
        query(&mut functions, &format!("[3 x {ty}]"), ", i64 0, i64 2");
        // Field offsets: direct, and a random path into nested aggregates.
        let mut path = String::from(", i64 0");
        let mut current = ty.clone();
        for _ in 0..3 {
            let fields = top_level_fields(&current, &g);
            match fields {
                Some(fields) if !fields.is_empty() => {
                    for k in 0..fields.len() {
                        query(&mut functions, &ty, &format!("{path}, i32 {k}"));
                    }
                    let k = g.rng.gen_range(0..fields.len());
                    path.push_str(&format!(", i32 {k}"));
                    current = fields[k].clone();
                }
                _ => match array_element(&current) {
                    Some(elem) => {
                        let i = g.rng.gen_range(0..4);
                        path.push_str(&format!(", i64 {i}"));
                        query(&mut functions, &ty, &path);
                        current = elem;
                    }
                    None => break,
                },
            }
        }
    }
    format!(
        "target datalayout = \"{layout}\"\ntarget triple = \"{triple}\"\n\n{}\n{functions}",
        g.definitions
    )
}

/// The field types of a struct type spelled `{ ... }`, `<{ ... }>` or `%sN`.
fn top_level_fields(ty: &str, g: &Generator) -> Option<Vec<String>> {
    let body = if let Some(name) = ty.strip_prefix('%') {
        let prefix = format!("%{name} = type ");
        let line = g.definitions.lines().find(|l| l.starts_with(&prefix))?;
        line[prefix.len()..].to_string()
    } else {
        ty.to_string()
    };
    let inner = body
        .strip_prefix('<')
        .and_then(|b| b.strip_suffix('>'))
        .unwrap_or(&body);
    let inner = inner.strip_prefix('{')?.strip_suffix('}')?.trim();
    Some(split_top(inner))
}

fn array_element(ty: &str) -> Option<String> {
    let inner = ty.strip_prefix('[')?.strip_suffix(']')?;
    let (len, elem) = inner.split_once(" x ")?;
    len.parse::<u64>().ok()?;
    Some(elem.to_string())
}

fn split_top(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '{' | '[' | '<' | '(' => depth += 1,
            '}' | ']' | '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        parts.push(current.trim().to_string());
    }
    parts
}

/// The GEP of each `@qN`'s return value: (source type, indices).
fn queries(module: &Module) -> Vec<(String, TypeId, Vec<i64>)> {
    let mut out = Vec::new();
    for f in module.functions() {
        let ret = f.instructions().last().expect("a ret");
        assert_eq!(ret.opcode(), Opcode::Ret);
        let Value::Const(c) = ret.operand(0).expect("a value").value else {
            panic!("not a constant")
        };
        let Constant::Expr { operands, .. } = module.constant(c) else {
            panic!("not ptrtoint")
        };
        let Value::Const(gep) = operands[0].value else {
            panic!("not a GEP")
        };
        let Constant::Expr {
            opcode: Opcode::GetElementPtr,
            ty: Some(source),
            operands,
            ..
        } = module.constant(gep)
        else {
            panic!("not a GEP")
        };
        let indices = operands[1..]
            .iter()
            .map(|op| match op.value {
                Value::Const(c) => module.int_value(c).expect("an integer index") as i64,
                _ => panic!("not a constant index"),
            })
            .collect();
        out.push((f.name_str().into_owned(), source, indices));
    }
    out
}

/// `@qN` -> the integer opt folded its return value to.
fn folded(module: &Module) -> Vec<(String, Option<i128>)> {
    module
        .functions()
        .map(|f| {
            let value = f
                .instructions()
                .last()
                .and_then(|ret| ret.operand(0))
                .and_then(|op| match op.value {
                    Value::Const(c) => module.int_value(c),
                    _ => None,
                });
            (f.name_str().into_owned(), value)
        })
        .collect()
}

#[test]
fn sizes_alignments_and_offsets_match_opt() {
    let Some(opt) = fmtstr_oracles::require(fmtstr_oracles::Tool::Opt) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut total = 0;
    let mut differences = Vec::new();
    for (i, (name, layout, triple)) in LAYOUTS.iter().enumerate() {
        let text = generate(layout, triple, 0x5eed + i as u64);
        let module = Module::parse(&format!("{name}.ll"), text.clone())
            .unwrap_or_else(|e| panic!("generated module does not parse:\n{e}"));
        let ours: Vec<(String, Option<i64>)> = queries(&module)
            .into_iter()
            .map(|(f, source, indices)| {
                let offset = module
                    .data_layout()
                    .offset_of(module.types(), source, &indices)
                    .ok()
                    .map(|(o, _)| o);
                (f, offset)
            })
            .collect();
        let input = dir.path().join(format!("{name}.ll"));
        let output = dir.path().join(format!("{name}.opt.ll"));
        std::fs::write(&input, &text).unwrap();
        let status = Command::new(&opt)
            .args(["-O2", "-S"])
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .status()
            .expect("cannot run opt");
        assert!(status.success(), "opt failed on {name}");
        let folded_module = Module::parse("opt output", std::fs::read(&output).unwrap())
            .expect("opt output parses");
        let theirs: std::collections::HashMap<String, Option<i128>> =
            folded(&folded_module).into_iter().collect();
        for (f, offset) in &ours {
            total += 1;
            let theirs = theirs.get(f).copied().flatten();
            if offset.map(i128::from) != theirs {
                let body = text
                    .split(&format!("define i64 @{f}() {{\n"))
                    .nth(1)
                    .and_then(|rest| rest.lines().next())
                    .unwrap_or("");
                differences.push(format!(
                    "{name} @{f}: fmtstr {offset:?}, opt {theirs:?}: {}",
                    body.trim()
                ));
            }
        }
    }
    assert!(
        differences.is_empty(),
        "{} of {total} differ:\n{}",
        differences.len(),
        differences.join("\n")
    );
    assert!(total > 3 * TYPES * 4, "only {total} queries");
    eprintln!("{total} sizes, alignments and offsets agree with opt-19 -O2");
}

#[test]
fn struct_types_view() {
    let module = Module::parse(
        "t.ll",
        "%s = type <{ i8, [2 x i16] }>\ndefine void @f(ptr %p) {\n  %x = getelementptr %s, ptr %p, i32 0, i32 1\n  ret void\n}\n",
    )
    .unwrap();
    let s = module.types().named("s").unwrap();
    let Type::Struct(st) = module.types().get(s) else {
        panic!()
    };
    assert!(st.packed);
    assert_eq!(st.fields.len(), 2);
    let layout = module
        .data_layout()
        .struct_layout(module.types(), s)
        .unwrap();
    assert_eq!(layout.offsets, vec![0, 1]);
    assert_eq!(layout.size, 5);
}
