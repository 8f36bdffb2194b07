//! A block request as every trace format is turned into.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
    /// TRIM / discard: the pages' data is no longer needed.
    Trim,
    /// Cache flush (no data).
    Flush,
    /// janusdL's REMAP(src, dst, len): `dst` takes over `src`'s flash pages.
    Remap,
}

impl Op {
    pub const ALL: [Op; 5] = [Op::Read, Op::Write, Op::Trim, Op::Flush, Op::Remap];

    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
            Op::Flush => "flush",
            Op::Remap => "remap",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// Addresses and lengths are in 512-byte sectors, times in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub time_ns: u64,
    pub op: Op,
    pub sector: u64,
    pub sectors: u64,
    /// Destination of a remap (unused otherwise).
    pub dst_sector: u64,
}

impl Request {
    pub fn new(time_ns: u64, op: Op, sector: u64, sectors: u64) -> Self {
        Request {
            time_ns,
            op,
            sector,
            sectors,
            dst_sector: 0,
        }
    }

    pub fn remap(time_ns: u64, src: u64, dst: u64, sectors: u64) -> Self {
        Request {
            time_ns,
            op: Op::Remap,
            sector: src,
            sectors,
            dst_sector: dst,
        }
    }

    pub fn bytes(&self) -> u64 {
        match self.op {
            Op::Flush => 0,
            _ => self.sectors * 512,
        }
    }
}
