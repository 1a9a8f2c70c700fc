"""Paths into a study file's fields, and setting them: ``topology.bottleneck.qdisc``,
``flows[0].cc``, ``flows[*].per_pair``.

A path names a field as the study file writes it: dotted keys, ``[i]`` for one element of a
list, ``[*]`` for every element; several paths joined by commas are set together to the same
value (``"flows[*].cc, arrivals[*].cc"``: one axis for every flow's congestion control). :func:`set_path` sets one in a TOML-shaped mapping (setting an
algorithm's ``kind`` keeps only the parameters the new algorithm accepts); the study layer
(:mod:`crosslayer.study`) and :meth:`crosslayer.scenario.Scenario.with_paths` build on it.
"""

from __future__ import annotations

import copy
import re
import tomllib
from typing import Any, Final

from crosslayer.catalog import catalog

__all__ = ["StudyError", "parse_cli_value", "set_path", "split_paths"]


class StudyError(ValueError):
    """An invalid study file, path or override: the message names the field and the fix."""


_TOKEN: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\*|\d+)\]|(\.)")


def split_paths(path: str) -> list[str]:
    """The paths a key names: one, or several joined by commas (set together)."""
    parts = [p.strip() for p in path.split(",")]
    if len(parts) > 1 and not all(parts):
        raise StudyError(f"{path!r}: an empty path between commas; join several paths as \"a.b, c[*].d\"")
    return parts


def _tokens(path: str) -> list[str | int | None]:
    """``a.b[2][*].c`` -> ["a", "b", 2, None, "c"] (None = every element)."""
    out: list[str | int | None] = []
    pos = 0
    expect_name = True
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if not m:
            raise StudyError(f"{path!r}: cannot read a path at {path[pos:]!r}; write fields as a.b, list elements as a[0] or a[*]")
        name, index, dot = m.groups()
        if name is not None:
            if not expect_name:
                raise StudyError(f"{path!r}: a '.' is missing before {name!r}")
            out.append(name)
            expect_name = False
        elif index is not None:
            out.append(None if index == "*" else int(index))
            expect_name = False
        elif dot:
            if expect_name:
                raise StudyError(f"{path!r}: empty field name")
            expect_name = True
        pos = m.end()
    if not out or expect_name:
        raise StudyError(f"{path!r}: the path ends without a field name")
    return out


def _kind_params(kind: str) -> set[str] | None:
    """The parameter names of algorithm ``kind`` (a name or an alias) in either family."""
    cat = catalog()
    for fam in (cat.cc, cat.aqm):
        for a in fam.values():
            if kind == a.name or kind in a.aliases:
                return {p.name for p in a.params}
    return None


def _assign(container: Any, key: str | int, value: Any, path: str) -> None:
    if key == "kind" and isinstance(container, dict) and isinstance(value, str) and container.get("kind") not in (None, value):
        keep = _kind_params(value)
        if keep is not None:
            for k in [k for k in container if k != "kind" and k not in keep]:
                del container[k]
    if isinstance(container, dict):
        container[key] = value
    elif isinstance(container, list) and isinstance(key, int):
        if key >= len(container):
            raise StudyError(f"{path!r}: index {key} is out of range (the list has {len(container)} elements)")
        container[key] = value
    else:
        raise StudyError(f"{path!r}: cannot set a field of {type(container).__name__}")


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Set ``path`` in a TOML-shaped mapping (in place); ``[*]`` sets every element. Each place
    gets its own copy of ``value``: a later path that edits inside it (e.g. a ``kind`` that
    drops parameters) must never change the value itself, which other points reuse. Several
    paths joined by commas are each set to ``value``."""
    if "," in path:
        for one in split_paths(path):
            set_path(data, one, value)
        return
    tokens = _tokens(path)
    original = value

    def fresh() -> Any:
        return copy.deepcopy(original)

    def walk(node: Any, rest: list[str | int | None], where: str) -> None:
        head, tail = rest[0], rest[1:]
        if head is None:
            if not isinstance(node, list):
                raise StudyError(f"{path!r}: {where or 'the scenario'} is not a list, so [*] does not apply")
            for i in range(len(node)):
                if tail:
                    walk(node[i], tail, f"{where}[{i}]")
                else:
                    node[i] = fresh()
            return
        if isinstance(head, int):
            if not isinstance(node, list):
                raise StudyError(f"{path!r}: {where or 'the scenario'} is not a list")
            if head >= len(node):
                raise StudyError(f"{path!r}: {where}[{head}] does not exist ({len(node)} elements)")
        elif not isinstance(node, dict):
            if isinstance(node, str) and head != "kind":
                # a bare algorithm name (cc = "cubic") becomes a table to take a parameter
                raise StudyError(f"{path!r}: {where} is the name {node!r}; set {where} to a table {{kind = {node!r}, ...}} first")
            raise StudyError(f"{path!r}: {where or 'the scenario'} has no field {head!r}")
        if not tail:
            _assign(node, head, fresh(), path)
            return
        child = node[head] if isinstance(head, int) else node.get(head)
        if child is None:
            child = {}
            node[head] = child
        if isinstance(child, str) and isinstance(tail[0], str):
            # cc = "cubic" with a parameter path below it: expand to a table
            child = {"kind": child}
            node[head] = child
        walk(child, tail, f"{where}.{head}" if where and isinstance(head, str) else f"{where}[{head}]" if isinstance(head, int) else head)

    walk(data, tokens, "")


def parse_cli_value(text: str) -> Any:
    """A ``--set`` value: TOML (numbers, booleans, quoted strings, arrays, inline tables), or
    the text itself as a string (``--set flows[*].cc=reno``). A quantity needs its unit, as in
    the study file (``--set tcp.min_rto=1s``)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    except (RecursionError, ValueError) as exc:
        raise StudyError(f"value {text[:40]!r}...: {toml_refusal(exc)}") from None


def toml_refusal(exc: RecursionError | ValueError) -> str:
    """Why the TOML reader refused text it could parse (``tomllib.loads`` raising other than
    ``TOMLDecodeError``): arrays or tables nested deeper than it follows, or an integer longer
    than Python converts. The one wording for study files and command-line values."""
    if isinstance(exc, RecursionError):
        return "arrays or tables nested too deeply"
    return "an integer has more than 4300 digits" if "digits" in str(exc) else str(exc)


