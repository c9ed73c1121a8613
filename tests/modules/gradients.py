"""A test helper for the encoders' tests: an encoder's output and every gradient of one backward pass."""


def outputs_and_gradients(encoder, x, mask, grad):
    """`[output, input gradient, each parameter's gradient]` of `encoder(x, mask)` backed by `grad`."""
    x = x.clone().requires_grad_()
    encoder.zero_grad()
    out = encoder(x, mask)
    out.backward(grad)
    return [out.detach(), x.grad] + [p.grad.clone() for p in encoder.parameters()]
