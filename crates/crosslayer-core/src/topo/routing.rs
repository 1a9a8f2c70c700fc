//! Static routes of a graph: for every node and destination host, the link to take.
//!
//! Shortest paths by hop count or by propagation delay (ties by hops), computed per destination
//! host by Dijkstra over the reversed links, never through another host (hosts are endpoints,
//! not routers). With ECMP, a node with several equal-cost next hops gets a group; a flow picks
//! one member with a hash of its seeded per-flow value and the node (each switch hashes with its
//! own salt, as real switches do, so successive stages do not choose in lock-step), so one flow
//! always takes one path and never reorders. Without ECMP the first equal-cost link (in the
//! order the links are declared) is taken. Per-destination overrides replace an entry.
//!
//! The table is one `u32` per (node, destination): a link index, `ECMP | group`, or [`NONE`].

use super::{GraphSpec, RouteMetric};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// No route (the destination is the node itself, or a router, or unreachable).
pub const NONE: u32 = u32::MAX;
/// An entry with this bit names an ECMP group.
pub const ECMP: u32 = 1 << 31;

/// The routes of a graph towards some of its hosts (those flows send to).
#[derive(Clone, Debug)]
pub struct Routes {
    n: usize,
    /// Row of each node as a destination in `table` (NONE: no routes computed towards it).
    row: Vec<u32>,
    /// `table[row(dst) * n + node]`: what `node` does with packets for `dst`.
    table: Vec<u32>,
    /// The links of each ECMP group (equal-cost next hops of one node towards one destination).
    pub groups: Vec<Vec<u32>>,
}

/// A flow's own hash value for one direction (`dir` 0: data, 1: ACKs), from the run's seed, the
/// flow and its endpoints (the 5-tuple's role: addresses, ports and protocol are all functions
/// of the flow).
pub fn flow_hash(seed: u64, flow: u32, dir: u32, src: u32, dst: u32) -> u64 {
    mix(seed ^ mix(((flow as u64) << 1 | dir as u64) ^ ((src as u64) << 40) ^ ((dst as u64) << 20)))
}

/// SplitMix64's finalizer.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The member of `group` a flow with hash `hash` takes at `node`.
#[inline]
pub fn pick(group: &[u32], hash: u64, node: u32) -> u32 {
    let h = mix(hash ^ (node as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93));
    group[(h % group.len() as u64) as usize]
}

