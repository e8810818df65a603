//! Stage buffer: `printf` and `lgc.debug.printf` become the AMD printf-buffer protocol.
//!
//! Input: the modelled calls, `printf` or `lgc.debug.printf` (as LLPC's SPIR-V reader writes
//! them). Output: each call replaced by the stores of one buffer entry, and the module's PAL
//! metadata (`!amdgpu.pal.metadata.msgpack`) holding `amdpal.format_strings` for every format
//! string, merged into the PAL document already there (its other keys keep their bytes).
//!
//! The protocol: the buffer starts with a 16-byte header whose first field is the
//! 64-bit `bufferOffset`, in dwords after the header. An entry of S dwords is
//!
//! ```text
//! %printf.offset = atomicrmw add ptr addrspace(7) %printfBuffer, i64 S monotonic
//! %printf.clamped = call i64 @llvm.umin.i64(i64 %printf.offset, i64 536870912)  ; 1 << 29
//! %printf.dword = trunc i64 %printf.clamped to i32          ; to the pointer's index width
//! %printf.entry = getelementptr i32, ptr addrspace(7) %printfBuffer, i32 %printf.dword
//! ; dword 4 + k of the entry (past the buffer header) for k = 0 .. S-1:
//! store i32 (S | ID << 16) & 0xffffffff, ...    ; the entry header, low dword first
//! store i32 ID >> 16, ...
//! store <payload>, ...                           ; each argument at the next dword, align 4
//! ```
//!
//! - The ID is fmtstr's 48-bit hash of the format string ([`fmtstr_meta::FormatId::of`]); the
//!   table entry has the argument count (a vector counts once) and the 64-bit mask (bit i set
//!   when argument i is 64 bits wide, or its components are). A value of 64 bits is one 8-byte
//!   store at a 4-byte-aligned address: low dword first on these little-endian targets.
//! - How each argument travels: `carry` in the module above. A `%s` of a string literal
//!   travels as the ID of a table entry of its own; one computed at run time is an error, or
//!   with `--runtime-strings N` its first N bytes are copied into the entry ([`super::inline`]).
//! - Two format strings with one ID (a collision), or one string printed with arguments of
//!   different widths (a conflict: the decoder could not read both), are errors; so is a
//!   collision or conflict with the table already in the module.
//! - `--buffer-addrspace N` other than 7 writes through `ptr addrspace(N)`; an
//!   `lgc.debug.printf` buffer operand must then be in that address space.
//! - Both `lgc.debug.printf` forms are read: today's `(ptr @fmt, args...)` gets the function's
//!   buffer as `printf` does; the older `(ptr addrspace(7) %buf, ptr addrspace(4) @fmt, ...)`
//!   writes through its operand, and a `poison` or `undef` one means printf is disabled: the
//!   call is removed and nothing is written for it (LLPC does the same). Formats may lack the
//!   NUL (the older form's `[n x i8]`) and be plain `global`s; a format ends at its first NUL.
//! - The table's `.user_data_offset` is the one asked for (`--user-data-offset`), else the
//!   module's table's, else what LLPC would write from the module's `!lgc.user.data.nodes`
//!   (the offset of the top-level node holding the printf buffer's descriptor: set 0xFFFFFFF0,
//!   binding 6), else 0; asking for another value than the module's table has is an error
//!   naming both.

use std::collections::HashMap;

use fmtstr_elf::Document;
use fmtstr_ir::{EditError, MdInput, Module, Opcode, Operand, Ordering, Position, RmwOp, TypeId};
use fmtstr_meta::{merge, Entry, FormatId, Mask, Relation, Table, INLINE_STRINGS_KEY};

use super::lgc::{prepacked_error, result_warning, retire};
use super::{carry, BufferSource, Carry, Cast, Settings};
use crate::diag::{Diagnostic, Location};
use crate::model::{Callee, Form, PrintfCall};

