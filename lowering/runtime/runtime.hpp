// lowering._runtime: calls kernels compiled by everypath through the plain C
// ABI of variants/include/everypath/abi.h.
//
//   lib = Library("/path/kernel.so")              # dlopen + ABI version check
//   fn = lib.bind("ep_call_kernel", signature)    # signature: dict from the compiler
//   fn(x, k=3)                                    # Python -> ep_value -> kernel -> Python
//
// The signature dict is validated and compiled into C++ structs once, in
// bind(), so that a call only walks small vectors: binding arguments, checking
// NumPy arrays through pybind11's view of the array struct, filling ep_values
// in a stack buffer and converting results back.
//
// Libraries are never dlclose()d: arrays returned by a kernel may outlive the
// Library object, and their capsules call the library's ep_release().
//
// This header is internal to the module: the declarations its translation
// units share.
//   signature.cpp  dtype table, NumPy lookups, signature descriptor -> Type/Param
//   arguments.cpp  binding and converting Python arguments to ep_values
//   results.cpp    ep_value results (and kernel errors) back to Python
//   generators.cpp generator results (EP_KIND_GEN): a Python iterator resuming the kernel's coroutine
//   module.cpp     Function::call, Library, PYBIND11_MODULE
//   telemetry.cpp  the runtime shim's hub: kernels attach on load, Python drains it
// Everything lives in namespace ep_runtime; the extension is built with
// -fvisibility=hidden, so none of it is exported from the .so.

#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "everypath/abi.h"
#include "everypath/half.hpp"

namespace ep_runtime {

namespace py = pybind11;

using py::detail::npy_api;

// --------------------------------------------------------------------------
// dtypes

struct DtypeInfo {
  const char* name;     // NumPy's name, also the signature's spelling
  int itemsize;         // bytes
  char kind;            // 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex
  const char* py_name;  // Python type a py=True scalar becomes
};

// Indexed by ep_dtype: the order is the ABI's.
inline constexpr std::array<DtypeInfo, 14> kDtypes = {{
    {"bool", 1, 'b', "bool"},
    {"int8", 1, 'i', "int"},
    {"int16", 2, 'i', "int"},
    {"int32", 4, 'i', "int"},
    {"int64", 8, 'i', "int"},
    {"uint8", 1, 'u', "int"},
    {"uint16", 2, 'u', "int"},
    {"uint32", 4, 'u', "int"},
    {"uint64", 8, 'u', "int"},
    {"float32", 4, 'f', "float"},
    {"float64", 8, 'f', "float"},
    {"complex64", 8, 'c', "complex"},
    {"complex128", 16, 'c', "complex"},
    {"float16", 2, 'f', "float"},
}};

// ep_dtype for a NumPy dtype name, -1 if unsupported.
int dtype_from_name(const std::string& name);

// A byte order that is not the host's: NumPy writes native order as '='.
inline constexpr char kSwappedByteOrder = std::endian::native == std::endian::little ? '>' : '<';

// NumPy objects looked up once at import. Held as leaked strong references:
// they live as long as the interpreter, and leaking avoids decref-at-exit order
// problems.
struct NumpyState {
  // NumPy type_num -> ep_dtype (-1 if unsupported). Several type_nums map to
  // one ep dtype (e.g. NPY_LONG and NPY_LONGLONG are both int64 on Linux).
  std::array<int, 32> from_type_num{};
  std::array<PyObject*, kDtypes.size()> dtype{};        // numpy.dtype('float64') ...
  PyTypeObject* np_bool = nullptr;
  PyTypeObject* np_integer = nullptr;
  PyTypeObject* np_floating = nullptr;
  PyTypeObject* np_complexfloating = nullptr;
  PyObject* np_array = nullptr;  // numpy.array, for the (slow) copy path
};

// Set once by init_numpy_state() when the module is imported.
inline NumpyState* g_np = nullptr;

void init_numpy_state();

// --------------------------------------------------------------------------
// Errors

// Sets a Python exception and throws it through pybind11.
[[noreturn]] inline void raise(PyObject* exc_type, const std::string& message) {
  PyErr_SetString(exc_type, message.c_str());
  throw py::error_already_set();
}

// --------------------------------------------------------------------------
// Compiled signature

enum class Kind { Array, Scalar, Tuple, List, None, Str, Dict, Set, Enum, Record, Gen, Union };
// cls(*fields) (dataclass, NamedTuple); object.__new__ + setattr (plain class); cls(**fields) (pydantic)
enum class RecordBuild { Call, New, Keywords };

struct Type {
  Kind kind = Kind::None;
  int dtype = -1;          // array element / scalar dtype (ep_dtype)
  int ndim = 0;            // arrays
  bool torch = false;      // arrays: a torch.Tensor at the boundary (tensors.cpp)
  bool py = true;          // scalars: Python scalar (true) or NumPy scalar
  std::vector<Type> items; // tuple items; a list's element is items[0]; a dict's key, value
  int64_t nslots = 0;      // ep_value slots it flattens to
  std::string text;        // annotation-like spelling for error messages
  // enums and records of the user's module (lowering/records.py): the class, found by module and qualname
  py::object cls;
  py::object members;              // enums: tuple(cls), in definition order; the kernel passes an index into it
  std::vector<std::string> fields;  // records: field names, one per item
  RecordBuild build = RecordBuild::Call;  // records: how a result is built (lowering/signature.py _BUILD)
  bool identity = false;           // mutable record results: their struct's address first, one slot (records.hpp)
  py::object allowed;              // Literal[...] parameters: the values a call may pass (a tuple), else empty
  bool seq = false;                // lists of other than scalars/str: one EP_KIND_SEQ slot of items (results)
};

struct Param {
  std::string name;
  py::str pyname;  // interned, for fast keyword matching
  Type type;
  std::string annotation;
  bool mutated = false;
  bool has_default = false;
  py::object default_value;
  int64_t first_slot = 0;
};

constexpr int kMaxTupleDepth = 32;

// A signature dict, validated: what Library::bind needs to build a Function.
struct ParsedSignature {
  std::string name;
  std::vector<Param> params;
  Type result;
  bool release_gil = true;  // "release_gil": false for kernels whose work is bounded and small
};

// Raises ValueError("invalid signature: signature[...]: ...") on any defect.
ParsedSignature parse_signature(const py::object& signature);

// --------------------------------------------------------------------------
// Small buffer for per-call state: inline storage for the common case, heap
// (zeroed) beyond it. The inline storage is left as it is: callers initialise
// what they read (a memset of a size known only at run time becomes `rep stos`,
// whose start-up cost dominated a call with a few arguments).

template <class T, size_t N>
class CallBuffer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit CallBuffer(size_t n) {
    if (n > N) {
      heap_ = std::make_unique<T[]>(n);  // value-initialized: zero
      data_ = heap_.get();
    } else {
      data_ = inline_;
    }
  }
  // Every element zero: the inline array as a whole (a fixed size: a few vector stores).
  void zero() {
    if (!heap_) std::memset(static_cast<void*>(inline_), 0, sizeof(inline_));
  }
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  T inline_[N];
  std::unique_ptr<T[]> heap_;
  T* data_;
};

