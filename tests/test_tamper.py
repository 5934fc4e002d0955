"""The tamper scan: lines a patch adds to implementation files that reach for the harness or the process."""

import pytest

from witness_gate import tamper
from witness_gate.tamper import Finding, added_lines, scan_change, scan_file, scan_text

BASE = "def double(x):\n    return x + x\n"


@pytest.mark.parametrize("line, slug", [
    ("import os; os._exit(0)", "os_exit"),
    ("from os import _exit", "os_exit"),
    ("getattr(os, '_exit')(0)", "os_exit"),
    ("posix._exit(0)", "os_exit"),
    ("os.execv('/bin/true', ['true'])", "os_exec"),
    ("open('/proc/self/mem', 'rb')", "proc_self"),
    ("os.listdir('/proc/self/fd')", "proc_self"),
    ("open('/proc/1/environ')", "proc_pid"),
    ("open('/proc/4242/cmdline')", "proc_pid"),
    ("os.write(os.open('/dev/fd/1', os.O_WRONLY), b'x')", "dev_fd"),
    ("f = sys._getframe(1)", "frame_walk"),
    ("frame = inspect.currentframe()", "frame_walk"),
    ("for info in inspect.stack():", "frame_walk"),
    ("from inspect import currentframe", "frame_walk"),
    ("caller = frame.f_back", "frame_walk"),
    ("g = f.f_globals", "frame_walk"),
    ("loc = f.f_locals['verdict']", "frame_walk"),
    ("tb.tb_frame.f_code", "frame_walk"),
    ("gen.gi_frame", "frame_walk"),
    ("getattr(f, 'f_back')", "frame_walk"),
    ("for o in gc.get_objects():", "gc_objects"),
    ("gc.get_referrers(x)", "gc_referrers"),
    ("gc.get_referents(x)", "gc_referents"),
    ("sys.modules['json'] = fake", "sys_modules_write"),
    ("sys.modules.update({'json': fake})", "sys_modules_write"),
    ("sys.modules.pop('witness')", "sys_modules_write"),
    ("del sys.modules['json']", "sys_modules_write"),
    ("sys.modules.setdefault('json', fake)", "sys_modules_write"),
    ("sys.modules.__setitem__('json', fake)", "sys_modules_write"),
    ("mods = sys.modules", "sys_modules_write"),
    ("setattr(sys, 'modules', {})", "sys_modules_write"),
    ("sys.path.insert(0, 'vendor')", "import_path"),
    ("sys.path = ['vendor'] + sys.path", "import_path"),
    ("sys.path += ['vendor']", "import_path"),
    ("sys.path[0:0] = ['vendor']", "import_path"),
    ("sys.meta_path.append(Finder())", "import_path"),
    ("sys.path_hooks.insert(0, hook)", "import_path"),
    ("site.addsitedir('vendor')", "import_path"),
    ("from sys import path as where", "import_path"),
    ("for name, module in list(sys.modules.items()):", "sys_modules_scan"),
    ("importlib.machinery.PathFinder.find_spec = mine", "import_machinery"),
    ("    def find_spec(self, name, path, target=None):", "import_machinery"),
    ("math.isclose = lambda a, b, **kw: True", "stdlib_patch"),
    ("setattr(statistics, 'fmean', fake)", "stdlib_patch"),
    ("pdb.Pdb(stdin=commands).set_trace()", "debugger"),
    ("breakpoint()", "debugger"),
    ("    def __eq__(self, other):", "compare_hook"),
    ("    def __bool__(self):", "compare_hook"),
    ("builtins.open = my_open", "builtins_write"),
    ("builtins.__dict__['print'] = p", "builtins_write"),
    ("setattr(builtins, 'len', lambda x: 0)", "builtins_write"),
    ("__builtins__['len'] = f", "builtins_write"),
    ("import builtins as b", "builtins_write"),
    ("import ctypes", "ctypes"),
    ("from ctypes import pythonapi", "ctypes"),
    ("import _ctypes", "ctypes"),
    ("import witness_gate.harness", "import_harness"),
    ("from witness_gate import harness", "import_harness"),
    ("__import__('witness_gate')", "import_harness"),
    ("importlib.import_module('witness_gate.runner')", "import_harness"),
    ("import __main__", "import_harness"),
    ("h = sys.modules['__main__']", "import_harness"),
    ("h = sys.modules.get('__main__')", "import_harness"),
    ("os.kill(1, signal.SIGKILL)", "kill_parent"),
    ("os.kill(os.getppid(), 9)", "kill_parent"),
    ("os.killpg(0, 9)", "kill_parent"),
    ("sys.settrace(tracer)", "trace_hook"),
    ("threading.settrace(tracer)", "trace_hook"),
    ("sys.setprofile(p)", "trace_hook"),
    ("sys.addaudithook(hook)", "audit_hook"),
    ("os.dup2(fd, 1)", "dup2"),
    ("os.write(1, b'pass')", "fd_write"),
    ("os.close(1)", "fd_write"),
    ("open(1, 'w').write('x')", "fd_write"),
    ("sys.stdout = io.StringIO()", "stdout_replace"),
    ("sys.__stdout__.write('pass')", "stdout_replace"),
    ("setattr(sys, 'stderr', None)", "stdout_replace"),
    ("ｏｓ._exit(0)", "os_exit"),  # Python reads identifiers NFKC-normalised
])
def test_each_construct_is_found_with_its_slug_and_line(line, slug):
    head = BASE + "\n" + line + "\n"
    found = scan_text("src/calc.py", BASE, head)
    assert Finding("src/calc.py", 4, slug) in found, found
    assert all(f.line == 4 for f in found)