/// The named metadata holding the PAL metadata document.
pub const PAL_METADATA: &str = "amdgpu.pal.metadata.msgpack";
/// Where `bufferOffset` is clamped, in dwords: 2 GiB.
pub const CLAMP: i64 = 1 << 29;
/// Dwords of the buffer header, before the first entry.
pub const BUFFER_HEADER_DWORDS: i64 = 4;
/// The key fmtstr adds to a table entry that is a `%s` argument's string, not a format: an
/// entry `{.index: ID, .string: S, .argument_count: 0, .64bit_arguments: [0],
/// .fmtstr_interned: true}`. A payload carries such an argument as its 48-bit ID in two dwords
/// (low first, its bit in the 64-bit mask set); `fmtstr decode` prints the entry's string.
/// Other readers see an ordinary format without arguments (LLPC's tables never have the key).
pub const INTERNED_KEY: &str = ".fmtstr_interned";
/// With `--prefix site`, each format entry lists the call sites that print it under this key.
pub use fmtstr_meta::SITES_KEY;

/// Dwords of an entry header.
pub const ENTRY_HEADER_DWORDS: u32 = 2;
/// The largest entry, in dwords (the header's 16-bit size field).
pub const MAX_ENTRY_DWORDS: u32 = 0xFFFF;

/// The planned rewrite.
#[derive(Debug)]
pub(crate) struct Plan {
    buffer_addrspace: u32,
    calls: Vec<CallPlan>,
    /// The table for the module's PAL metadata (earlier entries merged with the new ones).
    table: Table<'static>,
    /// The module's PAL metadata document, if it has one.
    document: Option<Vec<u8>>,
}

#[derive(Debug)]
struct CallPlan {
    carries: Vec<Carry>,
    id: FormatId,
    /// Entry size in dwords, header included.
    size: u32,
    /// An older-form `lgc.debug.printf` with a `poison`/`undef` buffer: only removed.
    disabled: bool,
}

/// Where a call's entry is written through.
fn own_buffer(call: &PrintfCall) -> Option<Operand> {
    match call.callee {
        Callee::LgcDebugPrintf { buffer } => buffer,
        Callee::Printf => None,
    }
}

/// Plans the rewrite of every call: how each argument travels, each entry's ID and size, and
/// the table for the module's PAL metadata. Problems are pushed to `diagnostics` as errors (the
/// plan is then not applied); a call whose format is not UTF-8 gets no plan.
pub(crate) fn plan(
    module: &Module,
    calls: &[PrintfCall],
    settings: &Settings,
    diagnostics: &mut Vec<Diagnostic>,
) -> Plan {
    let buffer_addrspace = settings.buffer_addrspace;
    let mut entries = Entries::new(settings);
    let copies = super::StringCopies::find(module, calls, settings.runtime_strings);
    check_buffer_source(module, calls, buffer_addrspace, diagnostics);
    let planned = calls
        .iter()
        .filter_map(|call| plan_call(module, call, settings, &copies, &mut entries, diagnostics))
        .collect();
    let document = pal_document(module);
    let mut table = entries.into_table();
    if let (Some(bytes), Some(first)) = (&document, calls.first()) {
        table = merge_with_module(module, bytes, table, first, diagnostics);
    }
    table.user_data_offset = table
        .user_data_offset
        .or_else(|| printf_node_offset(module))
        .or(Some(0));
    Plan {
        buffer_addrspace,
        calls: planned,
        table,
        document,
    }
}

/// Calls that write through the function's buffer need its descriptor to be loadable; an error
/// at the first call when it is not.
fn check_buffer_source(
    module: &Module,
    calls: &[PrintfCall],
    buffer_addrspace: u32,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let needs_source = calls.iter().any(|c| own_buffer(c).is_none());
    if let (true, Some(first)) = (needs_source, calls.first()) {
        if let Some(message) = BufferSource::check(module, buffer_addrspace) {
            diagnostics.push(first.location(module).error(message));
        }
    }
}

