// Argument parsing for op bindings (see arg_parser.h).
#include "python/arg_parser.h"

#include <cstring>

#include "iter/copy.h"
#include "python/generator_object.h"
#include "python/py_errors.h"

namespace ember::py {

PyTypeObject* SparseTensorClass = nullptr;  // ember.sparse's SparseTensor (module.cpp registers it)

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

ArgType parse_type(std::string t, bool& optional) {
  optional = !t.empty() && t.back() == '?';
  if (optional) t.pop_back();
  if (t == "Tensor") return ArgType::Tensor;
  if (t == "TensorLike") return ArgType::TensorLike;
  if (t == "Tensor[]") return ArgType::TensorList;
  if (t == "Scalar") return ArgType::Scalar;
  if (t == "int") return ArgType::Int;
  if (t == "int[]") return ArgType::IntList;
  if (t == "float") return ArgType::Float;
  if (t == "bool") return ArgType::Bool;
  if (t == "str") return ArgType::Str;
  if (t == "ScalarType") return ArgType::DType;
  if (t == "Device") return ArgType::Device;
  if (t == "object") return ArgType::Object;
  if (t == "Generator") return ArgType::Generator;
  throw std::logic_error("unknown schema type " + t);
}

PyObject* parse_default(const std::string& v) {
  if (v == "None") return nullptr;
  if (v == "True") return Py_NewRef(Py_True);
  if (v == "False") return Py_NewRef(Py_False);
  if (v.size() >= 2 && (v[0] == '\'' || v[0] == '"')) return PyUnicode_FromStringAndSize(v.data() + 1, v.size() - 2);
  if (v.find_first_of(".eE") != std::string::npos && v.find("inf") == std::string::npos)
    return PyFloat_FromDouble(std::stod(v));
  if (v == "inf") return PyFloat_FromDouble(HUGE_VAL);
  if (v == "-inf") return PyFloat_FromDouble(-HUGE_VAL);
  if (v.size() >= 2 && v[0] == '[') {  // int list like [] or [0,1]
    PyObject* l = PyList_New(0);
    std::string body = v.substr(1, v.size() - 2);
    size_t p = 0;
    while (p < body.size()) {
      size_t c = body.find(',', p);
      std::string item = trim(body.substr(p, c == std::string::npos ? std::string::npos : c - p));
      if (!item.empty()) {
        PyObject* x = PyLong_FromLongLong(std::stoll(item));
        PyList_Append(l, x);
        Py_DECREF(x);
      }
      if (c == std::string::npos) break;
      p = c + 1;
    }
    return l;
  }
  return PyLong_FromLongLong(std::stoll(v));
}

const char* type_label(ArgType t) {
  switch (t) {
    case ArgType::Tensor:
      return "Tensor";
    case ArgType::TensorLike:
      return "Tensor or Number";
    case ArgType::TensorList:
      return "tuple of Tensors";
    case ArgType::Scalar:
      return "Number";
    case ArgType::Int:
      return "int";
    case ArgType::IntList:
      return "tuple of ints";
    case ArgType::Float:
      return "float";
    case ArgType::Bool:
      return "bool";
    case ArgType::Str:
      return "str";
    case ArgType::DType:
      return "ember.dtype";
    case ArgType::Device:
      return "ember.device";
    case ArgType::Generator:
      return "ember.Generator";
    default:
      return "object";
  }
}

// The UTF-8 name of a keyword argument; a name that has none (a lone surrogate) matches nothing.
const char* keyword_name(const std::string& fn, PyObject* key) {
  const char* kw = PyUnicode_AsUTF8(key);
  if (!kw) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", fn.c_str(), key);
    throw PythonError();
  }
  return kw;
}

// A sparse tensor's C++ part is a data-less meta tensor (ember/sparse/_tensor.py): an op without a
// sparse kernel refuses it, with PyTorch's dispatcher error, rather than computing on that part.
bool is_sparse_object(PyObject* v) { return SparseTensorClass && Py_TYPE(v) == SparseTensorClass; }

