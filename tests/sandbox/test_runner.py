"""The runner protocol through real processes, in bubblewrap and in a plain subprocess."""

import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

from witness_gate.sandbox.views import Views, split_checkout
from witness_gate.model.evaluation import Evaluation
from witness_gate.sandbox.runner import PropertyRunner
from witness_gate.sandbox.sides import Sides, hash_seed
from witness_gate.sandbox import Sandbox, bwrap_works, choose, make_readable, stage_directory

PROPERTIES = '''
import os, random, sys, time
from witness_gate import contract

def prop_true(p): return True
def prop_none(p): return None
def prop_false(p): return p["a"] > 5
def prop_reason(p): return "too-big"
def prop_long_reason(p): return "x" * 500
def prop_raise(p): return helper(p)
def helper(p): return p["missing"]
def prop_hang(p): time.sleep(60)
def prop_busy(p):
    while True: pass
def prop_flood(p):
    while True: print("x" * 4096)
def prop_exit_zero(p): os._exit(0)
def prop_sys_exit(p): sys.exit(0)
def prop_returns_int(p): return 3
def prop_returns_empty(p): return ""
def prop_random(p): return "r%d" % random.randint(0, 10**9)
def prop_hash(p): return "h%d" % (hash("witness") % 10**6)
def prop_env(p): return "env:" + ",".join(sorted(os.environ))
def prop_prints_then_fails(p):
    print("lots of noise")
    return "real-reason"
def prop_crash(p): os.kill(os.getpid(), 9)
def prop_alloc(p):
    blob = bytearray(8 * 1024**3)
    return True
def prop_forges_the_verdict(p):
    # what code that read the gate's source might try: write a pass where the verdict goes, then leave
    import json, glob
    stage = os.path.dirname(os.path.dirname(os.environ["WITNESS_FIXTURE"]))  # the host's staging dir, unsandboxed
    for path in ["/scratch/result.json", "/verdict/result.json", *glob.glob("/verdict/*"), *glob.glob("/scratch/*"),
                 *glob.glob(stage + "/verdict-*/*"), *glob.glob(stage + "/eval-*/*")]:
        try:
            json.dump({"outcome": "pass"}, open(path if path.endswith(".json") else path + ".json", "w"))
        except OSError:
            pass
    os._exit(0)
def prop_hangs_on_big(p):
    if p["a"] > 50: time.sleep(60)
    return p["a"] < 5
'''


COUNTS = '''
import ctypes, errno, fcntl, os, struct
_fd = os.open(__file__, os.O_RDONLY)
def _range(kind, start):
    return struct.pack("hhqqi", kind, 0, start, 1, 0)
def _ordinal():  # the first byte no live subject holds a read lock on is this one's
    for i in range(64):
        if struct.unpack("hhqqi", fcntl.fcntl(_fd, fcntl.F_GETLK, _range(fcntl.F_WRLCK, i)))[0] == fcntl.F_UNLCK:
            fcntl.fcntl(_fd, fcntl.F_SETLK, _range(fcntl.F_RDLCK, i))
            return "ordinal-%d" % (i + 1)
def _flock():  # one bit: is another subject holding it?
    fcntl.flock(_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return "flock-first"
def _watch():  # another subject's open of the file would show here
    fd = ctypes.CDLL(None, use_errno=True).inotify_init1(0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify")
    return "watching"
SEEN = []
for probe in (_ordinal, _flock, _watch):
    try:
        SEEN.append(probe())
    except OSError as error:
        SEEN.append("refused-" + errno.errorcode.get(error.errno, "?"))
def seen():
    if all(s.startswith("refused-") for s in SEEN):
        return "refused:" + ",".join(s[8:] for s in SEEN)
    return ",".join(SEEN)
'''


