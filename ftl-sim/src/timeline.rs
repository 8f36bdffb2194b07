//! Busy timelines of the parallel units (planes), the flash channels and the
//! host link. Each operation starts when its input is ready and its resources
//! are free, and returns when it is done; requests overlap wherever they use
//! different resources.

use crate::geometry::{Geometry, Timing};

#[derive(Debug, Clone)]
pub struct Timelines {
    unit_busy: Vec<u64>,
    unit_channel: Vec<u32>,
    chan_busy: Vec<u64>,
    host_busy: u64,
    t: Timing,
    /// Total busy time per unit (for utilisation).
    unit_work: Vec<u64>,
}

impl Timelines {
    pub fn new(geo: &Geometry, t: Timing) -> Self {
        let n = geo.units as usize;
        Timelines {
            unit_busy: vec![0; n],
            unit_channel: (0..geo.units).map(|u| geo.channel_of_unit(u)).collect(),
            chan_busy: vec![0; geo.channels as usize],
            host_busy: 0,
            t,
            unit_work: vec![0; n],
        }
    }

    pub fn timing(&self) -> &Timing {
        &self.t
    }

    #[inline]
    pub fn unit_free_at(&self, unit: u32) -> u64 {
        self.unit_busy[unit as usize]
    }

    /// Page read: array to register (unit busy), then register to controller
    /// over the channel.
    #[inline]
    pub fn read(&mut self, unit: u32, ready: u64) -> u64 {
        let u = unit as usize;
        let start = ready.max(self.unit_busy[u]);
        let sensed = start + self.t.read;
        let c = self.unit_channel[u] as usize;
        let xfer_start = sensed.max(self.chan_busy[c]);
        let done = xfer_start + self.t.channel_page;
        self.chan_busy[c] = done;
        self.unit_work[u] += done - start;
        self.unit_busy[u] = done;
        done
    }

    /// Page program: controller to register over the channel, then register
    /// to array (unit busy).
    #[inline]
    pub fn program(&mut self, unit: u32, ready: u64) -> u64 {
        let u = unit as usize;
        let c = self.unit_channel[u] as usize;
        let start = ready.max(self.unit_busy[u]).max(self.chan_busy[c]);
        let loaded = start + self.t.channel_page;
        self.chan_busy[c] = loaded;
        let done = loaded + self.t.program;
        self.unit_work[u] += done - start;
        self.unit_busy[u] = done;
        done
    }

    /// GC page move inside one plane: read then program; with copy-back the
    /// data stays in the plane, otherwise it crosses the channel twice.
    #[inline]
    pub fn copy(&mut self, unit: u32, ready: u64) -> u64 {
        if !self.t.copyback {
            let r = self.read(unit, ready);
            return self.program(unit, r);
        }
        let u = unit as usize;
        let start = ready.max(self.unit_busy[u]);
        let done = start + self.t.read + self.t.program;
        self.unit_work[u] += done - start;
        self.unit_busy[u] = done;
        done
    }

    /// `n` GC page moves inside one plane, back to back.
    #[inline]
    pub fn copies(&mut self, unit: u32, ready: u64, n: u64) {
        if n == 0 {
            return;
        }
        if !self.t.copyback {
            for _ in 0..n {
                self.copy(unit, ready);
            }
            return;
        }
        let u = unit as usize;
        let start = ready.max(self.unit_busy[u]);
        let done = start + n * (self.t.read + self.t.program);
        self.unit_work[u] += done - start;
        self.unit_busy[u] = done;
    }

    #[inline]
    pub fn erase(&mut self, unit: u32, ready: u64) -> u64 {
        let u = unit as usize;
        let start = ready.max(self.unit_busy[u]);
        let done = start + self.t.erase;
        self.unit_work[u] += done - start;
        self.unit_busy[u] = done;
        done
    }

    /// Move `bytes` over the host link, starting no earlier than `ready`.
    #[inline]
    pub fn host(&mut self, ready: u64, bytes: u64) -> u64 {
        let start = ready.max(self.host_busy);
        self.host_busy = start + self.t.host_xfer(bytes);
        self.host_busy
    }

    pub fn unit_work(&self) -> &[u64] {
        &self.unit_work
    }

    pub fn memory_bytes(&self) -> usize {
        (self.unit_busy.capacity() + self.chan_busy.capacity() + self.unit_work.capacity()) * 8
            + self.unit_channel.capacity() * 4
    }
}
