"""The floors of the code, checked so they cannot silently knot again (docs/design.md, "Floors").

* The engine crate: an arrow A -> B whenever a file of top-level module A names ``crate::B``
  (or one of B's exported macros) outside ``#[cfg(test)]``; the arrows form no circle, and run
  only downwards in the declared floors.
* The congestion controls and queue disciplines: an algorithm's file imports only its family's
  contract (``mod.rs``), the registry and the family's ``law`` floor, never a sibling algorithm.
* The Python package: an arrow A -> B whenever module A imports B (at the top or inside a
  function); no circle.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "crates" / "crosslayer-core" / "src"
PACKAGE = ROOT / "python" / "crosslayer"

MACROS = {"params": "params", "choice": "params", "range": "params", "counters": "metrics", "registry": "registry", "red_config": "aqm"}
"""Macros exported at the crate root (``crate::counters!``), by the module that defines them."""

FLOORS: list[set[str]] = [
    {"units", "rng", "error", "ring"},
    {"params", "packet"},
    {"registry", "result", "stack", "sched"},
    {"metrics"},
    {"cc"},
    {"aqm"},
    {"tcp"},
    {"traffic"},
    {"topo"},
    {"spec"},
    {"net"},
    {"flow"},
    {"sim"},
    {"report"},
    {"catalog", "presets"},
]
"""The engine's floors, bottom first: vocabulary (units, parameters, packets, table columns, the
stack's options, the scheduler), then the laws and algorithms (congestion controls, queue
disciplines), the endpoints (TCP, other traffic), the scenario (its topology: graphs, presets,
routing; then the spec) and the network built from it,
a flow's life (pending, live, ended), the loop, and the outputs on top (the report, the catalog, the presets)."""


def strip_tests(text: str) -> str:
    """``text`` without its ``#[cfg(test)]`` items and its comments."""
    text = re.sub(r"//[^\n]*", "", text)
    out: list[str] = []
    lines = text.split("\n")
    k = 0
    while k < len(lines):
        if re.match(r"\s*#\[cfg\(test\)\]", lines[k]):
            k += 1
            depth, started = 0, False
            while k < len(lines):
                line = lines[k]
                depth += line.count("{") - line.count("}")
                started = started or "{" in line
                k += 1
                if (started and depth <= 0) or (not started and line.rstrip().endswith(";")):
                    break
            continue
        out.append(lines[k])
        k += 1
    return "\n".join(out)


def top_module(path: Path) -> str:
    return path.relative_to(CORE).parts[0].removesuffix(".rs")


def crate_arrows() -> dict[tuple[str, str], list[str]]:
    """(A, B) -> the files of A that name B."""
    arrows: dict[tuple[str, str], list[str]] = defaultdict(list)
    for f in sorted(CORE.rglob("*.rs")):
        a = top_module(f)
        if a == "lib":
            continue
        for name in set(re.findall(r"crate::([a-z_0-9]+)", strip_tests(f.read_text()))):
            b = MACROS.get(name, name)
            if b != a:
                arrows[(a, b)].append(str(f.relative_to(CORE)))
    return dict(arrows)


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_engine_modules_form_no_circle_and_import_only_downwards() -> None:
    arrows = crate_arrows()
    assert cycles(set(arrows)) == [], {k: v for k, v in arrows.items()}
    floor = {m: i for i, ms in enumerate(FLOORS) for m in ms}
    modules = {top_module(f) for f in CORE.rglob("*.rs")} - {"lib"}
    assert modules <= set(floor), f"modules without a floor in FLOORS: {sorted(modules - set(floor))}"
    upward = {f"{a} -> {b} ({', '.join(files)})" for (a, b), files in arrows.items() if floor[a] < floor[b]}
    assert not upward, "imports that run upward:\n" + "\n".join(sorted(upward))


def family_violations(family: str) -> list[str]:
    """Files of ``family`` (cc, aqm) that name a sibling algorithm's file."""
    folder = CORE / family
    algorithms = {p.stem for p in folder.glob("*.rs")} - {"mod", "testing", "queue"}
    bad = []
    for f in sorted(folder.glob("*.rs")):
        if f.stem not in algorithms:
            continue
        text = strip_tests(f.read_text())
        for other in sorted(algorithms - {f.stem}):
            if re.search(rf"\b(super|crate::{family})::{other}\b", text):
                bad.append(f"{family}/{f.name} names {family}/{other}.rs")
    return bad


def test_no_algorithm_imports_a_sibling_algorithm() -> None:
    """The family rule, written in cc/mod.rs and aqm/mod.rs: contract, registry and law only."""
    for family in ("cc", "aqm"):
        assert family_violations(family) == []
        assert (CORE / family / "law").is_dir()
        assert "law" in (CORE / family / "mod.rs").read_text()


def python_arrows() -> set[tuple[str, str]]:
    """(A, B) for every import of crosslayer module B in module A, anywhere in the file."""
    modules = {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    edges: set[tuple[str, str]] = set()
    for f in sorted([*PACKAGE.glob("*.py"), *PACKAGE.glob("*/*.py")]):
        rel = f.relative_to(PACKAGE)
        a = rel.parts[0].removesuffix(".py")
        if a == "__init__":
            continue
        for node in ast.walk(ast.parse(f.read_text())):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level and node.module:  # from .x import y / from . import x
                    names = [node.module.split(".")[0]] if len(rel.parts) == 1 or node.level > 1 else [rel.parts[0]]
                elif node.level:
                    names = [alias.name for alias in node.names]
                elif node.module and node.module.startswith("crosslayer."):
                    names = [node.module.split(".")[1]]
                elif node.module == "crosslayer":
                    names = [alias.name for alias in node.names if alias.name in modules]
            elif isinstance(node, ast.Import):
                names = [alias.name.split(".")[1] for alias in node.names if alias.name.startswith("crosslayer.")]
            for b in names:
                if b in modules and b != a:
                    edges.add((a, b))
    return edges


def test_the_python_modules_form_no_circle() -> None:
    edges = python_arrows()
    assert cycles(edges) == [], sorted(edges)


def test_the_engine_stubs_match_the_compiled_module() -> None:
    """``_core.pyi`` declares what the compiled module has: the same public names, classes with
    the same bases, functions with the same parameters (names, order, defaults)."""
    import inspect

    from crosslayer import _core

    stub = ast.parse((PACKAGE / "_core.pyi").read_text())
    declared = {node.name: node for node in stub.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    actual = {name for name in dir(_core) if not name.startswith("__")}
    assert set(declared) == actual, f"in the stubs only: {sorted(set(declared) - actual)}; in the module only: {sorted(actual - set(declared))}"
    for name, node in declared.items():
        obj = getattr(_core, name)
        if isinstance(node, ast.ClassDef):
            bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
            assert [c.__name__ for c in obj.__bases__] == bases, name
            continue
        params = inspect.signature(obj).parameters
        args = node.args.args
        defaults = [None] * (len(args) - len(node.args.defaults)) + [ast.literal_eval(d) for d in node.args.defaults]
        stub_params = [(a.arg, d) for a, d in zip(args, defaults)]
        real_params = [(p.name, None if p.default is inspect.Parameter.empty else p.default) for p in params.values()]
        assert stub_params == real_params, (name, stub_params, real_params)
