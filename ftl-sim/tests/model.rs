//! Behaviour of the device model against published results and simple
//! analytic expectations.

mod common;

use common::*;
use ftl_sim::config::{CacheMode, VictimPolicy};
use ftl_sim::rng::SplitMix64;
use ftl_sim::synth::random_in_region;
use ftl_sim::{Ftl, Op, Request};

/// Random reads over N pages with an LRU cache of C entries (DFTL entry
/// mode): the hit ratio of the independent reference model is C/N.
#[test]
fn entry_cache_random_reads_hit_ratio_is_c_over_n() {
    let n_pages = 100_000u64;
    let c_entries = 10_000u64;
    let cfg = small(4, 256, 128, 0.25, CacheMode::Entry, c_entries * 4);
    let mut ftl = Ftl::new(&cfg).unwrap();
    ftl.precondition_sequential(1.0).unwrap();
    let mut rng = SplitMix64::new(3);
    let warm = random_in_region(Op::Read, 50_000, n_pages * 8, 8, 0, &mut rng);
    run_closed(&mut ftl, warm);
    ftl.reset_measurements();
    let reqs = random_in_region(Op::Read, 200_000, n_pages * 8, 8, 0, &mut rng);
    run_closed(&mut ftl, reqs);
    let s = ftl.cache().stats;
    let hit = s.hits as f64 / (s.hits + s.misses) as f64;
    let expected = c_entries as f64 / n_pages as f64;
    assert!(
        (hit - expected).abs() < 0.01,
        "hit ratio {hit:.4}, expected {expected:.4}"
    );
}

/// Sequential reads in translation-page mode miss once per translation page.
#[test]
fn tpage_cache_sequential_reads_miss_once_per_translation_page() {
    let cfg = small(4, 256, 128, 0.25, CacheMode::Tpage, 16 * 1024);
    let mut ftl = Ftl::new(&cfg).unwrap();
    ftl.precondition_sequential(1.0).unwrap();
    let pages = 50_000u64;
    let reqs = (0..pages)
        .map(|p| Request::new(0, Op::Read, p * 8, 8))
        .collect();
    run_closed(&mut ftl, reqs);
    let s = ftl.cache().stats;
    assert_eq!(s.misses, pages.div_ceil(1024));
    assert_eq!(s.hits + s.misses, pages);
}

/// Lambert W, principal branch, for x in [-1/e, 0).
fn lambert_w0(x: f64) -> f64 {
    let mut w = if x < -0.3 {
        -1.0 + (2.0 * (1.0 + std::f64::consts::E * x)).sqrt()
    } else {
        x
    };
    for _ in 0..100 {
        let ew = w.exp();
        let f = w * ew - x;
        let step = f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
        w -= step;
        if step.abs() < 1e-14 {
            break;
        }
    }
    w
}

/// Write amplification under uniform random writes with greedy GC, after
/// Xiang and Kurkoski, "An Improved Analytical Expression for Write
/// Amplification in NAND Flash" (arXiv:1110.4245, ICNC 2012):
/// WA = alpha / (alpha + W0(-alpha e^-alpha)), alpha = physical / user pages
/// (e.g. 2.36 at over-provisioning 0.3, their simulation: 2.35).
fn xiang_kurkoski(alpha: f64) -> f64 {
    alpha / (alpha + lambert_w0(-alpha * (-alpha).exp()))
}

#[test]
fn lambert_reproduces_the_papers_example() {
    assert!((xiang_kurkoski(1.3) - 2.36).abs() < 0.01);
}

/// Uniform random writes with greedy GC: data WAF within 10 % of the model.
/// The whole map is cached (no translation traffic), so only GC copies count;
/// alpha is taken over the blocks GC can actually use (all but each plane's
/// reserve and open blocks and the translation pages).
#[test]
fn greedy_waf_matches_published_model() {
    for op in [0.15, 0.3, 0.5] {
        let (units, blocks, ppb) = (4u32, 512u32, 64u32);
        let mut cfg = small(units, blocks, ppb, op, CacheMode::Entry, 1 << 30);
        cfg.gc.background = false;
        let mut ftl = Ftl::new(&cfg).unwrap();
        let geo = ftl.geometry().clone();
        ftl.precondition_sequential(1.0).unwrap();
        ftl.precondition_random(geo.logical_pages * 4, 11).unwrap();
        let mut rng = SplitMix64::new(5);
        let n = geo.logical_pages * 4;
        let reqs = random_in_region(Op::Write, n, geo.logical_pages * 8, 8, 0, &mut rng);
        run_closed(&mut ftl, reqs);
        let c = ftl.counters;
        let waf = (c.host_page_programs + c.gc_data_copies) as f64 / c.host_page_programs as f64;
        let reserve_pages = u64::from(units) * u64::from(cfg.gc.low_watermark + 2) * u64::from(ppb);
        let usable = geo.physical_pages - reserve_pages - u64::from(geo.tpages);
        let alpha = usable as f64 / geo.logical_pages as f64;
        let model = xiang_kurkoski(alpha);
        let err = (waf - model).abs() / model;
        eprintln!(
            "op {op}: alpha {alpha:.3}, measured WAF {waf:.3}, model {model:.3}, error {:.1} %",
            err * 100.0
        );
        assert!(err < 0.10, "op {op}: WAF {waf:.3} vs model {model:.3}");
    }
}

