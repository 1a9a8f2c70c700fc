"""Type stubs for the compiled engine (crates/crosslayer-py). Contract: docs/design.md."""

from typing import Any, Literal, NoReturn

class EngineError(RuntimeError):
    """The engine failed (an end-of-run invariant check or a Rust panic): a simulator bug."""

def run_json(spec: str) -> dict[str, Any]:
    """Run an engine spec (JSON text); return ``{"summary": {...}, "flows": {col: [...]}, ...}``
    with the tables ``flows, queues, drops, qdisc_stats, series, cwnd`` (see ``catalog()``).

    Raises ValueError for an invalid spec (naming the field) and EngineError if the engine fails.
    """

def validate_json(spec: str) -> None:
    """Check an engine spec (JSON text) without running it; raises ValueError naming the field."""

def catalog() -> str:
    """The catalog as JSON text: ``{"cc": [...], "aqm": [...], "tcp": [...], "tables": {...}}``,
    every algorithm with its sources and parameters (doc, unit, default, range), the TCP
    parameters, and every result table's columns (name, unit, doc, dtype)."""

def check_config(section: Literal["cc", "aqm", "tcp"], config: str, what: Literal["all", "ranges", "relations"] = "all") -> list[tuple[str, str]]:
    """The engine's checks of one configuration (JSON text, engine units; cc and aqm with their
    "kind"): (field, message) pairs, empty if valid."""

def engine_fingerprint() -> str:
    """FNV-1a over the engine crate's sources (16 hex digits): which engine computed a result."""

def version() -> str:
    """Version of the engine crate."""

def _trigger_panic() -> NoReturn:
    """Panic inside Rust on purpose (raises EngineError); for tests of the error path."""
