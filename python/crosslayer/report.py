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

from crosslayer.analysis import fairness, groups, quartiles, system
from crosslayer.store import Store

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["DEFAULT_WEIGHTS", "METRICS", "Layout", "layout", "delay_goodput_ellipses", "goodput_boxes", "heatmap", "in_study_order", "paper_table", "queue_grid", "ranking", "summary", "write_report"]

METRICS: Final[dict[str, tuple[str, float, str]]] = {
    # column: (label, scale, format)
    "utilization": ("utilization", 1.0, "{:.3f}"),
    "jain": ("Jain's index (all flows)", 1.0, "{:.3f}"),
    "qlen_mean_pkts": ("mean queue (pkts)", 1.0, "{:.1f}"),
    "qlen_sd_pkts": ("queue SD (pkts)", 1.0, "{:.1f}"),
    "sojourn_mean_s": ("mean queuing delay (ms)", 1e3, "{:.2f}"),
    "drop_ratio": ("drop ratio (%)", 100.0, "{:.3f}"),
    "goodput_total_mbps": ("system goodput (Mb/s)", 1.0, "{:.2f}"),
    "throughput_total_mbps": ("system throughput (Mb/s)", 1.0, "{:.2f}"),
    "active_flows": ("flows with goodput > 0", 1.0, "{:.0f}"),
    "max_host_goodput_share": ("largest host's goodput share in its direction (lock-out)", 1.0, "{:.3f}"),
}
"""The headline metrics of the ``runs`` table: label, scale for display, format."""

RUN_DERIVED: Final[dict[str, tuple[str, float, str]]] = {
    # computed per run from its flows (analysis.py)
    "jain_inter_min": ("least inter-fairness (Jain within a TCP group)", 1.0, "{:.3f}"),
    "jain_inter_mean": ("mean inter-fairness (Jain within a TCP group)", 1.0, "{:.3f}"),
    "jain_rtt_classes": ("RTT-fairness (Jain over RTT classes)", 1.0, "{:.3f}"),
    "goodput_over_throughput": ("system goodput / throughput", 1.0, "{:.4f}"),
    "goodput_q1_mbps": ("per-flow goodput Q1 (Mb/s)", 1.0, "{:.2f}"),
    "goodput_median_mbps": ("per-flow goodput median (Mb/s)", 1.0, "{:.2f}"),
    "goodput_q3_mbps": ("per-flow goodput Q3 (Mb/s)", 1.0, "{:.2f}"),
}
"""Metrics computed per run from the ``flows`` table (``crosslayer results table -m``)."""

GROUP_DERIVED: Final[dict[str, tuple[str, float, str]]] = {
    "bd_pct": ("bandwidth share per TCP, BD (%)", 1.0, "{:.1f}"),
    "avg_mbps": ("average goodput per flow of a TCP (Mb/s)", 1.0, "{:.2f}"),
    "sd_mbps": ("goodput SD within a TCP (Mb/s)", 1.0, "{:.2f}"),
    "jain_inter": ("inter-fairness (Jain within a TCP)", 1.0, "{:.3f}"),
}
"""Metrics per run and congestion-control group (rows gain the ``cc`` column)."""

ALL_METRICS: Final = {**METRICS, **RUN_DERIVED, **GROUP_DERIVED}

DEFAULT_WEIGHTS: Final = {"fairness": 1.0, "delay": 1.0, "loss": 1.0}
"""Ranking weights: Jain's index (higher is better), mean queuing delay and drop ratio (lower
is better), each min-max normalized within its scenario."""

OKABE_ITO: Final = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
"""A colour-blind-safe palette (Okabe and Ito)."""


def _t95(n: int) -> float:
    """Two-sided 95 % Student's t quantile for n - 1 degrees of freedom."""
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042}
    df = n - 1
    if df in table:
        return table[df]
    if df > 30:
        return 1.96 + 2.4 / df
    lower = max(k for k in table if k < df)
    return table[lower]