// What a kernel or the result conversion reads before anything else writes it:
// the header fields and the pointers (the converters fill in the rest).
inline void clear_value(ep_value& v) {
  v.kind = EP_KIND_NONE;
  v.dtype = 0;
  v.ndim = 0;
  v.flags = 0;
  v.data = nullptr;
  v.owner = nullptr;
}

// --------------------------------------------------------------------------
// Calls

// One array argument slot: the object the caller gave and the array actually
// passed (a contiguous copy when the original could not be passed as is).
struct ArraySlot {
  PyObject* original;
  PyObject* passed;
};

class Generator;  // generators.cpp

class Function {
 public:
  Function(std::string name, py::object signature, std::vector<Param> params, Type result,
           ep_entry_fn entry, ep_release_fn release, std::string symbol, bool release_gil)
      : name_(std::move(name)),
        signature_(std::move(signature)),
        params_(std::move(params)),
        result_(std::move(result)),
        entry_(entry),
        release_(release),
        symbol_(std::move(symbol)),
        release_gil_(release_gil) {
    for (Param& p : params_) {
      p.first_slot = nargs_;
      nargs_ += p.type.nslots;
      if (!p.has_default) ++nrequired_;
    }
  }

  const std::string& name() const { return name_; }
  const py::object& signature() const { return signature_; }
  const std::string& symbol() const { return symbol_; }

  // args: a tuple; kwargs: a dict or NULL.  (module.cpp)
  py::object call(PyObject* args, PyObject* kwargs) const;
  // The dispatcher's entry (fastcall.h): vectorcall-style arguments, plus values for the last
  // nhidden parameters (module arrays), which callers can neither pass nor name.  (module.cpp)
  py::object vcall(PyObject* const* args, size_t npos, PyObject* kwnames, PyObject* const* hidden,
                   size_t nhidden) const;

 private:
  // Where a call's arguments come from: a tuple and dict (tp_call) or a vectorcall array.
  struct ArgSource {
    PyObject* const* pos = nullptr;
    size_t npos = 0;
    PyObject* kwnames = nullptr;             // vectorcall: names of the values after pos
    PyObject* kwdict = nullptr;              // tp_call: a dict, or NULL
    PyObject* const* hidden = nullptr;       // the last nhidden parameters' values
    size_t nhidden = 0;
  };

  // Binds, converts, calls the kernel without the GIL and converts back.  (module.cpp)
  py::object invoke(const ArgSource& src) const;

