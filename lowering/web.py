"""WebAssembly glue: the exports a host needs beside the C ABI, and the ES module browsers and Node import.

A WASM artifact (ArtifactKind.WASM) is a WASI *reactor*: no main; the host calls `_initialize` once,
then `ep_call_<name>` with ep_value descriptors it writes into the module's own linear memory. This
module adds, around the generated unit (which already defines ep_call_<name>, ep_abi_version,
ep_release, ep_telemetry_attach and, built without exceptions, ep_last_error/ep_clear_error):

  ep_alloc(size) / ep_free(ptr)    16-byte aligned blocks for descriptors, the error slot and array data
  ep_layout(i)                     the wasm32 layout of ep_value / ep_error / a telemetry row (LAYOUT
                                   below), checked by static_assert here and by every host at load
  ep_tele_configure(on, sample, explore) -> number of sites
  ep_tele_site_count(), ep_tele_site_field(site, field) -> const char*  (function, op, call_site,
                                   dtype, variants)
  ep_tele_drain() -> rows, ep_tele_rows() -> const row*, ep_tele_dropped(), ep_tele_table_version(gen)
  ep_tele_take_aggregates() -> rows of the exact aggregates merged over every drain since the last
                                   take (every call counted), ep_tele_aggs() -> const agg*,
                                   ep_tele_agg_bins() -> const int32*, ep_tele_agg_counts() -> const int64*

Telemetry runs through the same host as every other process (telemetry_host.hpp's HostHub; wasm has
one thread, so its locks are no-ops), attached lazily so a module nobody records costs one branch
per site. Errors: wasm has no C++ exceptions, so ep::raise fills the error slot (and the running
call's `err`) and traps; a host catches the trap, reads the error, and instantiates the module
afresh before the next call, since the trapped call left its allocations and state behind.
"""
from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from everypath.base.cpp import c_string
from everypath.lowering.pipeline import Generated

RUNTIME_DIR = Path(__file__).resolve().parent / "web_runtime"

# wasm32 (ILP32) offsets: abi.h's structs and the telemetry row below. The hosts (web_runtime/
# everypath.mjs, lowering/wasm_runner.py) mirror these and compare them with ep_layout() at load.
LAYOUT: dict[str, int] = {
    "value_size": 168, "value_kind": 0, "value_dtype": 4, "value_ndim": 8, "value_shape": 16,
    "value_strides": 80, "value_data": 144, "value_owner": 148, "value_scalar": 152,
    "error_size": 1092, "error_set": 0, "error_type": 4, "error_message": 68,
    "row_size": 80, "row_ts": 0, "row_latency": 8, "row_n_elements": 16, "row_shape": 24, "row_site": 56,
    "row_variant": 60, "row_threads": 62, "row_table": 64, "row_ndim": 66, "row_explore": 67,
    "row_propensity": 68, "row_inclusion": 72, "agg_size": 64, "agg_count": 0, "agg_timed": 8, "agg_sum": 16,
    "agg_min": 24, "agg_max": 32, "agg_site": 40, "agg_variant": 44, "agg_bucket": 46, "agg_bin_offset": 48,
    "agg_nbins": 52,
}

