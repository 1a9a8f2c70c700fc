//! A fingerprint of every result table of a grid of runs, to show that an engine change keeps
//! results bit-identical (`docs/PERFORMANCE.md`): one line a run, its events, delivered
//! segments and a hash of every column of every table but the wall time.
//!
//!     cargo run --release --example fingerprint > before.txt      # then, after the change:
//!     cargo run --release --example fingerprint | diff before.txt -
//!
//! The grid: seed 000's Access Link and Data Center (9 and 90 flows, 5 and 4 simulated s) under
//! Drop Tail, PIE, CoDel, FQ-CoDel and RED, with CUBIC, New Reno, BBR, Vegas and DCTCP, each in
//! the linux, ns3 and ns2 profiles, with TCP Small Queues and with `departure_events`; Hybla,
//! HighSpeed and BIC at 90 flows (windows of thousands of segments); any engine spec given as a
//! JSON file (`Scenario.to_engine_spec()`) runs too.
use crosslayer_core::aqm::{self, QdiscConfig};
use crosslayer_core::cc;
use crosslayer_core::presets;
use crosslayer_core::result::{Column, RunResult};
use crosslayer_core::spec::{ScenarioSpec, TopologySpec};
use crosslayer_core::stack::Profile;
use crosslayer_core::tcp::{TcpConfig, Tsq};
use std::sync::Arc;

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 = (self.0 ^ x as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
}

fn hash(r: &RunResult) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for (name, table) in r.tables() {
        h.bytes(name.as_bytes());
        for (col, c) in &table.columns {
            h.bytes(col.as_bytes());
            match c {
                Column::F64(v) => v.iter().for_each(|x| h.bytes(&x.to_bits().to_le_bytes())),
                Column::U64(v) => v.iter().for_each(|x| h.bytes(&x.to_le_bytes())),
                Column::Str { codes, labels } | Column::Cat { codes, labels } => codes.iter().for_each(|&k| h.bytes(labels[k as usize].as_bytes())),
            }
        }
    }
    let s = &r.summary;
    for x in [s.events, s.delivered_segments, s.flows, s.peak_packets] {
        h.bytes(&x.to_le_bytes());
    }
    h.0
}

fn with_qdisc(mut spec: ScenarioSpec, name: &str) -> ScenarioSpec {
    if name != "droptail" {
        let q: QdiscConfig = aqm::all_defaults().into_iter().find(|c| c.name() == name).expect("a discipline");
        let TopologySpec::Dumbbell { forward, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
        forward.qdisc = q;
    }
    spec
}

fn with_cc(mut spec: ScenarioSpec, name: &str) -> ScenarioSpec {
    let c = cc::all_defaults().into_iter().find(|c| c.name() == name).expect("a congestion control");
    for f in &mut spec.flows {
        f.cc = c.clone().into();
    }
    spec
}

fn with_tcp(mut spec: ScenarioSpec, edit: &dyn Fn(&TcpConfig) -> TcpConfig) -> ScenarioSpec {
    for f in &mut spec.flows {
        f.tcp = Arc::new(edit(&f.tcp));
    }
    spec
}

fn main() {
    let mut runs: Vec<(String, ScenarioSpec)> = Vec::new();
    for (topo, secs) in [("access", 5), ("datacenter", 4)] {
        for n in [9, 90] {
            let base = || if topo == "access" { presets::access_link(n, presets::cubic(), secs) } else { presets::data_center(n, presets::cubic(), secs) };
            for q in ["droptail", "pie", "codel", "fq_codel", "red"] {
                for c in ["cubic", "reno", "bbr", "vegas", "dctcp"] {
                    if c == "dctcp" && q != "red" {
                        continue;
                    }
                    for profile in [Profile::Linux, Profile::Ns3, Profile::Ns2] {
                        if profile != Profile::Linux && (n == 90 || q == "fq_codel") {
                            continue;
                        }
                        let spec = with_tcp(with_cc(with_qdisc(base(), q), c), &|t| TcpConfig { profile, ..t.clone() });
                        runs.push((format!("{topo} {n} {q} {c} {}", profile.name()), spec));
                    }
                }
            }
            let tsq = with_tcp(with_cc(base(), "bbr"), &|t| TcpConfig { tsq: Some(Tsq::All), ..t.clone() });
            runs.push((format!("{topo} {n} droptail bbr linux tsq"), tsq));
            let mut events = base();
            events.departure_events = true;
            runs.push((format!("{topo} {n} droptail cubic linux departure_events"), events));
            let mut random = base();
            random.tie_break = crosslayer_core::spec::TieBreak::Random;
            runs.push((format!("{topo} {n} droptail cubic linux random_ties"), random));
        }
    }
    // windows of thousands of segments (RACK's detection over long SACKed and pending runs)
    for c in ["hybla", "highspeed", "bic"] {
        for q in ["droptail", "codel"] {
            let spec = with_cc(with_qdisc(presets::access_link(90, presets::cubic(), 10), q), c);
            runs.push((format!("access 90 {q} {c} linux 10 s"), spec));
        }
    }
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("readable");
        runs.push((path, ScenarioSpec::parse(&text).unwrap_or_else(|e| panic!("{e}"))));
    }
    for (name, spec) in runs {
        let r = crosslayer_core::run(spec).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("{name:<48} {:>9} events {:>8} segments {:016x}", r.summary.events, r.summary.delivered_segments, hash(&r));
    }
}
