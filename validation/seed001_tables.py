#!/usr/bin/env python3
"""Seed 001 (RED, CoDel and sfqCoDel with H-TCP, Compound and CUBIC at 622 Mb/s), Tables 1, 2, 3
and 5 next to crosslayer's runs, by the seed pages' criterion (crosslayer.analysis.against_paper:
the paper's number inside crosslayer's 95 % interval over the seeds, or within the metric's
tolerance of the mean; **bold**: differs).

    crosslayer study run studies/seed001-high-speed.toml -o results/pages/seed001-high-speed -j 2
    python validation/seed001_tables.py results/pages/seed001-high-speed

Metrics as docs/validation/seed001.md defines them: Table 1 the total goodput (Mb/s), Table 2
Jain's index over the three flows, Table 3 the bottleneck's drops over its arrivals (%), Table 5
Jain's index and the total with one flow of each TCP.
"""

from __future__ import annotations

import sys
from pathlib import Path

from crosslayer.analysis import against_paper
from crosslayer.store import Store
from page_cells import ci

AQMS = [("red", "RED"), ("codel", "CoDel"), ("sfqcodel", "sfqCoDel")]
TCPS = [("cubic", "CUBIC"), ("htcp", "H-TCP"), ("compound", "Compound")]
# The paper's numbers as printed (section 3.2): {table: {(aqm, tcp): value}}
PAPER = {
    "T1": {("red", "cubic"): "222.9", ("red", "htcp"): "267.5", ("red", "compound"): "560.5",
           ("codel", "cubic"): "545.4", ("codel", "htcp"): "450.8", ("codel", "compound"): "560.5",
           ("sfqcodel", "cubic"): "472.6", ("sfqcodel", "htcp"): "458.6", ("sfqcodel", "compound"): "441.9"},
    "T2": {("red", "cubic"): "0.9998", ("red", "htcp"): "0.9993", ("red", "compound"): "0.9999",
           ("codel", "cubic"): "0.9977", ("codel", "htcp"): "0.9787", ("codel", "compound"): "0.9999",
           ("sfqcodel", "cubic"): "0.9999", ("sfqcodel", "htcp"): "1", ("sfqcodel", "compound"): "0.99955"},
    "T3": {("red", "cubic"): "8.45", ("red", "htcp"): "4.697", ("red", "compound"): "0",
           ("codel", "cubic"): "0.00052", ("codel", "htcp"): "0.0016", ("codel", "compound"): "0",
           ("sfqcodel", "cubic"): "0.00135", ("sfqcodel", "htcp"): "0.0034", ("sfqcodel", "compound"): "0.0034"},
    "T5j": {("red", "mixed"): "0.666", ("codel", "mixed"): "0.853", ("sfqcodel", "mixed"): "0.997"},
    "T5t": {("red", "mixed"): "276.6", ("codel", "mixed"): "527.0", ("sfqcodel", "mixed"): "554.4"},
}  # fmt: skip
COLUMN = {"T1": ("goodput_total_mbps", 1.0, "aggregate_rate", 1), "T2": ("jain", 1.0, "jain", 4), "T3": ("drop_ratio", 100.0, "drop_pct", 4),
          "T5j": ("jain", 1.0, "jain", 3), "T5t": ("goodput_total_mbps", 1.0, "aggregate_rate", 1)}  # fmt: skip


def cell(runs, table: str, aqm: str, tcp: str) -> tuple[str, bool]:  # type: ignore[no-untyped-def]
    col, scale, kind, dec = COLUMN[table]
    values = list(scale * runs[(runs.aqm == aqm) & (runs.tcp == tcp)][col])
    printed = PAPER[table][(aqm, tcp)]
    # an integer among numbers printed with decimals ("0" drops, a Jain's index of "1") is exact,
    # not rounded to a whole unit
    paper: str | float = float(printed) if table in ("T2", "T3") and "." not in printed else printed
    v = against_paper(paper, values, kind)
    text = f"{v.ours.mean:.{dec}f} ± {v.ours.half:.{dec}f}"
    return (text if v.agrees else f"**{text}**"), v.agrees


