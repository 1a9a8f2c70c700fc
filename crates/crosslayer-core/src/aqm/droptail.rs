//! DropTail (FIFO with tail drop): drop the arriving packet if it does not fit.
//!
//! Source: the classic FIFO; Linux `pfifo`/`bfifo` (`net/sched/sch_fifo.c`), ns-3
//! `FifoQueueDisc`. Both a packet limit and a byte limit may be set; a packet is dropped if it
//! would exceed either. The limit counts queued packets only, not the one being serialized
//! (as Linux qdiscs and ns-3 queue discs). Deviations: none known.

use super::{DropReason, QdiscCtx, QueueDisc, Verdict};
use crate::net::packet::PacketId;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// DropTail limits. Default: 1000 packets (Linux `txqueuelen` default), no byte limit.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DropTailConfig {
    /// Maximum queued packets; `None` = unlimited (then `limit_bytes` must be set).
    pub limit_pkts: Option<u32>,
    /// Maximum queued bytes (wire sizes); `None` = unlimited.
    pub limit_bytes: Option<u64>,
}

impl Default for DropTailConfig {
    fn default() -> Self {
        DropTailConfig { limit_pkts: Some(1000), limit_bytes: None }
    }
}

impl DropTailConfig {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        match (self.limit_pkts, self.limit_bytes) {
            (None, None) => Err(format!("{path}: set limit_pkts or limit_bytes (an unbounded queue is not a DropTail queue)")),
            (Some(0), _) => Err(format!("{path}.limit_pkts: must be >= 1 packet")),
            (_, Some(0)) => Err(format!("{path}.limit_bytes: must be >= 1 byte")),
            _ => Ok(()),
        }
    }
}

#[derive(Debug)]
pub struct DropTail {
    /// Queued packets, head first.
    fifo: VecDeque<PacketId>,
    /// Packet limit (u32::MAX if unlimited).
    limit_pkts: u32,
    /// Byte limit (u64::MAX if unlimited).
    limit_bytes: u64,
    /// Bytes queued.
    bytes: u64,
}

impl DropTail {
    pub fn new(cfg: &DropTailConfig) -> DropTail {
        let limit_pkts = cfg.limit_pkts.unwrap_or(u32::MAX);
        DropTail {
            fifo: VecDeque::with_capacity(limit_pkts.min(1 << 16) as usize),
            limit_pkts,
            limit_bytes: cfg.limit_bytes.unwrap_or(u64::MAX),
            bytes: 0,
        }
    }
}

impl QueueDisc for DropTail {
    #[inline]
    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let size = ctx.arena.get(id).size_bytes as u64;
        if self.fifo.len() as u32 >= self.limit_pkts || self.bytes + size > self.limit_bytes {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.bytes += size;
        self.fifo.push_back(id);
        Verdict::Enqueued
    }

    #[inline]
    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let id = self.fifo.pop_front()?;
        self.bytes -= ctx.arena.get(id).size_bytes as u64;
        Some(id)
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len() as u32
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{Queue, QdiscConfig};
    use crate::net::packet::{Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::Time;

    fn pkt(arena: &mut PacketArena, size: u32) -> PacketId {
        arena.alloc(Packet { size_bytes: size, ..Default::default() })
    }

    #[test]
    fn packet_limit_drops_the_arrival_and_keeps_fifo_order() {
        let cfg = QdiscConfig::Droptail(DropTailConfig { limit_pkts: Some(2), limit_bytes: None });
        let mut q = Queue::new(&cfg, Rng::stream(1, StreamKind::Qdisc, 0));
        let mut a = PacketArena::new();
        let mut dropped = Vec::new();
        let ids: Vec<_> = (0..3).map(|_| pkt(&mut a, 1500)).collect();
        assert!(q.enqueue(ids[0], Time(0), &mut a, &mut dropped));
        assert!(q.enqueue(ids[1], Time(1), &mut a, &mut dropped));
        assert!(!q.enqueue(ids[2], Time(2), &mut a, &mut dropped));
        assert_eq!(q.dequeue(Time(3), &mut a, &mut dropped), Some(ids[0]));
        assert_eq!(q.dequeue(Time(4), &mut a, &mut dropped), Some(ids[1]));
        assert_eq!(q.dequeue(Time(5), &mut a, &mut dropped), None);
        assert_eq!(q.counters.drops_overflow, 1);
        q.check_identities().unwrap();
        assert_eq!(q.sojourn.mean(), Some(3.0));
    }

    #[test]
    fn byte_limit() {
        let cfg = QdiscConfig::Droptail(DropTailConfig { limit_pkts: None, limit_bytes: Some(3000) });
        let mut q = Queue::new(&cfg, Rng::stream(1, StreamKind::Qdisc, 0));
        let mut a = PacketArena::new();
        let mut dropped = Vec::new();
        let big = pkt(&mut a, 1500);
        let big2 = pkt(&mut a, 1500);
        let small = pkt(&mut a, 52);
        assert!(q.enqueue(big, Time(0), &mut a, &mut dropped));
        assert!(q.enqueue(big2, Time(0), &mut a, &mut dropped));
        assert!(!q.enqueue(small, Time(0), &mut a, &mut dropped));
        assert_eq!(q.qdisc.len_bytes(), 3000);
        q.check_identities().unwrap();
    }
}
