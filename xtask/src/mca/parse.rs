//! Reading llvm-mca's reports and rustc's assembly listings.

/// The summary lines of an llvm-mca report.
#[derive(Debug, PartialEq)]
pub(crate) struct Summary {
    pub iterations: u64,
    pub total_cycles: u64,
    pub block_rthroughput: f64,
}

impl Summary {
    pub(crate) fn parse(report: &str) -> Result<Summary, String> {
        fn field<'a>(report: &'a str, name: &str) -> Result<&'a str, String> {
            report
                .lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(':').map(str::trim))
                .ok_or_else(|| format!("llvm-mca output has no '{name}:' line"))
        }
        let num = |name: &str| -> Result<u64, String> {
            let v = field(report, name)?;
            v.parse()
                .map_err(|_| format!("llvm-mca '{name}: {v}': not an integer"))
        };
        let rt = field(report, "Block RThroughput")?;
        Ok(Summary {
            iterations: num("Iterations")?,
            total_cycles: num("Total Cycles")?,
            block_rthroughput: rt
                .parse()
                .map_err(|_| format!("llvm-mca 'Block RThroughput: {rt}': not a number"))?,
        })
    }

    /// Modelled cycles per iteration (= per Paff).
    pub(crate) fn cycles_per_iteration(&self) -> f64 {
        self.total_cycles as f64 / self.iterations.max(1) as f64
    }
}

/// Instruction counts of the block, by kind.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Mix {
    /// AES rounds: `aese` (AArch64), `aesenc`/`vaesenc` (x86).
    pub aes: u32,
    /// `aesmc` (AArch64).
    pub aesmc: u32,
    /// XORs: `eor`, `pxor`/`vpxor`/`vpxord`/`vpxorq`, `vpternlogq`/`d`.
    pub xor: u32,
    /// Cross-lane and lane shuffles (x86 `vperm*`, `vshuf*`, `valign*`,
    /// `vinsert*`, `vextract*`, `vpblend*`).
    pub shuffle: u32,
    /// Register moves.
    pub mov: u32,
    /// Loads.
    pub loads: u32,
    /// Stores.
    pub stores: u32,
    /// Everything else.
    pub other: u32,
}

impl Mix {
    /// Counts the block's instructions (AT&T syntax on x86: the
    /// destination is the last operand).
    pub(crate) fn of(block: &[String]) -> Mix {
        let mut m = Mix::default();
        for insn in block {
            let (mnemonic, operands) = insn.split_once(' ').unwrap_or((insn.as_str(), ""));
            let memory_dst = operands.rsplit(',').next().is_some_and(|d| d.contains('('));
            let memory = operands.contains('(');
            let slot = match mnemonic {
                "aese" => &mut m.aes,
                _ if mnemonic.contains("aesenc") => &mut m.aes,
                "aesmc" => &mut m.aesmc,
                "eor" | "pxor" | "vpxor" | "vpxord" | "vpxorq" | "vpternlogq" | "vpternlogd" => {
                    &mut m.xor
                }
                _ if ["vperm", "vshuf", "valign", "vinsert", "vextract", "vpblend"]
                    .iter()
                    .any(|p| mnemonic.starts_with(p)) =>
                {
                    &mut m.shuffle
                }
                _ if mnemonic.starts_with("ld") => &mut m.loads,
                _ if mnemonic.starts_with("st") && !mnemonic.starts_with("stm") => &mut m.stores,
                "mov" | "fmov" => &mut m.mov,
                _ if mnemonic.contains("mov") && memory_dst => &mut m.stores,
                _ if mnemonic.contains("mov") && memory => &mut m.loads,
                _ if mnemonic.contains("mov") => &mut m.mov,
                _ => &mut m.other,
            };
            *slot += 1;
        }
        m
    }

    pub(crate) fn render(&self) -> String {
        let mut parts = vec![format!("{} AES rounds", self.aes)];
        if self.aesmc > 0 {
            parts.push(format!("{} AESMC", self.aesmc));
        }
        parts.push(format!("{} XOR", self.xor));
        if self.shuffle > 0 {
            parts.push(format!("{} shuffles", self.shuffle));
        }
        parts.push(format!(
            "{} moves, {} loads, {} stores, {} other",
            self.mov, self.loads, self.stores, self.other
        ));
        parts.join(", ")
    }
}

/// llvm-mca's resource pressure per iteration, by resource name.
#[derive(Debug, PartialEq)]
pub(crate) struct Pressure(pub Vec<(String, f64)>);

