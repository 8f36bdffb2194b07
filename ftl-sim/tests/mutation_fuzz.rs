//! Deterministic mutation fuzzing of every parser of outside input, for the
//! normal `cargo test --release` run (no nightly needed): seed inputs (the
//! shipped device profiles, a FlashSim `ssd.conf`, the seeds of `fuzz/seeds/`)
//! are mutated with a fixed-seed generator and fed to the device-profile YAML
//! reader (then the geometry and, when small, a whole FTL), the `ssd.conf`
//! importer, every trace reader (blktrace binary, blkparse, MQSim, uFLIP /
//! FlashSim, CSV), the remap reader and the extent table. Every input must
//! come back as `Ok` or as an `Err` with a message; a panic fails the test and
//! prints the input that caused it.
//!
//! `FTL_MUTATION_ITERATIONS` (default 1500 per target) and
//! `FTL_MUTATION_SEED` (default 20261125) make longer or different runs, e.g.
//!   FTL_MUTATION_ITERATIONS=200000 cargo test --release --test mutation_fuzz
//! (docs/fuzzing.md records the runs made).

use ftl_sim::config::FtlConfig;
use ftl_sim::geometry::Geometry;
use ftl_sim::trace::{self, Event, Format, ReadOptions};
use ftl_sim::{flashsim_conf, Ftl};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// Devices this small are built whole (the FTL allocates ~8 bytes per page).
const MAX_BUILT_PAGES: u64 = 1 << 16;
/// Requests read from one mutated trace at most.
const MAX_REQUESTS: usize = 20_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&[u8]] = &[
    b"\n",
    b"\t",
    b",",
    b";",
    b" ",
    b":",
    b"-",
    b".",
    b"0",
    b"1",
    b"-1",
    b"65535",
    b"65536",
    b"4294967295",
    b"4294967296",
    b"9223372036854775807",
    b"18446744073709551615",
    b"18446744073709551616",
    b"1e308",
    b"-1e308",
    b"1e-300",
    b".nan",
    b"NaN",
    b"inf",
    b"-.inf",
    b"~",
    b"null",
    b"[]",
    b"{}",
    b"&a",
    b"*a",
    b"!!binary",
    b"0x10",
    b"0.0",
    b"storage:\n  ftl:\n",
    b"geometry:",
    b"channels: ",
    b"pages_per_block: ",
    b"blocks_per_plane: ",
    b"page_size: ",
    b"over_provisioning: ",
    b"entry_bytes: ",
    b"bytes: ",
    b"mode: whole",
    b"mode: entry",
    b"low_watermark: ",
    b"high_watermark: ",
    b"SSD_SIZE ",
    b"PACKAGE_SIZE ",
    b"DIE_SIZE ",
    b"PLANE_SIZE ",
    b"BLOCK_SIZE ",
    b"PAGE_SIZE ",
    b"FTL_IMPLEMENTATION ",
    b"CACHE_DFTL_LIMIT ",
    b"OVERPROVISIONING ",
    b"R",
    b"W",
    b"D",
    b"Q",
    b"C",
    b"WS",
    b"RM",
    b"\xff\xff\xff\xff",
    b"\x00\x00\x00\x00",
    b"\x07\x74\x61\x65",
    b"\x65\x61\x74\x07",
    b"\xc3",
    b"\"",
];

fn interesting_byte(rng: &mut Rng) -> u8 {
    const BYTES: &[u8] = b"\x00\x01\x07\x7f\x80\xff\t\n\r ,;:-.0123456789\"'#&*[]{}";
    BYTES[rng.below(BYTES.len())]
}

fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(6) {
        let len = data.len();
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = interesting_byte(rng);
            }
            2 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                let at = rng.below(len + 1);
                data.splice(at..at, token.iter().copied());
            }
            3 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(64));
                data.drain(at..at + n);
            }
            4 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(256));
                let copy: Vec<u8> = data[at..at + n].to_vec();
                let to = rng.below(len + 1);
                data.splice(to..to, copy);
            }
            5 => {
                let other = &seeds[rng.below(seeds.len())];
                if !other.is_empty() {
                    let from = rng.below(other.len());
                    let n = 1 + rng.below((other.len() - from).min(512));
                    let to = rng.below(len + 1);
                    data.splice(to..to, other[from..from + n].iter().copied());
                }
            }
            6 if len > 0 => data.truncate(rng.below(len)),
            7 => {
                // Replace a run of digits with an extreme number.
                if let Some(start) = (0..len)
                    .map(|k| (k + rng.below(len)) % len)
                    .find(|&i| data[i].is_ascii_digit())
                {
                    let end = (start..len)
                        .find(|&i| !data[i].is_ascii_digit())
                        .unwrap_or(len);
                    let token = TOKENS[4 + rng.below(20)];
                    data.splice(start..end, token.iter().copied());
                }
            }
            _ if len >= 4 => {
                // Overwrite an aligned 32-bit word (blktrace fields).
                let at = rng.below(len / 4) * 4;
                let v = [0u32, 1, u32::MAX, 0x8000_0000, 0x6561_7407, 48, 0xffff][rng.below(7)];
                data[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            _ => data.push(interesting_byte(rng)),
        }
    }
    data.truncate(1 << 16);
    data
}

fn iterations() -> usize {
    std::env::var("FTL_MUTATION_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500)
}

fn base_seed() -> u64 {
    std::env::var("FTL_MUTATION_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_261_125)
}

/// A file name in the temp folder for a target's input; only trace_target writes
/// it, and removes it. blktrace inputs must be named <dev>.blktrace.<cpu>.
fn scratch(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "ftl-sim-mutation-{}-{tag}.blktrace.0",
        std::process::id()
    ))
}

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The parser seeds of `fuzz/seeds/parsers/` (first byte: the reader) that
/// select `which` (modulo 6).
fn parser_seeds(which: u8) -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(manifest().join("fuzz/seeds/parsers"))
        .map(|dir| {
            dir.filter_map(|e| std::fs::read(e.ok()?.path()).ok())
                .filter(|b| b.first().is_some_and(|&f| f % 6 == which))
                .map(|b| b[1..].to_vec())
                .collect()
        })
        .unwrap_or_default();
    seeds.push(Vec::new());
    seeds
}

const PROFILE: &str = "name: x\nstorage:\n  ftl:\n    geometry:\n      channels: 1\n      ways_per_channel: 1\n      blocks_per_plane: 64\n      pages_per_block: 32\n    over_provisioning: 0.25\n    timing:\n      page_read_us: 50\n      page_program_us: 500\n      block_erase_us: 3000\n      channel_mb_per_s: 200\n      host_mb_per_s: 400\n    cache:\n      mode: entry\n      bytes: 4096\n    gc:\n      low_watermark: 2\n      high_watermark: 4\n";

const SSD_CONF: &str = "# FlashSim-style\nRAM_READ_DELAY 0.01\nBUS_CTRL_DELAY 2\nBUS_DATA_DELAY 10\nSSD_SIZE 2\nPACKAGE_SIZE 2\nDIE_SIZE 2\nPLANE_SIZE 64\nBLOCK_SIZE 16\nBLOCK_ERASE_DELAY 1500\nPAGE_READ_DELAY 25\nPAGE_WRITE_DELAY 200\nPAGE_SIZE 4096\nFTL_IMPLEMENTATION 3\nCACHE_DFTL_LIMIT 8\n";

fn profile_seeds() -> Vec<Vec<u8>> {
    let mut seeds = vec![PROFILE.as_bytes().to_vec()];
    if let Ok(dir) = std::fs::read_dir(manifest().join("../devices")) {
        let mut paths: Vec<PathBuf> = dir.filter_map(|e| Some(e.ok()?.path())).collect();
        paths.sort();
        seeds.extend(paths.iter().filter_map(|p| std::fs::read(p).ok()));
    }
    seeds
}

/// Builds the device a config describes, when it is small enough.
fn build(cfg: &FtlConfig) -> Result<(), String> {
    let geo = Geometry::new(cfg).map_err(|e| e.to_string())?;
    if geo.physical_pages <= MAX_BUILT_PAGES {
        let ftl = Ftl::new(cfg).map_err(|e| e.to_string())?;
        ftl.check_invariants()?;
    }
    Ok(())
}

