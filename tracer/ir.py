"""The everypath IR, in the spirit of torch.fx.

A function is a tree of blocks holding nodes. A node has one opcode from a
small fixed set; for calls the operator itself is the node's target (a stable
key such as ``numpy.exp`` or ``operator.add``, or a traced user function).
Operands are other nodes; every node keeps the set of its users, maintained by
the data structure itself, so use-def chains never go stale. Structured
control flow (if / for / loop) owns nested blocks. Locals are named mutable
slots (LOAD/STORE), which keeps lowering to C++ direct.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Iterator

from everypath.base.errors import SourceLocation


class Opcode(enum.Enum):
    PARAM = "param"  # target: parameter name
    CONST = "const"  # target: Python value (int, float, bool, complex, str, None)
    CALL = "call"  # target: operator key (str) or FunctionRef; args: operands; kwargs: keyword operands
    GETATTR = "getattr"  # target: attribute name; args: (obj,)
    GETITEM = "getitem"  # args: (obj, index)
    SETITEM = "setitem"  # args: (obj, index, value)
    LOAD = "load"  # target: local name
    STORE = "store"  # target: local name; args: (value,)
    IF = "if"  # args: (cond,); blocks: (then, orelse)
    FOR = "for"  # target: binding pattern (str or nested tuple of str); args: (iterable,); blocks: (body,)
    LOOP = "loop"  # blocks: (body,); runs until BREAK or RETURN (while loops are lowered to this)
    BREAK = "break"
    CONTINUE = "continue"
    RETURN = "return"  # args: (value,)
    RAISE = "raise"  # target: builtin exception name; args: (message,) or ()
    CLOSURE = "closure"  # target: nested Function (lambda or def); value is callable
    TRY = "try"  # target: TrySpec (tracer/exceptions.py); blocks: (body, orelse, finalbody, *handlers)


VALUE_OPCODES = frozenset(
    {Opcode.PARAM, Opcode.CONST, Opcode.CALL, Opcode.GETATTR, Opcode.GETITEM, Opcode.LOAD, Opcode.CLOSURE}
)


@dataclass(frozen=True)
class FunctionRef:
    """A call target that is another traced user function (module-qualified)."""

    module: str
    qualname: str
    # parameters bound to constants at the call sites (a partial evaluation of the helper, see
    # tracer.statics.const_bindings); consts_key (their repr) tells True from 1 apart
    consts: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    consts_key: str = ""

    def __str__(self) -> str:
        return f"{self.module}.{self.qualname}" + (f"[{self.consts_key}]" if self.consts_key else "")


def const_key(consts: tuple[tuple[str, Any], ...]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in consts)


class Node:
    """One operation. Construct through ``Block.append`` so that users stay consistent."""

    __slots__ = ("op", "target", "_args", "_kwargs", "loc", "blocks", "meta", "users", "id", "block")

    def __init__(
        self,
        op: Opcode,
        target: Any,
        args: tuple[Node, ...],
        kwargs: dict[str, Node],
        loc: SourceLocation,
        blocks: tuple[Block, ...] = (),
    ) -> None:
        self.op = op
        self.target = target
        self._args: tuple[Node, ...] = ()
        self._kwargs: dict[str, Node] = {}
        self.loc = loc
        self.blocks = blocks
        self.meta: dict[str, Any] = {}
        self.users: dict[Node, None] = {}
        self.id = -1
        self.block: Block | None = None
        self.args = args
        self.kwargs = kwargs
        for b in blocks:
            b.parent = self

    # use-def: replacing operands updates the users of old and new operands
    @property
    def args(self) -> tuple[Node, ...]:
        return self._args

    @args.setter
    def args(self, value: tuple[Node, ...]) -> None:
        self._set_operands(tuple(value), self._kwargs)

    @property
    def kwargs(self) -> dict[str, Node]:
        return dict(self._kwargs)

    @kwargs.setter
    def kwargs(self, value: dict[str, Node]) -> None:
        self._set_operands(self._args, dict(value))

    def _set_operands(self, args: tuple[Node, ...], kwargs: dict[str, Node]) -> None:
        for old in (*self._args, *self._kwargs.values()):
            old.users.pop(self, None)
        self._args, self._kwargs = args, kwargs
        for new in (*args, *kwargs.values()):
            if not isinstance(new, Node):
                raise TypeError(f"IR operand must be a Node, got {type(new).__name__}")
            new.users[self] = None

    def operands(self) -> tuple[Node, ...]:
        return (*self._args, *self._kwargs.values())

    def replace_all_uses_with(self, other: Node) -> None:
        for user in list(self.users):
            user._set_operands(
                tuple(other if a is self else a for a in user._args),
                {k: (other if v is self else v) for k, v in user._kwargs.items()},
            )

    def drop(self) -> None:
        """Detach from operands (used when a node is erased)."""
        self._set_operands((), {})

    @property
    def name(self) -> str:
        return f"%{self.id}"

    def __repr__(self) -> str:
        return f"<Node {self.name} {self.op.value} {self.target!r}>"


class Block:
    """An ordered list of nodes; owned by a Function body or by a structured node."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.parent: Node | None = None

    def append(self, node: Node) -> Node:
        node.block = self
        self.nodes.append(node)
        return node

    def walk(self) -> Iterator[Node]:
        """Every node in this block and nested blocks, in program order."""
        for n in self.nodes:
            yield n
            for b in n.blocks:
                yield from b.walk()

    def terminates(self) -> bool:
        """True when control never falls off the end of this block."""
        if not self.nodes:
            return False
        last = self.nodes[-1]
        if last.op in (Opcode.RETURN, Opcode.RAISE, Opcode.BREAK, Opcode.CONTINUE):
            return True
        if last.op is Opcode.IF:
            return all(b.terminates() for b in last.blocks)
        if last.op is Opcode.TRY:  # the finally leaves, or every way out of body/else and the handlers does
            body, orelse, final, *handlers = last.blocks
            return final.terminates() or ((body.terminates() or orelse.terminates())
                                          and all(h.terminates() for h in handlers))
        return False


@dataclass
class Param:
    name: str
    annotation: Any  # resolved annotation object, or None when absent
    default: Any  # Param.NO_DEFAULT when absent
    loc: SourceLocation

    NO_DEFAULT = object()

    @property
    def has_default(self) -> bool:
        return self.default is not Param.NO_DEFAULT


@dataclass
class Function:
    """A traced function: signature, body and the module environment it was resolved in."""

    name: str
    qualname: str
    module: str
    filename: str
    params: list[Param]
    returns: Any  # resolved return annotation, or None when absent
    body: Block
    loc: SourceLocation
    freevars: tuple[str, ...] = ()  # for closures: names read from the enclosing function
    locals: dict[str, SourceLocation] = field(default_factory=dict)  # every local name and its first store
    is_closure: bool = False
    consts: tuple[tuple[str, Any], ...] = ()  # parameters bound to constants (FunctionRef.consts)
    is_generator: bool = False  # its body yields: compiled as a coroutine (lowering/generators.py)

    @property
    def ref(self) -> FunctionRef:
        return FunctionRef(self.module, self.qualname, self.consts, const_key(self.consts))

    def number(self) -> None:
        """Give every node a stable id in program order (ids restart per function)."""
        for i, n in enumerate(self.body.walk()):
            n.id = i

    def __str__(self) -> str:
        from everypath.tracer.printer import format_function

        return format_function(self)

    def lint(self) -> None:
        from everypath.tracer.lint import lint

        lint(self)
