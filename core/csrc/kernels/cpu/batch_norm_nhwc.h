// batch_norm's passes on channels_last (NHWC / NDHWC) input: the data is (rows x C), so every pass runs
// along rows with the channels innermost (vectorizable), no transposes. Per-channel sums add the
// partial sums of fixed blocks of rows in order, so results do not depend on the thread count.
#pragma once
#include <vector>

#include "tensor/tensor_impl.h"

namespace ember::bn::nhwc {

// Whether batch_norm's input runs here: 4-D channels_last or 5-D channels_last_3d (suggest_memory_format).
bool wanted(const Tensor& input);

// t itself when dense in input's channels-last format, else such a copy of t (cast to dtype).
Tensor dense_like(const Tensor& t, const Tensor& input, ScalarType dtype);
Tensor empty_like_format(const Tensor& input);

// x: rows x c values. mean and var (biased) per channel.
template <class T>
void stats(const T* x, int64_t rows, int64_t c, std::vector<double>& mean, std::vector<double>& var);

// y = x * scale + shift per channel.
template <class T>
void affine(const T* x, int64_t rows, int64_t c, const std::vector<double>& scale, const std::vector<double>& shift,
            T* y);

// sg = sum(g), sgx = sum(g (x - mean)) per channel.
template <class T>
void grad_sums(const T* g, const T* x, int64_t rows, int64_t c, const std::vector<double>& mean,
               std::vector<double>& sg, std::vector<double>& sgx);

// o = k (g - mg) - (x - mean) kx per channel.
template <class T>
void input_grad(const T* g, const T* x, int64_t rows, int64_t c, const std::vector<double>& k,
                const std::vector<double>& mg, const std::vector<double>& mean, const std::vector<double>& kx, T* o);

}  // namespace ember::bn::nhwc
