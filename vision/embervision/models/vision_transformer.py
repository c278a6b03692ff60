"""Vision Transformer (Dosovitskiy et al.): patch embedding by a strided conv, a class token, learned
position embeddings and pre-norm encoder blocks; torchvision's names (vit_b_16, ...) and layout."""

import math
from collections import OrderedDict
from functools import partial

import ember
from ember import nn

from ..ops.misc import MLP
from ._utils import make_builder


class MLPBlock(MLP):
    def __init__(self, in_dim, mlp_dim, dropout):
        super().__init__(in_dim, [mlp_dim, in_dim], activation_layer=nn.GELU, inplace=None, dropout=dropout)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)


class EncoderBlock(nn.Module):
    def __init__(self, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or partial(nn.LayerNorm, eps=1e-6)
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads, dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input):
        ember._assert(input.dim() == 3, f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    def __init__(self, seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                 norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or partial(nn.LayerNorm, eps=1e-6)
        self.pos_embedding = nn.Parameter(ember.empty(1, seq_length, hidden_dim).normal_(std=0.02))
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.Sequential(OrderedDict(
            (f"encoder_layer_{i}", EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                                                norm_layer)) for i in range(num_layers)))
        self.ln = norm_layer(hidden_dim)

    def forward(self, input):
        ember._assert(input.dim() == 3, f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        return self.ln(self.layers(self.dropout(input + self.pos_embedding)))


class VisionTransformer(nn.Module):
    def __init__(self, image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim, dropout=0.0,
                 attention_dropout=0.0, num_classes=1000, representation_size=None, norm_layer=None):
        super().__init__()
        if image_size % patch_size != 0:
            raise ValueError("Input shape indivisible by patch size!")
        norm_layer = norm_layer or partial(nn.LayerNorm, eps=1e-6)
        self.image_size, self.patch_size = image_size, patch_size
        self.hidden_dim, self.mlp_dim = hidden_dim, mlp_dim
        self.attention_dropout, self.dropout = attention_dropout, dropout
        self.num_classes, self.representation_size = num_classes, representation_size
        self.conv_proj = nn.Conv2d(3, hidden_dim, kernel_size=patch_size, stride=patch_size)
        seq_length = (image_size // patch_size) ** 2
        self.class_token = nn.Parameter(ember.zeros(1, 1, hidden_dim))
        seq_length += 1
        self.encoder = Encoder(seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                               norm_layer)
        self.seq_length = seq_length
        heads = OrderedDict()
        if representation_size is None:
            heads["head"] = nn.Linear(hidden_dim, num_classes)
        else:
            heads["pre_logits"] = nn.Linear(hidden_dim, representation_size)
            heads["act"] = nn.Tanh()
            heads["head"] = nn.Linear(representation_size, num_classes)
        self.heads = nn.Sequential(heads)
        fan_in = self.conv_proj.in_channels * self.conv_proj.kernel_size[0] * self.conv_proj.kernel_size[1]
        nn.init.trunc_normal_(self.conv_proj.weight, std=math.sqrt(1 / fan_in))
        nn.init.zeros_(self.conv_proj.bias)
        if representation_size is not None:
            fan_in = self.heads.pre_logits.in_features
            nn.init.trunc_normal_(self.heads.pre_logits.weight, std=math.sqrt(1 / fan_in))
            nn.init.zeros_(self.heads.pre_logits.bias)
        nn.init.zeros_(self.heads.head.weight)
        nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x):
        n, _, h, w = x.shape
        p = self.patch_size
        # ember._assert, as torchvision's torch._assert: fx records it instead of tracing a branch
        ember._assert(h == self.image_size, f"Wrong image height! Expected {self.image_size} but got {h}!")
        ember._assert(w == self.image_size, f"Wrong image width! Expected {self.image_size} but got {w}!")
        x = self.conv_proj(x).reshape(n, self.hidden_dim, (h // p) * (w // p))
        return x.permute(0, 2, 1)

    def forward(self, x):
        x = self._process_input(x)
        batch_class_token = self.class_token.expand(x.shape[0], -1, -1)
        x = self.encoder(ember.cat([batch_class_token, x], dim=1))
        return self.heads(x[:, 0])


def _vit(patch_size, num_layers, num_heads, hidden_dim, mlp_dim):
    def construct(image_size=224, **kwargs):
        return VisionTransformer(image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim, **kwargs)
    return construct


vit_b_16 = make_builder("vit_b_16", __name__, _vit(16, 12, 12, 768, 3072))
vit_b_32 = make_builder("vit_b_32", __name__, _vit(32, 12, 12, 768, 3072))
vit_l_16 = make_builder("vit_l_16", __name__, _vit(16, 24, 16, 1024, 4096))
vit_l_32 = make_builder("vit_l_32", __name__, _vit(32, 24, 16, 1024, 4096))
vit_h_14 = make_builder("vit_h_14", __name__, _vit(14, 32, 16, 1280, 5120))
