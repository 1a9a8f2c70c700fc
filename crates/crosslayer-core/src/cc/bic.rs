//! BIC (Binary Increase Congestion control): after a loss, binary search for the window
//! between the window after the cut and the window where the loss happened (W_max), jumping
//! at most S_max segments per RTT; past W_max, probe slowly and then faster (max probing).
//!
//! Source: Xu, Harfoush, Rhee, "Binary increase congestion control (BIC) for fast long-distance
//! networks", IEEE INFOCOM 2004; Linux `net/ipv4/tcp_bic.c`, read for behaviour (not copied).
//! Linux's rule, in segments: in congestion avoidance cwnd grows by one segment per `cnt`
//! segments acknowledged (`tcp_cong_avoid_ai`), with `cnt` recomputed when cwnd changes (at
//! most every 1/32 s otherwise), B = 4:
//!
//! ```text
//! cwnd <= low_window (14)               cnt = cwnd                     (Reno)
//! cwnd <  W_max: dist = (W_max - cwnd) / B
//!     dist > max_increment (16)         cnt = cwnd / max_increment     (additive increase)
//!     dist <= 1                         cnt = cwnd x smooth_part / B   (smooth_part 20)
//!     otherwise                         cnt = cwnd / dist              (binary search)
//! cwnd >= W_max:
//!     cwnd < W_max + B                  cnt = cwnd x smooth_part / B
//!     cwnd < W_max + max_increment(B-1) cnt = cwnd (B - 1) / (cwnd - W_max)   (slow start)
//!     otherwise                         cnt = cwnd / max_increment     (max probing)
//! no loss yet (W_max = 0): cnt <= 20
//! cnt = cnt x 16 / delayed_ack, at least 1
//! ```
//!
//! `delayed_ack` is a 1/16 EWMA of segments per ACK, x16 (Linux `bictcp_acked`, starting at 2,
//! over the ACKs that find the connection Open in Linux's sense, `!AckEvent::disorder`):
//! with delayed ACKs it halves `cnt` while each ACK still counts two segments, so growth per
//! window is twice the table's - Linux's behaviour, kept. At a loss: W_max = cwnd (1 + beta) / 2
//! if cwnd fell short of the previous W_max (fast convergence), else cwnd; ssthresh =
//! max(cwnd x beta, 2) with beta = 819/1024, or cwnd / 2 at or below low_window. A timeout
//! resets the state (Linux `bictcp_state` on TCP_CA_Loss).
//!
//! In the ns-3 profile BIC is ns-3 3.44's `TcpBic` (`tcp-bic.cc`): the same table for `cnt`
//! but without the delayed-ACK ratio and the 1/32 s hold, Reno below (not at) low_window;
//! congestion avoidance counts acknowledged segments and adds one segment once the count
//! exceeds `cnt`, then starts the count over (`m_cWndCnt`: one segment per ACK at most); at a
//! loss, fast convergence sets W_max = beta x cwnd (not (1 + beta) / 2), ssthresh is
//! max(cwnd x beta, 2) segments in bytes truncated, or max(2 MSS, FlightSize / 2) below
//! low_window.
//!
//! Deviations: the 1/32 s hold uses simulated time (Linux: jiffies); Linux's undo of a
//! spurious reduction (`undo_cwnd`) is not modelled (the sender does not undo).

use super::law::{cong_avoid_ai, slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, SsRule, Window, };
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Dur, Time};

