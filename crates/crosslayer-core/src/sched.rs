//! The event scheduler: a binary heap ordered by `(time, insertion sequence)`, so events at the
//! same instant run in the order they were scheduled (FIFO on ties), and a timing wheel in front
//! of it for timers.
//!
//! The engine keeps the heap at O(links + flows) entries: a link schedules only its head packet,
//! an endpoint owns one timer entry (see `docs/design.md`).
//!
//! **The timing wheel.** Timers (`TimerSlot::arm`: retransmission, delayed-ACK, pacing and
//! queue-discipline timers) are mostly armed far ahead and mostly moved or never due, so keeping
//! them all in the heap makes every push and pop of the packets' events deeper (at 900 flows,
//! 1,200 entries instead of 30). A timer due at or after the `horizon` waits in the wheel: one
//! slot per [`SLOT_NS`] of time for the next [`SLOTS`] slots, and a list for the ones further
//! away. When the heap's earliest entry is not before the horizon, the slot at the horizon moves
//! into the heap and the horizon moves one slot on. The invariant: **every parked timer is due
//! at or after the horizon, and every entry of the heap before the horizon is earlier than every
//! parked timer**; so the heap's top, when it is before the horizon (or nothing is parked), is
//! the earliest of all events. Entries keep the key they were given when scheduled (time,
//! sequence), so the order of execution is the same, tie for tie, as with one heap.
//!
//! **Flows' timers** (`arm_flow`): the scheduler keeps each flow's sender and receiver timer
//! (the time of its live entry, and the deadline last asked for), so when a slot comes it can
//! drop an entry that an earlier one superseded (it would wake nobody: exact) and move an entry
//! whose deadline moved later (a retransmission timer pushed back by every ACK) to that deadline
//! instead of waking the flow for nothing. The wake-up it saves runs no TCP code that could
//! act (nothing is due; at 900 flows, 49,927 such wake-ups sent nothing), but the entry gets
//! its new key when its slot comes rather than when the flow would have re-armed it, so events
//! at the same nanosecond may run in another order (`spec::ScenarioSpec::departure_events`
//! restores the wake-ups).

use crate::units::Time;

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
    /// The next decision of wireless medium `0` (`net::wlan`): a backoff expires.
    Medium(u32),
    /// Router `0` of those that take their arrivals late (`Sim::late`) takes the ones due.
    Router(u32),
    /// Eager link `0` discards the packets it keeps that are due: lost on the wire at their
    /// start, refused by its queue ahead at their arrival (`Sim::discard_due`).
    Discard(u32),
}

/// Bits of a heap key that hold the event: a 4-bit kind (one per variant, so decoding is two
/// masks and a jump on the kind) and a 20-bit index.
const EVENT_BITS: u32 = 24;
const INDEX_BITS: u32 = 20;
/// Links and flows are numbered below this (the engine's limits keep them below: `spec.rs`).
pub const MAX_INDEX: u32 = 1 << INDEX_BITS;
/// Bits of the tie-breaking sequence number: 2^40 schedules.
const SEQ_BITS: u32 = 64 - EVENT_BITS;
/// Most events a run may execute and still never wrap the sequence (a quarter of its range:
/// each event schedules a few others). The scenario's limits are checked against it.
pub const MAX_SCHEDULES: u64 = 1u64 << (SEQ_BITS - 2);

impl Event {
    #[inline(always)]
    fn encode(self) -> u64 {
        let (kind, index) = match self {
            Event::TxDone(i) => (0, i),
            Event::Deliver(i) => (1, i),
            Event::SenderTimer(i) => (2, i),
            Event::ReceiverTimer(i) => (3, i),
            Event::QdiscTimer(i) => (4, i),
            Event::Sample => (5, 0),
            Event::Warmup => (6, 0),
            Event::Goodput => (7, 0),
            Event::SourceTimer(i) => (8, i),
            Event::Medium(i) => (9, i),
            Event::Router(i) => (10, i),
            Event::Discard(i) => (11, i),
        };
        debug_assert!(index < MAX_INDEX);
        (kind << INDEX_BITS) | index as u64
    }

