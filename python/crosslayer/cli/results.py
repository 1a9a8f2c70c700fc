"""`crosslayer results table | plot | query | prune`: reading a result store."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from crosslayer.output import dumps_json

# Everything heavy (pandas, NumPy, pydantic, the engine's catalog) is imported where it is used,
# so that `crosslayer --version` and `crosslayer -h` start in a fraction of a second.
if TYPE_CHECKING:

    pass

from crosslayer.cli.common import (
    PanelsVerbose,
    Quiet,
    _console,
    _fail,
    _load_study,
    _metric_help,
    _print_frame,
    _save_figure,
    _store_or_fail,
    _where,
    results_app,
)


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
    from crosslayer.report import (
        caption,
        cells,
        layout,
        paper_table,
        store_metric,
        summary,
    )
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


@results_app.command("query")
def results_query(
    sql: Annotated[str, typer.Argument(help="SQL over the views runs, flows, queues, series, udp, cwnd, goodput, milestones, wlan (DuckDB).")],
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
