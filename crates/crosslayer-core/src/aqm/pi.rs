//! PI: arrivals are dropped (or CE-marked) with a probability that a discrete
//! proportional-integral controller updates `w` times a second from the instantaneous queue.
//!
//! Source: Hollot, Misra, Towsley, Gong, "On Designing Improved Controllers for AQM Routers
//! Supporting TCP Flows", IEEE INFOCOM 2001 (the PI controller and its digital form); ns-2
//! `queue/pi.cc` and the `Queue/PI` defaults in `tcl/lib/ns-default.tcl` (ns-2.35), read for
//! behaviour (not copied). Linux and ns-3 mainline have no PI queue.
//!
//! Every `1 / w` seconds (ns-2 `calculate_p`):
//!
//! `p = a (q - q_ref) - b (q_old - q_ref) + p_old`, clamped to [0, 1]; `q_old = q`,
//!
//! with `q` the instantaneous queue in packets (`queue_in_bytes`: bytes / `mean_pkt_size`).
//! `a - b = K_PI / w` is the integral gain per sample and `a + b = 2 K_PI / z` the proportional
//! part (bilinear transform of `K_PI (s / z + 1) / s`). On arrival: tail drop at `limit_pkts`;
//! otherwise drop with probability p (`bytemode`: p x size / `mean_pkt_size`, at most 1); with
//! `ecn`, ECN-capable arrivals are marked instead (ns-2 `setbit_`).
//!
//! Deliberate deviations: the early drop is `u < p` with u uniform in [0, 1) (ns-2: `u <= p`,
//! which can drop at p = 0); the packet limit is Linux's usual 1000 rather than ns-2's
//! `Queue limit_ 50` (which would sit at q_ref); `mean_pkt_size` defaults to the 1500-byte packets
//! this simulator sends (ns-2 `mean_pktsize_` 500). The paper's design rule (a, b from the link
//! rate, the least number of flows and the largest RTT) is not provided: a and b are parameters.

use super::law::fifo::Fifo;
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Bytes, Dur, Time};

crate::params! {
    /// PI parameters; the defaults are ns-2's `Queue/PI` (Hollot et al.'s example controller).
    pub struct PiConfig {
        /// Gain on the current queue error, per packet.
        a: f64 = 1.822e-5, Number("1/pkt"), range(>= 0.0, <= 1.0), "Hollot et al. 2001 design example; ns-2 Queue/PI a_ 0.00001822";
        /// Gain on the previous queue error, per packet.
        b: f64 = 1.816e-5, Number("1/pkt"), range(>= 0.0, <= 1.0), "Hollot et al. 2001 design example; ns-2 Queue/PI b_ 0.00001816";
        /// Sampling (update) frequency of the controller.
        w: f64 = 170.0, Number("Hz"), range(>= 1.0, <= 100000.0), "ns-2 Queue/PI w_ 170 (the paper's example samples at 160 Hz)";
        /// Queue length the controller regulates to.
        q_ref: f64 = 50.0, Number("pkts"), range(>= 0.0), "ns-2 Queue/PI qref_ 50 (the paper's example uses 200)";
        /// Measure the queue in bytes / mean_pkt_size instead of packets.
        queue_in_bytes: bool = false, Flag, range(), "ns-2 Queue/PI queue_in_bytes_ false";
        /// Scale the drop probability by packet size / mean_pkt_size.
        bytemode: bool = false, Flag, range(), "ns-2 Queue/PI bytes_ false";
        /// Packet size for queue_in_bytes and bytemode.
        mean_pkt_size: Bytes = Bytes::new(1500), Size, range(>= 1), "1500-byte packets (ns-2 Queue/PI mean_pktsize_ 500)";
        /// CE-mark ECN-capable packets instead of dropping them.
        ecn: bool = false, Flag, range(), "ns-2 Queue/PI setbit_ false";
        /// Hard limit: arrivals beyond it are tail-dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux txqueuelen 1000 (ns-2 Queue limit_ 50)";
    }
}

const REASON_OVERFLOW: u8 = 0;
const REASON_PI: u8 = 1;

