// The device a standalone executable runs on, as telemetry/device.py describes a host:
// os, arch, isa_level (x86-64-v1..v4 from cpuid; armv8/armv8.2/armv9 from the hwcaps),
// isa_flags (telemetry.device.RELEVANT_FLAGS present, in that order), cores, cpu_model,
// cache sizes where sysfs/sysctl give them, the runtime, a machine_key (sha256 over a
// domain tag and /etc/machine-id: the raw id never leaves the process) and the
// device_class, computed as telemetry.device.device_class does (sha256 of the class
// features as Python's json.dumps(sort_keys=True) writes them), so the selection table for
// this class can be chosen here and the lake files rows under the same class.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sha256.hpp"

#if (defined(__x86_64__) || defined(__i386__)) && !defined(_MSC_VER)
#include <cpuid.h>
#endif
#if defined(__linux__) && defined(__aarch64__)
#include <sys/auxv.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif
#if !defined(_WIN32) && !defined(__wasi__)
#include <unistd.h>
#endif
#if !defined(EP_SINGLE_THREADED)
#include <thread>
#endif

namespace ep::device {

struct Device {
  std::string arch, os, isa_level, isa_flags, runtime, machine_key;
  std::optional<std::string> cpu_model;
  int cores = 1;
  std::optional<int> l1d_kib, l2_kib, l3_kib;
  std::string device_class;
};

// A JSON string as Python's json.dumps writes it (ensure_ascii: every non-ASCII code point
// as \uXXXX, lower-case hex, surrogate pairs above U+FFFF; invalid UTF-8 as U+FFFD, the way
// Python reads /proc/cpuinfo with errors="replace").
inline std::string py_json_string(const std::string& s) {
  std::string out = "\"";
  auto u = [&](unsigned cp) {
    char b[8];
    std::snprintf(b, sizeof b, "\\u%04x", cp);
    out += b;
  };
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20 || c == 0x7f) u(c);
          else out += static_cast<char>(c);
      }
      continue;
    }
    int n = c >= 0xf0 && c < 0xf5 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
    unsigned cp = n == 3 ? c & 7u : n == 2 ? c & 15u : c & 31u;
    bool ok = n > 0 && i + static_cast<size_t>(n) < s.size();
    for (int k = 1; ok && k <= n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
      if ((cc & 0xc0) != 0x80) ok = false;
      else cp = (cp << 6) | (cc & 0x3fu);
    }
    if (ok && ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp < 0xe000)))
      ok = false;
    if (!ok) {
      u(0xfffd);
      ++i;
      continue;
    }
    i += static_cast<size_t>(n) + 1;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      u(0xd800 + (cp >> 10));
      u(0xdc00 + (cp & 0x3ff));
    } else {
      u(cp);
    }
  }
  return out + "\"";
}

inline std::string json_opt(const std::optional<std::string>& s) { return s ? py_json_string(*s) : "null"; }
inline std::string json_opt(const std::optional<int>& v) { return v ? std::to_string(*v) : "null"; }

// telemetry.device.device_class: the first 12 hex digits of sha256 over the class features.
inline std::string device_class(const Device& d) {
  const std::string feats = "{\"arch\": " + py_json_string(d.arch) + ", \"cores\": " + std::to_string(d.cores) +
                            ", \"cpu_model\": " + json_opt(d.cpu_model) + ", \"gpu\": null, \"isa_flags\": " +
                            py_json_string(d.isa_flags) + ", \"isa_level\": " + py_json_string(d.isa_level) +
                            ", \"l1d_kib\": " + json_opt(d.l1d_kib) + ", \"l2_kib\": " + json_opt(d.l2_kib) +
                            ", \"l3_kib\": " + json_opt(d.l3_kib) + ", \"os\": " + py_json_string(d.os) +
                            ", \"runtime\": " + py_json_string(d.runtime) + "}";
  return sha256::hex(feats).substr(0, 12);
}

// The spool's "device" block (telemetry/spool.py).
inline std::string device_json(const Device& d) {
  return "{\"arch\": " + py_json_string(d.arch) + ", \"os\": " + py_json_string(d.os) +
         ", \"cpu_model\": " + json_opt(d.cpu_model) + ", \"isa_level\": " + py_json_string(d.isa_level) +
         ", \"isa_flags\": " + py_json_string(d.isa_flags) + ", \"cores\": " + std::to_string(d.cores) +
         ", \"l1d_kib\": " + json_opt(d.l1d_kib) + ", \"l2_kib\": " + json_opt(d.l2_kib) +
         ", \"l3_kib\": " + json_opt(d.l3_kib) + ", \"gpu\": null, \"runtime\": " + py_json_string(d.runtime) +
         ", \"machine_key\": " + py_json_string(d.machine_key) + ", \"device_class\": " +
         py_json_string(d.device_class) + "}";
}

