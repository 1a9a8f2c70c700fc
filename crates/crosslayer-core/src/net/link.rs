//! A simplex link: egress queue discipline -> transmitter (rate) -> optional random loss ->
//! propagation pipe (delay) -> far node.
//!
//! The link keeps at most two scheduler entries: `Deliver` for the head of its pipe and, only
//! while packets wait behind the one being serialized, `TxDone` at the end of that serialization.
//! A packet enters the pipe when its serialization starts, with arrival time = end of
//! serialization + delay; since rate and delay are constant, packets leave the pipe in the order
//! they entered it, so the pipe is a FIFO and only its head needs an event. An idle link thus
//! costs one event per packet, a busy one two. Optional jitter adds a random delay in
//! [0, jitter] per packet but never lets a packet overtake the one before (it waits for it), so
//! the pipe stays a FIFO: it breaks the exact phase of traffic that every link at the same rate
//! would otherwise keep (see docs/phase-effects.md).
//!
//! **Departures known at arrival.** A link whose discipline serves in arrival order and decides
//! only at arrival (`QueueDisc::FIFO_AT_ARRIVAL`: DropTail), with no impairment (but a loss
//! model, a jitter distribution that keeps the order, outages and a rate/delay schedule,
//! `Impair::known_at_arrival`) or capture of what it sends (a random loss, a loss model's and
//! a jitter are drawn when the start is known, `draw`: in start order either way; a packet lost is
//! kept until its start, when the engine discards it, `keep_lost`), knows when an accepted packet's
//! serialization starts the moment the packet arrives: `max(arrival, end of the previous
//! packet's serialization)`, past any outage then, at the rate and with the delay in force at
//! that start (`arrive_timed`). It puts the packet in its pipe at once (`accept`) and keeps the
//! start in `starts`; the dequeue and the transmitter's accounting happen in `settle`, which the
//! engine calls before anything reads or changes the link (an arrival, a delivery from its pipe,
//! a sample, the start of the measurement window, the end of a run), applying every start due
//! by then in time order. So the queue's statistics are those of the event-driven link, exactly,
//! and the link needs no `TxDone` event. The one order that is fixed: a serialization that starts
//! at the very instant a packet arrives starts first, so the arrival finds the place it freed
//! (the event-driven link took the two in the order they were scheduled). It matters only when
//! the queue is full at that instant; `tests/eager_links.rs` shows the distributions unchanged.
//!
//! **A discipline that decides at arrival** (`QueueDisc::DECIDES_AT_ARRIVAL`: PIE, PI, REM, AVQ) drops or
//! marks only arrivals and never at the head, so the same rule gives each accepted packet's
//! start. Its link knows its departures too (`decides`; `eager` stays Drop Tail's, the one flag
//! the hot path tests): the discipline decides at the arrival from the backlog
//! the queue counts once settled (`arrive_deciding`), and `settle` tells it each departure in
//! time order (`Queue::depart_deciding`), as its dequeue would have; its timer settles the link
//! first (`Sim::on_qdisc_timer`), after the arrivals a router taking them late still holds
//! (`sim::late`). Such a link is never decided ahead (below): its decision at an arrival needs
//! the departures and updates before it.
//!
//! **A discipline quiet until a time** (`QueueDisc::quiet_until`: CoDel, the fairness-oriented
//! CoDel) decides only at the
//! head, but its state tells a time up to which no dequeue can drop or mark whatever arrives:
//! CoDel drops in its dropping state only at `drop_next` or later, and outside it only at a
//! dequeue after `first_above_time`, which a dequeue sets an interval after itself. A dequeue
//! before that time only records what it sees (the sojourn, whether the queue went below
//! target). So a packet arriving while the discipline holds nothing, and starting no later than
//! that time, starts when the same rule says: its link (`quiet`) puts it in its pipe at once and
//! keeps the start in `starts`, and `settle` tells the discipline each such departure in time
//! order (`QueueDisc::departed`, with the bytes queued after it, counting the packets the
//! discipline holds). A packet that would start later, or arrives behind one held, is held by
//! the discipline and dequeued at its time by a `TxDone`, with every drop at the head it decides
//! there; after that dequeue, the held packets that start no later than the time the
//! discipline is now quiet until leave it the same way (`release`). So a link where CoDel
//! drops rarely has a `TxDone` only near its drops: on seed 000's Data Center, whose queue
//! stays above CoDel's target, a run has as few events as with Drop Tail. The bound holds for any
//! arrivals after the time it is taken, so every known start is a dequeue that neither drops
//! nor marks; the ties are those of the eager links (a start before an arrival at its instant).
//! A router before such a link may take its arrivals late (`sim::late`), with no slack past the
//! link's transmitter (a held packet may need its `TxDone` as soon as that is free), and a
//! `TxDone` takes every router's due arrivals first.
//!
//! **Hops decided ahead.** An eager link whose packets all come from one other eager link's
//! pipe (in a dumbbell, B -> a receiver is fed by A -> B alone) receives them in the order they
//! enter that pipe, and each one's arrival time is known then. So the engine hands it the packet
//! at that moment (`arrive_ahead`) instead of delivering it to the router in between: the link
//! decides at once whether the packet fits at its arrival (it keeps, in `view`, the packets that
//! will be waiting then) and puts it in its own pipe. The arrival's accounting waits in `ahead`
//! until `settle` reaches its time, in time order with the starts, so the queue's statistics
//! are again exact. A packet it will drop is kept until its arrival (`keep_refused`), when the
//! engine frees it and counts the drop against its flow, as the event-driven queue drops it (it
//! was freed at once until 2026-11-29: its flow counted the drop a propagation delay early, and
//! a window starting in between counted it outside); the queue and the flow's per-link counts
//! take the drop at its time in `settle`.

use crate::aqm::Queue;
use crate::net::impair::{Impair, JitterDist};
use crate::packet::{PacketArena, PacketId};
use crate::metrics::Counters;
use crate::ring::Ring;
use crate::rng::Rng;
use crate::spec::EdgeSpec;
use crate::units::{Dur, Rate, Time};

crate::counters! {
    /// Monotonic transmitter counters. A packet counts when its serialization completes: the
    /// engine counts it when serialization starts and `completed` takes back the one still in
    /// progress at a window boundary.
    pub struct LinkCounters {
        /// Packets whose serialization completed.
        tx_pkts: "pkts",
        /// Wire bytes whose serialization completed.
        tx_bytes: "bytes",
        /// Packets lost on the wire by the random (Bernoulli) loss process or the link's loss model.
        lost_random: "pkts",
        /// Time the transmitter was busy, ns (utilization = busy time / window).
        busy_ns: "ns",
    }
}

crate::counters! {
    /// What one flow's packets in one direction met at the queue of one link of their path,
    /// whatever the discipline did and whenever it did it.
    pub struct CoreCounters {
        /// Packets of the flow offered to the queue.
        arrivals: "pkts",
        /// Of those, dropped by the discipline: on arrival (full, or an early AQM drop) or later from the queue (CoDel's head drops, push-outs, a class's AQM).
        drops: "pkts",
        /// Of those, CE-marked by the discipline (at enqueue or at dequeue).
        marks: "pkts",
    }
}

/// One slot of the flows' paths (`Sim::slots`): one flow's direction at one link of its path,
/// the flows laid end to end (`flow::Route`), so that forwarding a packet reads one record.
#[derive(Clone, Copy, Debug, Default)]
pub struct Slot {
    /// What this flow and direction met at the link's queue since the start of the measurement
    /// window (zeroed then; every link of every path is counted, so at every link the flows'
    /// counts plus what zeroing took away add up to the queue's).
    pub counts: CoreCounters,
    /// The link.
    pub link: u32,
    /// The next slot's link takes the packets straight from this link's pipe (hops decided
    /// ahead). A route's first slot never does, so a packet on the last link of its route (the
    /// next slot is another route's first) never goes ahead.
    pub next_fused: bool,
}

