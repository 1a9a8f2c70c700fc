//! Units live in types: simulated time and durations are integer nanoseconds, rates are bit/s,
//! sizes are bytes. The fields are private, so a bare `u64` never passes for a unit by accident.
//!
//! Integer time makes runs bit-reproducible and ordering exact; 2^64 ns is 584 years.
//! `Display` writes the shortest exact form (`"200ms"`, `"100Mbps"`, `"64KiB"`), the same
//! rule as the Python package's `crosslayer.units.format_*`, so engine messages read like study
//! files. In JSON (the engine spec) each is a plain integer of its base unit.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

pub const NS_PER_S: u64 = 1_000_000_000;

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Time(u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Dur(u64);

/// A link or sending rate, in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Rate(u64);

/// A size (packet, buffer, window), in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Bytes(u64);

impl Time {
    pub const ZERO: Time = Time(0);
    /// Used as "never" for unarmed deadlines.
    pub const NEVER: Time = Time(u64::MAX);

    pub const fn from_ns(ns: u64) -> Time {
        Time(ns)
    }
    pub const fn from_secs(s: u64) -> Time {
        Time(s * NS_PER_S)
    }
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }
    pub const fn ns(self) -> u64 {
        self.0
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    /// Duration since `earlier`, saturating at zero.
    pub fn since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
    /// Duration since the start of the run.
    pub const fn since_start(self) -> Dur {
        Dur(self.0)
    }
    pub fn is_never(self) -> bool {
        self == Time::NEVER
    }
    /// `self + d` where both are finite (the hot path's own sums: a link's serialization
    /// ends, arrivals; `MAX_SPAN` keeps them far from the end of the clock): a plain add, where
    /// `+` saturates so that `NEVER` stays `NEVER`.
    #[inline(always)]
    pub fn plus(self, d: Dur) -> Time {
        debug_assert!(self.0.checked_add(d.0).is_some_and(|t| t < u64::MAX), "{} + {} passes the end of the clock", self.0, d.0);
        Time(self.0.wrapping_add(d.0))
    }
    /// `self - earlier` where `earlier <= self` (a plain subtraction, where `since` saturates).
    #[inline(always)]
    pub fn after(self, earlier: Time) -> Dur {
        debug_assert!(earlier.0 <= self.0, "{} is after {}", earlier.0, self.0);
        Dur(self.0.wrapping_sub(earlier.0))
    }
    /// The time `d` before this one, saturating at zero.
    pub fn earlier_by(self, d: Dur) -> Time {
        Time(self.0.saturating_sub(d.0))
    }
}

/// Longest time span a scenario may name (11.6 days): a run's duration and every timer setting
/// (RTOs), which keeps every time the engine computes far from the 584-year end of its clock and
/// every cast of a span to a signed integer exact.
pub const MAX_SPAN: Dur = Dur::from_secs(1_000_000);

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const MAX: Dur = Dur(u64::MAX);
    pub const fn from_ns(ns: u64) -> Dur {
        Dur(ns)
    }
    pub const fn from_us(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    pub const fn from_ms(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * NS_PER_S)
    }
    pub const fn ns(self) -> u64 {
        self.0
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    /// `self * k`, saturating.
    pub const fn mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
    /// `self / k` (floor); `k` must be > 0.
    pub const fn div(self, k: u64) -> Dur {
        Dur(self.0 / k)
    }
    pub const fn saturating_sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}

impl Rate {
    pub const fn from_bps(bps: u64) -> Rate {
        Rate(bps)
    }
    pub const fn from_gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }

    pub const fn from_mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Serialization time of `bytes` at this rate, rounded up to the next nanosecond.
    #[inline]
    pub fn tx_time(self, bytes: u32) -> Dur {
        debug_assert!(self.0 > 0);
        if bytes < 1 << 31 {
            // bytes x 8e9 < 2^31 x 2^33 = 2^64: the same quotient in 64-bit arithmetic
            return Dur((bytes as u64 * 8 * NS_PER_S).div_ceil(self.0));
        }
        let bits = bytes as u128 * 8 * NS_PER_S as u128;
        Dur(bits.div_ceil(self.0 as u128) as u64)
    }
    /// Bytes that this rate carries in `d` (floor).
    pub fn bytes_in(self, d: Dur) -> u64 {
        (self.0 as u128 * d.0 as u128 / (8 * NS_PER_S as u128)) as u64
    }
}

