"""A profile-guided build of the engine (`make pgo`): the same results, fewer instructions.

    python tools/pgo.py            # rebuild the installed extension with PGO (about 3 minutes)
    python tools/pgo.py --train    # only the training workload, on whatever engine is installed
    python tools/pgo.py --train --strict   # the same, a warning failing it (the tests run this)

The compiler lays out and inlines the engine's code by how often each branch ran in a training
workload instead of by its heuristics (hot paths together, rare ones moved out of the way). The
engine's results do not change: it is the same source, compiled differently; this script checks
that a reference run gives the same tables before and after, and puts the standard build back
if any step fails. What it gains is in docs/PERFORMANCE.md ("A profile-guided build").

Steps, each with the interpreter running this script (a virtual environment's, as `make pgo`):

1. build the extension instrumented (`-Cprofile-generate`) and install it (`pip install -e`);
2. run the training workload (`--train`): every study file's points for a few simulated seconds,
   the seed 000 matrix's heaviest corners, every congestion control and queue discipline of the
   registry, and the ns-2 and ns-3 TCP profiles;
3. merge the profiles with `llvm-profdata` of the LLVM that rustc is built on (Debian
   `llvm-<major>`, or rustup's `llvm-tools` component);
4. build and install the extension with `-Cprofile-use`; `crosslayer._core.build()` then says
   "pgo" (and `crosslayer --version` says so).

A later `pip install -e .` (`make install`, `make test`) puts the standard build back.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "pgo"

# The reference run whose tables (every one of a result: flows, links, queue samples, ...) must be
# identical before and after: a few seconds of seed 000's Access Link with CoDel.
REFERENCE = ("studies/seed000-access-link.toml", {"duration": "8s", "warmup": "2s", "topology.bottleneck.qdisc": {"kind": "codel"}})


class PgoError(RuntimeError):
    """A step failed; the message says which and how to fix it."""


def _rustc(*args: str) -> str:
    try:
        return subprocess.run(["rustc", *args], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise PgoError(f"`rustc {' '.join(args)}` failed ({e}): is Rust installed and on PATH?") from None


def llvm_major() -> str:
    out = _rustc("-vV")
    found = re.search(r"^LLVM version: (\d+)", out, re.M)
    if found is None:
        raise PgoError(f"`rustc -vV` names no LLVM version:\n{out}")
    return found.group(1)


def find_profdata(major: str) -> Path:
    """`llvm-profdata` of LLVM `major`: the raw profiles rustc's LLVM writes and the merged
    profile it reads are versioned formats, so the tool must be of the same LLVM."""
    sysroot = _rustc("--print", "sysroot").strip()
    host = re.search(r"^host: (\S+)", _rustc("-vV"), re.M)
    candidates = [
        shutil.which(f"llvm-profdata-{major}"),
        f"/usr/lib/llvm-{major}/bin/llvm-profdata",
        f"{sysroot}/lib/rustlib/{host.group(1) if host else ''}/bin/llvm-profdata",
        shutil.which("llvm-profdata"),
    ]
    for c in candidates:
        if c and _major_of(Path(c)) == major:
            return Path(c)
    raise PgoError(
        f"no llvm-profdata of LLVM {major} (rustc's LLVM) was found. Install one: "
        f"`apt-get install llvm-{major}` (Debian) or `rustup component add llvm-tools`; the standard build stays installed"
    )


def _major_of(tool: Path) -> str | None:
    """The LLVM major version of an `llvm-profdata` (`merge --version`: LLVM 14's tool has no
    `--version` of its own); None if it is not such a program."""
    try:
        out = subprocess.run([str(tool), "merge", "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"LLVM version (\d+)", out)
    return found.group(1) if found else None


def install(rustflag: str | None, target_dir: Path | None, build: str | None) -> None:
    """`pip install -e . --no-deps` with this compiler flag (None: the standard build), in an
    environment without the caller's flags, target folder or profile file (each would change
    or misplace the build)."""
    env = dict(os.environ)
    for name in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_TARGET_DIR", "CROSSLAYER_BUILD", "LLVM_PROFILE_FILE"):
        env.pop(name, None)
    if rustflag is not None:
        env["CARGO_ENCODED_RUSTFLAGS"] = rustflag  # one flag, a path with spaces kept whole
    if target_dir is not None:
        env["CARGO_TARGET_DIR"] = str(target_dir)
    if build is not None:
        env["CROSSLAYER_BUILD"] = build
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", str(ROOT), "--no-deps"], env=env, cwd=ROOT)
    if done.returncode != 0:
        raise PgoError(f"building the extension failed (pip exit {done.returncode}; flag {rustflag!r})")


def reference_tables() -> str:
    """The reference run's tables, as text, from a fresh interpreter (the extension just installed)."""
    code = (
        "import crosslayer\n"
        "from crosslayer.study import Study\n"
        f"p = Study.from_toml({str(ROOT / REFERENCE[0])!r}, overrides={REFERENCE[1]!r}).points()[0]\n"
        "r = crosslayer.run(p.scenario)\n"
        "from crosslayer.result import TABLES\n"
        "for name in TABLES: print(name, getattr(r, name).to_csv(index=False))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise PgoError(f"the reference run failed:\n{done.stderr[-2000:]}")
    return done.stdout


def engine_build() -> str:
    code = "from crosslayer import _core; print(_core.build())"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def build_pgo() -> None:
    profdata_tool = find_profdata(llvm_major())
    t0 = time.monotonic()
    raw = WORK / "raw"
    shutil.rmtree(raw, ignore_errors=True)
    raw.mkdir(parents=True)
    profile = WORK / "crosslayer.profdata"
    print("pgo: the reference run on the standard build", flush=True)
    install(None, None, None)
    before = reference_tables()
    try:
        print("pgo: 1/4 building the instrumented extension", flush=True)
        install(f"-Cprofile-generate={raw}", WORK / "generate", "instrumented")
        print("pgo: 2/4 the training workload", flush=True)
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--train"], cwd=ROOT)
        if done.returncode != 0:
            raise PgoError("the training workload failed (above)")
        if not any(raw.glob("*.profraw")):
            raise PgoError(f"the training wrote no profile into {raw}")
        print("pgo: 3/4 merging the profiles", flush=True)
        merged = subprocess.run([str(profdata_tool), "merge", "-o", str(profile), str(raw)], capture_output=True, text=True)
        if merged.returncode != 0:
            raise PgoError(f"{profdata_tool} merge failed:\n{merged.stderr[-2000:]}")
        print("pgo: 4/4 building the extension with the profiles", flush=True)
        install(f"-Cprofile-use={profile}", WORK / "use", "pgo")
        if engine_build() != "pgo":
            raise PgoError("the installed extension is not the profile-guided build")
        if reference_tables() != before:
            raise PgoError("the profile-guided build gave other results on the reference run: a compiler defect? Report it")
    except BaseException:
        print("pgo: putting the standard build back", file=sys.stderr, flush=True)
        try:
            install(None, None, None)
        except PgoError as e:
            print(f"pgo: that failed too ({e}): run `make install`", file=sys.stderr, flush=True)
        raise
    print(f"pgo: done in {time.monotonic() - t0:.0f} s; the reference run's tables are identical; "
          "`pip install -e .` (make install) puts the standard build back", flush=True)  # fmt: skip


def train(strict: bool = False) -> None:
    """The training workload: what the compiler learns the branches' frequencies from. Each run is
    short; together they cover the seed papers' scenarios at every load, the registry and the TCP
    profiles (a branch no run takes is laid out as rare). `strict`: a warning fails it (a test
    runs it so: a run that warns is a defect; the build itself only shows them)."""
    import warnings

    import crosslayer
    from crosslayer.catalog import catalog
    from crosslayer.scenario import ScenarioError
    from crosslayer.study import Study

    if strict:
        warnings.simplefilter("error")
    t0, runs = time.monotonic(), 0
    failures: list[str] = []

    def run(label: str, study: str, only: Callable[[dict[str, Any]], bool] | None = None, most: int = 0, **overrides: object) -> None:
        """Run a study file's points (those whose labels `only` accepts; at most `most`, spread
        over the sweep) with these overrides."""
        nonlocal runs
        try:
            points = Study.from_toml(ROOT / study, overrides=overrides).points()
        except ScenarioError as e:
            failures.append(f"{label}: {e}")
            return
        points = [p for p in points if only is None or only(p.labels)]
        if most and len(points) > most:
            points = points[-1:] if most == 1 else points[:: -(-len(points) // most)]
        for p in points:
            try:
                crosslayer.run(p.scenario)
                runs += 1
            except Exception as e:  # noqa: BLE001 - listed, and the workload fails
                failures.append(f"{label}: {type(e).__name__}: {e}")

    access = "studies/seed000-access-link.toml"
    # the seed 000 matrix's corners: Access Link and Data Center, 9 and 900 flows, three queues
    def corners(labels: dict[str, Any]) -> bool:
        return labels["tcp"] == "mixed" and labels["load"] in ("uncongested", "heavy")

    run("matrix", "studies/seed000-matrix.toml", corners, duration="12s", warmup="3s")
    # every study file: a few of its points, for 4 simulated seconds if its flows allow it (else
    # its last point at the file's duration: a flow starts or stops later)
    for f in sorted((ROOT / "studies").glob("*.toml")):
        if f.name == "seed000-matrix.toml":
            continue
        short = {"duration": "4s", "warmup": "0s"}
        try:
            Study.from_toml(f, overrides=short)
        except ScenarioError:
            short = {}
        run(f.name, f"studies/{f.name}", None, 6 if short else 1, **short)
    # the registry on the Access Link: each congestion control over two queues, each queue
    families = catalog()
    for cc in families.cc:
        for q in ("droptail", "codel"):
            run(f"cc {cc} over {q}", access, duration="4s", warmup="0s", **{"flows[*].cc": cc, "topology.bottleneck.qdisc": {"kind": q}})
    for q in families.aqm:
        run(f"aqm {q}", access, duration="4s", warmup="0s", **{"topology.bottleneck.qdisc": {"kind": q}})
    for profile in families.tcp_profiles:
        run(f"tcp profile {profile}", access, duration="4s", warmup="0s", **{"tcp.profile": profile})
    print(f"training: {runs} runs in {time.monotonic() - t0:.1f} s", flush=True)
    if failures:
        raise SystemExit("training runs failed:\n  " + "\n  ".join(failures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", action="store_true", help="only run the training workload")
    parser.add_argument("--strict", action="store_true", help="with --train: a warning fails the workload")
    args = parser.parse_args()
    if args.train:
        train(args.strict)
        return
    try:
        build_pgo()
    except PgoError as e:
        raise SystemExit(f"pgo: {e}") from None


if __name__ == "__main__":
    main()
