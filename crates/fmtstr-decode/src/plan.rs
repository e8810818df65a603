//! The hot path: a format compiled into steps that read the payload directly.
//!
//! printf's output is the concatenation of its pieces' outputs, so a format renders piece by
//! piece: literal text is copied; integer conversions (`d i u o x X` without `*` or a vector)
//! are written here; every other conversion is rendered by fmtstr-format from a format holding
//! that conversion alone. The differential test against glibc covers both paths.

use std::ops::Range;

use fmtstr_format::{
    int_digits, int_digits_u32, Arg, Count, FloatConversion, Format, IntRadix as Radix, Piece, Spec,
};

use crate::ops::Op;

/// Bytes copied at once for short text, digits and padding: a constant-size copy is a few
/// moves where a variable-size one is a call.
const CHUNK: usize = 32;

/// Literal text of up to [`CHUNK`] bytes (`%%` already made `%`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Short {
    bytes: [u8; CHUNK],
    len: u8,
}

impl Short {
    const EMPTY: Short = Short {
        bytes: [0; CHUNK],
        len: 0,
    };

    fn new(text: &[u8]) -> Option<Short> {
        let mut bytes = [0u8; CHUNK];
        bytes.get_mut(..text.len())?.copy_from_slice(text);
        Some(Short {
            bytes,
            len: text.len() as u8,
        })
    }

    /// Appends the text with a constant-size copy.
    #[inline]
    pub(crate) fn push(&self, out: &mut Vec<u8>) {
        push_chunk(out, &self.bytes, usize::from(self.len));
    }
}

