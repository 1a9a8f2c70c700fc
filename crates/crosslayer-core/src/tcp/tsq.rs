//! TCP Small Queues (TSQ): a socket keeps at most two of its skbs, or about a millisecond of
//! its pacing rate, in its own host's queue and transmitter; the rest waits in the socket until
//! one of its packets leaves the host (`[tcp] tsq`).
//!
//! Source: Linux 6.1 (the reference kernel's source, Debian's linux-source-6.1, 6.1.192),
//! `net/ipv4/tcp_output.c`:
//! * `tcp_small_queue_check(sk, skb, factor)`: limit = max(2 x skb->truesize, sk_pacing_rate >>
//!   sk_pacing_shift); for a socket nobody paces (`sk_pacing_status == SK_PACING_NONE`) at most
//!   `net.ipv4.tcp_limit_output_bytes` (1 MiB, `tcp_sk_init`); then shifted left by `factor`.
//!   The socket holds the segment back when `sk_wmem_alloc > limit`, unless its retransmission
//!   queue holds at most one skb (`tcp_rtx_queue_empty_or_single_skb`: "Always send skb if rtx
//!   queue is empty or has one skb").
//! * `tcp_write_xmit` checks new data with factor 0, `tcp_xmit_retransmit_queue` lost segments
//!   with factor 1 (twice the limit). The RTO's retransmission of the head
//!   (`tcp_retransmit_timer` -> `tcp_retransmit_skb`) and a tail loss probe's retransmission
//!   (`tcp_send_loss_probe` -> `__tcp_retransmit_skb`) are not checked.
//! * `sk_wmem_alloc` starts at 1 and counts the `truesize` of every clone `__tcp_transmit_skb`
//!   hands to IP (`refcount_add(skb->truesize, ...)`), until the clone is freed: at its TX
//!   completion, or when a queue drops it (`tcp_wfree`).
//! * A held-back socket sets `TSQ_THROTTLED`; the next `tcp_wfree` of one of its packets queues
//!   it for the TSQ tasklet (`tcp_tsq_handler` -> `tcp_tsq_write`), which sends lost segments
//!   and then new data as the window allows.
//! * `sk_pacing_shift` is 10 (`sock_init_data`): a pacing rate in bytes per second shifted by
//!   10 is about a millisecond of it. `sk_pacing_rate` is the congestion control's for an
//!   algorithm that paces (BBR: `SK_PACING_NEEDED`), else `tcp_update_pacing_rate`
//!   (`tcp_input.c`, after every ACK that reaches `tcp_cong_control`, and when the handshake
//!   completes): mss x max(cwnd, packets_out) / srtt, times 200 % while cwnd < ssthresh / 2
//!   (`tcp_pacing_ss_ratio`) else 120 % (`tcp_pacing_ca_ratio`); before an RTT sample, unlimited.
//!   TSQ reads it even when nothing paces the socket (no `fq`).
//! * The skbs are GSO skbs: Linux 6.1 gives every TCP socket GSO whatever the device
//!   (`sk_setup_caps`: `sk_route_caps |= NETIF_F_GSO`; a device without it segments after the
//!   qdisc), and `tcp_write_xmit` sends skbs of up to `tcp_tso_segs` segments
//!   (`tcp_tso_autosize`: 1/1024 s of the pacing rate plus 64 KB >> (min RTT / 512 us), at most
//!   64 KB, at least `tcp_min_tso_segs` = 2; BBR's `min_tso_segs` is 1 below 1.2 Mb/s). An skb's
//!   truesize is [`SKB_OVERHEAD_BYTES`] plus its payload. In the reference kernel (UML, devices
//!   with TSO and GSO off) the sender's qdisc held 2 skbs of 2 segments of a CUBIC flow and of
//!   a BBR flow at 10 Mb/s, and `ss -tm` showed `t8352` = 2 x (1280 + 2 x 1448).
//!
//! The engine's part (`sim.rs`): a data segment of a flow under TSQ carries its share of its
//! skb's overhead in `Packet::tsq` until its first link reports it done: at the end of its
//! serialization (known at its arrival on an eager link, at the start of its serialization on
//! an event-driven one) or when that link's queue drops it; the sender keeps the completion
//! times in a ring and its timer wakes it at the next one while it is held back.
//!
//! Deliberate deviations:
//! * crosslayer sends segments, not GSO skbs: each segment is charged its payload plus its
//!   share of the overhead of an skb of `tcp_tso_segs` segments (1280 / segments), and the
//!   limit's `2 x skb->truesize` is that of an skb of `tcp_tso_segs` segments of the segment's
//!   size. Linux's skb is smaller when the window or the data allow fewer segments (then its
//!   overhead is shared by fewer), and its segments leave the socket and complete together.
//! * TX completion is the end of the segment's serialization on its first link, as a NIC
//!   reports it once the frame is out. A `veth` (the reference kernel's links) frees the skb
//!   when the peer's IP layer takes it (`ip_rcv_core` -> `skb_orphan`), at the instant htb
//!   releases it: one serialization earlier.
//! * Only data segments are charged (not the SYN, the handshake's ACK or a RST), and the
//!   tail loss probe's new segment is not checked (Linux checks it with factor 0:
//!   `tcp_send_loss_probe` -> `tcp_write_xmit`): a probe goes out 2 SRTT after the last ACK,
//!   when the host queue has long drained.
//! * The wake-up is the TX completion itself (the tasklet runs at once, as it does in
//!   virtual time); Linux's deferral under `ksoftirqd` load is not modelled.

