#!/usr/bin/env python3
"""Seed 004 (Mareev et al., ICAIIT 2020): the sensitivity of the two-way results to the second
flow's start (docs/validation/seed004.md, "Sensitivity").

    crosslayer study run studies/seed004-two-way.toml --set 'flows[1].start=49s,49.5s,50s,50.5s,51s' \
        -o results/pages/seed004-start -j 2
    python validation/seed004_tables.py start results/pages/seed004-start
    crosslayer study run studies/seed004-two-way-mixed.toml -o results/pages/seed004-two-way-mixed -j 2
    python validation/seed004_tables.py pairs results/pages/seed004-two-way-mixed
    python validation/seed_pages.py run --only seed004    # the two-way study, flow 2 at a random start in [49 s, 51 s], 5 seeds
    python validation/seed004_tables.py two-way results/pages/seed004-two-way-jitter

Each cell: the goodput of flow 1 (A -> B) / flow 2 (B -> A) as a percentage of its link's rate
in the window [50 s, 200 s]; a flow alone gets 96.5 % (payload of a link busy all the time).
The last column: the utilization the worse of the two links loses against a flow alone, in
points, over the five starts (the paper: "up to 25 %").
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from crosslayer.store import Store
from page_cells import ci, seeds_line

ALONE = 96.5
RATE_MBPS = {"rtt20_1g": 1000.0, "rtt40_500m": 500.0}
STARTS = ["49s", "49.5s", "50s", "50.5s", "51s"]
PAIRS = ["bbr_bbr", "cubic_bbr", "bbr_cubic", "reno_reno", "cubic_cubic", "highspeed_highspeed", "yeah_yeah"]


def _shares(store: str, columns: list[str]) -> pd.DataFrame:
    """Per run (by key): ``columns``, flow 1's and flow 2's goodput as % of its link's rate
    (``f1``, ``f2``) and the worse link's loss against a flow alone (``worst``, points)."""
    s = Store(store)
    runs, flows = s.runs(), s.flows()
    r = runs.set_index("key")[columns].copy()
    for name, src in (("f1", "Usa"), ("f2", "Canada")):
        r[name] = 100 * (flows[flows.src == src].set_index("key").goodput_bps / 1e6) / r.path.map(RATE_MBPS)
    r["worst"] = ALONE - r[["f1", "f2"]].min(axis=1)
    return r


def start(store: str) -> None:
    r = _shares(store, ["pair", "path", "start"])
    print("| pair | path | " + " | ".join(f"flow 2 at {x}" for x in STARTS) + " | worse link's loss, points |")
    print("|---|---|" + "---|" * (len(STARTS) + 1))
    for pair in PAIRS:
        for path in RATE_MBPS:
            g = r[(r.pair == pair) & (r.path == path)].set_index("start").reindex(STARTS)
            cells = ["-" if pd.isna(x.f1) else f"{x.f1:.0f} / {x.f2:.0f}" for _, x in g.iterrows()]
            print(f"| {pair} | {path} | " + " | ".join(cells) + f" | {g.worst.min():.0f}-{g.worst.max():.0f} |")


def two_way(store: str) -> None:
    """The two flows in opposite directions, the second starting at a random time around 50 s
    (each seed draws it): flow 1's and flow 2's goodput as % of its link, the worse link's loss
    against a flow alone, and both queues' means, each the mean and 95 % interval over the seeds."""
    r = _shares(store, ["pair", "path", "seed"])
    q = Store(store).table("queues")
    for name, link in (("qa", "A->B"), ("qb", "B->A")):
        r[name] = q[q.link == link].set_index("key").qlen_mean_pkts
    print("| pair | path | flow 1 (A->B), % of link | flow 2 (B->A), % of link | worse link's loss, points | queue A->B / B->A, pkts |")
    print("|---|---|---|---|---|---|")
    for pair in PAIRS:
        for path in RATE_MBPS:
            g = r[(r.pair == pair) & (r.path == path)]
            if g.empty:
                continue
            print(f"| {pair} | {path} | {ci(g.f1, 1)} | {ci(g.f2, 1)} | {ci(g.worst, 1)} | {ci(g.qa, 0)} / {ci(g.qb, 0)} |")
    seeds_line(r)


