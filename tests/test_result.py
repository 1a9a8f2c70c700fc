"""Result tables, aggregates, save/load, and Jain's index."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import subprocess
import sys
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


def test_tables_become_dataframes_when_first_read(result: Result) -> None:
    """from_engine keeps the engine's columns; a table is built once, on first read, and a copy
    made before any read (pickling, deepcopy) holds the same tables."""
    pending = {name for name in TABLES if not isinstance(result.__dict__[name], pd.DataFrame)}
    assert pending == set(TABLES)
    twin = copy.deepcopy(result)
    assert result.flows is result.flows
    assert isinstance(result.__dict__["flows"], pd.DataFrame) and not isinstance(result.__dict__["queues"], pd.DataFrame)
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(twin, name), getattr(result, name))
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.flows = result.queues  # type: ignore[misc]
    assert {f.name for f in dataclasses.fields(Result)} == {"summary", *TABLES, "scenario", "captures"}


def test_rows_counts_a_table_without_building_it(result: Result, minimal: dict[str, Any]) -> None:
    counts = {name: result.rows(name) for name in TABLES}
    assert not any(isinstance(result.__dict__[name], pd.DataFrame) for name in TABLES)  # none built
    assert counts == {name: len(getattr(result, name)) for name in TABLES}
    assert counts["flows"] == 3 and {result.rows(name) for name in TABLES} != {0}
    assert {name: result.rows(name) for name in TABLES} == counts  # and once built
    scenario = Scenario.from_dict(minimal)
    raw = fake_engine_result(scenario.to_engine_spec())
    del raw["cwnd"]
    assert Result.from_engine(raw, scenario).rows("cwnd") == 0
    with pytest.raises(KeyError, match="no table 'flow'"):
        result.rows("flow")


def test_a_table_too_large_for_memory_is_a_limit_error(result: Result, monkeypatch: pytest.MonkeyPatch) -> None:
    import crosslayer
    import crosslayer.result

    def no_memory(*_: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(crosslayer.result, "_table", no_memory)
    with pytest.raises(crosslayer.EngineError, match="out of memory while building the result tables"):
        result.flows  # noqa: B018 (the read builds the table)


def test_a_run_loads_pandas_only_when_a_table_is_read() -> None:
    script = (
        "import sys, crosslayer\n"
        "sc = crosslayer.Scenario.from_toml('studies/seed000-access-link.toml').with_overrides(duration='5s', warmup='4s')\n"
        "r = crosslayer.run(sc)\n"
        "assert r.summary['events'] > 0 and 'pandas' not in sys.modules, sorted(m for m in sys.modules if 'pandas' in m)[:3]\n"
        "assert len(r.flows) == 9 and 'pandas' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True)


def test_missing_cwnd_table_is_empty_with_columns(minimal: dict[str, Any]) -> None:
    scenario = Scenario.from_dict(minimal)
    raw = fake_engine_result(scenario.to_engine_spec())
    del raw["cwnd"]
    result = Result.from_engine(raw, scenario)
    assert result.cwnd.empty and list(result.cwnd.columns) == list(TABLES["cwnd"])


def test_aggregates(result: Result) -> None:
    agg = result.aggregates()
    assert not isinstance(result.__dict__["hosts"], pd.DataFrame)  # only aggregated: never built
    for key, column in (("max_host_goodput_share", "goodput_share"), ("max_host_bottleneck_drop_share", "bottleneck_drop_share")):
        assert agg["lockout"][key] == float(result.hosts[column].max())
    assert agg["flows"] == 3
    assert agg["bottleneck"]["drop_ratio"] == pytest.approx(100 / 10_000)
    assert agg["bottleneck"]["drops"] == 100
    assert agg["jain"] == pytest.approx(jain_index(result.flows["goodput_bps"]))
    assert agg["goodput_mbps"]["median"] == pytest.approx(result.flows["goodput_bps"].median() / 1e6)
    assert agg["delivered_segments_per_wall_s"] == pytest.approx(45678 / 0.25)
    assert agg["wall_s_per_sim_s"] == pytest.approx(0.25 / 10)
    json.loads(dumps_json(agg))  # plain JSON


columns = st.lists(st.one_of(st.floats(min_value=-1e12, max_value=1e12), st.sampled_from([0.0, -0.0, 1.5, math.nan])), max_size=40)


@given(columns)
def test_aggregates_quantiles_means_and_maxima_are_pandas_to_the_bit(values: list[float]) -> None:
    # aggregates() computes from the columns' arrays what it once asked pandas for: the very
    # same floats (NaN skipped, empty or all-NaN gives NaN)
    import numpy as np

    from crosslayer.result import QUARTILES, _nanmax, _nanmean, _nanquantile

    x, series = np.array(values, dtype=float), pd.Series(values, dtype=float)
    for qs in (QUARTILES, np.array([0.5]), np.array([0.99])):
        want = series.quantile(list(qs)).to_numpy(dtype=float)
        assert np.array_equal(_nanquantile(x, qs), want, equal_nan=True)
        assert np.array_equal(np.signbit(_nanquantile(x, qs)), np.signbit(want))
    for got, want_value in ((_nanmean(x), float(series.mean())), (_nanmax(x), float(series.max()))):
        assert (math.isnan(got) and math.isnan(want_value)) or (got == want_value and math.copysign(1, got) == math.copysign(1, want_value))


def test_aggregates_of_finite_flows_and_links_are_those_of_the_tables(result: Result) -> None:
    flows = result.flows.copy()
    flows["size_bytes"] = [0, 20_000, 3_000][: len(flows)]
    flows["fct_s"] = [math.nan, 0.5, math.nan][: len(flows)]
    flows["slowdown"] = [math.nan, 3.25, math.nan][: len(flows)]
    queues = result.queues.copy()
    queues["utilization"] = [0.5, math.nan, 0.9, 0.5, 0.9, 0.1][: len(queues)] + [0.0] * max(0, len(queues) - 6)
    r = dataclasses.replace(result, flows=flows, queues=queues)
    agg = r.aggregates()
    f = r.fct
    s = f.loc[f["completed"], "slowdown"]
    assert agg["fct"] == {
        "flows": len(f),
        "completed": int(f["completed"].sum()),
        "slowdown_mean": float(s.mean()),
        "slowdown_p50": float(s.quantile(0.5)),
        "slowdown_p99": float(s.quantile(0.99)),
        "fct_mean_s": float(f.loc[f["completed"], "fct_s"].mean()),
    }
    busiest = r.busiest_links()
    assert agg["busiest_links"] == [{"link": b.link, "utilization": b.utilization, "drop_ratio": b.drop_ratio} for b in busiest.itertuples()]
    none = dataclasses.replace(result, flows=flows.assign(size_bytes=0)).aggregates()
    assert none["fct"] is None


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
