"""The TCP evaluation suite's report (draft-irtf-iccrg-tcpeval-01): each test's metrics as the
draft defines them, with the checks its own definitions allow.

The draft measures rather than judges: what a test must show is the standard TCP's numbers
beside the TCP under test's. The checks here are of the adaptation (the Poisson substitute for
Tmix carries the offered load) and of the draft's own expectations where it states one (buffers
trade throughput for delay; flows of one TCP at one RTT share alike).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crosslayer.suites.common import Expectation, cell, save_figure, section, write_report

if TYPE_CHECKING:
    import pandas as pd

    from crosslayer.store import Store


def _pct(label: Any) -> float:
    return float(str(label).removesuffix("%"))


def _basic(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import pandas as pd

    runs, fct = store.runs(), store.fct()
    rows = []
    for (tcp, load), d in runs.groupby(["tcp", "load"], sort=False):
        f = fct[fct.key.isin(set(d.key))] if len(fct) else fct
        small = f[f.size_bytes < 100_000].fct_s if len(f) else []
        large = f[f.size_bytes >= 1_000_000].fct_s if len(f) else []
        rows.append({
            "tcp": tcp, "offered load": load, "utilization": cell(d.utilization, 3), "drop rate %": cell(d.drop_ratio * 100, 3),
            "queueing delay ms": cell(d.sojourn_mean_s * 1e3), "p99 ms": cell(d.sojourn_p99_s * 1e3),
            "median FCT < 100 kB s": f"{pd.Series(small).median():.3f}" if len(small) else "-", "median FCT >= 1 MB s": f"{pd.Series(large).median():.2f}" if len(large) else "-",
            "_load": _pct(load), "_util": d.utilization.mean(),
        })  # fmt: skip
    t = pd.DataFrame(rows).sort_values(["tcp", "_load"])
    off = [(tcp, lo, u) for tcp, lo, u in zip(t.tcp, t._load, t._util, strict=True) if abs(u * 100 - lo) > 10]
    exp = [Expectation(
        "basic", "draft section 4.2 (adapted)", "the traffic offers the central link the load the scenario names (60 %, 85 %)",
        "the measured utilization within 10 points of the offered load", "; ".join(f"{tcp} {lo:g} %: {u:.1%}" for tcp, lo, u in off) or "every cell",
        "holds" if not off else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "basic", "Section 4.4.2: the access link",
        "100 Mb/s, 2 ms, 100 ms buffer (833 packets), the nine paths of section 4.1 (RTT 8-204 ms); Poisson arrivals of web-search flows for Tmix; "
        "section 4.5's metrics at the central link, and the flows' completion times.",
        t,
    )
    return text, exp


def _buffer(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    runs = store.runs()
    rows = []
    for (tcp, buf), d in runs.groupby(["tcp", "buffer"], sort=False):
        rows.append({"tcp": tcp, "buffer (% of BDP)": buf, "throughput Mb/s": cell(d.throughput_total_mbps), "drop rate %": cell(d.drop_ratio * 100, 3),
                     "queueing delay ms": cell(d.sojourn_mean_s * 1e3), "_buf": _pct(buf), "_thr": d.throughput_total_mbps.mean(), "_drop": d.drop_ratio.mean() * 100,
                     "_delay": d.sojourn_mean_s.mean() * 1e3})  # fmt: skip
    t = pd.DataFrame(rows).sort_values(["tcp", "_buf"])
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for tcp, d in t.groupby("tcp", sort=False):
        axes[0].plot(d._delay, d._thr, marker="o", label=tcp)
        axes[1].plot(d._delay, d._drop, marker="o", label=tcp)
        for x, y, b in zip(d._delay, d._thr, d["buffer (% of BDP)"], strict=True):
            axes[0].annotate(str(b), (x, y), fontsize=7)
    axes[0].set(xlabel="queueing delay (ms)", ylabel="throughput (Mb/s)", title="throughput against delay")
    axes[1].set(xlabel="queueing delay (ms)", ylabel="drop rate (%)", title="drops against delay")
    for ax in axes:
        ax.legend(fontsize=8)
    fig_path = save_figure(fig, out, "buffer")
    bad = [tcp for tcp, d in t.groupby("tcp") if not (d._delay.is_monotonic_increasing and d._drop.is_monotonic_decreasing)]
    exp = [Expectation(
        "buffer", "draft section 5.1", "larger buffers trade queueing delay for fewer drops (the trade-off the test plots)",
        "as the buffer grows from 10 to 200 % of the BDP, the mean queueing delay rises and the drop rate falls, for each TCP",
        "not monotonic for " + ", ".join(bad) if bad else "monotonic for every TCP", "holds" if not bad else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "buffer", "Section 5.1: delay/throughput trade-off",
        "The access link at 85 % offered load, drop-tail buffers of 10-200 % of the BDP at 100 ms (83-1,667 packets); the standard TCP (Reno) and the one under test.",
        t, (fig_path,),
    )
    return text, exp


def _inter_rtt(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    flows = store.flows()
    per = []
    for key, d in flows.groupby("key", sort=False):
        first, second = d[d.src == "T1"], d[d.src == "T2"]
        per.append({"key": key, "rtt": second.base_rtt_s.iloc[0] * 1e3, "buffer": d.buffer.iloc[0], "ratio": second.goodput_bps.sum() / first.goodput_bps.sum(),
                    "drops": (d.bottleneck_drops.sum() / max(d.bottleneck_arrivals.sum(), 1)) * 100})  # fmt: skip
    runs = pd.DataFrame(per)
    rows = []
    for (buf, rtt), d in runs.groupby(["buffer", "rtt"]):
        rows.append({"buffer (% of BDP)": buf, "RTT of the second flow ms": round(rtt), "throughput ratio (second / 160 ms)": cell(d.ratio), "drop rate %": cell(d.drops, 3),
                     "_buf": _pct(buf), "_rtt": rtt, "_ratio": d.ratio.mean()})  # fmt: skip
    t = pd.DataFrame(rows).sort_values(["_buf", "_rtt"])
    fig, ax = plt.subplots(figsize=(6, 4))
    for buf, d in t.groupby("buffer (% of BDP)", sort=False):
        ax.plot(d._rtt, d._ratio, marker="o", label=f"buffer {buf}")
    ax.axhline(1, color="0.5", lw=0.8)
    ax.set(xscale="log", yscale="log", xlabel="RTT of the second flow (ms; the first: 160 ms)", ylabel="throughput ratio", title="inter-RTT fairness")
    ax.legend(fontsize=8)
    fig_path = save_figure(fig, out, "inter_rtt")
    same = t[(t._rtt > 150)]
    even = same[(same._ratio >= 0.5) & (same._ratio <= 2)]
    exp = [Expectation(
        "inter-rtt", "draft section 6.2", "intra-protocol fairness: two flows of one TCP at one RTT (160 ms) share the link",
        "their throughput ratio within a factor of 2 at every buffer", ", ".join(f"{b}: {r:.2f}" for b, r in zip(same["buffer (% of BDP)"], same._ratio, strict=True)),
        "holds" if len(even) == len(same) else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "inter_rtt", "Section 6.2: intra-protocol and inter-RTT fairness",
        "Two flows of the TCP under test on 10 Mb/s, one at 160 ms from the start, the other at 10-160 ms from 5 s; buffers 25-200 % of the BDP at 100 ms; no background traffic.",
        t, (fig_path,),
    )
    return text, exp


def _impact(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import pandas as pd

    fct, runs = store.fct(), store.runs()
    # each camp's goodput: its completed flows' bytes over the measured span
    camp = {}
    for key, d in fct.groupby("key"):
        for name, g in d.groupby(d.name.str.split(".").str[0]):
            camp[(key, name)] = g.size_bytes[g.completed].sum()
    runs = runs.assign(A=[camp.get((k, "A"), 0) for k in runs.key], B=[camp.get((k, "B"), 0) for k in runs.key])
    rows = []
    for load, d in runs.groupby("load", sort=False):
        base, mix = d[d.camp_b == "reno"], d[d.camp_b != "reno"]  # camp B standard TCP, or the TCP under test
        if base.empty or mix.empty:
            continue
        g, l_ = mix.B.mean() / base.B.mean(), mix.A.mean() / base.A.mean()
        rows.append({"load": load, "G = T(B)mix / T(B)baseline": f"{g:.3f}", "L = T(A)mix / T(A)baseline": f"{l_:.3f}",
                     "drop rate % baseline": cell(base.drop_ratio * 100, 3), "drop rate % mix": cell(mix.drop_ratio * 100, 3)})  # fmt: skip
    t = pd.DataFrame(rows)
    text = section(
        out, "impact", "Section 6.1: impact on standard TCP",
        "Camps A and B of web-search flows on the access link's nine paths, each half the offered load; baseline: both Reno; mix: camp B with the TCP "
        "under test. T is a camp's goodput: the bytes of its flows completed in the run (the same arrivals in both runs of a seed).",
        t,
    )
    return text, []


def _parking_lot(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import pandas as pd

    flows = store.flows()
    rows = []
    for tcp, d in flows.groupby("tcp", sort=False):
        ratios = []
        for _, r in d.groupby("key"):
            multi = r[r.src == "S0"].goodput_bps.sum()
            single = r[r.src != "S0"].goodput_bps.mean()
            ratios.append(single / multi if multi else float("inf"))
        rows.append({"tcp": tcp, "multi-bottleneck flow Mb/s": cell(d[d.src == "S0"].groupby("key").goodput_bps.sum() / 1e6),
                     "single-bottleneck flows Mb/s (mean)": cell(d[d.src != "S0"].groupby("key").goodput_bps.mean() / 1e6), "ratio single / multi": cell(ratios)})  # fmt: skip
    text = section(
        out, "parking_lot", "Section 6.3: multiple bottlenecks",
        "Three 100 Mb/s hops of 10 ms, every flow's RTT 60 ms, a long-lived flow over all three and one over each; 500-packet buffers.",
        pd.DataFrame(rows),
    )
    return text, []


def write(stores: Mapping[str, Store], out: Path) -> Path:
    """Write the report of the runs in ``stores`` (study name -> store) to ``out``."""
    (out / "tables").mkdir(parents=True, exist_ok=True)
    builders = {"basic": _basic, "buffer": _buffer, "impact": _impact, "inter-rtt": _inter_rtt, "parking-lot": _parking_lot}
    sections, expectations = [], []
    for name, build in builders.items():
        if name in stores:
            text, exp = build(stores[name], out)
            sections.append(text)
            expectations += exp
    return write_report(
        out, "TCP evaluation suite (draft-irtf-iccrg-tcpeval-01)",
        "`docs/suites/tcpeval.md` says what each test runs and what was adapted (the Tmix traces above all). The draft defines what to measure; "
        "the checks below are of the adaptation and of the expectations the draft's tests rest on.",
        "Checks", expectations, sections, sum(len(s.runs()) for s in stores.values()),
    )  # fmt: skip
