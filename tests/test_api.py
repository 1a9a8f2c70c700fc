"""The package facade: crosslayer.run accepts every scenario form; lazy EngineError."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import pytest
from helpers import ACCESS_LINK

import crosslayer
from crosslayer import Result, Scenario, ScenarioError


def test_run_accepts_scenario_mapping_path_and_text(fake_core: types.ModuleType, minimal: dict[str, Any]) -> None:
    forms: list[Any] = [
        Scenario.from_dict(minimal),
        minimal,
        ACCESS_LINK,
        str(ACCESS_LINK),
        ACCESS_LINK.read_text(),
    ]
    results = [crosslayer.run(form) for form in forms]
    assert all(isinstance(r, Result) for r in results)
    assert [r.scenario.name for r in results] == ["minimal", "minimal"] + ["seed000-access-link"] * 3
    specs = fake_core.specs
    assert specs[0] == specs[1] and specs[2] == specs[3] == specs[4]


def test_run_rejects_an_invalid_scenario_before_the_engine(fake_core: types.ModuleType, minimal: dict[str, Any]) -> None:
    minimal["flows"][0]["cc"] = "copa"
    with pytest.raises(ScenarioError):
        crosslayer.run(minimal)
    assert fake_core.specs == []


def test_engine_error_is_resolved_lazily(fake_core: types.ModuleType) -> None:
    assert crosslayer.EngineError is fake_core.EngineError
    with pytest.raises(AttributeError):
        crosslayer.no_such_name  # noqa: B018


def test_missing_study_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        crosslayer.run(tmp_path / "missing.toml")
