"""The other simulator's runs, kept: a crosscheck run again with the same program on the same
simulator takes its result from here instead of running it again.

ns-3 and ns-2 are deterministic: the same program (the translated scenario, its seed among
them) on the same installation gives the same result, so a run of the reference is worth
keeping. What changes between two crosschecks of a study is usually crosslayer (a model
corrected, an engine made faster), whose side is always run again; the reference's side, which
takes nearly all the time (minutes to an hour for a study that crosslayer runs in seconds), is
then read back. The key is a hash of:

- the simulator (``ns3``, ``ns2``, ``linux``) and its installation's identity (the ns-3 package's
  files, the ns-2 program, the kernel: path, size and modification time), so that another
  version or a rebuild runs again;
- the whole program crosscheck gives it (``ns3_program.py`` with the scenario's description, the
  Tcl script, the guest's script): any change of the scenario, of the translation or of the
  program template is another key. The guest's script runs the traffic program
  (``linux_traffic.py``, which measures the kernel's side) from its path, so that file's text
  is part of the kernel's identity (:func:`linux_identity`): a change of what it measures runs
  again.

A run that fails or times out is not kept. The Linux kernel is not bit-for-bit deterministic
(its own random numbers are seeded from the host), so a kept kernel run is one sample of what
it does; ``--fresh`` (``fresh=True``) runs every seed again and replaces what was kept.

Where: ``$CROSSLAYER_CROSSCHECK_CACHE``, else ``crosscheck/`` in ``$CROSSLAYER_CACHE`` or
``~/.cache/crosslayer`` (``$XDG_CACHE_HOME``); one JSON file per run, written atomically.
Removing the folder is always safe. An installation that cannot be identified (a file that
cannot be read, an interpreter whose probe fails) keeps nothing and reads nothing back.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Final

FORMAT: Final = 1
"""The layout of a kept run; another value is another key."""


def folder() -> Path:
    """``$CROSSLAYER_CROSSCHECK_CACHE``, else ``crosscheck/`` in ``$CROSSLAYER_CACHE`` or
    ``~/.cache/crosslayer`` (``$XDG_CACHE_HOME``)."""
    from crosslayer.crosscheck.linux_kernel import cache_dir

    own = os.environ.get("CROSSLAYER_CROSSCHECK_CACHE")
    if own:
        return Path(own)
    return cache_dir().parent / "crosscheck"  # beside the reference kernel's linux-ref/


def file_identity(path: str | os.PathLike[str]) -> str | None:
    """A file as the key sees it: its real path, size and modification time (None: it cannot be
    read, and nothing is kept)."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError:
        return None
    return f"{real}:{st.st_size}:{st.st_mtime_ns}"


def linux_identity(kernel: str | os.PathLike[str], traffic: str | os.PathLike[str]) -> str | None:
    """The kernel (:func:`file_identity`) and the text of the traffic program its guest runs by
    path (None: either cannot be read)."""
    identity = file_identity(kernel)
    try:
        text = Path(traffic).read_bytes()
    except OSError:
        return None
    return None if identity is None else f"{identity}|{hashlib.sha256(text).hexdigest()}"


def ns3_identity(python: str) -> str | None:
    """The ns-3 installation ``python`` imports: its interpreter, the ``ns`` package's first file,
    and the installed distribution's version and file list with their hashes (pip's ``RECORD``)."""
    probe = (
        "import hashlib, importlib.metadata as m, importlib.util as u\n"
        "s = u.find_spec('ns')\n"
        "print(s.origin or list(s.submodule_search_locations)[0])\n"
        "try:\n"
        "    d = m.distribution('ns3')\n"
        "    print(d.version, hashlib.sha256((d.read_text('RECORD') or '').encode()).hexdigest())\n"
        "except Exception:\n"
        "    pass\n"
    )
    try:
        out = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=False, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line for line in out.stdout.splitlines() if line]
    interpreter, package = file_identity(python), file_identity(lines[0]) if lines else None
    if out.returncode != 0 or interpreter is None or package is None:
        return None
    return "|".join([interpreter, package, *lines[1:]])


def key(other: str, identity: str, program: str) -> str:
    text = f"{FORMAT}\0{other}\0{identity}\0{program}"
    return hashlib.sha256(text.encode()).hexdigest()


def get(k: str) -> dict[str, Any] | None:
    """The kept result of run ``k``, or None (never kept, or unreadable: then it runs again)."""
    try:
        data = json.loads((folder() / f"{k}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def put(k: str, result: dict[str, Any]) -> None:
    """Keep run ``k``'s result (a cache that cannot be written is no error: the run happened)."""
    try:
        d = folder()
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{k}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(result), encoding="utf-8")
        os.replace(tmp, d / f"{k}.json")
    except OSError:
        pass
