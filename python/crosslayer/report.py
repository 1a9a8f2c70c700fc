"""Tables, a ranking, figures and a self-contained HTML (and Markdown) report of a result store.

* :func:`summary`: one row per study point (seeds pooled): the mean of each headline metric
  and, with several seeds, its 95 % confidence half-width (Student's t).
* :func:`paper_table`: a metric laid out as the seed papers' tables: rows are the other swept
  columns (load x TCP ...), columns the queue discipline.
* :func:`ranking`: AQM x TCP pairs ranked per scenario on fairness, delay and loss, with the
  weighting stated (seed 000's "which pair should I use").
* :func:`write_report`: ``index.html`` (figures embedded, no network access needed) and
  ``report.md`` with the tables, the figures, the study file, the engine version and the command
  that reproduces it.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import pandas as pd

from crosslayer.analysis import fairness, groups, interval95, quartiles, system
from crosslayer.fct import fct, slowdown_by_size
from crosslayer.metrics import BY_NAME, GROUP_COLUMN, METRICS, Metric, lookup
from crosslayer.store import Store, differences

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["DEFAULT_WEIGHTS", "MIN_SEEDS_FOR_CI", "Layout", "cells", "layout", "delay_goodput_ellipses", "goodput_boxes", "heatmap", "in_study_order", "paper_table", "queue_grid", "ranking", "summary", "write_report"]

MIN_SEEDS_FOR_CI: Final = 3
"""The fewest seeds a cell needs for a confidence interval: from two runs a 95 % Student-t interval
spans 12.7 standard errors on each side and leaves the range of most metrics, so it is not shown."""

DEFAULT_WEIGHTS: Final = {"fairness": 1.0, "delay": 1.0, "loss": 1.0}
"""Ranking weights: Jain's index (higher is better), mean queuing delay and drop ratio (lower
is better), each min-max normalized within its scenario."""

OKABE_ITO: Final = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
"""A colour-blind-safe palette (Okabe and Ito)."""


def in_study_order(frame: pd.DataFrame, levels: Mapping[str, Sequence[Any]]) -> pd.DataFrame:
    """``frame`` sorted by the swept columns in the study's order of their values."""
    cols = [c for c in levels if c in frame.columns]
    if not cols or frame.empty:
        return frame
    keys = {c: frame[c].map({v: i for i, v in enumerate(levels[c])}).fillna(len(levels[c])) for c in cols}
    order = pd.DataFrame(keys).sort_values(cols, kind="stable").index
    return frame.loc[order].reset_index(drop=True)


