"""Simulation results: the engine's column tables as DataFrames, aggregates, save/load.

The engine returns column-oriented tables (docs/design.md, "Result dict"); :class:`Result` wraps
them as pandas DataFrames next to the engine's ``summary`` dict and the :class:`Scenario` that
produced them. The tables and their columns (name, unit, doc) are the engine's declarations
(:func:`crosslayer.catalog.catalog`, ``tables``); units are also in the column names (``_s``
seconds, ``_bps`` bit/s, ``_bytes``, ``_pkts``). Measurements cover [warmup, duration] of the
scenario.

A table becomes a DataFrame when it is first read, and pandas loads then: a caller that wants
only the summary never pays for pandas or for the DataFrames of 90,000 flows.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import numpy as np

from crosslayer.catalog import catalog
from crosslayer.output import dumps_json, plain
from crosslayer.scenario import Graph, Scenario

if TYPE_CHECKING:
    import pandas as pd

    from crosslayer.store import Store

__all__ = [
    "TABLES",
    "Format",
    "Result",
    "dumps_json",
    "jain_index",
    "staging_folder",
    "state_columns",
]

TABLES: Final[dict[str, tuple[str, ...]]] = {name: t.names for name, t in catalog().tables.items()}
"""Every result table and its fixed columns, as the engine declares them: ``flows`` (one row per
TCP flow), ``udp`` (one row per unresponsive CBR flow), ``queues`` (one row per simplex link),
``hosts`` (per sending host and bottleneck), ``hops`` (per flow, direction and link of its path),
``drops`` (per link and drop/mark reason),
``qdisc_stats`` (per link and discipline counter), ``series`` (the bottleneck queue every
sample_interval), ``cwnd`` (per flow every sample_interval, with cwnd_trace), ``goodput`` (per
flow every goodput_interval) and ``milestones`` (per byte milestone a flow passed, for groups that
set ``milestones``), ``wlan`` (per member of a wireless LAN). ``series`` and
``cwnd`` add columns of algorithm state (:func:`state_columns`)."""

BOTTLENECK_ROLE: Final = "forward"
"""``queues.role`` of the A -> B link."""

WLAN_ROLES: Final = ("wlan_up", "wlan_down")
"""``queues.role`` of a wireless LAN's links (from a station, from its access point)."""


def state_columns(scenario: Scenario) -> dict[str, tuple[str, ...]]:
    """The state columns ``series`` and ``cwnd`` add for this scenario's algorithms."""
    cat = catalog()
    qdisc = cat.aqm[scenario.series_qdisc()["kind"]]
    cwnd: list[str] = []
    if scenario.cwnd_trace:
        for group in scenario.flows:
            a = cat.cc[group.cc.engine_spec()["kind"]]
            cwnd += [f"{a.name}_{f['name']}" for f in a.extras["state"] if f"{a.name}_{f['name']}" not in cwnd]
    return {"series": tuple(f["name"] for f in qdisc.extras["state"]), "cwnd": tuple(cwnd)}

Format = Literal["parquet", "json"]


def jain_index(values: Iterable[float]) -> float:
    """Jain's fairness index (Jain, Chiu, Hawe 1984): ``(sum x)^2 / (n * sum x^2)``.

    In [1/n, 1]; 1 when all values are equal, 1/n when one value takes everything. Values must
    be finite and >= 0; all zeros gives NaN (the index is undefined).
    """
    x = np.asarray(list(values), dtype=float)
    if x.size == 0:
        raise ValueError("jain_index needs at least one value")
    if not np.all(np.isfinite(x)) or np.any(x < 0):
        raise ValueError("jain_index needs finite values >= 0")
    peak = float(np.max(x))
    if peak == 0.0:
        return math.nan
    x = x / peak  # the index is scale-free; normalizing avoids under/overflow in x^2
    return float(np.sum(x) ** 2 / (x.size * np.sum(x * x)))


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


QUARTILES: Final = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
"""The quantiles of a spread in :meth:`Result.aggregates`: min, q1, median, q3, max."""


def _nanquantile(values: np.ndarray, qs: np.ndarray) -> np.ndarray:
    """The ``qs`` quantiles of a float column, NaN skipped: pandas' ``Series.quantile`` (linear
    interpolation) to the last bit, as pandas computes it (one ``np.quantile`` over the values,
    taken as a row of a 2-D block when none is missing), without a Series per call."""
    missing = np.isnan(values)
    if missing.any():
        kept = values[~missing]
        return np.quantile(kept, qs) if len(kept) else np.full(len(qs), np.nan)
    if not len(values):
        return np.full(len(qs), np.nan)
    return np.quantile(values[np.newaxis], qs, axis=1)[:, 0]


