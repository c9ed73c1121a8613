"""
A SpeechT5 speech encoder with a linear CTC layer over characters: the network that the
`speecht5_ctc` model trains and the `speecht5_ctc` recognizer decodes with, and its folder format.

A saved folder holds
```
FOLDER/config.json, FOLDER/model.safetensors   SpeechT5EncoderWithSpeechPrenet.save_pretrained
FOLDER/ctc_head.safetensors                    the CTC layer: weight (C x hidden), bias (C)
FOLDER/ctc_vocabulary.json                     {"characters": [...]}: id -> character, 0 = blank
```
so that the encoder part loads wherever a SpeechT5 checkpoint does (the `speecht5` question
encoder's `model_name`), and the whole folder serves the recognizer.

Utterances are encoded as the `speecht5` question encoder encodes them: the convolutions see
each utterance's own samples only (they run on the whole batch, and the group normalisation of
the first layer counts each utterance's own frames: `convolve_batched`),
padded frames are zeroed before the positional convolution, and the transformer gets the frame
mask. An utterance therefore encodes the same alone and in any batch.
"""
import itertools
import json
import os
import re
import unicodedata
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch

from srcframework.common.conv_frames import convolve_batched, min_samples
from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.speech.ctc_decoder import greedy_transcript

BLANK = "<blank>"
# id 0 is the CTC blank; then space, apostrophe, letters and digits
CHARACTERS: List[str] = [BLANK, " ", "'"] + list("abcdefghijklmnopqrstuvwxyz") + list("0123456789")
HEAD_FILE = "ctc_head.safetensors"
VOCABULARY_FILE = "ctc_vocabulary.json"
# what pads a row of CTC targets in a batch (no character has a negative id)
TARGET_PADDING = -1
_APOSTROPHES = re.compile(r"[\u2018\u2019\u02bc`\u00b4]")


def normalize_transcript(text: str, characters: Sequence[str] = CHARACTERS) -> str:
    """
    `text` in the character vocabulary: accents removed (NFKD), lowercased, typographic
    apostrophes made plain, every other character outside the vocabulary made a space, and
    whitespace collapsed. "What's the Zürich-based firm?" -> "what's the zurich based firm".
    """
    allowed = set(characters[1:])
    text = unicodedata.normalize("NFKD", _APOSTROPHES.sub("'", text))
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = "".join(c if c in allowed else " " for c in text)
    return " ".join(text.split())


def character_ids(text: str, characters: Sequence[str] = CHARACTERS) -> List[int]:
    """The ids in `characters` of `text` normalised (`normalize_transcript`): a CTC target."""
    index = {c: i for i, c in enumerate(characters)}
    return [index[c] for c in normalize_transcript(text, characters)]


