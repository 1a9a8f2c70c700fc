//! AVQ (Adaptive Virtual Queue): each arrival also enters a virtual queue served at a virtual
//! capacity C~ <= C; when the virtual queue would overflow, the real packet is dropped (or
//! CE-marked). C~ is adapted on every arrival so that the arrival rate converges to gamma C.
//!
//! Source: Kunniyur and Srikant, "Analysis and Design of an Adaptive Virtual Queue (AVQ)
//! Algorithm for Active Queue Management", ACM SIGCOMM 2001 (IEEE/ACM ToN 12(2), 2004):
//! `dC~/dt = alpha (gamma C - lambda)`, implemented as a token bucket; ns-2 `queue/vq.cc`
//! (by S. Kunniyur) and the `Queue/Vq` defaults in `tcl/lib/ns-default.tcl` (ns-2.35), read for
//! behaviour (not copied). Linux and ns-3 mainline have no AVQ.
//!
//! On each arrival of `b` bytes (packets: b = 1) at time t (ns-2 `Vq::enque`):
//!
//! 1. `VQ = max(VQ - C~ (t - s_vq), 0) + b`, `s_vq = t`;
//! 2. if `VQ > B` (B = `buflim` x the real buffer): `VQ = max(VQ - b, 0)` and the packet is
//!    marked (`ecn` and ECT) or dropped;
//! 3. unless it was dropped: `C~ = min(max(C~ + alpha (gamma C (t - s) - b), 0), C)`, `s = t`
//!    (ns-2 skips the adaptation for a dropped packet and keeps s, so the rate C~ tracks is the
//!    accepted rate);
//! 4. the real queue tail-drops at `limit_pkts`.
//!
//! C~ starts at `initial_ratio` x C and both clocks at the first arrival. By default the queues
//! are measured in bytes (ns-2's default since 2002): C in bytes/s, B = buflim x limit_pkts x
//! mean_pkt_size bytes.
//!
//! Deliberate deviations: the real queue's limit is in packets (ns-2 byte mode: limit x
//! mean_pktsize bytes); ns-2's drop-front and mark-front options are not provided;
//! `mean_pkt_size` defaults to 1500 bytes (ns-2 1000). Non-ECT packets are dropped when `ecn`
//! asks for a mark (ns-2 lets them through unmarked). alpha is a parameter (ns-2: the constant
//! 0.15).

use super::law::fifo::Fifo;
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Bytes, Time};

crate::params! {
    /// AVQ parameters; the defaults are ns-2's `Queue/Vq`.
    pub struct AvqConfig {
        /// Desired utilization: the arrival rate AVQ steers to gamma C.
        gamma: f64 = 0.98, Ratio, range(> 0.0, <= 1.0), "Kunniyur, Srikant 2001; ns-2 Queue/Vq gamma_ 0.98 (since 2002; 0.895 before)";
        /// Damping (adaptation gain) of the virtual capacity.
        alpha: f64 = 0.15, Number("1/s"), range(> 0.0, <= 100.0), "Kunniyur, Srikant 2001; ns-2 vq.cc alpha2 0.15";
        /// Virtual capacity at the first arrival, as a fraction of the link rate.
        initial_ratio: f64 = 0.8, Ratio, range(> 0.0, <= 1.0), "ns-2 Queue/Vq ecnlim_ 0.8";
        /// Virtual buffer as a fraction of the real one.
        buflim: f64 = 1.0, Ratio, range(> 0.0, <= 10.0), "ns-2 Queue/Vq buflim_ 1.0";
        /// Measure the virtual queue and capacity in bytes (else in packets of mean_pkt_size).
        queue_in_bytes: bool = true, Flag, range(), "ns-2 Queue/Vq queue_in_bytes_ true (since 2002)";
        /// Packet size: the virtual buffer in bytes is buflim x limit_pkts x mean_pkt_size; in packet mode C in packets/s.
        mean_pkt_size: Bytes = Bytes::new(1500), Size, range(>= 1), "1500-byte packets (ns-2 Queue/Vq mean_pktsize_ 1000)";
        /// CE-mark ECN-capable packets instead of dropping them.
        ecn: bool = false, Flag, range(), "ns-2 Queue/Vq markpkts_ false";
        /// Real queue limit: arrivals beyond it are tail-dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux txqueuelen 1000 (ns-2 Queue limit_ 50)";
    }
}

