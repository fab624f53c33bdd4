//! The x86 vector types, written once per register width: `vector_128!`
//! (one state per `xmm` register) and `vector_256!` (two states per
//! `ymm` register). The same intrinsics serve every level of a width; the
//! encoding (SSE, VEX or EVEX) and the register file come from the target
//! features of the kernel function they are inlined into. Each level
//! declares its own type with the macro, because the levels hold the state
//! differently ([`state_in_regs!`](crate::backend::kernel::state_in_regs)
//! or [`state_split!`](crate::backend::kernel::state_split)) and have
//! their own generated Paff.

/// Declares `$name`, one AES block in an `xmm` register, and its
/// [`Vector<1>`](crate::backend::kernel::Vector) implementation; `$state`
/// is `state_in_regs` or `state_split`.
macro_rules! vector_128 {
    ($(#[$doc:meta])* $name:ident, $state:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        #[repr(transparent)]
        pub(crate) struct $name(__m128i);

        // SAFETY (every method): called only from the kernel file's
        // `#[target_feature]` functions, i.e. with the features its token
        // proves (SSE2 and AES-NI at least); the memory operands are in
        // bounds as documented on `Vector`.
        impl $crate::backend::kernel::Vector<1> for $name {
            $crate::backend::kernel::$state!();

            #[inline(always)]
            unsafe fn load(row: &[[u8; 16]; 1]) -> Self {
                // SAFETY: 16 readable bytes; unaligned load.
                $name(unsafe { _mm_loadu_si128(row.as_ptr().cast()) })
            }

            #[inline(always)]
            unsafe fn store(self, row: &mut [[u8; 16]; 1]) {
                // SAFETY: 16 writable bytes; unaligned store.
                unsafe { _mm_storeu_si128(row.as_mut_ptr().cast(), self.0) }
            }

            #[inline(always)]
            unsafe fn load_msg(p: &[*const u8; 1], off: usize) -> Self {
                // SAFETY: the caller guarantees 16 readable bytes at `p[0] + off`.
                $name(unsafe { _mm_loadu_si128(p[0].add(off).cast()) })
            }

            #[inline(always)]
            unsafe fn aesenc(self, key: Self) -> Self {
                // SAFETY: AES-NI is enabled in the calling kernel.
                $name(unsafe { _mm_aesenc_si128(self.0, key.0) })
            }

            #[inline(always)]
            unsafe fn xor(self, other: Self) -> Self {
                // SAFETY: SSE2 is enabled in the calling kernel.
                $name(unsafe { _mm_xor_si128(self.0, other.0) })
            }

            #[inline(always)]
            unsafe fn rc(round: usize) -> Self {
                let rc = &$crate::definition::paff::RC[round];
                // SAFETY: `RC[round]` is 16 readable bytes (bounds-checked index).
                $name(unsafe { _mm_loadu_si128(rc.as_ptr().cast()) })
            }
        }
    };
}

/// Declares `$name`, two AES blocks (one per state) in a `ymm` register,
/// and its [`Vector<2>`](crate::backend::kernel::Vector) implementation;
/// `$state` is `state_in_regs` or `state_split`.
macro_rules! vector_256 {
    ($(#[$doc:meta])* $name:ident, $state:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        #[repr(transparent)]
        pub(crate) struct $name(__m256i);

        // SAFETY (every method): called only from the kernel file's
        // `#[target_feature]` functions, i.e. with the features its token
        // proves (AVX2 and VAES at least); the memory operands are in
        // bounds as documented on `Vector`.
        impl $crate::backend::kernel::Vector<2> for $name {
            $crate::backend::kernel::$state!();

            #[inline(always)]
            unsafe fn load(row: &[[u8; 16]; 2]) -> Self {
                // SAFETY: 32 readable bytes; unaligned load.
                $name(unsafe { _mm256_loadu_si256(row.as_ptr().cast()) })
            }

            #[inline(always)]
            unsafe fn store(self, row: &mut [[u8; 16]; 2]) {
                // SAFETY: 32 writable bytes; unaligned store.
                unsafe { _mm256_storeu_si256(row.as_mut_ptr().cast(), self.0) }
            }

            #[inline(always)]
            unsafe fn load_msg(p: &[*const u8; 2], off: usize) -> Self {
                // SAFETY: the caller guarantees 16 readable bytes at `p[l] + off`.
                $name(unsafe { _mm256_loadu2_m128i(p[1].add(off).cast(), p[0].add(off).cast()) })
            }

            #[inline(always)]
            unsafe fn aesenc(self, key: Self) -> Self {
                // SAFETY: VAES and AVX2 are enabled in the calling kernel.
                $name(unsafe { _mm256_aesenc_epi128(self.0, key.0) })
            }

            #[inline(always)]
            unsafe fn xor(self, other: Self) -> Self {
                // SAFETY: AVX2 is enabled in the calling kernel.
                $name(unsafe { _mm256_xor_si256(self.0, other.0) })
            }

            #[inline(always)]
            unsafe fn rc(round: usize) -> Self {
                let rc = &$crate::definition::paff::RC[round];
                // SAFETY: `RC[round]` is 16 readable bytes (bounds-checked index).
                $name(unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(rc.as_ptr().cast())) })
            }
        }
    };
}

