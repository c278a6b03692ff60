// Gradients of the contractions: tensordot, inner, kron and einsum, each written as another
// contraction of the gradient with the other operands' conjugates.
#include <numeric>

#include "autograd/formulas.h"
#include "kernels/einsum.h"

namespace ember::ad {

namespace {

DimVec wrapped(const DimVec& dims, int64_t ndim) {
  DimVec out;
  for (int64_t d : dims) out.push_back(wrap_dim(d, ndim));
  return out;
}

DimVec free_dims(int64_t ndim, const DimVec& contracted) {
  DimVec out;
  for (int64_t d = 0; d < ndim; d++)
    if (std::find(contracted.begin(), contracted.end(), d) == contracted.end()) out.push_back(d);
  return out;
}

// Position of `v` among `dims` sorted ascending: where a contracted dim lands in tensordot's result.
int64_t rank_in(const DimVec& dims, int64_t v) {
  return std::count_if(dims.begin(), dims.end(), [&](int64_t d) { return d < v; });
}

DimVec iota(int64_t from, int64_t n) {
  DimVec out(n);
  std::iota(out.begin(), out.end(), from);
  return out;
}

}  // namespace

// result = a's free dims then b's free dims. grad_a contracts grad's b part with b's free dims,
// which leaves a's free dims then b's contracted dims (in b's order); a permute puts them back.
Tensor tensordot_backward_a(const Tensor& grad, const Tensor& a, const Tensor& b, const DimVec& dims_a,
                            const DimVec& dims_b) {
  const DimVec da = wrapped(dims_a, a.dim()), db = wrapped(dims_b, b.dim());
  const DimVec fa = free_dims(a.dim(), da), fb = free_dims(b.dim(), db);
  Tensor t = tensordot(grad, cj(b), iota(int64_t(fa.size()), int64_t(fb.size())), fb);
  DimVec perm(a.dim());
  for (size_t p = 0; p < fa.size(); p++) perm[fa[p]] = int64_t(p);
  for (size_t k = 0; k < da.size(); k++) perm[da[k]] = int64_t(fa.size()) + rank_in(db, db[k]);
  return permute(t, perm);
}

Tensor tensordot_backward_b(const Tensor& grad, const Tensor& a, const Tensor& b, const DimVec& dims_a,
                            const DimVec& dims_b) {
  const DimVec da = wrapped(dims_a, a.dim()), db = wrapped(dims_b, b.dim());
  const DimVec fa = free_dims(a.dim(), da), fb = free_dims(b.dim(), db);
  Tensor t = tensordot(cj(a), grad, fa, iota(0, int64_t(fa.size())));
  DimVec perm(b.dim());
  for (size_t p = 0; p < fb.size(); p++) perm[fb[p]] = int64_t(da.size() + p);
  for (size_t k = 0; k < db.size(); k++) perm[db[k]] = rank_in(da, da[k]);
  return permute(t, perm);
}

// inner contracts the last dims (a scalar operand multiplies instead).
Tensor inner_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool for_self) {
  if (self.dim() == 0 || other.dim() == 0) {
    const Tensor& w = for_self ? other : self;
    return grad * cj(w);
  }
  const DimVec da{self.dim() - 1}, db{other.dim() - 1};
  return for_self ? tensordot_backward_a(grad, self, other, da, db) : tensordot_backward_b(grad, self, other, da, db);
}

