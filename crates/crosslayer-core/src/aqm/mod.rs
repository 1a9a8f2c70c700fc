//! Queue disciplines (the egress queue of a link) and the accounting shared by all of them.
//!
//! Contract (`QueueDisc`): `enqueue` decides about an arriving packet - enqueue it, mark it (set CE
//! and enqueue), or drop it - and may also push out packets already queued (CHOKe, FQ-CoDel);
//! `dequeue` returns the next packet to transmit and may drop packets at the head first (CoDel,
//! PIE's dequeue-side variants). A discipline never frees packets itself: it reports every
//! discarded queued packet with `QdiscCtx::drop_queued` and returns `Verdict::Dropped` for the
//! arriving one, so `Queue` counts drops per reason in one place and keeps the identities
//!
//! * arrivals = enqueued + dropped before enqueue
//! * backlog  = enqueued - dequeued - dropped from the queue
//!
//! Every packet carries its enqueue time (`Packet::enq_time`) for sojourn-based disciplines.
//! Dispatch is static: `Qdisc` is an enum over the concrete disciplines.

pub mod droptail;

use crate::metrics::{LogHistogram, TimeAverage};
use crate::net::packet::{Ecn, PacketArena, PacketId};
use crate::rng::Rng;
use crate::units::Time;
use serde::{Deserialize, Serialize};

pub use droptail::{DropTail, DropTailConfig};

/// Why a packet was discarded by a queue discipline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// No room: the limit in packets or bytes was reached.
    Overflow,
    /// Early (probabilistic or control-law) drop of an arriving packet.
    Aqm,
    /// Dropped from the head at dequeue time (CoDel's control law).
    Head,
    /// A packet already queued was pushed out to make room or as a penalty (CHOKe, FQ-CoDel).
    PushOut,
}

/// Result of `QueueDisc::enqueue` for the arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueued,
    /// ECN-marked (CE) and enqueued.
    Marked,
    Dropped(DropReason),
}

/// What a discipline may touch while deciding.
pub struct QdiscCtx<'a> {
    pub now: Time,
    pub arena: &'a mut PacketArena,
    /// The discipline's own random stream.
    pub rng: &'a mut Rng,
    /// Queued packets discarded during this call; the link frees them and counts them per flow.
    pub dropped: &'a mut Vec<(PacketId, DropReason)>,
}

impl QdiscCtx<'_> {
    /// Report a packet that was in the queue and is now discarded.
    #[inline]
    pub fn drop_queued(&mut self, id: PacketId, reason: DropReason) {
        self.dropped.push((id, reason));
    }

    /// Set CE on an ECN-capable packet; returns false (and leaves it alone) if it is not ECT.
    #[inline]
    pub fn mark(&mut self, id: PacketId) -> bool {
        let p = self.arena.get_mut(id);
        if p.ecn.is_ect() {
            p.ecn = Ecn::Ce;
            true
        } else {
            false
        }
    }
}

/// The queue-discipline contract. Implementations keep their own backlog counts.
pub trait QueueDisc {
    /// Decide about the arriving packet `id`. On `Enqueued`/`Marked` the packet is now owned by
    /// the discipline; on `Dropped` the caller frees it.
    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict;
    /// Next packet to transmit, after any head drops (reported through `ctx`).
    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId>;
    /// Packets queued.
    fn len_pkts(&self) -> u32;
    /// Bytes queued (sizes on the wire).
    fn len_bytes(&self) -> u64;
}

/// Configuration of a queue discipline, as given in a scenario (`kind` selects the variant).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QdiscConfig {
    Droptail(DropTailConfig),
}

impl QdiscConfig {
    /// Check parameters; the error names the field and the fix.
    pub fn validate(&self, path: &str) -> Result<(), String> {
        match self {
            QdiscConfig::Droptail(c) => c.validate(path),
        }
    }
}

/// Static dispatch over the implemented disciplines.
#[derive(Debug)]
pub enum Qdisc {
    DropTail(DropTail),
}

impl Qdisc {
    pub fn new(cfg: &QdiscConfig) -> Qdisc {
        match cfg {
            QdiscConfig::Droptail(c) => Qdisc::DropTail(DropTail::new(c)),
        }
    }

    #[inline]
    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        match self {
            Qdisc::DropTail(q) => q.enqueue(id, ctx),
        }
    }

    #[inline]
    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        match self {
            Qdisc::DropTail(q) => q.dequeue(ctx),
        }
    }

    #[inline]
    pub fn len_pkts(&self) -> u32 {
        match self {
            Qdisc::DropTail(q) => q.len_pkts(),
        }
    }

    #[inline]
    pub fn len_bytes(&self) -> u64 {
        match self {
            Qdisc::DropTail(q) => q.len_bytes(),
        }
    }
}

/// Monotonic counters of a queue; measurement windows are differences of two snapshots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueCounters {
    pub arrivals: u64,
    pub enqueued: u64,
    pub dequeued: u64,
    pub dequeued_bytes: u64,
    /// Arriving packets dropped because the queue was full.
    pub drops_overflow: u64,
    /// Arriving packets dropped early by the AQM.
    pub drops_aqm: u64,
    /// Queued packets dropped at the head at dequeue time.
    pub drops_head: u64,
    /// Queued packets pushed out.
    pub drops_pushout: u64,
    /// Packets CE-marked instead of dropped.
    pub marks: u64,
}

