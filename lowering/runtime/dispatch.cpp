// everypath.lowering._dispatch: the C-level callable everypath.CompiledFunction derives from.
//
// A call (PEP 590 vectorcall) is made here, without running Python code, whenever it can be:
//   1. the guards hold: every module global the build read is still bound to the object it was
//      built with (a dict lookup and an identity compare per name, as tracer/globals.py says), and
//      every dict, list or set table the build baked in still holds the very items it held then
//      (one identity compare per key, value or item: they are immutable constants, so the same
//      objects mean the same content; anything else asks Python, which compares digests; on
//      CPython 3.11 an unchanged dict version skips a dict's walk);
//   2. an entry accepts the arguments: a closed signature's entry takes any (the runtime
//      Function binds and checks them itself, with the errors a plain call raises); an open
//      signature's entries take positional arguments whose types are the very ones their build
//      was specialised for (exact type; dtype and rank for arrays and torch tensors; item by item
//      for tuples);
//   3. the entry is called: a runtime Function through its C entry (fastcall.h), with the module
//      arrays it reads appended as its hidden last parameters, or any other callable (the torch
//      boundary's wrapper) by vectorcall.
// Anything else goes to the Python method `_call_slow` with the same arguments, which builds,
// re-validates, specialises and then publishes a new state here (`_dispatch_set`).
//
// Plain CPython API: this module is imported with everypath.api, before NumPy or pybind11 are.
// Thread safety: every read and write of a dispatcher's state happens under the GIL; a call holds
// its own reference to the state it started with (and to every object it passes), so a state
// replaced meanwhile (the kernel runs without the GIL) is freed only when that call is done.

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <cstring>
#include <utility>
#include <vector>

#include "fastcall.h"

namespace {

// The fields of NumPy's PyArrayObject_fields up to descr (numpy/ndarraytypes.h; stable since
// NumPy 1.7), read only from objects whose exact type Python checked to be an ndarray subclass.
struct ArrayHead {
  PyObject_HEAD
  char* data;
  int nd;
  Py_ssize_t* dimensions;
  Py_ssize_t* strides;
  PyObject* base;
  PyObject* descr;
};

// One argument's key: what an open signature's specialisation depends on (api._fast_key).
struct KeyItem {
  enum Kind { Type, Array, Tensor, Tuple } kind = Type;
  PyTypeObject* type = nullptr;  // borrowed from State::refs
  PyObject* dtype = nullptr;     // arrays, tensors (torch.dtype objects are singletons)
  int ndim = 0;                  // arrays, tensors
  std::vector<KeyItem> items;    // tuples
};

struct Entry {
  bool any = true;  // a closed signature: every call goes to the callee
  std::vector<KeyItem> key;
  size_t min_args = 0, max_args = 0;  // positional counts the key accepts (the rest: their defaults)
  PyObject* call = nullptr;           // callable
  const ep_fastcall_api* api = nullptr;  // with fn: the runtime Function's C entry
  const void* fn = nullptr;
  std::vector<std::pair<PyObject*, PyObject*>> hidden;  // (namespace, name) of each module array
};

struct Guard {
  PyObject* ns;
  PyObject* name;
  PyObject* obj;  // nullptr: the name must stay unbound
  PyObject* items = nullptr;  // a mutable table's items as captured (tuple; a dict's flattened k, v), or nullptr
  // A dict's PEP 509 version when its items were last seen to be `items` (0: not yet): any change to a dict
  // changes its version, so an equal version skips the walk. CPython 3.12 deprecates the field: there the
  // walk alone decides. Written under the GIL only.
  mutable uint64_t version = 0;
};

// Immutable once published. Reference counted by hand: every count change happens under the GIL.
struct State {
  Py_ssize_t users = 1;
  std::vector<Guard> guards;
  std::vector<Entry> entries;
  std::vector<PyObject*> refs;  // one strong reference to every object above

  PyObject* keep(PyObject* o) {
    Py_INCREF(o);
    refs.push_back(o);
    return o;
  }
  ~State() {
    for (PyObject* o : refs) Py_DECREF(o);
  }
};

void release(State* s) {
  if (s != nullptr && --s->users == 0) delete s;
}

class StateRef {
 public:
  explicit StateRef(State* s) : s_(s) { ++s_->users; }
  ~StateRef() { release(s_); }
  StateRef(const StateRef&) = delete;
  StateRef& operator=(const StateRef&) = delete;

