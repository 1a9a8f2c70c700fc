"""Running a study's points into a store: on local cores or on a Dask distributed cluster.

Every point is one engine run. The runner skips the points whose key the store holds (so a
second invocation runs nothing and an interrupted one resumes), claims each other point in the
store before it runs it (so two invocations on one store never run a point twice: the second
runs what the first has not claimed and waits for the rest), sends the claimed points to worker
processes (``concurrent.futures`` locally, ``dask.distributed`` on a cluster) a few at a time,
and writes each result into the store in this process as it arrives: a worker that dies, or
Ctrl-C, loses only the runs in flight. On several workers the points start costliest first (an
estimate from the simulated time, the bottleneck's rate and the flows: ``_work``), so that the
last to start are short runs and no worker waits on a long one at the end. The engine is
deterministic, so a point gives the same tables wherever it runs.

Before it runs anything, the runner removes what a killed invocation left (temporary files),
runs again the stored runs of this study whose files do not read back, and compares the
store's runs with the study: a run at the same swept values but of another configuration (the
study file was edited outside its axes) is reported with the settings that differ
(:class:`Conflict`), so the user can prune the store (``crosslayer results prune``, ``study run
--fresh``) before its tables mix two definitions.

Local worker processes exit when their parent dies (SIGKILL included): each watches its
parent's pid. Progress comes at two levels: ``on_progress(done, running, failed, total)``
counts runs, and ``on_run(RunEvent)`` follows each run's simulated time, about five times a
second per run: local workers send it through a ``multiprocessing`` queue, Dask workers through
a distributed ``Queue`` (best effort: a lost message never fails a run).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crosslayer.store import (
    Claim,
    DiskFullError,
    Store,
    differences,
    tables_for,
    git_commit,
)
from crosslayer.study import Point, Study, engine_version

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Conflict", "Eta", "RunEvent", "SweepReport", "conflicts", "execute", "run_study"]

POLL_S = 0.2
"""How often the runner looks for per-run progress while it waits for results."""
WAIT_POLL_S = 1.0
"""How often it looks whether another invocation stored (or gave up) a point it waits for."""
PARENT_POLL_S = 0.5
"""How often a local worker checks that its parent is alive."""


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


@dataclass(frozen=True)
class Conflict:
    """A stored run at the same swept values as a point of the study, but of another
    configuration: ``differences`` lists (setting, stored value, this study's value)."""

    key: str
    labels: Mapping[str, Any]
    point_key: str
    differences: tuple[tuple[str, Any, Any], ...]


@dataclass
class SweepReport:
    """What a sweep did."""

    total: int
    skipped: int
    ran: int = 0
    failed: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    interrupted: bool = False
    wall_s: float = 0.0
    rerun_unreadable: dict[str, str] = field(default_factory=dict)
    """Stored runs whose files did not read back: key -> what was wrong (they ran again)."""
    by_others: int = 0
    """Points another invocation on the same store ran while this one waited."""
    waited_for: dict[int, int] = field(default_factory=dict)
    """Process id of another invocation -> how many of its claimed points this one waited for."""
    cleaned: int = 0
    """Temporary files of killed invocations removed."""
    conflicts: list[Conflict] = field(default_factory=list)
    disk_full: str | None = None
    """Set when a run could not be stored because the disk is full (the sweep stopped)."""


class Eta:
    """The time a sweep has left, from simulated seconds: every point costs wall time in
    proportion to the seconds it simulates (roughly), so the rate of simulated seconds per wall
    second over all workers, since the first progress, divides what is left. Counting finished
    runs instead (what a progress bar does) is wrong while few have finished and runs in flight
    are far along."""

    def __init__(self, durations: Mapping[str, float], clock: Callable[[], float] = time.monotonic) -> None:
        self.durations = dict(durations)
        self.reached: dict[str, float] = {}
        self.clock = clock
        self.start: float | None = None
        self.base = 0.0
        """Simulated seconds done when the clock started (runs stored before)."""

    def update(self, ev: RunEvent) -> None:
        """Take a run's progress (``done``: the whole duration, whether it ran, failed or was
        stored by another invocation)."""
        if ev.key not in self.durations:
            return
        if self.start is None:
            self.start = self.clock()
            self.base = sum(self.reached.values())
        self.reached[ev.key] = self.durations[ev.key] if ev.done else min(ev.sim_s, self.durations[ev.key])

    def skip(self, keys: Iterable[str]) -> None:
        """Points that need no run (already stored)."""
        for k in keys:
            self.durations.pop(k, None)

    def remaining_s(self) -> float | None:
        """Wall seconds left, or None before there is a rate to go by."""
        if self.start is None:
            return None
        elapsed = self.clock() - self.start
        done = sum(self.reached.values())
        if elapsed <= 0 or done - self.base <= 0:
            return None
        rate = (done - self.base) / elapsed
        return max(0.0, (sum(self.durations.values()) - done) / rate)


_progress_queue: Any = None
"""In a local worker process: where :func:`execute` sends ``(key, sim_s)`` progress."""


def _watch_parent(parent: int) -> None:
    """Exit this worker as soon as its parent is gone (killed, even by SIGKILL): an orphaned
    worker would run on forever holding the caller's pipes."""
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent:
            os._exit(1)


def _init_worker(q: Any, parent: int) -> None:
    global _progress_queue
    _progress_queue = q
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the driver's terminate() ends a worker at once
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="crosslayer-parent-watch").start()


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
) -> dict[str, pa.Table]:
    """Run one point (in a worker): the tables it contributes to a store. ``progress(sim_s)``
    follows the simulated time (in a local worker process, the sweep's queue does)."""
    import crosslayer
    from crosslayer.scenario import Scenario

    sc = Scenario.from_dict(scenario)
    result = crosslayer.run(sc, progress=progress or _send_progress(key))
    extra = {"engine_version": engine_version(), "git_commit": git_commit()}
    return tables_for(key, labels, result, sc.to_engine_spec(compact=True), extra)


