//! TCP Prague: the L4S congestion control (RFC 9330/9331). DCTCP's response to the fraction of
//! CE marks, on ECT(1) packets so that a DualPI2 queue serves it from its low-latency queue,
//! with paced sending and an additive increase that can be made independent of the RTT.
//!
//! Sources: RFC 9331 (the L4S identifier and the sender requirements of its Appendix A);
//! draft-briscoe-iccrg-prague-congestion-control; the L4S team's Linux module
//! `net/ipv4/tcp_prague.c` (version 0.6, as carried in github.com/google/bbr), read for
//! behaviour (not copied). As that module runs, with its default parameters:
//! * ECN always (`NEEDS_ECN`), data on ECT(1) (`ECT1`), with AccECN feedback (`ECN_FEEDBACK`;
//!   RFC 9331 section 4.2: accurate ECN feedback is a prerequisite of a Scalable control in TCP;
//!   the module declares `TCP_CONG_NEEDS_ACCECN | TCP_CONG_NO_FALLBACK_RFC3168`, and falls back
//!   to Reno, "prague-reno", on a connection that did not negotiate it). Each ACK hands over
//!   the segments newly marked CE (Linux `rate_sample.ece_delta`), which are not counted as
//!   growth, and alpha's marked fraction counts them (`delivered_ce`). `[tcp] ecn_feedback` may
//!   choose another feedback for comparison: with DCTCP's per-segment echo an ACK with ECE
//!   covers only marked segments, so all it delivered counts as marked (this model's echo
//!   before AccECN); with RFC 3168's sticky ECE a whole round trip of ACKs does (the module
//!   would not run: Linux falls back to Reno);
//! * Prague sets cwnd itself (`FULL_CONTROL`, Linux `cong_control`): every ACK moves a carry
//!   `cnt` (in segments); cwnd changes by at most one segment per ACK when the carry passes
//!   +-1, and a decrement sets ssthresh = cwnd (floor 2 segments);
//! * increase (Open state, cwnd-limited): slow start by the unmarked segments acknowledged;
//!   then `unmarked x ai / cwnd` per ACK, `ai` = 1 segment per RTT, or (rtt / 25 ms)^2 once
//!   the flow is RTT-independent (`rtt_scaling = "rate"`: more than 500 rounds after slow
//!   start, srtt under 25 ms): the rate then grows as a 25 ms flow's would;
//! * alpha: DCTCP's EWMA (g = 1/16) of the marked fraction, starting at 1, held until the
//!   first mark; once RTT-independent a round also lasts at least 25 ms;
//! * ECN echo (at most once per window, the sender's CWR rule; once RTT-independent, also at
//!   most once per 25 ms): the carry loses `alpha x cwnd / 2`;
//! * loss (fast recovery): the carry loses half the window (and half the carry), no increase
//!   until the recovery ends; timeout: cwnd 1 (the stack's `tcp_enter_loss`), then 2;
//! * pacing: `mtu x max(cwnd, in flight) / srtt`, doubled while cwnd < ssthresh / 2.
//!
//! Deviations: the classic-ECN fallback (off by default in the module) and the TSO burst
//! sizing are not modelled; mtu is taken as MSS + 40 bytes (Linux adds the option bytes).

use super::law::marked::MarkedFraction;
use super::law::{slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, EcnFeedback, SsRule, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Dur, Rate, Time};

crate::choice! {
    /// How Prague scales its additive increase with the RTT.
    pub enum RttScaling {
        /// 1 segment per RTT (as DCTCP and Reno).
        None = "none",
        /// (rtt / target)^2 segments per RTT below the target: the rate grows as a flow with the target RTT's would.
        Rate = "rate",
    }
}

crate::params! {
    /// TCP Prague parameters; the defaults are the Linux module's.
    pub struct PragueConfig {
        /// Weight of the newest round's marked fraction in alpha.
        g: f64 = 0.0625, Ratio, range(> 0.0, <= 1.0), "tcp_prague.c PRAGUE_SHIFT_G = 4 (g = 1/16)";
        /// RTT independence heuristic: "none" or "rate".
        rtt_scaling: RttScaling = RttScaling::Rate, Choice, range(), "tcp_prague.c prague_rtt_scaling = RTT_CONTROL_RATE";
        /// The RTT whose growth rate shorter-RTT flows adopt.
        rtt_target: Dur = Dur::from_ms(25), Time, range(> Dur::ZERO, <= Dur::from_secs(1)), "tcp_prague.c prague_rtt_target = 25 ms";
        /// Rounds after slow start before the flow becomes RTT-independent.
        rtt_transition: u32 = 500, Count, range(<= 1000000), "tcp_prague.c DEFAULT_RTT_TRANSITION = 500";
    }
}