/// The packet being serialized: when it ends, its size, whether the wire loses it, and (on an
/// event-driven link) which packet it is.
#[derive(Clone, Copy, Debug, Default)]
struct InService {
    end: Time,
    bytes: u32,
    lost: bool,
    id: PacketId,
}

/// Outcome of `Link::arrive_quiet`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quiet {
    /// It does not fit: dropped (the caller frees it).
    Dropped,
    /// Its serialization is known to end then.
    Known(Time),
    /// The discipline holds it, to decide at its dequeue.
    Held,
}

/// Outcome of `Link::start_tx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxStart {
    /// Nothing to send.
    Idle,
    /// Serializing; `Some(t)`: the pipe was empty (or, with reordering, the packet goes before
    /// its head), schedule `Deliver` at `t`.
    Sent { first_in_pipe: Option<Time> },
    /// As `Sent`, and the packet was duplicated: `copy` is in the pipe too (`net::impair`).
    Copied { first_in_pipe: Option<Time>, copy: PacketId },
    /// Serializing a packet that the random-loss process will corrupt: never arrives.
    Lost(PacketId),
    /// Serializing packet `id` on a link whose packets are captured (`capture_tx`): as `Sent`,
    /// or as `Lost` when `lost`.
    Captured { id: PacketId, first_in_pipe: Option<Time>, lost: bool },
    /// The link is down (an outage), or a trace-driven link waits for its next delivery
    /// opportunity: nothing leaves before `busy_until`.
    Held,
}

/// What a link is in its topology (the `role` column of the result tables): the dumbbell's six
/// roles, or in a graph a link between routers or to or from a host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkRole {
    /// A -> B, the bottleneck.
    Forward,
    /// B -> A.
    Reverse,
    /// A sender host -> A.
    SenderUp,
    /// A -> a sender host.
    SenderDown,
    /// A receiver host -> B.
    ReceiverUp,
    /// B -> a receiver host.
    ReceiverDown,
    /// A graph's link between two routers.
    Router,
    /// A graph's link from a host.
    HostUp,
    /// A graph's link to a host.
    HostDown,
    /// A wireless LAN's link from a station to its access point (`net::wlan`).
    WlanUp,
    /// A wireless LAN's link from the access point to a station.
    WlanDown,
}

impl LinkRole {
    /// Its name in the result tables.
    pub fn name(self) -> &'static str {
        match self {
            LinkRole::Forward => "forward",
            LinkRole::Reverse => "reverse",
            LinkRole::SenderUp => "sender_up",
            LinkRole::SenderDown => "sender_down",
            LinkRole::ReceiverUp => "receiver_up",
            LinkRole::ReceiverDown => "receiver_down",
            LinkRole::Router => "router",
            LinkRole::HostUp => "host_up",
            LinkRole::HostDown => "host_down",
            LinkRole::WlanUp => "wlan_up",
            LinkRole::WlanDown => "wlan_down",
        }
    }

    /// Every role.
    pub const ALL: [LinkRole; 11] = {
        use LinkRole::*;
        [Forward, Reverse, SenderUp, SenderDown, ReceiverUp, ReceiverDown, Router, HostUp, HostDown, WlanUp, WlanDown]
    };

    /// The role a name gives (`forward`, ..., `host_down`).
    pub fn from_name(name: &str) -> Option<LinkRole> {
        LinkRole::ALL.into_iter().find(|r| r.name() == name)
    }
}

#[cfg(test)]
mod role_names {
    /// The spec's check of a declared role (`topo::ROLES`) knows exactly these names.
    #[test]
    fn the_specs_role_names_are_the_roles() {
        let names: Vec<&str> = super::LinkRole::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names, crate::topo::ROLES);
    }
}

#[derive(Debug)]
pub struct Link {
    pub name: String,
    /// Role in the topology (`forward`, `reverse`, `sender_up`, ..., `router`).
    pub role: LinkRole,
    pub from: u32,
    pub to: u32,
    pub rate: Rate,
    pub delay: Dur,
    pub queue: Queue,
    /// The transmitter is busy until then (end of the current serialization).
    busy_until: Time,
    /// A `TxDone` event is scheduled at `busy_until`.
    pub tx_done_pending: bool,
    /// An eager link: the time of the `Event::Discard` that comes next for the packets it
    /// keeps to discard (`keep_lost`, `keep_refused`; `NEVER`: none).
    pub discard_at: Time,
    /// Capture file (1-based; 0: none) of the packets it starts sending, and of those it
    /// delivers (`spec::PcapSpec`).
    pub capture_tx: u16,
    pub capture_rx: u16,
    /// Packets propagating, with their arrival times (non-decreasing) and sizes.
    pipe: Ring<Piped>,
    loss: f64,
    loss_rng: Rng,
    /// Extra propagation delay, uniform in [0, jitter] per packet, order-preserving.
    jitter: Dur,
    jitter_rng: Rng,
    /// Arrival time of the last packet put in the pipe (jitter never reorders).
    last_arrival: Time,
    /// A jitter, a random loss or impairments are drawn for each packet (`draw`): an eager link
    /// draws them when a packet's start is known, out of the hot path (`draws`; a flag, so that
    /// path tests one byte).
    draws: bool,
    /// Outages or a rate/delay schedule (`Impair::timed`): an eager link with either starts a
    /// packet after the outages, at the rate and with the delay in force then
    /// (`arrive_timed`), and is never decided ahead (`Sim::fused_slots`).
    timed: bool,
    /// An eager link: the packets it loses on the wire whose serialization has not started
    /// yet, in start order (the engine discards each at its start: `Sim::discard_due`).
    lost: Ring<LostOnWire>,
    /// An eager link decided ahead: the packets its queue refused ahead of their arrival, with
    /// that arrival, in arrival order (the engine discards each then: `Sim::discard_due`).
    refused: Ring<(Time, PacketId)>,
    /// An eager link: the end of the serialization of the last packet it lost on the wire
    /// that the engine counted (`count_lost`): `completed` counts it only once that is past.
    last_lost_end: Time,
    /// Loss models, the jitter's distribution, outages, a rate/delay schedule (`net::impair`).
    impair: Option<Box<Impair>>,
    pub counters: LinkCounters,
    /// Counters at the start of the measurement window.
    pub at_warmup: LinkCounters,
    in_service: InService,
    /// The copy a duplicating link made of the packet it just returned as `Captured`.
    pub captured_copy: Option<PacketId>,
    /// Jitter may reorder its packets (`Impairments::reorder`).
    reorders: bool,
    /// Departures are known at arrival and the link applies its FIFO's limits itself (see the
    /// module docs; DropTail): set by the engine once the link's capture points are known
    /// (`may_know_departures`, `make_eager`).
    pub eager: bool,
    /// Departures are known at arrival and the discipline decides each arrival
    /// (`QueueDisc::DECIDES_AT_ARRIVAL`: PIE, PI, REM, AVQ), run through `Queue::arrive_deciding` and
    /// `Queue::depart_deciding` (module docs). Such a link is not `eager` (the hot path tests
    /// one flag for DropTail's) and is never decided ahead, as that rule requires `eager`. Set
    /// by `make_eager`.
    pub decides: bool,
    /// Departures are known at arrival up to the time the discipline is quiet until
    /// (`QueueDisc::quiet_until`: CoDel, the fairness-oriented CoDel), and past it the discipline holds the packets and
    /// decides at their dequeue, one `TxDone` each (module docs, "a discipline quiet until a
    /// time"). Such a link is neither `eager` nor `decides` and is never decided ahead; a router
    /// before it may take its arrivals late (`sim::late`), and its `TxDone` takes them first.
    /// Set by `make_eager`.
    pub quiet: bool,
    /// An event-driven link some of whose packets the next link takes at the start of their
    /// serialization (module docs, hops decided ahead): set by the engine.
    pub feeds_ahead: bool,
    /// The first link of a flow under TCP Small Queues (`tcp::tsq`): the engine reports the
    /// end of each such packet's serialization to its sender (`started`). Set by the engine.
    pub tsq_first: bool,
    /// Its far node is a router whose arrivals are taken late (`sim::late`): that router's
    /// index in the engine's list (`Sim::late`), or [`NOT_LATE`]; and this link's place among
    /// the pipes such routers take from (`Sim::late_feeders`). Its pipe then asks for no
    /// `Deliver`: the router's wake-up takes its packets. Set by the engine.
    pub late_to: (u32, u32),
    /// Its near node is such a router: the router's arrivals settle it (in their time order),
    /// never its own deliveries, which may come before arrivals the router has not taken yet.
    /// Set by the engine.
    pub late_from: bool,
    /// Eager links: the FIFO's limits (packets, bytes: `QueueDisc::fifo_limits`), applied by the
    /// link.
    limits: (u32, u64),
    /// Eager links: the accepted packets whose serialization has not been accounted for yet,
    /// with its start (non-decreasing), in queue order.
    starts: Ring<Start>,
    /// Hops decided ahead (module docs): arrivals not accounted yet, in time order.
    ahead: Ring<Ahead>,
    /// Of `starts`, the last ones: accepted arrivals of `ahead` (their dequeue waits for their
    /// enqueue).
    ahead_accepted: usize,
    /// The packets waiting at the time of the last arrival decided ahead: (start, bytes).
    view: Ring<(Time, u32)>,
    view_bytes: u64,
    /// Deliveries since `settle_some` last settled.
    unsettled: u32,
    /// Eager links: the serialization time of the packets that passed through since the last
    /// `settle_all` (their counts wait in the queue: `Queue::pass_fifo`).
    passed_busy_ns: u64,
    /// The serialization time last computed: (rate, size, time), so a run of packets of one
    /// size at one rate divides once (`tx_time`).
    tx_last: (Rate, u32, Dur),
    /// A wireless LAN's link (`net::wlan`): (medium, member). Its member sends its packets when
    /// the medium lets it, never its own transmitter (the engine keeps `tx_done_pending` set).
    pub wlan: Option<(u32, u32)>,
}

