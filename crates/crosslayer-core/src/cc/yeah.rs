//! YeAH-TCP (Yet Another Highspeed TCP): Scalable TCP's fast increase while Vegas's backlog
//! estimate is small, Reno's slow one (with a precautionary decongestion) when it is large; a
//! loss cuts by the backlog when YeAH has been in its fast mode, so competing with Reno is fair.
//!
//! Source: Baiocchi, Castellani, Vacirca, "YeAH-TCP: yet another highspeed TCP", PFLDnet 2007;
//! Linux `net/ipv4/tcp_yeah.c` (with `tcp_vegas.c`'s RTT bookkeeping), read for behaviour (not
//! copied). As Linux runs it, when the sender is cwnd-limited:
//! * slow start as Linux's; above ssthresh, +1 segment per min(cwnd, 100) acknowledged
//!   (Scalable) in fast mode, per cwnd (Reno) in slow mode;
//! * once per round (the first ACK beyond the snd_nxt saved at the previous round), with at
//!   least 3 RTT samples in it and `rtt` the round's least (us + 1): the backlog
//!   `Q = cwnd (rtt - base) / rtt`. If `Q > alpha` (80) or `rtt - base > base / phy` (phy 8):
//!   slow mode; if moreover `Q > alpha` and cwnd > reno_count, decongest: cwnd -= min(Q /
//!   gamma, cwnd / 2^epsilon) (not below reno_count) and ssthresh = cwnd; reno_count =
//!   max(cwnd / 2, 2) if it was <= 2, else + 1; doing_reno_now + 1. Otherwise fast mode:
//!   fast_count + 1 (past zeta (50): reno_count = 2, fast_count = 0), doing_reno_now = 0.
//!   lastQ = Q;
//! * a loss: while doing_reno_now < rho (16) the cut is max(min(lastQ, max(cwnd / 2, 2)),
//!   cwnd / 2^delta), else max(cwnd / 2, 2); ssthresh = max(cwnd - cut, 2); reno_count =
//!   max(reno_count / 2, 2); fast_count = 0.
//!
//! Deviations: RTT samples are the sender's Karn-filtered ones (Linux: every ACK's).

use super::law::{cong_avoid_ai, slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, SsRule, Window};
use super::law::vegas_rtt::VegasRtt;
use crate::registry::{Algorithm, Field, FieldUnit, Info};

crate::params! {
    /// YeAH parameters; the defaults are Linux's (the paper's values).
    pub struct YeahConfig {
        /// Largest backlog (packets queued) in fast mode.
        alpha: u32 = 80, Packets, range(>= 0, <= 1000000), "Linux tcp_yeah.c TCP_YEAH_ALPHA = 80";
        /// Decongestion removes backlog / gamma per round.
        gamma: u32 = 1, Count, range(>= 1, <= 1000), "Linux tcp_yeah.c TCP_YEAH_GAMMA = 1";
        /// A loss cuts at least cwnd / 2^delta.
        delta: u32 = 3, Count, range(>= 0, <= 16), "Linux tcp_yeah.c TCP_YEAH_DELTA = 3";
        /// Decongestion removes at most cwnd / 2^epsilon.
        epsilon: u32 = 1, Count, range(>= 0, <= 16), "Linux tcp_yeah.c TCP_YEAH_EPSILON = 1";
        /// Slow mode when the queueing delay exceeds base RTT / phy.
        phy: u32 = 8, Count, range(>= 1, <= 1000), "Linux tcp_yeah.c TCP_YEAH_PHY = 8";
        /// Rounds in slow mode after which a loss halves (competing with Reno).
        rho: u32 = 16, Count, range(>= 0, <= 1000000), "Linux tcp_yeah.c TCP_YEAH_RHO = 16";
        /// Fast rounds after which reno_count restarts at 2.
        zeta: u32 = 50, Count, range(>= 0, <= 1000000), "Linux tcp_yeah.c TCP_YEAH_ZETA = 50";
    }
}

/// Scalable's increase: one segment per this many acknowledged (TCP_SCALABLE_AI_CNT).
const SCALABLE_AI_CNT: u64 = 100;

#[derive(Clone, Debug)]
pub struct Yeah {
    cfg: YeahConfig,
    ss: SsRule,
    /// RTT samples (Vegas's bookkeeping; Veno never resets the count).
    rtt: VegasRtt,
    beg_snd_nxt: u64,
    was_open: bool,
    last_q: u64,
    doing_reno_now: u64,
    reno_count: u64,
    fast_count: u64,
    /// Segments acknowledged toward the next increment (Linux snd_cwnd_cnt).
    acc: u64,
}

impl Algorithm for Yeah {
    type Config = YeahConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "yeah",
        aliases: &["yeah-tcp"],
        summary: "YeAH: Scalable increase while Vegas's backlog is small, Reno and decongestion when large; loss cut by the backlog",
        sources: &["Baiocchi, Castellani, Vacirca, PFLDnet 2007", "Linux net/ipv4/tcp_yeah.c"],
    };
    fn new(cfg: &YeahConfig, env: &CcEnv) -> Yeah {
        Yeah {
            cfg: cfg.clone(),
            ss: env.slow_start.rule(SsRule::PerAck),
            rtt: VegasRtt::new(),
            beg_snd_nxt: 0,
            was_open: true,
            last_q: 0,
            doing_reno_now: 0,
            reno_count: 2,
            fast_count: 0,
            acc: 0,
        }
    }
}

