"""A store's files are written from the engine's columns as Arrow tables (`store.tables_for`),
not through DataFrames. These tests hold the new path to what the store wrote before: each
table as pandas built it (the run's DataFrame with the key and the swept values as its first
columns, then `DataFrame.to_parquet`). The Arrow tables must equal pandas' conversion of those
DataFrames column for column (so DuckDB's views see the same types), and the files must read
back with pandas as the same DataFrames."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import crosslayer
from crosslayer import store as store_module
from crosslayer.result import _Columns
from crosslayer.scenario import Scenario
from crosslayer.store import Store, tables_for

BASE = """
name = "tables"
duration = "3s"
warmup = "1s"
seed = 3
sample_interval = "50ms"
cwnd_trace = true
goodput_interval = "500ms"
[topology]
kind = "dumbbell"
bottleneck = { rate = "20Mbps", delay = "5ms", qdisc = { kind = "codel" } }
senders = [ { name = "S1", rate = "100Mbps", delay = "1ms" }, { name = "S2", rate = "100Mbps", delay = "10ms" } ]
receivers = [ { name = "R1", rate = "100Mbps", delay = "1ms" } ]
"""

TCP = """
[[flows]]
src = ["S1", "S2"]
dst = ["R1"]
per_pair = 2
cc = "cubic"
milestones = true
[[flows]]
src = ["S1"]
dst = ["R1"]
cc = "reno"
size = "200kB"
start = "0.5s"
"""

UDP = """
[[udp]]
src = "S1"
dst = "R1"
rate = "2Mbps"
"""


def pandas_tables(key: str, labels: dict[str, Any], result: Any, row: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The tables as the store built them before: each of the run's DataFrames with the label
    columns first (a list of the value a row; a categorical of one code a row for text in a
    table over `LARGE_TABLE_ROWS`)."""
    tagged = {"key": key, **labels}
    out = {"runs": row}
    for name in ("flows", "queues", "series", "udp", "cwnd", "goodput", "milestones", "wlan"):
        if name not in ("flows", "queues") and not result.rows(name):
            continue
        frame = getattr(result, name)
        n = len(frame)
        many = n > store_module.LARGE_TABLE_ROWS
        columns: dict[str, Any] = {}
        for col, value in tagged.items():
            if many and isinstance(value, str):
                columns[col] = pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[value])
            else:
                columns[col] = np.full(n, value) if many else [value] * n
        out[name] = pd.concat([pd.DataFrame(columns, index=frame.index), frame], axis=1)
    return out


