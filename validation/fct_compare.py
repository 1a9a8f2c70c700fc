#!/usr/bin/env python3
"""Flow completion times against ns-3 3.44 (docs/validation/fct-websearch.md): studies/fct-ns3.toml
(web-search flow sizes arriving at half of a 100 Mb/s, 100-packet DropTail bottleneck from four
senders, CUBIC, ``[tcp] profile = "ns3"``) run by crosslayer, and the same flows replayed in
ns-3 by validation/ns3/fct_websearch.py, 5 seeds.

    python validation/fct_compare.py crosslayer           # 5 crosslayer runs, and the flow lists for ns-3
    python validation/fct_compare.py ns3 [NS3_PYTHON]     # ns-3 on each flow list (skips cached runs;
                                                          #   default $NS3_PYTHON or ~/ns3env/bin/python)
    python validation/fct_compare.py table                # the page's tables; exit 1 if a check fails
    python validation/fct_compare.py all [NS3_PYTHON]     # the three in turn

``--seeds N`` (after the command) uses seeds 1..N instead of 1..5. A control, crosslayer against
itself:

    python validation/fct_compare.py jitter               # replay each flow list, each start + 0-999 ns
    python validation/fct_compare.py table --ref crosslayer-jitter

The ns3 profile's rules found against ns-3, each turned back on its own (totals over the seeds):

    python validation/fct_compare.py ablate --seeds 20

Paired workload: for seed k crosslayer draws the arrivals (sender, start, size) and runs them;
its flows table gives the flow list (flows-k.json) that ns-3 replays, so both simulators carry
exactly the same flows and differ only in how they carry them. A flow's slowdown is its FCT
(first SYN to the delivery of its last byte) over crosslayer's ideal FCT of that flow (alone on
its path, unlimited window): the topology is the same, and a lone flow completes at the same
nanosecond in both (checked for 4 kB, at its ideal, and 100 kB and 5 MB, after slow start).

The check, per size bin, for the mean and the 99th percentile of the slowdown (each computed
per seed, then averaged over the seeds): crosslayer's value lies within ns-3's range over its
seeds, or within 15 % of ns-3's mean. JSON per run goes to validation/results/fct_websearch/
(crosslayer-k.json, flows-k.json, ns3-k.json).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
STUDY = ROOT / "studies" / "fct-ns3.toml"
OUT = HERE / "results" / "fct_websearch"
SEEDS = range(1, 6)
SENDERS = ["H1", "H2", "H3", "H4"]
TOLERANCE = 0.15


def run_crosslayer(seeds: range = SEEDS) -> None:
    """Run the study for every seed; write its flows and the flow list ns-3 replays."""
    import crosslayer
    from crosslayer.scenario import Scenario

    OUT.mkdir(parents=True, exist_ok=True)
    base = Scenario.from_toml(STUDY)
    for k in seeds:
        r = crosslayer.run(base.with_overrides(seed=k))
        f = r.flows
        rows = [{
            "name": row.name, "src": row.src, "start_s": float(row.start_s), "start_ns": round(float(row.start_s) * 1e9),
            "size_bytes": int(row.size_bytes), "fct_s": float(row.fct_s), "ideal_fct_s": float(row.ideal_fct_s),
            "slowdown": float(row.slowdown), "retransmissions": int(row.retransmits), "timeouts": int(row.timeouts),
            "syn_retransmissions": int(row.syn_retransmits), "bytes_left": int(row.bytes_left),
        } for row in f.itertuples()]
        q = r.queues.set_index("link")
        result = {
            "simulator": f"crosslayer {crosslayer.__version__}", "seed": k, "duration_s": float(r.summary["sim_s"]),
            "flows": rows, "completed": sum(not math.isnan(x["fct_s"]) for x in rows),
            "bottleneck": {"arrivals": int(q.loc["A->B", "arrivals"]), "drops": int(q.loc["A->B", "drops"]),
                           "mean_pkts": float(q.loc["A->B", "qlen_mean_pkts"])},
            "run_wall_s": float(r.summary["wall_s"]), "events": int(r.summary["events"]),
        }
        (OUT / f"crosslayer-{k}.json").write_text(json.dumps(result, indent=1))
        flows = {"study": "studies/fct-ns3.toml", "seed": k, "senders": SENDERS, "duration_s": result["duration_s"],
                 "flows": [{"name": x["name"], "sender": SENDERS.index(x["src"]), "start_ns": x["start_ns"], "size_bytes": x["size_bytes"]} for x in rows]}
        (OUT / f"flows-{k}.json").write_text(json.dumps(flows, indent=1))
        print(f"wrote {OUT / f'crosslayer-{k}.json'} and flows-{k}.json ({len(rows)} flows)")


def run_ns3(python: str, seeds: range = SEEDS) -> None:
    """ns-3 on each seed's flow list, one at a time; a seed whose ns3-k.json exists is skipped."""
    for k in seeds:
        out, flows = OUT / f"ns3-{k}.json", OUT / f"flows-{k}.json"
        if out.exists():
            print(f"cached {out}")
            continue
        if not flows.exists():
            run_crosslayer(seeds)
        duration = json.loads(flows.read_text())["duration_s"]
        subprocess.run([python, str(HERE / "ns3" / "fct_websearch.py"), "--flows", str(flows), "--out", str(out), "--duration", str(duration)], check=True)
        print(f"wrote {out}")


