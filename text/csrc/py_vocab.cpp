#include "py_vocab.h"

#include <algorithm>

#include "py_utf8.h"

namespace py = pybind11;

namespace embertext {

void PyVocab::attach_ints() const {
  auto& self = const_cast<PyVocab&>(*this);  // the ints are a cache: lookups stay logically const
  ints_.reserve(itos().size());
  for (size_t i = ints_.size(); i < itos().size(); ++i) ints_.push_back(py::int_(static_cast<int64_t>(i)));
  std::vector<void*> payloads(ints_.size());
  for (size_t i = 0; i < ints_.size(); ++i) payloads[i] = ints_[i].ptr();
  self.table().attach(payloads);
  attached_generation_ = self.table().generation();
}

PyObject* PyVocab::index_object(PyObject* token) const {
  TokenTable::Found found = lookup(utf8_view(token));
  if (found.index < 0) return py::int_(index(utf8_view(token))).release().ptr();  // the default index, or the error
  PyObject* value = static_cast<PyObject*>(found.payload);
  if (!value) {
    attach_ints();
    value = ints_[found.index].ptr();
  }
  Py_INCREF(value);
  return value;
}

int64_t PyVocab::index_of(const py::handle& token) const { return index(utf8_view(token.ptr())); }

Py_ssize_t PyVocab::lookup_block(PyObject** in, Py_ssize_t count, PyObject** out) const {
  // Three passes over a block of tokens, so that the cache misses of different tokens (their slots, then
  // their int objects) are in flight together; one token after another, each waited for the last's.
  TokenTable::Probe probes[kBlock];
  Py_ssize_t ready = 0;
  for (; ready < count; ++ready) {
    PyObject* token = in[ready];
    Py_ssize_t size = 0;
    const char* data = PyUnicode_Check(token) ? PyUnicode_AsUTF8AndSize(token, &size) : nullptr;
    if (!data) {  // not a str, or no UTF-8 (lone surrogates): index_object raises for it in order
      PyErr_Clear();
      break;
    }
    probes[ready] = TokenTable::Probe(std::string_view(data, size));
    table().prefetch(probes[ready]);
  }
  PyObject* values[kBlock];
  for (Py_ssize_t i = 0; i < ready; ++i) {
    TokenTable::Found found = table().lookup(probes[i], itos());
    values[i] = found.index >= 0 ? static_cast<PyObject*>(found.payload) : nullptr;
    if (values[i]) __builtin_prefetch(values[i], 1);
  }
  for (Py_ssize_t i = 0; i < ready; ++i) {
    if (values[i]) {
      Py_INCREF(values[i]);
      out[i] = values[i];
    } else {
      out[i] = index_object(in[i]);  // an int not attached yet, the default index, or the error
    }
  }
  return ready;
}

py::list PyVocab::indices_of(const py::sequence& tokens) const {
  if (PyUnicode_Check(tokens.ptr())) throw py::type_error("Vocab: expected a list of tokens, got a str");
  // A list or tuple is read in place; another sequence is copied into a list once.
  auto items = py::reinterpret_steal<py::object>(PySequence_Fast(tokens.ptr(), "Vocab: expected a list of tokens"));
  if (!items) throw py::error_already_set();
  Py_ssize_t n = PySequence_Fast_GET_SIZE(items.ptr());
  PyObject** in = PySequence_Fast_ITEMS(items.ptr());
  py::list out(n);
  PyObject** slots = reinterpret_cast<PyListObject*>(out.ptr())->ob_item;
  for (Py_ssize_t i = 0; i < n;) {
    Py_ssize_t done = lookup_block(in + i, std::min<Py_ssize_t>(kBlock, n - i), slots + i);
    if (done == 0) {  // the next item is not a str: raises (or is a str after all, in a subclass's way)
      slots[i] = index_object(in[i]);
      done = 1;
    }
    i += done;
  }
  return out;
}

bool PyVocab::contains_str(const py::handle& token) const {
  return PyUnicode_Check(token.ptr()) && contains(utf8_view(token.ptr()));
}

void PyVocab::append(const std::string& token) {
  append_token(token);
  if (ints_.empty()) return;
  if (table().generation() != attached_generation_) {  // the table grew: every slot is new
    attach_ints();
    return;
  }
  ints_.push_back(py::int_(size() - 1));  // one new slot
  table().attach(token, itos(), ints_.back().ptr());
}

void PyVocab::insert(const std::string& token, int64_t index) {
  insert_token(token, index);  // rebuilds the table: the ints are attached again on the next lookup
  if (!ints_.empty()) ints_.push_back(py::int_(size() - 1));
}

}  // namespace embertext
