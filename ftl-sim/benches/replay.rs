//! Benchmarks (run with `cargo bench --bench replay`; numbers go in README.md):
//!
//! 1. replay speed: 10 M requests — 5 M random 4 KiB writes then 5 M random
//!    4 KiB reads over the whole 32 GiB logical space of the eMMC profile,
//!    preconditioned full so GC runs from the first write;
//! 2. memory: simulator state per physical flash page, beyond the map cache;
//! 3. blktrace binary parsing throughput.
//!
//! Environment: FTL_BENCH_REQUESTS (default 10000000), FTL_BENCH_PARSE_MB
//! (default 600), FTL_BENCH_CACHE_MODE (tpage|entry, default tpage).

use ftl_sim::config::{CacheMode, FtlConfig};
use ftl_sim::replay::{replay, ReplayOptions};
use ftl_sim::synth;
use ftl_sim::trace::blktrace::{BlktraceReader, Endian};
use ftl_sim::trace::{Event, RequestSource, VecSource};
use ftl_sim::Ftl;
use std::path::Path;
use std::time::Instant;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn bench_replay() {
    let profile = Path::new(env!("CARGO_MANIFEST_DIR")).join("../devices/emulator-emmc.yaml");
    let mut cfg = FtlConfig::from_profile(&profile).expect("device profile");
    if std::env::var("FTL_BENCH_CACHE_MODE").as_deref() == Ok("entry") {
        cfg.cache.mode = CacheMode::Entry;
    }
    let total = env_u64("FTL_BENCH_REQUESTS", 10_000_000);
    let t0 = Instant::now();
    let mut ftl = Ftl::new(&cfg).expect("model");
    ftl.precondition_sequential(1.0).expect("fill");
    let setup = t0.elapsed();
    let geo = ftl.geometry().clone();
    let reqs = synth::write_then_read(
        total / 2,
        total - total / 2,
        geo.logical_pages,
        geo.sectors_per_page(),
        42,
    );
    let mut src = VecSource::new(reqs);
    let t1 = Instant::now();
    let report = replay(&mut ftl, &mut src, ReplayOptions::default(), None).expect("replay");
    let secs = t1.elapsed().as_secs_f64();
    let c = &ftl.counters;
    let mem = ftl.memory_bytes_without_cache();
    println!("== replay: {} requests, 4 KiB random writes then reads over {:.2} GiB logical ({:?} cache, {} B)",
        report.requests,
        (geo.logical_pages * u64::from(geo.page_size)) as f64 / (1u64 << 30) as f64,
        cfg.cache.mode, cfg.cache.bytes);
    println!(
        "setup (format + sequential fill of {} pages): {:.2} s",
        geo.logical_pages,
        setup.as_secs_f64()
    );
    println!(
        "replay: {:.3} s = {:.2} M requests/s",
        secs,
        report.requests as f64 / secs / 1e6
    );
    println!(
        "gc: {} victims, {} data copies, {} erases; waf {:.3} (data {:.3}); map-cache hit ratio {:.4}",
        c.foreground_gc + c.background_gc,
        c.gc_data_copies,
        c.erases,
        c.total_programs() as f64 / c.host_page_programs as f64,
        (c.host_page_programs + c.gc_data_copies) as f64 / c.host_page_programs as f64,
        ftl.cache().stats.hits as f64 / (ftl.cache().stats.hits + ftl.cache().stats.misses) as f64
    );
    println!(
        "memory: {} B of state beyond the cache = {:.2} B per physical page ({} pages); cache model {} B; RSS {} MiB",
        mem,
        mem as f64 / geo.physical_pages as f64,
        geo.physical_pages,
        ftl.cache_memory_bytes(),
        rss_kib() / 1024
    );
}

fn bench_parse() {
    let mb = env_u64("FTL_BENCH_PARSE_MB", 600);
    let records = mb * 1_000_000 / 48;
    let reqs = synth::write_then_read(records / 6, records / 6, 1 << 20, 8, 7);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-blktrace");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut paths = Vec::new();
    for (cpu, chunk) in reqs.chunks(reqs.len().div_ceil(2)).enumerate() {
        let mut timed: Vec<_> = chunk.to_vec();
        for (i, r) in timed.iter_mut().enumerate() {
            r.time_ns = i as u64 * 100_000 + cpu as u64;
        }
        let mut buf = Vec::with_capacity(timed.len() * 3 * 48);
        synth::blktrace_records(&timed, cpu as u32, Endian::Little, &mut buf);
        let p = dir.join(format!("bench.blktrace.{cpu}"));
        std::fs::write(&p, &buf).expect("write");
        paths.push(p);
    }
    let bytes: u64 = paths
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    for round in 0..2 {
        let t = Instant::now();
        let mut reader = BlktraceReader::open(&paths, Event::Issue).expect("open");
        let mut n = 0u64;
        let mut checksum = 0u64;
        while let Some(r) = reader.next_request() {
            let r = r.expect("record");
            n += 1;
            checksum = checksum.wrapping_add(r.req.sector);
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "== blktrace parse (round {round}): {:.0} MB in 2 per-CPU files, {} records, {} issue requests, {:.3} s = {:.0} MB/s (checksum {checksum})",
            bytes as f64 / 1e6,
            reader.records(),
            n,
            secs,
            bytes as f64 / 1e6 / secs
        );
    }
    for p in paths {
        let _ = std::fs::remove_file(p);
    }
}

fn main() {
    let which = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    match which.as_deref() {
        Some("parse") => bench_parse(),
        Some("replay") => bench_replay(),
        _ => {
            bench_replay();
            bench_parse();
        }
    }
}
