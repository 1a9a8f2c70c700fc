//! Fairness-oriented ("modified") CoDel: CoDel whose drops fall on the most bandwidth-consuming
//! connection; a packet of another connection that CoDel would drop is dropped only with
//! probability `p`.
//!
//! Source: Hanai, Yamaguchi, Kobayashi, "Modified Controlling Queue Delay for TCP Fairness
//! Improvement" (Kogakuin University; seed 003): section II.H (the static method of their
//! HPSR 2016 workshop paper: the heaviest connection is given), section IV (the dynamic method:
//! the heaviest connection is estimated, `heavy_hitter.rs`), section IV.B (implementation: a
//! modified Linux CoDel, connections = (sender MAC, receiver MAC), "drops a packet once per 1/p
//! packets using a loop counter"), section V (p = 1/3 gave the best fairness). CoDel itself is
//! `codel_law.rs` (RFC 8289, Linux `codel_impl.h`), shared with CoDel and FQ-CoDel.
//!
//! * Enqueue: the arrival feeds the heavy-hitter estimate (dynamic mode); tail drop at
//!   `limit_pkts` as CoDel.
//! * Dequeue: CoDel's law unchanged. Where it drops a packet (entering the dropping state, or at
//!   `drop_next`): a packet of the heaviest connection is dropped (or CE-marked with `ecn`); one
//!   of another connection is dropped with probability `p` (`draw = "random"`), or every
//!   `round(1/p)`-th such packet (`draw = "counter"`, the paper's implementation), and otherwise
//!   spared.
//! * A spared packet is sent. The paper modified the drop in Linux's CoDel and says nothing of
//!   the law's state; `spare = "mark"` (default) handles it as Linux's CoDel handles a CE-marked
//!   packet: `count` and `drop_next` advance as for a drop (the reading that changes the least:
//!   the law's schedule is CoDel's, only the victim differs); `spare = "retry"` leaves the law's
//!   state alone, so the drop stays due and the next packet dequeued is judged in its place
//!   (CoDel's drop rate kept, redirected). See `CodelVars::dequeue_judged`.
//! * The engine runs it as CoDel, quiet until a time (`QueueDisc::quiet_until`, `net::link`):
//!   the law's drop points are CoDel's, so before `CodelVars::quiet_until` a dequeue only
//!   records the sojourn and the victim rule is not asked; its link sends such packets ahead
//!   and tells it their departures (`departed`), and the arrivals it does not hold still feed
//!   the connection estimate, once each and in order (`observe`).
//!
//! Deliberate deviations / choices where the paper is silent: connections are (sender node,
//! receiver node), the simulator's stand-in for MAC addresses, or flows (`key = "flow"`); the
//! static method names the heaviest connection by a flow (`heavy_flow`, its address pair with
//! `key = "pair"`); the values of `rec_int`, `hist_len` and `stat_int` are not in the paper's
//! text, the defaults here are ours; those of `codel_law.rs`.

use super::law::fifo::Fifo;
use super::law::codel::{CodelParams, CodelStats, CodelVars};
use super::law::heavy_hitter::{conn_id, ConnKey, Heaviest, HeavyMode, HEAVY_STATE};
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, ReasonId, Verdict, OVERFLOW};
use crate::packet::{Packet, PacketId};
use crate::params::Problem;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::rng::Rng;
use crate::units::{Bytes, Dur, Time};

crate::choice! {
    /// How a packet of a light connection is chosen for a drop.
    pub enum DropDraw {
        /// With probability p, independently (the method as the paper states it).
        Random = "random",
        /// Every round(1/p)-th one (the paper's implementation, a loop counter).
        Counter = "counter",
    }
}

crate::choice! {
    /// What a spared packet does to CoDel's law.
    pub enum SpareRule {
        /// As a CE-marked packet: count and drop_next advance as for a drop (Linux CoDel's ECN path).
        Mark = "mark",
        /// Nothing: the drop stays due and the next packet dequeued is judged in its place.
        Retry = "retry",
    }
}

