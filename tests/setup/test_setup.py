"""The set-up phase: a per-head environment built in the sandbox, reaching the package index and nothing else.

Run as root in CI, as the worker runs. The set-up probe is hostile on purpose: it tries every way
out the properties try (tests/security/test_hostile.py), plus the egress proxy it is given.
"""

import json
import os
import shutil
import socket
import tempfile
import time
from pathlib import Path

import pytest

from conftest import host_ip, run_cli
from test_hostile import DAEMON, daemons, tree_digest
from witness_gate.config.schema import Config
from witness_gate.setup.environment import SetupFailed, SetupStep, prepare, set_up
from witness_gate.sandbox.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason=f"bubblewrap cannot run here: {bwrap_works()}")

PROBE = r'''
import json, os, socket, sys, time

params = json.load(open("probe_params.json"))
leaks = []

def reach(host, port):
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False

def via_proxy(authority):
    proxy = os.environ["HTTPS_PROXY"].rsplit(":", 1)
    with socket.create_connection((proxy[0][len("http://"):], int(proxy[1])), timeout=5) as s:
        s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (authority, authority)).encode())
        return s.recv(100).decode(errors="replace").split("\r\n")[0]

leaks += ["env:" + k for k in os.environ if any(w in k for w in ("SECRET", "TOKEN", "KEY", "DATABASE", "REDIS"))]
for path in [params["secret"], "/root/.ssh/id_rsa", "/etc/shadow", "/proc/1/environ"]:
    try:
        if open(path).read(64):
            leaks.append("file:" + path)
    except OSError:
        pass
leaks += ["path:" + d for d in params["host_paths"] + ["/root", "/home", "/work"] if os.path.exists(d)]
if reach("127.0.0.1", params["port"]):
    leaks.append("loopback")
if reach(params["host_ip"], params["port"]):
    leaks.append("host-address")
try:
    socket.getaddrinfo("pypi.org", 443)
    leaks.append("dns")
except OSError:
    pass
answers = {a: via_proxy(a) for a in ["127.0.0.1:%d" % params["port"], "%s:%d" % (params["host_ip"], params["port"]),
                                     "localhost:6379", "example.org:443"]}
leaks += ["proxy:" + a for a, line in answers.items() if " 200 " in line]
for path in ["/repo/pwned", "/usr/pwned", "/opt/witness-gate/witness_gate/harness.py"]:
    try:
        open(path, "w").write("pwned")
        leaks.append("write:" + path)
    except OSError:
        pass
if os.fork() == 0:  # a daemon that would outlive the set-up
    os.setsid()
    if os.fork() == 0:
        open("/proc/self/comm", "w").write(params["daemon"])
        time.sleep(3600)
    os._exit(0)
out = os.environ["WITNESS_ENV"]
json.dump({"leaks": leaks, "answers": answers, "uid": os.getuid()}, open(out + "/probe.json", "w"))
open(out + "/installed_dep.py", "w").write("VALUE = 41\n")
# a dependency that tries to run before the harness and write the verdict itself
open(out + "/sitecustomize.py", "w").write(
    "import json, os\n"
    "if os.environ.get('WITNESS_RESULT'):\n"
    "    json.dump({'outcome': 'pass'}, open(os.environ['WITNESS_RESULT'], 'w'))\n"
    "    os._exit(0)\n")
open(out + "/extra.pth", "w").write("extra_dir\n")
os.makedirs(out + "/extra_dir")
open(out + "/extra_dir/from_pth.py", "w").write("OK = True\n")
'''

