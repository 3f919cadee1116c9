"""hk.rig: skeletons and animations."""

import hk
import pytest
from corpus import ALLOSAUR, ALLOSAUR_RUN, anim_pose, corpus_file


def test_allosaur_skeleton():
    r = hk.rig(corpus_file(ALLOSAUR))
    (s,) = r.skeletons
    assert len(s.bones) == len(s.parents) == len(s.reference) > 1
    assert s.parents[0] == -1
    assert all(p < i for i, p in enumerate(s.parents))
    assert s.reference.shape == (len(s.bones), 10)


def test_allosaur_run_frames_are_hk_anim():
    run, skel = corpus_file(ALLOSAUR_RUN), corpus_file(ALLOSAUR)
    r = hk.rig(run, skeleton=skel)
    (a,) = r.animations
    assert a.frame_count > 10
    bones = a.skeleton.bones
    cli = anim_pose(run, skel, a.time(10))
    frame = a.frame(10).tolist()
    sampled = a.pose(a.time(10)).tolist()
    for i, name in enumerate(bones):
        t, q, s = cli[name]
        assert frame[i][0:3] == pytest.approx(t, abs=1e-5)
        assert frame[i][3:7] == pytest.approx(q, abs=1e-5)
        assert frame[i][7:10] == pytest.approx(s, abs=1e-5)
        assert sampled[i] == pytest.approx(frame[i], abs=1e-5)


def test_animation_without_skeleton_is_bound_to_a_named_stand_in():
    rig = hk.rig(corpus_file(ALLOSAUR_RUN))
    assert rig.stand_ins == [rig.animations[0].name], rig.stand_ins
    stand_in = rig.animations[0].skeleton
    assert stand_in.name.startswith("stand-in for"), stand_in.name
    assert stand_in.bones[:2] == ["bone 0", "bone 1"], stand_in.bones[:2]
    assert all(p == -1 for p in stand_in.parents)
    assert len(rig.animations[0].pose(0.0)) == len(stand_in.bones)
