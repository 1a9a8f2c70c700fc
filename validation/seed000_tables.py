#!/usr/bin/env python3
"""Seed paper 000 (Piotrowska, Appl. Sci. 11, 7808, 2021), Tables 2-13, next to crosslayer's
reproduction (studies/seed000-matrix.toml), in the paper's layout; and the Access Link fairness
checks of docs/validation/seed000.md.

    crosslayer study run studies/seed000-matrix.toml -o results/seed000-matrix -j 2
    python validation/seed000_tables.py tables results/seed000-matrix        # Tables 2-13
    python validation/seed000_tables.py tables results/seed000-paper-aqm T3,T7   # a subset
    python validation/seed000_tables.py jain results/seed000-matrix          # Jain variants
    python validation/seed000_tables.py rtt results/seed000-matrix           # goodput vs RTT
    crosslayer study run studies/seed000-access-fairness.toml -o results/seed000-access-fairness -j 2
    python validation/seed000_tables.py fairness results/seed000-access-fairness
    python validation/seed000_tables.py ns3pairs results/seed000-access-fairness  # ns-3 per pair
    python validation/seed000_tables.py pie results/pages/seed000-paper-aqm results/pages/seed000-pie-rfc8033
    python validation/seed000_tables.py sensitivity paper=results/pages/seed000-paper-aqm rwnd128k=results/pages/seed000-sens-rwnd128k

How the paper's metrics are computed here (section 5 of the paper):

* "throughput" of a flow: crosslayer's ``goodput_bps`` (payload received for the first time in
  [30 s, 100 s], per second). The paper does not say whether its throughput counts headers or
  retransmissions, nor its window ("the queue measurements were taken from the 30th second"); the
  ``jain`` command shows that counting the sender's wire bytes instead (``throughput_bps``)
  changes Jain's index by at most 0.012 in any cell.
* Jain's index: over individual flows ("the mean throughput for each flow was also calculated.
  Jain's index was computed to evaluate the fairness of link sharing between competing flows";
  Tables 10 and 12 give it "for flows using the same TCP version ... or for all connections").
* Tables 10 and 12 (mixed TCPs): AvgThr (SD) = mean and standard deviation of the per-flow
  throughput over the flows of one node (= one TCP: N1 New Reno, N2 Compound, N3 Cubic; "the
  average of three, thirty, or three-hundred values"), BD = the node's share of the total (%), JI
  = Jain's index over the node's flows (inter-fairness), or over all flows (row All). The SD is
  the population SD (ddof = 0); the paper does not say which.
* Queue length mean and SD (packets) and drop ratio (%) at the bottleneck A -> B, from the 30th
  second: crosslayer's exact time averages ``qlen_mean_pkts``, ``qlen_sd_pkts`` and
  ``drop_ratio`` (drops of every reason / arrivals).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from crosslayer.analysis import against_paper
from crosslayer.store import Store

LOADS = ["uncongested", "mild", "heavy"]
LOAD_ABBR = {"uncongested": "UC", "mild": "MC", "heavy": "HC"}
TCPS = ["newreno", "cubic", "compound"]
TCP_NAME = {"newreno": "New Reno", "cubic": "Cubic", "compound": "C-TCP", "mixed": "mixed"}
AQMS = ["droptail", "pie", "codel"]
AQM_NAME = {"droptail": "DT", "pie": "PIE", "codel": "CoDel"}
# mixed TCPs: node -> congestion control (section 5)
NODE_CC = {"N1": "reno", "N2": "compound", "N3": "cubic"}
NODE_TCP = {"N1": "newreno", "N2": "compound", "N3": "cubic"}


def _grid(text: str) -> dict[tuple[str, str], list[str]]:
    """Paper rows 'LOAD TCP cellDT | cellPIE | cellCoDel' -> {(load, tcp): [DT, PIE, CoDel]}."""
    out = {}
    for line in text.strip().splitlines():
        head, rest = line.split(":", 1)
        load, tcp = head.split()
        out[(load, tcp)] = [c.strip() for c in rest.split("|")]
    return out


# The paper's tables, transcribed from the published text (cells as printed).
PAPER = {
    "T2": _grid("""
