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
//! * After an idle period (data sent with nothing in flight) the epoch start moves on by the
//!   idle time, as Linux's `CA_EVENT_TX_START` handling (not in the ns-3 profile).
//!
//! In the ns-3 profile the window is ns-3's: the reduction is `TcpCubic::GetSsThresh`, in whole
//! segments (W_max and ssthresh truncated), and congestion avoidance adds whole segments from a
//! counter of acknowledged segments (`IncreaseWindow`'s `m_cWndCnt`, one segment per ACK at
//! most); elsewhere cwnd carries its fraction of a segment.
//!
//! Deliberate deviations, each following Linux:
//! * ssthresh = beta * cwnd rather than beta * flight_size (RFC 9438 section 4.6 allows this);
//!   for a cwnd-limited bulk sender they coincide.
//! * The per-ACK increase is applied per *segment* acknowledged, so delayed ACKs do not halve the
//!   growth rate (RFC text says "per ACK"; Linux and ns-3 count acknowledged segments).
//! * When an epoch starts with cwnd >= W_max (e.g. after slow start), K = 0 and the curve's
//!   origin is the current cwnd (Linux `bictcp_update`) instead of a negative K.
//! * RTT in `W_cubic(t + RTT)` is the minimum RTT CUBIC has seen, as Linux (`delay_min`) and
//!   ns-3 (`m_delayMin`) use; `rtt = "srtt"` takes the smoothed RTT, as the RFC says. Samples in
//!   the first second of an epoch are ignored and a timeout forgets it, as in Linux.
//! * Congestion-avoidance increase (`increase`, default "linux"): Linux `bictcp_update` and ns-3
//!   `TcpCubic::Update` keep the Reno-friendly estimate in integers, one segment per
//!   `cwnd * 15 / 8` acknowledged (alpha 8/15 = 0.533 for beta 0.7) and never switch to alpha 1
//!   past cwnd_prior as RFC 9438 section 4.3 does; cwnd grows by 1/cnt per segment acknowledged,
//!   cnt from whole segments (target = origin -+ floor(C |t + RTT - K|^3), cnt = cwnd / (target -
//!   cwnd) in integer division, lowered to cwnd / (W_est - cwnd), at least 2) rather than jumping
//!   to W_est; and before the first loss (in Linux, also after a timeout) cnt is at most 20, 5 %
//!   growth per RTT at least. Linux's 1/32 s caching of cnt is not modelled (ns-3 has none).
//!   `increase = "rfc9438"` gives the RFC's rule.
//! * Slow start ends early by HyStart (Linux's default: ACK train and delay increase) or RFC 9406
//!   HyStart++ (`hystart`, see `hystart.rs`); its growth follows `[tcp] slow_start` (in the ns-3
//!   profile, ns-3's TcpCubic rule: every acknowledged segment, past ssthresh). Unset, HyStart
//!   is the profile's: Linux's, ns-3's, or none in the ns2 profile (ns-2.35's cubic module is
//!   Linux 2.6.22's CUBIC 2.1, before HyStart; validated against it in
//!   docs/validation/cc-family-ns2.md).

