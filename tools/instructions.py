"""Instructions and events a delivered segment, counted by callgrind (`make instructions`).

    python tools/instructions.py                        # issue 21's table (seed 000 example runs)
    python tools/instructions.py --run "access 9 30 codel cubic" --run "datacenter 9 5 pie cubic"
    python tools/instructions.py --study studies/seed000-matrix.toml --point 3 --duration 40s
    python tools/instructions.py --base HEAD~1          # the same runs at another commit, and the change
    python tools/instructions.py --base HEAD~1 --fingerprints   # and whether every result stayed the same
    python tools/instructions.py --keep cg/             # keep callgrind's files (callgrind_annotate cg/...)

An instruction count does not depend on the machine's load or clock, so it compares two versions
of the engine where wall times on a shared machine cannot (docs/PERFORMANCE.md). Each run is the
seed 000 example (`cargo run --release --example seed000 -- ARGS`: scenario, flows, simulated
seconds, discipline, congestion control) or an engine spec (`Scenario.to_engine_spec()`) of a
study's point run by the `phases` example, under `valgrind --tool=callgrind`; the program's own
last line gives its events and delivered segments. The count is the whole process's (building
the scenario and the result tables too: under 0.1 % of a 30-second run).

`--base REV` builds the examples at commit REV (a temporary git worktree, its build kept in
target/instructions/<commit> for the next time) and measures the same runs there.
`--fingerprints` also runs the `fingerprint` example of both (every result table of 170 runs,
hashed) and says whether they are identical: an optimization that keeps every result says so.

Needs valgrind (Debian: `apt-get install valgrind`) and cargo; runs use every core.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "target" / "instructions"

# Issue 21's table: seed 000's Access Link, CUBIC, Drop Tail, 30 s, at 9, 90 and 900 flows (the
# targets are the issue's), and the Data Center's 9 flows for 10 s.
DEFAULT_RUNS = ["access 9 30 droptail cubic", "access 90 30 droptail cubic", "access 900 30 droptail cubic", "datacenter 9 10 droptail cubic"]
TARGETS = {
    "access 9 30 droptail cubic": (2000, 3.7),
    "access 90 30 droptail cubic": (2300, None),
    "access 900 30 droptail cubic": (2800, 4.0),
}

EXAMPLES = ("seed000", "phases")


class ToolError(RuntimeError):
    """What went wrong and how to fix it (exit 2)."""


@dataclass
class Measured:
    run: str
    instructions: int
    events: int
    segments: int

    @property
    def per_segment(self) -> float:
        return self.instructions / self.segments if self.segments else float("nan")

    @property
    def events_per_segment(self) -> float:
        return self.events / self.segments if self.segments else float("nan")


def parse_refs(stderr: str) -> int:
    """Callgrind's total instruction count from its summary (`==PID== I   refs:   1,234`)."""
    found = re.findall(r"^==\d+== (?:I\s+refs|Collected)\s*:\s*([\d,]+)", stderr, re.M)
    if not found:
        raise ToolError(f"callgrind printed no instruction count:\n{stderr[-1500:]}")
    return int(found[-1].replace(",", ""))


def parse_counts(stdout: str) -> tuple[int, int]:
    """Events and delivered segments from the example's last line ("N events, M delivered
    segments, ..." or the `phases` example's "F flows, N events, M delivered segments")."""
    found = re.findall(r"(\d+) events, (\d+) delivered segments", stdout)
    if not found:
        raise ToolError(f"the run printed no \"N events, M delivered segments\" line:\n{stdout[-800:]}")
    events, segments = found[-1]
    return int(events), int(segments)


def panic_message(stderr: str) -> str:
    """The message of a Rust panic (the line after "panicked at ..."), else stderr's end."""
    found = re.search(r"panicked at [^\n]*\n([^\n]+)", stderr)
    return found.group(1) if found else stderr[-800:]


