// Vocab as bound to Python: a list of Python strs is looked up by each str's own UTF-8 buffer (no copy) in
// Vocab's table, whose slots carry the index's int object (made once per vocabulary), so a lookup touches
// one slot and the int it returns, and allocates only the result list.
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "vocab.h"

namespace embertext {

class PyVocab : public Vocab {
 public:
  using Vocab::Vocab;

  int64_t index_of(const pybind11::handle& token) const;
  pybind11::list indices_of(const pybind11::sequence& tokens) const;
  bool contains_str(const pybind11::handle& token) const;
  void append(const std::string& token);
  void insert(const std::string& token, int64_t index);

 private:
  static constexpr Py_ssize_t kBlock = 32;
  PyObject* index_object(PyObject* token) const;  // a new reference
  // Looks up in[0..count) (count <= kBlock) into out as new references, stopping before the first item
  // that is not a str with UTF-8; returns how many it did.
  Py_ssize_t lookup_block(PyObject** in, Py_ssize_t count, PyObject** out) const;
  void attach_ints() const;  // makes ints_ and hands them to the table's slots

  mutable std::vector<pybind11::object> ints_;  // ints_[i] is the int i
  mutable uint64_t attached_generation_ = 0;    // the table's generation the ints were attached to
};

}  // namespace embertext
