//! The sender's scoreboard: one record per full-size segment between `snd_una` and `snd_nxt`.
//!
//! Bulk senders only send full MSS segments, so segment `i` covers bytes `[i*mss, (i+1)*mss)` and
//! the scoreboard is a ring indexed by segment number. It keeps the counters Linux keeps
//! (`packets_out`, `sacked_out`, `lost_out`, `retrans_out`), so that RFC 6675's
//!
//! * `IsLost(S)`: at least DupThresh (3) segments above S are SACKed - with full-size segments this
//!   is the same as "more than (DupThresh - 1) * SMSS bytes SACKed above S" and implies the
//!   discontiguous-blocks form - tracked through the third-highest SACKed segment, so marking is
//!   amortized O(1);
//! * `pipe` = packets_out - sacked_out - lost_out + retrans_out (the RFC's per-octet sum, counted
//!   per segment);
//! * `NextSeg()` rule 1 (lowest lost, unSACKed, not yet retransmitted segment) via a cursor
//!   that only moves forward: a segment behind it that becomes a candidate again (a
//!   retransmission RACK marks lost again, snd_una marked lost) is listed, lowest first, rather
//!   than the cursor moved back over every SACKed or retransmitted segment it passed
//!
//! are all O(1) amortized per ACK (the list's, O(log n) an entry). At a timeout every unSACKed
//! segment is marked lost (Linux `tcp_enter_loss`), a pass over the window, written as two plain
//! loops over the ring's two runs; the count of segments it newly marks, another pass, is made
//! only for the algorithm that reads it (BBR v1).
//!
//! RACK's loss detection (RFC 8985, `rack_detect`) looks at the segments sent before the RACK
//! segment that are neither SACKed, marked lost nor retransmitted. With windows of thousands of
//! segments (Hybla over long RTTs) a plain scan walked hundreds of SACKed segments and of
//! segments still pending on every ACK. Two facts make it cheaper, with the same result: such a
//! segment was sent in sequence order (its send time grows with its number), and every one below
//! the RACK segment's number was sent before it; so once one is pending, the last of those below
//! that number sets the deadline without the others being looked at. Once a scan walks far, the
//! scoreboard keeps a bit per segment (`Marks`: SACKed, lost or retransmitted; a mark stays until
//! the cumulative ACK) and skips marked segments 64 at a time. Linux keeps a list of the segments
//! in send order instead (`tsorted_sent_queue`); the bits need no link per segment. The
//! retransmissions are kept in a list in send order, so once one is pending none after it is
//! due, and the last one pending before the RACK segment is found by bisection on send time.

use crate::units::{Dur, Time};
use crate::ring::Ring;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Delivery-rate bookkeeping stamped on a segment when it is (re)transmitted (Linux
/// `tcp_skb_cb.tx`, `net/ipv4/tcp_rate.c`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxStamp {
    /// Connection's delivered bytes at send time.
    pub delivered: u64,
    /// When `delivered` last changed, at send time.
    pub delivered_time: Time,
    /// Send time of the first segment of the current sampling flight.
    pub first_tx_time: Time,
    /// Sent while the sender was application-limited.
    pub app_limited: bool,
}

/// The newest (by send time, then sequence) segment an ACK delivered, for the rate sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivered {
    pub seg: u64,
    pub sent: Time,
    pub tx: TxStamp,
}

impl Delivered {
    /// The one of `a` and `b` sent last (Linux `tcp_skb_sent_after`).
    pub fn newest(a: Option<Delivered>, b: Option<Delivered>) -> Option<Delivered> {
        match (a, b) {
            (Some(x), Some(y)) => Some(if (y.sent, y.seg) > (x.sent, x.seg) { y } else { x }),
            (x, None) => x,
            (None, y) => y,
        }
    }
}

const SACKED: u8 = 1;
const LOST: u8 = 2;
/// Retransmitted and not yet known delivered or re-marked lost by an RTO.
const RETRANS: u8 = 4;
/// Retransmitted at least once (Karn's rule: no RTT sample from this segment).
const EVER_RETRANS: u8 = 8;

#[derive(Clone, Copy, Debug, Default)]
struct Seg {
    /// Last (re)transmission time.
    sent: Time,
    flags: u8,
}

/// RACK: one bit per outstanding segment, set if it is SACKed, marked lost or retransmitted (a
/// segment so marked stays so until the cumulative ACK passes it), so that loss detection skips
/// the marked ones a word at a time (`Scoreboard::rack_detect`). Word `k` holds segments
/// `64 * (base + k)` to `64 * (base + k) + 63`; segments before the first word or past the
/// last are unmarked (a segment sent is unmarked), words wholly below snd_una are dropped when a
/// mark is set, bits below snd_una mean nothing.
#[derive(Clone, Debug, Default)]
struct Marks {
    words: VecDeque<u64>,
    base: u64,
}

impl Marks {
    /// Mark segments `lo` to `hi` (exclusive; outstanding: `una <= lo < hi <= nxt`).
    #[inline]
    fn set(&mut self, lo: u64, hi: u64, una: u64) {
        debug_assert!(una <= lo && lo < hi);
        let (first, last) = (lo >> 6, (hi - 1) >> 6);
        if self.words.is_empty() {
            self.base = first;
        } else if una >> 6 > self.base {
            // words wholly below snd_una go
            let drop = (((una >> 6) - self.base) as usize).min(self.words.len());
            self.words.drain(..drop);
            self.base = if self.words.is_empty() { first } else { una >> 6 };
        }
        if first < self.base {
            // below every word kept: those segments are unmarked
            for _ in first..self.base {
                self.words.push_front(0);
            }
            self.base = first;
        }
        let k = (last - self.base) as usize;
        if k >= self.words.len() {
            self.words.resize(k + 1, 0);
        }
        for w in first..=last {
            let from = if w == first { lo & 63 } else { 0 };
            let to = if w == last { ((hi - 1) & 63) + 1 } else { 64 };
            let bits = (u64::MAX >> (64 - (to - from))) << from;
            self.words[(w - self.base) as usize] |= bits;
        }
    }

    /// Whether segment `n` is marked.
    fn get(&self, n: u64) -> bool {
        let w = n >> 6;
        w >= self.base && self.words.get((w - self.base) as usize).is_some_and(|x| x >> (n & 63) & 1 != 0)
    }

    /// The last unmarked segment from `lo` to `hi` (both included; `lo` is unmarked).
    #[inline]
    fn prev_unmarked(&self, hi: u64, lo: u64) -> u64 {
        let mut n = hi;
        loop {
            let w = n >> 6;
            // below the first word or past the last: unmarked
            let Some(&x) = self.words.get(w.wrapping_sub(self.base) as usize) else { return n };
            let free = !x & (u64::MAX >> (63 - (n & 63)));
            if free != 0 {
                let m = (w << 6) + 63 - free.leading_zeros() as u64;
                debug_assert!(m >= lo, "segment {lo} is unmarked");
                return m;
            }
            debug_assert!(w << 6 > lo, "segment {lo} is unmarked");
            n = (w << 6) - 1;
        }
    }

    /// The first unmarked segment from `n` (`n >= una`) on, or `end` if none is below it.
    #[inline]
    fn next_unmarked(&self, mut n: u64, end: u64) -> u64 {
        while n < end {
            let w = n >> 6;
            // below the first word or past the last: unmarked
            let Some(&x) = self.words.get(w.wrapping_sub(self.base) as usize) else { return n };
            let free = !x & (u64::MAX << (n & 63));
            if free != 0 {
                return ((w << 6) + free.trailing_zeros() as u64).min(end);
            }
            n = (w + 1) << 6;
        }
        end
    }
}

