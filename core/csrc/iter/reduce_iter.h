// The reduction engine: turns "reduce these dims of a strided tensor" into a canonical 3-D problem
// out[a, i] = fold_r x[a, r, i] (copying the input only for layouts that do not fit) and runs an
// op over it in parallel with a fixed chunking, so results never depend on the thread count.
#pragma once
#include <algorithm>
#include <bitset>
#include <optional>
#include <vector>

#include "device/parallel.h"
#include "iter/out_arg.h"
#include "tensor/factory.h"

namespace ember {

using DimMask = std::bitset<64>;

// The dims named by `dim` (None or empty: all dims), wrapped; a repeated dim raises.
DimMask reduce_mask(const std::optional<DimVec>& dim, int64_t ndim, const char* name);
DimMask reduce_mask_one(int64_t dim, int64_t ndim);
// The result shape: reduced dims dropped, or kept as size 1.
DimVec reduced_shape(const DimVec& sizes, const DimMask& mask, bool keepdim);

struct ReducePlan {
  Tensor src;                      // what is read: the input, or a copy laid out as [kept..., reduced...]
  int64_t A = 1, R = 1, I = 1;     // outer kept, reduced, inner kept extents
  int64_t sa = 0, sr = 0, si = 0;  // input strides (elements)
  int64_t oa = 0, oi = 0;          // strides into a C-contiguous result of the kept dims (elements)
  int64_t out_numel = 1;           // A * I
  // [reduced][kept][reduced] layouts (a conv bias gradient or batch statistics over (N, *, H, W))
  // read in place: R0 runs of R, sr0 apart, fold into each of the A outputs (then I == 1).
  int64_t R0 = 1, sr0 = 0;
};

// The plan for reducing the dims in `mask` of `input`, the result being C-contiguous over the kept
// dims in their order. `ordered`: the reduced elements must be visited in C order of the reduced
// dims (ops that report an index), so those dims are never reordered by stride.
ReducePlan make_reduce_plan(const Tensor& input, const DimMask& mask, bool ordered = false);

// Number of elements reduced into each output.
int64_t reduced_numel(const DimVec& sizes, const DimMask& mask);

// out= handling shared by the reductions: `result` (C-contiguous, right shape and dtype) is
// returned, or copied into `out` after resizing it; `out` must have dtype `want` (PyTorch's check).

// Raised for min/max/argmax-like ops (no identity) over an empty slice.
void check_nonempty_reduction(const Tensor& input, const DimMask& mask, bool full, const char* name);

namespace reduce_detail {
constexpr int64_t kChunk = 16384;     // elements folded into one partial when a run is split
constexpr int64_t kBlockCols = 4096;  // inner-kept columns per accumulator block (whole rows stream best)
constexpr int64_t kRowBlock = 64;     // rows summed into one level before moving up a level
}  // namespace reduce_detail

// Op interface (all const):
//   using in_t, acc_t;  acc_t init();
//   void run(acc_t&, const in_t* p, int64_t n, int64_t stride, int64_t idx0)  // fold p[k*stride], index idx0+k
//   void rows(acc_t* acc, const in_t* p, int64_t m, int64_t si, int64_t r)    // acc[i] ⊕= p[i*si], index r
//   void merge(acc_t& a, const acc_t& b)   // b comes after a
//   void write(const acc_t&, int64_t out_offset)
template <class Op>
void run_reduce(const ReducePlan& p, const Op& op) {
  using In = typename Op::in_t;
  using Acc = typename Op::acc_t;
  using namespace reduce_detail;
  const In* x = p.src.template data_as<In>();
  if (p.out_numel == 0) return;
  if (p.I == 1) {
    // Each output folds one run of R elements. Long runs with few outputs are split into fixed
    // chunks whose partials merge in order; the split depends only on the sizes.
    const int64_t nchunks = (p.R + kChunk - 1) / kChunk;
    if (p.A >= 8 || nchunks < 4 || p.R0 > 1) {
      parallel_for(p.A, std::max<int64_t>(1, kChunk / std::max<int64_t>(p.R * p.R0, 1)), [&](int64_t b, int64_t e) {
        for (int64_t a = b; a < e; a++) {
          Acc acc = op.init();
          if (p.R0 == 1) {
            op.run(acc, x + a * p.sa, p.R, p.sr, 0);
          } else {
            // one partial per run, merged up a cascade of levels (each full after kRowBlock
            // merges), so that a float sum's error grows with the log of the run count
            Acc level[4] = {op.init(), op.init(), op.init(), op.init()};
            for (int64_t r0 = 0; r0 < p.R0; r0++) {
              Acc run = op.init();
              op.run(run, x + a * p.sa + r0 * p.sr0, p.R, p.sr, r0 * p.R);
              op.merge(level[0], run);
              for (int64_t lv = 0, n = r0 + 1; lv < 3 && n % kRowBlock == 0; lv++, n /= kRowBlock) {
                op.merge(level[lv + 1], level[lv]);
                level[lv] = op.init();
              }
            }
            for (int lv = 0; lv < 3; lv++) op.merge(level[lv + 1], level[lv]);
            op.merge(acc, level[3]);
          }
          op.write(acc, a * p.oa);
        }
      });
      return;
    }
    std::vector<Acc> part(size_t(nchunks * p.A));
    parallel_for(nchunks * p.A, 1, [&](int64_t b, int64_t e) {
      for (int64_t u = b; u < e; u++) {
        const int64_t a = u / nchunks, c = u % nchunks, r0 = c * kChunk;
        Acc acc = op.init();
        op.run(acc, x + a * p.sa + r0 * p.sr, std::min(kChunk, p.R - r0), p.sr, r0);
        part[u] = acc;
      }
    });
    for (int64_t a = 0; a < p.A; a++) {
      // pairwise merge of the partials keeps float error logarithmic in their number
      for (int64_t step = 1; step < nchunks; step *= 2)
        for (int64_t c = 0; c + step < nchunks; c += 2 * step)
          op.merge(part[a * nchunks + c], part[a * nchunks + c + step]);
      op.write(part[a * nchunks], a * p.oa);
    }
    return;
  }
  // Vertical: rows of I kept elements are folded into I accumulators, a block of columns at a
  // time, cascading every kRowBlock rows into a second and third level (accuracy of float sums).
  const int64_t nblk = (p.I + kBlockCols - 1) / kBlockCols;
  const int64_t units = p.A * nblk;
  const int64_t rows_per_part =
      std::max<int64_t>(4 * kRowBlock, (kChunk * 8 / std::min(p.I, kBlockCols)) / kRowBlock * kRowBlock);
  const int64_t nparts =
      units >= 4 ? 1 : std::max<int64_t>(1, std::min<int64_t>((p.R + rows_per_part - 1) / rows_per_part, 64));
  const int64_t rchunk = (p.R + nparts - 1) / nparts;
  const int64_t W = std::min(p.I, kBlockCols);
  std::vector<Acc> part(size_t(nparts > 1 ? units * nparts * W : 0));
  parallel_for(units * nparts, 1, [&](int64_t b, int64_t e) {
    std::vector<Acc> l0(W), l1(W), l2(W);
    for (int64_t u = b; u < e; u++) {
      const int64_t unit = u / nparts, part_i = u % nparts;
      const int64_t a = unit / nblk, i0 = (unit % nblk) * kBlockCols, w = std::min(kBlockCols, p.I - i0);
      const int64_t r0 = part_i * rchunk, r1 = std::min(p.R, r0 + rchunk);
      const In* base = x + a * p.sa + i0 * p.si;
      std::fill_n(l2.begin(), w, op.init());
      for (int64_t rb = r0; rb < r1; rb += kRowBlock * kRowBlock) {
        std::fill_n(l1.begin(), w, op.init());
        const int64_t rb_end = std::min(r1, rb + kRowBlock * kRowBlock);
        for (int64_t r = rb; r < rb_end; r += kRowBlock) {
          std::fill_n(l0.begin(), w, op.init());
          const int64_t re = std::min(rb_end, r + kRowBlock);
          for (int64_t k = r; k < re; k++) op.rows(l0.data(), base + k * p.sr, w, p.si, k);
          for (int64_t i = 0; i < w; i++) op.merge(l1[i], l0[i]);
        }
        for (int64_t i = 0; i < w; i++) op.merge(l2[i], l1[i]);
      }
      if (nparts == 1) {
        for (int64_t i = 0; i < w; i++) op.write(l2[i], a * p.oa + (i0 + i) * p.oi);
      } else {
        std::copy_n(l2.begin(), w, part.begin() + u * W);
      }
    }
  });
  if (nparts == 1) return;
  for (int64_t unit = 0; unit < units; unit++) {
    const int64_t a = unit / nblk, i0 = (unit % nblk) * kBlockCols, w = std::min(kBlockCols, p.I - i0);
    Acc* first = part.data() + unit * nparts * W;
    for (int64_t step = 1; step < nparts; step *= 2)
      for (int64_t c = 0; c + step < nparts; c += 2 * step)
        for (int64_t i = 0; i < w; i++) op.merge(first[c * W + i], first[(c + step) * W + i]);
    for (int64_t i = 0; i < w; i++) op.write(first[i], a * p.oa + (i0 + i) * p.oi);
  }
}

// Base for ops defined by one fold step `fold(acc&, in_t v, int64_t index)`: run and rows loop it.
template <class Derived, class In, class Acc>
struct FoldOp {
  using in_t = In;
  using acc_t = Acc;
  void run(Acc& acc, const In* p, int64_t n, int64_t stride, int64_t idx0) const {
    const Derived& d = static_cast<const Derived&>(*this);
    if (stride == 1)
      for (int64_t k = 0; k < n; k++) d.fold(acc, p[k], idx0 + k);
    else
      for (int64_t k = 0; k < n; k++) d.fold(acc, p[k * stride], idx0 + k);
  }
  void rows(Acc* acc, const In* p, int64_t m, int64_t si, int64_t r) const {
    const Derived& d = static_cast<const Derived&>(*this);
    if (si == 1)
      for (int64_t i = 0; i < m; i++) d.fold(acc[i], p[i], r);
    else
      for (int64_t i = 0; i < m; i++) d.fold(acc[i], p[i * si], r);
  }
};

}  // namespace ember
