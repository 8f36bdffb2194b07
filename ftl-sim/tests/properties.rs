//! Property tests (bounded; the long fuzzing runs are separate, see README):
//! random request mixes keep the FTL consistent, and no parser panics on
//! arbitrary input.

mod common;

use common::small;
use ftl_sim::config::{CacheMode, VictimPolicy};
use ftl_sim::trace::{self, Event, Format, ReadOptions};
use ftl_sim::{Ftl, Op, Request};
use proptest::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

fn op_strategy() -> impl Strategy<Value = (u8, u64, u64, u64)> {
    (0u8..6, 0u64..2000, 1u64..64, 0u64..2000)
}

fn to_request(i: usize, (kind, a, len, b): (u8, u64, u64, u64), sectors: u64) -> Request {
    let t = i as u64 * 1000;
    let a = a * 8 % sectors;
    let len = len.min(sectors - a);
    match kind {
        0 | 1 => Request::new(t, Op::Write, a, len),
        2 => Request::new(t, Op::Read, a, len),
        3 => Request::new(t, Op::Trim, a, len),
        4 => Request::new(t, Op::Flush, 0, 0),
        _ => {
            let pages = (len / 8).max(1);
            let dst = b * 8 % (sectors - pages * 8);
            Request::remap(t, a.min(sectors - pages * 8) / 8 * 8, dst, pages * 8)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_workloads_keep_the_mapping_consistent(
        ops in proptest::collection::vec(op_strategy(), 1..400),
        entry in any::<bool>(),
        policy in 0u8..3,
        cache_kib in 1u64..16,
    ) {
        let mode = if entry { CacheMode::Entry } else { CacheMode::Tpage };
        let mut cfg = small(2, 24, 16, 0.5, mode, cache_kib * 4096);
        cfg.gc.policy = [VictimPolicy::Greedy, VictimPolicy::Fifo, VictimPolicy::CostBenefit][policy as usize];
        let mut ftl = Ftl::new(&cfg).unwrap();
        let sectors = ftl.geometry().logical_sectors();
        let mut last = 0;
        for (i, o) in ops.into_iter().enumerate() {
            let req = to_request(i, o, sectors);
            let done = ftl.submit(&req, req.time_ns).unwrap();
            prop_assert!(done >= req.time_ns);
            last = last.max(done);
        }
        ftl.drain_map_cache(last).unwrap();
        prop_assert_eq!(ftl.check_invariants(), Ok(()));
    }

    #[test]
    fn text_parsers_never_panic(text in "(?s).{0,400}") {
        for format in [Format::Csv, Format::Mqsim, Format::Uflip, Format::Blkparse] {
            let _ = parse_all(format, text.as_bytes());
        }
    }

    #[test]
    fn blktrace_parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600), magic in any::<bool>()) {
        let mut b = bytes;
        if magic && b.len() >= 4 {
            b[..4].copy_from_slice(&0x6561_7407u32.to_le_bytes());
        }
        let _ = parse_all(Format::Blktrace, &b);
    }
}

fn parse_all(format: Format, bytes: &[u8]) -> usize {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let p = std::env::temp_dir().join(format!(
        "ftl-sim-prop-{}-{}.blktrace.0",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&p, bytes).unwrap();
    let opts = ReadOptions {
        event: Event::Issue,
        uflip_page_sectors: 8,
    };
    let mut n = 0;
    if let Ok(mut src) = trace::open(format, std::slice::from_ref(&p), opts) {
        while let Some(r) = src.next_request() {
            if r.is_err() {
                break;
            }
            n += 1;
        }
    }
    let _ = std::fs::remove_file(&p);
    n
}
