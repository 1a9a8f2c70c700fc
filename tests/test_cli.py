"""The ``crosslayer`` command line (with a fake engine where a run is needed)."""

from __future__ import annotations

import json
import re
import types
from pathlib import Path

import pytest
from crosslayer.cli import app
from crosslayer.result import TABLES, Result
from helpers import ACCESS_LINK
from typer.testing import CliRunner

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]

BAD_STUDY = """
name = "bad"
duration = "10s"
warmup = "10s"
[topology]
bottleneck = { rate = "-5Mbps", delay = "2ms", qdisc = { kind = "droptail", limit_pkts = 10 } }
senders = [{ name = "N1", rate = "1Mbps", delay = "0s" }]
receivers = [{ name = "N4", rate = "1Mbps", delay = "0s" }]
[[flows]]
src = "N1"
dst = "N4"
cc = "copa"
"""


@pytest.fixture
def bad_study(tmp_path: Path) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(BAD_STUDY)
    return path


def test_validate_ok() -> None:
    result = runner.invoke(app, ["validate", str(ACCESS_LINK)])
    assert result.exit_code == 0, result.output
    assert "9 flows" in result.stdout


@pytest.mark.parametrize("command", ["validate", "run"])
def test_bad_study_exits_2_with_the_problems_on_stderr(command: str, bad_study: Path) -> None:
    result = runner.invoke(app, [command, str(bad_study)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert 'topology.bottleneck.rate: must be a positive rate like "100Mbps" (got "-5Mbps")' in result.stderr
    assert 'flows[0].cc: unknown congestion control "copa"' in result.stderr
    assert "Traceback" not in result.output


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(tmp_path / "nope.toml")])
    assert result.exit_code == 2
    assert "cannot read" in result.stderr


def test_invalid_override_exits_2() -> None:
    result = runner.invoke(app, ["run", str(ACCESS_LINK), "--duration", "5s"])
    assert result.exit_code == 2
    assert "warmup: must be shorter than duration (5s)" in result.stderr


