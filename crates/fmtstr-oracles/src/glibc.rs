//! glibc's own `snprintf` as an oracle: the bytes C prints for a format and typed C arguments.
//!
//! C's `snprintf` is variadic, so every argument must reach it with its C type fixed at compile
//! time. A [`CArg`] names that type; [`snprintf`] and [`snprintf_append`] pick the matching
//! call for up to [`MAX_ARGS`] arguments and grow the buffer until the whole output fits.
//!
//! ```
//! use fmtstr_oracles::glibc::{snprintf, CArg};
//! let args = [CArg::Int(42), CArg::Str(c"x"), CArg::Double(1.5)];
//! // SAFETY: `%d` takes an int, `%s` a string and `%.3f` a double, as given.
//! let text = unsafe { snprintf(c"%d %s %.3f", &args) };
//! assert_eq!(text, b"42 x 1.500");
//! ```
// Calling C's variadic `snprintf` and taking the bytes it wrote need `unsafe`; it stays here.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_long, c_void, CStr};
use std::ptr;

/// The most arguments one call takes: a value after a `*` width and a `*` precision.
pub const MAX_ARGS: usize = 3;

/// Room the output buffer has before the first call; more is reserved when glibc needs it.
const FIRST_ROOM: usize = 256;

/// One argument of a C `snprintf` call, with the C type it is passed as.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CArg<'a> {
    /// An `int`: `%d`, `%c`, `%hhx`, `%hd`, ... and every `*` width or precision.
    Int(c_int),
    /// A `long`: `%ld`, `%lld`, `%jd`, `%zu`, `%td` (all 64 bits on x86-64 Linux).
    Long(c_long),
    /// A `double`: the float conversions without `L` (a C `float` is promoted to this).
    Double(f64),
    /// An address for `%p`.
    Ptr(usize),
    /// A string for `%s`.
    Str(&'a CStr),
    /// A null `char *` for `%s` (glibc prints `(null)`).
    NullStr,
}

/// The C value a [`CArg`] passes. Strings travel as `void *`: C allows `va_arg` to read a
/// `char *` that was passed as a `void *` (C11 7.16.1.1), so one pointer kind serves both.
#[derive(Clone, Copy)]
enum Passed {
    Int(c_int),
    Long(c_long),
    Double(f64),
    Ptr(*const c_void),
}

impl From<CArg<'_>> for Passed {
    fn from(arg: CArg<'_>) -> Passed {
        match arg {
            CArg::Int(v) => Passed::Int(v),
            CArg::Long(v) => Passed::Long(v),
            CArg::Double(v) => Passed::Double(v),
            CArg::Ptr(address) => Passed::Ptr(ptr::without_provenance(address)),
            CArg::Str(s) => Passed::Ptr(s.as_ptr().cast()),
            CArg::NullStr => Passed::Ptr(ptr::null()),
        }
    }
}

