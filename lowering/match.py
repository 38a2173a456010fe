"""The kind tests of match patterns (tracer/match.py): typed bool, decided at compile time where the
subject's type decides them, else one run-time test.

    ep.match_seq(s, n)      a sequence pattern of n items: a tuple or NamedTuple of n items (known), a list
                            of length n (run time); never a str, dict, array or scalar (CPython's
                            collections.abc.Sequence rule)
    ep.match_class(s, key)  a class pattern: the record or enum class itself, or int/float/str/bool as
                            isinstance answers for the subject's type (bool is an int; np.float64 is a float;
                            NumPy integers and np.bool_ are neither)
    ep.match_is(s, b)       `case True:` / `case False:`: only a Python bool is True or False
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from everypath.base.types import BOOL, DType, EnumT, ListT, RecordT, ScalarT, StrT, TupleT
from everypath.tracer.ir import Node
from everypath.tracer.match import CALLS, MATCH_CLASS, MATCH_IS, MATCH_SEQ

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter

__all__ = ["CALLS", "emit_call", "static_truth", "type_call"]


def type_call(target: str, arg_types: list[Any]) -> Any:
    return BOOL


def _builtin_instance(cls: str, t: Any) -> bool:
    if isinstance(t, StrT):
        return cls == "str"
    if not isinstance(t, ScalarT):
        return False
    d = t.dtype
    if cls == "bool":
        return t.weak and d is DType.BOOL
    if cls == "int":
        return t.weak and d in (DType.BOOL, DType.INT64)
    if cls == "float":  # np.float64 subclasses float
        return d is DType.FLOAT64
    return False


def static_truth(n: Node, types: dict[Node, Any]) -> bool | None:
    subject, arg = n.args
    t, value = types.get(subject), arg.target
    if t is None:
        return None
    if n.target == MATCH_SEQ:
        if isinstance(t, TupleT):
            return len(t.items) == value
        if isinstance(t, RecordT) and t.kind == "namedtuple":
            return len(t.fields) == value
        return None if isinstance(t, ListT) else False
    if n.target == MATCH_CLASS:
        module, _, qual = str(value).partition(":")
        if module == "builtins":
            return _builtin_instance(qual, t)
        return isinstance(t, (RecordT, EnumT)) and (t.module, t.qualname) == (module, qual)
    if n.target == MATCH_IS:
        return None if t == BOOL else False
    return None


def emit_call(fe: "FunctionEmitter", n: Node) -> str:
    known = static_truth(n, fe.spec.types)
    if known is not None:
        return "true" if known else "false"
    subject = fe.value(n.args[0])
    if n.target == MATCH_SEQ:
        return f"(static_cast<int64_t>({subject}.size()) == {n.args[1].target})"
    return f"({subject} == {'true' if n.args[1].target else 'false'})"  # ep.match_is of a Python bool
