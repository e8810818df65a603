//! `fmtstr gaps`: which prints of a run lowered with `fmtstr lower --prefix seq` are missing
//! from its captured output.
//!
//! Input: text whose lines start with a prefix holding a sequence number, `[#12 ...] ` (CUDA's
//! stdout, or `fmtstr decode`'s output), in any order: warps and waves print out of order.
//! Every print took the next number of one counter, from 0 after the counter's reset, so the
//! numbers from 0 to the highest seen that are not in the text are prints that were lost
//! (CUDA's FIFO overwrote them, an AMD buffer ran full); a number seen twice is a line
//! printed or captured twice. Prints after the highest number seen cannot be told from none.

use serde::Serialize;

/// What the numbers of a log say.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Gaps {
    /// Lines that carry a sequence number.
    pub numbered: u64,
    /// Lines without one (continuation lines of multi-line formats, other output).
    pub unnumbered: u64,
    /// The highest number seen, if any.
    pub highest: Option<u64>,
    /// How many numbers from 0 to `highest` are not in the log.
    pub missing: u64,
    /// Those numbers as inclusive ranges, in order.
    pub missing_ranges: Vec<[u64; 2]>,
    /// Numbers seen more than once, with how often, in order.
    pub repeated: Vec<Repeated>,
}

/// A number seen more than once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Repeated {
    /// The sequence number.
    pub number: u64,
    /// How many lines carry it (at least 2).
    pub times: u64,
}

impl Gaps {
    /// Whether prints were lost.
    pub fn lost(&self) -> bool {
        self.missing > 0
    }

    /// The prints the run made, as far as the log can tell: 0 to the highest number seen.
    pub fn prints(&self) -> u64 {
        self.highest.map_or(0, |h| h + 1)
    }

    /// The report as text, naming the log.
    pub fn to_text(&self, name: &str) -> String {
        let Some(highest) = self.highest else {
            return format!(
                "{name}: no line carries a sequence number `[#N ...]`: lower with \
                 `fmtstr lower --prefix seq` (it may be combined: --prefix seq,block,thread)\n"
            );
        };
        let mut text = format!(
            "{name}: {} numbered lines, #0 to #{highest}: {} missing, {} repeated\n",
            self.numbered,
            self.missing,
            self.repeated.len()
        );
        if !self.missing_ranges.is_empty() {
            text.push_str("  missing:");
            for [first, last] in &self.missing_ranges {
                if first == last {
                    text.push_str(&format!(" #{first}"));
                } else {
                    text.push_str(&format!(" #{first}-#{last}"));
                }
            }
            text.push('\n');
        }
        if !self.repeated.is_empty() {
            text.push_str("  repeated:");
            for repeated in &self.repeated {
                text.push_str(&format!(" #{} ({}x)", repeated.number, repeated.times));
            }
            text.push('\n');
        }
        text
    }
}

/// The sequence number in the prefix a line starts with (`[#12 block 1,0,0] ...`).
pub fn sequence_number(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(b"[")?;
    let close = rest.iter().position(|&b| b == b']')?;
    rest[..close]
        .split(|&b| b == b' ')
        .filter_map(|token| token.strip_prefix(b"#"))
        .find_map(|digits| {
            if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            std::str::from_utf8(digits).ok()?.parse().ok()
        })
}

/// Reads the numbers of every line of `text`.
pub fn find_gaps(text: &[u8]) -> Gaps {
    let mut numbers = Vec::new();
    let mut gaps = Gaps::default();
    for line in text.split(|&b| b == b'\n') {
        match sequence_number(line) {
            Some(n) => numbers.push(n),
            None if !line.is_empty() => gaps.unnumbered += 1,
            None => {}
        }
    }
    gaps.numbered = numbers.len() as u64;
    numbers.sort_unstable();
    let mut next = 0u64;
    let mut at = 0;
    while at < numbers.len() {
        let n = numbers[at];
        let mut times = 0;
        while at < numbers.len() && numbers[at] == n {
            times += 1;
            at += 1;
        }
        if times > 1 {
            gaps.repeated.push(Repeated { number: n, times });
        }
        if n > next {
            gaps.missing_ranges.push([next, n - 1]);
            gaps.missing += n - next;
        }
        next = n.saturating_add(1);
    }
    gaps.highest = numbers.last().copied();
    gaps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_out_of_order_with_holes_and_repeats() {
        let log = b"[#3 block 0,0,0] c\n[#0 block 0,0,0] a\nsecond line of a\n\
[#1 block 1,0,0] b\n[#6] f\n[#3 block 0,0,0] c\n[x.cu:1:1 #8] h\n";
        let gaps = find_gaps(log);
        assert_eq!(gaps.numbered, 6);
        assert_eq!(gaps.unnumbered, 1);
        assert_eq!(gaps.highest, Some(8));
        assert_eq!(gaps.missing_ranges, vec![[2, 2], [4, 5], [7, 7]]);
        assert_eq!(gaps.missing, 4);
        assert_eq!(
            gaps.repeated,
            vec![Repeated {
                number: 3,
                times: 2
            }]
        );
        assert!(gaps.lost());
        assert_eq!(
            gaps.to_text("log"),
            "log: 6 numbered lines, #0 to #8: 4 missing, 1 repeated\n  missing: #2 #4-#5 #7\n  \
             repeated: #3 (2x)\n"
        );
    }

    #[test]
    fn lost_early_prints_and_clean_logs() {
        // CUDA's FIFO keeps the newest: the first prints are the ones lost.
        let gaps = find_gaps(b"[#5] x\n[#4] x\n");
        assert_eq!(gaps.missing_ranges, vec![[0, 3]]);
        let clean = find_gaps(b"[#1 thread 0,0,0] x\n[#0 thread 1,0,0] x\n");
        assert!(!clean.lost() && clean.repeated.is_empty());
        assert_eq!(clean.prints(), 2);
        let none = find_gaps(b"hello\n[block 1,0,0] x\n[#x] y\n[#] z\n");
        assert_eq!((none.numbered, none.highest), (0, None));
        assert!(none.to_text("log").contains("--prefix seq"));
    }
}
