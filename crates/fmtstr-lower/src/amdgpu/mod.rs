//! AMD back ends: LLPC's `lgc.debug.printf` ([`lgc`]) and the printf-buffer protocol
//! ([`buffer`]).
//!
//! What both share lives here: which arguments the AMD protocol can carry and how
//! (`carry`), and where a function gets its printf buffer (`BufferSource`).
//!
//! The buffer, for a `printf` call, is obtained once per function, in the entry block:
//!
//! - in address space 7 (a buffer fat pointer, the default) from LGC's descriptor load, declared
//!   as `declare ptr addrspace(7) @lgc.load.buffer.desc(i64 set, i32 binding, i32 index, i32
//!   flags)` and called with LLPC's internal descriptor set 0xFFFFFFF0, the printf buffer's
//!   binding 6, index 0 and flags 2 (`BufferFlagWritten`):
//!   `%printfBuffer = call ptr addrspace(7) @lgc.load.buffer.desc(i64 4294967280, i32 6, i32 0, i32 2)`;
//! - in any other address space N (`--buffer-addrspace 1`: a plain global pointer, for NVIDIA
//!   GPUs or the host) from `declare ptr addrspace(N) @__fmtstr_printf_buffer()`, which the
//!   runtime defines (for instance as a load of a `__device__` variable the host sets).
//!
//! An `lgc.debug.printf` call of the older form brings its own buffer operand, which is used
//! as it is (a `poison` or `undef` one means printf is disabled: the call goes, as in LLPC);
//! today's form has none and gets the function's buffer as `printf` does.

pub mod buffer;
pub mod inline;
pub mod lgc;

use fmtstr_format::ArgClass;
use fmtstr_ir::{Builder, EditError, FuncId, Module, Opcode, Operand, Position, Type, TypeId};
use fmtstr_meta::{FormatId, Table};

use crate::diag::Diagnostic;
use crate::model::{Argument, Callee, Extend, PrintfCall};
use crate::promote::{int_promotion, Promotion};

/// Which form the AMD back end produces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stage {
    /// `lgc.debug.printf` calls, for LLPC's pipeline to lower later.
    #[default]
    Lgc,
    /// The printf-buffer protocol itself, with `amdpal.format_strings` in the PAL metadata.
    Buffer,
}

/// Which form of `lgc.debug.printf` [`Stage::Lgc`] writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LgcForm {
    /// `call void (...) @lgc.debug.printf(ptr @fmt, args...)`: today's LLPC (since mid 2024),
    /// which fetches the buffer from the descriptor itself; the format a NUL-terminated
    /// `[n x i8]` constant.
    #[default]
    FormatFirst,
    /// `(ptr addrspace(7) %buf, ptr addrspace(4) @fmt, args...)`: LLPC before mid 2024 (seed
    /// 004), with the buffer from the function's entry block.
    BufferFirst,
}

/// What the AMD back end is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Settings {
    pub stage: Stage,
    pub buffer_addrspace: u32,
    pub lgc_form: LgcForm,
    pub user_data_offset: Option<u64>,
    /// Each format entry lists its call sites under [`fmtstr_meta::SITES_KEY`] (`--prefix site`).
    pub sites: bool,
    /// `%s` of a string computed at run time travels as its first N bytes ([`inline`]).
    pub runtime_strings: Option<u32>,
}

pub use crate::model::FAT_POINTER_ADDRSPACE;
/// Address space 4: AMDGPU's constant memory, where format strings live.
pub const CONSTANT_ADDRSPACE: u32 = 4;
/// LLPC's `InternalDescriptorSetId`.
pub const DESCRIPTOR_SET: i64 = 0xFFFF_FFF0;
/// LLPC's `PrintfBufferBindingId`.
pub const BINDING: i64 = 6;
/// LGC's `BufferFlagWritten`.
pub const BUFFER_FLAG_WRITTEN: i64 = 2;
/// LGC's buffer descriptor load.
pub const DESCRIPTOR_LOAD: &str = "lgc.load.buffer.desc";
/// The function that returns the buffer in address spaces other than 7.
pub const BUFFER_GETTER: &str = "__fmtstr_printf_buffer";
/// The name of a function's buffer.
pub const BUFFER_NAME: &str = "printfBuffer";

