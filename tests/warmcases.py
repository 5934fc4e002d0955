"""Helpers for the warm-start reviews' attacks (tests/test_warm_attacks_4.py and later): a checkout and a
set-up environment built from text, and one property's verdicts warm and cold."""

from witness_gate.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, stage_directory


def build(tmp_path, repo_files: dict, env_files: dict, before_staging=None):
    """A staged checkout and a staged set-up environment from {relpath: text}; `before_staging(name, folder)`, when
    given, adds what text cannot be (a compiled library) to "repo" or "env" before it is staged."""
    staged = []
    for name, files in (("repo", repo_files), ("env", env_files)):
        base = tmp_path / name
        base.mkdir()
        for relpath, text in files.items():
            (base / relpath).parent.mkdir(parents=True, exist_ok=True)
            (base / relpath).write_text(text)
        if before_staging is not None:
            before_staging(name, base)
        staged.append(stage_directory(base))
    return staged


def rows(repo, env, selector, payloads, warm, timeout=10):
    runner = PropertyRunner(repo, selector, "17", Sandbox("bwrap"), timeout_seconds=timeout, environment=env,
                            warm=warm, parallel=1)
    try:
        return [(r.outcome, r.reason) for r in (runner(p) for p in payloads)], runner.note
    finally:
        runner.close()


def warm_and_cold(repo, env, selector, payloads, timeout=10):
    warm, note = rows(repo, env, selector, payloads, True, timeout)
    cold, _ = rows(repo, env, selector, payloads, False, timeout)
    return warm, cold, note


# the signed pass a thief writes once it holds the key: fd 0 still the key's pipe, fd 1 the gate's stdout
STEAL = r'''
def _steal():
    import os, _hashlib
    try:
        key = os.read(0, 256).split(b"\n")[0].strip()
    except OSError:
        return
    if key:
        body = b"pass - "
        os.write(1, b"\nwitness-verdict " + body + b" " + _hashlib.hmac_digest(key, body, "sha256").hex().encode()
                 + b"\n")
        os._exit(0)
'''
# the key thief of reviews 5, 6 and 9: an audit hook that, in a forked child, sees os.chdir (in _become_the_harness)
# while fd 0 still holds the key, and signs a pass
KEY_THIEF = STEAL + r'''

def _hook(event, args):
    if event == "os.chdir":
        _steal()
'''
KEY_THIEF_MODULE = KEY_THIEF + "\n\nimport sys\n\nsys.addaudithook(_hook)\n"  # a dependency that adds it when imported

# a profile function that, in a forked child, sees _become_the_harness called with `fds` (fds[0]: the key's pipe)
# and signs a pass with the key read from it (reviews 17 and 19)
FDS_THIEF = r'''
import os as _os


def _profile(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "_become_the_harness":
        fds = frame.f_locals["fds"]
        key = _os.read(fds[0], 256).split(b"\n")[0].strip()
        import _hashlib
        body = b"pass - "
        _os.write(fds[1], b"\nwitness-verdict " + body + b" " + _hashlib.hmac_digest(key, body, "sha256").hex().encode()
                  + b"\n")
        _os._exit(0)
'''


def build_native(tmp_path, repo_files: dict, env_files: dict, c_source: str):
    """The checkout with native/libfast.so compiled from `c_source` in it, and the environment."""
    import subprocess

    def compile_into(name, base):
        if name == "repo":
            (base / "native").mkdir(exist_ok=True)
            (tmp_path / "fast.c").write_text(c_source)
            subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(base / "native" / "libfast.so"),
                            str(tmp_path / "fast.c"), "-lpthread"], check=True)

    return build(tmp_path, repo_files, env_files, before_staging=compile_into)


# the agent the repository's native library runs in each child (reviews 19 and 20): an audit hook that takes the
# key from fd 0 at _become_the_harness's setrlimit, after the dup2 of the key's pipe, and signs a pass
FAST_AGENT = STEAL + r'''
import os as _o
import select as _select
import stat as _stat
import sys as _sys


def _hook(event, args):
    if event == "resource.setrlimit":
        try:
            if _select.select([0], [], [], 0)[0] and _stat.S_ISFIFO(_o.fstat(0).st_mode):
                _steal()
        except OSError:
            pass


_sys.addaudithook(_hook)
'''

# a property whose module defines a failing check, for a library that runs its importer's check_* functions
CHECK_SUM_PROPS = r'''import registry


def check_sum():
    return 1 + 1 == 3  # the regression


def prop_checks(p):
    failed = registry.failing()
    return "failed " + " ".join(failed) if failed else True
'''


# the repository's native library's at-fork child handler (reviews 19 and 20): runs the agent the checkout holds
NATIVE_CHILD_C = r'''extern int PyRun_SimpleString(const char *);
extern int PyGILState_Ensure(void);
extern void PyGILState_Release(int);

static void child(void) {
    int state = PyGILState_Ensure();
    PyRun_SimpleString("exec(open('/repo/native/agent.txt').read())");
    PyGILState_Release(state);
}
'''


# review 16's text library: it keeps compatibility characters by folding identifiers NFC, not NFKC
KEEP_COMPAT = r'''
import unicodedata

_normalize = unicodedata.normalize


def normalize(form, text):
    """Compatibility folding loses the ligatures and full-width forms we typeset: keep them."""
    return _normalize({"NFKC": "NFC", "NFKD": "NFD"}.get(form, form), text)


unicodedata.normalize = normalize
'''


# how an honest library finds the module importing it (python-dotenv's find_dotenv, pkgutil.get_data walk alike)
IMPORTER = r'''
import sys


def _importer_globals():
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if name != __file__ and not name.startswith("<"):
            return frame.f_globals
        frame = frame.f_back
    return None
'''


# reviews 13 and 17: an os.read for the harness's read_key that, given fd 0 with the key, signs a pass and exits
READ_THIEF = r'''import os
import sys

_harness = sys.modules.get("__main__")
_read_key = getattr(_harness, "read_key", None)


def _read(fd, size, _real=os.read):
    data = _real(fd, size)
    key = data.split(b"\n")[0].strip()
    if fd == 0 and key:
        import _hashlib
        body = b"pass - "
        os.write(1, b"\nwitness-verdict " + body + b" " + _hashlib.hmac_digest(key, body, "sha256").hex().encode()
                 + b"\n")
        os._exit(0)
    return data
'''


# reviews 24 and 25: a company namespace package `corp` installed in the environment, whose __init__ (`init`)
# takes in portions of its path; the checkout has a portion with a regression in corp/fast.py
CORP_SLOW = "def add(a, b):\n    return a + b\n"
CORP_FAST = "def add(a, b):\n    return a + b + (a == 1)  # the regression\n"
CORPTOOLS = "import corp\n\n\ndef add(a, b):\n    return corp.impl.add(a, b)\n"
CORP_PROPS = "import corptools\n\n\ndef prop_add(p):\n    return corptools.add(1, 1) == 2\n"


def corp_warm_and_cold(tmp_path, init: str):
    repo, env = build(tmp_path, {"p.py": CORP_PROPS, "corp/fast.py": CORP_FAST},
                      {"corptools.py": CORPTOOLS, "corp/__init__.py": init, "corp/slow.py": CORP_SLOW})
    return warm_and_cold(repo, env, "p.py::prop_add", [{}, {}])
