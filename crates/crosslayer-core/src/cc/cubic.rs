//! CUBIC congestion control.
//!
//! Source: RFC 9438 (2023), sections 4.1-4.8; Ha, Rhee, Xu, ACM SIGOPS OSR 42(5), 2008.
//! Linux `net/ipv4/tcp_cubic.c` was read for behaviour (not copied).
//!
//! * Window growth in congestion avoidance (RFC 9438 section 4.2):
//!   `W_cubic(t) = C (t - K)^3 + W_max`, `K = cbrt((W_max - cwnd_epoch) / C)`, with t the time
//!   since the current congestion-avoidance epoch began (the first CA ACK after a reduction).
//!   Per ACK: `target = W_cubic(t + RTT)` clamped to `[cwnd, 1.5 cwnd]`, and
//!   `cwnd += (target - cwnd) / cwnd` per segment acknowledged (sections 4.4, 4.5).
//! * Reno-friendly region (section 4.3): `W_est` starts at `cwnd_epoch`, grows by
//!   `alpha * segments_acked / cwnd` with `alpha = 3 (1 - beta) / (1 + beta)` until it reaches
//!   `cwnd_prior`, then alpha = 1; when `W_cubic(t) < W_est`, cwnd is set to `W_est`.
//! * Multiplicative decrease (section 4.6) with beta = 0.7 and fast convergence (section 4.7):
//!   `W_max = cwnd (1 + beta) / 2` if cwnd < the previous W_max, else `W_max = cwnd`.
//! * Timeout (section 4.8): ssthresh from beta; the first CA epoch after it uses K = 0 and
//!   W_max = cwnd at the start of that epoch.
//! * Slow start: standard (RFC 5681 + RFC 3465 L = 2).
//!
//! Deliberate deviations, each following Linux:
//! * ssthresh = beta * cwnd rather than beta * flight_size (RFC 9438 section 4.6 allows this);
//!   for a cwnd-limited bulk sender they coincide.
//! * The per-ACK increase is applied per *segment* acknowledged, so delayed ACKs do not halve the
//!   growth rate (RFC text says "per ACK"; Linux and ns-3 count acknowledged segments).
//! * When an epoch starts with cwnd >= W_max (e.g. after slow start), K = 0 and the curve's
//!   origin is the current cwnd (Linux `bictcp_update`) instead of a negative K.
//! * RTT in `W_cubic(t + RTT)` is the smoothed RTT (RFC); Linux uses the minimum RTT.
//! * No HyStart / HyStart++ (RFC 9406) yet: slow start ends at the first loss.

use super::{slow_start, AckSample, CcState, CongestionControl};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// CUBIC parameters; defaults are RFC 9438's (and Linux's `bic_scale` 41, `beta` 717/1024).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// C, segments / s^3.
    pub c: f64,
    /// Multiplicative decrease factor beta_cubic.
    pub beta: f64,
    /// Fast convergence (RFC 9438 section 4.7).
    pub fast_convergence: bool,
    /// Reno-friendly region (RFC 9438 section 4.3).
    pub tcp_friendliness: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig { c: 0.4, beta: 0.7, fast_convergence: true, tcp_friendliness: true }
    }
}

impl CubicConfig {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(format!("{path}.c: must be a positive number (RFC 9438 default 0.4), got {}", self.c));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(format!("{path}.beta: must be in (0, 1) (RFC 9438 default 0.7), got {}", self.beta));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    /// W_max, segments: window just before the last reduction (after fast convergence).
    w_max: f64,
    /// K, seconds: time the cubic curve takes to climb back to W_max.
    k: f64,
    /// Start of the current congestion-avoidance epoch; `None` until the first CA ACK.
    epoch_start: Option<Time>,
    /// Origin of the cubic curve for this epoch, segments (W_max, or cwnd when above it).
    origin: f64,
    /// W_est, segments: the Reno-friendly estimate.
    w_est: f64,
    /// cwnd_prior, segments: cwnd at the last congestion event.
    cwnd_prior: f64,
    /// The next epoch follows a timeout: K = 0, W_max = cwnd (RFC 9438 section 4.8).
    after_rto: bool,
    /// Last epoch was in the Reno-friendly region (for tests and traces).
    pub in_reno_region: bool,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Cubic {
        Cubic {
            cfg,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            origin: 0.0,
            w_est: 0.0,
            cwnd_prior: 0.0,
            after_rto: false,
            in_reno_region: false,
        }
    }

