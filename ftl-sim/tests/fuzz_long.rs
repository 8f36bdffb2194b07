//! Long proptest-based fuzzing for machines without cargo-fuzz/nightly.
//! Ignored by default; run with
//!   FTL_FUZZ_CASES=2000000 cargo test --release --test fuzz_long -- --ignored
//! (the cargo-fuzz target in fuzz/ is the primary fuzzer; see README.md).

mod common;

use common::small;
use ftl_sim::config::CacheMode;
use ftl_sim::trace::{self, Event, Format, ReadOptions};
use ftl_sim::{Ftl, Op, Request};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn cases() -> u32 {
    std::env::var("FTL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000)
}

fn parse(format: Format, bytes: &[u8], tag: usize) {
    let p = std::env::temp_dir().join(format!(
        "ftl-sim-fuzzlong-{}-{tag}.blktrace.0",
        std::process::id()
    ));
    std::fs::write(&p, bytes).unwrap();
    let opts = ReadOptions {
        event: Event::Issue,
        uflip_page_sectors: 8,
    };
    if let Ok(mut src) = trace::open(format, std::slice::from_ref(&p), opts) {
        while let Some(r) = src.next_request() {
            if r.is_err() {
                break;
            }
        }
    }
    let _ = ftl_sim::dop::read_extents(&p, 1);
    let _ = std::fs::remove_file(&p);
}

#[test]
#[ignore]
fn fuzz_parsers_for_a_long_time() {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &(0usize..5, proptest::collection::vec(any::<u8>(), 0..2048)),
            |(f, bytes)| {
                let format = [
                    Format::Blktrace,
                    Format::Blkparse,
                    Format::Mqsim,
                    Format::Uflip,
                    Format::Csv,
                ][f];
                let mut b = bytes;
                if f == 0 && b.len() >= 4 {
                    b[..4].copy_from_slice(&0x6561_7407u32.to_le_bytes());
                }
                parse(format, &b, f);
                Ok(())
            },
        )
        .unwrap();
}

#[test]
#[ignore]
fn fuzz_ftl_workloads_for_a_long_time() {
    let mut runner = TestRunner::new(Config {
        cases: cases() / 100,
        failure_persistence: None,
        ..Config::default()
    });
    let ops = proptest::collection::vec((0u8..6, 0u64..4000, 1u64..128, 0u64..4000), 1..2000);
    runner
        .run(&(ops, any::<bool>()), |(ops, entry)| {
            let mode = if entry {
                CacheMode::Entry
            } else {
                CacheMode::Tpage
            };
            let mut ftl = Ftl::new(&small(2, 32, 16, 0.4, mode, 8192)).unwrap();
            let sectors = ftl.geometry().logical_sectors();
            for (i, (k, a, len, b)) in ops.into_iter().enumerate() {
                let a = a * 8 % sectors;
                let len = len.min(sectors - a);
                let req = match k {
                    0 | 1 => Request::new(i as u64, Op::Write, a, len),
                    2 => Request::new(i as u64, Op::Read, a, len),
                    3 => Request::new(i as u64, Op::Trim, a, len),
                    4 => Request::new(i as u64, Op::Flush, 0, 0),
                    _ => Request::remap(
                        i as u64,
                        a / 8 * 8 % (sectors - 64),
                        b * 8 % (sectors - 64),
                        64,
                    ),
                };
                ftl.submit(&req, req.time_ns).unwrap();
            }
            prop_assert_eq!(ftl.check_invariants(), Ok(()));
            Ok(())
        })
        .unwrap();
}