fn profile_target(data: &[u8], tag: &str) -> bool {
    let text = String::from_utf8_lossy(data);
    let path = scratch(tag);
    let mut sane = true;
    for cfg in [
        FtlConfig::from_profile_str(&text, &path),
        FtlConfig::from_ftl_yaml(&text, &path),
    ] {
        match cfg {
            Ok(cfg) => sane &= !matches!(build(&cfg), Err(e) if e.is_empty()),
            Err(e) => sane &= !e.to_string().trim().is_empty(),
        }
    }
    sane
}

fn ssd_conf_target(data: &[u8], tag: &str) -> bool {
    let text = String::from_utf8_lossy(data);
    match flashsim_conf::import_str(&text, &scratch(tag), 0.07) {
        Ok(imported) => !matches!(build(&imported.config), Err(e) if e.is_empty()),
        Err(e) => !e.to_string().trim().is_empty(),
    }
}

fn trace_target(format: Format, event: Event, data: &[u8], tag: &str) -> bool {
    let path = scratch(tag);
    std::fs::write(&path, data).unwrap();
    let opts = ReadOptions {
        event,
        uflip_page_sectors: 8,
    };
    let mut sane = true;
    match trace::open(format, std::slice::from_ref(&path), opts) {
        Ok(mut src) => {
            for _ in 0..MAX_REQUESTS {
                match src.next_request() {
                    None => break,
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        sane &= !e.to_string().trim().is_empty();
                        break;
                    }
                }
            }
        }
        Err(e) => sane &= !e.to_string().trim().is_empty(),
    }
    let _ = std::fs::remove_file(&path);
    sane
}

fn extents_target(data: &[u8], unit: u64, tag: &str) -> bool {
    let text = String::from_utf8_lossy(data);
    match ftl_sim::dop::parse_extents(&text, &scratch(tag), unit) {
        Ok(_) => true,
        Err(e) => !e.to_string().trim().is_empty(),
    }
}

fn remap_target(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    text.lines()
        .all(|line| match trace::remap::parse_line(line) {
            Ok(_) => true,
            Err(e) => !e.trim().is_empty(),
        })
}

/// Runs `target` on `iterations()` mutations of `seeds`; returns the inputs
/// that panicked or failed without a message.
fn run(name: &str, seeds: &[Vec<u8>], target: &dyn Fn(&[u8], &str) -> bool) -> Vec<String> {
    let mut rng = Rng(base_seed()
        ^ name
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b)));
    let mut failures = Vec::new();
    for i in 0..iterations() {
        let input = if i < seeds.len() {
            seeds[i].clone()
        } else {
            mutate(&mut rng, seeds)
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| target(&input, name)));
        let problem = match outcome {
            Ok(true) => continue,
            Ok(false) => "an error without a message",
            Err(_) => "panic",
        };
        failures.push(format!(
            "{name} iteration {i}: {problem} on {:?}",
            String::from_utf8_lossy(&input[..input.len().min(600)])
        ));
        if failures.len() >= 5 {
            break;
        }
    }
    failures
}

