//! Atomics: the PTX instruction llc 19 selects for each `atomicrmw` and `cmpxchg`.
//!
//! Input: the operation, the value type, the pointer's state space and the target. Output:
//! the mnemonic (`atom.global.add.u32`), or how the operation is expanded. Measured with
//! `llc-19 -march=nvptx64` on sm_50 to sm_90, every operation on i8, i16, i32, i64, half,
//! bfloat, float and double in the generic, global and shared spaces:
//!
//! - 32/64-bit: `xchg` is `exch.bN`, `add` and `sub` (negated) are `add.uN`, `and`/`or`/`xor`
//!   are `.bN`, `max`/`min` `.sN`, `umax`/`umin` `.uN`; `nand`, `uinc_wrap`, `udec_wrap`
//!   and `cmpxchg` are a `cas.bN` loop (`cmpxchg` is that one `cas`).
//! - 8/16-bit: `and`/`or`/`xor` on the containing word (`and.b32`), everything else a
//!   `cas.b32` loop on the containing word.
//! - float: `xchg` is `exch.b32`, `fadd` `add.f32`; double: `exch.b64`, `add.f64` (sm_60);
//!   half: `fadd` is `add.noftz.f16` (sm_70 with PTX 6.3); bfloat: `add.noftz.bf16` (sm_90);
//!   all other floating operations are `cas` loops on the value's width (32 for half/bfloat).
//! - vectors: a `cas` loop on their width (32 or 64 bits), on every SM; 128 bits a call to
//!   `__atomic_compare_exchange_16`.
//! - `i128`: calls to libatomic: `xchg` `__atomic_exchange_16`, `add`, `sub`, `and`, `or`,
//!   `xor`, `nand` `__atomic_fetch_<op>_16`, everything else (and `cmpxchg`) a loop around
//!   `__atomic_compare_exchange_16`; atomic loads and stores `__atomic_load_16` and
//!   `__atomic_store_16` ([`libcall_signature`]). llc 19 never refuses vector atomics
//!   (`vector atomics not supported on this architecture!`), on any SM.
//! - ordering and `syncscope` change nothing in the instruction.
//!
//! The operations LLVM added since (`usub_cond`, `usub_sat`, `fmaximum`, `fminimum`; measured
//! with llc 22 only, llc 19's IR reader refuses them) are `cas` loops like `nand` and `fsub`.

use super::model::AtomicLowering;
use crate::Config;

/// The element of an atomic's value type, as far as selection cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicType {
    /// `iN` (and pointers, as their width).
    Int(u32),
    /// `half`.
    Half,
    /// `bfloat`.
    BFloat,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// A vector of `bits` bits in total.
    Vector(u32),
}

/// What llc 19 does with one atomic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Native, CAS loop or libcall.
    pub lowering: AtomicLowering,
    /// The `atom` instruction.
    pub mnemonic: Option<String>,
    /// The runtime function called instead.
    pub libcall: Option<&'static str>,
    /// Where the ABI's description says otherwise.
    pub note: Option<String>,
}

fn atom(space: &str, op: &str, ty: &str) -> String {
    if space.is_empty() {
        format!("atom.{op}.{ty}")
    } else {
        format!("atom.{space}.{op}.{ty}")
    }
}

