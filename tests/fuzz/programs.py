"""Random, well-typed annotated kernels (source text) and their inputs, deterministic per (seed, index)."""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

import numpy as np

FLOATS = ("float64", "float32")
INTS = ("int64", "int32", "int8", "uint8")
DTYPES = FLOATS * 3 + INTS + ("float64", "int64")
SIZES_1D = ((0,), (1,), (7,), (1000,))
SIZES_2D = ((0, 3), (1, 1), (3, 5), (31, 40))


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "array", "index" (int64 indices into the arrays' first axis), "int", "float"
    dtype: str = "float64"
    ndim: int = 1

    def annotation(self) -> str:
        if self.kind in ("int", "float"):
            return self.kind
        dims = ", ".join(["int"] * self.ndim)
        dtype = "int64" if self.kind == "index" else self.dtype
        return f"np.ndarray[tuple[{dims}], np.dtype[np.{dtype}]]"


@dataclass(frozen=True)
class Program:
    name: str
    source: str  # the function and its helpers, module level
    params: tuple[Param, ...]
    shapes: tuple[tuple[int, ...], ...]  # one run per shape (every array parameter has it)
    seed: str

    def inputs(self, run: int) -> tuple[object, ...]:
        """The arguments of one run: arrays of shapes[run], scalars; the same every time."""
        rng = np.random.default_rng(abs(hash_text(f"{self.seed}:{run}")))
        shape = self.shapes[run]
        out: list[object] = []
        for p in self.params:
            if p.kind == "int":
                out.append(int(rng.integers(1, 8)))
            elif p.kind == "float":
                out.append(round(float(rng.uniform(-2, 2)), 3))
            elif p.kind == "index":
                n = shape[0]
                out.append(rng.integers(-n, n, size=5 if n else 0).astype(np.int64))
            else:
                out.append(_array(rng, p.dtype, shape))
        return tuple(out)


def hash_text(s: str) -> int:
    h = 1469598103934665603
    for ch in s.encode():
        h = ((h ^ ch) * 1099511628211) % (1 << 63)
    return h


def _array(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtype in FLOATS:
        return (rng.standard_normal(shape) * 4).astype(dtype)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -50000), min(info.max, 50000)
    return rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)


