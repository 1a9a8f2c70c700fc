//! FQ-CoDel: flows hashed into queues served by deficit round robin with a new-flow priority,
//! each queue managed by the CoDel control law; on overflow, packets are dropped from the
//! fattest queue.
//!
//! Source: RFC 8290 (2018), sections 4-5; Linux `net/sched/sch_fq_codel.c` (defaults: 1024 flows,
//! limit 10240 packets, quantum 1514 bytes, target 5 ms, interval 100 ms, ECN on, drop batch 64),
//! read for behaviour (not copied). The control law is `codel_law.rs`, shared with CoDel.
//!
//! * Enqueue: the flow's queue is `hash(flow, perturbation) mod flows`; a queue that is on no list
//!   joins the tail of the new list with `deficit = quantum`. Over `limit_pkts`: the queue with the
//!   largest byte backlog loses packets from its head until half of its backlog or `drop_batch`
//!   packets are gone, and their number is added to its CoDel `count` (Linux `fq_codel_drop`).
//! * Dequeue: the head of the new list, else of the old list; a queue whose deficit is used up
//!   gets `quantum` more and moves to the tail of the old list; CoDel dequeues from the chosen
//!   queue; an emptied queue from the new list moves to the old list (if that is not empty), one
//!   from the old list leaves the lists; the packet's size is taken from the deficit.
//!
//! Deliberate deviations: the hash is of the simulator's flow id (one TCP connection, or its ACK
//! stream, per id; Linux hashes the 5-tuple); the perturbation is drawn from the queue's random
//! stream. As in Linux, CoDel's one-MTU test uses the whole discipline's backlog, not the
//! queue's (RFC 8290 leaves this open). No `memory_limit` (only the packet limit).
//!
//! `ce_threshold` (Linux `TCA_FQ_CODEL_CE_THRESHOLD`, off by default) with
//! `ce_threshold_selector` / `ce_threshold_mask` (Linux 5.16+): a dequeued ECT packet whose
//! sojourn is above the threshold, and whose DS field ANDed with the mask equals the selector
//! (mask 0: any), is CE-marked whatever its queue's CoDel decides, for reason `ce_threshold`.
//! `tc qdisc ... fq_codel ce_threshold 1ms ce_threshold_selector 0x1/0x1` is FQ-CoDel's L4S mode:
//! ECT(1) packets (RFC 9331's L4S identifier) are marked above 1 ms, Classic flows keep CoDel's
//! 5 ms target in their own queues. The rule is the CoDel law's (`CeThreshold`), shared with
//! `codel`.

use super::law::codel::{CeThreshold, CodelParams, CodelStats, CodelVars};
use super::law::flow_queues::{self, DrrSlot, FlowScheduler};
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict};
use crate::packet::PacketId;
use crate::params::Problem;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Bytes, Dur};
use std::collections::VecDeque;