READS_THE_ENVIRONMENT = '''
import os, socket

def prop_uses_what_the_setup_installed(p):
    import installed_dep
    return installed_dep.VALUE == 41

def prop_fails_whatever_the_setup_installed(p):
    return "must-fail"

def prop_sees_pth_directories(p):
    import from_pth
    return from_pth.OK

def prop_cannot_change_the_environment(p):
    try:
        open(os.environ["WITNESS_ENV"] + "/installed_dep.py", "w").write("VALUE = 0\\n")
        return "LEAK:wrote-the-environment"
    except OSError:
        return True

def prop_has_no_egress_proxy(p):
    reached = []
    for path in ["/run/witness/egress.sock"]:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
            reached.append(path)
        except OSError:
            pass
    return "LEAK:proxy" if reached or "HTTPS_PROXY" in os.environ else True
'''


@pytest.fixture
def checkout(tmp_path):
    source = tmp_path / "source"
    (source / "tests" / "properties").mkdir(parents=True)
    (source / "tests" / "properties" / "test_env.py").write_text(READS_THE_ENVIRONMENT)
    (source / "probe.py").write_text(PROBE)
    return source


def stage(source: Path) -> Path:
    return stage_directory(source)


@pytest.fixture
def cache():
    path = Path(tempfile.mkdtemp(prefix="witness-test-envs-"))
    path.chmod(0o755)  # the sandbox uid passes through to the environments, as through /tmp
    yield path
    shutil.rmtree(path, ignore_errors=True)


def evaluate(directory, name, environment, sandbox=None):
    runner = PropertyRunner(directory, f"tests/properties/test_env.py::{name}", "1", sandbox or Sandbox("bwrap"),
                            timeout_seconds=10, environment=environment, judge_environment=environment)
    return runner({})


def test_the_set_up_reaches_nothing_but_the_index_and_evaluations_see_its_output_read_only(
        checkout, cache, listener, tmp_path, monkeypatch):
    port, reached = listener
    secret = tmp_path / "planted" / "private-key.pem"
    secret.parent.mkdir()
    secret.write_text("-----BEGIN RSA PRIVATE KEY-----\nplanted\n")
    for path in (tmp_path, secret.parent):
        path.chmod(0o755)
    secret.chmod(0o644)  # readable by anyone on the host: only the sandbox's view may protect it
    (checkout / "probe_params.json").write_text(json.dumps({
        "secret": str(secret), "host_paths": [str(secret.parent), str(Path(__file__).parent)], "port": port,
        "host_ip": host_ip(), "daemon": DAEMON}))
    monkeypatch.setenv("GITHUB_WEBHOOK_SECRET", "planted-secret")
    monkeypatch.setenv("INSTALLATION_TOKEN", "ghs_planted")
    directory = stage(checkout)
    before = tree_digest(directory)
    env = prepare(SetupStep(None, ("python3", "probe.py"), 60), checkout=directory, patch_digest="p1",
                  sandbox=Sandbox("bwrap"), cache=cache)
    probe = json.loads((env.path / "probe.json").read_text())
    assert probe["leaks"] == [], probe
    assert all(line.startswith("HTTP/1.1 403") for line in probe["answers"].values()), probe["answers"]
    assert reached == []
    assert tree_digest(directory) == before
    assert daemons() == []
    if os.geteuid() == 0:
        assert probe["uid"] == Sandbox("bwrap").identity.uid  # never root, not even mapped
        # sealed: root owns it now, so nothing of the sandbox uid can change it later
        assert {(p.stat().st_uid, p.stat().st_mode & 0o022) for p in env.path.rglob("*")} == {(0, 0)}

    assert evaluate(directory, "prop_uses_what_the_setup_installed", env.path).outcome == "pass"
    changed = evaluate(directory, "prop_cannot_change_the_environment", env.path)
    assert changed.outcome == "pass", changed
    assert (env.path / "installed_dep.py").read_text() == "VALUE = 41\n"
    assert evaluate(directory, "prop_has_no_egress_proxy", env.path).outcome == "pass"
    forged = evaluate(directory, "prop_fails_whatever_the_setup_installed", env.path)
    assert (forged.outcome, forged.reason) == ("fail", "must-fail"), forged  # its sitecustomize never ran first
    assert evaluate(directory, "prop_sees_pth_directories", env.path).outcome == "pass"
    # and without the environment the same property cannot import it: the set-up is what made it pass (a package
    # nobody installed gives no verdict)
    missing = evaluate(directory, "prop_uses_what_the_setup_installed", None)
    assert (missing.outcome, missing.reason) == ("transport", "missing_package"), missing


