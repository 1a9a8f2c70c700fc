//! Units live in types: simulated time and durations are integer nanoseconds, rates are bit/s.
//!
//! Integer time makes runs bit-reproducible and ordering exact; 2^64 ns is 584 years.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

/// A link or sending rate, in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

pub const NS_PER_S: u64 = 1_000_000_000;

impl Time {
    pub const ZERO: Time = Time(0);
    /// Used as "never" for unarmed deadlines.
    pub const NEVER: Time = Time(u64::MAX);

    pub fn ns(self) -> u64 {
        self.0
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    /// Duration since `earlier`, saturating at zero.
    pub fn since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
    pub fn is_never(self) -> bool {
        self == Time::NEVER
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const fn from_ms(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    pub const fn from_us(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * NS_PER_S)
    }
    pub fn ns(self) -> u64 {
        self.0
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
}

impl Rate {
    pub const fn from_mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    pub fn bps(self) -> u64 {
        self.0
    }
    /// Serialization time of `bytes` at this rate, rounded up to the next nanosecond.
    #[inline]
    pub fn tx_time(self, bytes: u32) -> Dur {
        debug_assert!(self.0 > 0);
        let bits = bytes as u128 * 8 * NS_PER_S as u128;
        Dur(bits.div_ceil(self.0 as u128) as u64)
    }
    /// Bytes that this rate carries in `d` (floor).
    pub fn bytes_in(self, d: Dur) -> u64 {
        (self.0 as u128 * d.0 as u128 / (8 * NS_PER_S as u128)) as u64
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    #[inline]
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    #[inline]
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    #[inline]
    fn sub(self, t: Time) -> Dur {
        debug_assert!(self.0 >= t.0, "time went backwards");
        Dur(self.0 - t.0)
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_rounds_up() {
        // 1500 B at 100 Mb/s = 120 us exactly; at 1 Gb/s = 12 us.
        assert_eq!(Rate::from_mbps(100).tx_time(1500), Dur::from_us(120));
        assert_eq!(Rate::from_mbps(1000).tx_time(1500), Dur::from_us(12));
        // 1 byte at 3 bit/s = 2.666 s -> rounded up
        assert_eq!(Rate(3).tx_time(1).0, 2_666_666_667);
    }

    #[test]
    fn bytes_in_inverts_tx_time() {
        let r = Rate::from_mbps(100);
        assert_eq!(r.bytes_in(Dur::from_secs(1)), 12_500_000);
    }
}
