//! The parking lot: routers `R1 .. R(n+1)` in a chain joined by `n` bottleneck links; a long
//! path from `S0` (at R1) to `D0` (at R(n+1)) over every hop, and for each hop i a cross path
//! from `Si` (at Ri) to `Di` (at R(i+1)) over that hop alone. The classic multi-bottleneck
//! fairness scenario (Floyd 1991, "Connections with multiple congested gateways"); RFC 7928
//! section 9 and the TCP evaluation suite (draft-irtf-iccrg-tcpeval section 5) use it.
//!
//! Links: the bottlenecks first (R1->R2, R2->R1, R2->R3, ...), then each host's access link
//! (host -> router, router -> host) in the order S0, D0, S1, D1, ...

use super::{default_queue, Builder, Topology};
use crate::aqm::QdiscConfig;
use crate::registry::{Algorithm, Info};
use crate::topo::GraphSpec;
use crate::units::{Dur, Rate};

crate::params! {
    /// Parking-lot parameters.
    pub struct ParkingLotConfig {
        /// Bottleneck links in the chain (the long path crosses all of them).
        hops: u32 = 3, Count, range(>= 1, <= 64), "RFC 7928 section 9 (three AQMs in a row); tcpeval's parking lot has 3";
        /// Rate of each bottleneck link, both directions.
        rate: Rate = Rate::from_mbps(10), Rate, range(>= Rate::from_bps(1000)), "crosslayer: 10 Mb/s bottlenecks under 100 Mb/s access links";
        /// Propagation delay of each bottleneck link.
        delay: Dur = Dur::from_ms(10), Time, range(<= crate::topo::MAX_DELAY), "crosslayer: 10 ms per hop";
        /// Egress queue of the bottleneck links, both directions.
        qdisc: QdiscConfig = default_queue(), Qdisc, range(), "Linux txqueuelen 1000 packets";
        /// Rate of every host's access link.
        access_rate: Rate = Rate::from_mbps(100), Rate, range(>= Rate::from_bps(1000)), "crosslayer: 10x the bottlenecks";
        /// Propagation delay of every host's access link.
        access_delay: Dur = Dur::from_ms(1), Time, range(<= crate::topo::MAX_DELAY), "crosslayer";
        /// Egress queue of the access links.
        access_qdisc: QdiscConfig = default_queue(), Qdisc, range(), "Linux txqueuelen 1000 packets";
    }
}

#[derive(Debug)]
pub struct ParkingLot(GraphSpec);

impl Algorithm for ParkingLot {
    type Config = ParkingLotConfig;
    type Env = ();
    const INFO: Info = Info {
        name: "parking_lot",
        aliases: &["parkinglot"],
        summary: "a chain of n bottleneck links: a long path over every hop (S0 -> D0) and a cross path per hop (Si -> Di over hop i)",
        sources: &["Floyd, Connections with multiple congested gateways, 1991", "RFC 7928 section 9", "draft-irtf-iccrg-tcpeval-01 section 5"],
    };
    fn new(cfg: &ParkingLotConfig, _: &()) -> ParkingLot {
        let mut b = Builder::default();
        let n = cfg.hops;
        let routers: Vec<String> = (1..=n + 1).map(|i| b.router(format!("R{i}"))).collect();
        for w in routers.windows(2) {
            b.link(&w[0], &w[1], cfg.rate, cfg.delay, &cfg.qdisc);
        }
        let attach = |b: &mut Builder, host: String, router: &str| {
            let h = b.host(host);
            b.link(&h, router, cfg.access_rate, cfg.access_delay, &cfg.access_qdisc);
        };
        attach(&mut b, "S0".into(), &routers[0]);
        attach(&mut b, "D0".into(), &routers[n as usize]);
        for i in 1..=n as usize {
            attach(&mut b, format!("S{i}"), &routers[i - 1]);
            attach(&mut b, format!("D{i}"), &routers[i]);
        }
        ParkingLot(b.graph)
    }
}

impl Topology for ParkingLot {
    const NAMING: &'static str = "routers R1..R(n+1); hosts S0 (at R1) and D0 (at R(n+1)) for the long path, Si (at Ri) and Di (at R(i+1)) for hop i";
    fn graph(&self) -> &GraphSpec {
        &self.0
    }
}
