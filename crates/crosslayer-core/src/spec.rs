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
use crate::units::{Dur, Rate, Time};
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
    #[serde(default = "default_qdisc")]
    pub qdisc: QdiscConfig,
}

fn default_qdisc() -> QdiscConfig {
    QdiscConfig::DropTail(Default::default())
}

/// Longest propagation delay of a link.
pub const MAX_DELAY: Dur = Dur::from_secs(10);

/// Prefix every problem's field with `path`.
fn under(path: &str, problems: Vec<Problem>) -> impl Iterator<Item = Problem> + '_ {
    problems.into_iter().map(move |p| Problem::new(if p.field.is_empty() { path.to_string() } else { format!("{path}.{}", p.field) }, p.message))
}

impl EdgeSpec {
    pub fn new(rate: Rate, delay: Dur) -> EdgeSpec {
        EdgeSpec { rate, delay, loss: 0.0, qdisc: default_qdisc() }
    }

    pub fn problems(&self, path: &str, out: &mut Vec<Problem>) {
        if self.rate == Rate::from_bps(0) {
            out.push(Problem::new(format!("{path}.rate"), "must be > 0 bit/s"));
        }
        if self.delay > MAX_DELAY {
            out.push(Problem::new(format!("{path}.delay"), format!("must be <= {MAX_DELAY}")));
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
    /// Index into the senders.
    pub src: u32,
    /// Index into the receivers.
    pub dst: u32,
    pub cc: CcConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
    pub start: StartSpec,
    /// No new data after this time; `None` = until the end.
    #[serde(default)]
    pub stop: Option<Time>,
}

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
    pub topology: TopologySpec,
    pub flows: Vec<FlowSpec>,
}

/// Most samples a series may hold.
pub const MAX_SAMPLES: u64 = 50_000_000;

impl ScenarioSpec {
    pub fn from_json(s: &str) -> Result<ScenarioSpec, String> {
        let spec: ScenarioSpec = serde_json::from_str(s).map_err(|e| format!("invalid engine spec: {e}"))?;
        spec.validate()?;
        Ok(spec)
    }

    /// Every problem, each naming its field in the engine spec.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        if self.duration == Dur::ZERO {
            out.push(Problem::new("duration", "must be > 0"));
        }
        if self.warmup >= self.duration {
            out.push(Problem::new("warmup", format!("the warm-up ({}) must be shorter than the run ({})", self.warmup, self.duration)));
        }
        if self.sample_interval != Dur::ZERO && self.duration.ns() / self.sample_interval.ns() > MAX_SAMPLES {
            out.push(Problem::new("sample_interval", format!("more than {MAX_SAMPLES} samples; use a longer interval")));
        }
        let TopologySpec::Dumbbell { forward, reverse, senders, receivers } = &self.topology;
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
        if self.flows.is_empty() {
            out.push(Problem::new("flows", "at least one flow is needed"));
        }
        for (i, f) in self.flows.iter().enumerate() {
            let path = format!("flows[{i}]");
            if f.src as usize >= senders.len() {
                out.push(Problem::new(format!("{path}.src"), format!("sender index {} out of range (0..{})", f.src, senders.len())));
            }
            if f.dst as usize >= receivers.len() {
                out.push(Problem::new(format!("{path}.dst"), format!("receiver index {} out of range (0..{})", f.dst, receivers.len())));
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
