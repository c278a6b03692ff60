// The shared pieces of the Winograd convolution (conv_winograd_tiles.h). With 6x6 input tiles d, 4x4
// output tiles, a 3x3 kernel g and the matrices B^T (6x6), G (6x3), A^T (4x6) of Lavin & Gray, the
// transforms are B^T d B, G g G^T, A^T m A and their adjoints; they run on 8 tiles (or 8 channels)
// at once, one per AVX lane, loading rows and transposing in registers.
#include "kernels/cpu/conv_winograd_tiles.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>

#include "device/parallel.h"
#include "kernels/cpu/avx2_transpose.h"
#include "kernels/cpu/conv_winograd_1d.h"
#include "kernels/cpu/conv_winograd_elem.h"

namespace ember::conv::winograd {

namespace {

// The 3x3 kernel g (9 values, row-major) -> its 36 points u36[6 r + s].
template <class V>
WINO_INLINE void kernel_2d(const V* g, V* u36) {
  V rows[3][6];
  for (int a = 0; a < 3; a++) kernel_1d(g + 3 * a, rows[a]);
  for (int s = 0; s < 6; s++) {
    const V col[3] = {rows[0][s], rows[1][s], rows[2][s]};
    V r[6];
    kernel_1d(col, r);
    for (int i = 0; i < 6; i++) u36[i * 6 + s] = r[i];
  }
}

// The 36 transformed kernel gradients -> the 3x3 kernel's gradient (row-major).
template <class V>
WINO_INLINE void kernel_adjoint_2d(const V* u36, V* g9) {
  V rows[6][3];
  for (int r = 0; r < 6; r++) kernel_adjoint_1d(u36 + 6 * r, rows[r]);
  for (int b = 0; b < 3; b++) {
    const V col[6] = {rows[0][b], rows[1][b], rows[2][b], rows[3][b], rows[4][b], rows[5][b]};
    V a[3];
    kernel_adjoint_1d(col, a);
    for (int i = 0; i < 3; i++) g9[i * 3 + b] = a[i];
  }
}

// The stretches of one channel's plane(s) that a block's tiles read, one per image the block
// touches: [first tile's offset, last tile's offset + reach) within that image. A block's share of
// a plane is a few kilobytes, too short for the hardware prefetcher to pick up before it ends.
struct Span {
  int64_t begin, end;
};

std::vector<Span> block_spans(const int32_t* off, int64_t ntiles, int64_t reach) {
  std::vector<Span> spans;
  for (int64_t i = 0; i < ntiles; i++) {
    const int64_t o = off[i];  // ascending; a tile starting past the span's end begins the next image's
    if (spans.empty() || o > spans.back().end) spans.push_back({o, o});
    spans.back().end = o + reach;
  }
  return spans;
}

// Asks for the lines of `spans` (relative to base) to be brought into cache: the next channel's,
// while this one's tiles are transformed.
template <class E>
WINO_INLINE void prefetch(const E* base, const std::vector<Span>& spans) {
  for (const Span& sp : spans) {
    // whole lines: from the line holding the span's first float to the one holding its last
    const char* first = reinterpret_cast<const char*>(base + sp.begin);
    const char* last = reinterpret_cast<const char*>(base + sp.end - 1);
    for (const char* a = first - (reinterpret_cast<uintptr_t>(first) & 63); a <= last; a += 64)
      _mm_prefetch(a, _MM_HINT_T0);
  }
}

// The tiles' transform that the input and the output gradient share: for each channel (the next
// one's stretch prefetched) and each group of 8 tiles, Tile::row loads row i of the 8 tiles
// column-wise across the lanes (d[j]: column j), Tile::transform_1d runs on the rows and then on
// the columns, and the 36 points go to out's slices, `ps` floats apart.
template <class Tile, class E>
WINO_INLINE void transform_tiles(Tile& tile, const E* planes, int64_t plane, int64_t row_floats, const Layout& l,
                                 int64_t channels, int64_t ntiles, const int32_t* off, float* out) {
  constexpr int R = Tile::kRows;
  const int64_t groups = ceil_div(ntiles, kLanes), ps = point_stride(channels, l.tb);
  const std::vector<Span> spans = block_spans(off, ntiles, (R - 1) * row_floats + Tile::kLoad);
  for (int64_t ch = 0; ch < channels; ch++) {
    const E* base = planes + ch * plane;
    if (ch + 1 < channels) prefetch(base + plane, spans);
    for (int64_t grp = 0; grp < groups; grp++) {
      const int32_t* o = off + grp * kLanes;
      __m256 t[R][6];
      for (int i = 0; i < R; i++) {
        __m256 d[kLanes];
        tile.row(base + i * row_floats, i, o, d);
        Tile::transform_1d(d, t[i]);
      }
      for (int s = 0; s < 6; s++) {
        __m256 col[R], r[6];
        for (int i = 0; i < R; i++) col[i] = t[i][s];
        Tile::transform_1d(col, r);
        for (int i = 0; i < 6; i++) _mm256_storeu_ps(out + (i * 6 + s) * ps + ch * l.tb + grp * kLanes, r[i]);
      }
    }
  }
}

// Input tiles (6x6, B^T d B): each tile's patch row is one masked load of 8, and an 8x8 transpose
// turns the 8 rows into the columns across the tiles. Keeps the largest magnitude it loads, for
// the finiteness check (all_moderate) without a pass of its own.
struct InputTile {
  static constexpr int kRows = 6, kLoad = 8;
  const InputTiles& tiles;
  const void* x_begin;  // x's elements, for the bfloat16 loads at the planes' edges
  const void* x_end;
  __m256i worst = _mm256_setzero_si256();
  template <class E>
  WINO_INLINE void row(const E* base, int i, const int32_t* o, __m256* d) {
    const int64_t first = o - tiles.off.data();
    const __m256i magnitude = _mm256_set1_epi32(0x7fffffff);
    if (tiles.inside[size_t(first / kLanes)]) {
      for (int lane = 0; lane < 8; lane++) {
        d[lane] = load8(base + o[lane]);
        worst = _mm256_max_epu32(worst, _mm256_and_si256(_mm256_castps_si256(d[lane]), magnitude));
      }
      avx2::transpose8(d);
      return;
    }
    for (int lane = 0; lane < 8; lane++) {
      const size_t t = size_t(first + lane);
      const __m256i row_inside = _mm256_set1_epi32(-int32_t((tiles.rows[t] >> i) & 1));
      const __m256i inside =
          _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(tiles.cols[t].data())), row_inside);
      if constexpr (std::is_same_v<E, float>) {
        d[lane] = _mm256_maskload_ps(base + o[lane], inside);
      } else {
        // No 16-bit masked load on AVX2: a row inside x's memory loads whole and its lanes outside
        // the plane are cleared; one at x's very ends (or outside the plane) goes value by value.
        const E* src = base + o[lane];
        if (((tiles.rows[t] >> i) & 1) && src >= static_cast<const E*>(x_begin) &&
            src + kLanes <= static_cast<const E*>(x_end)) {
          d[lane] = _mm256_and_ps(load8(src), _mm256_castsi256_ps(inside));
        } else {
          E part[kLanes] = {};
          if ((tiles.rows[t] >> i) & 1)
            for (int j = 0; j < kLanes; j++)
              if (tiles.cols[t][size_t(j)]) part[j] = src[j];
          d[lane] = load8(part);
        }
      }
      worst = _mm256_max_epu32(worst, _mm256_and_si256(_mm256_castps_si256(d[lane]), magnitude));
    }
    avx2::transpose8(d);
  }
  static WINO_INLINE void transform_1d(const __m256* d, __m256* r) { input_1d(d, r); }
  // Whether every value loaded was below 2^40 in magnitude (see all_moderate).
  WINO_INLINE bool moderate() const {
    alignas(32) uint32_t lanes[kLanes];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), worst);
    uint32_t most = 0;
    for (uint32_t v : lanes) most = std::max(most, v);
    return most < 0x53800000u;
  }
};

