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
            Allocation::RoundRobin => {
                let u = self.next_data_unit;
                self.next_data_unit = if u + 1 == self.geo.units { 0 } else { u + 1 };
                u
            }
            Allocation::Static => lpn % self.geo.units,
        }
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
