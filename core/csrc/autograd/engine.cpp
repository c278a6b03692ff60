// run_backward: dependency counting over the reachable graph, a ready queue ordered by sequence
// number (later ops first), per-node input buffers that sum gradients, and checks that each
// gradient fits (shape, dtype) the input it flows into.
#include "autograd/engine.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/engine_callbacks.h"
#include "autograd/grad_mode.h"
#include "autograd/meta.h"
#include "base/error.h"
#include "base/trace.h"
#include "generated/ops.h"

namespace ember::autograd {

AnomalyHooks& anomaly_hooks() {
  static AnomalyHooks h;
  return h;
}

namespace {

bool expandable_to(const DimVec& from, const DimVec& to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); i++) {
    int64_t a = from[from.size() - 1 - i], b = to[to.size() - 1 - i];
    if (a != b && a != 1) return false;
  }
  return true;
}

// Sums grad (broadcast up to `sizes` in the forward) back down to `sizes`.
Tensor sum_to(const Tensor& grad, const DimVec& sizes) {
  const DimVec& gs = grad.sizes();
  int64_t lead = int64_t(gs.size()) - int64_t(sizes.size());
  DimVec dims;
  for (int64_t i = 0; i < int64_t(gs.size()); i++)
    if (i < lead || (sizes[i - lead] == 1 && gs[i] != 1)) dims.push_back(i);
  Tensor r = dims.empty() ? grad : ad::sum(grad, dims, true, ScalarType::Undefined);
  return lead > 0 || !dims.empty() ? ad::reshape(r, sizes) : r;
}

// Makes the gradient for input `i` of `fn` fit the forward tensor it belongs to.
Tensor validate(const Node& node, size_t i, Tensor g) {
  const Edge& e = node.next_edges[i];
  const InputMeta& m = e.fn->input_meta[e.input_nr];
  if (g.sizes() != m.sizes) {
    EMBER_CHECK(expandable_to(m.sizes, g.sizes()), Runtime, "Function ", node.name(),
                " returned an invalid gradient at index ", i, " - got ", g.sizes(),
                " but expected shape compatible with ", m.sizes);
    g = sum_to(g, m.sizes);
  }
  if (g.dtype() != m.dtype) {
    if (is_complex(g.dtype()) && !is_complex(m.dtype)) g = ad::real(g);
    if (g.dtype() != m.dtype) g = ad::_to_copy(g, m.dtype, std::nullopt);
  }
  return g;
}

bool has_nan(const Tensor& t) {
  if (!(is_floating(t.dtype()) || is_complex(t.dtype())) || t.is_meta()) return false;
  return ops::any(ops::isnan(t), std::nullopt, false).data_as<bool>()[0];
}

struct ReadyItem {
  uint64_t seq;
  Node* node;
  bool operator<(const ReadyItem& o) const { return seq < o.seq; }
};

}  // namespace

