//! Runs the struct-args pass over a module: `cargo run -p fmtstr-nvptx --example struct_args
//! -- IN.ll [OUT.ll]` (stdout without OUT). Diagnostics go to stderr with file:line:column;
//! the exit status is 1 when the pass refuses the module.

use std::process::ExitCode;

use fmtstr_ir::Module;
use fmtstr_nvptx::{struct_args, Config};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(input) = args.first() else {
        eprintln!("usage: struct_args IN.ll [OUT.ll]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read(input) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("cannot read {input}: {error}");
            return ExitCode::from(2);
        }
    };
    let mut module = match Module::parse(input, text) {
        Ok(module) => module,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(2);
        }
    };
    match struct_args::run(&mut module, &Config::default()) {
        Ok(report) => {
            for p in &report.params {
                eprintln!("{p}");
            }
        }
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(1);
        }
    }
    let out = module.print();
    let written = match args.get(1) {
        Some(path) => std::fs::write(path, out),
        None => std::io::Write::write_all(&mut std::io::stdout(), &out),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("cannot write: {error}");
            ExitCode::from(2)
        }
    }
}
