//! The demand-cached mapping: lookups, misses, translation-page writes and
//! GC's batched mapping updates.

use super::Ftl;
use crate::alloc::Stream;
use crate::error::Result;
use crate::geometry::TPAGE_FLAG;
use crate::mapcache::{Access, Writeback};

impl Ftl {
    /// Make sure the entry of `lpn` is cached; returns when it is available.
    #[inline]
    pub(super) fn map_lookup(&mut self, lpn: u32, ready: u64, dirty: bool) -> Result<u64> {
        let tp = self.geo.tpage_of(lpn);
        match self.cache.access(lpn, tp, dirty) {
            Access::Hit => Ok(ready),
            Access::Miss { writeback } => self.map_miss(tp, ready, writeback),
        }
    }

    #[cold]
    pub(super) fn map_miss(
        &mut self,
        tp: u32,
        ready: u64,
        writeback: Option<Writeback>,
    ) -> Result<u64> {
        if let Some(wb) = writeback {
            let unit = self.rr_map_unit();
            self.write_tpage(wb.tpage, ready, wb.needs_read, unit)?;
        }
        let loc = self.gtd[tp as usize];
        self.counters.translation_reads += 1;
        Ok(self.tl.read(self.geo.unit_of_ppn(loc), ready))
    }

    /// Write translation page `tp` to `unit`, reading it first if needed.
    pub(super) fn write_tpage(
        &mut self,
        tp: u32,
        ready: u64,
        needs_read: bool,
        unit: u32,
    ) -> Result<u64> {
        let mut t = ready;
        if needs_read {
            let loc = self.gtd[tp as usize];
            self.counters.translation_reads += 1;
            t = self.tl.read(self.geo.unit_of_ppn(loc), t);
        }
        let ppn = self.alloc(unit, Stream::Map, t)?;
        let old = self.gtd[tp as usize];
        self.invalidate(old);
        self.place(ppn, tp | TPAGE_FLAG);
        self.gtd[tp as usize] = ppn;
        self.clock += 1;
        self.counters.translation_programs += 1;
        Ok(self.tl.program(unit, t))
    }

    /// Write every dirty cached mapping entry back (not used by FLUSH, which
    /// is modelled without a device write cache; kept for drains at the end).
    pub fn drain_map_cache(&mut self, now: u64) -> Result<u64> {
        let mut wbs = Vec::new();
        self.cache.drain_dirty(&mut wbs);
        let mut done = now;
        for wb in wbs {
            let unit = self.rr_map_unit();
            done = done.max(self.write_tpage(wb.tpage, now, wb.needs_read, unit)?);
        }
        Ok(done)
    }

    #[inline]
    pub(super) fn mark_pending(&mut self, tp: u32) {
        let (w, b) = ((tp / 64) as usize, tp % 64);
        if self.pending_bits[w] & (1 << b) == 0 {
            self.pending_bits[w] |= 1 << b;
            self.pending.push(tp);
        }
    }

    /// DFTL's batch update, applied after the GC that caused it: each
    /// translation page holding entries that GC moved (and that were not
    /// cached) is read, updated and rewritten once. Written outside GC, so
    /// the writes may themselves trigger GC in their plane, whose updates
    /// join the same batch.
    pub(super) fn flush_pending(&mut self, now: u64) -> Result<()> {
        while let Some(tp) = self.pending.pop() {
            if let Some(&next) = self
                .pending
                .len()
                .checked_sub(4)
                .and_then(|i| self.pending.get(i))
            {
                crate::mem::prefetch(&self.flash.p2l, self.gtd[next as usize] as usize);
            }
            self.pending_bits[(tp / 64) as usize] &= !(1 << (tp % 64));
            let unit = self.rr_map_unit();
            self.write_tpage(tp, now, true, unit)?;
            self.counters.gc_translation_updates += 1;
        }
        Ok(())
    }
}
