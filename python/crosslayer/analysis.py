"""The seed papers' metrics over a store's tables, per study point.

Definitions (seed 000, Appl. Sci. 11, 7808, section 5, and seed 002 for goodput):

* per-flow throughput quartiles: min, Q1, median, Q3, max of the flows' goodput;
* Jain's index ``(sum x)^2 / (n sum x^2)``: **inter-fairness** within each congestion-control
  group ("flows using the same TCP"), **intra-fairness** over all flows ("flows that use
  different TCP versions"), **RTT-fairness** over all flows when their RTTs differ, and here
  also over the mean goodput of each RTT class (flows with the same propagation RTT);
* **BD %**: a group's share of the summed goodput; average goodput and its SD per group;
* system goodput (payload delivered) and system throughput (bytes sent, retransmissions
  included), summed over flows.

Every function takes a flows table (``Store.flows()`` or ``Result.flows``) and the columns
that identify a point (the study's swept columns; none for a single run), and returns one row
per point (and group).

The seed pages compare such values, over several seeds, with the numbers a paper prints, by one
criterion (:func:`against_paper`, stated in ``docs/VALIDATION.md``): a value **agrees** when the
paper's number lies inside crosslayer's 95 % interval of the mean over the seeds
(:func:`interval95`), or within the metric's tolerance (:data:`PAPER_TOLERANCES`) of that mean.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import pandas as pd

from crosslayer.fct import per_point as _per_point
from crosslayer.result import jain_index

__all__ = ["PAPER_TOLERANCES", "Interval", "PaperVerdict", "Tolerance", "against_paper", "fairness", "groups", "interval95", "jain", "quartiles", "rtt_fairness", "system", "t975"]


def jain(values: Iterable[float]) -> float:
    """Jain's fairness index of ``values`` (1 = equal shares; 1/n = one takes all)."""
    return jain_index(values)


def quartiles(flows: pd.DataFrame, point: Sequence[str] = (), value: str = "goodput_bps") -> pd.DataFrame:
    """Min, Q1, median, Q3 and max of ``value`` over the flows of each point (Mb/s for rates)."""
    scale = 1e-6 if value.endswith("_bps") else 1.0
    rows = []
    for labels, g in _per_point(flows, point):
        x = g[value].to_numpy(dtype=float) * scale
        q = np.percentile(x, [0, 25, 50, 75, 100]) if len(x) else [np.nan] * 5
        rows.append({**labels, "min": q[0], "q1": q[1], "median": q[2], "q3": q[3], "max": q[4], "mean": float(np.mean(x)) if len(x) else np.nan})
    return pd.DataFrame(rows)


def groups(flows: pd.DataFrame, point: Sequence[str] = (), group: str = "cc", value: str = "goodput_bps") -> pd.DataFrame:
    """Per point and group: flows, average and SD of ``value`` (Mb/s), BD % (the group's share
    of the point's total) and inter-fairness (Jain's index within the group)."""
    rows = []
    for labels, g in _per_point(flows, point):
        total = float(g[value].sum())
        for name, gg in g.groupby(group, sort=True):
            x = gg[value].to_numpy(dtype=float)
            rows.append(
                {
                    **labels,
                    group: name,
                    "flows": len(x),
                    "avg_mbps": float(x.mean()) / 1e6,
                    "sd_mbps": float(x.std(ddof=0)) / 1e6,
                    "bd_pct": 100.0 * float(x.sum()) / total if total > 0 else np.nan,
                    "jain_inter": jain(x),
                }
            )
    return pd.DataFrame(rows)


def fairness(flows: pd.DataFrame, point: Sequence[str] = (), group: str = "cc", value: str = "goodput_bps") -> pd.DataFrame:
    """Per point: intra-fairness (Jain over all flows), the least and the mean inter-fairness
    over the groups, and RTT-class fairness (:func:`rtt_fairness`)."""
    rows = []
    for labels, g in _per_point(flows, point):
        inter = groups(g, (), group, value)["jain_inter"] if len(g) else pd.Series(dtype=float)
        rows.append(
            {
                **labels,
                "flows": len(g),
                "jain_intra": jain(g[value]),
                "jain_inter_min": float(inter.min()) if len(inter) else np.nan,
                "jain_inter_mean": float(inter.mean()) if len(inter) else np.nan,
                "jain_rtt_classes": float(rtt_fairness(g, (), value)["jain_rtt_classes"].iloc[0]) if len(g) else np.nan,
            }
        )
    return pd.DataFrame(rows)


def rtt_fairness(flows: pd.DataFrame, point: Sequence[str] = (), value: str = "goodput_bps", rtt: str = "base_rtt_s") -> pd.DataFrame:
    """Per point: Jain's index over the mean ``value`` of each RTT class (flows with the same
    propagation RTT, to the microsecond) - 1 when every RTT class gets the same per-flow
    share - and the number of classes."""
    rows = []
    for labels, g in _per_point(flows, point):
        means = g.groupby(g[rtt].round(6))[value].mean()
        rows.append({**labels, "rtt_classes": len(means), "jain_rtt_classes": jain(means)})
    return pd.DataFrame(rows)