// Output-gradient tiles (4x4, A dy A^T): the rows of tiles lane and lane + 4 side by side, then a
// 4x4 transpose in each half.
struct OutputGradTile {
  static constexpr int kRows = 4, kLoad = 4;
  template <class E>
  WINO_INLINE void row(const E* base, int, const int32_t* o, __m256* d) {
    __m256 a[4];
    for (int lane = 0; lane < 4; lane++)
      a[lane] = _mm256_insertf128_ps(_mm256_castps128_ps256(load4(base + o[lane])), load4(base + o[lane + 4]), 1);
    const __m256 lo01 = _mm256_unpacklo_ps(a[0], a[1]), hi01 = _mm256_unpackhi_ps(a[0], a[1]);
    const __m256 lo23 = _mm256_unpacklo_ps(a[2], a[3]), hi23 = _mm256_unpackhi_ps(a[2], a[3]);
    d[0] = _mm256_shuffle_ps(lo01, lo23, 0x44);
    d[1] = _mm256_shuffle_ps(lo01, lo23, 0xEE);
    d[2] = _mm256_shuffle_ps(hi01, hi23, 0x44);
    d[3] = _mm256_shuffle_ps(hi01, hi23, 0xEE);
  }
  static WINO_INLINE void transform_1d(const __m256* d, __m256* r) { output_adjoint_1d(d, r); }
};