[[noreturn]] void refuse_sparse(const std::string& op, PyObject* v) {
  PyObject* csr = PyObject_GetAttrString(v, "is_sparse_csr");
  const bool is_csr = csr == Py_True;
  Py_XDECREF(csr);
  PyErr_Clear();
  throw Error(ErrorKind::NotImplemented,
              str_cat("Could not run 'aten::", op, "' with arguments from the '", is_csr ? "SparseCsrCPU" : "SparseCPU",
                      "' backend. This could be because the operator doesn't exist for this backend."));
}

}  // namespace

std::string type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

ArgParser::ArgParser(const char* signature) {
  std::string sig = signature;
  size_t lp = sig.find('('), rp = sig.rfind(')');
  name_ = sig.substr(0, lp);
  trace_name_ = "aten::" + name_;  // PyTorch's names, so code that looks for "aten::mm" finds it
  std::string body = sig.substr(lp + 1, rp - lp - 1);
  bool kwonly = false;
  size_t p = 0;
  while (p <= body.size()) {
    // split at commas that are not inside [] (default lists)
    size_t c = p;
    int depth = 0;
    while (c < body.size() && (body[c] != ',' || depth)) {
      if (body[c] == '[') depth++;
      if (body[c] == ']') depth--;
      c++;
    }
    std::string item = trim(body.substr(p, c - p));
    p = c + 1;
    if (item.empty()) {
      if (c >= body.size()) break;
      continue;
    }
    if (item == "*") {
      kwonly = true;
      continue;
    }
    ArgSpec a;
    size_t sp = item.find(' ');
    std::string type = item.substr(0, sp), rest = trim(item.substr(sp + 1));
    a.type = parse_type(type, a.optional);
    size_t eq = rest.find('=');
    a.name = trim(rest.substr(0, eq));
    if (eq != std::string::npos) {
      a.required = false;
      a.default_value = parse_default(trim(rest.substr(eq + 1)));
    }
    a.kwonly = kwonly;
    if (!kwonly) npositional_++;
    args_.push_back(a);
    if (args_.size() > size_t(ParsedArgs::kMax))  // ParsedArgs has room for kMax values
      throw std::logic_error(name_ + ": a signature may have at most 24 arguments");
    if (c >= body.size()) break;
  }
}

// The argument a keyword names: its own name first, else one of PyTorch's NumPy-style aliases (x, a
// or x1 for input, x2 for other, axis for dim, keepdims for keepdim), as torch's parser accepts; n if none.
static int keyword_index(const std::vector<ArgSpec>& args, const char* kw) {
  const int n = int(args.size());
  for (int j = 0; j < n; j++)
    if (args[j].name == kw) return j;
  static const std::pair<const char*, const char*> kAliases[] = {
      {"x", "input"}, {"a", "input"}, {"x1", "input"}, {"x2", "other"}, {"axis", "dim"}, {"keepdims", "keepdim"}};
  for (const auto& [alias, name] : kAliases)
    if (std::strcmp(kw, alias) == 0)
      for (int j = 0; j < n; j++)
        if (args[j].name == name) return j;
  return n;
}

void ArgParser::type_error(int i, PyObject* got, bool positional) const {
  // PyTorch's wording: the position is named only for an argument passed by position.
  if (positional)
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be %s, not %s", name_.c_str(),
                 args_[i].name.c_str(), i + 1, type_label(args_[i].type), Py_TYPE(got)->tp_name);
  else
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be %s, not %s", name_.c_str(), args_[i].name.c_str(),
                 type_label(args_[i].type), Py_TYPE(got)->tp_name);
  throw PythonError();
}

