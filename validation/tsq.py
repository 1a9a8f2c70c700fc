#!/usr/bin/env python3
"""TCP Small Queues (``[tcp] tsq``) on seed 000's access link: what they change, with and without
(docs/models/tcp.md, "TCP Small Queues"; docs/validation/cc-family-ns3.md, BBR).

    .venv/bin/python validation/tsq.py window [--seeds 20]   # CUBIC and Reno: tsq = "all" against "off"
    .venv/bin/python validation/tsq.py bbr [--seeds 10]      # BBR: the hosts' and the bottleneck's drops

``window`` runs studies/seed000-access-link.toml as it is (100 s measured from 30 s) with 9 and 90
flows, DropTail and CoDel (900 packets) at the bottleneck, each seed with ``tsq = "off"`` and
``"all"``, and prints each metric's means and the two-sided Mann-Whitney p-value of the
difference (normal approximation with ties). ``bbr`` runs 9 BBR flows, 30 s measured from 10 s
(the crosscheck's length), ``tsq = "off"`` and the linux profile's ``"paced"``.
"""

from __future__ import annotations

import argparse
import math
import statistics
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "studies" / "seed000-access-link.toml"


def run(seed: int, cc: str, per_pair: int, qdisc: str, tsq: str, short: bool = False) -> dict[str, float]:
    """One run's aggregates; the sender hosts' queues' drops summed."""
    import crosslayer
    from crosslayer.result import jain_index
    from crosslayer.scenario import Scenario

    paths: dict[str, Any] = {"seed": seed, "flows[0].cc": cc, "flows[0].per_pair": per_pair, "tcp.tsq": tsq}
    if qdisc == "codel":
        paths["topology.bottleneck.qdisc"] = {"kind": "codel", "limit_pkts": 900}
    if short:
        paths.update(duration="30s", warmup="10s")
    r = crosslayer.run(Scenario.from_toml(STUDY).with_paths(paths))
    q, f = r.queues.set_index("link"), r.flows
    hosts = [link for link, role in zip(r.queues.link, r.queues.role, strict=True) if role == "sender_up"]
    return {
        "goodput_mbps": float(f.goodput_bps.sum()) / 1e6,
        "jain": float(jain_index(list(f.goodput_bps))),
        "queue_pkts": float(q.loc["A->B", "qlen_mean_pkts"]),
        "drops_pct": float(q.loc["A->B", "drop_ratio"]) * 100,
        "retransmits": float(f.retransmits.sum()),
        "timeouts": float(f.timeouts.sum()),
        "host_drops": float(sum(int(q.loc[h, "drops"]) for h in hosts)),
    }


def mann_whitney_p(a: list[float], b: list[float]) -> float:
    """Two-sided Mann-Whitney U test, normal approximation with the tie correction."""
    values = sorted((v, k) for k, v in enumerate(a + b))
    ranks = [0.0] * len(values)
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1][0] == values[i][0]:
            j += 1
        for m in range(i, j + 1):
            ranks[values[m][1]] = (i + j) / 2 + 1
        i = j + 1
    n1, n2 = len(a), len(b)
    n = n1 + n2
    u = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
    ties: dict[float, int] = {}
    for v in a + b:
        ties[v] = ties.get(v, 0) + 1
    var = n1 * n2 / 12 * ((n + 1) - sum(t**3 - t for t in ties.values()) / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = max(abs(u - n1 * n2 / 2) - 0.5, 0.0) / math.sqrt(var)
    return math.erfc(z / math.sqrt(2))


def window(seeds: int) -> None:
    metrics = ("goodput_mbps", "jain", "queue_pkts", "drops_pct", "retransmits", "timeouts", "host_drops")
    print(f"seed 000 access link, 100 s from 30 s, seeds 1-{seeds}: off -> all (Mann-Whitney p)")
    print("| cc | flows | bottleneck | " + " | ".join(metrics) + " |")
    print("|---|---|---|" + "---|" * len(metrics))
    for cc in ("cubic", "reno"):
        for per_pair in (1, 10):
            for qdisc in ("droptail", "codel"):
                rows = {t: [run(s, cc, per_pair, qdisc, t) for s in range(1, seeds + 1)] for t in ("off", "all")}
                cells = []
                for m in metrics:
                    a, b = [r[m] for r in rows["off"]], [r[m] for r in rows["all"]]
                    cells.append(f"{statistics.mean(a):.4g} -> {statistics.mean(b):.4g} ({mann_whitney_p(a, b):.2f})")
                print(f"| {cc} | {9 * per_pair} | {qdisc} | " + " | ".join(cells) + " |", flush=True)


def bbr(seeds: int) -> None:
    print(f"9 BBR flows, seed 000 access link, 30 s from 10 s, seeds 1-{seeds}")
    print("| tsq | host drops | bottleneck drops % | Jain | retransmissions | timeouts |")
    print("|---|---|---|---|---|---|")
    for tsq in ("off", "paced"):
        rows = [run(s, "bbr", 1, "droptail", tsq, short=True) for s in range(1, seeds + 1)]

        def show(m: str, fmt: str) -> str:
            v = [r[m] for r in rows]
            return f"{statistics.mean(v):{fmt}} ({min(v):{fmt}}..{max(v):{fmt}})"

        print(f"| {tsq} | {show('host_drops', ',.0f')} | {show('drops_pct', '.2f')} | {show('jain', '.3f')} | {show('retransmits', ',.0f')} | {show('timeouts', '.1f')} |", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=("window", "bbr"))
    p.add_argument("--seeds", type=int, default=0)
    a = p.parse_args()
    if a.what == "window":
        window(a.seeds or 20)
    else:
        bbr(a.seeds or 10)


if __name__ == "__main__":
    main()
