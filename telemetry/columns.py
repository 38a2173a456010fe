"""One converter per calls column type, for telemetry/convert.py: a producer's Arrow column in,
the CALLS_SCHEMA column out (null where a row fails) and the rows that fail, with why.

Each converter takes (the producer's array, the target field, the notes list to which it
appends the conversions it applied) and returns (values, problems); problems are boolean
arrays of failing rows with a message ("{v}" is the row's input value). A producer's type
with no conversion raises TypeProblem (the whole column, hence the file, is refused).
Vectorized Arrow kernels throughout; Python loops only for text forms that need them
(a `shape` like "[2, 3]", `ts` text that is not one uniform ISO 8601 form).
"""
from __future__ import annotations

import datetime as dt
import math
import re
from decimal import Decimal
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from everypath.telemetry.records import MAX_DIMS

# plausible call times: a unit mistake (ms read as ns, s as ms, ...) lands outside, clock skew does not
TS_MIN = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)
TS_MAX = dt.datetime(2100, 1, 1, tzinfo=dt.timezone.utc)
_NS_MIN, _NS_MAX = (int(t.timestamp()) * 10**9 for t in (TS_MIN, TS_MAX))
# integer or float `ts`: the unit from the magnitude (for 2000..2100 the four ranges do not overlap)
_UNITS = ((10**17, 1), (10**14, 10**3), (10**11, 10**6), (0, 10**9))  # (lower bound, ns per unit)
PARTITION_NAME = r"^[A-Za-z0-9_-]{1,64}$"
GPU_NONE = ["", "none", "null", "n/a", "na", "-", "no gpu"]  # compared lower-cased and trimmed
_TRUE, _FALSE = ["true", "t", "1", "yes", "y"], ["false", "f", "0", "no", "n"]
_INT_TEXT, _FLOAT_TEXT = r"^\s*[+-]?\d{1,18}\s*$", r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$"
_SHAPE_TEXT = r"^\s*[\[(]?\s*(\d{1,18}(\s*[,x]\s*\d{1,18})*\s*,?)?\s*[\])]?\s*$"
MISSING = "is required but missing"


class TypeProblem(Exception):
    """A column whose type has no conversion to its CALLS_SCHEMA type."""


Problem = tuple[pa.Array, str]  # (rows, a boolean array; the message, "{v}" is the row's input value)


