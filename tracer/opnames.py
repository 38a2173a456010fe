"""Python's AST operators as the operator keys the IR calls (`a + b` is a call of operator.add)."""
from __future__ import annotations

import ast
import operator
from typing import Any, Callable

BINOPS: dict[type, str] = {
    ast.Add: "operator.add", ast.Sub: "operator.sub", ast.Mult: "operator.mul", ast.Div: "operator.truediv",
    ast.FloorDiv: "operator.floordiv", ast.Mod: "operator.mod", ast.Pow: "operator.pow",
    ast.MatMult: "operator.matmul", ast.LShift: "operator.lshift", ast.RShift: "operator.rshift",
    ast.BitOr: "operator.or_", ast.BitXor: "operator.xor", ast.BitAnd: "operator.and_",
}
AUGOPS: dict[type, str] = {k: "operator.i" + v.split(".")[1].rstrip("_") for k, v in BINOPS.items()}
CMPOPS: dict[type, str] = {
    ast.Eq: "operator.eq", ast.NotEq: "operator.ne", ast.Lt: "operator.lt", ast.LtE: "operator.le",
    ast.Gt: "operator.gt", ast.GtE: "operator.ge", ast.Is: "operator.is_", ast.IsNot: "operator.is_not",
    ast.In: "operator.contains", ast.NotIn: "operator.not_contains",
}
UNARYOPS: dict[type, str] = {
    ast.USub: "operator.neg", ast.UAdd: "operator.pos", ast.Invert: "operator.invert", ast.Not: "operator.not_",
}

# constant folding of comparisons between compile-time values
_PY_CMP: dict[str, Callable[[Any, Any], Any]] = {
    "operator.eq": operator.eq, "operator.ne": operator.ne, "operator.lt": operator.lt, "operator.le": operator.le,
    "operator.gt": operator.gt, "operator.ge": operator.ge,
    # operands already swapped by _compare: (container, item); folds `mode in ("a", "b")` on constants
    "operator.contains": operator.contains, "operator.not_contains": lambda a, b: b not in a,
}
