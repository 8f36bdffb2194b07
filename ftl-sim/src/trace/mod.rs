//! Trace readers, one module per format, all yielding [`Traced`] requests in
//! time order. Each request remembers where it came from so that a later
//! error (an address beyond the device) can name the file and line or offset.

pub mod blkparse;
pub mod blktrace;
pub mod csv;
pub mod lines;
pub mod mqsim;
pub mod remap;
pub mod uflip;

use crate::error::{Location, Result};
use crate::request::Request;
use std::path::{Path, PathBuf};

/// Where a request was read: file index in the source and line or offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub file: u32,
    pub pos: u64,
    pub is_line: bool,
}

impl Origin {
    pub fn line(file: u32, line: u64) -> Self {
        Origin {
            file,
            pos: line,
            is_line: true,
        }
    }

    pub fn offset(file: u32, offset: u64) -> Self {
        Origin {
            file,
            pos: offset,
            is_line: false,
        }
    }

    pub fn location(&self) -> Location {
        if self.is_line {
            Location::Line(self.pos)
        } else {
            Location::Offset(self.pos)
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Traced {
    pub req: Request,
    pub origin: Origin,
}

/// A stream of requests in non-decreasing time order (per source).
pub trait RequestSource {
    fn next_request(&mut self) -> Option<Result<Traced>>;
    /// File of an origin's `file` index.
    fn path(&self, file: u32) -> &Path;
    /// Events read but not replayed (other actions, zero-length requests).
    fn skipped(&self) -> u64 {
        0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// blktrace's binary per-CPU files (`<dev>.blktrace.<cpu>`).
    Blktrace,
    /// blkparse's default text output.
    Blkparse,
    /// MQSim's ASCII trace: time_ns device sector sectors type(0=W,1=R).
    Mqsim,
    /// FlashSim's uFLIP-style trace: `pattern; R|W; page; query; size; arrival_us`
    /// (or without `size`: one page).
    Uflip,
    /// CSV: time_ns,op,sector,sectors[,dst_sector].
    Csv,
}

/// Which blktrace/blkparse event stands for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Event {
    /// D: the request as dispatched to the driver (after merging) — default.
    Issue,
    /// Q: each bio as queued, before merging.
    Queue,
    /// C: completion of the request on the traced device.
    Complete,
}

/// Options the readers need besides the files.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    pub event: Event,
    /// Sectors per FlashSim page (uFLIP traces address pages).
    pub uflip_page_sectors: u64,
}

/// Open a trace of `format` from `paths` (already expanded to files).
pub fn open(
    format: Format,
    paths: &[PathBuf],
    opts: ReadOptions,
) -> Result<Box<dyn RequestSource>> {
    Ok(match format {
        Format::Blktrace => Box::new(blktrace::BlktraceReader::open(paths, opts.event)?),
        Format::Blkparse => Box::new(blkparse::BlkparseReader::open(paths, opts.event)?),
        Format::Mqsim => Box::new(mqsim::MqsimReader::open(paths)?),
        Format::Uflip => Box::new(uflip::UflipReader::open(paths, opts.uflip_page_sectors)?),
        Format::Csv => Box::new(csv::CsvReader::open(paths)?),
    })
}

/// Two sources merged by time (ties go to the first).
pub struct Merge {
    a: Box<dyn RequestSource>,
    b: Box<dyn RequestSource>,
    peek_a: Option<Result<Traced>>,
    peek_b: Option<Result<Traced>>,
    started: bool,
    files_in_a: u32,
}

/// File indices of the second source are shifted by this much in a merge.
const MERGE_SHIFT: u32 = 1 << 20;

impl Merge {
    pub fn new(a: Box<dyn RequestSource>, b: Box<dyn RequestSource>) -> Self {
        Merge {
            a,
            b,
            peek_a: None,
            peek_b: None,
            started: false,
            files_in_a: MERGE_SHIFT,
        }
    }
}

impl RequestSource for Merge {
    fn next_request(&mut self) -> Option<Result<Traced>> {
        if !self.started {
            self.started = true;
            self.peek_a = self.a.next_request();
            self.peek_b = self.b.next_request();
        }
        let take_a = match (&self.peek_a, &self.peek_b) {
            (None, None) => return None,
            (Some(Err(_)), _) | (Some(_), None) => true,
            (None, Some(_)) | (_, Some(Err(_))) => false,
            (Some(Ok(x)), Some(Ok(y))) => x.req.time_ns <= y.req.time_ns,
        };
        if take_a {
            std::mem::replace(&mut self.peek_a, self.a.next_request())
        } else {
            let out = std::mem::replace(&mut self.peek_b, self.b.next_request());
            out.map(|r| {
                r.map(|mut t| {
                    t.origin.file += self.files_in_a;
                    t
                })
            })
        }
    }

    fn path(&self, file: u32) -> &Path {
        if file >= self.files_in_a {
            self.b.path(file - self.files_in_a)
        } else {
            self.a.path(file)
        }
    }

    fn skipped(&self) -> u64 {
        self.a.skipped() + self.b.skipped()
    }
}

/// A source without its reads: what changed the device (writes, trims, flushes,
/// remaps), as a run's earlier phases left it. Reads it drops count as skipped.
pub struct WritesOnly {
    inner: Box<dyn RequestSource>,
    reads: u64,
}

impl WritesOnly {
    pub fn new(inner: Box<dyn RequestSource>) -> Self {
        WritesOnly { inner, reads: 0 }
    }
}

impl RequestSource for WritesOnly {
    fn next_request(&mut self) -> Option<Result<Traced>> {
        loop {
            match self.inner.next_request()? {
                Ok(t) if t.req.op == crate::request::Op::Read => self.reads += 1,
                other => return Some(other),
            }
        }
    }

    fn path(&self, file: u32) -> &Path {
        self.inner.path(file)
    }

    fn skipped(&self) -> u64 {
        self.inner.skipped() + self.reads
    }
}

/// Requests from memory (tests, benchmarks, synthetic workloads).
pub struct VecSource {
    reqs: std::vec::IntoIter<Request>,
    index: u64,
    name: PathBuf,
}

impl VecSource {
    pub fn new(reqs: Vec<Request>) -> Self {
        VecSource {
            reqs: reqs.into_iter(),
            index: 0,
            name: PathBuf::from("<memory>"),
        }
    }
}

impl RequestSource for VecSource {
    fn next_request(&mut self) -> Option<Result<Traced>> {
        let req = self.reqs.next()?;
        self.index += 1;
        Some(Ok(Traced {
            req,
            origin: Origin::line(0, self.index),
        }))
    }

    fn path(&self, _file: u32) -> &Path {
        &self.name
    }
}

/// Expand directories into the blktrace per-CPU files they hold
/// (`*.blktrace.<n>`), sorted by name; plain files are kept as given.
pub fn expand_paths(paths: &[PathBuf], format: Format) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| crate::error::Error::io(p, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.is_file() && is_trace_file(f, format))
                .collect();
            found.sort();
            let mut devices: Vec<&str> = found
                .iter()
                .filter_map(|f| {
                    f.file_name()?
                        .to_str()?
                        .rsplit_once(".blktrace.")
                        .map(|(d, _)| d)
                })
                .collect();
            devices.dedup();
            if format == Format::Blktrace && devices.len() > 1 {
                return Err(crate::error::Error::parse(
                    p,
                    Location::File,
                    format!(
                        "directory holds traces of several devices ({}): give one device's files",
                        devices.join(", ")
                    ),
                ));
            }
            if found.is_empty() {
                return Err(crate::error::Error::parse(
                    p,
                    Location::File,
                    "directory holds no trace files (expected <dev>.blktrace.<cpu>)",
                ));
            }
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn is_trace_file(path: &Path, format: Format) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match format {
        Format::Blktrace => name
            .rsplit_once(".blktrace.")
            .is_some_and(|(_, cpu)| !cpu.is_empty() && cpu.bytes().all(|b| b.is_ascii_digit())),
        _ => true,
    }
}
