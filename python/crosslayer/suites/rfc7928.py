"""The RFC 7928 suite's report (AQM characterization guidelines): each section's table and the
delay-goodput graphs of section 2.7.

RFC 7928 states what to measure, not what an AQM must achieve: the report gives the metrics it
asks for, compares every AQM with drop-tail (section 1.2), checks the congestion levels of
section 8.2 against the drop rates they are defined by, and sets the aggressive sender's
ellipses beside those the ns-3 AQM evaluation suite published.

**The ellipses** (section 2.7 cites Winstein's thesis: a maximum-likelihood 2-D Gaussian over
the points, the median marked): here the points are the bottleneck queue's mean sojourn and the
flows' summed goodput over each 100 ms after the warm-up, pooled over the seeds, as the ns-3
suite samples them; the ellipse is the Gaussian's one-standard-deviation contour, the circle
the median, and delay grows to the left (the ns-3 suite's and Winstein's orientation: better is
up and to the right).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crosslayer.suites.common import Expectation, alternating, cell, markdown, save_figure, section, seconds, write_report

if TYPE_CHECKING:
    import pandas as pd

    from crosslayer.store import Store

AQMS = ("droptail", "red", "ared", "pie", "codel", "fq_codel")

NS3_AGGRESSIVE: dict[str, tuple[float, float]] = {
    "droptail": (72.1, 0.787),
    "red": (50.1, 0.812),
    "ared": (27.4, 0.742),
    "pie": (19.1, 0.735),
    "codel": (2.43, 0.723),
}
"""The ns-3 AQM evaluation suite's aggressive-sender ellipse centres (queue delay ms, goodput
Mb/s): one BIC flow, 1 Mb/s, 100 ms (ns-3 had no CUBIC), from the plot data its upgrade forks
committed (aqm-eval-output, AggressiveTransportSender; the 2017 documentation has no figures)."""


def _samples(store: Store, by: list[str]) -> pd.DataFrame:
    """Per run and 100 ms interval after the warm-up: the queue's mean sojourn (ms) and the TCP
    flows' summed goodput (Mb/s), with ``by``'s columns."""
    runs = store.runs()
    warmup = {k: seconds(json.loads(sj)["warmup"]) for k, sj in zip(runs.key, runs.scenario_json, strict=True)}
    series = store.series()
    good = store.goodput().groupby(["key", "t_s"], as_index=False).goodput_bps.sum()
    d = series[["key", *by, "t_s", "sojourn_mean_s"]].merge(good, on=["key", "t_s"], how="inner")
    d = d[d.t_s > d.key.map(warmup)]
    return d.assign(delay_ms=d.sojourn_mean_s * 1e3, goodput_mbps=d.goodput_bps / 1e6).dropna(subset=["delay_ms"])


def _ellipse(ax: Any, x: Any, y: Any, color: Any, label: str) -> tuple[float, float]:
    """The 1-sigma contour of the ML Gaussian of (x, y), its median marked; returns the centre
    (the mean, as the ns-3 suite's ellipses give it; 100 ms goodputs are whole packets, so their
    median is the same for most AQMs)."""
    import numpy as np
    from matplotlib.patches import Ellipse

    xy = np.column_stack([x, y])
    mean = xy.mean(axis=0)
    cov = np.cov(xy, rowvar=False, bias=True) if len(xy) > 1 else np.zeros((2, 2))
    vals, vecs = np.linalg.eigh(cov)
    angle = float(np.degrees(np.arctan2(vecs[1, 1], vecs[0, 1])))
    w, h = 2 * np.sqrt(np.maximum(vals[::-1], 0))
    ax.add_patch(Ellipse(tuple(mean), w, h, angle=angle, fill=False, color=color, lw=1.5, label=label))
    ax.plot(float(np.median(x)), float(np.median(y)), "o", color=color, ms=4)
    return float(mean[0]), float(mean[1])


def _ellipse_panels(samples: pd.DataFrame, panel: str, out: Path, name: str, title: str) -> tuple[str, dict[str, dict[str, tuple[float, float]]]]:
    import matplotlib.pyplot as plt

    order = {p: i for i, p in enumerate(("friendly", "different_iw", "aggressive", "lbe", "udp_with_tcp", "mild", "medium", "heavy"))}
    panels = sorted(dict.fromkeys(samples[panel]), key=lambda p: order.get(str(p), len(order)))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), squeeze=False)
    medians: dict[str, dict[str, tuple[float, float]]] = {}
    for ax, p in zip(axes[0], panels, strict=True):
        d = samples[samples[panel] == p]
        medians[str(p)] = {}
        for i, aqm in enumerate(a for a in AQMS if a in set(d.aqm)):
            a = d[d.aqm == aqm]
            medians[str(p)][aqm] = _ellipse(ax, a.delay_ms, a.goodput_mbps, f"C{i}", aqm)
        ax.autoscale_view()
        ax.set_xlim(left=max(d.delay_ms.quantile(0.99) * 1.05, 1e-3), right=0)  # delay grows to the left
        ax.set(xlabel="queue delay (ms)", title=f"{title}: {p}")
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("goodput (Mb/s)")
    return save_figure(fig, out, name), medians


def _transport(stores: Mapping[str, Store], out: Path) -> tuple[str, list[Expectation]]:
    import pandas as pd

    parts, rows, exp = [], [], []
    for name, by in (("transport", "sender"), ("unresponsive-tcp", None)):
        if name not in stores:
            continue
        s = _samples(stores[name], ["aqm"] + ([by] if by else []))
        parts.append(s.assign(scenario=s[by] if by else "udp_with_tcp"))
    samples = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    fig_path, medians = _ellipse_panels(samples, "scenario", out, "transport_ellipses", "section 5") if len(samples) else ("", {})
    for name in ("transport", "unresponsive-tcp", "unresponsive"):
        if name not in stores:
            continue
        runs, flows, udp = stores[name].runs(), stores[name].flows(), stores[name].udp()
        fct = stores[name].fct()
        runs = runs.assign(scenario=runs["sender"] if "sender" in runs else name.replace("unresponsive-tcp", "udp_with_tcp").replace("unresponsive", "udp_alone"))
        for (scenario, aqm), d in runs.groupby(["scenario", "aqm"], sort=False):
            keys = set(d.key)
            f, u, limited = (t[t.key.isin(keys)] if "key" in t else t for t in (flows, udp, fct))
            rows.append({
                "scenario": scenario, "aqm": aqm, "queue delay ms": cell(d.sojourn_mean_s * 1e3), "p99 ms": cell(d.sojourn_p99_s * 1e3),
                "A1 flow Mb/s": cell(f[f.src == "A1"].groupby("key").goodput_bps.sum() / 1e6) if len(f) and (f.src == "A1").any() else "-",
                "A2 flow Mb/s": cell(f[f.src == "A2"].groupby("key").goodput_bps.sum() / 1e6) if len(f) and (f.src == "A2").any() else "-",
                "UDP Mb/s": cell(u.groupby("key").throughput_bps.sum() / 1e6) if len(u) else "-",
                "limited flow's FCT s": cell(limited.fct_s) if len(limited) else "-", "drop ratio %": cell(d.drop_ratio * 100, 3),
                "_delay": (d.sojourn_mean_s * 1e3).mean(),
            })  # fmt: skip
    table = pd.DataFrame(rows)
    table["_order"] = table.aqm.map({a: i for i, a in enumerate(AQMS)})
    table = table.sort_values(["scenario", "_order"])
    # section 1.2: an AQM is compared with drop-tail; section 2.7: the queueing delay
    worse = _against_droptail(table, ["scenario"], "_delay", lambda v, base: v >= base, _ms(1, "ms"), sort=False)
    exp.append(Expectation(
        "transport", "RFC 7928 sections 1.2, 2.7", "an AQM is compared with drop-tail (a BDP-sized FIFO): the delay-goodput graph per sender",
        "each AQM's mean queueing delay below drop-tail's with the same sender", "; ".join(worse) or "every AQM below drop-tail in every scenario",
        "holds" if not worse else "does not hold",
    ))  # fmt: skip
    ours = medians.get("aggressive", {})
    ns3_text = ""
    if ours:
        common = [a for a in NS3_AGGRESSIVE if a in ours]
        by_delay_ours = sorted(common, key=lambda a: ours[a][0])
        by_delay_ns3 = sorted(common, key=lambda a: NS3_AGGRESSIVE[a][0])
        by_good_ours = sorted(common, key=lambda a: -ours[a][1])
        by_good_ns3 = sorted(common, key=lambda a: -NS3_AGGRESSIVE[a][1])
        rows3 = [{"aqm": a, "crosslayer delay ms": f"{ours[a][0]:.1f}", "ns-3 delay ms": f"{NS3_AGGRESSIVE[a][0]:.1f}", "crosslayer goodput Mb/s": f"{ours[a][1]:.3f}",
                  "ns-3 goodput Mb/s": f"{NS3_AGGRESSIVE[a][1]:.3f}"} for a in by_delay_ns3]  # fmt: skip
        same = by_delay_ours == by_delay_ns3
        exp.append(Expectation(
            "transport", "ns-3 AQM evaluation suite (aggressive sender)", "the same AQMs ordered by queueing delay as the ns-3 suite's ellipses",
            "the order of the ellipses' centres along the delay axis equals ns-3's (BIC there, CUBIC here)",
            f"crosslayer {' < '.join(by_delay_ours)}; ns-3 {' < '.join(by_delay_ns3)}; by goodput crosslayer {' > '.join(by_good_ours)}, ns-3 {' > '.join(by_good_ns3)}",
            "holds" if same else "does not hold",
        ))  # fmt: skip
        ns3_text = (
            "\n\nThe aggressive sender beside the ns-3 AQM evaluation suite's published ellipse centres (one BIC flow there, ns-3 having no CUBIC; "
            "the same link, RTT and buffer):\n\n" + markdown(pd.DataFrame(rows3))
        )
    text = section(
        out, "transport", "Section 5: transport protocols",
        "1 Mb/s, 100 ms, 45-packet buffer (the ns-3 suite's setup; the RFC fixes none). `friendly`: one NewReno flow, IW 3 (5.1.1); "
        "`different_iw`: plus a 50-packet NewReno transfer with IW 10 at 30 s (5.1.2; its completion time); `aggressive`: one CUBIC flow (5.2); "
        "`lbe`: NewReno and LEDBAT (5.4); `udp_with_tcp`: a 0.8 Mb/s UDP source beside NewReno, `udp_alone`: 10 Mb/s alone (5.3).",
        table, (fig_path,), after=ns3_text,
    )
    return text, exp


def _rtt_fairness(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    flows = store.flows()
    rows = []
    for key, d in flows.groupby("key", sort=False):
        one, two = d[d.src == "A1"], d[d.src == "A2"]
        rows.append({
            "key": key, "aqm": d.aqm.iloc[0], "ecn": d.ecn.iloc[0], "rtt_ii": round(two.base_rtt_s.iloc[0] * 1e3),
            "I": one.goodput_bps.sum() / 1e6, "II": two.goodput_bps.sum() / 1e6,
            "drop I": one.bottleneck_drops.sum() / max(one.bottleneck_arrivals.sum(), 1), "drop II": two.bottleneck_drops.sum() / max(two.bottleneck_arrivals.sum(), 1),
        })  # fmt: skip
    runs = pd.DataFrame(rows).assign(ratio=lambda r: r.II / r.I)
    table = []
    for (aqm, ecn, rtt), d in runs.groupby(["aqm", "ecn", "rtt_ii"]):
        table.append({"aqm": aqm, "ecn": ecn, "RTT II ms": rtt, "goodput I Mb/s": cell(d.I, 3), "goodput II Mb/s": cell(d.II, 3), "II / I": cell(d.ratio),
                      "drop I %": cell(d["drop I"] * 100), "drop II %": cell(d["drop II"] * 100), "_ratio": d.ratio.mean()})  # fmt: skip
    t = pd.DataFrame(table)
    t["_order"] = t.aqm.map({a: i for i, a in enumerate(AQMS)})
    t = t.sort_values(["ecn", "_order", "RTT II ms"])
    ecns = list(dict.fromkeys(t.ecn))
    fig, axes = plt.subplots(1, len(ecns), figsize=(6 * len(ecns), 4), squeeze=False, sharey=True)
    for ax, ecn in zip(axes[0], ecns, strict=True):
        for i, aqm in enumerate(a for a in AQMS if a in set(t.aqm)):
            d = t[(t.ecn == ecn) & (t.aqm == aqm)]
            ax.plot(d["RTT II ms"], d._ratio, marker="o", color=f"C{i}", label=aqm)
        ax.axhline(1, color="0.5", lw=0.8)
        ax.axvline(100, color="0.7", lw=0.8, ls="--")
        ax.set(xscale="log", yscale="log", xlabel="RTT of category II (ms; category I: 100 ms)", title=f"ECN {'on' if str(ecn).lower() == 'true' else 'off'}")
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("goodput II / I")
    fig_path = save_figure(fig, out, "rtt_fairness")
    at100 = t[t["RTT II ms"] == 100]
    even = at100[(at100._ratio > 0.5) & (at100._ratio < 2)]
    exp = [Expectation(
        "rtt fairness", "RFC 7928 section 6.3", "the goodput ratio II / I, one per Category II RTT (no number is expected); at equal RTTs the two flows are alike",
        "at RTT II = 100 ms the ratio within a factor of 2 for every AQM, ECN off and on", f"{len(even)} of {len(at100)}: " + ", ".join(f"{a}{'+ecn' if str(e).lower() == 'true' else ''} {r:.2f}" for a, e, r in zip(at100.aqm, at100.ecn, at100._ratio, strict=True)),
        "holds" if len(even) == len(at100) else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "rtt_fairness", "Section 6: round-trip-time fairness (and section 4.5: ECN)",
        "Two NewReno flows, category I at 100 ms and category II at 5-560 ms, 1 Mb/s, 45 packets, 300 s; ECN off and on at the senders.",
        t, (fig_path,),
    )
    return text, exp


def _congestion(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import pandas as pd

    samples = _samples(store, ["aqm", "congestion"])
    fig_path, _ = _ellipse_panels(samples, "congestion", out, "congestion_ellipses", "section 8.2")
    runs = store.runs()
    rows = []
    for (level, aqm), d in runs.groupby(["congestion", "aqm"], sort=False):
        rows.append({"congestion": level, "aqm": aqm, "flows": int(d.flows.iloc[0]), "queue delay ms": cell(d.sojourn_mean_s * 1e3), "goodput Mb/s": cell(d.goodput_total_mbps, 3),
                     "Jain": cell(d.jain, 3), "drop ratio %": cell(d.drop_ratio * 100, 3), "_drop": (d.drop_ratio * 100).mean()})  # fmt: skip
    t = pd.DataFrame(rows)
    t["_order"] = t.aqm.map({a: i for i, a in enumerate(AQMS)})
    t["_level"] = t.congestion.map({"mild": 0, "medium": 1, "heavy": 2})
    t = t.sort_values(["_level", "_order"])
    target = {"mild": 0.1, "medium": 0.5, "heavy": 1.0}
    dt = t[t.aqm == "droptail"]
    near = [(lv, d) for lv, d in zip(dt.congestion, dt._drop, strict=True) if lv in target and target[lv] / 2 <= d <= target[lv] * 2]
    exp = [Expectation(
        "congestion", "RFC 7928 sections 8.2.2-8.2.4", "N = ROUND(0.036 S), ROUND(0.081 S), ROUND(0.114 S) flows give a drop-tail queue about 0.1 %, 0.5 % and 1 % drops",
        "drop-tail's drop ratio within a factor of 2 of the level's", ", ".join(f"{lv} {d:.2f} %" for lv, d in zip(dt.congestion, dt._drop, strict=True)),
        "holds" if len(near) == len(dt) else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "congestion", "Section 8.2: congestion levels",
        "Mild, medium and heavy congestion: 2, 5 and 7 NewReno flows (the section's formulas with S = 62.9 packets), goodput cumulated.",
        t, (fig_path,),
    )
    return text, exp


def _phase_table(d: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per ``by``, AQM and phase: the queue's mean sojourn over the 100 ms samples (and their 99th
    percentile) and the flows' mean summed goodput."""
    import pandas as pd

    rows = []
    for keys, g in d.groupby([*by, "aqm", "phase"]):
        rows.append({**dict(zip([*by, "aqm", "phase"], keys, strict=True)), "queue delay ms": f"{g.sojourn_mean_s.mean() * 1e3:.2f}",
                     "p99 ms": f"{g.sojourn_mean_s.quantile(0.99) * 1e3:.1f}", "goodput Mb/s": f"{g.goodput_bps.mean() / 1e6:.2f}",
                     "_delay": g.sojourn_mean_s.mean() * 1e3})  # fmt: skip
    t = pd.DataFrame(rows)
    t["_order"] = t.aqm.map({a: i for i, a in enumerate(AQMS)})
    return t.sort_values([*by, "phase", "_order"])


