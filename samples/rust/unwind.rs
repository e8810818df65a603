//! Unwinding: destructors that run while a panic unwinds (cleanup landing pads, `resume`),
//! `catch_unwind`, and `Result` plumbing with `?`.

use std::panic;

pub struct Noisy(pub u32);

impl Drop for Noisy {
    fn drop(&mut self) {
        if self.0 > 100 {
            eprintln!("dropping {}", self.0);
        }
    }
}

#[inline(never)]
pub fn may_panic(n: u32) -> u32 {
    let _guard = Noisy(n);
    if n == 7 {
        panic!("seven");
    }
    n * 3
}

pub fn parse_sum(text: &str) -> Result<u32, std::num::ParseIntError> {
    let mut total = 0;
    for part in text.split(',') {
        total += part.trim().parse::<u32>()?;
    }
    Ok(total)
}

#[no_mangle]
pub extern "C" fn guarded(n: u32) -> i64 {
    let _outer = Noisy(n + 1000);
    match panic::catch_unwind(|| may_panic(n)) {
        Ok(v) => i64::from(v),
        Err(_) => -1,
    }
}

#[no_mangle]
pub extern "C" fn sum_text(n: u32) -> u32 {
    let text = format!("{n}, 2, 3");
    parse_sum(&text).unwrap_or(0)
}