fn assert_clean(failures: Vec<String>) {
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn device_profiles_never_panic() {
    assert_clean(run("profile", &profile_seeds(), &profile_target));
}

#[test]
fn flashsim_ssd_conf_never_panics() {
    let seeds = vec![SSD_CONF.as_bytes().to_vec(), b"SSD_SIZE 1\n".to_vec()];
    assert_clean(run("ssd_conf", &seeds, &ssd_conf_target));
}

#[test]
fn blktrace_binary_never_panics() {
    for (k, event) in [Event::Issue, Event::Queue, Event::Complete]
        .into_iter()
        .enumerate()
    {
        let name = format!("blktrace{k}");
        assert_clean(run(&name, &parser_seeds(0), &|d, t| {
            trace_target(Format::Blktrace, event, d, t)
        }));
    }
}

#[test]
fn text_traces_never_panic() {
    for (which, name, format) in [
        (1, "blkparse", Format::Blkparse),
        (2, "mqsim", Format::Mqsim),
        (3, "uflip", Format::Uflip),
        (4, "csv", Format::Csv),
    ] {
        assert_clean(run(name, &parser_seeds(which), &|d, t| {
            trace_target(format, Event::Issue, d, t)
        }));
    }
}

#[test]
fn extent_tables_and_remap_lines_never_panic() {
    let seeds = parser_seeds(5);
    assert_clean(run("extents", &seeds, &|d, t| extents_target(d, 4096, t)));
    assert_clean(run("extents1", &seeds, &|d, t| extents_target(d, 1, t)));
    let mut remap = parser_seeds(4);
    remap.push(b"0,remap,0,8,64\n1,R,8,8\n".to_vec());
    assert_clean(run("remap", &remap, &|d, _| remap_target(d)));
}

/// A profile whose every field is drawn from boundary values (the byte
/// mutations rarely change several numbers together, and overflows need that).
fn generated_profile(rng: &mut Rng) -> String {
    const INTS: &[&str] = &[
        "0",
        "1",
        "2",
        "3",
        "4",
        "16",
        "64",
        "255",
        "4096",
        "65535",
        "65536",
        "2147483648",
        "4294967295",
    ];
    const FLOATS: &[&str] = &[
        "0", "0.001", "0.07", "1", "10", "1e7", "1e9", "1e12", "-1", ".nan",
    ];
    let int = |rng: &mut Rng| INTS[rng.below(INTS.len())];
    let geometry = [
        "channels",
        "ways_per_channel",
        "dies_per_way",
        "planes_per_die",
        "blocks_per_plane",
        "pages_per_block",
    ]
    .iter()
    .map(|k| format!("      {k}: {}\n", int(rng)))
    .collect::<String>();
    let page = ["512", "4096", "16384", "1000", "0"][rng.below(5)];
    let timing = [
        "page_read_us",
        "page_program_us",
        "block_erase_us",
        "channel_mb_per_s",
        "host_mb_per_s",
    ]
    .iter()
    .map(|k| format!("{k}: {}, ", FLOATS[rng.below(FLOATS.len())]))
    .collect::<String>();
    format!(
        "storage:\n  ftl:\n    geometry:\n{geometry}      page_size: {page}\n    over_provisioning: {}\n    timing: {{{timing}}}\n    cache: {{mode: {}, bytes: {}, entry_bytes: {}}}\n    gc: {{low_watermark: {}, high_watermark: {}, policy: {}}}\n",
        FLOATS[rng.below(FLOATS.len())],
        ["tpage", "entry", "whole"][rng.below(3)],
        int(rng),
        ["1", "3", "4", "8", "4096", "0"][rng.below(6)],
        ["2", "3", "0", "65535"][rng.below(4)],
        ["2", "4", "8", "4294967295"][rng.below(4)],
        ["greedy", "fifo", "cost_benefit"][rng.below(3)],
    )
}

#[test]
fn generated_device_profiles_never_panic() {
    let mut rng = Rng(base_seed() ^ 0x5eed);
    let mut failures = Vec::new();
    for i in 0..iterations() * 4 {
        let text = generated_profile(&mut rng);
        if catch_unwind(AssertUnwindSafe(|| {
            profile_target(text.as_bytes(), "generated")
        }))
        .is_err()
        {
            failures.push(format!("generated profile {i}: panic on\n{text}"));
            if failures.len() >= 3 {
                break;
            }
        }
    }
    assert_clean(failures);
}

/// Found by `generated_device_profiles_never_panic`: 65536^4 planes wrapped
/// the unit count to 0 and the spare-block check divided by it.
#[test]
fn regression_plane_count_overflow_is_an_error() {
    let text = PROFILE.replace(
        "      channels: 1\n      ways_per_channel: 1\n",
        "      channels: 65536\n      ways_per_channel: 65536\n      dies_per_way: 65536\n      planes_per_die: 65536\n",
    );
    let cfg = FtlConfig::from_profile_str(&text, Path::new("p.yaml")).unwrap();
    let err = Geometry::new(&cfg).unwrap_err().to_string();
    assert!(err.contains("planes"), "{err}");
    assert!(Ftl::new(&cfg).is_err());
}
