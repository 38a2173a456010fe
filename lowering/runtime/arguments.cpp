// Python arguments -> ep_values: binding positional and keyword arguments to
// parameters (CPython's error wording), checking NumPy arrays against the
// signature through pybind11's view of the array struct (no Python calls on
// the fast path), and converting scalars with NumPy's range checks.

#include <algorithm>
#include <string>
#include <vector>

#include "runtime.hpp"

namespace ep_runtime {

namespace {

std::string describe(PyObject* obj) {
  if (npy_api::get().PyArray_Check_(obj)) {
    py::array a = py::reinterpret_borrow<py::array>(obj);
    return "ndarray of dtype " + py::str(a.dtype()).cast<std::string>() + " with ndim " +
           std::to_string(a.ndim());
  }
  if (PyTuple_Check(obj)) return "tuple of length " + std::to_string(PyTuple_GET_SIZE(obj));
  if (is_tensor(obj)) {
    py::handle h(obj);
    return "Tensor of dtype " + py::str(h.attr("dtype")).cast<std::string>() + " with ndim " +
           py::str(h.attr("ndim")).cast<std::string>();
  }
  return Py_TYPE(obj)->tp_name;  // "int", "numpy.float32", ...
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

}  // namespace

// "'x'" or, inside tuples, "'x[1][0]'".
std::string Function::arg_label(const ArgPath& path) const {
  std::string s = "'" + path.param->name;
  for (int i = 0; i < path.depth; ++i) s += "[" + std::to_string(path.index[i]) + "]";
  return s + "'";
}

void Function::arg_type_error(PyObject* obj, const Type& t, const ArgPath& path) const {
  // Top-level arguments are described by the compiler's own annotation.
  const std::string& expected =
      path.depth == 0 && !path.param->annotation.empty() ? path.param->annotation : t.text;
  throw py::type_error(name_ + "() argument " + arg_label(path) + ": expected " + expected +
                       ", got " + describe(obj));
}

void Function::check_attributes(PyObject* obj, const Type& t, const ArgPath& path) const {
  PyObject** dict = _PyObject_GetDictPtr(obj);
  PyObject* attrs = dict != nullptr ? *dict : nullptr;
  const std::string where = name_ + "() argument " + arg_label(path) + ": " + t.text + " instance ";
  for (const std::string& f : t.fields) {
    if (attrs == nullptr || PyDict_GetItemString(attrs, f.c_str()) == nullptr) {
      throw py::type_error(where + "has no attribute '" + f + "' (compiled code reads the attributes its __init__ sets)");
    }
  }
  if (attrs != nullptr && PyDict_Size(attrs) != static_cast<Py_ssize_t>(t.fields.size())) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(attrs, &pos, &key, &value)) {
      const char* k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : nullptr;
      if (k == nullptr || std::find(t.fields.begin(), t.fields.end(), k) == t.fields.end()) {
        throw py::type_error(where + "has attribute '" + std::string(k ? k : "?") +
                             "', which its __init__ does not set: compiled code would lose it");
      }
    }
  }
}

// The parameter a keyword names, among the first nbindable; nbindable if none.
size_t Function::bind_keyword(PyObject* key, size_t nbindable) const {
  for (size_t i = 0; i < nbindable; ++i) {  // interned names: usually a pointer match
    if (params_[i].pyname.ptr() == key) return i;
  }
  for (size_t i = 0; i < nbindable; ++i) {
    int eq = PyUnicode_Check(key) ? PyUnicode_Compare(params_[i].pyname.ptr(), key) : -1;
    if (eq == 0) return i;
  }
  return nbindable;
}

