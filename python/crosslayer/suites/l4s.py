"""The L4S suite's report (RFC 9330-9332): each test's table, figure and expectations.

Every expectation is the documents' own, cited by section, and is checked on the runs with a
stated pass rule; where the documents give no number, the rule says which yardstick it uses.
The flows are told apart by their hosts, as the study files name them: ``L`` sends the Scalable
flows, ``C`` the Classic ones, ``U`` the unresponsive source; in ``rtt.toml`` ``S`` and ``F`` the
short- and long-RTT flows. Queueing delay is a flow's mean (or 99th-percentile) RTT less its
base RTT.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crosslayer.analysis import interval95
from crosslayer.suites.common import Expectation, alternating, bottleneck_mbps as _bottleneck_mbps, cell as _cell, markdown as _markdown, rate_mbps as _rate_mbps, save_figure as _save, seconds as _seconds, section, write_report

if TYPE_CHECKING:
    import pandas as pd

    from crosslayer.store import Store

FACTOR = 2.0
"""The rate-balance yardstick: within a factor of two (RFC 5348's "reasonably fair", quoted by
draft-ietf-tsvwg-l4sops section 2); no L4S RFC states a tolerance."""


def _per_run(flows: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """One row per run: the Scalable (``L``) and Classic (``C``) flows' goodput (Mb/s, summed)
    and mean queueing delay (ms, mean and 99th percentile over the flows), with ``by``'s
    columns."""
    import pandas as pd

    f = flows.assign(q_ms=(flows.rtt_mean_s - flows.base_rtt_s) * 1e3, q99_ms=(flows.rtt_p99_s - flows.base_rtt_s) * 1e3, rtt_ms=flows.rtt_mean_s * 1e3)
    rows = []
    for key, d in f.groupby("key", sort=False):
        row: dict[str, Any] = {c: d[c].iloc[0] for c in by}
        row["key"] = key
        for side in ("L", "C", "S", "F"):
            s = d[d.src == side]
            if len(s):
                row[f"{side}_mbps"] = s.goodput_bps.sum() / 1e6
                row[f"{side}_q_ms"] = s.q_ms.mean()
                row[f"{side}_q99_ms"] = s.q99_ms.max()
                row[f"{side}_rtt_ms"] = s.rtt_ms.mean()
                row[f"{side}_base_ms"] = s.base_rtt_s.mean() * 1e3
                row[f"{side}_drops"] = int(s.bottleneck_drops.sum())
                row[f"{side}_flows"] = len(s)
        rows.append(row)
    return pd.DataFrame(rows)


def _rate_or_label(v: Any) -> Any:
    """Sort key: a time label by its value ("10ms" before "50ms"), any other label as text."""
    text = str(v)
    return float(text.removesuffix("ms")) if text.endswith("ms") and text[:-2].replace(".", "").isdigit() else text


def _l_queue_delay(store: Store) -> dict[str, tuple[float, float, str]]:
    """Each run's L-queue delay after the warm-up, (mean ms, 99th percentile ms, what it is):
    DualPI2's L-queue head sojourn (`qdelay_l_s`, at each update) sampled every
    `sample_interval`; with another discipline, the whole bottleneck queue's exact sojourn."""
    runs, series = store.runs(), store.series()
    out = {}
    for key, sj, soj, soj99 in zip(runs.key, runs.scenario_json, runs.sojourn_mean_s, runs.sojourn_p99_s, strict=True):
        warmup = _seconds(json.loads(sj)["warmup"])
        d = series[(series.key == key) & (series.t_s >= warmup)] if "qdelay_l_s" in series else series.iloc[0:0]
        if len(d):
            out[key] = (d.qdelay_l_s.mean() * 1e3, d.qdelay_l_s.quantile(0.99) * 1e3, "L queue head, sampled")
        else:
            out[key] = (soj * 1e3, soj99 * 1e3, "bottleneck sojourn")
    return out


