// Advanced indexing reads and writes (see index_advanced.h). One indexed dim goes straight to the
// gather/scatter loops with its index; several are first folded into one table of element offsets.
#include "kernels/cpu/index_advanced.h"

#include "iter/copy.h"
#include "iter/tensor_iter.h"
#include "kernels/cpu/index_kernels.h"
#include "tensor/mem_overlap.h"

namespace ember {

namespace {

// Everything a read or write needs: the result shape and, per result dim, the strides of self
// and of the index (or offset table).
struct Plan {
  DimVec shape;
  DimVec self_strides;  // elements
  Tensor idx;           // int64
  DimVec idx_strides;   // elements
  IndexSpec spec;
};

Plan make_plan(const Tensor& self, const std::vector<Tensor>& indices_in, const DimVec* labels) {
  const int64_t nd = self.dim();
  EMBER_CHECK(int64_t(indices_in.size()) <= nd, Index, "too many indices for tensor of dimension ", nd, " (got ",
              indices_in.size(), ")");
  std::vector<Tensor> idx(indices_in.size());
  DimVec dims;
  DimVec bshape;
  bool first = true;
  for (size_t d = 0; d < indices_in.size(); d++) {
    const Tensor& t = indices_in[d];
    if (!t.defined()) continue;
    EMBER_CHECK(t.dtype() == ScalarType::Int64 || t.dtype() == ScalarType::Int32, Index,
                "tensors used as indices must be long, int, byte or bool tensors (got ", dtype_name(t.dtype()), ")");
    EMBER_CHECK(t.device() == self.device(), Runtime, "indices should be on the same device as the indexed tensor (",
                self.device().str(), "), got ", t.device().str());
    idx[d] = t.dtype() == ScalarType::Int64 ? t : to_dtype(t, ScalarType::Int64);
    if (first) {
      bshape = t.sizes();
      first = false;
    } else {
      // Broadcasting rules of NumPy, with PyTorch's message on a mismatch.
      DimVec a = bshape, b = t.sizes();
      const int64_t n = std::max(a.size(), b.size());
      DimVec out(n);
      for (int64_t k = 0; k < n; k++) {
        int64_t x = k + a.size() >= n ? a[k + a.size() - n] : 1, y = k + b.size() >= n ? b[k + b.size() - n] : 1;
        if (x != y && x != 1 && y != 1) {
          std::string shapes;
          for (size_t j = 0; j < indices_in.size(); j++) {
            if (!indices_in[j].defined()) continue;
            if (!shapes.empty()) shapes += ", ";
            shapes += str_cat(indices_in[j].sizes());
          }
          EMBER_FAIL(Index, "shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes);
        }
        out[k] = x == 1 ? y : x;
      }
      bshape = out;
    }
    dims.push_back(int64_t(d));
  }
  EMBER_CHECK(!dims.empty(), Runtime, "advanced indexing needs at least one index tensor");
  bool adjacent = true;
  for (int64_t k = 1; k < dims.size(); k++) adjacent &= dims[k] == dims[k - 1] + 1;

  Plan p;
  const int64_t nb = bshape.size();
  // Where the broadcast index dims go in the result, and the non-indexed dims around them.
  const int64_t at = adjacent ? dims[0] : 0;
  auto indexed = [&](int64_t d) { return d < int64_t(idx.size()) && idx[d].defined(); };
  DimVec rest;
  for (int64_t d = 0; d < nd; d++)
    if (!indexed(d)) rest.push_back(d);
  auto label = [&](int64_t d) { return labels ? (*labels)[d] : d; };

  Tensor table;  // int64, shape bshape
  if (dims.size() == 1) {
    const int64_t d = dims[0];
    table = idx[d];
    p.spec.size = self.sizes()[d];
    p.spec.scale = self.strides()[d] * self.itemsize();
    p.spec.dim = label(d);
  } else {
    // Several indexed dims: each index checked against its dim, then summed into element offsets.
    table = empty(bshape, ScalarType::Int64, self.device());
    if (!self.is_meta()) {
      fill_(table, Scalar(int64_t(0)));
      Tensor piece = empty(bshape, ScalarType::Int64, self.device());
      int64_t* out = table.data_as<int64_t>();
      const int64_t n = table.numel();
      for (int64_t d : dims) {
        const int64_t size = self.sizes()[d], stride = self.strides()[d];
        check_index_range(idx[d], size, label(d));
        copy_(piece, idx[d]);
        const int64_t* v = piece.data_as<int64_t>();
        parallel_for(n, 65536, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; i++) out[i] += (v[i] < 0 ? v[i] + size : v[i]) * stride;
        });
      }
    }
    p.spec.check = false;
    p.spec.scale = self.itemsize();
  }
  // The index (or table) broadcast to bshape, as strides.
  DimVec tst(nb, 0);
  for (int64_t k = 0; k < table.dim(); k++) {
    const int64_t kk = nb - table.dim() + k;
    tst[kk] = table.sizes()[k] == 1 ? 0 : table.strides()[k];
  }
  p.idx = table;
  auto push_rest = [&](int64_t d) {
    p.shape.push_back(self.sizes()[d]);
    p.self_strides.push_back(self.strides()[d]);
    p.idx_strides.push_back(0);
  };
  auto push_block = [&]() {
    for (int64_t k = 0; k < nb; k++) {
      p.shape.push_back(bshape[k]);
      p.self_strides.push_back(0);
      p.idx_strides.push_back(tst[k]);
    }
  };
  if (!adjacent) push_block();
  for (int64_t d : rest) {
    if (adjacent && d > at && p.shape.size() == at) push_block();
    push_rest(d);
  }
  if (adjacent && p.shape.size() == at) push_block();
  return p;
}

}  // namespace

