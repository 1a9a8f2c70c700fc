//! The congestion-control laws: the pieces several algorithms share, below them all. A
//! registered algorithm (one file of `cc/`) imports only the family's contract (`cc/mod.rs`),
//! the registry and this floor - never a sibling algorithm - so each file reads on its own and
//! a change to one algorithm cannot reach another through its internals.
//!
//! * here: slow start under each stack's rule, Linux's `tcp_cong_avoid_ai`, growth by a
//!   fraction of a segment per window (HighSpeed's a(w), H-TCP's alpha);
//! * [`aimd`]: Reno's AIMD (its counting and halving rules), which Reno is, and Tahoe, Vegas,
//!   Westwood+ and DCTCP fall back to;
//! * [`hystart`]: HyStart and HyStart++ (RFC 9406), CUBIC's slow-start exit;
//! * [`bbr`]: BBR's round-based max filter, send quantum and floors (BBR v1 and BBRv3);
//! * [`vegas_rtt`]: Vegas's per-round RTT sampling (Vegas, Veno, YeAH);
//! * [`marked`]: DCTCP's marked fraction alpha (DCTCP, TCP Prague).

pub mod aimd;
pub mod bbr;
pub mod hystart;
pub mod marked;
pub mod vegas_rtt;

use super::{SsRule, Window};

/// Congestion avoidance adding `per_window` segments per window acknowledged: `acked_bytes`
/// add `acked / cwnd x per_window` segments, whole ones to cwnd, the fraction kept in `acc`
/// (HighSpeed's a(w), H-TCP's alpha).
pub fn grow_per_window(w: &mut Window, acc: &mut f64, acked_bytes: u64, per_window: f64) {
    *acc += acked_bytes as f64 / w.cwnd as f64 * per_window;
    if *acc >= 1.0 {
        let whole = acc.floor();
        w.cwnd += whole as u64 * w.mss as u64;
        *acc -= whole;
    }
}

/// Linux `tcp_cong_avoid_ai`: one segment per `per` segments acknowledged, counted in `cnt`
/// (the socket's `snd_cwnd_cnt`); several at once if an ACK covers several multiples of `per`.
/// `acked_bytes` count in whole segments (a partial segment adds nothing, as Linux counts
/// packets). Reno's rule is `per` = cwnd; Scalable's min(cwnd, 100); Veno's and YeAH's use it too.
pub fn cong_avoid_ai(w: &mut Window, cnt: &mut u64, per: u64, acked_bytes: u64) {
    let mss = w.mss as u64;
    let per = per.max(1);
    // a window that shrank below the count: credit the increment that is due
    if *cnt >= per {
        *cnt = 0;
        w.cwnd += mss;
    }
    *cnt += acked_bytes / mss;
    if *cnt >= per {
        let inc = *cnt / per;
        *cnt -= inc * per;
        w.cwnd += inc * mss;
    }
}

/// Slow start: grow cwnd for an ACK of `acked_bytes` under `rule` (see [`SsRule`]). Returns the
/// acked bytes left for congestion avoidance: all of them outside slow start; once an ACK takes
/// cwnd to ssthresh, what it acknowledged beyond the room that was left; otherwise 0 (what RFC
/// 3465 discards while cwnd < ssthresh, defect 1 of the TCP-fidelity issue).
pub fn slow_start(w: &mut Window, acked_bytes: u64, rule: SsRule) -> u64 {
    if !w.in_slow_start() {
        return acked_bytes;
    }
    let mss = w.mss as u64;
    let inc = match rule {
        SsRule::Linux => acked_bytes,
        SsRule::Abc(l) => acked_bytes.min(l as u64 * mss),
        SsRule::PerAck => mss.min(acked_bytes.div_ceil(mss) * mss),
        SsRule::Uncapped => {
            w.cwnd += acked_bytes;
            return 0;
        }
    };
    let room = w.ssthresh - w.cwnd;
    if inc < room {
        w.cwnd += inc;
        0
    } else if rule == SsRule::PerAck {
        w.cwnd += inc; // ns-3 adds the segment even past ssthresh
        acked_bytes.saturating_sub(mss)
    } else {
        w.cwnd = w.ssthresh;
        acked_bytes - room
    }
}

