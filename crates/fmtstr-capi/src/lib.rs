//! fmtstr as a C library (`include/fmtstr.h`, generated from this file by `cargo xtask capi`).
//!
//! Every function catches panics (none is expected; one would be a bug) and turns them into
//! error 2, so no unwinding crosses into C. Pointers are checked before use: a null pointer
//! with a non-zero length is an error, never a crash. Every string or image returned is
//! allocated with C's `malloc` and is freed with [`fmtstr_free`] (or `free`).

// The C ABI is raw pointers and lengths from C callers: reading them needs `unsafe`. This is
// the only crate of the workspace that allows it; every `unsafe` block below reads memory
// the caller lends for the call, after the null checks of `slice`.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use fmtstr_tools::decode::{Options, Output};
use fmtstr_tools::{merge, Source};

/// Success.
pub const FMTSTR_OK: c_int = 0;
/// `fmtstr_merge`: collisions or conflicts (described in `*error`); nothing written.
pub const FMTSTR_FINDINGS: c_int = 1;
/// Bad input (described in `*error`).
pub const FMTSTR_BAD_INPUT: c_int = 2;

/// fmtstr's 48-bit ID of a format string (the bytes as given, no trailing NUL).
///
/// Returns 0 (never an ID: 0 is reserved) when `string` is NULL and `len` is not 0.
///
/// # Safety
/// `string` is NULL or valid for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn fmtstr_hash(string: *const u8, len: usize) -> u64 {
    catch_unwind(|| {
        // SAFETY: the caller lends `len` readable bytes at `string` (checked for NULL).
        match unsafe { slice(string, len) } {
            Some(bytes) => fmtstr_meta::FormatId::of(bytes).get(),
            None => 0,
        }
    })
    .unwrap_or(0)
}

/// Decode a printf buffer with the format-string tables of the given ELF images (PAL or HSA).
///
/// On success returns 0 and sets `*text` (NUL-terminated, `*text_len` bytes without the NUL)
/// to what `fmtstr decode` prints; warnings go to `*warnings` (the lines `fmtstr decode`
/// writes on stderr; NULL when there are none). On failure returns 2 and sets `*error`.
/// Every returned string is freed with `fmtstr_free`. Messages name the buffer `buffer` and
/// the images `elfs[0]`, `elfs[1]`, ...
///
/// # Safety
/// Each pointer is NULL or valid for its length; `elfs` and `elf_lens` hold `elf_count`
/// elements; the output pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn fmtstr_decode(
    buffer: *const u8,
    buffer_len: usize,
    elfs: *const *const u8,
    elf_lens: *const usize,
    elf_count: usize,
    text: *mut *mut c_char,
    text_len: *mut usize,
    warnings: *mut *mut c_char,
    error: *mut *mut c_char,
) -> c_int {
    // SAFETY: the output pointers are NULL or writable (the caller's promise).
    unsafe {
        reset(text);
        reset(warnings);
        reset(error);
        if !text_len.is_null() {
            *text_len = 0;
        }
    }
    let result = catch_unwind(AssertUnwindSafe(
        || -> Result<(MallocText, Vec<u8>), String> {
            if text.is_null() {
                return Err("text is NULL: pass the address of a char * for the text".into());
            }
            // SAFETY: the caller lends these buffers for the call (checked for NULL).
            let buffer = unsafe { slice(buffer, buffer_len) }
                .ok_or("buffer is NULL but buffer_len is not 0")?;
            let images = unsafe { images(elfs, elf_lens, elf_count, "elfs") }?;
            let names: Vec<String> = (0..images.len()).map(|i| format!("elfs[{i}]")).collect();
            let sources: Vec<Source<'_>> = images
                .iter()
                .zip(&names)
                .map(|(bytes, name)| Source::Bytes { name, bytes })
                .collect();
            let options = Options {
                output: Output::Text,
                ..Options::default()
            };
            // The text is written straight into memory from malloc that the caller gets: no
            // copy of a text that can be gigabytes.
            let mut out = MallocText::default();
            let mut warned = Vec::new();
            fmtstr_tools::decode::decode(
                &Source::Bytes {
                    name: "buffer",
                    bytes: buffer,
                },
                &sources,
                &[],
                &options,
                &mut out,
                &mut warned,
            )
            .map_err(|error| fmtstr_tools::describe(&error))?;
            Ok((out, warned))
        },
    ));
    // SAFETY: the output pointers are NULL or writable (the caller's promise).
    unsafe {
        status(result, error, |(out, warned)| {
            let Some((pointer, len)) = out.into_c_string() else {
                set(error, b"out of memory");
                return FMTSTR_BAD_INPUT;
            };
            if !text_len.is_null() {
                *text_len = len;
            }
            *text = pointer;
            if !warned.is_empty() {
                set(warnings, &warned);
            }
            FMTSTR_OK
        })
    }
}