// A row of 4 outputs to its place: floats as they are, bfloat16s (round_bf16's bits) packed.
WINO_INLINE void store_run(float* dst, __m128 run) { _mm_storeu_ps(dst, run); }
WINO_INLINE void store_run(uint16_t* dst, __m128 run) { pack4(dst, run); }

// One lane of a stored row: the float, or the bfloat16 in round_bf16's bits.
template <class E>
WINO_INLINE E run_value(float lane) {
  if constexpr (std::is_same_v<E, float>) {
    return lane;
  } else {
    uint32_t bits;
    std::memcpy(&bits, &lane, sizeof bits);
    return uint16_t(bits);
  }
}

// Where each tile of a block writes its 4x4 outputs, and how much of it lies within the output.
struct TileTargets {
  std::vector<int64_t> base;
  std::vector<int8_t> rows, cols;
};

TileTargets tile_targets(const Problem& p, const Layout& l, int64_t t0, int64_t ntiles) {
  const int64_t oh = p.oh(), ow = p.ow(), per_image = l.th * l.tw;
  TileTargets tt;
  for (int64_t i = 0; i < ntiles; i++) {
    const int64_t t = t0 + i, img = t / per_image, ty = (t % per_image) / l.tw, tx = t % l.tw;
    tt.base.push_back(img * p.y_stride + 4 * ty * ow + 4 * tx);
    tt.rows.push_back(int8_t(std::min<int64_t>(4, oh - 4 * ty)));
    tt.cols.push_back(int8_t(std::min<int64_t>(4, ow - 4 * tx)));
  }
  return tt;
}

}  // namespace

Layout make_layout(const Problem& p, bool weight_grad) {
  Layout l;
  l.th = ceil_div(p.oh(), 4);
  l.tw = ceil_div(p.ow(), 4);
  l.tiles = p.n * l.th * l.tw;
  // A block's V and M (36 points x channels x tiles) should stay within about a megabyte; blocks
  // share the tiles out evenly across the threads, and hold at least 32 tiles for the products
  // unless a thread's share is smaller. The weight gradient's blocks each add to all of dU (36 k c
  // floats, for wide layers far larger than the cache): there blocks of 2 k c / (k + c) tiles keep
  // that traffic below V's and M's own, as long as V and M stay within 8 MB.
  const int64_t tile_bytes = kPoints * 4 * (p.c + p.k);
  int64_t tb = std::max<int64_t>(32, (int64_t(1) << 20) / tile_bytes);
  if (weight_grad) tb = std::max(tb, std::min(2 * p.k * p.c / (p.k + p.c), (int64_t(8) << 20) / tile_bytes));
  l.tb = std::min(ceil_div(l.tiles, get_num_threads()), tb);
  l.tb = ceil_div(std::max<int64_t>(l.tb, 1), kLanes) * kLanes;
  return l;
}

// The distance (in floats) between consecutive points' slices of a block's V or M (channels x tb
// each): an odd number of 64-byte lines, so that a tile group's 36 points, read or written
// together by the transforms, fall in different cache sets (slices a multiple of 4 KB apart would
// all share one set).
int64_t point_stride(int64_t channels, int64_t tb) {
  const int64_t lines = ceil_div(channels * tb, 16);
  return 16 * (lines % 2 ? lines : lines + 1);
}

