//! Feeding a request stream to the FTL: arrival times (from the trace, a
//! closed loop, or the trace's own overlap of issues and completions), a
//! queue-depth limit, and the optional per-request log.

use crate::error::{Error, Location, Result};
use crate::ftl::Ftl;
use crate::request::{Op, Request};
use crate::trace::{RequestSource, Traced};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
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
    /// Ignore timestamps but keep the trace's overlap: a request waits only
    /// for the requests whose completion the trace logged before its issue
    /// (blktrace's C before its D), or, as `threads` synchronous threads
    /// would, until fewer than `threads` requests are outstanding, whichever
    /// comes first. Readahead's batch of requests issued together replays in
    /// flight together; a trace that never overlaps replays as one thread's
    /// synchronous I/O back to back (the closed loop at queue depth 1).
    Overlap,
}

#[derive(Debug, Clone, Copy)]
pub struct ReplayOptions {
    pub arrivals: Arrivals,
    /// At most this many requests outstanding (0 = no limit).
    pub queue_depth: usize,
    /// Overlap arrivals: requests a workload's synchronous threads keep in
    /// flight whatever the trace shows (0 is taken as 1).
    pub threads: usize,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            arrivals: Arrivals::Trace,
            queue_depth: 0,
            threads: 1,
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
    /// Overlap arrivals: the trace's completions matched to a replayed request.
    pub completions: u64,
    /// Overlap arrivals: completions of no request issued before them (a
    /// request the trace began before it started, or one not replayed).
    pub unmatched_completions: u64,
}

/// The trace's completions (C events, in time order), matched to the requests
/// already issued by operation, sector and length, oldest first.
struct TraceCompletions<'a> {
    source: &'a mut dyn RequestSource,
    peeked: Option<Request>,
    exhausted: bool,
    /// Model completion times of issued requests whose trace completion is
    /// still to come, by (op, sector, sectors).
    pending: HashMap<(Op, u64, u64), VecDeque<u64>>,
    /// Latest model completion of a request the trace had completed so far.
    gate: u64,
    matched: u64,
    unmatched: u64,
}

impl<'a> TraceCompletions<'a> {
    fn new(source: &'a mut dyn RequestSource) -> Self {
        TraceCompletions {
            source,
            peeked: None,
            exhausted: false,
            pending: HashMap::new(),
            gate: 0,
            matched: 0,
            unmatched: 0,
        }
    }

    /// A trace with requests but not one completion shows no overlap to keep.
    fn check_any(&mut self) -> Result<()> {
        if self.matched + self.unmatched == 0 && self.peek()?.is_none() {
            return Err(Error::parse(
                self.source.path(0),
                Location::File,
                "--arrivals overlap: the trace holds requests but no completion event \
                 (blktrace's C), so it shows no overlap; trace completions too, or replay \
                 --arrivals closed",
            ));
        }
        Ok(())
    }

    fn peek(&mut self) -> Result<Option<Request>> {
        if self.peeked.is_none() && !self.exhausted {
            match self.source.next_request() {
                Some(Ok(t)) => self.peeked = Some(t.req),
                Some(Err(e)) => return Err(e),
                None => self.exhausted = true,
            }
        }
        Ok(self.peeked)
    }

    /// The latest model completion among the requests the trace completed
    /// strictly before `issue_ns`, matching those completions on the way.
    fn gate_before(&mut self, issue_ns: u64) -> Result<u64> {
        while let Some(c) = self.peek()? {
            if c.time_ns >= issue_ns {
                break;
            }
            self.peeked = None;
            let done = self
                .pending
                .get_mut(&(c.op, c.sector, c.sectors))
                .and_then(VecDeque::pop_front);
            match done {
                Some(done) => {
                    self.matched += 1;
                    self.gate = self.gate.max(done);
                }
                None => self.unmatched += 1,
            }
        }
        Ok(self.gate)
    }

    fn issued(&mut self, req: &Request, done: u64) {
        self.pending
            .entry((req.op, req.sector, req.sectors))
            .or_default()
            .push_back(done);
    }
}

/// The `n` latest completion times of the requests issued so far: once the
/// earliest of them has passed, fewer than `n` requests are outstanding.
struct Outstanding {
    latest: BinaryHeap<Reverse<u64>>,
    n: usize,
}

impl Outstanding {
    fn new(n: usize) -> Self {
        Outstanding {
            latest: BinaryHeap::with_capacity(n + 1),
            n,
        }
    }

    /// Earliest time at which fewer than `n` requests are outstanding.
    fn below_n_at(&self) -> u64 {
        match self.latest.peek() {
            Some(Reverse(t)) if self.latest.len() >= self.n => *t,
            _ => 0,
        }
    }

