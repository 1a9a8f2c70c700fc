//! The stack's options that both the TCP sender and the congestion controls read: whose
//! defaults apply (`Profile`), the loss recovery (`Recovery`), the slow-start rule
//! (`SlowStart`, resolved per algorithm to an `SsRule`) and the ECN feedback (`EcnFeedback`,
//! which an algorithm may require). They sit below `tcp/` and `cc/`, so a
//! congestion control never imports the sender.

crate::choice! {
    /// Whose defaults the TCP options left unset take: Linux's, ns-3's (3.44) or ns-2's (2.35),
    /// so that a comparison with either differs by models, never by settings.
    pub enum Profile {
        Linux = "linux",
        Ns3 = "ns3",
        Ns2 = "ns2",
    }
}

crate::choice! {
    /// How the window evolves in fast recovery.
    pub enum Recovery {
        /// Proportional Rate Reduction (RFC 6937; Linux `tcp_cwnd_reduction`, ns-3
        /// TcpPrrRecovery): sends in proportion to what is delivered, down to ssthresh.
        Prr = "prr",
        /// RFC 6675: cwnd = ssthresh at once; SACK-based NextSeg.
        Rfc6675 = "rfc6675",
        /// RFC 6582 NewReno: cwnd inflated per duplicate ACK, deflated on partial ACKs, each of
        /// which retransmits the next hole.
        NewReno = "newreno",
        /// Reno as ns-2's TCP/Reno agent: fast recovery ends at the first new ACK, partial or
        /// not, so further losses in the window need another fast retransmit or a timeout
        /// (with ns-2's default bugFix_, one per window: a timeout). SACK blocks are ignored.
        Reno = "reno",
        /// Tahoe as ns-2's TCP agent: three duplicate ACKs -> ssthresh = half, cwnd = 1
        /// segment, go back and slow-start from the loss (no fast recovery). SACK blocks are
        /// ignored.
        Tahoe = "tahoe",
    }
}

crate::choice! {
    /// How slow start grows the window on an ACK (`[tcp] slow_start`).
    pub enum SlowStart {
        /// Linux `tcp_slow_start`: by every segment acknowledged, up to ssthresh; what is left
        /// goes to congestion avoidance.
        Linux = "linux",
        /// RFC 3465 section 2.2, L = 2: at most 2 SMSS per ACK, the rest discarded until cwnd
        /// reaches ssthresh.
        Rfc3465 = "rfc3465",
        /// ns-3 3.44: TcpNewReno grows by one segment per ACK whatever it acknowledges
        /// (`TcpNewReno::SlowStart`); TcpCubic by every segment acknowledged, past ssthresh,
        /// discarding nothing and passing nothing on (`TcpCubic::IncreaseWindow`).
        Ns3 = "ns3",
        /// ns-2.35: one segment per ACK for every algorithm (`TcpAgent::opencwnd`; the Linux
        /// 2.6 modules of `Agent/TCP/Linux` grow `snd_cwnd` by one per ACK without ABC).
        Ns2 = "ns2",
    }
}

crate::choice! {
    /// How the receiver feeds back the CE marks it receives (`[tcp] ecn_feedback`; unset: the
    /// congestion control's own, `CongestionControl::ECN_FEEDBACK`).
    pub enum EcnFeedback {
        /// RFC 3168 section 6.1.3: ECE on every ACK from a CE arrival until a segment with CWR;
        /// at most one congestion signal per round trip.
        Classic = "classic",
        /// RFC 8257 section 3.2 (DCTCP; Linux `dctcp_ece_ack_update`): ECE reflects the CE mark
        /// of the segments the ACK covers, and an ACK goes at once when the mark changes.
        Dctcp = "dctcp",
        /// RFC 9768 (AccECN): the receiver counts CE-marked packets (the 3-bit ACE field of
        /// every ACK) and the payload bytes of each codepoint (the AccECN option); the sender
        /// takes their increase, with a safety rule where the ACE field may have wrapped.
        AccEcn = "accecn",
    }
}

/// A slow-start growth rule, as an algorithm resolves [`SlowStart`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsRule {
    /// `min(cwnd + acked, ssthresh)`, the rest to congestion avoidance (Linux).
    Linux,
    /// At most L segments per ACK, the rest discarded until ssthresh is reached (RFC 3465 with
    /// L = 2; RFC 9406 HyStart++ with L = 8).
    Abc(u32),
    /// One segment per ACK; the acked segments beyond it go to congestion avoidance once cwnd
    /// reached ssthresh (ns-3 TcpNewReno).
    PerAck,
    /// `cwnd + acked`, not capped at ssthresh, nothing passed on (ns-3 TcpCubic).
    Uncapped,
}

impl SlowStart {
    /// The rule for an algorithm whose ns-3 implementation uses `ns3`.
    pub fn rule(self, ns3: SsRule) -> SsRule {
        match self {
            SlowStart::Linux => SsRule::Linux,
            SlowStart::Rfc3465 => SsRule::Abc(2),
            SlowStart::Ns3 => ns3,
            SlowStart::Ns2 => SsRule::Abc(1),
        }
    }
}
