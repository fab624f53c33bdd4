//! The assessment environment (report section 2), read from the system
//! and from how this binary was built.

use serde::{Deserialize, Serialize};

use pavelor::Backend;

/// Everything the report says about the machine and the build.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Environment {
    /// Processor model (`/proc/cpuinfo` "model name" or "CPU part").
    pub cpu_model: String,
    /// Logical CPUs online.
    pub logical_cpus: usize,
    /// The CPU the trials were pinned to.
    pub core_used: Option<usize>,
    /// Current clock of that CPU as the kernel reports it, MHz.
    pub cpu_mhz: Option<f64>,
    /// Measured rate of the tick counter (TSC), Hz.
    pub tick_rate_hz: Option<f64>,
    /// cpufreq governor, if the kernel exposes one.
    pub governor: Option<String>,
    /// Turbo/boost state, if knowable.
    pub boost: Option<String>,
    /// Whether the CPU reports running under a hypervisor.
    pub hypervisor: bool,
    /// CPU features relevant to the backends.
    pub cpu_features: Vec<String>,
    /// The Pavelor backends this CPU runs, fastest first.
    pub backends: Vec<String>,
    /// Total memory, KiB.
    pub memory_kib: Option<u64>,
    /// OS distribution.
    pub os: String,
    /// Kernel release.
    pub kernel: String,
    /// rustc that built this binary.
    pub rustc: String,
    /// Cargo profile, opt-level, debug assertions.
    pub build_profile: String,
    /// Target triple.
    pub target: String,
    /// RUSTFLAGS at build time.
    pub rustflags: String,
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn cpuinfo_field<'a>(cpuinfo: &'a str, cpu: usize, key: &str) -> Option<&'a str> {
    // Blocks are separated by blank lines; fall back to the first match.
    let block = cpuinfo.split("\n\n").nth(cpu).unwrap_or(cpuinfo);
    block
        .lines()
        .chain(cpuinfo.lines())
        .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim())
}

/// Reads the environment. `core` is the CPU the trials are pinned to.
pub fn collect(core: Option<usize>) -> Environment {
    let cpuinfo = read("/proc/cpuinfo").unwrap_or_default();
    let cpu = core.unwrap_or(0);
    let cpu_model = cpuinfo_field(&cpuinfo, cpu, "model name")
        .or_else(|| {
            cpuinfo_field(&cpuinfo, cpu, "CPU part").map(|_| "AArch64 (see CPU implementer/part)")
        })
        .unwrap_or("unknown")
        .to_string();
    let flags = cpuinfo_field(&cpuinfo, cpu, "flags")
        .or_else(|| cpuinfo_field(&cpuinfo, cpu, "Features"))
        .unwrap_or("");
    let wanted = [
        "aes", "vaes", "avx", "avx2", "avx512f", "avx512vl", "pmull", "sha2", "sm3", "sm4", "asimd",
    ];
    let cpu_features = flags
        .split_whitespace()
        .filter(|f| wanted.contains(f))
        .map(String::from)
        .collect();
    let hypervisor = flags.split_whitespace().any(|f| f == "hypervisor");
    let cpufreq = format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq");
    let boost = read("/sys/devices/system/cpu/cpufreq/boost")
        .map(|b| {
            if b == "1" {
                "boost enabled".to_string()
            } else {
                "boost disabled".to_string()
            }
        })
        .or_else(|| {
            read("/sys/devices/system/cpu/intel_pstate/no_turbo").map(|t| {
                if t == "1" {
                    "turbo disabled".to_string()
                } else {
                    "turbo enabled".to_string()
                }
            })
        });
    let os = read("/etc/os-release")
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("PRETTY_NAME=")
                    .map(|v| v.trim_matches('"').to_string())
            })
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    let kernel = read("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into());
    let memory_kib = read("/proc/meminfo").and_then(|m| {
        m.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
    });
    Environment {
        cpu_model,
        logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        core_used: core,
        cpu_mhz: cpuinfo_field(&cpuinfo, cpu, "cpu MHz").and_then(|v| v.parse().ok()),
        tick_rate_hz: crate::clock::tick_rate_hz(100),
        governor: read(&format!("{cpufreq}/scaling_governor")),
        boost,
        hypervisor,
        cpu_features,
        backends: Backend::ALL
            .iter()
            .filter(|b| b.is_available())
            .map(|b| b.name().to_string())
            .collect(),
        memory_kib,
        os,
        kernel,
        rustc: env!("PAVELOR_BUILD_RUSTC").to_string(),
        build_profile: format!(
            "{} (opt-level {}, debug-assertions {})",
            env!("PAVELOR_BUILD_PROFILE"),
            env!("PAVELOR_BUILD_OPT_LEVEL"),
            if cfg!(debug_assertions) { "on" } else { "off" }
        ),
        target: env!("PAVELOR_BUILD_TARGET").to_string(),
        rustflags: env!("PAVELOR_BUILD_RUSTFLAGS").to_string(),
    }
}

/// Whether the process runs under user-mode emulation (qemu-user), as far as
/// can be told: the parent chain or the auxiliary vector's platform gives it
/// away only sometimes, so this checks `/proc/self/maps` for a qemu binary.
pub fn emulated() -> bool {
    read("/proc/self/maps").is_some_and(|m| m.contains("qemu-"))
}
