#![allow(dead_code)]
//! Shared helpers for the integration tests.

use ftl_sim::config::{CacheMode, FtlConfig};
use ftl_sim::replay::{replay, Arrivals, ReplayOptions};
use ftl_sim::trace::VecSource;
use ftl_sim::{Ftl, Request};
use std::path::{Path, PathBuf};

/// A test's scratch folder in the system's temp folder, removed when dropped, so a
/// test run leaves nothing behind there.
pub struct Scratch(PathBuf);

impl Scratch {
    /// An empty folder `ftl-sim-<tag>-<pid>`.
    pub fn new(tag: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("ftl-sim-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn emmc() -> FtlConfig {
    FtlConfig::from_profile(&repo().join("devices/emulator-emmc.yaml")).expect("eMMC profile")
}

/// A small device: `units` planes of `blocks` blocks of `ppb` 4 KiB pages.
pub fn small(
    units: u32,
    blocks: u32,
    ppb: u32,
    op: f64,
    mode: CacheMode,
    cache_bytes: u64,
) -> FtlConfig {
    let yaml = format!(
        "geometry: {{channels: {units}, ways_per_channel: 1, blocks_per_plane: {blocks}, pages_per_block: {ppb}}}\n\
         over_provisioning: {op}\n\
         timing: {{page_read_us: 50, page_program_us: 500, block_erase_us: 3000, channel_mb_per_s: 200, host_mb_per_s: 400}}\n\
         cache: {{mode: {}, bytes: {cache_bytes}}}\n",
        match mode {
            CacheMode::Tpage => "tpage",
            CacheMode::Entry => "entry",
            CacheMode::Whole => "whole",
        }
    );
    FtlConfig::from_ftl_yaml(&yaml, Path::new("<test>")).expect("test config")
}

/// Replay requests back to back (closed loop, queue depth 1).
pub fn run_closed(ftl: &mut Ftl, reqs: Vec<Request>) {
    let opts = ReplayOptions {
        arrivals: Arrivals::Closed,
        queue_depth: 1,
        ..ReplayOptions::default()
    };
    replay(ftl, &mut VecSource::new(reqs), opts, None).expect("replay");
}

/// Total device time of the measured requests (sum of latencies), µs.
pub fn total_us(ftl: &Ftl) -> f64 {
    ftl.requests.sum_latency() as f64 / 1000.0
}