/// What a scoreboard keeps only once it needs it (`Scoreboard::rare`).
#[derive(Clone, Debug, Default)]
struct Rare {
    /// SACK blocks (segment numbers) of the previous ACK, sorted by start: already processed,
    /// so a growing block costs only its new part (as Linux's `recv_sack_cache`).
    sack_cache: [(u64, u64); 4],
    /// RACK: the segments SACKed, marked lost or retransmitted (`Marks`), kept once a scan of
    /// `rack_detect` walked [`MARKS_AFTER`] segments one by one (a window of that order): a
    /// flow whose windows stay small keeps none.
    marks: Option<Marks>,
    /// NextSeg rule 1: the segments below `retx_cursor` that became retransmission candidates
    /// again (a retransmission RACK marked lost again, snd_una marked lost by
    /// `mark_head_lost`), lowest first. An entry that is no longer a candidate (SACKed or
    /// retransmitted since, or acknowledged) is dropped when it comes to the top.
    relost: BinaryHeap<Reverse<u64>>,
}

/// Segments `rack_detect` may walk one by one in a call before the scoreboard keeps `Marks`.
const MARKS_AFTER: u64 = 128;

/// What a cumulative ACK removed from the scoreboard.
#[derive(Clone, Copy, Debug, Default)]
pub struct CumAck {
    /// Segments newly acknowledged.
    pub segs: u64,
    /// Send time of the oldest newly acknowledged segment not SACKed before, if no newly
    /// acknowledged segment was ever retransmitted (Karn; Linux `first_ackt`).
    pub rtt_from: Option<Time>,
    /// Segments among them that had been SACKed before (already counted as delivered).
    pub were_sacked: u64,
    /// The newest newly delivered segment.
    pub newest: Option<Delivered>,
    /// RACK: send time and number of the newest newly delivered segment that is not an
    /// ambiguous retransmission (see `Scoreboard::set_rack_ambiguity`).
    pub rack: Option<(Time, u64)>,
    /// A newly acknowledged segment had been retransmitted.
    pub retransmitted: bool,
}

/// What `Scoreboard::ack_in_order` removed: `CumAck` for an ACK of segments never
/// retransmitted or SACKed.
#[derive(Clone, Copy, Debug)]
pub struct InOrderAck {
    /// Segments newly acknowledged.
    pub segs: u64,
    /// Send time of the oldest of them (the RTT sample's, Karn's rule holding).
    pub first_sent: Time,
    /// RACK: send time and number of the newest of them (`None` without RACK).
    pub rack: Option<(Time, u64)>,
}

/// The later (by send time, then sequence: RFC 8985 `RACK_sent_after`) of two delivered
/// segments.
pub fn later(a: Option<(Time, u64)>, b: Option<(Time, u64)>) -> Option<(Time, u64)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// What one run of RACK's loss detection found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RackLoss {
    /// Segments newly marked lost (original transmissions and retransmissions).
    pub newly_lost: u64,
    /// Of those, retransmissions lost again.
    pub lost_retransmits: u64,
    /// When the latest segment sent before the RACK segment but not yet due will be
    /// (`Time::ZERO` if none is pending).
    pub deadline: Time,
}

/// What SACK blocks newly reported.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sacked {
    /// Segments newly SACKed.
    pub newly: u64,
    /// The lowest newly SACKed segment never retransmitted (Karn) and its send time, for an RTT
    /// sample (Linux `first_sackt`: blocks are processed in sequence order).
    pub rtt_from: Option<(u64, Time)>,
    /// The newest newly SACKed segment.
    pub newest: Option<Delivered>,
    /// RACK: as `CumAck::rack`.
    pub rack: Option<(Time, u64)>,
}

impl Sacked {
    fn merge(&mut self, o: Sacked) {
        self.rack = later(self.rack, o.rack);
        self.newly += o.newly;
        self.rtt_from = match (self.rtt_from, o.rtt_from) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.newest = Delivered::newest(self.newest, o.newest);
    }
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Segment number of `snd_una`.
    una: u64,
    segs: Ring<Seg>,
    /// Rate-sampling stamps of the last (re)transmission, parallel to `segs`; kept only when
    /// `rate_sampling` (so the records of other senders stay 16 bytes).
    stamps: VecDeque<TxStamp>,
    sacked_out: u64,
    lost_out: u64,
    retrans_out: u64,
    /// Three highest SACKed segment numbers, highest first (u64::MAX = none).
    top3: [u64; 3],
    /// Segments below this have had their IsLost state evaluated.
    lost_scan: u64,
    /// NextSeg rule-1 cursor: no retransmission candidate below it.
    retx_cursor: u64,
    /// RFC 6675 HighRxt, as one past the highest segment retransmitted (rescue retransmissions
    /// excepted).
    high_rxt: u64,
    /// What only some flows need (`Rare`): made at the first SACK block or the first marks; 8
    /// bytes in a flow that never needs them.
    rare: Option<Box<Rare>>,
    sack_cache_len: u8,
    /// Report the newest delivered segment (for delivery-rate samples).
    rate_sampling: bool,
    /// RACK (RFC 8985) bookkeeping: the newest delivered segment, reordering, the list of
    /// outstanding retransmissions.
    rack: bool,
    /// A SACKed retransmission stays counted as retransmitted (in the pipe) until the cumulative
    /// ACK passes it (ns-3 `TcpTxBuffer::Update` clears `m_lost` but keeps `m_retrans`; without
    /// RACK).
    sacked_retx_in_flight: bool,
    /// RACK: a retransmitted segment counts as delivered for RACK only if sent at or before
    /// this time (set per ACK; see `set_rack_ambiguity`).
    rack_retx_limit: Time,
    /// RACK: no original transmission below this segment is still a loss candidate (every
    /// segment below is SACKed, marked lost or retransmitted).
    rack_scan: u64,
    /// RACK: retransmissions in the order they were sent, (segment, send time); entries whose
    /// segment was since acknowledged, SACKed, re-marked or sent again are stale and skipped.
    retx_list: VecDeque<(u64, Time)>,
    /// RACK: a segment never retransmitted was delivered after a segment sent later
    /// (Linux `reord_seen`).
    pub reordering_seen: bool,
    /// Highest SACKed segment before the ACK being processed (reordering test).
    fack_before: u64,
}

impl Scoreboard {
    /// `rate_sampling`: report the newest delivered segment of each ACK (see `Delivered`).
    pub fn new(rate_sampling: bool) -> Scoreboard {
        Scoreboard { top3: [u64::MAX; 3], rate_sampling, ..Default::default() }
    }

    /// Keep RACK's bookkeeping (RFC 8985).
    pub fn with_rack(mut self) -> Scoreboard {
        self.rack = true;
        self
    }

    /// SACKed retransmissions stay in the pipe until cumulatively acknowledged (ns-3).
    pub fn with_sacked_retransmissions_in_flight(mut self) -> Scoreboard {
        self.sacked_retx_in_flight = true;
        self
    }

    /// RACK's rule for retransmitted segments on the ACK being processed (RFC 8985 section 6.2
    /// step 2; Linux `tcp_rack_advance`): the ACK may be for an earlier transmission, so a
    /// retransmitted segment counts only if it was sent at least min_rtt ago and, with
    /// timestamps, no later than the echoed timestamp: `limit` = min(now - min_rtt, TSecr).
    pub fn set_rack_ambiguity(&mut self, limit: Time) {
        self.rack_retx_limit = limit;
    }

    /// The (send time, number) RACK may use for segment `n` when it is delivered.
    #[inline]
    fn rack_candidate(&self, n: u64, s: Seg) -> Option<(Time, u64)> {
        (s.flags & EVER_RETRANS == 0 || s.sent <= self.rack_retx_limit).then_some((s.sent, n))
    }

