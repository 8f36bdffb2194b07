//! blktrace's binary per-CPU files, read directly.
//!
//! Each record is a 48-byte `struct blk_io_trace` (linux/blktrace_api.h,
//! format version 7) followed by `pdu_len` bytes of payload:
//!
//! | offset | field    | type |
//! | ------ | -------- | ---- |
//! | 0      | magic    | u32: 0x65617400 \| version |
//! | 4      | sequence | u32  |
//! | 8      | time     | u64, ns since the trace started |
//! | 16     | sector   | u64, 512-byte sectors |
//! | 24     | bytes    | u32  |
//! | 28     | action   | u32: category bits << 16 \| action code |
//! | 32     | pid      | u32  |
//! | 36     | device   | u32  |
//! | 40     | cpu      | u32  |
//! | 44     | error    | u16  |
//! | 46     | pdu_len  | u16  |
//!
//! Records are in the tracing machine's byte order; it is detected per file
//! from the magic. The per-CPU files are merged by time.
//!
//! The *issue* event (action code 7, `D` in blkparse) drives the replay by
//! default: it is the request as handed to the device driver, after the
//! block layer merged and split bios, so its sector and size are what the
//! device sees; its timestamp is when the device received it. Queue events
//! (`Q`) describe bios before merging (more, smaller requests than reach the
//! device), and completion events (`C`) carry the traced device's own
//! service time, which the simulator is there to replace.

use super::{Event, Origin, RequestSource, Traced};
use crate::error::{Error, Location, Result};
use crate::request::{Op, Request};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

pub const MAGIC: u32 = 0x6561_7400;
pub const VERSION: u32 = 7;
pub const HEADER_LEN: usize = 48;

pub const TA_QUEUE: u32 = 1;
pub const TA_ISSUE: u32 = 7;
pub const TA_COMPLETE: u32 = 8;
/// Flag in the action code when the record carries a cgroup id.
pub const TA_CGROUP: u32 = 1 << 8;

pub const TC_READ: u32 = 1 << 0;
pub const TC_WRITE: u32 = 1 << 1;
pub const TC_FLUSH: u32 = 1 << 2;
pub const TC_PC: u32 = 1 << 9;
pub const TC_NOTIFY: u32 = 1 << 10;
pub const TC_DISCARD: u32 = 1 << 13;
pub const TC_DRV_DATA: u32 = 1 << 14;

/// One decoded record header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub sequence: u32,
    pub time: u64,
    pub sector: u64,
    pub bytes: u32,
    pub action: u32,
    pub pid: u32,
    pub device: u32,
    pub cpu: u32,
    pub error: u16,
    pub pdu_len: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    /// Byte order in which `word` reads as a blktrace magic.
    pub fn detect(word: [u8; 4]) -> Option<Endian> {
        if u32::from_le_bytes(word) & 0xffff_ff00 == MAGIC {
            Some(Endian::Little)
        } else if u32::from_be_bytes(word) & 0xffff_ff00 == MAGIC {
            Some(Endian::Big)
        } else {
            None
        }
    }

    #[inline]
    fn u16(self, b: &[u8]) -> u16 {
        let a = [b[0], b[1]];
        match self {
            Endian::Little => u16::from_le_bytes(a),
            Endian::Big => u16::from_be_bytes(a),
        }
    }

    #[inline]
    fn u32(self, b: &[u8]) -> u32 {
        let a = [b[0], b[1], b[2], b[3]];
        match self {
            Endian::Little => u32::from_le_bytes(a),
            Endian::Big => u32::from_be_bytes(a),
        }
    }

    #[inline]
    fn u64(self, b: &[u8]) -> u64 {
        let a = [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
        match self {
            Endian::Little => u64::from_le_bytes(a),
            Endian::Big => u64::from_be_bytes(a),
        }
    }
}

