//! Hashing many files at once, for `pavelor sum` and `pavelor sum --check`.
//!
//! [`hash_files`] starts worker threads; each worker streams up to
//! [`LaneHasher::lanes`] files together through the wide (multi-lane)
//! kernels, a bounded buffer per lane, and sends every digest back as soon
//! as it is known. [`Ordered`] hands the results out strictly in job order.
//!
//! When a worker is left with one file and no more work, the file moves to
//! the single-message streaming hasher ([`LaneHasher::detach`]).
//!
//! Standard input is never a job here: the caller keeps it on the
//! one-at-a-time path, which is the reference for every digest.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read};
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;

use pavelor::{Algorithm, Available, InstanceFn, LaneHasher, Variant};

/// Upper bound of one lane's read buffer.
const MAX_CHUNK: usize = 1 << 20;
/// Lower bound of one lane's read buffer.
const MIN_CHUNK: usize = 16 << 10;
/// The lane buffers of all workers together stay within this.
const BUFFER_BUDGET: usize = 32 << 20;
/// At most this many worker threads, whatever `-j` says.
const MAX_THREADS: usize = 256;

/// One file to hash with one instance.
pub(super) struct Job {
    /// The instance.
    pub alg: Algorithm,
    /// The file (never standard input).
    pub path: OsString,
}

/// The default number of worker threads: the cores we may run on.
pub(super) fn default_threads() -> NonZeroUsize {
    thread::available_parallelism().unwrap_or(NonZeroUsize::MIN)
}

/// Opens `name` for hashing: a directory is an error (`Is a directory`),
/// as `read` on it would be on some systems and not on others.
pub(super) fn open_file(name: &OsStr) -> io::Result<File> {
    let file = File::open(name)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "Is a directory",
        ));
    }
    Ok(file)
}

/// A digest, or the error that stopped its file.
pub(super) type Outcome = io::Result<Vec<u8>>;

/// State shared by the workers.
struct Shared {
    jobs: Vec<Job>,
    next: AtomicUsize,
    stop: AtomicBool,
    backend: Available,
    chunk: usize,
}

impl Shared {
    /// The next job nobody took yet.
    fn take(&self) -> Option<(usize, &Job)> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        self.jobs.get(i).map(|j| (i, j))
    }

    fn exhausted(&self) -> bool {
        self.next.load(Ordering::Relaxed) >= self.jobs.len()
    }
}

/// The results of [`hash_files`], one per job, in job order.
pub(super) struct Ordered {
    rx: mpsc::Receiver<(usize, Outcome)>,
    pending: BTreeMap<usize, Outcome>,
    next: usize,
    total: usize,
    shared: Arc<Shared>,
}

impl Iterator for Ordered {
    type Item = Outcome;

    fn next(&mut self) -> Option<Outcome> {
        if self.next >= self.total {
            return None;
        }
        let i = self.next;
        self.next += 1;
        loop {
            if let Some(r) = self.pending.remove(&i) {
                return Some(r);
            }
            match self.rx.recv() {
                Ok((j, r)) => {
                    self.pending.insert(j, r);
                }
                // Every worker is gone without this result (only if one
                // panicked): an error for this file, not a hang.
                Err(_) => return Some(Err(io::Error::other("worker thread failed"))),
            }
        }
    }
}

impl Drop for Ordered {
    /// Workers stop at their next chunk when the results are not wanted
    /// any more (e.g. standard output failed).
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }
}

/// Starts hashing `jobs` on up to `threads` worker threads (each with up to
/// [`Available::lanes`] files in progress) with `backend`; the results come
/// in job order. Errors only if no thread could be started.
pub(super) fn hash_files(
    jobs: Vec<Job>,
    backend: Available,
    threads: NonZeroUsize,
) -> io::Result<Ordered> {
    let total = jobs.len();
    let lanes = backend.lanes();
    let threads = threads.get().min(total).clamp(1, MAX_THREADS);
    let chunk = (BUFFER_BUDGET / (threads * lanes)).clamp(MIN_CHUNK, MAX_CHUNK);
    let shared = Arc::new(Shared {
        jobs,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        backend,
        chunk,
    });
    let (tx, rx) = mpsc::channel();
    let mut started = 0;
    let mut spawn_error = None;
    for _ in 0..threads {
        let shared = Arc::clone(&shared);
        let tx = tx.clone();
        match thread::Builder::new()
            .name("pavelor-sum".into())
            .spawn(move || worker(&shared, &tx))
        {
            Ok(_) => started += 1,
            Err(e) => spawn_error = Some(e),
        }
    }
    if started == 0 && total > 0 {
        return Err(spawn_error.unwrap_or_else(|| io::Error::other("no worker thread")));
    }
    Ok(Ordered {
        rx,
        pending: BTreeMap::new(),
        next: 0,
        total,
        shared,
    })
}

