"""The warm start: each evaluation of a series is forked from one warm parent, and still starts from nothing.

Each leak test runs one evaluation that leaves something behind and a second that looks for it, in one
series; the property's modules and the set-up's environment are real files, the sandbox is bubblewrap.
"""

import pytest

from witness_gate.runner import PropertyRunner, hash_seed
from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory
from witness_gate.warm_imports import reached, wanted

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

PROPERTIES = '''
import ctypes, json, os, random, subprocess, sys, time

import slowdep
from shop import total

WRITABLE = ("/tmp", "/scratch", "/dev/shm")


def prop_files(p):
    if not p:
        seen = [f for f in WRITABLE if os.listdir(f)]
        return not seen or "saw:" + ",".join(seen)
    for folder in WRITABLE:
        open(os.path.join(folder, "left-behind"), "w").write("x")
        os.makedirs(os.path.join(folder, "sealed", "deep"))
        os.chmod(os.path.join(folder, "sealed"), 0)
    return True


def prop_environment(p):
    if not p:
        return not ({"LEFT_BEHIND", "LEFT_BEHIND_TOO"} & set(os.environ)) or "saw-environment"
    os.environ["LEFT_BEHIND"] = "1"
    os.putenv("LEFT_BEHIND_TOO", "1")
    return True


def prop_processes(p):
    if not p:
        others = [e for e in os.listdir("/proc") if e.isdigit() and int(e) not in (1, os.getpid(), os.getppid())]
        return not others or "saw-processes:" + ",".join(others)
    subprocess.Popen(["sleep", "60"], start_new_session=True, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
    return True


def prop_module_attributes(p):
    if not p:
        return not any(hasattr(m, "left_behind") for m in (json, slowdep, sys)) or "saw-attributes"
    json.left_behind = slowdep.left_behind = sys.left_behind = 1
    return True


def _msgget(flags):
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.msgget(0x5157, flags)


def prop_message_queue(p):
    if not p:
        return _msgget(0) < 0 or "saw-message-queue"
    _msgget(0o1000 | 0o600)  # IPC_CREAT
    return True


def prop_imported_here(p):
    return "imported-here" if slowdep.PID == os.getpid() else "imported-before"


def prop_seeded(p):
    return f"r{random.randint(0, 10**9)}-h{hash('witness') % 10**6}-{os.environ['PYTHONHASHSEED']}"


def prop_hangs_once(p):
    if p.get("hang"):
        time.sleep(60)
    return total([1, 2]) == 3
'''
SLOWDEP = "import os\nPID = os.getpid()\n"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    (root / "tests" / "properties").mkdir(parents=True)
    (root / "tests" / "properties" / "p.py").write_text(PROPERTIES)
    (root / "src").mkdir()
    (root / "src" / "shop.py").write_text("def total(xs):\n    return sum(xs)\n")
    env = tmp_path_factory.mktemp("env")
    (env / "slowdep.py").write_text(SLOWDEP)
    return stage_directory(root), stage_directory(env)  # where the sandbox uid can read them, as the gate stages


def series(checkout, name, warm=True, **options):
    repo, env = checkout
    options = {"timeout_seconds": 10, "environment": env, "warm": warm, "parallel": 1, **options}
    return PropertyRunner(repo, f"tests/properties/p.py::{name}", "17", Sandbox("bwrap"), **options)


def twice(checkout, name):
    """One evaluation that leaves something behind, then one that looks for it: one series, one warm parent."""
    runner = series(checkout, name)
    try:
        assert runner({"leave": True}).outcome == "pass"
        return runner({})
    finally:
        runner.close()


@pytest.mark.parametrize("name", ["prop_files", "prop_environment", "prop_processes", "prop_module_attributes",
                                  "prop_message_queue"])
def test_one_evaluation_leaves_nothing_for_the_next(checkout, name):
    result = twice(checkout, name)
    assert (result.outcome, result.reason) == ("pass", None), result


def test_the_dependencies_are_imported_once_per_series_not_per_evaluation(checkout):
    warm, cold = series(checkout, "prop_imported_here"), series(checkout, "prop_imported_here", warm=False)
    try:
        assert [warm({}).reason for _ in range(3)] == ["imported-before"] * 3
        assert cold({}).reason == "imported-here"
        assert warm.note == ""
    finally:
        warm.close()


def test_each_evaluation_gets_the_pinned_seed_and_hash_seed(checkout):
    warm, cold = series(checkout, "prop_seeded"), series(checkout, "prop_seeded", warm=False)
    try:
        rows = [warm({}).reason for _ in range(2)]
        assert rows == [cold({}).reason] * 2 and rows[0].endswith(hash_seed("17"))
    finally:
        warm.close()


