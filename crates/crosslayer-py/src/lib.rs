//! PyO3 bindings for crosslayer-core: JSON in, plain Python objects out. Only conversions and
//! error mapping live here.
//!
//! Error mapping, one exception per kind of `crosslayer_core::Error`: an invalid spec raises
//! `ValueError` naming the field; a limit reached or memory lacking raises `LimitError`; an
//! interrupt raises the pending signal's exception (`KeyboardInterrupt`); a failed end-of-run
//! check (conservation, queue identities) or a Rust panic - in the run or in the conversion of
//! its results - raises `SimulatorBug`. `LimitError` and `SimulatorBug` are `EngineError`s (a
//! `RuntimeError`); nothing aborts the interpreter. The GIL is released while Rust runs.

use crosslayer_core::aqm::QdiscConfig;
use crosslayer_core::cc::CcConfig;
use crosslayer_core::params::{Params, Problem};
use crosslayer_core::result::{Column, Table};
use crosslayer_core::spec::RunLimits;
use crosslayer_core::tcp::TcpConfig;
use crosslayer_core::topo::presets::PresetConfig;
use crosslayer_core::topo::TopologySpec;
use crosslayer_core::{Error, RunResult, ScenarioSpec};
use numpy::PyArray1;
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(_core, EngineError, PyRuntimeError, "The engine stopped without results: a limit reached (LimitError) or a simulator bug (SimulatorBug).");
create_exception!(_core, LimitError, EngineError, "A limit was reached: one the scenario set ([limits] max_events), a fixed one (packets alive at once), or the memory for traces or packets. The message names it and the fix.");
create_exception!(_core, SimulatorBug, EngineError, "The engine failed one of its own checks (an identity, conservation) or panicked: a simulator bug; please report it with the study file.");

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// A caught unwind: the engine's own error if it raised one (a limit met in the hot path), else
/// a panic, which is a simulator bug.
fn engine_panic(p: Box<dyn std::any::Any + Send>) -> PyErr {
    match Error::from_panic(p.as_ref()) {
        Some(e) => engine_error(e),
        None => SimulatorBug::new_err(format!("internal error (Rust panic): {}", panic_message(p))),
    }
}

/// The Python exception of each kind of engine error.
fn engine_error(e: Error) -> PyErr {
    match e {
        Error::Invalid(m) => PyValueError::new_err(m),
        Error::Limit(m) | Error::OutOfMemory(m) => LimitError::new_err(m),
        Error::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        Error::Bug(m) => SimulatorBug::new_err(m),
    }
}

/// Run `f` with the GIL released, turning a panic into `SimulatorBug`.
fn guarded<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, String> + Send) -> PyResult<T> {
    py.allow_threads(|| catch_unwind(AssertUnwindSafe(f))).map_err(engine_panic)?.map_err(SimulatorBug::new_err)
}

/// A table as a dict of columns: numbers as NumPy arrays (moved, not copied), categorical
/// columns as `{"codes": array, "labels": list}`, strings as `{"codes": array, "labels": list,
/// "strings": True}` (each distinct string once: a 540,000-row table of a few thousand names
/// crosses to Python as an array, and the Python side builds its string column from it without
/// a Python object per row).
fn table(py: Python<'_>, t: Table) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in t.columns {
        let strings = matches!(col, Column::Str { .. });
        match col {
            Column::F64(v) => d.set_item(name, PyArray1::from_vec(py, v))?,
            Column::U64(v) => d.set_item(name, PyArray1::from_vec(py, v))?,
            Column::Str { codes, labels } | Column::Cat { codes, labels } => {
                let c = PyDict::new(py);
                c.set_item("codes", PyArray1::from_vec(py, codes))?;
                c.set_item("labels", labels)?;
                if strings {
                    c.set_item("strings", true)?;
                }
                d.set_item(name, c)?
            }
        }
    }
    Ok(d)
}

