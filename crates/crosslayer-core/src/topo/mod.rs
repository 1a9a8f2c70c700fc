//! Topologies as data: every topology is a graph of hosts and routers joined by simplex links,
//! each direction with its own rate, delay, queue discipline and impairments ([`GraphSpec`]).
//! The dumbbell (the seed papers' topology) and the presets (`presets/`: parking lot, leaf-spine,
//! fat-tree) expand to a graph; `net::Topology` builds the links from it and [`routing`]
//! computes the routes.
//!
//! This module sits below the engine spec (`spec.rs` holds a [`TopologySpec`]) and above the
//! queue disciplines (an edge names its discipline): it knows no runtime state.

pub mod impair;
pub mod presets;
pub mod routing;
pub mod wlan;

use crate::aqm::QdiscConfig;
use crate::params::Problem;
use crate::units::{Dur, Rate};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::collections::{HashMap, HashSet};

/// Fastest link (1 Pbit/s).
pub const MAX_RATE: Rate = Rate::from_bps(1_000_000_000_000_000);
/// Longest propagation delay of a link.
pub const MAX_DELAY: Dur = Dur::from_secs(10);
/// Most nodes of a graph.
pub const MAX_NODES: usize = 100_000;
/// Most simplex links of a graph (the scheduler numbers links in 21 bits).
pub const MAX_LINKS: usize = 1_000_000;

/// One simplex link: rate, propagation delay, egress queue, optional random loss.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EdgeSpec {
    pub rate: Rate,
    pub delay: Dur,
    /// Probability that a packet is lost on the wire after serialization (Bernoulli), in [0, 1).
    #[serde(default)]
    pub loss: f64,
    /// Extra propagation delay drawn uniformly in [0, jitter] per packet, order-preserving.
    #[serde(default)]
    pub jitter: Dur,
    #[serde(default = "default_qdisc")]
    pub qdisc: QdiscConfig,
    /// Loss models, the jitter's distribution, outages and a rate/delay schedule
    /// (`net::impair`); none by default.
    #[serde(default, skip_serializing_if = "crate::topo::impair::Impairments::is_none")]
    pub impair: crate::topo::impair::Impairments,
}

pub fn default_qdisc() -> QdiscConfig {
    QdiscConfig::DropTail(Default::default())
}

/// Prefix every problem's field with `path`.
pub fn under(path: &str, problems: Vec<Problem>) -> impl Iterator<Item = Problem> + '_ {
    problems.into_iter().map(move |p| Problem::new(if p.field.is_empty() { path.to_string() } else { format!("{path}.{}", p.field) }, p.message))
}

impl EdgeSpec {
    pub fn new(rate: Rate, delay: Dur) -> EdgeSpec {
        EdgeSpec { rate, delay, loss: 0.0, jitter: Dur::ZERO, qdisc: default_qdisc(), impair: Default::default() }
    }

    pub fn problems(&self, path: &str, out: &mut Vec<Problem>) {
        if self.rate == Rate::from_bps(0) || self.rate > MAX_RATE {
            out.push(Problem::new(format!("{path}.rate"), format!("must be in (0, {MAX_RATE}]")));
        }
        if self.delay > MAX_DELAY {
            out.push(Problem::new(format!("{path}.delay"), format!("must be <= {MAX_DELAY}")));
        }
        if self.jitter > MAX_DELAY {
            out.push(Problem::new(format!("{path}.jitter"), format!("must be <= {MAX_DELAY}")));
        }
        if !(0.0..1.0).contains(&self.loss) {
            out.push(Problem::new(format!("{path}.loss"), "must be in [0, 1)"));
        }
        out.extend(under(&format!("{path}.qdisc"), self.qdisc.validate()));
        self.impair.problems(&format!("{path}.impair"), out);
    }
}

/// A host of a dumbbell, attached to a router: `up` leaves the host, `down` arrives at it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    pub name: String,
    pub up: EdgeSpec,
    pub down: EdgeSpec,
}

/// A node of a graph: a host (an endpoint of flows, never a transit) or a router.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(default)]
    pub host: bool,
}