impl QueueCounters {
    pub fn dropped_before_enqueue(&self) -> u64 {
        self.drops_overflow + self.drops_aqm
    }
    pub fn dropped_from_queue(&self) -> u64 {
        self.drops_head + self.drops_pushout
    }
    pub fn drops(&self) -> u64 {
        self.dropped_before_enqueue() + self.dropped_from_queue()
    }
    pub fn minus(&self, o: &QueueCounters) -> QueueCounters {
        QueueCounters {
            arrivals: self.arrivals - o.arrivals,
            enqueued: self.enqueued - o.enqueued,
            dequeued: self.dequeued - o.dequeued,
            dequeued_bytes: self.dequeued_bytes - o.dequeued_bytes,
            drops_overflow: self.drops_overflow - o.drops_overflow,
            drops_aqm: self.drops_aqm - o.drops_aqm,
            drops_head: self.drops_head - o.drops_head,
            drops_pushout: self.drops_pushout - o.drops_pushout,
            marks: self.marks - o.marks,
        }
    }
    fn count_drop(&mut self, r: DropReason) {
        match r {
            DropReason::Overflow => self.drops_overflow += 1,
            DropReason::Aqm => self.drops_aqm += 1,
            DropReason::Head => self.drops_head += 1,
            DropReason::PushOut => self.drops_pushout += 1,
        }
    }
}

/// A discipline plus its accounting: counters, exact time-averaged backlog, sojourn histogram.
#[derive(Debug)]
pub struct Queue {
    pub qdisc: Qdisc,
    rng: Rng,
    pub counters: QueueCounters,
    /// Counters at the start of the measurement window.
    pub window_start: QueueCounters,
    pub backlog_pkts: TimeAverage,
    pub backlog_bytes: TimeAverage,
    /// Sojourn time (dequeue - enqueue) of dequeued packets in the window, ns.
    pub sojourn: LogHistogram,
}

impl Queue {
    pub fn new(cfg: &QdiscConfig, rng: Rng) -> Queue {
        Queue {
            qdisc: Qdisc::new(cfg),
            rng,
            counters: QueueCounters::default(),
            window_start: QueueCounters::default(),
            backlog_pkts: TimeAverage::new(Time::ZERO, 0),
            backlog_bytes: TimeAverage::new(Time::ZERO, 0),
            sojourn: LogHistogram::new(),
        }
    }

    #[inline]
    fn note_backlog(&mut self, now: Time) {
        self.backlog_pkts.set(now, self.qdisc.len_pkts() as u64);
        self.backlog_bytes.set(now, self.qdisc.len_bytes());
    }

    /// Offer an arriving packet. Returns false if the arriving packet was dropped (the caller
    /// frees it). Queued packets discarded on the way are appended to `dropped`.
    #[inline]
    pub fn enqueue(
        &mut self,
        id: PacketId,
        now: Time,
        arena: &mut PacketArena,
        dropped: &mut Vec<(PacketId, DropReason)>,
    ) -> bool {
        self.counters.arrivals += 1;
        arena.get_mut(id).enq_time = now;
        let first_drop = dropped.len();
        let verdict = {
            let mut ctx = QdiscCtx { now, arena, rng: &mut self.rng, dropped };
            self.qdisc.enqueue(id, &mut ctx)
        };
        for &(_, r) in &dropped[first_drop..] {
            self.counters.count_drop(r);
        }
        let accepted = match verdict {
            Verdict::Enqueued => true,
            Verdict::Marked => {
                self.counters.marks += 1;
                true
            }
            Verdict::Dropped(r) => {
                debug_assert!(matches!(r, DropReason::Overflow | DropReason::Aqm));
                self.counters.count_drop(r);
                false
            }
        };
        if accepted {
            self.counters.enqueued += 1;
        }
        self.note_backlog(now);
        accepted
    }

    /// Next packet to send, if any; head drops go to `dropped`.
    #[inline]
    pub fn dequeue(
        &mut self,
        now: Time,
        arena: &mut PacketArena,
        dropped: &mut Vec<(PacketId, DropReason)>,
    ) -> Option<PacketId> {
        let first_drop = dropped.len();
        let out = {
            let mut ctx = QdiscCtx { now, arena: &mut *arena, rng: &mut self.rng, dropped };
            self.qdisc.dequeue(&mut ctx)
        };
        for &(_, r) in &dropped[first_drop..] {
            self.counters.count_drop(r);
        }
        if let Some(id) = out {
            let p = arena.get(id);
            self.counters.dequeued += 1;
            self.counters.dequeued_bytes += p.size_bytes as u64;
            self.sojourn.record(now.0 - p.enq_time.0);
        }
        self.note_backlog(now);
        out
    }

    /// Start the measurement window at `now`.
    pub fn start_window(&mut self, now: Time) {
        self.window_start = self.counters;
        self.backlog_pkts.reset(now);
        self.backlog_bytes.reset(now);
        self.sojourn.clear();
    }

    /// Counters over the measurement window.
    pub fn window(&self) -> QueueCounters {
        self.counters.minus(&self.window_start)
    }

    /// Check the queue identities over the whole run; `Err` describes the violation.
    pub fn check_identities(&self) -> Result<(), String> {
        let c = &self.counters;
        if c.arrivals != c.enqueued + c.dropped_before_enqueue() {
            return Err(format!(
                "arrivals {} != enqueued {} + dropped before enqueue {}",
                c.arrivals,
                c.enqueued,
                c.dropped_before_enqueue()
            ));
        }
        let backlog = self.qdisc.len_pkts() as u64;
        if backlog + c.dequeued + c.dropped_from_queue() != c.enqueued {
            return Err(format!(
                "backlog {} != enqueued {} - dequeued {} - dropped from queue {}",
                backlog,
                c.enqueued,
                c.dequeued,
                c.dropped_from_queue()
            ));
        }
        Ok(())
    }
}
