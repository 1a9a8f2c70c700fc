//! Deterministic random streams: xoshiro256++ (Blackman & Vigna, 2019) seeded with SplitMix64.
//!
//! Every consumer (a flow, a link's loss process, a queue discipline) owns its own stream derived
//! from `(run seed, stream kind, index)`, so adding a flow or a link never shifts another's numbers.

/// Stream kinds: part of the seed derivation, so two kinds never share a stream.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum StreamKind {
    Flow = 1,
    LinkLoss = 2,
    Qdisc = 3,
    LinkJitter = 4,
    Scheduler = 5,
    Arrivals = 6,
    OnOff = 7,
    /// A wireless LAN's backoff draws (`net::wlan`).
    Medium = 8,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xoshiro256++ generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A stream for `(seed, kind, index)`.
    pub fn stream(seed: u64, kind: StreamKind, index: u64) -> Rng {
        let mut sm = seed ^ (kind as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        let _ = splitmix64(&mut sm);
        sm ^= index.wrapping_mul(0x8CB9_2BA7_2F3D_8DD7);
        let mut s = [0u64; 4];
        for w in &mut s {
            *w = splitmix64(&mut sm);
        }
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A standard normal sample (Box-Muller, the cosine of the pair; two uniform draws).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.next_f64(); // (0, 1]
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// Bernoulli trial with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.next_f64() < p
    }

    /// Uniform integer in [lo, hi] (inclusive); Lemire's nearly-divisionless method.
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi);
        let span = hi - lo;
        if span == u64::MAX {
            return self.next_u64();
        }
        let n = span + 1;
        let mut m = self.next_u64() as u128 * n as u128;
        if (m as u64) < n {
            let t = n.wrapping_neg() % n;
            while (m as u64) < t {
                m = self.next_u64() as u128 * n as u128;
            }
        }
        lo + (m >> 64) as u64
    }
}

/// The tests' random histories: Knuth's MMIX linear congruential generator, so a test replays
/// the same history every run. Not for the model, whose draws are `Rng` streams.
#[cfg(test)]
pub(crate) struct Lcg(pub u64);

#[cfg(test)]
impl Lcg {
    /// The next state (its high bits are the better ones).
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0
    }

    /// A number below `n`, from the state's bits 33 and up.
    pub fn below(&mut self, n: u64) -> u64 {
        (self.next() >> 33) % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_independent_and_reproducible() {
        let a1: Vec<u64> = (0..4).map(|_| 0).scan(Rng::stream(7, StreamKind::Flow, 0), |r, _| Some(r.next_u64())).collect();
        let a2: Vec<u64> = (0..4).map(|_| 0).scan(Rng::stream(7, StreamKind::Flow, 0), |r, _| Some(r.next_u64())).collect();
        let b: Vec<u64> = (0..4).map(|_| 0).scan(Rng::stream(7, StreamKind::Flow, 1), |r, _| Some(r.next_u64())).collect();
        let c: Vec<u64> = (0..4).map(|_| 0).scan(Rng::stream(7, StreamKind::LinkLoss, 0), |r, _| Some(r.next_u64())).collect();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, c);
    }

    #[test]
    fn uniform_mean_is_half() {
        let mut r = Rng::stream(1, StreamKind::Qdisc, 3);
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.next_f64()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
        for _ in 0..1000 {
            let v = r.range_inclusive(3, 9);
            assert!((3..=9).contains(&v));
        }
    }
}
