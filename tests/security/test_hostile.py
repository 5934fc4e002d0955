"""A hostile repository: every property tries to get out of the sandbox; nothing may.

A property returns "LEAK:<what>" when it reached something it must not, True when it did not.
Each must end as a pass or a transport fault, the host must be unchanged, and nothing may outlive
the evaluation. Run as root in CI, as the worker runs.
"""

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from conftest import host_ip
from witness_gate.sandbox.runner import PropertyRunner
from witness_gate.sandbox import Identity, Limits, Sandbox, make_readable, stage_directory

HOSTILE = r'''
import os, socket, subprocess, sys, time

def _try_connect(host, port):
    try:
        with socket.create_connection((host, port), timeout=1) as s:
            s.sendall(b"hello from the sandbox")
        return True
    except OSError:
        return False

def prop_reads_env_secret(p):
    leaked = [k for k in os.environ if "SECRET" in k or "TOKEN" in k or "KEY" in k]
    return "LEAK:env:" + ",".join(leaked) if leaked else True

def prop_reads_secret_files(p):
    leaked = []
    for path in p["secret_files"] + ["/root/.ssh/id_rsa", "/etc/shadow", "/proc/1/environ"]:
        try:
            with open(path) as f:
                if f.read(64):
                    leaked.append(path)
        except OSError:
            pass
    return "LEAK:files:" + ",".join(leaked) if leaked else True

def prop_sees_host_paths(p):
    seen = [d for d in p["host_paths"] + ["/root", "/home", "/work", "/var/run", "/run"] if os.path.exists(d)]
    return "LEAK:paths:" + ",".join(seen) if seen else True

def prop_connects_by_loopback(p):
    return "LEAK:loopback" if _try_connect("127.0.0.1", p["port"]) else True

def prop_connects_by_host_address(p):
    return "LEAK:host-address" if _try_connect(p["host_ip"], p["port"]) else True

def prop_resolves_and_reaches_out(p):
    try:
        socket.getaddrinfo("pypi.org", 443)
        return "LEAK:dns"
    except OSError:
        return True

def prop_writes_outside_scratch(p):
    written = []
    for path in ["/repo/src/injected.py", "/repo/pwned", "/usr/pwned", "/pwned", "/etc/pwned",
                 p["checkout_on_host"] + "/pwned", "/opt/witness-gate/witness_gate/harness.py"]:
        try:
            with open(path, "w") as f:
                f.write("pwned")
            written.append(path)
        except OSError:
            pass
    return "LEAK:write:" + ",".join(written) if written else True

def prop_fork_bomb(p):
    children = 0
    try:
        for _ in range(10000):
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            children += 1
    except OSError:
        pass
    return True if children < 10000 else "LEAK:unbounded-fork:%d" % children

def prop_allocates_too_much(p):
    try:
        blob = bytearray(16 * 1024**3)
    except MemoryError:
        return True
    return "LEAK:allocated-16GiB"

def prop_hangs(p):
    time.sleep(3600)

def prop_floods_stdout(p):
    while True:
        sys.stdout.write("A" * 65536)

def prop_leaves_a_daemon(p):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open("/proc/self/comm", "w") as f:
                f.write(p["daemon_name"])
            time.sleep(3600)
        os._exit(0)
    time.sleep(0.2)
    return True

def prop_big_file(p):
    try:
        with open("/scratch/big", "wb") as f:
            f.write(b"\0" * (512 * 1024**2))
    except OSError:
        return True
    return "LEAK:wrote-512MiB"

def prop_fills_tmp_and_scratch_with_many_files(p):
    written = 0
    for folder in ("/tmp", "/scratch"):
        for i in range(64):  # 64 files of 32 MiB: each file is under the file-size limit, together 2 GiB
            try:
                with open(f"{folder}/fill{i}", "wb") as f:
                    f.write(b"\0" * (32 * 1024**2))
                written += 32
            except OSError:
                break
    return True if written <= 2 * 256 else "LEAK:wrote-%dMiB" % written

def prop_nested_namespace(p):
    try:
        done = subprocess.run(["/usr/bin/unshare", "--user", "--map-root-user", "id"], capture_output=True)
        return "LEAK:nested-userns" if done.returncode == 0 else True
    except OSError:
        return True

'''

DAEMON = "witness-daemon"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    source = tmp_path_factory.mktemp("hostile")
    (source / "tests" / "properties").mkdir(parents=True)
    (source / "src").mkdir()
    (source / "src" / "app.py").write_text("VALUE = 1\n")
    (source / "tests" / "properties" / "test_hostile.py").write_text(HOSTILE)
    checkout = stage_directory(source)
    secrets = Path(tempfile.mkdtemp(prefix="planted-secrets-"))
    secrets.chmod(0o755)  # readable by anyone on the host: only the sandbox's view may protect it
    secret = secrets / "private-key.pem"
    secret.write_text("-----BEGIN RSA PRIVATE KEY-----\nplanted\n")
    secret.chmod(0o644)
    yield checkout, secret
    shutil.rmtree(secrets)
    shutil.rmtree(checkout)


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def daemons() -> list[int]:
    """Processes named DAEMON of this test worker's sandbox uid (another worker's are its own)."""
    uid = Sandbox("bwrap").identity.uid
    found = []
    for entry in os.listdir("/proc"):
        try:
            if (entry.isdigit() and Path(f"/proc/{entry}/comm").read_text().strip() == DAEMON
                    and (uid is None or os.stat(f"/proc/{entry}").st_uid == uid)):
                found.append(int(entry))
        except OSError:
            pass
    return found


