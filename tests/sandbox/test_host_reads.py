"""The host never follows what a checkout points at (SPEC §9): links out of the tree, FIFOs, devices.

Real files, real symlinks, real FIFOs (os.mkfifo). Anything that could hang runs in a thread with a
deadline, so a regression fails the test instead of hanging it.
"""

import hashlib
import io
import json
import os
import secrets
import shutil
import socket
import tarfile
import threading
from pathlib import Path

import pytest

from conftest import GitRepo, run_cli
from witness_gate.sources import safefs
from witness_gate.pipeline.discover import discover
from witness_gate.config.lock import LockError, load_pinned, pin, Lock


def within(seconds, fn, *args, **kwargs):
    """fn(*args) in a thread; fails the test if it has not returned after `seconds`."""
    box = {}

    def target():
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{getattr(fn, '__name__', fn)} still running after {seconds} s (a hang)"
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.fixture
def secret(tmp_path):
    """A planted host file outside any checkout, whose content would show if it were read."""
    token = secrets.token_hex(8)
    folder = tmp_path / "host-secrets"
    folder.mkdir()
    path = folder / "secret.py"
    # valid Python with a property in it: a gate that read it would show the token as an assertion id
    path.write_text(f"TOKEN = 'SECRET{token}'\n\ndef prop_SECRET{token}(fixture):\n    return True\n")
    return path, f"SECRET{token}"


def tree(tmp_path) -> Path:
    root = tmp_path / "checkout"
    (root / "tests" / "properties").mkdir(parents=True)
    (root / "lib").mkdir()
    (root / "lib" / "props.py").write_text("def prop_lib(f):\n    return True\n")
    (root / "data.json").write_text('{"a": 1}')
    return root


# -- safefs ------------------------------------------------------------------------------------
def test_a_regular_file_and_a_relative_link_inside_the_tree_are_read(tmp_path):
    root = tree(tmp_path)
    os.symlink("../../lib/props.py", root / "tests" / "properties" / "test_link.py")
    os.symlink("lib", root / "libdir")
    assert safefs.read_inside(root, "data.json", max_bytes=100) == b'{"a": 1}'
    assert b"prop_lib" in safefs.read_inside(root, "tests/properties/test_link.py", max_bytes=1000)
    assert b"prop_lib" in safefs.read_inside(root, "libdir/props.py", max_bytes=1000)


@pytest.mark.parametrize("make, problem", [
    (lambda root, secret: os.symlink(secret, root / "x.py"), "a symlink to an absolute path"),
    (lambda root, secret: os.symlink("/nonexistent/witness/secret", root / "x.py"), "a symlink to an absolute path"),
    (lambda root, secret: os.symlink(os.path.relpath(secret, root), root / "x.py"),
     "a symlink whose target leaves the checkout"),
    (lambda root, secret: os.symlink("lib/missing.py", root / "x.py"), "a symlink to a missing file"),
    (lambda root, secret: os.symlink("x.py", root / "x.py"), "a symlink loop"),
    (lambda root, secret: os.mkfifo(root / "x.py"), "a FIFO (named pipe)"),
    (lambda root, secret: (root / "x.py").mkdir(), "a directory"),
])
def test_links_out_and_special_files_are_refused(tmp_path, secret, make, problem):
    root = tree(tmp_path)
    make(root, secret[0])
    with pytest.raises(safefs.UnsafePath) as caught:
        within(5, safefs.read_inside, root, "x.py", max_bytes=1 << 20)
    assert caught.value.problem == problem and caught.value.reason == "unsafe_path:x.py"
    assert str(caught.value).startswith(f"x.py: {problem}; the gate never follows a link")
    assert secret[1] not in str(caught.value)


def test_a_socket_and_a_file_too_large_are_refused(tmp_path):
    root = tree(tmp_path)
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(root / "s.py"))
        with pytest.raises(safefs.UnsafePath, match="a socket"):
            safefs.read_inside(root, "s.py", max_bytes=10)
    with pytest.raises(safefs.UnsafePath, match="larger than 3 bytes"):
        safefs.read_inside(root, "data.json", max_bytes=3)


