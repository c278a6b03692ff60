// deform_im2col: the sampling half of deform_conv2d (v1, and v2 with a mask). For every output
// position and kernel tap it reads the input bilinearly at the tap's grid position plus its learned
// offset, times the mask, into columns [B, C * KH * KW, OH * OW]; embervision.ops.deform_conv2d
// multiplies them by the weight. Backward gives the input's, offsets' and mask's gradients (the
// offsets' through the bilinear weights' derivatives).
#include <vector>

#include "common.h"

namespace embervision {

namespace {

struct Geometry {
  int64_t batch, channels, height, width, kh, kw, sh, sw, ph, pw, dh, dw, groups, out_h, out_w;
  int64_t taps() const { return kh * kw; }
  int64_t positions() const { return out_h * out_w; }
};

// Bilinear read with zero outside the image (deform_conv's rule: corners off the image count 0),
// and its derivatives along y and x.
template <class T>
struct Tap {
  T value = 0, dy = 0, dx = 0;
  int64_t at[4] = {-1, -1, -1, -1};
  T w[4] = {0, 0, 0, 0};
};

template <class T>
Tap<T> deform_sample(const T* p, int64_t height, int64_t width, T y, T x) {
  Tap<T> t;
  if (!(y > T(-1) && y < T(height) && x > T(-1) && x < T(width))) return t;
  const int64_t y0 = int64_t(std::floor(y)), x0 = int64_t(std::floor(x)), y1 = y0 + 1, x1 = x0 + 1;
  const T ly = y - T(y0), lx = x - T(x0), hy = 1 - ly, hx = 1 - lx;
  const bool in_y[2] = {y0 >= 0, y1 <= height - 1}, in_x[2] = {x0 >= 0, x1 <= width - 1};
  const int64_t ys[2] = {y0, y1}, xs[2] = {x0, x1};
  const T wy[2] = {hy, ly}, wx[2] = {hx, lx}, sy[2] = {-1, 1};
  for (int a = 0; a < 2; a++)
    for (int c = 0; c < 2; c++) {
      if (!in_y[a] || !in_x[c]) continue;
      const int q = 2 * a + c;
      t.at[q] = ys[a] * width + xs[c];
      t.w[q] = wy[a] * wx[c];
      const T v = p[t.at[q]];
      t.value += t.w[q] * v;
      t.dy += sy[a] * wx[c] * v;
      t.dx += sy[c] * wy[a] * v;
    }
  return t;
}

// Visits every (image, offset group) in parallel; within it every channel, tap and output position:
// f(b, c, tap, pos, offset_h index, mask index, y, x). Offsets are laid out [B, G * 2 * taps, OH, OW]
// with (dy, dx) pairs per tap, masks [B, G * taps, OH, OW].
template <class T, class F>
void for_each_tap(const Geometry& g, const T* offset, F f) {
  const int64_t per_group = g.channels / g.groups, L = g.positions();
  ember::parallel_for(g.batch * g.groups, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t bg = lo; bg < hi; bg++) {
      const int64_t b = bg / g.groups, grp = bg % g.groups;
      for (int64_t c = grp * per_group; c < (grp + 1) * per_group; c++)
        for (int64_t i = 0; i < g.kh; i++)
          for (int64_t j = 0; j < g.kw; j++) {
            const int64_t tap = i * g.kw + j;
            const int64_t off = ((b * g.groups + grp) * 2 * g.taps() + 2 * tap) * L;
            const int64_t msk = ((b * g.groups + grp) * g.taps() + tap) * L;
            for (int64_t oy = 0; oy < g.out_h; oy++)
              for (int64_t ox = 0; ox < g.out_w; ox++) {
                const int64_t pos = oy * g.out_w + ox;
                const T y = T(oy * g.sh - g.ph + i * g.dh) + offset[off + pos];
                const T x = T(ox * g.sw - g.pw + j * g.dw) + offset[off + L + pos];
                f(b, c, tap, pos, off + pos, msk + pos, y, x);
              }
          }
    }
  });
}

Geometry geometry(const Tensor& input, const Tensor& offset, const Tensor& mask, const std::vector<int64_t>& a) {
  const char* op = "deform_conv2d";
  check_features(input, op);
  EMBER_CHECK(offset.dtype() == input.dtype(), Type, op, ": offset must have the input's dtype");
  EMBER_CHECK(a[0] > 0 && a[1] > 0, Value, op, ": kernel size must be positive");
  EMBER_CHECK(a[2] > 0 && a[3] > 0, Value, op, ": stride must be positive, got (", a[2], ", ", a[3], ")");
  EMBER_CHECK(a[4] >= 0 && a[5] >= 0, Value, op, ": padding must be non-negative, got (", a[4], ", ", a[5], ")");
  EMBER_CHECK(a[6] > 0 && a[7] > 0, Value, op, ": dilation must be positive, got (", a[6], ", ", a[7], ")");
  Geometry g{input.size(0), input.size(1), input.size(2), input.size(3), a[0], a[1], a[2], a[3],
             a[4],          a[5],          a[6],          a[7],          0,    0,    0};
  g.out_h = (g.height + 2 * g.ph - (g.dh * (g.kh - 1) + 1)) / g.sh + 1;
  g.out_w = (g.width + 2 * g.pw - (g.dw * (g.kw - 1) + 1)) / g.sw + 1;
  EMBER_CHECK(g.out_h > 0 && g.out_w > 0, Runtime, op, ": the output would be empty: input ", g.height, "x", g.width,
              " is too small for kernel ", g.kh, "x", g.kw, " with this padding and dilation");
  EMBER_CHECK(offset.dim() == 4 && offset.size(0) == g.batch, Runtime, op,
              ": offset must be (batch, 2 * offset_groups * kh * kw, out_h, out_w), got shape ", offset.sizes());
  EMBER_CHECK(offset.size(1) % (2 * g.taps()) == 0 && offset.size(1) > 0, Runtime, op,
              ": offset.shape[1] must be a positive multiple of 2 * kh * kw = ", 2 * g.taps(), ", got ",
              offset.size(1));
  g.groups = offset.size(1) / (2 * g.taps());
  EMBER_CHECK(g.channels % g.groups == 0, Runtime, op, ": input channels (", g.channels,
              ") must be divisible by the number of offset groups (", g.groups, ")");
  EMBER_CHECK(offset.size(2) == g.out_h && offset.size(3) == g.out_w, Runtime, op, ": offset's spatial size (",
              offset.size(2), ", ", offset.size(3), ") must be the output's (", g.out_h, ", ", g.out_w, ")");
  if (mask.defined()) {
    EMBER_CHECK(mask.dtype() == input.dtype(), Type, op, ": mask must have the input's dtype");
    EMBER_CHECK(mask.dim() == 4 && mask.size(0) == g.batch && mask.size(1) == g.groups * g.taps() &&
                    mask.size(2) == g.out_h && mask.size(3) == g.out_w,
                Runtime, op, ": mask must be (", g.batch, ", ", g.groups * g.taps(), ", ", g.out_h, ", ", g.out_w,
                "), got shape ", mask.sizes());
  }
  return g;
}

