"""Havok collision as Blender meshes, and back (docs/python.md, "Blender")."""

from __future__ import annotations

import array
import os
from typing import Dict, List, Optional

import bpy
import hk
from mathutils import Matrix

# Havok is Y-up, Blender Z-up: (x, y, z) -> (x, -z, y), with exact entries so that a
# vertex nobody moved goes back to the file with the bits it came with.
Y_UP = Matrix(((1, 0, 0, 0), (0, 0, -1, 0), (0, 1, 0, 0), (0, 0, 0, 1)))


def _material(surface: Optional[int], info: Dict) -> bpy.types.Material:
    name = info["name"]
    mat = bpy.data.materials.get(name)
    if mat is None:
        mat = bpy.data.materials.new(name)
        r, g, b = info.get("color", (0.6, 0.6, 0.6))
        mat.diffuse_color = (r, g, b, 1.0)
        mat["hk_surface"] = -1 if surface is None else surface
        for key in ("material", "sub_material", "shape_tags", "layers", "sub_layers"):
            if key in info:
                mat[f"hk_phive_{key}"] = info[key]
    return mat


def _mesh(name: str, shape: "hk.Shape", materials: List[bpy.types.Material]) -> bpy.types.Mesh:
    me = bpy.data.meshes.new(name)
    nv, nt = len(shape.vertices), len(shape.surfaces)
    me.vertices.add(nv)
    if nv:
        me.vertices.foreach_set("co", shape.vertices.cast("B").cast("f"))
    me.loops.add(nt * 3)
    me.polygons.add(nt)
    if nt:
        me.loops.foreach_set("vertex_index", array.array("i", shape.triangles.cast("B").cast("I")))
        me.polygons.foreach_set("loop_start", array.array("i", range(0, nt * 3, 3)))
        me.polygons.foreach_set("material_index", array.array("i", shape.material_index))
    for m in materials:
        me.materials.append(m)
    me.update(calc_edges=True)
    return me


def import_file(context, path: str, y_up: bool = True) -> List[bpy.types.Object]:
    """Imports the collision of the Havok file at ``path``: one mesh object per body and
    shape, in a collection named after the file. Returns the objects."""
    path = os.path.abspath(path)
    col = hk.collision(path)
    mats = {s: _material(s, info) for s, info in col.surfaces.items()}
    coll = bpy.data.collections.new(os.path.basename(path))
    context.scene.collection.children.link(coll)
    objects = []
    for body in col.bodies:
        for shape in body.shapes:
            me = _mesh(shape.name, shape, [mats[s] for s in shape.surface_ids])
            ob = bpy.data.objects.new(shape.name, me)
            ob.matrix_world = Y_UP if y_up else Matrix.Identity(4)
            ob["hk_source"] = path
            ob["hk_name"] = shape.name
            ob["hk_y_up"] = y_up
            ob["hk_shape_kind"] = shape.kind
            ob["hk_body"] = body.name
            ob["hk_motion_type"] = body.motion_type
            if body.motion_name:
                ob["hk_motion_name"] = body.motion_name
            ob["hk_filter_info"] = body.filter_info
            coll.objects.link(ob)
            objects.append(ob)
    return objects


def sources(context) -> List[str]:
    """The Havok files the scene's imported collision came from."""
    return sorted({ob["hk_source"] for ob in context.scene.objects if ob.type == "MESH" and "hk_source" in ob})


def meshes_of(context, source: str) -> List[Dict]:
    """The meshes of every object imported from ``source``, in Havok's world space, as
    ``hk.import_collision`` takes them."""
    depsgraph = context.evaluated_depsgraph_get()
    out = []
    for ob in context.scene.objects:
        if ob.type != "MESH" or ob.get("hk_source") != source:
            continue
        back = Y_UP.inverted() if ob.get("hk_y_up", True) else Matrix.Identity(4)
        me = ob.evaluated_get(depsgraph).to_mesh()
        try:
            me.calc_loop_triangles()
            to = _snapped(back @ ob.matrix_world)
            verts = array.array("f")
            for v in me.vertices:
                verts.extend(to @ v.co)
            n = len(me.loop_triangles)
            tris = array.array("i", [0]) * (n * 3)
            me.loop_triangles.foreach_get("vertices", tris)
            which = array.array("i", [0]) * n
            me.loop_triangles.foreach_get("material_index", which)
            names = [m.name if m else "surface_none" for m in me.materials] or ["surface_none"]
            out.append(
                {
                    "name": ob["hk_name"],
                    "vertices": verts,
                    "triangles": array.array("I", tris),
                    "materials": names,
                    "material_index": [min(i, len(names) - 1) for i in which],
                }
            )
        finally:
            ob.evaluated_get(depsgraph).to_mesh_clear()
    return out


def _snapped(m: Matrix) -> Matrix:
    """``m`` with entries within 1e-6 of -1, 0 or 1 made exact: Blender keeps an
    object's rotation as angles, so the Y-up turn comes back with cos(90°) ≈ -4e-8 where
    the file needs 0, which would move every untouched vertex by a few micrometres."""
    m = m.copy()
    for r in range(3):
        for c in range(4):
            k = round(m[r][c])
            if abs(m[r][c] - k) < 1e-6 and k in (-1, 0, 1):
                m[r][c] = k
    return m


def export(context, source: str, out: Optional[str] = None, allow_missing: bool = False) -> "hk.ImportResult":
    """Writes the scene's meshes from ``source`` back into it (to ``out``, by default the
    source itself) through ``hk.import_collision``; raises ``hk.CheckError`` when the
    built file fails its checks (nothing is written)."""
    return hk.import_collision(
        source, meshes_of(context, source), out=out or source, allow_missing=allow_missing
    )
