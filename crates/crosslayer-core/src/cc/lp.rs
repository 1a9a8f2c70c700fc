//! TCP-LP (Low Priority): Reno that backs off early, when the smoothed one-way delay rises
//! past 15 % of its observed range, so that it uses only the capacity other flows leave.
//!
//! Source: Kuzmanovic and Knightly, "TCP-LP: a distributed algorithm for low priority data
//! transfer", IEEE INFOCOM 2003; Linux `net/ipv4/tcp_lp.c`, read for behaviour (not copied).
//! As Linux runs it, on each ACK with a one-way delay sample (TSval - TSecr):
//! * `owd_min` and `owd_max` (the latter the second-largest sample, to skip a burst) and the
//!   smoothed `sowd = 7/8 sowd + 1/8 owd`;
//! * the inference window is 3 x (now - TSecr), about three RTTs;
//! * if `sowd >= owd_min + 15 % (owd_max - owd_min)`: an early congestion indication. cwnd =
//!   1 if it comes within the inference window of the previous one, else cwnd / 2 (at least
//!   1); the range restarts at `[sowd, 2 sowd]`; the time is recorded;
//! * within the inference window of the last indication the window does not grow; otherwise
//!   Reno's rule. Losses are Reno's.
//!
//! Linux restarts the range at `[sowd, 2 sowd]` at each indication (a "FIXME" in its source);
//! the paper keeps the observed `[d_min, d_max]`, which includes the delay of a full buffer
//! seen once (`reset_range = false`). After a reset the threshold is 15 % above the smoothed
//! delay, and the next lower sample pulls owd_min back down: with a short base delay, a few
//! milliseconds of queue trigger the next indication (see docs/models/lp.md).
//!
//! Linux sets cwnd only at an indication, so after the inference window the flow slow-starts
//! again; `set_ssthresh = true` also sets ssthresh to the new window (the paper's additive
//! growth after the inference time-out).
//!
//! Linux's rule fires on the first sample (a zero range puts the threshold at the sample); the
//! range then starts at `[owd, 2 owd]`, so a flow halves once at its start. Kept.
//!
//! Deviations: delays in nanoseconds (Linux: the timestamp clock, milliseconds); Linux estimates
//! the remote timestamp clock rate first, which one simulated clock makes unnecessary.

use super::law::{cong_avoid_ai, slow_start};
use super::{AckEvent, CcEnv, CongestionControl, CongestionEvent, SsRule, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Dur, Time};

crate::params! {
    /// TCP-LP parameters; the default is Linux's and the paper's.
    pub struct LpConfig {
        /// Early congestion when the smoothed delay passes this fraction of [owd_min, owd_max].
        threshold: f64 = 0.15, Ratio, range(> 0.0, < 1.0), "Linux tcp_lp.c (15 / 100); Kuzmanovic & Knightly 2003: delta = 0.15";
        /// At each indication restart the delay range at [sowd, 2 sowd] (Linux); false keeps the range observed (the paper).
        reset_range: bool = true, Flag, range(), "Linux tcp_lp.c tcp_lp_pkts_acked (the FIXME reset); Kuzmanovic & Knightly 2003 keep d_min, d_max";
        /// An indication also sets ssthresh to the new cwnd (at least 2 segments), so growth resumes additively (the paper); Linux sets cwnd only and slow-starts again.
        set_ssthresh: bool = false, Flag, range(), "Linux tcp_lp.c sets snd_cwnd only; Kuzmanovic & Knightly 2003: additive increase after the inference time-out";
    }
}

#[derive(Clone, Debug)]
pub struct Lp {
    threshold: f64,
    reset_range: bool,
    set_ssthresh: bool,
    ss: SsRule,
    /// Delays in seconds.
    sowd: Option<f64>,
    owd_min: f64,
    owd_max: f64,
    owd_max_rsv: f64,
    inference: Dur,
    last_drop: Option<Time>,
    /// Segments acknowledged toward the next increment (Linux snd_cwnd_cnt).
    acc: u64,
    indications: u64,
}

