//! Physical fragmentation of files (janusd §3.1). DoP(x) is the average
//! degree of I/O parallelism when file x is read sequentially, divided by the
//! device's maximum parallelism M; DoF_P(x) = 1 - DoP(x).
//!
//! Operationally: the file's pages are taken in file order and read in
//! windows of M consecutive pages (a sequential reader keeping the device
//! full). A window whose pages sit on k distinct parallel units with at most
//! r pages on one unit needs r rounds, so it achieves len/r operations in
//! parallel. Over the file, n = pages / rounds and DoP = n / M. A file striped
//! over all units has DoP = 1; one whose pages all sit on one unit has
//! DoP = 1/M, i.e. DoF_P = 1 - 1/M, the bound janusd gives.
//!
//! The file -> extent table is fragcheck's (see README.md for the columns).

use crate::error::{Error, Location, Result};
use crate::ftl::Ftl;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Copy)]
pub struct Extent {
    /// Offset within the file, bytes (extents are sorted by it when known).
    pub logical: Option<u64>,
    /// Device offset, bytes.
    pub physical: u64,
    pub length: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FileDop {
    pub file: String,
    pub pages: u64,
    pub mapped_pages: u64,
    pub avg_parallelism: f64,
    pub dop: f64,
    pub dof_p: f64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct DopSummary {
    pub files: u64,
    pub max_parallelism: u32,
    pub mean_dop: f64,
    pub mean_dof_p: f64,
    pub files_dof_p_at_least_half: u64,
}

/// Read an extent table (CSV or TSV with a header).
pub fn read_extents(path: &Path, unit_bytes: u64) -> Result<BTreeMap<String, Vec<Extent>>> {
    let text = crate::text::read_text(path)?;
    parse_extents(&text, path, unit_bytes)
}

struct Columns {
    file: usize,
    physical: usize,
    length: usize,
    logical: Option<usize>,
}

fn find(header: &[String], names: &[&str]) -> Option<usize> {
    header.iter().position(|h| names.contains(&h.as_str()))
}

fn columns(header: &[String], path: &Path) -> Result<Columns> {
    let need = |names: &[&str], what: &str| {
        find(header, names).ok_or_else(|| {
            Error::parse(
                path,
                Location::Line(1),
                format!("header has no {what} column (one of {})", names.join(", ")),
            )
        })
    };
    Ok(Columns {
        file: need(&["path", "file", "name", "inode", "ino"], "file")?,
        physical: need(
            &[
                "physical_bytes",
                "physical",
                "phys_bytes",
                "fe_physical",
                "physical_offset",
            ],
            "physical offset",
        )?,
        length: need(&["length_bytes", "length", "len", "fe_length"], "length")?,
        logical: find(
            header,
            &["logical_bytes", "logical", "fe_logical", "logical_offset"],
        ),
    })
}

/// Split one CSV/TSV line; double quotes protect separators ("" is a quote).
fn split(line: &str, sep: char) -> std::result::Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            c if c == sep && !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    if quoted {
        return Err("unterminated quoted field".into());
    }
    out.push(cur);
    Ok(out)
}

pub fn parse_extents(
    text: &str,
    path: &Path,
    unit_bytes: u64,
) -> Result<BTreeMap<String, Vec<Extent>>> {
    let mut lines = text.lines().enumerate();
    let Some((_, head)) = lines.next() else {
        return Err(Error::parse(path, Location::Line(1), "empty extent table"));
    };
    let sep = if head.contains('\t') { '\t' } else { ',' };
    let header: Vec<String> = split(head, sep)
        .map_err(|m| Error::parse(path, Location::Line(1), m))?
        .into_iter()
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    let cols = columns(&header, path)?;
    let mut files: BTreeMap<String, Vec<Extent>> = BTreeMap::new();
    for (i, line) in lines {
        let at = Location::Line(i as u64 + 1);
        if line.trim().is_empty() {
            continue;
        }
        let f = split(line, sep).map_err(|m| Error::parse(path, at.clone(), m))?;
        if f.len() != header.len() {
            return Err(Error::parse(
                path,
                at,
                format!("expected {} fields, found {}", header.len(), f.len()),
            ));
        }
        let num = |idx: usize, what: &str| -> Result<u64> {
            f[idx]
                .trim()
                .parse::<u64>()
                .ok()
                .and_then(|v| v.checked_mul(unit_bytes))
                .ok_or_else(|| {
                    Error::parse(
                        path,
                        at.clone(),
                        format!("{what}: {:?} is not a byte count", f[idx]),
                    )
                })
        };
        let extent = Extent {
            logical: cols.logical.map(|c| num(c, "logical")).transpose()?,
            physical: num(cols.physical, "physical")?,
            length: num(cols.length, "length")?,
        };
        files.entry(f[cols.file].clone()).or_default().push(extent);
    }
    Ok(files)
}

/// Logical pages of a file in file order (a page shared by two adjacent
/// extents counts once); pages beyond the device (`limit`) are left out.
fn file_pages(extents: &mut [Extent], page: u64, offset: u64, limit: u64) -> Vec<u64> {
    if extents.iter().all(|e| e.logical.is_some()) {
        extents.sort_by_key(|e| e.logical);
    }
    let mut pages: Vec<u64> = Vec::new();
    for e in extents.iter().filter(|e| e.length > 0) {
        let first = e.physical.saturating_add(offset);
        let start = first / page;
        let end = (first.saturating_add(e.length - 1) / page).min(limit.saturating_sub(1));
        for p in start..=end {
            if pages.last() != Some(&p) {
                pages.push(p);
            }
        }
    }
    pages
}

/// DoP of one file under the FTL's current mapping. `offset` (bytes) is
/// added to extent addresses (partition start on the traced disk).
pub fn file_dop(ftl: &Ftl, name: &str, extents: &mut [Extent], offset: u64) -> FileDop {
    let geo = ftl.geometry();
    let m = geo.units as usize;
    let pages = file_pages(extents, u64::from(geo.page_size), offset, geo.logical_pages);
    let units: Vec<u32> = pages
        .iter()
        .filter_map(|&lpn| ftl.lookup(lpn).map(|ppn| geo.unit_of_ppn(ppn)))
        .collect();
    let mut counts = vec![0u32; m];
    let mut rounds = 0u64;
    for window in units.chunks(m) {
        let mut worst = 0;
        for &u in window {
            counts[u as usize] += 1;
            worst = worst.max(counts[u as usize]);
        }
        for &u in window {
            counts[u as usize] = 0;
        }
        rounds += u64::from(worst);
    }
    let mapped = units.len() as u64;
    let avg = if rounds == 0 {
        0.0
    } else {
        mapped as f64 / rounds as f64
    };
    let dop = avg / m as f64;
    FileDop {
        file: name.to_string(),
        pages: pages.len() as u64,
        mapped_pages: mapped,
        avg_parallelism: avg,
        dop,
        dof_p: if mapped == 0 { 0.0 } else { 1.0 - dop },
    }
}

pub fn all_files(
    ftl: &Ftl,
    files: &mut BTreeMap<String, Vec<Extent>>,
    offset: u64,
) -> (Vec<FileDop>, DopSummary) {
    let rows: Vec<FileDop> = files
        .iter_mut()
        .map(|(name, ext)| file_dop(ftl, name, ext, offset))
        .collect();
    let measured: Vec<&FileDop> = rows.iter().filter(|r| r.mapped_pages > 0).collect();
    let n = measured.len() as f64;
    let summary = DopSummary {
        files: measured.len() as u64,
        max_parallelism: ftl.geometry().units,
        mean_dop: if n > 0.0 {
            measured.iter().map(|r| r.dop).sum::<f64>() / n
        } else {
            0.0
        },
        mean_dof_p: if n > 0.0 {
            measured.iter().map(|r| r.dof_p).sum::<f64>() / n
        } else {
            0.0
        },
        files_dof_p_at_least_half: measured.iter().filter(|r| r.dof_p >= 0.5).count() as u64,
    };
    (rows, summary)
}
