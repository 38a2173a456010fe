"""The standalone executable of one compiled function: `NAME --inputs in.npz --out out.npz`.

`main_source` writes a C++ file that includes the generated unit and the runtime headers of
variants/include/everypath/standalone/ (npz I/O, the device fingerprint, the command line)
and describes the entry's signature as static data: one slot per flattened argument (the
.npz member it is read from, its kind, ep_dtype, rank, whether it is a Python scalar, its
default), one per result. Inputs are members named after the parameters, tuple items
NAME_0, NAME_1, ... numbered depth-first over the flattened items (None items have no slot,
no member and no number); outputs `result`, or result_0, result_1, ... numbered the same way.
A selection table (base/selection_table.py's JSON) is validated here, with the rules the Python
host uses, and embedded pre-parsed: the executable needs no JSON parser, only its device class.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass
from typing import Any

from everypath.lowering.pipeline import Generated
from everypath.lowering.targets import Target
from everypath.base.types import DType

_NO_DEFAULT = object()
_PY_NAMES = {"int64": "int", "float64": "float", "bool": "bool", "complex128": "complex"}


@dataclass(frozen=True)
class Leaf:
    """One flattened argument or result slot."""

    key: str  # the .npz member without ".npy"
    label: str  # how messages name it: x, pair[1][0]
    param: str  # the parameter ("result" for results)
    type: dict[str, Any]  # a scalar or array descriptor of lowering/signature.py
    default: Any = _NO_DEFAULT


def abi_dtype(name: str) -> int:
    return DType.of(name).abi


def leaves(t: dict[str, Any], key: str, label: str, param: str, default: Any = _NO_DEFAULT) -> list[Leaf]:
    """The slots of a value of type t, depth-first: tuple items get _0, _1, ... (flattened numbering,
    the slot order of the C ABI: lowering/unit.py _arg_exprs/_put_results)."""
    out: list[Leaf] = []
    counter = [0]

    def walk(t: dict[str, Any], lab: str, d: Any, top: bool) -> None:
        kind = t["kind"]
        if kind == "tuple":
            items = t["items"]
            ds = d if isinstance(d, tuple) and len(d) == len(items) else [_NO_DEFAULT] * len(items)
            for i, item in enumerate(items):
                walk(item, f"{lab}[{i}]", ds[i], False)
            return
        if kind == "none":  # no slot, no member, no number
            return
        k = key if top else f"{key}_{counter[0]}"
        counter[0] += 1
        if kind == "list":  # results only: put_list writes a rank-1 array
            t = {"kind": "array", "dtype": t["elem"]["dtype"], "ndim": 1}
        out.append(Leaf(k, lab, param, t, d))

    walk(t, label, default, True)
    return out


def _expected(t: dict[str, Any], output: bool = False) -> str:
    dt = t["dtype"]
    if t["kind"] == "array":
        return f"a {dt} array of rank {t['ndim']}"
    if output:
        return f"a 0-d {dt} array" + (f" (Python {_PY_NAMES[dt]})" if t.get("py") and dt in _PY_NAMES else "")
    if not t.get("py"):
        return f"a 0-d {dt} array (np.{dt})"
    return {"int64": "a 0-d integer array (Python int: any integer dtype whose value fits in int64)",
            "float64": "a 0-d float or integer array (Python float, used as float64)",
            "bool": "a 0-d bool array (Python bool)",
            "complex128": "a 0-d complex, float or integer array (Python complex, used as complex128)"}.get(
        dt, f"a 0-d {dt} array")


def _c(s: str) -> str:
    """A C string literal (octal escapes: a hex escape would swallow the digits after it)."""
    out = []
    for b in s.encode():
        ch = chr(b)
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif 0x20 <= b < 0x7F and ch != "?":  # '?': no trigraphs
            out.append(ch)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _f64(x: float) -> str:
    if math.isnan(x):
        return '__builtin_nan("")'
    if math.isinf(x):
        return "__builtin_inf()" if x > 0 else "-__builtin_inf()"
    return float(x).hex()


def _default_fields(t: dict[str, Any], d: Any) -> str | None:
    """has_default, def_i, def_u, def_re, def_im for a scalar slot (None: not representable)."""
    if d is _NO_DEFAULT or t["kind"] != "scalar" or d is None:
        return None
    kind = DType.of(t["dtype"]).kind
    try:
        if kind in "biu":
            v = int(d)
            return f"1, static_cast<int64_t>(UINT64_C({v % (1 << 64)})), UINT64_C({v % (1 << 64)}), 0.0, 0.0"
        c = complex(d)
        return f"1, 0, 0, {_f64(c.real)}, {_f64(c.imag)}"
    except (TypeError, ValueError, OverflowError):
        return None


def _default_text(d: Any) -> str:
    return repr(d.item() if hasattr(d, "item") else d)


def signature_leaves(sig: dict[str, Any]) -> tuple[list[tuple[dict[str, Any], list[Leaf]]], list[Leaf]]:
    """(per parameter its descriptor and slots, result slots); refuses member names used twice."""
    params = [(p, leaves(p["type"], p["name"], p["name"], p["name"], p.get("default", _NO_DEFAULT)))
              for p in sig["params"]]
    result = leaves(sig["result"], "result", "result", "result")
    seen: dict[str, str] = {}
    for _, ls in params:
        for leaf in ls:
            if leaf.key in seen:
                raise ValueError(f"{sig['name']}: the input member '{leaf.key}' would stand for both "
                                 f"{seen[leaf.key]} and {leaf.label}: rename a parameter")
            seen[leaf.key] = leaf.label
    return params, result


def usage(gen: Generated, target: Target) -> str:
    sig = gen.signature
    params, result = signature_leaves(sig)
    exe = target.exe_name.format(gen.name)
    run = f"wasmtime --dir . {exe}" if target.os == "wasi" else exe
    call = ", ".join(p["name"] + (f"={_default_text(p['default'])}" if "default" in p else "") for p, _ in params)
    required = any("default" not in p or not _all_defaults(ls) for p, ls in params if ls)
    inputs = "--inputs IN.npz" if required else "[--inputs IN.npz]"
    out = "--out OUT.npz" if result else "[--out OUT.npz]"
    lines = [f"usage: {run} {inputs} {out} [--spool PATH] [--no-telemetry] [--device] [--help]", "",
             f"Runs the compiled Python function {gen.name}({call}) ({target.name}) on the arrays in IN.npz",
             "(np.savez or np.savez_compressed: one member per parameter, scalars as 0-d arrays, tuple items as",
             "NAME_0, NAME_1, ... depth-first) and writes its results to OUT.npz (np.load reads it).", "", "inputs:"]
    for p, ls in params:
        opt = f"  [optional, default {_default_text(p['default'])}]" if "default" in p and _all_defaults(ls) else ""
        lines.append(f"  {p['name']}: {p['annotation']}{opt}")
        for leaf in ls:
            lines.append(f"    {leaf.key + '.npy':<16} {_expected(leaf.type)}")
        if not ls:
            lines.append("    (None: nothing to give)")
    if not params:
        lines.append("  (none)")
    lines.append("outputs:")
    for leaf in result:
        lines.append(f"    {leaf.key + '.npy':<16} {_expected(leaf.type, output=True)}")
    if not result:
        lines.append("    (none: the function returns None)")
    lines += ["", "options:",
              "  --inputs FILE     the parameters' values (.npz)",
              "  --out FILE        where the results go (.npz, stored members)",
              "  --spool PATH      telemetry spool file (default: $EVERYPATH_SPOOL_DIR, else",
              "                    $XDG_DATA_HOME or ~/.local/share, + /everypath/spool/NAME-PID-MS.spool)",
              "  --no-telemetry    record nothing (as EVERYPATH_TELEMETRY=0 does)",
              "  --device          print the device block telemetry records, then exit",
              "  `everypath telemetry ingest --lake DIR SPOOL` brings a spool into a lake.",
              "exit status: 0 done; 1 the function raised (`Type: message` on stderr); 2 a wrong command line,",
              "input file or output file (the message names the parameter, the expected dtype and rank).", ""]
    return "\n".join(lines)


def _all_defaults(ls: list[Leaf]) -> bool:
    return all(_default_fields(leaf.type, leaf.default) is not None for leaf in ls)


def _slots(params: list[tuple[dict[str, Any], list[Leaf]]]) -> tuple[list[str], list[str]]:
    slots, prows = [], []
    for p, ls in params:
        first = len(slots)
        has_default = "default" in p and bool(ls) and _all_defaults(ls)
        for leaf in ls:
            t = leaf.type
            expected = _expected(t) + (f", annotated {p['annotation']}" if leaf.key == p["name"] else
                                       f", item {leaf.label} of {p['name']}: {p['annotation']}")
            kind = 2 if t["kind"] == "array" else 1
            d = _default_fields(t, leaf.default) if has_default else None
            slots.append(f"  {{{_c(leaf.key)}, {_c(leaf.label)}, {_c(expected)}, {kind}, {abi_dtype(t['dtype'])}, "
                         f"{t.get('ndim', 0)}, {1 if t.get('py') else 0}, {d or '0, 0, 0, 0.0, 0.0'}}},")
        keys = ", ".join(leaf.key for leaf in ls)
        prows.append(f"  {{{_c(p['name'])}, {first}, {len(ls)}, {1 if has_default or not ls else 0}, {_c(keys)}}},")
    return slots, prows


def table_source(table: str) -> list[str]:
    """C++ data of a selection table (format 1), every device class's entries validated by
    base.selection_table.load_table: a table the Python host would refuse is refused at build time."""
    from everypath.base.selection_table import TableError, load_table

    doc = json.loads(table)
    fd, tmp = tempfile.mkstemp(suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(table)
        if not isinstance(doc, dict) or not isinstance(doc.get("tables"), dict):
            load_table(tmp, "*")  # raises the Python host's own message
            raise TableError("selection table: 'tables' must map device classes to entry lists")
        classes = {cls: load_table(tmp, cls) for cls in doc["tables"]}
    finally:
        os.unlink(tmp)
    out: list[str] = []
    rows: list[str] = []
    version = ""
    for ci, (cls, t) in enumerate(classes.items()):
        assert t is not None
        version = t.version
        ents = []
        for ei, e in enumerate(t.entries):
            b = "nullptr"
            if e.bounds:
                b = f"ep_sa_bounds_{ci}_{ei}"
                out.append(f"static const int64_t {b}[] = {{{', '.join(str(x) for x in e.bounds)}}};")
            topk = "|".join(",".join(slot) for slot in e.topk)
            ents.append(f"  {{{_c(e.op)}, {b}, {len(e.bounds)}, {_c(','.join(e.variants))}, {_c(topk)}}},")
        name = "nullptr"
        if ents:
            name = f"ep_sa_entries_{ci}"
            out += [f"static const ep::standalone::TableEntry {name}[] = {{", *ents, "};"]
        rows.append(f"  {{{_c(cls)}, {name}, {len(ents)}}},")
    if not rows:
        return ["static const ep::standalone::Table* const ep_sa_table = nullptr;  // the table names no class"]
    out += ["static const ep::standalone::TableClass ep_sa_classes[] = {", *rows, "};",
            f"static const ep::standalone::Table ep_sa_table_data = {{{_c(version)}, ep_sa_classes, {len(rows)}}};",
            "static const ep::standalone::Table* const ep_sa_table = &ep_sa_table_data;"]
    return out


def main_source(gen: Generated, unit_name: str, table: str | None, target: Target) -> str:
    """The executable's main translation unit (it includes the generated unit `unit_name`)."""
    params, result = signature_leaves(gen.signature)
    slots, prows = _slots(params)
    rows = [f"  {{{_c(r.key)}, {2 if r.type['kind'] == 'array' else 1}, {abi_dtype(r.type['dtype'])}, "
            f"{r.type.get('ndim', 0)}}}," for r in result]
    out = ["// Generated by everypath: the standalone executable of " + gen.name + " (" + target.name + ").",
           f'#include "{unit_name}"', "#include <everypath/standalone/main.hpp>", ""]
    out += ["static const ep::standalone::Slot ep_sa_args[] = {", *slots, "};"] if slots else \
        ["static const ep::standalone::Slot* const ep_sa_args = nullptr;"]
    out += ["static const ep::standalone::Param ep_sa_params[] = {", *prows, "};"] if prows else \
        ["static const ep::standalone::Param* const ep_sa_params = nullptr;"]
    out += ["static const ep::standalone::Result ep_sa_results[] = {", *rows, "};"] if rows else \
        ["static const ep::standalone::Result* const ep_sa_results = nullptr;"]
    out += table_source(table) if table else ["static const ep::standalone::Table* const ep_sa_table = nullptr;"]
    out += ["", f"static const char ep_sa_usage[] = {_c(usage(gen, target))};", "",
            "int main(int argc, char** argv) {",
            "  static const ep::standalone::Program program = {",
            f"      {_c(gen.name)}, ep_sa_usage, ep_sa_args, {len(slots)}, ep_sa_params, {len(prows)},",
            f"      ep_sa_results, {len(rows)}, ep_sa_table, &{gen.symbol}, &ep_release, &ep_telemetry_attach}};",
            "  return ep::standalone::run(program, argc, argv);",
            "}", ""]
    return "\n".join(out)
