"""`crosslayer plot-queue`, `plot-cwnd`, `plot-goodput`: the figures of one run (a result
folder, or one run of a study's store)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

# Everything heavy (pandas, NumPy, pydantic, the engine's catalog) is imported where it is used,
# so that `crosslayer --version` and `crosslayer -h` start in a fraction of a second.
if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from crosslayer.result import Result

from crosslayer.cli.common import (
    Folder,
    Key,
    PanelsVerbose,
    Quiet,
    Where,
    _fail,
    _save_figure,
    _where,
    app,
)


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
    from crosslayer.plots import queue_figure

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
    from crosslayer.plots import cwnd_figure

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
    from crosslayer.plots import goodput_figure

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
            result = Result.from_store(store, chosen)
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
