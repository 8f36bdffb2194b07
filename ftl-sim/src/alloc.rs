//! Per-unit free-block pools and write frontiers. Each unit has two open
//! blocks: one for data pages and one for translation pages (DFTL keeps the
//! two apart). Erased blocks return to the back of the pool, so erases spread
//! over the unit's blocks.

use crate::geometry::{Geometry, NONE};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Data = 0,
    Map = 1,
}

#[derive(Debug, Clone, Copy)]
struct Frontier {
    block: u32,
    next_page: u32,
}

pub struct Units {
    free: Vec<VecDeque<u32>>,
    open: Vec<[Frontier; 2]>,
    ppb: u32,
}

/// Result of asking a frontier for a page.
pub enum Slot {
    /// The page to program.
    Page(u32),
    /// The open block is full (or none is open): a new block is needed.
    NeedBlock,
}

impl Units {
    pub fn new(geo: &Geometry) -> Self {
        let free = (0..geo.units)
            .map(|u| {
                let first = u * geo.blocks_per_unit;
                (first..first + geo.blocks_per_unit).collect()
            })
            .collect();
        let closed = Frontier {
            block: NONE,
            next_page: geo.pages_per_block,
        };
        Units {
            free,
            open: vec![[closed; 2]; geo.units as usize],
            ppb: geo.pages_per_block,
        }
    }

    #[inline]
    pub fn free_blocks(&self, unit: u32) -> usize {
        self.free[unit as usize].len()
    }

    /// Next page of the open block, if it has room.
    #[inline]
    pub fn next_page(&mut self, unit: u32, stream: Stream) -> Slot {
        let f = &mut self.open[unit as usize][stream as usize];
        if f.next_page >= self.ppb {
            return Slot::NeedBlock;
        }
        let ppn = f.block * self.ppb + f.next_page;
        f.next_page += 1;
        Slot::Page(ppn)
    }

    /// Close the full frontier (returned for sealing) and open a fresh block.
    /// Returns `None` when the pool is empty.
    pub fn open_new(&mut self, unit: u32, stream: Stream) -> Option<(u32, Option<u32>)> {
        let block = self.free[unit as usize].pop_front()?;
        let f = &mut self.open[unit as usize][stream as usize];
        let closed = (f.block != NONE).then_some(f.block);
        *f = Frontier {
            block,
            next_page: 0,
        };
        Some((block, closed))
    }

    pub fn release(&mut self, unit: u32, block: u32) {
        self.free[unit as usize].push_back(block);
    }

    pub fn memory_bytes(&self) -> usize {
        self.free.iter().map(|q| q.capacity() * 4).sum::<usize>() + self.open.capacity() * 16
    }
}
