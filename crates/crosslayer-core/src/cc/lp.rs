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
//! As Linux computes it, in whole ticks of the timestamp clock (1 ms): a delay is TSval - TSecr
//! in ticks (a sample of 0 ticks is not valid), sampled only on an ACK with an RTT sample;
//! `sowd` is kept as 8 x the smoothed delay in ticks, and the threshold is `owd_min + 15 x
//! (owd_max - owd_min) / 100` in integer ticks, compared with `sowd >> 3`. With a few
//! milliseconds of base delay these roundings move the threshold by a tick, which is a
//! fraction of it.
//!
//! The ns3 profile follows ns-3's port (`TcpLp`, 3.44), which differs from Linux in two ways:
//! the smoothed delay is "within the threshold" when it equals it (`<=`, so the first sample
//! does not halve), and only congestion avoidance stops inside the inference window - ns-3's
//! slow start (`TcpNewReno::SlowStart`, not overridden) goes on growing.
//!
//! Deviations: Linux estimates the remote timestamp clock rate first (`tcp_lp_remote_hz_estimator`)
//! and scales the remote TSval by `1000 / remote_hz` in integer arithmetic; one simulated clock
//! makes that unnecessary (and Linux's integer division makes the delay 0 or 2 x TSval if the
//! estimate strays from 1000 Hz: not modelled). Linux's per-connection random timestamp offsets
//! cancel out of the delay differences LP uses, except for overflow of its 32-bit `sowd`
//! (not modelled).

use super::law::{cong_avoid_ai, slow_start};
use super::{AckEvent, CcEnv, CongestionControl, CongestionEvent, SsRule, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::stack::Profile;
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
    /// `threshold` in millionths (0.15: 150,000), so that the threshold is integer ticks.
    threshold_ppm: u64,
    reset_range: bool,
    set_ssthresh: bool,
    /// ns-3's port: `<=` at the threshold, slow start inside the inference window.
    ns3: bool,
    ss: SsRule,
    /// The timestamp clock's tick: delays are counted in it.
    tick: u64,
    /// 8 x the smoothed delay, ticks (Linux `sowd`); 0 before the first sample.
    sowd: u64,
    owd_min: u64,
    owd_max: u64,
    owd_max_rsv: u64,
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
        Lp {
            threshold_ppm: (cfg.threshold * 1e6).round() as u64,
            reset_range: cfg.reset_range,
            set_ssthresh: cfg.set_ssthresh,
            ns3: env.profile == Profile::Ns3,
            ss: env.slow_start.rule(SsRule::PerAck),
            tick: env.ts_tick.ns().max(1),
            sowd: 0,
            owd_min: u64::MAX,
            owd_max: 0,
            owd_max_rsv: 0,
            inference: Dur::ZERO,
            last_drop: None,
            acc: 0,
            indications: 0,
        }
    }
}

impl Lp {
    /// Linux `tcp_lp_rtt_sample`, a delay in ticks (0: not a valid sample).
    fn sample(&mut self, owd: u64) {
        if owd == 0 {
            return;
        }
        self.owd_min = self.owd_min.min(owd);
        if owd > self.owd_max {
            if owd > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 { owd } else { self.owd_max_rsv };
                self.owd_max_rsv = owd;
            } else {
                self.owd_max = owd;
            }
        }
        self.sowd = if self.sowd == 0 { owd << 3 } else { self.sowd - (self.sowd >> 3) + owd };
    }

    /// The smoothed delay is within the threshold (no early congestion).
    fn within_threshold(&self) -> bool {
        if self.sowd == 0 {
            return true; // no sample yet (Linux: 0 is below any threshold)
        }
        if !self.reset_range && self.owd_max <= self.owd_min {
            return true; // the paper infers congestion only within an observed range
        }
        let range = self.owd_max.saturating_sub(self.owd_min);
        let thr = self.owd_min + range * self.threshold_ppm / 1_000_000;
        let s = self.sowd >> 3;
        if self.ns3 {
            s <= thr
        } else {
            s < thr
        }
    }

    fn within_inference(&self, now: Time) -> bool {
        self.last_drop.is_some_and(|t| now - t < self.inference)
    }

    pub fn indications(&self) -> u64 {
        self.indications
    }
}

