#!/usr/bin/env python3
"""crosslayer's side of the two-way comparison with ns-3 (docs/validation/two_way_ns3.md).

    python validation/two_way_compare.py crosslayer   # 4 runs: {alone, both} x {ns3, linux}
    python validation/two_way_compare.py table        # the doc's table, ns-3 JSON included
    python validation/two_way_compare.py starts       # the reverse flow from 3, 5 and 7 s
    python validation/two_way_compare.py sweep        # crosslayer only: reverse from 1-10 s
    python validation/two_way_compare.py ablate       # profile ns3 with one Linux value at a time

``crosslayer`` runs validation/two_way.toml with ``[tcp] profile`` = "ns3" and "linux", with both
flows (``both``) and with the forward flow only (``alone``), and writes one JSON per run to
validation/results/two_way/ in the shape validation/ns3/two_way.py writes (flows; queues A->B
and B->A). ``table`` reads those and ns3-alone.json / ns3-both.json (written by
``~/ns3env/bin/python validation/ns3/two_way.py --case both --out
validation/results/two_way/ns3-both.json``, and ``--case alone``).
"""
from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIO = HERE / "two_way.toml"
OUT = HERE / "results" / "two_way"
COLUMNS = ["crosslayer-ns3", "crosslayer-linux", "ns3"]


STARTS = (3.0, 4.0, 6.0, 7.0)  # other starts of the reverse flow (the scenario's is 5 s)


def _run(profile: str, case: str, reverse_start: float | None = None, tcp: dict | None = None):
    import crosslayer  # noqa: PLC0415

    sc = tomllib.loads(SCENARIO.read_text())
    sc["tcp"] = {"profile": profile, **(tcp or {})}
    if case == "alone":
        sc["flows"] = sc["flows"][:1]
    elif reverse_start is not None:
        sc["flows"][1]["start"] = f"{reverse_start:g}s"
    return crosslayer.run(sc)


def run_crosslayer() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    runs = [(p, c, None) for p in ("ns3", "linux") for c in ("alone", "both")]
    runs += [(p, "both", st) for p in ("ns3", "linux") for st in STARTS]
    for profile, case, start in runs:
        if True:
            r = _run(profile, case, start)
            f, q = r.flows, r.queues
            acks = dict(zip(f["direction"], f["acks_sent"]))
            flows = [{
                "name": row["name"], "direction": row["direction"],
                "goodput_bps": float(row["goodput_bps"]),
                "retransmissions": int(row["retransmits"]),
                "fast_recoveries": int(row["fast_recoveries"]),
                "rto": int(row["timeouts"]),
                "rtt_mean_s": float(row["rtt_mean_s"]), "rtt_min_s": float(row["rtt_min_s"]),
                "rtt_samples": int(row["rtt_samples"]),
            } for row in f.to_dict("records")]
            queues = {}
            for row in q.to_dict("records"):
                if row["link"] not in ("A->B", "B->A"):
                    continue
                # the data crossing a router link is its direction's flow's; the ACKs the other's
                data_dir, ack_dir = (("forward", "reverse") if row["link"] == "A->B"
                                     else ("reverse", "forward"))
                queues[row["link"]] = {
                    "arrivals": int(row["arrivals"]), "drops": int(row["drops"]),
                    "drop_ratio": float(row["drop_ratio"]),
                    "qlen_mean_pkts": float(row["qlen_mean_pkts"]),
                    "qlen_sd_pkts": float(row["qlen_sd_pkts"]),
                    "utilization": float(row["utilization"]),
                    "tx_pkts": int(row["tx_pkts"]),
                    "acks_sent_by_other_flow": int(acks.get(ack_dir, 0)),
                    "data_flow": data_dir,
                }
            out = {"simulator": f"crosslayer profile {profile}", "case": case,
                   "flows": flows, "queues": queues}
            tail = f"-start{start:g}" if start is not None else ""
            path = OUT / f"crosslayer-{profile}-{case}{tail}.json"
            path.write_text(json.dumps(out, indent=1) + "\n")
            print(path.name, [round(x["goodput_bps"] / 1e6, 2) for x in flows],
                  {k: round(v["utilization"], 3) for k, v in queues.items()}, file=sys.stderr)


