//! TCP receiver: reassembly, cumulative ACKs, SACK blocks, delayed ACKs, ECN echo.
//!
//! Sources:
//! * Cumulative ACK of the next expected byte; out-of-order data kept as disjoint blocks.
//! * SACK, RFC 2018 section 4: the first block reports the most recently received segment's
//!   block; the others repeat the most recently reported blocks; at most 3 blocks (room left by
//!   the timestamp option).
//! * Delayed ACKs, RFC 1122 section 4.2.3.2 and RFC 5681 section 4.2: ACK at least every second
//!   full-size segment and within `delack_timeout`; ACK immediately when a segment arrives out of
//!   order, is a duplicate, or fills (part of) a hole.
//! * Quick-ACK mode (Linux `tcp_incr_quickack`, `tcp_enter_quickack_mode`; `quickack`): the
//!   first `quickack` segments are each acknowledged at once (Linux: 16, TCP_MAX_QUICKACKS, with
//!   the default receive buffer), and in the Linux profile so are the next `quickack` after a
//!   duplicate segment arrives, and the next 2 after a CE mark that starts an ECN echo. ns-3 has
//!   no such mode; it acknowledges the first data segment at once (`quickack` 1).
//! * ECN feedback (`feedback`: `[tcp] ecn_feedback`, else the congestion control's):
//!   * RFC 3168 section 6.1.3: ECE is set on every ACK from a CE arrival until a segment with
//!     CWR arrives;
//!   * DCTCP's echo (RFC 8257 section 3.2; Linux `dctcp_ece_ack_update`): ECE reflects the CE
//!     mark of the segments the ACK covers, and when the mark changes while an ACK is being
//!     delayed, an ACK for the segments before it goes out at once with the old ECE; CWR is
//!     ignored;
//!   * AccECN (RFC 9768; `accecn.rs`): every ACK carries the ACE field (CE packets received, mod
//!     8) and, with `accecn_option`, the AccECN option (bytes received per codepoint) where it
//!     fits beside the SACK option, which keeps at least two blocks; a CE packet after one that
//!     was not, and the second CE mark since the last ACK, are acknowledged at once; CWR is
//!     ignored.
//! * TSecr echoes the TSval of the earliest segment covered by the ACK (RFC 7323 section 4.3).
//! * Teardown (`teardown`, RFC 9293 section 3.6): once every byte up to the sender's FIN is
//!   delivered, the application closes, so the ACK of the FIN (sent at once) carries the
//!   receiver's FIN too, as does every ACK after it (a retransmitted FIN). A RST from the
//!   sender (an abort) ends the connection: later segments are not acknowledged.
//!
//! Deviations: no D-SACK (RFC 2883); the receiver's FIN is not retransmitted on a timer of its
//! own if it or the sender's ACK of it is lost (it goes again only with the ACK of a
//! retransmitted last segment), and a segment arriving after a RST is dropped silently; no window updates (the advertised window is the sender-side
//! `rwnd_bytes` setting); Linux's quick-ACK count is min(16, rcv_wnd / (2 MSS)), taken as 16.

use smallvec::SmallVec;
use std::sync::Arc;

use super::accecn::{fit_option, AccEcnReceiver};
use super::negotiation::{self, EcnMode};
use super::{EcnFeedback, TcpConfig, TxCtx};
use crate::packet::{Ecn, Packet, PktKind, SackBlock, MAX_SACK_BLOCKS};
use crate::units::{Dur, Opt, Time};

/// SACK blocks sent per ACK (RFC 2018 with the 10-byte timestamp option).
const SACK_BLOCKS: usize = 3;
const _: () = assert!(SACK_BLOCKS <= MAX_SACK_BLOCKS);

/// What the receiver reads of an arriving segment (the engine copies these few fields out of
/// the packet instead of the whole packet).
#[derive(Clone, Copy, Debug, Default)]
pub struct Segment {
    /// Sequence number of its first payload byte.
    pub seq: u64,
    /// Payload length, bytes.
    pub len_bytes: u32,
    /// The sender's timestamp.
    pub tsval: Time,
    pub ecn: Ecn,
    /// Congestion Window Reduced (RFC 3168).
    pub cwr: bool,
    /// It carries the FIN.
    pub fin: bool,
    /// A SYN's ECN request: its AE, CWR and ECE flags (`negotiation.rs`).
    pub ace: u8,
}

impl From<&Packet> for Segment {
    #[inline(always)]
    fn from(p: &Packet) -> Segment {
        Segment { seq: p.seq, len_bytes: p.len_bytes, tsval: p.tsval, ecn: p.ecn, cwr: p.cwr, fin: p.fin, ace: p.ace }
    }
}

/// An out-of-order block of received bytes `[start, end)`.
#[derive(Clone, Copy, Debug, Default)]
struct OooBlock {
    start: u64,
    end: u64,
}

