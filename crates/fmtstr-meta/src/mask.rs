//! The `.64bit_arguments` mask: bit i of word i/64 is set when argument i is 64 bits wide.

use std::fmt;

/// The 64-bit argument mask of a format-string entry, as the words the file holds.
///
/// Most entries have at most 64 arguments, so one word is kept inline without allocating.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Mask(Words);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Words {
    /// No words, or one.
    Inline {
        len: u8,
        word: u64,
    },
    Heap(Box<[u64]>),
}

impl Default for Mask {
    fn default() -> Self {
        Mask(Words::Inline { len: 0, word: 0 })
    }
}

impl Mask {
    /// The number of words a mask for `argument_count` arguments has: `(argc + 63) / 64`.
    pub fn words_for(argument_count: u64) -> u64 {
        argument_count.div_ceil(64)
    }

    /// A mask holding exactly these words.
    pub fn from_words(words: &[u64]) -> Mask {
        match words {
            [] => Mask::default(),
            [word] => Mask(Words::Inline {
                len: 1,
                word: *word,
            }),
            _ => Mask(Words::Heap(words.into())),
        }
    }

    /// The mask for `argument_count` arguments (with the right number of words) where the
    /// arguments at the given indexes are 64 bits wide.
    ///
    /// # Panics
    /// When an index is not below `argument_count`.
    pub fn for_arguments(argument_count: usize, wide: impl IntoIterator<Item = usize>) -> Mask {
        let mut words = vec![0u64; argument_count.div_ceil(64)];
        for index in wide {
            assert!(
                index < argument_count,
                "argument {index} of {argument_count}"
            );
            words[index / 64] |= 1 << (index % 64);
        }
        Mask::from_words(&words)
    }

    /// The words, in file order.
    pub fn words(&self) -> &[u64] {
        match &self.0 {
            Words::Inline { len, word } => std::slice::from_ref(word)
                .get(..usize::from(*len))
                .unwrap_or(&[]),
            Words::Heap(words) => words,
        }
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.words().len()
    }

    /// Whether the mask has no words (so it marks no argument 64 bits wide).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether argument `index` is marked 64 bits wide.
    pub fn bit(&self, index: u64) -> bool {
        usize::try_from(index / 64)
            .ok()
            .and_then(|word| self.words().get(word))
            .is_some_and(|word| word >> (index % 64) & 1 == 1)
    }

    /// Whether both masks set the same bits (trailing zero words do not matter).
    pub fn same_bits(&self, other: &Mask) -> bool {
        let (a, b) = (self.words(), other.words());
        let common = a.len().min(b.len());
        a[..common] == b[..common]
            && a[common..].iter().all(|w| *w == 0)
            && b[common..].iter().all(|w| *w == 0)
    }

    /// The indexes of the set bits, in order.
    pub fn set_bits(&self) -> impl Iterator<Item = u64> + '_ {
        self.words()
            .iter()
            .enumerate()
            .flat_map(|(word_index, &word)| {
                // Lowest set bit first, cleared as it is taken: a step per set bit, not per bit.
                let mut rest = word;
                std::iter::from_fn(move || {
                    let bit = u64::from(rest.trailing_zeros());
                    (rest != 0).then(|| {
                        rest &= rest - 1;
                        word_index as u64 * 64 + bit
                    })
                })
            })
    }
}

impl fmt::Debug for Mask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mask({:?})", self.words())
    }
}

impl fmt::Display for Mask {
    /// The words as hex numbers in brackets: `[0x5]`, `[]`, `[0x0, 0x1]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (index, word) in self.words().iter().enumerate() {
            if index > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{word:#x}")?;
        }
        f.write_str("]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_bits() {
        let mask = Mask::for_arguments(70, [0, 2, 65]);
        assert_eq!(mask.words(), &[0b101, 0b10]);
        assert!(mask.bit(0) && !mask.bit(1) && mask.bit(2) && mask.bit(65));
        assert!(!mask.bit(1000) && !mask.bit(u64::MAX));
        assert_eq!(mask.set_bits().collect::<Vec<_>>(), [0, 2, 65]);
        assert_eq!(mask.to_string(), "[0x5, 0x2]");
        assert_eq!(Mask::for_arguments(0, []).words(), &[] as &[u64]);
        assert_eq!(Mask::for_arguments(64, [63]).words(), &[1 << 63]);
        assert_eq!(Mask::words_for(0), 0);
        assert_eq!(Mask::words_for(64), 1);
        assert_eq!(Mask::words_for(65), 2);
    }

    #[test]
    fn same_bits_ignores_trailing_zero_words() {
        assert!(Mask::from_words(&[]).same_bits(&Mask::from_words(&[0])));
        assert!(Mask::from_words(&[5, 0]).same_bits(&Mask::from_words(&[5])));
        assert!(!Mask::from_words(&[5]).same_bits(&Mask::from_words(&[4])));
        assert!(!Mask::from_words(&[5, 1]).same_bits(&Mask::from_words(&[5])));
        assert_ne!(Mask::from_words(&[]), Mask::from_words(&[0]));
    }
}
