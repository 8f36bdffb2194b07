//! MQSim's ASCII trace (the DiskSim-like format MQSim's README defines):
//! `arrival_time_ns device start_sector size_in_sectors type` with type 0 =
//! write, 1 = read, whitespace separated. The device number is ignored.

use super::lines::{uint, Lines};
use super::{RequestSource, Traced};
use crate::error::Result;
use crate::request::{Op, Request};
use std::path::{Path, PathBuf};

pub struct MqsimReader {
    lines: Lines,
}

impl MqsimReader {
    pub fn open(paths: &[PathBuf]) -> Result<Self> {
        Ok(MqsimReader {
            lines: Lines::open(paths)?,
        })
    }
}

pub fn parse_line(line: &str) -> std::result::Result<Option<Request>, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() != 5 {
        return Err(format!(
            "expected 5 fields (time device sector size type), found {}",
            f.len()
        ));
    }
    let time = uint(f[0], "arrival time")?;
    uint(f[1], "device")?;
    let sector = uint(f[2], "start sector")?;
    let sectors = uint(f[3], "size")?;
    if sectors == 0 {
        return Err("size: 0 sectors; a request covers at least one sector".into());
    }
    let op = match f[4] {
        "0" => Op::Write,
        "1" => Op::Read,
        other => return Err(format!("type: {other:?} is neither 0 (write) nor 1 (read)")),
    };
    Ok(Some(Request::new(time, op, sector, sectors)))
}

impl RequestSource for MqsimReader {
    fn next_request(&mut self) -> Option<Result<Traced>> {
        self.lines.next_request(parse_line)
    }

    fn path(&self, file: u32) -> &Path {
        self.lines.path(file)
    }
}
