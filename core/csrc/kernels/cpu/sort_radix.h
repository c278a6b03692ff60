// The sorting engine: stable LSD radix sorts of (key, index) items, and selection of the k-th item.
// Keys come from sort_keys.h; ties keep index order, so results never depend on the thread count.
#pragma once
#include <cstdint>

namespace ember::sorting {

// A key of up to 32 bits and an index below 2^32, packed as key << 32 | index: the u64 order is the
// (key, index) order, so a stable sort by key is a plain sort of the packed words.
inline uint64_t pack(uint64_t key, uint64_t index) { return key << 32 | index; }
inline uint64_t packed_key(uint64_t p) { return p >> 32; }
inline int64_t packed_index(uint64_t p) { return int64_t(p & 0xffffffffu); }

// A 64-bit key (or a row too long to pack) with its index, ordered by (key, index).
struct KeyIdx {
  uint64_t key;
  int64_t index;
  bool operator<(const KeyIdx& o) const { return key < o.key || (key == o.key && index < o.index); }
};

// Sorts a[0, n) by key (key_bytes low bytes of the key part), stably. tmp is scratch of n items.
// Returns whichever of a or tmp holds the result. `threads` > 1 splits the passes across threads.
uint64_t* sort_items(uint64_t* a, uint64_t* tmp, int64_t n, int key_bytes, int threads);
KeyIdx* sort_items(KeyIdx* a, KeyIdx* tmp, int64_t n, int key_bytes, int threads);

// Sorts packed items that already agree on every key bit from 32 + bits up (one bucket of a long
// row, see sort_long_row.h). Returns a or tmp, whichever holds the result.
uint64_t* sort_low_bits(uint64_t* a, uint64_t* tmp, int64_t n, int bits);

// Puts the k-th smallest item (0-based, in (key, index) order) at a[k], smaller ones before it.
void select_items(uint64_t* a, int64_t n, int64_t k);
void select_items(KeyIdx* a, int64_t n, int64_t k);

inline uint64_t item_key(uint64_t p) { return packed_key(p); }
inline uint64_t item_key(const KeyIdx& x) { return x.key; }
inline int64_t item_index(uint64_t p) { return packed_index(p); }
inline int64_t item_index(const KeyIdx& x) { return x.index; }

}  // namespace ember::sorting
