// The device the factories create on when none is named (ember.set_default_device). Per thread,
// as PyTorch's: a thread starts on the cpu.
#pragma once
#include "device/device.h"

namespace ember {

Device default_device();
void set_default_device(Device d);

}  // namespace ember
