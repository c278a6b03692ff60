// The spectral decompositions on LAPACK: linalg_svd / linalg_svdvals (gesdd, divide and conquer,
// as PyTorch and NumPy use) and linalg_eigh / linalg_eigvalsh (syevd / heevd). Workspaces are
// queried once per call; batches run across ember's threads.
#include <algorithm>
#include <vector>

#include "generated/ops/eye.h"
#include "generated/ops/linalg_eigh.h"
#include "generated/ops/linalg_eigvalsh.h"
#include "generated/ops/linalg_svd.h"
#include "generated/ops/linalg_svdvals.h"
#include "iter/copy.h"
#include "iter/out_arg.h"
#include "kernels/cpu/linalg_common.h"

namespace ember::ops {

using namespace linalg;

namespace {

// PyTorch's driver= picks a cuSOLVER method and is refused for CPU inputs (in these words, for
// svdvals too); ember has no CUDA backend yet.
void check_driver(const std::optional<std::string>& driver) {
  EMBER_CHECK(!driver, Runtime,
              "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.");
}

struct SvdOut {
  Tensor U, S, Vh;
};

// gesdd over the batch. jobz 'N' leaves U and Vh undefined.
template <class T>
void svd_batch(const Tensor& a, SvdOut& out, char jobz, int64_t m, int64_t n, const Tensor& info) {
  using R = lapack::real_t<T>;
  const int mi = int(m), ni = int(n), k = int(std::min(m, n)), mx = int(std::max(m, n));
  const bool vectors = jobz != 'N';
  const int ldu = std::max(mi, 1), ucols = jobz == 'A' ? mi : k;
  const int ldvt = std::max(jobz == 'A' ? ni : k, 1);
  const int64_t batch = info.numel();
  const int64_t usize = vectors ? m * ucols : 0, vsize = vectors ? int64_t(ldvt) * n : 0;
  const int lrwork = is_complex_v<T> ? (vectors ? std::max(5 * k * k + 5 * k, 2 * mx * k + 2 * k * k + k) : 7 * k) : 1;
  T query{};
  T dummy{};
  R rdummy{};
  std::vector<int> iprobe(8 * std::max(k, 1));
  lapack::gesdd<T>(jobz, mi, ni, &dummy, ldu, &rdummy, &dummy, ldu, &dummy, ldvt, &query, -1, &rdummy, iprobe.data());
  const int lwork = std::max(lapack::lwork_of(query), 1);
  T* abase = a.data_as<T>();
  R* sbase = out.S.data_as<R>();
  T* ubase = vectors ? out.U.data_as<T>() : nullptr;
  T* vbase = vectors ? out.Vh.data_as<T>() : nullptr;
  int32_t* inf = info.data_as<int32_t>();
  for_each_matrix(batch, [&](int64_t lo, int64_t hi) {
    std::vector<T> work(lwork);
    std::vector<R> rwork(std::max(lrwork, 1));
    std::vector<int> iwork(8 * std::max(k, 1));
    for (int64_t b = lo; b < hi; b++) {
      T udummy{}, vdummy{};
      inf[b] = lapack::gesdd<T>(jobz, mi, ni, abase + b * m * n, ldu, sbase + b * k,
                                vectors ? ubase + b * usize : &udummy, ldu, vectors ? vbase + b * vsize : &vdummy, ldvt,
                                work.data(), lwork, rwork.data(), iwork.data());
    }
  });
}

// An identity in every matrix of a Fortran-ordered batch (the free factors of an empty SVD).
Tensor batched_eye(const DimVec& batch, int64_t n, ScalarType dtype, Device device) {
  Tensor r = fortran_empty(with_tail(batch, {n, n}), dtype, device);
  if (!r.is_meta() && r.numel() > 0) copy_(r, eye(n, std::nullopt, dtype, device, false));
  return r;
}

SvdOut svd_impl(const Tensor& A, bool full_matrices, bool compute_uv, const char* op) {
  check_matrix(A, op, false);
  check_floating(A, op);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  lapack_int(m, op);
  lapack_int(n, op);
  const DimVec batch = batch_of(A.sizes());
  SvdOut out;
  out.S = empty(with_tail(batch, {k}), real_dtype(A.dtype()), A.device());
  const bool full = compute_uv && full_matrices;
  if (compute_uv) {
    out.U = fortran_empty(with_tail(batch, {m, full ? m : k}), A.dtype(), A.device());
    out.Vh = fortran_empty(with_tail(batch, {full ? n : k, n}), A.dtype(), A.device());
  }
  if (A.is_meta()) return out;
  if (k == 0 || numel_of(batch) == 0) {  // nothing to factor: the full factors are identities
    if (full) {
      out.U = batched_eye(batch, m, A.dtype(), A.device());
      out.Vh = batched_eye(batch, n, A.dtype(), A.device());
    }
    return out;
  }
  Tensor a = fortran_copy(A, A.sizes());
  check_finite(a, op);
  Tensor info = info_zeros(batch, A.device());
  const char jobz = !compute_uv ? 'N' : full ? 'A' : 'S';
  visit_lapack(A.dtype(), [&](auto z) { svd_batch<decltype(z)>(a, out, jobz, m, n, info); });
  raise_for_info(info, op, [](int code) { return no_convergence_message(code, "singular values"); });
  return out;
}

template <class T>
void eigh_batch(const Tensor& a, const Tensor& w, bool vectors, char uplo, int64_t n, const Tensor& info) {
  using R = lapack::real_t<T>;
  const int ni = int(n), lda = std::max(ni, 1);
  const char jobz = vectors ? 'V' : 'N';
  T query{};
  R rquery{};
  int iquery = 0;
  T dummy{};
  R rdummy{};
  lapack::syevd<T>(jobz, uplo, ni, &dummy, lda, &rdummy, &query, -1, &rquery, -1, &iquery, -1);
  const int lwork = std::max(lapack::lwork_of(query), 1);
  const int lrwork = std::max(int(rquery) + 1, 1), liwork = std::max(iquery, 1);
  T* abase = a.data_as<T>();
  R* wbase = w.data_as<R>();
  int32_t* inf = info.data_as<int32_t>();
  for_each_matrix(info.numel(), [&](int64_t lo, int64_t hi) {
    std::vector<T> work(lwork);
    std::vector<R> rwork(lrwork);
    std::vector<int> iwork(liwork);
    for (int64_t b = lo; b < hi; b++)
      inf[b] = lapack::syevd<T>(jobz, uplo, ni, abase + b * n * n, lda, wbase + b * n, work.data(), lwork, rwork.data(),
                                lrwork, iwork.data(), liwork);
  });
}

std::tuple<Tensor, Tensor> eigh_impl(const Tensor& A, const std::string& UPLO, bool vectors, const char* op) {
  check_matrix(A, op, true);
  check_floating(A, op);
  EMBER_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u", Runtime, op,
              ": Expected UPLO argument to be 'L' or 'U', but got ", UPLO);
  const int64_t n = A.size(-1);
  lapack_int(n, op);
  const DimVec batch = batch_of(A.sizes());
  Tensor w = empty(with_tail(batch, {n}), real_dtype(A.dtype()), A.device());
  Tensor V = fortran_copy(A, A.sizes());
  if (A.is_meta() || V.numel() == 0) return {w, vectors ? V : Tensor()};
  Tensor info = info_zeros(batch, A.device());
  const char uplo = UPLO == "U" || UPLO == "u" ? 'U' : 'L';
  visit_lapack(A.dtype(), [&](auto z) { eigh_batch<decltype(z)>(V, w, vectors, uplo, n, info); });
  raise_for_info(info, op, [](int code) { return no_convergence_message(code, "eigenvalues"); });
  return {w, vectors ? V : Tensor()};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices,
                                              const std::optional<std::string>& driver) {
  check_driver(driver);
  SvdOut r = svd_impl(A, full_matrices, true, "linalg.svd");
  return {r.U, r.S, r.Vh};
}
std::tuple<Tensor, Tensor, Tensor> linalg_svd_out(const Tensor& U, const Tensor& S, const Tensor& Vh, const Tensor& A,
                                                  bool full_matrices, const std::optional<std::string>& driver) {
  auto r = linalg_svd(A, full_matrices, driver);
  write_out(U, std::get<0>(r), "linalg.svd");
  write_out(S, std::get<1>(r), "linalg.svd");
  write_out(Vh, std::get<2>(r), "linalg.svd");
  return {U, S, Vh};
}

Tensor linalg_svdvals(const Tensor& A, const std::optional<std::string>& driver) {
  check_driver(driver);
  return svd_impl(A, false, false, "linalg.svdvals").S;
}
Tensor linalg_svdvals_out(const Tensor& out, const Tensor& A, const std::optional<std::string>& driver) {
  return write_out(out, linalg_svdvals(A, driver), "linalg.svdvals");
}

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, const std::string& UPLO) {
  return eigh_impl(A, UPLO, true, "linalg.eigh");
}
std::tuple<Tensor, Tensor> linalg_eigh_out(const Tensor& eigenvalues, const Tensor& eigenvectors, const Tensor& A,
                                           const std::string& UPLO) {
  auto r = linalg_eigh(A, UPLO);
  write_out(eigenvalues, std::get<0>(r), "linalg.eigh");
  write_out(eigenvectors, std::get<1>(r), "linalg.eigh");
  return {eigenvalues, eigenvectors};
}

Tensor linalg_eigvalsh(const Tensor& A, const std::string& UPLO) {
  return std::get<0>(eigh_impl(A, UPLO, false, "linalg.eigvalsh"));
}
Tensor linalg_eigvalsh_out(const Tensor& out, const Tensor& A, const std::string& UPLO) {
  return write_out(out, linalg_eigvalsh(A, UPLO), "linalg.eigvalsh");
}

}  // namespace ember::ops
