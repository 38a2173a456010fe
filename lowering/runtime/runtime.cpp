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

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <dlfcn.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "everypath/abi.h"

namespace py = pybind11;

namespace {

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
constexpr std::array<DtypeInfo, 13> kDtypes = {{
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
}};

int dtype_from_name(const std::string& name) {
  for (size_t i = 0; i < kDtypes.size(); ++i) {
    if (name == kDtypes[i].name) return static_cast<int>(i);
  }
  return -1;
}

// A byte order that is not the host's: NumPy writes native order as '='.
constexpr char kSwappedByteOrder = std::endian::native == std::endian::little ? '>' : '<';

// NumPy objects looked up once at import. Held as leaked strong references:
// they live as long as the interpreter, and leaking avoids decref-at-exit order
// problems.
struct NumpyState {
  // NumPy type_num -> ep_dtype (-1 if unsupported). Several type_nums map to
  // one ep dtype (e.g. NPY_LONG and NPY_LONGLONG are both int64 on Linux).
  std::array<int, 32> from_type_num{};
  std::array<PyObject*, 13> dtype{};        // numpy.dtype('float64') ...
  std::array<PyObject*, 13> scalar_type{};  // numpy.float64 ...
  PyTypeObject* np_bool = nullptr;
  PyTypeObject* np_integer = nullptr;
  PyTypeObject* np_floating = nullptr;
  PyTypeObject* np_complexfloating = nullptr;
  PyObject* np_array = nullptr;  // numpy.array, for the (slow) copy path
};

NumpyState* g_np = nullptr;

void init_numpy_state() {
  auto* st = new NumpyState();
  st->from_type_num.fill(-1);
  py::module_ np = py::module_::import("numpy");
  for (size_t i = 0; i < kDtypes.size(); ++i) {
    py::object dt = np.attr("dtype")(kDtypes[i].name);
    st->dtype[i] = dt.release().ptr();
    st->scalar_type[i] = py::object(np.attr("dtype")(kDtypes[i].name).attr("type")).release().ptr();
  }
  // Every C type character NumPy knows for our dtypes, so that aliases such
  // as 'q' (long long) and 'l' (long) both map to int64.
  for (const char* c = "?bBhHiIlLqQfdFD"; *c; ++c) {
    py::object dt = np.attr("dtype")(std::string(1, *c));
    int num = dt.attr("num").cast<int>();
    int ep = dtype_from_name(dt.attr("name").cast<std::string>());
    if (num >= 0 && num < static_cast<int>(st->from_type_num.size())) st->from_type_num[num] = ep;
  }
  auto type_of = [&](const char* name) {
    return reinterpret_cast<PyTypeObject*>(py::object(np.attr(name)).release().ptr());
  };
  st->np_bool = type_of("bool_");
  st->np_integer = type_of("integer");
  st->np_floating = type_of("floating");
  st->np_complexfloating = type_of("complexfloating");
  st->np_array = py::object(np.attr("array")).release().ptr();
  g_np = st;
}

// --------------------------------------------------------------------------
// Errors

[[noreturn]] void raise(PyObject* exc_type, const std::string& message) {
  PyErr_SetString(exc_type, message.c_str());
  throw py::error_already_set();
}

// --------------------------------------------------------------------------
// Compiled signature

enum class Kind { Array, Scalar, Tuple, List, None };

struct Type {
  Kind kind = Kind::None;
  int dtype = -1;          // array element / scalar dtype (ep_dtype)
  int ndim = 0;            // arrays
  bool py = true;          // scalars: Python scalar (true) or NumPy scalar
  std::vector<Type> items; // tuple items; a list's element is items[0]
  int64_t nslots = 0;      // ep_value slots it flattens to
  std::string text;        // annotation-like spelling for error messages
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

// Builds "signature['params'][0]['type']" style locations for ValueErrors.
struct FieldPath {
  std::string text;
  FieldPath key(const std::string& k) const { return {text + "['" + k + "']"}; }
  FieldPath index(size_t i) const { return {text + "[" + std::to_string(i) + "]"}; }
};

[[noreturn]] void bad_field(const FieldPath& where, const std::string& what) {
  throw py::value_error("invalid signature: " + where.text + ": " + what);
}

py::dict require_dict(py::handle obj, const FieldPath& where) {
  if (!PyDict_Check(obj.ptr())) {
    bad_field(where, std::string("expected a dict, got ") + Py_TYPE(obj.ptr())->tp_name);
  }
  return py::reinterpret_borrow<py::dict>(obj);
}

py::object require_key(const py::dict& d, const char* key, const FieldPath& where) {
  PyObject* v = PyDict_GetItemString(d.ptr(), key);  // borrowed, no exception
  if (v == nullptr) bad_field(where.key(key), "missing");
  return py::reinterpret_borrow<py::object>(v);
}

std::string require_str(const py::dict& d, const char* key, const FieldPath& where) {
  py::object v = require_key(d, key, where);
  if (!PyUnicode_Check(v.ptr())) {
    bad_field(where.key(key), std::string("expected a str, got ") + Py_TYPE(v.ptr())->tp_name);
  }
  return v.cast<std::string>();
}

bool optional_bool(const py::dict& d, const char* key, bool fallback, const FieldPath& where) {
  PyObject* v = PyDict_GetItemString(d.ptr(), key);
  if (v == nullptr) return fallback;
  if (!PyBool_Check(v)) {
    bad_field(where.key(key), std::string("expected a bool, got ") + Py_TYPE(v)->tp_name);
  }
  return v == Py_True;
}

std::string scalar_text(int dtype, bool py) {
  if (py) return kDtypes[dtype].py_name;
  return std::string("np.") + (dtype == EP_BOOL ? "bool_" : kDtypes[dtype].name);
}

std::string array_text(int dtype, int ndim) {
  std::string shape;
  if (ndim == 0) {
    shape = "()";
  } else {
    for (int i = 0; i < ndim; ++i) shape += i ? ", int" : "int";
  }
  return "np.ndarray[tuple[" + shape + "], np.dtype[" + scalar_text(dtype, false) + "]]";
}

Type parse_type(py::handle obj, const FieldPath& where, bool is_result, int depth) {
  if (depth > kMaxTupleDepth) bad_field(where, "types nested too deeply");
  py::dict d = require_dict(obj, where);
  std::string kind = require_str(d, "kind", where);
  Type t;
  auto parse_dtype = [&] {
    std::string name = require_str(d, "dtype", where);
    int dt = dtype_from_name(name);
    if (dt < 0) bad_field(where.key("dtype"), "unsupported dtype '" + name + "'");
    return dt;
  };
  if (kind == "array") {
    t.kind = Kind::Array;
    t.dtype = parse_dtype();
    py::object nd = require_key(d, "ndim", where);
    if (!PyLong_Check(nd.ptr()) || PyBool_Check(nd.ptr())) bad_field(where.key("ndim"), "expected an int");
    long long ndim = nd.cast<long long>();
    if (ndim < 0 || ndim > EP_MAX_NDIM) {
      bad_field(where.key("ndim"), "must be between 0 and " + std::to_string(EP_MAX_NDIM) +
                                       ", got " + std::to_string(ndim));
    }
    t.ndim = static_cast<int>(ndim);
    t.nslots = 1;
    t.text = array_text(t.dtype, t.ndim);
  } else if (kind == "scalar") {
    t.kind = Kind::Scalar;
    t.dtype = parse_dtype();
    t.py = optional_bool(d, "py", true, where);
    t.nslots = 1;
    t.text = scalar_text(t.dtype, t.py);
  } else if (kind == "tuple") {
    t.kind = Kind::Tuple;
    py::object items = require_key(d, "items", where);
    if (!PyList_Check(items.ptr()) && !PyTuple_Check(items.ptr())) {
      bad_field(where.key("items"), "expected a list");
    }
    t.text = "tuple[";
    size_t i = 0;
    for (py::handle item : items) {
      t.items.push_back(parse_type(item, where.key("items").index(i), is_result, depth + 1));
      t.nslots += t.items.back().nslots;
      t.text += (i ? ", " : "") + t.items.back().text;
      ++i;
    }
    t.text += i ? "]" : "()]";
  } else if (kind == "list") {
    if (!is_result) bad_field(where.key("kind"), "'list' is only supported for results");
    t.kind = Kind::List;
    Type elem = parse_type(require_key(d, "elem", where), where.key("elem"), is_result, depth + 1);
    if (elem.kind != Kind::Scalar) bad_field(where.key("elem"), "list elements must be scalars");
    t.text = "list[" + elem.text + "]";
    t.items.push_back(std::move(elem));
    t.nslots = 1;  // transported as one 1-d array
  } else if (kind == "none") {
    t.kind = Kind::None;
    t.nslots = 0;
    t.text = "None";
  } else {
    bad_field(where.key("kind"), "unknown kind '" + kind + "'");
  }
  return t;
}

// --------------------------------------------------------------------------
// Small buffer for per-call state: inline storage for the common case, heap
// beyond it. Contents are zeroed.

template <class T, size_t N>
class ZeroedBuffer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit ZeroedBuffer(size_t n) {
    if (n > N) {
      heap_ = std::make_unique<T[]>(n);  // value-initialized: zero
      data_ = heap_.get();
    } else {
      data_ = inline_;
      std::memset(static_cast<void*>(inline_), 0, n * sizeof(T));
    }
  }
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  T inline_[N];
  std::unique_ptr<T[]> heap_;
  T* data_;
};

// --------------------------------------------------------------------------
// Calls

// One array argument slot: the object the caller gave and the array actually
// passed (a contiguous copy when the original could not be passed as is).
struct ArraySlot {
  PyObject* original;
  PyObject* passed;
};

class Function {
 public:
  Function(std::string name, py::object signature, std::vector<Param> params, Type result,
           ep_entry_fn entry, ep_release_fn release, std::string symbol)
      : name_(std::move(name)),
        signature_(std::move(signature)),
        params_(std::move(params)),
        result_(std::move(result)),
        entry_(entry),
        release_(release),
        symbol_(std::move(symbol)) {
    for (Param& p : params_) {
      p.first_slot = nargs_;
      nargs_ += p.type.nslots;
      if (!p.has_default) ++nrequired_;
    }
  }