def run_checked(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    except FileNotFoundError:
        raise ToolError(f"{cmd[0]} is not installed (Debian: apt-get install {cmd[0]}; Rust: https://rustup.rs)") from None


def build(tree: Path, target_dir: Path | None, fingerprint: bool) -> Path:
    """Build the examples of the source tree `tree` (release); the folder holding them."""
    env = dict(os.environ)
    for name in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_TARGET_DIR"):
        env.pop(name, None)
    if target_dir is not None:
        env["CARGO_TARGET_DIR"] = str(target_dir)
    names = [*EXAMPLES, "fingerprint"] if fingerprint else list(EXAMPLES)
    cmd = ["cargo", "build", "--release", "-q", "-p", "crosslayer-core"]
    for name in names:
        cmd += ["--example", name]
    done = run_checked(cmd, tree, env)
    if done.returncode != 0:
        raise ToolError(f"building the examples in {tree} failed:\n{done.stderr[-2000:]}")
    return (target_dir or tree / "target") / "release" / "examples"


def commit_of(rev: str) -> str:
    done = run_checked(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], ROOT)
    if done.returncode != 0:
        raise ToolError(f"--base {rev!r} is not a commit of this repository (try HEAD~1, a branch or a hash)")
    return done.stdout.strip()


def build_base(sha: str, fingerprint: bool) -> tuple[str, Path]:
    """Build commit `sha`'s examples (cached by commit); its short name and their folder."""
    target_dir = CACHE / sha
    examples = target_dir / "release" / "examples"
    wanted = [*EXAMPLES, "fingerprint"] if fingerprint else list(EXAMPLES)
    if all((examples / name).is_file() for name in wanted):
        return sha[:10], examples
    target_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="crosslayer-base-") as tmp:
        tree = Path(tmp) / "tree"
        done = run_checked(["git", "worktree", "add", "--detach", "-q", str(tree), sha], ROOT)
        if done.returncode != 0:
            raise ToolError(f"git worktree add failed:\n{done.stderr}")
        try:
            build(tree, target_dir, fingerprint)
        finally:
            run_checked(["git", "worktree", "remove", "--force", str(tree)], ROOT)
    missing = [name for name in wanted if not (examples / name).is_file()]
    if missing:
        raise ToolError(f"commit {sha[:10]} has no example {', '.join(missing)}: measure a later commit")
    return sha[:10], examples


def study_spec(path: str, point: str, duration: str | None, out: Path) -> str:
    """Write the engine spec of a study's point to `out` (`point`: its row in `crosslayer study
    points`, 0 = the first, or its key or the key's start); the point's label."""
    sys.path.insert(0, str(ROOT / "python"))
    try:
        from crosslayer.study import Study
    except ImportError as e:
        raise ToolError(f"--study needs the crosslayer package (make install): {e}") from None
    try:
        points = Study.from_toml(path).points()
        # the same points, in the same order, with another duration (their keys change with it)
        timed = Study.from_toml(path, overrides={"duration": duration}).points() if duration else points
    except Exception as e:  # the package's own validation message names the field
        raise ToolError(f"{path}: {e}") from None
    if point.isdigit():
        if int(point) >= len(points):
            raise ToolError(f"--point {point}: {path} has points 0 to {len(points) - 1}")
        k = int(point)
    else:
        found = [i for i, p in enumerate(points) if p.key.startswith(point)]
        if len(found) != 1:
            raise ToolError(f"--point {point!r}: {'no' if not found else len(found)} points of {path} have a key starting so; give a row number (0 to {len(points) - 1}) or a longer key (crosslayer study points {path})")
        k = found[0]
    p = timed[k]
    spec = p.scenario.to_engine_spec()
    out.write_text(spec if isinstance(spec, str) else json.dumps(spec))
    labels = ", ".join(f"{k}={v}" for k, v in p.labels.items())
    return f"{Path(path).name} #{k} ({labels})" + (f" {duration}" if duration else "")


