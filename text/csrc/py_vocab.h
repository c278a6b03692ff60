// Vocab as bound to Python: a list of Python strs is looked up with each str's cached hash (as a dict
// does) in a table built on first use, and answered with cached int objects, so a lookup neither hashes
// the text again nor allocates. Changes to the vocabulary drop the table.
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
  struct Slot {
    Py_hash_t hash;
    int64_t index;  // -1: empty
  };
  void build() const;
  int64_t find(PyObject* token) const;            // -1 when absent
  PyObject* index_object(PyObject* token) const;  // a new reference

  mutable std::vector<Slot> slots_;
  mutable std::vector<pybind11::object> ints_;
};

}  // namespace embertext
