//! blkparse's default text output:
//! `maj,min cpu seq sec.nsec pid action rwbs [sector + sectors] [process]`.
//! Lines of the selected action (D, Q or C) become requests; other actions
//! are skipped; the per-CPU/total summary that blkparse prints at the end of
//! its output ends a file.

use super::lines::{uint, Lines};
use super::{Event, RequestSource, Traced};
use crate::error::Result;
use crate::request::{Op, Request};
use std::path::{Path, PathBuf};

pub struct BlkparseReader {
    lines: Lines,
    action: &'static str,
    trailer_of: Option<u32>,
    skipped: u64,
}

impl BlkparseReader {
    pub fn open(paths: &[PathBuf], event: Event) -> Result<Self> {
        Ok(BlkparseReader {
            lines: Lines::open(paths)?,
            action: match event {
                Event::Issue => "D",
                Event::Queue => "Q",
                Event::Complete => "C",
            },
            trailer_of: None,
            skipped: 0,
        })
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    Request(Request),
    /// An event of another action, or one without a replayable op.
    Skip,
    /// A blank line.
    Blank,
    /// The start of blkparse's summary.
    Trailer,
}

/// `sec.nsec` to nanoseconds.
pub fn parse_time(s: &str) -> std::result::Result<u64, String> {
    let bad = || format!("time: {s:?} is not seconds.nanoseconds");
    let (sec, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let sec: u64 = sec.parse().map_err(|_| bad())?;
    let mut ns: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().map_err(|_| bad())?
    };
    for _ in frac.len()..9 {
        ns *= 10;
    }
    sec.checked_mul(1_000_000_000)
        .and_then(|v| v.checked_add(ns))
        .ok_or_else(bad)
}

fn is_devno(s: &str) -> bool {
    match s.split_once(',') {
        Some((a, b)) => {
            !a.is_empty()
                && !b.is_empty()
                && a.bytes().all(|c| c.is_ascii_digit())
                && b.bytes().all(|c| c.is_ascii_digit())
        }
        None => false,
    }
}

/// The op an RWBS string stands for (`None`: nothing to replay).
pub fn rwbs_op(rwbs: &str, sectors: u64) -> Option<Op> {
    let has = |c| rwbs.contains(c);
    if has('D') {
        Some(Op::Trim)
    } else if sectors == 0 {
        has('F').then_some(Op::Flush)
    } else if has('W') {
        Some(Op::Write)
    } else if has('R') {
        Some(Op::Read)
    } else {
        None
    }
}

pub fn parse_line(line: &str, action: &str) -> std::result::Result<Parsed, String> {
    let mut it = line.split_whitespace();
    let Some(dev) = it.next() else {
        return Ok(Parsed::Blank);
    };
    if !is_devno(dev) {
        return if dev == "CPU" || dev.starts_with("CPU") || dev == "Total" {
            Ok(Parsed::Trailer)
        } else {
            Err(format!("expected a device number maj,min, found {dev:?}"))
        };
    }
    let f: Vec<&str> = it.collect();
    if f.len() < 5 {
        return Err("expected cpu, sequence, time, pid and action after the device".into());
    }
    uint(f[0], "cpu")?;
    uint(f[1], "sequence")?;
    let time = parse_time(f[2])?;
    uint(f[3], "pid")?;
    if f[4] != action {
        return Ok(Parsed::Skip);
    }
    let rwbs = f.get(5).ok_or("missing RWBS field")?;
    let rest = &f[6.min(f.len())..];
    let (sector, sectors) = match rest {
        [s, "+", n, ..] => (uint(s, "sector")?, uint(n, "sectors")?),
        [] => (0, 0),
        [first, ..] if first.starts_with('[') || first.starts_with('(') => (0, 0),
        _ => {
            return Err(format!(
                "expected `sector + sectors` after {rwbs:?}, found {:?}",
                rest.join(" ")
            ))
        }
    };
    Ok(match rwbs_op(rwbs, sectors) {
        Some(op) => Parsed::Request(Request::new(time, op, sector, sectors)),
        None => Parsed::Skip,
    })
}

impl RequestSource for BlkparseReader {
    fn next_request(&mut self) -> Option<Result<Traced>> {
        loop {
            let action = self.action;
            let (parsed, file, line) = match self.lines.next_line()? {
                Ok((s, f, l)) => {
                    if self.trailer_of == Some(f) {
                        continue;
                    }
                    (parse_line(s, action), f, l)
                }
                Err(e) => return Some(Err(e)),
            };
            match parsed {
                Ok(Parsed::Blank) => continue,
                Ok(Parsed::Skip) => self.skipped += 1,
                Ok(Parsed::Trailer) => self.trailer_of = Some(file),
                Ok(Parsed::Request(req)) => return Some(self.lines.traced(Ok(req), file, line)),
                Err(msg) => return Some(self.lines.traced(Err(msg), file, line)),
            }
        }
    }

    fn path(&self, file: u32) -> &Path {
        self.lines.path(file)
    }

    fn skipped(&self) -> u64 {
        self.skipped
    }
}