def check(tmp_path: Path, text: str, labels: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Store one run both ways and compare; returns the names of the tables compared."""
    scenario = Scenario.from_dict(tomllib.loads(text))
    key = "0123456789abcdef0123"
    rows: list[dict[str, Any]] = []
    real = store_module._row_table

    def keep(row: dict[str, Any]) -> pa.Table:
        rows.append(dict(row))
        return real(row)

    monkeypatch.setattr(store_module, "_row_table", keep)
    tables = tables_for(key, labels, crosslayer.run(scenario), {"spec": 1}, {"engine_version": "x", "git_commit": None})
    # the same run again (the engine is deterministic), its tables built by pandas
    # (the last row `_row_table` made is the runs row: the labels' types are made by it first)
    expected = pandas_tables(key, labels, crosslayer.run(scenario), pd.DataFrame(rows[-1:]))
    assert set(tables) == set(expected)
    new, old = Store(tmp_path / "new").create(), Store(tmp_path / "old").create()
    new.write(key, tables)
    old.write(key, expected)
    for name, frame in expected.items():
        reference = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(None)
        assert tables[name].schema == reference.schema, name
        assert tables[name].equals(reference), name
        pd.testing.assert_frame_equal(new.table(name), old.table(name), check_exact=True, obj=name)
    return set(tables)


def test_the_tables_of_a_run_with_every_kind_of_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # text, integer, real and boolean labels; finite flows (NaN completion times among them);
    # categorical columns (cwnd's state, goodput's and milestones' flows); a UDP flow
    names = check(tmp_path, BASE + TCP + UDP, {"tcp": "cubic", "load": 2, "target": 0.005, "ecn": True}, monkeypatch)
    assert names >= {"runs", "flows", "queues", "series", "udp", "cwnd", "goodput", "milestones"}


def test_a_run_without_tcp_flows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # its flows table is empty: stored with the label columns and no rows, as pandas wrote it
    check(tmp_path, BASE + UDP, {"rate": "2Mbps"}, monkeypatch)


def test_the_labels_of_a_large_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # text labels of a table over LARGE_TABLE_ROWS become one code a row (a dictionary)
    monkeypatch.setattr(store_module, "LARGE_TABLE_ROWS", 10)
    check(tmp_path, BASE + TCP, {"aqm": "codel", "seed_no": 3}, monkeypatch)


def test_the_runs_row_has_the_types_pandas_gives_it() -> None:
    row = {"key": "k", "n": 3, "big": np.uint64(2**63 + 1), "x": 0.5, "nan": float("nan"), "f32": np.float32(1.5), "flag": True, "none": None, "text": "é"}
    got = store_module._row_table(row)
    want = pa.Table.from_pandas(pd.DataFrame([row]), preserve_index=False).replace_schema_metadata(None)
    assert got.schema == want.schema
    assert got.equals(want)


@pytest.mark.parametrize("text", [BASE + TCP + UDP, BASE + UDP, BASE + TCP], ids=["tcp-udp", "udp-only", "tcp"])
def test_the_run_metrics_from_the_engines_columns_are_the_dataframes(text: str) -> None:
    # a run being stored computes its aggregates and run metrics from the engine's columns
    # (no DataFrame built); once the tables are DataFrames, the same from them, to the bit
    from crosslayer.metrics import run_row

    scenario = Scenario.from_dict(tomllib.loads(text))
    fresh = crosslayer.run(scenario)
    from_columns = (fresh.aggregates(), run_row(fresh))
    assert isinstance(fresh.__dict__["queues"], _Columns)  # the bottleneck read from the columns
    built = crosslayer.run(scenario)
    for name in ("flows", "queues", "hosts", "wlan"):
        getattr(built, name)
    from_frames = (built.aggregates(), run_row(built))
    for a, b in zip(from_columns, from_frames, strict=True):
        a, b = dict(a), dict(b)
        for d in (a, b):  # the engine's own wall time differs between two runs
            d.pop("wall_s", None)
            for k in ("events_per_wall_s", "delivered_segments_per_wall_s", "sim_s_per_wall_s", "wall_s_per_sim_s"):
                d.pop(k, None)
        assert repr(a) == repr(b)
    # the finite flows' figures are those of the fct table (`Result.fct`), as they were taken
    f = built.fct
    if len(f):
        completed = f["completed"].to_numpy(dtype=bool)
        s = f.loc[completed, "slowdown"]
        want = {"flows": len(f), "completed": int(completed.sum()), "slowdown_mean": float(s.mean()),
                "slowdown_p50": float(s.quantile(0.5)), "slowdown_p99": float(s.quantile(0.99)),
                "fct_mean_s": float(f.loc[completed, "fct_s"].mean())}  # fmt: skip
        assert len(s) and from_columns[0]["fct"] == want
    else:
        assert from_columns[0]["fct"] is None


def test_a_saved_result_reads_back_as_its_dataframes(tmp_path: Path) -> None:
    # `Result.save` writes a table not built yet from the engine's columns (`Result.arrow`);
    # read back, every table is the DataFrame the run gives, as a save through the DataFrames
    from crosslayer.result import TABLES, Result

    scenario = Scenario.from_dict(tomllib.loads(BASE + TCP + UDP))
    fresh = crosslayer.run(scenario)
    fresh.save(tmp_path / "from-columns")
    assert all(isinstance(fresh.__dict__[name], _Columns) for name in ("flows", "queues", "series", "cwnd"))
    built = crosslayer.run(scenario)
    frames = {name: getattr(built, name) for name in TABLES}
    built.save(tmp_path / "from-frames")
    a, b = Result.load(tmp_path / "from-columns"), Result.load(tmp_path / "from-frames")
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(a, name), frames[name], check_exact=True, obj=name)
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True, obj=name)


def test_a_stores_tables_read_as_file_by_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `Store.table` reads runs whose files are alike as one Arrow table; it must give what each
    # file read by pandas and the frames concatenated give (the path it keeps for files that
    # differ): for runs stored now, runs stored by pandas (with its metadata), and both mixed
    scenario = Scenario.from_dict(tomllib.loads(BASE + TCP + UDP))
    store = Store(tmp_path / "s").create()
    for seed in (1, 2, 3):
        sc = scenario.with_overrides(seed=seed)
        key = f"{seed:020d}"
        labels = {"seed": seed, "tcp": "cubic"}
        tables = tables_for(key, labels, crosslayer.run(sc), {}, {"engine_version": "x", "git_commit": None})
        if seed == 2:  # as the store wrote it before: DataFrames with pandas' metadata
            store.write(key, {name: t.to_pandas() for name, t in tables.items()})
        else:
            store.write(key, tables)
    some = {f"{1:020d}", f"{3:020d}"}
    fast = {name: (store.table(name), store.table(name, some)) for name in store_module.TABLES}
    assert len(fast["flows"][0]) == 3 * 5 and len(fast["runs"][0]) == 3
    # the one-table path was taken where the files are alike (a dictionary column, as cwnd's
    # flow names, keeps the file-by-file path)
    alike = {name for name in store_module.TABLES if store_module._read_alike(sorted((tmp_path / "s" / name).glob("*.parquet")))}
    assert {"runs", "flows", "queues", "series", "udp"} <= alike and "cwnd" not in alike
    monkeypatch.setattr(store_module, "_read_alike", lambda paths: None)
    for name, (whole, part) in fast.items():
        pd.testing.assert_frame_equal(whole, store.table(name), check_exact=True, obj=name)
        pd.testing.assert_frame_equal(part, store.table(name, some), check_exact=True, obj=name)


def _grid() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    floats = rng.normal(size=70)
    floats[[0, 5, 64, 69]] = np.nan
    arrays: list[np.ndarray] = [floats, floats[::3], np.full(9, np.nan), np.zeros(0), floats.astype(np.float32), np.array([np.inf, -0.0, 1e300])]
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64):
        info = np.iinfo(dtype)
        arrays.append(np.array([info.min, 0, 1, info.max] * 5, dtype=dtype))
    bools = rng.random(67) < 0.5
    arrays += [bools, bools[1::2], np.ones(8, dtype=bool), np.zeros(0, dtype=bool)]
    return arrays


def test_arrow_arrays_built_from_buffers_are_pyarrows() -> None:
    # `crosslayer._arrow` builds the arrays a stored run's tables are made of without
    # `pyarrow.array` (which imports pandas): each must be the array `pyarrow.array` makes
    from crosslayer import _arrow

    for values in _grid():
        got, want = _arrow.numbers(values), pa.array(values, from_pandas=True)
        got.validate(full=True)
        assert got.type == want.type and got.null_count == want.null_count and got.equals(want), values.dtype
    codes = np.array([0, 2, -1, 1, -1, 0], dtype=np.int16)
    got = _arrow.codes(codes, codes < 0)
    assert got.equals(pa.array(codes, mask=codes < 0)) and got.null_count == 2
    texts = ["", "a", "é✓ x", "bb", ""]
    assert _arrow.large_strings(texts).equals(pa.array(texts, pa.large_string()))
    assert _arrow.large_strings([]).equals(pa.array([], pa.large_string()))
    labels = ["R1", "", "S2→R1", "x" * 40]
    codes64 = np.array([3, 0, 0, 2, 1, 3, 2], dtype=np.int64)
    got = _arrow.decoded(codes64, labels)
    got.validate(full=True)
    assert got.equals(pa.array([labels[c] for c in codes64], pa.large_string()))
    assert _arrow.decoded(np.zeros(0, dtype=np.int64), []).equals(pa.array([], pa.large_string()))
    for bad in ([0, 4], [-1]):
        with pytest.raises(ValueError):
            _arrow.decoded(np.array(bad), labels)
    # what they do not cover goes to pyarrow itself
    assert _arrow.numbers([1.0, None]).equals(pa.array([1.0, None]))


def test_storing_a_run_imports_neither_pandas_nor_pyarrow_compute(tmp_path: Path) -> None:
    # a sweep's worker runs and stores points; pandas (about 0.3 s of CPU to import) and
    # pyarrow.compute are for reading results, not for writing them
    import subprocess
    import sys

    script = f"""
import sys, tomllib
import crosslayer
from crosslayer.scenario import Scenario
from crosslayer.store import Store, tables_for
sc = Scenario.from_dict(tomllib.loads({(BASE + TCP + UDP)!r}))
store = Store({str(tmp_path / "s")!r}).create()
store.write("0" * 20, tables_for("0" * 20, {{"tcp": "cubic", "n": 2, "x": 0.5, "ecn": True}}, crosslayer.run(sc), {{}}, {{"engine_version": "x", "git_commit": None}}))
assert store.has("0" * 20)
print(sorted(m for m in ("pandas", "pyarrow.compute") if m in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_a_table_the_engine_gave_no_columns_saves_as_pandas_wrote_it(tmp_path: Path) -> None:
    # no rows and no columns: the documented names, typeless, read back as pandas' empty frame
    import pyarrow.parquet as pq

    empty = _Columns(None, ("link", "drops", "airtime"))
    pq.write_table(empty.arrow(), tmp_path / "arrow.parquet")
    empty.frame().to_parquet(tmp_path / "pandas.parquet", index=False)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "arrow.parquet"), pd.read_parquet(tmp_path / "pandas.parquet"), check_exact=True)
    # typed columns without rows keep their types
    typed = _Columns({"x": np.zeros(0), "n": np.zeros(0, dtype=np.int64)}, ("x", "n"))
    assert typed.arrow().schema == pa.Table.from_pandas(typed.frame(), preserve_index=False).replace_schema_metadata(None).schema
