//! [`LaneHasher`]: streaming several messages at once, one per lane of the
//! backend's widest batch kernel.

use core::fmt;

use crate::backend::Available;
use crate::backend::layout::{Lanes, get_lane, set_lane};
use crate::backend::{LaneKernel, MAX_LANES};
use crate::core_api::PavelorCore;
use crate::definition::instances::Variant;
use crate::definition::paff::{SUBBLOCKS, State};
use crate::hasher::Pavelor;
use crate::sponge::Sponge;
use crate::wipe::wipe;
use digest::Output;

/// Errors of [`LaneHasher`]. Nothing is changed when one is returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LaneError {
    /// `lane` is not below [`LaneHasher::lanes`].
    NoSuchLane {
        /// The lane asked for.
        lane: usize,
        /// The number of lanes.
        lanes: usize,
    },
    /// [`LaneHasher::start`] on a lane that already has a message in
    /// progress.
    Busy(usize),
    /// [`LaneHasher::finish`] or [`LaneHasher::detach`] on a lane with no
    /// message in progress.
    Idle(usize),
    /// [`LaneHasher::absorb`] got `given` chunks, not one per lane.
    ChunkCount {
        /// [`LaneHasher::lanes`].
        expected: usize,
        /// Chunks given.
        given: usize,
    },
    /// [`LaneHasher::absorb`]: the chunk of `lane` has `len` bytes, but
    /// every busy lane needs the same whole number of rate blocks
    /// (`expected` bytes, taken from the first busy lane) and every idle
    /// lane an empty chunk (`expected` = 0).
    ChunkLength {
        /// The offending lane.
        lane: usize,
        /// Its chunk length.
        len: usize,
        /// The length it needed.
        expected: usize,
    },
}

impl fmt::Display for LaneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LaneError::NoSuchLane { lane, lanes } => {
                write!(f, "lane {lane} does not exist ({lanes} lanes)")
            }
            LaneError::Busy(lane) => write!(f, "lane {lane} already has a message in progress"),
            LaneError::Idle(lane) => write!(f, "lane {lane} has no message in progress"),
            LaneError::ChunkCount { expected, given } => {
                write!(f, "{given} chunks given for {expected} lanes")
            }
            LaneError::ChunkLength {
                lane,
                len,
                expected,
            } => write!(
                f,
                "chunk of lane {lane} has {len} bytes, expected {expected}"
            ),
        }
    }
}

impl core::error::Error for LaneError {}

/// Streaming hasher for several independent messages at once, one per
/// lane of the backend's widest batch kernel (4 with `avx512-vaes`, 2 with
/// `avx2-vaes`, otherwise 1): the building block for hashing many files
/// concurrently, where [`hash_many`](crate::hash_many) needs every message in memory.
///
/// Each lane holds at most one message in progress:
///
/// * [`start`](Self::start) begins a new message in an idle lane;
/// * [`absorb`](Self::absorb) takes one chunk per lane and absorbs them
///   *together* in the wide kernel: every busy lane gives the same whole
///   number of rate blocks ([`Variant::RATE`] bytes each; a multiple of
///   `lcm` of the rates, e.g. 64 KiB, suits every instance), idle lanes an
///   empty chunk;
/// * [`finish`](Self::finish) ends one lane's message with its last bytes
///   (any length: whole blocks are absorbed single-lane, then the sponge's
///   padding and squeeze) and returns the digest; the lane becomes idle and
///   can be [`start`](Self::start)ed again at once, independently of the
///   others;
/// * [`detach`](Self::detach) moves a lane's message out into a
///   single-message [`Pavelor`] hasher, e.g. when the other messages have
///   ended and this one still has a long way to go (a lone busy lane also
///   falls back to the single-message kernel inside `absorb`).
///
/// The digests are those of [`Pavelor::digest`] of each message. Which
/// kernel runs depends only on how many lanes are busy (public), never on
/// message contents. States are wiped when a lane finishes or detaches and
/// when the hasher is dropped.
///
/// ```
/// use pavelor::{LaneHasher, P512, Pavelor512};
///
/// let files: [&[u8]; 3] = [&[1; 1000], &[2; 5000], b"short"];
/// let mut h = LaneHasher::<P512>::new();
/// let lanes = h.lanes(); // 4, 2 or 1 depending on the CPU
/// let mut digests = Vec::new();
/// // Hash the files `lanes` at a time, in chunks of 2 blocks (384 bytes).
/// for group in files.chunks(lanes) {
///     let mut rest: Vec<&[u8]> = group.to_vec();
///     for lane in 0..group.len() {
///         h.start(lane)?;
///     }
///     // Absorb together while every message has a whole chunk left.
///     while rest.iter().all(|m| m.len() >= 384) {
///         let chunks: Vec<&[u8]> = (0..lanes)
///             .map(|l| rest.get(l).map_or(&[][..], |m| &m[..384]))
///             .collect();
///         h.absorb(&chunks)?;
///         for m in &mut rest {
///             *m = &m[384..];
///         }
///     }
///     for (lane, m) in rest.iter().enumerate() {
///         digests.push(h.finish(lane, m)?);
///     }
/// }
/// for (d, f) in digests.iter().zip(files) {
///     assert_eq!(*d, Pavelor512::digest(f));
/// }
/// # Ok::<(), pavelor::LaneError>(())
/// ```
pub struct LaneHasher<V: Variant> {
    backend: Available,
    states: [State; MAX_LANES],
    busy: [bool; MAX_LANES],
    _variant: core::marker::PhantomData<V>,
}

