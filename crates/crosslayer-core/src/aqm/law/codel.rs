//! The CoDel control law, written once for every discipline that uses it (CoDel; FQ-CoDel per
//! flow). As Linux's `include/net/codel.h` / `codel_impl.h`, the state is split into parameters
//! (`CodelParams`), per-queue variables (`CodelVars`) and statistics (`CodelStats`), and the
//! container supplies the queue: [`CodelVars::dequeue`] calls back to take the head packet.
//!
//! Source: RFC 8289 (Nichols, Jacobson, McGregor, Iyengar 2018), section 5 pseudocode; Nichols &
//! Jacobson, ACM Queue 10(5), 2012; Linux `codel_impl.h` read for behaviour (not copied).
//!
//! * A packet may be dropped (`ok_to_drop`) when its sojourn time has stayed at or above
//!   `target` for at least `interval` while more than one MTU is queued.
//! * Entering the dropping state drops (or CE-marks) one packet and schedules the next drop at
//!   `now + interval / sqrt(count)`; each further drop increments `count`, so the drop rate grows
//!   as sqrt(count) until the sojourn time falls below target.
//! * Re-entry (RFC 8289 section 5.5, Linux): if the dropping state is re-entered within
//!   16 intervals of the last scheduled drop and more than one drop happened since the last
//!   entry (`count - lastcount > 1`), `count` restarts at that difference instead of 1.
//!
//! * Flavour `Ns2` (sfqCoDel): the 2012 pseudocode as ns-2.35 codes it (see `CodelFlavor`).
//! * Hook (`CodelVars::dequeue_judged`): the container may choose, per packet the law would
//!   drop, to drop it for a reason of its own or to spare it (the fairness-oriented CoDel,
//!   `fair_codel.rs`); `dequeue` is that hook with every packet dropped.
//! * `ce_threshold` ([`CeThreshold`]; Linux `codel_impl.h`, in sch_codel and sch_fq_codel since
//!   Linux 4.2, its selector since 5.16): after the law has run, the packet about to be sent is
//!   CE-marked if its sojourn time is strictly above the threshold and, with a selector, its DS
//!   field (DSCP << 2 | ECN) ANDed with the mask equals the selector (`0x1/0x1`: ECT(1) and CE,
//!   the L4S identifier of RFC 9331). Independent of the law's state: a shallow step marking
//!   for data-centre and L4S senders. Only ECT(0) and ECT(1) packets are marked (a packet
//!   already CE is left alone and not counted again: Linux's `INET_ECN_set_ce` counts it in
//!   `ce_mark` a second time, ns-3's CoDel suppresses that double count too).
//!
//! Deliberate deviations:
//! * `interval / sqrt(count)` is computed exactly in floating point and truncated to the ns;
//!   Linux uses a fixed-point Newton iteration of 1/sqrt(count) (relative error below 1e-3 after
//!   a few steps).
//! * As Linux (and ns-3), a packet becomes droppable only strictly after `first_above_time`; the
//!   RFC pseudocode uses `>=`. The two differ only when a dequeue falls on that exact nanosecond.
//! * `ce_threshold` is compared in nanoseconds; Linux keeps it (and the sojourn) in CoDel's
//!   1.024 us units and tc gives it in whole microseconds.

use crate::aqm::{QdiscCtx, ReasonId};
use crate::packet::{Ecn, PacketId};
use crate::units::{Dur, Time};

/// Which published CoDel the law follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CodelFlavor {
    /// RFC 8289 and Linux: droppable strictly after first_above_time; count incremented before
    /// each drop in the dropping state; re-entry within 16 intervals resumes at
    /// count - lastcount when that is above 1.
    #[default]
    Rfc8289,
    /// Nichols & Jacobson's 2012 pseudocode as ns-2.35's CoDel and sfqCoDel code it: droppable
    /// from first_above_time on; count incremented when the next drop is scheduled; re-entry
    /// within 8 intervals of the last scheduled drop resumes at count - 2 when count > 2.
    Ns2,
}

