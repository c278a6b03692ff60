// SoX's `reverb` (freeverb's design, as SoX 14.4 runs it, in float32): per input, eight damped comb filters
// in parallel then four all-pass filters in series, delay lengths scaled by room size and sample rate; a
// second filter bank with lengths shifted by the stereo depth gives the right channel. Mono input with a
// stereo depth becomes stereo; stereo input mixes both reverbs into each side; other inputs are processed
// channel by channel. Output length equals the input's (SoX's reverb has no tail drain).
#include <ember/extension.h>

#include <cmath>
#include <vector>

namespace emberaudio {

namespace {

using ember::Tensor;

constexpr int kCombs = 8, kAllpasses = 4;
constexpr double kCombLengths[kCombs] = {1116, 1188, 1277, 1356, 1422, 1491, 1557, 1617};
constexpr double kAllpassLengths[kAllpasses] = {225, 341, 441, 556};
constexpr double kStereoAdjust = 12;

// A delay line read and written at one position that moves backwards (SoX's filter_t).
struct DelayLine {
  std::vector<float> buffer;
  size_t pos = 0;
  float store = 0;
  explicit DelayLine(size_t size) : buffer(std::max<size_t>(size, 1), 0.0f) {}
  void advance() { pos = pos == 0 ? buffer.size() - 1 : pos - 1; }
  float comb(float in, float feedback, float damping) {
    const float out = buffer[pos];
    store = out + (store - out) * damping;
    buffer[pos] = in + store * feedback;
    advance();
    return out;
  }
  float allpass(float in) {
    const float out = buffer[pos];
    buffer[pos] = in + out * 0.5f;
    advance();
    return out - in;
  }
};

struct FilterBank {
  std::vector<DelayLine> combs, allpasses;
  FilterBank(double rate, double scale, double offset) {
    const double r = rate * (1 / 44100.);
    for (int i = 0; i < kCombs; i++, offset = -offset)
      combs.emplace_back(size_t(scale * r * (kCombLengths[i] + kStereoAdjust * offset) + .5));
    for (int i = 0; i < kAllpasses; i++, offset = -offset)
      allpasses.emplace_back(size_t(r * (kAllpassLengths[i] + kStereoAdjust * offset) + .5));
  }
  float process(float in, float feedback, float damping, float gain) {
    float out = 0;
    for (int i = kCombs - 1; i >= 0; i--) out += combs[size_t(i)].comb(in, feedback, damping);
    for (int i = kAllpasses - 1; i >= 0; i--) out = allpasses[size_t(i)].allpass(out);
    return out * gain;
  }
};

struct ReverbParams {
  double rate, reverberance, hf_damping, room_scale, stereo_depth, pre_delay, wet_gain;
};

// One input channel through its (one or two) filter banks: wet[w][i] for w < banks.
std::vector<std::vector<float>> wet_of(const float* dry, int64_t len, const ReverbParams& p, double depth) {
  const int64_t delay = int64_t(p.pre_delay / 1000 * p.rate + .5);
  const double scale = p.room_scale / 100 * .9 + .1;
  const double a = -1 / std::log(1 - .3), b = 100 / (std::log(1 - .98) * a + 1);
  const float feedback = float(1 - std::exp((p.reverberance - b) / (a * b)));
  const float damping = float(p.hf_damping / 100 * .3 + .2);
  const float gain = float(std::exp(p.wet_gain * std::log(10.) * 0.05) * .015);
  const int banks = int(std::ceil(depth)) + 1;
  std::vector<std::vector<float>> wet(static_cast<size_t>(banks), std::vector<float>(static_cast<size_t>(len)));
  for (int w = 0; w < banks; w++) {
    FilterBank bank(p.rate, scale, w * depth);
    for (int64_t i = 0; i < len; i++) {
      const float in = i >= delay ? dry[i - delay] : 0.0f;
      wet[size_t(w)][size_t(i)] = bank.process(in, feedback, damping, gain);
    }
  }
  return wet;
}

Tensor reverb(const Tensor& waveform, double rate, double reverberance, double hf_damping, double room_scale,
              double stereo_depth, double pre_delay, double wet_gain, bool wet_only) {
  EMBER_CHECK(waveform.device().type == ember::DeviceType::CPU && waveform.dtype() == ember::ScalarType::Float32, Type,
              "reverb: waveform must be a float32 CPU tensor, got ", ember::dtype_name(waveform.dtype()));
  EMBER_CHECK(waveform.dim() == 2 && waveform.size(0) > 0, Runtime, "reverb: waveform must be (channels, time)");
  const int64_t channels = waveform.size(0), len = waveform.size(1);
  const double depth = channels > 2 ? 0.0 : stereo_depth / 100;  // SoX ignores the depth beyond stereo
  const ReverbParams p{rate, reverberance, hf_damping, room_scale, stereo_depth, pre_delay, wet_gain};
  const Tensor x = ember::contiguous(waveform);
  const float* xs = x.data_as<float>();
  const float dry_gain = wet_only ? 0.0f : 1.0f;
  const bool stereo_out = depth > 0 && channels <= 2;
  const int64_t out_channels = stereo_out ? 2 : channels;
  Tensor out = ember::empty({out_channels, len}, ember::ScalarType::Float32);
  float* os = out.data_as<float>();
  if (stereo_out && channels == 2) {
    const auto left = wet_of(xs, len, p, depth), right = wet_of(xs + len, len, p, depth);
    for (int64_t w = 0; w < 2; w++)
      for (int64_t i = 0; i < len; i++)
        os[w * len + i] =
            dry_gain * xs[w * len + i] + 0.5f * (left[size_t(w)][size_t(i)] + right[size_t(w)][size_t(i)]);
  } else if (stereo_out) {
    const auto wet = wet_of(xs, len, p, depth);
    for (int64_t w = 0; w < 2; w++)
      for (int64_t i = 0; i < len; i++) os[w * len + i] = dry_gain * xs[i] + wet[size_t(w)][size_t(i)];
  } else {
    for (int64_t c = 0; c < channels; c++) {
      const auto wet = wet_of(xs + c * len, len, p, 0.0);
      for (int64_t i = 0; i < len; i++) os[c * len + i] = dry_gain * xs[c * len + i] + wet[0][size_t(i)];
    }
  }
  return out;
}

}  // namespace

}  // namespace emberaudio

EMBER_LIBRARY(audio, m) {
  m.def(
      "_reverb(Tensor waveform, float rate, float reverberance, float hf_damping, float room_scale, "
      "float stereo_depth, float pre_delay, float wet_gain, bool wet_only) -> Tensor",
      emberaudio::reverb);
}
