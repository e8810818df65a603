//! `fmtstr decode --sort prefix` and `--grep REGEX`: the decoded text reordered by who printed
//! it and filtered, after decoding.
//!
//! A *record* is one line that starts with a prefix made by `fmtstr lower --prefix` (`[block
//! 1,0,0 thread 5,0,0] ...`), together with the lines after it that start without one (an
//! entry whose format prints several lines). Lines before the first prefixed line form a
//! record without a prefix.
//!
//! - [`sort_by_prefix`]: a stable sort of the records by their prefix values, as numbers in
//!   the order printed (block x, y, z, then thread x, y, z); records without a prefix come
//!   first; equal prefixes keep buffer order.
//! - [`grep`]: the lines a regular expression matches (anywhere in the line, prefix
//!   included), in order.

use regex::bytes::Regex;

/// The values of the prefix a line starts with: `[word a,b,c word d,e,f] ` gives
/// `[a, b, c, d, e, f]`; `None` when the line does not start with such a prefix. A call's site
/// in the prefix (`--prefix site`: `k.cu:7:5`, or a function's name) is passed over; a
/// sequence number (`--prefix seq`: `#12`) is a value in its place.
pub fn prefix_values(line: &[u8]) -> Option<Vec<u64>> {
    let rest = line.strip_prefix(b"[")?;
    let close = rest.iter().position(|&b| b == b']')?;
    if rest.get(close + 1) != Some(&b' ') {
        return None;
    }
    let inside = std::str::from_utf8(&rest[..close]).ok()?;
    let tokens: Vec<&str> = inside.split(' ').collect();
    let mut values = Vec::new();
    let mut sites = 0;
    let mut at = 0;
    while at < tokens.len() {
        let word = tokens[at];
        // `--prefix seq`'s number: a value of its own, in its place.
        if let Some(seq) = word.strip_prefix('#').and_then(|n| n.parse::<u64>().ok()) {
            values.push(seq);
            at += 1;
            continue;
        }
        let numbers = tokens.get(at + 1).and_then(|t| triple(t));
        match numbers {
            Some(triple) if !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase()) => {
                values.extend(triple);
                at += 2;
            }
            // At most one site, and never empty.
            _ if !word.is_empty() && sites == 0 => {
                sites += 1;
                at += 1;
            }
            _ => return None,
        }
    }
    (!values.is_empty()).then_some(values)
}

/// `a,b,c` as three numbers.
fn triple(text: &str) -> Option<[u64; 3]> {
    let mut numbers = text.split(',').map(|n| n.parse::<u64>().ok());
    let triple = [numbers.next()??, numbers.next()??, numbers.next()??];
    numbers.next().is_none().then_some(triple)
}

/// The text with its records stably sorted by their prefix values (see the module).
pub fn sort_by_prefix(text: &[u8]) -> Vec<u8> {
    // (key, start, end) of each record; key None sorts first.
    let mut records: Vec<(Option<Vec<u64>>, usize, usize)> = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end = text[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |k| start + k + 1);
        let line = &text[start..end];
        match prefix_values(line) {
            Some(key) => records.push((Some(key), start, end)),
            None => match records.last_mut() {
                Some(last) => last.2 = end,
                None => records.push((None, start, end)),
            },
        }
        start = end;
    }
    records.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = Vec::with_capacity(text.len());
    for (_, start, end) in records {
        out.extend_from_slice(&text[start..end]);
    }
    out
}

/// The lines of `text` that `pattern` matches, each with its newline.
pub fn grep(text: &[u8], pattern: &Regex) -> Vec<u8> {
    let mut out = Vec::new();
    for line in text.split_inclusive(|&b| b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        if pattern.is_match(body) {
            out.extend_from_slice(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_parse_and_sort_stably() {
        assert_eq!(
            prefix_values(b"[block 1,0,2 thread 5,0,0] x=1\n"),
            Some(vec![1, 0, 2, 5, 0, 0])
        );
        assert_eq!(prefix_values(b"[block 1,0] x\n"), None);
        assert_eq!(prefix_values(b"[note] x\n"), None);
        assert_eq!(prefix_values(b"x=1\n"), None);
        // --prefix site: a source location or a function name, passed over.
        assert_eq!(
            prefix_values(b"[k.cu:7:5 block 1,0,2] x\n"),
            Some(vec![1, 0, 2])
        );
        assert_eq!(
            prefix_values(b"[thread 5,0,0 kern] x\n"),
            Some(vec![5, 0, 0])
        );
        assert_eq!(prefix_values(b"[a.cu:1:1 b.cu:2:2 t 1,0,0] x\n"), None);
        assert_eq!(prefix_values(b"[k.cu:7:5] x\n"), None);
        // --prefix seq: the number is a value, in its place.
        assert_eq!(
            prefix_values(b"[#12 block 1,0,2] x\n"),
            Some(vec![12, 1, 0, 2])
        );
        assert_eq!(prefix_values(b"[k.cu:7:5 #3] x\n"), Some(vec![3]));
        let text = b"head\n[t 2,0,0] a\n[t 1,0,0] b\nmore of b\n[t 2,0,0] c\n[t 1,0,0] d";
        assert_eq!(
            sort_by_prefix(text),
            b"head\n[t 1,0,0] b\nmore of b\n[t 1,0,0] d[t 2,0,0] a\n[t 2,0,0] c\n".to_vec()
        );
        let pattern = Regex::new("^\\[t 1,").unwrap();
        assert_eq!(grep(text, &pattern), b"[t 1,0,0] b\n[t 1,0,0] d".to_vec());
    }
}