crate::params! {
    /// FQ-CoDel parameters; defaults are Linux sch_fq_codel's (RFC 8290 section 5.2).
    pub struct FqCodelConfig {
        /// Number of flow queues the hash maps into.
        flows: u32 = 1024, Count, range(>= 1, <= 65536), "RFC 8290 section 5.2.1; Linux fq_codel flows 1024";
        /// Total packet limit; beyond it the fattest queue loses packets.
        limit_pkts: u32 = 10240, Packets, range(>= 1), "Linux fq_codel limit 10240";
        /// Bytes a queue may send per round.
        quantum: Bytes = Bytes::new(1514), Size, range(>= 1, <= Bytes::new(1 << 20)), "RFC 8290 section 5.2.2; Linux quantum = device MTU + 14 (Linux rejects more than FQ_CODEL_QUANTUM_MAX = 1 MiB)";
        /// CoDel target (each queue).
        target: Dur = Dur::from_ms(5), Time, range(> Dur::ZERO), "RFC 8290 section 5.2.3; Linux 5 ms";
        /// CoDel interval (each queue).
        interval: Dur = Dur::from_ms(100), Time, range(> Dur::ZERO), "RFC 8290 section 5.2.3; Linux 100 ms";
        /// CE-mark ECN-capable packets instead of dropping them.
        ecn: bool = true, Flag, range(), "RFC 8290 section 5.2.7; Linux fq_codel ecn on";
        /// Most packets dropped from the fattest queue at one overflow.
        drop_batch: u32 = 64, Count, range(>= 1), "Linux fq_codel drop_batch_size 64";
        /// CoDel's minimum backlog before dropping (MAXPACKET).
        mtu: Bytes = Bytes::new(1514), Size, range(>= 1, <= Bytes::new(1 << 20)), "Linux psched_mtu: 1500 + 14 (crosslayer: at most 1 MiB, far above any link MTU)";
        /// Sojourn time above which a dequeued ECN-capable packet is CE-marked whatever its queue's CoDel decides (a shallow step marking for DCTCP-like and L4S senders); unset: off.
        ce_threshold: Option<Dur> = None, Time, range(<= Dur::from_secs(4294)), "Linux fq_codel ce_threshold (TCA_FQ_CODEL_CE_THRESHOLD): off (CODEL_DISABLED_THRESHOLD); tc takes whole microseconds, at most 2^32 - 1";
        /// With ce_threshold: mark only packets whose DS field (DSCP << 2 | ECN bits) ANDed with ce_threshold_mask equals this value (1 with mask 1: ECT(1) and CE, the L4S identifier).
        ce_threshold_selector: u8 = 0, Count, range(), "Linux 5.16+ fq_codel ce_threshold_selector (tc ce_threshold_selector VALUE/MASK): 0";
        /// The DS-field bits ce_threshold_selector compares; 0: the threshold applies to every ECN-capable packet.
        ce_threshold_mask: u8 = 0, Count, range(), "Linux 5.16+ fq_codel ce_threshold_mask: 0 (every packet)";
    }
    check = FqCodelConfig::check;
}

impl FqCodelConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.ce_threshold.is_none() {
            for (name, value) in [("ce_threshold_selector", self.ce_threshold_selector), ("ce_threshold_mask", self.ce_threshold_mask)] {
                if value != 0 {
                    out.push(Problem::new(name, "has no effect without ce_threshold: set ce_threshold too (e.g. \"1ms\"), or leave it 0"));
                }
            }
        } else if self.ce_threshold_selector & !self.ce_threshold_mask != 0 {
            out.push(Problem::new(
                "ce_threshold_selector",
                format!("{:#04x} has bits outside ce_threshold_mask ({:#04x}), so no packet can match: e.g. selector 0x1 with mask 0x1 selects ECT(1) (L4S)", self.ce_threshold_selector, self.ce_threshold_mask),
            ));
        }
    }
}

const REASON_OVERFLOW: u8 = 0;
const REASON_CODEL: u8 = 1;
const REASON_CE_THRESHOLD: u8 = 2;

#[derive(Debug)]
struct FlowQueue {
    fifo: VecDeque<PacketId>,
    bytes: u64,
    drr: DrrSlot,
    vars: CodelVars,
}

impl flow_queues::FlowQueue for FlowQueue {
    #[inline]
    fn slot(&mut self) -> &mut DrrSlot {
        &mut self.drr
    }
}

#[derive(Debug)]
pub struct FqCodel {
    params: CodelParams,
    limit_pkts: u32,
    drop_batch: u32,
    queues: Vec<FlowQueue>,
    sched: FlowScheduler,
    stats: CodelStats,
    pkts: u32,
    bytes: u64,
    /// Overflow events (fattest-queue drops) and new-flow arrivals.
    overflows: u64,
    new_flow_count: u64,
}

