"""The Linux reference's kernel: a User-mode Linux (UML) build with time-travel, made from Debian's
``linux-source-6.1`` package and cached under the user's cache folder (``crosslayer linux-ref
build``).

UML runs the Linux kernel as an ordinary process; with ``time-travel=inf-cpu`` on its command
line the guest is a discrete-event system (computation takes no virtual time, the clock jumps to
the next timer), so its TCP and qdiscs run with exact timing whatever the host's load. Debian's
own ``user-mode-linux`` package cannot do this (it enables ``RAID6_PQ_BENCHMARK``, which hides
``UML_TIME_TRAVEL_SUPPORT``, and lacks ``sch_fq_pie``), hence the build. Every congestion control
and queue discipline the reference maps is built in (no modules); hostfs lets the guest use the
host's ``/`` read-only as its root and a results folder read-write; there is no network device to
the host (nothing leaves the guest).

The cache key is a hash of the source tarball's size and modification time and of the
configuration below, so a changed package or option list builds a new kernel beside the old.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

__all__ = ["CONFIG", "KernelBuildError", "SOURCE", "build", "cache_dir", "find_kernel", "kernel_key"]

SOURCE: Final = Path("/usr/src/linux-source-6.1.tar.xz")
"""Debian's ``linux-source-6.1`` package installs the kernel's source here."""

CONFIG: Final[dict[str, bool]] = {
    # virtual time: the reason for the build (needs a uniprocessor kernel and no RAID6 benchmark)
    "UML_TIME_TRAVEL_SUPPORT": True,
    "RAID6_PQ_BENCHMARK": False,
    "SMP": False,
    "MODULES": False,
    # the host's file system as the guest's root (read-only) and results folder (read-write)
    "HOSTFS": True,
    "PROC_FS": True,
    "SYSFS": True,
    "TMPFS": True,
    "DEVTMPFS": True,
    # no network device to the host: nothing leaves the guest
    "UML_NET": False,
    # namespaces and virtual Ethernet pairs for the topology
    "NET": True,
    "INET": True,
    "UNIX": True,
    "IPV6": False,
    "NAMESPACES": True,
    "NET_NS": True,
    "NETDEVICES": True,
    "NET_CORE": True,
    "VETH": True,
    "ETHTOOL_NETLINK": True,
    # congestion controls Linux 6.1 has (all built in)
    "TCP_CONG_ADVANCED": True,
    "TCP_CONG_CUBIC": True,
    "TCP_CONG_BIC": True,
    "TCP_CONG_WESTWOOD": True,
    "TCP_CONG_HTCP": True,
    "TCP_CONG_HSTCP": True,
    "TCP_CONG_HYBLA": True,
    "TCP_CONG_VEGAS": True,
    "TCP_CONG_NV": True,
    "TCP_CONG_SCALABLE": True,
    "TCP_CONG_LP": True,
    "TCP_CONG_VENO": True,
    "TCP_CONG_YEAH": True,
    "TCP_CONG_ILLINOIS": True,
    "TCP_CONG_DCTCP": True,
    "TCP_CONG_CDG": True,
    "TCP_CONG_BBR": True,
    # queue disciplines: shapers, delay, and every AQM the reference maps
    "NET_SCHED": True,
    "NET_SCH_HTB": True,
    "NET_SCH_TBF": True,
    "NET_SCH_NETEM": True,
    "NET_SCH_PRIO": True,
    "NET_SCH_DRR": True,
    "NET_SCH_SFQ": True,
    "NET_SCH_RED": True,
    "NET_SCH_SFB": True,
    "NET_SCH_CHOKE": True,
    "NET_SCH_CODEL": True,
    "NET_SCH_FQ_CODEL": True,
    "NET_SCH_PIE": True,
    "NET_SCH_FQ_PIE": True,
    "NET_SCH_CAKE": True,
    "NET_SCH_FQ": True,
    "NET_SCH_DEFAULT": False,
}
"""The options the reference needs, each forced on (built in) or off over ``make ARCH=um
defconfig``; the build checks that each one took."""

MINUTES: Final = 5
"""About how long the build takes on 2 cores (measured: see docs/validation/linux.md)."""


class KernelBuildError(RuntimeError):
    """The kernel could not be built or found; the message says what to do."""


def cache_dir() -> Path:
    """``$CROSSLAYER_CACHE`` or ``$XDG_CACHE_HOME/crosslayer`` (``~/.cache/crosslayer``), then
    ``linux-ref``."""
    base = os.environ.get("CROSSLAYER_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "crosslayer")
    return Path(base) / "linux-ref"


def kernel_key(source: Path = SOURCE) -> str:
    """The cache key: the source tarball's name, size and time, and the option list."""
    st = source.stat()
    text = f"{source.name} {st.st_size} {int(st.st_mtime)}\n" + "\n".join(f"{k}={'y' if v else 'n'}" for k, v in sorted(CONFIG.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def find_kernel(source: Path = SOURCE) -> Path | None:
    """The cached kernel for this source and option list, or None (never built)."""
    if not source.exists():
        return None
    path = cache_dir() / kernel_key(source) / "linux"
    return path if path.exists() else None


def _run(cmd: list[str], cwd: Path, log: Path) -> None:
    with log.open("a") as out:
        out.write(f"\n$ {' '.join(cmd)}\n")
        out.flush()
        rc = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode
    if rc != 0:
        tail = log.read_text(errors="replace").splitlines()[-25:]
        raise KernelBuildError(f"{' '.join(cmd[:3])} failed (exit {rc}); the end of {log}:\n" + "\n".join(tail))


def _tools_missing() -> list[str]:
    need = {"make": "make", "gcc": "gcc", "flex": "flex", "bison": "bison", "bc": "bc"}
    return [pkg for prog, pkg in need.items() if shutil.which(prog) is None]


def build(source: Path = SOURCE, jobs: int | None = None, keep_source: bool = False, say: Callable[[str], None] = print) -> Path:
    """Build the kernel unless cached; return the path of its ``linux`` executable.

    Raises :class:`KernelBuildError` naming the missing package or the failing step (with the
    end of the build log)."""
    if not source.exists():
        raise KernelBuildError(f"{source} is missing: install Debian's kernel source with `apt-get install linux-source-6.1` (about 130 MB), then run `crosslayer linux-ref build` again")
    missing = _tools_missing()
    if missing:
        raise KernelBuildError(f"building the kernel needs {', '.join(missing)}: `apt-get install {' '.join(missing)}`")
    cached = find_kernel(source)
    if cached is not None:
        say(f"the kernel is built: {cached}")
        return cached
    out = cache_dir() / kernel_key(source)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "build.log"
    log.write_text("")
    jobs = jobs or os.cpu_count() or 1
    say(f"building a User-mode Linux kernel with time-travel from {source} into {out}: about {MINUTES * 2 // jobs if jobs <= 2 else MINUTES} minutes on {jobs} core(s); log: {log}")
    t0 = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="build-", dir=out))
    try:
        with tarfile.open(source) as tar:
            top = tar.next()
            assert top is not None
            tar.extractall(work, filter="tar")  # Debian's own package: trusted, but no links out
        tree = work / top.name.split("/")[0]
        _run(["make", "ARCH=um", "defconfig"], tree, log)
        flags: list[str] = []
        for name, on in CONFIG.items():
            flags += ["--enable" if on else "--disable", name]
        _run(["scripts/config", "--file", ".config", *flags], tree, log)
        _run(["make", "ARCH=um", "olddefconfig"], tree, log)
        config = (tree / ".config").read_text()
        wrong = [name for name, on in CONFIG.items() if (f"CONFIG_{name}=y\n" in config) != on]
        if wrong:
            raise KernelBuildError("the kernel configuration did not take these options (a dependency is missing): " + ", ".join(f"CONFIG_{w}={'y' if CONFIG[w] else 'n'}" for w in wrong))
        _run(["make", "ARCH=um", f"-j{jobs}", "linux"], tree, log)
        shutil.copy2(tree / ".config", out / "config")
        shutil.copy2(tree / "linux", out / "linux.part")
        os.replace(out / "linux.part", out / "linux")
    finally:
        if not keep_source:
            shutil.rmtree(work, ignore_errors=True)
    say(f"built in {(time.monotonic() - t0) / 60:.1f} minutes: {out / 'linux'}")
    return out / "linux"