def _nanmean(values: np.ndarray) -> float:
    """The mean of a float column, NaN skipped: pandas' ``Series.mean`` to the last bit (the sum
    with missing values as 0, over the count of the others)."""
    missing = np.isnan(values)
    count = np.float64(len(values) - int(missing.sum()))
    if not count:
        return math.nan
    total = (np.where(missing, 0.0, values) if missing.any() else values).sum(dtype=np.float64)
    return float(total / count)


def _nanmax(values: np.ndarray) -> float:
    """The largest value of a float column, NaN skipped (NaN if none): pandas' ``Series.max``
    (missing values as -inf)."""
    missing = np.isnan(values)
    if missing.all():
        return math.nan
    return float((np.where(missing, -np.inf, values) if missing.any() else values).max())


def _spread(values: np.ndarray) -> dict[str, float]:
    """min, quartiles, max and mean of a float column (NaN skipped)."""
    q = _nanquantile(values, QUARTILES)
    return {"min": q[0], "q1": q[1], "median": q[2], "q3": q[3], "max": q[4], "mean": _nanmean(values)}


def _column(values: Any, string_dtype: Any = None) -> Any:
    """An engine column: a NumPy array, a list, ``{"codes", "labels"}`` for a categorical, or
    ``{"codes", "labels", "strings": True}`` for strings (each distinct one once): a column of
    pandas' default string type (``string_dtype``, found if not given), built without a Python
    object per row."""
    import pandas as pd

    if isinstance(values, Mapping):
        codes = np.asarray(values["codes"], dtype=np.int64)
        if values.get("strings"):
            return _strings(codes, list(values["labels"]), string_dtype)
        return pd.Categorical.from_codes(codes, categories=list(values["labels"]))
    return values


def _string_dtype() -> Any:
    """pandas' default string dtype: the one it gives a column of ``str`` (Arrow-backed where
    pandas is). Asked once per table (it builds a Series)."""
    import pandas as pd

    return pd.Series(["x"]).dtype


def _strings(codes: np.ndarray, labels: list[str], dtype: Any = None) -> Any:
    """``labels[codes]`` as pandas' default string column (Arrow-backed where pandas is)."""
    import pandas as pd

    if dtype is None:
        dtype = _string_dtype()
    if getattr(dtype, "storage", None) == "pyarrow":
        from crosslayer import _arrow

        return dtype.__from_arrow__(_arrow.decoded(codes, labels))  # what to_pandas(types_mapper=...) makes of it, without the table round
    return pd.array(np.asarray(labels, dtype=object)[codes], dtype=dtype)


def _rows(columns: Mapping[str, Any] | None) -> int:
    """The number of rows of an engine column dict (0 if absent or empty)."""
    for values in (columns or {}).values():
        return len(values["codes"] if isinstance(values, Mapping) else values)
    return 0


def _table(columns: Mapping[str, Any] | None, names: tuple[str, ...]) -> pd.DataFrame:
    """A DataFrame from a column dict; an absent or empty dict gives the documented columns."""
    import pandas as pd

    if not columns:
        return pd.DataFrame(columns=list(names))
    strings = any(isinstance(v, Mapping) and v.get("strings") for v in columns.values())
    string_dtype = _string_dtype() if strings else None
    return pd.DataFrame({name: _column(values, string_dtype) for name, values in columns.items()}, copy=False)


def _arrow_column(values: Any) -> Any:
    """An engine column as the Arrow array ``pyarrow.Table.from_pandas`` makes of its DataFrame
    column (:func:`_column`), built without the DataFrame: NaN as null, as pandas converts
    floats; strings (pandas' Arrow-backed default) as ``large_string``; a categorical as a
    dictionary over ``large_string`` labels with pandas' smallest code type."""
    import pyarrow as pa

    from crosslayer import _arrow

    if isinstance(values, Mapping):
        codes = np.asarray(values["codes"], dtype=np.int64)
        if values.get("strings"):
            return _arrow.decoded(codes, list(values["labels"]))
        labels = _arrow.large_strings(list(values["labels"]))
        n = len(labels)
        code_type = np.int8 if n < 2**7 else np.int16 if n < 2**15 else np.int32 if n < 2**31 else np.int64
        return pa.DictionaryArray.from_arrays(_arrow.codes(codes.astype(code_type), codes < 0), labels)
    return _arrow.numbers(values)


