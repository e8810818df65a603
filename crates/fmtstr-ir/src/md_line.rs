//! A byte scanner for the metadata definitions LLVM writes by the thousand.
//!
//! Input: the text at a top-level `!N` token. Output: the definition's parts, read straight
//! from the bytes, when the line has one of the shapes below; `None` for anything else, which
//! the token parser then reads (and reports, if it is wrong).
//!
//! ```text
//! !N = [distinct ]!DIName(key: value, value, ...)
//! !N = [distinct ]!{!M, null, ...}
//! !N = [distinct ]!"text"
//! ```
//!
//! A specialized node's field value is kept as text, as the token parser keeps it; here a
//! value may only be a run of `!M` references, decimal integers, keywords, strings and `|`,
//! separated by spaces: the shapes whose tokens are known from their bytes alone. Debug info
//! is almost all such lines, and lexing them token by token was most of a `-g` module's
//! skeleton parse.
//!
//! The parts come out in the order the token parser would make them, so that a definition
//! read here gets the same node ids and operands as one read token by token (the IR tests
//! check both readings agree on LLVM's whole test tree).

use crate::inst::Text;

/// One operand of the node, in source order.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LineOp {
    /// A specialized node's `key:` (with its colon; empty for a positional value) and value.
    Field(Text, Text),
    /// A tuple's `!M`: the index of its reference in [`MdLine::refs`].
    Node(u32),
    /// A tuple's `null`.
    Null,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineKind {
    /// `!DIName(...)`: the `!DIName` token.
    Specialized(Text),
    Tuple,
    /// `!"..."`: the string token, quotes included.
    String(Text),
}

/// A definition read by [`scan`]. `refs` and `ops` are the caller's buffers, cleared first.
#[derive(Debug)]
pub(crate) struct MdLine {
    pub number: u32,
    pub distinct: bool,
    pub kind: LineKind,
    /// Where the node ends (just past `)`, `}` or the closing quote).
    pub end: u32,
}

/// Reads the definition at `at` (an `!N` token). Every `!M` reference is pushed to `refs`
/// as (number, offset of its `!`), in source order; the operands to `ops`.
pub(crate) fn scan(
    src: &[u8],
    at: usize,
    refs: &mut Vec<(u32, u32)>,
    ops: &mut Vec<LineOp>,
) -> Option<MdLine> {
    refs.clear();
    ops.clear();
    let mut s = Scanner { src, pos: at };
    s.eat(b'!')?;
    let number = s.number()?;
    s.spaces();
    s.eat(b'=')?;
    s.spaces();
    let distinct = s.keyword(b"distinct");
    if distinct {
        s.spaces();
    }
    let node_start = s.pos;
    s.eat(b'!')?;
    let kind = match s.peek() {
        b'{' => {
            s.pos += 1;
            s.spaces();
            if s.peek() != b'}' {
                loop {
                    if s.keyword(b"null") {
                        ops.push(LineOp::Null);
                    } else {
                        let (number, offset) = s.reference()?;
                        ops.push(LineOp::Node(refs.len() as u32));
                        refs.push((number, offset));
                    }
                    s.spaces();
                    if !s.comma() {
                        break;
                    }
                }
            }
            s.eat(b'}')?;
            LineKind::Tuple
        }
        b'"' => {
            let token = s.string()?;
            LineKind::String(token)
        }
        c if c.is_ascii_alphabetic() => {
            let name_start = node_start;
            s.word();
            // `!DIArgList` holds typed values; a name with `.` or `-` is rare enough to leave.
            if s.peek() != b'(' || &src[name_start..s.pos] == b"!DIArgList" {
                return None;
            }
            let name = text(name_start, s.pos);
            s.pos += 1;
            s.spaces();
            if &src[name_start..s.pos - 1] == b"!DILocation" && s.location(refs, ops) {
                // Read whole.
            } else if s.peek() != b')' {
                loop {
                    let key = s.key();
                    s.spaces();
                    let value = s.value(refs)?;
                    ops.push(LineOp::Field(key, value));
                    if !s.comma() {
                        break;
                    }
                }
            }
            s.eat(b')')?;
            LineKind::Specialized(name)
        }
        _ => return None,
    };
    Some(MdLine {
        number,
        distinct,
        kind,
        end: s.pos as u32,
    })
}

