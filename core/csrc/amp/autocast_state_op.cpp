// The CPU autocast state as an op-table op (aten::is_autocast_cpu_enabled, PyTorch's name), so scripted code
// can ask whether it runs inside an autocast region: ember.is_autocast_enabled('cpu') compiles to it.
#include "amp/autocast_state.h"
#include "dispatch/library.h"

namespace {

bool is_autocast_cpu_enabled() { return ember::amp::cpu_active(); }

}  // namespace

EMBER_LIBRARY(aten, m) { m.def("is_autocast_cpu_enabled() -> bool", is_autocast_cpu_enabled); }
