//! Packet capture to pcap files that Wireshark and tshark open: the packets leaving chosen
//! links (as they start serialization: after the egress queue, like `tcpdump` on the egress
//! interface) and a host's interface (what it sends and what it receives), one file each.
//!
//! Each packet is written as the IPv4 datagram it models, without a link layer
//! (`LINKTYPE_RAW`), with nanosecond timestamps: IPv4 (DSCP and ECN in the TOS byte, TTL 64
//! less the hops travelled, DF, a valid checksum), then TCP with the options the model carries
//! (MSS, SACK-permitted, timestamps and window scale on SYN and SYN-ACK; timestamps on every
//! segment; SACK blocks on ACKs; ECE, CWR; the window field a constant 65535 scaled by 2^7) or
//! UDP for a constant-bit-rate flow. The payload is not modelled: a record holds the headers and
//! zeros up to the snap length, and the IP total length is the real one, so tshark's sequence
//! analysis (retransmissions, duplicate ACKs, SACK) works as on a real capture. Addresses:
//! node i is 10.0.0.0 + i + 1; ports: the flow's service port (5001 if it has none) at the
//! data's sink, 1024 + flow mod 64512 at its source; initial sequence numbers derived from the
//! flow. A finite flow's last segment carries FIN, the receiver's ACK of it FIN too (with
//! `teardown`), and the sender's last ACK follows; an aborted flow's RST carries RST. The
//! model's FIN takes no sequence number, the written one does (the numbers after it are
//! shifted by one, so tshark sees a normal close). Not modelled, so never written: payload
//! bytes, checksums of TCP and UDP (zero, which tshark does not check by default).
//!
//! A capture is bounded: the files together hold at most `max_bytes`; packets beyond are
//! counted, not written, and the run's pcap summary says how many.

use crate::packet::{Ecn, Packet, PktKind, SackBlock};
use crate::result::CaptureFile;
use crate::sim::PacketTap;
use crate::units::Time;

/// The window field of every segment after the handshake (65535 << 7 = 8 MiB advertised).
const WINDOW: u16 = 0xffff;
/// The window scale each end offers on its SYN.
const WSCALE: u8 = 7;
/// The pcap magic for nanosecond timestamps.
const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_RAW: packets begin with an IPv4 header.
const LINKTYPE_RAW: u32 = 101;

/// The TCP options a flow uses (what its segments carry).
#[derive(Clone, Copy, Debug)]
pub struct TcpOptions {
    pub mss: u16,
    pub sack: bool,
    pub timestamps: bool,
}

/// The files of a run's capture, filled by the engine's tap.
pub struct Capture {
    files: Vec<CaptureFile>,
    snaplen: u32,
    budget: u64,
    options: Vec<TcpOptions>,
    scratch: Vec<u8>,
}

