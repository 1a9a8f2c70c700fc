//! TCP Illinois: loss decides when to cut, queueing delay decides by how much to grow and cut.
//! The additive increase alpha falls from 10 to 0.3 segments per RTT and the decrease beta rises
//! from 1/8 to 1/2 as the average queueing delay approaches its maximum.
//!
//! Source: Liu, Basar, Srikant, "TCP-Illinois: a loss- and delay-based congestion control
//! algorithm for high-speed networks", Performance Evaluation 65(6-7), 2008; Linux
//! `net/ipv4/tcp_illinois.c`, read for behaviour (not copied). Once per RTT (the first ACK
//! beyond the snd_nxt of the previous update), with `da` the average RTT of the round less
//! `base_rtt` and `dm` = max RTT - base RTT (over the connection):
//!
//! ```text
//! cwnd < win_thresh (15)   alpha = 1, beta = 1/2
//! d1 = dm/100              da <= d1: alpha = alpha_max (10), once theta (5) rounds in a row
//!                          were low after a high one; otherwise
//!                          alpha = (dm-d1) alpha_max / ((dm-d1) + (da-d1)(alpha_max-alpha_min)/alpha_min)
//! d2 = dm/10, d3 = 8dm/10  beta = beta_min (1/8) for da <= d2, beta_max (1/2) for da >= d3,
//!                          linear between
//! ```
//!
//! Congestion avoidance adds alpha segments per window (alpha / cwnd per segment acknowledged,
//! Linux's count-and-add); ssthresh = max(cwnd - beta cwnd, 2) at a loss (`decrease =
//! "by_beta"`, the paper's W <- W - beta W, Linux 6.1's `tcp_illinois_ssthresh`, ns-3's
//! TcpIllinois). Linux 2.6.22's module, the one ns-2.35's `Agent/TCP/Linux` runs, returned
//! max(beta cwnd, 2) instead (`decrease = "to_beta"`, the `ns2` profile's: read from the
//! machine code of Debian's ns-2.35, whose `tcp_illinois_ssthresh` multiplies cwnd by beta
//! and shifts, with no subtraction): a loss at low delay (beta 1/8) keeps an eighth of the
//! window, not seven eighths. A timeout resets alpha to 1 and beta to 1/2. Linux's fixed point
//! is kept (alpha in 1/128, beta in 1/64, RTTs in microseconds), so the law tests compare exact
//! values.
//!
//! Deviations: RTT samples are the sender's Karn-filtered ones (Linux: every ACK's).

