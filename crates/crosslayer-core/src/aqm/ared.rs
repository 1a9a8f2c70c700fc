//! Adaptive RED: RED whose max_p is adapted every `interval` to keep the average queue inside a
//! target band, with its parameters derived from the link rate when not given.
//!
//! Source: Floyd, Gummadi, Shenker, "Adaptive RED: An Algorithm for Increasing the Robustness of
//! RED's Active Queue Management" (ICSI tech report, 2001), sections 4 and 5; Linux
//! `include/net/red.h` (`red_adaptative_algo`, a timer every 500 ms) and ns-3 `RedQueueDisc`
//! (ARED) were read for behaviour (not copied). RED itself is `red.rs` (`RedCore`).
//!
//! * Every `interval` (0.5 s): with the target band `[min_th + 0.4 d, min_th + 0.6 d]`,
//!   `d = max_th - min_th`: if `avg` is above it and `max_p <= 0.5`,
//!   `max_p += alpha`, `alpha = min(0.01, max_p / 4)`; if below it and `max_p >= 0.01`,
//!   `max_p *= beta`, `beta = 0.9`.
//! * Automatic parameters (section 5), `C` the link rate in `mean_pkt_size` packets per second:
//!   `min_th = max(5, target_delay C / 2)` with `target_delay` 5 ms, `max_th = 3 min_th`,
//!   `w_q = 1 - exp(-1 / C)` (a one-second time constant); gentle mode on.
//!
//! Deliberate deviations: the update runs on a timer, as in Linux (ns-3 runs it on the first
//! arrival after each interval); the first update is one interval after the start. The
//! paper's `max_p` bounds are kept ([0.01, 0.5]); Linux clamps the same way.

use super::law::red::{RedCore, RedParams, RedQueue, RedSpacing, RED_REASONS, RED_STATE};
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict};
use crate::packet::PacketId;
use crate::params::Problem;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Bytes, Dur, Time};

crate::params! {
    /// Adaptive RED parameters; unset thresholds and weight follow the paper's rules from the
    /// link rate.
    pub struct AredConfig {
        /// Average queue delay the automatic min_th aims at.
        target_delay: Dur = Dur::from_ms(5), Time, range(> Dur::ZERO), "Floyd, Gummadi, Shenker 2001 section 5 (5 ms); ns-3 ARED TargetDelay 5 ms";
        /// Average queue (packets) below which nothing is dropped; unset: max(5, target_delay C / 2).
        min_th: Option<f64> = None, Number("pkts"), range(> 0.0), "Floyd, Gummadi, Shenker 2001 section 5";
        /// Average queue (packets) at which the drop probability reaches max_p; unset: 3 min_th.
        max_th: Option<f64> = None, Number("pkts"), range(> 0.0), "Floyd, Gummadi, Shenker 2001 section 5";
        /// Weight of the newest sample in the average; unset: 1 - exp(-1 / C) (C in packets/s).
        w_q: Option<f64> = None, Ratio, range(> 0.0, <= 1.0), "Floyd, Gummadi, Shenker 2001 section 5";
        /// Initial max_p (adapted within [0.01, 0.5]).
        max_p: f64 = 0.1, Ratio, range(>= 0.01, <= 0.5), "Floyd 1997 RED default; Floyd, Gummadi, Shenker 2001 keep max_p in [0.01, 0.5]";
        /// How often max_p is adapted.
        interval: Dur = Dur::from_ms(500), Time, range(>= Dur::from_us(100)), "Floyd, Gummadi, Shenker 2001 section 4 (0.5 s); Linux HZ/2 timer (at least 100 us, as PIE's tupdate: a shorter period is an event storm)";
        /// Multiplicative decrease of max_p when the average is below the band.
        beta: f64 = 0.9, Ratio, range(> 0.0, < 1.0), "Floyd, Gummadi, Shenker 2001 section 4";
        /// Packet size for C (packets/s), byte mode and the idle correction.
        mean_pkt_size: Bytes = Bytes::new(1500), Size, range(>= 1, <= Bytes::new(1 << 20)), "1500-byte packets (ns-3 MeanPktSize 500); at most 1 MiB";
        /// Drop spacing, as RED's.
        spacing: RedSpacing = RedSpacing::Linux, Choice, range(), "Linux red_action";
        /// CE-mark ECN-capable packets instead of dropping them.
        ecn: bool = false, Flag, range(), "Linux TC_RED_ECN off unless asked";
        /// With ecn: still drop (not mark) above the marking range.
        harddrop: bool = false, Flag, range(), "Linux TC_RED_HARDDROP off";
        /// Hard limit: arrivals beyond it are tail-dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux txqueuelen 1000";
    }
    check = AredConfig::check;
}

