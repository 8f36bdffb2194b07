//! GC victim selection. Sealed blocks of each unit are kept in buckets by
//! valid-page count (intrusive doubly linked lists), so greedy selection and
//! the per-invalidation update are O(1) amortised. FIFO keeps a queue in seal
//! order; cost-benefit (Kawaguchi et al., USENIX 1995: age * (1-u) / 2u)
//! scans the unit's sealed blocks.

use crate::config::VictimPolicy;
use crate::flash::{BlockState, Flash};
use crate::geometry::Geometry;
use std::collections::VecDeque;

const NIL: u32 = u32::MAX;

pub struct VictimIndex {
    policy: VictimPolicy,
    buckets_per_unit: usize,
    blocks_per_unit: u32,
    head: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Lowest possibly non-empty bucket per unit.
    min_hint: Vec<u32>,
    fifo: Vec<VecDeque<u32>>,
}

impl VictimIndex {
    pub fn new(geo: &Geometry, policy: VictimPolicy) -> Self {
        let buckets = geo.pages_per_block as usize + 1;
        let blocks = geo.total_blocks() as usize;
        VictimIndex {
            policy,
            buckets_per_unit: buckets,
            blocks_per_unit: geo.blocks_per_unit,
            head: vec![NIL; buckets * geo.units as usize],
            prev: vec![NIL; blocks],
            next: vec![NIL; blocks],
            min_hint: vec![0; geo.units as usize],
            fifo: if policy == VictimPolicy::Fifo {
                (0..geo.units).map(|_| VecDeque::new()).collect()
            } else {
                Vec::new()
            },
        }
    }

    #[inline]
    fn bucket(&self, unit: u32, valid: u16) -> usize {
        unit as usize * self.buckets_per_unit + valid as usize
    }

    #[inline]
    fn unit_of(&self, block: u32) -> u32 {
        block / self.blocks_per_unit
    }

    /// A block was sealed with `valid` valid pages.
    pub fn insert(&mut self, block: u32, valid: u16) {
        let unit = self.unit_of(block);
        self.link(block, unit, valid);
        if self.policy == VictimPolicy::Fifo {
            self.fifo[unit as usize].push_back(block);
        }
    }

    /// One page of a sealed block was invalidated: its count went from
    /// `valid + 1` to `valid`.
    #[inline]
    pub fn decrement(&mut self, block: u32, valid: u16) {
        let unit = self.unit_of(block);
        self.unlink(block, unit, valid + 1);
        self.link(block, unit, valid);
    }

    /// One page of a sealed block became valid again (remap onto it):
    /// its count went from `valid - 1` to `valid`.
    pub fn increment(&mut self, block: u32, valid: u16) {
        let unit = self.unit_of(block);
        self.unlink(block, unit, valid - 1);
        self.link(block, unit, valid);
    }

    /// Pick and remove the victim of `unit`.
    pub fn take_victim(&mut self, unit: u32, flash: &Flash, clock: u64, ppb: u32) -> Option<u32> {
        let victim = match self.policy {
            VictimPolicy::Greedy => self.min_valid(unit),
            VictimPolicy::Fifo => self.oldest(unit, flash),
            VictimPolicy::CostBenefit => self.best_cost_benefit(unit, flash, clock, ppb),
        }?;
        self.unlink(victim, unit, flash.valid[victim as usize]);
        Some(victim)
    }

    fn min_valid(&mut self, unit: u32) -> Option<u32> {
        let base = unit as usize * self.buckets_per_unit;
        let mut v = self.min_hint[unit as usize] as usize;
        while v < self.buckets_per_unit {
            let b = self.head[base + v];
            if b != NIL {
                self.min_hint[unit as usize] = v as u32;
                return Some(b);
            }
            v += 1;
        }
        self.min_hint[unit as usize] = self.buckets_per_unit as u32;
        None
    }

    fn oldest(&mut self, unit: u32, flash: &Flash) -> Option<u32> {
        let q = &mut self.fifo[unit as usize];
        while let Some(b) = q.pop_front() {
            if flash.state[b as usize] == BlockState::Sealed {
                return Some(b);
            }
        }
        None
    }

    fn best_cost_benefit(&self, unit: u32, flash: &Flash, clock: u64, ppb: u32) -> Option<u32> {
        let first = unit * self.blocks_per_unit;
        let mut best: Option<(f64, u32)> = None;
        for b in first..first + self.blocks_per_unit {
            if flash.state[b as usize] != BlockState::Sealed {
                continue;
            }
            let u = f64::from(flash.valid[b as usize]) / f64::from(ppb);
            if u == 0.0 {
                return Some(b);
            }
            let age = (clock - flash.sealed_at[b as usize]) as f64 + 1.0;
            let score = age * (1.0 - u) / (2.0 * u);
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, b));
            }
        }
        best.map(|(_, b)| b)
    }

    #[inline]
    fn link(&mut self, block: u32, unit: u32, valid: u16) {
        let k = self.bucket(unit, valid);
        let h = self.head[k];
        self.prev[block as usize] = NIL;
        self.next[block as usize] = h;
        if h != NIL {
            self.prev[h as usize] = block;
        }
        self.head[k] = block;
        let hint = &mut self.min_hint[unit as usize];
        if u32::from(valid) < *hint {
            *hint = u32::from(valid);
        }
    }

    #[inline]
    fn unlink(&mut self, block: u32, unit: u32, valid: u16) {
        let (p, n) = (self.prev[block as usize], self.next[block as usize]);
        if p != NIL {
            self.next[p as usize] = n;
        } else {
            let k = self.bucket(unit, valid);
            self.head[k] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        }
    }

    pub fn memory_bytes(&self) -> usize {
        (self.head.capacity()
            + self.prev.capacity()
            + self.next.capacity()
            + self.min_hint.capacity())
            * 4
            + self.fifo.iter().map(|q| q.capacity() * 4).sum::<usize>()
    }
}
