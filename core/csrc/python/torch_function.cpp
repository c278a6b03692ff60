// The __torch_function__ protocol's C side: which arguments ask for dispatch (Tensor subclasses and
// objects whose type defines __torch_function__), the thread's "disabled" state, and the hand-over of
// a call to the Python handler that ember.overrides registers.
#include "python/torch_function.h"

#include <structmember.h>

#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/py_errors.h"

namespace ember::py {

namespace {

PyObject* g_handler = nullptr;        // ember.overrides._handle_from_c
PyObject* g_disabled_impl = nullptr;  // ember._C._disabled_torch_function_impl
PyObject* g_name = nullptr;           // "__torch_function__", interned
// 0: on; 1: Tensor subclasses are taken as plain tensors (DisableTorchFunctionSubclass); 2: all off.
thread_local int t_disabled = 0;

bool type_overrides(PyTypeObject* t) {
  if (!g_name) return false;
  PyObject* f = _PyType_Lookup(t, g_name);  // borrowed, no exception when absent
  return f && f != g_disabled_impl;
}

}  // namespace

bool torch_function_slow(PyObject* o) {
  if (t_disabled == 2 || !g_handler) return false;
  if (PyList_Check(o) || PyTuple_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (!torch_function_plain(items[i]) && !PyList_Check(items[i]) && !PyTuple_Check(items[i]) &&
          torch_function_slow(items[i]))
        return true;
    return false;
  }
  if (is_tensor(o) && (t_disabled == 1 || Py_TYPE(o) == TensorBaseType)) return false;
  return type_overrides(Py_TYPE(o));
}

PyObject* torch_function_dispatch(const char* name, const char* ns, bool method, PyObject* self, PyObject* const* args,
                                  Py_ssize_t nargs, PyObject* kwnames) {
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject* tuple = PyTuple_New(nargs + (self ? 1 : 0));
  PyObject* kwargs = PyDict_New();
  if (!tuple || !kwargs) {
    Py_XDECREF(tuple);
    Py_XDECREF(kwargs);
    return nullptr;
  }
  Py_ssize_t k = 0;
  if (self) PyTuple_SET_ITEM(tuple, k++, Py_NewRef(self));
  for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(tuple, k++, Py_NewRef(args[i]));
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0) {
      Py_DECREF(tuple);
      Py_DECREF(kwargs);
      return nullptr;
    }
  }
  PyObject* res = PyObject_CallFunction(g_handler, "ssOOO", name, ns, method ? Py_True : Py_False, tuple, kwargs);
  Py_DECREF(tuple);
  Py_DECREF(kwargs);
  return res;
}

namespace {

// ember._C._Overridable(func, handler): a callable that calls func, unless an argument asks for
// __torch_function__, when it calls handler(self, args, kwargs). The Python-written public functions
// (nn.functional's) are wrapped in it: the test costs what the bindings' does, with no Python frame.
struct OverridableObject {
  PyObject_HEAD PyObject* func;
  PyObject* handler;
  PyObject* dict;
  vectorcallfunc vectorcall;
};

PyObject* overridable_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* o = reinterpret_cast<OverridableObject*>(self);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (!torch_function_needed(nullptr, args, nargs, kwnames)) return PyObject_Vectorcall(o->func, args, nargsf, kwnames);
  PyObject* tuple = PyTuple_New(nargs);
  PyObject* kwargs = PyDict_New();
  bool ok = tuple && kwargs;
  for (Py_ssize_t i = 0; ok && i < nargs; ++i) PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
  for (Py_ssize_t i = 0; ok && kwnames && i < PyTuple_GET_SIZE(kwnames); ++i)
    ok = PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) == 0;
  PyObject* res = ok ? PyObject_CallFunctionObjArgs(o->handler, self, tuple, kwargs, nullptr) : nullptr;
  Py_XDECREF(tuple);
  Py_XDECREF(kwargs);
  return res;
}

PyObject* overridable_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *func, *handler;
  if (!PyArg_ParseTuple(args, "OO:_Overridable", &func, &handler)) return nullptr;
  auto* o = reinterpret_cast<OverridableObject*>(type->tp_alloc(type, 0));
  if (!o) return nullptr;
  o->func = Py_NewRef(func);
  o->handler = Py_NewRef(handler);
  o->vectorcall = overridable_call;
  return reinterpret_cast<PyObject*>(o);
}