/// Merge the format-string tables of INPUTS into BASE (an ELF image) and return the new image
/// (as `fmtstr merge` writes it; with no inputs, the post-link fold of BASE's notes).
///
/// Returns 0 on success (`*out` and `*out_len` set, free `*out` with `fmtstr_free`), 1 on
/// collisions or conflicts (described in `*error`, the lines `fmtstr merge` prints), 2 on bad
/// input (described in `*error`). Messages name the images `base`, `inputs[0]`, ...
///
/// # Safety
/// Each pointer is NULL or valid for its length; `inputs` and `input_lens` hold `input_count`
/// elements; the output pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn fmtstr_merge(
    base: *const u8,
    base_len: usize,
    inputs: *const *const u8,
    input_lens: *const usize,
    input_count: usize,
    out: *mut *mut u8,
    out_len: *mut usize,
    error: *mut *mut c_char,
) -> c_int {
    // SAFETY: the output pointers are NULL or writable (the caller's promise).
    unsafe {
        if !out.is_null() {
            *out = std::ptr::null_mut();
        }
        if !out_len.is_null() {
            *out_len = 0;
        }
        reset(error);
    }
    let result = catch_unwind(AssertUnwindSafe(|| -> Result<merge::Merged, String> {
        if out.is_null() || out_len.is_null() {
            return Err("out or out_len is NULL: pass where the merged image goes".into());
        }
        // SAFETY: the caller lends these buffers for the call (checked for NULL).
        let base = unsafe { slice(base, base_len) }.ok_or("base is NULL but base_len is not 0")?;
        let images = unsafe { images(inputs, input_lens, input_count, "inputs") }?;
        let names: Vec<String> = (0..images.len()).map(|i| format!("inputs[{i}]")).collect();
        let sources: Vec<Source<'_>> = images
            .iter()
            .zip(&names)
            .map(|(bytes, name)| Source::Bytes { name, bytes })
            .collect();
        merge::merge(
            &Source::Bytes {
                name: "base",
                bytes: base,
            },
            &sources,
            &merge::Options::default(),
        )
        .map_err(|error| fmtstr_tools::describe(&error))
    }));
    // SAFETY: the output pointers are NULL or writable (checked above for the success path).
    unsafe {
        status(result, error, |merged| {
            let messages = merged.messages.join("\n");
            match merged.image {
                Some(image) => {
                    let copy = malloc_copy(&image, false);
                    if copy.is_null() {
                        set(error, b"out of memory");
                        return FMTSTR_BAD_INPUT;
                    }
                    *out = copy;
                    *out_len = image.len();
                    FMTSTR_OK
                }
                None => {
                    set(error, messages.as_bytes());
                    FMTSTR_FINDINGS
                }
            }
        })
    }
}

