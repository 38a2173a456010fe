"""Which array parameters a function may write into (directly, through views, or in callees).

The runtime uses this to refuse read-only arrays for those parameters and to
never hand a kernel a temporary copy it would write into. Conservative: an
array that may alias a parameter counts as that parameter.
"""
from __future__ import annotations

from everypath.lowering.infer import TypedFunction
from everypath.base.types import ArrayT
from everypath.tracer.ir import FunctionRef, Node, Opcode

_VIEW_OPS = frozenset({
    "numpy.reshape", "ndarray.reshape", "numpy.transpose", "ndarray.transpose", "numpy.ravel", "ndarray.ravel",
    "numpy.asarray", "numpy.expand_dims", "numpy.squeeze", "ndarray.squeeze", "numpy.flip",
    "numpy.rot90", "numpy.fliplr", "numpy.flipud", "numpy.moveaxis", "numpy.swapaxes", "ndarray.swapaxes",
    "numpy.atleast_1d", "numpy.atleast_2d", "numpy.atleast_3d", "numpy.broadcast_to", "numpy.diag", "numpy.diagonal",
    "ndarray.diagonal", "numpy.trim_zeros", "numpy.split", "numpy.array_split", "numpy.hsplit", "numpy.vsplit",
    "numpy.dsplit", "numpy.meshgrid", "numpy.ascontiguousarray", "numpy.asanyarray", "numpy.require",
})
# operators that write into their first argument
_WRITES_ARG0 = frozenset({
    "ndarray.sort", "ndarray.partition", "numpy.put", "ndarray.put", "numpy.put_along_axis", "numpy.place",
    "ndarray.fill", "numpy.copyto",
})


def mutated_params(specs: list[TypedFunction]) -> dict[TypedFunction, set[str]]:
    result: dict[TypedFunction, set[str]] = {s: set() for s in specs}
    for _ in range(len(specs) + 2):
        changed = False
        for s in specs:
            new = _one(s, result)
            if new != result[s]:
                result[s] = new
                changed = True
        if not changed:
            break
    return result


def _one(spec: TypedFunction, known: dict[TypedFunction, set[str]]) -> set[str]:
    var_roots: dict[str, set[str]] = {}
    written: set[str] = set()

    def roots(n: Node) -> set[str]:
        t = spec.types.get(n)
        if n.op is Opcode.PARAM:
            return {n.target}
        if n.op is Opcode.LOAD:
            r = set(var_roots.get(n.target, set()))
            if spec.parent is not None and n.target in spec.fn.freevars:
                r.add("$outer")
            return r
        if n.op in (Opcode.GETITEM, Opcode.GETATTR):
            return roots(n.args[0])
        if n.op is Opcode.CALL:
            key = spec.op_keys.get(n, n.target if isinstance(n.target, str) else "")
            if key in _VIEW_OPS or (key.startswith("operator.i") and isinstance(t, ArrayT)):
                return roots(n.args[0])
            if isinstance(n.target, FunctionRef) or n.target == "ep.call" or n.target in ("ep.tuple", "ep.list"):
                out: set[str] = set()
                for a in n.args:
                    out |= roots(a)
                return out
        return set()

    for _ in range(3):  # loops can carry aliases backwards
        for n in spec.fn.body.walk():
            if n.op is Opcode.STORE:
                var_roots.setdefault(n.target, set()).update(roots(n.args[0]))
            elif n.op is Opcode.FOR:
                for name in _names(n.target):
                    var_roots.setdefault(name, set()).update(roots(n.args[0]))
            elif n.op is Opcode.SETITEM:
                written |= roots(n.args[0])
            elif n.op is Opcode.CALL:
                key = spec.op_keys.get(n, "")
                if (key.startswith("operator.i") and isinstance(spec.types.get(n.args[0]), ArrayT)) or (
                        key in _WRITES_ARG0):
                    written |= roots(n.args[0])
                if key == "Generator.shuffle":  # rng.shuffle(x) permutes x in place
                    x = n.args[1] if len(n.args) > 1 else n.kwargs.get("x")
                    written |= roots(x) if x is not None else set()
                callee = spec.callees.get(n)
                if callee is not None:
                    args = n.args[1:] if n.target == "ep.call" else n.args
                    names = [p.name for p in callee.fn.params]
                    for i, a in enumerate(args):
                        if i < len(names) and names[i] in known.get(callee, set()):
                            written |= roots(a)
                    for k, a in n.kwargs.items():
                        if k in known.get(callee, set()):
                            written |= roots(a)
                    if "$outer" in known.get(callee, set()):
                        written |= {"$outer"} if spec.parent is not None else set(p.name for p in spec.fn.params)
    for cl in spec.closures.values():
        for c in cl:
            if "$outer" in known.get(c, set()):
                written |= {p.name for p in spec.fn.params}  # conservative: a closure wrote some outer array
    return written & ({p.name for p in spec.fn.params} | {"$outer"})


def _names(p: object) -> list[str]:
    if isinstance(p, str):
        return [p]
    return [n for x in p for n in _names(x)]  # type: ignore[attr-defined]