    /// Segment number of snd_una.
    pub fn una(&self) -> u64 {
        self.una
    }
    /// Segment number of snd_nxt.
    pub fn nxt(&self) -> u64 {
        self.una + self.segs.len() as u64
    }
    pub fn packets_out(&self) -> u64 {
        self.segs.len() as u64
    }
    pub fn sacked_out(&self) -> u64 {
        self.sacked_out
    }
    pub fn lost_out(&self) -> u64 {
        self.lost_out
    }
    pub fn retrans_out(&self) -> u64 {
        self.retrans_out
    }

    /// RFC 6675 `pipe`, in segments.
    #[inline]
    pub fn pipe(&self) -> u64 {
        self.packets_out() + self.retrans_out - self.sacked_out - self.lost_out
    }

    /// A new segment (number `nxt()`) was sent at `now`.
    #[inline]
    pub fn on_send_new(&mut self, now: Time, tx: TxStamp) {
        self.segs.push_back(Seg { sent: now, flags: 0 });
        if self.rate_sampling {
            self.stamps.push_back(tx);
        }
    }

    /// The newest-delivered record of segment `n` (rate sampling on).
    fn delivered(&self, n: u64, sent: Time) -> Delivered {
        Delivered { seg: n, sent, tx: self.stamps[(n - self.una) as usize] }
    }

    fn seg_mut(&mut self, n: u64) -> &mut Seg {
        let i = (n - self.una) as usize;
        &mut self.segs[i]
    }

    fn flags(&self, n: u64) -> u8 {
        self.segs[(n - self.una) as usize].flags
    }

    /// RACK: segments `lo` to `hi` (exclusive, `lo < hi`; outstanding) are SACKed, marked lost or
    /// retransmitted.
    #[inline]
    fn mark(&mut self, lo: u64, hi: u64) {
        if let Some(Rare { marks: Some(m), .. }) = self.rare.as_deref_mut() {
            m.set(lo, hi, self.una);
        }
    }

    /// RACK: keep marks from now on (`Marks`), made from the records.
    #[cold]
    #[inline(never)]
    fn make_marks(&mut self) {
        let mut m = Marks::default();
        // each run of marked segments set at once
        let (una, mut n, mut run) = (self.una, self.una, None);
        self.segs.iter().for_each(|seg| {
            match (seg.flags & (SACKED | LOST | RETRANS) != 0, run) {
                (true, None) => run = Some(n),
                (false, Some(lo)) => {
                    m.set(lo, n, una);
                    run = None;
                }
                _ => {}
            }
            n += 1;
        });
        if let Some(lo) = run {
            m.set(lo, n, una);
        }
        self.rare.get_or_insert_with(Default::default).marks = Some(m);
    }

    /// Segment `n` was retransmitted at `now` (not a rescue retransmission: see
    /// `on_rescue_retransmit`).
    pub fn on_retransmit(&mut self, n: u64, now: Time, tx: TxStamp) {
        self.high_rxt = self.high_rxt.max(n + 1);
        self.mark_retransmitted(n, now, tx);
    }

    /// RFC 6675 NextSeg rule 4: a rescue retransmission does not update HighRxt.
    pub fn on_rescue_retransmit(&mut self, n: u64, now: Time, tx: TxStamp) {
        self.mark_retransmitted(n, now, tx);
    }

    fn mark_retransmitted(&mut self, n: u64, now: Time, tx: TxStamp) {
        if self.rate_sampling {
            self.stamps[(n - self.una) as usize] = tx;
        }
        let s = self.seg_mut(n);
        debug_assert!(s.flags & SACKED == 0);
        let was = s.flags & RETRANS != 0;
        s.flags |= RETRANS | EVER_RETRANS;
        s.sent = now;
        if !was {
            self.retrans_out += 1;
        }
        if self.rack {
            self.retx_list.push_back((n, now));
            self.mark(n, n + 1);
        }
    }

    /// Cumulative ACK up to segment number `new_una` (exclusive). Karn's rule: no RTT sample if
    /// any newly acknowledged segment was ever retransmitted; otherwise the sample comes from the
    /// oldest segment not already SACKed (a SACKed one gave its sample when it was SACKed), as
    /// Linux's `seq_rtt` (the conservative choice: it includes any ACK delay).
    pub fn ack_cumulative(&mut self, new_una: u64) -> CumAck {
        let mut r = CumAck::default();
        let mut karn_ok = true;
        // RACK: original transmissions go out in sequence order, so the last one acknowledged is
        // the newest of them; retransmissions are compared one by one.
        let reordered_below = if self.top3[0] == u64::MAX { 0 } else { self.top3[0] };
        let mut last_original = None;
        while self.una < new_una {
            let Some(s) = self.segs.pop_front() else { break };
            if self.rack && s.flags & SACKED == 0 {
                if s.flags & EVER_RETRANS == 0 {
                    last_original = Some((s.sent, self.una));
                    // Delivered after a segment sent later (Linux tcp_clean_rtx_queue's `reord`).
                    self.reordering_seen |= self.una < reordered_below;
                } else {
                    r.rack = later(r.rack, self.rack_candidate(self.una, s));
                }
            }
            if self.rate_sampling {
                let tx = self.stamps.pop_front().expect("a stamp per segment");
                if s.flags & SACKED == 0 {
                    r.newest = Delivered::newest(r.newest, Some(Delivered { seg: self.una, sent: s.sent, tx }));
                }
            }
            self.una += 1;
            r.segs += 1;
            karn_ok &= s.flags & EVER_RETRANS == 0;
            if s.flags & SACKED != 0 {
                self.sacked_out -= 1;
                r.were_sacked += 1;
                if s.flags & RETRANS != 0 {
                    self.retrans_out -= 1; // a SACKed retransmission kept in the pipe (ns-3)
                }
            } else {
                if s.flags & LOST != 0 {
                    self.lost_out -= 1;
                }
                if s.flags & RETRANS != 0 {
                    self.retrans_out -= 1;
                }
                if r.rtt_from.is_none() {
                    r.rtt_from = Some(s.sent);
                }
            }
        }
        if !karn_ok {
            r.rtt_from = None;
            r.retransmitted = true;
        }
        r.rack = later(r.rack, last_original);
        self.lost_scan = self.lost_scan.max(self.una);
        self.retx_cursor = self.retx_cursor.max(self.una);
        self.rack_scan = self.rack_scan.max(self.una);
        r
    }

    /// A cumulative ACK up to segment `new_una` (above `una`) of segments never retransmitted,
    /// SACKed or marked lost, with nothing SACKed, lost or retransmitted outstanding and no
    /// delivery-rate stamps kept: what `ack_cumulative` does then, without its per-segment
    /// branches. `None` (and nothing changed) if the ACK is not such a one.
    #[inline]
    pub fn ack_in_order(&mut self, new_una: u64) -> Option<InOrderAck> {
        debug_assert!(new_una > self.una && new_una <= self.nxt());
        if self.sacked_out | self.lost_out | self.retrans_out != 0 || self.rate_sampling {
            return None;
        }
        let n = (new_una - self.una) as usize;
        if (0..n).any(|k| self.segs[k].flags != 0) {
            return None;
        }
        let first_sent = self.segs[0].sent;
        let last_sent = self.segs[n - 1].sent;
        // RACK: the last original transmission acknowledged is the newest; delivered below the
        // highest SACKed segment: reordering (as `ack_cumulative` finds segment by segment)
        let rack = self.rack.then(|| {
            self.reordering_seen |= self.top3[0] != u64::MAX && self.una < self.top3[0];
            (last_sent, new_una - 1)
        });
        self.segs.advance(n);
        self.una = new_una;
        self.lost_scan = self.lost_scan.max(new_una);
        self.retx_cursor = self.retx_cursor.max(new_una);
        self.rack_scan = self.rack_scan.max(new_una);
        Some(InOrderAck { segs: n as u64, first_sent, rack })
    }