/// Above this srtt the increase is not scaled (MAX_SCALED_RTT).
const MAX_SCALED_RTT: Dur = Dur::from_ms(100);
const MIN_CWND: u64 = 2;

#[derive(Clone, Debug)]
pub struct Prague {
    cfg: PragueConfig,
    ss: SsRule,
    marks: MarkedFraction,
    saw_ce: bool,
    /// Carry of cwnd changes, segments.
    cnt: f64,
    /// Increase per RTT, segments (1, or (rtt / target)^2).
    ai: f64,
    in_loss: bool,
    /// Rounds since slow start ended.
    round: u64,
    alpha_stamp: Time,
    cwr_stamp: Option<Time>,
    srtt: Dur,
    rate: Option<Rate>,
}

impl Algorithm for Prague {
    type Config = PragueConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "prague",
        aliases: &["tcp-prague"],
        summary: "TCP Prague (L4S): DCTCP's alpha on ECT(1) packets, paced, with an RTT-independent additive increase",
        sources: &["RFC 9331 (Appendix A)", "draft-briscoe-iccrg-prague-congestion-control", "L4S team Linux net/ipv4/tcp_prague.c v0.6"],
    };
    fn new(cfg: &PragueConfig, env: &CcEnv) -> Prague {
        Prague {
            cfg: cfg.clone(),
            ss: env.slow_start.rule(SsRule::PerAck),
            marks: MarkedFraction::new(cfg.g, 1.0),
            saw_ce: false,
            cnt: 0.0,
            ai: 1.0,
            in_loss: false,
            round: 0,
            alpha_stamp: Time::ZERO,
            cwr_stamp: None,
            srtt: Dur::ZERO,
            rate: None,
        }
    }
}

impl Prague {
    /// RTT-independent: scaling on, out of slow start, and past the transition.
    fn rtt_indep(&self, w: &Window) -> bool {
        self.cfg.rtt_scaling != RttScaling::None && !w.in_slow_start() && self.round >= self.cfg.rtt_transition as u64
    }

    /// Linux `prague_ai_ack_increase`: segments per RTT.
    fn update_ai(&mut self) {
        let (rtt, target) = (self.srtt, self.cfg.rtt_target);
        self.ai = if self.cfg.rtt_scaling == RttScaling::None || self.round < self.cfg.rtt_transition as u64 || rtt == Dur::ZERO || rtt > MAX_SCALED_RTT || rtt >= target {
            1.0
        } else {
            (rtt.secs_f64() / target.secs_f64()).powi(2)
        };
    }

    pub fn alpha(&self) -> f64 {
        self.marks.alpha
    }

    pub fn ai(&self) -> f64 {
        self.ai
    }
}

