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
/// `[a, b, c, d, e, f]`; `None` when the line does not start with such a prefix.
pub fn prefix_values(line: &[u8]) -> Option<Vec<u64>> {
    let rest = line.strip_prefix(b"[")?;
    let close = rest.iter().position(|&b| b == b']')?;
    if rest.get(close + 1) != Some(&b' ') {
        return None;
    }
    let inside = std::str::from_utf8(&rest[..close]).ok()?;
    let mut values = Vec::new();
    let mut words = inside.split(' ');
    while let Some(word) = words.next() {
        if word.is_empty() || !word.bytes().all(|b| b.is_ascii_lowercase()) {
            return None;
        }
        let numbers = words.next()?;
        let mut count = 0;
        for n in numbers.split(',') {
            values.push(n.parse().ok()?);
            count += 1;
        }
        if count != 3 {
            return None;
        }
    }
    (!values.is_empty()).then_some(values)
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
        let text = b"head\n[t 2,0,0] a\n[t 1,0,0] b\nmore of b\n[t 2,0,0] c\n[t 1,0,0] d";
        assert_eq!(
            sort_by_prefix(text),
            b"head\n[t 1,0,0] b\nmore of b\n[t 1,0,0] d[t 2,0,0] a\n[t 2,0,0] c\n".to_vec()
        );
        let pattern = Regex::new("^\\[t 1,").unwrap();
        assert_eq!(grep(text, &pattern), b"[t 1,0,0] b\n[t 1,0,0] d".to_vec());
    }
}
