//! COBALT (CoDel-BLUE Alternate): one FIFO whose head packets are judged by a CoDel variant
//! with hysteresis plus the BLUE heuristic, the AQM of every flow queue in CAKE.
//!
//! Sources: Høiland-Jørgensen, Täht, Morton, "Piece of CAKE: A Comprehensive Queue Management
//! Solution for Home Gateways", IEEE LANMAN 2018 (section on COBALT); Palmei et al., "Design
//! and Evaluation of COBALT Queue Discipline", IEEE LANMAN 2019; Linux `net/sched/sch_cake.c`
//! (`cobalt_should_drop`, `cobalt_queue_full`, `cobalt_queue_empty`, `cake_set_rate`,
//! `cake_drop`, `cake_dequeue`, 6.x) and ns-3 `cobalt-queue-disc.cc` (3.44), both read for
//! behaviour (not copied).
//!
//! CoDel part (per dequeued packet, sojourn `s`):
//! * over target (`s > target`, and in Linux also `s > 4 mtu_time`): enter the dropping state
//!   with `drop_next = now + interval / sqrt(count)` if not in it; `count` is at least 1.
//!   Not over target: leave the dropping state, but keep `count`.
//! * A signal is due when `count > 0` and `now >= drop_next` (tested with the `drop_next` of
//!   before this packet). Due and dropping: CE-mark (ECT) or drop, `count += 1`,
//!   `drop_next += interval / sqrt(count)`. Due but not dropping: the hysteresis --
//!   `count -= 1`, `drop_next += interval / sqrt(count)`, repeated while still due; so `count`
//!   decays by one per `interval / sqrt(count)` instead of being reset, and a new congestion
//!   episode resumes at the old rate.
//! * With `count == 0`, `drop_next = now + interval` (an activity timeout); with `count > 0`, a
//!   delivered packet that was past its `drop_next` before the update sets `drop_next = now`.
//!
//! BLUE part: `p_drop` rises by `p_inc` (1/256) when the queue overflows and falls by `p_dec`
//! (1/4096) when a dequeue finds the queue empty, each at most once per `target`
//! (`blue_timer`); every dequeued packet not already dropped by CoDel is dropped with
//! probability `p_drop`, ECN-capable or not. An overflow also forces the dropping state with
//! `drop_next = now`, `count >= 1`.
//!
//! `variant` selects the two published implementations:
//! * `"linux"` (default; CAKE with one best-effort queue): over target also needs
//!   `s > 4 mtu_time` (`mtu_time` = one `mtu` at the link rate), `target` is raised to at least
//!   1.5 `mtu_time` and `interval` by the same amount (`cake_set_rate`); the last packet in the
//!   queue is never dropped (delivered, CE-marked if due); on overflow the arriving packet is
//!   queued and the head (oldest) packet dropped (`cake_drop`); BLUE rises only on overflow.
//! * `"ns3"`: over target is `s > target` only; the last packet may be dropped; overflow drops
//!   the arriving packet; BLUE also rises when a dequeued packet's sojourn exceeds
//!   `blue_threshold` (400 ms).
//!
//! Deliberate deviations: `interval / sqrt(count)` is computed exactly (`codel_law::control_law`)
//! where Linux and ns-3 use a Q0.32 reciprocal square root (a 16-entry cache, then one Newton
//! step per change of `count`; relative error well below 1e-3); `p_drop` is a Q0.32 fraction
//! as in Linux (ns-3: a double), compared with the top 32 bits of the queue's random stream.
//! The limit is in packets (Linux CAKE: a memory limit in bytes of socket buffers; unshaped, it
//! is `limit` x MTU with `limit` 10240). CAKE's ingress mode (`bulk_flows` in the over-target
//! test) and its ACK filter are not modelled. When a dequeue finds the queue empty the BLUE
//! decrease runs (ns-3's and the natural single-queue reading; CAKE calls it when its round
//! robin meets an emptied flow queue).

use super::law::fifo::Fifo;
use super::law::codel::control_law;
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, ReasonId, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::params::Problem;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Bytes, Dur, Time};

crate::choice! {
    /// Which COBALT: Linux CAKE's or ns-3's CobaltQueueDisc.
    pub enum CobaltVariant {
        /// Linux sch_cake's cobalt_* functions, CAKE's overflow and last-packet rules.
        Linux = "linux",
        /// ns-3 CobaltQueueDisc: tail drop on overflow, BLUE also on a sojourn above blue_threshold.
        Ns3 = "ns3",
    }
}