/// One direction of a graph's link, from node `from` to node `to`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GraphLinkSpec {
    pub from: String,
    pub to: String,
    pub edge: EdgeSpec,
    /// Its role in the result tables (default: `router` between routers, `host_up` from a host,
    /// `host_down` to a host); one of [`ROLES`].
    #[serde(default)]
    pub role: Option<String>,
}

/// The link roles a graph's link may declare (`net::link::LinkRole`'s names, which a test there
/// keeps equal to these).
pub const ROLES: [&str; 11] = ["forward", "reverse", "sender_up", "sender_down", "receiver_up", "receiver_down", "router", "host_up", "host_down", "wlan_up", "wlan_down"];

crate::choice! {
    /// What a shortest path minimizes.
    #[derive(Default)]
    pub enum RouteMetric {
        /// The number of links (hops).
        #[default]
        Hops = "hops",
        /// The sum of the links' propagation delays (ties broken by hops).
        Delay = "delay",
    }
}

/// A static route: at node `at`, packets for the hosts `to` leave towards `via`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RouteOverride {
    pub at: String,
    pub to: Vec<String>,
    pub via: String,
}

/// How a graph routes: static shortest paths by `metric`, ECMP over equal-cost next hops chosen
/// per flow by a seeded hash when `ecmp`, and per-destination `overrides`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    #[serde(default)]
    pub metric: RouteMetric,
    #[serde(default)]
    pub ecmp: bool,
    #[serde(default)]
    pub overrides: Vec<RouteOverride>,
}

/// A graph: nodes and simplex links (a full-duplex link is two of them), and its routing.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<GraphLinkSpec>,
    #[serde(default)]
    pub routing: RoutingSpec,
    /// Wireless LANs: access points and stations whose links share an 802.11 medium.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wlans: Vec<wlan::WlanSpec>,
}

