//! The lexer: LLVM 19's assembly language as a stream of byte spans.
//!
//! Input: a module's bytes. Output: tokens, `(kind, start, end)` spans over them; and the
//! byte-level helpers that decode and spell names and strings.
//!
//! Tokens are `(kind, start, end)` over the source bytes; nothing is copied or decoded here, so
//! that lexing a 50 MB module costs one pass over its bytes. Names keep their sigil and quotes;
//! [`local_key`] and friends decode them when a name is compared. The token set follows LLVM's
//! `LLLexer` (identifiers, labels, metadata, attribute groups, comdats, summary entries, C and
//! line comments), with one convenience: `!N` is a single [`Tok::MetadataId`] token.

/// What a token is. Keywords and primitive type names are all [`Tok::Ident`]: the parser knows
/// which words it expects where, and LLVM adds keywords in every release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Eof,
    /// Bytes that start no token; `Lexer::error` says why.
    Error,
    Equal,
    Comma,
    Star,
    LSquare,
    RSquare,
    LBrace,
    RBrace,
    Less,
    Greater,
    LParen,
    RParen,
    /// `!` not followed by a name or number (`!{`, `!"..."`).
    Exclaim,
    Bar,
    DotDotDot,
    /// `%name` or `%"quoted"`.
    LocalVar,
    /// `%12`.
    LocalId,
    /// `@name` or `@"quoted"`.
    GlobalVar,
    /// `@12`.
    GlobalId,
    /// `$name` or `$"quoted"`.
    ComdatVar,
    /// `!name` (metadata kinds, named metadata, specialized node names such as `!DILocation`).
    MetadataVar,
    /// `!12`.
    MetadataId,
    /// `#12`.
    AttrGroupId,
    /// `#dbg_value` and the other debug record kinds.
    DbgRecord,
    /// `^12`.
    SummaryId,
    /// `name:` or `"quoted":` (block labels, and the field names of specialized metadata).
    LabelStr,
    /// `12:`.
    LabelId,
    /// Keywords and type names: `define`, `i32`, `ptr`, `x`, `DW_TAG_member`, ...
    Ident,
    /// A decimal integer, possibly negative, or an `s0x`/`u0x` hexadecimal integer.
    Int,
    /// A decimal floating literal or a `0x`, `0xK`, `0xL`, `0xM`, `0xH`, `0xR` hex literal.
    Float,
    /// `"..."`.
    Str,
    /// `c"..."`.
    CStr,
}

/// One token: its kind and the byte range it covers in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
}

const NAME: u8 = 1; // may appear in `%name`, `@name`, `!name`, labels: [-a-zA-Z$._0-9]
const NAME_START: u8 = 2; // may start such a name: [-a-zA-Z$._]
const WORD: u8 = 4; // keyword characters: [a-zA-Z0-9_]
const DIGIT: u8 = 8;
const HEX: u8 = 16;
const SPACE: u8 = 32; // ' ', '\t', '\n', '\r'
const ALPHA: u8 = 64;

static CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let mut k = 0;
        let alpha = b.is_ascii_alphabetic();
        if alpha || b.is_ascii_digit() || matches!(b, b'-' | b'$' | b'.' | b'_') {
            k |= NAME;
        }
        if alpha || matches!(b, b'-' | b'$' | b'.' | b'_') {
            k |= NAME_START;
        }
        if alpha || b.is_ascii_digit() || b == b'_' {
            k |= WORD;
        }
        if b.is_ascii_digit() {
            k |= DIGIT;
        }
        if b.is_ascii_hexdigit() {
            k |= HEX;
        }
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            k |= SPACE;
        }
        if alpha {
            k |= ALPHA;
        }
        table[c] = k;
        c += 1;
    }
    table
};