/// How one argument travels through the AMD protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Carry {
    /// The conversion to apply first.
    pub cast: Cast,
    /// The scalar type (of each component, for a vector) after the conversion.
    pub elem: TypeId,
    /// The vector length, for a vector.
    pub len: Option<u32>,
    /// Payload dwords.
    pub dwords: u32,
    /// Whether its bit in the 64-bit mask is set.
    pub wide: bool,
}

/// A conversion of an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cast {
    None,
    SExt,
    ZExt,
    /// `fpext` to `float`.
    FpExt,
    /// `ptrtoint` to an integer of the pointer's size.
    PtrToInt,
    /// A `%s` argument that is a constant string: the value stored is the string's 48-bit ID
    /// (an `i64` constant); the string is an entry of the table of its own.
    Interned(FormatId),
    /// A `%s` argument whose bytes, at most this many, are copied into the entry by a loop
    /// ([`inline`]); nothing is stored for it in the straight-line part.
    Inline(u32),
}

impl Carry {
    fn scalar(cast: Cast, elem: TypeId, dwords: u32) -> Carry {
        Carry {
            cast,
            elem,
            len: None,
            dwords,
            wide: dwords == 2,
        }
    }

    /// Emits the conversion; returns the value to store.
    pub fn emit(&self, b: &mut Builder<'_>, value: Operand) -> Result<Operand, EditError> {
        let to = match self.len {
            Some(len) => b.types_mut().vector(len, self.elem),
            None => self.elem,
        };
        let (opcode, hint) = match self.cast {
            Cast::None => return Ok(value),
            Cast::SExt => (Opcode::SExt, "sext"),
            Cast::ZExt => (Opcode::ZExt, "zext"),
            Cast::FpExt => (Opcode::FPExt, "fpext"),
            Cast::PtrToInt => (Opcode::PtrToInt, "ptrtoint"),
            Cast::Interned(id) => return Ok(b.const_int(TypeId::I64, id.get() as i64)),
            Cast::Inline(_) => return Ok(value),
        };
        b.cast(opcode, value, to, hint)
    }
}