void Function::bind_arguments(const ArgSource& src, PyObject** bound) const {
  // Hidden parameters (module arrays) are the last ones: the caller sees the others only.
  const size_t nparams = params_.size() - src.nhidden;
  const size_t nrequired = nrequired_ - src.nhidden;  // hidden parameters have no defaults
  const size_t npos = src.npos;
  if (npos > nparams) {
    std::string takes;
    if (nrequired < nparams) {
      takes = "from " + std::to_string(nrequired) + " to " + std::to_string(nparams) +
              " positional arguments";
    } else {
      takes = std::to_string(nparams) + (nparams == 1 ? " positional argument" : " positional arguments");
    }
    throw py::type_error(name_ + "() takes " + takes + " but " + std::to_string(npos) +
                         (npos == 1 ? " was given" : " were given"));
  }
  for (size_t i = 0; i < npos; ++i) bound[i] = src.pos[i];
  for (size_t i = 0; i < src.nhidden; ++i) bound[nparams + i] = src.hidden[i];

  auto keyword = [&](PyObject* key, PyObject* value) {
    const size_t i = bind_keyword(key, nparams);
    if (i == nparams) {
      throw py::type_error(name_ + "() got an unexpected keyword argument " + py::repr(key).cast<std::string>());
    }
    if (bound[i] != nullptr) {
      throw py::type_error(name_ + "() got multiple values for argument '" + params_[i].name + "'");
    }
    bound[i] = value;
  };
  if (src.kwnames != nullptr) {
    const Py_ssize_t nkw = PyTuple_GET_SIZE(src.kwnames);
    for (Py_ssize_t k = 0; k < nkw; ++k) keyword(PyTuple_GET_ITEM(src.kwnames, k), src.pos[npos + k]);
  }
  if (src.kwdict != nullptr && PyDict_GET_SIZE(src.kwdict) > 0) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(src.kwdict, &pos, &key, &value)) keyword(key, value);
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
  PyObject* view = obj;  // the array the argument crosses as: itself, or a tensor's NumPy view
  if (t.torch && !api.PyArray_Check_(obj) && is_tensor(obj)) {
    const std::string label = arg_label(path);
    py::object arr = tensor_view(obj, name_, label.substr(1, label.size() - 2));
    view = arr.ptr();
    st.copies.push_back(std::move(arr));  // alive during the call
  }
  if (!api.PyArray_Check_(view)) arg_type_error(obj, t, path);
  auto* a = py::detail::array_proxy(view);
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

  PyObject* passed = view;
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
    py::object copy = py::reinterpret_borrow<py::object>(g_np->np_array)(py::handle(view), **kw);
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

void Function::convert_scalar_arg(PyObject* obj, const Type& t, ep_value& v, ArgPath& path) const {
  // The common cases first: a Python float for a float64, a Python int for an int64.
  if (t.dtype == EP_FLOAT64 && PyFloat_CheckExact(obj)) {
    v.kind = EP_KIND_SCALAR;
    v.dtype = EP_FLOAT64;
    store<double>(v, PyFloat_AS_DOUBLE(obj));
    return;
  }
  if (t.dtype == EP_INT64 && PyLong_CheckExact(obj)) {
    int over = 0;
    const long long s = PyLong_AsLongLongAndOverflow(obj, &over);
    if (s == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (over == 0) {
      v.kind = EP_KIND_SCALAR;
      v.dtype = EP_INT64;
      store<int64_t>(v, s);
      return;
    }  // out of range: the general path below says so
  }
  const ScalarCategory cat = classify_scalar(obj);
  if (cat > max_category(t.dtype)) arg_type_error(obj, t, path);  // includes Other
  // A bool for a Python int/float parameter: CPython would keep it a bool (`return k` gives True,
  // str(k) 'True', True * 2 an int), which one compiled slot cannot carry, so it is refused.
  if (cat == ScalarCategory::Bool && t.py && kDtypes[t.dtype].kind != 'b') arg_type_error(obj, t, path);
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
      case 'f':
        if (info.itemsize == 2) store<uint16_t>(v, ep::half(static_cast<float>(b)).bits);  // float16
        else info.itemsize == 4 ? store<float>(v, static_cast<float>(b)) : store<double>(v, b);
        return;
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
    if (info.itemsize == 2) store<uint16_t>(v, ep::half(re).bits);  // float16: rounded once from the double, as NumPy casts
    else info.itemsize == 4 ? store<float>(v, static_cast<float>(re)) : store<double>(v, re);
  } else {
    info.itemsize == 8 ? store(v, std::array<float, 2>{static_cast<float>(re), static_cast<float>(im)})
                       : store(v, std::array<double, 2>{re, im});
  }
}

