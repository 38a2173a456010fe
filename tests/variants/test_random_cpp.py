"""The random headers below the Generator methods, in one C++ program against NumPy:
SeedSequence.generate_state, PCG64's raw 64- and 32-bit words, and the ziggurat tables
(variants/include/everypath/ops/random_zig_*.hpp must equal the ones compiled into NumPy)."""
from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.variants._harness import INCLUDE, Program, run_and_check

ZIG = INCLUDE / "everypath" / "ops"
NUMPY_LIB = Path(np.__file__).parent / "random" / "lib" / "libnpyrandom.a"
DOUBLE_TABLES = ("ki_double", "wi_double", "fi_double", "ke_double", "we_double", "fe_double")
FLOAT_TABLES = ("ki_float", "wi_float", "fi_float", "ke_float", "we_float", "fe_float")


def numpy_tables(tmp: Path) -> dict[str, list[str]]:
    """NumPy's ziggurat tables as C++ literals, read from the object file in libnpyrandom.a."""
    member = "src_distributions_distributions.c.o"
    subprocess.run(["ar", "x", str(NUMPY_LIB), member], cwd=tmp, check=True)
    obj = tmp / member
    syms: dict[str, tuple[int, int]] = {}
    for line in subprocess.run(["objdump", "-t", str(obj)], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[-1] in DOUBLE_TABLES + FLOAT_TABLES:
            assert parts[3] == ".rodata", line
            syms[parts[-1]] = (int(parts[0], 16), int(parts[4], 16))
    rodata = tmp / "rodata.bin"
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.rodata", str(obj), str(rodata)], check=True)
    data = rodata.read_bytes()
    out: dict[str, list[str]] = {}
    for name, (off, size) in syms.items():
        raw = data[off:off + size]
        if name.startswith("k"):
            fmt, lit = ("<256Q", "0x{:016X}ULL") if name.endswith("_double") else ("<256I", "0x{:08X}U")
            out[name] = [lit.format(v) for v in struct.unpack(fmt, raw)]
        elif name.endswith("_double"):
            out[name] = [float(v).hex() for v in struct.unpack("<256d", raw)]
        else:
            out[name] = [float(v).hex() + "f" for v in struct.unpack("<256f", raw)]
    return out


def emit_tables(tables: dict[str, list[str]], which: str) -> str:
    """The text of random_zig_<which>.hpp (run this to regenerate it for a new NumPy)."""
    names, per_line = (DOUBLE_TABLES, 4) if which == "double" else (FLOAT_TABLES, 6)
    lines = [f"// NumPy's ziggurat tables ({which}), generated: the values of numpy/random/src/distributions/",
             "// ziggurat_constants.h as compiled into NumPy's libnpyrandom.a, written as exact hex literals.",
             "// Regenerate with tests/variants/test_random_cpp.py::emit_tables; do not edit by hand.",
             "#pragma once", "", "#include <cstdint>", "", "namespace ep::rnd::zig {", ""]
    for n in names:
        ctype = ("uint64_t" if which == "double" else "uint32_t") if n.startswith("k") else which
        lines.append(f"inline constexpr {ctype} {n}[256] = {{")
        vals = tables[n]
        lines += ["    " + ", ".join(vals[i:i + per_line]) + "," for i in range(0, 256, per_line)]
        lines.append("};")
    lines += ["", "}  // namespace ep::rnd::zig", ""]
    return "\n".join(lines)


@pytest.mark.skipif(not NUMPY_LIB.exists() or not all(map(shutil.which, ("ar", "objdump", "objcopy"))),
                    reason="needs NumPy's libnpyrandom.a and binutils")
def test_ziggurat_tables_are_numpys(tmp_path: Path) -> None:
    tables = numpy_tables(tmp_path)
    for which in ("double", "float"):
        header = (ZIG / f"random_zig_{which}.hpp").read_text()
        assert header == emit_tables(tables, which), f"random_zig_{which}.hpp differs from NumPy's tables"


def _words(values: list[int], ctype: str) -> str:
    return "{" + ", ".join(f"{ctype}({v}ULL)" for v in values) + "}"


def _to_array(expr: str, ctype: str, n: int) -> str:
    """A C++ expression making an Array<ctype, 1> of n values from a generator `expr` of one value."""
    return (f"([&] {{ auto out = ep::empty<{ctype}, 1>({{{n}}}); "
            f"for (ep::index_t i = 0; i < {n}; ++i) out.data[i] = {expr}; return out; }}())")


def test_bit_generator(tmp_path: Path) -> None:
    prog = Program("random_core")
    prog.headers.add("everypath/ops/random.hpp")
    entropies = [[0], [1, 2], [12345], [0xFFFFFFFF, 0x7FFFFFFF], [1, 2, 3, 4, 5, 6], list(range(11))]
    for i, ent in enumerate(entropies):
        want = np.random.SeedSequence(ent).generate_state(4, np.uint64)
        state = f"ep::rnd::SeedSequence(std::vector<uint32_t>{_words(ent, 'uint32_t')}).generate_state64(4)"
        prog.raw(f"seedseq{i}", f"([&] {{ auto v = {state}; auto out = ep::empty<uint64_t, 1>({{4}}); "
                                f"for (int k = 0; k < 4; ++k) out.data[k] = v[k]; return out; }}())", want)
    for seed in (0, 1, 42, 12345, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1):
        ct = "uint64_t" if seed >= 2**63 else "int64_t"
        raw = np.random.PCG64(seed).random_raw(9)
        prog.raw(f"raw64_{seed}", f"([&] {{ auto g = ep::default_rng({ct}({seed}ULL)); "
                                  f"return {_to_array('g.bg().next64()', 'uint64_t', 9)}; }}())", raw)
        # 32-bit words: the low half of a 64-bit word, then its high half (NumPy's integers(0, 2**32, uint32))
        words = np.random.default_rng(seed).integers(0, 2**32, size=7, dtype=np.uint32)
        prog.raw(f"raw32_{seed}", f"([&] {{ auto g = ep::default_rng({ct}({seed}ULL)); "
                                  f"return {_to_array('g.bg().next32()', 'uint32_t', 7)}; }}())", words)
        doubles = np.random.default_rng(seed).random(5)
        prog.raw(f"double_{seed}", f"([&] {{ auto g = ep::default_rng({ct}({seed}ULL)); "
                                   f"return {_to_array('g.bg().next_double()', 'double', 5)}; }}())", doubles)
        prog.cases[f"double_{seed}"].exact = True
    prog.raw("negative_seed", "ep::default_rng(int64_t(-5)).bg().next64()", None)
    prog.cases["negative_seed"].status = "error"
    prog.cases["negative_seed"].expected = ("ValueError", "expected non-negative integer")
    prog.raw("lam_max", "ep::rnd::poisson_lam_max()", np.float64(np.random.Generator._poisson_lam_max))
    prog.cases["lam_max"].exact = True
    run_and_check(prog, tmp_path)
