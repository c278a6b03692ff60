// The CSR kernels of the sparse layouts (core/ops/sparse.yaml): the product of a CSR matrix with a dense
// one (SpMM), its values' gradient (SDDMM: dot products at the stored entries) and the transposed pattern.
// Each output row is computed whole by one thread in a fixed order, so results do not depend on the
// thread count; rows are split into pieces of about equal stored entries (graphs' rows are skewed).
#include <algorithm>
#include <vector>

#include "device/parallel.h"
#include "generated/ops/_sparse_csr_mm.h"
#include "generated/ops/_sparse_csr_sddmm.h"
#include "generated/ops/_sparse_csr_transpose.h"
#include "iter/copy.h"

namespace ember::ops {

namespace {

constexpr int64_t kMinParallelWork = int64_t(1) << 15;  // multiply-adds worth splitting across threads

// A checked CSR pattern: int64 copies of the index arrays, the row count and the stored entries.
struct CsrPattern {
  Tensor crow, col;
  int64_t rows = 0, nnz = 0;
};

CsrPattern check_pattern(const char* op, const Tensor& crow, const Tensor& col, int64_t ncols) {
  EMBER_CHECK(crow.dtype() == ScalarType::Int64 || crow.dtype() == ScalarType::Int32, Runtime, op,
              "(): crow_indices must be an int32 or int64 tensor, got ", dtype_name(crow.dtype()));
  EMBER_CHECK(col.dtype() == crow.dtype(), Runtime, op,
              "(): col_indices and crow_indices must have the same dtype, got ", dtype_name(col.dtype()), " and ",
              dtype_name(crow.dtype()));
  EMBER_CHECK(crow.dim() == 1 && crow.numel() >= 1, Runtime, op,
              "(): crow_indices must be a 1-d tensor of length rows + 1, got shape ", crow.sizes());
  EMBER_CHECK(col.dim() == 1, Runtime, op, "(): col_indices must be a 1-d tensor, got shape ", col.sizes());
  CsrPattern p;
  p.rows = crow.numel() - 1;
  p.nnz = col.numel();
  if (crow.is_meta() || col.is_meta()) return p;
  p.crow = contiguous_as(crow, ScalarType::Int64);
  p.col = contiguous_as(col, ScalarType::Int64);
  const int64_t* cr = p.crow.data_as<int64_t>();
  const int64_t* c = p.col.data_as<int64_t>();
  EMBER_CHECK(cr[0] == 0, Runtime, op, "(): `crow_indices[..., 0] == 0` is not satisfied.");
  EMBER_CHECK(cr[p.rows] == p.nnz, Runtime, op,
              "(): `crow_indices[..., -1] == nnz` is not satisfied (crow_indices[-1] = ", cr[p.rows], ", nnz = ", p.nnz,
              ").");
  for (int64_t i = 0; i < p.rows; i++)
    EMBER_CHECK(cr[i] <= cr[i + 1], Runtime, op,
                "(): `0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied.");
  for (int64_t k = 0; k < p.nnz; k++)
    EMBER_CHECK(c[k] >= 0 && c[k] < ncols, Runtime, op, "(): `0 <= col_indices < ncols` is not satisfied (found ", c[k],
                " with ncols = ", ncols, ").");
  return p;
}

// f(row_begin, row_end) over pieces of the rows holding about equal numbers of stored entries.
template <class F>
void for_row_pieces(const int64_t* crow, int64_t rows, int64_t nnz, int64_t work_per_entry, const F& f) {
  const int64_t work = (nnz + rows) * std::max<int64_t>(work_per_entry, 1);
  const int64_t pieces = std::min<int64_t>(rows, work < kMinParallelWork ? 1 : int64_t(get_num_threads()) * 4);
  if (pieces <= 1) {
    if (rows > 0) f(int64_t(0), rows);
    return;
  }
  // Piece p starts at the first row whose entries start at or after p/pieces of all (plus p rows, so
  // rows without entries are shared out too).
  std::vector<int64_t> start(pieces + 1);
  for (int64_t p = 0; p <= pieces; p++) {
    const int64_t target = (nnz + rows) * p / pieces;
    int64_t lo = 0, hi = rows;  // the first row r with crow[r] + r >= target
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (crow[mid] + mid < target)
        lo = mid + 1;
      else
        hi = mid;
    }
    start[p] = lo;
  }
  start[pieces] = rows;
  parallel_for(pieces, 1, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; p++)
      if (start[p] < start[p + 1]) f(start[p], start[p + 1]);
  });
}

