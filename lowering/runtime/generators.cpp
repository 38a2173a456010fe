// Generator results (abi.h EP_KIND_GEN): the kernel hands back a suspended coroutine and the
// function that resumes it. Python gets an iterator, everypath.lowering._runtime.Generator, whose
// __next__ resumes the coroutine (without the GIL, as calls run) and converts the item it yielded
// as a result of the item's type; StopIteration once it finishes; a kernel error is raised at the
// __next__ that ran into it, and the generator is finished from then on, as CPython's is.
//
// The call's argument objects (and the copies made of them) stay alive as long as the iterator:
// the coroutine still reads the arrays they lend it, and an array it yields that is one of them
// (or a view of one) comes back as that object, as a return would.

#include <string>
#include <utility>
#include <vector>

#include "runtime.hpp"

namespace ep_runtime {

class Generator {
 public:
  Generator(std::shared_ptr<const Function> fn, Type item, void* owner, ep_gen_next_fn next)
      : fn_(std::move(fn)), item_(std::move(item)), owner_(owner), next_(next) {}
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;
  ~Generator() {
    if (owner_ != nullptr) fn_->release_(std::exchange(owner_, nullptr));
  }

  // The state of the call that made it (arrays borrowed from its arguments): kept for every resume.
  void keep_call(const ep_value* args, const ArraySlot* slots, int64_t nargs, std::vector<py::object> copies) {
    args_.assign(args, args + nargs);
    slots_.assign(slots, slots + nargs);
    for (int64_t i = 0; i < nargs; ++i) {
      if (args_[i].kind != EP_KIND_ARRAY) continue;
      keep_.push_back(py::reinterpret_borrow<py::object>(slots_[i].original));
      keep_.push_back(py::reinterpret_borrow<py::object>(slots_[i].passed));
    }
    for (py::object& c : copies) keep_.push_back(std::move(c));
  }

  // The next item, or a null object once it has finished (StopIteration without creating one).
  py::object next() {
    if (owner_ == nullptr) return py::object();
    if (running_) raise(PyExc_ValueError, "generator already executing");
    return fn_->next_item(*this);
  }

  // Frees the coroutine's frame (what CPython's close() does to a suspended generator).
  void close() {
    if (running_) raise(PyExc_ValueError, "generator already executing");
    if (owner_ != nullptr) fn_->release_(std::exchange(owner_, nullptr));
  }

  std::string repr() const { return "<everypath generator object " + fn_->name() + ">"; }

 private:
  friend class Function;
  std::shared_ptr<const Function> fn_;  // a copy: the kernel's Function object may be dropped meanwhile
  Type item_;
  void* owner_;
  ep_gen_next_fn next_;
  bool running_ = false;
  std::vector<ep_value> args_;
  std::vector<ArraySlot> slots_;
  std::vector<py::object> keep_;
};

py::object Function::convert_generator(const Type& t, ep_value& v, CallState& st) const {
  if (v.kind != EP_KIND_GEN || v.owner == nullptr) {
    raise(PyExc_RuntimeError, "internal error: " + name_ + "() did not return a generator");
  }
  ep_gen_next_fn next = nullptr;
  std::memcpy(&next, v.scalar.bytes, sizeof(next));
  auto gen = std::make_unique<Generator>(std::make_shared<const Function>(*this), t.items[0],
                                         std::exchange(v.owner, nullptr), next);
  gen->keep_call(st.args.data(), st.slots.data(), nargs_, std::move(st.copies));
  return py::cast(gen.release(), py::return_value_policy::take_ownership);
}

py::object Function::next_item(Generator& g) const {
  const Type& item = g.item_;
  CallState st(static_cast<size_t>(nargs_), static_cast<size_t>(item.nslots));
  for (int64_t i = 0; i < nargs_; ++i) {
    st.args[i] = g.args_[i];
    st.slots[i] = g.slots_[i];
  }
  ep_error err;
  err.set = 0;
  err.type[0] = '\0';
  err.message[0] = '\0';
  g.running_ = true;
  int rc;
  if (release_gil_) {
    PyThreadState* ts = PyEval_SaveThread();
    rc = g.next_(g.owner_, st.results.data(), &err);
    PyEval_RestoreThread(ts);
  } else {
    rc = g.next_(g.owner_, st.results.data(), &err);
  }
  g.running_ = false;
  auto release_item = [&] {
    for (int64_t i = 0; i < item.nslots; ++i) {
      if (st.results[i].owner != nullptr) release_(std::exchange(st.results[i].owner, nullptr));
    }
  };
  if (rc != EP_GEN_ITEM) {
    release_item();
    g.close();  // finished: its frame goes now, as a finished CPython generator's does
    if (rc == EP_GEN_DONE) return py::object();
    raise_kernel_error(err, rc);
  }
  try {
    int64_t slot = 0;
    return convert_result(item, st, slot);
  } catch (...) {
    release_item();
    throw;
  }
}

namespace {

// The Generator inside an instance (one plain holder, no bases: as module.cpp's function_of).
Generator& generator_of(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  return *static_cast<Generator*>(inst->simple_layout ? inst->simple_value_holder[0]
                                                      : inst->get_value_and_holder().value_ptr());
}

// tp_iternext: NULL without an exception set is StopIteration, which `for` and list() never create.
PyObject* generator_iternext(PyObject* self) {
  try {
    return generator_of(self).next().release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

}  // namespace

void def_generators(py::module_& m) {
  py::class_<Generator> cls(m, "Generator", "A compiled generator: iterated lazily, one resume per item.");
  cls.def("__iter__", [](py::object self) { return self; })
      .def("__next__",
           [](Generator& g) {
             py::object item = g.next();
             if (!item) throw py::stop_iteration();
             return item;
           })
      .def("close", &Generator::close)
      .def("__repr__", &Generator::repr);
  // for/next()/list() call the slot directly, skipping pybind11's dispatcher (as Function's tp_call does)
  reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_iternext = &generator_iternext;
}

}  // namespace ep_runtime
