//! Estimate of the most bandwidth-consuming connection from sampled arrivals, shared by the
//! fairness-oriented CoDel (`fair_codel.rs`) and Active Packet Dropping (`apd.rs`).
//!
//! Source: Hanai, Yamaguchi, Kobayashi, "Modified Controlling Queue Delay for TCP Fairness
//! Improvement" (Kogakuin University; seed 003), section IV.A and Fig. 8: "The network element
//! records the connection information of a packet every `rec_int` packets receiving [...]. The
//! element stores the latest `hist_len` records [...]. Then, the most frequently stored connection
//! in the log is extracted every `stat_int` packets receiving [...]. The determined connection is
//! assumed as the most bandwidth-consuming connection." Section II.E says Active Packet
//! Dropping's dynamic method "monitors traffic and estimates the most consuming connection" in
//! the same spirit (its own rule is not given; this one is used for both).
//!
//! * Every arrival counts (also those dropped at arrival): the `rec_int`-th, `2 rec_int`-th, ...
//!   arrival is recorded; the estimate is recomputed after the `stat_int`-th, `2 stat_int`-th, ...
//!   arrival (after recording it, when both fall on the same arrival).
//! * Connection: the address pair (sender node, receiver node) as the paper's implementation
//!   (which used the two MAC addresses), or the simulator's flow (standing for the 5-tuple).
//!
//! Deliberate choices where the paper is silent: before the first recomputation no connection
//! is heavy; on a tie for the most frequent, the current estimate is kept if it is among the
//! tied, else the smallest connection id wins (deterministic). The history is a ring of
//! `hist_len` ids; a recomputation sorts a copy of it (O(hist_len log hist_len) every `stat_int`
//! arrivals, no allocation after construction).

use crate::packet::Packet;

crate::choice! {
    /// What identifies a connection.
    pub enum ConnKey {
        /// Sender and receiver node (the paper: the two MAC addresses); all flows between two
        /// hosts are one connection.
        Pair = "pair",
        /// The simulator's flow (standing for the 5-tuple).
        Flow = "flow",
    }
}

crate::choice! {
    /// Whether the heaviest connection is given or estimated.
    pub enum HeavyMode {
        /// Estimated from sampled arrivals (`rec_int`, `hist_len`, `stat_int`).
        Dynamic = "dynamic",
        /// Given: the connection of flow `heavy_flow`.
        Static = "static",
    }
}

/// The connection id of a packet: `src * 2^32 + dst` (node ids) for `Pair`, the flow id for
/// `Flow`. (Exact as an f64 while node ids are below 2^21.)
#[inline]
pub fn conn_id(key: ConnKey, p: &Packet) -> u64 {
    match key {
        ConnKey::Pair => ((p.src as u64) << 32) | p.dst as u64,
        ConnKey::Flow => p.flow as u64,
    }
}

/// The sampled history and the current estimate.
#[derive(Debug, Clone)]
pub struct HeavyHitter {
    /// Record one arrival in this many.
    rec_int: u32,
    /// Recompute the estimate every this many arrivals.
    stat_int: u32,
    /// Ring of the last `hist_len` recorded connection ids.
    hist: Vec<u64>,
    /// Next slot of the ring to write.
    next: usize,
    /// Records held (<= hist_len).
    filled: usize,
    /// Arrivals since the last record / the last recomputation.
    since_rec: u32,
    since_stat: u32,
    /// Scratch for the recomputation (capacity hist_len).
    scratch: Vec<u64>,
    /// The estimated heaviest connection (`None` before the first recomputation).
    pub heavy: Option<u64>,
    /// Its share of the history at the last recomputation.
    pub share: f64,
}

/// Most records a recomputation may sort per record stored: each sorts `hist_len` records every
/// `stat_int` records, so a larger ratio makes a run crawl (and an interrupt wait).
pub const MAX_SORT_PER_RECORD: u32 = 1000;

/// The relation between `hist_len` and `stat_int` every user of the estimator checks.
pub fn check_cost(hist_len: u32, stat_int: u32, out: &mut Vec<crate::params::Problem>) {
    if hist_len / stat_int.max(1) > MAX_SORT_PER_RECORD {
        out.push(crate::params::Problem::new(
            "stat_int",
            format!("must be at least hist_len / {MAX_SORT_PER_RECORD} ({}): each recomputation sorts the {hist_len} records of the history", hist_len.div_ceil(MAX_SORT_PER_RECORD)),
        ));
    }
}