    /// Process the SACK blocks of one ACK (segment numbers, `[first, end)` each). Parts already
    /// reported by the previous ACK are skipped.
    pub fn sack_blocks(&mut self, blocks: &[(u64, u64)]) -> Sacked {
        let mut cache = self.rare.as_deref().map(|r| r.sack_cache).unwrap_or_default();
        let cached = self.sack_cache_len as usize;
        self.fack_before = self.top3[0];
        cache[..cached].sort_unstable();
        let mut out = Sacked::default();
        for &(lo, hi) in blocks {
            let mut cur = lo;
            for &(cs, ce) in &cache[..cached] {
                if ce <= cur {
                    continue;
                }
                if cs >= hi {
                    break;
                }
                if cs > cur {
                    out.merge(self.sack(cur, cs));
                }
                cur = cur.max(ce);
            }
            if cur < hi {
                out.merge(self.sack(cur, hi));
            }
        }
        let k = blocks.len().min(cache.len());
        if k > 0 {
            self.rare.get_or_insert_with(Default::default).sack_cache[..k].copy_from_slice(&blocks[..k]);
        }
        self.sack_cache_len = k as u8;
        out
    }

    /// Mark segments inside SACK block `[first, end)` (segment numbers) as SACKed.
    pub fn sack(&mut self, first: u64, end: u64) -> Sacked {
        let lo = first.max(self.una);
        let hi = end.min(self.nxt());
        let mut newly = 0;
        let mut rtt_from = None;
        let mut newest = None;
        let mut rack = None;
        for n in lo..hi {
            let i = (n - self.una) as usize;
            if self.rate_sampling && self.segs[i].flags & SACKED == 0 {
                newest = Delivered::newest(newest, Some(self.delivered(n, self.segs[i].sent)));
            }
            let s = &mut self.segs[i];
            if s.flags & SACKED != 0 {
                continue;
            }
            if s.flags & LOST != 0 {
                self.lost_out -= 1;
            }
            let keep = if self.sacked_retx_in_flight { EVER_RETRANS | RETRANS } else { EVER_RETRANS };
            if s.flags & RETRANS != 0 && !self.sacked_retx_in_flight {
                self.retrans_out -= 1;
            }
            if s.flags & EVER_RETRANS == 0 && rtt_from.is_none() {
                rtt_from = Some((n, s.sent));
            }
            let seg = *s;
            if self.rack {
                rack = later(rack, self.rack_candidate(n, seg));
                // SACKed below what an earlier ACK SACKed, never retransmitted: reordering
                // (Linux tcp_check_sack_reordering).
                if seg.flags & EVER_RETRANS == 0 && self.fack_before != u64::MAX && n < self.fack_before {
                    self.reordering_seen = true;
                }
            }
            let s = &mut self.segs[i];
            s.flags = (s.flags & keep) | SACKED;
            self.sacked_out += 1;
            newly += 1;
            self.note_sacked(n);
        }
        if newly > 0 {
            self.mark(lo, hi); // each of them SACKed now (those SACKed before were marked then)
        }
        Sacked { newly, rtt_from, newest, rack }
    }

    fn note_sacked(&mut self, n: u64) {
        let t = &mut self.top3;
        let above = |x: u64| x == u64::MAX || n > x;
        if above(t[0]) {
            *t = [n, t[0], t[1]];
        } else if above(t[1]) {
            *t = [t[0], n, t[1]];
        } else if above(t[2]) {
            t[2] = n;
        }
    }

    /// RFC 6675 IsLost for the unSACKed segments: mark as lost every unSACKed segment with at
    /// least three SACKed segments above it. Returns the number newly marked.
    pub fn mark_lost_by_sack(&mut self) -> u64 {
        let third = self.top3[2];
        if third == u64::MAX || third <= self.lost_scan {
            return 0;
        }
        let mut newly = 0;
        for n in self.lost_scan..third {
            let i = (n - self.una) as usize;
            let s = &mut self.segs[i];
            if s.flags & (SACKED | LOST) == 0 {
                s.flags |= LOST;
                self.lost_out += 1;
                newly += 1;
            }
        }
        if newly > 0 {
            self.mark(self.lost_scan, third); // each SACKed or marked lost now
        }
        self.lost_scan = third;
        newly
    }

    /// Whether segment `n` (>= una) has an outstanding retransmission.
    pub fn is_retransmitted(&self, n: u64) -> bool {
        n < self.nxt() && self.flags(n) & RETRANS != 0
    }

    /// Whether segment `n` (>= una) has been SACKed.
    pub fn is_sacked(&self, n: u64) -> bool {
        n < self.nxt() && self.flags(n) & SACKED != 0
    }

    /// Whether segment `n` (>= una) is considered lost.
    pub fn is_lost(&self, n: u64) -> bool {
        n < self.nxt() && self.flags(n) & LOST != 0
    }

    /// Mark the head segment (snd_una) lost explicitly: fast retransmit entry, NewReno partial
    /// ACK, or a retransmission of the head presumed lost again. Keeps the invariant that the lost
    /// segments are a prefix of the unSACKed ones (so `next_lost` never scans past a gap).
    pub fn mark_head_lost(&mut self) {
        if self.segs.is_empty() {
            return;
        }
        let n = self.una;
        let s = self.seg_mut(n);
        if s.flags & (SACKED | LOST) == 0 {
            s.flags |= LOST;
            self.lost_out += 1;
            self.mark(n, n + 1);
        } else if s.flags & LOST != 0 && s.flags & RETRANS != 0 {
            s.flags &= !RETRANS;
            self.retrans_out -= 1;
        }
        self.lost_scan = self.lost_scan.max(n + 1);
        if self.flags(n) & (SACKED | RETRANS) == 0 {
            self.relost(n);
        }
    }

    /// Segment `n`, below the NextSeg cursor or not, is a retransmission candidate again
    /// (neither SACKed nor retransmitted): what `next_lost` must find before the cursor.
    fn relost(&mut self, n: u64) {
        if n < self.retx_cursor {
            self.rare.get_or_insert_with(Default::default).relost.push(Reverse(n));
        }
    }

    /// The segments [`mark_all_lost`](Self::mark_all_lost) adds to Linux's count of lost
    /// packets (`tp->lost`, `tcp_mark_skb_lost`): each unSACKed segment not yet marked lost,
    /// and each retransmission marked lost again.
    pub fn timeout_losses(&self) -> u64 {
        self.segs.iter().filter(|s| s.flags & SACKED == 0 && (s.flags & LOST == 0 || s.flags & RETRANS != 0)).count() as u64
    }

    /// RTO: every unSACKed segment is lost and may be retransmitted again (Linux `tcp_enter_loss`).
    pub fn mark_all_lost(&mut self) {
        self.sack_cache_len = 0;
        // (`for_each`: a loop per half of the ring, without a branch per segment)
        self.segs.iter_mut().for_each(|s| {
            s.flags = if s.flags & SACKED == 0 {
                (s.flags & EVER_RETRANS) | LOST
            } else {
                s.flags & !RETRANS // (a SACKed retransmission kept in the pipe: no longer)
            };
        });
        self.lost_out = self.packets_out() - self.sacked_out;
        self.retrans_out = 0;
        self.lost_scan = self.nxt();
        self.retx_cursor = self.una;
        if let Some(r) = self.rare.as_deref_mut() {
            r.relost.clear();
        }
        self.rack_scan = self.nxt();
        self.retx_list.clear();
        if !self.segs.is_empty() {
            self.mark(self.una, self.nxt()); // every segment is SACKed or lost now
        }
    }

