// QR on LAPACK: geqrf (the reflectors and their scales), linalg_qr (geqrf, then orgqr / ungqr for
// Q; modes reduced, complete, r) and linalg_householder_product (orgqr / ungqr on given reflectors).
#include "generated/ops/linalg_qr.h"

#include <algorithm>
#include <vector>

#include "generated/ops/geqrf.h"
#include "generated/ops/linalg_householder_product.h"
#include "iter/out_arg.h"
#include "kernels/cpu/linalg_common.h"

namespace ember::ops {

using namespace linalg;

namespace {

// The larger of the workspaces geqrf(m, n) and orgqr(m, qc, k) ask for.
template <class T>
int qr_lwork(int m, int n, int qc, int k) {
  T q1{}, q2{}, dummy{};
  const int lda = std::max(m, 1);
  lapack::geqrf<T>(m, n, &dummy, lda, &dummy, &q1, -1);
  int lwork = lapack::lwork_of(q1);
  if (qc > 0) {
    lapack::orgqr<T>(m, qc, k, &dummy, lda, &dummy, &q2, -1);
    lwork = std::max(lwork, lapack::lwork_of(q2));
  }
  return std::max(lwork, std::max(n, 1));
}

template <class T>
void qr_batch(const Tensor& a, const Tensor& Q, const Tensor& R, int64_t m, int64_t n, int64_t qc, int64_t rr,
              int64_t count) {
  const int64_t k = std::min(m, n);
  const int mi = int(m), lda = std::max(mi, 1);
  const int lwork = qr_lwork<T>(mi, int(n), int(qc), int(k));
  T* abase = a.data_as<T>();
  T* qbase = qc > 0 ? Q.data_as<T>() : nullptr;
  T* rbase = R.data_as<T>();
  for_each_matrix(count, [&](int64_t lo, int64_t hi) {
    std::vector<T> work(lwork), tau(std::max<int64_t>(k, 1));
    for (int64_t b = lo; b < hi; b++) {
      T* ab = abase + b * m * n;
      lapack::geqrf<T>(mi, int(n), ab, lda, tau.data(), work.data(), lwork);
      T* rb = rbase + b * rr * n;  // column-major rr x n: the upper triangle of the factored a
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < rr; i++) rb[j * rr + i] = i <= j && i < m ? ab[j * m + i] : T(0);
      if (qc == 0) continue;
      T* qb = qbase + b * m * qc;  // the reflectors, then Q in place
      for (int64_t j = 0; j < qc; j++)
        for (int64_t i = 0; i < m; i++) qb[j * m + i] = j < n ? ab[j * m + i] : T(0);
      lapack::orgqr<T>(mi, int(qc), int(k), qb, lda, tau.data(), work.data(), lwork);
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor> geqrf(const Tensor& input) {
  const char* op = "geqrf";
  check_matrix(input, op, false, "input");
  check_floating(input, op, "input");
  const int64_t m = input.size(-2), n = input.size(-1), k = std::min(m, n);
  const int mi = lapack_int(m, op), ni = lapack_int(n, op);
  const DimVec batch = batch_of(input.sizes());
  Tensor a = fortran_copy(input, input.sizes());
  Tensor tau = empty(with_tail(batch, {k}), input.dtype(), input.device());
  if (input.is_meta() || a.numel() == 0) return {a, tau};
  visit_lapack(input.dtype(), [&](auto z) {
    using T = decltype(z);
    const int lwork = qr_lwork<T>(mi, ni, 0, 0);
    T* abase = a.data_as<T>();
    T* tbase = tau.data_as<T>();
    for_each_matrix(numel_of(batch), [&](int64_t lo, int64_t hi) {
      std::vector<T> work(lwork);
      for (int64_t b = lo; b < hi; b++)
        lapack::geqrf<T>(mi, ni, abase + b * m * n, std::max(mi, 1), tbase + b * k, work.data(), lwork);
    });
  });
  return {a, tau};
}
std::tuple<Tensor, Tensor> geqrf_out(const Tensor& a, const Tensor& tau, const Tensor& input) {
  auto r = geqrf(input);
  write_out(a, std::get<0>(r), "geqrf");
  write_out(tau, std::get<1>(r), "geqrf");
  return {a, tau};
}

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, const std::string& mode) {
  const char* op = "linalg.qr";
  check_matrix(A, op, false);
  check_floating(A, op);
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", Runtime, "qr received unrecognized mode '", mode,
              "' but expected one of 'reduced' (default), 'r', or 'complete'");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  lapack_int(m, op);
  lapack_int(n, op);
  const DimVec batch = batch_of(A.sizes());
  const bool complete = mode == "complete";
  const int64_t qc = mode == "r" ? 0 : complete ? m : k, rr = complete ? m : k;
  Tensor Q =
      mode == "r" ? empty({0}, A.dtype(), A.device()) : fortran_empty(with_tail(batch, {m, qc}), A.dtype(), A.device());
  Tensor R = fortran_empty(with_tail(batch, {rr, n}), A.dtype(), A.device());
  const int64_t count = numel_of(batch);
  if (A.is_meta() || count == 0 || m == 0) return {Q, R};
  Tensor a = fortran_copy(A, A.sizes());
  visit_lapack(A.dtype(), [&](auto z) { qr_batch<decltype(z)>(a, Q, R, m, n, qc, rr, count); });
  return {Q, R};
}
std::tuple<Tensor, Tensor> linalg_qr_out(const Tensor& Q, const Tensor& R, const Tensor& A, const std::string& mode) {
  auto r = linalg_qr(A, mode);
  write_out(Q, std::get<0>(r), "linalg.qr");
  write_out(R, std::get<1>(r), "linalg.qr");
  return {Q, R};
}

Tensor linalg_householder_product(const Tensor& input, const Tensor& tau) {
  const char* op = "torch.linalg.householder_product";
  check_matrix(input, op, false, "input");
  check_floating(input, op, "input");
  check_same_dtype(input, tau, op, "input", "tau");
  EMBER_CHECK(input.size(-2) >= input.size(-1), Runtime, op,
              ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  EMBER_CHECK(tau.dim() == input.dim() - 1, Runtime, op, ": input must have one more dimension than tau (", input.dim(),
              " and ", tau.dim(), " dims)");
  EMBER_CHECK(input.size(-1) >= tau.size(-1), Runtime, op,
              ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  const DimVec batch = batch_of(input.sizes());
  EMBER_CHECK(batch_of(tau.sizes(), 1) == batch, Runtime, op, ": Expected batch dimensions of tau to be equal to ",
              "input.shape[:-2], but got ", batch_of(tau.sizes(), 1));
  const int64_t m = input.size(-2), n = input.size(-1), k = tau.size(-1);
  const int mi = lapack_int(m, op), ni = lapack_int(n, op), ki = lapack_int(k, op);
  Tensor Q = fortran_copy(input, input.sizes());
  if (input.is_meta() || Q.numel() == 0) return Q;
  const Tensor t = dense_copy(tau, tau.sizes());
  visit_lapack(input.dtype(), [&](auto z) {
    using T = decltype(z);
    T query{}, dummy{};
    lapack::orgqr<T>(mi, ni, ki, &dummy, std::max(mi, 1), &dummy, &query, -1);
    const int lwork = std::max(lapack::lwork_of(query), std::max(ni, 1));
    T* q = Q.data_as<T>();
    const T* tp = t.data_as<T>();
    for_each_matrix(numel_of(batch), [&](int64_t lo, int64_t hi) {
      std::vector<T> work(lwork);
      for (int64_t b = lo; b < hi; b++)
        lapack::orgqr<T>(mi, ni, ki, q + b * m * n, std::max(mi, 1), tp + b * k, work.data(), lwork);
    });
  });
  return Q;
}
Tensor linalg_householder_product_out(const Tensor& out, const Tensor& input, const Tensor& tau) {
  return write_out(out, linalg_householder_product(input, tau), "linalg.householder_product");
}

}  // namespace ember::ops
