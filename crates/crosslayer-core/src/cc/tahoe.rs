//! Tahoe as a congestion control: Reno's window rule (slow start, +1 segment per round trip,
//! ssthresh half the flight on a loss) with Tahoe's loss recovery: on three duplicate ACKs
//! ssthresh = half, cwnd = one segment, retransmit and slow-start again, no fast recovery.
//!
//! Source: Jacobson, "Congestion avoidance and control", SIGCOMM 1988 (4.3BSD-Tahoe); ns-2's
//! `Agent/TCP` (the Tahoe agent seed 002 runs next to ns-2's Reno). The recovery is the sender's
//! (`[tcp] recovery = "tahoe"`, `tcp/sender.rs`); this kind sets it unless the flow sets
//! another, so `cc = "tahoe"` is the Tahoe of the papers. ns-2 Reno is `cc = "reno"` with
//! `[tcp] recovery = "reno"`.

use super::law::aimd::Aimd;
use super::{AckEvent, CcEnv, CongestionControl, CongestionEvent, Window};
use crate::registry::{Algorithm, Info};
use crate::stack::Recovery;

crate::params! {
    /// Tahoe has Reno's window rule and no parameter of its own (how congestion avoidance
    /// counts follows the TCP profile, as for reno).
    pub struct TahoeConfig {
    }
}

#[derive(Clone, Debug)]
pub struct Tahoe {
    reno: Aimd,
}

impl Algorithm for Tahoe {
    type Config = TahoeConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "tahoe",
        aliases: &[],
        summary: "Tahoe: Reno's window rule with Tahoe's recovery (cwnd to one segment and slow start after a fast retransmit)",
        sources: &["Jacobson, ACM SIGCOMM 1988", "ns-2 Agent/TCP (Tahoe)"],
    };
    fn new(_cfg: &TahoeConfig, env: &CcEnv) -> Tahoe {
        Tahoe { reno: Aimd::for_profile(None, None, env) }
    }
}

impl CongestionControl for Tahoe {
    const RECOVERY: Option<Recovery> = Some(Recovery::Tahoe);

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        self.reno.on_ack(w, a);
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        self.reno.on_congestion(w, e)
    }
}
