"""The two classifiers: torchtext tutorial's EmbeddingBag model (mean of word and bigram embeddings, then a
linear layer) and a small Transformer encoder over token embeddings with learned positions, mean-pooled."""
import ember
from ember import nn


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int, num_class: int):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, mode="mean", sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text: ember.Tensor, offsets: ember.Tensor) -> ember.Tensor:
        return self.fc(self.embedding(text, offsets))


class TransformerClassifier(nn.Module):
    def __init__(self, vocab_size: int, num_class: int, d_model: int = 64, nhead: int = 4, num_layers: int = 2,
                 max_len: int = 64, padding_idx: int = 0):
        super().__init__()
        self.padding_idx = padding_idx
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=padding_idx)
        self.position = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=4 * d_model, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers)
        self.fc = nn.Linear(d_model, num_class)

    def forward(self, tokens: ember.Tensor) -> ember.Tensor:
        pad = tokens == self.padding_idx
        positions = ember.arange(tokens.shape[1]).unsqueeze(0)
        x = self.encoder(self.embedding(tokens) + self.position(positions), src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).to(x.dtype)
        return self.fc((x * keep).sum(1) / keep.sum(1).clamp(min=1.0))