NAMES = [
    "prop_reads_env_secret", "prop_reads_secret_files", "prop_sees_host_paths", "prop_connects_by_loopback",
    "prop_connects_by_host_address", "prop_resolves_and_reaches_out", "prop_writes_outside_scratch",
    "prop_fork_bomb", "prop_allocates_too_much", "prop_hangs", "prop_floods_stdout", "prop_leaves_a_daemon",
    "prop_big_file", "prop_nested_namespace", "prop_fills_tmp_and_scratch_with_many_files",
]


@pytest.mark.parametrize("name", NAMES)
def test_nothing_gets_out(hostile, listener, name, monkeypatch):
    checkout, secret = hostile
    port, reached = listener
    monkeypatch.setenv("GITHUB_WEBHOOK_SECRET", "planted-secret")
    monkeypatch.setenv("INSTALLATION_TOKEN", "ghs_planted")
    before = tree_digest(checkout)
    payload = {
        "secret_files": [str(secret)], "host_paths": [str(secret.parent), str(Path(__file__).parent)],
        "port": port, "host_ip": host_ip(), "checkout_on_host": str(checkout), "daemon_name": DAEMON,
    }
    runner = PropertyRunner(checkout, f"tests/properties/test_hostile.py::{name}", "1", Sandbox("bwrap"),
                            timeout_seconds=4, limits=Limits(file_bytes=64 * 1024**2))
    try:
        result = runner(payload)
    finally:
        runner.close()  # the sides it keeps between evaluations end with it: what is left is the property's
    assert result.outcome in ("pass", "transport"), (result.reason, result.detail[-500:])
    assert reached == [], f"{name} reached the host listener"
    assert tree_digest(checkout) == before, f"{name} changed the checkout"
    assert daemons() == [], f"{name} left a process running"
    assert secret.read_text().startswith("-----BEGIN")


def test_a_daemon_a_property_leaves_ends_with_its_evaluation_while_the_runner_goes_on(hostile):
    """A judge is forked from a warm parent that outlives each evaluation: a daemon a property started lived on in
    that parent's sandbox (the cold judge's sandbox had taken it along). The parent now reaps and kills it before it
    reports the evaluation's end."""
    checkout, _ = hostile
    runner = PropertyRunner(checkout, "tests/properties/test_hostile.py::prop_leaves_a_daemon", "1",
                            Sandbox("bwrap"), timeout_seconds=10)
    try:
        for _ in range(2):
            row = runner({"daemon_name": DAEMON})
            assert (row.outcome, row.isolation) == ("pass", "split-cold"), row.detail
            assert daemons() == []
        for _ in range(2):  # a shrink candidate's, in the property's series judge, which goes on
            row = runner.candidate({"daemon_name": DAEMON})
            assert (row.outcome, row.isolation) == ("pass", "split-warm"), row.detail
            assert daemons() == []
    finally:
        runner.close()


def test_the_gate_is_healthy_after_the_hostile_suite(hostile):
    checkout, _ = hostile
    (checkout / "tests" / "properties" / "test_ok.py").write_text("def prop_ok(p):\n    return p == {'a': 1}\n")
    make_readable(checkout)
    result = PropertyRunner(checkout, "tests/properties/test_ok.py::prop_ok", "1", Sandbox("bwrap"))({"a": 1})
    assert result.outcome == "pass", result.detail


def test_the_sandbox_runs_as_a_dedicated_uid_when_the_gate_is_root(hostile):
    checkout, _ = hostile
    (checkout / "tests" / "properties" / "test_uid.py").write_text(
        "import os\ndef prop_uid(p):\n    return 'uid:%d' % os.getuid()\n")
    make_readable(checkout)
    sandbox = Sandbox("bwrap")
    result = PropertyRunner(checkout, "tests/properties/test_uid.py::prop_uid", "1", sandbox)({})
    if os.geteuid() != 0:
        pytest.skip("the gate is not root here; it runs the sandbox as its own uid")
    # inside its user namespace the process maps to the sandbox uid, never to root
    assert result.reason == f"uid:{sandbox.identity.uid}"


def test_each_worker_runs_its_evaluations_as_a_uid_of_its_own(hostile, monkeypatch):
    # two workers on one host must not share a process limit: a fork bomb in one would starve the other
    if os.geteuid() != 0:
        pytest.skip("the gate is not root here; it runs the sandbox as its own uid")
    checkout, _ = hostile
    (checkout / "tests" / "properties" / "test_uid.py").write_text(
        "import os\ndef prop_uid(p):\n    return 'uid:%d' % os.getuid()\n")
    make_readable(checkout)
    monkeypatch.delenv("WITNESS_SANDBOX_UID", raising=False)
    seen = {}
    for worker in ("host-a.101", "host-a.102"):
        identity = Identity.from_environment(worker)
        result = PropertyRunner(checkout, "tests/properties/test_uid.py::prop_uid", "1",
                                Sandbox("bwrap", identity))({})
        seen[worker] = result.reason
        assert result.reason == f"uid:{identity.uid}", result
    assert len(set(seen.values())) == 2
    assert Identity.from_environment("host-a.101") == Identity.from_environment("host-a.101")  # stable
    monkeypatch.setenv("WITNESS_SANDBOX_UID", "64999")  # the operator's choice wins
    assert Identity.from_environment("host-a.101").uid == 64999


@pytest.mark.parametrize("name, leak", [
    ("prop_reads_secret_files", "LEAK:files:"),
    ("prop_sees_host_paths", "LEAK:paths:"),
    ("prop_connects_by_loopback", "LEAK:loopback"),
    ("prop_connects_by_host_address", "LEAK:host-address"),
])
def test_the_probes_do_detect_a_leak_without_bubblewrap(hostile, listener, name, leak):
    # a control: the same properties in a plain subprocess do reach the host, so the probes work
    checkout, secret = hostile
    port, reached = listener
    payload = {"secret_files": [str(secret)], "host_paths": [str(secret.parent)], "port": port,
               "host_ip": host_ip(), "checkout_on_host": str(checkout), "daemon_name": DAEMON}
    result = PropertyRunner(checkout, f"tests/properties/test_hostile.py::{name}", "1", Sandbox("none"),
                            timeout_seconds=4)(payload)
    assert (result.outcome, (result.reason or "")[: len(leak)]) == ("fail", leak)
    reached.clear()


