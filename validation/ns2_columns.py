#!/usr/bin/env python3
"""Seeds 001 and 002 (both simulated in ns-2 by their authors) next to ns-2.35: every point of
seed 002's two multi-flow studies and seed 001's RED points (ns-2.35 has no CoDel) run by
``crosslayer crosscheck --with ns2`` (crosslayer with the ``ns2`` TCP profile and ns-2.35 on the
same scenario, the same start times, seeds 1-5), and the ns-2 columns of
docs/validation/seed001.md and seed002.md drawn from the results. And seed 000's Compound TCP,
which no other simulator here has (ns-3 has no model): its Drop Tail cells at every load, alone
and in the mixed setting, in both scenarios, against ns-2.35's Linux `compound` module (ns-2.35
has no PIE or CoDel).

    python validation/ns2_columns.py run [-j 2]      # 52 points x 5 seeds in both simulators (~1 h on 2 cores)
    python validation/ns2_columns.py run --only seed000 [-j 2]   # one group of points
    python validation/ns2_columns.py seed001         # the table of seed 001's page
    python validation/ns2_columns.py seed002         # the two tables of seed 002's page
    python validation/ns2_columns.py seed000         # seed 000's Compound table

``run`` writes one crosscheck JSON per point into results/pages/ns2/ (skipping those it has:
resumable).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "pages" / "ns2"
SEEDS = 5
STUDIES = {
    "vegas-red": "studies/seed002-vegas-red.toml",
    "reno-tahoe": "studies/seed002-reno-tahoe.toml",
    "seed001": "studies/seed001-high-speed.toml",
    "seed000-access": "studies/seed000-paper-aqm-access.toml",
    "seed000-dc": "studies/seed000-paper-aqm-dc.toml",
}
GROUPS = {"seed002": ["vegas-red", "reno-tahoe"], "seed001": ["seed001"], "seed000": ["seed000-access", "seed000-dc"]}
ONLY: dict[str, dict[str, object]] = {
    "seed001": {"aqm": "red"},
    "seed000-access": {"aqm": "droptail", "tcp": ("compound", "mixed")},
    "seed000-dc": {"aqm": "droptail", "tcp": ("compound", "mixed")},
}
"""Points left out: ns-2.35 has no CoDel, sfqCoDel or PIE; of seed 000, the cells with Compound."""


def _points(short: str, study: str) -> list[tuple[int, dict[str, object]]]:
    """The points of seed 1 (crosscheck --seeds runs the ones after it), numbered as `crosslayer
    study points` numbers them."""
    from crosslayer.study import Study

    out = []
    for i, p in enumerate(Study.from_toml(ROOT / study).points()):
        wanted = ONLY.get(short, {})
        if p.labels.get("seed") == 1 and all(p.labels.get(k) in (v if isinstance(v, tuple) else (v,)) for k, v in wanted.items()):
            out.append((i, dict(p.labels)))
    return out


def _name(short: str, labels: dict[str, object]) -> str:
    return short + "-" + "-".join(str(v) for k, v in labels.items() if k != "seed")


def run(jobs: int, only: str | None = None) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    crosslayer = str(Path(sys.executable).with_name("crosslayer"))
    for short, study in STUDIES.items():
        if only and short not in GROUPS[only]:
            continue
        for i, labels in _points(short, study):
            path = OUT / f"{_name(short, labels)}.json"
            if path.exists():
                continue
            cmd = [crosslayer, "crosscheck", study, "--with", "ns2", "--point", str(i), "--seeds", str(SEEDS), "-j", str(jobs), "--json", "-q"]
            print("+", " ".join(cmd), flush=True)
            done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            if done.returncode not in (0, 3):
                raise SystemExit(f"{path.name}: crosscheck failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
            data = json.loads(done.stdout)
            data["labels"] = labels
            path.write_text(json.dumps(data, indent=1) + "\n")


def _metric(data: dict, name: str) -> tuple[float, float] | None:  # type: ignore[type-arg]
    for m in data["metrics"]:
        if m["metric"] == name and m["crosslayer"] and m.get("ns2"):
            return m["crosslayer"]["mean"], m["ns2"]["mean"]
    return None


def _cell(data: dict, name: str, scale: float, fmt: str) -> str:  # type: ignore[type-arg]
    v = _metric(data, name)
    return "-" if v is None else f"{fmt.format(v[0] * scale)} / {fmt.format(v[1] * scale)}"


def _results(group: str) -> dict[str, dict]:  # type: ignore[type-arg]
    """The crosscheck JSONs ``run`` wrote for one group of points (file stem -> content); exits
    saying how to make them when there are none."""
    prefixes = tuple(f"{short}-" for short in GROUPS[group])
    runs = {p.stem: json.loads(p.read_text()) for p in sorted(OUT.glob("*.json")) if p.stem.startswith(prefixes)}
    if not runs:
        sys.exit(f"no {group} results in {OUT}: run `python validation/ns2_columns.py run --only {group}` first")
    return runs


def seed001() -> None:
    runs = list(_results("seed001").values())
    print("Seed 001, RED (`seed001-high-speed.toml`): crosslayer (`ns2` profile) / ns-2.35, means of seeds 1-5\n")
    print("| tcp | total goodput Mb/s | Jain | queue mean pkts | queue SD pkts | drop ratio % | retransmitted pkts |")
    print("|---|---|---|---|---|---|---|")
    order = ["cubic", "htcp", "compound", "mixed"]
    for d in sorted(runs, key=lambda d: order.index(str(d["labels"]["tcp"])) if d["labels"]["tcp"] in order else 9):
        print(
            f"| {d['labels']['tcp']} | {_cell(d, 'goodput_bps', 1e-6, '{:.1f}')} | {_cell(d, 'jain', 1, '{:.3f}')} | {_cell(d, 'qlen_mean_pkts@A->B', 1, '{:.0f}')} | "
            f"{_cell(d, 'qlen_sd_pkts@A->B', 1, '{:.0f}')} | {_cell(d, 'drop_ratio@A->B', 100, '{:.3f}')} | {_cell(d, 'retransmits', 1, '{:,.0f}')} |"
        )


def seed000() -> None:
    runs = list(_results("seed000").values())
    print("Seed 000, Drop Tail 900, the cells with Compound: crosslayer (`ns2` profile) / ns-2.35 (Linux `compound` module), means of seeds 1-5\n")
    print("| scenario | tcp | load | total goodput Mb/s | Jain | Compound's share % | queue mean pkts | drop ratio % | retransmitted pkts | timeouts |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    loads = ["uncongested", "mild", "heavy"]
    runs.sort(key=lambda d: (d["labels"]["topology"], d["labels"]["tcp"], loads.index(str(d["labels"]["load"]))))
    for d in runs:
        lab = d["labels"]
        share = "-"
        c, t = _metric(d, "cc_goodput_bps@compound"), _metric(d, "goodput_bps")
        if c and t and lab["tcp"] == "mixed":
            share = f"{100 * c[0] / t[0]:.1f} / {100 * c[1] / t[1]:.1f}"
        print(
            f"| {lab['topology']} | {lab['tcp']} | {lab['load']} | {_cell(d, 'goodput_bps', 1e-6, '{:.2f}')} | {_cell(d, 'jain', 1, '{:.3f}')} | {share} | "
            f"{_cell(d, 'qlen_mean_pkts@A->B', 1, '{:.1f}')} | {_cell(d, 'drop_ratio@A->B', 100, '{:.3f}')} | {_cell(d, 'retransmits', 1, '{:,.0f}')} | {_cell(d, 'timeouts', 1, '{:,.0f}')} |"
        )


def seed002() -> None:
    runs = _results("seed002")
    print("Section 4.2 (`seed002-vegas-red.toml`): crosslayer (`ns2` profile) / ns-2.35, means of seeds 1-5\n")
    print("| tcp | aqm | N | system goodput Mb/s | Jain | queue mean pkts | drop ratio % | retransmitted pkts | timeouts |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = [d for d in runs.values() if "tcp" in d["labels"]]
    rows.sort(key=lambda d: (d["labels"]["tcp"] != "vegas", int(str(d["labels"]["n"]).lstrip("n")), d["labels"]["aqm"]))
    for d in rows:
        lab = d["labels"]
        print(
            f"| {lab['tcp']} | {lab['aqm']} | {str(lab['n']).lstrip('n')} | {_cell(d, 'goodput_bps', 1e-6, '{:.2f}')} | {_cell(d, 'jain', 1, '{:.3f}')} | "
            f"{_cell(d, 'qlen_mean_pkts@A->B', 1, '{:.1f}')} | {_cell(d, 'drop_ratio@A->B', 100, '{:.2f}')} | {_cell(d, 'retransmits', 1, '{:,.0f}')} | {_cell(d, 'timeouts', 1, '{:,.0f}')} |"
        )
    print("\nSection 4.4 (`seed002-reno-tahoe.toml`): crosslayer (`ns2` profile) / ns-2.35, means of seeds 1-5; Tahoe - Reno in each\n")
    print("| Reno recovery | aqm | n | Reno Mb/s | Tahoe Mb/s | Tahoe - Reno | queue mean pkts | drop ratio % |")
    print("|---|---|---|---|---|---|---|---|")
    rows = [d for d in runs.values() if "reno_recovery" in d["labels"]]
    rows.sort(key=lambda d: (d["labels"]["reno_recovery"] != "ns2_reno", d["labels"]["aqm"], int(str(d["labels"]["n"]).lstrip("n"))))
    for d in rows:
        lab = d["labels"]
        reno, tahoe = _metric(d, "cc_goodput_bps@reno"), _metric(d, "cc_goodput_bps@tahoe")
        gap = "-" if not reno or not tahoe else f"{100 * (tahoe[0] / reno[0] - 1):+.0f} % / {100 * (tahoe[1] / reno[1] - 1):+.0f} %"
        print(
            f"| {lab['reno_recovery']} | {lab['aqm']} | {str(lab['n']).lstrip('n')} | {_cell(d, 'cc_goodput_bps@reno', 1e-6, '{:.2f}')} | "
            f"{_cell(d, 'cc_goodput_bps@tahoe', 1e-6, '{:.2f}')} | {gap} | {_cell(d, 'qlen_mean_pkts@A->B', 1, '{:.1f}')} | {_cell(d, 'drop_ratio@A->B', 100, '{:.2f}')} |"
        )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("-j", "--jobs", type=int, default=2)
    r.add_argument("--only", choices=sorted(GROUPS), help="run one seed's points")
    sub.add_parser("seed000")
    sub.add_parser("seed001")
    sub.add_parser("seed002")
    a = ap.parse_args()
    {"run": lambda: run(a.jobs, a.only), "seed000": seed000, "seed001": seed001, "seed002": seed002}[a.cmd]()