def run_jitter(seeds: range = SEEDS) -> None:
    """crosslayer against itself: replay each seed's flow list as explicit flows, once as drawn
    (which must reproduce crosslayer-k.json to the nanosecond) and once with each start moved
    later by its own random 0-999 ns (crosslayer-jitter-k.json; Python's random.Random(k)): how
    far a perturbation below every time scale of the network (a 1502-byte packet takes 12 us at
    1 Gb/s, 120 us at 100 Mb/s) moves the same statistics."""
    import random
    import tomllib

    import crosslayer

    base = tomllib.loads(STUDY.read_text())
    del base["arrivals"]
    for k in seeds:
        listed = json.loads((OUT / f"flows-{k}.json").read_text())["flows"]
        drawn = json.loads((OUT / f"crosslayer-{k}.json").read_text())
        rng = random.Random(k)
        jitter = [rng.randrange(1000) for _ in listed]
        for shifts, out in (([0] * len(listed), None), (jitter, OUT / f"crosslayer-jitter-{k}.json")):
            flows = [{"src": SENDERS[f["sender"]], "dst": "R", "cc": "cubic", "size": f"{f['size_bytes']}B",
                      "start": f"{f['start_ns'] + d}ns"} for f, d in zip(listed, shifts, strict=True)]
            r = crosslayer.run({**base, "seed": k, "flows": flows})
            fct = [float(v) for v in r.flows["fct_s"]]
            if out is None:
                same = sum(a == b["fct_s"] or (math.isnan(a) and math.isnan(b["fct_s"])) for a, b in zip(fct, drawn["flows"], strict=True))
                print(f"seed {k}: the replay reproduces {same} of {len(fct)} completion times")
                continue
            rows = [{"name": f["name"], "size_bytes": f["size_bytes"], "fct_s": v, "retransmissions": int(row.retransmits),
                     "timeouts": int(row.timeouts), "syn_retransmissions": int(row.syn_retransmits)}
                    for f, v, row in zip(listed, fct, r.flows.itertuples(), strict=True)]
            q = r.queues.set_index("link")
            result = {"simulator": f"crosslayer {crosslayer.__version__}, each start + 0-999 ns", "seed": k,
                      "duration_s": float(r.summary["sim_s"]), "flows": rows,
                      "bottleneck": {"arrivals": int(q.loc["A->B", "arrivals"]), "drops": int(q.loc["A->B", "drops"]),
                                     "mean_pkts": float(q.loc["A->B", "qlen_mean_pkts"])},
                      "run_wall_s": float(r.summary["wall_s"]), "events": int(r.summary["events"])}
            out.write_text(json.dumps(result, indent=1))
            print(f"wrote {out}")


REFERENCES = {"ns3": "ns-3", "crosslayer-jitter": "crosslayer jittered"}


def _tables(seeds: range = SEEDS, ref: str = "ns3") -> tuple[pd.DataFrame, pd.DataFrame]:
    """crosslayer's flows and the reference's (ns-3's), one row per (seed, flow); the
    reference's slowdown is over crosslayer's ideal FCT of the same flow."""
    cl, other = [], []
    for k in seeds:
        c = pd.DataFrame(json.loads((OUT / f"crosslayer-{k}.json").read_text())["flows"]).assign(seed=k)
        n = pd.DataFrame(json.loads((OUT / f"{ref}-{k}.json").read_text())["flows"]).assign(seed=k)
        if list(c["name"]) != list(n["name"]) or list(c["size_bytes"]) != list(n["size_bytes"]):
            raise SystemExit(f"seed {k}: {ref}-{k}.json does not carry crosslayer-{k}.json's flows (stale cache? delete it)")
        n["ideal_fct_s"] = c["ideal_fct_s"].to_numpy()
        n["slowdown"] = n["fct_s"] / n["ideal_fct_s"]
        cl.append(c)
        other.append(n)
    cl_t, other_t = pd.concat(cl, ignore_index=True), pd.concat(other, ignore_index=True)
    for t in (cl_t, other_t):
        t["completed"] = t["fct_s"].notna()
    return cl_t, other_t