/// A receiver's out-of-order data: made at the first hole and freed when the last one fills,
/// so a receiver without holes holds 8 bytes for it, not 48 (issue 21's memory per flow), and
/// one allocation a loss episode (the first four blocks inline). Freeing forgets `recent`,
/// which is exact: once every hole is filled, the sequence numbers it held lie below
/// `rcv_nxt`, where no later block can hold them.
///
/// Holes fill mostly from the front (retransmissions, in order), so the blocks are kept as a
/// vector with a gap at its front (`gone`): delivering the first blocks moves none, and a
/// change near the front moves the blocks before it rather than the ones after. With the
/// hundreds of holes of big windows, a plain vector moved every block at each.
#[derive(Debug, Default)]
struct Holes {
    /// `ooo[gone..]`: the out-of-order blocks above rcv_nxt, sorted by start, disjoint and
    /// non-adjacent (never empty); `ooo[..gone]`, places free at the front.
    ooo: SmallVec<[OooBlock; 4]>,
    gone: usize,
    /// Sequence numbers inside the three most recently changed blocks, newest first (0 = none);
    /// resolved to blocks when an ACK is built (a block may have merged or been delivered since).
    recent: [u64; SACK_BLOCKS],
}

impl Holes {
    /// The blocks, lowest first (indices below are into this slice).
    #[inline]
    fn blocks(&self) -> &[OooBlock] {
        &self.ooo[self.gone..]
    }

    /// The out-of-order block containing byte `seq`, if any.
    fn block_of(&self, seq: u64) -> Option<usize> {
        let b = self.blocks();
        let i = b.partition_point(|b| b.end <= seq);
        (i < b.len() && b[i].start <= seq).then_some(i)
    }

    /// The first `k` blocks were delivered. The places they leave are taken back, by moving
    /// the blocks after them, once they are as many as those: each block moves O(1) times.
    fn deliver_front(&mut self, k: usize) {
        self.gone += k;
        if self.gone >= 16 && 2 * self.gone >= self.ooo.len() {
            self.ooo.drain(..self.gone);
            self.gone = 0;
        }
    }

    /// Put `b` at index `i`, moving the blocks before it if they are fewer and there is room.
    fn insert(&mut self, i: usize, b: OooBlock) {
        let live = self.ooo.len() - self.gone;
        if self.gone > 0 && i < live / 2 {
            let g = self.gone;
            self.ooo.copy_within(g..g + i, g - 1);
            self.gone -= 1;
            self.ooo[g - 1 + i] = b;
        } else {
            self.ooo.insert(self.gone + i, b);
        }
    }

    /// Make block `i` span `b`, and take out blocks `i + 1 .. j` (merged into it), moving
    /// the blocks before them if they are fewer.
    fn merge(&mut self, i: usize, j: usize, b: OooBlock) {
        let (g, n) = (self.gone, j - i - 1);
        let live = self.ooo.len() - g;
        self.ooo[g + i] = b;
        if n == 0 {
            return;
        }
        if i + 1 < live - j {
            // the first i + 1 blocks move up by n
            self.ooo.copy_within(g..g + i + 1, g + n);
            self.gone += n;
        } else {
            self.ooo.drain(g + i + 1..g + j);
        }
    }
}

crate::counters! {
    /// Monotonic receiver counters.
    pub struct ReceiverCounters {
        /// Payload bytes received for the first time, in order or not, counted when they arrive (goodput).
        received_bytes: "bytes",
        /// In-order payload bytes delivered to the application; in a window this may include bytes that arrived out of order before it started.
        delivered_bytes: "bytes",
        /// Data packets received, duplicates included.
        data_pkts: "pkts",
        /// Data packets carrying only bytes already received (in order or out of order).
        dup_pkts: "pkts",
        /// ACKs sent.
        acks_sent: "pkts",
        /// SYN-ACKs sent (one per SYN received).
        synacks_sent: "pkts",
        /// ACKs sent that acknowledge nothing new: the same cumulative ACK as the ACK before (duplicate ACKs as a packet capture counts them: Wireshark's tcp.analysis.duplicate_ack).
        dup_acks: "pkts",
        /// SACK blocks carried by the ACKs sent (RFC 2018).
        sack_blocks: "count",
        /// Data packets received CE-marked (duplicates included).
        ce_pkts: "pkts",
    }
}

/// What a receiver's settings derive from its TCP configuration, fixed for the connection's
/// life: one copy shared by every receiver configured alike (issue 21's memory per flow).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Settings {
    sack: bool,
    delayed_ack: bool,
    delack_timeout: Dur,
    ack_bytes: u32,
    option_padding: super::OptionPadding,
    timestamps: bool,
    syn_bytes: u32,
    /// Segments acknowledged at once after a duplicate or a new CE mark (Linux profile:
    /// `quickack`; ns-3 has no quick-ACK mode: 0).
    quickack: u32,
    /// AccECN: the option goes on every ACK it fits on (`[tcp] accecn_option`).
    accecn_option: bool,
    /// Its application closes once everything is read: every ACK from then on carries its FIN.
    teardown: bool,
    /// The FIN goes in its own packet after a pure ACK of the sender's FIN (ns-3).
    fin_separate: bool,
}

