// Autograd state of tensors: requires_grad, gradient edges, history of outputs and in-place ops,
// and views (whose history is rebuilt from their base's after the base changes in place).
#include "autograd/meta.h"

#include "autograd/accumulate_grad.h"
#include "autograd/grad_mode.h"
#include "autograd/view_nodes.h"
#include "base/error.h"

namespace ember::autograd {

AutogradMeta::~AutogradMeta() {
  // A retained non-leaf that dies must not be written to by its grad_fn later.
  if (retains_grad && grad_fn) {
    auto& r = grad_fn->retained;
    for (size_t i = 0; i < r.size(); i++)
      if (r[i].second == owner) r.erase(r.begin() + i--);
  }
}

AutogradMeta& materialize_meta(const Tensor& t) {
  TensorImpl* impl = t.impl();
  if (!impl->autograd) {
    auto m = std::make_unique<AutogradMeta>();
    m->owner = impl;
    impl->autograd = std::move(m);
  }
  return *static_cast<AutogradMeta*>(impl->autograd.get());
}

uint32_t current_version(const Tensor& t) { return t.storage()->version.load(std::memory_order_relaxed); }

bool is_view(const Tensor& t) {
  AutogradMeta* m = meta(t);
  return m && m->base.defined();
}

std::shared_ptr<Node> grad_fn(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return nullptr;
  if (m->base.defined() && m->attr_version != current_version(t)) {
    // The base (or this view) was written in place since grad_fn was set: the view's value now
    // comes from the base's history.
    m->attr_version = current_version(t);
    if (requires_grad(m->base)) {
      auto fn = std::make_shared<ViewBackward>();
      fn->base = Geometry::of(m->base);
      fn->view = Geometry::of(t);
      fn->next_edges.push_back(gradient_edge(m->base));
      m->output_nr = fn->add_input_metadata(t);
      m->grad_fn = fn;
    } else {
      m->grad_fn = nullptr;
    }
  }
  return m->grad_fn;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta& m = materialize_meta(t);
  if (auto acc = m.grad_accumulator.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(t);
  m.grad_accumulator = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return Edge{};
  if (auto fn = grad_fn(t)) return Edge{fn, m->output_nr};
  if (m->requires_grad) return Edge{grad_accumulator(t), 0};
  return Edge{};
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn) {
  AutogradMeta& m = materialize_meta(t);
  m.output_nr = fn->add_input_metadata(t);
  m.grad_fn = fn;
  m.attr_version = current_version(t);
}

void mark_view(const Tensor& view, const Tensor& input) {
  if (view.is_same(input) || view.storage().get() != input.storage().get()) return;
  AutogradMeta* im = meta(input);
  Tensor base = im && im->base.defined() ? im->base : input;
  AutogradMeta& m = materialize_meta(view);
  m.base = base;
  m.attr_version = current_version(view);
}

namespace {

// Stands in for a view's own (replaced) history as the first input of an in-place op recorded
// through CopySlices, so the op computes its first input's gradient; never run.
struct SelfGradSentinel final : Node {
  variable_list apply(variable_list&&) override { return {}; }
  std::string name() const override { return "SelfGradSentinel"; }
};

}  // namespace

void rebase_history(const Tensor& t, const std::shared_ptr<Node>& fn) {
  AutogradMeta& m = materialize_meta(t);
  if (m.base.defined()) {
    const Tensor& base = m.base;
    auto cs = std::make_shared<CopySlices>();
    cs->base = Geometry::of(base);
    cs->view = Geometry::of(t);
    cs->fn = fn;
    cs->next_edges.push_back(gradient_edge(base));
    for (size_t i = 1; i < fn->next_edges.size(); i++) cs->next_edges.push_back(fn->next_edges[i]);
    static const auto sentinel = std::make_shared<SelfGradSentinel>();
    if (!fn->next_edges.empty()) fn->next_edges[0] = Edge{sentinel, 0};
    fn->add_input_metadata(t);
    set_history(base, cs);
    // The view's own grad_fn is rebuilt from the base's on next use.
    m.grad_fn = nullptr;
    m.attr_version = current_version(t) - 1;
    return;
  }
  set_history(t, fn);
}

void check_inplace(const Tensor& t, bool records) {
  if (!records || !GradMode::is_enabled()) return;
  AutogradMeta* m = meta(t);
  if (!m) return;
  if (m->base.defined()) {
    AutogradMeta* bm = meta(m->base);
    EMBER_CHECK(!(bm && bm->requires_grad && !bm->grad_fn), Runtime,
                "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  EMBER_CHECK(!(m->requires_grad && !m->grad_fn && !m->base.defined()), Runtime,
              "a leaf Variable that requires grad is being used in an in-place operation.");
}

void set_requires_grad(const Tensor& t, bool on) {
  if (!on) {
    AutogradMeta* m = meta(t);
    EMBER_CHECK(!m || !m->grad_fn, Runtime,
                "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
                "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    if (m) m->requires_grad = false;
    return;
  }
  EMBER_CHECK(is_floating(t.dtype()) || is_complex(t.dtype()), Runtime,
              "only Tensors of floating point and complex dtype can require gradients (got ", dtype_name(t.dtype()),
              ")");
  EMBER_CHECK(!t.impl()->inference || InferenceMode::is_enabled(), Runtime,
              "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  AutogradMeta& m = materialize_meta(t);
  if (m.grad_fn) return;  // a non-leaf already requires grad
  m.requires_grad = true;
}

Tensor alias(const Tensor& t) {
  auto impl = make_intrusive<TensorImpl>();
  const TensorImpl* s = t.impl();
  impl->storage = s->storage;
  impl->sizes = s->sizes;
  impl->strides = s->strides;
  impl->offset = s->offset;
  impl->numel = s->numel;
  impl->dtype = s->dtype;
  impl->contiguous = s->contiguous;
  impl->inference = s->inference;
  return Tensor(std::move(impl));
}

}  // namespace ember::autograd
