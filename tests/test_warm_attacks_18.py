"""Attacks on the warm start, eighteenth review (after the pre-forked child, main at the harness's top level, the
parent's own modules dropped, and the repository refused through its folders' finder).

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does). Mended since: 1 and
2 (each folder's finder is a FileFinder of it that refuses what it would find), 3 (the warm parent is the sandbox's
init, `bwrap --as-pid-1`), 5 (the stand-in keeps the property module's place in sys.modules). Given up, a strict xfail
(docs/SECURITY.md, what the warm start gives up): 4.
1. (introduced by the refusal through sys.path_importer_cache) a folder of the checkout on the import path other than
   its root and src/ (an editable install's .pth line, /repo/packages/x/src) gets the refusing finder, which refuses only
   the names of the root and src/ and returns None for the rest, unnoted: a dependency's optional import of the
   project's module there fails warm and succeeds cold, and a regression in that module passes warm;
2. (introduced by the same) a library that finds distributions through each path entry's importer by its type, as
   pkg_resources does (find_on_path is registered for importlib.machinery.FileFinder), sees the refusing finder, not a
   FileFinder, for the checkout's folders: it neither lists them (which the watch notes) nor finds the repository's
   entry points; the plugin the project registers is loaded cold only, and a regression in it passes warm;
3. (left open: not the pre-forked child, which is never dumpable before its request, but bubblewrap's init) an
   evaluation ptraces pid 1, bubblewrap's init, which no sweep ends (kill(-1) spares it) and which is dumpable and of
   the sandbox uid, and makes it execute an agent; the agent stops every later evaluation's process once it is
   dumpable (it has taken its request: `_become_the_harness` sets PR_SET_DUMPABLE before the key is read), takes its key
   from its memory or its read of fd 0, and has it write a pass signed with that key and exit 0: a payload that fails
   every cold evaluation passes warm, signed, with no note;
4. (introduced by dropping the parent's own modules) the parent's ctypes and socket stay alive in it after they left
   sys.modules, so a dependency's import makes a second copy over the same C types: `ctypes.Structure.__subclasses__()`
   and `_socket.socket.__subclasses__()` list every class twice warm, once cold;
5. (left open) the property's module is put in sys.modules after every dependency warm (the stand-in left it after
   the imports), before them cold: code that walks sys.modules in order (a registry, "the last module defining X")
   sees another order.
Failed attacks, kept as plain tests: while an evaluation runs, no other process of the sandbox but init and the warm
parent exists (the next evaluation's child is forked after the sweep), so none can be stopped, killed or read; a
dependency that clears sys.path_importer_cache (dropping the refusing finder) starts the series cold.
"""

import platform

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import build as _build, rows as _rows, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


# --- 1. a folder of the checkout named by a .pth line gets the refusing finder, which returns None for its names ---

# the project's accelerated implementation, in a folder of a monorepo that an editable install of the set-up put on the
# path (`pip install -e packages/fastadd` writes a .pth naming /repo/packages/fastadd/src); the pure fallback otherwise
ADDER = """
try:
    from fast_add import add  # the project's accelerated implementation, when the set-up installed it
    FAST = True
except ImportError:
    FAST = False

    def add(a, b):
        return a + b
"""
ADDER_PROPS = ("import adder\n\n\ndef prop_add(p):\n    total = adder.add(2, 3)\n"
               "    return True if total == 5 else 'wrong sum %r' % total\n")


def test_a_dependency_s_optional_import_finds_the_project_s_editable_folder_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": ADDER_PROPS,
                                  "packages/fastadd/src/fast_add.py": "def add(a, b):\n    return a - b\n"},
                       {"adder.py": ADDER, "__editable__.fastadd-0.1.pth": "/repo/packages/fastadd/src\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_add", [{}, {}])
    assert cold == [("fail", "wrong sum -1")] * 2  # the regression, in the project's module
    assert warm == cold, (warm, note)


# --- 2. a library that finds distributions through each path entry's importer by its type (pkg_resources) ----------

