#!/usr/bin/env python3
"""Seed 003 (a modified CoDel for fairness between CUBIC and Compound TCP; a testbed): the
tables of docs/validation/seed003.md, every cell the mean and 95 % interval over the seeds.

    crosslayer study run studies/seed003-fairness.toml --set study.seeds=5 -o results/pages/seed003-fairness -j 2
    python validation/seed003_tables.py fairness results/pages/seed003-fairness
    python validation/seed003_tables.py drop-probability results/pages/seed003-drop-probability

(`python validation/seed_pages.py run --only seed003` and `write --only seed003` run the stores
and fill the page.) The paper's text has no numbers (its results are figures), so no cell has
a paper's value to be judged against.

Columns: Jain's index over the 20 connections ("Jain"), over the two hosts' totals ("hosts":
(a + b)^2 / (2 (a^2 + b^2)) of the hosts' mean goodput per connection, averaged over the seeds),
each host's mean goodput per connection (Mb/s), the total goodput and the mean RTT sample.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction

from crosslayer.store import Store
from page_cells import ci, seeds_line, table_cli

AQMS = {"taildrop": "Tail Drop", "codel": "CoDel", "static": "static", "dynamic": "dynamic", "static_ctcp": "static, Compound host given (ours)"}


def _per_run(store: str):  # type: ignore[no-untyped-def]
    """The runs with each host's mean goodput per connection (Mb/s), the hosts' Jain's index and
    the mean RTT (ms)."""
    s = Store(store)
    runs, flows = s.runs(), s.table("flows")
    per = flows.groupby(["key", "cc"], observed=True)["goodput_bps"].mean().unstack("cc") / 1e6
    rtt = flows.groupby("key", observed=True)["rtt_mean_s"].mean() * 1e3
    r = runs.set_index("key").join(per.rename(columns={"cubic": "cu", "compound": "ct"})[["cu", "ct"]]).join(rtt.rename("rtt_ms"))
    r["hosts"] = (r.cu + r.ct) ** 2 / (2 * (r.cu**2 + r.ct**2))
    return r.reset_index()


def _ms(label: str) -> float:
    """A delay label ("1ms", "500us", "64ms") in milliseconds."""
    m = re.fullmatch(r"([0-9.]+)\s*(us|ms|s)", str(label))
    if not m:
        raise ValueError(f"not a delay label: {label!r}")
    return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[m.group(2)]


def fairness(store: str, each_way: bool = False) -> None:
    """Figs. 5-6 and 9-11: every delay and queue."""
    r = _per_run(store)
    print("| delay | queue | Jain | hosts | CUBIC | Compound | total | RTT (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for delay in sorted(r["delay"].unique(), key=_ms):
        shown = f"{_ms(delay):g} ms" + (" each way" if each_way else "")
        for aqm, name in AQMS.items():
            c = r[(r.delay == delay) & (r.aqm == aqm)]
            if c.empty:
                continue
            print(
                f"| {shown} | {name} | {ci(c.jain, 3)} | {c.hosts.mean():.3f} | {ci(c.cu, 1)} | {ci(c.ct, 1)} | "
                f"{c.goodput_total_mbps.mean():.1f} | {ci(c.rtt_ms, 2)} |"
            )
    seeds_line(r)


def each_way(store: str) -> None:
    """The same with the delay on each way (the other reading of "two way delay")."""
    fairness(store, each_way=True)


def drop_probability(store: str) -> None:
    """Fig. 12 (64 ms): the probability p against Jain's index, both methods."""
    r = _per_run(store)
    print("| p | static: Jain | static: CUBIC / Compound (Mb/s) | dynamic: Jain | dynamic: hosts | dynamic: CUBIC / Compound (Mb/s) |")
    print("|---|---|---|---|---|---|")
    for p in sorted(r["p"].unique(), key=lambda v: Fraction(str(v))):  # "1/8" and the like
        st, dy = r[(r.p == p) & (r["method"] == "static")], r[(r.p == p) & (r["method"] == "dynamic")]
        shown = f"{p} (CoDel)" if str(p) == "1" else str(p)
        print(
            f"| {shown} | {ci(st.jain, 3)} | {st.cu.mean():.1f} / {st.ct.mean():.1f} | {ci(dy.jain, 3)} | {dy.hosts.mean():.3f} | "
            f"{dy.cu.mean():.1f} / {dy.ct.mean():.1f} |"
        )
    seeds_line(r)


TABLES: dict[str, Callable[[str], None]] = {"fairness": fairness, "each-way": each_way, "drop-probability": drop_probability}

if __name__ == "__main__":
    table_cli(TABLES)
