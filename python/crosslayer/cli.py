"""``crosslayer`` command line: run, validate, list, benchmark, studies and result stores.

Exit codes (also in ``crosslayer --help``): 0 success, 1 engine failure (out of memory, a
[limits] value reached, a simulator bug), results that cannot be written after the run, or
failed study points, 2 invalid study file or command line (including an output folder that
cannot be written or already holds a result, checked before the run), 130 interrupted.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import asdict
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from crosslayer.output import dumps_json
from crosslayer.units import format_duration, format_seconds

# Everything heavy (pandas, NumPy, pydantic, the engine's catalog) is imported where it is used,
# so that `crosslayer --version` and `crosslayer -h` start in a fraction of a second.
if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from crosslayer.bench import BenchRow
    from crosslayer.catalog import Algorithm, Param
    from crosslayer.result import Result
    from crosslayer.scenario import Scenario

EXIT_CODES = (
    "Exit codes: 0 success; 1 engine failure (out of memory, a \\[limits] value reached, a simulator "
    "bug), results that cannot be written after a run, or failed study points; 2 invalid study "
    "file, command line or output location (checked before anything runs); 130 interrupted "
    "(Ctrl-C: stored runs are kept)."
)

app = typer.Typer(
    name="crosslayer",
    help="Packet-level simulator of TCP congestion control and AQM.",
    epilog=EXIT_CODES,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from crosslayer.version import engine_version

        typer.echo(f"crosslayer {engine_version()}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """Packet-level simulator of TCP congestion control and AQM."""

FLOW_TABLE_MAX_ROWS = 30
"""Print the per-flow table only up to this many flows (quartiles are always printed)."""
BENCH_COLUMNS = (
    "scenario", "flows", "sim s", "wall s", "wall s / sim s", "segments / wall s", "events / s",
    "speed-up vs ns-3", "segments/s vs ns-3",
)  # fmt: skip

T = TypeVar("T")


class Listing(StrEnum):
    """What ``crosslayer list`` shows."""

    cc = "cc"
    aqm = "aqm"
    tcp = "tcp"
    limits = "limits"
    tables = "tables"


class TableFormat(StrEnum):
    """On-disk format of the result tables."""

    parquet = "parquet"
    json = "json"


PIPE_WIDTH = 2000
"""Console width when output is not a terminal: tables take their natural width, so no number is
ever cut short in a file or a pipe."""

Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print only results: no progress and no messages (errors still go to stderr).")]
PanelsVerbose = Annotated[bool, typer.Option("--verbose", "-v", help="Also list the panels drawn.")]


def _console(stderr: bool = False) -> Console:
    """A console for stdout (data) or stderr (progress, messages); wide when not a terminal."""
    console = Console(stderr=stderr)
    return console if console.is_terminal else Console(stderr=stderr, width=PIPE_WIDTH)


def _print_table(console: Console, table: Table) -> None:
    """Print a table whose cells wrap instead of being cut with an ellipsis."""
    for column in table.columns:
        column.overflow = "fold"
    console.print(table)


def _fail(message: str, code: int) -> NoReturn:
    typer.echo(message, err=True)
    raise typer.Exit(code)


def _load(file: Path, overrides: dict[str, Any]) -> Scenario:
    """The study file with command-line overrides; exit 2 with the problems if invalid (a file
    with a [study] table is pointed to `crosslayer study run`)."""
    from crosslayer.scenario import Scenario, ScenarioError
    from crosslayer.study import StudyError

    try:
        if _is_study(file):
            _fail(
                f"{file} is a study (it has a [study] table): run its points with `crosslayer study run {file}`, "
                f"or list them with `crosslayer study points {file}`",
                2,
            )
        scenario = Scenario.from_toml(file)
        return scenario.with_overrides(**overrides) if overrides else scenario
    except (ScenarioError, StudyError) as exc:
        _fail(str(exc), 2)
    except OSError as exc:
        _fail(f"cannot read {file}: {exc.strerror or exc}", 2)


def _is_study(file: Path) -> bool:
    """Whether a study file has a [study] table (read as TOML; a file that is not valid TOML is
    left to the scenario's reader to report)."""
    import tomllib

    try:
        return "study" in tomllib.loads(file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError, ValueError):
        return False


def _engine_guard(work: Callable[[], T]) -> T:
    """Call ``work()``; turn engine failures into messages and exit codes."""
    try:
        from crosslayer import _core
    except ImportError as exc:
        _fail(
            f"the compiled engine crosslayer._core is not available ({exc}); build it with `maturin develop --release`",
            1,
        )
    try:
        return work()
    except _core.EngineError as exc:
        _fail(f"engine failure (a simulator bug; please report it with the study file): {exc}", 1)
    except ValueError as exc:
        _fail(f"the engine rejected the scenario: {exc}", 2)


def _num(value: float | None, digits: int = 2, scale: float = 1.0) -> str:
    return "-" if value is None else f"{value * scale:,.{digits}f}"


def _spread(s: dict[str, float]) -> str:
    quantiles = " / ".join(_num(s[k]) for k in ("min", "q1", "median", "q3", "max"))
    return f"{quantiles}  (mean {_num(s['mean'])})"


def _flow_table(result: Result) -> Table:
    table = Table(title="Flows (measured after warm-up)")
    for header in ("flow", "cc", "start s", "goodput Mbps", "throughput Mbps", "retx", "RTOs", "RTT mean ms"):
        table.add_column(header, justify="left" if header in ("flow", "cc") else "right")
    for row in result.flows.itertuples(index=False):
        table.add_row(
            str(row.name), str(row.cc), _num(row.start_s, 3), _num(row.goodput_bps, 2, 1e-6),
            _num(row.throughput_bps, 2, 1e-6), str(row.retransmits), str(row.timeouts),
            _num(row.rtt_mean_s, 1, 1e3),
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
        *_lockout_rows(agg),
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
    if verbose or len(result.flows) <= FLOW_TABLE_MAX_ROWS:
        _print_table(console, _flow_table(result))
    if verbose:
        _print_table(console, _queues_table(result))
    _print_table(console, _summary_table(agg, folder))


Folder = Annotated[Path, typer.Argument(help="A result folder written by `crosslayer run`, or a study's store (then pick one run with --key or --where).")]
Key = Annotated[str | None, typer.Option("--key", "-k", help="In a store: the run's key (or its first digits; `crosslayer results query \"select key, * from runs\" -s STORE` lists them).")]
Where = Annotated[list[str] | None, typer.Option("--where", help="In a store: column=value choosing one run (repeatable), e.g. --where aqm=codel --where seed=1.")]


@app.command("plot-queue")
def plot_queue(
    folder: Folder,
    state: Annotated[
        list[str] | None, typer.Option("--state", "-s", help="A state column of the discipline to add as a panel (repeatable); see `crosslayer list aqm`.")
    ] = None,
    key: Key = None,
    where: Where = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Image file (default: <folder>/queue.png, or <store>/queue-<key>.png; .pdf and .svg work too).")] = None,
    quiet: Quiet = False,
    verbose: PanelsVerbose = False,
) -> None:
    """Draw the sampled queue's length, sojourn time and chosen discipline state over time."""
    from .plots import queue_figure

    _plot(folder, out, "queue", key, where, lambda result: queue_figure(result, state=state or ()), quiet, verbose)


@app.command("plot-cwnd")
def plot_cwnd(
    folder: Folder,
    flow: Annotated[list[str] | None, typer.Option("--flow", "-f", help="A flow name to draw (repeatable; default: the first four).")] = None,
    state: Annotated[
        list[str] | None, typer.Option("--state", "-s", help="A state column of the flows' algorithm to add as a panel (repeatable); see `crosslayer list cc`.")
    ] = None,
    key: Key = None,
    where: Where = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Image file (default: <folder>/cwnd.png, or <store>/cwnd-<key>.png; .pdf and .svg work too).")] = None,
    quiet: Quiet = False,
    verbose: PanelsVerbose = False,
) -> None:
    """Draw chosen flows' congestion window, ssthresh, pacing rate and algorithm state over time
    (the scenario needs cwnd_trace = true)."""
    from .plots import cwnd_figure

    _plot(folder, out, "cwnd", key, where, lambda result: cwnd_figure(result, flows=flow or (), state=state or ()), quiet, verbose)


@app.command("plot-goodput")
def plot_goodput(
    folder: Folder,
    flow: Annotated[list[str] | None, typer.Option("--flow", "-f", help="A flow name to draw (repeatable; default: up to 12).")] = None,
    every: Annotated[float, typer.Option("--every", help="Averaging bin, seconds.")] = 1.0,
    key: Key = None,
    where: Where = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Image file (default: <folder>/goodput.png, or <store>/goodput-<key>.png; .pdf and .svg work too).")] = None,
    quiet: Quiet = False,
    verbose: PanelsVerbose = False,
) -> None:
    """Draw chosen flows' goodput over time (the scenario needs cwnd_trace = true)."""
    from .plots import goodput_figure

    if not every > 0:
        _fail("--every must be positive, e.g. 0.5", 2)
    _plot(folder, out, "goodput", key, where, lambda result: goodput_figure(result, flows=flow or (), every=every), quiet, verbose)


def _plot(
    folder: Path, out: Path | None, name: str, key: str | None, where: list[str] | None, draw: Callable[[Result], Figure], quiet: bool = False, verbose: bool = False
) -> None:
    """Load the result in ``folder`` (a run folder, or one run of a store chosen by ``key`` or
    ``where``), draw it and save the figure (exit 2 for a bad folder or figure request, 1 when
    the file cannot be written)."""
    from crosslayer.result import Result
    from crosslayer.store import Store, StoreError, folder_kind

    kind = folder_kind(folder)
    if kind == "store":
        store = Store(folder)
        try:
            chosen = store.find(key, _where(where))
            result = store.result(chosen)
        except (StoreError, ValueError, LookupError) as exc:
            _fail(str(exc), 2)
        target = out or folder / f"{name}-{chosen[:12]}.png"
    else:
        if key is not None or where:
            _fail(f"--key and --where choose a run of a study's store; {folder} is {'the folder of one run' if kind == 'run' else 'not a store'}", 2)
        try:
            result = Result.load(folder)
        except (OSError, ValueError) as exc:
            _fail(f"cannot read a result from {folder}: {exc}", 2)
        target = out or folder / f"{name}.png"
    try:
        fig = draw(result)
    except ValueError as exc:
        _fail(str(exc), 2)
    _save_figure(fig, target, quiet, verbose)


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
        table = Table(title="Flows")
        for header in ("flow", "group", "src", "dst", "direction"):
            table.add_column(header)
        for f in expanded:
            table.add_row(f.name, str(f.group), str(f.src), str(f.dst), "reverse" if f.reverse else "forward")
        _print_table(_console(), table)


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
) -> None:
    """Speed on the seed-paper scenarios, compared with ns-3 (or, with --startup, the start-up cost)."""
    from crosslayer.bench import CASES, NS3_REFERENCE, default_studies_dir, run_bench

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
    table = Table(title="crosslayer speed" + (" (--quick)" if quick else ""))
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
    console.print("ns-3 reference (ns-3 3.44 on this machine class):", highlight=False)
    for key, ref in NS3_REFERENCE.items():
        line = f"  {key}: {ref.wall_s_per_sim_s} wall-s per sim-s"
        if ref.delivered_segments_per_wall_s is not None:
            line += f", {ref.delivered_segments_per_wall_s:,.0f} delivered segments per wall-s"
        console.print(line, highlight=False)


def _bench_start(err: Console) -> Callable[[Any, Scenario], None]:
    def start(case: Any, scenario: Scenario) -> None:
        err.print(f"{case.title}: {case.study}, {len(scenario.expand_flows())} flows, {scenario.duration / 1e9:g} s simulated", highlight=False)

    return start


def _bench_json(row: BenchRow) -> dict[str, Any]:
    from crosslayer.bench import NS3_REFERENCE

    ref = NS3_REFERENCE.get(row.case.key)
    return {
        "case": row.case.key, "title": row.case.title, "study": row.case.study, "flows": row.flows, "sim_s": row.sim_s,
        "wall_s": row.wall_s, "wall_s_per_sim_s": row.wall_s_per_sim_s, "events": row.events,
        "delivered_segments": row.delivered_segments, "delivered_segments_per_wall_s": row.delivered_segments_per_wall_s,
        "events_per_wall_s": row.events_per_wall_s, "speedup_vs_ns3": row.speedup_vs_ns3,
        "segments_rate_vs_ns3": row.segments_rate_vs_ns3, "ns3_reference": None if ref is None else asdict(ref),
    }  # fmt: skip


def _times(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:,.1f}x"


def _bench_cells(row: BenchRow) -> tuple[str, ...]:
    return (
        row.case.title, str(row.flows), _num(row.sim_s, 1), _num(row.wall_s, 2), _num(row.wall_s_per_sim_s, 4),
        _num(row.delivered_segments_per_wall_s, 0), _num(row.events_per_wall_s, 0),
        _times(row.speedup_vs_ns3), _times(row.segments_rate_vs_ns3),
    )  # fmt: skip


def _params_table(params: tuple[Param, ...], title: str | None = None, profiles: dict[str, dict[str, Any]] | None = None) -> Table:
    from crosslayer.catalog import default_text

    table = Table(title=title, show_lines=False, title_justify="left")
    for header in ("parameter", "unit", "default", "valid", "description"):
        table.add_column(header, overflow="fold")
    for p in params:
        valid = ", ".join(p.choices) if p.choices else ("true, false" if p.unit == "flag" else p.range)
        default = default_text(p, profiles).replace("`", "")
        table.add_row(p.name, p.unit_label, f"{default}\n[dim]{p.default_source}[/dim]", valid, p.doc)
    return table


MODELS_DOCS = "docs/models"
"""Where each algorithm's page (source, deviations, validation) lives in the source tree."""


def _print_algorithm(console: Console, a: Algorithm, verbose: bool = False) -> None:
    aliases = f"  (aliases: {', '.join(a.aliases)})" if a.aliases else ""
    console.print(f"[bold]{a.name}[/bold]{aliases}: {a.summary}", highlight=False)
    if verbose:
        console.print(f"  validation: {MODELS_DOCS}/{a.name}.md", highlight=False)
    console.print(f"  sources: {'; '.join(a.sources)}", highlight=False, soft_wrap=True)
    for key, label in (("reasons", "drop/mark reasons"), ("stats", "counters"), ("state", "state in traces")):
        items = a.extras.get(key) or []
        if items:
            console.print(f"  {label}: {', '.join(i['name'] for i in items)}", highlight=False)
    flags = [k for k in ("needs_ecn", "full_control", "rate_sample") if a.extras.get(k)]
    if flags:
        console.print(f"  declares: {', '.join(flags)}", highlight=False)
    if a.params:
        _print_table(console, _params_table(a.params))
    else:
        console.print("  no parameters")
    console.print()


@app.command("list")
def list_(
    what: Annotated[
        Listing, typer.Argument(help="cc, aqm, tcp (the \\[tcp] options), limits (fixed and \\[limits]) or tables (result columns).")
    ],
    json_output: Annotated[bool, typer.Option("--json", help="Print the catalog entries as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the names, one per line.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also name each algorithm's validation page (docs/models/<name>.md).")] = False,
) -> None:
    """List every congestion control or queue discipline with its sources and parameters."""
    from crosslayer.catalog import Param, catalog, format_value

    cat = catalog()
    if quiet:
        if what in (Listing.cc, Listing.aqm):
            names = list(cat.family(what.value))
        elif what is Listing.tcp:
            names = [p.name for p in cat.tcp]
        elif what is Listing.limits:
            names = [*cat.bounds, *(p.name for p in cat.limits)]
        else:
            names = list(cat.tables)
        typer.echo("\n".join(names))
        return
    if what in (Listing.cc, Listing.aqm):
        algorithms = list(cat.family(what.value).values())
        if json_output:
            typer.echo(dumps_json([{**asdict(a), "params": [asdict(p) for p in a.params]} for a in algorithms], indent=2))
            return
        console = _console()
        for a in algorithms:
            _print_algorithm(console, a, verbose)
    elif what is Listing.tcp:
        if json_output:
            typer.echo(dumps_json({"params": [asdict(p) for p in cat.tcp], "profiles": cat.tcp_profiles}, indent=2))
            return
        _print_table(_console(), _params_table(cat.tcp, title="\\[tcp] options (also per flow group: tcp = { ... })", profiles=cat.tcp_profiles))
    elif what is Listing.limits:
        if json_output:
            bounds = {name: asdict(b) for name, b in cat.bounds.items()}
            typer.echo(dumps_json({"bounds": bounds, "limits": [asdict(p) for p in cat.limits]}, indent=2))
            return
        console = _console()
        table = Table(title="Fixed limits, checked before every run", title_justify="left")
        for header in ("limit", "value", "description"):
            table.add_column(header, overflow="fold")
        for b in cat.bounds.values():
            shown = format_value(Param(b.name, "", b.unit, "", "int", False, (), None, False, None, False, "", b.value, "", None), b.value)
            table.add_row(b.name, shown, b.doc)
        _print_table(console, table)
        _print_table(console, _params_table(cat.limits, title="\\[limits] of a study (settable)"))
    else:
        if json_output:
            typer.echo(dumps_json({name: asdict(t) for name, t in cat.tables.items()}, indent=2))
            return
        console = _console()
        for t in cat.tables.values():
            table = Table(title=f"{t.name}: {t.doc}", title_justify="left")
            for header in ("column", "unit", "type", "description"):
                table.add_column(header, overflow="fold")
            for c in t.columns:
                table.add_row(c.name, c.unit, c.dtype, c.doc)
            _print_table(console, table)
            if t.dynamic:
                console.print(f"  {t.dynamic}", highlight=False)
            console.print()


study_app = typer.Typer(help="Studies: sweeps over a base scenario, run into a result store.", no_args_is_help=True)
results_app = typer.Typer(help="Query, tabulate and plot a result store.", no_args_is_help=True)
app.add_typer(study_app, name="study")
app.add_typer(results_app, name="results")


def _parse_sets(sets: list[str] | None) -> dict[str, Any]:
    """``--set path=value`` options: a value, or several (comma-separated TOML values, or a
    TOML array) to sweep."""
    from crosslayer.study import parse_cli_value

    out: dict[str, Any] = {}
    for item in sets or []:
        path, eq, text = item.partition("=")
        if not eq or not path.strip():
            _fail(f"--set {item!r}: write --set path=value, e.g. --set flows[*].cc=reno or --set tcp.min_rto=1s", 2)
        value = parse_cli_value(text.strip())
        if isinstance(value, str) and "," in value and not text.strip().startswith(('"', "'")):
            value = [parse_cli_value(v.strip()) for v in value.split(",")]
        out[path.strip()] = value
    return out


def _labels_text(labels: Any) -> str:
    return " ".join(f"{k}={v}" for k, v in labels.items())


def _load_study(file: Path, sets: list[str] | None) -> Any:
    from crosslayer.scenario import ScenarioError
    from crosslayer.study import Study, StudyError

    try:
        return Study.from_toml(file, overrides=_parse_sets(sets))
    except (StudyError, ScenarioError) as exc:
        _fail(str(exc), 2)
    except OSError as exc:
        _fail(f"cannot read {file}: {exc.strerror or exc}", 2)


@study_app.command("points")
def study_points(
    file: Annotated[Path, typer.Argument(help="Study file (TOML) with a \\[study] table.")],
    sets: Annotated[list[str] | None, typer.Option("--set", help="path=value, or path=v1,v2 to sweep (repeatable).")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON lines instead of a table.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the keys, one per line.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also say whether a store (-o) holds each point.")] = False,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Result store to check with -v (default: results/<study name>).")] = None,
) -> None:
    """List the study's points: their swept values and keys (nothing runs)."""
    study = _load_study(file, sets)
    points = study.points()
    stored: dict[str, bool] = {}
    if verbose:
        from crosslayer.store import Store

        st = Store(out or Path("results") / study.name)
        stored = {p.key: st.has(p.key) for p in points}
    if quiet:
        for p in points:
            typer.echo(p.key)
        return
    if json_output:
        for p in points:
            typer.echo(dumps_json({"key": p.key, **p.labels, **({"stored": stored[p.key]} if verbose else {})}))
        return
    _print_table(_console(), _points_table(study.name, study.columns.values(), points, stored))


