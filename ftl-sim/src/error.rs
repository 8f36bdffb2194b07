//! One error type for the library and the CLI. Every variant that comes from
//! input names where the problem is (file and line, or byte offset).

use std::fmt;
use std::path::{Path, PathBuf};

/// Where in an input a problem was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// 1-based line number of a text file.
    Line(u64),
    /// Byte offset into a binary file.
    Offset(u64),
    /// A field of a structured file (YAML path such as `storage.ftl.cache.bytes`).
    Field(String),
    /// Nothing more precise than the file.
    File,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line(n) => write!(f, "line {n}"),
            Location::Offset(o) => write!(f, "byte offset {o}"),
            Location::Field(name) => write!(f, "field `{name}`"),
            Location::File => write!(f, "file"),
        }
    }
}

#[derive(Debug)]
pub enum Error {
    /// Reading or writing a file failed.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Malformed input: a trace record, a table row, a config value.
    Parse {
        path: PathBuf,
        at: Location,
        msg: String,
    },
    /// A request reaches beyond the logical capacity of the device.
    OutOfRange {
        /// First sector (512 B) of the request.
        sector: u64,
        /// Length of the request in sectors.
        sectors: u64,
        /// Logical capacity in sectors.
        capacity_sectors: u64,
        /// Where the request came from, if known.
        origin: Option<(PathBuf, Location)>,
    },
    /// A request the device cannot take (e.g. an unaligned remap).
    BadRequest {
        msg: String,
        origin: Option<(PathBuf, Location)>,
    },
    /// The device model is inconsistent (for example too little spare space).
    Config(String),
    /// The simulated device cannot continue (no block left to collect).
    Device(String),
}

impl Error {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn parse(path: &Path, at: Location, msg: impl Into<String>) -> Self {
        Error::Parse {
            path: path.to_path_buf(),
            at,
            msg: msg.into(),
        }
    }

    /// Attach the trace position that produced an out-of-range request.
    pub fn with_origin(self, path: &Path, at: Location) -> Self {
        let origin = Some((path.to_path_buf(), at));
        match self {
            Error::OutOfRange {
                sector,
                sectors,
                capacity_sectors,
                origin: None,
            } => Error::OutOfRange {
                sector,
                sectors,
                capacity_sectors,
                origin,
            },
            Error::BadRequest { msg, origin: None } => Error::BadRequest { msg, origin },
            Error::Device(msg) => Error::Device(format!(
                "{msg} (while serving the request at {}: {})",
                path.display(),
                origin.as_ref().map_or(Location::File, |o| o.1.clone())
            )),
            other => other,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Parse { path, at, msg } => write!(f, "{}: {at}: {msg}", path.display()),
            Error::OutOfRange {
                sector,
                sectors,
                capacity_sectors,
                origin,
            } => {
                if let Some((path, at)) = origin {
                    write!(f, "{}: {at}: ", path.display())?;
                }
                // In 128 bits: an address near 2^64 prints its real end and bytes.
                let (first, end) = (
                    u128::from(*sector),
                    u128::from(*sector) + u128::from(*sectors),
                );
                write!(
                    f,
                    "address beyond the device: sectors {first}..{end} (bytes {}..{}) but the logical \
                     capacity is {capacity_sectors} sectors ({} bytes)",
                    first * 512,
                    end * 512,
                    u128::from(*capacity_sectors) * 512
                )
            }
            Error::BadRequest { msg, origin } => {
                if let Some((path, at)) = origin {
                    write!(f, "{}: {at}: ", path.display())?;
                }
                write!(f, "{msg}")
            }
            Error::Config(msg) => write!(f, "device model: {msg}"),
            Error::Device(msg) => write!(f, "simulated device: {msg}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