impl AredConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if let (Some(lo), Some(hi)) = (self.min_th, self.max_th) {
            if lo >= hi {
                out.push(Problem::new("min_th", format!("must be below max_th ({})", crate::params::num(hi))));
            }
        }
    }
}

/// The thresholds and weight Adaptive RED uses at `rate_pps` packets per second.
pub fn auto_params(cfg: &AredConfig, rate_pps: f64) -> (f64, f64, f64) {
    let min_th = cfg.min_th.unwrap_or_else(|| (cfg.target_delay.secs_f64() * rate_pps / 2.0).max(5.0));
    let max_th = cfg.max_th.unwrap_or(3.0 * min_th);
    let w_q = cfg.w_q.unwrap_or_else(|| 1.0 - (-1.0 / rate_pps).exp());
    (min_th, max_th, w_q)
}

/// `max_p` bounds of the adaptation (Floyd, Gummadi, Shenker 2001).
const MAX_P_LOW: f64 = 0.01;
const MAX_P_HIGH: f64 = 0.5;

#[derive(Debug)]
pub struct Ared {
    q: RedQueue,
    interval: Dur,
    beta: f64,
    next_update: Time,
    /// Adaptations that raised / lowered max_p.
    ups: u64,
    downs: u64,
}

impl Ared {
    pub fn core(&self) -> &RedCore {
        &self.q.core
    }

    /// One adaptation step (section 4).
    fn adapt(&mut self) {
        let p = &mut self.q.core.p;
        let d = p.max_th - p.min_th;
        let (lo, hi) = (p.min_th + 0.4 * d, p.min_th + 0.6 * d);
        let avg = self.q.core.avg;
        if avg > hi && p.max_p <= MAX_P_HIGH {
            p.max_p += (p.max_p / 4.0).min(0.01);
            self.ups += 1;
        } else if avg < lo && p.max_p >= MAX_P_LOW {
            p.max_p *= self.beta;
            self.downs += 1;
        }
    }
}

impl Algorithm for Ared {
    type Config = AredConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "ared",
        aliases: &["adaptive_red"],
        summary: "Adaptive RED: RED with max_p adapted every 0.5 s to hold the average queue in a target band, parameters from the link rate",
        sources: &["Floyd, Gummadi, Shenker, Adaptive RED, ICSI 2001", "Linux include/net/red.h (red_adaptative_algo)", "ns-3 RedQueueDisc (ARED)"],
    };
    fn new(cfg: &AredConfig, env: &QdiscEnv) -> Ared {
        let size = cfg.mean_pkt_size.get() as u32;
        let rate_pps = env.link_rate.bps() as f64 / (8.0 * size as f64);
        let (min_th, max_th, w_q) = auto_params(cfg, rate_pps);
        let p = RedParams { min_th, max_th, w_q, max_p: cfg.max_p, gentle: true, byte_mode: false, mean_pkt_size: size, spacing: cfg.spacing };
        Ared {
            q: RedQueue::new(RedCore::new(p, env.link_rate), cfg.ecn, cfg.harddrop, cfg.limit_pkts),
            interval: cfg.interval,
            beta: cfg.beta,
            next_update: Time::ZERO + cfg.interval,
            ups: 0,
            downs: 0,
        }
    }
}

