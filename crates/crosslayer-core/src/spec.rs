//! The engine spec: what a run needs, in unit types (`Time`, `Dur`, `Rate`, `Bytes`), which
//! JSON writes as integers of their base unit (ns, bit/s, bytes).
//!
//! It is the contract between the Python package (which lowers a human-friendly study file into
//! it, with the same field names) and the engine; Rust tests and benches build it directly.
//! `ScenarioSpec::validate` checks it once at the edge and names every offending field; the hot
//! path never re-checks.

use crate::aqm::QdiscConfig;
use crate::cc::CcConfig;
use crate::params::{describe_problems, Params, Problem};
use crate::tcp::TcpConfig;
use crate::units::{Bytes, Dur, Rate, Time};
use serde::{Deserialize, Serialize};

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
}

fn default_qdisc() -> QdiscConfig {
    QdiscConfig::DropTail(Default::default())
}

// -- Limits, checked before every run and exported in the catalog (`bounds`) -------------------

/// Longest simulated duration (11.6 days): keeps every time the engine computes far from the
/// 584-year end of its clock.
pub const MAX_DURATION: Dur = crate::units::MAX_SPAN;
/// Longest propagation delay of a link.
pub const MAX_DELAY: Dur = Dur::from_secs(10);
/// Fastest link (1 Pbit/s).
pub const MAX_RATE: Rate = Rate::from_bps(1_000_000_000_000_000);
/// Most senders, and most receivers, of a dumbbell (the routing table is quadratic in hosts).
pub const MAX_HOSTS: usize = 1_000;
/// Most flows in one run.
pub const MAX_FLOWS: usize = 100_000;
/// Largest `limits.max_trace_rows` a study may ask for.
pub const MAX_TRACE_ROWS: u64 = 1_000_000_000;

// The scheduler numbers links and flows in 21 bits and schedules in 40: the limits above stay
// inside them (checked when the crate compiles).
const _: () = assert!(MAX_FLOWS < crate::sched::MAX_INDEX as usize && 4 * MAX_HOSTS + 2 < crate::sched::MAX_INDEX as usize);
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
        Bound { name: "max_hosts", value: MAX_HOSTS as u64, unit: "count", doc: "most senders, and most receivers" },
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
    pub enum TieBreak {
        /// In the order they were scheduled (deterministic, and what ns-3 does).
        Fifo = "fifo",
        /// In a random order drawn from the run's seed (still reproducible): no source of
        /// simultaneous events is always served first.
        Random = "random",
    }
}

impl Default for TieBreak {
    fn default() -> TieBreak {
        TieBreak::Fifo
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

/// Prefix every problem's field with `path`.
fn under(path: &str, problems: Vec<Problem>) -> impl Iterator<Item = Problem> + '_ {
    problems.into_iter().map(move |p| Problem::new(if p.field.is_empty() { path.to_string() } else { format!("{path}.{}", p.field) }, p.message))
}

impl EdgeSpec {
    pub fn new(rate: Rate, delay: Dur) -> EdgeSpec {
        EdgeSpec { rate, delay, loss: 0.0, jitter: Dur::ZERO, qdisc: default_qdisc() }
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
    }
}

/// A host attached to a router: `up` leaves the host, `down` arrives at it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    pub name: String,
    pub up: EdgeSpec,
    pub down: EdgeSpec,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologySpec {
    /// Senders on router A, receivers on router B, A -> B the bottleneck (`forward`).
    Dumbbell { forward: EdgeSpec, reverse: EdgeSpec, senders: Vec<HostSpec>, receivers: Vec<HostSpec> },
}

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
    pub name: String,
    /// The data source: an index into the senders, or into the receivers when `reverse`.
    pub src: u32,
    /// The data sink: an index into the receivers, or into the senders when `reverse`.
    pub dst: u32,
    /// Direction of the data. `false` (the default): from `senders[src]` to `receivers[dst]`,
    /// over A -> B (`forward`), the ACKs over B -> A. `true`: from `receivers[src]` to
    /// `senders[dst]`, over B -> A (`reverse`), the ACKs over A -> B (two-way traffic).
    #[serde(default)]
    pub reverse: bool,
    pub cc: CcConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
    pub start: StartSpec,
    /// No new data after this time; `None` = until the end.
    #[serde(default)]
    pub stop: Option<Time>,
    /// DiffServ codepoint of its packets (0-63; class-based disciplines may classify by it).
    #[serde(default)]
    pub dscp: u8,
    /// Its service port (0 = none given; class-based disciplines may classify by it).
    #[serde(default)]
    pub port: u16,
}

fn default_series_queue() -> String {
    "forward".into()
}

