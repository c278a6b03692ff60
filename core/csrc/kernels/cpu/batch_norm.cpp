// batch_norm in two passes over the input (per-channel mean and variance in double, then the
// normalized affine output), and its input/weight/bias gradients in two passes more. Channels
// run in parallel. Training statistics come back for the backward formula (mean and 1/std) and
// update the running statistics in place, with the unbiased variance as PyTorch stores it.
// float16/bfloat16 input (autocast's batch norms) is computed in float32: widened on the way in,
// rounded once on the way out (NCHW a channel at a time in batch_norm_reduced.h, without float32
// copies of the whole tensors), instead of the composite form's dozen elementwise passes.
#include <cmath>

#include "device/parallel.h"
#include "generated/ops/batch_norm_backward.h"
#include "generated/ops/native_batch_norm.h"
#include "iter/copy.h"
#include "kernels/arg_checks.h"
#include "kernels/convert.h"
#include "kernels/cpu/batch_norm_nhwc.h"
#include "kernels/cpu/batch_norm_reduced.h"
#include "kernels/cpu/batch_norm_sums.h"
#include "tensor/factory.h"

namespace ember::ops {

namespace {

struct Layout {
  int64_t n, c, plane;  // input viewed as (n, c, plane), contiguous
};

Layout layout_of(const Tensor& x) {
  Layout l{x.sizes()[0], x.sizes()[1], 1};
  for (int64_t d = 2; d < x.dim(); d++) l.plane *= x.sizes()[d];
  return l;
}

void check_channel_vec(const Tensor& t, int64_t c, const char* what) {
  if (!t.defined()) return;
  EMBER_CHECK(t.numel() == c, Runtime, "batch_norm: ", what, " should contain ", c, " elements, not ", t.numel());
  check_arg_floating("batch_norm", {what, t});
}

template <class F>
void float_types(ScalarType dt, const char* op, F&& f) {
  if (dt == ScalarType::Float32)
    f(float(0));
  else if (dt == ScalarType::Float64)
    f(double(0));
  else
    EMBER_FAIL(Type, "\"", op, "\" is not implemented for dtype ", dtype_name(dt), " here (float32/float64)");
}

bool reduced(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }

// The type the passes run in: float32 for a 16-bit float input.
ScalarType compute_type(const Tensor& input) { return reduced(input.dtype()) ? ScalarType::Float32 : input.dtype(); }

// The dtype of the statistics and parameter gradients: float32 when a 16-bit input comes with a
// float32 parameter (PyTorch's mixed type), else the input's.
ScalarType param_type(const Tensor& input, std::initializer_list<const Tensor*> params) {
  if (!reduced(input.dtype())) return input.dtype();
  for (const Tensor* t : params)
    if (t->defined() && t->dtype() == ScalarType::Float32) return ScalarType::Float32;
  return input.dtype();
}

// An uninitialized tensor of t's sizes and strides in dtype (t itself when already of it).
Tensor same_layout(const Tensor& t, ScalarType dtype) {
  return t.dtype() == dtype ? t : empty_strided(t.sizes(), t.strides(), dtype, t.device());
}

// dst = src (converting) unless they are the same tensor.
void store_back(const Tensor& dst, const Tensor& src) {
  if (!dst.is_same(src)) copy_(dst, src);
}

// f(T{}) for a float16 / bfloat16 dtype.
template <class F>
void reduced_types(ScalarType dt, F&& f) {
  if (dt == ScalarType::BFloat16)
    f(BFloat16());
  else
    f(Half());
}

// A per-channel vector as double (1 when undefined and `one`, else 0).
std::vector<double> channel_values(const Tensor& t, int64_t c, double fallback) {
  std::vector<double> v(size_t(c), fallback);
  if (!t.defined()) return v;
  const Tensor d = contiguous_as(t, ScalarType::Float64);
  for (int64_t i = 0; i < c; i++) v[size_t(i)] = d.data_as<double>()[i];
  return v;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                                     const Tensor& running_mean, const Tensor& running_var,
                                                     bool training, double momentum, double eps) {
  EMBER_CHECK(input.dim() >= 2, Runtime, "batch_norm: expected 2D or more input (N, C, ...), got ", input.dim(), "D");
  const Layout L = layout_of(input);
  for (auto [t, what] :
       {std::pair{&weight, "weight"}, {&bias, "bias"}, {&running_mean, "running_mean"}, {&running_var, "running_var"}})
    check_channel_vec(*t, L.c, what);
  EMBER_CHECK(training || (running_mean.defined() && running_var.defined()), Runtime,
              "batch_norm: running_mean and running_var must be given in evaluation mode");
  const int64_t count = L.n * L.plane;
  EMBER_CHECK(!training || count > 1, Value, "Expected more than 1 value per channel when training, got input size ",
              input.sizes());
  const bool nhwc = bn::nhwc::wanted(input);  // channels-last input: NHWC passes, channels-last output
  Tensor out = nhwc ? bn::nhwc::empty_like_format(input) : empty(input.sizes(), input.dtype(), input.device());
  const ScalarType ct = compute_type(input), st = param_type(input, {&weight, &bias, &running_mean, &running_var});
  Tensor save_mean = empty({L.c}, st, input.device()), save_invstd = empty({L.c}, st, input.device());
  if (input.is_meta() || input.numel() == 0) return {out, save_mean, save_invstd};
  const Tensor mean_c = same_layout(save_mean, ct), invstd_c = same_layout(save_invstd, ct);
  const std::vector<double> w = channel_values(weight, L.c, 1.0), b = channel_values(bias, L.c, 0.0);
  std::vector<double> mean(size_t(L.c)), var(size_t(L.c));
  const bool narrow = !nhwc && reduced(input.dtype());  // 16-bit NCHW: a channel at a time, no float32 copies
  if (narrow) {
    if (!training) {
      mean = channel_values(running_mean, L.c, 0.0);
      var = channel_values(running_var, L.c, 1.0);
    }
    const Tensor xr = contiguous(input);
    reduced_types(input.dtype(), [&](auto z) {
      using T = decltype(z);
      bn::reduced::forward(xr.data_as<T>(), {L.n, L.c, L.plane}, training, eps, w, b, mean, var, out.data_as<T>());
    });
    for (int64_t c = 0; c < L.c; c++) {
      mean_c.data_as<float>()[c] = float(mean[size_t(c)]);
      invstd_c.data_as<float>()[c] = float(1.0 / std::sqrt(var[size_t(c)] + eps));
    }
  }
  const Tensor x = narrow ? Tensor() : nhwc ? bn::nhwc::dense_like(input, input, ct) : contiguous_as(input, ct);
  const Tensor y = narrow ? out : same_layout(out, ct);
  float_types(ct, "batch_norm", [&](auto z) {
    using T = decltype(z);
    if (narrow) return;
    const T* px = x.data_as<T>();
    T* py = y.data_as<T>();
    if (training && nhwc) {
      bn::nhwc::stats(px, count, L.c, mean, var);
    } else if (training) {
      parallel_for(L.c, 1, [&](int64_t cb, int64_t ce) {
        for (int64_t c = cb; c < ce; c++) {
          double s = 0, s2 = 0;
          for (int64_t i = 0; i < L.n; i++) s += bn::sum(px + (i * L.c + c) * L.plane, L.plane);
          const double m = s / double(count);
          for (int64_t i = 0; i < L.n; i++) s2 += bn::sum_sq_dev(px + (i * L.c + c) * L.plane, L.plane, m);
          mean[size_t(c)] = m;
          var[size_t(c)] = s2 / double(count);
        }
      });
    } else {
      mean = channel_values(running_mean, L.c, 0.0);
      var = channel_values(running_var, L.c, 1.0);
    }
    if (nhwc) {
      std::vector<double> scale(size_t(L.c)), shift(size_t(L.c));
      for (int64_t c = 0; c < L.c; c++) {
        const double inv = 1.0 / std::sqrt(var[size_t(c)] + eps);
        scale[size_t(c)] = inv * w[size_t(c)];
        shift[size_t(c)] = b[size_t(c)] - mean[size_t(c)] * inv * w[size_t(c)];
      }
      bn::nhwc::affine(px, count, L.c, scale, shift, py);
    }
    if (!nhwc)
      parallel_for(L.n * L.c, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; r++) {
          const int64_t c = r % L.c;
          const double inv = 1.0 / std::sqrt(var[size_t(c)] + eps);
          const T scale = T(inv * w[size_t(c)]), shift = T(b[size_t(c)] - mean[size_t(c)] * inv * w[size_t(c)]);
          const T* p = px + r * L.plane;
          T* q = py + r * L.plane;
          for (int64_t j = 0; j < L.plane; j++) q[j] = p[j] * scale + shift;
        }
      });
    for (int64_t c = 0; c < L.c; c++) {
      mean_c.data_as<T>()[c] = T(mean[size_t(c)]);
      invstd_c.data_as<T>()[c] = T(1.0 / std::sqrt(var[size_t(c)] + eps));
    }
  });
  store_back(out, y);
  store_back(save_mean, mean_c);
  store_back(save_invstd, invstd_c);
  if (training) {  // running statistics, updated in place (buffers: not recorded)
    auto update = [&](const Tensor& r, const std::vector<double>& v, double factor) {
      if (!r.defined()) return;
      EMBER_CHECK(r.is_contiguous(), Runtime, "batch_norm: running statistics must be contiguous");
      const Tensor rc = same_layout(r, compute_type(r));  // 16-bit statistics update through float32
      store_back(rc, r);
      float_types(rc.dtype(), "batch_norm", [&](auto z) {
        using R = decltype(z);
        R* p = rc.data_as<R>();
        for (int64_t c = 0; c < L.c; c++) p[c] = R((1.0 - momentum) * double(p[c]) + momentum * factor * v[size_t(c)]);
      });
      store_back(r, rc);
      r.bump_version();
    };
    update(running_mean, mean, 1.0);
    update(running_var, var, double(count) / double(count - 1));  // stored unbiased
  }
  return {out, save_mean, save_invstd};
}

