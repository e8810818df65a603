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
            b'%' => {
                let (event, next) = scan_spec(bytes, i, rules);
                let stop = !matches!(event, Event::Spec(_));
                events.push(event);
                if stop {
                    return events;
                }
                i = next;
            }
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

/// Why reading a `*` amount stopped the scan.
enum Stop {
    Incomplete,
    ZeroPosition(usize),
    InvalidPosition(usize, bool),
}

impl Stop {
    fn event(self, start: usize) -> Event {
        match self {
            Stop::Incomplete => Event::Incomplete { start },
            Stop::ZeroPosition(at) => Event::ZeroPosition { at },
            Stop::InvalidPosition(at, precision) => Event::InvalidPosition { at, precision },
        }
    }
}

fn scan_spec(bytes: &[u8], start: usize, rules: &Rules) -> (Event, usize) {
    let incomplete = || (Event::Incomplete { start }, bytes.len());
    let end = bytes.len();
    let mut i = start + 1;
    if i == end {
        return incomplete();
    }
    // `N$`: a position, else the digits are a width read again below.
    let mut position = None;
    {
        let mut j = i;
        if let Some(n) = digits(bytes, &mut j) {
            if j == end {
                return incomplete();
            }
            if bytes[j] == b'$' {
                if n == 0 {
                    return (Event::ZeroPosition { at: i }, end);
                }
                position = Some(n);
                i = j + 1;
            }
        }
    }
    if i == end {
        return incomplete();
    }
    let mut flags = FlagsAt::default();
    while let Some(&b) = bytes.get(i) {
        let slot = match b {
            b'-' => &mut flags.left,
            b'+' => &mut flags.plus,
            b' ' => &mut flags.space,
            b'#' => &mut flags.alt,
            b'0' => &mut flags.zero,
            b'\'' => &mut flags.thousands,
            _ => break,
        };
        slot.get_or_insert(i);
        i += 1;
    }
    if i == end {
        return incomplete();
    }
    let positional = position.is_some();
    // The `Err` is a stopping event without a spec (never `Event::Spec`).
    let amount = |i: &mut usize, precision: bool| -> Result<Option<Amount>, Stop> {
        if bytes.get(*i) == Some(&b'*') {
            let star_at = *i;
            *i += 1;
            if !positional {
                return Ok(Some(Amount::Star(None)));
            }
            match digits(bytes, i) {
                None => Ok(Some(Amount::Star(None))),
                Some(_) if *i == end => Err(Stop::Incomplete),
                Some(0) if bytes[*i] == b'$' => Err(Stop::ZeroPosition(star_at)),
                Some(n) if bytes[*i] == b'$' => {
                    *i += 1;
                    Ok(Some(Amount::Star(Some(n))))
                }
                Some(_) => Err(Stop::InvalidPosition(star_at, precision)),
            }
        } else {
            Ok(digits(bytes, i).map(Amount::Fixed))
        }
    };
    let width_at = i;
    let width = match amount(&mut i, false) {
        Ok(width) => width,
        Err(stop) => return (stop.event(start), end),
    };
    if i == end {
        return incomplete();
    }
    let precision_at = i;
    let mut precision = None;
    if bytes[i] == b'.' {
        i += 1;
        if i == end {
            return incomplete();
        }
        precision = match amount(&mut i, true) {
            Ok(p) => Some(p.unwrap_or(Amount::Empty)),
            Err(stop) => return (stop.event(start), end),
        };
        if i == end {
            return incomplete();
        }
    }
    let vector_at = i;
    let mut vector = None;
    if rules.vectors && bytes[i] == b'v' {
        i += 1;
        match digits(bytes, &mut i) {
            Some(n) if i < end => vector = Some(n),
            _ => return incomplete(),
        }
    }
    let length_at = i;
    let next = |k: usize| bytes.get(i + k).copied();
    let (length, size) = match bytes[i] {
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
    };
    i += size;
    if i == end {
        return incomplete();
    }
    if bytes[i] == 0 {
        return (Event::Nul { at: i }, end);
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
    let spec = RawSpec {
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
    };
    (Event::Spec(spec), end)
}

/// How many `%` bytes `bytes` has: at least as many as its specifications, so a list sized by
/// it is allocated once.
pub(crate) fn percent_signs(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'%').count()
}