use super::law::{slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, SsRule, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::stack::Profile;

crate::choice! {
    /// What beta is at a loss: the fraction of the window given up, or the fraction kept.
    pub enum IllinoisDecrease {
        /// ssthresh = max(cwnd - beta cwnd, 2): the window decreases by beta (the paper; Linux
        /// 6.1 `tcp_illinois_ssthresh`; ns-3 `TcpIllinois::GetSsThresh`, (1 - beta) x flight).
        ByBeta = "by_beta",
        /// ssthresh = max(beta cwnd, 2): the window decreases to beta (Linux 2.6.22
        /// `tcp_illinois_ssthresh`, the module ns-2.35's `Agent/TCP/Linux` runs; later kernels
        /// subtract).
        ToBeta = "to_beta",
    }
}

crate::params! {
    /// TCP Illinois parameters; the defaults are Linux's and the paper's.
    pub struct IllinoisConfig {
        /// Below this window alpha is 1 and beta 1/2 (Reno).
        win_thresh: u32 = 15, Count, range(>= 0, <= 1000000), "Linux tcp_illinois.c win_thresh = 15";
        /// Rounds of low delay after which alpha returns to alpha_max.
        theta: u32 = 5, Count, range(>= 1, <= 1000), "Linux tcp_illinois.c theta = 5";
        /// The decrease at a loss: "by_beta" (ssthresh = cwnd - beta cwnd) or "to_beta" (ssthresh = beta cwnd); unset: the TCP profile's (by_beta, or to_beta in the ns2 profile: ns-2.35's illinois is Linux 2.6.22's).
        decrease: Option<IllinoisDecrease> = None, Choice, range(), "the paper and Linux 6.1 tcp_illinois_ssthresh: cwnd - beta cwnd; Linux 2.6.22: beta cwnd";
    }
}

const ALPHA_SHIFT: u32 = 7;
const ALPHA_SCALE: u64 = 1 << ALPHA_SHIFT;
const ALPHA_MIN: u64 = (3 * ALPHA_SCALE) / 10; // 0.3
const ALPHA_MAX: u64 = 10 * ALPHA_SCALE; // 10
const ALPHA_BASE: u64 = ALPHA_SCALE; // 1.0
const BETA_SHIFT: u32 = 6;
const BETA_SCALE: u64 = 1 << BETA_SHIFT;
const BETA_MIN: u64 = BETA_SCALE / 8; // 0.125
const BETA_MAX: u64 = BETA_SCALE / 2; // 0.5
const BETA_BASE: u64 = BETA_MAX;
const NONE_US: u64 = 0x7fff_ffff;

#[derive(Clone, Debug)]
pub struct Illinois {
    win_thresh: u64,
    theta: u32,
    decrease: IllinoisDecrease,
    ss: SsRule,
    /// alpha x 128, beta x 64.
    alpha: u64,
    beta: u64,
    base_rtt_us: u64,
    max_rtt_us: u64,
    sum_rtt_us: u64,
    cnt_rtt: u64,
    end_seq: u64,
    /// A round had high delay; alpha waits theta low rounds before returning to alpha_max.
    rtt_above: bool,
    rtt_low_cnt: u32,
    /// Segments acknowledged toward the next increment (Linux snd_cwnd_cnt).
    acc: u64,
}

impl Algorithm for Illinois {
    type Config = IllinoisConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "illinois",
        aliases: &[],
        summary: "Illinois: AIMD whose increase (10 -> 0.3 per RTT) and decrease (1/8 -> 1/2) follow the queueing delay",
        sources: &["Liu, Basar, Srikant, Performance Evaluation 65(6-7), 2008", "Linux net/ipv4/tcp_illinois.c"],
    };
    fn new(cfg: &IllinoisConfig, env: &CcEnv) -> Illinois {
        Illinois {
            win_thresh: cfg.win_thresh as u64,
            theta: cfg.theta,
            decrease: cfg.decrease.unwrap_or(match env.profile {
                Profile::Ns2 => IllinoisDecrease::ToBeta,
                Profile::Linux | Profile::Ns3 => IllinoisDecrease::ByBeta,
            }),
            ss: env.slow_start.rule(SsRule::PerAck),
            alpha: ALPHA_MAX,
            beta: BETA_BASE,
            base_rtt_us: NONE_US,
            max_rtt_us: 0,
            sum_rtt_us: 0,
            cnt_rtt: 0,
            end_seq: 0,
            rtt_above: false,
            rtt_low_cnt: 0,
            acc: 0,
        }
    }
}

impl Illinois {
    fn rtt_reset(&mut self, snd_nxt: u64) {
        self.end_seq = snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt_us = 0;
    }

    /// alpha x 128 for average delay `da` and maximum delay `dm` (us).
    pub fn alpha_for(&mut self, da: u64, dm: u64) -> u64 {
        let d1 = dm / 100;
        if da <= d1 {
            if !self.rtt_above {
                return ALPHA_MAX;
            }
            self.rtt_low_cnt += 1;
            if self.rtt_low_cnt >= self.theta {
                self.rtt_low_cnt = 0;
                self.rtt_above = false;
                return ALPHA_MAX;
            }
            return self.alpha;
        }
        self.rtt_above = true;
        let (dm, da) = (dm - d1, da - d1);
        (dm * ALPHA_MAX) / (dm + (da * (ALPHA_MAX - ALPHA_MIN)) / ALPHA_MIN)
    }

