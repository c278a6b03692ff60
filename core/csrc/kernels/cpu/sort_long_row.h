// One long row with a 32-bit key (float32, int32): a fused MSD radix sort. Two reads of the input
// bucket the packed items by their top 12 key bits; each bucket, now cache-sized, is finished by LSD
// passes and written straight to the outputs. Threads split the input and the buckets in fixed pieces.
#pragma once
#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "kernels/cpu/sort_rows.h"

namespace ember::sorting {

constexpr int64_t kLongRow = int64_t(1) << 15;  // rows at least this long take this path

// out[j * stride] = the index of item r[j], for j < m. Contiguous, by streaming stores: the 8 MB of
// a million indices would otherwise be read into the cache first, only to be overwritten. (The
// values, half as large, measured no faster streamed.)
inline void write_indices(const uint64_t* r, int64_t m, int64_t* out, int64_t stride) {
  if (stride != 1) {
    for (int64_t j = 0; j < m; j++) out[j * stride] = item_index(r[j]);
    return;
  }
  for (int64_t j = 0; j < m; j++) _mm_stream_si64(reinterpret_cast<long long*>(out + j), item_index(r[j]));
}

// The top bits the MSD pass splits on: the fewest of 8, 10 and 12 whose largest bucket stays within
// about 32K items (in cache for its LSD passes), from the per-part counts of the top `bits` bits.
// Spread-out keys get fewer, larger buckets (a 1M-item uniform int32 row: 256 of 4K rather than
// 4096 of 256, each paying for its passes' histograms); clustered ones (normal floats, whose top
// bits are mostly sign and exponent) keep 12.
inline int msd_bits(const std::vector<int64_t>& counts, int64_t parts, int bits) {
  const int64_t buckets = int64_t(1) << bits;
  for (int top = 8; top < bits; top += 2) {
    const int64_t merge = int64_t(1) << (bits - top);
    int64_t largest = 0;
    for (int64_t g = 0; g < buckets; g += merge) {
      int64_t sum = 0;
      for (int64_t t = 0; t < parts; t++)
        for (int64_t b = g; b < g + merge; b++) sum += counts[size_t(t * buckets + b)];
      largest = std::max(largest, sum);
    }
    if (largest <= (int64_t(1) << 15)) return top;
  }
  return bits;
}

template <class T>
void sort_long_row(const T* x, int64_t n, int64_t stride, bool descending, T* vout, int64_t vstride, int64_t* iout,
                   int64_t istride, int threads) {
  using K = SortKey<T>;
  using U = typename K::U;
  static_assert(K::bytes == 4, "the fused path packs 32-bit keys");
  constexpr int kTop = 12;  // the finest split; spread-out keys (uniform int32) take a coarser one
  constexpr int64_t nb12 = int64_t(1) << kTop;
  const int64_t parts = threads > 1 && n >= 2 * kLongRow ? threads : 1;
  const int64_t chunk = (n + parts - 1) / parts;
  std::vector<int64_t> cnt12(size_t(parts) * nb12, 0);
  std::vector<char> ok(parts, 1);
  auto key = [&](int64_t i, bool& exact) {
    const U k = K::key(x[i * stride], exact);
    return descending ? U(~k) : k;
  };
  parallel_for(parts, 1, [&](int64_t tb, int64_t te) {
    for (int64_t t = tb; t < te; t++) {
      int64_t* c = &cnt12[size_t(t) * nb12];
      bool exact = true;
      for (int64_t i = t * chunk, e = std::min(n, i + chunk); i < e; i++) c[key(i, exact) >> (32 - kTop)]++;
      ok[t] = exact;
    }
  });
  bool exact = true;
  for (char c : ok) exact &= c != 0;
  const int top = msd_bits(cnt12, parts, kTop), low = 32 - top;
  const int64_t nb = int64_t(1) << top, merge = nb12 / nb;
  std::vector<int64_t> cnt(size_t(parts) * nb, 0), start(nb + 1, 0);
  for (int64_t t = 0; t < parts; t++)
    for (int64_t b = 0; b < nb12; b++) cnt[size_t(t * nb + b / merge)] += cnt12[size_t(t * nb12 + b)];
  int64_t s = 0;
  for (int64_t b = 0; b < nb; b++) {
    start[b] = s;
    for (int64_t t = 0; t < parts; t++) {
      const int64_t v = cnt[size_t(t) * nb + b];
      cnt[size_t(t) * nb + b] = s;
      s += v;
    }
  }
  start[nb] = n;
  Tensor buf = empty(DimVec{n}, ScalarType::Int64);  // from the caching allocator: no page faults each call
  uint64_t* items = reinterpret_cast<uint64_t*>(buf.data_as<int64_t>());
  parallel_for(parts, 1, [&](int64_t tb, int64_t te) {
    for (int64_t t = tb; t < te; t++) {
      int64_t* c = &cnt[size_t(t) * nb];
      bool unused = true;
      for (int64_t i = t * chunk, e = std::min(n, i + chunk); i < e; i++) {
        const U k = key(i, unused);
        items[c[k >> low]++] = pack(k, uint64_t(i));
      }
    }
  });
  // Piece t finishes the buckets that start in [t chunk, (t + 1) chunk): about equal item counts.
  std::vector<int64_t> first(parts + 1, nb);
  for (int64_t t = 0, b = 0; t < parts; t++) {
    while (b < nb && start[b] < t * chunk) b++;
    first[t] = b;
  }
  parallel_for(parts, 1, [&](int64_t tb, int64_t te) {
    for (int64_t t = tb; t < te; t++) {
      // The LSD passes' scratch: one buffer the size of the piece's largest bucket, which stays in
      // the cache from bucket to bucket (a scratch half as large as all the items would be read
      // for ownership from memory, bucket after bucket).
      int64_t largest = 0;
      for (int64_t b = first[t]; b < first[t + 1]; b++) largest = std::max(largest, start[b + 1] - start[b]);
      Tensor scratch = empty(DimVec{std::max<int64_t>(largest, 1)}, ScalarType::Int64);
      uint64_t* tmp = reinterpret_cast<uint64_t*>(scratch.data_as<int64_t>());
      for (int64_t b = first[t]; b < first[t + 1]; b++) {
        const int64_t lo = start[b], m = start[b + 1] - lo;
        if (m == 0) continue;
        const uint64_t* r = sort_low_bits(items + lo, tmp, m, low);
        write_indices(r, m, iout + lo * istride, istride);
        if (vout)
          for (int64_t j = 0; j < m; j++) vout[(lo + j) * vstride] = item_value(r[j], x, stride, descending, exact);
      }
    }
    _mm_sfence();  // the streaming stores are done before the outputs are read
  });
}

}  // namespace ember::sorting