  // Per-call state shared by argument and result conversion.
  struct CallState {
    explicit CallState(size_t nargs, size_t nres) : args(nargs), slots(nargs), results(nres) {
      for (size_t i = 0; i < nargs; ++i) clear_value(args[i]);
      for (size_t i = 0; i < nres; ++i) clear_value(results[i]);
    }
    CallBuffer<ep_value, 8> args;
    CallBuffer<ArraySlot, 8> slots;  // read only for array arguments, which set it
    CallBuffer<ep_value, 4> results;
    std::vector<py::object> copies;  // keeps contiguous copies alive during the call
    std::vector<std::vector<ep_value>> seqs;  // dict arguments' entries (EP_KIND_SEQ)
    std::unordered_map<int64_t, py::object> shared;  // results: struct address -> its one Python object
  };

  // Where an argument error happened: the parameter and tuple item indices.
  struct ArgPath {
    explicit ArgPath(const Param* p) : param(p) {}  // index[] left unset: only [0, depth) is read
    const Param* param;
    int depth = 0;
    std::array<int, kMaxTupleDepth + 1> index;
  };

  // arguments.cpp
  void bind_arguments(const ArgSource& src, PyObject** bound) const;
  size_t bind_keyword(PyObject* key, size_t nbindable) const;
  void convert_arg(PyObject* obj, const Type& t, bool mutated, CallState& st, int64_t& slot,
                   ArgPath& path) const;
  void convert_array_arg(PyObject* obj, const Type& t, bool mutated, CallState& st, int64_t slot,
                         ArgPath& path) const;
  void convert_scalar_arg(PyObject* obj, const Type& t, ep_value& v, ArgPath& path) const;
  void convert_dict_arg(PyObject* obj, const Type& t, CallState& st, ep_value& out, ArgPath& path) const;
  void convert_union_arg(PyObject* obj, const Type& t, bool mutated, CallState& st, int64_t& slot,
                         ArgPath& path) const;
  std::string arg_label(const ArgPath& path) const;
  void check_allowed(PyObject* obj, const Type& t, const ArgPath& path) const;
  [[noreturn]] void arg_type_error(PyObject* obj, const Type& t, const ArgPath& path) const;
  // a plain class's instance holds exactly the attributes its __init__ sets (TypeError naming the parameter)
  void check_attributes(PyObject* obj, const Type& t, const ArgPath& path) const;

  // results.cpp
  // vals: the ep_values to read (a dict entry's); by default the call's results
  py::object convert_result(const Type& t, CallState& st, int64_t& slot, ep_value* vals = nullptr) const;
  py::object convert_dict(const Type& t, ep_value& v, CallState& st) const;
  // a record: cls(*fields), a plain class's instance (object.__new__, attributes set), a pydantic model (cls(**fields))
  py::object build_record(const Type& t, CallState& st, int64_t& slot, ep_value* vals) const;
  py::object convert_array_result(ep_value& v, CallState& st) const;
  py::object borrowed_array(const ep_value& v, CallState& st) const;
  // an array result as its type says: a tensor (torch), else the NumPy view of a tensor argument
  py::object tensor_result(py::object a, bool torch, CallState& st) const;
  py::object scalar_to_python(const void* data, int dtype, bool py) const;
  [[noreturn]] void raise_kernel_error(const ep_error& err, int rc) const;
  void release_results(CallState& st) const;

  // generators.cpp: a generator result becomes a Generator object, which resumes it through next_item
  friend class Generator;
  py::object convert_generator(const Type& t, ep_value& v, CallState& st) const;
  py::object next_item(Generator& g) const;

  std::string name_;
  py::object signature_;
  std::vector<Param> params_;
  Type result_;
  ep_entry_fn entry_;
  ep_release_fn release_;
  std::string symbol_;
  bool release_gil_ = true;
  int64_t nargs_ = 0;
  size_t nrequired_ = 0;
};

// tensors.cpp: torch.Tensor arguments and results (lowering/torch_boundary.py is the Python side)
void init_torch_state();  // once, when a signature holding a tensor is parsed
bool is_tensor(PyObject* obj);  // false until init_torch_state
// The NumPy view a tensor argument crosses as (label: the parameter, "x" or "x[1]"); a TypeError
// naming it when the tensor cannot cross
py::object tensor_view(PyObject* tensor, const std::string& fname, const std::string& label);
py::object tensor_from(const py::object& array);  // torch.from_numpy
bool has_torch(const Type& t);
std::string torch_broadcast_message(const std::string& numpy_message);

// telemetry.cpp
void attach_telemetry(void* handle);  // hand a freshly loaded kernel library the process's hub
void def_telemetry(py::module_& m);

// generators.cpp
void def_generators(py::module_& m);

}  // namespace ep_runtime
