//! For the crate's own tests: an allocator that counts the bytes each
//! thread holds, so that a test measures what one call takes at its peak
//! ([`peak_of`]) while other tests run beside it on other threads. Bytes
//! freed by another thread than the one that took them count there (no
//! test measured this way hands memory across threads).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    // No destructor, so touching them never allocates.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(bytes: isize) {
    // A thread being torn down has no counters left: not counted.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + bytes;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn size(layout: Layout) -> isize {
    isize::try_from(layout.size()).unwrap_or(isize::MAX)
}

struct Counting;

// SAFETY: every call is handed on to the system allocator as it came.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, handed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(size(layout));
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, handed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            count(size(layout));
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: `p` came from this allocator with this layout.
        unsafe { System.dealloc(p, layout) };
        count(-size(layout));
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's block, layout and size, handed on.
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            count(isize::try_from(new_size).unwrap_or(isize::MAX) - size(layout));
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What `f` returns, and the most bytes this thread held at once while it
/// ran, above what it held before.
pub(crate) fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let out = f();
    let peak = PEAK.with(Cell::get) - before;
    (out, usize::try_from(peak).unwrap_or(0))
}