/// How `arg` travels at `stage`, or why it cannot (a message).
///
/// - `%s` cannot: the buffer carries dwords, not the characters a pointer points at.
/// - Integers of up to 64 bits: a `printf` argument narrower than 32 bits is promoted as C does
///   (`sext`/`zext` by its conversion, [`crate::promote`]); an `lgc.debug.printf` argument is
///   zero-extended, as the protocol says. 33 to 64 bits travel as 64 (two dwords, mask bit).
/// - `half` (and `bfloat`) widen to `float` in the buffer; `float` is one dword; `double` two
///   (mask bit). `float` is not promoted to `double`: the mask tells the decoder the width.
/// - A pointer travels as its address (`ptrtoint`), 64 bits wide for 64-bit pointers.
/// - A vector travels as all its components in order (LLPC writes only the first), narrow
///   integer components zero-extended; its mask bit is set when its components are 64 bits.
///
/// At [`Stage::Lgc`] values stay as `lgc.debug.printf` accepts them (i8-i64, half, float,
/// double, vectors of them): only C's integer promotion of scalars and `ptrtoint` apply.
pub(crate) fn carry(
    module: &Module,
    call: &PrintfCall,
    arg: &Argument,
    stage: Stage,
    inline: Option<u32>,
) -> Result<Carry, String> {
    if arg.class == Some(ArgClass::String) && stage == Stage::Buffer {
        if let Some(bytes) = inline {
            return Ok(Carry {
                cast: Cast::Inline(bytes),
                elem: TypeId::I32,
                len: None,
                dwords: inline::slot_dwords(bytes),
                wide: false,
            });
        }
        return match module.c_string_at(arg.operand) {
            Some(bytes) => Ok(Carry::scalar(
                Cast::Interned(FormatId::of(&bytes)),
                TypeId::I64,
                2,
            )),
            None => Err(
                "`%s` of a string computed at run time cannot travel through the AMD printf \
                 buffer without a copy of its bytes: give --runtime-strings N to copy its first \
                 N bytes into the entry, or pass a string literal (interned as a table entry \
                 of its own)"
                    .to_owned(),
            ),
        };
    }
    if arg.class == Some(ArgClass::String) {
        return Err(
            "`%s` cannot travel through the AMD printf buffer, which carries dwords, \
                    not the characters a pointer points at: print them with %c, or drop the \
                    conversion"
                .to_owned(),
        );
    }
    let types = module.types();
    let ty = arg.operand.ty;
    let unsupported = || {
        format!(
            "has type {}, which the AMD printf protocol cannot carry (it takes integers of up \
             to 64 bits, half, float, double, pointers and vectors of them)",
            types.display(ty)
        )
    };
    let lgc_source = matches!(call.callee, Callee::LgcDebugPrintf { .. });
    let widen = |bits: u32| -> Cast {
        if lgc_source {
            return Cast::ZExt;
        }
        match int_promotion(module, arg) {
            Promotion::Int(Extend::Sign, _) => Cast::SExt,
            _ => Cast::ZExt,
        }
        .min_for(bits)
    };
    let carry = match types.get(ty) {
        Type::Int { bits: 32 } => Carry::scalar(Cast::None, TypeId::I32, 1),
        Type::Int { bits: 64 } => Carry::scalar(Cast::None, TypeId::I64, 2),
        Type::Int { bits } if bits < 32 => Carry::scalar(widen(bits), TypeId::I32, 1),
        Type::Int { bits } if bits < 64 => Carry::scalar(widen(bits), TypeId::I64, 2),
        Type::Half if stage == Stage::Lgc => Carry::scalar(Cast::None, ty, 1),
        Type::Half | Type::BFloat => Carry::scalar(Cast::FpExt, TypeId::FLOAT, 1),
        Type::Float => Carry::scalar(Cast::None, ty, 1),
        Type::Double => Carry::scalar(Cast::None, ty, 2),
        Type::Ptr { addrspace } => match module.data_layout().pointer(addrspace).size_bits {
            64 => Carry::scalar(Cast::PtrToInt, TypeId::I64, 2),
            32 => Carry::scalar(Cast::PtrToInt, TypeId::I32, 1),
            _ => return Err(unsupported()),
        },
        Type::Vector {
            len,
            elem,
            scalable: false,
        } => {
            let (cast, elem_to, dwords) = match types.get(elem) {
                Type::Int { bits } if stage == Stage::Lgc && matches!(bits, 8 | 16 | 32 | 64) => {
                    (Cast::None, elem, bits.div_ceil(32))
                }
                Type::Int { bits: 32 } => (Cast::None, elem, 1),
                Type::Int { bits: 64 } => (Cast::None, elem, 2),
                Type::Int { bits } if bits < 32 => (Cast::ZExt, TypeId::I32, 1),
                Type::Int { bits } if bits < 64 => (Cast::ZExt, TypeId::I64, 2),
                Type::Half if stage == Stage::Lgc => (Cast::None, elem, 1),
                Type::Half | Type::BFloat => (Cast::FpExt, TypeId::FLOAT, 1),
                Type::Float => (Cast::None, elem, 1),
                Type::Double => (Cast::None, elem, 2),
                _ => return Err(unsupported()),
            };
            Carry {
                cast,
                elem: elem_to,
                len: Some(len),
                dwords: dwords * len,
                wide: dwords == 2,
            }
        }
        _ => return Err(unsupported()),
    };
    Ok(carry)
}

impl Cast {
    /// `i1` is a `bool`: it always zero-extends.
    fn min_for(self, bits: u32) -> Cast {
        if bits == 1 {
            Cast::ZExt
        } else {
            self
        }
    }
}

/// Which `%s` arguments travel as copies of their bytes ([`inline`]): with `--runtime-strings
/// N`, every `%s` argument position of a format (by its bytes) that some call fills with a
/// string computed at run time, so that all entries of one format share one layout (a literal
/// in such a position is copied too).
#[derive(Debug, Default)]
pub(crate) struct StringCopies {
    bytes: u32,
    positions: std::collections::HashSet<(std::sync::Arc<[u8]>, usize)>,
}

impl StringCopies {
    pub fn find(module: &Module, calls: &[PrintfCall], runtime_strings: Option<u32>) -> Self {
        let Some(bytes) = runtime_strings else {
            return StringCopies::default();
        };
        let mut positions = std::collections::HashSet::new();
        for call in calls {
            for (index, arg) in call.args.iter().enumerate() {
                if arg.class == Some(ArgClass::String) && module.c_string_at(arg.operand).is_none()
                {
                    positions.insert((call.format.bytes.clone(), index));
                }
            }
        }
        StringCopies { bytes, positions }
    }

    /// The bytes reserved for argument `index` of `call`, when it is copied.
    pub fn of(&self, call: &PrintfCall, index: usize) -> Option<u32> {
        // Most modules have none: no key is built then.
        if self.positions.is_empty() {
            return None;
        }
        self.positions
            .contains(&(call.format.bytes.clone(), index))
            .then_some(self.bytes)
    }
}