/// A packet in a link's pipe: when it arrives at the far node, which packet, its size (what a
/// router that takes its arrivals late ranks it by without reading the packet).
#[derive(Clone, Copy, Debug, Default)]
pub struct Piped {
    pub at: Time,
    pub id: PacketId,
    pub size: u32,
}

/// Deliveries from an eager link's pipe between two of its settles (`Link::settle_some`): about
/// as many records due each time.
const SETTLE_BATCH: u32 = 32;

/// `Link::late_to` of a link whose far node takes its arrivals as they come.
pub const NOT_LATE: u32 = u32::MAX;

/// An arrival decided ahead: when, the flow's slot on this link (`Sim::slots`), the packet's
/// size, whether it fits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ahead {
    at: Time,
    slot: u32,
    size: u32,
    accepted: bool,
    /// It finds the queue empty and the transmitter free: it passes through at `at`, with no
    /// start of its own in `starts`.
    passes: bool,
    /// Its serialization time.
    tx: Dur,
}

/// A packet an eager link loses on the wire (`Link::draw`): its serialization, `start` to `end`.
#[derive(Clone, Copy, Debug, Default)]
pub struct LostOnWire {
    pub start: Time,
    pub end: Time,
    pub id: PacketId,
}

/// A serialization an eager link has not accounted for yet: its start, when the packet was
/// queued, its size.
#[derive(Clone, Copy, Debug, Default)]
pub struct Start {
    at: Time,
    enq: Time,
    size: u32,
    /// Its serialization time.
    tx: Dur,
}

impl Link {
    /// A link built from its spec; `loss_rng`, `jitter_rng` and `impair_rng` are its own random
    /// streams (three arguments rather than one bundle: each is drawn for its own `StreamKind`
    /// by the caller, and a struct for them would be used here only).
    #[allow(clippy::too_many_arguments)]
    pub fn new(name: String, role: LinkRole, (from, to): (u32, u32), edge: &EdgeSpec, queue: Queue, loss_rng: Rng, jitter_rng: Rng, impair_rng: Rng) -> Link {
        let impair = (!edge.impair.is_none()).then(|| Box::new(Impair::of(&edge.impair, edge.rate, edge.delay, impair_rng)));
        Link {
            name,
            role,
            from,
            to,
            rate: edge.rate,
            delay: edge.delay,
            queue,
            busy_until: Time::ZERO,
            tx_done_pending: false,
            discard_at: Time::NEVER,
            capture_tx: 0,
            capture_rx: 0,
            pipe: Ring::default(),
            loss: edge.loss,
            loss_rng,
            jitter: edge.jitter,
            jitter_rng,
            last_arrival: Time::ZERO,
            draws: edge.jitter > Dur::ZERO || edge.loss > 0.0 || !edge.impair.is_none(),
            timed: impair.as_deref().is_some_and(Impair::timed),
            lost: Ring::default(),
            refused: Ring::default(),
            last_lost_end: Time::ZERO,
            impair,
            counters: LinkCounters::default(),
            at_warmup: LinkCounters::default(),
            in_service: InService::default(),
            captured_copy: None,
            reorders: edge.impair.reorder,
            eager: false,
            feeds_ahead: false,
            tsq_first: false,
            late_to: (NOT_LATE, 0),
            late_from: false,
            decides: false,
            quiet: false,
            limits: (u32::MAX, u64::MAX),
            starts: Ring::default(),
            ahead: Ring::default(),
            ahead_accepted: 0,
            view: Ring::default(),
            view_bytes: 0,
            passed_busy_ns: 0,
            unsettled: 0,
            tx_last: (Rate::from_bps(1), 0, Dur::ZERO),
            wlan: None,
        }
    }

    /// `rate.tx_time(size)`, remembered for the next packet of the same size at the same rate.
    #[inline(always)]
    fn tx_time(&mut self, size: u32) -> Dur {
        let (rate, last, tx) = self.tx_last;
        if size == last && rate == self.rate {
            return tx;
        }
        let tx = self.rate.tx_time(size);
        self.tx_last = (self.rate, size, tx);
        tx
    }

    /// `rate.tx_time(size)`, from the last one computed if it is of that size (`tx_time`).
    #[inline(always)]
    pub fn tx_time_of(&self, size: u32) -> Dur {
        let (rate, last, tx) = self.tx_last;
        if size == last && rate == self.rate {
            return tx;
        }
        self.rate.tx_time(size)
    }

