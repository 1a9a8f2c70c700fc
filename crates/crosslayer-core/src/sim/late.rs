//! Merges taken late: the loop's side of a router whose arrivals wait for a wake-up.
//!
//! Where the pipes of several links meet at a router (in a dumbbell, the senders' links at A,
//! the receivers' at B), the router's arrivals must be taken in time order across those pipes,
//! so each has cost an event (`Deliver`): the merge the heap does. But nothing needs a router's
//! arrival at the instant it happens when every link out of the router knows its departures at
//! arrival (an eager FIFO, or a link whose discipline decides at arrival, PIE: `net::link`; or
//! one whose discipline is quiet until a time, CoDel's, see below):
//! taking the packet changes only that link's queue, its discipline's state and its
//! transmitter, and what it sends reaches the next node no sooner than the link's delay plus the
//! serialization of one byte after the later of the arrival and the time the link's transmitter
//! is free (the end of the serializations already decided: an eager link's backlog). So the
//! router takes its arrivals late, in a batch: one wake-up (`Event::Router`) at the earliest of
//! those times over its out-links for its earliest waiting arrival (the `slack` past it) takes
//! every arrival due by then, in time order across its pipes, each as `forward_at` at its own time.
//! On the seed 000 access link (2 ms on the bottleneck, a packet every 120 us) a wake-up takes
//! about sixteen; at the data center's A (no delay on the bottleneck, but a standing queue of
//! about 830 packets, 10 ms) about eight hundred.
//!
//! The invariant that makes it exact: **a router's arrivals are taken in time order, and each
//! before anything else can read or change what it changes.** What taking an arrival at `t`
//! changes: the out-link's queue and transmitter as of `t` (nothing else touches them: the
//! router is no host, so every packet entering them arrives through its pipes; their own
//! deliveries do not settle them, `Link::late_from`, nor does the router after them when it too
//! takes its arrivals late, as a graph's routers in a row do; a sample, the start of the measurement
//! window, the end of a run and the update of an out-link's discipline that decides at arrival
//! take every router's due arrivals first, `take_all_late`, `Sim::on_qdisc_timer`: the update
//! those of its own instant only if ranked before its event, `take_all_late_before`); and
//! what the out-link sends, which arrives at the next node no sooner than the wake-up, when it
//! has run: the wake-up is armed for the earliest waiting arrival whenever a pipe's head
//! changes, a packet enters a pipe no later than it arrives, and an out-link's transmitter
//! frees later only (by this router's arrivals alone), so a wake-up armed before stays no later
//! than what any arrival it must take sends could arrive. A packet the out-link drops is counted
//! against its flow when it is taken (up to a wake-up's slack late; the queue and the per-link counts
//! take it at its time), so a finite flow whose last packet is dropped there ends at the
//! wake-up.
//!
//! **Ties.** Arrivals at the same instant from different pipes are taken in the order their
//! `Deliver` events would have run: the order in which those events would have been scheduled
//! (the heap runs an instant's events in that order). A packet's `Deliver` would have been
//! scheduled when it became its pipe's head with the events: when the packet before it arrived,
//! or, if that one had arrived already, when the packet entered the pipe, which an event-driven
//! link does when its serialization starts (its arrival less the link's delay and its
//! serialization). So a head is ordered by its arrival, then that time (`born`), then the count
//! of heads when the router made it one. Ordering by the count alone (the first rule here)
//! ranked a packet that entered its pipe after the packet before it had arrived, but before the
//! router took that one, as if it had been the head since that arrival: with a wake-up of up to
//! 10 ms in the Data Center, whose 1 Gb/s links make 26 % of the arrivals at A tie, drops moved
//! from the 100 us sender's flows to the others' (New Reno, 90 flows, 20 seeds: median
//! throughput per flow 11.75 Mb/s against 11.14 with the events; with `born`, 11.15, and the
//! trace of every arrival at A the same as the events' for 20 s). On the access link (wake-ups
//! of 2 ms) the flows of the sender with no delay had 39.5 Mb/s against 35.2 with the events
//! (9 Reno flows, 100 s, 30 seeds: t = 4.5); with `born`, 38.6, as with eager links alone
//! (37.9, routers taking their arrivals at their events): what is left is the eager links',
//! whose hops decided ahead schedule their `Deliver` when they are decided (`net::link`), and a
//! tie between a packet entering an empty pipe and one the router makes a head at the same
//! instant, which the count orders by when the router made them (docs/PERFORMANCE.md, part 11).
//! With `tie_break = "random"` the heap orders an instant's events by a key it draws when each is
//! scheduled, so a head ranks by a draw made when it is made (`Sim::tie_rank`, from a stream of
//! its own: the heap's draws stay the heap's), in place of `born` and the count: ranked as FIFO
//! would rank them, two sources in step kept the order of their first tie for the whole run
//! (each pipe's next head is made as its previous one is taken), one of them taking every
//! place the bottleneck freed (`tests/eager_links.rs`).
//! A run whose only ties are between a router's pipes is the run of the events, table for table
//! (seed 002's Reno flows against ns-2, whose hosts send in step, and whose order of ties taken
//! by link gave 466 timeouts against 285, seed 1). What a wake-up schedules follows the events
//! scheduled for the same instant before it, which the events it replaces preceded: as for
//! eager links, `tests/eager_links.rs` shows the distributions over 20 seeds unchanged where
//! such ties decide drops; `departure_events = true` turns it off.
//!
//! **A link quiet until a time** (CoDel's, `net::link`) knows a packet's departure at its arrival
//! only up to that time; a packet it holds waits for a `TxDone` when its transmitter is free.
//! So its slack is zero: the wake-up is no later than the later of the earliest waiting arrival
//! and the time its transmitter is free, which only grows. An arrival taken at a wake-up later
//! than itself then finds the transmitter busy past the wake-up (it is the transmitter that set
//! the wake-up), so what it sends, and the `TxDone` of a packet held, come no sooner than the
//! wake-up; and that `TxDone` takes every router's due arrivals first (they join the held
//! packets), as a sample does.
//!
//! A router takes its arrivals late only if a wake-up could take at least two full-size
//! packets from its fastest pipe (`MIN_BATCH`) with every out-link's buffer full, a backlog
//! counted only on links that carry data (a TCP flow's or a source's): where the out-links have
//! no delay and carry only ACKs (the seed 000 data center's B), a wake-up would take one arrival
//! and cost more than its event.

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
    /// Its out-links, each with its delay plus the serialization of one byte there: what
    /// taking an arrival sends on reaches the next node no sooner than that after the arrival
    /// or after the link's transmitter is free, whichever is later.
    outs: Vec<(u32, Dur)>,
    /// Its wake-up (`Sim::arm_router`).
    wake: TimerSlot,
}

