// Order-preserving unsigned keys for the sort family: each real dtype maps to an unsigned integer whose
// unsigned order is PyTorch's sort order (NaN largest and all NaNs equal, -0.0 == +0.0).
#pragma once
#include <cstdint>
#include <cstring>

#include "types/dtype.h"

namespace ember::sorting {

// SortKey<T>: U (the key type), bytes, key(v, exact) and value(key). `exact` is cleared when the key
// loses information (NaN payloads, the sign of -0.0): then values must be read back from the input.
template <class T>
struct SortKey;

template <>
struct SortKey<bool> {
  using U = uint8_t;
  static constexpr int bytes = 1;
  static U key(bool v, bool&) { return v; }
  static bool value(U k) { return k != 0; }
};
template <>
struct SortKey<uint8_t> {
  using U = uint8_t;
  static constexpr int bytes = 1;
  static U key(uint8_t v, bool&) { return v; }
  static uint8_t value(U k) { return k; }
};

// Signed integers: flipping the sign bit makes two's complement order unsigned.
template <class S, class UU>
struct SignedKey {
  using U = UU;
  static constexpr int bytes = sizeof(U);
  static constexpr U kSign = U(U(1) << (8 * sizeof(U) - 1));
  static U key(S v, bool&) { return U(U(v) ^ kSign); }
  static S value(U k) { return S(U(k ^ kSign)); }
};
template <>
struct SortKey<int8_t> : SignedKey<int8_t, uint8_t> {};
template <>
struct SortKey<int16_t> : SignedKey<int16_t, uint16_t> {};
template <>
struct SortKey<int32_t> : SignedKey<int32_t, uint32_t> {};
template <>
struct SortKey<int64_t> : SignedKey<int64_t, uint64_t> {};

// IEEE floats given by their bits: negatives reverse (all bits flipped), positives go above them.
template <class UU, UU kAbsMask, UU kInf>
struct BitsKey {
  using U = UU;
  static constexpr int bytes = sizeof(U);
  static constexpr U kSign = U(~kAbsMask);
  static U key_bits(U u, bool& exact) {
    const U a = U(u & kAbsMask);
    if (a > kInf) {  // every NaN becomes the largest key
      exact = false;
      return U(~U(0));
    }
    if (a == 0) {  // -0.0 sorts with +0.0
      exact &= u == 0;
      return kSign;
    }
    return (u & kSign) ? U(~u) : U(u | kSign);
  }
  static U bits_of(U k) { return (k & kSign) ? U(k & kAbsMask) : U(~k); }
};
using F32Bits = BitsKey<uint32_t, 0x7fffffffu, 0x7f800000u>;
using F64Bits = BitsKey<uint64_t, 0x7fffffffffffffffull, 0x7ff0000000000000ull>;
using HalfBits = BitsKey<uint16_t, 0x7fff, 0x7c00>;
using BF16Bits = BitsKey<uint16_t, 0x7fff, 0x7f80>;

template <>
struct SortKey<float> : F32Bits {
  static U key(float v, bool& exact) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return key_bits(u, exact);
  }
  static float value(U k) {
    const uint32_t u = bits_of(k);
    float v;
    std::memcpy(&v, &u, 4);
    return v;
  }
};
template <>
struct SortKey<double> : F64Bits {
  static U key(double v, bool& exact) {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    return key_bits(u, exact);
  }
  static double value(U k) {
    const uint64_t u = bits_of(k);
    double v;
    std::memcpy(&v, &u, 8);
    return v;
  }
};
template <>
struct SortKey<Half> : HalfBits {
  static U key(Half v, bool& exact) { return key_bits(v.x, exact); }
  static Half value(U k) {
    Half h;
    h.x = bits_of(k);
    return h;
  }
};
template <>
struct SortKey<BFloat16> : BF16Bits {
  static U key(BFloat16 v, bool& exact) { return key_bits(v.x, exact); }
  static BFloat16 value(U k) {
    BFloat16 h;
    h.x = bits_of(k);
    return h;
  }
};

// Whether v is NaN, for any real dtype (false for integers).
template <class T>
inline bool is_nan_value(T v) {
  if constexpr (std::is_same_v<T, Half>)
    return (v.x & 0x7fff) > 0x7c00;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return (v.x & 0x7fff) > 0x7f80;
  else if constexpr (std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}

}  // namespace ember::sorting