use crate::ring::Ring;
use crate::units::{Dur, Time};

/// `sk_pacing_shift`'s default (`sock_init_data`): the limit is about 2^-10 s of the pacing
/// rate.
pub const PACING_SHIFT: u32 = 10;

/// `net.ipv4.tcp_limit_output_bytes`, Linux 6.1's default (`tcp_sk_init`: 16 x 65536): the cap
/// of the limit for a socket nobody paces.
pub const LIMIT_OUTPUT_BYTES: u64 = 16 * 65536;

/// `net.ipv4.tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio` (percent), Linux's defaults.
pub const PACING_SS_RATIO: u64 = 200;
pub const PACING_CA_RATIO: u64 = 120;

/// What an skb costs beyond its payload (its `truesize` less the payload) in the reference
/// kernel (UML x86-64, Linux 6.1): `tcp_stream_alloc_skb` allocates `MAX_TCP_HEADER` =
/// L1_CACHE_ALIGN(128 + MAX_HEADER 96) = 256 bytes of head plus the 320-byte
/// `skb_shared_info` (kmalloc rounds the 576 up to 1024), so truesize = SKB_TRUESIZE(1024 -
/// 320) = 704 + SKB_DATA_ALIGN(sizeof(struct sk_buff) = 208) 256 + 320; the payload is added
/// as it is copied into page fragments (`skb_copy_to_page_nocache`), and `tso_fragment` keeps
/// the overhead with the part that leaves. Measured: `ss -tm` gives `t8352` for two skbs of two
/// 1448-byte segments.
pub const SKB_OVERHEAD_BYTES: u32 = 1280;

/// `sk_gso_max_size` of a TCP socket on a 64 KB GSO device: 65536 - (MAX_TCP_HEADER + 1).
pub const GSO_MAX_SIZE: u64 = 65536 - (256 + 1);

/// `net.ipv4.tcp_tso_rtt_log` (Linux 6.0+): the 64 KB bonus halves per 2^9 us of min RTT.
pub const TSO_RTT_LOG: u32 = 9;

/// `net.ipv4.tcp_min_tso_segs`.
pub const MIN_TSO_SEGS: u64 = 2;

