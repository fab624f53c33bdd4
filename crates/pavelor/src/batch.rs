//! Hashing many independent byte messages at once.
//!
//! A single message cannot go faster than one AES round per `AESENC`
//! throughput slot; independent messages can share wide vector instructions
//! instead. With VAES, one `vaesenc` on a `zmm` register performs the AES
//! rounds of four messages at once (or two on a `ymm` register), so hashing a
//! batch is up to about twice as fast per byte as hashing the messages one
//! after the other (see the backend table in [`Backend`]). The other
//! backends (`aesni`, `aesni-avx`, `armv8-aes` on AArch64, `portable`) hash a batch one
//! message at a time with their single-message kernel ([`lanes`] is 1):
//! AArch64 has no AES instruction wider than 128 bits, and one Paff state
//! (19 independent AES rounds per Paff round) already keeps its AES units
//! busy.
//!
//! ```
//! use pavelor::{P512, Pavelor512, batch};
//!
//! let inputs: [&[u8]; 3] = [b"", b"abc", &[0x5a; 1000]];
//! let mut outputs = [Default::default(); 3];
//! batch::hash_many::<P512>(&inputs, &mut outputs)?;
//! assert_eq!(outputs[1], Pavelor512::digest(b"abc"));
//! # Ok::<(), pavelor::batch::BatchError>(())
//! ```
//!
//! * Messages are **byte** strings; messages whose length is not a multiple
//!   of 8 bits go through the streaming API ([`crate::Pavelor::update_bits`]).
//! * Messages may have different lengths. Each lane of the wide kernel
//!   streams its own message; when a message ends its lane is refilled with
//!   the next message of the batch, and when too few messages remain for the
//!   wide kernel the remaining lanes move to a narrower kernel (4 → 2 → 1
//!   lanes). These decisions depend only on the (public) message lengths,
//!   never on message contents.
//! * The digests are bit-identical to [`crate::Pavelor::digest`].
//! * No allocation; `no_std`. The backend is chosen once per call.

use core::fmt;

use crate::backend::{Engine, LaneKernel, Lanes, wipe};
use crate::paff::State;
use crate::params::{MAX_RATE, P512, P768, P1024, Variant};
use crate::sponge;
use crate::{Algorithm, Backend, Error, Pavelor};
use digest::Output;

/// Errors of the batch API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BatchError {
    /// The output buffer does not match the number of inputs: `outputs` is
    /// the number of digests (or bytes, for the byte-buffer functions) given
    /// and `expected` the number needed.
    LengthMismatch {
        /// Digests (or bytes) needed for the inputs.
        expected: usize,
        /// Digests (or bytes) given.
        outputs: usize,
    },
    /// The requested backend cannot run on this CPU (see [`Error`]).
    Backend(Error),
}

impl From<Error> for BatchError {
    fn from(e: Error) -> Self {
        BatchError::Backend(e)
    }
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchError::LengthMismatch { expected, outputs } => {
                write!(f, "batch needs {expected} outputs but {outputs} were given")
            }
            BatchError::Backend(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl core::error::Error for BatchError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            BatchError::Backend(e) => Some(e),
            BatchError::LengthMismatch { .. } => None,
        }
    }
}

/// Hashes `inputs[i]` into `outputs[i]` for every `i`, with the fastest
/// backend this CPU runs.
///
/// Errors: [`BatchError::LengthMismatch`] if `outputs.len() != inputs.len()`
/// (nothing is written).
pub fn hash_many<V: Variant>(
    inputs: &[&[u8]],
    outputs: &mut [Output<Pavelor<V>>],
) -> Result<(), BatchError> {
    hash_typed::<V>(Engine::best(), inputs, outputs)
}

/// Like [`hash_many`], with a given backend (and so a given batch kernel,
/// see [`Backend`]).
///
/// Errors: [`BatchError::LengthMismatch`] as for [`hash_many`];
/// [`BatchError::Backend`] with [`Error::BackendUnavailable`] if this CPU
/// cannot run `backend`.
pub fn hash_many_with<V: Variant>(
    backend: Backend,
    inputs: &[&[u8]],
    outputs: &mut [Output<Pavelor<V>>],
) -> Result<(), BatchError> {
    hash_typed::<V>(Engine::new(backend)?, inputs, outputs)
}

