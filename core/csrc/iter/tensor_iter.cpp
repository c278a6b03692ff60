// TensorIter set-up (see tensor_iter.h).
#include "iter/tensor_iter.h"

#include "iter/copy.h"
#include "tensor/dense_order.h"
#include "tensor/memory_format.h"

namespace ember {

DimVec broadcast_shapes(const DimVec& a, const DimVec& b) {
  int64_t na = a.size(), nb = b.size(), n = std::max(na, nb);
  DimVec out(n);
  for (int64_t i = 0; i < n; i++) {
    int64_t ia = na - n + i, ib = nb - n + i;
    int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
    EMBER_CHECK(sa == sb || sa == 1 || sb == 1, Runtime, "The size of tensor a (", sa,
                ") must match the size of tensor b (", sb, ") at non-singleton dimension ", i, " (shapes ", a, " and ",
                b, " do not broadcast)");
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

TensorIter& TensorIter::output(const Tensor& t, bool is_inplace) {
  user_out_ = t;
  inplace_ = is_inplace;
  return *this;
}

TensorIter& TensorIter::input(const Tensor& t, bool promote) {
  EMBER_CHECK(ntensors_ < kMaxOps, Runtime, "too many operands");
  EMBER_CHECK(t.defined(), Runtime, name_, "(): expected a tensor operand, got None");
  promote_[ntensors_] = promote;
  tensors_[ntensors_++] = t;
  return *this;
}

TensorIter& TensorIter::build() {
  if (user_out_.defined() && check_mem_overlap_) check_overlaps();
  compute_shape();
  compute_types();
  prepare_output();
  if (!try_fast_path()) setup_strides();
  return *this;
}

// PyTorch's rules, on the operands as given (before the output is resized or inputs are cast): the
// destination may not overlap itself, nor an input partially; a full overlap (x.sinh_(), out=x) is
// fine, as each element is read before it is written.
void TensorIter::check_overlaps() const {
  assert_no_internal_overlap(user_out_, name_);
  for (int k = 1; k < ntensors_; k++) assert_no_partial_overlap(user_out_, tensors_[k], name_);
}

void TensorIter::compute_shape() {
  // The common device: the first operand that is not a CPU scalar.
  bool found = false;
  for (int k = 1; k < ntensors_; k++) {
    const Tensor& t = tensors_[k];
    bool cpu_scalar = t.device().is_cpu() && t.dim() == 0;
    if (!cpu_scalar) {
      if (!found) {
        device_ = t.device();
        found = true;
      } else {
        EMBER_CHECK(t.device() == device_, Runtime, name_,
                    "(): expected all tensors to be on the same device, but found at least two devices, ",
                    device_.str(), " and ", t.device().str());
      }
    }
  }
  if (!found && user_out_.defined()) device_ = user_out_.device();
  meta_ = device_.is_meta();
  if (ntensors_ == 2) {
    broadcast_shape_ = tensors_[1].sizes();
  } else {
    broadcast_shape_ = ntensors_ > 1 ? tensors_[1].sizes() : DimVec();
    for (int k = 2; k < ntensors_; k++) {
      if (tensors_[k].sizes() != broadcast_shape_)
        broadcast_shape_ = broadcast_shapes(broadcast_shape_, tensors_[k].sizes());
    }
  }
  if (inplace_) {
    // In-place and copy destinations fix the shape: the inputs must broadcast to it.
    DimVec bs = broadcast_shapes(user_out_.sizes(), broadcast_shape_);
    EMBER_CHECK(bs == user_out_.sizes(), Runtime, name_, "(): output with shape ", user_out_.sizes(),
                " doesn't match the broadcast shape ", bs, " (an in-place op cannot resize its destination)");
    broadcast_shape_ = bs;
  }
  numel_ = 1;
  for (int64_t s : broadcast_shape_) numel_ *= s;
}

void TensorIter::compute_types() {
  // Fast answer when every promoted operand is a tensor of one dtype; else PyTorch's full rules.
  ScalarType common = ScalarType::Undefined;
  bool same = true, any_tensor = false;
  for (int k = 1; k < ntensors_; k++) {
    if (!promote_[k]) continue;
    ScalarType t = tensors_[k].dtype();
    if (common == ScalarType::Undefined)
      common = t;
    else if (t != common)
      same = false;
    any_tensor = any_tensor || !tensors_[k].is_wrapped_number();
  }
  if (!same || !any_tensor) {
    ResultTypeState st;
    for (int k = 1; k < ntensors_; k++)
      if (promote_[k]) st.add(tensors_[k].dtype(), tensors_[k].dim(), tensors_[k].is_wrapped_number());
    common = st.result();
  }
  if (common == ScalarType::Undefined) common = user_out_.defined() ? user_out_.dtype() : default_dtype();
  compute_ = common;
  out_dtype_ = common;
  switch (promotion_) {
    case Promotion::IntToFloat:
      if (is_integral(common, true)) compute_ = out_dtype_ = default_dtype();
      break;
    case Promotion::BoolOut:
      out_dtype_ = ScalarType::Bool;
      break;
    case Promotion::ComplexToReal:
      out_dtype_ = to_real(common);
      break;
    default:
      break;
  }
  if (forced_compute_ != ScalarType::Undefined) compute_ = forced_compute_;
  if (forced_out_ != ScalarType::Undefined) out_dtype_ = forced_out_;
  if (promotion_ != Promotion::None) {
    for (int k = 1; k < ntensors_; k++) {
      if (promote_[k] && tensors_[k].dtype() != compute_) tensors_[k] = to_dtype(tensors_[k], compute_);
    }
  }
  for (int k = 1; k < ntensors_; k++) dtypes_[k] = tensors_[k].dtype();
}

// Same storage but not the same elements: read through a temporary (the partial overlaps PyTorch's
// rules cannot see, between non-dense tensors, then still give the right answer).
static bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.storage().get() != b.storage().get() || a.numel() == 0 || b.numel() == 0) return false;
  return !(a.offset() == b.offset() && a.sizes() == b.sizes() && a.strides() == b.strides());
}

// Input k's stride (elements) along broadcast dim d; 0 where it is broadcast.
static int64_t broadcast_stride(const Tensor& t, const DimVec& shape, int64_t d) {
  const int64_t td = d - int64_t(shape.size() - t.dim());
  if (td < 0 || (t.sizes()[td] == 1 && shape[d] != 1)) return 0;
  return t.strides()[td];
}

// PyTorch's TensorIterator rule for a new output's layout. Contiguous when every input is; when all
// inputs have the output's shape and one format (all channels_last, or all the same dense strides),
// that format; else dense with the dims ordered by the inputs' strides, the first input that orders
// two dims deciding (dims where it broadcasts say nothing), the smaller size inside on equal strides.
static Tensor allocate_output(const Tensor* tensors_, int ntensors_, const DimVec& broadcast_shape_,
                              ScalarType out_dtype_, Device device_) {
  bool all_contiguous = true, same_shape = true;
  for (int k = 1; k < ntensors_; k++) {
    all_contiguous = all_contiguous && tensors_[k].is_contiguous();
    same_shape = same_shape && tensors_[k].sizes() == broadcast_shape_;
  }
  if (all_contiguous) return empty(broadcast_shape_, out_dtype_, device_);
  const DimVec& shape = broadcast_shape_;
  if (same_shape) {
    for (MemoryFormat f : {MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d}) {
      bool all = true;
      for (int k = 1; k < ntensors_ && all; k++) all = is_contiguous_in(tensors_[k], f);
      if (all) return empty_strided(shape, memory_format_strides(shape, f), out_dtype_, device_);
    }
    const DimVec& first = tensors_[1].strides();
    bool all = dense_strides_like(shape, first) == first;
    for (int k = 2; k < ntensors_ && all; k++) all = tensors_[k].strides() == first;
    if (all) return empty_strided(shape, first, out_dtype_, device_);
  }
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (int k = 1; k < ntensors_; k++) {
      const int64_t s0 = broadcast_stride(tensors_[k], shape, d0), s1 = broadcast_stride(tensors_[k], shape, d1);
      if (s0 == 0 || s1 == 0) continue;
      if (s0 != s1) return s0 < s1 ? -1 : 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  const DimVec strides = dense_strides_in_order(shape, should_swap);
  return empty_strided(shape, strides, out_dtype_, device_);
}

void TensorIter::prepare_output() {
  if (user_out_.defined()) {
    const Tensor& out = user_out_;
    EMBER_CHECK(out.device() == device_ || (ntensors_ == 1), Runtime, name_, "(): expected the output on device ",
                device_.str(), " but got ", out.device().str());
    if (out.sizes() != broadcast_shape_) {
      EMBER_CHECK(!inplace_, Runtime, name_, "(): output with shape ", out.sizes(),
                  " doesn't match the broadcast shape ", broadcast_shape_,
                  " (an in-place op cannot resize its destination)");
      // An input that is the out= tensor itself must keep its old layout while out is resized:
      // read it through a view of the storage (the overlap check then routes through a temporary).
      for (int k = 1; k < ntensors_; k++)
        if (tensors_[k].is_same(out)) tensors_[k] = make_view(out, out.sizes(), out.strides(), out.offset());
      resize_out(out, broadcast_shape_);
    }
    EMBER_CHECK(can_cast(out_dtype_, out.dtype()), Runtime, name_, "(): result type ", dtype_name(out_dtype_),
                " can't be cast to the desired output type ", dtype_name(out.dtype()));
    bool overlap = false;
    for (int k = 1; k < ntensors_; k++) overlap = overlap || may_overlap(out, tensors_[k]);
    if (out.dtype() == out_dtype_ && !overlap) {
      tensors_[0] = out;
    } else {
      temp_out_ = empty(broadcast_shape_, out_dtype_, device_);
      tensors_[0] = temp_out_;
    }
  } else {
    tensors_[0] = allocate_output(tensors_, ntensors_, broadcast_shape_, out_dtype_, device_);
  }
  dtypes_[0] = tensors_[0].dtype();
}

bool TensorIter::try_fast_path() {
  for (int k = 0; k < ntensors_; k++) {
    const Tensor& t = tensors_[k];
    if (!t.is_contiguous() || (t.numel() != numel_) || (k && t.sizes() != broadcast_shape_)) return false;
  }
  shape_.resize(1, numel_);
  for (int k = 0; k < ntensors_; k++) {
    strides_[k].resize(1, tensors_[k].itemsize());
    ptrs_[k] = meta_ ? nullptr : tensors_[k].data();
  }
  return true;
}

void TensorIter::setup_strides() {
  const int64_t nd = broadcast_shape_.size();
  // Fastest dim first: reverse the logical order.
  shape_.resize(nd);
  for (int64_t d = 0; d < nd; d++) shape_[d] = broadcast_shape_[nd - 1 - d];
  for (int k = 0; k < ntensors_; k++) {
    const Tensor& t = tensors_[k];
    DimVec& st = strides_[k];
    st.resize(nd, 0);
    int64_t td = t.dim(), isz = t.itemsize();
    for (int64_t d = 0; d < nd; d++) {
      int64_t logical = nd - 1 - d;
      int64_t tdim = logical - (nd - td);
      st[d] = (tdim >= 0 && t.sizes()[tdim] != 1) ? t.strides()[tdim] * isz : 0;
    }
    ptrs_[k] = meta_ ? nullptr : t.data();
  }
  // Sort dims so the ones with the smallest output (then input) strides come first: insertion sort
  // keeps the reordering stable, as PyTorch's does.
  DimVec perm(nd);
  for (int64_t d = 0; d < nd; d++) perm[d] = d;
  auto should_swap = [&](int64_t a, int64_t b) {  // is dim a slower than dim b?
    for (int k = 0; k < ntensors_; k++) {
      int64_t sa = strides_[k][a], sb = strides_[k][b];
      if (sa == 0 || sb == 0) continue;
      if (sa != sb) return sa > sb;
    }
    return false;
  };
  for (int64_t i = 1; i < nd; i++) {
    for (int64_t j = i; j > 0 && should_swap(perm[j - 1], perm[j]); j--) std::swap(perm[j - 1], perm[j]);
  }
  DimVec tmp(nd);
  for (int64_t d = 0; d < nd; d++) tmp[d] = shape_[perm[d]];
  shape_ = tmp;
  for (int k = 0; k < ntensors_; k++) {
    for (int64_t d = 0; d < nd; d++) tmp[d] = strides_[k][perm[d]];
    strides_[k] = tmp;
  }
  // Coalesce: merge dim d+1 into d when every operand steps through them as one.
  if (nd > 1) {
    int64_t out = 0;
    for (int64_t d = 1; d < nd; d++) {
      bool can = true;
      for (int k = 0; k < ntensors_ && can; k++)
        can = shape_[out] == 1 || shape_[d] == 1 || strides_[k][out] * shape_[out] == strides_[k][d];
      if (can) {
        for (int k = 0; k < ntensors_; k++) {
          if (shape_[out] == 1) strides_[k][out] = strides_[k][d];
        }
        shape_[out] *= shape_[d];
      } else {
        out++;
        shape_[out] = shape_[d];
        for (int k = 0; k < ntensors_; k++) strides_[k][out] = strides_[k][d];
      }
    }
    shape_.resize(out + 1);
    for (int k = 0; k < ntensors_; k++) strides_[k].resize(out + 1);
  }
}

Tensor TensorIter::finish() {
  if (user_out_.defined()) {
    if (temp_out_.defined()) copy_(user_out_, temp_out_);
    user_out_.bump_version();
    return user_out_;
  }
  return tensors_[0];
}

}  // namespace ember