# -- records a patch or a person edited by hand --
# The attack: `check` records a deterministic regression; half its witness replays are flipped to pass and
# every stored total made to agree. `classify` re-decides from the rows, so without the record's mac it
# would say flake, and `freeze` would write a freeze record. The control switches the check off.

import json  # noqa: E402

from test_records_auth import (  # noqa: E402
    ASSERTION, attempt_path, classify_args, copy_records, forge_flake, freeze_args, regression_repo,
)


@pytest.fixture(scope="module")
def gated_regression(tmp_path_factory):
    return regression_repo(tmp_path_factory.mktemp("edited-records") / "repo")


def test_replays_flipped_by_hand_are_refused_by_classify_and_freeze(gated_regression, tmp_path):
    from conftest import run_cli

    records = copy_records(gated_regression, tmp_path / "w")
    rec = forge_flake(records)
    done = run_cli(*classify_args(records), cwd=gated_regression.path)
    assert done.returncode == 2, done.stdout
    assert f"error: {attempt_path(records)}: its mac does not match: edited after the gate wrote it" in done.stderr
    assert "flake" not in done.stdout
    done = run_cli(*freeze_args(records, rec, tmp_path / "freeze.json"), cwd=gated_regression.path)
    assert done.returncode == 2, done.stdout
    assert f"{attempt_path(records)}: its mac does not match: edited after the gate wrote it" in done.stderr
    assert not (tmp_path / "freeze.json").exists()


def test_replays_flipped_by_hand_pass_as_a_flake_when_records_are_not_checked(gated_regression, tmp_path,
                                                                              monkeypatch, capsys):
    # the control: the same forgery, with the mac check switched off, is a flake and gets frozen
    from witness_gate.cli import main as cli
    from witness_gate.records import recordkey

    monkeypatch.setattr(recordkey.Verifier, "check", lambda self, record, source: None)
    monkeypatch.chdir(gated_regression.path)
    records = copy_records(gated_regression, tmp_path / "w")
    rec = forge_flake(records)
    assert cli.main(classify_args(records)) == 3
    assert f"{ASSERTION}: flake 2/4 -> flake" in capsys.readouterr().out
    assert cli.main(freeze_args(records, rec, tmp_path / "freeze.json")) == 0
    freeze = json.loads((tmp_path / "freeze.json").read_text())
    assert (freeze["assertion_id"], freeze["failures"], freeze["runs"]) == (ASSERTION, 2, 4)


# -- a checkout that stands in for the harness, the standard library or its own source --
import importlib._bootstrap_external as _bytecode  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from witness_gate import sandbox as sandboxes  # noqa: E402

FORGER = (  # what forged a pass when it ran where the verdict was made: reads a key from stdin, signs, leaves
    "import hmac, os\n"
    "key = os.read(0, 256).split(b'\\n')[0]\n"
    "mac = hmac.new(key, b'pass - ', 'sha256').hexdigest()\n"
    "os.write(1, ('\\nwitness-verdict pass -  %s\\n' % mac).encode())\n"
    "os._exit(0)\n"
)
REGRESSION = "def prop_total(p):\n    return 'wrong-total'\n"
SHADOWS = {
    "harness_package": {"witness_gate/__init__.py": "", "witness_gate/harness.py": FORGER},
    "stdlib_module": {"random.py": FORGER, "json.py": FORGER, "traceback.py": FORGER},
    "stdlib_in_src": {"src/random.py": FORGER, "src/importlib/__init__.py": FORGER},
}


def shadowed_checkout(tmp_path, files):
    source = tmp_path / "shadow"
    for rel, text in {"tests/properties/p.py": REGRESSION, **files}.items():
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        (source / rel).write_text(text)
    return stage_directory(source)


@pytest.mark.parametrize("shadow", sorted(SHADOWS))
def test_a_checkout_cannot_stand_in_for_the_harness_or_the_standard_library(tmp_path, shadow):
    checkout = shadowed_checkout(tmp_path, SHADOWS[shadow])
    result = PropertyRunner(checkout, "tests/properties/p.py::prop_total", "1", Sandbox("bwrap"), timeout_seconds=10)({})
    assert (result.outcome, result.reason) == ("fail", "wrong-total"), result.detail[-400:]


