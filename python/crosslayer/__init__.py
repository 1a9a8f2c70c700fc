"""crosslayer: packet-level simulation of TCP congestion control and AQM interactions.

>>> import crosslayer
>>> result = crosslayer.run("studies/seed000-access-link.toml")   # doctest: +SKIP
>>> result.flows[["name", "goodput_bps"]]                          # doctest: +SKIP
>>> store = crosslayer.run_study("studies/seed000-matrix.toml", "results/m")   # doctest: +SKIP
>>> store.runs()[["topology", "tcp", "load", "aqm", "jain"]]                    # doctest: +SKIP

The compiled engine (``crosslayer._core``) declares every algorithm and its parameters; the
scenario models and their validation are built from its catalog (:mod:`crosslayer.catalog`), so
importing the package needs the built extension (``pip install -e .`` builds it with maturin).
Importing it is cheap: the modules behind ``Result``, ``Scenario``, ``Store`` and ``Study`` (and
pandas, NumPy, pydantic) load when first used, so ``crosslayer --version`` and ``-h`` start fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crosslayer._core import EngineError, LimitError, SimulatorBug
    from crosslayer.result import Result
    from crosslayer.scenario import Scenario, ScenarioError
    from crosslayer.store import Store
    from crosslayer.study import Study

__all__ = ["EngineError", "LimitError", "Result", "Scenario", "ScenarioError", "SimulatorBug", "Store", "Study", "__version__", "run", "run_study"]


def _package_version() -> str:
    """The package version: the one maturin gives the wheel, from the bindings crate's
    ``Cargo.toml`` (read from the compiled module, which is cheaper than the package metadata)."""
    from crosslayer import _core

    return str(_core.version())


def run(scenario: Scenario | Mapping[str, Any] | str | Path, progress: Callable[[float], None] | None = None) -> Result:
    """Run one simulation.

    ``scenario`` is a :class:`Scenario`, a TOML-shaped mapping, a path to a study file or TOML
    text. ``progress(sim_s)``, if given, is called with the simulated time about five times a
    second of wall time. Ctrl-C stops the run within milliseconds (``KeyboardInterrupt``).
    Raises :class:`ScenarioError` for an invalid scenario, :class:`LimitError` when a limit is
    reached (``[limits] max_events``, packets alive at once, memory for traces or packets; the
    message names it and the fix) and :class:`SimulatorBug` when the engine fails one of its own
    checks (both are :class:`EngineError`); Ctrl-C raises ``KeyboardInterrupt``.
    """
    from crosslayer import _core
    from crosslayer.result import Result, out_of_memory
    from crosslayer.scenario import Scenario

    validated = Scenario.coerce(scenario)

    try:
        spec = json.dumps(validated.to_engine_spec(compact=True))
        raw = _core.run_json(spec, progress) if progress is not None else _core.run_json(spec)
        return Result.from_engine(raw, validated)  # its tables are built when read
    except MemoryError:
        raise out_of_memory() from None


def run_study(
    study: Study | str | Path,
    store: Store | str | Path | None = None,
    *,
    overrides: Mapping[str, Any] | None = None,
    workers: int | None = None,
    client: Any = None,
) -> Store:
    """Run every point of a study that ``store`` does not hold yet; returns the store.

    ``study`` is a :class:`Study`, a path to a study file or its TOML text; ``overrides`` (path
    -> value, or a list of values to sweep) as ``crosslayer study run --set``. ``store``
    defaults to ``results/<study name>``. ``workers`` local processes (default: every core),
    or ``client``, a ``dask.distributed.Client``. Failed points raise :class:`RuntimeError`
    naming them after the others are stored; Ctrl-C raises ``KeyboardInterrupt`` with the
    finished runs kept (the next call resumes).
    """
    from crosslayer.store import Store
    from crosslayer.study import Study
    from crosslayer.sweep import run_study as sweep

    if not isinstance(study, Study):
        study = Study.from_toml(study, overrides=overrides)
    elif overrides:
        raise ValueError("overrides apply when loading a study file; pass the path or text instead of a Study")
    target = store if isinstance(store, Store) else Store(store if store is not None else Path("results") / study.name)
    report = sweep(study, target, workers=workers, client=client)
    if report.interrupted:
        raise KeyboardInterrupt(f"interrupted: {report.ran} runs stored in {target.root}; run again to resume")
    if report.failed:
        lines = "; ".join(f"{k} {labels}: {err}" for k, labels, err in report.failed[:5])
        raise RuntimeError(f"{len(report.failed)} of {report.total} points failed ({lines})")
    return target


_LAZY: dict[str, str] = {
    "EngineError": "crosslayer._core",
    "LimitError": "crosslayer._core",
    "SimulatorBug": "crosslayer._core",
    "Result": "crosslayer.result",
    "Scenario": "crosslayer.scenario",
    "ScenarioError": "crosslayer.scenario",
    "Store": "crosslayer.store",
    "Study": "crosslayer.study",
}


def __getattr__(name: str) -> Any:
    # The public classes load with their modules when first asked for (cheap start-up).
    if name == "__version__":
        globals()["__version__"] = value = _package_version()
        return value
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        if _LAZY[name] != "crosslayer._core":  # the compiled module's classes are looked up each time (tests swap it)
            globals()[name] = value
        return value
    raise AttributeError(f"module 'crosslayer' has no attribute {name!r}")
