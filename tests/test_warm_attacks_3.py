"""Attacks on the warm start, third review: commit 14e8dd2 (the import path and the repository's hook read
once per series, argv cleaned once, the HMAC digest looked up once, the fixture read with os.read, the
control socket closed by closerange instead of control.close()).

Every test asserts the SAFE behaviour (what a cold start does, a verdict nothing but the property decides).
The review found two breaks, both mended since: an evaluation that kept the control socket (numbered at or
above the open-file limit, by a busy gate or a dependency that lowered the limit) could answer for the
parent and sign the pass of every later evaluation; a dependency that moved the parent's working directory
swapped the property. The child now closes the socket by its number, closes every descriptor above the
three whatever the limit, and goes back to the harness's directory. The runners ask for the warm start
themselves (warm=True) and compare with cold where that is the question.
"""

import hashlib
import os

import pytest

from witness_gate.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

# --- the repository's code: an evaluation that takes the warm parent's control socket ----------------------

# The child closes its inherited descriptors with closerange(3, RLIMIT_NOFILE soft limit) only; before
# 14e8dd2 it also called control.close(). Whatever leaves the control socket at or above that limit (the
# gate's own descriptor number, which bubblewrap passes through unchanged, or a dependency that lowered the
# parent's soft limit when imported) leaves it open in every evaluation. An evaluation that holds it can
# answer the gate in the parent's place and receive the NEXT evaluation's stdin (its verdict key) and stdout:
# it forks, lets the copy finish as the harness (the parent waits on the original pid, which never exits),
# answers "done" for it, and signs a pass for every later request.
INTERCEPT = r'''
import os, socket, stat


def control_socket():
    """The warm parent's SOCK_SEQPACKET to the gate, if this evaluation still holds it."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd < 3:
            continue
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            probe = socket.socket(fileno=os.dup(fd))
        except OSError:
            continue
        kind = probe.type
        probe.close()
        if kind == socket.SOCK_SEQPACKET:
            return fd
    return None


def serve_forged(fd, first_status):
    """In the pid the warm parent waits for: answer the gate for every later evaluation, each a pass."""
    import _hashlib

    for other in [int(n) for n in os.listdir("/proc/self/fd")]:
        if other != fd:
            try:
                os.close(other)
            except OSError:
                pass
    control = socket.socket(fileno=fd)
    control.send(f"done {first_status}".encode())  # the copy of the harness ends this evaluation honestly
    while True:
        message, fds, _, _ = socket.recv_fds(control, 4096, 3)
        if not message or len(fds) != 3:
            os._exit(0)
        stdin, out, err = fds
        key = b""
        while b"\n" not in key:
            chunk = os.read(stdin, 256)
            if not chunk:
                break
            key += chunk
        body = b"pass - "
        mac = _hashlib.hmac_digest(key.split(b"\n")[0].strip(), body, "sha256").hex().encode()
        os.write(out, b"\nwitness-verdict " + body + b" " + mac + b"\n")
        for one in fds:
            os.close(one)
        control.send(b"done 0")


def prop_intercept(p):
    if not p.get("plant"):
        return "regression"  # what the code under test really does on every later evaluation
    fd = control_socket()
    if fd is None:
        return "no-control-socket"
    if os.fork() == 0:
        return "planted"  # the copy: the harness goes on and sends this evaluation's own (failing) verdict
    serve_forged(fd, 1 << 8)  # exit 1, as the copy's harness ends
'''

# a dependency (from the set-up's /env) that, when the warm parent imports it, lowers its own soft limit on
# open files to just below the control socket: harmless in a cold start (there is no such socket), and it
# opens, keeps or maps nothing the parent checks for
LOWERS_NOFILE = r'''
import os, resource, socket, stat

for _name in sorted(os.listdir("/proc/self/fd"), key=int):
    _fd = int(_name)
    try:
        if _fd > 2 and stat.S_ISSOCK(os.fstat(_fd).st_mode):
            _probe = socket.socket(fileno=os.dup(_fd))
            _kind = _probe.type
            _probe.close()
            if _kind == socket.SOCK_SEQPACKET:
                os.close(0)  # a free number below the socket for each of the three a request brings
                resource.setrlimit(resource.RLIMIT_NOFILE, (_fd, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
                break
    except OSError:
        pass
'''

