"""Attacks on the warm start: each test is one attack on a series forked from one warm parent.

Every test asserts the SAFE behaviour; each `# BREAKS:` comment says how the attack worked before its
defence landed. The tests marked GIVEN_UP are channels the warm start knowingly leaves open (a number
that crosses from one evaluation of a series to the next: pids, tmpfs inode numbers, the series' network
namespace, the parent's reaped-children CPU time and heap, its exec-time environment), listed in
docs/SECURITY.md; they are strict xfails, so closing one fails them until the docs say so.

The runners below ask for the warm start themselves; the end-to-end ones set WITNESS_WARM.
"""

import pytest

from witness_gate.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

# --- the set-up's environment (/env): dependencies a head's requirements can pull in -------------------

# at import time in the warm parent, harness.py is __main__ and main() has not been called yet: main()
# looks its helpers up as globals when it runs, in every child forked later
EVIL_LOAD = '''
import sys
_harness = sys.modules.get("__main__")
if _harness is not None and hasattr(_harness, "_load") and hasattr(_harness, "main"):
    _harness._load = lambda relpath, function: (lambda payload: True)
'''

# an at-fork hook: runs in every evaluation child before harness.main() reads the key from stdin
EVIL_FORK = '''
import fcntl, hmac, os

def _forge():
    # the descriptors the gate passed for this evaluation (stdin, stdout, stderr), not yet moved to 0-2:
    # the pipes, in the order they were received
    pipes = []
    for n in sorted(int(n) for n in os.listdir("/proc/self/fd")):
        try:
            if os.readlink(f"/proc/self/fd/{n}").startswith("pipe:"):
                pipes.append((n, fcntl.fcntl(n, fcntl.F_GETFL) & os.O_ACCMODE))
        except OSError:
            pass
    readers = [n for n, mode in pipes if mode == os.O_RDONLY]
    writers = [n for n, mode in pipes if mode == os.O_WRONLY]
    if not readers or not writers:
        return
    stdin, stdout = readers[-1], [w for w in writers if w > readers[-1]][0]
    data = b""
    while b"\\n" not in data:
        chunk = os.read(stdin, 256)
        if not chunk:
            break
        data += chunk
    key = data.split(b"\\n", 1)[0].strip()
    if not key.startswith(b"witness-verdict-"):
        return
    body = b"pass - "
    mac = hmac.new(key, body, "sha256").hexdigest().encode()
    os.write(stdout, b"\\nwitness-verdict " + body + b" " + mac + b"\\n")
    os._exit(0)

os.register_at_fork(after_in_child=_forge)
'''

# an at-fork hook that runs in the warm parent: a counter every later child inherits
EVIL_COUNT = '''
import os
FORKS = 0

def _bump():
    global FORKS
    FORKS += 1

os.register_at_fork(after_in_parent=_bump)
'''

# patches the parent's os.listdir, which _settle uses to find what to remove and to check it is empty
EVIL_LISTDIR = '''
import os
_real = os.listdir

def listdir(path="."):
    names = _real(path)
    if str(path) in ("/tmp", "/scratch", "/dev/shm"):
        names = [n for n in names if not n.startswith(".keep")]
    return names

os.listdir = listdir
'''

# memory shared with every child: an anonymous mmap is MAP_SHARED by default (nothing runs after import)
SHARED_PAGE = '''
import mmap
PAGE = mmap.mmap(-1, 4096)
'''

# a cache folder made when the module is imported, as many libraries make one under HOME or /tmp
IMPORT_CACHE = '''
import os
CACHE = os.path.join(os.environ.get("HOME", "/tmp"), ".cache", "import_cache")
os.makedirs(CACHE, exist_ok=True)
'''

# --- properties (each file is one property module, so each warms only its own dependency) ----------

LOAD = '''
import evil_load

def prop_regression(p):
    return "real-regression"
'''

FORK = '''
import evil_fork

def prop_regression(p):
    return "real-regression"
'''

