// The copy/cast kernel: every dtype into every dtype, plus fill_.
#include "iter/copy.h"

#include <cstring>

#include "device/cpu_features.h"
#include "iter/loops.h"
#include "kernels/convert.h"
#include "kernels/cpu/convert_bf16_avx512.h"

namespace ember {

namespace {

void copy_same_dtype_contig(const Tensor& dst, const Tensor& src) {
  char* d = dst.data();
  const char* s = src.data();
  int64_t nbytes = dst.numel() * dst.itemsize();
  parallel_for(nbytes, int64_t(1) << 20, [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, e - b); });
}

// float32 <-> bfloat16 between contiguous tensors of one shape on AVX-512F (autocast's casts of
// weights, activations and gradients): the generic loop's AVX2 body took ~2.5x as long to narrow.
bool copy_bf16_float_contig(const Tensor& dst, const Tensor& src) {
  const ScalarType d = dst.dtype(), s = src.dtype();
  const bool narrow = d == ScalarType::BFloat16 && s == ScalarType::Float32;
  if (!(narrow || (d == ScalarType::Float32 && s == ScalarType::BFloat16)) || !cpu_has_avx512()) return false;
  if (dst.is_meta() || src.is_meta() || !dst.is_contiguous() || !src.is_contiguous() || dst.sizes() != src.sizes() ||
      dst.storage().get() == src.storage().get())
    return false;
  const int64_t n = dst.numel();
  if (narrow) {
    const float* a = src.data_as<float>();
    uint16_t* o = reinterpret_cast<uint16_t*>(dst.data_as<BFloat16>());
    parallel_for(n, 1 << 16, [&](int64_t b, int64_t e) { bf16cvt::narrow(a + b, e - b, o + b); });
  } else {
    const uint16_t* a = reinterpret_cast<const uint16_t*>(src.data_as<BFloat16>());
    float* o = dst.data_as<float>();
    parallel_for(n, 1 << 16, [&](int64_t b, int64_t e) { bf16cvt::widen(a + b, e - b, o + b); });
  }
  return true;
}

}  // namespace

void copy_(const Tensor& dst, const Tensor& src) {
  if (dst.is_same(src)) return;
  if (!dst.is_meta() && !src.is_meta() && dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
      dst.sizes() == src.sizes() && dst.storage().get() != src.storage().get()) {
    copy_same_dtype_contig(dst, src);
    dst.bump_version();
    return;
  }
  if (copy_bf16_float_contig(dst, src)) {
    dst.bump_version();
    return;
  }
  TensorIter it;
  it.name("copy_").output(dst, true).input(src, false).promotion(Promotion::None).out_dtype(dst.dtype());
  it.build();
  visit_dtype(dst.dtype(), [&](auto o) {
    using O = decltype(o);
    visit_dtype(it.input_dtype(0), [&](auto a) {
      using A = decltype(a);
      unary_kernel<O, A>(it, [](A v) { return convert<O>(v); });
    });
  });
  it.finish();
}

void fill_(const Tensor& t, const Scalar& value) {
  if (t.is_meta() || t.numel() == 0) return;
  visit_dtype(t.dtype(), [&](auto z) {
    using T = decltype(z);
    const T v = value.to<T>();
    if (t.is_contiguous() && sizeof(T) == 2) {
      // float16/bfloat16 by their bits: std::fill of the 16-bit class types ran element by element
      // (a bf16 max_pool gradient's zeroing took 2.5x float32's for half the bytes).
      uint16_t bits;
      std::memcpy(&bits, &v, 2);
      uint16_t* p = reinterpret_cast<uint16_t*>(t.data_as<T>());
      parallel_for(t.numel(), 1 << 16, [&](int64_t b, int64_t e) { std::fill(p + b, p + e, bits); });
    } else if (t.is_contiguous()) {
      T* p = t.data_as<T>();
      parallel_for(t.numel(), 1 << 16, [&](int64_t b, int64_t e) { std::fill(p + b, p + e, v); });
    } else {
      TensorIter it;
      // One value written to every location: an expanded t is fine (PyTorch skips the overlap check too).
      it.name("fill_")
          .check_mem_overlap(false)
          .output(t, true)
          .input(scalar_tensor(value, t.dtype()), false)
          .promotion(Promotion::None)
          .out_dtype(t.dtype());
      it.build();
      unary_kernel<T, T>(it, [](T x) { return x; });
    }
  });
  t.bump_version();
}

Tensor to_dtype(const Tensor& t, ScalarType dtype) {
  const bool plain = t.strides() == contiguous_strides(t.sizes());  // else keep t's layout (see _to_copy)
  Tensor out = plain ? empty(t.sizes(), dtype, t.device()) : empty_like_layout(t);
  if (out.dtype() != dtype) out = empty_strided(out.sizes(), out.strides(), dtype, t.device());
  copy_(out, t);
  return out;
}

Tensor contiguous_copy(const Tensor& t) {
  Tensor out = empty(t.sizes(), t.dtype(), t.device());
  copy_(out, t);
  return out;
}

Tensor contiguous(const Tensor& t) { return t.is_contiguous() ? t : contiguous_copy(t); }

Tensor contiguous_as(const Tensor& t, ScalarType dtype) {
  return t.dtype() == dtype ? contiguous(t) : contiguous(to_dtype(t, dtype));
}

}  // namespace ember