// Whether the n values are all below 2^40 in magnitude (so neither NaN nor infinite): the
// transforms scale by up to about 100 on each side, and a product of such values summed over many
// channels and tiles stays far from float32's overflow. An integer max on the bits, which the
// compiler vectorizes, unlike an ordered float sum.
template <class E>
WINO_AVX2 bool all_moderate(const E* x, int64_t n) {
  uint32_t worst = 0;
  for (int64_t i = 0; i < n; i++) {
    uint32_t bits;
    if constexpr (std::is_same_v<E, float>)
      std::memcpy(&bits, x + i, sizeof bits);
    else
      bits = uint32_t(x[i]) << 16;  // a bfloat16 is a float's upper half
    worst = std::max(worst, bits & 0x7fffffffu);
  }
  return worst < 0x53800000u;  // 2^40
}

// all_moderate over n values, in parallel.
template <class E>
bool all_moderate_parallel(const E* x, int64_t n) {
  std::atomic<bool> moderate{true};
  parallel_for(ceil_div(n, 16384), 4, [&](int64_t lo, int64_t hi) {
    const int64_t b = lo * 16384, e = std::min(n, hi * 16384);
    if (!all_moderate(x + b, e - b)) moderate = false;
  });
  return moderate;
}

// xp (n x c planes of hp x wp) = x with ph / pw zeros before and zeros after up to the plane's end.
// Returns whether x is all moderate (all_moderate).
template <class E>
bool pad_planes(const E* x, int64_t planes_per_image, int64_t x_stride, int64_t n, int64_t h, int64_t w, int64_t ph,
                int64_t pw, int64_t hp, int64_t wp, float* xp) {
  std::atomic<bool> moderate{true};
  parallel_for(n * planes_per_image, 4, [&](int64_t lo, int64_t hi) {
    for (int64_t q = lo; q < hi; q++) {
      const E* src = x + (q / planes_per_image) * x_stride + (q % planes_per_image) * h * w;
      float* dst = xp + q * hp * wp;
      for (int64_t r = 0; r < hp; r++) {
        float* row = dst + r * wp;
        const int64_t sr = r - ph;
        if (sr < 0 || sr >= h) {
          std::memset(row, 0, sizeof(float) * wp);
          continue;
        }
        const int64_t cols = std::min(w, wp - pw);
        std::memset(row, 0, sizeof(float) * pw);
        for (int64_t j = 0; j < cols; j++) row[pw + j] = widen(src[sr * w + j]);
        std::memset(row + pw + cols, 0, sizeof(float) * (wp - pw - cols));
      }
      if (!all_moderate(dst, hp * wp)) moderate = false;
    }
  });
  return moderate;
}

// Offsets (in floats, within one channel's plane of image 0) of the top-left corners of tiles
// t0 .. t0+count-1, padded to a multiple of 8 by repeating the last tile.
void tile_offsets(const Layout& l, int64_t t0, int64_t count, int64_t image_floats, int64_t row_floats, int32_t* off) {
  const int64_t per_image = l.th * l.tw;
  for (int64_t i = 0; i < ceil_div(count, kLanes) * kLanes; i++) {
    const int64_t t = t0 + std::min(i, count - 1), img = t / per_image, r = t % per_image;
    off[i] = int32_t(img * image_floats + (r / l.tw) * 4 * row_floats + (r % l.tw) * 4);
  }
}