/// CoDel's parameters (shared by every queue of a discipline).
#[derive(Clone, Copy, Debug)]
pub struct CodelParams {
    /// Acceptable standing sojourn time (RFC 8289 TARGET, 5 ms).
    pub target: Dur,
    /// Sliding window for the minimum sojourn time (RFC 8289 INTERVAL, 100 ms).
    pub interval: Dur,
    /// No drop while at most this many bytes remain queued (RFC 8289 MAXPACKET; Linux: the
    /// device MTU plus its link header).
    pub mtu_bytes: u64,
    /// CE-mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    pub flavor: CodelFlavor,
    /// Linux's `ce_threshold` marking (None: off, Linux `CODEL_DISABLED_THRESHOLD`).
    pub ce_threshold: Option<CeThreshold>,
}

/// Linux's `ce_threshold` (`struct codel_params` `ce_threshold`, `ce_threshold_selector`,
/// `ce_threshold_mask`): CE-mark a dequeued packet whose sojourn time is above `sojourn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CeThreshold {
    /// Sojourn time above which (strictly) a packet is marked.
    pub sojourn: Dur,
    /// Mark only packets whose DS field ANDed with `mask` equals `selector`; mask 0: every packet.
    pub selector: u8,
    pub mask: u8,
    /// The container's reason for these marks (its `REASONS` index).
    pub reason: ReasonId,
}

impl CeThreshold {
    /// Whether a packet of DS field `ds` (DSCP << 2 | ECN) is one the threshold applies to.
    #[inline]
    pub fn selects(&self, ds: u8) -> bool {
        self.mask == 0 || ds & self.mask == self.selector
    }
}

/// The control law's variables for one queue (RFC 8289 section 5.1 names).
#[derive(Clone, Copy, Debug, Default)]
pub struct CodelVars {
    /// Drops since entering the dropping state; the next drop comes interval/sqrt(count) later.
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    /// In the dropping state.
    pub dropping: bool,
    /// Time when the sojourn time will have been above target for an interval; `None` while
    /// it is below target.
    pub first_above_time: Option<Time>,
    /// Time of the next drop in the dropping state.
    pub drop_next: Time,
    /// Sojourn time of the last dequeued packet (Linux `ldelay`).
    pub ldelay: Dur,
}

/// Counters of the control law.
#[derive(Clone, Copy, Debug, Default)]
pub struct CodelStats {
    /// Times the dropping state was entered.
    pub dropping_entries: u64,
    /// Largest packet seen, bytes.
    pub maxpacket: u32,
}

/// `t + interval / sqrt(count)` (RFC 8289 `control_law`).
pub fn control_law(t: Time, interval: Dur, count: u32) -> Time {
    debug_assert!(count >= 1);
    t + Dur::from_ns((interval.ns() as f64 / (count as f64).sqrt()) as u64)
}

impl CodelVars {
    /// RFC 8289 `dodequeue`'s test on packet `id`, dequeued at `now` with `backlog_after` bytes
    /// still queued: whether it may be dropped.
    fn ok_to_drop(&mut self, p: &CodelParams, stats: &mut CodelStats, id: Option<(PacketId, u64)>, ctx: &QdiscCtx<'_>) -> bool {
        let Some((id, backlog_after)) = id else {
            self.first_above_time = None;
            return false;
        };
        let pkt = ctx.arena.get(id);
        self.above(p, stats, ctx.now, pkt.size_bytes, pkt.enq_time, backlog_after)
    }

