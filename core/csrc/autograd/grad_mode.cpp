// Storage of the thread-local modes. Grad mode is per thread as in PyTorch; anomaly mode is global.
#include "autograd/grad_mode.h"

#include <atomic>

#include "tensor/tensor_impl.h"

namespace ember::autograd {

namespace {
thread_local bool grad_enabled = true;
thread_local bool inference_enabled = false;
std::atomic<bool> anomaly_enabled{false};
std::atomic<bool> anomaly_check_nan{true};
}  // namespace

bool GradMode::is_enabled() { return grad_enabled; }
void GradMode::set_enabled(bool on) { grad_enabled = on; }
bool InferenceMode::is_enabled() { return inference_enabled; }
void InferenceMode::set_enabled(bool on) {
  inference_enabled = on;
  tls_inference_mode() = on;
}
bool AnomalyMode::is_enabled() { return anomaly_enabled.load(std::memory_order_relaxed); }
bool AnomalyMode::check_nan() { return anomaly_check_nan.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool on, bool check_nan) {
  anomaly_enabled = on;
  anomaly_check_nan = check_nan;
}

}  // namespace ember::autograd