/// Hashes `inputs[i]` with the instance `alg` into
/// `out[i * alg.output_len() .. (i + 1) * alg.output_len()]`, with the
/// fastest backend this CPU runs.
///
/// Errors: [`BatchError::LengthMismatch`] (counted in bytes) if
/// `out.len() != inputs.len() * alg.output_len()` (nothing is written).
pub fn hash_many_dyn(alg: Algorithm, inputs: &[&[u8]], out: &mut [u8]) -> Result<(), BatchError> {
    hash_dyn(Engine::best(), alg, inputs, out)
}

/// Like [`hash_many_dyn`], with a given backend.
///
/// Errors: as [`hash_many_dyn`], plus [`BatchError::Backend`] if this CPU
/// cannot run `backend`.
pub fn hash_many_dyn_with(
    alg: Algorithm,
    backend: Backend,
    inputs: &[&[u8]],
    out: &mut [u8],
) -> Result<(), BatchError> {
    hash_dyn(Engine::new(backend)?, alg, inputs, out)
}

/// The number of messages the widest batch kernel of `backend` hashes at
/// once (1 when the backend hashes batches one message at a time), or
/// [`Error::BackendUnavailable`].
pub fn lanes(backend: Backend) -> Result<usize, Error> {
    Ok(Engine::new(backend)?.lanes())
}

fn hash_typed<V: Variant>(
    engine: Engine,
    inputs: &[&[u8]],
    outputs: &mut [Output<Pavelor<V>>],
) -> Result<(), BatchError> {
    if outputs.len() != inputs.len() {
        return Err(BatchError::LengthMismatch {
            expected: inputs.len(),
            outputs: outputs.len(),
        });
    }
    run::<V>(
        engine,
        inputs,
        Output::<Pavelor<V>>::slice_as_flattened_mut(outputs),
    );
    Ok(())
}

fn hash_dyn(
    engine: Engine,
    alg: Algorithm,
    inputs: &[&[u8]],
    out: &mut [u8],
) -> Result<(), BatchError> {
    let expected = inputs.len().saturating_mul(alg.output_len());
    if out.len() != expected {
        return Err(BatchError::LengthMismatch {
            expected,
            outputs: out.len(),
        });
    }
    match alg {
        Algorithm::Pavelor512 => run::<P512>(engine, inputs, out),
        Algorithm::Pavelor768 => run::<P768>(engine, inputs, out),
        Algorithm::Pavelor1024 => run::<P1024>(engine, inputs, out),
    }
    Ok(())
}

/// A lane's padding buffer (the sponge's padding writes up to two blocks).
type Pad = [u8; 2 * MAX_RATE];

/// Where a lane's next block comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Whole blocks of the message (`rest`); once fewer than `RATE` bytes
    /// are left, the padded final block is built into the lane's pad.
    Body,
    /// The padded final block in the lane's pad.
    Final,
    /// Squeeze block `k >= 1` (Pavelor-1024's second one): the lane's pad is
    /// all zero (absorbing zero is a bare Paff).
    Squeeze(usize),
}

/// One message in flight in a lane. The lane's pad buffer belongs to the
/// driver; it is all zero except while the job is in [`Phase::Final`], and a
/// job is never handed to another kernel in that phase.
#[derive(Clone, Copy)]
struct Job<'a> {
    idx: usize,
    rest: &'a [u8],
    phase: Phase,
}

impl<'a> Job<'a> {
    fn new(idx: usize, msg: &'a [u8]) -> Self {
        Job {
            idx,
            rest: msg,
            phase: Phase::Body,
        }
    }

    /// Moves to the final block when fewer than `V::RATE` message bytes
    /// remain: the sponge's padding ([`sponge::pad`]) of the rest into
    /// `pad` (all zero on entry; one block, as batch messages are bytes).
    fn prepare<V: Variant>(&mut self, pad: &mut Pad) {
        if self.phase == Phase::Body && self.rest.len() < V::RATE {
            let blocks = sponge::pad::<V>(self.rest, 0, 0, pad);
            debug_assert_eq!(blocks, 1);
            self.rest = &[];
            self.phase = Phase::Final;
        }
    }

    /// Whole blocks this lane can supply now (after `prepare`).
    fn available(&self, rate: usize) -> usize {
        match self.phase {
            Phase::Body => self.rest.len() / rate,
            Phase::Final | Phase::Squeeze(_) => 1,
        }
    }

    /// The next `k` blocks (`k <= available`), from the message or `pad`.
    fn blocks<'p>(&self, k: usize, rate: usize, pad: &'p Pad) -> &'p [u8]
    where
        'a: 'p,
    {
        match self.phase {
            Phase::Body => &self.rest[..k * rate],
            Phase::Final | Phase::Squeeze(_) => &pad[..rate],
        }
    }
}