    /// NextSeg rule 1: the lowest segment that is lost, unSACKed and not retransmitted. Lost
    /// segments are a prefix of the unSACKed ones, so the scan stops at the first unSACKed
    /// segment not marked lost; the cursor only moves forward (amortized O(1)). Below it every
    /// segment is SACKed or retransmitted, but for those that became candidates again since it
    /// passed them (`Rare::relost`): the lowest of those, if any, is the one.
    pub fn next_lost(&mut self) -> Option<u64> {
        if let Some(r) = self.rare.as_deref_mut() {
            while let Some(&Reverse(m)) = r.relost.peek() {
                if m >= self.una {
                    let f = self.segs[(m - self.una) as usize].flags;
                    if f & (SACKED | RETRANS) == 0 {
                        debug_assert!(m < self.retx_cursor && m < self.lost_scan);
                        return (f & LOST != 0).then_some(m);
                    }
                }
                r.relost.pop();
            }
        }
        let mut n = self.retx_cursor.max(self.una);
        let end = self.nxt().min(self.lost_scan);
        while n < end {
            let f = self.flags(n);
            if f & (SACKED | RETRANS) != 0 {
                n += 1;
                continue;
            }
            self.retx_cursor = n;
            return (f & LOST != 0).then_some(n);
        }
        self.retx_cursor = n;
        None
    }

    /// Whether `rack_detect` with RACK segment `rack` can find nothing, whatever its wait: no
    /// retransmission is listed, and the first original it would look at is not outstanding or
    /// was sent at or after the RACK segment (so every later one was too). Then it does what
    /// `rack_detect` does in that case (the scan starts at snd_una from now on) and returns
    /// true; else it changes nothing.
    #[inline]
    pub fn rack_finds_nothing(&mut self, rack: (Time, u64)) -> bool {
        if !self.retx_list.is_empty() {
            return false;
        }
        let n = self.rack_scan.max(self.una);
        if n < self.nxt() {
            let s = self.segs[(n - self.una) as usize];
            if s.flags & (SACKED | LOST | RETRANS) != 0 || (s.sent, n) < rack {
                return false;
            }
        }
        self.rack_scan = n;
        true
    }

    /// RACK's loss detection (RFC 8985 section 6.2 step 5, `RACK_detect_loss`): every
    /// segment not yet delivered that was sent before the RACK segment (`rack` = its send time
    /// and number) and has been outstanding for `wait` = RACK.rtt + RACK.reo_wnd is lost; an
    /// outstanding retransmission found so is lost again (its `RETRANS` mark cleared, so NextSeg
    /// sends it once more). Segments sent before the RACK segment but not yet due keep a
    /// deadline: the latest of them (the RFC's `max(remaining)`) is returned.
    ///
    /// Original transmissions are in sequence order, which is their send order: a cursor moves
    /// over them once. Retransmissions are kept in a list in send order. Both scans stop at the
    /// first segment sent after the RACK segment, so the cost is amortized O(1) per ACK when
    /// nothing is pending.
    pub fn rack_detect(&mut self, rack: (Time, u64), wait: Dur, now: Time) -> RackLoss {
        debug_assert!(self.rack, "RACK's marks are kept only by a scoreboard made `with_rack`");
        let mut out = RackLoss::default();
        let due = |sent: Time| sent + wait <= now;
        // Original transmissions.
        let end = self.nxt();
        let start = self.rack_scan.max(self.una);
        let mut n = start;
        let mut first_pending = None;
        let marks = self.rare.as_deref().and_then(|r| r.marks.as_ref());
        // the next segment neither SACKed, lost nor retransmitted from `n` on: the marked ones
        // skipped a word at a time (without marks, one by one)
        let skip = |n: u64| marks.map_or(n, |m| m.next_unmarked(n, end));
        let mut walked = 0;
        while n < end {
            walked += 1;
            let s = self.segs[(n - self.una) as usize];
            if s.flags & (SACKED | LOST | RETRANS) != 0 {
                n = skip(n + 1);
                continue;
            }
            if (s.sent, n) >= rack {
                break;
            }
            if !due(s.sent) {
                first_pending = Some(n);
                break;
            }
            self.segs[(n - self.una) as usize].flags |= LOST;
            self.lost_out += 1;
            self.lost_scan = self.lost_scan.max(n + 1);
            out.newly_lost += 1;
            n += 1;
        }
        if let Some(p) = first_pending {
            // Later originals were sent later: none of them is due either, and the last of
            // them sent before the RACK segment sets the deadline. Every one below the RACK
            // segment's number `r` was sent before it (no later than r's first transmission,
            // itself no later than the RACK time; a tie goes to the lower number): with marks,
            // the last of them is found without looking at the others. Above `r`, they are
            // compared one by one (a retransmission of `r` may be sent after some of them).
            let r = rack.1;
            let mut last = p;
            let mut k = p + 1;
            if let Some(m) = marks.filter(|_| r > k) {
                last = m.prev_unmarked(r - 1, p);
                k = r;
            }
            while k < end {
                walked += 1;
                let s = self.segs[(k - self.una) as usize];
                if s.flags & (SACKED | LOST | RETRANS) != 0 {
                    k = skip(k + 1);
                    continue;
                }
                if (s.sent, k) >= rack {
                    break;
                }
                last = k;
                k += 1;
            }
            let s = self.segs[(last - self.una) as usize];
            debug_assert!(s.flags & (SACKED | LOST | RETRANS) == 0 && (s.sent, last) < rack);
            out.deadline = s.sent + wait;
        }
        let kept_marks = marks.is_some();
        self.rack_scan = first_pending.unwrap_or(n);
        if out.newly_lost > 0 {
            // every segment from the start to where the scan stopped is marked now
            self.mark(start, first_pending.unwrap_or(n));
        }
        if walked > MARKS_AFTER && !kept_marks {
            self.make_marks();
        }
        // Retransmissions, in the order they were sent. An entry no longer live is dropped at
        // the front of the list; elsewhere, it is dropped if it can never be live again (its
        // segment acknowledged, SACKed or sent again since: a segment's send time only grows),
        // so that later scans do not walk it again. The entries kept, the ones to take out
        // gathered after them: `[0, kept)` kept, `[kept, i)` to take out.
        let mut kept = 0;
        let mut i = 0;
        while i < self.retx_list.len() {
            let (m, sent) = self.retx_list[i];
            debug_assert!(m < end);
            if !self.retx_live(m, sent) {
                let never_again = m < self.una || {
                    let s = self.segs[(m - self.una) as usize];
                    s.flags & SACKED != 0 || s.sent != sent
                };
                if kept > 0 && !never_again {
                    self.keep_retx(kept, i);
                    kept += 1;
                }
                i += 1;
                continue;
            }
            if (sent, m) >= rack {
                break;
            }
            if due(sent) {
                let s = &mut self.segs[(m - self.una) as usize];
                // (a rescue or rule-3 retransmission was not marked lost before)
                if s.flags & LOST == 0 {
                    self.lost_out += 1;
                }
                s.flags = (s.flags & !RETRANS) | LOST;
                self.retrans_out -= 1;
                self.relost(m);
                self.lost_scan = self.lost_scan.max(m + 1);
                out.newly_lost += 1;
                out.lost_retransmits += 1;
                if kept > 0 {
                    self.keep_retx(kept, i);
                    kept += 1;
                }
            } else {
                // the first one pending: every later one was sent no earlier, so none is due
                // either, and the deadline is the last sent before the RACK segment's (the
                // entries from here on stay as they are)
                let last = self.last_pending_retx(i, rack);
                out.deadline = out.deadline.max(self.retx_list[last].1 + wait);
                break;
            }
            i += 1;
        }
        if kept == 0 {
            for _ in 0..i {
                self.retx_list.pop_front(); // (the common case: dropped at the front only)
            }
        } else if kept < i {
            self.retx_list.drain(kept..i);
        }
        out
    }

