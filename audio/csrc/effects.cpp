// The sample-by-sample loops of SoX's phaser and flanger (a modulated delay line fed back into itself), as
// SoX runs them: a ring buffer per row, read at a delay taken from a precomputed modulation table. The
// tables, gains and clamping are set up in Python (emberaudio/functional/_effects.py).
#include <ember/extension.h>

#include <cmath>
#include <vector>

namespace emberaudio {

namespace {

using ember::Tensor;

void check_signal(const Tensor& x, int64_t dims, const char* op) {
  EMBER_CHECK(x.device().type == ember::DeviceType::CPU, Value, op, ": waveform must be a CPU tensor");
  EMBER_CHECK(x.dtype() == ember::ScalarType::Float32 || x.dtype() == ember::ScalarType::Float64, Type, op,
              ": waveform must be float32 or float64, got ", ember::dtype_name(x.dtype()));
  EMBER_CHECK(x.dim() == dims, Runtime, op, ": expected a ", dims, "-d waveform, got ", x.dim(), "-d");
}

// x: (rows, time), already scaled by gain_in; mod: (table,) int64 delays in [1, buf_len]. Returns the
// signal before gain_out: t[i] = x[i] + buf[(pos + mod[i % table]) % buf_len], then buf[++pos] = t[i] * decay.
template <class T>
void phaser_rows(const Tensor& x, const Tensor& mod, double decay, int64_t buf_len, Tensor& out) {
  const int64_t rows = x.size(0), len = x.size(1), table = mod.size(0);
  const T* xs = x.data_as<T>();
  const int64_t* ms = mod.data_as<int64_t>();
  T* os = out.data_as<T>();
  ember::parallel_for(rows, 1, [&](int64_t lo, int64_t hi) {
    std::vector<T> buf(static_cast<size_t>(buf_len));
    for (int64_t r = lo; r < hi; r++) {
      std::fill(buf.begin(), buf.end(), T(0));
      int64_t pos = 0, mod_pos = 0;
      for (int64_t i = 0; i < len; i++) {
        const int64_t idx = (pos + ms[mod_pos]) % buf_len;
        mod_pos = (mod_pos + 1) % table;
        pos = (pos + 1) % buf_len;
        const T t = xs[r * len + i] + buf[size_t(idx)];
        buf[size_t(pos)] = t * T(decay);
        os[r * len + i] = t;
      }
    }
  });
}

Tensor phaser_loop(const Tensor& waveform, const Tensor& mod, double decay, int64_t buf_len) {
  check_signal(waveform, 2, "phaser");
  EMBER_CHECK(buf_len > 0, Value, "phaser: the delay buffer is empty (delay_ms * sample_rate < 0.5 ms)");
  EMBER_CHECK(mod.dtype() == ember::ScalarType::Int64 && mod.dim() == 1 && mod.size(0) > 0, Runtime,
              "phaser: the modulation table must be a non-empty 1-d int64 tensor");
  const Tensor x = ember::contiguous(waveform), m = ember::contiguous(mod);
  Tensor out = ember::empty(x.sizes(), x.dtype());
  if (x.dtype() == ember::ScalarType::Float32)
    phaser_rows<float>(x, m, decay, buf_len, out);
  else
    phaser_rows<double>(x, m, decay, buf_len, out);
  return out;
}

struct FlangerGains {
  double feedback, in, delay;
  int64_t buf_len;
  bool quadratic;
};

// x: (batch, channels, time); delays: (channels, time) fractional delays in samples. The ring buffer's
// write position moves backwards, and the read at delay d interpolates buf[pos + floor(d) + 0..2].
template <class T>
void flanger_rows(const Tensor& x, const Tensor& delays, const FlangerGains& g, Tensor& out) {
  const int64_t channels = x.size(1), len = x.size(2), rows = x.size(0) * channels, n = g.buf_len;
  const T* xs = x.data_as<T>();
  const T* ds = delays.data_as<T>();
  T* os = out.data_as<T>();
  ember::parallel_for(rows, 1, [&](int64_t lo, int64_t hi) {
    std::vector<T> buf(static_cast<size_t>(n));
    for (int64_t r = lo; r < hi; r++) {
      std::fill(buf.begin(), buf.end(), T(0));
      const T* xr = xs + r * len;
      const T* dr = ds + (r % channels) * len;
      T* o = os + r * len;
      int64_t pos = 0;
      T last = 0;
      for (int64_t i = 0; i < len; i++) {
        pos = (pos + n - 1) % n;
        const T whole = std::floor(dr[i]), frac = dr[i] - whole;
        const int64_t at = pos + int64_t(whole);
        buf[size_t(pos)] = xr[i] + last * T(g.feedback);
        const T d0 = buf[size_t(at % n)];
        T d1 = buf[size_t((at + 1) % n)];
        T delayed;
        if (!g.quadratic) {
          delayed = d0 + (d1 - d0) * frac;
        } else {
          const T d2 = buf[size_t((at + 2) % n)] - d0;
          d1 = d1 - d0;
          const T qa = d2 * T(0.5) - d1, qb = d1 * T(2) - d2 * T(0.5);
          delayed = d0 + (qa * frac + qb) * frac;
        }
        last = delayed;
        o[i] = xr[i] * T(g.in) + delayed * T(g.delay);
      }
    }
  });
}

Tensor flanger_loop(const Tensor& waveform, const Tensor& delays, double feedback_gain, double in_gain,
                    double delay_gain, int64_t buf_len, bool quadratic) {
  check_signal(waveform, 3, "flanger");
  EMBER_CHECK(delays.dtype() == waveform.dtype() && delays.dim() == 2 && delays.size(0) == waveform.size(1) &&
                  delays.size(1) == waveform.size(2),
              Runtime, "flanger: delays must be (channels, time) of the waveform's dtype, got shape ", delays.sizes());
  EMBER_CHECK(buf_len > 2, Value, "flanger: the delay buffer must hold more than 2 samples, got ", buf_len);
  const Tensor x = ember::contiguous(waveform), d = ember::contiguous(delays);
  Tensor out = ember::empty(x.sizes(), x.dtype());
  const FlangerGains g{feedback_gain, in_gain, delay_gain, buf_len, quadratic};
  if (x.dtype() == ember::ScalarType::Float32)
    flanger_rows<float>(x, d, g, out);
  else
    flanger_rows<double>(x, d, g, out);
  return out;
}

}  // namespace

}  // namespace emberaudio

EMBER_LIBRARY(audio, m) {
  m.def("_phaser_loop(Tensor waveform, Tensor mod, float decay, int buf_len) -> Tensor", emberaudio::phaser_loop);
  m.def(
      "_flanger_loop(Tensor waveform, Tensor delays, float feedback_gain, float in_gain, float delay_gain, "
      "int buf_len, bool quadratic) -> Tensor",
      emberaudio::flanger_loop);
}