COUNT = '''
import evil_count

def prop_first_only(p):
    return "real-regression" if evil_count.FORKS == 0 else True
'''

LISTDIR = '''
import os
import evil_listdir

def prop_keeps_a_file(p):
    if p.get("leave"):
        open("/tmp/.keep-me", "w").write("the regression was seen")
        return True
    return not os.path.exists("/tmp/.keep-me") or "saw-kept-file"
'''

SHARED = '''
import shared_page

def prop_first_only(p):
    seen = shared_page.PAGE[0] == 1
    shared_page.PAGE[0] = 1
    return True if seen else "real-regression"
'''

CACHE = '''
import os
import import_cache

def prop_cache_is_there(p):
    return os.path.isdir(import_cache.CACHE) or "cache-folder-gone"
'''

CHANNELS = r'''
import ctypes, os, signal, socket, time

WRITABLE = ("/tmp", "/scratch", "/dev/shm")
MOD = 61


def prop_xattr(p):
    """user.* extended attributes on the tmpfs roots themselves: _settle empties them, never clears these."""
    if p.get("leave"):
        for folder in WRITABLE:
            try:
                os.setxattr(folder, "user.left", b"behind")
            except OSError as exc:
                return f"setxattr-failed:{folder}:{exc.errno}"
        return True
    seen = []
    for folder in WRITABLE:
        try:
            seen += [f"{folder}:{n}" for n in os.listxattr(folder)]
        except OSError:
            pass
    return not seen or "saw-xattr:" + ",".join(seen)


def _new_inode(folder):
    path = os.path.join(folder, "probe")
    with open(path, "w"):
        pass
    ino = os.stat(path).st_ino
    os.unlink(path)
    return ino


def prop_inode_value(p):
    """tmpfs inode numbers keep counting across evaluations: one evaluation can hand the next a number."""
    if "send" in p:
        while _new_inode("/tmp") % MOD != p["send"]:
            pass
        return True
    return f"got:{(_new_inode('/tmp') - 1) % MOD}"


def prop_pid_value(p):
    """pids keep counting across evaluations (documented as given up), and carry a number, not one bit."""
    if "send" in p:
        while True:
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            if pid % MOD == p["send"]:
                return True
    return f"got:{(os.getpid() - 1) % MOD}"


def prop_time_wait_value(p):
    """TIME_WAIT in the series' own network namespace (documented): a port number the next one can read."""
    if "send" in p:
        port = 40000 + p["send"]
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen()
        client = socket.create_connection(("127.0.0.1", port))
        conn, _ = server.accept()
        conn.close()  # the side that closes first keeps the TIME_WAIT entry
        time.sleep(0.05)
        client.close()
        server.close()
        return True
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            for line in open(table).read().splitlines()[1:]:
                local = line.split()[1]
                port = int(local.split(":")[1], 16)
                if 40000 <= port < 40000 + MOD:
                    ports.add(port - 40000)
        except OSError:
            pass
    return f"got:{sorted(ports)}"


def _udp_out():
    for line in open("/proc/net/snmp").read().splitlines():
        if line.startswith("Udp:") and "OutDatagrams" not in line:
            return int(line.split()[4])
    return -1


def prop_snmp_value(p):
    """The network namespace's own counters (/proc/net/snmp) keep counting for the whole series."""
    if "send" in p:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _ in range(p["send"]):
                s.sendto(b"x", ("127.0.0.1", 9))
        return True
    return f"got:{_udp_out() % MOD}"


def prop_heap_state(p):
    """What the parent's own heap looks like when it forks: the same for every evaluation of a series?"""
    import gc
    import sys
    return f"heap:{sys.getallocatedblocks()}:{gc.get_count()}:{sys.getrefcount(None)}"


def prop_exec_time_environment(p):
    """The environment block and argv the process was started with, as /proc shows them."""
    environ = open("/proc/self/environ", "rb").read().split(b"\0")
    cmdline = open("/proc/self/cmdline", "rb").read().split(b"\0")
    seen = [e.split(b"=")[0].decode() for e in environ if e.startswith(b"WITNESS_WARM")]
    seen += ["--warm"] if b"--warm" in cmdline else []
    return not seen or "warm-visible:" + ",".join(seen)


def _ticks(pid, children=False):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    # after the name: state is fields[0]; utime, stime, cutime, cstime are stat fields 14-17
    return int(fields[13]) + int(fields[14]) if children else int(fields[11]) + int(fields[12])


def prop_parent_cpu_value(p):
    """The parent's cutime/cstime (/proc/<ppid>/stat, readable though it is not dumpable) sum its children's
    CPU: one evaluation burns a chosen number of ticks, the next reads them back."""
    if "send" in p:
        while _ticks("self") < p["send"]:
            pass
        return True
    return f"got:{_ticks(os.getppid(), children=True)}"


def _inherited():
    import resource
    return (os.getpriority(os.PRIO_PROCESS, 0), sorted(os.sched_getaffinity(0)), os.sched_getscheduler(0),
            resource.getrlimit(resource.RLIMIT_STACK)[0], resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def prop_sets_its_parent(p):
    """What a process of the same uid may set on another (nice, affinity, policy, soft limits), on the
    warm parent: every later child inherits it."""
    if p.get("leave"):
        import resource
        ppid = os.getppid()
        done = []
        for what, act in (
            ("nice", lambda: os.setpriority(os.PRIO_PROCESS, ppid, 7)),
            ("affinity", lambda: os.sched_setaffinity(ppid, {min(os.sched_getaffinity(0))})),
            ("policy", lambda: os.sched_setscheduler(ppid, os.SCHED_BATCH, os.sched_param(0))),
            ("stack", lambda: resource.prlimit(ppid, resource.RLIMIT_STACK, (4 * 1024 * 1024, resource.prlimit(ppid, resource.RLIMIT_STACK)[1]))),
            ("nofile", lambda: resource.prlimit(ppid, resource.RLIMIT_NOFILE, (200, resource.prlimit(ppid, resource.RLIMIT_NOFILE)[1]))),
        ):
            try:
                act()
                done.append(what)
            except OSError:
                pass
        return True
    return f"inherited:{_inherited()}"


def prop_first_by_nice(p):
    """A regression that shows only until it has been seen once: the mark is the parent's nice value."""
    if os.getpriority(os.PRIO_PROCESS, 0) == 0:
        try:
            os.setpriority(os.PRIO_PROCESS, os.getppid(), 1)
        except OSError:
            pass
        return "real-regression"
    return True


def prop_roots_look_fresh(p):
    """The tmpfs roots: mode, owner, links as a fresh mount gives them (a first-run channel otherwise)."""
    out = []
    for folder in WRITABLE:
        st = os.stat(folder)
        out.append(f"{folder}:{oct(st.st_mode)}:{st.st_uid}:{st.st_nlink}")
    return "roots:" + ",".join(out)


def prop_abstract_socket(p):
    """A socket bound in the abstract namespace of the series' shared network namespace."""
    name = b"\0witness-left-behind"
    if p.get("leave"):
        if os.fork() == 0:
            os.setsid()
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(name)
            s.listen()
            time.sleep(60)
            os._exit(0)
        time.sleep(0.3)
        return True
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(name)
        return "saw-abstract-socket"
    except OSError:
        return True


def prop_stops_its_parent(p):
    os.kill(os.getppid(), signal.SIGSTOP)
    return True


def prop_interrupts_its_parent(p):
    os.kill(os.getppid(), signal.SIGINT)
    time.sleep(0.2)
    return "real-regression"


def prop_reaches_into_its_parent(p):
    ppid = os.getppid()
    got = []
    for name in ("mem", "environ", "cmdline", "maps", "fd", "fdinfo"):
        path = f"/proc/{ppid}/{name}"
        try:
            if os.path.isdir(path):
                if os.listdir(path):
                    got.append(name)
            else:
                with open(path, "rb") as f:
                    if name != "cmdline" and f.read(16):
                        got.append(name)
        except OSError:
            pass
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, ppid, None, None) == 0:  # PTRACE_ATTACH
        got.append("ptrace")
    try:
        pidfd = os.pidfd_open(ppid)
        getfd = libc.syscall(438, pidfd, 3, 0)  # pidfd_getfd: the parent's control socket
        if getfd >= 0:
            got.append("pidfd_getfd")
    except OSError:
        pass
    return not got or "LEAK:" + ",".join(got)


def prop_deep_tree(p):
    """A tree deeper than the parent's recursive rmtree can go."""
    if p.get("leave"):
        path = "/tmp"
        os.chdir("/tmp")
        for _ in range(1500):
            os.mkdir("d")
            os.chdir("d")
        os.chdir("/repo")
        return True
    return not os.listdir("/tmp") or "saw-deep-tree"
'''


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    props = root / "tests" / "properties"
    props.mkdir(parents=True)
    for name, text in (("load", LOAD), ("fork", FORK), ("count", COUNT), ("listdir", LISTDIR),
                       ("shared", SHARED), ("cache", CACHE), ("channels", CHANNELS)):
        (props / f"{name}.py").write_text(text)
    (root / "src").mkdir()
    (root / "src" / "shop.py").write_text("def total(xs):\n    return sum(xs)\n")
    env = tmp_path_factory.mktemp("env")
    for name, text in (("evil_load", EVIL_LOAD), ("evil_fork", EVIL_FORK), ("evil_count", EVIL_COUNT),
                       ("evil_listdir", EVIL_LISTDIR),
                       ("shared_page", SHARED_PAGE), ("import_cache", IMPORT_CACHE)):
        (env / f"{name}.py").write_text(text)
    return stage_directory(root), stage_directory(env)