impl GraphSpec {
    /// Node name -> index.
    pub fn index(&self) -> HashMap<&str, u32> {
        self.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i as u32)).collect()
    }

    /// The names of its links, `from->to`, in order.
    pub fn link_names(&self) -> Vec<String> {
        self.links.iter().map(|l| format!("{}->{}", l.from, l.to)).collect()
    }

    /// Structural problems (unknown nodes, a link to itself, duplicates, a host used as a
    /// router, overrides that name what is not there); `path` prefixes the fields.
    pub fn problems(&self, path: &str, out: &mut Vec<Problem>) {
        if self.nodes.len() > MAX_NODES {
            out.push(Problem::new(format!("{path}.nodes"), format!("at most {MAX_NODES} nodes")));
            return;
        }
        if self.links.len() > MAX_LINKS {
            out.push(Problem::new(format!("{path}.links"), format!("at most {MAX_LINKS} simplex links")));
            return;
        }
        if !self.nodes.iter().any(|n| n.host) {
            out.push(Problem::new(format!("{path}.nodes"), "a graph needs hosts: flows run between hosts"));
        }
        let mut seen = HashSet::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if n.name.is_empty() || n.name.contains("->") {
                out.push(Problem::new(format!("{path}.nodes[{i}].name"), "a node name must be non-empty and hold no '->'"));
            }
            if !seen.insert(n.name.as_str()) {
                out.push(Problem::new(format!("{path}.nodes[{i}].name"), format!("duplicate node {:?}", n.name)));
            }
        }
        let index = self.index();
        let mut pairs = HashSet::new();
        for (i, l) in self.links.iter().enumerate() {
            let p = format!("{path}.links[{i}]");
            for (field, name) in [("from", &l.from), ("to", &l.to)] {
                if !index.contains_key(name.as_str()) {
                    out.push(Problem::new(format!("{p}.{field}"), format!("unknown node {name:?}")));
                }
            }
            if l.from == l.to {
                out.push(Problem::new(p.clone(), format!("a link from {:?} to itself", l.from)));
            }
            if !pairs.insert((l.from.as_str(), l.to.as_str())) {
                out.push(Problem::new(p.clone(), format!("duplicate link {}->{}", l.from, l.to)));
            }
            l.edge.problems(&format!("{p}.edge"), out);
            if let Some(role) = l.role.as_deref().filter(|r| !ROLES.contains(r)) {
                out.push(Problem::new(format!("{p}.role"), format!("unknown role {role:?}: one of {}, or leave it out", ROLES.join(", "))));
            }
        }
        let is_host = |name: &str| index.get(name).is_some_and(|&i| self.nodes[i as usize].host);
        for (i, o) in self.routing.overrides.iter().enumerate() {
            let p = format!("{path}.routing.overrides[{i}]");
            for (field, name) in [("at", &o.at), ("via", &o.via)] {
                if !index.contains_key(name.as_str()) {
                    out.push(Problem::new(format!("{p}.{field}"), format!("unknown node {name:?}")));
                }
            }
            if is_host(&o.at) {
                out.push(Problem::new(format!("{p}.at"), format!("{:?} is a host: hosts do not forward, a route override is for a router", o.at)));
            }
            if is_host(&o.via) && !o.to.iter().all(|t| t == &o.via) {
                out.push(Problem::new(format!("{p}.via"), format!("{:?} is a host: it can be the next hop only of the packets for itself (a host is not a router)", o.via)));
            }
            if !pairs.contains(&(o.at.as_str(), o.via.as_str())) {
                out.push(Problem::new(format!("{p}.via"), format!("there is no link {}->{}", o.at, o.via)));
            }
            for (j, t) in o.to.iter().enumerate() {
                if !is_host(t) {
                    out.push(Problem::new(format!("{p}.to[{j}]"), format!("{t:?} is not a host of the graph")));
                }
            }
        }
        if !self.wlans.is_empty() {
            let known = |n: &str| index.contains_key(n);
            let edges: HashMap<(&str, &str), &EdgeSpec> = self.links.iter().map(|l| ((l.from.as_str(), l.to.as_str()), &l.edge)).collect();
            let edge = |a: &str, b: &str| edges.get(&(a, b)).map(|e| (*e).clone());
            let mut seen = HashSet::new();
            for (i, w) in self.wlans.iter().enumerate() {
                w.problems(&format!("{path}.wlans[{i}]"), &known, &edge, &mut seen, out);
            }
        }
        if out.is_empty() {
            if let Some(problem) = self.disconnected() {
                out.push(Problem::new(path, problem));
            }
        }
    }

    /// A description of the hosts that cannot reach each other, if any (links are directed; a
    /// host is never a transit). Linear when the routers are strongly connected and every host
    /// has a link to and from a router (every sane network); otherwise a search from each host,
    /// stopped once six hosts with unreachable peers are found.
    fn disconnected(&self) -> Option<String> {
        let index = self.index();
        let n = self.nodes.len();
        let host = |i: usize| self.nodes[i].host;
        let mut adj = vec![Vec::new(); n];
        let mut radj = vec![Vec::new(); n];
        for l in &self.links {
            let (a, b) = (index[l.from.as_str()] as usize, index[l.to.as_str()] as usize);
            adj[a].push(b);
            radj[b].push(a);
        }
        let routers: Vec<usize> = (0..n).filter(|&i| !host(i)).collect();
        if let Some(&r0) = routers.first() {
            let reach_all = |g: &Vec<Vec<usize>>| {
                let mut seen = vec![false; n];
                let mut stack = vec![r0];
                seen[r0] = true;
                let mut count = 1;
                while let Some(v) = stack.pop() {
                    for &w in &g[v] {
                        if !host(w) && !seen[w] {
                            seen[w] = true;
                            count += 1;
                            stack.push(w);
                        }
                    }
                }
                count == routers.len()
            };
            let attached = (0..n).filter(|&h| host(h)).all(|h| adj[h].iter().any(|&r| !host(r)) && radj[h].iter().any(|&r| !host(r)));
            if attached && reach_all(&adj) && reach_all(&radj) {
                return None;
            }
        }
        let hosts: Vec<usize> = (0..n).filter(|&i| host(i)).collect();
        let mut lines = Vec::new();
        let mut seen = vec![false; n];
        for &h in &hosts {
            seen.fill(false);
            let mut stack = vec![h];
            seen[h] = true;
            while let Some(v) = stack.pop() {
                if v != h && host(v) {
                    continue; // a host is an end, not a transit
                }
                for &w in &adj[v] {
                    if !seen[w] {
                        seen[w] = true;
                        stack.push(w);
                    }
                }
            }
            let missing: Vec<&str> = hosts.iter().filter(|&&g| g != h && !seen[g]).map(|&g| self.nodes[g].name.as_str()).collect();
            if !missing.is_empty() {
                let more = if missing.len() > 5 { format!(" and {} more", missing.len() - 5) } else { String::new() };
                lines.push(format!("{} cannot reach {}{more}", self.nodes[h].name, missing[..missing.len().min(5)].join(", ")));
                if lines.len() == 6 {
                    lines.push("...".into());
                    break;
                }
            }
        }
        if lines.is_empty() {
            return None;
        }
        Some(format!("the graph is disconnected: {}; add links (a full-duplex link is two directions; hosts do not forward)", lines.join("; ")))
    }
}

