//! Remap side file (janusdL's copyless defragmentation plan as issued):
//! CSV `time_ns,src_sector,dst_sector,sectors`, optional header with those
//! names, `#` comments. Each line is one REMAP command; it is merged into
//! the block trace by time (a time of 0 applies it before the trace).

use super::lines::{uint, Lines};
use super::{RequestSource, Traced};
use crate::error::Result;
use crate::request::Request;
use std::path::{Path, PathBuf};

pub struct RemapReader {
    lines: Lines,
}

impl RemapReader {
    pub fn open(paths: &[PathBuf]) -> Result<Self> {
        Ok(RemapReader {
            lines: Lines::open(paths)?,
        })
    }
}

const HEADER: [&str; 4] = ["time_ns", "src_sector", "dst_sector", "sectors"];

pub fn parse_line(line: &str) -> std::result::Result<Option<Request>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let f: Vec<&str> = line.split(',').map(str::trim).collect();
    if f[0].starts_with(|c: char| c.is_ascii_alphabetic()) {
        return if f == HEADER {
            Ok(None)
        } else {
            Err(format!("header must be {}", HEADER.join(",")))
        };
    }
    if f.len() != 4 {
        return Err(format!(
            "expected 4 fields ({}), found {}",
            HEADER.join(","),
            f.len()
        ));
    }
    let sectors = uint(f[3], "sectors")?;
    if sectors == 0 {
        return Err("sectors: 0; a remap covers at least one sector".into());
    }
    Ok(Some(Request::remap(
        uint(f[0], "time_ns")?,
        uint(f[1], "src_sector")?,
        uint(f[2], "dst_sector")?,
        sectors,
    )))
}

impl RequestSource for RemapReader {
    fn next_request(&mut self) -> Option<Result<Traced>> {
        self.lines.next_request(parse_line)
    }

    fn path(&self, file: u32) -> &Path {
        self.lines.path(file)
    }
}