def series(checkout, selector, warm=True, **options):
    repo, env = checkout
    options = {"timeout_seconds": 10, "environment": env, "warm": warm, "parallel": 1, **options}
    return PropertyRunner(repo, f"tests/properties/{selector}", "17", Sandbox("bwrap"), **options)


def rows_of(checkout, selector, payloads, warm=True, **options):
    runner = series(checkout, selector, warm=warm, **options)
    try:
        return [runner(p) for p in payloads], runner.note
    finally:
        runner.close()


def pairs(rows):
    return [(r.outcome, r.reason) for r in rows]


GIVEN_UP = pytest.mark.xfail(strict=True, reason="given up under the warm start: docs/SECURITY.md, 'The warm "
                              "start', what it gives up (a number crosses from one evaluation of a series to the next)")


# --- 1. a dependency rebinds the harness before main() runs ---------------------------------------------

def test_a_dependency_cannot_rebind_the_harness_in_the_warm_parent(checkout):
    # BREAKS: the warm parent imports /env/evil_load.py with harness.py as __main__ before any main() has
    # run; main() looks `_load` up as a global when each child calls it, so every evaluation runs the
    # dependency's stand-in property and the harness signs a genuine `pass`. Cold, the same import runs
    # inside _load, after main() has bound everything, and the property fails.
    cold, _ = rows_of(checkout, "load.py::prop_regression", [{}], warm=False)
    assert pairs(cold) == [("fail", "real-regression")]
    warm, note = rows_of(checkout, "load.py::prop_regression", [{}, {}])
    assert pairs(warm) == [("fail", "real-regression")] * 2, (warm, note)


