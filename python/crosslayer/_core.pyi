"""Type stubs for the compiled engine (crates/crosslayer-py). Contract: docs/design.md.

``tests/test_architecture.py`` checks them against the compiled module: the same names, and
each function's parameters (names, order and defaults) as the module declares them.
"""

from collections.abc import Callable
from typing import Any, Literal, NoReturn

class EngineError(RuntimeError):
    """The engine stopped without results: a limit reached (LimitError) or a simulator bug
    (SimulatorBug)."""

class LimitError(EngineError):
    """A limit was reached: one the scenario set ([limits] max_events), a fixed one (packets
    alive at once), or the memory for traces or packets. The message names it and the fix."""

class SimulatorBug(EngineError):
    """The engine failed one of its own checks (an identity, conservation) or panicked."""

def run_json(spec: str, progress: Callable[[float], Any] | None = None) -> dict[str, Any]:
    """Run an engine spec (JSON text); return ``{"summary": {...}, "flows": {col: [...]}, ...}``
    with the tables ``flows, udp, queues, hosts, hops, drops, qdisc_stats, series, cwnd`` (see
    ``catalog()``), and with a ``pcap`` spec ``"pcap": [{"name", "bytes", "packets",
    "missed"}, ...]``. ``progress(sim_s)`` is called with the simulated time about every 0.2 s of
    wall time.

    Raises ValueError for an invalid spec (naming the field), LimitError when a limit is
    reached, SimulatorBug if the engine fails, KeyboardInterrupt on Ctrl-C.
    """

def validate_json(spec: str) -> None:
    """Check an engine spec (JSON text) without running it; raises ValueError naming the field."""

def plan_json(spec: str) -> str:
    """The plan of an engine spec (JSON text in, JSON text out): ``{"problems": [[field,
    message], ...]}`` if it has any, else the graph's ``nodes`` and ``links`` and every flow's
    (``flows``, ``udp``) ``route``, ``ack_route`` and ``bottleneck`` link names."""

def expand_topology(topology: str) -> str:
    """The graph a topology (engine-spec JSON text) expands to, as JSON text: ``nodes``,
    ``links`` (from, to, edge, role), ``routing``; or ``{"problems": [...]}`` for a preset with
    invalid parameters."""

def catalog() -> str:
    """The catalog as JSON text: ``{"cc": [...], "aqm": [...], "topology": [...], "tcp": [...],
    "tables": {...}}``, every algorithm and topology preset with its sources and parameters
    (doc, unit, default, range), the TCP parameters, and every result table's columns (name,
    unit, doc, dtype)."""

def check_config(section: Literal["cc", "aqm", "topology", "tcp", "limits"], config: str, what: Literal["all", "ranges", "relations"] = "all") -> list[tuple[str, str]]:
    """The engine's checks of one configuration (JSON text, engine units; cc, aqm and topology
    with their "kind"): (field, message) pairs, empty if valid."""

def engine_fingerprint() -> str:
    """FNV-1a over the engine crate's sources (16 hex digits): which engine computed a result."""

def version() -> str:
    """Version of the bindings crate (the package version)."""

def build() -> str:
    """How the extension was compiled: "standard", "pgo" (profile-guided, ``make pgo``) or
    "instrumented" (that build's training step)."""

def _trigger_panic() -> NoReturn:
    """Panic inside Rust on purpose (raises SimulatorBug); for tests of the error path."""
