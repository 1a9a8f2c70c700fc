//! Flow queueing as FQ-CoDel defines it (RFC 8290 sections 4.1-4.2; Linux `sch_fq_codel.c`),
//! shared by FQ-CoDel and FQ-PIE: packets hashed into flow queues, and the queues served by
//! deficit round robin with priority for new flows. Each discipline keeps its own per-queue
//! controller (CoDel, PIE) and decides what happens to a packet; this module only says which
//! queue comes next.
//!
//! * Hashing: `hash(flow id, perturbation)` scaled onto the queues as Linux's
//!   `reciprocal_scale` does (the perturbation is drawn from the discipline's random stream on
//!   first use, like Linux's random `perturbation` at init).
//! * A queue that receives a packet while on no list joins the tail of the new list with a
//!   deficit of one quantum.
//! * Dequeue: take the head of the new list, else of the old list. A queue whose deficit is
//!   spent gets one more quantum and moves to the tail of the old list. A queue that has nothing
//!   to send (its controller may have dropped everything) leaves the new list for the old list's
//!   tail if the old list is non-empty (RFC 8290 section 4.2: this keeps a flow that empties
//!   from regaining priority at once), otherwise it leaves the lists.

use crate::aqm::QdiscCtx;
use crate::packet::PacketId;
use std::collections::VecDeque;

/// Which list a queue is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum List {
    #[default]
    None,
    New,
    Old,
}

/// A flow queue's round-robin state.
#[derive(Clone, Copy, Debug, Default)]
pub struct DrrSlot {
    /// Bytes it may still send in this round.
    pub deficit: i64,
    pub list: List,
}

/// A flow queue as the scheduler sees it.
pub trait FlowQueue {
    fn slot(&mut self) -> &mut DrrSlot;
}

/// The lists and the hash of a flow-queueing discipline.
#[derive(Debug)]
pub struct FlowScheduler {
    quantum: i64,
    n_queues: u64,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    perturbation: Option<u64>,
}

/// splitmix64's finalizer: a well-mixed 64-bit hash.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FlowScheduler {
    pub fn new(n_queues: u32, quantum_bytes: u64) -> FlowScheduler {
        FlowScheduler { quantum: quantum_bytes as i64, n_queues: n_queues as u64, new_flows: VecDeque::new(), old_flows: VecDeque::new(), perturbation: None }
    }

    /// The queue a packet of `flow` goes to.
    #[inline]
    pub fn classify(&mut self, flow: u32, ctx: &mut QdiscCtx<'_>) -> usize {
        let pert = *self.perturbation.get_or_insert_with(|| ctx.rng().next_u64());
        queue_of(flow, pert, self.n_queues)
    }

    /// The perturbation once drawn (tests).
    pub fn perturbation(&self) -> Option<u64> {
        self.perturbation
    }

    /// Queue `idx` received a packet: on no list, it joins the new list with one quantum.
    /// Returns whether it did (a "new flow").
    #[inline]
    pub fn on_enqueue(&mut self, idx: usize, slot: &mut DrrSlot) -> bool {
        if slot.list != List::None {
            return false;
        }
        slot.list = List::New;
        slot.deficit = self.quantum;
        self.new_flows.push_back(idx as u32);
        true
    }

    /// The next packet: `take(queue, ctx)` returns the packet the queue sends and its size in
    /// bytes, or `None` when it has nothing to send; `None` here when every list is empty.
    #[inline]
    pub fn dequeue<Q: FlowQueue>(
        &mut self,
        queues: &mut [Q],
        ctx: &mut QdiscCtx<'_>,
        mut take: impl FnMut(&mut Q, &mut QdiscCtx<'_>) -> Option<(PacketId, u32)>,
    ) -> Option<PacketId> {
        loop {
            let from_new = !self.new_flows.is_empty();
            let idx = *if from_new { self.new_flows.front() } else { self.old_flows.front() }? as usize;
            let q = &mut queues[idx];
            if q.slot().deficit <= 0 {
                let slot = q.slot();
                slot.deficit += self.quantum;
                slot.list = List::Old;
                self.pop_front(from_new);
                self.old_flows.push_back(idx as u32);
                continue;
            }
            match take(q, ctx) {
                Some((id, size)) => {
                    q.slot().deficit -= size as i64;
                    return Some(id);
                }
                None => {
                    self.pop_front(from_new);
                    if from_new && !self.old_flows.is_empty() {
                        q.slot().list = List::Old;
                        self.old_flows.push_back(idx as u32);
                    } else {
                        q.slot().list = List::None;
                    }
                }
            }
        }
    }

    fn pop_front(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    /// Queues on the new and old lists.
    pub fn active(&self) -> (usize, usize) {
        (self.new_flows.len(), self.old_flows.len())
    }
}

/// Linux's `reciprocal_scale` of a 32-bit hash of `flow` and `perturbation` onto `n` queues.
#[inline]
pub fn queue_of(flow: u32, perturbation: u64, n: u64) -> usize {
    let h = mix(flow as u64 ^ perturbation) >> 32;
    ((h * n) >> 32) as usize
}
