"""The TCP evaluation suite's report (draft-irtf-iccrg-tcpeval-01): each test's metrics as the
draft defines them, with the checks its own definitions allow.

The draft measures rather than judges: what a test must show is the standard TCP's numbers
beside the TCP under test's. The checks here are of the adaptation (the Poisson substitute for
Tmix carries the offered load) and of the draft's own expectations where it states or implies
one (buffers trade throughput for delay; flows of one TCP at one RTT share alike; the standard
TCP grows by a segment per round trip after a transient; an overload keeps the link busy).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from crosslayer.suites.common import Expectation, cell, save_figure, section, write_report

if TYPE_CHECKING:
    import pandas as pd

    from crosslayer.store import Store

BASIC: Final = {
    "data-center": ("4.4.1", "the data center", "1 Gb/s, 0 ms, 10 ms buffer (833 packets), RTT 40-400 us"),
    "access-link": ("4.4.2", "the access link", "100 Mb/s, 2 ms, 100 ms buffer (833 packets), RTT 8-204 ms"),
    "trans-oceanic": ("4.4.3", "the trans-oceanic link", "1 Gb/s, 65 ms, 100 ms buffer (8,333 packets), RTT 134-330 ms"),
    "satellite": ("4.4.4", "the geostationary satellite link", "4 Mb/s uplink (left to right, 1000 ms buffer) and 40 Mb/s downlink (100 ms), 300 ms, RTT 604-800 ms"),
    "dial-up": ("4.4.6", "the dial-up link", "64 kb/s, 5 ms, 1250 ms buffer (7 packets)"),
}
"""The basic scenarios: study name -> (draft section, name, what it is)."""

MILESTONES: Final = (15_000, 150_000, 1_500_000, 15_000_000, 150_000_000, 1_500_000_000)


def _pct(label: Any) -> float:
    return float(str(label).removesuffix("%"))


def _bytes(b: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:g} {unit}"
    return f"{b:g} B"


def _loaded(name: str) -> str:
    """The role (in the queues table) of the direction a basic scenario's load is of."""
    return "forward" if name == "satellite" else "reverse"


