"""`crosslayer study points | run | report`: studies into a result store."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from crosslayer.output import dumps_json
from crosslayer.units import format_seconds

# Everything heavy (pandas, NumPy, pydantic, the engine's catalog) is imported where it is used,
# so that `crosslayer --version` and `crosslayer -h` start in a fraction of a second.
if TYPE_CHECKING:

    pass

from crosslayer.cli.common import (
    Quiet,
    _console,
    _create_store,
    _dask_client,
    _engine_guard,
    _fail,
    _labels_text,
    _load_study,
    _points_table,
    _print_table,
    study_app,
)


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


@study_app.command("run")
def study_run(
    file: Annotated[Path, typer.Argument(help="Study file (TOML) with a \\[study] table.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Result store (default: results/<study name>).")] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", help="path=value, or path=v1,v2 to sweep (repeatable); study.seeds=N runs every point with seeds 1..N.")] = None,
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

    from crosslayer.store import StoreError
    from crosslayer.sweep import Eta, RunEvent, run_study

    study = _load_study(file, sets)
    store = _create_store(out or Path("results") / study.name, study)
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
        with _dask_client(scheduler, dask_local) as client, progress:
            command = "crosslayer " + " ".join(shlex.quote(a) for a in sys.argv[1:])
            report = _engine_guard(lambda: run_study(study, store, workers=workers, client=client, on_progress=update, on_run=on_run, on_wait=on_wait, command=command, fresh=fresh))
    except StoreError as exc:
        _fail(str(exc), 1)
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
