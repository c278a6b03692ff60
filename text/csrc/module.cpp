// embertext._C: the tokenizers and the vocabulary table in C++, bound with pybind11. Batch calls release
// the GIL and spread texts over threads.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bert_tokenizer.h"
#include "gpt2_bpe.h"
#include "py_utf8.h"
#include "py_vocab.h"
#include "script_classes.h"

namespace py = pybind11;
using namespace embertext;

namespace {

std::string utf8(const py::handle& text) { return std::string(utf8_view(text.ptr())); }

std::vector<std::string> utf8_list(const py::list& texts) {
  std::vector<std::string> out;
  out.reserve(texts.size());
  for (const auto& t : texts) out.push_back(utf8(t));
  return out;
}

// Runs a batch method with the GIL released, after converting the texts with it held.
template <class T, class R>
R run_batch(const T& self, const py::list& texts, int threads,
            R (T::*method)(const std::vector<std::string>&, int) const) {
  std::vector<std::string> in = utf8_list(texts);
  py::gil_scoped_release release;
  return (self.*method)(in, threads);
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "embertext's C++ tokenizers and vocabulary table";
  register_script_classes();

  py::class_<PyVocab, std::shared_ptr<PyVocab>>(m, "Vocab")
      .def(py::init<std::vector<std::string>, std::optional<int64_t>>(), py::arg("tokens"),
           py::arg("default_index") = py::none())
      .def("__len__", &PyVocab::size)
      .def("__contains__", &PyVocab::contains_str)
      .def("index", &PyVocab::index_of)
      .def("indices", &PyVocab::indices_of)
      .def("token", &PyVocab::token)
      .def("tokens", &PyVocab::tokens)
      .def("set_default_index", &PyVocab::set_default_index)
      .def("default_index", &PyVocab::default_index)
      .def("append_token", &PyVocab::append)
      .def("insert_token", &PyVocab::insert)
      .def("itos", &PyVocab::itos)
      .def("stoi", &PyVocab::stoi)
      // This table as ember.classes.text.Vocab (the same C++ object), for scripted code that holds it.
      .def("_ember_script_object",
           [](std::shared_ptr<PyVocab> self) {
             auto* held = new std::shared_ptr<void>(std::move(self));
             py::capsule payload(held, "ember.jit.payload",
                                 [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); });
             return py::module_::import("ember._C._jit").attr("adopt")("__torch__.torch.classes.text.Vocab", payload);
           })
      .def(py::pickle([](const PyVocab& v) { return py::make_tuple(v.itos(), v.default_index()); },
                      [](const py::tuple& t) {
                        return std::make_shared<PyVocab>(t[0].cast<std::vector<std::string>>(),
                                                         t[1].cast<std::optional<int64_t>>());
                      }));

  py::class_<GPT2BPEEncoder>(m, "GPT2BPEEncoder")
      .def(py::init<const std::unordered_map<std::string, int64_t>&,
                    const std::vector<std::pair<std::string, std::string>>&>(),
           py::arg("encoder"), py::arg("merges"))
      .def("encode", [](const GPT2BPEEncoder& e, const py::handle& s) { return e.encode(utf8(s)); })
      .def("tokenize", [](const GPT2BPEEncoder& e, const py::handle& s) { return e.tokenize(utf8(s)); })
      .def("decode", [](const GPT2BPEEncoder& e, const std::vector<int64_t>& ids) { return py::bytes(e.decode(ids)); })
      .def("encode_batch", [](const GPT2BPEEncoder& e, const py::list& texts,
                              int threads) { return run_batch(e, texts, threads, &GPT2BPEEncoder::encode_batch); })
      .def_static("pretokenize", [](const std::string& s) {
        std::vector<std::string> out;
        for (auto piece : GPT2BPEEncoder::pretokenize(s)) out.emplace_back(piece);
        return out;
      });

  py::class_<BERTTokenizer>(m, "BERTTokenizer")
      .def(py::init<std::vector<std::string>, bool, std::optional<bool>, std::vector<std::string>, std::string>(),
           py::arg("vocab"), py::arg("do_lower_case"), py::arg("strip_accents"), py::arg("never_split"),
           py::arg("unk_token") = "[UNK]")
      .def("tokenize", [](const BERTTokenizer& t, const py::handle& s) { return t.tokenize(utf8(s)); })
      .def("encode", [](const BERTTokenizer& t, const py::handle& s) { return t.encode(utf8(s)); })
      .def("encode_batch", [](const BERTTokenizer& t, const py::list& texts,
                              int threads) { return run_batch(t, texts, threads, &BERTTokenizer::encode_batch); })
      .def("tokenize_batch", [](const BERTTokenizer& t, const py::list& texts, int threads) {
        return run_batch(t, texts, threads, &BERTTokenizer::tokenize_batch);
      });
}