/// The messages not yet started, and where the digests go.
struct Queue<'a, 'o> {
    inputs: &'a [&'a [u8]],
    next: usize,
    out: &'o mut [u8],
}

impl<'a> Queue<'a, '_> {
    fn pop(&mut self) -> Option<Job<'a>> {
        let msg = self.inputs.get(self.next)?;
        self.next += 1;
        Some(Job::new(self.next - 1, msg))
    }

    fn is_empty(&self) -> bool {
        self.next >= self.inputs.len()
    }
}

/// Lanes still running when a wide kernel hands over to a narrower one.
struct Carry<'a> {
    jobs: [Option<Job<'a>>; 4],
    states: [State; 4],
}

impl Drop for Carry<'_> {
    fn drop(&mut self) {
        wipe(self.states.as_flattened_mut().as_flattened_mut());
    }
}

fn run<V: Variant>(engine: Engine, inputs: &[&[u8]], out: &mut [u8]) {
    debug_assert_eq!(out.len(), inputs.len() * V::DIGEST);
    let mut queue = Queue {
        inputs,
        next: 0,
        out,
    };
    let mut carry = Carry {
        jobs: [None; 4],
        states: [[[0; 16]; 20]; 4],
    };
    // A wide kernel is only worth entering with enough messages to fill
    // more than half of its lanes (counts are public).
    if let Some(k) = engine.x4().filter(|_| inputs.len() > 2) {
        drive::<V, 4, _>(k, &mut queue, &mut carry);
    }
    let pending = inputs.len() - queue.next + carry.jobs.iter().flatten().count();
    if let Some(k) = engine.x2().filter(|_| pending > 1) {
        drive::<V, 2, _>(k, &mut queue, &mut carry);
    }
    drive::<V, 1, _>(engine, &mut queue, &mut carry);
}

/// Runs the `N`-lane kernel until every message is hashed, or (for `N > 1`)
/// until no message is waiting and at most `N / 2` lanes are busy; those
/// lanes are then left in `carry` for the next, narrower kernel.
fn drive<'a, V: Variant, const N: usize, K: LaneKernel<N>>(
    kernel: K,
    queue: &mut Queue<'a, '_>,
    carry: &mut Carry<'a>,
) {
    let rate = V::RATE;
    let iv = V::IV;
    let mut st: Lanes<N> = [[[0; 16]; N]; 20];
    let mut jobs: [Option<Job<'a>>; N] = [None; N];
    let mut pads: [Pad; N] = [[0u8; 2 * MAX_RATE]; N];

    // Lanes handed over by a wider kernel (at most N of them: a kernel hands
    // over only when at most half of its lanes are busy).
    let mut lane = 0;
    for (job, state) in carry.jobs.iter_mut().zip(&carry.states) {
        if let Some(job) = job.take() {
            set_lane(&mut st, lane, state);
            jobs[lane] = Some(job);
            lane += 1;
        }
    }

    loop {
        // Refill idle lanes from the queue.
        for (l, slot) in jobs.iter_mut().enumerate() {
            if slot.is_none() {
                *slot = queue.pop();
                if slot.is_some() {
                    set_lane(&mut st, l, &iv);
                }
            }
        }
        let active = jobs.iter().filter(|j| j.is_some()).count();
        if active == 0 {
            break;
        }
        if N > 1 && queue.is_empty() && active <= N / 2 {
            let mut c = 0;
            for (l, slot) in jobs.iter_mut().enumerate() {
                if let Some(job) = slot.take() {
                    carry.states[c] = get_lane(&st, l);
                    carry.jobs[c] = Some(job);
                    c += 1;
                }
            }
            break;
        }

        // The largest step every busy lane can take.
        let mut k = usize::MAX;
        for (job, pad) in jobs.iter_mut().zip(&mut pads) {
            if let Some(job) = job {
                job.prepare::<V>(pad);
                k = k.min(job.available(rate));
            }
        }
        {
            // Idle lanes hash a copy of a busy lane's blocks (discarded).
            let filler = jobs
                .iter()
                .zip(&pads)
                .find_map(|(j, pad)| j.map(|j| j.blocks(k, rate, pad)))
                .unwrap_or(&[]);
            let blocks: [&[u8]; N] =
                core::array::from_fn(|l| jobs[l].map_or(filler, |j| j.blocks(k, rate, &pads[l])));
            kernel.absorb_lanes::<V>(&mut st, blocks);
        }

        // Advance every busy lane; write digests of finished messages.
        for (l, slot) in jobs.iter_mut().enumerate() {
            let Some(job) = slot else { continue };
            let done = match job.phase {
                Phase::Body => {
                    job.rest = &job.rest[k * rate..];
                    false
                }
                Phase::Final | Phase::Squeeze(_) => {
                    // Squeeze block `q`: digest bytes `q * RATE ..`.
                    let q = match job.phase {
                        Phase::Squeeze(q) => q,
                        Phase::Final | Phase::Body => 0,
                    };
                    let digest = &mut queue.out[job.idx * V::DIGEST..][..V::DIGEST];
                    let dst = digest.chunks_mut(rate).nth(q).unwrap_or_default();
                    read_lane(&st, l, dst);
                    wipe(&mut pads[l]);
                    if q + 1 < sponge::squeeze_blocks::<V>() {
                        job.phase = Phase::Squeeze(q + 1);
                        false
                    } else {
                        true
                    }
                }
            };
            if done {
                *slot = None;
            }
        }
    }
    wipe(st.as_flattened_mut().as_flattened_mut());
    wipe(pads.as_flattened_mut());
}

/// Writes `state` into lane `l` of `st`.
fn set_lane<const N: usize>(st: &mut Lanes<N>, l: usize, state: &State) {
    for (sub, src) in st.iter_mut().zip(state) {
        sub[l] = *src;
    }
}

/// Reads lane `l` of `st`.
fn get_lane<const N: usize>(st: &Lanes<N>, l: usize) -> State {
    core::array::from_fn(|j| st[j][l])
}

/// Copies the first `dst.len()` bytes of lane `l`'s state into `dst`.
fn read_lane<const N: usize>(st: &Lanes<N>, l: usize, dst: &mut [u8]) {
    for (chunk, sub) in dst.chunks_mut(16).zip(st) {
        chunk.copy_from_slice(&sub[l][..chunk.len()]);
    }
}

/// The most lanes any backend has (the 4-lane `zmm` kernel).
const MAX_LANES: usize = 4;

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
/// concurrently, where [`hash_many`] needs every message in memory.
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
    engine: Engine,
    states: [State; MAX_LANES],
    busy: [bool; MAX_LANES],
    _variant: core::marker::PhantomData<V>,
}

