"""Skeletons and animations, as ``hk anim`` and ``hk export --format gltf`` read them."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Union

from . import _hk
from ._buffers import view
from ._file import File


class Skeleton:
    """A skeleton: ``name``, ``bones`` (names), ``parents`` (the parent's index, -1 for
    a root; parents come before children) and ``reference`` (the reference pose: a
    float32 memoryview of shape (bones, 10), each row translation x y z, rotation
    quaternion x y z w, scale x y z, relative to the parent)."""

    def __init__(self, raw: Dict[str, Any]):
        self.name: str = raw["name"]
        self.object: int = raw["object"]
        self.bones: List[str] = raw["bones"]
        self.parents: List[int] = raw["parents"]
        self.reference = view(raw["reference"], "f", 10)

    def __repr__(self) -> str:
        return f"<hk.Skeleton {self.name!r}: {len(self.bones)} bones>"


class Animation:
    """A decoded animation: ``name``, ``class_name``, ``duration`` (seconds),
    ``frame_count``, ``skeleton`` (the :class:`Skeleton` it animates), ``additive``,
    ``tracked`` (per bone: whether a track drives it) and ``frames``: every stored frame
    as the local pose of every bone, a float32 memoryview of shape (frames × bones, 10)
    (rows as in :attr:`Skeleton.reference`; bones no track drives hold the reference
    pose). Frame ``i`` is at ``time(i)``."""

    def __init__(self, raw: Dict[str, Any], rig: "Rig", index: int):
        self.name: str = raw["name"]
        self.object: int = raw["object"]
        self.class_name: str = raw["class_name"]
        self.duration: float = raw["duration"]
        self.frame_count: int = raw["frame_count"]
        self.skeleton: Skeleton = rig.skeletons[raw["skeleton"]]
        self.additive: bool = raw["additive"]
        self.tracked: List[bool] = raw["tracked"]
        self._frames = raw["frames"]
        self.frames = view(self._frames, "f", 10)
        self._rig = rig
        self._index = index

    def time(self, frame: int) -> float:
        """The time of stored frame ``frame``: ``frame × duration / (frames − 1)``."""
        n = self.frame_count
        return 0.0 if n < 2 else frame * self.duration / (n - 1)

    def frame(self, frame: int) -> memoryview:
        """Stored frame ``frame``: (bones, 10)."""
        if not 0 <= frame < self.frame_count:
            raise IndexError(f"frame {frame}: the animation has {self.frame_count} frames")
        n = len(self.skeleton.bones) * 40
        return view(self._frames[frame * n : (frame + 1) * n], "f", 10)

    def pose(self, time: float) -> memoryview:
        """The local pose of every bone at ``time`` seconds (clamped to the animation),
        sampled by the format's own interpolation rule, as ``hk anim --time`` prints it:
        (bones, 10)."""
        data = _hk.pose_at(self._rig._file._native, self._index, float(time), self._rig._skeleton)
        return view(data, "f", 10)

    def __repr__(self) -> str:
        return f"<hk.Animation {self.name!r}: {self.frame_count} frames, {self.duration} s>"


class Rig:
    """A file's ``skeletons`` and decoded ``animations`` (``skipped``: those of formats hk
    does not decode; ``stand_ins``: those found with no skeleton, bound to a stand-in
    skeleton of root joints ``bone N``; pass ``skeleton=`` to bind them to the real one)."""

    def __init__(self, file: File, skeleton: Optional[str]):
        self._file = file
        self._skeleton = skeleton
        raw = _hk.rig(file._native, skeleton)
        self.skeletons: List[Skeleton] = [Skeleton(s) for s in raw["skeletons"]]
        self.animations: List[Animation] = [
            Animation(a, self, i) for i, a in enumerate(raw["animations"])
        ]
        self.skipped: List[str] = raw["skipped"]
        self.stand_ins: List[str] = raw["stand_ins"]

    def __repr__(self) -> str:
        return f"<hk.Rig {len(self.skeletons)} skeletons, {len(self.animations)} animations>"


def rig(
    file: Union[File, str, "os.PathLike[str]", bytes],
    skeleton: Union[None, str, "os.PathLike[str]"] = None,
) -> Rig:
    """The skeletons and animations of a file (``file`` is a :class:`File` or what
    :func:`hk.open` takes); ``skeleton`` names the file holding the skeleton of an
    animation file that holds none (``hk anim --skeleton``). Raises
    :class:`hk.AnimError` for a skeleton or animation that does not read."""
    if not isinstance(file, File):
        from ._file import open as _open

        file = _open(file)
    return Rig(file, None if skeleton is None else os.fspath(skeleton))
