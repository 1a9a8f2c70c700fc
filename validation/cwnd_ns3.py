#!/usr/bin/env python3
"""Single-flow cwnd traces, crosslayer next to ns-3 3.44, one per congestion control.

The path (both simulators): sender S -- router A == bottleneck == router B -- receiver R;
access links 1 Gb/s, 1 ms; bottleneck 100 Mb/s, 18 ms each way (RTT 40 ms); bottleneck queue
1 BDP = 333 packets of 1500 B, DropTail (DCTCP: step-marking RED, K = 20 packets, ECN); every
other queue 1000 packets. One bulk flow from t = 0 for 30 s; measured over [10 s, 30 s].

ns-3 runs ``validation/ns3/cwnd_single.py`` (in a separate Python with the ``ns3`` wheel);
crosslayer runs twice, with ``[tcp] profile = "ns3"`` (every TCP default ns-3's) and with the
default ``"linux"`` profile. For each algorithm the script draws the three cwnd traces on one
axes (``docs/validation/cwnd/<name>.png``) and writes the table of
``docs/validation/cwnd_ns3.md`` (between its ``<!-- table -->`` markers).

    # all algorithms (ns-3 results are cached in validation/results/cwnd/; --force reruns them)
    .venv/bin/python validation/cwnd_ns3.py --ns3-python ~/ns3env/bin/python
    # some (the others' rows come from validation/results/cwnd/summary.json)
    .venv/bin/python validation/cwnd_ns3.py --ns3-python ~/ns3env/bin/python --only cubic,reno

Metrics (each simulator's cwnd sampled every 1 ms; ns-3's trace is a step function of its
``CongestionWindow`` changes, read at the same instants; cwnd in 1448-byte segments):

* mean cwnd over [10 s, 30 s]; max cwnd over [0, 30 s] and over [10 s, 30 s];
* loss events in [10 s, 30 s] from each simulator's own counters: ns-3 entries into CA_RECOVERY
  and CA_LOSS (plus CA_CWR, ECN reductions, for DCTCP); crosslayer fast recoveries + timeouts
  (+ ECN reductions);
* cwnd reductions: from the trace itself, a reduction is a sample more than 8 % below the running
  maximum since the previous reduction, the next one counted no sooner than 0.3 s later (so a
  recovery episode counts once); counted over [10 s, 30 s];
* sawtooth period: median interval between consecutive reductions after t = 5 s;
* goodput over [10 s, 30 s] (payload delivered in order); bottleneck drops (and ECN marks) in
  [10 s, 30 s];
* wall seconds: ns-3 inside ``Simulator::Run()``; crosslayer inside the engine.

Algorithms crosslayer does not know (its catalog, ``crosslayer list cc``) are skipped with a
message, so the script runs unchanged once they are added.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
NS3_SCRIPT = ROOT / "validation" / "ns3" / "cwnd_single.py"
RESULTS = ROOT / "validation" / "results" / "cwnd"
FIGURES = ROOT / "docs" / "validation" / "cwnd"
DOC = ROOT / "docs" / "validation" / "cwnd_ns3.md"

# ns-3 type -> crosslayer name (and the crosslayer parameters that make it ns-3's variant)
ALGORITHMS: list[tuple[str, str]] = [
    ("TcpNewReno", "reno"), ("TcpCubic", "cubic"), ("TcpVegas", "vegas"),
    ("TcpHighSpeed", "highspeed"), ("TcpScalable", "scalable"), ("TcpHtcp", "htcp"),
    ("TcpBic", "bic"), ("TcpWestwoodPlus", "westwood"), ("TcpVeno", "veno"),
    ("TcpHybla", "hybla"), ("TcpIllinois", "illinois"), ("TcpYeah", "yeah"), ("TcpLp", "lp"),
    ("TcpLedbat", "ledbat"), ("TcpDctcp", "dctcp"), ("TcpBbr", "bbr"),
]
SEG = 1448
DURATION, WARMUP = 30.0, 10.0
DT = 0.001                   # sampling period of both traces, s
BDP_PKTS, DCTCP_K = 333, 20
RED_THRESHOLD, HOLD_S, PERIOD_FROM_S = 0.08, 0.3, 5.0
PROFILES = ("ns3", "linux")


def crosslayer_known() -> dict[str, str]:
    """Every name and alias crosslayer's catalog knows -> its canonical name."""
    from crosslayer.catalog import catalog

    out: dict[str, str] = {}
    for name, a in catalog().cc.items():
        out[name] = name
        for alias in getattr(a, "aliases", ()) or ():
            out[alias] = name
    return out