    #[inline(always)]
    fn decode(code: u64) -> Event {
        let index = (code & (MAX_INDEX as u64 - 1)) as u32;
        match (code >> INDEX_BITS) & 15 {
            0 => Event::TxDone(index),
            1 => Event::Deliver(index),
            2 => Event::SenderTimer(index),
            3 => Event::ReceiverTimer(index),
            4 => Event::QdiscTimer(index),
            5 => Event::Sample,
            6 => Event::Warmup,
            7 => Event::Goodput,
            8 => Event::SourceTimer(index),
            9 => Event::Medium(index),
            10 => Event::Router(index),
            _ => Event::Discard(index),
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

/// The scheduler's min-heap of entries (module docs, "the heap"): a binary heap in an array
/// whose length is a power of two, the slots from its `n` entries on holding `u128::MAX`.
#[derive(Debug)]
struct FlatHeap {
    v: Vec<Entry>,
    n: usize,
}

impl Default for FlatHeap {
    fn default() -> Self {
        FlatHeap { v: vec![Entry(u128::MAX); 16], n: 0 }
    }
}

impl FlatHeap {
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.n == 0
    }
    #[inline(always)]
    fn peek(&self) -> Option<Entry> {
        (self.n > 0).then(|| self.v[0])
    }
    /// Add `x`, raised from the end (the last slot stays free: a child index of the deepest
    /// entries' parents never reaches past it).
    #[inline(always)]
    fn push(&mut self, x: Entry) {
        if self.n == self.v.len() - 1 {
            self.grow();
        }
        let v = &mut self.v[..];
        let mut i = self.n;
        self.n += 1;
        while i > 0 {
            let p = (i - 1) / 2;
            if v[p] < x {
                break;
            }
            v[i] = v[p];
            i = p;
        }
        v[i] = x;
    }
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.v.resize(2 * self.v.len(), Entry(u128::MAX));
    }
    /// Remove the top (the heap is not empty).
    #[inline(always)]
    fn pop(&mut self) {
        self.n -= 1;
        let x = std::mem::replace(&mut self.v[self.n], Entry(u128::MAX));
        if self.n > 0 {
            self.replace_top(x);
        }
    }
    /// The top replaced by `x` (the heap is not empty). In a heap of a few levels (seed 000's
    /// runs: 2 to 4) it sinks through every level down to the deepest entry's with selects
    /// instead of branches: at each level the smaller child moves up if it is smaller than `x`;
    /// once it is not, `x` is written where it is, and every later level finds the same
    /// children and writes the same. Slots past the entries hold the greatest key, so they never
    /// move up. In a deeper heap (timers of thousands of flows due in one slot of the wheel) it
    /// stops where it belongs, as most entries then stay near the top.
    #[inline(always)]
    fn replace_top(&mut self, x: Entry) {
        let levels = self.n.ilog2();
        if levels > BRANCH_FREE_LEVELS {
            return self.sink(x);
        }
        let v = &mut self.v[..];
        // a power of two: every index masked with it is in bounds (no checks in the loop)
        let mask = v.len() - 1;
        let mut i = 0usize;
        for _ in 0..levels {
            let c = 2 * i + 1;
            let (a, b) = (v[c & mask], v[(c + 1) & mask]);
            let right = b < a;
            let m = if right { b } else { a };
            let up = m < x;
            v[i & mask] = if up { m } else { x };
            i = if up { c + right as usize } else { i };
        }
        v[i & mask] = x;
    }

    /// `replace_top` in a deep heap: sunk with a branch at each level (a right child past the
    /// entries holds the greatest key, so it is never taken).
    #[inline(never)]
    fn sink(&mut self, x: Entry) {
        let v = &mut self.v[..];
        let mut i = 0usize;
        loop {
            let c = 2 * i + 1;
            if c >= self.n {
                break;
            }
            let j = c + (v[c + 1] < v[c]) as usize;
            if x < v[j] {
                break;
            }
            v[i] = v[j];
            i = j;
        }
        v[i] = x;
    }
}

/// The deepest heap whose entries sink without branches (`FlatHeap::replace_top`): 31 entries.
const BRANCH_FREE_LEVELS: u32 = 4;

/// A flow's timer as the scheduler keeps it: its live entry (a `TimerSlot`) and the deadline
/// its owner last asked for.
#[derive(Clone, Copy, Debug)]
struct FlowTimer {
    slot: TimerSlot,
    wanted: Time,
}

/// Where flow timer `ev` is kept in `Scheduler::flow_timers`.
#[inline]
fn flow_timer(ev: Event) -> Option<usize> {
    match ev {
        Event::SenderTimer(f) => Some(2 * f as usize),
        Event::ReceiverTimer(f) => Some(2 * f as usize + 1),
        _ => None,
    }
}

/// Width of a slot of the timing wheel, ns (about a millisecond).
pub const SLOT_NS: u64 = 1 << SLOT_BITS;
const SLOT_BITS: u32 = 20;
/// Slots of the wheel (about a second ahead); timers further away wait in a list.
pub const SLOTS: u64 = 1024;

/// Min-heap of events with FIFO tie-breaking, or a seeded random order among events at the
/// same instant; timers wait in a wheel until their slot comes (module docs).
#[derive(Debug, Default)]
pub struct Scheduler {
    heap: FlatHeap,
    /// Parked timers by slot (`time >> SLOT_BITS`, modulo `SLOTS`): the slots from the
    /// horizon's on.
    wheel: Vec<Vec<Entry>>,
    /// Parked timers due beyond the wheel's last slot.
    far: Vec<Entry>,
    /// Slot of the horizon: everything before its start is in the heap.
    horizon: u64,
    /// Timers in `wheel` and `far`.
    parked: usize,
    /// The flows' timers (`arm_flow`): flow `f`'s sender at `2f`, its receiver at `2f + 1`.
    flow_timers: Vec<FlowTimer>,
    /// A flow's wake-up whose deadline moved later moves with it when its slot comes (module
    /// docs); false: it wakes the flow, which re-arms (as before the wheel).
    move_idle_wakes: bool,
    /// The heap's top is the event `pop_until` returned last, still in place: the next entry
    /// scheduled takes its place (one sift down from the top, short for an event due soon,
    /// instead of a pop and a push), or the next `pop_until` removes it. Either way the heap
    /// then holds the same entries as after a pop and a push, so the order is the same.
    top_done: bool,
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

