#!/usr/bin/env python3
"""crosslayer's ``linux`` TCP profile against the Linux 6.1 kernel (docs/validation/linux.md).

Every run is ``crosslayer crosscheck --with linux`` (the API, :func:`crosslayer.crosscheck.
crosscheck`): crosslayer with ``[tcp] profile = "linux"`` against the scenario translated into
User-mode Linux in virtual time, the same start times in both. Results go to one JSON file per
cell under ``--out`` (a cell already there is not run again); ``write`` makes the page's tables
and figures from them.

    crosslayer linux-ref build                                   # once, about 5 minutes
    .venv/bin/python validation/linux_reference.py single --jobs 2   # 15 CCs x DropTail/FQ-CoDel
    .venv/bin/python validation/linux_reference.py pair --jobs 2     # two flows (BBR, CUBIC, mixed), 5 s apart
    .venv/bin/python validation/linux_reference.py pair-starts       # two BBR flows, 6 starts, with and without the pacing credit
    .venv/bin/python validation/linux_reference.py multi --jobs 2    # seed 000 access link at 20 Mb/s
    .venv/bin/python validation/linux_reference.py two-way --jobs 2  # seed 004, scaled to 20 Mb/s
    .venv/bin/python validation/linux_reference.py write             # the tables and figures
    .venv/bin/python validation/linux_reference.py drift             # which stored cells today's engine moves (crosslayer only)
    .venv/bin/python validation/linux_reference.py bbr-lt --seeds 6 --jobs 2   # BBR's long-term rate in both (TCP_CC_INFO)
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "validation" / "results" / "linux"
PAGE = ROOT / "docs" / "validation" / "linux.md"
FIGURES = ROOT / "docs" / "validation" / "linux"

SINGLE_CCS = ("cubic", "reno", "bbr", "htcp", "vegas", "westwood", "illinois", "highspeed", "scalable", "yeah", "veno", "hybla", "lp", "bic", "dctcp")
SINGLE_QDISCS = {"droptail": {"kind": "droptail", "limit_pkts": 67}, "fq_codel": {"kind": "fq_codel"}}
"""The single-flow path: 20 Mb/s, RTT 40 ms, a BDP buffer (100 kB: 67 packets of 1500 B)."""

MULTI_QDISCS = {
    "droptail": {"kind": "droptail", "limit_pkts": 180},
    "pie": {"kind": "pie", "limit_pkts": 180},
    "codel": {"kind": "codel", "limit_pkts": 180},
    "fq_codel": {"kind": "fq_codel", "limit_pkts": 180},
}
"""Seed 000's access link at 20 Mb/s: its 900-packet buffer scaled with the rate (the same 108 ms
of queue), each AQM with its defaults."""


def single_scenario(cc: str, qdisc: str) -> dict[str, Any]:
    return {
        "name": f"linux-single-{cc}-{qdisc}",
        "duration": "20s",
        "warmup": "5s",
        "seed": 1,
        "sample_interval": "10ms",
        "cwnd_trace": True,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "20Mbps", "delay": "10ms", "qdisc": SINGLE_QDISCS[qdisc]},
            "senders": [{"name": "S", "rate": "1Gbps", "delay": "5ms"}],
            "receivers": [{"name": "R", "rate": "1Gbps", "delay": "5ms"}],
        },
        "tcp": {"profile": "linux", **({"ecn": True} if cc == "dctcp" else {})},
        "flows": [{"src": "S", "dst": "R", "cc": cc, "start": "0s"}],
    }


def multi_scenario(qdisc: str) -> dict[str, Any]:
    with open(ROOT / "studies" / "seed000-access-link.toml", "rb") as f:
        data = tomllib.load(f)
    data = copy.deepcopy(data)
    data["name"] = f"linux-access20-{qdisc}"
    data["cwnd_trace"] = True
    data["sample_interval"] = "10ms"
    topo = data["topology"]
    topo["bottleneck"] = {**topo["bottleneck"], "rate": "20Mbps", "qdisc": MULTI_QDISCS[qdisc]}
    if "reverse" in topo:
        topo["reverse"] = {**topo["reverse"], "rate": "20Mbps"}
    data.pop("study", None)
    return data


def two_way_scenario(cc: str) -> dict[str, Any]:
    """Seed 004's two-way experiment (studies/seed004-two-way.toml) at 20 Mb/s: one flow A -> B
    from 0 s, one B -> A from 10 s, the buffer scaled with the rate."""
    return {
        "name": f"linux-two-way-{cc}",
        "duration": "40s",
        "warmup": "15s",
        "seed": 1,
        "sample_interval": "10ms",
        "cwnd_trace": True,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "20Mbps", "delay": "10ms", "qdisc": {"kind": "droptail", "limit_bytes": "50000B", "limit_pkts": 100000}},
            "reverse": {"rate": "20Mbps", "delay": "10ms", "qdisc": {"kind": "droptail", "limit_bytes": "50000B", "limit_pkts": 100000}},
            "default_qdisc": {"kind": "droptail", "limit_pkts": 1000},
            "senders": [{"name": "Usa", "rate": "1Gbps", "delay": "0ms"}],
            "receivers": [{"name": "Mexico", "rate": "1Gbps", "delay": "0ms"}],
        },
        "tcp": {"profile": "linux"},
        "flows": [
            {"src": "Usa", "dst": "Mexico", "cc": cc, "start": "0s"},
            {"src": "Mexico", "dst": "Usa", "cc": cc, "start": "10s"},
        ],
    }


TWO_WAY_CCS = ("bbr", "cubic", "reno", "yeah", "highspeed")


def pair_scenario(cc: str, qdisc: str, second: str | None = None) -> dict[str, Any]:
    """Two flows on the single-flow path, the second (of algorithm ``second``, else ``cc``)
    starting 5 s after the first: how do they share (measured from 15 s to 40 s)?"""
    data = single_scenario(cc, qdisc)
    name = cc if second is None else f"{cc}_{second}"
    data.update(name=f"linux-pair-{name}-{qdisc}", duration="40s", warmup="15s")
    data["topology"]["senders"] = [{"name": "S1", "rate": "1Gbps", "delay": "5ms"}, {"name": "S2", "rate": "1Gbps", "delay": "5ms"}]
    data["topology"]["receivers"] = [{"name": "R1", "rate": "1Gbps", "delay": "5ms"}, {"name": "R2", "rate": "1Gbps", "delay": "5ms"}]
    data["flows"] = [{"src": "S1", "dst": "R1", "cc": cc, "start": "0s"}, {"src": "S2", "dst": "R2", "cc": second or cc, "start": "5s"}]
    return data


PAIR_CCS = ("bbr", "cubic", "cubic_bbr", "bbr_cubic")
RANDOM_CCS = ("bbr",)
"""Algorithms that draw random numbers (BBR its first PROBE_BW phase; the kernel's from the host's
randomness, crosslayer's from the seed): their cells run 5 seeds, so both sides show a spread."""


def seeds_for(cc: str, n: int = 5) -> list[int]:
    return list(range(1, n + 1)) if any(r in cc.split("_") for r in RANDOM_CCS) else [1]
"""Two flows of one algorithm, or a CUBIC and a BBR flow in either order."""


def pair_of(name: str, qdisc: str) -> dict[str, Any]:
    first, _, second = name.partition("_")
    return pair_scenario(first, qdisc, second or None)


def run_cell(path: str, data: dict[str, Any], seeds: list[int], fresh: bool = False) -> str:
    from crosslayer.crosscheck import Untranslatable, crosscheck
    from crosslayer.scenario import Scenario

    t0 = time.perf_counter()
    try:
        result = crosscheck(Scenario.from_dict(data, source=data["name"]), "linux", seeds=seeds, timeout_s=3600, fresh=fresh)
        out = result.to_json()
    except Untranslatable as exc:
        out = {"scenario": data["name"], "refused": exc.problems}
    out["scenario_data"] = data
    out["host_wall_s"] = time.perf_counter() - t0
    shrink(out)
    Path(path).write_text(json.dumps(out) + "\n")
    return f"{data['name']}: {out.get('agrees', 'refused')} ({out['host_wall_s']:.0f} s)"


def shrink(out: dict[str, Any], every: int = 5, flows: int = 3) -> None:
    """Keep the stored cwnd traces small: every 5th sample (50 ms), the first 3 flows, 2 decimals."""
    c = out.get("cwnd")
    if not c:
        return
    for side, traces in c.items():
        if side == "seed":
            continue
        c[side] = {name: {"t_s": [round(v, 3) for v in t["t_s"][::every]], "cwnd_pkts": [round(v, 2) for v in t["cwnd_pkts"][::every]]} for name, t in list(traces.items())[:flows]}


def run_cells(cells: list[tuple[str, dict[str, Any], list[int]]], jobs: int, force: bool, fresh: bool = False) -> None:
    """Run the cells not stored yet (all with ``force``); ``fresh``: run the kernel again even
    where the crosscheck cache keeps a run of the same program (`docs/crosscheck.md`, "Runs
    kept"), as the kernel's spread needs."""
    OUT.mkdir(parents=True, exist_ok=True)
    todo = [(str(OUT / f"{name}.json"), data, seeds) for name, data, seeds in cells if force or not (OUT / f"{name}.json").exists()]
    print(f"{len(todo)} of {len(cells)} cells to run", flush=True)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for fut in as_completed([pool.submit(run_cell, *cell, fresh) for cell in todo]):
            print(fut.result(), flush=True)


def load(name: str) -> dict[str, Any] | None:
    path = OUT / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def metric(r: dict[str, Any], name: str) -> tuple[dict | None, dict | None, str]:
    m = next((m for m in r.get("metrics", []) if m["metric"] == name), None)
    if m is None:
        return None, None, "not measured"
    return m["crosslayer"], m["linux"], m["verdict"]


def fmt(v: dict | None, scale: float, digits: int) -> str:
    if v is None:
        return "-"
    text = f"{v['mean'] * scale:,.{digits}f}"
    return text if v["min"] == v["max"] else f"{text} ({v['min'] * scale:,.{digits}f}..{v['max'] * scale:,.{digits}f})"


def row(r: dict[str, Any], names: list[tuple[str, float, int]]) -> list[str]:
    cells = []
    for name, scale, digits in names:
        a, b, verdict = metric(r, name)
        mark = {"agrees": "", "agrees within the seed spread": " (spread)", "differs": " **differs**", "not measured": ""}[verdict]
        cells.append(f"{fmt(a, scale, digits)} / {fmt(b, scale, digits)}{mark}")
    return cells


def cwnd_figure(name: str, r: dict[str, Any], title: str) -> str | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    c = r.get("cwnd")
    if not c:
        return None
    flows = list(c["crosslayer"])
    fig, axes = plt.subplots(len(flows), 1, figsize=(8, 2.6 * len(flows)), layout="constrained", squeeze=False)
    for ax, flow in zip(axes[:, 0], flows, strict=True):
        for who, style in (("crosslayer", "-"), ("linux", "--")):
            s = c[who].get(flow)
            if s:
                ax.plot(s["t_s"], s["cwnd_pkts"], style, linewidth=0.9, label="crosslayer (linux profile)" if who == "crosslayer" else "Linux 6.1 kernel")
        ax.set_ylabel("cwnd, segments")
        ax.set_title(f"{title}: flow {flow}" if len(flows) > 1 else title, fontsize=10)
        ax.legend(fontsize=8)
    axes[-1, 0].set_xlabel("time, s")
    FIGURES.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURES / f"{name}.png", dpi=80)
    plt.close(fig)
    return f"linux/{name}.png"


