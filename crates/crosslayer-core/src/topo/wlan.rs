//! A wireless LAN as data: an access point and its stations sharing one IEEE 802.11 medium
//! (`net::wlan` runs it), and the DCF and PHY parameters of that medium, declared once.
//!
//! The LAN's links are the graph's own (each station's uplink `station -> ap` and downlink
//! `ap -> station`, with their queues and delays): routing sees ordinary links, and the
//! medium decides when their frames go.

use crate::params::Problem;
use crate::units::{Dur, Rate};
use serde::{Deserialize, Serialize};

crate::params! {
    /// The 802.11 DCF and PHY of a wireless LAN; defaults: 802.11g ERP-OFDM in an ERP-only BSS
    /// (short slots), ACKs at 6 Mb/s as the tcpeval suite's ns-2 code sends them.
    pub struct DcfConfig {
        /// PHY rate of data frames: a multiple of 250 kb/s (N_DBPS = rate x 4 us bits per OFDM symbol); 802.11g's are 6, 9, 12, 18, 24, 36, 48 and 54 Mb/s.
        rate: Rate = Rate::from_mbps(54), Rate, range(>= Rate::from_bps(250_000), <= Rate::from_mbps(1_000)), "IEEE 802.11-2012 19.1.1 (ERP-OFDM 54 Mb/s); tcpeval's ns-2 code: w_datarate 54";
        /// PHY rate of ACK frames (a basic rate), a multiple of 250 kb/s.
        basic_rate: Rate = Rate::from_mbps(6), Rate, range(>= Rate::from_bps(250_000), <= Rate::from_mbps(1_000)), "tcpeval's ns-2 code: Mac/802_11Ext BasicModulationScheme_ 0 (BPSK 1/2, 6 Mb/s)";
        /// Slot time: backoff counters count idle slots of this length.
        slot: Dur = Dur::from_us(9), Time, range(>= Dur::from_us(1), <= Dur::from_ms(1)), "IEEE 802.11-2012 Table 19-5 (aSlotTime, short slot, ERP-only BSS)";
        /// Short interframe space, between a data frame and its ACK; DIFS = SIFS + 2 slots.
        sifs: Dur = Dur::from_us(10), Time, range(>= Dur::from_us(1), <= Dur::from_ms(1)), "IEEE 802.11-2012 Table 19-5 (aSIFSTime)";
        /// Signal extension: idle time counted in every ERP-OFDM frame's duration.
        signal_extension: Dur = Dur::from_us(6), Time, range(<= Dur::from_ms(1)), "IEEE 802.11-2012 19.3.2.3 (aSignalExtension)";
        /// PLCP preamble and SIGNAL field of every frame.
        preamble: Dur = Dur::from_us(20), Time, range(<= Dur::from_ms(1)), "IEEE 802.11-2012 18.4.3 (16 us preamble, 4 us SIGNAL)";
        /// Smallest contention window (CWmin); CW + 1 is a power of two.
        cw_min: u32 = 15, Count, range(<= 32767), "IEEE 802.11-2012 Table 19-5 (aCWmin 15 in an ERP-only BSS)";
        /// Largest contention window (CWmax); CW + 1 is a power of two.
        cw_max: u32 = 1023, Count, range(<= 32767), "IEEE 802.11-2012 Table 19-5 (aCWmax)";
        /// Attempts of a frame before it is dropped (dot11ShortRetryLimit: frames below the RTS threshold).
        retry_limit: u32 = 7, Count, range(>= 1, <= 255), "IEEE 802.11-2012 Annex C (dot11ShortRetryLimit 7); ns-2 Mac/802_11Ext ShortRetryLimit_ 7";
        /// Bytes a data frame adds to the packet: MAC header (24), FCS (4), LLC/SNAP (8).
        mac_overhead: u32 = 36, Size, range(<= 4096), "IEEE 802.11-2012 8.2.3 (data frame header 24, FCS 4); RFC 1042 LLC/SNAP 8";
        /// Bytes of an ACK frame.
        ack_bytes: u32 = 14, Size, range(>= 1, <= 4096), "IEEE 802.11-2012 8.3.1.4";
    }
    check = DcfConfig::check;
}

impl DcfConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        for (field, rate) in [("rate", self.rate), ("basic_rate", self.basic_rate)] {
            if rate.bps() % 250_000 != 0 {
                out.push(Problem::new(field, format!("must be a multiple of 250 kb/s (whole data bits per 4-us OFDM symbol), e.g. 6, 24 or 54 Mb/s (got {rate})")));
            }
        }
        for (field, cw) in [("cw_min", self.cw_min), ("cw_max", self.cw_max)] {
            if !(cw + 1).is_power_of_two() {
                out.push(Problem::new(field, format!("CW + 1 must be a power of two, e.g. 15 or 1023 (got {cw})")));
            }
        }
        if self.cw_min > self.cw_max {
            out.push(Problem::new("cw_max", format!("must be >= cw_min ({} > {})", self.cw_min, self.cw_max)));
        }
    }
}


/// A wireless LAN of a graph: the access point `ap` and its `stations` share one medium. The
/// links `station -> ap` and `ap -> station` must be among the graph's links.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WlanSpec {
    pub ap: String,
    pub stations: Vec<String>,
    #[serde(default)]
    pub dcf: DcfConfig,
}

impl WlanSpec {
    /// Its problems, against the graph's nodes and links (`has_link(from, to)` gives the edge
    /// of a link if there is one); `seen` holds the nodes of the LANs checked before.
    pub fn problems(&self, path: &str, node_known: &dyn Fn(&str) -> bool, edge: &dyn Fn(&str, &str) -> Option<crate::topo::EdgeSpec>, seen: &mut std::collections::HashSet<String>, out: &mut Vec<Problem>) {
        use crate::params::Params as _;
        if !node_known(&self.ap) {
            out.push(Problem::new(format!("{path}.ap"), format!("unknown node {:?}", self.ap)));
        } else if !seen.insert(self.ap.clone()) {
            out.push(Problem::new(format!("{path}.ap"), format!("{:?} is already in another wireless LAN (a node joins one medium)", self.ap)));
        }
        if self.stations.is_empty() {
            out.push(Problem::new(format!("{path}.stations"), "needs at least one station, e.g. [\"N1\"]"));
        }
        for (i, st) in self.stations.iter().enumerate() {
            let p = format!("{path}.stations[{i}]");
            if !node_known(st) {
                out.push(Problem::new(p, format!("unknown node {st:?}")));
                continue;
            }
            if st == &self.ap {
                out.push(Problem::new(p, format!("{st:?} is the access point: a station is another node")));
                continue;
            }
            if !seen.insert(st.clone()) {
                out.push(Problem::new(p, format!("{st:?} is already in a wireless LAN (a node joins one medium, once)")));
                continue;
            }
            for (from, to) in [(st.as_str(), self.ap.as_str()), (self.ap.as_str(), st.as_str())] {
                match edge(from, to) {
                    None => out.push(Problem::new(p.clone(), format!("no link {from}->{to}: a station needs its uplink and downlink in the graph's links"))),
                    Some(e) if e.loss != 0.0 || e.jitter != Dur::ZERO || !e.impair.is_none() => out.push(Problem::new(
                        p.clone(),
                        format!("the link {from}->{to} of a wireless LAN takes no loss, jitter or impairments (the medium decides when its frames go); remove them"),
                    )),
                    Some(_) => {}
                }
            }
        }
        out.extend(crate::topo::under(&format!("{path}.dcf"), self.dcf.validate()));
    }
}