crate::params! {
    /// BIC parameters; the defaults are Linux's module parameters.
    pub struct BicConfig {
        /// Largest increase per RTT in the additive and max-probing phases (S_max), segments.
        max_increment: u32 = 16, Count, range(>= 1, <= 100000), "Linux tcp_bic.c max_increment = 16 (Xu et al. 2004: S_max 32)";
        /// At or below this window BIC is Reno.
        low_window: u32 = 14, Count, range(>= 2, <= 100000), "Linux tcp_bic.c low_window = 14";
        /// Multiplicative decrease factor.
        beta: f64 = 819.0 / 1024.0, Ratio, range(> 0.0, < 1.0), "Linux tcp_bic.c beta = 819/1024 (0.8)";
        /// Increase near W_max is one segment per smooth_part / B RTTs.
        smooth_part: u32 = 20, Count, range(>= 1, <= 1000), "Linux tcp_bic.c smooth_part = 20";
        /// Release bandwidth faster to new flows: W_max = cwnd (1 + beta) / 2 when a loss comes before W_max.
        fast_convergence: bool = true, Flag, range(), "Linux tcp_bic.c fast_convergence = 1";
    }
}

/// BICTCP_B: the binary search divides the distance to W_max by this.
const B: u64 = 4;
/// ACK_RATIO_SHIFT: delayed_ack is a fixed-point ratio, x16.
const ACK_RATIO_SHIFT: u32 = 4;

#[derive(Clone, Debug)]
pub struct Bic {
    cfg: BicConfig,
    ss: SsRule,
    /// Segments acknowledged per increment.
    cnt: u64,
    /// Segments acknowledged toward the next increment (Linux snd_cwnd_cnt).
    acc: u64,
    /// W_max, segments (0: no loss yet).
    last_max_cwnd: u64,
    /// cwnd (segments) and time when `cnt` was last computed.
    last_cwnd: u64,
    last_time: Time,
    /// Segments per ACK x 16 (EWMA).
    delayed_ack: u64,
    /// ns-3's TcpBic (the ns3 profile), and its `m_cWndCnt`.
    ns3: bool,
    cwnd_cnt: u64,
}

impl Algorithm for Bic {
    type Config = BicConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "bic",
        aliases: &["bictcp"],
        summary:
            "BIC: binary search toward the window of the last loss, then max probing; x0.8 on loss",
        sources: &[
            "Xu, Harfoush, Rhee, IEEE INFOCOM 2004",
            "Linux net/ipv4/tcp_bic.c",
        ],
    };
    fn new(cfg: &BicConfig, env: &CcEnv) -> Bic {
        Bic {
            cfg: cfg.clone(),
            ss: env.slow_start.rule(SsRule::PerAck),
            cnt: 1,
            acc: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: Time::ZERO,
            delayed_ack: 2 << ACK_RATIO_SHIFT,
            ns3: env.profile == crate::stack::Profile::Ns3,
            cwnd_cnt: 0,
        }
    }
}

impl Bic {
    fn reset(&mut self) {
        self.cnt = 1;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = Time::ZERO;
        self.delayed_ack = 2 << ACK_RATIO_SHIFT;
    }