    /// Whether this link can know each packet's departure at its arrival (module docs): its
    /// discipline is FIFO deciding at arrival, and nothing else decides at transmission.
    pub fn may_know_departures(&self) -> bool {
        let q = &self.queue.qdisc;
        let quiet = q.quiet_until(Time::ZERO).is_some() && !self.tsq_first;
        // a jitter, a random loss and a loss model are drawn when a packet's start is known
        // (`draw`): at its arrival on a FIFO's link or one whose discipline decides at arrival,
        // at its arrival or its release on one quiet until a time (the discipline's own draws
        // are from its own stream); outages and a schedule only on a FIFO's (`arrive_timed`)
        let decided = (q.decides_at_arrival() || quiet) && !self.timed;
        // (a packet lost on the first link of a flow under TCP Small Queues is reported at its
        // start, any other at its end: that link keeps its events)
        let impair = self.impair.as_deref();
        let lossy_tsq = self.tsq_first && (self.loss > 0.0 || impair.is_some());
        (q.fifo_at_arrival() || decided) && impair.is_none_or(|i| i.known_at_arrival()) && !lossy_tsq && self.capture_tx == 0 && self.wlan.is_none()
    }

    /// Whether the arrival at the far node of each packet this link sends is known when its
    /// serialization starts, in the order they start (no duplication, reordering, loss model,
    /// schedule or trace) and nothing watches its deliveries: a link after it may then be
    /// decided ahead (module docs). Random loss and order-preserving jitter are decided at the
    /// start too.
    pub fn may_feed_ahead(&self) -> bool {
        self.capture_rx == 0 && self.wlan.is_none() && (self.eager || self.decides || self.quiet || (self.impair.is_none() && !self.reorders && self.capture_tx == 0))
    }

    /// The packet at the head of the pipe, with its arrival at the far node and its size.
    #[inline(always)]
    pub fn pipe_front(&self) -> Option<Piped> {
        self.pipe.front()
    }

    /// The arrival at the far node of the packet at the head of the pipe.
    #[inline(always)]
    pub fn pipe_head(&self) -> Option<Time> {
        self.pipe.front_ref().map(|p| p.at)
    }

    /// A router taking its arrivals late takes the packet at the head of the pipe (at the time
    /// `pipe_head` gave).
    #[inline(always)]
    pub fn take_head(&mut self) -> PacketId {
        debug_assert!(self.late_to.0 != NOT_LATE && !self.reorders);
        self.pipe.pop_front().expect("a head to take").id
    }

    /// The packet last put in the pipe, with its arrival at the far node.
    #[inline]
    pub fn pipe_back(&self) -> Option<(Time, PacketId)> {
        self.pipe.back().map(|p| (p.at, p.id))
    }

    /// An event-driven link that feeds ahead: take back the packet `start_tx` just put in the
    /// pipe (the engine hands it to the next link).
    #[inline]
    pub fn pop_pipe_back(&mut self) {
        debug_assert!(self.feeds_ahead && !self.eager);
        self.pipe.pop_back();
    }

    /// Make this link eager (module docs): its queue's FIFO rule is applied by the link, which
    /// keeps the accounting itself.
    pub fn make_eager(&mut self) {
        debug_assert!(self.may_know_departures());
        self.limits = self.queue.qdisc.fifo_limits();
        if self.queue.qdisc.quiet_until(Time::ZERO).is_some() {
            self.quiet = true; // the discipline holds what is not known yet
            return;
        }
        self.decides = self.queue.qdisc.decides_at_arrival();
        self.eager = !self.decides;
        self.queue.bypass();
    }

    /// Eager links: a packet of `size` bytes arrives at `now` (every start due by `now` settled
    /// first). `None` if it does not fit; else when its serialization ends: it starts when the
    /// transmitter is free, at once if it is free now (then the queue is empty and the packet
    /// passes through it in no time: `Queue::pass_fifo`), or later, kept in `starts` for
    /// `settle` to account.
    #[inline(always)]
    pub fn arrive_eager(&mut self, now: Time, size: u32) -> Option<Time> {
        debug_assert!(self.eager && self.ahead.is_empty());
        let (limit_pkts, limit_bytes) = self.limits;
        if now >= self.busy_until && limit_pkts > 0 && size as u64 <= limit_bytes {
            debug_assert!(self.starts.is_empty());
            let tx = self.tx_time(size);
            self.pass(now, size, tx);
            self.busy_until = now.plus(tx);
            return Some(self.busy_until);
        }
        if !self.queue.arrive_fifo(now, size, limit_pkts, limit_bytes) {
            return None;
        }
        // it fits: the queue is not empty, or the transmitter would be free (the case above)
        let start = self.busy_until;
        debug_assert!(start > now);
        let tx = self.tx_time(size);
        let end = start.plus(tx);
        self.busy_until = end;
        self.starts.push_back(Start { at: start, enq: now, size, tx });
        Some(end)
    }

    /// `arrive_eager` on an eager link with outages or a schedule (`timed`): the packet starts
    /// at the first time the transmitter is free outside every outage (`Impair::start_after`),
    /// serialized at the rate in force then (`Impair::in_force_at`), as `start_tx_impaired`
    /// holds a packet to an outage's end and applies the steps due at each start. The delay in
    /// force is applied by `draw` (`timed_arrival`). Out of line: the links without either pay
    /// one test (`Sim::forward_drawn`).
    #[cold]
    #[inline(never)]
    pub fn arrive_timed(&mut self, now: Time, size: u32) -> Option<Time> {
        debug_assert!(self.eager && self.timed && self.ahead.is_empty());
        let imp = self.impair.as_deref_mut().expect("timed: impaired");
        let start = imp.start_after(now.max(self.busy_until));
        let (limit_pkts, limit_bytes) = self.limits;
        let passes = start == now && limit_pkts > 0 && size as u64 <= limit_bytes;
        if !passes && !self.queue.arrive_fifo(now, size, limit_pkts, limit_bytes) {
            if start == now {
                // refused by an idle link outside an outage (larger than its byte limit): the
                // event-driven link's `start_tx` ran for it and applied the steps due now
                self.impair.as_deref_mut().expect("timed: impaired").in_force_at(now);
            }
            return None;
        }
        // accepted: its start applies the steps due (a packet refused starts nothing)
        let imp = self.impair.as_deref_mut().expect("timed: impaired");
        let tx = imp.in_force_at(start).0.tx_time(size);
        let end = start.plus(tx);
        self.busy_until = end;
        if passes {
            debug_assert!(self.starts.is_empty());
            self.pass(now, size, tx);
        } else {
            debug_assert!(start > now);
            self.starts.push_back(Start { at: start, enq: now, size, tx });
        }
        Some(end)
    }

    /// Whether the link has outages or a rate/delay schedule (`timed`).
    #[inline(always)]
    pub fn timed(&self) -> bool {
        self.timed
    }

    /// Whether the link has a schedule of rate or delay changes: its `rate` and `delay` are
    /// not those of every packet in its pipe.
    pub fn steps(&self) -> bool {
        self.impair.as_deref().is_some_and(|i| i.steps())
    }

    /// Eager links whose discipline decides (`decides`): packet `id` of `size` bytes arrives at
    /// `now` (every start due by `now` settled first) and the discipline decides whether it is
    /// queued (`Queue::arrive_deciding`: it may mark it). `None` if not; else when its
    /// serialization ends: it starts when the transmitter is free, at once if it is free now
    /// (then the queue is empty: it leaves at its arrival, accounted now), or later, kept in
    /// `starts` for `settle`.
    #[inline]
    pub fn arrive_deciding(&mut self, now: Time, id: PacketId, size: u32, arena: &mut PacketArena, dropped: &mut Vec<PacketId>) -> Option<Time> {
        debug_assert!(self.decides && self.ahead.is_empty());
        if !self.queue.arrive_deciding(now, id, size, arena, dropped) {
            return None;
        }
        let start = now.max(self.busy_until);
        let tx = self.tx_time(size);
        let end = start.plus(tx);
        self.busy_until = end;
        let s = Start { at: start, enq: now, size, tx };
        if start == now {
            debug_assert!(self.starts.is_empty());
            self.depart_deciding(s);
        } else {
            self.starts.push_back(s);
        }
        Some(end)
    }

