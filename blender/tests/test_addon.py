"""The hk_havok add-on driven headless through the `bpy` module."""

import shutil
import time

import bpy
import hk
import hk_havok
import pytest
from corpus import ALLOSAUR, ALLOSAUR_RUN, DES_MAP, PTDE_MAP, anim_pose, corpus_file, run_hk
from hk_havok.armature import local_matrix


@pytest.fixture(scope="module", autouse=True)
def addon():
    hk_havok.register()
    yield
    hk_havok.unregister()


@pytest.fixture(autouse=True)
def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def meshes():
    return [o for o in bpy.data.objects if o.type == "MESH"]


def test_des_map_imports_with_a_material_per_surface():
    assert bpy.ops.import_scene.hk_collision(filepath=str(corpus_file(DES_MAP))) == {"FINISHED"}
    obs = meshes()
    assert sum(len(o.data.polygons) for o in obs) == 461
    surfaces = hk.collision(corpus_file(DES_MAP)).surfaces
    used = {m.name for o in obs for m in o.data.materials}
    assert used == {s["name"] for s in surfaces.values()}
    assert all(len(o.data.materials) == len(set(m.name for m in o.data.materials)) for o in obs)
    o = obs[0]
    assert o["hk_motion_type"] == 7 and o["hk_filter_info"] == 0 and o["hk_source"]


def test_moved_vertex_exports_back_and_passes_mopp_check(tmp_path):
    src = tmp_path / "des.hkx"
    shutil.copy(corpus_file(DES_MAP), src)
    bpy.ops.import_scene.hk_collision(filepath=str(src))
    ob = meshes()[0]
    before = tuple(ob.data.vertices[0].co)
    ob.data.vertices[0].co.x += 1.0
    bpy.context.view_layer.objects.active = ob
    assert bpy.ops.export_scene.hk_collision(filepath=str(src)) == {"FINISHED"}
    r = run_hk("export", str(src), "-o", str(tmp_path / "out.obj"))
    assert r.returncode == 0, r.stderr
    r0 = run_hk("export", str(corpus_file(DES_MAP)), "-o", str(tmp_path / "in.obj"))
    assert r0.returncode == 0, r0.stderr
    old = [l for l in (tmp_path / "in.obj").read_text().splitlines() if l.startswith("v ")]
    new = [l for l in (tmp_path / "out.obj").read_text().splitlines() if l.startswith("v ")]
    changed = [(a, b) for a, b in zip(old, new) if a != b]
    assert len(changed) == 1, changed[:3]
    x = float(changed[0][1].split()[1])
    assert x == pytest.approx(before[0] + 1.0, abs=1e-4)
    check = run_hk("mopp", "check", str(src))
    assert check.returncode == 0, check.stdout + check.stderr


def test_ptde_map_imports_in_under_two_seconds():
    t = time.perf_counter()
    bpy.ops.import_scene.hk_collision(filepath=str(corpus_file(PTDE_MAP)))
    took = time.perf_counter() - t
    print(f"PTDE map import: {took:.3f} s, {sum(len(o.data.polygons) for o in meshes())} triangles")
    assert sum(len(o.data.polygons) for o in meshes()) == hk.collision(corpus_file(PTDE_MAP)).triangle_count
    assert took < 2.0


def test_allosaur_skeleton_is_an_armature():
    bpy.ops.import_scene.hk_anim(filepath=str(corpus_file(ALLOSAUR)))
    (arm,) = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    sk = hk.rig(corpus_file(ALLOSAUR)).skeletons[0]
    assert len(arm.data.bones) == len(sk.bones)
    for b, p in zip(sk.bones, sk.parents):
        parent = arm.data.bones[b].parent
        assert (parent.name if parent else None) == (sk.bones[p] if p >= 0 else None)


def test_allosaur_run_is_an_action_posed_as_hk_anim():
    run, skel = corpus_file(ALLOSAUR_RUN), corpus_file(ALLOSAUR)
    bpy.ops.import_scene.hk_anim(filepath=str(run), skeleton=str(skel))
    (arm,) = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    (act,) = bpy.data.actions
    a = hk.rig(run, skeleton=skel).animations[0]
    first, last = act.frame_range
    assert int(last - first) + 1 == a.frame_count
    bpy.context.scene.frame_set(10)
    cli = anim_pose(run, skel, a.time(10))
    for pb in arm.pose.bones:
        b = pb.bone
        rest = b.matrix_local if b.parent is None else b.parent.matrix_local.inverted() @ b.matrix_local
        loc, rot, scale = (rest @ pb.matrix_basis).decompose()
        t, q, s = cli[pb.name]
        assert list(loc) == pytest.approx(t, abs=1e-4)
        theirs = local_matrix(t + q + s).to_quaternion()
        assert abs(rot.dot(theirs)) == pytest.approx(1.0, abs=1e-5)
        assert list(scale) == pytest.approx(s, abs=1e-4)