#[derive(Debug)]
pub struct Receiver {
    pub flow: u32,
    pub node: u32,
    /// Node of the sender (destination of ACKs).
    pub peer: u32,
    /// DiffServ codepoint of every packet it sends.
    pub dscp: u8,
    /// The flow's service port, carried by every packet.
    pub port: u16,
    /// Its group's settings (one copy for all its flows: `share_settings`).
    cfg: Arc<Settings>,
    /// Next byte expected.
    pub rcv_nxt: u64,
    /// The out-of-order data while there is any (`None`: no hole).
    holes: Option<Box<Holes>>,
    /// Full segments received and not yet acknowledged.
    unacked_segs: u32,
    delack_deadline: Time,
    /// Quick-ACK mode: this many more segments are acknowledged at once (Linux `icsk_ack.quick`).
    quick: u32,
    ece_pending: bool,
    /// How CE marks are fed back: RFC 3168's ECE until CWR, DCTCP's echo (ECE = the CE mark
    /// of the last segment received, RFC 8257 section 3.2) or AccECN (RFC 9768).
    pub feedback: EcnFeedback,
    /// AccECN's counters (with `feedback` AccEcn; made at their first use).
    accecn: Option<Box<AccEcnReceiver>>,
    /// Codepoint of its SYN-ACK and ACKs: the sender's control codepoint (`Sender::control_ecn`:
    /// both ends run the flow's congestion control, so with DCTCP they are ECN-capable too).
    pub ect: Ecn,
    /// The ECN feedback it can give (`[tcp] peer_ecn`; `None`: no ECN), and the connection's
    /// once settled (`negotiation.rs`: the first SYN decides, a retransmitted one gets the same
    /// answer).
    pub able: EcnMode,
    settled: Option<EcnMode>,
    /// TSval to echo in the next ACK.
    ts_echo: Time,
    /// The cumulative ACK of the last ACK sent (`u64::MAX`: none yet).
    last_ack: u64,
    /// A finite flow's end (the byte after its last), known from the segment with the FIN.
    fin_seq: Opt<u64>,
    /// When every byte up to the FIN was delivered in order: the flow completed.
    pub completed_at: Opt<Time>,
    /// The sender reset the connection: nothing more is acknowledged.
    reset: bool,
    pub counters: ReceiverCounters,
}

impl Receiver {
    /// AccECN's counters, made at their first use (only a receiver whose `feedback` is AccECN
    /// has them: 8 bytes instead of their size in every other flow).
    fn accecn(&mut self) -> &mut AccEcnReceiver {
        self.accecn.get_or_insert_with(Box::default)
    }

    /// Share its settings with the receivers configured alike before it: `pool` holds one copy
    /// of each distinct [`Settings`].
    pub fn share_settings(&mut self, pool: &mut std::collections::HashSet<Arc<Settings>>) {
        super::intern(pool, &mut self.cfg)
    }

    pub fn new(flow: u32, node: u32, peer: u32, cfg: &TcpConfig) -> Receiver {
        Receiver {
            flow,
            node,
            peer,
            dscp: 0,
            port: 0,
            cfg: Arc::new(Settings {
                sack: cfg.sack,
                delayed_ack: cfg.delayed_ack(),
                delack_timeout: cfg.delack_timeout(),
                ack_bytes: cfg.ack_size().get() as u32,
                option_padding: cfg.option_padding(),
                timestamps: cfg.timestamps(),
                syn_bytes: cfg.syn_size().get() as u32,
                quickack: if cfg.profile == crate::tcp::Profile::Linux { cfg.quickack() } else { 0 },
                accecn_option: cfg.accecn_option,
                teardown: cfg.teardown,
                fin_separate: cfg.fin_ack() == super::FinAck::Separate,
            }),
            rcv_nxt: 0,
            holes: None,
            unacked_segs: 0,
            delack_deadline: Time::NEVER,
            quick: cfg.quickack(),
            ece_pending: false,
            feedback: EcnFeedback::Classic,
            accecn: None,
            ect: Ecn::NotEct,
            able: None,
            settled: None,
            ts_echo: Time::ZERO,
            last_ack: u64::MAX,
            fin_seq: Opt::NONE,
            completed_at: Opt::NONE,
            reset: false,
            counters: ReceiverCounters::default(),
        }
    }

    pub fn next_deadline(&self) -> Time {
        self.delack_deadline
    }

    /// Wire size of its SYN-ACK.
    pub fn synack_bytes(&self) -> u32 {
        self.cfg.syn_bytes
    }

    /// Delayed-ACK timer.
    pub fn on_timer(&mut self, ctx: &mut TxCtx<'_>) {
        if ctx.now >= self.delack_deadline {
            self.send_ack(ctx);
        }
    }

