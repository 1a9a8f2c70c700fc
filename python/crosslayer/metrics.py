"""The run metrics of a result store, declared once.

Each :class:`Metric` says its column name, what it means, its display unit, scale and format,
its range (for bounded metrics such as Jain's index), and how it is computed:

* ``run``: a column of the store's ``runs`` table, computed from each run's :class:`Result` when
  the run is stored (``compute``);
* ``flows``: computed per run from the store's ``flows`` table when a table or figure asks for it
  (:mod:`crosslayer.analysis`);
* ``group``: computed per run and congestion-control group from the ``flows`` table (rows gain the
  ``cc`` column).

Everything else derives from this one list: the store's ``runs`` schema (:func:`run_row`), the
column names an axis's column yields to (:data:`RESERVED`), the report's tables, the metric
choices of ``crosslayer results table`` and ``results plot`` (and their help), and the test that
tabulates and plots every declared metric. All run metrics are about the bottleneck (the A -> B
queue) and the flows, over the measurement window [warmup, duration].
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

__all__ = ["FIXED_RUN_COLUMNS", "METRICS", "RESERVED", "Metric", "lookup", "run_row"]

Level = Literal["run", "flows", "group"]


@dataclass(frozen=True)
class Metric:
    """One metric of a study's runs."""

    name: str
    """Its column name (``results table -m NAME``)."""
    label: str
    """What it is, for table captions and figure axes (without the unit)."""
    unit: str
    """The display unit after ``scale`` (``ms``, ``%``, ``Mb/s``, ``pkts``; empty: a pure number)."""
    doc: str
    """How it is defined."""
    level: Level
    scale: float = 1.0
    """Display value = stored value x scale (e.g. seconds -> ms: 1e3)."""
    fmt: str = "{:.3g}"
    """Display format of one value (in the display unit)."""
    bounds: tuple[float, float] | None = None
    """Its range in stored units, for bounded metrics (colour scales, confidence intervals)."""
    compute: Callable[[Any, Mapping[str, Any]], Any] | None = None
    """``run`` metrics: the value from a run's Result and its aggregates."""
    in_report: bool = False
    """Tabulated in every study report."""

    @property
    def title(self) -> str:
        """``label (unit)``, or the label alone for a pure number."""
        return f"{self.label} ({self.unit})" if self.unit else self.label

    def shown(self, value: float) -> str:
        """One stored value in the display unit and format (``-`` when it is not a number)."""
        v = value * self.scale
        return self.fmt.format(v) if math.isfinite(v) else "-"


def _flows_sum(r: Any, column: str) -> float:
    """The sum of a flows column, NaN skipped, as pandas' ``Series.sum`` gives it (the same
    pairwise sum of the same values), from the engine's array."""
    import numpy as np

    return float(np.nansum(r.numbers("flows", column)))


def _b(agg: Mapping[str, Any], key: str) -> Any:
    return agg["bottleneck"][key]


UNIT: Final = (0.0, 1.0)