/// A host as a flow names it: by name, or in a dumbbell by index into the senders or the
/// receivers (`FlowSpec::src`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum HostRef {
    Index(u32),
    Name(Box<str>),
}

impl From<u32> for HostRef {
    fn from(i: u32) -> HostRef {
        HostRef::Index(i)
    }
}

impl std::fmt::Display for HostRef {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            HostRef::Index(i) => write!(f, "{i}"),
            HostRef::Name(n) => write!(f, "{n:?}"),
        }
    }
}

/// A topology made concrete: its graph, the node of each name, and a dumbbell's sender and
/// receiver nodes.
pub struct Expanded {
    pub graph: GraphSpec,
    pub index: HashMap<String, u32>,
    pub dumbbell: Option<(Vec<u32>, Vec<u32>)>,
}

impl Expanded {
    pub fn new(spec: &TopologySpec) -> Expanded {
        let graph = spec.graph();
        let index = graph.nodes.iter().enumerate().map(|(i, n)| (n.name.clone(), i as u32)).collect();
        let dumbbell = match spec {
            TopologySpec::Dumbbell { senders, receivers, .. } => {
                let s = senders.len() as u32;
                Some(((0..s).collect(), (s + 2..s + 2 + receivers.len() as u32).collect()))
            }
            _ => None,
        };
        Expanded { graph, index, dumbbell }
    }

    /// The (source, sink) nodes of a flow, or the field at fault and why. By index in a
    /// dumbbell: a sender and a receiver, or a receiver and a sender when `reverse`; by name,
    /// any two hosts.
    pub fn endpoints(&self, src: &HostRef, dst: &HostRef, reverse: bool) -> Result<(u32, u32), Problem> {
        let one = |field: &str, r: &HostRef, sink: bool| -> Result<u32, Problem> {
            match r {
                HostRef::Name(name) => match self.index.get(&**name) {
                    Some(&i) if self.graph.nodes[i as usize].host => Ok(i),
                    Some(_) => Err(Problem::new(field, format!("{name:?} is a router: a flow runs between two hosts"))),
                    None => {
                        let hosts: Vec<&str> = self.graph.nodes.iter().filter(|n| n.host).map(|n| n.name.as_str()).take(8).collect();
                        Err(Problem::new(field, format!("unknown host {name:?} (hosts: {}{})", hosts.join(", "), if hosts.len() == 8 { ", ..." } else { "" })))
                    }
                },
                HostRef::Index(i) => {
                    let Some((senders, receivers)) = &self.dumbbell else {
                        return Err(Problem::new(field, format!("in a graph a flow names its hosts (e.g. {field} = \"{}\"), not an index", self.graph.nodes.iter().find(|n| n.host).map_or("H1", |n| n.name.as_str()))));
                    };
                    let (side, nodes) = match reverse != sink {
                        false => ("sender", senders),
                        true => ("receiver", receivers),
                    };
                    let flow = if reverse { "a reverse flow's" } else { "a flow's" };
                    nodes.get(*i as usize).copied().ok_or_else(|| Problem::new(field, format!("{flow} {field} is a {side} index: {i} out of range (0..{})", nodes.len())))
                }
            }
        };
        if reverse && (matches!(src, HostRef::Name(_)) || matches!(dst, HostRef::Name(_))) {
            return Err(Problem::new("reverse", "reverse applies to host indices of a dumbbell; a flow that names its hosts goes from src to dst"));
        }
        let (a, b) = (one("src", src, false), one("dst", dst, true));
        let (a, b) = (a?, b?);
        if a == b {
            return Err(Problem::new("dst", format!("the flow's source and sink are the same host ({:?})", self.graph.nodes[a as usize].name)));
        }
        Ok((a, b))
    }
}

