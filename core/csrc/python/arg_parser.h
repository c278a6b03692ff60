// A schema-driven argument parser for op bindings (vectorcall: no tuple/dict building).
// One parser per signature string, e.g.
//   "add(Tensor input, TensorLike other, *, Scalar alpha=1, Tensor? out=None)"
// Types: Tensor, TensorLike (a tensor or a Python number), Tensor?, Tensor[], Scalar, Scalar?,
// int, int?, int[], int[]?, float, float?, bool, bool?, str, str?, ScalarType?, Device?, Generator?, object.
// An int[] that is the first argument also takes varargs: t.view(2, 3) as t.view((2, 3)).
#pragma once
#include <Python.h>

#include <optional>
#include <string>
#include <vector>

#include "base/trace.h"
#include "python/objects.h"
#include "types/scalar.h"

namespace ember {
class GeneratorImpl;
}

namespace ember::py {

enum class ArgType : int8_t {
  Tensor,
  TensorLike,
  TensorList,
  Scalar,
  Int,
  IntList,
  Float,
  Bool,
  Str,
  DType,
  Device,
  Object,
  Generator
};

struct ArgSpec {
  std::string name;
  ArgType type;
  bool optional = false;  // "?": None allowed
  bool kwonly = false;
  bool required = true;
  PyObject* default_value = nullptr;  // nullptr: None
};

class ParsedArgs;

class ArgParser {
 public:
  explicit ArgParser(const char* signature);
  // `self` is set for methods: the signature then omits it.
  void parse(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, ParsedArgs& out) const;
  // Whether these arguments fit this signature (counts, names, types), without raising: how a
  // binding with overloads picks one before parsing.
  bool accepts(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const;
  const std::string& name() const { return name_; }
  // The profiler's name for calls parsed here ("aten::add"); empty: not recorded here (the op table
  // records the calls of its own ops).
  const std::string& trace_name() const { return trace_name_; }
  void set_trace_name(std::string n) { trace_name_ = std::move(n); }
  const ArgSpec& arg(int i) const { return args_[i]; }
  size_t num_args() const { return args_.size(); }

 private:
  [[noreturn]] void type_error(int i, PyObject* got, bool positional) const;
  std::string name_;
  std::string trace_name_;
  std::vector<ArgSpec> args_;
  int npositional_ = 0;
};

class ParsedArgs {
 public:
  static constexpr int kMax = 24;
  PyObject* vals[kMax];  // borrowed; nullptr or Py_None = None
  const ArgParser* parser = nullptr;
  PyObject* owned = nullptr;  // the tuple built for varargs int lists; lives as long as the parse
  PyObject* self = nullptr;   // a method's tensor, set by the binding (for the profiler's shapes)
  int64_t trace_handle = -1;  // the profiler's event for this call, ended with the binding's scope
  ParsedArgs() = default;
  ParsedArgs(const ParsedArgs&) = delete;
  ~ParsedArgs() {
    if (trace_handle >= 0) ::ember::trace::end(trace_handle);
    Py_XDECREF(owned);
  }

  bool has(int i) const { return vals[i] && vals[i] != Py_None; }
  Tensor tensor(int i) const;       // None -> undefined tensor
  Tensor tensor_like(int i) const;  // numbers become wrapped 0-dim tensors
  std::vector<Tensor> tensor_list(int i) const;
  Scalar scalar(int i) const;
  std::optional<Scalar> scalar_opt(int i) const { return has(i) ? std::optional<Scalar>(scalar(i)) : std::nullopt; }
  int64_t int64(int i) const;
  std::optional<int64_t> int64_opt(int i) const { return has(i) ? std::optional<int64_t>(int64(i)) : std::nullopt; }
  DimVec intlist(int i) const;
  std::optional<DimVec> intlist_opt(int i) const { return has(i) ? std::optional<DimVec>(intlist(i)) : std::nullopt; }
  double dbl(int i) const;
  std::optional<double> dbl_opt(int i) const { return has(i) ? std::optional<double>(dbl(i)) : std::nullopt; }
  bool boolean(int i) const;
  std::optional<bool> boolean_opt(int i) const { return has(i) ? std::optional<bool>(boolean(i)) : std::nullopt; }
  std::string str(int i) const;
  std::optional<std::string> str_opt(int i) const { return has(i) ? std::optional<std::string>(str(i)) : std::nullopt; }
  ScalarType dtype(int i) const;  // None -> Undefined
  std::optional<Device> device(int i) const;
  GeneratorImpl* generator(int i) const;  // None -> nullptr (the default generator)
  PyObject* object(int i) const { return vals[i]; }
};

// Opens the profiler's event for a parsed call: its name, and the arguments' shapes, dtypes and
// values and the Python stack when those are recorded (trace_args.cpp).
int64_t trace_call(const ArgParser& p, const ParsedArgs& r);

// Conversions shared with the rest of the bindings.
bool is_number(PyObject* o);
Scalar to_scalar(PyObject* o);  // raises TypeError for non-numbers
int64_t to_int64(PyObject* o, const char* what);
// A tensor usable as an int argument: one element of an integer dtype (t.size(0) for zeros(t)).
bool is_index_tensor(PyObject* o);
Device to_device(PyObject* o);
std::string type_name(PyObject* o);

}  // namespace ember::py
