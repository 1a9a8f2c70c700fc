"""The profile-guided build's tool (`tools/pgo.py`, `make pgo`): its training workload runs clean on
whatever engine is installed, and a missing LLVM tool is named with its fix."""

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
    # profile, with warnings raised as errors: a run that fails or warns fails the workload (the
    # default classes of `classes` warned until they were fixed).
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "pgo.py"), "--train"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    runs = int(done.stdout.split("training: ")[1].split(" runs")[0])
    assert runs >= 150, done.stdout


def test_a_missing_llvm_profdata_is_named_with_its_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _tool()
    monkeypatch.setattr(tool.shutil, "which", lambda name: None)
    monkeypatch.setattr(tool, "_major_of", lambda path: None)
    with pytest.raises(tool.PgoError) as info:
        tool.find_profdata("99")
    message = str(info.value)
    assert "LLVM 99" in message and "apt-get install llvm-99" in message and "rustup component add llvm-tools" in message


def test_the_build_is_reported() -> None:
    from crosslayer import _core
    from crosslayer.version import version_line

    assert _core.build() in ("standard", "pgo")
    assert version_line().startswith("crosslayer ") and (("profile-guided" in version_line()) == (_core.build() == "pgo"))
