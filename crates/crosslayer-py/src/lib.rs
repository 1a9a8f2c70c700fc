//! PyO3 bindings for crosslayer-core: JSON engine spec in, plain Python objects out.
//!
//! Error mapping: an invalid spec raises `ValueError` naming the field; a failed end-of-run check
//! (conservation, queue identities) or a Rust panic raises `crosslayer._core.EngineError`
//! (a `RuntimeError`), never aborting the interpreter. The GIL is released while Rust runs.

use crosslayer_core::result::{Column, Table};
use crosslayer_core::{RunResult, ScenarioSpec, Sim};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(_core, EngineError, PyRuntimeError, "The engine failed: an internal check or a bug (panic).");

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// Run `f` with the GIL released, turning a panic into `EngineError`.
fn guarded<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, String> + Send) -> PyResult<T> {
    py.allow_threads(|| catch_unwind(AssertUnwindSafe(f)))
        .map_err(|p| EngineError::new_err(format!("internal error (Rust panic): {}", panic_message(p))))?
        .map_err(EngineError::new_err)
}

fn table<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in &t.columns {
        match col {
            Column::F64(v) => d.set_item(name, v)?,
            Column::U64(v) => d.set_item(name, v)?,
            Column::Str(v) => d.set_item(name, v)?,
        }
    }
    Ok(d)
}

fn to_py<'py>(py: Python<'py>, r: &RunResult) -> PyResult<Bound<'py, PyDict>> {
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
    out.set_item("flows", table(py, &r.flows)?)?;
    out.set_item("queues", table(py, &r.queues)?)?;
    out.set_item("series", table(py, &r.series)?)?;
    out.set_item("cwnd", table(py, &r.cwnd)?)?;
    Ok(out)
}

/// Run one scenario given as an engine-spec JSON string; returns the result dict.
#[pyfunction]
fn run_json<'py>(py: Python<'py>, spec: &str) -> PyResult<Bound<'py, PyDict>> {
    let spec = ScenarioSpec::from_json(spec).map_err(PyValueError::new_err)?;
    let result = guarded(py, move || Sim::new(spec)?.run())?;
    to_py(py, &result)
}

/// Check an engine-spec JSON string without running it (raises ValueError).
#[pyfunction]
fn validate_json(spec: &str) -> PyResult<()> {
    ScenarioSpec::from_json(spec).map(|_| ()).map_err(PyValueError::new_err)
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Panic inside Rust on purpose: proves panics arrive as `EngineError` (used by the tests).
#[pyfunction]
fn _trigger_panic(py: Python<'_>) -> PyResult<()> {
    guarded(py, || -> Result<(), String> { panic!("deliberate panic for testing") })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(_trigger_panic, m)?)?;
    Ok(())
}