/// The controller's variables (ns-2 names in the comments).
#[derive(Clone, Copy, Debug, Default)]
pub struct PiVars {
    /// Drop probability (`v_prob`).
    pub p: f64,
    /// Queue at the previous sample, packets (`qold`, converted in byte mode).
    pub q_old: f64,
}

#[derive(Debug)]
pub struct Pi {
    cfg: PiConfig,
    pub vars: PiVars,
    /// Sampling period, 1 / w.
    interval: Dur,
    next_update: Time,
    fifo: Fifo,
    /// The link runs it through `decide` (`QueueDisc::bypass`): `fifo` holds nothing, and the
    /// controller samples the queue's backlog.
    bypassed: bool,
    /// Early drops and marks decided.
    early: u64,
}

impl Algorithm for Pi {
    type Config = PiConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "pi",
        aliases: &["pi_aqm"],
        summary: "PI: drop or mark arrivals with a probability a proportional-integral controller sets 170 times a second from the queue length",
        sources: &["Hollot, Misra, Towsley, Gong, IEEE INFOCOM 2001", "ns-2 queue/pi.cc"],
    };
    fn new(cfg: &PiConfig, _env: &QdiscEnv) -> Pi {
        let interval = Dur::from_ns((1e9 / cfg.w).round() as u64);
        Pi {
            vars: PiVars::default(),
            interval,
            next_update: Time::ZERO + interval,
            fifo: Fifo::new(cfg.limit_pkts),
            bypassed: false,
            early: 0,
            cfg: cfg.clone(),
        }
    }
}

impl Pi {
    /// The queue as the controller sees it, packets.
    fn q_pkts(&self, (pkts, bytes): (u32, u64)) -> f64 {
        if self.cfg.queue_in_bytes {
            bytes as f64 / self.cfg.mean_pkt_size.get() as f64
        } else {
            pkts as f64
        }
    }

    /// One controller sample with the queue at `q` packets (ns-2 `calculate_p`).
    pub fn update(&mut self, q: f64) {
        let c = &self.cfg;
        let v = &mut self.vars;
        let p = c.a * (q - c.q_ref) - c.b * (v.q_old - c.q_ref) + v.p;
        v.p = p.clamp(0.0, 1.0);
        v.q_old = q;
    }

    /// The early-drop test for an arrival of `size` bytes with uniform draw `u`.
    fn drop_early(&self, size: u32, u: f64) -> bool {
        let mut p = self.vars.p;
        if self.cfg.bytemode {
            p = (p * size as f64 / self.cfg.mean_pkt_size.get() as f64).min(1.0);
        }
        u < p
    }
}

