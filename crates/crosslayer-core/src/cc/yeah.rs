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
//! `rules = "ns3"` (the ns3 profile's default) is ns-3 3.44's `TcpYeah` (`tcp-yeah.cc`, read
//! for behaviour, not copied), which differs from Linux's:
//! * its RTT is the smoothed RTT that `TcpSocketBase` hands `PktsAcked` (`m_srtt`), on every
//!   ACK of new data; base and round minimum are minima of SRTT (as ns-3's Vegas, `vegas.rs`);
//! * slow mode when `queue > alpha` or `L = (rtt - base) / base > 1 / m_phy`, where `1 /
//!   m_phy` divides two unsigned integers: 0 for any phy above 1, so any round whose least
//!   SRTT exceeds the base is a slow round - nearly every round, since the smoothed RTT of a
//!   path with no queue stays a fraction of a millisecond above the handshake's sample that
//!   seeded the base. ns-3's YeAH therefore runs Reno's increase, and after rho slow rounds a
//!   loss halves, as Reno's;
//! * `queue = floor(cwnd / rtt x (rtt - base))` in floating point (Linux: integer division);
//! * growth, whether or not the sender is cwnd-limited: slow start `TcpNewReno::SlowStart`
//!   (one segment per ACK); fast mode `TcpScalable::CongestionAvoidance` (one segment per
//!   min(cwnd, 100) acknowledged, the count restarting at 0, cwnd in whole segments); slow mode
//!   `TcpNewReno::CongestionAvoidance` (mss^2 / cwnd bytes per ACK, so half a segment per
//!   round trip with delayed ACKs; Linux: one per window acknowledged);
//! * the round closes when the ACK reaches the saved snd_nxt (`>=`);
//! * the loss response (`GetSsThresh`) cuts from BytesInFlight (Linux: cwnd): ssthresh =
//!   flight - cut, the cut as Linux's but of the flight (at least 2 segments kept; ns-3's
//!   unsigned subtraction would wrap below 2 segments in flight).
//!
//! Deviations: RTT samples are the sender's Karn-filtered ones (Linux: every ACK's).

use super::law::{cong_avoid_ai, slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, SsRule, Window};
use super::law::vegas_rtt::{SrttMinima, VegasRtt};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::stack::Profile;