def _coupling(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt

    runs = _per_run(store.flows(), ["classic"])
    runs["ratio"] = runs.L_mbps / runs.C_mbps
    # rate and base RTT from the runs themselves (a --set may sweep other values than the labels)
    runs["_rate"] = runs.key.map(_bottleneck_mbps(store))
    runs["_rtt"] = runs.L_base_ms.round(1)
    # RFC 9332 Appendix C.2, eq. 10: r_L / r_C = R_C / (1.22 R_L), with the measured RTTs
    runs["predicted"] = runs.C_rtt_ms / (1.22 * runs.L_rtt_ms)
    rows = []
    for (classic, rate, rtt), d in runs.groupby(["classic", "_rate", "_rtt"], sort=False):
        ratio = interval95(d.ratio)
        rows.append({
            "classic": classic, "rate": f"{rate:g} Mb/s", "base RTT": f"{rtt:g} ms", "Scalable Mb/s": _cell(d.L_mbps), "Classic Mb/s": _cell(d.C_mbps),
            "L/C": _cell(d.ratio), "eq. 10 L/C": f"{d.predicted.mean():.2f}", "L RTT - base ms": _cell(d.L_q_ms), "C RTT - base ms": _cell(d.C_q_ms),
            "within 2x": "yes" if 1 / FACTOR <= ratio.mean <= FACTOR else "no", "_rate": rate, "_rtt": rtt, "_ratio": ratio.mean,
        })  # fmt: skip
    import pandas as pd

    table = pd.DataFrame(rows).sort_values(["classic", "_rate", "_rtt"])
    classics = list(dict.fromkeys(table.classic))
    fig, axes = plt.subplots(1, len(classics), figsize=(5.5 * len(classics), 4), squeeze=False, sharey=True)
    for ax, classic in zip(axes[0], classics, strict=True):
        t = table[table.classic == classic]
        for rate, d in t.groupby("rate", sort=False):
            ax.plot(d._rtt, d._ratio, marker="o", label=str(rate))
        ax.axhspan(1 / FACTOR, FACTOR, color="0.9", label="within 2x")
        ax.axhline(1, color="0.5", lw=0.8)
        ax.set(xscale="log", yscale="log", xlabel="base RTT (ms)", title=f"Scalable vs {classic}")
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("goodput ratio L / C")
    fig_path = _save(fig, out, "coupling_ratio")
    inside = int((table["within 2x"] == "yes").sum())
    near = table[(table._rtt >= 10) & (table._rtt <= 50) & (table._rate >= 20)]
    near_in = int((near["within 2x"] == "yes").sum())
    exp = [
        Expectation(
            "coupling", "RFC 9332 section 2.1; RFC 9331 section 5.2",
            "k = 2 makes a Classic (Reno-friendly) flow's rate roughly equal a Scalable flow's (windows, for Reno: RFC 9331 5.2)",
            f"the mean L/C ratio within a factor of {FACTOR:g} (no RFC states a tolerance; draft-ietf-tsvwg-l4sops section 2)",
            f"{inside} of {len(table)} cells within 2x; at base RTTs 10-50 ms and 20 Mb/s or more: {near_in} of {len(near)}",
            "holds" if inside == len(table) else "does not hold",
        ),
        Expectation(
            "coupling", "RFC 9332 Appendix C.2, eq. 10",
            "the ratio follows R_C / (1.22 R_L): equal near a 25 ms base RTT, the Classic flow ahead at long RTTs",
            "the measured L/C falls below 1 at the longest base RTT in every rate and classic",
            "; ".join(f"{c}: {', '.join(f'{r} {v:.2f}' for r, v in zip(d.rate, d._ratio, strict=True))}" for c, d in table[table._rtt == table._rtt.max()].groupby("classic")),
            "holds" if (table[table._rtt == table._rtt.max()]._ratio < 1).all() else "does not hold",
        ),
    ]  # fmt: skip
    text = section(
        out, "coupling", "1. Coupled rate balance (RFC 9332 section 2.1, Appendix C.2)",
        "One Scalable flow (host L) and one Classic flow (host C) through the bottleneck; mean ± 95 % interval over the seeds. "
        "`eq. 10 L/C` is Appendix C.2's prediction from the flows' measured mean RTTs.",
        table, (fig_path,),
    )
    return text, exp


def _latency(stores: Mapping[str, Store], out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    parts = []
    for name in ("latency", "latency-mixed"):
        if name not in stores:
            continue
        runs = _per_run(stores[name].flows(), ["rate"] + (["scalable", "classic"] if name == "latency-mixed" else ["scalable"]))
        runs["load"] = runs.scalable.astype(str) + "L" + (("+" + runs.classic.astype(str) + "C") if "classic" in runs else "")
        runs["_rate"] = runs.rate.map(_rate_mbps)
        parts.append(runs)
    runs = pd.concat(parts, ignore_index=True)
    util: dict[str, float] = {}
    delays: dict[str, tuple[float, float, str]] = {}
    for name in ("latency", "latency-mixed"):
        if name in stores:
            r = stores[name].runs()
            util.update(dict(zip(r.key, r.utilization, strict=True)))
            delays.update(_l_queue_delay(stores[name]))
    runs["utilization"] = runs.key.map(util)
    runs["L_sojourn_ms"] = runs.key.map(lambda k: delays[k][0])
    runs["L_sojourn99_ms"] = runs.key.map(lambda k: delays[k][1])
    runs["measure"] = runs.key.map(lambda k: delays[k][2])
    rows = []
    for (rate, load), d in runs.groupby(["rate", "load"], sort=False):
        rows.append({
            "rate": rate, "load": load, "L queue mean ms": _cell(d.L_sojourn_ms), "L queue p99 ms": _cell(d.L_sojourn99_ms), "L drops": int(d.L_drops.sum()),
            "L RTT - base, mean ms": _cell(d.L_q_ms), "C RTT - base, mean ms": _cell(d.C_q_ms) if "C_q_ms" in d and d.C_q_ms.notna().any() else "-",
            "utilization": _cell(d.utilization, 3), "measure": d.measure.iloc[0], "_rate": d._rate.iloc[0], "_mean": d.L_sojourn_ms.mean(), "_p99": d.L_sojourn99_ms.mean(),
        })  # fmt: skip
    table = pd.DataFrame(rows).sort_values(["_rate", "load"])
    fig, ax = plt.subplots(figsize=(7, 4))
    labels = [f"{r}\n{lo}" for r, lo in zip(table.rate, table.load, strict=True)]
    x = range(len(table))
    ax.bar([i - 0.2 for i in x], table._mean, width=0.4, label="L queue, mean")
    ax.bar([i + 0.2 for i in x], table._p99, width=0.4, label="L queue, 99th percentile")
    ax.axhline(1, color="C0", ls="--", lw=0.8)
    ax.axhline(2, color="C1", ls="--", lw=0.8)
    ax.set_xticks(list(x), labels, fontsize=7)
    ax.set(ylabel="queueing delay (ms)", title="Scalable flows' queueing delay under DualPI2")
    ax.legend(fontsize=8)
    fig_path = _save(fig, out, "latency")
    ok_mean = int((table._mean < 1.0).sum())
    ok_p99 = int((table._p99 < 2.0).sum())
    drops = int(runs.L_drops.sum())
    exp = [
        Expectation("latency", "RFC 9330 section 1; RFC 9332 section 1.4", "L4S queueing delay below 1 ms on average",
                    "the L queue's mean delay < 1 ms in every cell (DualPI2's L-queue head sojourn every 10 ms after the warm-up)",
                    f"{ok_mean} of {len(table)} cells; largest {table._mean.max():.2f} ms", "holds" if ok_mean == len(table) else "does not hold"),
        Expectation("latency", "RFC 9330 section 1; RFC 9332 section 1.4", "below about 2 ms at the 99th percentile",
                    "the 99th percentile of those samples < 2 ms (seed mean) in every cell",
                    f"{ok_p99} of {len(table)} cells; largest {table._p99.max():.2f} ms", "holds" if ok_p99 == len(table) else "does not hold"),
        Expectation("latency", "RFC 9332 section 1.4", "no losses at all introduced by the L4S AQM",
                    "no drop of a Scalable flow's packet at the bottleneck", f"{drops} drops in {len(runs)} runs", "holds" if drops == 0 else "does not hold"),
    ]  # fmt: skip
    text = section(
        out, "latency", "2. L-queue latency under load (RFC 9330 section 1, RFC 9332 section 1.4)",
        "N Scalable flows (`<N>L`) alone or beside M Classic CUBIC flows (`+<M>C`), 20 ms base RTT. "
        "The L queue's delay is DualPI2's L-queue head sojourn (`qdelay_l_s`) sampled every 10 ms after the warm-up (another `--aqm`: the whole "
        "bottleneck queue's exact sojourn, `measure`). The flows' RTT less their base RTT is larger: it includes the receivers' delayed ACKs, "
        "which with a few paced segments per RTT hold the first of two segments until the next arrives.",
        table, (fig_path,),
    )
    return text, exp


def _overload(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    runs = _per_run(store.flows(), ["udp_load", "udp_codepoint"])
    udp = store.udp()
    u = udp.groupby("key").throughput_bps.sum() / 1e6 if len(udp) else pd.Series(dtype=float)
    runs["U_mbps"] = runs.key.map(u)
    # the load in % of the bottleneck, from the source's rate and the run's scenario (labels may
    # be rates when --set sweeps udp[0].rate)
    offered = udp.groupby("key").rate_bps.sum() / 1e6 if len(udp) else pd.Series(dtype=float)
    link = _bottleneck_mbps(store)
    runs["_load"] = (100 * runs.key.map(offered) / runs.key.map(link)).round(0)
    runs["udp_load"] = runs._load.map(lambda v: f"{v:g}%")
    runs["_left"] = runs.key.map(link) - runs.U_mbps  # the capacity the source leaves
    delays = _l_queue_delay(store)
    runs["L_sojourn_ms"] = runs.key.map(lambda k: delays[k][0])
    rows = []
    for (load, cp), d in runs.groupby(["udp_load", "udp_codepoint"], sort=False):
        rows.append({
            "UDP load": load, "codepoint": cp, "UDP Mb/s": _cell(d.U_mbps), "Prague Mb/s": _cell(d.L_mbps), "CUBIC Mb/s": _cell(d.C_mbps),
            "L queue ms": _cell(d.L_sojourn_ms), "Prague RTT - base ms": _cell(d.L_q_ms), "CUBIC RTT - base ms": _cell(d.C_q_ms),
            "_load": d._load.iloc[0], "_u": d.U_mbps.mean(), "_c": d.C_mbps.mean(), "_lq": d.L_sojourn_ms.mean(),
            "_share": ((d.L_mbps + d.C_mbps) / d._left).mean(), "_left": d._left.mean(),
        })  # fmt: skip
    table = pd.DataFrame(rows).sort_values(["_load", "codepoint"])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for cp, d in table.groupby("codepoint", sort=False):
        axes[0].plot(d._load, d._u, marker="o", label=f"UDP {cp}")
        axes[1].plot(d._load, d._c, marker="o", label=f"CUBIC beside UDP {cp}")
    axes[0].set(xlabel="UDP load (% of the link)", ylabel="Mb/s delivered", title="unresponsive source")
    axes[1].set(xlabel="UDP load (% of the link)", ylabel="Mb/s", title="the Classic flow")
    for ax in axes:
        ax.legend(fontsize=8)
    fig_path = _save(fig, out, "overload")
    by = table.set_index(["_load", "codepoint"])
    advantage = []
    for load in sorted(table._load.unique()):
        if (load, "ect1") in by.index and (load, "ect0") in by.index:
            advantage.append((load, by.loc[(load, "ect1"), "_u"], by.loc[(load, "ect0"), "_u"]))
    worst = max((e1 / e0 if e0 else float("inf") for _, e1, e0 in advantage), default=float("nan"))
    over = table[(table._load > 100) & (table.codepoint == "ect1")]
    under = table[table._load < 100]
    shared = under[(under._share >= 0.9) & (under._c >= 0.01 * under._u.max())]
    exp = [
        Expectation("overload", "RFC 9332 section 4.2.3.1", "an unresponsive ECT(1) flow gets no more bandwidth advantage than with ECT(0)",
                    "its delivered rate at most 5 % above the ECT(0) source's at every load",
                    "; ".join(f"{load:g} %: {e1:.1f} vs {e0:.1f} Mb/s" for load, e1, e0 in advantage), "holds" if worst <= 1.05 else "does not hold"),
        Expectation("overload", "RFC 9332 Appendix A.2, section 2.5.1.1", "in overload the base AQM keeps the L queue to the Classic target (15 ms) by dropping L packets",
                    "with an ECT(1) source above the link rate, the L queue's mean delay (DualPI2's L-queue head, sampled every 10 ms) is within 5-30 ms: around the 15 ms target, not growing without bound",
                    "; ".join(f"{lo:g} %: {q:.1f} ms" for lo, q in zip(over._load, over._lq, strict=True)) or "-",
                    "holds" if len(over) and ((over._lq > 5) & (over._lq < 30)).all() else "does not hold"),
        Expectation("overload", "RFC 9332 section 4.2.1; sections 2.5.1 and 4.2.2",
                    "unresponsive traffic below the link rate subtracts from the capacity; the coupling shares the rest between the responsive flows, and the L queue's priority does not starve Classic traffic",
                    "below 100 % load, Prague and CUBIC together deliver at least 90 % of what the source leaves, and CUBIC at least 1 % of it (above 100 % an unresponsive source takes the link in any queue: no expectation)",
                    "; ".join(f"{lo:g} % {cp}: {sh:.0%} of {lft:.1f} Mb/s, CUBIC {c:.2f}" for lo, cp, sh, lft, c in zip(under._load, under.codepoint, under._share, under._left, under._c, strict=True)) or "-",
                    "not run" if under.empty else "holds" if len(shared) == len(under) else "does not hold"),
    ]  # fmt: skip
    text = section(
        out, "overload", "3. Unresponsive traffic and overload (RFC 9332 sections 4.2.1, 4.2.3.1, Appendix A.2)",
        "One Prague and one CUBIC flow, 40 Mb/s, 20 ms base RTT, with an unresponsive UDP source from 5 s sending ECT(1), ECT(0) or Not-ECT at 50-150 % of the link.",
        table, (fig_path,),
    )
    return text, exp


def _fallback(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    runs = _per_run(store.flows(), ["aqm", "base_rtt"])
    runs["ratio"] = runs.L_mbps / runs.C_mbps
    rows = []
    for (aqm, rtt), d in runs.groupby(["aqm", "base_rtt"], sort=False):
        rows.append({"bottleneck": aqm, "base RTT": rtt, "Prague Mb/s": _cell(d.L_mbps), "CUBIC Mb/s": _cell(d.C_mbps), "L/C": _cell(d.ratio),
                     "Prague RTT - base ms": _cell(d.L_q_ms), "CUBIC RTT - base ms": _cell(d.C_q_ms), "_ratio": d.ratio.mean()})  # fmt: skip
    table = pd.DataFrame(rows).sort_values(["bottleneck", "base RTT"], key=lambda c: c.map(_rate_or_label))
    fig, ax = plt.subplots(figsize=(7, 4))
    for rtt, d in table.groupby("base RTT", sort=False):
        ax.plot(d.bottleneck, d._ratio, marker="o", ls="", label=f"base RTT {rtt}")
    ax.axhspan(1 / FACTOR, FACTOR, color="0.9")
    ax.set(yscale="log", ylabel="goodput ratio Prague / CUBIC", title="Prague and CUBIC through each bottleneck")
    ax.legend(fontsize=8)
    fig_path = _save(fig, out, "fallback")

    def ratios(aqm: str) -> list[float]:
        return list(table[table.bottleneck == aqm]._ratio)

    def verdict(values: list[float]) -> str:
        return "not run" if not values else "holds" if all(1 / FACTOR <= v <= FACTOR for v in values) else "does not hold"

    classic_ecn = ratios("pie_ecn") + ratios("codel_ecn")
    exp = [
        Expectation("fallback", "RFC 9331 section 4.3 (requirement 3), section 4.3.1",
                    "at a classic ECN bottleneck in a shared queue a Scalable sender detects it and coexists with Reno-friendly flows (without detection: up to 25:1)",
                    "Prague / CUBIC within a factor of 2 through single-queue PIE and CoDel with RFC 3168 ECN",
                    ", ".join(f"{v:.2f}" for v in classic_ecn) or "-", verdict(classic_ecn)),
        Expectation("fallback", "RFC 9331 Appendix A.1.5, Table 2", "in a classic ECN FQ the two get equal rates",
                    "Prague / CUBIC within a factor of 2 through FQ-CoDel", ", ".join(f"{v:.2f}" for v in ratios("fq_codel")) or "-", verdict(ratios("fq_codel"))),
        Expectation("fallback", "RFC 9330 section 6.4.3", "at a bottleneck that drops (no ECN) the Scalable flow's loss response is Reno-friendly",
                    "Prague / CUBIC within a factor of 2 through a drop-tail FIFO", ", ".join(f"{v:.2f}" for v in ratios("droptail")) or "-", verdict(ratios("droptail"))),
        Expectation("fallback", "RFC 9331 Appendix A.1.5, Table 2; RFC 9332 section 2.1", "in a DualQ the two get roughly equal rates",
                    "Prague / CUBIC within a factor of 2 through DualPI2", ", ".join(f"{v:.2f}" for v in ratios("dualpi2")) or "-", verdict(ratios("dualpi2"))),
    ]  # fmt: skip
    text = section(
        out, "fallback", "4. A bottleneck that is not L4S (RFC 9331 section 4.3, Appendix A.1.5)",
        "One Prague and one ECN-capable CUBIC flow, 50 Mb/s. crosslayer's Prague has no classic-ECN fallback (off by default in the "
        "Linux module it follows; `docs/models/prague.md`), so the single-queue rows show what a sender without one does.",
        table, (fig_path,),
    )
    return text, exp


def _rtt(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    runs = _per_run(store.flows(), ["rtts", "rtt_scaling"])
    runs["ratio"] = runs.S_mbps / runs.F_mbps
    runs["rtt_ratio"] = runs.F_base_ms / runs.S_base_ms
    rows = []
    for (rtts, scaling), d in runs.groupby(["rtts", "rtt_scaling"], sort=False):
        rows.append({"base RTTs": rtts, "rtt_scaling": scaling, "short Mb/s": _cell(d.S_mbps), "long Mb/s": _cell(d.F_mbps), "short/long": _cell(d.ratio),
                     "base RTT ratio": f"{d.rtt_ratio.mean():.1f}", "_ratio": d.ratio.mean(), "_rtt_ratio": d.rtt_ratio.mean(), "_short": d.S_base_ms.mean()})  # fmt: skip
    # in the order of the short RTT, whatever order the runs were stored in
    table = pd.DataFrame(rows).sort_values(["_short", "rtt_scaling"], kind="stable")
    fig, ax = plt.subplots(figsize=(6, 4))
    for scaling, d in table.groupby("rtt_scaling", sort=False):
        ax.plot(d["base RTTs"], d._ratio, marker="o", label=f"rtt_scaling = {scaling}")
    ax.plot(table["base RTTs"].unique(), table.groupby("base RTTs", sort=False)._rtt_ratio.mean(), ls="--", color="0.5", label="base RTT ratio")
    ax.set(yscale="log", ylabel="goodput ratio short / long RTT", title="RTT independence of Prague")
    ax.legend(fontsize=8)
    fig_path = _save(fig, out, "rtt")
    pairs = []
    for rtts, d in table.groupby("base RTTs", sort=False):
        on, off = d[d.rtt_scaling == "rate"]._ratio, d[d.rtt_scaling == "none"]._ratio
        if len(on) and len(off):
            pairs.append((rtts, float(on.iloc[0]), float(off.iloc[0])))
    exp = [
        Expectation("rtt", "RFC 9331 section 4.3 item 4, Appendix A.1.6", "a Scalable control converges to a rate as independent of RTT as possible",
                    "with Prague's heuristic the short/long goodput ratio is lower than without it, at every RTT pair",
                    "; ".join(f"{r}: {a:.2f} with, {b:.2f} without" for r, a, b in pairs) or "-",
                    "not run" if not pairs else "holds" if all(a < b for _, a, b in pairs) else "does not hold"),
    ]  # fmt: skip
    text = section(
        out, "rtt", "5. RTT independence (RFC 9331 section 4.3 item 4, Appendix A.1.6)",
        "Two Prague flows with a short and a long base RTT, 100 Mb/s DualPI2; Prague's RTT-independence heuristic on (`rate`) and off (`none`).",
        table, (fig_path,),
    )
    return text, exp


def _varying(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    import matplotlib.pyplot as plt
    import pandas as pd

    runs, series = store.runs(), store.series()
    period = {"every_2s": 2.0, "every_100ms": 0.1}
    rows, phases = [], []
    flows = _per_run(store.flows(), ["experiment"])
    for key, sj, experiment in zip(runs.key, runs.scenario_json, runs.experiment, strict=True):
        warmup = _seconds(json.loads(sj)["warmup"])
        d = series[(series.key == key) & (series.t_s > warmup)]
        if "qdelay_l_s" not in d or not len(d):
            continue
        p = period.get(str(experiment), 2.0)
        phase = [alternating(t, p, "100 Mb/s", "20 Mb/s") for t in d.t_s]
        phases.append(pd.DataFrame({"key": key, "experiment": experiment, "phase": phase, "q_ms": d.qdelay_l_s.to_numpy() * 1e3, "t_s": d.t_s.to_numpy()}))
    samples = pd.concat(phases, ignore_index=True) if phases else pd.DataFrame(columns=["key", "experiment", "phase", "q_ms", "t_s"])
    for (experiment, phase), g in samples.groupby(["experiment", "phase"], sort=False):
        per_run = g.groupby("key").q_ms
        f = flows[flows.experiment == experiment]
        rows.append({"experiment": experiment, "phase": phase, "L-queue delay ms (mean)": _cell(per_run.mean()), "99th percentile ms": _cell(per_run.quantile(0.99)),
                     "Scalable Mb/s (whole run)": _cell(f.L_mbps), "Classic Mb/s (whole run)": _cell(f.C_mbps), "L drops": _cell(f.L_drops, 0),
                     "_mean": per_run.mean().mean(), "_order": (0 if experiment == "every_2s" else 1, phase != "100 Mb/s")})  # fmt: skip
    table = pd.DataFrame(rows).sort_values("_order") if rows else pd.DataFrame(columns=["experiment", "phase", "_mean"])
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    first = runs[runs.seed == runs.seed.min()]
    for ax, experiment, span in zip(axes, ("every_2s", "every_100ms"), (20.0, 1.0), strict=True):
        keys = first[first.experiment == experiment].key
        if not len(keys):
            continue
        d = samples[(samples.key == keys.iloc[0]) & (samples.t_s <= 2 + span)]
        ax.plot(d.t_s, d.q_ms, lw=0.8)
        ax.axhline(1, color="0.5", lw=0.8, ls="--")
        ax.set(xlabel="time (s)", ylabel="L-queue delay (ms)", title=f"{experiment} (seed {runs.seed.min()})")
    fig_path = _save(fig, out, "varying")
    over = [f"{e} at {ph}: {m:.2f} ms" for e, ph, m in zip(table.experiment, table.phase, table._mean, strict=True) if m >= 1]
    exp = [Expectation(
        "varying rate", "RFC 9330 section 1; RFC 9332 Appendix A.1 note a",
        "measured in time, the L queue adjusts to a drain rate that changes: its delay stays under 1 ms on average",
        "the mean L-queue delay below 1 ms in each phase (100 and 20 Mb/s) of both experiments",
        "; ".join(over) or ", ".join(f"{e} {ph} {m:.2f} ms" for e, ph, m in zip(table.experiment, table.phase, table._mean, strict=True)),
        "holds" if not over else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "varying", "6. A drain rate that changes (RFC 9332 Appendix A.1 note a)",
        "One Scalable and one Classic flow, base RTT 20 ms, through DualPI2 while the link alternates 100 and 20 Mb/s every 2 s or every 100 ms; "
        "the L queue's head sojourn sampled every 10 ms after the warm-up, by the rate it was taken at.",
        table, (fig_path,),
    )
    return text, exp


def _scalability(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    """Congestion signals (CE marks and drops at the bottleneck) per round trip of each flow of
    the coupling runs: RFC 9331 section 4.3's invariant for a Scalable congestion control."""
    import matplotlib.pyplot as plt
    import pandas as pd

    runs, flows = store.runs(), store.flows()
    measured = {k: _seconds(json.loads(sj)["duration"]) - _seconds(json.loads(sj)["warmup"]) for k, sj in zip(runs.key, runs.scenario_json, strict=True)}
    rate = _bottleneck_mbps(store)
    f = flows[flows.src.isin(["L", "C"])]
    f = f.assign(signals_per_rtt=(f.bottleneck_marks + f.bottleneck_drops) / (f.key.map(measured) / f.rtt_mean_s), _rate=f.key.map(rate), _rtt=(f.base_rtt_s * 1e3).round(1))
    rows = []
    for (classic, rtt, r), d in f.groupby(["classic", "_rtt", "_rate"]):
        sl, sc = d[d.src == "L"].signals_per_rtt, d[d.src == "C"].signals_per_rtt
        rows.append({"classic": classic, "base RTT": f"{rtt:g} ms", "rate": f"{r:g} Mb/s", "Scalable signals per RTT": _cell(sl), "Classic signals per RTT": _cell(sc, 3),
                     "_rtt": rtt, "_rate": r, "_l": sl.mean(), "_c": sc.mean()})  # fmt: skip
    t = pd.DataFrame(rows).sort_values(["classic", "_rtt", "_rate"])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, col, who in zip(axes, ("_l", "_c"), ("Scalable (Prague)", "Classic"), strict=True):
        for (classic, rtt), d in t.groupby(["classic", "_rtt"]):
            ax.plot(d._rate, d[col], marker="o", lw=0.8, label=f"{classic}, {rtt:g} ms")
        ax.set(xscale="log", yscale="log", xlabel="bottleneck rate (Mb/s)", title=f"{who}: marks and drops per round trip")
    axes[0].axhline(2, color="0.5", lw=0.8, ls="--")
    axes[0].set_ylabel("congestion signals per RTT")
    axes[1].legend(fontsize=6, ncol=2)
    fig_path = _save(fig, out, "scalability")
    drift = []
    for (classic, rtt), d in t.groupby(["classic", "_rtt"]):
        lo, hi = d[d._rate == d._rate.min()]._l.iloc[0], d[d._rate == d._rate.max()]._l.iloc[0]
        if not 0.5 <= hi / lo <= 2:
            drift.append(f"{classic} {rtt:g} ms: {lo:.2f} at {d._rate.min():g} Mb/s, {hi:.2f} at {d._rate.max():g} Mb/s")
    exp = [Expectation(
        "scalability", "RFC 9331 section 4.3",
        "a Scalable congestion control keeps the number of congestion signals per round trip invariant as its rate scales (about 2 for DCTCP and Prague)",
        "at each base RTT and classic, the Scalable flow's signals per RTT at the highest rate within a factor of 2 of those at the lowest",
        "; ".join(drift) or f"{len(t.groupby(['classic', '_rtt']))} of {len(t.groupby(['classic', '_rtt']))} within 2x; range {t._l.min():.2f}-{t._l.max():.2f}",
        "holds" if not drift else "does not hold",
    )]  # fmt: skip
    text = section(
        out, "scalability", "7. Scalability: congestion signals per round trip (RFC 9331 section 4.3)",
        "From the coupling runs: each flow's CE marks and drops at the bottleneck over the measured time, per its mean RTT. A Scalable control keeps "
        "them invariant as the rate grows (RFC 9331: half an RTT between marks, 2 per round trip); a Classic one sees fewer as the rate grows.",
        t, (fig_path,),
    )
    return text, exp


def write(stores: Mapping[str, Store], out: Path) -> Path:
    """Write the report of the runs in ``stores`` (study file name without ``.toml`` -> its
    store) to ``out``: ``report.md``, ``figures/``, ``tables/`` and ``expectations.json``."""
    (out / "tables").mkdir(parents=True, exist_ok=True)
    sections: list[str] = []
    expectations: list[Expectation] = []
    parts = [
        ("coupling", lambda: _coupling(stores["coupling"], out)),
        ("latency", lambda: _latency(stores, out)),
        ("overload", lambda: _overload(stores["overload"], out)),
        ("fallback", lambda: _fallback(stores["fallback"], out)),
        ("rtt", lambda: _rtt(stores["rtt"], out)),
        ("varying", lambda: _varying(stores["varying"], out)),
        ("coupling", lambda: _scalability(stores["coupling"], out)),
    ]
    for name, build in parts:
        if name not in stores and not (name == "latency" and "latency-mixed" in stores):
            continue
        text, exp = build()
        sections.append(text)
        expectations += exp
    return write_report(
        out, "L4S suite (RFC 9330, RFC 9331, RFC 9332)",
        "Every expectation the L4S documents state, with the rule this report applies and what the runs gave "
        "(the study files cite each value's section; `docs/suites/l4s.md` says what was adapted and why).",
        "Expectations", expectations, sections, sum(len(s.runs()) for s in stores.values()),
    )  # fmt: skip