/// A file in progress in one lane.
struct Slot {
    idx: usize,
    file: File,
    /// Bytes of the lane buffer filled so far.
    fill: usize,
}

/// One worker: takes jobs until none is left, grouping consecutive jobs of
/// the same instance into the lanes of one [`LaneHasher`].
fn worker(shared: &Shared, tx: &mpsc::Sender<(usize, Outcome)>) {
    let mut bufs: Vec<Vec<u8>> = Vec::new();
    // A job taken but not started: it needs another instance's lanes.
    let mut held = shared.take();
    while let Some((i, job)) = held.take() {
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        held = job.alg.dispatch(Lanes {
            shared,
            tx,
            bufs: &mut bufs,
            first: (i, job),
        });
        if held.is_none() {
            held = shared.take();
        }
    }
}

/// [`lanes`] for the instance of the first job, chosen at run time.
struct Lanes<'a, 'w> {
    shared: &'a Shared,
    tx: &'w mpsc::Sender<(usize, Outcome)>,
    bufs: &'w mut Vec<Vec<u8>>,
    first: (usize, &'a Job),
}

impl<'a> InstanceFn for Lanes<'a, '_> {
    type Output = Option<(usize, &'a Job)>;

    fn call<V: Variant>(self) -> Self::Output {
        lanes::<V>(self.shared, self.tx, self.bufs, self.first)
    }
}

/// Reads into `buf[fill..]` until it is full or the input ends; the new
/// fill (`fill` itself only at the end of the input).
pub(super) fn fill_up<R: Read>(
    input: &mut R,
    buf: &mut [u8],
    mut fill: usize,
) -> io::Result<usize> {
    while fill < buf.len() {
        match input.read(&mut buf[fill..]) {
            Ok(0) => break,
            Ok(n) => fill += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(fill)
}

/// Hashes `first` and further jobs of instance `V` in the lanes of one
/// [`LaneHasher`], until there is no more work or the next job is of
/// another instance (returned, not started).
fn lanes<'a, V: Variant>(
    shared: &'a Shared,
    tx: &mpsc::Sender<(usize, Outcome)>,
    bufs: &mut Vec<Vec<u8>>,
    first: (usize, &'a Job),
) -> Option<(usize, &'a Job)> {
    let mut h = LaneHasher::<V>::with_backend(shared.backend);
    let n = h.lanes();
    let chunk = shared.chunk - shared.chunk % V::RATE;
    if bufs.len() < n {
        bufs.resize_with(n, Vec::new);
    }
    for b in bufs.iter_mut() {
        b.resize(chunk, 0);
    }
    let mut slots: Vec<Option<Slot>> = (0..n).map(|_| None).collect();
    let mut next = Some(first);
    let mut held = None;
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            return None;
        }
        start_jobs(shared, tx, &mut h, &mut slots, &mut next, &mut held);
        let idle = fill_lanes(tx, &mut h, &mut slots, bufs, chunk);
        if idle == n {
            return held;
        }
        let more_work = held.is_none() && !shared.exhausted();
        if idle > 0 && more_work {
            // Start more files before absorbing: the full buffers wait.
            continue;
        }
        if n - idle == 1 && !more_work {
            // The last file of this worker: on at single-message speed.
            if let Some((lane, s)) = slots
                .iter_mut()
                .enumerate()
                .find_map(|(l, s)| s.take().map(|s| (l, s)))
            {
                let r = single::<V>(&mut h, lane, s.file, &mut bufs[lane][..chunk]);
                send(tx, s.idx, r);
            }
            return held;
        }
        let chunks: Vec<&[u8]> = slots
            .iter()
            .zip(bufs.iter())
            .map(|(s, b)| if s.is_some() { &b[..chunk] } else { &b[..0] })
            .collect();
        if let Err(e) = h.absorb(&chunks) {
            // Cannot happen (every busy lane has a full chunk); fail the
            // files in progress rather than give a wrong digest.
            for (lane, slot) in slots.iter_mut().enumerate() {
                if let Some(s) = slot.take() {
                    drop(h.detach(lane));
                    send(tx, s.idx, Err(io::Error::other(e)));
                }
            }
            continue;
        }
        for s in slots.iter_mut().flatten() {
            s.fill = 0;
        }
    }
}

/// Sends the outcome of job `i`; a closed channel (nobody wants results
/// any more) is ignored.
fn send(tx: &mpsc::Sender<(usize, Outcome)>, i: usize, r: Outcome) {
    let _ = tx.send((i, r));
}

/// Starts jobs in the idle lanes of `h`: `next`, then jobs taken from
/// `shared`, until every lane is busy, the work runs out or a job of
/// another instance comes up (left in `held`, not started). A file that
/// cannot be opened, or a lane that cannot start, fails its job at once.
fn start_jobs<'a, V: Variant>(
    shared: &'a Shared,
    tx: &mpsc::Sender<(usize, Outcome)>,
    h: &mut LaneHasher<V>,
    slots: &mut [Option<Slot>],
    next: &mut Option<(usize, &'a Job)>,
    held: &mut Option<(usize, &'a Job)>,
) {
    for (lane, slot) in slots.iter_mut().enumerate() {
        while slot.is_none() && held.is_none() {
            let Some((i, job)) = next.take().or_else(|| shared.take()) else {
                break;
            };
            if job.alg.name() != V::NAME {
                *held = Some((i, job));
                break;
            }
            match open_file(&job.path) {
                Ok(file) => {
                    if let Err(e) = h.start(lane) {
                        send(tx, i, Err(io::Error::other(e)));
                    } else {
                        *slot = Some(Slot {
                            idx: i,
                            file,
                            fill: 0,
                        });
                    }
                }
                Err(e) => send(tx, i, Err(e)),
            }
        }
    }
}

/// Fills every busy lane's buffer (the first `chunk` bytes of its entry
/// in `bufs`) from its file; a file that ends is finished and its digest
/// sent, one that fails to read is detached and its error sent. Returns
/// the number of idle lanes afterwards.
fn fill_lanes<V: Variant>(
    tx: &mpsc::Sender<(usize, Outcome)>,
    h: &mut LaneHasher<V>,
    slots: &mut [Option<Slot>],
    bufs: &mut [Vec<u8>],
    chunk: usize,
) -> usize {
    let mut idle = 0;
    for (lane, (slot, buf)) in slots.iter_mut().zip(bufs.iter_mut()).enumerate() {
        let Some(s) = slot else {
            idle += 1;
            continue;
        };
        match fill_up(&mut s.file, &mut buf[..chunk], s.fill) {
            Ok(fill) if fill == chunk => s.fill = fill,
            Ok(fill) => {
                let r = h
                    .finish(lane, &buf[..fill])
                    .map(|d| d[..].to_vec())
                    .map_err(io::Error::other);
                send(tx, s.idx, r);
                *slot = None;
                idle += 1;
            }
            Err(e) => {
                // Wipes the lane's state.
                drop(h.detach(lane));
                send(tx, s.idx, Err(e));
                *slot = None;
                idle += 1;
            }
        }
    }
    idle
}

/// Moves the message of `lane` (whose full buffer `buf` is not absorbed
/// yet) to the single-message hasher and streams the rest of `file`.
fn single<V: Variant>(
    h: &mut LaneHasher<V>,
    lane: usize,
    mut file: File,
    buf: &mut [u8],
) -> Outcome {
    let mut one = h.detach(lane).map_err(io::Error::other)?;
    one.update(&*buf);
    loop {
        let fill = fill_up(&mut file, buf, 0)?;
        one.update(&buf[..fill]);
        if fill < buf.len() {
            return Ok(one.finalize()[..].to_vec());
        }
    }
}
