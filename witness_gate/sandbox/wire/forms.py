"""The messages both sides exchange, and the shared rules for what a side may say. Standard library only.

judge -> subject   {"id": n, "op": OP, ...}      a request; n grows by one each time
subject -> judge   {"re": n, "ok": value}         its answer (and "wb": arguments changed in place)
                   {"re": n, "err": exception}    the implementation raised
subject -> judge   {"cb": k, "id": m, "a": [...], "k": [[name, value], ...]}
                                                  a call of the judge's callable k, only while the judge waits on n
judge -> subject   {"re": m, "ok"|"err": ...}     its answer

OP is one of OPS; "h" names the subject object a request is about. A "call" carries its arguments as trees ("a", and
"k" for keywords), or, when every one is JSON's own data and there are no keywords, as they are ("j"; values.json_data).
"""

from __future__ import annotations

OPS = frozenset({"import", "getattr", "setattr", "delattr", "call", "iter", "next", "len", "getitem", "setitem",
                 "delitem", "contains", "repr", "str", "compare", "hash", "bool", "contents", "state", "arith", "unary",
                 "subclass", "isinstance", "issubclass", "instance_of", "subclass_of", "pickle", "unpickle", "copy",
                 "deepcopy"})
MAX_NAME = 200
MAX_TEXT = 2000  # a repr, a message: for people
_PATH_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-")
# no regular expressions here: `re` costs each side 7 ms a start


def is_name(value) -> bool:
    return type(value) is str and 0 < len(value) <= MAX_NAME and value.isascii() and value.isidentifier()


def is_where(value) -> bool:
    """relpath:line of an implementation's frame, as the subject reports it."""
    if type(value) is not str or len(value) > 212:
        return False
    path, _, line = value.rpartition(":")
    return 0 < len(path) <= 200 and set(path) <= _PATH_CHARS and line.isascii() and line.isdigit() and len(line) < 10


def module_name(value) -> bool:
    return type(value) is str and len(value) <= 1000 and all(is_name(part) for part in value.split("."))
