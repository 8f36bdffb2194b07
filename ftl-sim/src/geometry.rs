//! Derived geometry (how many pages, planes, translation pages) and timing in
//! nanoseconds. A *unit* is one plane: the smallest piece of flash that works
//! independently here (multi-plane operation is assumed always possible).

use crate::config::{CacheMode, FtlConfig};
use crate::error::{Error, Result};

/// Flag in a reverse-map entry marking a translation page.
pub const TPAGE_FLAG: u32 = 1 << 31;
/// "No page": an unmapped logical page or a free/invalid physical page.
pub const NONE: u32 = u32::MAX;
/// Bytes per sector (block-layer unit of all traces).
pub const SECTOR: u64 = 512;

/// Division of a `u32` by a fixed divisor with a multiply and a shift
/// (exact for every `u32` numerator: m = floor(2^64 / d) + 1).
#[derive(Debug, Clone, Copy)]
pub struct FastDiv {
    m: u64,
    shift: Option<u32>,
}

impl FastDiv {
    pub fn new(d: u32) -> Self {
        assert!(d > 0);
        FastDiv {
            m: (u64::MAX / u64::from(d)).wrapping_add(1),
            shift: d.is_power_of_two().then(|| d.trailing_zeros()),
        }
    }

    #[inline(always)]
    pub fn div(&self, n: u32) -> u32 {
        match self.shift {
            Some(s) => n >> s,
            None => ((u128::from(n) * u128::from(self.m)) >> 64) as u32,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Geometry {
    pub channels: u32,
    /// Parallel units (planes) in total.
    pub units: u32,
    pub blocks_per_unit: u32,
    pub pages_per_block: u32,
    pub page_size: u32,
    pub physical_pages: u64,
    /// Pages the host can address.
    pub logical_pages: u64,
    /// Mapping entries per translation page.
    pub entries_per_tpage: u32,
    /// Translation pages covering the logical space (none when the whole map
    /// is held in RAM).
    pub tpages: u32,
    div_block: FastDiv,
    div_unit: FastDiv,
    div_tpage: FastDiv,
}

impl Geometry {
    pub fn new(cfg: &FtlConfig) -> Result<Self> {
        // Every division below relies on the validated fields (none is 0).
        cfg.validate()
            .map_err(|(field, msg)| Error::Config(format!("{field}: {msg}")))?;
        let g = &cfg.geometry;
        // In u128, so that no product of the six u32 fields can wrap (a wrapped
        // plane count of 0 once reached a division by zero below).
        let units = u128::from(g.channels)
            * u128::from(g.ways_per_channel)
            * u128::from(g.dies_per_way)
            * u128::from(g.planes_per_die);
        let physical_pages = units * u128::from(g.blocks_per_plane) * u128::from(g.pages_per_block);
        if physical_pages >= u128::from(TPAGE_FLAG) || units > 4096 || units == 0 {
            return Err(Error::Config(format!(
                "{physical_pages} physical pages in {units} planes: at most 2^31 - 1 pages and 4096 planes are supported"
            )));
        }
        let (units, physical_pages) = (units as u64, physical_pages as u64);
        let logical_pages = (physical_pages as f64 / (1.0 + cfg.over_provisioning)).floor() as u64;
        let entries_per_tpage = g.page_size / cfg.cache.entry_bytes;
        // With the whole map in RAM no translation page is kept on flash.
        let tpages = match cfg.cache.mode {
            CacheMode::Whole => 0,
            _ => logical_pages.div_ceil(u64::from(entries_per_tpage)) as u32,
        };
        let geo = Geometry {
            channels: g.channels,
            units: units as u32,
            blocks_per_unit: g.blocks_per_plane,
            pages_per_block: g.pages_per_block,
            page_size: g.page_size,
            physical_pages,
            logical_pages,
            entries_per_tpage,
            tpages,
            div_block: FastDiv::new(g.pages_per_block),
            div_unit: FastDiv::new(g.pages_per_block * g.blocks_per_plane),
            div_tpage: FastDiv::new(entries_per_tpage),
        };
        geo.check_spare(cfg.gc.high_watermark)?;
        Ok(geo)
    }

    /// Each plane must keep enough blocks beyond its share of the live data
    /// (user pages and translation pages) for the GC reserve and two open blocks.
    fn check_spare(&self, high_watermark: u32) -> Result<()> {
        let ppb = u64::from(self.pages_per_block);
        let live = self.logical_pages + u64::from(self.tpages);
        let per_unit_blocks = live.div_ceil(u64::from(self.units)).div_ceil(ppb);
        let needed = per_unit_blocks + u64::from(high_watermark) + 3;
        if needed > u64::from(self.blocks_per_unit) {
            return Err(Error::Config(format!(
                "each plane needs {needed} blocks (live data {per_unit_blocks}, GC reserve {high_watermark}, \
                 3 open/spare) but has {}: raise over_provisioning or blocks_per_plane",
                self.blocks_per_unit
            )));
        }
        Ok(())
    }

    pub fn pages_per_unit(&self) -> u64 {
        u64::from(self.blocks_per_unit) * u64::from(self.pages_per_block)
    }

    pub fn total_blocks(&self) -> u32 {
        self.units * self.blocks_per_unit
    }

    #[inline]
    pub fn unit_of_ppn(&self, ppn: u32) -> u32 {
        self.div_unit.div(ppn)
    }

    #[inline]
    pub fn block_of_ppn(&self, ppn: u32) -> u32 {
        self.div_block.div(ppn)
    }

    #[inline]
    pub fn unit_of_block(&self, block: u32) -> u32 {
        block / self.blocks_per_unit
    }

    #[inline]
    pub fn first_ppn(&self, block: u32) -> u32 {
        block * self.pages_per_block
    }

    /// Channel of a unit: consecutive units sit on different channels, so
    /// round-robin striping spreads over channels first.
    #[inline]
    pub fn channel_of_unit(&self, unit: u32) -> u32 {
        unit % self.channels
    }

    #[inline]
    pub fn tpage_of(&self, lpn: u32) -> u32 {
        self.div_tpage.div(lpn)
    }

    pub fn logical_sectors(&self) -> u64 {
        self.logical_pages * u64::from(self.page_size) / SECTOR
    }

    pub fn sectors_per_page(&self) -> u64 {
        u64::from(self.page_size) / SECTOR
    }
}

/// Latencies in nanoseconds.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub read: u64,
    pub program: u64,
    pub erase: u64,
    /// One page over a flash channel.
    pub channel_page: u64,
    /// Nanoseconds per byte over the host link, scaled by 2^16.
    pub host_per_byte_q16: u64,
    pub command: u64,
    pub copyback: bool,
    pub bg_idle: u64,
}

impl Timing {
    pub fn new(cfg: &FtlConfig) -> Self {
        let t = &cfg.timing;
        let us = |v: f64| (v * 1000.0).round() as u64;
        let page = f64::from(cfg.geometry.page_size);
        Timing {
            read: us(t.page_read_us),
            program: us(t.page_program_us),
            erase: us(t.block_erase_us),
            channel_page: (page * 1000.0 / t.channel_mb_per_s).round() as u64,
            host_per_byte_q16: (1000.0 / t.host_mb_per_s * 65536.0).round() as u64,
            command: us(t.command_overhead_us),
            copyback: t.copyback,
            bg_idle: us(cfg.gc.idle_us),
        }
    }

    /// Time to move `bytes` over the host link.
    #[inline]
    pub fn host_xfer(&self, bytes: u64) -> u64 {
        ((u128::from(bytes) * u128::from(self.host_per_byte_q16)) >> 16)
            .min(u128::from(u64::MAX >> 2)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::FastDiv;

    #[test]
    fn fast_division_is_exact() {
        for d in [1u32, 3, 7, 256, 1000, 4400, 1_126_400, 2_252_800, u32::MAX] {
            let f = FastDiv::new(d);
            for n in [
                0u32,
                1,
                d - 1,
                d,
                d.wrapping_add(1),
                12_345_678,
                u32::MAX - 1,
                u32::MAX,
            ] {
                assert_eq!(f.div(n), n / d, "{n} / {d}");
            }
        }
    }
}
