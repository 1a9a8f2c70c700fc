"""What the seed pages' table scripts share: a cell as the mean and 95 % interval over the seeds,
the line under a table saying which seeds, and the command line of a script of named tables."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from crosslayer.analysis import interval95


def ci(values: Iterable[float], dec: int, scale: float = 1.0, thousands: bool = False) -> str:
    """``mean ± half-width`` of the seeds' values (the 95 % Student-t interval)."""
    iv = interval95([scale * v for v in values])
    if thousands:
        return f"{iv.mean:,.{dec}f} ± {iv.half:,.{dec}f}"
    return f"{iv.mean:.{dec}f} ± {iv.half:.{dec}f}"


def seeds_line(runs) -> None:  # type: ignore[no-untyped-def]
    """Print the line under a table: which seeds its intervals are over."""
    seeds = sorted(int(s) for s in runs["seed"].unique())
    print(f"\nMean ± the 95 % half-width over seeds {', '.join(map(str, seeds))} (Student t, {len(seeds) - 1} degrees of freedom).")


def table_cli(tables: dict[str, Callable[[str], None]]) -> None:
    """``script.py TABLE STORE``: print that table from that result store."""
    if len(sys.argv) != 3 or sys.argv[1] not in tables:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(tables)}}} STORE")
    if not (Path(sys.argv[2]) / "runs").is_dir():
        sys.exit(f"{sys.argv[2]} is not a result store (no runs/ folder): run the `crosslayer study run` command at the top of this file first")
    tables[sys.argv[1]](sys.argv[2])
