import pytest
import torch
from allennlp.common import Params
from allennlp.modules.seq2vec_encoders import CnnEncoder, Seq2VecEncoder

from srcframework.modules.seq2vec_encoders.max_pool_cnn import MaxPoolCnn
from tests.modules.gradients import outputs_and_gradients


def pair(sizes, dim=6, filters=5):
    reference = CnnEncoder(dim, filters, ngram_filter_sizes=sizes)
    encoder = MaxPoolCnn(dim, filters, ngram_filter_sizes=sizes)
    with torch.no_grad():  # integer weights and inputs: windows tie exactly, as repeated characters do
        for p in reference.parameters():
            p.copy_(p.mul(4).round())
    encoder.load_state_dict(reference.state_dict())
    return reference, encoder


@pytest.mark.parametrize("sizes", [(3,), (2, 3, 5)])
def test_outputs_and_gradients_are_those_of_allennlps_cnn(sizes):
    torch.manual_seed(0)
    reference, encoder = pair(sizes)
    # every length from 0 (a padding token) to the longest, so each length group and each word
    # shorter than a filter occurs; repeated rows make tied windows
    lengths = torch.arange(0, 19).repeat(3)
    x = torch.randn(lengths.numel(), 18, 6).round()
    x[5:10] = x[5, :1]
    mask = torch.arange(18).unsqueeze(0) < lengths.unsqueeze(1)
    grad = torch.randn(lengths.numel(), encoder.get_output_dim())
    expected = outputs_and_gradients(reference, x, mask, grad)
    actual = outputs_and_gradients(encoder, x, mask, grad)
    # the outputs and the input gradient bit for bit (ties go to the same window); the weight
    # gradients sum the windows in another order
    assert torch.equal(actual[0], expected[0]) and torch.equal(actual[1], expected[1])
    for a, b in zip(actual[2:], expected[2:]):
        assert torch.allclose(a, b, rtol=1e-6, atol=1e-5)
    assert encoder(x, mask)[lengths < min(sizes)].abs().sum() == 0


def test_without_a_mask_every_position_counts():
    reference, encoder = pair((2,))
    x = torch.randn(4, 3, 6).round()
    assert torch.equal(encoder(x), reference(x, torch.ones(4, 3, dtype=torch.bool)))


def test_built_from_params_under_its_name():
    encoder = Seq2VecEncoder.from_params(
        Params({"type": "max_pool_cnn", "embedding_dim": 4, "num_filters": 3, "ngram_filter_sizes": [2, 3]})
    )
    assert isinstance(encoder, MaxPoolCnn)
    assert encoder.get_input_dim() == 4 and encoder.get_output_dim() == 6


def test_no_filter_sizes_is_one_clear_error():
    with pytest.raises(ValueError, match="ngram_filter_sizes is empty"):
        MaxPoolCnn(4, 3, ngram_filter_sizes=())


def test_from_cnn_takes_over_its_convolutions_and_refuses_what_it_does_not_compute():
    from allennlp.nn import Activation

    cnn = CnnEncoder(4, 3, ngram_filter_sizes=(2, 3))
    state = torch.random.get_rng_state()
    encoder = MaxPoolCnn.from_cnn(cnn)
    assert torch.equal(torch.random.get_rng_state(), state)  # no parameter drawn
    assert encoder.conv_layer_1 is cnn.conv_layer_1 and list(encoder.state_dict()) == list(cnn.state_dict())
    x = torch.randn(5, 6, 4)
    mask = torch.arange(6).unsqueeze(0) < torch.tensor([6, 3, 2, 1, 0]).unsqueeze(1)
    assert torch.allclose(encoder(x, mask), cnn(x, mask))
    assert MaxPoolCnn.from_cnn(CnnEncoder(4, 3, ngram_filter_sizes=(2,), output_dim=7)) is None
    assert MaxPoolCnn.from_cnn(CnnEncoder(4, 3, ngram_filter_sizes=(2,), conv_layer_activation=Activation.by_name("tanh")())) is None
