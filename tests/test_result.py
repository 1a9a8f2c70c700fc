"""Result tables, aggregates, save/load, and Jain's index."""

from __future__ import annotations

import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from typing import Any

import pandas as pd
import pytest
from crosslayer.result import TABLES, Format, Result, dumps_json, jain_index
from crosslayer.scenario import Scenario
from helpers import fake_engine_result
from hypothesis import given
from hypothesis import strategies as st

rates = st.lists(st.floats(min_value=0, max_value=1e12, allow_nan=False), min_size=1, max_size=50)


@given(rates)
def test_jain_is_between_one_over_n_and_one(values: list[float]) -> None:
    j = jain_index(values)
    if not any(values):
        assert math.isnan(j)
    else:
        assert 1 / len(values) - 1e-12 <= j <= 1 + 1e-12


@given(rates, st.floats(min_value=1e-3, max_value=1e3))
def test_jain_is_scale_invariant(values: list[float], k: float) -> None:
    if any(v * k > 0 for v in values):
        assert jain_index([v * k for v in values]) == pytest.approx(jain_index(values), rel=1e-9)


@given(st.floats(min_value=1e-6, max_value=1e12), st.integers(min_value=1, max_value=100))
def test_jain_extremes(x: float, n: int) -> None:
    assert jain_index([x] * n) == pytest.approx(1.0)
    assert jain_index([x] + [0.0] * (n - 1)) == pytest.approx(1 / n)


def test_jain_known_value_and_errors() -> None:
    # (1 + 2 + 3)^2 / (3 * (1 + 4 + 9)) = 36 / 42
    assert jain_index(pd.Series([1.0, 2.0, 3.0])) == pytest.approx(6 / 7)
    with pytest.raises(ValueError):
        jain_index([])
    with pytest.raises(ValueError):
        jain_index([1.0, -1.0])


@pytest.fixture
def result(minimal: dict[str, Any]) -> Result:
    minimal["cwnd_trace"] = True
    minimal["flows"][0]["per_pair"] = 3
    scenario = Scenario.from_dict(minimal)
    return Result.from_engine(fake_engine_result(scenario.to_engine_spec()), scenario)


def test_tables_have_documented_columns(result: Result) -> None:
    for name, columns in TABLES.items():
        assert list(getattr(result, name).columns) == list(columns)
    assert list(result.flows["name"]) == ["S1-R1.0", "S1-R1.1", "S1-R1.2"]
    assert result.bottleneck["link"] == "A->B"


def test_missing_cwnd_table_is_empty_with_columns(minimal: dict[str, Any]) -> None:
    scenario = Scenario.from_dict(minimal)
    raw = fake_engine_result(scenario.to_engine_spec())
    del raw["cwnd"]
    result = Result.from_engine(raw, scenario)
    assert result.cwnd.empty and list(result.cwnd.columns) == list(TABLES["cwnd"])


def test_aggregates(result: Result) -> None:
    agg = result.aggregates()
    assert agg["flows"] == 3
    assert agg["bottleneck"]["drop_ratio"] == pytest.approx(100 / 10_000)
    assert agg["bottleneck"]["drops"] == 100
    assert agg["jain"] == pytest.approx(jain_index(result.flows["goodput_bps"]))
    assert agg["goodput_mbps"]["median"] == pytest.approx(result.flows["goodput_bps"].median() / 1e6)
    assert agg["delivered_segments_per_wall_s"] == pytest.approx(45678 / 0.25)
    assert agg["wall_s_per_sim_s"] == pytest.approx(0.25 / 10)
    json.loads(dumps_json(agg))  # plain JSON


@pytest.mark.parametrize("fmt", ["parquet", "json"])
def test_save_and_load_round_trip(result: Result, tmp_path: Path, fmt: Format) -> None:
    folder = result.save(tmp_path / "out", format=fmt)
    assert {p.name for p in folder.iterdir()} == {f"{t}.{fmt}" for t in TABLES} | {"summary.json", "scenario.json"}
    loaded = Result.load(folder)
    assert loaded.scenario == result.scenario
    assert loaded.summary == result.summary
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(loaded, name), getattr(result, name), check_dtype=True)


def test_saving_in_another_format_replaces_the_tables(result: Result, tmp_path: Path) -> None:
    result.save(tmp_path, format="json")
    result.save(tmp_path, format="parquet")
    assert {p.name for p in tmp_path.glob("*.json")} == {"summary.json", "scenario.json"}


def test_to_dict_and_json_have_no_nan(result: Result) -> None:
    data = result.to_dict()
    assert set(data) == {"summary", "scenario", *TABLES}
    text = dumps_json(data)
    assert "NaN" not in text
    assert json.loads(text)["queues"]["sojourn_mean_s"][1] is None


def test_repr_and_html_repr_show_the_headline_numbers() -> None:
    import crosslayer

    r = crosslayer.run(crosslayer.Scenario.from_toml(ROOT / "studies" / "seed000-access-link.toml").with_overrides(duration="5s", warmup="4s", cwnd_trace=True))
    text = repr(r)
    assert "seed000-access-link" in text and "utilization=" in text and "Jains_index=" in text
    page = r._repr_html_()
    assert "<table>" in page and "mean queue" in page and "N1-N4.0" in page
    # ssthresh not yet set is NaN, not 2^64 - 1
    ss = r.cwnd["ssthresh_bytes"]
    assert ss.dtype == float and ss.isna().any() and ss.max() < 2**40
