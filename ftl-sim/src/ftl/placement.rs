//! Where pages go: plane choice, frontier allocation (with foreground GC),
//! and valid-page bookkeeping.

use super::Ftl;
use crate::alloc::{Slot, Stream};
use crate::config::Allocation;
use crate::error::{Error, Result};
use crate::flash::BlockState;
use crate::geometry::NONE;

impl Ftl {
    #[inline]
    pub(super) fn pick_unit(&mut self, lpn: u32) -> u32 {
        match self.cfg.allocation {
            Allocation::RoundRobin => self.rr_data_unit(),
            Allocation::Static => lpn % self.geo.units,
            Allocation::Buffered => self.buffered_unit(lpn),
        }
    }

    #[inline]
    fn rr_data_unit(&mut self) -> u32 {
        let u = self.next_data_unit;
        self.next_data_unit = if u + 1 == self.geo.units { 0 } else { u + 1 };
        u
    }

    /// A write buffer flushed in logical order stripes each logical run it
    /// holds over consecutive planes, however the host interleaved the runs;
    /// a page whose predecessor has left the buffer starts a new run.
    fn buffered_unit(&mut self, lpn: u32) -> u32 {
        // Newest first: a sequential writer finds its predecessor at once.
        let (newer, older) = self.buffered.split_at(self.buffered_next);
        let predecessor = lpn.checked_sub(1).and_then(|prev| {
            newer
                .iter()
                .rev()
                .chain(older.iter().rev())
                .find(|&&(buffered_lpn, _)| buffered_lpn == prev)
                .map(|&(_, unit)| unit)
        });
        let unit = match predecessor {
            Some(u) => {
                // The stripe goes on from the plane it took.
                let unit = (u + 1) % self.geo.units;
                self.next_data_unit = (unit + 1) % self.geo.units;
                unit
            }
            None => self.rr_data_unit(),
        };
        let capacity = self.cfg.write_buffer_pages as usize;
        if self.buffered.len() < capacity {
            self.buffered.push((lpn, unit));
        } else {
            self.buffered[self.buffered_next] = (lpn, unit);
            self.buffered_next = (self.buffered_next + 1) % capacity;
        }
        unit
    }

    #[inline]
    pub(super) fn rr_map_unit(&mut self) -> u32 {
        let u = self.next_map_unit;
        self.next_map_unit = if u + 1 == self.geo.units { 0 } else { u + 1 };
        u
    }

    /// A fresh page in `unit`'s frontier for `stream`; runs foreground GC
    /// first when a new block is needed and the unit is short of free blocks.
    #[inline]
    pub(super) fn alloc(&mut self, unit: u32, stream: Stream, now: u64) -> Result<u32> {
        if let Slot::Page(p) = self.units.next_page(unit, stream) {
            return Ok(p);
        }
        self.alloc_slow(unit, stream, now)
    }

    pub(super) fn alloc_slow(&mut self, unit: u32, stream: Stream, now: u64) -> Result<u32> {
        if !self.in_gc {
            let low = self.cfg.gc.low_watermark as usize;
            while self.units.free_blocks(unit) < low {
                self.collect(unit, now, false)?;
            }
            // GC may have opened a fresh frontier for this stream.
            if let Slot::Page(p) = self.units.next_page(unit, stream) {
                return Ok(p);
            }
        }
        let (block, closed) = self.units.open_new(unit, stream).ok_or_else(|| {
            Error::Device(format!(
                "plane {unit} has no free block left; the workload needs more over-provisioning"
            ))
        })?;
        if let Some(c) = closed {
            self.seal(c);
        }
        self.flash.state[block as usize] = BlockState::Open;
        match self.units.next_page(unit, stream) {
            Slot::Page(p) => Ok(p),
            Slot::NeedBlock => unreachable!("a freshly opened block has room"),
        }
    }

    pub(super) fn seal(&mut self, block: u32) {
        let b = block as usize;
        self.flash.state[b] = BlockState::Sealed;
        self.flash.sealed_at[b] = self.clock;
        self.victims.insert(block, self.flash.valid[b]);
    }

    /// Record a newly programmed page.
    #[inline]
    pub(super) fn place(&mut self, ppn: u32, owner: u32) {
        self.flash.p2l[ppn as usize] = owner;
        self.flash.valid[self.geo.block_of_ppn(ppn) as usize] += 1;
    }

    #[inline]
    pub(super) fn invalidate(&mut self, ppn: u32) {
        if ppn == NONE {
            return;
        }
        self.flash.p2l[ppn as usize] = NONE;
        let b = self.geo.block_of_ppn(ppn);
        let v = &mut self.flash.valid[b as usize];
        *v -= 1;
        let v = *v;
        if self.flash.state[b as usize] == BlockState::Sealed {
            self.victims.decrement(b, v);
        }
    }
}