uncongested newreno: 56.72/83.54/145.79 | 100.83/102.17/105.78 | 98.32/99.55/108.67
uncongested cubic: 49.91/84.06/138.36 | 96.60/100.70/109.61 | 98.67/99.84/108.67
uncongested compound: 85.47/107.47/118.63 | 86.29/89.57/130.91 | 81.03/90.47/136.61
mild newreno: 2.40/5.65/14.15 | 9.98/10.45/10.85 | 10.02/10.44/10.82
mild cubic: 0.00/0.04/23.41 | 9.93/10.26/10.89 | 10.07/10.46/10.84
mild compound: 7.52/10.09/11.14 | 10.05/10.41/10.91 | 10.00/10.43/10.79
heavy newreno: 0.00/0.00/0.00 | 0.95/1.05/1.14 | 0.98/1.06/1.14
heavy cubic: 0.00/0.00/0.00 | 0.94/1.04/1.16 | 0.94/1.05/1.17
heavy compound: 0.00/0.00/0.02 | 0.96/1.05/1.14 | 0.98/1.06/1.14
"""),
    "T3": _grid("""
uncongested newreno: 0.75 | 1.00 | 0.99
uncongested cubic: 0.70 | 1.00 | 1.00
uncongested compound: 0.97 | 0.96 | 0.94
mild newreno: 0.48 | 1.00 | 1.00
mild cubic: 0.25 | 0.99 | 1.00
mild compound: 0.88 | 1.00 | 1.00
heavy newreno: 0.16 | 0.98 | 0.99
heavy cubic: 0.12 | 0.97 | 0.98
heavy compound: 0.19 | 0.98 | 0.99
"""),
    "T4": _grid("""
uncongested newreno: 814 (69) | 169 (41) | 173 (10)
uncongested cubic: 859 (47) | 168 (26) | 172 (4)
uncongested compound: 845 (39) | 167 (23) | 162 (14)
mild newreno: 873 (33) | 166 (30) | 222 (28)
mild cubic: 900 (1) | 167 (22) | 216 (28)
mild compound: 877 (17) | 167 (24) | 204 (18)
heavy newreno: 899 (1) | 168 (59) | 724 (207)
heavy cubic: 899 (1) | 168 (47) | 716 (224)
heavy compound: 899 (8) | 169 (52) | 732 (214)
"""),
    "T5": _grid("""
uncongested newreno: 0.02 | 0.08 | 0.06
uncongested cubic: 0.03 | 0.06 | 0.06
uncongested compound: 0.00 | 0.02 | 0.02
mild newreno: 0.40 | 1.64 | 1.45
mild cubic: 0.13 | 1.76 | 1.54
mild compound: 0.34 | 1.56 | 1.43
heavy newreno: 0.67 | 6.53 | 5.78
heavy cubic: 0.48 | 6.98 | 6.46
heavy compound: 0.47 | 6.86 | 6.04
"""),
    "T6": _grid("""
uncongested newreno: 2.74/5.50/14.26 | 5.41/6.51/12.83 | 4.79/6.80/13.98
uncongested cubic: 4.78/9.25/16.48 | 7.34/8.62/11.68 | 6.85/9.63/12.70
uncongested compound: 8.28/10.63/11.64 | 5.67/10.93/14.88 | 6.31/11.57/13.42
mild newreno: 0.53/0.78/1.06 | 0.48/0.70/1.20 | 0.52/0.74/1.17
mild cubic: 0.00/0.01/1.93 | 0.68/0.82/1.14 | 0.72/0.90/1.16
mild compound: 0.56/0.96/1.32 | 0.47/0.67/1.19 | 0.51/0.71/1.15
heavy newreno: 0.05/0.07/0.12 | 0.08/0.10/0.13 | 0.08/0.10/0.12
heavy cubic: 0.05/0.09/0.13 | 0.08/0.09/0.13 | 0.08/0.10/0.12
heavy compound: 0.06/0.08/0.12 | 0.08/0.10/0.13 | 0.08/0.10/0.12
"""),
    "T7": _grid("""
