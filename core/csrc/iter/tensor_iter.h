// TensorIter: broadcasting, type promotion, output allocation and checks, dim reordering and
// coalescing for elementwise ops. Kernels only see runs: loop(char** ptrs, const int64_t* strides, n)
// with byte strides, operand 0 being the output.
#pragma once
#include <algorithm>

#include "device/parallel.h"
#include "tensor/factory.h"
#include "tensor/mem_overlap.h"
#include "types/promotion.h"

namespace ember {

enum class Promotion : int8_t {
  Default,        // inputs and output in the common dtype
  IntToFloat,     // as Default, but integer/bool results become the default float dtype
  BoolOut,        // compute in the common dtype, output bool (comparisons)
  ComplexToReal,  // compute in the common dtype, output its real counterpart (abs, angle)
  None,           // no casting: the kernel reads each input's own dtype; output = common dtype
};

class TensorIter {
 public:
  static constexpr int kMaxOps = 6;

  // --- configuration, then build() ---
  // out= tensors may be resized; in-place destinations may not.
  TensorIter& output(const Tensor& t, bool is_inplace = false);
  // `promote`=false keeps this input out of the common dtype and uncast (e.g. where's condition).
  TensorIter& input(const Tensor& t, bool promote = true);
  TensorIter& promotion(Promotion p) {
    promotion_ = p;
    return *this;
  }
  TensorIter& out_dtype(ScalarType t) {
    forced_out_ = t;
    return *this;
  }  // overrides the rule's output dtype
  TensorIter& compute_dtype(ScalarType t) {
    forced_compute_ = t;
    return *this;
  }
  TensorIter& name(const char* n) {
    name_ = n;
    return *this;
  }
  // Off for ops that may write one location twice (fill_ of an expanded tensor, as PyTorch allows).
  TensorIter& check_mem_overlap(bool on) {
    check_mem_overlap_ = on;
    return *this;
  }
  TensorIter& build();

  // --- results ---
  ScalarType compute_dtype() const { return compute_; }
  ScalarType result_dtype() const { return out_dtype_; }
  ScalarType input_dtype(int i) const { return dtypes_[i + 1]; }
  bool is_meta() const { return meta_; }
  int64_t numel() const { return numel_; }
  const DimVec& shape() const { return broadcast_shape_; }
  const char* op_name() const { return name_; }
  // The output the caller sees; copies a temporary result into the user's out= first if needed.
  Tensor finish();

  template <class Loop>
  void for_each(const Loop& loop, int64_t grain = 32768) const;

 private:
  void check_overlaps() const;
  void compute_shape();
  void compute_types();
  void prepare_output();
  void setup_strides();
  bool try_fast_path();

  Tensor tensors_[kMaxOps];  // 0: output, then inputs (cast copies when promoted)
  bool promote_[kMaxOps] = {};
  ScalarType dtypes_[kMaxOps];
  int ntensors_ = 1;
  Tensor user_out_;  // out= / in-place destination, when one was given
  Tensor temp_out_;  // where the kernel writes when user_out_ cannot be written directly
  bool inplace_ = false;
  bool check_mem_overlap_ = true;
  Promotion promotion_ = Promotion::Default;
  ScalarType forced_out_ = ScalarType::Undefined, forced_compute_ = ScalarType::Undefined;
  ScalarType compute_ = ScalarType::Undefined, out_dtype_ = ScalarType::Undefined;
  const char* name_ = "op";
  Device device_;
  bool meta_ = false;
  DimVec broadcast_shape_;
  int64_t numel_ = 0;
  // iteration space, dim 0 fastest
  DimVec shape_;
  DimVec strides_[kMaxOps];  // bytes
  char* ptrs_[kMaxOps];
};

// Shape all of `shapes` broadcast to; names the first mismatch.
DimVec broadcast_shapes(const DimVec& a, const DimVec& b);

template <class Loop>
void TensorIter::for_each(const Loop& loop, int64_t grain) const {
  if (numel_ == 0 || meta_) return;
  const int nt = ntensors_;
  const int64_t nd = shape_.size();
  int64_t inner_strides[kMaxOps];
  for (int k = 0; k < nt; k++) inner_strides[k] = nd ? strides_[k][0] : 0;
  if (nd <= 1) {
    parallel_for(numel_, grain, [&](int64_t b, int64_t e) {
      char* p[kMaxOps];
      for (int k = 0; k < nt; k++) p[k] = ptrs_[k] + b * inner_strides[k];
      loop(p, inner_strides, e - b);
    });
    return;
  }
  parallel_for(numel_, grain, [&](int64_t b, int64_t e) {
    DimVec idx(nd);
    int64_t r = b;
    for (int64_t d = 0; d < nd; d++) {
      idx[d] = r % shape_[d];
      r /= shape_[d];
    }
    while (b < e) {
      char* p[kMaxOps];
      for (int k = 0; k < nt; k++) {
        char* q = ptrs_[k];
        for (int64_t d = 0; d < nd; d++) q += idx[d] * strides_[k][d];
        p[k] = q;
      }
      int64_t n = std::min(shape_[0] - idx[0], e - b);
      loop(p, inner_strides, n);
      b += n;
      idx[0] += n;
      for (int64_t d = 0; d + 1 < nd && idx[d] == shape_[d]; d++) {
        idx[d] = 0;
        idx[d + 1]++;
      }
    }
  });
}

}  // namespace ember