impl Algorithm for FqCodel {
    type Config = FqCodelConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "fq_codel",
        aliases: &["fqcodel"],
        summary: "FQ-CoDel: hashed flow queues in deficit round robin with new-flow priority, CoDel on each, drops from the fattest queue on overflow",
        sources: &["RFC 8290", "Linux net/sched/sch_fq_codel.c"],
    };
    fn new(cfg: &FqCodelConfig, _env: &QdiscEnv) -> FqCodel {
        let queues = (0..cfg.flows)
            .map(|_| FlowQueue { fifo: VecDeque::new(), bytes: 0, drr: DrrSlot::default(), vars: CodelVars::default() })
            .collect();
        FqCodel {
            params: CodelParams {
                target: cfg.target,
                interval: cfg.interval,
                mtu_bytes: cfg.mtu.get(),
                ecn: cfg.ecn,
                flavor: Default::default(),
                ce_threshold: cfg.ce_threshold.map(|sojourn| CeThreshold {
                    sojourn,
                    selector: cfg.ce_threshold_selector,
                    mask: cfg.ce_threshold_mask,
                    reason: REASON_CE_THRESHOLD,
                }),
            },
            limit_pkts: cfg.limit_pkts,
            drop_batch: cfg.drop_batch,
            queues,
            sched: FlowScheduler::new(cfg.flows, cfg.quantum.get()),
            stats: CodelStats::default(),
            pkts: 0,
            bytes: 0,
            overflows: 0,
            new_flow_count: 0,
        }
    }
}

impl FqCodel {
    /// Drop from the head of the queue with the largest byte backlog until half of it or
    /// `drop_batch` packets are gone; returns whether the arriving packet (at its tail) went too.
    fn drop_from_fattest(&mut self, arriving: PacketId, ctx: &mut QdiscCtx<'_>) -> bool {
        let (idx, _) = self.queues.iter().enumerate().max_by_key(|(i, q)| (q.bytes, std::cmp::Reverse(*i))).expect("queues");
        let q = &mut self.queues[idx];
        let threshold = q.bytes / 2;
        let (mut n, mut len, mut took_arrival) = (0u32, 0u64, false);
        while n < self.drop_batch && len < threshold {
            let Some(id) = q.fifo.pop_front() else { break };
            let size = ctx.size(id) as u64;
            q.bytes -= size;
            self.bytes -= size;
            self.pkts -= 1;
            len += size;
            n += 1;
            if id == arriving {
                took_arrival = true; // reported as the arrival's drop by the caller
            } else {
                ctx.drop_queued(id, REASON_OVERFLOW);
            }
        }
        q.vars.count = q.vars.count.saturating_add(n);
        self.overflows += 1;
        took_arrival
    }

    /// Queues on the new and old lists.
    pub fn active(&self) -> (usize, usize) {
        self.sched.active()
    }
}

