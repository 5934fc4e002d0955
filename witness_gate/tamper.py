"""The tamper scan (SPEC §9): lines a patch adds to implementation files that reach for the harness.

The code under test runs in the same interpreter as the harness that writes its verdict, so code
written to attack the harness (walk up to its frame, patch `__main__`, replace `sys.modules`,
leave with `os._exit`, signal the parent) could still try from inside the sandbox. This scan is
defence in depth: it reads only the lines the patch adds to implementation paths, and each
construct found is a hold reason `tamper:<what>@<file>:<line>` (the line in the head's file), so
a person looks before the evidence is trusted. The evidence still runs and is recorded.

It is a text scan, not a proof: comments and strings count too (cheap, and it is safer to ask a
person about a comment than to miss code). Code that builds its names at run time can evade it;
the sandbox and the hidden verdict channel remain the real defences (docs/SECURITY.md).
"""

from __future__ import annotations

import ast
import difflib
import io
import os
import re
import stat
import sys
import tokenize
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

MAX_FILES = 500  # implementation files scanned per change; beyond that, a person looks
MAX_BYTES = 2 * 1024 * 1024  # per file
MAX_TOTAL_BYTES = 64 * 1024 * 1024  # per change: past it, the file that crossed it is too_large and the scan stops
MAX_FINDINGS = 50  # reasons reported per change; the last one says there were more
WINDOW, OVERLAP = 4096, 512  # a statement over many lines is read in windows of this many characters

_AUG = r"(?::[^=\n]*)?(?:[-+*/%@&|^]|//|<<|>>|\*\*)?=(?!=)"  # =, +=, |=, `: T =` ... but not ==
_DICT_WRITES = r"(?:update|pop|popitem|setdefault|clear|__setitem__|__delitem__|__ior__)"


_STDLIB = "|".join(sorted(n for n in sys.stdlib_module_names if not n.startswith("_")))