crate::params! {
    /// COBALT parameters; defaults are Linux CAKE's (ns-3 agrees unless said).
    pub struct CobaltConfig {
        /// Acceptable standing sojourn time (CoDel target).
        target: Dur = Dur::from_ms(5), Time, range(> Dur::ZERO), "Linux sch_cake target 5 ms; ns-3 Target 5 ms";
        /// CoDel interval: delay before the first signal and scale of the signalling rate; about a worst-case RTT.
        interval: Dur = Dur::from_ms(100), Time, range(> Dur::ZERO), "Linux sch_cake rtt (interval) 100 ms; ns-3 Interval 100 ms";
        /// BLUE's increase of p_drop at an overflow (at most once per target).
        p_inc: f64 = 1.0 / 256.0, Ratio, range(> 0.0, <= 1.0), "Linux cake_set_rate p_inc 1 << 24 (1/256); ns-3 Increment 1/256";
        /// BLUE's decrease of p_drop when the queue is found empty (at most once per target).
        p_dec: f64 = 1.0 / 4096.0, Ratio, range(> 0.0, <= 1.0), "Linux cake_set_rate p_dec 1 << 20 (1/4096); ns-3 Decrement 1/4096";
        /// Hard limit in packets.
        limit_pkts: u32 = 10240, Packets, range(>= 1), "Linux cake_init sch->limit 10240 (unshaped memory limit = limit x MTU)";
        /// CE-mark ECN-capable packets instead of dropping them (CoDel part only; BLUE always drops).
        ecn: bool = true, Flag, range(), "Linux sch_cake always marks ECT packets; ns-3 UseEcn false";
        /// Size of one MTU for the linux variant's mtu_time (one MTU at the link rate).
        mtu: Bytes = Bytes::new(1514), Size, range(>= 1, <= Bytes::new(1 << 20)), "Linux psched_mtu: 1500 + 14 (crosslayer: at most 1 MiB)";
        /// "linux" (CAKE) or "ns3" (CobaltQueueDisc).
        variant: CobaltVariant = CobaltVariant::Linux, Choice, range(), "Linux sch_cake; ns-3 cobalt-queue-disc.cc";
        /// ns3 variant: BLUE's p_drop also rises when a dequeued packet's sojourn exceeds this.
        blue_threshold: Dur = Dur::from_ms(400), Time, range(> Dur::ZERO), "ns-3 BlueThreshold 400 ms (Linux: none)";
    }
    check = CobaltConfig::check;
}

impl CobaltConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.target >= self.interval {
            out.push(Problem::new("target", format!("must be shorter than interval ({}); CAKE uses 5 ms and 100 ms", self.interval)));
        }
    }
}

/// `REASONS` indices.
const REASON_OVERFLOW: ReasonId = 0;
const REASON_COBALT: ReasonId = 1;
const REASON_BLUE: ReasonId = 2;

/// Q0.32 one (`p_drop` saturates one below it, as Linux's `~0`).
const ONE_Q32: f64 = 4_294_967_296.0;

/// COBALT's parameters after configuration (Linux `struct cobalt_params`).
#[derive(Clone, Copy, Debug)]
pub struct CobaltParams {
    pub target: Dur,
    pub interval: Dur,
    /// Transmission time of one MTU (linux variant's over-target floor); zero for ns3.
    pub mtu_time: Dur,
    /// BLUE increase and decrease, Q0.32.
    pub p_inc: u32,
    pub p_dec: u32,
    pub ecn: bool,
    /// BLUE's sojourn trigger (ns3 variant); `None` in Linux.
    pub blue_threshold: Option<Dur>,
}

/// COBALT's per-queue variables (Linux `struct cobalt_vars` names).
#[derive(Clone, Copy, Debug, Default)]
pub struct CobaltVars {
    /// CoDel's signal count: +1 per signal while dropping, -1 per interval/sqrt(count) otherwise.
    pub count: u32,
    /// In the dropping state (the last packet was over target).
    pub dropping: bool,
    /// Next signal (dropping) or next count decrement (not dropping); with count 0 an activity
    /// timeout `now + interval`.
    pub drop_next: Time,
    /// Last change of p_drop (BLUE changes it at most once per target).
    pub blue_timer: Time,
    /// BLUE's drop probability, Q0.32.
    pub p_drop: u32,
    /// Sojourn time of the last judged packet.
    pub ldelay: Dur,
}