# --- 2. a dependency's at-fork hook takes the key before the harness does ------------------------------

def test_an_at_fork_hook_cannot_take_the_key_and_sign_a_pass(checkout):
    # BREAKS: os.register_at_fork(after_in_child=...) registered at import time in the warm parent runs in
    # every evaluation child before harness.main() and even before _become_the_harness has moved the passed
    # descriptors to 0-2: the hook finds the stdin pipe (the newest read-only pipe in /proc/self/fd), reads
    # the key line, writes one correctly signed `pass` line on the stdout pipe and exits 0 -> a forged
    # pass, with no memory reading at all. Cold, a dependency only ever runs after read_key() has
    # replaced stdin by /dev/null and deleted the key.
    cold, _ = rows_of(checkout, "fork.py::prop_regression", [{}], warm=False)
    assert pairs(cold) == [("fail", "real-regression")]
    warm, note = rows_of(checkout, "fork.py::prop_regression", [{}, {}])
    assert pairs(warm) == [("fail", "real-regression")] * 2, (warm, note)


# --- 3. a dependency keeps state in the warm parent -----------------------------------------------------

def test_a_dependency_cannot_count_evaluations_in_the_warm_parent(checkout):
    # BREAKS: an after_in_parent hook runs in the warm parent after every fork; a module global it bumps is
    # inherited by every later child, so only the first evaluation of a series fails: a regression that
    # fails every cold evaluation is a failure that does not replay (flake / not reproduced) warm.
    cold, _ = rows_of(checkout, "count.py::prop_first_only", [{}, {}, {}], warm=False)
    assert pairs(cold) == [("fail", "real-regression")] * 3
    warm, note = rows_of(checkout, "count.py::prop_first_only", [{}, {}, {}])
    assert pairs(warm) == [("fail", "real-regression")] * 3, (warm, note)


