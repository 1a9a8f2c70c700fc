//! The event scheduler: a binary heap ordered by `(time, insertion sequence)`, so events at the
//! same instant run in the order they were scheduled (FIFO on ties).
//!
//! The engine keeps the heap at O(links + flows) entries: a link schedules only its head packet,
//! an endpoint owns one timer entry (see `docs/design.md`).

use crate::units::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What an event is about. Small and `Copy`: the heap stores it inline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// Link `0` finished serializing its head packet.
    TxDone(u32),
    /// The head packet of link `0`'s propagation pipe reaches the far node.
    Deliver(u32),
    /// Timer of flow `0`'s sender.
    SenderTimer(u32),
    /// Timer of flow `0`'s receiver (delayed ACK).
    ReceiverTimer(u32),
    /// Timer of link `0`'s queue discipline.
    QdiscTimer(u32),
    /// Periodic sampler (queue series, cwnd traces).
    Sample,
    /// Start of the measurement window.
    Warmup,
    /// Periodic sampler of the flows' goodput.
    Goodput,
    /// Timer of unresponsive source `0` (`traffic`).
    SourceTimer(u32),
}

/// Bits of a heap key that hold the event: a 3-bit kind and a 21-bit index.
const EVENT_BITS: u32 = 24;
const INDEX_BITS: u32 = 21;
/// Links and flows are numbered below this (the engine's limits keep them far below).
pub const MAX_INDEX: u32 = 1 << INDEX_BITS;
/// Bits of the tie-breaking sequence number: 2^40 schedules.
const SEQ_BITS: u32 = 64 - EVENT_BITS;
/// Most events a run may execute and still never wrap the sequence (a quarter of its range:
/// each event schedules a few others). The scenario's limits are checked against it.
pub const MAX_SCHEDULES: u64 = 1u64 << (SEQ_BITS - 2);

impl Event {
    #[inline]
    fn encode(self) -> u64 {
        let (kind, index) = match self {
            Event::TxDone(i) => (0, i),
            Event::Deliver(i) => (1, i),
            Event::SenderTimer(i) => (2, i),
            Event::ReceiverTimer(i) => (3, i),
            Event::QdiscTimer(i) => (4, i),
            Event::Sample => (5, 0),
            Event::Warmup => (6, 0),
            Event::Goodput => (6, 1),
            Event::SourceTimer(i) => (7, i),
        };
        debug_assert!(index < MAX_INDEX);
        (kind << INDEX_BITS) | index as u64
    }

    #[inline]
    fn decode(code: u64) -> Event {
        let index = (code & (MAX_INDEX as u64 - 1)) as u32;
        match (code >> INDEX_BITS) & 7 {
            0 => Event::TxDone(index),
            1 => Event::Deliver(index),
            2 => Event::SenderTimer(index),
            3 => Event::ReceiverTimer(index),
            4 => Event::QdiscTimer(index),
            5 => Event::Sample,
            6 if index == 0 => Event::Warmup,
            6 => Event::Goodput,
            _ => Event::SourceTimer(index),
        }
    }
}

/// A heap entry: `(time << 64) | (seq << 24) | event`, so ordering is one 128-bit comparison
/// and the heap moves 16 bytes per step (the order is by time, then scheduling sequence; the
/// event bits never decide, as sequences are unique).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Entry(u128);

impl Entry {
    #[inline]
    fn new(time: Time, tie: u64, event: Event) -> Entry {
        let low = (tie & ((1 << SEQ_BITS) - 1)) << EVENT_BITS | event.encode();
        Entry(((time.ns() as u128) << 64) | low as u128)
    }
    #[inline]
    fn time(&self) -> Time {
        Time::from_ns((self.0 >> 64) as u64)
    }
    #[inline]
    fn event(&self) -> Event {
        Event::decode(self.0 as u64 & ((1 << EVENT_BITS) - 1))
    }
}

