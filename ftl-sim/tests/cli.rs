//! The command line end to end: summaries, DoP tables, imports, and bad
//! input giving a one-line error (file and line/offset) and exit status 1.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ftl-sim"))
}

fn tmpdir(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("cli-{name}"))
}

/// A small device profile: 4 planes on 4 channels, 64 MiB-ish.
fn profile(dir: &Path) -> PathBuf {
    let p = dir.join("tiny.yaml");
    std::fs::write(
        &p,
        "name: tiny\nstorage:\n  class: emmc\n  host_overhead_us: 34\n  ftl:\n    geometry: {channels: 4, ways_per_channel: 1, blocks_per_plane: 128, pages_per_block: 64}\n    over_provisioning: 0.25\n    timing: {page_read_us: 50, page_program_us: 500, block_erase_us: 3000, channel_mb_per_s: 200, host_mb_per_s: 400}\n    cache: {mode: entry, bytes: 4096}\n",
    )
    .unwrap();
    p
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn replay(dev: &Path, format: &str, trace: &Path, extra: &[&str]) -> Output {
    bin()
        .args(["replay", "--device"])
        .arg(dev)
        .args(["--format", format])
        .arg(trace)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn replay_writes_a_complete_json_summary() {
    let d = tmpdir("summary");
    let dev = profile(&d);
    let t = d.join("t.blktrace.0");
    let g = bin()
        .args([
            "gen",
            "--op",
            "write-read",
            "--count",
            "2000",
            "--region-bytes",
            "8000000",
            "--format",
            "blktrace",
            "--gap-ns",
            "100000",
            "-o",
        ])
        .arg(&t)
        .output()
        .unwrap();
    assert!(g.status.success(), "{}", stderr(&g));
    let out = d.join("s.json");
    let per = d.join("per.csv");
    let o = replay(
        &dev,
        "blktrace",
        &d,
        &[
            "--per-request",
            per.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(s["requests"]["write"]["count"], 2000);
    assert_eq!(s["requests"]["read"]["count"], 2000);
    for key in ["mean", "p50", "p99", "max"] {
        assert!(s["requests"]["read"]["latency_us"][key].as_f64().unwrap() > 0.0);
    }
    for path in [
        "/time/device_busy_us",
        "/map_cache/hits",
        "/map_cache/misses",
        "/translation/page_reads",
        "/translation/page_writes",
        "/gc/erases",
        "/gc/data_page_copies",
        "/flash/waf",
        "/flash/bytes_written",
    ] {
        assert!(s.pointer(path).is_some(), "{path} missing");
    }
    assert_eq!(s["replay"]["skipped_events"], 8000);
    let busy = s["time"]["device_busy_us"].as_f64().unwrap();
    let modeled = s["time"]["modeled_us"].as_f64().unwrap();
    assert!(
        (modeled - busy - 34.0 * 4000.0).abs() < 1.0,
        "modeled = busy + 34 us x requests"
    );
    let lines = std::fs::read_to_string(&per).unwrap().lines().count();
    assert_eq!(lines, 4001);
}

#[test]
fn an_address_beyond_the_device_names_address_capacity_file_and_line() {
    let d = tmpdir("range");
    let dev = profile(&d);
    let t = d.join("t.csv");
    std::fs::write(&t, "0,W,0,8\n1,W,999999999,8\n").unwrap();
    let o = replay(&dev, "csv", &t, &[]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("t.csv") && e.contains("line 2"), "{e}");
    assert!(e.contains("999999999") && e.contains("capacity"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
}

#[test]
fn malformed_input_is_a_one_line_error_not_a_panic() {
    let d = tmpdir("bad");
    let dev = profile(&d);
    let t = d.join("t.csv");
    std::fs::write(&t, "0,W,0,8\n1,W,zz,8\n").unwrap();
    let o = replay(&dev, "csv", &t, &[]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("t.csv: line 2"), "{e}");

    let b = d.join("x.blktrace.0");
    std::fs::write(&b, [0x07u8, 0x74, 0x61, 0x65, 1, 2, 3]).unwrap();
    let o = replay(&dev, "blktrace", &b, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("byte offset 0"), "{}", stderr(&o));

    let bad_dev = d.join("bad.yaml");
    std::fs::write(&bad_dev, "name: x\nstorage:\n  ftl:\n    geometry: {channels: 0, ways_per_channel: 1, blocks_per_plane: 8, pages_per_block: 8}\n    timing: {page_read_us: 1, page_program_us: 1, block_erase_us: 1, channel_mb_per_s: 1, host_mb_per_s: 1}\n").unwrap();
    let o = replay(&bad_dev, "csv", &t, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("storage.ftl.geometry.channels"),
        "{}",
        stderr(&o)
    );

    let o = replay(&dev, "csv", &d.join("missing.csv"), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("missing.csv"));
}

#[test]
fn dop_of_striped_and_single_unit_files() {
    let d = tmpdir("dop");
    let dev = profile(&d);
    // File A: 16 pages written in one request (striped over the 4 planes).
    // File B: pages 100, 104, 108, ... written one by one with 3 other
    // pages between them, so every page of B lands on the same plane.
    let mut csv = String::from("0,W,0,128\n");
    for i in 0..16u64 {
        let b = 800 + i * 8;
        csv.push_str(&format!(
            "1,W,{b},8\n1,W,{},8\n1,W,{},8\n1,W,{},8\n",
            4000 + i * 24,
            4008 + i * 24,
            4016 + i * 24
        ));
    }
    let t = d.join("t.csv");
    std::fs::write(&t, csv).unwrap();
    let ext = d.join("extents.tsv");
    std::fs::write(
        &ext,
        "path\tlogical_bytes\tphysical_bytes\tlength_bytes\nA\t0\t0\t65536\nB\t0\t409600\t65536\n",
    )
    .unwrap();
    let dop = d.join("dop.csv");
    let out = d.join("s.json");
    let o = replay(
        &dev,
        "csv",
        &t,
        &[
            "--extents",
            ext.to_str().unwrap(),
            "--dop-out",
            dop.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&dop).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows[0][0], "A");
    assert_eq!(rows[0][4], "1.000000");
    assert_eq!(rows[1][0], "B");
    assert_eq!(
        rows[1][4], "0.250000",
        "all pages on one of 4 planes: DoP = 1/M"
    );
    assert_eq!(rows[1][5], "0.750000");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(s["physical_fragmentation"]["files"], 2);
}

/// A FlashSim ssd.conf: 2 packages x 2 dies x 2 planes x 256 blocks x 64 pages =
/// 2^17 pages, so FlashSim's DFTL stores a mapping entry in 3 bytes (17 address
/// bits) and a 4 KiB translation page holds 1,365 of them.
const SSD_CONF: &str = "# FlashSim-style\nRAM_READ_DELAY 0.01\nBUS_CTRL_DELAY 2\nBUS_DATA_DELAY 10\nSSD_SIZE 2\nPACKAGE_SIZE 2\nDIE_SIZE 2\nPLANE_SIZE 256\nBLOCK_SIZE 64\nBLOCK_ERASE_DELAY 1500\nPAGE_READ_DELAY 25\nPAGE_WRITE_DELAY 200\nPAGE_SIZE 4096\nFTL_IMPLEMENTATION 3\nCACHE_DFTL_LIMIT 8\n";

fn show_conf(conf: &Path) -> Output {
    bin()
        .args(["show", "--flashsim-conf"])
        .arg(conf)
        .output()
        .unwrap()
}

#[test]
fn flashsim_conf_import_and_uflip_trace() {
    let d = tmpdir("flashsim");
    let conf = d.join("ssd.conf");
    std::fs::write(&conf, SSD_CONF).unwrap();
    let t = d.join("u.trace");
    // FlashSim's own uFLIP lines (pattern; op; page; query; size; arrival) and the
    // five-field form without size.
    std::fs::write(&t, "R; W; 5; 0; 1; 0\nR; W; 6; 0; 4; 10\nR; R; 5; 0; 20\n").unwrap();
    let o = bin()
        .args(["replay", "--flashsim-conf"])
        .arg(&conf)
        .args(["--format", "uflip"])
        .arg(&t)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["device"]["parallel_units"], 8);
    assert_eq!(s["map_cache"]["mode"], "entry");
    // CACHE_DFTL_LIMIT counts translation pages: 8 x 1,365 entries.
    assert_eq!(s["map_cache"]["capacity_items"], 8 * 1365);
    assert_eq!(s["requests"]["write"]["count"], 2);
    assert_eq!(s["flash"]["host_page_writes"], 5);
    let shown: serde_json::Value = serde_json::from_slice(&show_conf(&conf).stdout).unwrap();
    assert_eq!(shown["derived"]["entries_per_translation_page"], 1365);
    assert_eq!(shown["model"]["cache"]["entry_bytes"], 3);
    std::fs::write(&conf, "SSD_SIZE two\n").unwrap();
    let o = show_conf(&conf);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("ssd.conf: line 1"), "{}", stderr(&o));
}

#[test]
fn flashsim_conf_refuses_what_flashsim_would_misread() {
    let d = tmpdir("flashsim-bad");
    let conf = d.join("ssd.conf");
    for (line, key) in [
        ("BUS_DATA_DELAY -10", "BUS_DATA_DELAY"),
        ("PAGE_READ_DELAY -1", "PAGE_READ_DELAY"),
        ("CACHE_DFTL_LIMIT 0", "CACHE_DFTL_LIMIT"),
        ("CACHE_DFTL_LIMIT 2.5", "CACHE_DFTL_LIMIT"),
    ] {
        std::fs::write(&conf, format!("{SSD_CONF}{line}\n")).unwrap();
        let o = show_conf(&conf);
        assert_eq!(o.status.code(), Some(1), "{line} was accepted");
        let e = stderr(&o);
        assert!(e.contains(key) && e.contains("line 16"), "{line}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn whole_map_mode_never_touches_translation_pages() {
    // FTL_IMPLEMENTATION 0: FlashSim's page-mapping FTL keeps the whole map in RAM.
    // After a fill and random overwrites (GC active) the measured writes must not be
    // charged translation-page reads or writes, so total WAF = data WAF.
    let d = tmpdir("whole-map");
    let conf = d.join("ssd.conf");
    std::fs::write(
        &conf,
        "SSD_SIZE 1\nPACKAGE_SIZE 1\nDIE_SIZE 4\nPLANE_SIZE 128\nBLOCK_SIZE 64\nFTL_IMPLEMENTATION 0\n",
    )
    .unwrap();
    let t = d.join("w.csv");
    let g = bin()
        .args(["gen", "--op", "write", "--count", "20000", "--region-bytes"])
        .arg((100 * 1024 * 1024).to_string())
        .arg("-o")
        .arg(&t)
        .output()
        .unwrap();
    assert!(g.status.success(), "{}", stderr(&g));
    let o = bin()
        .args(["replay", "--flashsim-conf"])
        .arg(&conf)
        .args(["--flashsim-op", "0.15", "--format", "csv"])
        .args([
            "--precondition-fill",
            "1",
            "--precondition-random-fraction",
            "1",
        ])
        .arg(&t)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["map_cache"]["mode"], "whole");
    assert_eq!(s["map_cache"]["misses"], 0);
    assert_eq!(s["translation"]["page_reads"], 0);
    assert_eq!(s["translation"]["page_writes"], 0);
    assert_eq!(s["translation"]["gc_batch_updates"], 0);
    assert!(
        s["gc"]["data_page_copies"].as_u64().unwrap() > 0,
        "GC did not run"
    );
    let (waf, data) = (
        s["flash"]["waf"].as_f64().unwrap(),
        s["flash"]["waf_data"].as_f64().unwrap(),
    );
    assert!(data > 1.5 && waf == data, "WAF {waf}, data WAF {data}");
}

#[test]
fn silent_acceptances_are_errors_or_warnings_naming_the_field() {
    let d = tmpdir("silent");
    let dev = profile(&d);
    let t = d.join("t.csv");
    // A zero-length read or write is an error naming the field and line.
    std::fs::write(&t, "0,W,0,8\n1,R,8,0\n").unwrap();
    let o = replay(&dev, "csv", &t, &[]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("line 2") && e.contains("sectors: 0"), "{e}");
    // A flush has no length.
    std::fs::write(&t, "0,W,0,8\n1,F,0,0\n").unwrap();
    assert!(replay(&dev, "csv", &t, &[]).status.success());
    // An empty trace replays (every count 0) but says so.
    std::fs::write(&t, "time_ns,op,sector,sectors\n").unwrap();
    let o = replay(&dev, "csv", &t, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: empty trace"),
        "{}",
        stderr(&o)
    );
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(s["replay"]["warnings"][0]
        .as_str()
        .unwrap()
        .contains("no requests"));
    // Inverted GC watermarks name the field.
    let p = d.join("inverted.yaml");
    let text = std::fs::read_to_string(&dev).unwrap().replace(
        "    cache:",
        "    gc: {low_watermark: 8, high_watermark: 4}\n    cache:",
    );
    std::fs::write(&p, text).unwrap();
    let o = bin().args(["show", "--device"]).arg(&p).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("storage.ftl.gc.high_watermark"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn timestamps_going_back_are_counted_in_every_arrival_mode() {
    let d = tmpdir("reordered");
    let dev = profile(&d);
    let t = d.join("t.csv");
    std::fs::write(&t, "100,W,0,8\n50,W,8,8\n200,W,16,8\n150,R,0,8\n").unwrap();
    for arrivals in ["trace", "closed"] {
        let o = replay(&dev, "csv", &t, &["--arrivals", arrivals]);
        assert!(o.status.success(), "{}", stderr(&o));
        let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(s["replay"]["reordered"], 2, "{arrivals}");
        assert!(stderr(&o).contains("2 requests"), "{}", stderr(&o));
    }
}

#[test]
fn an_address_near_2_to_the_64_prints_its_real_numbers() {
    let d = tmpdir("huge");
    let dev = profile(&d);
    let t = d.join("t.csv");
    std::fs::write(&t, "0,R,18446744073709551615,8\n").unwrap();
    let o = replay(&dev, "csv", &t, &[]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    // 2^64 - 1 + 8 sectors; bytes (2^64 - 1) x 512 and (2^64 + 7) x 512.
    assert!(
        e.contains("sectors 18446744073709551615..18446744073709551623"),
        "{e}"
    );
    assert!(
        e.contains("bytes 9444732965739290426880..9444732965739290430976"),
        "{e}"
    );
}

#[test]
fn both_device_profiles_load() {
    for name in ["emulator-emmc", "emulator-ufs"] {
        let p = common::repo().join(format!("devices/{name}.yaml"));
        let o = bin().args(["show", "--device"]).arg(&p).output().unwrap();
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let bytes = v["derived"]["logical_bytes"].as_u64().unwrap();
        assert!(
            bytes > 32 << 30,
            "{name}: ~32 GiB logical space, got {bytes}"
        );
    }
}

#[test]
fn convert_turns_blktrace_into_the_csv_a_replay_reads() {
    let d = tmpdir("convert");
    let dev = profile(&d);
    let bt = d.join("bt");
    std::fs::create_dir_all(&bt).unwrap();
    let gen = |format: &str, out: &Path| {
        let g = bin()
            .args(["gen", "--op", "write-read", "--count", "300"])
            .args(["--region-bytes", "4000000", "--gap-ns", "50000"])
            .args(["--seed", "7", "--format", format, "-o"])
            .arg(out)
            .output()
            .unwrap();
        assert!(g.status.success(), "{}", stderr(&g));
    };
    gen("blktrace", &bt.join("t.blktrace.0"));
    let csv = d.join("t.csv");
    let c = bin()
        .args(["convert", "--format", "blktrace", "-o"])
        .arg(&csv)
        .arg(&bt)
        .output()
        .unwrap();
    assert!(c.status.success(), "{}", stderr(&c));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("time_ns,op,sector,sectors,dst_sector"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 600);
    // Issue events are 1 µs after the generated request times (the generator's Q→D gap).
    assert!(rows[0].starts_with("1000,write,"), "{}", rows[0]);
    assert!(rows[599].contains(",read,"), "{}", rows[599]);
    // The converted CSV replays to the same requests as the binary trace.
    let summary = |fmt: &str, trace: &Path, name: &str| {
        let out = d.join(name);
        let o = replay(&dev, fmt, trace, &["-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
        (v["requests"].clone(), v["flash"].clone())
    };
    assert_eq!(
        summary("blktrace", &bt, "a.json"),
        summary("csv", &csv, "b.json")
    );
}

#[test]
fn drain_cache_counts_mapping_updates_left_in_the_cache() {
    // Remaps only change mapping entries: with a cache large enough to hold them they
    // are never evicted, so translation writes appear only when the cache is drained.
    let d = tmpdir("drain");
    let dev = profile(&d);
    let trace = d.join("remap.csv");
    let mut text = String::from("time_ns,op,sector,sectors,dst_sector\n0,write,0,64\n");
    text.push_str("1000,remap,0,64,8192\n");
    std::fs::write(&trace, text).unwrap();
    let run = |extra: &[&str], name: &str| {
        let out = d.join(name);
        let mut args = vec!["--cache-bytes", "65536", "-o", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = replay(&dev, "csv", &trace, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
        v
    };
    let kept = run(&[], "kept.json");
    let drained = run(&["--drain-cache"], "drained.json");
    assert_eq!(kept["translation"]["page_writes"], 0);
    assert_eq!(kept["replay"]["drained_map_cache"], false);
    assert_eq!(drained["replay"]["drained_map_cache"], true);
    // Sectors 0..64 and 8192..8256 are logical pages 0..8 and 1024..1032: two
    // translation pages of 1,024 entries each.
    assert_eq!(drained["translation"]["page_writes"], 2);
    assert_eq!(drained["flash"]["host_page_writes"], 8);
    assert_eq!(drained["flash"]["page_programs"], 10);
    assert_eq!(drained["flash"]["remapped_pages"], 8);
}

#[test]
fn precondition_trace_places_data_without_counting_it() {
    // The file's pages are written by the preconditioning trace, then remapped to a new
    // address: the DoP table finds every page there, and only the remap is counted.
    let d = tmpdir("precondition");
    let dev = profile(&d);
    let before = d.join("before.csv");
    std::fs::write(&before, "time_ns,op,sector,sectors\n0,write,0,64\n").unwrap();
    let trace = d.join("remap.csv");
    std::fs::write(
        &trace,
        "time_ns,op,sector,sectors,dst_sector\n0,remap,0,64,8192\n",
    )
    .unwrap();
    let extents = d.join("extents.tsv");
    std::fs::write(
        &extents,
        "path\tlogical_bytes\tphysical_bytes\tlength_bytes\nf.db\t0\t4194304\t32768\n",
    )
    .unwrap();
    let run = |extra: &[&str], name: &str| {
        let out = d.join(format!("{name}.json"));
        let dop = d.join(format!("{name}.dop.csv"));
        let mut args = vec!["--extents", extents.to_str().unwrap()];
        args.extend_from_slice(&["--dop-out", dop.to_str().unwrap()]);
        args.extend_from_slice(&["-o", out.to_str().unwrap()]);
        args.extend_from_slice(extra);
        let o = replay(&dev, "csv", &trace, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
        let row = std::fs::read_to_string(dop)
            .unwrap()
            .lines()
            .nth(1)
            .unwrap()
            .to_string();
        (v, row)
    };
    let pre = ["--precondition-trace", before.to_str().unwrap()];
    let (v, row) = run(
        &[&pre[..], &["--precondition-format", "csv"]].concat(),
        "pre",
    );
    assert_eq!(v["replay"]["precondition_trace_requests"], 1);
    assert_eq!(v["flash"]["host_page_writes"], 0);
    assert_eq!(v["flash"]["remapped_pages"], 8);
    assert!(row.starts_with("f.db,8,8,"), "{row}");
    let (v, row) = run(&[], "fresh");
    assert_eq!(v["replay"]["precondition_trace_requests"], 0);
    assert!(row.starts_with("f.db,8,0,"), "{row}");
}

fn gen_reads(dir: &Path, gap_ns: &str) -> PathBuf {
    let t = dir.join(format!("gap{gap_ns}"));
    std::fs::create_dir_all(&t).unwrap();
    let g = bin()
        .args([
            "gen",
            "--op",
            "read",
            "--count",
            "400",
            "--region-bytes",
            "8000000",
        ])
        .args(["--format", "blktrace", "--gap-ns", gap_ns, "-o"])
        .arg(t.join("t.blktrace.0"))
        .output()
        .unwrap();
    assert!(g.status.success(), "{}", stderr(&g));
    t
}

fn device_busy_us(dev: &Path, trace: &Path, extra: &[&str]) -> (f64, serde_json::Value) {
    let mut args = vec!["--precondition-fill", "1.0"];
    args.extend_from_slice(extra);
    let o = replay(dev, "blktrace", trace, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    (s["time"]["device_busy_us"].as_f64().unwrap(), s)
}

#[test]
fn overlap_arrivals_keep_the_traces_issues_before_completions() {
    let d = tmpdir("overlap");
    let dev = profile(&d);
    // gen's requests: issued 1 µs and completed 50 µs after their time; 0 apart,
    // every request is issued before any completes; 100 µs apart, none overlap.
    let together = gen_reads(&d, "0");
    let apart = gen_reads(&d, "100000");
    let (overlapping, s) = device_busy_us(&dev, &together, &["--arrivals", "overlap"]);
    assert_eq!(s["replay"]["arrivals"], "overlap");
    assert_eq!(s["replay"]["threads"], 1);
    assert_eq!(s["replay"]["completions"]["matched"], 400);
    assert_eq!(s["replay"]["completions"]["unmatched"], 0);
    let (serialized, _) = device_busy_us(&dev, &apart, &["--arrivals", "overlap"]);
    assert!(
        overlapping < 0.5 * serialized,
        "{overlapping} vs {serialized}"
    );
    // The closed loop at queue depth 1 gives both traces the serialized time.
    let (closed_together, s) = device_busy_us(&dev, &together, &["--arrivals", "closed"]);
    assert!(s["replay"].get("completions").is_none());
    let (closed_apart, _) = device_busy_us(&dev, &apart, &["--arrivals", "closed"]);
    assert_eq!(closed_together, closed_apart);
    assert_eq!(closed_apart, serialized);
    // --threads: that many requests in flight even where the trace has none.
    let threads = ["--arrivals", "overlap", "--threads", "4"];
    let (four, _) = device_busy_us(&dev, &apart, &threads);
    let (closed_four, _) = device_busy_us(
        &dev,
        &apart,
        &["--arrivals", "closed", "--queue-depth", "4"],
    );
    assert!(four <= closed_four, "{four} vs {closed_four}");
    assert!(four < serialized);
}

#[test]
fn overlap_arrivals_need_completions_and_say_so() {
    let d = tmpdir("overlap-refused");
    let dev = profile(&d);
    let t = d.join("t.csv");
    std::fs::write(&t, "0,R,0,8\n").unwrap();
    let o = replay(&dev, "csv", &t, &["--arrivals", "overlap"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("a csv trace has none"),
        "{}",
        stderr(&o)
    );
    let trace = gen_reads(&d, "0");
    let o = replay(
        &dev,
        "blktrace",
        &trace,
        &["--arrivals", "overlap", "--event", "queue"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("give --event issue"), "{}", stderr(&o));
    let o = replay(
        &dev,
        "blktrace",
        &trace,
        &["--arrivals", "overlap", "--threads", "0"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn a_line_past_the_bound_is_an_error_naming_file_and_line_not_a_whole_read() {
    let d = tmpdir("long-line");
    let dev = profile(&d);
    let long = "9".repeat(ftl_sim::text::MAX_LINE_BYTES + 1);
    let t = d.join("t.csv");
    // a blank first line (every text format skips one), then the long line
    std::fs::write(&t, format!("\n{long}\n0,W,8,8\n")).unwrap();
    for format in ["csv", "blkparse", "uflip", "mqsim"] {
        let o = replay(&dev, format, &t, &[]);
        assert_eq!(o.status.code(), Some(1), "{format}");
        let e = stderr(&o);
        assert!(
            e.contains("t.csv: line 2: line longer than 1048576 bytes"),
            "{format}: {e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // a line of the bound itself is read (and refused for what it says)
    std::fs::write(&t, format!("0,W,0,8\n{}\n", &long[1..])).unwrap();
    let e = stderr(&replay(&dev, "csv", &t, &[]));
    assert!(e.contains("line 2") && !e.contains("longer than"), "{e}");
    // the whole-file readers: a device profile, an ssd.conf, an extent table
    let big_dev = d.join("big.yaml");
    std::fs::write(&big_dev, format!("name: x\n# {long}\n")).unwrap();
    let e = stderr(&replay(&big_dev, "csv", &t, &[]));
    assert!(e.contains("big.yaml: line 2: line longer than"), "{e}");
    let conf = d.join("ssd.conf");
    std::fs::write(&conf, format!("{SSD_CONF}# {long}\n")).unwrap();
    let e = stderr(&show_conf(&conf));
    assert!(e.contains("ssd.conf: line 16: line longer than"), "{e}");
    let extents = d.join("extents.csv");
    std::fs::write(&extents, format!("file,physical,length\n{long}\n")).unwrap();
    std::fs::write(&t, "0,W,0,8\n").unwrap();
    let extents_arg = extents.to_str().unwrap();
    let e = stderr(&replay(&dev, "csv", &t, &["--extents", extents_arg]));
    assert!(e.contains("extents.csv: line 2: line longer than"), "{e}");
}

#[test]
fn a_closed_standard_output_ends_quietly_not_in_a_panic() {
    let d = tmpdir("closed-stdout");
    let dev = profile(&d);
    // a pipe whose reader has already exited: the first write fails with EPIPE
    let mut reader = Command::new("true")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let write_end = reader.stdin.take().unwrap();
    assert!(reader.wait().unwrap().success());
    let o = bin()
        .args(["show", "--device"])
        .arg(&dev)
        .stdout(write_end)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(141), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

#[test]
fn flashsim_strict_refuses_a_misspelt_ssd_conf_key_by_line() {
    let d = tmpdir("flashsim-strict");
    let conf = d.join("ssd.conf");
    std::fs::write(&conf, format!("{SSD_CONF}PAGE_READ_DELAYY 50\n")).unwrap();
    // without the flag: FlashSim's default stays, with a warning naming the line
    let o = show_conf(&conf);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("ssd.conf: line 16: ignoring unknown key PAGE_READ_DELAYY"),
        "{}",
        stderr(&o)
    );
    let o = bin()
        .args(["show", "--flashsim-strict", "--flashsim-conf"])
        .arg(&conf)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("ssd.conf: line 16: unknown key PAGE_READ_DELAYY"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    // FlashSim's own keys that are not modelled pass (RAM_READ_DELAY is one)
    std::fs::write(&conf, SSD_CONF).unwrap();
    let o = bin()
        .args(["show", "--flashsim-strict", "--flashsim-conf"])
        .arg(&conf)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

/// The summary of replaying `measured` (CSV) on `dev` after each of `history` in turn.
fn with_history(dev: &Path, measured: &Path, history: &[&Path]) -> serde_json::Value {
    let mut args: Vec<&str> = vec!["--precondition-fill", "1.0"];
    for h in history {
        args.extend_from_slice(&["--history-trace", h.to_str().unwrap()]);
    }
    let o = replay(dev, "csv", measured, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn history_of_interleaved_writers_slows_the_read_of_one_file() {
    // Four writers append a page each in turn: on four planes taken round robin, each
    // file's pages share one plane, so reading one file's four pages is serial. Written
    // alone, the same pages stripe over the four planes.
    let d = tmpdir("history-interleaved");
    let dev = profile(&d);
    let measured = d.join("read.csv");
    std::fs::write(&measured, "time_ns,op,sector,sectors\n0,read,0,32\n").unwrap();
    let mut interleaved = String::from("time_ns,op,sector,sectors\n");
    let mut alone = interleaved.clone();
    for page in 0..4u64 {
        for file in 0..4u64 {
            let t = (page * 4 + file) * 1_000_000;
            let sector = file * 800 + page * 8;
            interleaved.push_str(&format!("{t},write,{sector},8\n"));
        }
        alone.push_str(&format!("{},write,{},8\n", page * 1_000_000, page * 8));
    }
    let (hi, ha) = (d.join("interleaved.csv"), d.join("alone.csv"));
    std::fs::write(&hi, interleaved).unwrap();
    std::fs::write(&ha, alone).unwrap();
    let busy = |v: &serde_json::Value| v["time"]["device_busy_us"].as_f64().unwrap();
    let none = with_history(&dev, &measured, &[]);
    let after_alone = with_history(&dev, &measured, &[&ha]);
    let after_interleaved = with_history(&dev, &measured, &[&hi]);
    assert_eq!(after_interleaved["replay"]["history_trace_writes"], 16);
    assert_eq!(after_interleaved["flash"]["host_page_writes"], 0);
    assert!(
        busy(&after_interleaved) > 1.5 * busy(&after_alone),
        "interleaved {} alone {}",
        busy(&after_interleaved),
        busy(&after_alone)
    );
    // The history's writes also leave their mappings in the map cache, which a read
    // after a sequential fill alone finds cold.
    assert!(
        busy(&none) > busy(&after_alone),
        "{} {}",
        busy(&none),
        busy(&after_alone)
    );
}

#[test]
fn history_traces_replay_one_after_another_without_their_reads() {
    // The first trace writes page 0 late in its own clock, the second trims it early in
    // its: one after the other, the page ends trimmed; merged by time, written.
    let d = tmpdir("history-order");
    let dev = profile(&d);
    let measured = d.join("read.csv");
    std::fs::write(&measured, "time_ns,op,sector,sectors\n0,read,0,8\n").unwrap();
    let (first, second) = (d.join("first.csv"), d.join("second.csv"));
    std::fs::write(
        &first,
        "time_ns,op,sector,sectors\n1000,read,64,8\n5000000,write,0,8\n",
    )
    .unwrap();
    std::fs::write(&second, "time_ns,op,sector,sectors\n0,trim,0,8\n").unwrap();
    let v = with_history(&dev, &measured, &[&first, &second]);
    assert_eq!(v["replay"]["history_trace_writes"], 2);
    assert_eq!(v["flash"]["unmapped_page_reads"], 1);
    let v = with_history(&dev, &measured, &[&second, &first]);
    assert_eq!(v["flash"]["unmapped_page_reads"], 0);
}

#[test]
fn settle_collects_the_agings_blocks_before_the_trace() {
    // Aged by random overwrites, the planes stop at the low watermark; the 10 ms idle
    // between the trace's reads then collects the aging's victims unless --settle did.
    let d = tmpdir("settle");
    let dev = profile(&d);
    let measured = d.join("read.csv");
    std::fs::write(
        &measured,
        "time_ns,op,sector,sectors\n0,read,0,8\n10000000,read,8,8\n",
    )
    .unwrap();
    let aged = [
        "--precondition-fill",
        "1.0",
        "--precondition-random-fraction",
        "1.0",
    ];
    let run = |extra: &[&str]| {
        let o = replay(&dev, "csv", &measured, &[&aged[..], extra].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let (unsettled, settled) = (run(&[]), run(&["--settle"]));
    assert!(unsettled["gc"]["background_runs"].as_u64().unwrap() > 0);
    assert_eq!(unsettled["replay"]["settled"], false);
    assert_eq!(settled["gc"]["background_runs"], 0);
    assert_eq!(settled["gc"]["erases"], 0);
    assert_eq!(settled["replay"]["settled"], true);
}
