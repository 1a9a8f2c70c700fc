//! Unresponsive constant-bit-rate source: a UDP-like sender that puts one `packet_size` datagram
//! on the wire every `packet_size * 8 / rate` seconds from `start` until `stop`, whatever happens
//! to them, and a sink that counts what arrives and its one-way delay.
//!
//! Source: the CBR application of ns-2 (`Application/Traffic/CBR`) and ns-3 (`OnOffApplication`
//! with an always-on period), the unresponsive flow of the fairness studies (CHOKe, Pan et al.
//! 2000; SFB, Feng et al. 2001) that a fair queue discipline has to contain.
//!
//! The k-th datagram leaves at `start + k * packet_size * 8 / rate`, computed from `k` in integer
//! nanoseconds (no drift from rounding an interval). No jitter: like ns-2's CBR with `random_ 0`.

use crate::packet::{Ecn, Packet, PktKind};
use crate::packet::TxCtx;
use crate::units::{Rate, Time};

crate::counters! {
    /// What the source sent.
    pub struct CbrSentCounters {
        /// Datagrams sent.
        sent_pkts: "pkts",
        /// Wire bytes sent.
        sent_bytes: "bytes",
    }
}

crate::counters! {
    /// What the sink received.
    pub struct CbrRecvCounters {
        /// Datagrams delivered to the sink.
        delivered_pkts: "pkts",
        /// Wire bytes delivered to the sink.
        delivered_bytes: "bytes",
        /// Datagrams that arrived CE-marked.
        ce_pkts: "pkts",
    }
}

/// The sending side.
#[derive(Debug)]
pub struct CbrSource {
    /// Engine flow id carried by its packets.
    pub flow: u32,
    /// Node it sits on.
    pub node: u32,
    /// Node of the sink.
    pub peer: u32,
    /// Wire size of each datagram, bytes.
    size_bytes: u32,
    rate: Rate,
    start: Time,
    stop: Time,
    /// ECN codepoint its datagrams carry (an unresponsive source may still be ECN-capable).
    ecn: Ecn,
    dscp: u8,
    port: u16,
    /// Datagrams sent so far (the index of the next one).
    k: u64,
    pub counters: CbrSentCounters,
}

impl CbrSource {
    #[allow(clippy::too_many_arguments)]
    pub fn new(flow: u32, node: u32, peer: u32, rate: Rate, size_bytes: u32, start: Time, stop: Time, ecn: Ecn, dscp: u8, port: u16) -> CbrSource {
        debug_assert!(rate.bps() > 0 && size_bytes > 0);
        CbrSource { flow, node, peer, size_bytes, rate, start, stop, ecn, dscp, port, k: 0, counters: CbrSentCounters::default() }
    }

    pub fn start_at(&self) -> Time {
        self.start
    }

    pub fn stop_at(&self) -> Time {
        self.stop
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }

    pub fn size_bytes(&self) -> u32 {
        self.size_bytes
    }

    /// Departure time of datagram `k`: start + k * size * 8 / rate, in whole nanoseconds.
    #[inline]
    fn departure(&self, k: u64) -> Time {
        let ns = (k as u128 * self.size_bytes as u128 * 8 * 1_000_000_000) / self.rate.bps() as u128;
        Time::from_ns(self.start.ns().saturating_add(ns.min(u64::MAX as u128) as u64))
    }

    /// When the next datagram is due (`Time::NEVER` once stopped).
    #[inline]
    pub fn next_deadline(&self) -> Time {
        let t = self.departure(self.k);
        if t >= self.stop {
            Time::NEVER
        } else {
            t
        }
    }

    /// Send every datagram due by `ctx.now`.
    pub fn on_timer(&mut self, ctx: &mut TxCtx<'_>) {
        while self.next_deadline() <= ctx.now {
            let p = Packet {
                flow: self.flow,
                kind: PktKind::Datagram,
                dst: self.peer,
                src: self.node,
                dscp: self.dscp,
                port: self.port,
                size_bytes: self.size_bytes,
                seq: self.k,
                ecn: self.ecn,
                tsval: ctx.now,
                ..Default::default()
            };
            ctx.out.push(ctx.arena.alloc(p));
            self.k += 1;
            self.counters.sent_pkts += 1;
            self.counters.sent_bytes += self.size_bytes as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketArena;

    fn run_until(src: &mut CbrSource, end: Time) -> Vec<(Time, u64)> {
        let mut arena = PacketArena::new();
        let mut out = Vec::new();
        let mut sent = Vec::new();
        loop {
            let t = src.next_deadline();
            if t > end {
                break;
            }
            src.on_timer(&mut TxCtx { now: t, arena: &mut arena, out: &mut out });
            for id in out.drain(..) {
                let p = arena.get(id);
                sent.push((p.tsval, p.seq));
                arena.free(id);
            }
        }
        sent
    }

    #[test]
    fn sends_at_the_rate_without_drift_and_stops() {
        // 1000-byte datagrams at 3 Mb/s: one every 2.666... ms; 375 per second exactly.
        let mut s = CbrSource::new(0, 0, 1, Rate::from_bps(3_000_000), 1000, Time::from_ms(100), Time::from_ms(1100), Ecn::NotEct, 0, 0);
        let sent = run_until(&mut s, Time::from_secs(5));
        assert_eq!(sent.len(), 375);
        assert_eq!(sent[0].0, Time::from_ms(100));
        assert_eq!(sent[3].0.ns(), 100_000_000 + 8_000_000);
        assert_eq!(sent[374].0.ns(), 100_000_000 + 374 * 8_000_000 / 3);
        assert!(sent.windows(2).all(|w| w[1].1 == w[0].1 + 1));
        assert_eq!(s.counters.sent_bytes, 375_000);
        assert_eq!(s.next_deadline(), Time::NEVER);
    }
}
