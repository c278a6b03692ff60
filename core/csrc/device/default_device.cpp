// The per-thread default factory device.
#include "device/default_device.h"

namespace ember {

namespace {
thread_local Device current_default;  // cpu
}  // namespace

Device default_device() { return current_default; }

void set_default_device(Device d) { current_default = d; }

}  // namespace ember
