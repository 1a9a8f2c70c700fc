//! The engine spec: what a run needs, in unit types (`Time`, `Dur`, `Rate`, `Bytes`), which
//! JSON writes as integers of their base unit (ns, bit/s, bytes).
//!
//! It is the contract between the Python package (which lowers a human-friendly study file into
//! it, with the same field names) and the engine; Rust tests and benches build it directly.
//! `ScenarioSpec::validate` checks it once at the edge and names every offending field; the hot
//! path never re-checks.

use std::sync::Arc;
use crate::cc::CcConfig;
use crate::params::{describe_problems, Params, Problem};
use crate::tcp::TcpConfig;
use crate::units::{Bytes, Dur, Opt, Rate, Time};
use serde::{Deserialize, Serialize};

pub use crate::topo::{EdgeSpec, GraphSpec, HostRef, HostSpec, TopologySpec};
use crate::topo::routing::{flow_hash, Routes};
use crate::topo::Expanded;

// -- Limits, checked before every run and exported in the catalog (`bounds`) -------------------

/// Longest simulated duration (11.6 days): keeps every time the engine computes far from the
/// 584-year end of its clock.
pub const MAX_DURATION: Dur = crate::units::MAX_SPAN;
/// Fastest link (1 Pbit/s).
pub use crate::topo::MAX_RATE;
/// Longest propagation delay of a link.
pub use crate::topo::MAX_DELAY;
/// Most senders, and most receivers, of a dumbbell (the routing table is quadratic in hosts).
pub const MAX_HOSTS: usize = 1_000;
/// Most flows in one run.
pub const MAX_FLOWS: usize = 1_000_000;
pub use crate::traffic::workload::MAX_FLOW_BYTES;
/// Largest `limits.max_trace_rows` a study may ask for.
pub const MAX_TRACE_ROWS: u64 = 1_000_000_000;

// The scheduler numbers links and flows in 20 bits and schedules in 40: the limits above stay
// inside them (checked when the crate compiles).
const _: () = assert!(MAX_FLOWS < crate::sched::MAX_INDEX as usize);
const _: () = assert!(4 * MAX_HOSTS + 2 < crate::sched::MAX_INDEX as usize);
const _: () = assert!(crate::topo::MAX_LINKS < crate::sched::MAX_INDEX as usize);
const _: () = assert!(MAX_EVENTS_CAP < crate::sched::MAX_SCHEDULES);

/// Names of a dumbbell's simplex links, in the order `net::Topology::build` creates them (and
/// names them: `queues.link`).
pub fn link_names(senders: &[HostSpec], receivers: &[HostSpec]) -> Vec<String> {
    let mut out = vec!["A->B".to_string(), "B->A".to_string()];
    for h in senders {
        out.push(format!("{}->A", h.name));
        out.push(format!("A->{}", h.name));
    }
    for h in receivers {
        out.push(format!("{}->B", h.name));
        out.push(format!("B->{}", h.name));
    }
    out
}

/// A limit as the catalog describes it.
pub struct Bound {
    pub name: &'static str,
    pub value: u64,
    pub unit: &'static str,
    pub doc: &'static str,
}

/// Every fixed limit, for the catalog and the docs.
pub fn bounds() -> Vec<Bound> {
    vec![
        Bound { name: "max_duration", value: MAX_DURATION.ns(), unit: "time", doc: "longest simulated duration" },
        Bound { name: "max_delay", value: MAX_DELAY.ns(), unit: "time", doc: "longest propagation delay of a link" },
        Bound { name: "max_rate", value: MAX_RATE.bps(), unit: "rate", doc: "fastest link" },
        Bound { name: "max_hosts", value: MAX_HOSTS as u64, unit: "count", doc: "most senders, and most receivers, of a dumbbell" },
        Bound { name: "max_nodes", value: crate::topo::MAX_NODES as u64, unit: "count", doc: "most nodes (hosts and routers) of a graph" },
        Bound { name: "max_links", value: crate::topo::MAX_LINKS as u64, unit: "count", doc: "most simplex links of a graph (a full-duplex link is two)" },
        Bound { name: "max_flows", value: MAX_FLOWS as u64, unit: "count", doc: "most flows in one run" },
        Bound { name: "max_trace_rows", value: MAX_TRACE_ROWS, unit: "count", doc: "largest limits.max_trace_rows" },
        Bound { name: "max_live_packets", value: crate::packet::MAX_LIVE_PACKETS as u64, unit: "count", doc: "most packets alive at once (queued or in flight); more means a queue or window without a useful bound" },
    ]
}

crate::params! {
    /// Safety limits of one run, each settable in a study's `[limits]` table.
    pub struct RunLimits {
        /// Most rows the time series may hold together (series rows plus cwnd rows), checked before the run from sample_interval, duration and the flow count. A row takes about 40 bytes in the engine and as much again in the result tables.
        max_trace_rows: u64 = 20_000_000, Count, range(>= 1, <= MAX_TRACE_ROWS), "crosslayer: about 1.6 GB at peak";
        /// Most events one run may execute; a run that reaches it stops with an error naming this limit. A safety net against pathological settings (e.g. a 1 us retransmission timer); a 100 s run of 900 flows at 1 Gbit/s needs about 6e8.
        max_events: u64 = 100_000_000_000, Count, range(>= 1, <= MAX_EVENTS_CAP), "crosslayer: about 3 hours of wall time";
    }
}

/// The largest `max_events` (the scheduler numbers its entries in 40 bits; a run this long
/// would take days).
pub const MAX_EVENTS_CAP: u64 = 200_000_000_000;