def _against_droptail(
    t: pd.DataFrame, cells: list[str], col: str, worse: Callable[[float, float], bool], show: Callable[[float, float], str] | None = None, sort: bool = True
) -> list[str]:
    """Every AQM whose ``col`` is ``worse`` than drop-tail's in the same cell (the rows sharing
    ``cells``; all rows when none), named by its cell and AQM, with ``show(its value,
    drop-tail's)`` in brackets when given; cells without drop-tail are skipped."""
    out = []
    for keys, g in t.groupby(cells, sort=sort) if cells else [((), t)]:
        dt = g[g.aqm == "droptail"][col]
        if not len(dt):
            continue
        base = dt.iloc[0]
        label = " ".join(map(str, keys if isinstance(keys, tuple) else (keys,)))
        out += [f"{label} {a}".strip() + (f" ({show(v, base)})" if show else "") for a, v in zip(g.aqm, g[col], strict=True) if a != "droptail" and worse(v, base)]
    return out


def _above_droptail(t: pd.DataFrame, cells: list[str]) -> list[str]:
    """The AQMs whose mean delay is not below drop-tail's in the same cell."""
    return _against_droptail(t, cells, "_delay", lambda v, base: v >= base)


def _ms(digits: int, unit: str) -> Callable[[float, float], str]:
    """``"<value> against <drop-tail's> <unit>"`` with ``digits`` decimals."""
    return lambda v, base: f"{v:.{digits}f} against {base:.{digits}f} {unit}"