def _points_table(name: str, columns: Any, points: list[Any], stored: dict[str, bool] | None = None) -> Table:
    table = Table(title=f"{name}: {len(points)} points")
    cols = list(columns)
    for c in ["key", *cols, *(["stored"] if stored else [])]:
        table.add_column(c)
    for p in points:
        table.add_row(p.key, *(str(p.labels.get(c, "")) for c in cols), *(["yes" if stored[p.key] else "no"] if stored else []))
    return table


@study_app.command("run")
def study_run(
    file: Annotated[Path, typer.Argument(help="Study file (TOML) with a \\[study] table.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Result store (default: results/<study name>).")] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", help="path=value, or path=v1,v2 to sweep (repeatable).")] = None,
    workers: Annotated[int | None, typer.Option("--workers", "-j", help="Local worker processes (default: every core).")] = None,
    scheduler: Annotated[str | None, typer.Option("--scheduler", help="Address of a Dask distributed scheduler to run on.")] = None,
    dask_local: Annotated[int | None, typer.Option("--dask-local", help="Start a local Dask cluster with N workers and run on it.")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="First remove the store's runs that are not points of this study as given (another duration, an edited file): one definition per store.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars and no summary line (failures and warnings are still reported).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also print a line per finished run: its swept values, key and wall time.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object (what ran) and nothing else.")] = False,
) -> None:
    """Run every point of a study that the store does not hold yet (resumable: runs are keyed
    by a hash of their configuration and the engine version). Several invocations may share a
    store: each runs only the points no other has claimed, and waits for the rest."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from crosslayer.store import Store, StoreError
    from crosslayer.sweep import Eta, RunEvent, run_study

    study = _load_study(file, sets)
    store = Store(out or Path("results") / study.name)
    try:
        store.create(study.text or None)
    except StoreError as exc:
        _fail(str(exc), 2)
    except OSError as exc:
        _fail(f"cannot write the store {store.root}: {exc.strerror or exc}", 2)
    client = None
    cluster = None
    if scheduler or dask_local:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            _fail("Dask is not installed: pip install distributed (a dependency of crosslayer; the environment lacks it)", 2)
        if dask_local:
            cluster = LocalCluster(n_workers=dask_local, threads_per_worker=1, processes=True)
            client = Client(cluster)
        else:
            client = Client(scheduler)
    err = _console(stderr=True)
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.fields[count]}"), TextColumn("{task.fields[state]}"),
        TimeElapsedColumn(), TextColumn("{task.fields[eta]}"), console=err, disable=quiet or json_output,
    )  # fmt: skip
    task = progress.add_task(study.name, total=None, state="", count="", eta="")
    runs: dict[str, Any] = {}  # key -> the progress task of a run in flight
    eta = Eta({p.key: p.scenario.duration / 1e9 for p in study.points() if not store.has(p.key)})

    def update(done: int, running: int, failed: int, total: int) -> None:
        left = eta.remaining_s()
        progress.update(
            task, completed=done, total=total, count=f"{done}/{total}", state=f"running {running}, failed {failed}",
            eta="" if left is None else f"about {format_seconds(left)} left",
        )  # fmt: skip

    def on_run(ev: RunEvent) -> None:
        eta.update(ev)
        if ev.done:
            if ev.key in runs:
                progress.remove_task(runs.pop(ev.key))
            if verbose and not json_output:
                outcome = f"failed: {ev.error}" if ev.error else f"{ev.wall_s:.2f} s" if ev.wall_s is not None else "stored by another invocation"
                progress.console.print(f"{_labels_text(ev.labels)}  {ev.key[:12]}  {outcome}", highlight=False)
            return
        if ev.key not in runs:
            runs[ev.key] = progress.add_task(f"  {_labels_text(ev.labels)}", total=ev.total_s, state="", count="", eta="")
        progress.update(runs[ev.key], completed=ev.sim_s, state=f"{ev.sim_s:.1f} of {ev.total_s:g} simulated s")

    def on_wait(others: dict[int, int]) -> None:
        if not json_output:
            who = ", ".join(f"{n} point{'s' if n != 1 else ''} of pid {pid}" for pid, n in others.items())
            progress.console.print(f"waiting for another `crosslayer study run` on this store to finish what it claimed ({who}); this one ran the rest", highlight=False)

    try:
        with progress:
            command = "crosslayer " + " ".join(shlex.quote(a) for a in sys.argv[1:])
            report = _engine_guard(lambda: run_study(study, store, workers=workers, client=client, on_progress=update, on_run=on_run, on_wait=on_wait, command=command, fresh=fresh))
    except StoreError as exc:
        _fail(str(exc), 1)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    notes = _study_notes(report, store.root, file)
    summary = {
        "store": str(store.root), "points": report.total, "skipped": report.skipped, "ran": report.ran, "failed": len(report.failed),
        "by_others": report.by_others, "rerun_unreadable": len(report.rerun_unreadable), "cleaned_temporary_files": report.cleaned,
        "conflicting_runs": len(report.conflicts), "interrupted": report.interrupted, "disk_full": report.disk_full, "wall_s": round(report.wall_s, 3),
    }  # fmt: skip
    if json_output:
        typer.echo(dumps_json({**summary, "failures": [{"key": k, **lab, "error": e} for k, lab, e in report.failed], "notes": notes}))
    else:
        for key, labels, error in report.failed:
            err.print(f"failed {key} {labels}: {error}", highlight=False)
        for note in notes:
            err.print(note, highlight=False, soft_wrap=True)
    if not json_output and (not quiet or report.interrupted or report.disk_full):  # an interruption is said even with -q
        others = f", {report.by_others} by another invocation" if report.by_others else ""
        err.print(
            f"{report.ran} run, {report.skipped} already stored{others}, {len(report.failed)} failed of {report.total} points "
            f"in {report.wall_s:.1f} s; store: {store.root}" + (" (interrupted: run again to resume)" if report.interrupted else ""),
            highlight=False,
        )
    if report.interrupted:
        raise typer.Exit(130)
    if report.failed or report.disk_full:
        raise typer.Exit(1)


def _study_notes(report: Any, root: Path, file: Path) -> list[str]:
    """What a user must know about a sweep besides its counts: runs re-done because their files
    did not read back, runs of another definition of the study, a full disk."""
    notes = []
    if report.cleaned:
        notes.append(f"removed {report.cleaned} temporary files a killed invocation left in {root}")
    for key, what in report.rerun_unreadable.items():
        notes.append(f"stored run {key} did not read back ({what}): it ran again")
    if report.conflicts:
        c = report.conflicts[0]
        shown = ", ".join(f"{k} = {v}" for k, v in c.labels.items())
        diff = "; ".join(f"{path}: {_shown(old)} stored, {_shown(new)} now" for path, old, new in c.differences[:6]) or "their engine versions"
        notes.append(
            f"warning: {root} holds {len(report.conflicts)} runs of another definition of this study: at the same swept values "
            f"as this study's points (e.g. {shown}) they differ in {diff}. Tables of this store would mix both; keep one "
            f"definition with `crosslayer results prune {root} --study {file}` (or `crosslayer study run {file} --fresh`), "
            "or write this study to another store (-o)"
        )
    if report.disk_full:
        notes.append(f"{report.disk_full}: the sweep stopped; the runs stored so far are kept and nothing is half-written; free some space and run again to resume")
    return notes


def _shown(value: Any) -> str:
    return "unset" if value is None else json.dumps(value) if isinstance(value, str) else str(value)


@study_app.command("report")
def study_report(
    store: Annotated[Path, typer.Argument(help="Result store written by `crosslayer study run`.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Report folder (default: <store>/report).")] = None,
    weights: Annotated[str | None, typer.Option("--weights", help="Ranking weights, e.g. fairness=2,delay=1,loss=1.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object (the files written) and nothing else.")] = False,
    quiet: Quiet = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also list every file written.")] = False,
) -> None:
    """Write a self-contained HTML report (index.html) and report.md: the papers' tables, fairness,
    a ranking of AQM x TCP pairs, figures, the study file and the command that reproduces it."""
    from crosslayer.report import write_report

    if not (store / "runs").is_dir():
        _fail(f"{store} is not a result store (no runs/ folder); write one with `crosslayer study run`", 2)
    w: dict[str, float] = {}
    for part in (weights or "").split(","):
        if not part.strip():
            continue
        name, eq, value = part.partition("=")
        try:
            w[name.strip()] = float(value)
        except ValueError:
            _fail(f"--weights {weights!r}: write name=number pairs, e.g. fairness=2,delay=1,loss=1", 2)
        if not eq:
            _fail(f"--weights {weights!r}: write name=number pairs, e.g. fairness=2,delay=1,loss=1", 2)
    try:
        folder = write_report(store, out, w)
    except ValueError as exc:
        _fail(str(exc), 2)
    files = sorted(str(f) for f in folder.rglob("*") if f.is_file())
    if json_output:
        typer.echo(dumps_json({"html": str(folder / "index.html"), "markdown": str(folder / "report.md"), "files": files}))
    elif not quiet:
        typer.echo(f"wrote {folder / 'index.html'} and {folder / 'report.md'}")
        if verbose:
            typer.echo("\n".join(f"  {f}" for f in files))


def _metric_help() -> str:
    from crosslayer.metrics import METRICS

    by_level = {"run": [], "flows": [], "group": []}
    for m in METRICS:
        by_level[m.level].append(m.name)
    return (
        f"A run metric ({', '.join(by_level['run'])}), one computed per run from the flows ({', '.join(by_level['flows'])}) "
        f"or per congestion control, rows by cc ({', '.join(by_level['group'])}); `crosslayer results table STORE -m x` lists them with their meaning."
    )


def _store_or_fail(store: Path) -> None:
    if not (store / "runs").is_dir():
        _fail(f"{store} is not a result store (no runs/ folder); write one with `crosslayer study run`", 2)


@results_app.command("table")
def results_table(
    store: Annotated[Path, typer.Argument(help="Result store.")],
    metric: Annotated[str, typer.Option("--metric", "-m", help=_metric_help())] = "jain",
    output: Annotated[str, typer.Option("--format", help="table, markdown, csv, json or latex (csv and json: one row per cell with mean, ci_low, ci_high, n, metric and unit as numbers).")] = "table",
    json_output: Annotated[bool, typer.Option("--json", help="Print the cells as one JSON array (as --format json).")] = False,
    quiet: Quiet = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also say on stderr how many runs the table summarizes.")] = False,
) -> None:
    """A metric laid out as the seed papers' tables: rows the other swept columns, columns the
    queue discipline; each cell the mean over seeds with its 95 % confidence interval (from 3
    seeds on), in the metric's unit, with the number of seeds. -q prints the table without its
    caption and notes."""
    from crosslayer.metrics import lookup
    from crosslayer.report import caption, cells, layout, paper_table, store_metric, summary
    from crosslayer.store import Store, StoreError

    output = "json" if json_output else output
    if output not in ("latex", "csv", "markdown", "table", "json"):
        _fail(f"--format {output!r}: use table, markdown, csv, json or latex", 2)
    try:
        lookup(metric)
    except ValueError as exc:
        _fail(f"--metric: {exc}", 2)
    _store_or_fail(store)
    try:
        lay = layout(Store(store))
        if not lay.point or lay.aqm is None:
            _fail("the store has no swept columns to lay out", 2)
        runs, columns, more_rows = store_metric(store, lay, metric)
    except (ValueError, StoreError) as exc:
        _fail(f"--metric {metric}: {exc}" if "metric" in str(exc) else str(exc), 2)
    rows = [*lay.others, *more_rows] or [lay.aqm]
    summ = summary(runs, columns)
    title, note = caption(summ, metric)
    if verbose:
        typer.echo(f"{metric}: {len(lay.runs)} runs of {store}, rows {', '.join(rows)}, columns {lay.aqm}", err=True)
    if output in ("csv", "json"):
        _print_frame(cells(summ, metric, rows, lay.aqm), output)
        return
    table = paper_table(summ, metric, rows, lay.aqm)
    if output == "latex":
        typer.echo(table.to_latex(caption=None if quiet else f"{title}. {note}".strip()))
    elif output == "markdown":
        if not quiet:
            typer.echo(f"**{title}**\n")
        _print_frame(table.reset_index(), output)
        if note and not quiet:
            typer.echo(f"\n{note}")
    else:
        from rich.markup import escape

        console = _console()
        if not quiet:
            console.print(escape(title), highlight=False, soft_wrap=True)
        _print_frame(table.reset_index(), output)
        if note and not quiet:
            console.print(escape(note), highlight=False, soft_wrap=True)


@results_app.command("plot")
def results_plot(
    store: Annotated[Path, typer.Argument(help="Result store.")],
    kind: Annotated[str, typer.Argument(help="heatmap, queues (queue length over time, a grid), goodput (per-flow boxes) or ellipses (RFC 7928 delay vs goodput).")],
    metric: Annotated[str, typer.Option("--metric", "-m", help="heatmap: " + _metric_help())] = "jain",
    rows: Annotated[str | None, typer.Option("--rows", help="Comma-separated swept columns for the rows (default: every column but --cols).")] = None,
    cols: Annotated[str | None, typer.Option("--cols", help="The swept column across (default: the queue discipline).")] = None,
    where: Annotated[list[str] | None, typer.Option("--where", help="column=value: keep only those points (repeatable).")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Image file (default: <store>/<kind>.png; .pdf and .svg work too).")] = None,
    quiet: Quiet = False,
    verbose: PanelsVerbose = False,
) -> None:
    """Draw one figure from a store, for any metric and axes (the report draws a fixed set)."""
    from crosslayer.report import figure
    from crosslayer.store import StoreError

    _store_or_fail(store)
    target = out or store / f"{kind}.png"
    try:
        fig = figure(store, kind, metric=metric, rows=[r.strip() for r in rows.split(",")] if rows else None, col=cols, where=_where(where))
    except (ValueError, StoreError) as exc:
        _fail(str(exc), 2)
    _save_figure(fig, target, quiet, verbose, bbox_inches="tight")


def _where(where: list[str] | None) -> dict[str, str]:
    fixed: dict[str, str] = {}
    for item in where or []:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            _fail(f"--where {item!r}: write column=value, e.g. --where load=mild", 2)
        fixed[name.strip()] = value.strip()
    return fixed


def _save_figure(fig: Any, target: Path, quiet: bool, verbose: bool, **kwargs: Any) -> None:
    """Save a figure; with ``verbose`` list its panels and their lines."""
    import matplotlib.pyplot as plt

    try:
        fig.savefig(target, dpi=150, **kwargs)
    except (OSError, ValueError) as exc:
        _fail(f"cannot write {target}: {exc}", 1)
    finally:
        plt.close(fig)
    if not quiet:
        typer.echo(f"wrote {target}")
        if verbose:
            for ax in fig.axes:
                lines = [str(line.get_label()) for line in ax.get_lines() if not str(line.get_label()).startswith("_")]
                label = ax.get_ylabel() or ax.get_title()
                if label or lines:
                    typer.echo(f"  panel {label!r}" + (f": {', '.join(lines)}" if lines else ""))


@results_app.command("query")
def results_query(
    sql: Annotated[str, typer.Argument(help="SQL over the views runs, flows, queues, series, udp, cwnd (DuckDB).")],
    store: Annotated[Path, typer.Option("--store", "-s", help="Result store folder.")] = Path("results"),
    output: Annotated[str, typer.Option("--format", help="table, csv, json or markdown.")] = "table",
    json_output: Annotated[bool, typer.Option("--json", help="Print the rows as one JSON array (as --format json).")] = False,
    write_dir: Annotated[Path | None, typer.Option("--allow-write", help="Let COPY ... TO write files inside this folder (otherwise the query can write nothing).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the rows (no count, even with -v).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also say on stderr how many rows the query returned.")] = False,
) -> None:
    """Run SQL over a result store, e.g. `crosslayer results query "select bottleneck_qdisc, avg(jain) from runs group by 1" -s STORE`.

    The query sees the store's tables and nothing else: it cannot read other files (read_text,
    read_csv of a path outside the store), write files (COPY ... TO, unless --allow-write DIR),
    attach databases, or install or load DuckDB extensions."""
    from crosslayer.store import Store

    _store_or_fail(store)
    try:
        df = Store(store).query(sql, write_dir=write_dir)
    except Exception as exc:  # noqa: BLE001 - DuckDB's parser, binder and permission errors
        message = str(exc)
        if "disabled by configuration" in message or "Permission Error" in message:
            message += " (a query reads the store's tables only; --allow-write DIR lets COPY write inside DIR)"
        _fail(f"query failed: {message}", 2)
    if verbose and not quiet:
        typer.echo(f"{len(df)} rows, {len(df.columns)} columns from {store}", err=True)
    _print_frame(df, "json" if json_output else output)


@results_app.command("prune")
def results_prune(
    store: Annotated[Path, typer.Argument(help="Result store.")],
    study_file: Annotated[Path | None, typer.Option("--study", help="Keep only the runs that are points of this study file (with --set as in `study run`).")] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", help="path=value, as given to `study run` (repeatable).")] = None,
    unreadable: Annotated[bool, typer.Option("--unreadable", help="Remove the runs whose files do not read back (each file is read whole).")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Only list what would be removed.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object (the keys removed) and nothing else.")] = False,
    quiet: Quiet = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every key removed.")] = False,
) -> None:
    """Remove runs from a store: those that are not points of a study (after its file was
    edited: one definition per store), and/or those whose files cannot be read."""
    from crosslayer.store import Store

    _store_or_fail(store)
    if study_file is None and not unreadable:
        _fail("say what to remove: --study STUDY.toml (runs that are not its points) and/or --unreadable", 2)
    st = Store(store)
    keep = {p.key for p in _load_study(study_file, sets).points()} if study_file is not None else None
    if dry_run:
        doomed = sorted((st.keys() - keep) if keep is not None else set())
        if unreadable:
            doomed = sorted(set(doomed) | set(st.unreadable()))
    else:
        doomed = st.prune(keep, unreadable=unreadable)
    if json_output:
        typer.echo(dumps_json({"store": str(store), "removed" if not dry_run else "would_remove": doomed, "kept": len(st.keys()) - (len(doomed) if dry_run else 0)}))
        return
    if not quiet:
        typer.echo(f"{'would remove' if dry_run else 'removed'} {len(doomed)} runs from {store}; {len(st.keys()) - (len(doomed) if dry_run else 0)} kept")
        if verbose:
            typer.echo("\n".join(f"  {k}" for k in doomed))


def _cell(v: Any) -> str:
    """A value for a terminal table: floats to 6 significant digits, but never fewer than their
    integer digits (123456789.0 prints whole, not as 1.23457e+08)."""
    if isinstance(v, float):
        return f"{v:.0f}" if abs(v) >= 1e6 and v == v and abs(v) != float("inf") else f"{v:.6g}"
    return str(v)


def _numeric(column: Any) -> bool:
    """A column of numbers, or of numbers as text (the paper tables' cells, "0.93 ± 0.01")."""
    import pandas as pd

    if pd.api.types.is_numeric_dtype(column):
        return True
    text = column.dropna().astype(str)
    return len(text) > 0 and bool(text.str.match(r"^[-+]?[\d.]+(e[-+]?\d+)?( ± [\d.]+)?$|^-$").all())


def _print_frame(df: Any, output: str) -> None:
    if output == "csv":
        typer.echo(df.to_csv(index=False), nl=False)
    elif output == "json":
        typer.echo(dumps_json(df.to_dict(orient="records")))
    elif output == "markdown":
        cells = df.astype(object).map(_cell) if len(df) else df  # the same number rule as the terminal table
        align = ["right" if _numeric(df[c]) else "left" for c in df.columns]
        typer.echo(cells.to_markdown(index=False, disable_numparse=True, colalign=align))
    elif output == "table":
        table = Table()
        for c in df.columns:
            table.add_column(str(c), overflow="fold")
        for row in df.itertuples(index=False):
            table.add_row(*(_cell(v) for v in row))
        _print_table(_console(), table)
    else:
        _fail(f"--format {output!r}: use table, csv, json or markdown", 2)


def _terminate(signum: int, frame: Any) -> None:
    """SIGTERM (``kill``, a job scheduler's time limit) stops the command as Ctrl-C does: a
    sweep stops its workers and keeps what it stored."""
    raise KeyboardInterrupt


def main() -> None:
    """The ``crosslayer`` entry point: the app, with any unexpected exception reported in one
    line (exit 1) instead of a traceback; ``CROSSLAYER_DEBUG=1`` shows the traceback. SIGTERM
    is handled like SIGINT (Ctrl-C)."""
    import signal

    signal.signal(signal.SIGTERM, _terminate)
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        raise SystemExit(130) from None
    except Exception as exc:  # noqa: BLE001 - the last line of defence of the CLI
        if os.environ.get("CROSSLAYER_DEBUG"):
            raise
        typer.echo(f"internal error (a crosslayer bug; please report it with the study file): {type(exc).__name__}: {exc}", err=True)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
