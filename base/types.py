"""Compile-time types: frozen values, one per kind of runtime value.

Scalars remember whether they are Python scalars ("weak" in NEP 50 terms:
``int``, ``float``, ``bool``, ``complex``) or NumPy scalars, because both the
promotion rules and the type handed back to the caller depend on it.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Union

import numpy as np

from everypath.base.errors import TypingError


class DType(enum.Enum):
    """Element types, with their NumPy name, C++ type and ABI number (abi.h)."""

    BOOL = ("bool", "bool", 0)
    INT8 = ("int8", "int8_t", 1)
    INT16 = ("int16", "int16_t", 2)
    INT32 = ("int32", "int32_t", 3)
    INT64 = ("int64", "int64_t", 4)
    UINT8 = ("uint8", "uint8_t", 5)
    UINT16 = ("uint16", "uint16_t", 6)
    UINT32 = ("uint32", "uint32_t", 7)
    UINT64 = ("uint64", "uint64_t", 8)
    FLOAT32 = ("float32", "float", 9)
    FLOAT64 = ("float64", "double", 10)
    COMPLEX64 = ("complex64", "std::complex<float>", 11)
    COMPLEX128 = ("complex128", "std::complex<double>", 12)
    FLOAT16 = ("float16", "ep::half", 13)  # variants/include/everypath/half.hpp: rounds per operation as NumPy does

    def __init__(self, np_name: str, cpp: str, abi: int) -> None:
        self.np_name, self.cpp, self.abi = np_name, cpp, abi

    @property
    def np(self) -> np.dtype:
        return np.dtype(self.np_name)

    @property
    def kind(self) -> str:
        return self.np.kind  # 'b', 'i', 'u', 'f', 'c'

    @property
    def is_integer(self) -> bool:
        return self.kind in "iu"

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @staticmethod
    def of(dt: object) -> "DType":
        name = np.dtype(dt).name  # type: ignore[call-overload]
        try:
            return _BY_NAME[name]
        except KeyError:
            raise ValueError(f"dtype {name} is not supported") from None

    def __str__(self) -> str:
        return self.np_name


_BY_NAME = {d.np_name: d for d in DType}

# Python scalar types map to these dtypes when they become NumPy values.
PY_SCALAR_DTYPE = {bool: DType.BOOL, int: DType.INT64, float: DType.FLOAT64, complex: DType.COMPLEX128}
PY_NAME = {DType.BOOL: "bool", DType.INT64: "int", DType.FLOAT64: "float", DType.COMPLEX128: "complex"}


@dataclass(frozen=True)
class ScalarT:
    dtype: DType
    weak: bool = False  # a Python scalar (int/float/bool/complex) rather than a NumPy scalar

    def __str__(self) -> str:
        return PY_NAME[self.dtype] if self.weak else f"np.{self.dtype}"


@dataclass(frozen=True)
class ArrayT:
    dtype: DType
    ndim: int
    torch: bool = False  # a torch.Tensor (crosses the boundary as a NumPy view; torch's typing rules apply)

    def __str__(self) -> str:
        s = f"{self.dtype}[{', '.join(':' * self.ndim)}]" if self.ndim else f"{self.dtype}[()]"
        return f"torch.{s}" if self.torch else s


@dataclass(frozen=True)
class TupleT:
    items: tuple["Type", ...]

    def __str__(self) -> str:
        return "tuple[" + ", ".join(map(str, self.items)) + "]"


@dataclass(frozen=True)
class ListT:
    elem: "Type | None"  # None while nothing was appended yet

    def __str__(self) -> str:
        return f"list[{self.elem or '?'}]"


@dataclass(frozen=True)
class DictT:
    """dict[K, V] (variants/include/everypath/dict.hpp); key/value None while nothing was stored yet."""

    key: "Type | None"
    value: "Type | None"

    def __str__(self) -> str:
        return f"dict[{self.key or '?'}, {self.value or '?'}]"


@dataclass(frozen=True)
class SetT:
    """set[T] (variants/include/everypath/set.hpp); elem None while nothing was added yet."""

    elem: "Type | None"

    def __str__(self) -> str:
        return f"set[{self.elem or '?'}]"


@dataclass(frozen=True)
class NoneT:
    def __str__(self) -> str:
        return "None"


@dataclass(frozen=True)
class StrT:
    def __str__(self) -> str:
        return "str"


@dataclass(frozen=True)
class SliceT:
    def __str__(self) -> str:
        return "slice"


@dataclass(frozen=True)
class EllipsisT:
    """`...` in an array index (lowering/indexing.py): the axes no other index item takes, kept whole."""

    def __str__(self) -> str:
        return "ellipsis"  # CPython's type name: "list indices must be integers or slices, not ellipsis"


@dataclass(frozen=True)
class RangeT:
    def __str__(self) -> str:
        return "range"


@dataclass(frozen=True)
class IterT:
    """enumerate(...), zip(...), np.ndindex(...), reversed(...): iterated by `for` only."""

    kind: str
    items: tuple["Type", ...]
    ndim: int = 0  # np.ndindex rank

    def __str__(self) -> str:
        return f"{self.kind}[" + ", ".join(map(str, self.items)) + "]"


@dataclass(frozen=True)
class DTypeT:
    """A dtype used as a value (``dtype=np.float32``, ``astype(int)``)."""

    dtype: DType
    py: bool = False  # given as a Python type (int/float/...) rather than a NumPy one

    def __str__(self) -> str:
        return f"dtype[{self.dtype}]"


@dataclass(frozen=True)
class FuncT:
    """A user function or closure used as a value; key identifies it."""

    key: str  # "closure:<id>:<qualname>", a user function's name, or "choice:" + members joined by "|"

    @property
    def members(self) -> tuple[str, ...]:
        """The functions this value may be (one, unless a variable was bound to several closures)."""
        return tuple(self.key[len("choice:"):].split("|")) if self.key.startswith("choice:") else (self.key,)

    def __str__(self) -> str:
        names = [m.split(":", 2)[2] if m.startswith("closure:") else m for m in self.members]
        return f"function[{' | '.join(names)}]"


@dataclass(frozen=True)
class GeneratorT:
    """A np.random.Generator made in compiled code (default_rng); its methods: variants/ops/random.py."""

    def __str__(self) -> str:
        return "np.random.Generator"


@dataclass(frozen=True)
class GenT:
    """What a compiled generator function returns (ep::generator<T>, variants/include/everypath/generator.hpp):
    consumed by `for` (lowering/generators.py) or handed to Python as a lazy iterator. Not GeneratorT above."""

    item: "Type"  # the type of every value it yields (one type: mixed yields are refused)

    def __str__(self) -> str:
        return f"generator[{self.item}]"


@dataclass(frozen=True)
class MaybeWeakT:
    """A local that is a Python scalar until a NumPy scalar absorbs it (NEP 50: `total = 0.0` then
    `total += f32`): only variables have this type. Its C++ slot keeps both values and a flag; every read
    is typed as the NumPy scalar, which the typer allows only where both would give the same result."""

    strong: DType
    weak: DType

    @property
    def strong_t(self) -> ScalarT:
        return ScalarT(self.strong)

    @property
    def weak_t(self) -> ScalarT:
        return ScalarT(self.weak, weak=True)

    def demoted(self) -> ScalarT:
        """The one-slot type used where a read cannot tell the two apart: the promoted NumPy scalar."""
        return ScalarT(DType.of(np.promote_types(self.strong.np, self.weak.np)))

    def __str__(self) -> str:
        return f"{PY_NAME[self.weak]} | np.{self.strong}"


@dataclass(frozen=True)
class EnumT:
    """A member of an enum.Enum class of the user's module (base/classes.py): in C++ an int64, the member's
    index in definition order, or for an IntEnum its int value (so IntEnum arithmetic is int arithmetic)."""

    module: str
    qualname: str
    names: tuple[str, ...]  # canonical members, in definition order
    values: tuple[object, ...]  # their .value (ints or strs)
    base: str = "enum"  # "enum", "int" (IntEnum), "str" (StrEnum)

    @property
    def by_value(self) -> bool:
        return self.base == "int"

    def __str__(self) -> str:
        return self.qualname


@dataclass(frozen=True)
class RecordT:
    """An instance of a @dataclass or typing.NamedTuple class of the user's module (base/classes.py): one C++
    struct per class (lowering/records.py); a non-frozen dataclass is shared by reference, as in Python."""

    module: str
    qualname: str
    fields: tuple[str, ...]
    items: tuple["Type", ...]  # the fields' annotated types
    kind: str = "dataclass"  # "dataclass" or "namedtuple"
    frozen: bool = True  # NamedTuples and frozen dataclasses: values; others: references

    def field_type(self, name: str) -> "Type":
        return self.items[self.fields.index(name)]

    def __str__(self) -> str:
        return self.qualname


@dataclass(frozen=True)
class ImageT:
    """A PIL.Image.Image (base/images.py, lowering/pil_images.py): in C++ the array np.asarray(img) gives. Not an
    ArrayT, so NumPy's operators do not take it (PIL's images have no arithmetic either)."""

    array: ArrayT
    mode: str | None  # None: the channel count of Image.fromarray's 3-d array decides it at run time

    def __str__(self) -> str:
        return f"PIL.Image[{self.mode or '?'}]"


@dataclass(frozen=True)
class UnionT:
    """A value that is one of a few kinds at run time (`best = None` then a tuple; an int on one path and a str
    on another): ep::Union (variants/include/everypath/union.hpp), a tag and the member held. Members are
    distinct, not unions, sorted canonically (base/unions.py builds them; lowering/unions.py types their use)."""

    members: tuple["Type", ...]

    def __str__(self) -> str:
        return " | ".join(map(str, self.members))


Type = Union[ScalarT, ArrayT, TupleT, ListT, DictT, SetT, NoneT, StrT, SliceT, EllipsisT, RangeT, IterT, DTypeT, FuncT, GeneratorT,
             MaybeWeakT, EnumT, RecordT, GenT, ImageT, UnionT]
CHANNEL_MODES = frozenset({None, "LA", "RGB", "RGBA"})  # Image.fromarray of (H, W, 2|3|4) uint8 (tests check PIL)

INT = ScalarT(DType.INT64, weak=True)
FLOAT = ScalarT(DType.FLOAT64, weak=True)
BOOL = ScalarT(DType.BOOL, weak=True)
COMPLEX = ScalarT(DType.COMPLEX128, weak=True)
NONE = NoneT()


def like_tensor(t: Type | None, *sources: Type | None) -> Type | None:
    """An array computed from a torch tensor (indexing, attributes, iteration) is a torch tensor too."""
    if isinstance(t, ArrayT) and not t.torch and any(isinstance(s, ArrayT) and s.torch for s in sources):
        return ArrayT(t.dtype, t.ndim, torch=True)
    return t


def is_numeric(t: object) -> bool:
    return isinstance(t, (ScalarT, ArrayT))


def join(a: Type | None, b: Type | None) -> Type | None:
    """Least upper bound of two types a variable may hold; None when they cannot share a C++ slot."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if isinstance(a, MaybeWeakT) or isinstance(b, MaybeWeakT):
        m, o = (a, b) if isinstance(a, MaybeWeakT) else (b, a)
        if o in (m.strong_t, m.weak_t):
            return m
        if isinstance(o, MaybeWeakT):
            return join(m.demoted(), o.demoted())
        return join(m.demoted(), o) if isinstance(o, ScalarT) else None
    if isinstance(a, ScalarT) and isinstance(b, ScalarT):
        dt = DType.of(np.promote_types(a.dtype.np, b.dtype.np))
        return ScalarT(dt, weak=a.weak and b.weak)
    if isinstance(a, ListT) and isinstance(b, ListT):
        if a.elem is None or b.elem is None:
            return ListT(a.elem or b.elem)
        e = join(a.elem, b.elem)
        return ListT(e) if e is not None else None
    if isinstance(a, SetT) and isinstance(b, SetT):  # set() then {x}: the known element type
        if a.elem is None or b.elem is None or a.elem == b.elem:
            return SetT(a.elem or b.elem)
        return None
    if isinstance(a, DictT) and isinstance(b, DictT):  # {} then {k: v}: the known halves
        k = a.key if b.key is None else b.key if a.key is None else (a.key if a.key == b.key else None)
        v = a.value if b.value is None else b.value if a.value is None else join(a.value, b.value)
        if (a.key is not None and b.key is not None and k is None) or (
                a.value is not None and b.value is not None and v is None):
            return None
        return DictT(k, v)
    if isinstance(a, FuncT) and isinstance(b, FuncT):  # a variable bound to one of several closures
        members = sorted(set(a.members) | set(b.members))
        return FuncT("choice:" + "|".join(members)) if len(members) > 1 else a
    if isinstance(a, ImageT) and isinstance(b, ImageT) and a.array == b.array and None in (a.mode, b.mode) and \
            {a.mode, b.mode} <= CHANNEL_MODES:  # a mode Image.fromarray would infer anyway: decided at run time
        return ImageT(a.array, None)
    if isinstance(a, TupleT) and isinstance(b, TupleT) and len(a.items) == len(b.items):
        items = tuple(join(x, y) for x, y in zip(a.items, b.items))
        return None if any(i is None for i in items) else TupleT(items)  # type: ignore[arg-type]
    return None


