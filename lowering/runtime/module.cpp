// The module itself: Function::call (bind, convert, call the kernel without
// the GIL, convert back), Library (dlopen + ABI check + bind) and the
// pybind11 definitions of lowering._runtime.  runtime.hpp describes the
// module as a whole.

#include <dlfcn.h>

#include <string>
#include <utility>

#include "fastcall.h"
#include "runtime.hpp"

namespace ep_runtime {

namespace {

// The GIL released for a scope with plain CPython calls: pybind11's gil_scoped_release also looks
// its internals up on every call.
class NoGil {
 public:
  NoGil() : ts_(PyEval_SaveThread()) {}
  ~NoGil() { PyEval_RestoreThread(ts_); }
  NoGil(const NoGil&) = delete;
  NoGil& operator=(const NoGil&) = delete;

 private:
  PyThreadState* ts_;
};

}  // namespace

py::object Function::call(PyObject* args, PyObject* kwargs) const {
  ArgSource src;
  src.pos = &PyTuple_GET_ITEM(args, 0);
  src.npos = static_cast<size_t>(PyTuple_GET_SIZE(args));
  src.kwdict = kwargs;
  return invoke(src);
}

py::object Function::vcall(PyObject* const* args, size_t npos, PyObject* kwnames, PyObject* const* hidden,
                           size_t nhidden) const {
  if (nhidden > params_.size()) raise(PyExc_RuntimeError, "internal error: more hidden arguments than parameters");
  ArgSource src;
  src.pos = args;
  src.npos = npos;
  src.kwnames = kwnames != nullptr && PyTuple_GET_SIZE(kwnames) > 0 ? kwnames : nullptr;
  src.hidden = hidden;
  src.nhidden = nhidden;
  return invoke(src);
}

py::object Function::invoke(const ArgSource& src) const {
  const size_t nparams = params_.size();
  CallBuffer<PyObject*, 8> bound(nparams);  // borrowed references; NULL: not bound yet
  bound.zero();
  bind_arguments(src, bound.data());

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
  if (release_gil_) {
    NoGil nogil;
    rc = entry_(st.args.data(), nargs_, st.results.data(), result_.nslots, &err);
  } else {  // a few scalar operations: cheaper than handing the GIL over and back (lowering/signature.py)
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
    attach_telemetry(handle);
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
    ParsedSignature parsed = parse_signature(signature);
    return Function(std::move(parsed.name), signature, std::move(parsed.params), std::move(parsed.result),
                    entry, release, symbol, parsed.release_gil);
  }
};

namespace {

// The Function inside a Function instance. py::class_<Function> has one plain holder and no base
// classes, so the value pointer is read directly: cast<const Function&>() would look the type up
// in pybind11's registry (a hash map under a lock) on every call.
const Function& function_of(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  return *static_cast<const Function*>(inst->simple_layout ? inst->simple_value_holder[0]
                                                            : inst->get_value_and_holder().value_ptr());
}

// tp_call of Function instances.
PyObject* function_tp_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  try {
    return function_of(self).call(args, kwargs).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();  // pybind11's own translation (error_already_set, ...)
    return nullptr;
  }
}

PyObject* fastcall(const void* function, PyObject* const* args, size_t npos, PyObject* kwnames,
                   PyObject* const* hidden, size_t nhidden) {
  try {
    return static_cast<const Function*>(function)->vcall(args, npos, kwnames, hidden, nhidden).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

constexpr ep_fastcall_api kFastcallApi = {EP_FASTCALL_VERSION, &fastcall};

// Function._fastcall: what the dispatcher needs to call this Function from C (fastcall.h).
py::capsule fastcall_capsule(py::handle self) {
  const Function& f = function_of(self.ptr());
  PyObject* cap = PyCapsule_New(const_cast<ep_fastcall_api*>(&kFastcallApi), EP_FASTCALL_CAPSULE, nullptr);
  if (cap == nullptr || PyCapsule_SetContext(cap, const_cast<Function*>(&f)) != 0) {
    Py_XDECREF(cap);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(cap);
}

}  // namespace

}  // namespace ep_runtime

PYBIND11_MODULE(_runtime, m) {
  using namespace ep_runtime;
  m.doc() = "Calls everypath-compiled kernels through the everypath C ABI (abi.h).";
  init_numpy_state();
  m.attr("ABI_VERSION") = EP_ABI_VERSION;
  m.attr("MAX_NDIM") = EP_MAX_NDIM;
  m.attr("TORCH_TENSORS") = true;  // tensor parameters and results are converted here (tensors.cpp)

  py::class_<Function> function(m, "Function", "A compiled kernel bound to its signature.");
  function
      .def("__call__",
           [](const Function& f, const py::args& args, const py::kwargs& kwargs) {
             return f.call(args.ptr(), kwargs.ptr());
           })
      .def_property_readonly("signature", &Function::signature)
      .def_property_readonly("symbol", &Function::symbol)
      .def_property_readonly("_fastcall", &fastcall_capsule,
                             "Capsule for everypath.lowering._dispatch (lowering/runtime/fastcall.h).")
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

  def_telemetry(m);
  def_generators(m);

  py::class_<Library>(m, "Library", "A kernel shared object, dlopen()ed and never closed.")
      .def(py::init<std::string>(), py::arg("path"))
      .def("bind", &Library::bind, py::arg("symbol"), py::arg("signature"))
      .def_readonly("path", &Library::path)
      .def_readonly("abi_version", &Library::abi_version)
      .def("__repr__", [](const Library& l) { return "<everypath Library '" + l.path + "'>"; });
}