/// Greedy never does worse than FIFO, and cost-benefit runs.
#[test]
fn victim_policies_rank_as_expected() {
    let mut wafs = Vec::new();
    for policy in [
        VictimPolicy::Greedy,
        VictimPolicy::Fifo,
        VictimPolicy::CostBenefit,
    ] {
        let mut cfg = small(2, 256, 64, 0.2, CacheMode::Entry, 1 << 30);
        cfg.gc.policy = policy;
        let mut ftl = Ftl::new(&cfg).unwrap();
        let lp = ftl.geometry().logical_pages;
        ftl.precondition_sequential(1.0).unwrap();
        ftl.precondition_random(lp * 2, 1).unwrap();
        let mut rng = SplitMix64::new(2);
        run_closed(
            &mut ftl,
            random_in_region(Op::Write, lp * 2, lp * 8, 8, 0, &mut rng),
        );
        ftl.check_invariants().unwrap();
        let c = ftl.counters;
        wafs.push((c.host_page_programs + c.gc_data_copies) as f64 / c.host_page_programs as f64);
    }
    assert!(
        wafs[0] <= wafs[1] * 1.01,
        "greedy {} vs fifo {}",
        wafs[0],
        wafs[1]
    );
    assert!(
        wafs[2] < wafs[1] * 1.2,
        "cost-benefit {} vs fifo {}",
        wafs[2],
        wafs[1]
    );
}

/// A defragmentation plan: `files` files of `frags` fragments of `frag_pages`
/// pages each, scattered over the first half of the space, each to be made
/// contiguous in the second half.
struct Plan {
    moves: Vec<(u64, u64, u64)>,
}

fn plan(ftl: &Ftl, files: u64, frags: u64, frag_pages: u64) -> Plan {
    let lp = ftl.geometry().logical_pages;
    let mut rng = SplitMix64::new(9);
    let slots = (lp / 2) / frag_pages;
    let mut used = std::collections::HashSet::new();
    let mut moves = Vec::new();
    let mut dst = lp / 2;
    for _ in 0..files {
        for _ in 0..frags {
            let slot = loop {
                let s = rng.below(slots);
                if used.insert(s) {
                    break s;
                }
            };
            moves.push((slot * frag_pages, dst, frag_pages));
            dst += frag_pages;
        }
    }
    Plan { moves }
}

fn programs(ftl: &Ftl) -> (u64, u64) {
    let c = ftl.counters;
    (c.host_page_programs + c.gc_data_copies, c.total_programs())
}

/// TMC Fig. 17b: janusd's remap-based defragmentation wrote 98 % less to
/// flash than e4defrag's copies. Same plan both ways: copy = read + write
/// to the destination + trim the source; remap = REMAP commands.
#[test]
fn remap_defrag_writes_at_most_two_percent_of_copy_defrag() {
    let cfg = small(4, 512, 128, 0.25, CacheMode::Tpage, 128 * 1024);
    let spp = 8;
    let mut results = Vec::new();
    for remap in [false, true] {
        let mut ftl = Ftl::new(&cfg).unwrap();
        ftl.precondition_sequential(0.5).unwrap();
        let p = plan(&ftl, 40, 8, 64);
        let mut reqs = Vec::new();
        for &(src, dst, len) in &p.moves {
            if remap {
                reqs.push(Request::remap(0, src * spp, dst * spp, len * spp));
            } else {
                reqs.push(Request::new(0, Op::Read, src * spp, len * spp));
                reqs.push(Request::new(0, Op::Write, dst * spp, len * spp));
                reqs.push(Request::new(0, Op::Trim, src * spp, len * spp));
            }
        }
        let before: Vec<Option<u32>> = p.moves.iter().map(|&(s, _, _)| ftl.lookup(s)).collect();
        run_closed(&mut ftl, reqs);
        ftl.drain_map_cache(0).unwrap();
        ftl.check_invariants().unwrap();
        if remap {
            for (&(src, dst, _), old) in p.moves.iter().zip(before) {
                assert_eq!(ftl.lookup(dst), old, "remapped page keeps its flash page");
                assert_eq!(ftl.lookup(src), None);
            }
        }
        results.push(programs(&ftl));
    }
    let (copy, remap) = (results[0], results[1]);
    eprintln!(
        "copy-based: {} data / {} total page programs; remap-based: {} / {}",
        copy.0, copy.1, remap.0, remap.1
    );
    assert!(remap.0 as f64 <= 0.02 * copy.0 as f64);
    assert!(remap.1 as f64 <= 0.02 * copy.1 as f64);
}

