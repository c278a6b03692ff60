// Private bindings of the memory-format rules; formats travel as MemoryFormat's int codes, which
// ember/_memory_format.py maps to its ember.memory_format objects.
#include "python/memory_format.h"

#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/parsed_fn.h"
#include "python/py_errors.h"
#include "tensor/memory_format.h"

namespace ember::py {
namespace {

MemoryFormat format_code(int64_t code) {
  EMBER_CHECK(code >= 0 && code <= 3, Value, "invalid memory format code ", code);
  return MemoryFormat(code);
}

PyObject* int_list(const DimVec& v) {
  PyObject* out = PyTuple_New(Py_ssize_t(v.size()));
  if (!out) throw PythonError();
  for (size_t i = 0; i < v.size(); i++) PyTuple_SET_ITEM(out, Py_ssize_t(i), PyLong_FromLongLong(v[i]));
  return out;
}

EMBER_FN(_is_contiguous_in, "_is_contiguous_in(Tensor self, int memory_format)",
         return PyBool_FromLong(is_contiguous_in(r.tensor(0), format_code(r.int64(1))));)
EMBER_FN(_suggest_memory_format, "_suggest_memory_format(Tensor self, bool exact_match=False)",
         return PyLong_FromLong(int(suggest_memory_format(r.tensor(0), r.boolean(1))));)
EMBER_FN(_memory_format_strides, "_memory_format_strides(int[] size, int memory_format)",
         return int_list(memory_format_strides(r.intlist(0), format_code(r.int64(1))));)

#undef EMBER_FN

}  // namespace

void add_memory_format_functions(std::vector<PyMethodDef>& v) {
  v.push_back({"_is_contiguous_in", FASTCALL(fn__is_contiguous_in), nullptr});
  v.push_back({"_suggest_memory_format", FASTCALL(fn__suggest_memory_format), nullptr});
  v.push_back({"_memory_format_strides", FASTCALL(fn__memory_format_strides), nullptr});
}

}  // namespace ember::py