impl Pressure {
    /// Reads the `Resources:` list and the `Resource pressure per
    /// iteration:` table of a report.
    pub(crate) fn parse(report: &str) -> Result<Pressure, String> {
        let mut lines = report.lines();
        let mut names = Vec::new();
        for l in lines.by_ref() {
            if l.starts_with("Resources:") {
                break;
            }
        }
        for l in lines.by_ref() {
            let Some((id, name)) = l.split_once(" - ") else {
                break;
            };
            names.push((id.trim().to_string(), name.trim().to_string()));
        }
        for l in lines.by_ref() {
            if l.starts_with("Resource pressure per iteration:") {
                break;
            }
        }
        let ids: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
        let values: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
        if names.is_empty() || ids.len() != names.len() || values.len() != ids.len() {
            return Err("llvm-mca output has no resource pressure table".to_string());
        }
        let mut out = Vec::new();
        for ((id, v), (name_id, name)) in ids.iter().zip(&values).zip(&names) {
            if id != name_id {
                return Err(format!("llvm-mca resource {id} is not {name_id}"));
            }
            let v = if *v == "-" {
                0.0
            } else {
                v.parse::<f64>()
                    .map_err(|_| format!("llvm-mca pressure '{v}': not a number"))?
            };
            out.push((name.clone(), v));
        }
        Ok(Pressure(out))
    }