    fn push(&mut self, done: u64) {
        self.latest.push(Reverse(done));
        if self.latest.len() > self.n {
            self.latest.pop();
        }
    }
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
    log: Option<(&mut dyn Write, &Path)>,
) -> Result<ReplayReport> {
    if opts.arrivals == Arrivals::Overlap {
        return Err(Error::Config(
            "--arrivals overlap needs the trace's completions (replay_overlap)".into(),
        ));
    }
    replay_with(ftl, source, None, opts, log)
}

/// Replay `source` (issue events) with overlap arrivals: `completions` is the
/// same trace read for its completion events.
pub fn replay_overlap(
    ftl: &mut Ftl,
    source: &mut dyn RequestSource,
    completions: &mut dyn RequestSource,
    opts: ReplayOptions,
    log: Option<(&mut dyn Write, &Path)>,
) -> Result<ReplayReport> {
    let opts = ReplayOptions {
        arrivals: Arrivals::Overlap,
        ..opts
    };
    let completions = TraceCompletions::new(completions);
    replay_with(ftl, source, Some(completions), opts, log)
}

fn replay_with(
    ftl: &mut Ftl,
    source: &mut dyn RequestSource,
    mut completions: Option<TraceCompletions>,
    opts: ReplayOptions,
    mut log: Option<(&mut dyn Write, &Path)>,
) -> Result<ReplayReport> {
    let depth = match (opts.arrivals, opts.queue_depth) {
        (Arrivals::Closed, 0) => 1,
        (_, d) => d,
    };
    let mut window = Window::new(depth);
    let mut threads = Outstanding::new(opts.threads.max(1));
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
            Arrivals::Overlap => match completions.as_mut() {
                Some(c) => {
                    if report.requests == 0 {
                        c.check_any()?;
                    }
                    c.gate_before(req.time_ns)?.min(threads.below_n_at())
                }
                None => threads.below_n_at(),
            },
        };
        arrival = arrival.max(last_arrival);
        arrival = arrival.max(window.free_at());
        last_arrival = arrival;
        let done = ftl.submit(&req, arrival).map_err(|e| {
            let origin = traced.origin;
            e.with_origin(source.path(origin.file), origin.location())
        })?;
        window.push(done);
        threads.push(done);
        if let Some(c) = completions.as_mut() {
            c.issued(&req, done);
        }
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
    if let Some(mut c) = completions {
        // The completions after the last issue gate nothing; matched for the counts.
        c.gate_before(u64::MAX)?;
        report.completions = c.matched;
        report.unmatched_completions = c.unmatched;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FtlConfig;
    use crate::trace::VecSource;

    /// Eight planes on two channels, a map cache holding the whole test span.
    fn device() -> Ftl {
        let yaml = "geometry: {channels: 2, ways_per_channel: 2, planes_per_die: 2, \
                    blocks_per_plane: 64, pages_per_block: 64}\n\
                    over_provisioning: 0.25\n\
                    timing: {page_read_us: 50, page_program_us: 800, block_erase_us: 3000, \
                    channel_mb_per_s: 200, host_mb_per_s: 200}\n\
                    cache: {mode: tpage, bytes: 65536}\n";
        let cfg = FtlConfig::from_ftl_yaml(yaml, Path::new("<test>")).expect("device");
        let mut ftl = Ftl::new(&cfg).expect("device");
        ftl.precondition_sequential(1.0).expect("fill");
        ftl
    }

    /// Readahead over a fragmented window: batches of `batch` 4 KiB reads at
    /// scattered pages, issued together (D at t, t+1, ...), completed
    /// together 100 µs later; or, serialized, each completed before the next
    /// is issued. Returns (issues, completions).
    fn readahead(batches: u64, batch: u64, serialized: bool) -> (Vec<Request>, Vec<Request>) {
        let (mut issues, mut completions) = (Vec::new(), Vec::new());
        let mut now = 0;
        for b in 0..batches {
            for i in 0..batch {
                let sector = ((b * batch + i) * 7 % 1000) * 8;
                let d = Request::new(now, Op::Read, sector, 8);
                now += if serialized { 10_000 } else { 1 };
                issues.push(d);
                completions.push(Request {
                    time_ns: now - 1,
                    ..d
                });
            }
            if !serialized {
                let end = now + 100_000;
                for c in completions.iter_mut().rev().take(batch as usize) {
                    c.time_ns = end;
                }
                now = end + 1_000;
            }
        }
        (issues, completions)
    }

    fn overlap(issues: &[Request], completions: &[Request], threads: usize) -> (u64, ReplayReport) {
        let mut ftl = device();
        let opts = ReplayOptions {
            threads,
            ..ReplayOptions::default()
        };
        let mut source = VecSource::new(issues.to_vec());
        let mut done = VecSource::new(completions.to_vec());
        let report = replay_overlap(&mut ftl, &mut source, &mut done, opts, None).expect("replay");
        (ftl.requests.busy_ns, report)
    }

    fn closed(issues: &[Request], queue_depth: usize) -> u64 {
        let mut ftl = device();
        let opts = ReplayOptions {
            arrivals: Arrivals::Closed,
            queue_depth,
            ..ReplayOptions::default()
        };
        replay(&mut ftl, &mut VecSource::new(issues.to_vec()), opts, None).expect("replay");
        ftl.requests.busy_ns
    }

    #[test]
    fn requests_the_trace_issued_together_replay_in_flight_together() {
        let (issues, completions) = readahead(8, 32, false);
        let (together, report) = overlap(&issues, &completions, 1);
        assert_eq!(report.completions, 256);
        assert_eq!(report.unmatched_completions, 0);
        let (serial_issues, serial_completions) = readahead(8, 32, true);
        let (serialized, _) = overlap(&serial_issues, &serial_completions, 1);
        // The same 256 reads: in flight 32 at a time they spread over the eight
        // planes; serialized, each waits for the one before.
        assert!(
            (together as f64) < 0.5 * serialized as f64,
            "overlapping {together} ns vs serialized {serialized} ns"
        );
        // A serialized trace replays exactly as the closed loop at queue depth 1,
        // which gives the overlapping trace the same time too: it ignores the overlap.
        assert_eq!(serialized, closed(&serial_issues, 1));
        assert_eq!(closed(&issues, 1), serialized);
    }

    #[test]
    fn threads_keep_requests_in_flight_that_the_trace_serialized() {
        let (issues, completions) = readahead(8, 32, true);
        let (one, _) = overlap(&issues, &completions, 1);
        let (four, _) = overlap(&issues, &completions, 4);
        assert!(four < one, "four threads {four} ns vs one {one} ns");
        assert!(four <= closed(&issues, 4));
    }

    #[test]
    fn a_request_waits_for_what_the_trace_completed_before_issuing_it() {
        // Two reads in flight together, then a third issued after both completed:
        // the third starts only after the later of the two has completed, here the
        // first issued (128 KiB), not the one just before it.
        let a = Request::new(0, Op::Read, 8, 256);
        let b = Request::new(1, Op::Read, 0, 8);
        let c = Request::new(500_000, Op::Read, 4096, 8);
        let completions = [
            Request {
                time_ns: 100_000,
                ..a
            },
            Request {
                time_ns: 200_000,
                ..b
            },
        ];
        let mut ftl = device();
        let mut log = Vec::new();
        let path = Path::new("<log>");
        let mut source = VecSource::new(vec![a, b, c]);
        let mut done = VecSource::new(completions.to_vec());
        let opts = ReplayOptions::default();
        replay_overlap(
            &mut ftl,
            &mut source,
            &mut done,
            opts,
            Some((&mut log, path)),
        )
        .expect("replay");
        let rows: Vec<Vec<u64>> = String::from_utf8(log)
            .expect("utf8")
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                vec![f[0].parse().unwrap(), f[4].parse().unwrap()]
            })
            .collect();
        let done_of = |r: &Vec<u64>| r[0] + r[1];
        assert_eq!(rows[0][0], rows[1][0], "a and b issued together");
        assert!(
            done_of(&rows[1]) > done_of(&rows[0]),
            "b (128 KiB) ends last"
        );
        assert_eq!(rows[2][0], done_of(&rows[1]), "c waits for b, the later");
    }

    #[test]
    fn a_trace_without_completions_is_refused_by_name() {
        let mut ftl = device();
        let (issues, _) = readahead(1, 4, false);
        let mut source = VecSource::new(issues);
        let mut none = VecSource::new(Vec::new());
        let err = replay_overlap(
            &mut ftl,
            &mut source,
            &mut none,
            ReplayOptions::default(),
            None,
        )
        .expect_err("no completions");
        assert!(err.to_string().contains("no completion event"), "{err}");
        // A trace of no request at all is an empty phase, not a refusal.
        let mut empty = VecSource::new(Vec::new());
        let mut none = VecSource::new(Vec::new());
        let opts = ReplayOptions::default();
        let report = replay_overlap(&mut ftl, &mut empty, &mut none, opts, None).expect("empty");
        assert_eq!(report.requests, 0);
        let opts = ReplayOptions {
            arrivals: Arrivals::Overlap,
            ..ReplayOptions::default()
        };
        let mut source = VecSource::new(Vec::new());
        assert!(replay(&mut ftl, &mut source, opts, None).is_err());
    }
}