def system(flows: pd.DataFrame, point: Sequence[str] = ()) -> pd.DataFrame:
    """Per point: system goodput and system throughput (Mb/s, summed over flows) and their
    ratio (seed 002's efficiency)."""
    rows = []
    for labels, g in _per_point(flows, point):
        gp, tp = float(g["goodput_bps"].sum()) / 1e6, float(g["throughput_bps"].sum()) / 1e6
        rows.append({**labels, "goodput_mbps": gp, "throughput_mbps": tp, "goodput_over_throughput": gp / tp if tp > 0 else np.nan})
    return pd.DataFrame(rows)


# Student's t, 97.5 % quantile, 1..30 degrees of freedom (two-sided 95 %).
_T975: Final = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788, 2.1604, 2.1448, 2.1314,
                2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)  # fmt: skip


def t975(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom (a table to 30, then
    the Cornish-Fisher expansion, within 0.0005 of the exact value)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1 (got {df})")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959963984540054
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2) + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)


@dataclass(frozen=True)
class Interval:
    """The mean of ``n`` values and its two-sided 95 % Student-t interval ``[lo, hi]``
    (``half`` its half-width; 0 for one value, which has no interval)."""

    mean: float
    half: float
    n: int

    @property
    def lo(self) -> float:
        return self.mean - self.half

    @property
    def hi(self) -> float:
        return self.mean + self.half


def interval95(values: Iterable[float]) -> Interval:
    """Mean and 95 % interval of the finite ``values`` (seeds of one cell)."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=float)
    if len(v) == 0:
        return Interval(float("nan"), float("nan"), 0)
    if len(v) == 1:
        return Interval(float(v[0]), 0.0, 1)
    return Interval(float(v.mean()), t975(len(v) - 1) * float(v.std(ddof=1)) / math.sqrt(len(v)), len(v))


@dataclass(frozen=True)
class Tolerance:
    """How far from a paper's number a mean may be and still agree: ``max(relative * |paper|,
    floor)`` in the paper's units (``relative`` None: ``floor`` alone)."""

    relative: float | None
    floor: float
    text: str


PAPER_TOLERANCES: Final[dict[str, Tolerance]] = {
    "aggregate_rate": Tolerance(0.03, 0.0, "3 %"),
    "rate": Tolerance(0.10, 0.0, "10 %"),
    "share_pct": Tolerance(None, 3.0, "3 points"),
    "jain": Tolerance(None, 0.05, "0.05"),
    "queue_pkts": Tolerance(0.20, 1.0, "20 % (1 packet)"),
    "delay_s": Tolerance(0.20, 0.5e-3, "20 % (0.5 ms)"),
    "drop_pct": Tolerance(0.25, 0.01, "25 % (0.01 points)"),
}
"""The tolerances of the seed pages, by kind of value: the crosscheck's bars (aggregate goodput
3 %, queue 20 %, drops 25 %, Jain 0.05), 10 % for a single flow's or a group's rate (its
quartiles, mean and SD: the crosscheck's bar for a congestion control's share) and 3 points for
a share in per cent."""


@dataclass(frozen=True)
class PaperVerdict:
    """One number of a paper against crosslayer's seeds."""

    paper: float
    ours: Interval
    allowed: float
    verdict: str
    """"agrees" (within the tolerance), "agrees (interval)" (the paper's number inside the 95 %
    interval, beyond the tolerance), "differs", or "not measured"."""

    @property
    def agrees(self) -> bool:
        return self.verdict.startswith("agrees")


def _rounding(printed: str) -> float:
    """Half a unit of the last digit a number is printed with ("0.75": 0.005; "814": 0.5)."""
    m = re.search(r"\.(\d+)", printed)
    return 0.5 * 10.0 ** -(len(m.group(1)) if m else 0)


def against_paper(paper: str | float, values: Iterable[float], kind: str) -> PaperVerdict:
    """A paper's number (as printed: its rounding widens the tolerance by half a unit of its last
    digit) against crosslayer's values over the seeds, by the seed pages' criterion: **agrees**
    when ``|mean - paper| <= max(tolerance, rounding)`` or the paper's number lies in the 95 %
    interval of the mean; else **differs**. ``kind`` is a key of :data:`PAPER_TOLERANCES`."""
    tol = PAPER_TOLERANCES[kind]
    p = float(paper)
    ours = interval95(values)
    allowed = max(tol.floor if tol.relative is None else max(tol.relative * abs(p), tol.floor), _rounding(paper) if isinstance(paper, str) else 0.0)
    if ours.n == 0:
        return PaperVerdict(p, ours, allowed, "not measured")
    if abs(ours.mean - p) <= allowed * (1 + 1e-9):  # a printed 0.80 against 0.75 is 0.05 apart
        return PaperVerdict(p, ours, allowed, "agrees")
    if ours.n > 1 and ours.lo <= p <= ours.hi:
        return PaperVerdict(p, ours, allowed, "agrees (interval)")
    return PaperVerdict(p, ours, allowed, "differs")
