//! The checker's reading of a format: clang's printf grammar, lenient where the renderer's
//! grammar ([`crate::Format::parse`]) is strict. Nothing here fails: what clang would warn
//! about is scanned as far as clang scans it, and the checker judges it.

use crate::dialect::Rules;

/// A length modifier as clang reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Len {
    None,
    Hh,
    H,
    /// OpenCL's `hl` (only with the vector modifier).
    Hl,
    L,
    Ll,
    /// BSD's `q`, the same as `ll`.
    Q,
    J,
    Z,
    T,
    /// `L`
    BigL,
    /// Microsoft's `I`, `I32`, `I64`.
    I,
    I32,
    I64,
    /// Microsoft's `w` (wide), as clang 19 reads it.
    W,
    /// C23's `wN` (exact width N).
    WidthN(u16),
    /// C23's `wfN` (fastest type of at least N bits).
    FastN(u16),
}

impl Len {
    pub(crate) fn text(self) -> String {
        match self {
            Len::None => "",
            Len::Hh => "hh",
            Len::H => "h",
            Len::Hl => "hl",
            Len::L => "l",
            Len::Ll => "ll",
            Len::Q => "q",
            Len::J => "j",
            Len::Z => "z",
            Len::T => "t",
            Len::BigL => "L",
            Len::I => "I",
            Len::I32 => "I32",
            Len::I64 => "I64",
            Len::W => "w",
            Len::WidthN(n) => return format!("w{n}"),
            Len::FastN(n) => return format!("wf{n}"),
        }
        .to_string()
    }
}

/// A width or precision as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Amount {
    /// Digits.
    Fixed(u32),
    /// `*`, or `*N$` with its 1-based position.
    Star(Option<u32>),
    /// A `.` without digits (a precision of zero that clang does not count as "used").
    Empty,
}

/// The offsets of the flags, where written (first occurrence).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FlagsAt {
    pub left: Option<usize>,
    pub plus: Option<usize>,
    pub space: Option<usize>,
    pub alt: Option<usize>,
    pub zero: Option<usize>,
    pub thousands: Option<usize>,
}

impl FlagsAt {
    /// Whether no flag is written (most specifications).
    pub fn is_empty(&self) -> bool {
        [
            self.left,
            self.plus,
            self.space,
            self.alt,
            self.zero,
            self.thousands,
        ]
        .iter()
        .all(Option::is_none)
    }
}

/// One conversion specification, valid or not.
#[derive(Clone, Debug)]
pub(crate) struct RawSpec {
    /// Offset of the `%`.
    pub start: usize,
    /// Offset just past the conversion character.
    pub end: usize,
    /// `N$`: the 1-based argument position.
    pub position: Option<u32>,
    pub flags: FlagsAt,
    pub width: Option<Amount>,
    pub width_at: usize,
    pub precision: Option<Amount>,
    /// Offset of the `.`.
    pub precision_at: usize,
    pub vector: Option<u32>,
    pub vector_at: usize,
    pub length: Len,
    pub length_at: usize,
    pub conversion: u8,
    pub conversion_at: usize,
    /// VVL's `%ul` (its alias of `%lx`): the `l` follows the conversion.
    pub ul_alias: bool,
}

/// What the scanner found next.
#[derive(Clone, Debug)]
pub(crate) enum Event {
    /// A conversion specification (its character may be invalid: the checker decides).
    Spec(RawSpec),
    /// The format ends inside the specification that starts at `start`. Scanning stops.
    Incomplete { start: usize },
    /// `%0$` or `*0$`. Scanning stops.
    ZeroPosition { at: usize },
    /// `*N` not followed by `$` in a positional specification. Scanning stops.
    InvalidPosition { at: usize, precision: bool },
    /// A NUL byte inside the format. Scanning stops.
    Nul { at: usize },
}