impl Algorithm for Lp {
    type Config = LpConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "lp",
        aliases: &["tcp-lp"],
        summary: "TCP-LP: Reno that halves (or drops to 1 within 3 RTTs of the last) when the smoothed one-way delay passes 15 % of its range",
        sources: &["Kuzmanovic, Knightly, IEEE INFOCOM 2003", "Linux net/ipv4/tcp_lp.c"],
    };
    fn new(cfg: &LpConfig, env: &CcEnv) -> Lp {
        Lp { threshold: cfg.threshold, reset_range: cfg.reset_range, set_ssthresh: cfg.set_ssthresh, ss: env.slow_start.rule(SsRule::PerAck), sowd: None, owd_min: f64::INFINITY, owd_max: 0.0, owd_max_rsv: 0.0, inference: Dur::ZERO, last_drop: None, acc: 0, indications: 0 }
    }
}

impl Lp {
    /// Linux `tcp_lp_rtt_sample`.
    fn sample(&mut self, owd: f64) {
        self.owd_min = self.owd_min.min(owd);
        if owd > self.owd_max {
            if owd > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0.0 { owd } else { self.owd_max_rsv };
                self.owd_max_rsv = owd;
            } else {
                self.owd_max = owd;
            }
        }
        self.sowd = Some(match self.sowd {
            Some(s) => s + (owd - s) / 8.0,
            None => owd,
        });
    }

    fn within_inference(&self, now: Time) -> bool {
        self.last_drop.is_some_and(|t| now - t < self.inference)
    }

    pub fn indications(&self) -> u64 {
        self.indications
    }
}

impl CongestionControl for Lp {
    const STATE: &'static [Field] = &[
        Field { name: "sowd_s", unit: FieldUnit::Seconds, doc: "smoothed one-way delay" },
        Field { name: "early_indications", unit: FieldUnit::Count, doc: "early congestion indications so far" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        let mss = w.mss as u64;
        if let Some(owd) = a.owd {
            self.sample(owd.secs_f64());
        }
        // the inference window: three times the age of the echoed timestamp, an RTT
        if let Some(rtt) = a.rtt {
            self.inference = rtt.mul(3);
        }
        let within_inf = self.within_inference(a.now);
        if let Some(s) = self.sowd {
            let thr = self.owd_min + self.threshold * (self.owd_max - self.owd_min).max(0.0);
            // the paper infers congestion only within an observed range; Linux's rule also
            // fires on a zero range (its first sample)
            let ranged = self.reset_range || self.owd_max > self.owd_min;
            if s >= thr && a.acked_bytes > 0 && ranged {
                // early congestion indication
                if self.reset_range {
                    self.owd_min = s;
                    self.owd_max = 2.0 * s;
                    self.owd_max_rsv = 2.0 * s;
                }
                w.cwnd = if within_inf { mss } else { (w.cwnd / 2).max(mss) };
                if self.set_ssthresh {
                    w.ssthresh = w.cwnd.max(2 * mss);
                }
                self.last_drop = Some(a.now);
                self.indications += 1;
                return;
            }
        }
        if within_inf || !a.may_grow() {
            return;
        }
        let left = slow_start(w, a.growth_bytes, self.ss);
        if left > 0 {
            cong_avoid_ai(w, &mut self.acc, w.cwnd / mss, left);
        }
    }

