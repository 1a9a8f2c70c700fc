"""Nothing lost, nothing escapes, every documented command works.

A review of 3481c2d (fuzzing, resource limits, interruption, concurrent use, security) and a new
user's session found the defects these tests pin down; each test failed on that commit. The
review's reproducers are in ``tests/repros/wave3/`` (copied from shared/repros; its README says
what each must do): each has a test here, except the TCP-LP one, which is a model-fidelity
question for the validation work.
"""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from crosslayer import Scenario, ScenarioError
from crosslayer.cli import app
from crosslayer.metrics import METRICS
from crosslayer.store import Store
from crosslayer.study import Study, StudyError
from crosslayer.sweep import Eta, RunEvent, run_study

ROOT = Path(__file__).resolve().parents[1]
W3 = ROOT / "tests" / "repros" / "wave3"
CLI = [sys.executable, "-m", "crosslayer.cli"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "RUST_BACKTRACE": "0"}

MINI = """
name = "mini"
duration = "1s"
warmup = "0.2s"
seed = 1
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "5ms", qdisc = { kind = "droptail", limit_pkts = 30 } }
senders = [{ name = "N1", rate = "100Mbps", delay = "1ms" }, { name = "N2", rate = "100Mbps", delay = "10ms" }]
receivers = [{ name = "N4", rate = "100Mbps", delay = "2ms" }]
[[flows]]
src = ["N1", "N2"]
dst = "N4"
per_pair = 2
cc = "cubic"
start = { uniform = ["0s", "0.1s"] }
[study]
seeds = [1, 2, 3]
[study.axes]
"flows[*].cc" = ["cubic", "reno"]
"topology.bottleneck.qdisc" = { droptail = { kind = "droptail", limit_pkts = 30 }, codel = { kind = "codel" } }
"""


def cli(args: list[str], *, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, env=ENV, cwd=cwd)


def invoke(args: list[str]) -> Any:
    return CliRunner().invoke(app, args, catch_exceptions=False)


