//! Physical state of the flash array: the reverse map (owner of each
//! physical page, as a NAND page's spare area would hold it), valid-page
//! counts, erase counts and block states.

use crate::geometry::{Geometry, NONE};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockState {
    Free,
    /// A write frontier: pages are being programmed in order.
    Open,
    /// Fully programmed; a GC candidate.
    Sealed,
}

pub struct Flash {
    /// Owner of each physical page: a logical page number, a translation page
    /// number with `TPAGE_FLAG`, or `NONE` (free or invalid).
    pub p2l: Vec<u32>,
    pub valid: Vec<u16>,
    pub erases: Vec<u32>,
    pub state: Vec<BlockState>,
    /// Value of the write clock when the block was sealed (FIFO and
    /// cost-benefit ages).
    pub sealed_at: Vec<u64>,
}

impl Flash {
    pub fn new(geo: &Geometry) -> Self {
        let blocks = geo.total_blocks() as usize;
        Flash {
            p2l: crate::mem::big_vec(geo.physical_pages as usize, NONE),
            valid: vec![0; blocks],
            erases: vec![0; blocks],
            state: vec![BlockState::Free; blocks],
            sealed_at: vec![0; blocks],
        }
    }

    pub fn memory_bytes(&self) -> usize {
        self.p2l.capacity() * 4
            + self.valid.capacity() * 2
            + self.erases.capacity() * 4
            + self.state.capacity()
            + self.sealed_at.capacity() * 8
    }
}
