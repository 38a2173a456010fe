"""Module-global tables (base/const_tables.py) are read-only in compiled code.

A table is captured at compile time and built once per process, so a store into it, a mutating method, an
in-place operator or handing it to Python (returning it) would change or show the captured copy, not the
module's object that CPython would change or return. Every use of a table, of a local it is bound to and of a
helper parameter it is passed as, must only read it; anything else is a located CompileError suggesting a copy
(``mine = dict(UNITS)``)."""
from __future__ import annotations

from everypath.base.const_tables import ConstTable, TableKind
from everypath.base.errors import CompileError
from everypath.lowering.infer import TypedFunction
from everypath.tracer.ir import FunctionRef, Node, Opcode

# methods that only read (dict, set, list); any other method call on a table is refused
_READ_METHODS = frozenset({"get", "keys", "values", "items", "copy", "index", "count", "isdisjoint", "issubset",
                           "issuperset", "union", "intersection", "difference"})
_OPS_IN_PLACE = frozenset({"operator.iadd", "operator.imul", "operator.ior", "operator.iand", "operator.isub",
                           "operator.ixor"})
_COPY = {TableKind.DICT: "dict", TableKind.SET: "set", TableKind.FROZENSET: "set", TableKind.LIST: "list"}


def _why(spec: TypedFunction, node: Node, user: Node, table: ConstTable, seen: set[tuple[int, str]]) -> str | None:
    """Why this use could change or hand out the table (None: it only reads it)."""
    if user.op in (Opcode.GETITEM, Opcode.FOR):
        return None if user.args[0] is node else "storing it into another value"
    if user.op is Opcode.SETITEM:
        return "storing into it" if user.args[0] is node else "storing it into another value"
    if user.op is Opcode.RETURN:
        return "returning it (CPython returns the module's own object)"
    if user.op is Opcode.STORE:  # t = UNITS: the local follows the same rule
        return _check_name(spec, user.target, table, seen)
    if user.op is not Opcode.CALL:
        return "storing it elsewhere"
    target = user.target
    if isinstance(target, FunctionRef):  # a helper: its parameter follows the same rule
        callee = spec.callees.get(user)
        if callee is None:
            return "passing it on"
        names = [p.name for p in callee.fn.params]
        given = [names[i] for i, a in enumerate(user.args) if a is node and i < len(names)]
        given += [k for k, v in user.kwargs.items() if v is node]
        for name in given:
            why = _check_name(callee, name, table, seen)
            if why is not None:
                return why
        return None
    if not isinstance(target, str) or target in _OPS_IN_PLACE or target in ("ep.call", "ep.delitem"):
        return "passing it on" if target == "ep.call" else "changing it"
    if target.startswith("method.") and user.args and user.args[0] is node:
        meth = target.split(".", 1)[1]
        return None if meth in _READ_METHODS else f"calling .{meth}() on it"
    return None  # builtins and operators read their operands (len, sorted, in, ==, |, ...)


def _check_name(spec: TypedFunction, name: str, table: ConstTable, seen: set[tuple[int, str]]) -> str | None:
    if (id(spec), name) in seen:
        return None
    seen.add((id(spec), name))
    for n in spec.fn.body.walk():
        if n.op is Opcode.LOAD and n.target == name:
            for user in n.users:
                why = _why(spec, n, user, table, seen)
                if why is not None:
                    return why
        if n.op is Opcode.CLOSURE and name in getattr(n.target, "freevars", ()):
            for c in spec.closures.get(n, []):
                why = _check_name(c, name, table, seen)
                if why is not None:
                    return why
    return None


def check_const_tables(order: list[TypedFunction]) -> None:
    """Every table read in every specialisation only reads it."""
    for spec in order:
        for n in spec.fn.body.walk():
            if n.op is not Opcode.CONST or not isinstance(n.target, ConstTable):
                continue
            table = n.target
            for user in n.users:
                why = _why(spec, n, user, table, set())
                if why is not None:
                    raise CompileError.at(
                        user.loc, f"module global '{table.label}' is a {table.kind.value} captured at compile time, "
                        f"which compiled code may only read ({why} is not supported); work on a copy: "
                        f"mine = {_COPY[table.kind]}({table.label})", (f"checking {spec.fn.qualname}",))


__all__ = ["check_const_tables"]
