//! Import of a FlashSim `ssd.conf` (lines `KEY value`, `#` comments) into an
//! [`FtlConfig`]. FlashSim's delays are taken as microseconds, its
//! `BUS_DATA_DELAY` as the time to move one page over a package's bus, and
//! each package (`SSD_SIZE` of them) as one channel with one way.
//!
//! The map cache follows FlashSim's DFTL (`FTLs/dftl_parent.cpp`):
//! `CACHE_DFTL_LIMIT` counts *translation pages*, and the cached mapping table
//! holds that many pages' worth of single entries. A mapping entry takes
//! `ceil(floor(log2(pages)) / 8)` bytes, where `pages` is the device's page
//! count, and a translation page holds `floor(PAGE_SIZE / entry bytes)` of them
//! (1,365 at 4 KiB for a device of 2^17 to 2^24 pages).

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
    "BAST_LOG_BLOCK_LIMIT",
    "FAST_LOG_BLOCK_LIMIT",
    "PARALLELISM_MODE",
    "VIRTUAL_BLOCK_SIZE",
    "RAID_NUMBER_OF_PHYSICAL_SSDS",
];

/// FlashSim's `CACHE_DFTL_LIMIT` when the file does not set it (ssd_config.cpp).
const DEFAULT_CACHE_DFTL_LIMIT: u32 = 8;

/// The result of an import: the model and the keys that were not understood,
/// each with its line.
pub struct Imported {
    pub config: FtlConfig,
    pub unknown_keys: Vec<(String, u64)>,
}

/// Read and convert `ssd.conf`; `over_provisioning` is not part of FlashSim's
/// file unless it has an `OVERPROVISIONING` key (a percentage), so the caller
/// supplies the default.
pub fn import(path: &Path, over_provisioning: f64) -> Result<Imported> {
    let text = crate::text::read_text(path)?;
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
    // A negative delay would silently become a free operation (or, for the bus,
    // an infinitely fast one): refuse it, naming the key.
    for key in [
        "PAGE_READ_DELAY",
        "PAGE_WRITE_DELAY",
        "BLOCK_ERASE_DELAY",
        "BUS_DATA_DELAY",
        "BUS_CTRL_DELAY",
    ] {
        if let Some((v, line)) = values.get(key) {
            if *v < 0.0 {
                return Err(Error::parse(
                    path,
                    Location::Line(*line),
                    format!("{key} {v}: a delay must not be negative (microseconds)"),
                ));
            }
        }
    }
    if let Some((v, line)) = values.get("VIRTUAL_PAGE_SIZE") {
        if *v != 1.0 {
            return Err(Error::parse(
                path,
                Location::Line(*line),
                format!("VIRTUAL_PAGE_SIZE {v}: only 1 (physical pages) is modelled"),
            ));
        }
    }
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
        write_buffer_pages: 1,
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

fn parse_pairs(text: &str, path: &Path) -> Result<(Pairs, Vec<(String, u64)>)> {
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
            unknown.push((key.to_string(), line_no));
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
    "VIRTUAL_PAGE_SIZE",
];

/// Bytes of one mapping entry in FlashSim's DFTL for a device of `pages`
/// pages: `ceil(floor(log2(pages)) / 8)`, computed as FlashSim does
/// (`log(pages) / log(2)` in double precision, truncated to an integer).
pub fn flashsim_entry_bytes(pages: u64) -> u32 {
    let bits = ((pages.max(2) as f64).ln() / 2f64.ln()) as i64;
    ((bits as f64) / 8.0).ceil().max(1.0) as u32
}

/// FlashSim's FTL choice: 0 page mapping (whole map in RAM), 3 DFTL and
/// 4 its bimodal variant (both entry-granular map caches whose size
/// `CACHE_DFTL_LIMIT` gives in translation pages). The hybrid block-mapping
/// FTLs (1 BAST, 2 FAST) are not modelled.
fn cache_for(values: &Pairs, path: &Path, g: &GeometryConfig, op: f64) -> Result<CacheConfig> {
    let (ftl, line) = values
        .get("FTL_IMPLEMENTATION")
        .copied()
        .unwrap_or((3.0, 0));
    let physical = u64::from(g.channels)
        * u64::from(g.dies_per_way)
        * u64::from(g.planes_per_die)
        * u64::from(g.blocks_per_plane)
        * u64::from(g.pages_per_block);
    let entry_bytes = flashsim_entry_bytes(physical).min(g.page_size);
    match ftl as i64 {
        0 => {
            let logical = (physical as f64 / (1.0 + op)).floor() as u64;
            Ok(CacheConfig {
                mode: CacheMode::Whole,
                bytes: logical.max(1) * u64::from(entry_bytes),
                entry_bytes,
            })
        }
        3 | 4 => {
            let (limit, line) = values
                .get("CACHE_DFTL_LIMIT")
                .copied()
                .unwrap_or((f64::from(DEFAULT_CACHE_DFTL_LIMIT), 0));
            if limit.fract() != 0.0 || !(1.0..=f64::from(u32::MAX)).contains(&limit) {
                return Err(Error::parse(
                    path,
                    Location::Line(line),
                    format!(
                        "CACHE_DFTL_LIMIT {limit}: must be a whole number of translation pages, \
                         at least 1 (FlashSim's DFTL caches that many pages' worth of entries)"
                    ),
                ));
            }
            let per_page = u64::from(g.page_size / entry_bytes);
            Ok(CacheConfig {
                mode: CacheMode::Entry,
                bytes: limit as u64 * per_page * u64::from(entry_bytes),
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

#[cfg(test)]
mod tests {
    use super::flashsim_entry_bytes;

    #[test]
    fn entry_size_follows_flashsims_address_bits() {
        // 2^16 pages: 16 bits, 2 bytes; 2^17..2^24: 3 bytes; 2^25: 4 bytes.
        assert_eq!(flashsim_entry_bytes(1 << 16), 2);
        assert_eq!(flashsim_entry_bytes((1 << 17) - 1), 2);
        assert_eq!(flashsim_entry_bytes(1 << 17), 3);
        assert_eq!(flashsim_entry_bytes(4096 * 64), 3);
        assert_eq!(flashsim_entry_bytes((1 << 25) - 1), 3);
        assert_eq!(flashsim_entry_bytes(1 << 25), 4);
        assert_eq!(4096 / flashsim_entry_bytes(4096 * 64), 1365);
    }
}