impl<V: Variant> LaneHasher<V> {
    /// A lane hasher with the fastest backend this CPU runs; all lanes idle.
    pub fn new() -> Self {
        Self::with_backend(Available::best())
    }

    /// A lane hasher with the given backend (and so its batch kernels, see
    /// [`Available::lanes`]); all lanes idle.
    pub fn with_backend(backend: Available) -> Self {
        LaneHasher {
            backend,
            states: [[[0; 16]; SUBBLOCKS]; MAX_LANES],
            busy: [false; MAX_LANES],
            _variant: core::marker::PhantomData,
        }
    }

    /// The backend in use.
    pub fn backend(&self) -> Available {
        self.backend
    }

    /// The number of lanes (messages in progress at once): 4, 2 or 1.
    pub fn lanes(&self) -> usize {
        self.backend.lanes()
    }

    /// Whether `lane` has a message in progress (`false` for lanes that do
    /// not exist).
    pub fn is_busy(&self, lane: usize) -> bool {
        lane < self.lanes() && self.busy[lane]
    }

    /// The number of lanes with a message in progress.
    pub fn busy_lanes(&self) -> usize {
        self.busy[..self.lanes()].iter().filter(|&&b| b).count()
    }

    fn check(&self, lane: usize) -> Result<(), LaneError> {
        let lanes = self.lanes();
        if lane < lanes {
            Ok(())
        } else {
            Err(LaneError::NoSuchLane { lane, lanes })
        }
    }

    /// Begins a new (empty) message in the idle `lane`.
    ///
    /// Errors: [`LaneError::NoSuchLane`], [`LaneError::Busy`].
    pub fn start(&mut self, lane: usize) -> Result<(), LaneError> {
        self.check(lane)?;
        if self.busy[lane] {
            return Err(LaneError::Busy(lane));
        }
        self.states[lane] = V::IV;
        self.busy[lane] = true;
        Ok(())
    }