use super::law::hystart::{self, Hystart, HystartMode, Verdict};
use super::law::{slow_start};
use super::{AckEvent, CcEnv, CongestionControl, CongestionEvent, CongestionKind, SsRule, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::stack::Profile;
use crate::units::{Dur, Opt, Time};

crate::choice! {
    /// The RTT added to t in W_cubic(t + RTT).
    pub enum CubicRtt {
        /// The smallest RTT seen (Linux `delay_min`, ns-3 `m_delayMin`).
        MinRtt = "min_rtt",
        /// The smoothed RTT (RFC 9438 section 4.2).
        Srtt = "srtt",
    }
}

crate::choice! {
    /// How congestion avoidance combines the cubic curve and the Reno-friendly estimate.
    pub enum CubicIncrease {
        /// Linux `bictcp_update` (and ns-3 `TcpCubic::Update`): W_est grows by one segment per
        /// `cwnd * scale / 8` segments acknowledged, `scale = floor(8 (1 + beta) / (3 (1 - beta)))`
        /// (15 for beta 0.7: alpha 8/15 = 0.533, never 1); cwnd grows by 1/cnt per segment
        /// acknowledged, cnt in whole segments from the larger of the cubic target and W_est, at
        /// least 2 (half a segment per segment), before the first loss at most 20.
        Linux = "linux",
        /// RFC 9438 section 4.3: alpha = 3 (1 - beta) / (1 + beta) until W_est reaches
        /// cwnd_prior, then 1; cwnd = W_est whenever W_cubic(t) < W_est.
        Rfc9438 = "rfc9438",
    }
}

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
        /// The RTT in W_cubic(t + RTT): "min_rtt" or "srtt".
        rtt: CubicRtt = CubicRtt::MinRtt, Choice, range(), "Linux bictcp_update and ns-3 TcpCubic::Update use the minimum RTT; RFC 9438 says SRTT";
        /// Congestion-avoidance increase: "linux" (bictcp_update's integer Reno-friendly estimate, alpha 0.533 for ever, and its cnt clamps) or "rfc9438" (alpha 0.529, then 1 past cwnd_prior).
        increase: CubicIncrease = CubicIncrease::Linux, Choice, range(), "Linux tcp_cubic.c bictcp_update (beta_scale, cnt clamp 20, cnt >= 2); ns-3 TcpCubic::Update does the same; RFC 9438 section 4.3";
        /// Early exit from slow start: "linux" (HyStart: ACK train and delay increase), "ns3" (ns-3's HyStart), "hystart++" (RFC 9406) or "off"; unset: the TCP profile's (linux, ns3, or off in the ns2 profile: ns-2.35's cubic is Linux 2.6.22's, before HyStart).
        hystart: Option<HystartMode> = None, Choice, range(), "Linux tcp_cubic hystart = 1, hystart_detect = 3; ns-3 TcpCubic::HyStart true";
        /// HyStart acts only once cwnd is at least this many segments.
        hystart_low_window: u32 = 16, Packets, range(>= 2, <= 100_000), "Linux hystart_low_window = 16; ns-3 HyStartLowWindow 16";
        /// ACKs at most this far apart form a train (HyStart's ACK-train detection).
        hystart_ack_delta: Dur = Dur::from_ms(2), Time, range(>= Dur::from_us(1), <= Dur::from_secs(1)), "Linux hystart_ack_delta_us = 2000; ns-3 HyStartAckDelta 2 ms";
    }
}

/// What CUBIC reads of its configuration once built (the HyStart fields went to `hystart`):
/// 24 bytes where the configuration takes 40, in every flow.
#[derive(Clone, Copy, Debug)]
struct Params {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    tcp_friendliness: bool,
    rtt: CubicRtt,
    increase: CubicIncrease,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: Params,
    /// W_max, segments: window just before the last reduction (after fast convergence).
    w_max: f64,
    /// K, seconds: time the cubic curve takes to climb back to W_max.
    k: f64,
    /// Start of the current congestion-avoidance epoch; `None` until the first CA ACK.
    epoch_start: Opt<Time>,
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
    /// Segments acknowledged towards W_est's next whole segment (Linux `ack_cnt`).
    ack_cnt: f64,
    /// ns-3 `m_cWndCnt`: segments acknowledged towards the next whole segment of cwnd (never
    /// reset).
    cwnd_cnt: f64,
    /// Linux `beta_scale`: floor(8 (1 + beta) / (3 (1 - beta))), 15 for beta 0.7.
    beta_scale: f64,
    /// No loss has set W_max yet (Linux `last_max_cwnd == 0`): the Linux increase grows at least
    /// 1/20 segment per segment acknowledged.
    no_w_max: bool,
    /// Smallest RTT seen (Linux `delay_min`).
    delay_min: Opt<Dur>,
    pub hystart: Hystart,
    ss: SsRule,
    /// ns-3's TcpCubic details: delay samples are SRTT and ignored for 10 ms (not 1 s) after an
    /// epoch starts; a timeout keeps W_max; congestion avoidance adds at most one segment per ACK.
    ns3: bool,
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
    fn new(cfg: &CubicConfig, env: &CcEnv) -> Cubic {
        let ns3 = env.profile == Profile::Ns3;
        // ns-2.35's cubic is Linux 2.6.22's (CUBIC 2.1): no HyStart (Linux 2.6.29)
        let hystart = cfg.hystart.unwrap_or(match env.profile {
            Profile::Linux => HystartMode::Linux,
            Profile::Ns3 => HystartMode::Ns3,
            Profile::Ns2 => HystartMode::Off,
        });
        let mut c = Cubic::with_config(CubicConfig { hystart: Some(hystart), ..cfg.clone() });
        c.ss = env.slow_start.rule(SsRule::Uncapped);
        c.ns3 = ns3;
        c
    }
}

