// Planning for the reduction engine: which dims reduce, the result shape, the canonical 3-D form
// of the input (sorted by stride, coalesced), and the out= rules the reductions share.
#include "iter/reduce_iter.h"

#include "iter/copy.h"

namespace ember {

DimMask reduce_mask(const std::optional<DimVec>& dim, int64_t ndim, const char* name) {
  DimMask m;
  EMBER_CHECK(ndim <= 64, Runtime, name, "(): only tensors with up to 64 dims are supported");
  if (!dim || dim->empty()) {
    for (int64_t d = 0; d < ndim; d++) m.set(d);
    return m;
  }
  for (int64_t d : *dim) {
    const int64_t w = wrap_dim(d, ndim);
    EMBER_CHECK(!m.test(w), Runtime, "dim ", w, " appears multiple times in the list of dims");
    m.set(w);
  }
  return m;
}

DimMask reduce_mask_one(int64_t dim, int64_t ndim) {
  DimMask m;
  m.set(wrap_dim(dim, ndim));
  return m;
}

DimVec reduced_shape(const DimVec& sizes, const DimMask& mask, bool keepdim) {
  DimVec out;
  for (int64_t d = 0; d < int64_t(sizes.size()); d++) {
    if (!mask.test(d))
      out.push_back(sizes[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

int64_t reduced_numel(const DimVec& sizes, const DimMask& mask) {
  int64_t n = 1;
  for (int64_t d = 0; d < int64_t(sizes.size()); d++)
    if (mask.test(d)) n *= sizes[d];
  return n;
}

namespace {

struct Dim {
  int64_t size, is, os;
  bool red;
};

}  // namespace

ReducePlan make_reduce_plan(const Tensor& input, const DimMask& mask, bool ordered) {
  const int64_t nd = input.dim();
  ReducePlan p;
  // Output strides of the kept dims in a C-contiguous result.
  DimVec os(nd, 0);
  int64_t s = 1;
  for (int64_t d = nd - 1; d >= 0; d--)
    if (!mask.test(d)) {
      os[d] = s;
      s *= input.sizes()[d];
    }
  p.out_numel = s;
  std::vector<Dim> dims;
  for (int64_t d = 0; d < nd; d++)
    if (input.sizes()[d] != 1) dims.push_back({input.sizes()[d], input.strides()[d], os[d], mask.test(d)});
  bool in_order = true;  // reduced dims already in memory order (strides not increasing)
  int64_t last = INT64_MAX;
  for (const Dim& d : dims)
    if (d.red) {
      in_order = in_order && d.is <= last;
      last = d.is;
    }
  // Memory order, outermost first; then merge neighbours that walk memory (and the output) as one.
  std::stable_sort(dims.begin(), dims.end(), [](const Dim& a, const Dim& b) { return a.is > b.is; });
  std::vector<Dim> co;
  for (const Dim& d : dims) {
    if (!co.empty()) {
      Dim& o = co.back();
      if (o.red == d.red && o.is == d.is * d.size && (d.red || o.os == d.os * d.size)) {
        o.size *= d.size;
        o.is = d.is;
        o.os = d.os;
        continue;
      }
    }
    co.push_back(d);
  }
  // Accepted patterns: [kept] [reduced] [kept], each part optional.
  size_t k = 0;
  const Dim *outer = nullptr, *red = nullptr, *inner = nullptr;
  if (k < co.size() && !co[k].red) outer = &co[k++];
  if (k < co.size() && co[k].red) red = &co[k++];
  if (k < co.size() && !co[k].red) inner = &co[k++];
  if (k == co.size() && (in_order || !ordered)) {
    p.src = input;
    if (outer) p.A = outer->size, p.sa = outer->is, p.oa = outer->os;
    if (red) p.R = red->size, p.sr = red->is;
    if (inner) p.I = inner->size, p.si = inner->is, p.oi = inner->os;
    return p;
  }
  // [reduced][kept][reduced] with enough kept outputs to share out and inner runs long enough to
  // pay for a call each: read in place, a run of the inner reduced dim at a time (an op reporting
  // an index needs C order, so it copies instead).
  if (co.size() == 3 && co[0].red && !co[1].red && co[2].red && co[1].size >= 8 && co[2].size >= 16 && !ordered) {
    p.src = input;
    p.R0 = co[0].size, p.sr0 = co[0].is;
    p.A = co[1].size, p.sa = co[1].is, p.oa = co[1].os;
    p.R = co[2].size, p.sr = co[2].is;
    return p;
  }
  // Anything else: copy to [kept dims in order..., reduced dims in order], contiguous.
  DimVec perm, psizes, pstrides;
  for (int64_t d = 0; d < nd; d++)
    if (!mask.test(d)) perm.push_back(d);
  for (int64_t d = 0; d < nd; d++)
    if (mask.test(d)) perm.push_back(d);
  for (int64_t d : perm) {
    psizes.push_back(input.sizes()[d]);
    pstrides.push_back(input.strides()[d]);
  }
  Tensor permuted = make_view(input, psizes, pstrides, input.offset());
  p.src = contiguous_copy(permuted);
  p.R = reduced_numel(input.sizes(), mask);
  p.A = p.out_numel;
  p.sa = p.R, p.sr = 1, p.oa = 1;
  p.I = 1;
  return p;
}

void check_nonempty_reduction(const Tensor& input, const DimMask& mask, bool full, const char* name) {
  if (input.numel() != 0) return;
  EMBER_CHECK(!full, Runtime, name,
              "(): Expected reduction dim to be specified for input.numel() == 0. "
              "Specify the reduction dim with the 'dim' argument.");
  for (int64_t d = 0; d < input.dim(); d++)
    EMBER_CHECK(!(mask.test(d) && input.sizes()[d] == 0), Index, name, "(): Expected reduction dim ", d,
                " to have non-zero size.");
}

}  // namespace ember
