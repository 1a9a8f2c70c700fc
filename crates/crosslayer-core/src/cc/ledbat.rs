//! LEDBAT (Low Extra Delay Background Transport): a less-than-best-effort controller that
//! measures the one-way queuing delay it adds and steers it to a target, so it yields to
//! standard TCP (whose queue pushes the delay over the target) and keeps the queue short alone.
//!
//! Source: RFC 6817 (Shalunov, Hazel, Iyengar, Kuehlewind, 2012), section 2.4 and its
//! pseudo-code; ns-3 `tcp-ledbat.cc` read for its defaults and choices (not copied). Per ACK of
//! new data, with `delay` the one-way delay sample (TSval - TSecr, `AckEvent::owd`):
//! * `base_delay` = the least of BASE_HISTORY (10) per-minute minima (a new entry each minute,
//!   so the base follows route changes within 10 minutes); `current_delay` = the least of the
//!   last CURRENT_FILTER (4) samples; `queuing_delay = current_delay - base_delay`;
//! * `off_target = (TARGET - queuing_delay) / TARGET`;
//!   `cwnd += GAIN x off_target x bytes_acked x MSS / cwnd` (so +GAIN MSS per RTT with an empty
//!   queue, 0 at the target, shrinking above it);
//! * `cwnd <= flightsize + ALLOWED_INCREASE x MSS` and `cwnd >= MIN_CWND x MSS`;
//! * a loss: cwnd = max(cwnd / 2, MIN_CWND), once per round trip (the sender's recovery).
//!
//! Defaults: TARGET 100 ms (the RFC's upper bound, ns-3's default), GAIN 1, ALLOWED_INCREASE 1,
//! MIN_CWND 2, CURRENT_FILTER 4 (ns-3's NoiseFilterLen). Slow start (`slow_start = true`, ns-3's
//! default; RFC 6817 lets LEDBAT start as TCP does, never faster) runs until the first loss, as
//! in ns-3, or also until the queuing delay reaches the target (`ss_exit_on_target = true`).
//!
//! `delay = "rtt"` uses the RTT sample less the least RTT instead of the one-way delay: seed 004
//! (Dianov et al.) found Linux's LEDBAT module suffering from reverse-path congestion as if it
//! measured RTT; this option reproduces that behaviour. Without a delay sample (timestamps
//! off), the window grows as Reno's (ns-3's fallback).
//!
//! `rules = "ns3"` (the ns3 profile's default) is ns-3 3.44's `TcpLedbat` (`tcp-ledbat.cc`,
//! read for behaviour, not copied), which differs from the RFC's pseudo-code:
//! * **no allowed increase**: `max_cwnd` is the data outstanding after the ACK (highTxMark less
//!   the ACK number) plus the bytes this ACK acknowledged, the flight before it, which a
//!   window-limited sender never has above cwnd: in congestion avoidance the window can only
//!   shrink. What slow start reached, less the losses' halvings, is the window for good;
//! * the increase per ACK is whole bytes: `cwnd += offset x segments_acked x MSS^2 / (TARGET x
//!   cwnd)` with the offset and target in whole milliseconds, the product truncated to an
//!   `int32_t` and the sum to the `uint32_t` window; then `ssthresh = cwnd - 1` whenever cwnd <=
//!   ssthresh;
//! * slow start (one segment per ACK, `TcpNewReno::SlowStart`) while cwnd <= ssthresh until
//!   congestion avoidance first runs, and again once cwnd falls to one segment (a timeout); a
//!   loss keeps it: the ACK that ends a recovery at cwnd = ssthresh still slow-starts;
//! * the filters hold one sample fewer than their lengths (`AddDelay` drops the oldest once the
//!   size reaches the length: 3 current samples, 9 base entries), and a base entry rolls over
//!   when the whole seconds since the last rollover exceed 60 (the first at 61 s);
//! * every ACK's delay is sampled (ns-3's `PktsAcked` also sees duplicate ACKs); growth is not
//!   gated by the sender being cwnd-limited; a loss or a timeout takes NewReno's ssthresh, half
//!   the bytes in flight (at least 2 segments), not half of cwnd.
//!
//! Deviations: the one-way delay is exact here (one clock, no skew), which RFC 6817's
//! base-delay minimum exists to cancel.

