"""Running a study's points into a store: on local cores or on a Dask distributed cluster.

Every point is one engine run. The runner skips the points whose key the store holds (so a
second invocation runs nothing and an interrupted one resumes), sends the rest to worker
processes (``concurrent.futures`` locally, ``dask.distributed`` on a cluster), and writes each
result into the store in this process as it arrives: a worker that dies, or Ctrl-C, loses only
the runs in flight. The engine is deterministic, so a point gives the same tables wherever it
runs.

Progress comes at two levels: ``on_progress(done, running, failed, total)`` counts runs, and
``on_run(RunEvent)`` follows each run's simulated time, about five times a second per run: local
workers send it through a ``multiprocessing`` queue, Dask workers through a distributed
``Queue`` (best effort: a lost message never fails a run).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from crosslayer.store import Store, frames_for, git_commit
from crosslayer.study import Point, Study, engine_version

__all__ = ["RunEvent", "SweepReport", "execute", "run_study"]

POLL_S = 0.2
"""How often the local runner looks for per-run progress while it waits for results."""


@dataclass(frozen=True)
class RunEvent:
    """A run's progress: ``sim_s`` simulated seconds of ``total_s`` reached, or, when ``done``,
    its end (``error`` says why it failed; ``wall_s`` is its engine wall time when it ran)."""

    key: str
    labels: Mapping[str, Any]
    total_s: float
    sim_s: float = 0.0
    done: bool = False
    error: str | None = None
    wall_s: float | None = None


@dataclass
class SweepReport:
    """What a sweep did."""

    total: int
    skipped: int
    ran: int = 0
    failed: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    interrupted: bool = False
    wall_s: float = 0.0


_progress_queue: Any = None
"""In a local worker process: where :func:`execute` sends ``(key, sim_s)`` progress."""


def _init_worker(q: Any) -> None:
    global _progress_queue
    _progress_queue = q


def _send_progress(key: str) -> Callable[[float], None] | None:
    q = _progress_queue
    if q is None:
        return None

    def send(sim_s: float) -> None:
        try:
            q.put_nowait((key, sim_s))
        except (queue.Full, OSError, ValueError):  # progress is best effort; never fail a run for it
            pass

    return send


def execute(
    key: str, labels: Mapping[str, Any], scenario: Mapping[str, Any], progress: Callable[[float], None] | None = None
) -> dict[str, pd.DataFrame]:
    """Run one point (in a worker): the tables it contributes to a store. ``progress(sim_s)``
    follows the simulated time (in a local worker process, the sweep's queue does)."""
    import crosslayer
    from crosslayer.scenario import Scenario

    sc = Scenario.from_dict(scenario)
    result = crosslayer.run(sc, progress=progress or _send_progress(key))
    extra = {"engine_version": engine_version(), "git_commit": git_commit()}
    return frames_for(key, labels, result, sc.to_engine_spec(), extra)


def _payload(p: Point) -> tuple[str, dict[str, Any], dict[str, Any]]:
    return (p.key, dict(p.labels), p.scenario.model_dump())


def run_study(
    study: Study,
    store: Store,
    *,
    workers: int | None = None,
    client: Any = None,
    on_progress: Callable[[int, int, int, int], None] | None = None,
    on_run: Callable[[RunEvent], None] | None = None,
    command: str | None = None,
) -> SweepReport:
    """Run the points of ``study`` that ``store`` lacks.

    ``workers``: local worker processes (default: every core; 1 runs in this process).
    ``client``: a ``dask.distributed.Client``; the points run on its cluster instead.
    ``on_progress(done, running, failed, total)`` is called as runs finish; ``on_run(event)``
    follows each run (:class:`RunEvent`).
    """
    t0 = time.perf_counter()
    store.create(study.text or None)
    store.write_meta({"name": study.name, "columns": study.columns, "levels": study.levels, "command": command or f"crosslayer study run {store.root / 'study.toml'} -o {store.root}"})
    points = study.points()
    todo: dict[str, Point] = {}
    for p in points:
        if not store.has(p.key) and p.key not in todo:
            todo[p.key] = p
    total = len({p.key for p in points})
    report = SweepReport(total=total, skipped=total - len(todo))
    done = report.skipped

    def progress(running: int) -> None:
        if on_progress:
            on_progress(done, running, len(report.failed), total)

    ended: set[str] = set()  # a worker's last progress message can arrive after its result

    def event(key: str, sim_s: float = 0.0, *, final: bool = False, error: str | None = None, wall_s: float | None = None) -> None:
        if on_run is not None and key in todo and key not in ended:
            if final:
                ended.add(key)
            p = todo[key]
            on_run(RunEvent(key, p.labels, p.scenario.duration / 1e9, sim_s, final, error, wall_s))

    def finished(key: str, frames: dict[str, pd.DataFrame] | None, error: str | None) -> None:
        nonlocal done
        if error is not None:
            report.failed.append((key, dict(todo[key].labels), error))
            event(key, final=True, error=error)
        else:
            assert frames is not None
            store.write(key, frames)
            report.ran += 1
            done += 1
            wall = frames["runs"]["wall_s"].iloc[0] if "wall_s" in frames["runs"] else None
            event(key, todo[key].scenario.duration / 1e9, final=True, wall_s=None if wall is None else float(wall))

    progress(0)
    items = list(todo.values())
    try:
        if client is not None:
            _run_dask(client, items, finished, progress, event if on_run is not None else None)
        elif (workers or os.cpu_count() or 1) <= 1 or len(items) <= 1:
            for p in items:
                progress(1)
                try:
                    frames = execute(*_payload(p), progress=lambda s, k=p.key: event(k, s))
                except Exception as exc:  # noqa: BLE001 - a failed point is reported, the sweep goes on
                    finished(p.key, None, f"{type(exc).__name__}: {exc}")
                else:
                    finished(p.key, frames, None)
        else:
            _run_local(workers or os.cpu_count() or 1, items, finished, progress, event)
    except KeyboardInterrupt:
        report.interrupted = True
    report.wall_s = time.perf_counter() - t0
    progress(0)
    return report


def _run_local(
    workers: int, items: Iterable[Point], finished: Callable[..., None], progress: Callable[[int], None], event: Callable[[str, float], None]
) -> None:
    ctx = multiprocessing.get_context()
    runs_q = ctx.Queue()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker, initargs=(runs_q,))
    futures: dict[Future[dict[str, pd.DataFrame]], str] = {}

    def drain() -> None:
        while True:
            try:
                key, sim_s = runs_q.get_nowait()
            except (queue.Empty, OSError, ValueError):
                return
            event(key, sim_s)

    try:
        for p in items:
            futures[pool.submit(execute, *_payload(p))] = p.key
        pending = set(futures)
        progress(min(workers, len(pending)))
        while pending:
            ready, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
            drain()
            for f in ready:
                exc = f.exception()
                if exc is not None:
                    finished(futures[f], None, f"{type(exc).__name__}: {exc}")
                else:
                    finished(futures[f], f.result(), None)
            progress(min(workers, len(pending)))
    except KeyboardInterrupt:
        # stop now: the runs in flight are lost, the stored ones stay
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        runs_q.cancel_join_thread()
        raise
    pool.shutdown(wait=True)
    runs_q.close()