crate::params! {
    /// Fairness-oriented CoDel parameters: CoDel's (Linux sch_codel defaults) and the method's.
    pub struct FairCodelConfig {
        /// Acceptable standing sojourn time.
        target: Dur = Dur::from_ms(5), Time, range(> Dur::ZERO), "RFC 8289 section 4.4 (TARGET 5 ms); Linux sch_codel (Hanai et al. section II.G: 5 ms)";
        /// Window over which the sojourn time must stay above target before dropping starts.
        interval: Dur = Dur::from_ms(100), Time, range(> Dur::ZERO), "RFC 8289 section 4.5 (INTERVAL 100 ms); Linux sch_codel";
        /// Hard limit: arrivals beyond it are tail-dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux sch_codel DEFAULT_CODEL_LIMIT 1000 (the paper modified Linux CoDel)";
        /// No drop while at most this many bytes are queued (RFC 8289 MAXPACKET).
        mtu: Bytes = Bytes::new(1514), Size, range(>= 1), "Linux psched_mtu: 1500-byte MTU + 14-byte Ethernet header";
        /// CE-mark ECN-capable packets instead of dropping them.
        ecn: bool = false, Flag, range(), "Linux sch_codel (ecn off)";
        /// "dynamic": estimate the heaviest connection (rec_int, hist_len, stat_int); "static": it is the connection of heavy_flow.
        mode: HeavyMode = HeavyMode::Dynamic, Choice, range(), "Hanai et al. section IV (dynamic, proposed); section II.H (static, their HPSR 2016 method)";
        /// Static mode: the flow (index in the scenario's flow list) whose connection is the heaviest.
        heavy_flow: Option<u32> = None, Count, range(), "Hanai et al. section II.H: given to the network element";
        /// "pair": a connection is a (sender, receiver) node pair (the paper: MAC addresses); "flow": a flow (5-tuple).
        key: ConnKey = ConnKey::Pair, Choice, range(), "Hanai et al. section IV.B: sender and receiver MAC addresses";
        /// Probability that a packet of another connection is dropped where CoDel drops.
        p: f64 = 1.0 / 3.0, Ratio, range(>= 0.0, <= 1.0), "Hanai et al. section V and Fig. 12: p = 1/3 gave the best fairness";
        /// "random": drop with probability p; "counter": every round(1/p)-th such packet (the paper's implementation).
        draw: DropDraw = DropDraw::Random, Choice, range(), "Hanai et al. section IV.B: random as specified; their implementation used a counter";
        /// What a spared packet does to CoDel's law: "mark" (count and drop_next advance, as for a CE mark) or "retry" (the drop stays due for the next packet).
        spare: SpareRule = SpareRule::Mark, Choice, range(), "not specified by Hanai et al. (they modified Linux CoDel's drop); mark: Linux codel_dequeue's ECN path";
        /// Record the connection of one arrival in rec_int.
        rec_int: u32 = 10, Count, range(>= 1), "Hanai et al. section IV.A names rec_int; value not in the text (ours)";
        /// Records kept in the history.
        hist_len: u32 = 1000, Count, range(>= 1, <= 1000000), "Hanai et al. section IV.A names hist_len; value not in the text (ours)";
        /// Recompute the heaviest connection every stat_int arrivals.
        stat_int: u32 = 1000, Count, range(>= 1), "Hanai et al. section IV.A names stat_int; value not in the text (ours)";
    }
    check = FairCodelConfig::check;
}

impl FairCodelConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.target >= self.interval {
            out.push(Problem::new("target", format!("must be shorter than interval ({}); RFC 8289 suggests 5-10 % of it", self.interval)));
        }
        if self.mode == HeavyMode::Static && self.heavy_flow.is_none() {
            out.push(Problem::new("heavy_flow", "static mode needs the heaviest connection: give the index of one of its flows"));
        }
        crate::aqm::law::heavy_hitter::check_cost(self.hist_len, self.stat_int, out);
    }
}

/// `REASONS` indices.
const REASON_OVERFLOW: u8 = 0;
pub const REASON_HEAVY: u8 = 1;
pub const REASON_OTHER: u8 = 2;

/// Who the law's drops fall on: the heaviest connection always, others with probability p.
#[derive(Debug, Clone)]
pub struct VictimRule {
    pub heaviest: Heaviest,
    p: f64,
    draw: DropDraw,
    /// Counter draw: drop every `one_in`-th light packet (0: never).
    one_in: u32,
    /// Light packets judged since the last counter drop.
    counter: u32,
    /// Light packets spared.
    pub spared: u64,
}

impl VictimRule {
    pub fn new(heaviest: Heaviest, p: f64, draw: DropDraw) -> VictimRule {
        let one_in = if p > 0.0 { (1.0 / p).round().max(1.0) as u32 } else { 0 };
        VictimRule { heaviest, p, draw, one_in, counter: 0, spared: 0 }
    }

