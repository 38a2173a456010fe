"""Static checks and feature detection for the corpus kernels (used by test_corpus_selfcheck.py).

* ``lint(kernel)``            -> list of problems: imports, forbidden syntax, operators outside the
                                 compiler's first operator set (README.md lists it).
* ``annotation_problem(ann)`` -> why an ENTRY annotation is not one of the allowed forms (or None).
* ``syntax_features(kernel)`` -> feature tags found in the kernel's code (AST heuristics).
* ``value_features(values)``  -> dtype / rank tags of the arrays among argument and result values.

Only the standard library and NumPy are used.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import typing
from typing import Any, Iterable

import numpy as np

# ----------------------------------------------------------------------------------------------
# the first operator set (see README.md)
# ----------------------------------------------------------------------------------------------

NP_FUNCTIONS = frozenset({
    "zeros", "ones", "empty", "zeros_like", "ones_like", "empty_like", "full", "arange", "copy",
    "exp", "log", "sqrt", "tanh", "sin", "cos", "abs", "floor", "maximum", "minimum", "clip", "where",
    "sum", "mean", "max", "min", "argmax", "argmin", "prod", "cumsum", "cumprod", "diff", "dot", "matmul",
    "reshape", "logical_and", "logical_or", "logical_not", "ndindex",
})
NP_LINALG_FUNCTIONS = frozenset({"norm"})
NP_DTYPES = frozenset({
    "float64", "float32", "int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "uint64",
    "bool_", "complex128", "complex64",
})
NP_NAMES = NP_DTYPES | frozenset({"newaxis", "ndarray", "dtype", "linalg"})
METHODS = frozenset({
    "copy", "astype", "reshape", "sum", "mean", "max", "min", "argmax", "argmin", "prod", "cumsum", "cumprod",
    "append",  # lists built inside a kernel
})
ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "T"})
BUILTINS = frozenset({"range", "len", "min", "max", "abs", "int", "float", "bool", "enumerate", "zip", "sum"})

ALLOWED_MODULE_IMPORTS = {("numpy", "np"), ("math", None), ("numpy.typing", "npt")}

FORBIDDEN_NODES: dict[type, str] = {
    ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Try: "try/except", ast.With: "with",
    ast.ClassDef: "class", ast.Dict: "dict literal", ast.Set: "set literal", ast.DictComp: "dict comprehension",
    ast.SetComp: "set comprehension", ast.Yield: "yield", ast.YieldFrom: "yield from", ast.Await: "await",
    ast.NamedExpr: "walrus", ast.Starred: "star unpacking", ast.Delete: "del", ast.Match: "match",
    ast.AsyncFunctionDef: "async def", ast.AsyncFor: "async for", ast.AsyncWith: "async with",
    ast.ImportFrom: "from-import",
}
if hasattr(ast, "TryStar"):
    FORBIDDEN_NODES[ast.TryStar] = "try/except*"

ALLOWED_DTYPES = tuple(getattr(np, n) for n in sorted(NP_DTYPES))


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------

def module_tree(module) -> ast.Module:
    return ast.parse(inspect.getsource(module))


def module_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def kernel_functions(module) -> dict[str, ast.FunctionDef]:
    """Module-level functions reachable from ENTRY (the code a compiler has to translate)."""
    tree = module_tree(module)
    funcs = module_functions(tree)
    todo = [module.ENTRY]
    seen: dict[str, ast.FunctionDef] = {}
    while todo:
        name = todo.pop()
        if name in seen or name not in funcs:
            continue
        seen[name] = funcs[name]
        for node in ast.walk(funcs[name]):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in funcs:
                todo.append(node.id)
    return seen


def _local_names(funcs: Iterable[ast.FunctionDef]) -> set[str]:
    names: set[str] = set()
    for f in funcs:
        for node in ast.walk(f):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.FunctionDef):
                names.add(node.name)
            elif isinstance(node, ast.alias):
                names.add(node.asname or node.name)
    return names


def _is_mod(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _messages(funcs: Iterable[ast.FunctionDef]) -> set[int]:
    """ids of nodes inside raise/assert messages and docstrings (where strings are allowed)."""
    ok: set[int] = set()
    for f in funcs:
        for node in ast.walk(f):
            subs: list[ast.AST] = []
            if isinstance(node, ast.Raise) and node.exc is not None:
                subs.append(node.exc)
            elif isinstance(node, ast.Assert) and node.msg is not None:
                subs.append(node.msg)
            elif isinstance(node, ast.FunctionDef) and node.body and isinstance(node.body[0], ast.Expr) \
                    and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str):
                subs.append(node.body[0])
            for s in subs:
                ok.update(id(x) for x in ast.walk(s))
    return ok


# ----------------------------------------------------------------------------------------------
# lint
# ----------------------------------------------------------------------------------------------

def lint(kernel) -> list[str]:
    """Problems with a kernel's source: format, imports, syntax and operators outside the allowed set."""
    module = kernel.module
    tree = module_tree(module)
    problems: list[str] = []
    body = list(tree.body)
    if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        problems.append("the module must start with a docstring")
    else:
        doc = body[0].value.value
        if "\n" in doc.strip() or not doc.strip():
            problems.append("the module docstring must be a single non-empty line")
        body = body[1:]
    for node in body:
        if isinstance(node, ast.Import):
            for a in node.names:
                if (a.name, a.asname) not in ALLOWED_MODULE_IMPORTS:
                    problems.append(f"line {node.lineno}: module-level import {a.name} as {a.asname} is not allowed")
        elif isinstance(node, (ast.FunctionDef, ast.Assign, ast.AnnAssign)):
            pass
        else:
            problems.append(f"line {node.lineno}: unexpected module-level statement {type(node).__name__}")
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if any(m.split(".")[0] == "everypath" for m in mods):
                problems.append(f"line {node.lineno}: kernels must not import everypath")

    funcs = kernel_functions(module)
    if module.ENTRY not in funcs:
        problems.append(f"ENTRY {module.ENTRY!r} is not a module-level def")
        return problems
    module_names = {n.id for s in tree.body if isinstance(s, ast.Assign) for n in s.targets if isinstance(n, ast.Name)}
    module_names |= set(module_functions(tree))
    local = _local_names(funcs.values()) | module_names | {"np", "math", "npt"}
    allowed_strings = _messages(funcs.values())

    for fname, f in funcs.items():
        where = f"{fname}()"
        for node in ast.walk(f):
            line = getattr(node, "lineno", f.lineno)
            for bad, what in FORBIDDEN_NODES.items():
                if isinstance(node, bad):
                    problems.append(f"{where} line {line}: {what} is not allowed in kernel code")
            if isinstance(node, (ast.For, ast.While)) and node.orelse:
                problems.append(f"{where} line {line}: else on a loop is not allowed")
            if isinstance(node, ast.FunctionDef):
                a = node.args
                if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
                    problems.append(f"{where} line {line}: only plain positional parameters are allowed")
            if isinstance(node, ast.Import):
                for a in node.names:
                    if (a.name, a.asname) != ("numpy", "np"):
                        problems.append(f"{where} line {line}: only 'import numpy as np' may appear in a function")
            if isinstance(node, ast.JoinedStr) and id(node) not in allowed_strings:
                problems.append(f"{where} line {line}: f-strings only in raise/assert messages")
            if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) and id(node) not in allowed_strings:
                problems.append(f"{where} line {line}: strings only in raise/assert messages")
            if isinstance(node, ast.Call):
                fn = node.func
                if isinstance(fn, ast.Name):
                    if fn.id not in local and hasattr(builtins, fn.id) and fn.id not in BUILTINS:
                        if not (isinstance(getattr(builtins, fn.id), type) and issubclass(getattr(builtins, fn.id), BaseException)):
                            problems.append(f"{where} line {line}: builtin {fn.id}() is not in the allowed set")
                elif isinstance(fn, ast.Attribute):
                    if _is_mod(fn.value, "np"):
                        if fn.attr not in NP_FUNCTIONS:
                            problems.append(f"{where} line {line}: np.{fn.attr}() is not in the allowed set")
                    elif isinstance(fn.value, ast.Attribute) and _is_mod(fn.value.value, "np") and fn.value.attr == "linalg":
                        if fn.attr not in NP_LINALG_FUNCTIONS:
                            problems.append(f"{where} line {line}: np.linalg.{fn.attr}() is not in the allowed set")
                    elif _is_mod(fn.value, "math"):
                        pass
                    elif fn.attr not in METHODS:
                        problems.append(f"{where} line {line}: method .{fn.attr}() is not in the allowed set")
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                if _is_mod(node.value, "np"):
                    if node.attr not in NP_NAMES | NP_FUNCTIONS:
                        problems.append(f"{where} line {line}: np.{node.attr} is not in the allowed set")
                elif _is_mod(node.value, "math") or _is_mod(node.value, "npt"):
                    pass
                elif isinstance(node.value, ast.Attribute) and _is_mod(node.value.value, "np"):
                    pass  # np.linalg.<x>: checked at the call
                elif node.attr not in ATTRIBUTES | METHODS:
                    problems.append(f"{where} line {line}: attribute .{node.attr} is not in the allowed set")
    return problems