def reachable(host: str) -> bool:
    try:
        socket.create_connection((host, 443), timeout=5).close()
        return True
    except OSError:
        return False


def test_a_requirements_file_is_installed_from_the_real_index(checkout, cache):
    if not reachable("pypi.org"):
        pytest.skip("pypi.org is not reachable from this machine")
    (checkout / "requirements.txt").write_text("six==1.16.0\n")
    (checkout / "tests" / "properties" / "test_six.py").write_text(
        "def prop_six_is_there(p):\n    import six\n    return six.__version__ == '1.16.0'\n")
    directory = stage(checkout)
    env = prepare(SetupStep("requirements.txt", None, 300), checkout=directory, patch_digest="p2",
                  sandbox=Sandbox("bwrap"), cache=cache)
    assert "Successfully installed six-1.16.0" in env.log
    assert set(env.reached) <= {"pypi.org:443", "files.pythonhosted.org:443"} and env.reached  # where it went
    result = PropertyRunner(directory, "tests/properties/test_six.py::prop_six_is_there", "1",
                            Sandbox("bwrap"), environment=env.path)({})
    assert result.outcome == "pass", result


def test_a_node_package_installs_when_the_operator_allows_its_registry(checkout, cache, monkeypatch):
    # a non-Python repository: the set-up runs npm, the property is a runner-protocol command
    if shutil.which("npm") is None or not reachable("registry.npmjs.org"):
        pytest.skip("npm or registry.npmjs.org is not available here")
    monkeypatch.setenv("WITNESS_SETUP_HOSTS", "registry.npmjs.org")
    directory = stage(checkout)
    step = SetupStep(None, ("sh", "-c", 'npm install --no-audit --no-fund --prefix "$WITNESS_ENV" is-number@7.0.0'), 300)
    env = prepare(step, checkout=directory, patch_digest="npm", sandbox=Sandbox("bwrap"), cache=cache)
    assert env.reached.get("registry.npmjs.org:443")
    command = ("sh", "-c", 'NODE_PATH="$WITNESS_ENV/node_modules" node -e '
                           '"process.exit(require(\'is-number\')(Number(process.env.WITNESS_SEED)) ? 0 : 1)"')
    result = PropertyRunner(directory, "is-number", "5", Sandbox("bwrap"), command=command, environment=env.path)({})
    assert result.outcome == "pass", result


def test_a_package_outside_the_index_list_is_refused_with_the_reason(checkout, cache, monkeypatch):
    monkeypatch.setenv("WITNESS_SETUP_HOSTS", "mirror.example.invalid")
    (checkout / "requirements.txt").write_text("six==1.16.0\n")
    with pytest.raises(SetupFailed) as failed:
        prepare(SetupStep("requirements.txt", None, 120), checkout=stage(checkout), patch_digest="p3",
                sandbox=Sandbox("bwrap"), cache=cache)
    assert failed.value.kind == "exit:1"
    assert "pypi.org:443 is not a package index the set-up may reach" in failed.value.detail
    assert "the operator's WITNESS_SETUP_HOSTS decides" in failed.value.note()
    assert not list(cache.glob("*.json"))  # nothing half-built is kept


def processes_of(uid: int | None) -> list[int]:
    if uid is None:
        return []
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.stat(f"/proc/{entry}").st_uid == uid:
                found.append(int(entry))
        except OSError:
            pass
    return found


