"""Intra-op threads: set/get_num_threads, OMP_NUM_THREADS, and large elementwise kernels split over the pool
giving exactly the single-threaded result (broadcast, strided, out=, in-place, errors, the device)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import openreg
from openreg import _threads

N = 4 * _threads.GRAIN   # large enough to be split over two threads


@pytest.fixture
def two_threads():
    old = openreg.get_num_threads()
    openreg.set_num_threads(2)
    yield
    openreg.set_num_threads(old)


def _both(fn):
    """fn() with two threads and with one, as NumPy arrays."""
    openreg.set_num_threads(2)
    a = fn()
    openreg.set_num_threads(1)
    b = fn()
    openreg.set_num_threads(2)
    return a, b


def test_set_and_get_num_threads(two_threads):
    assert openreg.get_num_threads() == 2
    openreg.set_num_threads(1)
    assert openreg.get_num_threads() == 1
    with pytest.raises(RuntimeError, match="positive"):
        openreg.set_num_threads(0)
    with pytest.raises(TypeError, match="must be int"):
        openreg.set_num_threads(1.5)


def test_omp_num_threads_sets_the_default():
    env = dict(os.environ, OMP_NUM_THREADS="3")
    out = subprocess.run([sys.executable, "-c", "import openreg; print(openreg.get_num_threads())"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "3"


def test_pieces_stay_single_below_the_grain(two_threads):
    assert _threads.pieces(_threads.GRAIN, 1000) == 1
    assert _threads.pieces(4 * _threads.GRAIN, 1000) == 2
    assert _threads.pieces(4 * _threads.GRAIN, 1) == 1


def test_work_runs_on_more_than_one_thread(two_threads):
    import threading
    seen = _threads.run(lambda _: threading.get_ident(), [0, 1])
    assert len(set(seen)) == 2


@pytest.mark.parametrize("device", ["cpu", "privateuseone"])
def test_large_elementwise_results_match_one_thread(two_threads, device):
    x = openreg.randn(N // 64, 64, device=device)
    y = openreg.randn(64, device=device)          # broadcast along the split dimension
    z = openreg.randn(64, N // 64, device=device).t()   # strided
    for fn in (lambda: (x + y).cpu().numpy(), lambda: (x * z).cpu().numpy(), lambda: x.tanh().cpu().numpy(),
               lambda: openreg.where(x > 0, x, z).cpu().numpy(), lambda: x.sigmoid().half().cpu().numpy()):
        a, b = _both(fn)
        assert np.array_equal(a, b)


def test_out_and_inplace_in_pieces(two_threads):
    x = openreg.randn(N)
    expect = np.exp(x.numpy())
    out = openreg.empty(N)
    openreg.exp(x, out=out)
    np.testing.assert_array_equal(out.numpy(), expect)
    x.exp_()
    np.testing.assert_array_equal(x.numpy(), expect)


def test_errors_of_a_piece_reach_the_caller(two_threads):
    a = openreg.ones(N, dtype=openreg.int64)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        a // openreg.zeros(N, dtype=openreg.int64)


def test_autograd_through_split_kernels(two_threads):
    x = openreg.randn(N, requires_grad=True)
    x.tanh().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh(x.detach().numpy()) ** 2, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", ["cpu", "privateuseone"])
def test_large_reductions_and_softmax_match_one_thread(two_threads, device):
    x = openreg.randn(N // 64, 64, device=device)
    for fn in (lambda: x.sum(1).cpu().numpy(), lambda: x.sum(0).cpu().numpy(),
               lambda: x.mean(1, keepdim=True).cpu().numpy(), lambda: x.sum().cpu().numpy(),
               lambda: x.amax(1).cpu().numpy(), lambda: x.amin(0).cpu().numpy(),
               lambda: x.softmax(1).cpu().numpy(), lambda: x.log_softmax(0).cpu().numpy(),
               lambda: x.view(N // 256, 4, 64).sum((0, 2)).cpu().numpy()):
        a, b = _both(fn)
        assert np.array_equal(a, b)