  const std::string& name() const { return name_; }
  const py::object& signature() const { return signature_; }
  const std::string& symbol() const { return symbol_; }

  // args: a tuple; kwargs: a dict or NULL.
  py::object call(PyObject* args, PyObject* kwargs) const;

 private:
  // Per-call state shared by argument and result conversion.
  struct CallState {
    explicit CallState(size_t nargs, size_t nres) : args(nargs), slots(nargs), results(nres) {}
    ZeroedBuffer<ep_value, 8> args;
    ZeroedBuffer<ArraySlot, 8> slots;
    ZeroedBuffer<ep_value, 4> results;
    std::vector<py::object> copies;  // keeps contiguous copies alive during the call
  };

  // Where an argument error happened: the parameter and tuple item indices.
  struct ArgPath {
    explicit ArgPath(const Param* p) : param(p) {}  // index[] left unset: only [0, depth) is read
    const Param* param;
    int depth = 0;
    std::array<int, kMaxTupleDepth + 1> index;
  };

  void bind_arguments(PyObject* args, PyObject* kwargs, PyObject** bound) const;
  void convert_arg(PyObject* obj, const Type& t, bool mutated, CallState& st, int64_t& slot,
                   ArgPath& path) const;
  void convert_array_arg(PyObject* obj, const Type& t, bool mutated, CallState& st, int64_t slot,
                         ArgPath& path) const;
  void convert_scalar_arg(PyObject* obj, const Type& t, ep_value& v, ArgPath& path) const;

