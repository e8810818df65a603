//! Damaged and hostile modules: each is a typed error naming its byte offset, never a panic, a
//! hang or an allocation sized by the file's claims.

use fmtstr_spirv::{read, SpirvError, MAX_ID_BOUND};

/// Builds modules word by word.
struct Builder {
    words: Vec<u32>,
}

impl Builder {
    fn new(bound: u32) -> Builder {
        Builder {
            words: vec![0x0723_0203, 0x0001_0600, 0, bound, 0],
        }
    }

    fn inst(mut self, opcode: u16, operands: &[u32]) -> Builder {
        self.words
            .push(((operands.len() as u32 + 1) << 16) | u32::from(opcode));
        self.words.extend_from_slice(operands);
        self
    }

    fn bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// A literal string's words (NUL-terminated, zero-padded).
fn string(text: &str) -> Vec<u32> {
    let mut bytes = text.as_bytes().to_vec();
    bytes.push(0);
    while bytes.len() % 4 != 0 {
        bytes.push(0);
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn with(id: u32, text: &str) -> Vec<u32> {
    let mut words = vec![id];
    words.extend(string(text));
    words
}

/// A module with one DebugPrintf call: `%1` the import, `%2` the format, `%3` void, `%4` int,
/// `%5` the constant 7, `%6` the call.
fn valid() -> Builder {
    Builder::new(7)
        .inst(11, &with(1, "NonSemantic.DebugPrintf"))
        .inst(7, &with(2, "x=%d\n"))
        .inst(19, &[3])
        .inst(21, &[4, 32, 1])
        .inst(43, &[4, 5, 7])
        .inst(12, &[3, 6, 1, 1, 2, 5])
}

#[test]
fn the_hand_built_module_reads() {
    let module = read(&valid().bytes()).unwrap();
    assert_eq!(module.calls.len(), 1);
    assert_eq!(module.calls[0].format, b"x=%d\n");
}

#[test]
fn a_word_count_of_zero_is_an_error() {
    let mut module = valid();
    module.words.push(0x0000_0001);
    let offset = (module.words.len() - 1) * 4;
    assert_eq!(
        read(&module.bytes()),
        Err(SpirvError::ZeroWordCount { offset })
    );
}

#[test]
fn a_word_count_past_the_end_is_an_error() {
    let mut module = valid();
    module.words.push(0xFFFF_0007);
    module.words.push(2);
    let error = read(&module.bytes()).unwrap_err();
    assert!(
        matches!(
            error,
            SpirvError::PastEnd {
                word_count: 0xFFFF,
                remaining: 2,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("truncated"));
}

#[test]
fn every_truncation_is_an_error_or_a_shorter_module() {
    let bytes = std::fs::read(fmtstr_oracles::spirv::samples_dir().join("compute.gV.spv")).unwrap();
    for len in 0..bytes.len() {
        let result = read(&bytes[..len]);
        if len % 4 != 0 && len >= 4 {
            assert_eq!(result, Err(SpirvError::NotWords { len }));
        }
        if (4..20).contains(&len) && len % 4 == 0 {
            assert_eq!(result, Err(SpirvError::HeaderTruncated { words: len / 4 }));
        }
    }
}

#[test]
fn an_id_not_below_the_bound_is_an_error() {
    let mut module = valid();
    module.words[3] = 6; // the call's result %6 is no longer below the bound
    let error = read(&module.bytes()).unwrap_err();
    assert!(
        matches!(
            error,
            SpirvError::IdOutOfBound {
                id: 6,
                bound: 6,
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn a_huge_bound_is_an_error() {
    let mut module = valid();
    module.words[3] = u32::MAX;
    assert_eq!(
        read(&module.bytes()),
        Err(SpirvError::BoundTooLarge { bound: u32::MAX })
    );
    module.words[3] = MAX_ID_BOUND;
    assert!(read(&module.bytes()).is_ok());
}

#[test]
fn a_string_without_its_terminator_is_an_error() {
    let module = Builder::new(7).inst(7, &[2, u32::from_le_bytes(*b"abcd")]);
    let error = read(&module.bytes()).unwrap_err();
    assert_eq!(
        error,
        SpirvError::UnterminatedString {
            offset: 20,
            name: "OpString"
        }
    );
}

#[test]
fn a_format_that_is_not_an_op_string_is_an_error() {
    // The call's format operand is %5, the constant.
    let mut module = valid();
    let last = module.words.len() - 2;
    module.words[last] = 5;
    let offset = (module.words.len() - 7) * 4;
    assert_eq!(
        read(&module.bytes()),
        Err(SpirvError::FormatNotString { offset, id: 5 })
    );
}

#[test]
fn a_call_without_a_format_is_an_error() {
    let module = valid().inst(12, &[3, 6, 1, 1]);
    let error = read(&module.bytes()).unwrap_err();
    assert!(
        matches!(error, SpirvError::TooShort { needed: 6, .. }),
        "{error:?}"
    );
}

#[test]
fn strings_need_not_be_utf8() {
    let module = Builder::new(7)
        .inst(11, &with(1, "NonSemantic.DebugPrintf"))
        .inst(7, &[2, u32::from_le_bytes([0xff, b'%', b'd', 0])])
        .inst(19, &[3])
        .inst(12, &[3, 6, 1, 1, 2]);
    let read = read(&module.bytes()).unwrap();
    assert_eq!(read.calls[0].format, [0xff, b'%', b'd']);
    let error = fmtstr_spirv::table(&read.calls).unwrap_err();
    assert!(error.to_string().contains("not UTF-8"), "{error}");
}

#[test]
fn unknown_opcodes_are_skipped_by_their_word_count() {
    let module = Builder::new(7)
        .inst(11, &with(1, "NonSemantic.DebugPrintf"))
        .inst(0x7ABC, &[1, 2, 3, 4, 5, 6])
        .inst(7, &with(2, "x"))
        .inst(19, &[3])
        .inst(12, &[3, 6, 1, 1, 2]);
    assert_eq!(read(&module.bytes()).unwrap().calls.len(), 1);
}

#[test]
fn mutated_samples_never_panic() {
    // A deterministic xorshift: byte flips and word-count edits across every sample.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut errors = 0;
    for recipe in fmtstr_oracles::spirv::recipes().unwrap() {
        let path = fmtstr_oracles::spirv::samples_dir().join(recipe.output);
        let original = std::fs::read(path).unwrap();
        for _ in 0..300 {
            let mut bytes = original.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % bytes.len();
                bytes[at] = next() as u8;
            }
            if let Ok(module) = read(&bytes) {
                let _ = fmtstr_spirv::table(&module.calls);
            } else {
                errors += 1;
            }
        }
    }
    assert!(errors > 0, "some mutations damage the module");
}

#[test]
fn a_call_graph_too_large_to_walk_is_an_error_not_a_hang() {
    // 20,000 functions, each printing and calling the one before: finding the entry points of
    // every call would walk 200 million caller edges.
    const FUNCTIONS: u32 = 20_000;
    let mut module = Builder::new(10 + 4 * FUNCTIONS)
        .inst(11, &with(1, "NonSemantic.DebugPrintf"))
        .inst(7, &with(2, "f\n"))
        .inst(19, &[3])
        .inst(33, &[4, 3]);
    for index in 0..FUNCTIONS {
        let id = 10 + 4 * index;
        module = module
            .inst(54, &[3, id, 0, 4])
            .inst(248, &[id + 1])
            .inst(12, &[3, id + 2, 1, 1, 2]);
        if index > 0 {
            module = module.inst(57, &[3, id + 3, id - 4]);
        }
        module = module.inst(253, &[]).inst(56, &[]);
    }
    let error = read(&module.bytes()).unwrap_err();
    assert!(
        matches!(error, SpirvError::CallGraphTooLarge { .. }),
        "{error:?}"
    );
}