// U[xi] for every point, over kernel rows ko in [k_lo, k_hi) and input channels ci in [c_lo, c_hi):
// the kernel's transform, 8 input channels at a time, into u (point xi at u + xi * u_point, row
// ko - k_lo u_cols floats apart, column ci - c_lo).
template <class E>
WINO_AVX2 void transform_kernel(const E* w, bool flipped_transposed, int64_t k, int64_t c, int64_t k_lo, int64_t k_hi,
                                int64_t c_lo, int64_t c_hi, float* u, int64_t u_point, int64_t u_cols) {
  // (ko, ci)'s kernel tap (a, b) lies at w[ko][ci][a][b], or at w[ci][ko][2-a][2-b] flipped.
  const int64_t ci_step = flipped_transposed ? k * 9 : 9;
  auto tap = [&](int a, int b) { return flipped_transposed ? (2 - a) * 3 + (2 - b) : a * 3 + b; };
  const __m256i idx =
      _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(int32_t(ci_step)));
  for (int64_t ko = k_lo; ko < k_hi; ko++) {
    const E* base = w + (flipped_transposed ? ko * 9 : ko * c * 9);
    float* row = u + (ko - k_lo) * u_cols - c_lo;  // row[xi * u_point + ci]
    int64_t ci = c_lo;
    for (; ci + kLanes <= c_hi; ci += kLanes) {
      // Each lane's 9 taps lie together (reversed when flipped): 8 of them come by a load per lane
      // and a transpose, the last by a gather (a gather per tap is several times slower).
      const E* taps = base + ci * ci_step;
      // Unflipped, a row's channels lie one after another: asks for those 4 steps ahead (a row's
      // slice is too short for the hardware prefetcher to pick up before it ends).
      if (!flipped_transposed)
        for (int line = 0; line < 5; line++)
          _mm_prefetch(reinterpret_cast<const char*>(taps + 4 * 72 + 16 * line), _MM_HINT_T0);
      __m256 r[kLanes], g[9], u36[36];
      for (int lane = 0; lane < kLanes; lane++) r[lane] = load8(taps + lane * ci_step + (flipped_transposed ? 1 : 0));
      avx2::transpose8(r);
      for (int j = 0; j < 8; j++) g[flipped_transposed ? 7 - j : j] = r[j];
      const E* last = taps + (flipped_transposed ? 0 : 8);
      if constexpr (std::is_same_v<E, float>) {
        g[8] = _mm256_i32gather_ps(last, idx, 4);
      } else {
        alignas(32) float lanes[kLanes];
        for (int lane = 0; lane < kLanes; lane++) lanes[lane] = widen(last[lane * ci_step]);
        g[8] = _mm256_load_ps(lanes);
      }
      kernel_2d(g, u36);
      for (int64_t xi = 0; xi < kPoints; xi++) _mm256_storeu_ps(row + xi * u_point + ci, u36[xi]);
    }
    for (; ci < c_hi; ci++) {
      float g[9], u36[36];
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) g[a * 3 + b] = widen(base[ci * ci_step + tap(a, b)]);
      kernel_2d(g, u36);
      for (int64_t xi = 0; xi < kPoints; xi++) row[xi * u_point + ci] = u36[xi];
    }
  }
}

InputTiles input_tiles(const Problem& p, const Layout& l, int64_t t0, int64_t count) {
  const int64_t per_image = l.th * l.tw, padded = ceil_div(count, kLanes) * kLanes;
  const int64_t extent = (p.n - 1) * p.x_stride + p.c * p.h * p.w;  // x's floats
  InputTiles it;
  for (int64_t i = 0; i < padded; i++) {
    const int64_t t = t0 + std::min(i, count - 1), img = t / per_image, r = t % per_image;  // the last repeats
    const int64_t r0 = (r / l.tw) * 4 - p.ph, c0 = (r % l.tw) * 4 - p.pw;
    it.off.push_back(int32_t(img * p.x_stride + r0 * p.w + c0));
    uint8_t rows = 0;
    for (int j = 0; j < 6; j++) rows |= uint8_t((r0 + j >= 0 && r0 + j < p.h) << j);
    it.rows.push_back(rows);
    std::array<int32_t, kLanes> cols{};
    for (int j = 0; j < 6; j++) cols[size_t(j)] = c0 + j >= 0 && c0 + j < p.w ? -1 : 0;
    it.cols.push_back(cols);
    // the last channel's plane of this tile's image ends the loads it could make
    const bool whole =
        rows == 0x3f && c0 >= 0 && c0 + 6 <= p.w && it.off.back() + (p.c - 1) * p.h * p.w + 5 * p.w + 8 <= extent;
    if (i % kLanes == 0)
      it.inside.push_back(whole);
    else
      it.inside.back() = it.inside.back() && whole;
  }
  return it;
}

