#!/usr/bin/env python3
"""crosslayer against ns-3 3.44 on the seed paper 000 scenarios (studies/seed000-*.toml).

Runs crosslayer (in its ``ns3`` and ``linux`` TCP profiles) and, when an ns-3 Python is given,
ns-3 (``validation/ns3/seed000.py``) on the Access Link (9 and 90 CUBIC flows, DropTail 900) and
Data Center (9 flows) scenarios over several seeds, stores one JSON per run, and prints the
comparison tables of ``docs/VALIDATION.md``.

    # crosslayer only (seconds), then ns-3 too (hours: install ns-3 with `pip install ns3`)
    python validation/compare.py run --scenario access --per-pair 1 --runs 1-5 --out validation/results
    python validation/compare.py run --scenario access --per-pair 1 --runs 1-5 --out validation/results \\
        --ns3-python /path/to/venv-with-ns3/bin/python --paired
    python validation/compare.py table validation/results
    python validation/compare.py pairs validation/results    # goodput per flow by host pair
    python validation/compare.py variants --per-pair 10       # the ns-3 behaviours modelled, on and off
    python validation/compare.py sizes                        # profile vs packet size, per host pair
    # speed, side by side in one invocation (Access Link, 9 CUBIC flows, 100 s; 3 alternating rounds)
    python validation/compare.py bench --ns3-python /path/to/venv-with-ns3/bin/python
    python validation/compare.py bench --scenario datacenter --rounds 2 --ns3-python /path/to/venv-with-ns3/bin/python

``--paired`` gives ns-3 the start times crosslayer drew for the same seed, so both simulators see
the same flow arrivals; otherwise ns-3 draws its own (its run number = the seed).

The metrics (window = [30 s, 100 s]) follow crosslayer's definitions, which the ns-3 script
reproduces: aggregate goodput (payload; ns-3 counts in-order bytes at the sink), Jain's index of
per-flow goodput, flows with zero goodput, the largest sender-host share of the goodput, the
bottleneck queue's time-averaged length and its SD (packets), its drop ratio (drops / arrivals),
and the flows' timeouts, fast recoveries and retransmissions in the window.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STUDIES = {"access": ROOT / "studies" / "seed000-access-link.toml", "datacenter": ROOT / "studies" / "seed000-data-center.toml"}
NS3_SCRIPT = ROOT / "validation" / "ns3" / "seed000.py"


def _jain(x: list[float]) -> float:
    s, s2 = sum(x), sum(v * v for v in x)
    return s * s / (len(x) * s2) if s2 > 0 else float("nan")


def crosslayer_run(scenario: str, per_pair: int, seed: int, profile: str, tcp: dict[str, Any] | None = None,
                   cc: Any = None) -> dict[str, Any]:
    """One crosslayer run in the JSON shape of the ns-3 script's output (the fields compared);
    ``tcp`` and ``cc`` override the study's TCP options and congestion control."""
    import crosslayer
    from crosslayer import Scenario

    data = Scenario.from_toml(STUDIES[scenario]).model_dump(mode="json", exclude_none=True)
    data["seed"] = seed
    data["flows"][0]["per_pair"] = per_pair
    data["tcp"].pop("header_size", None)  # the profile's: 52 B Linux, 54 B with ns-3's PPP header
    data["tcp"]["profile"] = profile
    data["tcp"].update(tcp or {})
    if cc is not None:
        data["flows"][0]["cc"] = cc
    t0 = time.perf_counter()
    r = crosslayer.run(data)
    wall = time.perf_counter() - t0
    f, q, hosts = r.flows, r.queues, r.hosts
    b = q[q.role == "forward"].iloc[0]
    g = [float(v) for v in f.goodput_bps]
    return {
        "simulator": f"crosslayer {crosslayer.__version__} (profile {profile})",
        "scenario": scenario, "per_pair": per_pair, "run": seed, "n_flows": len(f),
        "aggregate": {
            "goodput_bps": sum(g),
            "jain": _jain(g),
            "zero_goodput_flows": sum(1 for v in g if v == 0),
            "never_connected_flows": int((f.connection == "never_connected").sum()),
            "max_host_goodput_share": float(hosts.goodput_share.max()),
        },
        "bottleneck": {
            "mean_pkts": float(b.qlen_mean_pkts), "sd_pkts": float(b.qlen_sd_pkts),
            "drop_ratio": float(b.drop_ratio), "arrivals": int(b.arrivals), "drops": int(b.drops),
        },
        "flows": [
            {"name": row.name, "start_s": float(row.start_s), "goodput_bps": float(row.goodput_bps), "rto": int(row.timeouts),
             "fast_recoveries": int(row.fast_recoveries), "retransmissions": int(row.retransmits)}
            for row in f.itertuples()
        ],
        "run_wall_s": wall,
        "engine_wall_s": float(r.summary["wall_s"]),
        "events": int(r.summary["events"]),
        "delivered_segments": int(r.summary["delivered_segments"]),
    }