  py::object convert_result(const Type& t, CallState& st, int64_t& slot) const;
  py::object convert_array_result(ep_value& v, CallState& st) const;
  py::object borrowed_array(const ep_value& v, CallState& st) const;
  py::object scalar_to_python(const void* data, int dtype, bool py) const;
  [[noreturn]] void raise_kernel_error(const ep_error& err, int rc) const;
  void release_results(CallState& st) const;

  std::string arg_label(const ArgPath& path) const;
  [[noreturn]] void arg_type_error(PyObject* obj, const Type& t, const ArgPath& path) const;

  std::string name_;
  py::object signature_;
  std::vector<Param> params_;
  Type result_;
  ep_entry_fn entry_;
  ep_release_fn release_;
  std::string symbol_;
  int64_t nargs_ = 0;
  size_t nrequired_ = 0;
};

// "'x'" or, inside tuples, "'x[1][0]'".
std::string Function::arg_label(const ArgPath& path) const {
  std::string s = "'" + path.param->name;
  for (int i = 0; i < path.depth; ++i) s += "[" + std::to_string(path.index[i]) + "]";
  return s + "'";
}

std::string describe(PyObject* obj) {
  if (npy_api::get().PyArray_Check_(obj)) {
    py::array a = py::reinterpret_borrow<py::array>(obj);
    return "ndarray of dtype " + py::str(a.dtype()).cast<std::string>() + " with ndim " +
           std::to_string(a.ndim());
  }
  if (PyTuple_Check(obj)) return "tuple of length " + std::to_string(PyTuple_GET_SIZE(obj));
  return Py_TYPE(obj)->tp_name;  // "int", "numpy.float32", ...
}

void Function::arg_type_error(PyObject* obj, const Type& t, const ArgPath& path) const {
  // Top-level arguments are described by the compiler's own annotation.
  const std::string& expected =
      path.depth == 0 && !path.param->annotation.empty() ? path.param->annotation : t.text;
  throw py::type_error(name_ + "() argument " + arg_label(path) + ": expected " + expected +
                       ", got " + describe(obj));
}

// CPython's wording for missing arguments: 'a', 'a' and 'b', 'a', 'b', and 'c'.
std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += names.size() == 2 ? " and " : (i + 1 == names.size() ? ", and " : ", ");
    s += "'" + names[i] + "'";
  }
  return s;
}

void Function::bind_arguments(PyObject* args, PyObject* kwargs, PyObject** bound) const {
  const size_t nparams = params_.size();
  const size_t npos = PyTuple_GET_SIZE(args);
  if (npos > nparams) {
    std::string takes;
    if (nrequired_ < nparams) {
      takes = "from " + std::to_string(nrequired_) + " to " + std::to_string(nparams) +
              " positional arguments";
    } else {
      takes = std::to_string(nparams) + (nparams == 1 ? " positional argument" : " positional arguments");
    }
    throw py::type_error(name_ + "() takes " + takes + " but " + std::to_string(npos) +
                         (npos == 1 ? " was given" : " were given"));
  }
  for (size_t i = 0; i < npos; ++i) bound[i] = PyTuple_GET_ITEM(args, i);

  if (kwargs != nullptr && PyDict_GET_SIZE(kwargs) > 0) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      size_t i = 0;
      for (; i < nparams; ++i) {  // interned names: usually a pointer match
        if (params_[i].pyname.ptr() == key) break;
      }
      if (i == nparams) {
        for (i = 0; i < nparams; ++i) {
          int eq = PyUnicode_Check(key) ? PyUnicode_Compare(params_[i].pyname.ptr(), key) : -1;
          if (eq == 0) break;
        }
      }
      if (i == nparams) {
        throw py::type_error(name_ + "() got an unexpected keyword argument " +
                             py::repr(key).cast<std::string>());
      }
      if (bound[i] != nullptr) {
        throw py::type_error(name_ + "() got multiple values for argument '" + params_[i].name + "'");
      }
      bound[i] = value;
    }
  }

  std::vector<std::string> missing;
  for (size_t i = npos; i < nparams; ++i) {
    if (bound[i] != nullptr) continue;
    if (params_[i].has_default) {
      bound[i] = params_[i].default_value.ptr();
    } else {
      missing.push_back(params_[i].name);
    }
  }
  if (!missing.empty()) {
    throw py::type_error(name_ + "() missing " + std::to_string(missing.size()) + " required positional argument" +
                         (missing.size() == 1 ? "" : "s") + ": " + join_names(missing));
  }
}

