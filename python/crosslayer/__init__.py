"""crosslayer: packet-level simulation of TCP congestion control and AQM interactions.

>>> import crosslayer
>>> result = crosslayer.run("studies/seed000-access-link.toml")   # doctest: +SKIP
>>> result.flows[["name", "goodput_bps"]]                          # doctest: +SKIP

The compiled engine (``crosslayer._core``) declares every algorithm and its parameters; the
scenario models and their validation are built from its catalog (:mod:`crosslayer.catalog`), so
importing the package needs the built extension (``pip install -e .`` builds it with maturin).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crosslayer.result import Result
from crosslayer.scenario import Scenario, ScenarioError

if TYPE_CHECKING:
    from crosslayer._core import EngineError

__all__ = ["EngineError", "Result", "Scenario", "ScenarioError", "__version__", "run"]

try:
    __version__ = metadata.version("crosslayer")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"


def run(scenario: Scenario | Mapping[str, Any] | str | Path, progress: Callable[[float], None] | None = None) -> Result:
    """Run one simulation.

    ``scenario`` is a :class:`Scenario`, a TOML-shaped mapping, a path to a study file or TOML
    text. ``progress(sim_s)``, if given, is called with the simulated time about five times a
    second of wall time. Ctrl-C stops the run within milliseconds (``KeyboardInterrupt``).
    Raises :class:`ScenarioError` for an invalid scenario and :class:`EngineError` if the
    engine fails: out of memory, a limit of ``[limits]`` reached, or a simulator bug.
    """
    validated = Scenario.coerce(scenario)
    from crosslayer import _core

    try:
        spec = json.dumps(validated.to_engine_spec())
        raw = _core.run_json(spec, progress) if progress is not None else _core.run_json(spec)
        return Result.from_engine(raw, validated)
    except MemoryError:
        raise _core.EngineError(
            "out of memory while building the result tables: sample less often (sample_interval) "
            "or turn cwnd_trace off"
        ) from None


def __getattr__(name: str) -> Any:
    # EngineError lives in the compiled module; import it only when asked for.
    if name == "EngineError":
        from crosslayer._core import EngineError

        return EngineError
    raise AttributeError(f"module 'crosslayer' has no attribute {name!r}")
