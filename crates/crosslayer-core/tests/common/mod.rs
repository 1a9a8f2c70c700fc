//! What the integration tests share: the seed 000 Access Link with a chosen discipline at the
//! bottleneck (every flow CUBIC, or CUBIC and Reno alternating), the bottleneck's row of the
//! queues table, and Jain's index of the flows' goodput. Each test file includes it with
//! `mod common;` and uses what it needs.
#![allow(dead_code)]

use crosslayer_core::aqm::QdiscConfig;
use crosslayer_core::presets;
use crosslayer_core::spec::{ScenarioSpec, TopologySpec};
use crosslayer_core::{run, RunResult};

/// Put `qdisc` on the bottleneck (A -> B) of a dumbbell spec.
pub fn set_bottleneck(spec: &mut ScenarioSpec, qdisc: QdiscConfig) {
    let TopologySpec::Dumbbell { forward, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
    forward.qdisc = qdisc;
}

/// The Access Link (100 Mb/s everywhere, RTT 8-204 ms) with `n_flows` CUBIC flows - every other
/// one Reno if `mixed` - and `qdisc` at the bottleneck, run for `seconds`.
pub fn access(n_flows: usize, qdisc: QdiscConfig, seconds: u64, mixed: bool) -> RunResult {
    let mut spec = presets::access_link(n_flows, presets::cubic(), seconds);
    if mixed {
        for (i, f) in spec.flows.iter_mut().enumerate() {
            if i % 2 == 1 {
                f.cc = presets::reno().into();
            }
        }
    }
    set_bottleneck(&mut spec, qdisc);
    run(spec).expect("run")
}

/// The row of the bottleneck (role "forward") in the queues table.
pub fn forward_row(r: &RunResult) -> usize {
    r.queues.strs("role").iter().position(|s| s == "forward").expect("a forward link")
}

/// A column of the bottleneck's row.
pub fn bottleneck(r: &RunResult, col: &str) -> f64 {
    r.queues.f64s(col)[forward_row(r)]
}

/// The bottleneck's headline numbers.
pub struct Bottleneck {
    pub qlen_mean: f64,
    pub sojourn_mean: f64,
    pub utilization: f64,
    pub drop_ratio: f64,
}

impl Bottleneck {
    pub fn of(r: &RunResult) -> Bottleneck {
        Bottleneck {
            qlen_mean: bottleneck(r, "qlen_mean_pkts"),
            sojourn_mean: bottleneck(r, "sojourn_mean_s"),
            utilization: bottleneck(r, "utilization"),
            drop_ratio: bottleneck(r, "drop_ratio"),
        }
    }

    /// Print it (`--nocapture`), labelled.
    pub fn print(&self, label: &str) {
        eprintln!(
            "{label}: queue {:.1} pkts, sojourn {:.2} ms, utilization {:.4}, drops {:.3} %",
            self.qlen_mean,
            self.sojourn_mean * 1e3,
            self.utilization,
            100.0 * self.drop_ratio
        );
    }
}

/// Jain's index of the flows' goodput.
pub fn jain(r: &RunResult) -> f64 {
    let g = r.flows.f64s("goodput_bps");
    let (s, s2) = (g.iter().sum::<f64>(), g.iter().map(|x| x * x).sum::<f64>());
    s * s / (g.len() as f64 * s2)
}