use super::law::{cong_avoid_ai, slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, SsRule, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::stack::Profile;
use crate::units::{Dur, Time};

crate::choice! {
    /// Whose LEDBAT rules.
    pub enum LedbatRules {
        /// RFC 6817's pseudo-code.
        Rfc6817 = "rfc6817",
        /// ns-3 3.44 `TcpLedbat`.
        Ns3 = "ns3",
    }
}

crate::choice! {
    /// What LEDBAT measures as delay.
    pub enum LedbatDelay {
        /// One-way delay from timestamps, TSval - TSecr (RFC 6817).
        Owd = "owd",
        /// Round-trip time less the least RTT (reverse-path queues count too; seed 004's reading of Linux's module).
        Rtt = "rtt",
    }
}

crate::params! {
    /// LEDBAT parameters; the defaults are RFC 6817's and ns-3's.
    pub struct LedbatConfig {
        /// Queuing delay LEDBAT steers to.
        target: Dur = Dur::from_ms(100), Time, range(> Dur::ZERO, <= Dur::from_secs(10)), "RFC 6817 section 2.5: TARGET MUST be <= 100 ms; ns-3 TargetDelay 100 ms";
        /// Window change per RTT at zero queuing delay, segments.
        gain: f64 = 1.0, Ratio, range(> 0.0, <= 1.0), "RFC 6817 section 2.5: GAIN MUST be <= 1; ns-3 Gain 1";
        /// cwnd may exceed the flight size by at most this many segments.
        allowed_increase: u32 = 1, Packets, range(>= 1, <= 1000), "RFC 6817 section 2.5: ALLOWED_INCREASE SHOULD be 1";
        /// Least window, segments.
        min_cwnd: u32 = 2, Packets, range(>= 1, <= 1000), "RFC 6817 section 2.5: MIN_CWND SHOULD be 2; ns-3 MinCwnd 2";
        /// One-minute minima kept for the base delay.
        base_history: u32 = 10, Count, range(>= 1, <= 1000), "RFC 6817 section 2.5: BASE_HISTORY SHOULD be 10; ns-3 BaseHistoryLen 10";
        /// Latest samples whose least is the current delay.
        current_filter: u32 = 4, Count, range(>= 1, <= 1000), "ns-3 NoiseFilterLen 4 (RFC 6817: CURRENT_FILTER small, e.g. 1-4)";
        /// Start with slow start.
        slow_start: bool = true, Flag, range(), "ns-3 SSParam DO_SLOWSTART";
        /// Slow start also ends when the queuing delay reaches the target (false: only at ssthresh, after a loss, as ns-3).
        ss_exit_on_target: bool = false, Flag, range(), "ns-3 TcpLedbat::IncreaseWindow (slow start while cwnd <= ssthresh)";
        /// The delay measured: "owd" (TSval - TSecr) or "rtt".
        delay: LedbatDelay = LedbatDelay::Owd, Choice, range(), "RFC 6817 section 2.4 (one-way delay); rtt: seed 004's reading of Linux's module";
        /// Whose LEDBAT: "rfc6817" (the RFC's pseudo-code: cwnd up to the flight plus allowed_increase) or "ns3" (ns-3's TcpLedbat: cwnd never above the flight before the ACK, so congestion avoidance only shrinks it; whole-byte increments; filters one sample shorter); unset: the TCP profile's (ns3 in the ns3 profile, rfc6817 otherwise).
        rules: Option<LedbatRules> = None, Choice, range(), "rfc6817: RFC 6817 section 2.4.2 pseudo-code; ns3: ns-3 3.44 tcp-ledbat.cc (CongestionAvoidance: max_cwnd = highTxMark - lastAckedSeq + segmentsAcked x MSS, int32_t m_sndCwndCnt, uint32_t cwnd; IncreaseWindow's LEDBAT_CAN_SS; AddDelay, UpdateBaseDelay; TcpNewReno::GetSsThresh)";
    }
}

/// Bounded history, oldest first (no allocation after construction).
#[derive(Clone, Debug)]
struct Ring {
    buf: Vec<Dur>,
    len: usize,
    head: usize,
}

impl Ring {
    fn new(cap: usize) -> Ring {
        Ring { buf: vec![Dur::ZERO; cap], len: 0, head: 0 }
    }
    fn push(&mut self, d: Dur) {
        let cap = self.buf.len();
        self.buf[(self.head + self.len) % cap] = d;
        if self.len < cap {
            self.len += 1;
        } else {
            self.head = (self.head + 1) % cap;
        }
    }
    fn last_mut(&mut self) -> Option<&mut Dur> {
        let cap = self.buf.len();
        (self.len > 0).then(|| &mut self.buf[(self.head + self.len - 1) % cap])
    }
    fn min(&self) -> Option<Dur> {
        (0..self.len).map(|i| self.buf[(self.head + i) % self.buf.len()]).min()
    }
}

#[derive(Clone, Debug)]
pub struct Ledbat {
    cfg: LedbatConfig,
    ss: SsRule,
    base: Ring,
    current: Ring,
    /// Minute of the newest base-history entry.
    last_rollover: Option<u64>,
    /// Window in segments, fractional.
    cwnd: f64,
    /// Least RTT (for `delay = "rtt"`).
    min_rtt: Option<Dur>,
    queuing: Option<Dur>,
    in_slow_start: bool,
    /// Reno fallback's count (no delay samples).
    acc: u64,
    /// ns-3's TcpLedbat (`rules = "ns3"`).
    ns3: bool,
    /// ns-3: slow start is still allowed (`LEDBAT_CAN_SS`).
    can_ss: bool,
    /// ns-3: whole seconds at the last base-history rollover (`m_lastRollover`).
    last_rollover_s: u64,
}

impl Algorithm for Ledbat {
    type Config = LedbatConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "ledbat",
        aliases: &[],
        summary: "LEDBAT: steer the one-way queuing delay to a target (100 ms): less than best effort",
        sources: &["RFC 6817", "ns-3 src/internet/model/tcp-ledbat.cc"],
    };
    fn new(cfg: &LedbatConfig, env: &CcEnv) -> Ledbat {
        let ns3 = cfg.rules.unwrap_or(match env.profile {
            Profile::Ns3 => LedbatRules::Ns3,
            Profile::Linux | Profile::Ns2 => LedbatRules::Rfc6817,
        }) == LedbatRules::Ns3;
        // ns-3's AddDelay drops the oldest sample once the size reaches the length
        let len = |n: u32| if ns3 { (n as usize - 1).max(1) } else { n as usize };
        Ledbat {
            cfg: cfg.clone(),
            ss: env.slow_start.rule(SsRule::PerAck),
            base: Ring::new(len(cfg.base_history)),
            current: Ring::new(len(cfg.current_filter)),
            last_rollover: None,
            cwnd: 0.0,
            min_rtt: None,
            queuing: None,
            in_slow_start: cfg.slow_start,
            acc: 0,
            ns3,
            can_ss: cfg.slow_start,
            last_rollover_s: 0,
        }
    }
}