crate::choice! {
    /// How events at the same instant are ordered.
    #[derive(Default)]
    pub enum TieBreak {
        /// In the order they were scheduled (deterministic, and what ns-3 does).
        #[default]
        Fifo = "fifo",
        /// In a random order drawn from the run's seed (still reproducible): no source of
        /// simultaneous events is always served first.
        Random = "random",
    }
}

/// Rows the traces of a spec hold at most: series samples, plus one row per flow and sample with
/// `cwnd_trace`.
pub fn trace_rows(duration: Dur, sample_interval: Dur, flows: usize, cwnd_trace: bool) -> u64 {
    if sample_interval == Dur::ZERO {
        return 0;
    }
    let samples = duration.ns() / sample_interval.ns() + 1;
    samples.saturating_mul(if cwnd_trace { 1 + flows as u64 } else { 1 })
}

/// Rows the goodput series of a spec holds at most: one per flow and interval.
pub fn goodput_rows(duration: Dur, interval: Dur, flows: usize) -> u64 {
    if interval == Dur::ZERO {
        return 0;
    }
    (duration.ns() / interval.ns()).saturating_mul(flows as u64)
}

use crate::topo::under;

/// When a flow starts.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StartSpec {
    Fixed { at: Time },
    /// Uniform in [from, to] from the flow's own random stream.
    Uniform { from: Time, to: Time },
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: Box<str>,
    /// The data source: a host's name, or in a dumbbell an index into the senders (into the
    /// receivers when `reverse`).
    pub src: HostRef,
    /// The data sink: a host's name, or in a dumbbell an index into the receivers (into the
    /// senders when `reverse`).
    pub dst: HostRef,
    /// Direction of a dumbbell flow given by indices. `false` (the default): from `senders[src]`
    /// to `receivers[dst]`, over A -> B (`forward`), the ACKs over B -> A. `true`: from
    /// `receivers[src]` to `senders[dst]`, over B -> A (`reverse`), the ACKs over A -> B
    /// (two-way traffic). A flow that names its hosts goes from `src` to `dst` (leave it false).
    #[serde(default)]
    pub reverse: bool,
    /// Shared by the flows of a group (`flow_groups`): one copy, not one a flow.
    pub cc: Arc<CcConfig>,
    #[serde(default)]
    pub tcp: Arc<TcpConfig>,
    pub start: StartSpec,
    /// No new data after this time; `None` = until the end.
    #[serde(default)]
    pub stop: Opt<Time>,
    /// Payload bytes of a finite flow (it completes when the last is delivered: its flow
    /// completion time); `None` = a bulk transfer.
    #[serde(default, skip_serializing_if = "Opt::is_none")]
    pub size: Opt<Bytes>,
    /// The application writes at this rate (payload) from the start: the sender is
    /// application-limited when it has sent what was written; `None` = always data to send.
    #[serde(default, skip_serializing_if = "Opt::is_none")]
    pub app_rate: Opt<Rate>,
    /// Its application resets the connection at this time (a RST, then nothing more: the flow
    /// stops without closing); `None` = it does not. A flow whose start comes at or after it
    /// never starts.
    #[serde(default, skip_serializing_if = "Opt::is_none")]
    pub abort: Opt<Time>,
    /// Its application alternates writing and silence (`traffic::onoff`); `None` = it writes
    /// throughout (at `app_rate`, or as fast as TCP takes the data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_off: Option<Box<crate::traffic::onoff::OnOffSpec>>,
    /// DiffServ codepoint of its packets (0-63; class-based disciplines may classify by it).
    #[serde(default)]
    pub dscp: u8,
    /// Its service port (0 = none given; class-based disciplines may classify by it).
    #[serde(default)]
    pub port: u16,
    /// Record when its receiver first holds 1500 x 10^n bytes in order, n = 1, 2, ... (15 kB,
    /// 150 kB, 1.5 MB, ...: the `milestones` table; draft-irtf-iccrg-tcpeval-01 section 5.2.3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub milestones: bool,
}

/// The first byte milestone (`FlowSpec::milestones`): 1500 bytes x 10; each next is ten times
/// the last.
pub const FIRST_MILESTONE: u64 = 15_000;

/// What the flows of a group share: everything of a `FlowSpec` but its name and its ends (the
/// compact form of many flows, `ScenarioSpec::flow_groups`).
/// (Its fields repeat `FlowSpec`'s rather than being flattened into it: serde cannot flatten
/// into a struct that denies unknown fields, and a misspelt field must stay an error.)
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowTemplate {
    pub cc: CcConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
    pub start: StartSpec,
    #[serde(default)]
    pub stop: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_off: Option<Box<crate::traffic::onoff::OnOffSpec>>,
    #[serde(default)]
    pub dscp: u8,
    #[serde(default)]
    pub port: u16,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub milestones: bool,
}

/// A run of flows of a group between two hosts: `count` flows named `prefix` followed by
/// `first`, `first + 1`, ... (without a `first`, one flow named `prefix`), then their source,
/// sink, direction (`FlowSpec::reverse`) and the index of their group's settings in
/// `ScenarioSpec::flow_groups`. One entry per pair of a group, not per flow: 90,000 flows
/// cross from Python as a few entries.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FlowRun(pub String, pub Option<u64>, pub u32, pub HostRef, pub HostRef, pub bool, pub u32);

fn default_series_queue() -> String {
    "bottleneck".into()
}

/// The highest offered load an arrival group may have with `overload` (ten times the link).
pub const MAX_OVERLOAD: f64 = 10.0;

