"""settle(): every entry of a tree gets the same atime and mtime (and a ctime of now) before an evaluation; a
fixed tree's layout is listed once and reused, and a tree that changed after all is listed again."""

import os
import time

from witness_gate.sandbox.staging import SETTLED_NS, mark_fixed, settle


def make_tree(root, depth=3, width=3):
    for d in range(depth):
        folder = root.joinpath(*[f"d{i}" for i in range(d + 1)])
        folder.mkdir(parents=True, exist_ok=True)
        for w in range(width):
            (folder / f"f{w}.py").write_text("x = 1\n")
        os.symlink("f0.py", folder / "link")  # a link is settled itself, never followed
    return [root] + [p for p in root.rglob("*")]


def unsettled(paths):
    return [p for p in paths if (os.lstat(p).st_atime_ns, os.lstat(p).st_mtime_ns) != (SETTLED_NS, SETTLED_NS)]


def test_a_fixed_tree_is_settled_like_any_other_and_its_ctime_is_fresh(tmp_path):
    paths = make_tree(tmp_path / "t")
    for fixed in (False, True, True):
        if fixed:
            mark_fixed(tmp_path / "t")
        os.utime(paths[-1], ns=(1, 1), follow_symlinks=False)  # something moved a timestamp since
        before = time.time()
        settle(tmp_path / "t")
        assert unsettled(paths) == []
        assert all(os.lstat(p).st_ctime >= before - 1 for p in paths)  # "a ctime of now", every time


def test_a_fixed_tree_that_lost_an_entry_is_listed_again(tmp_path):
    paths = make_tree(tmp_path / "t")
    mark_fixed(tmp_path / "t")
    settle(tmp_path / "t")
    (tmp_path / "t" / "d0" / "f1.py").unlink()  # the layout it was listed with names it
    settle(tmp_path / "t")
    assert unsettled([p for p in paths if os.path.lexists(p)]) == []


def test_the_layout_of_a_fixed_tree_is_read_once(tmp_path, monkeypatch):
    make_tree(tmp_path / "t")
    make_tree(tmp_path / "u")
    mark_fixed(tmp_path / "t")
    settle(tmp_path / "t")
    listed = []
    real = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: listed.append(path) or real(path))
    settle(tmp_path / "t")
    assert listed == []  # the layout listed the first time
    settle(tmp_path / "u")
    assert len(listed) == 4  # a tree that may change (the input) is listed every time: its four folders
