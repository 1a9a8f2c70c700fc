//! HighSpeed TCP: above a low window, a larger increase a(w) and a smaller decrease b(w) that
//! grow with the window, so that a window of 83,000 segments survives a loss rate of 1e-7.
//!
//! Source: RFC 3649 (Floyd, 2003), sections 5 and Appendix B; Linux
//! `net/ipv4/tcp_highspeed.c`, read for behaviour (not copied). For w <= Low_Window (38) it is
//! Reno. Above, with W = 83000 (High_Window), P = 1e-7 (High_P), B = 0.1 (High_Decrease):
//!
//! ```text
//! b(w) = (B - 0.5) (ln w - ln 38) / (ln W - ln 38) + 0.5
//! p(w) = 0.078 / w^1.2
//! a(w) = w^2 p(w) 2 b(w) / (2 - b(w))
//! ```
//!
//! Congestion avoidance adds a(w) segments per window acknowledged (a(w)/w per segment); a loss
//! leaves (1 - b(w)) w.
//!
//! `rule = "linux"` (default) follows Linux's steps: a(w) in whole segments (Linux walks a table
//! whose rows are the windows where a(w) reaches the next integer) and b(w) in 1/256ths (its
//! `md >> 8`). Here those steps are computed from the RFC's formulas (a rounded to the nearest
//! integer, b to the nearest 1/256) rather than from Linux's 73-row table; the table's rows were
//! not compared one by one. `rule = "rfc3649"` uses the formulas unrounded.
//!
//! `rule = "ns3"` (the ns3 profile's default) is ns-3 3.44's `TcpHighSpeed` (`tcp-highspeed.cc`,
//! read for behaviour): a(w) and b(w) from RFC 3649 Appendix B's 73-row table, each window
//! taking the row of the first tabulated window at or above it (w in (118, 221]: a = 3, b =
//! 0.41), so a(w) is the formula's rounded up and b(w) the next row's, smaller; beyond the last
//! row (94,717) a = 73, b = 0.09. Congestion avoidance counts a(w) per segment acknowledged
//! towards cwnd (in whole segments, cwnd snapped to them), whether or not the sender is
//! cwnd-limited; a loss and a timeout alike leave `max(2, floor(flight x (1 - b(flight))))`
//! segments, flight the bytes in flight in whole segments (`GetSsThresh(tcb, bytesInFlight)`).
//! (Linux walks the same table, with b in 1/256ths and one increment per ACK; the `linux` rule
//! above rounds the formulas instead, which gives Linux's steps only at the tabulated windows.)
//!
//! Above High_Window, a(w) and b(w) keep their High_Window values, as Linux's table keeps its
//! last row (RFC 3649 defines the function up to High_Window; extrapolated, b(w) falls below 0
//! near 567,000 segments and a loss would raise the window). `low_window` must be below
//! `high_window` (equal, b(w) is 0/0).

use super::law::{grow_per_window, slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, SsRule, Window};
use crate::params::Problem;
use crate::stack::Profile;
use crate::registry::{Algorithm, Field, FieldUnit, Info};

crate::choice! {
    /// How a(w) and b(w) are evaluated.
    pub enum HighSpeedRule {
        /// Linux's steps: a(w) in whole segments, b(w) in 1/256ths.
        Linux = "linux",
        /// RFC 3649's formulas, unrounded.
        Rfc3649 = "rfc3649",
        /// ns-3 3.44's TcpHighSpeed: RFC 3649 Appendix B's table.
        Ns3 = "ns3",
    }
}

/// RFC 3649 Appendix B: the windows (segments) up to which a(w) is 1, 2, ..., 73 (ns-3 3.44's
/// `TcpHighSpeed::TableLookupA` holds the same rows).
const TABLE_W: [u64; 73] = [
    38, 118, 221, 347, 495, 663, 851, 1058, 1284, 1529, 1793, 2076,
    2378, 2699, 3039, 3399, 3778, 4177, 4596, 5036, 5497, 5979, 6483, 7009,
    7558, 8130, 8726, 9346, 9991, 10661, 11358, 12082, 12834, 13614, 14424, 15265,
    16137, 17042, 17981, 18955, 19965, 21013, 22101, 23230, 24402, 25618, 26881, 28193,
    29557, 30975, 32450, 33986, 35586, 37253, 38992, 40808, 42707, 44694, 46776, 48961,
    51258, 53667, 56230, 58932, 61799, 64851, 68113, 71617, 75401, 79517, 84035, 89053,
    94717,
];