def bools(a: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(pc.fill_null(a, False).to_numpy(zero_copy_only=False), dtype=bool)


def any_true(mask: pa.Array) -> bool:
    return bool(mask.true_count)


def _null_where(mask: pa.Array, values: pa.Array) -> pa.Array:
    return pc.if_else(mask, pa.nulls(len(values), values.type), values) if any_true(mask) else values


def decode(a: pa.Array) -> pa.Array:
    return a.dictionary_decode() if pa.types.is_dictionary(a.type) else a


def _text(a: pa.Array, f: pa.Field, notes: list[str]) -> tuple[pa.Array, list[Problem]]:
    if pa.types.is_null(a.type):
        v = pa.nulls(len(a), pa.string())
    elif pa.types.is_string(a.type) or pa.types.is_large_string(a.type):
        v = a.cast(pa.string())
    else:
        raise TypeProblem(f"column {f.name!r} has type {a.type}, expected text")
    if f.name == "gpu":
        none = pc.is_in(pc.utf8_lower(pc.utf8_trim_whitespace(v)), pa.array(GPU_NONE))
        if any_true(none):
            notes.append("gpu: 'none', '' and the like read as null (no GPU)")
            v = _null_where(none, v)
    elif f.nullable:
        v = _null_where(pc.equal(v, ""), v)
    problems: list[Problem] = []
    if not f.nullable:
        problems.append((pc.or_kleene(pc.is_null(v), pc.equal(v, "")), MISSING))
    if f.name == "device_class":
        names = pc.unique(v)  # a few classes per batch: check each name once
        bad = pc.filter(names, pc.invert(pc.match_substring_regex(names, PARTITION_NAME)))
        problems.append((pc.is_in(v, bad), "{v} is not a valid partition name ([A-Za-z0-9_-], 1 to 64 characters)"))
    return v, problems


def _numbers(a: pa.Array, f: pa.Field, integral: bool) -> tuple[pa.Array, list[Problem]]:
    """a as int64 (integral) or float64, with the rows that do not parse."""
    want = pa.int64() if integral else pa.float64()
    if pa.types.is_null(a.type):
        return pa.nulls(len(a), want), []
    if pa.types.is_string(a.type) or pa.types.is_large_string(a.type):
        ok = pc.match_substring_regex(a, _INT_TEXT if integral else _FLOAT_TEXT)
        bad = pc.and_kleene(pc.invert(ok), pc.is_valid(a))
        what = "an integer" if integral else "a number"
        return pc.cast(pc.utf8_trim_whitespace(_null_where(pc.invert(ok), a)), want), [(bad, f"{{v}} is not {what}")]
    if pa.types.is_unsigned_integer(a.type) and a.type.bit_width == 64:
        big = pc.greater(a, pa.scalar(2**63 - 1, pa.uint64()))
        return pc.cast(_null_where(big, a), pa.int64()), [(big, "{v} is out of range")]
    if pa.types.is_integer(a.type):
        return a.cast(want), []
    if pa.types.is_floating(a.type):
        if not integral:
            return a.cast(pa.float64()), []
        whole = pc.and_kleene(pc.equal(pc.floor(a), a), pc.less(pc.abs(a), 2.0**62))
        return pc.cast(_null_where(pc.invert(whole), a), pa.int64()), [
            (pc.and_kleene(pc.invert(whole), pc.is_valid(a)), "{v} is not an integer")]
    raise TypeProblem(f"column {f.name!r} has type {a.type}, expected {f.type}")


def _integer(a: pa.Array, f: pa.Field, notes: list[str]) -> tuple[pa.Array, list[Problem]]:
    v, problems = _numbers(a, f, integral=True)
    hi = 2 ** (f.type.bit_width - 1) - 1
    out = pc.or_kleene(pc.less(v, 0), pc.greater(v, hi))  # every integer column counts or measures
    problems.append((out, f"{{v}} is not in 0..{hi} ({f.type})"))
    v = _null_where(out, v)
    if not f.nullable:
        problems.insert(0, (pc.is_null(a), MISSING))
    return v.cast(f.type), problems


def _probability(a: pa.Array, f: pa.Field, notes: list[str]) -> tuple[pa.Array, list[Problem]]:
    """The schema's float columns are probabilities (propensity, inclusion): in (0, 1]."""
    v, problems = _numbers(a, f, integral=False)
    bad = pc.invert(pc.and_kleene(pc.greater(v, 0.0), pc.less_equal(v, 1.0)))  # NaN compares false
    if f.nullable:
        bad = pc.and_kleene(bad, pc.is_valid(v))
    else:
        problems.insert(0, (pc.is_null(a), MISSING))
    problems.append((bad, "{v} is not a probability in (0, 1]"))
    return _null_where(bad, v).cast(f.type), problems


def _flag(a: pa.Array, f: pa.Field, notes: list[str]) -> tuple[pa.Array, list[Problem]]:
    if pa.types.is_boolean(a.type):
        v = a
    elif pa.types.is_integer(a.type):
        v = _null_where(pc.invert(pc.is_in(a, pa.array([0, 1], a.type))), pc.not_equal(a, 0))
    elif pa.types.is_string(a.type) or pa.types.is_large_string(a.type) or pa.types.is_null(a.type):
        low = pc.utf8_lower(pc.utf8_trim_whitespace(a.cast(pa.string())))
        yes, no = pc.is_in(low, pa.array(_TRUE)), pc.is_in(low, pa.array(_FALSE))
        v = _null_where(pc.invert(pc.or_(yes, no)), yes)
    else:
        raise TypeProblem(f"column {f.name!r} has type {a.type}, expected bool")
    return v, [(pc.is_null(a), MISSING), (pc.and_kleene(pc.is_null(v), pc.is_valid(a)),
                                          "{v} is not a boolean (true/false, 1/0, yes/no)")]


def _scaled(x: int | float | Decimal) -> int | None:
    """A number since the UNIX epoch, in the unit its magnitude says, as ns (None: out of range).
    A float goes through its shortest decimal form (repr), so 1770091506.789 s is ...789000000 ns."""
    if isinstance(x, float):
        if not math.isfinite(x):
            return None
        x = Decimal(repr(x))
    for lower, scale in _UNITS:
        if x >= lower:
            ns = int(x * scale)
            return ns if _NS_MIN <= ns < _NS_MAX else None
    return None


def _epoch_ns(v: pa.Array, notes: list[str]) -> tuple[pa.Array, pa.Array]:
    """Numbers since the UNIX epoch in the unit their magnitude says: (ns, bad rows)."""
    notes.append("ts: numbers read as time since the UNIX epoch in s, ms, µs or ns by their magnitude")
    if not pa.types.is_integer(v.type):  # floats: exact decimal scaling, row by row (a rare form)
        ns_list = [None if x is None else _scaled(x) for x in v.to_pylist()]
        out = pa.array(ns_list, pa.int64())
        return out, pc.and_kleene(pc.is_null(out), pc.is_valid(v))
    x = pc.fill_null(v, 0).cast(pa.int64()).to_numpy()
    ns, ok, placed = np.zeros(len(x), np.int64), np.zeros(len(x), bool), np.zeros(len(x), bool)
    for lower, scale in _UNITS:  # vectorized _scaled
        sel = ~placed & (x >= lower)
        placed |= sel
        inside = sel & (x >= _NS_MIN // scale) & (x < _NS_MAX // scale)
        ns[inside] = x[inside] * scale
        ok |= inside
    valid = bools(pc.is_valid(v))
    return pa.array(ns, pa.int64(), mask=~(ok & valid)), pa.array(~ok & valid)


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def _text_ns(s: str, notes: list[str]) -> int | None:
    s = s.strip()
    if re.fullmatch(_INT_TEXT, s):
        notes.append("ts: numbers read as time since the UNIX epoch in s, ms, µs or ns by their magnitude")
        return _scaled(int(s))
    if re.fullmatch(_FLOAT_TEXT, s):
        notes.append("ts: numbers read as time since the UNIX epoch in s, ms, µs or ns by their magnitude")
        return _scaled(Decimal(s.strip()))
    try:  # Python keeps microseconds: digits beyond them are dropped (Arrow's parse, tried first, keeps ns)
        t = dt.datetime.fromisoformat(re.sub(r"[zZ]$", "+00:00", s))
    except ValueError:
        return None
    if t.tzinfo is None:
        notes.append("ts: ISO 8601 text without a zone offset read as UTC")
        t = t.replace(tzinfo=dt.timezone.utc)
    ns = (t - _EPOCH) // dt.timedelta(microseconds=1) * 1000
    return ns if _NS_MIN <= ns < _NS_MAX else None


def _timestamp(a: pa.Array, f: pa.Field, notes: list[str]) -> tuple[pa.Array, list[Problem]]:
    if pa.types.is_string(a.type) or pa.types.is_large_string(a.type):
        for target, note in ((pa.timestamp("ns"), "ts: ISO 8601 text without a zone offset read as UTC"),
                             (pa.timestamp("ns", "UTC"), None)):
            try:  # one vectorized parse when the whole column has one form
                a = pc.cast(a, target)
                if note:
                    notes.append(note)
                break
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
    if pa.types.is_timestamp(a.type):
        if a.type.tz is None:
            notes.append("ts: a timestamp without time zone read as UTC")
        scale = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}[a.type.unit]
        raw = a.cast(pa.int64())
        bad = pc.or_kleene(pc.less(raw, _NS_MIN // scale), pc.greater_equal(raw, _NS_MAX // scale))
        ns = pc.multiply(_null_where(bad, raw), scale)
    elif pa.types.is_integer(a.type) or pa.types.is_floating(a.type):
        ns, bad = _epoch_ns(a, notes)
    elif pa.types.is_string(a.type) or pa.types.is_large_string(a.type):
        parsed = [None if s is None else _text_ns(s, notes) for s in a.to_pylist()]
        ns = pa.array(parsed, pa.int64())
        bad = pc.and_kleene(pc.is_null(ns), pc.is_valid(a))
    else:
        raise TypeProblem(f"column {f.name!r} has type {a.type}, expected {f.type}")
    return ns.cast(pa.timestamp("ns", "UTC")), [
        (pc.is_null(a), MISSING),
        (bad, f"{{v}} is not a time (ISO 8601, or a number since the UNIX epoch) between {TS_MIN:%Y-%m-%d} and "
                f"{TS_MAX:%Y-%m-%d}")]


def _shape_text(a: pa.Array) -> tuple[pa.Array, pa.Array]:
    """Text shapes ("[2, 3]", "(2, 3)", "2x3", "[]") as list<int64>, vectorized: (lists, unparsed rows)."""
    ok = pc.match_substring_regex(a, _SHAPE_TEXT)
    unparsed = pc.and_kleene(pc.invert(ok), pc.is_valid(a))
    inner = pc.replace_substring_regex(pc.if_else(ok, a, ""), r"[\[\]()\s]", "")
    inner = pc.replace_substring_regex(inner, ",$", "")  # now "2,3", "2x3" or ""
    parts = pc.split_pattern_regex(inner, "[,x]")  # "" splits into [""]: dropped below
    flat = pc.list_flatten(parts)
    keep = pc.not_equal(flat, "")
    lengths = np.diff(np.asarray(parts.offsets))
    lengths[~bools(pc.not_equal(inner, ""))] = 0
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    values = pc.cast(pc.filter(flat, keep), pa.int64())
    null = pa.array(~bools(ok))
    return pa.ListArray.from_arrays(pa.array(offsets), values, mask=null), unparsed


def _collapse(dims: list[int]) -> list[int]:
    """The runtime's rule for rank > MAX_DIMS: the first MAX_DIMS - 1 dims, then the product of the rest."""
    return dims if len(dims) <= MAX_DIMS else [*dims[:MAX_DIMS - 1], int(np.prod(dims[MAX_DIMS - 1:]))]


def _shape(a: pa.Array, f: pa.Field, notes: list[str]) -> tuple[pa.Array, list[Problem]]:
    t = a.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        notes.append("shape: text such as '[2, 3]', '(2, 3)', '2x3' or '[]' read as a list")
        lists, unparsed = _shape_text(a.cast(pa.string()))
        v, problems = _shape(lists, f, notes)
        return v, [(pc.is_null(a), MISSING), (unparsed, "{v} is not a shape like [2, 3]"), *problems[1:]]
    if not (pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)) or not (
            pa.types.is_integer(t.value_type) or pa.types.is_floating(t.value_type) or pa.types.is_null(t.value_type)):
        raise TypeProblem(f"column {f.name!r} has type {t}, expected {f.type}")
    lists = a.cast(pa.list_(t.value_type))
    flat, parents = pc.list_flatten(lists), pc.list_parent_indices(lists)
    ok = pc.greater_equal(flat, 0)
    if pa.types.is_floating(t.value_type):
        ok = pc.and_kleene(ok, pc.equal(pc.floor(flat), flat))
    bad_rows = np.zeros(len(a), bool)
    bad_rows[np.asarray(parents)[~bools(ok)]] = True
    v = _null_where(pa.array(bad_rows), lists).cast(f.type)
    long = bools(pc.greater(pc.list_value_length(v), MAX_DIMS))
    if long.any():
        notes.append(f"shape: rank > {MAX_DIMS} collapsed as the runtime does (first {MAX_DIMS - 1} dims, "
                     "then the product of the rest)")
        py = v.to_pylist()
        v = pa.array([_collapse(s) if s is not None else None for s in py], f.type)
    return v, [(pc.is_null(a), MISSING), (pa.array(bad_rows), "{v} has a negative or fractional dimension")]


_CONVERTERS = {"ts": _timestamp, "shape": _shape, "explore": _flag}


Converter = Callable[[pa.Array, pa.Field, list[str]], tuple[pa.Array, list["Problem"]]]


def converter(f: pa.Field) -> Converter:
    if f.name in _CONVERTERS:
        return _CONVERTERS[f.name]
    if pa.types.is_integer(f.type):
        return _integer
    if pa.types.is_string(f.type):
        return _text
    if pa.types.is_floating(f.type):
        return _probability
    raise AssertionError(f"no conversion for {f.name}: {f.type} (a new column in schema.py needs one here)")
