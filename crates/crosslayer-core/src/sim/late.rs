//! Merges taken late: the loop's side of a router whose arrivals wait for a wake-up.
//!
//! Where the pipes of several links meet at a router (in a dumbbell, the senders' links at A,
//! the receivers' at B), the router's arrivals must be taken in time order across those pipes,
//! so each has cost an event (`Deliver`): the merge the heap does. But nothing needs a router's
//! arrival at the instant it happens when every link out of the router is eager (a FIFO that
//! decides at arrival, `net::link`): taking the packet changes only that link's queue and
//! transmitter, and what it sends reaches the next node no sooner than the link's delay plus the
//! serialization of one byte later. So the router takes its arrivals late, in a batch: one
//! wake-up (`Event::Router`) at its earliest waiting arrival plus that `slack` takes every
//! arrival due by then, in time order across its pipes, each as `forward` at its own time. On
//! the seed 000 access link (2 ms on the bottleneck, a packet every 120 us) a wake-up takes about
//! sixteen.
//!
//! The invariant that makes it exact: **a router's arrivals are taken in time order, and each
//! before anything else can read or change what it changes.** What taking an arrival at `t`
//! changes: the out-link's queue and transmitter as of `t` (nothing else touches them: the
//! router is no host, so every packet entering them arrives through its pipes; their own
//! deliveries do not settle them, `Link::late_from`; a sample, the start of the measurement
//! window and the end of a run take every router's due arrivals first, `take_all_late`); and
//! what the out-link sends, which arrives at the next node at `t + slack` or later, when the
//! wake-up has run: the wake-up is armed at the earliest waiting arrival plus `slack` whenever
//! a pipe's head changes, and a packet enters a pipe no later than it arrives, so no wake-up
//! comes after an arrival it must take plus `slack`. A packet the out-link drops is counted
//! against its flow when it is taken (up to `slack` late; the queue and the per-link counts
//! take it at its time), so a finite flow whose last packet is dropped there ends at the
//! wake-up.
//!
//! Arrivals at the same instant from different pipes are taken in the order their `Deliver`
//! events would have run: the order in which the packets became the heads of their pipes (a
//! `Head` keeps a count), as each head's `Deliver` was scheduled then (a head that became one
//! when its packet entered an empty pipe counts then, not at the time a router taking
//! arrivals late might have made it one: only a tie between two such heads tells). So a run
//! whose only ties are between a router's pipes is the run of the events, table for table
//! (seed 002's Reno flows against ns-2, whose hosts send in step, and whose order of ties taken
//! by link gave 466 timeouts against 285, seed 1). What a wake-up schedules follows the events
//! scheduled for the same instant before it, which the events it replaces preceded: as for
//! eager links, `tests/eager_links.rs` shows the distributions over 20 seeds unchanged where
//! such ties decide drops; `departure_events = true` turns it off.
//!
//! A router takes its arrivals late only if a wake-up would take at least two full-size
//! packets from its fastest pipe (`MIN_BATCH`): where the out-links have no delay (the seed 000
//! data center's bottleneck), a wake-up would take one arrival and cost as much as its event.

use super::Sim;
use crate::net::link::NOT_LATE;
use crate::sched::{Event, TimerSlot};
use crate::units::{Dur, Time};

/// A router that takes its arrivals late (module docs).
#[derive(Debug)]
pub(super) struct LateRouter {
    /// The links into it whose pipes may hold packets (those some path does not hand on
    /// ahead): a range of `Sim::late_feeders`.
    feeders: (u32, u32),
    /// How late it may take an arrival: the shortest delay of its out-links plus the
    /// serialization of one byte there.
    slack: Dur,
    /// Its wake-up: the earliest waiting arrival plus `slack`.
    wake: TimerSlot,
}

/// A late router's pipe's head (`Sim::late_heads`): its arrival (NEVER: the pipe is empty) in
/// the high 64 bits, and in the low ones the count of heads when it became the head (what
/// orders arrivals at the same instant: the `Deliver` the head would have had was scheduled
/// then), so heads compare in one comparison.
pub(super) type Head = u128;
const NO_HEAD: Head = u128::MAX;

#[inline(always)]
fn head(at: Time, order: u64) -> Head {
    (at.ns() as u128) << 64 | order as u128
}

#[inline(always)]
fn head_time(h: Head) -> Time {
    Time::from_ns((h >> 64) as u64)
}

/// A router takes its arrivals late if its slack holds this many full-size packets
/// (`FULL_SIZE` bytes) from its fastest pipe.
const MIN_BATCH: u64 = 2;
const FULL_SIZE: u32 = 1500;

