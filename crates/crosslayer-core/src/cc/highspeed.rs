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
//! Above High_Window, a(w) and b(w) keep their High_Window values, as Linux's table keeps its
//! last row (RFC 3649 defines the function up to High_Window; extrapolated, b(w) falls below 0
//! near 567,000 segments and a loss would raise the window). `low_window` must be below
//! `high_window` (equal, b(w) is 0/0).

use super::law::{grow_per_window, slow_start};
use super::{AckEvent, CcEnv, CongestionControl, CongestionEvent, CongestionKind, SsRule, Window};
use crate::params::Problem;
use crate::registry::{Algorithm, Field, FieldUnit, Info};

crate::choice! {
    /// How a(w) and b(w) are evaluated.
    pub enum HighSpeedRule {
        /// Linux's steps: a(w) in whole segments, b(w) in 1/256ths.
        Linux = "linux",
        /// RFC 3649's formulas, unrounded.
        Rfc3649 = "rfc3649",
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
        /// Steps of a(w) and b(w).
        rule: HighSpeedRule = HighSpeedRule::Linux, Choice, range(), "Linux tcp_highspeed.c (a table of the RFC's values)";
    }
    check = HighSpeedConfig::check;
}

impl HighSpeedConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.low_window >= self.high_window {
            out.push(Problem::new("low_window", format!("must be below high_window ({}): b(w) falls from 0.5 at low_window to high_decrease at high_window", crate::params::num(self.high_window))));
        }
    }
}

#[derive(Clone, Debug)]
pub struct HighSpeed {
    cfg: HighSpeedConfig,
    ss: SsRule,
    /// Segments of window growth accumulated, not yet applied.
    acc: f64,
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
        HighSpeed { cfg: cfg.clone(), ss: env.slow_start.rule(SsRule::PerAck), acc: 0.0 }
    }
}

impl HighSpeed {
    /// b(w) and a(w) for a window of `w` segments.
    pub fn a_b(&self, w: f64) -> (f64, f64) {
        let c = &self.cfg;
        if w <= c.low_window {
            return (1.0, 0.5);
        }
        // Above high_window a(w) and b(w) keep their values there, as Linux's table keeps its last
        // row: extrapolated, b(w) would fall below 0 (a loss would raise the window).
        let w = w.min(c.high_window);
        let b = (c.high_decrease - 0.5) * (w.ln() - c.low_window.ln()) / (c.high_window.ln() - c.low_window.ln()) + 0.5;
        let p = 0.078 / w.powf(1.2);
        let a = w * w * p * 2.0 * b / (2.0 - b);
        match c.rule {
            HighSpeedRule::Rfc3649 => (a.max(1.0), b),
            HighSpeedRule::Linux => (a.round().max(1.0), (b * 256.0).round() / 256.0),
        }
    }
}

impl CongestionControl for HighSpeed {
    const STATE: &'static [Field] = &[
        Field { name: "a_pkts", unit: FieldUnit::Pkts, doc: "a(w): segments added per window acknowledged" },
        Field { name: "b", unit: FieldUnit::Ratio, doc: "b(w): the fraction of the window a loss takes" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
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
        HighSpeed::new(&HighSpeedConfig { rule, ..Default::default() }, &CcEnv::linux(1000, 10))
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
        let ev = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 0, new_episode: true };
        let ss = h.on_congestion(&mut w, &ev);
        let (_, b) = h.a_b(1007.0);
        assert_eq!(b, 84.0 / 256.0);
        assert_eq!(ss, ((1.0 - b) * 1007.0) as u64 * mss);
        let mut w = Window { cwnd: 30 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        assert_eq!(h.on_congestion(&mut w, &ev), 15 * mss, "Reno below 38");
    }
}