/// Decode a 48-byte header; `Err` describes a bad magic or version.
#[inline]
pub fn decode(h: &[u8], e: Endian) -> std::result::Result<Record, String> {
    let magic = e.u32(&h[0..4]);
    if magic & 0xffff_ff00 != MAGIC {
        return Err(format!(
            "bad magic 0x{magic:08x} (expected 0x{MAGIC:08x} | version)"
        ));
    }
    if magic & 0xff != VERSION {
        return Err(format!(
            "unsupported blktrace format version {} (expected {VERSION})",
            magic & 0xff
        ));
    }
    Ok(Record {
        sequence: e.u32(&h[4..8]),
        time: e.u64(&h[8..16]),
        sector: e.u64(&h[16..24]),
        bytes: e.u32(&h[24..28]),
        action: e.u32(&h[28..32]),
        pid: e.u32(&h[32..36]),
        device: e.u32(&h[36..40]),
        cpu: e.u32(&h[40..44]),
        error: e.u16(&h[44..46]),
        pdu_len: e.u16(&h[46..48]),
    })
}

/// Encode a record (tests, fixtures, benchmarks).
pub fn encode(r: &Record, e: Endian, out: &mut Vec<u8>) {
    let magic = MAGIC | VERSION;
    macro_rules! put {
        ($v:expr) => {
            match e {
                Endian::Little => out.extend_from_slice(&$v.to_le_bytes()),
                Endian::Big => out.extend_from_slice(&$v.to_be_bytes()),
            }
        };
    }
    put!(magic);
    put!(r.sequence);
    put!(r.time);
    put!(r.sector);
    put!(r.bytes);
    put!(r.action);
    put!(r.pid);
    put!(r.device);
    put!(r.cpu);
    put!(r.error);
    put!(r.pdu_len);
}

/// The request a record stands for, if it is the selected event of a
/// file-system request with something to replay.
#[inline]
pub fn to_request(r: &Record, event: Event) -> Option<Request> {
    let cats = r.action >> 16;
    if cats & (TC_NOTIFY | TC_PC | TC_DRV_DATA) != 0 {
        return None;
    }
    let code = r.action & 0xffff & !TA_CGROUP;
    let wanted = match event {
        Event::Issue => TA_ISSUE,
        Event::Queue => TA_QUEUE,
        Event::Complete => TA_COMPLETE,
    };
    if code != wanted {
        return None;
    }
    let sectors = u64::from(r.bytes).div_ceil(512);
    let op = if cats & TC_DISCARD != 0 {
        Op::Trim
    } else if sectors == 0 {
        if cats & TC_FLUSH != 0 {
            Op::Flush
        } else {
            return None;
        }
    } else if cats & TC_WRITE != 0 {
        Op::Write
    } else if cats & TC_READ != 0 {
        Op::Read
    } else {
        return None;
    };
    let sector = if op == Op::Flush { 0 } else { r.sector };
    Some(Request::new(r.time, op, sector, sectors))
}

/// Sequential reader of one per-CPU file with a large buffer.
struct CpuFile {
    file: File,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    /// File offset of `buf[0]`.
    base: u64,
    eof: bool,
    endian: Option<Endian>,
}

const BUF: usize = 4 << 20;

