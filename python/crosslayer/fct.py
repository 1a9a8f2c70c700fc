"""Finite flows and their completion times over a flows table (``Result.flows`` or
``Store.flows()``): the ``fct`` table and the slowdown per size bin, the figure the data-center
transport papers draw. FCT, ideal FCT and slowdown are the engine's columns
(``docs/models/workload.md``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd


def per_point(table: pd.DataFrame, point: Sequence[str]) -> Iterator[tuple[dict[str, object], pd.DataFrame]]:
    """Each point's labels (column -> value) and its rows."""
    if not point:
        yield {}, table
        return
    for key, g in table.groupby(list(point), sort=True, dropna=False):
        yield dict(zip(point, key if isinstance(key, tuple) else (key,))), g


FCT_COLUMNS = ("name", "src", "dst", "cc", "start_s", "size_bytes", "fct_s", "ideal_fct_s", "slowdown", "retransmits", "timeouts", "bytes_left")
"""Columns of the ``fct`` table (with a store's ``key`` and point columns in front)."""

SIZE_BINS = (0, 10_000, 100_000, 1_000_000, 10_000_000, float("inf"))
"""Default size bins (payload bytes) of :func:`slowdown_by_size`: the decades the data-center
papers draw (< 10 KB, 10-100 KB, 100 KB-1 MB, 1-10 MB, >= 10 MB)."""


def fct(flows: pd.DataFrame, point: Sequence[str] = ()) -> pd.DataFrame:
    """The finite flows of a flows table (``size_bytes`` > 0), one row each (with a store's
    ``key`` and the ``point`` columns first) and ``completed``: the last byte was delivered
    before the run ended; otherwise ``fct_s`` and ``slowdown`` are NaN and ``bytes_left`` says
    what was missing."""
    keep = [c for c in ("key", *point) if c in flows]
    if "size_bytes" not in flows:
        return pd.DataFrame(columns=[*keep, *FCT_COLUMNS, "completed"])
    out = flows.loc[finite_flows(flows), [*keep, *FCT_COLUMNS]].copy()
    out["completed"] = out["fct_s"].notna()
    return out.reset_index(drop=True)


def finite_flows(flows: pd.DataFrame) -> np.ndarray:
    """Which rows of a flows table are finite flows (``size_bytes`` > 0; none without the
    column, a table from before finite flows)."""
    if "size_bytes" not in flows:
        return np.zeros(len(flows), dtype=bool)
    return (flows["size_bytes"] > 0).to_numpy(dtype=bool)


def slowdown_by_size(table: pd.DataFrame, point: Sequence[str] = (), bins: Sequence[float] = SIZE_BINS) -> pd.DataFrame:
    """Per point and size bin: how many finite flows, how many completed, and the mean, median
    and 99th percentile of the completed flows' slowdown (FCT / ideal FCT). ``table`` is a flows
    or fct table; bins are [low, high) payload bytes."""
    table = fct(table, point) if "completed" not in table else table
    labels = [_bin_label(lo, hi) for lo, hi in zip(bins, bins[1:])]
    rows = []
    for point_labels, g in per_point(table, point):
        which = pd.cut(g["size_bytes"].astype(float), bins=list(bins), right=False, labels=labels)
        for label in labels:
            b = g[which == label]
            if not len(b):
                continue
            s = b.loc[b["completed"], "slowdown"]
            rows.append(
                {
                    **point_labels,
                    "size_bin": label,
                    "flows": len(b),
                    "completed": int(b["completed"].sum()),
                    "slowdown_mean": float(s.mean()) if len(s) else np.nan,
                    "slowdown_p50": float(s.quantile(0.5)) if len(s) else np.nan,
                    "slowdown_p99": float(s.quantile(0.99)) if len(s) else np.nan,
                }
            )
    return pd.DataFrame(rows)


def _bin_label(lo: float, hi: float) -> str:
    from crosslayer.units import format_size

    if hi == float("inf"):
        return f">= {format_size(int(lo))}"
    return f"< {format_size(int(hi))}" if lo == 0 else f"{format_size(int(lo))}-{format_size(int(hi))}"
