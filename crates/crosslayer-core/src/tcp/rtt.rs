//! RTT estimation and the retransmission timeout, in two rules (`TcpConfig::rto_rule`).
//!
//! **RFC 6298** (with ns-3's clock granularity G): first sample R: SRTT = R, RTTVAR = R/2; later
//! samples: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R| (with the old SRTT), SRTT = 7/8 SRTT + 1/8 R;
//! RTO = max(min_rto, SRTT + max(G, 4 RTTVAR)). ns-3 recomputes the RTO, dropping the backoff,
//! on every ACK of new data (`TcpSocketBase::NewAck`), which the sender does through
//! [`RttEstimator::on_new_ack`].
//!
//! **Linux** (`tcp_rtt_estimator`, `tcp_set_rto` in net/ipv4/tcp_input.c, read for behaviour):
//! the same gains on SRTT and the mean deviation `mdev` (kept as 4 mdev), except that a sample
//! below SRTT moves mdev with 1/32 instead of 1/4 (Eifel-like, so an RTT decrease barely raises
//! the RTO); `rttvar` is the largest 4 mdev seen in the current round trip, never below
//! `min_rto`, and decays by a quarter of its excess once per round trip. RTO = SRTT + rttvar, so
//! at least SRTT + min_rto: with a standing queue RTTVAR collapses and the RFC rule gives about
//! SRTT + 2 ms, where Linux keeps SRTT + 200 ms. The backoff clears only on a valid RTT sample
//! ("RFC6298: only reset backoff on valid RTT measurement").
//!
//! Both rules: each expiry doubles the RTO up to `max_rto` (section 5.5). Karn's rule (section
//! 5.7) is applied by the caller, which feeds no sample from retransmitted segments except a
//! timestamp echo. Times are ns (Linux keeps us; the algebra is the same).

use super::RtoRule;
use crate::units::{Dur, Opt};

#[derive(Clone, Debug)]
pub struct RttEstimator {
    rule: RtoRule,
    /// Smoothed RTT; `None` before the first sample.
    pub srtt: Opt<Dur>,
    /// RFC 6298 RTTVAR; with the Linux rule, `rttvar_us`: max(4 mdev over the round trip, min_rto).
    pub rttvar: Dur,
    /// Linux: 4 x the mean deviation (`mdev_us`).
    mdev4: i64,
    /// Linux: largest `mdev4` in the current round trip (`mdev_max_us`).
    mdev_max: i64,
    /// Linux: the round trip ends when snd_una passes this segment (`rtt_seq`).
    rtt_seq: u64,
    /// Minimum sample seen.
    pub min_rtt: Opt<Dur>,
    /// RTO before backoff.
    rto: Dur,
    /// Number of consecutive expiries (exponential backoff exponent).
    pub backoff: u32,
    min_rto: Dur,
    max_rto: Dur,
    /// RFC 6298 clock granularity G.
    granularity: Dur,
}

