// Gradients of the shape ops that copy: the stack family (hstack, vstack, dstack, column_stack),
// repeat and tile, and diff.
#include "autograd/formulas.h"

namespace ember::ad {

namespace {

// The shape NumPy's atleast_1d/2d/3d give a tensor of `s`.
DimVec atleast(const DimVec& s, int64_t nd) {
  if (int64_t(s.size()) >= nd) return s;
  if (s.empty()) return DimVec(nd, 1);
  if (s.size() == 1) return nd == 2 ? DimVec{1, s[0]} : DimVec{1, s[0], 1};
  return DimVec{s[0], s[1], 1};
}

}  // namespace

// Each kind reshapes its inputs then cats them; the gradient splits grad and undoes the reshape.
variable_list stack_family_backward(const Tensor& grad, const std::vector<DimVec>& sizes, const std::string& kind) {
  std::vector<DimVec> shaped;
  int64_t dim = 0;
  for (const DimVec& s : sizes) {
    if (kind == "hstack")
      shaped.push_back(atleast(s, 1));
    else if (kind == "vstack")
      shaped.push_back(atleast(s, 2));
    else if (kind == "dstack")
      shaped.push_back(atleast(s, 3));
    else
      shaped.push_back(s.size() <= 1 ? DimVec{s.empty() ? 1 : s[0], 1} : s);  // column_stack
  }
  if (kind == "hstack")
    dim = shaped[0].size() == 1 ? 0 : 1;
  else if (kind == "dstack")
    dim = 2;
  else if (kind == "column_stack")
    dim = 1;
  variable_list parts = cat_backward(grad, shaped, dim);
  for (size_t i = 0; i < parts.size(); i++) parts[i] = reshape(parts[i], sizes[i]);
  return parts;
}

// repeat: the result seen as [r0, s0, r1, s1, ...] holds the input at every r; summing over the r
// dims gives the gradient. tile is repeat after padding dims with leading 1s.
Tensor repeat_backward(const Tensor& grad, const DimVec& repeats, const DimVec& input_sizes) {
  const int64_t n = repeats.size(), nd = input_sizes.size();
  DimVec pairs, r_dims;
  for (int64_t i = 0; i < n; i++) {
    const int64_t d = i - (n - nd);
    pairs.push_back(repeats[i]);
    pairs.push_back(d >= 0 ? input_sizes[d] : 1);
    r_dims.push_back(2 * i);
  }
  return reshape(sum(reshape(grad, pairs), r_dims, false, ScalarType::Undefined), input_sizes);
}

Tensor tile_backward(const Tensor& grad, const DimVec& dims, const DimVec& input_sizes) {
  DimVec reps(input_sizes.size() > dims.size() ? input_sizes.size() - dims.size() : 0, 1);
  for (int64_t r : dims) reps.push_back(r);
  return repeat_backward(grad, reps, input_sizes);
}

// diff applies x -> x[1:] - x[:-1] n times to cat(prepend, input, append); its adjoint maps g to
// (-g[0], g[0] - g[1], ..., g[-1]). `part` picks prepend (0), input (1) or append (2) back out.
Tensor diff_backward(const Tensor& grad, int64_t n, int64_t dim, const DimVec& input_sizes, const Tensor& prepend,
                     const Tensor& append, int part) {
  const int64_t d = wrap_dim(dim, input_sizes.size());
  const int64_t before = prepend.defined() ? prepend.sizes()[d] : 0;
  const int64_t total = before + input_sizes[d] + (append.defined() ? append.sizes()[d] : 0);
  Tensor g = grad;
  for (int64_t k = 0; k < n && g.sizes()[d] < total; k++) {
    DimVec edge = g.sizes();
    edge[d] = 1;
    Tensor z = zeros_sized(edge, g);
    g = cat({z, g}, d) - cat({g, z}, d);
  }
  const int64_t start = part == 0 ? 0 : part == 1 ? before : before + input_sizes[d];
  const int64_t length = part == 0 ? before : part == 1 ? input_sizes[d] : total - before - input_sizes[d];
  return narrow(g, d, start, length);
}

}  // namespace ember::ad
