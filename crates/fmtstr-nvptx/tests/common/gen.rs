//! Random LLVM modules for the oracle tests: functions, kernels and call sites over every
//! kind of parameter type, with the byval loads and atomics the planner must predict.

#![allow(dead_code)]

use std::fmt::Write;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub const HEADER: &str = "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\ntarget triple = \"nvptx64-nvidia-cuda\"\n\n@g = global [512 x i64] zeroinitializer\n@g1 = addrspace(1) global [64 x i64] zeroinitializer\n@g3 = addrspace(3) global [64 x i64] undef\n\ndeclare void @sink(ptr)\n";

const SCALARS: &[&str] = &[
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "half",
    "bfloat",
    "float",
    "double",
    "ptr",
    "ptr addrspace(1)",
    "i128",
];
const VECTORS: &[&str] = &[
    "<2 x float>",
    "<4 x float>",
    "<3 x float>",
    "<2 x double>",
    "<4 x i32>",
    "<3 x i32>",
    "<2 x i64>",
    "<4 x i8>",
    "<8 x i8>",
    "<2 x half>",
    "<4 x half>",
    "<8 x half>",
    "<2 x i16>",
    "<4 x i16>",
    "<2 x bfloat>",
];

#[derive(Clone, Debug)]
pub enum Ty {
    Scalar(&'static str),
    Vector(&'static str),
    Array(u64, Box<Ty>),
    Struct(usize),
}

pub struct Gen {
    pub rng: SmallRng,
    structs: Vec<(bool, Vec<Ty>)>,
    body: String,
    next: usize,
    /// Device functions defined so far: name, return type, parameter types.
    pub devices: Vec<(String, Option<Ty>, Vec<Ty>)>,
    pub externs: Vec<(String, Option<Ty>, Vec<Ty>)>,
    pub functions: usize,
    pub calls: usize,
    pub atomics: usize,
    /// Inside an array: llc 19 cannot pass an i128 there.
    no_i128: bool,
    /// Inside a packed struct: llc 19 cannot store <2 x i16> or <4 x i8> unaligned.
    in_packed: bool,
    /// A byval parameter llc copies: its copy of some bfloat layouts crashes llc 19.
    no_bf16: bool,
}

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen {
            rng: SmallRng::seed_from_u64(seed),
            structs: Vec::new(),
            body: String::new(),
            next: 0,
            devices: Vec::new(),
            externs: Vec::new(),
            functions: 0,
            calls: 0,
            atomics: 0,
            no_i128: false,
            in_packed: false,
            no_bf16: false,
        }
    }

    pub fn text(&self, t: &Ty) -> String {
        match t {
            Ty::Scalar(s) | Ty::Vector(s) => s.to_string(),
            Ty::Array(n, e) => format!("[{n} x {}]", self.text(e)),
            Ty::Struct(i) => format!("%s{i}"),
        }
    }

    fn scalar(&mut self) -> Ty {
        let n = if self.no_i128 {
            SCALARS.len() - 1
        } else {
            SCALARS.len()
        };
        loop {
            let t = SCALARS[self.rng.gen_range(0..n)];
            if !(self.no_bf16 && t == "bfloat") {
                return Ty::Scalar(t);
            }
        }
    }

    fn vector(&mut self) -> Ty {
        loop {
            let v = VECTORS[self.rng.gen_range(0..VECTORS.len())];
            if !(self.in_packed && (v.contains("x i8>") || v.contains("x i16>")))
                && !(self.no_bf16 && v.contains("bfloat"))
            {
                return Ty::Vector(v);
            }
        }
    }

    /// A struct, possibly packed, possibly nesting others.
    pub fn aggregate(&mut self, depth: u32) -> Ty {
        let n = self.rng.gen_range(1..=5);
        let packed = self.rng.gen_bool(0.12);
        let outer_packed = self.in_packed;
        self.in_packed |= packed;
        let mut fields = Vec::new();
        for _ in 0..n {
            let roll = self.rng.gen_range(0..10);
            let f = match roll {
                0..=4 => self.scalar(),
                5..=6 => self.vector(),
                7..=8 => {
                    let len = self.rng.gen_range(1..=4);
                    let outer = self.no_i128;
                    self.no_i128 = true;
                    let mut e = if depth < 1 && self.rng.gen_bool(0.3) {
                        self.aggregate(depth + 1)
                    } else {
                        self.scalar()
                    };
                    self.no_i128 = outer;
                    if matches!(e, Ty::Scalar("i128")) {
                        e = Ty::Scalar("i64");
                    }
                    Ty::Array(len, Box::new(e))
                }
                _ if depth < 2 => self.aggregate(depth + 1),
                _ => self.scalar(),
            };
            fields.push(f);
        }
        self.in_packed = outer_packed;
        self.structs.push((packed, fields));
        Ty::Struct(self.structs.len() - 1)
    }

