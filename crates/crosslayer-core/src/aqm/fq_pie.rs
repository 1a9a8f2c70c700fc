//! FQ-PIE: FQ-CoDel's flow queueing (hashed flow queues served by deficit round robin with a
//! new-flow priority) with a PIE controller on each flow queue.
//!
//! Source: Ramakrishnan, Bhasin, Saicharan, Monis, Patil, Tahiliani, "FQ-PIE Queue Discipline
//! in the Linux Kernel: Design, Implementation and Challenges", IEEE LCN Symposium 2019; Linux
//! `net/sched/sch_fq_pie.c` (since 5.6, with `include/net/pie.h`), read for behaviour (not
//! copied); ns-3 `fq-pie-queue-disc.cc`. Defaults are Linux's: 1024 flows, limit 10240 packets,
//! quantum = device MTU (1514), target 15 ms, tupdate 15 ms, alpha 2/16, beta 20/16, burst
//! allowance 150 ms per flow, ECN off, when on marking only while the flow's probability is at
//! most `ecn_prob` (10 %), timestamps for the delay (its dequeue-rate estimator off).
//!
//! * Enqueue: the flow queue is `hash(flow, perturbation) mod flows`. At `limit_pkts` packets in
//!   all queues the arrival is dropped (tail drop; Linux has no fattest-queue drop here). Else the
//!   flow's PIE decides with the flow's backlog (`PieVars::drop_early`, the law of `pie.rs`):
//!   drop, or CE-mark an ECN-capable arrival when `ecn` is on and the flow's probability is at
//!   most `ecn_prob`. A dropped arrival resets its flow's accumulated probability. An accepted
//!   packet joins its queue; a queue on no list joins the new list with `deficit = quantum`.
//! * Dequeue: FQ-CoDel's DRR exactly (see `fq_codel.rs`): the head of the new list, else the old
//!   list; a queue out of deficit gets `quantum` more and moves to the old list's tail; an empty
//!   queue from the new list moves to the old list if that is non-empty, otherwise leaves. The
//!   flow's PIE takes the packet's sojourn as its delay (0 if the flow emptied) and spends its
//!   burst allowance by the time since the flow's previous dequeue.
//! * Timer: every `tupdate` every flow's probability is updated from its own delay (Linux's
//!   single timer, which walks all flows, at most 2048 per run); Linux arms it first 0.5 s after
//!   setup, as here. The walk here skips the queues whose controller is at rest: empty, and
//!   unchanged by the last update (probability 0, burst allowance restored). An update of such a
//!   queue changes nothing, so the result is the same as walking all of them; a queue returns to
//!   the walk at its next arrival.
//!
//! Deliberate deviations: the hash is of the simulator's flow id (Linux: the skb hash of the
//! 5-tuple); probabilities are floats (Linux: 56-bit fixed point); no `memory_limit` (in Linux it
//! only counts `overmemory` events and drops nothing); no dequeue-rate estimator (Linux's
//! optional `dq_rate_estimator`), no byte mode.

use super::law::flow_queues::{self, DrrSlot, FlowScheduler};
use super::law::pie::{PieConfig, PieVariant, PieVars};
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict};
use crate::packet::PacketId;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Bytes, Dur, Time};
use std::collections::VecDeque;

