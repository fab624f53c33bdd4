//! `pavelor bench`: Pavelor beside SHA-512, SHA3-512, BLAKE2b, BLAKE3 and SM3,
//! in one process, with the AES-round bound measured in the same run.

use std::process::ExitCode;

use clap::Args;
use pavelor_bench::{self as in_process, BenchOp};
use pavelor_report::SIZES;

use crate::arg_error::{ArgError, parse_seconds_in};
use crate::terminal::{errln, outln};

#[derive(Args)]
#[command(
    after_help = "Each figure: 3 warm-up calls, a calibration that is not counted (at least a \
tenth of --seconds), then the timed calls in 8 blocks. At the end the first figure is measured \
again, on a copy of its message that ends at a page boundary (the self-check); the last line says \
whether the two agree, and a run whose figures drifted says so at the top too."
)]
pub(crate) struct BenchArgs {
    /// Print the results as JSON instead of tables.
    #[arg(long)]
    json: bool,
    /// Message lengths in bytes, comma-separated [default: S1..S8 = 32,128,512,1024,4096,8192,16384,65536].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=(1 << 26)))]
    sizes: Vec<u32>,
    /// Also time an ICCS CryptHash shared library (repeatable); it is probed and its API checked in separate processes first.
    #[arg(long = "lib", value_name = "NAME=PATH")]
    libs: Vec<pavelor_measure::library::LibSpec>,
    /// Seconds of timed calls per figure.
    #[arg(long, value_name = "S", default_value_t = 0.15, value_parser = parse_seconds)]
    seconds: f64,
    /// Instead of the table: the length sweep of each instance (Pavelor on
    /// the fastest backend here, and each --lib), as eBASH measures
    /// hashes: every length 0–4096 B then steps of 1008 B to 64 KiB
    /// (full), or every block boundary and its neighbours (quick).
    #[arg(long, value_enum, value_name = "LENGTHS", num_args = 0..=1, default_missing_value = "full", conflicts_with_all = ["sizes", "seconds"])]
    sweep: Option<SweepLengths>,
    /// The seed of the sweep's random messages [default: from the clock; printed].
    #[arg(long, value_name = "N", requires = "sweep")]
    seed: Option<u64>,
}

/// The lengths of `--sweep`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SweepLengths {
    /// Every length 0–4096 B, then 4096 + k·1008 B to 65536 B.
    Full,
    /// Each block boundary up to 4096 B with 4 lengths on each side, the
    /// published columns, the long lengths.
    Quick,
}

fn parse_seconds(s: &str) -> Result<f64, ArgError> {
    parse_seconds_in(s, 0.001, 60.0)
}

pub(crate) fn run(args: &BenchArgs) -> ExitCode {
    let sizes: Vec<usize> = if args.sizes.is_empty() {
        SIZES.to_vec()
    } else {
        args.sizes.iter().map(|&s| s as usize).collect()
    };
    let mut ops = BenchOp::all();
    let mut done = ExitCode::SUCCESS;
    if !args.libs.is_empty() {
        let worker = pavelor_measure::protocol::WorkerCommand {
            program: match std::env::current_exe() {
                Ok(p) => p,
                Err(e) => {
                    errln!("bench: cannot find the pavelor executable: {e}");
                    return ExitCode::FAILURE;
                }
            },
            args: vec!["__trial".into()],
        };
        if let Err(e) = pavelor_measure::library::validate(&args.libs) {
            errln!("bench: {e}");
            return ExitCode::FAILURE;
        }
        let (lib_ops, gates) =
            in_process::lib_ops(&worker, &args.libs, std::time::Duration::from_secs(30));
        for g in &gates {
            errln!(
                "library {}: {} ({})",
                g.spec.name,
                g.status.label(),
                g.detail
            );
            if g.status != pavelor_measure::library::gate::LibStatus::Pass {
                done = ExitCode::FAILURE;
            }
        }
        ops.extend(lib_ops);
    }
    if let Some(lengths) = args.sweep {
        return sweep(args, lengths, ops, done);
    }
    // Every figure, and the first one again at the end (the self-check).
    let bar = crate::terminal::progress_bar((ops.len() * sizes.len() + 1) as u64, "pavelor bench");
    let result = in_process::run(
        &ops,
        &sizes,
        (args.seconds * 1e9) as u64,
        &mut |name, size| {
            bar.set_message(format!("{name} {size} B"));
            bar.inc(1);
        },
    );
    bar.finish_and_clear();
    print(
        result,
        args.json.then_some(serde_json::to_string_pretty),
        in_process::render_text,
        done,
    )
}

fn sweep(args: &BenchArgs, lengths: SweepLengths, ops: Vec<BenchOp>, done: ExitCode) -> ExitCode {
    let ops = in_process::sweep::sweep_ops(ops);
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let bar = crate::terminal::progress_bar(ops.len() as u64, "pavelor bench --sweep");
    let result =
        in_process::sweep::run_sweep(&ops, lengths == SweepLengths::Quick, seed, &mut |name| {
            bar.set_message(name.to_string());
            bar.inc(1);
        });
    bar.finish_and_clear();
    // Compact: the raw samples are some 200 000 numbers.
    print(
        result,
        args.json.then_some(serde_json::to_string),
        in_process::render_sweep_text,
        done,
    )
}

/// A run's result as JSON (through `json`, if given) or text on stdout
/// (exit `done`), or its error.
fn print<T>(
    result: Result<T, in_process::Error>,
    json: Option<fn(&T) -> serde_json::Result<String>>,
    text: fn(&T) -> String,
    done: ExitCode,
) -> ExitCode {
    let written = match (result, json) {
        (Err(e), _) => {
            errln!("bench: {e}");
            Ok(ExitCode::FAILURE)
        }
        (Ok(out), None) => crate::terminal::out_text(&text(&out)).map(|()| done),
        (Ok(out), Some(to_json)) => match to_json(&out) {
            Ok(j) => outln!("{j}").map(|()| done),
            Err(e) => {
                errln!("bench: {e}");
                Ok(ExitCode::FAILURE)
            }
        },
    };
    crate::terminal::finish(written)
}
