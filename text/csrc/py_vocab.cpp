#include "py_vocab.h"

#include "py_utf8.h"

namespace py = pybind11;

namespace embertext {
void PyVocab::build() const {
  size_t capacity = 16;
  while (capacity < 2 * itos().size()) capacity *= 2;
  slots_.assign(capacity, Slot{0, -1});
  ints_.clear();
  ints_.reserve(itos().size());
  for (size_t i = 0; i < itos().size(); ++i) {
    py::str token(itos()[i]);
    Py_hash_t hash = PyObject_Hash(token.ptr());
    size_t at = static_cast<size_t>(hash) & (capacity - 1);
    while (slots_[at].index >= 0) at = (at + 1) & (capacity - 1);
    slots_[at] = Slot{hash, static_cast<int64_t>(i)};
    ints_.push_back(py::int_(static_cast<int64_t>(i)));
  }
}

int64_t PyVocab::find(PyObject* token) const {
  std::string_view text = utf8_view(token);
  if (slots_.empty()) build();
  Py_hash_t hash = PyObject_Hash(token);  // cached in the str after its first use
  size_t mask = slots_.size() - 1;
  for (size_t at = static_cast<size_t>(hash) & mask; slots_[at].index >= 0; at = (at + 1) & mask) {
    if (slots_[at].hash == hash && itos()[slots_[at].index] == text) return slots_[at].index;
  }
  return -1;
}

PyObject* PyVocab::index_object(PyObject* token) const {
  int64_t found = find(token);
  if (found >= 0) return ints_[found].inc_ref().ptr();
  // Absent: the default index, or Vocab's error naming the token.
  return py::int_(index(utf8_view(token))).release().ptr();
}

int64_t PyVocab::index_of(const py::handle& token) const {
  int64_t found = find(token.ptr());
  return found >= 0 ? found : index(utf8_view(token.ptr()));
}

py::list PyVocab::indices_of(const py::sequence& tokens) const {
  if (PyUnicode_Check(tokens.ptr())) throw py::type_error("Vocab: expected a list of tokens, got a str");
  py::list out(tokens.size());
  size_t i = 0;
  for (const auto& token : tokens) PyList_SET_ITEM(out.ptr(), i++, index_object(token.ptr()));
  return out;
}

bool PyVocab::contains_str(const py::handle& token) const {
  return PyUnicode_Check(token.ptr()) && find(token.ptr()) >= 0;
}

void PyVocab::append(const std::string& token) {
  append_token(token);
  slots_.clear();
}

void PyVocab::insert(const std::string& token, int64_t index) {
  insert_token(token, index);
  slots_.clear();
}

}  // namespace embertext