/// The single-byte punctuation tokens, by their byte.
static PUNCT: [Option<Tok>; 256] = {
    let mut table = [None; 256];
    table[b'=' as usize] = Some(Tok::Equal);
    table[b',' as usize] = Some(Tok::Comma);
    table[b'*' as usize] = Some(Tok::Star);
    table[b'[' as usize] = Some(Tok::LSquare);
    table[b']' as usize] = Some(Tok::RSquare);
    table[b'{' as usize] = Some(Tok::LBrace);
    table[b'}' as usize] = Some(Tok::RBrace);
    table[b'<' as usize] = Some(Tok::Less);
    table[b'>' as usize] = Some(Tok::Greater);
    table[b'(' as usize] = Some(Tok::LParen);
    table[b')' as usize] = Some(Tok::RParen);
    table[b'|' as usize] = Some(Tok::Bar);
    table
};

#[inline]
fn is(class: u8, b: u8) -> bool {
    CLASS[b as usize] & class != 0
}

/// Whether `b` may appear in a name (`%name`, `@name`, labels): `[-a-zA-Z$._0-9]`.
#[inline(always)]
pub(crate) fn is_name_byte(b: u8) -> bool {
    CLASS[b as usize] & NAME != 0
}

/// Whether `b` may continue a keyword: `[a-zA-Z0-9_]`.
#[inline(always)]
pub(crate) fn is_word_byte(b: u8) -> bool {
    CLASS[b as usize] & WORD != 0
}

/// A cursor over the source. Cloning it is how the parser looks ahead.
#[derive(Clone, Debug)]
pub(crate) struct Lexer<'s> {
    src: &'s [u8],
    pos: usize,
    /// Why the last [`Tok::Error`] token was produced.
    pub error: &'static str,
}

impl<'s> Lexer<'s> {
    pub fn new(src: &'s [u8]) -> Self {
        Lexer {
            src,
            pos: 0,
            error: "",
        }
    }

    pub fn at(src: &'s [u8], pos: usize) -> Self {
        Lexer {
            src,
            pos: pos.min(src.len()),
            error: "",
        }
    }

    #[inline(always)]
    fn peek(&self, ahead: usize) -> u8 {
        self.src.get(self.pos + ahead).copied().unwrap_or(0)
    }

    #[inline]
    fn eat_while(&mut self, class: u8) {
        let src = self.src;
        let mut i = self.pos;
        while i < src.len() && CLASS[src[i] as usize] & class != 0 {
            i += 1;
        }
        self.pos = i;
    }

    /// Scans a `"..."` string whose opening quote is at `self.pos`; false if unterminated.
    fn scan_string(&mut self) -> bool {
        match memchr(b'"', &self.src[self.pos + 1..]) {
            Some(i) => {
                self.pos += i + 2;
                true
            }
            None => {
                self.pos = self.src.len();
                false
            }
        }
    }

    fn error(&mut self, start: usize, why: &'static str) -> Token {
        self.error = why;
        if self.pos <= start {
            // Always make progress, whatever the input.
            self.pos = (start + 1).min(self.src.len());
        }
        make(Tok::Error, start, self.pos)
    }

    /// The next token.
    #[inline]
    pub fn next_token(&mut self) -> Token {
        let mut one = [make(Tok::Eof, 0, 0)];
        self.fill::<false>(&mut one);
        one[0]
    }

