"""Type stubs for the compiled engine (crates/crosslayer-py). Contract: docs/design.md."""

from typing import Any, NoReturn

class EngineError(RuntimeError):
    """The engine failed (a Rust panic): a simulator bug, never a scenario error."""

def run_json(spec: str) -> dict[str, Any]:
    """Run the engine spec (JSON text); return ``{"summary": {...}, "flows": {col: [...]}, ...}``.

    Raises ValueError for an invalid spec (naming the field) and EngineError on a panic.
    """

def version() -> str:
    """Version of the engine crate."""

def _trigger_panic() -> NoReturn:
    """Panic inside Rust (raises EngineError); for tests of the error path."""
