#!/usr/bin/env python3
"""Every congestion control ns-3 3.44 has, crosschecked on seed 000's access link.

For each algorithm in ``crosslayer.crosscheck.ns3.CC``: 9 flows of it (one per host pair) on
the access link (100 Mb/s, RTT 8-204 ms) with the bottleneck's queue discipline given, crosslayer
(profile ns3) against ns-3 with ``crosslayer crosscheck``'s translation, several seeds. Writes one
JSON file per algorithm and a Markdown page with a row per algorithm.

    .venv/bin/python validation/cc_family.py --qdisc droptail --seeds 3 --duration 30s --warmup 10s \\
        --ns3-python ~/ns3env/bin/python --jobs 2 --out docs/validation/cc-family-ns3
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from crosslayer.crosscheck import OtherSimulatorError, crosscheck, ns3
from crosslayer.scenario import Scenario

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "seed000-access-link.toml"
QDISCS = {"droptail": {"kind": "droptail", "limit_pkts": 900}, "codel": {"kind": "codel", "limit_pkts": 900}}
COLUMNS = ("goodput_bps", "jain", "qlen_mean_pkts@A->B", "drop_ratio@A->B", "retransmits", "timeouts")


def cell(m: dict) -> str:
    scale = {"goodput_bps": 1e-6, "drop_ratio@A->B": 100.0}.get(m["metric"], 1.0)
    digits = {"jain": 3, "drop_ratio@A->B": 3, "qlen_mean_pkts@A->B": 1, "goodput_bps": 2}.get(m["metric"], 0)
    ours, theirs = m["crosslayer"], m["ns3"]
    if ours is None or theirs is None:
        return "-"
    mark = {"agrees": "", "agrees within the seed spread": " (spread)", "differs": " **differs**"}[m["verdict"]]
    return f"{ours['mean'] * scale:,.{digits}f} / {theirs['mean'] * scale:,.{digits}f}{mark}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
    names = a.only.split(",") if a.only else list(ns3.CC)
    base = Scenario.from_toml(STUDY)
    for name in names:
        path = a.out / f"{name}-{a.qdisc}.json"
        if path.exists():
            continue
        sc = base.with_paths({"flows[0].cc": name, "topology.bottleneck.qdisc": QDISCS[a.qdisc], "duration": a.duration, "warmup": a.warmup})
        t = time.time()
        try:
            c = crosscheck(sc, seeds=list(range(1, a.seeds + 1)), ns3_python=a.ns3_python, jobs=a.jobs, timeout_s=a.timeout)
        except OtherSimulatorError as exc:
            path.write_text(json.dumps({"error": str(exc)}) + "\n")
            print(f"{name} {a.qdisc}: {exc}", file=sys.stderr)
            continue
        path.write_text(json.dumps(c.to_json(), indent=1) + "\n")
        print(f"{name} {a.qdisc}: {'agrees' if c.agrees else 'differs'} ({time.time() - t:.0f} s)", file=sys.stderr)
    rows = []
    for name in ns3.CC:
        path = a.out / f"{name}-{a.qdisc}.json"
        if not path.exists():
            continue
        doc = json.loads(path.read_text())
        if "error" in doc:
            rows.append(f"| `{name}` ({ns3.CC[name]}) | " + " | ".join(["-"] * len(COLUMNS)) + f" |  <!-- {doc['error']} -->")
            continue
        metrics = {m["metric"]: m for m in doc["metrics"]}
        rows.append(f"| `{name}` ({ns3.CC[name]}) | " + " | ".join(cell(metrics[c]) for c in COLUMNS) + " |")
    page = a.out / f"{a.qdisc}.md"  # the table; docs/validation/cc-family-ns3.md quotes it with its reading
    page.write_text(
        f"| algorithm | goodput Mb/s | Jain | queue mean pkts | drop ratio % | retransmissions | timeouts |\n"
        f"|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )
    print(page.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
