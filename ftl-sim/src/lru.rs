//! A fixed-capacity LRU set of `u32` keys: slots in an arena linked into a
//! recency list, found through an index (a direct table for small key spaces,
//! an open-addressing hash table otherwise).

const NIL: u32 = u32::MAX;

/// Finds the slot that holds a key.
pub trait SlotIndex {
    fn get(&self, key: u32, keys: &[u32]) -> Option<u32>;
    fn insert(&mut self, key: u32, slot: u32);
    fn remove(&mut self, key: u32, keys: &[u32]);
    fn memory_bytes(&self) -> usize;
}

/// One `u32` per possible key.
pub struct DirectIndex {
    slot_of: Vec<u32>,
}

impl DirectIndex {
    pub fn new(keys: usize) -> Self {
        DirectIndex {
            slot_of: vec![NIL; keys],
        }
    }
}

impl SlotIndex for DirectIndex {
    #[inline]
    fn get(&self, key: u32, _keys: &[u32]) -> Option<u32> {
        let s = self.slot_of[key as usize];
        (s != NIL).then_some(s)
    }
    #[inline]
    fn insert(&mut self, key: u32, slot: u32) {
        self.slot_of[key as usize] = slot;
    }
    #[inline]
    fn remove(&mut self, key: u32, _keys: &[u32]) {
        self.slot_of[key as usize] = NIL;
    }
    fn memory_bytes(&self) -> usize {
        self.slot_of.capacity() * 4
    }
}

/// Linear-probing hash table of slot numbers (keys live in the arena), at
/// most half full, with backward-shift deletion.
pub struct HashIndex {
    table: Vec<u32>,
    mask: usize,
    shift: u32,
}

impl HashIndex {
    pub fn new(capacity: usize) -> Self {
        let size = (capacity * 2).next_power_of_two().max(16);
        HashIndex {
            table: vec![NIL; size],
            mask: size - 1,
            shift: 64 - size.trailing_zeros(),
        }
    }

    #[inline]
    fn home(&self, key: u32) -> usize {
        ((u64::from(key).wrapping_mul(0x9E37_79B9_7F4A_7C15)) >> self.shift) as usize
    }
}

impl SlotIndex for HashIndex {
    #[inline]
    fn get(&self, key: u32, keys: &[u32]) -> Option<u32> {
        let mut i = self.home(key);
        loop {
            let s = self.table[i];
            if s == NIL {
                return None;
            }
            if keys[s as usize] == key {
                return Some(s);
            }
            i = (i + 1) & self.mask;
        }
    }

    #[inline]
    fn insert(&mut self, key: u32, slot: u32) {
        let mut i = self.home(key);
        while self.table[i] != NIL {
            i = (i + 1) & self.mask;
        }
        self.table[i] = slot;
    }

    fn remove(&mut self, key: u32, keys: &[u32]) {
        let mut i = self.home(key);
        loop {
            let s = self.table[i];
            if s == NIL {
                return;
            }
            if keys[s as usize] == key {
                break;
            }
            i = (i + 1) & self.mask;
        }
        // Backward shift: pull later entries of the probe run into the hole
        // unless their home lies cyclically in (hole, j].
        let mut hole = i;
        let mut j = i;
        loop {
            j = (j + 1) & self.mask;
            let s = self.table[j];
            if s == NIL {
                break;
            }
            let home = self.home(keys[s as usize]);
            let dist_home = j.wrapping_sub(home) & self.mask;
            let dist_hole = j.wrapping_sub(hole) & self.mask;
            if dist_home >= dist_hole {
                self.table[hole] = s;
                hole = j;
            }
        }
        self.table[hole] = NIL;
    }

    fn memory_bytes(&self) -> usize {
        self.table.capacity() * 4
    }
}

/// The LRU arena.
pub struct Lru<I: SlotIndex> {
    keys: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Most recently used.
    head: u32,
    /// Least recently used.
    tail: u32,
    len: u32,
    index: I,
}

/// What an insertion did.
pub struct Inserted {
    pub slot: u32,
    /// The key that was evicted to make room (its metadata is still in `slot`).
    pub evicted: Option<u32>,
}

impl<I: SlotIndex> Lru<I> {
    pub fn new(capacity: u32, index: I) -> Self {
        let n = capacity.max(1) as usize;
        Lru {
            keys: vec![NIL; n],
            prev: vec![NIL; n],
            next: vec![NIL; n],
            head: NIL,
            tail: NIL,
            len: 0,
            index,
        }
    }

    pub fn capacity(&self) -> u32 {
        self.keys.len() as u32
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn find(&self, key: u32) -> Option<u32> {
        self.index.get(key, &self.keys)
    }

    #[inline]
    pub fn key(&self, slot: u32) -> u32 {
        self.keys[slot as usize]
    }

    /// Mark a slot most recently used.
    #[inline]
    pub fn touch(&mut self, slot: u32) {
        if self.head != slot {
            self.unlink(slot);
            self.push_front(slot);
        }
    }

    /// Insert a key that is not present, evicting the LRU key when full.
    pub fn insert(&mut self, key: u32) -> Inserted {
        let (slot, evicted) = if self.len < self.capacity() {
            let s = self.len;
            self.len += 1;
            (s, None)
        } else {
            let s = self.tail;
            let old = self.keys[s as usize];
            self.index.remove(old, &self.keys);
            self.unlink(s);
            (s, Some(old))
        };
        self.keys[slot as usize] = key;
        self.index.insert(key, slot);
        self.push_front(slot);
        Inserted { slot, evicted }
    }

    /// Slots in use, in no particular order.
    pub fn slots(&self) -> std::ops::Range<u32> {
        0..self.len
    }

    #[inline]
    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p != NIL {
            self.next[p as usize] = n;
        } else {
            self.head = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        } else {
            self.tail = p;
        }
    }

    #[inline]
    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NIL;
        self.next[s as usize] = self.head;
        if self.head != NIL {
            self.prev[self.head as usize] = s;
        } else {
            self.tail = s;
        }
        self.head = s;
    }

    pub fn memory_bytes(&self) -> usize {
        (self.keys.capacity() + self.prev.capacity() + self.next.capacity()) * 4
            + self.index.memory_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used() {
        let mut lru = Lru::new(2, HashIndex::new(2));
        lru.insert(10);
        lru.insert(20);
        let s10 = lru.find(10).unwrap();
        lru.touch(s10);
        let ins = lru.insert(30);
        assert_eq!(ins.evicted, Some(20));
        assert!(lru.find(20).is_none());
        assert!(lru.find(10).is_some() && lru.find(30).is_some());
    }

    #[test]
    fn hash_index_survives_many_removals() {
        let mut lru = Lru::new(64, HashIndex::new(64));
        for k in 0..10_000u32 {
            let key = k.wrapping_mul(2_654_435_761) % 5000;
            match lru.find(key) {
                Some(s) => lru.touch(s),
                None => {
                    lru.insert(key);
                }
            }
            assert!(lru.find(key).is_some());
        }
        let mut present = 0;
        for key in 0..5000 {
            if lru.find(key).is_some() {
                present += 1;
            }
        }
        assert_eq!(present, 64);
    }
}
