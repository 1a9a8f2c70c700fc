"""``crosslayer`` command line: run, validate, list, benchmark, studies and result stores.

Exit codes (also in ``crosslayer --help``): 0 success, 1 engine failure (out of memory, a
[limits] value reached, a simulator bug), results that cannot be written after the run, or
failed study points, or the other simulator's failure in a crosscheck, 2 invalid study file or
command line (including an output folder that cannot be written or already holds a result,
checked before the run, and a scenario the other simulator cannot express), 3 a crosscheck
--strict metric beyond its bar, 130 interrupted.

The commands live in modules by group: ``run`` (run, validate), ``figures`` (plot-*),
``bench``, ``listing`` (list), ``study``, ``results``, ``crosscheck`` and ``suite``; ``common`` holds the app and what they
share. Importing this package registers them all (in the order ``crosslayer -h`` lists them).
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    """``app`` on first use (PEP 562): importing the commands imports typer and rich, which
    ``crosslayer --version`` does without."""
    if name == "app":
        from crosslayer.cli import run, figures, bench, listing, study, results, crosscheck, suite  # noqa: F401, I001 - registers the commands, in this order
        from crosslayer.cli.common import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _terminate(signum: int, frame: Any) -> None:
    """SIGTERM (``kill``, a job scheduler's time limit) stops the command as Ctrl-C does: a
    sweep stops its workers and keeps what it stored."""
    raise KeyboardInterrupt


def main() -> None:
    """The ``crosslayer`` entry point: the app, with any unexpected exception reported in one
    line (exit 1) instead of a traceback; ``CROSSLAYER_DEBUG=1`` shows the traceback. SIGTERM
    is handled like SIGINT (Ctrl-C)."""
    import signal

    if sys.argv[1:] in (["--version"], ["-V"]):
        # what the app's --version prints, without loading the app (typer, rich)
        from crosslayer.version import version_line

        print(version_line())
        return
    import typer

    signal.signal(signal.SIGTERM, _terminate)
    try:
        __getattr__("app")()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        raise SystemExit(130) from None
    except Exception as exc:  # noqa: BLE001 - the last line of defence of the CLI
        if os.environ.get("CROSSLAYER_DEBUG"):
            raise
        typer.echo(f"internal error (a crosslayer bug; please report it with the study file): {type(exc).__name__}: {exc}", err=True)
        raise SystemExit(1) from None
