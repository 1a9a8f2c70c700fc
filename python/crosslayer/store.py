"""A result store: a folder of Parquet datasets, one file per run and table, written atomically.

Layout::

    STORE/
      study.toml              the study file as given (the first run writes it)
      study.json              its name, swept columns and the commands that ran it
      runs/<key>.parquet      one row: the point's swept values, its metrics
                              (:mod:`crosslayer.metrics`), the full configuration, the scenario
                              as a study file writes it, engine version and git commit
      flows/<key>.parquet     one row per flow, with the point's swept values and key
      queues/<key>.parquet    one row per link
      series/<key>.parquet    the bottleneck queue over time (when the scenario samples it)
      udp/<key>.parquet       one row per UDP flow (when the scenario has [[udp]] groups)
      cwnd/<key>.parquet      each flow's cwnd trace (when the scenario sets cwnd_trace)
      goodput/<key>.parquet   each flow's goodput series (when the scenario sets goodput_interval)
      milestones/<key>.parquet  byte milestones (when a flow group sets milestones)
      wlan/<key>.parquet      one row per member of a wireless LAN (when the topology has one)
      .lock                   taken while an invocation edits study.json or cleans up
      .claims/<key>           held (flock) by the invocation running that point

Each file is written to a temporary name, read back (its footer, written last, with the row
count), and renamed into place; ``runs/<key>.parquet`` is written last and is what marks a run
as stored, so a run interrupted at any moment is either complete or absent. A run whose files
do not read back (a disk error, a file edited by hand) is not stored: :meth:`Store.unreadable`
finds it and ``study run`` runs it again. Temporary files of a killed invocation are removed by
the next one. Files are created with the user's umask (0644 by default), so lab-mates can read a
store on a shared server.

Several invocations may work on one store at once: each point is claimed (an exclusive
``flock`` on ``.claims/<key>``, released by the kernel if the process dies) before it runs, so
a second ``study run`` runs only the points the first has not claimed and waits for the rest.

Any Parquet reader opens the datasets: ``pandas.read_parquet(STORE / "flows")``; SQL goes
through :meth:`Store.query` (DuckDB, read-only, with no file access beyond the store).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["TABLES", "Claim", "DiskFullError", "Store", "StoreError", "differences", "folder_kind", "git_commit"]

TABLES: Final = ("runs", "flows", "queues", "series", "udp", "cwnd", "goodput", "milestones", "wlan")
LARGE_TABLE_ROWS: Final = 1_000_000
"""A run's table with more rows than this (a long time series) takes its text labels as
categoricals when it is stored (memory: a byte a row instead of a pointer)."""
FCT_SQL_COLUMNS: Final = "key, name, src, dst, cc, start_s, size_bytes, fct_s, ideal_fct_s, slowdown, retransmits, timeouts, bytes_left"
"""Columns of the SQL view ``fct`` (the finite flows of ``flows``, and ``completed``)."""
"""The datasets of a store; ``runs`` marks a stored run."""

_KEY: Final = re.compile(r"^[0-9a-f]{20}$")
"""A run key: 20 hex digits (:meth:`crosslayer.study.Point.key_of`)."""


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


UMASK: Final = _read_umask()
"""The process's umask, read once: store files get ``0o666 & ~UMASK``, folders ``0o777 & ~UMASK``."""
FILE_MODE: Final = 0o666 & ~UMASK
DIR_MODE: Final = 0o777 & ~UMASK


class StoreError(OSError):
    """A store that cannot be used as asked: the message names the file and the fix."""


class DiskFullError(StoreError):
    """The disk (or the user's quota) is full: nothing half-written is left behind."""


def disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk or the quota is full."""
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


def folder_kind(path: str | Path) -> str:
    """What a folder holds: ``absent``, ``empty``, ``store`` (a study's result store: ``runs/`` or
    ``study.json``), ``run`` (one run's result folder: ``summary.json`` and ``scenario.json``),
    ``file`` (not a folder) or ``other`` (files that are neither)."""
    p = Path(path)
    if not p.exists():
        return "absent"
    if not p.is_dir():
        return "file"
    if (p / "runs").is_dir() or (p / "study.json").is_file():
        return "store"
    if (p / "summary.json").is_file() and (p / "scenario.json").is_file():
        return "run"
    return "empty" if not any(p.iterdir()) else "other"


@cache
def git_commit() -> str | None:
    """The commit of the crosslayer source tree this package runs from, if it is a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    if out.returncode != 0 or not commit:
        return None
    dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, timeout=5, check=False)
    return commit + ("-dirty" if dirty.stdout.strip() else "")


@dataclass
class Claim:
    """The right to run one point of a store: an exclusive ``flock`` on ``.claims/<key>``, held
    until :meth:`release` (or until the process dies: the kernel releases it)."""

    key: str
    path: Path
    fd: int

    def release(self, *, done: bool = False) -> None:
        """Give the point up; ``done`` (the run is stored) also removes the claim file."""
        if self.fd < 0:
            return
        if done:
            with contextlib.suppress(OSError):
                self.path.unlink()
        with contextlib.suppress(OSError):
            os.close(self.fd)  # closing the descriptor releases the lock
        self.fd = -1