# ----------------------------------------------------------------------------------------------
# annotations
# ----------------------------------------------------------------------------------------------

def _dtype_problem(dt: Any) -> str | None:
    if typing.get_origin(dt) is not np.dtype:
        return f"dtype part {dt!r} must be np.dtype[<scalar type>]"
    (sc,) = typing.get_args(dt)
    if sc not in ALLOWED_DTYPES:
        return f"dtype {sc!r} is not one of the allowed scalar types"
    return None


def array_rank(ann: Any) -> int | None:
    """Rank of an ndarray annotation; -1 when the rank is left open (npt.NDArray); None if not an array."""
    if typing.get_origin(ann) is not np.ndarray:
        return None
    shape, _ = typing.get_args(ann)
    args = typing.get_args(shape)
    if len(args) == 2 and args[1] is Ellipsis:
        return -1
    return len(args)


def annotation_problem(ann: Any, *, allow_tuple_of_any: bool = False) -> str | None:
    """Why ``ann`` is not an allowed ENTRY parameter annotation (None when it is allowed)."""
    if ann is inspect.Parameter.empty:
        return "missing annotation"
    if ann in (int, float, bool, complex):
        return None
    if isinstance(ann, type) and issubclass(ann, np.generic):
        return None if ann in ALLOWED_DTYPES else f"NumPy scalar type {ann!r} is not allowed"
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin is tuple:
        if allow_tuple_of_any:
            probs = [annotation_problem(a) for a in args if a is not Ellipsis]
            probs = [p for p in probs if p]
            return probs[0] if probs else None
        if args and all(a in (int, float) for a in args):
            return None
        return f"tuple annotation {ann!r} must be a tuple of int/float"
    if origin is np.ndarray:
        if len(args) != 2:
            return f"{ann!r}: ndarray needs [shape, dtype]"
        shape, dt = args
        sargs = typing.get_args(shape)
        if typing.get_origin(shape) is not tuple:
            return f"{ann!r}: the shape part must be tuple[int, ...]"
        if not (len(sargs) == 2 and sargs[0] is typing.Any and sargs[1] is Ellipsis):
            if not sargs or not all(a is int for a in sargs):
                return f"{ann!r}: the shape part must be tuple[int, ...] with one int per dimension"
        return _dtype_problem(dt)
    return f"annotation {ann!r} is not one of the allowed forms"


