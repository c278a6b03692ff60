// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): the counter-based
// block function and the default CPU generator built on it (key = the 64-bit seed, counter = block index).
#pragma once
#include <cstdint>

#include "device/generator.h"

namespace ember {

// One block: ten rounds over the 128-bit counter `ctr` with the 64-bit key `key`.
void philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
// Blocks with counters (first + j, 0) for j < n (the 64-bit block index in words 0-1); 16 or 8 at a
// time with AVX-512 or AVX2 when the CPU has them.
void philox4x32_10_blocks(uint64_t first, int64_t n, const uint32_t key[2], uint32_t (*out)[4]);

Generator make_philox_generator(uint64_t seed, Device device = {});

}  // namespace ember
