//! Exact time average and standard deviation of a piecewise-constant signal (a queue length):
//! integrates q(t) and q(t)^2 between changes, so no sampling error.

use crate::units::Time;

#[derive(Clone, Debug, Default)]
pub struct TimeAverage {
    /// Integral of q dt (units of q times ns).
    sum: u128,
    /// Integral of q^2 dt.
    sum_sq: u128,
    /// Start of the averaging window.
    start: Time,
    /// Time of the last change.
    last: Time,
    /// Value since `last`.
    value: u64,
}

impl TimeAverage {
    pub fn new(now: Time, value: u64) -> TimeAverage {
        TimeAverage { start: now, last: now, value, ..Default::default() }
    }

    /// The signal takes value `v` from `now` on.
    #[inline]
    pub fn set(&mut self, now: Time, v: u64) {
        let dt = now.ns() - self.last.ns();
        // nothing to integrate for an empty queue or a change at the same instant (most
        // changes of an idle link's queue)
        if dt != 0 && self.value != 0 {
            let q = self.value as u128;
            let qdt = q * dt as u128;
            self.sum += qdt;
            self.sum_sq += q * qdt;
        }
        self.last = now;
        self.value = v;
    }

    /// Restart the window at `now`, keeping the current value.
    pub fn reset(&mut self, now: Time) {
        let v = self.value;
        *self = TimeAverage::new(now, v);
    }

    /// (mean, standard deviation) over [start, now].
    pub fn mean_sd(&self, now: Time) -> (f64, f64) {
        let mut t = self.clone();
        t.set(now, self.value);
        let span = (now.ns() - self.start.ns()) as f64;
        if span <= 0.0 {
            return (self.value as f64, 0.0);
        }
        let mean = t.sum as f64 / span;
        let var = (t.sum_sq as f64 / span - mean * mean).max(0.0);
        (mean, var.sqrt())
    }

    pub fn value(&self) -> u64 {
        self.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_wave() {
        // 0 for 1 s, 10 for 1 s: mean 5, sd 5
        let mut a = TimeAverage::new(Time::ZERO, 0);
        a.set(Time::from_secs(1), 10);
        let (m, sd) = a.mean_sd(Time::from_secs(2));
        assert!((m - 5.0).abs() < 1e-9);
        assert!((sd - 5.0).abs() < 1e-9);
    }
}
