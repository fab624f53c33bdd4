//! `isolate::run` against workers that try to outlive it or to take the
//! machine's memory: daemons that double-fork and `setsid`, chains of
//! sleepers, a daemon that also execs with an empty environment, memory
//! hogs; several runs at once; and children of the test process that are
//! not workers, which must survive every sweep.
//!
//! The test process is made a child subreaper (it is its own process, so
//! that touches no other test binary). The workers are a small C program
//! built with `cc` at test time; without `cc` the tests say SKIPPED.

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;
use std::time::{Duration, Instant};

use pavelor_isolate::{self as isolate, Ended, MEMORY_LIMIT_ENV, Outcome, TOKEN_ENV};

const WORKER_C: &str = r#"
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

static void say_token(void) {
    const char *t = getenv("@TOKEN_ENV@");
    printf("token=%s\n", t ? t : "");
    fflush(stdout);
}

static void note_pid(const char *file) {
    if (!file) return;
    int fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) return;
    char b[32];
    int n = snprintf(b, sizeof b, "%d\n", (int)getpid());
    if (write(fd, b, n) != n) {}
    close(fd);
}

/* A daemon: fork, setsid, fork again; the grandchild notes its pid, closes
   fds 0-2 and sleeps 60 s (or, scrubbed, execs sleep with an empty
   environment). With `ready`, the caller returns only once the grandchild
   has closed (or exec has closed) the pipe's write end. */
static void daemonize(const char *pidfile, int scrub, int ready) {
    int fds[2] = {-1, -1};
    if (ready && pipe2(fds, O_CLOEXEC)) exit(4);
    pid_t p = fork();
    if (p < 0) exit(4);
    if (p > 0) {
        if (ready) {
            char c;
            close(fds[1]);
            while (read(fds[0], &c, 1) > 0) {}
            close(fds[0]);
        }
        return;
    }
    if (ready) close(fds[0]);
    setsid();
    p = fork();
    if (p != 0) _exit(0);
    note_pid(pidfile);
    close(0); close(1); close(2);
    if (scrub) {
        char *argv[] = {"sleep", "60", NULL};
        char *envp[] = {NULL};
        execve("/bin/sleep", argv, envp);
        execve("/usr/bin/sleep", argv, envp);
        _exit(7);
    }
    if (ready) close(fds[1]);
    sleep(60);
    _exit(0);
}

/* n sleepers in a chain, each in a session of its own; the worker exits
   once the last one is there. */
static void chain(int n, const char *pidfile) {
    int fds[2];
    if (pipe(fds)) exit(4);
    for (int k = 1; k <= n; k++) {
        pid_t p = fork();
        if (p < 0) exit(4);
        if (p > 0) {
            if (k == 1) {
                char c;
                close(fds[1]);
                exit(read(fds[0], &c, 1) == 1 ? 0 : 5);
            }
            close(fds[0]); close(fds[1]);
            sleep(60);
            _exit(0);
        }
        setsid();
        note_pid(pidfile);
        if (k == n) {
            close(fds[0]);
            if (write(fds[1], "x", 1) != 1) {}
            close(fds[1]);
            sleep(60);
            _exit(0);
        }
    }
}

/* What apply_own_limits does, then malloc and touch `mib` MiB. */
static int hog(long mib, int hang) {
    const char *lim = getenv("@LIMIT_ENV@");
    if (lim) {
        struct rlimit r;
        r.rlim_cur = r.rlim_max = strtoull(lim, NULL, 10);
        if (setrlimit(RLIMIT_AS, &r)) return 4;
    }
    size_t n = (size_t)mib << 20;
    volatile char *m = malloc(n);
    if (!m) { fprintf(stderr, "malloc failed\n"); return 3; }
    for (size_t i = 0; i < n; i += 4096) m[i] = (char)(i >> 12);
    printf("touched %ld MiB (%d)\n", mib, (int)m[n / 2]);
    fflush(stdout);
    if (hang) sleep(60);
    return 0;
}

static long thread_mib;
static void *touch_and_exit(void *arg) {
    (void)arg;
    size_t n = (size_t)thread_mib << 20;
    volatile char *m = malloc(n);
    if (!m) exit(3);
    for (size_t i = 0; i < n; i += 4096) m[i] = 1;
    exit(0);
}