def test_an_evaluation_that_hangs_ends_alone_and_the_next_starts_warm_again(checkout):
    runner = series(checkout, "prop_hangs_once", timeout_seconds=2)
    try:
        rows = [runner({"hang": True}), runner({})]
        assert [(r.outcome, r.reason) for r in rows] == [("transport", "timeout"), ("pass", None)]
        assert runner.note == ""  # a timeout ends its own sandbox; the series stays warm
    finally:
        runner.close()


def test_a_dependency_that_imports_what_the_repository_provides_starts_cold_and_says_why(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "p.py").write_text("import dep\n\ndef prop_which(p):\n    return dep.which()\n")
    (root / "shop.py").write_text("NAME = 'the repository'\n")
    env = tmp_path / "env"
    env.mkdir()
    (env / "dep.py").write_text("import shop\n\ndef which():\n    return 'shop from ' + shop.NAME\n")
    (env / "shop.py").write_text("NAME = 'the environment'\n")
    runner = PropertyRunner(stage_directory(root), "p.py::prop_which", "1", Sandbox("bwrap"), timeout_seconds=10,
                            environment=stage_directory(env), warm=True)
    try:
        assert runner({}).reason == "shop from the repository"  # as a cold start imports it
        # refused in the parent, where the repository's shop comes first on the path as it does cold
        assert "warm start not used: the set-up environment asks for shop" in runner.note, runner.note
    finally:
        runner.close()


def test_without_bubblewrap_or_with_a_command_the_series_starts_cold_and_says_why(checkout):
    repo, env = checkout
    plain = PropertyRunner(repo, "tests/properties/p.py::prop_seeded", "1", Sandbox("none"), warm=True,
                           environment=env)
    assert plain({}).outcome == "fail" and "needs bubblewrap" in plain.note
    command = PropertyRunner(repo, "x", "1", Sandbox("bwrap"), warm=True, command=("/bin/true",))
    assert command({}).outcome == "pass" and "properties.command is set" in command.note


def test_the_warm_imports_come_from_outside_the_repository_only(checkout):
    repo, _ = checkout
    names = wanted(repo, "tests/properties/p.py")
    assert {"slowdep", "json", "ctypes", "subprocess"} <= set(names)
    assert not any(n.split(".")[0] in ("shop", "tests") for n in names), names


KILLS_ITS_PARENT = ("import os\n\ndef double(x):\n"
                    "    os.kill(os.getppid(), 9)  # the sandbox's init, warm (the warm parent) and cold: ignored\n"
                    "    return 2 * x\n")


def test_an_evaluation_cannot_kill_its_warm_parent(git_repo, tmp_path, monkeypatch):
    from test_run import base_repo, local_run

    monkeypatch.setenv("WITNESS_WARM", "on")
    repo = base_repo(git_repo)
    repo.commit({"src/calc.py": KILLS_ITS_PARENT})
    [result] = local_run(repo, tmp_path / "out").results
    assert [row.outcome for row in result.evidence.first] == ["pass"] * len(result.evidence.first)
    assert not any("warm start not used" in note for note in result.record["notes"]), result.record["notes"]


# -- the warm parent compiles (never runs) the repository files the property reaches --
def test_the_repository_files_the_property_reaches_are_listed_for_compiling_property_first(checkout):
    repo, _ = checkout
    outside, files = reached(repo, "tests/properties/p.py")
    assert files == ["tests/properties/p.py", "src/shop.py"]
    assert outside == wanted(repo, "tests/properties/p.py")


def test_a_link_out_of_the_checkout_is_never_read_by_the_host(tmp_path):
    secret = tmp_path / "host" / "secret.py"
    secret.parent.mkdir()
    secret.write_text("import host_only_name\n")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "p.py").write_text("import leak\n\ndef prop(p):\n    return True\n")
    (root / "leak.py").symlink_to(secret)
    outside, files = reached(root, "p.py")
    assert "host_only_name" not in outside and files == ["p.py"]


def test_a_compiled_file_is_used_only_for_the_very_bytes_it_was_compiled_from(tmp_path, monkeypatch):
    from witness_gate import harness_imports as harness

    module = tmp_path / "m.py"
    module.write_text("WHICH = 'compiled by the parent'\n")
    monkeypatch.setattr(harness, "COMPILED", {})
    harness.precompile(str(module))
    loader = harness.SourceOnlyLoader("m", str(module))
    assert loader.get_code("m") is harness.COMPILED[str(module)][1]
    module.write_text("WHICH = 'what the file says now'\n")
    namespace = {}
    exec(loader.get_code("m"), namespace)
    assert namespace["WHICH"] == "what the file says now"


