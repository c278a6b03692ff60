// Stable radix sorts of packed or (key, index) items: LSD passes of 8-bit digits (passes whose digit
// is constant skipped), an MSD pass on the top 11 bits first for long rows of 32-bit keys so the LSD
// passes run on cache-sized buckets, and a comparison sort for short rows. Threads split the work in
// fixed pieces; the result is the same whatever the thread count (a stable sort has one answer).
#include "kernels/cpu/sort_radix.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "device/parallel.h"

namespace ember::sorting {

namespace {

constexpr int64_t kRadixMin = 192;  // shorter rows: a comparison sort of the items beats the passes

inline uint64_t key_bits(uint64_t x) { return x; }
inline uint64_t key_bits(const KeyIdx& x) { return x.key; }

// P passes of W-bit digits over the key bits starting at shift0 (one histogram read for all of them).
template <int P, int W, class E>
E* lsd_passes(E* a, E* tmp, int64_t n, int shift0) {
  constexpr int64_t B = int64_t(1) << W;
  constexpr uint64_t M = uint64_t(B - 1);
  int64_t cnt[P * B] = {};  // on the stack: buckets sort many small runs, an allocation each would show
  for (int64_t i = 0; i < n; i++) {
    const uint64_t k = key_bits(a[i]) >> shift0;
    for (int p = 0; p < P; p++) cnt[p * B + ((k >> (W * p)) & M)]++;
  }
  for (int p = 0; p < P; p++) {
    int64_t* c = cnt + p * B;
    const int sh = shift0 + W * p;
    if (c[(key_bits(a[0]) >> sh) & M] == n) continue;  // one digit value for all: nothing moves
    int64_t s = 0;
    for (int64_t b = 0; b < B; b++) {
      const int64_t t = c[b];
      c[b] = s;
      s += t;
    }
    for (int64_t i = 0; i < n; i++) {
      const E x = a[i];
      tmp[c[(key_bits(x) >> sh) & M]++] = x;
    }
    std::swap(a, tmp);
  }
  return a;
}

template <int P, class E>
E* lsd_bytes(E* a, E* tmp, int64_t n, int shift0) {
  return lsd_passes<P, 8>(a, tmp, n, shift0);
}

template <class E>
E* lsd_serial(E* a, E* tmp, int64_t n, int shift0, int passes) {
  switch (passes) {
    case 1:
      return lsd_bytes<1>(a, tmp, n, shift0);
    case 2:
      return lsd_bytes<2>(a, tmp, n, shift0);
    case 3:
      return lsd_bytes<3>(a, tmp, n, shift0);
    case 4:
      return lsd_bytes<4>(a, tmp, n, shift0);
    default:
      return lsd_bytes<8>(a, tmp, n, shift0);
  }
}

// LSD passes with the items cut into `parts` fixed chunks: each chunk counts its digits, then
// scatters to offsets where chunk t's items of a bucket follow those of chunks before t (stable).
template <class E>
E* lsd_parallel(E* a, E* tmp, int64_t n, int shift0, int passes, int parts) {
  std::vector<int64_t> cnt(size_t(parts) * 256);
  const int64_t chunk = (n + parts - 1) / parts;
  for (int p = 0; p < passes; p++) {
    const int sh = shift0 + 8 * p;
    parallel_for(parts, 1, [&](int64_t tb, int64_t te) {
      for (int64_t t = tb; t < te; t++) {
        int64_t* c = &cnt[size_t(t) * 256];
        std::fill(c, c + 256, 0);
        for (int64_t i = t * chunk, e = std::min(n, i + chunk); i < e; i++) c[(key_bits(a[i]) >> sh) & 0xff]++;
      }
    });
    int64_t s = 0;
    bool trivial = false;
    for (int b = 0; b < 256; b++) {
      int64_t total = 0;
      for (int t = 0; t < parts; t++) {
        const int64_t v = cnt[size_t(t) * 256 + b];
        cnt[size_t(t) * 256 + b] = s;
        s += v;
        total += v;
      }
      trivial |= total == n;
    }
    if (trivial) continue;
    parallel_for(parts, 1, [&](int64_t tb, int64_t te) {
      for (int64_t t = tb; t < te; t++) {
        int64_t* c = &cnt[size_t(t) * 256];
        for (int64_t i = t * chunk, e = std::min(n, i + chunk); i < e; i++) {
          const E x = a[i];
          tmp[c[(key_bits(x) >> sh) & 0xff]++] = x;
        }
      }
    });
    std::swap(a, tmp);
  }
  return a;
}

// Long rows of packed 32-bit keys: one MSD pass on the top 11 bits scatters a into tmp by bucket
// (stable, in fixed chunks), then LSD byte passes finish each bucket in the cache. Piece t of the
// threads takes the buckets that start in its share of the items.
uint64_t* msd_lsd(uint64_t* a, uint64_t* tmp, int64_t n, int parts) {
  constexpr int kTop = 11, kLow = 32 - kTop;
  constexpr int64_t nb = int64_t(1) << kTop;
  const int64_t chunk = (n + parts - 1) / parts;
  std::vector<int64_t> cnt(size_t(parts) * nb, 0), start(nb + 1, 0);
  parallel_for(parts, 1, [&](int64_t tb, int64_t te) {
    for (int64_t t = tb; t < te; t++) {
      int64_t* c = &cnt[size_t(t) * nb];
      for (int64_t i = t * chunk, e = std::min(n, i + chunk); i < e; i++) c[a[i] >> (32 + kLow)]++;
    }
  });
  int64_t s = 0;
  for (int64_t b = 0; b < nb; b++) {
    start[b] = s;
    for (int t = 0; t < parts; t++) {
      const int64_t v = cnt[size_t(t) * nb + b];
      cnt[size_t(t) * nb + b] = s;
      s += v;
    }
  }
  start[nb] = n;
  parallel_for(parts, 1, [&](int64_t tb, int64_t te) {
    for (int64_t t = tb; t < te; t++) {
      int64_t* c = &cnt[size_t(t) * nb];
      for (int64_t i = t * chunk, e = std::min(n, i + chunk); i < e; i++) tmp[c[a[i] >> (32 + kLow)]++] = a[i];
    }
  });
  std::vector<int64_t> first(parts + 1, nb);
  for (int64_t t = 0, b = 0; t < parts; t++) {
    while (b < nb && start[b] < t * chunk) b++;
    first[t] = b;
  }
  parallel_for(parts, 1, [&](int64_t tb, int64_t te) {
    for (int64_t t = tb; t < te; t++)
      for (int64_t b = first[t]; b < first[t + 1]; b++) {
        const int64_t lo = start[b], m = start[b + 1] - lo;
        uint64_t* r = sort_low_bits(tmp + lo, a + lo, m, kLow);
        if (r != tmp + lo) std::copy(r, r + m, tmp + lo);
      }
  });
  return tmp;
}

}  // namespace

uint64_t* sort_low_bits(uint64_t* a, uint64_t* tmp, int64_t n, int bits) {
  if (n < kRadixMin) {
    std::sort(a, a + n);  // items order as (key, index): the sort is stable by construction
    return a;
  }
  // 20 bits (a bucket of the fused MSD pass) or up to 22: two passes of half the bits once the
  // bucket is large enough to amortize their 1024- or 2048-entry histograms (about 20% faster than
  // three 7-bit ones on 20K items), else three 7-bit passes with cache-local scatters
  if (bits > 16 && bits <= 20 && n >= 8192) return lsd_passes<2, 10>(a, tmp, n, 32);
  if (bits > 16 && bits <= 22 && n >= 16384) return lsd_passes<2, 11>(a, tmp, n, 32);
  if (bits > 16 && bits <= 21 && n >= 4096) return lsd_passes<3, 7>(a, tmp, n, 32);
  return lsd_serial(a, tmp, n, 32, (bits + 7) / 8);
}

uint64_t* sort_items(uint64_t* a, uint64_t* tmp, int64_t n, int key_bytes, int threads) {
  if (n < kRadixMin) {
    std::sort(a, a + n);
    return a;
  }
  if (key_bytes == 4 && n >= (int64_t(1) << 15)) return msd_lsd(a, tmp, n, n >= (int64_t(1) << 16) ? threads : 1);
  if (threads > 1 && n >= (int64_t(1) << 16)) return lsd_parallel(a, tmp, n, 32, key_bytes, threads);
  return lsd_serial(a, tmp, n, 32, key_bytes);
}

KeyIdx* sort_items(KeyIdx* a, KeyIdx* tmp, int64_t n, int key_bytes, int threads) {
  if (n < kRadixMin) {
    std::sort(a, a + n);
    return a;
  }
  if (threads > 1 && n >= (int64_t(1) << 16)) return lsd_parallel(a, tmp, n, 0, key_bytes, threads);
  return lsd_serial(a, tmp, n, 0, key_bytes);
}

void select_items(uint64_t* a, int64_t n, int64_t k) { std::nth_element(a, a + k, a + n); }
void select_items(KeyIdx* a, int64_t n, int64_t k) { std::nth_element(a, a + k, a + n); }

}  // namespace ember::sorting
