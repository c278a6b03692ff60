// Thread-local autograd modes: grad mode (no_grad / enable_grad), inference mode, anomaly mode.
#pragma once

namespace ember::autograd {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool on);
};

struct InferenceMode {
  static bool is_enabled();
  static void set_enabled(bool on);
};

struct AnomalyMode {
  static bool is_enabled();
  static bool check_nan();
  static void set_enabled(bool on, bool check_nan = true);
};

// Sets grad mode for a scope and restores the previous one.
class GradModeGuard {
  bool prev_;

 public:
  explicit GradModeGuard(bool on) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(on); }
  ~GradModeGuard() { GradMode::set_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;
};

struct NoGradGuard : GradModeGuard {
  NoGradGuard() : GradModeGuard(false) {}
};

}  // namespace ember::autograd