/// What `CobaltVars::should_drop` decided for a dequeued packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judgement {
    Deliver,
    /// CE-mark it (CoDel signal on an ECN-capable packet), then deliver.
    Mark,
    /// Drop it for this reason (`REASON_COBALT` or `REASON_BLUE`).
    Drop(ReasonId),
}

impl CobaltVars {
    /// BLUE's drop probability as a ratio.
    pub fn p_drop(&self) -> f64 {
        self.p_drop as f64 / ONE_Q32
    }

    /// `now - t > d` with signed time.
    fn after(now: Time, t: Time, d: Dur) -> bool {
        now.ns() as i128 - t.ns() as i128 > d.ns() as i128
    }

    /// `t + interval / sqrt(count)` (count 0 reads as 1, as Linux's cache entry 0).
    fn control(t: Time, p: &CobaltParams, count: u32) -> Time {
        control_law(t, p.interval, count.max(1))
    }

    /// BLUE's increase, at most once per target (Linux cobalt_queue_full without its CoDel part).
    fn blue_up(&mut self, p: &CobaltParams, now: Time) {
        if Self::after(now, self.blue_timer, p.target) {
            self.p_drop = self.p_drop.saturating_add(p.p_inc);
            self.blue_timer = now;
        }
    }

    /// The queue overflowed (Linux cobalt_queue_full): BLUE up; force the dropping state.
    pub fn queue_full(&mut self, p: &CobaltParams, now: Time) {
        self.blue_up(p, now);
        self.dropping = true;
        self.drop_next = now;
        self.count = self.count.max(1);
    }

    /// A dequeue found the queue empty (Linux cobalt_queue_empty): BLUE down; leave the
    /// dropping state; one count decrement if due.
    pub fn queue_empty(&mut self, p: &CobaltParams, now: Time) {
        if self.p_drop > 0 && Self::after(now, self.blue_timer, p.target) {
            self.p_drop = self.p_drop.saturating_sub(p.p_dec);
            self.blue_timer = now;
        }
        self.dropping = false;
        if self.count > 0 && now >= self.drop_next {
            self.count -= 1;
            self.drop_next = Self::control(self.drop_next, p, self.count);
        }
    }

    /// Judge a dequeued packet with sojourn `sojourn` (Linux cobalt_should_drop). `ect`: the
    /// packet is ECN-capable; `draw` gives a uniform 32-bit number for BLUE (called only when
    /// p_drop > 0 and CoDel did not drop).
    pub fn should_drop(&mut self, p: &CobaltParams, now: Time, sojourn: Dur, ect: bool, draw: impl FnOnce() -> u32) -> Judgement {
        self.ldelay = sojourn;
        let over_target = sojourn > p.target && sojourn.ns() > 4 * p.mtu_time.ns();
        // `now - drop_next` as it was before this packet, kept in its sign (Linux `schedule`)
        let mut schedule_pos = now > self.drop_next;
        let mut next_due = self.count > 0 && now >= self.drop_next;
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = Self::control(now, p, self.count);
            }
            self.count = self.count.max(1);
        } else {
            self.dropping = false;
        }
        let signal = next_due && self.dropping;
        if signal {
            self.count = self.count.saturating_add(1);
            self.drop_next = Self::control(self.drop_next, p, self.count);
            schedule_pos = now > self.drop_next;
        } else {
            // hysteresis: one decrement per interval / sqrt(count) elapsed
            while next_due {
                self.count -= 1;
                self.drop_next = Self::control(self.drop_next, p, self.count);
                schedule_pos = now > self.drop_next;
                next_due = self.count > 0 && now >= self.drop_next;
            }
        }
        if let Some(th) = p.blue_threshold {
            if sojourn > th {
                self.blue_up(p, now); // ns-3's BLUE trigger (no effect on the CoDel state)
            }
        }
        let verdict = if signal && !(p.ecn && ect) {
            Judgement::Drop(REASON_COBALT)
        } else if self.p_drop > 0 && draw() < self.p_drop {
            Judgement::Drop(REASON_BLUE) // BLUE ignores ECN on purpose
        } else if signal {
            Judgement::Mark
        } else {
            Judgement::Deliver
        };
        // drop_next doubles as an activity timeout
        let dropped = matches!(verdict, Judgement::Drop(_));
        if self.count == 0 {
            self.drop_next = now + p.interval;
        } else if schedule_pos && !dropped {
            self.drop_next = now;
        }
        verdict
    }
}

