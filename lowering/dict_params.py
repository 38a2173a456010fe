"""Dict parameters are read-only in compiled code.

A dict argument crosses the C ABI as a copy of the caller's entries (lowering/runtime/arguments.cpp):
a store into it would change the copy, not the caller's dict, which CPython would change. So every
read of such a parameter (and of the parameter of each helper it is passed to) must be one that cannot
change or keep it: an item or membership read, a read-only method, len/sorted/list, a `for` loop.
Anything else is a located CompileError that says how to get a dict of one's own."""
from __future__ import annotations

from everypath.base.errors import CompileError
from everypath.base.types import DictT
from everypath.lowering.infer import TypedFunction
from everypath.tracer.ir import FunctionRef, Node, Opcode

_READ_METHODS = frozenset({"method.get", "method.keys", "method.values", "method.items", "method.copy"})
_READ_CALLS = frozenset({
    "operator.contains", "operator.not_contains", "operator.eq", "operator.ne", "operator.not_", "builtins.len",
    "builtins.bool", "builtins.sorted", "builtins.list", "builtins.dict", "builtins.max", "builtins.min",
})


def _param_names(spec: TypedFunction) -> list[str]:
    return [p.name for p in spec.fn.params]


def _check_use(spec: TypedFunction, load: Node, user: Node, seen: set[tuple[int, str]]) -> str | None:
    """Why this use could change or keep the dict (None: it only reads it)."""
    if user.op is Opcode.GETITEM and user.args[0] is load:
        return None
    if user.op is Opcode.FOR and user.args[0] is load:
        return None
    if user.op is Opcode.RETURN:
        return "returning it (CPython returns the caller's own dict)"
    if user.op is not Opcode.CALL:
        return "storing it elsewhere or into it"
    target = user.target
    if isinstance(target, FunctionRef):  # a helper: its own parameter follows the same rule
        callee = spec.callees.get(user)
        if callee is None:
            return "passing it on"
        positions = [i for i, a in enumerate(user.args) if a is load]
        names = _param_names(callee)
        kw = [k for k, v in user.kwargs.items() if v is load]
        for name in [names[i] for i in positions if i < len(names)] + kw:
            err = check_readonly(callee, name, seen)
            if err is not None:
                raise err
        return None
    if target in _READ_METHODS and user.args[0] is load:
        return None
    if target in _READ_CALLS:
        return None
    if isinstance(target, str) and target.startswith("method.") and user.args[0] is load:
        return f"calling .{target.split('.', 1)[1]}() on it"
    return "passing it on"


def check_readonly(spec: TypedFunction, name: str, seen: set[tuple[int, str]] | None = None) -> CompileError | None:
    seen = set() if seen is None else seen
    if (id(spec), name) in seen:
        return None
    seen.add((id(spec), name))
    for node in spec.fn.body.walk():
        if node.op is Opcode.STORE and node.target == name and node.args[0].op is not Opcode.PARAM:
            return CompileError.at(node.loc, f"parameter '{name}' is a dict given by the caller: rebinding it is "
                                   "not supported; use another name", (f"checking {spec.fn.qualname}",))
        if node.op is Opcode.CLOSURE and name in getattr(node.target, "freevars", ()):
            if spec.closures.get(node):  # a nested function that only reads it (key=lambda k: d[k]) is fine
                errs = (check_readonly(c, name, seen) for c in spec.closures[node])
                err = next((e for e in errs if e is not None), None)
                if err is None:
                    continue
                return err
            return CompileError.at(node.loc, f"parameter '{name}' is a dict given by the caller: using it in a nested "
                                   f"function is not supported; work on a copy: mine = dict({name})",
                                   (f"checking {spec.fn.qualname}",))
        if node.op is not Opcode.LOAD or node.target != name:
            continue
        for user in node.users:
            why = _check_use(spec, node, user, seen)
            if why is not None:
                return CompileError.at(
                    user.loc, f"parameter '{name}' is a dict given by the caller, which compiled code may only read "
                    f"({why} is not supported: CPython would change the caller's dict); work on a copy: "
                    f"mine = dict({name})", (f"checking {spec.fn.qualname}",))
    return None


def check_dict_params(entry: TypedFunction) -> None:
    for name, t in zip(_param_names(entry), entry.arg_types):
        if isinstance(t, DictT):
            err = check_readonly(entry, name)
            if err is not None:
                raise err


__all__ = ["check_dict_params"]