/// floor() of a non-negative value, by truncation (a conversion instruction each way, where
/// `f64::floor` is a library call on baseline x86-64; through i64, which x86-64 converts in
/// one instruction, where u64 takes a dozen: the same value for every x below 2^63, which
/// windows in segments never approach; the cubic term C |t - K|^3 can, with an extreme C or a
/// very long epoch: the conversion saturates there at 2^63, far above any window, so the
/// target stays far above cwnd as it should).
#[inline]
fn whole(x: f64) -> f64 {
    debug_assert!(x >= 0.0 || x.is_nan());
    (x as i64) as f64
}

impl Cubic {
    pub fn with_config(cfg: CubicConfig) -> Cubic {
        Cubic {
            w_max: 0.0,
            k: 0.0,
            epoch_start: Opt::NONE,
            origin: 0.0,
            w_est: 0.0,
            cwnd_prior: 0.0,
            after_rto: false,
            in_reno_region: false,
            ack_cnt: 0.0,
            cwnd_cnt: 0.0,
            beta_scale: (8.0 * (1.0 + cfg.beta) / (3.0 * (1.0 - cfg.beta))).floor().max(1.0),
            no_w_max: true,
            delay_min: Opt::NONE,
            hystart: Hystart::new(cfg.hystart.unwrap_or(HystartMode::Linux), cfg.hystart_low_window, cfg.hystart_ack_delta),
            ss: SsRule::Linux,
            ns3: false,
            cfg: Params { c: cfg.c, beta: cfg.beta, fast_convergence: cfg.fast_convergence, tcp_friendliness: cfg.tcp_friendliness, rtt: cfg.rtt, increase: cfg.increase },
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
        self.epoch_start.get()
    }

    fn start_epoch(&mut self, now: Time, cwnd: f64) {
        self.epoch_start = Opt::some(now);
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
        // Linux starts tcp_cwnd at the (whole-segment) cwnd
        self.w_est = if self.cfg.increase == CubicIncrease::Linux { cwnd.floor() } else { cwnd };
        self.ack_cnt = 0.0;
    }

    /// Shared by congestion events and timeouts: update W_max and return ssthresh in segments.
    fn reduce(&mut self, cwnd: f64) -> f64 {
        self.epoch_start = Opt::NONE;
        self.no_w_max = false;
        if self.ns3 {
            // ns-3 TcpCubic::GetSsThresh works in whole segments: segCwnd = cwnd / MSS
            // (integer), m_lastMaxCwnd = segCwnd or (segCwnd (1 + beta)) / 2 truncated, and
            // ssthresh = max(segCwnd beta truncated, 2) segments.
            let seg = whole(cwnd);
            self.w_max = if self.cfg.fast_convergence && seg < self.w_max { whole(seg * (1.0 + self.cfg.beta) / 2.0) } else { seg };
            self.cwnd_prior = seg;
            return whole(seg * self.cfg.beta).max(2.0);
        }
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
        Field { name: "w_max_pkts", unit: FieldUnit::Pkts, doc: "W_max: window before the last reduction, after fast convergence" },
        Field { name: "k_s", unit: FieldUnit::Seconds, doc: "K: time for the cubic curve to climb back to W_max" },
        Field { name: "w_est_pkts", unit: FieldUnit::Pkts, doc: "W_est: the Reno-friendly estimate" },
        Field { name: "reno_region", unit: FieldUnit::Flag, doc: "1 when the last ACK grew cwnd in the Reno-friendly region" },
    ];

    fn on_ack(&mut self, s: &mut Window, a: &AckEvent) {
        // Linux cubictcp_acked: delay_min, skipping samples in the first second of an epoch
        // (ns-3: its samples are SRTT, skipped for CubicDelta = 10 ms).
        let sample = if self.ns3 { a.rtt.map(|_| a.srtt) } else { a.rtt };
        let settle = if self.ns3 { Dur::from_ms(10) } else { Dur::from_secs(1) };
        let mut sample = sample.filter(|_| self.epoch_start.get().is_none_or(|e| a.now.since(e) >= settle));
        if let Some(r) = sample {
            self.delay_min = Opt::some(self.delay_min.get().map_or(r, |m| m.min(r)));
        }
        let mut conservative = false;
        let mut rule = self.ss;
        if s.in_slow_start() && self.hystart.mode() != HystartMode::Off {
            // HyStart++ only in the initial slow start (RFC 9406 section 4.3).
            let active = self.hystart.mode() == HystartMode::Linux || s.ssthresh == u64::MAX;
            if active {
                if self.hystart.mode() == HystartMode::HystartPp {
                    rule = SsRule::Abc(8); // RFC 9406 L = 8 without pacing
                }
                let sample = hystart::Sample {
                    now: a.now,
                    rtt: sample.take(),
                    snd_una: a.snd_una,
                    snd_nxt: a.snd_nxt,
                    cwnd_segs: s.cwnd / s.mss as u64,
                    srtt: a.srtt,
                    mss: s.mss,
                };
                match self.hystart.on_ack(&sample, self.delay_min.get()) {
                    Verdict::Exit => s.ssthresh = s.cwnd,
                    Verdict::Conservative => conservative = true,
                    Verdict::SlowStart => {}
                }
            }
        }
        if !a.may_grow() {
            return;
        }
        let before = s.cwnd;
        let acked = slow_start(s, a.growth_bytes, rule);
        if conservative && s.cwnd > before {
            s.cwnd = before + (s.cwnd - before) / hystart::CSS_GROWTH_DIVISOR;
        }
        if acked == 0 {
            return;
        }
        let mss = s.mss as f64;
        let cwnd = s.cwnd as f64 / mss;
        let segs = acked as f64 / mss;
        if self.epoch_start.is_none() {
            self.start_epoch(a.now, cwnd);
        }
        let t = a.now.since(self.epoch_start.get().unwrap_or(a.now)).secs_f64();
        let rtt = match self.cfg.rtt {
            CubicRtt::MinRtt => self.delay_min.get().unwrap_or(a.min_rtt),
            CubicRtt::Srtt => a.srtt,
        }
        .secs_f64();
        let beta = self.cfg.beta;
        let mut new_cwnd = match self.cfg.increase {
            CubicIncrease::Rfc9438 => {
                let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
                // Reno-friendly estimate (RFC 9438 section 4.3).
                let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { 3.0 * (1.0 - beta) / (1.0 + beta) };
                self.w_est += alpha * segs / cwnd;
                if self.cfg.tcp_friendliness && self.w_cubic(t) < self.w_est {
                    self.in_reno_region = true;
                    self.w_est.max(cwnd)
                } else {
                    self.in_reno_region = false;
                    cwnd + segs * (target - cwnd) / cwnd
                }
            }
            CubicIncrease::Linux => {
                // bictcp_update, in whole segments as Linux and ns-3 compute it: the target is
                // origin -+ floor(C |t + RTT - K|^3); cnt = cwnd / (target - cwnd) (integer
                // division), or 100 cwnd when the target is not above cwnd; at most 20 before the
                // first loss; the Reno-friendly estimate (one segment per cwnd * scale / 8
                // acknowledged) lowers it to cwnd / (W_est - cwnd); at least 2. cwnd grows by
                // 1/cnt per segment acknowledged.
                let cw = whole(cwnd).max(1.0);
                let offs = t + rtt - self.k;
                let delta = whole(self.cfg.c * offs.abs().powi(3));
                let origin = whole(self.origin);
                let target = if offs < 0.0 { origin - delta } else { origin + delta };
                let mut cnt = if target > cw { whole(cw / (target - cw)) } else { 100.0 * cw };
                if self.no_w_max {
                    cnt = cnt.min(20.0);
                }
                self.in_reno_region = false;
                if self.cfg.tcp_friendliness {
                    let per = whole(cw * self.beta_scale / 8.0).max(1.0);
                    self.ack_cnt += segs;
                    while self.ack_cnt > per {
                        self.ack_cnt -= per;
                        self.w_est += 1.0;
                    }
                    if self.w_est > cw {
                        let max_cnt = whole(cw / (self.w_est - cw));
                        if cnt > max_cnt {
                            cnt = max_cnt;
                            self.in_reno_region = true;
                        }
                    }
                }
                if self.ns3 {
                    // ns-3 TcpCubic::IncreaseWindow: whole segments from a counter, one per ACK
                    // at most (m_cWndCnt += segmentsAcked; if m_cWndCnt >= cnt, cwnd += MSS and
                    // m_cWndCnt -= cnt)
                    self.cwnd_cnt += segs;
                    let cnt = cnt.max(2.0);
                    if self.cwnd_cnt >= cnt {
                        self.cwnd_cnt -= cnt;
                        s.cwnd += s.mss as u64;
                    }
                    return;
                }
                cwnd + segs / cnt.max(2.0)
            }
        };
        if self.ns3 {
            new_cwnd = new_cwnd.min(cwnd + 1.0); // TcpCubic::IncreaseWindow: one segment per ACK at most
        }
        s.cwnd = crate::units::round_u64(new_cwnd * mss).max(s.cwnd);
    }

    /// Linux `bictcp_cwnd_event(CA_EVENT_TX_START)`: after an idle period the epoch moves on by
    /// it (no later than now), so the curve does not count the idle time as growth time
    /// (Linux commit 30927520, "tcp_cubic: better follow cubic curve after idle period"; RFC
    /// 9438 section 5.8). ns-3 3.44's TcpCubic has no such event.
    fn on_tx_start(&mut self, idle: Dur, now: Time) {
        if self.ns3 || idle == Dur::ZERO {
            return;
        }
        if let Some(e) = self.epoch_start.get() {
            self.epoch_start = Opt::some((e + idle).min(now));
        }
    }

    fn on_congestion(&mut self, s: &mut Window, e: &CongestionEvent) -> u64 {
        if e.kind == CongestionKind::Timeout {
            self.after_rto = !self.ns3; // ns-3's CubicReset keeps m_lastMaxCwnd
            // Linux bictcp_reset on entering Loss: HyStart starts over, delay_min is forgotten.
            self.hystart.reset();
            self.delay_min = Opt::NONE;
        }
        if !e.new_episode {
            // A timeout within the episode already reduced for: keep W_max and cwnd_prior, the
            // window before the loss (the sender keeps ssthresh).
            self.epoch_start = Opt::NONE;
            self.no_w_max |= self.after_rto;
            return s.ssthresh;
        }
        let ss = self.reduce(s.cwnd_segs());
        // bictcp_reset also zeroes last_max_cwnd: the cnt clamp of 20 applies again.
        self.no_w_max |= e.kind == CongestionKind::Timeout && !self.ns3;
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
            disorder: false,
            acked_bytes: acked,
            sacked_bytes: 0,
            growth_bytes: acked,
            lost_bytes: 0,
            prior_in_flight: 0,
            cwnd_limited: true,
            ece: false,
            ce_bytes: None,
            rtt: None,
            owd: None,
            srtt: rtt,
            min_rtt: rtt,
            delivered_total: 0,
            snd_una: 0,
            snd_nxt: 0,
            rate: RateSample::default(),
        }
    }