crate::choice! {
    /// Whose YeAH rules.
    pub enum YeahRules {
        /// Linux `tcp_yeah.c`.
        Linux = "linux",
        /// ns-3 3.44 `TcpYeah`.
        Ns3 = "ns3",
    }
}

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
        /// Whose YeAH: "linux" (each ACK's RTT sample; slow mode when the queueing delay exceeds base / phy) or "ns3" (ns-3's TcpYeah: the smoothed RTT; slow mode whenever it exceeds the base, 1 / phy being an integer division; NewReno's per-ACK increase in slow mode; loss cut from the flight); unset: the TCP profile's (ns3 in the ns3 profile, linux otherwise).
        rules: Option<YeahRules> = None, Choice, range(), "linux: tcp_yeah.c (tcp_yeah_cong_avoid, tcp_yeah_ssthresh; tcp_vegas_pkts_acked); ns3: ns-3 3.44 tcp-yeah.cc (PktsAcked is handed TcpSocketBase's m_srtt; IncreaseWindow: 'L > (1 / m_phy)' with m_phy uint32_t, TcpScalable and TcpNewReno::CongestionAvoidance, m_lastAckedSeq >= m_begSndNxt; GetSsThresh from bytesInFlight)";
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
    /// Segments acknowledged toward the next increment (Linux snd_cwnd_cnt; ns-3 TcpScalable's
    /// m_ackCnt).
    acc: u64,
    /// ns-3's TcpYeah (`rules = "ns3"`), and its minima of the smoothed RTT.
    ns3: bool,
    srtt: SrttMinima,
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
            ns3: cfg.rules.unwrap_or(match env.profile {
                Profile::Ns3 => YeahRules::Ns3,
                Profile::Linux | Profile::Ns2 => YeahRules::Linux,
            }) == YeahRules::Ns3,
            srtt: SrttMinima::default(),
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
            self.fast_round();
        }
        self.last_q = q;
    }

    /// A round in fast mode (Linux and ns-3 alike): after `zeta` of them the Reno estimate
    /// restarts from 2.
    fn fast_round(&mut self) {
        self.fast_count += 1;
        if self.fast_count > self.cfg.zeta as u64 {
            self.reno_count = 2;
            self.fast_count = 0;
        }
        self.doing_reno_now = 0;
    }

    /// ns-3's once-per-round decision (`TcpYeah::IncreaseWindow`), with the round's least
    /// smoothed RTT against the connection's.
    fn round_ns3(&mut self, w: &mut Window) {
        let (Some(base), Some(rtt)) = (self.srtt.base, self.srtt.min) else { return };
        let mss = w.mss as u64;
        let mut segs = w.cwnd / mss;
        let rtt_queue = rtt.ns().saturating_sub(base.ns()) as f64 * 1e-9;
        let q = (segs as f64 / rtt.secs_f64() * rtt_queue) as u64;
        let l = rtt_queue / base.secs_f64();
        // ns-3: "L > (1 / m_phy)" with m_phy an unsigned integer: 0 unless phy is 1
        let l_max = (1 / self.cfg.phy) as f64;
        let alpha = self.cfg.alpha as u64;
        if q > alpha || l > l_max {
            if q > alpha && segs > self.reno_count {
                let cut = (q / self.cfg.gamma as u64).min(segs >> self.cfg.epsilon);
                segs = (segs - cut).max(self.reno_count);
                w.cwnd = segs * mss;
                w.ssthresh = w.cwnd;
            }
            self.reno_count = if self.reno_count <= 2 { (segs >> 1).max(2) } else { self.reno_count + 1 };
            self.doing_reno_now += 1;
        } else {
            self.fast_round();
        }
        self.last_q = q;
    }

    fn on_ack_ns3(&mut self, w: &mut Window, a: &AckEvent) {
        // TcpSocketBase::ProcessAck: PktsAcked(m_srtt) on every ACK of new data
        if a.acked_bytes > 0 {
            self.srtt.sample(a.srtt);
        }
        // CongestionStateSet(CA_OPEN): EnableYeah
        let open = a.ca_state == CaState::Open;
        if open && !self.was_open {
            self.beg_snd_nxt = a.snd_nxt;
            self.srtt.reset();
        }
        self.was_open = open;
        // IncreaseWindow: ACKs of new data outside recovery, cwnd-limited or not
        if a.acked_bytes == 0 || matches!(a.ca_state, CaState::Recovery | CaState::Disorder) {
            return;
        }
        let mss = w.mss as u64;
        let acked_segs = a.growth_bytes / mss;
        if w.in_slow_start() {
            slow_start(w, a.growth_bytes, self.ss);
        } else if self.doing_reno_now == 0 {
            // TcpScalable::CongestionAvoidance: one segment per min(cwnd, 100) acknowledged,
            // the count restarting at 0
            let segs = w.cwnd / mss;
            let per = segs.clamp(1, SCALABLE_AI_CNT);
            let mut grown = segs;
            if self.acc >= per {
                self.acc = 0;
                grown += 1;
            }
            self.acc += acked_segs;
            if self.acc >= per {
                grown += self.acc / per;
                self.acc = 0;
            }
            if grown != segs {
                w.cwnd = grown * mss;
            }
        } else if acked_segs > 0 {
            // TcpNewReno::CongestionAvoidance: mss^2 / cwnd bytes per ACK
            w.cwnd += (mss * mss / w.cwnd).max(1);
        }
        if a.snd_una >= self.beg_snd_nxt {
            if self.srtt.cnt > 2 {
                self.round_ns3(w);
            }
            self.beg_snd_nxt = a.snd_nxt;
            self.srtt.reset();
        }
    }
}