/// Linux `tcp_tso_segs`: the segments of the skbs `tcp_write_xmit` builds, for a pacing rate
/// (bytes per second), a min RTT and an mss: `tcp_tso_autosize` = (the rate / 1024, plus
/// GSO_MAX_SIZE halved per 512 us of min RTT, at most GSO_MAX_SIZE) / mss, at least
/// `MIN_TSO_SEGS`, or 1 for BBR below 1.2 Mb/s (`bbr_min_tso_segs`: `paced`).
pub fn tso_segs(pacing_rate: u64, min_rtt: Option<Dur>, mss: u32, paced: bool) -> u32 {
    let mut bytes = pacing_rate >> PACING_SHIFT;
    // tcp_min_rtt: ~0U before a sample
    let r = min_rtt.map_or(u64::MAX, |d| d.ns() / 1000) >> TSO_RTT_LOG;
    if r < 32 {
        bytes = bytes.saturating_add(GSO_MAX_SIZE >> r);
    }
    bytes = bytes.min(GSO_MAX_SIZE);
    let min = if paced && pacing_rate < 1_200_000 / 8 { 1 } else { MIN_TSO_SEGS };
    (bytes / mss as u64).max(min) as u32
}

/// Linux `tcp_update_pacing_rate`: the pacing rate, bytes per second, of a socket whose
/// congestion control does not pace: mss x max(cwnd, packets_out) / srtt at 200 % while
/// cwnd < ssthresh / 2, else 120 % (`u64::MAX` before the first RTT sample). Windows in
/// segments; srtt in Linux's unit, 1/8 us (`srtt_us`).
pub fn linux_pacing_rate(mss: u32, cwnd_segs: u64, ssthresh_segs: u64, packets_out: u64, srtt: Option<Dur>) -> u64 {
    let srtt_us8 = match srtt {
        Some(s) if s.ns() >= 125 => s.ns() / 125,
        _ => return u64::MAX,
    };
    let ratio = if cwnd_segs < ssthresh_segs / 2 { PACING_SS_RATIO } else { PACING_CA_RATIO };
    // rate = mss x (USEC_PER_SEC / 100 << 3) x ratio x max(cwnd, packets_out) / srtt_us
    let segs = cwnd_segs.max(packets_out);
    match (mss as u64 * ((1_000_000 / 100) << 3) * ratio).checked_mul(segs) {
        Some(bytes) => bytes / srtt_us8,
        None => (mss as u128 * ((1_000_000 / 100) << 3) * ratio as u128 * segs as u128 / srtt_us8 as u128).min(u64::MAX as u128) as u64,
    }
}

/// A sender's TSQ state: what its data segments in its host's queue and transmitter cost
/// (Linux `sk_wmem_alloc`), and when they leave.
#[derive(Clone, Debug)]
pub struct SmallQueues {
    /// truesize of the data segments sent and not yet done at their first link (TX completion
    /// or a drop): Linux `sk_wmem_alloc` less its own reference of 1, bytes.
    wmem_alloc: u64,
    /// Of those, the ones whose TX completion the engine has reported, in time order:
    /// (completion, truesize).
    completions: Ring<(Time, u32)>,
    /// The sender was held back (Linux `TSQ_THROTTLED`): its timer wakes it at the next
    /// completion.
    throttled: bool,
    /// While held back: when a queue dropped one of its segments (which frees its charge at
    /// once, and wakes it then).
    freed: Time,
    /// Its congestion control paces (Linux `SK_PACING_NEEDED`): no cap at
    /// `LIMIT_OUTPUT_BYTES`.
    paced: bool,
    /// `sk_pacing_rate` as of the last ACK, bytes per second (`u64::MAX` before one).
    pacing_rate: u64,
    /// Segments of Linux's skbs at that rate (`tso_segs`), and a segment's share of their
    /// overhead.
    segs: u32,
    share: u32,
}