    /// A link whose discipline is quiet until a time (`quiet`): packet `id` of `size` bytes
    /// arrives at `now` (every start due by `now` settled first, every dequeue the discipline
    /// decided before `now` done). If the discipline holds packets, or the packet would start
    /// after the time the discipline is quiet until, the discipline holds it too
    /// ([`Quiet::Held`]: dequeued at its time, from a `TxDone`); else its start is known
    /// ([`Quiet::Known`] with the end of its serialization), kept in `starts` for `settle` to
    /// tell the discipline, or accounted now if the transmitter is free.
    #[inline]
    pub fn arrive_quiet(&mut self, now: Time, id: PacketId, size: u32, arena: &mut PacketArena, dropped: &mut Vec<PacketId>) -> Quiet {
        debug_assert!(self.quiet && self.starts.front().is_none_or(|s| s.at > now));
        let start = now.max(self.busy_until);
        let held = self.held() > 0 || self.queue.qdisc.quiet_until(now).is_none_or(|q| start > q);
        if !self.queue.arrive_quiet(now, id, size, self.limits, held, arena, dropped) {
            return Quiet::Dropped;
        }
        if held {
            return Quiet::Held;
        }
        let tx = self.tx_time(size);
        let end = start.plus(tx);
        self.busy_until = end;
        let s = Start { at: start, enq: now, size, tx };
        if start == now {
            self.depart_deciding(s);
        } else {
            self.starts.push_back(s);
        }
        Quiet::Known(end)
    }

    /// A link whose discipline is quiet until a time, having just dequeued a held packet (its
    /// `TxDone`): the discipline's next held packet, if it would start no later than the time
    /// the discipline is now quiet until, leaves it without a decision; its start is known
    /// (kept in `starts` for `settle`). Returns it with the end of its serialization.
    pub fn release(&mut self, now: Time, arena: &mut PacketArena, dropped: &mut Vec<PacketId>) -> Option<(PacketId, Time, u32)> {
        debug_assert!(self.quiet);
        let start = self.busy_until;
        if self.held() == 0 || self.queue.qdisc.quiet_until(now).is_none_or(|q| start > q) {
            return None;
        }
        let id = self.queue.take_head(now, arena, dropped).expect("a held packet");
        let p = arena.get(id);
        let (size, enq) = (p.size_bytes, p.enq_time);
        let tx = self.tx_time(size);
        let end = start.plus(tx);
        self.busy_until = end;
        self.starts.push_back(Start { at: start, enq, size, tx });
        Some((id, end, size))
    }

    /// Packets the discipline holds (a link whose discipline is quiet until a time: those whose
    /// departures are not known yet): the queue's backlog less those (no call into the
    /// discipline).
    #[inline]
    pub fn held(&self) -> u32 {
        self.queue.len_pkts() - self.queue.told_pkts()
    }

    /// Put a packet that arrives at the far node at `arrival` in the pipe (FIFO: no earlier
    /// than the last); `Some(arrival)` if the pipe was empty (schedule a `Deliver`).
    #[inline]
    pub fn into_pipe(&mut self, arrival: Time, id: PacketId, size: u32) -> Option<Time> {
        debug_assert!(self.pipe.back().is_none_or(|p| p.at <= arrival));
        let first = self.pipe.is_empty().then_some(arrival);
        self.pipe.push_back(Piped { at: arrival, id, size });
        first
    }

    /// Hops decided ahead (module docs): a packet of `size` bytes will arrive at `at` (no
    /// earlier than the last arrival handed to this link), counted in slot `slot`. Returns its
    /// arrival at the far node, or `None` if it will find the queue full (the caller frees it).
    /// A packet that will find the transmitter free passes through at its arrival: one record,
    /// no start of its own.
    #[inline]
    pub fn arrive_ahead(&mut self, at: Time, size: u32, slot: u32) -> Option<Time> {
        debug_assert!(self.eager && !self.timed && self.ahead.back().is_none_or(|a| a.at <= at));
        let (limit_pkts, limit_bytes) = self.limits;
        if at >= self.busy_until && limit_pkts > 0 && size as u64 <= limit_bytes {
            // every packet before it starts before `at`: none waits then
            self.view.clear();
            self.view_bytes = 0;
            let tx = self.tx_time(size);
            self.ahead.push_back(Ahead { at, slot, size, accepted: true, passes: true, tx });
            let end = at.plus(tx);
            self.busy_until = end;
            return Some(end.plus(self.delay));
        }
        while let Some((start, bytes)) = self.view.front() {
            if start > at {
                break;
            }
            self.view.pop_front();
            self.view_bytes -= bytes as u64;
        }
        let accepted = (self.view.len() as u64) < limit_pkts as u64 && self.view_bytes + size as u64 <= limit_bytes;
        let tx = self.tx_time(size);
        self.ahead.push_back(Ahead { at, slot, size, accepted, passes: false, tx });
        if !accepted {
            return None;
        }
        self.ahead_accepted += 1;
        let start = at.max(self.busy_until);
        let end = start.plus(tx);
        self.busy_until = end;
        self.starts.push_back(Start { at: start, enq: at, size, tx });
        if start > at {
            self.view.push_back((start, size));
            self.view_bytes += size as u64;
        }
        Some(end.plus(self.delay))
    }

    /// Eager links: account for every serialization that starts at or before `t`, in order
    /// (the dequeue, its sojourn, the transmitter's counters), as `start_tx` would have at that
    /// time; and for the arrivals decided ahead that are due by `t`, in time order with the
    /// starts (a start at the instant of an arrival first, unless it is that packet's own),
    /// counted against their flows in their slots (`Slot::counts`). Reads nothing of the packets (they may be gone).
    #[inline(always)]
    pub fn settle(&mut self, t: Time, slots: &mut [Slot]) {
        if self.decides || self.quiet {
            self.settle_deciding(t);
        } else {
            self.settle_fifo(t, slots);
        }
    }

    /// `settle` on an eager link whose discipline does not decide (`decides` is false: a FIFO
    /// that applies its limits, DropTail).
    #[inline(always)]
    pub fn settle_fifo(&mut self, t: Time, slots: &mut [Slot]) {
        debug_assert!(!self.decides);
        if !self.ahead.is_empty() {
            self.settle_merged(t, slots);
        } else if !self.starts.is_empty() {
            // no arrival decided ahead waits (a link fed at event time): starts only
            self.settle_starts(t);
        }
    }

    /// `settle`, once enough accounting waits to be worth a pass: what a delivery from the
    /// pipe of a link nothing reads between its events does (a link fed ahead, or one fed at
    /// its events, whose arrivals settle it themselves), only to keep its rings short. Exact,
    /// as `settle` applies what is due in time order whenever it runs; a pass over many
    /// records costs less than one a delivery.
    #[inline(always)]
    pub fn settle_some(&mut self, t: Time, slots: &mut [Slot]) {
        self.unsettled += 1;
        if self.unsettled >= SETTLE_BATCH {
            self.unsettled = 0;
            self.settle_fifo(t, slots);
        }
    }