    /// Lexes tokens into `out` until it is full or an end-of-file or error token was stored;
    /// returns how many were stored.
    ///
    /// Long because each common token is stored where it is recognised: funnelling every path
    /// through one returned `Token` made the compiler assemble it on the stack and read it back
    /// wider than it was written, a store-forwarding stall on every token.
    ///
    /// With `STOP_AT_BRACE`, a batch also ends after a `{`: a skeleton parse moves past a
    /// function's body from its opening brace, so tokens lexed beyond it are thrown away.
    #[inline(always)]
    pub fn fill<const STOP_AT_BRACE: bool>(&mut self, out: &mut [Token]) -> usize {
        let src = self.src;
        let len = src.len();
        let mut i = self.pos;
        let mut n = 0;
        while n < out.len() {
            // Whitespace and comments. Single spaces and newlines dominate; runs of spaces
            // (indentation, the padding before `; preds`) are skipped eight at a time.
            let Some(&b) = src.get(i) else {
                self.pos = len;
                out[n] = make(Tok::Eof, len, len);
                return n + 1;
            };
            // Tests rather than a `match`: it compiled to a jump table, an indirect branch
            // mispredicted at every token.
            if b == b' ' {
                i += 1;
                if src.get(i) == Some(&b' ') {
                    while let Some(chunk) = src.get(i..i + 8) {
                        if chunk != b"        " {
                            break;
                        }
                        i += 8;
                    }
                }
                continue;
            }
            if b == b'\n' {
                // A new line and its indentation (two spaces in a body) at once.
                i += 1;
                while src.get(i) == Some(&b' ') {
                    i += 1;
                }
                continue;
            }
            if b == b'\t' || b == b'\r' {
                i += 1;
                continue;
            }
            if b == b';' {
                i = match memchr(b'\n', &src[i..]) {
                    Some(k) => i + k,
                    None => len,
                };
                continue;
            }
            if b == b'/' && src.get(i + 1) == Some(&b'*') {
                match src[i + 2..].windows(2).position(|w| w == b"*/") {
                    Some(k) => i += 2 + k + 2,
                    None => {
                        self.pos = len;
                        self.error = "unterminated comment";
                        out[n] = make(Tok::Error, len, len);
                        return n + 1;
                    }
                }
                continue;
            }
            let start = i;
            // Fast paths for the most common tokens: keywords and types, `%N`/`%name`, `,`.
            if CLASS[b as usize] & ALPHA != 0 && !(b == b'c' && src.get(i + 1) == Some(&b'"')) {
                let mut j = i + 1;
                while j < len && CLASS[src[j] as usize] & WORD != 0 {
                    j += 1;
                }
                let next = src.get(j).copied().unwrap_or(b' ');
                if next != b':' && CLASS[next as usize] & NAME == 0 {
                    out[n] = make(Tok::Ident, start, j);
                    n += 1;
                    i = past_space(src, j);
                    continue;
                }
            } else if b == b'%' {
                let mut j = i + 1;
                if j < len && CLASS[src[j] as usize] & DIGIT != 0 {
                    while j < len && CLASS[src[j] as usize] & DIGIT != 0 {
                        j += 1;
                    }
                    if j >= len || CLASS[src[j] as usize] & NAME == 0 {
                        out[n] = make(Tok::LocalId, start, j);
                        n += 1;
                        i = past_space(src, j);
                        continue;
                    }
                } else if j < len && CLASS[src[j] as usize] & NAME_START != 0 {
                    while j < len && CLASS[src[j] as usize] & NAME != 0 {
                        j += 1;
                    }
                    out[n] = make(Tok::LocalVar, start, j);
                    n += 1;
                    i = past_space(src, j);
                    continue;
                }
            } else if b == b'!' {
                // `!dbg !12`: an attachment on most instructions of a module with debug info.
                let mut j = i + 1;
                let c = src.get(j).copied().unwrap_or(0);
                if CLASS[c as usize] & DIGIT != 0 {
                    while j < len && CLASS[src[j] as usize] & DIGIT != 0 {
                        j += 1;
                    }
                    out[n] = make(Tok::MetadataId, start, j);
                    n += 1;
                    i = past_space(src, j);
                    continue;
                }
                if CLASS[c as usize] & NAME_START != 0 {
                    while j < len && (CLASS[src[j] as usize] & NAME != 0 || src[j] == b'\\') {
                        j += 1;
                    }
                    out[n] = make(Tok::MetadataVar, start, j);
                    n += 1;
                    i = past_space(src, j);
                    continue;
                }
            } else if let Some(kind) = PUNCT[b as usize] {
                out[n] = make(kind, start, i + 1);
                n += 1;
                i = past_space(src, i + 1);
                if STOP_AT_BRACE && kind == Tok::LBrace {
                    break;
                }
                continue;
            } else if CLASS[b as usize] & DIGIT != 0 {
                // A plain decimal integer; `0x...`, floats, `12:` and the rest take the slow
                // path.
                let mut j = i + 1;
                while j < len && CLASS[src[j] as usize] & DIGIT != 0 {
                    j += 1;
                }
                let next = src.get(j).copied().unwrap_or(b' ');
                if next != b':' && CLASS[next as usize] & NAME == 0 {
                    out[n] = make(Tok::Int, start, j);
                    n += 1;
                    i = past_space(src, j);
                    continue;
                }
            }
            // The slow path runs on a copy, so that this cursor never escapes and its fields
            // can live in registers in this loop.
            let mut slow = Lexer {
                src,
                pos: start,
                error: "",
            };
            let t = slow.other_token(start);
            i = slow.pos;
            out[n] = t;
            n += 1;
            if t.kind == Tok::Error {
                self.error = slow.error;
                break;
            }
        }
        self.pos = i;
        n
    }

