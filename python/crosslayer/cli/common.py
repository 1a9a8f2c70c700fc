"""Shared pieces of the command line: the app and its groups, consoles, failures and exit
codes, loading study files, printing tables and figures."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from crosslayer.output import dumps_json

# Everything heavy (pandas, NumPy, pydantic, the engine's catalog) is imported where it is used,
# so that `crosslayer --version` and `crosslayer -h` start in a fraction of a second.
if TYPE_CHECKING:

    from crosslayer.scenario import Scenario


EXIT_CODES = (
    "Exit codes: 0 success; 1 engine failure (out of memory, a \\[limits] value reached, a simulator "
    "bug), results that cannot be written after a run, failed study points, or the other "
    "simulator's failure (crosscheck); 2 invalid study file, command line or output location "
    "(checked before anything runs), or a scenario the other simulator cannot express; 3 a "
    "crosscheck --strict metric beyond its bar; 130 interrupted (Ctrl-C: stored runs are kept)."
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
        from crosslayer.version import version_line

        typer.echo(version_line())
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """Packet-level simulator of TCP congestion control and AQM."""


T = TypeVar("T")


class Listing(StrEnum):
    """What ``crosslayer list`` shows."""

    cc = "cc"
    aqm = "aqm"
    topologies = "topologies"
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
    limit = getattr(_core, "LimitError", None)
    try:
        return work()
    except _core.EngineError as exc:
        if limit is not None and isinstance(exc, limit):
            _fail(f"the run stopped at a limit: {exc}", 1)
        _fail(f"engine failure (a simulator bug; please report it with the study file): {exc}", 1)
    except ValueError as exc:
        _fail(f"the engine rejected the scenario: {exc}", 2)


def _num(value: float | None, digits: int = 2, scale: float = 1.0) -> str:
    return "-" if value is None else f"{value * scale:,.{digits}f}"


Folder = Annotated[Path, typer.Argument(help="A result folder written by `crosslayer run`, or a study's store (then pick one run with --key or --where).")]


Key = Annotated[str | None, typer.Option("--key", "-k", help="In a store: the run's key (or its first digits; `crosslayer results query \"select key, * from runs\" -s STORE` lists them).")]


Where = Annotated[list[str] | None, typer.Option("--where", help="In a store: column=value choosing one run (repeatable), e.g. --where aqm=codel --where seed=1.")]


study_app = typer.Typer(help="Studies: sweeps over a base scenario, run into a result store.", no_args_is_help=True)


def _create_store(root: Path, study: Any) -> Any:
    """The store at ``root``, created for ``study`` (or joined), or exit 2 naming why not."""
    from crosslayer.store import Store, StoreError

    store = Store(root)
    try:
        store.create(study.text or None)
    except StoreError as exc:
        _fail(str(exc), 2)
    except OSError as exc:
        _fail(f"cannot write the store {store.root}: {exc.strerror or exc}", 2)
    return store


@contextlib.contextmanager
def _dask_client(scheduler: str | None, dask_local: int | None) -> Iterator[Any]:
    """The Dask client of ``--scheduler ADDRESS`` or ``--dask-local N`` (None: run on local
    worker processes), closed with its local cluster on the way out."""
    if not (scheduler or dask_local):
        yield None
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        _fail("Dask is not installed: pip install distributed (a dependency of crosslayer; the environment lacks it)", 2)
    cluster = LocalCluster(n_workers=dask_local, threads_per_worker=1, processes=True) if dask_local else None
    client = Client(cluster) if cluster is not None else Client(scheduler)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


results_app = typer.Typer(help="Query, tabulate and plot a result store.", no_args_is_help=True)


app.add_typer(study_app, name="study")


def _parse_sets(sets: list[str] | None) -> dict[str, Any]:
    """``--set path=value`` options: a value, or several (comma-separated TOML values, or a
    TOML array) to sweep."""
    from crosslayer.study import parse_cli_value

    out: dict[str, Any] = {}
    for item in sets or []:
        path, eq, text = item.partition("=")
        if not eq or not path.strip():
            _fail(f"--set {item!r}: write --set path=value, e.g. --set flows[*].cc=reno or --set tcp.min_rto=1s", 2)
        try:
            value = parse_cli_value(text.strip())
            if isinstance(value, str) and "," in value and not text.strip().startswith(('"', "'")):
                value = [parse_cli_value(v.strip()) for v in value.split(",")]
        except ValueError as exc:  # StudyError: a value TOML cannot hold
            _fail(f"--set {path.strip()}: {exc}", 2)
        out[path.strip()] = value
    return out


def _labels_text(labels: Any) -> str:
    return " ".join(f"{k}={v}" for k, v in labels.items())


def _load_study(file: Path, sets: list[str] | None) -> Any:
    from crosslayer.scenario import ScenarioError
    from crosslayer.study import Study, StudyError

    try:
        study = Study.from_toml(file, overrides=_parse_sets(sets))
    except (StudyError, ScenarioError) as exc:
        _fail(str(exc), 2)
    except OSError as exc:
        _fail(f"cannot read {file}: {exc.strerror or exc}", 2)
    _column_notes(study)
    return study


def _column_notes(study: Any) -> None:
    """Tell, on stderr, of each axis column that took ``_axis`` because a result column has the
    name it would have had (``Study.column_notes``)."""
    for note in study.column_notes:
        typer.echo(f"note: {note}", err=True)


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


app.add_typer(results_app, name="results")


def _points_table(name: str, columns: Any, points: list[Any], stored: dict[str, bool] | None = None) -> Table:
    table = Table(title=f"{name}: {len(points)} points")
    cols = list(columns)
    for c in ["key", *cols, *(["stored"] if stored else [])]:
        table.add_column(c)
    for p in points:
        table.add_row(p.key, *(str(p.labels.get(c, "")) for c in cols), *(["yes" if stored[p.key] else "no"] if stored else []))
    return table
