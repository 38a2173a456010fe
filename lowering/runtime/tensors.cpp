// torch.Tensor at the boundary, in C: what lowering/torch_boundary.py did per call in Python.
//
// A parameter typed as a tensor ("torch": true in its array descriptor) takes a CPU strided tensor
// as the NumPy view `tensor.numpy()` (same memory: in-place updates are seen by the caller); a result
// typed as a tensor comes back through `torch.from_numpy` (same memory again), or as the argument
// tensor itself when the kernel returned that very argument. Only the refusals go to Python
// (torch_boundary.tensor_view: a TypeError naming the parameter, or the resolved view of a lazy
// conj/neg tensor), and so does the rewording of NumPy's broadcast error into torch's.
//
// torch is looked up once, when the first signature holding a tensor is parsed (a program that
// has tensors in its signature has imported torch already); nothing here runs for other kernels.

#include <string>

#include "runtime.hpp"

namespace ep_runtime {

namespace {

struct TorchState {
  PyTypeObject* tensor = nullptr;  // torch.Tensor
  PyObject* from_numpy = nullptr;  // torch.from_numpy
  PyObject* numpy_name = nullptr;  // interned "numpy"
};

// Leaked strong references, as g_np's: they live as long as the interpreter.
TorchState* g_torch = nullptr;

py::object boundary(const char* name) {
  return py::module_::import("everypath.lowering.torch_boundary").attr(name);
}

}  // namespace

void init_torch_state() {
  if (g_torch != nullptr) return;
  py::module_ torch = py::module_::import("torch");
  auto* st = new TorchState();
  st->tensor = reinterpret_cast<PyTypeObject*>(py::object(torch.attr("Tensor")).release().ptr());
  st->from_numpy = py::object(torch.attr("from_numpy")).release().ptr();
  st->numpy_name = PyUnicode_InternFromString("numpy");
  if (st->numpy_name == nullptr) throw py::error_already_set();
  g_torch = st;
}

bool is_tensor(PyObject* obj) {
  return g_torch != nullptr && PyObject_TypeCheck(obj, g_torch->tensor);
}

py::object tensor_view(PyObject* tensor, const std::string& fname, const std::string& label) {
  PyObject* a = PyObject_CallMethodNoArgs(tensor, g_torch->numpy_name);
  if (a != nullptr) return py::reinterpret_steal<py::object>(a);
  // grad, another device or layout, a dtype NumPy lacks, a lazy conj/neg view: Python says which
  PyErr_Clear();
  return boundary("tensor_view")(fname, label, py::handle(tensor));
}

py::object tensor_from(const py::object& array) {
  PyObject* t = PyObject_CallOneArg(g_torch->from_numpy, array.ptr());
  if (t == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(t);
}

bool has_torch(const Type& t) {
  if (t.kind == Kind::Array) return t.torch;
  for (const Type& i : t.items) {
    if (has_torch(i)) return true;
  }
  return false;
}

std::string torch_broadcast_message(const std::string& numpy_message) {
  return boundary("torch_broadcast_message")(numpy_message).cast<std::string>();
}

}  // namespace ep_runtime
