//! The JSON summary of a replay.

use crate::config::FtlConfig;
use crate::dop::DopSummary;
use crate::ftl::Ftl;
use crate::replay::{Arrivals, ReplayReport};
use crate::request::Op;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
pub struct Summary {
    pub tool: &'static str,
    pub version: &'static str,
    pub device: DeviceInfo,
    pub replay: ReplayInfo,
    pub requests: BTreeMap<&'static str, OpSummary>,
    pub time: TimeSummary,
    pub map_cache: CacheSummary,
    pub translation: TranslationSummary,
    pub gc: GcSummary,
    pub flash: FlashSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub physical_fragmentation: Option<DopSummary>,
    pub memory: MemorySummary,
}

#[derive(Serialize)]
pub struct DeviceInfo {
    pub name: Option<String>,
    pub logical_bytes: u64,
    pub physical_bytes: u64,
    pub page_size: u32,
    pub pages_per_block: u32,
    pub parallel_units: u32,
    pub channels: u32,
    pub over_provisioning: f64,
    pub model: FtlConfig,
}

#[derive(Serialize)]
pub struct ReplayInfo {
    pub trace_files: Vec<String>,
    pub format: String,
    pub arrivals: Arrivals,
    pub queue_depth: usize,
    /// Overlap arrivals: the requests kept in flight whatever the trace shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u64>,
    /// Overlap arrivals: how the trace's completion events matched its issues.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<CompletionInfo>,
    pub requests: u64,
    pub skipped_events: u64,
    pub reordered: u64,
    pub precondition_fill: f64,
    pub precondition_random_writes: u64,
    /// Requests of --precondition-trace replayed before the trace (not counted).
    pub precondition_trace_requests: u64,
    /// Writes, trims and flushes of --history-trace replayed before the trace (not
    /// counted).
    pub history_trace_writes: u64,
    /// Every plane was collected to the GC high watermark before the trace (--settle).
    pub settled: bool,
    /// Dirty mapping entries were written back after the trace (counted).
    pub drained_map_cache: bool,
    /// What was accepted but looks wrong (also printed on standard error):
    /// an empty trace, timestamps going back, unknown ssd.conf keys.
    pub warnings: Vec<String>,
}

#[derive(Serialize)]
pub struct CompletionInfo {
    /// Completions matched to a replayed request (by op, sector and length).
    pub matched: u64,
    /// Completions of no request issued before them.
    pub unmatched: u64,
}

#[derive(Serialize)]
pub struct OpSummary {
    pub count: u64,
    pub bytes: u64,
    pub latency_us: LatencySummary,
}

#[derive(Serialize)]
pub struct LatencySummary {
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
    pub total: f64,
}

#[derive(Serialize)]
pub struct TimeSummary {
    /// First arrival to last completion.
    pub makespan_us: f64,
    /// Time with at least one request outstanding: the device time.
    pub device_busy_us: f64,
    /// Sum of all request latencies.
    pub sum_latency_us: f64,
    /// The profile's per-request I/O-stack cost (storage.host_overhead_us).
    pub host_overhead_us: f64,
    /// Modeled time (docs/methods.md, "Timing model"): device busy time + host overhead
    /// x requests.
    pub modeled_us: f64,
}

#[derive(Serialize)]
pub struct CacheSummary {
    pub mode: crate::config::CacheMode,
    pub capacity_bytes: u64,
    /// Entries (entry mode) or translation pages (tpage mode).
    pub capacity_items: u32,
    pub hits: u64,
    pub misses: u64,
    pub hit_ratio: f64,
    pub dirty_evictions: u64,
}

#[derive(Serialize)]
pub struct TranslationSummary {
    pub page_reads: u64,
    pub page_writes: u64,
    pub gc_batch_updates: u64,
}

#[derive(Serialize)]
pub struct GcSummary {
    pub foreground_runs: u64,
    pub background_runs: u64,
    pub data_page_copies: u64,
    pub translation_page_copies: u64,
    pub erases: u64,
    pub max_block_erases: u32,
    pub mean_block_erases: f64,
}

#[derive(Serialize)]
pub struct FlashSummary {
    pub host_page_writes: u64,
    pub host_page_reads: u64,
    pub rmw_page_reads: u64,
    pub unmapped_page_reads: u64,
    pub trimmed_pages: u64,
    pub remapped_pages: u64,
    pub page_programs: u64,
    pub page_reads: u64,
    pub bytes_written: u64,
    /// All page programs / host page programs.
    pub waf: f64,
    /// Data page programs (host + GC copies) / host page programs.
    pub waf_data: f64,
}

#[derive(Serialize)]
pub struct MemorySummary {
    pub state_bytes_without_cache: u64,
    pub bytes_per_physical_page: f64,
    pub cache_model_bytes: u64,
}

