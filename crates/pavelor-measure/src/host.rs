//! Host checks as the NICCS harness makes them before it measures
//! (`ngcc-dev/ngcc-harness`, `performance/campaign.py`, `host_problems`):
//! whether the measured CPU runs at a fixed clock, alone on its core, with
//! a hardware cycle counter. Each problem is one line in the harness's own
//! wording; pavelor adds one check of its own (a counter that the kernel
//! allows but cannot open), marked as such in [`HostProblem::ours`].

use serde::{Deserialize, Serialize};

use crate::clock::{ClockProbe, CounterKind, CycleCounter, clock_probe};
use crate::env::read;

/// One problem of the host, as the harness words it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostProblem {
    /// The line.
    pub text: String,
    /// Whether the check is pavelor's own (the harness does not make it).
    pub ours: bool,
}

/// The result of the checks for one CPU at one moment: a `host_checks`
/// entry of the harness's `campaign.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostCheckResult {
    /// The campaign phase that made the check.
    pub phase: String,
    /// The measured CPU.
    pub cpu: usize,
    /// When, UTC (RFC 3339).
    pub utc: String,
    /// The problems found (none: a fixed host).
    pub problems: Vec<String>,
}

/// What the checks read, so that the rules can be tested on any machine.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostFacts {
    /// `std::env::consts::ARCH`.
    pub architecture: String,
    /// `/proc/sys/kernel/perf_event_paranoid`.
    pub perf_event_paranoid: Option<String>,
    /// Why the hardware cycle counter could not be opened, if it could not.
    pub counter_failure: Option<String>,
    /// `/sys/devices/system/cpu/intel_pstate/no_turbo`.
    pub intel_pstate_no_turbo: Option<String>,
    /// `/sys/devices/system/cpu/cpufreq/boost`.
    pub cpufreq_boost: Option<String>,
    /// The CPU's `scaling_governor`.
    pub governor: Option<String>,
    /// The CPU's `scaling_min_freq` and `scaling_max_freq`.
    pub scaling_min_max: (Option<String>, Option<String>),
    /// The CPU's `topology/thread_siblings_list`.
    pub thread_siblings: Option<String>,
    /// `/sys/devices/cpu_core/cpus` (hybrid Intel: the performance cores).
    pub performance_cores: Option<String>,
    /// Whether the CPU is in this process's affinity mask.
    pub cpu_allowed: bool,
    /// Spread of the core clock measured with the cycle counter: (min, max,
    /// interquartile range, median), Hz; `None` without a counter.
    pub clock_spread: Option<(f64, f64, f64, f64)>,
}

impl HostFacts {
    /// Reads the facts of this machine for `cpu`. The clock is measured
    /// (about a second, with the cycle counter) only where the harness
    /// would: no cpufreq governor and no problem found before.
    pub fn read(cpu: usize) -> Self {
        let cpufreq = format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq");
        let counter = CycleCounter::open(false);
        let mut facts = HostFacts {
            architecture: std::env::consts::ARCH.to_string(),
            perf_event_paranoid: read("/proc/sys/kernel/perf_event_paranoid"),
            counter_failure: match counter.kind() {
                CounterKind::PerfCycles => None,
                _ => Some(
                    counter
                        .fallback_reason
                        .clone()
                        .unwrap_or_else(|| "no hardware cycle counter".into()),
                ),
            },
            intel_pstate_no_turbo: read("/sys/devices/system/cpu/intel_pstate/no_turbo"),
            cpufreq_boost: read("/sys/devices/system/cpu/cpufreq/boost"),
            governor: read(&format!("{cpufreq}/scaling_governor")),
            scaling_min_max: (
                read(&format!("{cpufreq}/scaling_min_freq")),
                read(&format!("{cpufreq}/scaling_max_freq")),
            ),
            thread_siblings: read(&format!(
                "/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list"
            )),
            performance_cores: read("/sys/devices/cpu_core/cpus"),
            cpu_allowed: crate::worker::allowed_cpus().is_ok_and(|c| c.contains(&cpu)),
            clock_spread: None,
        };
        if facts.governor.is_none()
            && problems(cpu, &facts).iter().all(|p| p.ours)
            && counter.kind() == CounterKind::PerfCycles
            && crate::worker::pin(cpu).is_ok()
        {
            facts.clock_spread = steady_clock_spread(counter, || {
                std::thread::sleep(std::time::Duration::from_secs(5))
            });
        }
        facts
    }
}

