// embertext's C++ classes registered for ember.jit (ember.classes.text.*): the vocabulary table, the
// GPT-2 BPE and BERT tokenizers, SentencePiece and RegexTokenizer, so scripted transforms call them without Python and
// scripted modules holding them save and load (each class's state is what rebuilds it). The pybind11 classes in
// module.cpp stay the eager fast paths of Vocab, GPT-2 and BERT (SentencePiece and RegexTokenizer have only these); a
// Vocab is shared between the two (see module.cpp's _ember_script_object).
#include "script_classes.h"

#include <ember/extension.h>

#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base64.h"
#include "bert_tokenizer.h"
#include "gpt2_bpe.h"
#include "py_vocab.h"
#include "regex_tokenizer.h"
#include "sentencepiece_model.h"

namespace embertext {

namespace {

using ember::jit::class_;
using ember::jit::init;
using VocabState = std::tuple<std::vector<std::string>, std::optional<int64_t>>;

std::vector<std::pair<std::string, std::string>> split_merges(const std::vector<std::string>& merges) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& m : merges) {
    size_t space = m.find(' ');
    EMBER_CHECK(space != std::string::npos, Value, "GPT2BPEEncoder: a merge is two symbols and a space, got '", m, "'");
    out.emplace_back(m.substr(0, space), m.substr(space + 1));
  }
  return out;
}

}  // namespace

ScriptGPT2::ScriptGPT2(std::unordered_map<std::string, int64_t> encoder, std::vector<std::string> merges)
    : encoder_(std::move(encoder)), merges_(std::move(merges)), impl_(encoder_, split_merges(merges_)) {}

ScriptBERT::ScriptBERT(std::vector<std::string> vocab, bool do_lower_case, std::optional<bool> strip_accents,
                       std::vector<std::string> never_split)
    : vocab_(std::move(vocab)),
      lower_(do_lower_case),
      strip_(strip_accents),
      never_split_(std::move(never_split)),
      impl_(vocab_, lower_, strip_, never_split_) {}