// V[xi] (c x tb, this block's columns) of the tiles whose offsets start at `off` (within `tiles`),
// read from x. Returns whether all the values read are moderate (all_moderate).
template <class E>
WINO_AVX2 bool transform_input(const E* x, const Problem& p, const Layout& l, const InputTiles& tiles, int64_t ntiles,
                               const int32_t* off, float* v) {
  InputTile tile{tiles, x, x + (p.n - 1) * p.x_stride + p.c * p.h * p.w};
  transform_tiles(tile, x, p.h * p.w, p.w, l, p.c, ntiles, off, v);
  return tile.moderate();
}

// y's tiles t0 .. t0+ntiles-1 of `channels` output planes (plus bias, if given) from M[xi]
// (channels x tb, points ps floats apart), 8 tiles per step: each output row of the 8 tiles is
// transposed in registers into 8 runs of 4, stored whole for tiles inside the output and cut to
// its bounds at the edges.
template <class E>
WINO_AVX2 void transform_output(const float* m, int64_t ps, int64_t channels, const E* bias, const Problem& p,
                                const Layout& l, int64_t t0, int64_t ntiles, E* y) {
  constexpr bool kRound = !std::is_same_v<E, float>;  // bfloat16 out: rounded before the transpose
  const int64_t oh = p.oh(), ow = p.ow(), groups = ceil_div(ntiles, kLanes);
  const TileTargets tt = tile_targets(p, l, t0, ntiles);
  std::vector<char> full(static_cast<size_t>(groups));
  for (int64_t grp = 0; grp < groups; grp++) {
    bool all = grp * kLanes + kLanes <= ntiles;
    for (int64_t lane = 0; all && lane < kLanes; lane++)
      all = tt.rows[size_t(grp * kLanes + lane)] == 4 && tt.cols[size_t(grp * kLanes + lane)] == 4;
    full[size_t(grp)] = all;
  }
  for (int64_t ko = 0; ko < channels; ko++) {
    E* yk = y + ko * oh * ow;
    const __m256 b = _mm256_set1_ps(bias ? widen(bias[ko]) : 0.0f);
    for (int64_t grp = 0; grp < groups; grp++) {
      __m256 q[6][4];
      for (int r = 0; r < 6; r++) {
        __m256 mr[6];
        for (int s = 0; s < 6; s++) mr[s] = _mm256_loadu_ps(m + (r * 6 + s) * ps + ko * l.tb + grp * kLanes);
        output_1d(mr, q[r]);
      }
      __m256 o[4][4];  // o[j][i]: output (i, j) of the 8 tiles
      for (int j = 0; j < 4; j++) {
        const __m256 col[6] = {q[0][j], q[1][j], q[2][j], q[3][j], q[4][j], q[5][j]};
        output_1d(col, o[j]);
      }
      const int64_t first = grp * kLanes, lanes = std::min(kLanes, ntiles - first);
      for (int i = 0; i < 4; i++) {
        __m256 v[4];
        for (int j = 0; j < 4; j++) v[j] = kRound ? round_bf16(o[j][i] + b) : o[j][i] + b;
        const __m256 a = _mm256_unpacklo_ps(v[0], v[1]), c = _mm256_unpackhi_ps(v[0], v[1]);
        const __m256 d = _mm256_unpacklo_ps(v[2], v[3]), e = _mm256_unpackhi_ps(v[2], v[3]);
        // run[lane]: output row i of tile `lane`, columns 0..3
        const __m256 r04 = _mm256_shuffle_ps(a, d, 0x44), r15 = _mm256_shuffle_ps(a, d, 0xEE);
        const __m256 r26 = _mm256_shuffle_ps(c, e, 0x44), r37 = _mm256_shuffle_ps(c, e, 0xEE);
        const __m128 run[8] = {_mm256_castps256_ps128(r04),   _mm256_castps256_ps128(r15),
                               _mm256_castps256_ps128(r26),   _mm256_castps256_ps128(r37),
                               _mm256_extractf128_ps(r04, 1), _mm256_extractf128_ps(r15, 1),
                               _mm256_extractf128_ps(r26, 1), _mm256_extractf128_ps(r37, 1)};
        if (full[size_t(grp)]) {  // 8 whole tiles: no bounds to check
          for (int lane = 0; lane < 8; lane++) store_run(yk + tt.base[size_t(first + lane)] + i * ow, run[lane]);
          continue;
        }
        for (int64_t lane = 0; lane < lanes; lane++) {
          const size_t ti = size_t(first + lane);
          if (i >= tt.rows[ti]) continue;
          E* dst = yk + tt.base[ti] + i * ow;
          if (tt.cols[ti] == 4) {
            store_run(dst, run[lane]);
          } else {
            alignas(16) float tmp[4];
            _mm_store_ps(tmp, run[lane]);
            for (int j = 0; j < tt.cols[ti]; j++) dst[j] = run_value<E>(tmp[j]);
          }
        }
      }
    }
  }
}

