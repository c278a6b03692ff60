// ViewBackward and CopySlices, on one helper: the storage positions of a strided geometry.
#include "autograd/view_nodes.h"

#include "autograd/grad_mode.h"
#include "generated/ops.h"
#include "tensor/factory.h"

namespace ember::autograd {

namespace {

// The storage position (less `lo`) of every element of g, as an int64 tensor shaped like g.
Tensor positions(const Geometry& g, int64_t lo) {
  Tensor out = empty(g.sizes, ScalarType::Int64);
  int64_t* p = out.data_as<int64_t>();
  const int64_t nd = g.sizes.size();
  DimVec idx(nd, 0);
  const int64_t n = out.numel();
  int64_t pos = g.offset - lo;
  for (int64_t i = 0; i < n; i++) {
    p[i] = pos;
    for (int64_t d = nd - 1; d >= 0; d--) {  // odometer over the dims, last fastest
      if (++idx[d] < g.sizes[d]) {
        pos += g.strides[d];
        break;
      }
      pos -= g.strides[d] * (g.sizes[d] - 1);
      idx[d] = 0;
    }
  }
  return out;
}

// Row-major dense: each dim's stride is the product of the later sizes (size-1 dims take any stride).
bool row_major(const Geometry& g) {
  int64_t expected = 1;
  for (int64_t d = int64_t(g.sizes.size()) - 1; d >= 0; d--) {
    if (g.sizes[size_t(d)] != 1 && g.strides[size_t(d)] != expected) return false;
    expected *= g.sizes[size_t(d)];
  }
  return true;
}

int64_t numel_of(const Geometry& g) {
  int64_t n = 1;
  for (int64_t s : g.sizes) n *= s;
  return n;
}

int64_t lowest(const Geometry& g) {
  int64_t lo = g.offset;
  for (size_t d = 0; d < g.sizes.size(); d++)
    if (g.strides[d] < 0 && g.sizes[d] > 0) lo += g.strides[d] * (g.sizes[d] - 1);
  return lo;
}

}  // namespace

Tensor view_grad_to_base(const Tensor& grad, const Geometry& base, const Geometry& view) {
  if (base.sizes == view.sizes && base.strides == view.strides && base.offset == view.offset) return grad;
  // a reshape of a dense base (a linear layer's 3-d output written in place): element i of one is element i
  // of the other, so the gradient is reshaped, not scattered through position tables
  if (base.offset == view.offset && numel_of(base) == numel_of(view) && row_major(base) && row_major(view))
    return ad::reshape(grad, base.sizes);
  const int64_t lo = std::min(lowest(base), lowest(view));
  Tensor pb = positions(base, lo), pv = positions(view, lo);
  int64_t span = 1;
  for (const Tensor* p : {&pb, &pv})
    for (int64_t i = 0; i < p->numel(); i++) span = std::max(span, p->data_as<int64_t>()[i] + 1);
  Tensor flat = ops::zeros({span}, grad.dtype(), grad.device(), false);
  flat = ad::index_add(flat, 0, ad::reshape(pv, {-1}), ad::reshape(grad, {-1}), Scalar(int64_t(1)));
  return ad::take(flat, pb);
}

variable_list ViewBackward::apply(variable_list&& grads) { return {view_grad_to_base(grads[0], base, view)}; }

variable_list CopySlices::apply(variable_list&& grads) {
  const Tensor& grad = grads[0];
  // result: the base's gradient, laid out as the base so the view's geometry addresses it.
  Tensor result = empty_strided(base.sizes, base.strides, grad.dtype(), grad.device());
  result = ad::copy_(result, grad, false);
  Tensor slice = ad::as_strided(result, view.sizes, view.strides, view.offset - base.offset);
  variable_list res = fn->apply({ad::clone(slice)});
  variable_list out(next_edges.size());
  if (res[0].defined())
    ad::copy_(slice, res[0], false);
  else
    ad::fill_(slice, wrapped_scalar(Scalar(int64_t(0))));
  out[0] = result;
  for (size_t i = 1; i < res.size() && i < out.size(); i++) out[i] = res[i];
  return out;
}

}  // namespace ember::autograd