// kron: with both padded to the same rank, result dim k is (a_k, b_k) flattened; viewing grad as
// (a_0, b_0, a_1, b_1, ...) makes the gradient a broadcast product summed over the other's dims.
Tensor kron_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool for_self) {
  const int64_t nd = std::max(self.dim(), other.dim());
  auto padded = [&](const Tensor& t) {
    DimVec s(nd - t.dim(), 1);
    for (int64_t d : t.sizes()) s.push_back(d);
    return s;
  };
  const DimVec sa = padded(self), sb = padded(other);
  DimVec pairs, a_shape, b_shape, sum_dims;
  for (int64_t k = 0; k < nd; k++) {
    for (int64_t v : {sa[k], sb[k]}) pairs.push_back(v);
    for (int64_t v : {sa[k], int64_t(1)}) a_shape.push_back(v);
    for (int64_t v : {int64_t(1), sb[k]}) b_shape.push_back(v);
    sum_dims.push_back(2 * k + (for_self ? 1 : 0));
  }
  const Tensor& w = for_self ? other : self;
  Tensor g = reshape(grad, pairs) * reshape(cj(w), for_self ? b_shape : a_shape);
  return reshape(sum(g, sum_dims, false, ScalarType::Undefined), (for_self ? self : other).sizes());
}

namespace {

std::string letter(int i) {
  EMBER_CHECK(i < kEinsumLetters, NotImplemented,
              "the derivative of einsum is not implemented for equations that need ", "more than ", kEinsumLetters,
              " labels");
  return std::string(1, i < 26 ? char('a' + i) : char('A' + i - 26));
}

}  // namespace

// The gradient of operand i is an einsum of grad (output labels) with the other operands, back to
// operand i's labels. Three cases need help: a label repeated in operand i (a diagonal: a fresh
// label tied to the first by an identity matrix), a label only operand i has (summed away: a ones
// vector brings it back), and a size-1 dim broadcast against a larger one (a fresh label of size 1,
// so the larger one is summed).
variable_list einsum_backward(const Tensor& grad, const std::string& equation, const std::vector<Tensor>& tensors) {
  const EinsumSpec spec = parse_einsum(equation, tensors);
  std::vector<int64_t> size(spec.num_labels, 1);
  for (size_t j = 0; j < tensors.size(); j++)
    for (size_t k = 0; k < spec.inputs[j].size(); k++)
      size[spec.inputs[j][k]] = std::max(size[spec.inputs[j][k]], tensors[j].sizes()[k]);
  std::vector<int> letter_of(spec.num_labels, -1);
  int next = 0;
  auto name = [&](int label) {
    if (letter_of[label] < 0) letter_of[label] = next++;
    return letter(letter_of[label]);
  };
  auto term = [&](const std::vector<int>& labels) {
    std::string s;
    for (int l : labels) s += name(l);
    return s;
  };
  variable_list out;
  for (size_t i = 0; i < tensors.size(); i++) {
    std::vector<bool> elsewhere(spec.num_labels, false);
    for (int l : spec.output) elsewhere[l] = true;
    for (size_t j = 0; j < tensors.size(); j++)
      if (j != i)
        for (int l : spec.inputs[j]) elsewhere[l] = true;
    std::string lhs = term(spec.output), rhs;
    std::vector<Tensor> operands{grad};
    for (size_t j = 0; j < tensors.size(); j++)
      if (j != i) {
        lhs += "," + term(spec.inputs[j]);
        operands.push_back(cj(tensors[j]));
      }
    std::vector<bool> placed(spec.num_labels, false);
    for (size_t k = 0; k < spec.inputs[i].size(); k++) {
      const int l = spec.inputs[i][k];
      const int64_t n = tensors[i].sizes()[k];
      if (n == 1 && size[l] > 1) {  // broadcast: a fresh size-1 label
        const std::string f = letter(next++);
        rhs += f;
        lhs += "," + f;
        operands.push_back(ops::ones({1}, grad.dtype(), grad.device(), false));
        continue;
      } else if (placed[l]) {  // a repeat: on the diagonal with the first occurrence
        const std::string f = letter(next++);
        rhs += f;
        lhs += "," + name(l) + f;
        operands.push_back(ops::eye(n, std::nullopt, grad.dtype(), grad.device(), false));
      } else {
        rhs += name(l);
        if (!elsewhere[l]) {
          lhs += "," + name(l);
          operands.push_back(ops::ones({n}, grad.dtype(), grad.device(), false));
        }
      }
      placed[l] = true;
    }
    out.push_back(einsum(lhs + "->" + rhs, operands));
  }
  return out;
}

}  // namespace ember::ad
