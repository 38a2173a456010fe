// The standalone executable of one compiled function (lowering/standalone.py writes the
// signature tables and a main() that calls run()):
//
//   NAME --inputs in.npz --out out.npz [--spool PATH] [--no-telemetry] [--device] [--help]
//
// Inputs are the .npz members named after the parameters (tuple items as NAME_0, NAME_1, ...
// depth-first; scalars as 0-d arrays); outputs are `result` or result_0, result_1, ...
// Exit status: 0 done, 1 the compiled code raised (`Type: message` on stderr), 2 the
// command line or an input/output file is wrong (the message names the parameter, the
// expected dtype and rank). Telemetry goes to a spool file (telemetry_standalone.hpp) that
// `everypath telemetry ingest` reads; its device block describes the machine it ran on.
// No exceptions are used here: the same code builds with -fno-exceptions (wasm32-wasi).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "../abi.h"
#include "../telemetry_standalone.hpp"
#include "device.hpp"
#include "inputs.hpp"
#include "npz.hpp"
#include "program.hpp"
#include "session.hpp"

namespace ep::standalone {

namespace detail {

// Where ep::raise lands in builds without exceptions: report, finish the spool, exit 1.
inline ep::tele::SpoolHost*& active_host() {
  static ep::tele::SpoolHost* h = nullptr;
  return h;
}

[[maybe_unused]] inline void on_raise(const ep_error* e) {
  ep::print_trace(stderr, e);
  std::fprintf(stderr, "%s: %s\n", e->type, e->message);
  std::fflush(stderr);
  if (ep::tele::SpoolHost* h = active_host()) h->stop();
  std::exit(1);
}

}  // namespace detail

inline int usage_error(const Program& p, const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n(run %s --help for the parameters and their types)\n", p.name,
               message.c_str(), p.name);
  return 2;
}

inline int run(const Program& p, int argc, char** argv) {
  using namespace detail;
  std::string inputs, out, spool;
  bool have_inputs = false, have_out = false, no_telemetry = false, show_device = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* opt, std::string& dst, bool& seen) -> int {
      const std::string o = opt;
      if (a == o) {
        if (i + 1 >= argc) return usage_error(p, o + " needs a value");
        dst = argv[++i];
      } else {
        dst = a.substr(o.size() + 1);
      }
      seen = true;
      return 0;
    };
    auto is = [&](const char* opt) { return a == opt || a.rfind(std::string(opt) + "=", 0) == 0; };
    bool have_spool = false;
    if (a == "--help" || a == "-h") {
      std::fputs(p.usage, stdout);
      return 0;
    } else if (is("--inputs")) {
      if (int rc = value("--inputs", inputs, have_inputs)) return rc;
    } else if (is("--out")) {
      if (int rc = value("--out", out, have_out)) return rc;
    } else if (is("--spool")) {
      if (int rc = value("--spool", spool, have_spool)) return rc;
    } else if (a == "--no-telemetry") {
      no_telemetry = true;
    } else if (a == "--device") {
      show_device = true;
    } else {
      return usage_error(p, "unknown argument '" + a + "'");
    }
  }
  const std::string runtime =
#if defined(__wasi__)
      "wasi";
#else
      "native-executable";
