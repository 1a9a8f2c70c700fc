"""Studies: a base scenario plus axes to vary, expanded into points, each run keyed by a hash.

A study file is a scenario (every field of a study file, see ``studies/``) plus a ``[study]``
table::

    [study]
    name = "aqm-vs-cc"            # optional; the scenario's name otherwise
    mode = "product"              # or "points": the explicit list in [[study.points]] (times
                                  # the axes, if any: each point with every combination)
    seeds = [1, 2, 3]             # replications (the seed axis); or replicates = 3

    [study.axes]
    "flows[*].cc" = ["cubic", "reno"]              # a list of values
    "flows[*].per_pair" = [1, 10]
    "topology.bottleneck.qdisc" = { droptail = { kind = "droptail", limit_pkts = 900 },
                                    codel = { kind = "codel" } }    # named values (whole tables)

A path names a field as the study file does: dotted keys, ``[i]`` for one element of a list,
``[*]`` for every element. Setting a path's ``kind`` to another algorithm keeps only the
parameters the new one accepts. :func:`apply_overrides` applies such paths to a
:class:`Scenario` (the CLI's ``--set path=value`` and :meth:`Scenario.with_overrides` use it).
The paths ``study.seeds`` and ``study.replicates`` set the replications instead (``--set
study.seeds=5`` runs every point with seeds 1..5; ``--set study.seeds=1,2,3`` those three).

Each point's key is a hash of its engine spec (the normalized configuration) and the engine
version, so a point is the same run wherever and whenever it is computed; a store
(:mod:`crosslayer.store`) skips the keys it holds.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from crosslayer.catalog import catalog
from crosslayer.metrics import RESERVED as METRIC_RESERVED
from crosslayer.paths import StudyError, _tokens, parse_cli_value, set_path, split_paths
from crosslayer.scenario import Scenario
from crosslayer.scenario.model import read_toml
from crosslayer.scenario.fields import _SCENARIO_NAME, MAX_NAME
from crosslayer.units import show
from crosslayer.version import engine_version

__all__ = ["Axis", "Point", "Study", "StudyError", "apply_overrides", "column_names", "engine_version", "parse_cli_value", "set_path"]

def apply_overrides(scenario: Scenario, overrides: Mapping[str, Any], source: str | None = None) -> Scenario:
    """A re-validated copy of ``scenario`` with every ``path = value`` of ``overrides`` set
    (:meth:`Scenario.with_paths`)."""
    return scenario.with_paths(overrides, source=source)


def _label(value: Any) -> Any:
    """A column value for a swept parameter: scalars as they are, tables as JSON."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return json.dumps(value, sort_keys=True)


RESERVED: Final = METRIC_RESERVED
"""Column names of the ``runs`` table an axis column yields to (its fixed columns and every
metric's name, :mod:`crosslayer.metrics`)."""

AXIS_SUFFIX: Final = "_axis"
"""What an axis column's name takes when a result column has that name (``cc`` -> ``cc_axis``)."""


def _taken() -> set[str]:
    """Names an axis column yields to: the runs table's and every result table's columns."""
    return set(RESERVED) | {c.name for t in catalog().tables.values() for c in t.columns}


def column_names(paths: Sequence[str], named: Mapping[str, str] | None = None) -> dict[str, str]:
    """The column of each path in the result tables: its name in ``named`` (``[study.columns]``),
    else a short, SQL-friendly one: its last field name, lengthened with the fields before it
    (joined by ``_``) while it collides with another path's, a named column or a result table's
    column (``flows[*].cc`` -> ``flows_cc``, since ``flows`` has a ``cc``). A name that is still a
    result table's column (a named one, a path used up, or a column the engine added since)
    takes ``_axis`` (``flows`` -> ``flows_axis``): result columns keep their names in every
    store, so an axis never refuses a study the engine's new columns would clash with. Raises
    StudyError if two axes get one name (name them in ``[study.columns]``)."""
    return _column_names(paths, named)[0]