class Gen:
    """Expression and statement generator for one kernel: every array operand has the same shape."""

    def __init__(self, rng: random.Random, name: str, ndim: int) -> None:
        self.rng, self.name, self.ndim = rng, name, ndim
        d1 = rng.choice(DTYPES)
        d2 = d1 if rng.random() < 0.6 else rng.choice(DTYPES)
        self.arrays = [Param("x", "array", d1, ndim), Param("y", "array", d2, ndim)]
        self.params: list[Param] = [self.arrays[0]]
        self.helpers: list[str] = []
        self.uses: set[str] = set()
        # a Python-scalar accumulator keeps its Python type when the loop never runs: the compiled
        # code types it once (bugs left, issue 12), so such kernels get no empty inputs
        self.nonempty = False

    # ---- operands ---------------------------------------------------------
    def dtype_of(self, name: str) -> str:
        return next(p.dtype for p in self.arrays if p.name == name)

    def array(self, floaty: bool) -> str:
        names = [p.name for p in self.arrays if floaty or p.dtype not in FLOATS]
        if not names:  # an int expression over a float array: its integer part
            return "x.astype(np.int64)"
        n = self.rng.choice(names)
        self.uses.add(n)
        return n

    def scalar(self, floaty: bool) -> str:
        r = self.rng
        if floaty and r.random() < 0.6:
            c = r.choice(["0.5", "2.0", "t", "1.5", "np.float32(1.5)", "np.float64(0.25)", "-3.0", "t"])
        else:
            c = r.choice(["2", "k", "3", "-1", "k", "np.int32(5)", "1"])
        for s in ("t", "k"):
            if c == s:
                self.uses.add(s)
        return c

    # ---- element-wise expressions ---------------------------------------------
    def expr(self, depth: int, floaty: bool) -> str:
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return self.array(floaty) if r.random() < 0.8 else self.scalar(floaty)
        a = self.expr(depth - 1, floaty)
        choice = r.randrange(11 if floaty else 8)
        if choice <= 2:
            op = r.choice(["+", "-", "*"] + (["/"] if floaty else ["//"]))
            b = self.expr(depth - 1, floaty) if op != "//" else r.choice(["3", "7", "2"])
            return f"({a} {op} {b})"
        if choice == 3:
            return f"np.abs({a})"
        if choice == 4:
            fn = r.choice(["np.minimum", "np.maximum"])
            return f"{fn}({a}, {self.expr(depth - 1, floaty)})"
        if choice == 5:
            return f"np.where({self.cond(depth - 1)}, {a}, {self.expr(depth - 1, floaty)})"
        if choice == 6:
            lo, hi = sorted(r.sample([-3, -1, 0, 2, 5, 9], 2))
            return f"np.clip({a}, {lo}, {hi})"
        if choice == 7:
            return f"({a} ** 2)" if r.random() < 0.5 else f"(-{a})"
        fn = r.choice(["np.sqrt(np.abs({}))", "np.exp(np.minimum({}, 5.0))", "np.sin({})", "np.cos({})",
                       "np.tanh({})", "np.log1p(np.abs({}))", "np.floor({})", "np.exp({})"])
        return fn.format(a)

    def array_expr(self, depth: int, floaty: bool) -> str:
        """An element-wise expression with at least one operation and one array operand."""
        for _ in range(20):
            e = self.expr(depth, floaty)
            if "(" in e and re.search(r"\b[xy]\b", e):
                return e
        return f"({self.array(floaty)} * 2)"

    def cond(self, depth: int) -> str:
        r = self.rng
        a = self.expr(max(depth, 0), r.random() < 0.5)
        if not re.search(r"\b[xy]\b", a):  # a condition on arrays, not a 0-d bool
            a = self.array(True)
        op = r.choice([">", "<", ">=", "<=", "!="])
        c = f"({a} {op} {self.scalar(r.random() < 0.5) if r.random() < 0.7 else self.array(True)})"
        if r.random() < 0.2:
            c = f"({c} & ({self.array(True)} > 0))"
        if r.random() < 0.1:
            c = f"(~{c})"
        return c

    def scalar_expr(self, v: str, floaty: bool) -> str:
        """An expression of one element v (a NumPy scalar) and Python scalars."""
        r = self.rng
        forms = [f"{v} * {self.scalar(floaty)}", f"{v} + {self.scalar(floaty)}", f"abs({v})", f"{v} - {v} * {v}",
                 f"max({v}, {v} * 0)", f"min({v}, {v} - 1)"]  # max(np_scalar, 0.5) has a data-dependent type
        if floaty:
            forms += [f"math.sqrt(abs({v}))", f"math.exp(min({v}, 3.0))", f"{v} / 2.0", f"math.floor({v})"]
        return r.choice(forms)

    def helper(self, floaty: bool) -> str:
        """A small undecorated helper function the kernel calls."""
        h = f"_{self.name}_h{len(self.helpers)}"
        r = self.rng
        if r.random() < 0.5:
            body = f"    return v * w + {self.scalar(floaty) if floaty else '1'}"
            self.helpers.append(f"def {h}(v, w):\n{body}\n")
            return h
        self.helpers.append(f"def {h}(v, scale=2):\n    if scale > 1:\n        return v * scale\n    return v\n")
        return h


# ---- kernel bodies: each returns the body lines (the generator records the parameters it uses) ----------
def t_expr(g: Gen) -> list[str]:
    e = g.array_expr(3, True)
    if g.rng.random() < 0.3:
        return [f"r = {e}", "return r, r.shape[0]"]
    return [f"return {e}"]