uncongested newreno: 0.41 | 0.59 | 0.61
uncongested cubic: 0.69 | 0.86 | 0.84
uncongested compound: 0.94 | 0.82 | 0.89
mild newreno: 0.54 | 0.61 | 0.65
mild cubic: 0.24 | 0.76 | 0.80
mild compound: 0.78 | 0.59 | 0.62
heavy newreno: 0.60 | 0.87 | 0.90
heavy cubic: 0.65 | 0.87 | 0.91
heavy compound: 0.68 | 0.89 | 0.91
"""),
    "T8": _grid("""
uncongested newreno: 727 (142) | 34 (27) | 29 (23)
uncongested cubic: 772 (85) | 48 (26) | 50 (18)
uncongested compound: 167 (126) | 23 (20) | 25 (20)
mild newreno: 832 (50) | 54 (26) | 94 (36)
mild cubic: 899 (1) | 52 (22) | 91 (30)
mild compound: 830 (46) | 42 (17) | 68 (18)
heavy newreno: 891 (10) | 44 (21) | 588 (272)
heavy cubic: 894 (7) | 43 (20) | 656 (280)
heavy compound: 893 (8) | 45 (21) | 592 (281)
"""),
    "T9": _grid("""
uncongested newreno: 0.06 | 0.03 | 0.02
uncongested cubic: 0.26 | 0.12 | 0.07
uncongested compound: 0.01 | 0.01 | 0.01
mild newreno: 0.75 | 0.85 | 0.71
mild cubic: 0.89 | 1.31 | 1.15
mild compound: 0.32 | 0.48 | 0.40
heavy newreno: 11.03 | 15.82 | 11.44
heavy cubic: 13.68 | 15.54 | 12.38
heavy compound: 10.92 | 15.89 | 11.68
"""),
    # mixed TCPs: AvgThr (SD), BD %, JI per AQM
    "T10": _grid("""
uncongested newreno: 188 (37), 61, 0.97 | 128 (6), 42, 1.00 | 117 (9), 38, 1.00
uncongested cubic: 86 (5), 28, 1.00 | 109 (8), 35, 1.00 | 112 (5), 36, 1.00
uncongested compound: 34 (15), 11, 0.89 | 71 (1), 23, 1.00 | 78 (6), 25, 1.00
uncongested all: 103 (71), 100, 0.70 | 103 (26), 100, 0.95 | 103 (19), 100, 0.97
mild newreno: 21.44 (7.52), 69, 0.89 | 9.85 (0.48), 31, 1.00 | 9.84 (0.50), 31, 1.00
mild cubic: 4.55 (1.02), 15, 0.95 | 10.97 (0.51), 35, 1.00 | 10.98 (0.39), 35, 1.00
mild compound: 5.30 (1.95), 17, 0.88 | 10.47 (0.36), 33, 1.00 | 10.46 (0.37), 33, 1.00
mild all: 10.43 (9), 100, 0.57 | 10.43 (0.6), 100, 1.00 | 10.43 (0.6), 100, 1.00
heavy newreno: 0 (0), >1, 0.15 | 0.91 (0.09), 29, 0.99 | 0.95 (0.08), 30, 0.99
heavy cubic: 3.17 (2.24), ~99, 0.67 | 1.21 (0.11), 38, 0.99 | 1.16 (0.10), 37, 0.99
heavy compound: 0 (0), >1, 0.01 | 1.06 (0.09), 33, 0.99 | 1.06 (0.07), 33, 1.00
heavy all: 1.06 (2), 100, 0.22 | 1.06 (0.15), 100, 0.98 | 1.06 (0.12), 100, 0.99
"""),
    "T11": _grid("""
uncongested mixed: 825 (57), 0.07 | 168 (34), 0.08 | 168 (11), 0.08
mild mixed: 881 (20), 0.56 | 167 (27), 1.67 | 209 (22), 1.49
heavy mixed: 899 (1), 0.80 | 169 (52), 6.86 | 723 (217), 6.12
"""),
    "T12": _grid("""