/// RFC 3649 Appendix B: b(w) at each row of [`TABLE_W`], two decimals (ns-3 3.44's
/// `TcpHighSpeed::TableLookupB`; beyond the last row ns-3 returns 0.09).
const TABLE_B: [f64; 73] = [
    0.50, 0.44, 0.41, 0.38, 0.37, 0.35, 0.34, 0.33, 0.32, 0.31, 0.30, 0.29,
    0.28, 0.28, 0.27, 0.27, 0.26, 0.26, 0.25, 0.25, 0.24, 0.24, 0.23, 0.23,
    0.22, 0.22, 0.22, 0.21, 0.21, 0.21, 0.20, 0.20, 0.20, 0.19, 0.19, 0.19,
    0.19, 0.18, 0.18, 0.18, 0.17, 0.17, 0.17, 0.17, 0.16, 0.16, 0.16, 0.16,
    0.15, 0.15, 0.15, 0.15, 0.14, 0.14, 0.14, 0.14, 0.13, 0.13, 0.13, 0.13,
    0.13, 0.12, 0.12, 0.12, 0.12, 0.11, 0.11, 0.11, 0.10, 0.10, 0.10, 0.10,
    0.09,
];

/// ns-3's table lookup: a(w) and b(w) of the first row at or above `w` segments (73 and 0.09
/// beyond the table).
fn table_a_b(w: u64) -> (u64, f64) {
    match TABLE_W.iter().position(|&row| w <= row) {
        Some(i) => (i as u64 + 1, TABLE_B[i]),
        None => (73, 0.09),
    }
}

crate::params! {
    /// HighSpeed TCP parameters; the defaults are RFC 3649's.
    pub struct HighSpeedConfig {
        /// Window (segments) up to which HighSpeed TCP is Reno.
        low_window: f64 = 38.0, Number("pkts"), range(>= 1.0), "RFC 3649 section 5 Low_Window = 38";
        /// Window (segments) at which the decrease is high_decrease.
        high_window: f64 = 83000.0, Number("pkts"), range(> 1.0), "RFC 3649 section 5 High_Window = 83000";
        /// b(w) at high_window.
        high_decrease: f64 = 0.1, Ratio, range(> 0.0, < 0.5), "RFC 3649 section 5 High_Decrease = 0.1";
        /// Steps of a(w) and b(w): "linux" (the formulas, a rounded to a whole segment, b to 1/256), "rfc3649" (the formulas unrounded) or "ns3" (ns-3's TcpHighSpeed: RFC 3649 Appendix B's table, the loss cut from the flight); unset: the TCP profile's (ns3 in the ns3 profile with the RFC's low_window, high_window and high_decrease, linux otherwise).
        rule: Option<HighSpeedRule> = None, Choice, range(), "linux: tcp_highspeed.c (a table of the RFC's values, approximated by the rounded formulas); ns3: ns-3 3.44 tcp-highspeed.cc (TableLookupA/B: RFC 3649 Appendix B; CongestionAvoidance: m_ackCnt += segmentsAcked x a; GetSsThresh from bytesInFlight)";
    }
    check = HighSpeedConfig::check;
}

impl HighSpeedConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        let d = HighSpeedConfig::default();
        let rfc_defaults = (self.low_window, self.high_window, self.high_decrease) == (d.low_window, d.high_window, d.high_decrease);
        if self.rule == Some(HighSpeedRule::Ns3) && !rfc_defaults {
            out.push(Problem::new("rule", "\"ns3\" is RFC 3649's table, for its low_window 38, high_window 83000 and high_decrease 0.1: leave those at their defaults or choose \"linux\" or \"rfc3649\"".to_string()));
        }
        if self.low_window >= self.high_window {
            out.push(Problem::new("low_window", format!("must be below high_window ({}): b(w) falls from 0.5 at low_window to high_decrease at high_window", crate::params::num(self.high_window))));
        }
    }
}