def test_a_refusal_does_not_tell_whether_the_host_path_exists(tmp_path, secret):
    root = tree(tmp_path)
    os.symlink(secret[0], root / "a.py")
    os.symlink(str(secret[0]) + ".missing", root / "b.py")
    problems = []
    for name in ("a.py", "b.py"):
        with pytest.raises(safefs.UnsafePath) as caught:
            safefs.read_inside(root, name, max_bytes=1000)
        problems.append(caught.value.problem)
    assert problems[0] == problems[1]


def test_a_path_that_climbs_out_is_refused_and_a_missing_one_is_not_found(tmp_path):
    root = tree(tmp_path)
    with pytest.raises(safefs.UnsafePath, match="leaves the checkout"):
        safefs.read_inside(root, "../outside.py", max_bytes=10)
    with pytest.raises(FileNotFoundError):
        safefs.read_inside(root, "nope.py", max_bytes=10)


def test_walk_files_never_enters_a_linked_directory(tmp_path, secret):
    root = tree(tmp_path)
    os.symlink(secret[0].parent, root / "tests" / "properties" / "host")  # a link to a host directory
    (root / "tests" / "properties" / "test_a.py").write_text("")
    os.mkfifo(root / "tests" / "properties" / "test_fifo.py")
    found = within(5, lambda: list(safefs.walk_files(root, "tests/properties", ".py")))
    assert found == ["tests/properties/test_a.py", "tests/properties/test_fifo.py"]
    os.rename(root / "tests" / "properties", root / "tests" / "real")
    os.symlink(secret[0].parent, root / "tests" / "properties")  # the directory itself points at the host
    with pytest.raises(safefs.UnsafePath, match="a symlink to an absolute path"):
        list(safefs.walk_files(root, "tests/properties", ".py"))


# -- discovery ---------------------------------------------------------------------------------
@pytest.mark.parametrize("make, problem", [
    (lambda p, secret: os.symlink(secret, p), "a symlink to an absolute path"),
    (lambda p, secret: os.symlink("/nonexistent/witness/props.py", p), "a symlink to an absolute path"),
    (lambda p, secret: os.symlink("missing.py", p), "a symlink to a missing file"),
    (lambda p, secret: os.mkfifo(p), "a FIFO (named pipe)"),
])
def test_a_property_module_that_points_at_the_host_is_a_hold(tmp_path, secret, make, problem):
    root = tree(tmp_path)
    (root / "tests" / "properties" / "test_ok.py").write_text(
        "from witness_gate import contract\n\n@contract(invariant='i', domain='d')\ndef prop_ok(f):\n    return True\n")
    make(root / "tests" / "properties" / "test_evil.py", secret[0])
    targets = within(5, discover, root, "tests/properties", {})
    by_id = {t.assertion_id: t for t in targets}
    assert set(by_id) == {"prop_ok", "unsafe_path:tests.properties.test_evil.py"}
    held = by_id["unsafe_path:tests.properties.test_evil.py"]
    assert held.holds == ("unsafe_path:tests/properties/test_evil.py",)
    assert held.contract is None and held.property_id == ""
    assert held.contract_problem.startswith(f"unsafe_path:tests/properties/test_evil.py: {problem}; ")
    assert secret[1] not in repr(targets)
    assert by_id["prop_ok"].holds == () and by_id["prop_ok"].contract is not None


def test_a_relative_link_inside_the_repository_is_discovered(tmp_path):
    root = tree(tmp_path)
    os.symlink("../../lib/props.py", root / "tests" / "properties" / "test_link.py")
    [target] = discover(root, "tests/properties", {})
    assert (target.assertion_id, target.relpath, target.holds) == ("prop_lib", "tests/properties/test_link.py", ())
    assert target.property_id.startswith("tests/properties/test_link.py::prop_lib@")


# -- `run` on a git repository ------------------------------------------------------------------
PROPS = '''
from calc import double
from witness_gate import contract

@contract(invariant="double(x) == x + x", domain="integers")
def prop_double(fixture):
    return all(double(x) == x + x for x in fixture["xs"]) or "double-wrong"
'''


