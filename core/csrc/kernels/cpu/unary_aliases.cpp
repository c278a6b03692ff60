// PyTorch's alternative names for unary ops (arcsin, absolute, fix, ...), which forward to the op
// they name, plus the ops that are other ops: square (pow 2) and positive (the input itself).
#include "generated/ops/abs.h"
#include "generated/ops/absolute.h"
#include "generated/ops/acos.h"
#include "generated/ops/acosh.h"
#include "generated/ops/arccos.h"
#include "generated/ops/arccosh.h"
#include "generated/ops/arcsin.h"
#include "generated/ops/arcsinh.h"
#include "generated/ops/arctan.h"
#include "generated/ops/arctanh.h"
#include "generated/ops/asin.h"
#include "generated/ops/asinh.h"
#include "generated/ops/atan.h"
#include "generated/ops/atanh.h"
#include "generated/ops/fix.h"
#include "generated/ops/neg.h"
#include "generated/ops/negative.h"
#include "generated/ops/positive.h"
#include "generated/ops/pow.h"
#include "generated/ops/square.h"
#include "generated/ops/trunc.h"

namespace ember::ops {

#define EMBER_UNARY_ALIAS(alias, target)                            \
  Tensor alias(const Tensor& input) { return target(input); }       \
  Tensor alias##_(const Tensor& input) { return target##_(input); } \
  Tensor alias##_out(const Tensor& out, const Tensor& input) { return target##_out(out, input); }

EMBER_UNARY_ALIAS(absolute, abs)
EMBER_UNARY_ALIAS(negative, neg)
EMBER_UNARY_ALIAS(arcsin, asin)
EMBER_UNARY_ALIAS(arccos, acos)
EMBER_UNARY_ALIAS(arctan, atan)
EMBER_UNARY_ALIAS(arcsinh, asinh)
EMBER_UNARY_ALIAS(arccosh, acosh)
EMBER_UNARY_ALIAS(arctanh, atanh)
EMBER_UNARY_ALIAS(fix, trunc)

#undef EMBER_UNARY_ALIAS

// square is pow(input, 2) with 2 a Python int, so promotion follows pow's (bool -> int64).
namespace {
Tensor two() { return wrapped_scalar(Scalar(int64_t(2))); }
}  // namespace

Tensor square(const Tensor& input) { return pow(input, two()); }
Tensor square_(const Tensor& input) { return pow_(input, two()); }
Tensor square_out(const Tensor& out, const Tensor& input) { return pow_out(out, input, two()); }

Tensor positive(const Tensor& input) {
  EMBER_CHECK(input.dtype() != ScalarType::Bool, Runtime,
              "The `+` operator, on a bool tensor is not supported. (positive of a bool tensor)");
  return input;
}

}  // namespace ember::ops