    pub fn any(&mut self) -> Ty {
        match self.rng.gen_range(0..20) {
            0..=8 => self.scalar(),
            9..=12 => self.vector(),
            13..=14 => {
                let len = self.rng.gen_range(1..=4);
                let e = if self.rng.gen_bool(0.5) {
                    Ty::Scalar(["i8", "i16", "float", "double", "i32"][self.rng.gen_range(0..5)])
                } else {
                    self.no_i128 = true;
                    let e = self.aggregate(1);
                    self.no_i128 = false;
                    e
                };
                Ty::Array(len, Box::new(e))
            }
            _ => self.aggregate(0),
        }
    }

    /// A GEP index path from the start of `t` to a scalar leaf, and the leaf.
    fn leaf_path(&mut self, t: &Ty) -> (Vec<String>, &'static str) {
        match t {
            Ty::Scalar(s) => (Vec::new(), s),
            Ty::Vector(_) => (Vec::new(), "vector"),
            Ty::Array(n, e) => {
                let i = self.rng.gen_range(0..*n);
                let e = (**e).clone();
                let (mut rest, leaf) = self.leaf_path(&e);
                rest.insert(0, format!("i64 {i}"));
                (rest, leaf)
            }
            Ty::Struct(s) => {
                let fields = self.structs[*s].1.clone();
                let i = self.rng.gen_range(0..fields.len());
                let (mut rest, leaf) = self.leaf_path(&fields[i]);
                rest.insert(0, format!("i32 {i}"));
                (rest, leaf)
            }
        }
    }

    fn fresh(&mut self) -> usize {
        self.next += 1;
        self.next
    }

    /// One load of a scalar leaf of byval parameter `%name` of type `t`, stored volatile.
    fn byval_load(&mut self, name: &str, t: &Ty) {
        for _ in 0..8 {
            let (path, leaf) = self.leaf_path(t);
            if leaf == "vector" || leaf == "i128" {
                continue;
            }
            let n = self.fresh();
            let tt = self.text(t);
            let mut idx = String::from("i32 0");
            for p in &path {
                idx.push_str(", ");
                idx.push_str(p);
            }
            let _ = writeln!(
                self.body,
                "  %p{n} = getelementptr {tt}, ptr %{name}, {idx}"
            );
            let _ = writeln!(self.body, "  %v{n} = load {leaf}, ptr %p{n}");
            let _ = writeln!(self.body, "  store volatile {leaf} %v{n}, ptr @g");
            return;
        }
    }