    /// The law wants to drop a packet of connection `conn`: the reason to drop it for, or `None`
    /// to spare it.
    #[inline]
    pub fn judge(&mut self, conn: u64, rng: &mut Rng) -> Option<ReasonId> {
        if self.heaviest.heavy() == Some(conn) {
            return Some(REASON_HEAVY);
        }
        let drop = match self.draw {
            DropDraw::Random => rng.chance(self.p),
            DropDraw::Counter => {
                self.counter += 1;
                if self.one_in > 0 && self.counter >= self.one_in {
                    self.counter = 0;
                    true
                } else {
                    false
                }
            }
        };
        if drop {
            Some(REASON_OTHER)
        } else {
            self.spared += 1;
            None
        }
    }
}

#[derive(Debug)]
pub struct FairCodel {
    params: CodelParams,
    limit_pkts: u32,
    spare_as_mark: bool,
    vars: CodelVars,
    stats: CodelStats,
    rule: VictimRule,
    /// Queued packets, head first.
    fifo: Fifo,
}

impl FairCodel {
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
    pub fn rule(&self) -> &VictimRule {
        &self.rule
    }
}

impl Algorithm for FairCodel {
    type Config = FairCodelConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "fair_codel",
        aliases: &["modified_codel", "hanai_codel"],
        summary: "Fairness-oriented CoDel (Hanai, Yamaguchi, Kobayashi): CoDel's drops always hit the heaviest connection (given or estimated from sampled arrivals), others only with probability p",
        sources: &[
            "Hanai, Yamaguchi, Kobayashi, Modified Controlling Queue Delay for TCP Fairness Improvement (Kogakuin University)",
            "Hanai, Yamaguchi, Kobayashi, Improving TCP Fairness Between Modern TCP Algorithms Based on Controlling Delay, HPSR 2016 workshop",
            "RFC 8289; Linux include/net/codel_impl.h",
        ],
    };
    fn new(cfg: &FairCodelConfig, _env: &QdiscEnv) -> FairCodel {
        let heaviest = Heaviest::new(cfg.key, cfg.mode, cfg.heavy_flow, cfg.rec_int, cfg.hist_len, cfg.stat_int);
        FairCodel {
            params: CodelParams { target: cfg.target, interval: cfg.interval, mtu_bytes: cfg.mtu.get(), ecn: cfg.ecn, flavor: Default::default(), ce_threshold: None },
            limit_pkts: cfg.limit_pkts,
            spare_as_mark: cfg.spare == SpareRule::Mark,
            vars: CodelVars::default(),
            stats: CodelStats::default(),
            rule: VictimRule::new(heaviest, cfg.p, cfg.draw),
            fifo: Fifo::new(cfg.limit_pkts),
        }
    }
}