def pad_rows(rows: List[torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
    """`(B x T waveform, lengths)` of 1-D rows, zero-padded to the longest."""
    lengths = torch.tensor([row.numel() for row in rows], dtype=torch.long)
    return torch.nn.utils.rnn.pad_sequence(rows, batch_first=True), lengths


class SpeechT5CtcNetwork(torch.nn.Module):
    """
    `SpeechT5EncoderWithSpeechPrenet` (raw 16 kHz waveform in) and a linear layer to
    `len(characters)` CTC logits.

    # Parameters

    encoder : `SpeechT5EncoderWithSpeechPrenet`
    characters : `List[str]`, optional (default = `CHARACTERS`)
        id -> character; id 0 is the blank.
    """

    def __init__(self, encoder: torch.nn.Module, characters: Optional[List[str]] = None) -> None:
        super().__init__()
        self.encoder = encoder
        self.characters = list(characters or CHARACTERS)
        if self.characters[0] != BLANK or len(set(self.characters)) != len(self.characters):
            raise InputError(f"characters must start with {BLANK!r} (the blank, id 0) and hold no repeats")
        self.head = torch.nn.Linear(encoder.config.hidden_size, len(self.characters))
        self.index = {c: i for i, c in enumerate(self.characters)}
        config = encoder.config
        self.min_samples = min_samples(config.conv_kernel, config.conv_stride)

    @classmethod
    def from_config(cls, config: Dict[str, Any], characters: Optional[List[str]] = None) -> "SpeechT5CtcNetwork":
        """A randomly initialised network of `SpeechT5Config(**config)`."""
        from transformers import SpeechT5Config
        from transformers.models.speecht5.modeling_speecht5 import SpeechT5EncoderWithSpeechPrenet

        return cls(SpeechT5EncoderWithSpeechPrenet(SpeechT5Config(**config)), characters)

    @classmethod
    def from_pretrained(cls, folder: str) -> "SpeechT5CtcNetwork":
        """The network saved in `folder` by `save_pretrained`; any weight that does not load is an error."""
        from safetensors.torch import load_file
        from transformers.models.speecht5.modeling_speecht5 import SpeechT5EncoderWithSpeechPrenet

        for name in ("config.json", HEAD_FILE, VOCABULARY_FILE):
            if not os.path.isfile(os.path.join(folder, name)):
                raise InputFileNotFound(f"{folder} is not a speecht5_ctc folder: it has no {name}")
        with open(os.path.join(folder, VOCABULARY_FILE), encoding="utf-8") as handle:
            characters = json.load(handle)["characters"]
        encoder, info = SpeechT5EncoderWithSpeechPrenet.from_pretrained(folder, output_loading_info=True)
        buffers = {name for name, _ in encoder.named_buffers()}
        missing = [k for k in info["missing_keys"] if k not in buffers]
        if missing or info["unexpected_keys"] or info["mismatched_keys"]:
            raise InputError(
                f"{folder}: the encoder weights do not fit its config: missing {missing}, "
                f"unexpected {info['unexpected_keys']}, mismatched {info['mismatched_keys']}"
            )
        network = cls(encoder, characters)
        network.head.load_state_dict(load_file(os.path.join(folder, HEAD_FILE)))
        return network

    def save_pretrained(self, folder: str) -> None:
        """Writes the encoder (`save_pretrained`: config + weights), the CTC layer and the characters."""
        from safetensors.torch import save_file

        os.makedirs(folder, exist_ok=True)
        self.encoder.save_pretrained(folder)
        head = {name: value.detach().cpu().contiguous() for name, value in self.head.state_dict().items()}
        save_file(head, os.path.join(folder, HEAD_FILE))
        with open(os.path.join(folder, VOCABULARY_FILE), "w", encoding="utf-8") as handle:
            json.dump({"characters": self.characters, "blank": 0}, handle, indent=1)

    def frames(self, lengths: torch.Tensor) -> torch.Tensor:
        """Frames per utterance of `lengths` samples (one at least)."""
        return self.encoder.prenet._get_feat_extract_output_lengths(lengths).clamp(min=1)

    def features(self, waveform: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The `B x L x conv_dim[-1]` output of the convolutional feature encoder, as each utterance
        gives it alone (`convolve_batched`), zero past each utterance's frames."""
        return convolve_batched(self.encoder.prenet.feature_encoder, waveform, lengths, self.min_samples)

    def encode(self, waveform: torch.Tensor, lengths: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """`(B x L x hidden encodings, B x L frame mask)` of a `B x T` waveform batch whose row i
        holds `lengths[i]` real samples."""
        prenet = self.encoder.prenet
        features = self.features(waveform, lengths)
        frames = self.frames(lengths.to(features.device))
        mask = torch.arange(features.size(1), device=features.device).unsqueeze(0) < frames.unsqueeze(1)
        hidden, _ = prenet.feature_projection(features)
        hidden = prenet._mask_hidden_states(hidden, attention_mask=mask.long())  # SpecAugment when training
        hidden = hidden * mask.unsqueeze(-1)
        hidden = hidden + prenet.pos_conv_embed(hidden)
        hidden = hidden + prenet.pos_sinusoidal_embed((~mask).long())
        encoded = self.encoder.wrapped_encoder(hidden_states=hidden, attention_mask=mask.long()).last_hidden_state
        return encoded, mask

    def forward(self, waveform: torch.Tensor, lengths: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:  # type: ignore
        """`(B x L x characters logits, B x L frame mask)`."""
        encoded, mask = self.encode(waveform, lengths)
        return self.head(encoded), mask

    def targets(self, texts: Sequence[str]) -> Tuple[torch.Tensor, torch.Tensor]:
        """The concatenated character ids of the normalised `texts` and their lengths (CTC targets)."""
        ids = [character_ids(text, self.characters) for text in texts]
        flat = torch.tensor(list(itertools.chain.from_iterable(ids)), dtype=torch.long)
        return flat, torch.tensor([len(row) for row in ids], dtype=torch.long)

    def greedy_decode(self, logits: torch.Tensor, mask: torch.Tensor) -> List[str]:
        """The best character of each real frame, repeats collapsed, blanks dropped, whitespace collapsed."""
        frames = mask.sum(-1).tolist()
        return [greedy_transcript(row[:length], self.characters) for row, length in zip(logits.detach().cpu(), frames)]
