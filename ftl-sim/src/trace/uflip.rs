//! FlashSim's uFLIP-style trace, one page-sized request per line:
//! `pattern; op; page; query_time; arrival_time` where pattern is S or R
//! (ignored), op R or W, page a logical page number in FlashSim pages, and
//! arrival_time in microseconds (FlashSim's time unit).

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
    if f.len() != 5 {
        return Err(format!(
            "expected 5 ';'-separated fields (pattern; op; page; query time; arrival), found {}",
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
    let arrival_us = number(f[4], "arrival time")?;
    let sector = page
        .checked_mul(page_sectors)
        .ok_or_else(|| format!("page {page} is too large"))?;
    let time = (arrival_us * 1000.0).round();
    if time >= u64::MAX as f64 {
        return Err(format!("arrival time {arrival_us} is too large"));
    }
    Ok(Some(Request::new(time as u64, op, sector, page_sectors)))
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