impl Event {
    /// Appends what the checker judges of this event to a key: everything but where it is in
    /// the format (the checker reads places only to say where a finding is), and each flag
    /// written or not. Fixed widths after a tag byte: different judgements never give the
    /// same bytes.
    pub(crate) fn push_judged(&self, key: &mut Vec<u8>) {
        match self {
            Event::Spec(spec) => {
                let f = spec.flags;
                let flags = [f.left, f.plus, f.space, f.alt, f.zero, f.thousands]
                    .iter()
                    .enumerate()
                    .fold(0, |bits, (k, at)| bits | u8::from(at.is_some()) << k);
                let amount = |amount: Option<Amount>| match amount {
                    None => (0, 0),
                    Some(Amount::Fixed(n)) => (1, n),
                    Some(Amount::Star(None)) => (2, 0),
                    Some(Amount::Star(Some(n))) => (3, n),
                    Some(Amount::Empty) => (4, 0),
                };
                let (width, width_n) = amount(spec.width);
                let (precision, precision_n) = amount(spec.precision);
                let (length, length_n) = length_code(spec.length);
                let mut bytes = [0u8; 28];
                bytes[..8].copy_from_slice(&[
                    0x10,
                    flags,
                    spec.conversion,
                    u8::from(spec.ul_alias),
                    u8::from(spec.position.is_some()),
                    u8::from(spec.vector.is_some()),
                    width,
                    precision,
                ]);
                bytes[8..12].copy_from_slice(&spec.position.unwrap_or(0).to_le_bytes());
                bytes[12..16].copy_from_slice(&spec.vector.unwrap_or(0).to_le_bytes());
                bytes[16..20].copy_from_slice(&width_n.to_le_bytes());
                bytes[20..24].copy_from_slice(&precision_n.to_le_bytes());
                bytes[24] = length;
                bytes[25..27].copy_from_slice(&length_n.to_le_bytes());
                key.extend_from_slice(&bytes);
            }
            Event::Incomplete { .. } => key.push(0x11),
            Event::ZeroPosition { .. } => key.push(0x12),
            Event::InvalidPosition { precision, .. } => {
                key.extend_from_slice(&[0x13, u8::from(*precision)]);
            }
            Event::Nul { .. } => key.push(0x14),
        }
    }
}

/// A length modifier as a tag and its number (`wN`, `wfN`).
fn length_code(length: Len) -> (u8, u16) {
    match length {
        Len::None => (0, 0),
        Len::Hh => (1, 0),
        Len::H => (2, 0),
        Len::Hl => (3, 0),
        Len::L => (4, 0),
        Len::Ll => (5, 0),
        Len::Q => (6, 0),
        Len::J => (7, 0),
        Len::Z => (8, 0),
        Len::T => (9, 0),
        Len::BigL => (10, 0),
        Len::I => (11, 0),
        Len::I32 => (12, 0),
        Len::I64 => (13, 0),
        Len::W => (14, 0),
        Len::WidthN(n) => (15, n),
        Len::FastN(n) => (16, n),
    }
}

/// Scans `bytes` clang's way; `rules` says whether the vector modifier and C23 lengths exist.
pub(crate) fn scan(bytes: &[u8], rules: &Rules) -> Vec<Event> {
    let mut events = Vec::with_capacity(percent_signs(bytes));
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            0 => {
                events.push(Event::Nul { at: i });
                return events;
            }
            b'%' => match scan_spec(bytes, i, rules) {
                Ok(spec) => {
                    i = spec.end;
                    events.push(Event::Spec(spec));
                }
                Err(stop) => {
                    events.push(stop.event(i));
                    return events;
                }
            },
            _ => i += 1,
        }
    }
    events
}

/// Reads digits at `*i`; `None` when there are none (saturating at `u32::MAX`).
fn digits(bytes: &[u8], i: &mut usize) -> Option<u32> {
    let start = *i;
    let mut value: u32 = 0;
    while let Some(&b) = bytes.get(*i) {
        if !b.is_ascii_digit() {
            break;
        }
        value = value.saturating_mul(10).saturating_add(u32::from(b - b'0'));
        *i += 1;
    }
    (*i > start).then_some(value)
}

