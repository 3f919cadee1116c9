"""Havok collision and animation in Blender, through hk (the ``hk`` Python package).

File > Import > Havok collision: one mesh object per body and shape, one material per
surface id (named as ``hk export`` names them), custom properties for what Blender has no
place for (motion type, filter word, phive material and hit mask). File > Import > Havok
skeleton and animation: an armature in the reference pose, each decoded animation an
action. File > Export > Havok collision: the edited meshes back into the file they came
from, through ``hk.import_collision`` (``hk import --into``), reporting its checks.
"""

from __future__ import annotations

import bpy
from bpy.props import BoolProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from . import armature, collision


class HK_OT_import_collision(bpy.types.Operator, ImportHelper):
    """Import the collision of a Havok file: a mesh per body and shape"""

    bl_idname = "import_scene.hk_collision"
    bl_label = "Import Havok collision"
    bl_options = {"REGISTER", "UNDO"}
    filter_glob: StringProperty(default="*.hkx;*.hkt;*.hkshape;*.bphsh", options={"HIDDEN"})
    y_up: BoolProperty(name="Y up", description="Turn Havok's Y-up into Blender's Z-up", default=True)

    def execute(self, context):
        import hk

        try:
            obs = collision.import_file(context, self.filepath, self.y_up)
        except hk.Error as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        tris = sum(len(o.data.polygons) for o in obs)
        self.report({"INFO"}, f"{len(obs)} shapes, {tris} triangles")
        return {"FINISHED"}


class HK_OT_import_anim(bpy.types.Operator, ImportHelper):
    """Import Havok skeletons as armatures and animations as actions"""

    bl_idname = "import_scene.hk_anim"
    bl_label = "Import Havok skeleton and animation"
    bl_options = {"REGISTER", "UNDO"}
    filter_glob: StringProperty(default="*.hkx;*.hkt", options={"HIDDEN"})
    skeleton: StringProperty(
        name="Skeleton file",
        description="The file holding the skeleton, for animation files that hold none",
        subtype="FILE_PATH",
        default="",
    )
    y_up: BoolProperty(name="Y up", description="Turn Havok's Y-up into Blender's Z-up", default=True)

    def execute(self, context):
        import hk

        try:
            arms, acts = armature.import_file(context, self.filepath, self.skeleton or None, self.y_up)
        except hk.Error as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        self.report({"INFO"}, f"{len(arms)} armatures, {len(acts)} actions")
        return {"FINISHED"}


class HK_OT_export_collision(bpy.types.Operator, ExportHelper):
    """Write the edited collision back into the Havok file it came from (hk import --into)"""

    bl_idname = "export_scene.hk_collision"
    bl_label = "Export Havok collision"
    filename_ext = ""
    filter_glob: StringProperty(default="*.hkx;*.hkt;*.hkshape;*.bphsh", options={"HIDDEN"})
    source: StringProperty(name="Source file", description="The file the collision was imported from", default="")
    allow_missing: BoolProperty(
        name="Allow missing", description="Keep shapes no object names; pass over objects that name none"
    )

    def _source(self, context):
        if self.source:
            return self.source
        ob = context.active_object
        if ob is not None and "hk_source" in ob:
            return ob["hk_source"]
        found = collision.sources(context)
        return found[0] if len(found) == 1 else None

    def invoke(self, context, event):
        src = self._source(context)
        if src:
            self.filepath = src
        return super().invoke(context, event)

    def execute(self, context):
        import hk

        src = self._source(context)
        if not src:
            self.report({"ERROR"}, "no imported Havok collision: select an object imported from the file")
            return {"CANCELLED"}
        try:
            r = collision.export(context, src, self.filepath or src, self.allow_missing)
        except hk.CheckError as e:
            self.report({"ERROR"}, f"not written: {e}")
            return {"CANCELLED"}
        except (hk.Error, ValueError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        self.report({"INFO"}, f"{r.path}: {r.summary()}")
        return {"FINISHED"}


def _import_menu(self, context):
    self.layout.operator(HK_OT_import_collision.bl_idname, text="Havok collision (.hkx .hkt .hkshape .bphsh)")
    self.layout.operator(HK_OT_import_anim.bl_idname, text="Havok skeleton and animation (.hkx .hkt)")


def _export_menu(self, context):
    self.layout.operator(HK_OT_export_collision.bl_idname, text="Havok collision (back into its file)")


CLASSES = (HK_OT_import_collision, HK_OT_import_anim, HK_OT_export_collision)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(_import_menu)
    bpy.types.TOPBAR_MT_file_export.append(_export_menu)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(_export_menu)
    bpy.types.TOPBAR_MT_file_import.remove(_import_menu)
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