impl RttEstimator {
    pub fn new(rule: RtoRule, initial_rto: Dur, min_rto: Dur, max_rto: Dur, granularity: Dur) -> RttEstimator {
        RttEstimator {
            rule,
            srtt: Opt::NONE,
            rttvar: Dur::ZERO,
            mdev4: 0,
            mdev_max: 0,
            rtt_seq: 0,
            min_rtt: Opt::NONE,
            rto: initial_rto.min(max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            granularity,
        }
    }

    /// Feed a valid RTT sample `r`, taken on an ACK that left snd_una at segment `snd_una`
    /// with snd_nxt at `snd_nxt` (the Linux rule tracks round trips by them).
    pub fn on_sample(&mut self, r: Dur, snd_una: u64, snd_nxt: u64) {
        self.min_rtt = Opt::some(self.min_rtt.get().map_or(r, |m| m.min(r)));
        match self.rule {
            RtoRule::Rfc6298 => self.rfc6298(r),
            RtoRule::Linux => self.linux(r, snd_una, snd_nxt),
        }
        self.backoff = 0;
    }

    fn rfc6298(&mut self, r: Dur) {
        match self.srtt.get() {
            None => {
                self.srtt = Opt::some(r);
                self.rttvar = r.div(2);
            }
            Some(s) => {
                let diff = s.ns().abs_diff(r.ns());
                let var = self.rttvar.ns();
                self.rttvar = Dur::from_ns(var - var / 4 + diff / 4);
                self.srtt = Opt::some(Dur::from_ns(s.ns() - s.ns() / 8 + r.ns() / 8));
            }
        }
        let s = self.srtt.get().unwrap_or(r);
        let var = self.rttvar.mul(4).max(self.granularity).max(Dur::from_ns(1));
        self.rto = (s + var).max(self.min_rto).min(self.max_rto);
    }

    fn linux(&mut self, r: Dur, snd_una: u64, snd_nxt: u64) {
        let min_rto = self.min_rto.ns() as i64;
        let mut m = r.ns() as i64;
        match self.srtt.get() {
            Some(s) => {
                let mut srtt8 = s.ns() as i64 * 8;
                m -= srtt8 >> 3; // the error of the estimate
                srtt8 += m; // srtt = 7/8 srtt + 1/8 sample
                if m < 0 {
                    m = -m - (self.mdev4 >> 2);
                    if m > 0 {
                        m >>= 3; // a decrease moves mdev with 1/32 only
                    }
                } else {
                    m -= self.mdev4 >> 2;
                }
                self.mdev4 += m; // mdev = 3/4 mdev + 1/4 |error|
                if self.mdev4 > self.mdev_max {
                    self.mdev_max = self.mdev4;
                    if self.mdev_max > self.rttvar.ns() as i64 {
                        self.rttvar = Dur::from_ns(self.mdev_max as u64);
                    }
                }
                if snd_una > self.rtt_seq {
                    // a round trip passed: decay rttvar towards this round trip's largest mdev
                    let var = self.rttvar.ns() as i64;
                    if self.mdev_max < var {
                        self.rttvar = Dur::from_ns((var - ((var - self.mdev_max) >> 2)) as u64);
                    }
                    self.rtt_seq = snd_nxt;
                    self.mdev_max = min_rto;
                }
                self.srtt = Opt::some(Dur::from_ns((srtt8 >> 3).max(1) as u64));
            }
            None => {
                self.srtt = Opt::some(Dur::from_ns(m.max(1) as u64));
                self.mdev4 = m << 1; // so that the first RTO is 3 x the sample
                self.rttvar = Dur::from_ns(self.mdev4.max(min_rto) as u64);
                self.mdev_max = self.rttvar.ns() as i64;
                self.rtt_seq = snd_nxt;
            }
        }
        let s = self.srtt.get().unwrap_or(r);
        self.rto = (s + self.rttvar).min(self.max_rto);
    }

    /// An ACK of new data arrived. Under the RFC 6298 rule (as ns-3) this clears the backoff:
    /// the timer restarts with the RTO computed from the estimate.
    pub fn on_new_ack(&mut self) {
        if self.rule == RtoRule::Rfc6298 {
            self.backoff = 0;
        }
    }

    /// The rule re-arms the timer when the head is retransmitted (Linux).
    pub fn rearm_on_head_retransmit(&self) -> bool {
        self.rule == RtoRule::Linux
    }

    /// Current timer value, backoff applied.
    pub fn rto(&self) -> Dur {
        let factor = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        self.rto.mul(factor).min(self.max_rto)
    }

    /// Set the unbacked-off RTO (RFC 6298 5.7: 3 s after a SYN timeout, with no sample yet).
    pub fn set_rto(&mut self, rto: Dur) {
        self.rto = rto.min(self.max_rto);
    }

    /// The timer expired: back off.
    pub fn on_timeout(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// The lower bound of the RTO.
    pub fn min_rto(&self) -> Dur {
        self.min_rto
    }

    /// SRTT, or `fallback` before the first sample.
    pub fn srtt_or(&self, fallback: Dur) -> Dur {
        self.srtt.get().unwrap_or(fallback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rfc() -> RttEstimator {
        RttEstimator::new(RtoRule::Rfc6298, Dur::from_secs(1), Dur::from_ms(200), Dur::from_secs(60), Dur::ZERO)
    }

    fn linux() -> RttEstimator {
        RttEstimator::new(RtoRule::Linux, Dur::from_secs(1), Dur::from_ms(200), Dur::from_secs(120), Dur::ZERO)
    }

    #[test]
    fn rfc6298_first_and_second_sample() {
        let mut e = rfc();
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.on_sample(Dur::from_ms(100), 0, 10);
        assert_eq!(e.srtt.get(), Some(Dur::from_ms(100)));
        assert_eq!(e.rttvar, Dur::from_ms(50));
        assert_eq!(e.rto(), Dur::from_ms(300)); // 100 + 4*50
        e.on_sample(Dur::from_ms(200), 1, 11);
        // rttvar = 3/4*50 + 1/4*100 = 62.5; srtt = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.rttvar, Dur::from_ns(62_500_000));
        assert_eq!(e.srtt.get(), Some(Dur::from_ns(112_500_000)));
        assert_eq!(e.rto(), Dur::from_ns(362_500_000));
    }

    #[test]
    fn min_rto_floor_backoff_and_granularity() {
        let mut e = rfc();
        for _ in 0..50 {
            e.on_sample(Dur::from_ms(10), 0, 0);
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
        e.on_sample(Dur::from_ms(10), 0, 0);
        assert_eq!(e.rto(), Dur::from_ms(200));
        // ns-3's G = 1 ms: a steady 300 ms RTT with min_rto 1 s gives 1 s; at 2 s, SRTT + 1 ms
        let mut g = RttEstimator::new(RtoRule::Rfc6298, Dur::from_secs(1), Dur::from_secs(1), Dur::from_secs(60), Dur::from_ms(1));
        for _ in 0..200 {
            g.on_sample(Dur::from_secs(2), 0, 0);
        }
        assert_eq!(g.rto(), Dur::from_ms(2001));
    }

    /// Defect (TCP-fidelity issue, 2): with a standing queue every sample is the same, RTTVAR
    /// decays to nothing and the RFC rule's RTO falls to about SRTT (plus G): a 236 ms-RTT flow
    /// timed out 26 ms after a fast retransmit. Linux keeps RTO >= SRTT + min_rto.
    #[test]
    fn linux_keeps_rto_at_least_srtt_plus_min_rto() {
        let (mut l, mut r) = (linux(), rfc());
        let mut una = 0;
        for _ in 0..500 {
            una += 10;
            l.on_sample(Dur::from_ms(236), una, una + 50);
            r.on_sample(Dur::from_ms(236), una, una + 50);
        }
        assert!(r.rto() < Dur::from_ms(240), "RFC 6298 collapses to about SRTT: {}", r.rto());
        // rttvar decays geometrically towards min_rto: 436 ms to within a microsecond
        assert!(l.rto().ns().abs_diff(436_000_000) < 1_000, "Linux: SRTT 236 ms + min_rto 200 ms, got {}", l.rto());
    }

    #[test]
    fn linux_first_sample_and_eifel_like_decrease() {
        let mut l = linux();
        l.on_sample(Dur::from_ms(100), 0, 10);
        // srtt 100, mdev4 = 200, rttvar = max(200, 200) -> RTO 300 (3 x the sample)
        assert_eq!(l.rto(), Dur::from_ms(300));
        // a much smaller sample moves mdev by 1/32 of the excess error, not 1/4
        l.on_sample(Dur::from_ms(20), 0, 10);
        // srtt = 100 - 80/8 = 90; error 80 > mdev 50: mdev4 += (80 - 50) / 8 = 3.75 ms
        assert_eq!(l.srtt.get(), Some(Dur::from_ms(90)));
        assert_eq!(l.mdev4, 203_750_000);
        assert_eq!(l.rto(), Dur::from_ns(90_000_000 + 203_750_000));
    }

    #[test]
    fn backoff_clears_on_new_ack_only_under_rfc6298() {
        let (mut l, mut r) = (linux(), rfc());
        for e in [&mut l, &mut r] {
            e.on_sample(Dur::from_ms(100), 0, 1);
            e.on_timeout();
            e.on_new_ack();
        }
        assert_eq!(r.backoff, 0, "ns-3 restarts the timer from the estimate on a new ACK");
        assert_eq!(l.backoff, 1, "Linux waits for a valid RTT sample");
    }
}