fn to_py(py: Python<'_>, r: RunResult) -> PyResult<Bound<'_, PyDict>> {
    let s = &r.summary;
    let summary = PyDict::new(py);
    summary.set_item("seed", s.seed)?;
    summary.set_item("sim_s", s.sim_s)?;
    summary.set_item("measured_s", s.measured_s)?;
    summary.set_item("wall_s", s.wall_s)?;
    summary.set_item("events", s.events)?;
    summary.set_item("delivered_segments", s.delivered_segments)?;
    summary.set_item("flows", s.flows)?;
    summary.set_item("peak_packets", s.peak_packets)?;
    summary.set_item("engine_version", env!("CARGO_PKG_VERSION"))?;
    let out = PyDict::new(py);
    out.set_item("summary", summary)?;
    let RunResult { flows, udp, queues, hosts, hops, drops, qdisc_stats, series, cwnd, goodput, milestones, wlan, pcap, .. } = r;
    for (name, t) in [("flows", flows), ("udp", udp), ("queues", queues), ("hosts", hosts), ("hops", hops), ("drops", drops), ("qdisc_stats", qdisc_stats), ("series", series), ("cwnd", cwnd), ("goodput", goodput), ("milestones", milestones), ("wlan", wlan)] {
        out.set_item(name, table(py, t)?)?;
    }
    if !pcap.is_empty() {
        let files = PyList::empty(py);
        for f in pcap {
            let d = PyDict::new(py);
            d.set_item("name", f.name)?;
            d.set_item("bytes", PyBytes::new(py, &f.bytes))?;
            d.set_item("packets", f.packets)?;
            d.set_item("missed", f.missed)?;
            files.append(d)?;
        }
        out.set_item("pcap", files)?;
    }
    Ok(out)
}

/// Run one scenario given as an engine-spec JSON string; returns the result dict.
/// `progress(sim_s)`, if given, is called with the simulated time about every 0.2 s of wall time.
#[pyfunction]
#[pyo3(signature = (spec, progress = None))]
fn run_json<'py>(py: Python<'py>, spec: &str, progress: Option<PyObject>) -> PyResult<Bound<'py, PyDict>> {
    // parsed only: building the simulation validates it (once)
    let spec = ScenarioSpec::parse(spec).map_err(PyValueError::new_err)?;
    // Ctrl-C: every CHECK_EVERY events the engine takes the GIL for a moment and lets Python
    // run its signal handlers; KeyboardInterrupt (or any handler's exception) stops the run.
    let mut signal: Option<PyErr> = None;
    let outcome = {
        let signal = &mut signal;
        py.allow_threads(move || {
            catch_unwind(AssertUnwindSafe(move || {
                let mut last = std::time::Instant::now();
                let mut stop = |now: crosslayer_core::units::Time| {
                    Python::with_gil(|py| {
                        if let Err(e) = py.check_signals() {
                            *signal = Some(e);
                            return true;
                        }
                        if let Some(cb) = &progress {
                            if last.elapsed() >= std::time::Duration::from_millis(200) {
                                last = std::time::Instant::now();
                                if let Err(e) = cb.call1(py, (now.secs_f64(),)) {
                                    *signal = Some(e);
                                    return true;
                                }
                            }
                        }
                        false
                    })
                };
                crosslayer_core::run_checked(spec, &mut stop)
            }))
        })
    };
    if let Some(e) = signal {
        return Err(e);
    }
    let result = outcome.map_err(engine_panic)?.map_err(engine_error)?;
    catch_unwind(AssertUnwindSafe(|| to_py(py, result))).map_err(engine_panic)?
}

/// Check an engine-spec JSON string without running it (raises ValueError).
#[pyfunction]
fn validate_json(spec: &str) -> PyResult<()> {
    ScenarioSpec::from_json(spec).map(|_| ()).map_err(PyValueError::new_err)
}

/// The plan of an engine spec (JSON text): `{"problems": [[field, message], ...]}` if it has
/// any, else its graph's nodes and links and every flow's route, ACK route and bottleneck.
#[pyfunction]
fn plan_json(spec: &str) -> PyResult<String> {
    let spec = ScenarioSpec::parse(spec).map_err(PyValueError::new_err)?;
    Ok(spec.plan_json().to_string())
}

/// The graph a topology (engine-spec JSON text) expands to: `{"nodes": [...], "links": [...],
/// "routing": {...}}`, or `{"problems": [[field, message], ...]}` for a preset with invalid
/// parameters.
#[pyfunction]
fn expand_topology(topology: &str) -> PyResult<String> {
    let t: TopologySpec = serde_json::from_str(topology).map_err(|e| PyValueError::new_err(format!("invalid topology: {e}")))?;
    if let TopologySpec::Preset(p, _) = &t {
        let problems = p.validate();
        if !problems.is_empty() {
            return Ok(serde_json::json!({"problems": problems.iter().map(|p| [p.field.clone(), p.message.clone()]).collect::<Vec<_>>()}).to_string());
        }
    }
    Ok(serde_json::to_string(&t.graph()).expect("a graph serializes"))
}

