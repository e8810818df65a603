//! One CUDA `vprintf(format, buffer)` argument buffer, rendered on the CPU.
//!
//! The ABI (measured with nvcc and clang): arguments are packed in order, each at
//! its natural alignment; `char` and `short` are promoted to `int` and `float` to `double`
//! first, so `%hhd`, `%hd`, `%c` and `*` read a 4-byte `int`; `%d %i %u %o %x %X` 4 bytes or 8
//! with `l ll j z t`; floating conversions an 8-byte `double`; `%p` and `%s` an 8-byte pointer.
//! An OpenCL vector (`%v4f`) is its components unpromoted, at the vector's alignment (its size
//! rounded up to a power of two).

use fmtstr_format::{Arg, ArgClass, ArgSlot, Format, Spec};

use crate::decoder::STRING_PLACEHOLDER;

/// Why a vprintf buffer cannot be rendered with a format.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VprintfError {
    /// The buffer is too short for the format's arguments.
    #[error(
        "argument {argument} ({spec}) is read at byte {offset} and needs {size} bytes, but the \
         buffer has {len}; the format reads {needs} bytes in all"
    )]
    Short {
        /// 1-based argument number.
        argument: usize,
        /// The conversion (or `'*' of ...`).
        spec: String,
        /// Where the argument starts.
        offset: usize,
        /// Its size in bytes.
        size: usize,
        /// The buffer's length.
        len: usize,
        /// Bytes the whole format reads.
        needs: usize,
    },
    /// A value the renderer refuses (a `*` width above 65536).
    #[error(transparent)]
    Render(#[from] fmtstr_format::RenderError),
}

/// Where each argument of a format lies in a vprintf buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VprintfLayout {
    /// Per argument (as [`Format::arguments`] counts): offset, size of one component, count.
    pub fields: Vec<Field>,
    /// Bytes the format reads: the end of the last argument.
    pub size: usize,
}

/// One argument's place in the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Byte offset of the argument's first component from the buffer's start (a multiple of
    /// `align`).
    pub offset: usize,
    /// Bytes of one component.
    pub component: usize,
    /// Components (1 for scalars).
    pub count: usize,
    /// The vector's (or scalar's) alignment.
    pub align: usize,
}

/// The natural-alignment layout of a format's arguments.
pub fn layout(format: &Format) -> VprintfLayout {
    let specs: Vec<&Spec> = format.specs().collect();
    let mut fields = Vec::new();
    let mut end = 0usize;
    for slot in format.arguments() {
        let (component, count, align) = match slot {
            ArgSlot::Star { .. } => (4, 1, 4),
            ArgSlot::Value { spec } => {
                let spec = specs[spec];
                match spec.vector_len() {
                    Some(n) => {
                        let component = (spec.c_width() / 8) as usize;
                        let n = usize::from(n);
                        let align = (component * n).next_power_of_two();
                        (component, n, align)
                    }
                    None => {
                        let size = match spec.class() {
                            ArgClass::Float | ArgClass::Pointer | ArgClass::String => 8,
                            _ if spec.c_width() == 64 => 8,
                            _ => 4,
                        };
                        (size, 1, size)
                    }
                }
            }
        };
        let offset = end.next_multiple_of(align);
        // A 3-component vector takes the room of 4, as its alloc size says.
        let room = if count == 3 {
            component * 4
        } else {
            component * count
        };
        end = offset + room;
        fields.push(Field {
            offset,
            component,
            count,
            align,
        });
    }
    VprintfLayout { fields, size: end }
}

/// Renders `format` with the arguments in a vprintf buffer, appending exactly what the CUDA
/// driver's printf (glibc-compatible) prints. Bytes past the last argument are ignored (nvcc
/// sizes one buffer per function for its largest call).
pub fn render_vprintf(
    format: &Format,
    buffer: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), VprintfError> {
    let layout = layout(format);
    let specs: Vec<&Spec> = format.specs().collect();
    let mut args: Vec<Arg<'_>> = Vec::with_capacity(layout.fields.len());
    for (index, (slot, field)) in format.arguments().iter().zip(&layout.fields).enumerate() {
        let spec = match *slot {
            ArgSlot::Star { spec } | ArgSlot::Value { spec } => specs[spec],
        };
        let bytes_needed = if field.count == 3 {
            field.component * 3
        } else {
            field.component * field.count
        };
        if field.offset + bytes_needed > buffer.len() {
            let text =
                String::from_utf8_lossy(&format.bytes()[spec.offset..spec.offset + spec.len]);
            return Err(VprintfError::Short {
                argument: index + 1,
                spec: match slot {
                    ArgSlot::Star { .. } => format!("'*' of {text}"),
                    ArgSlot::Value { .. } => text.into_owned(),
                },
                offset: field.offset,
                size: bytes_needed,
                len: buffer.len(),
                needs: layout.size,
            });
        }
        for component in 0..field.count {
            let at = field.offset + component * field.component;
            let raw = read(buffer, at, field.component);
            let arg = match slot {
                ArgSlot::Star { .. } => Arg::Int(raw),
                ArgSlot::Value { .. } => match spec.class() {
                    ArgClass::Float => Arg::Float(match field.component {
                        2 => half_to_f64(raw as u16),
                        4 => f64::from(f32::from_bits(raw as u32)),
                        _ => f64::from_bits(raw),
                    }),
                    ArgClass::Pointer => Arg::Ptr(raw),
                    ArgClass::String if raw == 0 => Arg::Ptr(0),
                    ArgClass::String => Arg::Str(STRING_PLACEHOLDER),
                    _ => Arg::Int(raw),
                },
            };
            args.push(arg);
        }
    }
    // Every argument has the class its conversion reads: rendering can only refuse a `*`
    // above 65536.
    format.render(&args, out)?;
    Ok(())
}

fn read(buffer: &[u8], at: usize, size: usize) -> u64 {
    let mut bytes = [0u8; 8];
    bytes[..size].copy_from_slice(&buffer[at..at + size]);
    u64::from_le_bytes(bytes)
}

/// An IEEE half, exactly.
pub fn half_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f64::from(bits & 0x3ff);
    match exponent {
        0 => sign * mantissa * 2f64.powi(-24),
        0x1f if mantissa == 0.0 => sign * f64::INFINITY,
        0x1f => {
            let nan = f64::from_bits(0x7ff8_0000_0000_0000 | (u64::from(bits & 0x3ff) << 42));
            if sign < 0.0 {
                -nan
            } else {
                nan
            }
        }
        _ => sign * (1024.0 + mantissa) * 2f64.powi(exponent - 25),
    }
}
