"""A property's `assert left <op> right` made to say what it compared when it fails (`assert 'ßß' == 'ssss'`), with
the standard library only: no package of the judge's own may stand where the implementation's module of that name
would (a third-party rewriter's imports did, and answered for the implementation).

Each such statement becomes: both sides evaluated once, left first, into names of its own, then compared; a false
comparison raises AssertionError at the statement's line with its message, or with the two values' reprs and the
operator. Every other assert stays as written.
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


def explain(left, operator: str, right) -> str:
    """What a failed comparison compared: each side's repr, cut to REPR_CHARS (a repr that raises says so)."""
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
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPERATORS):
            return node
        self.count += 1
        left, right = f"_witness_left_{self.count}", f"_witness_right_{self.count}"
        message = node.msg if node.msg is not None else ast.Call(
            func=ast.Attribute(value=ast.Call(func=ast.Name("__import__", ast.Load()),
                                              args=[ast.Constant("witness_gate.sandbox.judge.asserts")],
                                              keywords=[ast.keyword("fromlist", ast.List([ast.Constant("explain")],
                                                                                         ast.Load()))]),
                               attr="explain", ctx=ast.Load()),
            args=[ast.Name(left, ast.Load()), ast.Constant(_OPERATORS[type(test.ops[0])]), ast.Name(right, ast.Load())],
            keywords=[])
        compared = ast.Compare(left=ast.Name(left, ast.Load()), ops=test.ops,
                               comparators=[ast.Name(right, ast.Load())])
        statements = [
            ast.Assign(targets=[ast.Name(left, ast.Store())], value=test.left),
            ast.Assign(targets=[ast.Name(right, ast.Store())], value=test.comparators[0]),
            ast.If(test=ast.UnaryOp(ast.Not(), compared),
                   body=[ast.Raise(exc=ast.Call(func=ast.Name("AssertionError", ast.Load()), args=[message],
                                                keywords=[]), cause=None)],
                   orelse=[]),
        ]
        for statement in statements:
            ast.copy_location(statement, node)
            for inner in ast.walk(statement):
                if not hasattr(inner, "lineno") or inner.lineno is None:
                    ast.copy_location(inner, node)
        return statements