def _load(col: str, case: str) -> dict | None:
    name = {"crosslayer-ns3": "crosslayer-ns3", "crosslayer-linux": "crosslayer-linux", "ns3": "ns3"}[col]
    p = OUT / f"{name}-{case}.json"
    return json.loads(p.read_text()) if p.exists() else None


def _flow(r: dict, direction: str) -> dict | None:
    return next((f for f in r["flows"] if f["direction"] == direction), None)


def table() -> None:
    metrics = [
        ("goodput S->R (forward), Mb/s", lambda r: _fmt(_flow(r, "forward"), "goodput_bps", 1e-6, 2)),
        ("goodput R->S (reverse), Mb/s", lambda r: _fmt(_flow(r, "reverse"), "goodput_bps", 1e-6, 2)),
        ("utilization A->B", lambda r: f"{r['queues']['A->B']['utilization']:.3f}"),
        ("utilization B->A", lambda r: f"{r['queues']['B->A']['utilization']:.3f}"),
        ("queue mean A->B, pkts (SD)", lambda r: _q(r, "A->B")),
        ("queue mean B->A, pkts (SD)", lambda r: _q(r, "B->A")),
        ("drops A->B", lambda r: str(r["queues"]["A->B"]["drops"])),
        ("drops B->A", lambda r: str(r["queues"]["B->A"]["drops"])),
        ("mean RTT forward, ms", lambda r: _fmt(_flow(r, "forward"), "rtt_mean_s", 1e3, 1)),
        ("mean RTT reverse, ms", lambda r: _fmt(_flow(r, "reverse"), "rtt_mean_s", 1e3, 1)),
        ("retransmissions fwd / rev", lambda r: " / ".join(
            str(f["retransmissions"]) for f in r["flows"])),
        ("fast recoveries fwd / rev", lambda r: " / ".join(
            str(f["fast_recoveries"]) for f in r["flows"])),
        ("timeouts fwd / rev", lambda r: " / ".join(str(f["rto"]) for f in r["flows"])),
    ]
    for case, title in (("alone", "one forward CUBIC flow alone"),
                        ("both", "one forward + one reverse CUBIC flow")):
        runs = {c: _load(c, case) for c in COLUMNS}
        cols = [c for c in COLUMNS if runs[c]]
        print(f"\n### {title}\n")
        print("| metric | " + " | ".join(cols) + " |")
        print("|---|" + "---|" * len(cols))
        for name, fn in metrics:
            print(f"| {name} | " + " | ".join(fn(runs[c]) for c in cols) + " |")


def starts() -> None:
    print("\n| reverse flow from | simulator | goodput fwd / rev, Mb/s | utilization A->B / B->A "
          "| queue mean A->B / B->A, pkts | drops A->B / B->A |")
    print("|---|---|---|---|---|---|")
    for st in (3.0, 4.0, 5.0, 6.0, 7.0):
        for col in COLUMNS:
            case = "both" if st == 5.0 else f"both-start{st:g}"
            r = _load(col, case)
            if r is None:
                continue
            g = " / ".join(f"{f['goodput_bps'] / 1e6:.2f}" for f in r["flows"])
            ab, ba = r["queues"]["A->B"], r["queues"]["B->A"]
            print(f"| {st:g} s | {col} | {g} | {ab['utilization']:.3f} / {ba['utilization']:.3f} | "
                  f"{ab['qlen_mean_pkts']:.1f} / {ba['qlen_mean_pkts']:.1f} | "
                  f"{ab['drops']} / {ba['drops']} |")


