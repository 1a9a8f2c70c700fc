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

use super::{slow_start, AckEvent, CcEnv, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::registry::{Algorithm, Field, Info};
use crate::units::Time;

crate::params! {
    /// CUBIC parameters; the defaults are RFC 9438's, which Linux uses too.
    pub struct CubicConfig {
        /// Cubic scaling constant C: how fast the window grows away from W_max.
        c: f64 = 0.4, Number("segments/s^3"), range(> 0.0), "RFC 9438 section 5 (Linux bic_scale 41 = 0.4)";
        /// Multiplicative decrease factor beta_cubic: cwnd = beta * cwnd on a congestion event.
        beta: f64 = 0.7, Ratio, range(> 0.0, < 1.0), "RFC 9438 section 4.6 (Linux beta 717/1024)";
        /// Fast convergence: release bandwidth faster when W_max shrinks (RFC 9438 section 4.7).
        fast_convergence: bool = true, Flag, range(), "RFC 9438 section 4.7; Linux fast_convergence = 1";
        /// Reno-friendly region: never grow slower than the AIMD estimate W_est (RFC 9438 section 4.3).
        tcp_friendliness: bool = true, Flag, range(), "RFC 9438 section 4.3; Linux tcp_friendliness = 1";
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

impl Algorithm for Cubic {
    type Config = CubicConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "cubic",
        aliases: &[],
        summary: "CUBIC: cubic window growth around the last W_max, Reno-friendly region, beta 0.7",
        sources: &["RFC 9438 sections 4.1-4.8", "Ha, Rhee, Xu, ACM SIGOPS OSR 42(5), 2008", "Linux net/ipv4/tcp_cubic.c"],
    };
    fn new(cfg: &CubicConfig, _env: &CcEnv) -> Cubic {
        Cubic::with_config(cfg.clone())
    }
}

impl Cubic {
    pub fn with_config(cfg: CubicConfig) -> Cubic {
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
    const STATE: &'static [Field] = &[
        Field { name: "w_max_pkts", unit: "pkts", doc: "W_max: window before the last reduction, after fast convergence" },
        Field { name: "k_s", unit: "s", doc: "K: time for the cubic curve to climb back to W_max" },
        Field { name: "w_est_pkts", unit: "pkts", doc: "W_est: the Reno-friendly estimate" },
        Field { name: "reno_region", unit: "flag", doc: "1 when the last ACK grew cwnd in the Reno-friendly region" },
    ];

    fn on_ack(&mut self, s: &mut Window, a: &AckEvent) {
        if !a.may_grow() {
            return;
        }
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

    fn on_congestion(&mut self, s: &mut Window, e: &CongestionEvent) -> u64 {
        if e.kind == CongestionKind::Timeout {
            self.after_rto = true;
        }
        if !e.new_episode {
            // A timeout within the episode already reduced for: keep W_max and cwnd_prior, the
            // window before the loss (the sender keeps ssthresh).
            self.epoch_start = None;
            return s.ssthresh;
        }
        let ss = self.reduce(s.cwnd_segs());
        (ss * s.mss as f64).round() as u64
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        out.copy_from_slice(&[self.w_max, self.k, self.w_est, self.in_reno_region as u8 as f64]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CaState, RateSample};
    use crate::units::Dur;

    fn ack(now: Time, acked: u64, rtt: Dur) -> AckEvent {
        AckEvent {
            now,
            ca_state: CaState::Open,
            acked_bytes: acked,
            sacked_bytes: 0,
            lost_bytes: 0,
            prior_in_flight: 0,
            cwnd_limited: true,
            ece: false,
            rtt: None,
            owd: None,
            srtt: rtt,
            min_rtt: rtt,
            delivered_total: 0,
            rate: RateSample::default(),
        }
    }

    fn event(kind: CongestionKind, now: Time) -> CongestionEvent {
        CongestionEvent { now, kind, flight_size: 0, new_episode: true }
    }

    const MSS: u32 = 1000;

    /// Drive CUBIC with a scripted ACK clock: a fixed RTT, one ACK per segment, the whole window
    /// acknowledged each RTT. Returns (t since the loss, cwnd in segments) at each RTT boundary.
    fn ack_clock(cubic: &mut Cubic, s: &mut Window, rtt: Dur, rounds: usize, t0: Time) -> Vec<(f64, f64)> {
        let mut now = t0;
        let mut out = Vec::new();
        for _ in 0..rounds {
            let n = (s.cwnd / MSS as u64).max(1);
            let gap = rtt.ns() / n;
            for _ in 0..n {
                now += Dur::from_ns(gap);
                let a = ack(now, MSS as u64, rtt);
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
        let mut c = Cubic::with_config(CubicConfig::default());
        let w_max = 1000.0;
        let mut s = Window { cwnd: (w_max * MSS as f64) as u64, ssthresh: u64::MAX, mss: MSS };
        let t0 = Time::from_secs(1);
        s.ssthresh = c.on_congestion(&mut s, &event(CongestionKind::Loss, t0));
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
        let mut c = Cubic::with_config(CubicConfig::default());
        let mut s = Window { cwnd: 100 * MSS as u64, ssthresh: u64::MAX, mss: MSS };
        c.on_congestion(&mut s, &event(CongestionKind::Loss, Time::ZERO));
        assert_eq!(c.w_max(), 100.0);
        s.cwnd = 80 * MSS as u64; // second loss below the previous W_max
        c.on_congestion(&mut s, &event(CongestionKind::Loss, Time::from_ns(1)));
        assert!((c.w_max() - 80.0 * 1.7 / 2.0).abs() < 1e-9);
    }

    #[test]
    fn reno_friendly_region_engages_at_small_bdp() {
        // Small window and long RTT: the cubic curve grows slowly, AIMD(0.53/RTT) overtakes it.
        let rtt = Dur::from_ms(100);
        let mut c = Cubic::with_config(CubicConfig::default());
        let mut s = Window { cwnd: 20 * MSS as u64, ssthresh: u64::MAX, mss: MSS };
        s.ssthresh = c.on_congestion(&mut s, &event(CongestionKind::Loss, Time::ZERO));
        s.cwnd = s.ssthresh;
        let trace = ack_clock(&mut c, &mut s, rtt, 10, Time::ZERO);
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
        let mut c = Cubic::with_config(CubicConfig::default());
        let mut s = Window { cwnd: 100 * MSS as u64, ssthresh: u64::MAX, mss: MSS };
        s.ssthresh = c.on_congestion(&mut s, &event(CongestionKind::Timeout, Time::ZERO));
        assert_eq!(s.ssthresh, 70 * MSS as u64);
        s.cwnd = 70 * MSS as u64; // after slow start back to ssthresh
        let a = ack(Time::from_ns(5), MSS as u64, Dur::from_ms(10));
        c.on_ack(&mut s, &a);
        assert_eq!(c.k(), 0.0);
        assert_eq!(c.w_max(), 70.0);
    }

    /// Defect (TCP-fidelity issue, 5): a timeout during fast recovery is the same congestion
    /// episode; it must not overwrite cwnd_prior with the already reduced window, or the next
    /// epoch's Reno-friendly alpha is 1 at once instead of 3(1 - beta)/(1 + beta) = 0.529 until
    /// W_est is back at the window before the loss (RFC 9438 section 4.3).
    #[test]
    fn a_timeout_in_recovery_keeps_cwnd_prior() {
        let rtt = Dur::from_ms(100);
        let mut c = Cubic::with_config(CubicConfig::default());
        let mut s = Window { cwnd: 20 * MSS as u64, ssthresh: u64::MAX, mss: MSS };
        s.ssthresh = c.on_congestion(&mut s, &event(CongestionKind::Loss, Time::ZERO)); // 14 MSS
        s.cwnd = s.ssthresh; // in recovery
        let rto = CongestionEvent { now: Time::from_ms(300), kind: CongestionKind::Timeout, flight_size: 0, new_episode: false };
        c.on_congestion(&mut s, &rto);
        // slow start back to ssthresh (14), then congestion avoidance
        s.cwnd = s.ssthresh;
        let trace = ack_clock(&mut c, &mut s, rtt, 10, Time::from_secs(1));
        let w = trace.last().unwrap().1;
        let expect = 14.0 + 10.0 * 3.0 * 0.3 / 1.7; // alpha 0.529 per RTT, W_est < cwnd_prior = 20
        assert!((w - expect).abs() < 0.5, "cwnd {w} after 10 RTTs, expected about {expect} (alpha 0.529)");
    }

    /// Defect (TCP-fidelity issue, 1): in slow start an ACK may raise cwnd by at most
    /// L = 2 MSS (RFC 3465 section 2.2) and the rest of what it acknowledges is discarded, not
    /// passed on to congestion avoidance while cwnd is still below ssthresh. The ACK that fills
    /// the hole after a timeout covers hundreds of SACKed segments: cwnd went from 1 to 158 MSS.
    #[test]
    fn a_huge_ack_in_slow_start_raises_cwnd_by_at_most_two_segments() {
        for cc in [crate::cc::CcConfig::Cubic(CubicConfig::default()), crate::presets::reno()] {
            let mut algo = crate::cc::Cc::new(&cc, &crate::cc::CcEnv { mss: MSS, initial_cwnd: 10 * MSS as u64 });
            let mut s = Window { cwnd: MSS as u64, ssthresh: 44 * MSS as u64, mss: MSS };
            algo.on_ack(&mut s, &ack(Time::from_secs(1), 158 * MSS as u64, Dur::from_ms(10)));
            assert_eq!(s.cwnd, 3 * MSS as u64, "{}: cwnd {} MSS", cc.name(), s.cwnd / MSS as u64);
        }
    }
}