 private:
  State* s_;
};

struct Dispatcher {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  State* state;  // nullptr: every call takes the slow path
};

PyObject* g_slow_name = nullptr;  // interned "_call_slow", set once at import
PyObject* g_dtype_name = nullptr;  // interned "dtype" and "ndim": a tensor's key, read as attributes
PyObject* g_ndim_name = nullptr;   // (torch's own C++ getters: no libtorch headers needed here)

// 1 a tensor of this dtype and rank, 0 not, -1 error (the type was checked).
int tensor_matches(const KeyItem& k, PyObject* v) {
  PyObject* dtype = PyObject_GetAttr(v, g_dtype_name);
  if (dtype == nullptr) return -1;
  const bool same = dtype == k.dtype;
  Py_DECREF(dtype);
  if (!same) return 0;
  PyObject* nd = PyObject_GetAttr(v, g_ndim_name);
  if (nd == nullptr) return -1;
  const long ndim = PyLong_AsLong(nd);
  Py_DECREF(nd);
  if (ndim == -1 && PyErr_Occurred()) return -1;
  return ndim == k.ndim ? 1 : 0;
}

uint64_t dict_version(PyObject* d) {
#if PY_VERSION_HEX < 0x030C0000
  return reinterpret_cast<PyDictObject*>(d)->ma_version_tag;
#else
  (void)d;
  return 0;
#endif
}

// true: the table (exact dict, list, set) holds the very items `items` lists, in its iteration order.
bool same_items(PyObject* obj, PyObject* items) {
  const Py_ssize_t n = PyTuple_GET_SIZE(items);
  PyObject* const* want = reinterpret_cast<PyTupleObject*>(items)->ob_item;
  if (PyDict_CheckExact(obj)) {
    if (2 * PyDict_GET_SIZE(obj) != n) return false;
    Py_ssize_t pos = 0, i = 0;
    PyObject *k, *v;  // borrowed
    while (PyDict_Next(obj, &pos, &k, &v)) {
      if (k != want[i] || v != want[i + 1]) return false;
      i += 2;
    }
    return true;
  }
  if (PyList_CheckExact(obj)) {  // one compare of the two pointer arrays
    return PyList_GET_SIZE(obj) == n &&
           (n == 0 || std::memcmp(reinterpret_cast<PyListObject*>(obj)->ob_item, want, n * sizeof(PyObject*)) == 0);
  }
  if (PyAnySet_CheckExact(obj)) {  // its hash table in iteration order (setiter_iternext's walk, no iterator)
    auto* set = reinterpret_cast<PySetObject*>(obj);
    if (set->used != n) return false;
    Py_ssize_t i = 0;
    for (Py_ssize_t slot = 0; slot <= set->mask; ++slot) {
      const setentry& e = set->table[slot];
      if (e.key == nullptr || e.hash == -1) continue;  // empty, or a deleted entry's dummy (no key hashes to -1)
      if (i == n || e.key != want[i++]) return false;
    }
    return i == n;
  }
  return false;  // not a table any more (cannot happen: obj is the very object captured)
}

bool table_unchanged(const Guard& g, PyObject* now) {
  if (g.version != 0 && PyDict_CheckExact(now) && dict_version(now) == g.version) return true;
  if (!same_items(now, g.items)) return false;
  if (PyDict_CheckExact(now)) g.version = dict_version(now);
  return true;
}

// 1 the guards hold, 0 one was re-bound or a table changed in place, -1 error.
int guards_hold(const State& st) {
  for (const Guard& g : st.guards) {
    PyObject* now = PyDict_GetItemWithError(g.ns, g.name);  // borrowed
    if (now == nullptr && PyErr_Occurred()) return -1;
    if (now != g.obj) return 0;
    if (g.items != nullptr && !table_unchanged(g, now)) return 0;
  }
  return 1;
}

int item_matches(const KeyItem& k, PyObject* v) {
  switch (k.kind) {
    case KeyItem::Type:
      return Py_TYPE(v) == k.type;
    case KeyItem::Array: {
      if (Py_TYPE(v) != k.type) return 0;
      const auto* a = reinterpret_cast<const ArrayHead*>(v);
      if (a->nd != k.ndim) return 0;
      if (a->descr == k.dtype) return 1;  // NumPy's builtin dtypes are singletons: the usual case
      return PyObject_RichCompareBool(a->descr, k.dtype, Py_EQ);
    }
    case KeyItem::Tensor:
      return Py_TYPE(v) == k.type ? tensor_matches(k, v) : 0;
    case KeyItem::Tuple: {
      if (!PyTuple_CheckExact(v) || PyTuple_GET_SIZE(v) != static_cast<Py_ssize_t>(k.items.size())) return 0;
      for (size_t i = 0; i < k.items.size(); ++i) {
        int m = item_matches(k.items[i], PyTuple_GET_ITEM(v, i));
        if (m != 1) return m;
      }
      return 1;
    }
  }
  return 0;
}

int entry_matches(const Entry& e, PyObject* const* args, size_t nargs, PyObject* kwnames) {
  if (e.any) return 1;
  if (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) > 0) return 0;  // keys are bound positionally
  if (nargs < e.min_args || nargs > e.max_args) return 0;
  for (size_t i = 0; i < nargs; ++i) {
    int m = item_matches(e.key[i], args[i]);
    if (m != 1) return m;
  }
  return 1;
}

