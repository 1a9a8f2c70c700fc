"""`crosslayer run` and `crosslayer validate`: one study file, run or checked."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from crosslayer.output import dumps_json
from crosslayer.units import format_duration

# Everything heavy (pandas, NumPy, pydantic, the engine's catalog) is imported where it is used,
# so that `crosslayer --version` and `crosslayer -h` start in a fraction of a second.
if TYPE_CHECKING:

    from crosslayer.result import Result

from crosslayer.cli.common import (
    Quiet,
    TableFormat,
    _column_notes,
    _console,
    _engine_guard,
    _fail,
    _load,
    _num,
    _parse_sets,
    _points_table,
    _print_table,
    app,
)

FLOW_TABLE_MAX_ROWS = 30


"""Print the per-flow table only up to this many flows (quartiles are always printed)."""


def _spread(s: dict[str, float]) -> str:
    quantiles = " / ".join(_num(s[k]) for k in ("min", "q1", "median", "q3", "max"))
    return f"{quantiles}  (mean {_num(s['mean'])})"


def _flow_table(result: Result) -> Table:
    table = Table(title="Flows (measured after warm-up)")
    for header in ("flow", "cc", "start s", "goodput Mbps", "throughput Mbps", "retx", "RTOs", "RTT mean ms"):
        table.add_column(header, justify="left" if header in ("flow", "cc") else "right")
    # from the columns (`Result.texts`, `Result.numbers`): the flows' DataFrame is not built
    # (nor pandas imported) to print a table
    name, cc = (result.texts("flows", c) for c in ("name", "cc"))
    start, goodput, throughput, retx, rtos, rtt = (
        result.numbers("flows", c) for c in ("start_s", "goodput_bps", "throughput_bps", "retransmits", "timeouts", "rtt_mean_s")
    )
    for k in range(len(name)):
        table.add_row(
            str(name[k]), str(cc[k]), _num(start[k], 3), _num(goodput[k], 2, 1e-6),
            _num(throughput[k], 2, 1e-6), str(int(retx[k])), str(int(rtos[k])),
            _num(rtt[k], 1, 1e3),
        )  # fmt: skip
    return table


def _queues_table(result: Result) -> Table:
    table = Table(title="Queues (every link, measured after warm-up)")
    headers = ("link", "role", "qdisc", "qlen mean pkts", "qlen SD pkts", "sojourn mean ms", "drops", "drop ratio %", "utilization %")
    for header in headers:
        table.add_column(header, justify="left" if header in ("link", "role", "qdisc") else "right")
    for row in result.queues.itertuples(index=False):
        table.add_row(
            str(row.link), str(row.role), str(row.qdisc), _num(row.qlen_mean_pkts, 1), _num(row.qlen_sd_pkts, 1),
            _num(row.sojourn_mean_s, 3, 1e3), f"{row.drops:,}", _num(row.drop_ratio, 3, 100), _num(row.utilization, 2, 100),
        )  # fmt: skip
    return table


def _summary_table(agg: dict[str, Any], out: Path) -> Table:
    q = agg["bottleneck"]
    table = Table(title=f"{agg['scenario']} (seed {agg['seed']}, {agg['flows']} flows)", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    rows = [
        ("goodput per flow, Mbps\n  min / q1 / median / q3 / max", _spread(agg["goodput_mbps"])),
        ("throughput per flow, Mbps\n  min / q1 / median / q3 / max", _spread(agg["throughput_mbps"])),
        ("Jain's index (goodput)", _num(agg["jain"], 4)),
        (
            f"bottleneck queue ({q['link']}), pkts",
            f"mean {_num(q['qlen_mean_pkts'], 1)}, SD {_num(q['qlen_sd_pkts'], 1)}",
        ),
        ("sojourn, ms", f"mean {_num(q['sojourn_mean_s'], 3, 1e3)}, p99 {_num(q['sojourn_p99_s'], 3, 1e3)}"),
        ("drop ratio", f"{_num(q['drop_ratio'], 3, 100)} %  ({q['drops']:,} of {q['arrivals']:,} arrivals)"),
        ("utilization", f"{_num(q['utilization'], 2, 100)} %"),
        *([("wireless medium", f"{m['wlan']}: {_num(m['airtime'], 2, 100)} % busy (every member's airtime)")] if (m := q.get("medium")) else []),
        ("busiest links", "\n".join(f"{b['link']}: {_num(b['utilization'], 1, 100)} % busy, {_num(b['drop_ratio'], 3, 100)} % dropped" for b in agg["busiest_links"])),
        *_lockout_rows(agg),
        *_fct_rows(agg),
        ("simulated / measured, s", f"{_num(agg['sim_s'], 1)} / {_num(agg['measured_s'], 1)}"),
        ("wall time, s", _num(agg["wall_s"], 3)),
        ("events", f"{agg['events']:,}  ({_num(agg['events_per_wall_s'], 0)} per wall-s)"),
        (
            "delivered segments",
            f"{agg['delivered_segments']:,}  ({_num(agg['delivered_segments_per_wall_s'], 0)} per wall-s)",
        ),
        ("simulated s per wall-s", _num(agg["sim_s_per_wall_s"], 2)),
        ("results", str(out)),
    ]
    for key, value in rows:
        table.add_row(key, value)
    return table


def _fct_rows(agg: dict[str, Any]) -> list[tuple[str, str]]:
    f = agg.get("fct")
    if not f:
        return []
    return [
        ("finite flows", f"{f['completed']:,} of {f['flows']:,} completed (the fct table has each; bytes_left the rest)"),
        ("slowdown (FCT / ideal)", f"mean {_num(f['slowdown_mean'], 2)}, median {_num(f['slowdown_p50'], 2)}, p99 {_num(f['slowdown_p99'], 2)}"),
    ]


LOCKOUT_SHARE = 0.95


"""A host carrying more than this share of the goodput (with other hosts sending) is flagged."""


def _lockout_rows(agg: dict[str, Any]) -> list[tuple[str, str]]:
    lock = agg.get("lockout") or {}
    share = lock.get("max_host_goodput_share")
    rows = []
    if share is not None and share > LOCKOUT_SHARE and lock.get("zero_goodput_flows", 0) > 0:
        rows.append((
            "[bold red]lock-out?[/bold red]",
            f"one host carries {100 * share:.1f} % of its direction's goodput and {lock['zero_goodput_flows']} flows got "
            "nothing: a phase effect? (docs/phase-effects.md; try jitter on the host links)",
        ))
    elif lock.get("zero_goodput_flows"):
        rows.append(("flows with zero goodput", str(lock["zero_goodput_flows"])))
    return rows


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="Study file (TOML).")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Result folder (default: results/<scenario name>).")
    ] = None,
    table_format: Annotated[TableFormat, typer.Option("--format", help="Table file format.")] = TableFormat.parquet,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object (summary and aggregates) and nothing else.")
    ] = False,
    seed: Annotated[int | None, typer.Option(help="Override the seed.")] = None,
    duration: Annotated[str | None, typer.Option(help='Override the duration, e.g. "10s".')] = None,
    warmup: Annotated[str | None, typer.Option(help='Override the warm-up, e.g. "3s".')] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", help="path=value override, e.g. --set tcp.min_rto=1s (repeatable).")] = None,
    force: Annotated[bool, typer.Option("--force", "-f", help="Replace an existing result folder.")] = False,
    quiet: Quiet = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print the flow table however many flows, and every link's queue.")] = False,
) -> None:
    """Run a study file, print a summary and write the result folder (never over an earlier one
    unless --force). With -q, print only the result folder."""
    import crosslayer
    from crosslayer.result import staging_folder
    from crosslayer.store import disk_full, folder_kind

    overrides = {k: v for k, v in {"seed": seed, "duration": duration, "warmup": warmup}.items() if v is not None}
    for path, value in _parse_sets(sets).items():
        if isinstance(value, list):
            _fail(f"--set {path}: `crosslayer run` takes one value; sweep several with `crosslayer study run`", 2)
        overrides[path] = value
    scenario = _load(file, overrides)
    folder = out or Path("results") / scenario.name
    kind = folder_kind(folder)
    if kind == "store":
        _fail(
            f"{folder} is a study's result store (from `crosslayer study run`), not the folder of a single run: "
            "`crosslayer run` never replaces a store, even with --force; choose another --out"
            + ("" if out else f" (the scenario {scenario.name!r} names results/{scenario.name}, like the study)"),
            2,
        )
    if kind == "other":
        _fail(f"{folder} holds files that are not a crosslayer result: choose another --out (--force replaces only the folder of an earlier run)", 2)
    if kind == "file":
        _fail(f"{folder} exists and is not a folder: choose another --out", 2)
    if kind == "run" and not force:
        _fail(f"{folder} already holds a result: choose another --out, or --force to replace it", 2)
    try:  # before the run: a bad --out must not cost a whole simulation
        staging = staging_folder(folder)
    except OSError as exc:
        _fail(f"cannot write the results to {folder}: {exc.strerror or exc}", 2)
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    err = Console(stderr=True)
    total_s = scenario.duration / 1e9
    bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.fields[sim]}"), TimeRemainingColumn(), console=err, transient=True, disable=quiet or json_output or not err.is_terminal)
    task = bar.add_task(scenario.name, total=total_s, sim="")

    def tick(sim_s: float) -> None:
        bar.update(task, completed=sim_s, sim=f"{sim_s:.1f} of {total_s:g} simulated s")

    try:
        with bar:
            result = _engine_guard(lambda: crosslayer.run(scenario, progress=tick))
        result.save(folder, format=table_format.value, staging=staging)
    except OSError as exc:
        if disk_full(exc):
            _fail(f"the disk is full: cannot write the results to {folder} (nothing was left half-written); free some space and run again", 1)
        _fail(f"cannot write the results to {folder}: {exc.strerror or exc}", 1)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    agg = result.aggregates()
    if json_output:
        typer.echo(dumps_json({"out": str(folder), **agg, "summary": result.summary}))
        return
    if quiet:
        typer.echo(str(folder))
        return
    console = _console()
    if verbose or result.rows("flows") <= FLOW_TABLE_MAX_ROWS:
        _print_table(console, _flow_table(result))
    if verbose:
        _print_table(console, _queues_table(result))
    _print_table(console, _summary_table(agg, folder))
    if result.captures:
        missed = int(result.summary.get("pcap_missed", 0))
        note = f"; {missed:,} packets not written: the capture reached pcap.max_bytes" if missed else ""
        console.print(f"pcap: {int(result.summary.get('pcap_packets', 0)):,} packets in {folder / 'pcap'}/ ({', '.join(result.captures)}){note}", highlight=False)


@app.command()
def validate(
    file: Annotated[Path, typer.Argument(help="Study file (TOML).")],
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object and nothing else.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing: the exit code says (0 valid, 2 invalid, with the problems on stderr).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also list the flows (or the study's points).")] = False,
) -> None:
    """Check a study file without running it (exit 2 and list the problems if invalid); a file
    with a \\[study] table is checked point by point."""
    from crosslayer.scenario import ScenarioError
    from crosslayer.study import Study, StudyError

    try:
        raw = file.read_bytes()
    except OSError as exc:
        _fail(f"cannot read {file}: {exc.strerror or exc}", 2)
    if b"[study" in raw:
        try:
            study = Study.from_toml(file)
        except (StudyError, ScenarioError) as exc:
            _fail(str(exc), 2)
        points = study.points()
        if quiet:
            return
        _column_notes(study)
        if json_output:
            extra = {"point_labels": [{"key": p.key, **p.labels} for p in points]} if verbose else {}
            typer.echo(dumps_json({"file": str(file), "valid": True, "study": study.name, "points": len(points), "columns": list(study.columns.values()), **extra}))
            return
        typer.echo(f"ok: {file}: study {study.name!r}, {len(points)} points over {', '.join(study.columns.values())}")
        if verbose:
            _print_table(_console(), _points_table(study.name, study.columns.values(), points))
        return
    scenario = _load(file, {})
    expanded = scenario.expand_flows()
    flows = len(expanded)
    if quiet:
        return
    if json_output:
        extra = {"flow_names": [f.name for f in expanded]} if verbose else {}
        typer.echo(dumps_json({"file": str(file), "valid": True, "scenario": scenario.name, "flows": flows, "duration_s": scenario.duration / 1e9, "warmup_s": scenario.warmup / 1e9, "seed": scenario.seed, **extra}))
        return
    typer.echo(
        f"ok: {file}: scenario {scenario.name!r}, {flows} flow{'s' if flows != 1 else ''}, "
        f"{format_duration(scenario.duration)} (warm-up {format_duration(scenario.warmup)}), seed {scenario.seed}"
    )
    if verbose:
        from crosslayer.scenario import Dumbbell

        table = Table(title="Flows")
        if isinstance(scenario.topology, Dumbbell):
            for header in ("flow", "group", "src", "dst", "direction"):
                table.add_column(header)
            for f in expanded:
                table.add_row(f.name, str(f.group), str(f.src), str(f.dst), "reverse" if f.reverse else "forward")
        else:
            for header in ("flow", "group", "src", "dst", "route", "bottleneck"):
                table.add_column(header)
            planned = {p["name"]: p for p in [*scenario.plan()["flows"], *scenario.plan()["udp"]]}
            for f in [*expanded, *scenario.expand_udp()]:
                p = planned[f.name]
                table.add_row(f.name, str(f.group), str(f.src), str(f.dst), " ".join(p["route"]), p["bottleneck"])
        _print_table(_console(), table)
