"""The word-level language models of PyTorch's word_language_model example, narrow: an LSTM with tied
input/output embeddings, and a Transformer encoder under a causal mask with sinusoidal positions."""
import math

import ember
from ember import nn


class LSTMModel(nn.Module):
    def __init__(self, ntoken: int, ninp: int = 256, nlayers: int = 2, dropout: float = 0.3):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, ninp, nlayers, dropout=dropout)
        self.decoder = nn.Linear(ninp, ntoken)
        self.decoder.weight = self.encoder.weight  # tied (Press & Wolf)
        self.nlayers, self.nhid = nlayers, ninp
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)

    def init_hidden(self, bsz: int):
        shape = (self.nlayers, bsz, self.nhid)
        return ember.zeros(shape), ember.zeros(shape)

    def forward(self, tokens, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(tokens)), hidden)
        return self.decoder(self.drop(output)), hidden


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 512):
        super().__init__()
        position = ember.arange(max_len).unsqueeze(1).float()
        div = ember.exp(ember.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe = ember.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = ember.sin(position * div)
        pe[:, 0, 1::2] = ember.cos(position * div)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.size(0)]


class TransformerModel(nn.Module):
    def __init__(self, ntoken: int, d_model: int = 192, nhead: int = 4, nlayers: int = 2, dropout: float = 0.2):
        super().__init__()
        self.d_model = d_model
        self.encoder = nn.Embedding(ntoken, d_model)
        self.pos = PositionalEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, 4 * d_model, dropout)
        self.transformer = nn.TransformerEncoder(layer, nlayers)
        self.decoder = nn.Linear(d_model, ntoken)
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)

    def forward(self, tokens, hidden=None):
        mask = nn.Transformer.generate_square_subsequent_mask(tokens.size(0))
        x = self.pos(self.encoder(tokens) * math.sqrt(self.d_model))
        return self.decoder(self.transformer(x, mask=mask, is_causal=True)), None