    /// Linux `bictcp_update`: segments acknowledged per one-segment increase at `cwnd`.
    pub fn update(&mut self, cwnd: u64, now: Time) {
        if self.last_cwnd == cwnd
            && now - self.last_time <= Dur::from_ms(1000).div(32)
            && self.last_time != Time::ZERO
        {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        if cwnd <= self.cfg.low_window as u64 {
            self.cnt = cwnd;
            return;
        }
        self.cnt = ((self.search_cnt(cwnd) << ACK_RATIO_SHIFT) / self.delayed_ack).max(1);
    }

    pub fn cnt(&self) -> u64 {
        self.cnt
    }

    /// ns-3 `TcpBic::Update`: segments acknowledged per one-segment increase at `cwnd`.
    fn cnt_ns3(&self, cwnd: u64) -> u64 {
        if cwnd < self.cfg.low_window as u64 {
            return cwnd.max(1);
        }
        self.search_cnt(cwnd).max(1)
    }

    /// Above the low window, Linux and ns-3 alike: segments acknowledged per one-segment
    /// increase at `cwnd` in binary search (towards `last_max_cwnd`), slow start past it, or
    /// max probing; at most 20 before the first loss.
    fn search_cnt(&self, cwnd: u64) -> u64 {
        let (max_inc, smooth, w_max) = (self.cfg.max_increment as u64, self.cfg.smooth_part as u64, self.last_max_cwnd);
        let mut cnt = if cwnd < w_max {
            let dist = (w_max - cwnd) / B;
            if dist > max_inc {
                cwnd / max_inc
            } else if dist <= 1 {
                cwnd * smooth / B
            } else {
                cwnd / dist
            }
        } else if cwnd < w_max + B {
            cwnd * smooth / B
        } else if cwnd < w_max + max_inc * (B - 1) {
            cwnd * (B - 1) / (cwnd - w_max)
        } else {
            cwnd / max_inc
        };
        if w_max == 0 {
            cnt = cnt.min(20);
        }
        cnt
    }

    /// ns-3 `TcpBic::GetSsThresh`, bytes.
    fn reduce_ns3(&mut self, cwnd: u64, flight_bytes: u64, mss: u64) -> u64 {
        let beta = self.cfg.beta;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.cfg.fast_convergence { (beta * cwnd as f64) as u64 } else { cwnd };
        if cwnd < self.cfg.low_window as u64 {
            (2 * mss).max(flight_bytes / 2)
        } else {
            ((cwnd as f64 * beta).max(2.0) * mss as f64) as u64
        }
    }
}

impl CongestionControl for Bic {
    const STATE: &'static [Field] = &[Field {
        name: "w_max_pkts",
        unit: FieldUnit::Pkts,
        doc: "W_max: the window at the last loss (after fast convergence); 0 before the first",
    }];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        // Linux bictcp_acked: the ACK ratio, on every ACK that finds the connection Open (not
        // Disorder: nothing SACKed, lost or retransmitted outstanding), a duplicate ACK's zero
        // segments included
        let mss = w.mss as u64;
        if a.ca_state == CaState::Open && !a.disorder {
            let segs = a.acked_bytes.div_ceil(mss);
            self.delayed_ack = (self.delayed_ack + segs)
                .saturating_sub(self.delayed_ack >> ACK_RATIO_SHIFT)
                .max(1);
        }
        if !a.may_grow() {
            return;
        }
        if self.ns3 {
            // TcpBic::IncreaseWindow: a segment in slow start, the rest towards m_cWndCnt
            let left = slow_start(w, a.growth_bytes, self.ss);
            if left == 0 || w.in_slow_start() {
                return;
            }
            let cnt = self.cnt_ns3(w.cwnd / mss);
            self.cwnd_cnt += left.div_ceil(mss);
            if self.cwnd_cnt > cnt {
                w.cwnd += mss;
                self.cwnd_cnt = 0;
            }
            return;
        }
        if w.in_slow_start() {
            slow_start(w, a.growth_bytes, self.ss);
            return;
        }
        self.update(w.cwnd / mss, a.now);
        cong_avoid_ai(w, &mut self.acc, self.cnt, a.growth_bytes);
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        let mss = w.mss as u64;
        if self.ns3 {
            // ns-3's TcpBic has no state hook: a timeout computes ssthresh as a loss does
            return self.reduce_ns3(w.cwnd / mss, e.flight_size, mss);
        }
        if e.kind == CongestionKind::Timeout {
            if e.new_episode {
                // ssthresh as for a loss, then the state starts over (bictcp_state)
                let s = self.reduce(w.cwnd / mss);
                self.reset();
                return s * mss;
            }
            self.reset();
            return w.ssthresh;
        }
        self.reduce(w.cwnd / mss) * mss
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        out[0] = self.last_max_cwnd as f64;
    }
}