impl QueueDisc for FairCodel {
    const REASONS: &'static [Reason] = &[
        OVERFLOW,
        Reason { name: "codel_heavy", doc: "CoDel's control law dropped (or CE-marked) a packet of the heaviest connection" },
        Reason { name: "codel_other", doc: "CoDel's control law dropped (or CE-marked) a packet of another connection (drawn with probability p)" },
    ];
    const STATS: &'static [Field] = &[
        Field { name: "dropping_entries", unit: FieldUnit::Count, doc: "times the dropping state was entered" },
        Field { name: "spared", unit: FieldUnit::Pkts, doc: "packets of light connections CoDel would have dropped, sent instead" },
    ];
    const STATE: &'static [Field] = &[
        Field { name: "count", unit: FieldUnit::Count, doc: "CoDel's drops (and spared packets) since entering the dropping state" },
        Field { name: "dropping", unit: FieldUnit::Flag, doc: "1 in CoDel's dropping state" },
        HEAVY_STATE[0],
        HEAVY_STATE[1],
        Field { name: "ldelay_s", unit: FieldUnit::Seconds, doc: "sojourn time of the last dequeued packet" },
    ];

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        self.rule.heaviest.on_arrival(ctx.arena.get(id));
        if self.fifo.len_pkts() >= self.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        self.fifo.push(id, ctx.size(id));
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let FairCodel { params, vars, stats, fifo, rule, spare_as_mark, .. } = self;
        vars.dequeue_judged(
            params,
            stats,
            ctx,
            *spare_as_mark,
            |id, ctx| {
                let conn = conn_id(rule.heaviest.key, ctx.arena.get(id));
                rule.judge(conn, ctx.rng())
            },
            |ctx| {
                let id = fifo.pop(ctx)?;
                Some((id, fifo.len_bytes()))
            },
        )
    }

    // Quiet until a time as CoDel (`codel.rs`): the law drops, marks or spares only at its
    // drop points, so a dequeue before `CodelVars::quiet_until` only records the sojourn; the
    // victim rule is asked only there, and the arrivals it samples are each seen once, held or
    // not (`observe`).
    const OBSERVES: bool = true;

    fn fifo_limits(&self) -> (u32, u64) {
        (self.limit_pkts, u64::MAX)
    }

    fn quiet_until(&self, now: Time) -> Option<Time> {
        Some(self.vars.quiet_until(&self.params, now))
    }

    fn take_head(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        self.fifo.pop(ctx)
    }

    fn departed(&mut self, now: Time, size: u32, enqueued: Time, _before: u64, after: u64) {
        self.vars.departed(&self.params, &mut self.stats, now, size, enqueued, after);
    }

    fn observe(&mut self, pkt: &Packet) {
        self.rule.heaviest.on_arrival(pkt);
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }

    fn stats(&self, out: &mut [u64]) {
        out.copy_from_slice(&[self.stats.dropping_entries, self.rule.spared]);
    }

    fn state(&self, out: &mut [f64]) {
        let (v, r) = (&self.vars, &self.rule);
        let [heavy, share] = r.heaviest.state();
        out.copy_from_slice(&[v.count as f64, v.dropping as u8 as f64, heavy, share, v.ldelay.secs_f64()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::codel::CodelConfig;
    use crate::aqm::{Qdisc, QdiscConfig, Queue};
    use crate::packet::{Ecn, Packet, PacketArena};
    use crate::rng::StreamKind;
    use crate::units::{Rate, Time};

    fn queue(cfg: QdiscConfig) -> Queue {
        Queue::new(&cfg, &QdiscEnv { link_rate: Rate::from_mbps(100) }, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    fn fair(q: &Queue) -> &FairCodel {
        match &q.qdisc {
            Qdisc::FairCodel(c) => c,
            _ => unreachable!(),
        }
    }

    /// Events of a scripted run.
    #[derive(Default)]
    struct Trace {
        /// (time ns, packet id, flow) of every packet dropped from the queue.
        drops: Vec<(u64, u32, u32)>,
        /// CoDel's count after every dequeue.
        counts: Vec<u32>,
        sent: usize,
    }

    /// Arrivals every 50 us (flow `flow_of(k)` for the k-th, 1500 bytes, `ecn`), dequeues every
    /// 100 us for `secs`: twice the service rate, so the law keeps dropping.
    fn drive(cfg: QdiscConfig, secs: u64, ecn: Ecn, flow_of: impl Fn(u64) -> u32) -> (Trace, Queue) {
        let mut q = queue(cfg);
        let mut arena = PacketArena::new();
        let (mut dropped, mut tr, mut k) = (vec![], Trace::default(), 0u64);
        let mut flows = std::collections::HashMap::new();
        for j in 1..secs * 10_000 {
            let now = j * 100_000;
            while (k + 1) * 50_000 <= now {
                k += 1;
                let flow = flow_of(k);
                let id = arena.alloc(Packet { flow, src: flow, dst: 100, size_bytes: 1500, ecn, ..Default::default() });
                flows.insert(id, flow);
                if !q.enqueue(id, Time::from_ns(k * 50_000), &mut arena, &mut dropped) {
                    arena.free(id);
                }
            }
            if let Some(id) = q.dequeue(Time::from_ns(now), &mut arena, &mut dropped) {
                tr.sent += 1;
                arena.free(id);
            }
            for id in dropped.drain(..) {
                tr.drops.push((now, id, flows[&id]));
                arena.free(id);
            }
            tr.counts.push(match &q.qdisc {
                Qdisc::FairCodel(c) => c.vars().count,
                Qdisc::Codel(c) => c.vars().count,
                _ => unreachable!(),
            });
        }
        q.check_identities().unwrap();
        (tr, q)
    }

    fn fair_cfg(p: f64, draw: DropDraw) -> FairCodelConfig {
        FairCodelConfig { mode: HeavyMode::Static, heavy_flow: Some(0), key: ConnKey::Flow, p, draw, limit_pkts: 100_000, ..Default::default() }
    }

    fn static_rule(p: f64, draw: DropDraw) -> VictimRule {
        let mut r = VictimRule::new(Heaviest::new(ConnKey::Flow, HeavyMode::Static, Some(0), 1, 1, 1), p, draw);
        r.heaviest.on_arrival(&Packet { flow: 0, ..Default::default() });
        r
    }

    /// The heaviest connection's packets are always dropped; with the paper's counter, exactly
    /// every round(1/p)-th packet of the others (p = 1/3: the 3rd, 6th, ...; p = 1/4: every 4th).
    #[test]
    fn heavy_always_dropped_others_exactly_one_in_three_with_the_counter() {
        let mut rng = Rng::stream(1, StreamKind::Qdisc, 0);
        for (p, n) in [(1.0 / 3.0, 3usize), (0.25, 4), (1.0, 1)] {
            let mut r = static_rule(p, DropDraw::Counter);
            let mut light = 0usize;
            for k in 0..3000u64 {
                // heavy (flow 0) and light flows 1..4 interleaved
                let conn = k % 4;
                let v = r.judge(conn, &mut rng);
                if conn == 0 {
                    assert_eq!(v, Some(REASON_HEAVY));
                } else {
                    light += 1;
                    let expect = if light.is_multiple_of(n) { Some(REASON_OTHER) } else { None };
                    assert_eq!(v, expect, "p {p}: light packet {light}");
                }
            }
            assert_eq!(r.spared as usize, light - light / n);
        }
        // p = 0: nothing but the heaviest connection is dropped
        let mut r = static_rule(0.0, DropDraw::Counter);
        assert!((0..100).all(|c| r.judge(1 + c, &mut rng).is_none()));
    }

    /// With the random draw, the drops among N light packets are Binomial(N, p).
    #[test]
    fn random_draw_drops_light_packets_with_probability_p() {
        let mut rng = Rng::stream(5, StreamKind::Qdisc, 0);
        let mut r = static_rule(1.0 / 3.0, DropDraw::Random);
        let n = 30_000;
        let mut dropped = 0u32;
        for k in 0..n {
            assert_eq!(r.judge(0, &mut rng), Some(REASON_HEAVY));
            if r.judge(1 + k as u64 % 7, &mut rng).is_some() {
                dropped += 1;
            }
        }
        let (mean, sd) = (n as f64 / 3.0, (n as f64 * (1.0 / 3.0) * (2.0 / 3.0)).sqrt());
        eprintln!("random draw: {dropped} of {n} light packets dropped (expected {mean:.0} +- {sd:.1})");
        assert!((dropped as f64 - mean).abs() < 4.0 * sd, "{dropped} drops, expected {mean} +- 4 x {sd}");
    }

    /// With p = 1 every packet the law picks is dropped: the drop sequence is plain CoDel's.
    /// With p = 0 and only light packets, each spared packet advances the law as a CE mark
    /// does: the same count trajectory as CoDel with ECN on ECT packets, as many spared packets
    /// as marks, and no drop.
    #[test]
    fn p_one_is_codel_and_a_spared_packet_advances_the_law_as_a_mark() {
        let two_flows = |k: u64| (k % 2) as u32;
        let (codel, _) = drive(QdiscConfig::Codel(CodelConfig { limit_pkts: 100_000, ..Default::default() }), 3, Ecn::NotEct, two_flows);
        let (all, _) = drive(QdiscConfig::FairCodel(fair_cfg(1.0, DropDraw::Random)), 3, Ecn::NotEct, two_flows);
        assert!(codel.drops.len() > 50);
        assert_eq!(all.drops, codel.drops);
        assert_eq!(all.counts, codel.counts);

        let (marked, mq) = drive(QdiscConfig::Codel(CodelConfig { limit_pkts: 100_000, ecn: true, ..Default::default() }), 3, Ecn::Ect0, |_| 1);
        let (spared, sq) = drive(QdiscConfig::FairCodel(fair_cfg(0.0, DropDraw::Random)), 3, Ecn::NotEct, |_| 1);
        assert!(spared.drops.is_empty() && marked.drops.is_empty());
        assert_eq!(spared.counts, marked.counts);
        assert_eq!(fair(&sq).rule().spared, mq.counters().marks);
        eprintln!("p = 0, light packets only: {} spared, {} CoDel ECN marks, final count {}", fair(&sq).rule().spared, mq.counters().marks, spared.counts.last().unwrap());
    }

    /// Static mode, two flows alternating, flow 0 the heaviest: with p = 0 every law drop is of
    /// flow 0; with the counter and p = 1/3 a third of the light packets picked are dropped.
    #[test]
    fn law_drops_fall_on_the_heavy_connection() {
        let two_flows = |k: u64| (k % 2) as u32;
        let (tr, q) = drive(QdiscConfig::FairCodel(fair_cfg(0.0, DropDraw::Random)), 3, Ecn::NotEct, two_flows);
        assert!(tr.drops.len() > 20 && tr.drops.iter().all(|d| d.2 == 0));
        assert_eq!(q.reasons().drops[REASON_HEAVY as usize], tr.drops.len() as u64);
        let (tr, q) = drive(QdiscConfig::FairCodel(fair_cfg(1.0 / 3.0, DropDraw::Counter)), 3, Ecn::NotEct, two_flows);
        let (heavy, light) = (tr.drops.iter().filter(|d| d.2 == 0).count() as u64, tr.drops.iter().filter(|d| d.2 == 1).count() as u64);
        let spared = fair(&q).rule().spared;
        eprintln!("p = 1/3, counter: {heavy} heavy drops, {light} light drops, {spared} light spared");
        assert_eq!((q.reasons().drops[REASON_HEAVY as usize], q.reasons().drops[REASON_OTHER as usize]), (heavy, light));
        let judged = light + spared;
        assert_eq!(light, judged / 3, "one in three light packets picked by the law is dropped");
    }

    /// spare = "retry": with only light packets and p = 0 the law never advances (count stays 0,
    /// never dropping) and nothing is dropped; with two alternating flows and p = 0 every drop
    /// falls on the heavy flow, at least as many as with "mark" (the due drop waits for a heavy
    /// packet instead of being skipped).
    #[test]
    fn retry_leaves_the_law_state_until_a_victim_is_found() {
        let retry = |p: f64| FairCodelConfig { spare: SpareRule::Retry, ..fair_cfg(p, DropDraw::Random) };
        let (tr, q) = drive(QdiscConfig::FairCodel(retry(0.0)), 3, Ecn::NotEct, |_| 1);
        assert!(tr.drops.is_empty() && tr.counts.iter().all(|&c| c == 0));
        assert!(!fair(&q).vars().dropping && fair(&q).rule().spared > 1000);
        let two_flows = |k: u64| (k % 2) as u32;
        let (r, _) = drive(QdiscConfig::FairCodel(retry(0.0)), 3, Ecn::NotEct, two_flows);
        let (m, _) = drive(QdiscConfig::FairCodel(fair_cfg(0.0, DropDraw::Random)), 3, Ecn::NotEct, two_flows);
        eprintln!("p = 0, two flows: {} heavy drops with retry, {} with mark", r.drops.len(), m.drops.len());
        assert!(r.drops.iter().all(|d| d.2 == 0) && r.drops.len() >= m.drops.len());
    }

    /// Dynamic mode through the queue (key pair, rec_int 2, hist_len 6, stat_int 4): 12 arrivals
    /// of pair A, then pair B. Records at even arrivals; at arrival 16 the history holds A 4, B 2;
    /// at 20 A 2, B 4: the estimate switches to B at arrival 20 with share 4/6.
    #[test]
    fn dynamic_estimate_switches_at_the_right_arrival() {
        let cfg = FairCodelConfig { rec_int: 2, hist_len: 6, stat_int: 4, limit_pkts: 1000, ..Default::default() };
        let mut q = queue(QdiscConfig::FairCodel(cfg));
        let mut arena = PacketArena::new();
        let mut dropped = vec![];
        let (a, b) = ((1u64 << 32 | 9) as f64, (2u64 << 32 | 9) as f64);
        let mut out = vec![0.0; FairCodel::STATE.len()];
        let mut switched = None;
        for k in 1..=30u64 {
            let src = if k <= 12 { 1 } else { 2 };
            let id = arena.alloc(Packet { flow: k as u32, src, dst: 9, size_bytes: 1500, ..Default::default() });
            assert!(q.enqueue(id, Time::from_ns(k), &mut arena, &mut dropped));
            q.qdisc.state(&mut out);
            if k < 4 {
                assert!(out[2].is_nan(), "no estimate before arrival 4");
            } else if k < 20 {
                assert_eq!(out[2], a, "arrival {k}");
            } else if switched.is_none() {
                switched = Some((k, out[2], out[3]));
            }
        }
        assert_eq!(switched, Some((20, b, 4.0 / 6.0)));
    }
}
