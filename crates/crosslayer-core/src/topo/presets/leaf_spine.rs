//! A leaf-spine (two-tier folded Clos) fabric: `leaves` leaf switches `LF1..`, `spines` spine
//! switches `SP1..`, every leaf linked to every spine, `hosts_per_leaf` hosts `H<leaf>_<i>` on
//! each leaf. The uplinks' rate is set by the oversubscription (the hosts' capacity of a leaf over
//! its uplinks' capacity) unless given. Routing: shortest paths with ECMP over the spines.
//! Alizadeh et al. (DCTCP, SIGCOMM 2010) and the L4S and DC-AQM studies use this shape.
//!
//! Links: every leaf-spine pair (LF1-SP1, LF1-SP2, ..., each both ways), then every host's link
//! to its leaf.

use super::{default_queue, Builder, Topology};
use crate::aqm::QdiscConfig;
use crate::params::Problem;
use crate::registry::{Algorithm, Info};
use crate::topo::GraphSpec;
use crate::units::{Dur, Rate};

crate::params! {
    /// Leaf-spine parameters.
    pub struct LeafSpineConfig {
        /// Leaf (top-of-rack) switches.
        leaves: u32 = 4, Count, range(>= 1, <= 256), "crosslayer: a small fabric";
        /// Spine switches; every leaf links to each.
        spines: u32 = 2, Count, range(>= 1, <= 64), "crosslayer: a small fabric";
        /// Hosts on each leaf.
        hosts_per_leaf: u32 = 4, Count, range(>= 1, <= 256), "crosslayer: a small fabric";
        /// Rate of a host's link to its leaf.
        host_rate: Rate = Rate::from_gbps(10), Rate, range(>= Rate::from_bps(1000)), "10 Gb/s host links (Alizadeh et al. 2010 used 1 and 10 Gb/s)";
        /// A leaf's host capacity over its uplink capacity (1: non-blocking); sets the uplink rate unless uplink_rate is given.
        oversubscription: f64 = 1.0, Ratio, range(>= 0.01, <= 100.0), "crosslayer: non-blocking";
        /// Rate of each leaf-spine link; unset: hosts_per_leaf x host_rate / (spines x oversubscription).
        uplink_rate: Option<Rate> = None, Rate, range(>= Rate::from_bps(1000)), "derived from the oversubscription";
        /// Propagation delay of every link.
        delay: Dur = Dur::from_us(1), Time, range(<= crate::topo::MAX_DELAY), "a few hundred metres of fibre";
        /// Egress queue of the switches' ports.
        qdisc: QdiscConfig = default_queue(), Qdisc, range(), "Linux txqueuelen 1000 packets";
        /// Egress queue of the hosts' links.
        host_qdisc: QdiscConfig = default_queue(), Qdisc, range(), "Linux txqueuelen 1000 packets";
    }
    check = LeafSpineConfig::check;
}

impl LeafSpineConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.leaves * (self.spines + self.hosts_per_leaf) + self.spines > crate::topo::MAX_NODES as u32 {
            out.push(Problem::new("leaves", format!("the fabric would have more than {} nodes", crate::topo::MAX_NODES)));
        }
    }

    /// The rate of each leaf-spine link.
    pub fn uplink(&self) -> Rate {
        self.uplink_rate.unwrap_or_else(|| {
            let bps = self.host_rate.bps() as f64 * self.hosts_per_leaf as f64 / (self.spines as f64 * self.oversubscription);
            Rate::from_bps((bps.round() as u64).max(1))
        })
    }
}

#[derive(Debug)]
pub struct LeafSpine(GraphSpec);

impl Algorithm for LeafSpine {
    type Config = LeafSpineConfig;
    type Env = ();
    const INFO: Info = Info {
        name: "leaf_spine",
        aliases: &["leafspine"],
        summary: "a two-tier Clos fabric: hosts on leaves, every leaf linked to every spine, ECMP over the spines",
        sources: &["Alizadeh et al., Data Center TCP (DCTCP), SIGCOMM 2010", "Alizadeh et al., CONGA, SIGCOMM 2014 (leaf-spine with ECMP)"],
    };
    fn new(cfg: &LeafSpineConfig, _: &()) -> LeafSpine {
        let mut b = Builder::default();
        let spines: Vec<String> = (1..=cfg.spines).map(|i| b.router(format!("SP{i}"))).collect();
        let leaves: Vec<String> = (1..=cfg.leaves).map(|i| b.router(format!("LF{i}"))).collect();
        let up = cfg.uplink();
        for l in &leaves {
            for s in &spines {
                b.link(l, s, up, cfg.delay, &cfg.qdisc);
            }
        }
        for (i, l) in leaves.iter().enumerate() {
            for h in 1..=cfg.hosts_per_leaf {
                let name = b.host(format!("H{}_{h}", i + 1));
                b.graph.links.push(crate::topo::GraphLinkSpec { from: name.clone(), to: l.clone(), edge: edge(cfg.host_rate, cfg.delay, &cfg.host_qdisc), role: None });
                b.graph.links.push(crate::topo::GraphLinkSpec { from: l.clone(), to: name, edge: edge(cfg.host_rate, cfg.delay, &cfg.qdisc), role: None });
            }
        }
        b.graph.routing.ecmp = true;
        LeafSpine(b.graph)
    }
}

fn edge(rate: Rate, delay: Dur, qdisc: &QdiscConfig) -> crate::topo::EdgeSpec {
    crate::topo::EdgeSpec { rate, delay, loss: 0.0, jitter: Dur::ZERO, qdisc: qdisc.clone(), impair: Default::default() }
}

impl Topology for LeafSpine {
    const NAMING: &'static str = "spines SP1..; leaves LF1..; hosts H<leaf>_<i> (H1_1 is the first host of LF1)";
    fn graph(&self) -> &GraphSpec {
        &self.0
    }
}
