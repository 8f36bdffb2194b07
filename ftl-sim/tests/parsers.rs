//! Trace readers: fixtures generated programmatically, checked against
//! blkparse's documented semantics (and against the installed blkparse
//! where there is one), plus malformed input.

mod common;

use ftl_sim::error::{Error, Location};
use ftl_sim::trace::blktrace::{self, encode, BlktraceReader, Endian, Record};
use ftl_sim::trace::{self, Event, Format, ReadOptions, RequestSource};
use ftl_sim::{Op, Request};
use std::path::Path;

fn tmpdir(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("test-{name}"))
}

fn rec(time: u64, action: u32, sector: u64, bytes: u32, pdu_len: u16) -> Record {
    Record {
        sequence: 1,
        time,
        sector,
        bytes,
        action,
        pid: 7,
        device: (8 << 20) | 16,
        cpu: 0,
        error: 0,
        pdu_len,
    }
}

fn act(cats: u32, code: u32) -> u32 {
    (cats << 16) | code
}

fn collect(src: &mut dyn RequestSource) -> Result<Vec<Request>, Error> {
    let mut v = Vec::new();
    while let Some(r) = src.next_request() {
        v.push(r?.req);
    }
    Ok(v)
}

fn write_records(path: &Path, recs: &[(Record, Vec<u8>)], e: Endian) {
    let mut buf = Vec::new();
    for (r, pdu) in recs {
        encode(r, e, &mut buf);
        buf.extend_from_slice(pdu);
    }
    std::fs::write(path, buf).unwrap();
}

#[test]
fn blktrace_issue_events_drive_replay_in_both_byte_orders() {
    for e in [Endian::Little, Endian::Big] {
        let d = tmpdir(&format!("order-{e:?}"));
        let p = d.join("vdb.blktrace.0");
        let w = blktrace::TC_WRITE;
        let r = blktrace::TC_READ;
        write_records(
            &p,
            &[
                // process-name notify with payload (action code 0 + NOTIFY), then Q/G/D/C of a write
                (
                    rec(0, act(blktrace::TC_NOTIFY, 0), 0, 0, 8),
                    b"kworker\0".to_vec(),
                ),
                (rec(10, act(w, blktrace::TA_QUEUE), 2048, 4096, 0), vec![]),
                (rec(11, act(w, 4), 2048, 4096, 0), vec![]),
                (rec(20, act(w, blktrace::TA_ISSUE), 2048, 8192, 0), vec![]),
                (
                    rec(90, act(w, blktrace::TA_COMPLETE), 2048, 8192, 0),
                    vec![],
                ),
                // a read issued, a discard (WRITE|DISCARD), a flush with no data, a PC request
                (
                    rec(
                        100,
                        act(r, blktrace::TA_ISSUE | blktrace::TA_CGROUP),
                        8,
                        512,
                        8,
                    ),
                    vec![0; 8],
                ),
                (
                    rec(
                        110,
                        act(w | blktrace::TC_DISCARD, blktrace::TA_ISSUE),
                        4096,
                        1 << 20,
                        0,
                    ),
                    vec![],
                ),
                (
                    rec(
                        120,
                        act(r | blktrace::TC_FLUSH, blktrace::TA_ISSUE),
                        0,
                        0,
                        0,
                    ),
                    vec![],
                ),
                (
                    rec(130, act(r | blktrace::TC_PC, blktrace::TA_ISSUE), 0, 512, 4),
                    vec![1, 2, 3, 4],
                ),
            ],
            e,
        );
        let mut reader = BlktraceReader::open(&[p], Event::Issue).unwrap();
        let got = collect(&mut reader).unwrap();
        assert_eq!(
            got,
            vec![
                Request::new(20, Op::Write, 2048, 16),
                Request::new(100, Op::Read, 8, 1),
                Request::new(110, Op::Trim, 4096, 2048),
                Request::new(120, Op::Flush, 0, 0),
            ]
        );
        assert_eq!(reader.records(), 9);
        let mut queued = BlktraceReader::open(&[d.join("vdb.blktrace.0")], Event::Queue).unwrap();
        assert_eq!(
            collect(&mut queued).unwrap(),
            vec![Request::new(10, Op::Write, 2048, 8)]
        );
    }
}

#[test]
fn blktrace_per_cpu_files_are_merged_by_time_from_a_directory() {
    let d = tmpdir("merge");
    let w = blktrace::TC_WRITE;
    let issue = |t, s| (rec(t, act(w, blktrace::TA_ISSUE), s, 4096, 0), vec![]);
    write_records(
        &d.join("vdb.blktrace.0"),
        &[issue(5, 0), issue(30, 8)],
        Endian::Little,
    );
    write_records(
        &d.join("vdb.blktrace.1"),
        &[issue(10, 16), issue(20, 24)],
        Endian::Little,
    );
    std::fs::write(d.join("notes.txt"), "not a trace").unwrap();
    let files = trace::expand_paths(&[d.to_path_buf()], Format::Blktrace).unwrap();
    assert_eq!(files.len(), 2);
    let opts = ReadOptions {
        event: Event::Issue,
        uflip_page_sectors: 8,
    };
    let mut src = trace::open(Format::Blktrace, &files, opts).unwrap();
    let sectors: Vec<u64> = collect(src.as_mut())
        .unwrap()
        .iter()
        .map(|r| r.sector)
        .collect();
    assert_eq!(sectors, vec![0, 16, 24, 8]);
}