impl Bytes {
    pub const fn new(bytes: u64) -> Bytes {
        Bytes(bytes)
    }
    pub const fn get(self) -> u64 {
        self.0
    }
}

/// A value of 64 bits that may be absent, in 8 bytes instead of `Option`'s 16: `u64::MAX`
/// stands for "none", so the value itself may never be `u64::MAX` (`some` refuses it). For the
/// optional times, durations and segment numbers of state kept per flow (issue 21's memory per
/// flow); read it as an `Option` with `get`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Opt<T: Packed>(u64, std::marker::PhantomData<T>);

/// A type [`Opt`] can hold: a `u64` underneath.
pub trait Packed: Copy {
    fn to_bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
}

impl Packed for u64 {
    #[inline]
    fn to_bits(self) -> u64 {
        self
    }
    #[inline]
    fn from_bits(bits: u64) -> u64 {
        bits
    }
}

macro_rules! packed_unit {
    ($($T:ident),*) => {$(
        impl Packed for $T {
            #[inline]
            fn to_bits(self) -> u64 {
                self.0
            }
            #[inline]
            fn from_bits(bits: u64) -> $T {
                $T(bits)
            }
        }
    )*};
}
packed_unit!(Time, Dur, Rate, Bytes);

impl<T: Packed> Opt<T> {
    pub const NONE: Opt<T> = Opt(u64::MAX, std::marker::PhantomData);

    #[inline]
    pub fn some(v: T) -> Opt<T> {
        let bits = v.to_bits();
        assert!(bits != u64::MAX, "Opt cannot hold u64::MAX, its 'none'");
        Opt(bits, std::marker::PhantomData)
    }

    #[inline]
    pub fn get(self) -> Option<T> {
        (self.0 != u64::MAX).then(|| T::from_bits(self.0))
    }

    #[inline]
    pub fn is_some(&self) -> bool {
        self.0 != u64::MAX
    }

    #[inline]
    pub fn is_none(&self) -> bool {
        self.0 == u64::MAX
    }

    #[inline]
    pub fn take(&mut self) -> Option<T> {
        std::mem::replace(self, Opt::NONE).get()
    }
}

impl<T: Packed> Default for Opt<T> {
    fn default() -> Opt<T> {
        Opt::NONE
    }
}

impl<T: Packed> From<Option<T>> for Opt<T> {
    #[inline]
    fn from(o: Option<T>) -> Opt<T> {
        o.map_or(Opt::NONE, Opt::some)
    }
}

/// In JSON as the `Option` it stands for (`null` for none); the one value it cannot hold is
/// refused as an error, not a panic.
impl<T: Packed + Serialize> Serialize for Opt<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(s)
    }
}

impl<'de, T: Packed + Deserialize<'de>> Deserialize<'de> for Opt<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Opt<T>, D::Error> {
        match Option::<T>::deserialize(d)? {
            Some(v) if v.to_bits() == u64::MAX => Err(serde::de::Error::custom(format!("{} is out of range", u64::MAX))),
            o => Ok(o.into()),
        }
    }
}

impl<T: Packed + fmt::Debug> fmt::Debug for Opt<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
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

/// The largest unit of `units` (largest first, base unit last) that divides `n` exactly.
fn shortest(f: &mut fmt::Formatter<'_>, n: u64, units: &[(&str, u64)]) -> fmt::Result {
    for &(name, m) in units {
        if n.is_multiple_of(m) {
            return write!(f, "{}{name}", n / m);
        }
    }
    unreachable!("the base unit divides everything")
}

const TIME_UNITS: [(&str, u64); 4] = [("s", NS_PER_S), ("ms", 1_000_000), ("us", 1_000), ("ns", 1)];

impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("0s");
        }
        shortest(f, self.0, &TIME_UNITS)
    }
}

impl fmt::Display for Time {
    /// Time since the start of the run, as a duration (`"1500ms"`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Dur(self.0), f)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        shortest(f, self.0, &[("Tbps", 1_000_000_000_000), ("Gbps", 1_000_000_000), ("Mbps", 1_000_000), ("kbps", 1_000), ("bps", 1)])
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        shortest(
            f,
            self.0,
            &[("GiB", 1 << 30), ("GB", 1_000_000_000), ("MiB", 1 << 20), ("MB", 1_000_000), ("KiB", 1 << 10), ("kB", 1_000), ("B", 1)],
        )
    }
}