/// One call's plan, its format's table entry and those of its constant `%s` strings; `None`
/// (after an error) when the format is not UTF-8.
fn plan_call<'c>(
    module: &Module,
    call: &'c PrintfCall,
    settings: &Settings,
    copies: &super::StringCopies,
    entries: &mut Entries<'c>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<CallPlan> {
    if call.callee.is_disabled(module) {
        return Some(CallPlan {
            carries: Vec::new(),
            id: FormatId::of(&call.format.bytes),
            size: 0,
            disabled: true,
        });
    }
    check_call(module, call, settings.buffer_addrspace, diagnostics);
    let carries = carries_of(module, call, copies, diagnostics);
    let size = ENTRY_HEADER_DWORDS + carries.iter().map(|c| c.dwords).sum::<u32>();
    if size > MAX_ENTRY_DWORDS {
        diagnostics.push(call.location(module).error(format!(
            "this call's buffer entry would be {size} dwords; the entry header's 16-bit size \
             field holds at most {MAX_ENTRY_DWORDS}"
        )));
    }
    let Ok(string) = std::str::from_utf8(&call.format.bytes) else {
        diagnostics.push(call.location(module).error(
            "the format string is not UTF-8, and PAL metadata strings (msgpack str) must be",
        ));
        return None;
    };
    let entry = format_entry(string, call, &carries);
    let id = entry.id();
    entries.add_format(module, call, entry, diagnostics);
    entries.add_interned(module, call, &carries, diagnostics);
    Some(CallPlan {
        carries,
        id,
        size,
        disabled: false,
    })
}

/// What a call's form and callee allow: a pre-packed call is an error, a `printf` whose result
/// is used a warning, and an `lgc.debug.printf` buffer in another address space than the one
/// asked for an error.
fn check_call(
    module: &Module,
    call: &PrintfCall,
    buffer_addrspace: u32,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if call.form == Form::PrePacked {
        diagnostics.push(prepacked_error(module, call));
    }
    if call.callee == Callee::Printf {
        diagnostics.extend(result_warning(module, call));
    }
    if let Some(buffer) = own_buffer(call) {
        let addrspace = module.types().ptr_addrspace(buffer.ty);
        if addrspace != Some(buffer_addrspace) {
            diagnostics.push(call.location(module).error(format!(
                "this lgc.debug.printf writes through a {} buffer, but the buffer was asked \
                 to be ptr addrspace({buffer_addrspace}) (--buffer-addrspace)",
                module.types().display(buffer.ty)
            )));
        }
    }
}

/// How each argument of the call travels; an argument that cannot is an error naming it, and
/// is left out.
fn carries_of(
    module: &Module,
    call: &PrintfCall,
    copies: &super::StringCopies,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Carry> {
    let mut carries = Vec::with_capacity(call.args.len());
    for (index, arg) in call.args.iter().enumerate() {
        match carry(
            module,
            call,
            arg,
            super::Stage::Buffer,
            copies.of(call, index),
        ) {
            Ok(c) => carries.push(c),
            Err(message) => diagnostics.push(
                call.location(module)
                    .error(format!("argument {} {message}", index + 1)),
            ),
        }
    }
    carries
}

/// The table entry of a call's format: its argument count and 64-bit mask, and the arguments
/// whose strings are copied into the payload with how many bytes each.
fn format_entry(string: &str, call: &PrintfCall, carries: &[Carry]) -> Entry<'static> {
    let wide = carries
        .iter()
        .enumerate()
        .filter(|(_, c)| c.wide)
        .map(|(i, _)| i);
    let entry = Entry::for_format(
        string.to_owned(),
        call.args.len() as u64,
        Mask::for_arguments(call.args.len(), wide),
    );
    let copied: Vec<rmpv::Value> = carries
        .iter()
        .enumerate()
        .filter_map(|(index, c)| match c.cast {
            Cast::Inline(bytes) => Some(rmpv::Value::Array(vec![
                rmpv::Value::from(index as u64),
                rmpv::Value::from(u64::from(bytes)),
            ])),
            _ => None,
        })
        .collect();
    if copied.is_empty() {
        return entry;
    }
    entry.with_extra(vec![(
        rmpv::Value::from(INLINE_STRINGS_KEY),
        rmpv::Value::Array(copied),
    )])
}

/// The table the calls build, one entry per ID, in the order they were first printed.
struct Entries<'c> {
    table: Table<'static>,
    /// ID -> (index in the table, where it was first printed).
    ids: HashMap<FormatId, (usize, &'c PrintfCall)>,
    /// Entry index -> the sites that print it (with --prefix site).
    sites: HashMap<usize, Vec<String>>,
    /// Whether each format entry lists its call sites (`--prefix site`).
    record_sites: bool,
}

impl<'c> Entries<'c> {
    fn new(settings: &Settings) -> Self {
        let mut table = Table::new();
        table.user_data_offset = settings.user_data_offset;
        Entries {
            table,
            ids: HashMap::new(),
            sites: HashMap::new(),
            record_sites: settings.sites,
        }
    }