def scenario(cc: str, profile: str) -> dict[str, Any]:
    """The crosslayer scenario of this comparison (a study-file dict)."""
    qdisc: dict[str, Any] = {"kind": "droptail", "limit_pkts": BDP_PKTS}
    if cc == "dctcp":  # step marking at K: RED on the instantaneous queue, max_p 1 (dctcp.md)
        qdisc = {"kind": "red", "limit_pkts": BDP_PKTS, "min_th": DCTCP_K, "max_th": DCTCP_K + 1,
                 "w_q": 1.0, "max_p": 1.0, "gentle": False, "ecn": True}
    return {
        "name": f"cwnd-single-{cc}-{profile}",
        "description": "one flow, 100 Mb/s, 40 ms RTT, 1-BDP buffer (validation/cwnd_ns3.py)",
        "duration": f"{DURATION:g}s", "warmup": f"{WARMUP:g}s", "seed": 1,
        "sample_interval": f"{DT * 1000:g}ms", "cwnd_trace": True,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "100Mbps", "delay": "18ms", "qdisc": qdisc},
            "default_qdisc": {"kind": "droptail", "limit_pkts": 1000},
            "senders": [{"name": "S", "rate": "1Gbps", "delay": "1ms"}],
            "receivers": [{"name": "R", "rate": "1Gbps", "delay": "1ms"}],
        },
        "tcp": {"profile": profile, "mss": f"{SEG}B"},
        "flows": [{"src": "S", "dst": "R", "cc": cc}],
    }


def run_crosslayer(cc: str, profile: str) -> dict[str, Any]:
    import crosslayer

    r = crosslayer.run(scenario(cc, profile))
    f = r.flows.iloc[0]
    b = r.queues[r.queues.role == "forward"].iloc[0]
    cw = r.cwnd
    t = cw.t_s.to_numpy(dtype=float)
    c = cw.cwnd_bytes.to_numpy(dtype=float) / SEG
    return {
        "simulator": f"crosslayer {crosslayer.__version__} (profile {profile})",
        "t": t, "cwnd": c,
        "goodput_bps": float(f.goodput_bps),
        "loss_events": int(f.fast_recoveries) + int(f.timeouts) + int(f.ecn_reductions),
        "loss_detail": f"{int(f.fast_recoveries)} FR + {int(f.timeouts)} RTO"
                       + (f" + {int(f.ecn_reductions)} ECN" if int(f.ecn_reductions) else ""),
        "drops": int(b.drops), "marks": int(b.marks),
        "wall_s": float(r.summary["wall_s"]),
        "events": int(r.summary["events"]),
    }


def run_ns3(python: str, ns3_type: str, name: str, force: bool) -> dict[str, Any]:
    out, tr = RESULTS / f"{name}.ns3.json", RESULTS / f"{name}.ns3.csv"
    if force or not out.exists() or not tr.exists():
        RESULTS.mkdir(parents=True, exist_ok=True)
        subprocess.run([python, str(NS3_SCRIPT), "--tcp", ns3_type, "--csv", str(tr), "--out", str(out),
                        "--duration", str(DURATION), "--warmup", str(WARMUP)], check=True)
    res = json.loads(out.read_text())
    with tr.open() as fh:
        rows = list(csv.reader(fh))[1:]
    te = np.array([float(a) for a, _ in rows])
    ce = np.array([float(b) for _, b in rows])
    t = np.round(np.arange(0.0, DURATION + DT / 2, DT), 9)
    idx = np.searchsorted(te, t, side="right") - 1   # last change at or before each instant
    c = np.where(idx >= 0, ce[np.clip(idx, 0, None)], 0.0)

    def win(v: list[float]) -> int:
        return sum(1 for x in v if WARMUP <= x <= DURATION)

    rec, loss, cwr = win(res["recovery_times_s"]), win(res["loss_times_s"]), win(res["cwr_times_s"])
    return {
        "simulator": res["simulator"], "t": t, "cwnd": c, "t_raw": te, "cwnd_raw": ce,
        "goodput_bps": res["goodput_bps"],
        "loss_events": rec + loss + (cwr if ns3_type == "TcpDctcp" else 0),
        "loss_detail": f"{rec} FR + {loss} RTO" + (f" + {cwr} ECN" if ns3_type == "TcpDctcp" and cwr else ""),
        "drops": res["bottleneck"]["drops"], "marks": res["bottleneck"]["marks"],
        "wall_s": res["run_wall_s"], "events": res["events"],
        "raw": res,
    }