namespace detail {

inline std::optional<std::string> read_text(const char* path) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return std::nullopt;
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

inline std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n' || s[a] == '\r')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\n' || s[b - 1] == '\r')) --b;
  return s.substr(a, b - a);
}

// The first processor block of /proc/cpuinfo as (lower-case key, value) pairs.
inline std::vector<std::pair<std::string, std::string>> cpuinfo() {
  std::vector<std::pair<std::string, std::string>> out;
  const auto text = read_text("/proc/cpuinfo");
  if (!text) return out;
  size_t i = 0;
  while (i < text->size()) {
    size_t e = text->find('\n', i);
    if (e == std::string::npos) e = text->size();
    const std::string line = text->substr(i, e - i);
    i = e + 1;
    if (trim(line).empty()) {
      if (!out.empty()) break;
      continue;
    }
    const size_t colon = line.find(':');
    std::string k = trim(line.substr(0, colon)), v = colon == std::string::npos ? "" : trim(line.substr(colon + 1));
    for (auto& ch : k) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    bool seen = false;
    for (const auto& kv : out) seen = seen || kv.first == k;
    if (!seen) out.emplace_back(k, v);
  }
  return out;
}

inline const std::string* info_get(const std::vector<std::pair<std::string, std::string>>& info, const char* k) {
  for (const auto& kv : info)
    if (kv.first == k && !kv.second.empty()) return &kv.second;
  return nullptr;
}

inline bool has(const std::vector<std::string>& flags, const char* f) {
  for (const auto& x : flags)
    if (x == f) return true;
  return false;
}

#if (defined(__x86_64__) || defined(__i386__)) && !defined(_MSC_VER)
// The /proc/cpuinfo names of the cpuid bits telemetry/device.py looks at.
inline std::vector<std::string> x86_flags(std::optional<std::string>& brand) {
  std::vector<std::string> f;
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return f;
  const unsigned max_leaf = a;
  unsigned c1 = 0, d1 = 0;
  __get_cpuid(1, &a, &b, &c1, &d1);
  uint64_t xcr0 = 0;
  if ((c1 >> 27) & 1) {  // OSXSAVE: the OS saves the extended register state it enabled
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = (static_cast<uint64_t>(hi) << 32) | lo;
  }
  const bool os_avx = (xcr0 & 6) == 6, os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0;
  const bool os_amx = (xcr0 & 0x60000) == 0x60000;
  auto add = [&](bool on, const char* name) {
    if (on) f.emplace_back(name);
  };
  add((c1 >> 9) & 1, "ssse3");
  add(((c1 >> 12) & 1) && os_avx, "fma");
  add((c1 >> 13) & 1, "cx16");
  add((c1 >> 19) & 1, "sse4_1");
  add((c1 >> 20) & 1, "sse4_2");
  add((c1 >> 22) & 1, "movbe");
  add((c1 >> 23) & 1, "popcnt");
  add((c1 >> 26) & 1, "xsave");
  add(((c1 >> 28) & 1) && os_avx, "avx");
  add(((c1 >> 29) & 1) && os_avx, "f16c");
  if (max_leaf >= 7) {
    unsigned b7 = 0, c7 = 0, d7 = 0, a71 = 0;
    __cpuid_count(7, 0, a, b7, c7, d7);
    const unsigned sub = a;
    add((b7 >> 3) & 1, "bmi1");
    add(((b7 >> 5) & 1) && os_avx, "avx2");
    add((b7 >> 8) & 1, "bmi2");
    add(((b7 >> 16) & 1) && os_avx512, "avx512f");
    add(((b7 >> 17) & 1) && os_avx512, "avx512dq");
    add(((b7 >> 28) & 1) && os_avx512, "avx512cd");
    add(((b7 >> 30) & 1) && os_avx512, "avx512bw");
    add(((b7 >> 31) & 1) && os_avx512, "avx512vl");
    add(((c7 >> 11) & 1) && os_avx512, "avx512_vnni");
    add(((d7 >> 22) & 1) && os_amx, "amx_bf16");
    add(((d7 >> 23) & 1) && os_avx512, "avx512_fp16");
    add(((d7 >> 24) & 1) && os_amx, "amx_tile");
    add(((d7 >> 25) & 1) && os_amx, "amx_int8");
    if (sub >= 1) {
      unsigned bb, cc, dd;
      __cpuid_count(7, 1, a71, bb, cc, dd);
      add(((a71 >> 5) & 1) && os_avx512, "avx512_bf16");
    }
  }
  __get_cpuid(0x80000000u, &a, &b, &c, &d);
  const unsigned ext = a;
  if (ext >= 0x80000001u) {
    __get_cpuid(0x80000001u, &a, &b, &c, &d);
    add(c & 1, "lahf_lm");
    add((c >> 5) & 1, "abm");
  }
  if (ext >= 0x80000004u) {
    unsigned r[12];
    for (unsigned k = 0; k < 3; ++k) __get_cpuid(0x80000002u + k, &r[4 * k], &r[4 * k + 1], &r[4 * k + 2], &r[4 * k + 3]);
    char s[49] = {};
    std::memcpy(s, r, 48);
    const std::string t = trim(s);
    if (!t.empty()) brand = t;
  }
  return f;
}
#endif