def _rules(*pairs: tuple[str, str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((slug, re.compile(pattern)) for slug, pattern in pairs)


# (slug, pattern), in the order findings on one line are reported. A line may give several slugs.
RULES = _rules(
    # leaving the process before the harness writes its verdict
    ("os_exit", r"\b_exit\b"),  # os._exit however it is reached (an alias, `from os import`, a string), C's _exit
    ("os_exec", r"\.\s*(?:exec[lv]p?e?|posix_spawnp?|spawn[lv]p?e?)\s*\("  # os's, however it is named
                r"|\bfrom\s+(?:os|posix)\s+import\b[^#\n]*\b(?:exec[lv]p?e?|posix_spawnp?|spawn[lv]p?e?)\b"),
    # the process's own files and other processes
    ("proc_self", r"/proc/(?:self|thread-self)\b"),
    ("proc_pid", r"/proc\b|/(?:maps|mem|pagemap)\b"),  # any file of /proc, however written
    ("dev_fd", r"/dev/(?:fd|stdout|stderr)\b"),
    # walking up to the harness's frames
    ("frame_walk",
     r"\b_(?:getframe|current_frames|current_exceptions)\b|\bcurrentframe\b"  # however reached (logging's too)
     r"|\bf_(?:back|locals|globals|builtins)\b"  # a frame's, however named (a match statement's class pattern)
     r"|\bPy_BUILD_CORE\b|\binternal/pycore_|\b_PyInterpreterFrame\b|\bPyGILState_\w+|\bPyThreadState\b"  # C
     r"|->\s*(?:cframe|current_frame|previous|localsplus|f_back|f_locals|frame)\b"
     r"|\bPy(?:Eval_GetFrame|Frame_\w+|ThreadState_\w+|Eval_GetGlobals|Eval_GetLocals|Eval_GetBuiltins)\b"  # C
     r"|\binspect\s*\.\s*(?:currentframe|stack|trace|getouterframes|getinnerframes|getargvalues|getframeinfo)\b"
     r"|\bfrom\s+inspect\s+import\b[^#\n]*\b(?:currentframe|stack|trace|getouterframes|getinnerframes"
     r"|getargvalues|getframeinfo)\b"
     r"|\b(?:walk_stack|walk_tb|extract_stack|StackSummary|getargvalues|getframeinfo)\b"
     r"|\.\s*(?:f_back|f_globals|f_locals|f_builtins)\b"
     r"|\b(?:tb_frame|gi_frame|cr_frame|ag_frame)\b"
     r"|['\"](?:_getframe|f_back|f_globals|f_locals|tb_frame|gi_frame|cr_frame)['\"]"),
    # reaching every object of the interpreter, the harness's included
    ("gc_objects", r"\bget_objects\b"),
    ("gc_referrers", r"\bget_referrers\b"),
    ("gc_referents", r"\bget_referents\b"),
    # replacing modules, the builtins, the output streams
    ("sys_modules_write",
     rf"\bsys\s*\.\s*modules\s*\[[^\]]*\]\s*{_AUG}"
     rf"|\bsys\s*\.\s*modules\s*\.\s*{_DICT_WRITES}\b"
     r"|\bdel\s+sys\s*\.\s*modules\b"
     rf"|\bsys\s*\.\s*modules\s*{_AUG}"
     r"|\b(?:setattr|delattr)\s*\(\s*sys\s*,\s*['\"]modules['\"]"
     r"|\bfrom\s+sys\s+import\b[^#\n]*\bmodules\b"
     r"|=\s*sys\s*\.\s*modules\s*(?:[;#)]|$)"),  # an alias, written through later
    # reading every module there is, the property's half-run one among them (to give it a global of its own)
    ("sys_modules_scan",
     r"\bvars\s*\(\s*sys\s*\)|\bgetattr\s*\(\s*sys\s*,\s*['\"](?:modules|path|meta_path|path_hooks|stdout|stderr)['\"]"
     r"|\bsys\s*\.\s*modules\s*\.\s*(?:values|items|keys|copy)\b"
     r"|\b(?:list|dict|tuple|iter|vars|sorted|set)\s*\(\s*sys\s*\.\s*modules\b|\bin\s+sys\s*\.\s*modules\s*:"),
    # the import system's own parts: a finder or loader patched hands the property's later imports its own modules
    ("import_machinery",
     r"\b(?:PathFinder|FileFinder|SourceFileLoader|SourcelessFileLoader|ExtensionFileLoader|BuiltinImporter"
     r"|FrozenImporter|spec_from_file_location|spec_from_loader|module_from_spec|_bootstrap(?:_external)?)\b"
     r"|\bdef\s+(?:find_spec|find_module|exec_module|create_module|load_module)\b"),  # a finder or loader of its own
    # a debugger runs its commands in any frame (the harness's too), from a string or a .pdbrc
    ("debugger", r"\b(?:pdb|bdb|breakpoint|set_trace|Pdb|Bdb|InteractiveConsole|breakpointhook)\b"
                 r"|\bcode\s*\.\s*interact\b"),
    # what the property's comparisons and truth tests ask the values the implementation returns
    ("compare_hook", r"\b__(?:eq|ne|lt|le|gt|ge|bool|hash|instancecheck|subclasscheck)__\b"  # however it is set
                     r"|\bdef\s+__(?:r?(?:add|sub|mul|truediv|floordiv|mod|pow)|abs|neg|float|int|index|round)__\b"
                     # what the property's arithmetic asks the values (a lying __sub__ beats abs(a - b) < tol)
                     r"|\bunittest\s*\.\s*mock\b|\bfrom\s+unittest(?:\.mock)?\s+import\b|\bmock\s*\.\s*ANY\b"),
    # where imports are looked for: code under test that puts a folder of its own first makes the property's later
    # imports its own (a `decimal`, a `hypothesis` the oracle uses)
    ("import_path",
     r"\bsys\s*\.\s*(?:path|meta_path|path_hooks|path_importer_cache)\s*(?:\.\s*(?:insert|append|extend|remove|pop"
     rf"|clear|update|setdefault|__setitem__|__delitem__|__iadd__)\b|\[[^\]]*\]\s*{_AUG}|{_AUG})"
     r"|\bdel\s+sys\s*\.\s*(?:path|meta_path|path_hooks)\b|\bsite\s*\.\s*addsitedir\b"
     r"|\bfrom\s+sys\s+import\b[^#\n]*\b(?:path|meta_path|path_hooks)\b"
     r"|\b(?:setattr|delattr)\s*\(\s*sys\s*,\s*['\"](?:path|meta_path|path_hooks)['\"]"
     rf"|\b__path__\s*(?:\.\s*(?:insert|append|extend|remove|clear|__setitem__)\b|\[[^\]]*\]\s*{_AUG}|{_AUG})"
     r"|\bsubmodule_search_locations\b"),  # a package's own search path: the oracle's `from email.utils import`
    # a module of the standard library's changed where every importer sees it (`math.isclose = ...`)
    ("stdlib_patch", rf"\b(?:{_STDLIB})(?:\s*\.\s*\w+)+\s*{_AUG}"  # os.path.join = ..., math.isclose: T = ...
                     rf"|\b(?:set|del)attr\s*\(\s*(?:{_STDLIB})\s*,|\b(?:{_STDLIB})\s*\.\s*__dict__\b"
                     rf"|\bvars\s*\(\s*(?:{_STDLIB})\s*\)|\b__(?:setattr|delattr)__\s*\("
                     rf"|\bgetcontext\s*\(\s*\)\s*\.\s*\w+\s*{_AUG}|\b(?:setcontext|setlocale)\s*\("),
    ("builtins_write",
     r"\b__builtins__\b"
     rf"|\bbuiltins\s*\.\s*\w+\s*{_AUG}"
     rf"|\bbuiltins\s*\.\s*(?:__dict__\s*\.\s*)?{_DICT_WRITES}\s*\("
     r"|\bbuiltins\s*\.\s*__dict__\b|\bvars\s*\(\s*builtins\s*\)"
     r"|\b(?:setattr|delattr)\s*\(\s*builtins\b"
     r"|\bdel\s+builtins\s*\."
     r"|\bimport\s+builtins\s+as\b"
     r"|\b(?:__import__|import_module)\s*\(\s*['\"]builtins['\"]"),
    ("stdout_replace",
     rf"\bsys\s*\.\s*(?:stdout|stderr)\s*{_AUG}"
     r"|\bsys\s*\.\s*__(?:stdout|stderr)__\b"
     r"|\b(?:setattr|delattr)\s*\(\s*sys\s*,\s*['\"](?:stdout|stderr|__stdout__|__stderr__)['\"]"),
    ("dup2", r"\bdup2\b|\bF_DUPFD\w*|\bF_SETPIPE_SZ\b|\bfcntl\s*\.\s*fcntl\s*\([^)]*\b10(?:30|31)\b"),
    # looking for the harness's descriptors
    ("fd_probe", r"\bos\s*\.\s*(?:fstat|close|closerange)\s*\(\s*(?:[a-z_]\w*|\d{2,})\s*[,)]"),
    # reading or setting the host's page cache, which every evaluation shares
    ("page_cache", r"\bRWF_NOWAIT\b|\bposix_fadvise\b|\bPOSIX_FADV_\w+|\bmincore\b|\bcachestat\b|\breadahead\b"),
    # telling the sandbox apart from a developer's machine
    ("sandbox_probe", r"\bWITNESS_[A-Z]|witness-sandbox|['\"]/(?:input|scratch|repo|env)(?:/|['\"])"
                      r"|/opt/witness-gate"),
    ("fd_write", r"\bos\s*\.\s*(?:write|writev|pwrite|sendfile|close|fdopen|ftruncate)\s*\(\s*[0-2]\s*[,)]"
                 r"|\bos\s*\.\s*closerange\s*\(\s*[0-2]\s*,"
                 r"|\bopen\s*\(\s*[12]\s*[,)]"),
    # foreign code in the interpreter
    ("ctypes", r"\b_?ctypes\b"),
    # a module that reaches the process or the interpreter, under another name (the rules name them as themselves)
    ("module_alias",
     r"\bimport\s+(?:sys|os|posix|inspect|gc|importlib|signal|resource)\s+as\b"
     r"|=\s*(?:sys|os|posix|inspect|gc)\s*(?:[;#),]|$)"
     r"|\b(?:import_module|__import__)\s*\(\s*['\"](?:sys|os|posix|inspect|gc|builtins)['\"]"
     r"|\.\s*__dict__\s*\[\s*['\"](?:modules|stdout|stderr|path|meta_path|_exit|_getframe)['\"]"
     r"|\bsys\s*\.\s*modules\s*[,)]"),
    # the harness itself: the package, and __main__ (the harness runs as `python -m witness_gate.harness`)
    ("import_harness",
     r"\bwitness_gate\b|\bwitness_property_"
     r"|\bimport\s+__main__\b|\bfrom\s+__main__\s+import\b"
     r"|['\"]__main__['\"]\s*[\])]"  # sys.modules["__main__"], sys.modules.get("__main__")
     r"|\b(?:__import__|import_module)\s*\(\s*['\"]__main__"),
    # signalling the parent or every process
    ("kill_parent",
     r"\bgetppid\b"
     r"|\.\s*kill\s*\(\s*(?:1|-1|0)\s*,"
     r"|\bos\s*\.\s*killpg\s*\("
     r"|\bpidfd_send_signal\b|\bsignal\s*\.\s*pthread_kill\b"),
    # hooks that see every call, import and frame of the interpreter
    ("trace_hook", r"(?i)\bsettrace\b|\bsetprofile\b|\bsys\s*\.\s*monitoring\b|\bPyEval_Set(?:Trace|Profile)"),
    ("audit_hook", r"(?i)\baddaudithook\b|\bPySys_AddAuditHook\b"),
)
SLUGS = tuple(slug for slug, _ in RULES) + ("binary", "carriage_return", "coding", "too_large", "too_many_files", "unreadable", "more",
                                             "symlink")


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    what: str

    @property
    def reason(self) -> str:
        return f"tamper:{self.what}@{self.path}:{self.line}"


def _lines(text: str) -> list[str]:
    """Lines as git and GitHub number them: split at "\\n" only (a lone "\\r" stays inside its line)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def added_lines(base: str | None, head: str) -> list[int]:
    """1-based numbers of the head's lines not matched to the base ('insert' and 'replace' opcodes)."""
    head_lines = _lines(head)
    if base is None:
        return list(range(1, len(head_lines) + 1))
    matcher = difflib.SequenceMatcher(None, _lines(base), head_lines)
    added: list[int] = []
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("insert", "replace"):
            added.extend(range(j1 + 1, j2 + 1))
    return added


def findings_in_line(text: str) -> list[str]:
    """The slugs of every construct in one line of source (NFKC first: Python reads `ｏｓ` as `os`)."""
    text = unicodedata.normalize("NFKC", text)
    return [slug for slug, pattern in RULES if pattern.search(text)]


def _python_lines(lines: list[str]) -> list[str]:
    """git's lines as Python reads them: a CR before the newline is part of the line break (a lone CR, which
    Python reads as one too, is a finding of its own: `carriage_return`)."""
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _tokens(lines: list[str]) -> list[tokenize.TokenInfo]:
    """The tokens of `lines` as far as tokenize can read them (none of a file it cannot read at all)."""
    found: list[tokenize.TokenInfo] = []
    try:
        found.extend(tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def statements(lines: list[str]) -> list[tuple[int, int, str]]:
    """The 0-based (first, last, tokens) of what Python reads as one statement over several lines: lines
    continued by a backslash (C splices them too), and a statement whose brackets or strings run over several
    lines (as tokenize reads it; text it cannot read keeps the statements found before it stopped), with its
    tokens joined by single spaces, without comments (`(frame  # c` + `.f_back)` is `( frame . f_back )`), or ''
    for a backslash continuation tokenize did not read. Spans that overlap are merged."""
    lines = _python_lines(lines)
    spans: list[tuple[int, int, str]] = []
    start = None
    for number, line in enumerate(lines):
        if line.endswith("\\"):
            start = number if start is None else start
        elif start is not None:
            spans.append((start, number, ""))
            start = None
    if start is not None:
        spans.append((start, len(lines) - 1, ""))
    first, words = None, []
    for token in _tokens(lines):
        if first is None and token.type in _BETWEEN:
            continue
        first = token.start[0] - 1 if first is None else first
        if token.type not in _BETWEEN and token.type not in (tokenize.NEWLINE, tokenize.ENDMARKER):
            words.append(token.string)
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if token.end[0] - 1 > first:
                spans.append((first, min(token.end[0] - 1, len(lines) - 1), " ".join(words)))
            first, words = None, []
    merged: list[tuple[int, int, str]] = []
    for first, last, text in sorted(spans):
        if merged and first <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(last, merged[-1][1]), " ".join(t for t in (merged[-1][2], text) if t))
        else:
            merged.append((first, last, text))
    return merged


_BETWEEN = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)


def code_lines(lines: list[str]) -> set[int] | None:
    """The 1-based lines on which code starts (a name, an operator, a number: not only a string or a comment), or
    None when tokenize cannot read the text (not Python)."""
    tokens = _tokens(_python_lines(lines))
    if not tokens or tokens[-1].type != tokenize.ENDMARKER:
        return None
    return {t.start[0] for t in tokens if t.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER)}