    /// A SYN arrived: answer with a SYN-ACK (every SYN, duplicates included, as a listener
    /// answers a retransmitted SYN), echoing its timestamp.
    pub fn on_syn(&mut self, syn: impl Into<Segment>, ctx: &mut TxCtx<'_>) {
        let syn: Segment = syn.into();
        let mode = self.settled.unwrap_or_else(|| negotiation::server_mode(syn.ace, self.able));
        self.set_mode(mode);
        let ace = negotiation::synack_flags(mode, syn.ecn);
        let p = Packet { flow: self.flow, kind: PktKind::SynAck, dst: self.peer, src: self.node, dscp: self.dscp, port: self.port, size_bytes: self.cfg.syn_bytes, tsval: ctx.now, tsecr: syn.tsval, ecn: self.ect, ace, ..Default::default() };
        ctx.out.push(ctx.arena.alloc(p));
        self.counters.synacks_sent += 1;
    }

    /// The connection's ECN feedback is `mode` (from the SYN, or without a handshake from both
    /// ends' abilities): without ECN its packets are Not-ECT and it feeds nothing back.
    pub fn set_mode(&mut self, mode: EcnMode) {
        self.settled = Some(mode);
        match mode {
            Some(f) => self.feedback = f,
            None => {
                self.feedback = EcnFeedback::Classic; // nothing to echo: no ECN-capable data comes
                self.ect = Ecn::NotEct;
            }
        }
    }

    /// The sender reset the connection (an abort): forget it, acknowledge nothing more.
    pub fn on_rst(&mut self) {
        self.reset = true;
        self.delack_deadline = Time::NEVER;
    }

    /// A data segment arrived.
    #[inline]
    pub fn on_data(&mut self, p: impl Into<Segment>, ctx: &mut TxCtx<'_>) {
        let p: Segment = p.into();
        if self.reset {
            return; // a segment overtaken by the RST, arriving after it (a real stack would answer with a RST)
        }
        self.counters.data_pkts += 1;
        self.counters.ce_pkts += (p.ecn == Ecn::Ce) as u64;
        let (start, end) = (p.seq, p.seq + p.len_bytes as u64);
        let mut triggered = false; // AccECN: an ACK goes at once (RFC 9768 section 3.2.2.5.1)
        match self.feedback {
            EcnFeedback::Dctcp => {
                let ce = p.ecn == Ecn::Ce;
                if ce != self.ece_pending {
                    if self.unacked_segs > 0 {
                        self.send_ack(ctx); // the segments before the change, with the old ECE
                    }
                    self.ece_pending = ce;
                }
            }
            EcnFeedback::Classic => {
                if p.cwr {
                    self.ece_pending = false;
                }
                if p.ecn == Ecn::Ce {
                    if !self.ece_pending && self.cfg.quickack > 0 {
                        self.quick = self.quick.max(2); // Linux tcp_ecn_check_ce: don't delay this echo
                    }
                    self.ece_pending = true;
                }
            }
            // counted when acceptable: not wholly below rcv_nxt (RFC 9293 section 3.10.7.4)
            EcnFeedback::AccEcn => {
                let beyond = end > self.rcv_nxt;
                triggered = self.accecn().on_segment(p.ecn, p.len_bytes, beyond);
            }
        }
        let had_holes = self.holes.is_some();
        if self.unacked_segs == 0 {
            self.ts_echo = p.tsval;
        }
        let immediate = if end <= self.rcv_nxt {
            self.counters.dup_pkts += 1;
            self.quick = self.quick.max(self.cfg.quickack); // Linux: a retransmission, quick-ACK mode
            true
        } else if start <= self.rcv_nxt {
            self.counters.received_bytes += end - self.rcv_nxt;
            self.advance(end);
            had_holes
        } else {
            // Bulk flows send whole aligned segments: one either is already held or is new.
            if self.holes.as_ref().is_some_and(|h| h.block_of(start).is_some()) {
                self.counters.dup_pkts += 1;
            } else {
                self.counters.received_bytes += end - start;
            }
            self.insert_ooo(start, end);
            true
        };
        if p.fin {
            self.fin_seq = Opt::some(end);
        }
        let done = self.fin_seq.get().is_some_and(|f| self.rcv_nxt >= f);
        if done && self.completed_at.is_none() {
            self.completed_at = Opt::some(ctx.now);
        }
        self.unacked_segs += 1;
        // RFC 9293 section 3.10.7.4: the FIN is acknowledged at once (no delayed ACK)
        if immediate || triggered || done || self.quick > 0 || !self.cfg.delayed_ack || self.unacked_segs >= 2 {
            if self.cfg.teardown && self.cfg.fin_separate && p.fin && done && !immediate {
                // ns-3: ReceivedData acknowledges the in-order FIN, then DoPeerClose -> Close
                // sends FIN|ACK
                let closed = self.completed_at.take();
                self.send_ack(ctx);
                self.completed_at = closed.into();
            }
            self.send_ack(ctx);
        } else if self.delack_deadline.is_never() {
            self.delack_deadline = ctx.now + self.cfg.delack_timeout;
        }
    }

