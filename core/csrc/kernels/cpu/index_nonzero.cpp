// nonzero (as an (n, ndim) matrix or as a tuple of columns), where(condition), and the mask to
// index-columns conversion behind boolean indexing. Two passes over fixed-size blocks: count the
// true elements of each block, then write each block's coordinates at its prefix-sum offset.
#include <vector>

#include "device/parallel.h"
#include "generated/ops/_nonzero_tuple.h"
#include "generated/ops/_where_cond.h"
#include "generated/ops/nonzero.h"
#include "iter/copy.h"
#include "kernels/cpu/index_advanced.h"
#include "kernels/cpu/index_kernels.h"
#include "tensor/mem_overlap.h"

namespace ember {

namespace {

constexpr int64_t kBlock = 1 << 16;

// The (n, ndim) int64 coordinates of the nonzero elements of t, row-major.
Tensor nonzero_matrix(const Tensor& t, const char* op) {
  EMBER_CHECK(!t.is_meta(), NotImplemented, op, "(): the result size depends on the data, so it has no meta version");
  const int64_t nd = t.dim();
  Tensor b = contiguous_as(t, ScalarType::Bool);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(b.data());
  const int64_t n = b.numel();
  const int64_t nblocks = (n + kBlock - 1) / kBlock;
  std::vector<int64_t> counts(nblocks + 1, 0);
  parallel_for(nblocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; blk++) {
      const int64_t s = blk * kBlock, e = std::min(n, s + kBlock);
      int64_t c = 0;
      for (int64_t i = s; i < e; i++) c += p[i] != 0;
      counts[blk + 1] = c;
    }
  });
  for (int64_t blk = 0; blk < nblocks; blk++) counts[blk + 1] += counts[blk];
  Tensor out = empty(DimVec{counts[nblocks], nd}, ScalarType::Int64, t.device());
  if (counts[nblocks] == 0 || nd == 0) return out;
  int64_t* o = out.data_as<int64_t>();
  const DimVec& sizes = b.sizes();
  parallel_for(nblocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; blk++) {
      const int64_t s = blk * kBlock, e = std::min(n, s + kBlock);
      int64_t* row = o + counts[blk] * nd;
      DimVec idx(nd);
      int64_t r = s;
      for (int64_t d = nd - 1; d >= 0; d--) {
        idx[d] = r % sizes[d];
        r /= sizes[d];
      }
      for (int64_t i = s; i < e; i++) {
        if (p[i]) {
          for (int64_t d = 0; d < nd; d++) row[d] = idx[d];
          row += nd;
        }
        for (int64_t d = nd - 1; d >= 0 && ++idx[d] == sizes[d]; d--) idx[d] = 0;
      }
    }
  });
  return out;
}

// The columns of an (n, k) matrix as k strided 1-D views.
std::vector<Tensor> columns(const Tensor& m) {
  std::vector<Tensor> cols;
  const int64_t k = m.sizes()[1];
  for (int64_t j = 0; j < k; j++) cols.push_back(make_view(m, DimVec{m.sizes()[0]}, DimVec{k}, m.offset() + j));
  return cols;
}

}  // namespace

std::vector<Tensor> mask_to_indices(const Tensor& mask) { return columns(nonzero_matrix(mask, "index")); }

namespace ops {

Tensor nonzero(const Tensor& input) { return nonzero_matrix(input, "nonzero"); }

Tensor nonzero_out(const Tensor& out, const Tensor& input) {
  assert_no_internal_overlap(out, "nonzero");
  assert_no_overlap(out, input, "nonzero");
  return write_out(out, nonzero_matrix(input, "nonzero"), "nonzero");
}

std::vector<Tensor> _nonzero_tuple(const Tensor& input) {
  return columns(nonzero_matrix(atleast_1d_view(input), "nonzero"));
}

std::vector<Tensor> _where_cond(const Tensor& condition) { return _nonzero_tuple(condition); }

}  // namespace ops

}  // namespace ember