void register_script_classes() {
  static const bool done = [] {
    class_<PyVocab>("text", "Vocab")
        .def(init<std::vector<std::string>, std::optional<int64_t>>())
        .def_fn<int64_t>("__len__", [](PyVocab& v) { return v.size(); })
        .def_fn<bool, std::string>("__contains__", [](PyVocab& v, std::string t) { return v.contains(t); })
        .def_fn<int64_t, std::string>("index", [](PyVocab& v, std::string t) { return v.index(t); })
        .def_fn<int64_t, std::string>("__getitem__", [](PyVocab& v, std::string t) { return v.index(t); })
        .def_fn<std::vector<int64_t>, std::vector<std::string>>(
            "indices", [](PyVocab& v, std::vector<std::string> ts) { return v.indices(ts); })
        .def_fn<std::string, int64_t>("token", [](PyVocab& v, int64_t i) { return v.token(i); })
        .def_fn<std::vector<std::string>, std::vector<int64_t>>(
            "tokens", [](PyVocab& v, std::vector<int64_t> is) { return v.tokens(is); })
        .def_fn<void, std::optional<int64_t>>("set_default_index",
                                              [](PyVocab& v, std::optional<int64_t> i) { v.set_default_index(i); })
        .def_fn<std::optional<int64_t>>("default_index", [](PyVocab& v) { return v.default_index(); })
        .def_fn<void, std::string>("append_token", [](PyVocab& v, std::string t) { v.append(t); })
        .def_fn<void, std::string, int64_t>("insert_token",
                                            [](PyVocab& v, std::string t, int64_t i) { v.insert(t, i); })
        .def_fn<std::vector<std::string>>("itos", [](PyVocab& v) { return v.itos(); })
        .def_fn<std::unordered_map<std::string, int64_t>>("stoi", [](PyVocab& v) { return v.stoi(); })
        .def_pickle<VocabState>(
            [](const std::shared_ptr<PyVocab>& v) { return VocabState(v->itos(), v->default_index()); },
            [](VocabState s) { return std::make_shared<PyVocab>(std::get<0>(s), std::get<1>(s)); });

    using GPT2State = std::tuple<std::unordered_map<std::string, int64_t>, std::vector<std::string>>;
    class_<ScriptGPT2>("text", "GPT2BPEEncoder")
        .def(init<std::unordered_map<std::string, int64_t>, std::vector<std::string>>())
        .def_fn<std::vector<int64_t>, std::string>("encode",
                                                   [](ScriptGPT2& g, std::string s) { return g.impl().encode(s); })
        .def_fn<std::vector<std::string>, std::string>(
            "tokenize", [](ScriptGPT2& g, std::string s) { return g.impl().tokenize(s); })
        .def_fn<std::vector<std::vector<int64_t>>, std::vector<std::string>, int64_t>(
            "encode_batch",
            [](ScriptGPT2& g, std::vector<std::string> ts, int64_t n) { return g.impl().encode_batch(ts, int(n)); })
        .def_pickle<GPT2State>(
            [](const std::shared_ptr<ScriptGPT2>& g) { return GPT2State(g->encoder(), g->merges()); },
            [](GPT2State s) { return std::make_shared<ScriptGPT2>(std::get<0>(s), std::get<1>(s)); });

    using BERTState = std::tuple<std::vector<std::string>, bool, std::optional<bool>, std::vector<std::string>>;
    class_<ScriptBERT>("text", "BERTTokenizer")
        .def(init<std::vector<std::string>, bool, std::optional<bool>, std::vector<std::string>>())
        .def_fn<std::vector<std::string>, std::string>(
            "tokenize", [](ScriptBERT& b, std::string s) { return b.impl().tokenize(s); })
        .def_fn<std::vector<int64_t>, std::string>("encode",
                                                   [](ScriptBERT& b, std::string s) { return b.impl().encode(s); })
        .def_fn<std::vector<std::vector<int64_t>>, std::vector<std::string>, int64_t>(
            "encode_batch",
            [](ScriptBERT& b, std::vector<std::string> ts, int64_t n) { return b.impl().encode_batch(ts, int(n)); })
        .def_fn<std::vector<std::vector<std::string>>, std::vector<std::string>, int64_t>(
            "tokenize_batch",
            [](ScriptBERT& b, std::vector<std::string> ts, int64_t n) { return b.impl().tokenize_batch(ts, int(n)); })
        .def_pickle<BERTState>(
            [](const std::shared_ptr<ScriptBERT>& b) {
              return BERTState(b->vocab(), b->lower(), b->strip_accents(), b->never_split());
            },
            [](BERTState s) {
              return std::make_shared<ScriptBERT>(std::get<0>(s), std::get<1>(s), std::get<2>(s), std::get<3>(s));
            });

    // torchtext's method names; the model's bytes travel in base64 (ember.jit's strings are text).
    class_<ScriptSentencePiece>("text", "SentencePiece")
        .def(init<std::string>())
        .def_fn<std::vector<int64_t>, std::string>(
            "EncodeAsIds", [](ScriptSentencePiece& m, std::string s) { return m.encode_as_ids(s); })
        .def_fn<std::vector<std::string>, std::string>(
            "EncodeAsPieces", [](ScriptSentencePiece& m, std::string s) { return m.encode_as_pieces(s); })
        .def_fn<std::string, std::vector<int64_t>>(
            "DecodeIds", [](ScriptSentencePiece& m, std::vector<int64_t> ids) { return m.decode_ids(ids); })
        .def_fn<std::string, std::vector<std::string>>(
            "DecodePieces", [](ScriptSentencePiece& m, std::vector<std::string> ps) { return m.decode_pieces(ps); })
        .def_fn<int64_t>("GetPieceSize", [](ScriptSentencePiece& m) { return m.piece_size(); })
        .def_fn<int64_t>("unk_id", [](ScriptSentencePiece& m) { return m.unk_id(); })
        .def_fn<int64_t, std::string>("PieceToId",
                                      [](ScriptSentencePiece& m, std::string p) { return m.piece_to_id(p); })
        .def_fn<std::string, int64_t>("IdToPiece", [](ScriptSentencePiece& m, int64_t i) { return m.id_to_piece(i); })
        .def_pickle<std::string>(
            [](const std::shared_ptr<ScriptSentencePiece>& m) { return base64_encode(m->serialized()); },
            [](std::string s) { return std::make_shared<ScriptSentencePiece>(s); });

    using RegexState = std::tuple<std::vector<std::string>, std::vector<std::string>>;
    class_<RegexTokenizer>("text", "RegexTokenizer")
        .def(init<std::vector<std::string>, std::vector<std::string>>())
        .def_fn<std::vector<std::string>, std::string>("forward",
                                                       [](RegexTokenizer& r, std::string s) { return r.tokenize(s); })
        .def_fn<std::string, std::string>("replace_all",
                                          [](RegexTokenizer& r, std::string s) { return r.replace_all(s); })
        .def_pickle<RegexState>(
            [](const std::shared_ptr<RegexTokenizer>& r) { return RegexState(r->patterns(), r->replacements()); },
            [](RegexState s) { return std::make_shared<RegexTokenizer>(std::get<0>(s), std::get<1>(s)); });
    return true;
  }();
  (void)done;
}

}  // namespace embertext