    /// `ok_to_drop` on a packet of `size` bytes queued at `enqueued`, dequeued at `now` with
    /// `backlog_after` bytes still queued.
    #[inline]
    fn above(&mut self, p: &CodelParams, stats: &mut CodelStats, now: Time, size: u32, enqueued: Time, backlog_after: u64) -> bool {
        stats.maxpacket = stats.maxpacket.max(size);
        self.ldelay = now.since(enqueued);
        if self.ldelay < p.target || backlog_after <= p.mtu_bytes {
            self.first_above_time = None; // went below: stay below for at least an interval
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + p.interval);
                false
            }
            Some(t) => match p.flavor {
                CodelFlavor::Rfc8289 => now > t,
                CodelFlavor::Ns2 => now >= t,
            },
        }
    }

    /// The last time up to which no dequeue can drop or mark, whatever arrives, from the state
    /// after every dequeue before `now` (a discipline's `quiet_until`): the law acts only in
    /// the dropping state at `drop_next` or later, or outside it at a dequeue after
    /// `first_above_time` (at it, in the ns-2 flavor), which a dequeue sets an interval after
    /// itself (so no earlier than `now + interval`) when it is unset. A dequeue before then
    /// only records what it sees (`departed`).
    pub fn quiet_until(&self, p: &CodelParams, now: Time) -> Time {
        let before = |t: Time| Time::from_ns(t.ns().saturating_sub(1));
        let last = |t: Time| match p.flavor {
            CodelFlavor::Rfc8289 => t,
            CodelFlavor::Ns2 => before(t),
        };
        if self.dropping {
            return before(self.drop_next);
        }
        last(self.first_above_time.unwrap_or(now + p.interval))
    }

    /// A packet of `size` bytes queued at `enqueued` leaves at `now`, with `backlog_after` bytes
    /// still queued, at a time `quiet_until` gave: the law's dequeue of it, which neither drops
    /// nor marks then (it records the sojourn and may leave the dropping state).
    pub fn departed(&mut self, p: &CodelParams, stats: &mut CodelStats, now: Time, size: u32, enqueued: Time, backlog_after: u64) {
        let drop = self.above(p, stats, now, size, enqueued, backlog_after);
        debug_assert!(!drop || (self.dropping && now < self.drop_next), "CoDel told of a departure at {now:?} where its law would drop");
        if self.dropping && !drop {
            self.dropping = false; // sojourn time below target: leave the dropping state
        }
    }

    /// Drop or CE-mark `id` for `reason`; returns true if it was dropped (not marked).
    fn drop_or_mark(p: &CodelParams, id: PacketId, ctx: &mut QdiscCtx<'_>, reason: ReasonId) -> bool {
        if p.ecn && ctx.mark(id, reason) {
            return false;
        }
        ctx.drop_queued(id, reason);
        true
    }

    /// RFC 8289 `dequeue`: take packets through `deq` (which returns the head packet and the
    /// bytes left queued after it), dropping or marking them as the law says; drops are reported
    /// through `ctx` with `reason`. Returns the packet to transmit.
    pub fn dequeue(
        &mut self,
        p: &CodelParams,
        stats: &mut CodelStats,
        ctx: &mut QdiscCtx<'_>,
        reason: ReasonId,
        deq: impl FnMut(&mut QdiscCtx<'_>) -> Option<(PacketId, u64)>,
    ) -> Option<PacketId> {
        self.dequeue_judged(p, stats, ctx, true, |_, _| Some(reason), deq)
    }

    /// [`Self::dequeue`] with a hook on every packet the law decides to drop: `judge` returns the
    /// reason to drop (or CE-mark) it for, or `None` to spare it. A spared packet is sent. With
    /// `spare_as_mark` it is handled as the law handles a CE-marked one (RFC 8289 section 5;
    /// Linux `codel_dequeue`): `count` and `drop_next` advance as if it had been dropped.
    /// Without, the law's state is left as it was, so the drop stays due and the next packet
    /// dequeued is judged in its place. (The fairness-oriented CoDel of `fair_codel.rs` spares
    /// packets of light connections.) With `judge` always `Some(reason)` this is `dequeue`.
    pub fn dequeue_judged(
        &mut self,
        p: &CodelParams,
        stats: &mut CodelStats,
        ctx: &mut QdiscCtx<'_>,
        spare_as_mark: bool,
        judge: impl FnMut(PacketId, &mut QdiscCtx<'_>) -> Option<ReasonId>,
        deq: impl FnMut(&mut QdiscCtx<'_>) -> Option<(PacketId, u64)>,
    ) -> Option<PacketId> {
        let out = self.law(p, stats, ctx, spare_as_mark, judge, deq);
        if let (Some(id), Some(th)) = (out, p.ce_threshold) {
            // codel_impl.h, after the law: `ldelay` is the sojourn of the packet being sent (the
            // last one `ok_to_drop` looked at)
            let pkt = ctx.arena.get(id);
            if self.ldelay > th.sojourn && matches!(pkt.ecn, Ecn::Ect0 | Ecn::Ect1) && th.selects(pkt.ds_field()) {
                ctx.mark(id, th.reason);
            }
        }
        out
    }

    /// The control law proper (RFC 8289 `dequeue`), as `dequeue_judged` describes it.
    fn law(
        &mut self,
        p: &CodelParams,
        stats: &mut CodelStats,
        ctx: &mut QdiscCtx<'_>,
        spare_as_mark: bool,
        mut judge: impl FnMut(PacketId, &mut QdiscCtx<'_>) -> Option<ReasonId>,
        mut deq: impl FnMut(&mut QdiscCtx<'_>) -> Option<(PacketId, u64)>,
    ) -> Option<PacketId> {
        let now = ctx.now;
        let mut head = deq(ctx);
        if head.is_none() {
            self.dropping = false;
            self.first_above_time = None;
            return None;
        }
        let drop = self.ok_to_drop(p, stats, head, ctx);
        if self.dropping {
            if !drop {
                self.dropping = false; // sojourn time below target: leave the dropping state
            } else {
                // A long backlog may make several drops due at once, hence the loop.
                let rfc = p.flavor == CodelFlavor::Rfc8289;
                while self.dropping && now >= self.drop_next {
                    if rfc {
                        self.count = self.count.saturating_add(1);
                    }
                    let (id, _) = head.expect("dropping with a packet in hand");
                    let dropped = match judge(id, ctx) {
                        Some(reason) => Self::drop_or_mark(p, id, ctx, reason),
                        None if spare_as_mark => false, // spared: sent, as if marked
                        None => {
                            // spared, the drop stays due: the law's state as before this packet
                            if rfc {
                                self.count -= 1;
                            }
                            break;
                        }
                    };
                    if !dropped {
                        if !rfc {
                            self.count = self.count.saturating_add(1);
                        }
                        self.drop_next = control_law(self.drop_next, p.interval, self.count);
                        break; // marked (or spared): it is sent
                    }
                    head = deq(ctx);
                    if self.ok_to_drop(p, stats, head, ctx) {
                        if !rfc {
                            self.count = self.count.saturating_add(1);
                        }
                        self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    } else {
                        self.dropping = false;
                    }
                }
            }
        } else if drop {
            let (id, _) = head.expect("a droppable packet");
            let dropped = match judge(id, ctx) {
                Some(reason) => Self::drop_or_mark(p, id, ctx, reason),
                None if spare_as_mark => false, // spared: sent, as if marked
                None => return Some(id),        // spared, the drop stays due: not dropping yet
            };
            if dropped {
                head = deq(ctx);
                self.ok_to_drop(p, stats, head, ctx);
            }
            self.dropping = true;
            stats.dropping_entries += 1;
            // Re-entering soon after the last dropping period: resume near its drop rate.
            self.count = match p.flavor {
                CodelFlavor::Rfc8289 => {
                    let delta = self.count.wrapping_sub(self.lastcount);
                    if delta > 1 && now < self.drop_next + p.interval.mul(16) { delta } else { 1 }
                }
                CodelFlavor::Ns2 => {
                    if self.count > 2 && now < self.drop_next + p.interval.mul(8) { self.count - 2 } else { 1 }
                }
            };
            self.lastcount = self.count;
            self.drop_next = control_law(now, p.interval, self.count);
        }
        head.map(|(id, _)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_law_spacing_shrinks_as_one_over_sqrt_count() {
        let i = Dur::from_ms(100);
        let t = Time::from_secs(1);
        assert_eq!(control_law(t, i, 1), Time::from_ns(1_100_000_000));
        assert_eq!(control_law(t, i, 4), Time::from_ns(1_050_000_000));
        assert_eq!(control_law(t, i, 100), Time::from_ns(1_010_000_000));
        // 100 ms / sqrt(2) = 70.710678 ms, truncated to the ns
        assert_eq!(control_law(Time::ZERO, i, 2), Time::from_ns(70_710_678));
    }
}
