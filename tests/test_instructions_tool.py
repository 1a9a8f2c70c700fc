"""tools/instructions.py (`make instructions`): the callgrind count of instructions and the
events a delivered segment that docs/PERFORMANCE.md records, in one command."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "instructions.py"


def tool() -> Any:
    spec = importlib.util.spec_from_file_location("instructions_tool", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["instructions_tool"] = module
    spec.loader.exec_module(module)
    return module


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, cwd=ROOT)


def test_it_reads_callgrind_and_both_examples_last_lines() -> None:
    t = tool()
    stderr = "==123== Events    : Ir\n==123== Collected : 656336516\n==123== \n==123== I   refs:      656,336,516\n"
    assert t.parse_refs(stderr) == 656_336_516
    assert t.parse_counts("bottleneck: ...\n390763 events, 242378 delivered segments, wall 0.100 s -> ...\n") == (390763, 242378)
    assert t.parse_counts("event loop  0.1 s\n9 flows, 1319226 events, 824633 delivered segments\n") == (1319226, 824633)
    with pytest.raises(t.ToolError, match="no instruction count"):
        t.parse_refs("valgrind: command not understood")
    with pytest.raises(t.ToolError, match="delivered segments"):
        t.parse_counts("nothing")
    m = t.Measured("access 9 30 droptail cubic", 656_336_516, 390_763, 242_378)
    assert round(m.per_segment) == 2708 and round(m.events_per_segment, 2) == 1.61
    # the target sits beside its row
    assert "<= 2,000, <= 3.7 events" in t.table([(m, None)])
    before = t.Measured(m.run, 700_000_000, 390_763, 242_378)
    assert "-6.24 %" in t.table([(m, before)])


def test_it_names_the_runs_whose_fingerprint_changed() -> None:
    t = tool()
    base = ["access 9 droptail cubic linux   56030 events    34058 segments b685b982a397dd9c", "access 9 pie cubic linux   56031 events    34058 segments 00"]
    now = [base[0], "access 9 pie cubic linux   56031 events    34058 segments 01"]
    assert t.fingerprint_diff(base, base) == []
    assert t.fingerprint_diff(base, now) == ["access 9 pie cubic linux"]
    assert t.panic_message("thread 'main' panicked at examples/seed000.rs:20:18:\nunknown scenario \"x\": use access or datacenter\nnote: ...") == 'unknown scenario "x": use access or datacenter'


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--fingerprints"], "--fingerprints compares with --base REV"),
        (["--run", "access 9"], "give at least the scenario, the flows and the simulated seconds"),
        (["--base", "no-such-commit-anywhere"], "is not a commit of this repository"),
        (["--study", "studies/seed000-matrix.toml", "--point", "99"], "has points 0 to 71"),
        (["--study", "studies/seed000-matrix.toml", "--point", "zz"], "no points of studies/seed000-matrix.toml have a key starting so"),
    ],
)
def test_bad_input_is_a_clear_error_before_anything_is_built(args: list[str], says: str) -> None:
    if shutil.which("valgrind") is None:
        done = run_tool(*args)
        assert done.returncode == 2 and ("valgrind is not installed" in done.stderr or says in done.stderr)
        return
    done = run_tool(*args)
    assert done.returncode == 2, done.stderr
    assert says in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed (make test installs it where it can: Debian package valgrind)")
def test_a_run_is_counted_and_its_events_are_the_examples_own() -> None:
    done = run_tool("--run", "access 9 5 droptail cubic", "--run", "access 9 5 codel cubic", "--json")
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)["runs"]
    assert [r["run"] for r in runs] == ["access 9 5 droptail cubic", "access 9 5 codel cubic"]
    for r in runs:
        # the same events and segments as the example prints when run natively (deterministic)
        native = subprocess.run([str(ROOT / "target/release/examples/seed000"), *r["run"].split()], capture_output=True, text=True, check=True).stdout
        assert tool().parse_counts(native) == (r["events"], r["segments"])
        # a 5-second run of nine flows: tens of millions of instructions, a few thousand a segment
        assert 10_000_000 < r["instructions"] < 1_000_000_000
        assert 1_000 < r["instructions_per_segment"] < 10_000
        assert r["instructions_per_segment"] == r["instructions"] / r["segments"]
    # CoDel decides at dequeue: its segment costs more than Drop Tail's
    assert runs[1]["instructions_per_segment"] > runs[0]["instructions_per_segment"]
