//! [`hash_many`]: a batch of whole byte messages, each lane of the wide
//! kernel refilled with the next message when its message ends.

use core::fmt;

use crate::backend::Available;
use crate::backend::layout::{Lanes, get_lane, read_lane, set_lane};
use crate::backend::{LaneKernel, MAX_LANES};
use crate::definition::instances::{MAX_RATE, Variant};
use crate::definition::pad;
use crate::definition::paff::{SUBBLOCKS, State};
use crate::dynamic::{Algorithm, InstanceFn};
use crate::hasher::Pavelor;
use crate::wipe::wipe;
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
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchError::LengthMismatch { expected, outputs } => {
                write!(f, "batch needs {expected} outputs but {outputs} were given")
            }
        }
    }
}

impl core::error::Error for BatchError {}

/// Hashes `inputs[i]` into `outputs[i]` for every `i`, with the fastest
/// backend this CPU runs.
///
/// Errors: [`BatchError::LengthMismatch`] if `outputs.len() != inputs.len()`
/// (nothing is written).
pub fn hash_many<V: Variant>(
    inputs: &[&[u8]],
    outputs: &mut [Output<Pavelor<V>>],
) -> Result<(), BatchError> {
    hash_typed::<V>(Available::best(), inputs, outputs)
}

/// Like [`hash_many`], with a given backend (and so a given batch kernel,
/// see [`Available::lanes`]).
///
/// Errors: [`BatchError::LengthMismatch`] as for [`hash_many`].
pub fn hash_many_with<V: Variant>(
    backend: Available,
    inputs: &[&[u8]],
    outputs: &mut [Output<Pavelor<V>>],
) -> Result<(), BatchError> {
    hash_typed::<V>(backend, inputs, outputs)
}

/// Hashes `inputs[i]` with the instance `alg` into
/// `out[i * alg.output_len() .. (i + 1) * alg.output_len()]`, with the
/// fastest backend this CPU runs.
///
/// Errors: [`BatchError::LengthMismatch`] (counted in bytes) if
/// `out.len() != inputs.len() * alg.output_len()` (nothing is written).
pub fn hash_many_dyn(alg: Algorithm, inputs: &[&[u8]], out: &mut [u8]) -> Result<(), BatchError> {
    hash_dyn(Available::best(), alg, inputs, out)
}

/// Like [`hash_many_dyn`], with a given backend.
///
/// Errors: as [`hash_many_dyn`].
pub fn hash_many_dyn_with(
    alg: Algorithm,
    backend: Available,
    inputs: &[&[u8]],
    out: &mut [u8],
) -> Result<(), BatchError> {
    hash_dyn(backend, alg, inputs, out)
}

fn hash_typed<V: Variant>(
    backend: Available,
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
        backend,
        inputs,
        Output::<Pavelor<V>>::slice_as_flattened_mut(outputs),
    );
    Ok(())
}

fn hash_dyn(
    backend: Available,
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
    struct Run<'a, 'b>(Available, &'a [&'b [u8]], &'a mut [u8]);
    impl InstanceFn for Run<'_, '_> {
        type Output = ();
        fn call<V: Variant>(self) {
            run::<V>(self.0, self.1, self.2)
        }
    }
    alg.dispatch(Run(backend, inputs, out));
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
    /// remain: the sponge's padding ([`pad::pad`]) of the rest into
    /// `pad` (all zero on entry; one block, as batch messages are bytes).
    fn prepare<V: Variant>(&mut self, pad: &mut Pad) {
        if self.phase == Phase::Body && self.rest.len() < V::RATE {
            let blocks = pad::pad::<V>(self.rest, 0, 0, pad);
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
    jobs: [Option<Job<'a>>; MAX_LANES],
    states: [State; MAX_LANES],
}

impl Drop for Carry<'_> {
    fn drop(&mut self) {
        wipe(self.states.as_flattened_mut().as_flattened_mut());
    }
}

fn run<V: Variant>(backend: Available, inputs: &[&[u8]], out: &mut [u8]) {
    debug_assert_eq!(out.len(), inputs.len() * V::DIGEST);
    let mut queue = Queue {
        inputs,
        next: 0,
        out,
    };
    let mut carry = Carry {
        jobs: [None; MAX_LANES],
        states: [[[0; 16]; SUBBLOCKS]; MAX_LANES],
    };
    // A wide kernel is only worth entering with enough messages to fill
    // more than half of its lanes (counts are public).
    if let Some(k) = backend.x4().filter(|_| inputs.len() > 2) {
        drive::<V, 4, _>(k, &mut queue, &mut carry);
    }
    let pending = inputs.len() - queue.next + carry.jobs.iter().flatten().count();
    if let Some(k) = backend.x2().filter(|_| pending > 1) {
        drive::<V, 2, _>(k, &mut queue, &mut carry);
    }
    drive::<V, 1, _>(backend, &mut queue, &mut carry);
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
    let mut st: Lanes<N> = [[[0; 16]; N]; SUBBLOCKS];
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
                    if q + 1 < pad::squeeze_blocks::<V>() {
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