def _basic(name: str, store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    sec, title, what = BASIC[name]
    runs, queues, flows = store.runs(), store.queues(), store.flows()
    central = queues[queues.role.isin(["forward", "reverse"])]
    loaded = _loaded(name)
    rows, per = [], []
    for (tcp, load), d in runs.groupby(["tcp", "load"], sort=False):
        keys = set(d.key)
        row: dict[str, Any] = {"tcp": tcp, "offered load": load}
        for role, arrow in (("forward", "L->R"), ("reverse", "R->L")):
            q = central[central.key.isin(keys) & (central.role == role)]
            row[f"{arrow} utilization"] = cell(q.utilization, 3)
            row[f"{arrow} drop rate %"] = cell(q.drop_ratio * 100, 3)
            row[f"{arrow} queueing delay ms"] = cell(q.sojourn_mean_s * 1e3)
        q = central[central.key.isin(keys) & (central.role == loaded)]
        f = flows[flows.key.isin(keys) & (flows.size_bytes > 0)] if len(flows) else flows
        done = f[f.fct_s.notna()] if len(f) else f
        row["queue SD pkts (loaded)"] = cell(q.qlen_sd_pkts, 1)
        row["median FCT < 100 kB s"] = f"{done[done.size_bytes < 100_000].fct_s.median():.3f}" if len(done) else "-"
        row["median FCT >= 1 MB s"] = f"{done[done.size_bytes >= 1_000_000].fct_s.median():.2f}" if len(done) else "-"
        row["flows open at the end"] = cell([((f.key == k) & f.fct_s.isna()).sum() for k in keys], 0) if len(f) else "-"
        row["_load"], row["_util"], row["_delay"] = _pct(load), q.utilization.mean(), q.sojourn_mean_s.mean()
        rows.append(row)
        per.append((tcp, _pct(load), done))
    t = pd.DataFrame(rows).sort_values(["tcp", "_load"])
    # the transfer time against the size (section 4.5, "other metrics of interest"): the median
    # FCT per size bin, each TCP at each load
    fig, ax = plt.subplots(figsize=(6, 4))
    bins = [0, 1e4, 3e4, 1e5, 3e5, 1e6, 3e6, 1e7, 4e7]
    for tcp, load, done in sorted(per, key=lambda x: (x[0], x[1])):
        if not len(done):
            continue
        which = pd.cut(done.size_bytes.astype(float), bins=bins, right=False)
        med = done.groupby(which, observed=True).fct_s.median()
        ax.plot([iv.left + (iv.right - iv.left) / 2 for iv in med.index], med.values, marker="o", ms=3, label=f"{tcp} {load:g} %", ls="-" if tcp == "reno" else "--")
    ax.set(xscale="log", yscale="log", xlabel="flow size (bytes)", ylabel="median transfer time (s)", title=f"{title}: transfer time against size")
    ax.legend(fontsize=7)
    fig_path = save_figure(fig, out, f"basic_{name.replace('-', '_')}")
    exp = []
    carried = t[t._load < 100]
    off = [(tcp, lo, u) for tcp, lo, u in zip(carried.tcp, carried._load, carried._util, strict=True) if not (abs(u * 100 - lo) <= 10)]
    exp.append(Expectation(
        name, f"draft section 4.2 (adapted), {sec}", f"{title}: the traffic offers the loaded direction the load each point names (60 %, 85 %)",
        "its utilization within 10 points of the offered load", "; ".join(f"{tcp} {lo:g} %: {u:.1%}" for tcp, lo, u in off) or "every cell",
        "holds" if not off else "does not hold",
    ))  # fmt: skip
    over = t[t._load > 100]
    busy = [(tcp, u) for tcp, u in zip(over.tcp, over._util, strict=True) if not u >= 0.9]
    exp.append(Expectation(
        name, f"draft sections 3.1, 4.2, {sec}", f"{title}: in overload (110 %) the loaded direction stays busy",
        "utilization of at least 90 % at 110 % offered load", "; ".join(f"{tcp}: {u:.1%}" for tcp, u in busy) or ", ".join(f"{tcp} {u:.1%}" for tcp, u in zip(over.tcp, over._util, strict=True)) or "not run",
        "not run" if over.empty else "holds" if not busy else "does not hold",
    ))  # fmt: skip
    text = section(
        out, f"basic_{name.replace('-', '_')}", f"Section {sec}: {title}",
        f"{what}; nine paths; web-search flows at the offered load {'left to right (the uplink)' if loaded == 'forward' else 'right to left'} and a fifth of it the other way "
        "(10 % of the flows with 536-byte packets); the draft's warm-up and measurement times. Section 4.5's metrics at the central link, each direction; the "
        "flows' transfer times (median of the completed flows) and how many were still open at the end.",
        t, (fig_path,),
    )  # fmt: skip
    return text, exp


def _wlan(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    """Section 4.4.5: the draft's metrics for the shared medium (the ns-2 code's "logical link"
    between the wireless nodes and the central link), each direction: what the medium carried
    against the nominal 6 Mb/s, the packets lost there (queue drops and frames dropped at the
    retry limit) and the queueing delay at the wireless queues."""
    import pandas as pd

    runs, queues, flows = store.runs(), store.queues(), store.flows()
    wireless = queues[queues.role.isin(["wlan_up", "wlan_down"])]
    rows = []
    for (tcp, load), d in runs.groupby(["tcp", "load"], sort=False):
        keys = sorted(set(d.key))
        row: dict[str, Any] = {"tcp": tcp, "offered load": load}
        span = {k: float(_measured(d[d.key == k])) for k in keys}
        airtime, carried = [], []
        for role, arrow in (("wlan_down", "R->L"), ("wlan_up", "L->R")):
            per = [wireless[(wireless.key == k) & (wireless.role == role)] for k in keys]
            row[f"{arrow} carried Mb/s"] = cell([q.tx_bytes.sum() * 8 / span[k] / 1e6 for q, k in zip(per, keys, strict=True)])
            row[f"{arrow} loss %"] = cell([100 * (q.drops.sum() + q.lost_random.sum()) / max(q.arrivals.sum(), 1) for q in per], 3)
            row[f"{arrow} queueing delay ms"] = cell([1e3 * (q.sojourn_mean_s * q.dequeued).sum() / max(q.dequeued.sum(), 1) for q in per])
        for k in keys:
            q = wireless[wireless.key == k]
            airtime.append(q.utilization.sum())
            carried.append(q.tx_bytes.sum() * 8 / span[k] / 6e6)
        row["medium airtime (successes)"] = cell(airtime, 3)
        f = flows[flows.key.isin(keys) & (flows.size_bytes > 0)] if len(flows) else flows
        done = f[f.fct_s.notna()] if len(f) else f
        row["median FCT < 100 kB s"] = f"{done[done.size_bytes < 100_000].fct_s.median():.3f}" if len(done) else "-"
        row["median FCT >= 1 MB s"] = f"{done[done.size_bytes >= 1_000_000].fct_s.median():.2f}" if len(done) else "-"
        row["flows open at the end"] = cell([((f.key == k) & f.fct_s.isna()).sum() for k in keys], 0) if len(f) else "-"
        row["_load"], row["_carried"] = _pct(load), sum(carried) / len(carried)
        rows.append(row)
    t = pd.DataFrame(rows).sort_values(["tcp", "_load"])
    exp = []
    low = t[t._load < 100]
    off = [(tcp, lo, c) for tcp, lo, c in zip(low.tcp, low._load, low._carried, strict=True) if not abs(c * 100 - lo) <= 10]
    exp.append(Expectation(
        "wireless-lan", "draft section 4.4.5 (adapted)", "the wireless LAN: the traffic offers the medium the load each point names (60 %, 85 % of 6 Mb/s, both directions)",
        "the packets the wireless links carried, both directions, within 10 points of the offered load", "; ".join(f"{tcp} {lo:g} %: {c:.1%}" for tcp, lo, c in off) or "every cell",
        "holds" if not off else "does not hold",
    ))  # fmt: skip
    text = section(
        out, "basic_wireless_lan", "Section 4.4.5: the wireless LAN",
        "Nodes 1-3 share an 802.11 medium (DCF, every frame at 6 Mb/s: the ns-2 code's) with the base station R1, which is joined to R2 by the 100 Mb/s central "
        "link; nine paths; web-search flows at 60, 85, 110 % of the nominal 6 Mb/s over both directions, five sixths toward the wireless nodes (R->L), 10 % of "
        "them with 536-byte packets; Table 6's warm-up and measurement times. Per direction of the medium (the ns-2 code's logical link): the packets carried, "
        "those lost (queue drops and frames dropped at the retry limit) and the queueing delay at the wireless queues; the medium's airtime in successful exchanges; "
        "the flows' transfer times.",
        t,
    )  # fmt: skip
    return text, exp


def _buffer(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    runs, queues = store.runs(), store.queues()
    central = queues[queues.role == "reverse"]
    rows = []
    for (tcp, buf), d in runs.groupby(["tcp", "buffer"], sort=False):
        q = central[central.key.isin(set(d.key))]
        thr = q.dequeued_bytes * 8 / 1e6 / _measured(d)
        rows.append({"tcp": tcp, "buffer (% of BDP)": buf, "throughput Mb/s": cell(thr), "drop rate %": cell(q.drop_ratio * 100, 3),
                     "queueing delay ms": cell(q.sojourn_mean_s * 1e3), "queueing delay p99 ms": cell(q.sojourn_p99_s * 1e3),
                     "_buf": _pct(buf), "_thr": thr.mean(), "_drop": q.drop_ratio.mean() * 100, "_delay": q.sojourn_mean_s.mean() * 1e3})  # fmt: skip
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
        "The access link at 85 % offered load (right to left), drop-tail buffers of 10-200 % of the BDP at 100 ms (83-1,667 packets, both directions); "
        "the standard TCP (Reno) and the one under test; the loaded direction's throughput (bytes sent over the measured time), drop rate and queueing delay.",
        t, (fig_path,),
    )  # fmt: skip
    return text, exp


def _measured(runs: pd.DataFrame) -> Any:
    """Each run's measured span in seconds (duration - warm-up), from its scenario."""
    import pandas as pd

    from crosslayer.units import parse_duration_ns

    def span(sj: str) -> float:
        s = json.loads(sj)
        return (_ns(s["duration"], parse_duration_ns) - _ns(s.get("warmup", 0), parse_duration_ns)) / 1e9

    return pd.Series([span(sj) for sj in runs.scenario_json], index=runs.index).mean()


def _ns(v: Any, parse: Any) -> int:
    return int(v) if isinstance(v, (int, float)) else int(parse(str(v)))


def _rampup(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    runs, ms = store.runs(), store.table("milestones")
    rows, curves = [], {}
    for (point, tcp), d in runs.groupby(["point", "tcp"], sort=False):
        m = ms[ms.key.isin(set(d.key)) & ms.flow.astype(str).str.startswith("T4")]
        row: dict[str, Any] = {"capacity, RTTs existing/new ms": point, "tcp": tcp}
        means = {}
        for b in MILESTONES:
            v = m[m.bytes == b].since_start_s
            row[_bytes(b)] = cell(v, 2) if len(v) == len(d) else (f"{cell(v, 2)} ({len(v)} of {len(d)})" if len(v) else "-")
            if len(v) == len(d):
                means[b] = v.mean()
        rows.append(row)
        curves[(point, tcp)] = means
    order = {"80/80": 0, "120/30": 1, "30/120": 2}
    t = pd.DataFrame(rows)
    t = t.assign(_cap=[0 if p.startswith("10Mbps") else 1 for p in t.iloc[:, 0]], _rtt=[order.get(p.split(" ")[-1], 9) for p in t.iloc[:, 0]])
    t = t.sort_values(["_cap", "_rtt", "tcp"], ascending=[True, True, False])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for (point, tcp), means in sorted(curves.items(), key=lambda kv: (order.get(kv[0][0].split(" ")[-1], 9), kv[0][1] != "reno")):
        ax = axes[0 if point.startswith("10Mbps") else 1]
        ax.plot(list(means), list(means.values()), marker="o", ms=3, label=f"{point.split(' ')[1]} {tcp}", ls="-" if tcp == "reno" else "--")
    for ax, cap in zip(axes, ("10 Mb/s", "1 Gb/s"), strict=True):
        ax.set(xscale="log", yscale="log", xlabel="bytes of the new flow received", title=f"ramp-up at {cap}")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("time since the new flow started (s)")
    fig_path = save_figure(fig, out, "rampup")
    # the new flow without slow start: at least one round trip per 1500 x 10^n bytes beyond the
    # initial window, so each milestone comes later than the last (a law of the metric)
    bad = [k for k, means in curves.items() if list(means.values()) != sorted(means.values())]
    exp = [Expectation(
        "rampup", "draft section 5.2.3", "the new flow's milestones (15 kB, 150 kB, ...) come in order",
        "times increasing with the bytes, every cell", ", ".join(f"{p} {c}" for p, c in bad) or "every cell", "holds" if not bad else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "rampup", "Section 5.2: ramp-up time",
        "A new flow without slow start (initial ssthresh = initial window) beside one that started 100 s before, with web-like background at 50 % "
        "right to left, over 10 Mb/s and 1 Gb/s; the time until the new flow's receiver held 1500 x 10^n bytes (the draft's metric), mean over the seeds "
        "(blank: not reached before the end, 300 s after the new flow started).",
        t, (fig_path,),
    )  # fmt: skip
    return text, exp


def _transients(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    runs, cwnd, udp = store.runs(), store.cwnd(), store.udp()
    bdp = 100e6 * 0.1 / 8 / 1500  # 1500-byte packets in 100 Mb/s x 100 ms: 833
    t0, rtt = 30.0, 0.1
    rows, growth = [], []
    drawn: set[int] = set()  # the seeds the figure draws (each TCP's first)
    fig, ax = plt.subplots(figsize=(7, 4))
    # each group's runs in seed order and the TCPs in name order: the figure draws each TCP's
    # lowest seed, in the same colours whatever order the store lists the runs in (its keys')
    for (transient, tcp), d in runs.sort_values(["tcp", "seed"], kind="stable").groupby(["transient", "tcp"], sort=False):
        row: dict[str, Any] = {"transient": transient, "tcp": tcp}
        if transient == "decrease":
            times: dict[float, list[float]] = {0.6: [], 0.8: [], 0.9: []}
            jumps = []
            for k, key in enumerate(d.key):
                c = cwnd[cwnd.key == key].sort_values("t_s")
                c = c[c.t_s >= t0]
                w = c.cwnd_bytes.to_numpy(float) / 1448  # segments (the TCP's MSS)
                ts = c.t_s.to_numpy(float)
                for frac in times:
                    hit = np.flatnonzero(w >= frac * bdp)
                    times[frac].append(ts[hit[0]] - t0 if len(hit) else math.inf)
                end = np.flatnonzero(w >= 0.9 * bdp)
                upto = end[0] if len(end) else len(w) - 1
                step = max(1, round(rtt / max(float(np.median(np.diff(ts))), 1e-9))) if len(ts) > 1 else 1
                change = w[step : upto + 1] - w[: max(upto + 1 - step, 0)] if upto + 1 > step else np.array([0.0])
                jumps.append(float(change.max()) if len(change) else 0.0)
                if k == 0:
                    ax.plot(ts - t0, w, label=tcp)
                    drawn.add(int(d.seed.iloc[0]))
            for frac, v in times.items():
                row[f"to {frac:.0%} of the BDP s"] = cell(v, 1) if all(math.isfinite(x) for x in v) else f"> 100 in {sum(not math.isfinite(x) for x in v)} of {len(v)}"
            row["largest window change in one RTT, segments"] = cell(jumps, 1)
            growth.append((tcp, jumps))
        else:
            u = udp[udp.key.isin(set(d.key))]
            per_run = u.groupby("key").agg(dropped=("dropped_pkts", "sum"), sent=("sent_pkts", "sum"))
            row["UDP packets dropped in the first 100 s"] = cell(per_run.dropped, 0)
            row["of sent %"] = cell(per_run.dropped / per_run.sent * 100, 2)
        rows.append(row)
    ax.axhline(0.9 * bdp, color="0.5", lw=0.8, ls=":")
    ax.set(xlabel="time since the UDP traffic stopped (s)", ylabel="cwnd (segments)", title=f"after a step decrease of 75 Mb/s (seed {', '.join(map(str, sorted(drawn)))})")
    ax.legend(fontsize=8)
    fig_path = save_figure(fig, out, "transients")
    t = pd.DataFrame(rows)
    t = t.assign(_k=[("decrease", "increase", "steps").index(x) for x in t.transient]).sort_values(["_k", "tcp"], ascending=[True, False]).fillna("-")
    t = t[["transient", "tcp", *[c for c in t.columns if c not in ("transient", "tcp")]]]
    reno = [j for tcp, js in growth if tcp == "reno" for j in js]
    exp = [Expectation(
        "transients", "draft section 5.3.3; RFC 5681 section 3.1", "after the step decrease the standard TCP grows its window by about one segment per round trip",
        "Reno's largest window change in one RTT (100 ms of the cwnd trace) while it grows to 90 % of its BDP: at most 2 segments",
        ", ".join(f"{j:.1f}" for j in reno) or "-", "not run" if not reno else "holds" if max(reno) <= 2 else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "transients", "Section 5.3: transients",
        "One long-lived flow (RTT 100 ms) on 100 Mb/s with a 1,024-packet buffer, while 75 Mb/s of UDP stops at 30 s (decrease), starts at 30 s (increase), or "
        "starts in 30 steps of 2.5 Mb/s a second from 30 s; after the decrease, the time to grow the window to 60, 80 and 90 % of the BDP (833 packets) and the "
        "largest change of the window in one RTT meanwhile; after the increases, the UDP packets dropped in the first 100 s.",
        t, (fig_path,),
    )  # fmt: skip
    return text, exp


def _impact(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import pandas as pd

    runs, flows = store.runs(), store.flows()
    f = flows[flows.size_bytes > 0].assign(camp=lambda x: x.name.astype(str).str.split(".").str[0])
    quart = f.size_bytes.quantile([0.25, 0.5, 0.75]).to_list() if len(f) else [0, 0, 0]
    f = f.assign(quartile=pd.cut(f.size_bytes, [-1, *quart, math.inf], labels=["Q1", "Q2", "Q3", "Q4"], duplicates="drop") if len(f) else [])
    rows = []
    exp = []
    for load, d in runs.groupby("load", sort=False):
        base, mix = d[d.camp_b == "reno"], d[d.camp_b != "reno"]
        if base.empty or mix.empty:
            continue

        def t_of(keys: set[str], camp: str, q: str | None = None) -> float:
            g = f[f.key.isin(keys) & (f.camp == camp)]
            if q is not None:
                g = g[g.quartile == q]
            return float(g.goodput_bps.sum()) / max(len(keys), 1)

        bk, mk = set(base.key), set(mix.key)
        g_, l_ = t_of(mk, "B") / t_of(bk, "B"), t_of(mk, "A") / t_of(bk, "A")
        row: dict[str, Any] = {"load": load, "TCP under test": ", ".join(sorted(set(mix.camp_b))), "G = T(B)mix / T(B)baseline": f"{g_:.3f}", "L = T(A)mix / T(A)baseline": f"{l_:.3f}"}
        for q in ("Q1", "Q2", "Q3", "Q4"):
            tb, ta = t_of(bk, "B", q), t_of(bk, "A", q)
            row[f"G {q}"] = f"{t_of(mk, 'B', q) / tb:.2f}" if tb else "-"
            row[f"L {q}"] = f"{t_of(mk, 'A', q) / ta:.2f}" if ta else "-"
        row["drop rate % baseline"], row["drop rate % mix"] = cell(base.drop_ratio * 100, 3), cell(mix.drop_ratio * 100, 3)
        rows.append(row)
    t = pd.DataFrame(rows)
    text = section(
        out, "impact", "Section 6.1: impact on standard TCP",
        "Camps A and B of web-search flows on the access link's nine paths, each half the offered load (right to left, a fifth of it left to right); baseline: "
        "both Reno; mix: camp B with the TCP under test. T is a camp's goodput (its flows' bytes received in the measured time, both directions); G and L per "
        f"quartile of the flow sizes too (section 6.1.3.1; quartiles {', '.join(_bytes(q) for q in quart)}).",
        t,
    )  # fmt: skip
    return text, exp


def _inter_rtt(stores: list[tuple[str, Store]], out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    rows = []
    for cap, store in stores:
        flows, queues = store.flows(), store.queues()
        central = queues[queues.role == "reverse"]
        per = []
        for key, d in flows[flows.src.isin(["T3", "T4"])].groupby("key", sort=False):
            first, second = d[d.src == "T3"], d[d.src == "T4"]
            q = central[central.key == key]
            per.append({"tcp": d.tcp.iloc[0], "rtt": d.rtt.iloc[0], "buffer": d.buffer.iloc[0], "ratio": second.goodput_bps.sum() / first.goodput_bps.sum(),
                        "drops": float(q.drop_ratio.iloc[0]) * 100 if len(q) else math.nan})  # fmt: skip
        runs = pd.DataFrame(per)
        for (tcp, buf, rtt), d in runs.groupby(["tcp", "buffer", "rtt"]):
            a, b = (int(x) for x in str(rtt).split("/"))
            rows.append({"capacity": cap, "tcp": tcp, "buffer (% of BDP)": buf, "RTTs first/second ms": rtt, "kind": "intra-protocol" if a == b else "inter-RTT",
                         "throughput ratio second / first": cell(d.ratio), "drop rate %": cell(d.drops, 3),
                         "_buf": _pct(buf), "_a": a, "_b": b, "_ratio": d.ratio.mean()})  # fmt: skip
    t = pd.DataFrame(rows).sort_values(["capacity", "tcp", "_buf", "_a", "_b"], ascending=[False, True, True, True, True])
    fig, axes = plt.subplots(1, len(stores), figsize=(5.5 * len(stores), 4), squeeze=False)
    for ax, (cap, _) in zip(axes[0], stores, strict=True):
        d0 = t[t.capacity == cap]
        for (tcp, buf), d in d0[d0._a == 160].groupby(["tcp", "buffer (% of BDP)"], sort=False):
            d = d.sort_values("_b")
            ax.plot(d._b, d._ratio, marker="o", label=f"{tcp} buffer {buf}")
        ax.axhline(1, color="0.5", lw=0.8)
        ax.set(xscale="log", yscale="log", xlabel="RTT of the second flow (ms; the first: 160 ms)", ylabel="throughput ratio second / first", title=f"inter-RTT fairness, {cap}")
        ax.legend(fontsize=7)
    fig_path = save_figure(fig, out, "inter_rtt")
    same = t[t.kind == "intra-protocol"]
    even = same[(same._ratio >= 0.5) & (same._ratio <= 2)]
    uneven = same[~same.index.isin(even.index)]
    exp = [Expectation(
        "inter-rtt", "draft section 6.2", "intra-protocol fairness: two flows of one TCP at one RTT share the link",
        "their throughput ratio within a factor of 2, every capacity, RTT and buffer",
        f"{len(even)} of {len(same)} cells" + ("; out: " + ", ".join(f"{c} {r} {b}: {x:.2f}" for c, r, b, x in zip(uneven.capacity, uneven["RTTs first/second ms"], uneven["buffer (% of BDP)"], uneven._ratio, strict=True)) if len(uneven) else ""),
        "holds" if len(even) == len(same) else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "inter_rtt", "Section 6.2: intra-protocol and inter-RTT fairness",
        "Two flows of the TCP under test right to left beside web-like background at 50 %: intra-protocol, both at one RTT; inter-RTT, the first at 160 ms and the "
        "second shorter; buffers 25-200 % of the BDP at 100 ms; 10 Mb/s (every pair and buffer) and 1 Gb/s (three pairs, two buffers); the ratio of the flows' "
        "goodputs and the drop rate at the central link.",
        t, (fig_path,),
    )  # fmt: skip
    return text, exp


def _parking_lot(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import pandas as pd

    runs, flows, queues = store.runs(), store.flows(), store.queues()
    f = flows[flows.size_bytes > 0].assign(source=lambda x: x.name.astype(str).str.split(".").str[0])
    links = {"A": ("R1->R2", "R2->R1"), "B": ("R2->R3", "R3->R2"), "C": ("R3->R4", "R4->R3")}
    rows = []
    for (tcp, load), d in runs.groupby(["tcp", "load"], sort=False):
        ratios, slow = [], []
        for key in d.key:
            g = f[f.key == key]
            thr = g.groupby("source").goodput_bps.sum()
            multi = float(thr.get("0", math.nan))
            single = float(thr.reindex(["1", "2", "3"]).mean())
            ratios.append(single / multi if multi else math.inf)
            done = g[g.fct_s.notna()]
            sd = done.groupby("source").slowdown.median()
            slow.append(float(sd.get("0", math.nan)) / float(sd.reindex(["1", "2", "3"]).mean()))
        row: dict[str, Any] = {"tcp": tcp, "load per bottleneck": load, "throughput ratio single / multi": cell(ratios, 3), "median slowdown ratio multi / single": cell(slow, 2)}
        for name, (fwd, back) in links.items():
            q = queues[queues.key.isin(set(d.key)) & (queues.link == back)]
            row[f"{name} drop rate %"] = cell(q.drop_ratio * 100, 3)
        row["_load"] = _pct(load)
        rows.append(row)
    t = pd.DataFrame(rows).sort_values(["tcp", "_load"])
    text = section(
        out, "parking_lot", "Section 6.3: multiple bottlenecks",
        "Three 100 Mb/s hops of 10 ms (A, B, C), every RTT 60 ms; source 0 over all three hops, sources 1-3 over one each, each offering 30, 40 or 50 % "
        "(60-100 % at each bottleneck) toward S0-S3 and a fifth of it back; the ratio of the single-bottleneck sources' mean goodput to the three-hop source's "
        "(the draft's metric: near 1 while the links carry what is offered), the same ratio of their flows' median slowdowns, and the drop rates toward S0-S3.",
        t,
    )  # fmt: skip
    return text, []


def write(stores: Mapping[str, Store], out: Path) -> Path:
    """Write the report of the runs in ``stores`` (study name -> store) to ``out``."""
    (out / "tables").mkdir(parents=True, exist_ok=True)
    sections, expectations = [], []
    stores = {name: store for name, store in stores.items() if len(store.runs())}  # a study with no run stored has nothing to report

    def add(built: tuple[str, list[Expectation]]) -> None:
        sections.append(built[0])
        expectations.extend(built[1])

    for name in BASIC:
        if name in stores:
            add(_basic(name, stores[name], out))
    if "wireless-lan" in stores:
        add(_wlan(stores["wireless-lan"], out))
    if "buffer" in stores:
        add(_buffer(stores["buffer"], out))
    if "rampup" in stores:
        add(_rampup(stores["rampup"], out))
    if "transients" in stores:
        add(_transients(stores["transients"], out))
    if "impact" in stores:
        add(_impact(stores["impact"], out))
    fairness = [(cap, stores[n]) for cap, n in (("10 Mb/s", "inter-rtt"), ("1 Gb/s", "inter-rtt-1g")) if n in stores]
    if fairness:
        add(_inter_rtt(fairness, out))
    if "parking-lot" in stores:
        add(_parking_lot(stores["parking-lot"], out))
    return write_report(
        out, "TCP evaluation suite (draft-irtf-iccrg-tcpeval-01)",
        "`docs/suites/tcpeval.md` says what each test runs and what was adapted (the Tmix traces above all). The draft defines what to measure; "
        "the checks below are of the adaptation and of the expectations the draft's tests rest on.",
        "Checks", expectations, sections, sum(len(s.runs()) for s in stores.values()),
    )  # fmt: skip
