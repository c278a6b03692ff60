"""PyTorch's examples/word_language_model written as the PyTorch program with `ember` in place of `torch`:
data.py's Dictionary and Corpus (train/valid/test files, `<eos>` per line), model.py's RNNModel (LSTM, GRU,
RNN_TANH, tied weights) and TransformerModel (an nn.Transformer subclass whose encoder runs under a
causal mask, with PositionalEncoding), main.py's batchify/get_batch/repackage_hidden, plain SGD after
clip_grad_norm_, whole-model torch.save/torch.load(weights_only=False) with flatten_parameters, and
generate.py's sampling with multinomial. The corpus is the Python licence text shipped with the
interpreter (the docstrings of a few stdlib modules where that file is missing), in three splits; the
models are narrow. Trained, each must beat a unigram model of the training split on the test split
(by 0.7 to 0.9 nat in a run; 0.3 is asserted)."""
import argparse
import collections
import contextlib
import functools
import inspect
import json
import logging
import math
import os
import pathlib
import re
import sysconfig
import textwrap

import pytest

import ember as torch
import ember.nn as nn
import ember.nn.functional as F

BPTT, BATCH_SIZE, EVAL_BATCH_SIZE, CLIP = 20, 8, 4, 0.25


def _corpus_lines():
    """The Python licence shipped with the interpreter, then the docstrings of a few stdlib modules."""
    lines = []
    licence = os.path.join(sysconfig.get_paths()["stdlib"], "LICENSE.txt")
    if os.path.exists(licence):
        with open(licence, encoding="utf8") as f:
            lines += [line for line in f if line.strip()]
    for mod in (argparse, collections, functools, json, logging, pathlib, textwrap, contextlib):
        for name, obj in sorted(vars(mod).items()):
            doc = inspect.getdoc(obj) if callable(obj) and not name.startswith("_") else None
            lines += [line + "\n" for line in (doc or "").splitlines() if line.strip()]
    return lines


def write_splits(folder):
    """train.txt / valid.txt / test.txt as the program expects them (lower case, punctuation split off as
    in the Penn Treebank's text): every 10th line to valid, the next to test."""
    lines = [re.sub(r"([.,;:()\"'])", r" \1 ", line.lower()) for line in _corpus_lines()]
    splits = {"train": [], "valid": [], "test": []}
    for i, line in enumerate(lines):
        splits["valid" if i % 10 == 8 else "test" if i % 10 == 9 else "train"].append(line)
    for name, part in splits.items():
        with open(os.path.join(folder, f"{name}.txt"), "w", encoding="utf8") as f:
            f.writelines(part)
    return splits


# ---- data.py ----
class Dictionary(object):
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus(object):
    def __init__(self, path):
        self.dictionary = Dictionary()
        self.train = self.tokenize(os.path.join(path, 'train.txt'))
        self.valid = self.tokenize(os.path.join(path, 'valid.txt'))
        self.test = self.tokenize(os.path.join(path, 'test.txt'))

    def tokenize(self, path):
        """Tokenizes a text file."""
        assert os.path.exists(path)
        # Add words to the dictionary
        with open(path, 'r', encoding="utf8") as f:
            for line in f:
                words = line.split() + ['<eos>']
                for word in words:
                    self.dictionary.add_word(word)
        # Tokenize file content
        with open(path, 'r', encoding="utf8") as f:
            idss = []
            for line in f:
                words = line.split() + ['<eos>']
                ids = []
                for word in words:
                    ids.append(self.dictionary.word2idx[word])
                idss.append(torch.tensor(ids).type(torch.int64))
            ids = torch.cat(idss)
        return ids


