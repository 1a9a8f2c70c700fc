//! The engine spec: what a run needs, in SI base units as integers (ns, bit/s, bytes).
//!
//! It is the contract between the Python package (which lowers a human-friendly study file into
//! it) and the engine; Rust tests and benches build it directly. `ScenarioSpec::validate` checks
//! it once at the edge and names the offending field; the hot path never re-checks.

use crate::aqm::QdiscConfig;
use crate::cc::CcConfig;
use crate::tcp::TcpConfig;
use serde::{Deserialize, Serialize};

/// One simplex link: rate, propagation delay, egress queue, optional random loss.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EdgeSpec {
    pub rate_bps: u64,
    pub delay_ns: u64,
    /// Probability that a packet is lost on the wire after serialization (Bernoulli), in [0, 1).
    #[serde(default)]
    pub loss: f64,
    #[serde(default = "default_qdisc")]
    pub qdisc: QdiscConfig,
}

fn default_qdisc() -> QdiscConfig {
    QdiscConfig::Droptail(Default::default())
}

impl EdgeSpec {
    pub fn new(rate_bps: u64, delay_ns: u64) -> EdgeSpec {
        EdgeSpec { rate_bps, delay_ns, loss: 0.0, qdisc: default_qdisc() }
    }

    pub fn validate(&self, path: &str) -> Result<(), String> {
        if self.rate_bps == 0 {
            return Err(format!("{path}.rate_bps: must be > 0 bit/s"));
        }
        if self.delay_ns > 10_000_000_000 {
            return Err(format!("{path}.delay_ns: must be <= 10 s, got {} ns", self.delay_ns));
        }
        if !(0.0..1.0).contains(&self.loss) {
            return Err(format!("{path}.loss: must be in [0, 1), got {}", self.loss));
        }
        self.qdisc.validate(&format!("{path}.qdisc"))
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
    Fixed { at_ns: u64 },
    /// Uniform in [from, to] from the flow's own random stream.
    Uniform { from_ns: u64, to_ns: u64 },
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
    pub stop_ns: Option<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    #[serde(default)]
    pub seed: u64,
    pub duration_ns: u64,
    #[serde(default)]
    pub warmup_ns: u64,
    /// Period of the queue series and cwnd traces; 0 = no series.
    #[serde(default)]
    pub sample_interval_ns: u64,
    #[serde(default)]
    pub cwnd_trace: bool,
    pub topology: TopologySpec,
    pub flows: Vec<FlowSpec>,
}

impl ScenarioSpec {
    pub fn from_json(s: &str) -> Result<ScenarioSpec, String> {
        let spec: ScenarioSpec = serde_json::from_str(s).map_err(|e| format!("invalid engine spec: {e}"))?;
        spec.validate()?;
        Ok(spec)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.duration_ns == 0 {
            return Err("duration_ns: must be > 0".into());
        }
        if self.warmup_ns >= self.duration_ns {
            return Err(format!(
                "warmup_ns: the warm-up ({} s) must be shorter than the run ({} s)",
                self.warmup_ns as f64 / 1e9,
                self.duration_ns as f64 / 1e9
            ));
        }
        if self.sample_interval_ns != 0 && self.duration_ns / self.sample_interval_ns > 50_000_000 {
            return Err("sample_interval_ns: more than 50 million samples; use a longer interval".into());
        }
        let TopologySpec::Dumbbell { forward, reverse, senders, receivers } = &self.topology;
        forward.validate("topology.forward")?;
        reverse.validate("topology.reverse")?;
        if senders.is_empty() || receivers.is_empty() {
            return Err("topology: a dumbbell needs at least one sender and one receiver".into());
        }
        for (role, hosts) in [("senders", senders), ("receivers", receivers)] {
            for (i, h) in hosts.iter().enumerate() {
                h.up.validate(&format!("topology.{role}[{i}].up"))?;
                h.down.validate(&format!("topology.{role}[{i}].down"))?;
            }
        }
        if self.flows.is_empty() {
            return Err("flows: at least one flow is needed".into());
        }
        for (i, f) in self.flows.iter().enumerate() {
            let path = format!("flows[{i}]");
            if f.src as usize >= senders.len() {
                return Err(format!("{path}.src: sender index {} out of range (0..{})", f.src, senders.len()));
            }
            if f.dst as usize >= receivers.len() {
                return Err(format!("{path}.dst: receiver index {} out of range (0..{})", f.dst, receivers.len()));
            }
            f.cc.validate(&format!("{path}.cc"))?;
            f.tcp.validate(&format!("{path}.tcp"))?;
            match f.start {
                StartSpec::Fixed { at_ns } if at_ns >= self.duration_ns => {
                    return Err(format!("{path}.start: starts at or after the end of the run"));
                }
                StartSpec::Uniform { from_ns, to_ns } if from_ns > to_ns || to_ns >= self.duration_ns => {
                    return Err(format!("{path}.start: need from <= to < duration"));
                }
                _ => {}
            }
        }
        Ok(())
    }
}
