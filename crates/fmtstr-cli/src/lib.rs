//! The `fmtstr` command line: a thin layer over the fmtstr library crates.
//!
//! Each subcommand is a module with an `Args` struct (clap derive) and a `run` function returning
//! an [`Outcome`]; this file parses the command line and turns outcomes and errors into the
//! documented exit codes. The binary (src/main.rs) only calls [`main`]; [`command`] is the
//! definition `cargo xtask man` and `fmtstr completions` generate from.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod abi;
mod check;
mod completions;
mod decode_command;
mod diagnostics;
mod elf;
mod gaps;
mod hash;
mod lower;
mod nvptx_config;
mod output;
mod printf;
mod spirv;

/// How `fmtstr lower` reads a module and writes what it prints: `cargo xtask bench lower`
/// times its in-process phases with the same calls.
pub mod files {
    pub use crate::lower::read_file as read_module;
    pub use crate::output::write_atomically_sized;
}

/// The exit-code contract, shown in `--help` and README.md.
macro_rules! exit_codes {
    () => {
        "Exit codes:
  0  success
  1  findings (a check or an audit found problems; a merge found collisions)
  2  bad input or usage (the message names the file, the offset or line, and the fix)"
    };
}

macro_rules! examples {
    () => {
        "Examples:
  fmtstr hash 'x=%d\\n'                       48-bit ID of a format string
  fmtstr printf '%-8.3e|%#x|%v4hlf\\n' f64:1234.5 u32:255 v4f32:1,2,3,4
  fmtstr check '%ld %s\\n' --args i32,ptr      clang -Wformat-style checks against IR types"
    };
}

#[derive(Parser, Debug)]
#[command(
    name = "fmtstr",
    version = fmtstr_tools::VERSION,
    about = "GPU debug printf across vendors: format strings, IDs, PAL metadata, buffers",
    long_about = "fmtstr lowers printf calls in LLVM IR for NVIDIA's vprintf ABI and AMD's printf \
buffer protocol, manages the 48-bit format-string IDs and amdpal.format_strings tables in PAL \
ELF files, and decodes printf buffers into exactly the text C's printf prints.\n\n\
Format strings on the command line are read as the body of a C string literal: write \\n for a \
newline, \\\\ for a backslash, \\xHH for any byte (--raw turns this off).",
    after_help = concat!(examples!(), "\n\n", exit_codes!()),
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to color diagnostics (stderr, and audit's text findings): auto (only on a terminal,
    /// never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never.
    #[arg(long, global = true, value_name = "WHEN", value_enum, default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
}

/// `--color WHEN`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    /// The last `--color WHEN` or `--color=WHEN` on the command line, read before clap parses
    /// it so that clap's own messages (usage errors, help) follow it too.
    fn from_args(args: &[std::ffi::OsString]) -> ColorWhen {
        let mut when = ColorWhen::Auto;
        let mut words = args.iter().skip(1).map(|a| a.to_str().unwrap_or(""));
        while let Some(word) = words.next() {
            if word == "--" {
                break;
            }
            let value = match word.strip_prefix("--color") {
                Some("") => words.next().unwrap_or(""),
                Some(rest) => rest.strip_prefix('=').unwrap_or(""),
                None => continue,
            };
            when = match value {
                "always" => ColorWhen::Always,
                "never" => ColorWhen::Never,
                _ => ColorWhen::Auto,
            };
        }
        when
    }

    fn clap(self) -> clap::ColorChoice {
        match self {
            ColorWhen::Auto => clap::ColorChoice::Auto,
            ColorWhen::Always => clap::ColorChoice::Always,
            ColorWhen::Never => clap::ColorChoice::Never,
        }
    }

    fn anstream(self) -> anstream::ColorChoice {
        match self {
            ColorWhen::Auto => anstream::ColorChoice::Auto,
            ColorWhen::Always => anstream::ColorChoice::Always,
            ColorWhen::Never => anstream::ColorChoice::Never,
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    Hash(hash::Args),
    Printf(printf::Args),
    Check(check::Args),
    #[command(flatten)]
    Elf(elf::ElfCommand),
    Lower(lower::Args),
    Abi(abi::Args),
    Decode(decode_command::Args),
    Gaps(gaps::Args),
    Completions(completions::Args),
}

/// How a command that did not fail ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Clean,
    /// Exit 1: the command worked and found problems.
    Findings,
}

/// The command-line definition, with the package version alone (not the commit), so that what
/// is generated from it (man pages, completion scripts) changes only when the options do.
pub fn command() -> clap::Command {
    Cli::command().version(env!("CARGO_PKG_VERSION"))
}

/// Runs `fmtstr` with the process's arguments; the exit code is the documented one.
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let early = ColorWhen::from_args(&args);
    anstream::ColorChoice::write_global(early.anstream());
    let matches = Cli::command().color(early.clap()).get_matches_from(args);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    anstream::ColorChoice::write_global(cli.color.anstream());
    let result = match cli.command {
        Command::Hash(args) => hash::run(args),
        Command::Printf(args) => printf::run(args),
        Command::Check(args) => check::run(args),
        Command::Elf(command) => elf::run(command),
        Command::Lower(args) => lower::run(args),
        Command::Abi(args) => abi::run(args),
        Command::Decode(args) => decode_command::run(args),
        Command::Gaps(args) => gaps::run(args),
        Command::Completions(args) => completions::run(args),
    };
    match result {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        // A reader that stopped early (`| head`): not a failure of this command.
        Err(error) if output::stdout_closed(&error) => ExitCode::SUCCESS,
        Err(error) => {
            output::report_error(&error);
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