// With xhat = (x - mean) * invstd: grad_input = w invstd (g - mean(g) - xhat mean(g xhat)) in
// training, w invstd g in evaluation; grad_weight = sum(g xhat); grad_bias = sum(g).
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_output, const Tensor& input,
                                                       const Tensor& weight, const Tensor& save_mean,
                                                       const Tensor& save_invstd, bool training) {
  // Internal, but reachable from Python: every argument is checked before its sizes or data are read.
  constexpr const char* op = "batch_norm_backward";
  check_arg_min_dim(op, {"input", input}, 2);
  check_arg_shape(op, {"grad_output", grad_output}, input.sizes());
  check_arg_floating(op, {"grad_output", grad_output});
  const Layout L = layout_of(input);
  for (auto [t, what] : {std::pair{&weight, "weight"}, {&save_mean, "save_mean"}, {&save_invstd, "save_invstd"}}) {
    EMBER_CHECK(t->defined() || t == &weight, Runtime, op, "(): ", what, " must be a tensor, not None");
    check_arg_numel(op, {what, *t}, L.c);
    check_arg_floating(op, {what, *t});
  }
  const bool nhwc = bn::nhwc::wanted(input);  // channels-last input: NHWC passes, channels-last grad_input
  Tensor gi = nhwc ? bn::nhwc::empty_like_format(input) : empty(input.sizes(), input.dtype(), input.device());
  const ScalarType ct = compute_type(input), pt = param_type(input, {&weight, &save_mean});
  Tensor gw = empty({L.c}, pt, input.device()), gb = empty({L.c}, pt, input.device());
  if (input.is_meta() || input.numel() == 0) return {gi, gw, gb};
  const Tensor gw_c = same_layout(gw, ct), gb_c = same_layout(gb, ct);
  const std::vector<double> w = channel_values(weight, L.c, 1.0), mean = channel_values(save_mean, L.c, 0.0),
                            inv = channel_values(save_invstd, L.c, 1.0);
  const int64_t count = L.n * L.plane;
  if (!nhwc && reduced(input.dtype()) && grad_output.dtype() == input.dtype()) {  // as forward's
    const Tensor xr = contiguous(input), gr = contiguous(grad_output);
    std::vector<double> sg(size_t(L.c)), sgx(size_t(L.c));
    reduced_types(input.dtype(), [&](auto z) {
      using T = decltype(z);
      bn::reduced::backward(gr.data_as<T>(), xr.data_as<T>(), {L.n, L.c, L.plane}, training, w, mean, inv, sg, sgx,
                            gi.data_as<T>());
    });
    for (int64_t c = 0; c < L.c; c++) {
      gw_c.data_as<float>()[c] = float(sgx[size_t(c)]);
      gb_c.data_as<float>()[c] = float(sg[size_t(c)]);
    }
    store_back(gw, gw_c);
    store_back(gb, gb_c);
    return {gi, gw, gb};
  }
  const Tensor x = nhwc ? bn::nhwc::dense_like(input, input, ct) : contiguous_as(input, ct);
  const Tensor g = nhwc ? bn::nhwc::dense_like(grad_output, input, ct) : contiguous_as(grad_output, ct);
  const Tensor gi_c = same_layout(gi, ct);
  float_types(ct, "batch_norm_backward", [&](auto z) {
    using T = decltype(z);
    const T *px = x.data_as<T>(), *pg = g.data_as<T>();
    T* pi = gi_c.data_as<T>();
    if (nhwc) {
      std::vector<double> sg, sgx, k(size_t(L.c)), mg(size_t(L.c)), kx(size_t(L.c));
      bn::nhwc::grad_sums(pg, px, count, L.c, mean, sg, sgx);
      for (int64_t c = 0; c < L.c; c++) {
        const double is = inv[size_t(c)], sgxn = sgx[size_t(c)] * is;  // sum(g * xhat)
        gw_c.data_as<T>()[c] = T(sgxn);
        gb_c.data_as<T>()[c] = T(sg[size_t(c)]);
        k[size_t(c)] = w[size_t(c)] * is;
        mg[size_t(c)] = training ? sg[size_t(c)] / double(count) : 0.0;
        kx[size_t(c)] = k[size_t(c)] * is * (training ? sgxn / double(count) : 0.0);
      }
      bn::nhwc::input_grad(pg, px, count, L.c, k, mg, mean, kx, pi);
      return;
    }
    parallel_for(L.c, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; c++) {
        const double m = mean[size_t(c)], is = inv[size_t(c)];
        double sg = 0, sgx = 0;
        for (int64_t i = 0; i < L.n; i++) {
          const int64_t at = (i * L.c + c) * L.plane;
          bn::sum_grad(pg + at, px + at, L.plane, m, sg, sgx);
        }
        sgx *= is;  // sum(g * xhat)
        gw_c.data_as<T>()[c] = T(sgx);
        gb_c.data_as<T>()[c] = T(sg);
        const double k = w[size_t(c)] * is;
        const double mg = training ? sg / double(count) : 0.0, mgx = training ? sgx / double(count) : 0.0;
        for (int64_t i = 0; i < L.n; i++) {
          const int64_t at = (i * L.c + c) * L.plane;
          bn::input_grad(pg + at, px + at, L.plane, k, mg, m, k * is * mgx, pi + at);  // k (g - mg - xhat mgx)
        }
      }
    });
  });
  store_back(gi, gi_c);
  store_back(gw, gw_c);
  store_back(gb, gb_c);
  return {gi, gw, gb};
}

}  // namespace ember::ops