// A dict argument (keys and values scalars or str: signature.cpp) as EP_KIND_SEQ: two slots per
// entry, in the dict's order. Str items point into the dict's own objects, alive during the call.
void Function::convert_dict_arg(PyObject* obj, const Type& t, CallState& st, ep_value& out, ArgPath& path) const {
  if (!PyDict_Check(obj)) arg_type_error(obj, t, path);
  const Py_ssize_t n = PyDict_GET_SIZE(obj);
  st.seqs.emplace_back(static_cast<size_t>(2 * n));
  std::vector<ep_value>& vals = st.seqs.back();
  for (ep_value& v : vals) clear_value(v);
  Py_ssize_t pos = 0, i = 0;
  PyObject *key = nullptr, *value = nullptr;
  while (PyDict_Next(obj, &pos, &key, &value)) {
    for (int part = 0; part < 2; ++part) {
      PyObject* item = part == 0 ? key : value;
      const Type& it = t.items[static_cast<size_t>(part)];
      ep_value& v = vals[static_cast<size_t>(2 * i + part)];
      bool ok = true;
      if (it.kind == Kind::Str) {
        ok = PyUnicode_Check(item);
        if (ok) {
          Py_ssize_t size = 0;
          const char* utf8 = PyUnicode_AsUTF8AndSize(item, &size);
          if (utf8 == nullptr) throw py::error_already_set();
          v.kind = EP_KIND_STR;
          v.data = const_cast<char*>(utf8);
          v.shape[0] = size;
          v.shape[1] = PyUnicode_GET_LENGTH(item);
          v.shape[2] = PyUnicode_IS_ASCII(item) ? 1 : 0;
        }
      } else {
        try {
          convert_scalar_arg(item, it, v, path);
        } catch (py::type_error&) {
          ok = false;
        }
      }
      if (!ok) {
        const std::string expected = path.depth == 0 && !path.param->annotation.empty() ? path.param->annotation : t.text;
        throw py::type_error(name_ + "() argument " + arg_label(path) + ": expected " + expected + ", got a dict with " +
                             (part == 0 ? "a key " : "a value ") + py::repr(item).cast<std::string>() + " of type " +
                             Py_TYPE(item)->tp_name + " (" + (part == 0 ? "keys" : "values") + " must be " + it.text + ")");
      }
    }
    ++i;
  }
  out.kind = EP_KIND_SEQ;
  out.ndim = 1;
  out.shape[0] = n;
  out.shape[1] = 2;
  out.data = vals.data();
}

// A Literal[...] parameter: the value (already of the literal's type) must be one of the literals; a bool
// matches only a bool literal and an int only an int one (True == 1, but Literal[1] does not allow True).
void Function::check_allowed(PyObject* obj, const Type& t, const ArgPath& path) const {
  const Py_ssize_t n = PyTuple_GET_SIZE(t.allowed.ptr());
  std::string names;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* a = PyTuple_GET_ITEM(t.allowed.ptr(), i);
    if (PyBool_Check(a) == PyBool_Check(obj)) {
      const int eq = PyObject_RichCompareBool(obj, a, Py_EQ);
      if (eq < 0) throw py::error_already_set();
      if (eq == 1) return;
    }
    names += (i ? ", " : "") + py::repr(a).cast<std::string>();
  }
  const std::string what = path.depth == 0 ? "parameter " : "argument ";
  raise(PyExc_ValueError, name_ + "(): " + what + arg_label(path) + " must be one of " + names + "; got " +
                              py::repr(obj).cast<std::string>());
}

namespace {

// Whether obj is of exactly the Python kind a union member m names (a bool is no int here, an np.float64
// no float): the member a value of that kind is kept as, so `int | float` keeps an int an int.
bool exact_member(PyObject* obj, const Type& m) {
  switch (m.kind) {
    case Kind::None: return obj == Py_None;
    case Kind::Str: return PyUnicode_Check(obj);
    case Kind::Tuple: return PyTuple_Check(obj) && PyTuple_GET_SIZE(obj) == static_cast<Py_ssize_t>(m.items.size());
    case Kind::Enum:
    case Kind::Record: return Py_TYPE(obj) == reinterpret_cast<PyTypeObject*>(m.cls.ptr());
    case Kind::Scalar:
      if (!m.py) return false;  // NumPy scalar members: the fallback below converts as a plain parameter does
      switch (kDtypes[m.dtype].kind) {
        case 'b': return PyBool_Check(obj);
        case 'i': return PyLong_CheckExact(obj);
        case 'f': return PyFloat_CheckExact(obj);
        case 'c': return PyComplex_CheckExact(obj);
        default: return false;
      }
    default: return false;
  }
}

}  // namespace

