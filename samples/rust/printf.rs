//! C's printf called from Rust: `fmtstr lower` rewrites these calls like clang's.

use std::ffi::{c_char, c_double, c_int};

extern "C" {
    fn printf(format: *const c_char, ...) -> c_int;
}

#[no_mangle]
pub extern "C" fn report(id: c_int, value: c_double, count: u64) -> c_int {
    unsafe {
        printf(c"id=%d value=%f\n".as_ptr(), id, value);
        printf(c"count=%llu of %s\n".as_ptr(), count, c"items".as_ptr())
    }
}

#[no_mangle]
pub extern "C" fn banner() {
    unsafe {
        printf(c"no arguments\n".as_ptr());
    }
}