    /// W_cubic(t) for the current epoch, segments; `t` in seconds since the epoch start.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.cfg.c * (t - self.k).powi(3) + self.origin
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    pub fn k(&self) -> f64 {
        self.k
    }

    pub fn epoch_start(&self) -> Option<Time> {
        self.epoch_start
    }

    fn start_epoch(&mut self, now: Time, cwnd: f64) {
        self.epoch_start = Some(now);
        if self.after_rto {
            self.w_max = cwnd;
            self.after_rto = false;
        }
        if cwnd < self.w_max {
            self.k = ((self.w_max - cwnd) / self.cfg.c).cbrt();
            self.origin = self.w_max;
        } else {
            self.k = 0.0;
            self.origin = cwnd;
        }
        self.w_est = cwnd;
    }

    /// Shared by congestion events and timeouts: update W_max and return ssthresh in segments.
    fn reduce(&mut self, cwnd: f64) -> f64 {
        self.epoch_start = None;
        self.w_max = if self.cfg.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.cfg.beta) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        (cwnd * self.cfg.beta).max(2.0)
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, s: &mut CcState, a: &AckSample) {
        let acked = slow_start(s, a.acked_bytes);
        if acked == 0 {
            return;
        }
        let mss = s.mss as f64;
        let cwnd = s.cwnd as f64 / mss;
        let segs = acked as f64 / mss;
        if self.epoch_start.is_none() {
            self.start_epoch(a.now, cwnd);
        }
        let t = a.now.since(self.epoch_start.unwrap_or(a.now)).secs_f64();
        let rtt = a.srtt.secs_f64();
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);

        // Reno-friendly estimate (RFC 9438 section 4.3).
        let beta = self.cfg.beta;
        let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { 3.0 * (1.0 - beta) / (1.0 + beta) };
        self.w_est += alpha * segs / cwnd;

        let new_cwnd = if self.cfg.tcp_friendliness && self.w_cubic(t) < self.w_est {
            self.in_reno_region = true;
            self.w_est.max(cwnd)
        } else {
            self.in_reno_region = false;
            cwnd + segs * (target - cwnd) / cwnd
        };
        s.cwnd = ((new_cwnd * mss).round() as u64).max(s.cwnd);
    }

    fn ssthresh(&mut self, s: &CcState, _now: Time, _in_flight: u64) -> u64 {
        let ss = self.reduce(s.cwnd_segs());
        (ss * s.mss as f64).round() as u64
    }

    fn on_rto(&mut self, s: &CcState, now: Time, in_flight: u64) -> u64 {
        let ss = self.ssthresh(s, now, in_flight);
        self.after_rto = true;
        ss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Dur;

    const MSS: u32 = 1000;

    /// Drive CUBIC with a scripted ACK clock: a fixed RTT, one ACK per segment, the whole window
    /// acknowledged each RTT. Returns (t since the loss, cwnd in segments) at each RTT boundary.
    fn ack_clock(cubic: &mut Cubic, s: &mut CcState, rtt: Dur, rounds: usize, t0: Time) -> Vec<(f64, f64)> {
        let mut now = t0;
        let mut out = Vec::new();
        for _ in 0..rounds {
            let n = (s.cwnd / MSS as u64).max(1);
            let gap = rtt.0 / n;
            for _ in 0..n {
                now += Dur(gap);
                let a = AckSample { now, acked_bytes: MSS as u64, srtt: rtt, min_rtt: rtt, in_flight: s.cwnd };
                cubic.on_ack(s, &a);
            }
            out.push(((now - t0).secs_f64(), s.cwnd_segs()));
        }
        out
    }

    #[test]
    fn window_follows_the_cubic_law_after_a_loss() {
        // Loss at W_max = 1000 segments, RTT 100 ms: the Reno-friendly estimate reaches only
        // 700 + 0.529 * K / RTT = 748 segments at K = 9.09 s, so the cubic curve governs.
        // (At RTT 10 ms the Reno-friendly region would take over after 5.7 s, as it should.)
        let rtt = Dur::from_ms(100);
        let mut c = Cubic::new(CubicConfig::default());
        let w_max = 1000.0;
        let mut s = CcState { cwnd: (w_max * MSS as f64) as u64, ssthresh: u64::MAX, mss: MSS };
        let t0 = Time(Dur::from_secs(1).0);
        s.ssthresh = c.ssthresh(&s, t0, s.cwnd);
        s.cwnd = s.ssthresh;
        assert_eq!(s.cwnd_segs(), 700.0);
        let k = (w_max * 0.3 / 0.4f64).cbrt(); // 9.0856 s
        let trace = ack_clock(&mut c, &mut s, rtt, 150, t0);
        assert!((c.k() - k).abs() < 1e-9);
        let mut worst: f64 = 0.0;
        for &(t, w) in &trace {
            let law = 0.4 * (t - k).powi(3) + w_max;
            let tol = (0.02 * law).max(1.0);
            worst = worst.max((w - law).abs() / tol);
            assert!((w - law).abs() <= tol, "t={t:.3}s cwnd={w:.2} law={law:.2}");
        }
        assert!(!c.in_reno_region);
        // Past the plateau, the convex region takes over (t = 15 s: W = 1000 + 0.4*5.9^3 ~ 1083).
        assert!(trace.last().unwrap().1 > 1050.0, "{worst}");
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut c = Cubic::new(CubicConfig::default());
        let mut s = CcState { cwnd: 100 * MSS as u64, ssthresh: u64::MAX, mss: MSS };
        c.ssthresh(&s, Time(0), 0);
        assert_eq!(c.w_max(), 100.0);
        s.cwnd = 80 * MSS as u64; // second loss below the previous W_max
        c.ssthresh(&s, Time(1), 0);
        assert!((c.w_max() - 80.0 * 1.7 / 2.0).abs() < 1e-9);
    }

    #[test]
    fn reno_friendly_region_engages_at_small_bdp() {
        // Small window and long RTT: the cubic curve grows slowly, AIMD(0.53/RTT) overtakes it.
        let rtt = Dur::from_ms(100);
        let mut c = Cubic::new(CubicConfig::default());
        let mut s = CcState { cwnd: 20 * MSS as u64, ssthresh: u64::MAX, mss: MSS };
        s.ssthresh = c.ssthresh(&s, Time(0), s.cwnd);
        s.cwnd = s.ssthresh;
        let trace = ack_clock(&mut c, &mut s, rtt, 10, Time(0));
        assert!(c.in_reno_region, "expected the Reno-friendly region at W_max = 20, RTT = 100 ms");
        // W_est grows by alpha = 3*0.3/1.7 = 0.529 segments per RTT from 14 segments.
        let w = trace.last().unwrap().1;
        let expect = 14.0 + 10.0 * 3.0 * 0.3 / 1.7;
        assert!((w - expect).abs() < 0.5, "cwnd {w} expected about {expect}");
        // and it exceeds the pure cubic window at that time
        assert!(w > c.w_cubic(trace.last().unwrap().0));
    }

    #[test]
    fn timeout_epoch_starts_at_current_window() {
        let mut c = Cubic::new(CubicConfig::default());
        let mut s = CcState { cwnd: 100 * MSS as u64, ssthresh: u64::MAX, mss: MSS };
        s.ssthresh = c.on_rto(&s, Time(0), 0);
        assert_eq!(s.ssthresh, 70 * MSS as u64);
        s.cwnd = 70 * MSS as u64; // after slow start back to ssthresh
        let a = AckSample { now: Time(5), acked_bytes: MSS as u64, srtt: Dur::from_ms(10), min_rtt: Dur::from_ms(10), in_flight: 0 };
        c.on_ack(&mut s, &a);
        assert_eq!(c.k(), 0.0);
        assert_eq!(c.w_max(), 70.0);
    }
}
