//! FlashSim's uFLIP-style trace, one request per line, in either of two forms:
//! `pattern; op; page; query_time; size; arrival_time` — the six fields
//! FlashSim's own `run_ufliptrace.cpp` reads (`%c; %c; %li; %u; %i; %lf`), a
//! request of `size` pages — or the five-field `pattern; op; page; query_time;
//! arrival_time`, one page. Pattern is S or R (ignored), op R or W, page a
//! logical page number in FlashSim pages, arrival_time in microseconds
//! (FlashSim's time unit).

use super::lines::{number, uint, Lines};
use super::{RequestSource, Traced};
use crate::error::Result;
use crate::request::{Op, Request};
use std::path::{Path, PathBuf};

pub struct UflipReader {
    lines: Lines,
    page_sectors: u64,
}

impl UflipReader {
    pub fn open(paths: &[PathBuf], page_sectors: u64) -> Result<Self> {
        Ok(UflipReader {
            lines: Lines::open(paths)?,
            page_sectors: page_sectors.max(1),
        })
    }
}

pub fn parse_line(line: &str, page_sectors: u64) -> std::result::Result<Option<Request>, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    let f: Vec<&str> = line.split(';').map(str::trim).collect();
    if f.len() != 5 && f.len() != 6 {
        return Err(format!(
            "expected 6 ';'-separated fields (pattern; op; page; query time; size; arrival) \
             or 5 (without size), found {}",
            f.len()
        ));
    }
    if !matches!(f[0], "S" | "R") {
        return Err(format!("pattern: {:?} is neither S nor R", f[0]));
    }
    let op = match f[1] {
        "R" => Op::Read,
        "W" => Op::Write,
        other => return Err(format!("op: {other:?} is neither R nor W")),
    };
    let page = uint(f[2], "page")?;
    number(f[3], "query time")?;
    let (pages, arrival) = match f.len() {
        6 => (uint(f[4], "size")?, f[5]),
        _ => (1, f[4]),
    };
    if pages == 0 {
        return Err("size: 0 pages; a request covers at least one page".into());
    }
    let arrival_us = number(arrival, "arrival time")?;
    let sector = page
        .checked_mul(page_sectors)
        .ok_or_else(|| format!("page {page} is too large"))?;
    let sectors = pages
        .checked_mul(page_sectors)
        .ok_or_else(|| format!("size {pages} is too large"))?;
    let time = (arrival_us * 1000.0).round();
    if time >= u64::MAX as f64 {
        return Err(format!("arrival time {arrival_us} is too large"));
    }
    Ok(Some(Request::new(time as u64, op, sector, sectors)))
}

impl RequestSource for UflipReader {
    fn next_request(&mut self) -> Option<Result<Traced>> {
        let ps = self.page_sectors;
        self.lines.next_request(|s| parse_line(s, ps))
    }

    fn path(&self, file: u32) -> &Path {
        self.lines.path(file)
    }
}