#endif
  if (show_device) {
    std::printf("%s\n", ep::device::device_json(ep::device::detect(runtime, spool_dir())).c_str());
    return 0;
  }
  bool any_required = false;
  for (int32_t k = 0; k < p.nparams; ++k) any_required = any_required || !p.params[k].has_default;
  if (!have_inputs && any_required) return usage_error(p, "missing --inputs FILE.npz (the parameters' values)");
  if (!have_out && p.nresults > 0) return usage_error(p, "missing --out FILE.npz (where the results go)");

  // ---- inputs
  std::vector<npz::Entry> entries;
  if (have_inputs) {
    npz::Status st = npz::read_npz(inputs, entries);
    if (!st) return usage_error(p, st.message);
  }
  std::vector<ep_value> args(static_cast<size_t>(p.nargs > 0 ? p.nargs : 1));
  if (const std::string why = bind_inputs(p, entries, inputs, args); !why.empty()) return usage_error(p, why);

  // ---- telemetry and the selection table
  double sample = 1.0, explore = 0.0;
  std::string why;
  if (!rate_from_env("EVERYPATH_TELEMETRY_SAMPLE", 1.0, sample, why) ||
      !rate_from_env("EVERYPATH_EXPLORE", 0.0, explore, why))
    return usage_error(p, why);
  const bool telemetry = !no_telemetry && env("EVERYPATH_TELEMETRY") != "0";
  std::unique_ptr<ep::tele::SpoolHost> host;
  if (telemetry || p.table != nullptr) {
    const std::string dir = !telemetry ? "" : spool.empty() ? spool_dir() : folder_of(spool);
    const ep::device::Device dev = ep::device::detect(runtime, dir);
    host = std::make_unique<ep::tele::SpoolHost>();
    p.attach(host->hub());
    std::string extra = ", \"device\": " + ep::device::device_json(dev);
    if (p.table != nullptr) {
      if (const TableClass* c = table_for(*p.table, dev.device_class); c != nullptr && c->n > 0) {
        host->host().set_table(p.table->version, table_entries(*c));
        extra += ", \"table_version\": " + ep::device::py_json_string(p.table->version);
      }
    }
    if (telemetry) {
      const std::string path = spool.empty() ? spool_path(dir, p.name) : spool;
      // 50 ms: the background drain wakes often enough that exiting never waits long
      bool started = false;
      std::string failure;
#if defined(EP_NO_EXCEPTIONS)
      started = host->start(path, sample, explore, 50, runtime, extra);
      if (!started) failure = host->error();
#else
      try {  // the spool writer throws where it can (telemetry never fails the call)
        started = host->start(path, sample, explore, 50, runtime, extra);
        if (!started) failure = host->error();
      } catch (const std::exception& e) {
        failure = e.what();
      }
#endif
      if (started) active_host() = host.get();
      else std::fprintf(stderr, "%s: telemetry off: %s\n", p.name, failure.c_str());
    }
  }
#if defined(EP_NO_EXCEPTIONS)
  ep::set_raise_handler(&on_raise);
#endif

  // ---- the call
  std::vector<ep_value> results(static_cast<size_t>(p.nresults > 0 ? p.nresults : 1));
  for (auto& v : results) std::memset(&v, 0, sizeof v);
  ep_error err{};
  const int rc = p.entry(args.data(), p.nargs, results.data(), p.nresults, &err);
  if (host) host->poll();
  if (rc != 0) {
    if (host) host->stop();
    active_host() = nullptr;
    ep::print_trace(stderr, &err);
    std::fprintf(stderr, "%s: %s\n", err.type[0] ? err.type : "RuntimeError", err.message);
    return 1;
  }

  // ---- outputs
  int status = 0;
  if (have_out) {
    std::vector<std::pair<std::string, std::string>> members;
    for (int32_t k = 0; k < p.nresults; ++k) {
      const Result& r = p.results[k];
      ep_value& v = results[static_cast<size_t>(k)];
      const int64_t none[1] = {0};
      if (v.kind == EP_KIND_ARRAY)
        members.emplace_back(std::string(r.key) + ".npy", npz::npy_bytes(v.dtype, v.ndim, v.shape, v.strides, v.data));
      else
        members.emplace_back(std::string(r.key) + ".npy", npz::npy_bytes(v.dtype, 0, none, none, v.scalar.bytes));
    }
    const npz::Status st = npz::write_zip(out, members);
    if (!st) status = usage_error(p, st.message);
  }
  for (auto& v : results)
    if (v.kind == EP_KIND_ARRAY && v.owner != nullptr) p.release(v.owner);
  if (host) host->stop();
  active_host() = nullptr;
  return status;
}

}  // namespace ep::standalone
