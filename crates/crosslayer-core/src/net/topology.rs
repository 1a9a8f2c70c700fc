//! Topology builder: nodes, simplex links and static routes.
//!
//! Dumbbell layout (node ids): senders `0..S`, router A = `S`, router B = `S + 1`, receivers
//! `S + 2 ..`. Each host edge is two simplex links with their own rate, delay, queue and loss; the
//! A-B bottleneck likewise (`forward` A -> B carries the data of forward flows, `reverse` B -> A
//! their ACKs; a reverse flow, from a receiver host to a sender host, uses them the other way).

use super::link::{Link, LinkRole};
use crate::aqm::{QdiscEnv, Queue};
use crate::rng::{Rng, StreamKind};
use crate::spec::{EdgeSpec, HostSpec, TopologySpec};

pub struct Topology {
    pub links: Vec<Link>,
    /// `routes[node][dst]` = outgoing link towards `dst` (`u32::MAX` = local / unreachable).
    pub routes: Vec<Vec<u32>>,
    pub node_names: Vec<String>,
    pub senders: Vec<u32>,
    pub receivers: Vec<u32>,
    /// Index of the A -> B link.
    pub forward: usize,
    /// Index of the B -> A link.
    pub reverse: usize,
}

/// The links between the routers are the first two `Topology::build` creates: A -> B
/// (`forward`, index 0) and B -> A (`reverse`, index 1), so "is `l` one of them" is `l < CORE_LINKS`.
pub const CORE_LINKS: usize = 2;

impl Topology {
    /// The (source, sink) nodes of a flow whose spec gives `src` and `dst` as host indices: a
    /// sender and a receiver, or a receiver and a sender when `reverse`.
    pub fn endpoints(&self, src: u32, dst: u32, reverse: bool) -> (u32, u32) {
        match reverse {
            false => (self.senders[src as usize], self.receivers[dst as usize]),
            true => (self.receivers[src as usize], self.senders[dst as usize]),
        }
    }

    /// Index of the link a `series_queue` names (`forward`, `reverse` or a link name).
    pub fn link_index(&self, name: &str) -> Option<usize> {
        match name {
            "forward" => Some(self.forward),
            "reverse" => Some(self.reverse),
            _ => self.links.iter().position(|l| l.name == name),
        }
    }

    pub fn build(spec: &TopologySpec, seed: u64) -> Topology {
        let TopologySpec::Dumbbell { forward, reverse, senders, receivers } = spec;
        let s = senders.len() as u32;
        let r = receivers.len() as u32;
        let a = s;
        let b = s + 1;
        let n_nodes = (s + 2 + r) as usize;
        let mut node_names: Vec<String> = senders.iter().map(|h| h.name.clone()).collect();
        node_names.push("A".into());
        node_names.push("B".into());
        node_names.extend(receivers.iter().map(|h| h.name.clone()));

        let mut links = Vec::new();
        let mut add = |from: u32, to: u32, role: LinkRole, e: &EdgeSpec| -> u32 {
            let idx = links.len() as u64;
            let name = format!("{}->{}", node_names[from as usize], node_names[to as usize]);
            let queue = Queue::new(&e.qdisc, &QdiscEnv { link_rate: e.rate }, Rng::stream(seed, StreamKind::Qdisc, idx));
            links.push(Link::new(
                name,
                role,
                (from, to),
                e,
                queue,
                Rng::stream(seed, StreamKind::LinkLoss, idx),
                Rng::stream(seed, StreamKind::LinkJitter, idx),
            ));
            idx as u32
        };
        let fwd = add(a, b, LinkRole::Forward, forward);
        let rev = add(b, a, LinkRole::Reverse, reverse);
        debug_assert!((fwd as usize, rev as usize) == (0, 1) && CORE_LINKS == 2);
        let mut host_links = |hosts: &[HostSpec], first: u32, router: u32, up: LinkRole, down: LinkRole| {
            hosts
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    let n = first + i as u32;
                    (add(n, router, up, &h.up), add(router, n, down, &h.down))
                })
                .collect::<Vec<_>>()
        };
        let s_links = host_links(senders, 0, a, LinkRole::SenderUp, LinkRole::SenderDown);
        let r_links = host_links(receivers, s + 2, b, LinkRole::ReceiverUp, LinkRole::ReceiverDown);

        let mut routes = vec![vec![u32::MAX; n_nodes]; n_nodes];
        for dst in 0..n_nodes as u32 {
            let dst_is_sender = dst < s;
            let dst_is_receiver = dst >= s + 2;
            // hosts: everything goes up to their router
            for (i, &(up, _)) in s_links.iter().enumerate() {
                if dst != i as u32 {
                    routes[i][dst as usize] = up;
                }
            }
            for (i, &(up, _)) in r_links.iter().enumerate() {
                let n = s + 2 + i as u32;
                if dst != n {
                    routes[n as usize][dst as usize] = up;
                }
            }
            // routers
            if dst_is_sender {
                routes[a as usize][dst as usize] = s_links[dst as usize].1;
                routes[b as usize][dst as usize] = rev;
            } else if dst_is_receiver {
                routes[b as usize][dst as usize] = r_links[(dst - s - 2) as usize].1;
                routes[a as usize][dst as usize] = fwd;
            } else if dst == b {
                routes[a as usize][dst as usize] = fwd;
            } else if dst == a {
                routes[b as usize][dst as usize] = rev;
            }
        }
        Topology {
            links,
            routes,
            node_names,
            senders: (0..s).collect(),
            receivers: (s + 2..s + 2 + r).collect(),
            forward: fwd as usize,
            reverse: rev as usize,
        }
    }

    /// Propagation delay along the route from `src` to `dst` (sum of link delays).
    pub fn path_delay(&self, src: u32, dst: u32) -> crate::units::Dur {
        let mut n = src;
        let mut d = crate::units::Dur::ZERO;
        let mut hops = 0;
        while n != dst && hops < 64 {
            let l = self.routes[n as usize][dst as usize];
            if l == u32::MAX {
                break;
            }
            let link = &self.links[l as usize];
            d = d + link.delay;
            n = link.to;
            hops += 1;
        }
        d
    }
}