def sweep() -> None:
    """crosslayer only (ns-3 takes about 40 s a run): the reverse flow from 1.0 to 10.0 s in
    0.25 s steps, both profiles; min, median and max over the 37 starts."""
    import statistics  # noqa: PLC0415

    print("\n| crosslayer | runs | goodput sum fwd + rev, Mb/s: min / median / max "
          "| utilization, mean of A->B and B->A: min / median / max | runs with both utilizations > 0.8 |")
    print("|---|---|---|---|---|")
    for profile in ("ns3", "linux"):
        tot, util, high = [], [], 0
        for i in range(37):
            r = _run(profile, "both", 1.0 + 0.25 * i)
            tot.append(float(r.flows["goodput_bps"].sum()) / 1e6)
            q = r.queues.set_index("link")["utilization"]
            util.append((q["A->B"] + q["B->A"]) / 2)
            high += bool(q["A->B"] > 0.8 and q["B->A"] > 0.8)
        print(f"| profile {profile} | {len(tot)} | {min(tot):.1f} / {statistics.median(tot):.1f} / "
              f"{max(tot):.1f} | {min(util):.3f} / {statistics.median(util):.3f} / {max(util):.3f} | {high} |")


ABLATIONS = [
    ("header_size = ack_size = 52B", {"header_size": "52B", "ack_size": "52B"}),
    ("delack_timeout = 40ms", {"delack_timeout": "40ms"}),
    ("quickack = 16", {"quickack": 16}),
    ("min_rto = 200ms", {"min_rto": "200ms"}),
    ("rack = tlp = true", {"rack": True, "tlp": True}),
    ("slow_start = linux", {"slow_start": "linux"}),
    ("prr_dupack_credit = false", {"prr_dupack_credit": False}),
    ("partial_ack_retransmit = false", {"partial_ack_retransmit": False}),
    ("nextseg_rules = 2", {"nextseg_rules": 2}),
    ("rtt_samples = karn_then_timestamps", {"rtt_samples": "karn_then_timestamps"}),
    ("rto_rule = linux", {"rto_rule": "linux"}),
]


def ablate() -> None:
    """Both flows, reverse from 5 s: profile ns3 with one Linux value at a time, and profile linux."""
    print("\n| crosslayer | goodput fwd / rev, Mb/s | utilization A->B / B->A | queue mean A->B / B->A "
          "| drops A->B / B->A |")
    print("|---|---|---|---|---|")
    rows = [("profile ns3", "ns3", {})] + [(f"profile ns3, {n}", "ns3", t) for n, t in ABLATIONS]
    rows.append(("profile linux", "linux", {}))
    for name, profile, tcp in rows:
        r = _run(profile, "both", tcp=tcp)
        g = " / ".join(f"{x / 1e6:.2f}" for x in r.flows["goodput_bps"])
        q = r.queues.set_index("link")
        print(f"| {name} | {g} | {q.loc['A->B', 'utilization']:.3f} / {q.loc['B->A', 'utilization']:.3f} | "
              f"{q.loc['A->B', 'qlen_mean_pkts']:.1f} / {q.loc['B->A', 'qlen_mean_pkts']:.1f} | "
              f"{q.loc['A->B', 'drops']} / {q.loc['B->A', 'drops']} |")


def _fmt(row: dict | None, key: str, scale: float, nd: int) -> str:
    if row is None or row.get(key) is None:
        return "-"
    return f"{row[key] * scale:.{nd}f}"


def _q(r: dict, link: str) -> str:
    q = r["queues"][link]
    return f"{q['qlen_mean_pkts']:.1f} ({q['qlen_sd_pkts']:.1f})"


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "table"
    if cmd == "crosslayer":
        run_crosslayer()
    elif cmd == "table":
        table()
    elif cmd == "starts":
        starts()
    elif cmd == "sweep":
        sweep()
    elif cmd == "ablate":
        ablate()
    else:
        sys.exit(f"usage: {sys.argv[0]} crosslayer|table|starts|sweep|ablate")