    /// In-order data up to `end`; absorb out-of-order blocks that became contiguous.
    #[inline]
    fn advance(&mut self, end: u64) {
        let old = self.rcv_nxt;
        self.rcv_nxt = self.rcv_nxt.max(end);
        if let Some(h) = &mut self.holes {
            let b = h.blocks();
            let mut k = 0;
            while k < b.len() && b[k].start <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(b[k].end);
                k += 1;
            }
            if k == b.len() {
                self.holes = None;
            } else if k > 0 {
                h.deliver_front(k);
            }
        }
        self.counters.delivered_bytes += self.rcv_nxt - old;
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        let h = self.holes.get_or_insert_with(Box::default);
        let b = h.blocks();
        // first block that ends at or after `start` (could merge)
        let i = b.partition_point(|b| b.end < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        while j < b.len() && b[j].start <= e {
            s = s.min(b[j].start);
            e = e.max(b[j].end);
            j += 1;
        }
        if i == j {
            h.insert(i, OooBlock { start: s, end: e });
        } else {
            h.merge(i, j, OooBlock { start: s, end: e });
        }
        // most recent first; `start` lies inside the (possibly merged) block
        h.recent = [start, h.recent[0], h.recent[1]];
    }

    /// Send an ACK of everything received so far.
    #[inline(always)]
    fn send_ack(&mut self, ctx: &mut TxCtx<'_>) {
        if self.holes.is_some() || self.feedback == EcnFeedback::AccEcn {
            return self.send_ack_with_options(ctx);
        }
        // the common ACK: no SACK block, no AccECN option (what `send_ack_with_options` sends
        // then), built in its arena slot
        let (flow, dst, src, dscp, port, ack, ecn, ece, tsecr, now) =
            (self.flow, self.peer, self.node, self.dscp, self.port, self.rcv_nxt, self.ect, self.ece_pending, self.ts_echo, ctx.now);
        let fin = self.cfg.teardown && self.completed_at.is_some();
        let size_bytes = self.cfg.ack_bytes;
        let id = ctx.arena.alloc_with(|p| *p = Packet { flow, kind: PktKind::Ack, dst, src, dscp, port, ack, ecn, ece, tsecr, tsval: now, fin, size_bytes, ..Default::default() });
        self.counters.dup_acks += (ack == self.last_ack) as u64;
        self.last_ack = ack;
        self.ack_sent(id, ctx);
    }

    /// What every ACK sent does once it is in the arena (`id`).
    #[inline(always)]
    fn ack_sent(&mut self, id: crate::packet::PacketId, ctx: &mut TxCtx<'_>) {
        ctx.out.push(id);
        self.counters.acks_sent += 1;
        self.quick = self.quick.saturating_sub(self.unacked_segs); // tcp_dec_quickack_mode
        self.unacked_segs = 0;
        self.delack_deadline = Time::NEVER;
    }