    /// Schedule `event` at `time` (never in the past). Its key is made where it is called (the
    /// event's code is then a constant), the heap's work is not.
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, event: Event) {
        let e = self.entry(time, event);
        self.insert(e);
    }

    /// Put `e` in the heap: in the place of the event executed last if it is still there
    /// (`top_done`), else pushed.
    #[inline(never)]
    fn insert(&mut self, e: Entry) {
        if self.top_done {
            self.top_done = false;
            if !self.heap.is_empty() {
                self.heap.replace_top(e);
                return;
            }
        }
        self.heap.push(e);
    }

    /// Keep the timers of `flows` flows (`arm_flow`); `move_idle_wakes` as the field says.
    pub fn flow_timers(&mut self, flows: usize, move_idle_wakes: bool) {
        self.flow_timers = vec![FlowTimer { slot: TimerSlot::IDLE, wanted: Time::NEVER }; 2 * flows];
        self.move_idle_wakes = move_idle_wakes;
    }

    /// A flow's timer (`Event::SenderTimer`, `Event::ReceiverTimer`) should fire no later than
    /// `deadline` (NEVER: not at all): as `TimerSlot::arm`, remembering the deadline.
    #[inline(always)]
    pub fn arm_flow(&mut self, ev: Event, deadline: Time) {
        let k = flow_timer(ev).expect("a flow's timer");
        let t = &mut self.flow_timers[k];
        t.wanted = deadline;
        if t.slot.earlier(deadline) {
            self.schedule_timer(deadline, ev);
        }
    }

    /// A flow's timer entry for `now` came out: true if it is the live one.
    #[inline]
    pub fn fire_flow(&mut self, ev: Event, now: Time) -> bool {
        self.flow_timers[flow_timer(ev).expect("a flow's timer")].slot.fire(now)
    }

    /// Schedule a timer: as `schedule`, parked in the wheel if it is due after the horizon.
    #[inline(always)]
    pub fn schedule_timer(&mut self, time: Time, event: Event) {
        let e = self.entry(time, event);
        self.place_timer(e);
    }

    /// `schedule_timer` once its key is made.
    #[inline(never)]
    fn place_timer(&mut self, e: Entry) {
        let slot = e.time().ns() >> SLOT_BITS;
        if slot < self.horizon {
            self.insert(e);
        } else {
            self.park(slot, e);
        }
    }

    /// The key of `event` at `time`: its tie-break is drawn now, so where it waits does not
    /// change the order.
    #[inline(always)]
    fn entry(&mut self, time: Time, event: Event) -> Entry {
        debug_assert!(time >= self.now, "scheduling into the past: {time} < {}", self.now);
        self.seq += 1;
        let tie = match &mut self.shuffle {
            None => self.seq,
            Some(rng) => rng.next_u64(),
        };
        Entry::new(time, tie, event)
    }

    #[inline]
    fn park(&mut self, slot: u64, e: Entry) {
        if self.wheel.is_empty() {
            self.wheel = vec![Vec::new(); SLOTS as usize];
        }
        if slot < self.horizon + SLOTS {
            self.wheel[(slot % SLOTS) as usize].push(e);
        } else {
            self.far.push(e);
        }
        self.parked += 1;
    }

