//! Static routes of a graph: for every node and destination host, the link to take.
//!
//! Shortest paths by hop count (breadth-first) or by propagation delay (Dijkstra; ties by hops),
//! computed towards each destination over the reversed links, never through another host
//! (hosts are endpoints, not routers). With ECMP, a node with several equal-cost next hops gets a
//! group; a flow picks one member with a hash of its seeded per-flow value and the node (each
//! switch hashes with its own salt, as real switches do, so successive stages do not choose in
//! lock-step), so one flow always takes one path and never reorders. Without ECMP the first
//! equal-cost link (in the order the links are declared) is taken. Per-destination overrides
//! replace an entry.
//!
//! A host with a single incoming link, from a router, is reached through that router whatever
//! the path before it: its routes are the router's, plus the last hop. So routes are computed,
//! and stored, once per such router (a fat-tree's edge switch serves k/2 hosts), and per
//! destination only for hosts reached otherwise; a table row is one `u32` per node: a link
//! index, `ECMP | group`, or [`NONE`].

use super::{GraphSpec, RouteMetric};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

/// No route (the destination is the node itself, or a router, or unreachable).
pub const NONE: u32 = u32::MAX;
/// An entry with this bit names an ECMP group.
pub const ECMP: u32 = 1 << 31;

/// The routes of a graph towards some of its hosts (those flows send to).
#[derive(Clone, Debug)]
pub struct Routes {
    n: usize,
    /// Row of each destination host in `table` (NONE: no routes computed towards it).
    row: Vec<u32>,
    /// A single-homed destination's router and the link from it (routes lead to the router).
    last_hop: Vec<Option<(u32, u32)>>,
    /// `table[row * n + node]`: what `node` does with packets for the row's destination.
    table: Vec<u32>,
    /// Per-destination overrides: (node, destination host) -> link.
    overrides: HashMap<(u32, u32), u32>,
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
    /// The routes of `g` (its structure checked: every name known) towards the hosts `dests`.
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
        // Each destination's row: its router's when it is single-homed behind one.
        let mut row = vec![NONE; n];
        let mut last_hop = vec![None; n];
        let mut targets: Vec<usize> = Vec::new(); // the node each row's routes lead to
        let mut row_of_target: HashMap<usize, u32> = HashMap::new();
        for d in dests {
            let d = d as usize;
            if !host[d] || row[d] != NONE {
                continue;
            }
            let target = match incoming[d].as_slice() {
                &[(r, link)] if !host[r] => {
                    last_hop[d] = Some((r as u32, link));
                    r
                }
                _ => d,
            };
            row[d] = *row_of_target.entry(target).or_insert_with(|| {
                targets.push(target);
                (targets.len() - 1) as u32
            });
        }
        let mut table = vec![NONE; n * targets.len()];
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut group_ids: HashMap<Vec<u32>, u32> = HashMap::new();
        let inf = (u64::MAX, u64::MAX);
        let mut dist = vec![inf; n];
        let mut next = Vec::new();
        for (r, &dst) in targets.iter().enumerate() {
            dist.fill(inf);
            dist[dst] = (0, 0);
            // a host is an end, never a transit: only the target itself and routers relax
            if g.routing.metric == RouteMetric::Hops {
                let mut queue = VecDeque::from([dst]);
                while let Some(v) = queue.pop_front() {
                    if v != dst && host[v] {
                        continue;
                    }
                    let d = dist[v].0 + 1;
                    for &(u, _) in &incoming[v] {
                        if dist[u] == inf {
                            dist[u] = (d, 0);
                            queue.push_back(u);
                        }
                    }
                }
            } else {
                let mut heap = BinaryHeap::new();
                heap.push(Reverse((dist[dst], dst)));
                while let Some(Reverse((d, v))) = heap.pop() {
                    if d > dist[v] || (v != dst && host[v]) {
                        continue;
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
            }
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
        let mut overrides = HashMap::new();
        for o in &g.routing.overrides {
            let (at, via) = (index[o.at.as_str()] as usize, index[o.via.as_str()] as usize);
            let Some(&link) = outgoing[at].iter().find(|&&k| from_to[k as usize].1 == via) else { continue };
            for t in &o.to {
                if let Some(&dst) = index.get(t.as_str()) {
                    overrides.insert((at as u32, dst), link);
                }
            }
        }
        Routes { n, row, last_hop, table, overrides, groups }
    }

    /// The entry for packets at `node` bound for `dst`.
    #[inline]
    pub fn entry(&self, node: u32, dst: u32) -> u32 {
        if node == dst {
            return NONE;
        }
        if let Some(&link) = self.overrides.get(&(node, dst)) {
            return link;
        }
        match (self.row[dst as usize], self.last_hop[dst as usize]) {
            (NONE, _) => NONE,
            (_, Some((router, link))) if router == node => link,
            (r, _) => self.table[r as usize * self.n + node as usize],
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
