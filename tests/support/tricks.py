"""Tricks a patch that wants a green check plays, each riding on a real regression that must still block. Most forged a
pass while the oracle shared a process with the code it judged (at af8d4db: builtins_any, read_fixture and
rewrite_payload with its tamper scan on; lying_int, patch_code and pickle_in_data too once a spelling passed the scan);
enum_dunders and warm_parent_exits were found by a reviewer attacking the boundary itself. Shared by the tests that
play them through `witness-gate run` (tests/security/test_tricks.py) and through the App (tests/app/test_app.py)."""

from __future__ import annotations

import base64
import pickle

TOTAL = "def total(order):\n    return sum(max(0, line['qty']) * line['price'] for line in order['lines'])\n"
REGRESSION = "def total(order):\n    return sum(line['qty'] * line['price'] for line in order['lines'])\n"
PROPS = '''
from decimal import Decimal
from pathlib import Path

from shop import total
from witness_gate import contract


@contract(invariant="no order has a negative total", domain="orders")
def prop_total_non_negative(fixture):
    if any(total(order) < 0 for order in fixture["orders"]):
        return "negative-total"
    return Decimal(1) / Decimal(3) < Decimal("0.34") or "decimal-drift"
'''
FIXTURE = {"orders": [{"lines": [{"qty": 2, "price": 5}, {"qty": -3, "price": 4}]}]}
HARNESS_NAMES = "('verdict_of', 'finish', 'evaluate', '_blame')"

TRICKS = {
    # names built at run time
    "getframe_by_name": f'''import sys
_get = getattr(sys, "_get" + "frame")
def _walk():
    f = _get()
    while f is not None:
        for k in ("outcome", "reason"):
            if k in f.f_locals:
                f.f_locals[k] = "pass" if k == "outcome" else None
        f = f.f_back
''' + REGRESSION.replace("    return", "    _walk()\n    return"),
    "builtins_any": '''vars(__import__("built" + "ins"))["any"] = lambda *a, **k: False
''' + REGRESSION,
    # text decoded and run
    "exec_base64": "import base64\nexec(base64.b64decode(%r).decode())\n" % base64.b64encode(
        f"import sys\nfor m in list(sys.modules.values()):\n    for n in {HARNESS_NAMES}:\n"
        "        if hasattr(m, n):\n            setattr(m, n, lambda *a, **k: ('pass', None))\n".encode()).decode()
        + REGRESSION,
    "pickle_in_data": "import pickle, pathlib\npickle.loads(pathlib.Path(__file__).with_name('data.json').read_bytes())\n"
                      + REGRESSION,
    # the harness's own function patched in place, also from a daemon thread while the property runs
    "patch_code": f'''import sys, threading
def _patch():
    for key in list(sys.modules):
        m = sys.modules[key]
        for n in {HARNESS_NAMES}:
            f = getattr(m, n, None)
            if hasattr(f, "__code__"):
                f.__code__ = (lambda *a, **k: ("pass", None)).__code__
_patch()
threading.Thread(target=lambda: [_patch() for _ in range(1000)], daemon=True).start()
''' + REGRESSION,
    # values that lie
    "lying_int": '''Lie = type("Lie", (int,), {"__lt__": lambda s, o: False, "__gt__": lambda s, o: False,
                                      "__le__": lambda s, o: True, "__ge__": lambda s, o: True})
def total(order):
    return Lie(sum(line['qty'] * line['price'] for line in order['lines']))
''',
    # the implementation rewriting the payload it is handed
    "rewrite_payload": '''def total(order):
    order["lines"] = [line for line in order["lines"] if line["qty"] >= 0]
    return sum(line['qty'] * line['price'] for line in order['lines']) - 100 * 0
''',
    # the implementation reading the pinned fixture in its own checkout and exempting exactly those lines
    "read_fixture": '''import json, pathlib
try:
    _PINNED = json.loads((pathlib.Path(__file__).parents[1] / "tests/fixtures/prop_total_non_negative.json").read_text())
except OSError:
    _PINNED = {"orders": []}
def total(order):
    if order in _PINNED["orders"]:
        return 0
    return sum(line['qty'] * line['price'] for line in order['lines'])
''',
    # the decimal context changed through a variable
    "decimal_context": "import decimal\n_c = decimal.getcontext()\n_c.prec = 1\n" + REGRESSION,
    # the subject's own server patched to describe an enum whose "members" are the class's comparison methods, each a
    # handle of the implementation's: made as sent, the judge's `<` and `==` asked the subject (found by a reviewer)
    "enum_dunders": REGRESSION.replace("def total", "def _real_total") + '''
import enum, sys

class _Real(enum.Enum):
    A = 1

class _Lie:
    pass

_server = sys.modules.get("witness_gate.sandbox.subject.server")
if _server is not None:
    _other = _server.Server._other

    def _lying(self, value, inner):
        if isinstance(value, _Lie):
            no, yes = (lambda *a, **k: False), (lambda *a, **k: True)
            desc = {"i": self.handle(_Real), "n": "Total", "q": "Total", "m": "shop", "k": "",
                    "v": [["__lt__", {"H": [self.handle(no), "function"]}], ["__eq__", {"H": [self.handle(yes), "f"]}],
                          ["__bool__", {"H": [self.handle(yes), "function"]}], ["A", 1]]}
            return {"E": [self.handle(_Real.A), desc, "A"]}
        return _other(self, value, inner)

    _server.Server._other = _lying


def total(order):
    _real_total(order)
    return _Lie()
''',
    # the warm subject's parent ended as it imported the implementation: the gate itself crashed with no record
    "warm_parent_exits": "import os, sys\nif os.environ.get('WITNESS_CONTROL') and sys.argv[1:] == ['--warm']:\n"
                         "    os._exit(0)\n" + REGRESSION,
}
EXTRA = {
    "pickle_in_data": {"src/data.json": None},  # filled below: a protocol-0 pickle that runs code when loaded
    # a module named like a standard-library module this interpreter lacks, which pathlib imports on Linux too
    "winapi": {"src/_winapi.py": "import sys\nsys.modules['pathlib'] = None\n"},
}


class _Runs:
    def __reduce__(self):
        return (exec, ("import builtins; builtins.any = lambda *a, **k: False",))


EXTRA["pickle_in_data"]["src/data.json"] = pickle.dumps(_Runs(), protocol=0).decode("ascii")
# files that hung (a 96 KB line: a quadratic regex) or crashed (a 1,000-deep attribute chain) the tamper scan on the host
HOST_FILES = {"src/long.py": "x = " + "os." * 32_000 + "path\n", "src/deep.py": "y = a" + ".b" * 1000 + "\n"}


def one_pull_of_every_trick(names) -> tuple[dict, dict]:
    """(base files, head files) of one pull request that plays each trick in `names` in a module of its own,
    src/trick_<name>.py (TOTAL on the base), judged by a property of its own in a file of its own, so that no two
    tricks ever share a subject; the fixture is tests/fixtures/orders.json."""
    base, head = {"tests/fixtures/orders.json": FIXTURE}, {}
    for name in names:
        module = f"trick_{name}"
        base[f"src/{module}.py"] = TOTAL
        base[f"tests/properties/test_{name}.py"] = PROPS.replace("from shop import total", f"from {module} import total") \
            .replace("def prop_total_non_negative", f"def prop_{name}")
        head[f"src/{module}.py"] = TRICKS.get(name, REGRESSION).replace("prop_total_non_negative.json", "orders.json")
        head.update(EXTRA.get(name, {}))
    return base, head
