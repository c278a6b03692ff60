// linalg_lstsq on LAPACK's least-squares drivers: gels (QR, full rank), gelsy (pivoted QR, the
// default), gelsd (SVD, divide and conquer) and gelss (SVD), with PyTorch's outputs: solution,
// residuals (m > n, not gelsy, every matrix full rank), rank (not gels), singular values (SVD drivers).
#include "generated/ops/linalg_lstsq.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "generated/ops/narrow.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/unsqueeze.h"
#include "iter/copy.h"
#include "iter/out_arg.h"
#include "kernels/cpu/linalg_common.h"

namespace ember::ops {

using namespace linalg;

namespace {

enum class Driver { Gels, Gelsy, Gelsd, Gelss };

Driver driver_of(const std::optional<std::string>& d) {
  if (!d || *d == "gelsy") return Driver::Gelsy;
  if (*d == "gels") return Driver::Gels;
  if (*d == "gelsd") return Driver::Gelsd;
  EMBER_CHECK(*d == "gelss", Runtime,
              "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss), got '", *d, "'");
  return Driver::Gelss;
}

struct LstsqShape {
  int64_t m, n, nrhs, ldb, count;
};

// One driver call per matrix; B holds max(m, n) x nrhs per matrix, the solution in its first n rows.
template <class T>
void lstsq_batch(Driver drv, const Tensor& a, const Tensor& b, const LstsqShape& s, double rcond_in, const Tensor& rank,
                 const Tensor& sv, const Tensor& info) {
  using R = lapack::real_t<T>;
  const int m = int(s.m), n = int(s.n), nr = int(s.nrhs), lda = std::max(m, 1), ldb = int(s.ldb);
  const int k = std::min(m, n);
  const R rcond = R(rcond_in);
  T query{}, dummy{};
  R rdummy{};
  int idummy = 0, irank = 0;
  std::vector<int> jdummy(std::max(n, 1));
  switch (drv) {
    case Driver::Gels:
      lapack::gels<T>(m, n, nr, &dummy, lda, &dummy, ldb, &query, -1);
      break;
    case Driver::Gelsy:
      lapack::gelsy<T>(m, n, nr, &dummy, lda, &dummy, ldb, jdummy.data(), rcond, &irank, &query, -1, &rdummy);
      break;
    case Driver::Gelsd:
      lapack::gelsd<T>(m, n, nr, &dummy, lda, &dummy, ldb, &rdummy, rcond, &irank, &query, -1, &rdummy, &idummy);
      break;
    case Driver::Gelss:
      lapack::gelss<T>(m, n, nr, &dummy, lda, &dummy, ldb, &rdummy, rcond, &irank, &query, -1, &rdummy);
      break;
  }
  const int lwork = std::max(lapack::lwork_of(query), 1);
  // gelsd's rwork / iwork sizes by LAPACK's formulas (nlvl = log2(k / 26) + 1, with room to spare).
  const int nlvl = std::max(0, int(std::log2(std::max(k, 1) / 26.0)) + 1);
  const int mx = std::max({m, n, 1});
  const int lrwork = std::max({10 * k + 2 * k * 25 + 8 * k * nlvl + 3 * 25 * nr + 26 * 26, 5 * k, 2 * n, 1}) + mx;
  const int liwork = std::max(1, 3 * k * nlvl + 11 * k);
  T* abase = a.data_as<T>();
  T* bbase = b.data_as<T>();
  int64_t* rk = rank.defined() ? rank.data_as<int64_t>() : nullptr;
  R* svb = sv.defined() ? sv.data_as<R>() : nullptr;
  int32_t* inf = info.data_as<int32_t>();
  for_each_matrix(s.count, [&](int64_t lo, int64_t hi) {
    std::vector<T> work(lwork);
    std::vector<R> rwork(lrwork), svals(std::max(k, 1));
    std::vector<int> iwork(liwork), jpvt(std::max(n, 1));
    for (int64_t i = lo; i < hi; i++) {
      T* ai = abase + i * s.m * s.n;
      T* bi = bbase + i * s.ldb * s.nrhs;
      int r = 0, code = 0;
      switch (drv) {
        case Driver::Gels:
          code = lapack::gels<T>(m, n, nr, ai, lda, bi, ldb, work.data(), lwork);
          break;
        case Driver::Gelsy:
          std::fill(jpvt.begin(), jpvt.end(), 0);
          code = lapack::gelsy<T>(m, n, nr, ai, lda, bi, ldb, jpvt.data(), rcond, &r, work.data(), lwork, rwork.data());
          break;
        case Driver::Gelsd:
          code = lapack::gelsd<T>(m, n, nr, ai, lda, bi, ldb, svals.data(), rcond, &r, work.data(), lwork, rwork.data(),
                                  iwork.data());
          break;
        case Driver::Gelss:
          code =
              lapack::gelss<T>(m, n, nr, ai, lda, bi, ldb, svals.data(), rcond, &r, work.data(), lwork, rwork.data());
          break;
      }
      inf[i] = code;
      if (rk) rk[i] = r;
      if (svb) std::copy(svals.begin(), svals.begin() + k, svb + i * k);
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                                                        const std::optional<std::string>& driver) {
  const char* op = "torch.linalg.lstsq";
  check_matrix(A, op, false);
  check_floating(A, op);
  check_same_dtype(A, B, op, "A", "B");
  EMBER_CHECK(B.dim() >= 1 && A.dim() >= B.dim() && A.dim() - B.dim() <= 1, Runtime, op,
              ": input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1");
  const Driver drv = driver_of(driver);
  const bool vector = B.dim() == A.dim() - 1;
  const Tensor B2 = vector ? unsqueeze(B, -1) : B;
  const int64_t m = A.size(-2), n = A.size(-1), nrhs = B2.size(-1);
  EMBER_CHECK(B2.size(-2) == m, Runtime, op, ": input.size(-2) should match other.size(-2), got ", m, " and ",
              B2.size(-2));
  lapack_int(m, op);
  lapack_int(n, op);
  lapack_int(nrhs, op);
  const DimVec batch = broadcast_batch(batch_of(A.sizes()), batch_of(B2.sizes()), op);
  const int64_t ldb = std::max<int64_t>({m, n, 1}), count = numel_of(batch), k = std::min(m, n);
  const ScalarType real = real_dtype(A.dtype());
  Tensor a = fortran_copy(A, with_tail(batch, {m, n}));
  // B padded to max(m, n) rows: LAPACK writes the n-row solution over the m-row right-hand side.
  Tensor b = fortran_empty(with_tail(batch, {ldb, nrhs}), A.dtype(), A.device());
  if (!A.is_meta() && b.numel() > 0) {
    std::memset(b.data(), 0, size_t(b.numel()) * b.itemsize());
    copy_(narrow(b, -2, 0, m), B2);
  }
  Tensor rank =
      drv == Driver::Gels ? empty({0}, ScalarType::Int64, A.device()) : empty(batch, ScalarType::Int64, A.device());
  Tensor sv = drv == Driver::Gelsd || drv == Driver::Gelss ? empty(with_tail(batch, {k}), real, A.device())
                                                           : empty({0}, real, A.device());
  Tensor info = info_zeros(batch, A.device());
  if (!A.is_meta() && count > 0 && m > 0 && n > 0) {
    const double rc = rcond ? *rcond
                            : (real == ScalarType::Float32 ? std::numeric_limits<float>::epsilon()
                                                           : std::numeric_limits<double>::epsilon()) *
                                  double(std::max(m, n));
    const LstsqShape s{m, n, nrhs, ldb, count};
    visit_lapack(A.dtype(), [&](auto z) {
      lstsq_batch<decltype(z)>(drv, a, b, s, rc, drv == Driver::Gels ? Tensor() : rank, sv.numel() ? sv : Tensor(),
                               info);
    });
    raise_for_info(info, op, [&](int code) {
      return drv == Driver::Gels ? str_cat(
                                       "The least squares solution could not be computed because the input "
                                       "matrix does not have full rank (error code: ",
                                       code, ").")
                                 : no_convergence_message(code, "singular values");
    });
  } else if (!A.is_meta()) {  // nothing to solve: rank 0, no singular values above 0
    std::memset(rank.data(), 0, size_t(rank.numel()) * rank.itemsize());
    std::memset(sv.data(), 0, size_t(sv.numel()) * sv.itemsize());
  }
  Tensor solution = narrow(b, -2, 0, n);
  // Residuals: the squared norms of rows n.. of each column, when they are residuals (full rank).
  Tensor residuals = empty({0}, real, A.device());
  bool with_residuals = m > n && drv != Driver::Gelsy;
  if (with_residuals && drv != Driver::Gels && !A.is_meta()) {
    const int64_t* rk = rank.data_as<int64_t>();
    for (int64_t i = 0; i < count; i++) with_residuals = with_residuals && rk[i] == n;
  }
  if (with_residuals) {
    residuals = empty(with_tail(batch, {nrhs}), real, A.device());
    if (!A.is_meta())
      visit_lapack(A.dtype(), [&](auto z) {
        using T = decltype(z);
        using R = lapack::real_t<T>;
        const T* bp = b.data_as<T>();
        R* out = residuals.data_as<R>();
        for (int64_t i = 0; i < count; i++)
          for (int64_t j = 0; j < nrhs; j++) {
            R acc(0);
            for (int64_t r = n; r < m; r++) acc += std::norm(bp[i * ldb * nrhs + j * ldb + r]);
            out[i * nrhs + j] = acc;
          }
      });
  }
  if (vector) {
    solution = squeeze(solution, DimVec{-1});
    if (residuals.numel()) residuals = squeeze(residuals, DimVec{-1});
  }
  return {solution, residuals, rank, sv};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq_out(const Tensor& solution, const Tensor& residuals,
                                                            const Tensor& rank, const Tensor& singular_values,
                                                            const Tensor& A, const Tensor& B,
                                                            std::optional<double> rcond,
                                                            const std::optional<std::string>& driver) {
  auto r = linalg_lstsq(A, B, rcond, driver);
  write_out(solution, std::get<0>(r), "linalg.lstsq");
  write_out(residuals, std::get<1>(r), "linalg.lstsq");
  write_out(rank, std::get<2>(r), "linalg.lstsq");
  write_out(singular_values, std::get<3>(r), "linalg.lstsq");
  return {solution, residuals, rank, singular_values};
}

}  // namespace ember::ops
