//! BBR's shared law (BBR v1 and BBRv3): the packet-timed round max filter of the bandwidth
//! (and BBRv3's extra-acked) estimate, the send quantum, and the cwnd and pacing floors.
//! Sources: Linux `net/ipv4/tcp_bbr.c` (`minmax`, `bbr_tso_segs_goal`), draft-ietf-ccwg-bbr.

/// The least cwnd, packets (Linux bbr_cwnd_min_target; BBRv3's BBR.MinPipeCwnd).
pub const MIN_CWND_PKTS: u64 = 4;
/// Pace 1 % below the estimate (Linux bbr_pacing_margin_percent; BBRv3's PacingMarginPercent).
pub const PACING_MARGIN: f64 = 0.99;

/// A windowed max over packet-timed rounds: the largest value of each of the last `len` rounds,
/// one slot per round (BBR's bandwidth filter; BBRv3's extra_acked filter). The max is cached
/// and recomputed when a round starts.
#[derive(Clone, Debug)]
pub struct RoundMaxFilter {
    /// (round, largest value in that round); round `u64::MAX` = empty.
    slots: Vec<(u64, f64)>,
    /// max over the slots of the window ending at the current round.
    max: f64,
}

impl RoundMaxFilter {
    pub fn new(rounds: usize) -> RoundMaxFilter {
        RoundMaxFilter { slots: vec![(u64::MAX, 0.0); rounds.max(1)], max: 0.0 }
    }

    /// The largest value of the window.
    #[inline]
    pub fn get(&self) -> f64 {
        self.max
    }

    /// The largest value of `round` alone (0 when none).
    pub fn current(&self, round: u64) -> f64 {
        let slot = self.slots[(round % self.slots.len() as u64) as usize];
        if slot.0 == round {
            slot.1
        } else {
            0.0
        }
    }

    /// Recompute the max for the window ending at `round` (when a round starts). A window
    /// with no sample keeps the max it had: as Linux's `minmax` filter, the estimate changes
    /// only when a sample is taken (rounds without one, e.g. app-limited ones, age nothing).
    pub fn advance(&mut self, round: u64) {
        let n = self.slots.len() as u64;
        let mut live = self.slots.iter().filter(|(r, _)| *r != u64::MAX && *r + n > round).peekable();
        if live.peek().is_some() {
            self.max = live.map(|&(_, b)| b).fold(0.0, f64::max);
        }
    }

    /// Take `v` as a sample of `round`.
    pub fn update(&mut self, round: u64, v: f64) {
        let n = self.slots.len();
        let slot = &mut self.slots[(round % n as u64) as usize];
        if slot.0 != round {
            *slot = (round, v);
            self.advance(round);
        } else if v > slot.1 {
            slot.1 = v;
            self.max = self.max.max(v);
        }
    }
}

/// Segments sent back to back at `pacing_bps` (Linux's TSO goal, BBRv3's offload budget): 1 ms
/// worth, 2 segments (1 below 1.2 Mb/s) to 64 KB.
pub fn send_quantum_pkts(pacing_bps: f64, mss: u64) -> u64 {
    let min = if pacing_bps < 1.2e6 { 1 } else { 2 };
    let one_ms = (pacing_bps / 8.0 * 1e-3 / mss as f64) as u64;
    one_ms.clamp(min, (65536 / mss).max(min))
}
