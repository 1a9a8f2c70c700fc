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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from crosslayer.fct import per_point as _per_point
from crosslayer.result import jain_index

__all__ = ["fairness", "groups", "jain", "quartiles", "rtt_fairness", "system"]


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
