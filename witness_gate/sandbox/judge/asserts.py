"""A property's `assert left <op> right` made to say what it compared when it fails (`assert 'ßß' == 'ssss'`), with
the standard library only: no package of the judge's own may stand where the implementation's module of that name
would (a third-party rewriter's imports did, and answered for the implementation).

Each such statement without a message of its own becomes: both sides evaluated once, left first, into names of its
own, then a real `assert` of their comparison whose message is a marked tuple of the two values and the operator; the
judge makes that the text (`explained`) when it catches the AssertionError. Nothing in it is looked up by name in the
property's module, where `from implementation import *` could have put anything. Every other assert stays as written.
"""

from __future__ import annotations

import ast

_OPERATORS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Is: "is",
              ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
REPR_CHARS = 200  # of each side in the message: for people


def rewrite(tree: ast.Module) -> ast.Module:
    """`tree` with its single-comparison asserts rewritten (in place; returned for convenience)."""
    _Rewriter().visit(tree)
    return ast.fix_missing_locations(tree)


MARK = "witness-gate: compared"  # the first item of a rewritten assert's message


def explained(exc: BaseException) -> str | None:
    """The text of a rewritten assert's failure (`assert 'ßß' == 'ssss'`), or None for any other exception."""
    args = getattr(exc, "args", ())
    if type(exc) is not AssertionError or len(args) != 1 or type(args[0]) is not tuple or len(args[0]) != 4 \
            or args[0][0] != MARK or args[0][2] not in _OPERATORS.values():
        return None
    _, left, operator, right = args[0]
    return f"assert {_repr(left)} {operator} {_repr(right)}"


def _repr(value) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - a repr is for people
        text = f"<{type(value).__name__} whose repr raised {type(exc).__name__}>"
    return text if len(text) <= REPR_CHARS else text[:REPR_CHARS - 1] + "…"


class _Rewriter(ast.NodeTransformer):
    def __init__(self) -> None:
        self.count = 0

    def visit_Assert(self, node: ast.Assert):
        test = node.test
        if node.msg is not None or not (isinstance(test, ast.Compare) and len(test.ops) == 1
                                        and type(test.ops[0]) in _OPERATORS):
            return node
        self.count += 1
        left, right = f"_witness_left_{self.count}", f"_witness_right_{self.count}"
        compared = ast.Compare(left=ast.Name(left, ast.Load()), ops=test.ops, comparators=[ast.Name(right, ast.Load())])
        message = ast.Tuple([ast.Constant(MARK), ast.Name(left, ast.Load()), ast.Constant(_OPERATORS[type(test.ops[0])]),
                             ast.Name(right, ast.Load())], ast.Load())
        statements = [ast.Assign(targets=[ast.Name(left, ast.Store())], value=test.left),
                      ast.Assign(targets=[ast.Name(right, ast.Store())], value=test.comparators[0]),
                      ast.Assert(test=compared, msg=message)]
        for statement in statements:
            for inner in ast.walk(statement):
                if isinstance(inner, (ast.expr, ast.stmt)) and getattr(inner, "lineno", None) is None:
                    ast.copy_location(inner, node)
        return statements