/// A group of finite flows arriving as a Poisson process.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArrivalSpec {
    /// The flows are named `<name>.<k>` in arrival order.
    pub name: String,
    /// (source, destination) host pairs; each arrival picks one uniformly.
    pub pairs: Vec<[HostRef; 2]>,
    /// As `FlowSpec::reverse` (a dumbbell's pairs given by indices).
    #[serde(default)]
    pub reverse: bool,
    pub cc: CcConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
    /// Offered load of `link`: lambda = load x its rate / (8 x the mean size).
    pub load: f64,
    /// A load of 1 or more on purpose: the flows arrive faster than the link carries them, so
    /// the open flows and the backlog grow for the whole run (an overload test, e.g. the TCP
    /// evaluation suite's 110 %); without it such a load is refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overload: bool,
    /// The link the load is of, by name (`A->B`, `R1->R2`).
    pub link: String,
    pub sizes: crate::traffic::workload::SizeDist,
    /// Arrivals in [start, stop); `stop` = the end of the run if none.
    #[serde(default)]
    pub start: Time,
    #[serde(default)]
    pub stop: Option<Time>,
    #[serde(default)]
    pub dscp: u8,
    #[serde(default)]
    pub port: u16,
}

impl ArrivalSpec {
    /// Arrivals per second at a link of `rate_bps`.
    pub fn rate_per_s(&self, rate_bps: u64) -> f64 {
        self.load * rate_bps as f64 / (8.0 * self.sizes.mean())
    }

    /// The flows of this group, from `rng`: starts in [start, stop) (`traffic::workload::Poisson`),
    /// each with a pair and a size drawn in arrival order, at most `max` of them (`None` if more
    /// would arrive).
    pub fn expand(&self, rate_bps: u64, stop: Time, rng: &mut crate::rng::Rng, max: usize) -> Option<Vec<FlowSpec>> {
        let mut clock = crate::traffic::workload::Poisson::new(self.rate_per_s(rate_bps), self.start, stop);
        let mut out = Vec::new();
        let (cc, tcp) = (Arc::new(self.cc.clone()), Arc::new(self.tcp.clone()));
        // per arrival: its time, then its pair, then its size
        while let Some(at) = clock.next(rng) {
            if out.len() == max {
                return None;
            }
            let [src, dst] = self.pairs[rng.range_inclusive(0, self.pairs.len() as u64 - 1) as usize].clone();
            let size = self.sizes.sample(rng);
            out.push(FlowSpec {
                name: format!("{}.{}", self.name, out.len()).into(),
                src,
                dst,
                reverse: self.reverse,
                cc: cc.clone(),
                tcp: tcp.clone(),
                start: StartSpec::Fixed { at },
                stop: Opt::NONE,
                size: Opt::some(Bytes::new(size)),
                app_rate: Opt::NONE, abort: Opt::NONE, on_off: None,
                dscp: self.dscp,
                port: self.port,
                milestones: false,
            });
        }
        Some(out)
    }
}

/// An unresponsive constant-bit-rate (UDP-like) flow (`traffic::cbr`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UdpFlowSpec {
    pub name: String,
    /// The source: a host's name, or in a dumbbell an index into the senders (into the
    /// receivers when `reverse`).
    pub src: HostRef,
    /// The sink: a host's name, or in a dumbbell an index into the receivers (into the senders
    /// when `reverse`).
    pub dst: HostRef,
    /// Direction, as [`FlowSpec::reverse`]: `true` sends from `receivers[src]` to `senders[dst]`
    /// over B -> A.
    #[serde(default)]
    pub reverse: bool,
    /// Sending rate (wire bytes, headers included).
    pub rate: Rate,
    /// Wire size of each datagram.
    pub packet_size: Bytes,
    /// First datagram.
    #[serde(default)]
    pub start: Time,
    /// No datagram at or after this time; `None` = until the end.
    #[serde(default)]
    pub stop: Option<Time>,
    /// Send ECT(0) datagrams (an ECN-capable but unresponsive source, which marking cannot slow).
    #[serde(default)]
    pub ecn: bool,
    /// Send ECT(1) datagrams instead: the L4S identifier (RFC 9331), so that a dual-queue AQM
    /// classifies them as L4S (an unresponsive L4S source: RFC 9332's overload case).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ect1: bool,
    #[serde(default)]
    pub dscp: u8,
    #[serde(default)]
    pub port: u16,
}

/// Packet capture (`report::pcap`): the packets chosen links start sending, and what chosen
/// hosts send and receive, each into a pcap file (`<from>-<to>` for a link, the host's name for
/// a host), at most `snaplen` bytes of each packet and `max_bytes` in all.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    #[serde(default)]
    pub links: Vec<String>,
    #[serde(default)]
    pub hosts: Vec<String>,
    #[serde(default = "default_snaplen")]
    pub snaplen: u32,
    #[serde(default = "default_pcap_bytes")]
    pub max_bytes: u64,
}

fn default_snaplen() -> u32 {
    128
}

fn default_pcap_bytes() -> u64 {
    100_000_000
}

/// Largest `pcap.max_bytes` (the captures are held in memory until the run ends).
pub const MAX_PCAP_BYTES: u64 = 8 << 30;

impl PcapSpec {
    /// The capture files: each a name and its (link name, at its sending end) capture points.
    pub fn files(&self, g: &GraphSpec) -> Vec<(String, Vec<(String, bool)>)> {
        let mut out: Vec<(String, Vec<(String, bool)>)> = self.links.iter().map(|l| (l.replace("->", "-"), vec![(l.clone(), true)])).collect();
        for h in &self.hosts {
            let mut points: Vec<(String, bool)> = g.links.iter().filter(|l| &l.from == h).map(|l| (format!("{}->{}", l.from, l.to), true)).collect();
            points.extend(g.links.iter().filter(|l| &l.to == h).map(|l| (format!("{}->{}", l.from, l.to), false)));
            out.push((h.clone(), points));
        }
        out
    }