def mini_store(tmp_path: Path, text: str = MINI, name: str = "store") -> tuple[Path, Path]:
    """A study file and its store, run in this process (12 short runs)."""
    study_file = tmp_path / f"{name}.toml"
    study_file.write_text(text)
    store = tmp_path / name
    run_study(Study.from_toml(study_file), Store(store), workers=1)
    return study_file, store


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mini store (cc x qdisc x 3 seeds) the read-only tests share."""
    return mini_store(tmp_path_factory.mktemp("shared"))[1]


# -- the review's reproducers -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["fq-codel-quantum-u64max-hang.toml", "fq-pie-quantum-2p63-hang.toml"])
def test_a_quantum_beyond_its_real_bound_is_refused_before_the_run(name: str, tmp_path: Path) -> None:
    # as written (a bare number: refused for its missing unit), then with the unit: the bound
    with_unit = tmp_path / name
    with_unit.write_text(re.sub(r"quantum = (\d+)", r'quantum = "\1B"', (W3 / name).read_text()))
    for file, message in ((W3 / name, "topology.bottleneck.qdisc.quantum: give a unit"), (with_unit, "topology.bottleneck.qdisc.quantum: must be in [1B, 1MiB]")):
        for command in (["validate"], ["run", "--out", str(tmp_path / "out")]):
            done = cli([*command, str(file)], timeout=60)
            assert done.returncode == 2, done.stderr
            assert message in done.stderr, done.stderr


@pytest.mark.parametrize("name", ["study-name-traversal.toml", "study-name-int.toml"])
def test_a_study_name_is_one_safe_folder_name(name: str, tmp_path: Path) -> None:
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    for command in (["validate"], ["study", "run", "-j", "1"]):
        done = cli([*command, str(W3 / name)], cwd=work, timeout=60)
        assert done.returncode == 2, done.stderr
        assert "study.name: must be one safe folder name" in done.stderr, done.stderr
    assert not any(p.name == "escaped-study" for p in tmp_path.rglob("*"))  # nothing written outside
    for bad in ('""', '".."', '"/tmp/abs"', '"a/b"'):
        with pytest.raises(StudyError, match="study.name"):
            Study.from_toml(MINI.replace("[study]\n", f"[study]\nname = {bad}\n"))


def test_the_number_of_points_is_capped_before_they_are_expanded() -> None:
    t0 = time.perf_counter()
    done = cli(["validate", str(W3 / "study-replicates-1e7.toml")], timeout=60)
    assert time.perf_counter() - t0 < 30
    assert done.returncode == 2
    assert "study has 10,000,000 points" in done.stderr and "more than study.max_points = 10,000" in done.stderr
    assert "raise the cap with [study] max_points = N" in done.stderr
    # the cap is the user's to raise
    text = MINI.replace("seeds = [1, 2, 3]", "replicates = 3000")
    with pytest.raises(StudyError, match="12,000 points"):
        Study.from_toml(text)
    assert len(Study.from_toml(MINI.replace("seeds = [1, 2, 3]", "seeds = 3\nmax_points = 12")).points()) == 12


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("study-seeds-string.toml", 'study.seeds: must be a list of integer seeds, e.g. [1, 2, 3], or a count N (seeds 1..N) (got "ab")'),
        ("study-seeds-float.toml", "study.seeds: each seed must be an integer in [0, 2^64), e.g. [1, 2, 3] (got 1.9)"),
    ],
)
def test_seeds_that_are_not_integers_are_refused(name: str, message: str) -> None:
    done = cli(["validate", str(W3 / name)], timeout=60)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_a_table_when_the_only_swept_column_is_the_congestion_control(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert cli(["study", "run", str(W3 / "results-table-cc-axis-only.toml"), "-o", str(store), "-q", "-j", "1"]).returncode == 0
    done = cli(["results", "table", str(store), "-m", "jain", "--format", "csv"])
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(pd.io.common.StringIO(done.stdout))
    assert list(table["flows_cc"]) == ["cubic", "reno"] and (table["n"] == 2).all() and table["mean"].between(0.5, 1).all()
    # a heatmap of it: one row
    assert cli(["results", "plot", str(store), "heatmap", "-m", "jain", "-o", str(tmp_path / "h.png")]).returncode == 0


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in status


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_workers_die_with_their_parent(how: signal.Signals, tmp_path: Path) -> None:
    """The reproducer sigterm-orphans-workers.py: SIGTERM or SIGKILL of `study run -j 2`. Its
    study's runs made 10 times longer: as written, its 8 runs end in 2.5 s on an idle 2-core
    machine, before the signal comes (the signal must find runs in flight)."""
    proc = subprocess.Popen(
        [*CLI, "study", "run", str(W3 / "study-8-runs.toml"), "--set", "duration=2000s", "-o", str(tmp_path / "store"), "-q", "-j", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV, start_new_session=True,
    )  # fmt: skip
    workers: list[int] = []
    deadline = time.time() + 60
    while time.time() < deadline and len(workers) < 2:
        time.sleep(0.5)
        workers = _children(proc.pid)
    assert len(workers) >= 2, "the workers never started"
    time.sleep(2)  # runs in flight
    proc.send_signal(how)
    _, err = proc.communicate(timeout=30)
    if how == signal.SIGTERM:
        assert proc.returncode == 130 and "interrupted" in err, (proc.returncode, err)
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.2)
    alive = [w for w in workers if _alive(w)]
    for w in alive:
        os.kill(w, signal.SIGKILL)
    assert not alive, f"workers {alive} outlived their parent ({how.name})"


def test_store_paths_are_bound_never_pasted_into_sql(tmp_path: Path) -> None:
    """The reproducer query-store-path-injection.sh, as written (it ends in error on purpose:
    pwned.csv must not exist)."""
    venv = Path(sys.executable).parent.parent
    done = subprocess.run(["bash", str(W3 / "query-store-path-injection.sh"), str(venv)], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=ENV)
    assert not (tmp_path / "pwned.csv").exists(), done.stdout + done.stderr
    assert "query failed" not in done.stderr, done.stderr
    assert re.search(r"\b4\b", done.stdout), done.stdout  # the plain select counted the 4 runs


def test_a_query_reads_the_store_and_nothing_else(shared_store: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not for SQL")
    for sql in (
        f"select * from read_text('{secret}')",
        "select * from read_text('/etc/passwd')",
        f"select * from read_csv('{secret}')",
        f"copy (select 1 as x) to '{tmp_path / 'out.csv'}'",
        f"attach '{tmp_path / 'db.duckdb'}' as other",
        "install httpfs",
        "load httpfs",
        "set enable_external_access = true",
    ):
        done = invoke(["results", "query", sql, "-s", str(shared_store)])
        assert done.exit_code == 2, (sql, done.output)
        assert "query failed" in done.stderr
    assert not (tmp_path / "out.csv").exists()
    # the store's own tables stay readable, and --allow-write lets COPY write inside a folder
    ok = invoke(["results", "query", "select count(*) as n from runs", "-s", str(shared_store), "--json"])
    assert ok.exit_code == 0 and json.loads(ok.stdout) == [{"n": 12}]
    out = tmp_path / "exports"
    out.mkdir()
    wrote = invoke(["results", "query", f"copy (select key, jain from runs) to '{out / 'jain.csv'}'", "-s", str(shared_store), "--allow-write", str(out)])
    assert wrote.exit_code == 0, wrote.output
    assert len(pd.read_csv(out / "jain.csv")) == 12


# -- data loss and integrity --------------------------------------------------------------------


def test_run_force_never_replaces_a_study_store(tmp_path: Path) -> None:
    study_file, store = mini_store(tmp_path, name="mini")
    before = Store(store).keys()
    scenario = tmp_path / "one.toml"
    scenario.write_text(MINI.split("[study]")[0])  # the base scenario: also named "mini"
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "mini").symlink_to(store)  # where both default to: results/mini
    for args in (["run", str(scenario), "--force"], ["run", str(scenario), "--force", "-o", str(store)]):
        done = cli(args, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "is a study's result store" in done.stderr and "never replaces a store, even with --force" in done.stderr
    assert Store(store).keys() == before and (store / "study.toml").exists()
    # a study store is never written over a run folder either
    run_folder = tmp_path / "one-run"
    assert cli(["run", str(scenario), "-o", str(run_folder), "-q"]).returncode == 0
    done = cli(["study", "run", str(study_file), "-o", str(run_folder), "-j", "1"])
    assert done.returncode == 2 and "holds the result of a single run" in done.stderr
    assert (run_folder / "summary.json").exists() and not (run_folder / "runs").exists()
    # --force replaces its own kind
    assert cli(["run", str(scenario), "-o", str(run_folder), "--force", "-q"]).returncode == 0


def test_an_unreadable_run_is_not_stored_and_runs_again(tmp_path: Path) -> None:
    study_file, store = mini_store(tmp_path)
    keys = sorted(Store(store).keys())
    runs_file = store / "runs" / f"{keys[0]}.parquet"
    runs_file.write_bytes(runs_file.read_bytes()[:100])  # truncated
    (store / "flows" / f"{keys[1]}.parquet").write_bytes(b"PAR1 garbage")  # not Parquet
    assert set(Store(store).unreadable()) == {keys[0], keys[1]}
    with pytest.raises(OSError, match=f"{keys[0]}.parquet cannot be read"):
        Store(store).runs()
    done = cli(["study", "run", str(study_file), "-o", str(store), "-j", "1"])
    assert done.returncode == 0, done.stderr
    assert f"stored run {keys[0]} did not read back" in done.stderr and f"stored run {keys[1]} did not read back" in done.stderr
    assert "2 run, 10 already stored" in done.stderr
    assert Store(store).unreadable() == {} and len(Store(store).runs()) == 12


def test_a_file_that_does_not_read_back_is_never_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the write is checked by reading the file's footer back: a file cut short on its way to
    # the disk (the footer is written last) is refused, and nothing of the run counts as stored
    import pyarrow as pa
    import pyarrow.parquet as pq

    real = pq.write_table

    def cut_short(table: Any, where: Any, *args: Any, **kwargs: Any) -> None:
        whole = pa.BufferOutputStream()
        real(table, whole, *args, **kwargs)
        data = whole.getvalue().to_pybytes()
        half = data[: len(data) // 2]
        if isinstance(where, (str, os.PathLike)):
            Path(where).write_bytes(half)
        else:
            where.write(half)

    store = Store(tmp_path / "store").create()
    key = "0123456789abcdef0123"
    frames = {"runs": pd.DataFrame({"key": [key], "flows": [1]}), "flows": pd.DataFrame({"key": [key], "goodput_bps": [1.0]})}
    monkeypatch.setattr(pq, "write_table", cut_short)
    with pytest.raises(Exception, match="(?i)parquet|read back"):
        store.write(key, frames)
    assert not store.has(key) and not list((tmp_path / "store").rglob("*.tmp"))
    monkeypatch.setattr(pq, "write_table", real)
    store.write(key, frames)
    assert store.has(key) and store.unreadable() == {}


def test_two_study_runs_on_one_store_never_run_a_point_twice(tmp_path: Path) -> None:
    # points of about half a second each; the second invocation starts once the first has
    # stored a point (not after a fixed sleep: on a fast or a loaded machine the first could
    # otherwise finish before the second starts, or the second start before the first)
    text = MINI.replace('duration = "1s"', 'duration = "60s"').replace('rate = "10Mbps"', 'rate = "100Mbps"')
    study_file = tmp_path / "s.toml"
    study_file.write_text(text)
    store = tmp_path / "store"
    cmd = [*CLI, "study", "run", str(study_file), "-o", str(store), "-j", "1", "--json"]
    a = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.monotonic() + 120
    while not list((store / "runs").glob("*.parquet")) and a.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    b = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    out_a, err_a = a.communicate(timeout=600)
    out_b, err_b = b.communicate(timeout=600)
    assert a.returncode == 0 and b.returncode == 0, (err_a, err_b)
    ra, rb = json.loads(out_a), json.loads(out_b)
    assert ra["ran"] + rb["ran"] == 12, (ra, rb)  # each point ran once
    assert ra["ran"] > 0 and rb["ran"] > 0  # both worked
    assert rb["by_others"] + rb["skipped"] + rb["ran"] == 12
    assert len(Store(store).keys()) == 12 and not list((store / ".claims").iterdir())


def test_temporary_files_of_a_killed_run_are_cleaned(tmp_path: Path) -> None:
    study_file, store = mini_store(tmp_path)
    leftovers = [store / "flows" / ".0123456789abcdef0123.x1y2.tmp", store / "runs" / ".0123456789abcdef0123.q.tmp", store / ".study.json.k9.tmp"]
    for p in leftovers:
        p.write_bytes(b"half")
    done = cli(["study", "run", str(study_file), "-o", str(store), "-j", "1"])
    assert done.returncode == 0
    assert "removed 3 temporary files a killed invocation left" in done.stderr
    assert not any(p.exists() for p in leftovers)


@pytest.mark.parametrize(("mask", "file_mode", "dir_mode"), [(0o022, 0o644, 0o755), (0o027, 0o640, 0o750)])
def test_store_and_result_files_respect_the_umask(mask: int, file_mode: int, dir_mode: int, tmp_path: Path) -> None:
    study_file = tmp_path / "s.toml"
    study_file.write_text(MINI.replace("seeds = [1, 2, 3]", "seeds = [1]"))
    scenario = tmp_path / "one.toml"
    scenario.write_text(MINI.split("[study]")[0])
    script = (
        f"import os, sys; os.umask({mask}); sys.argv = ['crosslayer'] + sys.argv[1:]; "
        "from crosslayer.cli import main; main()"
    )
    for args in (["study", "run", str(study_file), "-o", str(tmp_path / "store"), "-q", "-j", "1"], ["run", str(scenario), "-o", str(tmp_path / "one"), "-q"]):
        assert subprocess.run([sys.executable, "-c", script, *args], env=ENV, capture_output=True, timeout=300).returncode == 0
    for root in (tmp_path / "store", tmp_path / "one"):
        for p in [root, *root.rglob("*")]:
            mode = stat.S_IMODE(p.stat().st_mode)
            assert mode == (dir_mode if p.is_dir() else file_mode), (p, oct(mode))


def test_a_full_disk_is_reported_as_such_and_leaves_nothing_half_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    study_file = tmp_path / "s.toml"
    study_file.write_text(MINI)
    store = tmp_path / "store"
    real = Store._atomic_write_parquet
    calls = {"n": 0}

    def full_after_a_while(path: Path, frame: pd.DataFrame) -> None:
        calls["n"] += 1
        if calls["n"] > 7:  # a few runs fit, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, frame)

    monkeypatch.setattr(Store, "_atomic_write_parquet", staticmethod(full_after_a_while))
    done = CliRunner().invoke(app, ["study", "run", str(study_file), "-o", str(store), "-j", "1"])
    assert done.exit_code == 1, done.output
    assert "the disk is full" in done.stderr and "internal error" not in done.stderr, done.stderr
    st = Store(store)
    assert 0 < len(st.keys()) < 12
    for k in st.keys():  # what is stored is whole
        assert (store / "flows" / f"{k}.parquet").exists() and (store / "queues" / f"{k}.parquet").exists()
    orphans = [p for t in ("flows", "queues", "series") for p in (store / t).glob("*.parquet") if p.stem not in st.keys()]
    assert orphans == [] and not list(store.rglob("*.tmp"))
    # a single run: the same message, no result folder
    scenario = tmp_path / "one.toml"
    scenario.write_text(MINI.split("[study]")[0])

    def no_space(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    # a run's folder is written by pyarrow (a table not built yet, `Result.save`) and by pandas
    # (a DataFrame): the disk is full for both
    monkeypatch.setattr(pd.DataFrame, "to_parquet", no_space)
    monkeypatch.setattr(pq, "write_table", no_space)
    single = CliRunner().invoke(app, ["run", str(scenario), "-o", str(tmp_path / "one")])
    assert single.exit_code == 1 and "the disk is full" in single.stderr, single.output
    assert not (tmp_path / "one").exists() and not list(tmp_path.glob(".one.*"))


def test_runs_of_another_definition_are_reported_and_can_be_pruned(tmp_path: Path) -> None:
    study_file, store = mini_store(tmp_path)
    study_file.write_text(MINI.replace('duration = "1s"', 'duration = "0.8s"'))
    done = cli(["study", "run", str(study_file), "-o", str(store), "-j", "1"])
    assert done.returncode == 0, done.stderr
    warning = done.stderr
    assert "holds 12 runs of another definition of this study" in warning, warning
    assert 'duration: "1s" stored, "800ms" now' in warning
    assert f"crosslayer results prune {store} --study {study_file}" in warning
    table = cli(["results", "table", str(store), "-m", "jain"])
    assert table.returncode == 2 and "np.int64" not in table.stderr
    assert "results prune" in table.stderr and "duration" in table.stderr, table.stderr
    dry = cli(["results", "prune", str(store), "--study", str(study_file), "--dry-run", "--json"])
    assert json.loads(dry.stdout)["would_remove"] and len(Store(store).keys()) == 24
    assert cli(["results", "prune", str(store), "--study", str(study_file), "-q"]).returncode == 0
    assert len(Store(store).keys()) == 12 and cli(["results", "table", str(store), "-m", "jain"]).returncode == 0
    # --fresh: one definition per store, in one step
    study_file.write_text(MINI.replace('duration = "1s"', 'duration = "0.9s"'))
    fresh = cli(["study", "run", str(study_file), "-o", str(store), "-j", "1", "--fresh", "--json"])
    assert json.loads(fresh.stdout)["ran"] == 12 and len(Store(store).keys()) == 12


# -- what the README documents ----------------------------------------------------------------


def test_every_declared_metric_is_tabulated_and_plotted(shared_store: Path, tmp_path: Path) -> None:
    for m in METRICS:
        table = invoke(["results", "table", str(shared_store), "-m", m.name, "--format", "json"])
        assert table.exit_code == 0, (m.name, table.output)
        cells = json.loads(table.stdout)
        assert cells and all(c["metric"] == m.name and c["unit"] == m.unit and c["n"] == 3 for c in cells), m.name
        assert all(isinstance(c["mean"], (int, float)) for c in cells), (m.name, cells[0])
        if m.bounds is not None:  # intervals stay in the metric's range
            lo, hi = (b * m.scale for b in m.bounds)
            assert all(lo - 1e-9 <= c[k] <= hi + 1e-9 for c in cells for k in ("mean", "ci_low", "ci_high") if c[k] is not None), m.name
        text = invoke(["results", "table", str(shared_store), "-m", m.name])
        assert text.exit_code == 0 and m.title in text.stdout and "3 seeds per cell" in text.stdout, m.name
        png = tmp_path / f"{m.name}.png"
        fig = invoke(["results", "plot", str(shared_store), "heatmap", "-m", m.name, "-o", str(png)])
        assert fig.exit_code == 0 and png.stat().st_size > 1000, (m.name, fig.output)


def test_tables_give_numbers_in_their_own_columns_and_no_interval_under_three_seeds(tmp_path: Path) -> None:
    _, store = mini_store(tmp_path, MINI.replace("seeds = [1, 2, 3]", "seeds = [1, 2]"))
    csv = invoke(["results", "table", str(store), "-m", "drop_ratio", "--format", "csv"])
    frame = pd.read_csv(pd.io.common.StringIO(csv.stdout))
    assert list(frame.columns) == ["flows_cc", "bottleneck_qdisc", "mean", "ci_low", "ci_high", "n", "metric", "unit"]
    assert frame["mean"].dtype == float and (frame["n"] == 2).all() and frame["ci_low"].isna().all()
    assert set(frame["unit"]) == {"%"} and "±" not in csv.stdout
    md = invoke(["results", "table", str(store), "-m", "drop_ratio", "--format", "markdown"])
    assert "**drop ratio (%): mean, 2 seeds per cell**" in md.stdout and "±" not in md.stdout
    assert "fewer than 3 seeds show no interval" in md.stdout


def test_readme_first_use_command_works_right_after_make_demo(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    first = next(line for line in readme.splitlines() if line.startswith(".venv/bin/crosslayer run "))
    demo = next(line for line in (ROOT / "Makefile").read_text().splitlines() if "crosslayer run" in line and "$(VENV)" in line)
    demo_args = demo.split("#")[0].split("crosslayer", 1)[1].split()
    first_args = first.split("#")[0].split("crosslayer", 1)[1].split()
    for args in (demo_args, first_args):
        (tmp_path / "studies").mkdir(exist_ok=True)
        done = cli([a.replace("studies/", str(ROOT / "studies") + "/") for a in args], cwd=tmp_path)
        assert done.returncode == 0, (args, done.stderr)


def test_running_a_study_file_as_a_scenario_points_to_study_run(tmp_path: Path) -> None:
    done = cli(["run", str(W3 / "study-8-runs.toml"), "-o", str(tmp_path / "x")])
    assert done.returncode == 2
    assert "is a study (it has a [study] table): run its points with `crosslayer study run" in done.stderr
    assert "unknown field" not in done.stderr


def test_the_single_run_figures_draw_one_point_of_a_store(tmp_path: Path) -> None:
    _, store = mini_store(tmp_path, MINI.replace('seed = 1\n', 'seed = 1\ncwnd_trace = true\nsample_interval = "50ms"\n'))
    for command in ("plot-cwnd", "plot-queue", "plot-goodput"):
        png = tmp_path / f"{command}.png"
        done = invoke([command, str(store), "--where", "flows_cc=reno", "--where", "bottleneck_qdisc=codel", "--where", "seed=2", "-o", str(png)])
        assert done.exit_code == 0 and png.stat().st_size > 1000, (command, done.output)
    key = Store(store).find(None, {"flows_cc": "cubic", "bottleneck_qdisc": "droptail", "seed": "1"})
    assert invoke(["plot-cwnd", str(store), "--key", key[:8], "-q"]).exit_code == 0
    assert (store / f"cwnd-{key[:12]}.png").exists()
    many = invoke(["plot-cwnd", str(store), "--where", "flows_cc=reno"])
    assert many.exit_code == 2 and "6 stored runs have flows_cc = reno" in many.stderr
    none = invoke(["plot-cwnd", str(store)])
    assert none.exit_code == 2 and "choose one with --key KEY or --where column=value" in none.stderr


def _commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    import typer.main

    click_group = typer.main.get_command(group) if not hasattr(group, "commands") else group
    out = []
    for name, cmd in click_group.commands.items():
        if hasattr(cmd, "commands"):
            out += _commands(cmd, (*prefix, name))
        else:
            out.append(((*prefix, name), cmd))
    return out


def test_every_command_takes_h_q_v_and_those_that_print_results_take_json() -> None:
    """What the README says of every command."""
    prints_results = {("run",), ("validate",), ("bench",), ("list",), ("study", "run"), ("study", "points"), ("study", "report"), ("results", "table"), ("results", "query"), ("results", "prune"), ("crosscheck",), ("suite", "list"), ("suite", "run"), ("suite", "check")}
    for path, cmd in _commands(app):
        opts = {o for p in cmd.params for o in getattr(p, "opts", [])}
        assert {"-q", "--quiet", "-v", "--verbose"} <= opts, (path, opts)
        if path in prints_results:
            assert "--json" in opts, path
        helped = invoke([*path, "-h"])
        assert helped.exit_code == 0 and "Usage" in helped.stdout, path


def test_a_study_built_in_python_writes_its_study_file(tmp_path: Path) -> None:
    import tomllib

    data = tomllib.loads(MINI.replace("seeds = [1, 2, 3]", "seeds = [1]"))
    study = Study.from_dict(data)
    store = Store(tmp_path / "store")
    run_study(study, store, workers=1)
    written = store.root / "study.toml"
    assert written.exists()
    again = Study.from_toml(written)
    assert [p.key for p in again.points()] == [p.key for p in study.points()]
    from crosslayer.report import write_report

    page = (write_report(store.root) / "report.md").read_text()
    assert f"crosslayer study run {written}" in page


def test_the_eta_comes_from_simulated_seconds() -> None:
    now = [0.0]
    eta = Eta({"a": 10.0, "b": 10.0, "c": 10.0, "d": 10.0}, clock=lambda: now[0])
    assert eta.remaining_s() is None
    eta.update(RunEvent("a", {}, 10.0, 0.0))
    eta.update(RunEvent("b", {}, 10.0, 0.0))
    now[0] = 4.0  # two workers, 2 simulated s per wall s each
    eta.update(RunEvent("a", {}, 10.0, 8.0))
    eta.update(RunEvent("b", {}, 10.0, 8.0))
    # 16 of 40 simulated s in 4 s: 24 left at 4 per s
    assert eta.remaining_s() == pytest.approx(6.0)
    eta.update(RunEvent("a", {}, 10.0, 10.0, done=True))
    eta.update(RunEvent("zz", {}, 10.0, 5.0))  # not a point of this sweep: ignored
    assert eta.remaining_s() == pytest.approx((40 - 18) / (18 / 4))


# -- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (("topology", "bottleneck", "delay"), 10, 'topology.bottleneck.delay: give a unit, e.g. "10ms" or "10s" (got 10)'),
        (("topology", "bottleneck", "rate"), 10, 'topology.bottleneck.rate: give a unit, e.g. "10bps" or "10Mbps" (got 10)'),
        (("duration",), 2.5, 'duration: give a unit, e.g. "2.5ms" or "2.5s" (got 2.5)'),
        (("tcp", "mss"), 1448, 'tcp.mss: give a unit, e.g. "1448B" or "1448KiB" (got 1448)'),
    ],
)
def test_a_bare_number_for_a_quantity_is_refused(field: tuple[str, ...], value: Any, message: str, minimal: dict[str, Any]) -> None:
    node = minimal
    for k in field[:-1]:
        node = node.setdefault(k, {})
    node[field[-1]] = value
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(minimal)
    assert message in str(info.value)


def test_a_bare_zero_is_zero_in_every_unit(minimal: dict[str, Any]) -> None:
    minimal["warmup"] = 0
    minimal["topology"]["bottleneck"]["jitter"] = 0
    sc = Scenario.from_dict(minimal)
    assert sc.warmup == 0 and sc.topology.bottleneck.jitter == 0


@pytest.mark.parametrize(
    ("study", "message"),
    [
        ("seeds = 2", None),
        ('seeds = "ab"', "study.seeds: must be a list of integer seeds"),
        ("seeds = [1.9, 2.9]", "study.seeds: each seed must be an integer"),
        ("seeds = [1, 1]", "study.seeds: lists a seed twice"),
        ("seeds = 0", "study.seeds: must be a list of seeds, e.g. [1, 2, 3], or a count N >= 1"),
        ('replicates = "x"', "study.replicates: must be a whole number of runs >= 1"),
        ("replicates = 2.0", "study.replicates: must be a whole number of runs >= 1"),
        ("points = [1]", "study.points[0]: must be a table of path = value"),
        ("axes = 5", "study.axes: must be a table of path = [values]"),
        ("max_points = true", "study.max_points: must be a whole number in [1, 1,000,000]"),
        ("max_points = 1_000_001", "study.max_points: must be a whole number in [1, 1,000,000]"),
        ("axis = 1", "[study]: has no field 'axis'; did you mean 'axes'?"),
    ],
)
def test_study_table_forms(study: str, message: str | None) -> None:
    text = MINI.replace("seeds = [1, 2, 3]", study)
    if "axes" in study or "points" in study:
        text = text.split("[study.axes]")[0]
    if message is None:
        s = Study.from_toml(text)
        assert s.seeds == (1, 2) and len(s.points()) == 8
        return
    with pytest.raises(StudyError) as info:
        Study.from_toml(text)
    assert message in str(info.value)


def test_out_of_range_integers_name_the_parameter_and_bounds_print_readably(minimal: dict[str, Any]) -> None:
    minimal["flows"][0]["cc"] = {"kind": "vegas", "alpha": -1}
    with pytest.raises(ScenarioError, match=re.escape("flows[0].cc.alpha: must be in [0, 10000] (got -1)")):
        Scenario.from_dict(minimal)
    minimal["flows"][0]["cc"] = {"kind": "compound", "gamma_high": 1e-300}
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(minimal)
    assert "must not exceed gamma_high (1e-300)" in str(info.value) and "0000000000" not in str(info.value)
    minimal["flows"][0]["cc"] = {"kind": "highspeed", "low_window": 40.0, "high_window": 40.0}
    with pytest.raises(ScenarioError, match=re.escape("flows[0].cc.low_window: must be below high_window (40)")):
        Scenario.from_dict(minimal)


def test_per_flow_drops_and_marks_add_up_to_the_queue_whatever_drops_them() -> None:
    """Drops at dequeue (CoDel, PIE's and FQ-CoDel's AQMs, a class's AQM) count against their
    flows as drops at enqueue do; the engine checks the sums on every run, and the tables show
    them over the window."""
    import crosslayer

    base = {
        "name": "drops",
        "duration": "8s",
        "warmup": "2s",
        "topology": {
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "qdisc": "codel"},
            "senders": [{"name": "S1", "rate": "100Mbps", "delay": "1ms"}, {"name": "S2", "rate": "100Mbps", "delay": "20ms"}],
            "receivers": [{"name": "R1", "rate": "100Mbps", "delay": "1ms"}],
        },
        "flows": [{"src": ["S1", "S2"], "dst": "R1", "per_pair": 3, "cc": "cubic"}],
        "udp": [{"src": "S1", "dst": "R1", "rate": "2Mbps"}],
    }
    qdiscs = {
        "codel": {"kind": "codel"},
        "pie": {"kind": "pie"},
        "fq_codel": {"kind": "fq_codel"},
        "classes": {"kind": "classes", "classes": [{"priority": 0, "flows": [0, 1, 2], "qdisc": {"kind": "codel"}}, {"priority": 0, "flows": [3, 4, 5, 6], "qdisc": {"kind": "pie"}}]},
        "codel_ecn": {"kind": "codel", "ecn": True},
    }
    for name, qdisc in qdiscs.items():
        sc = json.loads(json.dumps(base))
        sc["topology"]["bottleneck"]["qdisc"] = qdisc
        if name == "codel_ecn":
            sc["tcp"] = {"ecn": True}
        r = crosslayer.run(sc)
        q = r.bottleneck
        flows = int(r.flows["bottleneck_drops"].sum()) + int(r.udp["bottleneck_drops"].sum())
        assert q["drops"] > 0 or name == "codel_ecn", name
        assert flows == q["drops"], (name, flows, q["drops"])
        assert int(r.flows["bottleneck_marks"].sum()) + int(r.udp["bottleneck_marks"].sum()) == q["marks"], name
        if name == "codel_ecn":
            assert q["marks"] > 0
        elif name != "classes":
            assert q["drops_queued"] > 0 or name == "pie", name  # dequeue drops are the ones that were lost before
        agg = r.aggregates()
        assert (agg["lockout"]["max_host_bottleneck_drop_share"] or 0) > 0 or name == "codel_ecn", name


# -- the [study] table, fuzzed ------------------------------------------------------------------


def _study_values() -> Any:
    from hypothesis import strategies as st

    scalar = st.one_of(
        st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=12), st.sampled_from(["cubic", "reno", "codel", "droptail", "10ms", "..", "/etc", "a/b", ""]),
    )  # fmt: skip
    return st.recursive(scalar, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=10)


def test_the_study_table_fuzzed_gives_a_clear_error_or_a_run(tmp_path: Path) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    import tomllib

    base = tomllib.loads(MINI.replace('duration = "1s"', 'duration = "0.3s"').replace('warmup = "0.2s"', 'warmup = "0.1s"'))
    base.pop("study")
    paths = st.sampled_from(["flows[*].cc", "flows[0].per_pair", "flows[5].cc", "topology.bottleneck.qdisc", "topology.nope.x", "seed", "duration", "a..b", "[*]", "flows[*]", "tcp.min_rto", ""])
    field_values = {
        "name": st.one_of(st.text(max_size=8), _study_values()),
        "mode": st.one_of(st.sampled_from(["product", "points", "other"]), _study_values()),
        "seeds": st.one_of(st.integers(min_value=-3, max_value=4), st.lists(st.integers(min_value=-1, max_value=2**64), max_size=3), _study_values()),
        "replicates": st.one_of(st.integers(min_value=-2, max_value=40), st.sampled_from([10**7, 10**9]), _study_values()),
        "axes": st.one_of(st.dictionaries(paths, st.one_of(st.lists(_study_values(), max_size=3), st.dictionaries(st.text(max_size=5), _study_values(), max_size=3), _study_values()), max_size=3), _study_values()),
        "points": st.one_of(st.lists(st.dictionaries(paths, _study_values(), max_size=2), max_size=3), _study_values()),
        "columns": st.one_of(st.dictionaries(paths, st.text(max_size=6), max_size=2), _study_values()),
        "max_points": st.one_of(st.integers(min_value=-1, max_value=64), st.sampled_from([10**6 + 1, 10**12]), _study_values()),
        "typo": _study_values(),
    }
    ran = {"n": 0}

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.fixed_dictionaries({}, optional=field_values))
    def check(spec: dict[str, Any]) -> None:
        t0 = time.perf_counter()
        try:
            study = Study.from_dict({**base, "study": spec})
        except (StudyError, ScenarioError) as exc:
            assert str(exc) and "Traceback" not in str(exc)
            return
        finally:
            assert time.perf_counter() - t0 < 20, spec
        points = study.points()
        assert 1 <= len(points) <= study_max(spec)
        if len(points) <= 2 and ran["n"] < 5:  # a few of the valid ones run, end to end
            ran["n"] += 1
            report = run_study(study, Store(tmp_path / f"s{ran['n']}"), workers=1)
            assert report.ran + report.skipped == report.total and not report.failed

    def study_max(spec: dict[str, Any]) -> int:
        cap = spec.get("max_points")
        return cap if isinstance(cap, int) and not isinstance(cap, bool) and cap >= 1 else 10_000

    check()
    assert ran["n"] >= 1