impl CongestionControl for Lp {
    const ONE_WAY_DELAY: bool = true;
    const STATE: &'static [Field] = &[
        Field { name: "sowd_s", unit: FieldUnit::Seconds, doc: "smoothed one-way delay" },
        Field { name: "early_indications", unit: FieldUnit::Count, doc: "early congestion indications so far" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        let mss = w.mss as u64;
        // Linux tcp_lp_pkts_acked: a delay sample only with an RTT sample; the inference
        // window, three times the age of the echoed timestamp (an RTT)
        if let (Some(owd), Some(_)) = (a.owd, a.rtt) {
            self.sample(owd.ns() / self.tick);
        }
        if let Some(rtt) = a.rtt {
            self.inference = rtt.mul(3);
        }
        let within_inf = self.within_inference(a.now);
        if a.acked_bytes > 0 && !self.within_threshold() {
            // early congestion indication
            if self.reset_range {
                self.owd_min = self.sowd >> 3;
                self.owd_max = self.sowd >> 2;
                self.owd_max_rsv = self.sowd >> 2;
            }
            w.cwnd = if within_inf { mss } else { (w.cwnd / 2).max(mss) };
            if self.set_ssthresh {
                w.ssthresh = w.cwnd.max(2 * mss);
            }
            self.last_drop = Some(a.now);
            self.indications += 1;
        }
        // Linux tcp_lp_cong_avoid: Reno's growth unless this ACK came within the inference
        // window (as it was before any indication on this ACK); ns-3 stops only congestion
        // avoidance
        if !a.may_grow() || (within_inf && !(self.ns3 && w.in_slow_start())) {
            return;
        }
        let left = slow_start(w, a.growth_bytes, self.ss);
        if left > 0 && !within_inf {
            cong_avoid_ai(w, &mut self.acc, w.cwnd / mss, left);
        }
    }