#[derive(Clone, Debug)]
pub struct HighSpeed {
    cfg: HighSpeedConfig,
    rule: HighSpeedRule,
    ss: SsRule,
    /// Segments of window growth accumulated, not yet applied.
    acc: f64,
    /// ns-3's `m_ackCnt`: segments acknowledged times a(w), towards the next whole segment.
    ack_cnt: u64,
}

impl Algorithm for HighSpeed {
    type Config = HighSpeedConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "highspeed",
        aliases: &["hstcp"],
        summary: "HighSpeed TCP: increase a(w) and decrease b(w) growing with the window above 38 segments (RFC 3649)",
        sources: &["RFC 3649", "Linux net/ipv4/tcp_highspeed.c"],
    };
    fn new(cfg: &HighSpeedConfig, env: &CcEnv) -> HighSpeed {
        let d = HighSpeedConfig::default();
        let rfc_defaults = (cfg.low_window, cfg.high_window, cfg.high_decrease) == (d.low_window, d.high_window, d.high_decrease);
        let rule = cfg.rule.unwrap_or(match env.profile {
            Profile::Ns3 if rfc_defaults => HighSpeedRule::Ns3,
            _ => HighSpeedRule::Linux,
        });
        HighSpeed { cfg: cfg.clone(), rule, ss: env.slow_start.rule(SsRule::PerAck), acc: 0.0, ack_cnt: 0 }
    }
}

impl HighSpeed {
    /// b(w) and a(w) for a window of `w` segments.
    pub fn a_b(&self, w: f64) -> (f64, f64) {
        let c = &self.cfg;
        if self.rule == HighSpeedRule::Ns3 {
            let (a, b) = table_a_b(w as u64);
            return (a as f64, b);
        }
        if w <= c.low_window {
            return (1.0, 0.5);
        }
        // Above high_window a(w) and b(w) keep their values there, as Linux's table keeps its last
        // row: extrapolated, b(w) would fall below 0 (a loss would raise the window).
        let w = w.min(c.high_window);
        let b = (c.high_decrease - 0.5) * (w.ln() - c.low_window.ln()) / (c.high_window.ln() - c.low_window.ln()) + 0.5;
        let p = 0.078 / w.powf(1.2);
        let a = w * w * p * 2.0 * b / (2.0 - b);
        match self.rule {
            HighSpeedRule::Rfc3649 => (a.max(1.0), b),
            HighSpeedRule::Linux | HighSpeedRule::Ns3 => (a.round().max(1.0), (b * 256.0).round() / 256.0),
        }
    }
}

impl CongestionControl for HighSpeed {
    const STATE: &'static [Field] = &[
        Field { name: "a_pkts", unit: FieldUnit::Pkts, doc: "a(w): segments added per window acknowledged" },
        Field { name: "b", unit: FieldUnit::Ratio, doc: "b(w): the fraction of the window a loss takes" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        if self.rule == HighSpeedRule::Ns3 {
            // TcpNewReno::IncreaseWindow (ACKs of new data outside recovery, cwnd-limited or
            // not): slow start, then TcpHighSpeed::CongestionAvoidance with what is left
            if a.acked_bytes == 0 || matches!(a.ca_state, CaState::Recovery | CaState::Disorder) {
                return;
            }
            let mss = w.mss as u64;
            let left = slow_start(w, a.growth_bytes, self.ss) / mss;
            if w.in_slow_start() || left == 0 {
                return;
            }
            let mut segs = w.cwnd / mss;
            let old = segs;
            self.ack_cnt += left * table_a_b(segs).0;
            while self.ack_cnt >= segs {
                self.ack_cnt -= segs;
                segs += 1;
            }
            if segs != old {
                w.cwnd = segs * mss;
            }
            return;
        }
        if !a.may_grow() {
            return;
        }
        let left = slow_start(w, a.growth_bytes, self.ss);
        if left == 0 {
            return;
        }
        let (inc, _) = self.a_b(w.cwnd as f64 / w.mss as f64);
        grow_per_window(w, &mut self.acc, left, inc);
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        self.acc = 0.0;
        let mss = w.mss as u64;
        if self.rule == HighSpeedRule::Ns3 {
            // TcpHighSpeed::GetSsThresh, at a loss and a timeout alike: the flight in whole
            // segments, less b of that window
            let segs = e.flight_size / mss;
            let b = table_a_b(segs).1;
            return ((segs as f64 * (1.0 - b)).max(2.0) as u64) * mss;
        }
        if e.kind == CongestionKind::Timeout {
            return (w.cwnd / 2).max(2 * mss);
        }
        let segs = w.cwnd as f64 / mss as f64;
        let (_, b) = self.a_b(segs);
        (((1.0 - b) * segs) as u64 * mss).max(2 * mss)
    }

