//! The parses that leave text unread: the skeleton of a parallel parse (bodies skipped), its
//! workers' bodies, and the sparse parse of a filtered body.
//!
//! Input: a body's span and, in a sparse parse, the lines that must be parsed. Output: the
//! body's blocks, each other line LLVM writes alone kept as an opaque instruction (opcode,
//! text, result name); or an error that has the caller parse the module whole.

use super::{PResult, Parser, SparseLines};
use crate::inst::{InstData, InstFlags, Opcode, NONE};
use crate::lexer::{self, Tok, Token};
use crate::types::TypeId;
use crate::value::{BlockId, FuncId, InstId, Value};

/// What [`Parser::opaque_lines`] kept as text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum OpaqueRun {
    Nothing,
    Lines,
    /// Lines, the last of them a terminator.
    Block,
}

impl<'s> Parser<'s> {
    /// Parses one function body (a worker's job in a parallel parse): `body_start` is just
    /// past `{`, and the body must end at the `}` at `close`.
    ///
    /// With `sparse` lines, only those lines are sure to be parsed: the others are kept as
    /// opaque instructions where they can be (see [`Parser::opaque_lines`]). A sparse parse
    /// refuses what opaque lines would make wrong, so that the caller parses the module whole
    /// instead.
    pub(crate) fn body_at(
        &mut self,
        fid: FuncId,
        body_start: u32,
        close: u32,
        sparse: Option<SparseLines>,
    ) -> PResult<bool> {
        self.sparse = sparse;
        self.sparse_next = 0;
        self.seek(body_start as usize);
        self.prev_end = body_start;
        let parsed = self.body(fid);
        self.sparse = None;
        parsed?;
        Ok(self.tok.kind == Tok::RBrace && self.tok.start == close)
    }

    /// Refuses a sparse parse: an implicitly numbered value (a removal would renumber it in
    /// text kept opaque), or an instruction the filter found whose result name does not start
    /// a line (its uses were not looked for).
    pub(super) fn whole_parse_needed<T>(&self, why: &str) -> PResult<T> {
        self.error_at(
            self.tok.start,
            format!("{why}: the body must be parsed whole"),
        )
    }

    /// Whether `pos` is on one of the lines a sparse parse must parse (`pos` ascending from
    /// call to call within a body).
    fn on_sparse_line(&mut self, pos: usize) -> bool {
        let Some(lines) = self.sparse.as_ref().map(|s| &s.parse) else {
            return false;
        };
        let mut k = self.sparse_next;
        while lines.get(k).is_some_and(|&(_, end)| end as usize <= pos) {
            k += 1;
        }
        self.sparse_next = k;
        lines
            .get(k)
            .is_some_and(|&(start, _)| start as usize <= pos)
    }

    /// Whether a line to parse starts before `end` (and ends past the position
    /// [`Parser::on_sparse_line`] last looked at).
    fn sparse_line_before(&self, end: usize) -> bool {
        self.sparse.as_ref().is_some_and(|s| {
            s.parse
                .get(self.sparse_next)
                .is_some_and(|&(start, _)| (start as usize) < end)
        })
    }

    /// In a sparse parse, whether an instruction (`start..end`, its result named at `def`)
    /// touches a line the filter found: then every use of its result was parsed. An error
    /// where the uses were not looked for.
    pub(super) fn found_by_filter(
        &self,
        start: u32,
        end: u32,
        def: Option<Token>,
    ) -> PResult<bool> {
        let Some(sparse) = self.sparse.as_ref() else {
            return Ok(false);
        };
        let k = sparse
            .found
            .partition_point(|&(_, line_end)| line_end <= start);
        if sparse
            .found
            .get(k)
            .is_none_or(|&(line_start, _)| line_start >= end)
        {
            return Ok(false);
        }
        match def {
            Some(d) if sparse.defs.binary_search(&d.start).is_err() => {
                self.whole_parse_needed("a result named away from its line's start")
            }
            _ => Ok(true),
        }
    }

    /// Keeps the instructions from the current token on as text, line by line, while they can
    /// be: a line not among the sparse lines, holding one instruction of an opcode LLVM
    /// prints on one line and that is neither a call nor an alloca, whose result (if any) is
    /// named `%N =` or `%name =`. Each becomes an opaque instruction: its opcode, its text and
    /// its result's name (defined, so that numbering is checked and parsed lines may name
    /// it), but no operands and no type. Its result counts as named in text, as it may be.
    ///
    /// Reading on the bytes, it costs a fraction of a parse; what it cannot keep (a label, a
    /// comment, any other line) is left to the parser, at the token it stopped on.
    ///
    /// `from`: where to start, when `tok` is stale (after a label read without the lexer); the
    /// lexer is then moved to where the run stops even if it kept nothing. After a terminator,
    /// a numbered label (`12:`) is read too, into [`Parser::raw_label`], and the lexer left
    /// behind.
    pub(super) fn opaque_lines(
        &mut self,
        block: BlockId,
        from: Option<usize>,
    ) -> PResult<OpaqueRun> {
        let src = self.src;
        let mut pos = from.unwrap_or(self.tok.start as usize);
        if from.is_some() {
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = src.get(pos) {
                pos += 1;
            }
        }
        let mut run = OpaqueRun::Nothing;
        while self.sparse.is_some() && !self.on_sparse_line(pos) {
            let Some((def, opcode, end)) = opaque_line(src, pos) else {
                break;
            };
            if self.sparse_line_before(end) {
                // A line to parse inside it (a switch's case naming a found result).
                break;
            }
            self.check_capacity(self.m.insts.len(), "instructions")?;
            let id = InstId(self.m.insts.len() as u32);
            let mut flags = InstFlags::OPAQUE;
            if let Some(t) = def {
                flags.insert(InstFlags::HAS_DEF | InstFlags::NAMED_IN_TEXT);
                self.define_local(t, Value::Inst(id))?;
            }
            self.m.insts.push(InstData {
                opcode,
                flags,
                aux: 0,
                md_len: 0,
                ty: TypeId::VOID,
                ops: self.m.ops.len() as u32,
                ops_len: 0,
                start: pos as u32,
                end: end as u32,
                extra: NONE,
                block: block.0,
                md: self.m.md_attach.len() as u32,
            });
            self.block_insts.push(id);
            self.prev_end = end as u32;
            pos = end;
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = src.get(pos) {
                pos += 1;
            }
            if opcode.is_terminator() {
                run = OpaqueRun::Block;
                if !self.on_sparse_line(pos) {
                    if let Some(label) = numbered_label(src, pos) {
                        self.raw_label = Some(label);
                        return Ok(run);
                    }
                }
                break;
            }
            run = OpaqueRun::Lines;
        }
        if run != OpaqueRun::Nothing || from.is_some() {
            let prev_end = self.prev_end;
            self.seek(pos);
            self.prev_end = prev_end;
        }
        Ok(run)
    }