    /// Move parked timers into the heap until its top is the earliest event (module docs).
    #[inline]
    fn unpark(&mut self) {
        while self.parked > 0 && self.heap.peek().is_none_or(|e| e.time().ns() >> SLOT_BITS >= self.horizon) {
            self.next_slot();
        }
    }

    /// The slot at the horizon into the heap; the horizon one slot on.
    #[cold]
    #[inline(never)]
    fn next_slot(&mut self) {
        if self.parked == self.far.len() {
            // nothing in the wheel: jump to the first turn of it that holds a far timer
            let first = self.far.iter().map(|e| e.time().ns() >> SLOT_BITS).min().expect("parked");
            self.horizon = self.horizon.max(first - first % SLOTS);
        }
        if self.horizon.is_multiple_of(SLOTS) && !self.far.is_empty() {
            // a new turn of the wheel: the far timers it now reaches
            let end = self.horizon + SLOTS;
            let mut k = 0;
            while k < self.far.len() {
                let slot = self.far[k].time().ns() >> SLOT_BITS;
                if slot < end {
                    let e = self.far.swap_remove(k);
                    self.wheel[(slot % SLOTS) as usize].push(e);
                } else {
                    k += 1;
                }
            }
        }
        let at = (self.horizon % SLOTS) as usize;
        let mut bucket = std::mem::take(&mut self.wheel[at]);
        self.parked -= bucket.len();
        self.horizon += 1;
        for e in bucket.drain(..) {
            let Some(k) = flow_timer(e.event()).filter(|_| !self.flow_timers.is_empty()) else {
                self.heap.push(e);
                continue;
            };
            let t = self.flow_timers[k];
            if e.time() != t.slot.queued {
                continue; // superseded by an earlier entry: it would wake nobody
            }
            if self.move_idle_wakes && t.wanted > t.slot.queued {
                // nothing is due then: the entry moves to the deadline (a new key, drawn now)
                self.flow_timers[k].slot.queued = t.wanted;
                if t.wanted != Time::NEVER {
                    self.schedule_timer(t.wanted, e.event());
                }
                continue;
            }
            self.heap.push(e);
        }
        // timers parked in this slot's place meanwhile (a turn of the wheel later) stay
        let meanwhile = std::mem::replace(&mut self.wheel[at], bucket);
        self.wheel[at].extend(meanwhile);
    }