def in_study_order(frame: pd.DataFrame, levels: Mapping[str, Sequence[Any]]) -> pd.DataFrame:
    """``frame`` sorted by the swept columns in the study's order of their values."""
    cols = [c for c in levels if c in frame.columns]
    if not cols or frame.empty:
        return frame
    keys = {c: frame[c].map({v: i for i, v in enumerate(levels[c])}).fillna(len(levels[c])) for c in cols}
    order = pd.DataFrame(keys).sort_values(cols, kind="stable").index
    return frame.loc[order].reset_index(drop=True)


def summary(runs: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Per point (``columns`` without ``seed``): ``n`` seeds, each metric's mean and, with
    n > 1, ``<metric>_ci95`` (the half-width of its 95 % confidence interval). Points keep the
    order of ``runs`` (see :func:`in_study_order`)."""
    point = [c for c in columns if c != "seed"]
    metrics = [m for m in ALL_METRICS if m in runs.columns]
    rows = []
    groups = runs.groupby(point, sort=False, dropna=False) if point else [((), runs)]
    for key, g in groups:
        row: dict[str, Any] = dict(zip(point, key if isinstance(key, tuple) else (key,)))
        row["n"] = len(g)
        for m in metrics:
            x = g[m].astype(float).to_numpy()
            row[m] = float(np.nanmean(x)) if len(x) else math.nan
            row[f"{m}_ci95"] = float(_t95(len(x)) * np.nanstd(x, ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def with_metric(runs: pd.DataFrame, flows: pd.DataFrame, columns: Sequence[str], metric: str, group: str = "cc") -> tuple[pd.DataFrame, list[str]]:
    """``runs`` carrying ``metric`` and the columns to lay it out by. A runs column comes as
    it is; a :data:`RUN_DERIVED` metric is computed per run from ``flows``; a
    :data:`GROUP_DERIVED` one gives a row per run and ``group`` value, and ``group`` joins the
    columns (before ``seed``). ``ValueError`` for an unknown metric."""
    if metric in runs.columns and metric not in GROUP_DERIVED:
        return runs, list(columns)
    if metric in RUN_DERIVED:
        per = fairness(flows, ["key"], group).merge(system(flows, ["key"]), on="key")
        q = quartiles(flows, ["key"]).rename(columns={"q1": "goodput_q1_mbps", "median": "goodput_median_mbps", "q3": "goodput_q3_mbps"})
        per = per.merge(q[["key", "goodput_q1_mbps", "goodput_median_mbps", "goodput_q3_mbps"]], on="key")
        return runs.merge(per[["key", metric]], on="key", how="left"), list(columns)
    if metric in GROUP_DERIVED:
        per = groups(flows, ["key"], group)
        cols = [c for c in columns if c != "seed"] + [group] + [c for c in columns if c == "seed"]
        return runs.drop(columns=[group], errors="ignore").merge(per[["key", group, metric]], on="key", how="inner"), cols
    known = [m for m in ALL_METRICS if m in runs.columns or m in RUN_DERIVED or m in GROUP_DERIVED]
    raise ValueError(f"unknown metric {metric!r}: use one of {', '.join(known)}")


def store_metric(root: str | Path, lay: Layout, metric: str, runs: pd.DataFrame | None = None) -> tuple[pd.DataFrame, list[str], list[str]]:
    """``runs`` (default: the layout's) carrying ``metric`` (:func:`with_metric`), the columns to
    lay it out by, and the row columns it adds (``cc`` for a per-TCP metric). The store's flows
    are read only for a flow-level metric."""
    runs = lay.runs if runs is None else runs
    flows = runs.iloc[0:0]
    if metric in RUN_DERIVED or metric in GROUP_DERIVED:
        flows = with_base_labels(Store(root).flows(), lay.columns)
        flows = flows[flows["key"].isin(runs["key"])]
    with_it, columns = with_metric(runs, flows, lay.columns, metric)
    return with_it, columns, ["cc"] if metric in GROUP_DERIVED else []


def _aqm_column(columns: Sequence[str], paths: Mapping[str, str]) -> str | None:
    for path, col in paths.items():
        if "qdisc" in path and col in columns:
            return col
    return None


def paper_table(summ: pd.DataFrame, metric: str, rows: Sequence[str], col: str, *, with_ci: bool = True) -> pd.DataFrame:
    """``metric`` as text, rows by ``rows``, columns by ``col`` (in their order of appearance)."""
    label, scale, fmt = ALL_METRICS.get(metric, (metric, 1.0, "{:.4g}"))
    out = summ.copy()

    def cell(r: pd.Series) -> str:
        v = r[metric] * scale
        if not np.isfinite(v):
            return "-"
        text = fmt.format(v)
        ci = r.get(f"{metric}_ci95", math.nan)
        if with_ci and isinstance(ci, float) and np.isfinite(ci):
            text += " ± " + fmt.format(ci * scale)
        return text

    out["_cell"] = out.apply(cell, axis=1)
    order = list(dict.fromkeys(out[col]))
    table = out.pivot_table(index=list(rows), columns=col, values="_cell", aggfunc="first", sort=False)
    table = table[[c for c in order if c in table.columns]]
    table.columns.name = col
    return table


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
    ``fixed`` (column -> value) names the points' other values in the title."""
    import matplotlib.pyplot as plt

    label, scale, fmt = ALL_METRICS.get(metric, (metric, 1.0, "{:.3g}"))
    t = summ.pivot_table(index=list(row), columns=col, values=metric, aggfunc="mean", sort=False) * scale
    t = t[[c for c in dict.fromkeys(summ[col]) if c in t.columns]]
    fig, ax = plt.subplots(figsize=(1.2 + 1.1 * t.shape[1], 0.8 + 0.32 * t.shape[0]))
    im = ax.imshow(t.to_numpy(dtype=float), aspect="auto", cmap="viridis")
    ax.set_xticks(range(t.shape[1]), [str(c) for c in t.columns])
    ax.set_yticks(range(t.shape[0]), [" / ".join(map(str, i)) if isinstance(i, tuple) else str(i) for i in t.index])
    ax.set_xlabel(col)
    ax.set_ylabel(" / ".join(row))
    vals = t.to_numpy(dtype=float)
    mid = np.nanmean(vals) if np.isfinite(vals).any() else 0
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            v = vals[i, j]
            if np.isfinite(v):
                ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize=7, color="white" if v < mid else "black")
    fig.colorbar(im, ax=ax, label=label)
    where = ", ".join(f"{k} = {v}" for k, v in (fixed or {}).items())
    ax.set_title(label + (f"\n{where}" if where else ""), fontsize=10)
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
        point = dict(zip(columns, twins[twins > 1].index[0] if len(columns) > 1 else (twins[twins > 1].index[0],)))
        raise ValueError(
            f"{store.root} holds {int((twins > 1).sum())} points with several different runs at the same swept values "
            f"(e.g. {point}): they differ in a setting that is not a column (a --set of a field no axis sweeps, or an edited "
            "study file), and a table would average them as one; write such runs to another store (-o), or make the "
            "setting an axis of the study"
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
        if not rows:
            raise ValueError("a heatmap needs a row column besides the column axis; name one with --rows")
        return heatmap(summary(runs, columns), metric, rows, col, fixed)
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
        for metric in ["utilization", "jain", "qlen_mean_pkts", "qlen_sd_pkts", "sojourn_mean_s", "drop_ratio"]:
            if metric in summ.columns:
                t = paper_table(summ, metric, others or [aqm], aqm) if others else paper_table(summ, metric, [aqm], aqm)
                add_table(METRICS[metric][0], t)
    else:
        add_table("Runs", summ)
    mixed_keys = set(flows.groupby("key")["cc"].nunique().loc[lambda n: n > 1].index) if not flows.empty else set()
    if aqm is not None and mixed_keys:  # the points that mix congestion controls (seed 000's Tables 8-13)
        for metric in ("bd_pct", "jain_inter"):
            by_cc, cols = with_metric(runs[runs["key"].isin(mixed_keys)], flows, columns, metric)
            add_table(GROUP_DERIVED[metric][0] + ", points mixing TCPs", paper_table(summary(by_cc, cols), metric, [*(others or []), "cc"], aqm))
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
            add_figure(f"Heatmap: {METRICS[metric][0]}", heatmap(summ, metric, others, aqm), f"heatmap of {metric}")
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