/// What a planned AMD lowering holds.
#[derive(Debug)]
pub(crate) enum Plan {
    Lgc(lgc::Plan),
    Buffer(buffer::Plan),
}

/// Checks the calls for `stage`; errors and warnings go to `diagnostics`.
pub(crate) fn plan(
    module: &Module,
    calls: &[PrintfCall],
    settings: &Settings,
    diagnostics: &mut Vec<Diagnostic>,
) -> Plan {
    match settings.stage {
        Stage::Lgc => Plan::Lgc(lgc::plan(module, calls, settings, diagnostics)),
        Stage::Buffer => Plan::Buffer(buffer::plan(module, calls, settings, diagnostics)),
    }
}

/// Rewrites the calls as planned; returns the format-string table for [`Stage::Buffer`].
pub(crate) fn apply(
    module: &mut Module,
    calls: &[PrintfCall],
    plan: Plan,
) -> Result<Option<Table<'static>>, EditError> {
    match plan {
        Plan::Lgc(plan) => lgc::apply(module, calls, plan).map(|()| None),
        Plan::Buffer(plan) => buffer::apply(module, calls, plan).map(Some),
    }
}

/// Where the functions of a module get their printf buffer from.
#[derive(Debug)]
pub(crate) struct BufferSource {
    addrspace: u32,
    function: Option<FuncId>,
    /// The buffer of each function done so far.
    buffers: std::collections::HashMap<FuncId, Operand>,
}

impl BufferSource {
    pub fn new(addrspace: u32) -> BufferSource {
        BufferSource {
            addrspace,
            function: None,
            buffers: Default::default(),
        }
    }

    /// The declaration the buffer comes from, as (name, return type, parameter types).
    pub fn declaration(addrspace: u32) -> (&'static str, Vec<TypeId>) {
        if addrspace == FAT_POINTER_ADDRSPACE {
            (
                DESCRIPTOR_LOAD,
                vec![TypeId::I64, TypeId::I32, TypeId::I32, TypeId::I32],
            )
        } else {
            (BUFFER_GETTER, Vec::new())
        }
    }

    /// Whether the module already has the source's name with another type: a message then.
    pub fn check(module: &Module, addrspace: u32) -> Option<String> {
        let (name, params) = Self::declaration(addrspace);
        let f = module.function_by_name(name)?;
        let (ret, have, vararg) = module
            .types()
            .function_parts(module.function(f).function_type())?;
        let ok = !vararg
            && have == params.as_slice()
            && module.types().ptr_addrspace(ret) == Some(addrspace);
        (!ok).then(|| {
            format!(
                "the module declares @{name} with type {}, but the printf buffer needs it to \
                 return ptr addrspace({addrspace}) from ({})",
                module.types().display(module.function(f).function_type()),
                params
                    .iter()
                    .map(|t| module.types().display(*t).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    }

    /// The buffer of `function`, made in its entry block on the first request.
    pub fn get(&mut self, module: &mut Module, function: FuncId) -> Result<Operand, EditError> {
        if let Some(&buffer) = self.buffers.get(&function) {
            return Ok(buffer);
        }
        let (name, params) = Self::declaration(self.addrspace);
        let callee = match self.function {
            Some(f) => f,
            None => {
                let ret = module.types_mut().ptr(self.addrspace);
                let ty = module.types_mut().function(ret, &params, false);
                let f = module.declare_function(name, ty)?;
                self.function = Some(f);
                f
            }
        };
        let args: Vec<Operand> = if self.addrspace == FAT_POINTER_ADDRSPACE {
            vec![
                module.const_int(TypeId::I64, DESCRIPTOR_SET),
                module.const_int(TypeId::I32, BINDING),
                module.const_int(TypeId::I32, 0),
                module.const_int(TypeId::I32, BUFFER_FLAG_WRITTEN),
            ]
        } else {
            Vec::new()
        };
        let with_attrs: Vec<(Operand, &[fmtstr_ir::Attr])> =
            args.iter().map(|a| (*a, &[][..])).collect();
        let inst = module.builder(Position::EntryAllocas(function))?.call(
            callee,
            &with_attrs,
            BUFFER_NAME,
        )?;
        let buffer = module
            .inst(inst)
            .result()
            .ok_or_else(|| EditError::Invalid("the buffer call has no result".into()))?;
        self.buffers.insert(function, buffer);
        Ok(buffer)
    }
}
