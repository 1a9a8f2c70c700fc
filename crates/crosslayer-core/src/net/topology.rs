//! The network a run simulates, built from its plan (`spec::Plan`: the topology's graph and
//! every flow's paths): nodes, and simplex links with their queues.
//!
//! Links keep the graph's order, so each link's random streams (queue, loss, jitter) are
//! numbered by its position. A dumbbell expands to the graph whose nodes are its senders, A, B
//! and its receivers and whose links are A->B, B->A, then each sender's up and down links, then
//! each receiver's: the same numbering the engine always used, so a dumbbell runs exactly as it
//! did before graphs existed.
//!
//! Packets follow their flow's path (computed once from the routes, `topo::routing`), so the
//! loop never looks a route up.

use super::link::{Link, LinkRole};
use crate::aqm::{QdiscEnv, Queue};
use crate::rng::{Rng, StreamKind};
use crate::topo::GraphSpec;
use crate::units::Dur;

pub struct Topology {
    pub links: Vec<Link>,
    /// Wireless LANs: shared media whose members send on some of `links` (`net::wlan`).
    pub wlans: Vec<super::wlan::Wlan>,
    pub node_names: Vec<String>,
    /// Whether each node is a host (an end of flows) or a router.
    pub is_host: Vec<bool>,
    /// A dumbbell's sender and receiver nodes.
    pub dumbbell: Option<(Vec<u32>, Vec<u32>)>,
}

impl Topology {
    /// Index of the link a `series_queue` names: a link name (`A->B`), or in a dumbbell
    /// `forward` (A->B) or `reverse` (B->A).
    pub fn link_index(&self, name: &str) -> Option<usize> {
        match name {
            "forward" => self.links.iter().position(|l| l.role == LinkRole::Forward),
            "reverse" => self.links.iter().position(|l| l.role == LinkRole::Reverse),
            _ => self.links.iter().position(|l| l.name == name),
        }
    }

    /// The links of a checked graph; `dumbbell` its sender and receiver nodes if it is one.
    pub fn build(g: &GraphSpec, dumbbell: Option<(Vec<u32>, Vec<u32>)>, seed: u64) -> Topology {
        let index = g.index();
        let is_host: Vec<bool> = g.nodes.iter().map(|n| n.host).collect();
        let mut links = Vec::with_capacity(g.links.len());
        for (k, l) in g.links.iter().enumerate() {
            let (from, to) = (index[l.from.as_str()], index[l.to.as_str()]);
            let role = match l.role.as_deref() {
                Some(r) => LinkRole::from_name(r).expect("a known role"),
                None if is_host[from as usize] => LinkRole::HostUp,
                None if is_host[to as usize] => LinkRole::HostDown,
                None => LinkRole::Router,
            };
            let idx = k as u64;
            let queue = Queue::new(&l.edge.qdisc, &QdiscEnv { link_rate: l.edge.rate }, Rng::stream(seed, StreamKind::Qdisc, idx));
            links.push(Link::new(
                format!("{}->{}", l.from, l.to),
                role,
                (from, to),
                &l.edge,
                queue,
                Rng::stream(seed, StreamKind::LinkLoss, idx),
                Rng::stream(seed, StreamKind::LinkJitter, idx),
                Rng::stream(seed, StreamKind::LinkLoss, idx | 1 << 40),
            ));
        }
        let wlans = Self::wlans(g, &index, &mut links, seed);
        Topology { links, wlans, node_names: g.nodes.iter().map(|n| n.name.clone()).collect(), is_host, dumbbell }
    }

    /// The media of a checked graph's wireless LANs: the access point's member sends on its
    /// links to the stations, each station's on its link to the access point. Their links never
    /// start a transmission of their own (`tx_done_pending` stays set).
    fn wlans(g: &GraphSpec, index: &std::collections::HashMap<&str, u32>, links: &mut [Link], seed: u64) -> Vec<super::wlan::Wlan> {
        let by_ends: std::collections::HashMap<(u32, u32), u32> = links.iter().enumerate().map(|(k, l)| ((l.from, l.to), k as u32)).collect();
        let mut out = Vec::with_capacity(g.wlans.len());
        for (w, spec) in g.wlans.iter().enumerate() {
            let ap = index[spec.ap.as_str()];
            let stations: Vec<u32> = spec.stations.iter().map(|s| index[s.as_str()]).collect();
            let mut members = vec![(ap, stations.iter().map(|&s| by_ends[&(ap, s)]).collect::<Vec<_>>())];
            members.extend(stations.iter().map(|&s| (s, vec![by_ends[&(s, ap)]])));
            for (m, (_, ls)) in members.iter().enumerate() {
                for &l in ls {
                    links[l as usize].role = if m == 0 { super::link::LinkRole::WlanDown } else { super::link::LinkRole::WlanUp };
                    links[l as usize].wlan = Some((w as u32, m as u32));
                    links[l as usize].tx_done_pending = true;
                }
            }
            out.push(super::wlan::Wlan::new(spec.ap.clone(), &spec.dcf, members, Rng::stream(seed, StreamKind::Medium, w as u64)));
        }
        out
    }

    /// Propagation delay along `path` (sum of the link delays).
    pub fn path_delay(&self, path: &[u32]) -> Dur {
        path.iter().fold(Dur::ZERO, |d, &l| d + self.links[l as usize].delay)
    }

    /// The position in `path` of the link a flow's packets are counted at as its bottleneck
    /// ([`crate::topo::bottleneck_of`]). (Every link of the path counts the flow's packets;
    /// this one names its bottleneck.)
    pub fn bottleneck(&self, path: &[u32]) -> usize {
        crate::topo::bottleneck_of(
            path,
            |l| {
                let link = &self.links[l as usize];
                link.wlan.is_some() || (!self.is_host[link.from as usize] && !self.is_host[link.to as usize])
            },
            |l| self.links[l as usize].rate.bps(),
        )
    }

    /// `path` as link names joined by commas.
    pub fn path_names(&self, path: &[u32]) -> String {
        path.iter().map(|&l| self.links[l as usize].name.as_str()).collect::<Vec<_>>().join(",")
    }
}
