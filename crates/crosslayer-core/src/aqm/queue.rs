//! `Queue`: a link's discipline with the accounting every discipline shares - counters,
//! drops and marks per reason, the backlog the engine counts (checked against the
//! discipline's own at the end of every run), its exact time average, the sojourn histogram,
//! the packets marked since the engine last took them, and the discipline's timer slot.

use super::{Accounting, Qdisc, QdiscConfig, QdiscCtx, QdiscEnv, QueueCounters, ReasonCounts, Verdict};
use crate::metrics::{Counters, LogHistogram, TimeAverage};
use crate::packet::{PacketArena, PacketId};
use crate::rng::Rng;
use crate::sched::TimerSlot;
use crate::units::Time;

/// A discipline plus its accounting: counters, per-reason drops and marks, the backlog, its
/// exact time average, the sojourn histogram, and the discipline's timer slot.
#[derive(Debug)]
pub struct Queue {
    pub qdisc: Qdisc,
    acct: Accounting,
    /// The discipline declares a timer (`QueueDisc::TIMER`).
    uses_timer: bool,
    /// Snapshots at the start of the measurement window.
    pub at_warmup: (QueueCounters, ReasonCounts, Vec<u64>),
    /// The backlog's time averages: packets (signal 0) and bytes (1).
    pub backlog: TimeAverage<2>,
    /// Sojourn time (dequeue - enqueue) of dequeued packets in the window, ns.
    pub sojourn: LogHistogram,
    /// Sojourn times since the last sample of the series: (sum ns, count, max ns).
    sojourn_since_sample: (u64, u64, u64),
    /// The discipline's timer (one scheduler entry per queue).
    pub timer: TimerSlot,
    /// When the engine last scheduled that timer (a link whose discipline decides at arrival
    /// re-arms it only when it fires: `Sim::on_qdisc_timer`).
    pub timer_set: Time,
    /// The link keeps this FIFO's accounting itself (`bypass`).
    bypassed: bool,
    /// Packets that passed through in no time (`pass_fifo`) and their bytes, not yet counted
    /// (`fold_passes`).
    passed: (u64, u64),
    /// A discipline quiet until a time (`QueueDisc::quiet_until`): the packets queued, and
    /// their bytes, whose departures the link knows and the discipline no longer holds.
    told: (u32, u64),
    /// The discipline is told of the arrivals it does not hold (`QueueDisc::OBSERVES`).
    observes: bool,
}

impl Queue {
    pub fn new(cfg: &QdiscConfig, env: &QdiscEnv, rng: Rng) -> Queue {
        let qdisc = Qdisc::new(cfg, env);
        let n_stats = qdisc.stat_fields().len();
        let qdisc_observes = qdisc.observes();
        Queue {
            uses_timer: qdisc.uses_timer(),
            qdisc,
            acct: Accounting { rng, counters: QueueCounters::default(), reasons: ReasonCounts::default(), backlog_pkts: 0, backlog_bytes: 0, marked: Vec::new() },
            at_warmup: (QueueCounters::default(), ReasonCounts::default(), vec![0; n_stats]),
            backlog: TimeAverage::new(Time::ZERO, [0, 0]),
            sojourn: LogHistogram::new(),
            sojourn_since_sample: (0, 0, 0),
            timer: TimerSlot::IDLE,
            timer_set: Time::ZERO,
            bypassed: false,
            passed: (0, 0),
            told: (0, 0),
            observes: qdisc_observes,
        }
    }

    /// Monotonic counters over the whole run.
    pub fn counters(&self) -> &QueueCounters {
        &self.acct.counters
    }

    /// Whether packets were CE-marked since the marks were last taken.
    #[inline]
    pub fn has_marks(&self) -> bool {
        !self.acct.marked.is_empty()
    }