const REASON_OVERFLOW: u8 = 0;
const REASON_AVQ: u8 = 1;

/// AVQ's variables (ns-2 names in the comments). Rates in bytes/s and lengths in bytes in byte
/// mode; packets/s and packets otherwise.
#[derive(Clone, Copy, Debug, Default)]
pub struct AvqVars {
    /// Virtual capacity C~ (`ctilde`).
    pub c_tilde: f64,
    /// Virtual queue length (`vq_len`).
    pub vq: f64,
    /// Last virtual-queue update (`vqprev_time`); None before the first arrival.
    pub vq_prev: Option<Time>,
    /// Last adaptation of C~ (`prev_time`).
    pub adapt_prev: Option<Time>,
}

#[derive(Debug)]
pub struct Avq {
    cfg: AvqConfig,
    pub vars: AvqVars,
    /// Link capacity C (bytes/s, or packets/s).
    c: f64,
    /// Virtual buffer B (bytes, or packets).
    vq_limit: f64,
    fifo: Fifo,
    /// Virtual-queue overflows (drops and marks).
    vq_overflows: u64,
}

impl Algorithm for Avq {
    type Config = AvqConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "avq",
        aliases: &["adaptive_virtual_queue"],
        summary: "AVQ: drop or mark arrivals that overflow a virtual queue whose capacity adapts per arrival toward a gamma = 0.98 utilization",
        sources: &["Kunniyur, Srikant, ACM SIGCOMM 2001 and IEEE/ACM ToN 12(2) 2004", "ns-2 queue/vq.cc"],
    };
    fn new(cfg: &AvqConfig, env: &QdiscEnv) -> Avq {
        let bytes_per_s = env.link_rate.bps() as f64 / 8.0;
        let mean = cfg.mean_pkt_size.get() as f64;
        let (c, vq_limit) = if cfg.queue_in_bytes {
            (bytes_per_s, cfg.buflim * cfg.limit_pkts as f64 * mean)
        } else {
            (bytes_per_s / mean, cfg.buflim * cfg.limit_pkts as f64)
        };
        Avq {
            vars: AvqVars { c_tilde: c * cfg.initial_ratio, ..Default::default() },
            c,
            vq_limit,
            fifo: Fifo::new(cfg.limit_pkts),
            vq_overflows: 0,
            cfg: cfg.clone(),
        }
    }
}

impl Avq {
    /// Steps 1-2 for an arrival of `b` (bytes or 1) at `now`: true if the virtual queue
    /// overflows (the packet is to be marked or dropped).
    fn virtual_queue(&mut self, b: f64, now: Time) -> bool {
        let v = &mut self.vars;
        let prev = *v.vq_prev.get_or_insert(now);
        let dt = now.since(prev).secs_f64();
        v.vq = (v.vq - v.c_tilde * dt).max(0.0) + b;
        v.vq_prev = Some(now);
        if v.vq > self.vq_limit {
            v.vq = (v.vq - b).max(0.0);
            true
        } else {
            false
        }
    }

    /// Step 3: adapt C~ for an accepted arrival of `b` at `now`.
    fn adapt(&mut self, b: f64, now: Time) {
        let c = self.c;
        let v = &mut self.vars;
        let prev = *v.adapt_prev.get_or_insert(now);
        let dt = now.since(prev).secs_f64();
        let a = self.cfg.alpha;
        v.c_tilde = (v.c_tilde + a * self.cfg.gamma * c * dt - a * b).clamp(0.0, c);
        v.adapt_prev = Some(now);
    }
}