// A union parameter (`x: int | None`): its tag slot, then every member's slots; the member is the one of
// the argument's own Python kind, else the first that converts it as a plain parameter of that type
// would (an int for `float | None`). Neither: the TypeError naming the parameter and the union.
void Function::convert_union_arg(PyObject* obj, const Type& t, bool mutated, CallState& st, int64_t& slot,
                                 ArgPath& path) const {
  const int64_t tag = slot++;
  std::vector<int64_t> first(t.items.size());
  size_t pick = t.items.size();
  for (size_t i = 0; i < t.items.size(); ++i) {
    first[i] = i ? first[i - 1] + t.items[i - 1].nslots : slot;
    if (pick == t.items.size() && exact_member(obj, t.items[i])) pick = i;
  }
  bool done = false;
  if (pick < t.items.size()) {
    int64_t s = first[pick];
    convert_arg(obj, t.items[pick], mutated, st, s, path);
    done = true;
  }
  for (size_t i = 0; !done && i < t.items.size(); ++i) {
    int64_t s = first[i];
    try {
      convert_arg(obj, t.items[i], mutated, st, s, path);
      pick = i;
      done = true;
    } catch (py::type_error&) {  // not this member: the next one
    }
  }
  if (!done) arg_type_error(obj, t, path);
  ep_value& v = st.args[tag];
  v.kind = EP_KIND_SCALAR;
  v.dtype = EP_INT64;
  store<int64_t>(v, static_cast<int64_t>(pick));
  slot = first.back() + t.items.back().nslots;
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
      if (t.allowed) check_allowed(obj, t, path);
      return;
    case Kind::Enum: {  // a member of exactly that class, passed as its index
      if (Py_TYPE(obj) != reinterpret_cast<PyTypeObject*>(t.cls.ptr())) arg_type_error(obj, t, path);
      const Py_ssize_t n = PyTuple_GET_SIZE(t.members.ptr());
      Py_ssize_t i = 0;
      while (i < n && PyTuple_GET_ITEM(t.members.ptr(), i) != obj) ++i;
      if (i == n) arg_type_error(obj, t, path);  // not a canonical member (cannot happen for a real member)
      ep_value& v = st.args[slot++];
      v.kind = EP_KIND_SCALAR;
      v.dtype = EP_INT64;
      store<int64_t>(v, static_cast<int64_t>(i));
      return;
    }
    case Kind::Record: {  // an instance of exactly that class: its fields converted by their annotations
      if (Py_TYPE(obj) != reinterpret_cast<PyTypeObject*>(t.cls.ptr())) arg_type_error(obj, t, path);
      if (path.depth >= kMaxTupleDepth) arg_type_error(obj, t, path);
      if (t.build == RecordBuild::New) check_attributes(obj, t, path);
      ++path.depth;
      for (size_t i = 0; i < t.items.size(); ++i) {
        path.index[path.depth - 1] = static_cast<int>(i);
        py::object field = py::reinterpret_steal<py::object>(PyObject_GetAttrString(obj, t.fields[i].c_str()));
        if (!field) throw py::error_already_set();
        PyObject* item = field.ptr();
        st.copies.push_back(std::move(field));  // alive during the call: str fields are read in place
        convert_arg(item, t.items[i], mutated, st, slot, path);
      }
      --path.depth;
      return;
    }
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
    case Kind::Str: {
      // The UTF-8 form CPython caches in the object (the object's own bytes when it is ASCII),
      // read for the call only: the kernel copies it first.
      if (!PyUnicode_Check(obj)) arg_type_error(obj, t, path);
      Py_ssize_t size = 0;
      const char* utf8 = PyUnicode_AsUTF8AndSize(obj, &size);
      if (utf8 == nullptr) throw py::error_already_set();  // lone surrogates: UnicodeEncodeError
      ep_value& v = st.args[slot++];
      v.kind = EP_KIND_STR;
      v.data = const_cast<char*>(utf8);
      v.shape[0] = size;
      v.shape[1] = PyUnicode_GET_LENGTH(obj);
      v.shape[2] = PyUnicode_IS_ASCII(obj) ? 1 : 0;
      if (t.allowed) check_allowed(obj, t, path);
      return;
    }
    case Kind::Dict:
      convert_dict_arg(obj, t, st, st.args[slot++], path);
      return;
    case Kind::Union:
      convert_union_arg(obj, t, mutated, st, slot, path);
      return;
    case Kind::List:
    case Kind::Set:
    case Kind::Gen:
      break;  // rejected when the signature is parsed
  }
  throw py::type_error(name_ + "(): unsupported parameter type " + t.text);
}


}  // namespace ep_runtime
