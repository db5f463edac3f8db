//! A hint to the CPU to start loading memory that a loop will read a few
//! steps later: edits of thousands of objects spread through a large
//! scene read each object's state at random places, and without the hint
//! each read waits for main memory in turn.

/// Asks the CPU to bring `value`'s first cache line closer (no effect
/// where no hint exists). Reads nothing and cannot fault.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint, not a load: it never faults and has no
    // effect the program can observe; the pointer comes from a reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// [`prefetch`] of `items[at]`, when there is one.
#[inline(always)]
pub(crate) fn prefetch_at<T>(items: &[T], at: usize) {
    if let Some(v) = items.get(at) {
        prefetch(v);
    }
}

/// How many steps ahead loops over scattered ids prefetch: enough to
/// cover a trip to main memory with a few reads in flight.
pub(crate) const AHEAD: usize = 16;