impl QueueDisc for Ared {
    const REASONS: &'static [Reason] = RED_REASONS;
    const STATE: &'static [Field] = RED_STATE;
    const STATS: &'static [Field] = &[
        Field { name: "max_p_increases", unit: FieldUnit::Count, doc: "adaptations that raised max_p (average above the target band)" },
        Field { name: "max_p_decreases", unit: FieldUnit::Count, doc: "adaptations that lowered max_p (average below the target band)" },
    ];
    const TIMER: bool = true;

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        self.q.enqueue(id, ctx)
    }
    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        self.q.dequeue(ctx)
    }
    fn len_pkts(&self) -> u32 {
        self.q.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.q.len_bytes()
    }
    fn next_timer(&self) -> Time {
        self.next_update
    }
    fn on_timer(&mut self, ctx: &mut QdiscCtx<'_>) {
        while self.next_update <= ctx.now {
            self.adapt();
            self.next_update += self.interval;
        }
    }
    fn stats(&self, out: &mut [u64]) {
        out.copy_from_slice(&[self.ups, self.downs]);
    }
    fn state(&self, out: &mut [f64]) {
        self.q.state(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{QdiscConfig, Queue};
    use crate::rng::{Rng, StreamKind};
    use crate::units::Rate;

    fn ared(cfg: AredConfig, rate: Rate) -> Ared {
        Ared::new(&cfg, &QdiscEnv { link_rate: rate })
    }

    /// Section 5's rules: at 100 Mb/s and 1500-byte packets C = 8333 packets/s, so min_th =
    /// max(5, 0.005 * 8333 / 2) = 20.8, max_th = 62.5, w_q = 1 - exp(-1/8333) = 1.2e-4; at
    /// 1 Mb/s (C = 83) min_th is the floor of 5.
    #[test]
    fn parameters_follow_the_link_rate() {
        let a = ared(AredConfig::default(), Rate::from_bps(100_000_000));
        let c = 100e6 / 12_000.0;
        let p = a.core().p;
        assert!((p.min_th - 0.005 * c / 2.0).abs() < 1e-9 && (p.max_th - 3.0 * p.min_th).abs() < 1e-9);
        assert!((p.w_q - (1.0 - (-1.0 / c).exp())).abs() < 1e-15 && p.gentle);
        let slow = ared(AredConfig::default(), Rate::from_bps(1_000_000));
        assert_eq!((slow.core().p.min_th, slow.core().p.max_th), (5.0, 15.0));
        let given = ared(AredConfig { min_th: Some(10.0), max_th: Some(40.0), w_q: Some(0.01), ..Default::default() }, Rate::from_bps(1_000_000));
        assert_eq!((given.core().p.min_th, given.core().p.max_th, given.core().p.w_q), (10.0, 40.0, 0.01));
    }

    /// Section 4: above the band max_p grows additively by min(0.01, max_p / 4) per interval up to
    /// just above 0.5; below it, it shrinks by 0.9 per interval down to just below 0.01; inside
    /// the band it stays.
    #[test]
    fn max_p_steps_additively_up_and_multiplicatively_down() {
        let mut a = ared(AredConfig { min_th: Some(10.0), max_th: Some(30.0), max_p: 0.02, ..Default::default() }, Rate::from_bps(10_000_000));
        a.q.core.avg = 25.0; // band [18, 22]
        let mut seen = vec![a.core().p.max_p];
        for _ in 0..80 {
            a.adapt();
            seen.push(a.core().p.max_p);
        }
        assert!((seen[1] - 0.025).abs() < 1e-12, "0.02 + 0.02/4");
        assert!((seen[2] - 0.03125).abs() < 1e-12);
        let k = seen.iter().position(|&m| m > 0.04).unwrap();
        assert!((seen[k + 1] - (seen[k] + 0.01)).abs() < 1e-12, "capped at 0.01 once max_p > 0.04");
        assert!((seen[k] - (seen[k - 1] + seen[k - 1] / 4.0)).abs() < 1e-12);
        let top = *seen.last().unwrap();
        assert!(top > 0.5 && top <= 0.51, "stops once above 0.5: {top}");
        a.q.core.avg = 15.0;
        let mut n = 0;
        while a.core().p.max_p >= MAX_P_LOW {
            let before = a.core().p.max_p;
            a.adapt();
            assert!((a.core().p.max_p - 0.9 * before).abs() < 1e-12);
            n += 1;
        }
        assert_eq!(n, ((0.01f64 / top).ln() / 0.9f64.ln()).ceil() as usize);
        let bottom = a.core().p.max_p;
        a.adapt();
        assert_eq!(a.core().p.max_p, bottom, "no decrease below 0.01");
        a.q.core.avg = 20.0;
        a.adapt();
        assert_eq!(a.core().p.max_p, bottom, "inside the band");
    }

    /// The timer fires every interval through the queue's timer slot.
    #[test]
    fn adapts_on_its_timer() {
        let cfg = AredConfig { min_th: Some(10.0), max_th: Some(30.0), ..Default::default() };
        let mut q = Queue::new(&QdiscConfig::Ared(cfg), &QdiscEnv { link_rate: Rate::from_bps(10_000_000) }, Rng::stream(1, StreamKind::Qdisc, 0));
        assert_eq!(q.qdisc.next_timer(), Time::from_ms(500));
        let mut arena = crate::packet::PacketArena::new();
        let mut dropped = vec![];
        q.on_timer(Time::from_ms(500), &mut arena, &mut dropped);
        assert_eq!(q.qdisc.next_timer(), Time::from_ms(1000));
        let mut stats = [0u64; 2];
        q.qdisc.stats(&mut stats);
        assert_eq!(stats, [0, 1], "empty queue: average below the band, max_p lowered");
    }
}