template <class T>
void spmm_rows(const T* v, const int64_t* crow, const int64_t* col, const T* d, int64_t n, T* out, int64_t r0,
               int64_t r1) {
  for (int64_t r = r0; r < r1; r++) {
    T* __restrict o = out + r * n;
    std::fill(o, o + n, T(0));
    for (int64_t k = crow[r]; k < crow[r + 1]; k++) {
      const T a = v[k];
      const T* __restrict src = d + col[k] * n;
      for (int64_t j = 0; j < n; j++) o[j] += a * src[j];
    }
  }
}

template <class T>
void sddmm_rows(const T* a, const int64_t* crow, const int64_t* col, const T* b, int64_t n, T* out, int64_t r0,
                int64_t r1) {
  for (int64_t r = r0; r < r1; r++) {
    const T* __restrict ar = a + r * n;
    for (int64_t k = crow[r]; k < crow[r + 1]; k++) {
      const T* __restrict br = b + col[k] * n;
      T acc = T(0);
      for (int64_t j = 0; j < n; j++) acc += ar[j] * br[j];
      out[k] = acc;
    }
  }
}

void check_floating_pair(const char* op, const Tensor& x, const char* xname, const Tensor& y, const char* yname) {
  EMBER_CHECK(x.dtype() == ScalarType::Float32 || x.dtype() == ScalarType::Float64, Type, "\"", op,
              "\" is not implemented for dtype ", dtype_name(x.dtype()));
  EMBER_CHECK(y.dtype() == x.dtype(), Runtime, op, "(): expected ", yname, " and ", xname,
              " to have the same dtype, but got: ", dtype_name(y.dtype()), " != ", dtype_name(x.dtype()));
}

}  // namespace

Tensor _sparse_csr_mm(const Tensor& values, const Tensor& crow_indices, const Tensor& col_indices,
                      const Tensor& dense) {
  const char* op = "_sparse_csr_mm";
  check_floating_pair(op, values, "values", dense, "dense");
  EMBER_CHECK(values.dim() == 1, Runtime, op, "(): values must be a 1-d tensor, got shape ", values.sizes());
  EMBER_CHECK(dense.dim() == 2, Runtime, op, "(): dense must be a 2-d matrix, got a ", dense.dim(), "-d tensor");
  const CsrPattern p = check_pattern(op, crow_indices, col_indices, dense.sizes()[0]);
  EMBER_CHECK(values.numel() == p.nnz, Runtime, op, "(): values and col_indices must have the same length, got ",
              values.numel(), " and ", p.nnz);
  const int64_t n = dense.sizes()[1];
  Tensor out = empty({p.rows, n}, values.dtype(), dense.device());
  if (out.is_meta() || values.is_meta() || !p.crow.defined()) return out;
  const Tensor v = ember::contiguous(values), d = ember::contiguous(dense);
  const int64_t *cr = p.crow.data_as<int64_t>(), *c = p.col.data_as<int64_t>();
  if (values.dtype() == ScalarType::Float32)
    for_row_pieces(cr, p.rows, p.nnz, n, [&](int64_t r0, int64_t r1) {
      spmm_rows(v.data_as<float>(), cr, c, d.data_as<float>(), n, out.data_as<float>(), r0, r1);
    });
  else
    for_row_pieces(cr, p.rows, p.nnz, n, [&](int64_t r0, int64_t r1) {
      spmm_rows(v.data_as<double>(), cr, c, d.data_as<double>(), n, out.data_as<double>(), r0, r1);
    });
  return out;
}

