//! CoDel (Controlled Delay): a FIFO whose head packets are dropped (or CE-marked) by the CoDel
//! control law when their sojourn time stays above `target` for an `interval`.
//!
//! Source: RFC 8289; Nichols & Jacobson, ACM Queue 10(5), 2012; Linux `net/sched/sch_codel.c`
//! (defaults: target 5 ms, interval 100 ms, limit 1000 packets, ECN off, MTU = device MTU +
//! link header). The law itself is in `codel_law.rs` (shared with FQ-CoDel).
//!
//! Tail drop at the hard limit is the only drop at enqueue. The MTU test uses this queue's own
//! backlog after the dequeue, as Linux does. `ce_threshold` (Linux sch_codel's
//! `TCA_CODEL_CE_THRESHOLD`, off by default): a dequeued ECT packet whose sojourn is above it is
//! CE-marked whatever the law decides, for reason `ce_threshold` (the law's `CeThreshold`);
//! sch_codel has no selector (FQ-CoDel's `ce_threshold_selector`), so it applies to every ECT
//! packet. Deviations: those of `aqm/law/codel.rs`.
//!
//! Without `ce_threshold` it tells its link when it is quiet until (`quiet_until`: no dequeue
//! before then drops or marks, whatever arrives), so the link knows the departures up to then
//! and tells it each at its time (`departed`); it holds, and decides at their dequeue, only the
//! packets after (`net::link`, "a discipline quiet until a time").

use super::law::fifo::Fifo;
use super::law::codel::{CeThreshold, CodelParams, CodelStats, CodelVars};
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::params::Problem;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Bytes, Dur, Time};

crate::params! {
    /// CoDel parameters; defaults are RFC 8289's and Linux sch_codel's.
    pub struct CodelConfig {
        /// Acceptable standing sojourn time.
        target: Dur = Dur::from_ms(5), Time, range(> Dur::ZERO), "RFC 8289 section 4.4 (TARGET 5 ms); Linux sch_codel";
        /// Window over which the sojourn time must stay above target before dropping starts; about a worst-case RTT.
        interval: Dur = Dur::from_ms(100), Time, range(> Dur::ZERO), "RFC 8289 section 4.5 (INTERVAL 100 ms); Linux sch_codel";
        /// Hard limit: arrivals beyond it are tail-dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux sch_codel DEFAULT_CODEL_LIMIT 1000";
        /// No drop while at most this many bytes are queued (RFC 8289 MAXPACKET).
        mtu: Bytes = Bytes::new(1514), Size, range(>= 1), "Linux psched_mtu: 1500-byte MTU + 14-byte Ethernet header";
        /// CE-mark ECN-capable packets instead of dropping them.
        ecn: bool = false, Flag, range(), "Linux sch_codel (ecn off; fq_codel turns it on)";
        /// Sojourn time above which a dequeued ECN-capable packet is CE-marked whatever the control law decides (a shallow step marking for DCTCP-like senders; ecn need not be on); unset: off.
        ce_threshold: Option<Dur> = None, Time, range(<= Dur::from_secs(4294)), "Linux sch_codel ce_threshold (TCA_CODEL_CE_THRESHOLD, Linux 4.2+): off (CODEL_DISABLED_THRESHOLD); tc takes whole microseconds, at most 2^32 - 1";
    }
    check = CodelConfig::check;
}

impl CodelConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.target >= self.interval {
            out.push(Problem::new("target", format!("must be shorter than interval ({}); RFC 8289 suggests 5-10 % of it", self.interval)));
        }
    }
}

/// `REASONS` indices.
const REASON_OVERFLOW: u8 = 0;
const REASON_CODEL: u8 = 1;
const REASON_CE_THRESHOLD: u8 = 2;

#[derive(Debug)]
pub struct Codel {
    params: CodelParams,
    limit_pkts: u32,
    vars: CodelVars,
    stats: CodelStats,
    /// Queued packets, head first.
    fifo: Fifo,
}

