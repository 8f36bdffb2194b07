//! Counters and per-operation latency distributions gathered during replay.

use crate::histogram::Histogram;
use crate::request::Op;

#[derive(Debug, Clone, Copy, Default)]
pub struct Counters {
    /// Data pages programmed for host writes.
    pub host_page_programs: u64,
    /// Data pages read for host reads.
    pub host_page_reads: u64,
    /// Reads of the old page for partial-page writes (read-modify-write).
    pub rmw_page_reads: u64,
    /// Host reads of never-written or trimmed pages (no flash access).
    pub unmapped_page_reads: u64,
    /// Translation-page reads: map-cache misses, entry-mode write-back merges,
    /// GC mapping updates.
    pub translation_reads: u64,
    /// Translation-page programs: dirty evictions, GC mapping updates, flushes.
    pub translation_programs: u64,
    /// Translation pages rewritten by GC's batched mapping updates.
    pub gc_translation_updates: u64,
    /// Valid data pages moved by GC.
    pub gc_data_copies: u64,
    /// Valid translation pages moved by GC.
    pub gc_translation_copies: u64,
    pub erases: u64,
    /// Victim blocks collected on the request path.
    pub foreground_gc: u64,
    /// Victim blocks collected while a plane was idle.
    pub background_gc: u64,
    pub trimmed_pages: u64,
    pub remapped_pages: u64,
}

impl Counters {
    pub fn total_programs(&self) -> u64 {
        self.host_page_programs
            + self.gc_data_copies
            + self.gc_translation_copies
            + self.translation_programs
    }

    pub fn total_reads(&self) -> u64 {
        self.host_page_reads
            + self.rmw_page_reads
            + self.translation_reads
            + self.gc_data_copies
            + self.gc_translation_copies
    }
}

#[derive(Clone, Default)]
pub struct OpStats {
    pub count: u64,
    pub bytes: u64,
    pub latency: Histogram,
}

/// Request-level accounting: latency per op and the device's busy time.
#[derive(Clone, Default)]
pub struct RequestStats {
    pub ops: [OpStats; 5],
    pub first_arrival: Option<u64>,
    pub last_completion: u64,
    /// Time during which at least one request was outstanding.
    pub busy_ns: u64,
    busy_until: u64,
}

impl RequestStats {
    /// Record a request; arrivals must not decrease.
    #[inline]
    pub fn record(&mut self, op: Op, bytes: u64, arrival: u64, completion: u64) {
        let s = &mut self.ops[op.index()];
        s.count += 1;
        s.bytes += bytes;
        s.latency.record(completion - arrival);
        if self.first_arrival.is_none() {
            self.first_arrival = Some(arrival);
        }
        self.last_completion = self.last_completion.max(completion);
        if arrival >= self.busy_until {
            self.busy_ns += completion - arrival;
            self.busy_until = completion;
        } else if completion > self.busy_until {
            self.busy_ns += completion - self.busy_until;
            self.busy_until = completion;
        }
    }

    pub fn requests(&self) -> u64 {
        self.ops.iter().map(|o| o.count).sum()
    }

    pub fn makespan(&self) -> u64 {
        self.first_arrival
            .map_or(0, |f| self.last_completion.saturating_sub(f))
    }

    pub fn sum_latency(&self) -> u128 {
        self.ops.iter().map(|o| o.latency.sum()).sum()
    }
}
