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
}

/// A heap entry. `key` packs `(time << 64) | seq`, so ordering is one 128-bit comparison.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    #[inline]
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

impl Entry {
    #[inline]
    fn time(&self) -> Time {
        Time::from_ns((self.key >> 64) as u64)
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
        self.heap.push(Reverse(Entry { key: ((time.ns() as u128) << 64) | tie as u128, event }));
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
                Some((t, e.event))
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
    fn stops_at_horizon() {
        let mut s = Scheduler::new();
        s.schedule(Time::from_ns(10), Event::Sample);
        assert!(s.pop_until(Time::from_ns(9)).is_none());
        assert!(s.pop_until(Time::from_ns(10)).is_some());
    }
}
