// Forward-mode AD by double backward: for y = op(x), g(u) = vjp(u) = J^H u is linear in u, and
// the vjp of g at the tangent t is (J^H)^H t = J t. Both passes run through the ops' recorded
// backward formulas, so a forward derivative exists wherever a backward one does.
#include "autograd/forward_ad.h"

#include <algorithm>
#include <mutex>

#include "autograd/engine.h"
#include "autograd/formulas.h"

namespace ember::autograd::forward {

std::atomic<uint64_t> live_level{0};

namespace {

std::atomic<uint64_t> next_id{1};
thread_local int suspend_depth = 0;

// Every tangent slot given a tangent at the live level, so that leaving the level drops the
// tangents (a tangent's graph can reach back to its own slot through a saved output: only
// clearing breaks that cycle).
std::mutex registry_mutex;
std::vector<std::weak_ptr<ForwardGrad>> registry;
size_t pruned_at = 64;

void remember(const std::shared_ptr<ForwardGrad>& slot) {
  std::lock_guard<std::mutex> g(registry_mutex);
  registry.push_back(slot);
  if (registry.size() > 2 * pruned_at) {  // long levels: forget the slots that are gone
    registry.erase(std::remove_if(registry.begin(), registry.end(), [](const auto& w) { return w.expired(); }),
                   registry.end());
    pruned_at = std::max<size_t>(64, registry.size());
  }
}

// The capture pass of the engine: d(outputs)/d(inputs) . grads, graph kept (and recorded when
// create_graph), undefined where an input is not reached.
variable_list vjp(const variable_list& outputs, const variable_list& grads, const variable_list& inputs,
                  bool create_graph) {
  std::vector<Edge> roots;
  variable_list gs;
  for (size_t i = 0; i < outputs.size(); i++) {
    roots.push_back(gradient_edge(outputs[i]));
    gs.push_back(grads[i]);
  }
  BackwardOptions opt;
  opt.keep_graph = true;
  opt.create_graph = create_graph;
  opt.accumulate_grad = false;
  for (const Tensor& x : inputs) opt.capture.push_back(gradient_edge(x));
  return run_backward(roots, gs, opt);
}

bool floating(const Tensor& t) { return t.defined() && (is_floating(t.dtype()) || is_complex(t.dtype())); }

// An in-place write through a view changes its base too: the base's tangent, laid out like the
// base's storage, takes the view's new tangent in the view's place, and the view's tangent becomes
// that region (so later writes through either are seen by both).
void set_tangent_through_view(const Tensor& view, const Tensor& t) {
  AutogradMeta* m = meta(view);
  if (!m || !m->base.defined()) return set_tangent(view, t);
  const Tensor base = m->base;
  Tensor layout = tangent(base);
  if (!layout.defined() || layout.strides() != base.strides() || layout.offset() != base.offset()) {
    const int64_t n = base.impl()->storage->nbytes / int64_t(base.itemsize());
    Tensor fresh = ops::as_strided(ops::zeros({n}, base.dtype(), base.device(), false), base.sizes(), base.strides(),
                                   base.offset());
    if (layout.defined()) ops::copy_(fresh, layout, false);
    layout = fresh;
  }
  Tensor region = ops::as_strided(layout, view.sizes(), view.strides(), view.offset());
  ops::copy_(region, t, false);
  set_tangent(base, layout);
  set_tangent(view, region);
}

}  // namespace

bool suspended() { return suspend_depth > 0; }
void suspend_begin() { suspend_depth++; }
void suspend_end() { suspend_depth--; }

int64_t enter_level() {
  uint64_t expected = 0, id = next_id.fetch_add(1);
  EMBER_CHECK(live_level.compare_exchange_strong(expected, id), Runtime,
              "Nested forward mode AD is not supported: exit the current dual_level first");
  return 0;
}

void exit_level(int64_t level) {
  EMBER_CHECK(level == 0 && live_level.load() != 0, Runtime,
              "Trying to exit a forward AD level that was not the "
              "last one entered (",
              level, ")");
  live_level.store(0);  // every tangent set at that level is now stale; release them
  std::lock_guard<std::mutex> g(registry_mutex);
  for (const auto& w : registry)
    if (auto slot = w.lock()) {
      slot->tangent = Tensor();
      slot->level = 0;
    }
  registry.clear();
  pruned_at = 64;
}

int64_t current_level() { return live_level.load() ? 0 : -1; }

Tensor tangent(const Tensor& t) {
  AutogradMeta* m = meta(t);
  const uint64_t live = live_level.load(std::memory_order_relaxed);
  if (!m || !m->fw || !live || m->fw->level != live) return Tensor();
  return m->fw->tangent;
}

bool has_tangent(const Tensor& t) { return tangent(t).defined(); }

bool any_tangent(const variable_list& ts) {
  if (!active()) return false;
  for (const Tensor& t : ts)
    if (has_tangent(t)) return true;
  return false;
}

void set_tangent(const Tensor& t, const Tensor& tangent) {
  AutogradMeta& m = materialize_meta(t);
  if (!m.fw) m.fw = std::make_shared<ForwardGrad>();
  m.fw->tangent = tangent;
  m.fw->level = tangent.defined() ? live_level.load() : 0;
  if (tangent.defined()) remember(m.fw);
}

Tensor make_dual(const Tensor& primal, const Tensor& tangent, int64_t level) {
  EMBER_CHECK(live_level.load() != 0 && level == 0, Runtime, "make_dual: level ", level,
              " is not a live forward AD "
              "level; make dual tensors inside `with dual_level():`");
  EMBER_CHECK(floating(primal), Runtime, "make_dual: expected primal to be floating point or complex, but got ",
              dtype_name(primal.dtype()));
  EMBER_CHECK(tangent.sizes() == primal.sizes(), Runtime, "make_dual: trying to set a tangent of shape ",
              tangent.sizes(), " on a primal of shape ", primal.sizes());
  EMBER_CHECK(tangent.dtype() == primal.dtype(), Runtime, "make_dual: expected tangent to have the primal's dtype ",
              dtype_name(primal.dtype()), ", but got ", dtype_name(tangent.dtype()));
  EMBER_CHECK(tangent.device() == primal.device(), Runtime, "make_dual: tangent and primal must be on the same device");
  Suspend s;
  // A view that keeps the primal's reverse-mode history (as PyTorch's make_dual does).
  Tensor dual = requires_grad(primal) && GradMode::is_enabled()
                    ? ad::as_strided(primal, primal.sizes(), primal.strides(), primal.offset())
                    : alias(primal);
  set_tangent(dual, tangent);
  return dual;
}

variable_list propagate(const variable_list& inputs, const std::function<variable_list(const variable_list&)>& op,
                        bool inplace) {
  Suspend s;
  const bool outer_grad = GradMode::is_enabled();
  GradModeGuard on(true);
  // The primals op runs on: inputs that require grad as they are (their history stays), the
  // others with a tangent as fresh leaves that require grad (to be differentiated against).
  // Each argument with a tangent gets its own stand-in, so that J_i is the derivative through that
  // argument alone (x * x, or y.add_(x) with y made from x, must not count a path twice): a fresh
  // leaf when it does not require grad, else a recorded view of it (whose history keeps the
  // outputs' and the tangents' graphs joined to the real input).
  variable_list primals = inputs, tangents(inputs.size()), wrt, wrt_tangents;
  bool any_requires = false;
  for (size_t i = 0; i < inputs.size(); i++) {
    const Tensor& x = inputs[i];
    if (!x.defined()) continue;
    any_requires = any_requires || (outer_grad && requires_grad(x));
    tangents[i] = tangent(x);
    if (!tangents[i].defined()) continue;
    if (!requires_grad(x)) {
      primals[i] = alias(x);
      set_requires_grad(primals[i], true);
    } else {
      primals[i] = ad::as_strided(x, x.sizes(), x.strides(), x.offset());
    }
    // The stand-in carries the tangent too: backward formulas that use what the op saved then
    // propagate it (forward-over-reverse).
    set_tangent(primals[i], tangents[i]);
    wrt.push_back(primals[i]);
    wrt_tangents.push_back(tangents[i]);
  }
  if (inplace) primals[0] = ad::clone(primals[0]);  // op writes its copy; inputs[0] is written below
  const Tensor written = inplace ? primals[0] : Tensor();
  const DimVec written_sizes = inplace ? written.sizes() : DimVec{},
               written_strides = inplace ? written.strides() : DimVec{};
  variable_list outs = op(primals);
  // An in-place view op (t_, squeeze_...) changed its copy's geometry, which a copy into inputs[0] cannot
  // carry over: refused by name rather than written wrongly.
  EMBER_CHECK(
      !inplace || (written.sizes() == written_sizes && written.strides() == written_strides && written.offset() == 0),
      NotImplemented,
      "forward-mode AD of an in-place view op (t_, transpose_, squeeze_, unsqueeze_, as_strided_) is not "
      "supported; use its out-of-place form");
  // g(u) = J^H u for every output u, recorded; then J t = the vjp of g at t.
  variable_list diff, us;
  for (const Tensor& y : outs)
    if (floating(y) && requires_grad(y)) {
      diff.push_back(y);
      us.push_back(ops::zeros_like(y, ScalarType::Undefined, std::nullopt, false));
      set_requires_grad(us.back(), true);
    }
  variable_list out_tangents(outs.size());
  if (!diff.empty()) {
    variable_list g = vjp(diff, us, wrt, true);
    variable_list gs, ts;
    for (size_t i = 0; i < g.size(); i++)
      if (g[i].defined() && requires_grad(g[i])) {
        gs.push_back(g[i]);
        ts.push_back(wrt_tangents[i]);
      }
    // The tangents are differentiable (forward-over-reverse) when a primal or a tangent requires grad.
    bool graph = any_requires;
    for (const Tensor& t : wrt_tangents) graph = graph || (outer_grad && requires_grad(t));
    variable_list jt = gs.empty() ? variable_list(us.size()) : vjp(gs, ts, us, graph);
    for (size_t k = 0, d = 0; k < outs.size(); k++) {
      if (!(floating(outs[k]) && requires_grad(outs[k]))) continue;
      Tensor t = jt[d++];
      out_tangents[k] = t.defined() ? t : ops::zeros_like(outs[k], ScalarType::Undefined, std::nullopt, false);
      if (!graph) out_tangents[k] = alias(out_tangents[k]);
    }
  }
  // Outputs keep the graph only when an input really requires grad (then the edges to the
  // stand-in leaves above are dead ends no gradient is read from).
  for (Tensor& y : outs)
    if (y.defined() && !any_requires && requires_grad(y)) y = alias(y);
  if (inplace) {
    const Tensor& self = inputs[0];
    {
      GradModeGuard g(outer_grad);
      if (outer_grad && any_requires)
        ad::copy_(self, outs[0], false);
      else
        ops::copy_(self, outs[0], false);
    }
    outs[0] = self;
  }
  for (size_t k = 0; k < outs.size(); k++) {
    if (!out_tangents[k].defined()) continue;
    if (inplace && k == 0)
      set_tangent_through_view(outs[k], out_tangents[k]);
    else
      set_tangent(outs[k], out_tangents[k]);
  }
  return outs;
}

}  // namespace ember::autograd::forward