impl Yeah {
    /// The once-per-round decision (segments); `rtt` and `base` in us.
    fn round(&mut self, w: &mut Window, rtt: u64, base: u64) {
        let mss = w.mss as u64;
        let cwnd = w.cwnd / mss;
        let q = cwnd * (rtt - base) / rtt;
        if q > self.cfg.alpha as u64 || rtt - base > base / self.cfg.phy as u64 {
            if q > self.cfg.alpha as u64 && cwnd > self.reno_count {
                let cut = (q / self.cfg.gamma as u64).min(cwnd >> self.cfg.epsilon);
                let segs = (cwnd - cut).max(self.reno_count);
                w.cwnd = segs * mss;
                w.ssthresh = w.cwnd;
            }
            self.reno_count = if self.reno_count <= 2 { (w.cwnd / mss / 2).max(2) } else { self.reno_count + 1 };
            self.doing_reno_now = (self.doing_reno_now + 1).min(0xff_ffff);
        } else {
            self.fast_count += 1;
            if self.fast_count > self.cfg.zeta as u64 {
                self.reno_count = 2;
                self.fast_count = 0;
            }
            self.doing_reno_now = 0;
        }
        self.last_q = q;
    }
}

impl CongestionControl for Yeah {
    const STATE: &'static [Field] = &[
        Field { name: "backlog_pkts", unit: FieldUnit::Pkts, doc: "Q at the last round: cwnd (rtt - base) / rtt" },
        Field { name: "reno_mode", unit: FieldUnit::Flag, doc: "1 in slow (Reno) mode, 0 in fast (Scalable) mode" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        // Linux tcp_vegas_pkts_acked and tcp_vegas_state
        self.rtt.sample(a.rtt);
        let open = a.ca_state == CaState::Open;
        if open && !self.was_open {
            self.beg_snd_nxt = a.snd_nxt;
            self.rtt.reset();
        }
        self.was_open = open;
        if !a.may_grow() {
            return;
        }
        let mss = w.mss as u64;
        let left = slow_start(w, a.growth_bytes, self.ss);
        if left > 0 {
            let cwnd = w.cwnd / mss;
            let per = if self.doing_reno_now == 0 { cwnd.min(SCALABLE_AI_CNT) } else { cwnd };
            cong_avoid_ai(w, &mut self.acc, per, left);
        }
        if a.snd_una > self.beg_snd_nxt {
            if self.rtt.cnt > 2 {
                self.round(w, self.rtt.min_us, self.rtt.base_us);
            }
            self.beg_snd_nxt = a.snd_nxt;
            self.rtt.reset();
        }
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        let mss = w.mss as u64;
        if e.kind == CongestionKind::Timeout && !e.new_episode {
            return w.ssthresh;
        }
        let cwnd = w.cwnd / mss;
        let cut = if self.doing_reno_now < self.cfg.rho as u64 { self.last_q.min((cwnd / 2).max(2)).max(cwnd >> self.cfg.delta) } else { (cwnd / 2).max(2) };
        self.fast_count = 0;
        self.reno_count = (self.reno_count / 2).max(2);
        cwnd.saturating_sub(cut).max(2) * mss
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        out.copy_from_slice(&[self.last_q as f64, (self.doing_reno_now > 0) as u8 as f64]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;
    use crate::units::{Dur, Time};

    const MSS: u64 = 1000;

    fn yeah() -> Yeah {
        Yeah::new(&YeahConfig::default(), &CcEnv::linux(MSS as u32, 10))
    }

    /// One round of ACKs (one segment each) with RTTs `rtt_ms` over a 100 ms base, then the
    /// ACK that closes it (the decision): returns the window growth.
    fn round(y: &mut Yeah, w: &mut Window, rtt_ms: u64) -> i64 {
        let before = (w.cwnd / MSS) as i64;
        let beg = y.beg_snd_nxt;
        for _ in 0..w.cwnd / MSS {
            y.on_ack(w, &AckEvent { rtt: Some(Dur::from_ms(rtt_ms)), snd_una: beg, snd_nxt: beg, ..ack(MSS) });
        }
        y.on_ack(w, &AckEvent { snd_una: beg + 1, snd_nxt: beg + 1_000_000, ..ack(MSS) });
        (w.cwnd / MSS) as i64 - before
    }

    /// Fast mode grows 1 % per round (Scalable) above 100 segments; a backlog of 1020 x 10/110 =
    /// 92 > alpha switches to slow mode and decongests by the backlog (ssthresh follows); a loss
    /// there cuts by max(lastQ, cwnd / 8); after rho (16) slow rounds, by half.
    #[test]
    fn fast_and_slow_modes_and_the_loss_cut() {
        let mut y = yeah();
        y.rtt.base_us = 100_001;
        let mut w = Window { cwnd: 1000 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        assert_eq!(round(&mut y, &mut w, 101), 10, "fast: +1 per 100 acknowledged");
        assert_eq!((y.last_q, y.doing_reno_now), (9, 0));
        // grows to 1020 in fast mode, then decongests by 92 at the decision
        round(&mut y, &mut w, 110);
        assert_eq!((y.last_q, y.doing_reno_now, w.cwnd / MSS, w.ssthresh / MSS), (92, 1, 928, 928));
        assert_eq!(y.reno_count, 464);
        let ev = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 0, new_episode: true };
        assert_eq!(y.on_congestion(&mut w, &ev), (928 - 116) * MSS, "cut max(min(92, 464), 928 / 8)");
        // sixteen slow rounds (queueing delay 15 ms above base / 8, backlog 26 under alpha):
        // Reno's +1 per round, and then a loss halves
        let mut w = Window { cwnd: 200 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        for _ in 0..16 {
            assert_eq!(round(&mut y, &mut w, 115), 1);
        }
        assert_eq!(y.doing_reno_now, 17);
        assert_eq!(y.on_congestion(&mut w, &ev), (216 - 108) * MSS);
    }
}