/// glibc's output for `format` with `args`.
///
/// # Safety
///
/// `format`'s conversions, `*` widths and `*` precisions included, must take exactly `args`, in
/// order and with these C types, as for C's `snprintf` (`%n` is not allowed).
///
/// # Panics
///
/// With more than [`MAX_ARGS`] arguments, or when glibc reports an error.
pub unsafe fn snprintf(format: &CStr, args: &[CArg<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    // SAFETY: the caller's promise, passed on.
    unsafe { snprintf_append(&mut out, format, args) };
    out
}

/// Appends glibc's output for `format` with `args` to `out`, written straight into its spare
/// capacity (a caller that renders many times keeps one `out` and clears it).
///
/// # Safety
///
/// As for [`snprintf`]: `format` must take exactly `args`.
///
/// # Panics
///
/// With more than [`MAX_ARGS`] arguments, or when glibc reports an error.
pub unsafe fn snprintf_append(out: &mut Vec<u8>, format: &CStr, args: &[CArg<'_>]) {
    assert!(
        args.len() <= MAX_ARGS,
        "glibc::snprintf takes at most {MAX_ARGS} arguments, not {}",
        args.len()
    );
    let mut passed = [Passed::Int(0); MAX_ARGS];
    for (slot, &arg) in passed.iter_mut().zip(args) {
        *slot = arg.into();
    }
    let passed = &passed[..args.len()];
    let start = out.len();
    out.reserve(FIRST_ROOM);
    loop {
        let room = out.spare_capacity_mut();
        let size = room.len();
        // SAFETY: `room` is `size` writable bytes, and the caller promises that `format` takes
        // exactly these arguments.
        let written = unsafe { call(room.as_mut_ptr().cast(), size, format.as_ptr(), passed) };
        let Ok(written) = usize::try_from(written) else {
            panic!("glibc's snprintf failed on {format:?}");
        };
        if written < size {
            // SAFETY: glibc wrote all `written` bytes (and a NUL after them) into the spare
            // capacity, which starts at `start`.
            unsafe { out.set_len(start + written) };
            return;
        }
        // The output was cut: make room for all of it and its NUL, and print again.
        out.reserve(written + 1);
    }
}

/// Calls `snprintf(buf, size, format, args...)` with each argument as its C type.
///
/// # Safety
///
/// `buf` must be `size` writable bytes and `format` must take exactly `args`.
unsafe fn call(buf: *mut c_char, size: usize, format: *const c_char, args: &[Passed]) -> c_int {
    // One variadic call per sequence of C types: each argument in turn picks its type, and
    // once all have one the call is made with them.
    macro_rules! dispatch {
        ([$($typed:ident),*]) => {
            // SAFETY: `buf` is `size` writable bytes and the arguments match `format` (this
            // function's contract).
            unsafe { libc::snprintf(buf, size, format $(, $typed)*) }
        };
        ([$($typed:ident),*] $next:ident $(, $rest:ident)*) => {
            match $next {
                Passed::Int(v) => dispatch!([$($typed,)* v] $($rest),*),
                Passed::Long(v) => dispatch!([$($typed,)* v] $($rest),*),
                Passed::Double(v) => dispatch!([$($typed,)* v] $($rest),*),
                Passed::Ptr(v) => dispatch!([$($typed,)* v] $($rest),*),
            }
        };
    }
    match *args {
        [] => dispatch!([]),
        [a] => dispatch!([] a),
        [a, b] => dispatch!([] a, b),
        [a, b, c] => dispatch!([] a, b, c),
        _ => unreachable!("at most {MAX_ARGS} arguments"),
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::CString;

    use super::*;

    /// glibc's output as text, for the tests' asserts.
    fn print(format: &CStr, args: &[CArg<'_>]) -> String {
        // SAFETY: every test passes the arguments its format takes.
        String::from_utf8(unsafe { snprintf(format, args) }).unwrap()
    }

    #[test]
    fn prints_ints_strings_and_doubles() {
        let args = [CArg::Int(42), CArg::Str(c"x"), CArg::Double(1.5)];
        assert_eq!(print(c"%d %s %.3f", &args), "42 x 1.500");
        assert_eq!(print(c"no arguments, 100%%", &[]), "no arguments, 100%");
    }

    #[test]
    fn null_strings_and_pointers_print_glibc_s_words() {
        assert_eq!(print(c"%s", &[CArg::NullStr]), "(null)");
        assert_eq!(print(c"%p", &[CArg::Ptr(0)]), "(nil)");
        assert_eq!(print(c"%p", &[CArg::Ptr(0x1234)]), "0x1234");
        assert_eq!(print(c"%lx", &[CArg::Long(-1)]), "ffffffffffffffff");
    }

    #[test]
    fn stars_come_before_the_value() {
        let args = [CArg::Int(8), CArg::Int(2), CArg::Double(2.125)];
        assert_eq!(print(c"[%*.*f]", &args), "[    2.12]");
        assert_eq!(print(c"[%-*d]", &[CArg::Int(4), CArg::Int(7)]), "[7   ]");
    }

    /// Every C type at every position: each sequence of types makes its own call.
    #[test]
    fn every_type_at_every_position() {
        let kinds: [(&str, CArg<'_>, &str); 6] = [
            ("%d", CArg::Int(-5), "-5"),
            ("%ld", CArg::Long(1 << 40), "1099511627776"),
            ("%g", CArg::Double(0.5), "0.5"),
            ("%p", CArg::Ptr(0xbeef), "0xbeef"),
            ("%s", CArg::Str(c"str"), "str"),
            ("%s", CArg::NullStr, "(null)"),
        ];
        let mut calls = 0;
        for count in 0..=MAX_ARGS as u32 {
            for number in 0..kinds.len().pow(count) {
                // The digits of `number` in base 6 pick the kinds, one per position.
                let picked: Vec<&(&str, CArg<'_>, &str)> = (0..count)
                    .map(|position| &kinds[number / kinds.len().pow(position) % kinds.len()])
                    .collect();
                let format: Vec<&str> = picked.iter().map(|kind| kind.0).collect();
                let args: Vec<CArg<'_>> = picked.iter().map(|kind| kind.1).collect();
                let expected: Vec<&str> = picked.iter().map(|kind| kind.2).collect();
                let format = CString::new(format.join("|")).unwrap();
                assert_eq!(print(&format, &args), expected.join("|"), "{format:?}");
                calls += 1;
            }
        }
        assert_eq!(calls, 1 + 6 + 36 + 216);
    }

    #[test]
    fn long_output_grows_the_buffer_and_appends() {
        let text = print(c"%5000d|%s", &[CArg::Int(7), CArg::Str(c"end")]);
        assert_eq!(text.len(), 5004);
        assert!(text.starts_with("    ") && text.ends_with("7|end"));

        let mut out = b"kept ".to_vec();
        out.shrink_to_fit();
        // SAFETY: `%.600f` takes one double.
        unsafe { snprintf_append(&mut out, c"%.600f", &[CArg::Double(0.25)]) };
        assert_eq!(out.len(), 5 + 602);
        assert!(out.starts_with(b"kept 0.25000"));
    }

    #[test]
    #[should_panic(expected = "at most 3 arguments, not 4")]
    fn more_than_max_args_panics() {
        print(c"%d%d%d%d", &[CArg::Int(1); 4]);
    }
}
