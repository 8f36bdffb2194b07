//! The page-mapping FTL: the device state and request entry point. Split by
//! concern: `commands` (read, write, trim, remap), `mapping` (the demand
//! cache, translation pages on flash, DFTL's batched updates), `placement`
//! (plane choice, frontiers, valid-page bookkeeping) and `collect` (GC).

use crate::alloc::{Stream, Units};
use crate::config::FtlConfig;
use crate::error::{Error, Result};
use crate::flash::Flash;
use crate::gc::VictimIndex;
use crate::geometry::{Geometry, Timing, NONE, SECTOR, TPAGE_FLAG};

mod collect;
mod commands;
mod mapping;
mod placement;
use crate::mapcache::MapCache;
use crate::request::{Op, Request};
use crate::stats::{Counters, RequestStats};
use crate::timeline::Timelines;

/// Latest supported arrival time (about 146 years), far from u64 overflow.
pub const MAX_TIME: u64 = 1 << 62;

pub struct Ftl {
    cfg: FtlConfig,
    geo: Geometry,
    /// Logical page -> physical page (the ground truth the cache models).
    l2p: Vec<u32>,
    /// Global translation directory: translation page -> physical page.
    gtd: Vec<u32>,
    flash: Flash,
    victims: VictimIndex,
    units: Units,
    tl: Timelines,
    cache: MapCache,
    next_data_unit: u32,
    next_map_unit: u32,
    /// The write buffer of allocation `buffered`: the latest pages written,
    /// (logical page, plane), oldest overwritten first.
    buffered: Vec<(u32, u32)>,
    buffered_next: usize,
    /// Pages programmed so far (the age clock of cost-benefit and FIFO).
    clock: u64,
    in_gc: bool,
    /// Translation pages with mapping updates from GC still to be written
    /// (entries that were not cached), each listed once.
    pending: Vec<u32>,
    pending_bits: Vec<u64>,
    pub counters: Counters,
    pub requests: RequestStats,
}