/// The selection for `op` (`xchg`, `add`, ..., or `cmpxchg`) on `ty` in `space` (`global`,
/// `shared`, or empty for generic). `None` when the planner has no measurement for it.
pub fn select(op: &str, ty: AtomicType, space: &str, config: &Config) -> Option<Selection> {
    let native = |op: &str, t: &str| Selection {
        lowering: AtomicLowering::Native,
        mnemonic: Some(atom(space, op, t)),
        libcall: None,
        note: None,
    };
    let cas = |bits: u32| Selection {
        lowering: if op == "cmpxchg" {
            AtomicLowering::Native
        } else {
            AtomicLowering::CasLoop
        },
        mnemonic: Some(atom(space, "cas", &format!("b{bits}"))),
        libcall: None,
        note: None,
    };
    Some(match ty {
        AtomicType::Int(8 | 16) => match op {
            "and" | "or" | "xor" => native(op, "b32"),
            "cmpxchg" => Selection {
                lowering: AtomicLowering::CasLoop,
                ..cas(32)
            },
            "xchg" | "add" | "sub" | "nand" | "max" | "min" | "umax" | "umin" | "uinc_wrap"
            | "udec_wrap" | "usub_cond" | "usub_sat" => cas(32),
            _ => return None,
        },
        AtomicType::Int(bits @ (32 | 64)) => match op {
            "xchg" => native("exch", &format!("b{bits}")),
            "add" | "sub" => native("add", &format!("u{bits}")),
            "and" | "or" | "xor" => native(op, &format!("b{bits}")),
            "max" | "min" => native(op, &format!("s{bits}")),
            "umax" => native("max", &format!("u{bits}")),
            "umin" => native("min", &format!("u{bits}")),
            // llc 22 selects PTX's wrapping increment and decrement (32 bits only).
            "uinc_wrap" if bits == 32 && config.llc == crate::Llc::V22 => native("inc", "u32"),
            "udec_wrap" if bits == 32 && config.llc == crate::Llc::V22 => native("dec", "u32"),
            "nand" | "uinc_wrap" | "udec_wrap" | "usub_cond" | "usub_sat" | "cmpxchg" => cas(bits),
            _ => return None,
        },
        AtomicType::Int(128) => {
            // Wider than any atom: AtomicExpand calls libatomic (measured).
            let libcall = match op {
                "xchg" => "__atomic_exchange_16",
                "add" => "__atomic_fetch_add_16",
                "sub" => "__atomic_fetch_sub_16",
                "and" => "__atomic_fetch_and_16",
                "or" => "__atomic_fetch_or_16",
                "xor" => "__atomic_fetch_xor_16",
                "nand" => "__atomic_fetch_nand_16",
                "cmpxchg" | "max" | "min" | "umax" | "umin" | "uinc_wrap" | "udec_wrap" => {
                    "__atomic_compare_exchange_16"
                }
                _ => return None,
            };
            Selection {
                lowering: AtomicLowering::Libcall,
                mnemonic: None,
                libcall: Some(libcall),
                note: None,
            }
        }
        AtomicType::Int(_) => return None,
        AtomicType::Float => match op {
            "xchg" => native("exch", "b32"),
            "fadd" => native("add", "f32"),
            "fsub" | "fmax" | "fmin" | "fmaximum" | "fminimum" | "cmpxchg" => cas(32),
            _ => return None,
        },
        AtomicType::Double => match op {
            "xchg" => native("exch", "b64"),
            "fadd" if config.sm >= 60 => native("add", "f64"),
            "fadd" | "fsub" | "fmax" | "fmin" | "fmaximum" | "fminimum" | "cmpxchg" => cas(64),
            _ => return None,
        },
        AtomicType::Half => match op {
            "fadd" if config.sm >= 70 && config.ptx_version() >= 63 => native("add.noftz", "f16"),
            "fadd" | "xchg" | "fsub" | "fmax" | "fmin" | "fmaximum" | "fminimum" => cas(32),
            "cmpxchg" => Selection {
                lowering: AtomicLowering::CasLoop,
                ..cas(32)
            },
            _ => return None,
        },
        AtomicType::BFloat => match op {
            "fadd" if config.sm >= 90 && config.ptx_version() >= 78 => native("add.noftz", "bf16"),
            "fadd" | "xchg" | "fsub" | "fmax" | "fmin" | "fmaximum" | "fminimum" => cas(32),
            "cmpxchg" => Selection {
                lowering: AtomicLowering::CasLoop,
                ..cas(32)
            },
            _ => return None,
        },
        AtomicType::Vector(bits) => {
            let note = Some(if config.sm < 90 {
                "llc 19 expands vector atomics on every SM (it does not refuse them below sm_90 with `vector atomics not supported on this architecture!`)".to_string()
            } else {
                "llc 19 expands vector atomics; it has no vector atom instruction".to_string()
            });
            match bits {
                32 | 64 => Selection { note, ..cas(bits) },
                128 => Selection {
                    lowering: AtomicLowering::Libcall,
                    mnemonic: None,
                    libcall: Some("__atomic_compare_exchange_16"),
                    note,
                },
                _ => return None,
            }
        }
    })
}

