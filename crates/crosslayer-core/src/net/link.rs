//! A simplex link: egress queue discipline -> transmitter (rate) -> optional random loss ->
//! propagation pipe (delay) -> far node.
//!
//! The link keeps at most two scheduler entries: `TxDone` for the packet being serialized and
//! `Deliver` for the head of its pipe. Since rate and delay are constant, packets leave the pipe
//! in the order they entered it, so the pipe is a FIFO and only its head needs an event.

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
    /// Packet being serialized.
    in_service: Option<PacketId>,
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
            in_service: None,
            pipe: VecDeque::new(),
            loss,
            loss_rng,
            counters: LinkCounters::default(),
            window_start: LinkCounters::default(),
        }
    }

    #[inline]
    pub fn is_busy(&self) -> bool {
        self.in_service.is_some()
    }

    /// If idle, take the next packet from the queue and start serializing it. Returns the time
    /// serialization ends (for the `TxDone` event).
    #[inline]
    pub fn start_tx(&mut self, now: Time, arena: &mut PacketArena, dropped: &mut Vec<(PacketId, DropReason)>) -> Option<Time> {
        if self.in_service.is_some() {
            return None;
        }
        let id = self.queue.dequeue(now, arena, dropped)?;
        self.in_service = Some(id);
        Some(now + self.rate.tx_time(arena.get(id).size_bytes))
    }

    /// Serialization of the packet in service ended at `now`. Returns `Err(id)` if the packet was
    /// lost on the wire (the caller frees it), else `Ok(Some(arrival))` if the pipe was empty and
    /// needs a `Deliver` event at `arrival`.
    #[inline]
    pub fn finish_tx(&mut self, now: Time, arena: &PacketArena) -> Result<Option<Time>, PacketId> {
        let id = self.in_service.take().expect("TxDone without a packet in service");
        self.counters.tx_pkts += 1;
        self.counters.tx_bytes += arena.get(id).size_bytes as u64;
        if self.loss > 0.0 && self.loss_rng.chance(self.loss) {
            self.counters.lost_random += 1;
            return Err(id);
        }
        let arrival = now + self.delay;
        let was_empty = self.pipe.is_empty();
        self.pipe.push_back((arrival, id));
        Ok(was_empty.then_some(arrival))
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
