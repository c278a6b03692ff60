// TensorImpl bookkeeping, dim wrapping, and storage construction.
#include "tensor/tensor_impl.h"

#include "device/device_unavailable.h"

namespace ember {

bool& tls_inference_mode() {
  static thread_local bool on = false;
  return on;
}

void TensorImpl::refresh() {
  // Checked: a view whose sizes multiply past int64 (e.g. a huge expand) must not wrap to a small numel.
  const int64_t n = shape_numel(sizes);
  numel = n;
  bool c = true;
  int64_t expected = 1;
  for (int64_t i = sizes.size() - 1; i >= 0; i--) {
    if (sizes[i] != 1 && strides[i] != expected) {
      c = false;
      break;
    }
    expected *= sizes[i];
  }
  contiguous = c || n == 0;
}

int64_t Tensor::size(int64_t d) const { return impl_->sizes[wrap_dim(d, dim())]; }
int64_t Tensor::stride(int64_t d) const { return impl_->strides[wrap_dim(d, dim())]; }

int64_t wrap_dim(int64_t d, int64_t ndim) {
  int64_t n = ndim > 0 ? ndim : 1;  // a 0-dim tensor accepts dims -1 and 0
  EMBER_CHECK(d >= -n && d < n, Index, "Dimension out of range (expected to be in range of [", -n, ", ", n - 1,
              "], but got ", d, ")");
  return d < 0 ? d + n : d;
}

DimVec contiguous_strides(const DimVec& sizes) {
  DimVec st(sizes.size());
  int64_t s = 1;
  for (int64_t i = sizes.size() - 1; i >= 0; i--) {
    st[i] = s;
    s *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return st;
}

int64_t shape_numel(const DimVec& sizes) {
  int64_t n = 1;
  bool zero = false;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, Runtime, "Trying to create tensor with negative dimension ", s, ": ", sizes);
    zero = zero || s == 0;
  }
  if (zero) return 0;
  for (int64_t s : sizes)  // a wrapped product would be a silently wrong (often empty) tensor
    EMBER_CHECK(!__builtin_mul_overflow(n, s, &n), Runtime, "numel: integer multiplication overflow for sizes ", sizes);
  return n;
}

namespace {
void free_to_cache(void*, void* data, size_t capacity) { cpu_free({data, capacity}); }
}  // namespace

Storage new_storage(int64_t nbytes, Device device) {
  auto s = make_intrusive<StorageImpl>();
  s->nbytes = nbytes;
  s->device = device;
  if (device.is_cpu()) {
    Block b = cpu_alloc(size_t(nbytes));
    s->data = b.ptr;
    s->capacity = b.capacity;
    s->deleter = &free_to_cache;
  } else {
    check_device_available(device);
  }
  return s;
}

Storage foreign_storage(void* data, int64_t nbytes, Device device, StorageImpl::Deleter deleter, void* ctx) {
  auto s = make_intrusive<StorageImpl>();
  s->data = data;
  s->nbytes = nbytes;
  s->device = device;
  s->deleter = deleter;
  s->ctx = ctx;
  s->resizable = false;
  return s;
}

}  // namespace ember
