//! Log-linear histogram for latencies (RTT, sojourn) in nanoseconds.
//!
//! Values below 64 ns get exact buckets; above, each power of two is split into 64 linear
//! sub-buckets (relative bucket width <= 1/64, so quantiles are within ~0.8 % of the true value).
//! Count, sum, min and max are exact. Buckets grow on demand: no allocation for unused ranges.

const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Clone, Debug, Default)]
pub struct LogHistogram {
    buckets: Vec<u64>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

#[inline]
fn bucket_of(v: u64) -> usize {
    if v < SUB {
        v as usize
    } else {
        let e = 63 - v.leading_zeros(); // >= SUB_BITS
        let mant = (v >> (e - SUB_BITS)) & (SUB - 1);
        ((e - SUB_BITS + 1) as u64 * SUB + mant) as usize
    }
}

/// Lower bound and width of bucket `b`.
fn bucket_range(b: usize) -> (u64, u64) {
    let b = b as u64;
    if b < SUB {
        (b, 1)
    } else {
        let e = (b / SUB) as u32 + SUB_BITS - 1;
        let mant = b % SUB;
        let width = 1u64 << (e - SUB_BITS);
        ((1u64 << e) + mant * width, width)
    }
}

impl LogHistogram {
    pub fn new() -> LogHistogram {
        LogHistogram { min: u64::MAX, ..Default::default() }
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        let b = bucket_of(v);
        if b >= self.buckets.len() {
            self.buckets.resize(b + 1, 0);
        }
        self.buckets[b] += 1;
        self.count += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub fn clear(&mut self) {
        self.buckets.iter_mut().for_each(|c| *c = 0);
        self.count = 0;
        self.sum = 0;
        self.min = u64::MAX;
        self.max = 0;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }

    pub fn min(&self) -> Option<u64> {
        (self.count > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// Quantile `q` in [0, 1]: the value below which a fraction `q` of samples lie, interpolated
    /// linearly inside the bucket and clamped to the exact min and max.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = (q.clamp(0.0, 1.0) * self.count as f64).max(1.0);
        let mut seen = 0u64;
        for (b, &c) in self.buckets.iter().enumerate() {
            if c == 0 {
                continue;
            }
            if (seen + c) as f64 >= rank {
                let (lo, w) = bucket_range(b);
                let frac = (rank - seen as f64) / c as f64;
                let v = lo as f64 + frac * w as f64;
                return Some(v.clamp(self.min as f64, self.max as f64));
            }
            seen += c;
        }
        Some(self.max as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous() {
        for b in 0..2000usize {
            let (lo, w) = bucket_range(b);
            assert_eq!(bucket_of(lo), b);
            assert_eq!(bucket_of(lo + w - 1), b);
            assert_eq!(bucket_of(lo + w), b + 1);
        }
    }

    #[test]
    fn quantiles_within_one_percent() {
        let mut h = LogHistogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for q in [0.01, 0.5, 0.9, 0.99] {
            let exact = q * 100_000.0 * 1000.0;
            let got = h.quantile(q).unwrap();
            assert!((got - exact).abs() / exact < 0.01, "q={q} got {got} exact {exact}");
        }
        assert_eq!(h.min(), Some(1000));
        assert_eq!(h.max(), Some(100_000_000));
        assert!((h.mean().unwrap() - 50_000_500.0).abs() < 1.0);
    }
}
