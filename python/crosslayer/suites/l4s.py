"""The L4S suite's report (RFC 9330-9332): each test's table, figure and expectations.

Every expectation is the documents' own, cited by section, and is checked on the runs with a
stated pass rule; where the documents give no number, the rule says which yardstick it uses.
The flows are told apart by their hosts, as the study files name them: ``L`` sends the Scalable
flows, ``C`` the Classic ones, ``U`` the unresponsive (or bursty) source; in ``rtt.toml`` ``S`` and
``F`` the short- and long-RTT flows; in ``bursty.toml`` ``L`` the bulk flow, Prague or CUBIC.
Queueing delay is a flow's mean (or 99th-percentile) RTT less its base RTT.
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
        if len(d) and d.qdelay_l_s.notna().any():
            out[key] = (d.qdelay_l_s.mean() * 1e3, d.qdelay_l_s.quantile(0.99) * 1e3, "L queue head, sampled")
        else:
            out[key] = (soj * 1e3, soj99 * 1e3, "bottleneck sojourn")
    return out


def _aqm_labels(store: Store) -> dict[str, str]:
    """Each run's bottleneck discipline: the study's ``aqm`` label where the study sweeps it,
    else the discipline's kind."""
    runs = store.runs()
    if "aqm" in runs:
        return {k: str(a) for k, a in zip(runs.key, runs.aqm, strict=True)}
    return {k: json.loads(sj)["topology"]["bottleneck"]["qdisc"]["kind"] for k, sj in zip(runs.key, runs.scenario_json, strict=True)}


