//! Synthetic workloads (benchmarks, tests, the `gen` subcommand) and writers
//! of the CSV and blktrace formats.

use crate::request::{Op, Request};
use crate::rng::SplitMix64;
use crate::trace::blktrace::{self, Endian, Record};
use std::io::Write;

/// `count` requests of `op`, each `size_sectors` long at a uniformly random
/// aligned offset within the first `region_sectors`, `gap_ns` apart.
pub fn random_in_region(
    op: Op,
    count: u64,
    region_sectors: u64,
    size_sectors: u64,
    gap_ns: u64,
    rng: &mut SplitMix64,
) -> Vec<Request> {
    let slots = (region_sectors / size_sectors.max(1)).max(1);
    (0..count)
        .map(|i| {
            Request::new(
                i * gap_ns,
                op,
                rng.below(slots) * size_sectors,
                size_sectors,
            )
        })
        .collect()
}

/// The benchmark workload: `writes` random page writes then `reads` random
/// page reads over the first `span_pages` pages.
pub fn write_then_read(
    writes: u64,
    reads: u64,
    span_pages: u64,
    page_sectors: u64,
    seed: u64,
) -> Vec<Request> {
    let mut rng = SplitMix64::new(seed);
    let region = span_pages * page_sectors;
    let mut v = random_in_region(Op::Write, writes, region, page_sectors, 0, &mut rng);
    v.extend(random_in_region(
        Op::Read,
        reads,
        region,
        page_sectors,
        0,
        &mut rng,
    ));
    v
}

pub fn write_csv(reqs: &[Request], out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "time_ns,op,sector,sectors,dst_sector")?;
    for r in reqs {
        if r.op == Op::Remap {
            writeln!(
                out,
                "{},{},{},{},{}",
                r.time_ns,
                r.op.name(),
                r.sector,
                r.sectors,
                r.dst_sector
            )?;
        } else {
            writeln!(
                out,
                "{},{},{},{}",
                r.time_ns,
                r.op.name(),
                r.sector,
                r.sectors
            )?;
        }
    }
    Ok(())
}

/// blktrace category bits of an op.
fn categories(op: Op) -> u32 {
    match op {
        Op::Read => blktrace::TC_READ,
        Op::Write => blktrace::TC_WRITE,
        Op::Trim => blktrace::TC_WRITE | blktrace::TC_DISCARD,
        Op::Flush => blktrace::TC_FLUSH,
        Op::Remap => 0,
    }
}

/// Binary blktrace records as the kernel would log them for each request:
/// a queue (Q), an issue (D) and a completion (C) event. Remaps are skipped.
pub fn blktrace_records(reqs: &[Request], cpu: u32, e: Endian, out: &mut Vec<u8>) {
    let mut seq = 0;
    for r in reqs.iter().filter(|r| r.op != Op::Remap) {
        for (code, dt) in [
            (blktrace::TA_QUEUE, 0),
            (blktrace::TA_ISSUE, 1_000),
            (blktrace::TA_COMPLETE, 50_000),
        ] {
            seq += 1;
            let rec = Record {
                sequence: seq,
                time: r.time_ns + dt,
                sector: r.sector,
                bytes: (r.sectors * 512) as u32,
                action: (categories(r.op) << 16) | code,
                pid: 4242,
                device: (8 << 20) | 16,
                cpu,
                error: 0,
                pdu_len: 0,
            };
            blktrace::encode(&rec, e, out);
        }
    }
}