class _Columns:
    """A table as the engine returned it (its column dict, or None), until it is first read."""

    def __init__(self, columns: Mapping[str, Any] | None, names: tuple[str, ...]) -> None:
        self.columns, self.names = columns, names

    def frame(self) -> pd.DataFrame:
        try:
            return _table(self.columns, self.names)
        except MemoryError:
            raise out_of_memory() from None

    def arrow(self) -> Any:
        """The table as an Arrow table, as ``pyarrow.Table.from_pandas(self.frame(),
        preserve_index=False)`` would give it but for the pandas metadata (reading it back
        gives the same DataFrame), without building the DataFrame (nor importing pandas): None
        if it has a column of Python values. A table the engine gave no columns (``_table``:
        the documented names, no rows) has typeless columns, as pandas writes them."""
        import pyarrow as pa

        if not self.columns:
            return pa.Table.from_arrays([pa.nulls(0) for _ in self.names], names=list(self.names))
        if any(isinstance(v, list) for v in self.columns.values()):
            return None  # a column of Python values (not the engine's: a test's) is pandas' to type
        try:
            return pa.Table.from_arrays([_arrow_column(v) for v in self.columns.values()], names=list(self.columns))
        except MemoryError:
            raise out_of_memory() from None

    def __len__(self) -> int:
        return _rows(self.columns)


def out_of_memory() -> Exception:
    """The error of a result too large for memory (the engine's LimitError), naming the fix."""
    from crosslayer import _core

    return getattr(_core, "LimitError", _core.EngineError)(  # type: ignore[no-any-return]
        "out of memory while building the result tables: sample less often (sample_interval) or turn cwnd_trace off"
    )