def ns3_run(python: str, scenario: str, per_pair: int, seed: int, out: Path, starts: list[float] | None) -> dict[str, Any]:
    cmd = [python, str(NS3_SCRIPT), "--scenario", scenario, "--per-pair", str(per_pair), "--run", str(seed), "--out", str(out)]
    if starts is not None:
        sfile = out.with_suffix(".starts.json")
        sfile.write_text(json.dumps(starts))
        cmd += ["--starts", str(sfile)]
    subprocess.run(cmd, check=True, cwd=NS3_SCRIPT.parent, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text())


def _runs(spec: str) -> list[int]:
    if "-" in spec:
        a, b = spec.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in spec.split(",")]


def cmd_run(a: argparse.Namespace) -> None:
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for seed in _runs(a.runs):
        stem = f"{a.scenario}-pp{a.per_pair}-run{seed}"
        starts = None
        for profile in ("ns3", "linux"):
            p = out / f"{stem}.crosslayer-{profile}.json"
            if not p.exists():
                res = crosslayer_run(a.scenario, a.per_pair, seed, profile)
                p.write_text(json.dumps(res, indent=1))
                print(f"{p.name}: {res['aggregate']['goodput_bps'] / 1e6:.2f} Mb/s, wall {res['run_wall_s']:.2f} s")
            if profile == "ns3":
                starts = [fl["start_s"] for fl in json.loads(p.read_text())["flows"]]
        if a.ns3_python:
            p = out / f"{stem}.ns3{'-paired' if a.paired else ''}.json"
            if not p.exists():
                res = ns3_run(a.ns3_python, a.scenario, a.per_pair, seed, p, starts if a.paired else None)
                print(f"{p.name}: {res['aggregate']['goodput_bps'] / 1e6:.2f} Mb/s, Run() {res['run_wall_s']:.1f} s")


# name, unit, getter, format
METRICS: list[tuple[str, str, Any, str]] = [
    ("aggregate goodput", "Mb/s", lambda r: r["aggregate"]["goodput_bps"] / 1e6, "{:.2f}"),
    ("Jain's index", "", lambda r: r["aggregate"]["jain"], "{:.3f}"),
    ("flows with zero goodput", "", lambda r: r["aggregate"]["zero_goodput_flows"], "{:.1f}"),
    ("largest host share", "", lambda r: r["aggregate"]["max_host_goodput_share"], "{:.3f}"),
    ("queue mean", "pkts", lambda r: r["bottleneck"]["mean_pkts"], "{:.1f}"),
    ("queue SD", "pkts", lambda r: r["bottleneck"]["sd_pkts"], "{:.1f}"),
    ("drop ratio", "%", lambda r: 100 * r["bottleneck"]["drop_ratio"], "{:.3f}"),
    ("timeouts (all flows)", "", lambda r: sum(f["rto"] for f in r["flows"]), "{:.1f}"),
    ("fast recoveries (all flows)", "", lambda r: sum(f["fast_recoveries"] for f in r["flows"]), "{:.0f}"),
    ("retransmissions (all flows)", "", lambda r: sum(f["retransmissions"] for f in r["flows"]), "{:.0f}"),
]


