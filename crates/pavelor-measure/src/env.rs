//! The assessment environment (report section 2), read from the system
//! and from how this binary was built.

use serde::{Deserialize, Serialize};

use pavelor::Available;

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

/// A small text file of the kernel's, trimmed; `None` if absent or empty.
pub(crate) fn read(path: &str) -> Option<String> {
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

/// An AArch64 CPU's name from `/proc/cpuinfo`'s "CPU implementer" and "CPU
/// part" codes (AArch64 kernels print no model name), e.g. `Qualcomm Oryon
/// (implementer 0x51, part 0x001)`.
fn arm_cpu_name(cpuinfo: &str, cpu: usize) -> Option<String> {
    let imp = cpuinfo_field(cpuinfo, cpu, "CPU implementer")?;
    let part = cpuinfo_field(cpuinfo, cpu, "CPU part").unwrap_or("?");
    let num = |v: &str| u32::from_str_radix(v.trim_start_matches("0x"), 16).ok();
    let name = match (num(imp), num(part)) {
        (Some(0x41), Some(p)) => match p {
            0xd03 => "Arm Cortex-A53",
            0xd04 => "Arm Cortex-A35",
            0xd05 => "Arm Cortex-A55",
            0xd07 => "Arm Cortex-A57",
            0xd08 => "Arm Cortex-A72",
            0xd0b => "Arm Cortex-A76",
            0xd0c => "Arm Neoverse N1",
            0xd40 => "Arm Neoverse V1",
            0xd41 => "Arm Cortex-A78",
            0xd44 => "Arm Cortex-X1",
            0xd49 => "Arm Neoverse N2",
            0xd4f => "Arm Neoverse V2",
            0xd8e => "Arm Neoverse N3",
            0xd84 => "Arm Neoverse V3",
            _ => "Arm",
        },
        (Some(0x51), Some(0x001)) => "Qualcomm Oryon",
        (Some(0x51), _) => "Qualcomm",
        (Some(0x61), _) => "Apple",
        (Some(0x48), _) => "HiSilicon",
        (Some(0xc0), _) => "Ampere",
        (Some(0x46), _) => "Fujitsu",
        (Some(0x4e), _) => "NVIDIA",
        _ => "AArch64",
    };
    Some(format!("{name} (implementer {imp}, part {part})"))
}

/// The AArch64 features relevant to the backends that this process can use
/// (the kernel's hwcaps, as the standard library reads them).
fn aarch64_features() -> Vec<String> {
    #[cfg(target_arch = "aarch64")]
    {
        use std::arch::is_aarch64_feature_detected as has;
        let all = [
            ("asimd", has!("neon")),
            ("aes", has!("aes")),
            ("pmull", has!("pmull")),
            ("sha2", has!("sha2")),
            ("sha3", has!("sha3")),
            ("sm4", has!("sm4")),
        ];
        all.iter()
            .filter(|(_, on)| *on)
            .map(|(n, _)| n.to_string())
            .collect()
    }
    #[cfg(not(target_arch = "aarch64"))]
    Vec::new()
}

/// The distribution's name (`/etc/os-release` `PRETTY_NAME`).
pub(crate) fn os_name() -> Option<String> {
    read("/etc/os-release").and_then(|s| {
        s.lines().find_map(|l| {
            l.strip_prefix("PRETTY_NAME=")
                .map(|v| v.trim_matches('"').to_string())
        })
    })
}

/// Total memory (`/proc/meminfo` `MemTotal`), KiB.
pub(crate) fn memory_total_kib() -> Option<u64> {
    read("/proc/meminfo").and_then(|m| {
        m.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
    })
}

/// Reads the environment. `core` is the CPU the trials are pinned to.
pub fn collect(core: Option<usize>) -> Environment {
    let cpuinfo = read("/proc/cpuinfo").unwrap_or_default();
    let cpu = core.unwrap_or(0);
    let mut cpu_model = cpuinfo_field(&cpuinfo, cpu, "model name")
        .map(String::from)
        .or_else(|| arm_cpu_name(&cpuinfo, cpu))
        .unwrap_or_else(|| "unknown".into());
    let foreign = cpuinfo_is_foreign(&cpuinfo);
    if foreign {
        cpu_model = format!(
            "{cpu_model} (the host CPU: this {} binary runs emulated)",
            std::env::consts::ARCH
        );
    }
    let flags = cpuinfo_field(&cpuinfo, cpu, "flags")
        .or_else(|| cpuinfo_field(&cpuinfo, cpu, "Features"))
        .unwrap_or("");
    let wanted = [
        "aes", "vaes", "avx", "avx2", "avx512f", "avx512vl", "pmull", "sha2", "sm3", "sm4", "asimd",
    ];
    let cpu_features = if cfg!(target_arch = "aarch64") {
        // What this process can execute (right also when emulated, where
        // /proc/cpuinfo lists the host's flags).
        aarch64_features()
    } else if foreign {
        Vec::new()
    } else {
        flags
            .split_whitespace()
            .filter(|f| wanted.contains(f))
            .map(String::from)
            .collect()
    };
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
    let os = os_name().unwrap_or_else(|| std::env::consts::OS.to_string());
    let kernel = read("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into());
    let memory_kib = memory_total_kib();
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
        backends: Available::all().map(|b| b.to_string()).collect(),
        memory_kib,
        os,
        kernel,
        rustc: BUILD_RUSTC.to_string(),
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

/// `rustc --version` of the compiler that built this crate (and, in one
/// workspace build, the measured binary).
pub const BUILD_RUSTC: &str = env!("PAVELOR_BUILD_RUSTC");
/// How this process is emulated, when it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Emulation {
    /// A user-mode emulator (qemu-user) runs this binary on another
    /// architecture's kernel.
    UserMode,
    /// The kernel itself runs on a CPU that an emulator implements in
    /// software (QEMU's TCG): AArch64's `CPU implementer` 0x00, which the
    /// Arm architecture reserves for software and no silicon has.
    SoftwareCpu,
}

impl Emulation {
    /// How the report names it.
    pub fn describe(self) -> &'static str {
        match self {
            Emulation::UserMode => "user-mode emulator (qemu user mode)",
            Emulation::SoftwareCpu => {
                "a CPU emulated in software (AArch64 CPU implementer 0x00, e.g. QEMU TCG)"
            }
        }
    }
}

/// Whether and how this process is emulated.
///
/// qemu-user answers `/proc/self/{maps,exe,cmdline,stat,auxv}` for the
/// emulated program, but the kernel's own view leaks through elsewhere
/// (checked with qemu 7.2): the process name (`/proc/self/comm`) is the
/// emulator's, `/proc/thread-self/exe` points at the emulator binary, and
/// `/proc/cpuinfo` describes the host CPU, i.e. another architecture than
/// the one this binary was built for. Any one of these is enough. A whole
/// system under QEMU's TCG shows a CPU implementer of 0x00 instead
/// (QEMU 7.2's `-cpu max`: implementer 0x00, part 0x051); under KVM the
/// guest sees the host's real CPU.
pub fn emulation() -> Option<Emulation> {
    let comm = read("/proc/self/comm").unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    if is_emulator_name(&comm)
        || emulator_exe().is_some()
        || read("/proc/self/maps").is_some_and(|m| m.contains("/qemu-"))
        || cpuinfo.as_deref().is_some_and(cpuinfo_is_foreign)
    {
        Some(Emulation::UserMode)
    } else if cpuinfo.as_deref().is_some_and(cpu_is_software) {
        Some(Emulation::SoftwareCpu)
    } else {
        None
    }
}

/// Whether an AArch64 `/proc/cpuinfo` names the implementer reserved for
/// software (0x00) for its first CPU.
fn cpu_is_software(cpuinfo: &str) -> bool {
    cpuinfo
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "CPU implementer").then(|| v.trim().to_string())
        })
        .and_then(|v| u32::from_str_radix(v.trim_start_matches("0x"), 16).ok())
        == Some(0)
}

