"""The engine's catalog drives validation, ``crosslayer list`` and the docs; every registered
algorithm appears in each, and what ``validate`` accepts, the engine runs."""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from crosslayer import _core
from crosslayer.catalog import Param, catalog, format_value
from crosslayer.cli import app
from crosslayer.docgen import stale_docs
from crosslayer.scenario import Scenario, ScenarioError
from helpers import MINIMAL, ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

ALGORITHMS = [(fam, name) for fam in ("cc", "aqm") for name in catalog().family(fam)]


def test_every_registered_algorithm_has_an_up_to_date_docs_page() -> None:
    assert stale_docs(ROOT / "docs" / "models") == [], "run `make docs` (python -m crosslayer.docgen docs/models)"


@pytest.mark.parametrize(("family", "name"), ALGORITHMS)
def test_every_algorithm_is_listed_and_validates_by_name(family: str, name: str) -> None:
    out = CliRunner().invoke(app, ["list", family], terminal_width=200)
    assert out.exit_code == 0 and name in out.stdout
    listed = json.loads(CliRunner().invoke(app, ["list", family, "--json"]).stdout)
    assert name in [a["name"] for a in listed]
    data = copy.deepcopy(MINIMAL)
    if family == "cc":
        data["flows"][0]["cc"] = name
    else:
        data["topology"]["bottleneck"]["qdisc"] = name
    spec = Scenario.from_dict(data).to_engine_spec()
    _core.validate_json(json.dumps(spec))  # the engine accepts the lowered spec


def test_list_tcp_and_tables() -> None:
    out = CliRunner().invoke(app, ["list", "tcp"], terminal_width=200)
    assert out.exit_code == 0 and "[tcp] options" in out.stdout and "min_rto" in out.stdout
    tcp = json.loads(CliRunner().invoke(app, ["list", "tcp", "--json"]).stdout)
    min_rto = next(p for p in tcp["params"] if p["name"] == "min_rto")
    assert (min_rto["default"], min_rto["unit"]) == (None, "time"), "set by the profile"
    assert tcp["profiles"]["linux"]["min_rto"] == 200_000_000 and tcp["profiles"]["ns3"]["min_rto"] == 1_000_000_000
    tables = json.loads(CliRunner().invoke(app, ["list", "tables", "--json"]).stdout)
    assert set(tables) == {"flows", "udp", "queues", "hosts", "hops", "drops", "qdisc_stats", "series", "cwnd", "goodput", "milestones", "wlan"}
    assert all(c["doc"] and c["dtype"] in ("f64", "u64", "str", "category") for t in tables.values() for c in t["columns"])


def test_defaults_come_from_the_engine() -> None:
    cubic = catalog().cc["cubic"]
    data = copy.deepcopy(MINIMAL)
    data["flows"][0]["cc"] = "cubic"
    model = Scenario.from_dict(data).flows[0].cc
    assert model.params() == cubic.defaults()
    assert catalog().lookup("cc", "NewReno") is catalog().cc["reno"]


@pytest.mark.parametrize(("family", "name"), ALGORITHMS)
def test_every_algorithms_defaults_survive_a_dump_and_an_override(family: str, name: str) -> None:
    # An algorithm named with its defaults only: the scenario dumps without a warning (a default
    # held as a bare dict used to warn: the classes of `classes`) and an override, which
    # re-validates the dumped scenario, keeps the same engine configuration.
    data = copy.deepcopy(MINIMAL)
    if family == "cc":
        data["flows"][0]["cc"] = {"kind": name}
    else:
        data["topology"]["bottleneck"]["qdisc"] = {"kind": name}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scenario = Scenario.from_dict(data)
        again = Scenario.from_dict(scenario.model_dump(mode="json"))
        moved = scenario.with_overrides(seed=7)
    spec = scenario.to_engine_spec()
    assert again.to_engine_spec() == spec
    assert {**moved.to_engine_spec(), "seed": spec["seed"]} == spec


# -- what validate accepts, run accepts -------------------------------------------------------


def _values(p: Param) -> st.SearchStrategy[Any]:
    """Values around a parameter's range: bounds, just inside and outside, far outside."""
    if p.unit == "flag":
        return st.booleans()
    if p.unit == "choice":
        return st.sampled_from([*p.choices, "not-a-choice"])
    points: list[Any] = []
    for bound in (p.min, p.max):
        if bound is not None:
            points += [bound, bound + 1, bound - 1] if p.type == "int" else [bound, bound * (1 + 1e-12), bound - 1e-12]
    if p.type == "int":
        top = p.int_max or 2**64
        extra = st.integers(min_value=0, max_value=top + 1)
        points += [0, 1, top, top + 1]
    else:
        extra = st.floats(min_value=-10, max_value=1e6, allow_nan=False)
        points += [0.0, 0.5, 0.9999999999999999, 1.0, 1.5, -0.5]
    return st.one_of(st.sampled_from([v for v in points if p.type != "int" or v >= 0]), extra)


def _as_written(p: Param, v: Any) -> Any:
    """How a study file would write an engine value (units as strings)."""
    return format_value(p, v) if p.unit in ("time", "rate", "size") and isinstance(v, int) else v


def _agree(section: str, data: dict[str, Any], apply: Any) -> None:
    """Python validation accepts the study iff the engine accepts the lowered spec."""
    try:
        spec = Scenario.from_dict(data).to_engine_spec()
    except ScenarioError:
        python_ok, spec = False, None
    else:
        python_ok = True
    if python_ok:
        _core.validate_json(json.dumps(spec))  # must not raise: validate ok => run ok
        return
    # Python refused: the engine must refuse the same values too (no over-strict Python).
    engine_spec = Scenario.from_dict(copy.deepcopy(MINIMAL)).to_engine_spec()
    apply(engine_spec)
    with pytest.raises(ValueError):
        _core.validate_json(json.dumps(engine_spec))


@pytest.mark.parametrize(("family", "name"), ALGORITHMS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_validate_accepts_exactly_what_the_engine_runs(family: str, name: str, data: st.DataObject) -> None:
    a = catalog().family(family)[name]  # type: ignore[arg-type]
    chosen = {p.name: data.draw(_values(p), label=p.name) for p in a.params if data.draw(st.booleans())}
    study = copy.deepcopy(MINIMAL)
    table = {"kind": name, **{k: _as_written(a.param(k), v) for k, v in chosen.items()}}
    if family == "cc":
        study["flows"][0]["cc"] = table

        def apply(spec: dict[str, Any]) -> None:
            spec["flows"][0]["cc"] = {"kind": name, **chosen}
    else:
        study["topology"]["bottleneck"]["qdisc"] = table

        def apply(spec: dict[str, Any]) -> None:
            spec["topology"]["forward"]["qdisc"] = {"kind": name, **chosen}
    _agree(family, study, apply)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_validate_accepts_exactly_what_the_engine_runs_for_tcp(data: st.DataObject) -> None:
    params = catalog().tcp
    chosen = {p.name: data.draw(_values(p), label=p.name) for p in params if data.draw(st.booleans())}
    study = copy.deepcopy(MINIMAL)
    study["tcp"] = {k: _as_written(next(p for p in params if p.name == k), v) for k, v in chosen.items()}

    def apply(spec: dict[str, Any]) -> None:
        spec["flows"][0]["tcp"].update(chosen)

    _agree("tcp", study, apply)


def test_tcp_fields_are_the_catalogs(tmp_path: Path) -> None:
    spec = Scenario.from_dict(copy.deepcopy(MINIMAL)).to_engine_spec()
    assert list(spec["flows"][0]["tcp"]) == [p.name for p in catalog().tcp]