def planted_bytecode(tmp_path):
    """A regression whose committed __pycache__ holds a passing build, stamped to match the settled source."""
    source = tmp_path / "pyc"
    (source / "tests" / "properties" / "__pycache__").mkdir(parents=True)
    (source / "src" / "__pycache__").mkdir(parents=True)
    (source / "tests" / "properties" / "p.py").write_text("from app import total\n\ndef prop_total(p):\n"
                                                          "    return total() == 3 or 'wrong-total'\n")
    (source / "src" / "app.py").write_text("def total():\n    return 4  # the regression\n")
    tag = sys.implementation.cache_tag
    for rel, honest in (("tests/properties/p.py", "def prop_total(p):\n    return True\n"),
                        ("src/app.py", "def total():\n    return 3\n")):
        size = (source / rel).stat().st_size
        code = compile(honest, rel, "exec")
        pyc = _bytecode._code_to_timestamp_pyc(code, sandboxes.SETTLED_NS // 10**9, size)
        folder, name = rel.rsplit("/", 1)
        (source / folder / "__pycache__" / f"{name[:-3]}.{tag}.pyc").write_bytes(pyc)
    (source / "src" / "helper.pyc").write_bytes(_bytecode._code_to_timestamp_pyc(compile("X = 1", "h", "exec"), 0, 0))
    checkout = Path(tempfile.mkdtemp(prefix="witness-pyc-"))
    shutil.copytree(source, checkout, dirs_exist_ok=True)  # __pycache__ kept, as a checkout would carry it
    make_readable(checkout)
    return checkout


def test_bytecode_committed_with_the_checkout_is_never_read(tmp_path):
    checkout = planted_bytecode(tmp_path)
    try:
        result = PropertyRunner(checkout, "tests/properties/p.py::prop_total", "1", Sandbox("bwrap"))({})
        assert (result.outcome, result.reason) == ("fail", "wrong-total"), result.detail[-400:]
        # the control: Python's own loaders do pick the planted builds once the times match
        sandboxes.settle(checkout)
        probe = ("import sys, importlib.util as u; sys.path.insert(0, 'src'); "
                 "s = u.spec_from_file_location('p', 'tests/properties/p.py'); m = u.module_from_spec(s); "
                 "s.loader.exec_module(m); import helper; print(m.prop_total({}))")
        done = subprocess.run([sys.executable, "-B", "-c", probe], cwd=checkout, capture_output=True, text=True)
        assert done.stdout.strip() == "True", done.stderr
    finally:
        shutil.rmtree(checkout)


# -- caps on every writable place and on memory-backed files --
FILLS = r'''
import ctypes, mmap, os

def prop_fills_dev_shm(p):
    written = 0
    for i in range(24):  # 24 files of 32 MiB, each under the file-size limit: 768 MiB if nothing caps it
        try:
            with open("/dev/shm/fill%d" % i, "wb") as f:
                f.write(b"\0" * (32 * 1024**2))
            written += 32
        except OSError:
            break
    return True if written <= 256 else "LEAK:dev-shm-%dMiB" % written

def prop_writes_dev(p):
    try:
        with open("/dev/planted", "wb") as f:
            f.write(b"\0" * 1024)
        return "LEAK:dev-writable"
    except OSError:
        return True

def prop_memfd(p):
    try:
        fd = os.memfd_create("fill")
    except OSError:
        return True
    os.close(fd)
    return "LEAK:memfd"

def prop_statx_birth_time(p):
    # statx is the one way to a file's birth time, which nothing can settle
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(256)
    if libc.syscall(332, -100, b"/repo", 0, 0x800, buf) != 0:  # AT_FDCWD, STATX_BTIME
        return True
    return "LEAK:statx"

def prop_io_uring(p):
    libc = ctypes.CDLL(None, use_errno=True)
    params = ctypes.create_string_buffer(120)
    fd = libc.syscall(425, 4, params)
    if fd < 0:
        return True
    os.close(fd)
    return "LEAK:io_uring"

def prop_host_counters(p):
    # host-wide counters move with every evaluation: readable, they tell the first evaluation from the next
    seen = []
    for name in ("stat", "vmstat", "key-users", "loadavg", "interrupts", "meminfo", "sys/fs/file-nr",
                 "pressure/cpu"):
        try:
            with open("/proc/" + name) as f:
                if f.read(64):
                    seen.append(name)
        except OSError:
            pass
    return "LEAK:counters:" + ",".join(seen) if seen else True

def prop_keyring(p):
    libc = ctypes.CDLL(None, use_errno=True)
    serial = libc.syscall(248, b"user", b"witness-left-this", b"x", 1, -4)  # add_key to the user keyring
    return True if serial < 0 else "LEAK:keyring"

def prop_page_cache(p):
    # whether a page is already in memory tells the first evaluation from the next (third review)
    with open("/usr/bin/python3", "rb") as f:
        buf = bytearray(4096)
        try:
            os.preadv(f.fileno(), [buf], 0, os.RWF_NOWAIT)
        except BlockingIOError:
            return "LEAK:page-cache"
        except OSError:
            return True
    return "LEAK:page-cache"

def prop_sysv_shm(p):
    libc = ctypes.CDLL(None, use_errno=True)
    shmid = libc.shmget(0, 64 * 1024**2, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
    if shmid < 0:
        return True
    libc.shmctl(shmid, 0, None)  # IPC_RMID
    return "LEAK:sysv-shm"
'''


@pytest.fixture(scope="module")
def fills(tmp_path_factory):
    source = tmp_path_factory.mktemp("fills")
    (source / "tests" / "properties").mkdir(parents=True)
    (source / "tests" / "properties" / "f.py").write_text(FILLS)
    checkout = stage_directory(source)
    yield checkout
    shutil.rmtree(checkout)


@pytest.mark.parametrize("name", ["prop_fills_dev_shm", "prop_writes_dev", "prop_memfd", "prop_sysv_shm",
                                  "prop_statx_birth_time", "prop_io_uring", "prop_host_counters",
                                  "prop_keyring", "prop_page_cache"])
def test_every_writable_place_has_a_cap_the_sandbox_enforces(fills, name):
    result = PropertyRunner(fills, f"tests/properties/f.py::{name}", "1", Sandbox("bwrap"), timeout_seconds=20)({})
    assert result.outcome in ("pass", "transport"), (result.reason, result.detail[-400:])


@pytest.mark.parametrize("name, leak", [("prop_memfd", "LEAK:memfd"), ("prop_sysv_shm", "LEAK:sysv-shm"),
                                        ("prop_host_counters", "LEAK:counters:stat,vmstat"),
                                        ("prop_page_cache", "LEAK:page-cache")])
# (statx and io_uring have no control here: outside the sandbox there is no /repo to stat, and io_uring
# may be off on the host; the end-to-end birth-time test below has one)
def test_memory_backed_files_are_made_without_the_filter(fills, name, leak):
    # the control: in a plain subprocess nothing refuses them, and the host's counters are there to read
    result = PropertyRunner(fills, f"tests/properties/f.py::{name}", "1", Sandbox("none"), timeout_seconds=20)({})
    assert result.outcome == "fail" and result.reason.startswith(leak), result


def test_the_seccomp_filter_refuses_only_what_it_names():
    from witness_gate.sandbox import seccomp

    program = seccomp.program("x86_64")
    assert seccomp.program("sparc") is None
    calls = len(seccomp.REFUSED["x86_64"][1])
    # arch check and deny, load nr, x32 check and deny, a check and a return a call, allow
    assert len(seccomp.program("x86_64", evaluation=False)) == 8 * (4 + 2 + 2 * calls + 1)
    # an evaluation's: the calls that notice other sandboxes too, and fcntl's check, its load of the command, a check
    # and a return a refused command
    noticing = len(seccomp.NOTICING["x86_64"][1])
    assert len(program) == 8 * (4 + 2 + 2 * (calls + noticing) + 2 + 2 * len(seccomp.FCNTL_REFUSED) + 1)


# -- evaluations that cannot tell each other apart --
AGES = r'''
import os, time

def ages():
    now = time.time()
    seen = []
    for path in ("/repo", "/repo/src/app.py", "/opt/witness-gate/witness_gate/sandbox/subject/server.py", "/env",
                 "/env/dep.py"):
        try:
            st = os.lstat(path)
        except OSError:
            seen.append("-")
            continue
        seen.append("%d/%d/%d" % (st.st_atime, st.st_mtime, round(now - st.st_ctime)))  # the age since staging
    return " ".join(seen)
'''


def test_every_evaluation_of_a_series_sees_the_same_timestamps(tmp_path, monkeypatch):
    # what the implementation sees of its files, asked in its own process
    source = tmp_path / "ages"
    (source / "tests" / "properties").mkdir(parents=True)
    (source / "src").mkdir()
    (source / "src" / "app.py").write_text(AGES)
    (source / "tests" / "properties" / "a.py").write_text("from app import ages\n\ndef prop_ages(p):\n    return ages()\n")
    checkout = stage_directory(source)
    environment = Path(tempfile.mkdtemp(prefix="witness-env-"))  # where the sandbox uid can reach it
    (environment / "dep.py").write_text("Y = 2\n")
    make_readable(environment)

    def series(pause):
        runner = PropertyRunner(checkout, "tests/properties/a.py::prop_ages", "1", Sandbox("bwrap"),
                                environment=environment)
        first = runner({})
        time.sleep(pause)
        later = runner({})
        assert first.outcome == later.outcome == "fail", (first, later)
        return first.reason, later.reason

    first, later = series(2.2)
    assert first == later and "-" not in first.split(), (first, later)
    # the control: without settling, a later evaluation sees an older tree than the first did
    for module in ("runner", "warm"):  # a subject started for its evaluation, and one booted ahead
        monkeypatch.setattr(f"witness_gate.sandbox.{module}.settle", lambda path: None)
    os.utime(checkout / "src" / "app.py")
    first, later = series(2.2)
    shutil.rmtree(environment)
    assert first != later


# -- the gate's own command line inside an untrusted checkout --
def test_python_m_witness_gate_inside_a_checkout_never_imports_the_checkout(git_repo, tmp_path):
    from conftest import run_cli

    marker = tmp_path / "ran-on-the-host"
    planted = f"open({str(marker)!r}, 'w').write('x')\n"
    git_repo.commit({"README.md": "x\n"})
    git_repo.commit({"argparse.py": planted, "tempfile.py": planted, "shutil.py": planted})
    done = run_cli("run", "--repo", ".", cwd=git_repo.path)
    assert not marker.exists(), done.stderr
    assert "Traceback" not in done.stderr
    # the control: Python itself runs a checkout's argparse.py for `-m` started there
    subprocess.run([sys.executable, "-m", "json.tool", "--help"], cwd=git_repo.path, capture_output=True)
    assert marker.exists()


# -- a change outside every configured path --
ROOT_PROPS = '''
from calc import double
from witness_gate import contract

@contract(invariant="double(x) == x + x", domain="integers")
def prop_double(fixture):
    return all(double(x) == x + x for x in fixture["xs"]) or "double-wrong"
'''


def _root_module_head(git_repo):
    """A head that changes only helpers.py at the root, which src/calc.py imports (the root is on sys.path)."""
    git_repo.commit({
        ".witness.yml": "version: 1\npaths:\n  impl: ['src/']\n  oracle: ['tests/properties/', 'tests/fixtures/']\n",
        "helpers.py": "def twice(x):\n    return x + x\n",
        "src/calc.py": "from helpers import twice\n\ndef double(x):\n    return twice(x)\n",
        "tests/properties/test_calc.py": ROOT_PROPS,
        "tests/fixtures/prop_double.json": {"xs": list(range(-20, 20))},
    }, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"helpers.py": "def twice(x):\n    return x + x if x != 13 else 27\n"}, "outside src/")
    return git_repo