impl CongestionControl for Yeah {
    const STATE: &'static [Field] = &[
        Field { name: "backlog_pkts", unit: FieldUnit::Pkts, doc: "Q at the last round: cwnd (rtt - base) / rtt" },
        Field { name: "reno_mode", unit: FieldUnit::Flag, doc: "1 in slow (Reno) mode, 0 in fast (Scalable) mode" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        if self.ns3 {
            return self.on_ack_ns3(w, a);
        }
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
        // ns-3's TcpYeah::GetSsThresh cuts from BytesInFlight, Linux's from cwnd
        let base = if self.ns3 { e.flight_size } else { w.cwnd };
        let segs = base / mss;
        let cut = if self.doing_reno_now >= self.cfg.rho as u64 {
            (segs / 2).max(2)
        } else if self.ns3 {
            self.last_q.max(segs >> self.cfg.delta).min((segs / 2).max(2))
        } else {
            self.last_q.min((segs / 2).max(2)).max(segs >> self.cfg.delta)
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count / 2).max(2);
        if self.ns3 {
            return base.saturating_sub(cut * mss).max(2 * mss);
        }
        segs.saturating_sub(cut).max(2) * mss
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

    fn yeah_with(profile: Profile, rules: Option<YeahRules>) -> Yeah {
        Yeah::new(&YeahConfig { rules, ..Default::default() }, &CcEnv { profile, ..CcEnv::linux(MSS as u32, 10) })
    }

    /// The ACK that closes a round under ns-3's rules: round's least SRTT `rtt_us` (3 reports)
    /// against a base of `base_us`, cwnd `cwnd` segments in congestion avoidance.
    fn close_round_ns3(y: &mut Yeah, cwnd: u64, base_us: u64, rtt_us: u64) -> Window {
        y.srtt = SrttMinima { base: Some(Dur::from_us(base_us)), min: Some(Dur::from_us(rtt_us)), cnt: 3 };
        y.beg_snd_nxt = MSS;
        let mut w = Window { cwnd: cwnd * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        y.on_ack(&mut w, &AckEvent { snd_una: MSS, snd_nxt: cwnd * MSS, srtt: Dur::from_us(rtt_us), ..ack(MSS) });
        w
    }

    #[test]
    fn the_rules_follow_the_profile() {
        assert!(yeah_with(Profile::Ns3, None).ns3);
        assert!(!yeah_with(Profile::Linux, None).ns3 && !yeah_with(Profile::Ns2, None).ns3);
        assert!(!yeah_with(Profile::Ns3, Some(YeahRules::Linux)).ns3);
        assert!(yeah_with(Profile::Linux, Some(YeahRules::Ns3)).ns3);
    }

    /// ns-3 compares L = (rtt - base) / base with 1 / m_phy in unsigned integers, which is 0:
    /// a round whose least smoothed RTT is 0.2 ms above the 40 ms base (no queue: a backlog of
    /// 300 x 0.2 / 40.2 = 1 segment) is a slow (Reno) round, where Linux's rule (0.2 ms against
    /// base / 8 = 5 ms) keeps the fast mode. Only a round at the base itself is fast.
    #[test]
    fn ns3_is_slow_whenever_the_smoothed_rtt_exceeds_the_base() {
        let mut y = yeah_with(Profile::Ns3, None);
        close_round_ns3(&mut y, 300, 40_000, 40_200);
        assert_eq!((y.last_q, y.doing_reno_now, y.reno_count), (1, 1, 150));
        let mut y = yeah_with(Profile::Ns3, None);
        close_round_ns3(&mut y, 300, 40_000, 40_000);
        assert_eq!((y.last_q, y.doing_reno_now, y.fast_count), (0, 0, 1));
        // phy 1: 1 / 1 = 1, L = 0.005 is not above it
        let mut y = Yeah::new(&YeahConfig { phy: 1, rules: Some(YeahRules::Ns3), ..Default::default() }, &CcEnv::linux(MSS as u32, 10));
        close_round_ns3(&mut y, 300, 40_000, 40_200);
        assert_eq!(y.doing_reno_now, 0);
        // Linux's rule on the same RTTs (samples in us + 1): fast
        let mut y = yeah();
        y.rtt.base_us = 40_001;
        let mut w = Window { cwnd: 300 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        for _ in 0..3 {
            y.on_ack(&mut w, &AckEvent { rtt: Some(Dur::from_us(40_200)), snd_una: 0, snd_nxt: 0, ..ack(MSS) });
        }
        y.on_ack(&mut w, &AckEvent { snd_una: 1, snd_nxt: 1_000_000, ..ack(MSS) });
        assert_eq!((y.last_q, y.doing_reno_now), (1, 0));
    }

    /// ns-3's growth: in slow mode TcpNewReno's mss^2 / cwnd bytes per ACK (an ACK of two
    /// segments adds as much as one), in fast mode TcpScalable's one segment per min(cwnd, 100)
    /// acknowledged, its count restarting at 0; a backlog above alpha decongests as Linux's.
    #[test]
    fn ns3_grows_by_newreno_in_slow_mode_and_by_scalable_in_fast_mode() {
        let mut y = yeah_with(Profile::Ns3, None);
        y.beg_snd_nxt = u64::MAX;
        y.doing_reno_now = 1;
        let mut w = Window { cwnd: 200 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        for _ in 0..100 {
            y.on_ack(&mut w, &ack(2 * MSS));
        }
        // 1000^2 / 200,000 = 5 bytes, then 4 (truncated) once cwnd is past 200,000
        assert_eq!(w.cwnd, 200 * MSS + 5 + 99 * 4, "100 ACKs of 2 segments: a segment's worth per ACK, not per segment");
        let mut y = yeah_with(Profile::Ns3, None);
        y.beg_snd_nxt = u64::MAX;
        let mut w = Window { cwnd: 200 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        for _ in 0..75 {
            y.on_ack(&mut w, &ack(3 * MSS));
        }
        // 225 segments: +1 at 102 (count to 0), +1 at 204, 21 left
        assert_eq!((w.cwnd / MSS, y.acc), (202, 21));
        // backlog 400 x 20 / 120 = 66 under alpha; 600 x 20 / 120 = 100 > 80: cut by 100
        let mut y = yeah_with(Profile::Ns3, None);
        let w = close_round_ns3(&mut y, 600, 100_000, 120_000);
        assert_eq!((y.last_q, w.cwnd / MSS, w.ssthresh / MSS), (100, 500, 500));
    }

    /// ns-3's loss cut is taken from the flight (TcpYeah::GetSsThresh's bytesInFlight): ssthresh
    /// = flight - max(lastQ, flight / 8) capped at half the flight; after rho slow rounds, half.
    #[test]
    fn ns3_cuts_the_flight() {
        let mut y = yeah_with(Profile::Ns3, None);
        let mut w = Window { cwnd: 1000 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        let ev = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 800 * MSS, new_episode: true, lost_bytes: 0 };
        y.last_q = 30;
        assert_eq!(y.on_congestion(&mut w, &ev), (800 - 100) * MSS, "max(30, 800 / 8)");
        y.last_q = 500;
        assert_eq!(y.on_congestion(&mut w, &ev), 400 * MSS, "at most half the flight");
        y.last_q = 30;
        y.doing_reno_now = 16;
        assert_eq!(y.on_congestion(&mut w, &ev), 400 * MSS, "competing with Reno: half");
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
        let ev = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 0, new_episode: true, lost_bytes: 0 };
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