/// Lower the printf calls of an LLVM IR module (text or bitcode), as `fmtstr lower` does.
///
/// `options` is a JSON object of `fmtstr lower`'s options by their command-line names
/// (NUL-terminated; NULL is `{}`): `{"target": "nvptx"}`, `{"target": "amdgpu", "stage":
/// "buffer", "emit-strings": true, "runtime-strings": 32}`, `{"pass": "strip"}`; `"report":
/// true` asks for the report, `"emit-strings": true` for the table. `name` names the module in
/// messages (NULL: `module`).
///
/// Returns the CLI's exit code: 0 with `*out` (`*out_len` bytes and a NUL) the lowered module,
/// `*strings_json` and `*report_json` what `--emit-strings` and `--report-json` write (NULL
/// unless asked); 1 when `"werror": true` and there were warnings; 2 on errors or bad options.
/// `*diagnostics` holds what the CLI prints on stderr, one diagnostic per line (NULL when
/// none); `*error` what it prints after `fmtstr: error: ` (codes 1 and 2). Free every returned
/// string with `fmtstr_free`.
///
/// # Safety
/// `module` is NULL or valid for `module_len` bytes; `name` and `options` are NULL or
/// NUL-terminated; the output pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn fmtstr_lower(
    module: *const u8,
    module_len: usize,
    name: *const c_char,
    options: *const c_char,
    out: *mut *mut c_char,
    out_len: *mut usize,
    strings_json: *mut *mut c_char,
    report_json: *mut *mut c_char,
    diagnostics: *mut *mut c_char,
    error: *mut *mut c_char,
) -> c_int {
    // SAFETY: the output pointers are NULL or writable (the caller's promise).
    unsafe {
        for target in [out, strings_json, report_json, diagnostics, error] {
            reset(target);
        }
        if !out_len.is_null() {
            *out_len = 0;
        }
    }
    let result = catch_unwind(AssertUnwindSafe(
        || -> Result<fmtstr_tools::lower::InMemory, String> {
            if out.is_null() {
                return Err("out is NULL: pass the address of a char * for the module".into());
            }
            // SAFETY: the caller lends these for the call (checked for NULL).
            let module = unsafe { slice(module, module_len) }
                .ok_or("module is NULL but module_len is not 0")?;
            let name = unsafe { c_str(name, "name") }?.unwrap_or_else(|| "module".into());
            let options = unsafe { c_str(options, "options") }?.unwrap_or_else(|| "{}".into());
            let options: fmtstr_tools::lower::LowerOptions = serde_json::from_str(&options)
                .map_err(|e| format!("options: {e}: give a JSON object of fmtstr lower's options, e.g. {{\"target\": \"nvptx\"}}"))?;
            Ok(fmtstr_tools::lower::lower_in_memory(
                &name, module, &options,
            ))
        },
    ));
    // SAFETY: the output pointers are NULL or writable (checked above for `out`).
    unsafe {
        status(result, error, |lowered| {
            if !lowered.diagnostics.is_empty() {
                set(diagnostics, lowered.diagnostics.as_bytes());
            }
            if let Some(message) = &lowered.error {
                set(error, message.as_bytes());
            }
            if let Some(text) = &lowered.strings_json {
                set(strings_json, text.as_bytes());
            }
            if let Some(text) = &lowered.report_json {
                set(report_json, text.as_bytes());
            }
            if let Some(module) = &lowered.module {
                let copy = malloc_copy(module, true);
                if copy.is_null() {
                    set(error, b"out of memory");
                    return FMTSTR_BAD_INPUT;
                }
                *out = copy.cast();
                if !out_len.is_null() {
                    *out_len = module.len();
                }
            }
            c_int::from(lowered.code)
        })
    }
}

