#!/usr/bin/env python3
"""Seed 002 (Vegas over RED, Tahoe after departures, Reno and Tahoe together; ns-2, about 2006):
the tables of docs/validation/seed002.md, every cell the mean and 95 % interval over the seeds.

    crosslayer study run studies/seed002-vegas-red.toml --set study.seeds=5 -o results/pages/seed002-vegas-red -j 2
    python validation/seed002_tables.py vegas results/pages/seed002-vegas-red
    python validation/seed002_tables.py departures results/pages/seed002-tahoe-departures
    python validation/seed002_tables.py reno-tahoe results/pages/seed002-reno-tahoe

(`python validation/seed_pages.py run` and `write` run the three stores and fill the page.) The
paper's figures carry no numbers in the text we have, so no cell has a paper's value to be
judged against: the page sets its statements (quoted) against these intervals.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from crosslayer.store import Store
from page_cells import ci, seeds_line, table_cli


def _ordered(labels) -> list:  # type: ignore[no-untyped-def]
    """A swept axis's labels ("n10", "remain20", ... or numbers) in numeric order."""
    return sorted(labels.unique(), key=lambda v: float(_shown(v)))


def _shown(label) -> str:  # type: ignore[no-untyped-def]
    """The number in a label ("n10" -> "10")."""
    return re.sub(r"^[a-z_]+", "", str(label))


def _per_run(store: str, by: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    """The runs table joined with its flows summed per run (and per ``by``)."""
    s = Store(store)
    runs = s.runs()
    flows = s.table("flows")
    cols = ["goodput_bps", "throughput_bps", "retransmits", "timeouts", "bottleneck_drops", "bottleneck_arrivals"]
    summed = flows.groupby(["key", *by], observed=True)[[c for c in cols if c in flows]].sum().reset_index()
    return runs.drop(columns=[c for c in cols if c in runs]).merge(summed, on="key")


def vegas(store: str) -> None:
    """Section 4.2: N Vegas (and Reno) flows over Drop-Tail and RED."""
    r = _per_run(store)
    r["drop_pct"] = 100 * r["bottleneck_drops"] / r["bottleneck_arrivals"]
    print("| tcp | aqm | N | system goodput Mb/s | system throughput Mb/s | retransmitted pkts | dropped at bottleneck | drop rate % | timeouts |")
    print("|---|---|---|---|---|---|---|---|---|")
    for tcp in ("vegas", "reno"):
        for n in _ordered(r["n"]):
            for aqm in ("droptail", "red"):
                c = r[(r.tcp == tcp) & (r.n == n) & (r.aqm == aqm)]
                print(
                    f"| {tcp} | {aqm} | {_shown(n)} | {ci(c.goodput_bps, 3, 1e-6)} | {ci(c.throughput_bps, 3, 1e-6)} | "
                    f"{ci(c.retransmits, 0, thousands=True)} | {ci(c.bottleneck_drops, 0, thousands=True)} | {ci(c.drop_pct, 2)} | {ci(c.timeouts, 0, thousands=True)} |"
                )
    seeds_line(r)


def departures(store: str) -> None:
    """Section 4.3: system goodput after all but 10-50 of 100 Tahoe flows leave."""
    r = Store(store).runs()
    combos = [("droptail", "droptail", "DT backbone, DT edges"), ("red", "droptail", "RED backbone, DT edges"),
              ("droptail", "red", "DT backbone, RED edges"), ("red", "red", "RED backbone, RED edges")]  # fmt: skip
    print("| remaining flows | " + " | ".join(t for _, _, t in combos) + " |")
    print("|---|" + "---|" * len(combos))
    for n in _ordered(r["remaining"]):
        cells = [ci(r[(r.remaining == n) & (r.aqm == a) & (r.edges == e)].goodput_total_mbps, 2) for a, e, _ in combos]
        print(f"| {_shown(n)} | " + " | ".join(cells) + " |")
    seeds_line(r)


def reno_tahoe(store: str) -> None:
    """Section 4.4: n/2 Reno and n/2 Tahoe flows; each group's system goodput."""
    r = _per_run(store, ("cc",))
    print("| Reno recovery | aqm | n | Reno | Tahoe | Tahoe - Reno |")
    print("|---|---|---|---|---|---|")
    for rec in ("ns2_reno", "newreno"):
        for aqm in ("droptail", "red"):
            for n in _ordered(r["n"]):
                c = r[(r.reno_recovery == rec) & (r.aqm == aqm) & (r.n == n)]
                reno, tahoe = c[c.cc == "reno"].set_index("seed").goodput_bps, c[c.cc == "tahoe"].set_index("seed").goodput_bps
                diff = (tahoe / reno - 1) * 100
                print(f"| {rec} | {aqm} | {_shown(n)} | {ci(reno, 3, 1e-6)} | {ci(tahoe, 3, 1e-6)} | {ci(diff, 0)} % |")
    seeds_line(r)


TABLES: dict[str, Callable[[str], None]] = {"vegas": vegas, "departures": departures, "reno-tahoe": reno_tahoe}

if __name__ == "__main__":
    table_cli(TABLES)