def _work(p: Point) -> float:
    """A point's run's cost, roughly and relative to the others, for the order a sweep starts
    its runs in: simulated seconds x the rate of its bottleneck (`Scenario.bottleneck_link`, the
    link its headline metrics describe: what it carries bounds the packets, the events) x (1 +
    log10 of its flows). On seed 000's matrix it orders the runs as their run times do: the Data
    Center (1 Gb/s) before the Access Link, 900 flows before 90 and 9."""
    sc = p.scenario
    rate = sc.link_rate(sc.bottleneck_link()) or 1
    return sc.duration / 1e9 * rate * (1.0 + math.log10(max(1, sc.flow_count())))


def _payload(p: Point) -> tuple[str, dict[str, Any], dict[str, Any]]:
    return (p.key, dict(p.labels), p.scenario.model_dump())


def conflicts(study: Study, store: Store, points: list[Point] | None = None) -> list[Conflict]:
    """Stored runs at the same swept values as a point of ``study`` but with another key: the
    same point of another definition of the study (an edited file, a ``--set`` of a field no
    axis sweeps), with the settings that differ in plain values (as a study file writes them)."""
    points = study.points() if points is None else points
    keys = {p.key for p in points}
    runs = store.runs() if store.keys() - keys else None
    if runs is None or runs.empty:
        return []
    columns = list(study.columns.values())
    by_labels = {tuple(str(p.labels.get(c)) for c in columns): p for p in points}
    out: list[Conflict] = []
    for row in runs.to_dict(orient="records"):
        if row["key"] in keys:
            continue
        p = by_labels.get(tuple(str(row.get(c)) for c in columns))
        if p is None:
            continue  # a point this invocation does not run (another axis value): no clash
        stored = json.loads(row["scenario_json"]) if isinstance(row.get("scenario_json"), str) else None
        if stored is not None:
            diff = differences(stored, p.scenario.model_dump(mode="json"))
        else:  # stored before scenario_json existed: compare engine specs
            diff = differences(json.loads(row.get("config") or "{}"), p.scenario.to_engine_spec(compact=True))
        if not diff and row.get("engine_version") != engine_version():
            diff = (("engine version", row.get("engine_version"), engine_version()),)
        out.append(Conflict(row["key"], {c: _plain(row.get(c)) for c in columns}, p.key, diff))
    return out


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (messages print ``1``, not ``np.int64(1)``)."""
    return value.item() if hasattr(value, "item") else value


class _Serial:
    """Runs each point in this process when it is submitted (one at a time)."""

    capacity = 1

    def __init__(self, event: Callable[..., None]) -> None:
        self.event = event

    def submit(self, p: Point) -> Future[Any]:
        fut: Future[Any] = Future()
        try:
            fut.set_result(execute(*_payload(p), progress=lambda s, k=p.key: self.event(k, s)))
        except Exception as exc:  # noqa: BLE001 - a failed point is reported, the sweep goes on
            fut.set_exception(exc)
        return fut

    def wait(self, futures: set[Any], timeout: float) -> set[Any]:
        return {f for f in futures if f.done()}

    def drain(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


class _Local:
    """A pool of local worker processes that exit with their parent."""

    def __init__(self, workers: int, event: Callable[..., None]) -> None:
        ctx = multiprocessing.get_context()
        self.event = event
        self.capacity = workers
        self.runs_q = ctx.Queue()
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker, initargs=(self.runs_q, os.getpid()))

    def submit(self, p: Point) -> Future[Any]:
        return self.pool.submit(execute, *_payload(p))

    def wait(self, futures: set[Any], timeout: float) -> set[Any]:
        done, _ = wait(futures, timeout=timeout, return_when=FIRST_COMPLETED)
        return done

    def drain(self) -> None:
        while True:
            try:
                key, sim_s = self.runs_q.get_nowait()
            except (queue.Empty, OSError, ValueError):
                return
            self.event(key, sim_s)

    def stop(self) -> None:
        """Stop now: the runs in flight are lost, the stored ones stay."""
        for proc in list(getattr(self.pool, "_processes", {}).values()):
            proc.terminate()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.runs_q.cancel_join_thread()

    def close(self) -> None:
        self.pool.shutdown(wait=True)
        self.runs_q.close()


class _Dask:
    """Points submitted to a Dask cluster, progress through a distributed queue."""

    def __init__(self, client: Any, event: Callable[..., None] | None) -> None:
        import uuid

        from distributed import Queue

        self.client = client
        self.event = event
        self.runs_q = Queue(f"crosslayer-progress-{uuid.uuid4().hex}", client=client) if event is not None else None
        self.capacity = 2 * max(1, len(client.scheduler_info().get("workers", {})))
        self.futures: set[Any] = set()

    def submit(self, p: Point) -> Any:
        if self.runs_q is not None:
            fut = self.client.submit(execute_on_dask, *_payload(p), self.runs_q.name, key=f"crosslayer-{p.key}", pure=False)
        else:
            fut = self.client.submit(execute, *_payload(p), key=f"crosslayer-{p.key}", pure=False)
        self.futures.add(fut)
        return fut

    def wait(self, futures: set[Any], timeout: float) -> set[Any]:
        from distributed import wait as dask_wait

        try:
            done, _ = dask_wait(list(futures), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set()
        return set(done)

    def drain(self) -> None:
        if self.runs_q is None or self.event is None:
            return
        try:
            got = self.runs_q.get(batch=True)
        except Exception:  # noqa: BLE001 - progress is best effort
            return
        for key, sim_s in got:
            self.event(key, sim_s)

    def stop(self) -> None:
        self.client.cancel([f for f in self.futures if not f.done()])

    def close(self) -> None:
        pass


def run_study(
    study: Study,
    store: Store,
    *,
    workers: int | None = None,
    client: Any = None,
    on_progress: Callable[[int, int, int, int], None] | None = None,
    on_run: Callable[[RunEvent], None] | None = None,
    on_wait: Callable[[dict[int, int]], None] | None = None,
    command: str | None = None,
    fresh: bool = False,
) -> SweepReport:
    """Run the points of ``study`` that ``store`` lacks.

    ``workers``: local worker processes (default: every core; 1 runs in this process).
    ``client``: a ``dask.distributed.Client``; the points run on its cluster instead.
    ``on_progress(done, running, failed, total)`` is called as runs finish; ``on_run(event)``
    follows each run (:class:`RunEvent`); ``on_wait({pid: points})`` says, when this invocation
    starts waiting, for which other invocations' points it waits. ``fresh`` first removes every
    stored run that is not a point of ``study`` (as given). ``DiskFullError`` never escapes: the
    sweep stops and ``disk_full`` says why.
    """
    t0 = time.perf_counter()
    store.create(study.text or None)
    store.write_meta({"name": study.name, "columns": study.columns, "levels": study.levels, "command": command or f"crosslayer study run {store.root / 'study.toml'} -o {store.root}"})
    points = study.points()
    keys = {p.key for p in points}
    cleaned = store.clean()
    if fresh:
        store.prune(keep=keys)
    unreadable = store.unreadable(keys)
    with store.lock():
        for key in unreadable:
            store.remove(key)
    clashes = conflicts(study, store, points)
    todo: dict[str, Point] = {}
    for p in points:
        if not store.has(p.key) and p.key not in todo:
            todo[p.key] = p
    total = len(keys)
    report = SweepReport(total=total, skipped=total - len(todo), rerun_unreadable=unreadable, cleaned=len(cleaned), conflicts=clashes)
    done = report.skipped

    ended: set[str] = set()  # a worker's last progress message can arrive after its result

    def event(key: str, sim_s: float = 0.0, *, final: bool = False, error: str | None = None, wall_s: float | None = None) -> None:
        if on_run is not None and key in todo and key not in ended:
            if final:
                ended.add(key)
            p = todo[key]
            on_run(RunEvent(key, p.labels, p.scenario.duration / 1e9, sim_s, final, error, wall_s))

    if client is not None:
        runner: Any = _Dask(client, event if on_run is not None else None)
    elif (workers or os.cpu_count() or 1) <= 1 or len(todo) <= 1:
        runner = _Serial(event)
    else:
        runner = _Local(min(workers or os.cpu_count() or 1, len(todo)), event)

    pending: deque[Point] = deque(todo.values())
    if runner.capacity > 1 and len(pending) > runner.capacity:
        # the costliest first, so that the last runs to start are short ones and no worker
        # waits on a long run at the end (equal costs keep the study's order)
        pending = deque(sorted(pending, key=_work, reverse=True))
    deferred: dict[str, Point] = {}  # claimed by another invocation
    in_flight: dict[Any, tuple[Point, Claim]] = {}
    last_look = 0.0

    def progress() -> None:
        if on_progress:
            on_progress(done, len(in_flight), len(report.failed), total)

    def finished(p: Point, claim: Claim, tables: dict[str, pa.Table] | None, error: str | None) -> None:
        nonlocal done
        if error is not None:
            claim.release()
            report.failed.append((p.key, dict(p.labels), error))
            event(p.key, final=True, error=error)
            return
        assert tables is not None
        try:
            store.write(p.key, tables)
        finally:
            claim.release(done=store.has(p.key))
        report.ran += 1
        done += 1
        runs = tables["runs"]
        wall = runs.column("wall_s")[0].as_py() if "wall_s" in runs.column_names else None
        event(p.key, p.scenario.duration / 1e9, final=True, wall_s=None if wall is None else float(wall))

    def look_at_deferred() -> None:
        """Points another invocation claimed: stored by it meanwhile, or free again (it died)."""
        nonlocal done
        for key, p in list(deferred.items()):
            if store.has(key):
                del deferred[key]
                report.by_others += 1
                done += 1
                event(key, p.scenario.duration / 1e9, final=True)
            elif (claim := store.claim(key)) is not None:
                claim.release()
                del deferred[key]
                pending.append(p)

    progress()
    try:
        while pending or in_flight or deferred:
            while pending and len(in_flight) < runner.capacity:
                p = pending.popleft()
                claim = store.claim(p.key)
                if claim is None:
                    deferred[p.key] = p
                    pid = store.claimed_by(p.key)
                    if pid is not None:
                        report.waited_for[pid] = report.waited_for.get(pid, 0) + 1
                    continue
                if store.has(p.key):  # stored by another invocation since we looked
                    claim.release(done=True)
                    report.by_others += 1
                    done += 1
                    continue
                in_flight[runner.submit(p)] = (p, claim)
                progress()
            if not in_flight:
                if deferred:
                    if on_wait is not None and report.waited_for and last_look == 0.0:
                        on_wait(dict(report.waited_for))
                    time.sleep(WAIT_POLL_S)
                    last_look = time.monotonic()
                    look_at_deferred()
                    progress()
                continue
            ready = runner.wait(set(in_flight), POLL_S)
            runner.drain()
            for fut in ready:
                p, claim = in_flight.pop(fut)
                try:
                    frames = fut.result()
                except Exception as exc:  # noqa: BLE001 - a failed point is reported, the sweep goes on
                    finished(p, claim, None, f"{type(exc).__name__}: {exc}")
                else:
                    finished(p, claim, frames, None)
                progress()
            if deferred and time.monotonic() - last_look >= WAIT_POLL_S:
                last_look = time.monotonic()
                look_at_deferred()
    except KeyboardInterrupt:
        report.interrupted = True
        runner.stop()
    except DiskFullError as exc:
        report.disk_full = str(exc)
        runner.stop()
    else:
        runner.close()
    finally:
        for _, claim in in_flight.values():
            claim.release()
    report.wall_s = time.perf_counter() - t0
    progress()
    return report


def execute_on_dask(key: str, labels: Mapping[str, Any], scenario: Mapping[str, Any], queue_name: str) -> dict[str, pa.Table]:
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
