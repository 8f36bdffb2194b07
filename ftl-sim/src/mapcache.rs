//! The demand-based mapping cache. It only models *which* mapping entries are
//! in controller RAM and which are dirty; the mapping itself lives in the FTL.
//! Misses and dirty evictions come back as actions for the FTL to charge as
//! translation-page reads and writes on flash.
//!
//! Two modes:
//! * `Tpage` — whole translation pages are fetched and replaced, LRU
//!   (the cache TMC §5.3.3 describes, after CFTL [13] of that paper).
//! * `Entry` — DFTL's cached mapping table (Gupta et al., ASPLOS 2009):
//!   single entries, LRU; evicting a dirty entry reads its translation page,
//!   merges, and writes it back, which also cleans every other cached dirty
//!   entry of the same translation page (DFTL's batch update).
//! * `Whole` — the whole map in RAM (FlashSim's page-mapping FTL): every
//!   lookup hits and nothing is ever written back.

use crate::config::{CacheConfig, CacheMode};
use crate::geometry::Geometry;
use crate::lru::{DirectIndex, HashIndex, Lru};

const CLEAN: u32 = u32::MAX;

/// A translation page that must be written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Writeback {
    pub tpage: u32,
    /// The page must first be read from flash (entry mode merges into it).
    pub needs_read: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Hit,
    /// The translation page holding the entry must be read, after writing
    /// back the evicted dirty page if any.
    Miss {
        writeback: Option<Writeback>,
    },
}

#[derive(Debug, Clone, Copy, Default)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    pub dirty_evictions: u64,
}

pub struct MapCache {
    kind: Kind,
    pub stats: CacheStats,
}

enum Kind {
    Tpage(TpageCache),
    Entry(EntryCache),
    /// Every entry resident; the value is the number of logical pages.
    Whole(u32),
}

struct TpageCache {
    lru: Lru<DirectIndex>,
    dirty: Vec<bool>,
}

struct EntryCache {
    lru: Lru<HashIndex>,
    /// Epoch of the translation page when the slot became dirty, or CLEAN.
    dirty_epoch: Vec<u32>,
    /// Bumped on every write-back of a translation page: all of its cached
    /// entries become clean at once.
    tpage_epoch: Vec<u32>,
    entries_per_tpage: u32,
}

impl MapCache {
    pub fn new(cfg: &CacheConfig, geo: &Geometry) -> Self {
        let kind = match cfg.mode {
            CacheMode::Tpage => {
                let cap = (cfg.bytes / u64::from(geo.page_size))
                    .clamp(1, u64::from(geo.tpages.max(1))) as u32;
                Kind::Tpage(TpageCache {
                    lru: Lru::new(cap, DirectIndex::new(geo.tpages as usize)),
                    dirty: vec![false; cap as usize],
                })
            }
            CacheMode::Entry => {
                let cap = (cfg.bytes / u64::from(cfg.entry_bytes))
                    .clamp(1, geo.logical_pages.max(1)) as u32;
                Kind::Entry(EntryCache {
                    lru: Lru::new(cap, HashIndex::new(cap as usize)),
                    dirty_epoch: vec![CLEAN; cap as usize],
                    tpage_epoch: vec![0; geo.tpages as usize],
                    entries_per_tpage: geo.entries_per_tpage,
                })
            }
            CacheMode::Whole => Kind::Whole(geo.logical_pages as u32),
        };
        MapCache {
            kind,
            stats: CacheStats::default(),
        }
    }

    /// Capacity in entries (entry mode) or translation pages (tpage mode).
    pub fn capacity(&self) -> u32 {
        match &self.kind {
            Kind::Tpage(c) => c.lru.capacity(),
            Kind::Entry(c) => c.lru.capacity(),
            Kind::Whole(n) => *n,
        }
    }

    /// Look up the entry of `lpn` (in translation page `tpage`), bringing it
    /// in on a miss; `dirty` marks it modified.
    #[inline]
    pub fn access(&mut self, lpn: u32, tpage: u32, dirty: bool) -> Access {
        let a = match &mut self.kind {
            Kind::Tpage(c) => c.access(tpage, dirty),
            Kind::Entry(c) => c.access(lpn, tpage, dirty),
            Kind::Whole(_) => Access::Hit,
        };
        match a {
            Access::Hit => self.stats.hits += 1,
            Access::Miss { writeback } => {
                self.stats.misses += 1;
                if writeback.is_some() {
                    self.stats.dirty_evictions += 1;
                }
            }
        }
        a
    }

