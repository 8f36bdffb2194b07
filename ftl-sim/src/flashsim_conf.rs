//! Import of a FlashSim `ssd.conf` (lines `KEY value`, `#` comments) into an
//! [`FtlConfig`]. FlashSim's delays are taken as microseconds, its
//! `BUS_DATA_DELAY` as the time to move one page over a package's bus, and
//! each package (`SSD_SIZE` of them) as one channel with one way.

use crate::config::{
    Allocation, CacheConfig, CacheMode, FtlConfig, GcConfig, GeometryConfig, TimingConfig,
};
use crate::error::{Error, Location, Result};
use std::collections::HashMap;
use std::path::Path;

/// Keys FlashSim knows that have no counterpart here; they are accepted and ignored.
const IGNORED: &[&str] = &[
    "RAM_READ_DELAY",
    "RAM_WRITE_DELAY",
    "BUS_MAX_CONNECT",
    "BUS_TABLE_SIZE",
    "PLANE_REG_READ_DELAY",
    "PLANE_REG_WRITE_DELAY",
    "BLOCK_ERASES",
    "PAGE_ENABLE_DATA",
    "MAP_DIRECTORY_SIZE",
    "BAST_LOG_PAGE_LIMIT",
    "FAST_LOG_PAGE_LIMIT",
];

/// The result of an import: the model and the keys that were not understood.
pub struct Imported {
    pub config: FtlConfig,
    pub unknown_keys: Vec<String>,
}

/// Read and convert `ssd.conf`; `over_provisioning` is not part of FlashSim's
/// file unless it has an `OVERPROVISIONING` key (a percentage), so the caller
/// supplies the default.
pub fn import(path: &Path, over_provisioning: f64) -> Result<Imported> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    import_str(&text, path, over_provisioning)
}

pub fn import_str(text: &str, path: &Path, over_provisioning: f64) -> Result<Imported> {
    let (values, unknown_keys) = parse_pairs(text, path)?;
    let get = |key: &str, default: f64| values.get(key).map(|(v, _)| *v).unwrap_or(default);
    let int = |key: &str, default: u32| -> Result<u32> {
        let v = get(key, f64::from(default));
        if v.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&v) {
            let line = values.get(key).map(|(_, l)| *l).unwrap_or(0);
            return Err(Error::parse(
                path,
                Location::Line(line),
                format!("{key} must be a whole number"),
            ));
        }
        Ok(v as u32)
    };
    let page_size = int("PAGE_SIZE", 4096)?;
    let geometry = GeometryConfig {
        channels: int("SSD_SIZE", 4)?,
        ways_per_channel: 1,
        dies_per_way: int("PACKAGE_SIZE", 8)?,
        planes_per_die: int("DIE_SIZE", 2)?,
        blocks_per_plane: int("PLANE_SIZE", 64)?,
        pages_per_block: int("BLOCK_SIZE", 16)?,
        page_size,
    };
    let bus_page_us = get("BUS_DATA_DELAY", 0.0);
    let timing = TimingConfig {
        page_read_us: get("PAGE_READ_DELAY", 25.0),
        page_program_us: get("PAGE_WRITE_DELAY", 200.0),
        block_erase_us: get("BLOCK_ERASE_DELAY", 1500.0),
        channel_mb_per_s: if bus_page_us > 0.0 {
            f64::from(page_size) / bus_page_us
        } else {
            1.0e9
        },
        host_mb_per_s: 1.0e9,
        command_overhead_us: get("BUS_CTRL_DELAY", 0.0),
        copyback: true,
    };
    let op = match values.get("OVERPROVISIONING") {
        Some((v, _)) => v / 100.0,
        None => over_provisioning,
    };
    let cache = cache_for(&values, path, &geometry, op)?;
    let config = FtlConfig {
        geometry,
        over_provisioning: op,
        timing,
        cache,
        gc: GcConfig::default(),
        allocation: Allocation::RoundRobin,
    };
    config
        .validate()
        .map_err(|(field, msg)| Error::parse(path, Location::Field(field), msg))?;
    Ok(Imported {
        config,
        unknown_keys,
    })
}

type Pairs = HashMap<String, (f64, u64)>;

fn parse_pairs(text: &str, path: &Path) -> Result<(Pairs, Vec<String>)> {
    let mut values = HashMap::new();
    let mut unknown = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split_whitespace();
        let (Some(key), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(Error::parse(
                path,
                Location::Line(line_no),
                format!("expected `KEY value`, found {raw:?}"),
            ));
        };
        let v: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| {
                Error::parse(
                    path,
                    Location::Line(line_no),
                    format!("{key}: {value:?} is not a number"),
                )
            })?;
        if IGNORED.contains(&key) {
            continue;
        }
        if !KNOWN.contains(&key) {
            unknown.push(key.to_string());
            continue;
        }
        values.insert(key.to_string(), (v, line_no));
    }
    Ok((values, unknown))
}

const KNOWN: &[&str] = &[
    "SSD_SIZE",
    "PACKAGE_SIZE",
    "DIE_SIZE",
    "PLANE_SIZE",
    "BLOCK_SIZE",
    "PAGE_SIZE",
    "PAGE_READ_DELAY",
    "PAGE_WRITE_DELAY",
    "BLOCK_ERASE_DELAY",
    "BUS_DATA_DELAY",
    "BUS_CTRL_DELAY",
    "FTL_IMPLEMENTATION",
    "CACHE_DFTL_LIMIT",
    "OVERPROVISIONING",
];

/// FlashSim's FTL choice: 0 page mapping (whole map in RAM), 3 DFTL and
/// 4 its bimodal variant (both entry-granular map caches). The hybrid
/// block-mapping FTLs (1 BAST, 2 FAST) are not modelled.
fn cache_for(values: &Pairs, path: &Path, g: &GeometryConfig, op: f64) -> Result<CacheConfig> {
    let (ftl, line) = values
        .get("FTL_IMPLEMENTATION")
        .copied()
        .unwrap_or((3.0, 0));
    let entry_bytes = 4u32;
    match ftl as i64 {
        0 => {
            let physical = u64::from(g.channels)
                * u64::from(g.dies_per_way)
                * u64::from(g.planes_per_die)
                * u64::from(g.blocks_per_plane)
                * u64::from(g.pages_per_block);
            let logical = (physical as f64 / (1.0 + op)).floor() as u64;
            Ok(CacheConfig {
                mode: CacheMode::Entry,
                bytes: logical.max(1) * u64::from(entry_bytes),
                entry_bytes,
            })
        }
        3 | 4 => {
            let limit = values
                .get("CACHE_DFTL_LIMIT")
                .map(|(v, _)| *v)
                .unwrap_or(1.0);
            Ok(CacheConfig {
                mode: CacheMode::Entry,
                bytes: (limit.max(1.0) as u64) * u64::from(entry_bytes),
                entry_bytes,
            })
        }
        other => Err(Error::parse(
            path,
            Location::Line(line),
            format!(
                "FTL_IMPLEMENTATION {other}: only page mapping (0) and DFTL (3, 4) are modelled"
            ),
        )),
    }
}