def _joined(lines: list[str]) -> str:
    """A statement's lines as one text: a backslash and its newline removed (`sys.\\` + `_getframe()`, or a C
    name spliced), other newlines kept, where the rules' `\\s*` reads across them; runs of blank space become one
    (the blank lines between `(os` and `._exit)`)."""
    text = "".join(line[:-1] if line.endswith("\\") else line + "\n" for line in _python_lines(lines))
    return _BLANKS.sub("\n", text)


_BLANKS = re.compile(r"[ \t\f]*\n[\s]*")
_LONE_CR = re.compile(r"\r(?!$)")


def _windows(text: str) -> Iterable[str]:
    """`text` in overlapping windows, so that no rule's search runs over a whole long statement."""
    if len(text) <= WINDOW:
        yield text
        return
    for begin in range(0, len(text), WINDOW - OVERLAP):
        yield text[begin:begin + WINDOW]


def now_code(base: str | None, head: str) -> list[int]:
    """1-based head lines the diff matches to a base line that was not code there (a string's or a comment's)
    and are code now: a patch that closes a docstring early makes the base's text below it run unchanged."""
    if base is None:
        return []
    base_lines, head_lines = _lines(base), _lines(head)
    was, now = code_lines(base_lines), code_lines(head_lines)
    if now is None:
        return []
    matcher = difflib.SequenceMatcher(None, base_lines, head_lines)
    return [j + k + 1 for tag, i, _i2, j, j2 in matcher.get_opcodes() if tag == "equal" for k in range(j2 - j)
            if (j + k + 1) in now and (was is None or (i + k + 1) not in was)]