def test_run_prints_summary_and_writes_results(fake_core: types.ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "res"
    result = runner.invoke(
        app, ["run", str(ACCESS_LINK), "--out", str(out), "--seed", "5", "--duration", "5s", "--warmup", "1s"]
    )
    assert result.exit_code == 0, result.output
    assert "Jain's index" in result.stdout and "N3-N6.0" in result.stdout
    spec = fake_core.specs[-1]
    assert (spec["seed"], spec["duration"], spec["warmup"]) == (5, 5_000_000_000, 1_000_000_000)
    loaded = Result.load(out)
    assert loaded.scenario.seed == 5
    assert {p.name for p in out.glob("*.parquet")} == {f"{t}.parquet" for t in TABLES}


def test_run_json_prints_one_json_object_only(fake_core: types.ModuleType, tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", str(ACCESS_LINK), "--json", "--format", "json", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("wall_s", "events", "delivered_segments", "jain", "goodput_mbps", "bottleneck", "summary"):
        assert key in data
    assert data["bottleneck"]["drop_ratio"] == pytest.approx(0.01)
    assert data["out"] == str(tmp_path)
    assert (tmp_path / "flows.json").exists()


def test_engine_failure_exits_1(fake_core: types.ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def panic(spec: str, progress: object = None) -> None:
        fake_core._trigger_panic()

    monkeypatch.setattr(fake_core, "run_json", panic)
    result = runner.invoke(app, ["run", str(ACCESS_LINK), "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert "simulator bug" in result.stderr


def test_engine_spec_rejection_exits_2(
    fake_core: types.ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def reject(spec: str, progress: object = None) -> None:
        raise ValueError("flows[0].tcp.mss: too large")

    monkeypatch.setattr(fake_core, "run_json", reject)
    result = runner.invoke(app, ["run", str(ACCESS_LINK), "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "the engine rejected the scenario: flows[0].tcp.mss: too large" in result.stderr


def test_bench_quick(fake_core: types.ModuleType) -> None:
    result = runner.invoke(app, ["bench", "--quick"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "Access Link, 90 CUBIC flows" in result.stdout
    durations = {spec["duration"] for spec in fake_core.specs}
    assert durations == {10_000_000_000}
    assert [len(spec["flows"]) for spec in fake_core.specs] == [9, 90, 9]


def test_run_never_silently_overwrites_an_earlier_result(tmp_path: Path) -> None:
    study = ROOT / "studies" / "seed000-access-link.toml"
    out = tmp_path / "r"
    args = ["run", str(study), "--out", str(out), "--duration", "5s", "--warmup", "4s", "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    before = (out / "summary.json").read_text()
    again = runner.invoke(app, [*args[:-1], "--seed", "2", "--json"])
    assert again.exit_code == 2 and "already holds a result" in again.stderr
    assert (out / "summary.json").read_text() == before
    forced = runner.invoke(app, [*args, "--force", "--seed", "2"])
    assert forced.exit_code == 0, forced.output
    assert (out / "summary.json").read_text() != before


def test_version_short_help_and_exit_codes_in_help() -> None:
    v = runner.invoke(app, ["-V"])
    # version + engine fingerprint (+ the build, after `make pgo`)
    assert v.exit_code == 0 and re.fullmatch(r"crosslayer \d+\.\d+\.\d+\+[0-9a-f]{16}( \(profile-guided build\))?\n", v.stdout), v.stdout
    h = runner.invoke(app, ["-h"])
    assert h.exit_code == 0 and "Exit codes" in h.stdout and "130 interrupted" in h.stdout


def test_validate_json_and_a_study_file() -> None:
    one = runner.invoke(app, ["validate", str(ROOT / "studies" / "seed000-access-link.toml"), "--json"])
    assert one.exit_code == 0 and json.loads(one.stdout)["flows"] == 9
    matrix = runner.invoke(app, ["validate", str(ROOT / "studies" / "seed000-matrix.toml"), "--json"])
    assert matrix.exit_code == 0, matrix.output
    assert json.loads(matrix.stdout)["points"] == 72


def test_bench_json_prints_one_object_per_case_and_nothing_else(fake_core: types.ModuleType) -> None:
    result = runner.invoke(app, ["bench", "--quick", "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["case"] for r in rows] == ["access-link-9", "access-link-90", "data-center-9"]
    assert [r["flows"] for r in rows] == [9, 90, 9]
    assert all(r["wall_s_per_sim_s"] == r["wall_s"] / r["sim_s"] for r in rows)
    from dataclasses import asdict

    from crosslayer.bench import NS3_REFERENCE

    ref = NS3_REFERENCE["access-link-9"]
    assert rows[0]["ns3_reference"] == asdict(ref)
    assert rows[0]["speedup_vs_ns3"] == ref.wall_s_per_sim_s / rows[0]["wall_s_per_sim_s"]
    quiet = runner.invoke(app, ["bench", "--quick", "-q"])
    assert quiet.exit_code == 0 and "done in" not in quiet.output and "ns-3 reference" not in quiet.stdout
    assert "Access Link, 90 CUBIC flows" in quiet.stdout


def test_the_rust_benchmark_uses_the_same_ns3_reference() -> None:
    """`cargo bench --bench throughput` and `crosslayer bench` divide by the same ns-3 figures."""
    from crosslayer.bench import NS3_REFERENCE

    source = (ROOT / "crates" / "crosslayer-core" / "benches" / "throughput.rs").read_text()
    rust = dict(re.findall(r'name: "([a-z-]+ \d+) cubic droptail".*?ns3_wall_per_sim: Some\(([\d.]+)\)', source))
    assert {k.replace(" ", "-"): float(v) for k, v in rust.items()} == {k: r.wall_s_per_sim_s for k, r in NS3_REFERENCE.items()}


def test_bench_sweep_measures_a_real_sweep_of_short_runs() -> None:
    # `bench --sweep N` runs `crosslayer study run` on N seeds (a real sweep, into a temporary
    # store) and reports its CPU against the engine's own time: both positive, the engine's
    # part of the CPU, the share outside it what they leave
    result = runner.invoke(app, ["bench", "--sweep", "3", "--json"])
    assert result.exit_code == 0, result.output
    cost = json.loads(result.stdout)
    assert cost["runs"] == 3 and cost["workers"] == 1
    assert 0 < cost["engine_s"] < cost["cpu_s"] and cost["wall_s"] > 0
    assert cost["outside_share"] == pytest.approx(1 - cost["engine_s"] / cost["cpu_s"])
    bad = runner.invoke(app, ["bench", "--sweep", "0"])
    assert bad.exit_code != 0 and "at least 1" in bad.output


def test_tables_are_never_cut_when_piped() -> None:
    # CliRunner's output is not a terminal, as in `crosslayer ... | less` or `> file`
    result = runner.invoke(app, ["study", "points", str(ROOT / "studies" / "seed000-matrix.toml")])
    assert result.exit_code == 0, result.output
    keys = runner.invoke(app, ["study", "points", str(ROOT / "studies" / "seed000-matrix.toml"), "-q"]).stdout.split()
    assert len(keys) == 72 and all(len(k) == 20 for k in keys)
    assert all(k in result.stdout for k in keys)
    assert "…" not in result.stdout
    listing = runner.invoke(app, ["list", "tcp"])
    assert listing.exit_code == 0 and "…" not in listing.stdout


def test_large_numbers_print_whole_in_query_tables() -> None:
    from crosslayer.cli.common import _cell

    assert _cell(123456789.0) == "123456789"
    assert _cell(0.918765432) == "0.918765"
    assert _cell(float("nan")) == "nan"


def test_quiet_and_verbose() -> None:
    study = str(ROOT / "studies" / "seed000-access-link.toml")
    q = runner.invoke(app, ["validate", study, "-q"])
    assert q.exit_code == 0 and q.output == ""
    v = runner.invoke(app, ["validate", study, "-v"])
    assert v.exit_code == 0 and "N3-N6.0" in v.stdout
    names = runner.invoke(app, ["list", "cc", "-q"]).stdout.split()
    assert {"reno", "cubic", "bbr3", "ledbat"} <= set(names) and "sources:" not in names
    assert "validation: docs/models/cubic.md" in runner.invoke(app, ["list", "cc", "-v"]).stdout
    for name in names + runner.invoke(app, ["list", "aqm", "-q"]).stdout.split():  # -v's pages exist
        assert (ROOT / "docs" / "models" / f"{name}.md").is_file(), name


def test_run_quiet_prints_only_the_result_folder_and_verbose_every_queue(tmp_path: Path) -> None:
    study = str(ROOT / "studies" / "seed000-access-link.toml")
    args = ["run", study, "--duration", "5s", "--warmup", "4s"]
    q = runner.invoke(app, [*args, "-o", str(tmp_path / "q"), "-q"])
    assert q.exit_code == 0 and q.output.strip() == str(tmp_path / "q")
    v = runner.invoke(app, [*args, "-o", str(tmp_path / "v"), "-v"])
    assert v.exit_code == 0 and "Queues (every link" in v.stdout and "B->N6" in v.stdout


def test_markdown_tables_print_large_numbers_whole_and_align_them_right(capsys: pytest.CaptureFixture[str]) -> None:
    import pandas as pd
    from crosslayer.cli.common import _print_frame

    _print_frame(pd.DataFrame({"load": ["heavy"], "events": [735512863.0], "jain": ["0.93 ± 0.01"]}), "markdown")
    out = capsys.readouterr().out
    assert "735512863" in out and "e+08" not in out
    assert out.splitlines()[1] == "|:-------|----------:|------------:|"
