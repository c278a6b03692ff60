// Python index expressions (t[...]) turned into a basic view plus the advanced index tensors that
// still apply to it: the parsing half of indexing.cpp.
#pragma once
#include <Python.h>

#include <vector>

#include "tensor/factory.h"

namespace ember::py {

struct ParsedIndex {
  Tensor view;                  // t after integers, slices, None, Ellipsis and Python bools
  std::vector<Tensor> indices;  // one per dim of view: an int64 index tensor, or undefined
  DimVec labels;                // per dim of view, the dim of t it came from (for IndexError)
  bool advanced = false;        // whether any entry of indices is defined
};

// Applies the basic part of `index` to t. Integer tensors, lists and NumPy arrays become index
// tensors; bool masks become the index columns of their true elements (a k-dim mask indexes k dims).
ParsedIndex parse_index(const Tensor& t, PyObject* index);

}  // namespace ember::py