def return_annotation_problem(ann: Any) -> str | None:
    if ann is inspect.Signature.empty or ann is None or ann is type(None):
        return None
    return annotation_problem(ann, allow_tuple_of_any=True)


# ----------------------------------------------------------------------------------------------
# exceptions a kernel documents
# ----------------------------------------------------------------------------------------------

def raised_exceptions(kernel) -> set[type]:
    """Builtin exception types the kernel code raises explicitly (assert -> AssertionError)."""
    out: set[type] = set()
    for f in kernel_functions(kernel.module).values():
        for node in ast.walk(f):
            if isinstance(node, ast.Assert):
                out.add(AssertionError)
            elif isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(exc, ast.Name) and isinstance(getattr(builtins, exc.id, None), type):
                    out.add(getattr(builtins, exc.id))
    return out


# ----------------------------------------------------------------------------------------------
# features
# ----------------------------------------------------------------------------------------------

_INT_KINDS = "iu"


def _entry_param_kinds(kernel) -> dict[str, tuple[str, int]]:
    """param name -> (dtype kind, rank) for array parameters of the entry."""
    out: dict[str, tuple[str, int]] = {}
    for name, p in inspect.signature(kernel.entry).parameters.items():
        rank = array_rank(p.annotation)
        if rank is None:
            continue
        (sc,) = typing.get_args(typing.get_args(p.annotation)[1])
        out[name] = (np.dtype(sc).kind, rank)
    return out