def scan_text(path: str, base: str | None, head: str) -> list[Finding]:
    """Pure: the findings in the lines `head` adds to `base` (None: a new file, every line is added).

    Each added line is read alone (and so is a line the diff matches to the base that was a string or a comment
    there and is code now), and each statement over several lines that holds one is read whole (what a rule finds
    there only, it reports at the statement's first such line): Python joins the lines of a backslash continuation
    and of an open bracket, so `(os\\n._exit)(0)` is `os._exit(0)` to it."""
    head_lines = _lines(head)
    added = sorted({*added_lines(base, head), *now_code(base, head)})
    found: dict[tuple[int, str], None] = {}
    for number in added:
        line = head_lines[number - 1]
        found.update(((number, slug), None) for slug in findings_in_line(line))
        if _LONE_CR.search(line):  # Python reads a line break there, where git and this scan read none
            found[(number, "carriage_return")] = None
    taken = set(added)
    for first, last, tokens in statements(head_lines):
        mine = [number for number in range(first + 1, last + 2) if number in taken]
        if not mine:
            continue
        already = {slug for (number, slug) in found if first < number <= last + 1}
        texts = (_joined(head_lines[first:last + 1]), tokens)
        slugs = dict.fromkeys(slug for text in texts if text for window in _windows(text)
                              for slug in findings_in_line(window))
        found.update(((mine[0], slug), None) for slug in slugs if slug not in already)
    for number, slug in _program(head, taken):
        if not any(key[1] == slug and key[0] == number for key in found):
            found[(number, slug)] = None
    return [Finding(path, number, slug) for number, slug in sorted(found, key=lambda key: key[0])]


