"""hk.open, objects and members, edits, dump, write, build and convert."""

import json

import hk
import pytest
from corpus import ALLOSAUR, DES_MAP, corpus_file, havok_files, run_hk


@pytest.fixture
def des():
    return corpus_file(DES_MAP)


def test_errors_are_one_family():
    for e in (hk.ReadError, hk.WriteError, hk.SchemaError, hk.CollisionError, hk.AnimError,
              hk.CheckError, hk.FileError, hk.UsageError):
        assert issubclass(e, hk.Error)


def test_open_reads_the_des_map(des):
    f = hk.open(des)
    i = f.info
    assert (i["container"], i["schema"], i["objects"], i["layout"]) == ("packfile", "havok-5.5", 11, "4011")
    assert f.root.class_name == "hkRootLevelContainer"
    assert hk.open(des.read_bytes()).info["objects"] == 11


def test_members_are_python_values_and_pointers_objects(des):
    f = hk.open(des)
    body = next(f.find("hkpRigidBody"))
    assert body.name == "h0004B0"
    shape = body["collidable"]["shape"]
    assert isinstance(shape, hk.Object) and shape.class_name == "hkpMoppBvTreeShape"
    assert isinstance(body["material"]["friction"], float)
    variant = f.root["namedVariants"][0]["variant"]["object"]
    assert variant.class_name == "hkpPhysicsData"
    assert "collidable" in body.member_names


def test_dump_is_hk_dump(des):
    f = hk.open(des)
    r = run_hk("dump", str(des))
    assert r.returncode == 0, r.stderr
    assert f.dump() == r.stdout


def test_write_round_trips_and_build_rebuilds(des):
    f = hk.open(des)
    assert f.write() == des.read_bytes()
    assert hk.build(f.dump()).write() == des.read_bytes()
    assert hk.build(json.loads(f.dump())).write() == des.read_bytes()


def test_edits_by_member_name_are_written(des, tmp_path):
    f = hk.open(des)
    body = f.objects[3]
    body["name"] = "renamed"
    body.set("collidable.broadPhaseHandle.collisionFilterInfo", 0x2A)
    out = f.write(tmp_path / "edited.hkx")
    g = hk.open(out)
    assert g.objects[3].name == "renamed"
    assert g.objects[3].get("collidable.broadPhaseHandle.collisionFilterInfo") == 0x2A


def test_edit_that_does_not_fit_names_its_member(des):
    f = hk.open(des)
    f.objects[3]["storageIndex"] = 70000
    with pytest.raises(hk.Error) as e:
        f.check()
    assert "storageIndex" in str(e.value)
    assert e.value.path is not None and "storageIndex" in e.value.path
    assert e.value.line is not None


def test_edit_of_a_missing_member_is_refused_at_once(des):
    f = hk.open(des)
    with pytest.raises(hk.WriteError) as e:
        f.objects[3].set("collidable.noSuchMember", 1)
    assert e.value.path == "#3 hkpRigidBody.collidable.noSuchMember"


def test_truncated_file_names_the_offset(des):
    data = des.read_bytes()[:200]
    with pytest.raises(hk.ReadError) as e:
        hk.open(data)
    assert e.value.offset is not None


def test_not_havok_is_an_error():
    with pytest.raises(hk.Error):
        hk.open(b"not a havok file at all")


def test_convert_lays_out_anew(tmp_path):
    src = corpus_file(ALLOSAUR)
    data = hk.convert(src, "win32")
    g = hk.open(data)
    assert g.info["layout"] == "4101"
    assert g.info["objects"] == hk.open(src).info["objects"]
    assert hk.open(src).write(layout="4101") == data
    r = run_hk("convert", str(src), "--layout", "win32", "-o", str(tmp_path / "cli.hkx"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "cli.hkx").read_bytes() == data



def test_every_corpus_file_opens_or_raises_hk_error():
    files = havok_files()
    opened = 0
    for p in files:
        try:
            hk.open(p)
            opened += 1
        except hk.Error:
            pass
    assert opened >= len(files) * 0.9, f"{opened} of {len(files)} opened"


def test_readme_python_example_runs(monkeypatch, capsys):
    """The example of README.md's "Python and Blender" section, as written."""
    from corpus import REPO

    text = (REPO / "README.md").read_text()
    section = text.split("## Python and Blender", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(REPO)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "havok-7.1" in out and "WriteError" in out and "storageIndex" in out
