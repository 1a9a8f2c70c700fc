"""`crosslayer bench`: speed on the seed-paper scenarios against ns-3, and the start-up cost."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from crosslayer.output import dumps_json

# Everything heavy (pandas, NumPy, pydantic, the engine's catalog) is imported where it is used,
# so that `crosslayer --version` and `crosslayer -h` start in a fraction of a second.
if TYPE_CHECKING:

    from crosslayer.bench import BenchRow
    from crosslayer.scenario import Scenario

from crosslayer.cli.common import (
    _console,
    _engine_guard,
    _load,
    _num,
    _print_table,
    app,
)

BENCH_COLUMNS = (
    "scenario", "flows", "sim s", "wall s", "wall s / sim s", "segments / wall s", "events / s",
    "speed-up vs ns-3",
)  # fmt: skip


@app.command()
def bench(
    quick: Annotated[bool, typer.Option(help="Shorter runs for a quick look.")] = False,
    studies: Annotated[
        Path | None, typer.Option(help="Folder of the study files (default: ./studies, else the source tree's).")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON lines, one object per case, and nothing else.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the table (no per-case lines, no ns-3 reference).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also print each case's study file, flows and simulated time as it starts.")] = False,
    startup: Annotated[bool, typer.Option("--startup", help="Instead: the CPU time of `crosslayer --version` and `crosslayer -h` (15 runs each: min, median, max).")] = False,
    sweep: Annotated[
        int | None, typer.Option("--sweep", metavar="RUNS", help="Instead: what a sweep of RUNS short runs costs (`study run` on the Access Link, 5 s, seeds 1..RUNS): wall and CPU time, and the share of the CPU outside the engine (the engine's part is its own wall time: measure on an idle machine).")
    ] = None,
    workers: Annotated[int, typer.Option("--workers", "-j", help="With --sweep: the sweep's worker processes.")] = 1,
) -> None:
    """Speed on the seed-paper scenarios, compared with ns-3 (or, with --startup, the start-up cost;
    with --sweep, a sweep's cost outside the engine)."""
    from crosslayer import _core
    from crosslayer.bench import CASES, NS3_REFERENCE, default_studies_dir, run_bench
    from crosslayer.version import BUILDS

    if sweep is not None:
        from crosslayer.bench import sweep_cpu

        if sweep < 1 or workers < 1:
            raise typer.BadParameter("--sweep and --workers take a count of at least 1")
        # this interpreter and this package, whatever PATH finds first
        cost = sweep_cpu([sys.executable, "-m", "crosslayer.cli"], studies or default_studies_dir(), sweep, workers)
        if json_output:
            typer.echo(dumps_json({**asdict(cost), "outside_share": cost.outside_share}))
        else:
            typer.echo(
                f"{cost.runs} runs of 5 s on {cost.workers} worker(s): wall {cost.wall_s:.2f} s, CPU {cost.cpu_s:.2f} s, "
                f"engine {cost.engine_s:.2f} s: {cost.outside_share:.0%} of the CPU outside the engine "
                f"({(cost.cpu_s - cost.engine_s) / cost.runs * 1e3:.0f} ms a run)"
            )
        return

    if startup:
        from crosslayer.bench import startup_cpu

        cpu = startup_cpu(shutil.which("crosslayer") or sys.argv[0])
        if json_output:
            typer.echo(dumps_json({k: {"min_s": a, "median_s": b, "max_s": c} for k, (a, b, c) in cpu.items()}))
        else:
            for k, (a, b, c) in cpu.items():
                typer.echo(f"crosslayer {k}: CPU {a:.3f} / {b:.3f} / {c:.3f} s (min / median / max of 15 runs)")
        return

    console = _console()
    err = _console(stderr=True)
    notes = []
    if quick:
        notes.append("--quick")
    if _core.build() != "standard":
        notes.append(BUILDS.get(_core.build(), _core.build()))
    table = Table(title="crosslayer speed" + (f" ({', '.join(notes)})" if notes else ""))
    for header in BENCH_COLUMNS:
        table.add_column(header, justify="left" if header == "scenario" else "right")
    studies_dir = studies or default_studies_dir()
    for case in CASES:  # fail early on a bad study file, before spending time running
        _load(studies_dir / case.study, {})

    def bench_all() -> None:
        for row in run_bench(studies_dir, quick, on_start=_bench_start(err) if verbose and not json_output else None):
            if json_output:
                typer.echo(dumps_json(_bench_json(row)))
                continue
            table.add_row(*_bench_cells(row))
            if not quiet:
                err.print(f"{row.case.title}: done in {row.wall_s:.2f} s", highlight=False)

    _engine_guard(bench_all)
    if json_output:
        return
    _print_table(console, table)
    if quiet:
        return
    console.print("ns-3 reference (ns-3 3.44's Simulator::Run() on this machine class):", highlight=False)
    for key, ref in NS3_REFERENCE.items():
        console.print(f"  {key}: {ref.wall_s_per_sim_s} wall-s per sim-s ({ref.measured})", highlight=False)
    console.print(
        "  a side-by-side ratio, both on this machine now (from the source tree): .venv/bin/python validation/compare.py bench"
        " [--scenario datacenter] --ns3-python PYTHON_WITH_NS3",
        highlight=False,
    )


def _bench_start(err: Console) -> Callable[[Any, Scenario], None]:
    def start(case: Any, scenario: Scenario) -> None:
        err.print(f"{case.title}: {case.study}, {len(scenario.expand_flows())} flows, {scenario.duration / 1e9:g} s simulated", highlight=False)

    return start


def _bench_json(row: BenchRow) -> dict[str, Any]:
    from crosslayer import _core
    from crosslayer.bench import NS3_REFERENCE

    ref = NS3_REFERENCE.get(row.case.key)
    return {
        "case": row.case.key, "title": row.case.title, "study": row.case.study, "flows": row.flows, "sim_s": row.sim_s,
        "wall_s": row.wall_s, "wall_s_per_sim_s": row.wall_s_per_sim_s, "events": row.events,
        "delivered_segments": row.delivered_segments, "delivered_segments_per_wall_s": row.delivered_segments_per_wall_s,
        "events_per_wall_s": row.events_per_wall_s, "speedup_vs_ns3": row.speedup_vs_ns3,
        "ns3_reference": None if ref is None else asdict(ref),
        "build": _core.build(),
    }  # fmt: skip


def _times(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:,.1f}x"


def _bench_cells(row: BenchRow) -> tuple[str, ...]:
    return (
        row.case.title, str(row.flows), _num(row.sim_s, 1), _num(row.wall_s, 2), _num(row.wall_s_per_sim_s, 4),
        _num(row.delivered_segments_per_wall_s, 0), _num(row.events_per_wall_s, 0),
        _times(row.speedup_vs_ns3),
    )  # fmt: skip