impl Codel {
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

impl Algorithm for Codel {
    type Config = CodelConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "codel",
        aliases: &[],
        summary: "CoDel: drop at the head when the sojourn time stays above target for an interval",
        sources: &["RFC 8289", "Nichols & Jacobson, Controlling Queue Delay, ACM Queue 10(5), 2012", "Linux net/sched/sch_codel.c, include/net/codel_impl.h"],
    };
    fn new(cfg: &CodelConfig, _env: &QdiscEnv) -> Codel {
        Codel {
            params: CodelParams {
                target: cfg.target,
                interval: cfg.interval,
                mtu_bytes: cfg.mtu.get(),
                ecn: cfg.ecn,
                flavor: Default::default(),
                ce_threshold: cfg.ce_threshold.map(|sojourn| CeThreshold { sojourn, selector: 0, mask: 0, reason: REASON_CE_THRESHOLD }),
            },
            limit_pkts: cfg.limit_pkts,
            vars: CodelVars::default(),
            stats: CodelStats::default(),
            fifo: Fifo::new(cfg.limit_pkts),
        }
    }
}

impl QueueDisc for Codel {
    const REASONS: &'static [Reason] = &[
        OVERFLOW,
        Reason { name: "codel", doc: "control law: the sojourn time stayed above target for an interval (dropped at the head, or CE-marked)" },
        Reason { name: "ce_threshold", doc: "the sojourn time was above ce_threshold: CE-marked at dequeue (only with ce_threshold set)" },
    ];

    fn reasons_used(&self) -> usize {
        if self.params.ce_threshold.is_some() { 3 } else { 2 }
    }
    const STATS: &'static [Field] = &[Field { name: "dropping_entries", unit: FieldUnit::Count, doc: "times the dropping state was entered" }];
    const STATE: &'static [Field] = &[
        Field { name: "count", unit: FieldUnit::Count, doc: "drops since entering the dropping state (sets the rate interval/sqrt(count))" },
        Field { name: "lastcount", unit: FieldUnit::Count, doc: "count when the dropping state was last entered" },
        Field { name: "dropping", unit: FieldUnit::Flag, doc: "1 in the dropping state" },
        Field { name: "ldelay_s", unit: FieldUnit::Seconds, doc: "sojourn time of the last dequeued packet" },
        Field { name: "drop_next_s", unit: FieldUnit::Seconds, doc: "time of the next drop (in the dropping state)" },
    ];

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        if self.fifo.len_pkts() >= self.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        self.fifo.push(id, ctx.size(id));
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let Codel { params, vars, stats, fifo, .. } = self;
        vars.dequeue(params, stats, ctx, REASON_CODEL, |ctx| {
            let id = fifo.pop(ctx)?;
            Some((id, fifo.len_bytes()))
        })
    }

    fn fifo_limits(&self) -> (u32, u64) {
        (self.limit_pkts, u64::MAX)
    }

    fn quiet_until(&self, now: Time) -> Option<Time> {
        // a CE mark past `ce_threshold` comes at any dequeue: never quiet then
        self.params.ce_threshold.is_none().then(|| self.vars.quiet_until(&self.params, now))
    }

    fn take_head(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        self.fifo.pop(ctx)
    }

    fn departed(&mut self, now: Time, size: u32, enqueued: Time, _before: u64, after: u64) {
        self.vars.departed(&self.params, &mut self.stats, now, size, enqueued, after);
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }

    fn stats(&self, out: &mut [u64]) {
        out[0] = self.stats.dropping_entries;
    }

    fn state(&self, out: &mut [f64]) {
        let v = &self.vars;
        let drop_next = if v.dropping { v.drop_next.secs_f64() } else { f64::NAN };
        out.copy_from_slice(&[v.count as f64, v.lastcount as f64, v.dropping as u8 as f64, v.ldelay.secs_f64(), drop_next]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{QdiscConfig, Queue};
    use crate::packet::{Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::{Rate, Time};
    use std::collections::VecDeque;

    const MS: u64 = 1_000_000;

    /// RFC 8289 section 5 pseudocode, ported literally (with Linux's strict `now >
    /// first_above_time`, the one deliberate deviation of `codel_law.rs`), as the reference.
    struct RfcCodel {
        q: VecDeque<(u64, u64, u32)>, // (enqueue time, bytes, id)
        bytes: u64,
        first_above_time: u64,
        drop_next: u64,
        count: u32,
        lastcount: u32,
        dropping: bool,
        target: u64,
        interval: u64,
        mtu: u64,
        drops: Vec<(u64, u32)>,
    }

    impl RfcCodel {
        fn new(target: u64, interval: u64) -> RfcCodel {
            RfcCodel { q: VecDeque::new(), bytes: 0, first_above_time: 0, drop_next: 0, count: 0, lastcount: 0, dropping: false, target, interval, mtu: 1514, drops: vec![] }
        }
        fn control_law(&self, t: u64, count: u32) -> u64 {
            t + (self.interval as f64 / (count as f64).sqrt()) as u64
        }
        fn dodequeue(&mut self, now: u64) -> (Option<(u64, u64, u32)>, bool) {
            let Some(p) = self.q.pop_front() else {
                self.first_above_time = 0;
                return (None, false);
            };
            self.bytes -= p.1;
            let sojourn = now - p.0;
            let mut ok = false;
            if sojourn < self.target || self.bytes <= self.mtu {
                self.first_above_time = 0;
            } else if self.first_above_time == 0 {
                self.first_above_time = now + self.interval;
            } else if now > self.first_above_time {
                ok = true;
            }
            (Some(p), ok)
        }
        fn dequeue(&mut self, now: u64) -> Option<u32> {
            let (mut p, ok) = self.dodequeue(now);
            if p.is_none() {
                self.dropping = false;
                return None;
            }
            if self.dropping {
                if !ok {
                    self.dropping = false;
                }
                while self.dropping && now >= self.drop_next {
                    self.drops.push((now, p.unwrap().2));
                    self.count += 1;
                    let (next, ok) = self.dodequeue(now);
                    p = next;
                    if !ok {
                        self.dropping = false;
                    } else {
                        self.drop_next = self.control_law(self.drop_next, self.count);
                    }
                }
            } else if ok {
                self.drops.push((now, p.unwrap().2));
                p = self.dodequeue(now).0;
                self.dropping = true;
                let delta = self.count.wrapping_sub(self.lastcount);
                self.count = 1;
                if delta > 1 && (now as i128 - self.drop_next as i128) < 16 * self.interval as i128 {
                    self.count = delta;
                }
                self.drop_next = self.control_law(now, self.count);
                self.lastcount = self.count;
            }
            p.map(|p| p.2)
        }
    }

    fn codel(target_ms: u64, interval_ms: u64) -> Queue {
        let cfg = CodelConfig { target: Dur::from_ms(target_ms), interval: Dur::from_ms(interval_ms), limit_pkts: 100_000, ..Default::default() };
        Queue::new(&QdiscConfig::Codel(cfg), &QdiscEnv { link_rate: Rate::from_mbps(100) }, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    /// Drive both with arrivals at `arr` and dequeues at `deq` (ns, sorted; arrivals first at a
    /// tie). Returns (drops of the model, dequeued ids of the model, the reference).
    fn drive(arr: &[u64], deq: &[u64], target_ms: u64, interval_ms: u64) -> (Vec<(u64, u32)>, Vec<u32>, RfcCodel) {
        let mut q = codel(target_ms, interval_ms);
        let mut reference = RfcCodel::new(target_ms * MS, interval_ms * MS);
        let mut arena = PacketArena::new();
        let (mut drops, mut sent, mut dropped) = (vec![], vec![], vec![]);
        let (mut i, mut j) = (0, 0);
        while j < deq.len() {
            if i < arr.len() && arr[i] <= deq[j] {
                let id = arena.alloc(Packet { size_bytes: 1500, ..Default::default() });
                assert!(q.enqueue(id, Time::from_ns(arr[i]), &mut arena, &mut dropped));
                reference.q.push_back((arr[i], 1500, id));
                reference.bytes += 1500;
                i += 1;
            } else {
                let now = deq[j];
                if let Some(id) = q.dequeue(Time::from_ns(now), &mut arena, &mut dropped) {
                    sent.push(id);
                    arena.free(id);
                }
                for id in dropped.drain(..) {
                    drops.push((now, id));
                    arena.free(id);
                }
                let r = reference.dequeue(now);
                assert_eq!(r, sent.last().copied().filter(|_| r.is_some()), "dequeued packet differs at {now}");
                j += 1;
            }
        }
        q.check_identities().unwrap();
        (drops, sent, reference)
    }

    fn vars(q: &Queue) -> CodelVars {
        match &q.qdisc {
            crate::aqm::Qdisc::Codel(c) => *c.vars(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn drops_match_the_rfc_pseudocode_over_a_grid_of_loads() {
        // Arrivals at rate lambda, dequeues at rate mu, with random jitter: overload, near
        // balance, on/off phases; several targets and intervals.
        for (seed, (lambda_per_ms, mu_per_ms, target, interval)) in
            [(1.2, 1.0, 5, 100), (2.0, 1.0, 5, 100), (1.05, 1.0, 5, 100), (1.5, 1.0, 2, 20), (3.0, 1.0, 10, 200), (0.9, 1.0, 5, 100)].into_iter().enumerate()
        {
            let mut rng = Rng::stream(seed as u64, StreamKind::Flow, 0);
            let mut arr = vec![];
            let mut t = 0.0;
            while t < 6_000.0 {
                // on/off: arrivals pause for 300 ms every 2 s, so the queue drains and re-enters
                let on = (t as u64 / 1000).is_multiple_of(2) || (t as u64 % 1000) > 300;
                t += (0.5 + rng.next_f64()) / lambda_per_ms * if on { 1.0 } else { 20.0 };
                arr.push((t * 1e6) as u64 + 1);
            }
            let deq: Vec<u64> = (1..(6_000.0 * mu_per_ms) as u64).map(|k| (k as f64 / mu_per_ms * 1e6) as u64).collect();
            let (drops, _, reference) = drive(&arr, &deq, target, interval);
            assert_eq!(drops, reference.drops, "load {lambda_per_ms}/{mu_per_ms}, target {target} ms, interval {interval} ms");
            if lambda_per_ms > 1.0 {
                assert!(drops.len() > 10, "overload must cause drops");
            }
        }
    }

    #[test]
    fn drop_spacing_follows_interval_over_sqrt_count() {
        // Twice the service rate: the queue never drains, CoDel stays in the dropping state and
        // the k-th gap is interval / sqrt(k), up to the 0.1 ms dequeue granularity.
        let arr: Vec<u64> = (1..200_000).map(|k| k * 50_000).collect();
        let deq: Vec<u64> = (1..100_000).map(|k| k * 100_000).collect();
        let (drops, _, _) = drive(&arr, &deq, 5, 100);
        let times: Vec<f64> = drops.iter().map(|d| d.0 as f64 / 1e6).collect();
        for k in 1..30 {
            let gap = times[k] - times[k - 1];
            let law = 100.0 / (k as f64).sqrt();
            assert!((gap - law).abs() <= 0.1 + 1e-9, "gap {k}: {gap:.3} ms, law {law:.3} ms");
        }
    }

    #[test]
    fn count_is_reused_on_reentry_within_sixteen_intervals() {
        // 1 s of 2 % overload (the queue grows, count climbs), a 50 ms pause (the queue drains,
        // dropping stops), then overload again: the new dropping state starts from
        // count - lastcount.
        let mut arr: Vec<u64> = (1..10_200).map(|k| k * 98_039).collect();
        arr.extend((0..20_000).map(|k| 1_050 * MS + k * 98_039));
        let deq: Vec<u64> = (1..60_000).map(|k| k * 100_000).collect();
        let mut q = codel(5, 100);
        let mut arena = PacketArena::new();
        let mut dropped = vec![];
        let (mut i, mut before_exit, mut after) = (0, None, None);
        for &now in &deq {
            while i < arr.len() && arr[i] <= now {
                let id = arena.alloc(Packet { size_bytes: 1500, ..Default::default() });
                q.enqueue(id, Time::from_ns(arr[i]), &mut arena, &mut dropped);
                i += 1;
            }
            let was = vars(&q);
            if let Some(id) = q.dequeue(Time::from_ns(now), &mut arena, &mut dropped) {
                arena.free(id);
            }
            dropped.drain(..).for_each(|id| arena.free(id));
            let v = vars(&q);
            if was.dropping && !v.dropping && before_exit.is_none() {
                before_exit = Some(was);
            }
            if before_exit.is_some() && !was.dropping && v.dropping && after.is_none() {
                after = Some((now, v));
            }
        }
        let b = before_exit.expect("left the dropping state");
        let (t, a) = after.expect("re-entered the dropping state");
        eprintln!("first period: count {} lastcount {}; re-entry at {:.3} s with count {}", b.count, b.lastcount, t as f64 / 1e9, a.count);
        assert!(b.count > 3, "count grew in the first period: {}", b.count);
        assert!(Time::from_ns(t) < b.drop_next + Dur::from_ms(1600), "re-entry within 16 intervals");
        assert_eq!(a.count, b.count - b.lastcount, "RFC 8289 5.5: count resumes at the drops of the last period");
        assert_eq!(a.lastcount, a.count);
    }

    #[test]
    fn marks_instead_of_drops_for_ect_packets() {
        let cfg = CodelConfig { ecn: true, limit_pkts: 100_000, ..Default::default() };
        let mut q = Queue::new(&QdiscConfig::Codel(cfg), &QdiscEnv { link_rate: Rate::from_mbps(100) }, Rng::stream(1, StreamKind::Qdisc, 0));
        let mut arena = PacketArena::new();
        let mut dropped = vec![];
        let mut i = 0u64;
        for k in 1..40_000u64 {
            let now = Time::from_ns(k * 100_000);
            while (i + 1) * 50_000 <= now.ns() {
                i += 1;
                let id = arena.alloc(Packet { size_bytes: 1500, ecn: crate::packet::Ecn::Ect0, ..Default::default() });
                q.enqueue(id, Time::from_ns(i * 50_000), &mut arena, &mut dropped);
            }
            if let Some(id) = q.dequeue(now, &mut arena, &mut dropped) {
                arena.free(id);
            }
        }
        assert!(dropped.is_empty(), "ECT packets are marked, never dropped by the law");
        assert!(q.counters().marks > 10);
        assert_eq!(q.reasons().marks[REASON_CODEL as usize], q.counters().marks);
        q.check_identities().unwrap();
    }
    /// Linux's ce_threshold (codel_impl.h): a scripted backlog of 20 packets queued at t = 0
    /// and sent one every 250 us, so packet k waits k x 0.25 ms. With ce_threshold 1 ms the
    /// ECT(0) and ECT(1) packets that waited strictly more than 1 ms (k >= 5; k = 4 waited
    /// exactly 1 ms) are CE-marked, for reason ce_threshold; Not-ECT packets are neither marked
    /// nor dropped (the law has not acted: no sojourn stayed above 5 ms), a packet already CE is
    /// not counted again. ecn is off: the threshold does not need it (as in Linux).
    #[test]
    fn ce_threshold_marks_ect_packets_strictly_above_it() {
        use crate::packet::Ecn;
        let cfg = CodelConfig { ce_threshold: Some(Dur::from_ms(1)), limit_pkts: 100, ..Default::default() };
        assert!(QdiscConfig::Codel(cfg.clone()).validate().is_empty());
        let mut q = Queue::new(&QdiscConfig::Codel(cfg), &QdiscEnv { link_rate: Rate::from_mbps(100) }, Rng::stream(1, StreamKind::Qdisc, 0));
        assert_eq!(q.qdisc.reasons().len(), 3, "ce_threshold's reason is reported when it is set");
        let mut arena = PacketArena::new();
        let mut dropped = vec![];
        let codepoints = [Ecn::Ect1, Ecn::Ect0, Ecn::NotEct, Ecn::Ce];
        for k in 1..=20u64 {
            let id = arena.alloc(Packet { size_bytes: 1500, seq: k, ecn: codepoints[(k % 4) as usize], ..Default::default() });
            assert!(q.enqueue(id, Time::ZERO, &mut arena, &mut dropped));
        }
        let mut expected = 0;
        for k in 1..=20u64 {
            let id = q.dequeue(Time::from_ns(k * 250_000), &mut arena, &mut dropped).expect("a packet");
            let p = arena.get(id);
            assert_eq!(p.seq, k);
            let sent = codepoints[(k % 4) as usize];
            let should = k * 250_000 > 1_000_000 && matches!(sent, Ecn::Ect0 | Ecn::Ect1);
            expected += should as u64;
            assert_eq!(p.ecn, if should { Ecn::Ce } else { sent }, "packet {k} (sojourn {} us, {sent:?})", k * 250);
            arena.free(id);
        }
        assert!(dropped.is_empty());
        assert_eq!(expected, 8);
        assert_eq!(q.reasons().marks[REASON_CE_THRESHOLD as usize], expected);
        assert_eq!(q.reasons().marks[REASON_CODEL as usize], 0);
        assert_eq!(q.counters().marks, expected);
        q.check_identities().unwrap();
        // without ce_threshold the reason is not reported and nothing is marked
        let plain = Queue::new(&QdiscConfig::Codel(CodelConfig::default()), &QdiscEnv { link_rate: Rate::from_mbps(100) }, Rng::stream(1, StreamKind::Qdisc, 0));
        assert_eq!(plain.qdisc.reasons().len(), 2);
    }
}