PIPES = '''
import fcntl, os
F_SETPIPE_SZ = 1031
_held = []
def _big_pipe():
    r, w = os.pipe()
    try:
        fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 20)  # refused once the uid's pipe pages pass the soft limit
    except PermissionError:
        os.close(r), os.close(w)
        return False
    _held.append((r, w))
    return True
SEEN = "free" if _big_pipe() else "full"  # full: another subject of this uid is alive and filled them
while len(_held) < 120 and _big_pipe():
    pass
def seen():
    return SEEN
'''


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    (root / "tests" / "properties").mkdir(parents=True)
    (root / "tests" / "properties" / "p.py").write_text(PROPERTIES)
    (root / "tests" / "properties" / "broken.py").write_text("import no_such_module\ndef prop_x(p): return True\n")
    # implementations that fail while a property imports them, and a property module that does not parse
    (root / "src").mkdir()
    (root / "src" / "raises.py").write_text("import os\nraise RuntimeError('boom')\n")
    (root / "src" / "unparsable.py").write_text("x = 1\ndef f(:\n")
    (root / "src" / "lost.py").write_text("kept = 1\n")
    # what a subject's hash seed and address layout decide: a str hash, and the order of a set of functions
    (root / "src" / "varies.py").write_text("".join(f"def _{n}(): pass\n" for n in "abcdefgh") + (
        "ORDER = ''.join(f.__name__[1] for f in {_a, _b, _c, _d, _e, _f, _g, _h})\n"
        "def seen():\n    return 'h%d-%s' % (hash('witness') % 1000, ORDER)\n"))
    (root / "tests" / "properties" / "varies_p.py").write_text("from varies import seen\ndef prop_x(p): return seen()\n")
    # an implementation whose import never ends in a warm subject parent (found by a reviewer: 30 s a candidate)
    (root / "src" / "hangs_warm.py").write_text("import os, sys, time\nif os.environ.get('WITNESS_CONTROL') and "
                                               "sys.argv[1:] == ['--warm']:\n    time.sleep(3600)\nONE = 1\n")
    (root / "tests" / "properties" / "hangs_warm_p.py").write_text("from hangs_warm import ONE\n"
                                                                   "def prop_x(p): return ONE == 1\n")
    # an implementation that counts the subjects alive with it through what they all see: locks and watches on its file
    (root / "src" / "counts.py").write_text(COUNTS)
    (root / "tests" / "properties" / "counts_p.py").write_text(
        "import time\nfrom counts import seen\ndef prop_x(p):\n    s = seen()\n    time.sleep(1)\n"
        "    return True if s == 'refused:ENOLCK,ENOLCK,ENOSYS' else s\n")
    # an implementation that fills its uid's pipe pages (a per-uid count) after looking whether another already has
    (root / "src" / "pipefill.py").write_text(PIPES)
    (root / "tests" / "properties" / "pipes_p.py").write_text(
        "import time\nfrom pipefill import seen\ndef prop_x(p):\n    s = seen()\n    time.sleep(1)\n"
        "    return True if s == 'free' else s\n")
    # a property that reports what its judge had imported before it ran: the same parent for every row
    (root / "tests" / "properties" / "parent_p.py").write_text(
        "import sys\n\ndef prop_x(p):\n    seen = 'statistics' in sys.modules\n    import statistics\n"
        "    return 'had-statistics-%s' % seen\n")
    # an implementation that reports what its subject was told to import before its evaluation
    (root / "src" / "told.py").write_text("import os\nTOLD = os.environ.get('WITNESS_WARM_IMPORTS')\n")
    (root / "tests" / "properties" / "told_p.py").write_text("import told\ndef prop_x(p): return 'told:%s' % told.TOLD\n")
    for module, line in (("uses_raises", "import raises"), ("uses_unparsable", "import unparsable"),
                         ("uses_lost", "from lost import gone"), ("own_syntax", "def (")):
        (root / "tests" / "properties" / f"{module}.py").write_text(f"{line}\ndef prop_x(p): return True\n")
    (root / "prop.sh").write_text(textwrap.dedent('''\
        #!/bin/sh
        case "$WITNESS_PROPERTY" in
          pass) exit 0 ;;
          fail) echo noise; echo "bad-total"; exit 1 ;;
          failquiet) exit 1 ;;
          weird) exit 7 ;;
          seed) echo "seed=$WITNESS_SEED"; exit 1 ;;
          fixture) cat "$WITNESS_FIXTURE"; echo; exit 1 ;;
        esac
        '''))
    (root / "prop.sh").chmod(0o755)
    return stage_directory(root)  # as the gate does: the sandbox uid reads a staged copy


MODES = ["bwrap", "none"]


def evaluate(repo, mode, name, payload=None, timeout=5.0, seed="17", command=None, module="p.py"):
    selector = name if command else f"tests/properties/{module}::{name}"
    runner = PropertyRunner(repo, selector, seed, Sandbox(mode), timeout_seconds=timeout, command=command)
    return runner(payload if payload is not None else {"a": 1})


