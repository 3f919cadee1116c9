"""hk: Havok packfiles, tagfiles, collision and animation from Python.

The same library as the ``hk`` command line: one front door reads any Havok file hk reads
(packfiles, TAG0 tagfiles in their phive or cm containers, old binary tagfiles, Havok XML)
with the one schema-selection rule, and every write is checked as ``hk build`` checks.

    >>> import hk
    >>> f = hk.open("map.hkx")
    >>> f.info["schema"], len(f.objects), f.root.class_name
    >>> body = hk.collision(f).bodies[0]
    >>> body.shapes[0].vertices      # memoryview of float32, shape (n, 3)

Buffers are ``memoryview`` objects over little-endian float32 or uint32 values; numpy
reads them without a copy (``numpy.asarray(view)``) but is not needed.
"""

from __future__ import annotations

from . import _hk
from ._hk import (
    AnimError,
    CheckError,
    CollisionError,
    Error,
    FileError,
    ReadError,
    SchemaError,
    UsageError,
    WriteError,
)
from ._collision import Body, Collision, ImportResult, Shape, collision, import_collision
from ._anim import Animation, Rig, Skeleton, rig
from ._file import File, Object, Ref, build, convert, open

__version__ = _hk.__version__

__all__ = [
    "AnimError",
    "Animation",
    "Body",
    "CheckError",
    "Collision",
    "CollisionError",
    "Error",
    "File",
    "FileError",
    "ImportResult",
    "Object",
    "ReadError",
    "Ref",
    "Rig",
    "SchemaError",
    "Shape",
    "Skeleton",
    "UsageError",
    "WriteError",
    "build",
    "collision",
    "convert",
    "import_collision",
    "open",
    "rig",
]