class Store:
    """A folder of Parquet datasets (see the module docs)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r}, runs={len(self.keys())})"

    # -- creating and locking -------------------------------------------------------------------

    def create(self, study_text: str | None = None) -> Store:
        """Make the folders (checking that the location is writable before anything runs) and
        write ``study.toml`` the first time. ``StoreError`` if the location holds something
        that is not a store (a run folder of ``crosslayer run``, other files)."""
        kind = folder_kind(self.root)
        if kind == "file":
            raise StoreError(f"{self.root} exists and is not a folder")
        if kind == "run":
            raise StoreError(
                f"{self.root} holds the result of a single run (`crosslayer run`), not a study's store: "
                "write the study to another folder (-o), or remove the run folder first"
            )
        if kind == "other":
            raise StoreError(f"{self.root} holds files that are not a crosslayer store: write the study to another folder (-o)")
        for t in TABLES:
            _mkdir(self.root / t)
        _mkdir(self.root / ".claims")
        probe = self.root / ".write-test"
        probe.write_text("")
        probe.unlink()
        if study_text is not None and not (self.root / "study.toml").exists():
            self._atomic_write_text(self.root / "study.toml", study_text)
        return self

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the store's lock (an exclusive ``flock`` on ``.lock``): for edits of
        ``study.json`` and for cleaning up, which several invocations must not do at once."""
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def claim(self, key: str) -> Claim | None:
        """Claim point ``key`` (non-blocking): a :class:`Claim`, or None if another live process
        holds it."""
        path = self.root / ".claims" / key
        fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        return Claim(key, path, fd)

    def claimed_by(self, key: str) -> int | None:
        """The process id that claimed ``key`` (as it wrote it), if any."""
        try:
            text = (self.root / ".claims" / key).read_text().strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    def clean(self) -> list[Path]:
        """Remove what killed invocations left: temporary files of runs that nobody is writing
        (their point is not claimed) and stale claim files. Returns the files removed."""
        removed: list[Path] = []
        with self.lock():
            for t in TABLES:
                folder = self.root / t
                if not folder.is_dir():
                    continue
                for tmp in folder.glob(".*.tmp"):
                    key = tmp.name[1:].split(".", 1)[0]
                    claim = self.claim(key) if _KEY.match(key) else None
                    if claim is None and _KEY.match(key):
                        continue  # a live invocation is writing this run
                    try:
                        tmp.unlink()
                        removed.append(tmp)
                    except OSError:
                        pass
                    if claim is not None:
                        claim.release()
            for tmp in self.root.glob(".study.*.tmp"):
                with contextlib.suppress(OSError):
                    tmp.unlink()
                    removed.append(tmp)
        return removed

    # -- study.json -------------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """``study.json`` as a dict (empty if absent)."""
        path = self.root / "study.json"
        return json.loads(path.read_text()) if path.exists() else {}

    def write_meta(self, meta: Mapping[str, Any]) -> None:
        """``study.json``: the study's name, its swept columns (path -> column), their levels and
        the commands that ran it (read by the report). A store filled by several invocations
        keeps every column and level any of them swept, in first-seen order, and every command."""
        with self.lock():
            old = self.meta()
            merged = {**old, **meta}
            merged["columns"] = {**old.get("columns", {}), **meta.get("columns", {})}
            levels = {k: list(v) for k, v in old.get("levels", {}).items()}
            for column, values in meta.get("levels", {}).items():
                have = levels.setdefault(column, [])
                have += [v for v in values if v not in have]
            merged["levels"] = levels
            commands = list(old.get("commands", [old["command"]] if "command" in old else []))
            if meta.get("command") and meta["command"] not in commands:
                commands.append(meta["command"])
            merged["commands"] = commands
            self._atomic_write_text(self.root / "study.json", json.dumps(merged, indent=2))  # keeps axis order

    # -- runs -------------------------------------------------------------------------------------

    def keys(self) -> set[str]:
        """Keys of the runs stored completely."""
        d = self.root / "runs"
        return {p.stem for p in d.glob("*.parquet")} if d.is_dir() else set()

    def has(self, key: str) -> bool:
        return (self.root / "runs" / f"{key}.parquet").exists()

    def files(self, key: str) -> list[Path]:
        """The files of run ``key`` that exist, ``runs`` first."""
        return [p for t in TABLES if (p := self.root / t / f"{key}.parquet").exists()]

    def unreadable(self, keys: set[str] | None = None) -> dict[str, str]:
        """Stored runs (of ``keys``, default all) whose files do not read back: key -> what is
        wrong. The ``runs`` file is read whole, the others' Parquet footers are checked."""
        import pyarrow.parquet as pq

        bad: dict[str, str] = {}
        for key in sorted(self.keys() if keys is None else keys & self.keys()):
            for path in self.files(key):
                try:
                    if path.parent.name == "runs":
                        pq.read_table(path)
                    else:
                        pq.read_metadata(path)
                except Exception as exc:  # noqa: BLE001 - pyarrow raises several kinds for a bad file
                    bad[key] = f"{path.relative_to(self.root)}: {str(exc).splitlines()[0][:200]}"
                    break
        return bad

    def remove(self, key: str) -> None:
        """Delete run ``key`` (its ``runs`` file first, so it is never half-stored)."""
        for path in self.files(key):
            path.unlink(missing_ok=True)

    def write(self, key: str, tables: Mapping[str, pd.DataFrame | pa.Table]) -> None:
        """Store one run's tables (``runs`` last, which commits it): Arrow tables
        (:func:`tables_for`) or DataFrames. Each file's footer is read
        back before it is renamed into place. ``DiskFullError`` if the disk is full (nothing of
        the run is left behind); other ``OSError``s as they come."""
        written: list[Path] = []
        try:
            for name in [t for t in TABLES if t != "runs"] + ["runs"]:
                frame = tables.get(name)
                if frame is None:
                    continue
                path = self.root / name / f"{key}.parquet"
                self._atomic_write_parquet(path, frame)
                written.append(path)
        except OSError as exc:
            for path in written:
                path.unlink(missing_ok=True)
            if disk_full(exc):
                raise DiskFullError(exc.errno, f"the disk is full: cannot write run {key} into {self.root} ({exc.strerror})") from None
            raise

    def table(self, name: str, keys: set[str] | None = None) -> pd.DataFrame:
        """All stored runs' rows of ``name`` (of ``keys``, default all), in key order.
        ``StoreError`` names a file that cannot be read and the fix."""
        import pandas as pd

        if name not in TABLES:
            raise KeyError(f"no table {name!r}; a store has {', '.join(TABLES)}")
        chosen = sorted(self.keys() if keys is None else keys & self.keys())
        paths = [p for k in chosen if (p := self.root / name / f"{k}.parquet").exists()]
        tables = _read_alike(paths)
        if tables is not None:
            # the runs' files alike (the same columns and types, none a dictionary): one Arrow
            # table and one conversion, as each file read by pandas and the frames concatenated
            # give (a file costs about 0.1 ms a column to convert alone)
            import pyarrow as pa

            rows = [t for t in tables if t.num_rows]
            if not rows:
                return pd.DataFrame()
            return pa.concat_tables(rows).to_pandas()
        frames = []
        for p in paths:
            frame = _read_frame(p, self.root)
            if len(frame):
                frames.append(frame)
        if not frames:
            return pd.DataFrame()
        return pd.concat(frames, ignore_index=True)

    def runs(self) -> pd.DataFrame:
        return self.table("runs")

    def flows(self) -> pd.DataFrame:
        return self.table("flows")

    def fct(self) -> pd.DataFrame:
        """The finite flows of every stored run with their completion times
        (:func:`crosslayer.fct.fct`), keyed by run; the SQL view ``fct`` holds the same."""
        from crosslayer.fct import fct

        return fct(self.flows())

    def queues(self) -> pd.DataFrame:
        return self.table("queues")

    def series(self) -> pd.DataFrame:
        return self.table("series")

    def udp(self) -> pd.DataFrame:
        return self.table("udp")

    def cwnd(self) -> pd.DataFrame:
        return self.table("cwnd")

    def goodput(self) -> pd.DataFrame:
        return self.table("goodput")

    def wlan(self) -> pd.DataFrame:
        """The wireless LANs' members (frames, attempts, collisions, retries, drops, airtime)."""
        return self.table("wlan")

    def find(self, key: str | None = None, where: Mapping[str, str] | None = None) -> str:
        """The one stored run with this key (or key prefix) and these column values (compared
        as text); ``LookupError`` says what matched instead."""
        if not key and not where:
            raise LookupError(f"{self.root} is a store of {len(self.keys())} runs: choose one with --key KEY or --where column=value")
        runs = self.runs()
        if runs.empty:
            raise LookupError(f"{self.root} holds no stored run")
        sel = runs
        if key:
            sel = sel[sel["key"].astype(str).str.startswith(key)]
        for column, value in (where or {}).items():
            if column not in runs.columns:
                raise LookupError(f"--where {column}=...: the runs have no column {column!r}")
            sel = sel[sel[column].astype(str) == str(value)]
        if len(sel) == 1:
            return str(sel["key"].iloc[0])
        asked = " and ".join([*([f"key {key}"] if key else []), *(f"{c} = {v}" for c, v in (where or {}).items())])
        if sel.empty:
            raise LookupError(f"no stored run has {asked}")
        shown = "; ".join(", ".join(f"{c}={r[c]}" for c in ["key", *[c for c in runs.columns if c == "seed"]]) for r in sel.head(5).to_dict(orient="records"))
        raise LookupError(f"{len(sel)} stored runs have {asked} (e.g. {shown}): add --where column=value (or --key) to choose one")

    def prune(self, keep: set[str] | None = None, *, unreadable: bool = False) -> list[str]:
        """Delete the stored runs whose key is not in ``keep`` (when given) and, with
        ``unreadable``, those whose files do not read back (a full read of every file).
        Returns the keys removed."""
        import pyarrow.parquet as pq

        doomed = set() if keep is None else self.keys() - keep
        if unreadable:
            for key in self.keys() - doomed:
                for path in self.files(key):
                    try:
                        pq.read_table(path)
                    except Exception:  # noqa: BLE001 - any reading failure makes it unreadable
                        doomed.add(key)
                        break
        with self.lock():
            for key in sorted(doomed):
                self.remove(key)
        return sorted(doomed)

    def query(self, sql: str, *, write_dir: str | Path | None = None) -> pd.DataFrame:
        """Run SQL over the store with DuckDB: the tables are views ``runs``, ``flows``,
        ``queues``, ``series``, ``udp`` and ``cwnd`` (only of completely stored runs), and
        ``fct``: the finite flows of ``flows`` with their completion times and ``completed``.

        The connection reads the store's files and nothing else: file access beyond them is
        disabled (no ``read_text('/etc/passwd')``, no ``COPY ... TO``, no ``ATTACH``), extensions
        are neither installed nor loaded, and the configuration is locked so the query cannot
        change it. ``write_dir`` allows ``COPY ... TO`` files inside that folder. The store's
        paths are bound as values, never pasted into SQL."""
        import duckdb

        con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
        keys = sorted(self.keys())
        allowed: list[str] = []
        for name in TABLES:
            files = [str(p.resolve()) for k in keys if (p := self.root / name / f"{k}.parquet").exists()]
            if files:
                con.read_parquet(files, union_by_name=True).create_view(name)
                allowed += files
            else:
                con.execute(f"CREATE VIEW {name} AS SELECT NULL::VARCHAR AS key WHERE false")
        flow_columns = {row[0] for row in con.execute("DESCRIBE flows").fetchall()}
        if {"size_bytes", "fct_s"} <= flow_columns:
            con.execute(f"CREATE VIEW fct AS SELECT {FCT_SQL_COLUMNS}, NOT isnan(fct_s) AS completed FROM flows WHERE size_bytes > 0")
        else:  # a store of runs from before finite flows
            con.execute("CREATE VIEW fct AS SELECT NULL::VARCHAR AS key WHERE false")
        con.execute("SET allowed_paths = $1", [allowed])
        if write_dir is not None:
            con.execute("SET allowed_directories = $1", [[str(Path(write_dir).resolve())]])
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        return con.execute(sql).df()

    # -- writing files --------------------------------------------------------------------------

    @staticmethod
    def _atomic_write_parquet(path: Path, table: pd.DataFrame | pa.Table) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
        try:
            if isinstance(table, pa.Table):
                pq.write_table(table, tmp)
            else:
                table.to_parquet(tmp, index=False)
            # read back before it counts: the footer, which is written last and holds the row
            # count, proves the file complete without decoding it again
            if pq.read_metadata(tmp).num_rows != len(table):
                raise StoreError(f"{tmp} did not read back with {len(table)} rows")
            os.chmod(tmp, FILE_MODE)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @staticmethod
    def _atomic_write_text(path: Path, text: str) -> None:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, FILE_MODE)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """A nested study-file mapping as {path: value} (``topology.bottleneck.delay``)."""
    out: dict[str, Any] = {}
    if isinstance(value, Mapping):
        for k, v in value.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        for i, v in enumerate(value):
            out.update(_flatten(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = value
    return out


def differences(stored: Mapping[str, Any], current: Mapping[str, Any]) -> tuple[tuple[str, Any, Any], ...]:
    """The settings (paths, ``seed`` left out) in which two scenarios differ: (path, value in
    ``stored``, value in ``current``), values as the mappings hold them."""
    a, b = _flatten(stored), _flatten(current)
    return tuple((k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k) and k != "seed")


def _mkdir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)


def tables_for(key: str, labels: Mapping[str, Any], result: Any, config: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, pa.Table]:
    """The tables a run contributes to a store, as Arrow tables: each row tagged with the key
    and the point's swept values (the first columns); the ``runs`` row holds the run metrics
    (:mod:`crosslayer.metrics`). Built from the engine's columns (:meth:`Result.arrow`), not
    through DataFrames: read back with pandas, each file gives the DataFrame the run's table
    with its label columns would be (``tests/test_store_tables.py``), and a short run's tables
    cost less than half of what they did to build and write (docs/PERFORMANCE.md, part 14)."""
    import numpy as np
    import pyarrow as pa

    from crosslayer import _arrow
    from crosslayer.metrics import run_row

    tagged: dict[str, Any] = {"key": key, **labels}
    # the label columns as pandas types a column of one value (built once: a run's tables share it)
    one = _row_table(tagged)

    def tag(name: str) -> pa.Table:
        own = result.arrow(name)
        clash = [c for c in tagged if c in own.column_names]
        if clash:
            raise ValueError(f"a run's table already has the column(s) {clash}: an axis column may not take a result column's name")
        n = own.num_rows
        if n == 0:
            # the types pandas gives the columns of an empty table (a run without TCP flows has
            # an empty flows table, stored as it is): through pandas, which costs nothing here
            import pandas as pd

            frame = getattr(result, name)
            labelled = pd.concat([pd.DataFrame({col: [value] * 0 for col, value in tagged.items()}, index=frame.index), frame], axis=1)
            return pa.Table.from_pandas(labelled, preserve_index=False).replace_schema_metadata(None)
        columns: list[Any] = []
        for col, value in tagged.items():
            if n > LARGE_TABLE_ROWS and isinstance(value, str):
                # one code a row instead of a string a row: a series of 17 million rows took
                # 4.5 GB with its labels as Python lists; read back, concatenated with other
                # runs' rows, the column is text again
                columns.append(pa.DictionaryArray.from_arrays(_arrow.numbers(np.zeros(n, dtype=np.int8)), _arrow.large_strings([value])))
            else:
                columns.append(pa.repeat(one.column(col)[0], n))  # its type kept (pyarrow.compute not imported)
        return pa.Table.from_arrays([*columns, *own.columns], names=[*tagged, *own.column_names])

    # the tables first, while the engine's columns are not DataFrames yet (the metrics build some)
    tables = {"flows": tag("flows"), "queues": tag("queues")}
    for name in ("series", "udp", "cwnd", "goodput", "milestones", "wlan"):
        if result.rows(name):  # an empty table is not stored, nor built
            tables[name] = tag(name)
    row: dict[str, Any] = {"key": key, **labels, "scenario": result.scenario.name}
    row.update(run_row(result))
    row.update(extra)
    row["config"] = json.dumps(config, sort_keys=True)
    row["scenario_json"] = json.dumps(result.scenario.model_dump(mode="json"), sort_keys=True)
    return {"runs": _row_table(row), **tables}


def _unreadable(path: Path, root: Path, exc: Exception) -> StoreError:
    return StoreError(
        f"{path} cannot be read ({str(exc).splitlines()[0][:200]}): remove the run with "
        f"`crosslayer results prune {root} --unreadable`, then `crosslayer study run` computes it again"
    )


def _read_frame(path: Path, root: Path) -> pd.DataFrame:
    """One run's file as pandas reads it; ``StoreError`` names a file that cannot be read."""
    import pandas as pd

    try:
        return pd.read_parquet(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several kinds for a bad file
        raise _unreadable(path, root, exc) from None


def _read_alike(paths: list[Path]) -> list[pa.Table] | None:
    """The runs' files as Arrow tables if they are alike: the same column names and types
    (the pandas metadata aside) and no dictionary column (pandas gives each file's categories,
    and its concatenation text). None otherwise, or if one cannot be read: read them one by one
    with pandas (which names a bad file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        # the footers first (a study's runs of several disciplines have other state columns
        # in their series: those are read once, by pandas)
        schemas = [pq.read_schema(path).remove_metadata() for path in paths]
        if schemas and (any(pa.types.is_dictionary(f.type) for f in schemas[0]) or any(not s.equals(schemas[0]) for s in schemas[1:])):
            return None
        tables = []
        for path in paths:
            with pq.ParquetFile(path) as f:  # lighter than read_table's dataset machinery
                tables.append(f.read())
    except Exception:  # noqa: BLE001 - the file-by-file path reports it
        return None
    return tables


def _row_table(row: Mapping[str, Any]) -> pa.Table:
    """A one-row Arrow table of ``row`` with the types ``pandas.DataFrame([row])`` gives its
    columns (text as ``large_string``, None as null, numbers and booleans as NumPy types them),
    without the DataFrame (a column at a time, pandas' conversion costs more than the run's
    other tables), nor pandas (:mod:`crosslayer._arrow`)."""
    import numpy as np
    import pyarrow as pa

    from crosslayer import _arrow

    columns = []
    for value in row.values():
        if isinstance(value, str):
            columns.append(_arrow.large_strings([value]))
        elif value is None:
            columns.append(pa.nulls(1))
        elif isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
            columns.append(_arrow.numbers(np.asarray([value])))
        else:  # anything else as pandas converts it
            import pandas as pd

            columns.append(pa.Table.from_pandas(pd.DataFrame({"v": [value]}), preserve_index=False).column("v").combine_chunks())
    return pa.Table.from_arrays(columns, names=list(row))
