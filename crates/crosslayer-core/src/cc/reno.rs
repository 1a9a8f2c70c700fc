//! Reno / NewReno congestion avoidance: AIMD(1 MSS per RTT, 1/2).
//!
//! Source: RFC 5681 section 3.1 (slow start, congestion avoidance, ssthresh after loss) with
//! Appropriate Byte Counting, RFC 3465 section 2 (L = 2 in slow start; in congestion avoidance
//! `bytes_acked` accumulates and cwnd grows by one MSS each time it reaches cwnd).
//! NewReno (RFC 6582) is a loss-recovery procedure, implemented by the sender when SACK is off;
//! "newreno" names this same window rule.
//!
//! Deviations: ssthresh = max(FlightSize / 2, 2 MSS) per RFC 5681 eq. (4) (Linux halves cwnd
//! instead; for a cwnd-limited bulk sender the two coincide). Slow start hands the bytes left over
//! at ssthresh to congestion avoidance (Linux `tcp_slow_start`), which RFC 5681 leaves open.

use super::{slow_start, AckEvent, CcEnv, CongestionControl, CongestionEvent, Window};
use crate::registry::{Algorithm, Info};

crate::params! {
    /// Reno has no parameters: AIMD(1, 1/2) is the standard.
    pub struct RenoConfig {}
}

#[derive(Clone, Debug, Default)]
pub struct Reno {
    /// Bytes acknowledged since cwnd last grew in congestion avoidance (RFC 3465 `bytes_acked`).
    bytes_acked: u64,
}

impl Algorithm for Reno {
    type Config = RenoConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "reno",
        aliases: &["newreno"],
        summary: "Reno/NewReno AIMD: +1 MSS per RTT, halve on loss, with byte counting",
        sources: &["RFC 5681 section 3.1", "RFC 3465 section 2 (ABC)", "RFC 6582 (NewReno recovery, in the sender)", "Linux net/ipv4/tcp_cong.c tcp_reno_*"],
    };
    fn new(_cfg: &RenoConfig, _env: &CcEnv) -> Reno {
        Reno::default()
    }
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        if !a.may_grow() {
            return;
        }
        let acked = slow_start(w, a.acked_bytes);
        if acked == 0 {
            return;
        }
        self.bytes_acked += acked;
        if self.bytes_acked >= w.cwnd {
            self.bytes_acked -= w.cwnd;
            w.cwnd += w.mss as u64;
        }
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        self.bytes_acked = 0;
        (e.flight_size / 2).max(2 * w.mss as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CaState, CongestionKind, RateSample};
    use crate::units::{Dur, Time};

    pub(crate) fn ack(bytes: u64) -> AckEvent {
        AckEvent {
            now: Time::ZERO,
            ca_state: CaState::Open,
            acked_bytes: bytes,
            sacked_bytes: 0,
            lost_bytes: 0,
            prior_in_flight: 0,
            cwnd_limited: true,
            ece: false,
            rtt: None,
            owd: None,
            srtt: Dur::from_ms(10),
            min_rtt: Dur::from_ms(10),
            delivered_total: 0,
            rate: RateSample::default(),
        }
    }

    #[test]
    fn slow_start_doubles_per_window_and_stops_at_ssthresh() {
        let mss = 1000;
        let mut w = Window { cwnd: 10 * mss, ssthresh: 15 * mss, mss: mss as u32 };
        let mut r = Reno::default();
        for _ in 0..10 {
            r.on_ack(&mut w, &ack(mss));
        }
        // 5 MSS reach ssthresh, the other 5 MSS of acks go to byte counting (< cwnd)
        assert_eq!(w.cwnd, 15 * mss);
        assert_eq!(r.bytes_acked, 5 * mss);
    }

    #[test]
    fn congestion_avoidance_one_mss_per_window() {
        let mss = 1000;
        let mut w = Window { cwnd: 20 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        let mut r = Reno::default();
        for _ in 0..20 {
            r.on_ack(&mut w, &ack(mss));
        }
        assert_eq!(w.cwnd, 21 * mss);
        // delayed ACKs (2 MSS each) give the same growth per byte
        for _ in 0..11 {
            r.on_ack(&mut w, &ack(2 * mss));
        }
        assert_eq!(w.cwnd, 22 * mss);
    }

    #[test]
    fn no_growth_in_recovery_or_when_not_cwnd_limited() {
        let mut w = Window { cwnd: 20_000, ssthresh: 10_000, mss: 1000 };
        let mut r = Reno::default();
        for gate in [AckEvent { ca_state: CaState::Recovery, ..ack(1000) }, AckEvent { cwnd_limited: false, ..ack(1000) }] {
            for _ in 0..100 {
                r.on_ack(&mut w, &gate);
            }
        }
        assert_eq!(w.cwnd, 20_000);
    }

    #[test]
    fn ssthresh_is_half_flight_with_floor() {
        let mut w = Window { cwnd: 20_000, ssthresh: u64::MAX, mss: 1000 };
        let mut r = Reno::default();
        let ev = |flight| CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: flight, new_episode: true };
        assert_eq!(r.on_congestion(&mut w, &ev(20_000)), 10_000);
        assert_eq!(r.on_congestion(&mut w, &ev(3_000)), 2_000);
    }
}