namespace {

variable_list run_graph(const std::vector<Edge>& roots, const variable_list& grads, const BackwardOptions& opt) {
  EMBER_CHECK(roots.size() == grads.size(), Runtime, "backward: ", roots.size(), " roots but ", grads.size(),
              " gradients");
  // The graph: every node reachable from the roots, with the number of edges into it.
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, std::shared_ptr<Node>> keep;  // alive for the whole run
  std::vector<Node*> order;                               // discovery order, for the pruning pass
  {
    std::vector<Node*> stack;
    for (const Edge& r : roots)
      if (r.valid() && !keep.count(r.fn.get())) {
        keep[r.fn.get()] = r.fn;
        stack.push_back(r.fn.get());
      }
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      order.push_back(n);
      for (const Edge& e : n->next_edges) {
        if (!e.valid()) continue;
        deps[e.fn.get()]++;
        if (!keep.count(e.fn.get())) {
          keep[e.fn.get()] = e.fn;
          stack.push_back(e.fn.get());
        }
      }
    }
  }
  // Captures: (node, input_nr) -> result slots.
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
  for (size_t i = 0; i < opt.capture.size(); i++)
    if (opt.capture[i].valid()) captures[opt.capture[i].fn.get()].push_back({opt.capture[i].input_nr, i});
  // With captures, run only nodes from which a captured node can be reached (`downstream`).
  std::unordered_set<Node*> downstream;
  const bool pruned = !opt.capture.empty();
  if (pruned) {
    auto wanted = [&](Node* x) { return captures.count(x) || downstream.count(x); };
    bool changed = true;
    while (changed) {  // a fixed point over the (acyclic) graph
      changed = false;
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        if (downstream.count(*it)) continue;
        for (const Edge& e : (*it)->next_edges)
          if (e.valid() && wanted(e.fn.get())) {
            downstream.insert(*it);
            changed = true;
            break;
          }
      }
    }
  }
  auto needed = [&](Node* x) { return !pruned || captures.count(x) || downstream.count(x); };
  variable_list captured(opt.capture.size());
  std::unordered_map<Node*, variable_list> buffers;
  auto add_to = [&](Node* n, uint32_t slot, Tensor g) {
    variable_list& b = buffers[n];
    if (b.size() < n->num_inputs()) b.resize(n->num_inputs());
    if (slot >= b.size()) b.resize(slot + 1);
    b[slot] = b[slot].defined() ? ad::add(b[slot], g, Scalar(int64_t(1))) : g;
  };
  GradModeGuard mode(opt.create_graph);
  std::priority_queue<ReadyItem> ready;
  for (size_t i = 0; i < roots.size(); i++) {
    if (!roots[i].valid()) continue;
    Node* n = roots[i].fn.get();
    if (grads[i].defined()) add_to(n, roots[i].input_nr, grads[i]);
  }
  for (auto& [n, _] : keep)
    if (!deps.count(n) && needed(n)) ready.push({n->sequence_nr, n});

  const bool anomaly = AnomalyMode::is_enabled();
  while (!ready.empty()) {
    Node* n = ready.top().node;
    ready.pop();
    variable_list in = std::move(buffers[n]);
    buffers.erase(n);
    if (in.size() < n->num_inputs()) in.resize(n->num_inputs());
    n->run_tensor_hooks(in);
    for (auto& [out_nr, tensor] : n->retained) {  // retain_grad() on non-leaves
      if (out_nr >= in.size() || !in[out_nr].defined()) continue;
      AutogradMeta& m = materialize_meta(Tensor(IntrusivePtr<TensorImpl>(tensor)));
      m.grad = m.grad.defined() ? ad::add(m.grad, in[out_nr], Scalar(int64_t(1)))
                                : (opt.create_graph ? in[out_nr] : ops::clone(in[out_nr]));
    }
    auto cap = captures.find(n);
    if (cap != captures.end())
      for (auto& [slot, idx] : cap->second)
        if (slot < in.size()) captured[idx] = in[slot];
    bool run = n->is_accumulate_grad() ? opt.accumulate_grad && (!pruned || cap != captures.end())
                                       : !pruned || downstream.count(n);
    variable_list out;
    bool any = false;
    for (const Tensor& g : in) any = any || g.defined();
    if (run && any) {
      // The profiler's two ranges per node, named as PyTorch's: the engine's work, and the formula.
      trace::Scope evaluate(trace::on(trace::kOps)
                                ? trace::begin("autograd::engine::evaluate_function: " + n->name(), trace::kAutograd)
                                : -1);
      for (const auto& h : n->pre_hooks) {
        variable_list r = h.second(in);
        if (!r.empty()) in = std::move(r);
      }
      if (n->materialize_grads && !n->is_accumulate_grad())
        for (uint32_t i = 0; i < in.size(); i++)
          if (!in[i].defined() && i < n->num_inputs())
            in[i] = ops::zeros(n->input_meta[i].sizes, n->input_meta[i].dtype, n->input_meta[i].device, false);
      variable_list keep_in = n->post_hooks.empty() ? variable_list() : in;
      try {
        trace::Scope formula(trace::on(trace::kOps) ? trace::begin(n->name(), trace::kAutograd) : -1);
        out = n->apply(std::move(in));
      } catch (Error& e) {
        if (anomaly && !n->anomaly_trace.empty() && anomaly_hooks().warn)
          anomaly_hooks().warn("Error detected in " + n->name() +
                               ". Traceback of forward call that caused the error:\n" + n->anomaly_trace);
        throw;
      }
      EMBER_CHECK(n->is_accumulate_grad() || out.size() == n->next_edges.size(), Runtime, "Function ", n->name(),
                  " returned an incorrect number of gradients (expected ", n->next_edges.size(), ", got ", out.size(),
                  ")");
      for (const auto& h : n->post_hooks) {
        variable_list r = h.second(out, keep_in);
        if (!r.empty()) out = std::move(r);
      }
      for (size_t i = 0; i < out.size() && i < n->next_edges.size(); i++) {
        if (!out[i].defined() || !n->next_edges[i].valid()) continue;
        out[i] = validate(*n, i, out[i]);
        if (anomaly && AnomalyMode::check_nan() && has_nan(out[i])) {
          std::string msg =
              "Function '" + n->name() + "' returned nan values in its " + std::to_string(i) + "th output.";
          if (!n->anomaly_trace.empty())
            msg += " Traceback of forward call that caused the error:\n" + n->anomaly_trace;
          EMBER_FAIL(Runtime, msg);
        }
      }
    }
    if (!opt.keep_graph && run) n->release_variables();
    for (size_t i = 0; i < n->next_edges.size(); i++) {
      const Edge& e = n->next_edges[i];
      if (!e.valid()) continue;
      Node* next = e.fn.get();
      if (i < out.size() && out[i].defined()) add_to(next, e.input_nr, out[i]);
      if (--deps[next] == 0) {
        if (needed(next)) ready.push({next->sequence_nr, next});
      }
    }
  }
  return captured;
}

}  // namespace

variable_list run_backward(const std::vector<Edge>& roots, const variable_list& grads, const BackwardOptions& opt) {
  BackwardCallbackScope scope;
  variable_list captured = run_graph(roots, grads, opt);
  scope.finish();
  return captured;
}

}  // namespace ember::autograd