impl Ledbat {
    /// RFC 6817 update_base_delay: a new minimum each minute.
    fn update_base(&mut self, now: Time, delay: Dur) {
        if self.ns3 {
            // ns-3 UpdateBaseDelay: a new entry once the whole seconds since the last rollover
            // (0 at the start) exceed 60
            let secs = now.ns() / 1_000_000_000;
            if self.base.len == 0 {
                self.base.push(delay);
            } else if secs.saturating_sub(self.last_rollover_s) > 60 {
                self.last_rollover_s = secs;
                self.base.push(delay);
            } else if let Some(last) = self.base.last_mut() {
                *last = (*last).min(delay);
            }
            return;
        }
        let minute = now.ns() / 60_000_000_000;
        if self.last_rollover != Some(minute) {
            self.last_rollover = Some(minute);
            self.base.push(delay);
        } else if let Some(last) = self.base.last_mut() {
            *last = (*last).min(delay);
        }
    }

    /// The queuing delay estimate after a sample.
    fn sample(&mut self, now: Time, delay: Dur) -> Dur {
        self.update_base(now, delay);
        self.current.push(delay);
        let q = self.current.min().unwrap_or(delay).saturating_sub(self.base.min().unwrap_or(delay));
        self.queuing = Some(q);
        q
    }