impl HeavyHitter {
    pub fn new(rec_int: u32, hist_len: u32, stat_int: u32) -> HeavyHitter {
        debug_assert!(rec_int >= 1 && hist_len >= 1 && stat_int >= 1);
        HeavyHitter {
            rec_int,
            stat_int,
            hist: vec![0; hist_len as usize],
            next: 0,
            filled: 0,
            since_rec: 0,
            since_stat: 0,
            scratch: Vec::with_capacity(hist_len as usize),
            heavy: None,
            share: 0.0,
        }
    }

    /// A packet of connection `conn` arrives.
    #[inline]
    pub fn on_arrival(&mut self, conn: u64) {
        self.since_rec += 1;
        if self.since_rec >= self.rec_int {
            self.since_rec = 0;
            self.hist[self.next] = conn;
            self.next = (self.next + 1) % self.hist.len();
            self.filled = (self.filled + 1).min(self.hist.len());
        }
        self.since_stat += 1;
        if self.since_stat >= self.stat_int {
            self.since_stat = 0;
            self.recompute();
        }
    }

    /// The most frequent connection of the history becomes the estimate.
    fn recompute(&mut self) {
        if self.filled == 0 {
            return;
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.hist[..self.filled]);
        self.scratch.sort_unstable();
        let (mut best, mut best_n, mut keep_current) = (self.scratch[0], 0usize, false);
        let mut i = 0;
        while i < self.scratch.len() {
            let id = self.scratch[i];
            let mut j = i + 1;
            while j < self.scratch.len() && self.scratch[j] == id {
                j += 1;
            }
            let n = j - i;
            if n > best_n {
                (best, best_n, keep_current) = (id, n, Some(id) == self.heavy);
            } else if n == best_n && !keep_current && Some(id) == self.heavy {
                (best, keep_current) = (id, true); // tie: keep the current estimate
            }
            i = j;
        }
        self.heavy = Some(best);
        self.share = best_n as f64 / self.filled as f64;
    }

    /// Whether `conn` is the estimated heaviest connection.
    #[inline]
    pub fn is_heavy(&self, conn: u64) -> bool {
        self.heavy == Some(conn)
    }
}

/// The heaviest connection, given (static mode) or estimated (dynamic mode): what both
/// disciplines consult.
#[derive(Debug, Clone)]
pub struct Heaviest {
    pub key: ConnKey,
    pub mode: HeavyMode,
    /// Static mode: the flow naming the heaviest connection, and that connection once one of its
    /// packets has arrived.
    heavy_flow: Option<u32>,
    static_heavy: Option<u64>,
    /// Dynamic mode: the estimate.
    pub hh: HeavyHitter,
}

impl Heaviest {
    /// `rec_int`, `hist_len`, `stat_int` are used in dynamic mode only.
    pub fn new(key: ConnKey, mode: HeavyMode, heavy_flow: Option<u32>, rec_int: u32, hist_len: u32, stat_int: u32) -> Heaviest {
        let hist_len = if mode == HeavyMode::Dynamic { hist_len } else { 1 };
        Heaviest { key, mode, heavy_flow, static_heavy: None, hh: HeavyHitter::new(rec_int, hist_len, stat_int) }
    }

    /// An arrival: feed the estimate (dynamic) or learn the given connection (static). Returns
    /// the packet's connection.
    #[inline]
    pub fn on_arrival(&mut self, pkt: &Packet) -> u64 {
        let conn = conn_id(self.key, pkt);
        match self.mode {
            HeavyMode::Dynamic => self.hh.on_arrival(conn),
            HeavyMode::Static => {
                if self.static_heavy.is_none() && Some(pkt.flow) == self.heavy_flow {
                    self.static_heavy = Some(conn);
                }
            }
        }
        conn
    }

    /// The heaviest connection, as given or estimated (`None` not known yet).
    #[inline]
    pub fn heavy(&self) -> Option<u64> {
        match self.mode {
            HeavyMode::Dynamic => self.hh.heavy,
            HeavyMode::Static => self.static_heavy,
        }
    }

    /// Whether `pkt` belongs to the heaviest connection.
    #[inline]
    pub fn is_heavy(&self, pkt: &Packet) -> bool {
        self.heavy() == Some(conn_id(self.key, pkt))
    }