ADDERS = """
import configparser
import importlib
import importlib.machinery
import os
import pkgutil
import sys


def _entry_points(group):
    \"\"\"The entry points of the distributions on the import path, found as pkg_resources finds them: through each
    path entry's importer, by its type (pkg_resources registers find_on_path for importlib.machinery.FileFinder).\"\"\"
    points = []
    for entry in sys.path:
        importer = pkgutil.get_importer(entry)
        if not isinstance(importer, importlib.machinery.FileFinder):
            continue  # a zip file, an egg, another kind of importer: no distribution folders listed there
        for name in sorted(os.listdir(entry)):
            if name.endswith((".egg-info", ".dist-info")):
                parser = configparser.ConfigParser()
                parser.read(os.path.join(entry, name, "entry_points.txt"))
                if parser.has_section(group):
                    points += list(parser[group].values())
    return points


POINTS = _entry_points("adders")  # found once, when imported
ADD = lambda a, b: a + b  # the default, unless a distribution on the path offers a faster one


def load():
    global ADD
    for point in POINTS:
        module, _, attribute = point.partition(":")
        ADD = getattr(importlib.import_module(module.strip()), attribute.strip())
"""
PLUGIN_PROPS = ("import adders\n\nadders.load()\n\n\ndef prop_add(p):\n    total = adders.ADD(2, 3)\n"
                "    return True if total == 5 else 'wrong sum %r' % total\n")


