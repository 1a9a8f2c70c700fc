//! Exact time average and standard deviation of piecewise-constant signals (a queue's length in
//! packets and in bytes): integrates q(t) and q(t)^2 between changes, so no sampling error.
//! Signals that change at the same instants share one clock (`N` of them: one time difference
//! and one store of the last change per update).

use crate::units::Time;

#[derive(Clone, Debug)]
pub struct TimeAverage<const N: usize = 1> {
    /// Integral of q dt (units of q times ns), per signal.
    sum: [u128; N],
    /// Integral of q^2 dt, per signal.
    sum_sq: [u128; N],
    /// Start of the averaging window.
    start: Time,
    /// Time of the last change.
    last: Time,
    /// Values since `last`.
    value: [u64; N],
}

impl<const N: usize> TimeAverage<N> {
    pub fn new(now: Time, value: [u64; N]) -> TimeAverage<N> {
        TimeAverage { sum: [0; N], sum_sq: [0; N], start: now, last: now, value }
    }

    /// The signals take values `v` from `now` on.
    #[inline]
    pub fn set(&mut self, now: Time, v: [u64; N]) {
        let dt = now.ns() - self.last.ns();
        // nothing to integrate at the same instant (most changes of an idle link's queue)
        if dt != 0 {
            for k in 0..N {
                // nor for an empty queue
                if self.value[k] != 0 {
                    let q = self.value[k] as u128;
                    let qdt = q * dt as u128;
                    self.sum[k] += qdt;
                    self.sum_sq[k] += q * qdt;
                }
            }
        }
        self.last = now;
        self.value = v;
    }

    /// Restart the window at `now`, keeping the current values.
    pub fn reset(&mut self, now: Time) {
        let v = self.value;
        *self = TimeAverage::new(now, v);
    }

    /// (mean, standard deviation) of signal `k` over [start, now].
    pub fn mean_sd(&self, k: usize, now: Time) -> (f64, f64) {
        let mut t = self.clone();
        t.set(now, self.value);
        let span = (now.ns() - self.start.ns()) as f64;
        if span <= 0.0 {
            return (self.value[k] as f64, 0.0);
        }
        let mean = t.sum[k] as f64 / span;
        let var = (t.sum_sq[k] as f64 / span - mean * mean).max(0.0);
        (mean, var.sqrt())
    }

    pub fn value(&self) -> [u64; N] {
        self.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_wave() {
        // 0 for 1 s, 10 for 1 s: mean 5, sd 5
        let mut a = TimeAverage::new(Time::ZERO, [0]);
        a.set(Time::from_secs(1), [10]);
        let (m, sd) = a.mean_sd(0, Time::from_secs(2));
        assert!((m - 5.0).abs() < 1e-9);
        assert!((sd - 5.0).abs() < 1e-9);
    }

    /// A value whose square does not fit 64 bits integrates as exactly as a small one: 2^40 for
    /// 1 ns and 0 for 1 ns have mean and SD 2^39 (both exact in f64).
    #[test]
    fn values_beyond_32_bits_integrate_exactly() {
        let big = 1u64 << 40;
        let mut a = TimeAverage::new(Time::ZERO, [big, 3]);
        a.set(Time::from_ns(1), [0, 3]);
        let half = (1u64 << 39) as f64;
        assert_eq!(a.mean_sd(0, Time::from_ns(2)), (half, half));
        assert_eq!(a.mean_sd(1, Time::from_ns(2)), (3.0, 0.0));
    }

    /// Two signals on one clock integrate as two separate averages would.
    #[test]
    fn signals_sharing_a_clock_are_each_their_own_average() {
        let mut both = TimeAverage::new(Time::ZERO, [0, 0]);
        let (mut a, mut b) = (TimeAverage::new(Time::ZERO, [0]), TimeAverage::new(Time::ZERO, [0]));
        let mut lcg = crate::rng::Lcg(7);
        let mut t = 0;
        for _ in 0..10_000 {
            let x = lcg.next();
            t += (x >> 50) % 3; // repeated instants too
            let (p, q) = ((x >> 20) % 50, (x >> 30) % 70_000);
            both.set(Time::from_ns(t), [p, q]);
            a.set(Time::from_ns(t), [p]);
            b.set(Time::from_ns(t), [q]);
        }
        let end = Time::from_ns(t + 5);
        assert_eq!(both.mean_sd(0, end), a.mean_sd(0, end));
        assert_eq!(both.mean_sd(1, end), b.mean_sd(0, end));
    }
}
