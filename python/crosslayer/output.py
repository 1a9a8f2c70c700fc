"""Plain output: values as standard JSON (NaN and infinities as null, NumPy scalars as numbers).

Light on purpose (no NumPy or pandas import): the CLI prints with it before anything heavy loads.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["dumps_json", "plain"]


def plain(value: Any) -> Any:
    """Plain-JSON form: NaN/inf -> None, NumPy scalars -> Python numbers, recursively."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def dumps_json(value: Any, *, indent: int | None = None) -> str:
    """Standard JSON (NaN and infinities become null; NumPy scalars become numbers)."""
    return json.dumps(plain(value), indent=indent, allow_nan=False)