#[derive(Debug)]
pub struct Cobalt {
    params: CobaltParams,
    variant: CobaltVariant,
    limit_pkts: u32,
    pub vars: CobaltVars,
    fifo: Fifo,
    /// Times a drop was withheld because the packet was the last one queued (linux variant).
    spared_last: u64,
}

impl Algorithm for Cobalt {
    type Config = CobaltConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "cobalt",
        aliases: &[],
        summary: "COBALT (CAKE's AQM): CoDel with count hysteresis plus BLUE's drop probability on overflow",
        sources: &[
            "Høiland-Jørgensen, Täht, Morton, Piece of CAKE, IEEE LANMAN 2018",
            "Palmei et al., Design and Evaluation of COBALT Queue Discipline, IEEE LANMAN 2019",
            "Linux net/sched/sch_cake.c (cobalt_*)",
            "ns-3 src/traffic-control/model/cobalt-queue-disc.cc",
        ],
    };
    fn new(cfg: &CobaltConfig, env: &QdiscEnv) -> Cobalt {
        let q32 = |x: f64| (x * ONE_Q32).round().min(u32::MAX as f64) as u32;
        let (target, interval, mtu_time, blue_threshold) = match cfg.variant {
            CobaltVariant::Linux => {
                // cake_set_rate: target >= 1.5 MTU times, interval raised by as much
                let mtu_time = env.link_rate.tx_time(cfg.mtu.get().min(u32::MAX as u64) as u32);
                let target = cfg.target.max(Dur::from_ns(mtu_time.ns() * 3 / 2));
                let interval = (cfg.interval + Dur::from_ns(target.ns() - cfg.target.ns())).max(target.mul(2));
                (target, interval, mtu_time, None)
            }
            CobaltVariant::Ns3 => (cfg.target, cfg.interval, Dur::ZERO, Some(cfg.blue_threshold)),
        };
        Cobalt {
            params: CobaltParams { target, interval, mtu_time, p_inc: q32(cfg.p_inc).max(1), p_dec: q32(cfg.p_dec).max(1), ecn: cfg.ecn, blue_threshold },
            variant: cfg.variant,
            limit_pkts: cfg.limit_pkts,
            vars: CobaltVars::default(),
            fifo: Fifo::new(cfg.limit_pkts),
            spared_last: 0,
        }
    }
}

impl Cobalt {
    pub fn params(&self) -> &CobaltParams {
        &self.params
    }
}