/// The `atom` instruction of a call to one of NVVM's atomic intrinsics, in `space` (`global`,
/// `shared`, or empty for generic: the pointer operand's address space, which llc does not
/// infer for intrinsic calls). `None` when the name is not one the planner has measured.
///
/// Measured with llc 19 (and LLVM's tests atomics.ll, atomics-sm60.ll, atomics-with-scope.ll):
/// `llvm.nvvm.atomic.load.add.f32` is `atom.add.f32`, `.f64` `atom.add.f64` (sm_60),
/// `load.inc.32`/`load.dec.32` `atom.inc.u32`/`atom.dec.u32`; the scoped
/// `llvm.nvvm.atomic.<op>.gen.<i|f>.<cta|sys>` (sm_60) are `atom.<scope>.<op>.<type>`, with
/// `add` on `i32` written `.s32` and on `i64` `.u64`, `max`/`min` signed, `inc`/`dec`
/// unsigned, and `exch`, `and`, `or`, `xor`, `cas` untyped (`.bN`).
pub fn select_intrinsic(name: &str, space: &str, config: &Config) -> Option<String> {
    let rest = name.strip_prefix("llvm.nvvm.atomic.")?;
    let native = |prefix: &str, op: &str, ty: &str| {
        let space = [prefix, space]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(".");
        Some(atom(&space, op, ty))
    };
    if let Some(load) = rest.strip_prefix("load.") {
        let mut words = load.split('.');
        let op = words.next()?;
        let ty = words.next()?;
        return match (op, ty) {
            ("add", "f32") => native("", "add", "f32"),
            ("add", "f64") if config.sm >= 60 => native("", "add", "f64"),
            ("inc" | "dec", "32") => native("", op, "u32"),
            _ => None,
        };
    }
    // <op>.gen.<i|f>.<scope>.<type>.<pointer>
    let words: Vec<&str> = rest.split('.').collect();
    let [op, "gen", kind, scope, ty, ..] = words[..] else {
        return None;
    };
    if config.sm < 60 || !matches!(scope, "cta" | "sys") {
        return None;
    }
    let ty = match (op, kind, ty) {
        ("add", "f", "f32" | "f64") => ty.to_string(),
        ("add", "i", "i32") => "s32".into(),
        ("add", "i", "i64") => "u64".into(),
        ("max" | "min", "i", "i32" | "i64") => format!("s{}", &ty[1..]),
        ("inc" | "dec", "i", "i32") => "u32".into(),
        ("exch" | "and" | "or" | "xor" | "cas", "i", "i32" | "i64") => format!("b{}", &ty[1..]),
        _ => return None,
    };
    native(scope, op, &ty)
}

/// How a libatomic argument or result moves through `.param` space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LibcallValue {
    /// A pointer: `.b64`.
    Pointer,
    /// A 16-byte value: `.align 16 .b8 [16]`, moved as one `v2.b64`.
    Wide,
    /// An `int` memory order, or the `bool` result: `.b32`.
    Int,
}

/// The parameters and result of a libatomic function llc 19 calls (its declaration is
/// emitted as `.extern .func`).
pub fn libcall_signature(name: &str) -> (Vec<LibcallValue>, Option<LibcallValue>) {
    use LibcallValue::{Int, Pointer, Wide};
    match name {
        "__atomic_compare_exchange_16" => (vec![Pointer, Pointer, Wide, Int, Int], Some(Int)),
        "__atomic_load_16" => (vec![Pointer, Int], Some(Wide)),
        "__atomic_store_16" => (vec![Pointer, Wide, Int], None),
        _ => (vec![Pointer, Wide, Int], Some(Wide)),
    }
}
