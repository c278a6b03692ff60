// Normal sampling by Box-Muller (elements 2k and 2k+1 share one pair of uniforms): randn, randn_like,
// normal (tensor mean/std forms and the float/float/size form), Tensor.normal_ and Tensor.log_normal_.
#include <cmath>

#include "generated/ops/_normal_size.h"
#include "generated/ops/add.h"
#include "generated/ops/log_normal_.h"
#include "generated/ops/mul.h"
#include "generated/ops/normal.h"
#include "generated/ops/normal_.h"
#include "generated/ops/randn.h"
#include "generated/ops/randn_like.h"
#include "iter/loops.h"
#include "iter/tensor_iter.h"
#include "kernels/cpu/random_draw.h"
#include "kernels/cpu/random_fill.h"
#include "kernels/creation_args.h"
#include "kernels/layout.h"

namespace ember {

namespace rng {

namespace {

// Box-Muller over 8 pairs: w holds 16 words (pair i = words 2i, 2i+1); z gets z[2i] = r cos, z[2i+1] = r sin.
EMBER_AVX2 void box_muller8(const uint32_t* w, float* z) {
  const __m256 v0 = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)));
  const __m256 v1 = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 8)));
  // Even words (u1) and odd words (u2) of the pairs, in pair order 0,1,4,5,2,3,6,7.
  const __m256i a = _mm256_castps_si256(_mm256_shuffle_ps(v0, v1, 0x88));
  const __m256i b = _mm256_castps_si256(_mm256_shuffle_ps(v0, v1, 0xDD));
  const __m256 u1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(a, 1)), _mm256_set1_ps(0x1.0p-31f),
                                    _mm256_set1_ps(0x1.0p-32f));
  // log(u1): u1 = m 2^e with m in [sqrt(1/2), sqrt(2)), log m by the Cephes polynomial.
  const __m256i bits = _mm256_castps_si256(u1);
  __m256 e = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(126)));
  __m256 m = _mm256_castsi256_ps(
      _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x3f000000)));
  const __m256 small = _mm256_cmp_ps(m, _mm256_set1_ps(0.707106781186547524f), _CMP_LT_OQ);
  e = _mm256_sub_ps(e, _mm256_and_ps(small, _mm256_set1_ps(1.0f)));
  __m256 x = _mm256_add_ps(_mm256_sub_ps(m, _mm256_set1_ps(1.0f)), _mm256_and_ps(small, m));
  const __m256 x2 = _mm256_mul_ps(x, x);
  __m256 p = _mm256_set1_ps(7.0376836292E-2f);
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(-1.1514610310E-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.1676998740E-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(-1.2420140846E-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.4249322787E-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(-1.6668057665E-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(2.0000714765E-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(-2.4999993993E-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(3.3333331174E-1f));
  __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, x), x2);
  y = _mm256_fmadd_ps(e, _mm256_set1_ps(-2.12194440e-4f), y);
  y = _mm256_fnmadd_ps(_mm256_set1_ps(0.5f), x2, y);
  const __m256 lg = _mm256_fmadd_ps(e, _mm256_set1_ps(0.693359375f), _mm256_add_ps(x, y));
  const __m256 r = _mm256_sqrt_ps(_mm256_mul_ps(_mm256_set1_ps(-2.0f), lg));
  // The angle 2 pi u2 = q pi/2 + pi/4 + phi with q = floor(4 u2), phi in [-pi/4, pi/4).
  const __m256i t = _mm256_srli_epi32(b, 8);  // 24 bits: u2 = t 2^-24
  const __m256i q = _mm256_srli_epi32(t, 22);
  const __m256 f =
      _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(t, _mm256_set1_epi32(0x3fffff))), _mm256_set1_ps(0x1.0p-22f));
  const __m256 ph = _mm256_mul_ps(_mm256_sub_ps(f, _mm256_set1_ps(0.5f)), _mm256_set1_ps(1.57079632679489662f));
  const __m256 h = _mm256_mul_ps(ph, ph);
  __m256 s = _mm256_set1_ps(1.0f / 362880.0f);
  s = _mm256_fmadd_ps(s, h, _mm256_set1_ps(-1.0f / 5040.0f));
  s = _mm256_fmadd_ps(s, h, _mm256_set1_ps(1.0f / 120.0f));
  s = _mm256_fmadd_ps(s, h, _mm256_set1_ps(-1.0f / 6.0f));
  s = _mm256_mul_ps(s, h);
  s = _mm256_fmadd_ps(s, ph, ph);
  __m256 c = _mm256_set1_ps(-1.0f / 3628800.0f);
  c = _mm256_fmadd_ps(c, h, _mm256_set1_ps(1.0f / 40320.0f));
  c = _mm256_fmadd_ps(c, h, _mm256_set1_ps(-1.0f / 720.0f));
  c = _mm256_fmadd_ps(c, h, _mm256_set1_ps(1.0f / 24.0f));
  c = _mm256_fmadd_ps(c, h, _mm256_set1_ps(-0.5f));
  c = _mm256_fmadd_ps(c, h, _mm256_set1_ps(1.0f));
  const __m256 k = _mm256_set1_ps(0.707106781186547524f);
  const __m256 ca = _mm256_mul_ps(_mm256_sub_ps(c, s), k), sa = _mm256_mul_ps(_mm256_add_ps(c, s), k);
  // Quarter turns: q odd swaps cos and sin; cos is negative for q in {1, 2}, sin for q in {2, 3}.
  const __m256 odd =
      _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(q, _mm256_set1_epi32(1)), _mm256_set1_epi32(1)));
  __m256 co = _mm256_blendv_ps(ca, sa, odd), si = _mm256_blendv_ps(sa, ca, odd);
  const __m256i sign = _mm256_set1_epi32(int(0x80000000u));
  const __m256i cneg =
      _mm256_slli_epi32(_mm256_and_si256(_mm256_add_epi32(q, _mm256_set1_epi32(1)), _mm256_set1_epi32(2)), 30);
  const __m256i sneg = _mm256_slli_epi32(_mm256_and_si256(q, _mm256_set1_epi32(2)), 30);
  co = _mm256_xor_ps(co, _mm256_castsi256_ps(_mm256_and_si256(cneg, sign)));
  si = _mm256_xor_ps(si, _mm256_castsi256_ps(_mm256_and_si256(sneg, sign)));
  const __m256 zc = _mm256_mul_ps(r, co), zs = _mm256_mul_ps(r, si);
  _mm256_storeu_ps(z, _mm256_unpacklo_ps(zc, zs));
  _mm256_storeu_ps(z + 8, _mm256_unpackhi_ps(zc, zs));
}