/// The harness's verdict on a clock without cpufreq (`campaign.py`,
/// `host_problems`): a busy moment elsewhere can steal part of a probe
/// window, so "not steady" needs three probes in a row whose IQR is above
/// 0.5% of their median, `wait` (5 s) apart; the first steady probe, or
/// the third, is the answer. (min, max, IQR, median), Hz.
pub(crate) fn steady_clock_spread(
    mut counter: CycleCounter,
    mut wait: impl FnMut(),
) -> Option<(f64, f64, f64, f64)> {
    let mut spread = None;
    for attempt in 0..3 {
        if attempt > 0 {
            wait();
        }
        let p = clock_probe(&mut counter)?;
        spread = Some((p.min_hz, p.max_hz, p.iqr_hz, p.median_hz));
        if p.iqr_hz <= 0.005 * p.median_hz {
            break;
        }
    }
    spread
}

/// The run's fixed core clock, Hz, from the machine as the harness records
/// it ([`niccs_environment`]), by the harness's rule (`campaign.py`,
/// `fixed_clock`): the cpufreq limit `cpufreq_max_khz` where cpufreq
/// exists, otherwise the probed `core_clock_hz` (a clock set by firmware,
/// as on AArch64); `None` when neither is there (no cpufreq and no cycle
/// counter: the rule that compares trials with it does not apply).
pub fn fixed_clock_hz(env: &[(String, serde_json::Value)]) -> Option<f64> {
    let num = |key: &str| -> f64 {
        match env.iter().find(|(k, _)| k == key).map(|(_, v)| v) {
            Some(serde_json::Value::String(s)) => s.trim().parse().unwrap_or(0.0),
            Some(serde_json::Value::Number(n)) => n.as_f64().unwrap_or(0.0),
            _ => 0.0,
        }
    };
    let hz = num("cpufreq_max_khz") * 1e3;
    let hz = if hz != 0.0 { hz } else { num("core_clock_hz") };
    (hz > 0.0).then_some(hz)
}