    /// Adds a call's format entry, or its site to the identical entry already there; an entry
    /// of the same ID that differs is an error (a collision of strings, or a conflict of
    /// argument widths), with a note of where the first was printed.
    fn add_format(
        &mut self,
        module: &Module,
        call: &'c PrintfCall,
        entry: Entry<'static>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let id = entry.id();
        let table = &mut self.table;
        let site = || crate::prefix::site_of(module, call);
        match self.ids.get(&id) {
            None => {
                if self.record_sites {
                    self.sites.insert(table.entries.len(), vec![site()]);
                }
                self.ids.insert(id, (table.entries.len(), call));
                table.entries.push(entry);
            }
            Some(&(index, first)) => match merge::relation(&table.entries[index], &entry) {
                Relation::Identical => {
                    if let Some(list) = self.sites.get_mut(&index) {
                        list.push(site());
                    }
                }
                Relation::Collision => diagnostics.push(
                    call.location(module)
                        .error(format!(
                            "format strings \"{}\" and \"{}\" have the same 48-bit ID {id:#}: \
                             the decoder could not tell their entries apart",
                            fmtstr_meta::escape::escape(table.entries[index].bytes()),
                            fmtstr_meta::escape::escape(entry.bytes()),
                        ))
                        .with_note(note_first(&first.location(module))),
                ),
                Relation::Conflict => diagnostics.push(
                    call.location(module)
                        .error(format!(
                            "format string \"{}\" is printed with {} (64-bit mask {}) here and \
                             {} (mask {}) before: the decoder could not read both",
                            fmtstr_meta::escape::escape(entry.bytes()),
                            arguments(entry.argument_count()),
                            entry.mask(),
                            arguments(table.entries[index].argument_count()),
                            table.entries[index].mask(),
                        ))
                        .with_note(note_first(&first.location(module))),
                ),
            },
        }
    }

    /// Each constant `%s` string of the call: a table entry of its own, marked as interned. A
    /// string that is not UTF-8, or whose ID is a format's, is an error.
    fn add_interned(
        &mut self,
        module: &Module,
        call: &'c PrintfCall,
        carries: &[Carry],
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        for (arg, c) in call.args.iter().zip(carries) {
            let Cast::Interned(string_id) = c.cast else {
                continue;
            };
            let bytes = module.c_string_at(arg.operand).unwrap_or_default();
            let Ok(string) = String::from_utf8(bytes) else {
                diagnostics.push(call.location(module).error(
                    "a %s string is not UTF-8, and PAL metadata strings (msgpack str) must be",
                ));
                continue;
            };
            let interned = Entry::for_format(string, 0, Mask::for_arguments(0, std::iter::empty()))
                .with_extra(vec![(
                    rmpv::Value::from(INTERNED_KEY),
                    rmpv::Value::Boolean(true),
                )]);
            match self.ids.get(&string_id) {
                None => {
                    self.ids.insert(string_id, (self.table.entries.len(), call));
                    self.table.entries.push(interned);
                }
                Some(&(index, first)) => {
                    if self.table.entries[index].bytes() != interned.bytes() {
                        diagnostics.push(
                            call.location(module)
                                .error(format!(
                                    "the %s string \"{}\" and the format string \"{}\" have \
                                     the same 48-bit ID {string_id:#}: the decoder could not \
                                     tell them apart",
                                    fmtstr_meta::escape::escape(interned.bytes()),
                                    fmtstr_meta::escape::escape(self.table.entries[index].bytes()),
                                ))
                                .with_note(note_first(&first.location(module))),
                        );
                    }
                }
            }
        }
    }

    /// The finished table: each format entry that records its sites gets them under
    /// [`SITES_KEY`].
    fn into_table(self) -> Table<'static> {
        let mut table = self.table;
        for (index, list) in self.sites {
            let entry = table.entries[index].clone();
            let list = list.into_iter().map(rmpv::Value::from).collect();
            let mut extra = entry.extra().to_vec();
            extra.push((rmpv::Value::from(SITES_KEY), rmpv::Value::Array(list)));
            table.entries[index] = entry.with_extra(extra);
        }
        table
    }
}

