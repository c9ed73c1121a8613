import pytest
import torch

from srcframework.modules.dropout import Dropout, keep_mask, kept_share, masked_scale


def test_the_mask_keeps_each_element_with_the_declared_share():
    torch.manual_seed(0)
    keep = keep_mask(torch.Size([1000, 1000]), 0.2)
    assert keep.dtype == torch.bool and keep.shape == (1000, 1000)
    # 1e6 draws: the standard error of the share is 0.0004
    assert abs(keep.float().mean().item() - kept_share(0.2)) < 0.002
    assert kept_share(0.2) == pytest.approx(0.8, abs=1e-4)
    # an odd element count (not a multiple of the four masks a 64-bit draw gives)
    assert keep_mask(torch.Size([3, 5, 7]), 0.5).shape == (3, 5, 7)


def test_kept_elements_are_scaled_so_the_expectation_is_the_input():
    torch.manual_seed(1)
    dropout = Dropout(0.3).train()
    x = torch.ones(2000, 500)
    out = dropout(x)
    kept = out != 0
    assert torch.allclose(out[kept], torch.full_like(out[kept], 1 / kept_share(0.3)))
    assert out.mean().item() == pytest.approx(1.0, abs=0.01)


def test_the_gradient_is_the_mask_times_the_scale():
    torch.manual_seed(2)
    dropout = Dropout(0.5).train()
    x = torch.randn(40, 30, requires_grad=True)
    out = dropout(x)
    grad = torch.randn(40, 30)
    out.backward(grad)
    kept = out.detach() != 0
    assert torch.equal(x.grad, torch.where(kept, grad * 2.0, torch.zeros(())))


def test_the_same_seed_gives_the_same_mask():
    dropout = Dropout(0.2).train()
    torch.manual_seed(3)
    first = dropout(torch.ones(50, 50))
    torch.manual_seed(3)
    assert torch.equal(first, dropout(torch.ones(50, 50)))


def test_identity_in_eval_mode_and_at_zero():
    x = torch.randn(4, 4)
    assert Dropout(0.4).eval()(x) is x
    assert Dropout(0.0).train()(x) is x


@pytest.mark.parametrize("p", [-0.1, 1.0, 1.5])
def test_a_probability_outside_0_1_is_one_clear_error(p):
    with pytest.raises(ValueError, match=r"dropout probability has to be in \[0, 1\)"):
        Dropout(p)


def test_project_is_dropout_then_a_product_with_the_weight_vector():
    dropout = Dropout(0.25).train()
    x = torch.randn(3, 8, 10, requires_grad=True)
    w = torch.randn(10, requires_grad=True)
    torch.manual_seed(4)
    out = dropout.project(x, w)
    grad = torch.randn(3, 8)
    out.backward(grad)
    x_grad, w_grad = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    torch.manual_seed(4)  # the same mask
    expected = dropout(x) @ w
    expected.backward(grad)
    assert torch.allclose(out, expected, atol=1e-6)
    assert torch.allclose(x_grad, x.grad, atol=1e-6) and torch.allclose(w_grad, w.grad, atol=1e-5)
    assert torch.equal(dropout.eval().project(x, w), x @ w)


def test_masked_scale_is_the_product_bit_for_bit():
    torch.manual_seed(5)
    x = torch.randn(7, 33) * 1e3
    x[0, 0] = float("inf")
    keep = torch.rand(7, 33) > 0.3
    expected = x.mul(keep).mul_(1.25)
    actual = masked_scale(x, keep, 1.25)
    assert torch.allclose(actual, expected, equal_nan=True, rtol=0, atol=0)