fn us(ns: f64) -> f64 {
    (ns / 1000.0 * 1000.0).round() / 1000.0
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

pub struct RunInfo {
    pub device_name: Option<String>,
    pub host_overhead_us: f64,
    pub trace_files: Vec<String>,
    pub format: String,
    pub arrivals: Arrivals,
    pub queue_depth: usize,
    pub threads: Option<u64>,
    pub precondition_fill: f64,
    pub precondition_random_writes: u64,
    pub precondition_trace_requests: u64,
    pub history_trace_writes: u64,
    pub settled: bool,
    pub drained_map_cache: bool,
    pub warnings: Vec<String>,
}

pub fn build(ftl: &Ftl, run: RunInfo, report: &ReplayReport, dop: Option<DopSummary>) -> Summary {
    let geo = ftl.geometry();
    let cfg = ftl.config();
    let c = &ftl.counters;
    let r = &ftl.requests;
    let mut requests = BTreeMap::new();
    for op in Op::ALL {
        let s = &r.ops[op.index()];
        let h = &s.latency;
        requests.insert(
            op.name(),
            OpSummary {
                count: s.count,
                bytes: s.bytes,
                latency_us: LatencySummary {
                    mean: us(h.mean()),
                    p50: us(h.quantile(0.5) as f64),
                    p99: us(h.quantile(0.99) as f64),
                    max: us(h.max() as f64),
                    total: us(h.sum() as f64),
                },
            },
        );
    }
    let cs = ftl.cache().stats;
    let erases = ftl.erase_counts();
    let programs = c.total_programs();
    let mem = ftl.memory_bytes_without_cache() as u64;
    Summary {
        tool: "ftl-sim",
        version: env!("CARGO_PKG_VERSION"),
        device: DeviceInfo {
            name: run.device_name,
            logical_bytes: geo.logical_pages * u64::from(geo.page_size),
            physical_bytes: geo.physical_pages * u64::from(geo.page_size),
            page_size: geo.page_size,
            pages_per_block: geo.pages_per_block,
            parallel_units: geo.units,
            channels: geo.channels,
            over_provisioning: cfg.over_provisioning,
            model: cfg.clone(),
        },
        replay: ReplayInfo {
            trace_files: run.trace_files,
            format: run.format,
            arrivals: run.arrivals,
            queue_depth: run.queue_depth,
            threads: run.threads,
            completions: run.threads.map(|_| CompletionInfo {
                matched: report.completions,
                unmatched: report.unmatched_completions,
            }),
            requests: report.requests,
            skipped_events: report.skipped_events,
            reordered: report.reordered,
            precondition_fill: run.precondition_fill,
            precondition_random_writes: run.precondition_random_writes,
            precondition_trace_requests: run.precondition_trace_requests,
            history_trace_writes: run.history_trace_writes,
            settled: run.settled,
            drained_map_cache: run.drained_map_cache,
            warnings: run.warnings,
        },
        requests,
        time: TimeSummary {
            makespan_us: us(r.makespan() as f64),
            device_busy_us: us(r.busy_ns as f64),
            sum_latency_us: us(r.sum_latency() as f64),
            host_overhead_us: run.host_overhead_us,
            modeled_us: us(r.busy_ns as f64) + run.host_overhead_us * r.requests() as f64,
        },
        map_cache: CacheSummary {
            mode: cfg.cache.mode,
            capacity_bytes: cfg.cache.bytes,
            capacity_items: ftl.cache().capacity(),
            hits: cs.hits,
            misses: cs.misses,
            hit_ratio: ratio(cs.hits, cs.hits + cs.misses),
            dirty_evictions: cs.dirty_evictions,
        },
        translation: TranslationSummary {
            page_reads: c.translation_reads,
            page_writes: c.translation_programs,
            gc_batch_updates: c.gc_translation_updates,
        },
        gc: GcSummary {
            foreground_runs: c.foreground_gc,
            background_runs: c.background_gc,
            data_page_copies: c.gc_data_copies,
            translation_page_copies: c.gc_translation_copies,
            erases: c.erases,
            max_block_erases: erases.iter().copied().max().unwrap_or(0),
            mean_block_erases: erases.iter().map(|&e| f64::from(e)).sum::<f64>()
                / erases.len().max(1) as f64,
        },
        flash: FlashSummary {
            host_page_writes: c.host_page_programs,
            host_page_reads: c.host_page_reads,
            rmw_page_reads: c.rmw_page_reads,
            unmapped_page_reads: c.unmapped_page_reads,
            trimmed_pages: c.trimmed_pages,
            remapped_pages: c.remapped_pages,
            page_programs: programs,
            page_reads: c.total_reads(),
            bytes_written: programs * u64::from(geo.page_size),
            waf: ratio(programs, c.host_page_programs),
            waf_data: ratio(
                c.host_page_programs + c.gc_data_copies,
                c.host_page_programs,
            ),
        },
        physical_fragmentation: dop,
        memory: MemorySummary {
            state_bytes_without_cache: mem,
            bytes_per_physical_page: mem as f64 / geo.physical_pages as f64,
            cache_model_bytes: ftl.cache_memory_bytes() as u64,
        },
    }
}
