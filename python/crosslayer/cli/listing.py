"""`crosslayer list`: the catalog (algorithms, TCP options, limits, result tables)."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from crosslayer.output import dumps_json

# Everything heavy (pandas, NumPy, pydantic, the engine's catalog) is imported where it is used,
# so that `crosslayer --version` and `crosslayer -h` start in a fraction of a second.
if TYPE_CHECKING:

    from crosslayer.catalog import Algorithm, Param

from crosslayer.cli.common import (
    Listing,
    _console,
    _print_table,
    app,
)


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
    if a.extras.get("naming"):
        console.print(f"  naming: {a.extras['naming']}", highlight=False, soft_wrap=True)
    flags = [k for k in ("needs_ecn", "full_control", "paced", "rate_sample") if a.extras.get(k)]
    if flags:
        console.print(f"  declares: {', '.join(flags)}", highlight=False)
    if a.extras.get("ecn_feedback") not in (None, "classic"):
        console.print(f"  ECN feedback: {a.extras['ecn_feedback']}", highlight=False)
    if a.params:
        _print_table(console, _params_table(a.params))
    else:
        console.print("  no parameters")
    console.print()


@app.command("list")
def list_(
    what: Annotated[
        Listing, typer.Argument(help="cc, aqm, topologies (the presets), tcp (the \\[tcp] options), limits (fixed and \\[limits]) or tables (result columns).")
    ],
    json_output: Annotated[bool, typer.Option("--json", help="Print the catalog entries as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the names, one per line.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also name each algorithm's validation page (docs/models/<name>.md).")] = False,
) -> None:
    """List every congestion control, queue discipline or topology preset with its sources and
    parameters, the TCP options, the limits, or the result tables' columns."""
    from crosslayer.catalog import Param, catalog, format_value

    cat = catalog()
    family = {Listing.cc: "cc", Listing.aqm: "aqm", Listing.topologies: "topology"}.get(what)
    if quiet:
        if family:
            names = list(cat.family(family))
        elif what is Listing.tcp:
            names = [p.name for p in cat.tcp]
        elif what is Listing.limits:
            names = [*cat.bounds, *(p.name for p in cat.limits)]
        else:
            names = list(cat.tables)
        typer.echo("\n".join(names))
        return
    if family:
        algorithms = list(cat.family(family).values())
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
