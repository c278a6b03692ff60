// einsum: repeated labels become diagonal views, size-1 dims broadcast, labels used by one operand
// only are summed first (a gemv against ones), then operands contract pairwise as batched gemms
// (batch labels, free labels, contracted labels -> permute + reshape + gemm_batched). With 3+
// operands the next pair is chosen greedily (opt_einsum's greedy rule: the contraction that most
// shrinks the total size, pairs sharing a label first), so intermediates stay small.
#include <algorithm>
#include <limits>

#include "generated/ops/einsum.h"
#include "generated/ops/permute.h"
#include "generated/ops/reshape.h"
#include "kernels/einsum.h"
#include "kernels/matmul.h"

namespace ember::ops {

namespace {

struct Operand {
  Tensor t;
  std::vector<int> labels;  // one per dim, no repeats
};

bool has(const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

// Repeated labels in one operand read its diagonal: one dim whose stride is the sum of theirs.
Operand take_diagonals(const Tensor& t, const std::vector<int>& labels, size_t index) {
  Operand op;
  DimVec sizes, strides;
  for (int64_t d = 0; d < t.dim(); d++) {
    const int l = labels[d];
    auto it = std::find(op.labels.begin(), op.labels.end(), l);
    if (it == op.labels.end()) {
      op.labels.push_back(l);
      sizes.push_back(t.sizes()[d]);
      strides.push_back(t.strides()[d]);
    } else {
      const int64_t at = it - op.labels.begin();
      EMBER_CHECK(sizes[at] == t.sizes()[d], Runtime, "einsum(): subscript ", einsum_label_name(l),
                  " is repeated for operand ", index, " but the sizes don't match, ", sizes[at], " != ", t.sizes()[d]);
      strides[at] += t.strides()[d];
    }
  }
  op.t = sizes.size() == t.dim() ? t : make_view(t, sizes, strides, t.offset());
  return op;
}

// Drops size-1 dims: a label of size 1 broadcasts against the others (the operand is constant along it).
Operand drop_dims(const Operand& op, const std::vector<bool>& drop) {
  Operand r;
  DimVec sizes, strides;
  for (size_t d = 0; d < op.labels.size(); d++) {
    if (drop[d]) continue;
    r.labels.push_back(op.labels[d]);
    sizes.push_back(op.t.sizes()[d]);
    strides.push_back(op.t.strides()[d]);
  }
  r.t = r.labels.size() == op.labels.size() ? op.t : make_view(op.t, sizes, strides, op.t.offset());
  return r;
}

int64_t prod(const DimVec& v) {
  int64_t p = 1;
  for (int64_t s : v) p *= s;
  return p;
}

// Sums op over the labels not in `keep`: kept dims first, then one gemv against a vector of ones.
Operand sum_out(const Operand& op, const std::vector<int>& keep) {
  DimVec perm, kept_sizes;
  Operand r;
  int64_t R = 1;
  for (size_t d = 0; d < op.labels.size(); d++) {
    if (has(keep, op.labels[d])) {
      perm.push_back(int64_t(d));
      kept_sizes.push_back(op.t.sizes()[d]);
      r.labels.push_back(op.labels[d]);
    }
  }
  if (r.labels.size() == op.labels.size()) return op;
  for (size_t d = 0; d < op.labels.size(); d++) {
    if (!has(keep, op.labels[d])) {
      perm.push_back(int64_t(d));
      R *= op.t.sizes()[d];
    }
  }
  const int64_t rows = prod(kept_sizes);
  const Tensor mat = reshape(permute(op.t, perm), {rows, R});
  Tensor ones = empty({R}, op.t.dtype(), op.t.device());
  if (!ones.is_meta()) fill_(ones, Scalar(int64_t(1)));
  Tensor y = empty({rows}, op.t.dtype(), op.t.device());
  gemv_into(y, mat, ones, Scalar(int64_t(0)), Scalar(int64_t(1)));
  r.t = reshape(y, kept_sizes);
  return r;
}

// The labels still needed once operands i and j are merged: the output's and the other operands'.
std::vector<int> needed_except(const std::vector<Operand>& ops, size_t i, size_t j, const std::vector<int>& output) {
  std::vector<int> need = output;
  for (size_t o = 0; o < ops.size(); o++) {
    if (o == i || o == j) continue;
    for (int l : ops[o].labels) {
      if (!has(need, l)) need.push_back(l);
    }
  }
  return need;
}

// a and b contracted: batch labels (shared, still needed), free labels (one side), and contracted
// labels (shared, not needed) become (batch, M, K) @ (batch, K, N) in one gemm_batched.
Operand contract(const Operand& a_in, const Operand& b_in, const std::vector<int>& need) {
  // Labels of one side only that nothing needs are summed first.
  std::vector<int> keep_a = need, keep_b = need;
  for (int l : b_in.labels) keep_a.push_back(l);
  for (int l : a_in.labels) keep_b.push_back(l);
  const Operand a = sum_out(a_in, keep_a), b = sum_out(b_in, keep_b);
  std::vector<int> batch, free_a, free_b, con;
  for (int l : a.labels) {
    if (has(b.labels, l))
      (has(need, l) ? batch : con).push_back(l);
    else
      free_a.push_back(l);
  }
  for (int l : b.labels) {
    if (!has(a.labels, l)) free_b.push_back(l);
  }
  auto dim_of = [](const Operand& o, int l) {
    return int64_t(std::find(o.labels.begin(), o.labels.end(), l) - o.labels.begin());
  };
  DimVec pa, pb, bsz, out_sz;
  int64_t M = 1, N = 1, K = 1;
  for (int l : batch) {
    pa.push_back(dim_of(a, l));
    pb.push_back(dim_of(b, l));
    bsz.push_back(a.t.sizes()[dim_of(a, l)]);
  }
  out_sz = bsz;
  for (int l : free_a) {
    pa.push_back(dim_of(a, l));
    M *= a.t.sizes()[dim_of(a, l)];
    out_sz.push_back(a.t.sizes()[dim_of(a, l)]);
  }
  for (int l : con) {
    pa.push_back(dim_of(a, l));
    pb.push_back(dim_of(b, l));
    K *= a.t.sizes()[dim_of(a, l)];
  }
  for (int l : free_b) {
    pb.push_back(dim_of(b, l));
    N *= b.t.sizes()[dim_of(b, l)];
    out_sz.push_back(b.t.sizes()[dim_of(b, l)]);
  }
  DimVec sa = bsz, sb = bsz, so = bsz;
  sa.push_back(M);
  sa.push_back(K);
  sb.push_back(K);
  sb.push_back(N);
  so.push_back(M);
  so.push_back(N);
  Tensor res = empty(so, a.t.dtype(), a.t.device());
  gemm_batched(res, reshape(permute(a.t, pa), sa), reshape(permute(b.t, pb), sb), Scalar(int64_t(0)),
               Scalar(int64_t(1)));
  Operand r;
  r.t = reshape(res, out_sz);
  r.labels = batch;
  r.labels.insert(r.labels.end(), free_a.begin(), free_a.end());
  r.labels.insert(r.labels.end(), free_b.begin(), free_b.end());
  return r;
}

// The greedy choice: the pair whose contraction removes the most elements (result size minus the
// two operands' sizes), among pairs sharing a label when there are any; ties by smaller work.
std::pair<size_t, size_t> pick_pair(const std::vector<Operand>& ops, const std::vector<int>& output,
                                    const std::vector<int64_t>& label_size) {
  double best = std::numeric_limits<double>::infinity(), best_work = best;
  bool best_shares = false;
  std::pair<size_t, size_t> pick{0, 1};
  for (size_t i = 0; i < ops.size(); i++) {
    for (size_t j = i + 1; j < ops.size(); j++) {
      const std::vector<int> need = needed_except(ops, i, j, output);
      double size_a = 1, size_b = 1, size_r = 1, work = 1;
      bool shares = false;
      std::vector<int> all = ops[i].labels;
      for (int l : ops[i].labels) size_a *= double(label_size[l]);
      for (int l : ops[j].labels) {
        size_b *= double(label_size[l]);
        if (has(ops[i].labels, l))
          shares = true;
        else
          all.push_back(l);
      }
      for (int l : all) {
        work *= double(label_size[l]);
        if (has(need, l)) size_r *= double(label_size[l]);
      }
      const double score = size_r - size_a - size_b;
      const bool better =
          (shares && !best_shares) || (shares == best_shares && (score < best || (score == best && work < best_work)));
      if (better) {
        best = score;
        best_work = work;
        best_shares = shares;
        pick = {i, j};
      }
    }
  }
  return pick;
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& tensors) {
  const EinsumSpec spec = parse_einsum(equation, tensors);
  for (size_t i = 1; i < tensors.size(); i++) {
    EMBER_CHECK(tensors[i].dtype() == tensors[0].dtype(), Runtime,
                "einsum(): expected all operands to have the same "
                "dtype, but operand 0 is ",
                dtype_name(tensors[0].dtype()), " and operand ", i, " is ", dtype_name(tensors[i].dtype()));
    check_same_device(tensors[0], tensors[i]);
  }
  check_product_dtype(tensors[0].dtype(), "einsum");
  // Each label's size: equal across operands, or 1 (which broadcasts).
  std::vector<int64_t> label_size(spec.num_labels, -1);
  std::vector<Operand> ops;
  for (size_t i = 0; i < tensors.size(); i++) ops.push_back(take_diagonals(tensors[i], spec.inputs[i], i));
  for (size_t i = 0; i < ops.size(); i++) {
    for (size_t d = 0; d < ops[i].labels.size(); d++) {
      const int l = ops[i].labels[d];
      const int64_t s = ops[i].t.sizes()[d];
      int64_t& have = label_size[l];
      EMBER_CHECK(have < 0 || have == s || have == 1 || s == 1, Runtime,
                  "einsum(): operands do not broadcast: "
                  "subscript ",
                  einsum_label_name(l), " has size ", have, " in an earlier operand but size ", s, " for operand ", i);
      if (have < 0 || have == 1) have = s;
    }
  }
  for (size_t i = 0; i < ops.size(); i++) {
    std::vector<bool> drop(ops[i].labels.size(), false);
    for (size_t d = 0; d < drop.size(); d++) drop[d] = ops[i].t.sizes()[d] == 1 && label_size[ops[i].labels[d]] != 1;
    ops[i] = drop_dims(ops[i], drop);
  }
  // Labels only one operand has (and the output lacks) are summed before any product.
  for (size_t i = 0; i < ops.size(); i++) ops[i] = sum_out(ops[i], needed_except(ops, i, i, spec.output));
  while (ops.size() > 1) {
    const auto [i, j] = ops.size() == 2 ? std::pair<size_t, size_t>{0, 1} : pick_pair(ops, spec.output, label_size);
    const std::vector<int> need = needed_except(ops, i, j, spec.output);
    Operand merged = contract(ops[i], ops[j], need);
    ops.erase(ops.begin() + j);
    ops[i] = std::move(merged);
  }
  Operand last = sum_out(ops[0], spec.output);
  // Output labels dropped as size-1 broadcasts (or absent) come back as size-1 dims.
  DimVec perm, shape;
  bool identity = true;
  for (int l : spec.output) {
    auto it = std::find(last.labels.begin(), last.labels.end(), l);
    if (it == last.labels.end()) {
      shape.push_back(1);
    } else {
      const int64_t d = it - last.labels.begin();
      identity &= d == int64_t(perm.size());
      perm.push_back(d);
      shape.push_back(last.t.sizes()[d]);
    }
  }
  Tensor r = identity ? last.t : permute(last.t, perm);
  return r.dim() == int64_t(shape.size()) ? r : reshape(r, shape);
}

}  // namespace ember::ops