inline std::string level_of(const std::string& arch, const std::vector<std::string>& f) {
  auto all = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (!has(f, n)) return false;
    return true;
  };
  if (arch == "x86_64") {
    if (!all({"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"})) return "x86-64-v1";
    if (!all({"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"})) return "x86-64-v2";
    if (!all({"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"})) return "x86-64-v3";
    return "x86-64-v4";
  }
  if (arch == "aarch64") {
    if (has(f, "sve2")) return "armv9";
    return has(f, "asimddp") || has(f, "asimdhp") ? "armv8.2" : "armv8";
  }
#if defined(__wasm_simd128__)
  if (arch == "wasm32") return "simd128";
#endif
  return arch;
}

inline std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t e = i;
    while (e < s.size() && s[e] != ' ') ++e;
    if (e > i) out.push_back(s.substr(i, e - i));
    i = e;
  }
  return out;
}

#if defined(__linux__)
inline void linux_caches(Device& d) {
  for (int i = 0; i < 16; ++i) {
    const std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const auto level = read_text((base + "level").c_str()), type = read_text((base + "type").c_str()),
               size = read_text((base + "size").c_str());
    if (!level || !type || !size) continue;
    const std::string t = trim(*type), sz = trim(*size);
    if (t == "Instruction" || sz.empty()) continue;
    size_t k = 0;
    long long v = 0;
    while (k < sz.size() && sz[k] >= '0' && sz[k] <= '9') v = v * 10 + (sz[k++] - '0');
    if (k == 0) continue;
    const std::string unit = sz.substr(k);
    double kib;
    if (unit.empty()) kib = static_cast<double>(v) / 1024;
    else if (unit == "K") kib = static_cast<double>(v);
    else if (unit == "M") kib = static_cast<double>(v) * 1024;
    else if (unit == "G") kib = static_cast<double>(v) * 1024 * 1024;
    else continue;
    const int lv = std::atoi(trim(*level).c_str());
    if (lv == 1) d.l1d_kib = static_cast<int>(kib);
    else if (lv == 2) d.l2_kib = static_cast<int>(kib);
    else if (lv == 3) d.l3_kib = static_cast<int>(kib);
  }
}
#endif

#if defined(__APPLE__)
inline std::optional<long long> sysctl_int(const char* name) {
  long long v = 0;
  size_t n = sizeof v;
  if (sysctlbyname(name, &v, &n, nullptr, 0) != 0) return std::nullopt;
  if (n == 4) {
    int32_t w;
    std::memcpy(&w, &v, 4);
    return w;
  }
  return v;
}
#endif

inline std::string machine_id() {
  for (const char* p : {"/etc/machine-id", "/var/lib/dbus/machine-id"})
    if (auto s = read_text(p)) {
      const std::string t = trim(*s);
      if (!t.empty()) return t;
    }
#if defined(_WIN32)
  if (const char* c = std::getenv("COMPUTERNAME")) return std::string("host:") + c;
#elif !defined(__wasi__)
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0]) return std::string("host:") + host;
#endif
  return "unknown";
}

// Where no machine id exists (WASI sees no /etc; a host without one and without a hostname): a
// random key kept in `dir`, so one installation keeps one key and two never share one.
inline std::string stored_key(const std::string& dir) {
  const std::string path = dir + "/.everypath-machine-key";
  if (auto s = read_text(path.c_str())) {
    const std::string t = trim(*s);
    if (t.size() == 64) return t;
  }
  std::random_device rd;
  std::string key;
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    const unsigned v = rd();
    for (int k = 0; k < 4; ++k) key += digits[(v >> (4 * k)) & 15];
  }
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fputs(key.c_str(), f);
    std::fclose(f);
  }
  return key;
}

}  // namespace detail

