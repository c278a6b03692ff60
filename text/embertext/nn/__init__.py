"""Attention building blocks (torchtext.nn): MultiheadAttentionContainer, InProjContainer,
ScaledDotProduct."""

from ._attention import InProjContainer, MultiheadAttentionContainer, ScaledDotProduct

__all__ = ["MultiheadAttentionContainer", "InProjContainer", "ScaledDotProduct"]
