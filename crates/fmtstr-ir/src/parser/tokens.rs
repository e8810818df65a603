//! The parser's reading of tokens: the lookahead, what it expects and the errors that say
//! so, and the text it steps over unread.
//!
//! Input: the lexer's tokens over the module's text. Output: the current token and its text,
//! and errors that name where reading stopped (`file:line:column`, what was expected).

use super::{PResult, Parser, LOOKAHEAD, MAX_DEPTH, SKELETON_LOOKAHEAD, SPARSE_LOOKAHEAD};
use crate::const_data;
use crate::error::ParseError;
use crate::inst::Text;
use crate::lexer::{self, Lexer, Tok, Token};
use crate::value::MAX_INDEX;

impl<'s> Parser<'s> {
    #[inline(always)]
    pub(super) fn bump(&mut self) -> Token {
        let t = self.tok;
        self.prev_end = t.end;
        if self.at >= self.ahead_len {
            self.refill();
        }
        self.tok = self.ahead.get(self.at).copied().unwrap_or(t);
        self.at += 1;
        t
    }

    /// Lexes the next batch of tokens: a tight loop is much cheaper per token than a call
    /// per token. A batch stops at the end of the text or at a bad token (whose reason the
    /// lexer then still holds).
    #[inline(never)]
    fn refill(&mut self) {
        // A skeleton parse jumps over every body, a sparse one over most lines: a short batch
        // wastes less lexing at each jump.
        if self.sparse.is_some() {
            self.refill_batch::<SPARSE_LOOKAHEAD, false>();
        } else if self.skeleton {
            self.refill_batch::<SKELETON_LOOKAHEAD, true>();
        } else {
            self.refill_batch::<LOOKAHEAD, false>();
        }
    }

    #[inline(always)]
    fn refill_batch<const N: usize, const STOP_AT_BRACE: bool>(&mut self) {
        // The lexer as a local: nothing else can see it while the batch is lexed.
        let mut lex = self.lex.clone();
        let n = lex.fill::<STOP_AT_BRACE>(&mut self.ahead[..N.min(LOOKAHEAD)]);
        self.lex = lex;
        self.ahead_len = n;
        self.at = 0;
    }

    /// Moves the lexer to `pos` and reads the token there.
    pub(super) fn seek(&mut self, pos: usize) {
        self.ahead_len = 0;
        self.at = 0;
        self.lex = Lexer::at(self.src, pos);
        self.tok = self.lex.next_token();
    }