class _Classifier:
    """Very small abstract interpretation: which names hold bool arrays / integer index arrays."""

    def __init__(self, funcs: dict[str, ast.FunctionDef], params: dict[str, tuple[str, int]]) -> None:
        self.boolish: set[str] = {n for n, (k, _) in params.items() if k == "b"}
        self.intarr: set[str] = {n for n, (k, _) in params.items() if k in _INT_KINDS}
        assigns: list[tuple[str, ast.AST]] = []
        for f in funcs.values():
            for node in ast.walk(f):
                if isinstance(node, ast.Assign):
                    for t in node.targets:
                        if isinstance(t, ast.Name):
                            assigns.append((t.id, node.value))
        for _ in range(4):  # a few rounds reach a fixed point for these small kernels
            for name, value in assigns:
                if self.is_bool(value):
                    self.boolish.add(name)
                elif self.is_intarr(value):
                    self.intarr.add(name)

    def is_bool(self, e: ast.AST) -> bool:
        if isinstance(e, ast.Compare):
            return True  # elementwise comparison (or a scalar one: only used inside [] here)
        if isinstance(e, ast.Name):
            return e.id in self.boolish
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Invert):
            return self.is_bool(e.operand)
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            return self.is_bool(e.left) or self.is_bool(e.right)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and _is_mod(e.func.value, "np"):
            return e.func.attr in ("logical_and", "logical_or", "logical_not")
        return False

    def is_intarr(self, e: ast.AST) -> bool:
        if isinstance(e, ast.Name):
            return e.id in self.intarr
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
            if _is_mod(e.func.value, "np"):
                if e.func.attr == "arange":
                    return True
                if e.func.attr in ("argmin", "argmax"):
                    return any(k.arg == "axis" for k in e.keywords)
                if e.func.attr in ("minimum", "maximum"):
                    return any(self.is_intarr(a) for a in e.args)
            if e.func.attr == "astype" and e.args:
                a = e.args[0]
                return isinstance(a, ast.Attribute) and _is_mod(a.value, "np") and a.attr.startswith(("int", "uint"))
        if isinstance(e, ast.BinOp):
            return self.is_intarr(e.left) or self.is_intarr(e.right)
        if isinstance(e, ast.Subscript):
            idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
            return self.is_intarr(e.value) and any(
                isinstance(i, ast.Slice) or self.is_bool(i) or self.is_intarr(i) for i in idx)
        return False


def _neg_const(e: ast.AST | None) -> bool:
    return isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant)


def _returns_last(f: ast.FunctionDef) -> int:
    """Number of return statements that are not the final statement of the function body."""
    last = f.body[-1] if f.body else None
    count = 0
    for node in ast.walk(f):
        if isinstance(node, ast.Return) and node is not last:
            count += 1
    return count


