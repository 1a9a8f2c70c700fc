#!/usr/bin/env python3
"""Every congestion control ns-3 3.44 (or ns-2.35) has, crosschecked on seed 000's access link.

For each algorithm in ``crosslayer.crosscheck.ns3.CC`` (with ``--with ns2``: each of ns-2.35's
Linux modules, ``crosslayer.crosscheck.ns2.LINUX_CA``, and Linux's reno and vegas): 9 flows of
it (one per host pair) on the access link (100 Mb/s, RTT 8-204 ms) with the bottleneck's queue
discipline given, crosslayer (that simulator's profile) against the other simulator with
``crosslayer crosscheck``'s translation, several seeds. Writes one JSON file per algorithm and a
Markdown page with a row per algorithm.

    .venv/bin/python validation/cc_family.py --qdisc droptail --seeds 3 --duration 30s --warmup 10s \\
        --ns3-python ~/ns3env/bin/python --jobs 2 --out docs/validation/cc-family-ns3
    .venv/bin/python validation/cc_family.py --with ns2 --qdisc droptail --seeds 5 --duration 30s \\
        --warmup 10s --jobs 2 --out docs/validation/cc-family-ns2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from crosslayer.crosscheck import OtherSimulatorError, crosscheck, ns2, ns3
from crosslayer.scenario import Scenario

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "seed000-access-link.toml"
QDISCS = {"droptail": {"kind": "droptail", "limit_pkts": 900}, "codel": {"kind": "codel", "limit_pkts": 900}}
COLUMNS = ("goodput_bps", "jain", "qlen_mean_pkts@A->B", "drop_ratio@A->B", "retransmits", "timeouts")


def cell(m: dict, other: str) -> str:
    scale = {"goodput_bps": 1e-6, "drop_ratio@A->B": 100.0}.get(m["metric"], 1.0)
    digits = {"jain": 3, "drop_ratio@A->B": 3, "qlen_mean_pkts@A->B": 1, "goodput_bps": 2}.get(m["metric"], 0)
    ours, theirs = m["crosslayer"], m[other]
    if ours is None or theirs is None:
        return "-"
    mark = {"agrees": "", "agrees within the seed spread": " (spread)", "differs": " **differs**"}[m["verdict"]]
    return f"{ours['mean'] * scale:,.{digits}f} / {theirs['mean'] * scale:,.{digits}f}{mark}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--with", dest="other", choices=("ns3", "ns2"), default="ns3")
    ap.add_argument("--qdisc", choices=sorted(QDISCS), default="droptail")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", default="30s")
    ap.add_argument("--warmup", default="10s")
    ap.add_argument("--ns3-python")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", help="comma-separated algorithms (default: all ns-3 has)")
    ap.add_argument("--timeout", type=float, default=900.0, help="wall seconds an ns-3 run may take")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    # ns-2: every Linux module (with SACK, as Agent/TCP/Linux needs), reno and vegas as modules too
    models = dict(ns3.CC) if a.other == "ns3" else {"reno": "Linux reno", "vegas": "Linux vegas", **{k: f"Linux {v}" for k, v in ns2.LINUX_CA.items()}}
    names = a.only.split(",") if a.only else list(models)
    base = Scenario.from_toml(STUDY)
    for name in names:
        path = a.out / f"{name}-{a.qdisc}.json"
        if path.exists():
            continue
        paths = {"flows[0].cc": name, "topology.bottleneck.qdisc": QDISCS[a.qdisc], "duration": a.duration, "warmup": a.warmup}
        if a.other == "ns2":
            # ns-2's Linux modules recover as Linux 2.6.22 (SACK, rate halving): PRR is rate
            # halving's successor, closer than the ns2 profile's NewReno
            paths["tcp.recovery"] = "prr"
            if name == "scalable":
                # Linux 2.6.22's Scalable adds a segment per 50 acknowledged, compiled in (since
                # 4.x: 100, crosslayer's default): crosslayer runs the module's
                paths["flows[0].cc"] = {"kind": "scalable", "ai_cnt": 50}
        sc = base.with_paths(paths)
        t = time.time()
        try:
            c = crosscheck(sc, a.other, seeds=list(range(1, a.seeds + 1)), ns3_python=a.ns3_python, jobs=a.jobs, timeout_s=a.timeout)
        except OtherSimulatorError as exc:
            path.write_text(json.dumps({"error": str(exc)}) + "\n")
            print(f"{name} {a.qdisc}: {exc}", file=sys.stderr)
            continue
        path.write_text(json.dumps(c.to_json(), indent=1) + "\n")
        print(f"{name} {a.qdisc}: {'agrees' if c.agrees else 'differs'} ({time.time() - t:.0f} s)", file=sys.stderr)
    rows = []
    for name in models:
        path = a.out / f"{name}-{a.qdisc}.json"
        if not path.exists():
            continue
        doc = json.loads(path.read_text())
        if "error" in doc:
            rows.append(f"| `{name}` ({models[name]}) | " + " | ".join(["-"] * len(COLUMNS)) + f" |  <!-- {doc['error']} -->")
            continue
        metrics = {m["metric"]: m for m in doc["metrics"]}
        left = f" (seeds {', '.join(map(str, doc['seeds']))} of 1-{a.seeds})" if doc.get("left_out") else ""
        rows.append(f"| `{name}` ({models[name]}){left} | " + " | ".join(cell(metrics[c], a.other) for c in COLUMNS) + " |")
    page = a.out / f"{a.qdisc}.md"  # the table; docs/validation/cc-family-ns3.md quotes it with its reading
    page.write_text(
        f"| algorithm | goodput Mb/s | Jain | queue mean pkts | drop ratio % | retransmissions | timeouts |\n"
        f"|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )
    print(page.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
