//! DropTail (FIFO with tail drop): drop the arriving packet if it does not fit.
//!
//! Source: the classic FIFO; Linux `pfifo`/`bfifo` (`net/sched/sch_fifo.c`), ns-3
//! `FifoQueueDisc`. Both a packet limit and a byte limit may be set; a packet is dropped if it
//! would exceed either. The limit counts queued packets only, not the one being serialized
//! (as Linux qdiscs and ns-3 queue discs). Deviations: none known.

use super::law::fifo::Fifo;
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::params::Problem;
use crate::registry::{Algorithm, Info};
use crate::units::Bytes;

crate::params! {
    /// DropTail limits. Both apply when both are set.
    pub struct DropTailConfig {
        /// Maximum queued packets (the packet being transmitted is not counted).
        limit_pkts: Option<u32> = Some(1000), Packets, range(>= 1), "Linux txqueuelen 1000 (pfifo_fast); ns-3 FifoQueueDisc 1000p";
        /// Maximum queued bytes (wire sizes); unset = no byte limit. The packet limit still applies: raise limit_pkts for a byte-only queue.
        limit_bytes: Option<Bytes> = None, Size, range(>= 1), "unset (Linux bfifo takes a byte limit instead)";
    }
    check = DropTailConfig::check;
}

impl DropTailConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.limit_pkts.is_none() && self.limit_bytes.is_none() {
            out.push(Problem::new("limit_pkts", "set limit_pkts or limit_bytes (an unbounded queue is not a DropTail queue)"));
        }
    }
}

#[derive(Debug)]
pub struct DropTail {
    /// Queued packets, head first.
    fifo: Fifo,
    /// Packet limit (u32::MAX if unlimited).
    limit_pkts: u32,
    /// Byte limit (u64::MAX if unlimited).
    limit_bytes: u64,
}

impl Algorithm for DropTail {
    type Config = DropTailConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "droptail",
        aliases: &["fifo"],
        summary: "FIFO that drops arrivals when full (packet and/or byte limit)",
        sources: &["Linux net/sched/sch_fifo.c (pfifo, bfifo)", "ns-3 FifoQueueDisc"],
    };
    fn new(cfg: &DropTailConfig, _env: &QdiscEnv) -> DropTail {
        let limit_pkts = cfg.limit_pkts.unwrap_or(u32::MAX);
        DropTail {
            fifo: Fifo::new(limit_pkts),
            limit_pkts,
            limit_bytes: cfg.limit_bytes.map_or(u64::MAX, Bytes::get),
        }
    }
}

/// `REASONS` index.
const REASON_OVERFLOW: u8 = 0;

impl QueueDisc for DropTail {
    const REASONS: &'static [Reason] = &[OVERFLOW];
    const FIFO_AT_ARRIVAL: bool = true;

    fn fifo_limits(&self) -> (u32, u64) {
        (self.limit_pkts, self.limit_bytes)
    }

    #[inline]
    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let size = ctx.size(id) as u64;
        if self.fifo.len_pkts() >= self.limit_pkts || self.fifo.len_bytes() + size > self.limit_bytes {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        self.fifo.push(id, size as u32);
        Verdict::Enqueued
    }

    #[inline]
    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let id = self.fifo.pop(ctx)?;
        Some(id)
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{Queue, QdiscConfig};
    use crate::packet::{Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::{Rate, Time};

    fn queue(cfg: DropTailConfig) -> Queue {
        let env = QdiscEnv { link_rate: Rate::from_mbps(10) };
        Queue::new(&QdiscConfig::DropTail(cfg), &env, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    fn pkt(arena: &mut PacketArena, size: u32) -> PacketId {
        arena.alloc(Packet { size_bytes: size, ..Default::default() })
    }

    #[test]
    fn packet_limit_drops_the_arrival_and_keeps_fifo_order() {
        let mut q = queue(DropTailConfig { limit_pkts: Some(2), limit_bytes: None });
        let mut a = PacketArena::new();
        let mut dropped = Vec::new();
        let ids: Vec<_> = (0..3).map(|_| pkt(&mut a, 1500)).collect();
        assert!(q.enqueue(ids[0], Time::from_ns(0), &mut a, &mut dropped));
        assert!(q.enqueue(ids[1], Time::from_ns(1), &mut a, &mut dropped));
        assert!(!q.enqueue(ids[2], Time::from_ns(2), &mut a, &mut dropped));
        assert_eq!(q.dequeue(Time::from_ns(3), &mut a, &mut dropped), Some(ids[0]));
        assert_eq!(q.dequeue(Time::from_ns(4), &mut a, &mut dropped), Some(ids[1]));
        assert_eq!(q.dequeue(Time::from_ns(5), &mut a, &mut dropped), None);
        assert_eq!(q.counters().drops_arrival, 1);
        assert_eq!(q.reasons().drops[REASON_OVERFLOW as usize], 1);
        q.check_identities().unwrap();
        assert_eq!(q.sojourn.mean(), Some(3.0));
    }

    #[test]
    fn byte_limit() {
        let mut q = queue(DropTailConfig { limit_pkts: None, limit_bytes: Some(Bytes::new(3000)) });
        let mut a = PacketArena::new();
        let mut dropped = Vec::new();
        let big = pkt(&mut a, 1500);
        let big2 = pkt(&mut a, 1500);
        let small = pkt(&mut a, 52);
        assert!(q.enqueue(big, Time::from_ns(0), &mut a, &mut dropped));
        assert!(q.enqueue(big2, Time::from_ns(0), &mut a, &mut dropped));
        assert!(!q.enqueue(small, Time::from_ns(0), &mut a, &mut dropped));
        assert_eq!(q.qdisc.len_bytes(), 3000);
        q.check_identities().unwrap();
    }
}