/// One step of a compiled format. The conversions that are written here carry the short
/// text before them: one step (one indirect branch, which a random mix of formats
/// mispredicts often) instead of two.
#[derive(Debug)]
pub(crate) enum Step {
    /// Literal text of up to [`CHUNK`] bytes.
    Short(Short),
    /// Longer literal text.
    Long(Box<[u8]>),
    /// Short text, then a simple integer conversion.
    Int(Short, IntStep),
    /// Short text, then a floating-point conversion of one value without `*`.
    Float(Short, FloatStep),
    /// Any other conversion: rendered by fmtstr-format with the arguments of `ops`.
    Spec { format: Format, ops: Range<usize> },
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct IntStep {
    /// Byte offset of the value in the payload.
    at: u32,
    /// 64 less the C width (8, 16, 32 or 64): shifting left and back by it truncates the
    /// payload to the width, sign-extending for signed conversions.
    shift: u8,
    width: u32,
    /// The precision (`None`: the default of one digit).
    precision: Option<u32>,
    left: bool,
    /// `0`, honoured only without `-` and without a precision.
    zero: bool,
    /// `+` or space (signed conversions only), or 0.
    sign: u8,
    /// `#`: `0x`/`0X` before non-zero hex, a leading zero for octal.
    alt: bool,
    /// The renderer of this step's shape ([`int_renderer`]).
    render: IntRender,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct FloatStep {
    /// Byte offset of the value in the payload.
    at: u32,
    /// A double in two dwords, else a float in one.
    wide: bool,
    conversion: FloatConversion,
}

/// The steps of `format`, whose scalar values are read by `ops` at payload byte offsets `at`.
pub(crate) fn compile(format: &Format, ops: &[Op], at: &[u32]) -> Option<Vec<Step>> {
    let bytes = format.bytes();
    let mut steps = Vec::new();
    let mut text: Vec<u8> = Vec::new();
    let mut next_op = 0usize;
    let flush = |text: &mut Vec<u8>, steps: &mut Vec<Step>| {
        if text.is_empty() {
            return;
        }
        match Short::new(text) {
            Some(short) => steps.push(Step::Short(short)),
            None => steps.push(Step::Long(text.as_slice().into())),
        }
        text.clear();
    };
    // The text before a conversion, for the step that carries it (flushed when too long).
    let before = |text: &mut Vec<u8>, steps: &mut Vec<Step>| match Short::new(text) {
        Some(short) => {
            text.clear();
            short
        }
        None => {
            flush(text, steps);
            Short::EMPTY
        }
    };
    for piece in format.pieces() {
        match piece {
            Piece::Literal(range) => text.extend_from_slice(&bytes[range.clone()]),
            Piece::Percent => text.push(b'%'),
            Piece::Spec(spec) => {
                let count = spec.star_args() + usize::from(spec.vector.unwrap_or(1));
                let range = next_op..next_op + count;
                next_op += count;
                let (spec_ops, spec_at) = (ops.get(range.clone())?, *at.get(range.start)?);
                if let Some(step) = simple_int(spec, spec_ops, spec_at) {
                    let text = before(&mut text, &mut steps);
                    steps.push(Step::Int(text, step));
                } else if let Some(step) = simple_float(spec, spec_ops, spec_at) {
                    let text = before(&mut text, &mut steps);
                    steps.push(Step::Float(text, step));
                } else {
                    flush(&mut text, &mut steps);
                    steps.push(Step::Spec {
                        format: Format::parse(&bytes[spec.offset..spec.offset + spec.len]).ok()?,
                        ops: range,
                    });
                }
            }
        }
    }
    flush(&mut text, &mut steps);
    (next_op == ops.len()).then_some(steps)
}

/// The most text an entry may print and still be rendered in a batch: a batch of 256 entries
/// then holds at most 1 MiB of text, so that a walk over entries that print 64 KiB each
/// (`%65536d`) stays within its memory bound.
const BATCHED_TEXT_MOST: u64 = 4096;

/// Whether entries of a format with these steps, printing at most `text_bound` bytes, may
/// be rendered in a batch: every step renders without a way to fail (no [`Step::Spec`],
/// whose renderer refuses a `*` width above 65536), and the text is short.
pub(crate) fn batchable(steps: &[Step], text_bound: u64) -> bool {
    text_bound <= BATCHED_TEXT_MOST && !steps.iter().any(|step| matches!(step, Step::Spec { .. }))
}

/// Renders the steps of a [`batchable`] plan. Always inlined into the batched walk, where
/// the loop over one format's entries then predicts every branch on the steps.
#[inline(always)]
pub(crate) fn render_batched(steps: &[Step], payload: &[u8], out: &mut Vec<u8>) {
    for step in steps {
        match step {
            Step::Short(text) => text.push(out),
            Step::Long(bytes) => out.extend_from_slice(bytes),
            Step::Int(text, int) => {
                text.push(out);
                render_int(int, payload, out);
            }
            Step::Float(text, float) => {
                text.push(out);
                render_float(float, payload, out);
            }
            // Not in a batchable plan.
            Step::Spec { .. } => {}
        }
    }
}

fn simple_float(spec: &Spec, ops: &[Op], at: u32) -> Option<FloatStep> {
    let wide = match ops {
        [Op::Float32] => false,
        [Op::Float64] => true,
        _ => return None,
    };
    Some(FloatStep {
        at,
        wide,
        conversion: FloatConversion::of(spec)?,
    })
}

/// Renders a floating-point conversion of one value.
#[inline]
pub(crate) fn render_float(step: &FloatStep, payload: &[u8], out: &mut Vec<u8>) {
    let at = step.at as usize;
    let value = if step.wide {
        f64::from_bits(wide_at(payload, at))
    } else {
        f64::from(f32::from_bits(word(payload, at)))
    };
    step.conversion.render(value, out);
}

fn simple_int(spec: &Spec, ops: &[Op], at: u32) -> Option<IntStep> {
    let radix = match spec.conversion.as_byte() {
        b'd' | b'i' | b'u' => Radix::Decimal,
        b'o' => Radix::Octal,
        b'x' => Radix::LowerHex,
        b'X' => Radix::UpperHex,
        _ => return None,
    };
    let flags = spec.flags;
    if spec.vector.is_some() || ops.len() != 1 {
        return None;
    }
    let width = match spec.width {
        None => 0,
        Some(Count::Fixed(width)) => width,
        Some(Count::Star) => return None,
    };
    let precision = match spec.precision {
        None => None,
        Some(Count::Fixed(precision)) => Some(precision),
        Some(Count::Star) => return None,
    };
    let wide = match ops[0] {
        Op::Zero32 | Op::Sign32 => false,
        Op::Int64 => true,
        _ => return None,
    };
    let signed = spec.is_signed();
    // ISO C gives `+` and space meaning only for signed conversions.
    let sign = match (signed, flags.plus, flags.space) {
        (true, true, _) => b'+',
        (true, false, true) => b' ',
        _ => 0,
    };
    // Nothing but the digits and a minus sign (the usual `%d`, `%u`, `%x`, `%lld`): no field
    // layout.
    let plain = width <= 1 && precision.is_none() && sign == 0 && !flags.alt;
    Some(IntStep {
        at,
        shift: 64 - spec.c_width().min(64) as u8,
        width,
        precision,
        left: flags.left,
        zero: flags.zero && !flags.left && precision.is_none(),
        sign,
        alt: flags.alt,
        render: int_renderer(radix, signed, wide, plain),
    })
}

/// How a simple integer conversion of one shape is rendered.
pub(crate) type IntRender = fn(&IntStep, &[u8], &mut Vec<u8>);

/// The renderer of a shape. Each is compiled with the radix, the signedness, the payload's
/// width and plainness fixed, so that a conversion takes no branch on them (a random mix of
/// formats mispredicts such branches): the call is one indirect branch, which the steps
/// before it predict.
fn int_renderer(radix: Radix, signed: bool, wide: bool, plain: bool) -> IntRender {
    match radix {
        Radix::Decimal => int_renderer_of::<0>(signed, wide, plain),
        Radix::Octal => int_renderer_of::<1>(signed, wide, plain),
        Radix::LowerHex => int_renderer_of::<2>(signed, wide, plain),
        Radix::UpperHex => int_renderer_of::<3>(signed, wide, plain),
    }
}

fn int_renderer_of<const RADIX: u8>(signed: bool, wide: bool, plain: bool) -> IntRender {
    match (signed, wide, plain) {
        (false, false, false) => render_int_as::<RADIX, false, false, false>,
        (false, false, true) => render_int_as::<RADIX, false, false, true>,
        (false, true, false) => render_int_as::<RADIX, false, true, false>,
        (false, true, true) => render_int_as::<RADIX, false, true, true>,
        (true, false, false) => render_int_as::<RADIX, true, false, false>,
        (true, false, true) => render_int_as::<RADIX, true, false, true>,
        (true, true, false) => render_int_as::<RADIX, true, true, false>,
        (true, true, true) => render_int_as::<RADIX, true, true, true>,
    }
}

/// The radix of [`int_renderer_of`]'s code.
const fn radix_of(code: u8) -> Radix {
    match code {
        0 => Radix::Decimal,
        1 => Radix::Octal,
        2 => Radix::LowerHex,
        _ => Radix::UpperHex,
    }
}

#[inline]
fn word(payload: &[u8], at: usize) -> u32 {
    match payload.get(at..at + 4) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        None => 0,
    }
}

/// The 64-bit value at payload byte `at` (low dword first; 0 past the end).
#[inline]
pub(crate) fn wide_at(payload: &[u8], at: usize) -> u64 {
    u64::from(word(payload, at)) | u64::from(word(payload, at + 4)) << 32
}

/// The argument op `op` reads at payload byte `at`.
#[inline]
/// An inline string's argument at payload byte `at` (its length word), reserving `bytes`
/// bytes, and whether it was cut. A length past the reservation (a damaged entry) is read as
/// the reservation.
pub(crate) fn inline_string(payload: &[u8], at: usize, bytes: u32) -> (Arg<'_>, bool) {
    use crate::ops::{INLINE_CUT_BIT, INLINE_LENGTH_MASK, INLINE_NULL};
    let length_word = word(payload, at);
    if length_word == INLINE_NULL {
        return (Arg::Ptr(0), false);
    }
    let length = (length_word & INLINE_LENGTH_MASK).min(bytes) as usize;
    let start = (at + 4).min(payload.len());
    let end = (start + length).min(payload.len());
    (
        Arg::Str(&payload[start..end]),
        length_word & INLINE_CUT_BIT != 0,
    )
}

pub(crate) fn arg(op: Op, payload: &[u8], at: usize) -> Arg<'static> {
    let wide = |at: usize| u64::from(word(payload, at)) | u64::from(word(payload, at + 4)) << 32;
    match op {
        Op::Zero32 => Arg::Int(u64::from(word(payload, at))),
        Op::Sign32 => Arg::Int(word(payload, at) as i32 as i64 as u64),
        Op::Int64 => Arg::Int(wide(at)),
        Op::Float32 => Arg::Float(f64::from(f32::from_bits(word(payload, at)))),
        Op::Float64 => Arg::Float(f64::from_bits(wide(at))),
        Op::Ptr32 => Arg::Ptr(u64::from(word(payload, at))),
        Op::Ptr64 => Arg::Ptr(wide(at)),
        Op::Str32 if word(payload, at) == 0 => Arg::Ptr(0),
        Op::Str64 if wide(at) == 0 => Arg::Ptr(0),
        Op::Str32 | Op::Str64 => Arg::Str(crate::STRING_PLACEHOLDER),
        // Read by `inline_string`, which borrows the payload.
        Op::StrInline(_) => Arg::Str(crate::STRING_PLACEHOLDER),
    }
}