def base_repo(git_repo: GitRepo) -> GitRepo:
    git_repo.commit({
        "src/calc.py": "def double(x):\n    return 2 * x\n",
        "tests/properties/test_calc.py": PROPS,
        "tests/fixtures/prop_double.json": {"xs": [1, 2, 3]},
        ".witness.yml": "version: 1\n",
    }, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    return git_repo


def gate(repo: GitRepo, *extra: str):
    return run_cli("run", "--repo", str(repo.path), "--base", "main", "--head", "patch",
                   "--out", str(repo.path.parent / "out"), *extra, cwd=repo.path.parent, timeout=240)


def records_text(repo: GitRepo) -> str:
    return "".join(p.read_text() for p in (repo.path.parent / "out").rglob("*.json"))


@pytest.mark.parametrize("where", ["secret", "missing"])
def test_an_oracle_only_head_linking_its_property_file_to_the_host(git_repo, secret, where):
    repo = base_repo(git_repo)
    os.unlink(repo.path / "tests/properties/test_calc.py")
    target = str(secret[0]) if where == "secret" else "/nonexistent/witness/props.py"
    os.symlink(target, repo.path / "tests/properties/test_calc.py")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "point the oracle at the host")
    done = gate(repo, "--json")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    [row] = json.loads(done.stdout)["properties"]
    assert (row["assertion_id"], row["verdict"]) == ("unsafe_path:tests.properties.test_calc.py", "oracle_defect")
    [record] = (repo.path.parent / "out").glob("*/*.attempt.json")
    record = json.loads(record.read_text())
    assert record["hold_reasons"][0] == "unsafe_path:tests/properties/test_calc.py"
    assert any("a symlink to an absolute path" in n for n in record["notes"])
    assert secret[1] not in done.stdout + done.stderr + records_text(repo)


def test_an_implementation_change_with_a_linked_property_file_holds_it(git_repo, secret):
    repo = base_repo(git_repo)
    repo.git("checkout", "-q", "main")
    os.symlink(str(secret[0]), repo.path / "tests/properties/test_evil.py")
    os.symlink("../../lib/more_props.py", repo.path / "tests/properties/test_more.py")
    repo.commit({"lib/more_props.py": PROPS.replace("prop_double", "prop_more"),
                 "tests/fixtures/prop_more.json": {"xs": [4]}}, "base: linked property files")
    repo.git("checkout", "-q", "patch")
    repo.git("rebase", "-q", "main")
    repo.commit({"src/calc.py": "def double(x):\n    return x + x\n"})
    done = gate(repo, "--json")
    assert done.returncode == 3, done.stdout + done.stderr
    verdicts = {row["assertion_id"]: row["verdict"] for row in json.loads(done.stdout)["properties"]}
    # a property file that links into the implementation is not the oracle's: the judge, which sees only oracle
    # files, cannot open it, and the property holds
    assert verdicts == {"prop_double": "pass", "prop_more": "hold", "unsafe_path:tests.properties.test_evil.py": "hold"}
    [held] = (repo.path.parent / "out").glob("*/unsafe_path:*.attempt.json")
    held = json.loads(held.read_text())
    assert held["label"] == "hold"
    assert held["hold_reasons"][:2] == ["unsafe_path:tests/properties/test_evil.py", "missing:property_id"]
    assert "missing:contract" in held["hold_reasons"]
    assert secret[1] not in done.stdout + done.stderr + records_text(repo)
    plain = gate(repo)
    assert "unsafe_path:tests/properties/test_evil.py: a symlink to an absolute path" in plain.stdout
    assert secret[1] not in plain.stdout + plain.stderr


# -- `pin` and `check --lock` on a working directory ----------------------------------------------
def working_dir(tmp_path) -> Path:
    work = tmp_path / "work"
    (work / "tests" / "properties").mkdir(parents=True)
    (work / "tests" / "fixtures").mkdir(parents=True)
    (work / "tests" / "properties" / "test_p.py").write_text(
        "from witness_gate import contract\n\n@contract(invariant='i', domain='d')\ndef prop_p(f):\n    return True\n")
    return work


def lock_for(work: Path, path: str, digest: str) -> Path:
    lock = work / "f.lock"
    lock.write_text(json.dumps({"path": path, "fixture_digest": digest, "generator_version": 1, "seed": "1"}))
    return lock