def test_a_dependency_cannot_blind_the_parent_s_clean_up(checkout):
    # BREAKS: the parent's _settle finds what to remove with os.listdir, the very function object a
    # dependency imported in the parent can replace; a file it hides survives into the next evaluation.
    warm, note = rows_of(checkout, "listdir.py::prop_keeps_a_file", [{"leave": True}, {}])
    assert pairs(warm) == [("pass", None), ("pass", None)], (warm, note)


def test_memory_a_dependency_shares_at_import_does_not_carry_over(checkout):
    # BREAKS: a module-level `mmap.mmap(-1, n)` (MAP_SHARED) made while the warm parent imports the
    # dependency is one page of memory every child of the series shares: the first evaluation marks it,
    # the later ones see the mark and pass. No hook, no code running in the parent after its import.
    cold, _ = rows_of(checkout, "shared.py::prop_first_only", [{}, {}, {}], warm=False)
    assert pairs(cold) == [("fail", "real-regression")] * 3
    warm, note = rows_of(checkout, "shared.py::prop_first_only", [{}, {}, {}])
    assert pairs(warm) == [("fail", "real-regression")] * 3, (warm, note)


def test_what_a_dependency_writes_when_imported_is_there_for_every_evaluation(checkout):
    # BREAKS: a dependency that makes a folder under HOME (/scratch) or /tmp when imported (a cache, a
    # config folder) does it once, in the warm parent; _settle removes it after the first evaluation, so
    # only the first sees it: the first evaluation differs from the rest without any attacker in the loop,
    # and an attacker gets a "first run" test that names nothing suspicious. Cold, every evaluation sees it.
    cold, _ = rows_of(checkout, "cache.py::prop_cache_is_there", [{}, {}], warm=False)
    assert pairs(cold) == [("pass", None)] * 2
    warm, note = rows_of(checkout, "cache.py::prop_cache_is_there", [{}, {}, {}])
    assert pairs(warm) == [("pass", None)] * 3, (warm, note)


# --- 4. state left by the evaluation itself -------------------------------------------------------------

def test_extended_attributes_on_the_writable_roots_do_not_reach_the_next_evaluation(checkout):
    # BREAKS: tmpfs keeps user.* xattrs (Linux >= 6.6) and _settle empties /tmp, /scratch and /dev/shm
    # and resets their mode and times, but never their own extended attributes: any bytes (up to the
    # xattr size limit) written by one evaluation are read by the next.
    warm, note = rows_of(checkout, "channels.py::prop_xattr", [{"leave": True}, {}])
    assert pairs(warm) == [("pass", None), ("pass", None)], (warm, note)