int overridable_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* o = reinterpret_cast<OverridableObject*>(self);
  Py_VISIT(o->func);
  Py_VISIT(o->handler);
  Py_VISIT(o->dict);
  return 0;
}

int overridable_clear(PyObject* self) {
  auto* o = reinterpret_cast<OverridableObject*>(self);
  Py_CLEAR(o->func);
  Py_CLEAR(o->handler);
  Py_CLEAR(o->dict);
  return 0;
}

void overridable_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  overridable_clear(self);
  Py_TYPE(self)->tp_free(self);
}

PyMemberDef overridable_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(OverridableObject, dict), READONLY, nullptr},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(OverridableObject, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

// Printed and pickled as the function it wraps (pickle looks the name up in __module__).
PyObject* overridable_repr(PyObject* self) { return PyObject_Repr(reinterpret_cast<OverridableObject*>(self)->func); }
PyObject* overridable_reduce(PyObject* self, PyObject*) { return PyObject_GetAttrString(self, "__qualname__"); }
PyMethodDef overridable_methods[] = {{"__reduce__", overridable_reduce, METH_NOARGS, nullptr},
                                     {nullptr, nullptr, 0, nullptr}};

PyGetSetDef overridable_getset[] = {{"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
                                    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot overridable_slots[] = {
    {Py_tp_getset, overridable_getset},          {Py_tp_new, (void*)overridable_new},
    {Py_tp_dealloc, (void*)overridable_dealloc}, {Py_tp_traverse, (void*)overridable_traverse},
    {Py_tp_clear, (void*)overridable_clear},     {Py_tp_call, (void*)PyVectorcall_Call},
    {Py_tp_members, overridable_members},        {Py_tp_repr, (void*)overridable_repr},
    {Py_tp_methods, overridable_methods},        {0, nullptr}};

PyType_Spec overridable_spec = {"ember._C._Overridable", sizeof(OverridableObject), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
                                overridable_slots};

PyObject* fn__set_torch_function_handler(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static ArgParser p("_set_torch_function_handler(object handler, object disabled_impl)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  if (!g_name) g_name = PyUnicode_InternFromString("__torch_function__");
  Py_XSETREF(g_handler, Py_NewRef(r.object(0)));
  Py_XSETREF(g_disabled_impl, Py_NewRef(r.object(1)));
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}

// Sets the thread's disabled state (0, 1 or 2) and returns the previous one (for context managers).
PyObject* fn__set_torch_function_disabled(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static ArgParser p("_set_torch_function_disabled(int state)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  int64_t s = r.int64(0);
  EMBER_CHECK(s >= 0 && s <= 2, Value, "_set_torch_function_disabled: state must be 0, 1 or 2, got ", s);
  int prev = t_disabled;
  t_disabled = int(s);
  return PyLong_FromLong(prev);
  EMBER_PY_END(nullptr)
}

PyObject* fn__torch_function_disabled(PyObject*, PyObject* const*, Py_ssize_t, PyObject*) {
  return PyLong_FromLong(t_disabled);
}

// Whether any of the given objects (a tuple of arguments; lists/tuples inside are looked into) asks
// for dispatch: the C test that ember.overrides.has_torch_function and Python-written functions use.
PyObject* fn__has_torch_function(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject*) {
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    PyObject* o = args[i];
    if (torch_function_plain(o)) continue;
    if (torch_function_slow(o)) Py_RETURN_TRUE;
  }
  Py_RETURN_FALSE;
}

// _C._overridable(func, handler): func wrapped in an _Overridable (the type made on first use).
PyObject* fn__overridable(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static ArgParser p("_overridable(object func, object handler)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  static PyObject* type = PyType_FromSpec(&overridable_spec);
  if (!type) return nullptr;
  return PyObject_CallFunctionObjArgs(type, r.object(0), r.object(1), nullptr);
  EMBER_PY_END(nullptr)
}

}  // namespace

void add_torch_function_functions(std::vector<PyMethodDef>& v) {
  v.push_back({"_set_torch_function_handler", FASTCALL(fn__set_torch_function_handler), nullptr});
  v.push_back({"_set_torch_function_disabled", FASTCALL(fn__set_torch_function_disabled), nullptr});
  v.push_back({"_torch_function_disabled", FASTCALL(fn__torch_function_disabled), nullptr});
  v.push_back({"_has_torch_function", FASTCALL(fn__has_torch_function), nullptr});
  v.push_back({"_overridable", FASTCALL(fn__overridable), nullptr});
}

}  // namespace ember::py
