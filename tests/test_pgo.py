"""The profile-guided build's tool (`tools/pgo.py`, `make pgo`): its training workload runs clean on
whatever engine is installed, the LLVM tool it needs is found by version or named with its fix,
and a build other than the standard one says so."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location("pgo_tool", ROOT / "tools" / "pgo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_training_workload_runs_every_study_and_algorithm_without_a_warning() -> None:
    # Every study file (a few points each, a few simulated seconds), the seed 000 matrix's
    # corners, each congestion control over two queues, each queue discipline and each TCP
    # profile, with warnings raised as errors (--strict): a run that fails or warns fails the
    # workload (the default classes of `classes` warned until they were fixed).
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "pgo.py"), "--train", "--strict"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    runs = int(done.stdout.split("training: ")[1].split(" runs")[0])
    assert runs >= 150, done.stdout


def _fake_tools(monkeypatch: pytest.MonkeyPatch, tool: Any, versions: dict[str, str]) -> None:
    """`llvm-profdata-<major>` programs on PATH that report the given LLVM versions, and a rustc
    sysroot without one."""
    monkeypatch.setattr(tool, "_rustc", lambda *args: "host: x86_64-unknown-linux-gnu\n" if args == ("-vV",) else "/nonexistent\n")
    monkeypatch.setattr(tool.shutil, "which", lambda name: f"/fake/{name}" if name in versions else None)
    monkeypatch.setattr(tool, "_major_of", lambda path: versions.get(path.name))


def test_a_missing_llvm_profdata_is_named_with_its_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _tool()
    _fake_tools(monkeypatch, tool, {})
    with pytest.raises(tool.PgoError) as info:
        tool.find_profdata("99")
    message = str(info.value)
    assert "LLVM 99" in message and "apt-get install llvm-99" in message and "rustup component add llvm-tools" in message


def test_only_the_llvm_profdata_of_rustcs_llvm_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    # The profile formats are versioned: a newer or older tool is refused, not used.
    tool = _tool()
    _fake_tools(monkeypatch, tool, {"llvm-profdata": "23", "llvm-profdata-22": "22"})
    assert tool.find_profdata("22").name == "llvm-profdata-22"
    with pytest.raises(tool.PgoError):
        tool.find_profdata("21")


def test_a_build_other_than_the_standard_one_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from crosslayer import _core
    from crosslayer.version import engine_version, version_line

    assert _core.build() in ("standard", "pgo", "instrumented")
    for build, words in (("standard", None), ("pgo", "(profile-guided build)"), ("instrumented", "make install")):
        monkeypatch.setattr(_core, "build", lambda b=build: b)
        line = version_line()
        assert line.startswith(f"crosslayer {engine_version()}")
        assert line == f"crosslayer {engine_version()}" if words is None else words in line
