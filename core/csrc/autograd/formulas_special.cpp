// Backward helpers of the special functions (see formulas_special.h).
#include "autograd/formulas.h"

namespace ember::ad {

Tensor mvlgamma_backward(const Tensor& grad, const Tensor& input, int64_t p) {
  Tensor acc = digamma(input);
  for (int64_t j = 1; j < p; j++) acc = acc + digamma(input - 0.5 * double(j));
  return grad * acc;
}

}  // namespace ember::ad