    pub(crate) fn run_skeleton(&mut self) -> PResult<()> {
        self.skeleton = true;
        self.module()
    }

    /// In a skeleton parse, the body that starts at `body_start` is parsed later, by a
    /// worker: finds its end and moves there. LLVM writes the closing brace alone at the start
    /// of a line; a wrong guess (a hand-written module) makes the worker fail, and the whole
    /// module is parsed sequentially.
    pub(super) fn skip_body(&mut self, fid: FuncId, body_start: u32) -> PResult<()> {
        let next = self.body_ends.partition_point(|&end| end < body_start);
        let Some(&close) = self.body_ends.get(next) else {
            return self.expected("'}'");
        };
        let close = close as usize;
        self.pending.push((fid, body_start, close as u32));
        self.seek(close);
        Ok(())
    }
}

/// The end (past its newline) of a switch's case list as LLVM prints it, given the end of the
/// line that opens it with `[`: one `TYPE VALUE, label %DEST` per line, then `]` alone.
/// `None` for anything else (a list on one line, a bracket or a comment among the cases).
fn switch_end(src: &[u8], first_line_end: usize) -> Option<usize> {
    let first = src.get(..first_line_end)?;
    let opening = first.strip_suffix(b"\n").unwrap_or(first);
    if !opening
        .strip_suffix(b"\r")
        .unwrap_or(opening)
        .ends_with(b"[")
    {
        return None;
    }
    let mut pos = first_line_end;
    loop {
        let rest = src.get(pos..)?;
        let end = pos + memchr::memchr(b'\n', rest).map_or(rest.len(), |k| k + 1);
        let line = src[pos..end].trim_ascii();
        if line == b"]" {
            return Some(end);
        }
        if line.is_empty() || line.iter().any(|b| b"[]{}();\"".contains(b)) || end == pos {
            return None;
        }
        pos = end;
    }
}

/// The numbered label (`12:`) at `pos`, as the lexer would read it there.
fn numbered_label(src: &[u8], pos: usize) -> Option<Token> {
    let digits = src
        .get(pos..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    (digits > 0 && src.get(pos + digits) == Some(&b':')).then(|| Token {
        kind: Tok::LabelId,
        start: pos as u32,
        end: (pos + digits + 1) as u32,
    })
}

/// The instruction on the line at `pos` if it can be kept as text (see
/// [`Parser::opaque_lines`]): its result's name token, its opcode, and the end of its line
/// (past the newline).
fn opaque_line(src: &[u8], pos: usize) -> Option<(Option<Token>, Opcode, usize)> {
    let rest = src.get(pos..)?;
    let end = pos + memchr::memchr(b'\n', rest).map_or(rest.len(), |k| k + 1);
    let line = &src[pos..end];
    let mut i = 0;
    let def = if line.first() == Some(&b'%') {
        i = 1;
        let kind = if line.get(1).is_some_and(u8::is_ascii_digit) {
            while line.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            Tok::LocalId
        } else {
            while line.get(i).copied().is_some_and(lexer::is_name_byte) {
                i += 1;
            }
            Tok::LocalVar
        };
        if i == 1 || line.get(i..i + 3) != Some(b" = ") {
            return None;
        }
        let t = Token {
            kind,
            start: pos as u32,
            end: (pos + i) as u32,
        };
        i += 3;
        Some(t)
    } else {
        None
    };
    let word_start = i;
    while line
        .get(i)
        .is_some_and(|&b| b.is_ascii_lowercase() || b == b'_')
    {
        i += 1;
    }
    if !matches!(line.get(i), Some(b' ' | b'\n' | b'\r' | b',')) {
        return None;
    }
    let opcode = Opcode::from_keyword(&line[word_start..i])?;
    use Opcode::*;
    if opcode == Switch && def.is_none() {
        return switch_end(src, end).map(|end| (None, opcode, end));
    }
    let keep = match opcode {
        // Several lines (indirectbr, invoke, callbr, catchswitch, landingpad; a switch as
        // LLVM prints it is read above), calls (the ones that matter are parsed; a void one
        // may not be), allocas (edits insert after them), exception handling (rare): parsed.
        Switch | IndirectBr | Invoke | CallBr | CatchSwitch | LandingPad | Call | Alloca
        | Resume | CleanupRet | CatchRet | CleanupPad | CatchPad | VAArg => false,
        // No result: no name either.
        Ret | Br | Unreachable | Store | Fence => def.is_none(),
        // A result: named, or it would take a number silently.
        _ => def.is_some(),
    };
    keep.then_some((def, opcode, end))
}
