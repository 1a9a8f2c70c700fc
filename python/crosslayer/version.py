"""The version that keys stored runs, light enough for ``crosslayer --version``."""

from __future__ import annotations

__all__ = ["BUILDS", "engine_version", "version_line"]


def engine_version() -> str:
    """What keys runs: the package version and the engine's source fingerprint,
    ``0.1.0+e3b0c44298fc1c14`` (any change to the engine's sources gives other keys, so a store
    never serves a run an older engine computed)."""
    from crosslayer import __version__, _core

    return f"{__version__}+{_core.engine_fingerprint()}"


# How a build other than the standard one is named (``_core.build()``; tools/pgo.py makes them).
BUILDS = {"pgo": "profile-guided build", "instrumented": "instrumented build for profile training: `make install` puts the standard one back"}


def version_line() -> str:
    """What ``crosslayer --version`` prints: the engine version, and the build when it is not the
    standard one (``make pgo``'s: the same results, compiled differently)."""
    from crosslayer import _core

    build = _core.build()
    return f"crosslayer {engine_version()}" + (f" ({BUILDS.get(build, build)})" if build != "standard" else "")