@pytest.mark.parametrize("command, timeout, kind, shown", [
    (("sh", "-c", "echo resolving; echo 'no such package: nonexistent' >&2; exit 3"), 30, "exit:3",
     "no such package: nonexistent"),
    (("sleep", "60"), 1, "timeout", "raise that on the base branch"),
    (("python3", "-c", "import sys\nwhile True: sys.stdout.write('x' * 65536)"), 30, "output_limit", "quieter"),
    (("no-such-tool",), 30, "exit:127", "cannot start no-such-tool"),
    (("python3", "-c", "bytearray(16 * 1024**3)"), 30, "exit:1", "MemoryError"),
    # forks until the process limit stops it, then says how far it got; every child is gone afterwards
    (("python3", "-c", "import os, sys, time\nn = 0\ntry:\n    while n < 10000:\n        if os.fork() == 0:\n"
      "            time.sleep(60); os._exit(0)\n        n += 1\nexcept OSError:\n    sys.exit('stopped at %d' % n)"),
     30, "exit:1", "stopped at"),
])
def test_a_failing_set_up_says_how_it_ended(checkout, cache, command, timeout, kind, shown):
    with pytest.raises(SetupFailed) as failed:
        prepare(SetupStep(None, command, timeout), checkout=stage(checkout), patch_digest="p4",
                sandbox=Sandbox("bwrap"), cache=cache)
    assert failed.value.kind == kind
    assert shown in failed.value.note()
    assert daemons() == [] and processes_of(Sandbox("bwrap").identity.uid) == []  # nothing outlives it


def test_an_environment_is_built_once_per_head_and_step(checkout, cache):
    directory = stage(checkout)
    step = SetupStep(None, ("sh", "-c", 'echo built >> /scratch/n; date +%s%N > "$WITNESS_ENV/stamp"'), 30)
    first = prepare(step, checkout=directory, patch_digest="head-1", sandbox=Sandbox("bwrap"), cache=cache)
    again = prepare(step, checkout=directory, patch_digest="head-1", sandbox=Sandbox("bwrap"), cache=cache)
    other = prepare(step, checkout=directory, patch_digest="head-2", sandbox=Sandbox("bwrap"), cache=cache)
    assert (first.reused, again.reused, other.reused) == (False, True, False)
    assert again.path == first.path and (again.path / "stamp").read_text() == (first.path / "stamp").read_text()
    assert other.path != first.path