impl QueueDisc for Avq {
    const REASONS: &'static [Reason] = &[
        OVERFLOW,
        Reason { name: "avq", doc: "the virtual queue overflowed: AVQ drops (or CE-marks) the arrival" },
    ];
    const STATS: &'static [Field] = &[Field { name: "vq_overflows", unit: FieldUnit::Count, doc: "arrivals that overflowed the virtual queue (dropped or marked)" }];
    const STATE: &'static [Field] = &[
        Field { name: "virtual_capacity_bps", unit: FieldUnit::Bps, doc: "the virtual capacity C~" },
        Field { name: "vq_pkts", unit: FieldUnit::Pkts, doc: "the virtual queue length (bytes / mean_pkt_size in byte mode)" },
    ];

    // An arrival reads the virtual queue (its own, drained by the time since the last
    // arrival) and the packets queued (the limit); nothing reads a departure: as PIE (`pie.rs`).
    const DECIDES_AT_ARRIVAL: bool = true;

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let verdict = self.decide(id, self.fifo.backlog(), ctx);
        self.fifo.keep(verdict, id, ctx)
    }

    fn decide(&mut self, id: PacketId, (pkts, _): (u32, u64), ctx: &mut QdiscCtx<'_>) -> Verdict {
        let size = ctx.size(id);
        let b = if self.cfg.queue_in_bytes { size as f64 } else { 1.0 };
        let now = ctx.now;
        if self.virtual_queue(b, now) {
            self.vq_overflows += 1;
            if !(self.cfg.ecn && ctx.mark(id, REASON_AVQ)) {
                // no adaptation for a dropped packet (ns-2 Pktdrp)
                return Verdict::Dropped(REASON_AVQ);
            }
        }
        self.adapt(b, now);
        if pkts >= self.cfg.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        Verdict::Enqueued
    }

    fn fifo_limits(&self) -> (u32, u64) {
        (self.cfg.limit_pkts, u64::MAX)
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
    fn stats(&self, out: &mut [u64]) {
        out[0] = self.vq_overflows;
    }
    fn state(&self, out: &mut [f64]) {
        let mean = self.cfg.mean_pkt_size.get() as f64;
        let (cap_bps, vq_pkts) = if self.cfg.queue_in_bytes {
            (self.vars.c_tilde * 8.0, self.vars.vq / mean)
        } else {
            (self.vars.c_tilde * 8.0 * mean, self.vars.vq)
        };
        out.copy_from_slice(&[cap_bps, vq_pkts]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{Qdisc, QdiscConfig, Queue};
    use crate::packet::{Ecn, Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::{Dur, Rate};

    /// The paper's per-arrival pseudocode with ns-2's details, written out on its own: returns
    /// whether the arrival overflows the virtual queue, and updates (vq, c_tilde, s_vq, s).
    struct Reference {
        c: f64,
        b_max: f64,
        gamma: f64,
        alpha: f64,
        vq: f64,
        c_tilde: f64,
        s_vq: f64,
        s: f64,
        started: bool,
    }

    impl Reference {
        fn arrive(&mut self, t: f64, b: f64) -> bool {
            if !self.started {
                self.started = true;
                self.s_vq = t;
                self.s = t;
            }
            let mut vq = self.vq - self.c_tilde * (t - self.s_vq);
            if vq < 0.0 {
                vq = 0.0;
            }
            self.s_vq = t;
            let overflow = vq + b > self.b_max;
            if !overflow {
                vq += b;
            }
            self.vq = vq;
            if !overflow {
                let mut ct = self.c_tilde + self.alpha * self.gamma * self.c * (t - self.s) - self.alpha * b;
                if ct > self.c {
                    ct = self.c;
                }
                if ct < 0.0 {
                    ct = 0.0;
                }
                self.c_tilde = ct;
                self.s = t;
            }
            overflow
        }
    }

    fn pkt(arena: &mut PacketArena, size: u32, ecn: Ecn) -> PacketId {
        arena.alloc(Packet { size_bytes: size, ecn, ..Default::default() })
    }

    fn vars(q: &Queue) -> AvqVars {
        match &q.qdisc {
            Qdisc::Avq(a) => a.vars,
            _ => unreachable!(),
        }
    }

    /// 20,000 arrivals with random gaps (0 to 400 us, some bursts at the same instant) and sizes
    /// (52 to 1500 bytes) on a 10 Mb/s link with a 20-packet buffer, in byte and in packet mode:
    /// every drop decision, the virtual queue and C~ after every arrival agree with the
    /// reference; drops come exactly when the virtual queue would overflow; C~ reaches its upper
    /// clamp C in the lulls (the clamp at 0: next test).
    #[test]
    fn virtual_capacity_and_drops_follow_the_per_arrival_law() {
        for in_bytes in [true, false] {
            let link = Rate::from_mbps(10);
            let cfg = AvqConfig { queue_in_bytes: in_bytes, limit_pkts: 20, alpha: 2.0, ..Default::default() };
            let env = QdiscEnv { link_rate: link };
            let mut q = Queue::new(&QdiscConfig::Avq(cfg), &env, Rng::stream(5, StreamKind::Qdisc, 0));
            let c = if in_bytes { 1.25e6 } else { 1.25e6 / 1500.0 };
            let b_max = if in_bytes { 20.0 * 1500.0 } else { 20.0 };
            let mut r = Reference { c, b_max, gamma: 0.98, alpha: 2.0, vq: 0.0, c_tilde: 0.8 * c, s_vq: 0.0, s: 0.0, started: false };
            let (mut arena, mut dropped) = (PacketArena::new(), vec![]);
            let mut rng = Rng::stream(11, StreamKind::Qdisc, 1);
            let mut now = Time::from_ms(3);
            let (mut overflows, mut at_c) = (0, 0);
            for k in 0..20_000 {
                // the phases: overload (short gaps, big packets), then a lull (long gaps)
                let phase = (k / 2000) % 2;
                let gap_us = if phase == 0 { rng.range_inclusive(0, 200) } else { rng.range_inclusive(0, 3000) };
                now += Dur::from_us(gap_us);
                let size = [52u32, 576, 1500, 1500][rng.range_inclusive(0, 3) as usize];
                // the link drains the real queue at its rate
                while let Some(id) = q.dequeue(now, &mut arena, &mut dropped) {
                    arena.free(id);
                    if rng.chance(0.5) {
                        break;
                    }
                }
                let id = pkt(&mut arena, size, Ecn::NotEct);
                let drops_before = q.reasons().drops[REASON_AVQ as usize];
                if !q.enqueue(id, now, &mut arena, &mut dropped) {
                    arena.free(id);
                }
                let avq_drop = q.reasons().drops[REASON_AVQ as usize] > drops_before;
                let b = if in_bytes { size as f64 } else { 1.0 };
                let want = r.arrive(now.secs_f64(), b);
                assert_eq!(avq_drop, want, "bytes {in_bytes} arrival {k}");
                let v = vars(&q);
                let tol = 1e-9 * c;
                assert!((v.c_tilde - r.c_tilde).abs() <= tol, "bytes {in_bytes} arrival {k}: C~ {} != {}", v.c_tilde, r.c_tilde);
                assert!((v.vq - r.vq).abs() <= 1e-9 * b_max, "bytes {in_bytes} arrival {k}: VQ {} != {}", v.vq, r.vq);
                assert!(v.vq <= b_max);
                overflows += want as u32;
                at_c += (v.c_tilde == c) as u32;
            }
            assert!(overflows > 100 && at_c > 0, "bytes {in_bytes}: overflows {overflows}, at C {at_c}");
            q.check_identities().unwrap();
        }
    }

    /// A burst at one instant on a 100 Mb/s link, virtual buffer 10 packets (limit 20, buflim
    /// 0.5): exactly the 11th and later arrivals overflow (VQ 15,000 bytes is not more than B);
    /// 1.5 packets' worth of C~ time later one more fits. C~ moves by -alpha b per accepted
    /// arrival at the same instant, not at all for dropped ones; with ecn, ECT packets are marked
    /// and enqueued instead, and C~ adapts for them.
    #[test]
    fn drops_exactly_when_the_virtual_queue_would_overflow() {
        for ecn in [false, true] {
            let env = QdiscEnv { link_rate: Rate::from_mbps(100) };
            let cfg = AvqConfig { limit_pkts: 20, buflim: 0.5, ecn, ..Default::default() };
            let mut q = Queue::new(&QdiscConfig::Avq(cfg), &env, Rng::stream(5, StreamKind::Qdisc, 0));
            let (mut arena, mut dropped) = (PacketArena::new(), vec![]);
            let t0 = Time::from_ms(1);
            let c = 12.5e6;
            let mut c_tilde = 0.8 * c;
            for k in 1..=15 {
                let id = pkt(&mut arena, 1500, Ecn::Ect0);
                let accepted = q.enqueue(id, t0, &mut arena, &mut dropped);
                let overflow = k > 10;
                if !accepted {
                    arena.free(id);
                }
                assert_eq!(accepted, !overflow || ecn, "ecn {ecn} arrival {k}");
                if !overflow || ecn {
                    c_tilde -= 0.15 * 1500.0;
                }
                let v = vars(&q);
                assert!((v.c_tilde - c_tilde).abs() < 1e-6, "ecn {ecn} arrival {k}: {} != {c_tilde}", v.c_tilde);
                assert_eq!(v.vq, 1500.0 * k.min(10) as f64);
            }
            let v = vars(&q);
            assert_eq!(q.counters().marks, if ecn { 5 } else { 0 });
            // after the time C~ needs for 1500 bytes, exactly one more packet fits
            let dt = Dur::from_ns((1500.0 / v.c_tilde * 1e9).ceil() as u64);
            let id = pkt(&mut arena, 1500, Ecn::NotEct);
            assert!(q.enqueue(id, t0 + dt, &mut arena, &mut dropped));
            let id = pkt(&mut arena, 1500, Ecn::NotEct);
            assert!(!q.enqueue(id, t0 + dt, &mut arena, &mut dropped), "ecn {ecn}: a non-ECT overflow is dropped");
            arena.free(id);
            q.check_identities().unwrap();
        }
    }

    /// C~ never goes below 0: accepted arrivals at one instant subtract alpha b each until the
    /// clamp. Then ns-2's rule shows its corner: with C~ = 0 the virtual queue no longer drains,
    /// so once it is full every arrival overflows, is dropped, and (dropped packets do not adapt
    /// C~) nothing ever raises C~ again. In practice C~ cannot fall that far: between drops the
    /// accepted traffic exceeds C~ t by at most B, so C~ stays above about gamma C - alpha B.
    #[test]
    fn virtual_capacity_clamps_at_zero_where_ns2_then_stalls() {
        let env = QdiscEnv { link_rate: Rate::from_mbps(100) };
        // C~ starts at 1e-5 C = 125 B/s, less than alpha b = 225 B/s for one 1500-byte packet
        let cfg = AvqConfig { limit_pkts: 20, buflim: 0.5, initial_ratio: 1e-5, ..Default::default() };
        let mut q = Queue::new(&QdiscConfig::Avq(cfg), &env, Rng::stream(5, StreamKind::Qdisc, 0));
        let (mut arena, mut dropped) = (PacketArena::new(), vec![]);
        for _ in 0..10 {
            let id = pkt(&mut arena, 1500, Ecn::NotEct);
            assert!(q.enqueue(id, Time::from_ms(1), &mut arena, &mut dropped));
            assert_eq!(vars(&q).c_tilde, 0.0);
        }
        for k in 1..=1000u64 {
            if let Some(id) = q.dequeue(Time::from_ms(1 + k), &mut arena, &mut dropped) {
                arena.free(id);
            }
            let id = pkt(&mut arena, 1500, Ecn::NotEct);
            assert!(!q.enqueue(id, Time::from_ms(1 + k), &mut arena, &mut dropped), "arrival {k} at C~ = 0");
            arena.free(id);
        }
        let v = vars(&q);
        assert_eq!((v.c_tilde, v.vq), (0.0, 15_000.0));
        q.check_identities().unwrap();
    }
}