    /// Every token but the common ones [`Lexer::fill`] handles inline.
    #[inline(never)]
    fn other_token(&mut self, start: usize) -> Token {
        let b = self.src[start];
        self.pos = start + 1;
        let kind = match b {
            b'=' => Tok::Equal,
            b',' => Tok::Comma,
            b'*' => Tok::Star,
            b'[' => Tok::LSquare,
            b']' => Tok::RSquare,
            b'{' => Tok::LBrace,
            b'}' => Tok::RBrace,
            b'<' => Tok::Less,
            b'>' => Tok::Greater,
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'|' => Tok::Bar,
            b'%' => return self.sigil(start, Tok::LocalVar, Tok::LocalId),
            b'@' => return self.sigil(start, Tok::GlobalVar, Tok::GlobalId),
            b'$' => {
                if self.peek(0) == b'"' {
                    if !self.scan_string() {
                        return self.error(start, "unterminated quoted name");
                    }
                    return make(Tok::ComdatVar, start, self.pos);
                }
                if is(NAME_START, self.peek(0)) {
                    self.eat_while(NAME);
                    if self.peek(0) == b':' {
                        self.pos += 1;
                        return make(Tok::LabelStr, start, self.pos);
                    }
                    return make(Tok::ComdatVar, start, self.pos);
                }
                return self.error(start, "expected a name after '$'");
            }
            b'!' => {
                let c = self.peek(0);
                if is(DIGIT, c) {
                    self.eat_while(DIGIT);
                    return make(Tok::MetadataId, start, self.pos);
                }
                if is(NAME_START, c) || c == b'\\' {
                    while let Some(&b) = self.src.get(self.pos) {
                        if !(is(NAME, b) || b == b'\\') {
                            break;
                        }
                        self.pos += 1;
                    }
                    return make(Tok::MetadataVar, start, self.pos);
                }
                Tok::Exclaim
            }
            b'#' => {
                if is(DIGIT, self.peek(0)) {
                    self.eat_while(DIGIT);
                    return make(Tok::AttrGroupId, start, self.pos);
                }
                if self.src[self.pos..].starts_with(b"dbg_") {
                    self.eat_while(WORD);
                    return make(Tok::DbgRecord, start, self.pos);
                }
                return self.error(start, "expected an attribute group number after '#'");
            }
            b'^' => {
                if is(DIGIT, self.peek(0)) {
                    self.eat_while(DIGIT);
                    return make(Tok::SummaryId, start, self.pos);
                }
                return self.error(start, "expected a summary entry number after '^'");
            }
            b'"' => {
                self.pos = start;
                if !self.scan_string() {
                    return self.error(start, "unterminated string");
                }
                if self.peek(0) == b':' {
                    self.pos += 1;
                    return make(Tok::LabelStr, start, self.pos);
                }
                Tok::Str
            }
            b'.' => {
                if self.peek(0) == b'.' && self.peek(1) == b'.' {
                    self.pos += 2;
                    Tok::DotDotDot
                } else {
                    return self.word(start);
                }
            }
            b'-' | b'0'..=b'9' => return self.number(start),
            b'+' => {
                if is(DIGIT, self.peek(0)) {
                    return self.number(start);
                }
                return self.error(start, "expected a number after '+'");
            }
            b'c' if self.peek(0) == b'"' => {
                if !self.scan_string() {
                    return self.error(start, "unterminated string");
                }
                Tok::CStr
            }
            _ if is(NAME_START, b) => return self.word(start),
            _ => return self.error(start, "unexpected character"),
        };
        make(kind, start, self.pos)
    }