    pub fn queuing_delay(&self) -> Option<Dur> {
        self.queuing
    }

    /// ns-3's `TcpLedbat::IncreaseWindow` on an ACK of new data in Open (ns-3 calls it in
    /// CA_OPEN and CA_LOSS, whether or not the sender is cwnd-limited), with `segs` the
    /// segments `TcpSocketBase::ProcessAck` reports.
    fn increase_ns3(&mut self, w: &mut Window, a: &AckEvent, queuing: Option<Dur>) {
        let mss = w.mss as u64;
        let segs = a.growth_bytes / mss;
        if w.cwnd <= mss {
            self.can_ss = true;
        }
        if self.cfg.slow_start && w.cwnd <= w.ssthresh && self.can_ss {
            // TcpNewReno::SlowStart: one segment for an ACK of at least one
            if segs >= 1 {
                w.cwnd += mss;
            }
            return;
        }
        self.can_ss = false;
        let Some(q) = queuing else {
            // no timestamps: TcpNewReno::CongestionAvoidance
            if segs > 0 {
                w.cwnd += (mss * mss / w.cwnd).max(1);
            }
            return;
        };
        // whole milliseconds, as ns-3's Time::GetMilliSeconds and its timestamp delays
        let target_ms = (self.cfg.target.ns() / 1_000_000) as f64;
        let offset = (target_ms - (q.ns() / 1_000_000) as f64) * self.cfg.gain;
        let cnt = (offset * segs as f64 * mss as f64) as i32; // m_sndCwndCnt, int32_t
        let inc = cnt as f64 / (target_ms * w.cwnd as f64);
        let cwnd = (w.cwnd as f64 + inc * mss as f64) as u32 as u64; // uint32_t += double
        // no allowed increase: the flight before this ACK
        let max_cwnd = a.snd_nxt.saturating_sub(a.snd_una) + segs * mss;
        w.cwnd = cwnd.min(max_cwnd).max(self.cfg.min_cwnd as u64 * mss);
        if w.cwnd <= w.ssthresh {
            w.ssthresh = w.cwnd - 1;
        }
    }
}

