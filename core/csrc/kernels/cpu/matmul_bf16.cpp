// gemm_batched's bfloat16 path: each product of the batch through bf16gemm with the operands' own
// strides (transposed and strided views need no copy); small products run in parallel per batch.
#include "kernels/cpu/matmul_bf16.h"

#include <algorithm>

#include "device/parallel.h"
#include "kernels/cpu/gemm_bf16.h"
#include "kernels/matmul.h"

namespace ember::detail {

namespace {

bf16gemm::In matrix_in(const Tensor& t, int64_t offset) {
  const int64_t nd = t.dim();
  return {reinterpret_cast<const uint16_t*>(t.data_as<BFloat16>()) + offset, t.strides()[nd - 2], t.strides()[nd - 1]};
}

}  // namespace

bool gemm_bf16_batched(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  if (!bf16gemm::available()) return false;
  const int64_t nd = out.dim();
  const int64_t m = out.sizes()[nd - 2], n = out.sizes()[nd - 1], k = a.sizes()[nd - 1];
  const float beta_f = beta.to<float>(), alpha_f = alpha.to<float>();
  const BatchWalk walk(out, a, b, 2);
  uint16_t* pc = reinterpret_cast<uint16_t*>(out.data_as<BFloat16>());
  auto one = [&](int64_t i) {
    int64_t oc, oa, ob;
    walk.offsets(i, oc, oa, ob);
    bf16gemm::gemm(m, n, k, alpha_f, matrix_in(a, oa), matrix_in(b, ob), beta_f,
                   bf16gemm::Out<uint16_t>{pc + oc, out.strides()[nd - 2], out.strides()[nd - 1]});
  };
  // A product from 64^3 multiply-adds up is split across the threads; smaller ones run per batch.
  const int64_t work = m * n * std::max<int64_t>(k, 1), big = 64 * 64 * 64;
  if (walk.count > 1 && work < big) {
    parallel_for(walk.count, std::max<int64_t>(1, big / work), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; i++) one(i);
    });
  } else {
    for (int64_t i = 0; i < walk.count; i++) one(i);
  }
  return true;
}

}  // namespace ember::detail
