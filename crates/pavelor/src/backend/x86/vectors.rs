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