// dM[xi] (k x tb) from the output gradient's zero-padded planes dyp (4 th x 4 tw each).
template <class E>
WINO_AVX2 void transform_output_grad(const E* dyp, const Layout& l, int64_t channels, int64_t ntiles,
                                     const int32_t* off, float* dm) {
  OutputGradTile tile;
  transform_tiles(tile, dyp, 16 * l.th * l.tw, 4 * l.tw, l, channels, ntiles, off, dm);
}

// dw (k, c, 3, 3) over rows ko in [k_lo, k_hi) and input channels ci in [c_lo, c_hi) from dU (point
// xi at du + xi * du_point, row ko - k_lo du_cols floats apart, column ci - c_lo), 8 input channels
// at a time.
template <class E>
WINO_AVX2 void transform_kernel_grad(const float* du, int64_t du_point, int64_t du_cols, int64_t c, int64_t k_lo,
                                     int64_t k_hi, int64_t c_lo, int64_t c_hi, E* dw) {
  for (int64_t ko = k_lo; ko < k_hi; ko++) {
    const float* row = du + (ko - k_lo) * du_cols - c_lo;  // row[xi * du_point + ci]
    int64_t ci = c_lo;
    for (; ci + kLanes <= c_hi; ci += kLanes) {
      __m256 u36[36], g[9];
      for (int64_t xi = 0; xi < kPoints; xi++) u36[xi] = _mm256_loadu_ps(row + xi * du_point + ci);
      kernel_adjoint_2d(u36, g);
      if constexpr (!std::is_same_v<E, float>)
        for (__m256& gi : g) gi = round_bf16(gi);  // its bits, then transposed and packed
      // Each lane's 9 taps go together: 8 by a transpose and a store per lane, the last alone.
      alignas(32) float last[kLanes];
      _mm256_store_ps(last, g[8]);
      avx2::transpose8(g);
      E* taps = dw + (ko * c + ci) * 9;
      for (int64_t lane = 0; lane < kLanes; lane++) {
        if constexpr (std::is_same_v<E, float>)
          _mm256_storeu_ps(taps + lane * 9, g[lane]);
        else
          pack8(taps + lane * 9, g[lane]);
        taps[lane * 9 + 8] = run_value<E>(last[lane]);
      }
    }
    for (; ci < c_hi; ci++) {
      float u36[36], g[9];
      for (int64_t xi = 0; xi < kPoints; xi++) u36[xi] = row[xi * du_point + ci];
      kernel_adjoint_2d(u36, g);
      for (int i = 0; i < 9; i++) store1(dw + (ko * c + ci) * 9 + i, g[i]);
    }
  }
}

// The element types the schedules use: float32 and bfloat16's bits.
#define WINO_ELEMENT(E)                                                                                               \
  template bool all_moderate(const E*, int64_t);                                                                      \
  template bool all_moderate_parallel(const E*, int64_t);                                                             \
  template bool pad_planes(const E*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, \
                           float*);                                                                                   \
  template void transform_kernel(const E*, bool, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, float*,        \
                                 int64_t, int64_t);                                                                   \
  template bool transform_input(const E*, const Problem&, const Layout&, const InputTiles&, int64_t, const int32_t*,  \
                                float*);                                                                              \
  template void transform_output(const float*, int64_t, int64_t, const E*, const Problem&, const Layout&, int64_t,    \
                                 int64_t, E*);                                                                        \
  template void transform_output_grad(const E*, const Layout&, int64_t, int64_t, const int32_t*, float*);             \
  template void transform_kernel_grad(const float*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, E*);
WINO_ELEMENT(float)
WINO_ELEMENT(uint16_t)
#undef WINO_ELEMENT

}  // namespace ember::conv::winograd
