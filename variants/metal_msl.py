"""Metal Shading Language source of the metal path, generated from one table.

Each entry of UNARY / BINARY is an MSL float expression of ``x`` (and ``y``); every
entry becomes one compute kernel ``ep_map_<name>`` over a contiguous float buffer.
The reduction kernels (``ep_reduce_sum/max/min``) fold a grid-stride slice per thread
and then a threadgroup tree; max/min propagate NaN like np.max / np.min (MSL's fmax
would drop it). Metal has no double, so every kernel is float32.

``render_header()`` is the text of variants/include/everypath/paths/metal/kernels_msl.hpp
(the source as a C++ raw string the runtime compiles with newLibraryWithSource); the
test tests/variants/test_apple_paths.py checks the checked-in header is this text and
compiles the kernels as C++ through a small MSL shim (MSL is C++14-based).
"""
from __future__ import annotations

from dataclasses import dataclass

HEADER_PATH = "everypath/paths/metal/kernels_msl.hpp"
THREADGROUP = 256  # threads per threadgroup of the reduction kernels (a power of two)


@dataclass(frozen=True)
class MapOp:
    name: str  # NumPy ufunc name
    expr: str  # MSL expression of x (and y for binary ops), float in, float out


UNARY = (
    MapOp("negative", "-x"),
    MapOp("absolute", "fabs(x)"),
    MapOp("square", "x * x"),
    MapOp("reciprocal", "1.0f / x"),
    MapOp("sqrt", "precise::sqrt(x)"),
    MapOp("exp", "precise::exp(x)"),
    MapOp("log", "precise::log(x)"),
    MapOp("sin", "precise::sin(x)"),
    MapOp("cos", "precise::cos(x)"),
    MapOp("tanh", "precise::tanh(x)"),
    MapOp("floor", "floor(x)"),
    MapOp("ceil", "ceil(x)"),
    MapOp("trunc", "trunc(x)"),
    MapOp("rint", "rint(x)"),
)

BINARY = (
    MapOp("add", "x + y"),
    MapOp("subtract", "x - y"),
    MapOp("multiply", "x * y"),
    MapOp("divide", "x / y"),
    # np.maximum / np.minimum propagate NaN from either side (MSL fmax/fmin would not)
    MapOp("maximum", "(isnan(x) || x > y) ? x : y"),
    MapOp("minimum", "(isnan(x) || x < y) ? x : y"),
    MapOp("fmax", "fmax(x, y)"),
    MapOp("fmin", "fmin(x, y)"),
    MapOp("power", "precise::pow(x, y)"),
    MapOp("arctan2", "precise::atan2(x, y)"),
)

# reduction: (identity, combine expression of a and b)
REDUCE = {
    "sum": ("0.0f", "a + b"),
    "max": ("-INFINITY", "(isnan(a) || a > b) ? a : b"),
    "min": ("INFINITY", "(isnan(a) || a < b) ? a : b"),
}

_PRELUDE = """#include <metal_stdlib>
using namespace metal;
"""


def unary_kernel(op: MapOp) -> str:
    return (f"kernel void ep_map_{op.name}(device const float* xs [[buffer(0)]], device float* out [[buffer(1)]],\n"
            f"                              constant uint& n [[buffer(2)]], uint i [[thread_position_in_grid]]) {{\n"
            f"  if (i >= n) return;\n"
            f"  const float x = xs[i];\n"
            f"  out[i] = {op.expr};\n"
            f"}}\n")


def binary_kernel(op: MapOp) -> str:
    # ys_step 0 broadcasts one y (a scalar operand) over every x
    return (f"kernel void ep_map_{op.name}(device const float* xs [[buffer(0)]], device const float* ys [[buffer(1)]],\n"
            f"                              device float* out [[buffer(2)]], constant uint& n [[buffer(3)]],\n"
            f"                              constant uint& ys_step [[buffer(4)]], uint i [[thread_position_in_grid]]) {{\n"
            f"  if (i >= n) return;\n"
            f"  const float x = xs[i];\n"
            f"  const float y = ys[i * ys_step];\n"
            f"  out[i] = {op.expr};\n"
            f"}}\n")


def reduce_kernel(name: str) -> str:
    ident, combine = REDUCE[name]
    return (f"kernel void ep_reduce_{name}(device const float* xs [[buffer(0)]], device float* partial [[buffer(1)]],\n"
            f"                             constant uint& n [[buffer(2)]], uint gid [[thread_position_in_grid]],\n"
            f"                             uint lid [[thread_position_in_threadgroup]],\n"
            f"                             uint group [[threadgroup_position_in_grid]],\n"
            f"                             uint threads [[threads_per_grid]]) {{\n"
            f"  threadgroup float scratch[{THREADGROUP}];\n"
            f"  float acc = {ident};\n"
            f"  for (uint i = gid; i < n; i += threads) {{\n"
            f"    const float a = acc, b = xs[i];\n"
            f"    acc = {combine};\n"
            f"  }}\n"
            f"  scratch[lid] = acc;\n"
            f"  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
            f"  for (uint s = {THREADGROUP // 2}; s > 0; s >>= 1) {{\n"
            f"    if (lid < s) {{\n"
            f"      const float a = scratch[lid], b = scratch[lid + s];\n"
            f"      scratch[lid] = {combine};\n"
            f"    }}\n"
            f"    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
            f"  }}\n"
            f"  if (lid == 0) partial[group] = scratch[0];\n"
            f"}}\n")


def msl_source() -> str:
    """The whole MSL library: every map kernel and every reduction kernel."""
    parts = [_PRELUDE]
    parts += [unary_kernel(op) for op in UNARY]
    parts += [binary_kernel(op) for op in BINARY]
    parts += [reduce_kernel(name) for name in REDUCE]
    return "\n".join(parts)


def render_header() -> str:
    """variants/include/everypath/paths/metal/kernels_msl.hpp: the MSL source as a C++ constant."""
    unary = ", ".join(f'"{op.name}"' for op in UNARY)
    binary = ", ".join(f'"{op.name}"' for op in BINARY)
    return (
        "// Generated by variants/metal_msl.py (render_header): the metal path's MSL kernels as one\n"
        "// source string, compiled at run time by newLibraryWithSource:options:error:. Do not edit;\n"
        "// tests/variants/test_apple_paths.py checks this file matches the generator.\n"
        "#pragma once\n\n"
        "#if defined(__APPLE__) && defined(__OBJC__)\n\n"
        "namespace ep::metal {\n\n"
        f"inline constexpr const char* kUnaryOps[] = {{{unary}}};\n"
        f"inline constexpr const char* kBinaryOps[] = {{{binary}}};\n"
        f"inline constexpr unsigned kReduceThreads = {THREADGROUP};\n\n"
        f'inline constexpr const char* kMslSource = R"MSL(\n{msl_source()})MSL";\n\n'
        "}  // namespace ep::metal\n\n"
        "#endif\n"
    )


__all__ = ["BINARY", "HEADER_PATH", "REDUCE", "THREADGROUP", "UNARY", "MapOp", "msl_source", "render_header"]
