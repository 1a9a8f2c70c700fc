//! TCP Hybla: grows the window as a Reno flow with a reference RTT (25 ms) would in the same
//! time, so long-RTT (satellite) flows are not penalized: with `rho = RTT / RTT0`, slow start
//! adds `2^rho - 1` segments per ACK and congestion avoidance `rho^2 / cwnd`.
//!
//! Source: Caini and Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous networks",
//! International Journal of Satellite Communications and Networking 22(5), 2004; Linux
//! `net/ipv4/tcp_hybla.c`, read for behaviour (not copied). As Linux runs it:
//! * `rho = max(srtt / rtt0, 1)` with 3 fractional bits, recomputed whenever the smoothed RTT
//!   falls below the least seen so far;
//! * per ACK (not per segment acknowledged), in the Open state and when cwnd-limited: in slow
//!   start `2^min(rho, 16) x 2^fraction - 1` segments (the fraction from Linux's 8-entry table
//!   of 2^(k/8), in 1/128), cwnd then capped at ssthresh; in congestion avoidance `rho^2 /
//!   cwnd`, fractions accumulated in 1/128 of a segment (with Reno's one per window as a
//!   floor when the increment rounds to 0);
//! * cwnd never above `cwnd_clamp` (Linux sets the socket's clamp to 65,535 segments);
//! * outside the Open state Reno's rule runs; a loss halves (Reno's ssthresh).
//!
//! Deviations: Linux starts the window at rho segments from the handshake's RTT; here the flow
//! keeps the stack's initial window (`[tcp] initial_cwnd`) and rho is set by the first RTT
//! sample.

use super::law::{slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, SsRule, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::Dur;

crate::params! {
    /// Hybla parameters; the defaults are Linux's.
    pub struct HyblaConfig {
        /// The reference RTT whose Reno flow Hybla emulates.
        rtt0: Dur = Dur::from_ms(25), Time, range(>= Dur::from_ms(1), <= Dur::from_secs(10)), "Linux tcp_hybla.c rtt0 = 25 ms (Caini & Firrincieli 2004: RTT0 = 25 ms)";
        /// Largest window, segments (bounds slow start's 2^rho per ACK on long paths).
        cwnd_clamp: u32 = 65535, Packets, range(>= 2, <= 10000000), "Linux tcp_hybla.c hybla_init: snd_cwnd_clamp = 65535";
    }
}

/// 2^(k/8) x 128 for k = 0..7 (the fractional part of rho).
const FRACTIONS: [u64; 8] = [128, 139, 152, 165, 181, 197, 215, 234];

#[derive(Clone, Debug)]
pub struct Hybla {
    rtt0_us: u64,
    clamp: u64,
    reno_ss: SsRule,
    /// rho x 8 (3 fractional bits); 0 before the first RTT sample.
    rho_3ls: u64,
    /// rho^2 x 128.
    rho2_7ls: u64,
    min_srtt: Option<Dur>,
    /// Fractions of a segment, x128.
    cents: u64,
    /// ACKs since the last increment (Linux snd_cwnd_cnt).
    cnt: u64,
}

impl Algorithm for Hybla {
    type Config = HyblaConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "hybla",
        aliases: &[],
        summary: "Hybla: Reno scaled to a 25 ms reference RTT (rho = RTT/RTT0): 2^rho - 1 per ACK in slow start, rho^2/cwnd in congestion avoidance",
        sources: &["Caini, Firrincieli, Int. J. Satellite Commun. Netw. 22(5), 2004", "Linux net/ipv4/tcp_hybla.c"],
    };
    fn new(cfg: &HyblaConfig, env: &CcEnv) -> Hybla {
        Hybla { rtt0_us: cfg.rtt0.ns() / 1000, clamp: cfg.cwnd_clamp as u64, reno_ss: env.slow_start.rule(SsRule::PerAck), rho_3ls: 0, rho2_7ls: 0, min_srtt: None, cents: 0, cnt: 0 }
    }
}

impl Hybla {
    /// Linux `hybla_recalc_param`.
    fn recalc(&mut self, srtt: Dur) {
        self.rho_3ls = (srtt.ns() / 1000 * 8 / self.rtt0_us).max(8);
        self.rho2_7ls = (self.rho_3ls * self.rho_3ls) << 1;
    }

    pub fn rho(&self) -> f64 {
        self.rho_3ls as f64 / 8.0
    }

    /// The increment of one ACK, in 1/128 segment.
    fn increment(&self, w: &Window) -> u64 {
        let rho = self.rho_3ls >> 3;
        if w.in_slow_start() {
            let frac = (self.rho_3ls - (rho << 3)) as usize;
            (1u64 << rho.min(16)) * FRACTIONS[frac] - 128
        } else {
            self.rho2_7ls / (w.cwnd / w.mss as u64).max(1)
        }
    }
}