impl Capture {
    /// Files named `names` (each gets its pcap header), at most `snaplen` bytes per packet and
    /// `max_bytes` in all; `options[f]` are TCP flow f's options.
    pub fn new(names: Vec<String>, snaplen: u32, max_bytes: u64, options: Vec<TcpOptions>) -> Capture {
        let mut budget = max_bytes;
        let files = names
            .into_iter()
            .map(|name| {
                let mut bytes = Vec::new();
                for v in [MAGIC_NS, 0x0004_0002] {
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
                bytes.extend_from_slice(&[0; 8]); // thiszone, sigfigs
                bytes.extend_from_slice(&snaplen.to_le_bytes());
                bytes.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
                budget = budget.saturating_sub(bytes.len() as u64);
                CaptureFile { name, bytes, packets: 0, missed: 0 }
            })
            .collect();
        Capture { files, snaplen, budget, options, scratch: Vec::with_capacity(128) }
    }

}

/// The IPv4 address of node `n`.
fn addr(n: u32) -> [u8; 4] {
    (0x0a00_0000u32 + n + 1).to_be_bytes()
}

/// A flow's two initial sequence numbers: the data sender's and the receiver's.
fn isn(flow: u32) -> (u32, u32) {
    let h = (flow as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((h >> 32) as u32, h as u32)
}

fn ports(p: &Packet) -> (u16, u16) {
    let ephemeral = 1024 + (p.flow % 64_512) as u16;
    let service = if p.port == 0 { 5001 } else { p.port };
    if p.kind.from_sender() {
        (ephemeral, service)
    } else {
        (service, ephemeral)
    }
}

/// RFC 1071 checksum of an IPv4 header.
fn checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = h.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A TCP timestamp: milliseconds, as Linux's 1 kHz clock.
fn ts(t: Time) -> u32 {
    (t.ns() / 1_000_000) as u32
}

impl Capture {
    /// The headers of `p` into `self.scratch`; returns the IP datagram's total length.
    fn headers(&mut self, p: &Packet, sack: &[SackBlock], hops: u32) -> u32 {
        let out = &mut self.scratch;
        out.clear();
        let tcp = p.kind != PktKind::Datagram;
        // transport header first (after a 20-byte IPv4 placeholder)
        out.resize(20, 0);
        let (sport, dport) = ports(p);
        let payload;
        if tcp {
            let (isn_s, isn_r) = isn(p.flow);
            // A FIN takes one sequence number on the wire (the model's FIN takes none): an ACK
            // of the sender's FIN (the receiver's FIN rides on it) acknowledges one byte more,
            // and what the sender sends after its FIN starts one later.
            let (seq, ack, flags) = match p.kind {
                PktKind::Syn => (isn_s, 0, 0x02u8),
                PktKind::SynAck => (isn_r, isn_s.wrapping_add(1), 0x12),
                PktKind::HandshakeAck => (isn_s.wrapping_add(1), isn_r.wrapping_add(1), 0x10),
                PktKind::Data => (isn_s.wrapping_add(1).wrapping_add(p.seq as u32), isn_r.wrapping_add(1), 0x10 | p.fin as u8),
                PktKind::CloseAck => (isn_s.wrapping_add(2).wrapping_add(p.seq as u32), isn_r.wrapping_add(2), 0x10),
                PktKind::Rst => (isn_s.wrapping_add(1).wrapping_add(p.seq as u32), 0, 0x04),
                _ => (isn_r.wrapping_add(1), isn_s.wrapping_add(1 + p.fin as u32).wrapping_add(p.ack as u32), 0x10 | p.fin as u8),
            };
            // AccECN's three flags (AE, CWR, ECE): a SYN's or SYN-ACK's negotiation, an ACK's
            // ACE field (RFC 9768 section 3.2.2); else RFC 3168's ECE and CWR
            let (ece, cwr, ae) = match p.ace {
                0 => (p.ece, p.cwr, false),
                a => (a & 1 != 0, a & 2 != 0, a & 4 != 0),
            };
            let flags = flags | if ece { 0x40 } else { 0 } | if cwr { 0x80 } else { 0 };
            let o = self.options.get(p.flow as usize).copied().unwrap_or(TcpOptions { mss: 1448, sack: true, timestamps: true });
            let mut opts: Vec<u8> = Vec::with_capacity(40);
            let syn = matches!(p.kind, PktKind::Syn | PktKind::SynAck);
            if syn {
                // Linux's SYN: MSS, SACK-permitted, timestamps, NOP, window scale
                opts.extend_from_slice(&[2, 4]);
                opts.extend_from_slice(&o.mss.to_be_bytes());
                opts.extend_from_slice(if o.sack { &[4, 2] } else { &[1, 1] });
            } else if o.timestamps {
                opts.extend_from_slice(&[1, 1]);
            }
            if o.timestamps {
                opts.extend_from_slice(&[8, 10]);
                opts.extend_from_slice(&ts(p.tsval).to_be_bytes());
                opts.extend_from_slice(&ts(p.tsecr).to_be_bytes());
            } else if syn {
                opts.extend_from_slice(&[1, 1]);
            }
            if syn {
                opts.extend_from_slice(&[1, 3, 3, WSCALE]);
            }
            if p.n_sack > 0 {
                let (isn_s, _) = isn(p.flow);
                opts.extend_from_slice(&[1, 1, 5, 2 + 8 * p.n_sack]);
                for b in sack {
                    opts.extend_from_slice(&isn_s.wrapping_add(1).wrapping_add(b.start as u32).to_be_bytes());
                    opts.extend_from_slice(&isn_s.wrapping_add(1).wrapping_add(b.end as u32).to_be_bytes());
                }
            }
            debug_assert!(opts.len().is_multiple_of(4) && opts.len() <= 40);
            let hlen = 20 + opts.len();
            out.extend_from_slice(&sport.to_be_bytes());
            out.extend_from_slice(&dport.to_be_bytes());
            out.extend_from_slice(&seq.to_be_bytes());
            out.extend_from_slice(&ack.to_be_bytes());
            out.push(((hlen / 4) as u8) << 4 | ae as u8);
            out.push(flags);
            out.extend_from_slice(&(if syn { 65_535u16 } else { WINDOW }).to_be_bytes());
            out.extend_from_slice(&[0, 0, 0, 0]); // checksum (not computed), urgent pointer
            out.extend_from_slice(&opts);
            payload = if p.kind == PktKind::Data { p.len_bytes } else { 0 };
        } else {
            // UDP: the datagram's wire size is the whole IP datagram
            payload = p.size_bytes.saturating_sub(28);
            out.extend_from_slice(&sport.to_be_bytes());
            out.extend_from_slice(&dport.to_be_bytes());
            out.extend_from_slice(&((8 + payload).min(65_535) as u16).to_be_bytes());
            out.extend_from_slice(&[0, 0]);
        }
        let total = (out.len() as u32 + payload).min(65_535);
        let ecn = match p.ecn {
            Ecn::NotEct => 0,
            Ecn::Ect1 => 1,
            Ecn::Ect0 => 2,
            Ecn::Ce => 3,
        };
        let ttl = 64u32.saturating_sub(hops).max(1) as u8;
        let id = (p.seq as u16) ^ (p.flow as u16).rotate_left(8);
        let ip: [u8; 20] = {
            let mut h = [0u8; 20];
            h[0] = 0x45;
            h[1] = (p.dscp << 2) | ecn;
            h[2..4].copy_from_slice(&(total as u16).to_be_bytes());
            h[4..6].copy_from_slice(&id.to_be_bytes());
            h[6] = 0x40; // don't fragment
            h[8] = ttl;
            h[9] = if tcp { 6 } else { 17 };
            h[12..16].copy_from_slice(&addr(p.src));
            h[16..20].copy_from_slice(&addr(p.dst));
            let c = checksum(&h);
            h[10..12].copy_from_slice(&c.to_be_bytes());
            h
        };
        out[..20].copy_from_slice(&ip);
        total
    }
}

impl PacketTap for Capture {
    fn finish(self: Box<Self>) -> Vec<CaptureFile> {
        self.files
    }

    fn packet(&mut self, now: Time, file: u16, p: &Packet, sack: &[SackBlock], hops: u32) {
        let total = self.headers(p, sack, hops);
        let caplen = (total.min(self.snaplen) as usize).max(self.scratch.len().min(self.snaplen as usize));
        let f = &mut self.files[file as usize];
        let need = 16 + caplen as u64;
        if need > self.budget {
            f.missed += 1;
            return;
        }
        self.budget -= need;
        let (sec, nsec) = (now.ns() / 1_000_000_000, now.ns() % 1_000_000_000);
        for v in [sec as u32, nsec as u32, caplen as u32, total] {
            f.bytes.extend_from_slice(&v.to_le_bytes());
        }
        let headers = caplen.min(self.scratch.len());
        f.bytes.extend_from_slice(&self.scratch[..headers]);
        f.bytes.resize(f.bytes.len() + caplen - headers, 0);
        f.packets += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ip_header_checksums_to_zero_and_a_sack_ack_carries_its_blocks() {
        let mut c = Capture::new(vec!["x".into()], 128, 1 << 20, vec![TcpOptions { mss: 1448, sack: true, timestamps: true }]);
        let p = Packet { flow: 0, kind: PktKind::Ack, src: 3, dst: 1, ack: 1448, n_sack: 2, ..Default::default() };
        let sack = [SackBlock { start: 2896, end: 4344 }, SackBlock { start: 5792, end: 7240 }];
        let total = c.headers(&p, &sack, 2);
        let h = &c.scratch;
        assert_eq!(checksum(&h[..20]), 0);
        assert_eq!((h[8], h[9]), (62, 6));
        // TCP header: 20 + NOP NOP TS (12) + NOP NOP SACK (2 + 16) = 52
        assert_eq!(total as usize, 20 + 20 + 12 + 20);
        assert_eq!(h[20 + 12] >> 4, 13);
        let (isn_s, _) = isn(0);
        let ack = u32::from_be_bytes(h[28..32].try_into().unwrap());
        assert_eq!(ack, isn_s.wrapping_add(1 + 1448));
        let opts = &h[40..];
        assert_eq!(&opts[12..16], &[1, 1, 5, 18]);
        assert_eq!(u32::from_be_bytes(opts[16..20].try_into().unwrap()), isn_s.wrapping_add(1 + 2896));
    }

    #[test]
    fn the_cap_stops_writing_and_counts_what_it_missed() {
        let mut c = Capture::new(vec!["x".into()], 96, 24 + 3 * (16 + 96), vec![]);
        let p = Packet { kind: PktKind::Data, len_bytes: 1448, size_bytes: 1500, ..Default::default() };
        for _ in 0..5 {
            c.packet(Time::from_ns(1), 0, &p, &[], 0);
        }
        let f = &Box::new(c).finish()[0];
        assert_eq!((f.packets, f.missed, f.bytes.len()), (3, 2, 24 + 3 * (16 + 96)));
    }
}
