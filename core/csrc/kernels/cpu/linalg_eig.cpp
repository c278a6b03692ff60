// The general eigendecomposition on LAPACK's geev: linalg_eig (eigenvalues and right eigenvectors
// of unit norm) and linalg_eigvals; both complex for real inputs too, as in PyTorch.
#include "generated/ops/linalg_eig.h"

#include <algorithm>
#include <vector>

#include "generated/ops/linalg_eigvals.h"
#include "iter/out_arg.h"
#include "kernels/cpu/linalg_common.h"

namespace ember::ops {

using namespace linalg;

namespace {

ScalarType complex_dtype(ScalarType t) {
  if (t == ScalarType::Float32) return ScalarType::Complex64;
  if (t == ScalarType::Float64) return ScalarType::Complex128;
  return t;
}

template <class T>
void eig_batch(const Tensor& a, const Tensor& w, const Tensor& V, int64_t n, const Tensor& info) {
  using C = lapack::cplx_t<T>;
  using R = lapack::real_t<T>;
  const bool vectors = V.defined();
  const int ni = int(n), lda = std::max(ni, 1);
  const char jobvr = vectors ? 'V' : 'N';
  T query{}, dummy{};
  C cdummy{};
  R rdummy{};
  lapack::geev<T>(jobvr, ni, &dummy, lda, &cdummy, &cdummy, lda, &query, -1, &rdummy);
  const int lwork = std::max(lapack::lwork_of(query), std::max(4 * ni, 1));
  T* abase = a.data_as<T>();
  C* wbase = w.data_as<C>();
  C* vbase = vectors ? V.data_as<C>() : nullptr;
  int32_t* inf = info.data_as<int32_t>();
  for_each_matrix(info.numel(), [&](int64_t lo, int64_t hi) {
    std::vector<T> work(lwork);
    std::vector<R> rwork(std::max(2 * ni, 1));
    C vdummy{};
    for (int64_t b = lo; b < hi; b++)
      inf[b] = lapack::geev<T>(jobvr, ni, abase + b * n * n, lda, wbase + b * n, vectors ? vbase + b * n * n : &vdummy,
                               lda, work.data(), lwork, rwork.data());
  });
}

std::tuple<Tensor, Tensor> eig_impl(const Tensor& A, bool vectors, const char* op) {
  check_matrix(A, op, true);
  check_floating(A, op);
  const int64_t n = A.size(-1);
  lapack_int(n, op);
  const DimVec batch = batch_of(A.sizes());
  const ScalarType ct = complex_dtype(A.dtype());
  Tensor w = empty(with_tail(batch, {n}), ct, A.device());
  Tensor V = vectors ? fortran_empty(A.sizes(), ct, A.device()) : Tensor();
  if (A.is_meta() || w.numel() == 0) return {w, V};
  Tensor a = fortran_copy(A, A.sizes());
  check_finite(a, op);
  Tensor info = info_zeros(batch, A.device());
  visit_lapack(A.dtype(), [&](auto z) { eig_batch<decltype(z)>(a, w, V, n, info); });
  raise_for_info(info, op, [](int code) { return no_convergence_message(code, "eigenvalues"); });
  return {w, V};
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_eig(const Tensor& A) { return eig_impl(A, true, "linalg.eig"); }
std::tuple<Tensor, Tensor> linalg_eig_out(const Tensor& eigenvalues, const Tensor& eigenvectors, const Tensor& A) {
  auto r = linalg_eig(A);
  write_out(eigenvalues, std::get<0>(r), "linalg.eig");
  write_out(eigenvectors, std::get<1>(r), "linalg.eig");
  return {eigenvalues, eigenvectors};
}

Tensor linalg_eigvals(const Tensor& A) { return std::get<0>(eig_impl(A, false, "linalg.eigvals")); }
Tensor linalg_eigvals_out(const Tensor& out, const Tensor& A) {
  return write_out(out, linalg_eigvals(A), "linalg.eigvals");
}

}  // namespace ember::ops
