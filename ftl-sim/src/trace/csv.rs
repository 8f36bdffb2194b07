//! Plain CSV: `time_ns,op,sector,sectors[,dst_sector]`, an optional header
//! line with exactly those names, `#` comments. `op` is one of R/read,
//! W/write, T/trim/D/discard, F/flush, M/remap (remap needs `dst_sector`).
//! Sectors are 512 bytes.

use super::lines::{uint, Lines};
use super::{RequestSource, Traced};
use crate::error::Result;
use crate::request::{Op, Request};
use std::path::{Path, PathBuf};

pub struct CsvReader {
    lines: Lines,
}

impl CsvReader {
    pub fn open(paths: &[PathBuf]) -> Result<Self> {
        Ok(CsvReader {
            lines: Lines::open(paths)?,
        })
    }
}

pub fn parse_op(s: &str) -> Option<Op> {
    Some(match s.trim().to_ascii_lowercase().as_str() {
        "r" | "read" => Op::Read,
        "w" | "write" => Op::Write,
        "t" | "d" | "trim" | "discard" => Op::Trim,
        "f" | "flush" => Op::Flush,
        "m" | "remap" => Op::Remap,
        _ => return None,
    })
}

const HEADER: [&str; 5] = ["time_ns", "op", "sector", "sectors", "dst_sector"];

/// `Ok(None)` for lines that carry no request (blank, comment, header).
pub fn parse_line(line: &str) -> std::result::Result<Option<Request>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    if fields[0].starts_with(|c: char| c.is_ascii_alphabetic()) {
        let ok = fields.len() >= 4
            && fields.len() <= 5
            && fields.iter().zip(HEADER).all(|(a, b)| *a == b);
        return if ok {
            Ok(None)
        } else {
            Err(format!("header must be {}", HEADER.join(",")))
        };
    }
    if !(4..=5).contains(&fields.len()) {
        return Err(format!(
            "expected 4 or 5 comma-separated fields, found {}",
            fields.len()
        ));
    }
    let time = uint(fields[0], "time_ns")?;
    let op = parse_op(fields[1])
        .ok_or_else(|| format!("op: {:?} is not one of R, W, T, F, M", fields[1]))?;
    let sector = uint(fields[2], "sector")?;
    let sectors = uint(fields[3], "sectors")?;
    if sectors == 0 && op != Op::Flush {
        return Err(format!(
            "sectors: 0; a {} covers at least one sector",
            op.name()
        ));
    }
    if op == Op::Remap {
        let dst = fields.get(4).ok_or("a remap needs dst_sector")?;
        return Ok(Some(Request::remap(
            time,
            sector,
            uint(dst, "dst_sector")?,
            sectors,
        )));
    }
    Ok(Some(Request::new(time, op, sector, sectors)))
}

impl RequestSource for CsvReader {
    fn next_request(&mut self) -> Option<Result<Traced>> {
        self.lines.next_request(parse_line)
    }

    fn path(&self, file: u32) -> &Path {
        self.lines.path(file)
    }
}