def same_direction(store: str) -> None:
    """The two flows in the same direction (one-way coexistence), the second starting at a random
    time around 50 s: each flow's goodput (Mb/s), the bottleneck's utilization and drops, each
    the mean and 95 % interval over the seeds."""
    s = Store(store)
    r = s.runs().set_index("key")
    flows = s.table("flows")
    first = flows[flows.start_s < 1].set_index("key").goodput_bps / 1e6
    second = flows[flows.start_s >= 1].set_index("key").goodput_bps / 1e6
    r["f1"], r["f2"] = first, second
    q = s.table("queues")
    r["drops"] = q[q.link == "A->B"].set_index("key").drops
    print("| pair | path | flow 1, Mb/s | flow 2, Mb/s | utilization | drops at A -> B |")
    print("|---|---|---|---|---|---|")
    for pair in PAIRS:
        for path in sorted(r.path.unique()):
            g = r[(r.pair == pair) & (r.path == path)]
            if g.empty:
                continue
            print(f"| {pair} | {path} | {ci(g.f1, 0)} | {ci(g.f2, 0)} | {ci(g.utilization, 3)} | {ci(g.drops, 0, thousands=True)} |")
    seeds_line(r)


def mixed_pairs(store: str) -> None:
    """Figure 4's pairs of different algorithms, both orders, the second flow starting at a random
    time around 50 s: each flow's goodput as % of its link and the worse link's loss, the mean
    and 95 % interval over the seeds."""
    r = _shares(store, ["pair", "path", "seed"])
    print("| flow 1 (A -> B, first) | flow 2 (B -> A, at 49-51 s) | rtt20_1g: flow 1 / flow 2, % | rtt40_500m: flow 1 / flow 2, % | worse link's loss, points: rtt20_1g / rtt40_500m |")
    print("|---|---|---|---|---|")
    order = [f"{a}_{b}" for a in ("reno", "yeah", "highspeed", "cubic") for b in ("reno", "yeah", "highspeed", "cubic") if a != b]
    for pair in sorted(dict.fromkeys(r.pair), key=lambda p: order.index(p) if p in order else len(order)):
        a, b = pair.split("_")
        cells, loss = [], []
        for path in RATE_MBPS:
            g = r[(r.pair == pair) & (r.path == path)]
            cells.append("-" if g.empty else f"{ci(g.f1, 0)} / {ci(g.f2, 0)}")
            loss.append("-" if g.empty else ci(g.worst, 0))
        print(f"| {a} | {b} | " + " | ".join(cells) + f" | {' / '.join(loss)} |")
    seeds_line(r)


def pairs(store: str) -> None:
    """Figure 4's pairs of different algorithms, both orders: flow 1 / flow 2 goodput as % of its
    link, and the worse link's loss against a flow alone."""
    r = _shares(store, ["pair", "path"])
    print("| flow 1 (A -> B, first) | flow 2 (B -> A, at 50 s) | rtt20_1g | rtt40_500m | worse link's loss, points |")
    print("|---|---|---|---|---|")
    order = [f"{a}_{b}" for a in ("reno", "yeah", "highspeed", "cubic") for b in ("reno", "yeah", "highspeed", "cubic") if a != b]
    for pair in sorted(dict.fromkeys(r.pair), key=lambda p: order.index(p) if p in order else len(order)):
        g = r[r.pair == pair].set_index("path")
        a, b = pair.split("_")
        cells = ["-" if p not in g.index else f"{g.loc[p, 'f1']:.0f} / {g.loc[p, 'f2']:.0f}" for p in RATE_MBPS]
        print(f"| {a} | {b} | " + " | ".join(cells) + f" | {g.worst.min():.0f}-{g.worst.max():.0f} |")


def _need_stores(*args: str) -> None:
    """Exit with a message (not a traceback) when an argument that names a store is not one."""
    for a in args:
        path = a.partition("=")[2] if "=" in a else a
        if not (Path(path) / "runs").is_dir():
            sys.exit(f"{path} is not a result store (no runs/ folder): run the `crosslayer study run` command at the top of this file first")


if __name__ == "__main__":
    cmd, store = sys.argv[1:3]
    _need_stores(store)
    {"start": start, "pairs": pairs, "two-way": two_way, "same-direction": same_direction, "mixed-pairs": mixed_pairs}[cmd](store)