_LAYOUT_EXPR = {
    "value_size": "sizeof(ep_value)", "value_kind": "offsetof(ep_value, kind)",
    "value_dtype": "offsetof(ep_value, dtype)", "value_ndim": "offsetof(ep_value, ndim)",
    "value_shape": "offsetof(ep_value, shape)", "value_strides": "offsetof(ep_value, strides)",
    "value_data": "offsetof(ep_value, data)", "value_owner": "offsetof(ep_value, owner)",
    "value_scalar": "offsetof(ep_value, scalar)", "error_size": "sizeof(ep_error)",
    "error_set": "offsetof(ep_error, set)", "error_type": "offsetof(ep_error, type)",
    "error_message": "offsetof(ep_error, message)", "row_size": "sizeof(ep_web::Row)",
    "row_ts": "offsetof(ep_web::Row, ts_ns)", "row_latency": "offsetof(ep_web::Row, latency_ns)",
    "row_n_elements": "offsetof(ep_web::Row, n_elements)", "row_shape": "offsetof(ep_web::Row, shape)",
    "row_site": "offsetof(ep_web::Row, site)", "row_variant": "offsetof(ep_web::Row, variant)",
    "row_threads": "offsetof(ep_web::Row, threads)", "row_table": "offsetof(ep_web::Row, table)",
    "row_ndim": "offsetof(ep_web::Row, ndim)", "row_explore": "offsetof(ep_web::Row, explore)",
    "row_propensity": "offsetof(ep_web::Row, propensity)", "row_inclusion": "offsetof(ep_web::Row, inclusion)",
    "agg_size": "sizeof(ep_web::Agg)", "agg_count": "offsetof(ep_web::Agg, count)",
    "agg_timed": "offsetof(ep_web::Agg, timed)", "agg_sum": "offsetof(ep_web::Agg, sum_ns)",
    "agg_min": "offsetof(ep_web::Agg, min_ns)", "agg_max": "offsetof(ep_web::Agg, max_ns)",
    "agg_site": "offsetof(ep_web::Agg, site)", "agg_variant": "offsetof(ep_web::Agg, variant)",
    "agg_bucket": "offsetof(ep_web::Agg, size_bucket)", "agg_bin_offset": "offsetof(ep_web::Agg, bin_offset)",
    "agg_nbins": "offsetof(ep_web::Agg, nbins)",
}
LAYOUT_ORDER = tuple(LAYOUT)  # ep_layout(i) answers LAYOUT[LAYOUT_ORDER[i]]


def _table_lines(table: str | None) -> list[str]:
    """C++ putting the selection table's "*" entries in force at attach (wasm has no device class yet)."""
    if not table:
        return []
    from everypath.base.selection_table import load_table

    with tempfile.TemporaryDirectory() as d:  # load_table reads a file: it keeps the one validation
        p = Path(d) / "selection-table.json"
        p.write_text(table)
        st = load_table(p, "*")
    if st is None:
        return []
    out = ["  std::vector<ep::tele::TableEntry> entries;"]
    for e in st.entries:
        topk = "{" + ", ".join("{" + ", ".join(map(c_string, t)) + "}" for t in e.topk) + "}"
        out.append(f"  entries.push_back({{{c_string(e.op)}, {{{', '.join(map(str, e.bounds))}}}, "
                   f"{{{', '.join(map(c_string, e.variants))}}}, {topk}}});")
    out.append(f"  h.set_table({c_string(st.version)}, std::move(entries));")
    return out


