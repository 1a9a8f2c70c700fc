//! Scalable TCP: multiplicative increase, 1 % of the window per round trip, and a decrease of
//! 1/8 on a loss, so the time to recover from a loss does not grow with the window.
//!
//! Source: Kelly, "Scalable TCP: improving performance in highspeed wide area networks", ACM
//! CCR 33(2), 2003; Linux `net/ipv4/tcp_scalable.c`, read for behaviour (not copied): in
//! congestion avoidance one segment per min(cwnd, ai_cnt) segments acknowledged (ai_cnt 100:
//! 0.01 per ACK above 100 segments, Reno below), and ssthresh = max(cwnd - cwnd/8, 2) (integer
//! segments). The paper's legacy window below which it is Reno is Linux's ai_cnt here.

use super::law::{cong_avoid_ai, slow_start};
use super::{AckEvent, CcEnv, CongestionControl, CongestionEvent, CongestionKind, SsRule, Window};
use crate::registry::{Algorithm, Info};

crate::params! {
    /// Scalable TCP parameters; the defaults are Linux's (Kelly's a = 0.01, b = 0.125).
    pub struct ScalableConfig {
        /// One segment is added per this many segments acknowledged (or per cwnd, if smaller).
        ai_cnt: u32 = 100, Count, range(>= 1, <= 100000), "Linux tcp_scalable.c TCP_SCALABLE_AI_CNT = 100 (Kelly 2003: a = 0.01)";
        /// A loss takes cwnd / 2^md_shift.
        md_shift: u32 = 3, Count, range(>= 1, <= 10), "Linux tcp_scalable.c TCP_SCALABLE_MD_SCALE = 3 (Kelly 2003: b = 0.125)";
    }
}

#[derive(Clone, Debug)]
pub struct Scalable {
    ai_cnt: u64,
    md_shift: u32,
    ss: SsRule,
    /// Segments acknowledged toward the next increment (Linux snd_cwnd_cnt).
    cnt: u64,
}

impl Algorithm for Scalable {
    type Config = ScalableConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "scalable",
        aliases: &["stcp"],
        summary: "Scalable TCP: +1 segment per 100 acknowledged (1 % per RTT), -1/8 on loss",
        sources: &["Kelly, ACM CCR 33(2), 2003", "Linux net/ipv4/tcp_scalable.c"],
    };
    fn new(cfg: &ScalableConfig, env: &CcEnv) -> Scalable {
        Scalable { ai_cnt: cfg.ai_cnt as u64, md_shift: cfg.md_shift, ss: env.slow_start.rule(SsRule::PerAck), cnt: 0 }
    }
}

impl CongestionControl for Scalable {
    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        if !a.may_grow() {
            return;
        }
        let left = slow_start(w, a.growth_bytes, self.ss);
        if left == 0 {
            return;
        }
        // Linux tcp_cong_avoid_ai(tp, min(cwnd, ai_cnt), acked)
        cong_avoid_ai(w, &mut self.cnt, (w.cwnd / w.mss as u64).min(self.ai_cnt), left);
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        self.cnt = 0;
        let mss = w.mss as u64;
        if e.kind == CongestionKind::Timeout {
            return (w.cwnd / 2).max(2 * mss);
        }
        let segs = w.cwnd / mss;
        (segs - (segs >> self.md_shift)).max(2) * mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;
    use crate::units::Time;

    #[test]
    fn one_percent_per_rtt_above_100_and_minus_an_eighth() {
        let mss = 1000u64;
        let mut s = Scalable::new(&ScalableConfig::default(), &CcEnv::linux(1000, 10));
        let mut w = Window { cwnd: 1000 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        for _ in 0..1000 {
            s.on_ack(&mut w, &ack(mss));
        }
        assert_eq!(w.cwnd, 1010 * mss, "one window acknowledged: +1 %");
        // below ai_cnt it is Reno: +1 per window
        let mut w = Window { cwnd: 50 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        for _ in 0..50 {
            s.on_ack(&mut w, &ack(mss));
        }
        assert_eq!(w.cwnd, 51 * mss);
        let ev = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 0, new_episode: true, lost_bytes: 0 };
        let mut w = Window { cwnd: 1000 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        assert_eq!(s.on_congestion(&mut w, &ev), 875 * mss);
    }
}