Tensor deform_im2col(const Tensor& input, const Tensor& offset, const Tensor& mask, std::vector<int64_t> args) {
  EMBER_CHECK(args.size() == 8, Value, "deform_im2col: expected 8 geometry ints (kernel, stride, padding, dilation)");
  const Geometry g = geometry(input, offset, mask, args);
  Tensor cols = zeros({g.batch, g.channels * g.taps(), g.positions()}, input.dtype());
  if (cols.numel() == 0) return cols;
  const Tensor x = ember::contiguous(input), o = ember::contiguous(offset);
  const Tensor m = mask.defined() ? ember::contiguous(mask) : Tensor();
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T *in = x.data_as<T>(), *mk = m.defined() ? m.data_as<T>() : nullptr;
    T* out = cols.data_as<T>();
    const int64_t plane = g.height * g.width, L = g.positions();
    for_each_tap<T>(g, o.data_as<T>(),
                    [&](int64_t b, int64_t c, int64_t tap, int64_t pos, int64_t, int64_t mi, T y, T xx) {
                      const T v = deform_sample<T>(in + (b * g.channels + c) * plane, g.height, g.width, y, xx).value;
                      out[((b * g.channels + c) * g.taps() + tap) * L + pos] = mk ? v * mk[mi] : v;
                    });
  };
  if (input.dtype() == ember::ScalarType::Float32)
    run(float(0));
  else
    run(double(0));
  return cols;
}

std::vector<Tensor> deform_im2col_backward(const ember::BackwardArgs& a) {
  const Tensor input = a.inputs[0].to_tensor(), offset = a.inputs[1].to_tensor();
  const Tensor mask = a.inputs[2].is_none() ? Tensor() : a.inputs[2].to_tensor();
  const ember::DimVec& dims = a.inputs[3].to_int_list();
  const Geometry g = geometry(input, offset, mask, std::vector<int64_t>(dims.begin(), dims.end()));
  Tensor gi = zeros(input.sizes(), input.dtype()), go = zeros(offset.sizes(), offset.dtype());
  Tensor gm = mask.defined() ? zeros(mask.sizes(), mask.dtype()) : Tensor();
  const Tensor gc = ember::contiguous(a.grad_outputs[0]), x = ember::contiguous(input), o = ember::contiguous(offset);
  const Tensor m = mask.defined() ? ember::contiguous(mask) : Tensor();
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T *in = x.data_as<T>(), *mk = m.defined() ? m.data_as<T>() : nullptr, *gcol = gc.data_as<T>();
    T *gin = gi.data_as<T>(), *goff = go.data_as<T>(), *gmask = gm.defined() ? gm.data_as<T>() : nullptr;
    const int64_t plane = g.height * g.width, L = g.positions();
    for_each_tap<T>(
        g, o.data_as<T>(), [&](int64_t b, int64_t c, int64_t tap, int64_t pos, int64_t oi, int64_t mi, T y, T xx) {
          const int64_t base = (b * g.channels + c) * plane;
          const Tap<T> t = deform_sample<T>(in + base, g.height, g.width, y, xx);
          const T grad = gcol[((b * g.channels + c) * g.taps() + tap) * L + pos], scale = mk ? mk[mi] : T(1);
          for (int q = 0; q < 4; q++)
            if (t.at[q] >= 0) gin[base + t.at[q]] += grad * scale * t.w[q];
          goff[oi] += grad * scale * t.dy;
          goff[oi + L] += grad * scale * t.dx;
          if (gmask) gmask[mi] += grad * t.value;
        });
  };
  if (input.dtype() == ember::ScalarType::Float32)
    run(float(0));
  else
    run(double(0));
  return {gi, go, gm, Tensor()};
}

}  // namespace

}  // namespace embervision

EMBER_LIBRARY(vision, m) {
  m.def("deform_im2col(Tensor input, Tensor offset, Tensor? mask, int[] geometry) -> Tensor",
        embervision::deform_im2col);
  m.backward("deform_im2col", embervision::deform_im2col_backward);
}
