"""Early syntax whitelist: reject what everypath cannot compile before any work is done.

Unsupported constructs are refused here with their exact location, so nothing
downstream can silently mis-compile them.
"""
from __future__ import annotations

import ast
from typing import Callable

from everypath.base.errors import CompileError, SourceLocation

_ALLOWED: tuple[type, ...] = (
    # statements
    ast.FunctionDef, ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While, ast.If,
    ast.Raise, ast.Assert, ast.Import, ast.ImportFrom, ast.Expr, ast.Pass, ast.Break, ast.Continue,
    # expressions
    ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Lambda, ast.IfExp, ast.ListComp, ast.GeneratorExp, ast.Compare,
    ast.Call, ast.Constant, ast.Attribute, ast.Subscript, ast.Name, ast.List, ast.Tuple,
    ast.Slice, ast.JoinedStr, ast.FormattedValue, ast.Dict, ast.DictComp, ast.Set, ast.SetComp, ast.Delete, ast.Del,
    ast.Yield, ast.YieldFrom,  # generator functions (tracer/generators.py, lowering/generators.py)
    ast.Try, ast.ExceptHandler,  # tracer/exceptions.py, lowering/exceptions.py
    ast.Match, ast.match_case, ast.MatchValue, ast.MatchSingleton, ast.MatchSequence, ast.MatchClass, ast.MatchAs,
    ast.MatchOr,  # tracer/match.py, lowering/match.py
    # contexts, operators and helpers
    ast.Load, ast.Store, ast.And, ast.Or, ast.Add, ast.Sub, ast.Mult, ast.MatMult, ast.Div, ast.Mod, ast.Pow,
    ast.LShift, ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd, ast.FloorDiv, ast.Invert, ast.Not, ast.UAdd,
    ast.USub, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn,
    ast.comprehension, ast.arguments, ast.arg, ast.keyword, ast.alias,
)

_WHY: dict[type, str] = {
    ast.TryStar: "'except*' (exception groups) is not supported in compiled functions",
    ast.With: "'with' statements are not supported in compiled functions",
    ast.ClassDef: "class definitions are not supported inside compiled functions",
    ast.Global: "'global' is not supported: compiled functions cannot rebind module globals",
    ast.Nonlocal: "'nonlocal' is not supported: closures may read but not rebind outer variables",
    ast.Await: "async code is not supported",
    ast.AsyncFunctionDef: "async functions are not supported",
    ast.AsyncFor: "async for is not supported",
    ast.AsyncWith: "async with is not supported",
    ast.NamedExpr: "the walrus operator (:=) is not supported",
    ast.Starred: "star-unpacking is not supported",
    ast.MatchMapping: "mapping patterns ({...}) in match statements are not supported in compiled code",
    ast.MatchStar: "star patterns (*rest) in match statements are not supported in compiled code",
}


def _check_params(fn: ast.FunctionDef, locate: Callable[[ast.AST], SourceLocation]) -> None:
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        raise CompileError.at(locate(fn), "*args, **kwargs, keyword-only and positional-only parameters are not supported",
                              ("checking the syntax whitelist",))


def _compiled_parts(tree: ast.AST) -> list[ast.AST]:
    """What is compiled: the body and default values, not the decorators or annotations
    (those run in Python at definition time)."""
    if isinstance(tree, ast.FunctionDef):
        return [*tree.body, *tree.args.defaults]
    return [tree]


def is_generator_def(fn: ast.FunctionDef | ast.Lambda) -> bool:
    """Whether fn itself (not a function nested in it) yields: a generator function."""
    todo: list[ast.AST] = list(fn.body) if isinstance(fn, ast.FunctionDef) else [fn.body]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.Lambda, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def check_syntax(tree: ast.AST, locate: Callable[[ast.AST], SourceLocation]) -> None:
    """Raise CompileError at the first construct outside the whitelist."""
    if isinstance(tree, ast.FunctionDef):
        _check_params(tree, locate)
    for node in (n for part in _compiled_parts(tree) for n in ast.walk(part)):
        if isinstance(node, ast.Starred):
            raise CompileError.at(locate(node), _WHY[ast.Starred], ("checking the syntax whitelist",))
        if not isinstance(node, _ALLOWED):
            why = _WHY.get(type(node), f"Python construct '{type(node).__name__}' is not supported")
            raise CompileError.at(locate(node), why, ("checking the syntax whitelist",))
        if isinstance(node, (ast.For, ast.While)) and node.orelse:
            raise CompileError.at(locate(node), "'else' on a loop is not supported", ("checking the syntax whitelist",))
        if isinstance(node, ast.FunctionDef):
            _check_params(node, locate)
        if isinstance(node, (ast.FunctionDef, ast.Lambda)) and node is not tree and is_generator_def(node):
            raise CompileError.at(locate(node), "generator functions defined inside a compiled function are not "
                                  "supported; define the generator at module level", ("checking the syntax whitelist",))
        if isinstance(node, ast.Delete) and not all(isinstance(t, ast.Subscript) for t in node.targets):
            raise CompileError.at(locate(node), "'del' of a name is not supported in compiled functions; "
                                  "only 'del d[key]' of a dict is", ("checking the syntax whitelist",))
        if isinstance(node, ast.Dict) and any(k is None for k in node.keys):
            raise CompileError.at(locate(node), "'**' unpacking in a dict display is not supported",
                                  ("checking the syntax whitelist",))
        if isinstance(node, ast.comprehension) and node.is_async:
            raise CompileError.at(locate(node), "async comprehensions are not supported", ("checking the syntax whitelist",))