def wasm_exports_source(gen: Generated, unit_name: str, table: str | None) -> str:
    """C++ that includes the generated unit and exports what a wasm host needs to call it.

    table: a selection table file's JSON text (base/selection_table.py), validated by the Python host's own
    rules; its "*" entries are put in force when the module starts (a wasm module cannot know its
    device class before the page runs it)."""
    asserts = "\n".join(f"static_assert({_LAYOUT_EXPR[k]} == {v}, \"wasm32 layout of {k}\");"
                        for k, v in LAYOUT.items())
    layout = ", ".join(_LAYOUT_EXPR[k] for k in LAYOUT_ORDER)
    table_code = "\n".join(_table_lines(table))
    return f"""// WebAssembly exports for {gen.name} (lowering/web.py). Generated: do not edit.
#include "{unit_name}"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "everypath/telemetry_host.hpp"

#if defined(__wasi__) && defined(EP_SINGLE_THREADED)
// HostHub keeps each thread's ring in a thread_local with a destructor, which clang registers
// with __cxa_thread_atexit; wasi-libc built without threads has none. With one thread a
// thread_local is a static: register it like one (a reactor never exits, so it never runs).
extern "C" int __cxa_atexit(void (*)(void*), void*, void*);
extern "C" int __cxa_thread_atexit(void (*f)(void*), void* obj, void* dso) {{ return __cxa_atexit(f, obj, dso); }}
#endif

namespace ep_web {{

// One drained telemetry record as the host reads it from linear memory (UNIX-epoch ns).
struct Row {{
  int64_t ts_ns, latency_ns, n_elements;
  int64_t shape[ep::tele::kMaxDims];
  int32_t site;
  int16_t variant, threads, table;
  int8_t ndim;
  uint8_t explore;
  float propensity;
  float inclusion;  // probability this call was recorded (timing share x sample x ring thinning)
  uint32_t reserved;
}};

// One (site, variant, size bucket)'s exact aggregates since the last take, its histogram the
// nbins (bin, count) pairs from bin_offset of the take's bin and count arrays (ns bins).
struct Agg {{
  int64_t count, timed, sum_ns, min_ns, max_ns;  // as the lake's aggregates table
  int32_t site;
  int16_t variant;
  uint8_t size_bucket;
  uint8_t reserved;
  int32_t bin_offset, nbins;
  int32_t reserved2[2];
}};

struct Merged {{  // one key over the drains since the last take
  int64_t count = 0, timed = 0, sum_ns = 0, min_ns = INT64_MAX, max_ns = -1;
  std::map<int32_t, int64_t> bins;
}};

struct State {{
  ep::tele::HostHub host;
  std::vector<ep::tele::SiteCopy> sites;  // fixed after the attach: the c_str()s stay valid
  std::vector<std::string> versions;
  std::vector<Row> rows;
  uint64_t dropped = 0;
  // every drain's aggregates merge here until the host takes them (it sends them every few
  // seconds, not with each call's rows: one row per key and interval, not per call)
  std::map<uint64_t, Merged> pending;
  std::vector<Agg> aggs;
  std::vector<int32_t> agg_bins;
  std::vector<int64_t> agg_counts;
}};

// never destroyed: the host may drain after a trap abandoned a call mid-way
State& state() {{
  static State* s = [] {{
    auto* st = new State();
    ep::tele::HostHub& h = st->host;
{table_code}
    ep_telemetry_attach(h.hub());
    st->sites = h.sites_since(0);
    st->versions = h.table_versions();
    return st;
  }}();
  return *s;
}}

constexpr int32_t kLayout[] = {{{layout}}};

}}  // namespace ep_web

{asserts}

EP_EXPORT void* ep_alloc(uint32_t size) {{
  const size_t n = (static_cast<size_t>(size < 16 ? 16 : size) + 15) / 16 * 16;
  return std::aligned_alloc(16, n);
}}
EP_EXPORT void ep_free(void* p) {{ std::free(p); }}
EP_EXPORT int32_t ep_value_size(void) {{ return static_cast<int32_t>(sizeof(ep_value)); }}
EP_EXPORT int32_t ep_layout(int32_t which) {{
  return which >= 0 && which < static_cast<int32_t>(std::size(ep_web::kLayout)) ? ep_web::kLayout[which] : -1;
}}

EP_EXPORT int32_t ep_tele_configure(int32_t enabled, double sample, double explore) {{
  ep_web::State& s = ep_web::state();
  // every call is counted in the aggregates: timing a share (1% of the calls' time) is enough
  s.host.configure(enabled != 0, sample, explore, 0.01);
  return static_cast<int32_t>(s.sites.size());
}}
EP_EXPORT int32_t ep_tele_site_count(void) {{ return static_cast<int32_t>(ep_web::state().sites.size()); }}
EP_EXPORT const char* ep_tele_site_field(int32_t site, int32_t field) {{
  const auto& sites = ep_web::state().sites;
  if (site < 0 || static_cast<size_t>(site) >= sites.size()) return nullptr;
  const ep::tele::SiteCopy& c = sites[static_cast<size_t>(site)];
  switch (field) {{
    case 0: return c.function.c_str();
    case 1: return c.op.c_str();
    case 2: return c.call_site.c_str();
    case 3: return c.dtype.c_str();
    case 4: return c.variants.c_str();
    default: return nullptr;
  }}
}}
EP_EXPORT const char* ep_tele_table_version(int32_t generation) {{
  const auto& v = ep_web::state().versions;
  return generation > 0 && static_cast<size_t>(generation) < v.size() ? v[static_cast<size_t>(generation)].c_str()
                                                                       : nullptr;
}}
// Drains every record since the last drain into the row buffer; returns how many.
EP_EXPORT int32_t ep_tele_drain(void) {{
  ep_web::State& s = ep_web::state();
  const ep::tele::Drained d = s.host.drain();
  s.rows.resize(d.size());
  for (size_t i = 0; i < d.size(); ++i) {{
    ep_web::Row& r = s.rows[i];
    r.ts_ns = d.ts_ns[i];
    r.latency_ns = d.latency_ns[i];
    r.n_elements = d.n_elements[i];
    for (int k = 0; k < ep::tele::kMaxDims; ++k) r.shape[k] = d.shape[i * ep::tele::kMaxDims + static_cast<size_t>(k)];
    r.site = d.site[i];
    r.variant = d.variant[i];
    r.threads = d.threads[i];
    r.table = d.table[i];
    r.ndim = d.ndim[i];
    r.explore = d.explore[i];
    r.propensity = d.propensity[i];
    r.inclusion = d.inclusion[i];
  }}
  s.dropped = d.dropped;
  const ep::tele::DrainedAggregates& a = d.aggregates;
  for (size_t i = 0; i < a.size(); ++i) {{
    const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(a.site[i])) << 24) |
                         (static_cast<uint64_t>(static_cast<uint16_t>(a.variant[i])) << 8) | a.size_bucket[i];
    ep_web::Merged& m = s.pending[key];
    m.count += a.count[i];
    m.timed += a.timed[i];
    m.sum_ns += a.sum_ns[i];
    if (a.timed[i] > 0) {{  // an interval with no timed call reports 0 for both
      m.min_ns = std::min(m.min_ns, a.min_ns[i]);
      m.max_ns = std::max(m.max_ns, a.max_ns[i]);
    }}
    for (int64_t k = a.hist_offsets[i]; k < a.hist_offsets[i + 1]; ++k)
      m.bins[a.hist_bin[static_cast<size_t>(k)]] += a.hist_count[static_cast<size_t>(k)];
  }}
  return static_cast<int32_t>(d.size());
}}
// Moves the aggregates merged since the last take into the arrays below; returns how many rows.
EP_EXPORT int32_t ep_tele_take_aggregates(void) {{
  ep_web::State& s = ep_web::state();
  s.aggs.clear();
  s.agg_bins.clear();
  s.agg_counts.clear();
  for (const auto& [key, m] : s.pending) {{
    ep_web::Agg g{{}};
    g.count = m.count;
    g.timed = m.timed;
    g.sum_ns = m.sum_ns;
    g.min_ns = m.timed > 0 ? m.min_ns : 0;
    g.max_ns = m.timed > 0 ? m.max_ns : 0;
    g.site = static_cast<int32_t>(key >> 24);
    g.variant = static_cast<int16_t>((key >> 8) & 0xffff);
    g.size_bucket = static_cast<uint8_t>(key & 0xff);
    g.bin_offset = static_cast<int32_t>(s.agg_bins.size());
    g.nbins = static_cast<int32_t>(m.bins.size());
    for (const auto& [b, c] : m.bins) {{
      s.agg_bins.push_back(b);
      s.agg_counts.push_back(c);
    }}
    s.aggs.push_back(g);
  }}
  s.pending.clear();
  return static_cast<int32_t>(s.aggs.size());
}}
EP_EXPORT const ep_web::Agg* ep_tele_aggs(void) {{ return ep_web::state().aggs.data(); }}
EP_EXPORT const int32_t* ep_tele_agg_bins(void) {{ return ep_web::state().agg_bins.data(); }}
EP_EXPORT const int64_t* ep_tele_agg_counts(void) {{ return ep_web::state().agg_counts.data(); }}
EP_EXPORT const ep_web::Row* ep_tele_rows(void) {{ return ep_web::state().rows.data(); }}
EP_EXPORT int32_t ep_tele_dropped(void) {{
  const uint64_t d = ep_web::state().dropped;
  return d > 0x7fffffffu ? 0x7fffffff : static_cast<int32_t>(d);
}}
"""