impl Sim {
    /// The routers that take their arrivals late (module docs): no host, every link out of it
    /// eager, every link into it delivering each packet at a time known when the packet enters
    /// its pipe (`Link::may_feed_ahead`), and a slack worth a wake-up. Marks their links.
    pub(super) fn find_late_routers(&mut self) {
        let links = &self.topo.links;
        let nodes = self.topo.node_names.len();
        // a link's pipe holds packets if some path goes on from it at an event (not ahead); a
        // router sends on a link the packets it takes if some path enters the link there (not
        // handed ahead)
        let (mut fills, mut taken) = (vec![false; links.len()], vec![false; links.len()]);
        let routes = self.flows.iter().flat_map(|f| f.route).chain(self.udp.iter().map(|u| u.route));
        for r in routes {
            for k in r.slots() {
                let l = self.hop_link[k] as usize;
                fills[l] |= k + 1 == (r.base + r.len) as usize || !self.fused[k + 1];
                taken[l] |= !self.fused[k];
            }
        }
        let (mut into, mut out) = (vec![Vec::new(); nodes], vec![Vec::new(); nodes]);
        for (l, link) in links.iter().enumerate() {
            if fills[l] {
                into[link.to as usize].push(l);
            }
            if taken[l] {
                out[link.from as usize].push(l);
            }
        }
        for n in 0..nodes {
            let links = &self.topo.links;
            if self.topo.is_host[n] || into[n].is_empty() || out[n].is_empty() {
                continue;
            }
            if !out[n].iter().all(|&l| links[l].eager) || !into[n].iter().all(|&l| links[l].may_feed_ahead()) {
                continue;
            }
            let slack = out[n].iter().map(|&l| links[l].delay + links[l].rate.tx_time(1)).min().expect("a link out");
            let full = into[n].iter().map(|&l| links[l].rate.tx_time(FULL_SIZE)).min().expect("a link in");
            if slack.ns() < MIN_BATCH * full.ns() {
                continue;
            }
            let r = self.late.len() as u32;
            for &l in &into[n] {
                self.topo.links[l].late_to = (r, self.late_feeders.len() as u32);
                self.late_feeders.push(l as u32);
                self.late_heads.push(NO_HEAD);
            }
            for &l in &out[n] {
                self.topo.links[l].late_from = true;
            }
            let end = self.late_feeders.len() as u32;
            self.late.push(LateRouter { feeders: (end - into[n].len() as u32, end), slack, wake: TimerSlot::IDLE });
        }
    }

    /// Link `l`'s pipe has a new head, arriving at `t`: its `Deliver`, or its router's wake-up
    /// no later than `t` plus the router's slack.
    #[inline(always)]
    pub(super) fn deliver_at(&mut self, l: usize, t: Time) {
        match self.topo.links[l].late_to {
            (NOT_LATE, _) => self.sched.schedule(t, Event::Deliver(l as u32)),
            (r, k) => {
                self.late_order += 1;
                self.late_heads[k as usize] = head(t, self.late_order);
                self.arm_router(r as usize, t);
            }
        }
    }

    #[inline]
    fn arm_router(&mut self, r: usize, head: Time) {
        let lr = &mut self.late[r];
        lr.wake.arm(&mut self.sched, head + lr.slack, Event::Router(r as u32));
    }

    /// Router `r`'s wake-up: take its arrivals due by `now`, and wake up again for the next.
    pub(super) fn on_router(&mut self, now: Time, r: usize) {
        if !self.late[r].wake.fire(now) {
            return; // an entry an earlier one superseded
        }
        let (a, b) = self.late[r].feeders;
        if let Some(next) = self.take_late(now, a as usize..b as usize) {
            self.arm_router(r, next);
        }
    }

    /// Take the arrivals due by `t` at every router that takes them late: before anything reads
    /// the links. Router by router: what one sends on reaches the next no sooner than `t` (an
    /// arrival still waiting at `t` is no earlier than `t` minus its router's slack, or its
    /// wake-up would have run), so another pass only takes arrivals at `t` itself.
    pub(super) fn take_all_late(&mut self, t: Time) {
        loop {
            for r in 0..self.late.len() {
                let (a, b) = self.late[r].feeders;
                self.take_late(t, a as usize..b as usize);
            }
            if self.late_heads.iter().all(|&h| head_time(h) > t) {
                return;
            }
        }
    }

    /// Take the arrivals due by `t` from the pipes of `feeders` (a range of `late_feeders`), in
    /// time order (at the same instant, in the order the heads became heads: `Head`); the
    /// earliest arrival left, if any.
    fn take_late(&mut self, t: Time, feeders: std::ops::Range<usize>) -> Option<Time> {
        let base = feeders.start;
        loop {
            // the earliest head (at a tie, the one that became its pipe's head first) and the
            // earliest other
            let (mut first, mut from, mut other) = (NO_HEAD, 0, NO_HEAD);
            for (k, &head) in self.late_heads[feeders.clone()].iter().enumerate() {
                if head < first {
                    (other, first, from) = (first, head, base + k);
                } else if head < other {
                    other = head;
                }
            }
            let at = head_time(first);
            if at > t {
                return (at < Time::NEVER).then_some(at);
            }
            // its pipe's packets up to the other pipes' earliest
            loop {
                let next = self.take(head_time(first), from);
                if next < other && head_time(next) <= t {
                    first = next;
                } else {
                    break;
                }
            }
        }
    }

    /// The packet at the head of the pipe of `late_feeders[k]` arrives at its router at `at`:
    /// on to its next link, as a `Deliver` at `at` would have sent it. Returns the pipe's next
    /// head (`NO_HEAD`: none), which became the head now.
    #[inline]
    fn take(&mut self, at: Time, k: usize) -> Head {
        let link = &mut self.topo.links[self.late_feeders[k] as usize];
        if link.eager {
            link.settle(at, &mut self.hops);
        }
        let id = link.take_head();
        self.late_order += 1;
        let next = link.pipe_head().map_or(NO_HEAD, |t| head(t, self.late_order));
        self.late_heads[k] = next;
        let node = link.to;
        let p = self.arena.get_mut(id);
        debug_assert_ne!(p.dst, node, "a router that takes its arrivals late is no host");
        p.hop += 1;
        self.forward(at, node, id);
        next
    }
}