/// The topology of a scenario (a scenario holds one: its size does not matter).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum TopologySpec {
    /// Senders on router A, receivers on router B, A -> B the bottleneck (`forward`).
    Dumbbell { forward: EdgeSpec, reverse: EdgeSpec, senders: Vec<HostSpec>, receivers: Vec<HostSpec> },
    /// Any graph.
    Graph(GraphSpec),
    /// A preset (`presets/`): parking lot, leaf-spine, fat-tree, with its routing (unset: the
    /// preset's own: ECMP in the fabrics).
    Preset(presets::PresetConfig, Option<RoutingSpec>),
}

impl TopologySpec {
    /// The graph it is. The dumbbell's nodes are its senders, A, B, its receivers; its links
    /// A->B, B->A, then each sender's up and down links, then each receiver's.
    pub fn graph(&self) -> GraphSpec {
        match self {
            TopologySpec::Dumbbell { forward, reverse, senders, receivers } => dumbbell_graph(forward, reverse, senders, receivers),
            TopologySpec::Graph(g) => g.clone(),
            TopologySpec::Preset(p, routing) => {
                let mut g = presets::Preset::new(p, &()).into_graph();
                if let Some(r) = routing {
                    g.routing = r.clone();
                }
                g
            }
        }
    }

    /// The edge of the bottleneck (A -> B) of a dumbbell.
    pub fn forward_mut(&mut self) -> Option<&mut EdgeSpec> {
        match self {
            TopologySpec::Dumbbell { forward, .. } => Some(forward),
            _ => None,
        }
    }
}

/// Roles of the dumbbell's links, as the result tables name them.
pub const DUMBBELL_ROLES: [&str; 6] = ["forward", "reverse", "sender_up", "sender_down", "receiver_up", "receiver_down"];

fn dumbbell_graph(forward: &EdgeSpec, reverse: &EdgeSpec, senders: &[HostSpec], receivers: &[HostSpec]) -> GraphSpec {
    let mut nodes: Vec<NodeSpec> = senders.iter().map(|h| NodeSpec { name: h.name.clone(), host: true }).collect();
    nodes.push(NodeSpec { name: "A".into(), host: false });
    nodes.push(NodeSpec { name: "B".into(), host: false });
    nodes.extend(receivers.iter().map(|h| NodeSpec { name: h.name.clone(), host: true }));
    let link = |from: &str, to: &str, e: &EdgeSpec, role: &str| GraphLinkSpec { from: from.into(), to: to.into(), edge: e.clone(), role: Some(role.into()) };
    let mut links = vec![link("A", "B", forward, "forward"), link("B", "A", reverse, "reverse")];
    for h in senders {
        links.push(link(&h.name, "A", &h.up, "sender_up"));
        links.push(link("A", &h.name, &h.down, "sender_down"));
    }
    for h in receivers {
        links.push(link(&h.name, "B", &h.up, "receiver_up"));
        links.push(link("B", &h.name, &h.down, "receiver_down"));
    }
    GraphSpec { nodes, links, routing: RoutingSpec::default(), wlans: Vec::new() }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DumbbellJson {
    forward: EdgeSpec,
    reverse: EdgeSpec,
    senders: Vec<HostSpec>,
    receivers: Vec<HostSpec>,
}

impl Serialize for TopologySpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let mut v = match self {
            TopologySpec::Dumbbell { forward, reverse, senders, receivers } => {
                serde_json::to_value(DumbbellJson { forward: forward.clone(), reverse: reverse.clone(), senders: senders.clone(), receivers: receivers.clone() })
            }
            TopologySpec::Graph(g) => serde_json::to_value(g),
            TopologySpec::Preset(p, routing) => serde_json::to_value(p).and_then(|mut v| {
                if let Some(r) = routing {
                    v["routing"] = serde_json::to_value(r)?;
                }
                Ok(v)
            }),
        }
        .map_err(S::Error::custom)?;
        let kind = match self {
            TopologySpec::Dumbbell { .. } => "dumbbell",
            TopologySpec::Graph(_) => "graph",
            TopologySpec::Preset(p, _) => p.name(),
        };
        v["kind"] = Json::from(kind);
        v.serialize(s)
    }
}