    /// `send_ack` with SACK blocks or an AccECN option to place.
    #[inline(never)]
    fn send_ack_with_options(&mut self, ctx: &mut TxCtx<'_>) {
        let mut blocks = [SackBlock::default(); SACK_BLOCKS];
        let mut n_sack = 0;
        let mut p = Packet {
            flow: self.flow,
            kind: PktKind::Ack,
            dst: self.peer, src: self.node, dscp: self.dscp, port: self.port,
            ack: self.rcv_nxt,
            ecn: self.ect,
            ece: self.ece_pending,
            ace: if self.feedback == EcnFeedback::AccEcn { self.accecn().ace() } else { 0 },
            tsecr: self.ts_echo,
            tsval: ctx.now,
            // the application closed at end of file: its FIN (RFC 9293 CLOSE-WAIT -> LAST-ACK)
            fin: self.cfg.teardown && self.completed_at.is_some(),
            ..Default::default()
        };
        if let Some(h) = self.holes.as_deref().filter(|_| self.cfg.sack) {
            // RFC 2018: the block holding the most recent segment first, then the most recently
            // reported others; fill any remaining slots with the highest blocks.
            let mut picked = [usize::MAX; SACK_BLOCKS];
            let mut n = 0;
            for seq in h.recent.into_iter().filter(|&q| q != 0) {
                if let Some(i) = h.block_of(seq) {
                    if !picked[..n].contains(&i) {
                        picked[n] = i;
                        n += 1;
                    }
                }
            }
            // the highest blocks, by their index (a block's start lies in it)
            let held = h.blocks();
            for i in (0..held.len()).rev() {
                if n == SACK_BLOCKS {
                    break;
                }
                if !picked[..n].contains(&i) {
                    picked[n] = i;
                    n += 1;
                }
            }
            for &k in &picked[..n] {
                let b = held[k];
                blocks[n_sack] = SackBlock { start: b.start, end: b.end };
                n_sack += 1;
            }
        }
        // AccECN option: as many fields as fit, the SACK option keeping at least two blocks
        let mut option = None;
        let mut option_bytes = 0;
        if self.feedback == EcnFeedback::AccEcn {
            if self.cfg.accecn_option {
                if let Some((fields, bytes, blocks)) = fit_option(self.accecn().min_fields(), n_sack as u32, self.cfg.timestamps, self.cfg.option_padding) {
                    n_sack = blocks as usize;
                    option = Some(self.accecn().option(fields));
                    option_bytes = bytes;
                }
            }
            self.accecn().on_ack_sent();
        }
        // SACK option: 8 per block plus kind and length, aligned as the profile does.
        p.size_bytes = self.cfg.ack_bytes + if n_sack > 0 { self.cfg.option_padding.sack_bytes(n_sack as u32, self.cfg.timestamps) } else { 0 } + option_bytes;
        self.counters.dup_acks += (p.ack == self.last_ack) as u64;
        self.counters.sack_blocks += n_sack as u64;
        self.last_ack = p.ack;
        let id = if n_sack == 0 { ctx.arena.alloc(p) } else { ctx.arena.alloc_with_sack(p, &blocks[..n_sack]) };
        if let Some(o) = option {
            ctx.arena.attach_accecn(id, o);
        }
        self.ack_sent(id, ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Counters;
    use crate::packet::PacketArena;

    fn seg(seq: u64) -> Packet {
        Packet { seq, len_bytes: 100, kind: PktKind::Data, ..Default::default() }
    }

    /// A packet the receiver sent, with its SACK blocks.
    struct Sent {
        p: Packet,
        sack: Vec<SackBlock>,
    }

    impl std::ops::Deref for Sent {
        type Target = Packet;
        fn deref(&self) -> &Packet {
            &self.p
        }
    }

    fn deliver(r: &mut Receiver, a: &mut PacketArena, seq: u64, now: u64) -> Vec<Sent> {
        let mut out = vec![];
        let mut ctx = TxCtx { now: Time::from_ns(now), arena: a, out: &mut out };
        r.on_data(&seg(seq), &mut ctx);
        out.iter().map(|&id| Sent { p: a.get(id).clone(), sack: a.sack(id).to_vec() }).collect()
    }

    /// DCTCP's echo (RFC 8257 section 3.2) with delayed ACKs: segments marked 0 0 1 1 1 0 0:
    /// each ACK's ECE is the mark of the segments it covers, and a change of mark while an ACK
    /// is delayed sends that ACK at once with the old mark. CWR does not clear it.
    #[test]
    fn dctcp_echo_reflects_each_segments_mark() {
        let cfg = TcpConfig { mss: crate::units::Bytes::new(100), quickack: Some(0), ..Default::default() };
        let mut r = Receiver::new(0, 1, 0, &cfg);
        r.feedback = EcnFeedback::Dctcp;
        let mut a = PacketArena::new();
        let mut acks = vec![];
        for (k, ce) in [false, false, true, true, true, false, false, true].into_iter().enumerate() {
            let mut p = seg(100 * k as u64);
            p.ecn = if ce { Ecn::Ce } else { Ecn::Ect0 };
            p.cwr = k == 4;
            let mut out = vec![];
            let mut ctx = TxCtx { now: Time::from_ns(k as u64), arena: &mut a, out: &mut out };
            r.on_data(&p, &mut ctx);
            for id in out {
                let ack = a.get(id).clone();
                acks.push((k, ack.ack, ack.ece));
            }
        }
        // k=1 completes a pair (ACK 200, no ECE); k=2 marked: nothing delayed, its state
        // changes, it is held; k=3 completes the pair (ACK 400, ECE); k=4 held; k=5 unmarked:
        // the held k=4 is acknowledged at once with ECE (ACK 500), then k=5 is held; k=6
        // completes it (ACK 700, no ECE); k=7 marked: nothing held, it is held with ECE.
        assert_eq!(acks, vec![(1, 200, false), (3, 400, true), (5, 500, true), (6, 700, false)]);
        // classic echo for comparison: sticky until CWR
        let mut r = Receiver::new(0, 1, 0, &cfg);
        let mut p = seg(0);
        p.ecn = Ecn::Ce;
        let mut out = vec![];
        r.on_data(&p, &mut TxCtx { now: Time::ZERO, arena: &mut a, out: &mut out });
        assert!(r.ece_pending);
        let mut q = seg(100);
        q.ecn = Ecn::Ect0;
        r.on_data(&q, &mut TxCtx { now: Time::ZERO, arena: &mut a, out: &mut out });
        assert!(r.ece_pending, "RFC 3168: ECE until CWR");
    }

    #[test]
    fn quick_ack_mode_acks_the_first_segments_at_once() {
        use crate::tcp::Profile;
        for (profile, quick) in [(Profile::Linux, 16u64), (Profile::Ns3, 1)] {
            let cfg = TcpConfig { mss: crate::units::Bytes::new(100), profile, ..Default::default() };
            let mut r = Receiver::new(0, 1, 0, &cfg);
            let mut a = PacketArena::new();
            let acks: Vec<usize> = (0..40u64).map(|k| deliver(&mut r, &mut a, 100 * k, k).len()).collect();
            let immediate = acks.iter().take_while(|&&n| n == 1).count() as u64;
            assert_eq!(immediate, quick, "{profile:?}: {acks:?}");
            // then every second segment
            let rest = &acks[quick as usize..];
            assert_eq!(rest.iter().sum::<usize>(), rest.len() / 2, "{profile:?}");
            // a duplicate segment re-enters quick-ACK mode (Linux); its own ACK uses one of the 16:
            // of the next 20 segments 15 are acknowledged at once, the other 5 in 2 delayed ACKs
            deliver(&mut r, &mut a, 0, 100);
            let after: usize = (40..60u64).map(|k| deliver(&mut r, &mut a, 100 * k, 200 + k).len()).sum();
            assert_eq!(after as u64, if profile == Profile::Linux { 15 + 2 } else { 10 }, "{profile:?}");
        }
    }

    /// The ns2 profile is ns-2.35's Agent/TCPSink: every segment acknowledged at once, in a
    /// 40-byte ACK (no timestamps, no delayed ACKs), unless the study turns delayed ACKs on.
    #[test]
    fn ns2_profile_acknowledges_every_segment_in_40_bytes() {
        use crate::tcp::Profile;
        let cfg = TcpConfig { mss: crate::units::Bytes::new(100), sack: false, profile: Profile::Ns2, ..Default::default() };
        let mut r = Receiver::new(0, 1, 0, &cfg);
        let mut a = PacketArena::new();
        let acks: Vec<Vec<u32>> = (0..20u64).map(|k| deliver(&mut r, &mut a, 100 * k, k).iter().map(|p| p.size_bytes).collect()).collect();
        assert!(acks.iter().all(|sizes| sizes == &[40]), "{acks:?}");
        let delayed = TcpConfig { delayed_ack: Some(true), ..cfg };
        let mut r = Receiver::new(0, 1, 0, &delayed);
        let n: usize = (0..20u64).map(|k| deliver(&mut r, &mut a, 100 * k, k).len()).sum();
        assert_eq!(n, 10, "Agent/TCPSink/DelAck: every second segment");
    }

    /// ACK sizes on the wire with SACK blocks: Linux 52 + 4 + 8 n (NOP-aligned options), ns-3
    /// 54 + 8 n (options packed; measured from ns-3 3.44 pcaps: 62, 70, 78).
    #[test]
    fn sack_ack_sizes_per_profile() {
        use crate::tcp::Profile;
        for (profile, sizes) in [(Profile::Linux, [64u32, 72, 80]), (Profile::Ns3, [62, 70, 78])] {
            let cfg = TcpConfig { mss: crate::units::Bytes::new(100), profile, quickack: Some(0), ..Default::default() };
            let mut r = Receiver::new(0, 1, 0, &cfg);
            let mut a = PacketArena::new();
            let got: Vec<u32> = [200u64, 400, 600].iter().map(|&q| deliver(&mut r, &mut a, q, q)[0].size_bytes).collect();
            assert_eq!(got, sizes, "{profile:?}: one, two, three SACK blocks");
        }
    }

    #[test]
    fn delayed_ack_every_second_segment_and_timer() {
        let cfg = TcpConfig { mss: crate::units::Bytes::new(100), quickack: Some(0), ..Default::default() };
        let mut r = Receiver::new(0, 1, 0, &cfg);
        let mut a = PacketArena::new();
        assert!(deliver(&mut r, &mut a, 0, 0).is_empty());
        assert_eq!(r.next_deadline(), Time::from_ns(40_000_000));
        let acks = deliver(&mut r, &mut a, 100, 1);
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].ack, 200);
        assert!(deliver(&mut r, &mut a, 200, 2).is_empty());
        let mut out = vec![];
        r.on_timer(&mut TxCtx { now: Time::from_ns(40_000_002), arena: &mut a, out: &mut out });
        assert_eq!(out.len(), 1);
        assert_eq!(a.get(out[0]).ack, 300);
    }