// Pair i of `npairs` (words 2i, 2i+1 of w; w padded to a multiple of 16 words) into z[2i], z[2i+1]:
// eight pairs at a time with AVX2+FMA, lane by lane, so a pair's values never depend on its
// neighbours or on where a chunk starts; std::log/cos/sin on CPUs without AVX2.
void box_muller_f32(const uint32_t* w, int64_t npairs, float* z) {
  if (cpu_has_avx2()) {
    for (int64_t i = 0; i < npairs; i += 8) box_muller8(w + 2 * i, z + 2 * i);
    return;
  }
  for (int64_t i = 0; i < npairs; i++) {
    const float r = std::sqrt(-2.0f * std::log(u01f_log(w[2 * i])));
    const float th = kTwoPiF * u01f(w[2 * i + 1]);
    z[2 * i] = r * std::cos(th);
    z[2 * i + 1] = r * std::sin(th);
  }
}

// float, float16 and bfloat16 draw a pair from two words (log argument with 2^-32 resolution, so
// |z| reaches 6.66); double from four (53-bit uniforms, |z| up to 8.57) with libm.
template <class T, bool LogNormal>
void normal_typed(const Tensor& out, double mean, double std, GeneratorImpl& gen) {
  constexpr bool wide = std::is_same_v<T, double>;
  constexpr int WP = wide ? 4 : 2;  // words per pair
  using C = std::conditional_t<wide, double, float>;
  const C mu = C(mean), sd = C(std);
  const int64_t n = out.numel(), npairs = (n + 1) / 2;
  const Stream s = Stream::reserve(gen, npairs * WP);
  fill_logical<T>(out, [&](int64_t first, int64_t m, T* dst) {
    const int64_t p0 = first / 2, p1 = (first + m + 1) / 2;  // pairs touching [first, first + m)
    constexpr int64_t kPairs = kChunk / 2 + 1 + 8;           // + padding to whole groups of 8
    if constexpr (wide) {
      uint32_t w[kPairs * WP];
      s.words(p0 * WP, (p1 - p0) * WP, w);
      for (int64_t p = p0; p < p1; p++) {
        const uint32_t* q = w + (p - p0) * WP;
        const double r = std::sqrt(-2.0 * std::log(u01d_open(q)));
        const double th = kTwoPi * u01d(q + 2);
        const double z[2] = {mu + sd * r * std::cos(th), mu + sd * r * std::sin(th)};
        for (int h = 0; h < 2; h++) {
          const int64_t e = 2 * p + h;
          if (e < first || e >= first + m) continue;
          dst[e - first] = LogNormal ? std::exp(z[h]) : z[h];
        }
      }
    } else {
      alignas(32) uint32_t w[kPairs * 2] = {};
      alignas(32) float z[kPairs * 2];
      s.words(p0 * 2, (p1 - p0) * 2, w);
      box_muller_f32(w, p1 - p0, z);
      const float* zs = z + (first - 2 * p0);  // element `first`
      for (int64_t k = 0; k < m; k++) {
        const float v = mu + sd * zs[k];
        dst[k] = T(LogNormal ? std::exp(v) : v);
      }
    }
  });
}