    fn params(&mut self, list: &[Ty], byval: &[bool]) -> String {
        list.iter()
            .enumerate()
            .map(|(i, t)| {
                let tt = self.text(t);
                if byval[i] {
                    format!("ptr byval({tt}) %a{i}")
                } else {
                    format!("{tt} %a{i}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A device function or kernel that uses every parameter fully.
    pub fn function(&mut self, kernel: bool, local: bool, escape: bool) -> String {
        self.functions += 1;
        let id = self.fresh();
        let name = if kernel {
            format!("k{id}")
        } else {
            format!("d{id}")
        };
        let n = self.rng.gen_range(1..=5);
        let mut tys = Vec::new();
        let mut byval = Vec::new();
        for _ in 0..n {
            let b = self.rng.gen_bool(0.25);
            let t = if b { self.aggregate(0) } else { self.any() };
            tys.push(t);
            byval.push(b);
        }
        if escape {
            // The escaping parameter is the first byval one.
            let first = byval.iter().position(|&b| b).unwrap_or(0);
            self.no_bf16 = true;
            tys[first] = self.aggregate(0);
            self.no_bf16 = false;
            byval[first] = true;
        }
        let ret = if kernel || self.rng.gen_bool(0.3) {
            None
        } else {
            Some(self.any())
        };
        let params = self.params(&tys, &byval);
        let rt = ret.as_ref().map_or("void".to_string(), |t| self.text(t));
        let linkage = if local { "internal " } else { "" };
        let cc = if kernel { "ptx_kernel " } else { "" };
        self.body.clear();
        let mut escaped = false;
        for (i, t) in tys.iter().enumerate() {
            if byval[i] {
                for _ in 0..self.rng.gen_range(1..=3) {
                    self.byval_load(&format!("a{i}"), &t.clone());
                }
                if escape && !escaped {
                    let _ = writeln!(self.body, "  call void @sink(ptr %a{i})");
                    escaped = true;
                }
            } else {
                let tt = self.text(t);
                let _ = writeln!(self.body, "  store volatile {tt} %a{i}, ptr @g");
            }
        }
        let mut out = format!("define {linkage}{cc}{rt} @{name}({params}) {{\n");
        out.push_str(&self.body);
        match &ret {
            None => out.push_str("  ret void\n}\n\n"),
            Some(t) => {
                let tt = self.text(t);
                let _ = write!(
                    out,
                    "  %r = load volatile {tt}, ptr @g\n  ret {tt} %r\n}}\n\n"
                );
            }
        }
        if !kernel {
            let with_byval: Vec<Ty> = tys.clone();
            if byval.iter().any(|&b| b) {
                // Called with byval arguments from a global.
                self.devices.push((
                    name,
                    ret,
                    with_byval
                        .into_iter()
                        .zip(byval)
                        .map(|(t, b)| if b { Ty::Array(0, Box::new(t)) } else { t })
                        .collect(),
                ));
            } else {
                self.devices.push((name, ret, with_byval));
            }
        }
        out
    }

    pub fn extern_decl(&mut self) -> String {
        let id = self.fresh();
        let name = format!("e{id}");
        let n = self.rng.gen_range(0..=4);
        let tys: Vec<Ty> = (0..n).map(|_| self.any()).collect();
        let ret = if self.rng.gen_bool(0.3) {
            None
        } else {
            Some(self.any())
        };
        let params = tys
            .iter()
            .map(|t| self.text(t))
            .collect::<Vec<_>>()
            .join(", ");
        let rt = ret.as_ref().map_or("void".to_string(), |t| self.text(t));
        self.externs.push((name.clone(), ret, tys));
        format!("declare {rt} @{name}({params})\n\n")
    }

    fn call_args(&mut self, tys: &[Ty], out: &mut String) -> Vec<String> {
        let mut args = Vec::new();
        for t in tys {
            if let Ty::Array(0, inner) = t {
                // A byval argument, copied from a global.
                let tt = self.text(inner);
                args.push(format!("ptr byval({tt}) @g"));
                continue;
            }
            let tt = self.text(t);
            let n = self.fresh();
            let _ = writeln!(out, "  %c{n} = load volatile {tt}, ptr @g");
            args.push(format!("{tt} %c{n}"));
        }
        args
    }

    /// A kernel calling `count` device functions and declarations, some through a pointer,
    /// and a variadic function.
    pub fn caller(&mut self, count: usize) -> String {
        self.functions += 1;
        let id = self.fresh();
        let mut out = format!("define ptx_kernel void @c{id}(ptr %fp) {{\n");
        for _ in 0..count {
            let pool_len = self.devices.len() + self.externs.len();
            if pool_len == 0 {
                break;
            }
            let pick = self.rng.gen_range(0..pool_len);
            let (name, ret, tys) = if pick < self.devices.len() {
                self.devices[pick].clone()
            } else {
                self.externs[pick - self.devices.len()].clone()
            };
            let args = self.call_args(&tys, &mut out).join(", ");
            let indirect =
                self.rng.gen_bool(0.2) && !tys.iter().any(|t| matches!(t, Ty::Array(0, _)));
            let callee = if indirect {
                "%fp".to_string()
            } else {
                format!("@{name}")
            };
            self.calls += 1;
            match ret {
                None => {
                    let _ = writeln!(out, "  call void {callee}({args})");
                }
                Some(t) => {
                    let tt = self.text(&t);
                    let n = self.fresh();
                    let _ = writeln!(out, "  %r{n} = call {tt} {callee}({args})");
                    let _ = writeln!(out, "  store volatile {tt} %r{n}, ptr @g");
                }
            }
        }
        // A variadic call.
        let vt: Vec<Ty> = (0..self.rng.gen_range(0..4)).map(|_| self.any()).collect();
        let vargs = self.call_args(&vt, &mut out);
        let mut all = vec!["ptr @g".to_string()];
        all.extend(vargs);
        self.calls += 1;
        let n = self.fresh();
        let _ = writeln!(
            out,
            "  %r{n} = call i32 (ptr, ...) @vf(ptr @g{})",
            if all.len() > 1 {
                format!(", {}", all[1..].join(", "))
            } else {
                String::new()
            }
        );
        let _ = writeln!(out, "  store volatile i32 %r{n}, ptr @g");
        out.push_str("  ret void\n}\n\n");
        out
    }

    /// A kernel with `count` atomics over operations, types and state spaces.
    pub fn atomics(&mut self, count: usize) -> String {
        self.functions += 1;
        let id = self.fresh();
        let mut out = format!("define ptx_kernel void @x{id}(ptr %kp) {{\n");
        let ints = [
            "xchg",
            "add",
            "sub",
            "and",
            "nand",
            "or",
            "xor",
            "max",
            "min",
            "umax",
            "umin",
            "uinc_wrap",
            "udec_wrap",
            "cmpxchg",
        ];
        let fps = ["xchg", "fadd", "fsub", "fmax", "fmin"];
        for _ in 0..count {
            let ty = [
                "i8",
                "i16",
                "i32",
                "i64",
                "half",
                "bfloat",
                "float",
                "double",
                "<2 x half>",
                "<2 x float>",
            ][self.rng.gen_range(0..10)];
            let op = if ty.starts_with('i') {
                ints[self.rng.gen_range(0..ints.len())]
            } else if ty.starts_with('<') {
                "fadd"
            } else {
                fps[self.rng.gen_range(0..fps.len())]
            };
            let (ptr, pty) = match self.rng.gen_range(0..5) {
                0 => ("@g1".to_string(), "ptr addrspace(1)"),
                1 => ("@g3".to_string(), "ptr addrspace(3)"),
                2 => ("%kp".to_string(), "ptr"),
                3 => ("@g".to_string(), "ptr"),
                _ => {
                    let n = self.fresh();
                    let _ = writeln!(out, "  %q{n} = load volatile ptr, ptr @g");
                    (format!("%q{n}"), "ptr")
                }
            };
            let n = self.fresh();
            let _ = writeln!(out, "  %v{n} = load volatile {ty}, ptr @g");
            self.atomics += 1;
            if op == "cmpxchg" {
                let _ = writeln!(out, "  %w{n} = load volatile {ty}, ptr @g");
                let _ = writeln!(
                    out,
                    "  %a{n} = cmpxchg {pty} {ptr}, {ty} %v{n}, {ty} %w{n} monotonic monotonic"
                );
                let _ = writeln!(out, "  %e{n} = extractvalue {{ {ty}, i1 }} %a{n}, 0");
                let _ = writeln!(out, "  store volatile {ty} %e{n}, ptr @g");
            } else {
                let _ = writeln!(
                    out,
                    "  %a{n} = atomicrmw {op} {pty} {ptr}, {ty} %v{n} monotonic"
                );
                let _ = writeln!(out, "  store volatile {ty} %a{n}, ptr @g");
            }
        }
        out.push_str("  ret void\n}\n\n");
        out
    }

    /// The struct type definitions used so far.
    pub fn type_defs(&self) -> String {
        let mut out = String::new();
        for (i, (packed, fields)) in self.structs.iter().enumerate() {
            let list = fields
                .iter()
                .map(|f| self.text(f))
                .collect::<Vec<_>>()
                .join(", ");
            if *packed {
                let _ = writeln!(out, "%s{i} = type <{{ {list} }}>");
            } else {
                let _ = writeln!(out, "%s{i} = type {{ {list} }}");
            }
        }
        out
    }
}

/// A whole module: device functions (some local), kernels (some with escaping byval
/// parameters), declarations, callers and atomics.
pub fn module(seed: u64) -> (String, Gen) {
    let mut g = Gen::new(seed);
    let mut body = String::new();
    body.push_str("declare i32 @vf(ptr, ...)\n\n");
    for i in 0..14 {
        let local = i % 4 == 3;
        let text = g.function(false, local, i % 7 == 5);
        body.push_str(&text);
    }
    for _ in 0..5 {
        let text = g.extern_decl();
        body.push_str(&text);
    }
    for i in 0..10 {
        let text = g.function(true, false, i % 3 == 1);
        body.push_str(&text);
    }
    for _ in 0..3 {
        let text = g.caller(9);
        body.push_str(&text);
    }
    let text = g.atomics(30);
    body.push_str(&text);
    let module = format!("{HEADER}{}\n{body}", g.type_defs());
    (module, g)
}

impl Gen {
    /// A random path from `t` to a scalar leaf: each step's index and the type it selects.
    fn steps(&mut self, t: &Ty) -> Option<Vec<(String, Ty)>> {
        let mut out = Vec::new();
        let mut cur = t.clone();
        loop {
            let next = match &cur {
                Ty::Scalar("i128") => return None,
                Ty::Scalar(_) => return Some(out),
                Ty::Vector(_) => return None,
                Ty::Array(n, e) => {
                    let i = self.rng.gen_range(0..*n);
                    (format!("i64 {i}"), (**e).clone())
                }
                Ty::Struct(s) => {
                    let fields = self.structs[*s].1.clone();
                    let i = self.rng.gen_range(0..fields.len());
                    (format!("i32 {i}"), fields[i].clone())
                }
            };
            cur = next.1.clone();
            out.push(next);
        }
    }

    /// A kernel reading its byval struct parameters through GEP chains (one step, two steps,
    /// a run-time array index), maybe passing one's address to a call.
    pub fn struct_args_kernel(&mut self, escape: bool) -> String {
        let id = self.fresh();
        let n = self.rng.gen_range(1..=3);
        let tys: Vec<Ty> = (0..n)
            .map(|i| {
                self.no_bf16 = escape && i == 0;
                let t = self.aggregate(0);
                self.no_bf16 = false;
                t
            })
            .collect();
        let params: Vec<String> = tys
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let align = [None, Some(4), Some(8), Some(16)][self.rng.gen_range(0..4)];
                let tt = self.text(t);
                match align {
                    Some(a) => format!("ptr byval({tt}) align {a} %s{i}"),
                    None => format!("ptr byval({tt}) %s{i}"),
                }
            })
            .collect();
        let mut out = format!(
            "define ptx_kernel void @sa{id}({}, i32 %i) {{\nentry:\n",
            params.join(", ")
        );
        for (p, t) in tys.iter().enumerate() {
            let loads = self.rng.gen_range(1..=4);
            for _ in 0..loads {
                let Some(steps) = self.steps(t) else { continue };
                let leaf = match steps.last() {
                    Some((_, Ty::Scalar(s))) => *s,
                    _ => continue,
                };
                let n = self.fresh();
                let tt = self.text(t);
                let form = self.rng.gen_range(0..3);
                let dynamic = steps.iter().position(|(s, _)| s.starts_with("i64"));
                if form == 2 && dynamic.is_some() {
                    let d = dynamic.unwrap_or(0);
                    let idx: Vec<String> = steps
                        .iter()
                        .enumerate()
                        .map(|(k, (s, _))| {
                            if k == d {
                                "i32 %i".to_string()
                            } else {
                                s.clone()
                            }
                        })
                        .collect();
                    let _ = writeln!(
                        out,
                        "  %p{n} = getelementptr inbounds {tt}, ptr %s{p}, i32 0, {}",
                        idx.join(", ")
                    );
                } else if form >= 1 && steps.len() >= 2 {
                    let cut = self.rng.gen_range(1..steps.len());
                    let head: Vec<&str> = steps[..cut].iter().map(|(s, _)| s.as_str()).collect();
                    let mid = self.text(&steps[cut - 1].1);
                    let tail: Vec<&str> = steps[cut..].iter().map(|(s, _)| s.as_str()).collect();
                    let _ = writeln!(
                        out,
                        "  %q{n} = getelementptr inbounds {tt}, ptr %s{p}, i32 0, {}",
                        head.join(", ")
                    );
                    let _ = writeln!(
                        out,
                        "  %p{n} = getelementptr inbounds {mid}, ptr %q{n}, i32 0, {}",
                        tail.join(", ")
                    );
                } else {
                    let idx: Vec<&str> = steps.iter().map(|(s, _)| s.as_str()).collect();
                    let _ = writeln!(
                        out,
                        "  %p{n} = getelementptr {tt}, ptr %s{p}, i32 0, {}",
                        idx.join(", ")
                    );
                }
                let _ = writeln!(out, "  %v{n} = load {leaf}, ptr %p{n}");
                let _ = writeln!(out, "  store volatile {leaf} %v{n}, ptr @g");
            }
        }
        if escape {
            let _ = writeln!(out, "  call void @sink(ptr %s0)");
        }
        out.push_str("  ret void\n}\n\n");
        out
    }
}

/// Kernels for the struct-args oracle; returns the module and the escaping kernels' names.
pub fn struct_args_module(seed: u64, kernels: usize) -> (String, Vec<String>) {
    let mut g = Gen::new(seed);
    let mut body = String::new();
    let mut escaping = Vec::new();
    for i in 0..kernels {
        let escape = i % 4 == 3;
        let text = g.struct_args_kernel(escape);
        if escape {
            let name = text["define ptx_kernel void @".len()..]
                .split('(')
                .next()
                .unwrap_or("")
                .to_string();
            escaping.push(name);
        }
        body.push_str(&text);
    }
    (format!("{HEADER}{}\n{body}", g.type_defs()), escaping)
}
