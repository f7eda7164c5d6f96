"""Anomaly detection (``openreg.autograd.detect_anomaly``): NaN gradients and errors in backward functions are
reported with the node's name, as in PyTorch; off, the engine does neither."""
from __future__ import annotations

import warnings

import pytest

import openreg


def test_nan_gradient_raises_with_the_node_and_output_index_and_warns_first():
    x = openreg.zeros(1, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with openreg.autograd.detect_anomaly():
            assert openreg.is_anomaly_enabled() and openreg.is_anomaly_check_nan_enabled()
            with pytest.raises(RuntimeError, match=r"Function 'DivBackward0' returned nan values in its 1th output"):
                (x / x).sum().backward()
    assert not openreg.is_anomaly_enabled()
    messages = [str(w.message) for w in caught]
    assert any("Anomaly Detection has been enabled" in m for m in messages)
    assert any("Error detected in DivBackward0" in m for m in messages)
    (x / x).sum().backward()            # off: NaN gradients are accumulated silently, as in PyTorch
    assert x.grad.isnan().any()


def test_check_nan_off_and_errors_in_custom_functions():
    class Failing(openreg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")
    x = openreg.zeros(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with openreg.autograd.detect_anomaly(check_nan=False):
            (x / x).sum().backward()                 # not checked
            with pytest.raises(ValueError, match="boom"):
                Failing.apply(x).sum().backward()
    assert any("Error detected in FailingBackward" in str(w.message) for w in caught)


def test_set_detect_anomaly_switches_at_once_and_restores_as_a_context():
    assert not openreg.is_anomaly_enabled()
    with openreg.autograd.set_detect_anomaly(True):
        assert openreg.is_anomaly_enabled()
        y = openreg.ones(2, requires_grad=True)
        (y * 2).sum().backward()                     # finite gradients pass
        assert y.grad.tolist() == [2.0, 2.0]
    assert not openreg.is_anomaly_enabled()
    openreg.set_anomaly_enabled(True, check_nan=False)
    assert openreg.is_anomaly_enabled() and not openreg.is_anomaly_check_nan_enabled()
    openreg.set_anomaly_enabled(False)
    assert not openreg.is_anomaly_enabled() and openreg.is_anomaly_check_nan_enabled()


def test_detect_anomaly_as_a_decorator():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")

        @openreg.autograd.detect_anomaly()
        def enabled():
            return openreg.is_anomaly_enabled()
        assert enabled() and not openreg.is_anomaly_enabled()