/// Check a format against IR argument types, or every DebugPrintf call of a SPIR-V module, as
/// `fmtstr check` does.
///
/// `input` is the format's bytes, or a SPIR-V module's (when it starts with the SPIR-V magic
/// number; `name` names it in messages, NULL: `module`). `options` is a JSON object of
/// `fmtstr check`'s options by their command-line names (NUL-terminated; NULL is `{}`):
/// `{"args": ["i32", "ptr"], "dialect": "c", "format": "json"}` (`format`: text, json or
/// sarif). Returns the CLI's exit code: 0 no findings, 1 findings, 2 the format cannot be
/// parsed or bad input. `*out` is what the CLI prints on stdout (the JSON report or the SARIF
/// log; NULL for text), `*diagnostics` what it prints on stderr before its last line (the text
/// findings), `*error` that last line after `fmtstr: error: ` (code 2). Free every returned
/// string with `fmtstr_free`.
///
/// # Safety
/// `input` is NULL or valid for `input_len` bytes; `name` and `options` are NULL or
/// NUL-terminated; the output pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn fmtstr_check(
    input: *const u8,
    input_len: usize,
    name: *const c_char,
    options: *const c_char,
    out: *mut *mut c_char,
    diagnostics: *mut *mut c_char,
    error: *mut *mut c_char,
) -> c_int {
    // SAFETY: the output pointers are NULL or writable (the caller's promise).
    unsafe {
        for target in [out, diagnostics, error] {
            reset(target);
        }
    }
    let result = catch_unwind(AssertUnwindSafe(
        || -> Result<fmtstr_tools::check::Checked, String> {
            // SAFETY: the caller lends these for the call (checked for NULL).
            let input =
                unsafe { slice(input, input_len) }.ok_or("input is NULL but input_len is not 0")?;
            let name = unsafe { c_str(name, "name") }?.unwrap_or_else(|| "module".into());
            let options = unsafe { c_str(options, "options") }?.unwrap_or_else(|| "{}".into());
            let options: fmtstr_tools::check::CheckOptions = serde_json::from_str(&options)
                .map_err(|e| format!("options: {e}: give a JSON object of fmtstr check's options, e.g. {{\"args\": [\"i32\"]}}"))?;
            Ok(if fmtstr_tools::spirv::is_spirv(input) {
                fmtstr_tools::check::check_module_bytes(
                    &name,
                    input,
                    &options,
                    fmtstr_tools::VERSION,
                )
            } else {
                fmtstr_tools::check::check_format_bytes(input, &options, fmtstr_tools::VERSION)
            })
        },
    ));
    // SAFETY: the output pointers are NULL or writable.
    unsafe {
        status(result, error, |checked| {
            if !checked.stdout.is_empty() {
                set(out, checked.stdout.as_bytes());
            }
            if !checked.stderr.is_empty() {
                set(diagnostics, checked.stderr.as_bytes());
            }
            if let Some(message) = &checked.error {
                set(error, message.as_bytes());
            }
            c_int::from(checked.code)
        })
    }
}

/// Audit PAL ELFs, HSA code objects and SPIR-V modules (files and directories, by path) for
/// format-string collisions and other problems, as `fmtstr audit` does.
///
/// `options` is a JSON object of `fmtstr audit`'s options (NUL-terminated; NULL is `{}`):
/// `{"format": "json", "verify-ids": true}` (`format`: text, json, github or sarif). Returns
/// the CLI's exit code: 0 clean, 1 findings (`*out`, as the CLI prints it on stdout, either
/// way), 2 an input cannot be read (`*error`). Free every returned string with `fmtstr_free`.
///
/// # Safety
/// `paths` is NULL or holds `path_count` NUL-terminated strings; `options` is NULL or
/// NUL-terminated; the output pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn fmtstr_audit(
    paths: *const *const c_char,
    path_count: usize,
    options: *const c_char,
    out: *mut *mut c_char,
    error: *mut *mut c_char,
) -> c_int {
    // SAFETY: the output pointers are NULL or writable (the caller's promise).
    unsafe {
        reset(out);
        reset(error);
    }
    let result = catch_unwind(AssertUnwindSafe(|| -> Result<(String, u8), String> {
        if path_count > 0 && paths.is_null() {
            return Err(format!("paths is NULL but path_count is {path_count}"));
        }
        let mut list = Vec::with_capacity(path_count);
        for index in 0..path_count {
            // SAFETY: `paths` holds `path_count` pointers (the caller's promise).
            let pointer = unsafe { *paths.add(index) };
            let path = unsafe { c_str(pointer, &format!("paths[{index}]")) }?
                .ok_or_else(|| format!("paths[{index}] is NULL"))?;
            list.push(std::path::PathBuf::from(path));
        }
        if list.is_empty() {
            return Err("no paths to audit: give at least one file or directory".into());
        }
        let options = unsafe { c_str(options, "options") }?.unwrap_or_else(|| "{}".into());
        let request: fmtstr_tools::audit_formats::Request = serde_json::from_str(&options)
            .map_err(|e| format!("options: {e}: give a JSON object of fmtstr audit's options, e.g. {{\"format\": \"json\"}}"))?;
        fmtstr_tools::audit_formats::audit_to_text(&list, &request, fmtstr_tools::VERSION)
    }));
    // SAFETY: the output pointers are NULL or writable.
    unsafe {
        status(result, error, |(text, code)| {
            set(out, text.as_bytes());
            c_int::from(code)
        })
    }
}

