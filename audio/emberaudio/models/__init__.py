"""emberaudio.models: torchaudio's models with its module and state_dict names, wav2vec 2.0 / HuBERT importers
and CTC decoding."""
from . import decoder
from .conv_tasnet import ConvTasNet
from .deepspeech import DeepSpeech
from .wav2letter import Wav2Letter
from .wav2vec2 import (Wav2Vec2Model, hubert_base, hubert_large, hubert_xlarge, wav2vec2_base, wav2vec2_large,
                       wav2vec2_large_lv60k, wav2vec2_model)
from .wav2vec2.utils import import_fairseq_model, import_huggingface_model
from .wavernn import WaveRNN

__all__ = ["Wav2Letter", "ConvTasNet", "WaveRNN", "DeepSpeech", "Wav2Vec2Model", "wav2vec2_model", "wav2vec2_base",
           "wav2vec2_large", "wav2vec2_large_lv60k", "hubert_base", "hubert_large", "hubert_xlarge",
           "import_fairseq_model", "import_huggingface_model", "decoder"]
