// The runtime shim's host in a Python process: one HostHub
// (variants/include/everypath/telemetry_host.hpp) that every kernel library
// attaches to when it is loaded, configured from Python (Settings) and
// drained by telemetry/shim.py's flusher into the Parquet lake.

#include <dlfcn.h>

#include <pybind11/stl.h>

#include "everypath/telemetry_host.hpp"
#include "runtime.hpp"

namespace ep_runtime {

namespace {

ep::tele::HostHub& hub() {
  // never destroyed: kernels on other threads may still record during interpreter exit
  static auto* h = new ep::tele::HostHub();
  return *h;
}

template <class T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
  return a;
}

}  // namespace

void attach_telemetry(void* handle) {
  using attach_fn = int32_t (*)(ep::tele::Hub*);
  dlerror();
  auto attach = reinterpret_cast<attach_fn>(dlsym(handle, "ep_telemetry_attach"));
  if (attach != nullptr) attach(hub().hub());  // libraries built before the shim have none
}

void def_telemetry(py::module_& m) {
  m.def(
      "telemetry_configure",
      [](bool enabled, double sample, double explore, double timing_budget) {
        hub().configure(enabled, sample, explore, timing_budget);
      },
      py::arg("enabled"), py::arg("sample") = 1.0, py::arg("explore") = 0.0, py::arg("timing_budget") = 0.01,
      "Turn recording on/off; sample: share of timed calls recorded raw; explore: share of dispatched calls "
      "that try another variant; timing_budget: share of a call's time that timing it may cost (>= 1: time "
      "every call). Every call is counted either way.");
  m.def(
      "telemetry_drain",
      []() {
        ep::tele::Drained d;
        {
          py::gil_scoped_release nogil;
          d = hub().drain();
        }
        py::dict out;
        out["ts_ns"] = to_numpy(d.ts_ns);
        out["latency_ns"] = to_numpy(d.latency_ns);
        out["site"] = to_numpy(d.site);
        out["variant"] = to_numpy(d.variant);
        out["ndim"] = to_numpy(d.ndim);
        py::array_t<int64_t> shape = to_numpy(d.shape);
        out["shape"] = shape.reshape({static_cast<py::ssize_t>(d.size()), py::ssize_t(ep::tele::kMaxDims)});
        out["n_elements"] = to_numpy(d.n_elements);
        out["threads"] = to_numpy(d.threads);
        out["table"] = to_numpy(d.table);
        out["explore"] = to_numpy(d.explore).attr("astype")("bool");
        out["propensity"] = to_numpy(d.propensity);
        out["inclusion"] = to_numpy(d.inclusion);
        out["dropped"] = d.dropped;
        const ep::tele::DrainedAggregates& a = d.aggregates;
        py::dict agg;
        agg["site"] = to_numpy(a.site);
        agg["variant"] = to_numpy(a.variant);
        agg["size_bucket"] = to_numpy(a.size_bucket);
        agg["count"] = to_numpy(a.count);
        agg["timed"] = to_numpy(a.timed);
        agg["sum_ns"] = to_numpy(a.sum_ns);
        agg["min_ns"] = to_numpy(a.min_ns);
        agg["max_ns"] = to_numpy(a.max_ns);
        agg["hist_offsets"] = to_numpy(a.hist_offsets);
        agg["hist_bin"] = to_numpy(a.hist_bin);
        agg["hist_count"] = to_numpy(a.hist_count);
        agg["overflow"] = a.overflow;
        out["aggregates"] = agg;
        return out;
      },
      "Every record pushed since the last drain, in columns (UNIX-epoch ns timestamps), and under "
      "'aggregates' the exact per-(site, variant, size bucket) counts of every call since then.");
  m.def(
      "telemetry_pressure",
      []() {
        py::gil_scoped_release nogil;
        return hub().pressure();
      },
      "Whether a thread's ring is half full or more (drain now: its raw sample has begun to thin).");
  m.def(
      "telemetry_set_table",
      [](const std::string& version, const py::list& entries) {
        std::vector<ep::tele::TableEntry> table;
        for (const auto& e : entries) {
          auto t = e.cast<py::tuple>();
          table.push_back({t[0].cast<std::string>(), t[1].cast<std::vector<ep::index_t>>(),
                           t[2].cast<std::vector<std::string>>()});
          if (t.size() > 3) table.back().topk = t[3].cast<std::vector<std::vector<std::string>>>();
          if (table.back().variants.size() != table.back().bounds.size() + 1)
            throw py::value_error("selection table entry for " + table.back().op +
                                  ": needs one variant more than bounds");
          if (!table.back().topk.empty() && table.back().topk.size() != table.back().variants.size())
            throw py::value_error("selection table entry for " + table.back().op +
                                  ": topk needs one list per variant slot");
        }
        return hub().set_table(version, std::move(table));
      },
      py::arg("version"), py::arg("entries"),
      "Put a selection table in force: entries are (op, bounds, variants[, topk]) with len(variants) == "
      "len(bounds) + 1 and topk one list of exploration candidates per variant slot; returns its generation (records carry it). An empty list restores the defaults.");
  m.def("telemetry_table_versions", []() { return hub().table_versions(); },
        "Version strings of every table put in force, by generation (0: the built-in thresholds).");
  m.def(
      "telemetry_sites",
      [](size_t first) {
        py::list out;
        for (const auto& s : hub().sites_since(first))
          out.append(py::make_tuple(s.function, s.op, s.call_site, s.dtype, s.variants));
        return out;
      },
      py::arg("first") = 0,
      "Registered call sites from index `first` on: (function, op, call_site, dtype, 'v1,v2,...').");
}

}  // namespace ep_runtime
