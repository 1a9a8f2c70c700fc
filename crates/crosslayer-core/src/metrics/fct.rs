//! The ideal flow completion time: what a finite flow takes alone on its path with an unlimited
//! window. Its packets leave the sender back to back, each link serves them in order at its rate
//! after the previous one (store and forward: a packet is forwarded once wholly received), and
//! each adds its propagation delay, exactly as the engine moves packets.
//!
//! With a handshake: the SYN crosses the data path, the SYN-ACK the ACK path, then the
//! handshake's ACK and the data leave together (the sender sends both on the SYN-ACK); the flow
//! completes when its last byte is delivered. So
//!
//!   ideal = sum over the data path of (tx(SYN) + delay) + sum over the ACK path of (tx(SYN-ACK)
//!           + delay) + T(train),
//!
//! where T(train) is when the last packet of [handshake ACK, data...] reaches the receiver. That
//! is the longest path through the hop-by-packet grid (each link's departure of packet k is
//! max(its arrival, the link's departure of packet k-1) + tx): for a train of runs of equal
//! packets, an optimal path turns only at the first or last packet of a run, so the grid has at
//! most 6 columns and T is exact in O(hops). This is the definition the data-center transport
//! papers use ("the FCT of the flow alone in the network", pFabric, HPCC), made exact for
//! store-and-forward links; a lone flow reaches it when it fits in its initial window (a larger
//! one waits for its window to grow: slow start's round trips are not in the ideal).

use crate::units::{Dur, Rate};

/// One link of a path: its rate and propagation delay.
pub type Hop = (Rate, Dur);

/// When the last packet of a train reaches the end of `path`, the train entering the first link
/// at time 0 in order: `runs` of (wire bytes, count) packets.
pub fn train_time(path: &[Hop], runs: &[(u32, u64)]) -> Dur {
    // critical packets: the first and the last of each run; block k is the packets after
    // critical k-1 up to critical k (all of one size): (size, count)
    let mut block: Vec<(u32, u64)> = Vec::with_capacity(6);
    for &(size, count) in runs.iter().filter(|r| r.1 > 0) {
        block.push((size, 1));
        if count > 1 {
            block.push((size, count - 1));
        }
    }
    if block.is_empty() || path.is_empty() {
        return Dur::ZERO;
    }
    let n = block.len();
    // best[k]: the longest path whose last hop so far ended at critical packet k (None: none
    // can); the first hop enters at packet 0, critical 0
    let mut best: Vec<Option<u64>> = (0..n).map(|k| (k == 0).then_some(0)).collect();
    for &(rate, delay) in path {
        let tx = |k: usize| rate.tx_time(block[k].0).ns();
        let next: Vec<Option<u64>> = (0..n)
            .map(|k| {
                // this hop enters at critical j (serving it) and serves every packet after it up to k
                (0..=k)
                    .filter_map(|j| best[j].map(|b| b + tx(j) + (j + 1..=k).map(|i| block[i].1 * tx(i)).sum::<u64>()))
                    .max()
                    .map(|v| v + delay.ns())
            })
            .collect();
        best = next;
    }
    Dur::from_ns(best[n - 1].expect("the last hop reaches the last packet"))
}

/// The same by brute force over every packet (for the tests): the recurrence
/// D[h][k] = max(D[h-1][k] + delay[h-1], D[h][k-1]) + tx[h](k).
pub fn train_time_direct(path: &[Hop], sizes: &[u32]) -> Dur {
    let mut arrive: Vec<u64> = vec![0; sizes.len()];
    for &(rate, delay) in path {
        let mut free = 0u64;
        for (k, &s) in sizes.iter().enumerate() {
            free = free.max(arrive[k]) + rate.tx_time(s).ns();
            arrive[k] = free + delay.ns();
        }
    }
    Dur::from_ns(arrive.last().copied().unwrap_or(0))
}

/// A lone flow's ideal completion time: the handshake (`Some((SYN, SYN-ACK, ACK))` wire sizes)
/// then the train of `full` data packets of `full_size` and the last of `last_size`.
pub fn ideal_fct(data: &[Hop], ack: &[Hop], handshake: Option<(u32, u32, u32)>, full: u64, full_size: u32, last_size: u32) -> Dur {
    let one_way = |path: &[Hop], size: u32| path.iter().fold(Dur::ZERO, |t, &(r, d)| t + r.tx_time(size) + d);
    match handshake {
        Some((syn, synack, hs_ack)) => one_way(data, syn) + one_way(ack, synack) + train_time(data, &[(hs_ack, 1), (full_size, full), (last_size, 1)]),
        None => train_time(data, &[(full_size, full), (last_size, 1)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, StreamKind};

    /// The O(hops) grid equals the packet-by-packet recurrence on random paths and trains.
    #[test]
    fn the_critical_packet_grid_equals_the_recurrence() {
        let mut rng = Rng::stream(3, StreamKind::Flow, 0);
        for _ in 0..3000 {
            let hops = rng.range_inclusive(1, 6) as usize;
            let path: Vec<Hop> = (0..hops).map(|_| (Rate::from_bps(rng.range_inclusive(1, 100) * 1_000_000), Dur::from_ns(rng.range_inclusive(0, 5_000_000)))).collect();
            let first = rng.range_inclusive(40, 1500) as u32;
            let full = rng.range_inclusive(0, 40);
            let full_size = rng.range_inclusive(100, 1500) as u32;
            let last = rng.range_inclusive(41, full_size as u64) as u32;
            let runs = [(first, rng.range_inclusive(0, 1)), (full_size, full), (last, 1)];
            let sizes: Vec<u32> = runs.iter().flat_map(|&(s, c)| std::iter::repeat_n(s, c as usize)).collect();
            assert_eq!(train_time(&path, &runs), train_time_direct(&path, &sizes), "{path:?} {runs:?}");
        }
    }

    /// One link: the train's serialization plus the delay; a slow middle link sets the pace.
    #[test]
    fn closed_forms() {
        let mbps = |m: u64| Rate::from_bps(m * 1_000_000);
        let one = [(mbps(8), Dur::from_ms(10))];
        assert_eq!(train_time(&one, &[(1000, 10)]), Dur::from_ms(10) + Dur::from_ms(10));
        let three = [(mbps(80), Dur::from_ms(1)), (mbps(8), Dur::from_ms(10)), (mbps(80), Dur::from_ms(1))];
        // first packet through every link, then 9 more at the 8 Mb/s link's pace
        let expect = Dur::from_us(100) + Dur::from_ms(1) + Dur::from_ms(1) + Dur::from_ms(10) + Dur::from_us(100) + Dur::from_ms(1) + Dur::from_ms(9);
        assert_eq!(train_time(&three, &[(1000, 10)]), expect);
    }
}
