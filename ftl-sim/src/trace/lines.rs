//! Line-by-line reading of text traces over several files, with line
//! numbers for error messages; a line longer than [`MAX_LINE_BYTES`] is an
//! error naming it.

use super::{Origin, Traced};
use crate::error::{Error, Location, Result};
use crate::request::Request;
use crate::text::{read_bounded_line, too_long, LineRead, MAX_LINE_BYTES};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

pub struct Lines {
    paths: Vec<PathBuf>,
    current: usize,
    reader: Option<BufReader<File>>,
    line_no: u64,
    buf: Vec<u8>,
}

impl Lines {
    pub fn open(paths: &[PathBuf]) -> Result<Self> {
        // Open every file up front so a missing one fails before any work.
        for p in paths {
            File::open(p).map_err(|e| Error::io(p, e))?;
        }
        Ok(Lines {
            paths: paths.to_vec(),
            current: 0,
            reader: None,
            line_no: 0,
            buf: Vec::with_capacity(256),
        })
    }

    pub fn path(&self, file: u32) -> &Path {
        &self.paths[file as usize]
    }

    /// The next line (without its line ending), its file index and number.
    pub fn next_line(&mut self) -> Option<Result<(&str, u32, u64)>> {
        loop {
            if self.reader.is_none() {
                let p = self.paths.get(self.current)?;
                match File::open(p) {
                    Ok(f) => self.reader = Some(BufReader::with_capacity(64 << 10, f)),
                    Err(e) => return Some(Err(Error::io(p, e))),
                }
                self.line_no = 0;
            }
            self.buf.clear();
            let reader = self.reader.as_mut().expect("opened above");
            match read_bounded_line(reader, &mut self.buf, MAX_LINE_BYTES) {
                Ok(LineRead::End) => {
                    self.reader = None;
                    self.current += 1;
                    continue;
                }
                Ok(LineRead::Line) => {}
                Ok(LineRead::TooLong) => {
                    let path = &self.paths[self.current];
                    return Some(Err(too_long(path, self.line_no + 1, MAX_LINE_BYTES)));
                }
                Err(e) => return Some(Err(Error::io(&self.paths[self.current], e))),
            }
            self.line_no += 1;
            while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
                self.buf.pop();
            }
            let file = self.current as u32;
            return Some(match std::str::from_utf8(&self.buf) {
                Ok(s) => Ok((s, file, self.line_no)),
                Err(_) => Err(Error::parse(
                    &self.paths[self.current],
                    Location::Line(self.line_no),
                    "line is not valid UTF-8 text",
                )),
            });
        }
    }

    /// The next request of a trace in which a line holds at most one request;
    /// `parse` gives `Ok(None)` for a line without one (blank, comment, header).
    pub fn next_request(
        &mut self,
        mut parse: impl FnMut(&str) -> std::result::Result<Option<Request>, String>,
    ) -> Option<Result<Traced>> {
        loop {
            let (parsed, file, line) = match self.next_line()? {
                Ok((s, f, l)) => (parse(s), f, l),
                Err(e) => return Some(Err(e)),
            };
            if let Some(parsed) = parsed.transpose() {
                return Some(self.traced(parsed, file, line));
            }
        }
    }

    /// A parsed request tagged with the line it came from, or its error naming the
    /// file and line.
    pub fn traced(
        &self,
        parsed: std::result::Result<Request, String>,
        file: u32,
        line: u64,
    ) -> Result<Traced> {
        match parsed {
            Ok(req) => Ok(Traced {
                req,
                origin: Origin::line(file, line),
            }),
            Err(msg) => Err(Error::parse(self.path(file), Location::Line(line), msg)),
        }
    }

    /// An error at the current line of the current file.
    pub fn error(&self, msg: impl Into<String>) -> Error {
        let p = self
            .paths
            .get(self.current)
            .map_or_else(|| PathBuf::from("<none>"), Clone::clone);
        Error::parse(&p, Location::Line(self.line_no), msg)
    }
}

/// Parse an unsigned integer field, naming it on failure.
pub fn uint(field: &str, name: &str) -> std::result::Result<u64, String> {
    field
        .trim()
        .parse::<u64>()
        .map_err(|_| format!("{name}: {field:?} is not a non-negative integer"))
}

/// Parse a non-negative finite decimal number.
pub fn number(field: &str, name: &str) -> std::result::Result<f64, String> {
    match field.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("{name}: {field:?} is not a non-negative number")),
    }
}
