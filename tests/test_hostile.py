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
from witness_gate.runner import PropertyRunner
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
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and Path(f"/proc/{entry}/comm").read_text().strip() == DAEMON:
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
    result = runner(payload)
    assert result.outcome in ("pass", "transport"), (result.reason, result.detail[-500:])
    assert reached == [], f"{name} reached the host listener"
    assert tree_digest(checkout) == before, f"{name} changed the checkout"
    assert daemons() == [], f"{name} left a process running"
    assert secret.read_text().startswith("-----BEGIN")


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