    /// beta x 64.
    pub fn beta_for(da: u64, dm: u64) -> u64 {
        let d2 = dm / 10;
        if da <= d2 {
            return BETA_MIN;
        }
        let d3 = (8 * dm) / 10;
        if da >= d3 || d3 <= d2 {
            return BETA_MAX;
        }
        (BETA_MIN * d3 - BETA_MAX * d2 + (BETA_MAX - BETA_MIN) * da) / (d3 - d2)
    }

    /// ssthresh in segments for a window of `cwnd` segments at the current beta (Linux
    /// `tcp_illinois_ssthresh`: 6.1 subtracts, 2.6.22 does not).
    pub fn ssthresh_segs(&self, cwnd: u64) -> u64 {
        let scaled = (cwnd * self.beta) >> BETA_SHIFT;
        match self.decrease {
            IllinoisDecrease::ByBeta => cwnd - scaled,
            IllinoisDecrease::ToBeta => scaled,
        }
        .max(2)
    }

    fn update_params(&mut self, cwnd: u64, snd_nxt: u64) {
        if cwnd < self.win_thresh {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
        } else if let Some(avg_us) = self.sum_rtt_us.checked_div(self.cnt_rtt) {
            let dm = self.max_rtt_us - self.base_rtt_us;
            let da = avg_us - self.base_rtt_us;
            self.alpha = self.alpha_for(da, dm);
            self.beta = Self::beta_for(da, dm);
        }
        self.rtt_reset(snd_nxt);
    }
}