/// The problems of the host for measuring on `cpu`, in the harness's
/// order and wording (pavelor's own check marked).
pub fn problems(cpu: usize, f: &HostFacts) -> Vec<HostProblem> {
    let harness = |text: String| HostProblem { text, ours: false };
    let mut p = Vec::new();
    if !matches!(f.architecture.as_str(), "x86_64" | "aarch64") {
        p.push(harness(format!(
            "architecture {} has no guide configuration",
            f.architecture
        )));
    }
    let paranoid_ok = f
        .perf_event_paranoid
        .as_deref()
        .and_then(|v| v.parse::<i32>().ok())
        .is_some_and(|v| (-1..=2).contains(&v));
    if !paranoid_ok {
        p.push(harness(
            "hardware cycle counter unavailable: set kernel.perf_event_paranoid=2".into(),
        ));
    } else if let Some(why) = &f.counter_failure {
        // The kernel allows the counter, but there is none to open (a VM
        // without a virtual PMU): the harness does not look this far.
        p.push(HostProblem {
            text: format!("hardware cycle counter unavailable: {why}"),
            ours: true,
        });
    }
    if f.intel_pstate_no_turbo.as_deref() == Some("0") || f.cpufreq_boost.as_deref() == Some("1") {
        p.push(harness("turbo/boost is enabled".into()));
    }
    if let Some(gov) = &f.governor {
        if gov != "performance" {
            p.push(harness(format!(
                "CPU {cpu} governor is {gov}, not performance"
            )));
        }
        if f.architecture == "aarch64" && f.scaling_min_max.0 != f.scaling_min_max.1 {
            p.push(harness(format!(
                "CPU {cpu} clock not pinned (scaling_min_freq {} != scaling_max_freq {})",
                f.scaling_min_max.0.as_deref().unwrap_or("None"),
                f.scaling_min_max.1.as_deref().unwrap_or("None")
            )));
        }
    }
    if let Some(siblings) = &f.thread_siblings
        && *siblings != cpu.to_string()
    {
        p.push(harness(format!(
            "CPU {cpu} shares its core with CPUs {siblings} (SMT on)"
        )));
    }
    if let Some(cores) = &f.performance_cores
        && !cpu_in_list(cpu, cores)
    {
        p.push(harness(format!(
            "CPU {cpu} is not a performance core (cpu_core: {cores})"
        )));
    }
    if !f.cpu_allowed {
        p.push(harness(format!(
            "CPU {cpu} cannot be used by this process (cpuset)"
        )));
    }
    // The harness measures the clock only on a host it found no problem
    // with (pavelor's own check aside).
    if f.governor.is_none() && p.iter().all(|x| x.ours) {
        match f.clock_spread {
            None => p.push(harness(format!(
                "CPU {cpu}: no cpufreq and no cycle counter to measure the clock"
            ))),
            Some((lo, hi, iqr, median)) if iqr > 0.005 * median => p.push(harness(format!(
                "CPU {cpu} clock is not steady without cpufreq control ({:.3}-{:.3} GHz)",
                lo / 1e9,
                hi / 1e9
            ))),
            Some(_) => {}
        }
    }
    p
}

/// Whether `cpu` is in a kernel CPU list such as `0-3,8,10-11`.
pub fn cpu_in_list(cpu: usize, list: &str) -> bool {
    list.split(',').any(|part| {
        let part = part.trim();
        match part.split_once('-') {
            Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
                (Ok(a), Ok(b)) => (a..=b).contains(&cpu),
                _ => false,
            },
            None => part.parse::<usize>() == Ok(cpu),
        }
    })
}

/// The machine as the harness's `campaign.json` and records describe it
/// (`environment_at_start`, `environment`): its keys in its order, sysfs
/// values as the raw strings, `null` where this machine has no such thing.
/// The core clock is measured with the cycle counter (pinned to `cpu`, about
/// a second) where there is one.
pub fn niccs_environment(cpu: usize) -> Vec<(String, serde_json::Value)> {
    niccs_environment_with_probe(cpu).0
}

/// The CPU's model name from `/proc/cpuinfo`, else the environment's.
fn cpu_model(cpuinfo: &str, cpu: usize) -> Option<String> {
    cpuinfo
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "model name").then(|| v.trim().to_string())
        })
        .or_else(|| Some(crate::env::collect(Some(cpu)).cpu_model))
}

/// The machine's model: the device tree's, else the DMI product name.
fn machine_model() -> Option<String> {
    read("/sys/firmware/devicetree/base/model")
        .map(|m| m.trim_end_matches('\0').to_string())
        .or_else(|| read("/sys/class/dmi/id/product_name"))
}

/// The core clock measured with the hardware cycle counter, pinned to
/// `cpu` (`None` without one, or if the pinning fails).
fn probe_core_clock(cpu: usize) -> Option<ClockProbe> {
    let mut counter = CycleCounter::open(false);
    (counter.kind() == CounterKind::PerfCycles && crate::worker::pin(cpu).is_ok())
        .then(|| clock_probe(&mut counter))
        .flatten()
}