def syntax_features(kernel) -> set[str]:
    module = kernel.module
    funcs = kernel_functions(module)
    entry = funcs[module.ENTRY]
    params = _entry_param_kinds(kernel)
    cls = _Classifier(funcs, params)
    sig = inspect.signature(kernel.entry)
    feats: set[str] = set()
    if len(funcs) > 1:
        feats.add("helper-function")
    if any(p.default is not inspect.Parameter.empty for p in sig.parameters.values()):
        feats.add("default-args")
    if sig.return_annotation is inspect.Signature.empty:
        feats.add("no-return-annotation")
    if any(array_rank(p.annotation) == -1 for p in sig.parameters.values()):
        feats.add("npt-rank-open")
    if any(isinstance(p.annotation, type) and issubclass(p.annotation, np.generic) for p in sig.parameters.values()):
        feats.add("numpy-scalar-param")
    if any(typing.get_origin(p.annotation) is tuple for p in sig.parameters.values()):
        feats.add("tuple-param")
    if any(p.annotation is complex for p in sig.parameters.values()):
        feats.add("complex-param")
    if any(p.annotation is bool for p in sig.parameters.values()):
        feats.add("bool-param")
    if kernel.mutates:
        feats.add("mutates-args")
    src = inspect.getsource(module)
    tree = ast.parse(src)
    for s in tree.body:
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Subscript) \
                and isinstance(s.value.value, ast.Attribute) and s.value.value.attr in ("ndarray",):
            feats.add("type-alias")
        elif isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) and t.id.isupper() for t in s.targets) \
                and not any(t.id in ("CATEGORY", "ENTRY", "RTOL", "MUTATES") for t in s.targets):
            feats.add("module-constant")
    param_names = set(sig.parameters)
    for fname, f in funcs.items():
        if _returns_last(f) > 0:
            feats.add("early-return")
        for node in ast.walk(f):
            if isinstance(node, (ast.For, ast.While)):
                feats.add("while" if isinstance(node, ast.While) else "for")
                for inner in ast.walk(node):
                    if inner is not node and isinstance(inner, (ast.For, ast.While)):
                        feats.add("nested-loops")
            if isinstance(node, ast.For):
                it = node.iter
                if isinstance(it, ast.Call) and _is_mod(it.func, "range"):
                    if len(it.args) == 3:
                        feats.add("range-step")
                        if _neg_const(it.args[2]):
                            feats.add("range-negative-step")
                elif isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "ndindex":
                    feats.add("np.ndindex")
                else:
                    targets = it.args if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) \
                        and it.func.id in ("enumerate", "zip") else [it]
                    for t in targets:
                        base = t.value if isinstance(t, ast.Subscript) else t
                        if isinstance(base, ast.Name) and base.id in params:
                            feats.add("for-over-array")
                            if params[base.id][1] >= 2 and not isinstance(t, ast.Subscript):
                                feats.add("for-over-rows")
                        elif isinstance(base, ast.Name):
                            feats.add("for-over-iterable")
            if isinstance(node, ast.Break):
                feats.add("break")
            if isinstance(node, ast.Continue):
                feats.add("continue")
            if isinstance(node, ast.If):
                if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                    feats.add("if-elif")
                elif node.orelse:
                    feats.add("if-else")
            if isinstance(node, ast.IfExp):
                feats.add("conditional-expression")
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
                feats.add("tuple-return")
            if isinstance(node, (ast.Assign, ast.For)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Tuple) for t in targets):
                    feats.add("tuple-unpacking")
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple) \
                        and any(isinstance(t, ast.Tuple) for t in targets):
                    feats.add("tuple-swap")
            if isinstance(node, ast.AugAssign):
                tgt = node.target
                base = tgt
                while isinstance(base, ast.Subscript):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in param_names and params.get(base.id):
                    feats.add("augassign-on-argument")
            if isinstance(node, ast.Lambda):
                feats.add("lambda")
            if isinstance(node, ast.FunctionDef) and node is not f:
                feats.add("nested-function")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == fname:
                feats.add("recursion")
            if isinstance(node, ast.ListComp):
                feats.add("list-comprehension")
            if isinstance(node, ast.GeneratorExp):
                feats.add("generator-expression")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("enumerate", "zip"):
                feats.add(node.func.id)
            if isinstance(node, ast.Import):
                feats.add("local-import")
            if isinstance(node, ast.Attribute) and _is_mod(node.value, "math"):
                feats.add("math")
            if isinstance(node, ast.Assert):
                feats.add("assert")
            if isinstance(node, ast.Raise):
                feats.add("raise")
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                feats.add("matmul-operator")
            if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)) \
                    or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
                feats.add("bitwise-ops")
            if isinstance(node, ast.Constant) and isinstance(node.value, complex):
                feats.add("complex-literal")
            if isinstance(node, ast.Subscript):
                idx = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                store = isinstance(node.ctx, ast.Store)
                for i in idx:
                    if _neg_const(i) or isinstance(i, ast.Slice) and (_neg_const(i.lower) or _neg_const(i.upper)):
                        feats.add("negative-index")
                    if isinstance(i, ast.Slice) and i.step is not None:
                        feats.add("slice-step")
                    if isinstance(i, ast.Constant) and i.value is None or \
                            isinstance(i, ast.Attribute) and i.attr == "newaxis":
                        feats.add("newaxis")
                    if isinstance(i, ast.Slice) and store:
                        feats.add("slice-assign")
                    if not isinstance(i, ast.Slice) and cls.is_bool(i):
                        feats.add("mask-write" if store else "mask-read")
                    elif not isinstance(i, ast.Slice) and cls.is_intarr(i):
                        feats.add("fancy-write" if store else "fancy-read")
        # writes into argument views: v = arg[...] / for row in arg, then v[...] = or v op= ...
        views = set()
        for node in ast.walk(f):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript) \
                    and isinstance(node.value.value, ast.Name) and node.value.value.id in params:
                sl = node.value.slice.elts if isinstance(node.value.slice, ast.Tuple) else [node.value.slice]
                if any(isinstance(s, ast.Slice) for s in sl):
                    views.update(t.id for t in node.targets if isinstance(t, ast.Name))
            if isinstance(node, ast.For):
                it = node.iter
                if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" \
                        and it.args and isinstance(it.args[0], ast.Name) and it.args[0].id in params \
                        and isinstance(node.target, ast.Tuple) and isinstance(node.target.elts[1], ast.Name):
                    views.add(node.target.elts[1].id)
        for node in ast.walk(f):
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in views:
                feats.add("write-through-view")
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                tgts = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in tgts:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in views:
                        feats.add("write-through-view")
    return feats