template <bool LogNormal>
void normal_dispatch(const Tensor& r, double mean, double std, GeneratorImpl& gen) {
  switch (r.dtype()) {
    case ScalarType::Float16:
      normal_typed<Half, LogNormal>(r, mean, std, gen);
      break;
    case ScalarType::BFloat16:
      normal_typed<BFloat16, LogNormal>(r, mean, std, gen);
      break;
    case ScalarType::Float32:
      normal_typed<float, LogNormal>(r, mean, std, gen);
      break;
    case ScalarType::Float64:
      normal_typed<double, LogNormal>(r, mean, std, gen);
      break;
    default:
      EMBER_FAIL(Type, "\"normal_\" is not implemented for dtype ", dtype_name(r.dtype()));
  }
}

}  // namespace

void fill_normal(const Tensor& out, double mean, double std, GeneratorImpl& gen, bool log_normal) {
  if (out.numel() == 0 || out.is_meta()) return;
  // A complex normal of variance std^2: each part gets std / sqrt(2).
  const double sd = is_complex(out.dtype()) ? std / std::sqrt(2.0) : std;
  const Tensor r = real_view(out);
  if (log_normal)
    normal_dispatch<true>(r, mean, sd, gen);
  else
    normal_dispatch<false>(r, mean, sd, gen);
  out.bump_version();
}

}  // namespace rng

namespace {

constexpr unsigned kFloatComplex = rng::kFloat | rng::kComplex;

// N(0, 1)
void fill_standard_normal(const Tensor& out, GeneratorImpl& gen) { rng::fill_normal(out, 0.0, 1.0, gen); }

void check_std(double std) { EMBER_CHECK(std >= 0.0, Runtime, "normal expects std >= 0.0, but found std ", std); }

// normal(mean, std) with at least one tensor: the output's sizes, dtype and device, after the
// checks PyTorch makes (std non-complex and >= 0 everywhere).
struct NormalPlan {
  DimVec sizes;
  ScalarType dtype;
  Device device;
};

NormalPlan plan_normal(const Tensor& mean, const Tensor& std) {
  const bool mt = !mean.is_wrapped_number(), st = !std.is_wrapped_number();
  EMBER_CHECK(mt || st, Type,
              "normal(): with a float mean and a float std, a size is required: normal(mean, std, size)");
  EMBER_CHECK(!is_complex(std.dtype()), Runtime, "normal expects standard deviation to be non-complex");
  const Tensor& lead = mt ? mean : std;
  rng::check_dtype("normal", lead.dtype(), rng::kFloat);
  if (st) {
    if (!std.is_meta() && std.numel() > 0) {
      const Tensor d = rng::as_doubles(std, std.sizes());
      const double* p = d.data_as<double>();
      for (int64_t i = 0; i < d.numel(); i++)
        EMBER_CHECK(p[i] >= 0.0, Runtime, "normal expects all elements of std >= 0.0");
    }
  } else {
    check_std(std.is_meta() ? 0.0 : double(*rng::as_doubles(std, std.sizes()).data_as<double>()));
  }
  if (mt && st)
    EMBER_CHECK(mean.device() == std.device(), Runtime, "normal: mean is on ", mean.device().str(), " but std is on ",
                std.device().str());
  return {broadcast_shapes(mean.sizes(), std.sizes()), lead.dtype(), lead.device()};
}

// out = N(0, 1) * std + mean.
void normal_into(const Tensor& out, const Tensor& mean, const Tensor& std, GeneratorImpl* generator) {
  GeneratorImpl& g = resolve_generator(generator, out.device());
  if (out.is_meta() || out.numel() == 0) return;
  rng::fill_normal(out, 0.0, 1.0, g);
  ops::mul_out(out, out, std);
  ops::add_out(out, out, mean, Scalar(int64_t(1)));
}

}  // namespace