def reductions(t: np.ndarray, c: np.ndarray) -> list[float]:
    """Times where cwnd falls more than RED_THRESHOLD below its running max since the last one."""
    out: list[float] = []
    peak, hold_until = 0.0, -1.0
    for ti, ci in zip(t, c):
        if ti < hold_until:
            continue
        if hold_until >= 0 and peak < 0:
            peak = ci
        if ci > peak:
            peak = ci
        elif peak > 0 and ci < (1 - RED_THRESHOLD) * peak:
            out.append(float(ti))
            hold_until = ti + HOLD_S
            peak = -1.0
    return out


def metrics(d: dict[str, Any]) -> dict[str, Any]:
    t, c = d["t"], d["cwnd"]
    w = (t >= WARMUP - 1e-9) & (t <= DURATION + 1e-9)
    red = reductions(t, c)
    later = [x for x in red if x >= PERIOD_FROM_S]
    gaps = np.diff(later)
    return {
        "mean_cwnd": float(c[w].mean()), "max_cwnd": float(c.max()), "max_cwnd_window": float(c[w].max()),
        "loss_events": d["loss_events"], "loss_detail": d["loss_detail"],
        "reductions": sum(1 for x in red if x >= WARMUP), "reduction_times": red,
        "period_s": float(np.median(gaps)) if len(gaps) else None, "period_n": int(len(gaps)),
        "goodput_mbps": d["goodput_bps"] / 1e6, "drops": d["drops"], "marks": d["marks"],
        "wall_s": d["wall_s"], "events": d["events"],
    }


def figure(name: str, ns3_type: str, runs: dict[str, dict[str, Any]]) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    FIGURES.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(9, 4.2), dpi=110)
    n = runs["ns3"]
    # the trace holds changes only: hold the last value to the end of the run
    ax.step(np.append(n["t_raw"], DURATION), np.append(n["cwnd_raw"], n["cwnd_raw"][-1:]), where="post", color="black", lw=1.3, label=f"ns-3 3.44 {ns3_type}")
    styles = {"crosslayer-ns3": ("tab:red", "-", 1.1, 'crosslayer {cc}, profile "ns3"'),
              "crosslayer-linux": ("tab:blue", "--", 1.0, 'crosslayer {cc}, profile "linux"')}
    for key, (col, ls, lw, lab) in styles.items():
        if key in runs:
            ax.plot(runs[key]["t"], runs[key]["cwnd"], color=col, ls=ls, lw=lw, label=lab.format(cc=name), alpha=0.85)
    ax.axvspan(WARMUP, DURATION, color="0.93", zorder=0)
    ax.set_xlim(0, DURATION)
    top = max(float(np.max(r["cwnd"])) for r in runs.values())
    ymax = min(top * 1.08, 3000) if top > 0 else 1
    ax.set_ylim(0, ymax)
    for y, lab in ((BDP_PKTS * 1500 / SEG, "BDP"), (2 * BDP_PKTS * 1500 / SEG, "BDP + buffer")):
        if y < ymax:
            ax.axhline(y, color="grey", lw=0.6, ls=":")
            ax.text(DURATION * 0.995, y, lab, va="bottom", ha="right", fontsize=7, color="grey")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("congestion window (1448-byte segments)")
    q = "step-marking RED K = 20, ECN" if name == "dctcp" else "DropTail 333 packets"
    ax.set_title(f"{name}: one flow, 100 Mb/s, RTT 40 ms, {q} (shaded: measured window)", fontsize=9)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path = FIGURES / f"{name}.png"
    fig.savefig(path)
    plt.close(fig)
    return path


def _f(v: Any, fmt: str) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, fmt)