/// Implements [`Masked`](crate::backend::kernel::Masked) for `$name` (a
/// `vector_128!` type) without masked loads, for the levels before
/// AVX-512, by vector loads only (no byte is read into a general-purpose
/// register): the message's last partial subblock is the top of the 16
/// bytes that end at the message's end, shifted down by its public length;
/// a message shorter than 16 bytes is copied into a zeroed 16-byte buffer,
/// loaded and the buffer wiped.
macro_rules! masked_by_window {
    ($name:ident) => {
        // SAFETY (every method): called only from the kernel file's
        // `#[target_feature]` functions (SSE2 at least, proven by its
        // token); the loads stay inside the bytes the caller names.
        impl $crate::backend::kernel::Masked for $name {
            #[inline(always)]
            unsafe fn zero() -> Self {
                // SAFETY: SSE2 is enabled in the calling kernel.
                $name(unsafe { _mm_setzero_si128() })
            }

            #[inline(always)]
            unsafe fn load_last(p: *const u8, len: usize, msg_len: usize) -> Self {
                if msg_len < 16 {
                    // The whole message is this subblock (`len == msg_len`).
                    let mut buf = [0u8; 16];
                    // SAFETY: `p .. p + len` is readable (the caller) and
                    // `len < 16` bytes fit in `buf`; SSE2 is enabled.
                    let v = unsafe {
                        core::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), len);
                        _mm_loadu_si128(buf.as_ptr().cast())
                    };
                    $crate::wipe::wipe(&mut buf);
                    return $name(v);
                }
                // SAFETY: the 16 bytes that end at `p + len` are message
                // bytes (`msg_len >= 16` of them end there); SSE2 is
                // enabled. The shifts move byte `16 - len + i` to byte `i`
                // and clear the bytes above `len`.
                unsafe {
                    let window = _mm_loadu_si128(p.wrapping_add(len).wrapping_sub(16).cast());
                    let bits = 8 * (16 - len) as i32;
                    if len > 8 {
                        // A shift of the 128-bit window by `bits` (8..=56):
                        // each half moved down, the high half's low bytes
                        // carried into the low half.
                        let down = _mm_srl_epi64(window, _mm_cvtsi32_si128(bits));
                        let up = _mm_sll_epi64(window, _mm_cvtsi32_si128(64 - bits));
                        $name(_mm_or_si128(down, _mm_srli_si128::<8>(up)))
                    } else {
                        // The bytes are in the high half: move it down, then
                        // shift by the rest (0..=56 bits).
                        let high = _mm_unpackhi_epi64(window, _mm_setzero_si128());
                        $name(_mm_srl_epi64(high, _mm_cvtsi32_si128(bits - 64)))
                    }
                }
            }

            #[inline(always)]
            unsafe fn byte_at(pos: usize, value: u8) -> Self {
                let word = u128::from(value) << (8 * (pos % 16));
                // SAFETY: SSE2 is enabled in the calling kernel.
                $name(unsafe { _mm_set_epi64x((word >> 64) as i64, word as i64) })
            }
        }
    };
}