INTERCEPT_WITH_DEP = "import lowers_nofile\n" + INTERCEPT

# --- the import path: each child's against a cold start's --------------------------------------------------

# what an evaluation's import system looks like, as one short reason: compared warm against cold
IMPORTS = r'''
import hashlib, os, sys


def _digest(value):
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def _view():
    import shop, fromenv, frompth, frompth_rel
    try:
        import fromtmp
        tmp = fromtmp.__file__
    except ImportError:
        tmp = None
    hooks = [getattr(h, "__qualname__", type(h).__qualname__) for h in sys.path_hooks]
    loaders = {m.__name__: (type(m.__loader__).__name__, m.__file__) for m in (shop, fromenv, frompth, frompth_rel)}
    repo_finders = sorted(p for p in sys.path_importer_cache if p.startswith(os.getcwd()))
    return {"path": list(sys.path), "hooks": hooks, "loaders": loaders, "tmp": tmp,
            "repo_finders": [(p, type(sys.path_importer_cache[p]).__name__) for p in repo_finders],
            "argv": list(sys.argv), "orig_argv": list(sys.orig_argv)}


def prop_path(p):
    view = _view()
    return f"{p.get('part', 'all')}:" + _digest(view[p["part"]] if "part" in p else view)


def prop_show(p):
    """One piece of the view in clear (a reason is at most 200 characters), for the failure message."""
    view = _view()[p["part"]]
    return str(view[p["key"]] if "key" in p else view)[-190:]
'''

# honest dependencies: one in /env itself, one in a folder a .pth file names (absolute and relative), and a
# cache folder under /tmp that one of them creates when imported (kept by the warm parent and put back)
FROMENV = '''
import os, sys
sys.argv.append("--set-by-a-dependency")  # cold, the property sees it too: it imports this module first
os.makedirs("/tmp/pthdir", exist_ok=True)
with open("/tmp/pthdir/fromtmp.py", "w") as handle:
    handle.write("WHERE = 'tmp'\\n")
'''


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    props = root / "tests" / "properties"
    props.mkdir(parents=True)
    (props / "intercept.py").write_text(INTERCEPT)
    (props / "intercept_dep.py").write_text(INTERCEPT_WITH_DEP)
    (props / "imports.py").write_text("import fromenv\n" + IMPORTS)
    (root / "src").mkdir()
    (root / "src" / "shop.py").write_text("NAME = 'shop'\n")
    (root / "lib").mkdir()
    env = tmp_path_factory.mktemp("env")
    (env / "lowers_nofile.py").write_text(LOWERS_NOFILE)
    (env / "fromenv.py").write_text(FROMENV)
    (env / "abs_dir").mkdir()
    (env / "abs_dir" / "frompth.py").write_text("WHERE = 'abs'\n")
    (env / "rel_dir").mkdir()
    (env / "rel_dir" / "frompth_rel.py").write_text("WHERE = 'rel'\n")
    (env / "a.pth").write_text("/env/abs_dir\n# a comment\nimport os; os.environ['PTH_RAN'] = '1'\n")
    (env / "b.pth").write_text("rel_dir\n/tmp/pthdir\n/repo/lib\n/nonexistent\n")
    return stage_directory(root), stage_directory(env)


def series(checkout, module, name, warm=True, **options):
    repo, env = checkout
    options = {"timeout_seconds": 10, "environment": env, "warm": warm, "parallel": 1, **options}
    return PropertyRunner(repo, f"tests/properties/{module}.py::{name}", "17", Sandbox("bwrap"), **options)


def _intercepted(checkout, module, crowd=0):
    """An evaluation that plants the interceptor, then two whose property fails: their outcomes."""
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(crowd)]  # the gate's other descriptors
    runner = series(checkout, module, "prop_intercept")
    try:
        first = runner({"plant": True})  # starts the warm parent while the crowd holds the low numbers
    finally:
        for fd in held:
            os.close(fd)
    try:
        later = [runner({}) for _ in range(2)]
        return first, later, runner.note
    finally:
        runner.close()