_WEAK_VALUE = {DType.BOOL: False, DType.INT64: 0, DType.FLOAT64: 0.0, DType.COMPLEX128: 0j}


def join_var(a: Type | None, b: Type | None) -> Type | None:
    """join for what a local may hold: a Python scalar and a NumPy scalar it yields to (NEP 50) of another
    dtype make a MaybeWeakT rather than a wider NumPy scalar (which would compute in the wrong precision)."""
    if isinstance(a, ScalarT) and isinstance(b, ScalarT) and a.weak != b.weak:
        w, s = (a, b) if a.weak else (b, a)
        if w.dtype is not s.dtype and w.dtype in _WEAK_VALUE:
            if DType.of(np.result_type(s.dtype.np, _WEAK_VALUE[w.dtype])) is s.dtype:
                return MaybeWeakT(s.dtype, w.dtype)
    if isinstance(a, MaybeWeakT) and isinstance(b, ScalarT) and b.weak and b.dtype is not a.weak:
        return join_var(a.strong_t, join(a.weak_t, b))  # int then float: the wider Python scalar
    return join(a, b)


def element_type(t: Type) -> Type:
    """What `for x in <t>` binds x to."""
    if isinstance(t, RangeT):
        return INT
    if isinstance(t, StrT):  # for ch in s: one-character strings
        return t
    if isinstance(t, ArrayT):
        if t.ndim == 0:
            raise TypingError("iteration over a 0-d array")
        return ScalarT(t.dtype) if t.ndim == 1 else ArrayT(t.dtype, t.ndim - 1)
    if isinstance(t, ListT):
        if t.elem is None:
            raise TypingError("cannot infer the element type of an empty list")
        return t.elem
    if isinstance(t, TupleT):
        items = set(t.items)
        if len(items) != 1:
            raise TypingError(f"iterating over a tuple of mixed types {t} is not supported")
        return t.items[0]
    if isinstance(t, SetT):
        raise TypingError("iterating over a set is not supported: CPython's order is its hash order, which "
                          "compiled code does not reproduce; iterate over sorted(s)")
    if isinstance(t, DictT):  # for k in d
        if t.key is None:
            raise TypingError("cannot infer the key type of an empty dict")
        return t.key
    if isinstance(t, GenT):  # for x in gen(...): what it yields
        return t.item
    if isinstance(t, IterT):
        if t.kind in ("dict_keys", "dict_values", "dict_items"):  # d.keys() / d.values() / d.items()
            d = t.items[0]
            assert isinstance(d, DictT)
            if d.key is None or d.value is None:
                raise TypingError("cannot infer the key and value types of an empty dict")
            return {"dict_keys": d.key, "dict_values": d.value}.get(t.kind, TupleT((d.key, d.value)))
        if t.kind == "enumerate":
            return TupleT((INT, element_type(t.items[0])))
        if t.kind == "zip":
            return TupleT(tuple(element_type(i) for i in t.items))
        if t.kind == "ndindex":
            return TupleT((INT,) * t.ndim)
        if t.kind == "reversed":
            return element_type(t.items[0])
    raise TypingError(f"cannot iterate over {t}")
