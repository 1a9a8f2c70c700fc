"""Speed benchmark on the seed-paper scenarios, compared with ns-3.

The cases are the study files in ``studies/`` with the flow count changed; ``quick`` shortens
them. Speed is what the engine reports in its summary (wall time measured inside the engine).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from crosslayer import run
from crosslayer.result import Result
from crosslayer.scenario import Scenario


@dataclass(frozen=True)
class Ns3Reference:
    """Speed of ns-3 on one case, and where the figure comes from."""

    wall_s_per_sim_s: float
    measured: str


# ns-3 3.44's `Simulator::Run()` on the same scenarios (9 CUBIC flows, Drop Tail, 100 s),
# measured side by side with crosslayer on this machine class by `validation/compare.py bench`
# (docs/PERFORMANCE.md, part 21's re-measured table); re-measure there and copy the figure here
# and into benches/throughput.rs (a test holds the two equal). A ratio printed against a stored
# figure moves with the machine's speed on the day; the side-by-side command gives the ratio.
NS3_REFERENCE: Final[dict[str, Ns3Reference]] = {
    "access-link-9": Ns3Reference(0.566, "2026-11-28: 56.6 s for 100 s, the median of 3 rounds of 49.1-60.6 s"),
    "data-center-9": Ns3Reference(4.027, "2026-11-28: 402.7 s for 100 s, one round; earlier rounds 379-495 s"),
}


@dataclass(frozen=True)
class BenchCase:
    """A benchmark scenario: a study file with ``per_pair`` flows per (sender, receiver) pair."""

    key: str
    title: str
    study: str
    """File name in the studies folder."""
    per_pair: int


CASES: Final = (
    BenchCase("access-link-9", "Access Link, 9 CUBIC flows, DropTail", "seed000-access-link.toml", 1),
    BenchCase("access-link-90", "Access Link, 90 CUBIC flows, DropTail", "seed000-access-link.toml", 10),
    BenchCase("data-center-9", "Data Center, 9 CUBIC flows, DropTail", "seed000-data-center.toml", 1),
)
QUICK_DURATION: Final = "10s"
QUICK_WARMUP: Final = "5s"


def default_studies_dir() -> Path:
    """``./studies`` if present, else the ``studies/`` of the source tree this package lives in."""
    here = Path.cwd() / "studies"
    return here if here.is_dir() else Path(__file__).resolve().parents[2] / "studies"


def bench_scenario(case: BenchCase, studies_dir: Path, quick: bool) -> Scenario:
    """The case's scenario: its study file with per_pair (and, if quick, timing) replaced."""
    base = Scenario.from_toml(studies_dir / case.study)
    flows = [{**group, "per_pair": case.per_pair} for group in base.model_dump()["flows"]]
    changes: dict[str, object] = {"name": f"bench-{case.key}", "flows": flows}
    if quick:
        changes |= {"duration": QUICK_DURATION, "warmup": QUICK_WARMUP}
    return base.with_overrides(**changes)


@dataclass(frozen=True)
class BenchRow:
    """Speed of one case."""

    case: BenchCase
    flows: int
    sim_s: float
    wall_s: float
    events: int
    delivered_segments: int

    @property
    def wall_s_per_sim_s(self) -> float:
        return self.wall_s / self.sim_s

    @property
    def delivered_segments_per_wall_s(self) -> float:
        return self.delivered_segments / self.wall_s

    @property
    def events_per_wall_s(self) -> float:
        return self.events / self.wall_s

    @property
    def speedup_vs_ns3(self) -> float | None:
        """ns-3 wall-s per sim-s over ours (> 1: faster than ns-3)."""
        ref = NS3_REFERENCE.get(self.case.key)
        return None if ref is None else ref.wall_s_per_sim_s / self.wall_s_per_sim_s

    @classmethod
    def from_result(cls, case: BenchCase, result: Result) -> BenchRow:
        s = result.summary
        return cls(
            case=case,
            flows=len(result.flows),
            sim_s=float(s["sim_s"]),
            # Guard against a zero clock reading on a tiny run.
            wall_s=max(float(s["wall_s"]), 1e-9),
            events=int(s["events"]),
            delivered_segments=int(s["delivered_segments"]),
        )


def run_bench(studies_dir: Path, quick: bool = False, on_start: Callable[[BenchCase, Scenario], None] | None = None) -> Iterator[BenchRow]:
    """Run every case in order, yielding its row as soon as it finishes; ``on_start(case,
    scenario)`` is called before each."""
    for case in CASES:
        scenario = bench_scenario(case, studies_dir, quick)
        if on_start is not None:
            on_start(case, scenario)
        yield BenchRow.from_result(case, run(scenario))


STARTUP_COMMANDS: Final = (("--version",), ("-h",))
"""What a user types first: their start-up cost is measured by :func:`startup_cpu`."""


def startup_cpu(command: str, runs: int = 15) -> dict[str, tuple[float, float, float]]:
    """CPU seconds (user + system) of ``command --version`` and ``command -h``, each run
    ``runs`` times in a fresh process: (min, median, max). CPU time, not wall time, so a busy
    machine changes it little."""
    import resource
    import statistics
    import subprocess

    out: dict[str, tuple[float, float, float]] = {}
    for args in STARTUP_COMMANDS:
        times = []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([command, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out[" ".join(args)] = (min(times), statistics.median(times), max(times))
    return out


@dataclass(frozen=True)
class SweepCost:
    """What a sweep of short runs costs (:func:`sweep_cpu`): the whole command's wall and CPU
    time (its worker processes included) and the engine's own time (the runs' ``wall_s``)."""

    runs: int
    workers: int
    wall_s: float
    cpu_s: float
    engine_s: float

    @property
    def outside_share(self) -> float:
        """The share of the CPU time spent outside the engine (start-up, Python, the store)."""
        return max(0.0, 1.0 - self.engine_s / self.cpu_s) if self.cpu_s > 0 else 0.0


SWEEP_STUDY: Final = "seed000-access-link.toml"
"""The sweep benchmark's runs: seed 000's Access Link (9 CUBIC flows), 5 s each (1 s warm-up),
one per seed: a short run's engine time is about that of its Python around it."""


def sweep_cpu(command: Sequence[str], studies_dir: Path, runs: int = 40, workers: int = 1) -> SweepCost:
    """Run ``command study run`` (``command``: the program and its first arguments, e.g.
    ``[sys.executable, "-m", "crosslayer.cli"]``) on ``runs`` seeds of :data:`SWEEP_STUDY` into a new temporary
    store with ``workers`` worker processes, and measure it: wall time, CPU time of the command
    and its workers (user + system), and the engine's time summed over the stored runs."""
    import resource
    import subprocess
    import tempfile
    import time

    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory(prefix="crosslayer-sweep-bench-") as tmp:
        store = Path(tmp) / "store"
        args = [*command, "study", "run", str(studies_dir / SWEEP_STUDY), "-o", str(store), "-q", "-j", str(workers),
                "--set", f"study.seeds={runs}", "--set", "duration=5s", "--set", "warmup=1s"]  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(args, stdout=subprocess.DEVNULL, check=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        engine = sum(float(pq.read_table(f, columns=["wall_s"]).column(0)[0].as_py()) for f in (store / "runs").glob("*.parquet"))
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return SweepCost(runs=runs, workers=workers, wall_s=wall, cpu_s=cpu, engine_s=engine)
