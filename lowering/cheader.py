"""NAME.h: the C header shipped beside a compiled function's library (shared, static or wasm).

Self-contained: it carries abi.h's declarations (same include guard, so including both is
harmless) and two inline helpers that fill ep_value descriptors, then declares the entry
`ep_call_NAME`, `ep_abi_version`, `ep_release`, `ep_telemetry_attach` (an opaque hub
pointer) and, for targets built without exceptions, `ep_last_error`/`ep_clear_error`. The
comments document every argument and result slot (index, parameter, kind, dtype, rank, the
Python annotation), the error slot, who frees what, and a call of this very function.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from everypath.lowering.pipeline import Generated
from everypath.lowering.standalone import Leaf, leaves
from everypath.lowering.targets import Target
from everypath.base.types import DType

ABI_H = Path(__file__).resolve().parent.parent / "variants" / "include" / "everypath" / "abi.h"

_HELPERS = r"""
#ifndef EVERYPATH_ABI_HELPERS
#define EVERYPATH_ABI_HELPERS
#include <string.h>
/* A scalar argument: `value` points at one value of the dtype's C type (bool: one byte 0/1,
 * int32: int32_t, float32: float, complex128: two doubles, ...). */
static inline ep_value ep_scalar(int32_t dtype, const void* value, size_t size) {
  ep_value v;
  memset(&v, 0, sizeof v);
  v.kind = EP_KIND_SCALAR;
  v.dtype = dtype;
  memcpy(v.scalar.bytes, value, size < sizeof v.scalar.bytes ? size : sizeof v.scalar.bytes);
  return v;
}
/* An array argument over caller-owned memory; strides in bytes (NULL: C-contiguous). */
static inline ep_value ep_array(int32_t dtype, int32_t itemsize, int32_t ndim, const int64_t* shape,
                                const int64_t* strides, void* data) {
  ep_value v;
  int32_t k;
  int64_t step = itemsize;
  memset(&v, 0, sizeof v);
  v.kind = EP_KIND_ARRAY;
  v.dtype = dtype;
  v.ndim = ndim;
  for (k = ndim - 1; k >= 0; --k) {
    v.shape[k] = shape[k];
    v.strides[k] = strides ? strides[k] : step;
    step *= shape[k] > 0 ? shape[k] : 1;
  }
  v.data = data;
  return v;
}
#endif
"""

_C_TYPES = {"bool": "unsigned char", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
            "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
            "float32": "float", "float64": "double", "complex64": "float[2]", "complex128": "double[2]"}
_SAMPLE = {"b": "1", "i": "3", "u": "3", "f": "0.5", "c": "{0.5, 0.0}"}


def _clean(s: str) -> str:
    return s.replace("*/", "* /")


def _enum(dtype: str) -> str:
    return f"EP_{dtype.upper()} = {DType.of(dtype).abi}"


def _describe(leaf: Leaf) -> str:
    t = leaf.type
    if t["kind"] == "array":
        return f"array  {_enum(t['dtype'])}, rank {t['ndim']}, elements {_C_TYPES[t['dtype']]}"
    py = " (a Python scalar)" if t.get("py") else ""
    return f"scalar {_enum(t['dtype'])}{py}, {_C_TYPES[t['dtype']]} in scalar.bytes"


def _abi_body() -> str:
    text = ABI_H.read_text()
    return "/* ---- everypath_abi.h (abi.h) ---- */\n" + text.strip() + "\n/* ---- end of abi.h ---- */\n"


def _example(gen: Generated, args: list[tuple[dict[str, Any], Leaf]], results: list[Leaf]) -> list[str]:
    name = gen.name
    out = ["#include <stdio.h>", "#include <string.h>", f'#include "{name}.h"', "", "int main(void) {"]
    lines = []
    for i, (_, leaf) in enumerate(args):
        t, var = leaf.type, leaf.key  # x, or pair_0, pair_1 for tuple items (as the executable names them)
        ctype = _C_TYPES[t["dtype"]]
        sample = _SAMPLE[DType.of(t["dtype"]).kind]
        if t["kind"] == "array":
            dims = [4] + [3] * (t["ndim"] - 1) if t["ndim"] else []
            n = 1
            for d in dims:
                n *= d
            base = ctype.split("[")[0]
            count = f"{n} * 2" if ctype.endswith("[2]") else str(n)
            lines.append(f"  {base} {var}[{count}] = {{0}};  // your data, C order")
            if t["ndim"]:
                lines.append(f"  int64_t {var}_shape[{t['ndim']}] = {{{', '.join(map(str, dims))}}};")
            shape = f"{var}_shape" if t["ndim"] else "NULL"
            size = DType.of(t["dtype"]).np.itemsize
            lines.append(f"  args[{i}] = ep_array(EP_{t['dtype'].upper()}, {size}, {t['ndim']}, {shape}, NULL, {var});")
        else:
            decl = f"{ctype.split('[')[0]} {var}{'[2]' if ctype.endswith('[2]') else ''}"
            lines.append(f"  {decl} = {sample};")
            ref = var if ctype.endswith("[2]") else f"&{var}"
            lines.append(f"  args[{i}] = ep_scalar(EP_{t['dtype'].upper()}, {ref}, sizeof {var});")
    nargs, nres = len(args), len(results)
    out.append(f"  ep_value args[{max(nargs, 1)}], results[{max(nres, 1)}];")
    out.append("  ep_error err = {0};")
    out += lines
    out += [f"  if (ep_call_{name}(args, {nargs}, results, {nres}, &err) != 0) {{",
            '    fprintf(stderr, "%s: %s\\n", err.type, err.message);  // the Python exception',
            "    return 1;", "  }"]
    for k, r in enumerate(results):
        t = r.type
        if t["kind"] == "array":
            out.append(f"  // {r.label}: results[{k}].data, .shape[0..{max(t['ndim'] - 1, 0)}], .strides in bytes")
            out.append(f"  if (results[{k}].owner) ep_release(results[{k}].owner);")
        else:
            ctype = _C_TYPES[t["dtype"]]
            if ctype.endswith("[2]"):
                out.append(f"  {ctype.split('[')[0]} r{k}[2];")
                out.append(f"  memcpy(r{k}, results[{k}].scalar.bytes, sizeof r{k});")
            else:
                out.append(f"  {ctype} r{k};")
                out.append(f"  memcpy(&r{k}, results[{k}].scalar.bytes, sizeof r{k});")
    out += ["  return 0;", "}"]
    return [(" *   " + x).rstrip() for x in out]


def c_header(gen: Generated, target: Target) -> str:
    sig = gen.signature
    name = gen.name
    guard = f"EVERYPATH_{re.sub(r'[^A-Za-z0-9]', '_', name).upper()}_H"
    args: list[tuple[dict[str, Any], Leaf]] = []
    for p in sig["params"]:
        for leaf in leaves(p["type"], p["name"], p["name"], p["name"]):
            args.append((p, leaf))
    results = leaves(sig["result"], "result", "result", "result")
    params_text = ", ".join(f"{p['name']}: {p['annotation']}" + (f" = {p['default']!r}" if "default" in p else "")
                            for p in sig["params"])
    lib = target.lib_name.format(name)
    doc = [f"/* {name}.h: the C interface of the compiled Python function `{name}` ({target.name}: {lib}).",
           " * Generated by everypath; regenerate it from the Python source, do not edit.", " *",
           _clean(f" *   def {name}({params_text})"), " *",
           f" * int ep_call_{name}(const ep_value* args, int64_t nargs, ep_value* results, int64_t nresults,",
           " *                   ep_error* err);", " *",
           f" * Arguments: nargs = {len(args)}; tuples are flattened depth-first, one slot per item.",
           " * Arrays: kind = EP_KIND_ARRAY, dtype, ndim, shape, strides in bytes (any layout; negative and 0",
           " * allowed), data = element [0,...,0]; the memory stays the caller's. Scalars: kind = EP_KIND_SCALAR,",
           " * dtype, the value in scalar.bytes in the dtype's C layout (ep_scalar() below fills one).",
           " * Every argument must be passed: Python defaults do not apply through the C ABI."]
    for i, (p, leaf) in enumerate(args):
        ann = p["annotation"] if leaf.label == p["name"] else f"item {leaf.label} of {p['annotation']}"
        extra = []
        if "default" in p:
            extra.append(f"Python default {p['default']!r}")
        if p.get("mutated") and leaf.type["kind"] == "array":
            extra.append("written in place: pass writable memory")
        doc.append(_clean(f" *   args[{i}]  {leaf.label:<12} {_describe(leaf)}"))
        doc.append(_clean(f" *             annotation: {ann}" + (f"; {'; '.join(extra)}" if extra else "")))
    if not args:
        doc.append(" *   (none: pass args = NULL, nargs = 0)")
    doc += [" *", f" * Results: nresults = {len(results)}, in ep_value results[] the caller provides."]
    for k, r in enumerate(results):
        doc.append(f" *   results[{k}]  {r.label:<12} {_describe(r)}")
    if not results:
        doc.append(" *   (none: the function returns None; pass results = NULL, nresults = 0)")
    doc += [" * Ownership: an array result with owner != NULL owns its memory: read it, then call",
            " * ep_release(owner) once. owner == NULL: the memory is borrowed from an argument (the argument",
            " * itself or a view of it) and lives as long as that argument's memory.", " *",
            " * Errors: 0 on success; otherwise err->set = 1, err->type holds the Python exception's name",
            " * (\"ValueError\", \"IndexError\", ...) and err->message its message; results are then unset."]
    if not target.exceptions:
        doc += [" * This target is built without C++ exceptions: a raising call does not return. It records the",
                " * error, then traps (wasm: `unreachable`); the host catches the trap and reads",
                " * ep_last_error() (ep_clear_error() resets it). See the abi.h notes below."]
    doc += [" *", " * ep_abi_version() returns EP_ABI_VERSION of the build. ep_telemetry_attach(hub) is for hosts",
            " * that implement everypath's telemetry hub (C++ ep::tele::Hub, telemetry_host.hpp); a C program",
            " * leaves it alone: operators then choose by their built-in thresholds and record nothing.", " *",
            " * Example (C11; link with the library beside this header):", " *"]
    doc += _example(gen, args, results)
    doc += [" */"]
    body = [f"#ifndef {guard}", f"#define {guard}", "", _abi_body(), "#include <stddef.h>", _HELPERS,
            "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
            f"#define EP_{re.sub(r'[^A-Za-z0-9]', '_', name).upper()}_NARGS {len(args)}",
            f"#define EP_{re.sub(r'[^A-Za-z0-9]', '_', name).upper()}_NRESULTS {len(results)}", "",
            f"int ep_call_{name}(const ep_value* args, int64_t nargs, ep_value* results, int64_t nresults,",
            "    ep_error* err);",
            "int ep_abi_version(void);",
            "void ep_release(void* owner);",
            "typedef struct ep_telemetry_hub ep_telemetry_hub; /* opaque: ep::tele::Hub */",
            "int32_t ep_telemetry_attach(ep_telemetry_hub* hub);"]
    if not target.exceptions:
        body += ["const ep_error* ep_last_error(void);", "void ep_clear_error(void);"]
    body += ["", "#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */", ""]
    return "\n".join(doc) + "\n" + "\n".join(body)