def table(all_metrics: dict[str, dict[str, dict[str, Any]]], skipped: list[str]) -> str:
    lines = [
        "| algorithm | run | mean cwnd 10-30 s (seg) | max cwnd 0-30 s | max cwnd 10-30 s | loss events 10-30 s "
        "| cwnd reductions 10-30 s | sawtooth period (s) | goodput (Mb/s) | drops (marks) | wall (s) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    labels = {"ns3": "ns-3", "crosslayer-ns3": "crosslayer ns3", "crosslayer-linux": "crosslayer linux"}
    for name, runs in all_metrics.items():
        for key in ("ns3", "crosslayer-ns3", "crosslayer-linux"):
            if key not in runs:
                continue
            m = runs[key]
            per = "-" if m["period_s"] is None else f"{m['period_s']:.2f} (n={m['period_n']})"
            dm = f"{m['drops']}" + (f" ({m['marks']})" if m["marks"] else "")
            lines.append(
                f"| {name} | {labels[key]} | {m['mean_cwnd']:.1f} | {m['max_cwnd']:.0f} | {m['max_cwnd_window']:.0f} "
                f"| {m['loss_events']} ({m['loss_detail']}) | {m['reductions']} | {per} | {m['goodput_mbps']:.2f} "
                f"| {dm} | {_f(m['wall_s'], '.2f')} |")
    if skipped:
        lines.append("")
        lines.append("Not run: " + "; ".join(skipped) + ".")
    return "\n".join(lines)


def write_doc(text: str) -> None:
    DOC.parent.mkdir(parents=True, exist_ok=True)
    block = f"<!-- table (generated by validation/cwnd_ns3.py; do not edit) -->\n{text}\n<!-- /table -->"
    if DOC.exists():
        doc = DOC.read_text()
        doc, n = re.subn(r"<!-- table .*?<!-- /table -->", lambda _: block, doc, flags=re.S)
        if n == 0:
            doc += "\n" + block + "\n"
    else:
        doc = "# Single-flow cwnd: crosslayer next to ns-3 3.44\n\n" + block + "\n"
    DOC.write_text(doc)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3-python", required=True, help="a Python with the ns3 wheel (pip install ns3)")
    ap.add_argument("--only", help="comma-separated crosslayer names (default: all)")
    ap.add_argument("--force", action="store_true", help="rerun ns-3 even if its result is cached")
    ap.add_argument("--no-doc", action="store_true", help="do not rewrite the table in the markdown")
    a = ap.parse_args(argv)
    known = crosslayer_known()
    only = set(a.only.split(",")) if a.only else None
    all_metrics: dict[str, dict[str, dict[str, Any]]] = {}
    skipped: list[str] = []
    summary: dict[str, Any] = {}
    for ns3_type, name in ALGORITHMS:
        if only and name not in only:
            continue
        if name not in known:
            msg = f"{ns3_type} ({name}): crosslayer has no congestion control '{name}' yet"
            print("skip:", msg, file=sys.stderr)
            skipped.append(msg)
            continue
        runs = {"ns3": run_ns3(a.ns3_python, ns3_type, name, a.force)}
        for p in PROFILES:
            runs[f"crosslayer-{p}"] = run_crosslayer(known[name], p)
        ms = {k: metrics(v) for k, v in runs.items()}
        all_metrics[name] = ms
        path = figure(name, ns3_type, runs)
        summary[name] = {"ns3_type": ns3_type, **ms}
        print(f"{name}: " + ", ".join(f"{k} mean {m['mean_cwnd']:.0f} max {m['max_cwnd']:.0f} loss {m['loss_events']} "
                                      f"per {_f(m['period_s'], '.2f')} gp {m['goodput_mbps']:.2f}" for k, m in ms.items())
              + f" -> {path.relative_to(ROOT)}", file=sys.stderr)
    # --only refreshes those algorithms' entries; the others keep their stored results
    stored = RESULTS / "summary.json"
    merged = json.loads(stored.read_text()) if only and stored.exists() else {}
    merged.update(summary)
    merged = {name: merged[name] for _, name in ALGORITHMS if name in merged}
    stored.write_text(json.dumps(merged, indent=1) + "\n")
    all_metrics = {name: {k: v for k, v in s.items() if k != "ns3_type"} for name, s in merged.items()}
    text = table(all_metrics, skipped)
    print(text)
    if not a.no_doc:
        write_doc(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