def test_pin_refuses_a_fixture_linked_to_the_host(tmp_path, secret):
    work = working_dir(tmp_path)
    os.symlink(secret[0], work / "tests/fixtures/f.json")
    done = run_cli("pin", "--fixture", "tests/fixtures/f.json", "--generator-version", "1", "--out", "f.lock",
                   cwd=work, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "tests/fixtures/f.json: a symlink to an absolute path" in done.stderr and "Traceback" not in done.stderr
    assert not (work / "f.lock").exists() and secret[1] not in done.stdout + done.stderr
    outside = run_cli("pin", "--fixture", str(secret[0]), "--generator-version", "1", "--out", "f.lock",
                      cwd=work, timeout=60)
    assert outside.returncode == 2 and "outside the working directory" in outside.stderr


def test_pin_and_check_refuse_a_fixture_that_is_a_fifo_without_hanging(tmp_path):
    work = working_dir(tmp_path)
    os.mkfifo(work / "tests/fixtures/f.json")
    done = run_cli("pin", "--fixture", "tests/fixtures/f.json", "--generator-version", "1", "--out", "f.lock",
                   cwd=work, timeout=60)
    assert done.returncode == 2 and "tests/fixtures/f.json: a FIFO (named pipe)" in done.stderr
    lock = lock_for(work, "tests/fixtures/f.json", "0" * 64)
    done = run_cli("check", "--lock", str(lock), "--properties", "tests/properties", "--out", "out",
                   "--sandbox", "none", cwd=work, timeout=60)
    assert done.returncode == 2 and "a FIFO (named pipe)" in done.stderr and "Traceback" not in done.stderr


def test_check_refuses_a_lock_that_points_at_the_host(tmp_path, secret):
    # were the link followed, a lock carrying the secret's digest would tell "it matches": a digest oracle
    work = working_dir(tmp_path)
    digest = hashlib.sha256(secret[0].read_bytes()).hexdigest()
    os.symlink(secret[0], work / "tests/fixtures/f.json")
    for path in ("tests/fixtures/f.json", str(secret[0])):
        lock = lock_for(work, path, digest)
        done = run_cli("check", "--lock", str(lock), "--properties", "tests/properties", "--out", "out",
                       "--sandbox", "none", cwd=work, timeout=60)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "the locked fixture cannot be read" in done.stderr and "Traceback" not in done.stderr
        assert secret[1] not in done.stdout + done.stderr
    with pytest.raises(LockError, match="a symlink to an absolute path"):
        load_pinned(Lock("tests/fixtures/f.json", digest, 1, "1"), work)
    with pytest.raises(LockError, match="a symlink to an absolute path"):
        pin("tests/fixtures/f.json", 1, "1", root=work)


def test_check_refuses_a_config_that_is_a_fifo_or_a_link_out(tmp_path, secret):
    work = working_dir(tmp_path)
    os.mkfifo(work / ".witness.yml")
    lock = lock_for(work, "tests/fixtures/f.json", "0" * 64)
    done = run_cli("check", "--lock", str(lock), "--properties", "tests/properties", "--out", "out",
                   "--sandbox", "none", cwd=work, timeout=60)
    assert done.returncode == 2 and ".witness.yml: a FIFO (named pipe)" in done.stderr
    os.unlink(work / ".witness.yml")
    os.symlink(secret[0], work / ".witness.yml")
    done = run_cli("check", "--lock", str(lock), "--properties", "tests/properties", "--out", "out",
                   "--sandbox", "none", cwd=work, timeout=60)
    assert done.returncode == 2 and ".witness.yml: a symlink to an absolute path" in done.stderr
    assert secret[1] not in done.stdout + done.stderr


def test_check_holds_a_property_module_linked_to_the_host(tmp_path, secret):
    work = working_dir(tmp_path)
    (work / "tests/fixtures/f.json").write_text('{"a": 1}')
    os.symlink(secret[0], work / "tests/properties/test_evil.py")
    assert run_cli("pin", "--fixture", "tests/fixtures/f.json", "--generator-version", "1", "--out", "f.lock",
                   cwd=work, timeout=60).returncode == 0
    done = run_cli("check", "--lock", "f.lock", "--properties", "tests/properties", "--out", "out", "--json",
                   "--sandbox", "none", cwd=work, timeout=120)
    assert done.returncode == 3, done.stdout + done.stderr
    verdicts = {row["assertion_id"]: row["verdict"] for row in json.loads(done.stdout)["properties"]}
    # prop_p ran (outside git the directory's content is the patch); the linked module never did
    assert verdicts == {"prop_p": "pass", "unsafe_path:tests.properties.test_evil.py": "hold"}
    held = json.loads((work / "out" / "unsafe_path:tests.properties.test_evil.py.attempt.json").read_text())
    assert held["hold_reasons"][0] == "unsafe_path:tests/properties/test_evil.py" and "replays" not in held
    assert secret[1] not in done.stdout + done.stderr + "".join(p.read_text() for p in (work / "out").glob("*"))


# -- the worker's tarball -------------------------------------------------------------------------
def tarball(*extra: tarfile.TarInfo) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        top = tarfile.TarInfo("acme-calc-abc123")
        top.type = tarfile.DIRTYPE
        tar.addfile(top)
        data = b"def prop_ok(f):\n    return True\n"
        good = tarfile.TarInfo("acme-calc-abc123/tests/properties/test_ok.py")
        good.size = len(data)
        tar.addfile(good, io.BytesIO(data))
        for member in extra:
            tar.addfile(member)
    return buf.getvalue()


def member(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(f"acme-calc-abc123/{name}")
    info.type = kind
    info.linkname = linkname
    return info


@pytest.mark.parametrize("extra, problem", [
    (member("tests/properties/test_x.py", tarfile.SYMTYPE, "/etc/shadow"), "a symlink to an absolute path"),
    (member("tests/properties/test_x.py", tarfile.SYMTYPE, "../../../etc/shadow"),
     "a symlink whose target leaves the tree"),
    (member("tests/properties/test_x.py", tarfile.FIFOTYPE), "a FIFO (named pipe)"),
    (member("tests/properties/test_x.py", tarfile.LNKTYPE, "acme-calc-abc123/tests/properties/test_ok.py"),
     "a hard link"),
    (member("tests/properties/test_x.py", tarfile.CHRTYPE), "a device"),
    (member("../../escape.py", tarfile.REGTYPE), "a name outside the tree"),
])
def test_unpack_refuses_links_out_and_special_files(tmp_path, extra, problem):
    from worker.checkout import CheckoutError, unpack

    dest = tmp_path / "tree"
    dest.mkdir()
    with pytest.raises(CheckoutError) as caught:
        unpack(tarball(extra), dest)
    assert f"tarball member {extra.name!r}: {problem}" in str(caught.value)
    assert not os.path.lexists(dest / "tests/properties/test_x.py")
    assert not (tmp_path / "escape.py").exists()


def test_unpack_keeps_relative_links_inside_the_tree(tmp_path):
    from worker.checkout import unpack

    dest = tmp_path / "tree"
    dest.mkdir()
    unpack(tarball(member("tests/properties/test_link.py", tarfile.SYMTYPE, "test_ok.py")), dest)
    assert os.readlink(dest / "tests/properties/test_link.py") == "test_ok.py"
    assert (dest / "tests/properties/test_ok.py").read_text().startswith("def prop_ok")


def test_staging_a_working_tree_copies_links_as_links_and_never_opens_a_fifo(tmp_path):
    from witness_gate.sandbox import stage_directory

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "p.py").write_text("def prop_x(p):\n    return True\n")
    os.mkfifo(tmp_path / "tests" / "pipe")
    os.symlink("/etc/shadow", tmp_path / "tests" / "shadow.py")
    (tmp_path / "tests" / "__pycache__").mkdir()
    staged = stage_directory(tmp_path)
    try:
        assert sorted(os.listdir(staged / "tests")) == ["p.py", "shadow.py"]
        assert os.readlink(staged / "tests" / "shadow.py") == "/etc/shadow"  # a link, never its target's bytes
    finally:
        shutil.rmtree(staged)