impl<V: Variant> LaneHasher<V> {
    /// A lane hasher with the fastest backend this CPU runs; all lanes idle.
    pub fn new() -> Self {
        Self::with_engine(Engine::best())
    }

    /// A lane hasher with the given backend (and so its batch kernels, see
    /// [`Backend`]), or [`Error::BackendUnavailable`].
    pub fn with_backend(backend: Backend) -> Result<Self, Error> {
        Engine::new(backend).map(Self::with_engine)
    }

    fn with_engine(engine: Engine) -> Self {
        LaneHasher {
            engine,
            states: [[[0; 16]; 20]; MAX_LANES],
            busy: [false; MAX_LANES],
            _variant: core::marker::PhantomData,
        }
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.engine.backend()
    }

    /// The number of lanes (messages in progress at once): 4, 2 or 1.
    pub fn lanes(&self) -> usize {
        self.engine.lanes()
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
            if let Some(k) = self.engine.x4().filter(|_| todo.len() >= 3) {
                let idx = core::array::from_fn(|i| todo[i.min(todo.len() - 1)]);
                run_group::<V, 4, _>(k, &mut self.states, idx, chunks);
                todo = &todo[todo.len().min(4)..];
            } else if let Some(k) = self.engine.x2().filter(|_| todo.len() >= 2) {
                run_group::<V, 2, _>(k, &mut self.states, [todo[0], todo[1]], chunks);
                todo = &todo[2..];
            } else {
                let lane = todo[0];
                self.engine
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
        Ok(Pavelor::from_core(crate::PavelorCore::from_state(
            state,
            self.engine,
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

    fn take(&mut self, lane: usize) -> Result<crate::sponge::Sponge, LaneError> {
        let state = self.take_state(lane)?;
        Ok(crate::sponge::Sponge::from_state(state, self.engine))
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
    let mut st: Lanes<N> = [[[0; 16]; N]; 20];
    for (l, &i) in idx.iter().enumerate() {
        set_lane(&mut st, l, &states[i]);
    }
    kernel.absorb_lanes::<V>(&mut st, idx.map(|i| chunks[i]));
    for (l, &i) in idx.iter().enumerate() {
        states[i] = get_lane(&st, l);
    }
    wipe(st.as_flattened_mut().as_flattened_mut());
}
