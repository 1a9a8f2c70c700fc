"""Finite-flow workloads: flow-size distributions (fixed, exponential, Pareto, lognormal, an
empirical CDF from a file, and the web-search and data-mining CDFs shipped with crosslayer) and
``[[arrivals]]`` groups, finite TCP flows arriving as a Poisson process at a load of a link. The
engine draws the arrivals and the sizes (``traffic/workload.rs``); this module validates the
study file's tables and reads the CDF files."""

from __future__ import annotations

import csv
import math
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Final, Literal, NamedTuple

from pydantic import BeforeValidator, Discriminator, Tag, model_validator

from crosslayer.scenario.algorithms import _CC, CcConfig, TcpConfig, _tag_by
from crosslayer.scenario.errors import _TAG, Loc, _error, _Model, _raise_problems
from crosslayer.scenario.fields import Dscp, Duration, NodeList, Port, Size, read_parsed
from crosslayer.scenario.flows import Pairs
from crosslayer.units import show

DATA: Final = Path(__file__).resolve().parents[1] / "data" / "workloads"
BUILTIN_CDFS: Final = ("websearch", "datamining")
"""Empirical CDFs shipped with crosslayer (``data/workloads/<name>.csv``, sources in each)."""
MAX_FLOW_BYTES: Final = 1_000_000_000_000
MAX_CDF_POINTS: Final = 10_000


class CdfError(ValueError):
    """A CDF file or table that is not a CDF; the message names the line or point."""


def parse_cdf(text: str, where: str) -> list[tuple[float, float]]:
    """(bytes, cumulative probability) points from CSV text: lines ``bytes,probability`` (or
    separated by blanks), ``#`` comments and one optional header line; checked as the engine
    checks them."""
    points: list[tuple[float, float]] = []
    header_seen = False
    for n, line in enumerate(text.splitlines(), start=1):
        stripped = line.split("#", 1)[0].strip()
        if not stripped:
            continue
        cells = [c for c in stripped.replace(",", " ").split() if c]
        try:
            if len(cells) != 2:
                raise ValueError
            x, p = float(cells[0]), float(cells[1])
        except ValueError:
            if not points and not header_seen:
                header_seen = True
                continue
            raise CdfError(f"{where} line {n}: {show(line.strip())} is not 'bytes,probability'") from None
        points.append((x, p))
        if len(points) > MAX_CDF_POINTS:
            raise CdfError(f"{where}: more than {MAX_CDF_POINTS} points")
    check_cdf(points, where)
    return points


def check_cdf(points: list[tuple[float, float]], where: str) -> None:
    """Raise CdfError unless ``points`` is a CDF: at least two, sizes and probabilities
    non-decreasing, probabilities in [0, 1] ending at 1, sizes in [0, 1 TB]."""
    if len(points) < 2:
        raise CdfError(f"{where}: a CDF needs at least two (bytes, probability) points")
    for i, (x, p) in enumerate(points):
        if not (math.isfinite(x) and 0 <= x <= MAX_FLOW_BYTES) or not 0 <= p <= 1:
            raise CdfError(f"{where} point {i + 1} ({x:g}, {p:g}): sizes are in [0, 1 TB] and probabilities in [0, 1]")
        if i and (x < points[i - 1][0] or p < points[i - 1][1]):
            raise CdfError(f"{where} point {i + 1} ({x:g}, {p:g}) is below point {i} {points[i - 1]}: a CDF is non-decreasing in both; sort the points by size")
    if abs(points[-1][1] - 1) > 1e-9:
        raise CdfError(f"{where}: the last point's probability is {points[-1][1]:g}; a CDF reaches 1 (add the largest size with probability 1)")
    if points[-1][0] < 1:
        raise CdfError(f"{where}: every size would be 0 bytes; a flow sends at least 1 B")


@cache
def builtin_cdf(name: str) -> tuple[tuple[float, float], ...]:
    """A shipped CDF by name."""
    path = DATA / f"{name}.csv"
    return tuple(parse_cdf(path.read_text(), path.name))


def cdf_mean(points: list[tuple[float, float]] | tuple[tuple[float, float], ...]) -> float:
    """Mean of a piecewise-linear CDF (an atom at the first point, then trapezoids)."""
    m = points[0][0] * points[0][1]
    for (x0, p0), (x1, p1) in zip(points, points[1:]):
        m += (p1 - p0) * (x0 + x1) / 2
    return m