    /// Pop the next event if it is at or before `until`; advances `now`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, Event)> {
        if std::mem::take(&mut self.top_done) {
            self.heap.pop();
        }
        self.unpark();
        match self.heap.peek() {
            Some(e) if e.time() <= until => {
                // left in place until the next entry scheduled replaces it (`top_done`)
                self.top_done = true;
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
        if self.earlier(deadline) {
            sched.schedule_timer(deadline, ev);
        }
    }

    /// Whether `deadline` needs an entry of its own (it is earlier than the queued one, which
    /// it then replaces as the live entry).
    #[inline]
    fn earlier(&mut self, deadline: Time) -> bool {
        let earlier = deadline < self.queued;
        if earlier {
            self.queued = deadline;
        }
        earlier
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

    /// The heap against the standard library's over long random runs of pushes, pops and
    /// replacements of the top, growing to 300 entries and back to empty many times (small
    /// times, so many keys share their high half).
    #[test]
    fn the_heap_keeps_the_order_of_a_binary_heap() {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let (mut h, mut reference) = (FlatHeap::default(), BinaryHeap::new());
        let mut lcg = crate::rng::Lcg(0x9e3779b97f4a7c15);
        let mut seq = 0u64;
        for step in 0..400_000u64 {
            let r = lcg.next() >> 33;
            // phases of growth and shrinking
            let grow = (step / 3_000) % 2 == 0;
            seq += 1;
            let e = Entry::new(Time::from_ns(r % 50), seq, Event::Deliver((r % 7) as u32));
            match (r % 10, grow) {
                (0..=5, true) | (0..=2, false) if reference.len() < 300 => {
                    h.push(e);
                    reference.push(Reverse(e));
                }
                (6..=7, _) if !reference.is_empty() => {
                    h.replace_top(e);
                    *reference.peek_mut().unwrap() = Reverse(e);
                }
                _ if !reference.is_empty() => {
                    h.pop();
                    reference.pop();
                }
                _ => {}
            }
            assert_eq!(h.peek(), reference.peek().map(|r| r.0));
            assert_eq!(h.n, reference.len());
        }
        assert!(h.v[h.n..].iter().all(|e| e.0 == u128::MAX));
    }

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
        for e in [Event::TxDone(0), Event::Deliver(MAX_INDEX - 1), Event::SenderTimer(77), Event::ReceiverTimer(5), Event::QdiscTimer(3), Event::Sample, Event::Warmup, Event::Goodput, Event::Router(0), Event::Router(MAX_INDEX - 1), Event::Medium(4), Event::Medium(MAX_INDEX - 1), Event::SourceTimer(MAX_INDEX - 1)] {
            let k = Entry::new(Time::from_ns(123), (1 << SEQ_BITS) - 1, e);
            assert_eq!((k.event(), k.time()), (e, Time::from_ns(123)));
        }
    }

    /// The wheel's invariant (module docs): timers parked near, far (beyond a turn of the wheel)
    /// and very far (an idle jump of many turns), armed while events run, come out in exactly
    /// the order one heap gives, ties included, in FIFO and random tie order.
    #[test]
    fn timers_in_the_wheel_run_in_the_heaps_order() {
        for shuffle in [false, true] {
            let new = || match shuffle {
                false => Scheduler::new(),
                true => Scheduler::with_random_ties(crate::rng::Rng::stream(7, crate::rng::StreamKind::Scheduler, 0)),
            };
            let (mut wheel, mut heap) = (new(), new());
            let mut lcg = crate::rng::Lcg(99);
            let mut draw = |n: u64| (lcg.next() >> 17) % n;
            let mut popped = 0;
            let mut until = Time::ZERO;
            while popped < 200_000 {
                // a few schedules per step: near events, timers from a microsecond to 3 s away
                // (some at the same instant), now and then one 10^4 s away
                let now = wheel.now();
                for _ in 0..draw(3) {
                    let (t, ev) = match draw(10) {
                        0..=3 => (now + crate::units::Dur::from_ns(draw(50_000)), Event::Deliver(draw(8) as u32)),
                        4 => (Time::from_ns(now.ns() - now.ns() % 1000 + 1000), Event::SenderTimer(draw(8) as u32)),
                        5 if draw(500) == 0 => (now + crate::units::Dur::from_secs(10_000), Event::ReceiverTimer(1)),
                        _ => (now + crate::units::Dur::from_ns(1 + draw(3_000_000_000)), Event::SenderTimer(draw(8) as u32)),
                    };
                    match ev {
                        Event::Deliver(_) => {
                            wheel.schedule(t, ev);
                            heap.schedule(t, ev);
                        }
                        _ => {
                            wheel.schedule_timer(t, ev);
                            heap.schedule(t, ev);
                        }
                    }
                }
                until = until.max(now + crate::units::Dur::from_ns(draw(2_000_000)));
                let (a, b) = (wheel.pop_until(until), heap.pop_until(until));
                assert_eq!(a, b, "after {popped} events");
                popped += a.is_some() as u64;
                if a.is_none() && wheel.heap.is_empty() && wheel.parked == 0 {
                    break;
                }
            }
            assert!(popped >= 200_000);
            let rest_a: Vec<_> = std::iter::from_fn(|| wheel.pop_until(Time::NEVER)).collect();
            let rest_b: Vec<_> = std::iter::from_fn(|| heap.pop_until(Time::NEVER)).collect();
            assert!(rest_a.iter().any(|&(t, _)| t.ns() > 1_000 * 1_000_000_000), "no very far timer ran");
            assert_eq!(rest_a, rest_b);
        }
    }

    /// A flow's timer whose deadline moved later wakes at the new deadline only (with the
    /// wake-ups moved) or at the first (without); an entry superseded by an earlier one never
    /// comes out.
    #[test]
    fn flows_timers_move_with_their_deadlines_and_superseded_entries_vanish() {
        let at = |k: u64| Time::from_ns(k * 1_000_000);
        for moved in [true, false] {
            let mut s = Scheduler::new();
            s.flow_timers(1, moved);
            s.arm_flow(Event::SenderTimer(0), at(300));
            s.arm_flow(Event::SenderTimer(0), at(800)); // later: no new entry
            s.arm_flow(Event::ReceiverTimer(0), at(400));
            s.arm_flow(Event::ReceiverTimer(0), at(200)); // earlier: supersedes the 400 ms one
            let mut fired = Vec::new();
            while let Some((t, ev)) = s.pop_until(at(1000)) {
                fired.push((t, ev, s.fire_flow(ev, t)));
            }
            let mut want = vec![(at(200), Event::ReceiverTimer(0), true)];
            want.push(match moved {
                true => (at(800), Event::SenderTimer(0), true),
                false => (at(300), Event::SenderTimer(0), true),
            });
            assert_eq!(fired, want, "moved = {moved}");
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