    fn event(kind: CongestionKind, now: Time) -> CongestionEvent {
        CongestionEvent { now, kind, flight_size: 0, new_episode: true, lost_bytes: 0 }
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

    /// After an idle second the curve resumes where it left off (Linux's CA_EVENT_TX_START
    /// moves the epoch on by the idle time), where without the shift t would jump by a second;
    /// in the ns-3 profile nothing moves. ns-3's reduction is in whole segments.
    #[test]
    fn idle_time_does_not_count_as_growth_time_and_ns3_reduces_in_whole_segments() {
        let rtt = Dur::from_ms(100);
        let mut c = Cubic::with_config(CubicConfig::default());
        let mut s = Window { cwnd: 1000 * MSS as u64, ssthresh: u64::MAX, mss: MSS };
        let t0 = Time::from_secs(1);
        s.ssthresh = c.on_congestion(&mut s, &event(CongestionKind::Loss, t0));
        s.cwnd = s.ssthresh;
        ack_clock(&mut c, &mut s, rtt, 20, t0);
        let epoch = c.epoch_start.get().expect("an epoch");
        let now = t0 + Dur::from_secs(3);
        c.on_tx_start(Dur::from_secs(1), now);
        assert_eq!(c.epoch_start.get(), Some(epoch + Dur::from_secs(1)));
        c.on_tx_start(Dur::from_secs(100), now);
        assert_eq!(c.epoch_start.get(), Some(now), "never later than now");

        let mut n = Cubic::new(&CubicConfig::default(), &CcEnv { mss: MSS, initial_cwnd: 10 * MSS as u64, profile: Profile::Ns3, slow_start: crate::stack::SlowStart::Ns3, rng_seed: 1, ts_tick: Dur::from_ms(1) });
        let mut s = Window { cwnd: 87 * MSS as u64 + 460, ssthresh: u64::MAX, mss: MSS };
        assert_eq!(n.on_congestion(&mut s, &event(CongestionKind::Loss, t0)), 60 * MSS as u64, "floor(87 x 0.7) = 60 segments");
        assert_eq!(n.w_max(), 87.0);
        s.cwnd = 80 * MSS as u64 + 999;
        assert_eq!(n.on_congestion(&mut s, &event(CongestionKind::Loss, t0)), 56 * MSS as u64);
        assert_eq!(n.w_max(), 68.0, "floor(80 x 1.7 / 2)");
        let e = n.epoch_start.get();
        n.on_tx_start(Dur::from_secs(1), now);
        assert_eq!(n.epoch_start.get(), e);
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
        let mut c = Cubic::with_config(CubicConfig { increase: CubicIncrease::Rfc9438, ..CubicConfig::default() });
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
        let mut c = Cubic::with_config(CubicConfig { increase: CubicIncrease::Rfc9438, ..CubicConfig::default() });
        let mut s = Window { cwnd: 20 * MSS as u64, ssthresh: u64::MAX, mss: MSS };
        s.ssthresh = c.on_congestion(&mut s, &event(CongestionKind::Loss, Time::ZERO)); // 14 MSS
        s.cwnd = s.ssthresh; // in recovery
        let rto = CongestionEvent { now: Time::from_ms(300), kind: CongestionKind::Timeout, flight_size: 0, new_episode: false, lost_bytes: 0 };
        c.on_congestion(&mut s, &rto);
        // slow start back to ssthresh (14), then congestion avoidance
        s.cwnd = s.ssthresh;
        let trace = ack_clock(&mut c, &mut s, rtt, 10, Time::from_secs(1));
        let w = trace.last().unwrap().1;
        let expect = 14.0 + 10.0 * 3.0 * 0.3 / 1.7; // alpha 0.529 per RTT, W_est < cwnd_prior = 20
        assert!((w - expect).abs() < 0.5, "cwnd {w} after 10 RTTs, expected about {expect} (alpha 0.529)");
    }

    /// Per-RTT slope of cwnd over rounds `from..to` of a scripted ACK clock after a loss at
    /// W_max = 20 segments, RTT 100 ms (the cubic curve sits near 20 there: K = 2.47 s).
    fn reno_slope(increase: CubicIncrease, from: usize, to: usize) -> (f64, bool) {
        let mut c = Cubic::with_config(CubicConfig { increase, ..CubicConfig::default() });
        let mut s = Window { cwnd: 20 * MSS as u64, ssthresh: u64::MAX, mss: MSS };
        s.ssthresh = c.on_congestion(&mut s, &event(CongestionKind::Loss, Time::ZERO));
        s.cwnd = s.ssthresh;
        let trace = ack_clock(&mut c, &mut s, Dur::from_ms(100), to, Time::ZERO);
        ((trace[to - 1].1 - trace[from - 1].1) / (to - from) as f64, c.in_reno_region)
    }

    /// Linux `bictcp_update` (and ns-3 `TcpCubic::Update`): the Reno-friendly estimate grows one
    /// segment per cwnd * 15 / 8 segments acknowledged (beta 0.7: scale 15), alpha = 8/15 = 0.533
    /// per RTT, also past the window before the loss; RFC 9438 switches to alpha 1 there.
    #[test]
    fn linux_reno_friendly_alpha_stays_8_15_past_cwnd_prior() {
        // From 14 segments, W_est passes cwnd_prior = 20 after about 11 RTTs; measure beyond it.
        let (linux, _) = reno_slope(CubicIncrease::Linux, 20, 30);
        let (rfc, reno_r) = reno_slope(CubicIncrease::Rfc9438, 20, 30);
        // (Linux's flag flips ACK by ACK: cwnd reaches the whole-segment W_est, then waits for it.)
        assert!(reno_r, "RFC 9438 in the Reno-friendly region");
        assert!((linux - 8.0 / 15.0).abs() < 0.03, "linux slope {linux} segments per RTT, expected 0.533");
        assert!((rfc - 1.0).abs() < 0.05, "RFC 9438 slope {rfc} segments per RTT, expected 1");
        // Below cwnd_prior the concave curve leads in both: about 0.5 segment per RTT over the
        // first 8 RTTs (0.536 and 0.493: Linux's target is in whole segments).
        let (l, r) = (reno_slope(CubicIncrease::Linux, 1, 8).0, reno_slope(CubicIncrease::Rfc9438, 1, 8).0);
        assert!((l - r).abs() < 0.1, "{l} {r}");
    }

    /// Linux clamps cnt to 20 until a loss has set last_max_cwnd: a window that left slow start
    /// without a loss (HyStart) grows by 1/20 segment per segment acknowledged, 5 % per RTT,
    /// where the cubic curve from K = 0 would barely move; after a loss the clamp is gone, and
    /// after a timeout (bictcp_reset) it is back.
    #[test]
    fn linux_grows_five_percent_per_rtt_before_the_first_loss() {
        let rtt = Dur::from_ms(100);
        let mut c = Cubic::with_config(CubicConfig::default());
        let mut s = Window { cwnd: 100 * MSS as u64, ssthresh: 100 * MSS as u64, mss: MSS };
        let trace = ack_clock(&mut c, &mut s, rtt, 10, Time::ZERO);
        let w = trace.last().unwrap().1;
        let expect = 100.0 * 1.05f64.powi(10); // 162.9
        assert!((w - expect).abs() < 1.0, "cwnd {w} after 10 RTTs, expected {expect:.1}");
        let mut r = Cubic::with_config(CubicConfig { increase: CubicIncrease::Rfc9438, ..CubicConfig::default() });
        let mut s = Window { cwnd: 100 * MSS as u64, ssthresh: 100 * MSS as u64, mss: MSS };
        let w_rfc = ack_clock(&mut r, &mut s, rtt, 10, Time::ZERO).last().unwrap().1;
        assert!(w_rfc < 110.0, "RFC 9438 from K = 0: {w_rfc}");
        // After a loss at 100 segments (W_max 100, cwnd 70) the clamp no longer applies: the
        // Reno-friendly estimate (0.533 per RTT) and the concave curve govern.
        let mut s = Window { cwnd: 100 * MSS as u64, ssthresh: u64::MAX, mss: MSS };
        s.ssthresh = c.on_congestion(&mut s, &event(CongestionKind::Loss, Time::from_secs(2)));
        s.cwnd = s.ssthresh;
        let w_loss = ack_clock(&mut c, &mut s, rtt, 3, Time::from_secs(2)).last().unwrap().1;
        assert!(w_loss < 70.0 * 1.05f64.powi(3) - 3.0, "after a loss: {w_loss}");
        // A timeout resets it (Linux bictcp_reset zeroes last_max_cwnd).
        s.ssthresh = c.on_congestion(&mut s, &event(CongestionKind::Timeout, Time::from_secs(3)));
        s.cwnd = s.ssthresh;
        let start = s.cwnd_segs();
        let w_rto = ack_clock(&mut c, &mut s, rtt, 10, Time::from_secs(4)).last().unwrap().1;
        assert!((w_rto - start * 1.05f64.powi(10)).abs() < 1.0, "after a timeout: {w_rto}, from {start}");
    }

    /// Slow start under a scripted ACK clock: round r acknowledges, one ACK per segment
    /// `spacing` apart, the segments sent during round r - 1, with RTT `rtts[r]` (the last value
    /// repeats). Returns (round, ACK index in the round, cwnd in segments) when slow start ends.
    fn slow_start_rounds(c: &mut Cubic, rtts: &[Dur], spacing: Dur, max_rounds: usize) -> Option<(usize, u64, u64)> {
        let mss = MSS as u64;
        let mut s = Window { cwnd: 10 * mss, ssthresh: u64::MAX, mss: MSS };
        let (mut una, mut nxt) = (0u64, 10 * mss);
        let mut now = Time::from_secs(1);
        for round in 0..max_rounds {
            let rtt = rtts[round.min(rtts.len() - 1)];
            let in_flight = (nxt - una) / mss;
            for i in 0..in_flight {
                now += spacing;
                una += mss;
                let ev = AckEvent { rtt: Some(rtt), snd_una: una, snd_nxt: nxt, ..ack(now, mss, rtt) };
                c.on_ack(&mut s, &ev);
                if !s.in_slow_start() {
                    return Some((round, i, s.cwnd / mss));
                }
                nxt = una + s.cwnd; // the sender fills the window
            }
        }
        None
    }

    /// Unset, HyStart is the profile's: Linux's, ns-3's, or none under ns2 (ns-2.35's cubic
    /// module is Linux 2.6.22's CUBIC 2.1, before HyStart).
    #[test]
    fn hystart_follows_the_profile() {
        use crate::stack::{Profile, SlowStart};
        for (profile, mode) in [(Profile::Linux, HystartMode::Linux), (Profile::Ns3, HystartMode::Ns3), (Profile::Ns2, HystartMode::Off)] {
            let env = CcEnv { mss: MSS, initial_cwnd: 10 * MSS as u64, profile, slow_start: SlowStart::Linux, rng_seed: 1, ts_tick: Dur::from_ms(1) };
            assert_eq!(<Cubic as Algorithm>::new(&CubicConfig::default(), &env).hystart.mode(), mode, "{profile:?}");
        }
    }

    fn hystart(mode: HystartMode) -> Cubic {
        Cubic::with_config(CubicConfig { hystart: Some(mode), ..CubicConfig::default() })
    }

    /// HyStart's delay detector (Linux tcp_cubic.c): with delay_min 40 ms the threshold is
    /// clamp(40 / 8, 4, 16) = 5 ms. Rounds 0-2 see 40 ms (cwnd 10, 20, 40 at their start), round 3
    /// sees 44 ms (below the threshold: no exit), round 4 sees 46 ms: slow start ends once the
    /// round has its 8 samples and the next ACK is checked (the first ACK of a round still belongs
    /// to the previous one), i.e. at the round's 10th ACK. ACKs 3 ms apart: no ACK train.
    #[test]
    fn hystart_exits_on_a_delay_increase_above_the_linux_threshold() {
        let ms = Dur::from_ms;
        let mut c = hystart(HystartMode::Linux);
        let exit = slow_start_rounds(&mut c, &[ms(40), ms(40), ms(40), ms(44), ms(46)], ms(3), 10);
        // round r starts with 10 * 2^r segments in flight; round 4 starts at cwnd 160
        assert_eq!(exit, Some((4, 9, 160 + 9)), "ssthresh = cwnd before this ACK grows it (Linux: pkts_acked runs before cong_avoid)");
        assert!(c.hystart.found);
        // 44 ms all along: never
        let mut c = hystart(HystartMode::Linux);
        assert_eq!(slow_start_rounds(&mut c, &[ms(40), ms(40), ms(40), ms(44)], ms(3), 7), None);
        // a 12 ms increase at cwnd 10 (below hystart_low_window = 16): no exit in that round
        let mut c = hystart(HystartMode::Linux);
        let exit = slow_start_rounds(&mut c, &[ms(40), ms(52)], ms(3), 3);
        assert_eq!(exit.map(|e| e.0), Some(1), "round 0 (cwnd 10..19) is below the low window; round 1 exits");
        // without HyStart, slow start goes on
        let mut c = hystart(HystartMode::Off);
        assert_eq!(slow_start_rounds(&mut c, &[ms(40), ms(52)], ms(3), 6), None);
    }

    /// HyStart's ACK-train detector: ACKs at most 2 ms apart, with a constant 40 ms RTT. The train
    /// threshold is (delay_min + ack_delay) / 2 = (40 + 1) / 2 = 20.5 ms (ack_delay = 1 ms at
    /// these rates): the first round whose train lasts longer, i.e. with at least 22 ACKs 1 ms
    /// apart once cwnd >= 16, ends slow start at its 22nd ACK.
    #[test]
    fn hystart_exits_when_an_ack_train_lasts_half_the_min_rtt() {
        let ms = Dur::from_ms;
        let mut c = hystart(HystartMode::Linux);
        let exit = slow_start_rounds(&mut c, &[ms(40)], ms(1), 10);
        // round 1 has 20 ACKs (too short); round 2 has 40: exit at index 21, cwnd 40 + 21
        assert_eq!(exit, Some((2, 21, 61)));
        // ns-3's train must outlast the whole delay_min (40 ms): round 2 is too short, round 3
        // (80 ACKs) exits at its 42nd ACK, 41 ms after the round began
        let mut c = hystart(HystartMode::Ns3);
        assert_eq!(slow_start_rounds(&mut c, &[ms(40)], ms(1), 10), Some((3, 41, 80 + 41)));
    }

    /// HyStart++ (RFC 9406): an RTT increase of at least clamp(lastRoundMinRTT / 8, 4 ms, 16 ms)
    /// enters Conservative Slow Start, which grows a quarter as fast; CSS_ROUNDS = 5 rounds later
    /// slow start ends. A round whose minimum RTT falls below the CSS baseline returns to slow
    /// start.
    #[test]
    fn hystart_plus_plus_conservative_slow_start() {
        let ms = Dur::from_ms;
        let mut c = hystart(HystartMode::HystartPp);
        let exit = slow_start_rounds(&mut c, &[ms(40), ms(40), ms(50)], ms(3), 20);
        let (round, _, cwnd) = exit.expect("HyStart++ ends slow start");
        // A HyStart++ round ends when the ACK reaches the snd_nxt of its start, so the round of
        // the first 50 ms samples also holds the last 40 ms one: the increase is seen in round 3,
        // which starts CSS; five rounds in CSS end with round 7.
        assert_eq!(round, 3 + CSS_ROUNDS_USIZE - 1);
        // Slow start doubled cwnd per round up to round 3 (about 80); CSS grows by a quarter of
        // the segments acknowledged, about 1.25x per round: ~80 x 1.25^5 = 244, where slow start
        // would have reached ~80 x 2^5.
        assert!((200..260).contains(&cwnd), "cwnd {cwnd}");
        // the RTT returns to 40 ms one round after the increase: back to slow start, no exit yet
        let mut c = hystart(HystartMode::HystartPp);
        let rtts = [ms(40), ms(40), ms(50), ms(40)];
        assert_eq!(slow_start_rounds(&mut c, &rtts, ms(3), 6), None);
        assert!(!c.hystart.in_css());
    }

    const CSS_ROUNDS_USIZE: usize = crate::cc::law::hystart::CSS_ROUNDS as usize;
}
