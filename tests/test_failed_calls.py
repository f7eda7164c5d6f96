"""Failed calls change nothing and raise as PyTorch's: random out= ops check the out dtype before resizing it,
structured out= kernels refuse an out of another dtype where PyTorch's "same dtype" unary kernels do and any
written-to tensor with internal overlap (expanded), and chunk/index/randperm refuse bad arguments as PyTorch."""
import pytest
from device_params import DEVICES

import openreg

OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("make,op", [
    (lambda out, dev: openreg.ops.aten.randn_like.out(openreg.ones(2, 3, device=dev), out=out), "normal_kernel_cpu"),
    (lambda out, dev: openreg.ops.aten.rand_like.out(openreg.ones(2, 3, device=dev), out=out), "check_uniform_bounds"),
    (lambda out, dev: openreg.randn(2, 3, out=out), "normal_kernel_cpu"),
    (lambda out, dev: openreg.rand(2, 3, out=out), "check_uniform_bounds"),
    (lambda out, dev: openreg.randn(2, 3, generator=openreg.Generator(), out=out) if dev == "cpu"
     else openreg.randn(2, 3, out=out), "normal_kernel_cpu"),
], ids=["randn_like", "rand_like", "randn", "rand", "randn_generator"])
def test_random_out_checks_dtype_before_resizing(device, make, op):
    out = openreg.empty(0, dtype=openreg.int32, device=device)
    with pytest.raises(NotImplementedError, match=f"\"{op}\" not implemented for 'Int'"):
        make(out, device)
    assert out.shape == (0,) and out.untyped_storage().nbytes() == 0


@pytest.mark.parametrize("device", DEVICES)
def test_same_dtype_unary_out_refuses_another_dtype(device):
    x = openreg.tensor([1, 2], device=device)
    out = openreg.zeros(2, dtype=openreg.float64, device=device)
    for op in ("neg", "abs", "bitwise_not"):
        with pytest.raises(RuntimeError, match="Found dtype Double but expected Long"):
            getattr(openreg.ops.aten, op).out(x, out=out)
    assert out.tolist() == [0.0, 0.0]
    assert openreg.ops.aten.add.out(x, x, out=out).tolist() == [2.0, 4.0]   # promoting ops may widen


@pytest.mark.parametrize("device", DEVICES)
def test_written_to_tensors_with_internal_overlap_raise(device):
    x = openreg.tensor([1, 2], device=device)
    out = openreg.zeros(1, dtype=openreg.bool, device=device).expand(2)
    with pytest.raises(RuntimeError, match=OVERLAP.replace("(", r"\(").replace(")", r"\)")):
        openreg.ops.aten.gt.Scalar_out(x, 1, out=out)
    assert out.tolist() == [False, False]
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        openreg.add(openreg.ones(2, device=device), 1, out=openreg.zeros(1, device=device).expand(2))
    e = openreg.zeros(1, device=device).expand(3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.add_(1)
    assert e.tolist() == [0.0, 0.0, 0.0]
    # an out that must be resized anyway gets a fresh layout; a size-1 expanded dim is no overlap
    o = openreg.zeros(1, device=device).expand(2)
    assert openreg.add(openreg.ones(3, device=device), 1, out=o.as_strided((2,), (0,))[:0]).shape == (3,)
    assert openreg.zeros(1, 1, device=device).expand(1, 1).add_(1).tolist() == [[1.0]]


def test_chunk_index_randperm_raise_as_pytorch():
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative, but got split_size=-1"):
        openreg.ones(3).chunk(2**63 - 1)
    assert [c.tolist() for c in openreg.ones(3).chunk(2**62)] == [[1.0], [1.0], [1.0]]
    with pytest.raises(IndexError, match="at least one index must be provided"):
        openreg.ops.aten.index.Tensor(openreg.ones(3), [])
    for n in (1, 3):
        with pytest.raises(NotImplementedError, match="\"randperm\" not implemented for 'Bool'"):
            openreg.randperm(n, dtype=openreg.bool)
    out = openreg.empty(0, dtype=openreg.bool)
    with pytest.raises(NotImplementedError, match="randperm"):
        openreg.randperm(3, out=out)
    assert out.shape == (0,)
    assert sorted(openreg.randperm(4, dtype=openreg.float32).tolist()) == [0.0, 1.0, 2.0, 3.0]
