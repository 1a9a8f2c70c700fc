//! The first-in first-out packet queue most disciplines keep: packet ids in arrival order and
//! the bytes they hold. Not a discipline itself (DropTail is `droptail.rs`); the parts every
//! single-queue discipline had written out again.

use crate::aqm::{QdiscCtx, Verdict};
use crate::packet::PacketId;
use crate::ring::Ring;

#[derive(Debug, Default)]
pub struct Fifo {
    ids: Ring<PacketId>,
    bytes: u64,
}

impl Fifo {
    /// An empty queue with room reserved for `limit_pkts` packets (at most 64 Ki: the deque
    /// grows past that if it must).
    pub fn new(limit_pkts: u32) -> Fifo {
        Fifo { ids: Ring::with_capacity(limit_pkts.min(1 << 16) as usize), bytes: 0 }
    }

    /// Append a packet of `size` bytes.
    #[inline]
    pub fn push(&mut self, id: PacketId, size: u32) {
        self.bytes += size as u64;
        self.ids.push_back(id);
    }

    /// The packets and bytes queued: what a discipline that decides at arrival decides from
    /// when it holds its packets itself (`QueueDisc::decide`).
    #[inline]
    pub fn backlog(&self) -> (u32, u64) {
        (self.len_pkts(), self.len_bytes())
    }

    /// A discipline that decides at arrival, holding its packets itself: keep `id` if
    /// `verdict`, its decision about it, accepts it (its `enqueue` is `decide`, then this).
    #[inline]
    pub fn keep(&mut self, verdict: Verdict, id: PacketId, ctx: &QdiscCtx<'_>) -> Verdict {
        if verdict == Verdict::Enqueued {
            self.push(id, ctx.size(id));
        }
        verdict
    }

    /// Remove the oldest packet.
    #[inline]
    pub fn pop(&mut self, ctx: &QdiscCtx<'_>) -> Option<PacketId> {
        let id = self.ids.pop_front()?;
        self.bytes -= ctx.size(id) as u64;
        Some(id)
    }

    /// The oldest packet, left in place.
    #[inline]
    pub fn head(&self) -> Option<PacketId> {
        self.ids.front()
    }

    #[inline]
    pub fn len_pkts(&self) -> u32 {
        self.ids.len() as u32
    }

    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Pretend a backlog of `bytes` (tests of laws that read the byte backlog).
    #[cfg(test)]
    pub fn set_len_bytes(&mut self, bytes: u64) {
        self.bytes = bytes;
    }

    /// The queued packets, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.ids.iter()
    }
}