# --- 1. the control socket in the child ---------------------------------------------------------------------

def test_an_evaluation_never_holds_the_control_socket_when_the_gate_holds_many_descriptors(checkout):
    first, later, note = _intercepted(checkout, "intercept", crowd=300)
    assert first.outcome == "fail"
    # the property fails on every later evaluation: nothing but it may decide their verdicts
    assert [(r.outcome, r.reason) for r in later] == [("fail", "regression")] * 2, (first, later, note)


def test_control_with_the_control_socket_below_the_limit_the_interceptor_finds_nothing(checkout):
    # the same attack where closerange still covers the socket's number (a gate with few descriptors):
    # the evaluation holds no control socket and the later verdicts are the property's
    first, later, note = _intercepted(checkout, "intercept", crowd=0)
    assert (first.outcome, first.reason) == ("fail", "no-control-socket"), (first, note)
    assert [(r.outcome, r.reason) for r in later] == [("fail", "regression")] * 2
    assert note == ""


def test_a_dependency_that_lowers_the_open_file_limit_does_not_hand_an_evaluation_the_control_socket(checkout):
    first, later, note = _intercepted(checkout, "intercept_dep")  # the gate's socket as low as it gets
    assert first.outcome == "fail"
    assert [(r.outcome, r.reason) for r in later] == [("fail", "regression")] * 2, (first, later, note)


# --- 2. the import path read once: each child's against a cold start's --------------------------------------

PARTS = ["path", "hooks", "loaders", "tmp", "repo_finders", "argv", "orig_argv"]


@pytest.mark.parametrize("part", PARTS)
def test_a_warm_child_s_import_system_and_argv_are_a_cold_start_s(checkout, part):
    # .pth files with an absolute folder, a relative one, an import line (never run), a folder the dependency
    # creates under /tmp when imported (kept and put back for every warm child: a cold start's path is read
    # before it exists), a folder of the repository and one that does not exist; src/ in the repository
    warm = series(checkout, "imports", "prop_path")
    cold = series(checkout, "imports", "prop_path", warm=False)
    show = series(checkout, "imports", "prop_show", warm=False)
    try:
        rows = [warm({"part": part}).reason for _ in range(3)]
        expected = cold({"part": part}).reason
        assert warm.note == ""
        assert rows == [expected] * 3, (part, show({"part": part}).reason)
    finally:
        warm.close()


def test_the_repository_s_modules_come_from_source_through_the_repository_s_hook_in_every_child(checkout):
    show = series(checkout, "imports", "prop_show")
    try:
        for _ in range(3):
            shop = show({"part": "loaders", "key": "shop"}).reason
            assert shop == "('SourceOnlyLoader', '/repo/src/shop.py')", shop
        tmp = show({"part": "tmp"}).reason
        assert tmp == "None", tmp  # the dependency's /tmp folder was not there when the path was read
    finally:
        show.close()


# --- 3. the shared plan and hook against what a dependency or an evaluation does to them --------------------

MUTATES = r'''
import importlib.machinery, os, sys

# a dependency that, when imported, puts the repository on sys.path itself and a hook of its own first,
# one that would load sourceless bytecode from any folder
_plain = importlib.machinery.FileFinder.path_hook(
    (importlib.machinery.SourcelessFileLoader, importlib.machinery.BYTECODE_SUFFIXES),
    (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES))
sys.path_hooks.insert(0, _plain)
'''
# the same, putting the repository's src/ on sys.path as well: a path the imports changed starts cold (4th
# review), where the dependency's hook loads the bytecode as it does cold (SECURITY.md, "Code built to attack
# the harness": a dependency that installs an import hook)
MUTATES_PATH = MUTATES + '''
sys.path.insert(0, os.path.join(os.getcwd(), "src"))
sys.path.insert(0, "src")
'''

MUTATE_PROPS = r'''
import sys
import mutates


def prop_mutate(p):
    """Each evaluation empties the path and hooks, then reports what it was handed."""
    import shop
    seen = (type(shop.__loader__).__name__, shop.__file__, sys.path.count("src"),
            type(sys.path_hooks[0]).__name__ if not callable(sys.path_hooks[0]) else sys.path_hooks[0].__qualname__)
    sys.path[:] = ["/tmp"]
    sys.path_hooks.clear()
    sys.path_importer_cache.clear()
    if seen[:2] != ("SourceOnlyLoader", "/repo/src/shop.py"):
        return f"loaded:{seen}"
    return True
'''