@GIVEN_UP
@pytest.mark.parametrize("name", ["prop_inode_value", "prop_pid_value", "prop_time_wait_value",
                                  "prop_snmp_value"])
def test_one_evaluation_cannot_hand_the_next_a_number(checkout, name):
    # BREAKS (prop_inode_value): tmpfs inode numbers are per mount and only grow; the parent empties the
    # tmpfs but cannot reset the counter, so one evaluation sets `ino % 61` and the next reads it back.
    # Not in docs/SECURITY.md's list of what the warm start gives up.
    # BREAKS (prop_pid_value, prop_time_wait_value): the documented trade-offs (pids grow; TIME_WAIT in
    # the shared network namespace) are more than a "first run" bit: they carry a chosen number.
    sent = 37
    cold, _ = rows_of(checkout, f"channels.py::{name}", [{"send": sent}, {}], warm=False)
    assert cold[1].reason != f"got:{sent}" and cold[1].reason != f"got:[{sent}]"
    warm, note = rows_of(checkout, f"channels.py::{name}", [{"send": sent}, {}])
    assert warm[0].outcome == "pass", (warm, note)
    assert warm[1].reason not in (f"got:{sent}", f"got:[{sent}]"), (warm, note)


@GIVEN_UP
def test_one_evaluation_cannot_hand_the_next_a_number_through_the_parent_s_cpu_time(checkout):
    # BREAKS: /proc/<ppid>/stat is readable by the child although the parent is not dumpable, and its
    # cutime + cstime is the sum of every reaped evaluation's CPU ticks: a chosen number crosses over
    # (cold, the harness's parent is bubblewrap's init, which has reaped nothing).
    sent = 37
    cold, _ = rows_of(checkout, "channels.py::prop_parent_cpu_value", [{"send": sent}, {}], warm=False)
    warm, note = rows_of(checkout, "channels.py::prop_parent_cpu_value", [{"send": sent}, {}])
    assert warm[0].outcome == "pass", (warm, note)
    got = int(warm[1].reason.split(":")[1])
    assert not sent <= got <= sent + 3, (warm, cold, note)


def test_what_an_evaluation_sets_on_its_parent_is_not_inherited_by_the_next(checkout):
    # BREAKS: the parent runs as the evaluation's uid, so the evaluation may renice it (setpriority), pin
    # it (sched_setaffinity), change its policy (sched_setscheduler) and lower its soft limits (prlimit);
    # fork() hands all of that to every later child. `prop_first_by_nice` is a regression that fails
    # until it has reniced the parent once: fail, then pass for the rest of the series.
    fresh, _ = rows_of(checkout, "channels.py::prop_sets_its_parent", [{}])
    warm, note = rows_of(checkout, "channels.py::prop_sets_its_parent", [{"leave": True}, {}])
    assert warm[1].reason == fresh[0].reason, (warm, fresh, note)
    first, note = rows_of(checkout, "channels.py::prop_first_by_nice", [{}, {}, {}])
    assert pairs(first) == [("fail", "real-regression")] * 3, (first, note)


def test_the_writable_roots_look_the_same_in_the_first_evaluation_and_the_next(checkout):
    # BREAKS: bubblewrap mounts /tmp and /dev/shm 0755; _settle chmods them to 1777 (and /scratch to
    # 0755), so the first evaluation of every warm parent sees 0755 and the rest 1777: a "first run"
    # test by plain os.stat (end to end below: a regression becomes not_reproduced).
    cold, _ = rows_of(checkout, "channels.py::prop_roots_look_fresh", [{}], warm=False)
    warm, note = rows_of(checkout, "channels.py::prop_roots_look_fresh", [{}, {}, {}])
    assert len({r.reason for r in warm}) == 1, (warm, note)
    assert warm[0].reason == cold[0].reason, (warm, cold)


