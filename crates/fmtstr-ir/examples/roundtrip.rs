//! Parses an `.ll` file and prints it back: `roundtrip [--threads N] IN [OUT]`.
//!
//! Without OUT, checks that the output is byte-identical to the input; with OUT, writes the
//! printed module there (`cargo xtask bench ir` times this). Timings go to stderr.

use std::io::Write;
use std::time::Instant;

// The fmtstr binary's allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = None;
    if args.first().is_some_and(|a| a == "--threads") && args.len() > 1 {
        threads = args[1].parse::<usize>().ok();
        args.drain(..2);
    }
    let mut args = args.into_iter();
    let Some(input) = args.next() else {
        eprintln!("usage: roundtrip [--threads N] IN.ll [OUT.ll]");
        std::process::exit(2);
    };
    let output = args.next();
    let start = Instant::now();
    let text = match std::fs::read(&input) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{input}: {e}");
            std::process::exit(1);
        }
    };
    let read = start.elapsed();
    let parsed = match threads {
        Some(n) => fmtstr_ir::Module::parse_with_threads(&input, text, n),
        None => fmtstr_ir::Module::parse(&input, text),
    };
    let module = match parsed {
        Ok(module) => module,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let parsed = start.elapsed();
    match output {
        Some(path) => {
            let file = std::fs::File::create(&path).unwrap_or_else(|e| {
                eprintln!("{path}: {e}");
                std::process::exit(1)
            });
            let mut writer = std::io::BufWriter::with_capacity(1 << 20, file);
            if let Err(e) = module.write_to(&mut writer).and_then(|()| writer.flush()) {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        }
        None => {
            let printed = module.print();
            if printed != module.source() {
                let at = printed
                    .iter()
                    .zip(module.source())
                    .position(|(a, b)| a != b)
                    .unwrap_or(printed.len().min(module.source().len()));
                eprintln!("{input}: output differs from input at byte {at}");
                std::process::exit(1);
            }
        }
    }
    let printed = start.elapsed();
    // The process ends here: freeing a million records one by one would only cost time.
    std::mem::forget(module);
    eprintln!(
        "read {:.3}s parse {:.3}s print {:.3}s",
        read.as_secs_f64(),
        (parsed - read).as_secs_f64(),
        (printed - parsed).as_secs_f64()
    );
}
