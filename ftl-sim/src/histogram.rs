//! Log-linear latency histogram: 64 sub-buckets per power of two (relative
//! error below 1.6 %), exact count, sum and maximum. Fixed memory, O(1) record.

const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;
const BUCKETS: usize = ((64 - SUB_BITS as usize) + 1) * SUB as usize;

#[derive(Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    count: u64,
    sum: u128,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; BUCKETS],
            count: 0,
            sum: 0,
            max: 0,
        }
    }
}

#[inline]
fn index(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    let shift = 63 - v.leading_zeros() - SUB_BITS;
    (u64::from(shift) * SUB + (v >> shift)) as usize
}

/// Smallest value that falls into bucket `i`.
fn lower_bound(i: usize) -> u128 {
    let i = i as u128;
    let sub = u128::from(SUB);
    if i < 2 * sub {
        return i;
    }
    let shift = i / sub - 1;
    let mantissa = i - shift * sub;
    mantissa << shift
}

impl Histogram {
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.counts[index(v)] += 1;
        self.count += 1;
        self.sum += u128::from(v);
        self.max = self.max.max(v);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    pub fn sum(&self) -> u128 {
        self.sum
    }

    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// Value at quantile `q` in [0, 1]: the midpoint of the bucket holding
    /// the ceil(q * n)-th smallest sample, capped by the maximum.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let lo = lower_bound(i);
                let hi = lower_bound(i + 1);
                return (lo + (hi - lo) / 2).min(u128::from(self.max)) as u64;
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_monotone() {
        let mut last = 0;
        for v in (0..100_000u64).chain([1 << 40, u64::MAX / 2]) {
            let i = index(v);
            assert!(i >= last || v == 1 << 40);
            let v128 = u128::from(v);
            assert!(lower_bound(i) <= v128 && v128 < lower_bound(i + 1), "v={v}");
            last = i;
        }
    }

    #[test]
    fn quantiles_are_within_two_percent() {
        let mut h = Histogram::default();
        for v in 1..=10_000u64 {
            h.record(v * 1000);
        }
        let p50 = h.quantile(0.5) as f64;
        let p99 = h.quantile(0.99) as f64;
        assert!((p50 / 5_000_000.0 - 1.0).abs() < 0.02, "{p50}");
        assert!((p99 / 9_900_000.0 - 1.0).abs() < 0.02, "{p99}");
        assert_eq!(h.max(), 10_000_000);
    }
}