def _runtime_text(name: str) -> str:
    """A shipped JS file inlined into NAME.mjs: its `export`s become plain declarations, so the one
    file a page serves carries the shim and the marshalling without exposing them."""
    text = (RUNTIME_DIR / name).read_text()
    text = re.sub(r'^import [^;]* from "\./[a-z_]+\.mjs";\n', "", text, flags=re.M)  # inlined beside it
    return re.sub(r"^export (?=(async )?function |const |class |let )", "", text, flags=re.M)


def es_module(gen: Generated) -> str:
    """NAME.mjs: `load(wasmUrlOrBytes, options)` and `async NAME(...args)` (see web_runtime/everypath.mjs)."""
    name = gen.name
    if not re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", name) or name in ("load", "signature", "flushTelemetry", "telemetryJSONLines"):
        raise ValueError(f"function name {name!r} cannot be an ES module export")
    sig = json.dumps(gen.signature, sort_keys=True, default=repr)
    return f"""// {name}.mjs: the compiled Python function {name} for browsers and Node.js (everypath, lowering/web.py).
// Generated: do not edit.
//
//   import {{ load, {name} }} from "./{name}.mjs";
//   await load();                              // ./{name}.wasm beside this file (or a URL, bytes, a Module)
//   const r = await {name}(...args);
//
// Arrays are {{data: TypedArray, shape: [...]}} (a bare typed array for 1-d), dtypes exact: float64
// Float64Array, float32 Float32Array, int64 BigInt64Array, uint64 BigUint64Array, bool Uint8Array
// (results flagged bool: true), complex interleaved (re, im) Float64Array/Float32Array with
// complex: true. Scalars are numbers and booleans (int64/uint64 results: a Number when
// Number.isSafeInteger, else a BigInt; complex: {{re, im}}), tuples JS arrays, None undefined.
// Arguments of the wrong type, dtype or rank throw a TypeError naming the parameter; an exception
// raised by the compiled code throws an Error whose name is the Python type (ValueError, ...).
// Options of load(): onTelemetry(rows, aggregates) receives the calls' telemetry rows in the lake's
// `calls` columns and, every aggregateSeconds (default 5) and on flushTelemetry(), the exact
// aggregates (every call counted) in the `aggregates` columns; sample (share of timed calls kept as
// rows, default 1), explore, deviceId, bundleId, bundleVersion.

{_runtime_text("wasi_shim.mjs")}
{_runtime_text("everypath.mjs")}
export const signature = {sig};
const kernel = new KernelModule(signature, new URL("./{name}.wasm", import.meta.url));

// Instantiates the module once (later calls return the same promise unless src/options change it).
export function load(wasmUrlOrBytes, options) {{
  return kernel.load(wasmUrlOrBytes, options);
}}

// Hands the telemetry recorded so far, the aggregates included, to onTelemetry (calls do this after
// each call, with the aggregates every aggregateSeconds): call it before the page goes away.
export function flushTelemetry() {{
  return kernel.flushTelemetry(true);
}}

// rows or aggregates as JSON Lines for the collector (BigInts exact)
export {{ telemetryJSONLines }};

export async function {name}(...args) {{
  return kernel.call(args);
}}

export default {name};
"""
