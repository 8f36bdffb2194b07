//! Text input read line by line with a bound on a line's length, so that a
//! file that is not line-structured text (a binary file, a damaged trace with
//! gigabytes between two newlines) is an error naming the file and line instead
//! of a read of the whole line into memory.

use crate::error::{Error, Location, Result};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// The longest line (in bytes, its line ending not counted) a text input may
/// have: far more than any line of the formats read (a request line of a
/// blkparse, CSV, uFLIP or MQSim trace is under 200 bytes, an extent table's
/// line holds one path of at most 4,096 bytes, a profile's or ssd.conf's a key
/// and a value).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// How reading one line ended.
#[derive(Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A line (with its `\n`, if it had one) was appended to the buffer.
    Line,
    /// The end of the input: nothing was read.
    End,
    /// The line is longer than the bound: `max + 1` of its bytes were read.
    TooLong,
}

/// Append the next line of `reader` to `buf`, reading at most `max` bytes of
/// it (plus its `\n`).
pub fn read_bounded_line<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    let start = buf.len();
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    let read = reader.by_ref().take(limit).read_until(b'\n', buf)?;
    Ok(if read == 0 {
        LineRead::End
    } else if buf.len() - start > max && buf.last() != Some(&b'\n') {
        LineRead::TooLong
    } else {
        LineRead::Line
    })
}

/// The error for line `line` of `path` being longer than `max` bytes.
pub fn too_long(path: &Path, line: u64, max: usize) -> Error {
    Error::parse(
        path,
        Location::Line(line),
        format!("line longer than {max} bytes: not a text file of this format"),
    )
}

/// A whole text file, each of its lines at most `max` bytes; the error names
/// the first longer line, or the file when it is not UTF-8.
pub fn read_text_bounded(path: &Path, max: usize) -> Result<String> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::new(file);
    let mut bytes = Vec::new();
    let mut line = 0u64;
    loop {
        line += 1;
        match read_bounded_line(&mut reader, &mut bytes, max).map_err(|e| Error::io(path, e))? {
            LineRead::Line => {}
            LineRead::End => break,
            LineRead::TooLong => return Err(too_long(path, line, max)),
        }
    }
    String::from_utf8(bytes).map_err(|_| Error::parse(path, Location::File, "not valid UTF-8 text"))
}

/// [`read_text_bounded`] with [`MAX_LINE_BYTES`].
pub fn read_text(path: &Path) -> Result<String> {
    read_text_bounded(path, MAX_LINE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::{read_bounded_line, LineRead};

    fn lines(input: &[u8], max: usize) -> Vec<(LineRead, Vec<u8>)> {
        let mut reader = input;
        let mut out = Vec::new();
        loop {
            let mut buf = Vec::new();
            let read = read_bounded_line(&mut reader, &mut buf, max).unwrap();
            let stop = read != LineRead::Line;
            out.push((read, buf));
            if stop {
                return out;
            }
        }
    }

    #[test]
    fn a_line_of_the_bound_passes_and_one_byte_more_does_not() {
        assert_eq!(
            lines(b"abcd\nab\nabc", 4),
            vec![
                (LineRead::Line, b"abcd\n".to_vec()),
                (LineRead::Line, b"ab\n".to_vec()),
                (LineRead::Line, b"abc".to_vec()),
                (LineRead::End, vec![]),
            ]
        );
        assert_eq!(
            lines(b"ab\nabcde\n", 4),
            vec![
                (LineRead::Line, b"ab\n".to_vec()),
                (LineRead::TooLong, b"abcde".to_vec()),
            ]
        );
        // a last line without its newline, of the bound
        assert_eq!(lines(b"abcd", 4)[0], (LineRead::Line, b"abcd".to_vec()));
    }
}