/// Appends `n` bytes of `bytes` (`n <= CHUNK`) with a constant-size copy.
#[inline]
fn push_chunk(out: &mut Vec<u8>, bytes: &[u8; CHUNK], n: usize) {
    let len = out.len();
    out.extend_from_slice(bytes);
    out.truncate(len + n);
}

#[inline]
fn push_fill(out: &mut Vec<u8>, byte: u8, n: usize) {
    if n == 0 {
        return;
    }
    if n <= CHUNK {
        push_chunk(out, &[byte; CHUNK], n);
    } else {
        out.resize(out.len() + n, byte);
    }
}

/// Appends `buf[start..CHUNK]` with a constant-size copy.
#[inline]
fn push_digits(out: &mut Vec<u8>, buf: &[u8; 2 * CHUNK], start: usize) {
    let len = out.len();
    let start = start.min(CHUNK);
    out.extend_from_slice(&buf[start..start + CHUNK]);
    out.truncate(len + CHUNK - start);
}

/// Renders a simple integer conversion exactly as glibc does.
#[inline]
pub(crate) fn render_int(step: &IntStep, payload: &[u8], out: &mut Vec<u8>) {
    (step.render)(step, payload, out);
}

/// [`render_int`] for one shape (see [`int_renderer`]): `RADIX` a [`radix_of`] code,
/// `SIGNED` a signed conversion, `WIDE` a 64-bit payload, `PLAIN` no field layout.
fn render_int_as<const RADIX: u8, const SIGNED: bool, const WIDE: bool, const PLAIN: bool>(
    step: &IntStep,
    payload: &[u8],
    out: &mut Vec<u8>,
) {
    let at = step.at as usize;
    let raw = if WIDE {
        wide_at(payload, at)
    } else if SIGNED {
        // A 32-bit payload of a signed conversion is sign-extended (see the crate docs).
        word(payload, at) as i32 as i64 as u64
    } else {
        u64::from(word(payload, at))
    };
    let shift = u32::from(step.shift);
    let (negative, magnitude) = if SIGNED {
        let value = ((raw << shift) as i64) >> shift;
        (value < 0, value.unsigned_abs())
    } else {
        (false, (raw << shift) >> shift)
    };
    let radix = radix_of(RADIX);
    let mut buf = [0u8; 2 * CHUNK];
    if PLAIN {
        let mut start = digits_of::<WIDE>(magnitude, radix, &mut buf);
        if negative {
            start -= 1;
            buf[start] = b'-';
        }
        push_digits(out, &buf, start);
    } else {
        render_int_field::<RADIX, WIDE>(step, negative, magnitude, &mut buf, out);
    }
}