PyObject* call_slow(PyObject* self, PyObject* const* args, size_t nargs, PyObject* kwnames) {
  const size_t total = nargs + (kwnames != nullptr ? static_cast<size_t>(PyTuple_GET_SIZE(kwnames)) : 0);
  PyObject* small[9];
  std::vector<PyObject*> large;
  PyObject** buf = small;
  if (total + 1 > std::size(small)) {
    large.resize(total + 1);
    buf = large.data();
  }
  buf[0] = self;
  if (total > 0) std::memcpy(buf + 1, args, total * sizeof(PyObject*));
  return PyObject_VectorcallMethod(g_slow_name, buf, nargs + 1, kwnames);
}

// Calls e; sets *fallback (returning nullptr, no error) when a module array is gone meanwhile.
PyObject* call_entry(const Entry& e, PyObject* const* args, size_t nargsf, PyObject* kwnames, bool* fallback) {
  if (e.api == nullptr) return PyObject_Vectorcall(e.call, args, nargsf, kwnames);
  const size_t nh = e.hidden.size();
  PyObject* small[4];
  std::vector<PyObject*> large;
  PyObject** hidden = small;
  if (nh > std::size(small)) {
    large.resize(nh);
    hidden = large.data();
  }
  size_t got = 0;
  for (; got < nh; ++got) {
    PyObject* v = PyDict_GetItemWithError(e.hidden[got].first, e.hidden[got].second);
    if (v == nullptr) break;
    Py_INCREF(v);  // the namespace may re-bind it while the kernel runs without the GIL
    hidden[got] = v;
  }
  PyObject* out = nullptr;
  if (got == nh) {
    out = e.api->call(e.fn, args, PyVectorcall_NARGS(nargsf), kwnames, hidden, nh);
  } else if (!PyErr_Occurred()) {
    *fallback = true;
  }
  for (size_t i = 0; i < got; ++i) Py_DECREF(hidden[i]);
  return out;
}

PyObject* dispatcher_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  State* st = reinterpret_cast<Dispatcher*>(self)->state;
  const size_t nargs = PyVectorcall_NARGS(nargsf);
  if (st != nullptr) {
    StateRef hold(st);
    const int held = guards_hold(*st);
    if (held < 0) return nullptr;
    if (held == 1) {
      for (const Entry& e : st->entries) {
        const int m = entry_matches(e, args, nargs, kwnames);
        if (m < 0) return nullptr;
        if (m == 0) continue;
        bool fallback = false;
        PyObject* out = call_entry(e, args, nargsf, kwnames, &fallback);
        if (!fallback) return out;
        break;
      }
    }
  }
  return call_slow(self, args, nargs, kwnames);
}

// ---- building a state from what Python publishes ---------------------------------------------

