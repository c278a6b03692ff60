// An extension whose kernel does not fit its schema (int in C++, float in the schema): loading it
// must raise a clear error, not crash.
#include <ember/extension.h>

namespace {
ember::Tensor shifted(const ember::Tensor& x, int64_t) { return x; }
}  // namespace

EMBER_LIBRARY(bad_ext, m) { m.def("shifted(Tensor x, float by) -> Tensor", shifted); }