_DUNDERS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__hash__",
                      "__instancecheck__", "__subclasscheck__"})
_ASSIGNING = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)


def _program(head: str, taken: set[int]) -> list[tuple[int, str]]:
    """What the rules find when the file is read as the program it is (when it parses as Python): each added
    line and assignment target with a module's other name (`import math as m`, wherever the file binds it, the
    base's lines too) read as the module's own, every target of an unpacking, `for` or `with` statement read as
    a plain assignment, and a line added inside a comparison method's body as the method it changes."""
    try:
        tree = ast.parse(head)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update({a.asname: a.name for a in node.names if a.asname and a.asname != a.name})
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in _MODULE_NAMES:
            # an object of the standard library's under its own name: `from fractions import Fraction` makes
            # `Fraction._richcmp = ...` the module's class changed for every importer
            aliases.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names if a.name != "*"})
    for _ in range(4):  # `n = m` after `m = math`, `F = fractions.Fraction`: each pass follows one more link
        known = len(aliases)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.NamedExpr)):
                pairs = [(t, node.value) for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]
            elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.iter, (ast.Tuple, ast.List)):
                pairs = [(node.target, element) for element in node.iter.elts]  # `for m in (math,)`: each element
            else:
                continue
            while pairs:  # an unpacking (`m, n = math, 1`, `m, = [math]`), element by element
                target, value = pairs.pop()
                if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
                        and len(target.elts) == len(value.elts):
                    pairs += zip(target.elts, value.elts)
                    continue
                module = _module_of(value) or _dotted_module(value, aliases)
                if module and isinstance(target, ast.Name) and target.id != module:
                    aliases.setdefault(target.id, module)
        if len(aliases) == known:
            break
    lines = _lines(head)
    found: list[tuple[int, str]] = []

    def read(text: str, line: int) -> None:
        for name, module in aliases.items():  # as an attribute's base or an argument (`setattr(m, ...)`)
            text = re.sub(rf"(?<![.\w]){re.escape(name)}\b(?=\s*[.,)])", module, text)
        found.extend((line, slug) for slug in findings_in_line(text))

    if aliases:
        for number in sorted(taken):
            read(lines[number - 1], number)
    for node in ast.walk(tree):
        span = range(getattr(node, "lineno", 0), (getattr(node, "end_lineno", None) or 0) + 1)
        mine = [number for number in span if number in taken]
        if not mine:
            continue
        if isinstance(node, _ASSIGNING):
            targets = (list(node.targets) if isinstance(node, ast.Assign) else [node.target] if hasattr(node, "target")
                       else [item.optional_vars for item in node.items if item.optional_vars is not None])
            while targets:  # an unpacking's elements, each as the target of an assignment of its own
                target = targets.pop()
                if isinstance(target, (ast.Tuple, ast.List)):
                    targets += target.elts
                elif isinstance(target, ast.Starred):
                    targets.append(target.value)
                elif isinstance(target, (ast.Attribute, ast.Subscript)):
                    base = target.value.value if isinstance(target.value, ast.NamedExpr) else target.value
                    module = (_module_of(base) or _dotted_module(base, aliases)) if isinstance(target, ast.Attribute) \
                        else None
                    read(f"{module}.{target.attr} = _" if module else f"{ast.unparse(target)} = _", mine[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in _DUNDERS:
            found.extend((number, "compare_hook") for number in mine[:1])
    return found


_MODULE_NAMES = frozenset(sys.stdlib_module_names) | {"builtins"}
_IMPORTERS = frozenset({"importlib.import_module", "import_module", "__import__", "sys.modules.get",
                        "sys.modules.__getitem__", "sys.modules.setdefault"})


def _dotted_module(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """`math`, `fractions.Fraction`, `m.Fraction` (`m` an alias): the standard-library module or object a name or an
    attribute chain from one is, by its dotted name; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    root = aliases.get(node.id) or (node.id if node.id in _MODULE_NAMES else None)
    return ".".join([root, *parts]) if root else None


def _module_of(node: ast.AST) -> str | None:
    """The standard-library module an expression reaches by a literal name: `importlib.import_module("math")`,
    `__import__("math")` (its top-level package), `sys.modules["math"]`, `sys.modules.get("math")`."""
    name = None
    called = re.sub(r"\s", "", ast.unparse(node.func)) if isinstance(node, ast.Call) else ""
    if called in _IMPORTERS and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        name = node.args[0].value.split(".")[0] if called == "__import__" else node.args[0].value
    elif isinstance(node, ast.Subscript) and re.sub(r"\s", "", ast.unparse(node.value)) == "sys.modules" \
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        name = node.slice.value
    return name if name and name.split(".")[0] in _MODULE_NAMES and all(
        part.isidentifier() for part in name.split(".")) else None


def _decode(raw: bytes) -> tuple[str | None, str]:
    """(text, encoding) as Python reads a source file: by its coding declaration or byte-order mark (PEP 263),
    else UTF-8 — a UTF-7 file writes `_` as `+AF8-`; None for a binary (a NUL byte, or bytes its encoding or a
    codec Python does not know cannot read)."""
    if b"\0" in raw:
        return None, ""
    try:  # Python reads a lone CR as a line break before it looks for the declaration in the first two lines
        encoding = tokenize.detect_encoding(io.BytesIO(raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")).readline)[0]
        return raw.decode(encoding), encoding
    except (SyntaxError, UnicodeDecodeError, LookupError):  # a codec only the code under test may register
        return None, ""


def scan_file(path: str, base: bytes | None, head: bytes | None, *, max_bytes: int = MAX_BYTES) -> list[Finding]:
    """One implementation file's findings from its bytes at base and head (None: absent there)."""
    if head is None:  # deleted by the patch: nothing of it runs
        return []
    if len(head) > max_bytes:
        return [Finding(path, 1, "too_large")]
    if os.path.basename(path) == ".pdbrc":  # a debugger's commands, run in whatever frame it stops in
        return [] if base == head else [Finding(path, 1, "debugger")]
    head_text, encoding = _decode(head)
    if head_text is None:  # a binary the patch adds or changes may be importable (.so, .pyc, a zip)
        return [] if base == head else [Finding(path, 1, "binary")]
    base_text, was = _decode(base) if base is not None and len(base) <= max_bytes else (None, "")
    found = scan_text(path, base_text, head_text)
    if encoding not in ("utf-8", "utf-8-sig") and encoding != was:  # what a person reads is not what runs
        found.insert(0, Finding(path, 1, "coding"))
    return found


class ReadFailed(Exception):
    """Raised by a reader when a file cannot be read for a reason that is not a fault of the host."""


def scan_change(
    paths: Iterable[str],
    base_of: Callable[[str], bytes | None],
    head_of: Callable[[str], bytes | None],
    *,
    max_files: int = MAX_FILES,
    max_bytes: int = MAX_BYTES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
    max_findings: int = MAX_FINDINGS,
) -> list[str]:
    """The hold reasons for a change's implementation paths, read through `base_of` / `head_of`.

    At most `max_files` files and `max_total_bytes` are read (beyond that: `too_many_files` at the
    first file left out, `too_large` at the file that crossed the byte budget) and `max_findings`
    reasons reported (beyond that: `more` at the first one left out). A reader raises ReadFailed for
    a file it cannot read (`unreadable`); any other exception is a fault of the host and propagates.
    """
    ordered = sorted(set(paths))
    found: list[Finding] = []
    total = 0
    for path in ordered[:max_files]:
        try:
            head = head_of(path)
            base = base_of(path) if head is not None else None
        except ReadFailed:
            found.append(Finding(path, 1, "unreadable"))
            continue
        total += len(head or b"") + len(base or b"")
        if total > max_total_bytes:
            found.append(Finding(path, 1, "too_large"))
            break
        found.extend(scan_file(path, base, head, max_bytes=max_bytes))
    if len(ordered) > max_files:
        found.append(Finding(ordered[max_files], 1, "too_many_files"))
    reasons = list(dict.fromkeys(f.reason for f in found))
    if len(reasons) > max_findings:
        first_left_out = reasons[max_findings - 1].removeprefix("tamper:").split("@", 1)[1]
        reasons = reasons[: max_findings - 1] + [f"tamper:more@{first_left_out}"]
    return reasons


def links_in(checkout: Path, paths: Iterable[str]) -> list[str]:
    """`tamper:symlink@<path>:1` for each changed non-oracle path that is a link in the checkout.

    The scan reads a link's blob, which is only its target's name; the importer follows the link to
    content the scan never saw (an ignored Markdown file, say), so a person looks instead.
    """
    found = []
    for path in sorted(set(paths)):
        try:
            if stat.S_ISLNK(os.lstat(checkout / path).st_mode):
                found.append(f"tamper:symlink@{path}:1")
        except OSError:
            pass  # deleted by the change: nothing to import
    return found