/// A call's status: `ok`'s for an answer; [`FMTSTR_BAD_INPUT`] with `*error` set for bad input
/// or a panic (a bug).
///
/// # Safety
/// `error` is NULL or writable.
unsafe fn status<T>(
    result: std::thread::Result<Result<T, String>>,
    error: *mut *mut c_char,
    ok: impl FnOnce(T) -> c_int,
) -> c_int {
    let message = match result {
        Ok(Ok(answer)) => return ok(answer),
        Ok(Err(message)) => message,
        Err(panic) => panicked(&panic),
    };
    // SAFETY: writable (the caller's promise).
    unsafe { set(error, message.as_bytes()) };
    FMTSTR_BAD_INPUT
}

/// A NUL-terminated string a caller lends (`None` for NULL); not UTF-8 is an error.
///
/// # Safety
/// `pointer` is NULL or NUL-terminated.
unsafe fn c_str(pointer: *const c_char, what: &str) -> Result<Option<String>, String> {
    if pointer.is_null() {
        return Ok(None);
    }
    // SAFETY: NUL-terminated (the caller's promise).
    let text = unsafe { std::ffi::CStr::from_ptr(pointer) };
    text.to_str()
        .map(|s| Some(s.to_owned()))
        .map_err(|_| format!("{what} is not UTF-8"))
}

/// Frees a string or image returned by fmtstr (NULL is ignored).
///
/// # Safety
/// `p` is NULL or a pointer fmtstr returned and that was not freed yet.
#[no_mangle]
pub unsafe extern "C" fn fmtstr_free(p: *mut c_void) {
    // SAFETY: everything fmtstr returns comes from `malloc` (see `malloc_copy`).
    unsafe { libc::free(p) }
}

/// The bytes a caller lends; `None` for NULL with a non-zero length. NULL with length 0 is
/// the empty slice.
///
/// # Safety
/// `pointer` is NULL or valid for `len` bytes for the call.
unsafe fn slice<'a>(pointer: *const u8, len: usize) -> Option<&'a [u8]> {
    if pointer.is_null() {
        return (len == 0).then_some(&[]);
    }
    // SAFETY: non-null and valid for `len` bytes (the caller's promise).
    Some(unsafe { std::slice::from_raw_parts(pointer, len) })
}

/// The images of a `(pointers, lengths, count)` triple.
///
/// # Safety
/// `pointers` and `lens` are NULL or hold `count` elements, each image valid for its length.
unsafe fn images<'a>(
    pointers: *const *const u8,
    lens: *const usize,
    count: usize,
    what: &str,
) -> Result<Vec<&'a [u8]>, String> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if pointers.is_null() || lens.is_null() {
        return Err(format!(
            "{what} or its lengths are NULL but the count is {count}"
        ));
    }
    // SAFETY: both arrays hold `count` elements (the caller's promise).
    let (pointers, lens) = unsafe {
        (
            std::slice::from_raw_parts(pointers, count),
            std::slice::from_raw_parts(lens, count),
        )
    };
    pointers
        .iter()
        .zip(lens)
        .enumerate()
        .map(|(index, (pointer, len))| {
            // SAFETY: each image is valid for its length (the caller's promise).
            unsafe { slice(*pointer, *len) }
                .ok_or_else(|| format!("{what}[{index}] is NULL but its length is {len}"))
        })
        .collect()
}