    /// State values: the heaviest connection's id (NaN if not known), its share of the history
    /// (NaN in static mode or before the first estimate).
    pub fn state(&self) -> [f64; 2] {
        let heavy = self.heavy().map_or(f64::NAN, |c| c as f64);
        let share = if self.mode == HeavyMode::Dynamic && self.hh.heavy.is_some() { self.hh.share } else { f64::NAN };
        [heavy, share]
    }
}

/// The state fields of [`Heaviest::state`].
pub const HEAVY_STATE: [crate::registry::Field; 2] = [
    crate::registry::Field { name: "heavy_conn", unit: crate::registry::FieldUnit::Id, doc: "the heaviest connection: flow id (key flow) or sender node * 2^32 + receiver node (key pair); NaN if not known yet" },
    crate::registry::Field { name: "heavy_share", unit: crate::registry::FieldUnit::Ratio, doc: "the heaviest connection's share of the history at the last estimate (dynamic mode; NaN in static mode)" },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// rec_int 2, hist_len 4, stat_int 4: arrival k (1-based) is recorded when k is even, the
    /// estimate is recomputed when k is a multiple of 4 over the last 4 records (8 arrivals).
    #[test]
    fn records_history_and_statistics_at_their_intervals() {
        let mut h = HeavyHitter::new(2, 4, 4);
        // arrivals 1..=8 all from connection 7, but odd arrivals from 9 (never recorded)
        let mut seen = vec![];
        for k in 1..=8u64 {
            h.on_arrival(if k % 2 == 0 { 7 } else { 9 });
            seen.push(h.heavy);
        }
        assert_eq!(seen[..3], [None, None, None], "no estimate before the 4th arrival");
        assert_eq!(seen[3], Some(7), "4th arrival: history [7, 7]");
        assert_eq!(h.share, 1.0);
        // connection 5 on even arrivals from now on: history after arrival 12 = [7, 7, 5, 5]
        // (tie: keep 7), after 16 = [5, 5, 5, 5]; recomputations only at 12 and 16.
        for k in 9..=16u64 {
            h.on_arrival(if k % 2 == 0 { 5 } else { 9 });
            let expect = if k < 16 { Some(7) } else { Some(5) };
            assert_eq!(h.heavy, expect, "after arrival {k}");
        }
        assert_eq!(h.share, 1.0);
    }

    /// The estimate switches at the first recomputation where the newcomer dominates the
    /// history, not before, and not between recomputations.
    #[test]
    fn switches_to_the_dominant_connection_at_the_right_packet() {
        // every packet recorded, history 10, statistics every 5 packets
        let mut h = HeavyHitter::new(1, 10, 5);
        for _ in 0..10 {
            h.on_arrival(1);
        }
        assert_eq!(h.heavy, Some(1));
        // connection 2 from arrival 11 on: after arrival 15 the history holds 5 x 1 and 5 x 2
        // (tie: keep 1); at arrival 16 it would hold 6 x 2 but the next recomputation is at 20.
        let mut switched_at = None;
        for k in 11..=30u64 {
            h.on_arrival(2);
            if switched_at.is_none() && h.heavy == Some(2) {
                switched_at = Some(k);
            }
        }
        assert_eq!(switched_at, Some(20));
        // the share is the estimate's fraction of the history
        let mut h = HeavyHitter::new(1, 10, 10);
        for k in 0..10u64 {
            h.on_arrival(if k < 7 { 3 } else { 4 + k });
        }
        assert_eq!((h.heavy, h.share), (Some(3), 0.7));
        // ties without the current estimate go to the smallest id
        let mut h = HeavyHitter::new(1, 4, 4);
        for c in [9, 8, 9, 8] {
            h.on_arrival(c);
        }
        assert_eq!(h.heavy, Some(8));
    }

    #[test]
    fn connection_ids_by_address_pair_or_flow() {
        let a = Packet { flow: 3, src: 1, dst: 4, ..Default::default() };
        let b = Packet { flow: 5, src: 1, dst: 4, ..Default::default() };
        let c = Packet { flow: 3, src: 2, dst: 4, ..Default::default() };
        assert_eq!(conn_id(ConnKey::Pair, &a), conn_id(ConnKey::Pair, &b));
        assert_ne!(conn_id(ConnKey::Pair, &a), conn_id(ConnKey::Pair, &c));
        assert_ne!(conn_id(ConnKey::Flow, &a), conn_id(ConnKey::Flow, &b));
        assert_eq!(conn_id(ConnKey::Pair, &a), (1 << 32) | 4);
    }
}