void ArgParser::parse(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, ParsedArgs& out) const {
  const int n = int(args_.size());
  out.parser = this;
  for (int i = 0; i < n; i++) out.vals[i] = nullptr;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  // Varargs form of a leading int list: f(2, 3) means f((2, 3)).
  if (n > 0 && npositional_ == 1 && args_[0].type == ArgType::IntList && nargs >= 1 &&
      (nargs > 1 || PyLong_Check(args[0]) || (!PySequence_Check(args[0]) && PyIndex_Check(args[0])))) {
    bool all_int = true;
    for (Py_ssize_t k = 0; k < nargs; k++) all_int = all_int && !PySequence_Check(args[k]);
    if (all_int) {
      PyObject* tup = PyTuple_New(nargs);
      for (Py_ssize_t k = 0; k < nargs; k++) PyTuple_SET_ITEM(tup, k, Py_NewRef(args[k]));
      Py_XSETREF(out.owned, tup);
      out.vals[0] = tup;
      args += nargs;
      nargs = 0;
      for (Py_ssize_t k = 0; k < nkw; k++) {
        const char* kw = keyword_name(name_, PyTuple_GET_ITEM(kwnames, k));
        const int j = keyword_index(args_, kw);
        if (j == 0 || j == n) {
          PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", name_.c_str(), kw);
          throw PythonError();
        }
        out.vals[j] = args[k];
      }
      goto defaults;
    }
  }
  if (nargs > npositional_) {
    PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd were given", name_.c_str(), npositional_,
                 npositional_ == 1 ? "" : "s", nargs);
    throw PythonError();
  }
  for (Py_ssize_t k = 0; k < nargs; k++) out.vals[k] = args[k];
  for (Py_ssize_t k = 0; k < nkw; k++) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    const char* kw = keyword_name(name_, key);
    const int j = keyword_index(args_, kw);
    if (j == n) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", name_.c_str(), kw);
      throw PythonError();
    }
    if (out.vals[j]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", name_.c_str(), kw);
      throw PythonError();
    }
    out.vals[j] = args[nargs + k];
  }
defaults:
  for (int i = 0; i < n; i++) {
    const ArgSpec& a = args_[i];
    PyObject* v = out.vals[i];
    if (!v) {
      if (a.required) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (position %d)", name_.c_str(),
                     a.name.c_str(), i + 1);
        throw PythonError();
      }
      out.vals[i] = a.default_value;
      continue;
    }
    if (v == Py_None) {
      if (!a.optional && a.type != ArgType::Object) type_error(i, v, i < nargs);
      continue;
    }
    bool ok = true;
    if (a.type != ArgType::Object && is_sparse_object(v)) refuse_sparse(name_, v);
    switch (a.type) {
      case ArgType::Tensor:
        ok = is_tensor(v);
        break;
      case ArgType::TensorLike:
        ok = is_tensor(v) || is_number(v);
        break;
      case ArgType::Scalar:
        ok = is_number(v) || (is_tensor(v) && unwrap(v).numel() == 1);
        break;
      case ArgType::Int:
        ok = PyIndex_Check(v) && !PyBool_Check(v) && (!is_tensor(v) || is_index_tensor(v));
        break;
      case ArgType::Float:
        // a Tensor has __float__ too, but only one element converts: any other is refused here,
        // naming the argument (not later, by float(), without its name)
        ok = is_tensor(v) ? unwrap(v).numel() == 1 : PyFloat_Check(v) || PyLong_Check(v) || PyNumber_Check(v);
        break;
      case ArgType::Bool:
        ok = PyBool_Check(v);
        break;  // only True/False, as PyTorch (not 1, numpy.bool_)
      case ArgType::Str:
        ok = PyUnicode_Check(v);
        break;
      case ArgType::DType:
        ok = is_dtype(v);
        break;
      case ArgType::Device:
        ok = is_device(v) || PyUnicode_Check(v) || PyLong_Check(v);
        break;
      case ArgType::IntList:
        ok = PySequence_Check(v) || PyLong_Check(v);
        break;
      case ArgType::TensorList:
        ok = PySequence_Check(v) && !is_tensor(v);
        break;
      case ArgType::Generator:
        ok = is_generator(v);
        break;
      default:
        break;
    }
    if (!ok) type_error(i, v, i < nargs);
  }
  if (::ember::trace::on(::ember::trace::kOps) && !trace_name_.empty()) out.trace_handle = trace_call(*this, out);
}

bool ArgParser::accepts(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const {
  const int n = int(args_.size());
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nargs > npositional_ || nargs + nkw > n) return false;
  auto fits = [](const ArgSpec& a, PyObject* v) {
    if (v == Py_None) return a.optional;
    switch (a.type) {
      case ArgType::DType:
        return is_dtype(v);
      case ArgType::Tensor:
        return is_tensor(v);
      case ArgType::Int:
        return bool(PyLong_Check(v));
      case ArgType::Generator:
        return is_generator(v);
      case ArgType::Str:
        return bool(PyUnicode_Check(v));  // norm(p='fro') vs norm(p=2)
      case ArgType::Scalar:
        return is_number(v) || is_tensor(v);
      default:
        return true;  // overloads are told apart by the types above
    }
  };
  for (Py_ssize_t k = 0; k < nargs; k++)
    if (!fits(args_[k], args[k])) return false;
  int given = int(nargs);
  for (Py_ssize_t k = 0; k < nkw; k++) {
    const char* kw = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if (!kw) {
      PyErr_Clear();
      return false;
    }
    const int j = keyword_index(args_, kw);
    if (j == n || j < nargs || !fits(args_[j], args[nargs + k])) return false;
    given++;
  }
  for (int i = 0; i < n; i++)
    if (args_[i].required && i >= nargs) {
      bool named = false;
      for (Py_ssize_t k = 0; k < nkw && !named; k++) {
        const char* kw = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        named = kw && keyword_index(args_, kw) == i;
      }
      if (!named) return false;
    }
  return given > 0 || n == 0;
}