/// Why a specification stopped the scan, before it was read whole.
enum Stop {
    /// The format ends inside it.
    Incomplete,
    /// `%0$` or `*0$`, at this offset.
    ZeroPosition(usize),
    /// `*N` without `$` in a positional specification, at this offset; whether it is the
    /// precision's.
    InvalidPosition(usize, bool),
    /// A NUL byte where the conversion character should be, at this offset.
    Nul(usize),
}

impl Stop {
    fn event(self, start: usize) -> Event {
        match self {
            Stop::Incomplete => Event::Incomplete { start },
            Stop::ZeroPosition(at) => Event::ZeroPosition { at },
            Stop::InvalidPosition(at, precision) => Event::InvalidPosition { at, precision },
            Stop::Nul(at) => Event::Nul { at },
        }
    }
}

/// The specification whose `%` is at `start`, or why it stops the scan. It is read part by
/// part in clang's order: position, flags, width, precision, vector, length, conversion; each
/// part that can end the format is followed by a check that it did not.
fn scan_spec(bytes: &[u8], start: usize, rules: &Rules) -> Result<RawSpec, Stop> {
    let end = bytes.len();
    let more = |i: usize| {
        if i == end {
            Err(Stop::Incomplete)
        } else {
            Ok(())
        }
    };
    let mut i = start + 1;
    more(i)?;
    let position = position(bytes, &mut i)?;
    more(i)?;
    let flags = flags(bytes, &mut i);
    more(i)?;
    let positional = position.is_some();
    let width_at = i;
    let width = amount(bytes, &mut i, positional, false)?;
    more(i)?;
    let precision_at = i;
    let precision = precision(bytes, &mut i, positional)?;
    let vector_at = i;
    let vector = vector(bytes, &mut i, rules)?;
    let length_at = i;
    let (length, size) = length(bytes, i, rules);
    i += size;
    more(i)?;
    if bytes[i] == 0 {
        return Err(Stop::Nul(i));
    }
    let conversion_at = i;
    // VVL reads `%ul` as a 64-bit unsigned integer printed in hex.
    let ul_alias =
        rules.vvl && bytes[i] == b'u' && length == Len::None && bytes.get(i + 1) == Some(&b'l');
    let (length, length_at, end) = if ul_alias {
        (Len::L, i + 1, i + 2)
    } else {
        (length, length_at, i + 1)
    };
    Ok(RawSpec {
        start,
        end,
        position,
        flags,
        width,
        width_at,
        precision,
        precision_at,
        vector,
        vector_at,
        length,
        length_at,
        conversion: bytes[i],
        conversion_at,
        ul_alias,
    })
}

/// `N$` at `*i`: a position, read past; else nothing is read (the digits are a width, read
/// again by [`amount`]).
fn position(bytes: &[u8], i: &mut usize) -> Result<Option<u32>, Stop> {
    let mut j = *i;
    let Some(n) = digits(bytes, &mut j) else {
        return Ok(None);
    };
    if j == bytes.len() {
        return Err(Stop::Incomplete);
    }
    if bytes[j] != b'$' {
        return Ok(None);
    }
    if n == 0 {
        return Err(Stop::ZeroPosition(*i));
    }
    *i = j + 1;
    Ok(Some(n))
}

/// The flags at `*i`, each at the offset where it is first written; any number, in any order.
fn flags(bytes: &[u8], i: &mut usize) -> FlagsAt {
    let mut flags = FlagsAt::default();
    while let Some(&b) = bytes.get(*i) {
        let slot = match b {
            b'-' => &mut flags.left,
            b'+' => &mut flags.plus,
            b' ' => &mut flags.space,
            b'#' => &mut flags.alt,
            b'0' => &mut flags.zero,
            b'\'' => &mut flags.thousands,
            _ => break,
        };
        slot.get_or_insert(*i);
        *i += 1;
    }
    flags
}