    fn problems(&self, g: &GraphSpec, out: &mut Vec<Problem>) {
        let names = g.link_names();
        let index = g.index();
        if self.links.is_empty() && self.hosts.is_empty() {
            out.push(Problem::new("pcap", "name the links (pcap.links) or hosts (pcap.hosts) to capture"));
        }
        for (i, l) in self.links.iter().enumerate() {
            if !names.contains(l) {
                out.push(Problem::new(format!("pcap.links[{i}]"), format!("no link {l:?}: a link is named <from>-><to>, e.g. {:?}", names[0])));
            }
        }
        for (i, h) in self.hosts.iter().enumerate() {
            if !index.get(h.as_str()).is_some_and(|&n| g.nodes[n as usize].host) {
                out.push(Problem::new(format!("pcap.hosts[{i}]"), format!("{h:?} is not a host of the topology")));
            }
        }
        if !(64..=65_535).contains(&self.snaplen) {
            out.push(Problem::new("pcap.snaplen", "must be in [64, 65535] bytes (64 holds every header)"));
        }
        if !(1024..=MAX_PCAP_BYTES).contains(&self.max_bytes) {
            out.push(Problem::new("pcap.max_bytes", format!("must be in [1 KiB, {} GiB] (captures are held in memory until the run ends)", MAX_PCAP_BYTES >> 30)));
        }
        if out.iter().any(|p| p.field.starts_with("pcap")) {
            return;
        }
        let mut seen = std::collections::HashMap::new();
        for (file, points) in self.files(g) {
            for p in points {
                if let Some(other) = seen.insert(p.clone(), file.clone()) {
                    let at = if p.1 { "sends" } else { "delivers" };
                    out.push(Problem::new("pcap", format!("what {} {at} would go into two files ({other} and {file}): capture it once", p.0)));
                }
            }
        }
        if seen.len() >= u16::MAX as usize {
            out.push(Problem::new("pcap", "too many capture points"));
        }
    }
}

/// Largest datagram a CBR flow may send (IPv4's total-length limit).
pub const MAX_DATAGRAM_BYTES: u64 = 65_535;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    #[serde(default)]
    pub seed: u64,
    pub duration: Dur,
    #[serde(default)]
    pub warmup: Dur,
    /// Period of the queue series and cwnd traces; zero = no series.
    #[serde(default)]
    pub sample_interval: Dur,
    #[serde(default)]
    pub cwnd_trace: bool,
    /// Period of the per-flow goodput series (`goodput` table); zero = none.
    #[serde(default)]
    pub goodput_interval: Dur,
    /// The queue the `series` table samples: a link name such as `R1->R2` or `N1->A`,
    /// `bottleneck` (the default: a dumbbell's A->B; in a graph the link most flows have as the
    /// bottleneck of their data path, the first of equals), or in a dumbbell `forward` (A->B)
    /// or `reverse` (B->A).
    #[serde(default = "default_series_queue")]
    pub series_queue: String,
    #[serde(default)]
    pub limits: RunLimits,
    /// Order of events at the same nanosecond: first scheduled first, or a seeded random order.
    #[serde(default)]
    pub tie_break: TieBreak,
    /// Schedule as before issue 21's changes of order: every link a `TxDone` event per waiting
    /// packet and a `Deliver` per hop (no departures known at arrival, no hops decided ahead,
    /// `net::link`), and a flow's timer wakes it when its first deadline comes even if the
    /// deadline moved later (`sched`): the same results but for the order of events at the
    /// same nanosecond; kept to compare the two (`tests/eager_links.rs`).
    #[serde(default)]
    pub departure_events: bool,
    pub topology: TopologySpec,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Unresponsive constant-bit-rate flows; their engine flow ids follow the TCP flows'.
    #[serde(default)]
    pub udp: Vec<UdpFlowSpec>,
    /// Finite TCP flows arriving as Poisson processes (`traffic::workload`); the engine turns
    /// them into flows after those of `flows` (`with_arrivals`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arrivals: Vec<ArrivalSpec>,
    /// Packet capture to pcap files; none by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap: Option<PcapSpec>,
    /// Flows in compact form (for runs of many flows): the settings of each group once, then
    /// runs of flows with the same ends and group (`FlowRun`). Parsing turns them into `flows`,
    /// after those given there, in order (`ScenarioSpec::parse`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flow_groups: Vec<FlowTemplate>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flow_runs: Vec<FlowRun>,
    /// How many of `flows` (from the first) validation checks the settings of one by one: the
    /// flows after them came from `flow_groups`, whose settings are checked once each.
    #[serde(skip)]
    pub own_flows: Option<usize>,
}

/// A scenario's network made concrete: the graph, each flow's end nodes and its paths (data,
/// then ACKs; a UDP flow has no ACK path). Built once by validation and once by the engine.
pub struct Plan {
    pub net: Expanded,
    pub routes: Routes,
    /// Per TCP flow then per UDP flow: (source node, sink node, [data path, ACK path]).
    pub flows: Vec<(u32, u32, [Vec<u32>; 2])>,
}

impl ScenarioSpec {
    pub fn from_json(s: &str) -> Result<ScenarioSpec, String> {
        let spec = ScenarioSpec::parse(s)?;
        spec.validate()?;
        Ok(spec)
    }

    /// Parse an engine spec without validating it (`Sim::new` validates what it builds), its
    /// flow groups expanded into `flows`.
    pub fn parse(s: &str) -> Result<ScenarioSpec, String> {
        let spec: ScenarioSpec = serde_json::from_str(s).map_err(|e| format!("invalid engine spec: {e}"))?;
        spec.with_flow_groups()
    }