impl CongestionControl for Illinois {
    const STATE: &'static [Field] = &[
        Field { name: "alpha", unit: FieldUnit::Pkts, doc: "additive increase per RTT" },
        Field { name: "beta", unit: FieldUnit::Ratio, doc: "multiplicative decrease at the next loss" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        // Linux tcp_illinois_acked
        if let Some(rtt) = a.rtt {
            let us = rtt.ns() / 1000;
            self.base_rtt_us = self.base_rtt_us.min(us);
            self.max_rtt_us = self.max_rtt_us.max(us);
            self.cnt_rtt += 1;
            self.sum_rtt_us += us;
        }
        // Linux tcp_illinois_cong_avoid, which the stack calls on an ACK of new data outside
        // fast recovery (tcp_may_raise_cwnd, cwnd-limited or not): the round closes there, so
        // the samples of a recovery count in the first round after it
        if a.acked_bytes == 0 || matches!(a.ca_state, CaState::Recovery | CaState::Disorder) {
            return;
        }
        let mss = w.mss as u64;
        if a.snd_una > self.end_seq {
            self.update_params(w.cwnd / mss, a.snd_nxt);
        }
        if !a.may_grow() {
            return;
        }
        if w.in_slow_start() {
            slow_start(w, a.growth_bytes, self.ss);
            return;
        }
        // cwnd += alpha / cwnd per segment, counted and added when a whole segment is due
        self.acc += (a.growth_bytes / mss).max(1);
        let delta = (self.acc * self.alpha) >> ALPHA_SHIFT;
        let cwnd = w.cwnd / mss;
        if delta >= cwnd {
            w.cwnd += delta / cwnd * mss;
            self.acc = 0;
        }
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        let mss = w.mss as u64;
        let cwnd = w.cwnd / mss;
        let s = self.ssthresh_segs(cwnd);
        if e.kind == CongestionKind::Timeout {
            // Linux tcp_illinois_state on TCP_CA_Loss (after the ssthresh it computed)
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
            self.rtt_low_cnt = 0;
            self.rtt_above = false;
            self.cnt_rtt = 0;
            self.sum_rtt_us = 0;
            if !e.new_episode {
                return w.ssthresh;
            }
        }
        s * mss
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        out.copy_from_slice(&[self.alpha as f64 / ALPHA_SCALE as f64, self.beta as f64 / BETA_SCALE as f64]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;
    use crate::units::{Dur, Time};

    const MSS: u64 = 1000;

    fn illinois() -> Illinois {
        Illinois::new(&IllinoisConfig::default(), &CcEnv::linux(MSS as u32, 10))
    }

    /// alpha and beta against the paper's curves with dm = 100 ms: alpha_max at da <= 1 ms,
    /// kappa1 / (kappa2 + da) above (alpha_min at da = dm), beta linear from 1/8 at 10 ms to
    /// 1/2 at 80 ms.
    #[test]
    fn alpha_and_beta_follow_the_average_delay() {
        let mut il = illinois();
        let dm = 100_000;
        let alpha = |il: &mut Illinois, da| il.alpha_for(da, dm) as f64 / 128.0;
        assert_eq!(alpha(&mut il, 500), 10.0);
        // the formula in floating point, against Linux's fixed point
        for da in [2_000u64, 10_000, 50_000, 100_000] {
            let (d, m) = ((da - 1000) as f64, (dm - 1000) as f64);
            let want = m * 10.0 / (m + d * (10.0 - 0.296875) / 0.296875);
            assert!((alpha(&mut il, da) - want).abs() < 0.02, "da {da}: {} vs {want}", alpha(&mut il, da));
        }
        assert!((alpha(&mut il, dm) - 0.3).abs() < 0.01);
        // after high delay, theta (5) low rounds before alpha_max again
        let kept = il.alpha;
        for _ in 0..4 {
            assert_eq!(il.alpha_for(0, dm), kept);
        }
        assert_eq!(il.alpha_for(0, dm), ALPHA_MAX);
        let beta = |da| Illinois::beta_for(da, dm) as f64 / 64.0;
        assert_eq!(beta(5_000), 0.125);
        assert_eq!(beta(80_000), 0.5);
        assert!((beta(45_000) - (0.125 + 0.375 * 35.0 / 70.0)).abs() < 1.0 / 64.0, "{}", beta(45_000));
    }

    /// One round with RTTs 100-140 ms (average 120, base 100, max 140: da = 20 ms of dm = 40):
    /// the next round grows by that alpha per window and a loss cuts by that beta.
    #[test]
    fn a_round_sets_the_increase_and_the_decrease() {
        // (the ACK of the second sample closes the first round; the last ACK the second)
        let mut il = illinois();
        let mut w = Window { cwnd: 100 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        for (i, ms) in [100u64, 140, 120, 120, 120].into_iter().enumerate() {
            il.on_ack(&mut w, &AckEvent { rtt: Some(Dur::from_ms(ms)), snd_una: i as u64, snd_nxt: 1_000_000, cwnd_limited: false, ..ack(MSS) });
        }
        il.on_ack(&mut w, &AckEvent { snd_una: 1_000_001, snd_nxt: 2_000_000, cwnd_limited: false, ..ack(MSS) });
        let (da, dm) = (20_000u64, 40_000u64);
        let mut probe = illinois();
        assert_eq!(il.alpha, probe.alpha_for(da, dm));
        assert_eq!(il.beta, Illinois::beta_for(da, dm));
        let alpha = il.alpha as f64 / 128.0;
        let before = w.cwnd;
        // ten windows of ACKs (alpha 0.58: about 6 segments)
        for _ in 0..1000 {
            il.on_ack(&mut w, &AckEvent { snd_una: 1_500_000, snd_nxt: 2_000_000, ..ack(MSS) });
        }
        let grown = (w.cwnd - before) / MSS;
        assert!((grown as f64 - 10.0 * alpha).abs() < 1.5, "{grown} in ten windows, alpha {alpha}");
        let ev = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 0, new_episode: true, lost_bytes: 0 };
        let cwnd = w.cwnd / MSS;
        assert_eq!(il.on_congestion(&mut w, &ev), (cwnd - ((cwnd * il.beta) >> 6)) * MSS);
    }

    /// A round at low delay (RTTs 100 and 200 ms seen, then a round averaging 101 ms: da = 1 ms
    /// of dm = 100, under d2 = 10 ms) sets beta to 1/8. A loss at 800 segments then leaves
    /// ssthresh 700 where the window decreases by beta (the linux and ns3 profiles: Linux 6.1,
    /// the paper, ns-3) and 100 where it decreases to beta (the ns2 profile: Linux 2.6.22's
    /// module in ns-2.35); a timeout cuts by the same rule before resetting beta to 1/2.
    #[test]
    fn a_loss_decreases_by_beta_except_as_linux_2_6_22() {
        fn at_low_delay(profile: Profile, decrease: Option<IllinoisDecrease>) -> (Illinois, Window) {
            let env = CcEnv { profile, ..CcEnv::linux(MSS as u32, 10) };
            let mut il = Illinois::new(&IllinoisConfig { decrease, ..IllinoisConfig::default() }, &env);
            let mut w = Window { cwnd: 800 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
            let rounds = [(0, 100), (1, 200), (2, 101), (3, 101), (4, 101), (1_000_001, 101)];
            for (i, (una, ms)) in rounds.into_iter().enumerate() {
                let nxt = if i < 2 { 1_000_000 } else { 2_000_000 };
                il.on_ack(&mut w, &AckEvent { rtt: Some(Dur::from_ms(ms)), snd_una: una, snd_nxt: nxt, cwnd_limited: false, ..ack(MSS) });
            }
            assert_eq!(il.beta, BETA_MIN, "{profile:?}");
            (il, w)
        }
        let loss = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 0, new_episode: true, lost_bytes: 0 };
        let rto = CongestionEvent { kind: CongestionKind::Timeout, ..loss };
        for (profile, decrease, want) in [
            (Profile::Linux, None, 700),
            (Profile::Ns3, None, 700),
            (Profile::Ns2, None, 100),
            (Profile::Linux, Some(IllinoisDecrease::ToBeta), 100),
            (Profile::Ns2, Some(IllinoisDecrease::ByBeta), 700),
        ] {
            let (mut il, mut w) = at_low_delay(profile, decrease);
            assert_eq!(il.on_congestion(&mut w, &loss), want * MSS, "{profile:?} {decrease:?}");
            let (mut il, mut w) = at_low_delay(profile, decrease);
            assert_eq!(il.on_congestion(&mut w, &rto), want * MSS, "{profile:?} {decrease:?} timeout");
            assert_eq!((il.alpha, il.beta), (ALPHA_BASE, BETA_BASE));
        }
        // at least 2 segments either way
        let (il, _) = at_low_delay(Profile::Ns2, None);
        assert_eq!(il.ssthresh_segs(3), 2);
    }

    /// Linux updates alpha and beta in its cong_avoid hook, which the stack does not call in
    /// fast recovery: ACKs there add their RTT samples to the round without closing it, and the
    /// first ACK of new data after it closes the round with them. A round of 100 and 140 ms
    /// (da 20 of dm 40 ms), then recovery ACKs past the round's end at 140 ms leave alpha and
    /// beta alone; the next ACK (140 ms) closes a round averaging 140: alpha_min, beta 1/2.
    #[test]
    fn a_round_does_not_close_in_fast_recovery() {
        let mut il = illinois();
        let mut w = Window { cwnd: 100 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        let at = |una: u64, nxt: u64, ms: u64, ca_state: CaState| AckEvent { rtt: Some(Dur::from_ms(ms)), snd_una: una, snd_nxt: nxt, ca_state, cwnd_limited: false, ..ack(MSS) };
        il.on_ack(&mut w, &at(0, 1_000_000, 100, CaState::Open));
        il.on_ack(&mut w, &at(1, 1_000_000, 140, CaState::Open));
        let mut probe = illinois();
        let first = (probe.alpha_for(20_000, 40_000), Illinois::beta_for(20_000, 40_000));
        assert_eq!((il.alpha, il.beta), first);
        for una in [1_000_001, 1_500_000] {
            il.on_ack(&mut w, &at(una, 2_000_000, 140, CaState::Recovery));
            assert_eq!((il.alpha, il.beta), first, "in recovery");
        }
        il.on_ack(&mut w, &at(1_600_000, 2_000_000, 140, CaState::Open));
        assert_eq!((il.alpha, il.beta), (probe.alpha_for(40_000, 40_000), BETA_MAX));
        assert_eq!(il.alpha, ALPHA_MIN);
    }
}
