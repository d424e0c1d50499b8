//! glibc's malloc, set for a short process that builds a large CRD's structures once
//! (issue 29, peak memory): fixed thresholds instead of the dynamic mmap threshold (which
//! rises to the size of the largest block freed, the CRD's text, so that later large
//! blocks come from the heap and stay there) and a small top pad.

/// Applies the settings; call first thing in `main`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn apply() {
    use std::ffi::c_int;
    extern "C" {
        // glibc's `int mallopt(int param, int value)` (malloc.h).
        fn mallopt(param: c_int, value: c_int) -> c_int;
    }
    const M_TRIM_THRESHOLD: c_int = -1;
    const M_TOP_PAD: c_int = -2;
    const M_MMAP_THRESHOLD: c_int = -3;
    // SAFETY: mallopt only sets allocator parameters; any value is accepted or refused
    // (returning 0), and it is called before other threads exist.
    unsafe {
        mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        mallopt(M_TRIM_THRESHOLD, 128 * 1024);
        mallopt(M_TOP_PAD, 16 * 1024);
    }
}

/// Other platforms keep their allocator's defaults.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn apply() {}
