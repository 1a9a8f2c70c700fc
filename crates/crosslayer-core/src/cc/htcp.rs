//! H-TCP: the increase grows with the time since the last congestion event, scaled to the RTT,
//! and the decrease adapts to the ratio of the least to the largest RTT (how full the buffer
//! ran), falling back to 1/2 when the throughput moved by more than 20 %.
//!
//! Source: Leith and Shorten, "H-TCP: TCP for high-speed and long-distance networks", PFLDnet
//! 2004, and draft-leith-tcp-htcp-06 (2008); Linux `net/ipv4/tcp_htcp.c`, read for behaviour
//! (not copied). With delta the time since the last congestion event and delta_L = 1 s:
//!
//! ```text
//! alpha_H(delta) = 1                                         delta <= delta_L
//!                = 1 + 10 (delta - delta_L) + ((delta - delta_L) / 2)^2   otherwise
//! alpha = 2 (1 - beta) max(1, alpha_H x clamp(min_rtt / 100 ms, 0.1, 2))   (RTT scaling)
//! ```
//!
//! Congestion avoidance adds alpha / cwnd per segment acknowledged. At a congestion event:
//! `beta = clamp(min_rtt / max_rtt, 0.5, 0.8)` (adaptive backoff, used once the RTT is above
//! 10 ms and after the first event; else 0.5), but 0.5 when the throughput measured over the
//! last epoch differs by more than 20 % from the previous epoch's (bandwidth switch);
//! ssthresh = max(beta x cwnd, 2). max_rtt only rises by samples at most 20 ms above it (Linux's
//! guard against spikes), and decays to `min_rtt + 0.95 (max_rtt - min_rtt)` at each event.
//!
//! Throughput (as Linux `measure_achieved_throughput`): in the Open state, once at least a
//! window's worth of segments (less alpha) and one min_rtt have passed, the rate of that span,
//! counting the segments each ACK acknowledges cumulatively (`pkts_acked`; a segment SACKed
//! before counts when the cumulative ACK passes it, once);
//! within 3 round trips of an event it restarts the estimate (B_i = max_B = the rate), later
//! B_i = 3/4 B_i + 1/4 rate and max_B the largest B_i. The switch compares max_B with the value
//! it had at the previous event.
//!
//! Profile `ns3` follows ns-3's TcpHtcp (3.44), which differs from Linux and the paper:
//! congestion avoidance adds `mss^2 / cwnd + alpha` *bytes* per ACK (whole bytes, at least 1),
//! so alpha counts bytes per ACK where Linux adds alpha segments per window; alpha is `2 (1 -
//! beta) alpha_H` without RTT scaling, refreshed on every ACK; at a congestion event beta is
//! `min_rtt / max_rtt` of the RTTs since the last event, unclamped, when the throughput since
//! the last event (bytes acknowledged in the Open state over the time since it) rose by less
//! than its previous value (ns-3's integer `diff / last <= 0.2`), else 1/2; and ssthresh is
//! `max(2 segments, beta x BytesInFlight)`.
//!
//! Deliberate deviations: times and windows in floating point (Linux: jiffies and 1/128
//! fixed point); alpha is evaluated per ACK (Linux refreshes it each time cwnd grows by one).

