// SoX's `tempo` (duration changed, pitch kept) by WSOLA, in float32 as SoX runs it: segments of the input,
// each placed where its first `overlap` samples best match (least squares over all channels, linear or
// hierarchical search) the previous segment's tail, cross-faded linearly; the input is advanced by
// factor * (segment - overlap) per segment. The input starts with search / 2 zeros and ends with zero
// padding until the output holds round(frames / factor) samples.
#include <ember/extension.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace emberaudio {

namespace {

using ember::Tensor;

struct Wsola {
  int64_t channels, segment, search, overlap;
  double factor;
  bool quick;

  float difference(const float* a, const float* b) const {
    float diff = 0;
    for (int64_t i = 0; i < channels * overlap; i++) diff += (a[i] - b[i]) * (a[i] - b[i]);
    return diff;
  }

  // Offset in [0, search) of the window (interleaved frames) that best continues `tail`.
  int64_t best_offset(const float* window, const float* tail) const {
    int64_t prev = (search + 1) >> 1, best = quick ? prev : 0;
    float least = difference(window + channels * best, tail);
    if (quick) {
      for (int64_t step = 64; step; step >>= 2) {
        for (int k = -1; k <= 1; k += 2)
          for (int64_t j = 1; j < 4 || step == 64; j++) {
            const int64_t i = prev + k * j * step;
            if (i < 0 || i >= search) break;
            const float diff = difference(window + channels * i, tail);
            if (diff < least) least = diff, best = i;
          }
        prev = best;
      }
    } else {
      for (int64_t i = 1; i < search; i++) {
        const float diff = difference(window + channels * i, tail);
        if (diff < least) least = diff, best = i;
      }
    }
    return best;
  }
};

// x: interleaved (frames, channels) float32. Returns interleaved output frames.
std::vector<float> wsola(const Wsola& w, const float* x, int64_t frames) {
  const int64_t c = w.channels, max_skip = int64_t(std::ceil(w.factor * double(w.segment - w.overlap)));
  const int64_t process_size = std::max(max_skip + w.overlap, w.segment) + w.search;
  const int64_t wanted = int64_t(double(frames) / w.factor + 0.5);
  // The input as SoX's fifo sees it: search / 2 leading zeros, the signal, then zeros in blocks of 128.
  std::vector<float> in(size_t((w.search / 2 + frames) * c), 0.0f);
  std::memcpy(in.data() + (w.search / 2) * c, x, size_t(frames * c) * sizeof(float));
  std::vector<float> out, tail(size_t(w.overlap * c));
  int64_t read = 0, segments = 0, skip_total = 0;
  auto occupancy = [&] { return int64_t(in.size()) / c - read; };
  auto process = [&] {
    while (occupancy() >= process_size) {
      const float* window = in.data() + read * c;
      int64_t offset;
      if (segments == 0) {
        offset = w.search / 2;
        out.insert(out.end(), window + offset * c, window + (offset + w.overlap) * c);
      } else {
        offset = w.best_offset(window, tail.data());
        const float* next = window + offset * c;
        const float fade_step = 1.0f / float(w.overlap);
        for (int64_t i = 0; i < w.overlap; i++) {
          const float fade_in = fade_step * float(i), fade_out = 1.0f - fade_in;
          for (int64_t j = 0; j < c; j++) out.push_back(tail[size_t(i * c + j)] * fade_out + next[i * c + j] * fade_in);
        }
      }
      out.insert(out.end(), window + (offset + w.overlap) * c, window + (offset + w.segment - w.overlap) * c);
      std::memcpy(tail.data(), window + (offset + w.segment - w.overlap) * c, tail.size() * sizeof(float));
      const int64_t skip = int64_t(w.factor * double(++segments * (w.segment - w.overlap)) + 0.5) - skip_total;
      skip_total += skip;
      read += skip;
    }
  };
  process();
  while (int64_t(out.size()) / c < wanted) {
    in.resize(in.size() + size_t(128 * c), 0.0f);
    process();
  }
  out.resize(size_t(wanted * c));
  return out;
}

// waveform: (channels, frames) float32. segment/search/overlap in frames (SoX's rounding done in Python).
Tensor tempo(const Tensor& waveform, double factor, int64_t segment, int64_t search, int64_t overlap, bool quick) {
  EMBER_CHECK(waveform.device().type == ember::DeviceType::CPU && waveform.dtype() == ember::ScalarType::Float32, Type,
              "tempo: waveform must be a float32 CPU tensor, got ", ember::dtype_name(waveform.dtype()));
  EMBER_CHECK(waveform.dim() == 2, Runtime, "tempo: waveform must be (channels, time), got ", waveform.dim(), "-d");
  EMBER_CHECK(factor > 0 && segment >= 2 * overlap && overlap > 0 && search >= 0, Value,
              "tempo: invalid parameters (factor ", factor, ", segment ", segment, ", search ", search, ", overlap ",
              overlap, ")");
  const int64_t channels = waveform.size(0), frames = waveform.size(1);
  EMBER_CHECK(channels > 0, Runtime, "tempo: waveform has no channels");
  // interleave, as SoX's multi-channel fifo holds it
  const Tensor x = ember::contiguous(waveform);
  std::vector<float> inter(size_t(channels * frames));
  for (int64_t ch = 0; ch < channels; ch++)
    for (int64_t i = 0; i < frames; i++) inter[size_t(i * channels + ch)] = x.data_as<float>()[ch * frames + i];
  const std::vector<float> out = wsola({channels, segment, search, overlap, factor, quick}, inter.data(), frames);
  const int64_t out_frames = int64_t(out.size()) / std::max<int64_t>(channels, 1);
  Tensor result = ember::empty({channels, out_frames}, ember::ScalarType::Float32);
  float* r = result.data_as<float>();
  for (int64_t ch = 0; ch < channels; ch++)
    for (int64_t i = 0; i < out_frames; i++) r[ch * out_frames + i] = out[size_t(i * channels + ch)];
  return result;
}

}  // namespace

}  // namespace emberaudio

EMBER_LIBRARY(audio, m) {
  m.def("_tempo(Tensor waveform, float factor, int segment, int search, int overlap, bool quick) -> Tensor",
        emberaudio::tempo);
}
