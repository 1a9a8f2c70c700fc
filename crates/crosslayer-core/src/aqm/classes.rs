//! Class-based scheduling as WAN emulators offer it ("priority or round robin queuing", the
//! Netropy emulators of seed 004): a classifier sends each packet to one of up to 16 classes;
//! each class has its own queue discipline (any registered one); classes of different priority
//! are served in strict priority order, classes of equal priority share the link by Deficit
//! Round Robin with a quantum per class.
//!
//! Sources: Linux `net/sched/sch_prio.c` (strict priority over bands, band 0 first; each band a
//! child qdisc, by default a pfifo of txqueuelen packets), `net/sched/sch_drr.c` (DRR over
//! classes, quantum per class defaulting to the device MTU), `net/sched/sch_ets.c` (the
//! combination: strict bands first, then DRR bands); Shreedhar & Varghese, Efficient Fair
//! Queueing Using Deficit Round Robin, SIGCOMM 1995. Seed 004 (Mareev et al.) names the
//! emulator's options, not their algorithm.
//!
//! One discipline covers sch_prio (all priorities distinct), sch_drr (all equal) and sch_ets
//! (distinct strict classes above one DRR group). A class's DRR follows sch_drr: it joins the
//! tail of its priority's active list with deficit = quantum when it becomes backlogged; the
//! head class sends its head packet if it fits the deficit, else gains a quantum and moves to
//! the tail. Like Linux's `qdisc_peek_dequeued`, the head packet is taken from the child
//! discipline when first looked at and held until sent (a CoDel child decides at that moment).
//!
//! Children report their drops and marks through the parent's context; their reasons map by
//! name: a child's `overflow` is this discipline's `overflow`, every other reason (CoDel's law,
//! RED's early and forced drops, PIE, ...) is `aqm`. The earliest child timer is forwarded.
//!
//! Deviations: classification by flow index, port, DSCP and ECN lists instead of tc filters
//! and the priomap; when a child yields nothing although it held packets (its AQM dropped them
//! all), the scheduler goes on to the next class where Linux's sch_drr returns no packet for
//! that call; a single backlogged class of a priority gains all the quanta its head packet needs
//! at once (the same result as Linux's loop). Children's own counters and state are not exposed.

use super::{OVERFLOW, Qdisc, QdiscConfig, QdiscCtx, QdiscEnv, QueueDisc, Reason, ReasonId, Verdict, MAX_REASONS};
use crate::packet::{Ecn, Packet, PacketId};
use crate::params::{ParamSpec, ParamType, Params, Problem, Value};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Bytes, Time};
use serde_json::{json, Value as Json};
use std::collections::VecDeque;

/// Most classes (Linux `TCQ_PRIO_BANDS`, `TCQ_ETS_MAX_BANDS`).
pub const MAX_CLASSES: usize = 16;

/// Classes whose backlog, bytes and drops are reported (`STATE`, `STATS`).
const REPORTED: usize = 4;

crate::choice! {
    /// An ECN codepoint a class matches (RFC 3168 section 5).
    pub enum EcnCodepoint { NotEct = "not_ect", Ect0 = "ect0", Ect1 = "ect1", Ce = "ce" }
}

impl EcnCodepoint {
    fn bit(self) -> u8 {
        1 << match self {
            EcnCodepoint::NotEct => 0,
            EcnCodepoint::Ect0 => 1,
            EcnCodepoint::Ect1 => 2,
            EcnCodepoint::Ce => 3,
        }
    }
}

fn ecn_bit(e: Ecn) -> u8 {
    1 << match e {
        Ecn::NotEct => 0,
        Ecn::Ect0 => 1,
        Ecn::Ect1 => 2,
        Ecn::Ce => 3,
    }
}

/// A child queue discipline is a nested table `{kind = "...", ...}`, checked by its own
/// declaration.
impl ParamType for QdiscConfig {
    const KIND: &'static str = "table";
    fn value(&self) -> Value {
        Value::Unset
    }
    fn to_json(&self) -> Json {
        serde_json::to_value(self).expect("qdisc config serializes")
    }
    fn items() -> Option<Json> {
        Some(json!({"type": "table", "family": "aqm"}))
    }
    fn nested_problems(&self, path: &str, _spec: &ParamSpec, out: &mut Vec<Problem>) {
        out.extend(self.validate().into_iter().map(|p| under(path, p)));
    }
}

fn under(path: &str, p: Problem) -> Problem {
    let field = if p.field.is_empty() { path.to_string() } else { format!("{path}.{}", p.field) };
    Problem::new(field, p.message)
}

/// A plain FIFO of `limit_pkts` packets (DropTail, named through the family's registry).
fn fifo(limit_pkts: u32) -> QdiscConfig {
    let mut params = serde_json::Map::new();
    params.insert("limit_pkts".into(), limit_pkts.into());
    QdiscConfig::from_parts("droptail", params).expect("droptail is registered")
}

