"""`crosslayer crosscheck`: a study file run by crosslayer and by ns-3 or ns-2, with an agreement table."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from crosslayer.cli.common import Quiet, _console, _fail, _is_study, _load, _load_study, _parse_sets, _print_table, app
from crosslayer.output import dumps_json


def _command_line() -> str:
    """This command as typed (the program's name shortened to ``crosslayer``)."""
    import shlex
    import sys

    return " ".join(["crosslayer", *(shlex.quote(a) for a in sys.argv[1:])])


class Other(str, Enum):
    ns3 = "ns3"
    ns2 = "ns2"
    linux = "linux"


@app.command()
def crosscheck(
    file: Annotated[Path, typer.Argument(help="Study file (TOML); a study with axes needs --point.")],
    other: Annotated[Other, typer.Option("--with", help="The simulator to compare with: ns3 (ns-3 3.44, the PyPI ns3 package), ns2 (ns-2.35, Debian's ns2) or linux (the Linux 6.1 kernel as User-mode Linux in virtual time: `crosslayer linux-ref build` first).")] = Other.ns3,
    seeds: Annotated[int, typer.Option("--seeds", min=1, help="Seeds to run in both simulators: the scenario's seed and the ones after it.")] = 1,
    ns3_python: Annotated[str | None, typer.Option("--ns3-python", help="The Python that has ns-3 (default: $CROSSLAYER_NS3_PYTHON, else ~/ns3env/bin/python).")] = None,
    ns2: Annotated[str | None, typer.Option("--ns2", help="The ns-2 program (default: $CROSSLAYER_NS2, else ns on the PATH).")] = None,
    kernel: Annotated[str | None, typer.Option("--kernel", help="The Linux reference kernel (default: $CROSSLAYER_LINUX, else the one `crosslayer linux-ref build` cached).")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Runs of the other simulator at once (each uses one core).")] = 1,
    timeout: Annotated[float | None, typer.Option("--timeout", min=1, help="Stop a run of the other simulator after this many wall seconds (it fails the crosscheck).")] = None,
    point: Annotated[int | None, typer.Option("--point", min=0, help="For a study with axes: the point to check (as `crosslayer study points` numbers them).")] = None,
    duration: Annotated[str | None, typer.Option(help='Override the duration, e.g. "20s".')] = None,
    warmup: Annotated[str | None, typer.Option(help='Override the warm-up, e.g. "5s".')] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", help="path=value override (repeatable).")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Also write crosscheck.md, crosscheck.json, crosscheck.png and the other simulator's program here.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object and nothing else.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 3 when a metric differs beyond its bar.")] = False,
    fresh: Annotated[bool, typer.Option("--fresh", help="Run the other simulator again for every seed, even where the cache holds a run of the same program on the same installation (docs/crosscheck.md, \"Runs kept\").")] = False,
    quiet: Quiet = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also print each flow's goodput in both and what stands in for what.")] = False,
) -> None:
    """Run a study file in crosslayer and in ns-3, ns-2 or the Linux kernel (crosslayer with that simulator's TCP
    profile, the same start times in both), seed by seed, and print how far they agree, metric by
    metric, against stated bars (docs/crosscheck.md). Elements the other simulator cannot express
    are refused before anything runs."""
    from crosslayer.crosscheck import SIMULATORS, OtherSimulatorError, Untranslatable
    from crosslayer.crosscheck import crosscheck as run_crosscheck

    overrides = {k: v for k, v in {"duration": duration, "warmup": warmup}.items() if v is not None}
    for path, value in _parse_sets(sets).items():
        if isinstance(value, list):
            _fail(f"--set {path}: crosscheck takes one value per path", 2)
        overrides[path] = value
    if _is_study(file):
        study = _load_study(file, sets)
        points = study.points()
        if point is None and len(points) > 1:
            _fail(f"{file} is a study of {len(points)} points: choose one with --point (0 .. {len(points) - 1}; `crosslayer study points {file}` lists them)", 2)
        k = point or 0
        if k >= len(points):
            _fail(f"--point {k}: {file} has {len(points)} points (0 .. {len(points) - 1})", 2)
        from crosslayer.scenario import ScenarioError

        try:
            scenario = points[k].scenario.with_overrides(**{p: v for p, v in overrides.items() if p in ("duration", "warmup")})
        except ScenarioError as exc:
            _fail(str(exc), 2)
    else:
        if point:
            _fail(f"--point: {file} has no [study] table (one scenario)", 2)
        scenario = _load(file, overrides)
    if out is not None and out.exists() and not out.is_dir():
        _fail(f"{out} exists and is not a folder: choose another --out", 2)

    err = Console(stderr=True)
    status = err.status(f"crosscheck {scenario.name}", spinner="dots")
    show = not (quiet or json_output) and err.is_terminal
    first = scenario.seed
    try:
        if show:
            status.start()
        result = run_crosscheck(
            scenario, other.value, seeds=[first + k for k in range(seeds)], ns3_python=ns3_python, ns2=ns2, kernel=kernel, jobs=jobs, timeout_s=timeout, fresh=fresh,
            progress=(lambda text: status.update(f"crosscheck {scenario.name}: {text}")) if show else None,
        )  # fmt: skip
    except Untranslatable as exc:
        _fail(f"{file}: {exc}", 2)
    except FileNotFoundError as exc:
        _fail(str(exc), 2)
    except OtherSimulatorError as exc:
        _fail(str(exc), 1)
    finally:
        status.stop()
    program_name = {"ns3": "ns3_program.py", "ns2": "ns2_program.tcl", "linux": "linux_guest.sh"}[other.value]
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
            (out / "crosscheck.json").write_text(dumps_json(result.to_json()) + "\n", encoding="utf-8")
            result.figure().savefig(out / "crosscheck.png", dpi=110)
            (out / "crosscheck.md").write_text(result.markdown("crosscheck.png", command=_command_line()), encoding="utf-8")
            (out / program_name).write_text(result.program, encoding="utf-8")
        except OSError as exc:
            _fail(f"cannot write the crosscheck to {out}: {exc.strerror or exc}", 1)
    if json_output:
        typer.echo(dumps_json(result.to_json()))
    elif not quiet:
        console = _console()
        other_name = SIMULATORS[other.value]
        table = Table(title=f"{scenario.name}: crosslayer (profile {other.value}) against {other_name}, seeds {', '.join(map(str, result.seeds))}")
        for header in ("metric", "crosslayer", other_name, "difference", "bar", "verdict"):
            table.add_column(header, justify="left" if header in ("metric", "verdict", "bar") else "right")
        for m in result.metrics:
            a, b, d = result.cells(m)
            color = {"agrees": "green", "differs": "red"}.get(m.verdict, "yellow")
            table.add_row(m.label, a, b, d, m.bar, f"[{color}]{m.verdict}[/{color}]")
        _print_table(console, table)
        if verbose:
            flows = Table(title="Goodput per flow, Mb/s (means over the seeds)")
            for header in ("flow", "crosslayer", other_name):
                flows.add_column(header, justify="left" if header == "flow" else "right")
            for name, ours, theirs in result.flow_goodput():
                flows.add_row(name, f"{ours / 1e6:.2f}", f"{theirs / 1e6:.2f}")
            _print_table(console, flows)
            for note in result.notes:
                console.print(f"- {note}", highlight=False)
        for text in (*result.left_out, *result.warnings):
            console.print(f"[yellow]{text}[/yellow]", highlight=False)
        walls = [s.wall_s for s in result.theirs]
        console.print(f"wall per run: crosslayer {sum(s.wall_s for s in result.ours) / len(result.ours):.3f} s, {other_name} {sum(walls) / len(walls):.1f} s", highlight=False)
        if result.cached:
            console.print(
                f"{other_name}'s runs of seed{'s' if len(result.cached) > 1 else ''} {', '.join(map(str, result.cached))} were read back from the cache "
                "(the same program on the same installation ran before); --fresh runs them again", highlight=False
            )
        if out is not None:
            console.print(f"written: {out}/crosscheck.md, crosscheck.json, crosscheck.png, {program_name}", highlight=False)
    if strict and not result.agrees:
        raise typer.Exit(3)


