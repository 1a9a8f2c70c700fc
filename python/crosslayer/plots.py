"""Figures from results (matplotlib): what a paper shows of a queue over time.

:func:`queue_figure` draws the queue the ``series`` table sampled (the bottleneck unless the
scenario's ``series_queue`` names another): its length, the sojourn time of the packets it sent
in each sample interval, and any of its discipline's state variables (CoDel's ``count``, PIE's
``drop_prob``, RED's ``avg``; ``crosslayer list aqm`` names them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .result import Result

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["queue_figure"]


def queue_figure(result: Result, state: Sequence[str] = (), *, title: str | None = None, width: float = 7.0) -> Figure:
    """Queue length (packets) and sojourn time (ms; mean and largest per sample interval) over
    the run, with one more panel per ``state`` column of the discipline.

    The warm-up is shaded. Raises ``ValueError`` for a state column the discipline does not
    record, or when the run recorded no series (``sample_interval`` unset).
    """
    import matplotlib.pyplot as plt

    s = result.series
    if s.empty:
        raise ValueError("the run recorded no series: set sample_interval in the scenario")
    fixed = {"t_s", "qlen_pkts", "qlen_bytes", "sojourn_mean_s", "sojourn_max_s"}
    available = [c for c in s.columns if c not in fixed]
    unknown = [c for c in state if c not in available]
    if unknown:
        raise ValueError(f"state {unknown} not recorded by this discipline; it records: {', '.join(available) or 'nothing'}")
    queue = result.scenario.series_queue
    qdisc = result.scenario.series_qdisc()["kind"]
    rows = 2 + len(state)
    fig, axes = plt.subplots(rows, 1, sharex=True, figsize=(width, 1.9 * rows + 0.6), squeeze=False)
    ax = [a[0] for a in axes]
    t = s["t_s"].to_numpy()
    ax[0].step(t, s["qlen_pkts"].to_numpy(), where="post", lw=0.8, color="C0")
    ax[0].set_ylabel("queue (pkts)")
    mean_ms = s["sojourn_mean_s"].to_numpy() * 1e3
    max_ms = s["sojourn_max_s"].to_numpy() * 1e3
    ax[1].plot(t, max_ms, lw=0.6, color="C1", alpha=0.5, label="largest")
    ax[1].plot(t, mean_ms, lw=0.9, color="C1", label="mean")
    ax[1].set_ylabel("sojourn (ms)")
    ax[1].legend(loc="upper right", fontsize="small", frameon=False)
    for a, name in zip(ax[2:], state, strict=True):
        a.step(t, s[name].to_numpy(), where="post", lw=0.8, color="C2")
        a.set_ylabel(name)
    warmup_s = result.scenario.warmup / 1e9
    for a in ax:
        if warmup_s > 0:
            a.axvspan(0, warmup_s, color="0.9", lw=0)
        a.grid(True, lw=0.3, alpha=0.5)
    ax[0].set_ylim(bottom=0)
    ax[1].set_ylim(bottom=0)
    ax[-1].set_xlabel("time (s)")
    ax[-1].set_xlim(t[0], t[-1])
    b = result.queues[result.queues["link"] == _link_name(result)]
    summary = ""
    if len(b) == 1:
        r = b.iloc[0]
        summary = f"\nmeasured: mean {r['qlen_mean_pkts']:.1f} pkts, sojourn {r['sojourn_mean_s'] * 1e3:.2f} ms, drops {100 * r['drop_ratio']:.2f} %"
    fig.suptitle(title or f"{result.scenario.name}, {queue} queue ({qdisc}){summary}", fontsize="medium")
    fig.tight_layout()
    return fig


def _link_name(result: Result) -> str:
    return {"bottleneck": "A->B", "reverse": "B->A"}.get(result.scenario.series_queue, result.scenario.series_queue)

