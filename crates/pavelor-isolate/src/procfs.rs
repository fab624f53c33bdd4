//! `/proc` on Linux: a process's `stat` (state, parent, group, session,
//! start time) and `status` (`VmHWM`), whether it is dead or live, the
//! pids there are, and this process's children. Uses no sibling module.

use std::collections::HashSet;

/// A process's fields from `/proc/PID/stat` that the sweep uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Stat {
    pub state: u8,
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
    /// Start time, clock ticks after boot.
    pub start: u64,
}

/// Parses a `/proc/PID/stat` line (the command name, in parentheses,
/// may itself hold spaces and parentheses).
pub(super) fn parse_stat(line: &str) -> Option<Stat> {
    let rest = line.get(line.rfind(')')? + 1..)?;
    let f: Vec<&str> = rest.split_ascii_whitespace().collect();
    Some(Stat {
        state: *f.first()?.as_bytes().first()?,
        ppid: f.get(1)?.parse().ok()?,
        pgrp: f.get(2)?.parse().ok()?,
        session: f.get(3)?.parse().ok()?,
        start: f.get(19)?.parse().ok()?,
    })
}

pub(super) fn stat(pid: i32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Whether `pid` has ended (a zombie, or gone).
pub(super) fn is_dead(pid: i32) -> bool {
    stat(pid).is_none_or(|s| matches!(s.state, b'Z' | b'X'))
}

/// Whether the process is still running: its main thread, or (when
/// that has exited on its own) any of its other threads.
pub(super) fn is_live(pid: i32, s: &Stat) -> bool {
    if !matches!(s.state, b'Z' | b'X') {
        return true;
    }
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|t| {
        std::fs::read_to_string(t.path().join("stat"))
            .ok()
            .and_then(|l| parse_stat(&l))
            .is_some_and(|t| !matches!(t.state, b'Z' | b'X'))
    })
}

/// The `VmHWM` figure (KiB) in a `/proc/PID/status` text.
pub(super) fn parse_vm_hwm(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
}

/// `pid`'s resident-set high-water mark, KiB (absent once it has
/// released its memory).
pub(super) fn vm_hwm(pid: i32) -> Option<u64> {
    parse_vm_hwm(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
}

/// The pids in `/proc` now.
pub(super) fn proc_pids() -> Vec<i32> {
    std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// This process's children now, by pid and start time: from each
/// thread's `/proc/self/task/TID/children` where the kernel has them,
/// else from a scan of every process's parent.
pub(super) fn children_now() -> HashSet<(i32, u64)> {
    let with_start = |pid: i32| stat(pid).map(|s| (pid, s.start));
    let from_tasks = std::fs::read_dir("/proc/self/task").ok().and_then(|tasks| {
        let mut pids = Vec::new();
        for t in tasks.flatten() {
            let list = std::fs::read_to_string(t.path().join("children")).ok()?;
            pids.extend(
                list.split_ascii_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            );
        }
        Some(pids)
    });
    match from_tasks {
        Some(pids) => pids.into_iter().filter_map(with_start).collect(),
        None => {
            let me = i32::try_from(std::process::id()).unwrap_or(-1);
            proc_pids()
                .into_iter()
                .filter_map(|pid| Some((pid, stat(pid)?)))
                .filter(|(_, s)| s.ppid == me)
                .map(|(pid, s)| (pid, s.start))
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_read_right() {
        // A command name holding spaces and parentheses.
        let line = "4242 (a (b) c) S 1 4240 4239 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 \
                    987654 1000 10 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0";
        let s = parse_stat(line).expect("stat");
        assert_eq!(
            (s.state, s.ppid, s.pgrp, s.session, s.start),
            (b'S', 1, 4240, 4239, 987654)
        );
        assert_eq!(parse_stat("4242 (x) Z"), None);
        let own = std::fs::read_to_string("/proc/self/stat").expect("own stat");
        assert_eq!(
            parse_stat(&own).map(|s| s.pgrp),
            Some(nix::unistd::getpgrp().as_raw())
        );

        let status = "Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(1234));
        assert_eq!(parse_vm_hwm("Name:\tzombie\nState:\tZ (zombie)\n"), None);
        assert!(vm_hwm(i32::try_from(std::process::id()).expect("pid")).is_some());
    }
}