impl QueueDisc for Cobalt {
    const REASONS: &'static [Reason] = &[
        OVERFLOW,
        Reason { name: "cobalt", doc: "COBALT's CoDel part: the sojourn time stayed above target (dropped at the head, or CE-marked)" },
        Reason { name: "blue", doc: "COBALT's BLUE part: random head drop with p_drop (raised by overflows), ECN-capable or not" },
    ];
    const STATS: &'static [Field] = &[Field { name: "spared_last", unit: FieldUnit::Count, doc: "drops withheld because the packet was the last one queued (linux variant)" }];
    const STATE: &'static [Field] = &[
        Field { name: "count", unit: FieldUnit::Count, doc: "CoDel signal count (decays by one per interval/sqrt(count) below target)" },
        Field { name: "dropping", unit: FieldUnit::Flag, doc: "1 while the sojourn time is above target" },
        Field { name: "p_drop", unit: FieldUnit::Ratio, doc: "BLUE's drop probability" },
        Field { name: "ldelay_s", unit: FieldUnit::Seconds, doc: "sojourn time of the last dequeued packet" },
        Field { name: "drop_next_s", unit: FieldUnit::Seconds, doc: "next signal (dropping) or count decrement (count > 0); NaN with count 0" },
    ];

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        if self.fifo.len_pkts() >= self.limit_pkts {
            self.vars.queue_full(&self.params, ctx.now);
            match self.variant {
                CobaltVariant::Ns3 => return Verdict::Dropped(REASON_OVERFLOW),
                CobaltVariant::Linux => {
                    // cake_drop: the arrival is queued, the oldest packet goes
                    let head = self.fifo.pop(ctx).expect("a full queue has a head");
                    ctx.drop_queued(head, REASON_OVERFLOW);
                }
            }
        }
        self.fifo.push(id, ctx.size(id));
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let now = ctx.now;
        loop {
            let Some(id) = self.fifo.pop(ctx) else {
                self.vars.queue_empty(&self.params, now);
                return None;
            };
            let (enq, ect) = {
                let p = ctx.arena.get(id);
                (p.enq_time, p.ecn.is_ect())
            };
            let rng = ctx.rng();
            let judgement = self.vars.should_drop(&self.params, now, now.since(enq), ect, || (rng.next_u64() >> 32) as u32);
            match judgement {
                Judgement::Deliver => return Some(id),
                Judgement::Mark => {
                    let marked = ctx.mark(id, REASON_COBALT);
                    debug_assert!(marked, "only ECT packets are marked");
                    return Some(id);
                }
                Judgement::Drop(reason) => {
                    if self.variant == CobaltVariant::Linux && self.fifo.is_empty() {
                        // cake_dequeue: the last packet in the queue is not dropped
                        // (a CoDel drop here means the packet was not ECN-capable)
                        self.spared_last += 1;
                        return Some(id);
                    }
                    ctx.drop_queued(id, reason);
                }
            }
        }
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }

    fn stats(&self, out: &mut [u64]) {
        out[0] = self.spared_last;
    }

    fn state(&self, out: &mut [f64]) {
        let v = &self.vars;
        let drop_next = if v.count > 0 { v.drop_next.secs_f64() } else { f64::NAN };
        out.copy_from_slice(&[v.count as f64, v.dropping as u8 as f64, v.p_drop(), v.ldelay.secs_f64(), drop_next]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{Qdisc, QdiscConfig, Queue};
    use crate::packet::{Ecn, Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::Rate;

    const MS: u64 = 1_000_000;
    const I_NS: f64 = 100.0 * MS as f64;

    fn queue(cfg: CobaltConfig) -> Queue {
        Queue::new(&QdiscConfig::Cobalt(cfg), &QdiscEnv { link_rate: Rate::from_mbps(100) }, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    fn cobalt(q: &mut Queue) -> &mut Cobalt {
        match &mut q.qdisc {
            Qdisc::Cobalt(c) => c,
            _ => unreachable!(),
        }
    }

    /// After each dequeue: (time, vars, packets dropped by that call).
    type Trace = Vec<(u64, CobaltVars, usize)>;

    /// Arrivals at `arr` (ns, sorted), dequeues at `deq`; arrivals first at a tie.
    fn drive(q: &mut Queue, arr: &[u64], deq: &[u64], ecn: Ecn) -> Trace {
        let mut arena = PacketArena::new();
        let mut dropped = vec![];
        let mut trace = vec![];
        let mut i = 0;
        for &now in deq {
            while i < arr.len() && arr[i] <= now {
                let id = arena.alloc(Packet { size_bytes: 1500, ecn, ..Default::default() });
                if !q.enqueue(id, Time::from_ns(arr[i]), &mut arena, &mut dropped) {
                    arena.free(id);
                }
                i += 1;
            }
            let before = dropped.len();
            if let Some(id) = q.dequeue(Time::from_ns(now), &mut arena, &mut dropped) {
                arena.free(id);
            }
            let n = dropped.len() - before;
            trace.push((now, cobalt(q).vars, n));
        }
        dropped.drain(..).for_each(|id| arena.free(id));
        q.check_identities().unwrap();
        trace
    }

    /// First dequeue-grid time (multiples of `step`) at or after `t`.
    fn on_grid(t: f64, step: u64) -> u64 {
        (t / step as f64).ceil() as u64 * step
    }

    /// Persistent 2x overload (arrivals every 50 us, dequeues every 100 us): the sojourn passes
    /// 5 ms at the 101st dequeue (10.1 ms); the first drop comes one interval later and the k-th
    /// gap (40 drops, over 1.2 s) is interval / sqrt(k + 1) (count is 1 on entry and incremented at each drop), one
    /// step behind RFC 8289 CoDel, whose first drop comes at entry with the first gap interval.
    #[test]
    fn first_drop_after_an_interval_then_gaps_of_interval_over_sqrt_count() {
        for variant in [CobaltVariant::Linux, CobaltVariant::Ns3] {
            // (ns3: BLUE's sojourn trigger moved out of the way; the sojourn reaches 400 ms at 0.8 s)
            let mut q = queue(CobaltConfig { limit_pkts: 1_000_000, variant, blue_threshold: Dur::from_secs(10), ..Default::default() });
            let arr: Vec<u64> = (1..60_000).map(|k| k * 50_000).collect();
            let deq: Vec<u64> = (1..25_000).map(|k| k * 100_000).collect();
            let trace = drive(&mut q, &arr, &deq, Ecn::NotEct);
            let drops: Vec<u64> = trace.iter().filter(|r| r.2 > 0).map(|r| r.0).collect();
            assert!(trace.iter().all(|r| r.2 <= 1));
            let t0 = 10_100_000.0;
            let mut due = t0;
            for (k, &t) in drops.iter().enumerate().take(40) {
                // drop k+1 is due at t0 + I (1 + 1/sqrt 2 + ... + 1/sqrt k), exactly up to the ns
                due += I_NS / ((k + 1) as f64).sqrt();
                let grid = on_grid(due.floor(), 100_000);
                assert!(t == grid || t == on_grid(due.ceil(), 100_000), "{variant:?} drop {k}: at {t} ns, law {due:.0} ns");
            }
            assert!(drops.len() >= 40);
            let last = trace.last().unwrap().1;
            assert_eq!(last.count as usize, drops.len() + 1, "count = 1 + drops");
            assert_eq!(q.reasons().drops[REASON_COBALT as usize], drops.len() as u64);
        }
    }

    /// Hysteresis: with count 20 and the sojourn below target, count falls by one at
    /// drop_next, then every interval / sqrt(count) (the new count), to 0 after
    /// sum_{c=1}^{19} interval / sqrt(c) = 737 ms; CoDel would keep count frozen outside the
    /// dropping state. Then drop_next becomes an activity timeout (now + interval).
    #[test]
    fn count_decays_by_one_per_interval_over_sqrt_count_below_target() {
        let mut q = queue(CobaltConfig::default());
        let start = 50 * MS;
        {
            let v = &mut cobalt(&mut q).vars;
            v.count = 20;
            v.drop_next = Time::from_ns(start);
        }
        // light load: one packet 10 us before each dequeue (sojourn 10 us)
        let deq: Vec<u64> = (1..90_000).map(|k| k * 100_000).collect();
        let arr: Vec<u64> = deq.iter().map(|t| t - 10_000).collect();
        let trace = drive(&mut q, &arr, &deq, Ecn::NotEct);
        let mut prev = 20;
        let mut due = start as f64;
        for &(t, v, n) in &trace {
            assert_eq!(n, 0, "no drop below target");
            assert!(!v.dropping);
            if v.count != prev {
                assert_eq!(v.count, prev - 1, "one step at a time");
                assert!(t == on_grid(due.floor(), 100_000) || t == on_grid(due.ceil(), 100_000), "count {} at {t} ns, law {due:.0}", v.count);
                due += I_NS / (v.count.max(1) as f64).sqrt();
                prev = v.count;
            }
        }
        assert_eq!(prev, 0);
        let total: f64 = (1..20).map(|c| 100.0 / (c as f64).sqrt()).sum();
        eprintln!("count 20 -> 0 in {:.1} ms (sum of interval/sqrt(c), c = 19..1: {total:.1} ms)", (due - start as f64 - I_NS) / 1e6);
        let (t, v, _) = *trace.last().unwrap();
        assert_eq!(v.drop_next, Time::from_ns(t + 100 * MS), "activity timeout with count 0");
    }

    /// A second congestion episode soon after the first resumes at the remembered count: its
    /// first drop comes at most interval / sqrt(count) after the sojourn exceeds target, not
    /// a whole interval (overload 1.02x for 2 s, 100 ms pause, overload again).
    #[test]
    fn a_new_episode_resumes_at_the_decayed_count() {
        let mut q = queue(CobaltConfig::default());
        let gap = 98_039; // 1.02 x the service rate
        let mut arr: Vec<u64> = (1..20_400).map(|k| k * gap).collect();
        let resume = 2_100 * MS;
        arr.extend((0..20_000).map(|k| resume + k * gap));
        let deq: Vec<u64> = (1..40_000).map(|k| k * 100_000).collect();
        let trace = drive(&mut q, &arr, &deq, Ecn::NotEct);
        let first_drop = trace.iter().find(|r| r.2 > 0).unwrap().0;
        let first_over = trace.iter().find(|r| r.1.dropping).unwrap().0;
        assert!(first_drop == first_over + 100 * MS, "first episode: one interval ({first_over} -> {first_drop})");
        // second episode: the first dequeue after the pause that is over target
        let k = trace.iter().position(|r| r.0 > resume && r.1.dropping).unwrap();
        let (t_over, count) = (trace[k].0, trace[k - 1].1.count.max(1));
        let t_drop = trace[k..].iter().find(|r| r.2 > 0).unwrap().0;
        let law = I_NS / (count as f64).sqrt();
        eprintln!("second episode: over target at {:.1} ms with count {count}, first drop {:.1} ms later (interval/sqrt(count) = {:.1} ms)", t_over as f64 / 1e6, (t_drop - t_over) as f64 / 1e6, law / 1e6);
        assert!(count >= 3, "count remembered: {count}");
        assert!(((t_drop - t_over) as f64) <= law + 100_000.0, "resumed at the old rate");
    }

    /// BLUE: +1/256 per overflow and -1/4096 per empty dequeue, each at most once per target
    /// (strictly more than 5 ms after the last change); the overflow also forces the dropping
    /// state; p_drop stays in [0, 1).
    #[test]
    fn blue_steps_at_most_once_per_target() {
        let c = Cobalt::new(&CobaltConfig::default(), &QdiscEnv { link_rate: Rate::from_mbps(100) });
        let p = *c.params();
        assert_eq!((p.p_inc, p.p_dec), (1 << 24, 1 << 20));
        let mut v = CobaltVars::default();
        v.queue_full(&p, Time::from_ms(5));
        assert_eq!(v.p_drop, 0, "not more than target after blue_timer 0");
        v.queue_full(&p, Time::from_ms(10));
        assert_eq!(v.p_drop, 1 << 24);
        assert!(v.dropping && v.count == 1 && v.drop_next == Time::from_ms(10));
        v.queue_full(&p, Time::from_ms(15));
        assert_eq!(v.p_drop, 1 << 24, "exactly target later: no step");
        v.queue_full(&p, Time::from_ns(15 * MS + 1));
        assert_eq!(v.p_drop, 2 << 24);
        assert!((v.p_drop() - 2.0 / 256.0).abs() < 1e-15);
        v.queue_empty(&p, Time::from_ms(18));
        assert_eq!(v.p_drop, 2 << 24, "within target of the last change");
        assert!(!v.dropping);
        v.queue_empty(&p, Time::from_ms(21));
        assert_eq!(v.p_drop, (2 << 24) - (1 << 20));
        for k in 0..300u64 {
            v.queue_full(&p, Time::from_ms(30 + 6 * k));
        }
        assert_eq!(v.p_drop, u32::MAX, "saturates just below 1");
        let mut w = CobaltVars { p_drop: 1 << 19, ..Default::default() };
        w.queue_empty(&p, Time::from_ms(10));
        assert_eq!(w.p_drop, 0, "floored at 0");
    }

    /// With p_drop = 1/4 and the sojourn below target, a quarter of the dequeued packets are
    /// dropped (40,000 packets, within 4 standard deviations), ECN-capable ones included: BLUE
    /// never marks.
    #[test]
    fn blue_drops_with_p_drop_and_ignores_ecn() {
        let mut q = queue(CobaltConfig { limit_pkts: 100_000, ..Default::default() });
        cobalt(&mut q).vars.p_drop = 1 << 30;
        let n = 40_000u64;
        let arr: Vec<u64> = (0..n).map(|k| 1000 + k).collect();
        let deq: Vec<u64> = (0..n).map(|k| 2 * MS + k).collect();
        let trace = drive(&mut q, &arr, &deq, Ecn::Ect0);
        let dropped: usize = trace.iter().map(|r| r.2).sum();
        let frac = dropped as f64 / n as f64;
        let sd = (0.25f64 * 0.75 / n as f64).sqrt();
        eprintln!("BLUE at p_drop 0.25: dropped {frac:.4} of {n}");
        assert!((frac - 0.25).abs() < 4.0 * sd, "fraction {frac}");
        assert_eq!(q.counters().marks, 0);
        assert_eq!(q.reasons().drops[REASON_BLUE as usize], dropped as u64);
    }

    /// A due signal on one lone packet: linux delivers the last packet (CE-marked if ECT);
    /// ns3 drops it. ECN-capable packets are marked, not dropped, by the CoDel part.
    #[test]
    fn last_packet_rule_and_ecn_marking() {
        for (variant, ecn, expect_sent, expect_marked) in [
            (CobaltVariant::Linux, Ecn::NotEct, true, false),
            (CobaltVariant::Linux, Ecn::Ect0, true, true),
            (CobaltVariant::Ns3, Ecn::NotEct, false, false),
            (CobaltVariant::Ns3, Ecn::Ect0, true, false), // ns-3 marks only with ecn, which is on here
        ] {
            let mut q = queue(CobaltConfig { variant, ..Default::default() });
            {
                let v = &mut cobalt(&mut q).vars;
                v.count = 3;
                v.dropping = true;
                v.drop_next = Time::from_ms(100);
            }
            let mut arena = PacketArena::new();
            let mut dropped = vec![];
            let id = arena.alloc(Packet { size_bytes: 1500, ecn, ..Default::default() });
            assert!(q.enqueue(id, Time::from_ms(100), &mut arena, &mut dropped));
            let out = q.dequeue(Time::from_ms(120), &mut arena, &mut dropped);
            assert_eq!(out.is_some(), expect_sent, "{variant:?} {ecn:?}");
            let marked = q.counters().marks == 1;
            assert_eq!(marked, expect_marked || (variant == CobaltVariant::Ns3 && ecn == Ecn::Ect0), "{variant:?} {ecn:?}");
            assert_eq!(cobalt(&mut q).vars.count, 4, "the signal counted");
            q.check_identities().unwrap();
        }
    }

    /// Overflow: linux queues the arrival and drops the oldest packet (cake_drop); ns3 drops
    /// the arrival. Both raise p_drop. ns3 also raises it when a sojourn exceeds 400 ms.
    #[test]
    fn overflow_and_the_ns3_blue_threshold() {
        for variant in [CobaltVariant::Linux, CobaltVariant::Ns3] {
            let mut q = queue(CobaltConfig { variant, limit_pkts: 3, ..Default::default() });
            let mut arena = PacketArena::new();
            let mut dropped = vec![];
            let ids: Vec<PacketId> = (0..4).map(|_| arena.alloc(Packet { size_bytes: 1500, ..Default::default() })).collect();
            let ok: Vec<bool> = ids.iter().map(|&id| q.enqueue(id, Time::from_ms(10), &mut arena, &mut dropped)).collect();
            match variant {
                CobaltVariant::Linux => assert!(ok.iter().all(|&b| b) && dropped == vec![ids[0]]),
                CobaltVariant::Ns3 => assert!(ok == vec![true, true, true, false] && dropped.is_empty()),
            }
            assert_eq!(q.reasons().drops[REASON_OVERFLOW as usize], 1);
            assert_eq!(cobalt(&mut q).vars.p_drop, 1 << 24);
            q.check_identities().unwrap();
        }
        let c = Cobalt::new(&CobaltConfig { variant: CobaltVariant::Ns3, ..Default::default() }, &QdiscEnv { link_rate: Rate::from_mbps(100) });
        let mut v = CobaltVars::default();
        v.should_drop(c.params(), Time::from_secs(1), Dur::from_ms(400), false, || u32::MAX);
        assert_eq!(v.p_drop, 0, "400 ms is not above the threshold");
        v.should_drop(c.params(), Time::from_secs(1), Dur::from_ms(401), false, || u32::MAX);
        assert_eq!(v.p_drop, 1 << 24);
        let l = Cobalt::new(&CobaltConfig::default(), &QdiscEnv { link_rate: Rate::from_mbps(100) });
        let mut v = CobaltVars::default();
        v.should_drop(l.params(), Time::from_secs(1), Dur::from_secs(2), false, || u32::MAX);
        assert_eq!(v.p_drop, 0, "linux: BLUE only on overflow");
    }

    /// Linux's cake_set_rate raises target to 1.5 MTU times on slow links (1 Mb/s: 18.2 ms)
    /// and the interval by as much.
    #[test]
    fn target_floor_on_slow_links() {
        let c = Cobalt::new(&CobaltConfig::default(), &QdiscEnv { link_rate: Rate::from_mbps(1) });
        let p = c.params();
        assert_eq!(p.mtu_time, Dur::from_ns(12_112_000));
        assert_eq!(p.target, Dur::from_ns(18_168_000));
        assert_eq!(p.interval, Dur::from_ns(100_000_000 + 18_168_000 - 5_000_000));
        let c = Cobalt::new(&CobaltConfig::default(), &QdiscEnv { link_rate: Rate::from_mbps(100) });
        assert_eq!((c.params().target, c.params().interval), (Dur::from_ms(5), Dur::from_ms(100)));
    }
}