crate::params! {
    /// FQ-PIE parameters; defaults are Linux sch_fq_pie's.
    pub struct FqPieConfig {
        /// Number of flow queues the hash maps into.
        flows: u32 = 1024, Count, range(>= 1, <= 65536), "Linux fq_pie flows_cnt 1024";
        /// Total packet limit; arrivals beyond it are dropped.
        limit_pkts: u32 = 10240, Packets, range(>= 1), "Linux fq_pie limit 10 * 1024";
        /// Bytes a queue may send per round.
        quantum: Bytes = Bytes::new(1514), Size, range(>= 1, <= Bytes::new(1 << 20)), "Linux fq_pie quantum = psched_mtu (1500 + 14); Linux accepts 1 to 1 MiB";
        /// PIE target queueing delay (each flow).
        target: Dur = Dur::from_ms(15), Time, range(> Dur::ZERO), "Linux pie_params_init target 15 ms (RFC 8033 QDELAY_REF)";
        /// Interval of the probability updates (all flows at once).
        tupdate: Dur = Dur::from_ms(15), Time, range(>= Dur::from_us(100)), "Linux pie_params_init tupdate 15 ms";
        /// Weight of the delay error, 1/s.
        alpha: f64 = 0.125, Number("1/s"), range(>= 0.0, <= 2.0), "Linux pie_params_init alpha 2 (/16)";
        /// Weight of the delay trend, 1/s.
        beta: f64 = 1.25, Number("1/s"), range(>= 0.0, <= 2.0), "Linux pie_params_init beta 20 (/16)";
        /// Burst allowance of each flow: no early drops for this long after it was quiet.
        max_burst: Dur = Dur::from_ms(150), Time, range(>= Dur::ZERO), "Linux pie_vars_init burst_time 150 ms";
        /// CE-mark ECN-capable packets instead of dropping them while the probability is at most ecn_prob.
        ecn: bool = false, Flag, range(), "Linux fq_pie: ECN off by default";
        /// Highest flow probability at which ECN-capable packets are marked rather than dropped.
        ecn_prob: f64 = 0.1, Ratio, range(>= 0.0, <= 1.0), "Linux fq_pie ecn_prob 10 (%)";
        /// Accumulate the probability between drops (RFC 8033 section 5.1).
        derandomize: bool = true, Flag, range(), "Linux pie_drop_early accu_prob (since 5.1)";
        /// MTU for the two-packet minimum backlog of the early-drop test.
        mtu: Bytes = Bytes::new(1514), Size, range(>= 1, <= Bytes::new(1 << 20)), "Linux pie_drop_early 2 * psched_mtu (crosslayer: at most 1 MiB)";
        /// Delay of the first probability update after the start.
        first_update: Dur = Dur::from_ms(500), Time, range(>= Dur::ZERO), "Linux fq_pie_init mod_timer(jiffies + HZ / 2)";
    }
}

const REASON_OVERFLOW: u8 = 0;
const REASON_PIE: u8 = 1;

#[derive(Debug)]
struct FlowQueue {
    fifo: VecDeque<PacketId>,
    /// Bytes queued.
    bytes: u64,
    drr: DrrSlot,
    /// The flow's PIE controller.
    pie: PieVars,
    /// In the timer's walk (`FqPie::live`).
    live: bool,
}

impl flow_queues::FlowQueue for FlowQueue {
    #[inline]
    fn slot(&mut self) -> &mut DrrSlot {
        &mut self.drr
    }
}

#[derive(Debug)]
pub struct FqPie {
    /// PIE parameters shared by all flows (linux variant).
    pie: PieConfig,
    limit_pkts: u32,
    ecn: bool,
    ecn_prob: f64,
    tupdate: Dur,
    queues: Vec<FlowQueue>,
    sched: FlowScheduler,
    /// The queues the timer updates: all but those at rest (see the module docs).
    live: Vec<u32>,
    next_update: Time,
    pkts: u32,
    bytes: u64,
    /// Early drops and marks decided, overflow drops, idle queues put on the new list.
    early: u64,
    marks: u64,
    overlimit: u64,
    new_flow_count: u64,
}

impl Algorithm for FqPie {
    type Config = FqPieConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "fq_pie",
        aliases: &["fqpie"],
        summary: "FQ-PIE: hashed flow queues in deficit round robin with new-flow priority, a PIE controller on each",
        sources: &["Ramakrishnan et al., IEEE LCN Symposium 2019", "Linux net/sched/sch_fq_pie.c, include/net/pie.h", "ns-3 fq-pie-queue-disc.cc"],
    };
    fn new(cfg: &FqPieConfig, _env: &QdiscEnv) -> FqPie {
        let pie = PieConfig {
            target: cfg.target,
            tupdate: cfg.tupdate,
            alpha: cfg.alpha,
            beta: cfg.beta,
            max_burst: cfg.max_burst,
            limit_pkts: cfg.limit_pkts,
            variant: PieVariant::Linux,
            derandomize: cfg.derandomize,
            ecn: cfg.ecn,
            ecn_threshold: cfg.ecn_prob,
            bytemode: false,
            mean_pkt_size: cfg.mtu,
            ..Default::default()
        };
        let queues = (0..cfg.flows)
            .map(|_| FlowQueue { fifo: VecDeque::new(), bytes: 0, drr: DrrSlot::default(), pie: PieVars::new(&pie), live: false })
            .collect();
        FqPie {
            pie,
            limit_pkts: cfg.limit_pkts,
            ecn: cfg.ecn,
            ecn_prob: cfg.ecn_prob,
            tupdate: cfg.tupdate,
            queues,
            sched: FlowScheduler::new(cfg.flows, cfg.quantum.get()),
            live: Vec::new(),
            next_update: Time::ZERO + cfg.first_update,
            pkts: 0,
            bytes: 0,
            early: 0,
            marks: 0,
            overlimit: 0,
            new_flow_count: 0,
        }
    }
}