    /// Whether the entry `(m, sent)` of the retransmissions' list is live: segment `m`
    /// outstanding, not SACKed, and its last transmission that retransmission.
    #[inline]
    fn retx_live(&self, m: u64, sent: Time) -> bool {
        m >= self.una && {
            let s = self.segs[(m - self.una) as usize];
            s.flags & RETRANS != 0 && s.flags & SACKED == 0 && s.sent == sent
        }
    }

    /// `rack_detect`: entry `i` of the retransmissions' list is live, sent before the RACK
    /// segment `rack` and not due. The last live entry the scan would look at before it stops
    /// (at the first live entry sent at or after the RACK segment, by time then number: the
    /// list is in send order, so the ones sent before the RACK time are found by bisection,
    /// the ones sent at it in order).
    fn last_pending_retx(&self, i: usize, rack: (Time, u64)) -> usize {
        let list = &self.retx_list;
        let mut b = list.partition_point(|&(_, sent)| sent < rack.0).max(i + 1);
        while b < list.len() && list[b].1 == rack.0 && !(list[b].0 >= rack.1 && self.retx_live(list[b].0, list[b].1)) {
            b += 1;
        }
        let mut k = b - 1;
        while !self.retx_live(list[k].0, list[k].1) {
            k -= 1;
        }
        debug_assert!(k >= i && (list[k].1, list[k].0) < rack);
        k
    }

    /// `rack_detect`: the entry at `i` of the retransmissions' list is kept, at `kept`.
    #[inline(always)]
    fn keep_retx(&mut self, kept: usize, i: usize) {
        if kept != i {
            self.retx_list[kept] = self.retx_list[i];
        }
    }

    /// RFC 6675 NextSeg rule 3: the lowest unSACKed segment above HighRxt, not lost, not
    /// retransmitted, below the highest SACKed segment (for when neither a lost segment nor new
    /// data can be sent). `bound`: `WhileSacked` drops the upper bound once no SACKed segment is
    /// outstanding (ns-3); the search then runs to the highest segment sent.
    pub fn next_seg_rule3(&self, bound: super::Rule3Bound) -> Option<u64> {
        let top = self.top3[0];
        let outstanding = top != u64::MAX && top >= self.una;
        let end = match (outstanding, bound) {
            (true, _) => top.min(self.nxt()),
            (false, super::Rule3Bound::WhileSacked) => self.nxt(),
            (false, super::Rule3Bound::HighestSack) => return None,
        };
        (self.high_rxt.max(self.una)..end).find(|&n| self.flags(n) & (SACKED | LOST | RETRANS) == 0)
    }

    /// RFC 6675 NextSeg rule 4 (rescue retransmission): the highest outstanding unSACKed
    /// segment.
    pub fn highest_unsacked(&self) -> Option<u64> {
        (self.una..self.nxt()).rev().find(|&n| self.flags(n) & SACKED == 0)
    }

    /// Check of the counters against the records (at the end of every run, and after each step
    /// of the tests), of RACK's marks, and of NextSeg's cursor: below it, each segment is SACKed,
    /// retransmitted or listed as a candidate again (`Rare::relost`).
    pub fn check(&self) -> Result<(), String> {
        let (mut sacked, mut lost, mut retrans) = (0u64, 0u64, 0u64);
        let rare = self.rare.as_deref();
        let marks = rare.and_then(|r| r.marks.as_ref());
        let mut relost: Vec<u64> = rare.map_or(Vec::new(), |r| r.relost.iter().map(|x| x.0).collect());
        relost.sort_unstable();
        let (mut n, mut wrong) = (self.una, None);
        // (`for_each`: a loop per half of the ring; the first disagreement kept)
        self.segs.iter().for_each(|seg| {
            let f = seg.flags;
            sacked += (f & SACKED != 0) as u64;
            lost += (f & LOST != 0 && f & SACKED == 0) as u64;
            retrans += (f & RETRANS != 0 && (f & SACKED == 0 || self.sacked_retx_in_flight)) as u64;
            if let Some(m) = marks {
                let marked = m.get(n);
                if marked != (f & (SACKED | LOST | RETRANS) != 0) && wrong.is_none() {
                    wrong = Some(format!("RACK's mark of segment {n} ({marked}) disagrees with its flags ({f:#x})"));
                }
            }
            if n < self.retx_cursor && f & (SACKED | RETRANS) == 0 && relost.binary_search(&n).is_err() && wrong.is_none() {
                wrong = Some(format!("segment {n}, a retransmission candidate below NextSeg's cursor {}, is not listed", self.retx_cursor));
            }
            n += 1;
        });
        if let Some(e) = wrong {
            return Err(e);
        }
        if (sacked, lost, retrans) != (self.sacked_out, self.lost_out, self.retrans_out) {
            return Err(format!(
                "scoreboard counters (sacked {}, lost {}, retrans {}) != records ({sacked}, {lost}, {retrans})",
                self.sacked_out, self.lost_out, self.retrans_out
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new(false);
        for i in 0..n {
            b.on_send_new(Time::from_ns(i), TxStamp::default());
        }
        b
    }

    #[test]
    fn three_sacked_above_marks_lost() {
        let mut b = board(10);
        b.sack(1, 3); // segments 1, 2
        assert_eq!(b.mark_lost_by_sack(), 0);
        b.sack(3, 4); // segment 3: three SACKed above segment 0
        assert_eq!(b.mark_lost_by_sack(), 1);
        assert!(b.is_lost(0));
        assert_eq!(b.pipe(), 10 - 3 - 1);
        assert_eq!(b.next_lost(), Some(0));
        b.on_retransmit(0, Time::from_ns(100), TxStamp::default());
        assert_eq!(b.pipe(), 7);
        assert_eq!(b.next_lost(), None);
        b.check().unwrap();
        let c = b.ack_cumulative(4);
        assert_eq!(c.segs, 4);
        assert_eq!(c.were_sacked, 3);
        assert_eq!(c.rtt_from, None, "segment 0 was retransmitted: Karn's rule forbids a sample");
        b.check().unwrap();
    }

    /// ns-3's accounting (`with_sacked_retransmissions_in_flight`): a retransmission that is
    /// SACKed stays in the pipe until the cumulative ACK passes it; RFC 6675's leaves it.
    #[test]
    fn a_sacked_retransmission_stays_in_the_pipe_in_ns3s_accounting() {
        for ns3 in [false, true] {
            let mut b = board(10);
            if ns3 {
                b = b.with_sacked_retransmissions_in_flight();
            }
            b.sack(2, 5); // 2, 3, 4: 1 and 0 lost below them
            assert_eq!(b.mark_lost_by_sack(), 2);
            b.on_retransmit(1, Time::from_ns(100), TxStamp::default());
            assert_eq!(b.pipe(), 10 - 3 - 2 + 1);
            b.sack(1, 2); // the retransmission of 1 arrives and is SACKed
            assert_eq!(b.pipe(), if ns3 { 6 } else { 5 }, "ns3 {ns3}");
            b.check().unwrap();
            b.ack_cumulative(5);
            assert_eq!(b.pipe(), 5, "ns3 {ns3}: the cumulative ACK takes it out");
            b.check().unwrap();
        }
    }

    #[test]
    fn sack_cache_skips_already_reported_parts_but_counts_new_ones() {
        let mut b = board(20);
        assert_eq!(b.sack_blocks(&[(5, 8)]).newly, 3);
        assert_eq!(b.sack_blocks(&[(5, 10)]).newly, 2);
        assert_eq!(b.sack_blocks(&[(12, 13), (5, 10)]).newly, 1);
        // [3, 14) minus the cached (5, 10) and (12, 13): 3, 4, 10, 11, 13
        assert_eq!(b.sack_blocks(&[(3, 14), (5, 10)]).newly, 5);
        assert_eq!(b.sacked_out(), 11); // segments 3..=13
        b.check().unwrap();
    }

    #[test]
    fn multiple_holes() {
        let mut b = board(12);
        // holes at 0, 4, 8
        b.sack(1, 4);
        b.sack(5, 8);
        b.sack(9, 12);
        b.mark_lost_by_sack();
        assert!(b.is_lost(0) && b.is_lost(4) && b.is_lost(8));
        assert_eq!(b.lost_out(), 3);
        assert_eq!(b.pipe(), 0);
        let mut order = vec![];
        while let Some(n) = b.next_lost() {
            b.on_retransmit(n, Time::from_ns(50), TxStamp::default());
            order.push(n);
        }
        assert_eq!(order, vec![0, 4, 8]);
        assert_eq!(b.pipe(), 3);
        b.check().unwrap();
    }

    #[test]
    fn rto_marks_everything_unsacked() {
        let mut b = board(5);
        b.sack(2, 3);
        b.on_retransmit(0, Time::from_ns(9), TxStamp::default());
        b.mark_all_lost();
        assert_eq!(b.lost_out(), 4);
        assert_eq!(b.retrans_out(), 0);
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.next_lost(), Some(0));
        b.check().unwrap();
    }
}

#[cfg(test)]
mod rack_tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new(false).with_rack();
        for i in 0..n {
            b.on_send_new(Time::from_ms(i), TxStamp::default());
        }
        b
    }