    /// `%`/`@` followed by a name, a quoted name or a number.
    fn sigil(&mut self, start: usize, named: Tok, numbered: Tok) -> Token {
        let c = self.peek(0);
        if c == b'"' {
            if !self.scan_string() {
                return self.error(start, "unterminated quoted name");
            }
            return make(named, start, self.pos);
        }
        if is(DIGIT, c) {
            // As in LLVM, a number ends where its digits end: `%0load` is `%0` then `load`.
            self.eat_while(DIGIT);
            return make(numbered, start, self.pos);
        }
        if is(NAME_START, c) {
            self.eat_while(NAME);
            return make(named, start, self.pos);
        }
        self.error(start, "expected a name or number after the sigil")
    }

    /// A keyword or a label (`name:`).
    #[inline]
    fn word(&mut self, start: usize) -> Token {
        // Keywords are [a-zA-Z0-9_]; labels may also hold `-$.` and end in `:`. Scan the
        // keyword first (the common case), and go on as a label only if it continues.
        self.pos = start;
        self.eat_while(WORD);
        let keyword_end = self.pos;
        let next = self.peek(0);
        if next == b':' || is(NAME, next) {
            self.eat_while(NAME);
            if self.peek(0) == b':' {
                self.pos += 1;
                return make(Tok::LabelStr, start, self.pos);
            }
            // Not a label: the rest (for example `.` in `x.y`) is lexed again, as LLVM does.
            self.pos = keyword_end;
        }
        if self.pos == start {
            self.pos = start + 1;
            self.error = "unexpected character";
            return make(Tok::Error, start, self.pos);
        }
        make(Tok::Ident, start, self.pos)
    }

    /// Integers, floats, hex floats, `s0x`/`u0x` integers and numeric labels (`12:`).
    fn number(&mut self, start: usize) -> Token {
        self.pos = start;
        let first = self.peek(0);
        if first == b'-' || first == b'+' {
            self.pos += 1;
            if !is(DIGIT, self.peek(0)) {
                // `-name:` is a label in LLVM.
                self.pos = start;
                self.eat_while(NAME);
                if self.peek(0) == b':' && self.pos > start + 1 {
                    self.pos += 1;
                    return make(Tok::LabelStr, start, self.pos);
                }
                return self.error(start, "expected a number after '-'");
            }
        }
        if first == b'0' && self.peek(1) == b'x' {
            self.pos += 2;
            if matches!(self.peek(0), b'K' | b'L' | b'M' | b'H' | b'R') {
                self.pos += 1;
            }
            let digits = self.pos;
            self.eat_while(HEX);
            if self.pos == digits {
                return self.error(start, "expected hexadecimal digits");
            }
            return make(Tok::Float, start, self.pos);
        }
        let digits = self.pos;
        self.eat_while(DIGIT);
        if self.pos == digits {
            return self.error(start, "expected digits");
        }
        match self.peek(0) {
            b'.' => {
                self.pos += 1;
                self.eat_while(DIGIT);
                if matches!(self.peek(0), b'e' | b'E') {
                    let save = self.pos;
                    self.pos += 1;
                    if matches!(self.peek(0), b'-' | b'+') {
                        self.pos += 1;
                    }
                    if is(DIGIT, self.peek(0)) {
                        self.eat_while(DIGIT);
                    } else {
                        self.pos = save;
                    }
                }
                make(Tok::Float, start, self.pos)
            }
            b':' if first != b'-' && first != b'+' => {
                self.pos += 1;
                make(Tok::LabelId, start, self.pos)
            }
            // `-3:` is a label named "-3", as in LLVM.
            b':' if first == b'-' => {
                self.pos += 1;
                make(Tok::LabelStr, start, self.pos)
            }
            c if is(NAME, c) && first != b'+' => {
                // `1abc:` is a label; otherwise the number ends where the digits end, as in
                // LLVM (`[11x i8]` is `[11 x i8]`).
                let number_end = self.pos;
                self.eat_while(NAME);
                if self.peek(0) == b':' {
                    self.pos += 1;
                    return make(Tok::LabelStr, start, self.pos);
                }
                self.pos = number_end;
                make(Tok::Int, start, self.pos)
            }
            _ => make(Tok::Int, start, self.pos),
        }
    }
}