use super::law::{grow_per_window, slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, SsRule, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::stack::Profile;
use crate::units::{Dur, Time};

crate::params! {
    /// H-TCP parameters; the defaults are Linux's and the paper's.
    pub struct HtcpConfig {
        /// Scale alpha by min_rtt / 100 ms (within 0.1..2).
        rtt_scaling: bool = true, Flag, range(), "Linux tcp_htcp.c use_rtt_scaling = 1";
        /// Back off by 1/2 when the throughput moved by more than 20 % between epochs.
        bandwidth_switch: bool = true, Flag, range(), "Linux tcp_htcp.c use_bandwidth_switch = 1";
        /// delta_L: the time after a congestion event during which alpha_H is 1.
        delta_l: Dur = Dur::from_secs(1), Time, range(>= Dur::ZERO, <= Dur::from_secs(100)), "Leith & Shorten 2004 (delta_L = 1 s); Linux HZ";
    }
}

const BETA_MIN: f64 = 0.5;
const BETA_MAX: f64 = 0.8;

#[derive(Clone, Debug)]
pub struct Htcp {
    cfg: HtcpConfig,
    ss: SsRule,
    beta: f64,
    /// Adaptive backoff allowed (after the first event, Linux `modeswitch`).
    modeswitch: bool,
    last_cong: Time,
    min_rtt_s: f64,
    max_rtt_s: f64,
    /// Segments of growth accumulated, not yet applied.
    acc: f64,
    /// Throughput measurement: segments since `meas_start`, the smoothed rate B_i and its
    /// largest value max_B (segments/s), max_B at the previous event.
    meas_start: Time,
    meas_segs: u64,
    b_i: f64,
    max_b: f64,
    old_max_b: f64,
    alpha: f64,
    /// ns-3's TcpHtcp (the ns3 profile; `min_rtt_s` and `max_rtt_s` are then the RTT extremes
    /// since the last event): bytes acknowledged in Open since it, and the throughput of this
    /// and the previous epoch (bytes/s, whole).
    ns3: bool,
    ns3_data_sent: u64,
    ns3_throughput: u64,
    ns3_last_throughput: u64,
}

impl Algorithm for Htcp {
    type Config = HtcpConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "htcp",
        aliases: &["h-tcp"],
        summary: "H-TCP: increase growing with the time since the last loss, RTT-scaled; backoff min_rtt / max_rtt in [0.5, 0.8]",
        sources: &["Leith, Shorten, PFLDnet 2004", "draft-leith-tcp-htcp-06", "Linux net/ipv4/tcp_htcp.c"],
    };
    fn new(cfg: &HtcpConfig, env: &CcEnv) -> Htcp {
        Htcp {
            cfg: cfg.clone(),
            ss: env.slow_start.rule(SsRule::PerAck),
            beta: BETA_MIN,
            modeswitch: false,
            last_cong: Time::ZERO,
            min_rtt_s: f64::INFINITY,
            max_rtt_s: 0.0,
            acc: 0.0,
            meas_start: Time::ZERO,
            meas_segs: 0,
            b_i: 0.0,
            max_b: 0.0,
            old_max_b: 0.0,
            alpha: 1.0,
            ns3: env.profile == Profile::Ns3,
            ns3_data_sent: 0,
            ns3_throughput: 0,
            ns3_last_throughput: 0,
        }
    }
}

impl Htcp {
    /// alpha_H(delta) for `delta` seconds since the last congestion event.
    pub fn alpha_h(&self, delta: f64) -> f64 {
        let d = delta - self.cfg.delta_l.secs_f64();
        if d <= 0.0 {
            1.0
        } else {
            1.0 + 10.0 * d + (d / 2.0) * (d / 2.0)
        }
    }

    /// alpha at `now`: 2 (1 - beta) alpha_H, RTT-scaled. The scaled factor is at least 1 (Linux
    /// htcp_alpha_update: `if (!factor) factor = 1`): below the 100 ms reference RTT the increase
    /// in the first second after a loss stays Reno's 2 (1 - beta) per RTT, not a fraction of it.
    fn alpha_at(&self, now: Time) -> f64 {
        let mut f = self.alpha_h(now.since(self.last_cong).secs_f64());
        if self.cfg.rtt_scaling && self.min_rtt_s.is_finite() {
            f = (f * (self.min_rtt_s / 0.1).clamp(0.1, 2.0)).max(1.0);
        }
        (2.0 * (1.0 - self.beta) * f).max(1e-3)
    }

    /// ns-3 TcpHtcp::UpdateAlpha: 2 (1 - beta) alpha_H, at least 1, no RTT scaling.
    fn alpha_ns3(&self, now: Time) -> f64 {
        (2.0 * (1.0 - self.beta) * self.alpha_h(now.since(self.last_cong).secs_f64())).max(1.0)
    }