def table(seeds: range = SEEDS, ref: str = "ns3") -> int:
    from crosslayer.fct import SIZE_BINS, _bin_label, slowdown_by_size

    name = REFERENCES[ref]
    cl, other = _tables(seeds, ref)
    bins = {"crosslayer": slowdown_by_size(cl, ("seed",)), ref: slowdown_by_size(other, ("seed",))}
    labels = list(dict.fromkeys(bins["crosslayer"]["size_bin"]))

    def fmt(v: float) -> str:
        return f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"

    def spread(v: list[float]) -> str:
        return f"{fmt(statistics.mean(v))} ({fmt(min(v))}-{fmt(max(v))})"

    print(f"Slowdown per size bin, seeds {seeds.start}-{seeds.stop - 1}: the mean over the seeds of each seed's value (its range over the seeds).\n")
    print(f"| size bin | flows (completed) crosslayer / {name} | seeds | mean crosslayer | mean {name} | check | p99 crosslayer | p99 {name} | check |")
    print("|---|---|---|---|---|---|---|---|---|")
    failed = 0
    for label in labels:
        b = {s: t[t["size_bin"] == label].set_index("seed") for s, t in bins.items()}
        common = sorted(set(b["crosslayer"].index) & set(b[ref].index))
        cells = []
        for metric in ("slowdown_mean", "slowdown_p99"):
            c = [float(b["crosslayer"].loc[k, metric]) for k in common if not math.isnan(b["crosslayer"].loc[k, metric])]
            n = [float(b[ref].loc[k, metric]) for k in common if not math.isnan(b[ref].loc[k, metric])]
            mc, mn = statistics.mean(c), statistics.mean(n)
            ok = min(n) <= mc <= max(n) or abs(mc - mn) <= TOLERANCE * mn
            failed += not ok
            cells += [spread(c), spread(n), f"{'ok' if ok else 'FAIL'} ({(mc - mn) / mn * 100:+.0f} %)"]
        counts = f"{int(b['crosslayer']['flows'].sum())} ({int(b['crosslayer']['completed'].sum())}) / {int(b[ref]['flows'].sum())} ({int(b[ref]['completed'].sum())})"
        print(f"| {label} | {counts} | {len(common)} | " + " | ".join(cells) + " |")

    # The same flows in both: how often does a flow finish at the same time, and how do they differ?
    print(f"\nThe same flows in both: FCT ratio {name} / crosslayer per flow.\n")
    print(f"| size bin | completed in both | FCT equal (within 1 us) | within 5 % | median ratio | flows with a timeout or SYN retransmission crosslayer / {name} |")
    print("|---|---|---|---|---|---|")
    which = pd.cut(cl["size_bytes"].astype(float), bins=list(SIZE_BINS), right=False, labels=[_bin_label(lo, hi) for lo, hi in itertools.pairwise(SIZE_BINS)])
    for label in labels:
        m = (which == label).to_numpy()
        both = m & cl["completed"].to_numpy() & other["completed"].to_numpy()
        a, b_ = cl["fct_s"][both].to_numpy(), other["fct_s"][both].to_numpy()
        equal, close = int((abs(b_ - a) <= 1e-6).sum()), int((abs(b_ / a - 1) <= 0.05).sum())
        stalls = [int(((t["timeouts"] > 0) | (t["syn_retransmissions"] > 0))[m].sum()) for t in (cl, other)]
        print(f"| {label} | {both.sum()} | {equal} | {close} | {statistics.median(b_ / a):.3f} | {stalls[0]} / {stalls[1]} |")

    print(f"\nTotals over the seeds (crosslayer / {name}):\n")
    print("| flows | completed | bottleneck drops | mean bottleneck queue, pkts | data retransmissions | timeouts | SYN retransmissions |")
    print("|---|---|---|---|---|---|---|")
    runs = {s: [json.loads((OUT / f"{s}-{k}.json").read_text()) for k in seeds] for s in ("crosslayer", ref)}
    drops = {s: sum(r["bottleneck"]["drops"] for r in rs) for s, rs in runs.items()}
    queue = {s: statistics.mean(r["bottleneck"]["mean_pkts"] for r in rs) for s, rs in runs.items()}
    print(f"| {len(cl)} / {len(other)} | {int(cl['completed'].sum())} / {int(other['completed'].sum())} | {drops['crosslayer']} / {drops[ref]} | "
          f"{queue['crosslayer']:.2f} / {queue[ref]:.2f} | "
          f"{int(cl['retransmissions'].sum())} / {int(other['retransmissions'].sum())} | {int(cl['timeouts'].sum())} / {int(other['timeouts'].sum())} | "
          f"{int(cl['syn_retransmissions'].sum())} / {int(other['syn_retransmissions'].sum())} |")
    walls = {s: [r["run_wall_s"] for r in rs] for s, rs in runs.items()}
    mw = {s: statistics.mean(w) for s, w in walls.items()}
    print(f"\nwall time per {runs[ref][0]['duration_s']:.0f} s run (Simulator::Run / engine loop), mean (range) over the seeds: "
          f"{name} {mw[ref]:.3f} s ({min(walls[ref]):.3f}-{max(walls[ref]):.3f}), "
          f"crosslayer {mw['crosslayer']:.3f} s ({min(walls['crosslayer']):.3f}-{max(walls['crosslayer']):.3f}), ratio {mw[ref] / mw['crosslayer']:.0f}")
    return 1 if failed else 0