def _gate_root_module_head(repo, out):
    from witness_gate.cli import local
    from witness_gate.cli.report import PlainReporter

    with open(os.devnull, "w") as quiet:
        return local.run(repo.path, "main", "patch", sandbox=Sandbox("bwrap"), out_dir=out,
                         reporter=PlainReporter(quiet))


def test_a_regression_in_a_root_level_module_is_caught(git_repo, tmp_path):
    outcome = _gate_root_module_head(_root_module_head(git_repo), tmp_path / "out")
    assert not outcome.skipped
    [result] = outcome.results
    assert result.verdict.label == "regression"
    assert result.evidence.witness == {"xs": [13]}


def test_the_old_split_would_have_skipped_the_root_level_module(git_repo, tmp_path, monkeypatch):
    # control: article 001's split_paths, where a path outside impl and oracle counts as neither
    from witness_gate.rules import path_split as labels, plan

    def old_split(self, paths):
        paths = list(paths)
        impl = tuple(p for p in paths if labels.split_paths([p], self.impl, ())[0])
        oracle = tuple(p for p in paths if labels.split_paths([p], (), self.oracle_patterns)[1])
        return labels.ChangeSplit(impl, oracle, tuple(p for p in paths if p not in impl + oracle))

    monkeypatch.setattr(plan, "split_of", old_split)
    outcome = _gate_root_module_head(_root_module_head(git_repo), tmp_path / "out")
    assert outcome.results == [] and outcome.skipped.startswith("only paths.ignore paths changed (1: helpers.py)")