def execute_on_dask(key: str, labels: Mapping[str, Any], scenario: Mapping[str, Any], queue_name: str) -> dict[str, pd.DataFrame]:
    """:func:`execute` on a Dask worker, sending ``(key, sim_s)`` progress to the driver through
    the distributed queue ``queue_name`` (best effort)."""
    from distributed import Queue, get_client

    try:
        q = Queue(queue_name, client=get_client())
    except Exception:  # noqa: BLE001 - progress is best effort; run without it
        return execute(key, labels, scenario)

    def send(sim_s: float) -> None:
        try:
            q.put((key, sim_s), timeout=1)
        except Exception:  # noqa: BLE001 - progress is best effort; never fail a run for it
            pass

    return execute(key, labels, scenario, progress=send)


def _run_dask(
    client: Any, items: Iterable[Point], finished: Callable[..., None], progress: Callable[[int], None], event: Callable[[str, float], None] | None = None
) -> None:
    import uuid

    from distributed import Queue, as_completed

    runs_q = Queue(f"crosslayer-progress-{uuid.uuid4().hex}", client=client) if event is not None else None
    futures = {}
    for p in items:
        if runs_q is not None:
            fut = client.submit(execute_on_dask, *_payload(p), runs_q.name, key=f"crosslayer-{p.key}", pure=False)
        else:
            fut = client.submit(execute, *_payload(p), key=f"crosslayer-{p.key}", pure=False)
        futures[fut] = p.key
    n_workers = max(1, len(client.scheduler_info().get("workers", {})))
    remaining = len(futures)
    progress(min(n_workers, remaining))

    def drain() -> None:
        if runs_q is None or event is None:
            return
        try:
            got = runs_q.get(batch=True)
        except Exception:  # noqa: BLE001 - progress is best effort
            return
        for key, sim_s in got:
            event(key, sim_s)

    pending = as_completed(list(futures))
    try:
        while not pending.is_empty():
            batch = pending.next_batch(block=False)
            drain()
            if not batch:
                time.sleep(POLL_S)
                continue
            for fut in batch:
                remaining -= 1
                try:
                    frames = fut.result()
                except Exception as exc:  # noqa: BLE001 - a failed point is reported, the sweep goes on
                    finished(futures[fut], None, f"{type(exc).__name__}: {exc}")
                else:
                    finished(futures[fut], frames, None)
            progress(min(n_workers, remaining))
    except KeyboardInterrupt:
        client.cancel(list(futures))
        raise