def value_features(values: Iterable[Any]) -> set[str]:
    """dtype and rank tags of the ndarrays (and complex scalars) among ``values`` (recursing into tuples)."""
    out: set[str] = set()

    def visit(v: Any) -> None:
        if isinstance(v, (tuple, list)):
            for x in v:
                visit(x)
        elif isinstance(v, np.ndarray):
            out.add(f"dtype:{v.dtype}")
            out.add(f"rank:{v.ndim}")
        elif isinstance(v, (complex, np.complexfloating)):
            out.add("complex-scalar")

    for v in values:
        visit(v)
    return out


# ----------------------------------------------------------------------------------------------
# feature table (python tests/corpus/_checks.py  ->  Markdown for README.md)
# ----------------------------------------------------------------------------------------------

def feature_table(kernels, seed: int = 0) -> dict[str, set[str]]:
    """Syntax features plus dtype/rank tags of case arguments and results, per kernel."""
    import copy
    import warnings

    table: dict[str, set[str]] = {}
    for k in kernels:
        feats = set(syntax_features(k))
        for case in k.cases(np.random.default_rng(seed)):
            feats |= value_features(case)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    feats |= value_features([k.entry(*copy.deepcopy(case))])
                except AssertionError:
                    feats.add("assert-triggered")
                except Exception:  # noqa: BLE001 - documented exceptions only (checked by the tests)
                    feats.add("raise-triggered")
        table[k.name] = feats
    return table


_HIDDEN = {"for", "assert-triggered", "raise-triggered", "complex-scalar"}


def _markdown(kernels) -> str:
    table = feature_table(kernels)
    lines = ["| kernel | cat | dtypes / ranks | features |", "|---|---|---|---|"]
    for k in kernels:
        feats = table[k.name]
        dts = sorted(f.split(":", 1)[1].replace("complex128", "c128").replace("float", "f").replace("int", "i")
                     for f in feats if f.startswith("dtype:"))
        ranks = sorted(f.split(":", 1)[1] for f in feats if f.startswith("rank:"))
        rest = sorted(f for f in feats if ":" not in f and f not in _HIDDEN)
        if "assert-triggered" in feats:
            rest = [r if r != "assert" else "assert(triggered)" for r in rest]
        if "raise-triggered" in feats:
            rest = [r if r != "raise" else "raise(triggered)" for r in rest]
        arrays = f"{' '.join(dts)} / {','.join(ranks)}-d" if dts else "scalars only"
        lines.append(f"| {k.name} | {k.category} | {arrays} | {', '.join(rest)} |")
    counts: dict[str, int] = {}
    for feats in table.values():
        for f in feats:
            counts[f] = counts.get(f, 0) + 1
    lines.append("")
    lines.append("Kernels per feature: " + ", ".join(f"{f} {n}" for f, n in sorted(counts.items())))
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    import importlib.util
    import pathlib
    import sys

    here = pathlib.Path(__file__).resolve().parent
    spec = importlib.util.spec_from_file_location("everypath_corpus._loader", here / "_loader.py")
    _ld = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = _ld
    spec.loader.exec_module(_ld)
    print(_markdown(_ld.load_corpus(sys.argv[1:] or None)))
