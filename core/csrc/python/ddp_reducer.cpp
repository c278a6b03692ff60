// ember._C._ddp: the DDP reducer (core/csrc/ddp) for ember.nn.parallel.DistributedDataParallel, and the
// engine's queue_callback. The reducer's communication is a Python callable (the process group lives in
// ember._distributed_C): launch(index, flat) starts a bucket's reduction and returns a callable that waits
// and gives the reduced tensor; usage_sum(flags) all-reduces the unused-parameter flags.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "autograd/engine_callbacks.h"
#include "ddp/reducer.h"
#include "python/autograd_python.h"
#include "python/objects.h"
#include "python/py_errors.h"

namespace ember::py {

namespace {

namespace pyb = pybind11;

Tensor tensor_arg(pyb::handle o, const char* what) {
  EMBER_CHECK(is_tensor(o.ptr()), Type, what, ": expected a Tensor, got ", Py_TYPE(o.ptr())->tp_name);
  return unwrap(o.ptr());
}

std::vector<Tensor> tensor_list(const pyb::sequence& seq, const char* what) {
  std::vector<Tensor> out;
  for (pyb::handle o : seq) out.push_back(tensor_arg(o, what));
  return out;
}

// Runs f (a call into Python) with the GIL; a Python exception leaves as the engine's PythonError, so the
// original exception reaches the caller of backward.
template <class F>
auto with_python(F&& f) {
  pyb::gil_scoped_acquire gil;
  try {
    return f();
  } catch (pyb::error_already_set& e) {
    e.restore();
    throw PythonError();
  }
}

// Calls into Python from wherever the reducer runs (backward holds the GIL; a join shadow step too).
ddp::LaunchFn launch_fn(pyb::object launch) {
  auto held = std::make_shared<pyb::object>(std::move(launch));
  return [held](size_t index, const Tensor& flat) -> std::function<Tensor()> {
    auto wait = with_python(
        [&] { return std::make_shared<pyb::object>((*held)(index, pyb::reinterpret_steal<pyb::object>(wrap(flat)))); });
    return [wait]() -> Tensor {
      return with_python([&] {
        pyb::object r = (*wait)();
        Tensor t = r.is_none() ? Tensor() : tensor_arg(r, "DDP comm result");
        *wait = pyb::none();
        return t;
      });
    };
  };
}

ddp::UsageSumFn usage_fn(pyb::object usage_sum) {
  auto held = std::make_shared<pyb::object>(std::move(usage_sum));
  return [held](const Tensor& used) -> Tensor {
    return with_python(
        [&] { return tensor_arg((*held)(pyb::reinterpret_steal<pyb::object>(wrap(used))), "DDP usage sum"); });
  };
}

}  // namespace

void add_ddp_module(pyb::module_& parent) {
  pyb::module_ m = parent.def_submodule("_ddp", "DistributedDataParallel's C++ reducer");
  m.def("queue_callback", [](pyb::object fn) {
    auto held = std::make_shared<pyb::object>(std::move(fn));
    autograd::queue_callback([held] { with_python([&] { (*held)(); }); });
  });
  pyb::class_<ddp::Reducer>(m, "Reducer")
      .def(pyb::init([](const pyb::sequence& params, std::vector<std::vector<size_t>> buckets, pyb::object launch,
                        pyb::object usage_sum, bool as_view, bool find_unused, bool static_graph, int rank) {
             ddp::ReducerOptions opt;
             opt.gradient_as_bucket_view = as_view;
             opt.find_unused_parameters = find_unused;
             opt.static_graph = static_graph;
             opt.rank = rank;
             return new ddp::Reducer(tensor_list(params, "DDP parameters"), std::move(buckets),
                                     launch_fn(std::move(launch)), usage_fn(std::move(usage_sum)), opt);
           }),
           pyb::arg("params"), pyb::arg("buckets"), pyb::arg("launch"), pyb::arg("usage_sum"),
           pyb::arg("gradient_as_bucket_view"), pyb::arg("find_unused_parameters"), pyb::arg("static_graph"),
           pyb::arg("rank"))
      .def("prepare_for_backward",
           [](ddp::Reducer& r, const pyb::sequence& outputs) {
             r.prepare_for_backward(tensor_list(outputs, "DDP outputs"));
           })
      .def("set_launch", [](ddp::Reducer& r, pyb::object launch) { r.set_launch(launch_fn(std::move(launch))); })
      .def("reduce_zero_buckets", &ddp::Reducer::reduce_zero_buckets)
      .def_property_readonly("armed", &ddp::Reducer::armed)
      .def_property_readonly("bucket_indices", &ddp::Reducer::bucket_indices)
      .def_property_readonly("ready_order", &ddp::Reducer::ready_order)
      .def("bucket_buffer", [](ddp::Reducer& r, size_t b) {
        EMBER_CHECK(b < r.bucket_indices().size(), Index, "bucket ", b, " out of range");
        return pyb::reinterpret_steal<pyb::object>(wrap(r.bucket_buffer(b)));
      });
}

}  // namespace ember::py