/// [`niccs_environment`], with the clock probe its `core_clock_*` keys come
/// from (`None` without a hardware cycle counter).
pub fn niccs_environment_with_probe(
    cpu: usize,
) -> (Vec<(String, serde_json::Value)>, Option<ClockProbe>) {
    use serde_json::Value;
    let s = |v: Option<String>| v.map_or(Value::Null, Value::String);
    let cpufreq = format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq");
    let cpuinfo = read("/proc/cpuinfo").unwrap_or_default();
    let probe = probe_core_clock(cpu);
    let clock = probe
        .as_ref()
        .map(|p| (p.min_hz, p.max_hz, p.iqr_hz, p.median_hz));
    let hz = |v: Option<f64>| v.map_or(Value::Null, |v| Value::from(v.round() as u64));
    let pairs: Vec<(&str, Value)> = vec![
        ("hostname", s(read("/proc/sys/kernel/hostname"))),
        ("architecture", Value::from(std::env::consts::ARCH)),
        ("cpu_model", s(cpu_model(&cpuinfo, cpu))),
        ("machine", s(machine_model())),
        ("cpu_number", Value::from(cpu)),
        (
            "logical_cpus_online",
            s(read("/sys/devices/system/cpu/online")),
        ),
        (
            "virtualized",
            Value::from(cpuinfo.split_whitespace().any(|w| w == "hypervisor")),
        ),
        (
            "memory_total_kib",
            crate::env::memory_total_kib().map_or(Value::Null, Value::from),
        ),
        ("os", s(crate::env::os_name())),
        ("kernel", s(read("/proc/sys/kernel/osrelease"))),
        ("compiler", Value::from(crate::env::BUILD_RUSTC)),
        ("cmake", Value::Null),
        ("python", Value::Null),
        (
            "perf_event_paranoid",
            s(read("/proc/sys/kernel/perf_event_paranoid")),
        ),
        (
            "cpufreq_governor",
            s(read(&format!("{cpufreq}/scaling_governor"))),
        ),
        (
            "cpufreq_driver",
            s(read(&format!("{cpufreq}/scaling_driver"))),
        ),
        (
            "cpufreq_min_khz",
            s(read(&format!("{cpufreq}/scaling_min_freq"))),
        ),
        (
            "cpufreq_max_khz",
            s(read(&format!("{cpufreq}/scaling_max_freq"))),
        ),
        (
            "cpufreq_avg_khz",
            s(read(&format!("{cpufreq}/cpuinfo_avg_freq"))),
        ),
        (
            "intel_pstate_no_turbo",
            s(read("/sys/devices/system/cpu/intel_pstate/no_turbo")),
        ),
        (
            "cpufreq_boost",
            s(read("/sys/devices/system/cpu/cpufreq/boost")),
        ),
        (
            "smt_control",
            s(read("/sys/devices/system/cpu/smt/control")),
        ),
        ("core_clock_hz", hz(clock.map(|c| c.3))),
        ("core_clock_min_hz", hz(clock.map(|c| c.0))),
        ("core_clock_max_hz", hz(clock.map(|c| c.1))),
        (
            "core_clock_mhz",
            clock.map_or(Value::Null, |c| {
                Value::from(50 * (c.3 / 50e6).round_ties_even() as u64)
            }),
        ),
    ];
    (
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        probe,
    )
}