impl Routes {
    /// The routes of `g` (its structure checked: every name known) towards the hosts `dests`
    /// (the table is nodes x destinations, so only the hosts flows send to get a row).
    pub fn compute(g: &GraphSpec, dests: impl IntoIterator<Item = u32>) -> Routes {
        let index = g.index();
        let n = g.nodes.len();
        let host: Vec<bool> = g.nodes.iter().map(|v| v.host).collect();
        let from_to: Vec<(usize, usize)> = g.links.iter().map(|l| (index[l.from.as_str()] as usize, index[l.to.as_str()] as usize)).collect();
        // incoming links of each node: (from, link); outgoing: link
        let mut incoming: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
        let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (k, &(u, v)) in from_to.iter().enumerate() {
            incoming[v].push((u, k as u32));
            outgoing[u].push(k as u32);
        }
        let cost = |k: usize| -> (u64, u64) {
            match g.routing.metric {
                RouteMetric::Hops => (1, 0),
                RouteMetric::Delay => (g.links[k].edge.delay.ns(), 1),
            }
        };
        let mut row = vec![NONE; n];
        let mut dest_list = Vec::new();
        for d in dests {
            if host[d as usize] && row[d as usize] == NONE {
                row[d as usize] = dest_list.len() as u32;
                dest_list.push(d as usize);
            }
        }
        let mut table = vec![NONE; n * dest_list.len()];
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut group_ids: HashMap<Vec<u32>, u32> = HashMap::new();
        let inf = (u64::MAX, u64::MAX);
        let mut dist = vec![inf; n];
        for (r, &dst) in dest_list.iter().enumerate() {
            dist.fill(inf);
            dist[dst] = (0, 0);
            let mut heap = BinaryHeap::new();
            heap.push(Reverse((dist[dst], dst)));
            while let Some(Reverse((d, v))) = heap.pop() {
                if d > dist[v] || (v != dst && host[v]) {
                    continue; // stale, or a host: an end, never a transit
                }
                for &(u, k) in &incoming[v] {
                    let c = cost(k as usize);
                    let nd = (d.0.saturating_add(c.0), d.1.saturating_add(c.1));
                    if nd < dist[u] {
                        dist[u] = nd;
                        heap.push(Reverse((nd, u)));
                    }
                }
            }
            let mut next = Vec::new();
            for u in 0..n {
                if u == dst || dist[u] == inf {
                    continue;
                }
                next.clear();
                next.extend(outgoing[u].iter().copied().filter(|&k| {
                    let v = from_to[k as usize].1;
                    let c = cost(k as usize);
                    (v == dst || !host[v]) && dist[v] != inf && (dist[v].0.saturating_add(c.0), dist[v].1.saturating_add(c.1)) == dist[u]
                }));
                table[r * n + u] = match next.len() {
                    0 => NONE,
                    1 => next[0],
                    _ if !g.routing.ecmp => next[0],
                    _ => {
                        let id = match group_ids.get(&next) {
                            Some(&id) => id,
                            None => {
                                groups.push(next.clone());
                                group_ids.insert(next.clone(), (groups.len() - 1) as u32);
                                (groups.len() - 1) as u32
                            }
                        };
                        ECMP | id
                    }
                };
            }
        }
        for o in &g.routing.overrides {
            let (at, via) = (index[o.at.as_str()] as usize, index[o.via.as_str()] as usize);
            let Some(&link) = outgoing[at].iter().find(|&&k| from_to[k as usize].1 == via) else { continue };
            for t in &o.to {
                if let Some(&dst) = index.get(t.as_str()) {
                    if row[dst as usize] != NONE {
                        table[row[dst as usize] as usize * n + at] = link;
                    }
                }
            }
        }
        Routes { n, row, table, groups }
    }

    /// The entry for packets at `node` bound for `dst`.
    #[inline]
    pub fn entry(&self, node: u32, dst: u32) -> u32 {
        match self.row[dst as usize] {
            NONE => NONE,
            r => self.table[r as usize * self.n + node as usize],
        }
    }

    /// The link a packet of hash `hash` at `node` bound for `dst` takes.
    #[inline]
    pub fn next(&self, node: u32, dst: u32, hash: u64) -> u32 {
        let e = self.entry(node, dst);
        if e != NONE && e & ECMP != 0 {
            pick(&self.groups[(e & !ECMP) as usize], hash, node)
        } else {
            e
        }
    }

    /// Whether some entry is an ECMP group.
    pub fn has_ecmp(&self) -> bool {
        !self.groups.is_empty()
    }

    /// The links from `src` to `dst` of a flow with hash `hash`, or why there are none (no
    /// route, or a loop, with the nodes it went through). `ends[k]` is link k's (from, to).
    pub fn path(&self, src: u32, dst: u32, hash: u64, ends: &[(u32, u32)], names: &[String]) -> Result<Vec<u32>, String> {
        let mut node = src;
        let mut out = Vec::new();
        let mut visited = vec![src];
        while node != dst {
            let l = self.next(node, dst, hash);
            if l == NONE {
                return Err(format!("no route from {} to {} (it reached {})", names[src as usize], names[dst as usize], names[node as usize]));
            }
            out.push(l);
            node = ends[l as usize].1;
            if visited.contains(&node) {
                visited.push(node);
                let shown: Vec<&str> = visited.iter().map(|&v| names[v as usize].as_str()).collect();
                return Err(format!("the route from {} to {} loops ({}): check routing.overrides", names[src as usize], names[dst as usize], shown.join(" -> ")));
            }
            visited.push(node);
        }
        Ok(out)
    }
}
