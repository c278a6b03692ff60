from ._ctc_decoder import CTCDecoder, CTCHypothesis, ctc_decoder, ctc_greedy_decode

__all__ = ["CTCDecoder", "CTCHypothesis", "ctc_decoder", "ctc_greedy_decode"]
