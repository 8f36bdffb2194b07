//! Feeding a request stream to the FTL: arrival times (from the trace, or a
//! closed loop), a queue-depth limit, and the optional per-request log.

use crate::error::{Error, Result};
use crate::ftl::Ftl;
use crate::trace::{RequestSource, Traced};
use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;

/// How far ahead requests are read for prefetching.
const LOOKAHEAD: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Requests arrive at the trace's timestamps (shifted so the first is 0).
    Trace,
    /// Ignore timestamps: each request is issued as soon as the queue-depth
    /// limit allows (queue depth 1 = synchronous I/O back to back).
    Closed,
}

#[derive(Debug, Clone, Copy)]
pub struct ReplayOptions {
    pub arrivals: Arrivals,
    /// At most this many requests outstanding (0 = no limit).
    pub queue_depth: usize,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            arrivals: Arrivals::Trace,
            queue_depth: 0,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct ReplayReport {
    pub requests: u64,
    /// Requests whose timestamp is earlier than one before them in the trace
    /// (counted in every arrival mode); at trace times they are issued at the
    /// previous request's arrival.
    pub reordered: u64,
    pub skipped_events: u64,
}

/// Completion times of the last `depth` requests.
struct Window {
    ring: Vec<u64>,
    next: usize,
}

impl Window {
    fn new(depth: usize) -> Self {
        Window {
            ring: vec![0; depth],
            next: 0,
        }
    }

    /// Earliest time the next request may be issued.
    #[inline]
    fn free_at(&self) -> u64 {
        self.ring.get(self.next).copied().unwrap_or(0)
    }

    #[inline]
    fn push(&mut self, done: u64) {
        if self.ring.is_empty() {
            return;
        }
        self.ring[self.next] = done;
        self.next = (self.next + 1) % self.ring.len();
    }
}

pub fn replay(
    ftl: &mut Ftl,
    source: &mut dyn RequestSource,
    opts: ReplayOptions,
    mut log: Option<(&mut dyn Write, &Path)>,
) -> Result<ReplayReport> {
    let depth = match (opts.arrivals, opts.queue_depth) {
        (Arrivals::Closed, 0) => 1,
        (_, d) => d,
    };
    let mut window = Window::new(depth);
    let mut report = ReplayReport::default();
    let mut first_time: Option<u64> = None;
    let mut latest_time: Option<u64> = None;
    let mut last_arrival = 0u64;
    if let Some((w, p)) = log.as_mut() {
        writeln!(w, "arrival_ns,op,sector,sectors,latency_ns").map_err(|e| Error::io(p, e))?;
    }
    // Requests are read a few steps ahead so their mapping entries can be
    // prefetched (two stages: the forward map, then the reverse map).
    let mut ahead: VecDeque<Traced> = VecDeque::with_capacity(LOOKAHEAD);
    let mut source_error: Option<Error> = None;
    let mut exhausted = false;
    loop {
        while !exhausted && source_error.is_none() && ahead.len() < LOOKAHEAD {
            match source.next_request() {
                Some(Ok(t)) => {
                    ftl.prefetch_mapping(&t.req);
                    ahead.push_back(t);
                }
                Some(Err(e)) => source_error = Some(e),
                None => exhausted = true,
            }
        }
        let Some(traced) = ahead.pop_front() else {
            break;
        };
        if let Some(mid) = ahead.get(LOOKAHEAD / 2) {
            ftl.prefetch_physical(&mid.req);
        }
        let req = traced.req;
        if latest_time.is_some_and(|t| req.time_ns < t) {
            report.reordered += 1;
        }
        latest_time = Some(latest_time.map_or(req.time_ns, |t| t.max(req.time_ns)));
        let mut arrival = match opts.arrivals {
            Arrivals::Trace => {
                let base = *first_time.get_or_insert(req.time_ns);
                req.time_ns.saturating_sub(base)
            }
            Arrivals::Closed => last_arrival,
        };
        arrival = arrival.max(last_arrival);
        arrival = arrival.max(window.free_at());
        last_arrival = arrival;
        let done = ftl.submit(&req, arrival).map_err(|e| {
            let origin = traced.origin;
            e.with_origin(source.path(origin.file), origin.location())
        })?;
        window.push(done);
        report.requests += 1;
        if let Some((w, p)) = log.as_mut() {
            writeln!(
                w,
                "{arrival},{},{},{},{}",
                req.op.name(),
                req.sector,
                req.sectors,
                done - arrival
            )
            .map_err(|e| Error::io(p, e))?;
        }
    }
    if let Some(e) = source_error {
        return Err(e);
    }
    report.skipped_events = source.skipped();
    Ok(report)
}
