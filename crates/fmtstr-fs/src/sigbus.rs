//! A read-only file map that survives the file shrinking underneath it.
//!
//! A page of a map past the file's new end raises SIGBUS when it is read, and SIGBUS ends the
//! process. Under the guard, a SIGBUS whose address lies in a guarded map is answered by
//! mapping a page of zeros over the faulting page and noting it; the read then goes on, and
//! [`GuardedMap::shrank`] tells the owner to treat what it read as void. A SIGBUS anywhere else
//! goes to the handler that was there before (Rust's own, which reports stack overflows), or
//! ends the process as it would have.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};

/// How many maps can be guarded at once; a map beyond that is made without a guard.
const SLOTS: usize = 64;

struct Slot {
    taken: AtomicBool,
    start: AtomicUsize,
    end: AtomicUsize,
    hit: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE: Slot = Slot {
    taken: AtomicBool::new(false),
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    hit: AtomicBool::new(false),
};

static GUARDED: [Slot; SLOTS] = [FREE; SLOTS];
static PAGE_SIZE: AtomicUsize = AtomicUsize::new(4096);
static INSTALL: Once = Once::new();
static PREVIOUS: OnceLock<Previous> = OnceLock::new();

/// The SIGBUS action before the guard's.
struct Previous(libc::sigaction);
// SAFETY: a plain C struct that is written once, before the handler can read it, and never
// changed.
#[allow(unsafe_code)]
unsafe impl Sync for Previous {}
#[allow(unsafe_code)]
unsafe impl Send for Previous {}

/// A read-only, private map of a whole file, guarded against the file shrinking.
#[derive(Debug)]
pub struct GuardedMap {
    map: memmap2::Mmap,
    slot: Option<usize>,
}

impl GuardedMap {
    /// Maps `file` (which must not be empty); `populate` reads every page in at once.
    pub fn new(file: &File, populate: bool) -> io::Result<GuardedMap> {
        install();
        let mut options = memmap2::MmapOptions::new();
        if populate {
            options.populate();
        }
        // SAFETY: the map is read-only and its contents are read as untrusted bytes. The one
        // hazard of a file map, the file shrinking while mapped, is what the guard handles.
        #[allow(unsafe_code)]
        let map = unsafe { options.map(file)? };
        let start = map.as_ptr() as usize;
        let end = start + map.len();
        let slot = (0..SLOTS).find(|&i| {
            GUARDED[i]
                .taken
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        });
        if let Some(i) = slot {
            GUARDED[i].hit.store(false, Ordering::Release);
            GUARDED[i].start.store(start, Ordering::Release);
            GUARDED[i].end.store(end, Ordering::Release);
        }
        Ok(GuardedMap { map, slot })
    }

    /// The file's bytes (zeros where the file shrank while they were read).
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Whether a read found the file shorter than when it was mapped.
    pub fn shrank(&self) -> bool {
        self.slot
            .is_some_and(|i| GUARDED[i].hit.load(Ordering::Acquire))
    }

    /// Tells the kernel that the pages inside `start..end` will not be read again soon.
    pub fn release(&self, start: usize, end: usize) {
        // SAFETY: MADV_DONTNEED on a private read-only file map drops the process's copies;
        // later reads fault the same contents back in from the file (or, past a shrunk end,
        // into the guard).
        #[allow(unsafe_code)]
        let _ = unsafe {
            self.map
                .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
        };
    }
}

impl Drop for GuardedMap {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            GUARDED[i].end.store(0, Ordering::Release);
            GUARDED[i].start.store(0, Ordering::Release);
            GUARDED[i].taken.store(false, Ordering::Release);
        }
    }
}

impl AsRef<[u8]> for GuardedMap {
    fn as_ref(&self) -> &[u8] {
        &self.map
    }
}

fn install() {
    INSTALL.call_once(|| {
        #[allow(unsafe_code)]
        // SAFETY: sysconf and sigaction with a zeroed struct filled as the man page says; the
        // handler only reads atomics and calls mmap and sigaction.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE);
            if page > 0 {
                PAGE_SIZE.store(page as usize, Ordering::Release);
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, &action, &mut previous) == 0 {
                let _ = PREVIOUS.set(Previous(previous));
            }
        }
    });
}

extern "C" fn on_sigbus(
    _signal: libc::c_int,
    info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    #[allow(unsafe_code)]
    // SAFETY: `info` is the kernel's siginfo for this SIGBUS. The page mapped over is inside a
    // map this process owns and reads only; mmap and sigaction are async-signal-safe calls.
    unsafe {
        let address = (*info).si_addr() as usize;
        let page = PAGE_SIZE.load(Ordering::Acquire);
        for slot in &GUARDED {
            let start = slot.start.load(Ordering::Acquire);
            let end = slot.end.load(Ordering::Acquire);
            if start <= address && address < end {
                let base = address & !(page - 1);
                let zeros = libc::mmap(
                    base as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                );
                if zeros != libc::MAP_FAILED {
                    slot.hit.store(true, Ordering::Release);
                    return;
                }
            }
        }
        // Not a guarded map: the fault repeats under the previous action.
        match PREVIOUS.get() {
            Some(previous) => {
                libc::sigaction(libc::SIGBUS, &previous.0, std::ptr::null_mut());
            }
            None => {
                libc::signal(libc::SIGBUS, libc::SIG_DFL);
            }
        }
    }
}