// key_dir: where a random machine key is kept when the machine has no id (empty: none kept).
inline Device detect(const std::string& runtime, const std::string& key_dir = "") {
  using namespace detail;
  Device d;
  d.runtime = runtime;
#if defined(__x86_64__)
  d.arch = "x86_64";
#elif defined(__aarch64__)
  d.arch = "aarch64";
#elif defined(__wasm32__)
  d.arch = "wasm32";
#else
  d.arch = "unknown";
#endif
#if defined(__wasi__)
  d.os = "wasi";
#elif defined(_WIN32)
  d.os = "windows";
#elif defined(__APPLE__)
  d.os = "darwin";
#elif defined(__linux__)
  d.os = "linux";
#else
  d.os = "unknown";
#endif
  std::vector<std::string> flags;
  const auto info = cpuinfo();
  if (const std::string* m = info_get(info, "model name")) d.cpu_model = *m;
  else if (const std::string* m2 = info_get(info, "cpu model")) d.cpu_model = *m2;
#if (defined(__x86_64__) || defined(__i386__)) && !defined(_MSC_VER)
  std::optional<std::string> brand;
  flags = x86_flags(brand);
  if (!d.cpu_model) d.cpu_model = brand;
#elif defined(__aarch64__)
  flags = {"neon", "asimd"};  // AdvSIMD is mandatory on aarch64
#if defined(__linux__)
  const unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
  if (hw != 0) {
    if ((hw >> 20) & 1) flags.emplace_back("asimddp");
    if ((hw >> 9) & 1) flags.emplace_back("fphp");
    if ((hw >> 10) & 1) flags.emplace_back("asimdhp");
    if ((hw >> 22) & 1) flags.emplace_back("sve");
    if ((hw2 >> 1) & 1) flags.emplace_back("sve2");
    if ((hw2 >> 23) & 1) flags.emplace_back("sme");
    if ((hw2 >> 13) & 1) flags.emplace_back("i8mm");
    if ((hw2 >> 14) & 1) flags.emplace_back("bf16");
  } else if (const std::string* feats = info_get(info, "features")) {
    for (const auto& w : split_words(*feats)) flags.push_back(w);
  }
#elif defined(__APPLE__)
  auto feat = [&](const char* key, std::initializer_list<const char*> names) {
    if (auto v = sysctl_int(key); v && *v)
      for (const char* n : names) flags.emplace_back(n);
  };
  feat("hw.optional.arm.FEAT_DotProd", {"asimddp"});
  feat("hw.optional.arm.FEAT_FP16", {"fphp", "asimdhp"});
  feat("hw.optional.arm.FEAT_I8MM", {"i8mm"});
  feat("hw.optional.arm.FEAT_BF16", {"bf16"});
  feat("hw.optional.arm.FEAT_SME", {"sme"});
#endif
#endif
#if defined(__APPLE__)
  if (!d.cpu_model) {
    char brand_s[256] = {};
    size_t n = sizeof brand_s - 1;
    if (sysctlbyname("machdep.cpu.brand_string", brand_s, &n, nullptr, 0) == 0 && brand_s[0]) d.cpu_model = trim(brand_s);
  }
  if (auto v = sysctl_int("hw.l1dcachesize")) d.l1d_kib = static_cast<int>(*v / 1024);
  if (auto v = sysctl_int("hw.l2cachesize")) d.l2_kib = static_cast<int>(*v / 1024);
  if (auto v = sysctl_int("hw.l3cachesize"); v && *v) d.l3_kib = static_cast<int>(*v / 1024);
#endif
#if defined(__linux__)
  linux_caches(d);
#endif
  static const char* const relevant[] = {
      "sse4_2",      "avx",         "avx2",        "fma",      "f16c",     "bmi2",     "avx512f",
      "avx512bw",    "avx512vl",    "avx512dq",    "avx512cd", "avx512_vnni", "avx512_bf16", "avx512_fp16",
      "amx_tile",    "amx_bf16",    "amx_int8",    "neon",     "asimd",    "asimddp",  "fphp",
      "asimdhp",     "sve",         "sve2",        "sme",      "i8mm",     "bf16"};
  for (const char* r : relevant)
    if (has(flags, r)) d.isa_flags += (d.isa_flags.empty() ? "" : " ") + std::string(r);
  d.isa_level = level_of(d.arch, flags);
#if defined(EP_SINGLE_THREADED)
  d.cores = 1;
#else
  d.cores = static_cast<int>(std::thread::hardware_concurrency());
  if (d.cores <= 0) d.cores = 1;
#endif
  std::string id = machine_id();
  if (id == "unknown" && !key_dir.empty()) id = "random:" + stored_key(key_dir);
  d.machine_key = sha256::hex("everypath machine key v1\n" + id);
  d.device_class = device_class(d);
  return d;
}

}  // namespace ep::device