int main(int argc, char **argv) {
    say_token();
    const char *mode = argc > 1 ? argv[1] : "";
    const char *arg = argc > 2 ? argv[2] : NULL;
    if (!strcmp(mode, "daemon")) { daemonize(arg, 0, 0); return 0; }
    if (!strcmp(mode, "daemon-ready")) { daemonize(arg, 0, 1); return 0; }
    if (!strcmp(mode, "scrub")) { daemonize(arg, 1, 1); return 0; }
    if (!strcmp(mode, "chain")) { chain(atoi(arg), argc > 3 ? argv[3] : NULL); return 0; }
    if (!strcmp(mode, "hog")) return hog(atol(arg), argc > 3);
    if (!strcmp(mode, "sleep-ok")) {
        if (argc > 3) daemonize(NULL, 0, 1);
        usleep(atoi(arg) * 1000);
        printf("ok\n");
        return 0;
    }
    if (!strcmp(mode, "thread-exit")) {
        pthread_t t;
        thread_mib = atol(arg);
        if (pthread_create(&t, NULL, touch_and_exit, NULL)) return 4;
        for (;;) pause();
    }
    return 2;
}
"#;

/// The worker program, built in `dir`; `None` (and a SKIPPED line) without `cc`.
fn worker(dir: &Path) -> Option<PathBuf> {
    become_subreaper();
    let c = dir.join("worker.c");
    let source = WORKER_C
        .replace("@TOKEN_ENV@", TOKEN_ENV)
        .replace("@LIMIT_ENV@", MEMORY_LIMIT_ENV);
    std::fs::write(&c, source).expect("write worker.c");
    let exe = dir.join("worker");
    let out = match Command::new("cc")
        .args(["-O2", "-pthread", "-o"])
        .arg(&exe)
        .arg(&c)
        .output()
    {
        Ok(out) => out,
        Err(_) => {
            eprintln!("SKIPPED: no cc");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}

fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| isolate::become_subreaper().expect("become a child subreaper"));
}

fn cmd(exe: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(exe);
    c.args(args);
    c
}

fn run(c: Command) -> Outcome {
    isolate::run(c, Duration::from_secs(30)).expect("run")
}

/// The worker's token, from its first line of output.
fn token_of(o: &Outcome) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    let t = out
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("token="))
        .expect("a token line");
    assert!(!t.is_empty(), "the worker had no token");
    t.to_string()
}

/// Pids of live processes whose environment holds `token`.
fn holders(token: &str) -> Vec<i32> {
    let entry = format!("{TOKEN_ENV}={token}");
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|e| e == entry.as_bytes()))
        })
        .filter(|&pid| alive(pid))
        .collect()
}

/// Whether `pid` is a process that has not ended (not a zombie).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| !matches!(r.trim_start().as_bytes().first(), Some(b'Z' | b'X')))
    })
}

fn pids_in(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| l.parse().expect("a pid"))
        .collect()
}

#[test]
fn a_double_forked_setsid_daemon_is_killed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = worker(dir.path()) else {
        return;
    };
    let pids = dir.path().join("pids");
    for mode in ["daemon", "daemon-ready"] {
        let o = run(cmd(&exe, &[mode, pids.to_str().expect("utf-8")]));
        assert_eq!(o.ended, Ended::Exited { code: 0 }, "{mode}: {o:?}");
        assert!(o.leftovers_killed >= 1, "{mode}: {o:?}");
        assert_eq!(o.leftovers_surviving, 0, "{mode}: {o:?}");
        assert!(!o.stdout_truncated, "{mode}: {o:?}");
        let token = token_of(&o);
        assert_eq!(holders(&token), Vec::<i32>::new(), "{mode}");
    }
    // daemon-ready waited for its grandchild: at least that one noted its pid.
    let pids = pids_in(&pids);
    assert!(!pids.is_empty());
    for pid in pids {
        assert!(!alive(pid), "daemon {pid} survived");
    }
}

#[test]
fn a_chain_of_sleepers_in_sessions_of_their_own_is_killed_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = worker(dir.path()) else {
        return;
    };
    let pids = dir.path().join("pids");
    let o = run(cmd(&exe, &["chain", "20", pids.to_str().expect("utf-8")]));
    assert_eq!(o.ended, Ended::Exited { code: 0 }, "{o:?}");
    // At least the 20 (an escaped orphan of a concurrent test's worker may
    // be counted by whichever sweep finds it first).
    assert!(o.leftovers_killed >= 20, "{o:?}");
    assert_eq!(o.leftovers_surviving, 0, "{o:?}");
    assert_eq!(holders(&token_of(&o)), Vec::<i32>::new());
    let pids = pids_in(&pids);
    assert_eq!(pids.len(), 20, "{pids:?}");
    for pid in pids {
        assert!(!alive(pid), "sleeper {pid} survived");
    }
}

