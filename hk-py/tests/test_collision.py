"""hk.collision and hk.import_collision."""

import array

import hk
import pytest
from corpus import DES_MAP, PTDE_MAP, corpus_file, run_hk


def test_des_map_triangles_and_surfaces():
    c = hk.collision(corpus_file(DES_MAP))
    assert c.triangle_count == 461
    assert sorted(k for k in c.surfaces if k is not None) == [1, 2]
    assert c.surfaces[2]["name"] == "surface_2"
    s = c.bodies[0].shapes[0]
    assert s.vertices.format == "f" and s.vertices.shape[1] == 3
    assert s.triangles.format == "I" and len(s.triangles) == len(s.surfaces)
    assert max(s.triangles.tolist()[0]) < len(s.vertices)


def test_buffers_are_numpy_arrays_without_copies():
    np = pytest.importorskip("numpy")
    s = hk.collision(corpus_file(DES_MAP)).bodies[0].shapes[0]
    v = np.asarray(s.vertices)
    assert v.dtype == np.float32 and v.shape == (len(s.vertices), 3)
    assert not v.flags.owndata


def test_vertices_are_hk_exports(tmp_path):
    des = corpus_file(DES_MAP)
    out = tmp_path / "des.obj"
    r = run_hk("export", str(des), "-o", str(out))
    assert r.returncode == 0, r.stderr
    obj = [tuple(float(x) for x in l.split()[1:]) for l in out.read_text().splitlines() if l.startswith("v ")]
    ours = [tuple(v) for b in hk.collision(des).bodies for s in b.shapes for v in s.vertices.tolist()]
    assert len(obj) == len(ours)
    assert all(abs(a - b) <= 1e-4 * max(1.0, abs(a)) for p, q in zip(obj, ours) for a, b in zip(p, q))


def test_import_moves_one_vertex(tmp_path):
    des = corpus_file(DES_MAP)
    shapes = list(hk.collision(des).shapes())
    meshes = []
    for s in shapes:
        v = array.array("f", s.vertices.cast("B").cast("f"))
        if not meshes:
            v[0] += 1.0
        meshes.append({"name": s.name, "vertices": v, "triangles": s.triangles,
                       "materials": s.materials, "material_index": s.material_index})
    r = hk.import_collision(des, meshes, out=tmp_path / "moved.hkx")
    assert r.checks["failures"] == [] and r.checks["found"] == r.checks["kept"] == 461
    assert len(r.report["replaced"]) == 2
    after = hk.collision(tmp_path / "moved.hkx")
    assert after.triangle_count == 461
    first = after.bodies[0].shapes[0].vertices.tolist()[0]
    assert first[0] == pytest.approx(shapes[0].vertices.tolist()[0][0] + 1.0)
    assert run_hk("mopp", "check", str(tmp_path / "moved.hkx")).returncode == 0


def test_shapes_import_back_unchanged():
    des = corpus_file(DES_MAP)
    r = hk.import_collision(des, hk.collision(des).shapes())
    again = hk.collision(r.data)
    before = hk.collision(des)
    for a, b in zip(before.shapes(), again.shapes()):
        assert a.vertices.tolist() == b.vertices.tolist()
        assert a.material_index == b.material_index


def test_a_mesh_naming_no_shape_is_refused():
    des = corpus_file(DES_MAP)
    mesh = {"name": "nobody/none", "vertices": [[0, 0, 0], [1, 0, 0], [0, 0, 1]],
            "triangles": [[0, 1, 2]], "surfaces": ["surface_1"]}
    with pytest.raises(hk.Error):
        hk.import_collision(des, [mesh])


def test_a_bad_material_name_is_refused():
    des = corpus_file(DES_MAP)
    s = next(hk.collision(des).shapes())
    mesh = {"name": s.name, "vertices": s.vertices, "triangles": s.triangles,
            "materials": ["Material.001"], "material_index": [0] * len(s.surfaces)}
    with pytest.raises(ValueError, match="names no surface"):
        hk.import_collision(des, [mesh], allow_missing=True)


def test_ptde_map_reads():
    c = hk.collision(corpus_file(PTDE_MAP))
    assert c.triangle_count > 0 and len(c.bodies) > 0