fn text(start: usize, end: usize) -> Text {
    Text {
        start: start as u32,
        end: end as u32,
    }
}

struct Scanner<'s> {
    src: &'s [u8],
    pos: usize,
}

/// The bytes that end a number or keyword token where the lexer ends it too (0: the end).
static DELIMITER: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let bytes = b" ,)}|\n\0";
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

impl Scanner<'_> {
    #[inline(always)]
    fn peek(&self) -> u8 {
        self.src.get(self.pos).copied().unwrap_or(0)
    }

    #[inline(always)]
    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek() == b).then(|| self.pos += 1)
    }

    #[inline(always)]
    fn spaces(&mut self) {
        while self.peek() == b' ' {
            self.pos += 1;
        }
    }

    /// `,` and the spaces after it.
    #[inline(always)]
    fn comma(&mut self) -> bool {
        if self.peek() != b',' {
            return false;
        }
        self.pos += 1;
        self.spaces();
        true
    }

    /// Whether a token that ends here ends where the lexer would end it.
    #[inline(always)]
    fn at_delimiter(&self) -> bool {
        DELIMITER[self.peek() as usize]
    }

    /// `[A-Za-z0-9_]*` from here.
    #[inline(always)]
    fn word(&mut self) {
        while crate::lexer::is_word_byte(self.peek()) {
            self.pos += 1;
        }
    }

    /// Decimal digits, and their value if it fits a u32.
    #[inline(always)]
    fn digits(&mut self) -> Option<Option<u32>> {
        let start = self.pos;
        let mut value: u64 = 0;
        while let Some(&d) = self.src.get(self.pos).filter(|d| d.is_ascii_digit()) {
            // Saturates long before it could wrap: 20 digits overflow u32 anyway.
            value = value.saturating_mul(10).saturating_add(u64::from(d - b'0'));
            self.pos += 1;
        }
        // As `lexer::parse_u32` reads them: more than ten digits are out of range.
        let fits = self.pos - start <= 10;
        (self.pos > start).then(|| u32::try_from(value).ok().filter(|_| fits))
    }

    /// Decimal digits that fit a u32, as the lexer's `!N` token ends them.
    #[inline(always)]
    fn number(&mut self) -> Option<u32> {
        let value = self.digits()??;
        if !matches!(self.peek(), b' ' | b'=' | b',' | b'}' | b')' | b'|') {
            return None;
        }
        Some(value)
    }

    /// `!DILocation`'s fields as clang writes them, `line: L, column: C, scope: !S` and an
    /// optional `, inlinedAt: !I`, up to (not past) `)`: nine lines in ten of a module with
    /// debug info, so they are matched as they are spelled rather than field by field. False,
    /// with nothing read, for any other spelling.
    fn location(&mut self, refs: &mut Vec<(u32, u32)>, ops: &mut Vec<LineOp>) -> bool {
        let start = self.pos;
        let (refs_len, ops_len) = (refs.len(), ops.len());
        let read = self.location_fields(refs, ops).is_some() && self.peek() == b')';
        if !read {
            self.pos = start;
            refs.truncate(refs_len);
            ops.truncate(ops_len);
        }
        read
    }

    fn location_fields(&mut self, refs: &mut Vec<(u32, u32)>, ops: &mut Vec<LineOp>) -> Option<()> {
        self.number_field(b"line: ", ops)?;
        self.literal(b", ")?;
        self.number_field(b"column: ", ops)?;
        self.literal(b", ")?;
        self.reference_field(b"scope: ", refs, ops)?;
        if self.peek() == b',' {
            self.literal(b", ")?;
            self.reference_field(b"inlinedAt: ", refs, ops)?;
        }
        Some(())
    }

    /// `key` (its colon and one space) spelled exactly here.
    #[inline(always)]
    fn literal(&mut self, key: &[u8]) -> Option<()> {
        let end = self.pos + key.len();
        (self.src.get(self.pos..end)? == key).then(|| self.pos = end)
    }

    /// `key: 123`: the label token is `key` without its trailing space.
    #[inline(always)]
    fn number_field(&mut self, key: &[u8], ops: &mut Vec<LineOp>) -> Option<()> {
        let key_start = self.pos;
        self.literal(key)?;
        let value_start = self.pos;
        self.digits()?;
        if !self.at_delimiter() {
            return None;
        }
        ops.push(LineOp::Field(
            text(key_start, key_start + key.len() - 1),
            text(value_start, self.pos),
        ));
        Some(())
    }

    /// `key: !N`.
    #[inline(always)]
    fn reference_field(
        &mut self,
        key: &[u8],
        refs: &mut Vec<(u32, u32)>,
        ops: &mut Vec<LineOp>,
    ) -> Option<()> {
        let key_start = self.pos;
        self.literal(key)?;
        let value_start = self.pos;
        refs.push(self.reference()?);
        ops.push(LineOp::Field(
            text(key_start, key_start + key.len() - 1),
            text(value_start, self.pos),
        ));
        Some(())
    }

    /// `word` alone, as a keyword token.
    fn keyword(&mut self, word: &[u8]) -> bool {
        let end = self.pos + word.len();
        if self.src.get(self.pos..end) != Some(word) {
            return false;
        }
        let saved = self.pos;
        self.pos = end;
        if self.at_delimiter() && self.peek() != b'|' {
            return true;
        }
        self.pos = saved;
        false
    }

    /// `!M`: its number and the offset of its `!`.
    fn reference(&mut self) -> Option<(u32, u32)> {
        let offset = self.pos as u32;
        self.eat(b'!')?;
        Some((self.number()?, offset))
    }

    /// A `"..."` token that is not a label.
    fn string(&mut self) -> Option<Text> {
        let start = self.pos;
        self.eat(b'"')?;
        let close = memchr::memchr(b'"', &self.src[self.pos..])?;
        self.pos += close + 1;
        if self.peek() == b':' {
            return None;
        }
        Some(text(start, self.pos))
    }

    /// `key:` (a label token), or nothing before a positional value.
    fn key(&mut self) -> Text {
        let start = self.pos;
        if self.peek().is_ascii_alphabetic() || self.peek() == b'_' {
            self.word();
            if self.peek() == b':' {
                self.pos += 1;
                return text(start, self.pos);
            }
        }
        self.pos = start;
        text(start, start)
    }

    /// A field value up to `,` or `)`: references (pushed to `refs`), integers, keywords,
    /// strings and `|`, separated by spaces. Its text ends at its last token.
    fn value(&mut self, refs: &mut Vec<(u32, u32)>) -> Option<Text> {
        let start = self.pos;
        let mut end = start;
        loop {
            match self.peek() {
                b',' | b')' => break,
                b' ' => {
                    self.pos += 1;
                    continue;
                }
                b'!' => {
                    let (number, offset) = self.reference()?;
                    refs.push((number, offset));
                }
                b'"' => {
                    self.string()?;
                }
                b'|' => self.pos += 1,
                b'-' => {
                    self.pos += 1;
                    self.digits()?;
                    if !self.at_delimiter() {
                        return None;
                    }
                }
                b'0'..=b'9' => {
                    self.digits()?;
                    if !self.at_delimiter() {
                        return None;
                    }
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    self.word();
                    if !self.at_delimiter() {
                        return None;
                    }
                }
                _ => return None,
            }
            end = self.pos;
        }
        Some(text(start, end))
    }
}