/// Also handles `s0x`/`u0x` integers, which start like words.
pub(crate) fn is_hex_int(text: &[u8]) -> bool {
    text.len() > 3 && matches!(text[0], b's' | b'u') && text[1] == b'0' && text[2] == b'x'
}

/// Where lexing goes on after a token that ends at `end`: past the single space that usually
/// follows it, which would otherwise cost a turn of the loop of its own.
#[inline(always)]
fn past_space(src: &[u8], end: usize) -> usize {
    end + usize::from(src.get(end) == Some(&b' '))
}

#[inline]
fn make(kind: Tok, start: usize, end: usize) -> Token {
    // The parser rejects inputs of 4 GiB or more before lexing, so offsets fit.
    Token {
        kind,
        start: start as u32,
        end: end as u32,
    }
}

/// The first index of `needle` in `haystack` (short scans: comments to the end of a line).
#[inline]
pub(crate) fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

/// The end of a plain local token at `pos` (`%name` or `%N`) and whether it is numbered, as
/// [`Lexer::next_token`] would lex it there; `None` for anything else (a quoted name, another
/// token), which needs the lexer.
#[inline]
pub(crate) fn quick_local(src: &[u8], pos: usize) -> Option<(usize, bool)> {
    if src.get(pos) != Some(&b'%') {
        return None;
    }
    let len = src.len();
    let mut j = pos + 1;
    if j < len && CLASS[src[j] as usize] & DIGIT != 0 {
        while j < len && CLASS[src[j] as usize] & DIGIT != 0 {
            j += 1;
        }
        if j >= len || CLASS[src[j] as usize] & NAME == 0 {
            return Some((j, true));
        }
        None
    } else if j < len && CLASS[src[j] as usize] & NAME_START != 0 {
        while j < len && CLASS[src[j] as usize] & NAME != 0 {
            j += 1;
        }
        Some((j, false))
    } else {
        None
    }
}

/// The end of the line that `pos` is on, when only blanks and a comment follow; otherwise
/// `pos` itself (another token follows on the same line).
pub(crate) fn rest_of_line(src: &[u8], pos: u32) -> u32 {
    let mut i = pos as usize;
    // Label lines pad their `; preds` comment to column 50: skip spaces eight at a time.
    while let Some(chunk) = src.get(i..i + 8) {
        if chunk != b"        " {
            break;
        }
        i += 8;
    }
    while let Some(&b) = src.get(i) {
        if b == b' ' || b == b'\t' || b == b'\r' {
            i += 1;
        } else {
            break;
        }
    }
    match src.get(i) {
        Some(b';') => match memchr::memchr(b'\n', &src[i..]) {
            Some(n) => (i + n + 1) as u32,
            None => src.len() as u32,
        },
        Some(b'\n') => (i + 1) as u32,
        None => i as u32,
        _ => pos,
    }
}

