//! Large tables and cache hints. The mapping tables of a 32 GiB device are
//! tens of MiB and accessed at random; transparent huge pages (asked for
//! with madvise where the system leaves it to the program) cut TLB misses,
//! and prefetching the entries of requests a few steps ahead hides DRAM
//! latency.

/// A vector of `n` copies of `value`, backed by huge pages where possible.
pub fn big_vec(n: usize, value: u32) -> Vec<u32> {
    let mut v: Vec<u32> = Vec::with_capacity(n);
    advise_huge(v.as_mut_ptr().cast(), n * 4);
    v.resize(n, value);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge(ptr: *mut u8, len: usize) {
    const MADV_HUGEPAGE: i32 = 14;
    const HUGE: usize = 2 << 20;
    extern "C" {
        fn madvise(addr: *mut core::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + len) & !(HUGE - 1);
    if end > start {
        // SAFETY: the range lies inside an allocation this process owns;
        // MADV_HUGEPAGE only changes how the kernel backs it and never
        // invalidates memory. A failure (e.g. THP disabled) is harmless.
        unsafe {
            madvise(start as *mut core::ffi::c_void, end - start, MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_ptr: *mut u8, _len: usize) {}

/// Hint that `v[i]` will be read soon (no effect if out of range).
#[inline(always)]
pub fn prefetch(v: &[u32], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = v.get(i) {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: prefetch never faults and `x` is a valid reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((x as *const u32).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}