impl CongestionControl for Hybla {
    const STATE: &'static [Field] = &[Field { name: "rho", unit: FieldUnit::Ratio, doc: "RTT / RTT0 (at least 1)" }];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        if a.rtt.is_some() && self.min_srtt.is_none_or(|m| a.srtt < m) {
            self.recalc(a.srtt);
            self.min_srtt = Some(a.srtt);
        }
        if !a.may_grow() {
            return;
        }
        let mss = w.mss as u64;
        if a.ca_state != CaState::Open || self.rho_3ls == 0 {
            let left = slow_start(w, a.growth_bytes, self.reno_ss);
            if left > 0 {
                super::law::cong_avoid_ai(w, &mut self.cnt, w.cwnd / mss, left);
            }
        } else {
            let slow = w.in_slow_start();
            let inc = self.increment(w);
            if !slow && inc < 128 {
                self.cnt += 1;
            }
            w.cwnd += (inc >> 7) * mss;
            self.cents += inc % 128;
            while self.cents >= 128 {
                w.cwnd += mss;
                self.cents -= 128;
                self.cnt = 0;
            }
            if inc == 0 && self.cnt >= w.cwnd / mss {
                w.cwnd += mss;
                self.cnt = 0;
            }
            if slow {
                w.cwnd = w.cwnd.min(w.ssthresh);
            }
        }
        w.cwnd = w.cwnd.min(self.clamp * mss);
    }

    fn on_congestion(&mut self, w: &mut Window, _e: &CongestionEvent) -> u64 {
        (w.cwnd / 2).max(2 * w.mss as u64)
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        out[0] = if self.rho_3ls == 0 { f64::NAN } else { self.rho() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;

    const MSS: u64 = 1000;

    fn hybla() -> Hybla {
        Hybla::new(&HyblaConfig::default(), &CcEnv::linux(MSS as u32, 10))
    }

    fn acks(h: &mut Hybla, w: &mut Window, n: u64, srtt_ms: u64) {
        for _ in 0..n {
            let d = Dur::from_ms(srtt_ms);
            h.on_ack(w, &AckEvent { rtt: Some(d), srtt: d, ..ack(MSS) });
        }
    }

    /// rho = srtt / 25 ms: 100 ms gives rho 4, slow start adds 2^4 - 1 = 15 segments per ACK
    /// and congestion avoidance rho^2 = 16 segments per window; 25 ms or less is Reno (rho 1:
    /// +1 per ACK, +1 per window); rho 1.5 (37.5 ms) adds 2^1.5 - 1 = 1.83 per ACK (Linux's
    /// 181/128 table entry: 1.828).
    #[test]
    fn slow_start_and_avoidance_scale_with_rho() {
        let mut h = hybla();
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        acks(&mut h, &mut w, 10, 100);
        assert_eq!(h.rho(), 4.0);
        assert_eq!(w.cwnd, (10 + 10 * 15) * MSS);
        let mut w = Window { cwnd: 100 * MSS, ssthresh: 50 * MSS, mss: MSS as u32 };
        acks(&mut h, &mut w, 100, 100);
        // rho^2 x 128 / cwnd = 20, 19, 18 ... 1/128 segment per ACK as the window grows: 100
        // ACKs add 14, a window of them (about 114) 16
        assert_eq!(w.cwnd / MSS, 114);
        acks(&mut h, &mut w, 14, 100);
        assert_eq!(w.cwnd / MSS, 116);
        let mut h = hybla();
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        acks(&mut h, &mut w, 10, 20);
        assert_eq!((h.rho(), w.cwnd), (1.0, 20 * MSS));
        let mut h = hybla();
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        acks(&mut h, &mut w, 128, 37);
        assert_eq!(h.rho_3ls, 11);
        // rho_3ls 11: 2^1 x 2^(3/8): 2 x 165 - 128 = 202 / 128 per ACK
        assert_eq!(w.cwnd, 10 * MSS + 202 * MSS);
    }

    /// Slow start stops at ssthresh; a 2-second path (rho 80) would add 2^80 per ACK: Linux
    /// caps the exponent at 16 and the window at the clamp.
    #[test]
    fn slow_start_is_capped_by_ssthresh_and_the_clamp() {
        let mut h = hybla();
        let mut w = Window { cwnd: 10 * MSS, ssthresh: 40 * MSS, mss: MSS as u32 };
        acks(&mut h, &mut w, 3, 100);
        assert_eq!(w.cwnd, 40 * MSS);
        let mut h = hybla();
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        acks(&mut h, &mut w, 1, 2000);
        assert_eq!(w.cwnd, 65535 * MSS, "10 + 65,535 segments, clamped");
    }
}