    fn state(&self, w: &Window, out: &mut [f64]) {
        let (a, b) = self.a_b(w.cwnd as f64 / w.mss as f64);
        out.copy_from_slice(&[a, b]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;
    use crate::units::Time;

    fn hs(rule: HighSpeedRule) -> HighSpeed {
        HighSpeed::new(&HighSpeedConfig { rule: Some(rule), ..Default::default() }, &CcEnv::linux(1000, 10))
    }

    /// The formulas at w = 38 (Reno: a 1, b 0.5), w = 1000 (b 0.330, a 7.74; Linux's steps 8 and
    /// 84/256), w = 1058 (a 8, b 0.33, a row of RFC 3649's Appendix B table), w = 83,000 (b 0.1,
    /// a 70.7; Linux's steps 71 and 26/256).
    #[test]
    fn a_and_b_at_38_1000_and_83000() {
        let rfc = hs(HighSpeedRule::Rfc3649);
        assert_eq!(rfc.a_b(38.0), (1.0, 0.5));
        let (a, b) = rfc.a_b(1000.0);
        assert!((b - 0.3299).abs() < 1e-3 && (a - 7.74).abs() < 0.01, "w 1000: a {a}, b {b}");
        let (a, b) = rfc.a_b(1058.0);
        assert!((b - 0.33).abs() < 0.005 && (a - 8.0).abs() < 0.15, "w 1058: a {a}, b {b}");
        let (a, b) = rfc.a_b(83000.0);
        assert!((b - 0.1).abs() < 1e-12 && (a - 70.7).abs() < 0.1, "w 83000: a {a}, b {b}");
        let linux = hs(HighSpeedRule::Linux);
        assert_eq!(linux.a_b(1000.0), (8.0, 84.0 / 256.0));
        assert_eq!(linux.a_b(83000.0), (71.0, 26.0 / 256.0));
        assert_eq!(linux.a_b(20.0), (1.0, 0.5));
    }

    /// ns-3's table (RFC 3649 Appendix B): each window takes the row at or above it, a(w) rounded
    /// up and the next row's b; 73 and 0.09 beyond the last row. The linux rule's rounded
    /// formulas agree at a row (1058) and not between rows (60: a 1 against 2, b 0.477 against
    /// 0.44).
    #[test]
    fn ns3_table_rows() {
        let ns3 = hs(HighSpeedRule::Ns3);
        for (w, a, b) in [(10.0, 1.0, 0.5), (38.0, 1.0, 0.5), (39.0, 2.0, 0.44), (118.0, 2.0, 0.44), (119.0, 3.0, 0.41), (1000.0, 8.0, 0.33), (94717.0, 73.0, 0.09), (200000.0, 73.0, 0.09)] {
            assert_eq!(ns3.a_b(w), (a, b), "w {w}");
        }
        let linux = hs(HighSpeedRule::Linux);
        assert_eq!(linux.a_b(1058.0).0, 8.0);
        assert_eq!(linux.a_b(60.0), (1.0, 122.0 / 256.0));
    }

    /// The rule follows the profile: ns-3's table in the ns3 profile (with the RFC's constants,
    /// which the table is), the rounded formulas elsewhere; the table with other constants is
    /// refused.
    #[test]
    fn the_rule_follows_the_profile() {
        let env = |profile| CcEnv { profile, ..CcEnv::linux(1000, 10) };
        assert_eq!(HighSpeed::new(&HighSpeedConfig::default(), &env(Profile::Ns3)).rule, HighSpeedRule::Ns3);
        assert_eq!(HighSpeed::new(&HighSpeedConfig::default(), &env(Profile::Linux)).rule, HighSpeedRule::Linux);
        let other = HighSpeedConfig { low_window: 50.0, ..Default::default() };
        assert_eq!(HighSpeed::new(&other, &env(Profile::Ns3)).rule, HighSpeedRule::Linux);
        let mut out = vec![];
        HighSpeedConfig { rule: Some(HighSpeedRule::Ns3), ..other }.check(&mut out);
        assert_eq!(out.len(), 1);
    }

    /// ns-3's increase: a(w) per segment acknowledged towards cwnd, whole segments: at 60
    /// segments (a = 2) one more per 30 acknowledged, where the linux rule (a = 1) adds one per
    /// 60; at 200 (a = 3), 100 ACKs of 2 segments add 2 with 199 counted. Its cut is taken from
    /// the flight: 1000 segments in flight leave 669 (b 0.33; 1000 x (1 - 0.33) is 669.99... in
    /// binary floating point, truncated as ns-3 does), 60 leave 33 (b 0.44), at a loss and a
    /// timeout alike, whatever cwnd is.
    #[test]
    fn ns3_increase_and_decrease() {
        let mss = 1000u64;
        let mut h = hs(HighSpeedRule::Ns3);
        let mut w = Window { cwnd: 60 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        for _ in 0..30 {
            h.on_ack(&mut w, &ack(mss));
        }
        assert_eq!((w.cwnd, h.ack_cnt), (61 * mss, 0));
        let mut l = hs(HighSpeedRule::Linux);
        let mut w = Window { cwnd: 60 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        for _ in 0..30 {
            l.on_ack(&mut w, &ack(mss));
        }
        assert_eq!(w.cwnd, 60 * mss);
        let mut h = hs(HighSpeedRule::Ns3);
        let mut w = Window { cwnd: 200 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        for _ in 0..100 {
            h.on_ack(&mut w, &ack(2 * mss));
        }
        assert_eq!((w.cwnd, h.ack_cnt), (202 * mss, 199));
        let mut w = Window { cwnd: 2000 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        for (kind, flight, want) in [(CongestionKind::Loss, 1000, 669), (CongestionKind::Loss, 60, 33), (CongestionKind::Timeout, 1000, 669), (CongestionKind::Loss, 3, 2)] {
            let ev = CongestionEvent { now: Time::ZERO, kind, flight_size: flight * mss, new_episode: true, lost_bytes: 0 };
            assert_eq!(h.on_congestion(&mut w, &ev), want * mss, "{kind:?}, flight {flight}");
        }
    }

    /// Congestion avoidance adds a(w) segments per window acknowledged; a loss leaves (1 - b) w.
    #[test]
    fn increase_and_decrease() {
        let mut h = hs(HighSpeedRule::Linux);
        let mss = 1000u64;
        let mut w = Window { cwnd: 1000 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        for _ in 0..1000 {
            h.on_ack(&mut w, &ack(mss));
        }
        // 8 / w per segment while w grows from 1000: 7.97 segments, 7 applied so far
        assert_eq!(w.cwnd, 1007 * mss, "a(1000) = 8 per window");
        let ev = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 0, new_episode: true, lost_bytes: 0 };
        let ss = h.on_congestion(&mut w, &ev);
        let (_, b) = h.a_b(1007.0);
        assert_eq!(b, 84.0 / 256.0);
        assert_eq!(ss, ((1.0 - b) * 1007.0) as u64 * mss);
        let mut w = Window { cwnd: 30 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        assert_eq!(h.on_congestion(&mut w, &ev), 15 * mss, "Reno below 38");
    }
}