Tensor _sparse_csr_sddmm(const Tensor& a, const Tensor& crow_indices, const Tensor& col_indices, const Tensor& b) {
  const char* op = "_sparse_csr_sddmm";
  check_floating_pair(op, a, "a", b, "b");
  EMBER_CHECK(a.dim() == 2 && b.dim() == 2 && a.sizes()[1] == b.sizes()[1], Runtime, op,
              "(): a and b must be 2-d with the same number of columns, got shapes ", a.sizes(), " and ", b.sizes());
  const CsrPattern p = check_pattern(op, crow_indices, col_indices, b.sizes()[0]);
  EMBER_CHECK(a.sizes()[0] == p.rows, Runtime, op, "(): a must have one row per row of the pattern (", p.rows,
              "), got ", a.sizes()[0]);
  Tensor out = empty({p.nnz}, a.dtype(), a.device());
  if (out.is_meta() || b.is_meta() || !p.crow.defined()) return out;
  const int64_t n = a.sizes()[1];
  const Tensor ac = ember::contiguous(a), bc = ember::contiguous(b);
  const int64_t *cr = p.crow.data_as<int64_t>(), *c = p.col.data_as<int64_t>();
  if (a.dtype() == ScalarType::Float32)
    for_row_pieces(cr, p.rows, p.nnz, n, [&](int64_t r0, int64_t r1) {
      sddmm_rows(ac.data_as<float>(), cr, c, bc.data_as<float>(), n, out.data_as<float>(), r0, r1);
    });
  else
    for_row_pieces(cr, p.rows, p.nnz, n, [&](int64_t r0, int64_t r1) {
      sddmm_rows(ac.data_as<double>(), cr, c, bc.data_as<double>(), n, out.data_as<double>(), r0, r1);
    });
  return out;
}

// A counting sort of the entries by column, stable in row order: the transposed rows come out sorted.
std::tuple<Tensor, Tensor, Tensor> _sparse_csr_transpose(const Tensor& crow_indices, const Tensor& col_indices,
                                                         int64_t ncols) {
  const char* op = "_sparse_csr_transpose";
  EMBER_CHECK(ncols >= 0, Runtime, op, "(): ncols must be non-negative, got ", ncols);
  const CsrPattern p = check_pattern(op, crow_indices, col_indices, ncols);
  const Device dev = crow_indices.device();
  Tensor crow_t = empty({ncols + 1}, crow_indices.dtype(), dev), col_t = empty({p.nnz}, crow_indices.dtype(), dev);
  Tensor perm = empty({p.nnz}, ScalarType::Int64, dev);
  if (!p.crow.defined()) return {crow_t, col_t, perm};
  const int64_t *cr = p.crow.data_as<int64_t>(), *c = p.col.data_as<int64_t>();
  std::vector<int64_t> next(ncols + 1, 0);
  for (int64_t k = 0; k < p.nnz; k++) next[c[k] + 1]++;
  for (int64_t j = 0; j < ncols; j++) next[j + 1] += next[j];
  std::vector<int64_t> rows_t(p.nnz);
  int64_t* pm = perm.data_as<int64_t>();
  const std::vector<int64_t> starts = next;
  for (int64_t r = 0; r < p.rows; r++)
    for (int64_t k = cr[r]; k < cr[r + 1]; k++) {
      const int64_t pos = next[c[k]]++;
      rows_t[pos] = r;
      pm[pos] = k;
    }
  if (crow_indices.dtype() == ScalarType::Int64) {
    std::copy(starts.begin(), starts.end(), crow_t.data_as<int64_t>());
    std::copy(rows_t.begin(), rows_t.end(), col_t.data_as<int64_t>());
  } else {
    std::transform(starts.begin(), starts.end(), crow_t.data_as<int32_t>(), [](int64_t x) { return int32_t(x); });
    std::transform(rows_t.begin(), rows_t.end(), col_t.data_as<int32_t>(), [](int64_t x) { return int32_t(x); });
  }
  return {crow_t, col_t, perm};
}

}  // namespace ember::ops