    /// ns-3 TcpHtcp::PktsAcked and CongestionAvoidance.
    fn on_ack_ns3(&mut self, w: &mut Window, a: &AckEvent) {
        let mss = w.mss as u64;
        if a.ca_state == CaState::Open {
            self.ns3_data_sent += a.acked_bytes.div_ceil(mss) * mss;
        }
        let since = a.now.since(self.last_cong).secs_f64();
        if since > 0.0 {
            self.ns3_throughput = (self.ns3_data_sent as f64 / since) as u64;
        }
        self.alpha = self.alpha_ns3(a.now);
        if let Some(rtt) = a.rtt {
            let r = rtt.secs_f64();
            self.min_rtt_s = self.min_rtt_s.min(r);
            self.max_rtt_s = self.max_rtt_s.max(r);
        }
        if !a.may_grow() {
            return;
        }
        if slow_start(w, a.growth_bytes, self.ss) == 0 {
            return;
        }
        let adder = ((mss * mss) as f64 / w.cwnd as f64 + self.alpha).max(1.0);
        w.cwnd += adder as u64;
    }

    /// ns-3 TcpHtcp::GetSsThresh.
    fn on_congestion_ns3(&mut self, w: &Window, e: &CongestionEvent) -> u64 {
        let mss = w.mss as u64;
        self.last_cong = e.now;
        self.beta = BETA_MIN;
        let (now, last) = (self.ns3_throughput, self.ns3_last_throughput);
        if now > last && last > 0 && (now - last) / last == 0 && self.max_rtt_s > 0.0 {
            self.beta = self.min_rtt_s / self.max_rtt_s;
        }
        self.alpha = self.alpha_ns3(e.now);
        self.min_rtt_s = f64::INFINITY;
        self.max_rtt_s = 0.0;
        self.ns3_last_throughput = self.ns3_throughput;
        self.ns3_throughput = 0;
        self.ns3_data_sent = 0;
        ((e.flight_size as f64 * self.beta) as u64).max(2 * mss)
    }
}

