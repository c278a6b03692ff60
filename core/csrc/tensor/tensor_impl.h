// TensorImpl: a strided view of a storage (sizes, strides in elements, offset, dtype) and Tensor,
// the one-pointer handle everything passes around.
#pragma once
#include <cstdint>
#include <memory>

#include "base/small_vector.h"
#include "tensor/storage.h"
#include "types/dtype.h"

namespace ember {

// What autograd keeps on a tensor (requires_grad, grad, grad_fn, view base). Declared here as an
// interface so this layer does not depend on autograd/, which defines it (autograd/meta.h).
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
};

// Whether this thread is in inference mode: tensors made there are marked (set by autograd).
bool& tls_inference_mode();

struct TensorImpl : RefCounted {
  Storage storage;
  DimVec sizes, strides;
  int64_t offset = 0;
  int64_t numel = 1;
  ScalarType dtype = ScalarType::Float32;
  bool contiguous = true;
  bool wrapped_number = false;                      // a Python number turned into a 0-dim tensor for an op
  void* pyobj = nullptr;                            // the Python object that owns this impl, if any (borrowed)
  bool inference = tls_inference_mode();            // made under inference_mode: may never join autograd
  std::unique_ptr<AutogradMetaInterface> autograd;  // null for tensors autograd has never seen

  // Recomputes numel and contiguity after sizes/strides change.
  void refresh();
};

class Tensor {
  IntrusivePtr<TensorImpl> impl_;

 public:
  Tensor() = default;
  explicit Tensor(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return bool(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const IntrusivePtr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  int64_t dim() const { return impl_->sizes.size(); }
  const DimVec& sizes() const { return impl_->sizes; }
  const DimVec& strides() const { return impl_->strides; }
  int64_t size(int64_t d) const;  // d may be negative
  int64_t stride(int64_t d) const;
  int64_t numel() const { return impl_->numel; }
  int64_t offset() const { return impl_->offset; }
  ScalarType dtype() const { return impl_->dtype; }
  int64_t itemsize() const { return ember::itemsize(impl_->dtype); }
  Device device() const { return impl_->storage->device; }
  bool is_meta() const { return device().is_meta(); }
  bool is_contiguous() const { return impl_->contiguous; }
  bool is_wrapped_number() const { return impl_->wrapped_number; }
  const Storage& storage() const { return impl_->storage; }
  char* data() const { return static_cast<char*>(impl_->storage->data) + impl_->offset * itemsize(); }
  template <class T>
  T* data_as() const {
    return reinterpret_cast<T*>(data());
  }
  void bump_version() const { impl_->storage->version.fetch_add(1, std::memory_order_relaxed); }
};

// Wraps a negative dim and checks its range, naming the valid range on failure (IndexError).
int64_t wrap_dim(int64_t d, int64_t ndim);
DimVec contiguous_strides(const DimVec& sizes);
int64_t shape_numel(const DimVec& sizes);  // raises on negative sizes

}  // namespace ember