bool bad(const char* what) {
  PyErr_Format(PyExc_TypeError, "_dispatch_set: %s", what);
  return false;
}

bool parse_key_item(State& st, PyObject* spec, KeyItem& out, int depth) {
  if (depth > 32) return bad("key nested too deeply");
  if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) < 2 || !PyUnicode_Check(PyTuple_GET_ITEM(spec, 0))) {
    return bad("a key item is ('t', type), ('a' or 'T', type, dtype, ndim) or ('u', (items...))");
  }
  const char* tag = PyUnicode_AsUTF8(PyTuple_GET_ITEM(spec, 0));
  if (tag == nullptr) return false;
  PyObject* first = PyTuple_GET_ITEM(spec, 1);
  if (std::strcmp(tag, "t") == 0 || std::strcmp(tag, "a") == 0 || std::strcmp(tag, "T") == 0) {
    if (!PyType_Check(first)) return bad("key item type is not a type");
    out.type = reinterpret_cast<PyTypeObject*>(st.keep(first));
    if (tag[0] == 't') {
      out.kind = KeyItem::Type;
      return true;
    }
    if (PyTuple_GET_SIZE(spec) != 4) return bad("array key item is ('a' or 'T', type, dtype, ndim)");
    out.kind = tag[0] == 'a' ? KeyItem::Array : KeyItem::Tensor;
    out.dtype = st.keep(PyTuple_GET_ITEM(spec, 2));
    const long ndim = PyLong_AsLong(PyTuple_GET_ITEM(spec, 3));
    if (ndim == -1 && PyErr_Occurred()) return false;
    out.ndim = static_cast<int>(ndim);
    return true;
  }
  if (std::strcmp(tag, "u") == 0) {
    if (!PyTuple_Check(first)) return bad("tuple key item is ('u', (items...))");
    out.kind = KeyItem::Tuple;
    out.items.resize(static_cast<size_t>(PyTuple_GET_SIZE(first)));
    for (size_t i = 0; i < out.items.size(); ++i) {
      if (!parse_key_item(st, PyTuple_GET_ITEM(first, i), out.items[i], depth + 1)) return false;
    }
    return true;
  }
  return bad("unknown key item tag");
}

// entry: (key or None, min_args, max_args, call, kernel or None, ((namespace, name), ...))
bool parse_entry(State& st, PyObject* spec, Entry& e) {
  if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 6) {
    return bad("an entry is (key, min_args, max_args, call, kernel, hidden)");
  }
  PyObject* key = PyTuple_GET_ITEM(spec, 0);
  e.any = key == Py_None;
  if (!e.any) {
    if (!PyTuple_Check(key)) return bad("entry key is a tuple or None");
    e.key.resize(static_cast<size_t>(PyTuple_GET_SIZE(key)));
    for (size_t i = 0; i < e.key.size(); ++i) {
      if (!parse_key_item(st, PyTuple_GET_ITEM(key, i), e.key[i], 0)) return false;
    }
    const Py_ssize_t lo = PyLong_AsSsize_t(PyTuple_GET_ITEM(spec, 1));
    const Py_ssize_t hi = PyLong_AsSsize_t(PyTuple_GET_ITEM(spec, 2));
    if ((lo == -1 || hi == -1) && PyErr_Occurred()) return false;
    if (lo < 0 || hi < lo || static_cast<size_t>(hi) > e.key.size()) return bad("entry argument counts out of range");
    e.min_args = static_cast<size_t>(lo);
    e.max_args = static_cast<size_t>(hi);
  }
  PyObject* call = PyTuple_GET_ITEM(spec, 3);
  if (!PyCallable_Check(call)) return bad("entry call is not callable");
  e.call = st.keep(call);
  PyObject* kernel = PyTuple_GET_ITEM(spec, 4);
  if (kernel == Py_None) return true;  // `call` adds what C cannot (the torch boundary): call it
  st.keep(kernel);  // the Function lives as long as this state
  PyObject* cap = PyObject_GetAttrString(kernel, "_fastcall");
  if (cap == nullptr) return false;
  auto* api = static_cast<const ep_fastcall_api*>(PyCapsule_GetPointer(cap, EP_FASTCALL_CAPSULE));
  void* fn = api != nullptr ? PyCapsule_GetContext(cap) : nullptr;
  Py_DECREF(cap);
  if (api == nullptr) return false;
  if (api->version != EP_FASTCALL_VERSION || fn == nullptr) return bad("kernel's fastcall capsule has another version");
  e.api = api;
  e.fn = fn;
  PyObject* hidden = PyTuple_GET_ITEM(spec, 5);
  if (!PyTuple_Check(hidden)) return bad("entry hidden is a tuple of (namespace, name)");
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(hidden); ++i) {
    PyObject* h = PyTuple_GET_ITEM(hidden, i);
    if (!PyTuple_Check(h) || PyTuple_GET_SIZE(h) != 2 || !PyDict_Check(PyTuple_GET_ITEM(h, 0))) {
      return bad("entry hidden is a tuple of (namespace, name)");
    }
    e.hidden.emplace_back(st.keep(PyTuple_GET_ITEM(h, 0)), st.keep(PyTuple_GET_ITEM(h, 1)));
  }
  return true;
}

