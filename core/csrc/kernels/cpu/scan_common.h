// The scan engine (cumsum, cumprod, cummax, ...): the input as [outer, length, inner] (a
// contiguous copy when it is not contiguous), each line scanned in order, inner columns side by
// side so that a scan along an outer dim still walks memory contiguously. Parallel over lines.
#pragma once
#include <vector>

#include "device/parallel.h"
#include "iter/copy.h"
#include "kernels/convert.h"

namespace ember {

struct ScanPlan {
  Tensor src;  // C-contiguous
  int64_t O = 1, L = 1, I = 1;
};

inline ScanPlan make_scan_plan(const Tensor& x, int64_t dim) {
  ScanPlan p;
  p.src = contiguous(x);
  const int64_t nd = x.dim();
  for (int64_t d = 0; d < nd; d++) {
    if (d < dim)
      p.O *= x.sizes()[d];
    else if (d == dim)
      p.L = x.sizes()[d];
    else
      p.I *= x.sizes()[d];
  }
  return p;
}

// Op: using in_t, acc_t; acc_t init(); void step(acc_t&, in_t v, int64_t l); void emit(const acc_t&, int64_t off).
// Offsets are flat C-order element offsets (the same for the input and the outputs).
template <class Op>
void run_scan(const ScanPlan& p, const Op& op) {
  using In = typename Op::in_t;
  using Acc = typename Op::acc_t;
  const In* x = p.src.template data_as<In>();
  if (p.O * p.L * p.I == 0) return;
  constexpr int64_t kCols = 512;
  const int64_t nblk = (p.I + kCols - 1) / kCols;
  const int64_t work = std::max<int64_t>(1, p.L * std::min(p.I, kCols));
  parallel_for(p.O * nblk, std::max<int64_t>(1, 32768 / work), [&](int64_t b, int64_t e) {
    std::vector<Acc> acc(size_t(std::min(p.I, kCols)));
    for (int64_t u = b; u < e; u++) {
      const int64_t o = u / nblk, i0 = (u % nblk) * kCols, w = std::min(kCols, p.I - i0);
      std::fill_n(acc.begin(), w, op.init());
      for (int64_t l = 0; l < p.L; l++) {
        const int64_t off = (o * p.L + l) * p.I + i0;
        for (int64_t i = 0; i < w; i++) {
          op.step(acc[i], x[off + i], l);
          op.emit(acc[i], off + i);
        }
      }
    }
  });
}

}  // namespace ember
