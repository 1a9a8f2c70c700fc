"""Arrow arrays built from their buffers, so that storing a run does not import pandas.

``pyarrow.array`` imports pandas on its first call, whatever it is given: it asks whether its
argument is a pandas object. That import costs about 0.3 s of CPU, once in each process that
stores runs (each worker of a sweep), which is more than ten 5-second runs' Python. These
functions build the arrays ``pyarrow.array`` would (``from_pandas=True``: a float NaN is null)
from NumPy buffers instead; anything they do not cover goes to ``pyarrow.array``.
``tests/test_store_tables.py`` checks them against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["codes", "decoded", "large_strings", "numbers"]


def numbers(values: Any) -> Any:
    """``pa.array(values, from_pandas=True)`` for a 1-D NumPy array of booleans, integers or
    floats (NaN as null); other values through ``pa.array`` itself."""
    import pyarrow as pa

    v = values
    if not isinstance(v, np.ndarray) or v.ndim != 1 or v.dtype.kind not in "biuf" or not v.dtype.isnative:
        return pa.array(values, from_pandas=True)
    if v.dtype.kind == "b":  # Arrow's booleans are bits
        return pa.Array.from_buffers(pa.bool_(), len(v), [None, pa.py_buffer(np.packbits(v, bitorder="little"))])
    return _with_nulls(np.ascontiguousarray(v), np.isnan(v) if v.dtype.kind == "f" else None)


def codes(values: np.ndarray, null: np.ndarray) -> Any:
    """``pa.array(values, mask=null)``: integers, null where ``null`` is true."""
    return _with_nulls(np.ascontiguousarray(values), null)


def _with_nulls(data: np.ndarray, null: np.ndarray | None) -> Any:
    import pyarrow as pa

    count = int(np.count_nonzero(null)) if null is not None else 0
    validity = pa.py_buffer(np.packbits(~null, bitorder="little")) if count else None
    return pa.Array.from_buffers(pa.from_numpy_dtype(data.dtype), len(data), [validity, pa.py_buffer(data)], null_count=count)


def large_strings(texts: Sequence[str]) -> Any:
    """``pa.array(texts, pa.large_string())`` for a sequence of ``str``."""
    return decoded(np.arange(len(texts)), texts)


def decoded(codes: np.ndarray, labels: Sequence[str]) -> Any:
    """``labels[codes]`` as ``large_string`` (what decoding the dictionary array of ``codes``
    over ``labels`` gives, without pyarrow.compute): the bytes gathered by NumPy, not a Python
    string a row. Codes must index ``labels``."""
    import pyarrow as pa

    encoded = [t.encode("utf-8") for t in labels]
    sizes = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    starts = np.zeros(len(encoded), dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    codes = np.asarray(codes, dtype=np.int64)
    if len(codes) and not (0 <= codes.min() and codes.max() < len(encoded)):
        raise ValueError(f"a code outside the {len(encoded)} labels")  # as decoding the dictionary array would
    lengths = sizes[codes]
    offsets = np.zeros(len(codes) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    # byte i of row r is byte (i - offsets[r]) of its label, which starts at starts[codes[r]]
    gather = np.arange(offsets[-1], dtype=np.int64) + np.repeat(starts[codes] - offsets[:-1], lengths)
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8)[gather]
    return pa.Array.from_buffers(pa.large_string(), len(codes), [None, pa.py_buffer(offsets), pa.py_buffer(data)])