/// The table merged with the one already in the module's PAL metadata `bytes`. A document that
/// does not parse is an error at the `first` call (the table is kept as it was), and so is each
/// collision, conflict or offset conflict the merge finds.
fn merge_with_module(
    module: &Module,
    bytes: &[u8],
    table: Table<'static>,
    first: &PrintfCall,
    diagnostics: &mut Vec<Diagnostic>,
) -> Table<'static> {
    let document = match Document::parse(bytes) {
        Err(error) => {
            diagnostics.push(first.location(module).error(format!(
                "the module's !{PAL_METADATA} is not a PAL metadata document: {error}"
            )));
            return table;
        }
        Ok(document) => document,
    };
    let Some(existing) = document.format_strings() else {
        return table;
    };
    let merged = merge([existing.clone(), table]);
    for finding in &merged.findings {
        diagnostics.push(
            first
                .location(module)
                .error(finding.describe(&["the module's PAL metadata", "this lowering"])),
        );
    }
    for conflict in &merged.offset_conflicts {
        diagnostics.push(
            first
                .location(module)
                .error(conflict.describe(&["the module's PAL metadata", "--user-data-offset"])),
        );
    }
    merged.table.into_owned()
}

fn arguments(count: u64) -> String {
    format!("{count} argument{}", if count == 1 { "" } else { "s" })
}

fn note_first(first: &Location) -> String {
    format!(
        "  note: first printed at {}:{}:{}",
        first.file, first.line, first.column
    )
}

/// LLPC's user-data nodes: `!lgc.user.data.nodes`, one tuple per node, `!{!"Type", i32
/// matchType, i32 visibility, i32 offsetInDwords, i32 sizeInDwords, ...}`; a
/// `DescriptorTableVaPtr` has its inner node count fifth and its inner nodes right after it,
/// other descriptor nodes their set and binding fifth and sixth.
const USER_DATA_NODES: &str = "lgc.user.data.nodes";

/// The user-data offset in dwords LLPC writes for the printf buffer: that of the top-level node
/// whose descriptor (or inner descriptor) is set 0xFFFFFFF0, binding 6. `None` without one.
fn printf_node_offset(module: &Module) -> Option<u64> {
    let nodes = module.named_metadata(USER_DATA_NODES)?;
    let mut k = 0;
    while k < nodes.len() {
        let node = module.md_node(nodes[k]);
        let offset = u64::try_from(node.int_operand(3)?).ok()?;
        let is_table = match node.operands().next() {
            Some(fmtstr_ir::MdOperand::Node(name)) => {
                module.md_node(name).string().as_deref() == Some(b"DescriptorTableVaPtr")
            }
            _ => false,
        };
        let inner = if is_table {
            usize::try_from(node.int_operand(5)?).ok()?
        } else {
            0
        };
        let candidates = if is_table {
            nodes.get(k + 1..k + 1 + inner)?
        } else {
            &nodes[k..=k]
        };
        let holds_printf = candidates.iter().any(|&id| {
            let candidate = module.md_node(id);
            // The set is written as an i32: 0xFFFFFFF0 reads as -16.
            let set = candidate.int_operand(5).map(|v| v as u32 as i64);
            set == Some(super::DESCRIPTOR_SET)
                && candidate.int_operand(6) == Some(super::BINDING.into())
        });
        if holds_printf {
            return Some(offset);
        }
        k += 1 + inner;
    }
    None
}

/// The bytes of the module's PAL metadata document, if it has one.
fn pal_document(module: &Module) -> Option<Vec<u8>> {
    let nodes = module.named_metadata(PAL_METADATA)?;
    let tuple = module.md_node(*nodes.first()?);
    match tuple.operands().next()? {
        fmtstr_ir::MdOperand::Node(string) => module.md_node(string).string(),
        _ => None,
    }
}

