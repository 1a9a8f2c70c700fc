//! Vegas's RTT sampling (Linux `tcp_vegas_pkts_acked`), shared by Vegas, Veno and YeAH.

/// No sample yet (Linux 0x7fffffff).
pub const NONE_US: u64 = 0x7fff_ffff;

/// Linux `tcp_vegas_pkts_acked`'s RTT bookkeeping, shared by Vegas, Veno and YeAH: each sample
/// is `rtt + 1 us`; `base_us` is the least of the connection, `min_us` the least since the last
/// `reset`, `cnt` the samples since then.
#[derive(Clone, Debug)]
pub struct VegasRtt {
    pub base_us: u64,
    pub min_us: u64,
    pub cnt: u32,
}

impl Default for VegasRtt {
    fn default() -> Self {
        Self::new()
    }
}

impl VegasRtt {
    pub fn new() -> VegasRtt {
        VegasRtt { base_us: NONE_US, min_us: NONE_US, cnt: 0 }
    }

    pub fn sample(&mut self, rtt: Option<crate::units::Dur>) {
        if let Some(rtt) = rtt {
            let v = rtt.ns() / 1000 + 1;
            self.base_us = self.base_us.min(v);
            self.min_us = self.min_us.min(v);
            self.cnt += 1;
        }
    }

    /// A new round: forget the round's least RTT and its count.
    pub fn reset(&mut self) {
        self.min_us = NONE_US;
        self.cnt = 0;
    }

    /// The base RTT in seconds (NaN before the first sample).
    pub fn base_s(&self) -> f64 {
        if self.base_us == NONE_US { f64::NAN } else { self.base_us as f64 * 1e-6 }
    }
}


/// ns-3's `PktsAcked` bookkeeping (3.44: `TcpVegas`, `TcpVeno`, `TcpYeah`): `TcpSocketBase`
/// hands the congestion control its smoothed RTT (`m_tcb->m_srtt`, RFC 6298's SRTT of
/// `RttMeanDeviation`) on every ACK it reports, not the ACK's own sample; the algorithms keep
/// its least over the connection (`m_baseRtt`) and since the last reset (`m_minRtt`), and count
/// the reports (`m_cntRtt`). In nanoseconds, as ns-3's `Time`, with no microsecond added.
#[derive(Clone, Debug, Default)]
pub struct SrttMinima {
    pub base: Option<crate::units::Dur>,
    pub min: Option<crate::units::Dur>,
    pub cnt: u32,
}

impl SrttMinima {
    pub fn sample(&mut self, srtt: crate::units::Dur) {
        if srtt.ns() == 0 {
            return; // ns-3: "if (rtt.IsZero()) return"
        }
        self.base = Some(self.base.map_or(srtt, |b| b.min(srtt)));
        self.min = Some(self.min.map_or(srtt, |m| m.min(srtt)));
        self.cnt += 1;
    }

    /// A new round: forget the round's least RTT and its count.
    pub fn reset(&mut self) {
        self.min = None;
        self.cnt = 0;
    }
}