Tensor advanced_index(const Tensor& self, const std::vector<Tensor>& indices, const DimVec* dim_labels) {
  Plan p = make_plan(self, indices, dim_labels);
  Tensor out = empty(p.shape, self.dtype(), self.device());
  if (out.is_meta() || out.numel() == 0) return out;
  gather_loop(p.shape, index_operand(out, out.strides()), index_operand(self, p.self_strides),
              index_operand(p.idx, p.idx_strides), self.itemsize(), p.spec);
  return out;
}

void advanced_index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values_in,
                         bool accumulate, const DimVec* dim_labels) {
  Plan p = make_plan(self, indices, dim_labels);
  Tensor values = values_in;
  // Leading size-1 dims beyond the result's rank are dropped, as NumPy and PyTorch do.
  int64_t lead = 0;
  while (values.dim() - lead > p.shape.size() && values.sizes()[lead] == 1) lead++;
  if (lead) {
    DimVec sz(values.sizes().begin() + lead, values.sizes().end());
    DimVec st(values.strides().begin() + lead, values.strides().end());
    values = make_view(values, sz, st, values.offset());
  }
  bool fits = values.dim() <= p.shape.size();
  for (int64_t k = 0; fits && k < values.dim(); k++) {
    const int64_t s = values.sizes()[k], want = p.shape[p.shape.size() - values.dim() + k];
    fits = s == want || s == 1;
  }
  EMBER_CHECK(fits, Runtime, "shape mismatch: value tensor of shape ", values_in.sizes(),
              " cannot be broadcast to indexing result of shape ", p.shape);
  EMBER_CHECK(values.device() == self.device(), Runtime, "index_put_: values on ", values.device().str(),
              " but self on ", self.device().str());
  if (self.is_meta()) return;
  if (values.dtype() != self.dtype()) values = to_dtype(values, self.dtype());
  // Values reading the memory being written (in a layout the overlap check cannot see) are copied first.
  else if (values.storage().get() == self.storage().get())
    values = contiguous_copy(values);
  scatter_loop(p.shape, index_operand(self, p.self_strides), index_operand(values, p.shape, true),
               index_operand(p.idx, p.idx_strides), self.dtype(), accumulate ? ScatterMode::Add : ScatterMode::Assign,
               p.spec);
  self.bump_version();
}

void check_index_put_overlap(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values) {
  assert_no_overlap(self, values, "index_put_");
  for (const Tensor& i : indices) assert_no_overlap(self, i, "index_put_");
}

std::vector<Tensor> expand_index_list(const Tensor& self, const std::vector<Tensor>& indices) {
  std::vector<Tensor> out;
  for (const Tensor& t : indices) {
    if (t.defined() && (t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::UInt8)) {
      const int64_t d0 = out.size();
      EMBER_CHECK(d0 + t.dim() <= self.dim(), Index, "too many indices for tensor of dimension ", self.dim());
      for (int64_t k = 0; k < t.dim(); k++) {
        EMBER_CHECK(t.sizes()[k] == self.sizes()[d0 + k], Index, "The shape of the mask ", t.sizes(), " at index ", k,
                    " does not match the shape of the indexed tensor ", self.sizes(), " at index ", d0 + k);
      }
      for (Tensor& c : mask_to_indices(t)) out.push_back(c);
    } else {
      out.push_back(t);
    }
  }
  EMBER_CHECK(int64_t(out.size()) <= self.dim(), Index, "too many indices for tensor of dimension ", self.dim(),
              " (got ", out.size(), ")");
  return out;
}

}  // namespace ember
