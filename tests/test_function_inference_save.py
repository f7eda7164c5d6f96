"""A custom Function that saves tensors made in inference mode runs under ``inference_mode`` (PyTorch's
conv-bn fusion tutorial evaluates its fused Function in ``torch.inference_mode()`` and stopped at 'Inference
tensors cannot be saved for backward'); saving them where a graph is recorded still raises."""
import numpy as np
import pytest

import openreg


class Scale(openreg.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g * w, (g * x).sum()


def test_inference_mode_apply_with_inference_inputs():
    w = openreg.nn.Parameter(openreg.tensor(3.0))
    with openreg.inference_mode():
        x = openreg.tensor([1.0, 2.0]).exp()   # an inference tensor
        y = Scale.apply(x, w)
    assert y.is_inference() and not y.requires_grad
    np.testing.assert_allclose(y.numpy(), 3 * np.exp([1.0, 2.0]), rtol=1e-6)
    with openreg.no_grad():
        z = Scale.apply(openreg.tensor([1.0]), w)
    assert not z.requires_grad


def test_recorded_graph_still_refuses_inference_tensors():
    w = openreg.nn.Parameter(openreg.tensor(3.0))
    with openreg.inference_mode():
        x = openreg.tensor([1.0, 2.0]).exp()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        Scale.apply(x, w)
    y = Scale.apply(openreg.tensor([1.0, 2.0]), w)
    y.sum().backward()
    assert w.grad.item() == 3.0