/// Min-heap of events with FIFO tie-breaking, or a seeded random order among events at the
/// same instant.
#[derive(Debug, Default)]
pub struct Scheduler {
    heap: BinaryHeap<Reverse<Entry>>,
    seq: u64,
    now: Time,
    executed: u64,
    /// Random tie-break: the low 64 bits of the key are drawn from this stream.
    shuffle: Option<crate::rng::Rng>,
}

impl Scheduler {
    pub fn new() -> Scheduler {
        Scheduler::default()
    }

    /// A scheduler that orders events at the same instant randomly (reproducibly).
    pub fn with_random_ties(rng: crate::rng::Rng) -> Scheduler {
        Scheduler { shuffle: Some(rng), ..Scheduler::default() }
    }

    /// Current simulated time (time of the event being executed).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events popped so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// Schedule `event` at `time` (never in the past).
    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        debug_assert!(time >= self.now, "scheduling into the past: {time} < {}", self.now);
        self.seq += 1;
        let tie = match &mut self.shuffle {
            None => self.seq,
            Some(rng) => rng.next_u64(),
        };
        self.heap.push(Reverse(Entry::new(time, tie, event)));
    }

    /// Pop the next event if it is at or before `until`; advances `now`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        match self.heap.peek() {
            Some(Reverse(e)) if e.time() <= until => {
                let Reverse(e) = self.heap.pop()?;
                let t = e.time();
                debug_assert!(t >= self.now);
                self.now = t;
                self.executed += 1;
                Some((t, e.event()))
            }
            _ => None,
        }
    }

    /// Move the clock to `t` (end of run) without executing anything.
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
}

/// One scheduler entry per timer owner (an endpoint, a queue discipline): `queued` is the
/// earliest pending heap entry (NEVER if none). Moving a deadline later costs nothing; the early
/// entry wakes the owner, which re-arms.
#[derive(Clone, Copy, Debug)]
pub struct TimerSlot {
    queued: Time,
}

impl TimerSlot {
    pub const IDLE: TimerSlot = TimerSlot { queued: Time::NEVER };

    /// Make sure an entry fires no later than `deadline`.
    #[inline]
    pub fn arm(&mut self, sched: &mut Scheduler, deadline: Time, ev: Event) {
        if deadline < self.queued {
            sched.schedule(deadline, ev);
            self.queued = deadline;
        }
    }

    /// The entry for `t` fired; true if it is the live one.
    #[inline]
    pub fn fire(&mut self, t: Time) -> bool {
        if t == self.queued {
            self.queued = Time::NEVER;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_fifo() {
        let mut s = Scheduler::new();
        s.schedule(Time::from_ns(10), Event::TxDone(1));
        s.schedule(Time::from_ns(5), Event::TxDone(2));
        s.schedule(Time::from_ns(10), Event::TxDone(0));
        s.schedule(Time::from_ns(10), Event::Deliver(9));
        let order: Vec<Event> = std::iter::from_fn(|| s.pop_until(Time::from_ns(100)).map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            vec![Event::TxDone(2), Event::TxDone(1), Event::TxDone(0), Event::Deliver(9)]
        );
        assert_eq!(s.now(), Time::from_ns(10));
    }

    #[test]
    fn events_round_trip_through_the_key() {
        for e in [Event::TxDone(0), Event::Deliver(MAX_INDEX - 1), Event::SenderTimer(77), Event::ReceiverTimer(5), Event::QdiscTimer(3), Event::Sample, Event::Warmup, Event::Goodput] {
            let k = Entry::new(Time::from_ns(123), (1 << SEQ_BITS) - 1, e);
            assert_eq!((k.event(), k.time()), (e, Time::from_ns(123)));
        }
    }

    #[test]
    fn stops_at_horizon() {
        let mut s = Scheduler::new();
        s.schedule(Time::from_ns(10), Event::Sample);
        assert!(s.pop_until(Time::from_ns(9)).is_none());
        assert!(s.pop_until(Time::from_ns(10)).is_some());
    }
}