SizeKind = Literal["fixed", "exponential", "pareto", "lognormal", "cdf", "websearch", "datamining"]

_NEEDS: Final[dict[str, tuple[str, ...]]] = {
    "fixed": ("size",),
    "exponential": ("mean",),
    "pareto": ("mean", "shape"),
    "lognormal": ("median", "sigma"),
    "cdf": (),
    "websearch": (),
    "datamining": (),
}


def _normalize_sizes(value: Any) -> Any:
    if isinstance(value, str):
        if value in BUILTIN_CDFS:
            return {"kind": value}
        return {"kind": "fixed", "size": value}
    return value


class SizeDistribution(_Model):
    """Payload bytes of each flow: ``"websearch"``, ``"datamining"``, a size such as ``"100KB"``,
    or a table: ``{ kind = "exponential", mean = "100KB" }``, ``{ kind = "pareto", mean =
    "100KB", shape = 1.2 }``, ``{ kind = "lognormal", median = "10KB", sigma = 2.0 }``,
    ``{ kind = "cdf", file = "sizes.csv" }`` or ``{ kind = "cdf", points = [[0, 0], [1000, 0.5],
    [10000, 1]] }``."""

    kind: SizeKind
    size: Size | None = None
    mean: Size | None = None
    shape: float | None = None
    """Pareto's shape a > 1 (tail P(S > x) ~ x^-a)."""
    median: Size | None = None
    sigma: float | None = None
    """Lognormal: standard deviation of ln(size)."""
    file: str | None = None
    """A CSV file of ``bytes,probability`` lines (relative to the working directory)."""
    points: list[tuple[float, float]] | None = None

    @model_validator(mode="after")
    def _complete(self) -> SizeDistribution:
        _raise_problems(self._checks())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        needs = _NEEDS[self.kind]
        for name in ("size", "mean", "shape", "median", "sigma", "file", "points"):
            given = getattr(self, name) is not None
            if name in needs and not given:
                out.append(((name,), f"a {self.kind} distribution needs {name}"))
            elif given and name not in needs and not (self.kind == "cdf" and name in ("file", "points")):
                out.append(((name,), f"is not a parameter of a {self.kind} distribution (it takes {', '.join(needs) or 'no parameter'})"))
        if out:
            return out
        for name in ("size", "mean", "median"):
            v = getattr(self, name)
            if v is not None and not 1 <= v <= MAX_FLOW_BYTES:
                out.append(((name,), f"must be in [1B, 1TB] (got {show(v)} bytes); a flow sends at least 1 B"))
        if self.shape is not None and not 1 < self.shape <= 100:
            out.append((("shape",), f"must be in (1, 100]: at 1 or below the mean is infinite (got {self.shape})"))
        if self.sigma is not None and not 0 <= self.sigma <= 10:
            out.append((("sigma",), f"must be in [0, 10] (got {self.sigma})"))
        if self.kind == "cdf":
            if (self.file is None) == (self.points is None):
                out.append(((), 'a cdf distribution takes file = "sizes.csv" or points = [[bytes, probability], ...] (one of them)'))
            else:
                try:
                    self.cdf_points()
                except (CdfError, OSError, UnicodeDecodeError) as exc:
                    out.append((("file" if self.file else "points",), str(exc) if isinstance(exc, CdfError) else f"cannot read {show(self.file)}: {exc}"))
        return out

    def cdf_points(self) -> list[tuple[float, float]] | None:
        """The CDF's points (a shipped one, the file's or the table's); None for the others."""
        if self.kind in BUILTIN_CDFS:
            return list(builtin_cdf(self.kind))
        if self.kind != "cdf":
            return None
        if self.file is not None:
            return parse_cdf(Path(self.file).read_text(), self.file)
        points = [(float(x), float(p)) for x, p in self.points or []]
        check_cdf(points, "the points")
        return points

    def mean_bytes(self) -> float:
        """The mean flow size (what the arrival rate divides the load by)."""
        points = self.cdf_points()
        if points is not None:
            return cdf_mean(points)
        if self.kind == "fixed":
            return float(self.size or 0)
        if self.kind == "lognormal":
            return float(self.median or 0) * math.exp((self.sigma or 0) ** 2 / 2)
        return float(self.mean or 0)

    def engine_spec(self) -> dict[str, Any]:
        points = self.cdf_points()
        if points is not None:
            return {"kind": "cdf", "points": [list(p) for p in points]}
        if self.kind == "fixed":
            return {"kind": "fixed", "size": self.size}
        if self.kind == "exponential":
            return {"kind": "exponential", "mean": self.mean}
        if self.kind == "pareto":
            return {"kind": "pareto", "mean": self.mean, "shape": self.shape}
        return {"kind": "lognormal", "median": self.median, "sigma": self.sigma}


