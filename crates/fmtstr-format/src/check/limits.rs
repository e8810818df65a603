//! The per-dialect rules: what GPU printf cannot print and what the Vulkan validation
//! layers' debug printf rejects or prints differently (in: one scanned spec), added to the
//! checker's findings (out) only in the dialects that ask for them.

use crate::scan::{Amount, Len, RawSpec};

use super::checker::Checker;
use super::conversions::{is_float, is_int};
use super::finding::{show, FindingKind, GpuLimit, VvlLimit};

impl Checker<'_> {
    /// What the Vulkan validation layers reject (errors: VVL skips the call) or print otherwise
    /// than the format says (warnings), for one conversion.
    pub(super) fn vvl_limits(&mut self, spec: &RawSpec) {
        let text = self.text(spec);
        let c = spec.conversion;
        let skipped = "the Vulkan validation layers reject it and skip this call";
        if spec.position.is_some() {
            self.push(
                Some(spec.start),
                None,
                FindingKind::Vvl(VvlLimit::Positional),
                format!("positional argument in '{text}': {skipped}"),
                Some("write the conversions in argument order, without 'N$'".to_string()),
            );
        }
        let f = spec.flags;
        for (at, flag) in [
            (f.left, b'-'),
            (f.plus, b'+'),
            (f.space, b' '),
            (f.alt, b'#'),
            (f.thousands, b'\''),
        ] {
            if let Some(at) = at {
                self.push(
                    Some(at),
                    None,
                    FindingKind::Vvl(VvlLimit::Flag),
                    format!(
                        "flag '{}' in '{text}': VVL's debug printf takes only the '0' flag; \
                         {skipped}",
                        flag as char
                    ),
                    Some(format!("remove the '{}' flag", flag as char)),
                );
            }
        }
        for (amount, at) in [
            (spec.width, spec.width_at),
            (spec.precision, spec.precision_at),
        ] {
            if let Some(Amount::Star(_)) = amount {
                self.push(
                    Some(at),
                    None,
                    FindingKind::Vvl(VvlLimit::Star),
                    format!("'*' in '{text}': VVL's debug printf has no '*' width or precision"),
                    Some("write the width or precision as digits".to_string()),
                );
            }
        }
        if let Some(n) = spec.vector {
            if !(2..=4).contains(&n) {
                self.push(
                    Some(spec.vector_at),
                    None,
                    FindingKind::Vvl(VvlLimit::VectorSize),
                    format!(
                        "vector size {n} in '{text}': VVL prints vectors of 2, 3 or 4; {skipped}"
                    ),
                    Some("write %v2, %v3 or %v4".to_string()),
                );
            }
        }
        let (limit, message, fix) = match spec.length {
            Len::None => return,
            Len::L if spec.ul_alias => (
                VvlLimit::UlAlias,
                format!(
                    "'{text}' is VVL's alias of '%lx' (a 64-bit integer in hex); C reads it as \
                     '%u' followed by the letter 'l'"
                ),
                "write '%lx'".to_string(),
            ),
            Len::L if is_float(c) => (
                VvlLimit::LongFloat,
                format!(
                    "'l' in '{text}': VVL prints 16-, 32- and 64-bit floats with '%{}', and \
                     documents '%l{}' as unsupported",
                    show(c),
                    show(c)
                ),
                "remove the 'l'".to_string(),
            ),
            Len::L if is_int(c) => return,
            Len::Ll if is_int(c) => (
                VvlLimit::LongLong,
                format!("'ll' in '{text}': VVL's 64-bit length is 'l'"),
                "write 'l' for 'll'".to_string(),
            ),
            _ => (
                VvlLimit::Length,
                format!(
                    "length modifier '{}' in '{text}': VVL's only length is 'l' on integer \
                     conversions (8- and 16-bit values print with the 32-bit conversions); \
                     {skipped}",
                    spec.length.text()
                ),
                format!("remove the length modifier '{}'", spec.length.text()),
            ),
        };
        self.push(
            Some(spec.length_at),
            None,
            FindingKind::Vvl(limit),
            message,
            Some(fix),
        );
    }

    /// The GPU dialect's own warnings for one conversion.
    pub(super) fn gpu_limits(&mut self, spec: &RawSpec) {
        let c = spec.conversion;
        let positional = spec.position.is_some();
        let thousands = spec.flags.thousands.is_some();
        let limited = matches!(c, b'n' | b'S' | b'C' | b'm' | b'b' | b'B')
            || matches!(spec.length, Len::Q | Len::WidthN(_) | Len::FastN(_))
            || (matches!(c, b'c' | b's') && spec.length == Len::L)
            || (matches!(c, b'c' | b's' | b'p') && spec.vector.is_some());
        if !(positional || thousands || limited) {
            return;
        }
        let text = self.text(spec);
        if let Some(position) = spec.position {
            self.push(
                Some(spec.start),
                None,
                FindingKind::Gpu(GpuLimit::Positional),
                format!(
                    "positional argument '{position}$' in '{text}': GPU printf (CUDA's vprintf, \
                     AMD's printf buffer) takes its arguments in order"
                ),
                Some("write the conversions in argument order, without 'N$'".to_string()),
            );
        }
        if let Some(at) = spec.flags.thousands {
            self.push(
                Some(at),
                None,
                FindingKind::Gpu(GpuLimit::ThousandsGrouping),
                format!(
                    "the ''' flag in '{text}' groups thousands by the C locale, which GPU \
                     printf does not have"
                ),
                Some("remove the ''' flag".to_string()),
            );
        }
        let (limit, message, fix) = match (c, spec.length) {
            (b'n', _) => (
                GpuLimit::WriteBack,
                format!(
                    "'{text}' writes the number of characters printed through a pointer; GPU \
                     printf does not support '%n'"
                ),
                "remove the conversion and its argument".to_string(),
            ),
            (b'S' | b'C', _) | (b'c' | b's', Len::L) => (
                GpuLimit::WideCharacter,
                format!("'{text}' prints wide characters, which GPU printf does not have"),
                "convert to char and use '%c' or '%s'".to_string(),
            ),
            (b'm', _) => (
                GpuLimit::Errno,
                format!(
                    "'{text}' prints strerror(errno), a glibc extension GPU printf does not \
                     have"
                ),
                "remove it, or print the error code with '%d'".to_string(),
            ),
            (b'b' | b'B', _) => (
                GpuLimit::Binary,
                format!("C23's binary conversion '{text}' is not printed by GPU printf"),
                "use '%x' or '%o'".to_string(),
            ),
            (_, Len::Q) => (
                GpuLimit::BsdQuad,
                format!("'q' in '{text}' is BSD's spelling of 'll', unknown to GPU printf"),
                "write 'll' for 'q'".to_string(),
            ),
            (_, Len::WidthN(n) | Len::FastN(n)) => (
                GpuLimit::ExactWidth,
                format!(
                    "C23's exact-width length '{}' in '{text}' is not supported by GPU printf",
                    spec.length.text()
                ),
                match n {
                    8 => "write 'hh' (8 bits)".to_string(),
                    16 => "write 'h' (16 bits)".to_string(),
                    32 => "remove it (32 bits is an int)".to_string(),
                    64 => "write 'll' (64 bits)".to_string(),
                    _ => "write hh, h, no length or ll for 8, 16, 32 or 64 bits".to_string(),
                },
            ),
            (b'c' | b's' | b'p', _) if spec.vector.is_some() => (
                GpuLimit::VectorOfNonNumber,
                format!("the vector modifier does not apply to '%{}'", show(c)),
                "remove the vector modifier, or use an integer or floating conversion".to_string(),
            ),
            _ => return,
        };
        let offset = match limit {
            GpuLimit::BsdQuad | GpuLimit::ExactWidth => spec.length_at,
            _ => spec.start,
        };
        self.push(
            Some(offset),
            None,
            FindingKind::Gpu(limit),
            message,
            Some(fix),
        );
    }
}
