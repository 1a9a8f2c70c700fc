"""The engine's catalog: every algorithm, its sources and parameters, and the result tables.

The engine declares each congestion control and queue discipline once, in Rust (name, aliases,
sources, and every parameter with its doc, unit, default and range: see
``crates/crosslayer-core/src/registry.rs``), and exports that declaration here. The Python
package builds its validation (:mod:`crosslayer.scenario`), ``crosslayer list``, the parameter
tables of ``docs/models/`` and its result column lists from it, so a default or a range exists in
one place only.

Parameter values are in the engine's base units (ns, bit/s, bytes); :func:`format_value` writes
them as a study file would (``"5ms"``, ``"100Mbps"``, ``"64KiB"``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from crosslayer.units import format_duration, format_rate, format_size

__all__ = [
    "Algorithm",
    "Bound",
    "Catalog",
    "ColumnInfo",
    "Param",
    "TableInfo",
    "catalog",
    "check",
    "format_value",
    "markdown_params",
]

Family = Literal["cc", "aqm", "topology"]
FAMILY_TITLES: Final[dict[str, str]] = {"cc": "congestion control", "aqm": "queue discipline", "topology": "topology preset"}


@dataclass(frozen=True)
class Param:
    """One parameter as the engine declares it."""

    name: str
    doc: str
    unit: str
    """time, rate, size, packets, count, ratio, number, flag or choice."""
    unit_text: str
    """For ``number``: the unit as text (e.g. ``segments/s^3``)."""
    type: str
    """JSON type in the engine spec: int, float, bool, str."""
    optional: bool
    choices: tuple[str, ...]
    min: int | float | None
    min_exclusive: bool
    max: int | float | None
    max_exclusive: bool
    range: str
    """The range in words, e.g. ``in (0, 1)``, ``>= 1``."""
    default: Any
    default_source: str
    int_max: int | None
    items: dict[str, Any] | None = None
    """Structured parameters (type ``list`` or ``table``): what an element is. ``{"type": "int",
    "int_max": N}`` for a list of scalars; ``{"type": "table", "params": [...]}`` for a list of
    parameter tables; ``{"type": "table", "family": "aqm"}`` for a queue discipline."""

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Param:
        return cls(**{**d, "choices": tuple(d["choices"])})

    @property
    def unit_label(self) -> str:
        """The unit as a reader wants it in a table."""
        return self.unit_text or {"flag": "true/false", "choice": "one of"}.get(self.unit, self.unit)


@dataclass(frozen=True)
class Algorithm:
    """A registered congestion control or queue discipline."""

    family: Family
    name: str
    aliases: tuple[str, ...]
    summary: str
    sources: tuple[str, ...]
    params: tuple[Param, ...]
    extras: dict[str, Any] = field(default_factory=dict)
    """Family specifics: ``needs_ecn``, ``ecn_feedback``, ``full_control``, ``paced``, ``rate_sample``, ``state`` (cc);
    ``reasons``, ``stats``, ``state`` (aqm)."""

    @property
    def names(self) -> tuple[str, ...]:
        """Name and aliases."""
        return (self.name, *self.aliases)

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def defaults(self) -> dict[str, Any]:
        """Parameter defaults, in engine units."""
        return {p.name: p.default for p in self.params}


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    unit: str
    doc: str
    dtype: str


@dataclass(frozen=True)
class TableInfo:
    name: str
    doc: str
    columns: tuple[ColumnInfo, ...]
    dynamic: str = ""
    """What columns follow the fixed ones, if any (algorithm state)."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


@dataclass(frozen=True)
class Bound:
    """A fixed limit of the engine (checked before every run)."""

    name: str
    value: int
    unit: str
    doc: str


@dataclass(frozen=True)
class Catalog:
    cc: dict[str, Algorithm]
    aqm: dict[str, Algorithm]
    topology: dict[str, Algorithm]
    """The topology presets (parking lot, leaf-spine, fat-tree): parameters like an algorithm's."""
    tcp: tuple[Param, ...]
    tcp_profiles: dict[str, dict[str, Any]]
    """Profile name -> the value each profile-dependent TCP option takes (engine units)."""
    limits: tuple[Param, ...]
    """The settable safety limits of a run (a study's ``[limits]`` table)."""
    wlan: tuple[Param, ...]
    """A wireless LAN's 802.11 DCF and PHY parameters (a graph's ``wlans[*].dcf``)."""
    bounds: dict[str, Bound]
    """The fixed limits: max_duration, max_delay, max_rate, max_hosts, max_flows, ..."""
    tables: dict[str, TableInfo]

    def family(self, family: Family) -> dict[str, Algorithm]:
        return {"cc": self.cc, "aqm": self.aqm, "topology": self.topology}[family]

    def lookup(self, family: Family, kind: str) -> Algorithm | None:
        """The algorithm a name or alias (any case) designates."""
        kind = kind.lower()
        return next((a for a in self.family(family).values() if kind in a.names), None)


