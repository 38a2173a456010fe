"""What Pythran is given for one kernel: a ``#pythran export`` line built from
the entry's annotations (the bench argument fills in what they leave open)
and a copy of the kernel module cut down to what the entry reaches, without
annotations or harness names."""

from __future__ import annotations

import ast
import copy
import inspect
import typing
from typing import Any

import numpy as np

from .common import META_NAMES, Kernel, entry_name


# Modules whose names pythran does not know; imports of them are dropped
# (they only serve annotations in the corpus).
PYTHRAN_DROP_MODULES = ("numpy.typing", "typing", "typing_extensions", "__future__", "collections.abc", "dataclasses", "types")


class PythranExportError(Exception):
    pass


_SCALAR_NAMES = {bool: "bool", int: "int", float: "float", complex: "complex", str: "str"}


def _dtype_name(dt: Any) -> str:
    name = np.dtype(dt).name
    if name.startswith("bool"):
        return "bool"
    return name


def _array_spec(dtype: str, ndim: int, value: Any) -> str:
    if ndim == 0:
        raise PythranExportError("0-d arrays are not supported by the pythran export")
    if isinstance(value, np.ndarray) and value.ndim == ndim and not value.flags.c_contiguous:
        if ndim == 2 and value.flags.f_contiguous:
            return f"{dtype}[:,:] order(F)"
        return f"{dtype}[{','.join(['::'] * ndim)}]"
    return f"{dtype}[{','.join([':'] * ndim)}]"


def pythran_type_from_value(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, np.ndarray):
        return _array_spec(_dtype_name(value.dtype), value.ndim, value)
    if isinstance(value, np.generic):
        return _dtype_name(value.dtype)
    for t, name in _SCALAR_NAMES.items():
        if isinstance(value, t):
            return name
    if isinstance(value, tuple):
        if not value:
            raise PythranExportError("empty tuple argument")
        return "(" + ", ".join(pythran_type_from_value(v) for v in value) + ")"
    if isinstance(value, list):
        if not value:
            raise PythranExportError("empty list argument")
        return f"{pythran_type_from_value(value[0])} list"
    if value is None:
        return "None"
    raise PythranExportError(f"cannot map argument of type {type(value).__name__}")