fn blktrace_error(bytes: &[u8]) -> String {
    let d = tmpdir("bad");
    let p = d.join("x.blktrace.0");
    std::fs::write(&p, bytes).unwrap();
    let mut r = BlktraceReader::open(&[p], Event::Issue).unwrap();
    let err = collect(&mut r).unwrap_err();
    err.to_string()
}

#[test]
fn blktrace_truncated_and_foreign_input_is_an_error_with_offset() {
    let mut good = Vec::new();
    encode(
        &rec(1, act(blktrace::TC_WRITE, blktrace::TA_ISSUE), 0, 4096, 0),
        Endian::Little,
        &mut good,
    );
    let mut two = good.clone();
    two.extend_from_slice(&good[..30]);
    let msg = blktrace_error(&two);
    assert!(
        msg.contains("x.blktrace.0") && msg.contains("byte offset 48") && msg.contains("truncated"),
        "{msg}"
    );

    let mut pdu = Vec::new();
    encode(
        &rec(1, act(blktrace::TC_WRITE, blktrace::TA_ISSUE), 0, 4096, 100),
        Endian::Little,
        &mut pdu,
    );
    pdu.extend_from_slice(&[0; 10]);
    let msg = blktrace_error(&pdu);
    assert!(
        msg.contains("byte offset 0") && msg.contains("payload"),
        "{msg}"
    );

    let msg = blktrace_error(b"this is not a blktrace file at all, just text.....");
    assert!(msg.contains("bad magic"), "{msg}");

    let mut wrong_version = good.clone();
    wrong_version[0] = 0x06;
    let msg = blktrace_error(&wrong_version);
    assert!(msg.contains("version 6"), "{msg}");
}

/// The installed blkparse reads our fixtures and its text output parses to
/// the same requests (skipped where blkparse is not installed).
#[test]
fn blkparse_text_of_our_fixture_matches_binary_reading() {
    let Ok(out) = std::process::Command::new("blkparse").arg("-h").output() else {
        eprintln!("blkparse not installed; skipped");
        return;
    };
    let _ = out;
    let d = tmpdir("blkparse");
    let reqs: Vec<Request> = (0..200u64)
        .map(|i| {
            let op = [Op::Read, Op::Write, Op::Trim, Op::Flush][(i % 4) as usize];
            let (s, n) = if op == Op::Flush {
                (0, 0)
            } else {
                (i * 64, 8 + (i % 3) * 8)
            };
            Request::new(i * 1_000_000, op, s, n)
        })
        .collect();
    let mut buf = Vec::new();
    ftl_sim::synth::blktrace_records(&reqs, 0, Endian::Little, &mut buf);
    std::fs::write(d.join("vdb.blktrace.0"), &buf).unwrap();
    let text = std::process::Command::new("blkparse")
        .args(["-i", "vdb", "-D"])
        .arg(d.as_os_str())
        .output()
        .unwrap();
    assert!(text.status.success());
    let txt = d.join("vdb.txt");
    std::fs::write(&txt, &text.stdout).unwrap();
    let opts = ReadOptions {
        event: Event::Issue,
        uflip_page_sectors: 8,
    };
    let mut from_text = trace::open(Format::Blkparse, &[txt], opts).unwrap();
    let mut from_bin = trace::open(Format::Blktrace, &[d.join("vdb.blktrace.0")], opts).unwrap();
    let a = collect(from_text.as_mut()).unwrap();
    let b = collect(from_bin.as_mut()).unwrap();
    assert_eq!(a.len(), 200);
    assert_eq!(a, b);
    let shifted: Vec<Request> = reqs
        .iter()
        .map(|r| Request {
            time_ns: r.time_ns + 1000,
            ..*r
        })
        .collect();
    assert_eq!(a, shifted);
}

fn text_error(format: Format, text: &str) -> Error {
    let d = tmpdir("text");
    let p = d.join("trace.txt");
    std::fs::write(&p, text).unwrap();
    let opts = ReadOptions {
        event: Event::Issue,
        uflip_page_sectors: 8,
    };
    let mut src = trace::open(format, &[p], opts).unwrap();
    collect(src.as_mut()).unwrap_err()
}

fn text_ok(format: Format, text: &str) -> Vec<Request> {
    let d = tmpdir("textok");
    let p = d.join("trace.txt");
    std::fs::write(&p, text).unwrap();
    let opts = ReadOptions {
        event: Event::Issue,
        uflip_page_sectors: 8,
    };
    let mut src = trace::open(format, &[p], opts).unwrap();
    collect(src.as_mut()).unwrap()
}

fn line_of(e: &Error) -> u64 {
    match e {
        Error::Parse {
            at: Location::Line(n),
            ..
        } => *n,
        other => panic!("expected a parse error with a line, got {other}"),
    }
}