impl CpuFile {
    fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let size = file.metadata().map_or(BUF as u64, |m| m.len());
        let cap = (size as usize).clamp(HEADER_LEN, BUF);
        Ok(CpuFile {
            file,
            buf: vec![0; cap],
            pos: 0,
            len: 0,
            base: 0,
            eof: false,
            endian: None,
        })
    }

    /// Make at least `need` bytes available from `pos` unless the file ends.
    fn fill(&mut self, need: usize, path: &Path) -> Result<()> {
        if self.len - self.pos >= need || self.eof {
            return Ok(());
        }
        self.buf.copy_within(self.pos..self.len, 0);
        self.base += self.pos as u64;
        self.len -= self.pos;
        self.pos = 0;
        if self.buf.len() < need {
            self.buf.resize(need, 0);
        }
        while self.len < need {
            let n = self
                .file
                .read(&mut self.buf[self.len..])
                .map_err(|e| Error::io(path, e))?;
            if n == 0 {
                self.eof = true;
                break;
            }
            self.len += n;
        }
        Ok(())
    }

    /// The next record and its file offset, skipping its payload.
    fn next_record(&mut self, path: &Path) -> Result<Option<(Record, u64)>> {
        self.fill(HEADER_LEN, path)?;
        let avail = self.len - self.pos;
        let offset = self.base + self.pos as u64;
        if avail == 0 {
            return Ok(None);
        }
        if avail < HEADER_LEN {
            return Err(Error::parse(
                path,
                Location::Offset(offset),
                format!("truncated record: {avail} of {HEADER_LEN} header bytes"),
            ));
        }
        let head = &self.buf[self.pos..self.pos + HEADER_LEN];
        let endian = match self.endian {
            Some(e) => e,
            None => {
                let e = Endian::detect([head[0], head[1], head[2], head[3]]).ok_or_else(|| {
                    Error::parse(
                        path,
                        Location::Offset(offset),
                        "not a blktrace file: bad magic",
                    )
                })?;
                self.endian = Some(e);
                e
            }
        };
        let rec =
            decode(head, endian).map_err(|m| Error::parse(path, Location::Offset(offset), m))?;
        let total = HEADER_LEN + usize::from(rec.pdu_len);
        self.fill(total, path)?;
        if self.len - self.pos < total {
            return Err(Error::parse(
                path,
                Location::Offset(offset),
                format!(
                    "truncated record: payload of {} bytes runs past the end of the file",
                    rec.pdu_len
                ),
            ));
        }
        self.pos += total;
        Ok(Some((rec, offset)))
    }
}

pub struct BlktraceReader {
    paths: Vec<PathBuf>,
    files: Vec<CpuFile>,
    /// Next selected request of each file.
    heads: Vec<Option<Traced>>,
    started: bool,
    event: Event,
    skipped: u64,
    records: u64,
}

impl BlktraceReader {
    pub fn open(paths: &[PathBuf], event: Event) -> Result<Self> {
        let files = paths
            .iter()
            .map(|p| CpuFile::open(p))
            .collect::<Result<Vec<_>>>()?;
        Ok(BlktraceReader {
            heads: vec![None; files.len()],
            paths: paths.to_vec(),
            files,
            started: false,
            event,
            skipped: 0,
            records: 0,
        })
    }

    /// Records read so far (of every action).
    pub fn records(&self) -> u64 {
        self.records
    }

    fn advance(&mut self, i: usize) -> Result<()> {
        loop {
            let Some((rec, offset)) = self.files[i].next_record(&self.paths[i])? else {
                self.heads[i] = None;
                return Ok(());
            };
            self.records += 1;
            if let Some(req) = to_request(&rec, self.event) {
                self.heads[i] = Some(Traced {
                    req,
                    origin: Origin::offset(i as u32, offset),
                });
                return Ok(());
            }
            self.skipped += 1;
        }
    }
}

impl RequestSource for BlktraceReader {
    fn next_request(&mut self) -> Option<Result<Traced>> {
        if !self.started {
            self.started = true;
            for i in 0..self.files.len() {
                if let Err(e) = self.advance(i) {
                    return Some(Err(e));
                }
            }
        }
        let mut best: Option<usize> = None;
        for (i, h) in self.heads.iter().enumerate() {
            if let Some(t) = h {
                if best.is_none_or(|b| self.heads[b].expect("set").req.time_ns > t.req.time_ns) {
                    best = Some(i);
                }
            }
        }
        let i = best?;
        let out = self.heads[i].take();
        if let Err(e) = self.advance(i) {
            return Some(Err(e));
        }
        out.map(Ok)
    }

    fn path(&self, file: u32) -> &Path {
        &self.paths[file as usize]
    }

    fn skipped(&self) -> u64 {
        self.skipped
    }
}