def summary(runs: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Per point (``columns`` without ``seed``): ``n`` seeds, each declared metric's mean and
    ``<metric>_ci95``, the half-width of its 95 % confidence interval (Student's t; NaN with
    fewer than :data:`MIN_SEEDS_FOR_CI` seeds). Points keep the order of ``runs`` (see
    :func:`in_study_order`)."""
    point = [c for c in columns if c != "seed"]
    metrics = [m.name for m in METRICS if m.name in runs.columns]
    rows = []
    groups = runs.groupby(point, sort=False, dropna=False) if point else [((), runs)]
    for key, g in groups:
        row: dict[str, Any] = dict(zip(point, key if isinstance(key, tuple) else (key,)))
        row["n"] = len(g)
        for m in metrics:
            iv = interval95(pd.to_numeric(g[m], errors="coerce").astype(float).to_numpy())
            row[m] = iv.mean
            row[f"{m}_ci95"] = iv.half if iv.n >= MIN_SEEDS_FOR_CI else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def interval(r: Mapping[str, Any], metric: Metric) -> tuple[float, float, float]:
    """(mean, low, high) of a summary row in the metric's display unit; the interval is NaN with
    fewer than :data:`MIN_SEEDS_FOR_CI` seeds and is clipped to the metric's range."""
    mean = float(r[metric.name])
    half = r.get(f"{metric.name}_ci95", math.nan)
    half = float(half) if half is not None else math.nan
    lo, hi = mean - half, mean + half
    if metric.bounds is not None and math.isfinite(half):
        lo, hi = max(lo, metric.bounds[0]), min(hi, metric.bounds[1])
    return mean * metric.scale, lo * metric.scale, hi * metric.scale


def with_metric(runs: pd.DataFrame, flows: pd.DataFrame, columns: Sequence[str], metric: str, group: str = GROUP_COLUMN) -> tuple[pd.DataFrame, list[str]]:
    """``runs`` carrying ``metric`` and the columns to lay it out by. A ``run`` metric is a runs
    column; a ``flows`` metric is computed per run from ``flows``; a ``group`` one gives a row
    per run and ``group`` value, and ``group`` joins the columns (before ``seed``).
    ``ValueError`` for an unknown metric, or one this store's runs lack."""
    m = lookup(metric)
    if m.level == "run":
        if metric not in runs.columns:
            raise ValueError(f"{metric!r}: this store's runs have no such column (stored by an older crosslayer); run the study again into a new store")
        return runs, list(columns)
    if m.level == "flows":
        per = fairness(flows, ["key"], group).merge(system(flows, ["key"]), on="key")
        q = quartiles(flows, ["key"]).rename(columns={"q1": "goodput_q1_mbps", "median": "goodput_median_mbps", "q3": "goodput_q3_mbps"})
        per = per.merge(q[["key", "goodput_q1_mbps", "goodput_median_mbps", "goodput_q3_mbps"]], on="key")
        return runs.drop(columns=[metric], errors="ignore").merge(per[["key", metric]], on="key", how="left"), list(columns)
    per = groups(flows, ["key"], group)
    cols = [c for c in columns if c != "seed"] + [group] + [c for c in columns if c == "seed"]
    return runs.drop(columns=[group, metric], errors="ignore").merge(per[["key", group, metric]], on="key", how="inner"), cols


def store_metric(root: str | Path, lay: Layout, metric: str, runs: pd.DataFrame | None = None) -> tuple[pd.DataFrame, list[str], list[str]]:
    """``runs`` (default: the layout's) carrying ``metric`` (:func:`with_metric`), the columns to
    lay it out by, and the row columns it adds (``cc`` for a per-TCP metric). The store's flows
    are read only for a flow-level metric."""
    m = lookup(metric)
    runs = lay.runs if runs is None else runs
    flows = runs.iloc[0:0]
    if m.level != "run":
        flows = with_base_labels(Store(root).table("flows", set(runs["key"])), lay.columns)
        flows = flows[flows["key"].isin(runs["key"])] if not flows.empty else flows
        if flows.empty:
            raise ValueError(f"{metric!r} is computed from the flows table, and this store holds no flows for these runs")
    with_it, columns = with_metric(runs, flows, lay.columns, metric)
    return with_it, columns, [GROUP_COLUMN] if m.level == "group" else []


def _aqm_column(columns: Sequence[str], paths: Mapping[str, str]) -> str | None:
    for path, col in paths.items():
        if "qdisc" in path and col in columns:
            return col
    return None


def _seeds_note(summ: pd.DataFrame) -> tuple[str, bool]:
    """How many seeds the cells have (one phrase), and whether they differ between cells."""
    counts = sorted({int(n) for n in summ["n"]}) if "n" in summ and len(summ) else [0]
    if len(counts) == 1:
        n = counts[0]
        return f"{n} seed{'s' if n != 1 else ''} per cell", False
    return f"{counts[0]} to {counts[-1]} seeds per cell (n in each cell)", True


def caption(summ: pd.DataFrame, metric: str) -> tuple[str, str]:
    """A table's title (the metric, its unit, what a cell shows and how many seeds) and its note
    (why some cells have no interval, and that intervals are clipped to the metric's range)."""
    m = lookup(metric)
    seeds, _ = _seeds_note(summ)
    ns = [int(n) for n in summ["n"]] if "n" in summ else []
    title = f"{m.title}: mean" + (" ± 95 % confidence interval" if any(n >= MIN_SEEDS_FOR_CI for n in ns) else "") + f", {seeds}"
    notes = []
    if any(n < MIN_SEEDS_FOR_CI for n in ns):
        notes.append(
            f"Cells with fewer than {MIN_SEEDS_FOR_CI} seeds show no interval: from so few runs a 95 % interval is wider "
            "than the metric's range (add seeds with [study] seeds = [...])."
        )
    if m.bounds is not None and any(n >= MIN_SEEDS_FOR_CI for n in ns):
        lo, hi = (b * m.scale for b in m.bounds)
        notes.append(f"Intervals are clipped to the metric's range [{lo:g}, {hi:g}] and then shown as [low, high].")
    return title, " ".join(notes)


def paper_table(summ: pd.DataFrame, metric: str, rows: Sequence[str], col: str, *, with_ci: bool = True) -> pd.DataFrame:
    """``metric`` as text, rows by ``rows``, columns by ``col`` (in their order of appearance);
    with only one swept column (``rows == [col]``), one column of values. A cell is the mean in
    the metric's display unit, ``± half-width`` of its 95 % interval (none with fewer than
    :data:`MIN_SEEDS_FOR_CI` seeds; ``[low, high]`` when clipped to the metric's range), and
    ``(n=k)`` when the cells have different numbers of seeds."""
    m = lookup(metric)
    _, varies = _seeds_note(summ)
    out = summ.copy()

    def cell(r: pd.Series) -> str:
        mean, lo, hi = interval(r, m)
        if not np.isfinite(mean):
            return "-"
        text = m.fmt.format(mean)
        if with_ci and np.isfinite(lo):
            half = (hi - lo) / 2
            clipped = not math.isclose(mean - lo, hi - mean, rel_tol=1e-9, abs_tol=1e-12)
            text += f" [{m.fmt.format(lo)}, {m.fmt.format(hi)}]" if clipped else " ± " + m.fmt.format(half)
        if varies:
            text += f" (n={int(r['n'])})"
        return text

    out["_cell"] = out.apply(cell, axis=1) if len(out) else pd.Series(dtype=str)
    if list(rows) == [col] or not rows:
        table = out.set_index(col)[["_cell"]].rename(columns={"_cell": m.title})
        table.columns.name = None
        return table
    order = list(dict.fromkeys(out[col]))
    table = out.pivot_table(index=list(rows), columns=col, values="_cell", aggfunc="first", sort=False)
    table = table[[c for c in order if c in table.columns]].fillna("")
    table.columns.name = col
    return table


def cells(summ: pd.DataFrame, metric: str, rows: Sequence[str], col: str) -> pd.DataFrame:
    """``metric`` as numbers, one row per cell: the point columns (``rows`` and ``col``), then
    ``mean``, ``ci_low``, ``ci_high`` (NaN with fewer than :data:`MIN_SEEDS_FOR_CI` seeds;
    clipped to the metric's range), ``n`` (seeds), ``metric`` and ``unit`` (the display unit
    the numbers are in)."""
    m = lookup(metric)
    keys = list(dict.fromkeys([*rows, col]))
    out = []
    for r in summ.to_dict(orient="records"):
        mean, lo, hi = interval(r, m)
        out.append({**{k: r[k] for k in keys}, "mean": mean, "ci_low": lo, "ci_high": hi, "n": int(r["n"]), "metric": m.name, "unit": m.unit})
    return pd.DataFrame(out, columns=[*keys, "mean", "ci_low", "ci_high", "n", "metric", "unit"])


def ranking(summ: pd.DataFrame, scenario_cols: Sequence[str], pair_cols: Sequence[str], weights: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Rank the pairs (``pair_cols``, e.g. AQM x TCP) within each scenario (``scenario_cols``,
    e.g. topology x load): score = sum of weight x normalized metric, higher is better, with
    fairness = Jain's index, delay = mean queuing delay and loss = drop ratio each min-max
    normalized within the scenario (0 = worst pair, 1 = best). Ties share a rank."""
    w = {**DEFAULT_WEIGHTS, **(weights or {})}
    unknown = set(w) - set(DEFAULT_WEIGHTS)
    if unknown:
        raise ValueError(f"unknown ranking weight {sorted(unknown)[0]!r}: use fairness, delay, loss")
    parts = {"fairness": ("jain", True), "delay": ("sojourn_mean_s", False), "loss": ("drop_ratio", False)}
    frames = []
    groups = summ.groupby(list(scenario_cols), sort=False) if scenario_cols else [((), summ)]
    for _, g in groups:
        g = g.copy()
        score = np.zeros(len(g))
        for name, (metric, higher) in parts.items():
            x = g[metric].astype(float).fillna(0.0).to_numpy()
            lo, hi = float(np.min(x)), float(np.max(x))
            norm = np.ones_like(x) if hi == lo else (x - lo) / (hi - lo)
            if not higher:
                norm = 1.0 - norm if hi != lo else norm
            g[f"{name}_score"] = norm
            score += w[name] * norm
        total = sum(w.values()) or 1.0
        g["score"] = score / total
        g["rank"] = g["score"].rank(ascending=False, method="min").astype(int)
        frames.append(g.sort_values("rank"))
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    keep = [*scenario_cols, "rank", *pair_cols, "score", "jain", "sojourn_mean_s", "drop_ratio"]
    return out[[c for c in keep if c in out.columns]]


# -- figures ----------------------------------------------------------------------------------


def _png(fig: Figure) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def heatmap(summ: pd.DataFrame, metric: str, row: Sequence[str], col: str, fixed: Mapping[str, Any] | None = None) -> Figure:
    """``metric`` over two axes (rows: the combinations of ``row``), viridis, values printed;
    ``fixed`` (column -> value) names the points' other values in the title. A bounded metric
    (Jain's index, utilization, ratios) is coloured over its whole range, so two heatmaps of it
    compare; others over the values shown (the colour bar says which)."""
    import matplotlib.pyplot as plt

    m = lookup(metric)
    t = summ.pivot_table(index=list(row), columns=col, values=metric, aggfunc="mean", sort=False) * m.scale
    t = t[[c for c in dict.fromkeys(summ[col]) if c in t.columns]]
    vals = t.to_numpy(dtype=float)
    if m.bounds is not None:
        vmin, vmax = (b * m.scale for b in m.bounds)
        scale_note = f"colour: the metric's range [{vmin:g}, {vmax:g}]"
    else:
        finite = vals[np.isfinite(vals)]
        vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        scale_note = "colour: the values shown"
    fig, ax = plt.subplots(figsize=(1.2 + 1.1 * t.shape[1], 0.8 + 0.32 * t.shape[0]))
    im = ax.imshow(vals, aspect="auto", cmap="viridis", vmin=vmin, vmax=vmax)
    ax.set_xticks(range(t.shape[1]), [str(c) for c in t.columns])
    ax.set_yticks(range(t.shape[0]), [" / ".join(map(str, i)) if isinstance(i, tuple) else str(i) for i in t.index])
    ax.set_xlabel(col)
    ax.set_ylabel(" / ".join(row))
    mid = (vmin + vmax) / 2
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            v = vals[i, j]
            if np.isfinite(v):
                ax.text(j, i, m.fmt.format(v), ha="center", va="center", fontsize=7, color="white" if v < mid else "black")
    fig.colorbar(im, ax=ax, label=f"{m.title}\n({scale_note})")
    where = ", ".join(f"{k} = {v}" for k, v in (fixed or {}).items())
    ax.set_title(m.title + (f"\n{where}" if where else ""), fontsize=10)
    return fig


def queue_grid(series: pd.DataFrame, runs: pd.DataFrame, row: Sequence[str], col: str, fixed: Mapping[str, Any]) -> Figure | None:
    """Bottleneck queue length over time as a grid: rows the combinations of ``row``, columns
    ``col`` (seed 000's Figures 2-9), for the points matching ``fixed``; the first seed."""
    import matplotlib.pyplot as plt

    if series.empty:
        return None
    sel = runs
    for k, v in fixed.items():
        sel = sel[sel[k] == v]
    if "seed" in sel.columns and len(sel):
        sel = sel[sel["seed"] == sel["seed"].min()]
    if sel.empty:
        return None
    rows = list(dict.fromkeys(tuple(r) for r in sel[list(row)].itertuples(index=False)))
    cols = list(dict.fromkeys(sel[col]))
    fig, axes = plt.subplots(len(rows), len(cols), figsize=(2.6 * len(cols) + 0.8, 1.6 * len(rows) + 0.8), sharex=True, sharey=True, squeeze=False, layout="constrained")
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            ax = axes[i][j]
            m = sel[(sel[col] == c)]
            for k, v in zip(row, r):
                m = m[m[k] == v]
            if m.empty:
                ax.set_axis_off()
                continue
            s = series[series["key"] == m["key"].iloc[0]]
            ax.plot(s["t_s"], s["qlen_pkts"], lw=0.6, color=OKABE_ITO[0])
            if i == 0:
                ax.set_title(str(c), fontsize=9)
            if j == 0:
                ax.set_ylabel(" / ".join(map(str, r)) + "\nqueue (pkts)", fontsize=8)
            if i == len(rows) - 1:
                ax.set_xlabel("time (s)")
    title = ", ".join(f"{k} = {v}" for k, v in fixed.items())
    fig.suptitle(f"Bottleneck queue length{': ' + title if title else ''}", fontsize=10)
    return fig


def goodput_boxes(flows: pd.DataFrame, by: Sequence[str], fixed: Mapping[str, Any]) -> Figure | None:
    """Per-flow goodput distributions (box plots, Mb/s) per point matching ``fixed``."""
    import matplotlib.pyplot as plt

    sel = flows
    for k, v in fixed.items():
        sel = sel[sel[k] == v]
    if sel.empty:
        return None
    groups = list(sel.groupby(list(by), sort=False))
    fig, ax = plt.subplots(figsize=(max(4.0, 0.55 * len(groups) + 1.5), 3.2))
    ax.boxplot([g["goodput_bps"] / 1e6 for _, g in groups], showfliers=True, flierprops={"markersize": 2})
    ax.set_xticks(range(1, len(groups) + 1), [" / ".join(map(str, k if isinstance(k, tuple) else (k,))) for k, _ in groups], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("per-flow goodput (Mb/s)")
    title = ", ".join(f"{k} = {v}" for k, v in fixed.items())
    ax.set_title(f"Per-flow goodput{': ' + title if title else ''}", fontsize=10)
    return fig


def slowdown_figure(by_size: pd.DataFrame, point: Sequence[str]) -> Figure | None:
    """Mean and 99th-percentile slowdown per size bin, a line per point (the figure the
    data-center transport papers draw), on a log scale."""
    import matplotlib.pyplot as plt

    if by_size.empty:
        return None
    bins = list(dict.fromkeys(by_size["size_bin"]))
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.4), sharey=True, layout="constrained")
    groups = by_size.groupby(list(point), sort=False) if point else [((), by_size)]
    for key, g in groups:
        label = ", ".join(str(k) for k in (key if isinstance(key, tuple) else (key,))) or "all"
        x = [bins.index(b) for b in g["size_bin"]]
        for ax, col in zip(axes, ("slowdown_mean", "slowdown_p99")):
            ax.plot(x, g[col], marker="o", label=label)
    for ax, title in zip(axes, ("mean slowdown", "99th-percentile slowdown")):
        ax.set_xticks(range(len(bins)), bins, rotation=30, fontsize=8)
        ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("flow size (payload)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("FCT / ideal FCT")
    axes[1].legend(fontsize=7, title=", ".join(point) or None, title_fontsize=7)
    return fig


def delay_goodput_ellipses(flows: pd.DataFrame, group: str, fixed: Mapping[str, Any]) -> Figure | None:
    """RFC 7928 (section 2.7) delay-goodput plot: each flow's queueing delay (mean RTT less its
    propagation RTT, ms; delay grows to the left, as the RFC draws it) and goodput (Mb/s), one
    colour per value of ``group`` (the AQM), with the one-standard-deviation ellipse of each
    group's points (from their covariance) and a cross at their mean."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Ellipse

    sel = flows
    for k, v in fixed.items():
        sel = sel[sel[k] == v]
    if sel.empty or "rtt_mean_s" not in sel.columns:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    for i, (name, g) in enumerate(sel.groupby(group, sort=False)):
        x = ((g["rtt_mean_s"] - g["base_rtt_s"]) * 1e3).to_numpy(dtype=float)
        y = (g["goodput_bps"] / 1e6).to_numpy(dtype=float)
        ok = np.isfinite(x) & np.isfinite(y)
        x, y = x[ok], y[ok]
        if not len(x):
            continue
        color = OKABE_ITO[i % len(OKABE_ITO)]
        ax.scatter(x, y, s=8, color=color, alpha=0.5, label=str(name))
        ax.plot([x.mean()], [y.mean()], marker="x", color=color, markersize=9)
        if len(x) >= 3:
            cov = np.cov(x, y)
            vals, vecs = np.linalg.eigh(cov)
            vals = np.clip(vals, 0, None)
            angle = math.degrees(math.atan2(vecs[1, 1], vecs[0, 1]))
            ax.add_patch(Ellipse((x.mean(), y.mean()), 2 * math.sqrt(vals[1]), 2 * math.sqrt(vals[0]), angle=angle, fill=False, color=color, lw=1.2))
    ax.invert_xaxis()
    ax.set_xlabel("queueing delay (ms; mean RTT - propagation RTT)")
    ax.set_ylabel("per-flow goodput (Mb/s)")
    ax.legend(title=group, fontsize="small", frameon=False)
    title = ", ".join(f"{k} = {v}" for k, v in fixed.items())
    ax.set_title(f"Delay vs goodput (RFC 7928){': ' + title if title else ''}", fontsize=10)
    return fig


# -- the report -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """How a store's runs are laid out: its stored runs in the study's order, the swept columns
    (``seed`` last), the point columns, the discipline column (``aqm``: the swept path naming a
    qdisc, else the last point column) and the others (the tables' rows)."""

    meta: dict[str, Any]
    runs: pd.DataFrame
    columns: list[str]
    point: list[str]
    aqm: str | None
    others: list[str]


MAX_GRIDS: Final = 6
"""At most this many queue grids (and goodput box plots) in a report: one per value of the first
row column, when there are three or more."""

BASE_LABEL = "base"
"""The label of a swept column in runs stored before that axis existed (they ran at the base
file's value)."""


def with_base_labels(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` with :data:`BASE_LABEL` where a swept column is missing (runs stored before an
    axis existed ran at the base file's value)."""
    frame = frame.copy()
    for c in columns:
        if c not in frame.columns:
            frame[c] = BASE_LABEL
        elif frame[c].isna().any():
            frame[c] = frame[c].astype(object).where(frame[c].notna(), BASE_LABEL)
    return frame


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``1``, not ``np.int64(1)``)."""
    return value.item() if hasattr(value, "item") else value


def _config_difference(runs: pd.DataFrame) -> str:
    """What differs between the first two runs' scenarios, as a study file writes them."""
    import json

    if len(runs) < 2:
        return ""
    a, b = runs.iloc[0], runs.iloc[1]
    col = "scenario_json" if "scenario_json" in runs and isinstance(a.get("scenario_json"), str) and isinstance(b.get("scenario_json"), str) else "config"
    if col not in runs:
        return ""
    diff = differences(json.loads(a[col]), json.loads(b[col]))
    return "they differ in " + "; ".join(f"{k}: {x!r} in one, {y!r} in the other" for k, x, y in diff[:4]) if diff else ""


def layout(store: Store) -> Layout:
    """The :class:`Layout` of ``store``; ``ValueError`` if it holds no run."""
    runs = store.runs()
    if runs.empty:
        raise ValueError(f"{store.root} holds no stored run")
    meta = store.meta()
    columns = [c for c in meta.get("columns", {}).values() if c in runs.columns] or ["seed"]
    runs = with_base_labels(runs, columns)
    twins = runs.groupby(columns, dropna=False, sort=False)["key"].nunique()
    if (twins > 1).any():
        first = twins[twins > 1].index[0]
        point = dict(zip(columns, first if len(columns) > 1 else (first,)))
        shown = ", ".join(f"{k} = {_plain(v)}" for k, v in point.items())
        same = runs
        for k, v in point.items():
            same = same[same[k] == v]
        diff = _config_difference(same)
        raise ValueError(
            f"{store.root} holds {int((twins > 1).sum())} points with several different runs at the same swept values "
            f"(e.g. {shown}{'; ' + diff if diff else ''}): they differ in a setting that is not a column (a --set of a "
            "field no axis sweeps, or an edited study file), and a table would average them as one. Keep one "
            f"definition: `crosslayer results prune {store.root} --study STUDY.toml` removes the runs that are not points "
            "of STUDY.toml (or run it with `crosslayer study run STUDY.toml --fresh`); or write such runs to another "
            "store (-o), or make the setting an axis of the study"
        )
    runs = in_study_order(runs, meta.get("levels", {}))
    point = [c for c in columns if c != "seed"]
    aqm = _aqm_column(point, meta.get("columns", {})) or (point[-1] if point else None)
    return Layout(meta, runs, columns, point, aqm, [c for c in point if c != aqm])


FIGURES: Final = ("heatmap", "queues", "goodput", "ellipses")
"""The figures :func:`figure` draws from a store."""


def figure(
    root: str | Path, kind: str, *, metric: str = "jain", rows: Sequence[str] | None = None, col: str | None = None, where: Mapping[str, str] | None = None
) -> Figure:
    """One of the report's figures for any metric and axes: ``heatmap`` (``metric`` over
    ``rows`` x ``col``), ``queues`` (the queue-length grid), ``goodput`` (per-flow goodput
    boxes per point) or ``ellipses`` (RFC 7928 delay vs goodput, one colour per ``col`` value).
    ``rows`` and ``col`` default to the store's layout (columns: the queue discipline); ``where``
    keeps the points whose columns have those values (compared as text). ``ValueError`` names a
    bad request."""
    lay = layout(Store(root))
    if kind not in FIGURES:
        raise ValueError(f"unknown figure {kind!r}: use {', '.join(FIGURES)}")
    col = col or lay.aqm
    if col is None:
        raise ValueError("the store has no swept column to lay out; name one with --cols")
    rows = list(rows) if rows else [c for c in lay.point if c != col and c not in (where or {})]
    for c in [*rows, col, *(where or {})]:
        if c not in lay.columns:
            raise ValueError(f"{c!r} is not a swept column of this store: its columns are {', '.join(lay.columns)}")
    runs = lay.runs
    for c, v in (where or {}).items():
        runs = runs[runs[c].astype(str) == str(v)]
        if runs.empty:
            raise ValueError(f"no run has {c} = {v}: its values are {', '.join(map(str, dict.fromkeys(lay.runs[c])))}")
    fixed = {c: runs[c].iloc[0] for c in (where or {})}
    if kind == "heatmap":
        runs, columns, more_rows = store_metric(root, lay, metric, runs)
        rows = [*rows, *more_rows]
        summ = summary(runs, columns)
        if not rows:  # one swept column: a single row
            summ = summ.assign(**{"": lookup(metric).label})
            rows = [""]
        return heatmap(summ, metric, rows, col, fixed)
    if kind == "queues":
        fig = queue_grid(Store(root).series(), runs, rows, col, fixed)
    else:
        flows = in_study_order(with_base_labels(Store(root).flows(), lay.columns), lay.meta.get("levels", {}))
        flows = flows[flows["key"].isin(runs["key"])]
        fig = goodput_boxes(flows, lay.point, fixed) if kind == "goodput" else delay_goodput_ellipses(flows, col, fixed)
    if fig is None:
        raise ValueError(f"nothing to draw for {kind} (no {'queue series' if kind == 'queues' else 'flows'} in the selected runs)")
    return fig


def write_report(root: str | Path, out: str | Path | None = None, weights: Mapping[str, float] | None = None) -> Path:
    """Write ``index.html`` and ``report.md`` (default: ``<store>/report/``); returns the folder."""
    store = Store(root)
    lay = layout(store)
    meta, runs, columns, point, aqm, others = lay.meta, lay.runs, lay.columns, lay.point, lay.aqm, lay.others
    summ = summary(runs, columns)
    folder = Path(out) if out else store.root / "report"
    folder.mkdir(parents=True, exist_ok=True)
    flows = in_study_order(with_base_labels(store.flows(), columns), meta.get("levels", {}))

    sections: list[tuple[str, str, str]] = []  # (title, html, markdown)

    def add_table(title: str, df: pd.DataFrame, note: str = "", index: bool = True) -> None:
        table_html = df.to_html(classes="t", border=0, na_rep="-", escape=True, index=index)
        flat = df.reset_index() if index and df.index.nlevels > 1 or (index and df.index.name) else df
        md_text = flat.to_markdown(index=index and flat is df)
        sections.append((title, (f"<p>{html.escape(note)}</p>" if note else "") + table_html, (note + "\n\n" if note else "") + md_text))

    def add_figure(title: str, fig: Figure | None, alt: str) -> None:
        if fig is None:
            return
        data = _png(fig)
        name = f"fig{len([s for s in sections if s[1].startswith('<img')]) + 1}.png"
        (folder / name).write_bytes(base64.b64decode(data))
        sections.append((title, f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">', f"![{alt}]({name})"))

    if aqm is not None:
        for m in METRICS:
            if m.in_report and m.name in summ.columns:
                title, note = caption(summ, m.name)
                add_table(title, paper_table(summ, m.name, others or [aqm], aqm), note)
    else:
        add_table("Runs", summ)
    mixed_keys = set(flows.groupby("key")["cc"].nunique().loc[lambda n: n > 1].index) if not flows.empty else set()
    if aqm is not None and mixed_keys:  # the points that mix congestion controls (seed 000's Tables 8-13)
        for metric in ("bd_pct", "jain_inter"):
            by_cc, cols = with_metric(runs[runs["key"].isin(mixed_keys)], flows, columns, metric)
            summ_cc = summary(by_cc, cols)
            title, note = caption(summ_cc, metric)
            add_table(title + ", points mixing TCPs", paper_table(summ_cc, metric, [*(others or []), GROUP_COLUMN], aqm), note)
    # fairness and quartiles per point
    if not flows.empty:
        fq = in_study_order(quartiles(flows, point), meta.get("levels", {})).round(3)
        add_table("Per-flow goodput quartiles (Mb/s)", fq, index=False)
        fa = in_study_order(fairness(flows, point), meta.get("levels", {})).round(3)
        add_table(
            "Fairness (Jain's index)",
            fa,
            "intra: over all flows; inter: within each congestion-control group (least and mean over groups); "
            "RTT classes: over the mean goodput of each propagation-RTT class.",
            index=False,
        )
    fct_rows = fct(flows, point)
    if len(fct_rows):
        by_size = in_study_order(slowdown_by_size(fct_rows, point), meta.get("levels", {})).round(3)
        add_table(
            "Flow completion: slowdown per size bin",
            by_size,
            "Finite flows of all seeds together: slowdown = FCT / ideal FCT (the flow alone on its path with an unlimited "
            "window; >= 1); mean, median and 99th percentile over the completed flows of each payload-size bin.",
            index=False,
        )
        add_figure("Slowdown per flow size", slowdown_figure(by_size, point), "slowdown per size bin")
    if aqm is not None and others:
        pair_cols = [c for c in point if c in (aqm,) or "flows" in c or c in ("tcp", "cc")]
        scen = [c for c in point if c not in pair_cols]
        w = {**DEFAULT_WEIGHTS, **(weights or {})}
        add_table(
            "Ranking of pairs",
            ranking(summ, scen, pair_cols, w).round(3),
            f"Score = ({w['fairness']} x fairness + {w['delay']} x delay + {w['loss']} x loss) / {sum(w.values())}, each "
            "min-max normalized within the scenario (1 = best of its pairs): fairness = Jain's index, delay = mean "
            "queuing delay, loss = drop ratio. Change with `crosslayer study report --weights fairness=2,delay=1,loss=1`.",
            index=False,
        )
        for metric in ("jain", "sojourn_mean_s"):
            add_figure(f"Heatmap: {BY_NAME[metric].title}", heatmap(summ, metric, others, aqm), f"heatmap of {metric}")
        series = store.series()
        # with three or more row columns, one grid per value of the first (seed 000: a grid per
        # scenario, its Figures 2-4 and 5-9), up to MAX_GRIDS
        splits = [{others[0]: v} for v in dict.fromkeys(runs[others[0]])][:MAX_GRIDS] if len(others) > 2 else [{}]
        for fixed in splits:
            suffix = f" ({', '.join(f'{k} = {v}' for k, v in fixed.items())})" if fixed else ""
            add_figure("Bottleneck queue over time" + suffix, queue_grid(series, runs, [c for c in others if c not in fixed], aqm, fixed), "queue length grid")
        for fixed in splits:
            suffix = f" ({', '.join(f'{k} = {v}' for k, v in fixed.items())})" if fixed else ""
            add_figure("Per-flow goodput" + suffix, goodput_boxes(flows, point, fixed), "per-flow goodput box plots")
        one = {c: runs[c].iloc[0] for c in others}
        add_figure("Delay vs goodput (RFC 7928 section 2.7)", delay_goodput_ellipses(flows, aqm, one), "delay-goodput ellipses")

    from crosslayer import __version__

    command = " ; ".join(meta.get("commands") or [meta.get("command") or f"crosslayer study run {store.root / 'study.toml'} -o {store.root}"])
    study_text = (store.root / "study.toml").read_text() if (store.root / "study.toml").exists() else ""
    commits = sorted({str(c) for c in runs.get("git_commit", pd.Series(dtype=str)).dropna()})
    head = [
        ("Study", str(meta.get("name", store.root.name))),
        ("Runs", f"{len(runs)} ({len(summ)} points)"),
        ("Engine version", ", ".join(sorted(set(runs.get("engine_version", pd.Series([__version__])).astype(str))))),
        ("Git commit", ", ".join(commits) or "unknown"),
        ("Reproduce", command),
    ]
    title = f"crosslayer report: {meta.get('name', store.root.name)}"
    body = ["<h1>" + html.escape(title) + "</h1>", "<table class='meta'>" + "".join(f"<tr><th>{html.escape(k)}</th><td><code>{html.escape(v)}</code></td></tr>" for k, v in head) + "</table>"]
    md = [f"# {title}", "", *[f"* **{k}**: `{v}`" for k, v in head], ""]
    for t, h, m in sections:
        body += [f"<h2>{html.escape(t)}</h2>", h]
        md += [f"## {t}", "", m, ""]
    body += ["<h2>Study file</h2>", f"<pre>{html.escape(study_text)}</pre>"]
    md += ["## Study file", "", "```toml", study_text, "```", ""]
    css = (
        "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
        "table.t{border-collapse:collapse;font-size:13px;margin:0.5em 0 1.5em}table.t td,table.t th{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right}"
        "table.meta th{text-align:left;padding-right:1em}img{max-width:100%}pre{background:#f6f6f6;padding:1em;overflow:auto;font-size:12px}"
    )
    # marks the page once loaded: every figure decoded (read by tests in a headless browser)
    check = (
        "<script>window.addEventListener('load',function(){var b=0;for(var i of document.images)"
        "{if(!i.complete||i.naturalWidth===0)b++}document.body.setAttribute('data-figures',"
        "document.images.length+' shown, '+b+' broken')})</script>"
    )
    page = f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>{css}</style></head><body>{''.join(body)}{check}</body></html>"
    (folder / "index.html").write_text(page, encoding="utf-8")
    (folder / "report.md").write_text("\n".join(md), encoding="utf-8")
    return folder