class _Table:
    """A table field of :class:`Result`: the instance holds a DataFrame or the engine's
    :class:`_Columns`, made a DataFrame (and kept) when the field is first read. A data
    descriptor, so the dataclass's ``__init__``, pickling and ``dataclasses.replace`` work as
    for a plain field (the value lives in the instance's ``__dict__`` under the field's name)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> pd.DataFrame:
        if obj is None:  # as for a field without a default: no class attribute
            raise AttributeError(self.name)
        value = obj.__dict__[self.name]
        if isinstance(value, _Columns):
            value = obj.__dict__[self.name] = value.frame()
        return value  # type: ignore[no-any-return]

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.name] = value


def staging_folder(folder: str | Path) -> Path:
    """A new empty folder beside ``folder`` to write results into before they are moved into
    place (so ``folder`` is always complete or absent). Creating it is also the check that the
    results can be written: call it before a long run. Raises OSError (e.g. PermissionError,
    NotADirectoryError) if they cannot."""
    from crosslayer.store import DIR_MODE

    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"{folder} exists and is not a folder")
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name[:50]}.partial-"))
    os.chmod(staging, DIR_MODE)  # mkdtemp makes it 0700: the result folder gets the user's umask
    return staging


def _publish(staging: Path, folder: Path) -> None:
    """Move a complete staging folder into place, replacing ``folder`` as a whole."""
    if folder.exists():
        old = folder.with_name(f".{folder.name[:50]}.old-{os.getpid()}")
        os.replace(folder, old)
        os.replace(staging, folder)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(staging, folder)


@dataclass(frozen=True, eq=False, repr=False)
class Result:
    """One run: engine summary, tables and the scenario that produced them."""

    summary: dict[str, Any]
    """Engine summary: wall_s, events, sim_s, measured_s, delivered_segments, seed, ..."""
    flows: pd.DataFrame
    """One row per TCP flow."""
    udp: pd.DataFrame
    """One row per unresponsive constant-bit-rate (UDP) flow."""
    queues: pd.DataFrame
    """One row per simplex link."""
    hosts: pd.DataFrame
    """One row per host that sends and bottleneck its flows cross (in a dumbbell: per sender
    host, then per receiver host that sends reverse flows): its share of the goodput through
    that bottleneck and its drops there (lock-out indicators)."""
    hops: pd.DataFrame
    """One row per flow, direction (data, ack) and link of its path: what its packets met at
    that link's queue (arrivals, drops, marks)."""
    drops: pd.DataFrame
    """Drops and marks per link and reason its discipline declares."""
    qdisc_stats: pd.DataFrame
    """Counters the disciplines declare, per link."""
    series: pd.DataFrame
    """Bottleneck queue length (and its discipline's state) every sample_interval."""
    cwnd: pd.DataFrame
    """cwnd/ssthresh (and the congestion control's state) per flow every sample_interval, when
    cwnd_trace."""
    goodput: pd.DataFrame
    """Each flow's goodput over each goodput_interval (bytes delivered in order, and bit/s),
    from its start to the interval it ends in, when goodput_interval is set."""
    milestones: pd.DataFrame
    """When each flow of a group that sets ``milestones`` first held 15 kB, 150 kB, 1.5 MB, ...
    (1500 x 10^n bytes) in order at its receiver: ``flow``, ``bytes``, ``t_s`` and
    ``since_start_s`` (draft-irtf-iccrg-tcpeval-01 section 5.2.3)."""
    wlan: pd.DataFrame
    """One row per member of a wireless LAN (its access point, then each station): frames
    delivered, attempts, collisions, retries, drops at the retry limit, airtime."""
    scenario: Scenario
    captures: dict[str, bytes] = field(default_factory=dict)
    """Packet captures (``[pcap]``): file name (``R1-R2.pcap``, ``S1.pcap``) -> pcap bytes;
    :meth:`save` writes them under ``pcap/``."""

    @classmethod
    def from_engine(cls, raw: Mapping[str, Any], scenario: Scenario) -> Result:
        """Wrap the dict returned by ``_core.run_json`` (its tables become DataFrames when read)."""
        tables = {name: _Columns(raw.get(name), columns) for name, columns in TABLES.items()}
        summary = dict(raw["summary"])
        captures: dict[str, bytes] = {}
        for f in raw.get("pcap", []):
            captures[f"{f['name']}.pcap"] = bytes(f["bytes"])
            summary["pcap_packets"] = summary.get("pcap_packets", 0) + int(f["packets"])
            summary["pcap_missed"] = summary.get("pcap_missed", 0) + int(f["missed"])
        return cls(summary=summary, scenario=scenario, captures=captures, **tables)

    def arrow(self, name: str) -> Any:
        """Table ``name`` as a ``pyarrow.Table`` (no pandas metadata): from the engine's columns
        if its DataFrame is not built yet, else from the DataFrame. What a store writes
        (:func:`crosslayer.store.tables_for`): reading the file back with pandas gives the
        table's DataFrame, and building it from the columns costs a small part of what
        converting the DataFrame does (a short run's tables took longer to store than to
        compute)."""
        import pyarrow as pa

        if name not in TABLES:
            raise KeyError(f"no table {name!r}; a result has {', '.join(TABLES)}")
        value = self.__dict__[name]
        table = value.arrow() if isinstance(value, _Columns) else None
        if table is None:
            table = pa.Table.from_pandas(getattr(self, name), preserve_index=False).replace_schema_metadata(None)
        return table

    def rows(self, name: str) -> int:
        """The number of rows of table ``name``, without building its DataFrame if it is not
        built yet (a run's empty tables are never built by a caller that skips them)."""
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; a result has {', '.join(TABLES)}")
        return len(self.__dict__[name])

    def _numbers(self, name: str, column: str) -> np.ndarray:
        """Column ``column`` of table ``name`` as floats: from the engine's array if the table is
        not built yet (a table only aggregated, as ``hosts`` in :meth:`aggregates`, is never
        built), else from its DataFrame."""
        value = self.__dict__[name]
        if isinstance(value, _Columns):
            if not value.columns:  # an empty table: its DataFrame's column is empty too
                return np.zeros(0)
            return np.asarray(value.columns[column], dtype=float)
        return np.asarray(value[column].to_numpy(), dtype=float)

    def numbers(self, name: str, column: str) -> np.ndarray:
        """Column ``column`` of table ``name`` as a float array, without building the table's
        DataFrame if it is not built yet (what the store's run metrics read)."""
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; a result has {', '.join(TABLES)}")
        return self._numbers(name, column)

    def texts(self, name: str, column: str) -> np.ndarray:
        """Text column ``column`` of table ``name`` as an array of ``str``, without building the
        table's DataFrame if it is not built yet (as :meth:`numbers`)."""
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; a result has {', '.join(TABLES)}")
        return self._texts(name, column) if self.rows(name) else np.zeros(0, dtype=object)

    def _engine_columns(self, name: str) -> Mapping[str, Any] | None:
        """The engine's columns of table ``name`` if its DataFrame is not built yet and it has
        rows; else None (read the DataFrame)."""
        value = self.__dict__[name]
        return value.columns if isinstance(value, _Columns) and _rows(value.columns) else None

    def _has(self, name: str, column: str) -> bool:
        """Whether table ``name`` has rows and column ``column`` (either form)."""
        if not self.rows(name):
            return False
        columns = self._engine_columns(name)
        return column in (columns if columns is not None else self.__dict__[name])

    def _texts(self, name: str, column: str) -> np.ndarray:
        """Text column ``column`` of table ``name`` (with rows) as an array of ``str``: from the
        engine's codes and labels if the table is not built yet, else from its DataFrame."""
        columns = self._engine_columns(name)
        if columns is None:
            return self.__dict__[name][column].to_numpy(dtype=object)
        c = columns[column]
        return np.asarray(list(c["labels"]), dtype=object)[np.asarray(c["codes"])]

    def _forward_fields(self) -> dict[str, Any] | None:
        """The bottleneck's fields :meth:`aggregates` reads, from the engine's columns of
        ``queues`` when it is not built and holds exactly one A -> B link (a dumbbell): what
        ``self.queues.iloc[row]`` holds there. None otherwise (take :meth:`_bottleneck`)."""
        columns = self._engine_columns("queues")
        role = None if columns is None else columns.get("role")
        if not isinstance(role, Mapping) or BOTTLENECK_ROLE not in role["labels"]:
            return None
        codes = np.asarray(role["codes"])
        rows = np.flatnonzero(codes == list(role["labels"]).index(BOTTLENECK_ROLE))
        if len(rows) != 1:
            return None
        i = int(rows[0])
        out: dict[str, Any] = {"link": self._texts("queues", "link")[i]}
        for c in ("qlen_mean_pkts", "qlen_sd_pkts", "sojourn_mean_s", "sojourn_p99_s", "arrivals", "drops", "utilization"):
            out[c] = columns[c][i]
        return out

    def _headline(self) -> dict[str, str]:
        try:
            b = self.bottleneck
            agg = self.aggregates()
        except (LookupError, KeyError):
            return {}
        return {
            "simulated": f"{float(self.summary.get('sim_s', math.nan)):g} s (measured {float(self.summary.get('measured_s', math.nan)):g} s)",
            "wall": f"{float(self.summary.get('wall_s', math.nan)):.3g} s",
            "flows": str(len(self.flows)),
            "utilization": f"{float(b['utilization']):.4f}",
            "mean queue": f"{float(b['qlen_mean_pkts']):.1f} pkts (SD {float(b['qlen_sd_pkts']):.1f})",
            "drop ratio": f"{100 * (agg['bottleneck']['drop_ratio'] or 0.0):.3f} %",
            "Jain's index": f"{agg['jain']:.3f}" if agg.get("jain") is not None else "-",
            "busiest links": ", ".join(f"{b['link']} {100 * b['utilization']:.1f} %" for b in agg["busiest_links"]),
            **({"wireless medium": f"{m['wlan']} {100 * m['airtime']:.1f} % busy"} if (m := agg["bottleneck"]["medium"]) else {}),
        }

    def __repr__(self) -> str:
        head = self._headline()
        extra = "".join(f", {k.replace(' ', '_').replace(chr(39), '')}={v!r}" for k, v in head.items() if k in ("utilization", "mean queue", "Jain's index"))
        return f"Result(scenario={self.scenario.name!r}, flows={len(self.flows)}, queues={len(self.queues)}{extra})"

    def _repr_html_(self) -> str:
        """Notebook display: the headline numbers and the first flows."""
        import html as _html

        rows = "".join(f"<tr><th style='text-align:left'>{_html.escape(k)}</th><td>{_html.escape(v)}</td></tr>" for k, v in self._headline().items())
        cols = [c for c in ("name", "cc", "base_rtt_s", "goodput_bps", "retransmits", "timeouts") if c in self.flows.columns]
        flows = self.flows[cols].head(10).to_html(index=False, border=0) if cols else ""
        more = f"<p>... {len(self.flows) - 10} more flows</p>" if len(self.flows) > 10 else ""
        return f"<div><b>crosslayer Result: {_html.escape(self.scenario.name)}</b><table>{rows}</table>{flows}{more}</div>"

    @property
    def bottleneck(self) -> pd.Series:
        """The ``queues`` row of the bottleneck: a dumbbell's A -> B (role "forward"); in a
        graph the topology's ``bottleneck`` link, or the link most flows have as their
        bottleneck (:meth:`Scenario.bottleneck_link`), unless a wireless LAN's medium was
        busier (:attr:`medium`): then the queue of that LAN that dropped the most."""
        return self._bottleneck(self.medium)

    def _bottleneck(self, medium: tuple[str, float] | None) -> pd.Series:
        """:attr:`bottleneck`, given :attr:`medium` (computed once by a caller that needs both)."""
        forward = np.flatnonzero((self.queues["role"] == BOTTLENECK_ROLE).to_numpy(dtype=bool)) if "role" in self.queues else ()
        if len(forward):
            if len(forward) != 1:
                raise LookupError(f"expected one bottleneck queue, found {len(forward)}")
            return self.queues.iloc[forward[0]]
        if medium is not None:
            return self._medium_queue(medium[0])
        rows = self._link_rows(self.scenario.bottleneck_link())
        if len(rows) != 1:
            raise LookupError(f"expected one bottleneck queue, found {len(rows)}")
        return rows.iloc[0]

    @property
    def medium(self) -> tuple[str, float] | None:
        """The wireless LAN the headline bottleneck is in, as (its access point, the fraction of
        the measured window its medium was busy); None if the headline is a wired link.

        A topology that names its ``bottleneck`` keeps it. Otherwise the busiest LAN's medium
        (busy: the ``wlan`` table's ``airtime`` summed over its members, successes and
        collisions, at most 1) takes the headline when it was busier than the link chosen
        without it (that link's ``utilization``): a wired link is never its flows' constraint
        behind a saturated medium, which the slowest-link rule (by nominal rates, and between
        routers first) cannot see."""
        topology = self.scenario.topology
        if not isinstance(topology, Graph) or topology.bottleneck is not None or not len(self.wlan):
            return None
        busy = self.wlan.groupby("wlan", sort=False)["airtime"].sum().clip(upper=1.0)
        ap = str(busy.idxmax())  # the first of equals, in the LANs' order
        wired = self._link_rows(self.scenario.bottleneck_link())
        if len(wired) == 1 and not float(busy[ap]) > float(wired.iloc[0]["utilization"]):
            return None
        return ap, float(busy[ap])

    def _link_rows(self, link: str) -> pd.DataFrame:
        return self.queues[self.queues["link"] == link] if "link" in self.queues else self.queues.iloc[:0]

    def _medium_queue(self, ap: str) -> pd.Series:
        """The queue of the LAN of access point ``ap`` that shows its congestion: of its links (to
        and from ``ap``), the one that dropped the most, then held the longest mean queue, the
        first of equals in link order."""
        q = self.queues
        own = q[q["role"].isin(WLAN_ROLES) & (q["link"].str.startswith(f"{ap}->") | q["link"].str.endswith(f"->{ap}"))]
        return own.sort_values(["drops", "qlen_mean_pkts"], ascending=False, kind="stable").iloc[0]

    @property
    def fct(self) -> pd.DataFrame:
        """The finite flows and their completion times (:func:`crosslayer.fct.fct`): size,
        FCT, ideal FCT, slowdown, retransmissions, timeouts, bytes left, completed."""
        from crosslayer.fct import fct

        return fct(self.flows)

    def busiest_links(self, n: int = 3) -> pd.DataFrame:
        """The ``n`` links with the highest utilization (link, role, utilization, drop ratio,
        mean queue), busiest first."""
        import pandas as pd

        cols = ["link", "role", "utilization", "drop_ratio", "qlen_mean_pkts"]
        top = self._busiest_rows(n)
        if top is None:
            return pd.DataFrame(columns=cols)
        return self.queues.iloc[top][cols].reset_index(drop=True)

    def _busiest_rows(self, n: int) -> np.ndarray | None:
        """The positions in :attr:`queues` of the ``n`` busiest links, busiest first (a stable
        descending sort, NaN last); None without queues or utilization."""
        if not self._has("queues", "utilization"):
            return None
        return np.argsort(-self._numbers("queues", "utilization"), kind="stable")[:n]

    def aggregates(self) -> dict[str, Any]:
        """Headline numbers as plain JSON-ready Python (NaN -> None): speed, fairness, queue.

        Rates in Mbit/s. ``drop_ratio`` = queue drops (every reason: overflow, AQM early drops,
        head drops, push-outs) / arrivals at the bottleneck; random wire loss is not a queue drop.
        ``utilization`` is the engine's (fraction of the link rate); ``jain`` is over per-flow
        goodput.
        """
        s = self.summary
        wall_s, sim_s = float(s["wall_s"]), float(s["sim_s"])
        events, segments = int(s["events"]), int(s["delivered_segments"])
        medium = self.medium
        # from the engine's columns where the tables are not built yet (a run being stored):
        # the same values as the DataFrames', without building them
        b = (self._forward_fields() if medium is None else None) or self._bottleneck(medium)
        drops = int(b["drops"])
        goodput_bps = self._numbers("flows", "goodput_bps")
        aggregates: dict[str, Any] = plain(
            {
                "scenario": self.scenario.name,
                "seed": self.scenario.seed,
                "flows": self.rows("flows"),
                "sim_s": sim_s,
                "measured_s": float(s["measured_s"]),
                "wall_s": wall_s,
                "events": events,
                "delivered_segments": segments,
                "events_per_wall_s": _ratio(events, wall_s),
                "delivered_segments_per_wall_s": _ratio(segments, wall_s),
                "sim_s_per_wall_s": _ratio(sim_s, wall_s),
                "wall_s_per_sim_s": _ratio(wall_s, sim_s),
                "goodput_mbps": _spread(goodput_bps / 1e6),
                "throughput_mbps": _spread(self._numbers("flows", "throughput_bps") / 1e6),
                "jain": jain_index(goodput_bps) if len(goodput_bps) else None,  # UDP flows only: no TCP flow to share
                "lockout": {
                    "max_host_goodput_share": _nanmax(self._numbers("hosts", "goodput_share")) if self.rows("hosts") else None,
                    "zero_goodput_flows": int((goodput_bps == 0).sum()),
                    "max_host_bottleneck_drop_share": _nanmax(self._numbers("hosts", "bottleneck_drop_share")) if self.rows("hosts") else None,
                },
                "fct": self._fct_aggregates(),
                "busiest_links": self._busiest_links(),
                "bottleneck": {
                    "link": b["link"],
                    "qlen_mean_pkts": b["qlen_mean_pkts"],
                    "qlen_sd_pkts": b["qlen_sd_pkts"],
                    "sojourn_mean_s": b["sojourn_mean_s"],
                    "sojourn_p99_s": b["sojourn_p99_s"],
                    "arrivals": int(b["arrivals"]),
                    "drops": drops,
                    "drop_ratio": _ratio(drops, int(b["arrivals"])),
                    "utilization": b["utilization"],
                    "medium": None if medium is None else {"wlan": medium[0], "airtime": medium[1]},
                },
            }
        )
        return aggregates

    def _busiest_links(self, n: int = 3) -> list[dict[str, Any]]:
        """:meth:`busiest_links` as ``{link, utilization, drop_ratio}`` dicts, from the columns
        (no frame)."""
        top = self._busiest_rows(n)
        if top is None:
            return []
        link = self._texts("queues", "link")[top].tolist()
        utilization, drop_ratio = (self._numbers("queues", c)[top].tolist() for c in ("utilization", "drop_ratio"))
        return [{"link": k, "utilization": u, "drop_ratio": d} for k, u, d in zip(link, utilization, drop_ratio)]

    def _fct_aggregates(self) -> dict[str, Any] | None:
        """Finite flows: how many, how many completed, their slowdown (mean, p50, p99); None
        without finite flows. What :attr:`fct` holds (its rows: `fct.finite_flows`; completed:
        an FCT), read from either form of the flows table, so that a run being stored builds
        no DataFrame (`tests/test_store_tables.py` holds the two to the bit)."""
        if not self._has("flows", "size_bytes"):
            return None
        finite = self._numbers("flows", "size_bytes") > 0
        if not finite.any():
            return None
        fct_s = self._numbers("flows", "fct_s")[finite]
        completed = ~np.isnan(fct_s)
        s = self._numbers("flows", "slowdown")[finite][completed]
        return {
            "flows": int(finite.sum()),
            "completed": int(completed.sum()),
            "slowdown_mean": _nanmean(s) if len(s) else None,
            "slowdown_p50": float(_nanquantile(s, np.array([0.5]))[0]) if len(s) else None,
            "slowdown_p99": float(_nanquantile(s, np.array([0.99]))[0]) if len(s) else None,
            "fct_mean_s": _nanmean(fct_s[completed]) if len(s) else None,
        }

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain Python: summary, tables as column dicts, scenario as JSON-ready dict."""
        return {
            "summary": self.summary,
            **{name: getattr(self, name).to_dict(orient="list") for name in TABLES},
            "scenario": self.scenario.model_dump(mode="json"),
        }

    def save(self, folder: str | Path, format: Format = "parquet", staging: Path | None = None) -> Path:
        """Write ``<table>.parquet`` (or ``.json``, column-oriented), summary.json, scenario.json.

        The files are written into a staging folder (``staging``, from :func:`staging_folder`,
        or a new one) and moved into place at the end, replacing an earlier ``folder`` as a
        whole: the folder is always complete or absent, never a mix of two runs.
        """
        if format not in ("parquet", "json"):
            raise ValueError(f'format must be "parquet" or "json" (got {format!r})')
        out = Path(folder)
        tmp = staging or staging_folder(out)
        try:
            for name in TABLES:
                value = self.__dict__[name]
                # a table not built yet goes from the engine's columns to Arrow (`arrow`: read
                # back, the same DataFrame), not through a DataFrame built only to be converted
                table = value.arrow() if format == "parquet" and isinstance(value, _Columns) else None
                if table is not None:
                    import pyarrow.parquet as pq

                    pq.write_table(table, tmp / f"{name}.parquet")
                    continue
                frame: pd.DataFrame = getattr(self, name)
                if format == "parquet":
                    frame.to_parquet(tmp / f"{name}.parquet", index=False)
                else:
                    (tmp / f"{name}.json").write_text(dumps_json(frame.to_dict(orient="list")))
            (tmp / "summary.json").write_text(dumps_json(self.summary, indent=2))
            (tmp / "scenario.json").write_text(dumps_json(self.scenario.model_dump(mode="json"), indent=2))
            if self.captures:
                (tmp / "pcap").mkdir()
                for name, data in self.captures.items():
                    (tmp / "pcap" / name).write_bytes(data)
            _publish(tmp, out)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return out

    @classmethod
    def from_store(cls, store: Store, key: str) -> Result:
        """Run ``key`` of a study's store as a Result (its flows, queues, series, udp and cwnd
        tables; its scenario from ``scenario_json``), for the single-run figures. The tables the
        store does not keep (hosts, drops, qdisc_stats) are empty."""
        import pandas as pd

        from crosslayer.store import TABLES as STORE_TABLES
        from crosslayer.store import StoreError

        run = store.table("runs", {key})
        if run.empty:
            raise LookupError(f"{store.root} holds no run {key}")
        row = run.iloc[0]
        if not isinstance(row.get("scenario_json"), str):
            raise StoreError(f"run {key} was stored by an older crosslayer without its scenario: run the study again into a new store to draw it")
        scenario = Scenario.from_dict(json.loads(row["scenario_json"]), f"{store.root}/runs/{key}.parquet")
        cols = list(run.columns)
        labels = cols[1 : cols.index("scenario")] if "scenario" in cols else []  # tables_for: key, swept values, then the rest
        tables: dict[str, pd.DataFrame] = {}
        for name, columns in TABLES.items():
            frame = store.table(name, {key}) if name in STORE_TABLES else pd.DataFrame()
            frame = frame.drop(columns=[c for c in frame.columns if c in ("key", *labels) and c not in columns])
            tables[name] = frame if len(frame.columns) else pd.DataFrame(columns=list(columns))
        summary = {k: (row[k].item() if hasattr(row[k], "item") else row[k]) for k in ("wall_s", "sim_s", "events") if k in row}
        summary.update({"seed": scenario.seed, "measured_s": (scenario.duration - scenario.warmup) / 1e9})
        return cls(summary=summary, scenario=scenario, **tables)

    @classmethod
    def load(cls, folder: str | Path) -> Result:
        """Read a folder written by :meth:`save` (either format)."""
        import pandas as pd

        src = Path(folder)
        scenario = Scenario.from_dict(json.loads((src / "scenario.json").read_text()), str(src / "scenario.json"))
        summary = json.loads((src / "summary.json").read_text())
        tables: dict[str, pd.DataFrame] = {}
        for name, columns in TABLES.items():
            if (src / f"{name}.parquet").exists():
                tables[name] = pd.read_parquet(src / f"{name}.parquet")
            elif (src / f"{name}.json").exists():
                frame = _table(json.loads((src / f"{name}.json").read_text()), columns)
                # JSON writes NaN as null: numeric columns with nulls come back as objects
                for col in frame.columns if len(frame) else ():
                    if frame[col].dtype == object and frame[col].map(lambda v: v is None or isinstance(v, (int, float))).all():
                        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype(float)
                tables[name] = frame
            elif name in ("udp", "hops", "milestones", "wlan"):  # written before UDP flows (or the hops, milestones or wlan table) existed
                tables[name] = _table(None, columns)
            else:
                raise FileNotFoundError(f"{src}: no {name}.parquet or {name}.json")
        captures = {p.name: p.read_bytes() for p in sorted((src / "pcap").glob("*.pcap"))} if (src / "pcap").is_dir() else {}
        return cls(summary=summary, scenario=scenario, captures=captures, **tables)


# The table fields read through `_Table` (set after the dataclass is made, so that they stay
# fields without a default, in their documented order).
for _name in TABLES:
    setattr(Result, _name, _Table(_name))