/// `qemu-aarch64`, `qemu-x86_64-static`, `aarch64-binfmt-P`, ...
fn is_emulator_name(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.starts_with("qemu-") || base.contains("-binfmt")
}

/// The emulator binary running this process, if the kernel shows one: the
/// executable of the current thread as the kernel sees it (qemu-user
/// rewrites `/proc/self/exe` only).
fn emulator_exe() -> Option<std::path::PathBuf> {
    let exe = std::fs::read_link("/proc/thread-self/exe").ok()?;
    let own = std::env::current_exe().ok();
    (is_emulator_name(&exe.to_string_lossy()) && own.as_ref() != Some(&exe)).then_some(exe)
}

/// Whether `/proc/cpuinfo` is that of another architecture than this
/// binary's: the kernel describes the host CPU, so this binary is emulated.
fn cpuinfo_is_foreign(cpuinfo: &str) -> bool {
    let has = |key: &str| {
        cpuinfo
            .lines()
            .any(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
    };
    if cfg!(target_arch = "aarch64") {
        // An AArch64 kernel always lists "Features" and "CPU implementer".
        !cpuinfo.is_empty() && (has("vendor_id") || !has("CPU implementer"))
    } else if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
        has("CPU implementer")
    } else {
        false
    }
}

/// The command line that starts another program under the same emulator as
/// this process, with the same options (`-L`, `-cpu`, ...): everything of
/// the real command line (`/proc/thread-self/cmdline`, which qemu-user
/// does not rewrite) before this program's own arguments. `None` when not
/// emulated or when it cannot be told.
///
/// A trial worker started as `prefix... program args...` then runs on the
/// same emulated CPU. (Under binfmt_misc the prefix is the interpreter and
/// the program path, the convention of binfmt's `P` flag.)
pub fn emulator_prefix() -> Option<Vec<std::ffi::OsString>> {
    let exe = emulator_exe()?;
    let raw = std::fs::read("/proc/thread-self/cmdline").ok()?;
    let raw = raw.strip_suffix(&[0]).unwrap_or(&raw);
    let real: Vec<std::ffi::OsString> = raw
        .split(|&b| b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned().into())
        .collect();
    let own = std::env::args_os().count();
    if real.len() <= own || !is_emulator_name(&real[0].to_string_lossy()) {
        return None;
    }
    let mut prefix = real[..real.len() - own].to_vec();
    prefix[0] = exe.into_os_string();
    Some(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_software_cpu_is_told_by_implementer_zero_only() {
        // QEMU 7.2 TCG, -cpu max (read from the guest's /proc/cpuinfo).
        let tcg = "processor\t: 0\nBogoMIPS\t: 125.00\nCPU implementer\t: 0x00\nCPU architecture: 8\nCPU part\t: 0x051\n";
        assert!(cpu_is_software(tcg));
        // Real silicon: Qualcomm Oryon, Arm Neoverse; and x86, which has
        // no implementer line.
        assert!(!cpu_is_software(
            "CPU implementer\t: 0x51\nCPU part\t: 0x001\n"
        ));
        assert!(!cpu_is_software(
            "CPU implementer\t: 0x41\nCPU part\t: 0xd4f\n"
        ));
        assert!(!cpu_is_software(
            "vendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\n"
        ));
        assert!(!cpu_is_software(""));
        assert_eq!(
            serde_json::to_string(&Emulation::SoftwareCpu)
                .ok()
                .as_deref(),
            Some("\"software_cpu\"")
        );
    }
}