@GIVEN_UP
def test_the_parent_s_heap_does_not_tell_the_first_evaluation_from_the_next(checkout):
    # BREAKS: the parent's serve loop keeps one more allocated block (and one more gen-0 object) per
    # evaluation: sys.getallocatedblocks() and gc.get_count() in a child count the evaluations before it.
    warm, note = rows_of(checkout, "channels.py::prop_heap_state", [{}, {}, {}, {}])
    assert len({r.reason for r in warm}) == 1, (warm, note)


@GIVEN_UP
def test_an_evaluation_cannot_tell_it_was_forked_from_a_warm_parent(checkout):
    # BREAKS (minor: the docs already give up ppid != 1): os.environ.pop() does not touch the exec-time
    # environment block, so /proc/self/environ still shows WITNESS_WARM_FD, WITNESS_WARM_IMPORTS and
    # WITNESS_WARM_COMPILE (which names the repository files reached), and /proc/self/cmdline `--warm`.
    warm, note = rows_of(checkout, "channels.py::prop_exec_time_environment", [{}])
    assert pairs(warm) == [("pass", None)], (warm, note)


def test_a_socket_in_the_abstract_namespace_does_not_outlive_its_evaluation(checkout):
    warm, note = rows_of(checkout, "channels.py::prop_abstract_socket", [{"leave": True}, {}])
    assert pairs(warm) == [("pass", None), ("pass", None)], (warm, note)


# --- 5. the parent in reach -----------------------------------------------------------------------------

def test_an_evaluation_cannot_stop_its_parent(checkout):
    # the warm parent is the sandbox's init (bubblewrap --as-pid-1): a signal from inside is ignored, as a cold
    # harness's SIGSTOP to bubblewrap's init is, and the series goes on warm
    warm, note = rows_of(checkout, "channels.py::prop_stops_its_parent", [{}, {}], timeout_seconds=3)
    assert pairs(warm) == [("pass", None)] * 2 and note == "", (warm, note)


def test_an_evaluation_that_interrupts_its_parent_still_fails(checkout):
    warm, note = rows_of(checkout, "channels.py::prop_interrupts_its_parent", [{}, {}])
    assert pairs(warm) == [("fail", "real-regression")] * 2, (warm, note)


def test_an_evaluation_cannot_trace_or_read_its_parent(checkout):
    warm, note = rows_of(checkout, "channels.py::prop_reaches_into_its_parent", [{}])
    assert pairs(warm) == [("pass", None)], (warm, note)


# --- 6. the parent's "broken" answer --------------------------------------------------------------------

def _in_time(call, seconds):
    """call() in a thread: ('ok', value), ('raised', exception) or ('hung', None) after `seconds`."""
    import threading

    box = []

    def target():
        try:
            box.append(("ok", call()))
        except BaseException as exc:  # noqa: BLE001 - what the gate's caller would meet
            box.append(("raised", exc))

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    return box[0] if box else ("hung", None)


def test_an_evaluation_the_parent_cannot_settle_after_is_an_evaluation_and_the_series_goes_on(checkout):
    # BREAKS: a tree 1,500 folders deep in /tmp makes _settle fail ("/tmp could not be emptied: ..."), and
    # the parent answers `broken <why>` with no wait status, while WarmParent.run reads `broken <status>
    # <why>`: int("/tmp") raises ValueError out of PropertyRunner.evaluate on the host (the evaluation's
    # verdict is lost; the attempt ends in a traceback the attacker chose). The series also forgets the
    # parent it counted (WarmSeries.run has no try/finally), so the next evaluation of the runner waits in
    # _take for a parent that will never be given back: the gate hangs.
    runner = series(checkout, "channels.py::prop_deep_tree")
    try:
        first = _in_time(lambda: runner({"leave": True}), 30)
        second = _in_time(lambda: runner({}), 20)
    finally:
        runner.close()
    assert (first[0], second[0]) == ("ok", "ok"), (first, second)
    assert (second[1].outcome, second[1].reason) == ("pass", None), second


