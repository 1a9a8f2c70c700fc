"""No input makes crosslayer crash, hang or lie: every input ends in a ScenarioError naming the
study file's own field (exit 2 from the CLI) or in a run; the engine's limits are checked before
the run; out of memory and panics become EngineError; result folders are complete or absent.

The review's reproducers are in ``tests/repros/robustness/`` (copied from shared/repros): each
runs through ``crosslayer validate`` and ``crosslayer run`` in a subprocess with a 4 GB
address-space limit and a timeout.
"""

from __future__ import annotations

import copy
import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet
import pytest
from crosslayer import EngineError, Scenario, ScenarioError
from crosslayer.cli import app
from crosslayer.study import Study
from helpers import ACCESS_LINK, MINIMAL, ROOT
from typer.testing import CliRunner

REPROS = ROOT / "tests" / "repros" / "robustness"
CLI = [sys.executable, "-m", "crosslayer.cli"]

# How each reproducer must end: (exit code, text the message must contain). Exit 2 messages
# name the field as the study file writes it.
EXPECTED: dict[str, tuple[int, str]] = {
    "bigint-4301-digits.toml": (2, "invalid TOML: an integer has more than 4300 digits"),
    "cc-not-a-table.toml": (2, 'flows[0].cc: must be a name like "reno" or a table'),
    "decimal-overflow.toml": (2, 'duration: must be below 1e20 nanoseconds (got "1e999999s")'),
    "deep-nesting-400-show.toml": (2, "name: must be a string (got [[[[[...]]]]])"),
    "deep-nesting-600-tomllib.toml": (2, "invalid TOML: arrays or tables nested too deeply"),
    "delay-1e5000s.toml": (2, 'topology.bottleneck.delay: must be below 1e20 nanoseconds (got "1e5000s")'),
    "delay-1h.toml": (2, 'topology.bottleneck.delay: must be at most 10s (got "3600s")'),
    "limit-pkts-2p32.toml": (2, "topology.bottleneck.qdisc.limit_pkts: must be at most 4294967295 (got 4294967296)"),
    "loss-largest-below-1.toml": (0, ""),
    "mss-1B-validate-ok-run-fails.toml": (2, 'flows[0].tcp.mss: must be in [64B, 65kB] (got "1B")'),
    "name-300-chars.toml": (2, "name: must be letters, digits, '.', '_' and '-', at most 100 characters"),
    "non-utf8.toml": (2, "not UTF-8 text: byte 0xe9 at line 2, column 19"),
    "per-pair-1e12-hang.toml": (2, "flows[0].per_pair: must be at most 1000000"),
    "rate-1e999999bps-slow-parse.toml": (2, 'topology.bottleneck.rate: must be below 1e20 bit/s (got "1e999999bps")'),
    "rto-1ns-slow.toml": (2, 'tcp.min_rto: must be in [1us, 1000000s] (got "1ns")'),
    "sample-at-u64max-hang.toml": (2, "duration: must be at most 1000000s"),
    "sample-interval-check-gap.toml": (2, "sample_interval: the series would hold 100,000,001 rows"),
    "series-50M-samples-memory.toml": (2, "sample_interval: the series would hold 50,000,001 rows"),
    "series-cwnd-50M-samples-abort.toml": (2, "sample_interval: the series and cwnd traces would hold 100,000,002 rows"),
}


def _limited(memory_bytes: int) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    return apply