def _varying(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt

    series, runs = store.series(), store.runs()
    good = store.goodput().groupby(["key", "t_s"], as_index=False).goodput_bps.sum()
    d = series[["key", "aqm", "t_s", "sojourn_mean_s"]].merge(good, on=["key", "t_s"])
    names = ("I mild (2 flows)", "II medium (5)", "III heavy (7)")
    d = d.assign(phase=[names[int(((t - 1e-9) % 60) // 20)] for t in d.t_s])
    d = d[d.t_s > 1.0]
    t = _phase_table(d, [])
    fig, ax = plt.subplots(figsize=(9, 3.8))
    first = runs[runs.seed == runs.seed.min()]
    for i, aqm in enumerate(a for a in AQMS if a in set(first.aqm)):
        s = series[series.key == first[first.aqm == aqm].key.iloc[0]]
        ax.plot(s.t_s, s.sojourn_mean_s * 1e3, lw=0.8, color=f"C{i}", label=aqm)
    for start in range(20, 120, 60):
        ax.axvspan(start, start + 20, color="0.93")
        ax.axvspan(start + 20, start + 40, color="0.85")
    ax.set(xlabel="time (s)", ylabel="queue delay (ms)", yscale="log", title="section 8.2.5: mild, medium, heavy every 20 s (seed 1; shading: medium, heavy)")
    ax.legend(fontsize=7, ncol=3)
    fig_path = save_figure(fig, out, "varying_congestion")
    worse = _above_droptail(t, ["phase"])
    exp = [Expectation(
        "varying congestion", "RFC 7928 section 8.2.5", "per phase, the AQM against drop-tail as the congestion level changes every 20 s",
        "each AQM's mean queue delay below drop-tail's in each phase", "; ".join(worse) or "below drop-tail in every phase", "holds" if not worse else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "varying_congestion", "Section 8.2.5: varying congestion levels",
        "2 NewReno flows throughout, 3 more in [20 s, 60 s) and 2 more in [40 s, 60 s) of every minute (new connections each cycle), two cycles; "
        "per phase, 100 ms samples after the first second.",
        t, (fig_path,),
    )
    return text, exp


def _capacity(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    series, good, runs = store.series(), store.goodput(), store.runs()
    period = {"every_20s": 20.0, "every_100ms": 0.1}
    good = good.groupby(["key", "t_s"], as_index=False).goodput_bps.sum()
    d = series[["key", "aqm", "experiment", "t_s", "sojourn_mean_s"]].merge(good, on=["key", "t_s"])
    # the phase an interval ends in: 100 Mb/s in even periods, 10 Mb/s in odd ones (the last
    # 100 ms interval of a period is counted with it)
    d = d.assign(phase=[alternating(t, period.get(e, 20.0), "100 Mb/s", "10 Mb/s") for t, e in zip(d.t_s, d.experiment, strict=True)])
    d = d[d.t_s > 1.0]  # after the flows' start
    t = _phase_table(d, ["experiment"])
    fig, ax = plt.subplots(figsize=(9, 3.8))
    first = runs[(runs.seed == runs.seed.min()) & (runs.experiment == "every_20s")]
    for i, aqm in enumerate(a for a in AQMS if a in set(first.aqm)):
        key = first[first.aqm == aqm].key.iloc[0]
        s = series[series.key == key]
        ax.plot(s.t_s, s.sojourn_mean_s * 1e3, lw=0.8, color=f"C{i}", label=aqm)
    ax.set(xlabel="time (s)", ylabel="queue delay (ms)", yscale="log", title="section 8.2.6, experiment 1: 100 Mb/s, 10 Mb/s every 20 s (seed 1)")
    ax.legend(fontsize=7, ncol=3)
    fig_path = save_figure(fig, out, "capacity")
    worse = _above_droptail(t, ["experiment", "phase"])
    exp = [Expectation(
        "capacity", "RFC 7928 section 8.2.6", "per phase, the AQM against drop-tail as the capacity drops tenfold and returns",
        "each AQM's mean queue delay below drop-tail's in each phase of each experiment", "; ".join(worse) or "below drop-tail everywhere",
        "holds" if not worse else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "capacity", "Section 8.2.6: varying capacity",
        "Two NewReno flows, 100 ms, 500-packet buffers; the bottleneck alternates 100 and 10 Mb/s every 20 s (experiment 1, 120 s) or every "
        "100 ms (experiment 2, for 20 s); per phase, 100 ms samples.",
        t, (fig_path,),
    )
    return text, exp


BYTE_MODE = ("red_byte", "pie_byte")
"""The packet-size test's variants that scale the drop probability by the packet's size."""


def _order(t: pd.DataFrame, col: str = "aqm") -> pd.DataFrame:
    names = (*AQMS, *BYTE_MODE)
    return t.assign(_order=t[col].map(lambda a: names.index(a) if a in names else len(names)))


def _packet_size(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    flows = store.flows()
    rows = []
    for key, d in flows.groupby("key", sort=False):
        small, large = d[d.src == "A1"], d[d.src == "A2"]
        rows.append({
            "aqm": d.aqm.iloc[0], "I": small.goodput_bps.sum() / 1e3, "II": large.goodput_bps.sum() / 1e3,
            "drop I": small.bottleneck_drops.sum() / max(small.bottleneck_arrivals.sum(), 1), "drop II": large.bottleneck_drops.sum() / max(large.bottleneck_arrivals.sum(), 1),
        })  # fmt: skip
    runs = pd.DataFrame(rows).assign(ratio=lambda r: r.I / r.II, dratio=lambda r: r["drop I"] / r["drop II"].where(r["drop II"] > 0))
    table = []
    for aqm, d in runs.groupby("aqm"):
        table.append({"aqm": aqm, "goodput I (500 B) kb/s": cell(d.I, 1), "goodput II (1500 B) kb/s": cell(d.II, 1), "I / II": cell(d.ratio),
                      "drop I %": cell(d["drop I"] * 100), "drop II %": cell(d["drop II"] * 100), "drop I / drop II": cell(d.dratio.dropna()),
                      "_ratio": d.ratio.mean(), "_I": d.I.mean(), "_II": d.II.mean()})  # fmt: skip
    t = _order(pd.DataFrame(table)).sort_values("_order")
    fig, ax = plt.subplots(figsize=(8, 3.6))
    x = range(len(t))
    ax.bar([i - 0.2 for i in x], t._I, width=0.4, label="category I: 500-byte packets")
    ax.bar([i + 0.2 for i in x], t._II, width=0.4, label="category II: 1500-byte packets")
    ax.set_xticks(list(x), list(t.aqm), fontsize=8)
    ax.set(ylabel="goodput (kb/s)", title="section 4.4: one flow of each packet size, mild congestion (mean of the seeds)")
    ax.legend(fontsize=7)
    fig_path = save_figure(fig, out, "packet_size")
    packet_mode = t[~t.aqm.isin(BYTE_MODE)]
    favoured = packet_mode[packet_mode._ratio > 1.2]
    byte_text = ", ".join(f"{a} {r:.2f}" for a, r in zip(t.aqm, t._ratio, strict=True) if a in BYTE_MODE)
    exp = [Expectation(
        "packet size", "RFC 7928 section 4.4, RFC 7567 section 4.4", "an AQM gives no undue advantage to flows with smaller packets",
        "goodput of the 500-byte flow over the 1500-byte flow's at most 1.2 for every AQM in packet mode",
        "I / II: " + ", ".join(f"{a} {r:.2f}" for a, r in zip(packet_mode.aqm, packet_mode._ratio, strict=True)) + (f" (byte mode, for comparison: {byte_text})" if byte_text else ""),
        "holds" if favoured.empty else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "packet_size", "Section 4.4: packet sizes",
        "Mild congestion (section 8.2.2: 2 flows) on the 1 Mb/s, 100 ms, 45-packet link: category I a NewReno flow of 500-byte packets, category II "
        "one of 1500-byte packets; section 6.3's metrics per category. `red_byte` and `pie_byte` scale the drop probability by the packet's size "
        "(RFC 7141 advises against it), for comparison. Drops per packet at the bottleneck.",
        t, (fig_path,),
    )
    return text, exp


def _with_labels(table: pd.DataFrame, runs: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    """``table`` (keyed by run) with the runs' ``cols``."""
    have = [c for c in cols if c in table.columns]
    return table.drop(columns=have).merge(runs[["key", *cols]], on="key")


def _pages(store: Store) -> pd.DataFrame:
    """Each web page measured (started after the warm-up): its run and its completion time,
    the last of its six connections' (a page that did not complete: NaN)."""
    runs = store.runs()
    warmup = {k: seconds(json.loads(sj)["warmup"]) for k, sj in zip(runs.key, runs.scenario_json, strict=True)}
    fct = store.fct()
    web = fct[(fct.src == "web") & (fct.start_s >= fct.key.map(warmup))]
    pages = web.groupby(["key", "start_s"]).agg(page_s=("fct_s", "max"), done=("completed", "all"), conn_s=("fct_s", "median")).reset_index()
    return pages.assign(page_s=pages.page_s.where(pages.done))


def _app_rows(store: Store, by: list[str]) -> pd.DataFrame:
    """Per ``by``: the classes' metrics (web pages, CBR, VoIP, video, bulk, the queue)."""
    import pandas as pd

    runs = store.runs()
    pages = _with_labels(_pages(store), runs, by)
    udp = _with_labels(store.udp(), runs, by)
    flows = _with_labels(store.flows(), runs, by)
    rows = []
    for keys, d in runs.groupby(by, sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        sel = dict(zip(by, keys, strict=True))

        def of(frame: pd.DataFrame, sel: dict[str, Any] = sel) -> pd.DataFrame:
            m = pd.Series(True, index=frame.index)
            for k, v in sel.items():
                m &= frame[k] == v
            return frame[m]

        p, u, f = of(pages), of(udp), of(flows)
        cbr, voip = u[u.src == "cbr"], u[u.src == "voip"]
        video, bulk = f[f.src == "video"].groupby("key").goodput_bps.sum(), f[f.src == "bulk"].groupby("key").goodput_bps.sum()
        row = {**sel, "queue delay ms": cell(d.sojourn_mean_s * 1e3, 1), "p99 ms": cell(d.sojourn_p99_s * 1e3, 1), "drop ratio %": cell(d.drop_ratio * 100),
               "web page s (median)": f"{p.page_s.median():.3f}" if len(p) else "-", "web page s (p95)": f"{p.page_s.quantile(0.95):.3f}" if len(p) else "-",
               "pages not done": int(p.page_s.isna().sum())}  # fmt: skip
        if len(voip):
            row |= {"VoIP delay ms": cell(voip.owd_mean_s * 1e3, 1), "VoIP p99 - p50 ms": cell((voip.owd_p99_s - voip.owd_p50_s) * 1e3, 1), "VoIP loss %": cell(voip.loss_ratio * 100)}
        row |= {"CBR delay ms": cell(cbr.owd_mean_s * 1e3, 1), "CBR p99 - p50 ms": cell((cbr.owd_p99_s - cbr.owd_p50_s) * 1e3, 1), "CBR loss %": cell(cbr.loss_ratio * 100)}
        row |= {"video Mb/s": cell(video / 1e6) if len(video) else "-", "bulk Mb/s": cell(bulk / 1e6) if len(bulk) else "-"}
        row |= {"_page": p.page_s.median(), "_p95": p.page_s.quantile(0.95), "_delay": (d.sojourn_mean_s * 1e3).mean(), "_voip": (voip.owd_mean_s * 1e3).mean() if len(voip) else float("nan")}
        rows.append(row)
    return _order(pd.DataFrame(rows))


def _bursts(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt

    t = _app_rows(store, ["case", "aqm"]).sort_values(["case", "_order"])
    cases = list(dict.fromkeys(t.case))
    fig, axes = plt.subplots(1, len(cases), figsize=(3.6 * len(cases), 3.6), squeeze=False, sharey=True)
    for ax, case in zip(axes[0], cases, strict=True):
        d = t[t.case == case]
        ax.bar(range(len(d)), d._p95, color="0.8", label="p95")
        ax.bar(range(len(d)), d._page, color="C0", label="median")
        ax.set_xticks(range(len(d)), list(d.aqm), rotation=45, fontsize=7)
        ax.set(title=f"case {case}")
    axes[0][0].set_ylabel("web page completion (s)")
    axes[0][0].legend(fontsize=7)
    fig_path = save_figure(fig, out, "bursts")
    worse = _against_droptail(t, ["case"], "_delay", lambda v, base: v > base + 0.05, _ms(1, "ms"))
    slower = _against_droptail(t, ["case"], "_page", lambda v, base: v > base, _ms(3, "s"))
    exp = [
        Expectation(
            "burst absorption", "RFC 7928 sections 7.1, 7.2", "an AQM keeps the queue short while the bursts arrive (queuing delay spikes minimized)",
            "each AQM's mean queueing delay no higher than drop-tail's in each case (equal where the queue stays below every AQM's threshold)", "; ".join(worse) or "no higher than drop-tail in any case", "holds" if not worse else "does not hold",
        ),
        Expectation(
            "burst absorption", "RFC 7928 sections 7.1, 7.2", "the bursts themselves are not penalized (web pages with IW 10 load no slower than through drop-tail)",
            "each AQM's median page completion time no longer than drop-tail's in each case", "; ".join(slower) or "no slower in any case", "holds" if not slower else "does not hold",
        ),
    ]  # fmt: skip
    text = section(
        out, "bursts", "Section 7: burst absorption",
        "10 Mb/s, RTT 100 ms, one BDP of buffer (83 packets); in every case a web user loading a page of six 9,000-byte IW-10 connections every 2 s "
        "and 1 Mb/s of CBR; case II adds a bulk NewReno flow, III a 2 Mb/s video (a 10 KB frame every 40 ms over TCP), IV both (the RFC's Figure 2). "
        "A page's completion time is its last connection's; delay and jitter of the CBR datagrams one way.",
        t, (fig_path,),
    )
    return text, exp


def _traffic_mix(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt

    t = _app_rows(store, ["aqm"]).sort_values("_order")
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
    x = range(len(t))
    a1.bar(x, t._voip, color="C2")
    a1.set_xticks(list(x), list(t.aqm), rotation=45, fontsize=7)
    a1.set(ylabel="VoIP one-way delay (ms, mean)", title="VoIP (A to B)")
    a2.bar(x, t._p95, color="0.8", label="p95")
    a2.bar(x, t._page, color="C0", label="median")
    a2.set_xticks(list(x), list(t.aqm), rotation=45, fontsize=7)
    a2.set(ylabel="web page completion (s)", title="web pages")
    a2.legend(fontsize=7)
    fig_path = save_figure(fig, out, "traffic_mix")
    worse = _against_droptail(t, [], "_voip", lambda v, base: v >= base, _ms(1, "ms"))
    exp = [Expectation(
        "traffic mix", "RFC 7928 section 9.1", "with bulk, web, video and CBR traffic, an AQM lowers the interactive traffic's latency",
        "each AQM's mean VoIP one-way delay below drop-tail's", "; ".join(worse) or "; ".join(f"{a} {v:.1f} ms" for a, v in zip(t.aqm, t._voip, strict=True)),
        "holds" if not worse else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "traffic_mix", "Section 9.1: traffic mix",
        "The RFC's example on the section 7 link: a VoIP call each way (80 kb/s of 200-byte datagrams), 6 web users (a page every 2 s each), "
        "1 Mb/s of CBR, a 2 Mb/s video over TCP in place of an adaptive one (crosslayer has no adaptive-bitrate player), 5 bulk NewReno flows. "
        "VoIP columns: the A-to-B direction, the one that crosses the bottleneck.",
        t, (fig_path,),
    )
    return text, exp


def _bidirectional(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import pandas as pd

    runs, flows, queues = store.runs(), store.flows(), store.queues()
    link = {"forward": "A->B", "reverse": "B->A"}
    rows = []
    for (aqm, direction), f in flows.groupby(["aqm", "direction"], sort=False):
        q = queues[(queues.aqm == aqm) & (queues.link == link[direction])]
        per_run = f.groupby("key").agg(g=("goodput_bps", "sum"), ack_drops=("bottleneck_ack_drops", "sum"), acks=("acks_sent", "sum"), jain=("goodput_bps", lambda x: x.sum() ** 2 / (len(x) * (x**2).sum())))
        rows.append({"aqm": aqm, "direction": f"{direction} ({link[direction]})", "goodput Mb/s": cell(per_run.g / 1e6, 3), "Jain": cell(per_run.jain, 3),
                     "queue delay ms": cell(q.sojourn_mean_s * 1e3, 1), "drop ratio %": cell(q.drop_ratio * 100), "ACK drop ratio %": cell(per_run.ack_drops / per_run.acks * 100, 3),
                     "_g": per_run.g.mean(), "_ack": (per_run.ack_drops / per_run.acks).mean(), "_dir": direction})  # fmt: skip
    t = _order(pd.DataFrame(rows)).sort_values(["_order", "direction"])
    uneven = []
    for aqm, g in t.groupby("aqm"):
        if len(g) == 2 and not 0.8 <= g._g.iloc[0] / g._g.iloc[1] <= 1.25:
            uneven.append(f"{aqm} {g._g.iloc[0] / 1e6:.3f} / {g._g.iloc[1] / 1e6:.3f} Mb/s")
    ack = t.groupby("aqm")._ack.mean()
    more = [f"{a} {v * 100:.3f} % (drop-tail {ack['droptail'] * 100:.3f} %)" for a, v in ack.items() if "droptail" in ack and a != "droptail" and v > 2 * ack["droptail"]]
    exp = [
        Expectation(
            "bidirectional", "RFC 7928 section 9.2", "the same traffic both ways through the same AQM at both ends gets the same service each way",
            "each direction's summed goodput within a factor 1.25 of the other's, per AQM", "; ".join(uneven) or "within 1.25 for every AQM", "holds" if not uneven else "does not hold",
        ),
        Expectation(
            "bidirectional", "RFC 7928 section 9.2", "an AQM does not raise the loss of small control packets (the ACKs that share each queue with the other direction's data)",
            "each AQM's ACK drop ratio at most twice drop-tail's (crosslayer's bar; the RFC asks the question without one)",
            "; ".join(more) or ", ".join(f"{a} {v * 100:.3f} %" for a, v in ack.items()), "holds" if not more else "does not hold",
        ),
    ]  # fmt: skip
    text = section(
        out, "bidirectional", "Section 9.2: bidirectional traffic",
        "Mild congestion (2 NewReno flows) from A to B and 2 from B to A on the 1 Mb/s, 100 ms link, the AQM with the same parameters at A -> B and "
        "at B -> A; section 8.2's metrics each way, and the drop ratio of the ACKs at the queue they share with the other direction's data.",
        t,
    )
    return text, exp


MULTI_ORDER = (
    "droptail+droptail", "red+red", "pie+pie", "codel+codel", "fq_codel+fq_codel", "codel+codel_20ms", "pie+pie_5ms", "pie+codel", "codel+pie", "droptail+codel", "codel+droptail",
)  # fmt: skip
"""multi-aqm.toml's pairs in its order: (I) the same AQM, (ii) other parameters at M, (iii) two schemes."""


def _multi_aqm(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    runs, flows, queues = store.runs(), store.flows(), store.queues()
    rows = []
    for aqms, d in runs.groupby("aqms", sort=False):
        keys = set(d.key)
        q, f = queues[queues.key.isin(keys)], flows[flows.key.isin(keys)]
        ql, qm = q[q.link == "L->M"], q[q.link == "M->R"]
        fa, fb = f[f.src == "SA"], f[f.src == "SB"]
        rows.append({"AQM at L + at M": aqms, "delay at L ms": cell(ql.sojourn_mean_s * 1e3, 1), "delay at M ms": cell(qm.sojourn_mean_s * 1e3, 1),
                     "drops at L %": cell(ql.drop_ratio * 100), "drops at M %": cell(qm.drop_ratio * 100), "goodput A Mb/s": cell(fa.goodput_bps / 1e6, 3),
                     "goodput B Mb/s": cell(fb.goodput_bps / 1e6, 3), "RTT A ms": cell(fa.rtt_mean_s * 1e3, 1), "RTT B ms": cell(fb.rtt_mean_s * 1e3, 1),
                     "_l": (ql.sojourn_mean_s * 1e3).mean(), "_m": (qm.sojourn_mean_s * 1e3).mean()})  # fmt: skip
    t = pd.DataFrame(rows)
    t = t.assign(_order=t["AQM at L + at M"].map(lambda a: MULTI_ORDER.index(a) if a in MULTI_ORDER else len(MULTI_ORDER))).sort_values("_order")
    fig, ax = plt.subplots(figsize=(9, 3.6))
    x = range(len(t))
    ax.bar(x, t._l, label="at L (A's flow only)")
    ax.bar(x, t._m, bottom=t._l, label="at M (both flows)")
    ax.set_xticks(list(x), list(t["AQM at L + at M"]), rotation=45, fontsize=7, ha="right")
    ax.set(ylabel="mean queueing delay (ms)", title="section 10: the A flow's queueing delay, L then M (mean of the seeds)")
    ax.legend(fontsize=7)
    fig_path = save_figure(fig, out, "multi_aqm")
    base = t[t["AQM at L + at M"] == "droptail+droptail"]
    both = t[~t["AQM at L + at M"].str.contains("droptail")]
    worse = [f"{a} ({l + m:.1f} ms)" for a, l, m in zip(both["AQM at L + at M"], both._l, both._m, strict=True) if len(base) and l + m >= base._l.iloc[0] + base._m.iloc[0]]
    exp = [Expectation(
        "multi-AQM", "RFC 7928 section 10", "AQMs in sequence stay in control: the flow across both queues gets the latency reduction of each",
        "the A flow's queueing delay (L + M) below drop-tail + drop-tail's for every pair of AQMs",
        "; ".join(worse) or ", ".join(f"{a} {l + m:.1f} ms" for a, l, m in zip(both["AQM at L + at M"], both._l, both._m, strict=True)) + (f" (drop-tail + drop-tail {base._l.iloc[0] + base._m.iloc[0]:.1f} ms)" if len(base) else ""),
        "holds" if not worse else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "multi_aqm", "Section 10: two AQMs in a row",
        "The RFC's Figure 3: senders A -> L -> M -> R -> receivers A, senders B -> M -> R -> receivers B; L -> M 1 Mb/s (45 packets), M -> R 3 Mb/s (135 "
        "packets), every RTT 100 ms, R without AQM; one NewReno flow from each side (mild congestion shared equally). Pairs: (I) the same AQM at both, "
        "(ii) CoDel or PIE with other targets at M, (iii) two different schemes, and an AQM beside drop-tail.",
        t, (fig_path,),
    )
    return text, exp


def write(stores: Mapping[str, Store], out: Path) -> Path:
    """Write the report of the runs in ``stores`` (study name -> store) to ``out``."""
    (out / "tables").mkdir(parents=True, exist_ok=True)
    sections, expectations = [], []
    parts = [
        (("transport", "unresponsive", "unresponsive-tcp"), lambda: _transport(stores, out)),
        (("rtt-fairness",), lambda: _rtt_fairness(stores["rtt-fairness"], out)),
        (("congestion",), lambda: _congestion(stores["congestion"], out)),
        (("varying-congestion",), lambda: _varying(stores["varying-congestion"], out)),
        (("capacity",), lambda: _capacity(stores["capacity"], out)),
        (("packet-size",), lambda: _packet_size(stores["packet-size"], out)),
        (("bursts",), lambda: _bursts(stores["bursts"], out)),
        (("traffic-mix",), lambda: _traffic_mix(stores["traffic-mix"], out)),
        (("bidirectional",), lambda: _bidirectional(stores["bidirectional"], out)),
        (("multi-aqm",), lambda: _multi_aqm(stores["multi-aqm"], out)),
    ]
    for names, build in parts:
        if not any(n in stores for n in names):
            continue
        text, exp = build()
        sections.append(text)
        expectations += exp
    return write_report(
        out, "RFC 7928 suite (AQM characterization guidelines)",
        "`docs/suites/rfc7928.md` says what each section runs and what was adapted. RFC 7928 states what to measure rather than what an AQM must "
        "achieve: the checks below compare with drop-tail (its section 1.2), test the congestion levels against the drop rates that define them, "
        "and set the ellipses beside the ns-3 AQM evaluation suite's.",
        "Checks", expectations, sections, sum(len(s.runs()) for s in stores.values()),
    )  # fmt: skip
