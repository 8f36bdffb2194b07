//! Garbage collection: background collection of idle planes, victim
//! relocation and erase.

use super::Ftl;
use crate::alloc::Stream;
use crate::error::{Error, Result};
use crate::flash::BlockState;
use crate::geometry::{NONE, TPAGE_FLAG};

impl Ftl {
    /// Collect idle planes up to the high watermark, one victim at a time,
    /// while the plane has been idle for `idle_us` before `now`.
    pub(super) fn background_gc(&mut self, now: u64) -> Result<()> {
        let high = self.cfg.gc.high_watermark as usize;
        let idle = self.tl.timing().bg_idle;
        for unit in 0..self.geo.units {
            while self.units.free_blocks(unit) < high {
                let free_at = self.tl.unit_free_at(unit);
                if free_at + idle > now {
                    break;
                }
                self.collect(unit, free_at + idle, true)?;
            }
        }
        Ok(())
    }

    /// Collect one victim block of `unit`: copy its valid pages within the
    /// unit and erase it (mapping updates of uncached entries are queued for
    /// `flush_pending`).
    pub(super) fn collect(&mut self, unit: u32, now: u64, background: bool) -> Result<()> {
        let ppb = self.geo.pages_per_block;
        let victim = self
            .victims
            .take_victim(unit, &self.flash, self.clock, ppb)
            .ok_or_else(|| Error::Device(format!("plane {unit} has no block to collect")))?;
        self.in_gc = true;
        let result = self.relocate(unit, victim, now);
        self.in_gc = false;
        result?;
        if background {
            self.counters.background_gc += 1;
        } else {
            self.counters.foreground_gc += 1;
        }
        Ok(())
    }

    pub(super) fn relocate(&mut self, unit: u32, victim: u32, now: u64) -> Result<()> {
        let first = self.geo.first_ppn(victim);
        let end = first + self.geo.pages_per_block;
        let mut moved = 0u64;
        for ppn in first..end {
            if let Some(&ahead) = self.flash.p2l.get(ppn as usize + 8) {
                if ppn + 8 < end && ahead & TPAGE_FLAG == 0 {
                    crate::mem::prefetch(&self.l2p, ahead as usize);
                }
            }
            let owner = self.flash.p2l[ppn as usize];
            if owner == NONE {
                continue;
            }
            self.move_page(unit, ppn, owner, now)?;
            moved += 1;
        }
        self.tl.copies(unit, now, moved);
        self.flash.valid[victim as usize] = 0;
        self.erase(unit, victim, now);
        Ok(())
    }

    pub(super) fn move_page(&mut self, unit: u32, from: u32, owner: u32, now: u64) -> Result<()> {
        let is_tpage = owner & TPAGE_FLAG != 0;
        let stream = if is_tpage { Stream::Map } else { Stream::Data };
        let to = self.alloc(unit, stream, now)?;
        self.flash.p2l[from as usize] = NONE;
        self.place(to, owner);
        self.clock += 1;
        if is_tpage {
            self.gtd[(owner & !TPAGE_FLAG) as usize] = to;
            self.counters.gc_translation_copies += 1;
        } else {
            self.l2p[owner as usize] = to;
            let tp = self.geo.tpage_of(owner);
            if !self.cache.update_if_cached(owner, tp) {
                self.mark_pending(tp);
            }
            self.counters.gc_data_copies += 1;
        }
        Ok(())
    }

    pub(super) fn erase(&mut self, unit: u32, block: u32, now: u64) {
        let b = block as usize;
        debug_assert_eq!(self.flash.valid[b], 0);
        self.tl.erase(unit, now);
        self.flash.erases[b] += 1;
        self.flash.state[b] = BlockState::Free;
        self.units.release(unit, block);
        self.counters.erases += 1;
    }
}