uncongested newreno: 16.24 (16.28), 52, 0.60 | 11.84 (11.48), 38, 0.61 | 10.93 (10.27), 35, 0.63
uncongested cubic: 14.07 (5.99), 45, 0.89 | 13.81 (3.60), 44, 0.96 | 15.51 (2.66), 50, 0.98
uncongested compound: 0.90 (0.33), 3, 0.92 | 5.58 (2.96), 18, 0.84 | 4.77 (3.63), 15, 0.72
uncongested all: 10.40 (11.26), 100, 0.49 | 10.41 (7.23), 100, 0.70 | 10.40 (7.30), 100, 0.70
mild newreno: 1.17 (0.95), 37, 0.61 | 1.47 (1.17), 46, 0.62 | 1.42 (1.04), 45, 0.66
mild cubic: 1.67 (0.52), 53, 0.91 | 1.01 (0.21), 32, 0.96 | 1.07 (0.21), 34, 0.96
mild compound: 0.33 (0.10), 10, 0.92 | 0.70 (0.41), 22, 0.75 | 0.68 (0.36), 21, 0.79
mild all: 1.06 (0.83), 100, 0.62 | 1.06 (0.79), 100, 0.65 | 1.06 (0.71), 100, 0.69
heavy newreno: 0.17 (0.10), 54, 0.76 | 0.12 (0.05), 38, 0.86 | 0.12 (0.05), 37, 0.86
heavy cubic: 0.09 (0.03), 30, 0.89 | 0.09 (0.02), 28, 0.94 | 0.10 (0.02), 33, 0.95
heavy compound: 0.05 (0.01), 16, 0.97 | 0.11 (0.04), 33, 0.90 | 0.09 (0.02), 30, 0.94
heavy all: 0.11 (0.08), 100, 0.65 | 0.11 (0.04), 100, 0.88 | 0.11 (0.04), 100, 0.90
"""),
    "T13": _grid("""