impl FqPie {
    /// Every flow's probability update (Linux fq_pie_timer), skipping the queues at rest.
    fn update_all(&mut self) {
        let (queues, pie) = (&mut self.queues, &self.pie);
        self.live.retain(|&idx| {
            let q = &mut queues[idx as usize];
            let before = q.pie;
            q.pie.update(pie, q.bytes);
            q.live = q.bytes > 0 || q.pie != before;
            q.live
        });
    }
}

impl QueueDisc for FqPie {
    const REASONS: &'static [Reason] = &[
        Reason { name: "overflow", doc: "over the total packet limit: the arrival is dropped" },
        Reason { name: "pie", doc: "the flow queue's PIE early drop (or CE mark) with its own probability" },
    ];
    const STATS: &'static [Field] = &[
        Field { name: "early", unit: FieldUnit::Count, doc: "early drops and marks decided by the flows' PIE" },
        Field { name: "ecn_marks", unit: FieldUnit::Count, doc: "early decisions carried out as CE marks" },
        Field { name: "overlimit", unit: FieldUnit::Count, doc: "arrivals dropped at the packet limit" },
        Field { name: "new_flows", unit: FieldUnit::Count, doc: "arrivals that put an idle queue on the new list" },
    ];
    const STATE: &'static [Field] = &[
        Field { name: "new_queues", unit: FieldUnit::Count, doc: "queues on the new list" },
        Field { name: "old_queues", unit: FieldUnit::Count, doc: "queues on the old list" },
        Field { name: "drop_prob_max", unit: FieldUnit::Ratio, doc: "the largest flow probability" },
        Field { name: "drop_prob_mean", unit: FieldUnit::Ratio, doc: "the mean probability of the queues holding packets" },
    ];
    const TIMER: bool = true;

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let flow = ctx.arena.get(id).flow;
        let idx = self.sched.classify(flow, ctx);
        let q = &mut self.queues[idx];
        if !q.live {
            q.live = true;
            self.live.push(idx as u32);
        }
        if self.pkts >= self.limit_pkts {
            self.overlimit += 1;
            q.pie.accu_prob = 0.0;
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        let size = ctx.size(id);
        let mut draw = None;
        let rng = ctx.rng();
        if q.pie.drop_early(&self.pie, q.bytes, size, || *draw.insert(rng.next_f64())) {
            self.early += 1;
            let mark = self.ecn && q.pie.drop_prob <= self.ecn_prob && ctx.mark(id, REASON_PIE);
            if !mark {
                q.pie.accu_prob = 0.0;
                return Verdict::Dropped(REASON_PIE);
            }
            self.marks += 1;
        }
        q.fifo.push_back(id);
        q.bytes += size as u64;
        if self.sched.on_enqueue(idx, &mut q.drr) {
            self.new_flow_count += 1;
        }
        self.pkts += 1;
        self.bytes += size as u64;
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let FqPie { queues, sched, pkts, bytes: total, .. } = self;
        sched.dequeue(queues, ctx, |q, ctx| {
            let id = q.fifo.pop_front()?;
            let (size, enq) = {
                let p = ctx.arena.get(id);
                (p.size_bytes, p.enq_time)
            };
            q.bytes -= size as u64;
            *total -= size as u64;
            *pkts -= 1;
            q.pie.on_dequeue_linux(ctx.now, enq, q.bytes);
            Some((id, size))
        })
    }

    fn len_pkts(&self) -> u32 {
        self.pkts
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn next_timer(&self) -> Time {
        self.next_update
    }
    fn on_timer(&mut self, ctx: &mut QdiscCtx<'_>) {
        while self.next_update <= ctx.now {
            self.update_all();
            self.next_update += self.tupdate;
        }
    }
    fn stats(&self, out: &mut [u64]) {
        out.copy_from_slice(&[self.early, self.marks, self.overlimit, self.new_flow_count]);
    }
    fn state(&self, out: &mut [f64]) {
        let (mut max, mut sum, mut n) = (0.0f64, 0.0, 0u32);
        for q in &self.queues {
            max = max.max(q.pie.drop_prob);
            if q.bytes > 0 {
                sum += q.pie.drop_prob;
                n += 1;
            }
        }
        let mean = if n > 0 { sum / n as f64 } else { 0.0 };
        let (new, old) = self.sched.active();
        out.copy_from_slice(&[new as f64, old as f64, max, mean]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::fq_codel::FqCodelConfig;
    use crate::aqm::{Qdisc, QdiscConfig, Queue};
    use crate::packet::{Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::Rate;

    fn queue(cfg: QdiscConfig) -> Queue {
        Queue::new(&cfg, &QdiscEnv { link_rate: Rate::from_bps(100_000_000) }, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    fn fq(q: &mut Queue) -> &mut FqPie {
        match &mut q.qdisc {
            Qdisc::FqPie(f) => f,
            _ => unreachable!(),
        }
    }

    fn pkt(a: &mut PacketArena, flow: u32, size: u32) -> PacketId {
        a.alloc(Packet { flow, size_bytes: size, ..Default::default() })
    }

    /// The scheduler is FQ-CoDel's: with neither AQM acting (FQ-CoDel's target 10 s; PIE within
    /// its burst allowance), a scripted mix of five flows with 100-1500-byte packets, arrivals
    /// interleaved with dequeues and queues emptying and returning, leaves both disciplines in
    /// the same order, packet by packet (same random stream, so the same hash).
    #[test]
    fn round_robin_order_is_fq_codels() {
        let codel = FqCodelConfig { target: Dur::from_secs(10), interval: Dur::from_secs(20), ..Default::default() };
        let mut qs = [queue(QdiscConfig::FqCodel(codel)), queue(QdiscConfig::FqPie(FqPieConfig::default()))];
        let mut orders: [Vec<(u32, u32)>; 2] = [vec![], vec![]];
        for (q, order) in qs.iter_mut().zip(orders.iter_mut()) {
            let mut a = PacketArena::new();
            let mut dropped = vec![];
            let mut rng = Rng::stream(9, StreamKind::Qdisc, 1);
            let mut seq = 0u32;
            for step in 0..3000u64 {
                let now = Time::ZERO + Dur::from_us(10 * step);
                for _ in 0..(rng.next_u64() % 3) {
                    let flow = (rng.next_u64() % 5) as u32 + 1;
                    let size = 100 + (rng.next_u64() % 1401) as u32;
                    let id = a.alloc(Packet { flow, size_bytes: size, seq: seq as u64, ..Default::default() });
                    seq += 1;
                    assert!(q.enqueue(id, now, &mut a, &mut dropped));
                }
                if step % 2 == 0 {
                    if let Some(id) = q.dequeue(now, &mut a, &mut dropped) {
                        order.push((a.get(id).flow, a.get(id).seq as u32));
                        a.free(id);
                    }
                }
            }
            assert!(dropped.is_empty());
            q.check_identities().unwrap();
        }
        assert!(orders[0].len() > 1000);
        assert_eq!(orders[0], orders[1]);
    }

    /// Each flow's probability comes from its own delay: flow 1's packets wait 20 ms, flow 2's
    /// 10 ms, flow 3 is idle; one timer run (at 500 ms, Linux's first) gives each RFC 8033's
    /// first step from p = 0, (alpha (qdelay - 15 ms) + beta qdelay) / 2048, clamped at 0.
    #[test]
    fn each_flow_probability_follows_its_own_delay() {
        let mut q = queue(QdiscConfig::FqPie(FqPieConfig::default()));
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        for _ in 0..10 {
            assert!(q.enqueue(pkt(&mut a, 1, 1500), Time::from_ms(480), &mut a, &mut dropped));
        }
        for _ in 0..10 {
            assert!(q.enqueue(pkt(&mut a, 2, 1500), Time::from_ms(490), &mut a, &mut dropped));
        }
        let mut seen = [0u32; 3];
        for _ in 0..4 {
            let id = q.dequeue(Time::from_ms(500), &mut a, &mut dropped).unwrap();
            seen[a.get(id).flow as usize] += 1;
            a.free(id);
        }
        assert_eq!(seen, [0, 2, 2], "one quantum each");
        q.on_timer(Time::from_ms(500), &mut a, &mut dropped);
        let f = fq(&mut q);
        let prob = |f: &FqPie, flow: u32| {
            let pert = f.sched.perturbation().unwrap();
            f.queues[flow_queues::queue_of(flow, pert, f.queues.len() as u64)].pie
        };
        for (flow, qdelay) in [(1u32, 0.020f64), (2, 0.010), (3, 0.0)] {
            let v = prob(f, flow);
            let expect = ((0.125 * (qdelay - 0.015) + 1.25 * qdelay) / 2048.0).max(0.0);
            eprintln!("flow {flow}: qdelay {:?}, p {:.3e} (expected {expect:.3e})", v.qdelay, v.drop_prob);
            assert!((v.drop_prob - expect).abs() < 1e-12, "flow {flow}: p {} expected {expect}", v.drop_prob);
        }
        assert!(prob(f, 1).drop_prob > 0.0 && prob(f, 2).drop_prob > 0.0);
        q.check_identities().unwrap();
    }

    /// The early drop uses the arriving packet's flow: flow 1 at probability 1 (burst allowance
    /// spent, 20 ms delay) loses every arrival once it holds two MTUs, flow 2 at 0 loses none;
    /// with ECN on and p <= ecn_prob ECN-capable arrivals of flow 1 are marked instead, above
    /// ecn_prob dropped; at the packet limit every arrival is dropped as overflow.
    #[test]
    fn early_drops_follow_the_arriving_flow_and_the_limit_holds() {
        for ecn in [false, true] {
            let mut q = queue(QdiscConfig::FqPie(FqPieConfig { ecn, limit_pkts: if ecn { 1000 } else { 40 }, ..Default::default() }));
            let mut a = PacketArena::new();
            let mut dropped = vec![];
            for f in [1, 2] {
                for _ in 0..3 {
                    assert!(q.enqueue(pkt(&mut a, f, 1500), Time::ZERO, &mut a, &mut dropped));
                }
            }
            let set = |q: &mut Queue, flow: u32, p: f64| {
                let f = fq(q);
                let pert = f.sched.perturbation().unwrap();
                let n = f.queues.len() as u64;
                let v = &mut f.queues[flow_queues::queue_of(flow, pert, n)].pie;
                v.drop_prob = p;
                v.burst_allowance = Dur::ZERO;
                v.qdelay = Dur::from_ms(20);
            };
            set(&mut q, 1, if ecn { 0.1 } else { 1.0 });
            set(&mut q, 2, 0.0);
            let (mut lost, mut marked) = ([0u32; 3], 0);
            for i in 0..if ecn { 200u32 } else { 34 } {
                let flow = 1 + i % 2;
                let id = a.alloc(Packet { flow, size_bytes: 1500, ecn: crate::packet::Ecn::Ect0, ..Default::default() });
                if q.enqueue(id, Time::ZERO, &mut a, &mut dropped) {
                    marked += (a.get(id).ecn == crate::packet::Ecn::Ce) as u32;
                } else {
                    lost[flow as usize] += 1;
                    a.free(id);
                }
            }
            if ecn {
                // p = 0.1 = ecn_prob, derandomized: a mark at least every 85th arrival of flow 1
                assert_eq!(lost, [0, 0, 0]);
                assert!(marked >= 2, "marked {marked}");
                set(&mut q, 1, 0.5);
                let id = a.alloc(Packet { flow: 1, size_bytes: 1500, ecn: crate::packet::Ecn::Ect0, ..Default::default() });
                let mut got = false;
                for _ in 0..10 {
                    let id2 = a.alloc(Packet { flow: 1, size_bytes: 1500, ecn: crate::packet::Ecn::Ect0, ..Default::default() });
                    if !q.enqueue(id2, Time::ZERO, &mut a, &mut dropped) {
                        got = true;
                        a.free(id2);
                        break;
                    }
                }
                a.free(id);
                assert!(got, "above ecn_prob ECN-capable arrivals are dropped");
            } else {
                assert_eq!(lost, [0, 17, 0], "flow 1 loses all, flow 2 none");
                assert_eq!(marked, 0);
                // fill flow 2 to the limit of 40 packets: then even flow 2 is refused
                while fq(&mut q).pkts < 40 {
                    assert!(q.enqueue(pkt(&mut a, 2, 1500), Time::ZERO, &mut a, &mut dropped));
                }
                assert!(!q.enqueue(pkt(&mut a, 2, 1500), Time::ZERO, &mut a, &mut dropped));
                assert_eq!(fq(&mut q).overlimit, 1);
            }
            q.check_identities().unwrap();
        }
    }
}