impl QueueDisc for FqCodel {
    const REASONS: &'static [Reason] = &[
        Reason { name: "overflow", doc: "over the packet limit: dropped from the head of the fattest flow queue" },
        Reason { name: "codel", doc: "a flow queue's CoDel control law (dropped at its head, or CE-marked)" },
        Reason { name: "ce_threshold", doc: "the sojourn time was above ce_threshold (a selected packet): CE-marked at dequeue (only with ce_threshold set)" },
    ];

    fn reasons_used(&self) -> usize {
        if self.params.ce_threshold.is_some() { 3 } else { 2 }
    }
    const STATS: &'static [Field] = &[
        Field { name: "overflows", unit: FieldUnit::Count, doc: "times the limit was exceeded and the fattest queue was cut" },
        Field { name: "new_flows", unit: FieldUnit::Count, doc: "arrivals that put an idle queue on the new list" },
        Field { name: "dropping_entries", unit: FieldUnit::Count, doc: "times a queue's CoDel entered the dropping state" },
    ];
    const STATE: &'static [Field] = &[
        Field { name: "new_queues", unit: FieldUnit::Count, doc: "queues on the new list" },
        Field { name: "old_queues", unit: FieldUnit::Count, doc: "queues on the old list" },
    ];

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let flow = ctx.arena.get(id).flow;
        let idx = self.sched.classify(flow, ctx);
        let size = ctx.size(id) as u64;
        let q = &mut self.queues[idx];
        q.fifo.push_back(id);
        q.bytes += size;
        if self.sched.on_enqueue(idx, &mut q.drr) {
            self.new_flow_count += 1;
        }
        self.pkts += 1;
        self.bytes += size;
        // Over the limit: the arriving packet is queued first, then the fattest queue is cut
        // (it reaches the arrival only when that queue held little more than it).
        // An emptied queue stays on its list until a dequeue finds it empty, as in Linux.
        if self.pkts > self.limit_pkts && self.drop_from_fattest(id, ctx) {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let FqCodel { params, queues, sched, stats, pkts, bytes: total, .. } = self;
        sched.dequeue(queues, ctx, |q, ctx| {
            let FlowQueue { fifo, bytes, vars, .. } = q;
            let id = vars.dequeue(params, stats, ctx, REASON_CODEL, |ctx| {
                let id = fifo.pop_front()?;
                let size = ctx.size(id) as u64;
                *bytes -= size;
                *total -= size;
                *pkts -= 1;
                Some((id, *total))
            })?;
            Some((id, ctx.size(id)))
        })
    }

    fn len_pkts(&self) -> u32 {
        self.pkts
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn stats(&self, out: &mut [u64]) {
        out.copy_from_slice(&[self.overflows, self.new_flow_count, self.stats.dropping_entries]);
    }
    fn state(&self, out: &mut [f64]) {
        let (new, old) = self.sched.active();
        out.copy_from_slice(&[new as f64, old as f64]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{QdiscConfig, Queue};
    use crate::packet::{Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::{Rate, Time};

    fn queue(cfg: FqCodelConfig) -> Queue {
        Queue::new(&QdiscConfig::FqCodel(cfg), &QdiscEnv { link_rate: Rate::from_bps(100_000_000) }, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    fn fq(q: &Queue) -> &FqCodel {
        match &q.qdisc {
            crate::aqm::Qdisc::FqCodel(f) => f,
            _ => unreachable!(),
        }
    }

    fn pkt(a: &mut PacketArena, flow: u32, size: u32) -> PacketId {
        a.alloc(Packet { flow, size_bytes: size, ..Default::default() })
    }

    /// Flows 1 and 2 land in different queues with the default 1024 (checked), so the tests
    /// below see one queue per flow.
    fn distinct(q: &mut Queue, a: &mut PacketArena, flows: &[u32]) {
        let mut dropped = vec![];
        let mut seen = std::collections::HashSet::new();
        for &f in flows {
            let id = pkt(a, f, 100);
            assert!(q.enqueue(id, Time::ZERO, a, &mut dropped));
            let out = q.dequeue(Time::ZERO, a, &mut dropped).unwrap();
            a.free(out);
            if let crate::aqm::Qdisc::FqCodel(f2) = &mut q.qdisc {
                let h = flow_queues::queue_of(f, f2.sched.perturbation().expect("drawn at the first arrival"), 1024);
                assert!(seen.insert(h), "flows {flows:?} collide");
            }
        }
    }

    /// Deficit round robin (RFC 8290 section 4.2): two backlogged queues with 1500- and
    /// 500-byte packets get equal bytes, within one quantum, whatever their packet sizes.
    #[test]
    fn backlogged_queues_share_bytes_equally() {
        let mut q = queue(FqCodelConfig { target: Dur::from_secs(10), interval: Dur::from_secs(20), ..Default::default() });
        let mut a = PacketArena::new();
        distinct(&mut q, &mut a, &[1, 2]);
        let mut dropped = vec![];
        for i in 0..300 {
            assert!(q.enqueue(pkt(&mut a, 1, 1500), Time::from_ns(i), &mut a, &mut dropped));
            for _ in 0..3 {
                assert!(q.enqueue(pkt(&mut a, 2, 500), Time::from_ns(i), &mut a, &mut dropped));
            }
        }
        let mut sent = [0u64; 3];
        for k in 0..400 {
            let id = q.dequeue(Time::from_ns(1000 + k), &mut a, &mut dropped).unwrap();
            let p = a.get(id);
            sent[p.flow as usize] += p.size_bytes as u64;
            a.free(id);
            assert!(sent[1].abs_diff(sent[2]) <= 2 * 1514, "after {k}: {sent:?}");
        }
        assert!(sent[1] > 100_000 && sent[2] > 100_000);
        q.check_identities().unwrap();
    }

    /// A new (sparse) flow goes ahead of the backlogged ones: its packet is the next one out.
    #[test]
    fn a_new_flow_is_served_first() {
        let mut q = queue(FqCodelConfig::default());
        let mut a = PacketArena::new();
        distinct(&mut q, &mut a, &[1, 2, 3]);
        let mut dropped = vec![];
        for i in 0..50 {
            q.enqueue(pkt(&mut a, 1, 1500), Time::from_ns(i), &mut a, &mut dropped);
            q.enqueue(pkt(&mut a, 2, 1500), Time::from_ns(i), &mut a, &mut dropped);
        }
        for k in 0..10 {
            let id = q.dequeue(Time::from_ns(100 + k), &mut a, &mut dropped).unwrap();
            a.free(id);
        }
        let sparse = pkt(&mut a, 3, 100);
        q.enqueue(sparse, Time::from_ns(200), &mut a, &mut dropped);
        assert_eq!(fq(&q).active().0, 1, "flow 3 is on the new list");
        assert_eq!(q.dequeue(Time::from_ns(201), &mut a, &mut dropped), Some(sparse));
    }

    /// Over the limit the fattest queue (by bytes) loses packets from its head until half its
    /// backlog is gone (at most drop_batch), and its CoDel count grows by that number.
    #[test]
    fn overflow_cuts_the_fattest_queue_by_half() {
        let mut q = queue(FqCodelConfig { limit_pkts: 100, ..Default::default() });
        let mut a = PacketArena::new();
        distinct(&mut q, &mut a, &[1, 2]);
        let mut dropped = vec![];
        let first = pkt(&mut a, 1, 1500);
        assert!(q.enqueue(first, Time::ZERO, &mut a, &mut dropped));
        for i in 1..90 {
            assert!(q.enqueue(pkt(&mut a, 1, 1500), Time::from_ns(i), &mut a, &mut dropped));
        }
        for i in 0..10 {
            assert!(q.enqueue(pkt(&mut a, 2, 1500), Time::from_ns(100 + i), &mut a, &mut dropped));
        }
        assert!(dropped.is_empty());
        // the 101st packet, of the small flow: flow 1 (90 packets) loses 45 from its head
        assert!(q.enqueue(pkt(&mut a, 2, 1500), Time::from_ns(200), &mut a, &mut dropped));
        assert_eq!(dropped.len(), 45);
        assert_eq!(dropped[0], first, "from the head");
        assert_eq!(q.len_pkts(), 56);
        let f = fq(&q);
        let fattest = f.queues.iter().find(|x| x.fifo.len() == 45).expect("flow 1's queue");
        assert_eq!(fattest.vars.count, 45);
        q.check_identities().unwrap();
    }

    /// CoDel runs per queue: a standing queue of one flow is dropped while a sparse flow sharing
    /// the link loses nothing.
    #[test]
    fn codel_drops_only_in_the_standing_queue() {
        let mut q = queue(FqCodelConfig { ecn: false, ..Default::default() });
        let mut a = PacketArena::new();
        distinct(&mut q, &mut a, &[1, 2]);
        let mut dropped = vec![];
        let mut lost = [0u32; 3];
        // one dequeue per 120 us step; flow 1 offers 1.2 packets per step (its queue grows),
        // flow 2 one packet per 10 steps (0.1 of the link: no standing queue); 0.6 s
        for step in 0..5000u64 {
            let t = step * 120_000;
            q.enqueue(pkt(&mut a, 1, 1500), Time::from_ns(t), &mut a, &mut dropped);
            if step % 5 == 0 {
                q.enqueue(pkt(&mut a, 1, 1500), Time::from_ns(t), &mut a, &mut dropped);
            }
            if step % 10 == 0 {
                q.enqueue(pkt(&mut a, 2, 1500), Time::from_ns(t), &mut a, &mut dropped);
            }
            if let Some(id) = q.dequeue(Time::from_ns(t + 60_000), &mut a, &mut dropped) {
                a.free(id);
            }
            for id in dropped.drain(..) {
                lost[a.get(id).flow as usize] += 1;
                a.free(id);
            }
        }
        // CoDel's drops in flow 1 start after an interval above target and come at
        // 100 ms / sqrt(count): 10 in the 0.6 s
        assert!(lost[1] >= 5, "flow 1's standing queue is dropped from: {lost:?}");
        assert_eq!(lost[2], 0, "the sparse flow loses nothing: {lost:?}");
        q.check_identities().unwrap();
    }
    /// FQ-CoDel's L4S mode (`ce_threshold 1ms ce_threshold_selector 0x1/0x1`): one flow's
    /// queue holds 20 packets queued at t = 0 and sent one every 250 us (packet k waits k x
    /// 0.25 ms), alternating ECT(1) and ECT(0). Only the ECT(1) packets that waited more than
    /// 1 ms are marked; with mask 0 every ECT packet above it is.
    #[test]
    fn ce_threshold_marks_only_the_selected_codepoint() {
        use crate::packet::Ecn;
        for (selector, mask, marks_ect0) in [(0x1u8, 0x1u8, false), (0, 0, true)] {
            let cfg = FqCodelConfig { ce_threshold: Some(Dur::from_ms(1)), ce_threshold_selector: selector, ce_threshold_mask: mask, ..Default::default() };
            assert!(QdiscConfig::FqCodel(cfg.clone()).validate().is_empty());
            let mut q = queue(cfg);
            let mut a = PacketArena::new();
            let mut dropped = vec![];
            for k in 1..=20u64 {
                let ecn = if k % 2 == 1 { Ecn::Ect1 } else { Ecn::Ect0 };
                let id = a.alloc(Packet { flow: 1, size_bytes: 1500, seq: k, ecn, ..Default::default() });
                assert!(q.enqueue(id, Time::ZERO, &mut a, &mut dropped));
            }
            let mut expected = 0;
            for k in 1..=20u64 {
                let id = q.dequeue(Time::from_ns(k * 250_000), &mut a, &mut dropped).expect("a packet");
                let p = a.get(id);
                let sent = if k % 2 == 1 { Ecn::Ect1 } else { Ecn::Ect0 };
                let should = k * 250_000 > 1_000_000 && (sent == Ecn::Ect1 || marks_ect0);
                expected += should as u64;
                assert_eq!((p.seq, p.ecn), (k, if should { Ecn::Ce } else { sent }), "selector {selector:#x}/{mask:#x}, packet {k}");
                a.free(id);
            }
            assert_eq!(expected, if marks_ect0 { 16 } else { 8 });
            assert_eq!(q.reasons().marks[REASON_CE_THRESHOLD as usize], expected);
            assert_eq!(q.reasons().marks[REASON_CODEL as usize], 0);
            q.check_identities().unwrap();
        }
    }

    /// The selector and mask are checked at the edge: without ce_threshold they do nothing,
    /// and a selector with bits outside the mask selects nothing.
    #[test]
    fn ce_threshold_selector_is_validated() {
        let problems = |cfg: FqCodelConfig| QdiscConfig::FqCodel(cfg).validate().into_iter().map(|p| p.to_string()).collect::<Vec<_>>();
        let p = problems(FqCodelConfig { ce_threshold_selector: 1, ce_threshold_mask: 1, ..Default::default() });
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].contains("ce_threshold_selector") && p[0].contains("without ce_threshold"), "{p:?}");
        let p = problems(FqCodelConfig { ce_threshold: Some(Dur::from_ms(1)), ce_threshold_selector: 0x3, ce_threshold_mask: 0x1, ..Default::default() });
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("outside ce_threshold_mask"), "{p:?}");
        assert!(problems(FqCodelConfig { ce_threshold: Some(Dur::ZERO), ..Default::default() }).is_empty());
    }
}
