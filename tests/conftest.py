"""Shared fixtures: the source tree on sys.path, a minimal scenario dict, a fake engine."""

from __future__ import annotations

import atexit
import copy
import json
import os
import shutil
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

# the crosscheck's kept runs of the other simulator (crosslayer.crosscheck.cache) in a folder of
# this test session's own: a test never reads a run some earlier session (or the user) kept, and
# a test's stand-in for ns-2 is never kept where a real crosscheck would read it back
os.environ["CROSSLAYER_CROSSCHECK_CACHE"] = _KEPT = tempfile.mkdtemp(prefix="crosslayer-crosscheck-cache-")
atexit.register(shutil.rmtree, _KEPT, ignore_errors=True)

import crosslayer  # noqa: E402
from helpers import MINIMAL, expand_grouped_flows, fake_engine_result  # noqa: E402


@pytest.fixture
def minimal() -> dict[str, Any]:
    """A small valid TOML-shaped scenario dict (a fresh deep copy per test)."""
    return copy.deepcopy(MINIMAL)


class FakeEngineError(RuntimeError):
    """Stands in for crosslayer._core.EngineError."""


@pytest.fixture
def fake_core(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """Install a fake ``crosslayer._core``; ``.specs`` records every spec it was given (its
    grouped flows spelled out, as the engine does)."""
    module = types.ModuleType("crosslayer._core")
    specs: list[dict[str, Any]] = []

    def run_json(spec: str, progress: Any = None) -> dict[str, Any]:
        parsed = expand_grouped_flows(json.loads(spec))
        specs.append(parsed)
        return fake_engine_result(parsed)

    def trigger_panic() -> None:
        raise FakeEngineError("panicked at fake")

    module.run_json = run_json  # type: ignore[attr-defined]
    module.version = lambda: "0.0.0-fake"  # type: ignore[attr-defined]
    module.engine_fingerprint = lambda: "0000000000000000"  # type: ignore[attr-defined]
    module.build = lambda: "standard"  # type: ignore[attr-defined]
    module.EngineError = FakeEngineError  # type: ignore[attr-defined]
    module._trigger_panic = trigger_panic  # type: ignore[attr-defined]
    module.specs = specs  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "crosslayer._core", module)
    monkeypatch.setattr(crosslayer, "_core", module, raising=False)
    return module
