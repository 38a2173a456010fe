// ep_value results -> Python objects: scalars with CPython's or NumPy's type,
// arrays wrapped without copying (kernel-owned memory is kept alive by a
// capsule calling the library's ep_release; memory borrowed from an argument
// becomes that argument or a view of it), and kernel errors re-raised as the
// named builtin exception.

#include <string>
#include <utility>
#include <vector>

#include "runtime.hpp"

namespace ep_runtime {

namespace {

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

template <class T>
T load(const void* p) {
  T x;
  std::memcpy(&x, p, sizeof(T));
  return x;
}

[[noreturn]] void bad_result(const std::string& fn, const Type& t, const ep_value& v) {
  raise(PyExc_RuntimeError, "internal error: " + fn + "() returned kind " + std::to_string(v.kind) +
                                " dtype " + std::to_string(v.dtype) + " ndim " + std::to_string(v.ndim) +
                                " where " + t.text + " was expected");
}

// The user's source lines the error passed through (array.hpp: after the message's NUL)
// become the exception's traceback, ending at the line that raised, as CPython's does.
void attach_trace(PyObject* exc, const ep_error& err) {
  const size_t cap = sizeof(err.message);
  const size_t at = strnlen(err.message, cap) + 1;
  if (err.set != 1 || at >= cap || err.message[at] == 0) return;
  const std::string trace(err.message + at, strnlen(err.message + at, cap - at));
  try {
    py::object tb = py::module_::import("everypath.lowering.tracebacks").attr("synthetic_traceback")(trace);
    if (!tb.is_none()) PyException_SetTraceback(exc, tb.ptr());
  } catch (py::error_already_set&) {
    // no traceback rather than a different exception than the kernel's
  }
}

}  // namespace

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
  if (type == "ValueError" && message.rfind("operands could not be broadcast together with shapes ", 0) == 0) {
    bool torch = has_torch(result_);
    for (const Param& p : params_) torch = torch || has_torch(p.type);
    if (torch) {  // a function on tensors reports the RuntimeError torch gives for the same shapes
      message = torch_broadcast_message(message);
      type = "RuntimeError";
    }
  }
  if (type.empty()) {
    raise(PyExc_RuntimeError, name_ + "() failed with code " + std::to_string(rc) +
                                  (message.empty() ? "" : ": " + message));
  }
  PyObject* exc_type = PyDict_GetItemString(PyEval_GetBuiltins(), type.c_str());  // borrowed
  py::object dotted;  // "module.Name" (numpy.linalg.LinAlgError): imported, kept alive here
  if (exc_type == nullptr && type.find('.') != std::string::npos) {
    try {
      dotted = py::module_::import(type.substr(0, type.rfind('.')).c_str()).attr(type.substr(type.rfind('.') + 1).c_str());
      exc_type = dotted.ptr();
    } catch (py::error_already_set&) {
      exc_type = nullptr;
    }
  }
  if (exc_type == nullptr || !PyType_Check(exc_type) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(exc_type),
                        reinterpret_cast<PyTypeObject*>(PyExc_BaseException))) {
    raise(PyExc_RuntimeError, type + ": " + message);
  }
  // Instantiate now: some builtins (UnicodeDecodeError, ...) need more than a
  // message; fall back to RuntimeError for those.
  py::object arg = py::str(message);
  if (type == "KeyError") {  // dict.hpp sends repr(key): the exception carries the key itself, as CPython's
    try {
      arg = py::module_::import("ast").attr("literal_eval")(arg);
    } catch (py::error_already_set&) {
      // a key whose repr is no literal (nan): its text
    }
  }
  PyObject* exc = PyObject_CallOneArg(exc_type, arg.ptr());
  if (exc == nullptr) {
    PyErr_Clear();
    raise(PyExc_RuntimeError, type + ": " + message);
  }
  attach_trace(exc, err);
  PyErr_SetObject(exc_type, exc);  // keeps exc.__traceback__: the caller's frames go on top of it
  Py_DECREF(exc);
  throw py::error_already_set();
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