    #[test]
    fn sack_blocks_most_recent_first_and_hole_fill_acks_immediately() {
        let cfg = TcpConfig { mss: crate::units::Bytes::new(100), quickack: Some(0), ..Default::default() };
        let mut r = Receiver::new(0, 1, 0, &cfg);
        let mut a = PacketArena::new();
        deliver(&mut r, &mut a, 0, 0);
        deliver(&mut r, &mut a, 100, 0); // acked, rcv_nxt 200
        // lose 200 and 400, receive 300, 500, 600
        let x = deliver(&mut r, &mut a, 300, 1);
        assert_eq!((x[0].ack, x[0].n_sack), (200, 1));
        let x = deliver(&mut r, &mut a, 500, 2);
        assert_eq!(x[0].n_sack, 2);
        assert_eq!(x[0].sack[0], SackBlock { start: 500, end: 600 });
        assert_eq!(x[0].sack[1], SackBlock { start: 300, end: 400 });
        let x = deliver(&mut r, &mut a, 600, 3);
        assert_eq!(x[0].sack[0], SackBlock { start: 500, end: 700 });
        // retransmission of 200 fills the first hole: immediate ACK up to 400
        let x = deliver(&mut r, &mut a, 200, 4);
        assert_eq!(x[0].ack, 400);
        assert_eq!(x[0].sack[0], SackBlock { start: 500, end: 700 });
        let x = deliver(&mut r, &mut a, 400, 5);
        assert_eq!((x[0].ack, x[0].n_sack), (700, 0));
        assert_eq!(r.counters.delivered_bytes, 700);
    }