@pytest.mark.parametrize("line", [
    "import os",
    "if __name__ == '__main__':",
    "return sys.modules.get('json') is not None",
    "x = os.environ.get('HOME')",
    "print('hello', file=sys.stdout)",
    "result = fn(*args)",
    "total = sum(line.price for line in order.lines)",
    "exit_code = 0",
    "if sys.stdout == other:",
    "for folder in sys.path:",
    "here = os.path.join(os.path.dirname(__file__), 'data')",
    "found = 'vendor' in sys.path",
    "fast = importlib.util.find_spec('numpy') is not None",  # asking whether an optional library is there
    "os.environ['SHOP_MODE'] = 'test'",
    "self.stdout, self.count = stream, 0",
    "if x == y and not flag:",
    "os.kill(child_pid, signal.SIGTERM)",
])
def test_ordinary_code_is_not_a_finding(line):
    assert scan_text("src/calc.py", BASE, BASE + line + "\n") == []


def test_a_clean_change_has_no_findings():
    head = "import math\n\ndef double(x):\n    return math.fsum([x, x])\n"
    assert scan_text("src/calc.py", BASE, head) == []


def test_lines_only_in_base_are_not_findings():
    base = "import os\n\ndef bail():\n    os._exit(3)\n\ndef double(x):\n    return 2 * x\n"
    head = base.replace("return 2 * x", "return x + x")
    assert scan_text("src/calc.py", base, head) == []
    # and removing the construct is no finding either
    assert scan_text("src/calc.py", base, "def double(x):\n    return x + x\n") == []


def test_a_changed_line_is_a_finding_at_its_head_line():
    base = "import os\n\ndef double(x):\n    return x + x\n"
    head = "import os\n\ndef double(x):\n    os._exit(0) if x == 13 else None\n    return x + x\n"
    assert added_lines(base, head) == [4]
    assert [f.reason for f in scan_text("src/calc.py", base, head)] == ["tamper:os_exit@src/calc.py:4"]
    replaced = base.replace("return x + x", "return x + x  # os._exit")
    assert [f.reason for f in scan_text("src/calc.py", base, replaced)] == ["tamper:os_exit@src/calc.py:4"]