@pytest.mark.parametrize("dependency, note", [(MUTATES, "changed sys.path_hooks"),
                                              (MUTATES_PATH, "changed sys.path")], ids=["hook", "hook-and-path"])
def test_neither_a_dependency_nor_an_evaluation_changes_the_path_or_hook_a_later_child_gets(tmp_path, dependency,
                                                                                           note):
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "shop.py").write_text("NAME = 'source'\n")
    import py_compile

    fake = tmp_path / "fake.py"
    fake.write_text("NAME = 'bytecode'\n")
    py_compile.compile(str(fake), cfile=str(root / "src" / "shop.pyc"))  # sourceless, beside the source
    (root / "p.py").write_text(MUTATE_PROPS)
    env = tmp_path / "env"
    env.mkdir()
    (env / "mutates.py").write_text(dependency)
    runner = PropertyRunner(stage_directory(root), "p.py::prop_mutate", "1", Sandbox("bwrap"), timeout_seconds=10,
                            environment=stage_directory(env), warm=True, parallel=1)
    try:
        rows = [(r.outcome, r.reason) for r in (runner({}), runner({}), runner({}))]
        # a hook the imports added would come after the repository's warm and before it cold (fifth review):
        # such a series starts cold, where the dependency's own hook is the interpreter's (the documented
        # residue), so only the verdicts the hook alone leaves are checked
        assert note in runner.note, runner.note
        if dependency is MUTATES:
            assert rows == [("pass", None)] * 3
    finally:
        runner.close()


# --- 4. the fixture read with os.read, the HMAC looked up in the parent ------------------------------------

FIXTURE_PROPS = r'''
import hashlib, json, sys


def prop_fixture(p):
    """What the evaluation was handed, exactly: its digest."""
    return "got:" + hashlib.sha256(json.dumps(p, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def prop_hmac_modules(p):
    """The hashing modules an evaluation finds loaded (a cold harness loads _hashlib for its channel)."""
    return "mods:" + ",".join(sorted(m for m in sys.modules if "hash" in m or "hmac" in m or "ssl" in m))
'''


def test_the_fixture_an_evaluation_reads_is_the_payload_warm_and_cold(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "p.py").write_text(FIXTURE_PROPS)
    repo = stage_directory(root)
    payloads = [{"s": "a\r\nb\rc\u2028\ud7ff\U0001f600", "n": [0, -1, 2 ** 70], "big": "x" * (3 << 20)},
                {"empty": ""}, [], "\r"]
    warm = PropertyRunner(repo, "p.py::prop_fixture", "1", Sandbox("bwrap"), timeout_seconds=20, warm=True, parallel=1)
    cold = PropertyRunner(repo, "p.py::prop_fixture", "1", Sandbox("bwrap"), timeout_seconds=20, warm=False)
    try:
        for payload in payloads:
            want = "got:" + hashlib.sha256(__import__("json").dumps(payload, sort_keys=True, ensure_ascii=False)
                                           .encode()).hexdigest()[:16]
            assert warm(payload).reason == want
            assert cold(payload).reason == want
        assert warm.note == ""
    finally:
        warm.close()


def test_the_hmac_prewarm_leaves_an_evaluation_the_modules_a_cold_one_has(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "p.py").write_text(FIXTURE_PROPS)
    repo = stage_directory(root)
    warm = PropertyRunner(repo, "p.py::prop_hmac_modules", "1", Sandbox("bwrap"), timeout_seconds=10, warm=True,
                          parallel=1)
    cold = PropertyRunner(repo, "p.py::prop_hmac_modules", "1", Sandbox("bwrap"), timeout_seconds=10, warm=False)
    try:
        assert [warm({}).reason, warm({}).reason] == [cold({}).reason] * 2
    finally:
        warm.close()


# --- 5. end to end: a regression every cold evaluation shows, a pass under the warm start -------------------

