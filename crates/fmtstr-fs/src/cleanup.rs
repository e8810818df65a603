//! Temporary files that nothing leaves behind.
//!
//! Every temporary output is named `.fmtstr-PID-RANDOM.tmp` in its target's directory and
//! registered here while it exists. SIGINT, SIGTERM and SIGHUP remove the registered files,
//! then end the process by the same signal, as it would have ended; [`out_of_memory`] removes
//! them before it exits. SIGKILL cannot be caught: a file it leaves is recognised by its name
//! (the PID is no longer running) and removed by the next fmtstr run that writes into that
//! directory ([`remove_stale`]).

use std::ffi::{CString, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Once;

/// At most this many temporary files are registered at once (a command writes a few).
const SLOTS: usize = 64;

static TEMPORARIES: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
thread_local! {
    /// The input this thread works on, for the out-of-memory message (which is written on
    /// the thread whose allocation failed). The buffer is reused: naming a file per file of a
    /// 10,000-file audit allocates only when a longer name comes.
    static INPUT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}
static INSTALL: Once = Once::new();

/// The prefix of every temporary file's name, before the process's PID.
pub const PREFIX: &str = ".fmtstr-";
/// The suffix of every temporary file's name.
pub const SUFFIX: &str = ".tmp";

/// A registered temporary file; unregistered when dropped.
#[derive(Debug)]
pub(crate) struct Registered(Option<usize>);

impl Registered {
    /// Nothing registered (a file that no handler will remove).
    pub(crate) fn none() -> Registered {
        Registered(None)
    }
}

/// Registers `path` for removal on a signal. The path's C string is leaked on purpose: a
/// handler may be reading it on another thread at any moment, so it is never freed.
pub(crate) fn register(path: &Path) -> Registered {
    install();
    let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else {
        return Registered(None);
    };
    let raw = c_path.into_raw();
    for (i, slot) in TEMPORARIES.iter().enumerate() {
        if slot
            .compare_exchange(
                std::ptr::null_mut(),
                raw,
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .is_ok()
        {
            return Registered(Some(i));
        }
    }
    Registered(None)
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            TEMPORARIES[i].store(std::ptr::null_mut(), Ordering::Release);
        }
    }
}

/// Names the input this thread works on, for [`out_of_memory`]'s message.
pub fn set_input(name: &[u8]) {
    INPUT.with(|input| {
        if let Ok(mut input) = input.try_borrow_mut() {
            input.clear();
            input.extend_from_slice(name);
        }
    });
}

fn remove_registered() {
    for slot in &TEMPORARIES {
        let path = slot.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if !path.is_null() {
            #[allow(unsafe_code)]
            // SAFETY: a NUL-terminated string leaked by `register`, never freed.
            unsafe {
                libc::unlink(path);
            }
        }
    }
}

/// Installs the signal handlers (once): before a temporary file is created, so that no
/// signal can end the process by its default action while the file exists.
pub(crate) fn install() {
    INSTALL.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            #[allow(unsafe_code)]
            // SAFETY: sigaction with a zeroed struct filled as the man page says.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as *const () as usize;
                action.sa_flags = libc::SA_RESETHAND;
                libc::sigemptyset(&mut action.sa_mask);
                let mut previous: libc::sigaction = std::mem::zeroed();
                libc::sigaction(signal, &action, &mut previous);
                // A signal the shell told this process to ignore (nohup) stays ignored.
                if previous.sa_sigaction == libc::SIG_IGN {
                    libc::sigaction(signal, &previous, std::ptr::null_mut());
                }
            }
        }
    });
}

extern "C" fn on_signal(signal: libc::c_int) {
    remove_registered();
    #[allow(unsafe_code)]
    // SAFETY: SA_RESETHAND restored the default action; raise is async-signal-safe.
    unsafe {
        libc::raise(signal);
    }
}

/// Ends the process when an allocation of `bytes` failed: the temporary files go, a message
/// naming the input and the size goes to stderr, and the exit code is 2 (bad input). Allocates
/// nothing.
pub fn out_of_memory(bytes: usize) -> ! {
    remove_registered();
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = bytes;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let write = |bytes: &[u8]| {
        #[allow(unsafe_code)]
        // SAFETY: write(2) of a live slice to stderr.
        unsafe {
            libc::write(2, bytes.as_ptr().cast(), bytes.len());
        }
    };
    write(b"fmtstr: error: out of memory: ");
    write(&digits[at..]);
    write(b" bytes more were needed");
    // An allocation that failed while the name was being set leaves it borrowed: no name.
    let _ = INPUT.try_with(|input| {
        if let Ok(input) = input.try_borrow() {
            if !input.is_empty() {
                write(b" while working on ");
                write(&input);
            }
        }
    });
    write(b"; raise the memory limit (`ulimit -v`) or give a smaller input\n");
    #[allow(unsafe_code)]
    // SAFETY: _exit ends the process without running anything that could allocate.
    unsafe {
        libc::_exit(2)
    }
}

/// Removes the temporary files in `directory` that runs no longer running left behind.
pub fn remove_stale(directory: &Path) {
    let Ok(entries) = std::fs::read_dir(directory) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if let Some(pid) = stale_pid(&name) {
            #[allow(unsafe_code)]
            // SAFETY: kill with signal 0 only asks whether the process exists.
            let gone = unsafe { libc::kill(pid, 0) } != 0
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
            if gone {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// The PID in a temporary file's name `.fmtstr-PID-RANDOM.tmp`.
fn stale_pid(name: &OsStr) -> Option<libc::pid_t> {
    let name = name.to_str()?;
    let rest = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let (pid, random) = rest.split_once('-')?;
    if random.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok().filter(|&pid: &libc::pid_t| pid > 0)
}

#[cfg(test)]
mod tests {
    use super::stale_pid;
    use std::ffi::OsStr;

    #[test]
    fn only_fmtstr_temporary_names_carry_a_pid() {
        assert_eq!(stale_pid(OsStr::new(".fmtstr-123-abcDEF.tmp")), Some(123));
        for name in [
            "fmtstr-123-abc.tmp",
            ".fmtstr-123-abc",
            ".fmtstr--abc.tmp",
            ".fmtstr-12x-abc.tmp",
            ".fmtstr-123-.tmp",
            ".fmtstr-0-abc.tmp",
            "k.ll",
        ] {
            assert_eq!(stale_pid(OsStr::new(name)), None, "{name}");
        }
    }
}