def _cell(vals: list[float], fmt: str) -> str:
    vals = [v for v in vals if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not vals:
        return "-"
    m = statistics.fmean(vals)
    if len(vals) == 1:
        return fmt.format(m)
    return f"{fmt.format(m)} ({fmt.format(min(vals))}-{fmt.format(max(vals))})"


def cmd_table(a: argparse.Namespace) -> None:
    d = Path(a.dir)
    groups: dict[tuple[str, int], dict[str, list[dict[str, Any]]]] = {}
    for p in sorted(d.glob("*.json")):
        if p.name.endswith(".starts.json"):
            continue
        stem, sim = p.name[: -len(".json")].split(".", 1)
        scenario, pp, _ = stem.split("-")
        groups.setdefault((scenario, int(pp[2:])), {}).setdefault(sim, []).append(json.loads(p.read_text()))
    order = ["crosslayer-ns3", "ns3", "ns3-paired", "crosslayer-linux"]
    for (scenario, pp), sims in sorted(groups.items()):
        cols = [s for s in order if s in sims]
        n = {s: len(sims[s]) for s in cols}
        print(f"\n### {scenario}, {9 * pp} flows\n")
        print("| metric | " + " | ".join(f"{s} (n={n[s]})" for s in cols) + " |")
        print("|---|" + "---|" * len(cols))
        for name, unit, get, fmt in METRICS:
            label = f"{name} ({unit})" if unit else name
            print(f"| {label} | " + " | ".join(_cell([get(r) for r in sims[s]], fmt) for s in cols) + " |")
        walls = {s: statistics.fmean(r["run_wall_s"] for r in sims[s]) for s in cols}
        print("| wall s per run | " + " | ".join(f"{walls[s]:.2f}" for s in cols) + " |")
    print("\nCells: mean over runs (min-max).")


def cmd_pairs(a: argparse.Namespace) -> None:
    """Mean goodput per flow of each (sender, receiver) pair, each simulator, over its runs."""
    d = Path(a.dir)
    runs: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    for p in sorted(d.glob("*.json")):
        if p.name.endswith(".starts.json"):
            continue
        stem, sim = p.name[: -len(".json")].split(".", 1)
        scenario, pp, _ = stem.split("-")
        runs.setdefault((scenario, int(pp[2:]), sim), []).append(json.loads(p.read_text()))
    order = ["crosslayer-ns3", "ns3", "ns3-paired", "crosslayer-linux"]
    for scenario, pp in sorted({(k[0], k[1]) for k in runs}):
        sims = [s for s in order if (scenario, pp, s) in runs]
        pairs: dict[str, dict[str, list[float]]] = {}
        for s in sims:
            for r in runs[(scenario, pp, s)]:
                per: dict[str, list[float]] = {}
                for fl in r["flows"]:
                    per.setdefault(fl["name"].rsplit(".", 1)[0], []).append(fl["goodput_bps"] / 1e6)
                for k, v in per.items():
                    pairs.setdefault(k, {}).setdefault(s, []).append(statistics.fmean(v))
        print(f"\n### {scenario}, {9 * pp} flows: goodput per flow by pair (Mb/s)\n")
        print("| pair | " + " | ".join(f"{s} (n={len(runs[(scenario, pp, s)])})" for s in sims) + " |")
        print("|---|" + "---|" * len(sims))
        for k in sorted(pairs):
            print(f"| {k} | " + " | ".join(_cell(pairs[k].get(s, []), "{:.2f}") for s in sims) + " |")
    print("\nCells: mean over runs of the pair's mean goodput per flow (min-max).")


VARIANTS: list[tuple[str, dict[str, Any], Any]] = [
    ("CUBIC increase rfc9438, PRR credit off", {"prr_dupack_credit": False}, {"kind": "cubic", "increase": "rfc9438"}),
    ("CUBIC increase rfc9438, PRR credit on", {"prr_dupack_credit": True}, {"kind": "cubic", "increase": "rfc9438"}),
    ("CUBIC increase linux, PRR credit off", {"prr_dupack_credit": False}, {"kind": "cubic", "increase": "linux"}),
    ("CUBIC increase linux, PRR credit on (the ns3 profile)", {"prr_dupack_credit": True}, {"kind": "cubic", "increase": "linux"}),
]


def cmd_variants(a: argparse.Namespace) -> None:
    """crosslayer (ns3 profile) with each model choice the comparison turned on, seeds averaged."""
    print(f"\n### {a.scenario}, {9 * a.per_pair} flows, crosslayer profile ns3, seeds {a.runs}\n")
    names = [m[0] for m in METRICS]
    print("| variant | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for label, tcp, cc in VARIANTS:
        rs = [crosslayer_run(a.scenario, a.per_pair, seed, "ns3", tcp, cc) for seed in _runs(a.runs)]
        print(f"| {label} | " + " | ".join(fmt.format(statistics.fmean(get(r) for r in rs)) for _, _, get, fmt in METRICS) + " |")


def cmd_sizes(a: argparse.Namespace) -> None:
    """Goodput per flow by host pair with each TCP profile and each header size (52 B: 1500-byte
    packets; 54 B: ns-3's 1502), seeds averaged: which of the two sets the pattern across pairs."""
    rows: list[tuple[str, dict[str, float]]] = []
    for profile in ("ns3", "linux"):
        for header in ("54B", "52B"):
            per: dict[str, list[float]] = {}
            for seed in _runs(a.runs):
                r = crosslayer_run(a.scenario, a.per_pair, seed, profile, {"header_size": header})
                by: dict[str, list[float]] = {}
                for fl in r["flows"]:
                    by.setdefault(fl["name"].rsplit(".", 1)[0], []).append(fl["goodput_bps"] / 1e6)
                for k, v in by.items():
                    per.setdefault(k, []).append(statistics.fmean(v))
            rows.append((f"profile {profile}, header {header}", {k: statistics.fmean(v) for k, v in per.items()}))
    pairs = sorted(rows[0][1])
    print(f"\n### {a.scenario}, {9 * a.per_pair} flows: goodput per flow by pair (Mb/s), seeds {a.runs}\n")
    print("| crosslayer | " + " | ".join(pairs) + " |")
    print("|---|" + "---|" * len(pairs))
    for label, d in rows:
        print(f"| {label} | " + " | ".join(f"{d[k]:.2f}" for k in pairs) + " |")


def cmd_bench(a: argparse.Namespace) -> None:
    """crosslayer and ns-3 on the same scenario, side by side: ``--rounds`` rounds, each the best
    of ``--repeat`` crosslayer runs then one ns-3 run, alternating, so that both see the same
    machine conditions; the ratio of each round and of the medians."""
    import platform

    sim_s = 100.0
    from crosslayer.version import version_line

    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, {version_line()}")
    print(f"scenario: {a.scenario}, {9 * a.per_pair} CUBIC flows, {sim_s:.0f} simulated s, seed {a.seed}", flush=True)
    xls: list[dict[str, Any]] = []
    nss: list[dict[str, Any]] = []
    for k in range(a.rounds if a.ns3_python else 1):
        xl = [crosslayer_run(a.scenario, a.per_pair, a.seed, "ns3") for _ in range(a.repeat)]
        best = min(xl, key=lambda r: r["run_wall_s"])
        xls.append(best)
        line = (f"round {k + 1}: crosslayer (profile ns3), best of {a.repeat}: crosslayer.run {best['run_wall_s']:.3f} s "
                f"(engine {best['engine_wall_s']:.3f} s), {best['events']:,} events, "
                f"{best['delivered_segments'] / best['run_wall_s'] / 1e6:.2f} M delivered segments per wall-s, "
                f"{best['run_wall_s'] / sim_s:.4f} wall-s per sim-s")
        if a.ns3_python:
            with tempfile.TemporaryDirectory() as tmp:
                ns = ns3_run(a.ns3_python, a.scenario, a.per_pair, a.seed, Path(tmp) / "ns3.json", None)
            nss.append(ns)
            line += (f"; ns-3 3.44: Simulator::Run() {ns['run_wall_s']:.1f} s, {ns['events']:,} events: "
                     f"{ns['run_wall_s'] / best['run_wall_s']:.0f}x")
        print(line, flush=True)
    if nss:
        x = statistics.median(r["run_wall_s"] for r in xls)
        e = statistics.median(r["engine_wall_s"] for r in xls)
        n = statistics.median(r["run_wall_s"] for r in nss)
        ratios = [b["run_wall_s"] / c["run_wall_s"] for b, c in zip(nss, xls)]
        print(f"medians over {len(nss)} rounds: crosslayer.run {x:.3f} s (engine {e:.3f} s), ns-3 Simulator::Run() {n:.1f} s "
              f"({n / sim_s:.3f} wall-s per sim-s)")
        print(f"ratio: crosslayer is {statistics.median(ratios):.0f}x faster than ns-3 in the median round (rounds: "
              f"{', '.join(f'{r:.0f}x' for r in ratios)}; whole crosslayer.run against Simulator::Run alone); "
              f"the medians' ratio {n / x:.0f}x, engine to engine {n / e:.0f}x")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run crosslayer (and ns-3) and store one JSON per run")
    r.add_argument("--scenario", choices=sorted(STUDIES), required=True)
    r.add_argument("--per-pair", type=int, default=1)
    r.add_argument("--runs", default="1-5", help="seeds, e.g. 1-5 or 1,3")
    r.add_argument("--out", default=str(ROOT / "validation" / "results"))
    r.add_argument("--ns3-python", help="a Python with ns-3 3.44 (pip install ns3); omit to run crosslayer only")
    r.add_argument("--paired", action="store_true", help="give ns-3 crosslayer's start times")
    b = sub.add_parser("bench", help="time crosslayer and ns-3 on the same scenario, side by side")
    b.add_argument("--scenario", choices=sorted(STUDIES), default="access")
    b.add_argument("--per-pair", type=int, default=1)
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--repeat", type=int, default=5, help="crosslayer runs per round (the best is kept)")
    b.add_argument("--rounds", type=int, default=3, help="rounds of crosslayer then ns-3, alternating")
    b.add_argument("--ns3-python", help="a Python with ns-3 3.44; omit to time crosslayer only")
    t = sub.add_parser("table", help="print the comparison tables")
    t.add_argument("dir", nargs="?", default=str(ROOT / "validation" / "results"))
    v = sub.add_parser("variants", help="crosslayer (ns3 profile) with and without each ns-3 behaviour modelled")
    v.add_argument("--scenario", choices=sorted(STUDIES), default="access")
    v.add_argument("--per-pair", type=int, default=1)
    v.add_argument("--runs", default="1-5")
    z = sub.add_parser("sizes", help="goodput by host pair with each profile and header size")
    z.add_argument("--scenario", choices=sorted(STUDIES), default="access")
    z.add_argument("--per-pair", type=int, default=10)
    z.add_argument("--runs", default="1-5")
    q = sub.add_parser("pairs", help="print goodput per flow by (sender, receiver) pair")
    q.add_argument("dir", nargs="?", default=str(ROOT / "validation" / "results"))
    a = p.parse_args(argv)
    {"run": cmd_run, "table": cmd_table, "pairs": cmd_pairs, "variants": cmd_variants, "sizes": cmd_sizes, "bench": cmd_bench}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