/// A late router's pipe's head (`Sim::late_heads`): its arrival (NEVER: the pipe is empty),
/// when its `Deliver` would have been scheduled with the events (`Sim::born`), and the count of
/// heads when the router made it one; with random ties, 0 and a draw (module docs, "ties").
pub(super) type Head = (u64, u64, u64);
const NO_HEAD: Head = (u64::MAX, u64::MAX, u64::MAX);

#[inline(always)]
pub(super) fn head(at: Time, born: Time, order: u64) -> Head {
    (at.ns(), born.ns(), order)
}

/// The rank past every head that arrives by `t`: taking the heads before it takes every
/// arrival due by `t`.
#[inline(always)]
fn due_by(t: Time) -> Head {
    head(t, Time::NEVER, u64::MAX)
}

#[inline(always)]
fn head_time(h: Head) -> Time {
    Time::from_ns(h.0)
}

/// `Sim::born` of link `link`'s pipe head `p`.
#[inline(always)]
fn born_of(link: &crate::net::link::Link, p: crate::net::link::Piped, prev: Time) -> Time {
    let start = Time::from_ns(p.at.ns().saturating_sub((link.delay + link.tx_time_of(p.size)).ns()));
    start.max(prev)
}

/// A router takes its arrivals late if its slack may hold this many full-size packets
/// (`FULL_SIZE` bytes) from its fastest pipe.
const MIN_BATCH: u64 = 2;
const FULL_SIZE: u32 = 1500;