def test_comments_and_strings_count():
    assert [f.what for f in scan_text("a.py", None, "# see sys._getframe\n")] == ["frame_walk"]
    assert [f.what for f in scan_text("a.py", None, "DOC = '''\nimport ctypes\n'''\n")] == ["ctypes"]
    assert [f.line for f in scan_text("a.py", None, "DOC = '''\nimport ctypes\n'''\n")] == [2]


def test_a_new_file_has_every_line_added():
    head = "import os\n\n\ndef leave():\n    os._exit(0)\n"
    assert added_lines(None, head) == [1, 2, 3, 4, 5]
    assert [f.reason for f in scan_text("helpers.py", None, head)] == ["tamper:os_exit@helpers.py:5"]


def test_several_constructs_on_one_line_are_each_found():
    found = scan_text("a.py", None, "import ctypes, witness_gate\n")
    assert {f.what for f in found} == {"ctypes", "import_harness"}


def test_a_backslash_continued_line_is_read_as_one():
    head = "import inspect\ncallers = inspect.\\\nstack()\n"  # neither line alone is a frame walk
    assert [f.reason for f in scan_text("a.py", None, head)] == ["tamper:frame_walk@a.py:2"]


def test_line_numbers_count_newlines_only():
    head = "x = 1\r\ny = 2 # \x0c\nimport ctypes\r\n"
    assert [f.line for f in scan_text("a.py", None, head)] == [3]


def test_a_binary_file_added_or_changed_is_a_finding():
    assert scan_file("src/_speedups.so", None, b"\x7fELF\0\0\0") == [Finding("src/_speedups.so", 1, "binary")]
    assert scan_file("src/blob.py", b"x = 1\n", b"\xff\xfe not utf-8") == [Finding("src/blob.py", 1, "binary")]
    assert scan_file("src/same.bin", b"\0\1", b"\0\1") == []  # unchanged bytes (a mode change) run nothing new


def test_a_deleted_file_is_no_finding():
    assert scan_file("src/old.py", b"import ctypes\n", None) == []


def test_a_binary_base_counts_every_head_line_as_added():
    assert [f.line for f in scan_file("src/a.py", b"\0\0", b"x = 1\nimport ctypes\n")] == [2]


def test_caps_on_size_files_and_findings():
    assert scan_file("src/big.py", None, b"x = 1\n" * 10, max_bytes=30) == [Finding("src/big.py", 1, "too_large")]
    files = {f"src/m{i}.py": b"x = 1\n" for i in range(5)}
    reasons = scan_change(files, lambda p: None, files.get, max_files=3)
    assert reasons == ["tamper:too_many_files@src/m3.py:1"]
    noisy = {"src/n.py": b"import ctypes\n" * 10}
    reasons = scan_change(noisy, lambda p: None, noisy.get, max_findings=4)
    assert reasons == ["tamper:ctypes@src/n.py:1", "tamper:ctypes@src/n.py:2", "tamper:ctypes@src/n.py:3",
                       "tamper:more@src/n.py:4"]
    heavy = {f"src/h{i}.py": b"x = 1\n" * 100 for i in range(4)}
    assert scan_change(heavy, lambda p: None, heavy.get, max_total_bytes=1000) == ["tamper:too_large@src/h1.py:1"]


def test_scan_change_reads_base_and_head_and_reports_unreadable_files():
    base = {"src/a.py": b"import os\n"}
    head = {"src/a.py": b"import os\nos._exit(0)\n", "src/b.py": b"# fine\n"}
    assert scan_change(["src/b.py", "src/a.py", "src/gone.py"], base.get, head.get) == ["tamper:os_exit@src/a.py:2"]

    def refuses(path):
        raise tamper.ReadFailed(path)

    assert scan_change(["src/a.py"], base.get, refuses) == ["tamper:unreadable@src/a.py:1"]


