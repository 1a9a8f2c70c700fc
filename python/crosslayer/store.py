"""A result store: a folder of Parquet datasets, one file per run and table, written atomically.

Layout::

    STORE/
      study.toml              the study file as given (the first run writes it)
      study.json              its name, swept columns and the command that ran it
      runs/<key>.parquet      one row: the point's swept values, headline numbers, the full
                              configuration, engine version and git commit
      flows/<key>.parquet     one row per flow, with the point's swept values and key
      queues/<key>.parquet    one row per link
      series/<key>.parquet    the bottleneck queue over time (when the scenario samples it)
      udp/<key>.parquet       one row per UDP flow (when the scenario has [[udp]] groups)
      cwnd/<key>.parquet      each flow's cwnd trace (when the scenario sets cwnd_trace)

Each file is written to a temporary name and renamed into place; ``runs/<key>.parquet`` is
written last and is what marks a run as stored, so a run interrupted at any moment is either
complete or absent (files of an unfinished run are ignored and overwritten). Any Parquet reader
opens the datasets: ``pandas.read_parquet(STORE / "flows")``, DuckDB's
``read_parquet('STORE/flows/*.parquet')`` (:meth:`Store.query`).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Final

import pandas as pd

__all__ = ["TABLES", "Store", "git_commit"]

TABLES: Final = ("runs", "flows", "queues", "series", "udp", "cwnd")
"""The datasets of a store; ``runs`` marks a stored run."""


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


class Store:
    """A folder of Parquet datasets (see the module docs)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r}, runs={len(self.keys())})"

    def create(self, study_text: str | None = None) -> Store:
        """Make the folders (checking that the location is writable before anything runs)."""
        if self.root.exists() and not self.root.is_dir():
            raise NotADirectoryError(f"{self.root} exists and is not a folder")
        for t in TABLES:
            (self.root / t).mkdir(parents=True, exist_ok=True)
        probe = self.root / ".write-test"
        probe.write_text("")
        probe.unlink()
        if study_text is not None and not (self.root / "study.toml").exists():
            self._atomic_write_text(self.root / "study.toml", study_text)
        return self

    def meta(self) -> dict[str, Any]:
        """``study.json`` as a dict (empty if absent)."""
        path = self.root / "study.json"
        return json.loads(path.read_text()) if path.exists() else {}

    def write_meta(self, meta: Mapping[str, Any]) -> None:
        """``study.json``: the study's name, its swept columns (path -> column), their levels and
        the commands that ran it (read by the report). A store filled by several invocations
        keeps every column and level any of them swept, in first-seen order, and every command."""
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

    def keys(self) -> set[str]:
        """Keys of the runs stored completely."""
        d = self.root / "runs"
        return {p.stem for p in d.glob("*.parquet")} if d.is_dir() else set()

    def has(self, key: str) -> bool:
        return (self.root / "runs" / f"{key}.parquet").exists()

    def write(self, key: str, tables: Mapping[str, pd.DataFrame]) -> None:
        """Store one run's tables (``runs`` last, which commits it)."""
        for name in [t for t in TABLES if t != "runs"] + ["runs"]:
            frame = tables.get(name)
            if frame is None:
                continue
            self._atomic_write_parquet(self.root / name / f"{key}.parquet", frame)

    def table(self, name: str) -> pd.DataFrame:
        """All stored runs' rows of ``name``, in key order (rows of unfinished runs left out)."""
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; a store has {', '.join(TABLES)}")
        keys = sorted(self.keys())
        frames = [pd.read_parquet(p) for k in keys if (p := self.root / name / f"{k}.parquet").exists()]
        frames = [f for f in frames if len(f)]
        if not frames:
            return pd.DataFrame()
        return pd.concat(frames, ignore_index=True)

    def runs(self) -> pd.DataFrame:
        return self.table("runs")

    def flows(self) -> pd.DataFrame:
        return self.table("flows")

    def queues(self) -> pd.DataFrame:
        return self.table("queues")

    def series(self) -> pd.DataFrame:
        return self.table("series")

    def udp(self) -> pd.DataFrame:
        return self.table("udp")

    def cwnd(self) -> pd.DataFrame:
        return self.table("cwnd")

    def query(self, sql: str) -> pd.DataFrame:
        """Run SQL over the store with DuckDB: the tables are views ``runs``, ``flows``,
        ``queues``, ``series``, ``udp`` and ``cwnd`` (only of completely stored runs)."""
        import duckdb

        con = duckdb.connect()
        keys = sorted(self.keys())
        for name in TABLES:
            files = [str(p) for k in keys if (p := self.root / name / f"{k}.parquet").exists()]
            if files:
                con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet({files!r}, union_by_name = true)")
            else:
                con.execute(f"CREATE VIEW {name} AS SELECT NULL::VARCHAR AS key WHERE false")
        return con.execute(sql).df()

    @staticmethod
    def _atomic_write_parquet(path: Path, frame: pd.DataFrame) -> None:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
        try:
            frame.to_parquet(tmp, index=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @staticmethod
    def _atomic_write_text(path: Path, text: str) -> None:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)


def frames_for(key: str, labels: Mapping[str, Any], result: Any, config: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """The tables a run contributes to a store: each row tagged with the key and the point's
    swept values."""
    agg = result.aggregates()
    b = agg["bottleneck"]
    row: dict[str, Any] = {"key": key, **labels}
    row.update(
        {
            "scenario": agg["scenario"],
            "flows": agg["flows"],
            "utilization": b["utilization"],
            "qlen_mean_pkts": b["qlen_mean_pkts"],
            "qlen_sd_pkts": b["qlen_sd_pkts"],
            "sojourn_mean_s": b["sojourn_mean_s"],
            "sojourn_p99_s": b["sojourn_p99_s"],
            "drop_ratio": b["drop_ratio"],
            "jain": agg["jain"],
            "goodput_mean_mbps": agg["goodput_mbps"]["mean"],
            "goodput_total_mbps": float(result.flows["goodput_bps"].sum()) / 1e6,
            "throughput_total_mbps": float(result.flows["throughput_bps"].sum()) / 1e6,
            "zero_goodput_flows": agg["lockout"]["zero_goodput_flows"],
            "active_flows": int((result.flows["goodput_bps"] > 0).sum()),
            "max_host_goodput_share": agg["lockout"]["max_host_goodput_share"],
            "max_host_bottleneck_drop_share": agg["lockout"]["max_host_bottleneck_drop_share"],
            "wall_s": agg["wall_s"],
            "sim_s": agg["sim_s"],
            "events": agg["events"],
            **extra,
            "config": json.dumps(config, sort_keys=True),
        }
    )

    def tag(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.copy()
        for i, (col, value) in enumerate({"key": key, **labels}.items()):
            out.insert(i, col, [value] * len(out))
        return out

    tables = {"runs": pd.DataFrame([row]), "flows": tag(result.flows), "queues": tag(result.queues)}
    for name in ("series", "udp", "cwnd"):
        frame = getattr(result, name)
        if len(frame):
            tables[name] = tag(frame)
    return tables