def pythran_type(ann: Any, value: Any) -> str:
    """Pythran export type for one parameter: from its annotation, with the
    bench argument filling in what the annotation leaves open (ndim of
    npt.NDArray, length of tuple[X, ...], unannotated parameters)."""
    if ann is inspect.Parameter.empty or ann is None or ann is typing.Any:
        return pythran_type_from_value(value)
    if isinstance(ann, str):
        raise PythranExportError(f"unresolved annotation {ann!r}")
    if ann in _SCALAR_NAMES:
        return _SCALAR_NAMES[ann]
    if isinstance(ann, type) and issubclass(ann, np.generic):
        return _dtype_name(ann)
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin is np.ndarray:
        shape = args[0] if args else Any
        dtype_ann = args[1] if len(args) > 1 else Any
        dt_args = typing.get_args(dtype_ann)
        if dt_args and isinstance(dt_args[0], type) and issubclass(dt_args[0], np.generic):
            dtype = _dtype_name(dt_args[0])
        elif isinstance(value, np.ndarray):
            dtype = _dtype_name(value.dtype)
        else:
            raise PythranExportError(f"cannot tell the dtype of {ann}")
        shape_args = typing.get_args(shape)
        if shape_args and Ellipsis not in shape_args and all(s is int for s in shape_args):
            ndim = len(shape_args)
        elif isinstance(value, np.ndarray):
            ndim = value.ndim
        else:
            raise PythranExportError(f"cannot tell the ndim of {ann}")
        return _array_spec(dtype, ndim, value)
    if origin is tuple:
        if not isinstance(value, tuple):
            raise PythranExportError(f"annotation {ann} but argument is {type(value).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            elems = [pythran_type(args[0], v) for v in value]
        elif args == ((),) or not args:
            raise PythranExportError(f"unsupported tuple annotation {ann}")
        else:
            elems = [pythran_type(a, v) for a, v in zip(args, value)]
        return "(" + ", ".join(elems) + ")"
    if origin is list:
        inner = args[0] if args else Any
        first = value[0] if isinstance(value, list) and value else None
        if first is None and inner is Any:
            raise PythranExportError("cannot type an empty list")
        return f"{pythran_type(inner, first)} list"
    if origin is dict:
        k_ann, v_ann = args if len(args) == 2 else (Any, Any)
        k0, v0 = next(iter(value.items())) if isinstance(value, dict) and value else (None, None)
        return f"{pythran_type(k_ann, k0)}:{pythran_type(v_ann, v0)} dict"
    if origin is set:
        inner = args[0] if args else Any
        first = next(iter(value)) if isinstance(value, set) and value else None
        return f"{pythran_type(inner, first)} set"
    # Unions, custom aliases, ...: the argument decides.
    return pythran_type_from_value(value)


def pythran_export_line(kernel: Kernel, args: tuple) -> str:
    fn = kernel.entry
    try:
        hints = typing.get_type_hints(fn)
    except Exception:
        hints = {}
    params = list(inspect.signature(fn).parameters.values())
    if len(args) > len(params):
        raise PythranExportError("more bench arguments than parameters")
    specs = []
    for p, v in zip(params, args):
        specs.append(pythran_type(hints.get(p.name, p.annotation), v))
    return f"#pythran export {entry_name(kernel)}({', '.join(specs)})"


class _StripAnnotations(ast.NodeTransformer):
    def _fn(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        node.returns = None
        node.decorator_list = []
        a = node.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if arg is not None:
                arg.annotation = None
        self.generic_visit(node)
        if not node.body:
            node.body = [ast.Pass()]
        return node

    visit_FunctionDef = _fn
    visit_AsyncFunctionDef = _fn

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | None:
        if node.value is None:
            return None
        return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and field == "body" and not block and not isinstance(node, ast.Module):
                setattr(node, field, [ast.Pass()])
        return node


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def pythran_source(kernel: Kernel, source: str, export_line: str) -> str:
    """Module source for pythran: only what the entry needs (functions,
    constants, imports it reaches), annotations and harness names removed."""
    tree = _StripAnnotations().visit(ast.parse(source))
    defs: dict[str, ast.stmt] = {}
    order: list[tuple[ast.stmt, list[str]]] = []  # statement, names it binds
    for stmt in tree.body:
        bound: list[str] = []
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bound = [stmt.name]
        elif isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                bound += [n.id for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            mod = stmt.module if isinstance(stmt, ast.ImportFrom) else None
            for alias in stmt.names:
                full = f"{mod}.{alias.name}" if mod else alias.name
                if any(full == m or full.startswith(m + ".") for m in PYTHRAN_DROP_MODULES):
                    continue
                if mod and any(mod == m or mod.startswith(m + ".") for m in PYTHRAN_DROP_MODULES):
                    continue
                bound.append(alias.asname or alias.name.split(".")[0])
        else:
            continue
        bound = [b for b in bound if b not in META_NAMES]
        for b in bound:
            defs[b] = stmt
        order.append((stmt, bound))

    entry = entry_name(kernel)
    if entry not in defs:
        raise PythranExportError(f"entry {entry!r} is not a top-level function of {kernel.path.name}")
    needed: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in needed or name not in defs:
            continue
        needed.add(name)
        stmt = defs[name]
        deps = _names_in(stmt) if not isinstance(stmt, (ast.Import, ast.ImportFrom)) else set()
        todo.extend(d for d in deps if d in defs and d not in needed)

    body: list[ast.stmt] = []
    for stmt, bound in order:
        keep = [b for b in bound if b in needed]
        if not keep:
            continue
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            aliases = [a for a in stmt.names if (a.asname or a.name.split(".")[0]) in keep]
            new = copy.copy(stmt)
            new.names = aliases
            body.append(new)
        else:
            body.append(stmt)
    out = ast.Module(body=body, type_ignores=[])
    ast.fix_missing_locations(out)
    # The header is part of the cache key (pythran_build.pythran_prepare):
    # changing it rebuilds every cached module.
    header = f"# generated by bench/corpus_bench.py from {kernel.path.name} -- do not edit\n"
    return header + ast.unparse(out) + "\n\n" + export_line + "\n"