namespace ops {

Tensor randn(const DimVec& size, GeneratorImpl* generator, ScalarType dtype, std::optional<Device> device,
             bool requires_grad) {
  return rng::standard_new("randn", fill_standard_normal, size, generator, dtype, device, requires_grad);
}

Tensor randn_out(const Tensor& out, const DimVec& size, GeneratorImpl* generator, ScalarType dtype,
                 std::optional<Device> device, bool requires_grad) {
  return rng::standard_out("randn", fill_standard_normal, out, size, generator, dtype, device, requires_grad);
}

Tensor randn_like(const Tensor& input, GeneratorImpl* generator, ScalarType dtype, std::optional<Device> device,
                  bool requires_grad) {
  return rng::standard_like("randn_like", fill_standard_normal, input, generator, dtype, device, requires_grad);
}

Tensor normal_(const Tensor& input, double mean, double std, GeneratorImpl* generator) {
  rng::check_dtype("normal_", input.dtype(), kFloatComplex);
  check_std(std);
  assert_no_internal_overlap(input, "normal_");
  rng::fill_normal(input, mean, std, resolve_generator(generator, input.device()));
  return input;
}

Tensor log_normal_(const Tensor& input, double mean, double std, GeneratorImpl* generator) {
  rng::check_dtype("log_normal_", input.dtype(), rng::kFloat);
  EMBER_CHECK(std > 0.0, Runtime, "log_normal_ expects std > 0.0, but found std=", std);
  assert_no_internal_overlap(input, "log_normal_");
  rng::fill_normal(input, mean, std, resolve_generator(generator, input.device()), true);
  return input;
}

Tensor normal(const Tensor& mean, const Tensor& std, GeneratorImpl* generator) {
  const NormalPlan p = plan_normal(mean, std);
  Tensor out = ember::empty(p.sizes, p.dtype, p.device);
  normal_into(out, mean, std, generator);
  return out;
}

Tensor normal_out(const Tensor& out, const Tensor& mean, const Tensor& std, GeneratorImpl* generator) {
  const NormalPlan p = plan_normal(mean, std);
  rng::check_dtype("normal", out.dtype(), rng::kFloat);
  EMBER_CHECK(out.device().type == p.device.type, Runtime, "normal: out= is on ", out.device().str(),
              " but the arguments are on ", p.device.str());
  resize_out(out, p.sizes);
  assert_no_internal_overlap(out, "normal");
  normal_into(out, mean, std, generator);
  return out;
}

Tensor _normal_size(double mean, double std, const DimVec& size, GeneratorImpl* generator, ScalarType dtype,
                    std::optional<Device> device, bool requires_grad) {
  check_requires_grad(requires_grad);
  check_std(std);
  const ScalarType dt = or_default_dtype(dtype);
  rng::check_dtype("normal", dt, kFloatComplex);
  const Device dev = creation_device(device);
  Tensor t = ember::empty(size, dt, dev);
  rng::fill_normal(t, mean, std, resolve_generator(generator, dev));
  return t;
}

Tensor _normal_size_out(const Tensor& out, double mean, double std, const DimVec& size, GeneratorImpl* generator,
                        ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  check_std(std);
  rng::check_dtype("normal", out.dtype(), kFloatComplex);
  prepare_out("normal", out, size, dtype, device, requires_grad);
  rng::fill_normal(out, mean, std, resolve_generator(generator, out.device()));
  return out;
}

}  // namespace ops

}  // namespace ember
