//! Topology presets: a handful of parameters that expand to a graph, declared like the
//! algorithms (one file each, a `params!` config with doc, unit, default, source and range, one
//! registry line), so `crosslayer list topologies`, the study-file validation and the docs come
//! from the same declaration.
//!
//! | preset        | what                                                                   |
//! |---------------|------------------------------------------------------------------------|
//! | `parking_lot` | a chain of routers: one long path over every hop, a cross path per hop |
//! | `leaf_spine`  | a two-tier Clos fabric: hosts on leaves, every leaf to every spine     |
//! | `fat_tree`    | Al-Fares et al.'s three-tier fabric of k-port switches                 |

pub mod fat_tree;
pub mod leaf_spine;
pub mod parking_lot;

use super::{EdgeSpec, GraphLinkSpec, GraphSpec, NodeSpec};
use crate::aqm::QdiscConfig;
use crate::registry::Algorithm;
use crate::units::{Dur, Rate};
use serde_json::{json, Value as Json};

/// What every preset is: the graph its parameters expand to.
pub trait Topology: Algorithm<Env = ()> {
    /// The graph (nodes, links and default routing).
    fn graph(&self) -> &GraphSpec;
    /// How its nodes are named, for the catalog and the docs.
    const NAMING: &'static str;
}

fn preset_extra<T: Topology>() -> Json {
    json!({"naming": T::NAMING})
}

macro_rules! preset_dispatch {
    ($( $(#[$m:meta])* $V:ident => $T:ty ),+) => {
        impl Preset {
            /// The graph the preset expands to.
            pub fn into_graph(self) -> GraphSpec {
                match self { $( $(#[$m])* Preset::$V(p) => p.graph().clone(), )+ }
            }
        }
    };
}

crate::registry! {
    family "topology";
    /// A topology preset as a scenario gives it: `{"kind": "parking_lot", ...}`.
    config PresetConfig;
    /// A preset expanded.
    runtime Preset;
    env ();
    extra preset_extra;
    dispatch preset_dispatch;
    algorithms {
        ParkingLot => parking_lot::ParkingLot,
        LeafSpine => leaf_spine::LeafSpine,
        FatTree => fat_tree::FatTree,
    }
}

/// A graph under construction: nodes and full-duplex links (two simplex links each).
#[derive(Default)]
pub struct Builder {
    pub graph: GraphSpec,
}

impl Builder {
    pub fn host(&mut self, name: String) -> String {
        self.graph.nodes.push(NodeSpec { name: name.clone(), host: true });
        name
    }

    pub fn router(&mut self, name: String) -> String {
        self.graph.nodes.push(NodeSpec { name: name.clone(), host: false });
        name
    }

    /// A full-duplex link `a` <-> `b`: `a -> b` then `b -> a`, each with `edge`.
    pub fn link(&mut self, a: &str, b: &str, rate: Rate, delay: Dur, qdisc: &QdiscConfig) {
        let edge = EdgeSpec { rate, delay, loss: 0.0, jitter: Dur::ZERO, qdisc: qdisc.clone(), impair: Default::default() };
        for (from, to) in [(a, b), (b, a)] {
            self.graph.links.push(GraphLinkSpec { from: from.into(), to: to.into(), edge: edge.clone(), role: None });
        }
    }
}

/// The default egress queue of a preset's links: Linux's txqueuelen of 1000 packets.
pub fn default_queue() -> QdiscConfig {
    let mut p = serde_json::Map::new();
    p.insert("limit_pkts".into(), 1000.into());
    QdiscConfig::from_parts("droptail", p).expect("droptail is registered")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_expands_to_a_valid_connected_graph_with_its_defaults() {
        for cfg in all_defaults() {
            assert!(cfg.validate().is_empty(), "{}", cfg.name());
            let g = Preset::new(&cfg, &()).into_graph();
            let mut problems = Vec::new();
            g.problems("topology", &mut problems);
            assert!(problems.is_empty(), "{}: {problems:?}", cfg.name());
        }
    }
}
