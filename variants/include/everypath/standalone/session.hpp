// Where the executable's telemetry goes and what steers it: the environment (EVERYPATH_*),
// the spool's folder and file name, and the embedded selection table for this device class.
#pragma once

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../telemetry_host.hpp"
#include "program.hpp"

#if defined(_WIN32)
#include <direct.h>
#include <process.h>
#else
#include <sys/stat.h>
#if !defined(__wasi__)
#include <unistd.h>
#endif
#endif

namespace ep::standalone::detail {

inline std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

inline bool rate_from_env(const char* name, double fallback, double& out, std::string& why) {
  const std::string text = env(name);
  out = fallback;
  if (text.empty()) return true;
  char* end = nullptr;
  const double r = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(r >= 0.0 && r <= 1.0)) {
    why = std::string(name) + "='" + text + "': expected a number between 0 and 1";
    return false;
  }
  out = r;
  return true;
}

inline void make_dirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/' && path[i] != '\\') continue;
    const std::string part = path.substr(0, i);
#if defined(_WIN32)
    _mkdir(part.c_str());
#else
    mkdir(part.c_str(), 0755);
#endif
  }
}

inline long long process_id() {
#if defined(_WIN32)
  return _getpid();
#elif defined(__wasi__)
  return 0;  // WASI has no process ids; the millisecond timestamp keeps names apart
#else
  return static_cast<long long>(getpid());
#endif
}

// $EVERYPATH_SPOOL_DIR, else the user data directory's everypath/spool/ (XDG_DATA_HOME,
// ~/.local/share; %LOCALAPPDATA% on Windows), created when missing.
inline std::string spool_dir() {
  std::string dir = env("EVERYPATH_SPOOL_DIR");
  if (dir.empty()) {
    std::string base = env("XDG_DATA_HOME");
#if defined(_WIN32)
    if (base.empty()) base = env("LOCALAPPDATA");
#endif
    if (base.empty() && !env("HOME").empty()) base = env("HOME") + "/.local/share";
    if (base.empty()) base = ".";
    dir = base + "/everypath/spool";
  }
  make_dirs(dir);
  return dir;
}

// The folder of a --spool path (where a machine without an id keeps its random key).
inline std::string folder_of(const std::string& path) {
  const size_t k = path.find_last_of("/\\");
  return k == std::string::npos ? "." : k == 0 ? "/" : path.substr(0, k);
}

// NAME-<pid>-<unix ms>.spool in the spool folder.
inline std::string spool_path(const std::string& dir, const std::string& name) {
  const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch()).count();
  return dir + "/" + name + "-" + std::to_string(process_id()) + "-" + std::to_string(ms) + ".spool";
}

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t a = 0;
  for (;;) {
    const size_t b = s.find(sep, a);
    out.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return out;
}

// The table for this device class (else the "*" one), as the Python host chooses it.
inline const TableClass* table_for(const Table& t, const std::string& device_class) {
  const TableClass* star = nullptr;
  for (int32_t i = 0; i < t.n; ++i) {
    if (device_class == t.classes[i].device_class) return &t.classes[i];
    if (std::strcmp(t.classes[i].device_class, "*") == 0) star = &t.classes[i];
  }
  return star;
}

inline std::vector<ep::tele::TableEntry> table_entries(const TableClass& c) {
  std::vector<ep::tele::TableEntry> out;
  for (int32_t i = 0; i < c.n; ++i) {
    const TableEntry& e = c.entries[i];
    ep::tele::TableEntry t;
    t.op = e.op;
    t.bounds.assign(e.bounds, e.bounds + e.nbounds);
    t.variants = split(e.variants, ',');
    if (e.topk[0] != '\0')
      for (const std::string& slot : split(e.topk, '|')) t.topk.push_back(split(slot, ','));
    out.push_back(std::move(t));
  }
  return out;
}


}  // namespace ep::standalone::detail