/// Why a cycle counter here would count a virtual machine's cycles, not
/// the silicon's, if the host can tell: a hypervisor (`/proc/cpuinfo`'s
/// `hypervisor` flag), or QEMU's `virt` machine model (device tree
/// `compatible = "linux,dummy-virt"`, or a model naming QEMU). Under TCG
/// the PMU counts the emulator's virtual clock.
pub fn emulated_pmu() -> Option<String> {
    let cpuinfo = read("/proc/cpuinfo").unwrap_or_default();
    let dt = |name: &str| {
        std::fs::read(format!("/sys/firmware/devicetree/base/{name}"))
            .ok()
            .map(|b| {
                b.split(|&c| c == 0)
                    .filter(|s| !s.is_empty())
                    .map(|s| String::from_utf8_lossy(s).into_owned())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    emulated_pmu_from(&cpuinfo, &dt("compatible"), &dt("model"))
}

/// [`emulated_pmu`] on given facts.
pub fn emulated_pmu_from(cpuinfo: &str, compatible: &[String], model: &[String]) -> Option<String> {
    if compatible.iter().any(|c| c == "linux,dummy-virt") {
        return Some("QEMU virt machine (device tree compatible = \"linux,dummy-virt\")".into());
    }
    if let Some(m) = model
        .iter()
        .find(|m| m.contains("QEMU") || m.contains("dummy-virt"))
    {
        return Some(format!("QEMU machine model ({m})"));
    }
    cpuinfo
        .split_whitespace()
        .any(|w| w == "hypervisor")
        .then(|| "hypervisor present (/proc/cpuinfo)".into())
}

/// Checks the host for `cpu` now, as the `phase` of a campaign.
pub fn check(phase: &str, cpu: usize) -> (HostCheckResult, Vec<HostProblem>) {
    let facts = HostFacts::read(cpu);
    let found = problems(cpu, &facts);
    (
        HostCheckResult {
            phase: phase.to_string(),
            cpu,
            utc: crate::utc::UtcTime::now().rfc3339_micros(),
            problems: found.iter().map(|p| p.text.clone()).collect(),
        },
        found,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed() -> HostFacts {
        HostFacts {
            architecture: "aarch64".into(),
            perf_event_paranoid: Some("2".into()),
            counter_failure: None,
            intel_pstate_no_turbo: None,
            cpufreq_boost: Some("0".into()),
            governor: Some("performance".into()),
            scaling_min_max: (Some("2707200".into()), Some("2707200".into())),
            thread_siblings: Some("7".into()),
            performance_cores: None,
            cpu_allowed: true,
            clock_spread: None,
        }
    }

    fn texts(cpu: usize, f: &HostFacts) -> Vec<String> {
        problems(cpu, f).into_iter().map(|p| p.text).collect()
    }

    #[test]
    fn a_fixed_host_has_no_problem() {
        assert!(texts(7, &fixed()).is_empty());
    }

    #[test]
    fn each_problem_in_the_harness_s_words() {
        let mut f = fixed();
        f.perf_event_paranoid = Some("4".into());
        assert_eq!(
            texts(7, &f),
            ["hardware cycle counter unavailable: set kernel.perf_event_paranoid=2"]
        );
        let mut f = fixed();
        f.cpufreq_boost = Some("1".into());
        assert_eq!(texts(7, &f), ["turbo/boost is enabled"]);
        let mut f = fixed();
        f.intel_pstate_no_turbo = Some("0".into());
        assert_eq!(texts(7, &f), ["turbo/boost is enabled"]);
        let mut f = fixed();
        f.governor = Some("schedutil".into());
        assert_eq!(
            texts(7, &f),
            ["CPU 7 governor is schedutil, not performance"]
        );
        let mut f = fixed();
        f.scaling_min_max.0 = Some("1000000".into());
        assert_eq!(
            texts(7, &f),
            ["CPU 7 clock not pinned (scaling_min_freq 1000000 != scaling_max_freq 2707200)"]
        );
        let mut f = fixed();
        f.thread_siblings = Some("7,15".into());
        assert_eq!(
            texts(7, &f),
            ["CPU 7 shares its core with CPUs 7,15 (SMT on)"]
        );
        let mut f = fixed();
        f.performance_cores = Some("0-5".into());
        assert_eq!(
            texts(7, &f),
            ["CPU 7 is not a performance core (cpu_core: 0-5)"]
        );
        let mut f = fixed();
        f.cpu_allowed = false;
        assert_eq!(
            texts(7, &f),
            ["CPU 7 cannot be used by this process (cpuset)"]
        );
        let mut f = fixed();
        f.architecture = "riscv64".into();
        assert_eq!(
            texts(7, &f),
            ["architecture riscv64 has no guide configuration"]
        );
    }

    #[test]
    fn without_cpufreq_the_clock_is_measured_or_its_absence_said() {
        let mut f = fixed();
        f.governor = None;
        f.thread_siblings = Some("1".into());
        assert_eq!(
            texts(1, &f),
            ["CPU 1: no cpufreq and no cycle counter to measure the clock"]
        );
        f.clock_spread = Some((2.59e9, 2.61e9, 0.002e9, 2.6e9));
        assert!(texts(1, &f).is_empty());
        f.clock_spread = Some((2.0e9, 3.0e9, 0.1e9, 2.6e9));
        assert_eq!(
            texts(1, &f),
            ["CPU 1 clock is not steady without cpufreq control (2.000-3.000 GHz)"]
        );
    }

    #[test]
    fn a_counter_that_cannot_be_opened_is_our_own_check() {
        let mut f = fixed();
        f.counter_failure = Some("perf_event_open failed: No such file or directory".into());
        let p = problems(7, &f);
        assert_eq!(p.len(), 1);
        assert!(p[0].ours);
        assert!(
            p[0].text
                .starts_with("hardware cycle counter unavailable: ")
        );
    }

    #[test]
    fn an_unsteady_clock_needs_three_probes_in_a_row() {
        use crate::clock::fake::FakeSource;
        let probe = |mhz: Vec<f64>| {
            let hz = mhz.iter().map(|m| m * 1e6).collect();
            let c = CycleCounter::open_with(Box::new(FakeSource::new(true, hz)), false);
            let mut waits = 0;
            let spread = steady_clock_spread(c, || waits += 1);
            (spread, waits)
        };
        // Steady at once: one probe, no wait.
        let (s, waits) = probe(vec![3000.0]);
        assert_eq!(waits, 0);
        assert!((s.expect("a spread").3 - 3000e6).abs() < 1.0);
        // Windows alternating 2000 and 3000 MHz for all three probes
        // (22 windows each): IQR 1000 MHz > 0.5% of the median, 2 waits.
        let unsteady: Vec<f64> = (0..66)
            .map(|k| if k % 2 == 0 { 2000.0 } else { 3000.0 })
            .collect();
        let (s, waits) = probe(unsteady);
        assert_eq!(waits, 2);
        let (lo, hi, iqr, _) = s.expect("a spread");
        assert!((lo - 2000e6).abs() < 1.0 && (hi - 3000e6).abs() < 1.0);
        assert!((iqr - 1000e6).abs() < 1.0);
    }

    #[test]
    fn the_fixed_clock_is_cpufreq_s_limit_else_the_probed_clock() {
        use serde_json::Value;
        let env = |max_khz: Value, clock: Value| {
            vec![
                ("cpufreq_max_khz".to_string(), max_khz),
                ("core_clock_hz".to_string(), clock),
            ]
        };
        assert_eq!(
            fixed_clock_hz(&env(Value::from("2707200"), Value::from(2694173523u64))),
            Some(2707200.0 * 1e3)
        );
        assert_eq!(
            fixed_clock_hz(&env(Value::Null, Value::from(3400000000u64))),
            Some(3.4e9)
        );
        assert_eq!(fixed_clock_hz(&env(Value::Null, Value::Null)), None);
    }

    #[test]
    fn an_emulated_pmu_is_told_by_the_machine_model_or_a_hypervisor() {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(
            emulated_pmu_from("", &v(&["linux,dummy-virt"]), &[])
                .is_some_and(|w| w.contains("dummy-virt"))
        );
        assert!(emulated_pmu_from("flags : fpu hypervisor", &[], &[]).is_some());
        assert_eq!(
            emulated_pmu_from("flags : fpu", &v(&["qcom,x1e80100"]), &v(&["ASUS"])),
            None
        );
    }

    #[test]
    fn cpu_lists() {
        assert!(cpu_in_list(3, "0-3,8"));
        assert!(cpu_in_list(8, "0-3,8"));
        assert!(!cpu_in_list(4, "0-3,8"));
        assert!(!cpu_in_list(4, "garbage"));
    }
}
