"""Attacks on the warm start, fourteenth review: commit 61bfeca.

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does). The surface
snapshot compared functions, classes and module dicts by identity, but not the contents of the mutable objects
they hold (a dict, a partial's keywords, an instance's attributes). All mended: the compiled checkout and the
decoder's attributes are compared entry by entry, every class a surface module binds and its bases are compared,
a child gets main's settings and path from tuples read before the imports (no partial) and a repository hook
of its own, the parent refuses any audit hook added in it, and posixpath's patterns are made before the
snapshot:
1. harness_imports.COMPILED (reached through __main__._imports) is a dict: a dependency replaces the code the
   parent compiled for the property's file with code of its choosing for the very same bytes;
2. KEY: harness.main reaches each child as a functools.partial made in warm_main (serve's `main`): its
   `keywords` dict is mutable, and an `open_channel` put there is handed the key;
3. KEY: the watch's `hooked` flag is a plain attribute of warm_checks.WATCH (reached through serve's frame):
   a dependency that adds review 5's key thief and sets it back to False is never seen;
4. KEY: the fixture's decoder is an instance (harness._read_fixture's default `decode`, a bound method): its
   `scan_once` attribute, set by a dependency, runs in each child after the key is read, where main's `send`
   still holds it in its closure;
5. the classes of importlib._bootstrap and importlib._bootstrap_external (FileLoader, SourceLoader, FileFinder,
   ModuleSpec ...) have __module__ `_frozen_importlib(_external)`, not their module's __name__, so _surface keeps
   none of them: a FileLoader.get_data patched in place hands each warm child other source for the property.
False positive: os.path.expandvars binds posixpath._varprog (None until first used) and the series starts cold.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import KEY_THIEF
from warmcases import build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

REGRESSION_PROPS = "import {dep}\n\n\ndef prop_regression(p):\n    return 'regression'\n"

SIGN_PASS = r'''
def _sign_pass(key, fd=1):
    import os, _hashlib
    if isinstance(key, str):
        key = key.encode("ascii")
    body = b"pass - "
    os.write(fd, b"\nwitness-verdict " + body + b" " + _hashlib.hmac_digest(key, body, "sha256").hex().encode()
             + b"\n")
    os._exit(0)
'''


def _frame(name):
    return f'''
import sys


def _find(name={name!r}):
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == name:
            return frame
        frame = frame.f_back
    return None
'''


COMPILED_POISON = r'''
import sys

_imports = getattr(sys.modules.get("__main__"), "_imports", None)
_compiled = getattr(_imports, "COMPILED", None)
if isinstance(_compiled, dict):
    for _path, _entry in list(_compiled.items()):  # (source, code, then whatever else the gate keeps)
        _data = _entry[0]
        _forged = _data.replace(b"return 'regression'", b"return True")
        if _forged != _data:
            _compiled[_path] = (_data, compile(_forged, _path, "exec", dont_inherit=True), *_entry[2:])
'''


def test_a_dependency_cannot_replace_the_code_compiled_for_the_property_s_file(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="poison")}, {"poison.py": COMPILED_POISON})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


PARTIAL_KEYWORDS = SIGN_PASS + _frame("serve") + r'''
_serve = _find()
_main = _serve.f_locals.get("main") if _serve is not None else None
if _main is not None and isinstance(getattr(_main, "keywords", None), dict):
    _main.keywords["open_channel"] = _sign_pass
'''


def test_a_dependency_cannot_add_keywords_to_the_partial_every_child_calls(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="kw")}, {"kw.py": PARTIAL_KEYWORDS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


WATCH_RESET = KEY_THIEF + _frame("warm_imports") + r'''
sys.addaudithook(_hook)
_at = _find()
_checks = _at.f_globals.get("CHECKS") if _at is not None else None
_watch = getattr(_checks, "WATCH", None)
if _watch is not None:
    _watch.hooked, _watch.seen = False, ""
'''


def test_a_dependency_cannot_clear_the_watch_s_note_of_its_audit_hook(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="unwatch")}, {"unwatch.py": WATCH_RESET})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


DECODER_INSTANCE = SIGN_PASS + r'''
import sys

_harness = sys.modules.get("__main__")
_reader = getattr(_harness, "_read_fixture", None)
_decode = (getattr(_reader, "__defaults__", None) or (None,))[-1]
_decoder = getattr(_decode, "__self__", None)


def _scan_once(text, index, _real=getattr(_decoder, "scan_once", None)):
    frame = sys._getframe()
    while frame is not None:
        send = frame.f_locals.get("send") if frame.f_code.co_name == "main" else None
        if send is not None and send.__closure__:
            for cell in send.__closure__:
                if isinstance(cell.cell_contents, bytes) and len(cell.cell_contents) >= 16:
                    _sign_pass(cell.cell_contents, frame.f_locals["send"].__closure__[0].cell_contents
                               if isinstance(frame.f_locals["send"].__closure__[0].cell_contents, int) else 1)
        frame = frame.f_back
    return _real(text, index)


if _decoder is not None and hasattr(_decoder, "scan_once"):
    _decoder.scan_once = _scan_once
'''


def test_a_dependency_cannot_set_the_fixture_decoder_s_scanner(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="scan")}, {"scan.py": DECODER_INSTANCE})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


GET_DATA = r'''
import importlib._bootstrap_external as _external

_real = _external.FileLoader.get_data


def get_data(self, path):
    data = _real(self, path)
    if isinstance(path, str) and path.endswith("p.py"):
        return data.replace(b"return 'regression'", b"return True")
    return data


_external.FileLoader.get_data = get_data
'''


def test_a_dependency_cannot_patch_the_loader_s_inherited_get_data(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="getdata")}, {"getdata.py": GET_DATA})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


EXPANDVARS = "import os\n\nCONFIG = os.path.expandvars('$HOME/.config')\n"


def test_an_ordinary_dependency_calling_expandvars_stays_warm(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="expand")}, {"expand.py": EXPANDVARS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert warm == cold == [("fail", "regression")] * 2
    assert note == "", note