ABLATIONS = {
    "fin_ack = \"piggyback\"": {"tcp.fin_ack": "piggyback"},
    "disorder_growth = true": {"tcp.disorder_growth": True},
    "exit_ack_growth = false": {"tcp.exit_ack_growth": False},
    "sacked_retransmission_in_flight = false": {"tcp.sacked_retransmission_in_flight": False},
    "lost_head_kept = false": {"tcp.lost_head_kept": False},
    "nextseg_rule3_bound = \"highest_sack\"": {"tcp.nextseg_rule3_bound": "highest_sack"},
    "teardown = false": {"tcp.teardown": False},
    "bottleneck limit 100": {"topology.bottleneck.qdisc.limit_pkts": 100},
}
"""The ns3 profile's rules found against ns-3 (docs/validation/fct-websearch.md, "How the gap
closed"), each turned back to the Linux rule on its own."""


def ablate(seeds: range) -> int:
    """Totals over the seeds with each rule of ABLATIONS turned back, against ns-3's cached runs."""
    from crosslayer import run
    from crosslayer.scenario import Scenario

    base = Scenario.from_toml(STUDY)
    ns3 = {k: json.loads((OUT / f"ns3-{k}.json").read_text()) for k in seeds}
    print("| variant | bottleneck drops | retransmissions | timeouts | SYN retransmissions | FCT equal to ns-3 (1 us) |")
    print("|---|---|---|---|---|---|")
    flows = [f for k in seeds for f in ns3[k]["flows"]]
    print(f"| ns-3 3.44 | {sum(ns3[k]['bottleneck']['drops'] for k in seeds)} | {sum(f['retransmissions'] for f in flows)} | "
          f"{sum(f['timeouts'] for f in flows)} | {sum(f['syn_retransmissions'] for f in flows)} | - |")
    for name, overrides in {"crosslayer, ns3 profile": {}, **ABLATIONS}.items():
        drops = retx = timeouts = syn = equal = 0
        for k in seeds:
            r = run(base.with_overrides(seed=k, **overrides))
            drops += int(r.queues.set_index("link").loc["A->B", "drops"])
            f = r.flows.set_index("name")
            retx, timeouts, syn = retx + int(f.retransmits.sum()), timeouts + int(f.timeouts.sum()), syn + int(f.syn_retransmits.sum())
            equal += sum(abs(float(f.loc[g["name"], "fct_s"]) - g["fct_s"]) <= 1e-6 for g in ns3[k]["flows"])
        print(f"| {name} | {drops} | {retx} | {timeouts} | {syn} | {equal} of {len(flows)} |", flush=True)
    return 0


def main(argv: list[str]) -> int:
    seeds = SEEDS
    if "--seeds" in argv:
        i = argv.index("--seeds")
        seeds = range(1, int(argv[i + 1]) + 1)
        argv = argv[:i] + argv[i + 2:]
    ref = "ns3"
    if "--ref" in argv:
        i = argv.index("--ref")
        ref = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    python = argv[1] if len(argv) > 1 else os.environ.get("NS3_PYTHON", str(Path.home() / "ns3env" / "bin" / "python"))
    if argv[:1] == ["crosslayer"]:
        run_crosslayer(seeds)
        return 0
    if argv[:1] == ["ns3"]:
        run_ns3(python, seeds)
        return 0
    if argv[:1] == ["jitter"]:
        run_jitter(seeds)
        return 0
    if argv[:1] == ["table"]:
        return table(seeds, ref)
    if argv[:1] == ["ablate"]:
        return ablate(seeds)
    if argv[:1] == ["all"]:
        run_crosslayer(seeds)
        run_ns3(python, seeds)
        return table(seeds)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