impl CongestionControl for Prague {
    const NEEDS_ECN: bool = true;
    const ECN_FEEDBACK: EcnFeedback = EcnFeedback::AccEcn;
    const ECT1: bool = true;
    const NO_CLASSIC_FALLBACK: bool = true;
    const FULL_CONTROL: bool = true;
    const PACED: bool = true;
    const STATE: &'static [Field] = &[
        Field { name: "alpha", unit: FieldUnit::Ratio, doc: "alpha: the smoothed fraction of marked segments" },
        Field { name: "ai_per_rtt", unit: FieldUnit::Pkts, doc: "additive increase per RTT (1, or (srtt / target)^2 once RTT-independent)" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        let mss = w.mss as u64;
        if a.rtt.is_some() {
            self.srtt = a.srtt;
        }
        if a.ca_state == CaState::Open {
            self.in_loss = false;
        }
        // prague_update_cwnd: the segments delivered less those newly marked
        let delivered = (a.growth_bytes / mss) as f64;
        let unmarked = match a.ce_bytes {
            // AccECN (Linux: acked_sacked - ece_delta)
            Some(ce) => {
                if ce > 0 {
                    self.saw_ce = true;
                }
                (delivered - (ce / mss) as f64).max(0.0)
            }
            // a one-bit echo: an ACK with ECE counts as all marked
            None if a.ece => {
                self.saw_ce = true;
                0.0
            }
            None => delivered,
        };
        if unmarked > 0.0 && !self.in_loss && a.cwnd_limited {
            let mut left = unmarked;
            if w.in_slow_start() {
                let before = w.cwnd;
                left = (slow_start(w, unmarked as u64 * mss, self.ss) / mss) as f64;
                if w.cwnd != before {
                    self.update_ai();
                }
            }
            if left > 0.0 {
                let cwnd = (w.cwnd / mss).max(1) as f64;
                self.cnt += (left * self.ai / cwnd).max(left / (1u64 << 20) as f64);
            }
        }
        if self.cnt <= -1.0 {
            self.cnt += 1.0;
            let segs = (w.cwnd / mss).saturating_sub(1);
            if segs < MIN_CWND {
                w.cwnd = MIN_CWND * mss;
                self.cnt = 0.0;
            } else {
                w.cwnd = segs * mss;
            }
            w.ssthresh = w.cwnd;
            self.update_ai();
        } else if self.cnt >= 1.0 {
            self.cnt -= 1.0;
            w.cwnd += mss;
            self.update_ai();
        }
        // alpha once per round, and once RTT-independent no faster than the target RTT
        self.marks.count(a);
        if self.marks.round_done(a) && (!self.rtt_indep(w) || a.now - self.alpha_stamp >= self.cfg.rtt_target) {
            self.marks.close(a, !self.saw_ce);
            if self.saw_ce {
                self.alpha_stamp = a.now;
            }
            if !w.in_slow_start() {
                self.round += 1;
            }
            self.update_ai();
        }
        // prague_update_pacing_rate
        let inflight = (w.cwnd / mss).max(a.prior_in_flight / mss);
        let srtt = if self.srtt > Dur::ZERO { self.srtt } else { a.srtt };
        let mut bps = (mss + 40) as f64 * 8.0 * inflight as f64 / srtt.secs_f64();
        if w.cwnd < w.ssthresh / 2 {
            bps *= 2.0;
        }
        self.rate = Some(Rate::from_bps(bps as u64));
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        let segs = (w.cwnd / w.mss as u64) as f64;
        match e.kind {
            CongestionKind::Ecn => {
                // prague_enter_cwr
                let limited = self.rtt_indep(w) && self.cwr_stamp.is_some_and(|t| e.now - t < self.cfg.rtt_target);
                if !limited {
                    self.cwr_stamp = Some(e.now);
                    self.cnt -= self.marks.alpha * segs / 2.0;
                }
            }
            CongestionKind::Loss => {
                // prague_enter_loss
                self.cnt -= segs / 2.0 + self.cnt / 2.0;
                self.in_loss = true;
            }
            CongestionKind::Timeout => {
                if e.new_episode {
                    self.in_loss = true;
                    // Linux tcp_enter_loss: cwnd = in flight + 1; the carry then lifts it to 2
                    w.cwnd = w.mss as u64;
                    self.cnt = -1.0;
                }
            }
        }
        w.ssthresh
    }

