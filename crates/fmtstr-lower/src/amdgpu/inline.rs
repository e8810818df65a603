//! Runtime strings (`--runtime-strings N`): the bytes of a `%s` argument computed at run time
//! copied into the buffer entry.
//!
//! Input: a call being lowered at [`super::Stage::Buffer`], whose entry has already been
//! claimed (the atomic add) and whose other slots are stored; the string pointer; the entry
//! slot reserved for it, `1 + ceil(N / 4)` dwords. Output: a loop before the call that copies
//! the string into the slot, shaped as
//!
//! ```text
//! head:    %printf.null = icmp eq ptr %s, null
//!          br i1 %printf.null, label %printf.copied, label %printf.copy
//! copy:    %printf.i = phi i32 [ 0, %head ], [ %printf.next, %printf.byte ]
//!          %printf.c = load i8, ptr (gep i8 %s, %printf.i)       ; never past the NUL or byte N
//!          %printf.more = icmp ne i8 %printf.c, 0
//!          %printf.room = icmp ult i32 %printf.i, N
//!          %printf.length = or i32 %printf.i, (select %printf.more, 1 << 31, 0)
//!          br i1 (and %printf.more, %printf.room), label %printf.byte, label %printf.copied
//! byte:    store i8 %printf.c, ptr addrspace(B) (gep i8 %bytes, %printf.i), align 1
//!          %printf.next = add i32 %printf.i, 1
//!          br label %printf.copy
//! copied:  %printf.word = phi i32 [ %printf.length, %copy ], [ -1, %head ]
//!          store i32 %printf.word, ptr addrspace(B) %slot, align 4
//!          ...                                                   ; the call's place
//! ```
//!
//! The slot's first dword is the length word ([`LENGTH_MASK`] bytes copied, [`CUT_BIT`] when
//! a byte other than NUL followed the N copied, [`NULL_WORD`] for a null pointer), the bytes
//! follow, unused ones left as they were. The loop reads at most the string's first N + 1
//! bytes and never past its NUL, so a string shorter than N costs its own length.

use fmtstr_ir::{BlockId, EditError, InstId, Module, Opcode, Operand, Position, Predicate, TypeId};

/// The bits of the length word that count the bytes copied.
pub const LENGTH_MASK: u32 = 0x7FFF_FFFF;
/// Set in the length word when the string went on past the N bytes copied.
pub const CUT_BIT: u32 = 1 << 31;
/// The length word of a null pointer (printed as glibc prints one).
pub const NULL_WORD: u32 = u32::MAX;
/// The most bytes `--runtime-strings` may reserve per string (an entry holds at most 65535
/// dwords, header included).
pub const MAX_BYTES: u32 = 4096;

/// Dwords of a slot reserving `bytes` bytes: the length word and the bytes.
pub fn slot_dwords(bytes: u32) -> u32 {
    1 + bytes.div_ceil(4)
}

/// Emits the copy of the C string `string` into the slot at `slot` (a pointer to its length
/// word), reading at most `limit` bytes, right before `before`.
pub(crate) fn copy_string(
    module: &mut Module,
    before: InstId,
    string: Operand,
    slot: Operand,
    limit: u32,
) -> Result<(), EditError> {
    let head = module.inst(before).block();
    let copy = module.split_block_before(before, "printf.copy")?;
    let copied = module.split_block_before(before, "printf.copied")?;
    let byte = module.add_block(copy, "printf.byte")?;
    let zero = module.const_int(TypeId::I32, 0);
    let one = module.const_int(TypeId::I32, 1);
    let four = module.const_int(TypeId::I32, 4);
    let bound = module.const_int(TypeId::I32, i64::from(limit));
    let cut = module.const_int(TypeId::I32, i64::from(CUT_BIT as i32));
    let null_word = module.const_int(TypeId::I32, i64::from(NULL_WORD as i32));
    let nul = module.const_int(TypeId::I8, 0);
    let null = module.const_null(string.ty);

    replace_jump(module, head)?;
    let mut b = module.builder(Position::End(head))?;
    let is_null = b.icmp(Predicate::EQ, string, null, "printf.null")?;
    b.cond_br(is_null, copied, copy)?;
    drop(b);

    replace_jump(module, copy)?;
    let mut b = module.builder(Position::End(copy))?;
    let index = b.phi(TypeId::I32, &[(zero, head), (zero, byte)], "printf.i")?;
    let at = b.gep(TypeId::I8, string, &[index], false, "printf.at")?;
    let c = b.load(TypeId::I8, at, 1, "printf.c")?;
    let more = b.icmp(Predicate::NE, c, nul, "printf.more")?;
    let room = b.icmp(Predicate::ULT, index, bound, "printf.room")?;
    let flag = b.select(more, cut, zero, "printf.cut")?;
    let length = b.binary(Opcode::Or, index, flag, "printf.length")?;
    let go = b.binary(Opcode::And, more, room, "printf.go")?;
    b.cond_br(go, byte, copied)?;
    drop(b);

    let mut b = module.builder(Position::End(byte))?;
    let bytes = b.gep(TypeId::I8, slot, &[four], false, "printf.bytes")?;
    let to = b.gep(TypeId::I8, bytes, &[index], false, "printf.to")?;
    b.store(c, to, 1)?;
    let next = b.binary(Opcode::Add, index, one, "printf.next")?;
    b.br(copy)?;
    drop(b);
    let fmtstr_ir::Value::Inst(phi) = index.value else {
        return Err(EditError::Invalid(
            "the loop's phi is not an instruction".into(),
        ));
    };
    module.set_phi_value(phi, 1, next)?;

    let mut b = module.builder(Position::Before(before))?;
    let word = b.phi(
        TypeId::I32,
        &[(length, copy), (null_word, head)],
        "printf.word",
    )?;
    b.store(word, slot, 4)?;
    Ok(())
}

/// Removes the `br` a split left at the end of `block`, for the caller to end it otherwise.
fn replace_jump(module: &mut Module, block: BlockId) -> Result<(), EditError> {
    match module.block(block).terminator().map(|jump| jump.id()) {
        Some(jump) => module.remove_inst(jump),
        None => Err(EditError::Invalid("a split block has no branch".into())),
    }
}