def test_a_file_that_does_not_compile_is_left_to_each_evaluation(tmp_path, monkeypatch):
    from witness_gate import harness_imports as harness

    (tmp_path / "bad.py").write_text("def broken(:\n")
    (tmp_path / "big.py").write_text("x = 1\n" * (harness.MAX_COMPILED_BYTES // 6 + 1))
    monkeypatch.setattr(harness, "COMPILED", {})
    harness.precompile(str(tmp_path / "bad.py"))
    harness.precompile(str(tmp_path / "big.py"))
    harness.precompile(str(tmp_path / "missing.py"))
    assert harness.COMPILED == {}
    with pytest.raises(SyntaxError):
        harness.SourceOnlyLoader("bad", str(tmp_path / "bad.py")).get_code("bad")


def test_a_warm_evaluation_runs_the_repository_code_the_cold_one_runs(checkout):
    warm, cold = series(checkout, "prop_hangs_once"), series(checkout, "prop_hangs_once", warm=False)
    try:
        assert [warm({}).outcome, warm({}).outcome, cold({}).outcome] == ["pass"] * 3
    finally:
        warm.close()


def test_a_finder_a_dependency_made_for_the_repository_is_not_inherited(tmp_path):
    # a dependency that lists the repository's modules (pkgutil) when imported would see the repository
    # only cold (fifth review): the series starts cold, and each evaluation loads the repository's code from
    # source through its own hook
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "shop.py").write_text("NAME = 'shop'\n")
    (root / "p.py").write_text("import lister\n\ndef prop(p):\n    import shop\n"
                               "    return type(shop.__loader__).__name__ == 'SourceOnlyLoader' or "
                               "'loaded-by:' + type(shop.__loader__).__name__\n")
    env = tmp_path / "env"
    env.mkdir()
    (env / "lister.py").write_text("import os, pkgutil\n\nFOUND = [m.name for m in pkgutil.iter_modules("
                                   "[os.path.join(os.getcwd(), 'src')])]\n")
    runner = PropertyRunner(stage_directory(root), "p.py::prop", "1", Sandbox("bwrap"), timeout_seconds=10,
                            environment=stage_directory(env), warm=True, parallel=1)
    try:
        assert [(r.outcome, r.reason) for r in (runner({}), runner({}))] == [("pass", None)] * 2
        assert "listed a folder" in runner.note, runner.note
    finally:
        runner.close()


def test_a_failure_starts_a_spare_parent_so_its_replays_run_at_once(checkout):
    # replays long enough, one after another, to outlast a parent's start: the spare is due at the failure
    runner = series(checkout, "prop_imported_here", parallel=2, replays=1000)
    try:
        first = runner({})
        assert first.outcome == "fail"  # prop_imported_here fails, with its reason: replays will follow
        for thread in runner._series._spares:
            thread.join(30)
        assert len(runner._series._idle) == 2 and runner.note == ""
        from witness_gate.attempt import replay_series

        rows = replay_series({}, runner, 4, "replay", lambda *_: None)
        assert [r.reason for r in rows] == ["imported-before"] * 4
    finally:
        runner.close()
    assert runner._series._idle == [] and runner._series._parents == 0


def test_a_short_shrink_of_a_property_slow_to_import_starts_no_spare_parent(tmp_path):
    # a spare would be ready only after the replays ended: its import would take the core the series runs on
    from warmcases import build

    from witness_gate.attempt import replay_series

    slow = "import time\n_t = time.process_time()\nwhile time.process_time() - _t < 0.4:\n    pass\n"
    repo, env = build(tmp_path, {"p.py": "import slowimport\n\n\ndef prop(p):\n    return 'regression'\n"},
                      {"slowimport.py": slow})
    runner = PropertyRunner(repo, "p.py::prop", "17", Sandbox("bwrap"), timeout_seconds=10, environment=env,
                            warm=True, parallel=2, replays=5)
    try:
        assert [runner({"n": n}).reason for n in range(8)] == ["regression"] * 8  # the first run and a shrink
        assert not runner._series._spared and runner.note == ""
        rows = replay_series({}, runner, 5, "replay", lambda *_: None)
        assert [r.reason for r in rows] == ["regression"] * 5 and not runner._series._spared
    finally:
        runner.close()


def test_a_series_closed_while_its_spare_starts_leaves_no_parent_behind(checkout):
    runner = series(checkout, "prop_imported_here", parallel=2, replays=1000)
    runner({})
    runner.close()  # at once: the spare is still starting
    assert runner._series._idle == [] and runner._series._parents == 0
    assert all(not t.is_alive() for t in runner._series._spares)
