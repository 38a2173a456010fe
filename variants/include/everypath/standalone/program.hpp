// The static description of one executable's function (lowering/standalone.py writes it):
// the C ABI's argument slots with the .npz member each is read from, the parameters, the
// result slots, the embedded selection table, and the unit's entry points.
#pragma once

#include <cstdint>

#include "../abi.h"

namespace ep::tele {
struct Hub;
}

namespace ep::standalone {


// One argument slot of the C ABI (a scalar or an array leaf of a parameter).
struct Slot {
  const char* key;       // the .npz member without ".npy": x, pair_0, pair_1_0
  const char* label;     // how messages name a tuple item: pair[1][0]
  const char* expected;  // "a float64 array of rank 2 (np.ndarray[...])"
  int32_t kind;          // EP_KIND_SCALAR / EP_KIND_ARRAY
  int32_t dtype;         // ep_dtype
  int32_t ndim;          // arrays
  int32_t py;            // a Python int/float/bool/complex (accepts other dtypes that hold its value)
  int32_t has_default;   // scalars: def_* hold the value (by the dtype's kind)
  int64_t def_i;
  uint64_t def_u;
  double def_re, def_im;
};

struct Param {
  const char* name;
  int32_t first, count;  // its slots
  int32_t has_default;
  const char* keys;  // its members, for messages: "pair_0, pair_1"
};

struct Result {
  const char* key;  // result, result_0, ...
  int32_t kind, dtype, ndim;
};

// A selection table (base/selection_table.py), validated and pre-parsed at build time.
struct TableEntry {
  const char* op;
  const int64_t* bounds;
  int32_t nbounds;
  const char* variants;  // comma-separated, one more than bounds
  const char* topk;      // per variant slot, comma-separated candidates, slots separated by '|' ("": none)
};
struct TableClass {
  const char* device_class;  // or "*"
  const TableEntry* entries;
  int32_t n;
};
struct Table {
  const char* version;
  const TableClass* classes;
  int32_t n;
};

struct Program {
  const char* name;
  const char* usage;  // the --help text
  const Slot* args;
  int32_t nargs;
  const Param* params;
  int32_t nparams;
  const Result* results;
  int32_t nresults;
  const Table* table;  // nullptr: the built-in thresholds choose
  ep_entry_fn entry;
  void (*release)(void*);
  int32_t (*attach)(ep::tele::Hub*);
};

}  // namespace ep::standalone