def _algorithms(family: Family, entries: Iterable[dict[str, Any]]) -> dict[str, Algorithm]:
    common = {"name", "aliases", "summary", "sources", "params"}
    return {
        e["name"]: Algorithm(
            family=family,
            name=e["name"],
            aliases=tuple(e["aliases"]),
            summary=e["summary"],
            sources=tuple(e["sources"]),
            params=tuple(Param.from_json(p) for p in e["params"]),
            extras={k: v for k, v in e.items() if k not in common},
        )
        for e in entries
    }


@functools.cache
def engine() -> Any:
    """The compiled module, held here once: tests may swap ``crosslayer._core`` for a fake engine
    later, but validation keeps using the real catalog and checks."""
    from crosslayer import _core

    return _core


@functools.cache
def catalog() -> Catalog:
    """The engine's catalog (loaded once)."""
    raw = json.loads(engine().catalog())
    tables = {
        name: TableInfo(
            name=name,
            doc=t["doc"],
            columns=tuple(ColumnInfo(**c) for c in t["columns"]),
            dynamic=t.get("dynamic", ""),
        )
        for name, t in raw["tables"].items()
    }
    return Catalog(
        cc=_algorithms("cc", raw["cc"]),
        aqm=_algorithms("aqm", raw["aqm"]),
        topology=_algorithms("topology", raw["topology"]),
        tcp=tuple(Param.from_json(p) for p in raw["tcp"]),
        tcp_profiles=raw["tcp_profiles"],
        limits=tuple(Param.from_json(p) for p in raw["limits"]),
        wlan=tuple(Param.from_json(p) for p in raw.get("wlan", ())),
        bounds={name: Bound(name=name, **b) for name, b in raw["bounds"].items()},
        tables=tables,
    )


def check(section: str, config: dict[str, Any], what: str = "all") -> list[tuple[str, str]]:
    """The engine's own checks of one configuration (engine units): (field, message) pairs.

    ``section`` is ``cc``, ``aqm``, ``topology`` (config with its ``kind``), ``tcp`` or ``limits``; ``what`` is ``all``,
    ``ranges`` or ``relations``. This is the function the engine runs before a simulation, so
    what passes here passes there.
    """
    return list(engine().check_config(section, json.dumps(config), what))


def format_value(param: Param, value: Any) -> str:
    """A parameter value as a study file writes it."""
    if value is None:
        return "unset"
    if isinstance(value, (list, dict)):  # structured parameters: inline, as JSON
        return json.dumps(value, separators=(", ", ": "))
    if isinstance(value, bool):
        return "true" if value else "false"
    if param.unit == "time":
        return format_duration(int(value))
    if param.unit == "rate":
        return format_rate(int(value))
    if param.unit == "size":
        return format_size(int(value))
    if param.unit == "choice":
        return str(value)
    return repr(value) if isinstance(value, float) else str(value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def default_text(p: Param, profiles: dict[str, dict[str, Any]] | None = None) -> str:
    """A parameter's default as a study file writes it; for a profile-dependent TCP option, each
    profile's value."""
    if profiles and all(p.name in values for values in profiles.values()):
        return ", ".join(f"{name} `{format_value(p, values[p.name])}`" for name, values in profiles.items())
    return f"`{format_value(p, p.default)}`"


def markdown_params(params: Sequence[Param], profiles: dict[str, dict[str, Any]] | None = None) -> str:
    """A Markdown table of parameters: name, unit, default (and its source), range, doc."""
    lines = [
        "| parameter | unit | default | valid | description |",
        "|---|---|---|---|---|",
    ]
    for p in params:
        valid = ", ".join(p.choices) if p.choices else ("true, false" if p.unit == "flag" else p.range)
        default = f"{default_text(p, profiles)}: {p.default_source}"
        lines.append(
            f"| `{p.name}` | {_cell(p.unit_label)} | {_cell(default)} | {_cell(valid)} | {_cell(p.doc)} |"
        )
    return "\n".join(lines)


def markdown_algorithm(a: Algorithm) -> str:
    """The generated part of an algorithm's docs page: summary, sources, parameters, outputs."""
    out = [f"`{a.name}`" + (f" (aliases: {', '.join(f'`{x}`' for x in a.aliases)})" if a.aliases else "") + f": {a.summary}.", ""]
    out += ["Sources: " + "; ".join(a.sources) + ".", ""]
    if a.extras.get("naming"):
        out += [f"Naming: {a.extras['naming']}.", ""]
    out += [markdown_params(a.params) if a.params else "No parameters.", ""]
    for key, title in (("reasons", "Drop/mark reasons"), ("stats", "Counters"), ("state", "State in traces")):
        items = a.extras.get(key) or []
        if items:
            out.append(f"{title}: " + "; ".join(f"`{i['name']}` ({i['doc']})" for i in items) + ".")
    flags = [k for k in ("needs_ecn", "full_control", "paced", "rate_sample") if a.extras.get(k)]
    if flags:
        out.append("Declares: " + ", ".join(f"`{k}`" for k in flags) + ".")
    if a.extras.get("ecn_feedback") not in (None, "classic"):
        out.append(f"ECN feedback: `{a.extras['ecn_feedback']}` (unless the flow's `[tcp] ecn_feedback` sets another).")
    return "\n".join(out).rstrip() + "\n"
