"""Collision: bodies and shapes as triangles (``hk export``), and edited meshes put back
into their file (``hk import --into``)."""

from __future__ import annotations

import builtins
import os
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _hk
from ._buffers import le_bytes, view
from ._file import File

NO_SURFACE = 0xFFFFFFFF


class Shape:
    """One shape of a body: ``name`` (``body/shape``, as ``hk export`` names its
    objects), ``vertices`` (world space, a float32 memoryview of shape (n, 3)),
    ``triangles`` (uint32, (m, 3)) and ``surfaces`` (uint32, one surface id per triangle,
    ``0xFFFFFFFF`` for none). ``materials`` and ``material_index`` give the same surfaces
    as material names (``hk export``'s) and an index per triangle."""

    def __init__(self, raw: Dict[str, Any], table: Dict[Any, Dict[str, Any]]):
        self.name: str = raw["name"]
        self.shape_name: str = raw["shape"]
        self.object: int = raw["object"]
        self.kind: str = raw["kind"]
        self.vertices = view(raw["vertices"], "f", 3)
        self.triangles = view(raw["triangles"], "I", 3)
        self.surfaces = view(raw["surfaces"], "I")
        ids = sorted({s for s in self.surfaces}, key=lambda s: (s == NO_SURFACE, s))
        self.surface_ids: List[Optional[int]] = [None if s == NO_SURFACE else s for s in ids]
        self.materials: List[str] = [table[s]["name"] for s in self.surface_ids]
        slot = {s: i for i, s in enumerate(ids)}
        self.material_index: List[int] = [slot[s] for s in self.surfaces]

    def __repr__(self) -> str:
        return f"<hk.Shape {self.name}: {len(self.vertices)} vertices, {len(self.surfaces)} triangles>"


class Body:
    """A rigid body: ``name``, ``object`` id, ``motion_type`` (and ``motion_name``),
    ``filter_info`` (the collision filter word), ``transform`` (12 floats: the three
    columns of the rotation, then the translation) and its ``shapes``."""

    def __init__(self, raw: Dict[str, Any], table: Dict[Any, Dict[str, Any]]):
        self.name: str = raw["name"]
        self.object: int = raw["object"]
        self.motion_type: int = raw["motion_type"]
        self.motion_name: Optional[str] = raw["motion_name"]
        self.filter_info: int = raw["filter_info"]
        self.transform: List[float] = raw["transform"]
        self.shapes: List[Shape] = [Shape(s, table) for s in raw["shapes"]]

    def __repr__(self) -> str:
        return f"<hk.Body {self.name!r}: {len(self.shapes)} shapes>"


class Collision:
    """A file's collision: ``bodies`` and ``surfaces`` (per surface id, ``None`` for
    none: its material ``name`` as ``hk export`` writes it and, for a phive file,
    ``material``, ``sub_material``, ``shape_tags``, ``layers`` and ``sub_layers``)."""

    def __init__(self, raw: Dict[str, Any]):
        self.surfaces: Dict[Optional[int], Dict[str, Any]] = raw["surfaces"]
        self.bodies: List[Body] = [Body(b, self.surfaces) for b in raw["bodies"]]

    @property
    def triangle_count(self) -> int:
        """Triangles over every shape."""
        return sum(len(s.surfaces) for b in self.bodies for s in b.shapes)

    def shapes(self) -> Iterable[Shape]:
        """Every shape of every body."""
        return (s for b in self.bodies for s in b.shapes)

    def __repr__(self) -> str:
        return f"<hk.Collision {len(self.bodies)} bodies, {self.triangle_count} triangles>"


def collision(file: Union[File, str, "os.PathLike[str]", bytes]) -> Collision:
    """The collision of a file, as ``hk export`` reads it: every body and shape as
    world-space triangles with their surface ids. ``file`` is a :class:`File` or what
    :func:`hk.open` takes. Raises :class:`hk.CollisionError` for bodies or shapes that do
    not read."""
    if not isinstance(file, File):
        from ._file import open as _open

        file = _open(file)
    return Collision(_hk.collision(file._native))