pub(crate) fn apply(
    module: &mut Module,
    calls: &[PrintfCall],
    plan: Plan,
) -> Result<Table<'static>, EditError> {
    let umin_ty = module
        .types_mut()
        .function(TypeId::I64, &[TypeId::I64, TypeId::I64], false);
    let umin = module.declare_function("llvm.umin.i64", umin_ty)?;
    let index_bits = module
        .data_layout()
        .pointer(plan.buffer_addrspace)
        .index_bits;
    let index_ty = module.types_mut().int(index_bits);
    let mut buffers = BufferSource::new(plan.buffer_addrspace);
    let mut old_globals = Vec::new();
    for (call, planned) in calls.iter().zip(&plan.calls) {
        old_globals.push(call.format.global);
        if planned.disabled {
            module.remove_inst(call.inst)?;
            continue;
        }
        let buffer = match own_buffer(call) {
            Some(buffer) => buffer,
            None => buffers.get(module, call.function)?,
        };
        // Constants first: the builder holds the module.
        let size = module.const_int(TypeId::I64, i64::from(planned.size));
        let clamp = module.const_int(TypeId::I64, CLAMP);
        let id = planned.id.get();
        let low = (u64::from(planned.size) | (id & 0xFFFF) << 16) as u32;
        let high = (id >> 16) as u32;
        let header = [
            module.const_int(TypeId::I32, i64::from(low as i32)),
            module.const_int(TypeId::I32, i64::from(high as i32)),
        ];
        let mut dword = BUFFER_HEADER_DWORDS;
        let mut slots = Vec::with_capacity(2 + planned.carries.len());
        for dwords in [1, 1]
            .into_iter()
            .chain(planned.carries.iter().map(|c| c.dwords))
        {
            slots.push(module.const_int(index_ty, dword));
            dword += i64::from(dwords);
        }
        let zero = module.const_int(TypeId::I32, 0);
        let mut current = Vec::new();
        call.current_variadic(module, &mut current);

        let mut b = module.builder(Position::Before(call.inst))?;
        b.debug_loc_from(call.inst);
        let offset = b.atomic_rmw(
            RmwOp::Add,
            buffer,
            size,
            Ordering::Monotonic,
            "printf.offset",
        )?;
        let clamped = b.call(
            umin,
            &[(offset, &[][..]), (clamp, &[][..])],
            "printf.clamped",
        )?;
        let clamped = b
            .module()
            .inst(clamped)
            .result()
            .ok_or_else(|| EditError::Invalid("llvm.umin has no result".into()))?;
        let first = if index_bits < 64 {
            b.cast(Opcode::Trunc, clamped, index_ty, "printf.dword")?
        } else {
            clamped
        };
        let entry = b.gep(TypeId::I32, buffer, &[first], false, "printf.entry")?;
        let mut values: Vec<(Operand, Option<u32>)> = header.iter().map(|&h| (h, None)).collect();
        for (operand, c) in current.into_iter().zip(&planned.carries) {
            let copied = match c.cast {
                Cast::Inline(bytes) => Some(bytes),
                _ => None,
            };
            values.push((c.emit(&mut b, operand)?, copied));
        }
        // Strings copied by a loop come last, once the straight-line stores are done.
        let mut copies = Vec::new();
        for ((value, copied), slot) in values.into_iter().zip(slots) {
            let at = b.gep(TypeId::I32, entry, &[slot], false, "printf.slot")?;
            match copied {
                Some(bytes) => copies.push((value, at, bytes)),
                None => {
                    b.store(value, at, 4)?;
                }
            }
        }
        drop(b);
        for (string, slot, bytes) in copies {
            super::inline::copy_string(module, call.inst, string, slot, bytes)?;
        }
        retire(module, call, zero)?;
    }
    crate::remove_printf_if_unused(module)?;
    crate::remove_declaration_if_unused(module, crate::model::LGC_DEBUG_PRINTF)?;
    module.remove_unused_globals(&old_globals)?;

    // The PAL metadata: the document with its table replaced, or a new one (none when every
    // call was disabled and the module had none: LLPC writes none then either).
    if plan.table.entries.is_empty() && plan.document.is_none() {
        return Ok(plan.table);
    }
    let mut bytes = Vec::new();
    match plan.document.as_deref().map(Document::parse) {
        Some(Ok(document)) => document.write_with(&plan.table, &mut bytes),
        _ => fmtstr_elf::write_new_document(&plan.table, &mut bytes),
    }
    module.remove_named_metadata(PAL_METADATA);
    let node = module.add_metadata(&[MdInput::String(&bytes)]);
    module.add_named_metadata(PAL_METADATA, &[node])?;
    Ok(plan.table)
}
