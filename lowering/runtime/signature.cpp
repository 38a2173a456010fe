// The dtype table's NumPy side and the signature descriptor (see
// lowering/signature.py): the dict handed to Library.bind() is validated here,
// once, and compiled into Type/Param structs so that calls never look at it.

#include <string>
#include <utility>
#include <vector>

#include "runtime.hpp"

namespace ep_runtime {

int dtype_from_name(const std::string& name) {
  for (size_t i = 0; i < kDtypes.size(); ++i) {
    if (name == kDtypes[i].name) return static_cast<int>(i);
  }
  return -1;
}

void init_numpy_state() {
  auto* st = new NumpyState();
  st->from_type_num.fill(-1);
  py::module_ np = py::module_::import("numpy");
  for (size_t i = 0; i < kDtypes.size(); ++i) {
    py::object dt = np.attr("dtype")(kDtypes[i].name);
    st->dtype[i] = dt.release().ptr();
  }
  // Every C type character NumPy knows for our dtypes, so that aliases such
  // as 'q' (long long) and 'l' (long) both map to int64.
  for (const char* c = "?bBhHiIlLqQfdFDe"; *c; ++c) {
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

namespace {

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

// The annotation-like spellings used in TypeErrors (tests/lowering/test_runtime.py
// mirrors these rules).
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

// An enum or record class of the user's module, found again by where it was defined (a manifest
// read from the cache names it, it cannot hold it): sys.modules[module], then the qualname's parts.
py::object resolve_class(const py::dict& d, const FieldPath& where) {
  const std::string module = require_str(d, "module", where), qualname = require_str(d, "qualname", where);
  PyObject* mods = PySys_GetObject("modules");  // borrowed
  PyObject* mod = mods != nullptr ? PyDict_GetItemString(mods, module.c_str()) : nullptr;
  if (mod == nullptr) bad_field(where.key("module"), "module '" + module + "' is not loaded");
  py::object obj = py::reinterpret_borrow<py::object>(mod);
  size_t start = 0;
  while (start <= qualname.size()) {
    const size_t dot = qualname.find('.', start);
    const std::string part = qualname.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!py::hasattr(obj, part.c_str())) bad_field(where.key("qualname"), "'" + qualname + "' not found in " + module);
    obj = obj.attr(part.c_str());
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (!PyType_Check(obj.ptr())) bad_field(where.key("qualname"), "'" + qualname + "' is not a class");
  return obj;
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
    t.torch = optional_bool(d, "torch", false, where);
    if (t.torch) init_torch_state();
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
    t.seq = elem.kind == Kind::Record || elem.kind == Kind::Tuple || elem.kind == Kind::Enum ||
            elem.kind == Kind::Union || elem.kind == Kind::Dict || elem.kind == Kind::Set ||
            elem.kind == Kind::List;  // EP_KIND_SEQ: each item's slots (records.hpp put_seq)
    if (!t.seq && elem.kind != Kind::Scalar && elem.kind != Kind::Str) {
      bad_field(where.key("elem"), "list elements must be scalars, str, tuples, enums, records, lists, dicts or sets");
    }
    t.text = "list[" + elem.text + "]";
    t.items.push_back(std::move(elem));
    t.nslots = 1;  // transported as one 1-d array
  } else if (kind == "dict") {
    t.kind = Kind::Dict;
    t.items.push_back(parse_type(require_key(d, "key", where), where.key("key"), is_result, depth + 1));
    t.items.push_back(parse_type(require_key(d, "value", where), where.key("value"), is_result, depth + 1));
    for (const Type& it : t.items) {  // parameters: entries of one slot each (arguments.cpp)
      if (!is_result && it.kind != Kind::Scalar && it.kind != Kind::Str) {
        bad_field(where.key("kind"), "dict parameters take scalar or str keys and values");
      }
    }
    t.text = "dict[" + t.items[0].text + ", " + t.items[1].text + "]";
    t.nslots = 1;  // one ep_value of kind EP_KIND_SEQ (abi.h)
  } else if (kind == "set") {
    if (!is_result) bad_field(where.key("kind"), "'set' is only supported for results");
    t.kind = Kind::Set;
    t.items.push_back(parse_type(require_key(d, "elem", where), where.key("elem"), is_result, depth + 1));
    t.text = "set[" + t.items[0].text + "]";
    t.nslots = 1;  // one ep_value of kind EP_KIND_SEQ (abi.h)
  } else if (kind == "str") {
    t.kind = Kind::Str;
    t.nslots = 1;  // one ep_value of kind EP_KIND_STR (abi.h)
    t.text = "str";
  } else if (kind == "enum") {  // the member's index (int64) in one slot
    t.kind = Kind::Enum;
    t.cls = resolve_class(d, where);
    t.members = py::tuple(t.cls);
    t.dtype = EP_INT64;
    t.nslots = 1;
    t.text = require_str(d, "qualname", where);
  } else if (kind == "record") {  // its fields' slots, one after another, like a tuple's items
    t.kind = Kind::Record;
    t.cls = resolve_class(d, where);
    py::object items = require_key(d, "items", where), fields = require_key(d, "fields", where);
    if (!PyList_Check(items.ptr()) || !PyList_Check(fields.ptr()) || py::len(items) != py::len(fields)) {
      bad_field(where.key("items"), "expected lists of field types and names of one length");
    }
    size_t i = 0;
    for (py::handle item : items) {
      t.items.push_back(parse_type(item, where.key("items").index(i), is_result, depth + 1));
      t.nslots += t.items.back().nslots;
      ++i;
    }
    for (py::handle f : fields) t.fields.push_back(py::cast<std::string>(f));
    if (d.contains("build")) {
      const std::string build = require_str(d, "build", where);
      if (build == "new") t.build = RecordBuild::New;
      else if (build == "keywords") t.build = RecordBuild::Keywords;
      else bad_field(where.key("build"), "expected 'new' or 'keywords'");
    }
    if (is_result && d.contains("shared") && py::cast<bool>(d["shared"])) {  // its identity slot first
      t.identity = true;
      t.nslots += 1;
    }
    t.text = require_str(d, "qualname", where);
  } else if (kind == "generator") {  // a lazy iterator (generators.cpp): the whole result, one slot
    if (!is_result || depth != 0) bad_field(where.key("kind"), "'generator' is only supported as the result itself");
    t.kind = Kind::Gen;
    t.items.push_back(parse_type(require_key(d, "item", where), where.key("item"), is_result, depth + 1));
    t.text = "Iterator[" + t.items[0].text + "]";
    t.nslots = 1;  // one ep_value of kind EP_KIND_GEN (abi.h)
  } else if (kind == "union") {  // lowering/unions.py: an int64 tag slot, then every member's slots
    t.kind = Kind::Union;  // parameters too: arguments.cpp picks the member by the argument's Python type
    py::object items = require_key(d, "items", where);
    if (!PyList_Check(items.ptr())) bad_field(where.key("items"), "expected a list");
    t.nslots = 1;
    size_t i = 0;
    for (py::handle item : items) {
      t.items.push_back(parse_type(item, where.key("items").index(i), is_result, depth + 1));
      t.nslots += t.items.back().nslots;
      t.text += (i ? " | " : "") + t.items.back().text;
      ++i;
    }
    if (i < 2) bad_field(where.key("items"), "a union has at least two members");
  } else if (kind == "none") {
    t.kind = Kind::None;
    t.nslots = 0;
    t.text = "None";
  } else {
    bad_field(where.key("kind"), "unknown kind '" + kind + "'");
  }
  if (PyObject* allowed = PyDict_GetItemString(d.ptr(), "allowed")) {  // Literal[...]: checked per call
    if (!PyList_Check(allowed)) bad_field(where.key("allowed"), "expected a list");
    t.allowed = py::tuple(py::reinterpret_borrow<py::object>(allowed));
  }
  return t;
}

}  // namespace

ParsedSignature parse_signature(const py::object& signature) {
  const FieldPath root{"signature"};
  py::dict sig = require_dict(signature, root);
  ParsedSignature out;
  out.name = require_str(sig, "name", root);
  py::object params_obj = require_key(sig, "params", root);
  if (!PyList_Check(params_obj.ptr()) && !PyTuple_Check(params_obj.ptr())) {
    bad_field(root.key("params"), "expected a list");
  }
  std::vector<Param>& params = out.params;
  size_t i = 0;
  for (py::handle item : params_obj) {
    const FieldPath where = root.key("params").index(i++);
    py::dict pd = require_dict(item, where);
    Param p;
    p.name = require_str(pd, "name", where);
    for (const Param& other : params) {
      if (other.name == p.name) bad_field(where.key("name"), "duplicate parameter '" + p.name + "'");
    }
    // Interned so that keyword matching in a call is usually a pointer compare.
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
  out.result = parse_type(require_key(sig, "result", root), root.key("result"), true, 0);
  out.release_gil = optional_bool(sig, "release_gil", true, root);
  return out;
}

}  // namespace ep_runtime