impl<'de> Deserialize<'de> for TopologySpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TopologySpec, D::Error> {
        use serde::de::Error;
        let Json::Object(mut m) = Json::deserialize(d)? else { return Err(D::Error::custom("a topology must be a table with a \"kind\"")) };
        let kind = match m.remove("kind") {
            Some(Json::String(k)) => k,
            _ => return Err(D::Error::custom("a topology needs a \"kind\": dumbbell, graph or a preset")),
        };
        match kind.as_str() {
            "dumbbell" => {
                let j: DumbbellJson = serde_json::from_value(Json::Object(m)).map_err(D::Error::custom)?;
                Ok(TopologySpec::Dumbbell { forward: j.forward, reverse: j.reverse, senders: j.senders, receivers: j.receivers })
            }
            "graph" => serde_json::from_value(Json::Object(m)).map(TopologySpec::Graph).map_err(D::Error::custom),
            preset => {
                let routing = match m.remove("routing") {
                    Some(Json::Null) | None => None,
                    Some(r) => Some(serde_json::from_value(r).map_err(D::Error::custom)?),
                };
                presets::PresetConfig::from_parts(preset, m).map(|p| TopologySpec::Preset(p, routing)).map_err(D::Error::custom)
            }
        }
    }
}

/// The bottleneck rule: the position in `path` of its slowest link between two routers or into
/// or out of a wireless LAN's medium (`core`; a medium's nominal rate is already above what it
/// carries: `net::wlan`), the first of equals; without one, of its slowest link. The engine
/// counts a flow there (`net::Topology::bottleneck`) and the plan names it (`ScenarioSpec::plan_json`).
pub fn bottleneck_of(path: &[u32], core: impl Fn(u32) -> bool, bps: impl Fn(u32) -> u64) -> usize {
    let any_core = path.iter().any(|&l| core(l));
    let mut best: Option<usize> = None;
    for (i, &l) in path.iter().enumerate() {
        if any_core && !core(l) {
            continue;
        }
        if best.is_none_or(|b| bps(l) < bps(path[b])) {
            best = Some(i);
        }
    }
    best.unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::bottleneck_of;

    /// Links 0-3 of a path: host -> router 1 Gb/s, router -> router 100 Mb/s, router -> access
    /// point 100 Mb/s, access point -> station (a medium's link) 54 Mb/s.
    #[test]
    fn the_bottleneck_is_the_slowest_core_or_wireless_link_the_first_of_equals() {
        let bps = [1_000_000_000, 100_000_000, 100_000_000, 54_000_000];
        let rate = |l: u32| bps[l as usize];
        let wired_core = |l: u32| l == 1 || l == 2;
        let with_medium = |l: u32| wired_core(l) || l == 3;
        assert_eq!(bottleneck_of(&[0, 1, 2, 3], wired_core, rate), 1, "between routers, the first of equals");
        assert_eq!(bottleneck_of(&[0, 1, 2, 3], with_medium, rate), 3, "the medium's slower link");
        assert_eq!(bottleneck_of(&[3, 0], |_| false, rate), 0, "no core link: the slowest of all");
        let slow_wire = |l: u32| if l == 1 { 20_000_000 } else { bps[l as usize] };
        assert_eq!(bottleneck_of(&[0, 1, 2, 3], with_medium, slow_wire), 1, "a wired link slower than the medium's rate");
    }
}