    #[test]
    fn received_bytes_count_first_arrivals_and_duplicates_are_found_out_of_order_too() {
        let cfg = TcpConfig { mss: crate::units::Bytes::new(100), ..Default::default() };
        let mut r = Receiver::new(0, 1, 0, &cfg);
        let mut a = PacketArena::new();
        deliver(&mut r, &mut a, 100, 0); // out of order
        assert_eq!((r.counters.received_bytes, r.counters.delivered_bytes), (100, 0));
        deliver(&mut r, &mut a, 100, 1); // the same segment again
        assert_eq!((r.counters.received_bytes, r.counters.dup_pkts), (100, 1));
        let window_start = r.counters;
        deliver(&mut r, &mut a, 0, 2); // fills the hole: 200 bytes delivered, 100 newly received
        let w = r.counters.minus(&window_start);
        assert_eq!((w.received_bytes, w.delivered_bytes), (100, 200));
    }

    /// Receivers configured alike share one copy of their settings; the holes' state exists only
    /// while there are holes.
    #[test]
    fn receivers_share_settings_and_hold_holes_only_while_there_are_some() {
        let (a, b) = (TcpConfig::default(), TcpConfig { sack: false, ..TcpConfig::default() });
        let mut rs: Vec<Receiver> = [&a, &b, &a].into_iter().map(|c| Receiver::new(0, 1, 0, c)).collect();
        let mut pool = std::collections::HashSet::new();
        for r in &mut rs {
            r.share_settings(&mut pool);
        }
        assert_eq!(pool.len(), 2);
        assert!(Arc::ptr_eq(&rs[0].cfg, &rs[2].cfg) && !Arc::ptr_eq(&rs[0].cfg, &rs[1].cfg));
        let r = &mut rs[0];
        r.insert_ooo(300, 400);
        r.insert_ooo(100, 200);
        assert_eq!(r.holes.as_ref().map(|h| (h.blocks().len(), h.recent)), Some((2, [100, 300, 0])));
        r.advance(100); // 100-200 joins, 300-400 still waits
        assert_eq!(r.holes.as_ref().map(|h| h.blocks().len()), Some(1));
        r.advance(300);
        assert!(r.holes.is_none() && r.rcv_nxt == 400, "freed when the last hole fills");
    }

    /// The out-of-order blocks (a vector with free places at its front, `Holes`) hold what a
    /// plain sorted list of blocks holds, after every arrival of random segments of a window of
    /// up to 2,000 (holes filled from the front, in the middle and at the back, blocks merged
    /// on both sides); and each block is found from the bytes in it.
    #[test]
    fn out_of_order_blocks_are_what_a_plain_list_holds() {
        let mut lcg = crate::rng::Lcg(3);
        let mut draw = |n: u64| lcg.below(n);
        let (mut moved_front, mut steps) = (0, 0);
        for round in 0..60 {
            let mut r = Receiver::new(0, 1, 0, &TcpConfig::default());
            let mut plain: Vec<(u64, u64)> = Vec::new(); // the blocks above rcv_nxt
            let mut rcv_nxt = 0u64;
            let span = [20, 300, 2000][round % 3];
            for _ in 0..3000 {
                let seg = rcv_nxt / 100 + if draw(4) == 0 { draw(8) } else { draw(span) };
                let (start, end) = (seg * 100, seg * 100 + 100);
                // the model: merge the segment into the sorted blocks, then deliver from the front
                if end > rcv_nxt {
                    plain.push((start.max(rcv_nxt), end));
                    plain.sort_unstable();
                    let mut merged: Vec<(u64, u64)> = Vec::new();
                    for &(s, e) in &plain {
                        match merged.last_mut() {
                            Some(last) if s <= last.1 => last.1 = last.1.max(e),
                            _ => merged.push((s, e)),
                        }
                    }
                    while merged.first().is_some_and(|b| b.0 <= rcv_nxt) {
                        rcv_nxt = rcv_nxt.max(merged.remove(0).1);
                    }
                    plain = merged;
                }
                if start <= r.rcv_nxt {
                    if end > r.rcv_nxt {
                        r.advance(end);
                    }
                } else {
                    r.insert_ooo(start, end);
                }
                let held: Vec<(u64, u64)> = r.holes.as_ref().map_or(Vec::new(), |h| h.blocks().iter().map(|b| (b.start, b.end)).collect());
                assert_eq!((r.rcv_nxt, &held), (rcv_nxt, &plain), "round {round}");
                if let Some(h) = &r.holes {
                    moved_front += (h.gone > 0) as u32;
                    for w in h.blocks().windows(2) {
                        assert!(w[0].end < w[1].start, "sorted, disjoint, not adjacent");
                    }
                    // each block found from any byte inside it
                    for (k, b) in h.blocks().iter().enumerate() {
                        assert_eq!((h.block_of(b.start), h.block_of(b.end - 1), h.block_of(b.end)), (Some(k), Some(k), None));
                    }
                }
                steps += 1;
            }
        }
        assert!(steps == 180_000 && moved_front > 10_000, "{moved_front} steps with free places at the front");
    }
}
