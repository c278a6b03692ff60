// SavedVariable: save, version check and restore of the saved output's history.
#include "autograd/saved_variable.h"

#include "autograd/forward_ad.h"
#include "autograd/meta.h"
#include "base/error.h"
#include "types/dtype.h"

namespace ember::autograd {

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  EMBER_CHECK(!t.impl()->inference, Runtime,
              "Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal "
              "tensor and use it in autograd.");
  saved_ = true;
  version_ = current_version(t);
  was_output_ = is_output && requires_grad(t) && !is_leaf(t);
  if (was_output_) {
    output_nr_ = meta(t)->output_nr;
    data_ = alias(t);
    if (auto vf = std::dynamic_pointer_cast<ViewBackward>(grad_fn(t)); vf && is_view(t) && !vf->next_edges.empty()) {
      inplace_on_view_ = true;
      view_base_ = vf->base;
      view_ = vf->view;
      view_base_fn_ = vf->next_edges[0].fn;
      view_base_nr_ = vf->next_edges[0].input_nr;
    }
    // Under forward AD the output's tangent is set after the op records it: share its slot.
    if (forward::live_level.load(std::memory_order_relaxed)) {
      AutogradMeta& m = materialize_meta(t);
      if (!m.fw) m.fw = std::make_shared<ForwardGrad>();
      fw_ = m.fw;
    }
  } else {
    data_ = t;
  }
}

void SavedVariable::reset() {
  if (!saved_) return;
  data_ = Tensor();
  fw_.reset();
  view_base_fn_.reset();
  released_ = true;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& owner) const {
  if (!saved_) return Tensor();
  EMBER_CHECK(!released_, Runtime,
              "Trying to backward through the graph a second time (or directly access saved tensors after they "
              "have already been freed). Saved intermediate values of the graph are freed when you call "
              ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
              "graph a second time or if you need to access saved tensors after calling backward.");
  uint32_t now = current_version(data_);
  if (now != version_) {
    std::string who = owner ? owner->name() : std::string("its backward");
    EMBER_FAIL(Runtime,
               "one of the variables needed for gradient computation has been modified by an inplace "
               "operation: [",
               dtype_name(data_.dtype()), " ", data_.sizes(), "]",
               was_output_ ? ", which is output " + std::to_string(output_nr_) + " of " + who : ", saved by " + who,
               ", is at version ", now, "; expected version ", version_,
               " instead. Hint: enable anomaly detection to find the operation that failed to compute its "
               "gradient, with ember.autograd.set_detect_anomaly(True).");
  }
  if (!was_output_) return data_;
  Tensor t = alias(data_);
  AutogradMeta& m = materialize_meta(t);
  m.fw = fw_;
  if (inplace_on_view_) {
    if (auto base_fn = view_base_fn_.lock()) {  // alive while its CopySlices runs this node
      auto vf = std::make_shared<ViewBackward>();
      vf->base = view_base_;
      vf->view = view_;
      vf->next_edges.push_back(Edge{base_fn, view_base_nr_});
      m.output_nr = vf->add_input_metadata(t);
      m.grad_fn = vf;
      return t;
    }
  }
  m.grad_fn = owner;
  m.output_nr = output_nr_;
  return t;
}

}  // namespace ember::autograd