    fn pacing_rate(&self, _w: &Window) -> Option<Rate> {
        self.rate
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        out.copy_from_slice(&[self.marks.alpha, self.ai]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;

    const MSS: u64 = 1000;

    fn prague() -> Prague {
        Prague::new(&PragueConfig::default(), &CcEnv::linux(MSS as u32, 10))
    }

    /// Congestion avoidance: +1 segment per window of unmarked ACKs; marked ACKs add nothing.
    /// An echo with alpha 1 (no round closed since the first mark) takes half the window off,
    /// one segment per ACK, ssthresh following cwnd down.
    #[test]
    fn additive_increase_and_the_alpha_cut() {
        let mut p = prague();
        let mut w = Window { cwnd: 100 * MSS, ssthresh: 50 * MSS, mss: MSS as u32 };
        for _ in 0..100 {
            p.on_ack(&mut w, &ack(MSS));
        }
        assert_eq!(w.cwnd, 101 * MSS);
        for _ in 0..200 {
            p.on_ack(&mut w, &AckEvent { ece: true, ..ack(MSS) });
        }
        assert_eq!(w.cwnd, 101 * MSS, "marked segments do not grow the window");
        let ev = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Ecn, flight_size: 0, new_episode: true, lost_bytes: 0 };
        assert_eq!(p.on_congestion(&mut w, &ev), 50 * MSS, "ssthresh is left to the ACKs");
        for _ in 0..60 {
            p.on_ack(&mut w, &AckEvent { ece: true, ..ack(MSS) });
        }
        assert_eq!(w.cwnd / MSS, 51, "101 - 101 x 1 / 2 = 50.5: 50 whole segments off");
        assert_eq!(w.ssthresh, w.cwnd);
    }

    /// With alpha 0.2 an echo takes 10 % of the window; alpha follows DCTCP's EWMA once a mark
    /// was seen (and stays at 1 before).
    #[test]
    fn alpha_is_held_until_the_first_mark_then_follows_the_marked_fraction() {
        let mut p = prague();
        let mut w = Window { cwnd: 10 * MSS, ssthresh: 5 * MSS, mss: MSS as u32 };
        let mut total = 0;
        let mut una = 0;
        let mut window = |p: &mut Prague, w: &mut Window, marked: u64| {
            for s in 0..10u64 {
                total += MSS;
                una += MSS;
                p.on_ack(w, &AckEvent { snd_una: una, snd_nxt: una + 10 * MSS, delivered_total: total, ece: s < marked, cwnd_limited: false, ..ack(MSS) });
            }
        };
        // close the initial (empty) round so that rounds end on each tenth ACK
        p.on_ack(&mut w, &AckEvent { snd_una: 0, snd_nxt: 10 * MSS, cwnd_limited: false, ..ack(0) });
        for _ in 0..5 {
            window(&mut p, &mut w, 0);
        }
        assert_eq!(p.alpha(), 1.0);
        window(&mut p, &mut w, 5);
        window(&mut p, &mut w, 5);
        // the round closing with the first marks updates: 1 - 1/16 + 0.5/16; then once more
        let a1 = (1.0 - 0.0625) + 0.0625 * 0.5;
        let a2 = (1.0 - 0.0625) * a1 + 0.0625 * 0.5;
        assert!((p.alpha() - a2).abs() < 1e-12, "{} vs {a2} (one update: {a1})", p.alpha());
        p.marks.alpha = 0.2;
        let mut w = Window { cwnd: 100 * MSS, ssthresh: 50 * MSS, mss: MSS as u32 };
        p.cnt = 0.0;
        p.on_congestion(&mut w, &CongestionEvent { now: Time::ZERO, kind: CongestionKind::Ecn, flight_size: 0, new_episode: true, lost_bytes: 0 });
        for k in 1..=20 {
            // the delivered count goes on from the rounds above (it never goes back)
            p.on_ack(&mut w, &AckEvent { ece: true, cwnd_limited: false, delivered_total: total + k * MSS, ..ack(MSS) });
        }
        assert_eq!(w.cwnd, 90 * MSS);
    }

    /// RTT independence: past the transition, a 5 ms flow adds (5/25)^2 = 0.04 segments per
    /// RTT, so its rate grows as a 25 ms flow's; above the target it adds 1.
    #[test]
    fn rtt_independent_increase() {
        let mut p = prague();
        p.round = 500;
        p.srtt = Dur::from_ms(5);
        p.update_ai();
        assert!((p.ai() - 0.04).abs() < 1e-12);
        p.srtt = Dur::from_ms(40);
        p.update_ai();
        assert_eq!(p.ai(), 1.0);
        p.round = 10;
        p.srtt = Dur::from_ms(5);
        p.update_ai();
        assert_eq!(p.ai(), 1.0, "before the transition");
    }

    /// A loss: half the window off over the next ACKs, no increase until the recovery ends.
    #[test]
    fn loss_halves_through_the_carry() {
        let mut p = prague();
        let mut w = Window { cwnd: 40 * MSS, ssthresh: 20 * MSS, mss: MSS as u32 };
        p.on_congestion(&mut w, &CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 0, new_episode: true, lost_bytes: 0 });
        for _ in 0..30 {
            p.on_ack(&mut w, &AckEvent { ca_state: CaState::Recovery, ..ack(MSS) });
        }
        assert_eq!(w.cwnd, 20 * MSS);
        for _ in 0..10 {
            p.on_ack(&mut w, &AckEvent { ca_state: CaState::Recovery, ..ack(MSS) });
        }
        assert_eq!(w.cwnd, 20 * MSS);
    }
}
