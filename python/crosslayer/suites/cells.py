"""A suite report's provenance: a sample of the runs its tables came from, recorded beside the
report (``cells.json``) and run again by ``crosslayer suite check``.

A report's numbers go stale when the engine changes what a run gives (a model corrected, a tie
taken in another order) and nobody runs the suite again. The seed pages guard against that with
recorded cells that CI runs again (``validation/seed_pages.py``); this is the same for the suites:

- ``record`` keeps, for each study of the suite, the run with the fewest events for each value
  of each setting it sweeps (the cheapest to run again, and every algorithm and setting the
  study sweeps at least once; ties by key): the full scenario that run was given (the store's
  ``scenario_json``: the study file, its sweep and every override such as ``--quick``, ``--aqm``
  or ``--set`` applied; written as one base scenario a study and each run's changes to it) and
  its run metrics (:func:`crosslayer.metrics.run_row`);
- ``check`` runs each recorded scenario again and compares the metrics. The engine is
  deterministic, so a run that gives the same results gives the same numbers to the last bit; a
  difference means the report was written with another engine's results.

The event count and the wall time are not compared: an optimization may change how many events
a run takes without changing what it gives.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import pandas as pd

    from crosslayer.store import Store

CELLS: Final = "cells.json"
NOT_COMPARED: Final = frozenset({"wall_s", "events"})
"""Run metrics a cell does not record among its metrics: how the engine ran, not what it gave
(the cell's ``events`` is kept apart, to choose the cheap cells)."""


class CellsError(ValueError):
    """A report folder without a readable ``cells.json``."""


@dataclass
class CellCheck:
    """One recorded cell run again."""

    study: str
    key: str
    labels: dict[str, Any]
    events: int
    differences: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    """metric -> (recorded, now), for each metric that differs."""
    error: str | None = None
    """Why the recorded scenario could not be run again (None: it ran)."""

    @property
    def same(self) -> bool:
        return self.error is None and not self.differences


def _plain(v: Any) -> Any:
    """A value of a runs row as JSON holds it: text as text, NumPy's numbers as Python's, NaN as
    None."""
    import numpy as np

    if v is None or isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    f = float(v)
    return None if math.isnan(f) else f


def changes(base: Any, other: Any, path: tuple[Any, ...] = ()) -> list[list[Any]]:
    """The leaves where ``other`` differs from ``base`` (two JSON values), as ``[path, value]``
    pairs: dicts with the same keys and lists of the same length are compared member by member,
    anything else is replaced whole."""
    if isinstance(base, dict) and isinstance(other, dict) and base.keys() == other.keys():
        return [c for k in base for c in changes(base[k], other[k], (*path, k))]
    if isinstance(base, list) and isinstance(other, list) and len(base) == len(other):
        return [c for i, (a, b) in enumerate(zip(base, other)) for c in changes(a, b, (*path, i))]
    return [] if base == other else [[list(path), other]]


def applied(base: Any, pairs: list[list[Any]]) -> Any:
    """``base`` with the ``[path, value]`` pairs of :func:`changes` set (a copy)."""
    out = copy.deepcopy(base)
    for path, value in pairs:
        if not path:
            out = copy.deepcopy(value)
            continue
        node = out
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = copy.deepcopy(value)
    return out


def _picked(runs: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """The runs a study's cells record: for each value of each swept setting (the seed aside),
    the run with that value and the fewest events (ties by key), so that every algorithm and
    setting the study sweeps is run again at least once, at the least cost."""
    ordered = runs.sort_values(["events", "key"], kind="stable")
    keys = {ordered["key"].iloc[0]}
    for c in labels:
        if c != "seed":
            keys.update(ordered.drop_duplicates(c)["key"])
    return ordered[ordered["key"].isin(keys)]


def record(suite: str, stores: Mapping[str, Store], folder: Path) -> Path:
    """Write ``folder/cells.json``: for each study, a base scenario and the runs :func:`_picked`
    chose, each with what its scenario changes in the base and its run metrics."""
    from crosslayer.metrics import METRICS

    names = [m.name for m in METRICS if m.level == "run" and m.compute is not None and m.name not in NOT_COMPARED]
    studies = []
    for study, store in sorted(stores.items()):
        runs = store.runs()
        if runs.empty or "scenario_json" not in runs.columns:
            continue
        labels = [c for c in store.meta().get("columns", {}).values() if c in runs.columns and not str(c).startswith("_")]
        picked = _picked(runs, labels)
        base = json.loads(picked["scenario_json"].iloc[0])
        cells = []
        for row in picked.to_dict(orient="records"):
            cells.append({
                "key": str(row["key"]),
                "labels": {c: _plain(row[c]) for c in labels},
                "engine_version": str(row.get("engine_version", "")),
                "events": int(row["events"]),
                "metrics": {m: _plain(row[m]) for m in names if m in row},
                "changes": changes(base, json.loads(row["scenario_json"])),
            })
        studies.append((study, base, cells))
    # a study's base scenario on one line, then one cell a line: a report written again shows
    # which cells moved
    blocks = []
    for study, base, cells in studies:
        rows = ",\n".join("  " + json.dumps(c, separators=(",", ":")) for c in cells)
        blocks.append(f'{{"study": {json.dumps(study)}, "scenario": {json.dumps(base, separators=(",", ":"))},\n "cells": [\n{rows}\n ]}}')
    path = folder / CELLS
    path.write_text(f'{{"suite": {json.dumps(suite)}, "studies": [\n' + ",\n".join(blocks) + "\n]}\n")
    return path


def load(folder: Path) -> dict[str, Any]:
    """The cells a report folder records; ``CellsError`` says what is wrong with them."""
    path = folder / CELLS
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise CellsError(
            f"{path} does not exist: {folder} holds no report that records its cells; `crosslayer suite run NAME -o FOLDER` "
            "writes one, and `crosslayer suite report NAME FOLDER` writes it again from the suite's stores"
        ) from None
    except (OSError, json.JSONDecodeError) as exc:
        raise CellsError(f"{path} cannot be read ({exc}): write the report again with `crosslayer suite report NAME FOLDER`") from None
    studies = data.get("studies") if isinstance(data, dict) else None
    fields = {"key", "labels", "events", "metrics", "changes"}
    if not isinstance(studies, list) or not all(
        isinstance(st, dict) and {"study", "scenario", "cells"} <= set(st) and isinstance(st["cells"], list)
        and all(isinstance(c, dict) and fields <= set(c) for c in st["cells"]) for st in studies
    ):
        raise CellsError(
            f"{path} is not a cells file (studies, each with a scenario and cells of {', '.join(sorted(fields))}): "
            "write the report again with `crosslayer suite report NAME FOLDER`"
        )
    return data


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)


def check_cell(study: str, base: Any, cell: Mapping[str, Any]) -> CellCheck:
    """Run one recorded cell of ``study`` (base scenario ``base``) again and compare its metrics."""
    import crosslayer
    from crosslayer.metrics import run_row
    from crosslayer.scenario import ScenarioError

    out = CellCheck(study=study, key=str(cell["key"]), labels=dict(cell["labels"] or {}), events=int(cell["events"]))
    try:
        row = run_row(crosslayer.run(applied(base, cell["changes"])))
    except ScenarioError as exc:
        out.error = f"its scenario is not valid any more: {exc}"
        return out
    except crosslayer.EngineError as exc:
        out.error = f"the engine stopped: {exc}"
        return out
    for m, recorded in cell["metrics"].items():
        now = _plain(row.get(m))
        if not _close(recorded, now):
            out.differences[m] = (recorded, now)
    return out


def check(data: Mapping[str, Any], max_events: int | None = None) -> tuple[str, list[CellCheck], int]:
    """Run again the cells ``data`` (:func:`load`) records (those of at most ``max_events``
    events, if given): the suite's name, each cell's check, and how many cells the bound left out."""
    checked, left = [], 0
    for st in data["studies"]:
        for c in st["cells"]:
            if max_events is not None and int(c["events"]) > max_events:
                left += 1
            else:
                checked.append(check_cell(str(st["study"]), st["scenario"], c))
    return str(data.get("suite", "?")), checked, left