    /// `settle` with arrivals decided ahead waiting: starts and arrivals in time order.
    #[inline(never)]
    fn settle_merged(&mut self, t: Time, slots: &mut [Slot]) {
        debug_assert!(t < Time::NEVER);
        while let Some(a) = self.ahead.pop_front_if(|a| a.at <= t) {
            // the starts of queued packets due by this arrival go first (a start first at a
            // tie); a start is a queued packet's unless it is among the accepted arrivals
            // still waiting
            while self.starts.len() > self.ahead_accepted {
                match self.starts.pop_front_if(|s| s.at <= a.at) {
                    Some(s) => self.depart(s),
                    None => break,
                }
            }
            let c = &mut slots[a.slot as usize].counts;
            c.arrivals += 1;
            if a.passes {
                self.pass(a.at, a.size, a.tx);
                continue;
            }
            let (limit_pkts, limit_bytes) = self.limits;
            let fits = self.queue.arrive_fifo(a.at, a.size, limit_pkts, limit_bytes);
            debug_assert_eq!(fits, a.accepted, "a link decided ahead otherwise than its queue");
            c.drops += !fits as u64;
            self.ahead_accepted -= fits as usize;
        }
        if self.ahead.is_empty() {
            self.settle_starts(t);
        } else {
            // an arrival not due yet: the starts of the packets queued before it
            while self.starts.len() > self.ahead_accepted {
                match self.starts.pop_front_if(|s| s.at <= t) {
                    Some(s) => self.depart(s),
                    None => break,
                }
            }
        }
    }

    /// `settle` on a link whose discipline decides at arrival (`decides`) or is quiet until a
    /// time (`quiet`; neither is decided ahead, so nothing waits in `ahead`): each known start
    /// due by `t`, in order, told to the discipline.
    #[inline(never)]
    fn settle_deciding(&mut self, t: Time) {
        debug_assert!(self.ahead.is_empty());
        while let Some(s) = self.starts.pop_front_if(|s| s.at <= t) {
            self.depart_deciding(s);
        }
    }

    /// Links whose discipline decides at arrival or is quiet until a time: account for
    /// serialization `s` starting, as `depart` does, and tell the discipline
    /// (`Queue::depart_deciding`).
    #[inline]
    fn depart_deciding(&mut self, s: Start) {
        self.queue.depart_deciding(s.at, s.size, s.enq);
        self.transmit_from_fifo(s.at, s.size, s.tx);
    }

    /// `settle` on a link with no arrival decided ahead waiting: the starts due by `t`.
    #[inline(always)]
    fn settle_starts(&mut self, t: Time) {
        debug_assert!(self.ahead.is_empty());
        while let Some(s) = self.starts.pop_front_if(|s| s.at <= t) {
            self.depart(s);
        }
    }

    /// Eager links: account for serialization `s` starting (the dequeue, the transmitter).
    #[inline(always)]
    fn depart(&mut self, s: Start) {
        self.queue.depart_fifo(s.at, s.size, s.enq);
        self.transmit_from_fifo(s.at, s.size, s.tx);
    }

    /// Eager links: a packet of `size` bytes passes through the empty queue at `at`, its
    /// serialization `tx` long (its counts summed until `settle_all`).
    #[inline(always)]
    fn pass(&mut self, at: Time, size: u32, tx: Dur) {
        self.queue.pass_fifo(size);
        self.passed_busy_ns += tx.ns();
        // (a packet whose start is known is counted lost apart, `count_lost`, and not known by
        // id: `lost` stays false and `id` is the last `start_tx`'s, a quiet link's held packet,
        // or the default; only TCP Small Queues reads `id`, whose first links are never quiet,
        // and `lost_at_start` clears `lost`)
        (self.in_service.end, self.in_service.bytes) = (at.plus(tx), size);
    }

    /// Eager links: `settle` up to `t`, and count the packets that passed through (`pass`):
    /// what the engine calls before anything reads the link's or its queue's counters and
    /// statistics (a sample, the start of the measurement window, the end of a run).
    pub fn settle_all(&mut self, t: Time, slots: &mut [Slot]) {
        self.settle(t, slots);
        if self.timed && self.eager {
            // the rate and delay an event-driven link has applied by `t` (they are read
            // for the run's tables; the link's packets took theirs at arrival)
            let (rate, delay) = self.impair.as_deref_mut().expect("timed: impaired").applied_by(t);
            self.rate = rate.unwrap_or(self.rate);
            self.delay = delay.unwrap_or(self.delay);
        }
        let (n, bytes) = self.queue.fold_passes();
        self.counters.tx_pkts += n;
        self.counters.tx_bytes += bytes;
        self.counters.busy_ns += std::mem::take(&mut self.passed_busy_ns);
    }

    /// Eager links: the transmitter's counters for a packet of `size` bytes whose serialization
    /// (`tx` long) starts at `at`.
    #[inline(always)]
    fn transmit_from_fifo(&mut self, at: Time, size: u32, tx: Dur) {
        self.counters.tx_pkts += 1;
        self.counters.tx_bytes += size as u64;
        self.counters.busy_ns += tx.ns();
        // (a packet whose start is known is counted lost apart, `count_lost`, and not known by
        // id: `lost` stays false and `id` is the last `start_tx`'s, a quiet link's held packet,
        // or the default; only TCP Small Queues reads `id`, whose first links are never quiet,
        // and `lost_at_start` clears `lost`)
        (self.in_service.end, self.in_service.bytes) = (at.plus(tx), size);
    }

    /// The packet whose serialization an event-driven link started last, and when it ends.
    #[inline]
    pub fn started(&self) -> (PacketId, Time) {
        (self.in_service.id, self.in_service.end)
    }

    /// Time the transmitter becomes free.
    #[inline]
    pub fn busy_until(&self) -> Time {
        self.busy_until
    }

    /// An eager link: how long its transmitter can stay busy after an arrival with its buffer
    /// full of packets of `full` bytes.
    pub fn longest_backlog(&self, full: u32) -> Dur {
        debug_assert!(self.eager || self.decides || self.quiet);
        let (pkts, bytes) = self.limits;
        let n = (pkts as u64).min(bytes / full as u64);
        Dur::from_ns(self.rate.tx_time(full).ns().saturating_mul(n))
    }

    /// The transmitter is free at `now`: take the next packet from the queue and serialize it.
    /// Returns the packet if it was lost on the wire (the caller frees it) and, if the pipe was
    /// empty, the arrival time for a `Deliver` event.
    #[inline]
    pub fn start_tx(
        &mut self,
        now: Time,
        arena: &mut PacketArena,
        dropped: &mut Vec<PacketId>,
    ) -> TxStart {
        debug_assert!(now >= self.busy_until);
        if self.impair.is_some() {
            return self.start_tx_impaired(now, arena, dropped);
        }
        let Some(id) = self.queue.dequeue(now, arena, dropped) else { return TxStart::Idle };
        let size = arena.get(id).size_bytes;
        let tx = self.tx_time(size);
        let end = now.plus(tx);
        self.busy_until = end;
        self.counters.tx_pkts += 1;
        self.counters.tx_bytes += size as u64;
        self.counters.busy_ns += tx.ns();
        let lost = self.loss > 0.0 && self.loss_rng.chance(self.loss);
        self.in_service = InService { end, bytes: size, lost, id };
        if lost {
            self.counters.lost_random += 1;
            if self.capture_tx != 0 {
                return TxStart::Captured { id, first_in_pipe: None, lost: true };
            }
            return TxStart::Lost(id);
        }
        let arrival = self.far_arrival(end);
        let was_empty = self.pipe.is_empty();
        self.pipe.push_back(Piped { at: arrival, id, size });
        if self.capture_tx != 0 {
            return TxStart::Captured { id, first_in_pipe: was_empty.then_some(arrival), lost: false };
        }
        TxStart::Sent { first_in_pipe: was_empty.then_some(arrival) }
    }