crate::params! {
    /// One class: the packets it takes, how it is scheduled, and its own queue discipline. A
    /// packet matches a class if it matches every list the class sets (a list matches if it
    /// contains the packet's value); a class that sets no list takes only unmatched packets,
    /// as the default class.
    pub struct ClassSpec {
        /// Strict priority: a lower number is served first; classes of equal priority share by DRR.
        priority: u32 = 0, Count, range(<= 15), "Linux sch_prio: band 0 first; sch_drr: one priority for all";
        /// DRR quantum: bytes the class may send per round among the classes of its priority.
        quantum: Bytes = Bytes::new(1514), Size, range(>= 1, <= Bytes::new(1 << 30)), "Linux sch_drr/sch_ets: psched_mtu = 1500-byte MTU + 14-byte Ethernet header";
        /// Flow indices (positions in the scenario's flow list) of the class.
        flows: Vec<u32> = vec![], Count, range(), "none";
        /// Service ports (`port` of a flow: data and ACKs carry it).
        ports: Vec<u16> = vec![], Count, range(), "none";
        /// DiffServ codepoints (RFC 2474), 0-63.
        dscp: Vec<u8> = vec![], Count, range(<= 63), "none";
        /// ECN codepoints (RFC 3168): not_ect, ect0, ect1, ce.
        ecn: Vec<EcnCodepoint> = vec![], Choice, range(), "none";
        /// The class's own queue discipline (any registered one).
        qdisc: QdiscConfig = fifo(1000), Qdisc, range(), "Linux sch_prio/sch_drr: a pfifo child of txqueuelen (1000) packets";
    }
}

impl ClassSpec {
    fn sets_a_matcher(&self) -> bool {
        !(self.flows.is_empty() && self.ports.is_empty() && self.dscp.is_empty() && self.ecn.is_empty())
    }
}

/// A class is a nested table, checked by its own declaration.
impl ParamType for ClassSpec {
    const KIND: &'static str = "table";
    fn value(&self) -> Value {
        Value::Unset
    }
    fn to_json(&self) -> Json {
        serde_json::to_value(self).expect("class serializes")
    }
    fn items() -> Option<Json> {
        Some(json!({"type": "table", "params": ClassSpec::specs().iter().map(ParamSpec::to_json).collect::<Vec<_>>()}))
    }
    fn nested_problems(&self, path: &str, _spec: &ParamSpec, out: &mut Vec<Problem>) {
        out.extend(self.validate().into_iter().map(|p| under(path, p)));
    }
}

/// Default classes: as Linux prio's bands, expedited forwarding (DSCP 46, RFC 3246) first and
/// everything else second, each a 1000-packet FIFO.
fn default_classes() -> Vec<ClassSpec> {
    vec![ClassSpec { priority: 0, dscp: vec![46], ..ClassSpec::default() }, ClassSpec { priority: 1, ..ClassSpec::default() }]
}

crate::params! {
    /// Classes and the class of unmatched packets.
    pub struct ClassesConfig {
        /// The classes, in classification order (the first class a packet matches takes it): each a table of priority, quantum, matchers (flows, ports, dscp, ecn) and qdisc.
        classes: Vec<ClassSpec> = default_classes(), Table, range(), "two classes: DSCP 46 (EF) strictly before the rest, each a 1000-packet FIFO (Linux sch_prio's pfifo bands)";
        /// Class (index in classes) of packets no class matches.
        default_class: u32 = 1, Count, range(<= 15), "the last default class: best effort";
    }
    check = ClassesConfig::check;
}

impl ClassesConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.classes.is_empty() || self.classes.len() > MAX_CLASSES {
            out.push(Problem::new("classes", format!("give 1 to {MAX_CLASSES} classes (Linux's limit on bands)")));
        } else if self.default_class as usize >= self.classes.len() {
            out.push(Problem::new("default_class", format!("must name one of the classes: 0 to {}", self.classes.len() - 1)));
        }
    }
}

/// `REASONS` indices.
const REASON_OVERFLOW: ReasonId = 0;
const REASON_AQM: ReasonId = 1;

/// What selects a class's packets (compiled from a `ClassSpec`).
#[derive(Debug)]
struct Matcher {
    /// The class sets at least one list.
    any: bool,
    flows: Vec<u32>,
    ports: Vec<u16>,
    /// Bit d set: DSCP d matches (0 = any).
    dscp: u64,
    /// Bit of each matching ECN codepoint (0 = any).
    ecn: u8,
}

impl Matcher {
    #[inline]
    fn matches(&self, p: &Packet) -> bool {
        self.any
            && (self.flows.is_empty() || self.flows.contains(&p.flow))
            && (self.ports.is_empty() || self.ports.contains(&p.port))
            && (self.dscp == 0 || self.dscp >> p.dscp & 1 == 1)
            && (self.ecn == 0 || self.ecn & ecn_bit(p.ecn) != 0)
    }
}

#[derive(Debug)]
struct Class {
    /// Its own discipline (boxed once at construction).
    qdisc: Box<Qdisc>,
    /// Index of its priority level in `Classes::levels`.
    level: u8,
    /// DRR quantum, bytes.
    quantum: u32,
    /// DRR deficit, bytes (sch_drr `deficit`).
    deficit: u32,
    /// On its level's active list.
    active: bool,
    /// Head packet taken from the child and not yet sent (Linux `qdisc_peek_dequeued`).
    peeked: Option<PacketId>,
    /// Its wire size, bytes.
    peeked_bytes: u32,
    /// Child reason index -> this discipline's reason index.
    reason_map: [ReasonId; MAX_REASONS],
    matcher: Matcher,
    /// Wire bytes sent.
    tx_bytes: u64,
    /// Packets dropped (on arrival or from its queue).
    drops: u64,
}

