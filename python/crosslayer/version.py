"""The version that keys stored runs, light enough for ``crosslayer --version``."""

from __future__ import annotations

__all__ = ["engine_version", "version_line"]


def engine_version() -> str:
    """What keys runs: the package version and the engine's source fingerprint,
    ``0.1.0+e3b0c44298fc1c14`` (any change to the engine's sources gives other keys, so a store
    never serves a run an older engine computed)."""
    from crosslayer import __version__, _core

    return f"{__version__}+{_core.engine_fingerprint()}"


def version_line() -> str:
    """What ``crosslayer --version`` prints: the engine version, and the build when it is the
    profile-guided one (``make pgo``; the same results, compiled differently)."""
    from crosslayer import _core

    return f"crosslayer {engine_version()}" + (" (profile-guided build)" if _core.build() == "pgo" else "")