def _aqm_source(aqm: str) -> str:
    """Where an AQM's L4S behaviour is specified: DualPI2's RFC, or RFC 9330 section 4.2 for
    per-flow queues with a shallow threshold for ECT(1) (FQ-CoDel's L4S mode)."""
    return "RFC 9330 sections 1 and 4.2" if "fq_codel" in aqm else "RFC 9330 section 1; RFC 9332 section 1.4"


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
        runs["aqm"] = runs.key.map(_aqm_labels(stores[name]))
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
    aqms = sorted(runs.aqm.unique(), key=lambda a: (a != "dualpi2", a))
    rows = []
    for (aqm, rate, load), d in runs.groupby(["aqm", "rate", "load"], sort=False):
        rows.append({
            "AQM": aqm, "rate": rate, "load": load, "L queue mean ms": _cell(d.L_sojourn_ms), "L queue p99 ms": _cell(d.L_sojourn99_ms), "L drops": int(d.L_drops.sum()),
            "L RTT - base, mean ms": _cell(d.L_q_ms), "C RTT - base, mean ms": _cell(d.C_q_ms) if "C_q_ms" in d and d.C_q_ms.notna().any() else "-",
            "utilization": _cell(d.utilization, 3), "measure": d.measure.iloc[0], "_aqm": aqms.index(aqm), "_rate": d._rate.iloc[0], "_mean": d.L_sojourn_ms.mean(), "_p99": d.L_sojourn99_ms.mean(),
        })  # fmt: skip
    table = pd.DataFrame(rows).sort_values(["_aqm", "_rate", "load"])
    fig, ax = plt.subplots(figsize=(max(7.0, 0.7 * len(table)), 4))
    short = {"dualpi2": "DualPI2", "fq_codel_l4s": "FQ-L4S"}
    labels = [(f"{short.get(a, a)}\n" if len(aqms) > 1 else "") + f"{r}\n{lo}" for a, r, lo in zip(table.AQM, table.rate, table.load, strict=True)]
    x = range(len(table))
    ax.bar([i - 0.2 for i in x], table._mean, width=0.4, label="L queue, mean")
    ax.bar([i + 0.2 for i in x], table._p99, width=0.4, label="L queue, 99th percentile")
    ax.axhline(1, color="C0", ls="--", lw=0.8)
    ax.axhline(2, color="C1", ls="--", lw=0.8)
    ax.set_xticks(list(x), labels, fontsize=7)
    ax.set(ylabel="queueing delay (ms)", title="Scalable flows' queueing delay under " + " and ".join(aqms))
    ax.legend(fontsize=8)
    fig_path = _save(fig, out, "latency")
    exp = []
    for aqm in aqms:
        t, r = table[table.AQM == aqm], runs[runs.aqm == aqm]
        ok_mean, ok_p99, drops = int((t._mean < 1.0).sum()), int((t._p99 < 2.0).sum()), int(r.L_drops.sum())
        how = "DualPI2's L-queue head sojourn every 10 ms after the warm-up" if aqm == "dualpi2" and t.measure.eq("L queue head, sampled").all() else "the bottleneck's exact sojourn (only Scalable flows in it)" if (t.load.str.endswith("L")).all() else "the measure column's"
        tag = "" if aqm == "dualpi2" else f" ({aqm})"
        exp += [
            Expectation("latency", _aqm_source(aqm), f"L4S queueing delay below 1 ms on average{tag}",
                        f"the L queue's mean delay < 1 ms in every cell ({how})",
                        f"{ok_mean} of {len(t)} cells; largest {t._mean.max():.2f} ms", "holds" if ok_mean == len(t) else "does not hold"),
            Expectation("latency", _aqm_source(aqm), f"below about 2 ms at the 99th percentile{tag}",
                        "the 99th percentile of that delay < 2 ms (seed mean) in every cell",
                        f"{ok_p99} of {len(t)} cells; largest {t._p99.max():.2f} ms", "holds" if ok_p99 == len(t) else "does not hold"),
            Expectation("latency", "RFC 9332 section 1.4" if aqm == "dualpi2" else "RFC 9330 section 4.2", f"no losses at all introduced by the L4S AQM{tag}",
                        "no drop of a Scalable flow's packet at the bottleneck", f"{drops} drops in {len(r)} runs", "holds" if drops == 0 else "does not hold"),
        ]  # fmt: skip
    text = section(
        out, "latency", "2. L-queue latency under load (RFC 9330 sections 1 and 4.2, RFC 9332 section 1.4)",
        "N Scalable flows (`<N>L`) alone or beside M Classic CUBIC flows (`+<M>C`), 20 ms base RTT, through DualPI2 and, alone, through FQ-CoDel's L4S mode "
        "(`fq_codel_l4s`: ce_threshold 1 ms for ECT(1) packets, RFC 9330 section 4.2). "
        "Under DualPI2 the L queue's delay is its L-queue head sojourn (`qdelay_l_s`) sampled every 10 ms after the warm-up; under FQ-CoDel (and another `--aqm`) "
        "the whole bottleneck queue's exact sojourn (`measure`), which with Scalable flows alone is theirs. The flows' RTT less their base RTT is larger: it includes the receivers' delayed ACKs, "
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

    def lq(aqm: str) -> list[tuple[float, float]]:
        """(Prague's, CUBIC's) mean queueing delay, ms, per base RTT through ``aqm``."""
        d = runs[runs.aqm == aqm]
        # in base-RTT order, as the table (the stores' row order is the order runs finished)
        cells = sorted(d.groupby("base_rtt", sort=False), key=lambda kv: _rate_or_label(kv[0]))
        return [(float(g.L_q_ms.mean()), float(g.C_q_ms.mean())) for _, g in cells]

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
        Expectation("fallback", "RFC 9330 section 4.2; RFC 9331 Appendix A.1.5, Table 2", "in per-flow queues with a shallow threshold for ECT(1) (FQ-CoDel's L4S mode) the two get equal rates",
                    "Prague / CUBIC within a factor of 2 through fq_codel_l4s", ", ".join(f"{v:.2f}" for v in ratios("fq_codel_l4s")) or "-", verdict(ratios("fq_codel_l4s"))),
        Expectation("fallback", "RFC 9330 section 4.2", "there, the L4S flow keeps a shallow queue while the Classic one meets CoDel's target",
                    "Prague's queueing (mean RTT - base RTT) below half of CUBIC's through fq_codel_l4s",
                    ", ".join(f"{p:.2f} / {c:.2f} ms" for p, c in lq("fq_codel_l4s")) or "-",
                    "not run" if not lq("fq_codel_l4s") else "holds" if all(p < c / 2 for p, c in lq("fq_codel_l4s")) else "does not hold"),
    ]  # fmt: skip
    text = section(
        out, "fallback", "4. A bottleneck that is not L4S (RFC 9331 section 4.3, Appendix A.1.5), and FQ-CoDel's L4S mode",
        "One Prague and one ECN-capable CUBIC flow, 50 Mb/s. crosslayer's Prague has no classic-ECN fallback (off by default in the "
        "Linux module it follows; `docs/models/prague.md`), so the single-queue rows show what a sender without one does. `fq_codel_l4s` is FQ-CoDel "
        "with ce_threshold 1 ms for ECT(1) packets (RFC 9330 section 4.2): an L4S bottleneck with per-flow queues.",
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


def _measured_s(store: Store) -> dict[str, float]:
    """Each run's measured time (duration less warm-up), seconds."""
    runs = store.runs()
    return {k: _seconds(json.loads(sj)["duration"]) - _seconds(json.loads(sj)["warmup"]) for k, sj in zip(runs.key, runs.scenario_json, strict=True)}


HEIST21 = {"prague": {"in_l": (15.97, 1.79), "in_c": (5.63, 1.79)}, "cubic": {"in_l": (2.83, 1.79), "in_c": (1.69, 1.79)}}
"""[Heist21]'s goodput losses (Mb/s) of one bulk flow through DualPI2 beside a Skype video call
(1.79 Mb/s) in the L or the C queue, 20 Mb/s, 160 ms (github.com/heistp/l4s-tests, "Underutilization
with Bursty Traffic")."""


def _bursty(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    """One bulk flow (host L: Prague or CUBIC) beside bursts (host U) in the L queue, the C queue
    or none: what the bulk flow loses against the same run without bursts (same seed)."""
    import matplotlib.pyplot as plt
    import pandas as pd

    runs, flows, fct = store.runs(), store.flows(), store.fct()
    delays = _l_queue_delay(store)
    measured = _measured_s(store)
    rows = []
    for key, d in flows.groupby("key", sort=False):
        r = runs[runs.key == key].iloc[0]
        bulk, bursts = d[d.src == "L"], d[d.src == "U"]
        warmup = _seconds(json.loads(r.scenario_json)["warmup"])
        f = fct[(fct.key == key) & (fct.start_s >= warmup)] if len(fct) else fct
        rows.append({
            "key": key, "aqm": str(r.aqm), "base_rtt": str(r.base_rtt), "bulk": str(r.bulk), "bursts": str(r.bursts), "seed": int(r.seed),
            "bulk_mbps": bulk.goodput_bps.sum() / 1e6, "bursts_mbps": bursts.goodput_bps.sum() / 1e6, "utilization": float(r.utilization),
            "marks_per_rtt": float(bulk.bottleneck_marks.sum() / (measured[key] / bulk.rtt_mean_s.mean())), "bulk_drops": int(bulk.bottleneck_drops.sum()),
            "q_ms": delays[key][0], "q99_ms": delays[key][1], "measure": delays[key][2], "burst_fct_ms": float(f.fct_s.median() * 1e3) if len(f) else float("nan"),
            "_rtt": float(bulk.base_rtt_s.mean() * 1e3),
        })  # fmt: skip
    per = pd.DataFrame(rows)
    base = per[per.bursts == "none"].set_index(["aqm", "base_rtt", "bulk", "seed"]).bulk_mbps
    per["loss_mbps"] = [base.get((a, b, c, sd), float("nan")) - g for a, b, c, sd, g in zip(per.aqm, per.base_rtt, per.bulk, per.seed, per.bulk_mbps, strict=True)]
    per["left_share"] = [g / (base.get((a, b, c, sd), float("nan")) - u) for a, b, c, sd, g, u in zip(per.aqm, per.base_rtt, per.bulk, per.seed, per.bulk_mbps, per.bursts_mbps, strict=True)]
    order = {"none": 0, "in_l": 1, "in_c": 2}
    table_rows = []
    for (aqm, rtt, bulk, bursts), d in per.groupby(["aqm", "base_rtt", "bulk", "bursts"], sort=False):
        burst = bursts != "none"
        table_rows.append({
            "AQM": aqm, "base RTT": rtt, "bulk flow": bulk, "bursts": bursts, "bulk Mb/s": _cell(d.bulk_mbps), "bursts Mb/s": _cell(d.bursts_mbps) if burst else "-",
            "bulk's loss Mb/s": _cell(d.loss_mbps) if burst else "-", "loss / bursts": f"{(d.loss_mbps / d.bursts_mbps).mean():.2f}" if burst else "-",
            "of what bursts leave": f"{d.left_share.mean():.0%}" if burst else "-", "utilization": _cell(d.utilization, 3),
            "L queue mean ms": _cell(d.q_ms), "L queue p99 ms": _cell(d.q99_ms), "bulk marks per RTT": _cell(d.marks_per_rtt), "bulk drops": int(d.bulk_drops.sum()),
            "burst completion ms (median)": _cell(d.burst_fct_ms, 1) if burst else "-", "measure": d.measure.iloc[0],
            "_order": (aqm != "dualpi2", d._rtt.iloc[0], bulk == "cubic", order.get(bursts, 3)),
            "_bulk": d.bulk_mbps.mean(), "_loss": d.loss_mbps.mean(), "_bursts": d.bursts_mbps.mean(), "_left": d.left_share.mean(), "_q": d.q_ms.mean(), "_q99": d.q99_ms.mean(), "_rtt": d._rtt.iloc[0],
        })  # fmt: skip
    table = pd.DataFrame(table_rows).sort_values("_order")
    bulks = list(dict.fromkeys(table["bulk flow"]))
    fig, axes = plt.subplots(1, len(bulks), figsize=(6 * len(bulks), 4), squeeze=False, sharey=True)
    for ax, bulk in zip(axes[0], bulks, strict=True):
        t = table[table["bulk flow"] == bulk]
        groups = list(dict.fromkeys(zip(t.AQM, t["base RTT"], strict=True)))
        for j, b in enumerate(("none", "in_l", "in_c")):
            vals = [t[(t.AQM == a) & (t["base RTT"] == r) & (t.bursts == b)]._bulk.mean() for a, r in groups]
            ax.bar([i + (j - 1) * 0.27 for i in range(len(groups))], vals, width=0.27, label={"none": "no bursts", "in_l": "bursts in L", "in_c": "bursts in C"}[b])
        ax.set_xticks(range(len(groups)), [f"{a}\n{r}" for a, r in groups], fontsize=8)
        ax.set(title=f"bulk flow: {bulk}", ylabel="bulk goodput (Mb/s)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, bbox_to_anchor=(0.5, -0.06))
    fig_path = _save(fig, out, "bursty")
    burst_cells = table[table.bursts != "none"]
    exp = []
    for aqm in sorted(burst_cells.AQM.unique(), key=lambda a: (a != "dualpi2", a)):
        t = burst_cells[burst_cells.AQM == aqm]
        short = t[t._left < 0.9]
        exp.append(Expectation(
            "bursty", "RFC 9332 section 4.2.1" if aqm == "dualpi2" else "RFC 9330 section 4.2; RFC 8290",
            f"the responsive flow shares what the bursts leave ({aqm})",
            "with bursts, the bulk flow delivers at least 90 % of its goodput without them less the bursts' rate, in every cell (RTT, bulk flow, queue of the bursts)",
            "; ".join(f"{r} {b} {bu}: {lft:.0%}" for r, b, bu, lft in zip(t["base RTT"], t["bulk flow"], t.bursts, t._left, strict=True)),
            "holds" if short.empty else "does not hold",
        ))
    heist = burst_cells[(burst_cells.AQM == "dualpi2") & (burst_cells._rtt == burst_cells._rtt.max())] if len(burst_cells) else burst_cells
    pairs = [(b, bu, lo / u) for b, bu, lo, u in zip(heist["bulk flow"], heist.bursts, heist._loss, heist._bursts, strict=True) if b in HEIST21]
    reproduced = [(b == "prague") == (x > 2) for b, _, x in pairs]
    exp.append(Expectation(
        "bursty", "RFC 9332 Appendix A.1 note a ([Heist21])",
        "DualPI2 underutilizes the link with bursty traffic: a Prague flow loses several times the bursts' rate with them in the L queue (15.97 Mb/s for 1.79) and in the C queue (5.63), a CUBIC flow about their rate (2.83, 1.69)",
        "at the longest base RTT ([Heist21]'s 160 ms), through DualPI2: Prague's loss above twice the bursts' rate in both queues, CUBIC's below it",
        "; ".join(f"{b} {bu}: {x:.2f} x ([Heist21] {HEIST21[b][bu][0] / HEIST21[b][bu][1]:.2f} x)" for b, bu, x in pairs) or "-",
        "not run" if not pairs else "holds" if all(reproduced) else "does not hold",
    ))
    in_l = burst_cells[(burst_cells.AQM == "dualpi2") & (burst_cells.bursts == "in_l")]
    exp.append(Expectation(
        "bursty", "RFC 9330 section 1", "the L queue's delay stays below 1 ms on average and about 2 ms at the 99th percentile with bursts in it",
        "through DualPI2 with the bursts in the L queue: mean < 1 ms and 99th percentile < 2 ms (its head sojourn every 10 ms) in every cell",
        "; ".join(f"{r} {b}: {q:.2f} / {q99:.2f} ms" for r, b, q, q99 in zip(in_l["base RTT"], in_l["bulk flow"], in_l._q, in_l._q99, strict=True)) or "-",
        "not run" if in_l.empty else "holds" if ((in_l._q < 1) & (in_l._q99 < 2)).all() else "does not hold",
    ))  # fmt: skip
    text = section(
        out, "bursty", "8. Bursty arrivals (RFC 9332 Appendix A.1 note a, [Heist21])",
        "One bulk flow (Prague or CUBIC) beside bursts: finite flows of 7.5 KB (5 segments sent at once) arriving as a Poisson process at 9 % of the link "
        "(1.8 Mb/s, [Heist21]'s video call), sent by Prague (ECT(1): `in_l`) or CUBIC (Not-ECT: `in_c`), 20 Mb/s. The bulk flow's loss is against the run "
        "without bursts of the same seed; `of what bursts leave` is its goodput over (its goodput without bursts - the bursts' rate). The L queue's delay is "
        "DualPI2's L-queue head sojourn sampled every 10 ms; under FQ-CoDel the whole bottleneck's exact sojourn (`measure`).",
        table, (fig_path,),
    )
    return text, exp


def _feedback(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    """Prague beside CUBIC with each ECN feedback and ACK-loss rate: the CE marks the receiver got
    against those the sender learnt of."""
    import matplotlib.pyplot as plt
    import pandas as pd

    flows = store.flows()
    measured = _measured_s(store)
    runs = _per_run(flows, ["feedback", "ack_loss"])
    scal = flows[flows.src == "L"].groupby("key")
    runs["received"] = runs.key.map(scal.ce_pkts.sum())
    runs["reported"] = runs.key.map(scal.ce_echoed_segs.sum())
    runs["marks_per_rtt"] = runs.key.map(lambda k: scal.ce_pkts.sum()[k] / (measured[k] / scal.rtt_mean_s.mean()[k]))
    runs["ratio"] = runs.L_mbps / runs.C_mbps
    order = {"accecn": 0, "accecn_no_option": 1, "dctcp": 2, "classic": 3}
    rows = []
    for (fb, loss), d in runs.groupby(["feedback", "ack_loss"], sort=False):
        rows.append({
            "feedback": fb, "ACK loss": loss, "Prague Mb/s": _cell(d.L_mbps), "CUBIC Mb/s": _cell(d.C_mbps), "L/C": _cell(d.ratio),
            "CE received": int(d.received.sum()), "CE reported": int(d.reported.sum()), "reported / received": f"{d.reported.sum() / max(1, d.received.sum()):.3f}",
            "CE marks per RTT": _cell(d.marks_per_rtt), "Prague RTT - base ms": _cell(d.L_q_ms), "CUBIC RTT - base ms": _cell(d.C_q_ms),
            "_order": (order.get(str(fb), 9), float(str(loss).rstrip("%") or 0)), "_r": d.reported.sum() / max(1, d.received.sum()), "_fb": str(fb), "_loss": float(str(loss).rstrip("%") or 0),
        })  # fmt: skip
    table = pd.DataFrame(rows).sort_values("_order")
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    fig.subplots_adjust(wspace=0.35)
    for fb, d in table.groupby("_fb", sort=False):
        axes[0].plot(d._loss, d._r, marker="o", label=fb)
        axes[1].plot(d._loss, [runs[(runs.feedback == fb) & (runs.ack_loss == lo)].ratio.mean() for lo in d["ACK loss"]], marker="o", label=fb)
    axes[0].set(xlabel="ACK loss (%)", ylabel="CE marks reported / received", yscale="log", title="what the sender learns")
    axes[1].set(xlabel="ACK loss (%)", ylabel="goodput Prague / CUBIC", yscale="log", title="Prague beside CUBIC under DualPI2")
    for ax in axes:
        ax.legend(fontsize=8)
    fig_path = _save(fig, out, "feedback")

    def cells(fb: str) -> pd.DataFrame:
        return table[table._fb == fb]

    acc, ace, classic = cells("accecn"), cells("accecn_no_option"), cells("classic")
    top = table._loss.max() if len(table) else 0.0
    exp = [
        Expectation("feedback", "RFC 9331 section 4.2; RFC 9768 sections 2, 3.2.3",
                    "with accurate feedback (AccECN's ACE field and option) the sender learns the extent of CE marking, lost ACKs or not",
                    "the marks the sender learnt of within 1 % of those the receiver got, at every ACK-loss rate",
                    "; ".join(f"{lo}: {r:.3f}" for lo, r in zip(acc["ACK loss"], acc._r, strict=True)) or "-",
                    "not run" if acc.empty else "holds" if ((acc._r - 1).abs() <= 0.01).all() else "does not hold"),
        Expectation("feedback", "RFC 9768 sections 2, 3.2.2.5, Appendix A.2.1",
                    "the ACE field alone is exact while ACKs arrive but has limited resilience to their loss: after lost ACKs the sender assumes the safest likely case (the most marks the field allows)",
                    f"without the option: within 1 % without ACK loss, more than 5 % above the received marks at {top:g} % ACK loss",
                    "; ".join(f"{lo}: {r:.3f}" for lo, r in zip(ace["ACK loss"], ace._r, strict=True)) or "-",
                    "not run" if ace.empty or top == 0 else "holds" if (abs(ace[ace._loss == 0]._r - 1) <= 0.01).all() and (ace[ace._loss == top]._r > 1.05).all() else "does not hold"),
        Expectation("feedback", "RFC 9768 section 1; RFC 9331 section 4.2",
                    "RFC 3168's feedback conveys at most one congestion signal per round trip, not the extent of marking, so a Scalable control cannot rely on it",
                    "with RFC 3168's echo, the marks reported differ from those received by more than half, at every ACK-loss rate",
                    "; ".join(f"{lo}: {r:.2f} (Prague / CUBIC {q})" for lo, r, q in zip(classic["ACK loss"], classic._r, classic["L/C"], strict=True)) or "-",
                    "not run" if classic.empty else "holds" if ((classic._r - 1).abs() > 0.5).all() else "does not hold"),
    ]  # fmt: skip
    text = section(
        out, "feedback", "9. The ECN feedback a Scalable sender needs (RFC 9331 section 4.2, RFC 9768)",
        "One Prague flow, whose feedback is swept, and one CUBIC flow (not ECN-capable), 50 Mb/s, 20 ms, DualPI2, the reverse path losing 0-30 % of the ACKs. "
        "`accecn`: the ACE field and the AccECN option (Prague's default); `accecn_no_option`: the ACE field alone, with RFC 9768's safety rule; `dctcp`: "
        "DCTCP's per-segment echo; `classic`: RFC 3168's ECE latch. `CE received`: the CE marks Prague's receiver got; `CE reported`: those its sender's "
        "feedback reported (summed over the seeds).",
        table, (fig_path,),
    )
    return text, exp


def _negotiated(middlebox: str, receiver: str) -> str:
    """What a (middlebox, receiver) point negotiates for TCP Prague (RFC 9768 Table 2, and the L4S
    team's tcp_prague, which takes no ECN rather than classic ECN): AccECN with an AccECN receiver
    through no middlebox or one that bleaches the ECN field (the handshake cannot see it); no ECN
    otherwise (a classic or non-ECN receiver; an AE-clearing middlebox makes the SYN an RFC 3168
    one)."""
    if receiver == "accecn" and middlebox in ("none", "bleach_before", "bleach_after"):
        return "accecn"
    return "off"


def _negotiation(store: Store, out: Path) -> tuple[str, list[Expectation]]:
    """Prague's AccECN negotiation with each receiver and through each middlebox, beside CUBIC
    under DualPI2: what the ends settle on, and what the path then does to the two flows."""
    import matplotlib.pyplot as plt
    import pandas as pd

    flows = store.flows()
    runs = _per_run(flows, ["middlebox", "receiver"])
    scal = flows[flows.src == "L"].groupby("key")
    runs["ecn"] = runs.key.map(scal.ecn_negotiated.first())
    runs["marks"] = runs.key.map(scal.bottleneck_marks.sum())
    runs["received"] = runs.key.map(scal.ce_pkts.sum())
    runs["ratio"] = runs.L_mbps / runs.C_mbps
    order = {"none": 0, "clear_ae": 1, "bleach_before": 2, "bleach_after": 3}
    rows = []
    for (box, rcv), d in runs.groupby(["middlebox", "receiver"], sort=False):
        rows.append({
            "middlebox": box, "receiver": rcv, "Prague's ECN": "/".join(sorted(set(map(str, d.ecn)))), "expected": _negotiated(str(box), str(rcv)),
            "Prague Mb/s": _cell(d.L_mbps), "CUBIC Mb/s": _cell(d.C_mbps), "L/C": _cell(d.ratio),
            "Prague RTT - base ms": _cell(d.L_q_ms), "CUBIC RTT - base ms": _cell(d.C_q_ms),
            "Prague marked": int(d.marks.sum()), "CE received": int(d.received.sum()), "Prague drops": int(d.L_drops.sum()),
            "_order": (order.get(str(box), 9), str(rcv)), "_box": str(box), "_rcv": str(rcv), "_ratio": d.ratio.mean(), "_ok": bool((d.ecn == _negotiated(str(box), str(rcv))).all()),
            "_delay_close": bool(abs(d.L_q_ms.mean() - d.C_q_ms.mean()) <= 0.2 * d.C_q_ms.mean()),
        })  # fmt: skip
    table = pd.DataFrame(rows).sort_values("_order")
    fig, ax = plt.subplots(figsize=(8, 4))
    for (rcv, d), style in zip(table.groupby("_rcv", sort=False), ("o-", "x--", "s:"), strict=False):
        ax.plot(range(len(d)), d._ratio, style, label=f"receiver: {rcv}")
        ax.set_xticks(range(len(d)), list(d._box))
    ax.axhline(1.0, color="grey", lw=0.5)
    ax.set(ylabel="goodput Prague / CUBIC", yscale="log", title="Prague beside CUBIC under DualPI2, by middlebox")
    ax.legend(fontsize=8)
    fig_path = _save(fig, out, "negotiation")

    def cells(box: str, rcv: str | None = None) -> pd.DataFrame:
        return table[(table._box == box) & ((table._rcv == rcv) if rcv else True)]

    fallback = table[table["expected"] == "off"]
    before, after = cells("bleach_before", "accecn"), cells("bleach_after", "accecn")
    exp = [
        Expectation("negotiation", "RFC 9768 section 3.1.1, Table 2, section 3.1.5; the L4S team's tcp_prague (TCP_CONG_NO_FALLBACK_RFC3168)",
                    "an AccECN sender gets AccECN from an AccECN receiver, classic ECN from an RFC 3168 one and none from one without ECN; a middlebox clearing AE makes the SYN an RFC 3168 one; Prague takes no ECN rather than classic ECN",
                    "every run's negotiated ECN is the table's `expected`",
                    f"{int(table._ok.sum())} of {len(table)} points as expected",
                    "not run" if table.empty else "holds" if table._ok.all() else "does not hold"),
        Expectation("negotiation", "RFC 9331 section 4.1 (ECT(1) identifies L4S); tcp_prague's prague_reno; RFC 9330 section 6.4.3",
                    "without ECN Prague sends Not-ECT packets, which a DualQ serves as Classic, and responds to loss as Reno: it shares the Classic queue with CUBIC",
                    f"no Prague packet marked, its queueing delay within 20 % of CUBIC's, and its rate within a factor of {FACTOR:g} of CUBIC's",
                    "; ".join(f"{b}/{r}: L/C {q}, {m} marked, delay {lq} ms against {cq}" for b, r, q, m, lq, cq in zip(fallback._box, fallback._rcv, fallback["L/C"], fallback["Prague marked"], fallback["Prague RTT - base ms"], fallback["CUBIC RTT - base ms"], strict=True)) or "-",
                    "not run" if fallback.empty else "holds" if (fallback["Prague marked"] == 0).all() and fallback._delay_close.all() and all(1 / FACTOR <= x <= FACTOR for x in fallback._ratio) else "does not hold"),
        Expectation("negotiation", "RFC 9768 section 3.2.2.3; RFC 9330 section 6.4.3",
                    "a middlebox that bleaches the ECN field before the AQM leaves it Not-ECT packets to drop, to which a Scalable sender responds as Reno",
                    f"no Prague packet marked, Prague within a factor of {FACTOR:g} of CUBIC",
                    "; ".join(f"L/C {q}, {m} marked, {dr} Prague drops" for q, m, dr in zip(before["L/C"], before["Prague marked"], before["Prague drops"], strict=True)) or "-",
                    "not run" if before.empty else "holds" if (before["Prague marked"] == 0).all() and all(1 / FACTOR <= x <= FACTOR for x in before._ratio) else "does not hold"),
        Expectation("negotiation", "RFC 9768 section 3.2.2.3 (testing for mangling of the IP-ECN field)",
                    "an AccECN end can tell that the path bleaches the ECN field after the AQM (the receiver's counts show no ECT arriving) and stop relying on ECN; crosslayer does not model that test, so the run shows a sender that keeps ECN",
                    f"with the marks lost, Prague within a factor of {FACTOR:g} of CUBIC (which needs the test)",
                    "; ".join(f"L/C {q}, {m} marked, {c} CE received" for q, m, c in zip(after["L/C"], after["Prague marked"], after["CE received"], strict=True)) or "-",
                    "not run" if after.empty else "holds" if all(1 / FACTOR <= x <= FACTOR for x in after._ratio) else "does not hold"),
    ]  # fmt: skip
    text = section(
        out, "negotiation", "10. AccECN's negotiation and middleboxes (RFC 9768 section 3.1, RFC 9331 section 4.2)",
        "One Prague flow and one CUBIC flow (not ECN-capable), 50 Mb/s, 20 ms, DualPI2. Prague's receiver can do AccECN, classic ECN only or no ECN "
        "(`[tcp] peer_ecn`); on Prague's path, no middlebox, one that clears the AE flag on its sender's uplink (`clear_ae`), or one that zeroes the "
        "IP-ECN field there, before the bottleneck (`bleach_before`), or on its receiver's downlink, after the AQM (`bleach_after`). `Prague's ECN`: "
        "what the handshake settled (`off`: none, Prague then runs Reno); `Prague marked`: its packets the AQM CE-marked; `CE received`: those that reached "
        "its receiver marked (summed over the seeds).",
        table, (fig_path,),
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
        ("bursty", lambda: _bursty(stores["bursty"], out)),
        ("feedback", lambda: _feedback(stores["feedback"], out)),
        ("negotiation", lambda: _negotiation(stores["negotiation"], out)),
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