impl CongestionControl for Ledbat {
    const ONE_WAY_DELAY: bool = true;
    const STATE: &'static [Field] = &[Field { name: "queuing_delay_s", unit: FieldUnit::Seconds, doc: "current delay (least of the last samples) less the base delay" }];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        let delay = match self.cfg.delay {
            LedbatDelay::Owd => a.owd,
            LedbatDelay::Rtt => a.rtt.inspect(|&r| {
                let m = self.min_rtt.map_or(r, |m| m.min(r));
                self.min_rtt = Some(m);
            }),
        };
        let queuing = delay.map(|d| self.sample(a.now, d));
        if self.ns3 {
            if a.acked_bytes > 0 && matches!(a.ca_state, CaState::Open | CaState::Loss) {
                self.increase_ns3(w, a, queuing);
            }
            return;
        }
        if a.acked_bytes == 0 || a.ca_state == super::CaState::Recovery {
            return;
        }
        let mss = w.mss as u64;
        let Some(q) = queuing else {
            // no delay sample: Reno
            if a.may_grow() {
                let left = slow_start(w, a.growth_bytes, self.ss);
                if left > 0 {
                    cong_avoid_ai(w, &mut self.acc, w.cwnd / mss, left);
                }
            }
            return;
        };
        let target = self.cfg.target.secs_f64();
        let off_target = (target - q.secs_f64()) / target;
        if self.in_slow_start && w.in_slow_start() && (off_target > 0.0 || !self.cfg.ss_exit_on_target) {
            if a.cwnd_limited {
                slow_start(w, a.growth_bytes, self.ss);
            }
            self.cwnd = w.cwnd as f64 / mss as f64;
            return;
        }
        self.in_slow_start = false;
        if self.cwnd == 0.0 || (self.cwnd - w.cwnd as f64 / mss as f64).abs() >= 1.0 {
            // the sender changed cwnd (recovery, timeout): follow it
            self.cwnd = w.cwnd as f64 / mss as f64;
        }
        let acked = a.growth_bytes as f64 / mss as f64;
        // grow only when the window is used; shrinking applies regardless
        if off_target < 0.0 || a.cwnd_limited {
            self.cwnd += self.cfg.gain * off_target * acked / self.cwnd;
        }
        // RFC 6817: the flight size before this ACK's bytes are taken off
        let flight = a.prior_in_flight as f64 / mss as f64;
        self.cwnd = self.cwnd.min(flight + self.cfg.allowed_increase as f64).max(self.cfg.min_cwnd as f64);
        w.cwnd = (self.cwnd * mss as f64) as u64;
        // LEDBAT stays out of slow start from here
        w.ssthresh = w.ssthresh.min(w.cwnd);
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        if self.ns3 {
            // TcpNewReno::GetSsThresh (TcpLedbat keeps it): half the bytes in flight
            return (e.flight_size / 2).max(2 * w.mss as u64);
        }
        self.in_slow_start = false;
        let min = self.cfg.min_cwnd as u64 * w.mss as u64;
        if e.kind == CongestionKind::Timeout && !e.new_episode {
            return w.ssthresh;
        }
        let s = (w.cwnd / 2).max(min);
        self.cwnd = s as f64 / w.mss as f64;
        s
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        out[0] = self.queuing.map_or(f64::NAN, |d| d.secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;

    const MSS: u64 = 1000;

    fn ledbat() -> Ledbat {
        Ledbat::new(&LedbatConfig { slow_start: false, ..Default::default() }, &CcEnv::linux(MSS as u32, 10))
    }

    /// A window of ACKs (one segment each, the flight full) with one-way delay base + `q_ms`.
    fn window(l: &mut Ledbat, w: &mut Window, q_ms: u64, now: Time) -> f64 {
        let before = l.cwnd.max(w.cwnd as f64 / MSS as f64);
        let n = w.cwnd / MSS;
        for _ in 0..n {
            let owd = Dur::from_ms(20 + q_ms);
            l.on_ack(w, &AckEvent { now, owd: Some(owd), prior_in_flight: w.cwnd, ..ack(MSS) });
        }
        l.cwnd - before
    }

    /// off_target = (100 - q) / 100: a window of ACKs changes cwnd by GAIN x off_target
    /// segments: +1, +0.5, 0, -0.5 at 0, 50, 100, 150 ms of queuing delay (the base delay is the
    /// least sample, 20 ms).
    #[test]
    fn window_change_is_proportional_to_the_off_target_delay() {
        for (q, want) in [(0u64, 1.0), (50, 0.5), (100, 0.0), (150, -0.5)] {
            let mut l = ledbat();
            let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
            // the base: one sample at 20 ms
            l.on_ack(&mut w, &AckEvent { owd: Some(Dur::from_ms(20)), acked_bytes: 0, ..ack(0) });
            // and four at the queuing delay, filling the current-delay filter
            for _ in 0..4 {
                l.on_ack(&mut w, &AckEvent { owd: Some(Dur::from_ms(20 + q)), acked_bytes: 0, ..ack(0) });
            }
            let d = window(&mut l, &mut w, q, Time::from_secs(1));
            assert!((d - want).abs() < 0.01, "q {q} ms: {d} segments per window (want {want})");
            assert_eq!(l.queuing_delay(), Some(Dur::from_ms(q)));
        }
    }

    /// The base delay is the least of per-minute minima: a route change to a longer path is
    /// learned once the old minute falls out of the 10-minute history; the current delay is the
    /// least of the last 4 samples.
    #[test]
    fn base_history_rolls_each_minute_and_current_filters_four() {
        let mut l = ledbat();
        let t = |s: u64| Time::from_secs(s);
        assert_eq!(l.sample(t(0), Dur::from_ms(20)), Dur::ZERO);
        // the path lengthens to 50 ms at 30 s: 30 ms queuing delay, for ten minutes
        assert_eq!(l.sample(t(30), Dur::from_ms(50)), Dur::ZERO, "the 20 ms sample is among the last four");
        for k in 0..3 {
            l.sample(t(31 + k), Dur::from_ms(50));
        }
        assert_eq!(l.queuing_delay(), Some(Dur::from_ms(30)));
        for m in 1..10 {
            l.sample(t(60 * m), Dur::from_ms(50));
        }
        assert_eq!(l.queuing_delay(), Some(Dur::from_ms(30)), "minute 0 still in the history");
        l.sample(t(600), Dur::from_ms(50));
        assert_eq!(l.queuing_delay(), Some(Dur::ZERO), "minute 0 rolled out");
    }

    /// cwnd never exceeds the flight plus ALLOWED_INCREASE, nor falls under MIN_CWND; a loss
    /// halves (not below MIN_CWND).
    #[test]
    fn flight_cap_floor_and_loss() {
        let mut l = ledbat();
        let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        l.on_ack(&mut w, &AckEvent { owd: Some(Dur::from_ms(20)), prior_in_flight: 30 * MSS, ..ack(MSS) });
        assert_eq!(w.cwnd, 31 * MSS, "30 in flight before the ACK, + 1");
        let mut w = Window { cwnd: 3 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        for _ in 0..50 {
            l.on_ack(&mut w, &AckEvent { owd: Some(Dur::from_ms(1000)), prior_in_flight: 10 * MSS, ..ack(MSS) });
        }
        assert_eq!(w.cwnd, 2 * MSS);
        let ev = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 0, new_episode: true, lost_bytes: 0 };
        let mut w = Window { cwnd: 40 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        assert_eq!(l.on_congestion(&mut w, &ev), 20 * MSS);
        let mut w = Window { cwnd: 3 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        assert_eq!(l.on_congestion(&mut w, &ev), 2 * MSS);
    }

    fn env(profile: Profile) -> CcEnv {
        CcEnv { profile, ..CcEnv::linux(MSS as u32, 10) }
    }

    fn ns3_ledbat() -> Ledbat {
        Ledbat::new(&LedbatConfig::default(), &env(Profile::Ns3))
    }

    /// The rules follow the profile: ns-3's in the ns3 profile, RFC 6817's elsewhere, unless set.
    #[test]
    fn the_rules_follow_the_profile() {
        assert!(ns3_ledbat().ns3);
        assert!(!Ledbat::new(&LedbatConfig::default(), &env(Profile::Linux)).ns3);
        assert!(!Ledbat::new(&LedbatConfig::default(), &env(Profile::Ns2)).ns3);
        let rfc = LedbatConfig { rules: Some(LedbatRules::Rfc6817), ..Default::default() };
        assert!(!Ledbat::new(&rfc, &env(Profile::Ns3)).ns3);
    }

    /// An ACK of two segments in congestion avoidance, `q_ms` of queuing delay (the base a 20
    /// ms sample, the current filter's three latest samples at 20 + q), `outstanding` segments
    /// after it: ns-3's rules give the window in bytes.
    fn ns3_ca_ack(q_ms: u64, cwnd: u64, outstanding: u64) -> Window {
        let mut l = ns3_ledbat();
        l.can_ss = false;
        let mut w = Window { cwnd, ssthresh: 10 * MSS, mss: MSS as u32 };
        l.on_ack(&mut w, &AckEvent { owd: Some(Dur::from_ms(20)), acked_bytes: 0, ..ack(0) });
        for _ in 0..2 {
            l.on_ack(&mut w, &AckEvent { owd: Some(Dur::from_ms(20 + q_ms)), acked_bytes: 0, ..ack(0) });
        }
        w.cwnd = cwnd;
        let a = AckEvent { owd: Some(Dur::from_ms(20 + q_ms)), snd_una: 100 * MSS, snd_nxt: (100 + outstanding) * MSS, ..ack(2 * MSS) };
        l.on_ack(&mut w, &a);
        w
    }

    /// ns-3's increase in whole bytes: offset x 2 segments x MSS^2 / (TARGET x cwnd), 100 ms and
    /// 100,000 bytes: +20 bytes, 50 ms: +10, 150 ms: -10 (each truncated to the uint32_t
    /// window); cwnd never exceeds the flight before the ACK (the outstanding data after it
    /// plus what it acknowledged), so with the window full it cannot grow; ssthresh stays
    /// below cwnd.
    #[test]
    fn ns3_window_never_exceeds_the_flight_before_the_ack() {
        assert_eq!(ns3_ca_ack(0, 100 * MSS, 200).cwnd, 100_020);
        assert_eq!(ns3_ca_ack(50, 100 * MSS, 200).cwnd, 100_010);
        assert_eq!(ns3_ca_ack(150, 100 * MSS, 200).cwnd, 99_990);
        // 98 outstanding + 2 acknowledged = the window: no growth with an empty queue
        assert_eq!(ns3_ca_ack(0, 100 * MSS, 98).cwnd, 100 * MSS);
        // a window of 100.5 segments with 100 in flight falls to 100
        let w = ns3_ca_ack(0, 100 * MSS + 500, 98);
        assert_eq!((w.cwnd, w.ssthresh), (100 * MSS, 10 * MSS));
        // at or under ssthresh, ssthresh goes one byte under cwnd
        let mut l = ns3_ledbat();
        l.can_ss = false;
        let mut w = Window { cwnd: 20 * MSS, ssthresh: 30 * MSS, mss: MSS as u32 };
        l.on_ack(&mut w, &AckEvent { owd: Some(Dur::from_ms(20)), snd_una: MSS, snd_nxt: 20 * MSS, ..ack(MSS) });
        assert_eq!((w.cwnd, w.ssthresh), (20 * MSS, 20 * MSS - 1));
    }

    /// ns-3's slow start runs while cwnd <= ssthresh until congestion avoidance first runs: a
    /// loss leaves it allowed (NewReno's ssthresh, half the flight), so the first ACK after the
    /// recovery (cwnd = ssthresh) still adds a segment; the next runs congestion avoidance and
    /// ends it, until a timeout brings cwnd to one segment.
    #[test]
    fn ns3_slow_start_until_congestion_avoidance_first_runs() {
        let mut l = ns3_ledbat();
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        let a = AckEvent { owd: Some(Dur::from_ms(20)), snd_una: 100 * MSS, snd_nxt: 300 * MSS, ..ack(2 * MSS) };
        l.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 11 * MSS, "one segment per ACK of two");
        let loss = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 201 * MSS, new_episode: true, lost_bytes: 0 };
        w.ssthresh = l.on_congestion(&mut w, &loss);
        assert_eq!(w.ssthresh, 100_500, "half the flight, in bytes");
        w.cwnd = w.ssthresh; // the recovery's end
        l.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 101_500, "slow start still");
        l.on_ack(&mut w, &a);
        assert!(!l.can_ss && w.cwnd > 101_500, "congestion avoidance: {}", w.cwnd);
        w.cwnd = MSS; // a timeout
        w.ssthresh = 50 * MSS;
        l.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 2 * MSS, "slow start again");
    }

    /// ns-3's filters hold one sample fewer than their lengths: the current delay is the least
    /// of the last three samples, so three at 50 ms over a 20 ms base read 30 ms of queuing
    /// (RFC 6817's four would still hold a 20 ms one).
    #[test]
    fn ns3_filters_hold_one_sample_fewer() {
        let mut l = ns3_ledbat();
        let t = Time::from_secs(1);
        l.sample(t, Dur::from_ms(20));
        for _ in 0..3 {
            l.sample(t, Dur::from_ms(50));
        }
        assert_eq!(l.queuing_delay(), Some(Dur::from_ms(30)));
        let mut rfc = ledbat();
        rfc.sample(t, Dur::from_ms(20));
        for _ in 0..3 {
            rfc.sample(t, Dur::from_ms(50));
        }
        assert_eq!(rfc.queuing_delay(), Some(Dur::ZERO));
        // a base entry rolls over once the whole seconds since the last exceed 60: at 61 s
        let mut l = ns3_ledbat();
        l.sample(Time::from_secs(0), Dur::from_ms(20));
        l.sample(Time::from_secs(60), Dur::from_ms(50));
        assert_eq!(l.base.len, 1);
        l.sample(Time::from_secs(61), Dur::from_ms(50));
        assert_eq!(l.base.len, 2);
    }
}
