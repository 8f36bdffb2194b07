//! Every trace reader and the extent-table reader on arbitrary bytes: errors
//! are fine, panics are not. The first byte picks the reader.
#![no_main]

use ftl_sim::trace::{self, Event, Format, ReadOptions};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!("ftl-sim-fuzz-{}.blktrace.0", std::process::id()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let path = scratch();
    if std::fs::write(&path, rest).is_err() {
        return;
    }
    let format = match which % 6 {
        0 => Format::Blktrace,
        1 => Format::Blkparse,
        2 => Format::Mqsim,
        3 => Format::Uflip,
        4 => Format::Csv,
        _ => {
            let _ = ftl_sim::dop::read_extents(&path, 1 + u64::from(which / 6));
            return;
        }
    };
    let event = [Event::Issue, Event::Queue, Event::Complete][usize::from(which / 6) % 3];
    let opts = ReadOptions {
        event,
        uflip_page_sectors: 8,
    };
    if let Ok(mut src) = trace::open(format, &[path], opts) {
        while let Some(r) = src.next_request() {
            if r.is_err() {
                break;
            }
        }
    }
});
