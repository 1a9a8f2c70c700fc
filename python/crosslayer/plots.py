"""Figures from results (matplotlib): what a paper shows of a queue over time.

:func:`queue_figure` draws the queue the ``series`` table sampled (the bottleneck unless the
scenario's ``series_queue`` names another): its length, the sojourn time of the packets it sent
in each sample interval, and any of its discipline's state variables (CoDel's ``count``, PIE's
``drop_prob``, RED's ``avg``; ``crosslayer list aqm`` names them).

:func:`cwnd_figure` draws chosen flows' congestion windows (with ssthresh), their pacing rate
when the algorithm paces (BBR), and any of their algorithms' state variables (``crosslayer list
cc`` names them): Reno's sawtooth, CUBIC's concave-convex curve, BBR's gain cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .result import Result

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["cwnd_figure", "goodput_figure", "queue_figure"]


def _chosen_flows(result: Result, flows: Sequence[str], default: int) -> list[str]:
    """``flows``, or the first ``default`` flows; ``ValueError`` naming the flows for an unknown one."""
    names = list(result.flows["name"])
    chosen = list(flows) or names[:default]
    unknown = [f for f in chosen if f not in names]
    if unknown:
        raise ValueError(f"no flow {unknown}; flows: {', '.join(names[:12])}{' ...' if len(names) > 12 else ''}")
    return chosen


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
    return result.scenario.series_link()



def cwnd_figure(
    result: Result,
    flows: Sequence[str] = (),
    state: Sequence[str] = (),
    *,
    ssthresh: bool = True,
    title: str | None = None,
    width: float = 7.0,
) -> Figure:
    """Congestion window (segments) of each flow in ``flows`` (default: the first four) over
    the run, ssthresh dashed, a pacing-rate panel (Mb/s) when any of them is paced, and one more
    panel per ``state`` column of their algorithms (``<cc>_<field>``, e.g. ``bbr_pacing_gain``;
    the ``<cc>_`` prefix may be left out when the flows share one algorithm).

    Raises ``ValueError`` when the run recorded no cwnd trace (``cwnd_trace`` off), for an
    unknown flow, or for a state column none of the flows records.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    c = result.cwnd
    if c.empty:
        raise ValueError("the run recorded no cwnd trace: set cwnd_trace = true and sample_interval in the scenario")
    chosen = _chosen_flows(result, flows, 4)
    ccs = dict(zip(result.flows["name"], result.flows["cc"], strict=True))
    fixed = {"t_s", "flow", "cwnd_bytes", "ssthresh_bytes", "in_flight_bytes", "acked_bytes", "srtt_s", "pacing_rate_bps"}
    recorded = [col for col in c.columns if col not in fixed]
    columns = []
    for name in state:
        candidates = [name] if name in recorded else [f"{ccs[f]}_{name}" for f in chosen if f"{ccs[f]}_{name}" in recorded]
        if not candidates:
            raise ValueError(f"state {name!r} not recorded for these flows; recorded: {', '.join(recorded) or 'nothing'}")
        columns.append(candidates[0])
    mss = {f.name: int(result.scenario.tcp_for(result.scenario.flows[f.group]).engine_spec()["mss"]) for f in result.scenario.expand_flows()}
    rows = {f: c[c["flow"] == f] for f in chosen}
    # (a result saved before the pacing column existed has none: nothing paced then)
    paced = "pacing_rate_bps" in c.columns and any(np.isfinite(r["pacing_rate_bps"].to_numpy(dtype=float)).any() for r in rows.values())
    n = 1 + int(paced) + len(columns)
    fig, axes = plt.subplots(n, 1, sharex=True, figsize=(width, 2.2 * n + 0.6), squeeze=False)
    ax = [a[0] for a in axes]
    for k, (f, r) in enumerate(rows.items()):
        t = r["t_s"].to_numpy()
        color = f"C{k % 10}"
        ax[0].step(t, r["cwnd_bytes"].to_numpy() / mss[f], where="post", lw=0.9, color=color, label=f"{f} ({ccs[f]})")
        if ssthresh:
            ss = r["ssthresh_bytes"].to_numpy(dtype=float) / mss[f]  # NaN while unset
            ax[0].step(t, ss, where="post", lw=0.7, ls="--", color=color, alpha=0.7)
        i = 1
        if paced:
            ax[i].step(t, r["pacing_rate_bps"].to_numpy(dtype=float) / 1e6, where="post", lw=0.8, color=color)
            i += 1
        for col in columns:
            ax[i].step(t, r[col].to_numpy(dtype=float), where="post", lw=0.8, color=color)
            i += 1
    ax[0].set_ylabel("cwnd (segments)")
    ax[0].set_ylim(bottom=0)
    ax[0].legend(loc="upper right", fontsize="small", frameon=False, title="ssthresh dashed" if ssthresh else None, title_fontsize="small")
    i = 1
    if paced:
        ax[i].set_ylabel("pacing (Mb/s)")
        ax[i].set_ylim(bottom=0)
        i += 1
    for col in columns:
        ax[i].set_ylabel(col)
        i += 1
    warmup_s = result.scenario.warmup / 1e9
    for a in ax:
        if warmup_s > 0:
            a.axvspan(0, warmup_s, color="0.9", lw=0)
        a.grid(True, lw=0.3, alpha=0.5)
    ax[-1].set_xlabel("time (s)")
    ax[-1].set_xlim(float(c["t_s"].min()), float(c["t_s"].max()))
    fig.suptitle(title or f"{result.scenario.name}: congestion window", fontsize="medium")
    fig.tight_layout()
    return fig