    #[test]
    fn originals_sent_before_the_rack_segment_are_lost_once_due() {
        let mut b = board(10); // segment i sent at i ms
        b.sack(6, 7);
        let wait = Dur::from_ms(20); // RACK.rtt + reo_wnd
        // at 24 ms: segments 0..=4 are due (sent at <= 4 ms), 5 is pending until 25 ms
        let r = b.rack_detect((Time::from_ms(6), 6), wait, Time::from_ms(24));
        assert_eq!((r.newly_lost, r.deadline), (5, Time::from_ms(25)));
        assert!((0..5).all(|n| b.is_lost(n)) && !b.is_lost(5));
        let r = b.rack_detect((Time::from_ms(6), 6), wait, Time::from_ms(25));
        assert_eq!((r.newly_lost, r.deadline), (1, Time::ZERO));
        assert_eq!(b.lost_out(), 6);
        b.check().unwrap();
    }

    #[test]
    fn a_retransmission_is_lost_again_when_a_later_segment_is_delivered() {
        let mut b = board(10);
        b.sack(1, 4);
        b.rack_detect((Time::from_ms(3), 3), Dur::ZERO, Time::from_ms(30));
        assert_eq!(b.next_lost(), Some(0));
        b.on_retransmit(0, Time::from_ms(30), TxStamp::default());
        assert_eq!((b.retrans_out(), b.next_lost()), (1, None));
        // segment 9 (sent at 9 ms, before the retransmission) delivered: the retransmission stays
        b.sack(9, 10);
        let r = b.rack_detect((Time::from_ms(9), 9), Dur::ZERO, Time::from_ms(40));
        assert_eq!(r.lost_retransmits, 0);
        // a segment sent after the retransmission is delivered, RACK.rtt = 20 ms later
        b.on_send_new(Time::from_ms(31), TxStamp::default()); // segment 10
        b.sack(10, 11);
        let r = b.rack_detect((Time::from_ms(31), 10), Dur::from_ms(20), Time::from_ms(51));
        assert_eq!(r.lost_retransmits, 1);
        assert_eq!((b.retrans_out(), b.next_lost()), (0, Some(0)), "sent again by NextSeg");
        b.check().unwrap();
    }

    /// NextSeg rule 1 as `next_lost` defines it, scanned from snd_una: the first segment
    /// neither SACKed nor retransmitted among those whose loss was evaluated, if it is lost.
    fn next_lost_by_scan(b: &Scoreboard) -> Option<u64> {
        let n = (b.una..b.nxt().min(b.lost_scan)).find(|&n| b.flags(n) & (SACKED | RETRANS) == 0)?;
        (b.flags(n) & LOST != 0).then_some(n)
    }

    /// The loss detection `rack_detect` replaced (part 19 of `docs/PERFORMANCE.md`): every
    /// original looked at one by one, the list of retransmissions walked from its front and
    /// entries dropped only there. Kept as its oracle.
    fn rack_detect_by_scan(b: &mut Scoreboard, rack: (Time, u64), wait: Dur, now: Time) -> RackLoss {
        let mut out = RackLoss::default();
        let due = |sent: Time| sent + wait <= now;
        // Original transmissions.
        let end = b.nxt();
        let mut n = b.rack_scan.max(b.una);
        let mut first_pending = None;
        while n < end {
            let s = b.segs[(n - b.una) as usize];
            if s.flags & (SACKED | LOST | RETRANS) == 0 {
                if (s.sent, n) >= rack {
                    break;
                }
                if first_pending.is_none() && due(s.sent) {
                    b.segs[(n - b.una) as usize].flags |= LOST;
                    b.lost_out += 1;
                    b.lost_scan = b.lost_scan.max(n + 1);
                    out.newly_lost += 1;
                } else {
                    // Later originals were sent later: none of them is due either.
                    first_pending.get_or_insert(n);
                    out.deadline = out.deadline.max(s.sent + wait);
                }
            }
            n += 1;
        }
        b.rack_scan = first_pending.unwrap_or(n);
        // Retransmissions.
        let mut i = 0;
        while i < b.retx_list.len() {
            let (m, sent) = b.retx_list[i];
            let live = m >= b.una && m < end && {
                let s = b.segs[(m - b.una) as usize];
                s.flags & RETRANS != 0 && s.flags & SACKED == 0 && s.sent == sent
            };
            if !live {
                if i == 0 {
                    b.retx_list.pop_front();
                } else {
                    i += 1;
                }
                continue;
            }
            if (sent, m) >= rack {
                break;
            }
            if due(sent) {
                let s = &mut b.segs[(m - b.una) as usize];
                // (a rescue or rule-3 retransmission was not marked lost before)
                if s.flags & LOST == 0 {
                    b.lost_out += 1;
                }
                s.flags = (s.flags & !RETRANS) | LOST;
                b.retrans_out -= 1;
                b.relost(m);
                b.lost_scan = b.lost_scan.max(m + 1);
                out.newly_lost += 1;
                out.lost_retransmits += 1;
                if i == 0 {
                    b.retx_list.pop_front();
                } else {
                    i += 1;
                }
            } else {
                out.deadline = out.deadline.max(sent + wait);
                i += 1;
            }
        }
        out
    }

    /// What RACK's detection leaves that matters: the records, the counters, the cursors and
    /// the retransmissions that may still be live (in order).
    fn rack_state(b: &Scoreboard) -> String {
        let segs: Vec<(Time, u8)> = b.segs.iter().map(|s| (s.sent, s.flags)).collect();
        let retx: Vec<(u64, Time)> = b.retx_list.iter().copied().filter(|&(m, sent)| {
            m >= b.una && { let s = b.segs[(m - b.una) as usize]; s.flags & SACKED == 0 && s.sent == sent }
        }).collect();
        let next = b.clone().next_lost();
        format!("{} {segs:?} {} {} {} {} {next:?} {} {retx:?}", b.una, b.sacked_out, b.lost_out, b.retrans_out, b.lost_scan, b.rack_scan)
    }