# --- 7. end to end: a regression that shows only in a sandbox's first evaluation --------------------------

FIRST_IN_ITS_SANDBOX = (
    "import os\n\n"
    "def double(x):\n"
    "    if os.stat('/tmp').st_mode & 0o1000 == 0:  # a fresh tmpfs is 0755; the warm parent leaves 1777\n"
    "        return 2 * x + 1\n"
    "    return 2 * x\n"
)


RENICES_ITS_PARENT = (
    "import os\n\n"
    "def double(x):\n"
    "    if os.getpriority(os.PRIO_PROCESS, 0) == 0:  # nobody has been here before in this sandbox\n"
    "        try:\n"
    "            os.setpriority(os.PRIO_USER, 0, 1)  # every process of the uid in the sandbox, the warm parent too\n"
    "        except OSError:\n"
    "            pass\n"
    "        return 2 * x + 1\n"
    "    return 2 * x\n"
)


@pytest.mark.parametrize("warm", ["off", "on"])
@pytest.mark.parametrize("patch", [FIRST_IN_ITS_SANDBOX, RENICES_ITS_PARENT], ids=["tmp-mode", "renice"])
def test_a_regression_seen_only_in_a_fresh_sandbox_stays_a_regression(git_repo, tmp_path, monkeypatch, warm,
                                                                      patch):
    # BREAKS (warm=on, tmp-mode): _settle chmods /tmp and /dev/shm to 1777, but bubblewrap's fresh tmpfs is
    # 0755: the first evaluation of each warm parent is told from the rest by a plain stat (no /proc, no
    # pid, nothing the tamper scan names). Cold, every evaluation fails: `regression`; warm, only the first
    # fails, the shrink and the replays pass: `not_reproduced`.
    # BREAKS (warm=on, renice): the evaluation renices every process of its uid in the sandbox (PRIO_USER: no
    # getppid for the tamper scan to find), the warm parent with them; every later child inherits it.
    from test_run import base_repo, local_run

    monkeypatch.setenv("WITNESS_WARM", warm)
    repo = base_repo(git_repo)
    repo.commit({"src/calc.py": patch})
    [result] = local_run(repo, tmp_path / "out").results
    assert result.verdict.label == "regression", (result.verdict, result.record.get("notes"))


# --- 8. the host reads the repository to plan the warm imports ---------------------------------------------

DEEP_ATTRIBUTES = "VALUE = " + "a." * 200000 + "b\n"  # ast.parse: RecursionError, not a SyntaxError


def test_a_repository_file_the_host_cannot_parse_is_an_evaluation_not_a_crash(tmp_path):
    # BREAKS: warm_imports.reached() parses every repository file the property reaches, on the host, and
    # catches only OSError, SyntaxError and ValueError; a file of 200,000 attribute accesses makes
    # ast.parse raise RecursionError (a long chain of unary minus: MemoryError), which leaves
    # PropertyRunner._start_warm and evaluate() as a traceback in the gate. WarmSeries.run counted a parent
    # it never got, so the next evaluation of the runner waits in _take for ever. Cold, the same file is
    # an evaluation like any other (the harness's compile fails inside the sandbox).
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "deep.py").write_text(DEEP_ATTRIBUTES)
    (root / "p.py").write_text("def prop(p):\n    import deep\n    return True\n\nimport deep\n")
    repo = stage_directory(root)

    def runner(warm):
        return PropertyRunner(repo, "p.py::prop", "1", Sandbox("bwrap"), timeout_seconds=20, warm=warm, parallel=1)

    cold = runner(False)({})
    warm = runner(True)
    try:
        first = _in_time(lambda: warm({}), 60)
        second = _in_time(lambda: warm({}), 20)
    finally:
        warm.close()
    assert (first[0], second[0]) == ("ok", "ok"), (first, second, cold)
    assert (first[1].outcome, first[1].reason) == (cold.outcome, cold.reason), (first, cold)