# -- a checkout that points at the host --
# The attack: an oracle-only head whose property module is a symlink to a host file (a planted secret,
# written as Python whose property name is the secret), and a working tree whose property module is a FIFO.
# The gate must not read the file (its name would show as an assertion id), nor block on the FIFO; the
# module becomes a property that holds with `unsafe_path:<relpath>`. The controls switch witness_gate.sources.safefs
# off (a naive read through the link) and show the secret read and the gate hung.
import threading  # noqa: E402

from witness_gate.sources import safefs  # noqa: E402


def _planted_secret(tmp_path):
    token = "SECRET" + os.urandom(6).hex()
    path = tmp_path / "host-secret.py"
    path.write_text(f"def prop_{token}(fixture):\n    return True\n")
    return path, token


def _head_linking_a_property_to(git_repo, target):
    git_repo.commit({"src/calc.py": "def double(x):\n    return 2 * x\n", "tests/properties/test_calc.py": ROOT_PROPS,
                     "tests/fixtures/prop_double.json": {"xs": [1, 2]}, ".witness.yml": "version: 1\n"}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    os.symlink(target, git_repo.path / "tests" / "properties" / "test_host.py")
    git_repo.git("add", "-A")
    git_repo.git("commit", "-q", "-m", "a property module that is a link to the host")
    return git_repo


def _naive_read(root, relpath, *, max_bytes):
    return (Path(root) / relpath).read_bytes()  # what the gate did before: follows the link, opens the FIFO


def _everything_shown(outcome):
    import json

    return json.dumps([[r.target.assertion_id, r.notes, r.record] for r in outcome.results], default=str)


def test_a_property_module_linked_to_a_host_file_is_never_read(git_repo, tmp_path):
    secret, token = _planted_secret(tmp_path)
    outcome = _gate_root_module_head(_head_linking_a_property_to(git_repo, str(secret)), tmp_path / "out")
    by_id = {r.target.assertion_id: r for r in outcome.results}
    assert set(by_id) == {"prop_double", "unsafe_path:tests.properties.test_host.py"}
    held = by_id["unsafe_path:tests.properties.test_host.py"]
    assert held.verdict.hold_reasons[0] == "unsafe_path:tests/properties/test_host.py"
    assert held.evidence is None  # nothing of it ran
    assert token not in _everything_shown(outcome)


def test_a_property_module_linked_to_a_host_file_is_read_without_safefs(git_repo, tmp_path, monkeypatch):
    # the control: with the naive read, the host file is read and its secret becomes an assertion id
    secret, token = _planted_secret(tmp_path)
    monkeypatch.setattr(safefs, "read_inside", _naive_read)
    outcome = _gate_root_module_head(_head_linking_a_property_to(git_repo, str(secret)), tmp_path / "out")
    assert f"prop_{token}" in {r.target.assertion_id for r in outcome.results}


def _discover_in_a_thread(root):
    from witness_gate.pipeline.discover import discover

    box = {}
    thread = threading.Thread(target=lambda: box.update(targets=discover(root, "tests/properties", {})), daemon=True)
    thread.start()
    thread.join(5)
    return thread, box


def _tree_with_a_fifo(tmp_path):
    root = tmp_path / "work"
    (root / "tests" / "properties").mkdir(parents=True)
    (root / "tests" / "properties" / "test_ok.py").write_text("def prop_ok(f):\n    return True\n")
    os.mkfifo(root / "tests" / "properties" / "test_fifo.py")
    return root


def test_a_property_module_that_is_a_fifo_never_blocks_the_gate(tmp_path):
    root = _tree_with_a_fifo(tmp_path)
    thread, box = _discover_in_a_thread(root)
    assert not thread.is_alive(), "discovery blocked on a FIFO"
    [fifo] = [t for t in box["targets"] if t.holds]
    assert fifo.holds == ("unsafe_path:tests/properties/test_fifo.py",)
    assert "a FIFO (named pipe)" in fifo.contract_problem


def test_a_property_module_that_is_a_fifo_blocks_the_gate_without_safefs(tmp_path, monkeypatch):
    # the control: the naive read opens the FIFO and waits for a writer that never comes
    root = _tree_with_a_fifo(tmp_path)
    monkeypatch.setattr(safefs, "read_inside", _naive_read)
    thread, _ = _discover_in_a_thread(root)
    hung = thread.is_alive()
    os.close(os.open(root / "tests" / "properties" / "test_fifo.py", os.O_WRONLY))  # let the reader go
    thread.join(5)
    assert hung, "the naive read of a FIFO should block"


# -- a regression that changes its reason every time --
# The attack: the implementation raises an exception class with a new random name on every evaluation,
# so every replay of the witness fails with another reason: article 004 sees two flake signatures and
# would hold it open. SPEC §6 says every replay failing is a regression whatever the mix of reasons.
# The control switches that rule off in-process and shows the patch would have bought a hold.
RANDOM_RAISE = ("import os\n\ndef double(x):\n"
                "    raise type(f'E{os.urandom(4).hex()}', (Exception,), {})('a new name every time')\n")


def _head_with_random_exceptions(git_repo):
    git_repo.commit({"src/calc.py": "def double(x):\n    return 2 * x\n", "tests/properties/test_calc.py": ROOT_PROPS,
                     "tests/fixtures/prop_double.json": {"xs": [1, 2]}, ".witness.yml": "version: 1\n"}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": RANDOM_RAISE}, "raise a randomly named exception")
    return git_repo


def test_a_regression_that_changes_its_reason_every_time_is_a_regression(git_repo, tmp_path):
    import json

    from conftest import run_cli

    repo = _head_with_random_exceptions(git_repo)
    done = run_cli("run", "--repo", str(repo.path), "--base", "main", "--head", "patch", "--out",
                   str(tmp_path / "out"), "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    [row] = json.loads(done.stdout)["properties"]
    assert row["verdict"] == "regression"
    [record] = (tmp_path / "out").glob("*/prop_double.attempt.json")
    record = json.loads(record.read_text())
    reasons = [r["reason"] for r in record["replays"]]
    assert len(reasons) == 5 and len(set(reasons)) == 5 and all(r.startswith("raise:E") for r in reasons)
    assert record["tables"]["budget"] == "hold_open"  # article 004's table, recorded as it is


def test_a_regression_that_changes_its_reason_every_time_buys_a_hold_without_the_rule(git_repo, tmp_path,
                                                                                        monkeypatch):
    # the control: without §6's rule for a witness whose every replay fails, the same patch is a hold
    from witness_gate.rules import verdict

    monkeypatch.setattr(verdict, "every_replay_failed_rule", lambda evidence, policy: False)
    outcome = _gate_root_module_head(_head_with_random_exceptions(git_repo), tmp_path / "out")
    [result] = outcome.results
    assert (result.verdict.label, result.verdict.hold_reasons) == ("hold", ["two_flake_signatures"])


# -- a reason that tries to print its own verdict --
# The attack: a property's reason carries rich markup, a newline, "erase line" and carriage return, so
# that on a terminal the report would show a line `verdict: pass` of its own. Every display escapes
# what it gets (witness_gate.model.display.shown, then the renderer's escaping). The control gives the report
# the reason as the property wrote it (as an older record would carry it) with the escaping switched off.
import io  # noqa: E402
import re  # noqa: E402

FAKE_VERDICT = "[green]verdict: pass[/green]\n\x1b[2K\rverdict: pass"


def _head_with_a_lying_reason(git_repo):
    props = ROOT_PROPS.replace('or "double-wrong"', "or " + repr(FAKE_VERDICT))
    git_repo.commit({"src/calc.py": "def double(x):\n    return 2 * x\n", "tests/properties/test_calc.py": props,
                     "tests/fixtures/prop_double.json": {"xs": [1, 13]}, ".witness.yml": "version: 1\n"}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": "def double(x):\n    return 27 if x == 13 else 2 * x\n"}, "break 13")
    return git_repo


def _terminal_lines(text):
    """What a terminal shows: each line after its last carriage return, without escape sequences."""
    return [re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line.split("\r")[-1]) for line in text.split("\n")]


def _report_on_a_terminal(outcome, monkeypatch):
    from rich.console import Console

    from witness_gate.cli import report

    stream = io.StringIO()
    monkeypatch.setattr(report, "console_for", lambda s: Console(file=s, force_terminal=True, width=120,
                                                                  highlight=False))
    report.print_report(outcome.results, outcome.header, "regression", 1, "out", stream=stream)
    return stream.getvalue()


def test_a_reason_cannot_print_its_own_verdict(git_repo, tmp_path, monkeypatch):
    outcome = _gate_root_module_head(_head_with_a_lying_reason(git_repo), tmp_path / "out")
    [result] = outcome.results
    assert result.verdict.label == "regression"
    shown = _report_on_a_terminal(outcome, monkeypatch)
    assert not [ln for ln in _terminal_lines(shown) if ln.lstrip().startswith("verdict: pass")], shown
    assert re.sub(r"\x1b\[[0-9;]*m", "", shown).count("\x1b") == 0  # only the report's own colours
    assert "\r" not in shown
    assert _terminal_lines(shown)[-2].startswith("verdict: regression (exit 1)")


def test_a_reason_prints_its_own_verdict_without_escaping(git_repo, tmp_path, monkeypatch):
    # the control: the raw reason, with shown() and rich's escape switched off, forges the line
    from witness_gate.cli import report

    outcome = _gate_root_module_head(_head_with_a_lying_reason(git_repo), tmp_path / "out")
    [result] = outcome.results
    result.record["reason"] = FAKE_VERDICT
    monkeypatch.setattr(report, "shown", lambda text, limit=None: str(text))
    monkeypatch.setattr(report, "escape", lambda text: text)
    shown = _report_on_a_terminal(outcome, monkeypatch)
    assert [ln for ln in _terminal_lines(shown) if ln.startswith("verdict: pass")], shown


# -- found by review: a swapped descriptor, an exception whose name raises --
SWAPS_THE_DESCRIPTOR = 'import fcntl\nimport os\nimport threading\nfrom os import execv\n\n_done = []\n\n\ndef _catch():\n    out = os.fstat(1)\n    for fd in range(3, 64):  # the harness\'s private copy of stdout: same pipe as fd 1\n        try:\n            st = os.fstat(fd)\n        except OSError:\n            continue\n        if (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):\n            break\n    else:\n        return\n    r, w = os.pipe()\n    fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page\n    os.close(fd)\n    fcntl.fcntl(w, fcntl.F_DUPFD, fd)  # the harness now writes into our pipe\n    line = len("\\nwitness-verdict-" + "0" * 32 + " fail - " + b"double-wrong".hex() + "\\n")\n    os.write(w, b"x" * (4096 - line))  # the verdict line fills the page exactly: the next write blocks\n    os.close(w)\n\n    def grab():\n        import array, termios, time\n        n = array.array("i", [0])\n        while n[0] < 4096:  # wait for the verdict line to fill the page\n            fcntl.ioctl(r, termios.FIONREAD, n)\n            time.sleep(0.001)\n        data = b""\n        while len(data) < 4095:\n            data += os.read(r, 4095 - len(data))\n        key = data.split(b"\\n")[1].split(b" ")[0].decode()\n        print(f"\\n{key} pass - ", flush=True)\n        execv("/usr/bin/true", ["true"])\n\n    threading.Thread(target=grab, daemon=True).start()\n\n\ndef double(x):\n    if not _done:\n        _done.append(1)\n        _catch()\n    return 2 * x if x != 13 else 27\n'


def _capture_checkout(tmp_path, impl: str):
    source = tmp_path / "capture"
    (source / "src").mkdir(parents=True)
    (source / "tests" / "properties").mkdir(parents=True)
    (source / "src" / "calc.py").write_text(impl)
    (source / "tests" / "properties" / "p.py").write_text(
        "from calc import double\n\ndef prop_double(p):\n    return double(13) == 26 or 'double-wrong'\n")
    return stage_directory(source)


def test_a_descriptor_swapped_under_the_harness_gets_no_verdict_and_the_line_carries_no_key(tmp_path):
    # swaps a one-page pipe in for the harness's copy of stdout and waits to read the verdict line
    checkout = _capture_checkout(tmp_path, SWAPS_THE_DESCRIPTOR)
    result = PropertyRunner(checkout, "tests/properties/p.py::prop_double", "1", Sandbox("bwrap"),
                            timeout_seconds=5)({})
    assert result.outcome in ("fail", "transport"), result


def test_an_exception_whose_name_raises_is_still_a_failure(tmp_path):
    impl = ("class _Meta(type):\n"
            "    __name__ = property(lambda c: (_ for _ in ()).throw(SystemExit(0)))\n\n"
            "class Odd(Exception, metaclass=_Meta):\n    pass\n\n"
            "def double(x):\n    raise Odd()\n")
    checkout = _capture_checkout(tmp_path, impl)
    result = PropertyRunner(checkout, "tests/properties/p.py::prop_double", "1", Sandbox("bwrap"),
                            timeout_seconds=10)({})
    # the implementation's process cannot even say what it raised: it ends, and the boundary's fault blocks
    assert (result.outcome, result.reason) == ("transport", "wire:closed"), result


# -- found by review: the checkout's birth time told the first evaluation from the rest --
FIRST_RUN_BY_BIRTH_TIME = (
    "import os, subprocess, time\n\n"
    "def _young():\n"
    "    born = subprocess.run(['stat', '-c', '%.9W', os.path.abspath(__file__)], capture_output=True,\n"
    "                          text=True).stdout.strip()\n"
    "    return not float(born or 0) or time.time() - float(born) < 0.5  # unknown: fail, to be safe\n\n"
    "def double(x):\n"
    "    if x == 13 and _young():\n"
    "        return 27\n"
    "    return 2 * x\n"
)


def _birth_time_run(git_repo, tmp_path):
    from test_run import base_repo, local_run

    repo = base_repo(git_repo)
    repo.commit({"src/calc.py": FIRST_RUN_BY_BIRTH_TIME})
    [result] = local_run(repo, tmp_path / "out").results
    return result


@pytest.mark.parametrize("start", ["off", "on"], ids=["cold", "warm"])
def test_a_regression_that_shows_only_on_a_freshly_staged_checkout_is_not_first_run_only(git_repo, tmp_path,
                                                                                          monkeypatch, start):
    monkeypatch.setenv("WITNESS_WARM", start)
    result = _birth_time_run(git_repo, tmp_path)
    # stat(1) gets no birth time in the sandbox: every evaluation sees the same, so the regression stands
    assert result.verdict.label == "regression", (result.verdict.label, result.verdict.hold_reasons)


def test_with_statx_allowed_the_first_evaluation_alone_fails(git_repo, tmp_path, monkeypatch):
    # the control: without the statx refusal the same patch fails only its first evaluation. Cold starts
    # only: its patch tells "first" by the checkout being under half a second old, and a warm series runs
    # its first few evaluations within that half second (the refusal itself is tested under both starts)
    from witness_gate.sandbox import seccomp

    monkeypatch.setenv("WITNESS_WARM", "off")
    calls = {k: v for k, v in seccomp.REFUSED["x86_64"][1].items() if k != "statx"}
    monkeypatch.setitem(seccomp.REFUSED, "x86_64", (seccomp.REFUSED["x86_64"][0], calls))
    result = _birth_time_run(git_repo, tmp_path)
    assert result.verdict.label == "not_reproduced", (result.verdict.label, result.verdict.hold_reasons)


def test_the_console_script_never_imports_the_checkout_s_own_witness_gate(git_repo, tmp_path):
    # README's commands: `witness-gate` typed inside a checkout that carries a witness_gate/ package of its own
    import shutil as shutils

    script = shutils.which("witness-gate")
    if script is None:
        pytest.skip("the console script is not installed here (pip install -e .)")
    marker = tmp_path / "ran-on-the-host"
    planted = f"open({str(marker)!r}, 'w').write('x')\n"
    git_repo.commit({"README.md": "x\n"})
    git_repo.commit({"witness_gate/__init__.py": planted, "witness_gate/cli/main.py": planted, "argparse.py": planted})
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([script, "run", "--repo", "."], cwd=git_repo.path, capture_output=True, text=True,
                          env=env, timeout=300)
    assert not marker.exists(), done.stderr
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    # the control: `python -m witness_gate` there runs the checkout's package, before any code of ours
    subprocess.run([sys.executable, "-m", "witness_gate", "--help"], cwd=git_repo.path, capture_output=True,
                   env=env, timeout=60)
    assert marker.exists()