METRICS: Final[tuple[Metric, ...]] = (
    # -- per run, stored in the runs table
    Metric("flows", "TCP flows", "", "TCP flows in the run", "run", fmt="{:.0f}", compute=lambda r, a: a["flows"]),
    Metric("utilization", "bottleneck utilization", "", "fraction of the window the bottleneck (A -> B) transmitter was busy", "run", fmt="{:.3f}", bounds=UNIT, compute=lambda r, a: _b(a, "utilization"), in_report=True),
    Metric("qlen_mean_pkts", "mean queue", "pkts", "exact time-average of the bottleneck queue length", "run", fmt="{:.1f}", compute=lambda r, a: _b(a, "qlen_mean_pkts"), in_report=True),
    Metric("qlen_sd_pkts", "queue SD", "pkts", "time-weighted standard deviation of the bottleneck queue length", "run", fmt="{:.1f}", compute=lambda r, a: _b(a, "qlen_sd_pkts"), in_report=True),
    Metric("sojourn_mean_s", "mean queuing delay", "ms", "mean sojourn time of packets through the bottleneck queue", "run", scale=1e3, fmt="{:.2f}", compute=lambda r, a: _b(a, "sojourn_mean_s"), in_report=True),
    Metric("sojourn_p99_s", "99th percentile queuing delay", "ms", "99th percentile of the sojourn time through the bottleneck queue", "run", scale=1e3, fmt="{:.2f}", compute=lambda r, a: _b(a, "sojourn_p99_s")),
    Metric("drop_ratio", "drop ratio", "%", "bottleneck queue drops (every reason) / arrivals", "run", scale=100.0, fmt="{:.3f}", bounds=UNIT, compute=lambda r, a: _b(a, "drop_ratio"), in_report=True),
    Metric("jain", "Jain's index (all flows)", "", "Jain's index of the flows' goodput", "run", fmt="{:.3f}", bounds=UNIT, compute=lambda r, a: a["jain"], in_report=True),
    Metric("goodput_mean_mbps", "mean per-flow goodput", "Mb/s", "mean of the flows' goodput", "run", fmt="{:.2f}", compute=lambda r, a: a["goodput_mbps"]["mean"]),
    Metric("goodput_total_mbps", "system goodput", "Mb/s", "sum of the flows' goodput (payload delivered for the first time)", "run", fmt="{:.2f}", compute=lambda r, a: _flows_sum(r, "goodput_bps") / 1e6),
    Metric("throughput_total_mbps", "system throughput", "Mb/s", "sum of the flows' throughput (bytes sent, headers and retransmissions included)", "run", fmt="{:.2f}", compute=lambda r, a: _flows_sum(r, "throughput_bps") / 1e6),
    Metric("active_flows", "flows with goodput > 0", "", "flows that delivered data in the window", "run", fmt="{:.0f}", compute=lambda r, a: int((r.numbers("flows", "goodput_bps") > 0).sum())),
    Metric("zero_goodput_flows", "flows with zero goodput", "", "flows that delivered nothing in the window (a lock-out indicator)", "run", fmt="{:.0f}", compute=lambda r, a: a["lockout"]["zero_goodput_flows"]),
    Metric("max_host_goodput_share", "largest host goodput share", "", "the largest share of one host in the goodput of its direction (near 1: a lock-out)", "run", fmt="{:.3f}", bounds=UNIT, compute=lambda r, a: a["lockout"]["max_host_goodput_share"]),
    Metric("max_host_bottleneck_drop_share", "largest host drop share", "", "the largest fraction of one host's packets dropped at the bottleneck (arrival and queued drops)", "run", fmt="{:.3f}", bounds=UNIT, compute=lambda r, a: a["lockout"]["max_host_bottleneck_drop_share"]),
    Metric("wall_s", "wall time", "s", "the engine's wall time for the run", "run", fmt="{:.3g}", compute=lambda r, a: a["wall_s"]),
    Metric("sim_s", "simulated time", "s", "simulated seconds (the scenario's duration)", "run", fmt="{:.3g}", compute=lambda r, a: a["sim_s"]),
    Metric("events", "events", "", "events the engine executed", "run", fmt="{:.4g}", compute=lambda r, a: a["events"]),
    # -- per run, computed from the flows table
    Metric("jain_inter_min", "least inter-fairness", "", "the least Jain's index within a congestion-control group", "flows", fmt="{:.3f}", bounds=UNIT),
    Metric("jain_inter_mean", "mean inter-fairness", "", "the mean over congestion-control groups of Jain's index within the group", "flows", fmt="{:.3f}", bounds=UNIT),
    Metric("jain_rtt_classes", "RTT-fairness", "", "Jain's index over the mean goodput of each propagation-RTT class", "flows", fmt="{:.3f}", bounds=UNIT),
    # not bounded by 1: goodput counts what arrives in the window, throughput what leaves in it
    Metric("goodput_over_throughput", "system goodput / throughput", "", "system goodput over system throughput (seed 002's efficiency; near 1 only over windows much longer than an RTT)", "flows", fmt="{:.4f}"),
    Metric("goodput_q1_mbps", "per-flow goodput Q1", "Mb/s", "first quartile of the flows' goodput", "flows", fmt="{:.2f}"),
    Metric("goodput_median_mbps", "per-flow goodput median", "Mb/s", "median of the flows' goodput", "flows", fmt="{:.2f}"),
    Metric("goodput_q3_mbps", "per-flow goodput Q3", "Mb/s", "third quartile of the flows' goodput", "flows", fmt="{:.2f}"),
    # -- per run and congestion-control group, from the flows table
    Metric("bd_pct", "bandwidth share per TCP (BD)", "%", "a congestion-control group's share of the summed goodput (seed 000's BD)", "group", fmt="{:.1f}", bounds=(0.0, 100.0)),
    Metric("avg_mbps", "average goodput per flow of a TCP", "Mb/s", "mean goodput of a congestion-control group's flows", "group", fmt="{:.2f}"),
    Metric("sd_mbps", "goodput SD within a TCP", "Mb/s", "standard deviation of the goodput within a congestion-control group", "group", fmt="{:.2f}"),
    Metric("jain_inter", "inter-fairness (Jain within a TCP)", "", "Jain's index within a congestion-control group", "group", fmt="{:.3f}", bounds=UNIT),
)
"""Every metric a store's tables and figures offer (``crosslayer results table -m``)."""

BY_NAME: Final[dict[str, Metric]] = {m.name: m for m in METRICS}

GROUP_COLUMN: Final = "cc"
"""The column ``group`` metrics add to the rows."""

FIXED_RUN_COLUMNS: Final = ("key", "scenario", "engine_version", "git_commit", "config", "scenario_json")
"""The ``runs`` columns that are not metrics: the run's key, its scenario name, what computed it,
its engine spec (``config``) and its scenario as a study file writes it (``scenario_json``)."""

RESERVED: Final = frozenset({*FIXED_RUN_COLUMNS, *BY_NAME, GROUP_COLUMN, "kind", "seed"})
"""Column names an axis's column yields to, taking ``_axis`` (the ``runs`` table's own, and every
metric's; :func:`crosslayer.study.column_names`)."""


def lookup(name: str) -> Metric:
    """The metric called ``name``; ``ValueError`` lists them."""
    try:
        return BY_NAME[name]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(name, list(BY_NAME), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ValueError(f"unknown metric {name!r}: {hint}use one of {', '.join(BY_NAME)}") from None


def run_row(result: Any) -> dict[str, Any]:
    """The ``run`` metrics of one run's :class:`~crosslayer.result.Result`."""
    agg = result.aggregates()
    return {m.name: m.compute(result, agg) for m in METRICS if m.level == "run" and m.compute is not None}