def cli(args: list[str], *, memory_gb: float = 4, timeout: float = 120, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a subprocess under an address-space limit."""
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_limited(int(memory_gb * 2**30)),
        env={**os.environ, "RUST_BACKTRACE": "0", **(env or {})},
        cwd=cwd,
    )


def test_every_reproducer_is_covered() -> None:
    files = {p.name for p in REPROS.glob("*.toml")} - {"_base.toml"}
    assert files == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reproducer_ends_in_a_clear_error_or_a_run(name: str, tmp_path: Path) -> None:
    code, text = EXPECTED[name]
    for command in (["validate"], ["run", "--out", str(tmp_path / "out")]):
        done = cli([*command, str(REPROS / name)])
        assert done.returncode == code, (command, done.stderr[-2000:])
        assert "Traceback" not in done.stderr and "panicked" not in done.stderr
        assert text in done.stderr, done.stderr
        if code == 2:
            assert done.stdout == "", "problems go to stderr"
    if code == 0:  # the run wrote a complete folder
        assert {p.name for p in (tmp_path / "out").iterdir()} >= {"flows.parquet", "summary.json", "scenario.json"}


def test_api_only_inputs_are_scenario_errors() -> None:
    base = Scenario.from_toml(REPROS / "_base.toml").model_dump(mode="json")
    cases = {
        "cc = None": lambda d: d["flows"][0].update(cc=None),
        "cc = []": lambda d: d["flows"][0].update(cc=[]),
        "warmup = lone surrogate": lambda d: d.update(warmup="\udcff"),
        "qdisc = lone surrogate": lambda d: d["topology"]["bottleneck"].update(qdisc="\udcff"),
        "name = 10**5000": lambda d: d.update(name=10**5000),
        "key = lone surrogate": lambda d: d.update({"\udcff": 1}),
        "nested 2000 deep": lambda d: d.update(description=_nest(2000)),
        "duration = nan": lambda d: d.update(duration=float("nan")),
        "seed = 2**64": lambda d: d.update(seed=2**64),
    }
    for label, mutate in cases.items():
        data = copy.deepcopy(base)
        mutate(data)
        with pytest.raises(ScenarioError) as info:
            Scenario.from_dict(data)
        message = str(info.value)
        message.encode("utf-8")  # printable, whatever the input held
        assert "Traceback" not in message, label


def _nest(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def test_text_that_is_not_a_study_is_a_scenario_error(tmp_path: Path) -> None:
    for text in (b"\xff\xfe\x00", b"name = \xc3", b"[[[", b"a = 1\na = 2", b"x = " + b"[" * 5000 + b"]" * 5000, b"x = " + b"1" * 4301):
        path = tmp_path / "bad.toml"
        path.write_bytes(text)
        with pytest.raises(ScenarioError):
            Scenario.from_toml(path)
        with pytest.raises(ScenarioError):  # the study reader is the same reader
            Study.from_toml(path)


@pytest.mark.parametrize("name", ["non-utf8.toml", "bigint-4301-digits.toml", "deep-nesting-600-tomllib.toml"])
def test_a_study_file_that_is_not_toml_is_a_clear_error_in_the_study_commands(name: str) -> None:
    done = CliRunner().invoke(app, ["study", "points", str(REPROS / name)], catch_exceptions=False)
    assert done.exit_code == 2
    assert EXPECTED[name][1] in done.stderr and str(REPROS / name) in done.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["run", "studies/seed000-access-link.toml", "--set", "seed=" + "9" * 4301], "--set seed: value '9999"),
        (["study", "points", "studies/seed000-matrix.toml", "--set", "seed=" + "[" * 2000], "nested too deeply"),
        (["suite", "run", "l4s", "--quick", "--cc", "[" * 2000], "--aqm / --cc"),
    ],
    ids=["run-set-4301-digits", "study-set-deep-nesting", "suite-cc-deep-nesting"],
)
def test_a_command_line_value_toml_cannot_hold_is_a_clear_error(args: list[str], says: str, tmp_path: Path) -> None:
    """A ``--set`` (or ``--aqm`` / ``--cc``) value that TOML refuses beyond its syntax (an
    integer of more than 4300 digits, nesting deeper than the reader follows) names the option,
    exit 2, nothing run; not an internal error."""
    root = Path(__file__).resolve().parents[1]
    extra = ["--out", str(tmp_path / "out")] if args[0] in ("run", "suite") else []
    done = CliRunner().invoke(app, [a if not a.startswith("studies/") else str(root / a) for a in args] + extra, catch_exceptions=False)
    assert done.exit_code == 2, done.output
    assert says in done.stderr and "internal error" not in done.stderr
    assert not (tmp_path / "out").exists()


# -- limits -----------------------------------------------------------------------------------


def test_limits_are_documented_and_listed() -> None:
    out = CliRunner().invoke(app, ["list", "limits", "--json"])
    assert out.exit_code == 0, out.output
    listed = json.loads(out.stdout)
    assert {"max_duration", "max_delay", "max_rate", "max_hosts", "max_flows", "max_live_packets"} <= set(listed["bounds"])
    assert {p["name"] for p in listed["limits"]} == {"max_trace_rows", "max_events"}
    readme = (ROOT / "studies" / "README.md").read_text()
    for name in [*listed["bounds"], "max_trace_rows", "max_events"]:
        assert name in readme, f"studies/README.md does not document {name}"


def test_too_many_flows_are_refused_before_expanding() -> None:
    data = copy.deepcopy(MINIMAL)
    data["flows"] = [{"src": ["S1", "S2"], "dst": "R1", "cc": "reno", "per_pair": 600_000}]
    with pytest.raises(ScenarioError, match=r"flows: expand to 1200000 flows \(2 x 1 x 600000\), more than 1000000"):
        Scenario.from_dict(data)


def test_max_events_stops_a_run_with_a_clear_error() -> None:
    data = copy.deepcopy(MINIMAL)
    data["limits"] = {"max_events": 1000}
    with pytest.raises(EngineError, match=r"the run reached limits.max_events = 1000 at t = .* of 10s"):
        import crosslayer

        crosslayer.run(data)


# -- memory and panics ------------------------------------------------------------------------

BIG_TRACES = """
name = "big-traces"
duration = "50s"
sample_interval = "100ns"
[limits]
max_trace_rows = 600_000_000
[topology]
bottleneck = { rate = "10Mbps", delay = "5ms", qdisc = { kind = "droptail", limit_pkts = 50 } }
senders = [{ name = "N1", rate = "100Mbps", delay = "1ms" }]
receivers = [{ name = "N4", rate = "100Mbps", delay = "1ms" }]
[[flows]]
src = "N1"
dst = "N4"
cc = "cubic"
"""


@pytest.mark.parametrize("backtrace", ["0", "1"])
def test_out_of_memory_is_an_engine_error_never_an_abort(tmp_path: Path, backtrace: str) -> None:
    # 500 M series rows need 12 GB: under a 2 GB limit the reservation fails at once.
    study = tmp_path / "big.toml"
    study.write_text(BIG_TRACES)
    done = cli(["run", str(study), "--out", str(tmp_path / "out")], memory_gb=2, timeout=60, env={"RUST_BACKTRACE": backtrace})
    assert done.returncode == 1, done.stderr[-2000:]
    assert "not enough memory for the traces" in done.stderr
    assert not (tmp_path / "out").exists(), "no partial result folder"


def test_a_panic_is_an_engine_error_whatever_rust_backtrace_says() -> None:
    code = "import crosslayer._core as c\ntry:\n    c._trigger_panic()\nexcept c.EngineError as e:\n    print('caught', e)\n"
    for backtrace in ("0", "1", "full"):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env={**os.environ, "RUST_BACKTRACE": backtrace}
        )
        assert done.returncode == 0 and "caught internal error (Rust panic): deliberate panic" in done.stdout, done.stderr
        assert done.stderr == "", "the panic is reported once, as the exception"


# -- output folders ---------------------------------------------------------------------------


def test_a_bad_out_fails_before_the_run(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for out in (blocker, blocker / "sub"):
        result = CliRunner().invoke(app, ["run", str(ACCESS_LINK), "--out", str(out)])
        assert result.exit_code == 2, result.output
        assert f"cannot write the results to {out}" in result.stderr or f"{out} exists and is not a folder" in result.stderr


def test_unwritable_results_folder_fails_before_the_run(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root can write anywhere")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    result = CliRunner().invoke(app, ["run", str(ACCESS_LINK), "--out", str(locked / "out")])
    assert result.exit_code == 2 and "cannot write the results" in result.stderr


def test_a_folder_is_complete_or_absent(fake_core: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import crosslayer
    from crosslayer.result import Result

    out = tmp_path / "res"
    r = crosslayer.run(copy.deepcopy(MINIMAL))
    r.save(out, format="json")
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def boom(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    # the disk is full for pandas (a DataFrame) and for pyarrow (a table not built yet)
    monkeypatch.setattr(pd.DataFrame, "to_parquet", boom)
    monkeypatch.setattr(pyarrow.parquet, "write_table", boom)
    with pytest.raises(OSError):
        r.save(out, format="parquet")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before, "the earlier folder is untouched"
    assert [p.name for p in tmp_path.iterdir()] == ["res"], "no staging folder left behind"
    monkeypatch.undo()
    r.save(out, format="parquet")
    assert {p.suffix for p in out.iterdir()} == {".parquet", ".json"}
    assert not (out / "flows.json").exists(), "a new save replaces the folder as a whole"
    assert Result.load(out).scenario == r.scenario


# -- determinism across processes -------------------------------------------------------------


def test_same_seed_gives_byte_identical_tables_across_processes(tmp_path: Path) -> None:
    outs = []
    for k in range(2):
        out = tmp_path / f"run{k}"
        done = cli(["run", str(ACCESS_LINK), "--duration", "4s", "--warmup", "1s", "--format", "json", "--out", str(out)], timeout=120)
        assert done.returncode == 0, done.stderr
        outs.append(out)
    for name in ("flows", "udp", "queues", "hosts", "drops", "qdisc_stats", "series", "cwnd"):
        assert (outs[0] / f"{name}.json").read_bytes() == (outs[1] / f"{name}.json").read_bytes(), name