/// A daemon that also execs `sleep` with an empty environment carries no
/// token: as subreaper the test process is its parent, and the sweep
/// takes it, outside our process group, for a leftover. (The sweep of a
/// concurrent test's run may be the one that finds it.)
#[test]
fn a_daemon_that_drops_its_environment_is_killed_as_an_orphan() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = worker(dir.path()) else {
        return;
    };
    let pids = dir.path().join("pids");
    let o = run(cmd(&exe, &["scrub", pids.to_str().expect("utf-8")]));
    assert_eq!(o.ended, Ended::Exited { code: 0 }, "{o:?}");
    let pids = pids_in(&pids);
    assert_eq!(pids.len(), 1, "{pids:?}");
    assert!(!alive(pids[0]), "scrubbed daemon {} survived", pids[0]);
}

#[test]
fn the_memory_limit_bounds_a_hog_and_the_kernel_counts_its_peak() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = worker(dir.path()) else {
        return;
    };
    let mut c = cmd(&exe, &["hog", "512"]);
    isolate::set_memory_limit(&mut c, 256 << 20);
    let o = run(c);
    assert!(
        matches!(o.ended, Ended::Exited { code: 3 } | Ended::Signaled { .. }),
        "{o:?}"
    );

    let mut c = cmd(&exe, &["hog", "512"]);
    isolate::set_memory_limit(&mut c, 2 << 30);
    let o = run(c);
    assert_eq!(o.ended, Ended::Exited { code: 0 }, "{o:?}");
    let peak = o.peak_rss_kib.expect("a peak from the exit stop");
    assert!(peak >= 512 << 10, "peak {peak} KiB");
    assert!(peak < 1 << 20, "peak {peak} KiB");
    assert!(o.wall > Duration::ZERO && o.wall < Duration::from_secs(30));

    // Killed at the time limit: the peak is read just before the kill.
    let t = Instant::now();
    let o = isolate::run(cmd(&exe, &["hog", "300", "hang"]), Duration::from_secs(3)).expect("run");
    assert!(matches!(o.ended, Ended::TimedOut { .. }), "{o:?}");
    assert!(t.elapsed() < Duration::from_secs(15));
    assert!(o.wall >= Duration::from_secs(3), "{:?}", o.wall);
    let peak = o.peak_rss_kib.expect("a peak read before the kill");
    assert!(peak >= 300 << 10, "peak {peak} KiB");
}

/// A thread other than the main one ends the process (`exit` in a thread
/// while the main thread waits in `pause`): the kernel still stops the
/// main thread at exit (Linux 6), and the peak is its 200 MiB; a kernel
/// that skipped that stop would leave the peak unknown, never wrong.
#[test]
fn a_process_ended_from_another_thread_has_a_right_peak_or_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = worker(dir.path()) else {
        return;
    };
    let o = run(cmd(&exe, &["thread-exit", "200"]));
    assert_eq!(o.ended, Ended::Exited { code: 0 }, "{o:?}");
    eprintln!("thread-exit peak: {:?}", o.peak_rss_kib);
    if let Some(peak) = o.peak_rss_kib {
        assert!(peak >= 200 << 10, "peak {peak} KiB");
    }
}

/// Four runs at once, each worker leaving a daemon and ending at its own
/// time: no sweep kills another run's worker.
#[test]
fn concurrent_runs_do_not_kill_each_other() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = worker(dir.path()) else {
        return;
    };
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let exe = exe.clone();
            std::thread::spawn(move || {
                let ms = (1000 + 150 * i).to_string();
                run(cmd(&exe, &["sleep-ok", &ms, "daemon"]))
            })
        })
        .collect();
    for t in threads {
        let o = t.join().expect("thread");
        assert_eq!(o.ended, Ended::Exited { code: 0 }, "{o:?}");
        assert!(
            String::from_utf8_lossy(&o.stdout).ends_with("ok\n"),
            "{o:?}"
        );
        assert!(o.leftovers_killed >= 1, "{o:?}");
        assert_eq!(holders(&token_of(&o)), Vec::<i32>::new());
    }
}

/// A `sleep 20` child of the test process, in its process group or in one
/// of its own (still in its session).
fn sleeper(own_group: bool) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new("sleep");
    c.arg("20");
    if own_group {
        c.process_group(0);
    }
    c.spawn().expect("sleep")
}

