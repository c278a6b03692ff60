// ember._C's profiler functions (ember.profiler builds its API on them):
//   _profiler_start(flags), _profiler_stop() -> (events, memory_events), _profiler_enabled(),
//   _record_function_enter(name) -> handle, _record_function_exit(handle),
//   _cpu_memory_allocated().
// An event is a tuple (name, kind, tid, start_ns, end_ns, self_bytes, shapes, dtypes, concrete,
// stack); a memory event (ts_ns, tid, bytes, total_allocated, ptr).
#include <Python.h>

#include <string>
#include <vector>

#include "base/trace.h"
#include "device/allocator.h"
#include "python/creation.h"

namespace ember::py {
namespace {

PyObject* string_list(const std::vector<std::string>& v) {
  PyObject* l = PyList_New(Py_ssize_t(v.size()));
  for (size_t i = 0; l && i < v.size(); i++) PyList_SET_ITEM(l, Py_ssize_t(i), PyUnicode_FromString(v[i].c_str()));
  return l;
}

PyObject* shape_list(const std::vector<std::vector<int64_t>>& v) {
  PyObject* l = PyList_New(Py_ssize_t(v.size()));
  for (size_t i = 0; l && i < v.size(); i++) {
    PyObject* s = PyList_New(Py_ssize_t(v[i].size()));
    for (size_t j = 0; s && j < v[i].size(); j++) PyList_SET_ITEM(s, Py_ssize_t(j), PyLong_FromLongLong(v[i][j]));
    PyList_SET_ITEM(l, Py_ssize_t(i), s);
  }
  return l;
}

PyObject* fn_profiler_start(PyObject*, PyObject* arg) {
  long flags = PyLong_AsLong(arg);
  if (flags == -1 && PyErr_Occurred()) return nullptr;
  if (trace::on(~0u)) {
    PyErr_SetString(PyExc_RuntimeError, "Profiler is already enabled on this thread");
    return nullptr;
  }
  trace::start(uint32_t(flags) | trace::kOps);
  Py_RETURN_NONE;
}

PyObject* fn_profiler_stop(PyObject*, PyObject*) {
  std::vector<trace::Event> events;
  std::vector<trace::MemoryEvent> memory;
  trace::stop(events, memory);
  PyObject* ev = PyList_New(Py_ssize_t(events.size()));
  if (!ev) return nullptr;
  for (size_t i = 0; i < events.size(); i++) {
    const trace::Event& e = events[i];
    PyObject* t =
        Py_BuildValue("(siKLLLNNNN)", e.name.c_str(), int(e.kind), (unsigned long long)e.tid, (long long)e.start_ns,
                      (long long)e.end_ns, (long long)e.self_bytes, shape_list(e.shapes), string_list(e.dtypes),
                      string_list(e.concrete), string_list(e.stack));
    if (!t) {
      Py_DECREF(ev);
      return nullptr;
    }
    PyList_SET_ITEM(ev, Py_ssize_t(i), t);
  }
  PyObject* mem = PyList_New(Py_ssize_t(memory.size()));
  if (!mem) {
    Py_DECREF(ev);
    return nullptr;
  }
  for (size_t i = 0; i < memory.size(); i++) {
    const trace::MemoryEvent& m = memory[i];
    PyList_SET_ITEM(mem, Py_ssize_t(i),
                    Py_BuildValue("(LKLLK)", (long long)m.ts_ns, (unsigned long long)m.tid, (long long)m.bytes,
                                  (long long)m.total_allocated, (unsigned long long)m.ptr));
  }
  return Py_BuildValue("(NN)", ev, mem);
}

PyObject* fn_profiler_enabled(PyObject*, PyObject*) { return PyBool_FromLong(trace::on(trace::kOps)); }

PyObject* fn_record_function_enter(PyObject*, PyObject* name) {
  if (!PyUnicode_Check(name)) {
    PyErr_Format(PyExc_TypeError, "record_function: name must be a str, got %s", Py_TYPE(name)->tp_name);
    return nullptr;
  }
  if (!trace::on(trace::kOps)) return PyLong_FromLong(-1);
  trace::Event e;
  e.name = PyUnicode_AsUTF8(name);
  e.kind = trace::kUserScope;
  return PyLong_FromLongLong(trace::begin(std::move(e)));
}

PyObject* fn_record_function_exit(PyObject*, PyObject* handle) {
  long long h = PyLong_AsLongLong(handle);
  if (h == -1 && PyErr_Occurred()) return nullptr;
  trace::end(h);
  Py_RETURN_NONE;
}

PyObject* fn_now_ns(PyObject*, PyObject*) { return PyLong_FromLongLong(trace::now_ns()); }
PyObject* fn_allocated(PyObject*, PyObject*) { return PyLong_FromLongLong(cpu_allocated_bytes()); }

}  // namespace

void add_profiler_functions(std::vector<PyMethodDef>& v) {
  v.push_back({"_profiler_start", fn_profiler_start, METH_O, nullptr});
  v.push_back({"_profiler_stop", fn_profiler_stop, METH_NOARGS, nullptr});
  v.push_back({"_profiler_enabled", fn_profiler_enabled, METH_NOARGS, nullptr});
  v.push_back({"_profiler_now_ns", fn_now_ns, METH_NOARGS, nullptr});
  v.push_back({"_record_function_enter", fn_record_function_enter, METH_O, nullptr});
  v.push_back({"_record_function_exit", fn_record_function_exit, METH_O, nullptr});
  v.push_back({"_cpu_memory_allocated", fn_allocated, METH_NOARGS, nullptr});
}

}  // namespace ember::py