    /// This spec with `flow_runs` turned into `flows` (after the others, in order). A run
    /// naming a group that does not exist is refused by name.
    pub fn with_flow_groups(mut self) -> Result<ScenarioSpec, String> {
        if self.flow_runs.is_empty() {
            return Ok(self);
        }
        let grouped = self.flow_runs.iter().fold(0u64, |n, r| n.saturating_add(r.2 as u64));
        if self.flows.len() as u64 + grouped > MAX_FLOWS as u64 {
            return Err(format!("invalid engine spec: flow_runs: at most {MAX_FLOWS} flows (TCP and UDP together)"));
        }
        self.own_flows = Some(self.flows.len());
        let groups = std::mem::take(&mut self.flow_groups);
        self.flows.reserve(grouped as usize);
        // a group's cc and tcp settings once, shared by its flows
        let shared: Vec<(Arc<CcConfig>, Arc<TcpConfig>)> = groups.iter().map(|t| (Arc::new(t.cc.clone()), Arc::new(t.tcp.clone()))).collect();
        for (i, FlowRun(prefix, first, count, src, dst, reverse, g)) in std::mem::take(&mut self.flow_runs).into_iter().enumerate() {
            let t = groups.get(g as usize).ok_or_else(|| format!("invalid engine spec: flow_runs[{i}]: no flow group {g} (there are {})", groups.len()))?;
            let (cc, tcp) = &shared[g as usize];
            let names: Box<dyn Iterator<Item = String>> = match first {
                None if count == 1 => Box::new(std::iter::once(prefix)),
                None => return Err(format!("invalid engine spec: flow_runs[{i}]: {count} flows without a first number would have one name")),
                Some(first) => match first.checked_add(count as u64) {
                    Some(end) => Box::new((first..end).map(move |k| format!("{prefix}{k}"))),
                    None => return Err(format!("invalid engine spec: flow_runs[{i}]: the flows' numbers pass {}", u64::MAX)),
                },
            };
            self.flows.extend(names.map(|name| FlowSpec {
                name: name.into(),
                src: src.clone(),
                dst: dst.clone(),
                reverse,
                cc: cc.clone(),
                tcp: tcp.clone(),
                start: t.start.clone(),
                stop: t.stop.into(),
                size: t.size.into(),
                app_rate: t.app_rate.into(),
                abort: t.abort.into(),
                on_off: t.on_off.clone(),
                dscp: t.dscp,
                port: t.port,
                milestones: t.milestones,
            }));
        }
        self.flow_groups = groups;
        Ok(self)
    }

    /// Every problem, each naming its field in the engine spec.
    pub fn problems(&self) -> Vec<Problem> {
        self.problems_and_plan().0
    }

    /// Every problem, and the plan when there is none (`Sim::new` builds from it, so the
    /// routes are computed once).
    pub fn problems_and_plan(&self) -> (Vec<Problem>, Option<Plan>) {
        let mut plan = None;
        let mut out = Vec::new();
        if self.duration == Dur::ZERO || self.duration > MAX_DURATION {
            out.push(Problem::new("duration", format!("must be in (0s, {MAX_DURATION}]")));
        }
        if self.warmup >= self.duration {
            out.push(Problem::new("warmup", format!("the warm-up ({}) must be shorter than the run ({})", self.warmup, self.duration)));
        }
        out.extend(under("limits", self.limits.validate()));
        let rows = trace_rows(self.duration, self.sample_interval, self.flows.len(), self.cwnd_trace).saturating_add(goodput_rows(self.duration, self.goodput_interval, self.flows.len()));
        if rows > self.limits.max_trace_rows {
            out.push(Problem::new(
                "sample_interval",
                format!("the traces would hold {rows} rows, more than limits.max_trace_rows = {}; sample less often or raise the limit", self.limits.max_trace_rows),
            ));
        }
        if self.flows.len() + self.udp.len() > MAX_FLOWS {
            out.push(Problem::new("flows", format!("at most {MAX_FLOWS} flows (TCP and UDP together)")));
            return (out, None); // checking each of them would take as long as the user's mistake is big
        }
        let topology_ok = self.topology_problems(&mut out);
        if topology_ok {
            self.arrival_problems(&mut out);
        }
        if topology_ok {
            match self.plan() {
                Ok(p) => plan = Some(p),
                Err(problems) => out.extend(problems),
            }
        }
        if self.flows.is_empty() && self.udp.is_empty() && self.arrivals.is_empty() {
            out.push(Problem::new("flows", "at least one flow (TCP or UDP) is needed"));
        }
        let end = Time::ZERO + self.duration;
        for (i, u) in self.udp.iter().enumerate() {
            let path = format!("udp[{i}]");
            if u.rate == Rate::from_bps(0) || u.rate > MAX_RATE {
                out.push(Problem::new(format!("{path}.rate"), format!("must be in (0, {MAX_RATE}]")));
            }
            if u.packet_size.get() < 28 || u.packet_size.get() > MAX_DATAGRAM_BYTES {
                out.push(Problem::new(format!("{path}.packet_size"), format!("must be in [28B, {MAX_DATAGRAM_BYTES}B] (IPv4 + UDP headers at least)")));
            }
            if u.start >= end {
                out.push(Problem::new(format!("{path}.start"), "starts at or after the end of the run"));
            }
            if u.stop.is_some_and(|s| s <= u.start) {
                out.push(Problem::new(format!("{path}.stop"), "must be after start"));
            }
            if u.dscp > 63 {
                out.push(Problem::new(format!("{path}.dscp"), "a DiffServ codepoint is 6 bits: 0-63"));
            }
        }
        for (g, t) in self.flow_groups.iter().enumerate() {
            out.extend(under(&format!("flow_groups[{g}].cc"), t.cc.validate()));
            out.extend(under(&format!("flow_groups[{g}].tcp"), t.tcp.validate()));
        }
        let own = self.own_flows.unwrap_or(self.flows.len());
        for (i, f) in self.flows.iter().enumerate() {
            let path = format!("flows[{i}]");
            if f.dscp > 63 {
                out.push(Problem::new(format!("{path}.dscp"), "a DiffServ codepoint is 6 bits: 0-63"));
            }
            // a flow configured as the one before it has its problems (named there) once
            let as_before = i > 0 && i < own && f.cc == self.flows[i - 1].cc && f.tcp == self.flows[i - 1].tcp;
            if i < own && !as_before {
                out.extend(under(&format!("{path}.cc"), f.cc.validate()));
                out.extend(under(&format!("{path}.tcp"), f.tcp.validate()));
            }
            if let Some(o) = &f.on_off {
                o.problems(&format!("{path}.on_off"), &mut out);
                if o.connection == crate::traffic::onoff::OnOffConnection::New {
                    if f.app_rate.is_none() {
                        out.push(Problem::new(format!("{path}.on_off.connection"), "\"new\" opens a connection per on-period carrying what the application writes in it: give the flow an app_rate, or use \"same\""));
                    }
                    if f.size.is_some() {
                        out.push(Problem::new(format!("{path}.size"), "with on_off.connection = \"new\" each on-period's connection carries app_rate x its duration: leave size out"));
                    }
                }
            }
            if f.abort.get() == Some(Time::ZERO) {
                out.push(Problem::new(format!("{path}.abort"), "must be after 0s (leave it out for a flow that is not aborted)"));
            }
            if f.size.get().is_some_and(|b| b.get() == 0 || b.get() > MAX_FLOW_BYTES) {
                out.push(Problem::new(format!("{path}.size"), format!("a finite flow sends 1 B to {} GB (leave size out for a bulk transfer)", MAX_FLOW_BYTES / 1_000_000_000)));
            }
            let end = Time::ZERO + self.duration;
            match f.start {
                StartSpec::Fixed { at } if at >= end => {
                    out.push(Problem::new(format!("{path}.start"), "starts at or after the end of the run"));
                }
                StartSpec::Uniform { from, to } if from > to || to >= end => {
                    out.push(Problem::new(format!("{path}.start"), "need from <= to < duration"));
                }
                _ => {}
            }
        }
        let plan = if out.is_empty() { plan } else { None };
        (out, plan)
    }