/// Children of the test process that are not workers, started before and
/// during workers' lives, in our process group or in one of their own,
/// survive the sweeps, while the workers' daemons (with their token, or
/// scrubbed) do not.
#[test]
fn children_that_are_not_workers_survive() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(exe) = worker(dir.path()) else {
        return;
    };
    let mut before = sleeper(false);
    let mut own_group = sleeper(true);
    let pids = dir.path().join("pids");
    let runs: Vec<_> = ["daemon-ready", "scrub"]
        .into_iter()
        .map(|mode| {
            let exe = exe.clone();
            let pids = pids.clone();
            std::thread::spawn(move || {
                for _ in 0..3 {
                    run(cmd(&exe, &[mode, pids.to_str().expect("utf-8")]));
                }
            })
        })
        .collect();
    let mut during = Vec::new();
    for i in 0..6 {
        during.push(sleeper(i % 2 == 1));
        std::thread::sleep(Duration::from_millis(30));
    }
    for r in runs {
        r.join().expect("runs");
    }
    let o = run(cmd(&exe, &["daemon"]));
    assert!(o.leftovers_killed >= 1, "{o:?}");
    let pids = pids_in(&pids);
    assert_eq!(pids.len(), 6, "{pids:?}");
    for pid in pids {
        assert!(!alive(pid), "daemon {pid} survived");
    }
    for child in [&mut before, &mut own_group]
        .into_iter()
        .chain(during.iter_mut())
    {
        assert!(
            child.try_wait().expect("try_wait").is_none(),
            "non-worker child {} was killed",
            child.id()
        );
        child.kill().expect("kill");
        child.wait().expect("wait");
    }
}

/// `apply_own_limits` in a worker: this test binary, run again through
/// `isolate::run` with a limit, as the child test below.
#[test]
fn apply_own_limits_bounds_the_address_space() {
    assert_eq!(
        std::env::var_os(MEMORY_LIMIT_ENV).is_none(),
        isolate::apply_own_limits()
            .expect("no limit asked for")
            .is_none()
    );
    let mut c = Command::new(std::env::current_exe().expect("current_exe"));
    c.args([
        "--exact",
        "apply_own_limits_child",
        "--nocapture",
        "--test-threads=1",
    ])
    .env("ISOLATE_HOSTILE_CHILD", "1");
    isolate::set_memory_limit(&mut c, 512 << 20);
    let o = run(c);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.ended, Ended::Exited { code: 0 }, "{out}\n{}", o.stderr);
    assert!(out.contains("applied 536870912"), "{out}");
    assert!(out.contains("1 GiB refused"), "{out}");

    let mut c = Command::new(std::env::current_exe().expect("current_exe"));
    c.args(["--exact", "apply_own_limits_child", "--nocapture"])
        .env("ISOLATE_HOSTILE_CHILD", "1")
        .env(MEMORY_LIMIT_ENV, "lots");
    let o = run(c);
    assert_ne!(o.ended, Ended::Exited { code: 0 }, "{o:?}");
}

#[test]
fn apply_own_limits_child() {
    if std::env::var_os("ISOLATE_HOSTILE_CHILD").is_none() {
        return;
    }
    let applied = isolate::apply_own_limits().expect("apply_own_limits");
    println!("applied {}", applied.expect("a limit"));
    let mut v: Vec<u8> = Vec::new();
    if v.try_reserve_exact(1 << 30).is_err() {
        println!("1 GiB refused");
    }
}

fn sh(script: &str) -> Command {
    let mut c = Command::new("sh");
    c.args(["-c", script]);
    c
}

/// The traced worker still gets its signals: handled ones reach the
/// handler, and a death by signal is reported as such.
#[test]
fn signals_reach_the_traced_worker() {
    let o = run(sh(
        "trap 'echo got' USR1; kill -USR1 $$; kill -USR1 $$; echo done",
    ));
    assert_eq!(o.ended, Ended::Exited { code: 0 }, "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "got\ngot\ndone\n");
    let o = run(sh("kill -TERM $$; sleep 5"));
    assert_eq!(o.ended, Ended::Signaled { signal: 15 }, "{o:?}");
    // A job-control stop is passed on and the worker continued.
    let o = run(sh("sleep 0.2; kill -STOP $$; echo resumed"));
    assert_eq!(o.ended, Ended::Exited { code: 0 }, "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "resumed\n");
}

/// A real-time signal cannot be passed on through `nix`: the worker is
/// detached and that signal lost, but the run neither hangs nor fails,
/// and a later death by a real-time signal is reported with its number.
/// (Each script first sleeps, so that it is traced by then.)
#[test]
fn a_real_time_signal_detaches_the_worker() {
    let o = run(sh(
        "sleep 0.2; trap 'echo rt' 34; kill -34 $$; trap 'echo rt2' 34; kill -34 $$; echo done",
    ));
    assert_eq!(o.ended, Ended::Exited { code: 0 }, "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.ends_with("rt2\ndone\n"), "{out}");
    assert_eq!(o.peak_rss_kib, None, "{o:?}");
    let o = run(sh(
        "sleep 0.2; trap '' 34; kill -34 $$; kill -35 $$; sleep 5",
    ));
    assert_eq!(o.ended, Ended::Signaled { signal: 35 }, "{o:?}");
}
