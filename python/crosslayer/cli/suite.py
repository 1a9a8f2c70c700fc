"""`crosslayer suite list | run | report | check`: the standard evaluation suites (`crosslayer.suites`)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from crosslayer.cli.common import _column_notes, _console, _create_store, _dask_client, _engine_guard, _fail, _parse_sets, _print_table, app
from crosslayer.output import dumps_json

suite_app = typer.Typer(help="Standard evaluation suites (L4S, ...): their study files run into stores, and their reports.", no_args_is_help=True)
app.add_typer(suite_app, name="suite")


def _suite(name: str) -> Any:
    from crosslayer.suites import SuiteError, suite

    try:
        return suite(name)
    except SuiteError as exc:
        _fail(str(exc), 2)


def _suite_study(s: Any, st: Any, overrides: dict[str, Any] | None = None) -> Any:
    """One study file of suite ``s`` with ``overrides``; exit 2 naming the suite, the file and
    its problem if it is invalid or cannot be read (a shipped file edited or damaged in place)."""
    from crosslayer.scenario import ScenarioError
    from crosslayer.study import Study, StudyError

    path = s.path(st)
    try:
        study = Study.from_toml(path, overrides=overrides)
    except (StudyError, ScenarioError) as exc:
        message = str(exc)
        _fail(f"suite {s.name}: {message}" if str(path) in message else f"suite {s.name}: {path}: {message}", 2)
    except OSError as exc:
        _fail(f"suite {s.name}: cannot read {path}: {exc.strerror or exc}", 2)
    _column_notes(study)
    return study


def _write_report(s: Any, stores: dict[str, Any], folder: Path) -> Path:
    """The suite's report, and the cells `crosslayer suite check` runs again (`crosslayer.suites.cells`)."""
    from crosslayer.suites import cells

    path: Path = s.report()(stores, folder)
    cells.record(s.name, stores, folder)
    return path


@suite_app.command("list")
def suite_list(
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON lines instead of a table.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the suites' names, one per line.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also describe each study file.")] = False,
) -> None:
    """The suites, their source documents, and how many runs each study file holds."""
    from rich.table import Table

    from crosslayer.suites import SUITES

    if quiet:
        for name in SUITES:
            typer.echo(name)
        return
    rows = []
    descriptions: dict[str, dict[str, str]] = {}
    for s in SUITES.values():
        loaded = {st.file: _suite_study(s, st) for st in s.studies}
        studies = {f: len(study.points()) for f, study in loaded.items()}
        descriptions[s.name] = {f: study.base.description for f, study in loaded.items()}
        rows.append({"name": s.name, "title": s.title, "source": s.source, "studies": studies, "runs": sum(studies.values())})
    if json_output:
        for r in rows:
            typer.echo(dumps_json(r))
        return
    table = Table(title="suites (crosslayer suite run NAME)")
    for c in ("name", "source", "runs", "what it tests"):
        table.add_column(c)
    for r in rows:
        what = r["title"] + "\n" + ", ".join(f"{f} ({n})" for f, n in r["studies"].items())
        if verbose:
            what += "".join(f"\n  {f}: {d}" for f, d in descriptions[r["name"]].items())
        table.add_row(r["name"], r["source"], str(r["runs"]), what)
    _print_table(_console(), table)


