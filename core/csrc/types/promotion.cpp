// Type promotion rules (see promotion.h); categories are bool < integer < floating < complex.
#include "types/promotion.h"

namespace ember {

namespace {
ScalarType g_default_dtype = ScalarType::Float32;

int category(ScalarType t) { return t == ScalarType::Bool ? 0 : is_integral(t, false) ? 1 : is_floating(t) ? 2 : 3; }

ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return promote_types(a, b);
}

ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_complex(higher)) return higher;
  if (is_complex(lower)) return is_floating(higher) ? to_complex(higher) : lower;
  if (is_floating(higher)) return higher;
  if (higher == ScalarType::Bool || is_floating(lower)) return promote_skip_undefined(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}
}  // namespace

ScalarType default_dtype() { return g_default_dtype; }
void set_default_dtype(ScalarType t) {
  EMBER_CHECK(is_floating(t) && t != ScalarType::Float16 && t != ScalarType::BFloat16, Type,
              "only floating-point types are supported as the default type (float32 or float64), got ", dtype_name(t));
  g_default_dtype = t;
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  using S = ScalarType;
  if (a == b) return a;
  if (a == S::Undefined || b == S::Undefined) return S::Undefined;
  if (a == S::Bool) return b;
  if (b == S::Bool) return a;
  int ca = category(a), cb = category(b);
  if (ca == 1 && cb == 1) {
    if (a == S::UInt8 || b == S::UInt8) {
      S other = a == S::UInt8 ? b : a;
      return other == S::Int8 ? S::Int16 : other;
    }
    return a > b ? a : b;
  }
  if (ca == 3 || cb == 3) {
    bool wide = a == S::Float64 || b == S::Float64 || a == S::Complex128 || b == S::Complex128;
    return wide ? S::Complex128 : S::Complex64;
  }
  if (ca == 2 && cb == 2) {
    if ((a == S::Float16 && b == S::BFloat16) || (a == S::BFloat16 && b == S::Float16)) return S::Float32;
    return a > b ? a : b;
  }
  return ca == 2 ? a : b;  // one floating, one integer
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && is_integral(to, false)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

void ResultTypeState::add(ScalarType t, int64_t ndim, bool wrapped_number) {
  if (wrapped_number) {
    if (is_floating(t))
      t = default_dtype();
    else if (is_complex(t))
      t = default_complex_dtype();
    wrapped = promote_skip_undefined(wrapped, t);
  } else if (ndim == 0) {
    zero = promote_skip_undefined(zero, t);
  } else {
    dim = promote_skip_undefined(dim, t);
  }
}

ScalarType ResultTypeState::result() const { return combine_categories(dim, combine_categories(zero, wrapped)); }

}  // namespace ember