def t_loop(g: Gen) -> list[str]:
    floaty = g.rng.random() < 0.7
    g.uses.add("x")
    init = g.rng.choice(["0.0", "0", "x[0] * 0"] if floaty else ["0", "x[0] * 0"])
    g.nonempty = init in ("0.0", "0")
    if g.ndim == 1:
        body = ["acc = " + init, "for i in range(x.shape[0]):"]
        if g.rng.random() < 0.5 and not g.nonempty:  # (a skipped `acc +=` keeps a Python acc's type)
            body += [f"    if x[i] > {g.scalar(True)}:", f"        acc += {g.scalar_expr('x[i]', floaty)}"]
        else:
            body += [f"    acc += {g.scalar_expr('x[i]', floaty)}"]
        return body + ["return acc"]
    g.uses.add("y")
    # a float64 output: storing an out-of-range NumPy scalar into an integer element raises in NumPy
    # (OverflowError), which the compiled code does not do yet (bugs left, issue 12)
    out = g.rng.choice(["np.zeros((x.shape[0], x.shape[1]))", "np.zeros(x.shape)"])
    return [f"out = {out}", "for i in range(x.shape[0]):", "    for j in range(x.shape[1]):",
            f"        out[i, j] = {g.scalar_expr('x[i, j]', floaty)} + y[i, j]", "return out"]


def t_enumerate(g: Gen) -> list[str]:
    g.uses.add("x")
    if g.ndim == 2:
        g.nonempty = True
        return ["total = 0.0", "for i, row in enumerate(x):", "    total += row.sum() * i", "return total"]
    return ["count = 0", "best = -1", "for i, v in enumerate(x):", f"    if v > {g.scalar(True)}:",
            "        count += 1", "        best = i", "return count, best"]


def _slice(r: random.Random) -> str:
    start = r.choice(["", "1", "-3", "2", "0", "-1"])
    stop = r.choice(["", "-1", "5", "-2", "0", "x.shape[0]"])
    step = r.choice(["", "", "2", "-1", "3", "-2"])
    return f"{start}:{stop}" + (f":{step}" if step else "")


def t_slice(g: Gen) -> list[str]:
    r = g.rng
    g.uses.add("x")
    if g.ndim == 1:
        form = r.choice(["x[1:] - x[:-1]", f"x[{_slice(r)}] * {g.scalar(True)}", "x[::-1] + y",
                         f"x[{_slice(r)}].sum()", "x[::2].repeat(2)[: x.shape[0]] - x"])
    else:
        form = r.choice(["x[1:, ::2] + 1.0", "x[:, ::-1] * y", f"x[{_slice(r)}, 1:]", "x[::2, :].sum(axis=0)",
                         "x.T[::-1] - y.T", "x[:, ::2].repeat(2, axis=1)[:, : x.shape[1]] * 2 + x"])
    if "y" in form:
        g.uses.add("y")
    return [f"return {form}"]


def t_mask(g: Gen) -> list[str]:
    r = g.rng
    c = g.cond(1)
    form = r.randrange(4)
    if form == 0:
        return [f"return x[{c}]"]
    if form == 1:
        return ["z = x.copy()", f"z[{c}] = {g.scalar(g.dtype_of('x') in FLOATS)}", "return z"]
    if form == 2:
        return [f"m = {c}", "return m.sum(), m.any(), m.all()"]
    return [f"x[{c}] = 0", "return None"]


def t_fancy(g: Gen) -> list[str]:
    g.params.append(Param("idx", "index"))
    g.uses.update({"x", "idx"})
    form = g.rng.choice(["return x[idx] * 2", "x[idx] += 1\nreturn x.sum()", "return x[idx].sum(), x[idx[::-1]]",
                         "y[idx] = x[idx]\nreturn y"])
    if "y" in form:
        g.uses.add("y")
    return form.split("\n")


def t_inplace(g: Gen) -> list[str]:
    r = g.rng
    g.uses.add("x")
    floaty = g.dtype_of("x") in FLOATS
    target = r.choice(["x", "x", "x[1:]", "x[::2]", "x[::-1]"] if g.ndim == 1 else ["x", "x[1:]", "x[:, ::2]"])
    op = r.choice(["+=", "-=", "*="])
    rhs = r.choice([g.expr(2, floaty), g.scalar(floaty)]) if target == "x" else g.scalar(floaty)
    lines = [f"{target} {op} {rhs}"]
    if g.ndim == 1 and r.random() < 0.3:
        lines.append("x[1:] -= x[:-1]")  # overlapping operands: NumPy's as-if-copied semantics
    return lines + [r.choice(["return None", "return x.sum()", "return x"])]