def measure(examples: Path, run: str, spec: Path | None, keep: Path | None, tag: str) -> Measured:
    """One run under callgrind."""
    if spec is not None:
        argv = [str(examples / "phases"), str(spec)]
    else:
        argv = [str(examples / "seed000"), *run.split()]
    out_file = "/dev/null"
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        out_file = str(keep / ("callgrind." + re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{tag}.{run}")[:120] + ".out"))
    done = run_checked(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", *argv], ROOT)
    if done.returncode != 0:
        raise ToolError(f"run {run!r} failed: {panic_message(done.stderr)}")
    events, segments = parse_counts(done.stdout)
    return Measured(run, parse_refs(done.stderr), events, segments)


def fingerprints(examples: Path) -> list[str]:
    done = run_checked([str(examples / "fingerprint")], ROOT)
    if done.returncode != 0:
        raise ToolError(f"the fingerprint example failed: {panic_message(done.stderr)}")
    return done.stdout.splitlines()


def fingerprint_diff(base: list[str], now: list[str]) -> list[str]:
    """The runs whose line differs (a run's name is the text before its event count)."""
    def name(line: str) -> str:
        return re.split(r"\s+\d+ events", line)[0].strip()

    before = {name(line): line for line in base}
    after = {name(line): line for line in now}
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def table(rows: list[tuple[Measured, Measured | None]]) -> str:
    has_base = any(b is not None for _, b in rows)
    head = ["run", "instructions", "events", "delivered", "instr/seg", "events/seg"]
    if has_base:
        head += ["base instr/seg", "change"]
    head += ["target"]
    lines = [head]
    for m, b in rows:
        line = [m.run, f"{m.instructions:,}", f"{m.events:,}", f"{m.segments:,}", f"{m.per_segment:,.0f}", f"{m.events_per_segment:.2f}"]
        if has_base:
            if b is None:
                line += ["", ""]
            else:
                line += [f"{b.per_segment:,.0f}", f"{(m.instructions / b.instructions - 1) * 100:+.2f} %"]
        target = TARGETS.get(m.run)
        line += ["" if target is None else f"<= {target[0]:,}" + ("" if target[1] is None else f", <= {target[1]} events")]
        lines.append(line)
    widths = [max(len(r[i]) for r in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="append", default=[], metavar="ARGS", help='the seed 000 example\'s arguments, e.g. "access 9 30 codel cubic" (repeatable; default: issue 21\'s table)')
    ap.add_argument("--study", metavar="FILE", help="a study or scenario file: measure one of its points")
    ap.add_argument("--point", default="0", help="the study's point: its row in `crosslayer study points` (0 = the first) or its key")
    ap.add_argument("--duration", help='the point\'s simulated time, e.g. "10s" (default: the file\'s)')
    ap.add_argument("--base", metavar="REV", help="also measure commit REV, and print the change")
    ap.add_argument("--fingerprints", action="store_true", help="with --base: say whether every result of the fingerprint grid is identical")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="keep callgrind's output files there")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    try:
        if args.fingerprints and not args.base:
            raise ToolError("--fingerprints compares with --base REV: give both")
        if shutil.which("valgrind") is None:
            raise ToolError("valgrind is not installed: apt-get install valgrind (Debian), or your system's package")
        runs: list[tuple[str, Path | None]] = []
        tmp = Path(tempfile.mkdtemp(prefix="crosslayer-instructions-"))
        if args.study:
            spec = tmp / "spec.json"
            runs.append((study_spec(args.study, args.point, args.duration, spec), spec))
        runs += [(r, None) for r in args.run]
        if not runs:
            runs = [(r, None) for r in DEFAULT_RUNS]
        for r, spec in runs:
            if spec is None and len(r.split()) < 3:
                raise ToolError(f"--run {r!r}: give at least the scenario, the flows and the simulated seconds, e.g. \"access 9 30\"")
        sha = commit_of(args.base) if args.base else None
        examples = build(ROOT, None, args.fingerprints)
        base = build_base(sha, args.fingerprints) if sha else None
        jobs = [(examples, r, spec, "now") for r, spec in runs]
        if base is not None:
            jobs += [(base[1], r, spec, base[0]) for r, spec in runs]
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            results = list(pool.map(lambda j: measure(j[0], j[1], j[2], args.keep, j[3]), jobs))
        now = results[: len(runs)]
        before = results[len(runs):] if base is not None else [None] * len(runs)
        diff = None
        if args.fingerprints and base is not None:
            diff = fingerprint_diff(fingerprints(base[1]), fingerprints(examples))
        shutil.rmtree(tmp, ignore_errors=True)
    except ToolError as e:
        print(f"instructions: {e}", file=sys.stderr)
        return 2
    if args.json:
        out = {
            "runs": [
                {**asdict(m), "instructions_per_segment": m.per_segment, "events_per_segment": m.events_per_segment, "base": None if b is None else {**asdict(b), "instructions_per_segment": b.per_segment}}
                for m, b in zip(now, before)
            ],
            "base": None if base is None else base[0],
            "fingerprints_differ": diff,
        }
        print(json.dumps(out, indent=1))
        return 0
    print(table(list(zip(now, before))))
    if base is not None:
        print(f"base: {base[0]}; now: the working tree")
    if diff is not None:
        print("fingerprints: identical (every table of every run of the grid)" if not diff else f"fingerprints: {len(diff)} runs differ: {', '.join(diff[:10])}{' ...' if len(diff) > 10 else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