@pytest.mark.parametrize("warm", [True, False])
def test_a_sample_row_names_the_inputs_it_failed_and_goes_on_past_them_to_one_with_no_verdict(repo, warm):
    # a row stopped at every failure cost a sample whose inputs both sides fail (out of the property's domain) a row
    # an input; a row with no verdict on an input (here a hang) still ends there, naming how far it got
    runner = PropertyRunner(repo, "tests/properties/p.py::prop_hangs_on_big", "17", Sandbox("bwrap"),
                            timeout_seconds=3, warm=warm)
    try:
        runner({"a": 1})  # the sides started, as the head's are when its sample runs
        row = runner.evaluate_sample([{"a": 1}, {"a": 7}, {"a": 2}, {"a": 9}, {"a": 3}])
        assert (row.outcome, row.sample, row.failed, row.reason) == ("fail", 5, (1, 3), "false"), row.detail
        assert runner.evaluate_sample([{"a": 1}, {"a": 2}]).failed == ()
        ended = runner.evaluate_sample([{"a": 7}, {"a": 99}, {"a": 1}])
        assert (ended.outcome, ended.reason, ended.sample, ended.failed) == ("transport", "timeout", None, None)
    finally:
        runner.close()


def test_a_sample_row_on_sides_nothing_started_runs_cold_and_starts_nothing(repo):
    # the base is asked once, after the head's sample: starting its warm parents for one row cost more than the row
    runner = PropertyRunner(repo, "tests/properties/p.py::prop_hangs_on_big", "17", Sandbox("bwrap"),
                            timeout_seconds=5)
    try:
        row = runner.evaluate_sample([{"a": 7}, {"a": 1}])
        assert (row.outcome, row.sample, row.failed, row.isolation) == ("fail", 2, (0,), "split-cold"), row.detail
        assert runner._sides.judge is None and runner._sides.ahead is None
    finally:
        runner.close()


def test_runners_that_share_their_sides_each_evaluate_their_own_property(repo):
    # one warm judge parent serves every property of a gate run: each request names its property
    sides, views = Sides(), split_checkout(repo, lambda relpath: relpath.startswith("tests/"))
    runners = [PropertyRunner(repo, f"tests/properties/p.py::{name}", "17", Sandbox("bwrap"), timeout_seconds=10,
                              sides=sides, views=views) for name in ("prop_reason", "prop_true", "prop_false")]
    try:
        rows = [(runner({"a": 1}), runner.candidate({"a": 1})) for runner in runners]
        parent = sides.judge[0].proc
        assert [(cold.outcome, cold.reason, warm.outcome, warm.reason) for cold, warm in rows] == [
            ("fail", "too-big", "fail", "too-big"), ("pass", None, "pass", None), ("fail", "false", "fail", "false")]
        assert [(cold.isolation, warm.isolation) for cold, warm in rows] == [("split-cold", "split-warm")] * 3
        runners[0].close()  # a runner's end leaves shared sides running for the next
        assert runners[1]({"a": 1}).outcome == "pass" and sides.judge[0].proc is parent and parent.poll() is None
    finally:
        sides.close()
        views.remove()
    assert parent.wait(timeout=10) is not None  # whoever made them ends them
    with pytest.raises(ValueError, match="share their views too"):
        PropertyRunner(repo, "tests/properties/p.py::prop_true", "17", Sandbox("bwrap"), sides=Sides())


def three_at_once(repo, selector):
    """Three cold rows of one runner at once, as parallel replays run: three subjects alive together."""
    runner = PropertyRunner(repo, selector, "17", Sandbox("bwrap"), timeout_seconds=10)
    try:
        with ThreadPoolExecutor(3) as pool:
            return list(pool.map(lambda _: runner({}), range(3)))
    finally:
        runner.close()


@pytest.mark.parametrize("filtered", [True, False])
def test_cold_subjects_alive_at_once_cannot_count_each_other(repo, monkeypatch, filtered):
    # every subject sees the same files (the checkout, the gate, /usr): a lock or a watch one holds on them is seen
    # by the others, so rows run at once could count each other and tell which of a series they serve (found by a
    # reviewer: property B's first row learned it was the run's 21st subject). Control: without those refusals
    # the same subjects count 1, 2, 3.
    from witness_gate.sandbox import seccomp

    if not filtered:
        monkeypatch.setitem(seccomp.NOTICING, "x86_64", (72, {}))
        monkeypatch.setattr(seccomp, "FCNTL_REFUSED", ())
    rows = three_at_once(repo, "tests/properties/counts_p.py::prop_x")
    if filtered:
        assert [(row.outcome, row.isolation) for row in rows] == [("pass", "split-cold")] * 3, rows
    else:
        assert all(row.outcome == "fail" for row in rows), rows
        assert any(not row.reason.startswith("ordinal-1,") for row in rows), rows