uncongested mixed: 741 (114), 0.11 | 38 (29), 0.03 | 35 (24), 0.03
mild mixed: 856 (33), 0.87 | 58 (24), 0.91 | 89 (32), 0.82
heavy mixed: 893 (8), 12.11 | 44 (21), 15.84 | 632 (281), 11.98
"""),
}

TITLES = {
    "T2": ("data_center", "Table 2. Quartiles of flows' throughput [Mb/s], Data Center, common TCPs (Q1/median/Q3)"),
    "T3": ("data_center", "Table 3. Jain's index among flows, Data Center, common TCPs"),
    "T4": ("data_center", "Table 4. Mean (SD) queue length [pkts], Data Center, common TCPs"),
    "T5": ("data_center", "Table 5. Drop ratio [%], Data Center, common TCPs"),
    "T6": ("access_link", "Table 6. Quartiles of flows' throughput [Mb/s], Access Link, common TCPs (Q1/median/Q3)"),
    "T7": ("access_link", "Table 7. Jain's index among flows, Access Link, common TCPs"),
    "T8": ("access_link", "Table 8. Mean (SD) queue length [pkts], Access Link, common TCPs"),
    "T9": ("access_link", "Table 9. Drop ratio [%], Access Link, common TCPs"),
    "T10": ("data_center", "Table 10. Mixed TCPs, Data Center: AvgThr (SD) [Mb/s], BD [%], JI per node/TCP"),
    "T11": ("data_center", "Table 11. Mixed TCPs, Data Center: mean (SD) queue length [pkts], drop ratio [%]"),
    "T12": ("access_link", "Table 12. Mixed TCPs, Access Link: AvgThr (SD) [Mb/s], BD [%], JI per node/TCP"),
    "T13": ("access_link", "Table 13. Mixed TCPs, Access Link: mean (SD) queue length [pkts], drop ratio [%]"),
}


def jain(x) -> float:
    x = np.asarray(x, dtype=float)
    return float(x.sum() ** 2 / (len(x) * (x**2).sum())) if len(x) and (x**2).sum() > 0 else float("nan")


# The kind of each number of a cell (crosslayer.analysis.PAPER_TOLERANCES), by table.
KINDS = {
    "T2": ["rate"] * 3, "T6": ["rate"] * 3,
    "T3": ["jain"], "T7": ["jain"],
    "T4": ["queue_pkts"] * 2, "T8": ["queue_pkts"] * 2,
    "T5": ["drop_pct"], "T9": ["drop_pct"],
    "T10": ["rate", "rate", "share_pct", "jain"], "T12": ["rate", "rate", "share_pct", "jain"],
    "T11": ["queue_pkts", "queue_pkts", "drop_pct"], "T13": ["queue_pkts", "queue_pkts", "drop_pct"],
}  # fmt: skip
NUMBER = re.compile(r"([<>~]?)(\d+(?:\.\d+)?)")


def numbers(runs: pd.DataFrame, flows: pd.DataFrame, table: str, topo: str, load: str, tcp: str, aqm: str) -> list[list[float]]:
    """The numbers of one cell of ``table`` (in the paper's units and order), one list per seed
    the store holds for the cell."""
    mixed_row = table in ("T10", "T12")
    sel = (runs.topology == topo) & (runs.load == load) & (runs.tcp == ("mixed" if table in ("T10", "T11", "T12", "T13") else tcp)) & (runs.aqm == aqm)
    out = []
    for _, r in runs[sel].iterrows():
        f = flows[flows.key == r.key]
        if mixed_row:
            g = f if tcp == "all" else f[f.src == {v: k for k, v in NODE_TCP.items()}[tcp]]
            mbps = g.goodput_bps / 1e6
            out.append([mbps.mean(), mbps.std(ddof=0), 100 * g.goodput_bps.sum() / f.goodput_bps.sum(), jain(g.goodput_bps)])
        elif table in ("T2", "T6"):
            out.append(list((f.goodput_bps / 1e6).quantile([0.25, 0.5, 0.75]).to_numpy()))
        elif table in ("T3", "T7"):
            out.append([jain(f.goodput_bps)])
        elif table in ("T4", "T8"):
            out.append([r.qlen_mean_pkts, r.qlen_sd_pkts])
        elif table in ("T5", "T9"):
            out.append([100 * r.drop_ratio])
        else:  # T11, T13
            out.append([r.qlen_mean_pkts, r.qlen_sd_pkts, 100 * r.drop_ratio])
    return out


def compare(table: str, paper: str, seeds: list[list[float]]) -> tuple[str, int, int]:
    """A cell: crosslayer's numbers over the seeds written in the paper's cell layout (each as
    mean +- the 95 % half-width when there are several seeds, with the paper's decimals; in bold
    where it differs from the paper by the criterion of crosslayer.analysis.against_paper), and
    how many of its numbers agree, of how many."""
    tokens = list(NUMBER.finditer(paper))
    if not seeds or len(tokens) != len(KINDS[table]):
        return "-", 0, 0
    pieces, last, agree = [], 0, 0
    for i, (m, kind) in enumerate(zip(tokens, KINDS[table], strict=True)):
        sign, printed = m.group(1), m.group(2)
        values = [s[i] for s in seeds]
        v = against_paper(printed, values, kind)
        if sign in "<>" and sign:  # the paper gives a bound (">1": more than 1 %)
            ok = v.ours.n > 0 and (v.ours.mean > v.paper if sign == ">" else v.ours.mean < v.paper)
        else:
            ok = v.agrees
        agree += ok
        dec = len(printed.split(".")[1]) if "." in printed else 0
        text = f"{v.ours.mean:.{dec}f}" + (f"±{v.ours.half:.{dec}f}" if v.ours.n > 1 else "")
        pieces.append(paper[last : m.start()] + (text if ok else f"**{text}**"))
        last = m.end()
    pieces.append(paper[last:])
    return "".join(pieces), agree, len(tokens)


def tables(store: str, only: str = "") -> None:
    """The paper's tables (``only``: a comma-separated subset such as ``T3,T7``): each cell of
    crosslayer's as mean ± 95 % half-width over the seeds the store holds, in bold where it
    differs from the paper (criterion: crosslayer.analysis.against_paper); each table's count of
    agreeing numbers, and the total."""
    s = Store(store)
    runs, flows = s.runs(), s.flows()
    total = [0, 0]
    for t, (topo, title) in TITLES.items():
        if only and t not in only.split(","):
            continue
        counts = [0, 0]
        seeds: set[int] = set()
        lines = []
        for (load, tcp), cells in PAPER[t].items():
            mine = []
            for a, p in zip(AQMS, cells, strict=True):
                per_seed = numbers(runs, flows, t, topo, load, tcp, a)
                seeds.add(len(per_seed))
                text, ok, n = compare(t, p, per_seed)
                counts[0] += ok
                counts[1] += n
                mine.append(text)
            row = " | ".join(f"{p} | {m}" for p, m in zip(cells, mine, strict=True))
            name = "All" if tcp == "all" else TCP_NAME[tcp]
            lines.append(f"| {LOAD_ABBR[load]} | {name} | {row} |")
        n_seeds = "/".join(str(n) for n in sorted(seeds))
        print(f"\n#### {title}\n")
        print(f"crosslayer: mean ± 95 % half-width over {n_seeds} seed{'s' if seeds != {1} else ''}; **bold**: differs from the paper. "
              f"Numbers that agree: {counts[0]} of {counts[1]}.\n")  # fmt: skip
        print("| load | TCP | " + " | ".join(f"{AQM_NAME[a]} paper | {AQM_NAME[a]} crosslayer" for a in AQMS) + " |")
        print("|---|---|" + "---|---|" * len(AQMS))
        print("\n".join(lines))
        total[0] += counts[0]
        total[1] += counts[1]
    print(f"\nAll tables: {total[0]} of {total[1]} numbers agree.")


def jain_variants(store: str) -> None:
    """Jain's index of the Access Link and Data Center runs, computed several ways."""
    s = Store(store)
    flows = s.flows()
    rows = []
    for (topo, tcp, load, aqm), g in flows.groupby(["topology", "tcp", "load", "aqm"]):
        rows.append(
            {
                "topology": topo,
                "tcp": tcp,
                "load": load,
                "aqm": aqm,
                "flows, goodput": jain(g.goodput_bps),
                "flows, sender throughput": jain(g.throughput_bps),
                "host pairs (mean per flow)": jain(g.groupby(["src", "dst"]).goodput_bps.mean()),
                "sender nodes (sum)": jain(g.groupby("src").goodput_bps.sum()),
            }
        )
    d = pd.DataFrame(rows)
    ways = ["flows, goodput", "flows, sender throughput", "host pairs (mean per flow)", "sender nodes (sum)"]
    for topo in ("access_link", "data_center"):
        print(f"\n{topo}: Jain's index DT / PIE / CoDel, four ways\n")
        print("| TCP | load | " + " | ".join(ways) + " |")
        print("|---|---|" + "---|" * len(ways))
        for tcp in [*TCPS, "mixed"]:
            for load in LOADS:
                g = d[(d.topology == topo) & (d.tcp == tcp) & (d.load == load)].set_index("aqm")
                if g.empty:
                    continue
                cells = [" / ".join(f"{g.loc[a, w]:.2f}" for a in AQMS) for w in ways]
                print(f"| {TCP_NAME[tcp]} | {load} | " + " | ".join(cells) + " |")


def rtt(store: str, topo: str = "access_link") -> None:
    """Per AQM: mean goodput of the flows of each host pair (base RTT) and their measured RTT."""
    s = Store(store)
    flows = s.flows()
    f = flows[(flows.topology == topo) & (flows.tcp != "mixed")]
    for load in LOADS:
        g = f[f.load == load]
        t = g.groupby(["base_rtt_s", "aqm"]).agg(goodput=("goodput_bps", "mean"), rtt=("rtt_mean_s", "mean")).reset_index()
        t["goodput"] = t.goodput / 1e6 * (1 if load == "uncongested" else (10 if load == "mild" else 100))
        t["rtt"] *= 1e3
        p = t.pivot(index="base_rtt_s", columns="aqm")
        print(f"\n{topo}, {load}, New Reno + Cubic + Compound pooled: goodput per host pair [Mb/s, x{dict(uncongested=1, mild=10, heavy=100)[load]}] and mean RTT [ms]\n")
        out = pd.DataFrame({"base RTT [ms]": (p.index * 1e3).round(0)})
        for a in AQMS:
            out[f"{AQM_NAME[a]} goodput"] = p[("goodput", a)].to_numpy().round(2)
            out[f"{AQM_NAME[a]} RTT"] = p[("rtt", a)].to_numpy().round(0)
        print(out.to_markdown(index=False))
        # Jain over flows if each flow's goodput were 1 / (its mean RTT) (ack clocking with equal
        # windows) or 1 / RTT^2 (Reno's loss-rate response with a common loss rate... see text)
        # If every flow's goodput were proportional to 1 / (its mean RTT), Jain's index over the
        # flows would be that of 1 / RTT; the fitted exponent k of goodput ~ RTT^-k says how
        # close each run is to that.
        for a in AQMS:
            ga = g[(g.aqm == a) & g.rtt_mean_s.notna() & (g.goodput_bps > 0)]
            fits = [np.polyfit(np.log(h.rtt_mean_s), np.log(h.goodput_bps), 1)[0] for _, h in ga.groupby("key")]
            pair_rtt = ga.groupby(["src", "dst"]).rtt_mean_s.mean()
            print(f"  {AQM_NAME[a]}: host pairs' mean RTT max/min {pair_rtt.max() / pair_rtt.min():.1f}; "
                  f"Jain of 1/RTT over the 9 pairs {jain(1 / pair_rtt):.2f}; "
                  f"exponent k of goodput ~ RTT^-k, per run (mean of {len(fits)}): {-np.mean(fits):.2f}; "
                  f"measured Jain (mean of the runs) {ga.groupby('key').goodput_bps.apply(jain).mean():.2f}")


def fairness(store: str) -> None:
    """The seed000-access-fairness study: Jain's index (mean over seeds, min-max) per profile x
    cc x load x queue; queue mean; drop ratio."""
    s = Store(store)
    runs, flows = s.runs(), s.flows()
    per = flows.groupby("key").goodput_bps.apply(jain).rename("jain_flows")
    runs = runs.join(per, on="key")
    aqms = ["droptail", "droptail_50", "pie", "pie_5ms", "codel"]
    for metric, fmt in (("jain_flows", "{:.2f}"), ("qlen_mean_pkts", "{:.0f}"), ("drop_ratio", "{:.2%}")):
        print(f"\n{metric}: mean over seeds (min-max)\n")
        print("| profile | cc | load | " + " | ".join(aqms) + " |")
        print("|---|---|---|" + "---|" * len(aqms))
        for prof in ["linux", "ns3"]:
            for cc in ["reno", "cubic", "compound"]:
                for load in LOADS:
                    cells = []
                    for a in aqms:
                        v = runs[(runs.profile == prof) & (runs.tcp_cc == cc) & (runs.load == load) & (runs.aqm == a)][metric]
                        if not len(v):
                            cells.append("-")
                        elif metric == "jain_flows":
                            cells.append(f"{v.mean():.2f} ({v.min():.2f}-{v.max():.2f})")
                        else:
                            cells.append(fmt.format(v.mean()))
                    print(f"| {prof} | {cc} | {load} | " + " | ".join(cells) + " |")


def ns3pairs(store: str, results: str = "validation/results") -> None:
    """Access Link, 90 Cubic flows, run/seed 1: mean goodput per flow of each host pair in ns-3
    3.44 (``results``/access-pp10-run1.ns3.json and aqm/access-pp10-run1.ns3-<aqm>.json) and in
    crosslayer's ns3 profile (the seed000-access-fairness store)."""
    import collections
    import json

    def ns3(path: Path) -> dict[str, float]:
        acc: dict[str, list[float]] = collections.defaultdict(list)
        for r in json.loads(path.read_text())["flows"]:
            acc[r["name"].split(".")[0]].append(r["goodput_bps"] / 1e6)
        return {k: float(np.mean(v)) for k, v in acc.items()}

    d = Path(results)
    cols = {"ns-3 DT": ns3(d / "access-pp10-run1.ns3.json")}
    for a, name in (("pie", "PIE"), ("pie5ms", "PIE 5 ms"), ("codel", "CoDel")):
        cols[f"ns-3 {name}"] = ns3(d / "aqm" / f"access-pp10-run1.ns3-{a}.json")
    f = Store(store).flows()
    f = f[(f.profile == "ns3") & (f.tcp_cc == "cubic") & (f.load == "mild") & (f.seed == 1)]
    for a, name in (("droptail", "DT"), ("pie", "PIE"), ("pie_5ms", "PIE 5 ms"), ("codel", "CoDel")):
        g = f[f.aqm == a]
        cols[f"crosslayer ns3 {name}"] = (g.groupby(g.src + "-" + g.dst).goodput_bps.mean() / 1e6).to_dict()
    rtt = {"N1-N4": 8, "N2-N4": 32, "N3-N4": 58, "N1-N5": 78, "N2-N5": 102, "N3-N5": 128, "N1-N6": 154, "N2-N6": 178, "N3-N6": 204}
    print("| pair (base RTT) | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for k, ms in rtt.items():
        print(f"| {k} ({ms} ms) | " + " | ".join(f"{c[k]:.2f}" for c in cols.values()) + " |")


def pie_estimator(store: str, rfc8033: str) -> None:
    """PIE with Linux's timestamp estimator (the ``pie`` cells of ``store``) against the paper's
    dequeue-rate estimator (RFC 8033; every run of ``rfc8033``, the same points with
    ``variant = "rfc8033"``): drop ratio, queue and Jain's index, mean ± 95 % half-width over
    the seeds, and the difference in the drop ratio."""
    from crosslayer.analysis import interval95

    a = Store(store).runs()
    a = a[a.aqm == "pie"]
    b = Store(rfc8033).runs()

    def cell(runs: pd.DataFrame, topo: str, tcp: str, load: str, metric: str, scale: float, dec: int) -> tuple[str, float]:
        v = interval95(scale * runs[(runs.topology == topo) & (runs.tcp == tcp) & (runs.load == load)][metric])
        return f"{v.mean:.{dec}f}±{v.half:.{dec}f}", v.mean

    print("| scenario | TCP | load | drop ratio %, timestamps | drop ratio %, dequeue rate | queue pkts, timestamps | queue pkts, dequeue rate | Jain, timestamps | Jain, dequeue rate |")
    print("|---|---|---|---|---|---|---|---|---|")
    for topo in ("data_center", "access_link"):
        for tcp in [*TCPS, "mixed"]:
            for load in LOADS:
                cells = []
                for metric, scale, dec in (("drop_ratio", 100, 2), ("qlen_mean_pkts", 1, 0), ("jain", 1, 2)):
                    cells += [cell(a, topo, tcp, load, metric, scale, dec)[0], cell(b, topo, tcp, load, metric, scale, dec)[0]]
                print(f"| {topo} | {TCP_NAME[tcp]} | {LOAD_ABBR[load]} | " + " | ".join(cells) + " |")


def sensitivity(*stores: str) -> None:
    """The Access Link under other choices: each ``label=store`` (the first the reference), per
    load over the three common TCPs and five seeds, Jain's index, the queue and the drop ratio
    for DT / PIE / CoDel, and in how many of the 9 (TCP, load) cells Drop Tail is the fairest."""
    print("| choice | load | Jain DT / PIE / CoDel | queue pkts DT / PIE / CoDel | drops % DT / PIE / CoDel | cells with DT fairest |")
    print("|---|---|---|---|---|---|")
    for item in stores:
        label, _, path = item.partition("=")
        r = Store(path).runs()
        r = r[(r.topology == "access_link") & r.tcp.isin(TCPS)]
        per = r.groupby(["tcp", "load", "aqm"]).jain.mean().unstack("aqm")
        fairest = int(((per["droptail"] > per["pie"]) & (per["droptail"] > per["codel"])).sum())
        for load in LOADS:
            g = r[r.load == load].groupby("aqm")
            j, q, d = g.jain.mean(), g.qlen_mean_pkts.mean(), 100 * g.drop_ratio.mean()
            cells = [" / ".join(fmt.format(x[a]) for a in AQMS) for x, fmt in ((j, "{:.2f}"), (q, "{:.0f}"), (d, "{:.2f}"))]
            print(f"| {label} | {LOAD_ABBR[load]} | " + " | ".join(cells) + f" | {fairest} of {len(per)} |")


def _need_stores(*args: str) -> None:
    """Exit with a message (not a traceback) when an argument that names a store is not one."""
    for a in args:
        path = a.partition("=")[2] if "=" in a else a
        if not (Path(path) / "runs").is_dir():
            sys.exit(f"{path} is not a result store (no runs/ folder): run the `crosslayer study run` command at the top of this file first")


if __name__ == "__main__":
    cmd, store, *rest = sys.argv[1:]
    _need_stores(store, *(rest if cmd in ("pie", "sensitivity") else []))
    {"tables": tables, "jain": jain_variants, "rtt": rtt, "fairness": fairness, "ns3pairs": ns3pairs, "pie": pie_estimator, "sensitivity": sensitivity}[cmd](store, *rest)
