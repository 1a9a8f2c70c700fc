#!/usr/bin/env python3
"""The parking lot against ns-3 3.44 (docs/validation/parking-lot.md): studies/parking-lot-3.toml
(three 10 Mb/s CoDel hops, a long CUBIC flow over all three and a cross flow per hop) run by
crosslayer and by validation/ns3/parking_lot.py, 5 seeds each.

    python validation/parking_lot_compare.py ns3 [NS3_PYTHON]   # 5 ns-3 runs (default ~/ns3env/bin/python)
    python validation/parking_lot_compare.py crosslayer         # 5 crosslayer runs
    python validation/parking_lot_compare.py table              # the page's table; exit 1 if a check fails

Both simulators draw each flow's start uniformly in [0 s, 1 s] from their own generator (the
seed spread), crosslayer with ``[tcp] profile = "ns3"`` (ns-3's TCP defaults: min RTO 1 s,
delayed ACKs of 2 segments and 200 ms, ...), CUBIC, 1448-byte segments. JSON per run goes to
validation/results/parking_lot/. The check, per flow and for the aggregate: crosslayer's mean
goodput lies within ns-3's range over its seeds, or within 10 % of ns-3's mean.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "results" / "parking_lot"
SEEDS = range(1, 6)
FLOWS = ["S0-D0.0", "S1-D1.0", "S2-D2.0", "S3-D3.0"]
HOPS = ["R1->R2", "R2->R3", "R3->R4"]


def run_ns3(python: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for k in SEEDS:
        out = OUT / f"ns3-{k}.json"
        subprocess.run([python, str(HERE / "ns3" / "parking_lot.py"), "--run", str(k), "--out", str(out)], check=True)
        print(f"wrote {out}")


def run_crosslayer() -> None:
    import crosslayer  # noqa: PLC0415

    OUT.mkdir(parents=True, exist_ok=True)
    base = tomllib.loads((ROOT / "studies" / "parking-lot-3.toml").read_text())
    base["tcp"] = {"profile": "ns3"}
    for group in base["flows"]:
        group["start"] = {"uniform": ["0s", "1s"]}
    for k in SEEDS:
        r = crosslayer.run({**base, "seed": k})
        f = r.flows
        q = r.queues.set_index("link")
        result = {
            "simulator": f"crosslayer {crosslayer.__version__}",
            "seed": k,
            "flows": [{"name": row.name, "start_s": float(row.start_s), "goodput_bps": float(row.goodput_bps), "retransmissions": int(row.retransmits)} for row in f.itertuples()],
            "aggregate": {"goodput_bps": float(f["goodput_bps"].sum())},
            "queues": {link: {"arrivals": int(q.loc[link, "arrivals"]), "drops": int(q.loc[link, "drops"]), "drop_ratio": float(q.loc[link, "drop_ratio"]),
                              "mean_pkts": float(q.loc[link, "qlen_mean_pkts"]), "utilization": float(q.loc[link, "utilization"])} for link in HOPS},
            "run_wall_s": float(r.summary["wall_s"]),
        }
        (OUT / f"crosslayer-{k}.json").write_text(json.dumps(result, indent=1))
        print(f"wrote {OUT / f'crosslayer-{k}.json'}")


def _load(sim: str) -> list[dict]:
    return [json.loads((OUT / f"{sim}-{k}.json").read_text()) for k in SEEDS]


def table() -> int:
    ns3, cl = _load("ns3"), _load("crosslayer")

    def series(runs: list[dict], what: str) -> list[float]:
        if what == "aggregate":
            return [r["aggregate"]["goodput_bps"] / 1e6 for r in runs]
        if what in FLOWS:
            return [next(f["goodput_bps"] for f in r["flows"] if f["name"] == what) / 1e6 for r in runs]
        link, metric = what.split(" ")
        return [r["queues"][link][metric] for r in runs]

    rows = [("aggregate goodput, Mb/s", "aggregate", True)] + [(f"{f} goodput, Mb/s", f, True) for f in FLOWS]
    rows += [(f"{h} utilization", f"{h} utilization", False) for h in HOPS]
    rows += [(f"{h} drop ratio", f"{h} drop_ratio", False) for h in HOPS]
    rows += [(f"{h} mean queue, pkts", f"{h} mean_pkts", False) for h in HOPS]
    print("| metric | ns-3 mean | ns-3 range (5 seeds) | crosslayer mean | crosslayer range | difference | check |")
    print("|---|---|---|---|---|---|---|")
    failed = 0
    for label, what, checked in rows:
        a, b = series(ns3, what), series(cl, what)
        ma, mb = statistics.mean(a), statistics.mean(b)
        diff = (mb - ma) / ma * 100 if ma else float("nan")
        ok = min(a) <= mb <= max(a) or abs(diff) <= 10
        verdict = ("ok" if ok else "FAIL") if checked else "-"
        failed += checked and not ok
        fmt = "{:.2f}" if ma >= 10 else "{:.3f}" if ma >= 0.1 else "{:.5f}"
        print(f"| {label} | {fmt.format(ma)} | {fmt.format(min(a))}-{fmt.format(max(a))} | {fmt.format(mb)} | {fmt.format(min(b))}-{fmt.format(max(b))} | {diff:+.1f} % | {verdict} |")
    walls = statistics.mean(r["run_wall_s"] for r in ns3), statistics.mean(r["run_wall_s"] for r in cl)
    print(f"\nwall time per 60 s run (Simulator::Run / engine loop): ns-3 {walls[0]:.2f} s, crosslayer {walls[1]:.3f} s ({walls[0] / walls[1]:.0f}x)")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["ns3"]:
        run_ns3(argv[1] if len(argv) > 1 else str(Path.home() / "ns3env" / "bin" / "python"))
        return 0
    if argv[:1] == ["crosslayer"]:
        run_crosslayer()
        return 0
    if argv[:1] == ["table"]:
        return table()
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