void set_state(Dispatcher* d, State* st) {
  State* old = std::exchange(d->state, st);
  release(old);  // may run destructors (DECREFs): after the swap, so they see the new state
}

// _dispatch_set(guards, entries, absent): guards ((namespace, name, obj, items), ...) with obj
// `absent` for a name that must stay unbound and items a mutable table's captured items (a tuple;
// a dict's keys and values flattened) or None; entries as in parse_entry, tried in order.
PyObject* dispatch_set(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3 || !PyTuple_Check(args[0]) || !PyTuple_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "_dispatch_set(guards: tuple, entries: tuple, absent)");
    return nullptr;
  }
  auto* st = new State();
  PyObject* guards = args[0];
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(guards); ++i) {
    PyObject* g = PyTuple_GET_ITEM(guards, i);
    if (!PyTuple_Check(g) || PyTuple_GET_SIZE(g) != 4 || !PyDict_Check(PyTuple_GET_ITEM(g, 0))) {
      ok = bad("a guard is (namespace: dict, name, obj, items)");
      break;
    }
    PyObject* obj = PyTuple_GET_ITEM(g, 2);
    PyObject* items = PyTuple_GET_ITEM(g, 3);
    if (items != Py_None && !(PyTuple_CheckExact(items) && obj != args[2])) {
      ok = bad("a guard's items are a tuple (a bound table's) or None");
      break;
    }
    st->guards.push_back({st->keep(PyTuple_GET_ITEM(g, 0)), st->keep(PyTuple_GET_ITEM(g, 1)),
                          obj == args[2] ? nullptr : st->keep(obj), items == Py_None ? nullptr : st->keep(items)});
  }
  PyObject* entries = args[1];
  st->entries.resize(ok ? static_cast<size_t>(PyTuple_GET_SIZE(entries)) : 0);
  for (size_t i = 0; ok && i < st->entries.size(); ++i) {
    ok = parse_entry(*st, PyTuple_GET_ITEM(entries, i), st->entries[i]);
  }
  if (!ok) {
    release(st);
    return nullptr;
  }
  set_state(reinterpret_cast<Dispatcher*>(self), st);
  Py_RETURN_NONE;
}

PyObject* dispatch_clear(PyObject* self, PyObject*) {
  set_state(reinterpret_cast<Dispatcher*>(self), nullptr);
  Py_RETURN_NONE;
}

PyObject* dispatch_entries(PyObject* self, void*) {
  const State* st = reinterpret_cast<Dispatcher*>(self)->state;
  return PyLong_FromSize_t(st != nullptr ? st->entries.size() : 0);
}

// ---- the type --------------------------------------------------------------------------------

PyObject* dispatcher_new(PyTypeObject* type, PyObject*, PyObject*) {
  auto* d = reinterpret_cast<Dispatcher*>(type->tp_alloc(type, 0));
  if (d == nullptr) return nullptr;
  d->vectorcall = &dispatcher_vectorcall;
  d->state = nullptr;
  return reinterpret_cast<PyObject*>(d);
}