void Function::convert_array_arg(PyObject* obj, const Type& t, bool mutated, CallState& st,
                                 int64_t slot, ArgPath& path) const {
  const npy_api& api = npy_api::get();
  if (!api.PyArray_Check_(obj)) arg_type_error(obj, t, path);
  auto* a = py::detail::array_proxy(obj);
  auto* descr = reinterpret_cast<py::detail::PyArrayDescr_Proxy*>(a->descr);
  const int type_num = descr->type_num;
  const int dtype = type_num >= 0 && type_num < static_cast<int>(g_np->from_type_num.size())
                        ? g_np->from_type_num[type_num]
                        : -1;
  if (dtype != t.dtype || a->nd != t.ndim) arg_type_error(obj, t, path);
  if (mutated && !(a->flags & npy_api::NPY_ARRAY_WRITEABLE_)) {
    raise(PyExc_ValueError, name_ + "() argument " + arg_label(path) + ": assignment destination is read-only");
  }

  // Kernels index with element-sized, aligned, native-order accesses.
  const int64_t itemsize = kDtypes[dtype].itemsize;
  bool passable = (a->flags & npy_api::NPY_ARRAY_ALIGNED_) && descr->byteorder != kSwappedByteOrder;
  for (int i = 0; i < a->nd && passable; ++i) passable = a->strides[i] % itemsize == 0;

  PyObject* passed = obj;
  if (!passable) {
    if (mutated) {
      raise(PyExc_ValueError, name_ + "() argument " + arg_label(path) +
                                  ": cannot be written in place: the array must be aligned, in native "
                                  "byte order, with strides that are multiples of its itemsize");
    }
    py::dict kw;
    kw["dtype"] = py::handle(g_np->dtype[dtype]);
    kw["order"] = "C";
    kw["copy"] = true;
    py::object copy = py::reinterpret_borrow<py::object>(g_np->np_array)(py::handle(obj), **kw);
    passed = copy.ptr();
    st.copies.push_back(std::move(copy));
    a = py::detail::array_proxy(passed);
  }

  ep_value& v = st.args[slot];
  v.kind = EP_KIND_ARRAY;
  v.dtype = dtype;
  v.ndim = a->nd;
  for (int i = 0; i < a->nd; ++i) {
    v.shape[i] = a->dimensions[i];
    v.strides[i] = a->strides[i];
  }
  v.data = a->data;
  st.slots[slot] = {obj, passed};
}

// Value categories a scalar argument can be in, ordered so that each dtype
// accepts a prefix: bool < int < float < complex.
enum class ScalarCategory { Bool = 0, Int = 1, Float = 2, Complex = 3, Other = 4 };

ScalarCategory classify_scalar(PyObject* obj) {
  if (PyBool_Check(obj)) return ScalarCategory::Bool;
  if (PyLong_Check(obj)) return ScalarCategory::Int;
  if (PyFloat_Check(obj)) return ScalarCategory::Float;      // includes numpy.float64
  if (PyComplex_Check(obj)) return ScalarCategory::Complex;  // includes numpy.complex128
  PyTypeObject* tp = Py_TYPE(obj);
  if (PyType_IsSubtype(tp, g_np->np_bool)) return ScalarCategory::Bool;
  if (PyType_IsSubtype(tp, g_np->np_integer)) return ScalarCategory::Int;
  if (PyType_IsSubtype(tp, g_np->np_floating)) return ScalarCategory::Float;
  if (PyType_IsSubtype(tp, g_np->np_complexfloating)) return ScalarCategory::Complex;
  return ScalarCategory::Other;
}

ScalarCategory max_category(int dtype) {
  switch (kDtypes[dtype].kind) {
    case 'b': return ScalarCategory::Bool;
    case 'i':
    case 'u': return ScalarCategory::Int;
    case 'f': return ScalarCategory::Float;
    default: return ScalarCategory::Complex;
  }
}

template <class T>
void store(ep_value& v, T x) {
  static_assert(sizeof(T) <= sizeof(v.scalar));
  std::memcpy(v.scalar.bytes, &x, sizeof(T));
}