impl Class {
    fn len_pkts(&self) -> u32 {
        self.qdisc.len_pkts() + self.peeked.is_some() as u32
    }

    /// Run `f` on the child with this context, then move the child's per-reason counts to this
    /// discipline's reasons (the other counters and the backlog are the parent's as they are).
    #[inline]
    fn with_child<R>(&mut self, ctx: &mut QdiscCtx<'_>, f: impl FnOnce(&mut Qdisc, &mut QdiscCtx<'_>) -> R) -> R {
        let outer = std::mem::take(&mut ctx.acct.reasons);
        let r = f(&mut self.qdisc, ctx);
        let inner = std::mem::replace(&mut ctx.acct.reasons, outer);
        for i in 0..MAX_REASONS {
            let (d, m) = (inner.drops[i], inner.marks[i]);
            if d | m != 0 {
                let to = self.reason_map[i] as usize;
                ctx.acct.reasons.drops[to] += d;
                ctx.acct.reasons.marks[to] += m;
                self.drops += d;
            }
        }
        r
    }

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        match self.with_child(ctx, |q, ctx| q.enqueue(id, ctx)) {
            Verdict::Enqueued => Verdict::Enqueued,
            Verdict::Dropped(r) => {
                self.drops += 1;
                Verdict::Dropped(self.reason_map[r as usize])
            }
        }
    }

    /// The head packet (taken from the child on first look).
    #[inline]
    fn peek(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        if self.peeked.is_none() {
            self.peeked = self.with_child(ctx, |q, ctx| q.dequeue(ctx));
            self.peeked_bytes = self.peeked.map_or(0, |id| ctx.size(id));
        }
        self.peeked
    }
}

/// The classes of one priority: their DRR active list (class indices, head served first).
#[derive(Debug)]
struct Level {
    active: VecDeque<u8>,
}

#[derive(Debug)]
pub struct Classes {
    /// In configuration (classification) order.
    classes: Vec<Class>,
    /// Priority levels, lowest `priority` number (served first) first.
    levels: Vec<Level>,
    /// Class of unmatched packets.
    default_class: u8,
    /// Some child arms a timer.
    any_timer: bool,
}

impl Algorithm for Classes {
    type Config = ClassesConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "classes",
        aliases: &[],
        summary: "classes chosen by flow, port, DSCP or ECN, each with its own discipline; strict priority between priorities, DRR (quantum per class) within one",
        sources: &[
            "Linux net/sched/sch_prio.c, sch_drr.c, sch_ets.c",
            "Shreedhar & Varghese, Efficient Fair Queueing Using Deficit Round Robin, SIGCOMM 1995",
            "Mareev et al., Mutual Influence of Opposite TCP Flows in a Congested Network, 2020 (Netropy: priority or round robin queuing)",
        ],
    };
    fn new(cfg: &ClassesConfig, env: &QdiscEnv) -> Classes {
        let mut prios: Vec<u32> = cfg.classes.iter().map(|c| c.priority).collect();
        prios.sort_unstable();
        prios.dedup();
        let classes: Vec<Class> = cfg
            .classes
            .iter()
            .map(|c| {
                let qdisc = Box::new(Qdisc::new(&c.qdisc, env));
                let mut reason_map = [REASON_AQM; MAX_REASONS];
                for (i, r) in qdisc.reasons().iter().enumerate() {
                    reason_map[i] = if r.name == OVERFLOW.name { REASON_OVERFLOW } else { REASON_AQM };
                }
                Class {
                    qdisc,
                    level: prios.iter().position(|&p| p == c.priority).expect("priority listed") as u8,
                    quantum: c.quantum.get() as u32,
                    deficit: 0,
                    active: false,
                    peeked: None,
                    peeked_bytes: 0,
                    reason_map,
                    matcher: Matcher {
                        any: c.sets_a_matcher(),
                        flows: c.flows.clone(),
                        ports: c.ports.clone(),
                        dscp: c.dscp.iter().fold(0, |m, &d| m | 1 << d),
                        ecn: c.ecn.iter().fold(0, |m, e| m | e.bit()),
                    },
                    tx_bytes: 0,
                    drops: 0,
                }
            })
            .collect();
        Classes {
            any_timer: classes.iter().any(|c| c.qdisc.uses_timer()),
            levels: prios.iter().map(|_| Level { active: VecDeque::with_capacity(MAX_CLASSES) }).collect(),
            classes,
            default_class: cfg.default_class as u8,
        }
    }
}

impl Classes {
    /// The class of a packet: the first whose matchers it meets, else the default class.
    #[inline]
    fn classify(&self, p: &Packet) -> usize {
        self.classes.iter().position(|c| c.matcher.matches(p)).unwrap_or(self.default_class as usize)
    }
}