    /// Appends `chunks[l]` to the message of every busy lane `l`, absorbing
    /// all of them together: `chunks.len()` must be [`lanes`](Self::lanes),
    /// every busy lane's chunk the same whole number of rate blocks (it may
    /// be zero blocks), every idle lane's chunk empty.
    ///
    /// Errors: [`LaneError::ChunkCount`], [`LaneError::ChunkLength`].
    pub fn absorb(&mut self, chunks: &[&[u8]]) -> Result<(), LaneError> {
        let lanes = self.lanes();
        if chunks.len() != lanes {
            return Err(LaneError::ChunkCount {
                expected: lanes,
                given: chunks.len(),
            });
        }
        let first_busy = (0..lanes).find(|&l| self.busy[l]);
        let len = first_busy.map_or(0, |l| chunks[l].len());
        for (lane, chunk) in chunks.iter().enumerate() {
            let expected = if self.busy[lane] { len } else { 0 };
            if chunk.len() != expected || !expected.is_multiple_of(V::RATE) {
                return Err(LaneError::ChunkLength {
                    lane,
                    len: chunk.len(),
                    expected: expected - expected % V::RATE,
                });
            }
        }
        if len == 0 {
            return Ok(());
        }
        // Busy lanes, grouped onto the widest kernel that is worth it; a
        // group's spare kernel lanes repeat one of its lanes (the same
        // state and input give the same result, written back twice).
        let mut todo = [0usize; MAX_LANES];
        let mut n = 0;
        for lane in (0..lanes).filter(|&l| self.busy[l]) {
            todo[n] = lane;
            n += 1;
        }
        let mut todo = &todo[..n];
        while !todo.is_empty() {
            if let Some(k) = self.backend.x4().filter(|_| todo.len() >= 3) {
                let idx = core::array::from_fn(|i| todo[i.min(todo.len() - 1)]);
                run_group::<V, 4, _>(k, &mut self.states, idx, chunks);
                todo = &todo[todo.len().min(4)..];
            } else if let Some(k) = self.backend.x2().filter(|_| todo.len() >= 2) {
                run_group::<V, 2, _>(k, &mut self.states, [todo[0], todo[1]], chunks);
                todo = &todo[2..];
            } else {
                let lane = todo[0];
                self.backend
                    .absorb::<V>(&mut self.states[lane], chunks[lane]);
                todo = &todo[1..];
            }
        }
        Ok(())
    }

    /// Ends the message of `lane` with `rest` (any length), returns its
    /// digest and leaves the lane idle (its state wiped).
    ///
    /// Errors: [`LaneError::NoSuchLane`], [`LaneError::Idle`].
    pub fn finish(&mut self, lane: usize, rest: &[u8]) -> Result<Output<Pavelor<V>>, LaneError> {
        let mut out = Output::<Pavelor<V>>::default();
        let mut sponge = self.take(lane)?;
        let whole = rest.len() - rest.len() % V::RATE;
        sponge.absorb_blocks::<V>(&rest[..whole]);
        sponge.finish::<V>(&rest[whole..], 0, 0, &mut out);
        Ok(out)
    }

    /// Moves the message of `lane` out into a single-message streaming
    /// hasher (same backend), which continues it exactly where it was; the
    /// lane becomes idle (its state wiped).
    ///
    /// Errors: [`LaneError::NoSuchLane`], [`LaneError::Idle`].
    pub fn detach(&mut self, lane: usize) -> Result<Pavelor<V>, LaneError> {
        let state = self.take_state(lane)?;
        Ok(Pavelor::from_core(PavelorCore::from_state(
            state,
            self.backend,
        )))
    }

    fn take_state(&mut self, lane: usize) -> Result<State, LaneError> {
        self.check(lane)?;
        if !self.busy[lane] {
            return Err(LaneError::Idle(lane));
        }
        let state = self.states[lane];
        wipe(self.states[lane].as_flattened_mut());
        self.busy[lane] = false;
        Ok(state)
    }

    fn take(&mut self, lane: usize) -> Result<Sponge, LaneError> {
        let state = self.take_state(lane)?;
        Ok(Sponge::from_state(state, self.backend))
    }
}

impl<V: Variant> Default for LaneHasher<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Variant> fmt::Debug for LaneHasher<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print states.
        f.debug_struct("LaneHasher")
            .field("instance", &V::NAME)
            .field("backend", &self.backend())
            .field("busy", &&self.busy[..self.lanes()])
            .finish()
    }
}

impl<V: Variant> Drop for LaneHasher<V> {
    fn drop(&mut self) {
        wipe(self.states.as_flattened_mut().as_flattened_mut());
    }
}

/// Absorbs `chunks[idx[l]]` into `states[idx[l]]` for the `N` lanes of one
/// kernel call (indices may repeat; see [`LaneHasher::absorb`]).
fn run_group<V: Variant, const N: usize, K: LaneKernel<N>>(
    kernel: K,
    states: &mut [State; MAX_LANES],
    idx: [usize; N],
    chunks: &[&[u8]],
) {
    let mut st: Lanes<N> = [[[0; 16]; N]; SUBBLOCKS];
    for (l, &i) in idx.iter().enumerate() {
        set_lane(&mut st, l, &states[i]);
    }
    kernel.absorb_lanes::<V>(&mut st, idx.map(|i| chunks[i]));
    for (l, &i) in idx.iter().enumerate() {
        states[i] = get_lane(&st, l);
    }
    wipe(st.as_flattened_mut().as_flattened_mut());
}