    #[inline]
    pub(super) fn text(&self, t: Token) -> &'s [u8] {
        self.src
            .get(t.start as usize..t.end as usize)
            .unwrap_or(&[])
    }

    #[inline]
    pub(super) fn word(&self) -> &'s [u8] {
        if self.tok.kind == Tok::Ident {
            self.text(self.tok)
        } else {
            &[]
        }
    }

    #[inline]
    pub(super) fn is_word(&self, w: &[u8]) -> bool {
        self.tok.kind == Tok::Ident && self.text(self.tok) == w
    }

    #[inline]
    pub(super) fn eat_word(&mut self, w: &[u8]) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(super) fn eat(&mut self, kind: Tok) -> bool {
        if self.tok.kind == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    /// The token after the current one.
    pub(super) fn peek(&mut self) -> Token {
        if self.at >= self.ahead_len {
            self.refill();
        }
        self.ahead[..self.ahead_len]
            .get(self.at)
            .copied()
            .unwrap_or(self.tok)
    }

    #[inline]
    pub(super) fn expect(&mut self, kind: Tok, what: &str) -> PResult<Token> {
        if self.tok.kind == kind {
            Ok(self.bump())
        } else {
            self.expected_cold(what)
        }
    }

    #[cold]
    #[inline(never)]
    fn expected_cold<T>(&self, what: &str) -> PResult<T> {
        self.expected(what)
    }

    #[inline]
    pub(super) fn expect_word(&mut self, w: &str) -> PResult<()> {
        if self.eat_word(w.as_bytes()) {
            Ok(())
        } else {
            self.expected_word_cold(w)
        }
    }

    #[cold]
    #[inline(never)]
    fn expected_word_cold(&self, w: &str) -> PResult<()> {
        self.expected(&format!("'{w}'"))
    }

    pub(super) fn error_at<T>(&self, offset: u32, message: String) -> PResult<T> {
        Err(ParseError::at(
            self.file,
            self.src,
            offset as usize,
            message,
        ))
    }

    pub(super) fn expected<T>(&self, what: &str) -> PResult<T> {
        let found = match self.tok.kind {
            Tok::Eof => "end of file".to_string(),
            Tok::Error => {
                return self.error_at(
                    self.tok.start,
                    format!("{} (expected {what})", self.lex.error),
                )
            }
            _ => {
                let text = String::from_utf8_lossy(self.text(self.tok));
                let short: String = text.chars().take(40).collect();
                format!("'{short}'")
            }
        };
        self.error_at(self.tok.start, format!("expected {what}, found {found}"))
    }

    pub(super) fn newline_before_tok(&self) -> bool {
        self.src
            .get(self.prev_end as usize..self.tok.start as usize)
            .is_some_and(|gap| gap.contains(&b'\n'))
    }

    pub(super) fn rest_of_line(&self, pos: u32) -> u32 {
        lexer::rest_of_line(self.src, pos)
    }

    pub(super) fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error_at(self.tok.start, format!("nesting deeper than {MAX_DEPTH}"));
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Skips a bracketed group starting at the current opening token.
    pub(super) fn skip_group(&mut self) -> PResult<()> {
        self.skip_group_naming(None)
    }

    /// The parentheses of an attribute (`memory(...)`, an unknown one's), kept as text.
    /// Attributes never name a global: kept, such a name would outlive the global's removal
    /// (found by the ir_lower fuzz target: a word LLVM does not know, taken as a call's
    /// attribute, swallowed `(... @debugString.0 ...)`, and the string was removed).
    pub(super) fn skip_attr_parens(&mut self) -> PResult<()> {
        self.skip_group_naming(Some("an attribute names no global"))
    }

    /// `{ ... }` of `attributes #N = { ... }`, kept as text, naming no global (see
    /// [`Parser::skip_attr_parens`]): one there means the group's `}` is missing and it
    /// swallowed what follows, as LLVM also says.
    pub(super) fn skip_attr_group(&mut self) -> PResult<()> {
        self.skip_group_naming(Some(
            "an attribute group names no global: is the group's closing '}' missing?",
        ))
    }

    /// A bracketed group from the current opening bracket to its match. A global named
    /// inside is a reference, or with `refused`, that error.
    fn skip_group_naming(&mut self, refused: Option<&str>) -> PResult<()> {
        let open = self.tok.start;
        let mut depth: u32 = 0;
        loop {
            match self.tok.kind {
                Tok::LParen | Tok::LBrace | Tok::LSquare => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RSquare => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.bump();
                        return Ok(());
                    }
                }
                Tok::Eof => return self.error_at(open, "unbalanced bracket".into()),
                Tok::Error => return self.expected("a closing bracket"),
                Tok::GlobalVar | Tok::GlobalId => {
                    let t = self.tok;
                    if let Some(message) = refused {
                        return self.error_at(t.start, message.into());
                    }
                    self.global_ref(t)?;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips tokens to the end of the line (brackets may span lines).
    /// `^N = ...`: a summary entry, kept as text. Its fields are skipped byte by byte, not
    /// as tokens, because LLVM's summary syntax takes spellings its other parts do not
    /// (`noUnwind : 1`); the entry ends at the first line end outside parentheses.
    #[cold]
    pub(super) fn skip_summary_entry(&mut self) -> PResult<()> {
        let start = self.tok.start as usize;
        let mut depth: u32 = 0;
        // Past the `)` that closes the entry's outermost parentheses: only a comment may follow
        // on its line, as LLVM's parser requires.
        let mut closed = false;
        let mut pos = start;
        while let Some(&b) = self.src.get(pos) {
            if closed && !matches!(b, b' ' | b'\t' | b'\r' | b';' | b'\n') {
                return self.error_at(
                    pos as u32,
                    "expected the end of the line after a summary entry".into(),
                );
            }
            match b {
                b'(' => depth += 1,
                b')' => {
                    if depth == 0 {
                        return self
                            .error_at(pos as u32, "unbalanced ')' in a summary entry".into());
                    }
                    depth -= 1;
                    closed = depth == 0;
                }
                b'"' => {
                    let quote = pos;
                    pos += 1;
                    while let Some(&c) = self.src.get(pos) {
                        match c {
                            b'\\' => pos += 1,
                            b'"' => break,
                            _ => {}
                        }
                        pos += 1;
                    }
                    if pos >= self.src.len() {
                        return self.error_at(quote as u32, "unterminated string".into());
                    }
                }
                b';' => {
                    // A comment runs to the end of the line.
                    while self.src.get(pos).is_some_and(|&c| c != b'\n') {
                        pos += 1;
                    }
                    continue;
                }
                b'\n' if depth == 0 => break,
                _ => {}
            }
            pos += 1;
        }
        if depth > 0 {
            return self.error_at(
                start as u32,
                "a summary entry without its closing ')'".into(),
            );
        }
        // The entry's last byte before the line end (trailing spaces are no part of it); an
        // unterminated string or a final `\` may have taken `pos` past the end.
        let mut end = pos.min(self.src.len());
        while end > start && matches!(self.src[end - 1], b' ' | b'\t' | b'\r') {
            end -= 1;
        }
        self.seek(end);
        self.prev_end = end as u32;
        Ok(())
    }

    pub(super) fn skip_line(&mut self) -> PResult<()> {
        let mut depth: u32 = 0;
        loop {
            match self.tok.kind {
                Tok::LParen | Tok::LBrace | Tok::LSquare => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RSquare => {
                    if depth == 0 {
                        return self.expected("a matching opening bracket");
                    }
                    depth -= 1;
                }
                Tok::Eof => {
                    if depth > 0 {
                        return self.expected("a closing bracket");
                    }
                    return Ok(());
                }
                Tok::Error => return self.expected("a token"),
                _ => {}
            }
            self.bump();
            if depth == 0 && (self.tok.kind == Tok::Eof || self.newline_before_tok()) {
                return Ok(());
            }
        }
    }

    fn int_value(&self, t: Token) -> PResult<i128> {
        match const_data::parse_int(self.text(t)) {
            Some(v) => Ok(v),
            None => self.error_at(t.start, "integer out of range".into()),
        }
    }

    pub(super) fn expect_u64(&mut self, what: &str) -> PResult<u64> {
        // `u0x200000000` is an integer too (LLVM's hexadecimal integer literal).
        let hex = self.tok.kind == Tok::Ident && lexer::is_hex_int(self.word());
        if self.tok.kind != Tok::Int && !hex {
            return self.expected(what);
        }
        let t = self.bump();
        match u64::try_from(self.int_value(t)?) {
            Ok(v) => Ok(v),
            Err(_) => self.error_at(t.start, format!("{what} must not be negative")),
        }
    }

    pub(super) fn expect_u32(&mut self, what: &str) -> PResult<u32> {
        let start = self.tok.start;
        let v = self.expect_u64(what)?;
        match u32::try_from(v) {
            Ok(v) => Ok(v),
            Err(_) => self.error_at(start, format!("{what} is too large")),
        }
    }

    pub(super) fn check_capacity(&self, len: usize, what: &str) -> PResult<()> {
        if len >= MAX_INDEX as usize {
            return self.error_at(self.tok.start, format!("too many {what}"));
        }
        Ok(())
    }

    /// Room for one more metadata record (their ids stay below those of definitions kept
    /// as text, see [`crate::md_data::UNREAD_IDS`]).
    pub(super) fn check_md_capacity(&self) -> PResult<()> {
        if self.m.md.nodes.len() >= crate::md_data::UNREAD_IDS as usize {
            return self.error_at(self.tok.start, "too many metadata nodes".into());
        }
        Ok(())
    }
}

/// The number of a `%N` or `N:` token (the lexer guarantees the digits).
#[inline]
pub(super) fn token_number(text: &[u8]) -> usize {
    let digits = match text.first() {
        Some(b'%' | b'@') => &text[1..],
        _ => text.strip_suffix(b":").unwrap_or(text),
    };
    if digits.len() > 9 {
        return usize::MAX;
    }
    digits
        .iter()
        .fold(0usize, |n, &d| n * 10 + usize::from(d.wrapping_sub(b'0')))
}

pub(super) fn text(t: Token) -> Text {
    Text {
        start: t.start,
        end: t.end,
    }
}
