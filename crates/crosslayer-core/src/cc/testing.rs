//! Test support for the congestion controls: a scripted ACK.

use crate::cc::{AckEvent, CaState, RateSample};
use crate::units::{Dur, Time};

/// An ACK of `bytes` new bytes in the Open state, cwnd-limited, with a 10 ms SRTT.
pub fn ack(bytes: u64) -> AckEvent {
    AckEvent {
        now: Time::ZERO,
        ca_state: CaState::Open,
        disorder: false,
        acked_bytes: bytes,
        sacked_bytes: 0,
        growth_bytes: bytes,
        lost_bytes: 0,
        prior_in_flight: 0,
        cwnd_limited: true,
        ece: false,
        ce_bytes: None,
        rtt: None,
        owd: None,
        srtt: Dur::from_ms(10),
        min_rtt: Dur::from_ms(10),
        delivered_total: 0,
        snd_una: 0,
        snd_nxt: 0,
        rate: RateSample::default(),
    }
}