    fn on_congestion(&mut self, w: &mut Window, _e: &CongestionEvent) -> u64 {
        (w.cwnd / 2).max(2 * w.mss as u64)
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        let sowd = if self.sowd == 0 { f64::NAN } else { (self.sowd * self.tick) as f64 / 8e9 };
        out.copy_from_slice(&[sowd, self.indications as f64]);
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

    /// A learnt range, delays in 1-ms ticks (sowd is 8 x ticks).
    fn with_range(l: &mut Lp, sowd_ms: u64, min_ms: u64, max_ms: u64) {
        l.sowd = sowd_ms << 3;
        l.owd_min = min_ms;
        l.owd_max = max_ms;
        l.owd_max_rsv = max_ms;
    }

    /// Delays between 20 and 60 ms put the threshold at 20 + 15 x 40 / 100 = 26 ms: the
    /// smoothed delay crossing it halves cwnd; a second crossing within 3 RTTs (120 ms) takes
    /// cwnd to 1; in between the window does not grow; after the inference window Reno resumes.
    #[test]
    fn early_congestion_halves_then_drops_to_one_within_the_inference_window() {
        let mut l = lp();
        let mut w = Window { cwnd: 40 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        with_range(&mut l, 20, 20, 60);
        let before = l.indications();
        // sowd creeps up by 1/8 of each 60 ms sample: 25, then 29 ms (235 / 8) - past 26 ms
        at(&mut l, &mut w, 1, 60);
        assert_eq!((l.sowd, l.indications()), (200, before));
        at(&mut l, &mut w, 2, 60);
        assert_eq!((l.sowd, l.indications()), (235, before + 1));
        assert_eq!(w.cwnd, 20 * MSS, "halved");
        // the range restarted at [sowd, 2 sowd] in whole ticks (Linux: sowd >> 3, sowd >> 2)
        assert_eq!((l.owd_min, l.owd_max, l.owd_max_rsv), (29, 58, 58));
        // a 100 ms delay: sowd 306 / 8 = 38 ms against 29 + 15 x 29 / 100 = 33 ms, 48 ms after
        // the last indication (inside 3 x 40 ms): cwnd 1
        at(&mut l, &mut w, 50, 100);
        assert_eq!(w.cwnd, MSS, "second indication within the inference window");
        assert_eq!(l.indications(), before + 2);
        // no growth inside the inference window, at a delay under the threshold
        let mut l2 = lp();
        let mut w2 = Window { cwnd: 10 * MSS, ssthresh: 5 * MSS, mss: MSS as u32 };
        l2.last_drop = Some(Time::from_ms(0));
        l2.inference = Dur::from_ms(120);
        with_range(&mut l2, 20, 20, 60);
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
    /// the inference window is additive; Linux leaves ssthresh (slow start again). The ACK that
    /// halves still grows the window when it did not come within an inference window (Linux
    /// runs `cong_avoid` after `pkts_acked`): one segment of slow start, none of avoidance.
    #[test]
    fn set_ssthresh_makes_growth_after_an_indication_additive() {
        for (set, want) in [(false, (21 * MSS, u64::MAX)), (true, (20 * MSS, 20 * MSS))] {
            let mut l = Lp::new(&LpConfig { set_ssthresh: set, ..Default::default() }, &CcEnv::linux(MSS as u32, 10));
            let mut w = Window { cwnd: 40 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
            with_range(&mut l, 20, 20, 60);
            at(&mut l, &mut w, 1, 100);
            assert_eq!((w.cwnd, w.ssthresh), want, "set_ssthresh {set}");
        }
    }

    /// Delays are TSval - TSecr in whole ticks: a sample of 0 ticks is not valid (Linux
    /// LP_VALID_OWD), and a delay is sampled only on an ACK with an RTT sample (Karn).
    #[test]
    fn delays_are_whole_ticks_sampled_with_an_rtt_sample() {
        let mut l = lp();
        let mut w = Window { cwnd: 40 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        l.on_ack(&mut w, &AckEvent { now: Time::from_ms(1), owd: Some(Dur::ZERO), rtt: Some(Dur::from_ms(40)), ..ack(MSS) });
        l.on_ack(&mut w, &AckEvent { now: Time::from_ms(2), owd: Some(Dur::from_ms(7)), rtt: None, ..ack(MSS) });
        assert_eq!((l.sowd, l.indications()), (0, 0), "nothing sampled");
        // a 10-ms tick: 37 ms of delay is 3 ticks
        let mut l10 = Lp::new(&LpConfig::default(), &CcEnv { ts_tick: Dur::from_ms(10), ..CcEnv::linux(MSS as u32, 10) });
        l10.on_ack(&mut w, &AckEvent { now: Time::from_ms(3), owd: Some(Dur::from_ms(37)), rtt: Some(Dur::from_ms(40)), ..ack(MSS) });
        assert_eq!((l10.sowd, l10.owd_min), (3 << 3, 3));
    }

    /// Linux's `<` fires on the first sample (its range is zero) and halves; ns-3's `<=` does
    /// not. Inside the inference window Linux does not grow at all; ns-3 stops only congestion
    /// avoidance, so its slow start goes on.
    #[test]
    fn ns3_profile_follows_ns3s_port() {
        let ns3_env = CcEnv { profile: Profile::Ns3, ..CcEnv::linux(MSS as u32, 10) };
        for (env, halved) in [(CcEnv::linux(MSS as u32, 10), true), (ns3_env, false)] {
            let mut l = Lp::new(&LpConfig::default(), &env);
            let mut w = Window { cwnd: 40 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
            at(&mut l, &mut w, 1, 20);
            assert_eq!(l.indications() == 1, halved, "{:?}", env.profile);
        }
        for (env, grows) in [(CcEnv::linux(MSS as u32, 10), false), (ns3_env, true)] {
            let mut l = Lp::new(&LpConfig::default(), &env);
            let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
            with_range(&mut l, 20, 20, 60);
            l.last_drop = Some(Time::from_ms(0));
            l.inference = Dur::from_ms(120);
            l.on_ack(&mut w, &AckEvent { now: Time::from_ms(10), owd: Some(Dur::from_ms(20)), ..ack(MSS) });
            assert_eq!(w.cwnd > 10 * MSS, grows, "slow start inside the inference window, {:?}", env.profile);
        }
    }
}