#[test]
fn text_formats_parse_and_name_the_bad_line() {
    let csv = "time_ns,op,sector,sectors,dst_sector\n# comment\n0,W,0,8\n5,read,8,8\n6,M,0,16,64\n7,F,0,0\n";
    assert_eq!(
        text_ok(Format::Csv, csv),
        vec![
            Request::new(0, Op::Write, 0, 8),
            Request::new(5, Op::Read, 8, 8),
            Request::remap(6, 0, 64, 16),
            Request::new(7, Op::Flush, 0, 0)
        ]
    );
    assert_eq!(line_of(&text_error(Format::Csv, "0,W,0,8\n1,X,0,8\n")), 2);
    assert_eq!(
        line_of(&text_error(Format::Csv, "0,W,0,8\n\n1,W,-3,8\n")),
        3
    );
    assert_eq!(line_of(&text_error(Format::Csv, "0,M,0,8\n")), 1);

    let mq = "4851300 1 524288 16 0\n4864300 1 524304 16 1\n";
    assert_eq!(
        text_ok(Format::Mqsim, mq),
        vec![
            Request::new(4851300, Op::Write, 524288, 16),
            Request::new(4864300, Op::Read, 524304, 16)
        ]
    );
    assert_eq!(
        line_of(&text_error(Format::Mqsim, "1 1 1 1 0\n1 1 1 1 2\n")),
        2
    );
    assert_eq!(line_of(&text_error(Format::Mqsim, "1 1 1 1\n")), 1);
    // Zero-length requests are errors naming the field, in every text format.
    assert_eq!(
        line_of(&text_error(Format::Mqsim, "1 1 1 8 0\n2 1 9 0 1\n")),
        2
    );
    assert_eq!(line_of(&text_error(Format::Csv, "0,T,0,0\n")), 1);

    let uf = "R; W; 12; 0; 1.5\nS; R; 13; 7; 2\n";
    assert_eq!(
        text_ok(Format::Uflip, uf),
        vec![
            Request::new(1500, Op::Write, 96, 8),
            Request::new(2000, Op::Read, 104, 8)
        ]
    );
    // FlashSim's own six fields (run_ufliptrace.cpp: pattern; op; page; query; size;
    // arrival): a request of `size` pages.
    let uf6 = "S; W; 12; 0; 4; 1.5\nR; R; 13; 7; 1; 2\n";
    assert_eq!(
        text_ok(Format::Uflip, uf6),
        vec![
            Request::new(1500, Op::Write, 96, 32),
            Request::new(2000, Op::Read, 104, 8)
        ]
    );
    assert_eq!(
        line_of(&text_error(
            Format::Uflip,
            "R; W; 12; 0; 1; 1.5\nR; W; 3; 0; 0; 2\n"
        )),
        2
    );
    assert_eq!(
        line_of(&text_error(
            Format::Uflip,
            "R; W; 12; 0; 1.5\nR; W; x; 0; 1\n"
        )),
        2
    );

    let bp = "  8,16   0        1     0.000000000  4242  Q   W 2048 + 8 [dd]\n  8,16   0        2     0.000001000  4242  D  WS 2048 + 8 [dd]\n  8,16   1        3     0.000002000     0  D  FN [kworker]\n  8,16   1        4     0.000003000     0  m   N cfq schedule dispatch\n\nCPU0 (8,16):\n Reads Queued: 0, 0KiB\n";
    assert_eq!(
        text_ok(Format::Blkparse, bp),
        vec![
            Request::new(1000, Op::Write, 2048, 8),
            Request::new(2000, Op::Flush, 0, 0)
        ]
    );
    assert_eq!(
        line_of(&text_error(
            Format::Blkparse,
            "  8,16 0 1 0.1 1 D W 5 + 8 [x]\nhello world\n"
        )),
        2
    );
    assert_eq!(
        line_of(&text_error(
            Format::Blkparse,
            "  8,16 0 1 0.1x 1 D W 5 + 8 [x]\n"
        )),
        1
    );
}

#[test]
fn remap_side_file_merges_with_the_trace_by_time() {
    let d = tmpdir("remap");
    let t = d.join("t.csv");
    let m = d.join("m.csv");
    std::fs::write(&t, "0,W,0,8\n100,W,8,8\n").unwrap();
    std::fs::write(&m, "time_ns,src_sector,dst_sector,sectors\n50,0,64,8\n").unwrap();
    let opts = ReadOptions {
        event: Event::Issue,
        uflip_page_sectors: 8,
    };
    let a = trace::open(Format::Csv, &[t], opts).unwrap();
    let b: Box<dyn RequestSource> =
        Box::new(trace::remap::RemapReader::open(std::slice::from_ref(&m)).unwrap());
    let mut merged = trace::Merge::new(a, b);
    let got = collect(&mut merged).unwrap();
    assert_eq!(got[1], Request::remap(50, 0, 64, 8));
    assert_eq!(got.len(), 3);
    std::fs::write(&m, "50,0,64\n").unwrap();
    let mut bad = trace::remap::RemapReader::open(&[m]).unwrap();
    assert_eq!(line_of(&collect(&mut bad).unwrap_err()), 1);
}