def stored(prefix: str, ccs: tuple[str, ...]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """The stored cells ``{prefix}-{cc}-{queue}`` for every algorithm and single-flow queue: (cc,
    queue, name, result), in table order, the cells not run left out."""
    cells = ((cc, q, f"{prefix}-{cc}-{q}") for cc in ccs for q in SINGLE_QDISCS)
    return [(cc, q, name, r) for cc, q, name in cells if (r := load(name)) is not None]


def write() -> None:
    from crosslayer import __version__
    from crosslayer.analysis import jain

    blocks: dict[str, str] = {}
    cols = [("goodput_bps", 1e-6, 2), ("qlen_mean_pkts@A->B", 1, 1), ("drop_ratio@A->B", 100, 3), ("retransmits", 1, 0), ("timeouts", 1, 0)]
    lines = ["| congestion control | queue | goodput, Mb/s | queue mean, pkts | drops, % | retransmissions | timeouts | cwnd |", "|---|---|---|---|---|---|---|---|"]
    counts = [0, 0]
    for cc, q, name, r in stored("single", SINGLE_CCS):
        if "refused" in r:
            lines.append(f"| {cc} | {q} | refused: {'; '.join(r['refused'])} | | | | | |")
            continue
        fig = cwnd_figure(name, r, f"{cc}, {q}, 20 Mb/s, RTT 40 ms")
        for m in r["metrics"]:
            if m["verdict"] != "not measured" and m["metric"] != "jain":
                counts[0] += m["verdict"] != "differs"
                counts[1] += 1
        lines.append(f"| {cc} | {q} | " + " | ".join(row(r, cols)) + f" | [figure]({fig}) |")
    blocks["single"] = "\n".join([*lines, "", f"{counts[0]} of {counts[1]} measured numbers agree (crosslayer / Linux; **differs** is beyond the bar)."])

    lines = ["| congestion control | queue | first flow, Mb/s | second flow (from 5 s), Mb/s | Jain | queue mean, pkts | retransmissions | cwnd |", "|---|---|---|---|---|---|---|---|"]
    for cc, q, name, r in stored("pair", PAIR_CCS):
        fig = cwnd_figure(name, r, f"{'two ' + cc if '_' not in cc else cc.replace('_', ' then ')} flows, {q}, 20 Mb/s, RTT 40 ms")
        per = [f"{f['crosslayer_goodput_bps'] / 1e6:.2f} / {f['linux_goodput_bps'] / 1e6:.2f}" for f in r["flows"]]
        rest = row(r, [("jain", 1, 3), ("qlen_mean_pkts@A->B", 1, 1), ("retransmits", 1, 0)])
        lines.append(f"| {cc} | {q} | {per[0]} | {per[1]} | " + " | ".join(rest) + f" | [figure]({fig}) |")
    blocks["pair"] = "\n".join(lines)
    starts = load("pair-starts-bbr-droptail")
    if starts is not None:
        lines = ["| second flow starts | drops, %: Linux / crosslayer / no credit | retransmissions | queue mean, pkts | Jain |", "|---|---|---|---|---|"]
        sides = ("linux", "crosslayer", "crosslayer, no pacing credit")
        for start, r in starts.items():
            jains = [jain(r[k]["goodput_bps"]) for k in sides]
            lines.append(
                f"| {start} | " + " / ".join(f"{r[k]['drop_ratio'] * 100:.2f}" for k in sides) + " | " + " / ".join(f"{r[k]['retransmits']:.0f}" for k in sides)
                + " | " + " / ".join(f"{r[k]['qlen_mean_pkts']:.1f}" for k in sides) + " | " + " / ".join(f"{j:.3f}" for j in jains) + " |"
            )
        blocks["pair-starts"] = "\n".join(lines)

    lines = ["| queue | aggregate goodput, Mb/s | Jain | queue mean, pkts | queue SD, pkts | drops, % | retransmissions | timeouts |", "|---|---|---|---|---|---|---|---|"]
    mcols = [("goodput_bps", 1e-6, 2), ("jain", 1, 3), ("qlen_mean_pkts@A->B", 1, 1), ("qlen_sd_pkts@A->B", 1, 1), ("drop_ratio@A->B", 100, 3), ("retransmits", 1, 0), ("timeouts", 1, 0)]
    seeds = None
    for q in MULTI_QDISCS:
        r = load(f"multi-{q}")
        if r is None:
            continue
        seeds = r["seeds"]
        cwnd_figure(f"multi-{q}", {"cwnd": {k: {f: v for f, v in list(c.items())[:3]} for k, c in r["cwnd"].items() if k != "seed"}} if r.get("cwnd") else {}, f"access link 20 Mb/s, {q}")
        lines.append(f"| {q} | " + " | ".join(row(r, mcols)) + " |")
    blocks["multi"] = "\n".join([*lines, "", f"Seeds {seeds}: each seed draws the start times; the kernel's run of a seed is one repetition (its own randomness is the host's)."])

    lines = ["| congestion control | goodput, total, Mb/s | goodput A->B, Mb/s | goodput B->A, Mb/s | queue mean A->B, pkts | queue mean B->A, pkts | retransmissions | cwnd |", "|---|---|---|---|---|---|---|---|"]
    for cc in (*TWO_WAY_CCS, "control-reno-alone", "control-reno-pkts"):
        r = load(f"two-way-{cc}")
        if r is None:
            continue
        if "refused" in r:
            lines.append(f"| {cc} | refused: {'; '.join(r['refused'])} | | | | | | |")
            continue
        fig = cwnd_figure(f"two-way-{cc}", r, f"{cc}, two-way, 20 Mb/s")
        flows = {f["name"]: f for f in r["flows"]}
        fwd = [f for n, f in flows.items() if n.startswith("Usa")]
        rev = [f for n, f in flows.items() if n.startswith("Mexico")]
        g = lambda fs, who: sum(f[f"{who}_goodput_bps"] for f in fs) / 1e6  # noqa: E731
        q = row(r, [("qlen_mean_pkts@A->B", 1, 1), ("qlen_mean_pkts@B->A", 1, 1), ("retransmits", 1, 0)])
        total = row(r, [("goodput_bps", 1e-6, 2)])[0]
        lines.append(f"| {cc} | {total} | {g(fwd, 'crosslayer'):.2f} / {g(fwd, 'linux'):.2f} | {g(rev, 'crosslayer'):.2f} / {g(rev, 'linux'):.2f} | {q[0]} | {q[1]} | {q[2]} | [figure]({fig}) |")
    blocks["two-way"] = "\n".join(lines)

    r = load("graph-parking-lot-3")
    if r is not None:
        lines = ["| metric | crosslayer | Linux 6.1 | verdict |", "|---|---|---|---|"]
        for m in r["metrics"]:
            if m["verdict"] == "not measured":
                continue
            scale, digits = (1e-6, 2) if "goodput" in m["metric"] else (100, 3) if "drop" in m["metric"] else (1, 3) if m["metric"] == "jain" else (1, 1)
            lines.append(f"| {m['label']} | {fmt(m['crosslayer'], scale, digits)} | {fmt(m['linux'], scale, digits)} | {m['verdict']} |")
        blocks["graph"] = "\n".join([*lines, "", f"Seeds {r['seeds']}; mean (range)."])
    lines = ["| queue | metric | crosslayer | Linux, run 1 | Linux, run 2 |", "|---|---|---|---|---|"]
    same = []
    for q in ("droptail", "fq_codel"):
        reps = [load(f"repeat-{q}-{k}") for k in (1, 2)]
        if not all(reps):
            continue
        for name, scale, digits in mcols:
            a, b = metric(reps[0], name), metric(reps[1], name)
            lines.append(f"| {q} | {name} | {fmt(a[0], scale, digits)} | {fmt(a[1], scale, digits)} | {fmt(b[1], scale, digits)} |")
        identical = [f["linux_goodput_bps"] for f in reps[0]["flows"]] == [f["linux_goodput_bps"] for f in reps[1]["flows"]] and reps[0].get("cwnd", {}).get("linux") == reps[1].get("cwnd", {}).get("linux")
        same.append(f"{q}: the two kernel runs' per-flow goodputs and cwnd traces are {'identical' if identical else 'not identical'}")
    if same:
        blocks["repeat"] = "\n".join([*lines, "", "; ".join(same) + "."])

    text = PAGE.read_text()
    for key, body in blocks.items():
        start, end = f"<!-- generated: {key} -->", f"<!-- end: {key} -->"
        if start not in text:
            continue
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = f"{head}{start}\n\n_crosslayer {__version__}; made by `python validation/linux_reference.py write` from validation/results/linux/._\n\n{body}\n\n{end}{tail}"
    PAGE.write_text(text)
    print(f"written: {PAGE}")


def drift(folder: Path = OUT) -> int:
    """crosslayer's side of every stored cell run again (no kernel), measured as the crosscheck
    measures it: which cells today's engine gives other per-flow goodputs than the stored ones,
    and by how much (the cells to run again after an engine change). Exit 1 if one moved."""
    import crosslayer
    from crosslayer.crosscheck import _crosslayer_side, with_profile
    from crosslayer.scenario import Scenario

    moved = checked = 0
    for path in sorted(folder.glob("*.json")):
        r = json.loads(path.read_text())
        if "scenario_data" not in r or "flows" not in r:
            print(f"{path.stem}: no stored scenario (run it again with its own command)")
            continue
        sc = with_profile(Scenario.from_dict(r["scenario_data"], source=path.stem), "linux")
        now: dict[str, list[float]] = {}
        for seed in r["seeds"]:
            for name, goodput in _crosslayer_side(crosslayer.run(sc.with_overrides(seed=seed))).flows:
                now.setdefault(name, []).append(goodput)
        worst = max(abs(sum(now[f["name"]]) / len(now[f["name"]]) - f["crosslayer_goodput_bps"]) / max(f["crosslayer_goodput_bps"], 1.0) for f in r["flows"])
        moved, checked = moved + (worst > 0), checked + 1
        print(f"{path.stem}: " + ("same" if worst == 0 else f"moved (largest change of a flow's goodput {100 * worst:.2f} %)"), flush=True)
    print(f"{moved} of the {checked} stored cells with their scenario moved")
    return 1 if moved else 0


def lp_offsets() -> None:
    """TCP-LP alone, in the kernel with and without its random per-connection timestamp offsets
    (``net.ipv4.tcp_timestamps`` = 1, Linux's default, or 2): the translation's guest with that
    one sysctl changed. Writes validation/results/linux/lp-offsets.json."""
    import crosslayer
    from crosslayer.crosscheck import linux, run_linux, with_profile
    from crosslayer.scenario import Scenario

    out = {}
    for q in SINGLE_QDISCS:
        sc = with_profile(Scenario.from_dict(single_scenario("lp", q), source="lp"), "linux")
        r = crosslayer.run(sc)
        program = linux.program(linux.translate(sc.to_engine_spec(), r.flows, r.queues, r.udp).description)
        for value in (1, 2):
            raw = run_linux(program.replace("net.ipv4.tcp_timestamps=1", f"net.ipv4.tcp_timestamps={value}"), linux.find_kernel())
            out[f"{q} tcp_timestamps={value}"] = {"linux_goodput_bps": raw["flows"][0]["goodput_bps"], "queue_mean_pkts": raw["queues"]["A->B"]["qlen_mean_pkts"], "crosslayer_goodput_bps": float(r.flows.delivered_bytes[0]) * 8 / float(r.summary["measured_s"])}
            print(q, value, out[f"{q} tcp_timestamps={value}"], flush=True)
    (OUT / "lp-offsets.json").write_text(json.dumps(out, indent=1) + "\n")


def window_shape(t: list[float], q: list[float], cwnd: dict[str, tuple[list[float], list[float]]], start: float) -> dict[str, Any]:
    """The queue's empty share and each flow's mean cwnd from ``start`` on."""
    qs = [v for tt, v in zip(t, q) if tt >= start]
    means = {n: sum(v for tt, v in zip(ts, vs) if tt >= start) / max(1, sum(1 for tt in ts if tt >= start)) for n, (ts, vs) in cwnd.items()}
    return {"queue_empty_share": sum(1 for v in qs if v == 0) / len(qs) if qs else None, "cwnd_mean_pkts": means}


def two_way_probes() -> None:
    """Reno's two-way run in the kernel with one of its features turned off, against crosslayer:
    SACK compression (``net.ipv4.tcp_comp_sack_nr = 0``). Also counts the loss episodes
    (``TCPSackRecovery``), the A -> B queue's empty share and the mean cwnd, and sweeps the
    reverse flow's start in crosslayer (Reno and CUBIC). Writes
    validation/results/linux/two-way-probes.json."""
    import crosslayer
    from crosslayer.crosscheck import linux, run_linux, with_profile
    from crosslayer.scenario import Scenario

    sc = with_profile(Scenario.from_dict(two_way_scenario("reno"), source="two-way"), "linux")
    r = crosslayer.run(sc)
    d = linux.translate(sc.to_engine_spec(), r.flows, r.queues, r.udp).description
    program = linux.program(d)
    hosts = sorted({f["src"] for f in d["flows"]})
    out: dict[str, Any] = {"crosslayer": {"goodput_bps": [float(g) for g in r.flows.goodput_bps], "retransmits": [int(v) for v in r.flows.retransmits], "recoveries": [int(v) for v in r.flows.fast_recoveries]}}
    for name, sysctl in (("default", None), ("no SACK compression", "net.ipv4.tcp_comp_sack_nr=0")):
        text = program
        if sysctl:
            first = f"run ip netns exec {hosts[0]} sysctl -qw net.ipv4.tcp_ecn"
            text = text.replace(first, "\n".join(f"run ip netns exec {h} sysctl -qw {sysctl}" for h in hosts) + "\n" + first, 1)
            assert sysctl in text
        raw = run_linux(text, linux.find_kernel())
        out[name] = {"goodput_bps": [f["goodput_bps"] for f in raw["flows"]], "retransmits": [f["retransmits"] for f in raw["flows"]], "recoveries": [f["recoveries"] for f in raw["flows"]], "netstat": raw["netstat"]}
        if sysctl is None:
            out[name].update(window_shape(raw["series"]["t_s"], raw["series"]["qlen_pkts"], {n: (c["t_s"], c["cwnd_pkts"]) for n, c in raw["cwnd"].items()}, 15.0))
        print(name, out[name]["goodput_bps"], out[name]["recoveries"], flush=True)
    mss = 1448
    cw = {str(n): (list(g.t_s), [b / mss for b in g.cwnd_bytes]) for n, g in r.cwnd.groupby("flow")}
    out["crosslayer"].update(window_shape(list(r.series.t_s), list(r.series.qlen_pkts), cw, 15.0))
    # the model's outcome as the reverse flow's start moves (the kernel's runs are one start)
    out["crosslayer_start_sweep"] = {}
    for cc in ("reno", "cubic"):
        for start in ("10s", "10.003s", "10.011s", "10.1s", "10.37s", "11s"):
            d2 = two_way_scenario(cc)
            d2["flows"][1]["start"] = start
            rr = crosslayer.run(with_profile(Scenario.from_dict(d2, source="two-way"), "linux"))
            out["crosslayer_start_sweep"][f"{cc} {start}"] = float(rr.flows.goodput_bps.sum())
    print("crosslayer", out["crosslayer"], out["crosslayer_start_sweep"], flush=True)
    (OUT / "two-way-probes.json").write_text(json.dumps(out, indent=1) + "\n")


PAIR_STARTS = ("5s", "5.2s", "5.4s", "5.6s", "5.8s", "6s")


def pair_starts() -> None:
    """Two BBR flows on DropTail (:func:`pair_scenario`) with the second flow starting at each of
    :data:`PAIR_STARTS`: the kernel once per start (its BBR draws its phases from the host's
    randomness, so its runs vary), crosslayer with Linux's pacing credit (the profile's rule)
    and without it (``[tcp] pacing_credit = false``). Writes
    validation/results/linux/pair-starts-bbr-droptail.json."""
    import crosslayer
    from crosslayer.crosscheck import crosscheck
    from crosslayer.scenario import Scenario

    def summary(flows: list[float], q: float, drops: float, retx: float) -> dict[str, Any]:
        return {"goodput_bps": flows, "qlen_mean_pkts": q, "drop_ratio": drops, "retransmits": retx}

    out: dict[str, Any] = {}
    for start in PAIR_STARTS:
        d = pair_scenario("bbr", "droptail")
        d["name"] += f"-{start}"
        d["flows"][1]["start"] = start
        r = crosscheck(Scenario.from_dict(d, source=d["name"]), "linux", seeds=[1], timeout_s=3600).to_json()
        m = {x["metric"]: x for x in r["metrics"]}
        row: dict[str, Any] = {}
        for side in ("linux", "crosslayer"):
            row[side] = summary([f[f"{side}_goodput_bps"] for f in r["flows"]], m["qlen_mean_pkts@A->B"][side]["mean"], m["drop_ratio@A->B"][side]["mean"], m["retransmits"][side]["mean"])
        d["tcp"] = {**d["tcp"], "pacing_credit": False}
        res = crosslayer.run(Scenario.from_dict(d, source=d["name"]))
        b = res.queues[res.queues.link == "A->B"].iloc[0]
        row["crosslayer, no pacing credit"] = summary([float(g) for g in res.flows.goodput_bps], float(b.qlen_mean_pkts), float(b.drop_ratio), float(res.flows.retransmits.sum()))
        out[start] = row
        print(start, {k: (round(v["drop_ratio"] * 100, 2), round(v["retransmits"])) for k, v in row.items()}, flush=True)
    (OUT / "pair-starts-bbr-droptail.json").write_text(json.dumps(out, indent=1) + "\n")


def _long_gain_one(t: list[float], gain: list[float], one: float, span: float) -> float:
    """The share of samples in stretches at pacing gain ``one`` longer than ``span`` seconds."""
    held, i = 0, 0
    while i < len(t):
        j = i
        while j + 1 < len(t) and gain[j + 1] == gain[i]:
            j += 1
        if gain[i] == one and t[j] - t[i] > span:
            held += j - i + 1
        i = j + 1
    return held / max(len(t), 1)


def bbr_lt(seeds: int, jobs: int) -> None:
    """Does the kernel's BBR v1 take the long-term rate (`bbr_lt_bw_sampling`) as often as the
    model? The kernel does not report it, so both are measured by its signature: the share of
    a flow's samples (every 10 ms) in stretches at pacing gain 1 longer than 10 min RTTs (PROBE_BW
    alone holds gain 1 for at most 6 phases; the long-term rate holds it for 48 rounds). The
    kernel's gain is read with ``TCP_CC_INFO`` (``struct tcp_bbr_info``) by a copy of the traffic
    program that also samples it; crosslayer runs with ``lt_sampling`` unset (on, the linux
    profile's) and off. The cells: two BBR flows on DropTail (``pair``) and nine on seed 000's access link.
    Writes validation/results/linux/bbr-lt.json."""
    import tempfile
    from concurrent.futures import ThreadPoolExecutor

    import crosslayer
    from crosslayer.crosscheck import linux, run_linux, with_profile
    from crosslayer.scenario import Scenario

    traffic = Path(linux.traffic_program()).read_text()
    sample = """                        c["srtt_s"].append(info["rtt_us"] / 1e6)\n"""
    assert sample in traffic, "the traffic program's cwnd sample moved: update bbr-lt"
    probe = traffic.replace(sample, sample + """                        b = fl.sender.getsockopt(socket.IPPROTO_TCP, 26, 20).ljust(20, b"\\0")  # TCP_CC_INFO
                        c.setdefault("bbr_pacing_gain", []).append(struct.unpack_from("<5I", b)[3] / 256)
""")
    kernel = linux.find_kernel()
    with open(ROOT / "studies" / "seed000-access-link.toml", "rb") as f:
        access = tomllib.load(f)
    access.update({"duration": "30s", "warmup": "10s"})
    for fl in access["flows"]:
        fl["cc"] = "bbr"
    cells = {"pair-bbr-droptail": pair_of("bbr", "droptail"), "access-9-bbr": access}
    seed_list = list(range(1, seeds + 1))
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "traffic.py").write_text(probe)
        for name, data in cells.items():
            base = with_profile(Scenario.from_dict({**data, "cwnd_trace": True, "sample_interval": "10ms"}, source=name), "linux")

            def one(seed: int, base: Any = base) -> dict[str, float]:
                sc = base.with_overrides(seed=seed)
                row: dict[str, float] = {}
                # the profile's BBR (lt_sampling unset: on in linux), which the kernel runs too,
                # and the same without the sampling
                on = crosslayer.run(sc)
                off = crosslayer.run(sc.with_overrides(**{"flows[*].cc": {"kind": "bbr", "lt_sampling": False}}))
                names = [str(n) for n in on.flows.name]

                def spans(r: Any) -> list[float]:
                    """10 min RTTs of each flow, its run's median estimate."""
                    return [10 * float(r.cwnd[r.cwnd.flow == f].bbr_min_rtt_s.dropna().median()) for f in names]

                def share(r: Any) -> float:
                    rows = [r.cwnd[r.cwnd.flow == f] for f in names]
                    return sum(_long_gain_one(list(x.t_s), list(x.bbr_pacing_gain), 1.0, span) for x, span in zip(rows, spans(r))) / len(names)

                row["crosslayer lt_sampling=true"] = share(on)
                row["crosslayer at the long-term rate"] = float(on.cwnd.bbr_lt_use_bw.groupby(on.cwnd.flow).mean().mean())
                row["crosslayer lt_sampling=false"] = share(off)
                program = linux.program(linux.translate(sc.to_engine_spec(), on.flows, on.queues, on.udp).description, traffic=str(Path(tmp) / "traffic.py"))
                raw = run_linux(program, kernel)["cwnd"]
                # the kernel's stretches against the spans of crosslayer's run of the same program
                row["linux"] = sum(_long_gain_one(raw[f]["t_s"], raw[f]["bbr_pacing_gain"], 1.0, span) for f, span in zip(names, spans(on))) / len(names)
                print(name, seed, {k: round(v, 3) for k, v in row.items()}, flush=True)
                return row

            with ThreadPoolExecutor(jobs) as ex:
                rows = list(ex.map(one, seed_list))
            out[name] = {"seeds": seed_list, "rows": rows, "mean": {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]}}
            print(name, "mean", {k: round(v, 3) for k, v in out[name]["mean"].items()}, flush=True)
    (OUT / "bbr-lt.json").write_text(json.dumps(out, indent=1) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("single", "pair", "pair-starts", "multi", "two-way", "two-way-probes", "graph", "repeat", "lp-offsets", "write", "drift", "bbr-lt"))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seeds", type=int, default=5, help="multi: seeds (start-time draws; one kernel run each)")
    ap.add_argument("--only", help="comma-separated congestion controls or queues")
    ap.add_argument("--force", action="store_true", help="run cells already stored again")
    a = ap.parse_args()
    only = set(a.only.split(",")) if a.only else None
    if a.what == "write":
        write()
        return 0
    if a.what == "drift":
        return drift()
    if a.what == "lp-offsets":
        lp_offsets()
        return 0
    if a.what == "bbr-lt":
        bbr_lt(a.seeds, a.jobs)
        return 0
    if a.what == "two-way-probes":
        two_way_probes()
        return 0
    if a.what == "pair-starts":
        pair_starts()
        return 0
    if a.what == "single":
        cells = [(f"single-{cc}-{q}", single_scenario(cc, q), seeds_for(cc)) for cc in SINGLE_CCS for q in SINGLE_QDISCS if only is None or cc in only or q in only]
    elif a.what == "pair":
        cells = [(f"pair-{cc}-{q}", pair_of(cc, q), seeds_for(cc)) for cc in PAIR_CCS for q in SINGLE_QDISCS if only is None or cc in only or q in only]
    elif a.what == "multi":
        cells = [(f"multi-{q}", multi_scenario(q), list(range(1, a.seeds + 1))) for q in MULTI_QDISCS if only is None or q in only]
    elif a.what == "graph":
        with open(ROOT / "studies" / "parking-lot-3.toml", "rb") as f:
            data = tomllib.load(f)
        data.update({"duration": "30s", "warmup": "10s", "cwnd_trace": True, "sample_interval": "10ms"})
        cells = [("graph-parking-lot-3", data, [1, 2, 3])]
    elif a.what == "repeat":
        # the kernel's run-to-run spread: the same seed (the same start times) twice
        cells = [(f"repeat-{q}-{k}", {**multi_scenario(q), "name": f"linux-access20-{q}-repeat-{k}"}, [1]) for q in ("droptail", "fq_codel") for k in (1, 2)]
    else:
        cells = [(f"two-way-{cc}", two_way_scenario(cc), seeds_for(cc)) for cc in TWO_WAY_CCS if only is None or cc in only]
        # Reno's two controls: the forward flow alone, and both with the buffers in packets
        alone = two_way_scenario("reno")
        alone.update(name="linux-two-way-reno-alone", flows=alone["flows"][:1])
        pkts = two_way_scenario("reno")
        pkts["name"] = "linux-two-way-reno-pkts"
        for link in ("bottleneck", "reverse"):
            pkts["topology"][link] = {**pkts["topology"][link], "qdisc": {"kind": "droptail", "limit_pkts": 33}}
        cells += [("two-way-control-reno-alone", alone, [1]), ("two-way-control-reno-pkts", pkts, [1])]
    # the kernel's spread: each repetition a new kernel run, never one the cache kept (the same
    # seed gives the same program as `multi`'s)
    run_cells(cells, a.jobs, a.force, fresh=a.what == "repeat")
    return 0


def shrink_stored() -> None:
    for path in OUT.glob("*.json"):
        r = json.loads(path.read_text())
        if r.get("cwnd") and len(next(iter(r["cwnd"]["crosslayer"].values()))["t_s"]) > 1000:
            shrink(r)
            path.write_text(json.dumps(r) + "\n")


if __name__ == "__main__":
    sys.exit(main())
