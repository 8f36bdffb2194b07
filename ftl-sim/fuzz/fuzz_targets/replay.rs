//! Arbitrary CSV traces (with remaps) replayed through a tiny device in both
//! cache modes, then an arbitrary extent table for DoP: errors are fine,
//! panics are not, and the FTL's invariants must hold afterwards.
#![no_main]

use ftl_sim::config::FtlConfig;
use ftl_sim::replay::{replay, Arrivals, ReplayOptions};
use ftl_sim::trace::csv::CsvReader;
use ftl_sim::Ftl;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

const DEVICE: &str = "geometry: {channels: 2, ways_per_channel: 1, blocks_per_plane: 24, pages_per_block: 16}\n\
over_provisioning: 0.5\n\
timing: {page_read_us: 50, page_program_us: 500, block_erase_us: 3000, channel_mb_per_s: 200, host_mb_per_s: 400}\n";

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let split = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    let (trace, extents) = rest.split_at(split);
    let dir = std::env::temp_dir();
    let tp = dir.join(format!("ftl-sim-fuzz-replay-{}.csv", std::process::id()));
    let ep = dir.join(format!("ftl-sim-fuzz-extents-{}.tsv", std::process::id()));
    if std::fs::write(&tp, trace).is_err() || std::fs::write(&ep, extents).is_err() {
        return;
    }
    let mode = if flags & 1 == 0 { "tpage" } else { "entry" };
    let yaml = format!(
        "{DEVICE}cache: {{mode: {mode}, bytes: {}}}\n",
        4096 * (1 + u64::from(flags >> 4))
    );
    let cfg = FtlConfig::from_ftl_yaml(&yaml, Path::new("fuzz")).expect("valid device");
    let mut ftl = Ftl::new(&cfg).expect("device");
    let Ok(mut src) = CsvReader::open(std::slice::from_ref(&tp)) else {
        return;
    };
    let opts = ReplayOptions {
        arrivals: if flags & 2 == 0 {
            Arrivals::Trace
        } else {
            Arrivals::Closed
        },
        queue_depth: usize::from((flags >> 2) & 3),
        ..ReplayOptions::default()
    };
    let _ = replay(&mut ftl, &mut src, opts, None);
    assert_eq!(ftl.check_invariants(), Ok(()));
    if let Ok(mut files) = ftl_sim::dop::read_extents(&ep, 1 + u64::from(flags >> 6)) {
        let _ = ftl_sim::dop::all_files(&ftl, &mut files, 0);
    }
});
