// The float32 gate passes of one row in one sweep of 16 lanes (AVX-512): pre-activations, the
// activations (through vec::Exp16), the state update and the workspace, with the last lanes masked.
// rnn_layer.cpp picks these when the CPU has AVX-512; its plain loops do the same otherwise.
#include "kernels/cpu/rnn_layer.h"
#include "kernels/simd/exp_avx512.h"

// GCC 12 flags the AVX-512 intrinsics' internal _mm512_undefined_ps() as maybe-uninitialized.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace ember::rnn {

namespace {

EMBER_AVX512 inline __m512 sigmoid16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.f);
  return _mm512_div_ps(one, _mm512_add_ps(one, vec::Exp16::apply(_mm512_sub_ps(_mm512_setzero_ps(), x))));
}

// sign(x) (1 - e) / (1 + e), e = exp(-2|x|) in (0, 1]
EMBER_AVX512 inline __m512 tanh16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.f);
  const __m512 ax = _mm512_abs_ps(x);
  const __m512 e = vec::Exp16::apply(_mm512_mul_ps(_mm512_set1_ps(-2.f), ax));
  const __m512 r = _mm512_div_ps(_mm512_sub_ps(one, e), _mm512_add_ps(one, e));
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(int(0x80000000u)));
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r), sign));
}

EMBER_AVX512 inline __m512 load(__mmask16 k, const float* p) { return _mm512_maskz_loadu_ps(k, p); }

// lanes k of a + b + c at offset o
EMBER_AVX512 inline __m512 sum3(__mmask16 k, const float* a, const float* b, const float* c, int64_t o) {
  return _mm512_add_ps(_mm512_add_ps(load(k, a + o), load(k, b + o)), load(k, c + o));
}

EMBER_AVX512 inline __mmask16 lanes(int64_t left) {
  return left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1u);
}

}  // namespace

EMBER_AVX512 void lstm_row512(int64_t H, const float* xr, const float* hr, const float* bias, float* ws, float* c,
                              float* m) {
  for (int64_t j = 0; j < H; j += 16) {
    const __mmask16 k = lanes(H - j);
    const __m512 i = sigmoid16(sum3(k, xr, hr, bias, j)), f = sigmoid16(sum3(k, xr, hr, bias, H + j));
    const __m512 g = tanh16(sum3(k, xr, hr, bias, 2 * H + j)), o = sigmoid16(sum3(k, xr, hr, bias, 3 * H + j));
    const __m512 c2 = _mm512_fmadd_ps(f, load(k, c + j), _mm512_mul_ps(i, g));
    _mm512_mask_storeu_ps(ws + j, k, i);
    _mm512_mask_storeu_ps(ws + H + j, k, f);
    _mm512_mask_storeu_ps(ws + 2 * H + j, k, g);
    _mm512_mask_storeu_ps(ws + 3 * H + j, k, o);
    _mm512_mask_storeu_ps(ws + 4 * H + j, k, c2);
    _mm512_mask_storeu_ps(c + j, k, c2);
    _mm512_mask_storeu_ps(m + j, k, _mm512_mul_ps(o, tanh16(c2)));
  }
}

EMBER_AVX512 void gru_row512(int64_t H, const float* xr, const float* hr, const float* bias, const float* b_hn,
                             float* ws, float* h) {
  for (int64_t j = 0; j < H; j += 16) {
    const __mmask16 k = lanes(H - j);
    const __m512 r = sigmoid16(sum3(k, xr, hr, bias, j)), z = sigmoid16(sum3(k, xr, hr, bias, H + j));
    const __m512 hn = b_hn ? _mm512_add_ps(load(k, hr + 2 * H + j), load(k, b_hn + j)) : load(k, hr + 2 * H + j);
    const __m512 xn = _mm512_add_ps(load(k, xr + 2 * H + j), load(k, bias + 2 * H + j));
    const __m512 n = tanh16(_mm512_fmadd_ps(r, hn, xn));
    const __m512 hp = load(k, h + j);
    _mm512_mask_storeu_ps(ws + j, k, r);
    _mm512_mask_storeu_ps(ws + H + j, k, z);
    _mm512_mask_storeu_ps(ws + 2 * H + j, k, n);
    _mm512_mask_storeu_ps(ws + 3 * H + j, k, hn);
    _mm512_mask_storeu_ps(h + j, k, _mm512_fmadd_ps(z, _mm512_sub_ps(hp, n), n));  // (1 - z) n + z h
  }
}

EMBER_AVX512 void lstm_row_backward512(int64_t H, const float* gs, const float* cp, const float* dm, float* dc,
                                       float* d, float* m) {
  const __m512 one = _mm512_set1_ps(1.f);
  for (int64_t j = 0; j < H; j += 16) {
    const __mmask16 k = lanes(H - j);
    const __m512 i = load(k, gs + j), f = load(k, gs + H + j), g = load(k, gs + 2 * H + j), o = load(k, gs + 3 * H + j);
    const __m512 tc = tanh16(load(k, gs + 4 * H + j)), dmj = load(k, dm + j);
    if (m) _mm512_mask_storeu_ps(m + j, k, _mm512_mul_ps(o, tc));
    // dct = dc + dm o (1 - tc^2)
    const __m512 dct = _mm512_fmadd_ps(_mm512_mul_ps(dmj, o), _mm512_fnmadd_ps(tc, tc, one), load(k, dc + j));
    _mm512_mask_storeu_ps(d + j, k, _mm512_mul_ps(_mm512_mul_ps(dct, g), _mm512_mul_ps(i, _mm512_sub_ps(one, i))));
    _mm512_mask_storeu_ps(d + H + j, k,
                          _mm512_mul_ps(_mm512_mul_ps(dct, load(k, cp + j)), _mm512_mul_ps(f, _mm512_sub_ps(one, f))));
    _mm512_mask_storeu_ps(d + 2 * H + j, k, _mm512_mul_ps(_mm512_mul_ps(dct, i), _mm512_fnmadd_ps(g, g, one)));
    _mm512_mask_storeu_ps(d + 3 * H + j, k,
                          _mm512_mul_ps(_mm512_mul_ps(dmj, tc), _mm512_mul_ps(o, _mm512_sub_ps(one, o))));
    _mm512_mask_storeu_ps(dc + j, k, _mm512_mul_ps(dct, f));
  }
}

}  // namespace ember::rnn