/// A width or precision at `*i`: digits, `*`, or in a `positional` specification `*N$`.
/// `None` when neither digits nor `*` are written.
fn amount(
    bytes: &[u8],
    i: &mut usize,
    positional: bool,
    precision: bool,
) -> Result<Option<Amount>, Stop> {
    if bytes.get(*i) != Some(&b'*') {
        return Ok(digits(bytes, i).map(Amount::Fixed));
    }
    let star_at = *i;
    *i += 1;
    if !positional {
        return Ok(Some(Amount::Star(None)));
    }
    match digits(bytes, i) {
        None => Ok(Some(Amount::Star(None))),
        Some(_) if *i == bytes.len() => Err(Stop::Incomplete),
        Some(0) if bytes[*i] == b'$' => Err(Stop::ZeroPosition(star_at)),
        Some(n) if bytes[*i] == b'$' => {
            *i += 1;
            Ok(Some(Amount::Star(Some(n))))
        }
        Some(_) => Err(Stop::InvalidPosition(star_at, precision)),
    }
}

/// The precision at `*i` (which is inside the format): `.` and its amount, [`Amount::Empty`]
/// when the `.` has none; `None` without a `.`.
fn precision(bytes: &[u8], i: &mut usize, positional: bool) -> Result<Option<Amount>, Stop> {
    if bytes[*i] != b'.' {
        return Ok(None);
    }
    *i += 1;
    if *i == bytes.len() {
        return Err(Stop::Incomplete);
    }
    let precision = amount(bytes, i, positional, true)?.unwrap_or(Amount::Empty);
    if *i == bytes.len() {
        return Err(Stop::Incomplete);
    }
    Ok(Some(precision))
}

/// OpenCL's vector modifier `vN` at `*i` (which is inside the format), where `rules` has it;
/// `N` must be written and something must follow it.
fn vector(bytes: &[u8], i: &mut usize, rules: &Rules) -> Result<Option<u32>, Stop> {
    if !(rules.vectors && bytes[*i] == b'v') {
        return Ok(None);
    }
    *i += 1;
    match digits(bytes, i) {
        Some(n) if *i < bytes.len() => Ok(Some(n)),
        _ => Err(Stop::Incomplete),
    }
}

/// The length modifier at `i` (which is inside the format) and how many bytes it takes; `hl`
/// only with vectors, `wN` and `wfN` only where `rules` has C23's lengths.
fn length(bytes: &[u8], i: usize, rules: &Rules) -> (Len, usize) {
    let next = |k: usize| bytes.get(i + k).copied();
    match bytes[i] {
        b'h' if next(1) == Some(b'h') => (Len::Hh, 2),
        b'h' if next(1) == Some(b'l') && rules.vectors => (Len::Hl, 2),
        b'h' => (Len::H, 1),
        b'l' if next(1) == Some(b'l') => (Len::Ll, 2),
        b'l' => (Len::L, 1),
        b'j' => (Len::J, 1),
        b'z' => (Len::Z, 1),
        b't' => (Len::T, 1),
        b'L' => (Len::BigL, 1),
        b'q' => (Len::Q, 1),
        b'I' if next(1) == Some(b'3') && next(2) == Some(b'2') => (Len::I32, 3),
        b'I' if next(1) == Some(b'6') && next(2) == Some(b'4') => (Len::I64, 3),
        b'I' => (Len::I, 1),
        b'w' if rules.c23_width_lengths => {
            let fast = next(1) == Some(b'f');
            let mut j = i + 1 + usize::from(fast);
            match digits(bytes, &mut j) {
                Some(n) => {
                    let n = u16::try_from(n).unwrap_or(u16::MAX);
                    let len = if fast { Len::FastN(n) } else { Len::WidthN(n) };
                    (len, j - i)
                }
                None => (Len::W, 1),
            }
        }
        b'w' => (Len::W, 1),
        _ => (Len::None, 0),
    }
}

/// How many `%` bytes `bytes` has: at least as many as its specifications, so a list sized by
/// it is allocated once.
pub(crate) fn percent_signs(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'%').count()
}