    /// Whether the link draws a jitter, a random loss or impairments for each packet (an eager
    /// link with any takes its packets through `draw`, out of the hot path).
    #[inline(always)]
    pub fn draws(&self) -> bool {
        self.draws
    }

    /// An eager link (`draws`): packet `id` of `size` bytes, whose serialization ends at `end`,
    /// is lost on the wire (`Err`, with its serialization) or arrives at the far node at the
    /// time `far_arrival` gives (`Ok`). Called once a packet in the order the packets start, as
    /// `start_tx` draws the loss and then, for a packet not lost, the jitter: each packet draws
    /// the same values either way.
    #[cold]
    #[inline(never)]
    pub fn draw(&mut self, end: Time, id: PacketId, size: u32) -> Result<Time, LostOnWire> {
        if self.wire_loses(size) {
            // (a timed link's packet took the rate in force at its start, `arrive_timed`)
            let tx = match self.timed {
                true => self.impair.as_deref().expect("timed: impaired").ahead.0.tx_time(size),
                false => self.tx_time(size),
            };
            return Err(LostOnWire { start: Time::from_ns(end.ns() - tx.ns()), end, id });
        }
        if self.timed {
            return Ok(self.timed_arrival(end));
        }
        Ok(self.far_arrival(end))
    }

    /// An eager link with outages or a schedule: the arrival at the far node of the packet
    /// whose serialization (its start's, `arrive_timed`) ends at `end`, with the delay in
    /// force at its start and the jitter drawn, never before the last packet's (a delay that
    /// drops makes the next packets wait), as `put_in_pipe` puts it.
    fn timed_arrival(&mut self, end: Time) -> Time {
        let delay = self.impair.as_deref().expect("timed: impaired").ahead.1;
        self.in_order(end, delay)
    }

    /// An eager link: keep packet `lost` (lost on the wire, starting after now) until its
    /// start.
    #[inline]
    pub fn keep_lost(&mut self, lost: LostOnWire) {
        debug_assert!(self.lost.back().is_none_or(|l| l.start <= lost.start));
        self.lost.push_back(lost);
    }

    /// An eager link decided ahead: keep packet `id`, which its queue refused, until its
    /// arrival `at` (after now).
    #[inline]
    pub fn keep_refused(&mut self, at: Time, id: PacketId) {
        debug_assert!(self.refused.back().is_none_or(|r| r.0 <= at));
        self.refused.push_back((at, id));
    }

    /// An eager link: the next packet kept lost whose serialization starts by `t`.
    #[inline]
    pub fn lost_by(&mut self, t: Time) -> Option<LostOnWire> {
        self.lost.pop_front_if(|l| l.start <= t)
    }

    /// An eager link: the next packet kept refused that arrives by `t`.
    #[inline]
    pub fn refused_by(&mut self, t: Time) -> Option<PacketId> {
        self.refused.pop_front_if(|r| r.0 <= t).map(|r| r.1)
    }

    /// An eager link: when the first packet kept to discard (`keep_lost`, `keep_refused`) is
    /// due, if any.
    #[inline]
    pub fn next_discard(&self) -> Option<Time> {
        let t = self.lost.front_ref().map_or(Time::NEVER, |l| l.start).min(self.refused.front_ref().map_or(Time::NEVER, |r| r.0));
        (t != Time::NEVER).then_some(t)
    }

    /// A link whose discipline is quiet until a time: the packet its `start_tx` just sent (a held
    /// one, at its `TxDone`) was lost on the wire, and counted there. Its serialization is
    /// taken back from the counters while it lasts as an eager link's lost packet is
    /// (`last_lost_end`), not as the one in service: the next known start replaces that
    /// (`transmit_from_fifo`, which leaves `lost` as it is).
    pub fn lost_at_start(&mut self) {
        debug_assert!(self.quiet && self.in_service.lost);
        self.in_service.lost = false;
        self.last_lost_end = self.in_service.end;
    }

    /// An eager link: count a packet lost on the wire at its start, as `start_tx` does (its
    /// serialization the transmitter's counters took when the link settled it).
    #[inline]
    pub fn count_lost(&mut self, lost: LostOnWire) {
        self.counters.lost_random += 1;
        self.last_lost_end = lost.end;
    }

    /// The arrival at the far node of a packet whose serialization ends at `end`: after the
    /// link's delay and, with a jitter, an extra delay drawn from its distribution (uniformly in
    /// [0, jitter] unless the link's impairments name another) that never lets it arrive before
    /// the packet sent before it. Called once a packet in the order the packets start
    /// (`start_tx` at each start; an eager link, a FIFO, at each accepted arrival), so each
    /// packet draws the same jitter either way.
    #[inline(always)]
    pub fn far_arrival(&mut self, end: Time) -> Time {
        if self.jitter == Dur::ZERO {
            return end.plus(self.delay);
        }
        self.jittered(end)
    }

    /// The arrival at the far node of a packet whose serialization ends at `end`, with a jitter
    /// drawn, never before the last packet's arrival (`far_arrival`; `in_order`).
    #[cold]
    #[inline(never)]
    fn jittered(&mut self, end: Time) -> Time {
        self.in_order(end, self.delay)
    }

    /// `delayed`, never before the last packet's arrival (the order kept), and kept as the
    /// last: `jittered`, `timed_arrival` and `put_in_pipe` without reordering.
    fn in_order(&mut self, end: Time, delay: Dur) -> Time {
        let arrival = self.delayed(end, delay).max(self.last_arrival);
        self.last_arrival = arrival;
        arrival
    }

    /// `end` plus `delay` and, with a jitter, one drawn from the link's distribution (uniform
    /// unless its impairments name another), never before `end` for a distribution centred
    /// below zero.
    fn delayed(&mut self, end: Time, delay: Dur) -> Time {
        if self.jitter == Dur::ZERO {
            return end + delay;
        }
        let dist = self.impair.as_deref().map_or(JitterDist::Uniform, |i| i.jitter_dist);
        let x = Impair::jitter(dist, self.jitter, &mut self.jitter_rng);
        let arrival = end + delay;
        if x >= 0 {
            arrival + Dur::from_ns(x as u64)
        } else {
            Time::from_ns(arrival.ns().saturating_sub(x.unsigned_abs()).max(end.ns()))
        }
    }

