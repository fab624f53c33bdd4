//! Erasing secrets: [`wipe`], the volatile zeroing every layer uses for
//! state, buffers and padding.

/// Zeroes `bytes` with volatile 16-byte stores (plus byte stores for a
/// partial chunk), then a compiler fence so the stores are not reordered
/// past later code. Same guarantee as `zeroize`, with one store per 16
/// bytes instead of `zeroize`'s one per byte.
#[inline]
pub(crate) fn wipe(bytes: &mut [u8]) {
    let (chunks, rest) = bytes.as_chunks_mut::<16>();
    for chunk in chunks {
        // SAFETY: `chunk` is a valid, exclusive `&mut [u8; 16]`.
        unsafe { core::ptr::write_volatile(chunk, [0; 16]) };
    }
    for b in rest {
        // SAFETY: `b` is a valid, exclusive `&mut u8`.
        unsafe { core::ptr::write_volatile(b, 0) };
    }
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}