    fn on_congestion(&mut self, w: &mut Window, _e: &CongestionEvent) -> u64 {
        (w.cwnd / 2).max(2 * w.mss as u64)
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        out.copy_from_slice(&[self.sowd.unwrap_or(f64::NAN), self.indications as f64]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;

    const MSS: u64 = 1000;

    fn lp() -> Lp {
        Lp::new(&LpConfig::default(), &CcEnv::linux(MSS as u32, 10))
    }

    fn at(l: &mut Lp, w: &mut Window, t_ms: u64, owd_ms: u64) {
        l.on_ack(w, &AckEvent { now: Time::from_ms(t_ms), owd: Some(Dur::from_ms(owd_ms)), rtt: Some(Dur::from_ms(40)), ..ack(MSS) });
    }

    /// Delays between 20 and 60 ms put the threshold at 20 + 0.15 x 40 = 26 ms: the smoothed
    /// delay crossing it halves cwnd; a second crossing within 3 RTTs (120 ms) takes cwnd to 1;
    /// in between the window does not grow; after the inference window Reno resumes.
    #[test]
    fn early_congestion_halves_then_drops_to_one_within_the_inference_window() {
        let mut l = lp();
        let mut w = Window { cwnd: 40 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        // a range learnt: 20 to 60 ms
        l.sowd = Some(0.020);
        l.owd_min = 0.020;
        l.owd_max = 0.060;
        l.owd_max_rsv = 0.060;
        let before = l.indications();
        // sowd creeps up by 1/8 of each 60 ms sample: 25, 29.4 ms - the second crosses 26 ms
        at(&mut l, &mut w, 1, 60);
        assert_eq!(l.indications(), before);
        at(&mut l, &mut w, 2, 60);
        assert_eq!(l.indications(), before + 1);
        assert_eq!(w.cwnd, 20 * MSS, "halved");
        // the range restarted at [sowd, 2 sowd]; a delay that keeps sowd above 15 % of it
        // within 120 ms: cwnd 1
        let s = l.sowd.unwrap();
        assert!((l.owd_min - s).abs() < 1e-12 && (l.owd_max - 2.0 * s).abs() < 1e-12);
        let cwnd = w.cwnd;
        at(&mut l, &mut w, 50, 100);
        assert_eq!(w.cwnd, MSS, "second indication within the inference window");
        assert!(w.cwnd < cwnd);
        // no growth inside the inference window, at a delay under the threshold
        let mut l2 = lp();
        let mut w2 = Window { cwnd: 10 * MSS, ssthresh: 5 * MSS, mss: MSS as u32 };
        l2.last_drop = Some(Time::from_ms(0));
        l2.inference = Dur::from_ms(120);
        l2.sowd = Some(0.020);
        l2.owd_min = 0.020;
        l2.owd_max = 0.060;
        for t in 1..100 {
            l2.on_ack(&mut w2, &AckEvent { now: Time::from_ms(t), owd: Some(Dur::from_ms(20)), ..ack(MSS) });
        }
        assert_eq!(w2.cwnd, 10 * MSS, "frozen for the inference window");
        for t in 200..230 {
            l2.on_ack(&mut w2, &AckEvent { now: Time::from_ms(t), owd: Some(Dur::from_ms(20)), ..ack(MSS) });
        }
        assert_eq!(w2.cwnd, 12 * MSS, "Reno after it: +1 per window (10, then 11)");
    }

    /// `set_ssthresh`: an indication also sets ssthresh to the halved window, so growth after
    /// the inference window is additive; Linux leaves ssthresh (slow start again).
    #[test]
    fn set_ssthresh_makes_growth_after_an_indication_additive() {
        for (set, want) in [(false, u64::MAX), (true, 20 * MSS)] {
            let mut l = Lp::new(&LpConfig { set_ssthresh: set, ..Default::default() }, &CcEnv::linux(MSS as u32, 10));
            let mut w = Window { cwnd: 40 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
            l.sowd = Some(0.020);
            l.owd_min = 0.020;
            l.owd_max = 0.060;
            l.owd_max_rsv = 0.060;
            at(&mut l, &mut w, 1, 100);
            assert_eq!((w.cwnd, w.ssthresh), (20 * MSS, want), "set_ssthresh {set}");
        }
    }
}
