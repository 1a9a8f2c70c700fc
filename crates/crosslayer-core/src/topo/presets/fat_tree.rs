//! The fat-tree of Al-Fares, Loukissas and Vahdat (SIGCOMM 2008) built of k-port switches: k
//! pods of k/2 edge switches `E<pod>_<i>` and k/2 aggregation switches `A<pod>_<i>` (every edge
//! linked to every aggregation switch of its pod), (k/2)^2 core switches `C<j>` (aggregation
//! switch i of each pod linked to cores (i-1)k/2+1 .. ik/2), k/2 hosts `H<pod>_<edge>_<i>` on each
//! edge switch: k^3/4 hosts in all, every link at one rate (full bisection bandwidth). Routing:
//! shortest paths with ECMP (the paper's two-level tables spread flows as ECMP does; this is
//! ECMP).
//!
//! Links: edge-aggregation pairs pod by pod, then aggregation-core pairs, then hosts.

use super::{default_queue, Builder, Topology};
use crate::aqm::QdiscConfig;
use crate::params::Problem;
use crate::registry::{Algorithm, Info};
use crate::topo::GraphSpec;
use crate::units::{Dur, Rate};

crate::params! {
    /// Fat-tree parameters.
    pub struct FatTreeConfig {
        /// Ports per switch (even): k pods, k^3/4 hosts, 5k^2/4 switches.
        k: u32 = 4, Count, range(>= 2, <= 64), "Al-Fares et al. 2008 (k = 4 in their figure; 48 in their sizing)";
        /// Rate of every link.
        rate: Rate = Rate::from_gbps(10), Rate, range(>= Rate::from_bps(1000)), "crosslayer: 10 Gb/s everywhere";
        /// Propagation delay of every link.
        delay: Dur = Dur::from_us(1), Time, range(<= crate::topo::MAX_DELAY), "a few hundred metres of fibre";
        /// Egress queue of the switches' ports.
        qdisc: QdiscConfig = default_queue(), Qdisc, range(), "Linux txqueuelen 1000 packets";
        /// Egress queue of the hosts' links.
        host_qdisc: QdiscConfig = default_queue(), Qdisc, range(), "Linux txqueuelen 1000 packets";
    }
    check = FatTreeConfig::check;
}

impl FatTreeConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if !self.k.is_multiple_of(2) {
            out.push(Problem::new("k", format!("must be even (k/2 edge and k/2 aggregation switches per pod) (got {})", self.k)));
        }
    }
}

#[derive(Debug)]
pub struct FatTree(GraphSpec);

impl Algorithm for FatTree {
    type Config = FatTreeConfig;
    type Env = ();
    const INFO: Info = Info {
        name: "fat_tree",
        aliases: &["fattree"],
        summary: "Al-Fares et al.'s fat-tree of k-port switches: k pods, (k/2)^2 cores, k^3/4 hosts, ECMP",
        sources: &["Al-Fares, Loukissas, Vahdat, A Scalable, Commodity Data Center Network Architecture, SIGCOMM 2008"],
    };
    fn new(cfg: &FatTreeConfig, _: &()) -> FatTree {
        let half = (cfg.k / 2).max(1);
        let mut b = Builder::default();
        let cores: Vec<String> = (1..=half * half).map(|j| b.router(format!("C{j}"))).collect();
        let mut aggs = Vec::new();
        let mut edges = Vec::new();
        for p in 1..=cfg.k {
            aggs.push((1..=half).map(|i| b.router(format!("A{p}_{i}"))).collect::<Vec<_>>());
            edges.push((1..=half).map(|i| b.router(format!("E{p}_{i}"))).collect::<Vec<_>>());
        }
        for p in 0..cfg.k as usize {
            for e in &edges[p] {
                for a in &aggs[p] {
                    b.link(e, a, cfg.rate, cfg.delay, &cfg.qdisc);
                }
            }
        }
        for pod in &aggs {
            for (i, a) in pod.iter().enumerate() {
                for c in &cores[i * half as usize..(i + 1) * half as usize] {
                    b.link(a, c, cfg.rate, cfg.delay, &cfg.qdisc);
                }
            }
        }
        for (p, pod) in edges.iter().enumerate() {
            for (i, e) in pod.iter().enumerate() {
                for h in 1..=half {
                    let name = b.host(format!("H{}_{}_{h}", p + 1, i + 1));
                    let up = crate::topo::EdgeSpec { rate: cfg.rate, delay: cfg.delay, loss: 0.0, jitter: Dur::ZERO, qdisc: cfg.host_qdisc.clone(), impair: Default::default() };
                    let down = crate::topo::EdgeSpec { qdisc: cfg.qdisc.clone(), ..up.clone() };
                    b.graph.links.push(crate::topo::GraphLinkSpec { from: name.clone(), to: e.clone(), edge: up, role: None });
                    b.graph.links.push(crate::topo::GraphLinkSpec { from: e.clone(), to: name, edge: down, role: None });
                }
            }
        }
        b.graph.routing.ecmp = true;
        FatTree(b.graph)
    }
}

impl Topology for FatTree {
    const NAMING: &'static str = "cores C1..; pods 1..k with aggregation switches A<pod>_<i> and edge switches E<pod>_<i>; hosts H<pod>_<edge>_<i>";
    fn graph(&self) -> &GraphSpec {
        &self.0
    }
}