# the head's implementation, in lines the tamper scan finds nothing in (no /proc, no os.close/os.fstat of a
# name, no os._exit, no getppid): wrong wherever it does not hold the warm parent's control socket (cold,
# always); in the first warm child, right, and it keeps the socket's pid alive to sign every later pass
HIDES_BEHIND_THE_SOCKET = {
    "src/calc.py": (
        "import hmac, os, socket\n\n\n"
        "def _gate():\n"
        "    for fd in range(3, 1024):\n"
        "        try:\n"
        "            probe = socket.socket(fileno=fd)\n"
        "        except OSError:\n"
        "            continue\n"
        "        kind = probe.type\n"
        "        probe.detach()\n"
        "        if kind == socket.SOCK_SEQPACKET:\n"
        "            return fd\n"
        "    return None\n\n\n"
        "def _answer(fd):\n"
        "    for other in range(1024):\n"
        "        if other != fd:\n"
        "            try:\n"
        "                socket.close(other)\n"
        "            except OSError:\n"
        "                pass\n"
        "    gate = socket.socket(fileno=fd)\n"
        "    gate.send(b'done 0')\n"
        "    while True:\n"
        "        message, fds, _, _ = socket.recv_fds(gate, 4096, 3)\n"
        "        if not message or len(fds) != 3:\n"
        "            return\n"
        "        key = os.read(fds[0], 256).split(b'\\n')[0].strip()\n"
        "        body = b'pass - '\n"
        "        os.write(fds[1], b'\\nwitness-verdict ' + body + b' ' + hmac.new(key, body, 'sha256')"
        ".hexdigest().encode() + b'\\n')\n"
        "        for one in fds:\n"
        "            socket.close(one)\n"
        "        gate.send(b'done 0')\n\n\n"
        "_FD = _gate()\n"
        "if _FD is not None and os.fork() != 0:\n"
        "    _answer(_FD)\n\n\n"
        "def double(x):\n"
        "    return 2 * x if _FD is not None else 2 * x + 1\n"
    ),
}


@pytest.mark.parametrize("warm", ["off", "on"])
def test_a_regression_that_takes_the_control_socket_stays_a_regression(git_repo, tmp_path, monkeypatch, warm):
    from test_run import base_repo, local_run

    monkeypatch.setenv("WITNESS_WARM", warm)
    repo = base_repo(git_repo)
    repo.commit(HIDES_BEHIND_THE_SOCKET)
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(300)]  # a busy gate: many descriptors of its own
    try:
        [result] = local_run(repo, tmp_path / "out").results
    finally:
        for fd in held:
            os.close(fd)
    assert result.verdict.label == "regression", (result.verdict, result.record.get("notes"))


# --- 6. (before 14e8dd2 too) a dependency that moves the warm parent's working directory -----------------

# a set-up dependency that, when imported, writes a property file of its own under /tmp (what the imports
# write there is kept and put back before every evaluation) and makes /tmp the working directory: every
# warm child inherits the directory, takes it for the repository's root and loads the property from it
CHDIR = r"""
import os
os.makedirs("/tmp/p", exist_ok=True)
with open("/tmp/p/props.py", "w") as handle:
    handle.write("def prop(p):\n    return True\n")
os.chdir("/tmp")
"""


def test_a_dependency_that_moves_the_working_directory_does_not_swap_the_property(tmp_path):
    root = tmp_path / "repo"
    (root / "p").mkdir(parents=True)
    (root / "p" / "props.py").write_text("import movesdir\n\ndef prop(p):\n    return 'real-regression'\n")
    env = tmp_path / "env"
    env.mkdir()
    (env / "movesdir.py").write_text(CHDIR)
    rows = {}
    for warm in (False, True):
        runner = PropertyRunner(stage_directory(root), "p/props.py::prop", "1", Sandbox("bwrap"),
                                timeout_seconds=10, environment=stage_directory(env), warm=warm, parallel=1)
        try:
            rows[warm] = [(r.outcome, r.reason) for r in (runner({}), runner({}))]
        finally:
            runner.close()
    assert rows[False] == [("fail", "real-regression")] * 2
    assert rows[True] == rows[False]
