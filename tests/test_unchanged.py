"""Every study in studies/ gives the results it gave before graph topologies (4a9a152): the first
and last point of each, cut to 3 s, every column of every result table byte for byte. Columns
added since (flows.route, the hops table, ...) and studies the old engine could not read are not
compared. Regenerate the reference only for a change meant to alter results, and say so:

    git worktree add /tmp/before <commit> && (cd /tmp/before && pip install -e .)
    python validation/snapshot.py study-ends tests/data/study-ends-<commit>.json   # with its engine

A model change meant to alter some of these runs is recorded instead in
``tests/data/study-ends-changes.json``: for each run, the reason (what changed and by how much)
and the columns' new fingerprints, which replace the reference's; every other column must still
match 4a9a152.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "data" / "study-ends-4a9a152.json"
CHANGES = ROOT / "tests" / "data" / "study-ends-changes.json"


def _reference() -> dict[str, dict[str, str]]:
    """The fingerprints at 4a9a152 with the recorded deliberate changes applied."""
    before = json.loads(REFERENCE.read_text())
    for run, change in json.loads(CHANGES.read_text()).items():
        assert change["reason"], f"{run}: a change needs its reason"
        assert set(change["columns"]) <= set(before[run]), f"{run}: only columns of the reference can change"
        before[run].update(change["columns"])
    return before


def _snapshot_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("snapshot", ROOT / "validation" / "snapshot.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def now() -> dict[str, dict[str, str]]:
    return _snapshot_module().study_fingerprints(ends=True, cut="3s", warmup="1s")


def test_the_reference_covers_every_study_that_existed() -> None:
    before = json.loads(REFERENCE.read_text())
    studies = {run.split("#")[0] for run in before}
    assert len(before) >= 25 and len(studies) == 15, sorted(studies)
    assert "seed000-access-link.toml" in studies and "seed004-two-way.toml" in studies


def test_every_study_gives_the_results_it_gave_before_graph_topologies(now: dict[str, dict[str, str]]) -> None:
    before = _reference()
    assert set(before) <= set(now), sorted(set(before) - set(now))
    compared = 0
    differ = []
    for run, columns in before.items():
        for column, digest in columns.items():
            assert column in now[run], f"{run}: column {column} is gone"
            compared += 1
            if now[run][column] != digest:
                differ.append(f"{run} {column}")
    assert not differ, f"{len(differ)} of {compared} columns differ: {differ[:20]}"
    assert compared > 3000
