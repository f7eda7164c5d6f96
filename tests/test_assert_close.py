"""openreg.testing.assert_close against torch.testing.assert_close: the same pass/fail outcome, error type and
message for tensors, numbers, sequences and mappings, default tolerances per dtype."""
from __future__ import annotations

import pytest

import openreg

CASES = {
    "float32_mismatch": lambda t, ac: ac(t.tensor([1., 2, 3]), t.tensor([1., 2.1, 3])),
    "float32_within": lambda t, ac: ac(t.tensor([1., 2]), t.tensor([1., 2 + 1e-6])),
    "shape": lambda t, ac: ac(t.tensor([1., 2]), t.tensor([1., 2, 3])),
    "dtype": lambda t, ac: ac(t.tensor([1., 2]), t.tensor([1., 2], dtype=t.float64)),
    "int_exact": lambda t, ac: ac(t.tensor([1, 2]), t.tensor([1, 3])),
    "scalars": lambda t, ac: ac(1.0, 1.1),
    "int_scalars": lambda t, ac: ac(1, 2),
    "scalar_types": lambda t, ac: ac(1, 1.0),
    "sequence_item": lambda t, ac: ac([t.ones(1)], [t.zeros(1)]),
    "mapping_item": lambda t, ac: ac({"a": t.ones(1)}, {"a": t.zeros(1)}),
    "nan": lambda t, ac: ac(t.tensor([float("nan")]), t.tensor([float("nan")])),
    "nan_equal": lambda t, ac: ac(t.tensor([float("nan")]), t.tensor([float("nan")]), equal_nan=True),
    "custom_msg": lambda t, ac: ac(t.ones(2, 2), t.ones(2, 2) + t.eye(2), msg="custom"),
    "callable_msg": lambda t, ac: ac(t.ones(2), t.zeros(2), msg=lambda m: "wrapped: " + m.splitlines()[0]),
    "rtol_only": lambda t, ac: ac(t.ones(2), t.ones(2), rtol=1e-3),
    "no_dtype_check": lambda t, ac: ac(t.tensor([1., 2, 3]), t.tensor([1., 2.1, 3], dtype=t.float64),
                                       check_dtype=False, atol=0.2, rtol=0),
    "lengths": lambda t, ac: ac([1, 2], [1, 2, 3]),
    "half_within": lambda t, ac: ac(t.tensor([1., 2.], dtype=t.float16), t.tensor([1., 2.001], dtype=t.float16)),
    "half_mismatch": lambda t, ac: ac(t.tensor([1., 2.], dtype=t.float16), t.tensor([1., 2.01], dtype=t.float16)),
    "matrix_index": lambda t, ac: ac(t.tensor([[1., 2.], [3, 4]]), t.tensor([[1., 2.], [3, 5]])),
    "bool": lambda t, ac: ac(t.tensor([True, False]), t.tensor([True, True])),
    "stride": lambda t, ac: ac(t.ones(2, 3), t.ones(3, 2).T, check_stride=True),
    "tuple_and_list": lambda t, ac: ac((1.0, 2.0), [1.0, 2.0 + 1e-9]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(case):
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    outcomes = []
    for lib, assert_close in ((torch, torch.testing.assert_close), (openreg, openreg.testing.assert_close)):
        try:
            CASES[case](lib, assert_close)
            outcomes.append(None)
        except (AssertionError, ValueError, TypeError) as e:
            outcomes.append((type(e), str(e).replace("torch.", "openreg.")))
    assert outcomes[1] == outcomes[0]


def test_device_is_compared():
    with pytest.raises(AssertionError, match="'device' do not match"):
        openreg.testing.assert_close(openreg.ones(2), openreg.ones(2, device="privateuseone:0"))
    openreg.testing.assert_close(openreg.ones(2), openreg.ones(2, device="privateuseone:0"), check_device=False)


def test_mixed_types_are_refused():
    with pytest.raises(TypeError, match="No comparison pair"):
        openreg.testing.assert_close(openreg.ones(1), 1.0)