/// `x.round() as u64` (half away from zero; NaN and negatives 0, past the range `u64::MAX`)
/// without `f64::round`, which the baseline x86-64 target calls out of line: the integer part
/// and the fraction left, exact for every double (below 2^53 the fraction `x - floor(x)` is
/// representable; from 2^52 on every double is whole).
#[inline(always)]
pub fn round_u64(x: f64) -> u64 {
    let i = x as u64;
    if x - i as f64 >= 0.5 {
        i.saturating_add(1)
    } else {
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opt_holds_what_an_option_holds_in_8_bytes() {
        assert_eq!(std::mem::size_of::<Opt<Time>>(), 8);
        let mut t: Opt<Time> = Opt::some(Time::ZERO);
        assert_eq!(t.get(), Some(Time::ZERO));
        assert_eq!(format!("{t:?}"), "Some(Time(0))");
        assert_eq!(t.take(), Some(Time::ZERO));
        assert!(t.is_none() && t.get().is_none() && t == Opt::NONE && t == Opt::default());
        assert_eq!(Opt::from(Some(u64::MAX - 1)).get(), Some(u64::MAX - 1));
        assert_eq!(Opt::<Dur>::from(None).get(), None);
        assert!(std::panic::catch_unwind(|| Opt::some(u64::MAX)).is_err(), "the sentinel is not a value");
        assert_eq!(serde_json::to_string(&Opt::some(Time::from_ns(5))).unwrap(), "5");
        assert_eq!(serde_json::to_string(&Opt::<Time>::NONE).unwrap(), "null");
        assert_eq!(serde_json::from_str::<Opt<Time>>("7").unwrap().get(), Some(Time::from_ns(7)));
        assert!(serde_json::from_str::<Opt<Time>>("18446744073709551615").is_err(), "an error, not a panic");
    }

    /// `round_u64` is `x.round() as u64` over halves, near-halves, integers, the ends of the
    /// range, negatives and NaN, and a random sweep of magnitudes.
    #[test]
    fn round_u64_is_round_then_cast() {
        let mut xs = vec![0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -0.7, 0.49999999999999994, 4503599627370495.5, 9007199254740993.0, 1e19, 1.8446744073709552e19, 2e19, f64::MAX, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MIN_POSITIVE];
        let mut lcg = crate::rng::Lcg(0x1234_5678_9abc_def0);
        for _ in 0..200_000 {
            let r = lcg.next();
            let mant = (r >> 11) as f64 / (1u64 << 53) as f64;
            let exp = ((r >> 3) % 80) as i32 - 10;
            xs.push(mant * 2f64.powi(exp));
            xs.push((mant * 2f64.powi(exp)).floor() + 0.5);
        }
        for x in xs {
            assert_eq!(round_u64(x), x.round() as u64, "{x}");
        }
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1500 B at 100 Mb/s = 120 us exactly; at 1 Gb/s = 12 us.
        assert_eq!(Rate::from_mbps(100).tx_time(1500), Dur::from_us(120));
        assert_eq!(Rate::from_mbps(1000).tx_time(1500), Dur::from_us(12));
        // 1 byte at 3 bit/s = 2.666 s -> rounded up
        assert_eq!(Rate::from_bps(3).tx_time(1).ns(), 2_666_666_667);
    }

    #[test]
    fn bytes_in_inverts_tx_time() {
        let r = Rate::from_mbps(100);
        assert_eq!(r.bytes_in(Dur::from_secs(1)), 12_500_000);
    }

    #[test]
    fn display_is_the_shortest_exact_form() {
        assert_eq!(Dur::from_ms(200).to_string(), "200ms");
        assert_eq!(Dur::from_ns(1_500_000).to_string(), "1500us");
        assert_eq!(Dur::ZERO.to_string(), "0s");
        assert_eq!(Dur::from_secs(60).to_string(), "60s");
        assert_eq!(Rate::from_bps(1_500_000_000).to_string(), "1500Mbps");
        assert_eq!(Bytes::new(65536).to_string(), "64KiB");
        assert_eq!(Bytes::new(1500).to_string(), "1500B");
    }

    #[test]
    fn json_is_the_base_unit_integer() {
        assert_eq!(serde_json::to_string(&Dur::from_ms(5)).unwrap(), "5000000");
        assert_eq!(serde_json::from_str::<Rate>("100000000").unwrap(), Rate::from_mbps(100));
    }
}