impl Ftl {
    /// A formatted device: every translation page written once, no data.
    pub fn new(cfg: &FtlConfig) -> Result<Self> {
        cfg.validate()
            .map_err(|(field, msg)| Error::Config(format!("{field}: {msg}")))?;
        let geo = Geometry::new(cfg)?;
        let timing = Timing::new(cfg);
        let mut ftl = Ftl {
            cfg: cfg.clone(),
            l2p: crate::mem::big_vec(geo.logical_pages as usize, NONE),
            gtd: vec![NONE; geo.tpages as usize],
            flash: Flash::new(&geo),
            victims: VictimIndex::new(&geo, cfg.gc.policy),
            units: Units::new(&geo),
            tl: Timelines::new(&geo, timing),
            cache: MapCache::new(&cfg.cache, &geo),
            next_data_unit: 0,
            next_map_unit: 0,
            buffered: Vec::new(),
            buffered_next: 0,
            clock: 0,
            in_gc: false,
            pending: Vec::new(),
            pending_bits: vec![0; (geo.tpages as usize).div_ceil(64)],
            counters: Counters::default(),
            requests: RequestStats::default(),
            geo,
        };
        ftl.format()?;
        Ok(ftl)
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    pub fn config(&self) -> &FtlConfig {
        &self.cfg
    }

    pub fn cache(&self) -> &MapCache {
        &self.cache
    }

    pub fn timelines(&self) -> &Timelines {
        &self.tl
    }

    /// Erase counts per block.
    pub fn erase_counts(&self) -> &[u32] {
        &self.flash.erases
    }

    /// Physical page of a logical page, if mapped.
    pub fn lookup(&self, lpn: u64) -> Option<u32> {
        self.l2p.get(lpn as usize).copied().filter(|&p| p != NONE)
    }

    fn format(&mut self) -> Result<()> {
        for tp in 0..self.geo.tpages {
            let unit = self.rr_map_unit();
            let ppn = self.alloc(unit, Stream::Map, 0)?;
            self.place(ppn, tp | TPAGE_FLAG);
            self.gtd[tp as usize] = ppn;
        }
        self.reset_measurements();
        Ok(())
    }

    /// Write the first `fraction` of the logical space sequentially, as an
    /// aged device would hold it; not counted in the measurements.
    pub fn precondition_sequential(&mut self, fraction: f64) -> Result<()> {
        let n = (self.geo.logical_pages as f64 * fraction.clamp(0.0, 1.0)) as u64;
        for lpn in 0..n {
            self.write_page_untimed(lpn as u32)?;
        }
        self.reset_measurements();
        Ok(())
    }

    /// Overwrite `count` uniformly random logical pages (seeded), driving GC
    /// towards steady state; not counted in the measurements.
    pub fn precondition_random(&mut self, count: u64, seed: u64) -> Result<()> {
        let mut rng = crate::rng::SplitMix64::new(seed);
        for _ in 0..count {
            let lpn = rng.below(self.geo.logical_pages) as u32;
            self.write_page_untimed(lpn)?;
        }
        self.reset_measurements();
        Ok(())
    }

    /// Background GC up to the high watermark on every plane, as idle time
    /// before a measured replay allows (not counted).
    pub fn settle(&mut self) -> Result<()> {
        if !self.cfg.gc.background {
            return Ok(());
        }
        let high = self.cfg.gc.high_watermark as usize;
        for unit in 0..self.geo.units {
            while self.units.free_blocks(unit) < high {
                self.collect(unit, 0, true)?;
            }
        }
        self.flush_pending(0)?;
        self.reset_measurements();
        Ok(())
    }

    fn write_page_untimed(&mut self, lpn: u32) -> Result<()> {
        let unit = self.pick_unit(lpn);
        let ppn = self.alloc(unit, Stream::Data, 0)?;
        let old = self.l2p[lpn as usize];
        self.invalidate(old);
        self.place(ppn, lpn);
        self.l2p[lpn as usize] = ppn;
        self.clock += 1;
        self.flush_pending(0)
    }

    /// Forget timing and counters (the flash state and mapping stay).
    pub fn reset_measurements(&mut self) {
        self.tl = Timelines::new(&self.geo, *self.tl.timing());
        self.counters = Counters::default();
        self.requests = RequestStats::default();
        self.cache.stats = Default::default();
    }

    /// First stage of prefetching a request a few steps ahead: its first
    /// logical page's mapping.
    #[inline]
    pub fn prefetch_mapping(&self, req: &Request) {
        let lpn = req.sector.saturating_mul(SECTOR) / u64::from(self.geo.page_size);
        crate::mem::prefetch(&self.l2p, lpn as usize);
    }

    /// Second stage (once the mapping is likely cached): the reverse-map
    /// entry of the page a write will invalidate.
    #[inline]
    pub fn prefetch_physical(&self, req: &Request) {
        if req.op != Op::Write {
            return;
        }
        let lpn = req.sector.saturating_mul(SECTOR) / u64::from(self.geo.page_size);
        if let Some(&ppn) = self.l2p.get(lpn as usize) {
            crate::mem::prefetch(&self.flash.p2l, ppn as usize);
        }
    }

    /// Serve one request arriving at `arrival` (ns); returns its completion time.
    pub fn submit(&mut self, req: &Request, arrival: u64) -> Result<u64> {
        if arrival > MAX_TIME {
            return Err(Error::BadRequest {
                msg: format!("arrival time {arrival} ns is beyond the supported {MAX_TIME} ns"),
                origin: None,
            });
        }
        self.check_range(req.sector, req.sectors)?;
        if req.op == Op::Remap {
            self.check_range(req.dst_sector, req.sectors)?;
        }
        if self.cfg.gc.background {
            self.background_gc(arrival)?;
            self.flush_pending(arrival)?;
        }
        let start = arrival + self.tl.timing().command;
        let done = match req.op {
            Op::Read => self.read(req, start)?,
            Op::Write => self.write(req, start)?,
            Op::Trim => self.trim(req, start)?,
            Op::Flush => start,
            Op::Remap => self.remap(req, start)?,
        };
        self.flush_pending(start)?;
        self.requests.record(req.op, req.bytes(), arrival, done);
        Ok(done)
    }

    fn check_range(&self, sector: u64, sectors: u64) -> Result<()> {
        let cap = self.geo.logical_sectors();
        match sector.checked_add(sectors) {
            Some(end) if end <= cap => Ok(()),
            _ => Err(Error::OutOfRange {
                sector,
                sectors,
                capacity_sectors: cap,
                origin: None,
            }),
        }
    }

    /// Bytes of simulator state outside the mapping cache.
    pub fn memory_bytes_without_cache(&self) -> usize {
        self.l2p.capacity() * 4
            + self.gtd.capacity() * 4
            + self.flash.memory_bytes()
            + self.victims.memory_bytes()
            + self.units.memory_bytes()
            + self.tl.memory_bytes()
            + self.pending.capacity() * 4
            + self.pending_bits.capacity() * 8
    }

    pub fn cache_memory_bytes(&self) -> usize {
        self.cache.memory_bytes()
    }

    /// Check the internal invariants (tests): every mapped page points at a
    /// page owned by it, valid counts match the reverse map.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        for (lpn, &ppn) in self.l2p.iter().enumerate() {
            if ppn != NONE && self.flash.p2l[ppn as usize] != lpn as u32 {
                return Err(format!(
                    "lpn {lpn} -> ppn {ppn} but p2l says {}",
                    self.flash.p2l[ppn as usize]
                ));
            }
        }
        for (tp, &ppn) in self.gtd.iter().enumerate() {
            if self.flash.p2l[ppn as usize] != tp as u32 | TPAGE_FLAG {
                return Err(format!("tpage {tp} -> ppn {ppn} not owned"));
            }
        }
        let ppb = self.geo.pages_per_block as usize;
        for (b, &v) in self.flash.valid.iter().enumerate() {
            let owned = self.flash.p2l[b * ppb..(b + 1) * ppb]
                .iter()
                .filter(|&&o| o != NONE)
                .count();
            if owned != v as usize {
                return Err(format!("block {b}: valid {v} but {owned} owned pages"));
            }
        }
        let mapped = self.l2p.iter().filter(|&&p| p != NONE).count() + self.gtd.len();
        let owned = self.flash.p2l.iter().filter(|&&o| o != NONE).count();
        if mapped != owned {
            return Err(format!(
                "{mapped} mapped pages but {owned} owned physical pages"
            ));
        }
        Ok(())
    }
}