@suite_app.command("run")
def suite_run(
    name: Annotated[str, typer.Argument(help="The suite (crosslayer suite list).")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Folder of the suite's stores (one per study file) and report (default: results/suites/<name>).")] = None,
    aqm: Annotated[str | None, typer.Option("--aqm", help='The queue discipline under test, as a study file writes it: dualpi2, or {kind = "dualpi2", coupling = 1.5}.')] = None,
    cc: Annotated[str | None, typer.Option("--cc", help="The congestion control under test (the Scalable one in the L4S suite), e.g. dctcp.")] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", help="path=value for every study of the suite (repeatable), e.g. study.seeds=5.")] = None,
    quick: Annotated[bool, typer.Option("--quick", help="The reduced version: 8 s runs, one seed, a few points (what the tests run).")] = False,
    workers: Annotated[int | None, typer.Option("--workers", "-j", help="Local worker processes (default: every core).")] = None,
    scheduler: Annotated[str | None, typer.Option("--scheduler", help="Address of a Dask distributed scheduler to run on.")] = None,
    dask_local: Annotated[int | None, typer.Option("--dask-local", help="Start a local Dask cluster with N workers and run on it.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no summary line.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also print a line per finished run: its study, swept values, key and wall time.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object (what ran, the report) and nothing else.")] = False,
) -> None:
    """Run every study of a suite that its stores do not hold yet (resumable: run it again after
    an interruption), then write the suite's report (report.md, figures/, tables/,
    expectations.json) in the output folder."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from crosslayer.store import StoreError
    from crosslayer.study import parse_cli_value
    from crosslayer.suites import overrides, store_name
    from crosslayer.sweep import run_study

    s = _suite(name)
    if aqm is not None and not any(st.aqm_path for st in s.studies):
        _fail(f"suite {s.name} has no queue discipline under test: --aqm does not apply (its studies set their own queues; --set changes them)", 2)
    if cc is not None and not any(st.cc_path for st in s.studies):
        _fail(f"suite {s.name} has no congestion control under test: --cc does not apply", 2)
    folder = out or Path("results") / "suites" / s.name
    user = _parse_sets(sets)
    try:
        aqm_value = None if aqm is None else parse_cli_value(aqm)
        cc_value = None if cc is None else parse_cli_value(cc)
    except ValueError as exc:  # StudyError: a value TOML cannot hold
        _fail(f"--aqm / --cc: {exc}", 2)
    studies = []
    for st in s.studies:
        study = _suite_study(s, st, overrides(s, st, aqm=aqm_value, cc=cc_value, sets=user, quick=quick))
        studies.append((st, study, _create_store(folder / store_name(st), study)))
    err = _console(stderr=True)
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.fields[count]}"), TimeElapsedColumn(), console=err, disable=quiet or json_output)
    total = sum(len(study.points()) for _, study, _ in studies)
    task = progress.add_task(f"suite {s.name}", total=total, count=f"0/{total}")
    done_before = 0
    ran: dict[str, Any] = {}
    failed = []
    interrupted = False
    try:
        with _dask_client(scheduler, dask_local) as client, progress:
            command = "crosslayer " + " ".join(shlex.quote(a) for a in sys.argv[1:])
            for st, study, store in studies:

                def update(done: int, running: int, nfailed: int, n: int, base: int = done_before) -> None:
                    progress.update(task, completed=base + done, count=f"{base + done}/{total}")

                def on_run(ev: Any, file: str = st.file) -> None:
                    if verbose and ev.done and not json_output:
                        outcome = f"failed: {ev.error}" if ev.error else f"{ev.wall_s:.2f} s" if ev.wall_s is not None else "stored by another invocation"
                        progress.console.print(f"{file} {' '.join(f'{k}={v}' for k, v in ev.labels.items())}  {ev.key[:12]}  {outcome}", highlight=False)

                report = _engine_guard(
                    lambda study=study, store=store, update=update, on_run=on_run: run_study(study, store, workers=workers, client=client, on_progress=update, on_run=on_run, command=command)
                )
                ran[store_name(st)] = {"points": report.total, "ran": report.ran, "skipped": report.skipped, "failed": len(report.failed), "wall_s": round(report.wall_s, 3)}
                failed += [(store_name(st), k, lab, e) for k, lab, e in report.failed]
                done_before += report.total
                if report.interrupted:
                    interrupted = True
                    break
    except StoreError as exc:
        _fail(str(exc), 1)
    for study_name, key, labels, error in failed:
        err.print(f"failed {study_name} {key} {labels}: {error}", highlight=False)
    if interrupted:
        if not json_output:
            err.print(f"interrupted: the runs stored so far are kept in {folder}; run the same command again to resume", highlight=False)
        raise typer.Exit(130)
    path = _write_report(s, {store_name(st): store for st, _, store in studies}, folder)
    if json_output:
        typer.echo(dumps_json({"suite": s.name, "folder": str(folder), "studies": ran, "failed": len(failed), "report": str(path), "expectations": json.loads((folder / "expectations.json").read_text())}))
    elif not quiet:
        runs = sum(r["ran"] for r in ran.values())
        wall = sum(r["wall_s"] for r in ran.values())
        err.print(f"{runs} run, {sum(r['skipped'] for r in ran.values())} already stored, {len(failed)} failed of {total} points in {wall:.1f} s; report: {path}", highlight=False)
    if failed:
        raise typer.Exit(1)


@suite_app.command("report")
def suite_report(
    name: Annotated[str, typer.Argument(help="The suite (crosslayer suite list).")],
    folder: Annotated[Path, typer.Argument(help="The folder `crosslayer suite run` wrote (its stores).")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also list every file written.")] = False,
) -> None:
    """Write the suite's report again from the stores in FOLDER (after more seeds, say)."""
    from crosslayer.store import Store
    from crosslayer.suites import store_name

    s = _suite(name)
    stores = {store_name(st): Store(folder / store_name(st)) for st in s.studies if (folder / store_name(st) / "runs").is_dir()}
    if not stores:
        _fail(f"{folder} holds no store of suite {s.name}; run `crosslayer suite run {s.name} -o {folder}` first", 2)
    path = _write_report(s, stores, folder)
    if not quiet:
        typer.echo(f"wrote {path}")
        if verbose:
            for f in sorted(p for p in folder.glob("*") if p.is_file()) + sorted((folder / "figures").glob("*")) + sorted((folder / "tables").glob("*")):
                typer.echo(f"  {f}")


@suite_app.command("check")
def suite_check(
    folder: Annotated[Path, typer.Argument(help="A suite's report folder (`crosslayer suite run` or `report` wrote it), e.g. docs/suites/l4s.")],
    max_events: Annotated[int | None, typer.Option("--max-events", help="Run only the cells recorded with at most this many events (the cheap ones).")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object per cell and nothing else.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the cells that differ or cannot run (the exit status says the rest).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also print what each cell's scenario changes in its study's base scenario, and the engine that recorded it.")] = False,
) -> None:
    """Run again the cells a report records (cells.json: for each value each study sweeps, its
    cheapest run, with its scenario and run metrics) and say whether they give the same numbers: a
    report written before a change that moves results differs. Exit 1 if one differs or cannot
    run, 2 if there are no cells."""
    from crosslayer.suites import cells

    try:
        data = cells.load(folder)
    except cells.CellsError as exc:
        _fail(str(exc), 2)
    least = min((int(c["events"]) for st in data["studies"] for c in st["cells"]), default=None)
    if least is None:
        _fail(f"{folder / cells.CELLS} records no cells (its stores held no runs): nothing to check", 2)
    if max_events is not None and max_events < least:
        _fail(f"--max-events {max_events} leaves no cell to check: the cheapest recorded cell has {least} events", 2)
    name, checked, left = _engine_guard(lambda: cells.check(data, max_events))
    bad = [c for c in checked if not c.same]
    if json_output:
        for c in checked:
            typer.echo(dumps_json({"study": c.study, "key": c.key, "labels": c.labels, "events": c.events, "same": c.same,
                                   "differences": {m: {"recorded": a, "now": b} for m, (a, b) in c.differences.items()}, "error": c.error}))
    else:
        recorded = {(str(st["study"]), str(c["key"])): c for st in data["studies"] for c in st["cells"]} if verbose else {}
        for c in checked:
            if quiet and c.same:
                continue
            where = " ".join(f"{k}={v}" for k, v in c.labels.items())
            if c.error:
                outcome = c.error
            elif c.differences:
                outcome = "differs: " + ", ".join(f"{m} {a} recorded, {b} now" for m, (a, b) in c.differences.items())
            else:
                outcome = "same"
            typer.echo(f"{name} {c.study} {where} {c.key[:12]}: {outcome}")
            if verbose:
                cell = recorded[(c.study, c.key)]
                changes = "; ".join(f"{'.'.join(map(str, path)) or '(all)'} = {json.dumps(value)}" for path, value in cell["changes"]) or "none (the base scenario)"
                typer.echo(f"    recorded by {cell.get('engine_version') or 'an unknown engine'}, {c.events} events; its scenario's changes to the study's base: {changes}")
        if not quiet:
            skipped = f" ({left} left out by --max-events)" if left else ""
            typer.echo(f"{len(checked) - len(bad)} of {len(checked)} cells the same{skipped}")
        if bad:
            _console(stderr=True).print(
                f"the report in {folder} was written with results the engine no longer gives: run the suite again "
                f"(crosslayer suite run {name} -o FOLDER) and write its report from those stores", highlight=False
            )
    if bad:
        raise typer.Exit(1)