    /// The `n` busiest resources as `NAME PERCENT%` of `cycles` (the
    /// modelled cycles per iteration).
    pub(crate) fn busiest(&self, cycles: f64, n: usize) -> String {
        let mut v: Vec<&(String, f64)> = self.0.iter().filter(|(_, p)| *p > 0.0).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v.iter()
            .take(n)
            .map(|(name, p)| format!("{name} {:.0}%", 100.0 * p / cycles.max(f64::MIN_POSITIVE)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Demangles a legacy Rust symbol (`_ZN7pavelor...17h<hash>E`) to its path
/// without the hash; `None` if it is not one.
pub(crate) fn demangle_legacy(sym: &str) -> Option<String> {
    let mut rest = sym.strip_prefix("_ZN")?;
    let mut parts = Vec::new();
    while !rest.starts_with('E') {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let len: usize = rest[..digits].parse().ok()?;
        let part = rest.get(digits..digits + len)?;
        rest = &rest[digits + len..];
        parts.push(part);
    }
    if parts
        .last()
        .is_some_and(|h| h.len() == 17 && h.starts_with('h'))
    {
        parts.pop();
    }
    Some(parts.join("::"))
}

/// The instructions of the one function named `name` (demangled) in an
/// assembly listing: the lines from its label to its `.size` directive that
/// are instructions (no directive, label or comment: `comment` starts
/// one), without a final `ret`.
pub(crate) fn extract_function(
    asm: &str,
    name: &str,
    comment: &str,
) -> Result<Vec<String>, String> {
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in asm.lines() {
        let t = line.trim();
        if let Some((sym, body)) = current.as_mut() {
            if t.starts_with(".size") && t.contains(sym.as_str()) {
                found.extend(current.take());
                continue;
            }
            let code = t.split(comment).next().unwrap_or("").trim();
            if !code.is_empty() && !code.starts_with('.') && !code.ends_with(':') {
                body.push(code.split_whitespace().collect::<Vec<_>>().join(" "));
            }
        } else if let Some(sym) = t.strip_suffix(':')
            && demangle_legacy(sym).as_deref() == Some(name)
        {
            current = Some((sym.to_string(), Vec::new()));
        }
    }
    match found.len() {
        1 => {
            let mut body = found.remove(0).1;
            if body.last().is_some_and(|l| l == "ret" || l == "retq") {
                body.pop();
            }
            Ok(body)
        }
        0 => Err(format!("no function {name} in the assembly")),
        n => Err(format!("{n} functions named {name} in the assembly")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mca::Arch;

    const PAFF_SYMBOL: &str = "pavelor::backend::aarch64::armv8_aes::permute_impl";

    /// The head of `llvm-mca-22 -mtriple=aarch64-unknown-linux-gnu
    /// -mcpu=oryon-1 -mattr=+aes -iterations=100` on the kernel before the
    /// copy-free reordering (LLVM 22.1.8).
    const REPORT: &str = "\
Iterations:        100
Instructions:      169100
Total Cycles:      40211
Total uOps:        171500

Dispatch Width:    14
uOps Per Cycle:    4.27
IPC:               4.21
Block RThroughput: 402.0


Instruction Info:
[1]: #uOps
";

    /// A cut-down listing in the form `rustc --emit asm` writes.
    const ASM: &str = "\t.section\t.text._ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE,\"ax\",@progbits
\t.p2align\t2
\t.type\t_ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE,@function
_ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE:
.Lfunc_begin29:
\t.loc\t33 504 0
\t.cfi_startproc
\tsub\tsp, sp, #80
\tstp\td15, d14, [sp, #16]
\tldp\tq21, q19, [x0, #128]
\tmovi\tv0.2d, #0000000000000000
\t//APP
\t// v0
\t//NO_APP
\tadrp\tx8, .LCPI29_0
\tmov\tv2.16b, v19.16b
\tldr\tq1, [x8, :lo12:.LCPI29_0]
\teor\tv1.16b, v21.16b, v1.16b
\taese\tv21.16b, v0.16b
\taesmc\tv21.16b, v21.16b
\tstr\tq1, [x0]
\tret
.Lfunc_end29:
\t.size\t_ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE, .Lfunc_end29-_ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE
\t.cfi_endproc
_ZN7pavelor7backend7aarch649armv8_aes11absorb_impl17h0b230beb4b55c7e6E:
\taese\tv1.16b, v0.16b
\tret
";

    #[test]
    fn parses_the_summary() {
        let s = Summary::parse(REPORT).expect("the fixture parses");
        assert_eq!(
            s,
            Summary {
                iterations: 100,
                total_cycles: 40211,
                block_rthroughput: 402.0
            }
        );
        assert!((s.cycles_per_iteration() - 402.11).abs() < 1e-9);
        assert!(Summary::parse("Iterations: 100\n").is_err());
    }

    #[test]
    fn demangles_legacy_symbols() {
        assert_eq!(
            demangle_legacy(
                "_ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE"
            )
            .as_deref(),
            Some(PAFF_SYMBOL)
        );
        assert_eq!(demangle_legacy(".Lfunc_begin29"), None);
    }

    #[test]
    fn extracts_the_block_and_its_mix() {
        assert_eq!(Arch::Aarch64.kernels()[0].1, PAFF_SYMBOL);
        let block = extract_function(ASM, PAFF_SYMBOL, Arch::Aarch64.comment())
            .expect("the fixture has the function");
        assert_eq!(block.first().map(String::as_str), Some("sub sp, sp, #80"));
        assert_eq!(block.last().map(String::as_str), Some("str q1, [x0]"));
        assert_eq!(
            Mix::of(&block),
            Mix {
                aes: 1,
                aesmc: 1,
                xor: 1,
                shuffle: 0,
                mov: 2,
                loads: 2,
                stores: 2,
                other: 2,
            }
        );
        assert!(extract_function(ASM, "pavelor::nothing", "//").is_err());
    }

    /// A cut-down x86 listing (AT&T syntax, `#` comments, inline assembly
    /// between `#APP` and `#NO_APP`).
    const ASM_X86: &str = "_ZN7pavelor7backend3x869avx_aesni12permute_impl17h439eab6277d45bd7E:
.Lfunc_begin47:
\t.cfi_startproc
\tsubq\t$152, %rsp
\tvmovups\t288(%rdi), %ymm15
\tvmovups\t%ymm15, -64(%rsp)
\t#APP

\tvpxor\t(%rax), %xmm8, %xmm15
\tvaesenc\t%xmm0, %xmm4, %xmm15 # a comment
\tvpermt2q\t%zmm1, %zmm2, %zmm3
\tvmovdqa\t%xmm1, %xmm2
\t#NO_APP
\tretq
.Lfunc_end47:
\t.size\t_ZN7pavelor7backend3x869avx_aesni12permute_impl17h439eab6277d45bd7E, .Lfunc_end47-_ZN7pavelor7backend3x869avx_aesni12permute_impl17h439eab6277d45bd7E
";

    #[test]
    fn extracts_an_x86_block() {
        let symbol = Arch::X86_64.kernels()[1].1;
        let block = extract_function(ASM_X86, symbol, Arch::X86_64.comment())
            .expect("the fixture has the function");
        assert_eq!(block.len(), 7, "{block:?}");
        assert_eq!(block[4], "vaesenc %xmm0, %xmm4, %xmm15");
        assert_eq!(
            Mix::of(&block),
            Mix {
                aes: 1,
                aesmc: 0,
                xor: 1,
                shuffle: 1,
                mov: 1,
                loads: 1,
                stores: 1,
                other: 1,
            }
        );
    }

    #[test]
    fn reads_the_port_pressure() {
        let report = "\
Resources:
[0]   - SPRPort00
[1]   - SPRPort01
[5]   - SPRPort05


Resource pressure per iteration:
[0]    [1]    [5]
0.60   0.70    -

Resource pressure by instruction:
";
        let p = Pressure::parse(report).expect("the fixture parses");
        assert_eq!(
            p,
            Pressure(vec![
                ("SPRPort00".into(), 0.6),
                ("SPRPort01".into(), 0.7),
                ("SPRPort05".into(), 0.0),
            ])
        );
        assert_eq!(p.busiest(1.0, 3), "SPRPort01 70%, SPRPort00 60%");
        assert!(Pressure::parse("Iterations: 1\n").is_err());
    }
}