    /// The rate of the link named `name` (`A->B`), if there is one.
    fn link_rate(&self, name: &str) -> Option<u64> {
        let g = self.topology.graph();
        g.links.iter().find(|l| format!("{}->{}", l.from, l.to) == name).map(|l| l.edge.rate.bps())
    }

    /// Problems of the arrival groups (appended to `out`).
    fn arrival_problems(&self, out: &mut Vec<Problem>) {
        let end = Time::ZERO + self.duration;
        let mut expected = (self.flows.len() + self.udp.len()) as f64;
        for (i, a) in self.arrivals.iter().enumerate() {
            let path = format!("arrivals[{i}]");
            let before = out.len();
            if a.pairs.is_empty() {
                out.push(Problem::new(format!("{path}.pairs"), "name at least one (source, destination) pair"));
            }
            out.extend(under(&format!("{path}.cc"), a.cc.validate()));
            out.extend(under(&format!("{path}.tcp"), a.tcp.validate()));
            a.sizes.problems(&format!("{path}.sizes"), out);
            // one accepted range per mode, each read as written (Clippy's merged form is the same
            // test, NaN included, but hides which range belongs to which mode)
            #[allow(clippy::nonminimal_bool)]
            if a.overload && !(a.load > 0.0 && a.load <= MAX_OVERLOAD) {
                out.push(Problem::new(format!("{path}.load"), format!("must be in (0, {MAX_OVERLOAD}] with overload (got {})", a.load)));
            } else if !a.overload && !(a.load > 0.0 && a.load < 1.0) {
                out.push(Problem::new(
                    format!("{path}.load"),
                    format!(
                        "must be in (0, 1) (got {}): at a load of 1 or more flows arrive faster than the link carries them, and the backlog and the open flows grow until the run ends; set overload = true to run such an overload on purpose",
                        a.load
                    ),
                ));
            }
            if a.start >= end || a.stop.is_some_and(|s| s <= a.start) {
                out.push(Problem::new(format!("{path}.start"), "arrivals need start < stop (and start before the end of the run)"));
            }
            if a.dscp > 63 {
                out.push(Problem::new(format!("{path}.dscp"), "a DiffServ codepoint is 6 bits: 0-63"));
            }
            let Some(rate) = self.link_rate(&a.link) else {
                let names = self.topology.graph().link_names();
                out.push(Problem::new(format!("{path}.link"), format!("no link {:?}: name one as <from>-><to>, e.g. {:?}", a.link, names.first().cloned().unwrap_or_default())));
                continue;
            };
            if out.len() > before {
                continue;
            }
            let span = a.stop.unwrap_or(end).min(end).since(a.start).secs_f64();
            let n = a.rate_per_s(rate) * span;
            expected += n;
            if expected + 6.0 * expected.sqrt() > MAX_FLOWS as f64 {
                out.push(Problem::new(
                    format!("{path}.load"),
                    format!("about {n:.0} flows would arrive ({:.1} per second for {span} s); a run holds at most {MAX_FLOWS} flows: shorten the arrivals or lower the load", a.rate_per_s(rate)),
                ));
            }
        }
    }