impl Sim {
    /// The routers that take their arrivals late (module docs): no host, every link out of it
    /// eager, deciding at arrival or quiet until a time, every link into it delivering each packet at a time known when the packet enters
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
                let l = self.slots[k].link as usize;
                fills[l] |= k + 1 == (r.base + r.len) as usize || !self.slots[k].next_fused;
                taken[l] |= !self.is_fused(k);
            }
        }
        // the links that carry data (a TCP flow's or an unresponsive source's), where a queue
        // may build; not those that carry only ACKs
        let mut data = vec![false; links.len()];
        for r in self.flows.iter().map(|f| f.route[0]).chain(self.udp.iter().map(|u| u.route)) {
            for k in r.slots() {
                data[self.slots[k].link as usize] = true;
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
            // (a link with a schedule of rate or delay changes feeds none: the rank of its
            // pipe's head, `born_of`, takes its rate and delay as every packet's)
            if !out[n].iter().all(|&l| links[l].eager || links[l].decides || links[l].quiet) || !into[n].iter().all(|&l| links[l].may_feed_ahead() && !links[l].steps()) {
                continue;
            }
            // (a link quiet until a time has no slack past its transmitter: a packet it holds
            // may need a `TxDone` as soon as that is free; the others' least delay and highest
            // rate: a jitter centred below zero, netem's Pareto ones, brings a packet in up to
            // 1.5 jitters before the link's delay, `Link::best_rate_delay`)
            let slack = |l: usize| {
                let (rate, delay) = links[l].best_rate_delay();
                delay + rate.tx_time(1)
            };
            let outs: Vec<(u32, Dur)> = out[n].iter().map(|&l| (l as u32, if links[l].quiet { Dur::ZERO } else { slack(l) })).collect();
            // the slack a wake-up may have: the out-links' buffers full where data may fill them
            let backlog = |l: usize| if data[l] { links[l].longest_backlog(FULL_SIZE) } else { Dur::ZERO };
            let room = outs.iter().map(|&(l, c)| c + backlog(l as usize)).min().expect("a link out");
            let full = into[n].iter().map(|&l| links[l].rate.tx_time(FULL_SIZE)).min().expect("a link in");
            if room.ns() < MIN_BATCH * full.ns() {
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
            self.late.push(LateRouter { feeders: (end - into[n].len() as u32, end), outs, wake: TimerSlot::IDLE });
        }
    }

    /// Link `l`'s pipe has a new head, arriving at `t`: its `Deliver`, or its router's wake-up
    /// no later than what the router sends after taking it could reach a next node.
    #[inline(always)]
    pub(super) fn deliver_at(&mut self, l: usize, t: Time) {
        match self.topo.links[l].late_to {
            (NOT_LATE, _) => self.sched.schedule(t, Event::Deliver(l as u32)),
            (r, k) => {
                let (born, rank) = self.tie_rank(l, Time::ZERO);
                self.late_heads[k as usize] = head(t, born, rank);
                self.arm_router(r as usize, t);
            }
        }
    }

    /// Router `r`'s earliest waiting arrival is at `head`: its wake-up no later than the
    /// earliest time what it sends could reach a next node (module docs, "the slack").
    #[inline]
    fn arm_router(&mut self, r: usize, head: Time) {
        let mut wake = Time::NEVER;
        for &(l, c) in &self.late[r].outs {
            wake = wake.min(self.topo.links[l as usize].busy_until().max(head) + c);
        }
        self.late[r].wake.arm(&mut self.sched, wake, Event::Router(r as u32));
    }

    /// How link `l`'s new pipe head ranks among arrivals of its instant (module docs, "ties"):
    /// when its `Deliver` would have been scheduled (`prev`: the arrival of the packet before
    /// it) and the count of heads; with `tie_break = "random"`, a draw instead, as the heap's
    /// key of that `Deliver` would have been.
    #[inline(always)]
    fn tie_rank(&mut self, l: usize, prev: Time) -> (Time, u64) {
        self.late_order += 1;
        if self.late_random.is_some() {
            return self.tie_draw();
        }
        (self.born(l, prev), self.late_order)
    }

    #[cold]
    #[inline(never)]
    fn tie_draw(&mut self) -> (Time, u64) {
        (Time::ZERO, self.late_random.as_mut().expect("random ties").next_u64())
    }

    /// When the `Deliver` of link `l`'s pipe head would have been scheduled with the events:
    /// when it starts its serialization (an event-driven link puts it in its pipe then), or
    /// when the packet before it in the pipe arrives (`prev`), whichever is later (on a link
    /// with jitter, the start it gives is later by the jitter drawn).
    fn born(&self, l: usize, prev: Time) -> Time {
        let link = &self.topo.links[l];
        born_of(link, link.pipe_front().expect("a head"), prev)
    }

    /// Router `r`'s wake-up: take its arrivals due by `now`, and wake up again for the next.
    pub(super) fn on_router(&mut self, now: Time, r: usize) {
        if !self.late[r].wake.fire(now) {
            return; // an entry an earlier one superseded
        }
        let (a, b) = self.late[r].feeders;
        if let Some(next) = self.take_late(due_by(now), a as usize..b as usize) {
            self.arm_router(r, next);
        }
    }

    /// Take the arrivals due by `t` at every router that takes them late: before anything reads
    /// the links. Router by router: what one sends on reaches the next no sooner than `t` (what
    /// an arrival still waiting sends reaches a next node no sooner than its router's wake-up,
    /// which is not before `t`, or it would have run), so another pass only takes arrivals at
    /// `t` itself.
    pub(super) fn take_all_late(&mut self, t: Time) {
        self.take_all_late_before(due_by(t));
    }

    /// `take_all_late` of the arrivals whose heads rank before `limit` (`Head`): at an instant,
    /// those whose `Deliver` would have been scheduled before an event of that instant
    /// scheduled at `limit`'s `born`, which the events would have run after them.
    pub(super) fn take_all_late_before(&mut self, limit: Head) {
        loop {
            for r in 0..self.late.len() {
                let (a, b) = self.late[r].feeders;
                self.take_late(limit, a as usize..b as usize);
            }
            if self.late_heads.iter().all(|&h| h >= limit) {
                return;
            }
        }
    }

    /// Take the arrivals whose heads rank before `limit` (`due_by(t)`: every arrival due by
    /// `t`) from the pipes of `feeders` (a range of `late_feeders`), in time order (at the same
    /// instant, in the order the heads became heads: `Head`); the earliest arrival left, if any.
    fn take_late(&mut self, limit: Head, feeders: std::ops::Range<usize>) -> Option<Time> {
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
            if first >= limit {
                let at = head_time(first);
                return (at < Time::NEVER).then_some(at);
            }
            // its pipe's packets up to the other pipes' earliest
            loop {
                let next = self.take(head_time(first), from);
                if next < other && next < limit {
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
        let l = self.late_feeders[k] as usize;
        let link = &mut self.topo.links[l];
        if link.eager && !link.late_from {
            // to keep its rings short, as a delivery does; not a link out of a router that takes
            // its arrivals late too (a graph's routers in a row): that router may still take an
            // arrival before `at`, which must find the link's queue as of its own time
            link.settle_some(at, &mut self.slots);
        }
        let id = link.take_head();
        let node = link.to;
        // the new head's rank (`tie_rank`, from the link in hand)
        let next = match link.pipe_front() {
            None => NO_HEAD,
            Some(p) => {
                self.late_order += 1;
                match self.late_random.is_some() {
                    false => head(p.at, born_of(link, p, at), self.late_order),
                    true => {
                        let (born, rank) = self.tie_draw();
                        head(p.at, born, rank)
                    }
                }
            }
        };
        self.late_heads[k] = next;
        // `arrive`'s router branch, written out: called through `arrive` (whose endpoint branch
        // this never takes) the compiler inlines `arrive` and `forward_at` otherwise, and seed
        // 000's runs execute 2 % more instructions (docs/PERFORMANCE.md, part 13)
        let p = self.arena.get_mut(id);
        debug_assert_ne!(p.dst, node, "a router that takes its arrivals late is no host");
        p.hop += 1;
        let (h, size) = (p.hop as usize, p.size_bytes);
        self.forward_at(at, node, id, h, size);
        next
    }
}