py::object Function::tensor_result(py::object a, bool torch, CallState& st) const {
  if (!is_tensor(a.ptr())) return torch ? tensor_from(a) : a;
  if (torch) return a;  // the argument tensor itself, as eager code returns it
  for (int64_t i = 0; i < nargs_; ++i) {  // x.numpy() of an argument x: the view it crossed as
    if (st.args[i].kind == EP_KIND_ARRAY && st.slots[i].original == a.ptr()) {
      return py::reinterpret_borrow<py::object>(st.slots[i].passed);
    }
  }
  return a;
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

py::object Function::scalar_to_python(const void* p, int dtype, bool py_scalar) const {
  if (!py_scalar) {  // numpy.float32(v) etc., straight from the bytes (they are in the dtype's layout)
    PyObject* np_value = npy_api::get().PyArray_Scalar_(const_cast<void*>(p), g_np->dtype[dtype], nullptr);
    if (np_value == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(np_value);
  }
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
    case EP_FLOAT16: out = PyFloat_FromDouble(static_cast<float>(ep::half::from_bits(load<uint16_t>(p)))); break;
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
  return py::reinterpret_steal<py::object>(out);
}

namespace {

// A str from a kernel's UTF-8 (valid: the kernel only ever builds it from str values).
PyObject* str_from_utf8(const char* data, int64_t size, int64_t length, bool ascii) {
  if (ascii) {
    PyObject* s = PyUnicode_New(length, 127);
    if (s != nullptr && length > 0) std::memcpy(PyUnicode_DATA(s), data, static_cast<size_t>(length));
    return s;
  }
  return PyUnicode_DecodeUTF8(data, size, "strict");
}

}  // namespace

namespace {

// Owners a kernel handed out inside a sequence that no conversion took (an error half-way).
void release_nested(ep_value* vals, int64_t n, ep_release_fn release) {
  for (int64_t i = 0; i < n; ++i) {
    if (vals[i].kind == EP_KIND_SEQ && vals[i].data != nullptr) {
      release_nested(static_cast<ep_value*>(vals[i].data), vals[i].shape[0] * vals[i].shape[1], release);
    }
    if (vals[i].owner != nullptr) release(std::exchange(vals[i].owner, nullptr));
  }
}

}  // namespace

// dict[K, V] and set[T] (abi.h, EP_KIND_SEQ): shape[0] entries of shape[1] slots each, key's then value's, in
// insertion order; a real dict is built from them, so key order and exact types are CPython's.
py::object Function::convert_dict(const Type& t, ep_value& v, CallState& st) const {
  auto* vals = static_cast<ep_value*>(v.data);
  const int64_t n = v.shape[0], per = v.shape[1];
  struct Guard {  // whatever happens, nothing the kernel handed out stays unreleased
    ep_value* vals;
    int64_t count;
    ep_value& seq;
    ep_release_fn release;
    ~Guard() {
      if (vals != nullptr) release_nested(vals, count, release);
      if (seq.owner != nullptr) release(std::exchange(seq.owner, nullptr));
      seq.data = nullptr;  // freed with its owner: an enclosing dict's release must not walk it
    }
  } guard{vals, n * per, v, release_};
  if (t.kind == Kind::List) {  // list[T] of T other than scalars/str: the entries are the items
    if (per != t.items[0].nslots) bad_result(name_, t, v);
    py::list items(n);
    for (int64_t i = 0; i < n; ++i) {
      int64_t s = i * per;
      PyList_SET_ITEM(items.ptr(), i, convert_result(t.items[0], st, s, vals).release().ptr());
    }
    return items;
  }
  if (t.kind == Kind::Set) {  // set[T]: the entries are the items, each of per slots
    if (per != t.items[0].nslots) bad_result(name_, t, v);
    py::set items;
    for (int64_t i = 0; i < n; ++i) {
      int64_t s = i * per;
      py::object item = convert_result(t.items[0], st, s, vals);
      if (PySet_Add(items.ptr(), item.ptr()) != 0) throw py::error_already_set();
    }
    return items;
  }
  if (per != t.items[0].nslots + t.items[1].nslots) bad_result(name_, t, v);
  py::dict out;
  for (int64_t i = 0; i < n; ++i) {
    int64_t s = i * per;
    py::object key = convert_result(t.items[0], st, s, vals);
    py::object value = convert_result(t.items[1], st, s, vals);
    if (PyDict_SetItem(out.ptr(), key.ptr(), value.ptr()) != 0) throw py::error_already_set();
  }
  return out;
}

py::object Function::build_record(const Type& t, CallState& st, int64_t& slot, ep_value* vals) const {
  if (t.build == RecordBuild::Call) {  // cls(*fields): a dataclass, a NamedTuple
    py::tuple items(t.items.size());
    for (size_t i = 0; i < t.items.size(); ++i) {
      PyTuple_SET_ITEM(items.ptr(), i, convert_result(t.items[i], st, slot, vals).release().ptr());
    }
    PyObject* r = PyObject_Call(t.cls.ptr(), items.ptr(), nullptr);
    if (r == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(r);
  }
  if (t.build == RecordBuild::Keywords) {  // pydantic: the model validates what compiled code built
    py::dict fields;
    for (size_t i = 0; i < t.items.size(); ++i) {
      fields[py::str(t.fields[i])] = convert_result(t.items[i], st, slot, vals);
    }
    PyObject* r = PyObject_Call(t.cls.ptr(), py::tuple().ptr(), fields.ptr());
    if (r == nullptr) throw py::error_already_set();  // pydantic's ValidationError, at the call
    return py::reinterpret_steal<py::object>(r);
  }
  // a plain class: __init__ already ran in compiled code; create it as copy.copy does and set each attribute
  py::object obj = t.cls.attr("__new__")(t.cls);
  for (size_t i = 0; i < t.items.size(); ++i) {
    py::object value = convert_result(t.items[i], st, slot, vals);
    if (PyObject_SetAttrString(obj.ptr(), t.fields[i].c_str(), value.ptr()) != 0) throw py::error_already_set();
  }
  return obj;
}

py::object Function::convert_result(const Type& t, CallState& st, int64_t& slot, ep_value* vals) const {
  ep_value* base = vals != nullptr ? vals : st.results.data();  // a dict's entries carry their own slots
  switch (t.kind) {
    case Kind::None: return py::none();
    case Kind::Scalar: {
      ep_value& v = base[slot++];
      if (v.kind != EP_KIND_SCALAR || v.dtype != t.dtype) bad_result(name_, t, v);
      return scalar_to_python(v.scalar.bytes, t.dtype, t.py);
    }
    case Kind::Array: {
      ep_value& v = base[slot++];
      if (v.kind != EP_KIND_ARRAY || v.dtype != t.dtype || v.ndim != t.ndim) bad_result(name_, t, v);
      py::object a = convert_array_result(v, st);
      return t.torch || is_tensor(a.ptr()) ? tensor_result(std::move(a), t.torch, st) : a;
    }
    case Kind::Str: {
      ep_value& v = base[slot++];
      if (v.kind != EP_KIND_STR || v.ndim != 0) bad_result(name_, t, v);
      PyObject* s = str_from_utf8(static_cast<const char*>(v.data), v.shape[0], v.shape[1], v.shape[2] != 0);
      if (v.owner != nullptr) release_(std::exchange(v.owner, nullptr));
      if (s == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(s);
    }
    case Kind::List: {
      ep_value& v = base[slot++];
      const Type& elem = t.items[0];
      if (t.seq) {  // list of records, tuples, ...: EP_KIND_SEQ of items (records.hpp put_seq)
        if (v.kind != EP_KIND_SEQ || v.ndim != 1) bad_result(name_, t, v);
        return convert_dict(t, v, st);
      }
      if (elem.kind == Kind::Str) {
        if (v.kind != EP_KIND_STR || v.ndim != 1) bad_result(name_, t, v);
        const int64_t n = v.shape[0];
        const auto* refs = static_cast<const ep_strref*>(v.data);
        py::list out(n);
        for (int64_t i = 0; i < n; ++i) {
          PyObject* s = str_from_utf8(refs[i].data, refs[i].size, refs[i].length, refs[i].ascii != 0);
          if (s == nullptr) {
            if (v.owner != nullptr) release_(std::exchange(v.owner, nullptr));
            throw py::error_already_set();
          }
          PyList_SET_ITEM(out.ptr(), i, s);
        }
        if (v.owner != nullptr) release_(std::exchange(v.owner, nullptr));
        return out;
      }
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
    case Kind::Dict: {
      ep_value& v = base[slot++];
      if (v.kind != EP_KIND_SEQ || v.ndim != 1) bad_result(name_, t, v);
      return convert_dict(t, v, st);
    }
    case Kind::Set: {
      ep_value& v = base[slot++];
      if (v.kind != EP_KIND_SEQ || v.ndim != 1) bad_result(name_, t, v);
      return convert_dict(t, v, st);
    }
    case Kind::Enum: {  // the member at the index the kernel returned: the very object (identity kept)
      ep_value& v = base[slot++];
      if (v.kind != EP_KIND_SCALAR || v.dtype != EP_INT64) bad_result(name_, t, v);
      const int64_t i = load<int64_t>(v.scalar.bytes);
      if (i < 0 || i >= static_cast<int64_t>(PyTuple_GET_SIZE(t.members.ptr()))) bad_result(name_, t, v);
      return py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(t.members.ptr(), i));
    }
    case Kind::Record: {  // built by the class itself, so its __eq__, __repr__, hash are the user's
      if (!t.identity) return build_record(t, st, slot, vals);
      // a shared struct: one Python object however many times the result holds it (`return b, b`)
      ep_value& id = base[slot++];
      if (id.kind != EP_KIND_SCALAR || id.dtype != EP_INT64) bad_result(name_, t, id);
      const int64_t address = load<int64_t>(id.scalar.bytes);
      auto seen = st.shared.find(address);
      if (seen != st.shared.end()) {
        for (const Type& item : t.items) convert_result(item, st, slot, vals);  // its slots, owners released
        return seen->second;
      }
      py::object obj = build_record(t, st, slot, vals);
      st.shared.emplace(address, obj);
      return obj;
    }
    case Kind::Gen: return convert_generator(t, base[slot++], st);  // generators.cpp
    case Kind::Union: {  // the tag, then every member's slots: the held member's value, with its exact type
      ep_value& tag = base[slot];
      if (tag.kind != EP_KIND_SCALAR || tag.dtype != EP_INT64) bad_result(name_, t, tag);
      const int64_t k = load<int64_t>(tag.scalar.bytes);
      if (k < 0 || k >= static_cast<int64_t>(t.items.size())) bad_result(name_, t, tag);
      int64_t at = slot + 1;
      for (int64_t i = 0; i < k; ++i) at += t.items[static_cast<size_t>(i)].nslots;
      slot += t.nslots;
      return convert_result(t.items[static_cast<size_t>(k)], st, at, vals);
    }
    case Kind::Tuple: {
      py::tuple out(t.items.size());
      for (size_t i = 0; i < t.items.size(); ++i) {
        PyTuple_SET_ITEM(out.ptr(), i, convert_result(t.items[i], st, slot, vals).release().ptr());
      }
      return out;
    }
  }
  raise(PyExc_RuntimeError, "internal error: bad result type");
}

}  // namespace ep_runtime