/// The digits of `magnitude`, ending at `buf[CHUNK]`; where they start. A 32-bit payload's
/// magnitude (`WIDE` false) fits a u32, whose digits take fewer words and no branch on the
/// value's size.
#[inline]
fn digits_of<const WIDE: bool>(magnitude: u64, radix: Radix, buf: &mut [u8; 2 * CHUNK]) -> usize {
    if WIDE {
        int_digits(magnitude, radix, buf, CHUNK)
    } else {
        int_digits_u32(magnitude as u32, radix, buf, CHUNK)
    }
}

/// The field of a conversion that is not plain: sign or prefix, precision zeros, padding.
/// `RADIX` and `WIDE` as in [`render_int_as`], so that the digits' code is the radix's own.
#[inline]
fn render_int_field<const RADIX: u8, const WIDE: bool>(
    step: &IntStep,
    negative: bool,
    magnitude: u64,
    buf: &mut [u8; 2 * CHUNK],
    out: &mut Vec<u8>,
) {
    let radix = radix_of(RADIX);
    // C: a zero value with precision zero prints no digits at all.
    let start = if magnitude == 0 && step.precision == Some(0) {
        CHUNK
    } else {
        digits_of::<WIDE>(magnitude, radix, buf)
    };
    let n = CHUNK - start;
    let mut prefix = [0u8; 4];
    let mut prefix_len = 0;
    if negative {
        prefix[0] = b'-';
        prefix_len = 1;
    } else if step.sign != 0 {
        prefix[0] = step.sign;
        prefix_len = 1;
    }
    let mut zeros = (step.precision.unwrap_or(1) as usize).saturating_sub(n);
    if step.alt {
        match radix {
            Radix::LowerHex if magnitude != 0 => {
                prefix[prefix_len..prefix_len + 2].copy_from_slice(b"0x");
                prefix_len += 2;
            }
            Radix::UpperHex if magnitude != 0 => {
                prefix[prefix_len..prefix_len + 2].copy_from_slice(b"0X");
                prefix_len += 2;
            }
            // `#o` raises the precision just enough that the first digit is a zero.
            Radix::Octal if zeros == 0 && (n == 0 || buf[start] != b'0') => zeros = 1,
            _ => {}
        }
    }
    let body = prefix_len + zeros + n;
    let pad = (step.width as usize).saturating_sub(body);
    if step.left {
        push_prefix(out, &prefix, prefix_len);
        push_fill(out, b'0', zeros);
        push_digits(out, buf, start);
        push_fill(out, b' ', pad);
    } else if step.zero {
        push_prefix(out, &prefix, prefix_len);
        push_fill(out, b'0', zeros + pad);
        push_digits(out, buf, start);
    } else {
        push_fill(out, b' ', pad);
        push_prefix(out, &prefix, prefix_len);
        push_fill(out, b'0', zeros);
        push_digits(out, buf, start);
    }
}

/// Appends `prefix[..len]` with a constant-size copy.
#[inline]
fn push_prefix(out: &mut Vec<u8>, prefix: &[u8; 4], len: usize) {
    if len > 0 {
        let at = out.len();
        out.extend_from_slice(prefix);
        out.truncate(at + len);
    }
}