impl QueueDisc for Pi {
    const REASONS: &'static [Reason] = &[
        OVERFLOW,
        Reason { name: "pi", doc: "PI's early drop (or CE mark) with the controller's probability" },
    ];
    const STATS: &'static [Field] = &[Field { name: "early", unit: FieldUnit::Count, doc: "early drops and marks decided" }];
    const STATE: &'static [Field] = &[
        Field { name: "drop_prob", unit: FieldUnit::Ratio, doc: "PI's drop probability p" },
        Field { name: "q_old_pkts", unit: FieldUnit::Pkts, doc: "the queue at the last sample" },
    ];
    const TIMER: bool = true;
    // An arrival reads the controller's p and the packets queued (the limit); the controller's
    // sample reads the backlog at its own time: as PIE (`pie.rs`).
    const DECIDES_AT_ARRIVAL: bool = true;

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let verdict = self.decide(id, self.fifo.backlog(), ctx);
        self.fifo.keep(verdict, id, ctx)
    }

    fn decide(&mut self, id: PacketId, (pkts, _): (u32, u64), ctx: &mut QdiscCtx<'_>) -> Verdict {
        if pkts >= self.cfg.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        let size = ctx.size(id);
        if self.vars.p > 0.0 {
            let u = ctx.rng().next_f64();
            if self.drop_early(size, u) {
                self.early += 1;
                if !(self.cfg.ecn && ctx.mark(id, REASON_PI)) {
                    return Verdict::Dropped(REASON_PI);
                }
            }
        }
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let id = self.fifo.pop(ctx)?;
        Some(id)
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
    fn next_timer(&self) -> Time {
        self.next_update
    }
    fn bypass(&mut self) {
        self.bypassed = true;
    }

    fn fifo_limits(&self) -> (u32, u64) {
        (self.cfg.limit_pkts, u64::MAX)
    }

    fn on_timer(&mut self, ctx: &mut QdiscCtx<'_>) {
        let backlog = if self.bypassed { (ctx.backlog_pkts(), ctx.backlog_bytes()) } else { self.fifo.backlog() };
        while self.next_update <= ctx.now {
            self.update(self.q_pkts(backlog));
            self.next_update += self.interval;
        }
    }
    fn stats(&self, out: &mut [u64]) {
        out[0] = self.early;
    }
    fn state(&self, out: &mut [f64]) {
        out.copy_from_slice(&[self.vars.p, self.vars.q_old]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{Qdisc, QdiscConfig, Queue};
    use crate::packet::{Ecn, Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::Rate;

    fn env() -> QdiscEnv {
        QdiscEnv { link_rate: Rate::from_mbps(100) }
    }

    /// ns-2 `calculate_p`, written out from its text (packet mode): its two comparisons kept.
    #[allow(clippy::manual_clamp)]
    fn ns2_calculate_p(a: f64, b: f64, qref: f64, qlen: f64, qold: f64, v_prob: f64) -> f64 {
        let mut p = a * (qlen - qref) - b * (qold - qref) + v_prob;
        if p < 0.0 {
            p = 0.0;
        }
        if p > 1.0 {
            p = 1.0;
        }
        p
    }

    /// The update against the formula over a grid of (q, q_old, p_old), with the default gains
    /// and with large ones that reach both clamps.
    #[test]
    fn update_follows_the_pi_formula_and_clamps() {
        let (mut clamped_low, mut clamped_high) = (0, 0);
        for (a, b) in [(1.822e-5, 1.816e-5), (0.01, 0.008)] {
            for q in [0.0, 1.0, 20.0, 49.0, 50.0, 51.0, 200.0, 999.0] {
                for q_old in [0.0, 30.0, 50.0, 70.0, 600.0] {
                    for p_old in [0.0, 1e-4, 0.05, 0.5, 0.999, 1.0] {
                        let mut pi = Pi::new(&PiConfig { a, b, ..Default::default() }, &env());
                        pi.vars = PiVars { p: p_old, q_old };
                        pi.update(q);
                        let want = ns2_calculate_p(a, b, 50.0, q, q_old, p_old);
                        assert!((pi.vars.p - want).abs() < 1e-15, "a {a} q {q} q_old {q_old} p_old {p_old}: {} != {want}", pi.vars.p);
                        assert_eq!(pi.vars.q_old, q);
                        clamped_low += (want == 0.0 && p_old > 0.0) as u32;
                        clamped_high += (want == 1.0 && p_old < 1.0) as u32;
                    }
                }
            }
        }
        assert!(clamped_low > 0 && clamped_high > 0, "the grid reaches both clamps");
        // steady queue at q_ref: p stays put; a steady excess e adds (a - b) e per sample
        let mut pi = Pi::new(&PiConfig::default(), &env());
        pi.vars = PiVars { p: 0.01, q_old: 50.0 };
        pi.update(50.0);
        assert_eq!(pi.vars.p, 0.01);
        pi.vars.q_old = 150.0;
        pi.update(150.0);
        assert!((pi.vars.p - (0.01 + (1.822e-5 - 1.816e-5) * 100.0)).abs() < 1e-15);
    }

    fn pkt(arena: &mut PacketArena, size: u32, ecn: Ecn) -> PacketId {
        arena.alloc(Packet { size_bytes: size, ecn, ..Default::default() })
    }

    fn vars(q: &Queue) -> PiVars {
        match &q.qdisc {
            Qdisc::Pi(p) => p.vars,
            _ => unreachable!(),
        }
    }

    /// Through the queue: samples every 1 / 170 s of the instantaneous queue (packets, or bytes /
    /// mean_pkt_size), the first one 1 / w after the start.
    #[test]
    fn timer_samples_the_instantaneous_queue_every_one_over_w() {
        for in_bytes in [false, true] {
            let cfg = PiConfig { a: 1e-3, b: 0.5e-3, q_ref: 5.0, queue_in_bytes: in_bytes, ..Default::default() };
            let mut q = Queue::new(&QdiscConfig::Pi(cfg), &env(), Rng::stream(1, StreamKind::Qdisc, 0));
            let (mut arena, mut dropped) = (PacketArena::new(), vec![]);
            let period = Dur::from_ns(5_882_353); // 1 / 170 s
            assert_eq!(q.next_timer(), Time::ZERO + period);
            let (mut p, mut q_old) = (0.0f64, 0.0f64);
            let mut now = Time::ZERO;
            for k in 1..=12u64 {
                // 3 packets of 750 bytes arrive per period (no drops while p stays 0 here ...)
                for _ in 0..3 {
                    let id = pkt(&mut arena, 750, Ecn::NotEct);
                    if !q.enqueue(id, now, &mut arena, &mut dropped) {
                        arena.free(id);
                    }
                }
                now = Time::ZERO + period.mul(k);
                assert_eq!(q.next_timer(), now);
                q.on_timer(now, &mut arena, &mut dropped);
                let qlen = if in_bytes { q.len_bytes() as f64 / 1500.0 } else { q.len_pkts() as f64 };
                p = (1e-3 * (qlen - 5.0) - 0.5e-3 * (q_old - 5.0) + p).clamp(0.0, 1.0);
                q_old = qlen;
                let v = vars(&q);
                assert!((v.p - p).abs() < 1e-12 && v.q_old == q_old, "bytes {in_bytes} sample {k}: {v:?}, want p {p}");
            }
            assert!(p > 0.0);
            q.check_identities().unwrap();
        }
    }

    /// Arrivals are dropped with probability p (and never at p = 0); bytemode scales p by size;
    /// with ecn, ECN-capable arrivals are marked instead and the rest dropped.
    #[test]
    fn arrivals_are_dropped_or_marked_with_probability_p() {
        for (bytemode, size, ecn, expect) in [(false, 1500, false, 0.2), (true, 750, false, 0.1), (true, 6000, false, 0.8), (false, 1500, true, 0.2)] {
            let cfg = PiConfig { bytemode, ecn, limit_pkts: 1_000_000, ..Default::default() };
            let mut q = Queue::new(&QdiscConfig::Pi(cfg), &env(), Rng::stream(7, StreamKind::Qdisc, 0));
            if let Qdisc::Pi(pi) = &mut q.qdisc {
                pi.vars.p = 0.2;
            }
            let (mut arena, mut dropped) = (PacketArena::new(), vec![]);
            let n = 100_000;
            for i in 0..n {
                let e = if ecn && i % 2 == 0 { Ecn::Ect0 } else { Ecn::NotEct };
                let id = pkt(&mut arena, size, e);
                if !q.enqueue(id, Time::from_ns(i), &mut arena, &mut dropped) {
                    arena.free(id);
                }
            }
            let c = q.counters();
            let signalled = (c.drops_arrival + c.marks) as f64 / n as f64;
            let sd = (expect * (1.0 - expect) / n as f64).sqrt();
            assert!((signalled - expect).abs() < 4.0 * sd, "bytemode {bytemode} size {size}: {signalled}");
            if ecn {
                // half the arrivals are ECT: marks ~ 0.1 n, drops ~ 0.1 n
                assert!(c.marks > 9_000 && c.drops_arrival > 9_000, "marks {} drops {}", c.marks, c.drops_arrival);
            } else {
                assert_eq!(c.marks, 0);
            }
            q.check_identities().unwrap();
        }
        // p = 0: no early drop at all; the limit still applies
        let mut q = Queue::new(&QdiscConfig::Pi(PiConfig { limit_pkts: 10, ..Default::default() }), &env(), Rng::stream(7, StreamKind::Qdisc, 0));
        let (mut arena, mut dropped) = (PacketArena::new(), vec![]);
        for i in 0..20 {
            let id = pkt(&mut arena, 1500, Ecn::NotEct);
            if !q.enqueue(id, Time::from_ns(i), &mut arena, &mut dropped) {
                arena.free(id);
            }
        }
        assert_eq!((q.len_pkts(), q.counters().drops_arrival, q.reasons().drops[REASON_OVERFLOW as usize]), (10, 10, 10));
    }
}
