//! Host commands: read, write, trim and remap.

use super::Ftl;
use crate::alloc::Stream;
use crate::error::{Error, Result};
use crate::geometry::{NONE, SECTOR};
use crate::request::Request;

/// Whole pages a request touches, and the bytes of each that it covers.
struct PageSpan {
    first: u64,
    end: u64,
    start_byte: u64,
    end_byte: u64,
    page: u64,
}

impl PageSpan {
    fn new(sector: u64, sectors: u64, page_size: u32) -> Self {
        let page = u64::from(page_size);
        let start_byte = sector * SECTOR;
        let end_byte = (sector + sectors) * SECTOR;
        PageSpan {
            first: start_byte / page,
            end: end_byte.div_ceil(page),
            start_byte,
            end_byte,
            page,
        }
    }

    /// Bytes of page `lpn` that the request covers.
    #[inline]
    fn covered(&self, lpn: u64) -> u64 {
        let lo = (lpn * self.page).max(self.start_byte);
        let hi = ((lpn + 1) * self.page).min(self.end_byte);
        hi - lo
    }
}

impl Ftl {
    pub(super) fn read(&mut self, req: &Request, start: u64) -> Result<u64> {
        let span = PageSpan::new(req.sector, req.sectors, self.geo.page_size);
        let mut done = start;
        for lpn in span.first..span.end {
            let lpn32 = lpn as u32;
            let ready = self.map_lookup(lpn32, start, false)?;
            let ppn = self.l2p[lpn as usize];
            let flash_done = if ppn == NONE {
                self.counters.unmapped_page_reads += 1;
                ready
            } else {
                self.counters.host_page_reads += 1;
                self.tl.read(self.geo.unit_of_ppn(ppn), ready)
            };
            done = done.max(self.tl.host(flash_done, span.covered(lpn)));
        }
        Ok(done)
    }

    pub(super) fn write(&mut self, req: &Request, start: u64) -> Result<u64> {
        let span = PageSpan::new(req.sector, req.sectors, self.geo.page_size);
        let mut done = start;
        let mut data_in = start;
        for lpn in span.first..span.end {
            let lpn32 = lpn as u32;
            let bytes = span.covered(lpn);
            data_in = self.tl.host(data_in, bytes);
            let mapped = self.map_lookup(lpn32, start, true)?;
            let mut ready = data_in.max(mapped);
            let old = self.l2p[lpn as usize];
            if bytes < span.page && old != NONE {
                self.counters.rmw_page_reads += 1;
                ready = self.tl.read(self.geo.unit_of_ppn(old), ready);
            }
            let unit = self.pick_unit(lpn32);
            let ppn = self.alloc(unit, Stream::Data, ready)?;
            let old = self.l2p[lpn as usize];
            self.invalidate(old);
            self.place(ppn, lpn32);
            self.l2p[lpn as usize] = ppn;
            self.clock += 1;
            self.counters.host_page_programs += 1;
            done = done.max(self.tl.program(unit, ready));
        }
        Ok(done)
    }

    /// Only whole pages are unmapped; a partly covered page keeps its data.
    pub(super) fn trim(&mut self, req: &Request, start: u64) -> Result<u64> {
        let spp = self.geo.sectors_per_page();
        let first = req.sector.div_ceil(spp);
        let end = (req.sector + req.sectors) / spp;
        let mut done = start;
        for lpn in first..end.max(first) {
            done = done.max(self.map_lookup(lpn as u32, start, true)?);
            let old = self.l2p[lpn as usize];
            if old != NONE {
                self.invalidate(old);
                self.l2p[lpn as usize] = NONE;
                self.counters.trimmed_pages += 1;
            }
        }
        Ok(done)
    }

    /// janusdL's remap: logical page dst+i takes over the flash page of
    /// src+i, src+i becomes unmapped; only mapping entries change. Pages are
    /// moved one by one in ascending order.
    pub(super) fn remap(&mut self, req: &Request, start: u64) -> Result<u64> {
        let spp = self.geo.sectors_per_page();
        if req.sector % spp != 0 || req.dst_sector % spp != 0 || req.sectors % spp != 0 {
            return Err(Error::BadRequest {
                msg: format!(
                    "remap of {} sectors from sector {} to {} is not aligned to the {}-byte page",
                    req.sectors, req.sector, req.dst_sector, self.geo.page_size
                ),
                origin: None,
            });
        }
        let mut done = start;
        for i in 0..req.sectors / spp {
            let src = (req.sector / spp + i) as u32;
            let dst = (req.dst_sector / spp + i) as u32;
            if src == dst {
                continue;
            }
            done = done.max(self.map_lookup(src, start, true)?);
            done = done.max(self.map_lookup(dst, start, true)?);
            let moved = self.l2p[src as usize];
            let old = self.l2p[dst as usize];
            self.invalidate(old);
            self.l2p[dst as usize] = moved;
            self.l2p[src as usize] = NONE;
            if moved != NONE {
                self.flash.p2l[moved as usize] = dst;
            }
            self.counters.remapped_pages += 1;
        }
        Ok(done)
    }
}