impl QueueDisc for Classes {
    const REASONS: &'static [Reason] = &[
        Reason { name: "overflow", doc: "a class's discipline had no room (its own overflow)" },
        Reason { name: "aqm", doc: "a class's discipline dropped or CE-marked by its AQM law (CoDel, RED's early or forced, PIE, ...)" },
    ];
    const STATS: &'static [Field] = &[
        Field { name: "class0_bytes", unit: FieldUnit::Bytes, doc: "wire bytes sent from class 0" },
        Field { name: "class1_bytes", unit: FieldUnit::Bytes, doc: "wire bytes sent from class 1" },
        Field { name: "class2_bytes", unit: FieldUnit::Bytes, doc: "wire bytes sent from class 2" },
        Field { name: "class3_bytes", unit: FieldUnit::Bytes, doc: "wire bytes sent from class 3" },
        Field { name: "class0_drops", unit: FieldUnit::Pkts, doc: "packets class 0 dropped" },
        Field { name: "class1_drops", unit: FieldUnit::Pkts, doc: "packets class 1 dropped" },
        Field { name: "class2_drops", unit: FieldUnit::Pkts, doc: "packets class 2 dropped" },
        Field { name: "class3_drops", unit: FieldUnit::Pkts, doc: "packets class 3 dropped" },
    ];
    const STATE: &'static [Field] = &[
        Field { name: "class0_pkts", unit: FieldUnit::Pkts, doc: "packets queued in class 0" },
        Field { name: "class1_pkts", unit: FieldUnit::Pkts, doc: "packets queued in class 1 (NaN: no such class)" },
        Field { name: "class2_pkts", unit: FieldUnit::Pkts, doc: "packets queued in class 2 (NaN: no such class)" },
        Field { name: "class3_pkts", unit: FieldUnit::Pkts, doc: "packets queued in class 3 (NaN: no such class)" },
    ];
    const TIMER: bool = true;

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let k = self.classify(ctx.arena.get(id));
        let c = &mut self.classes[k];
        let v = c.enqueue(id, ctx);
        // sch_drr: a class that becomes backlogged joins the tail with a full quantum.
        if v == Verdict::Enqueued && !c.active {
            c.active = true;
            c.deficit = c.quantum;
            self.levels[c.level as usize].active.push_back(k as u8);
        }
        v
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        for level in &mut self.levels {
            while let Some(&k) = level.active.front() {
                let c = &mut self.classes[k as usize];
                let Some(id) = c.peek(ctx) else {
                    // Its AQM dropped everything it held: it leaves the list (sch_drr's
                    // qlen_notify) and the next class is asked.
                    c.active = false;
                    level.active.pop_front();
                    continue;
                };
                let len = ctx.size(id);
                if len <= c.deficit {
                    c.deficit -= len;
                    c.peeked = None;
                    c.tx_bytes += len as u64;
                    if c.qdisc.len_pkts() == 0 {
                        c.active = false;
                        level.active.pop_front();
                    }
                    return Some(id);
                }
                if level.active.len() == 1 {
                    // Alone at its priority: the quanta Linux's loop would add one per pass.
                    c.deficit += (len - c.deficit).div_ceil(c.quantum) * c.quantum;
                } else {
                    c.deficit += c.quantum;
                    level.active.rotate_left(1);
                }
            }
        }
        None
    }

    fn len_pkts(&self) -> u32 {
        self.classes.iter().map(Class::len_pkts).sum()
    }

    fn len_bytes(&self) -> u64 {
        self.classes.iter().map(|c| c.qdisc.len_bytes() + c.peeked.map_or(0, |_| c.peeked_bytes as u64)).sum()
    }

    fn next_timer(&self) -> Time {
        if !self.any_timer {
            return Time::NEVER;
        }
        self.classes.iter().map(|c| c.qdisc.next_timer()).min().unwrap_or(Time::NEVER)
    }

    fn on_timer(&mut self, ctx: &mut QdiscCtx<'_>) {
        for c in &mut self.classes {
            if c.qdisc.next_timer() <= ctx.now {
                c.with_child(ctx, |q, ctx| q.on_timer(ctx));
            }
        }
    }

    fn stats(&self, out: &mut [u64]) {
        for k in 0..REPORTED {
            let c = self.classes.get(k);
            out[k] = c.map_or(0, |c| c.tx_bytes);
            out[REPORTED + k] = c.map_or(0, |c| c.drops);
        }
    }

    fn state(&self, out: &mut [f64]) {
        for (k, o) in out.iter_mut().enumerate() {
            *o = self.classes.get(k).map_or(f64::NAN, |c| c.len_pkts() as f64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::codel::CodelConfig;
    use crate::aqm::Queue;
    use crate::packet::PacketArena;
    use crate::rng::{Rng, StreamKind};
    use crate::units::{Dur, Rate};

    const MS: u64 = 1_000_000;

    fn env() -> QdiscEnv {
        QdiscEnv { link_rate: Rate::from_mbps(100) }
    }

    fn queue(cfg: ClassesConfig) -> Queue {
        assert!(cfg.validate().is_empty(), "{:?}", cfg.validate());
        Queue::new(&QdiscConfig::Classes(cfg), &env(), Rng::stream(1, StreamKind::Qdisc, 0))
    }

    fn class(priority: u32, quantum: u64) -> ClassSpec {
        ClassSpec { priority, quantum: Bytes::new(quantum), qdisc: fifo(100_000), ..ClassSpec::default() }
    }

    fn by_dscp(mut c: ClassSpec, d: u8) -> ClassSpec {
        c.dscp = vec![d];
        c
    }

    /// A packet of `size` bytes with DSCP `dscp`.
    fn pkt(a: &mut PacketArena, size: u32, dscp: u8) -> PacketId {
        a.alloc(Packet { size_bytes: size, dscp, ..Default::default() })
    }

    #[test]
    fn strict_priority_sends_every_higher_class_packet_first() {
        // Three classes by DSCP: 46 first, 10 second, the rest last; 30 interleaved arrivals.
        let cfg = ClassesConfig { classes: vec![by_dscp(class(0, 1514), 46), by_dscp(class(1, 1514), 10), class(2, 1514)], default_class: 2 };
        let mut q = queue(cfg);
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        let codes = [0u8, 46, 10];
        let mut want: [Vec<PacketId>; 3] = Default::default();
        for k in 0..30 {
            let c = (k * 7 + k / 3) % 3;
            let id = pkt(&mut a, 100 + 50 * k as u32, codes[c]);
            assert!(q.enqueue(id, Time::from_ns(k as u64), &mut a, &mut dropped));
            want[[2, 0, 1][c]].push(id);
        }
        let mut sent = vec![];
        for k in 0..15 {
            sent.push(q.dequeue(Time::from_ns(100 + k), &mut a, &mut dropped).unwrap());
        }
        // A late arrival in the first class overtakes everything still queued.
        let late = pkt(&mut a, 1500, 46);
        assert!(q.enqueue(late, Time::from_ns(200), &mut a, &mut dropped));
        while let Some(id) = q.dequeue(Time::from_ns(300), &mut a, &mut dropped) {
            sent.push(id);
        }
        let expect: Vec<PacketId> = want.concat();
        let (done, rest) = expect.split_at(15);
        assert_eq!(&sent[..15], done);
        assert_eq!(sent[15], late);
        assert_eq!(&sent[16..], rest);
        q.check_identities().unwrap();
    }

    /// Deficit Round Robin as Shreedhar & Varghese (SIGCOMM 1995, figure 4) describe it, one
    /// packet per call: a visit adds the quantum and sends head packets while they fit; an
    /// emptied queue forgets its deficit and leaves the active list.
    struct PaperDrr {
        queues: Vec<VecDeque<(PacketId, u32)>>,
        quantum: Vec<u32>,
        deficit: Vec<u32>,
        active: VecDeque<usize>,
        current: Option<usize>,
    }

    impl PaperDrr {
        fn enqueue(&mut self, c: usize, id: PacketId, size: u32) {
            if self.queues[c].is_empty() && self.current != Some(c) {
                self.active.push_back(c);
            }
            self.queues[c].push_back((id, size));
        }
        fn dequeue(&mut self) -> Option<PacketId> {
            loop {
                let i = match self.current {
                    Some(i) => i,
                    None => {
                        let i = self.active.pop_front()?;
                        self.deficit[i] += self.quantum[i];
                        self.current = Some(i);
                        i
                    }
                };
                if let Some(&(id, size)) = self.queues[i].front() {
                    if size <= self.deficit[i] {
                        self.deficit[i] -= size;
                        self.queues[i].pop_front();
                        if self.queues[i].is_empty() {
                            self.deficit[i] = 0;
                            self.current = None;
                        }
                        return Some(id);
                    }
                    self.active.push_back(i);
                } else {
                    self.deficit[i] = 0;
                }
                self.current = None;
            }
        }
    }

    #[test]
    fn drr_sends_what_the_papers_deficit_round_robin_sends() {
        // Four classes of one priority with quanta 1514, 3028, 500, 64 (smaller than most
        // packets), random sizes 64-1514 B, random interleaving of arrivals and dequeues.
        let quanta = [1514u32, 3028, 500, 64];
        for seed in 0..5 {
            let classes = quanta.iter().enumerate().map(|(k, &qb)| by_dscp(class(0, qb as u64), k as u8 + 1)).collect();
            let mut q = queue(ClassesConfig { classes, default_class: 0 });
            let mut r = PaperDrr { queues: vec![VecDeque::new(); 4], quantum: quanta.to_vec(), deficit: vec![0; 4], active: VecDeque::new(), current: None };
            let mut rng = Rng::stream(seed, StreamKind::Flow, 0);
            let mut a = PacketArena::new();
            let mut dropped = vec![];
            let (mut n, mut t) = (0, 0);
            for _ in 0..20_000 {
                t += 1;
                if rng.chance(0.52) {
                    let c = rng.range_inclusive(0, 3) as usize;
                    let size = rng.range_inclusive(64, 1514) as u32;
                    let id = pkt(&mut a, size, c as u8 + 1);
                    assert!(q.enqueue(id, Time::from_ns(t), &mut a, &mut dropped));
                    r.enqueue(c, id, size);
                } else {
                    let got = q.dequeue(Time::from_ns(t), &mut a, &mut dropped);
                    assert_eq!(got, r.dequeue(), "seed {seed}, step {t}");
                    if let Some(id) = got {
                        a.free(id);
                        n += 1;
                    }
                }
            }
            assert!(n > 8_000);
            q.check_identities().unwrap();
        }
    }

    /// Bytes each class sent while all stayed backlogged.
    fn backlogged_shares(quanta: &[u64], sizes: &[(u32, u32)], n: usize) -> Vec<f64> {
        let classes = quanta.iter().enumerate().map(|(k, &qb)| by_dscp(class(0, qb), k as u8 + 1)).collect();
        let mut q = queue(ClassesConfig { classes, default_class: 0 });
        let mut rng = Rng::stream(7, StreamKind::Flow, 0);
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        let mut sent = vec![0u64; quanta.len()];
        let new_pkt = |a: &mut PacketArena, c: usize, rng: &mut Rng| pkt(a, rng.range_inclusive(sizes[c].0 as u64, sizes[c].1 as u64) as u32, c as u8 + 1);
        for c in 0..quanta.len() {
            for _ in 0..50 {
                let id = new_pkt(&mut a, c, &mut rng);
                q.enqueue(id, Time::ZERO, &mut a, &mut dropped);
            }
        }
        for k in 0..n {
            let id = q.dequeue(Time::from_ns(k as u64), &mut a, &mut dropped).unwrap();
            let c = a.get(id).dscp as usize - 1;
            sent[c] += a.get(id).size_bytes as u64;
            a.free(id);
            let more = new_pkt(&mut a, c, &mut rng);
            q.enqueue(more, Time::from_ns(k as u64), &mut a, &mut dropped);
        }
        q.check_identities().unwrap();
        let total: u64 = sent.iter().sum();
        sent.iter().map(|&s| s as f64 / total as f64).collect()
    }

    #[test]
    fn drr_byte_shares_match_the_quanta() {
        // 3:1 quanta, both classes of random sizes 64-1514 B.
        let s = backlogged_shares(&[4542, 1514], &[(64, 1514), (64, 1514)], 40_000);
        eprintln!("quanta 3:1: shares {:.4} {:.4} (ratio {:.4})", s[0], s[1], s[0] / s[1]);
        assert!((s[0] / s[1] - 3.0).abs() < 0.01);
        // Equal quanta: equal bytes although one class sends 1500-B and the other 100-B packets.
        let s = backlogged_shares(&[1514, 1514], &[(1500, 1500), (100, 100)], 40_000);
        eprintln!("equal quanta, 1500 B vs 100 B packets: shares {:.4} {:.4}", s[0], s[1]);
        assert!((s[0] - 0.5).abs() < 0.005);
        // 1:2:3 with quanta below the packet size.
        let s = backlogged_shares(&[300, 600, 900], &[(64, 1514), (64, 1514), (64, 1514)], 60_000);
        eprintln!("quanta 1:2:3: shares {:.4} {:.4} {:.4}", s[0], s[1], s[2]);
        for (k, want) in [1.0 / 6.0, 2.0 / 6.0, 3.0 / 6.0].into_iter().enumerate() {
            assert!((s[k] - want).abs() < 0.005, "class {k}: {}", s[k]);
        }
    }

    #[test]
    fn classifier_by_flow_port_dscp_ecn_and_default() {
        let cfg = ClassesConfig {
            classes: vec![
                ClassSpec { flows: vec![3, 5], ..class(0, 1514) },
                ClassSpec { ports: vec![443], ..class(0, 1514) },
                ClassSpec { dscp: vec![46, 34], ..class(0, 1514) },
                ClassSpec { ecn: vec![EcnCodepoint::Ect1, EcnCodepoint::Ce], ..class(0, 1514) },
                ClassSpec { dscp: vec![10], ports: vec![80], ..class(0, 1514) },
                class(1, 1514),
            ],
            default_class: 5,
        };
        let c = Classes::new(&cfg, &env());
        let p = |flow, port, dscp, ecn| Packet { flow, port, dscp, ecn, ..Default::default() };
        let cases = [
            (p(3, 443, 46, Ecn::Ce), 0), // first match wins
            (p(5, 0, 0, Ecn::NotEct), 0),
            (p(4, 443, 46, Ecn::NotEct), 1),
            (p(4, 80, 34, Ecn::NotEct), 2),
            (p(4, 80, 0, Ecn::Ect1), 3),
            (p(4, 80, 0, Ecn::Ce), 3),
            (p(4, 80, 0, Ecn::Ect0), 5), // ECT(0) is not listed
            (p(4, 80, 10, Ecn::Ect0), 4), // DSCP 10 and port 80 together
            (p(4, 81, 10, Ecn::Ect0), 5), // DSCP 10 alone is not enough
            (p(0, 0, 0, Ecn::NotEct), 5),
        ];
        for (k, (packet, want)) in cases.iter().enumerate() {
            assert_eq!(c.classify(packet), *want, "case {k}");
        }
    }

    /// Drive `q` with arrivals `arr` and dequeues `deq` (ns, sorted; arrivals first on ties);
    /// (drops as (time, id), sent ids).
    fn drive(q: &mut Queue, arr: &[(u64, u8)], deq: &[u64]) -> (Vec<(u64, PacketId)>, Vec<PacketId>) {
        let mut a = PacketArena::new();
        let (mut drops, mut sent, mut dropped) = (vec![], vec![], vec![]);
        let (mut i, mut j) = (0, 0);
        while j < deq.len() {
            if i < arr.len() && arr[i].0 <= deq[j] {
                let id = pkt(&mut a, 1500, arr[i].1);
                if !q.enqueue(id, Time::from_ns(arr[i].0), &mut a, &mut dropped) {
                    a.free(id);
                }
                i += 1;
            } else {
                if let Some(id) = q.dequeue(Time::from_ns(deq[j]), &mut a, &mut dropped) {
                    sent.push(id);
                    a.free(id);
                }
                for id in dropped.drain(..) {
                    drops.push((deq[j], id));
                    a.free(id);
                }
                j += 1;
            }
        }
        q.check_identities().unwrap();
        (drops, sent)
    }

    #[test]
    fn a_codel_class_drops_at_the_head_as_codel_alone() {
        // 1.2x overload for 6 s in a CoDel class (with an idle strict-priority class above it):
        // the same drops at the same times as a plain CoDel queue, reported as "aqm".
        let codel = CodelConfig { limit_pkts: 100_000, ..Default::default() };
        let arr: Vec<(u64, u8)> = (1..72_000).map(|k| (k * 83_333, 0)).collect();
        let deq: Vec<u64> = (1..60_000).map(|k| k * 100_000).collect();
        let mut plain = Queue::new(&QdiscConfig::Codel(codel.clone()), &env(), Rng::stream(1, StreamKind::Qdisc, 0));
        let cfg = ClassesConfig { classes: vec![by_dscp(class(0, 1514), 46), ClassSpec { qdisc: QdiscConfig::Codel(codel), ..class(1, 1514) }], default_class: 1 };
        let mut q = queue(cfg);
        let (d_plain, s_plain) = drive(&mut plain, &arr, &deq);
        let (d, s) = drive(&mut q, &arr, &deq);
        eprintln!("CoDel in a class: {} head drops, plain CoDel {}", d.len(), d_plain.len());
        assert!(d.len() > 100);
        assert_eq!(d, d_plain);
        assert_eq!(s, s_plain);
        assert_eq!(q.reasons().drops[REASON_AQM as usize], d.len() as u64);
        assert_eq!(q.counters().drops_queued, d.len() as u64);
        let mut stats = [0; 8];
        q.qdisc.stats(&mut stats);
        assert_eq!(stats[5], d.len() as u64, "class 1 counts its drops");
    }

    #[test]
    fn codel_classes_under_drr_keep_dropping_and_sharing() {
        // Two CoDel classes at 3:1 quanta, each offered the whole link: both drop at the head,
        // and the link is shared 3:1.
        let codel = QdiscConfig::Codel(CodelConfig { limit_pkts: 100_000, ..Default::default() });
        let classes = vec![ClassSpec { qdisc: codel.clone(), ..by_dscp(class(0, 4500), 1) }, ClassSpec { qdisc: codel, ..by_dscp(class(0, 1500), 2) }];
        let mut q = queue(ClassesConfig { classes, default_class: 0 });
        let mut arr: Vec<(u64, u8)> = (1..60_000).flat_map(|k| [(k * 100_000, 1), (k * 100_000 + 1, 2)]).collect();
        arr.sort_unstable();
        let deq: Vec<u64> = (1..60_000).map(|k| k * 100_000 + 50_000).collect();
        let (d, _) = drive(&mut q, &arr, &deq);
        let mut stats = [0; 8];
        q.qdisc.stats(&mut stats);
        eprintln!("two CoDel classes under DRR 3:1: sent {} / {} bytes, drops {} / {} (+ {} overflow)", stats[0], stats[1], stats[4], stats[5], q.reasons().drops[0]);
        assert!(stats[4] > 100 && stats[5] > 100 && d.len() as u64 == stats[4] + stats[5]);
        assert!((stats[0] as f64 / stats[1] as f64 - 3.0).abs() < 0.01);
    }

    #[test]
    fn identities_hold_with_every_kind_of_child() {
        // Small DropTail (overflow), CoDel with ECN (marks), RED (random drops), PIE (a timer),
        // FQ-CoDel (drops from its queue on overflow) and a nested strict-priority "classes".
        let kinds = [
            json!({"kind": "droptail", "limit_pkts": 20}),
            json!({"kind": "codel", "ecn": true, "target": 1_000_000, "interval": 20_000_000}),
            json!({"kind": "red"}),
            json!({"kind": "pie", "target": 1_000_000}),
            json!({"kind": "fq_codel", "limit_pkts": 50}),
            json!({"kind": "classes"}),
        ];
        let classes: Vec<Json> = kinds.iter().enumerate().map(|(k, q)| json!({"priority": k / 5, "quantum": 1000 + 500 * k, "dscp": [k + 1], "qdisc": q})).collect();
        let cfg: QdiscConfig = serde_json::from_value(json!({"kind": "classes", "classes": classes, "default_class": 0})).unwrap();
        assert!(cfg.validate().is_empty());
        let mut q = Queue::new(&cfg, &env(), Rng::stream(3, StreamKind::Qdisc, 0));
        assert!(q.next_timer() < Time::NEVER, "PIE's timer is forwarded");
        let mut rng = Rng::stream(9, StreamKind::Flow, 0);
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        let mut t = 0;
        let mut freed = 0u64;
        for step in 0..200_000u64 {
            t += rng.range_inclusive(1, 60_000);
            let now = Time::from_ns(t);
            while q.next_timer() <= now {
                let at = q.next_timer();
                q.on_timer(at, &mut a, &mut dropped);
            }
            // Overload phases of about 0.3 s (longer than PIE's burst allowance) and idle-ish ones.
            if rng.chance(if (step / 10_000) % 2 == 0 { 0.8 } else { 0.3 }) {
                let ecn = if rng.chance(0.5) { Ecn::Ect0 } else { Ecn::NotEct };
                let id = a.alloc(Packet { size_bytes: rng.range_inclusive(64, 1514) as u32, dscp: rng.range_inclusive(0, 7) as u8, flow: rng.range_inclusive(0, 20) as u32, ecn, ..Default::default() });
                if !q.enqueue(id, now, &mut a, &mut dropped) {
                    a.free(id);
                    freed += 1;
                }
            } else if let Some(id) = q.dequeue(now, &mut a, &mut dropped) {
                a.free(id);
            }
            for id in dropped.drain(..) {
                a.free(id);
                freed += 1;
            }
            if step % 1000 == 0 {
                q.check_identities().unwrap();
            }
        }
        q.check_identities().unwrap();
        let c = *q.counters();
        let r = *q.reasons();
        let mut stats = [0; 8];
        q.qdisc.stats(&mut stats);
        eprintln!(
            "arrivals {}, overflow drops {}, aqm drops {}, aqm marks {}, class drops {:?}",
            c.arrivals, r.drops[0], r.drops[1], r.marks[1], &stats[4..]
        );
        assert_eq!(freed, c.drops());
        assert!(r.drops[0] > 0 && r.drops[1] > 0 && r.marks[1] > 0 && r.marks[0] == 0);
        assert_eq!(r.drops[2..], [0; MAX_REASONS - 2]);
        assert!(stats[4..].iter().all(|&d| d > 0));
    }

    #[test]
    fn validation_names_the_field_with_its_index() {
        let bad: QdiscConfig = serde_json::from_value(json!({"kind": "classes", "classes": [
            {"dscp": [46, 64], "quantum": 0},
            {"qdisc": {"kind": "codel", "target": 200_000_000}},
        ]}))
        .unwrap();
        let msgs: Vec<String> = bad.validate().iter().map(|p| p.to_string()).collect();
        assert_eq!(
            msgs,
            [
                "classes[0].quantum: must be in [1B, 1GiB]",
                "classes[0].dscp[1]: must be <= 63",
                "classes[1].qdisc.target: must be shorter than interval (100ms); RFC 8289 suggests 5-10 % of it",
            ]
        );
        let bad: QdiscConfig = serde_json::from_value(json!({"kind": "classes", "classes": [{}], "default_class": 1})).unwrap();
        assert_eq!(bad.validate()[0].to_string(), "default_class: must name one of the classes: 0 to 0");
        let bad: QdiscConfig = serde_json::from_value(json!({"kind": "classes", "classes": []})).unwrap();
        assert_eq!(bad.validate()[0].field, "classes");
        assert!(serde_json::from_value::<QdiscConfig>(json!({"kind": "classes", "classes": [{"dscpp": [1]}]})).is_err());
        assert!(serde_json::from_value::<QdiscConfig>(json!({"kind": "classes", "classes": [{"ecn": ["ect2"]}]})).is_err());
    }

    #[test]
    fn nested_configuration_round_trips_and_is_in_the_catalog() {
        let cfg: QdiscConfig = serde_json::from_value(json!({"kind": "classes", "classes": [
            {"priority": 0, "ports": [5060], "ecn": ["ect1"], "qdisc": {"kind": "codel", "target": 2_000_000}},
            {"priority": 1, "flows": [0, 2], "quantum": 3000, "qdisc": {"kind": "fifo", "limit_pkts": 50}},
        ], "default_class": 1}))
        .unwrap_or_else(|e| panic!("{e}"));
        let back: QdiscConfig = serde_json::from_value(serde_json::to_value(&cfg).unwrap()).unwrap();
        assert_eq!(back, cfg);
        let entry = crate::aqm::catalog().into_iter().find(|e| e["name"] == "classes").unwrap();
        let classes = &entry["params"][0];
        assert_eq!((classes["type"].as_str(), classes["unit"].as_str()), (Some("list"), Some("table")));
        assert_eq!(classes["default"][0]["dscp"], json!([46]));
        assert_eq!(classes["default"][1]["qdisc"], json!({"kind": "droptail", "limit_pkts": 1000, "limit_bytes": null}));
        let item_names: Vec<&str> = classes["items"]["params"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(item_names, ["priority", "quantum", "flows", "ports", "dscp", "ecn", "qdisc"]);
        let dscp = &classes["items"]["params"][4];
        assert_eq!((dscp["type"].as_str(), dscp["max"].as_u64(), &dscp["items"]), (Some("list"), Some(63), &json!({"type": "int", "int_max": 255})));
        assert_eq!(classes["items"]["params"][3]["items"], json!({"type": "int", "int_max": 65535}));
        assert_eq!(classes["items"]["params"][5]["choices"], json!(["not_ect", "ect0", "ect1", "ce"]));
        assert_eq!(classes["items"]["params"][6]["items"], json!({"type": "table", "family": "aqm"}));
        assert!(entry["params"][1].get("items").is_none(), "scalars keep their catalog form");
    }

    #[test]
    fn default_is_two_strict_fifo_classes_with_ef_first() {
        let mut q = queue(ClassesConfig::default());
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        let be = pkt(&mut a, 1500, 0);
        let ef = pkt(&mut a, 200, 46);
        q.enqueue(be, Time::ZERO, &mut a, &mut dropped);
        q.enqueue(ef, Time::ZERO, &mut a, &mut dropped);
        assert_eq!(q.dequeue(Time::ZERO, &mut a, &mut dropped), Some(ef));
        assert_eq!(q.next_timer(), Time::NEVER);
        let mut state = [0.0; 4];
        q.qdisc.state(&mut state);
        assert_eq!(&state[..2], [0.0, 1.0]);
        assert!(state[2].is_nan());
        let _ = Dur::ZERO;
        let _ = MS;
    }
}