# ---- model.py ----
class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ['LSTM', 'GRU']:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            try:
                nonlinearity = {'RNN_TANH': 'tanh', 'RNN_RELU': 'relu'}[rnn_type]
            except KeyError as e:
                raise ValueError("An invalid option for `--model` was supplied") from e
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError('When using the tied flag, nhid must be equal to emsize')
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    """Container module with an encoder, a recurrent or transformer module, and a decoder."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super(TransformerModel, self).__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                                               num_encoder_layers=nlayers)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)  # replaces nn.Transformer's decoder stack, as the program does
        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz, sz)))

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        if has_mask:
            device = src.device
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src)).to(device)
                self.src_mask = mask
        else:
            self.src_mask = None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


# ---- main.py ----
def batchify(data, bsz, device):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data.to(device)


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i):
    seq_len = min(BPTT, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def evaluate(model, data_source, ntokens, criterion, is_transformer):
    model.eval()
    total_loss = 0.
    if not is_transformer:
        hidden = model.init_hidden(EVAL_BATCH_SIZE)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, BPTT):
            data, targets = get_batch(data_source, i)
            if is_transformer:
                output = model(data)
                output = output.view(-1, ntokens)
            else:
                output, hidden = model(data, hidden)
                hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train(model, train_data, ntokens, criterion, lr, is_transformer):
    model.train()
    total_loss, batches = 0., 0
    if not is_transformer:
        hidden = model.init_hidden(BATCH_SIZE)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, BPTT)):
        data, targets = get_batch(train_data, i)
        # Starting each batch, we detach the hidden state from how it was previously produced.
        model.zero_grad()
        if is_transformer:
            output = model(data)
            output = output.view(-1, ntokens)
        else:
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        # `clip_grad_norm` helps prevent the exploding gradient problem in RNNs / LSTMs.
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
        batches += 1
    return total_loss / batches


def unigram_cross_entropy(corpus, train_words, test_ids):
    """The test split's mean negative log-likelihood under add-one-smoothed training-split word counts:
    the bar a language model that learned anything about word order clears."""
    counts = collections.Counter(train_words)
    total = sum(counts.values()) + len(corpus.dictionary)
    idx2word = corpus.dictionary.idx2word
    return -sum(math.log((counts[idx2word[i]] + 1) / total) for i in test_ids) / len(test_ids)


def run_program(tmp_path, model_type, epochs, lr, **sizes):
    torch.manual_seed(1111)
    device = torch.device("cpu")
    splits = write_splits(tmp_path)
    corpus = Corpus(str(tmp_path))
    train_data = batchify(corpus.train, BATCH_SIZE, device)
    val_data = batchify(corpus.valid, EVAL_BATCH_SIZE, device)
    test_data = batchify(corpus.test, EVAL_BATCH_SIZE, device)
    ntokens = len(corpus.dictionary)
    is_transformer = model_type == 'Transformer'
    if is_transformer:
        model = TransformerModel(ntokens, sizes["emsize"], sizes["nhead"], sizes["nhid"], sizes["nlayers"],
                                 0.2).to(device)
    else:
        model = RNNModel(model_type, ntokens, sizes["emsize"], sizes["nhid"], sizes["nlayers"], 0.2,
                         sizes.get("tied", False)).to(device)
    criterion = nn.NLLLoss()
    first_val = evaluate(model, val_data, ntokens, criterion, is_transformer)
    best_val_loss, save = None, str(tmp_path / "model.pt")
    for epoch in range(1, epochs + 1):
        train(model, train_data, ntokens, criterion, lr, is_transformer)
        val_loss = evaluate(model, val_data, ntokens, criterion, is_transformer)
        if not best_val_loss or val_loss < best_val_loss:
            with open(save, 'wb') as f:
                torch.save(model, f)
            best_val_loss = val_loss
        else:
            lr /= 4.0  # Anneal the learning rate if no improvement has been seen in the validation dataset.
    with open(save, 'rb') as f:
        model = torch.load(f, weights_only=False)
        if model_type in ['RNN_TANH', 'RNN_RELU', 'LSTM', 'GRU']:
            model.rnn.flatten_parameters()
    test_loss = evaluate(model, test_data, ntokens, criterion, is_transformer)
    train_words = [w for line in splits["train"] for w in line.split() + ["<eos>"]]
    unigram = unigram_cross_entropy(corpus, train_words, corpus.test.tolist())
    return model, corpus, first_val, best_val_loss, test_loss, unigram


def generate(model, corpus, words, is_transformer, temperature=1.0):
    """generate.py: sample `words` words from the model, feeding each back in."""
    model.eval()
    ntokens = len(corpus.dictionary)
    if not is_transformer:
        hidden = model.init_hidden(1)
    input = torch.randint(ntokens, (1, 1), dtype=torch.long)
    out = []
    with torch.no_grad():
        for i in range(words):
            if is_transformer:
                output = model(input, False)
                word_weights = output[-1].squeeze().div(temperature).exp().cpu()
                word_idx = torch.multinomial(word_weights, 1)[0]
                word_tensor = torch.Tensor([[word_idx]]).long()
                input = torch.cat([input, word_tensor], 0)
            else:
                output, hidden = model(input, hidden)
                word_weights = output.squeeze().div(temperature).exp().cpu()
                word_idx = torch.multinomial(word_weights, 1)[0]
                input.fill_(word_idx)
            out.append(corpus.dictionary.idx2word[word_idx])
    return out


@pytest.mark.parametrize("model_type, tied", [("LSTM", True), ("GRU", False)])
def test_rnn_language_model_trains_and_generates(tmp_path, model_type, tied):
    model, corpus, first_val, best_val, test_loss, unigram = run_program(
        tmp_path, model_type, epochs=8, lr=20.0, emsize=32, nhid=32, nlayers=2, tied=tied)
    if tied:
        assert model.decoder.weight is model.encoder.weight  # still one Parameter after the reload
    assert first_val > 0.9 * math.log(len(corpus.dictionary)), first_val
    assert best_val < 0.75 * first_val, (first_val, best_val)
    assert test_loss < unigram - 0.3, (test_loss, unigram)
    words = generate(model, corpus, 30, is_transformer=False)
    assert len(words) == 30 and all(w in corpus.dictionary.word2idx for w in words)


def test_transformer_language_model_trains_and_generates(tmp_path):
    model, corpus, first_val, best_val, test_loss, unigram = run_program(
        tmp_path, 'Transformer', epochs=8, lr=5.0, emsize=32, nhid=64, nlayers=2, nhead=2)
    assert first_val > 0.9 * math.log(len(corpus.dictionary)), first_val
    assert best_val < 0.75 * first_val, (first_val, best_val)
    assert test_loss < unigram - 0.3, (test_loss, unigram)
    words = generate(model, corpus, 12, is_transformer=True)
    assert len(words) == 12 and all(w in corpus.dictionary.word2idx for w in words)
