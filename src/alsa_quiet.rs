//! libasound prints its own error lines on stderr ("ALSA lib confmisc.c:855:
//! (parse_card) cannot find card '0'", sixteen of them on a machine without a
//! sound card) before our one warning sentence says the same. Each thread that
//! opens a device installs a handler that counts them instead.

use std::sync::atomic::{AtomicUsize, Ordering};

static SWALLOWED: AtomicUsize = AtomicUsize::new(0);

/// How many libasound error lines were kept off stderr.
pub fn swallowed() -> usize {
    SWALLOWED.load(Ordering::Relaxed)
}

/// Keeps libasound's error lines off stderr for the calling thread (libasound's
/// thread-local handler: the global one is C-variadic, which stable Rust cannot define).
#[cfg(target_os = "linux")]
pub fn on_this_thread() {
    use std::ffi::{c_char, c_int};

    unsafe extern "C" fn count(
        _file: *const c_char,
        _line: c_int,
        _function: *const c_char,
        _error: c_int,
        _format: *const c_char,
        _arguments: *mut alsa_sys::__va_list_tag,
    ) {
        SWALLOWED.fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: `count` has the signature libasound calls and reads none of its arguments.
    unsafe {
        alsa_sys::snd_lib_error_set_local(Some(count));
    }
}

/// Nothing to silence where there is no libasound.
#[cfg(not(target_os = "linux"))]
pub fn on_this_thread() {}