void Function::convert_scalar_arg(PyObject* obj, const Type& t, ep_value& v, ArgPath& path) const {
  const ScalarCategory cat = classify_scalar(obj);
  if (cat > max_category(t.dtype)) arg_type_error(obj, t, path);  // includes Other
  v.kind = EP_KIND_SCALAR;
  v.dtype = t.dtype;
  const DtypeInfo& info = kDtypes[t.dtype];

  int b = 0;
  if (cat == ScalarCategory::Bool) {
    b = PyObject_IsTrue(obj);
    if (b < 0) throw py::error_already_set();
    switch (info.kind) {
      case 'b': store<uint8_t>(v, static_cast<uint8_t>(b)); return;
      case 'i':
      case 'u': break;  // stored below as an integer
      case 'f': info.itemsize == 4 ? store<float>(v, static_cast<float>(b)) : store<double>(v, b); return;
      default:
        info.itemsize == 8 ? store(v, std::array<float, 2>{static_cast<float>(b), 0.f})
                           : store(v, std::array<double, 2>{static_cast<double>(b), 0.0});
        return;
    }
  }

  // Integers (Python int subclasses or numpy.integer via __index__).
  py::object index_holder;
  PyObject* as_int = nullptr;
  if (cat == ScalarCategory::Bool) {
    as_int = b ? Py_True : Py_False;
  } else if (cat == ScalarCategory::Int) {
    if (PyLong_Check(obj)) {
      as_int = obj;
    } else {
      index_holder = py::reinterpret_steal<py::object>(PyNumber_Index(obj));
      if (!index_holder) throw py::error_already_set();
      as_int = index_holder.ptr();
    }
  }

  if (info.kind == 'i' || info.kind == 'u') {
    auto overflow = [&]() -> void {
      PyErr_Clear();
      raise(PyExc_OverflowError, name_ + "() argument " + arg_label(path) + ": Python integer " +
                                     py::repr(as_int).cast<std::string>() + " out of bounds for " +
                                     info.name);
    };
    int over = 0;
    long long s = PyLong_AsLongLongAndOverflow(as_int, &over);
    if (s == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (info.kind == 'i') {
      const int bits = info.itemsize * 8;
      const long long lo = bits == 64 ? INT64_MIN : -(1LL << (bits - 1));
      const long long hi = bits == 64 ? INT64_MAX : (1LL << (bits - 1)) - 1;
      if (over != 0 || s < lo || s > hi) overflow();
      switch (info.itemsize) {
        case 1: store<int8_t>(v, static_cast<int8_t>(s)); break;
        case 2: store<int16_t>(v, static_cast<int16_t>(s)); break;
        case 4: store<int32_t>(v, static_cast<int32_t>(s)); break;
        default: store<int64_t>(v, s); break;
      }
    } else {
      unsigned long long u;
      if (over < 0 || (over == 0 && s < 0)) overflow();
      if (over > 0) {
        u = PyLong_AsUnsignedLongLong(as_int);
        if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) overflow();
      } else {
        u = static_cast<unsigned long long>(s);
      }
      const int bits = info.itemsize * 8;
      if (bits < 64 && u > (1ULL << bits) - 1) overflow();
      switch (info.itemsize) {
        case 1: store<uint8_t>(v, static_cast<uint8_t>(u)); break;
        case 2: store<uint16_t>(v, static_cast<uint16_t>(u)); break;
        case 4: store<uint32_t>(v, static_cast<uint32_t>(u)); break;
        default: store<uint64_t>(v, u); break;
      }
    }
    return;
  }

  // Floating and complex targets.
  double re = 0.0, im = 0.0;
  if (as_int != nullptr) {
    re = PyLong_AsDouble(as_int);
    if (re == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      raise(PyExc_OverflowError, name_ + "() argument " + arg_label(path) +
                                     ": int too large to convert to " + info.name);
    }
  } else if (cat == ScalarCategory::Float) {
    re = PyFloat_AsDouble(obj);  // numpy.float32/float16/longdouble via __float__
    if (re == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  } else {
    Py_complex c = PyComplex_AsCComplex(obj);
    if (c.real == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    re = c.real;
    im = c.imag;
  }
  if (info.kind == 'f') {
    info.itemsize == 4 ? store<float>(v, static_cast<float>(re)) : store<double>(v, re);
  } else {
    info.itemsize == 8 ? store(v, std::array<float, 2>{static_cast<float>(re), static_cast<float>(im)})
                       : store(v, std::array<double, 2>{re, im});
  }
}

void Function::convert_arg(PyObject* obj, const Type& t, bool mutated, CallState& st,
                           int64_t& slot, ArgPath& path) const {
  switch (t.kind) {
    case Kind::Array:
      convert_array_arg(obj, t, mutated, st, slot, path);
      ++slot;
      return;
    case Kind::Scalar:
      convert_scalar_arg(obj, t, st.args[slot], path);
      ++slot;
      return;
    case Kind::None:
      if (obj != Py_None) arg_type_error(obj, t, path);
      return;
    case Kind::Tuple: {
      if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != static_cast<Py_ssize_t>(t.items.size())) {
        arg_type_error(obj, t, path);
      }
      ++path.depth;
      for (size_t i = 0; i < t.items.size(); ++i) {
        path.index[path.depth - 1] = static_cast<int>(i);
        convert_arg(PyTuple_GET_ITEM(obj, i), t.items[i], mutated, st, slot, path);
      }
      --path.depth;
      return;
    }
    case Kind::List:
      break;  // rejected when the signature is parsed
  }
  throw py::type_error(name_ + "(): unsupported parameter type " + t.text);
}

// --------------------------------------------------------------------------
// Results

// Releases every owner the kernel handed out that has not been given to a
// capsule yet (those are reset to NULL as they are taken).
void Function::release_results(CallState& st) const {
  for (int64_t i = 0; i < result_.nslots; ++i) {
    if (st.results[i].owner != nullptr) {
      void* owner = std::exchange(st.results[i].owner, nullptr);
      release_(owner);
    }
  }
}

void Function::raise_kernel_error(const ep_error& err, int rc) const {
  std::string type(err.type, strnlen(err.type, sizeof(err.type)));
  std::string message(err.message, strnlen(err.message, sizeof(err.message)));
  if (type.empty()) {
    raise(PyExc_RuntimeError, name_ + "() failed with code " + std::to_string(rc) +
                                  (message.empty() ? "" : ": " + message));
  }
  PyObject* exc_type = PyDict_GetItemString(PyEval_GetBuiltins(), type.c_str());  // borrowed
  if (exc_type == nullptr || !PyType_Check(exc_type) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(exc_type),
                        reinterpret_cast<PyTypeObject*>(PyExc_BaseException))) {
    raise(PyExc_RuntimeError, type + ": " + message);
  }
  // Instantiate now: some builtins (UnicodeDecodeError, ...) need more than a
  // message; fall back to RuntimeError for those.
  PyObject* exc = PyObject_CallOneArg(exc_type, py::str(message).ptr());
  if (exc == nullptr) {
    PyErr_Clear();
    raise(PyExc_RuntimeError, type + ": " + message);
  }
  PyErr_SetObject(exc_type, exc);
  Py_DECREF(exc);
  throw py::error_already_set();
}

