import copy

import torch
from allennlp.common import Params
from allennlp.data import Vocabulary
from allennlp.modules import TextFieldEmbedder
from allennlp.modules.seq2vec_encoders import CnnEncoder

from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.modules.seq2vec_encoders.max_pool_cnn import MaxPoolCnn

EMBEDDER = {
    "token_embedders": {
        "token_characters": {
            "type": "character_encoding",
            "embedding": {"embedding_dim": 4, "num_embeddings": 20},
            "encoder": {"type": "cnn", "embedding_dim": 4, "num_filters": 6, "ngram_filter_sizes": [3]},
        }
    }
}


def build(vocab):
    params = {"type": "text", "text_field_embedder": copy.deepcopy(EMBEDDER), "highway_layers": 1,
              "encoder": {"type": "padded_bilstm", "input_size": 6, "hidden_size": 3}}
    return FieldEncoder.from_params(vocab=vocab, params=Params(params))


def test_a_cnn_character_encoder_runs_as_max_pool_cnn_with_the_same_parameters():
    vocab = Vocabulary()
    torch.manual_seed(0)
    encoder = build(vocab)
    torch.manual_seed(0)
    plain = TextFieldEmbedder.from_params(vocab=vocab, params=Params(copy.deepcopy(EMBEDDER)))
    characters = encoder.text_field_embedder.token_embedder_token_characters._encoder._module
    assert isinstance(characters, MaxPoolCnn)
    assert isinstance(plain.token_embedder_token_characters._encoder._module, CnnEncoder)
    # the same names (archives load either way) and, from the same seed, the same values
    plain_state = plain.state_dict()
    for name, value in encoder.text_field_embedder.state_dict().items():
        assert torch.equal(value, plain_state[name])
    assert set(encoder.text_field_embedder.state_dict()) == set(plain_state)
    chars = torch.randint(0, 20, (2, 5, 7))
    chars[1, 3:] = 0
    chars[0, 0, 2:] = 0  # a word shorter than the filter
    tensors = {"token_characters": {"token_characters": chars}}
    assert torch.equal(encoder.text_field_embedder(tensors), plain(tensors))