    /// GC moved the page of `lpn`: if its entry is cached, update it there
    /// (it becomes dirty) and return true; otherwise the FTL must update the
    /// translation page on flash.
    #[inline]
    pub fn update_if_cached(&mut self, lpn: u32, tpage: u32) -> bool {
        match &mut self.kind {
            Kind::Tpage(c) => match c.lru.find(tpage) {
                Some(s) => {
                    c.dirty[s as usize] = true;
                    true
                }
                None => false,
            },
            Kind::Entry(c) => match c.lru.find(lpn) {
                Some(s) => {
                    c.dirty_epoch[s as usize] = c.tpage_epoch[tpage as usize];
                    true
                }
                None => false,
            },
            Kind::Whole(_) => true,
        }
    }

    /// Clean every dirty entry; returns the translation pages to write back.
    pub fn drain_dirty(&mut self, out: &mut Vec<Writeback>) {
        match &mut self.kind {
            Kind::Tpage(c) => {
                for s in c.lru.slots() {
                    if std::mem::take(&mut c.dirty[s as usize]) {
                        out.push(Writeback {
                            tpage: c.lru.key(s),
                            needs_read: false,
                        });
                    }
                }
            }
            Kind::Entry(c) => {
                let mut pages: Vec<u32> = c
                    .lru
                    .slots()
                    .filter(|&s| c.is_dirty(s))
                    .map(|s| c.lru.key(s) / c.entries_per_tpage)
                    .collect();
                pages.sort_unstable();
                pages.dedup();
                for tp in pages {
                    c.tpage_epoch[tp as usize] = c.tpage_epoch[tp as usize].wrapping_add(1);
                    out.push(Writeback {
                        tpage: tp,
                        needs_read: true,
                    });
                }
            }
            Kind::Whole(_) => {}
        }
    }

    pub fn memory_bytes(&self) -> usize {
        match &self.kind {
            Kind::Tpage(c) => c.lru.memory_bytes() + c.dirty.capacity(),
            Kind::Entry(c) => {
                c.lru.memory_bytes() + c.dirty_epoch.capacity() * 4 + c.tpage_epoch.capacity() * 4
            }
            Kind::Whole(_) => 0,
        }
    }
}

impl TpageCache {
    #[inline]
    fn access(&mut self, tpage: u32, dirty: bool) -> Access {
        if let Some(s) = self.lru.find(tpage) {
            self.lru.touch(s);
            self.dirty[s as usize] |= dirty;
            return Access::Hit;
        }
        let ins = self.lru.insert(tpage);
        let slot = ins.slot as usize;
        let writeback = match ins.evicted {
            Some(old) if self.dirty[slot] => Some(Writeback {
                tpage: old,
                needs_read: false,
            }),
            _ => None,
        };
        self.dirty[slot] = dirty;
        Access::Miss { writeback }
    }
}

impl EntryCache {
    #[inline]
    fn is_dirty(&self, slot: u32) -> bool {
        let e = self.dirty_epoch[slot as usize];
        e != CLEAN && e == self.tpage_epoch[(self.lru.key(slot) / self.entries_per_tpage) as usize]
    }

    #[inline]
    fn access(&mut self, lpn: u32, tpage: u32, dirty: bool) -> Access {
        if let Some(s) = self.lru.find(lpn) {
            self.lru.touch(s);
            if dirty {
                self.dirty_epoch[s as usize] = self.tpage_epoch[tpage as usize];
            }
            return Access::Hit;
        }
        let ins = self.lru.insert(lpn);
        let slot = ins.slot as usize;
        let mut writeback = None;
        if let Some(old) = ins.evicted {
            let old_tp = old / self.entries_per_tpage;
            let e = self.dirty_epoch[slot];
            if e != CLEAN && e == self.tpage_epoch[old_tp as usize] {
                self.tpage_epoch[old_tp as usize] = e.wrapping_add(1);
                writeback = Some(Writeback {
                    tpage: old_tp,
                    needs_read: true,
                });
            }
        }
        self.dirty_epoch[slot] = if dirty {
            self.tpage_epoch[tpage as usize]
        } else {
            CLEAN
        };
        Access::Miss { writeback }
    }
}
