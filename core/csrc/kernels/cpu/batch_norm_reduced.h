// batch_norm's NCHW passes for float16/bfloat16 input (autocast's batch norms) without float32 copies
// of the whole input, gradient and result: each channel's planes are widened into a per-thread
// buffer (exactly), the float32 passes of batch_norm_sums.h run there, and results are rounded
// once straight into the 16-bit output. The same arithmetic as converting the tensors first.
#pragma once
#include <cstdint>
#include <vector>

namespace ember::bn::reduced {

// Shape of the input viewed as (n, c, plane), contiguous.
struct Planes {
  int64_t n, c, plane;
};

// y = (x - mean) / sqrt(var + eps) * w + b per channel, rounded once. In training mean and var are
// computed here (biased variance, sums in double as batch_norm.cpp); otherwise they are given.
template <class T>
void forward(const T* x, const Planes& s, bool training, double eps, const std::vector<double>& w,
             const std::vector<double>& b, std::vector<double>& mean, std::vector<double>& var, T* y);

// gi = batch_norm's input gradient (rounded once); sum_g[c] = sum(g), sum_gx[c] = sum(g * xhat).
template <class T>
void backward(const T* g, const T* x, const Planes& s, bool training, const std::vector<double>& w,
              const std::vector<double>& mean, const std::vector<double>& invstd, std::vector<double>& sum_g,
              std::vector<double>& sum_gx, T* gi);

}  // namespace ember::bn::reduced