    /// This spec with each on-off flow of `connection = "new"` replaced, where it stands, by
    /// the finite flows of its on-periods (`<name>.<k>`, starting at each on-period with
    /// app_rate x its duration of payload; the periods from the flow's own on-off stream, from
    /// its start, fixed or drawn from its flow stream as the engine draws a start). Call on a
    /// spec without problems.
    pub fn with_on_off_connections(mut self) -> Result<ScenarioSpec, Vec<Problem>> {
        use crate::traffic::onoff::OnOffConnection;
        if !self.flows.iter().any(|f| f.on_off.as_ref().is_some_and(|o| o.connection == OnOffConnection::New)) {
            return Ok(self);
        }
        let end = Time::ZERO + self.duration;
        let mut out = Vec::with_capacity(self.flows.len());
        for (i, f) in std::mem::take(&mut self.flows).into_iter().enumerate() {
            let Some(o) = f.on_off.as_ref().filter(|o| o.connection == OnOffConnection::New) else {
                out.push(f);
                continue;
            };
            let start = match f.start {
                StartSpec::Fixed { at } => at,
                StartSpec::Uniform { from, to } => Time::from_ns(crate::rng::Rng::stream(self.seed, crate::rng::StreamKind::Flow, i as u64).range_inclusive(from.ns(), to.ns())),
            };
            let rate = f.app_rate.get().expect("validated: new connections need an app_rate");
            let mut rng = crate::rng::Rng::stream(self.seed, crate::rng::StreamKind::OnOff, i as u64);
            for (k, (from, to)) in o.draw(start, f.stop.get().unwrap_or(end).min(end), &mut rng).into_iter().enumerate() {
                let bytes = (rate.bps() as u128 * to.since(from).ns() as u128 / 8_000_000_000).max(1) as u64;
                out.push(FlowSpec { name: format!("{}.{k}", f.name).into(), start: StartSpec::Fixed { at: from }, size: Opt::some(Bytes::new(bytes.min(MAX_FLOW_BYTES))), on_off: None, stop: Opt::NONE, ..f.clone() });
                if out.len() > MAX_FLOWS {
                    return Err(vec![Problem::new(format!("flows[{i}].on_off"), format!("its on-periods would open more than {MAX_FLOWS} connections: lengthen the periods"))]);
                }
            }
        }
        self.flows = out;
        Ok(self)
    }

    /// This spec with its arrival groups expanded into finite flows after `flows` (each group
    /// from its own random stream of the seed). Call on a spec without problems.
    pub fn with_arrivals(mut self) -> Result<ScenarioSpec, Vec<Problem>> {
        let end = Time::ZERO + self.duration;
        for (i, a) in std::mem::take(&mut self.arrivals).into_iter().enumerate() {
            let rate = self.link_rate(&a.link).ok_or_else(|| vec![Problem::new(format!("arrivals[{i}].link"), "no such link")])?;
            let mut rng = crate::rng::Rng::stream(self.seed, crate::rng::StreamKind::Arrivals, i as u64);
            let room = MAX_FLOWS.saturating_sub(self.flows.len() + self.udp.len());
            match a.expand(rate, a.stop.unwrap_or(end).min(end), &mut rng, room) {
                Some(flows) => self.flows.extend(flows),
                None => return Err(vec![Problem::new(format!("arrivals[{i}].load"), format!("more than {MAX_FLOWS} flows arrived"))]),
            }
        }
        Ok(self)
    }

    /// Problems of the topology itself (appended to `out`); whether there were none.
    fn topology_problems(&self, out: &mut Vec<Problem>) -> bool {
        let before = out.len();
        match &self.topology {
            TopologySpec::Dumbbell { forward, reverse, senders, receivers } => {
                for (role, hosts) in [("senders", senders), ("receivers", receivers)] {
                    if hosts.len() > MAX_HOSTS {
                        out.push(Problem::new(format!("topology.{role}"), format!("at most {MAX_HOSTS} hosts")));
                    }
                }
                if out.len() > before {
                    return false;
                }
                forward.problems("topology.forward", out);
                reverse.problems("topology.reverse", out);
                if senders.is_empty() || receivers.is_empty() {
                    out.push(Problem::new("topology", "a dumbbell needs at least one sender and one receiver"));
                }
                let mut names = std::collections::HashSet::from(["A", "B"]);
                for (role, hosts) in [("senders", senders), ("receivers", receivers)] {
                    for (i, h) in hosts.iter().enumerate() {
                        if !names.insert(h.name.as_str()) || h.name.is_empty() || h.name.contains("->") {
                            out.push(Problem::new(format!("topology.{role}[{i}].name"), format!("{:?}: host names must be unique, non-empty, hold no '->' and not be A or B (the routers)", h.name)));
                        }
                        h.up.problems(&format!("topology.{role}[{i}].up"), out);
                        h.down.problems(&format!("topology.{role}[{i}].down"), out);
                    }
                }
            }
            TopologySpec::Graph(g) => g.problems("topology", out),
            TopologySpec::Preset(p, routing) => {
                let problems = p.validate();
                if !problems.is_empty() {
                    out.extend(under("topology", problems));
                } else {
                    let mut g = crate::topo::presets::Preset::new(p, &()).into_graph();
                    if let Some(r) = routing {
                        g.routing = r.clone();
                    }
                    g.problems("topology", out);
                }
            }
        }
        if out.len() > before {
            return false;
        }
        let names = self.topology.graph().link_names();
        let dumbbell = matches!(self.topology, TopologySpec::Dumbbell { .. });
        let named = self.series_queue == "bottleneck" || (dumbbell && ["forward", "reverse"].contains(&self.series_queue.as_str()));
        if !named && !names.contains(&self.series_queue) {
            let shown = names.iter().take(12).cloned().collect::<Vec<_>>().join(", ");
            let more = if names.len() > 12 { ", ..." } else { "" };
            let hint = if dumbbell { "bottleneck, forward, reverse, or a link name" } else { "bottleneck (the link most flows have as their bottleneck) or a link name" };
            out.push(Problem::new("series_queue", format!("no such queue {:?}: {hint} ({shown}{more})", self.series_queue)));
        }
        if let Some(pcap) = &self.pcap {
            pcap.problems(&self.topology.graph(), out);
        }
        true
    }

