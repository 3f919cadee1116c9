"""Buffers: little-endian float32 and uint32 values as ``memoryview`` objects, and any
buffer or nested sequence of numbers as the little-endian bytes the native half takes."""

from __future__ import annotations

import array
import sys
from typing import Any, Sequence

_BIG = sys.byteorder == "big"


def view(data: bytes, fmt: str, width: int = 1) -> memoryview:
    """``data`` (little-endian 4-byte values) as a memoryview of ``fmt`` (``"f"`` or
    ``"I"``), ``width`` values per row (a 2-D view when ``width`` > 1 and there is a
    row)."""
    if _BIG:
        a = array.array(fmt, data)
        a.byteswap()
        data = a.tobytes()
    flat = memoryview(data).cast("B").cast(fmt)
    if width > 1 and len(flat) > 0:
        return flat.cast("B").cast(fmt, (len(flat) // width, width))
    return flat


def _flatten(x: Any, out: list) -> None:
    if isinstance(x, (int, float)):
        out.append(x)
        return
    for v in x:
        _flatten(v, out)


def le_bytes(values: Any, fmt: str) -> bytes:
    """``values`` (a buffer of any numeric format and shape, or nested sequences of
    numbers) as little-endian 4-byte ``fmt`` values (``"f"`` or ``"I"``)."""
    if isinstance(values, (bytes, bytearray)):
        return bytes(values)
    try:
        mv = memoryview(values)
    except TypeError:
        mv = None
    if mv is not None:
        if mv.format.lstrip("<=@") == fmt and mv.itemsize == 4 and mv.c_contiguous and not _BIG:
            return mv.tobytes()
        flat: list = []
        _flatten(mv.tolist(), flat)
    else:
        flat = []
        _flatten(values, flat)
    a = array.array(fmt, flat)
    if _BIG:
        a.byteswap()
    return a.tobytes()


def rows(values: Sequence[Any], width: int) -> list:
    """A flat sequence as rows of ``width``."""
    return [list(values[i : i + width]) for i in range(0, len(values), width)]