/// The catalog (JSON text): every congestion control and queue discipline with its sources and
/// parameters, the TCP parameters, and the columns of every result table.
#[pyfunction]
fn catalog() -> String {
    crosslayer_core::catalog::catalog_json().to_string()
}

/// Check one configuration (JSON text) of `section` ("cc", "aqm", "topology", "tcp", "limits" or "wlan";
/// the first three with their "kind"): returns its problems as (field, message) pairs, empty if valid. `what` is
/// "all" (ranges, then relations between fields), "ranges" or "relations". The message says
/// what is valid; it does not repeat the value.
#[pyfunction]
#[pyo3(signature = (section, config, what = "all"))]
fn check_config(section: &str, config: &str, what: &str) -> PyResult<Vec<(String, String)>> {
    fn pick<P: Params>(p: &P, what: &str) -> Vec<Problem> {
        match what {
            "ranges" => p.range_problems(),
            "relations" => {
                let mut out = Vec::new();
                p.relations(&mut out);
                out
            }
            _ => p.validate(),
        }
    }
    if !matches!(what, "all" | "ranges" | "relations") {
        return Err(PyValueError::new_err(format!("unknown check {what:?}: use all, ranges or relations")));
    }
    let problems: Vec<Problem> = match section {
        "cc" => serde_json::from_str::<CcConfig>(config).map(|c| if what == "ranges" { c.range_problems() } else { c.validate() }),
        "aqm" => serde_json::from_str::<QdiscConfig>(config).map(|c| if what == "ranges" { c.range_problems() } else { c.validate() }),
        "tcp" => serde_json::from_str::<TcpConfig>(config).map(|c| pick(&c, what)),
        "limits" => serde_json::from_str::<RunLimits>(config).map(|c| pick(&c, what)),
        "wlan" => serde_json::from_str::<crosslayer_core::net::wlan::DcfConfig>(config).map(|c| pick(&c, what)),
        "topology" => serde_json::from_str::<PresetConfig>(config).map(|c| if what == "ranges" { c.range_problems() } else { c.validate() }),
        other => return Err(PyValueError::new_err(format!("unknown section {other:?}: use cc, aqm, topology, tcp, limits or wlan"))),
    }
    .unwrap_or_else(|e| vec![Problem::new("", e.to_string())]);
    Ok(problems.into_iter().map(|p| (p.field, p.message)).collect())
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// How the extension was compiled: "standard", or what `tools/pgo.py` set in `CROSSLAYER_BUILD`:
/// "pgo" (the profile-guided build) or "instrumented" (its training build). The same source
/// gives the same results either way.
#[pyfunction]
fn build() -> &'static str {
    option_env!("CROSSLAYER_BUILD").unwrap_or("standard")
}

/// The engine's source fingerprint (`crosslayer_core::ENGINE_FINGERPRINT`, 16 hex digits).
#[pyfunction]
fn engine_fingerprint() -> &'static str {
    crosslayer_core::ENGINE_FINGERPRINT
}

/// Panic inside Rust on purpose: proves panics arrive as `EngineError` (used by the tests).
#[pyfunction]
fn _trigger_panic(py: Python<'_>) -> PyResult<()> {
    guarded(py, || -> Result<(), String> { panic!("deliberate panic for testing") })
}

/// Panics are caught and become `EngineError` with their message; the default hook would also
/// print to stderr and, with `RUST_BACKTRACE` set, capture a backtrace, which allocates - and
/// deadlocked once memory ran out. This hook stays silent unless `CROSSLAYER_DEBUG_PANICS` is set.
fn quiet_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::env::var_os("CROSSLAYER_DEBUG_PANICS").is_some() {
            default(info);
        }
    }));
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    quiet_panics();
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    m.add("LimitError", m.py().get_type::<LimitError>())?;
    m.add("SimulatorBug", m.py().get_type::<SimulatorBug>())?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(plan_json, m)?)?;
    m.add_function(wrap_pyfunction!(expand_topology, m)?)?;
    m.add_function(wrap_pyfunction!(check_config, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(engine_fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(_trigger_panic, m)?)?;
    Ok(())
}