// The capsule that keeps a kernel-owned buffer alive: pointer = owner,
// context = the library's ep_release.
constexpr const char* kOwnerCapsule = "everypath.owner";

void release_owner_capsule(PyObject* capsule) {
  void* owner = PyCapsule_GetPointer(capsule, kOwnerCapsule);
  auto release = reinterpret_cast<ep_release_fn>(PyCapsule_GetContext(capsule));
  if (owner != nullptr && release != nullptr) release(owner);
}

int64_t element_count(const ep_value& v) {
  int64_t n = 1;
  for (int i = 0; i < v.ndim; ++i) n *= v.shape[i];
  return n;
}

// Byte range [lo, hi) spanned by an array's elements.
std::pair<intptr_t, intptr_t> byte_span(const ep_value& v) {
  intptr_t lo = reinterpret_cast<intptr_t>(v.data), hi = lo;
  if (element_count(v) == 0) return {lo, hi};
  for (int i = 0; i < v.ndim; ++i) {
    const intptr_t extent = static_cast<intptr_t>(v.shape[i] - 1) * v.strides[i];
    (extent < 0 ? lo : hi) += extent;
  }
  return {lo, hi + kDtypes[v.dtype].itemsize};
}

bool same_layout(const ep_value& a, const ep_value& b) {
  if (a.data != b.data || a.dtype != b.dtype || a.ndim != b.ndim) return false;
  for (int i = 0; i < a.ndim; ++i) {
    if (a.shape[i] != b.shape[i] || a.strides[i] != b.strides[i]) return false;
  }
  return true;
}

py::array make_array(const ep_value& v, py::handle base) {
  std::vector<py::ssize_t> shape(v.shape, v.shape + v.ndim), strides(v.strides, v.strides + v.ndim);
  py::dtype dt = py::reinterpret_borrow<py::dtype>(g_np->dtype[v.dtype]);
  return py::array(dt, std::move(shape), std::move(strides), v.data, base);
}

// A result whose memory belongs to one of the arguments (owner == NULL).
py::object Function::borrowed_array(const ep_value& v, CallState& st) const {
  // `return x` keeps NumPy's identity: the exact argument, if any matches.
  for (int64_t i = 0; i < nargs_; ++i) {
    const ep_value& a = st.args[i];
    if (a.kind == EP_KIND_ARRAY && same_layout(a, v)) {
      // For a contiguous copy, the caller's object stands for it: the kernel
      // did not write it (copies are never made for mutated arguments).
      return py::reinterpret_borrow<py::object>(st.slots[i].original);
    }
  }
  const auto [rlo, rhi] = byte_span(v);
  const bool empty = rlo == rhi;
  for (int64_t i = 0; i < nargs_; ++i) {
    const ep_value& a = st.args[i];
    if (a.kind != EP_KIND_ARRAY) continue;
    const auto [lo, hi] = byte_span(a);
    // An empty view may point one past the end of its argument.
    const bool inside = empty ? (rlo >= lo && rlo <= hi) : (rlo >= lo && rhi <= hi);
    if (inside) return make_array(v, st.slots[i].passed);
  }
  raise(PyExc_RuntimeError, "internal error: borrowed result not found in arguments");
}

py::object Function::convert_array_result(ep_value& v, CallState& st) const {
  if (v.owner == nullptr) return borrowed_array(v, st);
  void* owner = std::exchange(v.owner, nullptr);
  // From here on the capsule owns `owner`: it releases it exactly once, when
  // the array (or, if array creation fails, the capsule itself) dies.
  PyObject* raw = PyCapsule_New(owner, kOwnerCapsule, release_owner_capsule);
  if (raw == nullptr) {
    release_(owner);
    throw py::error_already_set();
  }
  py::capsule capsule = py::reinterpret_steal<py::capsule>(raw);
  PyCapsule_SetContext(raw, reinterpret_cast<void*>(release_));
  if (v.data == nullptr) {
    if (element_count(v) != 0) raise(PyExc_RuntimeError, "internal error: kernel returned a NULL array");
    // Nothing to point at: a fresh empty array; the capsule dies with this frame.
    std::vector<py::ssize_t> shape(v.shape, v.shape + v.ndim);
    return py::array(py::reinterpret_borrow<py::dtype>(g_np->dtype[v.dtype]), std::move(shape));
  }
  return make_array(v, capsule);
}

template <class T>
T load(const void* p) {
  T x;
  std::memcpy(&x, p, sizeof(T));
  return x;
}

