//! Every parameter at the edges of its declared range, in a real run.
//!
//! A review found a queue discipline whose `quantum` validated at 2^63 and then spun forever
//! inside one event (an `as i64` cast made the deficit negative), where neither `max_events`
//! nor an interrupt can reach it. The property tests of the Python layer check that validation
//! and the engine agree on every range; this test runs what validates. For every registered
//! queue discipline and congestion control and every TCP option, it takes each numeric
//! parameter to the bottom and the top of its range (the engine type's largest value, 2^63 and
//! 2^32 when the range is open above; tiny and huge reals for real parameters), then all of an
//! algorithm's parameters at their tops and at their bottoms together, and runs each
//! configuration that validates on a small dumbbell (two TCP flows, one with ECN, and a UDP
//! flow) for half a second, each run in its own thread under a wall-clock deadline.
//!
//! A run must end: `Ok`, or the error of `limits.max_events` (an event storm, bounded by the
//! limit, is allowed and counted). A panic, a run past its deadline, any other error (an arena
//! overflow from a window that wrapped, a broken invariant), or a result table holding an
//! integer near 2^64 or an infinite real (the mark of arithmetic that wrapped or overflowed)
//! fails the test, naming the parameter and its value.

use crosslayer_core::aqm;
use crosslayer_core::cc;
use crosslayer_core::params::Params;
use crosslayer_core::result::{Column, RunResult};
use crosslayer_core::tcp::TcpConfig;
use crosslayer_core::ScenarioSpec;
use serde_json::{json, Value as Json};
use std::sync::mpsc;
use std::time::Duration;

/// Wall time one extreme run may take (the slowest take well under a second in release).
const DEADLINE: Duration = Duration::from_secs(30);
/// Event budget of one run: a storm stops here with the limit's error.
const MAX_EVENTS: u64 = 3_000_000;

/// The values at the edges of a parameter's range, as JSON.
fn extremes(p: &Json) -> Vec<Json> {
    let ty = p["type"].as_str().unwrap_or("");
    let (lo, hi) = (&p["min"], &p["max"]);
    let (lo_x, hi_x) = (p["min_exclusive"].as_bool().unwrap_or(false), p["max_exclusive"].as_bool().unwrap_or(false));
    match ty {
        "int" => {
            let int_max = p["int_max"].as_u64().unwrap_or(u64::MAX);
            let low = lo.as_f64().map_or(0, |v| v as u64 + lo_x as u64);
            let mut out = vec![low, low + 1];
            match hi.as_f64() {
                Some(h) => out.push((h as u64).min(int_max) - hi_x as u64),
                None => out.extend([int_max, int_max - 1, 1 << 63, (1 << 32) - 1, 1 << 32].into_iter().filter(|&v| v <= int_max)),
            }
            out.into_iter().map(|v| json!(v)).collect()
        }
        "float" => {
            let mut out = vec![];
            match lo.as_f64() {
                Some(l) if lo_x => out.extend([if l == 0.0 { 5e-324 } else { l + l.abs() * 1e-12 }, if l == 0.0 { 1e-300 } else { l * (1.0 + 1e-9) + 1e-9 }]),
                Some(l) => out.extend([l, l + 1e-300]),
                None => out.extend([-1e300, -f64::MAX]),
            }
            match hi.as_f64() {
                Some(h) if hi_x => out.push(h - h.abs() * 1e-12),
                Some(h) => out.push(h),
                None => out.extend([1e300, f64::MAX, 5e-324]),
            }
            out.into_iter().filter(|v| v.is_finite()).map(|v| json!(v)).collect()
        }
        "bool" => vec![json!(false), json!(true)],
        "str" => p["choices"].as_array().cloned().unwrap_or_default(),
        _ => vec![], // lists and nested configurations: their elements are scalars covered elsewhere
    }
}

/// A small dumbbell with the discipline `qdisc` at the bottleneck and the reverse link, two TCP
/// flows of `cc` with `tcp` (the second with ECN) and a UDP flow.
fn spec(qdisc: &Json, cc: &Json, tcp: &Json) -> Json {
    let edge = |rate: u64, delay_ms: u64, q: &Json| json!({"rate": rate, "delay": delay_ms * 1_000_000, "loss": 0.0, "jitter": 0, "qdisc": q});
    let fifo = json!({"kind": "droptail", "limit_pkts": 1000, "limit_bytes": null});
    let host = |name: &str| json!({"name": name, "up": edge(100_000_000, 1, &fifo), "down": edge(100_000_000, 1, &fifo)});
    let mut ecn_tcp = tcp.clone();
    ecn_tcp["ecn"] = json!(true);
    let flow = |i: u32, t: &Json| json!({"name": format!("f{i}"), "src": i, "dst": 0, "reverse": false, "cc": cc, "tcp": t,
        "start": {"kind": "fixed", "at": i as u64 * 1_000_000}, "stop": null, "dscp": 0, "port": 0});
    json!({
        "seed": 1, "duration": 500_000_000u64, "warmup": 100_000_000u64, "sample_interval": 50_000_000u64,
        "cwnd_trace": false, "series_queue": "forward", "tie_break": "fifo",
        "limits": {"max_trace_rows": 1_000_000, "max_events": MAX_EVENTS},
        "topology": {"kind": "dumbbell", "forward": edge(10_000_000, 5, qdisc), "reverse": edge(10_000_000, 5, qdisc),
                     "senders": [host("S0"), host("S1")], "receivers": [host("R0")]},
        "flows": [flow(0, tcp), flow(1, &ecn_tcp)],
        "udp": [{"name": "u0", "src": 0, "dst": 0, "reverse": false, "rate": 1_000_000, "packet_size": 1000,
                 "start": 0, "stop": null, "ecn": true, "dscp": 0, "port": 0}],
    })
}