impl Bic {
    /// Linux `bictcp_recalc_ssthresh`, segments.
    fn reduce(&mut self, cwnd: u64) -> u64 {
        self.last_cwnd = 0; // Linux epoch_start = 0: recompute cnt on the next ACK
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.cfg.fast_convergence {
            (cwnd as f64 * (1.0 + self.cfg.beta) / 2.0) as u64
        } else {
            cwnd
        };
        if cwnd <= self.cfg.low_window as u64 {
            (cwnd / 2).max(2)
        } else {
            ((cwnd as f64 * self.cfg.beta) as u64).max(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;

    const MSS: u64 = 1000;

    fn bic() -> Bic {
        Bic::new(&BicConfig::default(), &CcEnv::linux(MSS as u32, 10))
    }

    /// A congestion event of `kind` at `cwnd` segments: the new ssthresh, segments.
    fn event(b: &mut Bic, cwnd: u64, kind: CongestionKind) -> u64 {
        let mut w = Window { cwnd: cwnd * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        let ev = CongestionEvent { now: Time::ZERO, kind, flight_size: cwnd * MSS, new_episode: true, lost_bytes: 0 };
        b.on_congestion(&mut w, &ev) / MSS
    }

    /// ns-3's TcpBic (ns3 profile): with delayed ACKs (2 segments per ACK) and cnt = 800 / 16 =
    /// 50 at W_max 1000, the count must pass 50: the 26th ACK (52 segments) adds one segment and
    /// starts the count over, so the window grows a segment per 26 ACKs whatever their size
    /// (an ACK of 120 segments adds one, not two); Linux's ratio would halve cnt instead. At a loss
    /// below W_max: W_max = beta cwnd, ssthresh beta cwnd; below low_window, half the flight.
    #[test]
    fn ns3_counts_segments_and_adds_at_most_one_per_ack() {
        let env = CcEnv { profile: crate::stack::Profile::Ns3, ..CcEnv::linux(MSS as u32, 10) };
        let mut b = Bic::new(&BicConfig::default(), &env);
        b.last_max_cwnd = 1000;
        let mut w = Window { cwnd: 800 * MSS, ssthresh: 700 * MSS, mss: MSS as u32 };
        let mut acks = 0;
        while w.cwnd == 800 * MSS {
            b.on_ack(&mut w, &ack(2 * MSS));
            acks += 1;
        }
        assert_eq!((acks, w.cwnd), (26, 801 * MSS));
        b.on_ack(&mut w, &ack(120 * MSS));
        assert_eq!(w.cwnd, 802 * MSS, "one segment for a 120-segment ACK");
        // beta = 819/1024 (crosslayer's default, Linux's; ns-3's attribute default is 0.8)
        assert_eq!(event(&mut b, 900, CongestionKind::Loss), 719);
        assert_eq!(b.last_max_cwnd, 719, "fast convergence: beta x cwnd in ns-3");
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        let ev = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 9 * MSS, new_episode: true, lost_bytes: 0 };
        assert_eq!(b.on_congestion(&mut w, &ev), 4500, "below low_window: FlightSize / 2");
    }

    /// The table in the module docs with one segment per ACK (delayed_ack = 16, the ratio of
    /// one after enough ACKs): W_max 1000.
    #[test]
    fn increase_per_window_follows_the_binary_search_table() {
        let mut b = bic();
        b.last_max_cwnd = 1000;
        b.delayed_ack = 16;
        let cnt_at = |b: &mut Bic, cwnd: u64| {
            b.last_cwnd = 0;
            b.update(cwnd, Time::from_secs(1));
            b.cnt
        };
        // far below W_max: additive, S_max = 16 per RTT
        assert_eq!(cnt_at(&mut b, 800), 800 / 16);
        // binary search: dist = (1000 - 960) / 4 = 10 per RTT
        assert_eq!(cnt_at(&mut b, 960), 96);
        // within B of W_max: one segment per 5 RTTs
        assert_eq!(cnt_at(&mut b, 998), 998 * 20 / 4);
        assert_eq!(cnt_at(&mut b, 1002), 1002 * 20 / 4);
        // just past: slow start away from W_max, (cwnd - W_max) / 3 per RTT
        assert_eq!(cnt_at(&mut b, 1030), 1030 * 3 / 30);
        // far past: max probing
        assert_eq!(cnt_at(&mut b, 1100), 1100 / 16);
        // small windows: Reno
        assert_eq!(cnt_at(&mut b, 14), 14);
        // no loss yet: at most 20 segments per increment
        b.last_max_cwnd = 0;
        assert_eq!(cnt_at(&mut b, 800), 20);
        // two segments per ACK halve cnt
        b.last_max_cwnd = 1000;
        b.delayed_ack = 32;
        assert_eq!(cnt_at(&mut b, 800), 800 / 16 / 2);
    }

    /// Binary search in a window: from 800 after a loss at 1000, the ACKs of one window
    /// (one segment each) add 16 (additive phase); once within 4 x 16 of W_max a window adds
    /// a quarter of the distance left, recomputed at each increment: from 960, 8 (10 at the
    /// start of the window, 8 at its end).
    #[test]
    fn a_window_of_acks_closes_the_distance() {
        let mut b = bic();
        b.delayed_ack = 16;
        b.last_max_cwnd = 1000;
        let mut w = Window {
            cwnd: 800 * MSS,
            ssthresh: 800 * MSS,
            mss: MSS as u32,
        };
        let mut now = Time::from_secs(1);
        let mut rtt = |b: &mut Bic, w: &mut Window| {
            let n = w.cwnd / MSS;
            for _ in 0..n {
                now += Dur::from_ms(100).div(n);
                b.on_ack(w, &AckEvent { now, ..ack(MSS) });
            }
            b.delayed_ack = 16;
            w.cwnd / MSS
        };
        assert!(
            (815..=817).contains(&rtt(&mut b, &mut w)),
            "{}",
            w.cwnd / MSS
        );
        w.cwnd = 960 * MSS;
        let after = rtt(&mut b, &mut w);
        assert_eq!(after, 968);
    }

    /// The ACK ratio (Linux `bictcp_acked`): an EWMA of segments per ACK over the ACKs that find
    /// the connection Open, a duplicate ACK's zero included (32 -> 30 for the first, 16 x 2 - 2),
    /// none while Linux would be in Disorder (SACKed or retransmitted segments outstanding).
    #[test]
    fn ack_ratio_counts_open_acks_only() {
        let mut b = bic();
        let mut w = Window { cwnd: 100 * MSS, ssthresh: 50 * MSS, mss: MSS as u32 };
        assert_eq!(b.delayed_ack, 32);
        b.on_ack(&mut w, &AckEvent { acked_bytes: 0, growth_bytes: 0, ..ack(MSS) });
        assert_eq!(b.delayed_ack, 30);
        for _ in 0..5 {
            b.on_ack(&mut w, &AckEvent { disorder: true, acked_bytes: 3 * MSS, ..ack(MSS) });
        }
        assert_eq!(b.delayed_ack, 30, "Disorder: not counted");
        b.on_ack(&mut w, &AckEvent { acked_bytes: 2 * MSS, ..ack(MSS) });
        assert_eq!(b.delayed_ack, 30 + 2 - 1);
    }

    #[test]
    fn loss_cuts_to_beta_with_fast_convergence() {
        let mut b = bic();
        assert_eq!(event(&mut b, 1000, CongestionKind::Loss), 799);
        assert_eq!(b.last_max_cwnd, 1000);
        // a loss short of W_max: W_max = cwnd (1 + beta) / 2
        assert_eq!(event(&mut b, 900, CongestionKind::Loss), 719);
        assert_eq!(
            b.last_max_cwnd,
            (900.0 * (1.0 + 819.0 / 1024.0) / 2.0) as u64
        );
        // small windows halve
        assert_eq!(event(&mut b, 10, CongestionKind::Loss), 5);
        // a timeout starts over
        event(&mut b, 500, CongestionKind::Timeout);
        assert_eq!(b.last_max_cwnd, 0);
    }
}