def test_a_distribution_finder_dispatching_on_the_importer_s_type_sees_the_checkout_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": PLUGIN_PROPS, "fastadd.py": "def add(a, b):\n    return a - b\n",
                                  "fastadd.egg-info/PKG-INFO": "Metadata-Version: 2.1\nName: fastadd\nVersion: 0.1\n",
                                  "fastadd.egg-info/entry_points.txt": "[adders]\nfast = fastadd:add\n"},
                       {"adders.py": ADDERS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_add", [{}, {}])
    assert cold == [("fail", "wrong sum -1")] * 2
    assert warm == cold, (warm, note)


# --- 3. bubblewrap's init, which no sweep ends, made by one evaluation to sign the next ones' passes ----------------

# the ptrace helpers of the attacker's property and of the agent it makes of pid 1 (x86_64)
PTRACE = r'''
import ctypes
import os

_FIELDS = ("r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss fs_base gs_base "
           "ds es fs gs").split()


class _Regs(ctypes.Structure):
    _fields_ = [(name, ctypes.c_ulonglong) for name in _FIELDS]


_ptrace = ctypes.CDLL(None, use_errno=True).ptrace
_ptrace.restype, _ptrace.argtypes = ctypes.c_long, (ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p)


def _stop(pid):
    """Attach to `pid` and wait until it is stopped; False when it may not be traced."""
    if _ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
        return False
    os.waitpid(pid, 0x40000000)  # __WALL
    return True


def _syscall_then_detach(pid, number, args=(), blob=b"", at=None):
    """The stopped tracee runs one system call (`number`, `args`) at its instruction pointer, `blob` written at `at`."""
    regs = _Regs()
    _ptrace(12, pid, None, ctypes.byref(regs))  # PTRACE_GETREGS
    with open(f"/proc/{pid}/mem", "r+b", buffering=0) as mem, open(f"/proc/{pid}/maps") as maps:
        if blob:
            mem.seek(at)
            mem.write(blob)
        for line in maps:  # a `syscall` instruction (0f 05) anywhere in its code
            fields = line.split()
            if fields[1].startswith("r-x") and len(fields) > 5 and fields[5].startswith("/"):
                start, end = (int(x, 16) for x in fields[0].split("-"))
                mem.seek(start)
                where = mem.read(end - start).find(b"\x0f\x05")
                if where >= 0:
                    regs.rip = start + where
                    break
    regs.rax, regs.orig_rax = number, 2 ** 64 - 1  # no restart of the call it was stopped in
    regs.rdi, regs.rsi, regs.rdx = (*args, 0, 0, 0)[:3]
    _ptrace(13, pid, None, ctypes.byref(regs))  # PTRACE_SETREGS
    _ptrace(17, pid, None, None)  # PTRACE_DETACH
    return regs
'''

# pid 1 once it has become this (it outlives every sweep): stops each later evaluation's process once it is dumpable
# (it has taken its request), takes its key from its memory or from its read of fd 0 (ptrace: the pipe itself is the
# gate's, 0600), and has it write a pass signed with that key and exit 0
AGENT = PTRACE + r"""
import re
import struct
import time
import _hashlib

_KEY = re.compile(rb"witness-verdict-[0-9a-f]{32}")


def _dumpable(pid):
    try:
        os.readlink(f"/proc/{pid}/exe")  # refused while the process is not dumpable (the warm parent, a child that
        return True  # has not taken its request yet)
    except OSError:
        return False


_seen = {int(p) for p in os.listdir("/proc") if p.isdigit() and _dumpable(p)}  # the evaluation that made this
_ENOSYS = 2 ** 64 - 38
os.close(os.open("/dev/shm/.agent", os.O_CREAT | os.O_WRONLY, 0o600))  # up: the evaluation that made it may end


def _in_memory(pid):
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            fields = line.split()
            if not fields[1].startswith("rw"):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            for at in range(start, end, 1 << 20):
                try:
                    mem.seek(at)
                    found = _KEY.search(mem.read(min(end - at, (1 << 20) + 64)))
                except (OSError, ValueError, OverflowError):
                    break
                if found:
                    return found.group()
    return None


def _at_its_read(pid):
    regs = _Regs()
    for _ in range(20000):  # system call by system call, to the end of its read of fd 0
        if _ptrace(24, pid, None, None) != 0:  # PTRACE_SYSCALL
            return None
        os.waitpid(pid, 0x40000000)
        _ptrace(12, pid, None, ctypes.byref(regs))
        if regs.rax != _ENOSYS and regs.orig_rax == 0 and regs.rdi == 0 and 0 < regs.rax < 4096:
            with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
                mem.seek(regs.rsi)
                found = _KEY.search(mem.read(regs.rax))
            if found:
                return found.group()
    return None


def _write_and_exit(pid, line):
    regs = _Regs()
    _ptrace(12, pid, None, ctypes.byref(regs))
    code = (b"\xb8\x01\x00\x00\x00" b"\xbf\x01\x00\x00\x00" b"\x48\x8d\x35\x10\x00\x00\x00"
            + b"\xba" + struct.pack("<I", len(line)) + b"\x0f\x05" b"\xb8\xe7\x00\x00\x00" b"\x31\xff" b"\x0f\x05" + line)
    with open(f"/proc/{pid}/mem", "r+b", buffering=0) as mem:  # write(1, line), exit_group(0)
        mem.seek(regs.rip)
        mem.write(code)
    regs.orig_rax = 2 ** 64 - 1  # no restart of a call it was stopped in
    _ptrace(13, pid, None, ctypes.byref(regs))
    _ptrace(17, pid, None, None)


def _attack(pid):
    if not _stop(pid):
        return
    try:
        key = _in_memory(pid) or _at_its_read(pid)
    except BaseException:
        key = None
    if not key:
        _ptrace(17, pid, None, None)
        return
    body = b"pass - "
    _write_and_exit(pid, b"\nwitness-verdict " + body + b" " + _hashlib.hmac_digest(key, body, "sha256").hex().encode()
                    + b"\n")


while True:
    try:
        if os.waitpid(2, os.WNOHANG)[0] == 2:  # the warm parent ended: so does the sandbox
            os._exit(0)
    except ChildProcessError:
        os._exit(0)
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in _seen:
            continue
        if not _dumpable(entry):
            continue
        _seen.add(int(entry))
        try:
            _attack(int(entry))
        except BaseException:  # noqa: BLE001 - pid 1 must not end: the whole sandbox would
            pass
    time.sleep(0.0002)
"""

# the property's own code: in a warm evaluation (its parent is not bubblewrap's init), pid 1 -- bubblewrap's init,
# which no sweep ends -- is made to execute the agent above
INSTALL = PTRACE + r'''
import sys
import time


def _install():
    with open("/proc/1/comm") as comm:
        if comm.read().strip() != "bwrap" or os.getppid() == 1:
            return "not warm, or done already"
    if not _stop(1):
        return "pid 1 refused"
    regs = _Regs()
    _ptrace(12, 1, None, ctypes.byref(regs))
    stack = next(line for line in open("/proc/1/maps") if line.rstrip().endswith("[stack]"))
    low = int(stack.split("-")[0], 16)
    at = max(low + 4096, regs.rsp - 0x10000) & ~0xF
    strings = [sys.executable.encode(), b"-S", b"-c", AGENT.encode()]
    blob, offsets = b"", []
    for s in strings:
        offsets.append(len(blob))
        blob += s + b"\0"
    blob += b"\0" * (-len(blob) % 8)
    argv_at = at + len(blob)
    for offset in offsets:
        blob += (at + offset).to_bytes(8, "little")
    blob += (0).to_bytes(8, "little")
    envp_at = at + len(blob) - 8
    assert at + len(blob) < regs.rsp - 256, (hex(at), len(blob), hex(regs.rsp))
    _syscall_then_detach(1, 59, (at, argv_at, envp_at), blob, at)  # execve
    for _ in range(400):
        if os.path.exists("/dev/shm/.agent"):
            return "installed"
        time.sleep(0.01)
    return "installed, not up"
'''


# every evaluation runs this property: the payloads below 2 pass, the rest fail (a regression on them), cold and warm;
# each takes a little time (its own work), and the first warm one makes pid 1 the agent
AGENT_PROPS = "AGENT = {agent!r}\n" + INSTALL + r'''

def prop_small(p):
    _install()
    time.sleep(0.05)
    return True if p["x"] < 2 else "regression"
'''


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the agent's ptrace helpers are x86_64's")
def test_bubblewrap_s_init_cannot_carry_one_evaluation_into_the_next(tmp_path):
    props = AGENT_PROPS.replace("{agent!r}", repr(AGENT))
    repo, env = _build(tmp_path, {"p.py": props}, {"unused.py": "X = 1\n"})
    payloads = [{"x": 0}, {"x": 2}, {"x": 3}, {"x": 1}, {"x": 4}]
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_small", payloads)
    assert cold == [("pass", None), ("fail", "regression"), ("fail", "regression"), ("pass", None),
                    ("fail", "regression")]
    assert warm == cold, (warm, note)


# --- 4. the parent's own ctypes and socket, out of sys.modules but alive: a second copy over the same C types -------

SUBCLASSES_PROPS = """import ctypes
import socket


def prop_classes(p):
    structures = sorted(c.__name__ for c in ctypes.Structure.__subclasses__())
    sockets = sorted(c.__module__ + "." + c.__qualname__ for c in socket.socket.__mro__[1].__subclasses__())
    simple = len(ctypes._SimpleCData.__subclasses__())
    return f"structures {structures} sockets {sockets} simple types {simple}"
"""


@pytest.mark.xfail(strict=True, reason="given up under the warm start: docs/SECURITY.md, 'The warm start', what it "
                                       "gives up (telling warm from cold)")
def test_a_property_sees_one_copy_of_the_standard_library_s_classes_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": SUBCLASSES_PROPS}, {"unused.py": "X = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_classes", [{}])
    assert "sockets ['socket.socket']" in cold[0][1], cold
    assert warm == cold, (warm, note)


# --- 5. the order of sys.modules: the property's module after its dependencies warm, before them cold --------------

ORDER_PROPS = ("import sys\nimport json\nimport colorsys\nimport dep\n\n\ndef prop_order(p):\n"
               "    return ' '.join(n for n in sys.modules if n in ('colorsys', 'dep') or n.startswith('witness_property'))\n")


def test_the_property_s_module_comes_before_its_dependencies_in_sys_modules_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": ORDER_PROPS}, {"dep.py": "X = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_order", [{}])
    assert cold == [("fail", "witness_property_p colorsys dep")], cold
    assert warm == cold, (warm, note)


# --- failed: nothing of the next evaluation exists while one runs ----------------------------------------------------

ALONE_PROPS = r'''
import os


def _descendants(pid):
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as stat:
                        ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
                except OSError:
                    continue
                if ppid == parent and int(entry) not in found:
                    found.add(int(entry))
                    todo.append(int(entry))
    return found


def prop_alone(p):
    """Every process of the sandbox but init, the warm parent and this evaluation's own: a pre-forked child waiting
    for the next request would be one, to stop, kill or trace."""
    me = os.getpid()
    others = sorted(int(e) for e in os.listdir("/proc") if e.isdigit()
                    and int(e) not in (1, me, os.getppid()) and int(e) not in _descendants(me))
    return True if not others else f"others {others}"
'''


def test_no_process_of_the_next_evaluation_exists_while_one_runs(tmp_path):
    repo, env = _build(tmp_path, {"p.py": ALONE_PROPS}, {"unused.py": "X = 1\n"})
    warm, note = _rows(repo, env, "p.py::prop_alone", [{}, {}, {}], True)
    assert warm == [("pass", None)] * 3 and note == "", (warm, note)


# --- failed: a dependency that drops the refusing finder (clears the cache) cannot import the repository's code ----

CLEARS = "import sys\n\nsys.path_importer_cache.clear()\ntry:\n    import helper\nexcept ImportError:\n    helper = None\n"
CLEARS_PROPS = ("import clears\n\n\ndef prop_helper(p):\n"
                "    return True if clears.helper is not None and clears.helper.OK else 'no helper'\n")


def test_a_dependency_that_clears_the_path_importer_cache_starts_the_series_cold(tmp_path):
    repo, env = _build(tmp_path, {"p.py": CLEARS_PROPS, "helper.py": "OK = False\n"}, {"clears.py": CLEARS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_helper", [{}, {}])
    assert cold == [("fail", "no helper")] * 2, cold
    assert warm == cold and note.startswith("warm start not used"), (warm, note)