/// How one configuration ended.
enum Outcome {
    Refused,
    Ran,
    Storm,
    Failed(String),
}

/// Validate `spec` and, if it validates, run it under the deadline.
fn try_run(spec: Json) -> Outcome {
    let text = spec.to_string();
    let Ok(parsed) = ScenarioSpec::from_json(&text) else { return Outcome::Refused };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| crosslayer_core::run(parsed).map_err(|e| e.to_string()).and_then(|r| absurd(&r)));
        let _ = tx.send(outcome);
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(Ok(Ok(()))) => Outcome::Ran,
        Ok(Ok(Err(e))) if e.contains("limits.max_events") => Outcome::Storm,
        Ok(Ok(Err(e))) => Outcome::Failed(format!("error: {e}")),
        Ok(Err(p)) => Outcome::Failed(format!("panic: {:?}", p.downcast_ref::<String>().map(String::as_str).or(p.downcast_ref::<&str>().copied()))),
        Err(_) => Outcome::Failed(format!("still running after {DEADLINE:?} (a hang inside an event?)")),
    }
}

/// A value in the flows or queues table that only wrapped arithmetic gives: an integer above
/// 2^60 (a window, a counter) or an infinite real.
fn absurd(r: &RunResult) -> Result<(), String> {
    for (table, t) in [("flows", &r.flows), ("queues", &r.queues), ("udp", &r.udp)] {
        for (name, col) in &t.columns {
            let bad = match col {
                Column::U64(v) => v.iter().any(|&x| x > 1 << 60),
                Column::F64(v) => v.iter().any(|x| x.is_infinite()),
                _ => false,
            };
            if bad {
                return Err(format!("{table}.{name} holds an absurd value (wrapped or overflowed arithmetic)"));
            }
        }
    }
    Ok(())
}

/// Defaults of a family's algorithm `name` as JSON.
fn defaults(all: Vec<Json>, name: &str) -> Json {
    all.into_iter().find(|c| c["kind"] == name).unwrap_or_else(|| panic!("no defaults for {name}"))
}

#[derive(Default)]
struct Tally {
    ran: usize,
    refused: usize,
    storms: Vec<String>,
    failures: Vec<String>,
}

impl Tally {
    fn record(&mut self, what: String, outcome: Outcome) {
        match outcome {
            Outcome::Ran => self.ran += 1,
            Outcome::Refused => self.refused += 1,
            Outcome::Storm => self.storms.push(what),
            Outcome::Failed(e) => self.failures.push(format!("{what}: {e}")),
        }
    }
}

/// Each parameter of each algorithm of a family at each extreme, then all at once at the
/// bottom and at the top; `place` puts the algorithm's config into a scenario.
fn sweep_family(catalog: Vec<Json>, all: Vec<Json>, place: &dyn Fn(&Json) -> Json, tally: &mut Tally) {
    for entry in catalog {
        let name = entry["name"].as_str().unwrap();
        let base = defaults(all.clone(), name);
        let params = entry["params"].as_array().unwrap();
        let mut lows = base.clone();
        let mut highs = base.clone();
        for p in params {
            let pname = p["name"].as_str().unwrap();
            let values = extremes(p);
            if let (Some(first), Some(last)) = (values.first(), values.last()) {
                lows[pname] = first.clone();
                highs[pname] = last.clone();
            }
            for v in values {
                let mut cfg = base.clone();
                cfg[pname] = v.clone();
                tally.record(format!("{name}.{pname} = {v}"), try_run(place(&cfg)));
            }
        }
        tally.record(format!("{name} with every parameter at its bottom"), try_run(place(&lows)));
        tally.record(format!("{name} with every parameter at its top"), try_run(place(&highs)));
    }
}

#[test]
fn every_parameter_at_the_edges_of_its_range_runs_to_the_end() {
    let fifo = json!({"kind": "droptail", "limit_pkts": 100, "limit_bytes": null});
    let cubic = defaults(cc::all_defaults().iter().map(|c| serde_json::to_value(c).unwrap()).collect(), "cubic");
    let tcp = serde_json::to_value(TcpConfig::default()).unwrap();
    let mut tally = Tally::default();

    let qdiscs: Vec<Json> = aqm::all_defaults().iter().map(|c| serde_json::to_value(c).unwrap()).collect();
    sweep_family(aqm::catalog(), qdiscs, &|q| spec(q, &cubic, &tcp), &mut tally);

    let ccs: Vec<Json> = cc::all_defaults().iter().map(|c| serde_json::to_value(c).unwrap()).collect();
    sweep_family(cc::catalog(), ccs, &|c| spec(&fifo, c, &tcp), &mut tally);

    let tcp_catalog = vec![json!({"name": "tcp", "params": TcpConfig::specs().iter().map(|s| s.to_json()).collect::<Vec<_>>()})];
    let mut tcp_base = tcp.clone();
    tcp_base["kind"] = json!("tcp");
    sweep_family(tcp_catalog, vec![tcp_base], &|t| {
        let mut t = t.clone();
        t.as_object_mut().unwrap().remove("kind");
        spec(&fifo, &cubic, &t)
    }, &mut tally);

    eprintln!(
        "extremes: {} runs ended, {} configurations refused by validation, {} event storms stopped by limits.max_events: {:?}",
        tally.ran, tally.refused, tally.storms.len(), tally.storms
    );
    assert!(tally.ran > 300, "only {} extreme configurations ran: the sweep lost its coverage", tally.ran);
    assert!(tally.failures.is_empty(), "{} extreme configurations failed:\n{}", tally.failures.len(), tally.failures.join("\n"));
}
