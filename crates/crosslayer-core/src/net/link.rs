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

use crate::aqm::Queue;
use crate::net::impair::{Impair, JitterDist};
use crate::packet::{PacketArena, PacketId};
use crate::metrics::Counters;
use crate::rng::Rng;
use crate::spec::EdgeSpec;
use crate::units::{Dur, Rate, Time};
use std::collections::VecDeque;

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

/// The packet being serialized: when it ends, its size, whether the wire loses it.
#[derive(Clone, Copy, Debug, Default)]
struct InService {
    end: Time,
    bytes: u32,
    lost: bool,
}

/// Outcome of `Link::start_tx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxStart {
    /// Nothing to send.
    Idle,
    /// Serializing; `Some(t)`: the pipe was empty, schedule `Deliver` at `t`.
    Sent { first_in_pipe: Option<Time> },
    /// Serializing a packet that the random-loss process will corrupt: never arrives.
    Lost(PacketId),
    /// Serializing packet `id` on a link whose packets are captured (`capture_tx`): as `Sent`,
    /// or as `Lost` when `lost`.
    Captured { id: PacketId, first_in_pipe: Option<Time>, lost: bool },
    /// The link is down (an outage): nothing leaves before `busy_until`.
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
        }
    }

    /// The role a name gives (`forward`, ..., `host_down`).
    pub fn from_name(name: &str) -> Option<LinkRole> {
        use LinkRole::*;
        [Forward, Reverse, SenderUp, SenderDown, ReceiverUp, ReceiverDown, Router, HostUp, HostDown].into_iter().find(|r| r.name() == name)
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
    /// Capture file (1-based; 0: none) of the packets it starts sending, and of those it
    /// delivers (`spec::PcapSpec`).
    pub capture_tx: u16,
    pub capture_rx: u16,
    /// Packets propagating, with their arrival times (non-decreasing).
    pipe: VecDeque<(Time, PacketId)>,
    loss: f64,
    loss_rng: Rng,
    /// Extra propagation delay, uniform in [0, jitter] per packet, order-preserving.
    jitter: Dur,
    jitter_rng: Rng,
    /// Arrival time of the last packet put in the pipe (jitter never reorders).
    last_arrival: Time,
    /// Loss models, the jitter's distribution, outages, a rate/delay schedule (`net::impair`).
    impair: Option<Box<Impair>>,
    pub counters: LinkCounters,
    /// Counters at the start of the measurement window.
    pub at_warmup: LinkCounters,
    in_service: InService,
}

impl Link {
    /// A link built from its spec; `loss_rng` and `jitter_rng` are its own random streams.
    pub fn new(name: String, role: LinkRole, (from, to): (u32, u32), edge: &EdgeSpec, queue: Queue, loss_rng: Rng, jitter_rng: Rng, impair_rng: Rng) -> Link {
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
            capture_tx: 0,
            capture_rx: 0,
            pipe: VecDeque::new(),
            loss: edge.loss,
            loss_rng,
            jitter: edge.jitter,
            jitter_rng,
            last_arrival: Time::ZERO,
            impair: (!edge.impair.is_none()).then(|| Box::new(Impair::of(&edge.impair, edge.rate, edge.delay, impair_rng))),
            counters: LinkCounters::default(),
            at_warmup: LinkCounters::default(),
            in_service: InService::default(),
        }
    }

    /// Time the transmitter becomes free.
    #[inline]
    pub fn busy_until(&self) -> Time {
        self.busy_until
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
        if self.impair.is_some() && self.impaired_start(now) {
            return TxStart::Held;
        }
        let Some(id) = self.queue.dequeue(now, arena, dropped) else { return TxStart::Idle };
        let size = arena.get(id).size_bytes;
        let tx = self.rate.tx_time(size);
        let end = now + tx;
        self.busy_until = end;
        self.counters.tx_pkts += 1;
        self.counters.tx_bytes += size as u64;
        self.counters.busy_ns += tx.ns();
        let lost = (self.loss > 0.0 && self.loss_rng.chance(self.loss)) || self.impair.as_deref_mut().is_some_and(|i| i.lose(size));
        self.in_service = InService { end, bytes: size, lost };
        if lost {
            self.counters.lost_random += 1;
            if self.capture_tx != 0 {
                return TxStart::Captured { id, first_in_pipe: None, lost: true };
            }
            return TxStart::Lost(id);
        }
        let mut arrival = end + self.delay;
        if self.jitter > Dur::ZERO || self.impair.is_some() {
            let dist = self.impair.as_ref().map_or(JitterDist::Uniform, |i| i.jitter_dist);
            if self.jitter > Dur::ZERO {
                arrival = arrival + Impair::jitter(dist, self.jitter, &mut self.jitter_rng);
            }
            arrival = arrival.max(self.last_arrival);
            self.last_arrival = arrival;
        }
        let was_empty = self.pipe.is_empty();
        self.pipe.push_back((arrival, id));
        if self.capture_tx != 0 {
            return TxStart::Captured { id, first_in_pipe: was_empty.then_some(arrival), lost: false };
        }
        TxStart::Sent { first_in_pipe: was_empty.then_some(arrival) }
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
        false
    }

    /// The highest rate and lowest delay this link ever has (a lower bound on any transfer
    /// over it: the ideal FCT's).
    pub fn best_rate_delay(&self) -> (Rate, Dur) {
        self.impair.as_ref().map_or((self.rate, self.delay), |i| i.best())
    }

    /// Packets waiting in the queue.
    #[inline]
    pub fn backlog(&self) -> u32 {
        self.queue.len_pkts()
    }

    /// Pop the packet arriving at `now`; returns it and the next arrival time, if any.
    #[inline]
    pub fn deliver(&mut self, now: Time) -> (PacketId, Option<Time>) {
        let (t, id) = self.pipe.pop_front().expect("Deliver with an empty pipe");
        debug_assert_eq!(t, now);
        (id, self.pipe.front().map(|&(t, _)| t))
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
            c.busy_ns -= s.end.since(now).ns();
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