    /// The network concrete: every flow's end nodes and paths, or the problems of the flows'
    /// endpoints and routes (an unknown host, a router named as a host, no route, a loop).
    /// Call on a spec whose topology has no problems.
    pub fn plan(&self) -> Result<Plan, Vec<Problem>> {
        let net = Expanded::new(&self.topology);
        let mut out = Vec::new();
        let mut ends = Vec::with_capacity(self.flows.len() + self.udp.len());
        let flows = self.flows.iter().map(|f| (&f.src, &f.dst, f.reverse, true)).chain(self.udp.iter().map(|u| (&u.src, &u.dst, u.reverse, false)));
        for (k, (src, dst, reverse, tcp)) in flows.enumerate() {
            let path = if tcp { format!("flows[{k}]") } else { format!("udp[{}]", k - self.flows.len()) };
            match net.endpoints(src, dst, reverse) {
                Ok((a, b)) => ends.push((a, b, tcp)),
                Err(p) => out.push(Problem::new(format!("{path}.{}", p.field), p.message)),
            }
        }
        if !out.is_empty() {
            return Err(out);
        }
        let routes = Routes::compute(&net.graph, ends.iter().flat_map(|&(a, b, tcp)| [Some(b), tcp.then_some(a)]).flatten());
        let link_ends: Vec<(u32, u32)> = net.graph.links.iter().map(|l| (net.index[&l.from], net.index[&l.to])).collect();
        let names: Vec<String> = net.graph.nodes.iter().map(|n| n.name.clone()).collect();
        let mut flows = Vec::with_capacity(ends.len());
        for (k, &(a, b, tcp)) in ends.iter().enumerate() {
            let path = if tcp { format!("flows[{k}]") } else { format!("udp[{}]", k - self.flows.len()) };
            let mut walk = |dir: u32, from: u32, to: u32| match routes.path(from, to, flow_hash(self.seed, k as u32, dir, from, to), &link_ends, &names) {
                Ok(p) => p,
                Err(e) => {
                    if out.len() < 20 {
                        out.push(Problem::new(format!("{path}.{}", if dir == 0 { "dst" } else { "src" }), if dir == 0 { e } else { format!("its ACKs: {e}") }));
                    }
                    Vec::new()
                }
            };
            let data = walk(0, a, b);
            let ack = if tcp { walk(1, b, a) } else { Vec::new() };
            flows.push((a, b, [data, ack]));
        }
        if !out.is_empty() {
            return Err(out);
        }
        Ok(Plan { net, routes, flows })
    }

    /// Every problem, or the plan as JSON: the graph's links (name, from, to, role if declared,
    /// rate, delay, qdisc) and each flow's route, ACK route and bottleneck link, by name. What
    /// `crosslayer validate` shows and the Python side maps to the study file's fields.
    pub fn plan_json(&self) -> serde_json::Value {
        use serde_json::json;
        let problems = |p: Vec<Problem>| json!({"problems": p.iter().map(|p| [p.field.clone(), p.message.clone()]).collect::<Vec<_>>()});
        let out = self.problems();
        if !out.is_empty() {
            return problems(out);
        }
        let plan = match self.plan() {
            Ok(p) => p,
            Err(p) => return problems(p),
        };
        let g = &plan.net.graph;
        let names = g.link_names();
        let speeds: Vec<u64> = g.links.iter().map(|l| l.edge.rate.bps()).collect();
        let host = |i: usize| g.nodes[i].host;
        // a wireless LAN's links: from its access point to a station, and back (once, not per flow)
        let wireless: Vec<bool> =
            g.links.iter().map(|link| g.wlans.iter().any(|w| w.stations.iter().any(|st| (link.from == w.ap && &link.to == st) || (&link.from == st && link.to == w.ap)))).collect();
        let bottleneck = |path: &[u32]| -> String {
            let ends = |l: u32| (plan.net.index[&g.links[l as usize].from] as usize, plan.net.index[&g.links[l as usize].to] as usize);
            let core = |l: u32| wireless[l as usize] || (!host(ends(l).0) && !host(ends(l).1));
            path.get(crate::topo::bottleneck_of(path, core, |l| speeds[l as usize])).map_or(String::new(), |&b| names[b as usize].clone())
        };
        let route = |p: &[u32]| p.iter().map(|&l| names[l as usize].clone()).collect::<Vec<_>>();
        let flow = |name: &str, (a, b, [data, ack]): &(u32, u32, [Vec<u32>; 2])| {
            json!({"name": name, "src": g.nodes[*a as usize].name, "dst": g.nodes[*b as usize].name,
                   "route": route(data), "ack_route": route(ack), "bottleneck": bottleneck(data)})
        };
        let n = self.flows.len();
        json!({
            "nodes": g.nodes,
            "links": g.links.iter().zip(&names).map(|(l, name)| json!({"name": name, "from": l.from, "to": l.to, "role": l.role, "edge": l.edge})).collect::<Vec<_>>(),
            "flows": self.flows.iter().zip(&plan.flows).map(|(f, p)| flow(&f.name, p)).collect::<Vec<_>>(),
            "udp": self.udp.iter().zip(&plan.flows[n..]).map(|(u, p)| flow(&u.name, p)).collect::<Vec<_>>(),
        })
    }

    pub fn validate(&self) -> Result<(), String> {
        let problems = self.problems();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(describe_problems("", &problems))
        }
    }
}
