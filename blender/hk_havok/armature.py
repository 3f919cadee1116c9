"""Havok skeletons as Blender armatures, and animations as actions."""

from __future__ import annotations

import os
from typing import List, Optional, Sequence

import bpy
import hk
from mathutils import Matrix, Quaternion, Vector

from .collision import Y_UP


def local_matrix(row: Sequence[float]) -> Matrix:
    """A row of hk's buffers (translation, rotation x y z w, scale) as a matrix."""
    t, q, s = row[0:3], row[3:7], row[7:10]
    return Matrix.LocRotScale(Vector(t), Quaternion((q[3], q[0], q[1], q[2])), Vector(s))


def _armature(context, sk: "hk.Skeleton", name: str, y_up: bool) -> bpy.types.Object:
    arm = bpy.data.armatures.new(sk.name or name)
    ob = bpy.data.objects.new(sk.name or name, arm)
    context.scene.collection.objects.link(ob)
    ob.matrix_world = Y_UP if y_up else Matrix.Identity(4)
    ref = sk.reference.tolist()
    model: List[Matrix] = []
    for i, p in enumerate(sk.parents):
        m = local_matrix(ref[i])
        model.append(m if p < 0 else model[p] @ m)
    # A bone's length: the distance to its first child, else a tenth of the skeleton.
    span = max((m.translation.length for m in model), default=1.0) or 1.0
    length = [span * 0.05] * len(model)
    for i, p in enumerate(sk.parents):
        if p >= 0:
            d = (model[i].translation - model[p].translation).length
            if d > 1e-4 and length[p] == span * 0.05:
                length[p] = d
    view = bpy.context.view_layer
    view.objects.active = ob
    bpy.ops.object.mode_set(mode="EDIT")
    bones = []
    for i, name_ in enumerate(sk.bones):
        eb = arm.edit_bones.new(name_)
        eb.head = (0.0, 0.0, 0.0)
        eb.tail = (0.0, length[i], 0.0)
        loc, rot, _ = model[i].decompose()
        eb.matrix = Matrix.LocRotScale(loc, rot, None)
        if sk.parents[i] >= 0:
            eb.parent = bones[sk.parents[i]]
        bones.append(eb)
    names = [b.name for b in bones]
    bpy.ops.object.mode_set(mode="OBJECT")
    ob["hk_bones"] = names
    for pb in ob.pose.bones:
        pb.rotation_mode = "QUATERNION"
    return ob


def _rest_local(ob: bpy.types.Object, name: str) -> Matrix:
    b = ob.data.bones[name]
    return b.matrix_local if b.parent is None else b.parent.matrix_local.inverted() @ b.matrix_local


def _action(ob: bpy.types.Object, anim: "hk.Animation") -> bpy.types.Action:
    names = list(ob["hk_bones"])
    rest = [_rest_local(ob, n).inverted() for n in names]
    act = bpy.data.actions.new(anim.name)
    act.use_fake_user = True
    act["hk_class"] = anim.class_name
    act["hk_duration"] = anim.duration
    ob.animation_data_create()
    ob.animation_data.action = act
    tracked = [i for i, t in enumerate(anim.tracked) if t]
    for f in range(anim.frame_count):
        rows = anim.frame(f).tolist()
        for i in tracked:
            pb = ob.pose.bones[names[i]]
            pb.matrix_basis = rest[i] @ local_matrix(rows[i])
            pb.keyframe_insert("location", frame=f, group=names[i])
            pb.keyframe_insert("rotation_quaternion", frame=f, group=names[i])
            pb.keyframe_insert("scale", frame=f, group=names[i])
    return act


def import_file(context, path: str, skeleton: Optional[str] = None, y_up: bool = True):
    """Imports the skeletons of the Havok file at ``path`` (or of ``skeleton``, for an
    animation file that holds none) as armatures, and each decoded animation as an action
    of its skeleton's armature. Returns ``(armatures, actions)``."""
    path = os.path.abspath(path)
    rig = hk.rig(path, skeleton=skeleton)
    armatures = [_armature(context, s, os.path.basename(path), y_up) for s in rig.skeletons]
    for ob in armatures:
        ob["hk_source"] = skeleton or path
    actions = []
    for anim in rig.animations:
        ob = armatures[rig.skeletons.index(anim.skeleton)]
        actions.append(_action(ob, anim))
        context.scene.frame_start = 0
        context.scene.frame_end = max(context.scene.frame_end, anim.frame_count - 1)
    return armatures, actions