bool is_number(PyObject* o) {
  if (PyFloat_Check(o) || PyLong_Check(o) || PyComplex_Check(o)) return true;
  if (is_tensor(o)) return false;
  // NumPy scalars and other objects with __index__/__float__/__complex__.
  PyNumberMethods* nb = Py_TYPE(o)->tp_as_number;
  return nb && (nb->nb_index || nb->nb_float) && !PySequence_Check(o);
}

Scalar to_scalar(PyObject* o) {
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) {
      // Refused rather than wrapped (PyTorch wraps 2**63..2**64-1 for some ops and refuses them for others).
      EMBER_FAIL(Value, "Overflow when unpacking long: the value does not fit in int64");
    }
    return Scalar(int64_t(v));
  }
  if (PyFloat_Check(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (PyComplex_Check(o)) return Scalar(complex128(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
  if (is_tensor(o)) {
    const Tensor& t = unwrap(o);
    EMBER_CHECK(t.numel() == 1, Runtime, "a Tensor with ", t.numel(), " elements cannot be converted to Scalar");
    EMBER_CHECK(!t.is_meta(), Runtime, "cannot convert a meta tensor to a Python number (it has no data)");
    return visit_dtype(t.dtype(), [&](auto z) -> Scalar {
      using T = decltype(z);
      T v = *t.data_as<T>();
      if constexpr (std::is_same_v<T, bool>)
        return Scalar(v);
      else if constexpr (is_complex_v<T>)
        return Scalar(complex128(v));
      else if constexpr (std::is_integral_v<T>)
        return Scalar(int64_t(v));
      else if constexpr (std::is_same_v<T, double>)
        return Scalar(v);
      else
        return Scalar(double(float(v)));  // float, and half/bfloat16 through float
    });
  }
  PyNumberMethods* nb = Py_TYPE(o)->tp_as_number;
  if (nb && nb->nb_index) {
    PyObject* i = PyNumber_Index(o);
    if (!i) throw PythonError();
    long long v = PyLong_AsLongLong(i);
    Py_DECREF(i);
    if (v == -1 && PyErr_Occurred()) throw PythonError();
    // numpy.bool_ has __index__ but is a bool
    if (std::strcmp(Py_TYPE(o)->tp_name, "numpy.bool") == 0 || std::strcmp(Py_TYPE(o)->tp_name, "numpy.bool_") == 0)
      return Scalar(v != 0);
    return Scalar(int64_t(v));
  }
  if (PyObject_HasAttrString(o, "__complex__") && std::strstr(Py_TYPE(o)->tp_name, "complex")) {
    Py_complex c = PyComplex_AsCComplex(o);
    if (PyErr_Occurred()) throw PythonError();
    return Scalar(complex128(c.real, c.imag));
  }
  if (nb && nb->nb_float) {
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) throw PythonError();
    return Scalar(d);
  }
  EMBER_FAIL(Type, "expected a number, got ", type_name(o));
}

bool is_index_tensor(PyObject* o) {
  const Tensor& t = unwrap(o);
  return t.numel() == 1 && is_integral(t.dtype(), false) && !t.is_meta();
}

int64_t to_int64(PyObject* o, const char* what) {
  if ((is_tensor(o) && !is_index_tensor(o)) || PyFloat_Check(o)) {
    EMBER_FAIL(Type, what, " must be an int, not ", type_name(o));
  }
  PyObject* i = PyNumber_Index(o);
  if (!i) {
    PyErr_Clear();
    EMBER_FAIL(Type, what, " must be an int, not ", type_name(o));
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  Py_DECREF(i);
  EMBER_CHECK(!overflow, Value, what, ": value does not fit in int64");
  return v;
}

Device to_device(PyObject* o) {
  if (is_device(o)) return reinterpret_cast<DeviceObject*>(o)->device;
  if (PyUnicode_Check(o)) {
    const char* s = PyUnicode_AsUTF8(o);
    if (!s) throw PythonError();
    return Device::parse(s);
  }
  // A bare index names a device of the current accelerator; PyTorch's CPU build refuses it with this.
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(o, &overflow);
    EMBER_CHECK(!overflow, Runtime, "Device index must be in [0, 127], got a value that does not fit in int64");
    EMBER_CHECK(i >= 0, Runtime, "Device index must not be negative");
    EMBER_FAIL(Runtime, "Cannot access accelerator device when none is available.");
  }
  EMBER_FAIL(Type, "expected a device (str, int or ember.device), got ", type_name(o));
}

Tensor ParsedArgs::tensor(int i) const { return has(i) ? unwrap(vals[i]) : Tensor(); }

Tensor ParsedArgs::tensor_like(int i) const {
  if (!has(i)) return Tensor();
  if (is_tensor(vals[i])) return unwrap(vals[i]);
  return wrapped_scalar(to_scalar(vals[i]));
}

std::vector<Tensor> ParsedArgs::tensor_list(int i) const {
  std::vector<Tensor> out;
  PyObject* seq = PySequence_Fast(vals[i], "expected a sequence of tensors");
  if (!seq) throw PythonError();
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject* x = PySequence_Fast_GET_ITEM(seq, k);
    if (is_sparse_object(x)) {
      const std::string op = parser->name();
      Py_DECREF(seq);
      refuse_sparse(op, x);
    }
    if (!is_tensor(x)) {
      // The message first: when seq is a list made here, releasing it frees x too.
      std::string msg = str_cat(parser->name(), "(): expected a tuple of Tensors for argument '", parser->arg(i).name,
                                "', but item ", k, " is ", type_name(x));
      Py_DECREF(seq);
      throw Error(ErrorKind::Type, msg);
    }
    out.push_back(unwrap(x));
  }
  Py_DECREF(seq);
  return out;
}

Scalar ParsedArgs::scalar(int i) const { return to_scalar(vals[i]); }

int64_t ParsedArgs::int64(int i) const {
  std::string what = parser->name() + "(): argument '" + parser->arg(i).name + "'";
  return to_int64(vals[i], what.c_str());
}

DimVec ParsedArgs::intlist(int i) const {
  std::string what = parser->name() + "(): argument '" + parser->arg(i).name + "'";
  PyObject* v = vals[i];
  if (!PySequence_Check(v) || is_tensor(v)) return DimVec{to_int64(v, what.c_str())};
  PyObject* seq = PySequence_Fast(v, "expected a sequence of ints");
  if (!seq) throw PythonError();
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  DimVec out(n);
  try {
    for (Py_ssize_t k = 0; k < n; k++) out[k] = to_int64(PySequence_Fast_GET_ITEM(seq, k), what.c_str());
  } catch (...) {
    Py_DECREF(seq);
    throw;
  }
  Py_DECREF(seq);
  return out;
}

double ParsedArgs::dbl(int i) const {
  double d = PyFloat_AsDouble(vals[i]);
  if (d == -1.0 && PyErr_Occurred()) throw PythonError();
  return d;
}

bool ParsedArgs::boolean(int i) const { return PyObject_IsTrue(vals[i]) == 1; }

std::string ParsedArgs::str(int i) const {
  const char* s = PyUnicode_AsUTF8(vals[i]);  // NULL (UnicodeEncodeError set) for lone surrogates
  if (!s) throw PythonError();
  return s;
}

ScalarType ParsedArgs::dtype(int i) const {
  return has(i) ? reinterpret_cast<DTypeObject*>(vals[i])->st : ScalarType::Undefined;
}

std::optional<Device> ParsedArgs::device(int i) const {
  if (!has(i)) return std::nullopt;
  return to_device(vals[i]);
}

GeneratorImpl* ParsedArgs::generator(int i) const { return has(i) ? generator_impl(vals[i]) : nullptr; }

}  // namespace ember::py
