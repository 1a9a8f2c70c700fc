//! Log-linear histogram for latencies (RTT, sojourn) in nanoseconds.
//!
//! Values below 64 ns get exact buckets; above, each power of two is split into 64 linear
//! sub-buckets (relative bucket width <= 1/64, so quantiles are within ~0.8 % of the true value).
//! Count, sum, min and max are exact. Buckets grow on demand and are kept only from the lowest
//! one used (`base`) to the highest: a flow whose RTTs lie between 100 and 300 ms holds about 100
//! buckets (under 1 KiB), not the 1,400 from zero up (issue 21's per-flow memory).

const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Clone, Debug, Default)]
pub struct LogHistogram {
    /// Counts of buckets `base..base + buckets.len()`.
    buckets: Vec<u64>,
    base: usize,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

/// A [`LogHistogram`] made at its first sample: 8 bytes in its owner until then, and no
/// 16-byte alignment (its sum is a `u128`) imposed on the owner (a flow's RTT histogram: issue
/// 21's memory per flow).
#[derive(Clone, Debug, Default)]
pub struct LazyHistogram(Option<Box<LogHistogram>>);

impl LazyHistogram {
    #[inline]
    pub fn record(&mut self, v: u64) {
        match &mut self.0 {
            Some(h) => h.record(v),
            None => self.first(v),
        }
    }

    #[cold]
    #[inline(never)]
    fn first(&mut self, v: u64) {
        let mut h = Box::new(LogHistogram::new());
        h.record(v);
        self.0 = Some(h);
    }

    pub fn clear(&mut self) {
        if let Some(h) = &mut self.0 {
            h.clear()
        }
    }

    /// Its samples (none before the first).
    pub fn get(&self) -> &LogHistogram {
        static EMPTY: LogHistogram = LogHistogram::EMPTY;
        self.0.as_deref().unwrap_or(&EMPTY)
    }
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
    /// No samples.
    pub const EMPTY: LogHistogram = LogHistogram { buckets: Vec::new(), base: 0, count: 0, sum: 0, min: u64::MAX, max: 0 };

    pub fn new() -> LogHistogram {
        LogHistogram::EMPTY
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        let b = bucket_of(v);
        // one test for both bounds: below `base` the difference wraps past every length
        match self.buckets.get_mut(b.wrapping_sub(self.base)) {
            Some(c) => *c += 1,
            None => self.grow_and_count(b),
        }
        self.count += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// `record(0)`, `n` times.
    pub fn record_zeros(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        if self.base > 0 || self.buckets.is_empty() {
            self.grow_to(0);
        }
        self.buckets[0] += n;
        self.count += n;
        self.min = 0;
    }

    /// `record`'s count of bucket `b`, outside the buckets kept so far.
    #[cold]
    #[inline(never)]
    fn grow_and_count(&mut self, b: usize) {
        self.grow_to(b);
        self.buckets[b - self.base] += 1;
    }

    /// Makes room for bucket `b`, in steps of 16 buckets so that a slowly rising RTT does not
    /// reallocate at every new bucket, and without doubling the capacity.
    #[cold]
    fn grow_to(&mut self, b: usize) {
        const STEP: usize = 16;
        if self.buckets.is_empty() {
            self.base = b;
            self.buckets.reserve_exact(STEP);
            self.buckets.resize(STEP, 0);
        } else if b < self.base {
            let base = b.saturating_sub(STEP / 2);
            let add = self.base - base;
            self.buckets.reserve_exact(add);
            self.buckets.splice(0..0, std::iter::repeat_n(0, add));
            self.base = base;
        } else {
            let len = (b - self.base + 1).next_multiple_of(STEP);
            self.buckets.reserve_exact(len - self.buckets.len());
            self.buckets.resize(len, 0);
        }
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
                let (lo, w) = bucket_range(self.base + b);
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

    /// The buckets kept from the lowest used give the quantiles that buckets from zero give, in
    /// whatever order the values come (falling values grow the buckets downwards).
    #[test]
    fn kept_range_gives_the_same_quantiles_as_all_buckets() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for order in 0..3 {
            let mut h = LogHistogram::new();
            let mut all = vec![0u64; 4000];
            let mut values: Vec<u64> = (0..20_000)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    30_000_000 + x % 270_000_000
                })
                .collect();
            match order {
                1 => values.sort_unstable(),
                2 => values.sort_unstable_by(|a, b| b.cmp(a)),
                _ => {}
            }
            for &v in &values {
                h.record(v);
                all[bucket_of(v)] += 1;
            }
            for (b, &c) in all.iter().enumerate() {
                let kept = b.checked_sub(h.base).and_then(|i| h.buckets.get(i)).copied().unwrap_or(0);
                assert_eq!(kept, c, "bucket {b} order {order}");
            }
            let used = bucket_of(*values.iter().max().unwrap()) - bucket_of(*values.iter().min().unwrap()) + 1;
            assert!(h.buckets.len() <= used + 24, "{} buckets kept for {used} used", h.buckets.len());
        }
        let mut h = LogHistogram::new();
        h.record(5);
        h.record(1 << 40);
        h.record(0);
        assert_eq!(h.min(), Some(0));
        assert_eq!(h.quantile(1.0), Some((1u64 << 40) as f64));
        assert_eq!(h.base, 0);
    }
}
