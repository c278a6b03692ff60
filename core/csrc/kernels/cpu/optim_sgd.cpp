// _sgd_update: SGD's update, each parameter, gradient and momentum buffer read and written once.
#include "device/parallel.h"
#include "generated/ops/_sgd_update.h"
#include "kernels/convert.h"
#include "kernels/visit_float.h"

namespace ember::ops {

namespace {

struct SgdRule {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize;
};

void check_group(const std::vector<Tensor>& params, const std::vector<Tensor>& grads, const std::vector<Tensor>& bufs,
                 const SgdRule& r) {
  EMBER_CHECK(grads.size() == params.size(), Runtime, "_sgd_update: ", params.size(), " params but ", grads.size(),
              " grads");
  EMBER_CHECK(r.momentum == 0 || bufs.size() == params.size(), Runtime, "_sgd_update: ", params.size(), " params but ",
              bufs.size(), " momentum buffers");
  for (size_t i = 0; i < params.size(); i++) {
    const Tensor& p = params[i];
    EMBER_CHECK(is_floating(p.dtype()), Type, "_sgd_update: param ", i, " has dtype ", dtype_name(p.dtype()),
                "; only real floating dtypes are supported");
    auto same = [&](const Tensor& t, const char* what) {
      EMBER_CHECK(t.dtype() == p.dtype() && t.sizes() == p.sizes() && t.device() == p.device(), Runtime,
                  "_sgd_update: ", what, " ", i, " (", dtype_name(t.dtype()), " ", t.sizes(),
                  ") does not match its param (", dtype_name(p.dtype()), " ", p.sizes(), ")");
      EMBER_CHECK(t.is_contiguous(), Runtime, "_sgd_update: ", what, " ", i, " must be contiguous");
    };
    same(p, "param");
    same(grads[i], "grad");
    if (r.momentum != 0) same(bufs[i], "momentum buffer");
  }
}

// One element range; the momentum and nesterov branches are template arguments so that the loop
// has none and vectorizes.
template <class T, bool kMomentum, bool kNesterov>
void update_range(T* __restrict p, const T* __restrict g, T* __restrict b, int64_t lo, int64_t hi, const SgdRule& r) {
  using C = opmath_t<T>;
  const C lr = C(r.lr), mu = C(r.momentum), keep = C(1 - r.dampening), wd = C(r.weight_decay);
  const C sign = r.maximize ? C(-1) : C(1);
  for (int64_t i = lo; i < hi; i++) {
    const C pv = convert<C>(p[i]);
    const C gv = sign * convert<C>(g[i]) + wd * pv;
    C step = gv;
    if constexpr (kMomentum) {
      const C bv = mu * convert<C>(b[i]) + keep * gv;
      b[i] = convert<T>(bv);
      step = kNesterov ? gv + mu * bv : bv;
    }
    p[i] = convert<T>(pv - lr * step);
  }
}

template <class T>
void update(T* p, const T* g, T* b, int64_t n, const SgdRule& r) {
  parallel_for(n, 32768, [&](int64_t lo, int64_t hi) {
    if (!b)
      update_range<T, false, false>(p, g, b, lo, hi, r);
    else if (r.nesterov)
      update_range<T, true, true>(p, g, b, lo, hi, r);
    else
      update_range<T, true, false>(p, g, b, lo, hi, r);
  });
}

}  // namespace

std::vector<Tensor> _sgd_update(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                                const std::vector<Tensor>& momentum_buffers, double lr, double momentum,
                                double dampening, double weight_decay, bool nesterov, bool maximize) {
  const SgdRule rule{lr, momentum, dampening, weight_decay, nesterov, maximize};
  check_group(params, grads, momentum_buffers, rule);
  for (size_t i = 0; i < params.size(); i++) {
    const Tensor& p = params[i];
    if (p.is_meta() || p.numel() == 0) continue;
    visit_real_float(p.dtype(), "_sgd_update", [&](auto z) {
      using T = decltype(z);
      T* b = momentum != 0 ? momentum_buffers[i].data_as<T>() : nullptr;
      update<T>(p.data_as<T>(), grads[i].data_as<T>(), b, p.numel(), rule);
    });
    p.bump_version();
    if (momentum != 0) momentum_buffers[i].bump_version();
  }
  return params;
}

}  // namespace ember::ops