py::object Function::scalar_to_python(const void* p, int dtype, bool py_scalar) const {
  PyObject* out = nullptr;
  switch (dtype) {
    case EP_BOOL: out = PyBool_FromLong(load<uint8_t>(p) != 0); break;
    case EP_INT8: out = PyLong_FromLong(load<int8_t>(p)); break;
    case EP_INT16: out = PyLong_FromLong(load<int16_t>(p)); break;
    case EP_INT32: out = PyLong_FromLong(load<int32_t>(p)); break;
    case EP_INT64: out = PyLong_FromLongLong(load<int64_t>(p)); break;
    case EP_UINT8: out = PyLong_FromUnsignedLong(load<uint8_t>(p)); break;
    case EP_UINT16: out = PyLong_FromUnsignedLong(load<uint16_t>(p)); break;
    case EP_UINT32: out = PyLong_FromUnsignedLong(load<uint32_t>(p)); break;
    case EP_UINT64: out = PyLong_FromUnsignedLongLong(load<uint64_t>(p)); break;
    case EP_FLOAT32: out = PyFloat_FromDouble(load<float>(p)); break;
    case EP_FLOAT64: out = PyFloat_FromDouble(load<double>(p)); break;
    case EP_COMPLEX64: {
      auto c = load<std::array<float, 2>>(p);
      out = PyComplex_FromDoubles(c[0], c[1]);
      break;
    }
    case EP_COMPLEX128: {
      auto c = load<std::array<double, 2>>(p);
      out = PyComplex_FromDoubles(c[0], c[1]);
      break;
    }
    default: raise(PyExc_RuntimeError, "internal error: bad scalar dtype");
  }
  if (out == nullptr) throw py::error_already_set();
  auto value = py::reinterpret_steal<py::object>(out);
  if (py_scalar) return value;
  // numpy.float32(v) etc.: exact, since v came from that dtype.
  PyObject* np_value = PyObject_CallOneArg(g_np->scalar_type[dtype], value.ptr());
  if (np_value == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(np_value);
}

[[noreturn]] void bad_result(const std::string& fn, const Type& t, const ep_value& v) {
  raise(PyExc_RuntimeError, "internal error: " + fn + "() returned kind " + std::to_string(v.kind) +
                                " dtype " + std::to_string(v.dtype) + " ndim " + std::to_string(v.ndim) +
                                " where " + t.text + " was expected");
}

py::object Function::convert_result(const Type& t, CallState& st, int64_t& slot) const {
  switch (t.kind) {
    case Kind::None: return py::none();
    case Kind::Scalar: {
      ep_value& v = st.results[slot++];
      if (v.kind != EP_KIND_SCALAR || v.dtype != t.dtype) bad_result(name_, t, v);
      return scalar_to_python(v.scalar.bytes, t.dtype, t.py);
    }
    case Kind::Array: {
      ep_value& v = st.results[slot++];
      if (v.kind != EP_KIND_ARRAY || v.dtype != t.dtype || v.ndim != t.ndim) bad_result(name_, t, v);
      return convert_array_result(v, st);
    }
    case Kind::List: {
      ep_value& v = st.results[slot++];
      const Type& elem = t.items[0];
      if (v.kind != EP_KIND_ARRAY || v.dtype != elem.dtype || v.ndim != 1) bad_result(name_, t, v);
      const int64_t n = v.shape[0];
      if (n > 0 && v.data == nullptr) raise(PyExc_RuntimeError, "internal error: kernel returned a NULL array");
      py::list out(n);
      const char* p = static_cast<const char*>(v.data);
      for (int64_t i = 0; i < n; ++i, p += v.strides[0]) {
        PyList_SET_ITEM(out.ptr(), i, scalar_to_python(p, elem.dtype, elem.py).release().ptr());
      }
      if (v.owner != nullptr) release_(std::exchange(v.owner, nullptr));
      return out;
    }
    case Kind::Tuple: {
      py::tuple out(t.items.size());
      for (size_t i = 0; i < t.items.size(); ++i) {
        PyTuple_SET_ITEM(out.ptr(), i, convert_result(t.items[i], st, slot).release().ptr());
      }
      return out;
    }
  }
  raise(PyExc_RuntimeError, "internal error: bad result type");
}

py::object Function::call(PyObject* args, PyObject* kwargs) const {
  const size_t nparams = params_.size();
  ZeroedBuffer<PyObject*, 8> bound(nparams);  // borrowed references
  bind_arguments(args, kwargs, bound.data());

  CallState st(static_cast<size_t>(nargs_), static_cast<size_t>(result_.nslots));
  int64_t slot = 0;
  for (size_t i = 0; i < nparams; ++i) {
    ArgPath path(&params_[i]);
    convert_arg(bound[i], params_[i].type, params_[i].mutated, st, slot, path);
  }

  ep_error err;
  err.set = 0;
  err.type[0] = '\0';
  err.message[0] = '\0';
  int rc;
  {
    py::gil_scoped_release nogil;
    rc = entry_(st.args.data(), nargs_, st.results.data(), result_.nslots, &err);
  }
  if (rc != 0) {
    release_results(st);
    raise_kernel_error(err, rc);
  }
  try {
    int64_t rslot = 0;
    return convert_result(result_, st, rslot);
  } catch (...) {
    release_results(st);
    throw;
  }
}

// --------------------------------------------------------------------------
// Library

struct Library {
  std::string path;
  void* handle = nullptr;
  int abi_version = 0;
  ep_release_fn release = nullptr;

  explicit Library(std::string p) : path(std::move(p)) {
    {
      // dlopen runs static initializers: do not hold the GIL meanwhile.
      py::gil_scoped_release nogil;
      dlerror();
      handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    }
    if (handle == nullptr) {
      const char* e = dlerror();
      throw py::import_error("cannot load kernel library '" + path + "': " + (e ? e : "unknown error"));
    }
    auto version = reinterpret_cast<ep_abi_version_fn>(lookup("ep_abi_version"));
    release = reinterpret_cast<ep_release_fn>(lookup("ep_release"));
    if (version == nullptr || release == nullptr) {
      throw py::import_error("kernel library '" + path + "' does not export " +
                             (version == nullptr ? "ep_abi_version" : "ep_release") +
                             ": not an everypath kernel");
    }
    abi_version = version();
    if (abi_version != EP_ABI_VERSION) {
      throw py::import_error("kernel library '" + path + "' uses everypath ABI version " +
                             std::to_string(abi_version) + " but this runtime supports version " +
                             std::to_string(EP_ABI_VERSION) + "; recompile it");
    }
  }

  void* lookup(const std::string& symbol) const {
    dlerror();
    return dlsym(handle, symbol.c_str());
  }

  Function bind(const std::string& symbol, const py::object& signature) const {
    auto entry = reinterpret_cast<ep_entry_fn>(lookup(symbol));
    if (entry == nullptr) {
      throw py::attribute_error("kernel library '" + path + "' has no symbol '" + symbol + "'");
    }
    const FieldPath root{"signature"};
    py::dict sig = require_dict(signature, root);
    std::string name = require_str(sig, "name", root);
    py::object params_obj = require_key(sig, "params", root);
    if (!PyList_Check(params_obj.ptr()) && !PyTuple_Check(params_obj.ptr())) {
      bad_field(root.key("params"), "expected a list");
    }
    std::vector<Param> params;
    size_t i = 0;
    for (py::handle item : params_obj) {
      const FieldPath where = root.key("params").index(i++);
      py::dict pd = require_dict(item, where);
      Param p;
      p.name = require_str(pd, "name", where);
      for (const Param& other : params) {
        if (other.name == p.name) bad_field(where.key("name"), "duplicate parameter '" + p.name + "'");
      }
      PyObject* interned = PyUnicode_FromStringAndSize(p.name.data(), static_cast<Py_ssize_t>(p.name.size()));
      if (interned == nullptr) throw py::error_already_set();
      PyUnicode_InternInPlace(&interned);
      p.pyname = py::reinterpret_steal<py::str>(interned);
      p.type = parse_type(require_key(pd, "type", where), where.key("type"), false, 0);
      if (PyObject* ann = PyDict_GetItemString(pd.ptr(), "annotation")) {
        if (!PyUnicode_Check(ann)) bad_field(where.key("annotation"), "expected a str");
        p.annotation = py::reinterpret_borrow<py::str>(ann).cast<std::string>();
      }
      p.mutated = optional_bool(pd, "mutated", false, where);
      if (PyObject* dflt = PyDict_GetItemString(pd.ptr(), "default")) {
        p.has_default = true;
        p.default_value = py::reinterpret_borrow<py::object>(dflt);
      }
      params.push_back(std::move(p));
    }
    Type result = parse_type(require_key(sig, "result", root), root.key("result"), true, 0);
    return Function(std::move(name), signature, std::move(params), std::move(result), entry, release,
                    symbol);
  }
};

// tp_call of Function instances.
PyObject* function_tp_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  try {
    return py::handle(self).cast<const Function&>().call(args, kwargs).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();  // pybind11's own translation (error_already_set, ...)
    return nullptr;
  }
}

}  // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "Calls everypath-compiled kernels through the everypath C ABI (abi.h).";
  init_numpy_state();
  m.attr("ABI_VERSION") = EP_ABI_VERSION;
  m.attr("MAX_NDIM") = EP_MAX_NDIM;

  py::class_<Function> function(m, "Function", "A compiled kernel bound to its signature.");
  function
      .def("__call__",
           [](const Function& f, const py::args& args, const py::kwargs& kwargs) {
             return f.call(args.ptr(), kwargs.ptr());
           })
      .def_property_readonly("signature", &Function::signature)
      .def_property_readonly("symbol", &Function::symbol)
      .def("__repr__", [](const Function& f) {
        return "<everypath kernel " + f.name() + " (" + f.symbol() + ")>";
      });
  // fn(...) skips pybind11's generic dispatcher (overload resolution, building
  // py::args/py::kwargs): tp_call receives the argument tuple and dict as
  // they are. The __call__ above stays for introspection and fn.__call__().
  reinterpret_cast<PyTypeObject*>(function.ptr())->tp_call = &function_tp_call;
  // Instances answer __name__ like Python functions. Setting the attribute on
  // the class would rename the class itself, so the property goes straight
  // into the type's dict.
  py::object name_property =
      py::module_::import("builtins").attr("property")(py::cpp_function(&Function::name));
  auto* function_type = reinterpret_cast<PyTypeObject*>(function.ptr());
  if (PyDict_SetItemString(function_type->tp_dict, "__name__", name_property.ptr()) != 0) {
    throw py::error_already_set();
  }
  PyType_Modified(function_type);

  py::class_<Library>(m, "Library", "A kernel shared object, dlopen()ed and never closed.")
      .def(py::init<std::string>(), py::arg("path"))
      .def("bind", &Library::bind, py::arg("symbol"), py::arg("signature"))
      .def_readonly("path", &Library::path)
      .def_readonly("abi_version", &Library::abi_version)
      .def("__repr__", [](const Library& l) { return "<everypath Library '" + l.path + "'>"; });
}