    /// The packets CE-marked since the last time, taken: the engine counts them against their
    /// flows after every call into the queue (a user of `Queue` that does not take them keeps
    /// at most one entry per mark).
    #[inline]
    pub fn drain_marks(&mut self) -> std::vec::Drain<'_, PacketId> {
        self.acct.marked.drain(..)
    }

    /// Drops and marks per reason over the whole run.
    pub fn reasons(&self) -> &ReasonCounts {
        &self.acct.reasons
    }

    /// Packets queued.
    #[inline]
    pub fn len_pkts(&self) -> u32 {
        self.acct.backlog_pkts
    }

    /// Bytes queued (wire sizes).
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.acct.backlog_bytes
    }

    /// When the discipline's timer should fire (`Time::NEVER` if it has none).
    #[inline]
    pub fn next_timer(&self) -> Time {
        if self.uses_timer {
            self.qdisc.next_timer()
        } else {
            Time::NEVER
        }
    }

    #[inline]
    fn note_backlog(&mut self, now: Time) {
        self.backlog.set(now, [self.acct.backlog_pkts as u64, self.acct.backlog_bytes]);
    }

    /// Offer an arriving packet. Returns false if the arriving packet was dropped (the caller
    /// frees it). Queued packets discarded on the way are appended to `dropped`.
    #[inline]
    pub fn enqueue(&mut self, id: PacketId, now: Time, arena: &mut PacketArena, dropped: &mut Vec<PacketId>) -> bool {
        self.acct.counters.arrivals += 1;
        let p = arena.get_mut(id);
        p.enq_time = now;
        let size = p.size_bytes as u64;
        let verdict = self.qdisc.enqueue(id, &mut QdiscCtx { now, arena, acct: &mut self.acct, dropped });
        self.count_verdict(now, size, verdict)
    }

    /// The discipline's verdict on an arrival of `size` bytes, counted (its drop reason, then
    /// `count_arrival`): whether it is queued.
    #[inline(always)]
    fn count_verdict(&mut self, now: Time, size: u64, verdict: Verdict) -> bool {
        let accepted = match verdict {
            Verdict::Enqueued => true,
            Verdict::Dropped(r) => {
                self.acct.reasons.drops[r as usize] += 1;
                false
            }
        };
        self.count_arrival(now, size, accepted);
        accepted
    }

    /// An arrival of `size` bytes, queued or dropped (the discipline's reason counted by the
    /// caller): what `enqueue` and `arrive_fifo` both count.
    #[inline(always)]
    fn count_arrival(&mut self, now: Time, size: u64, queued: bool) {
        let a = &mut self.acct;
        if queued {
            a.counters.enqueued += 1;
            a.backlog_pkts += 1;
            a.backlog_bytes += size;
        } else {
            a.counters.drops_arrival += 1;
        }
        self.note_backlog(now);
    }

    /// A departure at `now` of `size` bytes queued at `enqueued`: what `dequeue` and
    /// `depart_fifo` both count (`note_backlog` is the caller's).
    #[inline(always)]
    fn count_departure(&mut self, now: Time, size: u64, enqueued: Time) {
        let a = &mut self.acct;
        a.counters.dequeued += 1;
        a.counters.dequeued_bytes += size;
        a.backlog_pkts -= 1;
        a.backlog_bytes -= size;
        let sojourn_ns = now.after(enqueued).ns();
        self.sojourn.record(sojourn_ns);
        let s = &mut self.sojourn_since_sample;
        *s = (s.0.saturating_add(sojourn_ns), s.1 + 1, s.2.max(sojourn_ns));
    }

    /// The link applies the discipline's FIFO rule itself and keeps the accounting through
    /// `arrive_fifo` and `depart_fifo` (a link that knows departures at arrival, `net::link`):
    /// the discipline then holds nothing.
    pub fn bypass(&mut self) {
        debug_assert!((self.qdisc.fifo_at_arrival() || self.qdisc.decides_at_arrival()) && self.acct.counters.arrivals == 0);
        self.bypassed = true;
        self.qdisc.bypass();
    }

    /// A bypassed FIFO: a packet of `size` bytes arrives at `now`; it fits if fewer than
    /// `limit_pkts` are queued and the bytes stay within `limit_bytes` (DropTail's rule).
    /// Counted as `enqueue` counts; returns whether it fits.
    #[inline]
    pub fn arrive_fifo(&mut self, now: Time, size: u32, limit_pkts: u32, limit_bytes: u64) -> bool {
        debug_assert!(self.bypassed);
        let a = &mut self.acct;
        a.counters.arrivals += 1;
        let fits = a.backlog_pkts < limit_pkts && a.backlog_bytes + size as u64 <= limit_bytes;
        a.reasons.drops[0] += !fits as u64;
        self.count_arrival(now, size as u64, fits);
        fits
    }

    /// A bypassed FIFO: the packet of `size` bytes queued at `enqueued` leaves at `now`.
    /// Counted as `dequeue` counts.
    #[inline]
    pub fn depart_fifo(&mut self, now: Time, size: u32, enqueued: Time) {
        debug_assert!(self.bypassed);
        self.count_departure(now, size as u64, enqueued);
        self.note_backlog(now);
    }

    /// A bypassed discipline that decides at arrival (`QueueDisc::DECIDES_AT_ARRIVAL`): packet
    /// `id` of `size` bytes arrives at `now` and the discipline decides, from the backlog the queue counts, whether
    /// it is queued (and may mark it: `has_marks`); it keeps nothing. Counted as `enqueue`
    /// counts; returns whether it is queued.
    pub fn arrive_deciding(&mut self, now: Time, id: PacketId, size: u32, arena: &mut PacketArena, dropped: &mut Vec<PacketId>) -> bool {
        debug_assert!(self.bypassed && dropped.is_empty() && arena.get(id).size_bytes == size);
        self.acct.counters.arrivals += 1;
        let backlog = (self.acct.backlog_pkts, self.acct.backlog_bytes);
        let verdict = self.qdisc.decide(id, backlog, &mut QdiscCtx { now, arena, acct: &mut self.acct, dropped });
        debug_assert!(dropped.is_empty(), "a discipline that decides at arrival drops nothing queued");
        self.count_verdict(now, size as u64, verdict)
    }

    /// A bypassed discipline that decides at arrival, or one quiet until a time: the packet of
    /// `size` bytes queued at `enqueued` leaves at `now`, counted as `dequeue` counts, and the
    /// discipline records it as its `dequeue` would (`QueueDisc::departed`).
    #[inline(never)]
    pub fn depart_deciding(&mut self, now: Time, size: u32, enqueued: Time) {
        let before = self.acct.backlog_bytes;
        self.count_departure(now, size as u64, enqueued);
        self.note_backlog(now);
        if !self.bypassed {
            self.told = (self.told.0 - 1, self.told.1 - size as u64);
        }
        self.qdisc.departed(now, size, enqueued, before, self.acct.backlog_bytes);
    }

    /// A discipline quiet until a time (`QueueDisc::quiet_until`, `net::link`): packet `id` of
    /// `size` bytes arrives at `now`; it fits if fewer than the discipline's `fifo_limits`
    /// (`limits`) packets are queued and the bytes stay within them (what its `enqueue` decides, counted
    /// over every packet queued, those it holds and those whose departures the link knows).
    /// If it fits and `held`, the discipline holds it (it decides at its dequeue); else the
    /// link knows its departure and the queue counts it (`told`). Counted as `enqueue`
    /// counts; returns whether it fits.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn arrive_quiet(&mut self, now: Time, id: PacketId, size: u32, (limit_pkts, limit_bytes): (u32, u64), held: bool, arena: &mut PacketArena, dropped: &mut Vec<PacketId>) -> bool {
        debug_assert!(!self.bypassed && arena.get(id).size_bytes == size && (limit_pkts, limit_bytes) == self.qdisc.fifo_limits());
        let a = &mut self.acct;
        a.counters.arrivals += 1;
        let fits = a.backlog_pkts < limit_pkts && a.backlog_bytes + size as u64 <= limit_bytes;
        a.reasons.drops[0] += !fits as u64;
        if fits && held {
            arena.get_mut(id).enq_time = now;
            let verdict = self.qdisc.enqueue(id, &mut QdiscCtx { now, arena, acct: &mut self.acct, dropped });
            debug_assert!(verdict == Verdict::Enqueued && dropped.is_empty(), "a discipline quiet until a time decides at arrival only by its limits");
        } else {
            if self.observes {
                self.qdisc.observe(arena.get(id));
            }
            if fits {
                self.told = (self.told.0 + 1, self.told.1 + size as u64);
            }
        }
        self.count_arrival(now, size as u64, fits);
        fits
    }

    /// A discipline quiet until a time: its head packet leaves it without a decision, its
    /// departure now known to the link (which tells it through `depart_deciding` at its time).
    pub fn take_head(&mut self, now: Time, arena: &mut PacketArena, dropped: &mut Vec<PacketId>) -> Option<PacketId> {
        let id = self.qdisc.take_head(&mut QdiscCtx { now, arena: &mut *arena, acct: &mut self.acct, dropped })?;
        self.told = (self.told.0 + 1, self.told.1 + arena.get(id).size_bytes as u64);
        Some(id)
    }

    /// A discipline quiet until a time: packets queued whose departures the link knows.
    #[inline]
    pub fn told_pkts(&self) -> u32 {
        self.told.0
    }

    /// A bypassed FIFO, empty, with its transmitter idle: a packet of `size` bytes arrives and
    /// leaves at once. Counted as `arrive_fifo` then `depart_fifo` at the same instant count it:
    /// the backlog goes 0 -> 1 -> 0 with no time between, so its time averages take nothing
    /// (they integrate the backlog, 0, only between changes) and its sojourn is 0.
    /// Such packets are only summed here; `fold_passes` counts them, before anything reads the
    /// queue's counters or sojourns (`Link::settle_all`).
    #[inline(always)]
    pub fn pass_fifo(&mut self, size: u32) {
        debug_assert!(self.bypassed && self.acct.backlog_pkts == 0 && self.backlog.value() == [0, 0]);
        self.passed.0 += 1;
        self.passed.1 += size as u64;
    }

    /// Count the packets that passed through since the last call (`pass_fifo`), as their
    /// arrivals and departures would have been counted: returns (packets, bytes).
    pub fn fold_passes(&mut self) -> (u64, u64) {
        let (n, bytes) = std::mem::take(&mut self.passed);
        let c = &mut self.acct.counters;
        c.arrivals += n;
        c.enqueued += n;
        c.dequeued += n;
        c.dequeued_bytes += bytes;
        self.sojourn.record_zeros(n);
        self.sojourn_since_sample.1 += n;
        (n, bytes)
    }

    /// Next packet to send, if any; head drops go to `dropped`.
    #[inline(always)]
    pub fn dequeue(&mut self, now: Time, arena: &mut PacketArena, dropped: &mut Vec<PacketId>) -> Option<PacketId> {
        let out = self.qdisc.dequeue(&mut QdiscCtx { now, arena: &mut *arena, acct: &mut self.acct, dropped });
        if let Some(id) = out {
            let p = arena.get(id);
            self.count_departure(now, p.size_bytes as u64, p.enq_time);
        }
        self.note_backlog(now);
        out
    }

    /// The discipline's timer fired at `now` (the caller checked it is the live entry).
    pub fn on_timer(&mut self, now: Time, arena: &mut PacketArena, dropped: &mut Vec<PacketId>) {
        if now < self.qdisc.next_timer() {
            return; // re-armed later since the entry was scheduled
        }
        self.qdisc.on_timer(&mut QdiscCtx { now, arena, acct: &mut self.acct, dropped });
        self.note_backlog(now);
    }

    /// The sojourn times of the packets dequeued since the last call: (sum ns, count, max ns);
    /// the next interval starts now (the series samples it).
    pub fn take_sojourn_since_sample(&mut self) -> (u64, u64, u64) {
        std::mem::take(&mut self.sojourn_since_sample)
    }

    /// Start the measurement window at `now`.
    pub fn start_measurement(&mut self, now: Time) {
        let mut stats = vec![0; self.qdisc.stat_fields().len()];
        self.qdisc.stats(&mut stats);
        self.at_warmup = (self.acct.counters, self.acct.reasons, stats);
        self.backlog.reset(now);
        self.sojourn.clear();
    }

    /// Counters over the measurement window.
    pub fn measured(&self) -> QueueCounters {
        self.acct.counters.minus(&self.at_warmup.0)
    }

    /// Drops and marks per reason over the measurement window.
    pub fn reasons_measured(&self) -> ReasonCounts {
        self.acct.reasons.minus(&self.at_warmup.1)
    }

    /// The discipline's own counters over the measurement window.
    pub fn stats_measured(&self) -> Vec<u64> {
        let mut now = vec![0; self.qdisc.stat_fields().len()];
        self.qdisc.stats(&mut now);
        now.iter().zip(&self.at_warmup.2).map(|(a, b)| a - b).collect()
    }

    /// Check the queue identities over the whole run; `Err` describes the violation.
    pub fn check_identities(&self) -> Result<(), String> {
        let c = &self.acct.counters;
        if c.arrivals != c.enqueued + c.drops_arrival {
            return Err(format!("arrivals {} != enqueued {} + dropped on arrival {}", c.arrivals, c.enqueued, c.drops_arrival));
        }
        // (a discipline quiet until a time holds all but those whose departures the link knows)
        let (pkts, bytes) = (self.qdisc.len_pkts() + self.told.0, self.qdisc.len_bytes() + self.told.1);
        if !self.bypassed && (pkts, bytes) != (self.acct.backlog_pkts, self.acct.backlog_bytes) {
            return Err(format!(
                "the discipline holds {pkts} packets ({bytes} bytes), the engine counted {} ({} bytes)",
                self.acct.backlog_pkts, self.acct.backlog_bytes
            ));
        }
        let backlog = self.acct.backlog_pkts as u64;
        if backlog + c.dequeued + c.drops_queued != c.enqueued {
            return Err(format!(
                "backlog {} != enqueued {} - dequeued {} - dropped from the queue {}",
                backlog, c.enqueued, c.dequeued, c.drops_queued
            ));
        }
        let per_reason: u64 = self.acct.reasons.drops.iter().sum();
        if per_reason != c.drops() {
            return Err(format!("drops per reason sum to {per_reason}, total drops {}", c.drops()));
        }
        Ok(())
    }
}

