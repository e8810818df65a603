//! `cargo xtask bench format`: fmtstr's renderer against glibc `snprintf`, in one process.
//!
//! Both render the same entries (a mix of integer and floating conversions with flags, widths
//! and precisions) into memory; fmtstr uses formats parsed once up front, as the decoder does.
//! The outputs must be byte-identical before any time is reported.
#![allow(unsafe_code)] // calling glibc's snprintf is the point of this benchmark

use std::ffi::CString;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use fmtstr_format::{Arg, Format};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The formats in the mix: (format, takes a double).
const FORMATS: [(&str, bool); 16] = [
    ("%d", false),
    ("%8d", false),
    ("%-6i|", false),
    ("%+.5d", false),
    ("%x", false),
    ("%#010x", false),
    ("%X", false),
    ("%f", true),
    ("%.3f", true),
    ("%12.2f", true),
    ("%e", true),
    ("%-14.4E|", true),
    ("%g", true),
    ("%.10g", true),
    ("%a", true),
    ("%.3a", true),
];

#[derive(Clone, Copy)]
enum Value {
    Int(i32),
    Double(f64),
}

pub fn run(entries: usize) -> anyhow::Result<()> {
    let mut rng = SmallRng::seed_from_u64(0x5eed);
    let work: Vec<(usize, Value)> = (0..entries)
        .map(|_| {
            let index = rng.gen_range(0..FORMATS.len());
            let value = if FORMATS[index].1 {
                Value::Double(random_double(&mut rng))
            } else {
                Value::Int(rng.gen())
            };
            (index, value)
        })
        .collect();

    let parsed: Vec<Format> = FORMATS
        .iter()
        .map(|(text, _)| Format::parse(text.as_bytes()))
        .collect::<Result<_, _>>()
        .context("a benchmark format does not parse")?;
    let c_formats: Vec<CString> = FORMATS
        .iter()
        .map(|(text, _)| CString::new(*text))
        .collect::<Result<_, _>>()?;

    // Warm both up once so that neither pays for first-touch page faults in the timing.
    let _ = render_fmtstr(&parsed, &work[..work.len().min(10_000)])?;
    let _ = render_glibc(&c_formats, &work[..work.len().min(10_000)]);

    let (ours, ours_time) = time(|| render_fmtstr(&parsed, &work));
    let ours = ours?;
    let (glibc, glibc_time) = time(|| render_glibc(&c_formats, &work));
    if ours != glibc {
        let at = ours
            .iter()
            .zip(&glibc)
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        let show = |bytes: &[u8]| {
            String::from_utf8_lossy(&bytes[at.saturating_sub(40)..(at + 40).min(bytes.len())])
                .into_owned()
        };
        bail!(
            "outputs differ at byte {at}:\n  fmtstr: {:?}\n  glibc:  {:?}",
            show(&ours),
            show(&glibc)
        );
    }
    println!(
        "bench format: {entries} entries, {} bytes of output, identical",
        ours.len()
    );
    println!("  fmtstr (pre-parsed)  {:>9.1} ms", ms(ours_time));
    println!("  glibc snprintf       {:>9.1} ms", ms(glibc_time));
    println!(
        "  ratio: fmtstr is {:.2}x as fast as glibc snprintf",
        glibc_time.as_secs_f64() / ours_time.as_secs_f64()
    );
    println!("  by format (ratio glibc/fmtstr):");
    for (index, (text, _)) in FORMATS.iter().enumerate() {
        let subset: Vec<(usize, Value)> =
            work.iter().copied().filter(|(i, _)| *i == index).collect();
        let (_, ours) = time(|| render_fmtstr(&parsed, &subset));
        let (_, glibc) = time(|| render_glibc(&c_formats, &subset));
        println!(
            "    {text:<10} {:>6.2}x",
            glibc.as_secs_f64() / ours.as_secs_f64()
        );
    }
    Ok(())
}

fn random_double(rng: &mut SmallRng) -> f64 {
    match rng.gen_range(0..10) {
        0 => f64::from_bits(rng.gen()),
        1 => rng.gen_range(-1e-5..1e-5),
        2 => rng.gen_range(-1e15..1e15),
        _ => rng.gen_range(-10_000.0..10_000.0),
    }
}

fn render_fmtstr(parsed: &[Format], work: &[(usize, Value)]) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(work.len() * 16);
    for &(index, value) in work {
        let arg = match value {
            Value::Int(int) => Arg::Int(i64::from(int) as u64),
            Value::Double(double) => Arg::Float(double),
        };
        parsed[index]
            .render(&[arg], &mut out)
            .map_err(|error| anyhow::anyhow!("{}: {error}", FORMATS[index].0))?;
    }
    Ok(out)
}

fn render_glibc(c_formats: &[CString], work: &[(usize, Value)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(work.len() * 16);
    let mut buffer = [0u8; 512];
    for &(index, value) in work {
        let format = c_formats[index].as_ptr();
        let pointer = buffer.as_mut_ptr().cast::<libc::c_char>();
        // SAFETY: the buffer outlives the call, its size is passed, and each format takes
        // exactly one argument of the type passed.
        let written = unsafe {
            match value {
                Value::Int(int) => libc::snprintf(pointer, buffer.len(), format, int),
                Value::Double(double) => libc::snprintf(pointer, buffer.len(), format, double),
            }
        };
        let written = usize::try_from(written).unwrap_or(0).min(buffer.len() - 1);
        out.extend_from_slice(&buffer[..written]);
    }
    out
}

fn time<T>(work: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let result = work();
    (result, start.elapsed())
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
