//! RTT estimation and the retransmission timeout, RFC 6298.
//!
//! First sample R: SRTT = R, RTTVAR = R/2. Later samples: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|
//! (using the old SRTT), then SRTT = 7/8 SRTT + 1/8 R. RTO = max(min_rto, SRTT + max(G, 4 RTTVAR)),
//! G = 1 ns (the simulator's clock granularity). Each expiry doubles the RTO (section 5.5) up to
//! `max_rto`; the backoff is cleared by the next valid sample (Karn's rule, section 5.7, is applied
//! by the caller, which never feeds samples from retransmitted segments).
//!
//! Deviation: Linux floors the variance term at `rto_min` (effective RTO about SRTT + max(4
//! RTTVAR, 200 ms)); this model applies the floor to the sum, as RFC 6298 (2.4) says.

use crate::units::Dur;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// Smoothed RTT; `None` before the first sample.
    pub srtt: Option<Dur>,
    /// RTT variation.
    pub rttvar: Dur,
    /// Minimum sample seen.
    pub min_rtt: Option<Dur>,
    /// RTO before backoff.
    rto: Dur,
    /// Number of consecutive expiries (exponential backoff exponent).
    pub backoff: u32,
    min_rto: Dur,
    max_rto: Dur,
}

impl RttEstimator {
    pub fn new(initial_rto: Dur, min_rto: Dur, max_rto: Dur) -> RttEstimator {
        RttEstimator { srtt: None, rttvar: Dur::ZERO, min_rtt: None, rto: initial_rto, backoff: 0, min_rto, max_rto }
    }

    /// Feed a valid RTT sample.
    pub fn on_sample(&mut self, r: Dur) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r.div(2);
            }
            Some(s) => {
                let diff = s.ns().abs_diff(r.ns());
                let var = self.rttvar.ns();
                self.rttvar = Dur::from_ns(var - var / 4 + diff / 4);
                self.srtt = Some(Dur::from_ns(s.ns() - s.ns() / 8 + r.ns() / 8));
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        let s = self.srtt.unwrap_or(r);
        self.rto = Dur::from_ns((s.ns() + (4 * self.rttvar.ns()).max(1)).max(self.min_rto.ns())).min(self.max_rto);
        self.backoff = 0;
    }

    /// Current timer value, backoff applied.
    pub fn rto(&self) -> Dur {
        let factor = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        self.rto.mul(factor).min(self.max_rto)
    }

    /// The timer expired: back off.
    pub fn on_timeout(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// SRTT, or `fallback` before the first sample.
    pub fn srtt_or(&self, fallback: Dur) -> Dur {
        self.srtt.unwrap_or(fallback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(Dur::from_secs(1), Dur::from_ms(200), Dur::from_secs(60))
    }

    #[test]
    fn rfc6298_first_and_second_sample() {
        let mut e = est();
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.on_sample(Dur::from_ms(100));
        assert_eq!(e.srtt, Some(Dur::from_ms(100)));
        assert_eq!(e.rttvar, Dur::from_ms(50));
        assert_eq!(e.rto(), Dur::from_ms(300)); // 100 + 4*50
        e.on_sample(Dur::from_ms(200));
        // rttvar = 3/4*50 + 1/4*100 = 62.5; srtt = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.rttvar, Dur::from_ns(62_500_000));
        assert_eq!(e.srtt, Some(Dur::from_ns(112_500_000)));
        assert_eq!(e.rto(), Dur::from_ns(362_500_000));
    }

    #[test]
    fn min_rto_floor_and_backoff() {
        let mut e = est();
        for _ in 0..50 {
            e.on_sample(Dur::from_ms(10));
        }
        assert_eq!(e.rto(), Dur::from_ms(200));
        e.on_timeout();
        assert_eq!(e.rto(), Dur::from_ms(400));
        e.on_timeout();
        assert_eq!(e.rto(), Dur::from_ms(800));
        for _ in 0..20 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), Dur::from_secs(60));
        e.on_sample(Dur::from_ms(10));
        assert_eq!(e.rto(), Dur::from_ms(200));
    }
}