impl SmallQueues {
    /// `mss`: the sender's; the pacing rate is unlimited until `set_pacing_rate`.
    pub fn new(paced: bool, mss: u32) -> SmallQueues {
        let mut q = SmallQueues { wmem_alloc: 0, completions: Ring::with_capacity(8), throttled: false, freed: Time::NEVER, paced, pacing_rate: 0, segs: 0, share: 0 };
        q.set_pacing_rate(u64::MAX, None, mss);
        q
    }

    /// The socket's `sk_pacing_rate` (bytes per second) now, with its min RTT (for the skbs'
    /// size) and mss.
    pub fn set_pacing_rate(&mut self, rate: u64, min_rtt: Option<Dur>, mss: u32) {
        self.pacing_rate = rate;
        self.segs = tso_segs(rate, min_rtt, mss, self.paced);
        self.share = Self::overhead_share(self.segs);
    }

    /// Its algorithm paces.
    pub fn paced(&self) -> bool {
        self.paced
    }

    /// A segment's share of the overhead of its skb of `segs` segments.
    #[inline]
    pub fn overhead_share(segs: u32) -> u32 {
        SKB_OVERHEAD_BYTES / segs.max(1)
    }

    /// The truesize of an skb of `segs` segments of `len` payload bytes.
    #[inline]
    pub fn skb_truesize(segs: u32, len: u32) -> u64 {
        SKB_OVERHEAD_BYTES as u64 + segs as u64 * len as u64
    }

    /// A data segment of `len` payload bytes went to IP (`__tcp_transmit_skb`: `sk_wmem_alloc
    /// += truesize`): charged its payload and its share of its skb's overhead, which it returns
    /// (the packet carries it, so its completion frees what it was charged).
    #[inline]
    pub fn charge(&mut self, len: u32) -> u32 {
        debug_assert!(self.share > 0, "a charged packet is told by its share");
        self.wmem_alloc += (len + self.share) as u64;
        self.share
    }

    /// The segment charged `size` is done at its first link at `at` (its TX completion; a
    /// drop: `at` = `now`). True if a held-back sender must now wake earlier than its timer
    /// says (its first known completion is this one).
    #[inline]
    pub fn complete(&mut self, at: Time, size: u32, now: Time) -> bool {
        if at <= now {
            debug_assert!(self.wmem_alloc >= size as u64);
            self.wmem_alloc -= size as u64;
            if self.throttled {
                self.freed = self.freed.min(now);
            }
            return self.throttled;
        }
        debug_assert!(self.completions.back().is_none_or(|(t, _)| t <= at), "completions out of order");
        self.completions.push_back((at, size));
        self.throttled && self.completions.len() == 1
    }

    /// Forget what completed by `now`.
    #[inline]
    fn settle(&mut self, now: Time) {
        while let Some((_, size)) = self.completions.pop_front_if(|&(t, _)| t <= now) {
            self.wmem_alloc -= size as u64;
        }
    }

    /// Bytes charged now (`sk_wmem_alloc` - 1), completions due by `now` taken off.
    pub fn in_host(&mut self, now: Time) -> u64 {
        self.settle(now);
        self.wmem_alloc
    }

    /// What is charged for segments whose first link has not reported them yet (neither
    /// completed nor dropped): the engine checks it against the packets that carry a charge.
    pub fn unreported(&self) -> u64 {
        self.wmem_alloc - self.completions.iter().map(|(_, size)| size as u64).sum::<u64>()
    }

    /// `tcp_small_queue_check`'s limit for an skb of `truesize` bytes, the socket's pacing rate
    /// `pacing_rate` (bytes per second), and `factor` (0: new data, 1: a retransmission).
    pub fn limit(&self, truesize: u64, pacing_rate: u64, factor: u32) -> u64 {
        let mut limit = (2 * truesize).max(pacing_rate >> PACING_SHIFT);
        if !self.paced {
            limit = limit.min(LIMIT_OUTPUT_BYTES);
        }
        limit << factor
    }