linux_ref_app = typer.Typer(help="The Linux kernel as a reference (crosscheck --with linux): build it, check it.", no_args_is_help=True)
app.add_typer(linux_ref_app, name="linux-ref")


@linux_ref_app.command("build")
def linux_ref_build(
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Compiler jobs (default: every core).")] = None,
    keep_source: Annotated[bool, typer.Option("--keep-source", help="Keep the configured source tree beside the kernel (about 1.5 GB).")] = False,
    quiet: Quiet = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also print the kernel's configuration options and its build log's path.")] = False,
) -> None:
    """Build the reference kernel once: User-mode Linux 6.1 with time-travel (virtual time) from
    Debian's linux-source-6.1 package, every congestion control and qdisc the reference maps built
    in; cached under ~/.cache/crosslayer/linux-ref (or $CROSSLAYER_CACHE). About 5 minutes on 2
    cores; nothing is downloaded but the Debian package."""
    from crosslayer.crosscheck.linux_kernel import KernelBuildError, build

    try:
        path = build(jobs=jobs, keep_source=keep_source, say=(lambda text: None) if quiet else (lambda text: typer.echo(text, err=True)))
    except KernelBuildError as exc:
        _fail(str(exc), 1)
    if verbose and not quiet:
        from crosslayer.crosscheck.linux_kernel import CONFIG

        typer.echo(f"build log: {path.parent / 'build.log'}; options: " + " ".join(f"CONFIG_{k}={'y' if v else 'n'}" for k, v in CONFIG.items()), err=True)
    typer.echo(str(path))


@linux_ref_app.command("path")
def linux_ref_path(
    quiet: Quiet = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also print the cache folder the kernel is looked for in.")] = False,
) -> None:
    """Print the cached reference kernel's path (exit 1 when it is not built)."""
    from crosslayer.crosscheck.linux import find_kernel
    from crosslayer.crosscheck.linux_kernel import cache_dir

    try:
        path = find_kernel()
    except FileNotFoundError as exc:
        _fail(str(exc), 1)
    if verbose and not quiet:
        typer.echo(f"cache: {cache_dir()}", err=True)
    typer.echo(path)
