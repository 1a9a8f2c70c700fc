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

use super::{slow_start, AckSample, CcState, CongestionControl};
use crate::units::Time;

#[derive(Clone, Debug, Default)]
pub struct Reno {
    /// Bytes acknowledged since cwnd last grew in congestion avoidance (RFC 3465 `bytes_acked`).
    bytes_acked: u64,
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, s: &mut CcState, a: &AckSample) {
        let acked = slow_start(s, a.acked_bytes);
        if acked == 0 {
            return;
        }
        self.bytes_acked += acked;
        if self.bytes_acked >= s.cwnd {
            self.bytes_acked -= s.cwnd;
            s.cwnd += s.mss as u64;
        }
    }

    fn ssthresh(&mut self, s: &CcState, _now: Time, in_flight: u64) -> u64 {
        self.bytes_acked = 0;
        (in_flight / 2).max(2 * s.mss as u64)
    }

    fn on_rto(&mut self, s: &CcState, now: Time, in_flight: u64) -> u64 {
        self.ssthresh(s, now, in_flight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Dur;

    fn ack(bytes: u64) -> AckSample {
        AckSample { now: Time(0), acked_bytes: bytes, srtt: Dur::from_ms(10), min_rtt: Dur::from_ms(10), in_flight: 0 }
    }

    #[test]
    fn slow_start_doubles_per_window_and_stops_at_ssthresh() {
        let mss = 1000;
        let mut s = CcState { cwnd: 10 * mss, ssthresh: 15 * mss, mss: mss as u32 };
        let mut r = Reno::default();
        for _ in 0..10 {
            r.on_ack(&mut s, &ack(mss));
        }
        // 5 MSS reach ssthresh, the other 5 MSS of acks go to byte counting (< cwnd)
        assert_eq!(s.cwnd, 15 * mss);
        assert_eq!(r.bytes_acked, 5 * mss);
    }

    #[test]
    fn congestion_avoidance_one_mss_per_window() {
        let mss = 1000;
        let mut s = CcState { cwnd: 20 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        let mut r = Reno::default();
        for _ in 0..20 {
            r.on_ack(&mut s, &ack(mss));
        }
        assert_eq!(s.cwnd, 21 * mss);
        // delayed ACKs (2 MSS each) give the same growth per byte
        for _ in 0..11 {
            r.on_ack(&mut s, &ack(2 * mss));
        }
        assert_eq!(s.cwnd, 22 * mss);
    }

    #[test]
    fn ssthresh_is_half_flight_with_floor() {
        let s = CcState { cwnd: 20_000, ssthresh: u64::MAX, mss: 1000 };
        let mut r = Reno::default();
        assert_eq!(r.ssthresh(&s, Time(0), 20_000), 10_000);
        assert_eq!(r.ssthresh(&s, Time(0), 3_000), 2_000);
    }
}