/// Total time of 10,000 synchronous 4 KiB random I/Os in a region.
fn region_time(op: Op, region_bytes: u64, cache_bytes: u64, gc: bool) -> f64 {
    let mut cfg = emmc();
    cfg.cache.bytes = cache_bytes;
    let mut ftl = Ftl::new(&cfg).unwrap();
    ftl.precondition_sequential(1.0).unwrap();
    if gc {
        let lp = ftl.geometry().logical_pages;
        ftl.precondition_random(lp / 8, 4).unwrap();
    }
    let mut rng = SplitMix64::new(17);
    run_closed(
        &mut ftl,
        random_in_region(op, 10_000, region_bytes / 512, 8, 0, &mut rng),
    );
    total_us(&ftl)
}

/// TMC Fig. 13c's trend on the eMMC profile.
#[test]
fn fig13c_region_size_trend() {
    const MB: u64 = 1_000_000;
    let regions = [MB, 10 * MB, 100 * MB, 1000 * MB, 2000 * MB];
    for op in [Op::Read, Op::Write] {
        let small: Vec<f64> = regions
            .iter()
            .map(|&r| region_time(op, r, 16 * 1024, false))
            .collect();
        let large: Vec<f64> = regions
            .iter()
            .map(|&r| region_time(op, r, 128 * 1024, false))
            .collect();
        eprintln!("{op:?} 16 KiB: {small:?}\n{op:?} 128 KiB: {large:?}");
        for w in small.windows(2) {
            assert!(
                w[1] >= w[0] * 0.999,
                "{op:?}: time must grow with the region: {small:?}"
            );
        }
        assert!(
            small[4] > small[0] * 1.2,
            "{op:?}: 2 GB region clearly slower than 1 MB"
        );
        let growth_small = small[2] - small[0];
        let growth_large = large[2] - large[0];
        assert!(
            growth_large <= 0.25 * growth_small,
            "{op:?}: 128 KiB removes most growth up to 100 MB"
        );
    }
    let no_gc = region_time(Op::Write, 2000 * MB, 128 * 1024, false);
    let with_gc = region_time(Op::Write, 2000 * MB, 128 * 1024, true);
    assert!(
        with_gc > no_gc * 1.1,
        "GC makes writes slower: {with_gc} vs {no_gc}"
    );
}

/// The 16 KiB page option: 4 KiB writes into mapped 16 KiB pages are
/// read-modify-writes, a translation page holds 4,096 entries.
#[test]
fn sixteen_kib_pages() {
    let mut cfg = small(4, 128, 64, 0.25, CacheMode::Tpage, 64 * 1024);
    cfg.geometry.page_size = 16384;
    let mut ftl = Ftl::new(&cfg).unwrap();
    assert_eq!(ftl.geometry().entries_per_tpage, 4096);
    assert_eq!(ftl.geometry().sectors_per_page(), 32);
    ftl.precondition_sequential(1.0).unwrap();
    let mut rng = SplitMix64::new(8);
    let lp = ftl.geometry().logical_pages;
    run_closed(
        &mut ftl,
        random_in_region(Op::Write, 5000, lp * 32, 8, 0, &mut rng),
    );
    assert_eq!(ftl.counters.rmw_page_reads, 5000);
    assert_eq!(ftl.counters.host_page_programs, 5000);
    ftl.check_invariants().unwrap();
}

/// DoF_P of two 64-page files whose pages were written alternately, one page per
/// request, under `allocation`.
fn interleaved_files_dof_p(allocation: &str, buffer_pages: u32) -> Vec<f64> {
    let mut cfg = small(8, 64, 64, 0.25, CacheMode::Whole, 0);
    cfg.allocation = serde_yaml::from_str(allocation).unwrap();
    cfg.write_buffer_pages = buffer_pages;
    let mut ftl = Ftl::new(&cfg).unwrap();
    let (a, b, pages) = (0u64, 1024u64, 64u64);
    let reqs = (0..pages)
        .flat_map(|i| [a + i, b + i])
        .map(|p| Request::new(0, Op::Write, p * 8, 8))
        .collect();
    run_closed(&mut ftl, reqs);
    [a, b]
        .iter()
        .map(|&start| {
            let mut extents = [ftl_sim::dop::Extent {
                logical: Some(0),
                physical: start * 4096,
                length: pages * 4096,
            }];
            ftl_sim::dop::file_dop(&ftl, "f", &mut extents, 0).dof_p
        })
        .collect()
}

#[test]
fn buffered_allocation_stripes_each_interleaved_run() {
    // Round robin in write order gives each file every other plane: 4 of 8.
    for dof_p in interleaved_files_dof_p("round_robin", 128) {
        assert!((dof_p - 0.5).abs() < 1e-9, "round robin DoF_P {dof_p}");
    }
    // A buffer that holds both runs stripes each over all eight planes.
    for dof_p in interleaved_files_dof_p("buffered", 128) {
        assert!(dof_p.abs() < 1e-9, "buffered DoF_P {dof_p}");
    }
    // A one-page buffer has forgotten the predecessor: round robin again.
    for dof_p in interleaved_files_dof_p("buffered", 1) {
        assert!((dof_p - 0.5).abs() < 1e-9, "one-page buffer DoF_P {dof_p}");
    }
}