def test_every_cold_subject_of_a_run_is_told_the_same_imports(repo):
    # a list that grew with the evaluations (the first subject told nothing, the next what the first imported) told a
    # subject it was not the first (found by a reviewer); the warm subject may learn
    runner = PropertyRunner(repo, "tests/properties/told_p.py::prop_x", "17", Sandbox("bwrap"), timeout_seconds=10)
    try:
        rows = [runner({}) for _ in range(4)] + [runner.candidate({})]
    finally:
        runner.close()
    assert [row.reason for row in rows] == ["told:told"] * 5, rows


def test_cold_subjects_alive_at_once_cannot_count_each_other_through_their_uid(repo, monkeypatch):
    # what the kernel counts per uid (pipe pages here; processes, watches) reached every subject of one sandbox uid:
    # the reviewer's subjects counted 1, 2, 3 through pipe pages. Each cold subject is now a uid of its own, drawn.
    from witness_gate import sandbox as sandboxes

    if Sandbox("bwrap").identity.uid is None:
        pytest.skip("the gate has uids to give only as root")
    drawn = []
    real = sandboxes.subject_uid
    monkeypatch.setattr(sandboxes, "subject_uid", lambda: drawn.append(real()) or drawn[-1])
    rows = three_at_once(repo, "tests/properties/pipes_p.py::prop_x")
    assert [(row.outcome, row.reason) for row in rows] == [("pass", None)] * 3, rows
    assert len(set(drawn)) == len(drawn) >= 3 and Sandbox("bwrap").identity.uid not in drawn


def test_control_subjects_of_one_uid_count_each_other_through_it(repo, monkeypatch):
    from witness_gate import sandbox as sandboxes

    if Sandbox("bwrap").identity.uid is None:
        pytest.skip("the gate has uids to give only as root")
    monkeypatch.setattr(sandboxes, "subject_uid", lambda: Sandbox("bwrap").identity.uid)
    for _ in range(3):  # on a loaded machine three rows "at once" may not overlap: the control is asked again
        rows = three_at_once(repo, "tests/properties/pipes_p.py::prop_x")
        if "full" in [row.reason for row in rows]:
            break
    assert "full" in [row.reason for row in rows], rows


def test_every_judge_child_starts_from_the_same_parent(repo):
    # a warm judge parent that imported what earlier evaluations had imported made the first evaluation slower than
    # the next, and a subject that made the judge import something (a Fraction to decode) could time it (found by a
    # reviewer: row 1 told itself apart 7 times in 7)
    runner = PropertyRunner(repo, "tests/properties/parent_p.py::prop_x", "17", Sandbox("bwrap"), timeout_seconds=10)
    try:
        rows = [runner({}) for _ in range(4)]
    finally:
        runner.close()
    # (its import line is read before the parent starts, so every child has it: the same, whichever row it serves)
    assert [(row.reason, row.isolation) for row in rows] == [("had-statistics-True", "split-cold")] * 4, rows


def test_each_cold_subject_has_a_hash_seed_and_address_layout_of_its_own_recorded_in_its_row(repo):
    # SPEC §10 "What replays vary": set order and hashes vary between cold rows, and a row runs again exactly by its
    # recorded layout; layouts are drawn, so no subject can work out which row of a series it serves
    runner = PropertyRunner(repo, "tests/properties/varies_p.py::prop_x", "17", Sandbox("bwrap"), timeout_seconds=10)
    try:
        cold = [runner({}) for _ in range(6)]
        warm = [runner.candidate({}) for _ in range(2)]
        assert all(row.outcome == "fail" and row.isolation == "split-cold" for row in cold), cold
        assert len({row.layout for row in cold}) == 6 and all(0 < row.layout < 2**32 for row in cold), cold
        hashes, orders = {row.reason.partition("-")[0] for row in cold}, {row.reason.partition("-")[2] for row in cold}
        assert len(hashes) > 2 and len(orders) > 1, cold  # hash('witness') and the set's order move with the layout
        assert warm[0].reason == warm[1].reason and warm[0].layout is None  # a warm subject keeps the pinned seed's
        for row in cold[:3]:  # one layout, one outcome: in a subject started for it, in another process
            again = runner.evaluate({}, layout=row.layout)
            assert (again.reason, again.layout) == (row.reason, row.layout), (again, row)
        assert cold[0].as_row()["layout"] == cold[0].layout  # the record has it
    finally:
        runner.close()


