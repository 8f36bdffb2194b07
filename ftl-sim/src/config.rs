//! The device model: the `storage.ftl` section of a mobifrag device profile
//! (YAML), or a FlashSim `ssd.conf` imported into the same structure.

use crate::error::{Error, Location, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Everything ftl-sim needs to know about a device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    pub geometry: GeometryConfig,
    /// Spare capacity as a fraction of the user (logical) capacity:
    /// (physical - logical) / logical.
    #[serde(default = "default_op")]
    pub over_provisioning: f64,
    pub timing: TimingConfig,
    #[serde(default)]
    pub cache: CacheConfig,
    #[serde(default)]
    pub gc: GcConfig,
    #[serde(default)]
    pub allocation: Allocation,
    /// Pages the controller's write buffer holds (allocation `buffered`).
    #[serde(default = "default_write_buffer_pages")]
    pub write_buffer_pages: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometryConfig {
    pub channels: u32,
    pub ways_per_channel: u32,
    #[serde(default = "one")]
    pub dies_per_way: u32,
    #[serde(default = "one")]
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    #[serde(default = "default_page_size")]
    pub page_size: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingConfig {
    pub page_read_us: f64,
    pub page_program_us: f64,
    pub block_erase_us: f64,
    /// Per-channel flash bus bandwidth, MB/s (10^6 bytes per second).
    pub channel_mb_per_s: f64,
    /// Host interface bandwidth, MB/s, shared by all requests.
    pub host_mb_per_s: f64,
    /// Fixed controller cost per request (command decode, completion).
    #[serde(default)]
    pub command_overhead_us: f64,
    /// GC copies stay inside the plane (copy-back) and do not use the channel.
    #[serde(default = "yes")]
    pub copyback: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CacheMode {
    /// Fetch and replace whole translation pages, LRU (TMC §5.3.3, after CFTL).
    #[default]
    Tpage,
    /// DFTL: individual entries, LRU, dirty entries written back in batches
    /// of one translation page.
    Entry,
    /// The whole map in controller RAM (FlashSim's page-mapping FTL): every
    /// lookup hits, no translation page is ever read or written, and none is
    /// stored on flash.
    Whole,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    #[serde(default)]
    pub mode: CacheMode,
    /// Mapping-cache capacity in bytes.
    #[serde(default = "default_cache_bytes")]
    pub bytes: u64,
    /// Size of one mapping entry in bytes.
    #[serde(default = "default_entry_bytes")]
    pub entry_bytes: u32,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            mode: CacheMode::Tpage,
            bytes: default_cache_bytes(),
            entry_bytes: default_entry_bytes(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum VictimPolicy {
    #[default]
    Greedy,
    CostBenefit,
    Fifo,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GcConfig {
    #[serde(default)]
    pub policy: VictimPolicy,
    /// Foreground GC runs in a plane while it has fewer free blocks than this.
    #[serde(default = "default_low")]
    pub low_watermark: u32,
    /// Background GC refills a plane up to this many free blocks when idle.
    #[serde(default = "default_high")]
    pub high_watermark: u32,
    #[serde(default = "yes")]
    pub background: bool,
    /// A plane must have been idle this long before background GC starts.
    #[serde(default = "default_idle_us")]
    pub idle_us: f64,
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig {
            policy: VictimPolicy::Greedy,
            low_watermark: default_low(),
            high_watermark: default_high(),
            background: true,
            idle_us: default_idle_us(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Allocation {
    /// Each written page goes to the next plane in turn (dynamic striping).
    #[default]
    RoundRobin,
    /// Logical page n always goes to plane n mod planes (static striping).
    Static,
    /// Pages leave a write buffer in logical order: a page that continues a
    /// logical run still in the buffer takes the plane after its
    /// predecessor's, any other page the next plane in turn.
    Buffered,
}

fn one() -> u32 {
    1
}
fn yes() -> bool {
    true
}
fn default_op() -> f64 {
    0.07
}
fn default_page_size() -> u32 {
    4096
}
fn default_write_buffer_pages() -> u32 {
    128
}
fn default_cache_bytes() -> u64 {
    128 * 1024
}
fn default_entry_bytes() -> u32 {
    4
}
fn default_low() -> u32 {
    2
}
fn default_high() -> u32 {
    4
}
fn default_idle_us() -> f64 {
    1000.0
}

impl FtlConfig {
    /// Check the values one by one; the error names the offending field.
    pub fn validate(&self) -> std::result::Result<(), (String, String)> {
        let g = &self.geometry;
        let positive = [
            ("geometry.channels", g.channels),
            ("geometry.ways_per_channel", g.ways_per_channel),
            ("geometry.dies_per_way", g.dies_per_way),
            ("geometry.planes_per_die", g.planes_per_die),
            ("geometry.blocks_per_plane", g.blocks_per_plane),
            ("geometry.pages_per_block", g.pages_per_block),
        ];
        for (name, v) in positive {
            if v == 0 {
                return Err((name.into(), "must be at least 1".into()));
            }
        }
        if g.pages_per_block > 65535 {
            return Err((
                "geometry.pages_per_block".into(),
                "must be at most 65535".into(),
            ));
        }
        if g.page_size < 512 || !g.page_size.is_power_of_two() {
            return Err((
                "geometry.page_size".into(),
                "must be a power of two of at least 512 bytes".into(),
            ));
        }
        if !(self.over_provisioning > 0.0 && self.over_provisioning <= 10.0) {
            return Err(("over_provisioning".into(), "must be in (0, 10]".into()));
        }
        let t = &self.timing;
        for (name, v) in [
            ("timing.page_read_us", t.page_read_us),
            ("timing.page_program_us", t.page_program_us),
            ("timing.block_erase_us", t.block_erase_us),
            ("timing.command_overhead_us", t.command_overhead_us),
        ] {
            if !(v.is_finite() && (0.0..=1.0e7).contains(&v)) {
                return Err((
                    name.into(),
                    "must be a number from 0 to 1e7 (microseconds)".into(),
                ));
            }
        }
        for (name, v) in [
            ("timing.channel_mb_per_s", t.channel_mb_per_s),
            ("timing.host_mb_per_s", t.host_mb_per_s),
        ] {
            if !(v.is_finite() && (0.001..=1.0e9).contains(&v)) {
                return Err((
                    name.into(),
                    "must be a number from 0.001 to 1e9 (MB/s)".into(),
                ));
            }
        }
        let c = &self.cache;
        // A translation page holds page_size / entry_bytes entries (rounded down:
        // FlashSim's DFTL packs 3-byte entries, 1,365 to a 4 KiB page).
        if c.entry_bytes == 0 || c.entry_bytes > g.page_size {
            return Err((
                "cache.entry_bytes".into(),
                "must be from 1 to the page size".into(),
            ));
        }
        let min_cache = match c.mode {
            CacheMode::Tpage => u64::from(g.page_size),
            CacheMode::Entry => u64::from(c.entry_bytes),
            CacheMode::Whole => 0,
        };
        if c.bytes < min_cache {
            return Err((
                "cache.bytes".into(),
                format!(
                    "must hold at least one {} ({min_cache} bytes)",
                    mode_unit(c.mode)
                ),
            ));
        }
        let gc = &self.gc;
        if gc.low_watermark < 2 {
            return Err(("gc.low_watermark".into(), "must be at least 2".into()));
        }
        if gc.high_watermark < gc.low_watermark {
            return Err((
                "gc.high_watermark".into(),
                "must be at least gc.low_watermark".into(),
            ));
        }
        if !(gc.idle_us.is_finite() && (0.0..=1.0e9).contains(&gc.idle_us)) {
            return Err((
                "gc.idle_us".into(),
                "must be a number from 0 to 1e9 (microseconds)".into(),
            ));
        }
        if !(1..=65536).contains(&self.write_buffer_pages) {
            return Err((
                "write_buffer_pages".into(),
                "must be from 1 to 65536".into(),
            ));
        }
        Ok(())
    }

    /// Read `storage.ftl` from a mobifrag device profile.
    pub fn from_profile(path: &Path) -> Result<Self> {
        let text = crate::text::read_text(path)?;
        Self::from_profile_str(&text, path)
    }

    /// Parse a device profile's text; `path` is used in error messages only.
    pub fn from_profile_str(text: &str, path: &Path) -> Result<Self> {
        let doc: serde_yaml::Value =
            serde_yaml::from_str(text).map_err(|e| yaml_error(path, &e))?;
        let ftl = doc
            .get("storage")
            .and_then(|s| s.get("ftl"))
            .ok_or_else(|| {
                Error::parse(
                    path,
                    Location::Field("storage.ftl".into()),
                    "the device profile has no storage.ftl section",
                )
            })?
            .clone();
        let cfg: FtlConfig = serde_yaml::from_value(ftl).map_err(|e| {
            Error::parse(path, Location::Field("storage.ftl".into()), e.to_string())
        })?;
        cfg.validate().map_err(|(field, msg)| {
            Error::parse(path, Location::Field(format!("storage.ftl.{field}")), msg)
        })?;
        Ok(cfg)
    }

    /// Parse a bare `ftl:` mapping (the section's own YAML), e.g. from tests.
    pub fn from_ftl_yaml(text: &str, path: &Path) -> Result<Self> {
        let cfg: FtlConfig = serde_yaml::from_str(text).map_err(|e| yaml_error(path, &e))?;
        cfg.validate()
            .map_err(|(field, msg)| Error::parse(path, Location::Field(field), msg))?;
        Ok(cfg)
    }
}

fn mode_unit(mode: CacheMode) -> &'static str {
    match mode {
        CacheMode::Tpage => "translation page",
        CacheMode::Entry => "entry",
        CacheMode::Whole => "map",
    }
}

fn yaml_error(path: &Path, e: &serde_yaml::Error) -> Error {
    let at = match e.location() {
        Some(l) => Location::Line(l.line() as u64),
        None => Location::File,
    };
    Error::parse(path, at, e.to_string())
}