def goodput_figure(result: Result, flows: Sequence[str] = (), *, every: float = 1.0, title: str | None = None, width: float = 7.0) -> Figure:
    """Goodput (Mb/s) of each flow in ``flows`` (default: every flow, up to 12) over the run:
    the goodput table's (``goodput_interval``, bytes delivered in order per interval) when the
    run has one, its bins ``goodput_interval`` long; else from the cwnd trace's
    ``acked_bytes`` (bytes acknowledged in order), averaged over ``every`` seconds. The warm-up
    is shaded.

    Raises ``ValueError`` when the run recorded neither or for an unknown flow.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    g = getattr(result, "goodput", None)
    c = result.cwnd
    if (g is None or g.empty) and (c.empty or "acked_bytes" not in c.columns):
        raise ValueError("the run recorded no goodput series and no cwnd trace: set goodput_interval (or cwnd_trace = true and sample_interval) in the scenario")
    chosen = _chosen_flows(result, flows, 12)
    fig, ax = plt.subplots(figsize=(width, 3.4))
    if g is not None and not g.empty:
        every = result.scenario.goodput_interval / 1e9
        for k, f in enumerate(chosen):
            r = g[g["flow"] == f]
            if len(r):
                # each row is the interval ending at t_s: draw it from t_s - every
                t = np.concatenate([[r["t_s"].iloc[0] - every], r["t_s"].to_numpy(dtype=float)])
                y = r["goodput_bps"].to_numpy(dtype=float) / 1e6
                ax.step(t, np.concatenate([y[:1], y]), where="pre", lw=0.9, color=f"C{k % 10}", label=f)
    for k, f in enumerate(chosen if g is None or g.empty else ()):
        r = c[c["flow"] == f]
        t = r["t_s"].to_numpy(dtype=float)
        acked = r["acked_bytes"].to_numpy(dtype=float)
        if len(t) < 2:
            continue
        edges = np.arange(0.0, t[-1] + every, every)
        at = np.interp(edges, t, acked)
        rate = np.diff(at) * 8 / every / 1e6
        ax.step(edges[1:], rate, where="pre", lw=0.9, color=f"C{k % 10}", label=f)
    warmup_s = result.scenario.warmup / 1e9
    if warmup_s > 0:
        ax.axvspan(0, warmup_s, color="0.9", zorder=0)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"goodput (Mb/s, {every:g} s bins)")
    ax.legend(loc="upper right", fontsize="x-small", frameon=False, ncol=2)
    ax.set_title(title or f"{result.scenario.name}: per-flow goodput", fontsize=10)
    fig.tight_layout()
    return fig