impl CongestionControl for Htcp {
    const STATE: &'static [Field] = &[
        Field { name: "alpha_pkts", unit: FieldUnit::Pkts, doc: "alpha: segments added per window acknowledged" },
        Field { name: "beta", unit: FieldUnit::Ratio, doc: "the backoff factor of the last congestion event" },
        Field { name: "min_rtt_s", unit: FieldUnit::Seconds, doc: "the least RTT" },
        Field { name: "max_rtt_s", unit: FieldUnit::Seconds, doc: "the largest RTT (guarded, decaying)" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        if self.ns3 {
            return self.on_ack_ns3(w, a);
        }
        if let Some(rtt) = a.rtt {
            let r = rtt.secs_f64();
            self.min_rtt_s = self.min_rtt_s.min(r);
            if a.ca_state == CaState::Open {
                if self.max_rtt_s < self.min_rtt_s {
                    self.max_rtt_s = self.min_rtt_s;
                }
                if r > self.max_rtt_s && r <= self.max_rtt_s + 0.020 {
                    self.max_rtt_s = r;
                }
            }
        }
        // Linux measure_achieved_throughput
        if a.ca_state != CaState::Open {
            self.meas_segs = 0;
            self.meas_start = a.now;
        } else {
            self.meas_segs += a.acked_bytes / w.mss as u64; // pkts_acked: cumulatively acknowledged
            let span = a.now.since(self.meas_start).secs_f64();
            let window = (w.cwnd / w.mss as u64).saturating_sub((self.alpha as u64).max(1));
            if self.min_rtt_s.is_finite() && self.meas_segs >= window && span >= self.min_rtt_s {
                let rate = self.meas_segs as f64 / span;
                if a.now.since(self.last_cong).secs_f64() <= 3.0 * self.min_rtt_s {
                    self.b_i = rate;
                    self.max_b = rate;
                } else {
                    self.b_i = 0.75 * self.b_i + 0.25 * rate;
                    self.max_b = self.max_b.max(self.b_i);
                }
                self.meas_segs = 0;
                self.meas_start = a.now;
            }
        }
        if !a.may_grow() {
            return;
        }
        let left = slow_start(w, a.growth_bytes, self.ss);
        if left == 0 {
            return;
        }
        self.alpha = self.alpha_at(a.now);
        grow_per_window(w, &mut self.acc, left, self.alpha);
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        if self.ns3 {
            return self.on_congestion_ns3(w, e);
        }
        let mss = w.mss as u64;
        if !e.new_episode {
            return ((self.beta * w.cwnd as f64) as u64).max(2 * mss);
        }
        // Linux htcp_beta_update
        let switched = self.cfg.bandwidth_switch && self.old_max_b > 0.0 && !(self.max_b >= 0.8 * self.old_max_b && self.max_b <= 1.2 * self.old_max_b);
        self.old_max_b = self.max_b;
        if switched {
            self.beta = BETA_MIN;
            self.modeswitch = false;
        } else if self.modeswitch && self.min_rtt_s > 0.010 && self.max_rtt_s > 0.0 {
            self.beta = (self.min_rtt_s / self.max_rtt_s).clamp(BETA_MIN, BETA_MAX);
        } else {
            self.beta = BETA_MIN;
            self.modeswitch = true;
        }
        // max_rtt decays toward min_rtt (Linux htcp_param_update)
        if self.min_rtt_s.is_finite() && self.max_rtt_s > self.min_rtt_s {
            self.max_rtt_s = self.min_rtt_s + 0.95 * (self.max_rtt_s - self.min_rtt_s);
        }
        self.last_cong = e.now;
        self.acc = 0.0;
        if e.kind == CongestionKind::Timeout {
            return (w.cwnd / 2).max(2 * mss);
        }
        ((self.beta * (w.cwnd / mss) as f64) as u64).max(2) * mss
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        let min = if self.min_rtt_s.is_finite() { self.min_rtt_s } else { f64::NAN };
        out.copy_from_slice(&[self.alpha, self.beta, min, self.max_rtt_s]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;

    fn htcp(cfg: HtcpConfig) -> Htcp {
        Htcp::new(&cfg, &CcEnv::linux(1000, 10))
    }

    /// alpha_H(0.5 s) = 1, alpha_H(2 s) = 1 + 10 + 0.25 = 11.25, alpha_H(5 s) = 1 + 40 + 4 = 45.
    #[test]
    fn alpha_of_delta_at_half_two_and_five_seconds() {
        let h = htcp(HtcpConfig::default());
        assert_eq!(h.alpha_h(0.5), 1.0);
        assert_eq!(h.alpha_h(2.0), 11.25);
        assert_eq!(h.alpha_h(5.0), 45.0);
        // with beta 0.5 and min_rtt 100 ms (scale 1): alpha = 2 x 0.5 x alpha_H
        let mut h = htcp(HtcpConfig::default());
        h.min_rtt_s = 0.1;
        assert_eq!(h.alpha_at(Time::ZERO + Dur::from_secs(5)), 45.0);
        // RTT scaling: 20 ms -> x 0.2; 400 ms -> x 2 (clamped); 5 ms -> x 0.1 (clamped)
        for (rtt, scale) in [(0.02, 0.2), (0.4, 2.0), (0.005, 0.1)] {
            h.min_rtt_s = rtt;
            assert!((h.alpha_at(Time::ZERO + Dur::from_secs(5)) - 45.0 * scale).abs() < 1e-9, "rtt {rtt}");
        }
    }

    /// cwnd grows by alpha per window acknowledged: 5 s after the last event, min RTT 100 ms,
    /// beta 0.5: alpha 45, so 1000 segments acknowledged at cwnd 1000 add about 44.
    #[test]
    fn growth_per_window_is_alpha() {
        let mut h = htcp(HtcpConfig::default());
        h.min_rtt_s = 0.1;
        let mut w = Window { cwnd: 1_000_000, ssthresh: 10_000, mss: 1000 };
        let now = Time::ZERO + Dur::from_secs(5);
        for _ in 0..1000 {
            h.on_ack(&mut w, &AckEvent { now, ..ack(1000) });
        }
        let segs = w.cwnd / 1000;
        assert!((1043..=1045).contains(&segs), "cwnd {segs}");
    }

    /// ns-3's TcpHtcp (the ns3 profile): each ACK in congestion avoidance adds mss^2 / cwnd +
    /// alpha bytes, in whole bytes - at 5 s after the last event (alpha 45) and cwnd 1000
    /// segments, mss^2 / cwnd is just under 1 after the first ACK, so 1000 ACKs add 45 bytes
    /// each: 45 segments, alpha x (ACKs per window) / mss per window, which equals Linux's alpha
    /// only because this window (1000 segments, one ACK each) is the mss (1000 bytes); with
    /// 1448-byte segments, delayed ACKs and 500 segments it is a sixth. At 0.5 s (alpha 1) one
    /// byte each. Its beta is
    /// min_rtt / max_rtt unclamped when the throughput rose by less than its last value, and
    /// ssthresh beta x BytesInFlight.
    #[test]
    fn ns3_adds_alpha_bytes_per_ack_and_backs_off_by_the_rtt_ratio() {
        let env = CcEnv { profile: Profile::Ns3, ..CcEnv::linux(1000, 10) };
        for (ms, want) in [(5000, 1045), (500, 1001)] {
            let mut h = Htcp::new(&HtcpConfig::default(), &env);
            let mut w = Window { cwnd: 1_000_000, ssthresh: 10_000, mss: 1000 };
            let now = Time::from_ms(ms);
            for _ in 0..1000 {
                h.on_ack(&mut w, &AckEvent { now, ..ack(1000) });
            }
            assert_eq!(w.cwnd / 1000, want, "{ms} ms after the last event");
        }
        let mut h = Htcp::new(&HtcpConfig::default(), &env);
        let w = Window { cwnd: 100_000, ssthresh: 10_000, mss: 1000 };
        let ev = |s: u64| CongestionEvent { now: Time::ZERO + Dur::from_secs(s), kind: CongestionKind::Loss, flight_size: 100_000, new_episode: true, lost_bytes: 0 };
        (h.min_rtt_s, h.max_rtt_s, h.ns3_last_throughput, h.ns3_throughput) = (0.03, 0.1, 1000, 1500);
        assert_eq!(h.on_congestion(&mut w.clone(), &ev(1)), 30_000, "beta 0.3, not clamped to 0.5");
        (h.min_rtt_s, h.max_rtt_s, h.ns3_last_throughput, h.ns3_throughput) = (0.03, 0.1, 1000, 2500);
        assert_eq!(h.on_congestion(&mut w.clone(), &ev(2)), 50_000, "throughput more than doubled: 1/2");
    }

    /// Adaptive backoff: the first event backs off by 1/2 and enables the adaptive mode; then
    /// beta = min_rtt / max_rtt within [0.5, 0.8]; a throughput change of more than 20 % gives 1/2.
    #[test]
    fn adaptive_backoff_and_bandwidth_switch() {
        let ev = |s| CongestionEvent { now: Time::ZERO + Dur::from_secs(s), kind: CongestionKind::Loss, flight_size: 0, new_episode: true, lost_bytes: 0 };
        let mut h = htcp(HtcpConfig::default());
        let mut w = Window { cwnd: 100_000, ssthresh: 10_000, mss: 1000 };
        h.min_rtt_s = 0.04;
        h.max_rtt_s = 0.06;
        h.max_b = 1000.0;
        assert_eq!(h.on_congestion(&mut w, &ev(1)), 50_000);
        assert!(h.modeswitch);
        h.max_b = 1100.0; // +10 %: no switch
        h.max_rtt_s = 0.06;
        let ss = h.on_congestion(&mut w, &ev(2));
        assert!((h.beta - 0.04 / 0.06).abs() < 1e-12);
        assert_eq!(ss, 66_000);
        assert!((h.max_rtt_s - (0.04 + 0.95 * 0.02)).abs() < 1e-12, "max_rtt decays");
        h.max_rtt_s = 0.042; // beta would be 0.95: clamped to 0.8
        h.max_b = 1100.0;
        h.on_congestion(&mut w, &ev(3));
        assert_eq!(h.beta, 0.8);
        h.max_b = 1500.0; // +36 %: bandwidth switch
        h.on_congestion(&mut w, &ev(4));
        assert_eq!(h.beta, 0.5);
        assert!(!h.modeswitch);
        // max_rtt rises only by samples at most 20 ms above it
        let mut h = htcp(HtcpConfig::default());
        for ms in [40, 45, 90, 60] {
            h.on_ack(&mut w, &AckEvent { rtt: Some(Dur::from_ms(ms)), cwnd_limited: false, ..ack(1000) });
        }
        assert_eq!((h.min_rtt_s, h.max_rtt_s), (0.04, 0.06));
    }
}