    /// `start_tx` on a link with impairments (`net::impair`): outages, schedules, a trace's
    /// opportunities, loss models, the jitter's distribution, reordering, duplication.
    #[cold]
    #[inline(never)]
    fn start_tx_impaired(&mut self, now: Time, arena: &mut PacketArena, dropped: &mut Vec<PacketId>) -> TxStart {
        if self.impaired_start(now) {
            return TxStart::Held;
        }
        let Some(id) = self.dequeue_cold(now, arena, dropped) else { return TxStart::Idle };
        let size = arena.get(id).size_bytes;
        let imp = self.impair.as_deref_mut().expect("impaired");
        // a trace that does not repeat and is over carries nothing more: its packets are lost
        let (end, over, busy) = match imp.trace.as_mut() {
            None => {
                let tx = self.rate.tx_time(size);
                (now + tx, false, tx)
            }
            // busy: the packet's share of the trace's mean capacity (utilization = bytes carried
            // over the bytes its opportunities offer)
            Some(trace) => match trace.carry(now, size) {
                Time::NEVER => (now, true, Dur::ZERO),
                t => (t, false, trace.mean_rate().tx_time(size + crate::net::impair::TRACE_HEADER_BYTES)),
            },
        };
        self.busy_until = end;
        self.counters.tx_pkts += 1;
        self.counters.tx_bytes += size as u64;
        self.counters.busy_ns += busy.ns();
        imp.rewrite(arena.get_mut(id));
        let mut copy = imp.copy();
        let mut lost = self.wire_loses(size);
        if copy && lost {
            (copy, lost) = (false, false); // netem: count = 1 + copy - loss, one goes through
        }
        lost |= over;
        self.in_service = InService { end, bytes: size, lost, id };
        if let Some(t) = imp_trace(&mut self.impair) {
            t.in_service = (now, busy);
        }
        if lost {
            self.counters.lost_random += 1;
            if self.capture_tx != 0 {
                return TxStart::Captured { id, first_in_pipe: None, lost: true };
            }
            return TxStart::Lost(id);
        }
        let mut first_in_pipe = self.put_in_pipe(end, id, size);
        let mut copied = None;
        if copy && !self.wire_loses(size) {
            let c = arena.duplicate(id);
            if let Some(t) = self.put_in_pipe(end, c, size) {
                first_in_pipe = Some(t);
            }
            copied = Some(c);
        }
        if self.capture_tx != 0 {
            self.captured_copy = copied;
            return TxStart::Captured { id, first_in_pipe, lost: false };
        }
        match copied {
            None => TxStart::Sent { first_in_pipe },
            Some(copy) => TxStart::Copied { first_in_pipe, copy },
        }
    }

    /// The queue's dequeue, called from the impaired path (kept out of line, so the hot path's
    /// call stays inlined).
    #[inline(never)]
    fn dequeue_cold(&mut self, now: Time, arena: &mut PacketArena, dropped: &mut Vec<PacketId>) -> Option<PacketId> {
        self.queue.dequeue(now, arena, dropped)
    }

    /// Put a packet whose serialization ends at `end` in the pipe of an impaired link, with its
    /// delay and jitter; the time to schedule a `Deliver` at if it is now the pipe's head (none
    /// already is).
    fn put_in_pipe(&mut self, end: Time, id: PacketId, size: u32) -> Option<Time> {
        let reorder = self.impair.as_ref().is_some_and(|i| i.reorder);
        let arrival = if reorder { self.delayed(end, self.delay) } else { self.in_order(end, self.delay) };
        let head = self.pipe.front().map(|p| p.at);
        if reorder {
            // after every packet due no later (FIFO among equal times)
            let at = (0..self.pipe.len()).rev().find(|&k| self.pipe.get(k).is_some_and(|p| p.at <= arrival)).map_or(0, |k| k + 1);
            self.pipe.insert(at, Piped { at: arrival, id, size });
            return (head.is_none_or(|h| arrival < h)).then_some(arrival);
        }
        self.pipe.push_back(Piped { at: arrival, id, size });
        head.is_none().then_some(arrival)
    }

    /// A loss draw of an impaired link for a packet of `size` bytes: Bernoulli `loss`, then the
    /// loss model (the copy of a duplicated packet takes its own, as netem re-enqueues it).
    fn wire_loses(&mut self, size: u32) -> bool {
        (self.loss > 0.0 && self.loss_rng.chance(self.loss)) || self.impair.as_deref_mut().is_some_and(|i| i.lose(size))
    }

    /// An outage or a schedule step at `now`: whether the link is down (then nothing leaves
    /// before `busy_until`), after applying the rate and delay in force.
    #[cold]
    #[inline(never)]
    fn impaired_start(&mut self, now: Time) -> bool {
        let imp = self.impair.as_deref_mut().expect("impaired");
        if let Some(until) = imp.down_until(now) {
            self.busy_until = until;
            return true;
        }
        let (rate, delay) = imp.due(now);
        self.rate = rate.unwrap_or(self.rate);
        self.delay = delay.unwrap_or(self.delay);
        if let Some(trace) = imp.trace.as_mut() {
            if self.queue.len_pkts() == 0 {
                return false; // nothing to carry: Idle
            }
            if let Some(t) = trace.wait(now, now > self.busy_until) {
                self.busy_until = t;
                return true;
            }
        }
        false
    }

    /// The highest rate and lowest delay this link ever has (a lower bound on any transfer
    /// over it: the ideal FCT's).
    /// netem's Pareto jitters are centred: a packet may arrive up to 1.5 jitters before the
    /// delay, so the bound takes the least jitter off (never below 0).
    pub fn best_rate_delay(&self) -> (Rate, Dur) {
        let (rate, delay) = self.impair.as_ref().map_or((self.rate, self.delay), |i| i.best());
        let least = self.impair.as_ref().map_or(0, |i| Impair::least_jitter(i.jitter_dist, self.jitter));
        (rate, Dur::from_ns(delay.ns().saturating_sub(least.unsigned_abs())))
    }

    /// Its capacity comes from a trace of delivery opportunities (its utilization is then of
    /// the trace's mean capacity, and a window where the trace offers more than its mean can
    /// show more than 1).
    pub fn trace_driven(&self) -> bool {
        self.impair.as_ref().is_some_and(|i| i.trace.is_some())
    }

    /// Packets waiting in the queue.
    #[inline]
    pub fn backlog(&self) -> u32 {
        self.queue.len_pkts()
    }

    /// Pop the packet arriving at `now`; returns it and the next arrival time, if any. `None`:
    /// no packet arrives now (with reordering, a packet that overtook the head got its own
    /// `Deliver`, and the head's earlier one finds nothing due).
    #[inline]
    pub fn deliver(&mut self, now: Time) -> Option<(PacketId, Option<Time>)> {
        if self.reorders {
            return self.deliver_reordered(now);
        }
        let p = self.pipe.pop_front().expect("Deliver with an empty pipe");
        debug_assert_eq!(p.at, now);
        Some((p.id, self.pipe.front().map(|p| p.at)))
    }

    #[cold]
    #[inline(never)]
    fn deliver_reordered(&mut self, now: Time) -> Option<(PacketId, Option<Time>)> {
        match self.pipe.front() {
            Some(p) if p.at == now => {
                self.pipe.pop_front();
                Some((p.id, self.pipe.front().map(|p| p.at)))
            }
            _ => None,
        }
    }

    /// The counters as of `now`, counting the packet in service only once it completes and only
    /// the part of its serialization time before `now`.
    pub fn completed(&self, now: Time) -> LinkCounters {
        let mut c = self.counters;
        let s = &self.in_service;
        if s.end > now {
            c.tx_pkts -= 1;
            c.tx_bytes -= s.bytes as u64;
            c.lost_random -= s.lost as u64;
            c.busy_ns -= match self.impair.as_ref().and_then(|i| i.trace.as_ref()) {
                None => s.end.since(now).ns(),
                // a trace-driven link counts a share of the busy time it counted for the packet
                Some(t) => (t.in_service.1.ns() as u128 * s.end.since(now).ns() as u128 / s.end.since(t.in_service.0).ns() as u128) as u64,
            };
        }
        if self.last_lost_end > now {
            c.lost_random -= 1; // an eager link's (`count_lost`), still being serialized
        }
        c
    }

    /// Start the measurement window.
    pub fn start_measurement(&mut self, now: Time) {
        self.at_warmup = self.completed(now);
        self.queue.start_measurement(now);
    }

    /// Counters over the measurement window ending at `now`.
    pub fn measured(&self, now: Time) -> LinkCounters {
        self.completed(now).minus(&self.at_warmup)
    }
}

/// A link's trace, if it is trace-driven.
fn imp_trace(impair: &mut Option<Box<Impair>>) -> Option<&mut crate::net::impair::TraceState> {
    impair.as_deref_mut().and_then(|i| i.trace.as_mut())
}