Sizes = Annotated[SizeDistribution, BeforeValidator(_normalize_sizes)]


def _load_form(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _error("load_form", f"must be a number in (0, 1) (up to {MAX_OVERLOAD:g} with overload = true), the offered load of the link (got {show(value)})")
    return float(value)


MAX_OVERLOAD: Final = 10.0
"""The highest load an arrival group may offer with ``overload = true`` (the engine's bound)."""


class ArrivalGroup(_Model):
    """Finite TCP flows arriving as a Poisson process: each between a (src, dst) pair drawn
    uniformly from the group's pairs, of a size drawn from ``sizes``, at a rate that offers
    ``load`` of ``link``'s capacity (rate = load x link rate / (8 x mean size)). Their
    completion times are in the ``fct`` table."""

    name: str = ""
    """Flows are named ``<name>.<k>`` in arrival order (default: ``arrivals<i>``)."""
    src: NodeList
    dst: NodeList
    pairs: Pairs = "all"
    cc: CcConfig
    tcp: TcpConfig | None = None
    load: Annotated[float, BeforeValidator(_load_form)]
    """Offered load of ``link``: payload bytes arriving per second over its capacity, in (0, 1)
    (up to 10 with ``overload``)."""
    overload: bool = False
    """Run a load of 1 or more on purpose: flows arrive faster than the link carries them, so
    the open flows and the backlog grow for the whole run (an overload test, as the TCP
    evaluation suite's 110 %); without it such a load is an error."""
    link: str = "bottleneck"
    """The link the load is of: "bottleneck" (a dumbbell's A->B, a graph's bottleneck) or a
    link name such as "R1->R2"."""
    sizes: Sizes
    start: Duration = 0
    """First possible arrival."""
    stop: Duration | None = None
    """No arrival from this time (default: the end of the run)."""
    dscp: Dscp = 0
    port: Port = 0


class ListedFlow(NamedTuple):
    """One line of a flow list: start (ns), source and destination host, size (bytes), its
    congestion control (None: the list's)."""

    line: int
    start: int
    src: str
    dst: str
    size: int
    cc: str | None


MAX_LISTED_FLOWS: Final = 1_000_000
_LIST_COLUMNS: Final = ("start", "src", "dst", "size")


def parse_flow_list(text: str, where: str) -> list[ListedFlow]:
    """Flows from CSV text: a header naming the columns ``start,src,dst,size`` and optionally
    ``cc`` (any order), then one flow per line; ``#`` comments and blank lines are skipped. A
    start is a time (``"1.5ms"``, or a bare number of seconds), a size a size (``"20KB"``, or a
    bare number of bytes), a cc a registered name (an empty cell: the list's ``cc``)."""
    from crosslayer.units import parse_duration_ns, parse_size_bytes

    lines = [(n, line.split("#", 1)[0].strip()) for n, line in enumerate(text.splitlines(), start=1)]
    lines = [(n, line) for n, line in lines if line]
    if not lines:
        raise CdfError(f"{where}: no header line (start,src,dst,size[,cc])")
    header_line, header = lines[0]
    columns = [c.strip().lower() for c in next(csv.reader([header]))]
    missing = [c for c in _LIST_COLUMNS if c not in columns]
    unknown = [c for c in columns if c not in (*_LIST_COLUMNS, "cc")]
    if missing or unknown or len(set(columns)) != len(columns):
        raise CdfError(f"{where} line {header_line}: the header must name the columns start, src, dst, size and optionally cc, each once (got {show(header)})")
    at = {c: columns.index(c) for c in columns}
    out: list[ListedFlow] = []
    for n, line in lines[1:]:
        cells = [c.strip() for c in next(csv.reader([line]))]
        if len(cells) != len(columns):
            raise CdfError(f"{where} line {n}: {show(line)} has {len(cells)} cells, the header {len(columns)}")

        def cell(name: str, parse: Any, what: str, n: int = n, cells: list[str] = cells) -> int:
            raw = cells[at[name]]
            try:
                value = float(raw)
            except ValueError:
                value = None
            try:
                if value is not None and name == "start":
                    if not math.isfinite(value) or value < 0:
                        raise ValueError(f"must be a time of at least 0 (got {show(raw)})")
                    return round(value * 1e9)
                if value is not None:  # a size in bytes
                    if not (math.isfinite(value) and value == int(value) and value >= 1):
                        raise ValueError(f"must be a whole number of bytes, at least 1 (got {show(raw)})")
                    return int(value)
                return int(parse(raw))
            except (ValueError, OverflowError) as exc:
                raise CdfError(f"{where} line {n}: {name}: {exc if str(exc) else f'not {what}'}") from None

        start = cell("start", parse_duration_ns, "a time")
        size = cell("size", parse_size_bytes, "a size")
        if size > MAX_FLOW_BYTES:
            raise CdfError(f"{where} line {n}: size: at most {MAX_FLOW_BYTES:,} bytes (got {size:,})")
        src, dst = cells[at["src"]], cells[at["dst"]]
        if not src or not dst:
            raise CdfError(f"{where} line {n}: src and dst name hosts (got {show(line)})")
        cc = cells[at["cc"]] if "cc" in at and cells[at["cc"]] else None
        out.append(ListedFlow(n, start, src, dst, size, cc))
        if len(out) > MAX_LISTED_FLOWS:
            raise CdfError(f"{where}: more than {MAX_LISTED_FLOWS:,} flows")
    if not out:
        raise CdfError(f"{where}: no flow after the header")
    return out


class ArrivalList(_Model):
    """Finite TCP flows listed in a CSV file (``start,src,dst,size[,cc]``, one flow per line),
    each starting at its time between its hosts with its size; named ``<name>.<k>`` in the
    file's order. Their completion times are in the ``fct`` table."""

    name: str = ""
    """Flows are named ``<name>.<k>``, k counting the file's lines (default: ``arrivals<i>``)."""
    file: str
    """The CSV file (relative to the working directory)."""
    cc: CcConfig | None = None
    """The congestion control of lines whose cc cell is empty or missing."""
    tcp: TcpConfig | None = None
    dscp: Dscp = 0
    port: Port = 0

    @model_validator(mode="after")
    def _read(self) -> ArrivalList:
        _raise_problems(self._checks())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        try:
            flows = self.flows()
        except OSError as exc:
            return [(("file",), f"cannot read {show(self.file)}: {exc.strerror or exc}")]
        except CdfError as exc:
            return [(("file",), str(exc))]
        out: list[tuple[Loc, str]] = []
        if self.cc is None and any(f.cc is None for f in flows):
            line = next(f.line for f in flows if f.cc is None)
            out.append((("cc",), f'line {line} of {self.file} gives no cc: give the list a cc = "cubic" (or a cc column)'))
        from pydantic import ValidationError

        for name in sorted({f.cc for f in flows if f.cc is not None}):
            try:
                _CC.validate_python(name)
            except ValidationError:
                line = next(f.line for f in flows if f.cc == name)
                out.append((("file",), f"{self.file} line {line}: cc: no congestion control {show(name)} (crosslayer list cc)"))
        return out

    def flows(self) -> list[ListedFlow]:
        """The file's flows (read again only if the file changed)."""
        return read_parsed(self.file, parse_flow_list)  # type: ignore[no-any-return]

    def cc_of(self, flow: ListedFlow) -> Any:
        """A listed flow's congestion control (validated)."""
        return _CC.validate_python(flow.cc) if flow.cc is not None else self.cc


Arrivals = Annotated[
    Annotated[ArrivalGroup, Tag(_TAG + "poisson")] | Annotated[ArrivalList, Tag(_TAG + "list")],
    Discriminator(_tag_by(lambda v: "list" if "file" in v else "poisson")),
]
"""An ``[[arrivals]]`` table: a Poisson process at a load, or (with ``file``) a list of flows."""