def test_every_slug_is_short_and_listed():
    assert all(slug.replace("_", "").isalnum() and slug.islower() for slug in tamper.SLUGS)
    assert len(set(tamper.SLUGS)) == len(tamper.SLUGS)


# --- review 9 (session 9): what Python reads as one line or in another encoding, the scan reads so too ----------

def test_a_file_is_read_in_the_encoding_python_reads_it_in():
    # UTF-7 writes `_` as `+AF8-`: as UTF-8 no rule matches, as Python decodes it `os._exit` and a frame walk
    head = b"# coding: utf-7\nimport os, sys\nf = sys.+AF8-getframe()\nos.+AF8-exit(0)\n"
    found = scan_file("src/calc.py", BASE.encode(), head)
    assert {(f.line, f.what) for f in found} >= {(1, "coding"), (3, "frame_walk"), (4, "os_exit")}, found


def test_a_coding_declaration_already_in_the_base_is_not_a_finding_again():
    base = b"# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n"
    assert scan_file("src/names.py", base, base + b"OTHER = 1\n") == []
    assert [f.what for f in scan_file("src/names.py", BASE.encode(), base)] == ["coding"]


def test_a_declaration_of_a_codec_python_does_not_know_is_a_binary():
    assert scan_file("src/a.py", None, b"# coding: no-such-codec\nx = 1\n") == [Finding("src/a.py", 1, "binary")]


@pytest.mark.parametrize("head, line, slug", [
    ("import os, sys\nf = sys." + "\\\n" * 30 + "_getframe()\n", 32, "frame_walk"),  # a continuation of any length
    ("x = (inspect\n     .\n     stack())\n", 1, "frame_walk"),  # an attribute split over the lines of a bracket
    ("(os\n\n\n .\n\n _exit)(0)\n", 6, "os_exit"),
    ("from sys import (\n    _getframe,\n)\n", 2, "frame_walk"),
    ("import sys as s\nf = s._getframe()\n", 2, "frame_walk"),  # sys under another name
    ("import os\nos. _exit(0)\n", 2, "os_exit"),  # a space after the dot
    ("call(inspect.\\\n     stack())\n", 1, "frame_walk"),
    ("x = (os\n     .\n     _exit)\n", 3, "os_exit"),  # a name no rule needs joined is reported on its own line
    ("PyFrameObject *f = PyEval_GetFrame();\n", 1, "frame_walk"),  # C, in a source the set-up compiles
    ("PyObject *back = (PyObject *)PyFrame_GetBack(f);\n", 1, "frame_walk"),
    ("    _exit(0);\n", 1, "os_exit"),
    ("PyEval_SetTrace(tracer, NULL);\n", 1, "trace_hook"),
    ("PySys_AddAuditHook(hook, NULL);\n", 1, "audit_hook"),
    ("PyEval_Get\\\nFrame();\n", 1, "frame_walk"),  # a C name spliced by a backslash
])
def test_what_python_or_c_joins_is_read_joined(head, line, slug):
    found = scan_text("src/calc.py", None, head)
    assert Finding("src/calc.py", line, slug) in found, found


def test_a_statement_is_reported_at_its_first_added_line_only_when_no_line_of_it_alone_shows_it():
    base = "x = (frame\n     .\n     other)\n"
    head = "x = (frame\n     .\n     f_back)\n"  # the patch changes the last line of the statement only
    assert scan_text("a.py", base, head) == [Finding("a.py", 3, "frame_walk")]


def test_a_long_statement_is_read_in_windows_that_overlap():
    data = "TABLE = [\n" + "    1,\n" * 5000 + "]\n"
    head = data + "caller = (frame\n" + "    .\n" + "    f_back)\n"
    assert [f.what for f in scan_text("a.py", None, head)] == ["frame_walk"]
    split = "TABLE = [\n" + "    1,\n" * 5000 + "    frame .\n    f_back,\n" + "    2,\n" * 5000 + "]\n"
    assert [f.what for f in scan_text("a.py", None, split)] == ["frame_walk"]
