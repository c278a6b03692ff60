// Tensor construction (see factory.h).
#include "tensor/factory.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "tensor/dense_order.h"

namespace ember {

Tensor empty(const DimVec& sizes, ScalarType dtype, Device device) {
  auto impl = make_intrusive<TensorImpl>();
  int64_t n = shape_numel(sizes);
  EMBER_CHECK(n <= INT64_MAX / itemsize(dtype), Runtime, "Storage size calculation overflowed with sizes=", sizes);
  impl->storage = new_storage(n * itemsize(dtype), device);
  impl->sizes = sizes;
  impl->strides = contiguous_strides(sizes);
  impl->numel = n;
  impl->dtype = dtype;
  impl->contiguous = true;
  return Tensor(std::move(impl));
}

Tensor empty_strided(const DimVec& sizes, const DimVec& strides, ScalarType dtype, Device device) {
  EMBER_CHECK(sizes.size() == strides.size(), Runtime, "mismatch in length of strides and shape");
  int64_t n = shape_numel(sizes);
  int64_t extent = n ? 1 : 0, span = 0;
  for (int64_t i = 0; i < sizes.size(); i++) {
    EMBER_CHECK(strides[i] >= 0, Runtime, "empty_strided: negative strides are not supported");
    if (n)
      EMBER_CHECK(
          !__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) && !__builtin_add_overflow(extent, span, &extent),
          Runtime, "Storage size calculation overflowed with sizes=", sizes, " and strides=", strides);
  }
  EMBER_CHECK(extent <= INT64_MAX / itemsize(dtype), Runtime, "Storage size calculation overflowed with sizes=", sizes,
              " and strides=", strides);
  auto impl = make_intrusive<TensorImpl>();
  impl->storage = new_storage(extent * itemsize(dtype), device);
  impl->sizes = sizes;
  impl->strides = strides;
  impl->dtype = dtype;
  impl->refresh();
  return Tensor(std::move(impl));
}

DimVec dense_strides_like(const DimVec& sizes, const DimVec& strides) {
  // a comparison involving a broadcast dim (stride 0) is undecided and leaves that dim where it is
  return dense_strides_in_order(sizes, [&](int64_t d0, int64_t d1) {
    const int64_t s0 = strides[d0], s1 = strides[d1];
    if (s0 == 0 || s1 == 0) return 0;
    if (s0 != s1) return s0 < s1 ? -1 : 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;  // equal strides: the smaller size goes inside
  });
}

Tensor empty_like_layout(const Tensor& t) {
  const DimVec& sizes = t.sizes();
  if (t.is_contiguous() && t.strides() == contiguous_strides(sizes)) return empty(sizes, t.dtype(), t.device());
  // A non-overlapping and dense t keeps its exact strides, size-1 dims' included (PyTorch's
  // preserve_format: an NC11 channels_last tensor stays so); others get dense ones in t's dim order.
  DimVec dense = dense_strides_like(sizes, t.strides());
  bool same = true;
  for (size_t d = 0; d < sizes.size() && same; d++) same = sizes[d] == 1 || dense[d] == t.strides()[d];
  return empty_strided(sizes, same ? t.strides() : dense, t.dtype(), t.device());
}

Tensor make_view(const Tensor& base, const DimVec& sizes, const DimVec& strides, int64_t offset, ScalarType dtype) {
  auto impl = make_intrusive<TensorImpl>();
  impl->storage = base.storage();
  impl->sizes = sizes;
  impl->strides = strides;
  impl->offset = offset;
  impl->dtype = dtype;
  impl->refresh();
  return Tensor(std::move(impl));
}

Tensor make_view(const Tensor& base, const DimVec& sizes, const DimVec& strides, int64_t offset) {
  return make_view(base, sizes, strides, offset, base.dtype());
}

void fill_(const Tensor& t, const Scalar& value);  // defined with the copy kernels

Tensor scalar_tensor(const Scalar& s, ScalarType dtype, Device device) {
  Tensor t = empty({}, dtype, device);
  if (device.is_cpu()) {
    visit_dtype(dtype, [&](auto v) { *t.data_as<decltype(v)>() = s.to<decltype(v)>(); });
  }
  return t;
}

Tensor wrapped_scalar(const Scalar& s) {
  Tensor t = scalar_tensor(s, s.natural_dtype());
  t.impl()->wrapped_number = true;
  return t;
}

void resize_out(const Tensor& out, const DimVec& sizes) {
  if (out.sizes() == sizes) return;
  TensorImpl* impl = out.impl();
  int64_t n = shape_numel(sizes), need = 0;
  EMBER_CHECK(
      !__builtin_add_overflow(impl->offset, n, &need) && !__builtin_mul_overflow(need, itemsize(impl->dtype), &need),
      Runtime, "Storage size calculation overflowed resizing the out= tensor to shape ", sizes);
  if (need > impl->storage->nbytes) {
    EMBER_CHECK(impl->storage->resizable, Runtime,
                "Trying to resize storage that is not resizable: the out= tensor of shape ", out.sizes(),
                " cannot grow to shape ", sizes,
                " because its memory is not ember's to move (it comes from "
                "or was shared with NumPy, DLPack or a buffer)");
    // Grow the shared storage itself, so every view of it sees the new memory (as PyTorch does).
    StorageImpl& st = *impl->storage;
    if (st.device.is_cpu()) {
      Block b = cpu_alloc(size_t(need));
      if (st.nbytes) std::copy_n(static_cast<char*>(st.data), st.nbytes, static_cast<char*>(b.ptr));
      if (st.deleter) st.deleter(st.ctx, st.data, st.capacity);
      st.data = b.ptr;
      st.capacity = b.capacity;
    }
    st.nbytes = need;
  }
  impl->sizes = sizes;
  impl->strides = contiguous_strides(sizes);
  impl->refresh();
}

}  // namespace ember