    /// `tcp_small_queue_check`: hold back a segment of `len` payload bytes at `now` (the skb
    /// of `segs` such segments it would leave in)? `rtx_skbs`: segments sent and not
    /// cumulatively acknowledged (the retransmission queue). Sets `throttled` when it does.
    #[inline]
    pub fn holds(&mut self, now: Time, len: u32, factor: u32, rtx_skbs: u64) -> bool {
        self.settle(now);
        // sk_wmem_alloc = 1 + wmem_alloc > limit
        if self.wmem_alloc < self.limit(Self::skb_truesize(self.segs, len), self.pacing_rate, factor) || rtx_skbs <= 1 {
            return false;
        }
        self.throttled = true;
        true
    }

    /// The sender tries to send again (Linux clears `TSQ_THROTTLED` before the tasklet sends).
    #[inline]
    pub fn unthrottle(&mut self) {
        self.throttled = false;
        self.freed = Time::NEVER;
    }

    /// It was held back at its last attempt.
    #[inline]
    pub fn throttled(&self) -> bool {
        self.throttled
    }

    /// When a held-back sender wakes: its next known completion, or the drop that freed room
    /// (`Time::NEVER`: none known yet; the engine's report of one wakes it).
    #[inline]
    pub fn wake(&self) -> Time {
        self.completions.front().map_or(Time::NEVER, |(t, _)| t).min(self.freed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;

    #[test]
    fn linux_pacing_rate_is_tcp_update_pacing_rate() {
        // cwnd 20 x 1448 B over 40 ms = 724,000 B/s; in slow start (cwnd < ssthresh / 2) 200 %
        let ms40 = Some(Dur::from_ms(40));
        assert_eq!(linux_pacing_rate(MSS, 20, u64::MAX, 0, ms40), 1_448_000);
        // congestion avoidance (cwnd >= ssthresh / 2): 120 %
        assert_eq!(linux_pacing_rate(MSS, 20, 40, 0, ms40), 868_800);
        assert_eq!(linux_pacing_rate(MSS, 20, 39, 0, ms40), 868_800);
        assert_eq!(linux_pacing_rate(MSS, 19, 40, 0, ms40), 2 * 19 * 1448 * 25);
        // packets_out above cwnd (recovery) counts
        assert_eq!(linux_pacing_rate(MSS, 20, 40, 30, ms40), 30 * 1448 * 25 * 6 / 5);
        // no RTT sample yet: unlimited
        assert_eq!(linux_pacing_rate(MSS, 10, u64::MAX, 0, None), u64::MAX);
        // srtt in 1/8 us: 40.0009 ms is 320,007 eighths
        assert_eq!(linux_pacing_rate(MSS, 20, 40, 0, Some(Dur::from_ns(40_000_900))), (1448u128 * 80_000 * 120 * 20 / 320_007) as u64);
    }

    /// tcp_tso_autosize: a millisecond of the pacing rate, with 64 KB more at a min RTT under
    /// 512 us (halved per 512 us), at least 2 segments (BBR: 1 below 1.2 Mb/s).
    #[test]
    fn tso_segs_is_tcp_tso_autosize() {
        let ms = |x: u64| Some(Dur::from_ms(x));
        assert_eq!(tso_segs(1_250_000, ms(40), MSS, false), 2, "10 Mb/s: 1,220 B a millisecond");
        assert_eq!(tso_segs(12_500_000, ms(40), MSS, false), 8, "100 Mb/s: 12,207 B");
        assert_eq!(tso_segs(125_000_000, ms(40), MSS, false), 45, "1 Gb/s: capped at 64 KB");
        // min RTT 100 us: the whole 64 KB bonus; 1 ms: 64 KB >> 1; 8 ms: 64 KB >> 15
        assert_eq!(tso_segs(1_250_000, Some(Dur::from_us(100)), MSS, false), 45);
        assert_eq!(tso_segs(1_250_000, Some(Dur::from_us(1000)), MSS, false), (1220 + 32_639) / 1448);
        assert_eq!(tso_segs(12_500_000, ms(8), MSS, false), (12_207 + 1) / 1448);
        assert_eq!(tso_segs(100_000, None, MSS, true), 1, "BBR below 1.2 Mb/s");
        assert_eq!(tso_segs(100_000, None, MSS, false), 2);
    }

    #[test]
    fn the_limit_is_two_skbs_or_a_millisecond_of_the_pacing_rate() {
        // two skbs of two segments: ss -tm's t8352 in the reference kernel
        let t = SmallQueues::skb_truesize(2, MSS);
        assert_eq!(2 * t, 8352);
        let paced = SmallQueues::new(true, MSS);
        // slow: two skbs
        assert_eq!(paced.limit(t, 1_000_000, 0), 2 * t);
        // 100 Mb/s = 12.5 MB/s: 12,207 B
        assert_eq!(paced.limit(t, 12_500_000, 0), 12_500_000 >> 10);
        // retransmissions: twice
        assert_eq!(paced.limit(t, 12_500_000, 1), (12_500_000 >> 10) << 1);
        assert_eq!(paced.limit(t, 1_000_000, 1), 4 * t);
        // a socket nobody paces: at most tcp_limit_output_bytes (1 MiB), before the shift
        let unpaced = SmallQueues::new(false, MSS);
        assert_eq!(unpaced.limit(t, u64::MAX, 0), 1 << 20);
        assert_eq!(unpaced.limit(t, u64::MAX, 1), 2 << 20);
        assert_eq!(paced.limit(t, 10_000_000_000, 0), 10_000_000_000 >> 10);
    }

    /// With the limit at two skbs of two segments, a fifth segment waits (sk_wmem_alloc = 1 +
    /// 4 x 2088 > 8352) until the first completes; a retransmission may have eight; with at
    /// most one segment outstanding nothing waits.
    #[test]
    fn holds_back_above_the_limit_and_wakes_at_the_next_completion() {
        let ms = |x: u64| Time::from_ns(x * 1_000_000);
        let mut q = SmallQueues::new(true, MSS);
        // 800 kB/s: the limit is two skbs of two segments
        q.set_pacing_rate(800_000, Some(Dur::from_ms(40)), MSS);
        let seg = MSS + SmallQueues::overhead_share(2);
        assert_eq!(seg, 2088);
        for k in 0..4 {
            assert!(!q.holds(ms(0), MSS, 0, 5), "segment {k}");
            assert_eq!(q.charge(MSS), 640);
        }
        assert!(q.holds(ms(0), MSS, 0, 5), "four in the host: the fifth waits");
        assert!(q.throttled);
        assert_eq!(q.wake(), Time::NEVER, "no completion known yet");
        // the first link reports the completions: the first one wakes the sender
        assert!(q.complete(ms(1), seg, ms(0)));
        for k in 2..=4 {
            assert!(!q.complete(ms(k), seg, ms(0)));
        }
        assert_eq!(q.wake(), ms(1));
        // retransmissions may have twice as much in the host
        assert!(!q.holds(ms(0), MSS, 1, 5));
        // ... and nothing waits with at most one segment outstanding
        q.unthrottle();
        assert!(!q.holds(ms(0), MSS, 0, 1));
        assert!(!q.throttled);
        // at the first completion there is room again
        assert!(!q.holds(ms(1), MSS, 0, 5));
        assert_eq!(q.in_host(ms(1)), 3 * seg as u64);
        // a drop (done now) frees its charge at once, and wakes a held-back sender
        q.charge(MSS);
        assert!(q.holds(ms(1), MSS, 0, 5));
        assert!(q.complete(ms(1), seg, ms(1)), "a drop wakes it now");
        assert_eq!(q.wake(), ms(1));
        q.unthrottle();
        assert!(!q.holds(ms(1), MSS, 0, 5));
        assert_eq!(q.in_host(ms(4)), 0);
    }
}
