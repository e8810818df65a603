//! Has a release binary's debug line tables compressed. (The version the binary reports is
//! `fmtstr_tools::VERSION`, made by that crate's build script.)

fn main() {
    // The release profile keeps line tables so that a backtrace names files and lines; they
    // are 35 of the binary's 42 MB. Compressed (which Rust's backtraces read) the installed
    // binary is 17 MB. Only this package's binaries, only in release: tests link as before.
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if linux && std::env::var("PROFILE").is_ok_and(|p| p == "release") {
        println!("cargo:rustc-link-arg-bins=-Wl,--compress-debug-sections=zlib");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
