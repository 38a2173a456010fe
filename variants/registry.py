"""The one operator registry.

Each operator is declared once: its key (``numpy.exp``), its Python reference
(for differential tests), its typing rule, how a call is lowered to C++, and
its variants (path, header, requirements). Requirements are data, so whether
a variant is in a build is a pure function of (variant, target).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable

from everypath.base.errors import TypingError  # noqa: F401 - re-exported: every typing rule raises it

if TYPE_CHECKING:
    from everypath.base.types import Type
    from everypath.tracer.ir import Node


class PathNotApplicable(Exception):
    """A variant's lowering declines one call site (e.g. BLAS for an integer product):
    that path is left out for this site instead of silently running another path."""


class Family(enum.Enum):
    ELEMENTWISE = "elementwise"
    REDUCTION = "reduction"
    SCAN = "scan"
    CREATION = "creation"
    SHAPE = "shape"
    LINALG = "linalg"
    BUILTIN = "builtin"
    MATH = "math"
    CONTAINER = "container"
    SORTING = "sorting"  # sorting, searching, counting, set routines
    INDEXING = "indexing"  # take, put, choose, select, compress, ...
    RANDOM = "random"
    IMGPROC = "imgproc"  # cv2 image processing


@dataclass(frozen=True)
class Requirements:
    """What a target must offer for a variant to be built into it."""

    os: tuple[str, ...] = ()  # empty: any
    arch: tuple[str, ...] = ()
    isa: str | None = None  # e.g. "x86-64-v3"
    libraries: tuple[str, ...] = ()
    device: str | None = None  # e.g. "cuda"


@dataclass(frozen=True)
class Variant:
    path: str  # "loops", "simd", "threads", "blas", ...
    header: str  # relative to variants/include
    requires: Requirements = Requirements()
    cost_hint: str = ""
    # default policy before any telemetry: use this variant from this much work
    # (elements of the largest operand) on; the last eligible variant wins
    min_work: int = 0


LOOPS = Variant("loops", "everypath/everypath.hpp", cost_hint="reference")


@dataclass
class Site:
    """One call as the typing rule sees it."""

    key: str
    node: "Node"
    args: list["Type"]
    kwargs: dict[str, "Type"]

    def arg_node(self, i: int) -> "Node":
        return self.node.args[i]

    def const(self, where: int | str, default: Any = ...) -> Any:
        """The compile-time value of an argument; TypingError if it is not a constant."""
        from everypath.tracer.ir import Opcode

        node = self._node(where)
        if node is None:
            if default is ...:
                raise TypingError(f"{self.short()}: missing argument '{where}'")
            return default
        if node.op is not Opcode.CONST:
            raise TypingError(f"{self.short()}: argument '{where}' must be a compile-time constant")
        return node.target

    def has(self, where: int | str) -> bool:
        return self._node(where) is not None

    def _node(self, where: int | str) -> "Node | None":
        if isinstance(where, int):
            return self.node.args[where] if where < len(self.node.args) else None
        return self.node.kwargs.get(where)

    def type(self, where: int | str) -> "Type | None":
        if isinstance(where, int):
            return self.args[where] if where < len(self.args) else None
        return self.kwargs.get(where)

    def short(self) -> str:
        return self.key.replace("numpy.", "np.").replace("builtins.", "")

    def check_kwargs(self, allowed: tuple[str, ...]) -> None:
        for k in self.kwargs:
            if k not in allowed:
                raise TypingError(f"{self.short()}() got an unsupported keyword argument '{k}'")


@dataclass(frozen=True)
class Lowering:
    """How a call is written in C++: a function of the call's C++ operands."""

    fn: Callable[["LowerSite"], str]


@dataclass
class LowerSite:
    key: str
    node: "Node"
    args: list[str]  # C++ expressions
    kwargs: dict[str, str]
    arg_types: list["Type"]
    kw_types: dict[str, "Type"]
    result: "Type"
    ctype: Callable[["Type"], str]
    site: str  # call-site id (file:line) for error messages
    path: str = "loops"  # the implementation path being lowered (a Variant's path)
    # facts the emitter proved about operand nodes: never negative (or NaN), e.g. a sum of squares
    never_negative: Callable[["Node"], bool] = lambda n: False

    @property
    def ns(self) -> str:
        """C++ namespace of this path's implementation: ep (loops) or ep::<path>."""
        return "ep" if self.path == "loops" else f"ep::{self.path}"

    def const(self, where: int | str, default: Any = ...) -> Any:
        from everypath.tracer.ir import Opcode

        node = self.node.args[where] if isinstance(where, int) and where < len(self.node.args) else (
            self.node.kwargs.get(where) if isinstance(where, str) else None)
        if node is None:
            if default is ...:
                raise KeyError(where)
            return default
        assert node.op is Opcode.CONST
        return node.target

    def arg(self, where: int | str) -> str | None:
        if isinstance(where, int):
            return self.args[where] if where < len(self.args) else None
        return self.kwargs.get(where)

    def type(self, where: int | str) -> "Type | None":
        if isinstance(where, int):
            return self.arg_types[where] if where < len(self.arg_types) else None
        return self.kw_types.get(where)


@dataclass(frozen=True)
class Operator:
    key: str
    family: Family
    reference: Any  # the Python callable it mirrors (None for language-level ops)
    infer: Callable[[Site], "Type"]
    lower: Callable[[LowerSite], str] | None  # None: lowered by the emitter itself (elementwise fusion)
    variants: tuple[Variant, ...] = (LOOPS,)
    elementwise: Any = None  # variants.ops.elementwise.Ufunc for the elementwise family
    aliases: tuple[str, ...] = field(default=())


class Registry:
    def __init__(self) -> None:
        self.ops: dict[str, Operator] = {}

    def add(self, op: Operator) -> Operator:
        for key in (op.key, *op.aliases):
            if key in self.ops:
                raise ValueError(f"operator {key} declared twice")
            self.ops[key] = op
        return op


@lru_cache(maxsize=1)
def registry() -> Registry:
    """Build the registry once from every operator family module."""
    from everypath.variants.ops import families

    reg = Registry()
    for declare in families():
        declare(reg)
    return reg


def lookup_operator(key: str) -> Operator:
    try:
        return registry().ops[key]
    except KeyError:
        short = key.replace("numpy.", "np.").replace("builtins.", "").replace("method.", ".")
        if key.startswith("ndarray."):
            raise TypingError(f"array method .{key.split('.', 1)[1]}() is not supported yet") from None
        if key.startswith(("scalar.", "list.", "str.")):
            raise TypingError(f"method .{key.split('.', 1)[1]}() of {key.split('.')[0]} is not supported") from None
        raise TypingError(f"{short} is not supported yet (see `everypath ops list`)") from None