/// An unresponsive constant-bit-rate (UDP-like) flow (`traffic::cbr`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UdpFlowSpec {
    pub name: String,
    /// The source: an index into the senders, or into the receivers when `reverse`.
    pub src: u32,
    /// The sink: an index into the receivers, or into the senders when `reverse`.
    pub dst: u32,
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
    #[serde(default)]
    pub dscp: u8,
    #[serde(default)]
    pub port: u16,
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
    /// The queue the `series` table samples: `forward` (the bottleneck), `reverse`, or a link name
    /// such as `N1->A` or `B->N4`.
    #[serde(default = "default_series_queue")]
    pub series_queue: String,
    #[serde(default)]
    pub limits: RunLimits,
    /// Order of events at the same nanosecond: first scheduled first, or a seeded random order.
    #[serde(default)]
    pub tie_break: TieBreak,
    pub topology: TopologySpec,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Unresponsive constant-bit-rate flows; their engine flow ids follow the TCP flows'.
    #[serde(default)]
    pub udp: Vec<UdpFlowSpec>,
}

/// Range checks of a flow's `src` and `dst`, each an index into its side's hosts.
fn endpoint_problems(path: &str, src: u32, dst: u32, reverse: bool, senders: usize, receivers: usize, out: &mut Vec<Problem>) {
    let ((src_side, n_src), (dst_side, n_dst)) = match reverse {
        false => (("sender", senders), ("receiver", receivers)),
        true => (("receiver", receivers), ("sender", senders)),
    };
    let flow = if reverse { "a reverse flow's" } else { "a flow's" };
    if src as usize >= n_src {
        out.push(Problem::new(format!("{path}.src"), format!("{flow} src is a {src_side} index: {src} out of range (0..{n_src})")));
    }
    if dst as usize >= n_dst {
        out.push(Problem::new(format!("{path}.dst"), format!("{flow} dst is a {dst_side} index: {dst} out of range (0..{n_dst})")));
    }
}

impl ScenarioSpec {
    pub fn from_json(s: &str) -> Result<ScenarioSpec, String> {
        let spec: ScenarioSpec = serde_json::from_str(s).map_err(|e| format!("invalid engine spec: {e}"))?;
        spec.validate()?;
        Ok(spec)
    }

    /// Every problem, each naming its field in the engine spec.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        if self.duration == Dur::ZERO || self.duration > MAX_DURATION {
            out.push(Problem::new("duration", format!("must be in (0s, {MAX_DURATION}]")));
        }
        if self.warmup >= self.duration {
            out.push(Problem::new("warmup", format!("the warm-up ({}) must be shorter than the run ({})", self.warmup, self.duration)));
        }
        out.extend(under("limits", self.limits.validate()));
        let rows = trace_rows(self.duration, self.sample_interval, self.flows.len(), self.cwnd_trace);
        if rows > self.limits.max_trace_rows {
            out.push(Problem::new(
                "sample_interval",
                format!("the traces would hold {rows} rows, more than limits.max_trace_rows = {}; sample less often or raise the limit", self.limits.max_trace_rows),
            ));
        }
        let TopologySpec::Dumbbell { forward, reverse, senders, receivers } = &self.topology;
        for (role, hosts) in [("senders", senders), ("receivers", receivers)] {
            if hosts.len() > MAX_HOSTS {
                out.push(Problem::new(format!("topology.{role}"), format!("at most {MAX_HOSTS} hosts")));
            }
        }
        if self.flows.len() + self.udp.len() > MAX_FLOWS {
            out.push(Problem::new("flows", format!("at most {MAX_FLOWS} flows (TCP and UDP together)")));
            return out; // checking each of them would take as long as the user's mistake is big
        }
        let link_names = link_names(senders, receivers);
        if !["forward", "reverse"].contains(&self.series_queue.as_str()) && !link_names.contains(&self.series_queue) {
            out.push(Problem::new("series_queue", format!("no such queue: forward, reverse, or a link name ({})", link_names.join(", "))));
        }
        forward.problems("topology.forward", &mut out);
        reverse.problems("topology.reverse", &mut out);
        if senders.is_empty() || receivers.is_empty() {
            out.push(Problem::new("topology", "a dumbbell needs at least one sender and one receiver"));
        }
        for (role, hosts) in [("senders", senders), ("receivers", receivers)] {
            for (i, h) in hosts.iter().enumerate() {
                h.up.problems(&format!("topology.{role}[{i}].up"), &mut out);
                h.down.problems(&format!("topology.{role}[{i}].down"), &mut out);
            }
        }
        if self.flows.is_empty() && self.udp.is_empty() {
            out.push(Problem::new("flows", "at least one flow (TCP or UDP) is needed"));
        }
        let end = Time::ZERO + self.duration;
        for (i, u) in self.udp.iter().enumerate() {
            let path = format!("udp[{i}]");
            endpoint_problems(&path, u.src, u.dst, u.reverse, senders.len(), receivers.len(), &mut out);
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
        for (i, f) in self.flows.iter().enumerate() {
            let path = format!("flows[{i}]");
            endpoint_problems(&path, f.src, f.dst, f.reverse, senders.len(), receivers.len(), &mut out);
            if f.dscp > 63 {
                out.push(Problem::new(format!("{path}.dscp"), "a DiffServ codepoint is 6 bits: 0-63"));
            }
            out.extend(under(&format!("{path}.cc"), f.cc.validate()));
            out.extend(under(&format!("{path}.tcp"), f.tcp.validate()));
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
        out
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
