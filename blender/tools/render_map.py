"""Renders a Havok collision file imported by the add-on to a PNG, headless (Workbench):
the screenshot in README.md.

    python blender/tools/render_map.py MAP.hkx OUT.png    (a venv with bpy and hk)
"""

import math
import sys
from pathlib import Path

import bpy
from mathutils import Vector

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import hk_havok  # noqa: E402


def main(src: str, out: str) -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    hk_havok.register()
    bpy.ops.import_scene.hk_collision(filepath=src)
    obs = [o for o in bpy.data.objects if o.type == "MESH"]
    corners = [o.matrix_world @ Vector(c) for o in obs for c in o.bound_box]
    lo = Vector(min(c[i] for c in corners) for i in range(3))
    hi = Vector(max(c[i] for c in corners) for i in range(3))
    center, size = (lo + hi) / 2, (hi - lo).length
    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    bpy.context.scene.collection.objects.link(cam)
    cam.location = center + Vector((0.9, -1.1, 0.8)).normalized() * size * 1.5
    cam.rotation_euler = (center - cam.location).to_track_quat("-Z", "Y").to_euler()
    cam.data.clip_end = size * 10
    cam.data.lens = 35
    scene = bpy.context.scene
    scene.camera = cam
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "MATERIAL"
    scene.display.shading.show_cavity = True
    scene.display.shading.show_object_outline = True
    scene.render.resolution_x, scene.render.resolution_y = 960, 600
    scene.render.filepath = out
    world = bpy.data.worlds.new("world")
    world.color = (0.12, 0.13, 0.15)
    scene.world = world
    bpy.ops.render.render(write_still=True)
    print(f"rendered {len(obs)} objects to {out} (camera {math.dist(cam.location, center):.1f} from the centre)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
