//! Packets and the arena they live in (used by `net`, `aqm` and `tcp`; depends on none of them).
//!
//! Packets are allocated from a `PacketArena` (a `Vec` plus a free list) and referred to by a
//! 32-bit `PacketId`; after warm-up the arena stops growing, so steady state allocates nothing.

use crate::units::Time;

/// Index of a packet in the arena.
pub type PacketId = u32;

/// Most packets alive at once (queued or in flight, about 150 bytes each). A run that needs more
/// has a queue or a window without a useful bound; it stops with an error instead of exhausting
/// memory.
pub const MAX_LIVE_PACKETS: usize = 1 << 24;

/// ECN codepoint in the IP header (RFC 3168 section 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect0,
    Ect1,
    Ce,
}

impl Ecn {
    pub fn is_ect(self) -> bool {
        !matches!(self, Ecn::NotEct)
    }

    /// The two ECN bits of the IP header (RFC 3168 section 5): Not-ECT 00, ECT(1) 01, ECT(0)
    /// 10, CE 11.
    #[inline]
    pub fn bits(self) -> u8 {
        match self {
            Ecn::NotEct => 0b00,
            Ecn::Ect1 => 0b01,
            Ecn::Ect0 => 0b10,
            Ecn::Ce => 0b11,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PktKind {
    #[default]
    Data,
    Ack,
    /// Connection request (sender -> receiver).
    Syn,
    /// Reply to a SYN (receiver -> sender).
    SynAck,
    /// The ACK of the SYN-ACK that completes the handshake (sender -> receiver).
    HandshakeAck,
    /// The sender's ACK of the receiver's FIN, closing a finite flow (sender -> receiver).
    CloseAck,
    /// The sender's reset of an aborted connection (sender -> receiver).
    Rst,
    /// A datagram of an unresponsive source (`traffic::cbr`); `seq` is its index.
    Datagram,
}

impl PktKind {
    /// Sent by the data sender (counted in the flow's data direction).
    #[inline]
    pub fn from_sender(self) -> bool {
        matches!(self, PktKind::Data | PktKind::Syn | PktKind::HandshakeAck | PktKind::CloseAck | PktKind::Rst | PktKind::Datagram)
    }
}

/// A SACK block (RFC 2018): bytes `[start, end)` received out of order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// At most 4 blocks fit in the TCP option space; 3 when timestamps are used (RFC 2018 section 3).
pub const MAX_SACK_BLOCKS: usize = 4;

/// An AccECN option (RFC 9768 section 3.2.3) as an ACK carries it, in Order 1 (kind 174: EE1B,
/// ECEB, EE0B, the order Linux sends): its first `fields` counters, each the 24 least
/// significant bits of the receiver's byte counter of that codepoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccEcnOption {
    /// Counters carried, 0-3 (an option of length 2 + 3 x fields).
    pub fields: u8,
    /// EE1B: payload bytes received ECT(1), mod 2^24.
    pub e1b: u32,
    /// ECEB: payload bytes received CE, mod 2^24.
    pub ceb: u32,
    /// EE0B: payload bytes received ECT(0), mod 2^24.
    pub e0b: u32,
}

impl AccEcnOption {
    /// ECEB, if the option carries it (the second field of Order 1).
    pub fn ceb(&self) -> Option<u32> {
        (self.fields >= 2).then_some(self.ceb)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Packet {
    /// Flow this packet belongs to (index into the engine's flow table).
    pub flow: u32,
    pub kind: PktKind,
    /// Destination node.
    pub dst: u32,
    /// Where it is on its flow's path: the engine's slot (`Sim::hops`) of the next link it
    /// enters, then of the link whose queue it is in or whose wire it is on.
    pub hop: u32,
    /// Node that sent it (with `dst`, the address pair disciplines may classify by).
    pub src: u32,
    /// DiffServ codepoint (RFC 2474), set per flow; class-based disciplines may classify by it.
    pub dscp: u8,
    /// The flow's service port (the data's destination port, the ACKs' source port); class-based
    /// disciplines may classify by it.
    pub port: u16,
    /// Size on the wire, headers included, in bytes.
    pub size_bytes: u32,
    /// Data: sequence number of the first payload byte.
    pub seq: u64,
    /// Data: payload length in bytes.
    pub len_bytes: u32,
    /// ACK: cumulative acknowledgment (next byte expected).
    pub ack: u64,
    /// ACK: how many SACK blocks it carries; the blocks are kept by the arena
    /// (`PacketArena::alloc_with_sack`, `PacketArena::sack`), so a packet without them (nearly
    /// all) is not 64 bytes larger.
    pub n_sack: u8,
    pub ecn: Ecn,
    /// ECN-Echo flag on ACKs (RFC 3168).
    pub ece: bool,
    /// ACK with AccECN feedback (RFC 9768 section 3.2.2): the ACE field (AE, CWR, ECE as one
    /// 3-bit counter), the receiver's count of CE-marked packets mod 8.
    pub ace: u8,
    /// ACK: it carries an AccECN option, kept by the arena (`PacketArena::accecn`).
    pub accecn_opt: bool,
    /// Congestion Window Reduced flag on data (RFC 3168).
    pub cwr: bool,
    /// Data: this is a retransmission.
    pub retx: bool,
    /// Data: the last segment of a finite flow, which carries its FIN; ACK: the receiver's FIN
    /// (it closes once it has read everything, `TcpConfig::teardown`).
    pub fin: bool,
    /// Sender's send time (carried like a TSval, used for the receiver's echo).
    pub tsval: Time,
    /// ACK: echo of the TSval of the segment that triggered this ACK.
    pub tsecr: Time,
    /// Time the packet entered its current queue (for sojourn time).
    pub enq_time: Time,
    /// Slot in use (arena bookkeeping; also lets the end-of-run conservation check find in-flight packets).
    pub live: bool,
    /// Data of a flow under TCP Small Queues (`tcp::tsq`) not yet done at its first link: its
    /// share of its skb's overhead, charged with its payload to its sender's host queue (0:
    /// nothing charged). The engine reports its TX completion (or its drop) to the sender and
    /// clears it.
    pub tsq: u16,
}

impl Packet {
    /// The DS field of its IP header (RFC 2474, RFC 3168): DSCP << 2 | ECN, as Linux's
    /// `ipv4_get_dsfield` reads it (classifiers and `ce_threshold_selector` match on it).
    #[inline]
    pub fn ds_field(&self) -> u8 {
        (self.dscp << 2) | self.ecn.bits()
    }
}

/// Pool of packets with O(1) alloc and free.
#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
    live: usize,
    /// The SACK blocks of the packets that carry them, by packet id (the first `n_sack` of an
    /// entry are its packet's); grown only as far as the highest id that ever carried some.
    sacks: Vec<[SackBlock; MAX_SACK_BLOCKS]>,
    /// The AccECN options of the ACKs that carry one, by packet id (grown as `sacks`).
    accecn: Vec<AccEcnOption>,
}

impl PacketArena {
    pub fn new() -> PacketArena {
        PacketArena::default()
    }

    /// Take a slot and fill it with `p`.
    #[inline]
    pub fn alloc(&mut self, mut p: Packet) -> PacketId {
        p.live = true;
        self.live += 1;
        let id = match self.free.pop() {
            Some(id) => id,
            None => self.new_slot(),
        };
        // one store of the packet (built in its slot where the caller's literal allows)
        self.slots[id as usize] = p;
        id
    }

    /// Take a slot and let `fill` write the packet into it (`*p = Packet { .. }`: built in
    /// place, where `alloc` builds it and then copies its 80 bytes).
    #[inline(always)]
    pub fn alloc_with(&mut self, fill: impl FnOnce(&mut Packet)) -> PacketId {
        self.live += 1;
        let id = match self.free.pop() {
            Some(id) => id,
            None => self.new_slot(),
        };
        let p = &mut self.slots[id as usize];
        fill(p);
        p.live = true;
        id
    }

    /// A slot never used before (the arena grows).
    #[cold]
    #[inline(never)]
    fn new_slot(&mut self) -> PacketId {
        if self.slots.len() == self.slots.capacity() {
            self.grow();
        }
        self.slots.push(Packet::default());
        (self.slots.len() - 1) as PacketId
    }

    /// Double the slots, or stop the run (a panic the bindings turn into `EngineError`) when the
    /// limit is reached or memory is short; never the allocator's abort.
    #[cold]
    fn grow(&mut self) {
        let n = self.slots.len();
        if n >= MAX_LIVE_PACKETS {
            crate::error::Error::Limit(format!("more than {MAX_LIVE_PACKETS} packets alive at once: a queue or a window without a useful bound (see docs/RELIABILITY.md)")).raise();
        }
        let more = n.clamp(1024, MAX_LIVE_PACKETS - n);
        if self.slots.try_reserve_exact(more).is_err() {
            crate::error::Error::OutOfMemory(format!("out of memory with {n} packets alive")).raise();
        }
    }

    /// Take a slot for an ACK carrying `blocks` (at most `MAX_SACK_BLOCKS`).
    pub fn alloc_with_sack(&mut self, mut p: Packet, blocks: &[SackBlock]) -> PacketId {
        p.n_sack = blocks.len() as u8;
        let id = self.alloc(p);
        if !blocks.is_empty() {
            let i = id as usize;
            if self.sacks.len() <= i {
                self.sacks.resize(i + 1, [SackBlock::default(); MAX_SACK_BLOCKS]);
            }
            self.sacks[i][..blocks.len()].copy_from_slice(blocks);
        }
        id
    }

    /// The SACK blocks packet `id` carries.
    #[inline]
    pub fn sack(&self, id: PacketId) -> &[SackBlock] {
        match self.slots[id as usize].n_sack as usize {
            0 => &[],
            n => &self.sacks[id as usize][..n],
        }
    }

    /// Attach an AccECN option to ACK `id`.
    pub fn attach_accecn(&mut self, id: PacketId, opt: AccEcnOption) {
        let i = id as usize;
        if self.accecn.len() <= i {
            self.accecn.resize(i + 1, AccEcnOption::default());
        }
        self.accecn[i] = opt;
        self.slots[i].accecn_opt = true;
    }

    /// The AccECN option packet `id` carries, if any.
    #[inline]
    pub fn accecn(&self, id: PacketId) -> Option<AccEcnOption> {
        self.slots[id as usize].accecn_opt.then(|| self.accecn[id as usize])
    }

    /// A copy of packet `id` (a link that duplicates), its SACK blocks and AccECN option included.
    pub fn duplicate(&mut self, id: PacketId) -> PacketId {
        let blocks = *self.sacks.get(id as usize).unwrap_or(&[SackBlock::default(); MAX_SACK_BLOCKS]);
        let opt = self.accecn(id);
        // the copy is charged to no sender's host queue (`tcp::tsq`)
        let mut p = Packet { tsq: 0, ..self.get(id).clone() };
        p.accecn_opt = false;
        let n = p.n_sack as usize;
        let copy = self.alloc_with_sack(p, &blocks[..n]);
        if let Some(o) = opt {
            self.attach_accecn(copy, o);
        }
        copy
    }

    #[inline]
    pub fn free(&mut self, id: PacketId) {
        let p = &mut self.slots[id as usize];
        debug_assert!(p.live, "double free of packet {id}");
        p.live = false;
        self.live -= 1;
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Slots ever created (the arena's high-water mark).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Iterate over live packets (end-of-run accounting; not for the hot path).
    pub fn iter_live(&self) -> impl Iterator<Item = &Packet> {
        self.slots.iter().filter(|p| p.live)
    }
}

/// What an endpoint may touch while handling an event: it allocates packets in the arena and
/// appends them to `out`; the engine routes them after the call.
pub struct TxCtx<'a> {
    pub now: Time,
    pub arena: &'a mut PacketArena,
    pub out: &'a mut Vec<PacketId>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_freed_slots() {
        let mut a = PacketArena::new();
        let x = a.alloc(Packet { seq: 1, ..Default::default() });
        let y = a.alloc(Packet { seq: 2, ..Default::default() });
        a.free(x);
        let z = a.alloc(Packet { seq: 3, ..Default::default() });
        assert_eq!(z, x);
        assert_eq!(a.get(y).seq, 2);
        assert_eq!(a.get(z).seq, 3);
        assert_eq!(a.live(), 2);
        assert_eq!(a.capacity(), 2);
    }

    /// SACK blocks live beside the packets, for the packets that carry them: a packet copied
    /// or built on the per-packet path is 80 bytes, not 152.
    #[test]
    fn sack_blocks_are_kept_beside_the_packet() {
        assert!(std::mem::size_of::<Packet>() <= 80, "Packet is {} bytes", std::mem::size_of::<Packet>());
        let mut a = PacketArena::new();
        let plain = a.alloc(Packet { ack: 7, ..Default::default() });
        let blocks = [SackBlock { start: 10, end: 20 }, SackBlock { start: 30, end: 40 }];
        let with = a.alloc_with_sack(Packet { ack: 5, ..Default::default() }, &blocks);
        assert_eq!((a.sack(plain), a.get(with).n_sack), (&[][..], 2));
        assert_eq!(a.sack(with), &blocks[..]);
        let copy = a.duplicate(with);
        assert_eq!((a.sack(copy), a.get(copy).ack), (&blocks[..], 5));
        // a slot reused by a packet without blocks carries none
        a.free(with);
        let again = a.alloc(Packet::default());
        assert_eq!((again, a.sack(again)), (with, &[][..]));
        // an AccECN option is kept beside its ACK too, copied with it, and gone with the slot
        let opt = AccEcnOption { fields: 2, e1b: 7, ceb: 3, e0b: 0 };
        a.attach_accecn(again, opt);
        let copy = a.duplicate(again);
        assert_eq!((a.accecn(again), a.accecn(copy), a.accecn(plain)), (Some(opt), Some(opt), None));
        a.free(again);
        let reused = a.alloc(Packet::default());
        assert_eq!((reused, a.accecn(reused)), (again, None));
    }
}