def test_a_warm_subject_parent_that_never_gets_ready_is_tried_once_and_candidates_run_cold(repo, monkeypatch):
    warm_starts, launch = [], Sandbox.launch

    def counted(self, argv, **kw):
        if argv[-1] == "--warm" and "subject" in argv[-2]:
            warm_starts.append(argv)
        return launch(self, argv, **kw)

    monkeypatch.setattr(Sandbox, "launch", counted)
    runner = PropertyRunner(repo, "tests/properties/hangs_warm_p.py::prop_x", "17", Sandbox("bwrap"),
                            timeout_seconds=1)
    try:
        assert runner({}).outcome == "pass"  # cold: the import finishes, and the warm parent learns to import it
        rows = [runner.candidate({}) for _ in range(3)]
    finally:
        runner.close()
    assert [(row.outcome, row.isolation) for row in rows] == [("pass", "split-cold")] * 3, rows
    assert len(warm_starts) == 1, warm_starts  # not once a candidate, each waiting for a ready that never comes


def test_bubblewrap_is_available_here():
    assert bwrap_works() == "", "install bubblewrap: the README's set-up does (apt-get install bubblewrap)"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name, outcome, reason", [
    ("prop_true", "pass", None),
    ("prop_none", "pass", None),
    ("prop_false", "fail", "false"),
    ("prop_reason", "fail", "too-big"),
    ("prop_long_reason", "fail", "exit:1"),
    ("prop_raise", "fail", "raise:KeyError@tests/properties/p.py:11"),
    ("prop_sys_exit", "fail", "raise:SystemExit@tests/properties/p.py:18"),
    ("prop_prints_then_fails", "fail", "real-reason"),
    ("prop_hang", "transport", "timeout"),
    ("prop_busy", "transport", "timeout"),
    ("prop_flood", "transport", "output_limit"),
    ("prop_exit_zero", "transport", "no_verdict"),
    ("prop_forges_the_verdict", "transport", "no_verdict"),
    ("prop_returns_int", "transport", "bad_return"),
    ("prop_returns_empty", "transport", "bad_return"),
    ("prop_crash", "transport", "signal:SIGKILL"),
    ("prop_alloc", "fail", "raise:MemoryError@tests/properties/p.py:29"),
])
def test_python_harness(repo, mode, name, outcome, reason):
    timeout = 1.5 if name in ("prop_hang", "prop_busy") else 10
    result = evaluate(repo, mode, name, timeout=timeout)
    assert (result.outcome, result.reason) == (outcome, reason), result.detail


@pytest.mark.parametrize("mode", MODES)
def test_a_module_that_does_not_import_is_a_transport_fault_that_says_why(repo, mode):
    result = evaluate(repo, mode, "prop_x", module="broken.py")
    assert (result.outcome, result.reason) == ("transport", "import")
    assert "No module named 'no_such_module'" in result.detail


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("module, outcome, reason", [
    ("uses_raises.py", "fail", "raise:RuntimeError@src/raises.py:2"),
    ("uses_unparsable.py", "fail", "raise:SyntaxError@src/unparsable.py:2"),
    ("uses_lost.py", "fail", "raise:ImportError@src/lost.py"),
    ("own_syntax.py", "transport", "import"),  # the property module itself is broken: no verdict
])
def test_an_implementation_that_raises_while_imported_is_a_failure_with_a_stable_reason(repo, mode, module,
                                                                                         outcome, reason):
    results = {(r.outcome, r.reason) for r in (evaluate(repo, mode, "prop_x", module=module) for _ in range(2))}
    assert results == {(outcome, reason)}


