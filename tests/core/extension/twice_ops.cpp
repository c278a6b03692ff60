// An extension built with CMake (find_package(Ember) + ember_add_extension) for
// tests/core/test_cpp_extension.py: twice(x) = x + x through the core's add op.
#include <ember/extension.h>

namespace {
ember::Tensor twice(const ember::Tensor& x) { return ember::ops::add(x, x, ember::Scalar(int64_t(1))); }
}  // namespace

EMBER_LIBRARY(cmake_ext, m) { m.def("twice(Tensor x) -> Tensor", twice); }