fn panicked(panic: &Box<dyn std::any::Any + Send>) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    format!("internal error (a bug in fmtstr, please report it): {what}")
}

/// A growing text in memory from `malloc`, handed to C without a copy. A failed allocation is
/// an `OutOfMemory` write error (never an abort).
#[derive(Debug, Default)]
struct MallocText {
    pointer: Option<std::ptr::NonNull<u8>>,
    len: usize,
    capacity: usize,
}

impl MallocText {
    /// Makes room for `additional` more bytes (and a NUL).
    fn reserve(&mut self, additional: usize) -> std::io::Result<()> {
        let needed = self
            .len
            .checked_add(additional)
            .and_then(|n| n.checked_add(1))
            .ok_or(std::io::ErrorKind::OutOfMemory)?;
        if needed <= self.capacity {
            return Ok(());
        }
        let capacity = needed.max(self.capacity.saturating_mul(2)).max(4096);
        let old = self.pointer.map_or(std::ptr::null_mut(), |p| p.as_ptr());
        // SAFETY: `old` is NULL or this object's own allocation from malloc/realloc.
        let grown = unsafe { libc::realloc(old.cast(), capacity) }.cast::<u8>();
        let grown = std::ptr::NonNull::new(grown).ok_or(std::io::ErrorKind::OutOfMemory)?;
        self.pointer = Some(grown);
        self.capacity = capacity;
        Ok(())
    }

    /// The NUL-terminated text and its length without the NUL; `None` when out of memory.
    fn into_c_string(mut self) -> Option<(*mut c_char, usize)> {
        self.reserve(0).ok()?;
        let pointer = self.pointer.take()?.as_ptr();
        // SAFETY: `reserve` left room for the NUL after `len` bytes.
        unsafe { *pointer.add(self.len) = 0 };
        Some((pointer.cast(), self.len))
    }
}

impl std::io::Write for MallocText {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.reserve(bytes.len())?;
        if let Some(pointer) = self.pointer {
            // SAFETY: `reserve` made room for `bytes.len()` more bytes after `len`.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    pointer.as_ptr().add(self.len),
                    bytes.len(),
                )
            };
            self.len += bytes.len();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for MallocText {
    fn drop(&mut self) {
        if let Some(pointer) = self.pointer.take() {
            // SAFETY: our own allocation, not handed out (`into_c_string` takes it).
            unsafe { libc::free(pointer.as_ptr().cast()) };
        }
    }
}

/// `bytes` in memory from `malloc`, with a NUL after them when `nul`; NULL when out of memory.
fn malloc_copy(bytes: &[u8], nul: bool) -> *mut u8 {
    let size = bytes.len() + usize::from(nul);
    // SAFETY: malloc of a non-zero size; the copy stays within the allocation.
    unsafe {
        let pointer = libc::malloc(size.max(1)).cast::<u8>();
        if !pointer.is_null() {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), pointer, bytes.len());
            if nul {
                *pointer.add(bytes.len()) = 0;
            }
        }
        pointer
    }
}

fn c_string(bytes: &[u8]) -> *mut c_char {
    malloc_copy(bytes, true).cast()
}

/// # Safety
/// `target` is NULL or writable.
unsafe fn set(target: *mut *mut c_char, bytes: &[u8]) {
    if !target.is_null() {
        // SAFETY: writable (the caller's promise).
        unsafe { *target = c_string(bytes) };
    }
}

/// # Safety
/// `target` is NULL or writable.
unsafe fn reset(target: *mut *mut c_char) {
    if !target.is_null() {
        // SAFETY: writable (the caller's promise).
        unsafe { *target = std::ptr::null_mut() };
    }
}