    /// `rack_detect` finds what the scan it replaced finds and leaves the board as it does, on
    /// random boards: sends, SACKs, cumulative ACKs, retransmissions (rescues too), the head
    /// and every segment marked lost, at times that often repeat, RACK segments among the
    /// delivered ones and waits from zero up. On the same histories, after every step,
    /// `next_lost` (its cursor and the candidates listed below it) finds what a scan from
    /// snd_una finds.
    #[test]
    fn rack_detect_finds_what_the_plain_scan_finds() {
        let mut lcg = crate::rng::Lcg(5);
        let mut draw = |n: u64| lcg.below(n);
        let (mut lost, mut pending, mut calls, mut marked, mut next_lost_calls) = (0, 0, 0, 0, 0);
        for round in 0..300 {
            let mut b = Scoreboard::new(false).with_rack();
            let mut now = 0u64;
            let mut delivered: Vec<(Time, u64)> = Vec::new();
            let big = round % 3 == 0; // windows of hundreds of segments (many words of marks)
            for _ in 0..600 {
                now += draw(3);
                let t = Time::from_ms(now);
                if round % 2 == 1 && b.rare.as_ref().is_none_or(|r| r.marks.is_none()) && draw(50) == 0 {
                    b.make_marks(); // from the records as they are (else once a scan walks far)
                }
                match draw(16) {
                    0..=4 => {
                        for _ in 0..if big { 1 + draw(8) } else { 1 } {
                            b.on_send_new(t, TxStamp::default());
                        }
                    }
                    5..=7 if b.nxt() > b.una() => {
                        let lo = b.una() + draw(b.nxt() - b.una());
                        let hi = (lo + 1 + draw(if big { 40 } else { 3 })).min(b.nxt());
                        for n in lo..hi {
                            delivered.push((b.segs[(n - b.una) as usize].sent, n));
                        }
                        b.sack(lo, hi);
                        if draw(2) == 0 {
                            b.mark_lost_by_sack();
                        }
                    }
                    8 if b.nxt() > b.una() => {
                        let to = b.una() + 1 + draw((b.nxt() - b.una()).min(if big { 30 } else { 4 }));
                        for n in b.una()..to {
                            delivered.push((b.segs[(n - b.una) as usize].sent, n));
                        }
                        b.ack_cumulative(to);
                    }
                    9 | 10 => {
                        for _ in 0..1 + draw(4) {
                            let want = next_lost_by_scan(&b);
                            let got = b.next_lost();
                            assert_eq!(got, want, "NextSeg rule 1");
                            next_lost_calls += 1;
                            if let Some(n) = got {
                                b.on_retransmit(n, t, TxStamp::default());
                            }
                        }
                    }
                    11 => match draw(8) {
                        0 => b.mark_all_lost(),
                        1..=3 => b.mark_head_lost(),
                        _ => {
                            if let Some(n) = b.highest_unsacked().filter(|&n| !b.is_retransmitted(n)) {
                                b.on_rescue_retransmit(n, t, TxStamp::default());
                            }
                        }
                    },
                    _ if !delivered.is_empty() => {
                        // mostly among the latest deliveries (sent recently: segments sent
                        // before them may still be pending), else any
                        let len = delivered.len() as u64;
                        let k = if draw(4) > 0 { len - 1 - draw(len.min(8)) } else { draw(len) };
                        let rack = delivered[k as usize];
                        let wait = Dur::from_ms(draw(30));
                        let mut plain = b.clone();
                        let want = rack_detect_by_scan(&mut plain, rack, wait, t);
                        let got = b.rack_detect(rack, wait, t);
                        assert_eq!(got, want, "what the detection found");
                        assert_eq!(rack_state(&b), rack_state(&plain), "the board it leaves");
                        calls += 1;
                        marked += b.rare.as_ref().is_some_and(|r| r.marks.is_some()) as u32;
                        lost += (got.newly_lost > 0) as u32;
                        pending += (got.deadline > Time::ZERO) as u32;
                    }
                    _ => {}
                }
                b.check().unwrap();
                assert_eq!(b.clone().next_lost(), next_lost_by_scan(&b), "NextSeg rule 1, after any step");
            }
        }
        assert!(next_lost_calls > 20_000, "{next_lost_calls} calls of next_lost");
        assert!(
            calls > 20_000 && lost > 2_000 && pending > 1_000 && marked > calls / 3 && marked < 2 * calls / 3,
            "cases seen: {calls} calls ({marked} with marks), {lost} finding losses, {pending} with a deadline"
        );
    }

    /// `rack_finds_nothing` says so only when the scan finds nothing, and leaves the board as
    /// the scan would: on random boards (sends, SACKs, cumulative ACKs, retransmissions of
    /// segments marked lost) and RACK segments among the delivered ones, at random times.
    #[test]
    fn rack_finds_nothing_only_when_the_scan_finds_nothing() {
        let mut lcg = crate::rng::Lcg(11);
        let mut draw = |n: u64| lcg.below(n);
        let (mut said, mut scanned) = (0, 0);
        for _ in 0..200 {
            let mut b = Scoreboard { rack: true, ..Scoreboard::new(false) };
            let mut now = 0u64;
            let mut delivered: Vec<(Time, u64)> = Vec::new();
            for _ in 0..300 {
                now += draw(3);
                match draw(10) {
                    0..=3 => b.on_send_new(Time::from_ms(now), TxStamp::default()),
                    4 | 5 if b.nxt() > b.una() => {
                        let lo = b.una() + draw(b.nxt() - b.una());
                        let hi = (lo + 1 + draw(3)).min(b.nxt());
                        for n in lo..hi {
                            delivered.push((b.segs[(n - b.una) as usize].sent, n));
                        }
                        b.sack(lo, hi);
                        if draw(2) == 0 {
                            b.mark_lost_by_sack();
                        }
                    }
                    6 if b.nxt() > b.una() => {
                        let to = b.una() + 1 + draw(b.nxt() - b.una());
                        for n in b.una()..to {
                            delivered.push((b.segs[(n - b.una) as usize].sent, n));
                        }
                        b.ack_cumulative(to);
                    }
                    7 => {
                        if let Some(n) = b.next_lost() {
                            b.on_retransmit(n, Time::from_ms(now), TxStamp::default());
                        }
                    }
                    _ if !delivered.is_empty() => {
                        let rack = delivered[draw(delivered.len() as u64) as usize];
                        let wait = Dur::from_ms(draw(20));
                        let mut full = b.clone();
                        let found = full.rack_detect(rack, wait, Time::from_ms(now));
                        let mut quick = b.clone();
                        if quick.rack_finds_nothing(rack) {
                            said += 1;
                            assert_eq!((found.newly_lost, found.lost_retransmits, found.deadline), (0, 0, Time::ZERO));
                            assert_eq!(format!("{quick:?}"), format!("{full:?}"), "the board as the scan leaves it");
                        } else {
                            scanned += 1;
                            assert_eq!(format!("{quick:?}"), format!("{b:?}"), "unchanged when it cannot tell");
                        }
                        b = full;
                    }
                    _ => {}
                }
                b.check().unwrap();
            }
        }
        assert!(said > 1000 && scanned > 1000, "both cases seen: {said} and {scanned}");
    }
}

#[cfg(test)]
mod rate_tests {
    use super::*;

    #[test]
    fn newest_delivered_is_the_last_sent() {
        let mut b = Scoreboard::new(true);
        for i in 0..6u64 {
            b.on_send_new(Time::from_ns(10 * i), TxStamp { delivered: i * 100, ..Default::default() });
        }
        // SACK 3..5 first: newest is segment 4 (sent at 40)
        let s = b.sack(3, 5);
        assert_eq!(s.newest.map(|d| (d.seg, d.sent, d.tx.delivered)), Some((4, Time::from_ns(40), 400)));
        // cumulative ACK of 0..5: the SACKed ones were delivered already; newest new one is 2
        let c = b.ack_cumulative(5);
        assert_eq!(c.newest.map(|d| d.seg), Some(2));
        // a retransmission is stamped anew and becomes the newest
        b.on_retransmit(5, Time::from_ns(100), TxStamp { delivered: 999, ..Default::default() });
        let c = b.ack_cumulative(6);
        assert_eq!(c.newest.map(|d| (d.sent, d.tx.delivered)), Some((Time::from_ns(100), 999)));
    }
}
