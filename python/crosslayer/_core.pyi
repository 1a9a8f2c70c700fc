"""Type stubs for the compiled engine (crates/crosslayer-py). Contract: docs/design.md."""

from typing import Any, NoReturn

class EngineError(RuntimeError):
    """The engine failed (an end-of-run invariant check or a Rust panic): a simulator bug."""

def run_json(spec: str) -> dict[str, Any]:
    """Run an engine spec (JSON text); return ``{"summary": {...}, "flows": {col: [...]}, ...}``.

    Raises ValueError for an invalid spec (naming the field) and EngineError if the engine fails.
    """

def validate_json(spec: str) -> None:
    """Check an engine spec (JSON text) without running it; raises ValueError naming the field."""

def version() -> str:
    """Version of the engine crate."""

def _trigger_panic() -> NoReturn:
    """Panic inside Rust on purpose (raises EngineError); for tests of the error path."""