int dispatcher_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));  // a heap type: instances own a reference to it
  if (const State* st = reinterpret_cast<Dispatcher*>(self)->state) {
    for (PyObject* o : st->refs) Py_VISIT(o);
  }
  return 0;
}

int dispatcher_clear(PyObject* self) {
  set_state(reinterpret_cast<Dispatcher*>(self), nullptr);
  return 0;
}

void dispatcher_dealloc(PyObject* self) {
  PyTypeObject* tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  dispatcher_clear(self);
  tp->tp_free(self);
  Py_DECREF(tp);
}

PyMethodDef dispatcher_methods[] = {
    {"_dispatch_set", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&dispatch_set)), METH_FASTCALL,
     "Publish the guards and entries calls may take without Python (see the module's docstring)."},
    {"_dispatch_clear", &dispatch_clear, METH_NOARGS, "Send every call to _call_slow until the next _dispatch_set."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef dispatcher_getset[] = {
    {"_dispatch_entries", &dispatch_entries, nullptr, "How many entries calls can take without Python.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyMemberDef dispatcher_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Dispatcher, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyType_Slot dispatcher_slots[] = {
    {Py_tp_doc, const_cast<char*>("Calls compiled code from C when it can, else self._call_slow(*args, **kwargs).")},
    {Py_tp_new, reinterpret_cast<void*>(&dispatcher_new)},
    {Py_tp_dealloc, reinterpret_cast<void*>(&dispatcher_dealloc)},
    {Py_tp_traverse, reinterpret_cast<void*>(&dispatcher_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(&dispatcher_clear)},
    {Py_tp_call, reinterpret_cast<void*>(&PyVectorcall_Call)},
    {Py_tp_methods, dispatcher_methods},
    {Py_tp_getset, dispatcher_getset},
    {Py_tp_members, dispatcher_members},
    {0, nullptr},
};

PyType_Spec dispatcher_spec = {
    "everypath.lowering._dispatch.Dispatcher", sizeof(Dispatcher), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL, dispatcher_slots};

// Python 3.11 gives a Python subclass the vectorcall slot but not the flag that turns it on
// (3.12 does: a subclass not defining __call__ inherits it): set it there, for such a subclass.
PyObject* enable_vectorcall(PyObject* module, PyObject* cls) {
  PyObject* base = PyObject_GetAttrString(module, "Dispatcher");
  if (base == nullptr) return nullptr;
  const bool sub = PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls),
                                                         reinterpret_cast<PyTypeObject*>(base));
  Py_DECREF(base);
  if (!sub) {
    PyErr_SetString(PyExc_TypeError, "enable_vectorcall() expects a subclass of Dispatcher");
    return nullptr;
  }
  auto* tp = reinterpret_cast<PyTypeObject*>(cls);
  const bool own_call = tp->tp_call != &PyVectorcall_Call;  // __call__ defined in Python: it wins
  if (!own_call && tp->tp_vectorcall_offset == offsetof(Dispatcher, vectorcall)) {
    tp->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
  }
  return PyBool_FromLong((tp->tp_flags & Py_TPFLAGS_HAVE_VECTORCALL) != 0);
}

PyMethodDef module_methods[] = {
    {"enable_vectorcall", &enable_vectorcall, METH_O,
     "Let a Python subclass of Dispatcher (not defining __call__) be called by vectorcall; returns whether it is."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "everypath.lowering._dispatch",
    "The C-level callable behind everypath.CompiledFunction (lowering/runtime/dispatch.cpp).", -1, module_methods,
    nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__dispatch() {
  if (g_slow_name == nullptr) {
    g_slow_name = PyUnicode_InternFromString("_call_slow");
    g_dtype_name = PyUnicode_InternFromString("dtype");
    g_ndim_name = PyUnicode_InternFromString("ndim");
    if (g_slow_name == nullptr || g_dtype_name == nullptr || g_ndim_name == nullptr) return nullptr;
  }
  PyObject* m = PyModule_Create(&module_def);
  if (m == nullptr) return nullptr;
  PyObject* type = PyType_FromModuleAndSpec(m, &dispatcher_spec, nullptr);
  if (type == nullptr || PyModule_AddObject(m, "Dispatcher", type) != 0) {
    Py_XDECREF(type);
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
