"""Small differences from PyTorch found in the reliability audit (#10.12): list defaults of schemas, the
inductor op on Meta tensors, nested inference_mode(False), and the version counter of inference tensors."""
import pytest

import openreg
from openreg._dispatch import parse_schema


def test_list_defaults_are_lists():
    s = parse_schema("f(int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
                     "float[] w=[1, 2.5]) -> Tensor")
    defaults = [a.default_value for a in s.arguments[1:]]
    assert defaults == [[], [0, 0], [1, 1], [1.0, 2.5]]
    assert all(type(d) is list for d in defaults)
    assert str(s) == "f(int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, float[] w=[1., 2.5]) -> Tensor"


def test_builtin_list_defaults_still_bind():
    a = openreg.ops.aten.sum.dim_IntList._schema.arguments
    assert [x.name for x in a][:2] == ["self", "dim"]
    assert openreg.ops.aten.sum.dim_IntList(openreg.ones(2, 3), [1]).tolist() == [3.0, 3.0]


def test_mm_plus_mm_on_meta_does_not_alias():
    a = openreg.ones(2, 2, device="meta")
    out = openreg.ops.inductor._mm_plus_mm(a, a, a, a, openreg.empty(2, 2, device="meta"))
    assert out.is_meta and out.shape == (2, 2)
    assert openreg.ops.inductor._mm_plus_mm(a, a, a, a, a).shape == (2, 2)  # PyTorch accepts this too
    c = openreg.ones(2, 2)
    with pytest.raises(RuntimeError, match="alias"):  # real memory still may not alias
        openreg.ops.inductor._mm_plus_mm(c, c, c, c, c)


def test_inference_mode_false_nested_turns_grad_on_and_leaves_inference_mode():
    with openreg.inference_mode():
        assert not openreg.is_grad_enabled() and openreg.is_inference_mode_enabled()
        with openreg.inference_mode(False):
            assert openreg.is_grad_enabled() and not openreg.is_inference_mode_enabled()
            x = openreg.ones(2, requires_grad=True)
            assert not x.is_inference()
            y = x * 2
            assert y.requires_grad and y.grad_fn is not None
        assert not openreg.is_grad_enabled() and openreg.is_inference_mode_enabled()
    with openreg.no_grad(), openreg.inference_mode(), openreg.inference_mode(False):
        assert openreg.is_grad_enabled()
    assert openreg.is_grad_enabled() and not openreg.is_inference_mode_enabled()


def test_version_of_inference_tensors_raises():
    with openreg.inference_mode():
        t = openreg.ones(2)
        with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
            _ = t._version
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
        _ = t.view(2)._version
    n = openreg.ones(2)
    n.add_(1)
    assert n._version == 1