def test_a_cache_others_can_write_to_is_refused(checkout, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(SetupFailed) as failed:
        prepare(SetupStep(None, ("true",), 30), checkout=stage(checkout), patch_digest="p5",
                sandbox=Sandbox("bwrap"), cache=shared)
    assert "writable by others" in str(failed.value.detail)


def test_set_up_is_optional_and_a_failure_becomes_a_hold(checkout, cache):
    directory = stage(checkout)
    assert set_up(Config(), checkout=directory, patch_digest="p", sandbox=Sandbox("bwrap"), cache=cache).holds == ()
    failing = Config(setup_command=("false",))
    outcome = set_up(failing, checkout=directory, patch_digest="p", sandbox=Sandbox("bwrap"), cache=cache)
    assert (outcome.environment, outcome.holds) == (None, ("setup_failed",))
    assert outcome.note == ("setup_failed: the set-up step of .witness.yml ended with exit:1; no property ran. "
                            "Fix the set-up or what it installs, then replay.")


def newest_record(out: Path) -> dict:
    path = max(out.rglob("prop_dep.attempt.json"), key=lambda p: p.stat().st_mtime_ns)
    return json.loads(path.read_text())


SETUP_CONFIG = """version: 1
paths:
  impl: ["src/"]
  oracle: ["tests/properties/", "tests/fixtures/"]
properties:
  fixtures: {"*": tests/fixtures/f.json}
setup:
  command: [sh, -c, "%s"]
  timeout_seconds: 30
"""


@pytest.mark.e2e
def test_run_sets_up_each_head_before_its_properties(git_repo, tmp_path, cache, monkeypatch):
    monkeypatch.setenv("WITNESS_CACHE", str(cache))
    make = 'printf \\"VALUE = 41\\\\n\\" > \\"$WITNESS_ENV/installed_dep.py\\"'
    base = git_repo.commit({
        ".witness.yml": SETUP_CONFIG % make,
        "src/app.py": "VALUE = 1\n",
        "tests/fixtures/f.json": {"x": 1},
        "tests/properties/test_env.py": "import witness_gate\n\n@witness_gate.contract(invariant='dep is 41', "
                                        "domain='any')\ndef prop_dep(p):\n    import installed_dep\n"
                                        "    return installed_dep.VALUE == 41\n",
    })
    git_repo.commit({"src/app.py": "VALUE = 2\n"})
    out = tmp_path / "records"
    done = run_cli("run", "--repo", str(git_repo.path), "--base", base, "--head", "HEAD", "--out", str(out),
                   cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "set-up: sh -c printf" in done.stderr  # the person running it sees the long step start
    record = newest_record(out)
    assert record["label"] == "pass" and record["setup"]["reused"] is False
    assert record["setup"]["reached"] == {}  # this set-up needed no index
    assert record["setup"]["step"].startswith("sh -c printf")
    assert any(n.startswith("set-up: sh -c") for n in record["notes"])
    done = run_cli("run", "--repo", str(git_repo.path), "--base", base, "--head", "HEAD", "--out", str(out),
                   cwd=tmp_path)
    assert newest_record(out)["setup"] == {**record["setup"], "reused": True}  # the same head: built once

    # a set-up that fails holds every property and says why; nothing of the head runs
    git_repo.commit({".witness.yml": SETUP_CONFIG % "echo cannot resolve dependency >&2; exit 4"})
    base = git_repo.git("rev-parse", "HEAD")
    git_repo.commit({"src/app.py": "VALUE = 3\n"})
    done = run_cli("run", "--repo", str(git_repo.path), "--base", base, "--head", "HEAD", "--out", str(out),
                   cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    record = newest_record(out)
    assert (record["label"], record["hold_reasons"]) == ("hold", ["setup_failed"])
    assert "cannot resolve dependency" in record["notes"][0]
    assert record["setup"] == {"step": "sh -c echo cannot resolve dependency >&2; exit 4", "failed": "exit:4",
                               "output": "cannot resolve dependency\n"}
    assert "first_runs" not in record


@pytest.mark.e2e
def test_check_on_a_working_tree_sets_it_up_first(git_repo, tmp_path):
    make = 'printf \\"VALUE = 41\\\\n\\" > \\"$WITNESS_ENV/installed_dep.py\\"'
    git_repo.commit({
        ".witness.yml": SETUP_CONFIG % make,
        "tests/fixtures/f.json": {"x": 1},
        "tests/properties/test_env.py": "import witness_gate\n\n@witness_gate.contract(invariant='dep is 41', "
                                        "domain='any')\ndef prop_dep(p):\n    import installed_dep\n"
                                        "    return installed_dep.VALUE == 41\n",
    })
    cwd = git_repo.path
    assert run_cli("pin", "--fixture", "tests/fixtures/f.json", "--generator-version", "1", "--out", "f.lock",
                   cwd=cwd).returncode == 0
    done = run_cli("check", "--lock", "f.lock", "--properties", "tests/properties", "--out", "w", cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((cwd / "w" / "prop_dep.attempt.json").read_text())["setup"]["reused"] is False
    assert not list(Path(tempfile.gettempdir()).glob("witness-envs-*/*.json"))  # a working tree's env is not kept


def test_environments_unused_for_a_day_are_removed_when_another_is_built(checkout, cache):
    directory = stage(checkout)
    ok = SetupStep(None, ("true",), 30)
    old = prepare(ok, checkout=directory, patch_digest="old-head", sandbox=Sandbox("bwrap"), cache=cache)
    with pytest.raises(SetupFailed):
        prepare(SetupStep(None, ("false",), 30), checkout=directory, patch_digest="old-head",
                sandbox=Sandbox("bwrap"), cache=cache)
    recent = prepare(ok, checkout=directory, patch_digest="recent-head", sandbox=Sandbox("bwrap"), cache=cache)
    day_ago = time.time() - 25 * 3600
    for path in cache.iterdir():
        if recent.key not in path.name:
            os.utime(path, (day_ago, day_ago))
    prepare(ok, checkout=directory, patch_digest="new-head", sandbox=Sandbox("bwrap"), cache=cache)
    left = {p.name.split(".")[0] for p in cache.iterdir()}
    assert old.key not in left and not old.path.exists()  # the stale one and the failed one's lock are gone
    assert recent.key in left and recent.path.exists()  # used within the day: kept
    assert len(left) == 2


# -- a set-up that shadows its own tools, runs code from .pth files or fills the host's disk --
SHADOW_PIP = {"pip/__init__.py": "", "pip/__main__.py": (
    "import os\nopen(os.environ['WITNESS_ENV'] + '/shadowed-pip-ran', 'w').write('x')\n"),
    "witness_gate/__init__.py": "", "witness_gate/setup/netshim.py": (
    "import os\nopen(os.environ['WITNESS_ENV'] + '/shadowed-shim-ran', 'w').write('x')\n"),
    "requirements.txt": "# nothing to install\n"}


def test_a_checkout_cannot_stand_in_for_pip_or_the_set_up_shim(checkout, cache):
    for rel, text in SHADOW_PIP.items():
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        (checkout / rel).write_text(text)
    env = prepare(SetupStep("requirements.txt", None, 120), checkout=stage(checkout), patch_digest="p-shadow",
                  sandbox=Sandbox("bwrap"), cache=cache)
    assert sorted(p.name for p in env.path.iterdir() if p.name.startswith("shadowed")) == []


def test_started_from_the_working_directory_pip_is_the_checkout_s(checkout, cache, monkeypatch):
    # the control: `python -m pip` with the checkout as working directory and on sys.path runs its pip/
    for rel, text in SHADOW_PIP.items():
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        (checkout / rel).write_text(text)
    monkeypatch.setattr(SetupStep, "argv", lambda self, python, seen: ["sh", "-c", f"PYTHONPATH=/repo {python} -m pip"])
    env = prepare(SetupStep("requirements.txt", None, 120), checkout=stage(checkout), patch_digest="p-shadow2",
                  sandbox=Sandbox("bwrap"), cache=cache)
    assert (env.path / "shadowed-pip-ran").exists()


PTH_THAT_FORGES = ("import os\n"
                   "open(os.environ['WITNESS_ENV'] + '/evil.pth', 'w').write("
                   "'import os; os.write(1, b\"ran-from-pth\\\\n\"); os._exit(0)\\n')\n")


def test_code_in_the_set_up_s_pth_files_never_runs(checkout, cache):
    (checkout / "writes_pth.py").write_text(PTH_THAT_FORGES)
    directory = stage(checkout)
    env = prepare(SetupStep(None, ("python3", "writes_pth.py"), 60), checkout=directory, patch_digest="p-pth",
                  sandbox=Sandbox("bwrap"), cache=cache)
    assert (env.path / "evil.pth").exists()
    result = evaluate(directory, "prop_fails_whatever_the_setup_installed", env.path)
    assert (result.outcome, result.reason) == ("fail", "must-fail"), result
    assert "not run from the set-up's .pth files: evil.pth" in result.detail
    # the control: site itself would run it
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", f"import site; site.addsitedir({str(env.path)!r})"],
                          capture_output=True, text=True)
    assert done.stdout.strip() == "ran-from-pth"


FILLS_THE_ENVIRONMENT = ("import os\n"
                         "for i in range(12):\n"
                         "    open(os.environ['WITNESS_ENV'] + '/blob%d' % i, 'wb').write(b'\\0' * (16 * 1024**2))\n")


@pytest.mark.parametrize("mode, fits", [("bwrap", False), ("none", True)])
def test_what_the_set_up_keeps_is_capped_by_the_sandbox(checkout, cache, monkeypatch, mode, fits):
    # 192 MiB of environment against a 64 MiB cap: refused under bubblewrap; the control, no sandbox, keeps it all
    import witness_gate.setup.sandboxed as environments
    from dataclasses import replace

    monkeypatch.setattr(environments, "SETUP_LIMITS", replace(environments.SETUP_LIMITS, space_bytes=64 * 1024**2))
    (checkout / "fills.py").write_text(FILLS_THE_ENVIRONMENT)
    step = SetupStep(None, ("python3", "fills.py"), 60)
    if fits:
        env = prepare(step, checkout=stage(checkout), patch_digest=f"p-fill-{mode}", sandbox=Sandbox(mode), cache=cache)
        assert sum(p.stat().st_size for p in env.path.iterdir()) == 192 * 1024**2
        return
    with pytest.raises(SetupFailed) as failed:
        prepare(step, checkout=stage(checkout), patch_digest=f"p-fill-{mode}", sandbox=Sandbox(mode), cache=cache)
    assert "No space left on device" in failed.value.detail
    assert not any(cache.glob("*/blob*"))


# -- second review: the set-up could write the host's disk through the folder that keeps its environment --
WRITES_EVERYWHERE = ("import os\n"
                     "written = []\n"
                     "for folder in ('/run/witness/keep', '/run/witness', '/run', '/repo', '/input', '/opt/witness-gate'):\n"
                     "    try:\n"
                     "        open(folder + '/planted', 'w').write('x')\n"
                     "        written.append(folder)\n"
                     "    except OSError:\n"
                     "        pass\n"
                     "open(os.environ['WITNESS_ENV'] + '/written.txt', 'w').write(','.join(written))\n")


def test_the_set_up_reaches_no_host_folder_and_its_environment_is_handed_over_by_the_shim(checkout, cache):
    (checkout / "writes.py").write_text(WRITES_EVERYWHERE)
    env = prepare(SetupStep(None, ("python3", "writes.py"), 60), checkout=stage(checkout), patch_digest="p-keep",
                  sandbox=Sandbox("bwrap"), cache=cache)
    assert (env.path / "written.txt").read_text() == ""
    assert os.stat(env.path / "written.txt").st_uid == 0 or os.geteuid() != 0  # unpacked by the gate, sealed


@pytest.mark.parametrize("script, shown", [
    ("import os\nos.chdir(os.environ['WITNESS_ENV'])\nfor _ in range(80):\n    os.mkdir('d'); os.chdir('d')\n",
     "folders deep"),
    ("import os\ne = os.environ['WITNESS_ENV']\nopen(e + '/a', 'w').write('x')\nos.link(e + '/a', e + '/b')\n",
     "hard links"),
    ("import os\nf = open(os.environ['WITNESS_ENV'] + '/sparse', 'wb')\nf.truncate(900 * 1024**2)\n",
     "larger than"),
])
def test_an_environment_that_cannot_be_kept_is_a_set_up_failure_not_a_traceback(checkout, cache, monkeypatch,
                                                                                  script, shown):
    import witness_gate.setup.sandboxed as environments
    from dataclasses import replace

    monkeypatch.setattr(environments, "SETUP_LIMITS", replace(environments.SETUP_LIMITS, space_bytes=256 * 1024**2))
    (checkout / "makes.py").write_text(script)
    with pytest.raises(SetupFailed) as failed:
        prepare(SetupStep(None, ("python3", "makes.py"), 60), checkout=stage(checkout), patch_digest="p-bad",
                sandbox=Sandbox("bwrap"), cache=cache)
    assert shown in failed.value.detail, failed.value.detail[-500:]
    assert not any(p for p in cache.iterdir() if p.is_dir())  # nothing of it is kept