/// Decodes a quoted string body (without quotes): `\\` and `\XX` escapes.
pub(crate) fn unescape(body: &[u8]) -> Vec<u8> {
    // The text between escapes goes over whole (most strings have one or two escapes, a
    // format string's `\0A\00`).
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = memchr::memchr(b'\\', rest) {
        out.extend_from_slice(&rest[..at]);
        rest = &rest[at..];
        if rest.get(1) == Some(&b'\\') {
            out.push(b'\\');
            rest = &rest[2..];
            continue;
        }
        if let (Some(&h), Some(&l)) = (rest.get(1), rest.get(2)) {
            if let (Some(h), Some(l)) = (hex_value(h), hex_value(l)) {
                out.push(h << 4 | l);
                rest = &rest[3..];
                continue;
            }
        }
        out.push(b'\\');
        rest = &rest[1..];
    }
    out.extend_from_slice(rest);
    out
}

pub(crate) fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Writes `bytes` as LLVM writes a quoted string body: printable ASCII except `"` and `\` as
/// is, everything else as `\XX` with upper-case hex digits.
pub(crate) fn escape_into(bytes: &[u8], out: &mut Vec<u8>) {
    const HEX_DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            out.push(b);
        } else {
            out.extend_from_slice(&[
                b'\\',
                HEX_DIGITS[(b >> 4) as usize],
                HEX_DIGITS[(b & 15) as usize],
            ]);
        }
    }
}

/// Whether LLVM prints `name` without quotes after a sigil: letters, digits, `-`, `.` and `_`
/// only (LLVM's lexer reads a bare `$` too, but its printer quotes it), not starting with a
/// digit (that would read back as a number).
pub(crate) fn is_bare_name(name: &[u8]) -> bool {
    match name.first() {
        Some(&first) => is(NAME_START, first) && name.iter().all(|&b| is(NAME, b) && b != b'$'),
        None => false,
    }
}

/// A local or global name as the program means it: numbered, or the decoded bytes of a name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum NameKey<'a> {
    Numbered(u32),
    Named(std::borrow::Cow<'a, [u8]>),
}

/// Decodes the name of a `%`/`@`/`$` token (with its sigil) or a label token (with its colon).
pub(crate) fn name_key(token_text: &[u8], numbered: bool) -> NameKey<'_> {
    let body = match token_text.first() {
        Some(b'%' | b'@') => &token_text[1..],
        // `$c` is a comdat; `$N:` a block label whose name starts with `$`.
        Some(b'$') if token_text.last() != Some(&b':') => &token_text[1..],
        _ => token_text,
    };
    let body = body.strip_suffix(b":").unwrap_or(body);
    if numbered {
        return NameKey::Numbered(parse_u32(body).unwrap_or(u32::MAX));
    }
    if body.len() >= 2 && body[0] == b'"' && body[body.len() - 1] == b'"' {
        let inner = &body[1..body.len() - 1];
        if inner.contains(&b'\\') {
            return NameKey::Named(std::borrow::Cow::Owned(unescape(inner)));
        }
        return NameKey::Named(std::borrow::Cow::Borrowed(inner));
    }
    NameKey::Named(std::borrow::Cow::Borrowed(body))
}

pub(crate) fn parse_u32(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 10 {
        return None;
    }
    let mut value: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        value = value * 10 + u64::from(d - b'0');
    }
    u32::try_from(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Tok, &str)> {
        let mut lexer = Lexer::new(src.as_bytes());
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token();
            if t.kind == Tok::Eof {
                return out;
            }
            out.push((t.kind, &src[t.start as usize..t.end as usize]));
        }
    }

    #[test]
    fn unescape_reads_llvm_escapes_and_keeps_the_rest() {
        // LLVM's string escapes: `\\` and `\HH` (either case); a backslash that starts
        // neither stays as it is.
        let cases: [(&[u8], &[u8]); 8] = [
            (b"", b""),
            (b"plain", b"plain"),
            (b"x=%d\\0A\\00", b"x=%d\n\0"),
            (b"a\\\\b", b"a\\b"),
            (b"\\5c\\5C", b"\\\\"),
            (b"\\G1", b"\\G1"),
            (b"end\\", b"end\\"),
            (b"\\4", b"\\4"),
        ];
        for (body, want) in cases {
            assert_eq!(unescape(body), want, "{:?}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn identifiers_and_sigils() {
        assert_eq!(
            kinds(r#"%x %12 %"a b" @g @3 @"q\22" $c !dbg !12 #0 #dbg_value ^4"#),
            vec![
                (Tok::LocalVar, "%x"),
                (Tok::LocalId, "%12"),
                (Tok::LocalVar, "%\"a b\""),
                (Tok::GlobalVar, "@g"),
                (Tok::GlobalId, "@3"),
                (Tok::GlobalVar, "@\"q\\22\""),
                (Tok::ComdatVar, "$c"),
                (Tok::MetadataVar, "!dbg"),
                (Tok::MetadataId, "!12"),
                (Tok::AttrGroupId, "#0"),
                (Tok::DbgRecord, "#dbg_value"),
                (Tok::SummaryId, "^4"),
            ]
        );
    }

    #[test]
    fn labels_numbers_strings() {
        assert_eq!(
            kinds("entry: 12: \"x y\": -1 42 1.5e+10 -0.0 0x3FF0000000000000 0xK4000 c\"hi\\00\" \"s\" ... ; c\n/* b */ x"),
            vec![
                (Tok::LabelStr, "entry:"),
                (Tok::LabelId, "12:"),
                (Tok::LabelStr, "\"x y\":"),
                (Tok::Int, "-1"),
                (Tok::Int, "42"),
                (Tok::Float, "1.5e+10"),
                (Tok::Float, "-0.0"),
                (Tok::Float, "0x3FF0000000000000"),
                (Tok::Float, "0xK4000"),
                (Tok::CStr, "c\"hi\\00\""),
                (Tok::Str, "\"s\""),
                (Tok::DotDotDot, "..."),
                (Tok::Ident, "x"),
            ]
        );
    }

    #[test]
    fn metadata_punctuation() {
        assert_eq!(
            kinds("!{!\"a\", null} !DILocation(line: 3)"),
            vec![
                (Tok::Exclaim, "!"),
                (Tok::LBrace, "{"),
                (Tok::Exclaim, "!"),
                (Tok::Str, "\"a\""),
                (Tok::Comma, ","),
                (Tok::Ident, "null"),
                (Tok::RBrace, "}"),
                (Tok::MetadataVar, "!DILocation"),
                (Tok::LParen, "("),
                (Tok::LabelStr, "line:"),
                (Tok::Int, "3"),
                (Tok::RParen, ")"),
            ]
        );
    }

    #[test]
    fn errors_always_progress() {
        for src in [
            "\"open", "%", "@\"x", "/* open", "#x", "^", "\u{1}", "-", "0x", "1a",
        ] {
            let mut lexer = Lexer::new(src.as_bytes());
            let mut steps = 0;
            loop {
                let t = lexer.next_token();
                steps += 1;
                assert!(steps < 20, "no progress on {src:?}");
                if t.kind == Tok::Eof {
                    break;
                }
            }
        }
    }

    #[test]
    fn names_decode() {
        assert_eq!(name_key(b"%12", true), NameKey::Numbered(12));
        assert_eq!(
            name_key(b"%x", false),
            NameKey::Named(b"x".as_slice().into())
        );
        assert_eq!(
            name_key(b"@\"a\\22b\"", false),
            NameKey::Named(b"a\"b".as_slice().into())
        );
        assert_eq!(
            name_key(b"bb1:", false),
            NameKey::Named(b"bb1".as_slice().into())
        );
        assert!(is_bare_name(b"x.y-z_"));
        // LLVM's printer quotes `$` (`@"f$0"`), though its lexer reads it bare.
        assert!(!is_bare_name(b"x.y-z$"));
        assert!(!is_bare_name(b"a b"));
        assert!(!is_bare_name(b"1a"));
    }
}