def main(store: str) -> None:
    runs = Store(store).runs()
    total = [0, 0]
    titles = {"T1": "Table 1: total throughput (Mb/s)", "T2": "Table 2: Jain's fairness index (3 flows, same TCP)",
              "T3": "Table 3: packet loss (%), bottleneck drops / arrivals"}  # fmt: skip
    for t, title in titles.items():
        lines, ok = [], 0
        for aqm, a in AQMS:
            cells = []
            for tcp, _ in TCPS:
                text, agrees = cell(runs, t, aqm, tcp)
                ok += agrees
                cells += [PAPER[t][(aqm, tcp)], text]
            lines.append(f"| {a} | " + " | ".join(cells) + " |")
        total[0] += ok
        total[1] += len(AQMS) * len(TCPS)
        print(f"### {title}\n\nNumbers that agree with the paper: {ok} of {len(AQMS) * len(TCPS)}.\n")
        print("| AQM | " + " | ".join(f"{n} paper | {n} crosslayer" for _, n in TCPS) + " |")
        print("|---|" + "---|---|" * len(TCPS))
        print("\n".join(lines) + "\n")
    print("### Table 5: mixed TCPs (H-TCP, Compound, CUBIC: one flow each)\n")
    lines, ok = [], 0
    for aqm, a in AQMS:
        (j, jok), (g, gok) = cell(runs, "T5j", aqm, "mixed"), cell(runs, "T5t", aqm, "mixed")
        ok += jok + gok
        lines.append(f"| {a} | {PAPER['T5j'][(aqm, 'mixed')]} | {j} | {PAPER['T5t'][(aqm, 'mixed')]} | {g} |")
    total[0] += ok
    total[1] += 2 * len(AQMS)
    print(f"Numbers that agree with the paper: {ok} of {2 * len(AQMS)}.\n")
    print("| AQM | Jain paper | Jain crosslayer | total paper (Mb/s) | total crosslayer (Mb/s) |\n|---|---|---|---|---|")
    print("\n".join(lines) + "\n")
    print(f"Tables 1, 2, 3 and 5: {total[0]} of {total[1]} numbers agree.")


# Table 4's "average queuing delay" (s) as printed
PAPER_T4 = {("red", "cubic"): "0.0602", ("red", "htcp"): "0.05487", ("red", "compound"): "0.05218",
            ("codel", "cubic"): "0.0507", ("codel", "htcp"): "0.05145", ("codel", "compound"): "0.05218",
            ("sfqcodel", "cubic"): "0.0504", ("sfqcodel", "htcp"): "0.05087", ("sfqcodel", "compound"): "0.05205"}  # fmt: skip


def table4(store: str) -> None:
    """Table 4 next to crosslayer's mean RTT sample (the flows' mean, per run), mean sojourn and
    mean queue at the bottleneck, each the mean and 95 % interval over the seeds."""
    s = Store(store)
    runs = s.runs().set_index("key")
    runs["rtt"] = s.table("flows").groupby("key", observed=True)["rtt_mean_s"].mean()
    print("| AQM | TCP | paper delay | crosslayer mean RTT | crosslayer mean sojourn | crosslayer mean queue (pkts) |")
    print("|---|---|---|---|---|---|")
    for aqm, a in AQMS:
        for tcp, t in TCPS:
            c = runs[(runs.aqm == aqm) & (runs.tcp == tcp)]
            print(f"| {a} | {t} | {PAPER_T4[(aqm, tcp)]} | {ci(c.rtt, 5)} | {ci(c.sojourn_mean_s, 2, 1e3)} ms | {ci(c.qlen_mean_pkts, 1)} |")


def _need_stores(*args: str) -> None:
    """Exit with a message (not a traceback) when an argument that names a store is not one."""
    for a in args:
        path = a.partition("=")[2] if "=" in a else a
        if not (Path(path) / "runs").is_dir():
            sys.exit(f"{path} is not a result store (no runs/ folder): run the `crosslayer study run` command at the top of this file first")


if __name__ == "__main__":
    _need_stores(sys.argv[1])
    main(sys.argv[1])