@pytest.mark.parametrize("mode", MODES)
def test_the_seed_pins_random_and_hash_order(repo, mode):
    a = evaluate(repo, mode, "prop_random", seed="17")
    b = evaluate(repo, mode, "prop_random", seed="17")
    c = evaluate(repo, mode, "prop_random", seed="18")
    assert a.reason == b.reason != c.reason
    h1, h2 = evaluate(repo, mode, "prop_hash", seed="17"), evaluate(repo, mode, "prop_hash", seed="17")
    assert h1.reason == h2.reason
    assert hash_seed("17") == hash_seed("17") != hash_seed("18")


@pytest.mark.parametrize("mode", MODES)
def test_the_environment_is_cleared(repo, mode, monkeypatch):
    monkeypatch.setenv("GITHUB_PRIVATE_KEY", "-----BEGIN RSA PRIVATE KEY-----")
    monkeypatch.setenv("REDIS_URL", "redis://localhost:6379/0")
    names = evaluate(repo, mode, "prop_env").reason.removeprefix("env:").split(",")
    assert "GITHUB_PRIVATE_KEY" not in names and "REDIS_URL" not in names
    assert "WITNESS_RESULT" not in names  # the verdict channel is hidden from the property
    assert {"WITNESS_PROPERTY", "WITNESS_FIXTURE", "WITNESS_SEED", "PYTHONHASHSEED"} <= set(names)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name, outcome, reason", [
    ("pass", "pass", None),
    ("fail", "fail", "bad-total"),
    ("failquiet", "fail", "exit:1"),
    ("weird", "transport", "exit:7"),
    ("seed", "fail", "seed=42"),
    ("fixture", "fail", '{"a":[1,{"b":null}]}'),
])
def test_runner_protocol_command(repo, mode, name, outcome, reason):
    result = evaluate(repo, mode, name, payload={"a": [1, {"b": None}]}, seed="42", command=("./prop.sh",))
    assert (result.outcome, result.reason) == (outcome, reason)


def test_bwrap_has_no_network_and_no_host_files(repo, tmp_path):
    (repo / "tests" / "properties" / "spy.py").write_text(textwrap.dedent('''
        import os, socket
        def prop_net(p):
            try:
                socket.create_connection(("127.0.0.1", 6379), 1)
            except OSError as exc:
                return "net:" + type(exc).__name__
            return "net:connected"
        def prop_files(p):
            seen = [d for d in ("/root/.ssh", "/home", "/etc/passwd", "/work") if os.path.exists(d)]
            return "files:" + ",".join(seen)
        def prop_write(p):
            try:
                open("tests/written.txt", "w").write("x")
            except OSError as exc:
                return "write:" + type(exc).__name__
            return "write:ok"
    '''))
    make_readable(repo)
    net = evaluate(repo, "bwrap", "prop_net", module="spy.py").reason
    assert net.startswith("net:") and net != "net:connected"  # Redis listens on the host's loopback
    assert evaluate(repo, "bwrap", "prop_files", module="spy.py").reason == "files:"
    assert evaluate(repo, "bwrap", "prop_write", module="spy.py").reason == "write:OSError"
    assert not (repo / "tests" / "written.txt").exists()


def test_auto_falls_back_with_a_warning_only_when_bwrap_is_missing(monkeypatch):
    warnings = []
    assert choose("auto", warnings.append).mode == "bwrap" and warnings == []
    monkeypatch.setattr("witness_gate.sandbox.bwrap_works", lambda: "bubblewrap (bwrap) is not installed")
    assert choose("auto", warnings.append).mode == "none"
    assert "plain subprocess" in warnings[0]
    with pytest.raises(Exception, match="not installed"):
        choose("bwrap", warnings.append)


def test_a_sandbox_that_cannot_mount_the_checkout_is_a_transport_fault(tmp_path):
    if Sandbox("bwrap").identity.uid is None:
        pytest.skip("only a gate running as root drops to a uid that cannot read the caller's files")
    hidden = tmp_path / "hidden"
    hidden.mkdir(mode=0o700)
    (hidden / "p.py").write_text("def prop_x(p): return True\n")
    hidden.parent.chmod(0o700)
    views = Views(hidden, hidden, ())  # the judge's view where its uid cannot reach
    result = PropertyRunner(hidden, "p.py::prop_x", "1", Sandbox("bwrap"), timeout_seconds=5, views=views)({})
    assert (result.outcome, result.reason) == ("transport", "sandbox")
    assert "Permission denied" in result.detail


def test_evaluation_row_shape():
    assert Evaluation("fail", "x", "", 0.123456).as_row() == {"outcome": "fail", "reason": "x", "seconds": 0.1235}