def _column_names(paths: Sequence[str], named: Mapping[str, str] | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """:func:`column_names`, and path -> the name it wanted, for each column that took ``_axis``."""
    taken = _taken()
    chosen = {p: named[p] for p in paths if named and p in named}
    names = {p: [t for t in _tokens(split_paths(p)[0]) if isinstance(t, str)] for p in paths}
    out: dict[str, str] = {}
    for p, parts in names.items():
        if p in chosen or p == "seed":
            out[p] = chosen.get(p, "seed")
            continue
        n = 1
        while True:
            cand = "_".join(parts[-n:])
            others = {"_".join(q[-n:]) for o, q in names.items() if o != p}
            if (cand not in taken and cand not in others and cand not in chosen.values()) or n >= len(parts):
                break
            n += 1
        out[p] = cand
    twice = next((c for c in out.values() if list(out.values()).count(c) > 1), None)
    if twice is not None:
        which = [p for p, c in out.items() if c == twice]
        raise StudyError(f"the axes {which[0]!r} and {which[1]!r} both get the column name {twice!r}; name one in [study.columns], e.g. {which[-1]!r} = \"{twice}_2\"")
    wanted: dict[str, str] = {}
    for p, name in out.items():
        if name in taken and p != "seed":
            alt, i = name + AXIS_SUFFIX, 2
            while alt in taken or alt in out.values():
                alt, i = f"{name}{AXIS_SUFFIX}{i}", i + 1
            wanted[p], out[p] = name, alt
    return out, wanted


DEFAULT_MAX_POINTS: Final = 10_000
"""The most points a study may have unless its ``[study] max_points`` says more: every point is
validated before anything runs (tens of milliseconds each), so a typo such as ``replicates =
10_000_000`` fails at once instead of validating for hours."""

MAX_POINTS_LIMIT: Final = 1_000_000
"""The largest ``max_points`` a study may set."""

STUDY_FIELDS: Final = ("name", "mode", "seeds", "replicates", "axes", "points", "columns", "max_points")
"""The fields of a ``[study]`` table."""

_SEED_MAX: Final = 2**64


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class _StudySpec:
    """A checked ``[study]`` table (every problem is reported at once, by field)."""

    raw: dict[str, Any]
    name: str | None
    mode: Literal["product", "points"]
    seeds: tuple[int, ...] | int | None
    """The listed seeds, or N for ``seeds = N`` (seeds 1..N)."""
    replicates: int | None
    axes: dict[str, Any]
    points: tuple[dict[str, Any], ...]
    columns: dict[str, str]
    max_points: int

    @classmethod
    def parse(cls, spec: Any, label: str) -> _StudySpec:
        problems: list[tuple[str, str]] = []

        def bad(field: str, message: str) -> None:
            problems.append((f"study.{field}" if field else "[study]", message))

        if not isinstance(spec, dict):
            raise StudyError(f"{label}: [study] must be a table, e.g. [study] with seeds = [1, 2, 3] (got {show(spec)})")
        for key in spec:
            if key not in STUDY_FIELDS:
                close = difflib.get_close_matches(str(key), STUDY_FIELDS, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                bad("", f"has no field {key!r}; {hint}its fields are {', '.join(STUDY_FIELDS)}")
        name = spec.get("name")
        if name is not None and not (isinstance(name, str) and _SCENARIO_NAME.match(name) and len(name) <= MAX_NAME):
            bad("name", f"must be one safe folder name (it names the store results/<name>): letters, digits, '.', '_' and '-', "
                f"starting with a letter or digit, at most {MAX_NAME} characters (got {show(name)})")
        mode = spec.get("mode", "points" if spec.get("points") else "product")
        if mode not in ("product", "points"):
            bad("mode", f'must be "product" or "points" (got {show(mode)})')
        seeds: tuple[int, ...] | int | None = None
        raw_seeds = spec.get("seeds")
        if "seeds" in spec:
            if _is_int(raw_seeds):
                if raw_seeds < 1:
                    bad("seeds", f"must be a list of seeds, e.g. [1, 2, 3], or a count N >= 1 (seeds 1..N) (got {show(raw_seeds)})")
                else:
                    seeds = raw_seeds
            elif isinstance(raw_seeds, list) and raw_seeds:
                wrong = [v for v in raw_seeds if not (_is_int(v) and 0 <= v < _SEED_MAX)]
                if wrong:
                    bad("seeds", f"each seed must be an integer in [0, 2^64), e.g. [1, 2, 3] (got {show(wrong[0])})")
                elif len(set(raw_seeds)) != len(raw_seeds):
                    bad("seeds", f"lists a seed twice (got {show(raw_seeds)})")
                else:
                    seeds = tuple(raw_seeds)
            else:
                bad("seeds", f"must be a list of integer seeds, e.g. [1, 2, 3], or a count N (seeds 1..N) (got {show(raw_seeds)})")
        replicates = spec.get("replicates")
        if "replicates" in spec and not (_is_int(replicates) and replicates >= 1):
            bad("replicates", f"must be a whole number of runs >= 1 (seeds seed, seed + 1, ...) (got {show(replicates)})")
            replicates = None
        if "seeds" in spec and "replicates" in spec:
            bad("replicates", "give study.seeds or study.replicates, not both")
        max_points = spec.get("max_points", DEFAULT_MAX_POINTS)
        if not (_is_int(max_points) and 1 <= max_points <= MAX_POINTS_LIMIT):
            bad("max_points", f"must be a whole number in [1, {MAX_POINTS_LIMIT:,}] (got {show(max_points)})")
            max_points = DEFAULT_MAX_POINTS
        axes = spec.get("axes", {})
        if not isinstance(axes, dict):
            bad("axes", f'must be a table of path = [values], e.g. "flows[*].cc" = ["cubic", "reno"] (got {show(axes)})')
            axes = {}
        for path, values in axes.items():
            try:
                for one in split_paths(path):
                    _tokens(one)
            except StudyError as exc:
                bad(f"axes.{path!r}", str(exc))
            if isinstance(values, dict):
                if not values:
                    bad(f"axes.{path!r}", "has no values")
            elif isinstance(values, list):
                if not values:
                    bad(f"axes.{path!r}", "has no values")
            else:
                bad(f"axes.{path!r}", f"must be a list of values or a table of named values (got {show(values)})")
        points = spec.get("points", [])
        if not isinstance(points, list):
            bad("points", f"must be a list of tables of path = value ([[study.points]]) (got {show(points)})")
            points = []
        for i, p in enumerate(points):
            if not isinstance(p, dict) or not p:
                bad(f"points[{i}]", f"must be a table of path = value, e.g. {{ \"flows[*].cc\" = \"reno\" }} (got {show(p)})")
                continue
            for path in p:
                try:
                    for one in split_paths(path):
                        _tokens(one)
                except StudyError as exc:
                    bad(f"points[{i}]", str(exc))
        if mode == "points" and not points and not problems:
            bad("mode", '"points" needs [[study.points]] tables of path = value')
        if mode == "points" and axes:
            # points times axes: every explicit point with every combination of the axes, so a
            # point may not set what an axis sweeps
            for i, p in enumerate(points):
                both = [path for path in p if path in axes] if isinstance(p, dict) else []
                if both:
                    bad(f"points[{i}]", f"sets {both[0]!r}, which an axis sweeps: each point runs with every value of the axes; set it in the points or in the axes, not both")
        columns = spec.get("columns", {})
        if not isinstance(columns, dict) or not all(isinstance(v, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v) for v in columns.values()):
            bad("columns", 'maps a path to a column name (letters, digits, _), e.g. "flows" = "tcp"')
            columns = {}
        if problems:
            lines = [f"{where}: {message}" for where, message in problems]
            raise StudyError(f"{label}: " + lines[0] if len(lines) == 1 else f"{label}: {len(lines)} problems in [study]:\n" + "\n".join(f"  {line}" for line in lines))
        return cls(dict(spec), name, mode, seeds, replicates, dict(axes), tuple(dict(p) for p in points), dict(columns), max_points)

    def seed_count(self) -> int:
        """How many seeds each assignment runs with (0: the base scenario's seed only)."""
        if isinstance(self.seeds, int):
            return self.seeds
        if self.seeds is not None:
            return len(self.seeds)
        return self.replicates or 0

    def seed_values(self, base_seed: int) -> tuple[int, ...]:
        if isinstance(self.seeds, int):
            return tuple(range(1, self.seeds + 1))
        if self.seeds is not None:
            return self.seeds
        if self.replicates:
            if base_seed + self.replicates > _SEED_MAX:
                raise StudyError(f"study.replicates: seeds {base_seed} + 0..{self.replicates - 1} pass 2^64; lower the scenario's seed")
            return tuple(base_seed + i for i in range(self.replicates))
        return ()


def _toml_ready(value: Any) -> Any:
    """``value`` as TOML can write it: no None (a missing key), tuples as lists."""
    if isinstance(value, Mapping):
        return {str(k): _toml_ready(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_toml_ready(v) for v in value if v is not None]
    return value


@dataclass(frozen=True)
class Axis:
    """One swept field: its path, and its values as (label, value) pairs."""

    path: str
    values: tuple[tuple[Any, Any], ...]


@dataclass(frozen=True)
class Point:
    """One run of a study: the labels of its axis values, its scenario and its key."""

    labels: dict[str, Any]
    scenario: Scenario
    key: str = field(default="")

    @staticmethod
    def key_of(scenario: Scenario) -> str:
        spec = json.dumps(scenario.to_engine_spec(compact=True), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(f"{engine_version()}\n{spec}".encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Study:
    """A base scenario and its axes (see the module docs)."""

    name: str
    base: Scenario
    axes: tuple[Axis, ...]
    mode: Literal["product", "points"] = "product"
    explicit: tuple[dict[str, Any], ...] = ()
    seeds: tuple[int, ...] = ()
    text: str = ""
    names: dict[str, str] = field(default_factory=dict)
    """Column names chosen in the file (``[study.columns]``), by path."""

    @classmethod
    def from_toml(cls, source: str | Path, overrides: Mapping[str, Any] | None = None) -> Study:
        """Load a study file (a path or TOML text); ``overrides`` (path -> value, or a list of
        values to sweep) are applied to the base or added as axes. A file that cannot be read as
        a study file (not UTF-8, not TOML) raises ScenarioError, as ``Scenario.from_toml`` does;
        OSError if it cannot be read at all."""
        label, text, data = read_toml(source, "<study>")
        return cls.from_dict(data, label=label, overrides=overrides, text=text)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], label: str = "<study>", overrides: Mapping[str, Any] | None = None, text: str = "") -> Study:
        """A study from a TOML-shaped mapping (a scenario plus a ``[study]`` table). Every point is
        validated now, so a bad value fails before anything runs; ``StudyError`` names the field.
        Without ``text`` (a study built in Python), the store gets the mapping written as TOML."""
        data = dict(data)
        table = data.pop("study", {})
        # `study.seeds`, `study.replicates`, ... given as overrides set the [study] table itself
        # (`--set study.seeds=5`: every point with seeds 1..5, without editing the file)
        own = {path[len("study.") :]: value for path, value in (overrides or {}).items() if path.startswith("study.")}
        if own:
            unknown = sorted(set(own) - {"seeds", "replicates", "max_points", "name"})
            if unknown:
                raise StudyError(f"{label}: --set study.{unknown[0]}: only study.seeds, study.replicates, study.max_points and study.name can be set from the command line")
            table = dict(table) if isinstance(table, dict) else table
            if isinstance(table, dict):
                if "seeds" in own or "replicates" in own:
                    table.pop("seeds", None)
                    table.pop("replicates", None)
                table.update(own)
            overrides = {path: value for path, value in (overrides or {}).items() if not path.startswith("study.")}
        spec = _StudySpec.parse(table, label)
        axes_spec = dict(spec.axes)
        points = spec.points
        for path, value in (overrides or {}).items():
            values = value if isinstance(value, list) else [value]
            axis = axes_spec.get(path)
            if spec.mode == "points" and any(path in p for p in points):
                # a path the explicit points set: one value replaces theirs (the points keep
                # their other fields); several would have to be crossed with every point
                if len(values) > 1:
                    raise StudyError(f"{label}: --set {path}: the study's [[study.points]] set it; give one value (it replaces theirs), not {len(values)}")
                points = tuple({k: (values[0] if k == path else v) for k, v in p.items()} for p in points)
            elif axis is not None:
                # an override of an axis narrows it (one value or several) and keeps its column,
                # so that a store's runs from several invocations stay distinguishable; the
                # names of a table of named values pick those values
                if isinstance(axis, dict) and all(isinstance(v, str) and v in axis for v in values):
                    axes_spec[path] = {v: axis[v] for v in values}
                else:
                    axes_spec[path] = values
            elif len(values) > 1 or any(path.startswith((a + ".", a + "[")) for a in axes_spec):
                # several values sweep the path; one value inside what an axis sets (`flows[1].start`
                # under an axis of whole `flows` lists) is applied after that axis, as a one-value
                # axis: set in the base, the axis would overwrite it
                axes_spec[path] = values
            else:
                set_path(data, path, values[0])  # a field no axis sweeps: set in the base
        base = Scenario.from_dict(data, source=label)
        axes = tuple(Axis(path, tuple(values.items()) if isinstance(values, dict) else tuple((_label(v), v) for v in values)) for path, values in axes_spec.items())
        mode = spec.mode
        assignments = (len(points) if mode == "points" else 1) * math.prod(len(a.values) for a in axes)
        n_seeds = spec.seed_count()
        if assignments * max(n_seeds, 1) > spec.max_points:
            shape = " x ".join([f"{len(points)} points"] * (mode == "points") + [str(len(a.values)) for a in axes]) or "1 point"
            raise StudyError(
                f"{label}: study has {assignments * max(n_seeds, 1):,} points ({shape}"
                + (f" x {n_seeds:,} seeds" if n_seeds else "")
                + f"), more than study.max_points = {spec.max_points:,}: every point is validated before anything runs "
                "(tens of milliseconds each) and is a run; sweep fewer values, or raise the cap with [study] max_points = N"
            )
        seeds = spec.seed_values(base.seed)
        if not text:
            import tomli_w

            text = tomli_w.dumps(_toml_ready({**data, "study": spec.raw}))
        study = cls(spec.name or base.name, base, axes, mode, points, seeds, text, dict(spec.columns))
        # validate every point now (and keep them): a bad value fails before anything runs
        object.__setattr__(study, "_cached_points", study._expand())
        return study

    def _assignments(self) -> Iterator[dict[str, tuple[Any, Any]]]:
        """Each point as {path: (label, value)}, before seeds."""
        if self.mode == "points":
            for p in self.explicit:
                for combo in itertools.product(*(a.values for a in self.axes)):
                    yield {**{path: (_label(v), v) for path, v in p.items()}, **{a.path: pair for a, pair in zip(self.axes, combo)}}
            return
        if not self.axes:
            yield {}
            return
        for combo in itertools.product(*(a.values for a in self.axes)):
            yield {a.path: pair for a, pair in zip(self.axes, combo)}

    def points(self) -> list[Point]:
        """Every point: the product of the axes (or the explicit list), times the seeds."""
        cached: list[Point] | None = getattr(self, "_cached_points", None)
        return list(cached) if cached is not None else self._expand()

    def _expand(self) -> list[Point]:
        out: list[Point] = []
        seeds: Sequence[int | None] = self.seeds or (None,)
        names = self.columns
        for assignment in self._assignments():
            for seed in seeds:
                overrides = {path: value for path, (_, value) in assignment.items()}
                if seed is not None:
                    overrides["seed"] = seed
                try:
                    scenario = apply_overrides(self.base, overrides, source=f"{self.name} point {', '.join(f'{k}={_label(v)}' for k, v in overrides.items())}")
                except StudyError as exc:
                    raise StudyError(f"study {self.name!r}: {exc}") from None
                labels = {names[path]: label for path, (label, _) in assignment.items()}
                labels["seed"] = scenario.seed
                out.append(Point(labels, scenario, Point.key_of(scenario)))
        return out

    @property
    def paths(self) -> list[str]:
        """The swept paths, in axis order (or in the order the explicit points name them)."""
        if self.mode == "points":
            cols: list[str] = []
            for p in self.explicit:
                cols += [k for k in p if k not in cols]
            return cols + [a.path for a in self.axes]
        return [a.path for a in self.axes]

    @property
    def levels(self) -> dict[str, list[Any]]:
        """Column -> its values in the study's order (axis order, or first appearance)."""
        cols = self.columns
        out: dict[str, list[Any]] = {}
        for assignment in self._assignments():
            for path, (label, _) in assignment.items():
                lv = out.setdefault(cols[path], [])
                if label not in lv:
                    lv.append(label)
        return out

    @property
    def columns(self) -> dict[str, str]:
        """Path -> column name of each swept field in result tables (:func:`column_names`), then
        ``seed``."""
        try:
            cols = column_names(self.paths, self.names)
        except StudyError as exc:
            raise StudyError(f"study {self.name!r}: {exc}") from None
        return {**cols, "seed": "seed"}

    @property
    def column_notes(self) -> list[str]:
        """A sentence for each axis column whose name a result column has, saying what it is
        called instead (the CLI prints them)."""
        cols, wanted = _column_names(self.paths, self.names)
        return [f"the axis {p!r}: {name!r} is a result column's name, so its column is {cols[p]!r}" for p, name in wanted.items()]
