//! A simplex link: egress queue discipline -> transmitter (rate) -> optional random loss ->
//! propagation pipe (delay) -> far node.
//!
//! The link keeps at most two scheduler entries: `Deliver` for the head of its pipe and, only
//! while packets wait behind the one being serialized, `TxDone` at the end of that serialization.
//! A packet enters the pipe when its serialization starts, with arrival time = end of
//! serialization + delay; since rate and delay are constant, packets leave the pipe in the order
//! they entered it, so the pipe is a FIFO and only its head needs an event. An idle link thus
//! costs one event per packet, a busy one two.

use super::packet::{PacketArena, PacketId};
use crate::aqm::{DropReason, Queue};
use crate::rng::Rng;
use crate::units::{Dur, Rate, Time};
use std::collections::VecDeque;

/// Monotonic transmitter counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkCounters {
    /// Packets whose serialization completed.
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    /// Packets lost on the wire by the Bernoulli loss process.
    pub lost_random: u64,
}

impl LinkCounters {
    pub fn minus(&self, o: &LinkCounters) -> LinkCounters {
        LinkCounters {
            tx_pkts: self.tx_pkts - o.tx_pkts,
            tx_bytes: self.tx_bytes - o.tx_bytes,
            lost_random: self.lost_random - o.lost_random,
        }
    }
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
}

#[derive(Debug)]
pub struct Link {
    pub name: String,
    /// Role in the topology (`forward`, `reverse`, `sender_up`, ...).
    pub role: &'static str,
    pub from: u32,
    pub to: u32,
    pub rate: Rate,
    pub delay: Dur,
    pub queue: Queue,
    /// The transmitter is busy until then (end of the current serialization).
    busy_until: Time,
    /// A `TxDone` event is scheduled at `busy_until`.
    pub tx_done_pending: bool,
    /// Packets propagating, with their arrival times (non-decreasing).
    pipe: VecDeque<(Time, PacketId)>,
    loss: f64,
    loss_rng: Rng,
    pub counters: LinkCounters,
    pub window_start: LinkCounters,
}

impl Link {
    #[allow(clippy::too_many_arguments)]
    pub fn new(name: String, role: &'static str, from: u32, to: u32, rate: Rate, delay: Dur, queue: Queue, loss: f64, loss_rng: Rng) -> Link {
        Link {
            name,
            role,
            from,
            to,
            rate,
            delay,
            queue,
            busy_until: Time::ZERO,
            tx_done_pending: false,
            pipe: VecDeque::new(),
            loss,
            loss_rng,
            counters: LinkCounters::default(),
            window_start: LinkCounters::default(),
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
        dropped: &mut Vec<(PacketId, DropReason)>,
    ) -> TxStart {
        debug_assert!(now >= self.busy_until);
        let Some(id) = self.queue.dequeue(now, arena, dropped) else { return TxStart::Idle };
        let size = arena.get(id).size_bytes;
        let end = now + self.rate.tx_time(size);
        self.busy_until = end;
        self.counters.tx_pkts += 1;
        self.counters.tx_bytes += size as u64;
        if self.loss > 0.0 && self.loss_rng.chance(self.loss) {
            self.counters.lost_random += 1;
            return TxStart::Lost(id);
        }
        let arrival = end + self.delay;
        let was_empty = self.pipe.is_empty();
        self.pipe.push_back((arrival, id));
        TxStart::Sent { first_in_pipe: was_empty.then_some(arrival) }
    }

    /// Packets waiting in the queue.
    #[inline]
    pub fn backlog(&self) -> u32 {
        self.queue.qdisc.len_pkts()
    }

    /// Pop the packet arriving at `now`; returns it and the next arrival time, if any.
    #[inline]
    pub fn deliver(&mut self, now: Time) -> (PacketId, Option<Time>) {
        let (t, id) = self.pipe.pop_front().expect("Deliver with an empty pipe");
        debug_assert_eq!(t, now);
        (id, self.pipe.front().map(|&(t, _)| t))
    }

    /// Start the measurement window.
    pub fn start_window(&mut self, now: Time) {
        self.window_start = self.counters;
        self.queue.start_window(now);
    }

    pub fn window(&self) -> LinkCounters {
        self.counters.minus(&self.window_start)
    }
}