def t_reduce(g: Gen) -> list[str]:
    r = g.rng
    e = g.array_expr(1, True) if r.random() < 0.5 else g.array(True)
    fn = r.choice(["sum", "mean", "max", "min", "prod", "argmax", "any", "all"])
    args = []
    if g.ndim == 2 and r.random() < 0.7:
        args.append(f"axis={r.choice([0, 1, -1])}")
        if fn not in ("argmax",) and r.random() < 0.4:
            args.append("keepdims=True")
    elif r.random() < 0.3:
        args.append("axis=0")
    call = f"np.{fn}({e}{''.join(', ' + a for a in args)})" if r.random() < 0.5 else f"({e}).{fn}({', '.join(args)})"
    return [f"return {call}"]


def t_tuple(g: Gen) -> list[str]:
    g.uses.add("x")
    if g.ndim == 2:
        return ["n, m = x.shape", "lo, hi = x.min(), x.max()" if g.rng.random() < 0.5 else "lo, hi = 0, n * m",
                "return hi - lo, n + m"]
    h = f"_{g.name}_mm"
    g.helpers.append(f"def {h}(v):\n    return v.min(), v.max()\n")
    return [f"lo, hi = {h}(x)", "return (hi - lo) / 2, lo"]


def t_helper(g: Gen) -> list[str]:
    floaty = g.rng.random() < 0.7
    h = g.helper(floaty)
    a = g.expr(1, floaty)
    if h.endswith("h0") and "scale" in g.helpers[-1]:
        return [f"return {h}({a}) + {h}({a}, scale=1)"]
    return [f"return {h}({a}, {g.scalar(floaty)})"]


def t_math(g: Gen) -> list[str]:
    g.uses.update({"x", "t"})
    f = g.rng.choice(["math.sqrt(abs(s))", "math.exp(-abs(t))", "math.floor(t)", "math.log1p(abs(s))",
                      "math.hypot(s, t)", "math.copysign(1.0, s)", "abs(t) ** 0.5"])
    return ["s = float(x.sum())" if g.rng.random() < 0.6 else "s = float(x.max()) if x.shape[0] else 0.0",
            f"return {f} + s * t"]


TEMPLATES = (t_expr, t_expr, t_loop, t_enumerate, t_slice, t_mask, t_fancy, t_inplace, t_reduce, t_reduce,
             t_tuple, t_helper, t_math)


def program(seed: int, index: int) -> Program:
    """Kernel number index of the sequence seed."""
    rng = random.Random(hash_text(f"{seed}/{index}"))
    ndim = 1 if rng.random() < 0.6 else 2
    name = f"k{seed}_{index}"
    g = Gen(rng, name, ndim)
    body = rng.choice(TEMPLATES)(g)
    code = "\n".join(body)
    params = [p for p in (*g.arrays, *g.params[1:], Param("k", "int"), Param("t", "float"))
              if re.search(rf"\b{p.name}\b", code)] or [g.arrays[0]]
    sig = ", ".join(f"{p.name}: {p.annotation()}" for p in params)
    text = "".join(h + "\n" for h in g.helpers) + f"def {name}({sig}):\n" + "".join(f"    {ln}\n" for ln in body)
    sizes = SIZES_1D if ndim == 1 else SIZES_2D
    if g.nonempty:
        sizes = tuple(sz for sz in sizes if 0 not in sz) + ((5,) if ndim == 1 else (2, 9),)
    shapes = tuple(rng.sample(sizes, 3))
    return Program(name, text, tuple(params), shapes, f"{seed}/{index}")


def module_source(programs: list[Program]) -> str:
    return "import math\n\nimport numpy as np\n\n\n" + "\n\n".join(p.source for p in programs)