class ImportResult:
    """What :func:`import_collision` built: ``data`` (the file's bytes), ``path`` (where
    it was written, or ``None``), ``report`` (``replaced`` shapes with their counts,
    ``missing``, ``unmatched``, ``kept``, ``codes`` rebuilt) and ``checks`` (``trees``,
    ``found``/``kept`` triangles found by their own box, random ``boxes`` that agree
    with brute force, ``failures``)."""

    def __init__(self, data: bytes, report: Dict[str, Any], checks: Dict[str, Any], path):
        self.data = data
        self.report = report
        self.checks = checks
        self.path = path

    def summary(self) -> str:
        """One line, as ``hk import`` prints it."""
        c = self.checks
        return (
            f"{len(self.report['replaced'])} shapes replaced, {self.report['codes']} MOPP codes rebuilt; "
            f"read back: {c['found']}/{c['kept']} triangles and instances found by their own box in "
            f"{c['trees']} trees, {c['boxes']} random boxes agree with brute force, round trip byte for byte"
        )

    def __repr__(self) -> str:
        return f"<hk.ImportResult {self.summary()}>"


def _get(m: Any, key: str, default: Any = None) -> Any:
    if isinstance(m, dict):
        return m.get(key, default)
    return getattr(m, key, default)


def _mesh(m: Any):
    name = _get(m, "name")
    if not isinstance(name, str):
        raise TypeError("every mesh needs a name: `body/shape`, as hk export names its objects")
    verts = le_bytes(_get(m, "vertices"), "f")
    tris = le_bytes(_get(m, "triangles"), "I")
    surfaces = _get(m, "surfaces")
    if _get(m, "materials") is not None:
        materials = list(_get(m, "materials"))
        index = le_bytes(list(_get(m, "material_index", [])), "I")
    elif surfaces is not None and not isinstance(surfaces, memoryview):
        names = [str(s) for s in surfaces]
        materials = sorted(set(names))
        slot = {n: i for i, n in enumerate(materials)}
        index = le_bytes([slot[n] for n in names], "I")
    else:
        materials = ["surface_none"]
        index = b""
    return (name, verts, tris, materials, index)


def import_collision(
    file: Union[File, str, "os.PathLike[str]"],
    meshes: Iterable[Any],
    out: Union[None, str, "os.PathLike[str]"] = None,
    allow_missing: bool = False,
    boxes: int = 10_000,
    schema: Optional[str] = None,
) -> ImportResult:
    """Replaces the collision geometry of ``file`` with ``meshes``, as ``hk import MESH
    --into FILE`` does: the file keeps everything else, is written in its own container
    and layout, read back strictly and checked (every triangle found by its own box,
    ``boxes`` random boxes against brute force, a byte-for-byte round trip).

    Each mesh (a dict or an object) has ``name`` (``body/shape``, as :func:`collision`
    and ``hk export`` name shapes), world-space ``vertices`` and ``triangles`` (buffers or
    nested sequences, three per row), and its surfaces as ``materials`` (names as ``hk
    export`` writes them: ``surface_N``, ``surface_none``, or phive's with material and
    hit mask) with ``material_index`` (per triangle), or ``surfaces`` (a name per
    triangle). :class:`Shape` objects qualify.

    ``allow_missing`` keeps shapes no mesh names and passes over meshes that name none.
    The file is written to ``out`` when given (which may be ``file`` itself). Raises
    :class:`hk.CheckError` (``failures``) when the checks fail, writing nothing;
    :class:`hk.CollisionError` or :class:`ValueError` for meshes that do not fit.
    """
    path = file.path if isinstance(file, File) else os.fspath(file)
    if path is None:
        raise ValueError("import_collision needs a file read from a path")
    data, report, checks = _hk.import_collision(
        path, [_mesh(m) for m in meshes], allow_missing, boxes, schema
    )
    if checks["failures"]:
        e = _hk.CheckError(
            "the imported file fails its checks: " + "; ".join(checks["failures"])
        )
        e.failures = checks["failures"]
        e.offset = e.line = e.column = e.path = e.file = None
        raise e
    if out is not None:
        with builtins.open(out, "wb") as f:
            f.write(data)
    return ImportResult(data, report, checks, None if out is None else os.fspath(out))
